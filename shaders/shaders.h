/* shaders/ owns the built-in shaders (GLSL compiled to SPIR-V at build time and
 * embedded), the run-time GLSL compiler (glslang C API) for generated ones and
 * the SPIRV-Cross wrapper that reads modules back (GLSL, reflection).  It
 * holds no other C logic and never records commands. */
#ifndef PVK_SHADERS_H
#define PVK_SHADERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "picavk/picavk.h"

typedef enum pvk_shader_stage {
    PVK_STAGE_VERTEX,
    PVK_STAGE_FRAGMENT,
    PVK_STAGE_COMPUTE,
} pvk_shader_stage;

/* Compile GLSL to SPIR-V for Vulkan 1.3.  On success *words is malloc'd
 * (free it).  On failure returns PVK_ERROR_BAD_DATA and, when `log` is not
 * NULL, a malloc'd compiler log there. */
pvk_result pvk_glsl_compile(pvk_shader_stage stage, const char *source, uint32_t **words, size_t *n_words,
                            char **log);

/* ---- SPIRV-Cross (shaders/spvc.c) ---- */

/* The module as GLSL 460 with Vulkan semantics, malloc'd; NULL with a
 * message in err on failure. */
char *pvk_spirv_to_glsl(const uint32_t *words, size_t n_words, char err[256]);

/* One stage input or output (not built-ins). */
#define PVK_SPIRV_MAX_IO 16
#define PVK_SPIRV_NO_LOCATION 0xFFFFFFFFu
typedef struct pvk_spirv_io {
    uint32_t location;          /* PVK_SPIRV_NO_LOCATION: undecorated */
    uint32_t array;             /* outer array length, 0: not an array */
    char type[32];              /* "vec4", "uint", ... */
    bool flat, noperspective;
    char name[32];
} pvk_spirv_io;

/* One resource in a descriptor set, as the layout must declare it. */
#define PVK_SPIRV_MAX_DESC 16
typedef struct pvk_spirv_desc {
    uint32_t set, binding;
    VkDescriptorType type;      /* subpassInput: INPUT_ATTACHMENT, sampler2D: COMBINED_IMAGE_SAMPLER, ... */
} pvk_spirv_desc;

/* What a module needs from its pipeline layout and neighbouring stages. */
typedef struct pvk_spirv_info {
    uint32_t push_blocks;       /* push-constant blocks (0 or 1) */
    uint32_t push_offset, push_end; /* the block's bytes: first member's offset .. declared size */
    uint32_t descriptors;       /* resources in descriptor sets (the first PVK_SPIRV_MAX_DESC in desc) */
    uint32_t sets_used;         /* highest DescriptorSet used + 1 (0: none) */
    pvk_spirv_desc desc[PVK_SPIRV_MAX_DESC];
    uint32_t n_inputs, n_outputs;
    pvk_spirv_io inputs[PVK_SPIRV_MAX_IO], outputs[PVK_SPIRV_MAX_IO];
} pvk_spirv_info;

pvk_result pvk_spirv_reflect(const uint32_t *words, size_t n_words, pvk_spirv_info *out, char err[256]);

/* The built-in compute pipelines (gpu/compute.c creates them from this
 * table, shaders/builtin.c holds their SPIR-V). */
enum {
    PVK_PIPE_FILL,
    PVK_PIPE_DISPLAY_TRANSFER,
    PVK_PIPE_DISPLAY_QUAD,
    PVK_PIPE_TEXTURE_COPY,
    PVK_PIPE_SCANOUT,
    PVK_PIPE_DEPTH_IO, /* runtime/draw.c: depth buffer load/store */
    PVK_PIPE_SURFACE_CONVERT, /* vram/: display transfers from and reinterpretations of surfaces */
    PVK_PIPE_TEXTURE_DECODE_ETC, /* vram/texture.c: the same for ETC1/ETC1A4 */
    PVK_PIPE_LCD_SCALE, /* runtime/present.c: frames at resolution scale N */
    /* Variants by specialisation constants, each created on first use:
     * display_block.comp per input bytes per pixel, downscale, direction and
     * output bytes per pixel (pvk_pipe_display_block; 54 slots, at most 30
     * valid); scanout_block.comp per bytes per pixel, LUT use and pixel
     * doubling (pvk_pipe_scanout_block). */
    PVK_PIPE_DISPLAY_BLOCK,
    PVK_PIPE_SCANOUT_BLOCK = PVK_PIPE_DISPLAY_BLOCK + 54,
    /* display_quad.comp linear -> tiled (PVK_PIPE_DISPLAY_QUAD is tiled -> linear) */
    PVK_PIPE_DISPLAY_QUAD_TO_TILED = PVK_PIPE_SCANOUT_BLOCK + 12,
    /* texture_decode.comp per uncompressed PICA texture format (+ 0-11;
     * vram/texture.c: guest texture -> linear image level) */
    PVK_PIPE_TEXTURE_DECODE,
    PVK_PIPE_COUNT = PVK_PIPE_TEXTURE_DECODE + 12,
};
static inline int pvk_pipe_bpp_class(uint32_t bpp)
{
    return bpp == 4 ? 0 : bpp == 3 ? 1 : 2;
}
static inline int pvk_pipe_display_block(uint32_t in_bpp, uint32_t scale, bool to_tiled, uint32_t out_bpp)
{
    return PVK_PIPE_DISPLAY_BLOCK + ((pvk_pipe_bpp_class(in_bpp) * 3 + (int)scale) * 2 + to_tiled) * 3 +
           pvk_pipe_bpp_class(out_bpp);
}
static inline int pvk_pipe_scanout_block(uint32_t bpp, bool lut, bool dbl)
{
    return PVK_PIPE_SCANOUT_BLOCK + pvk_pipe_bpp_class(bpp) * 4 + lut * 2 + dbl;
}

/* ---- embedded SPIR-V (generated: shaders/) ---- */
typedef struct pvk_spirv {
    const uint32_t *code;
    size_t size; /* bytes */
} pvk_spirv;
pvk_spirv pvk_builtin_spirv(int pipe);
pvk_spirv pvk_builtin_draw_vertex_spirv(void);
/* Fragment lighting's per-triangle quaternion flips for generated vertex
 * stages (shaders/draw_quat.geom; their draws are triangle lists). */
pvk_spirv pvk_builtin_draw_quat_geom_spirv(void);
/* The fragment stage of a vertex-program warm-up draw (shaders/draw_null.frag). */
pvk_spirv pvk_builtin_draw_null_frag_spirv(void);
/* Texture filters at resolution scale N (vram/filter.c; FILTER a specialisation constant). */
pvk_spirv pvk_builtin_texture_filter_spirv(void);
/* Anime4K's three passes (PASS a specialisation constant). */
pvk_spirv pvk_builtin_texture_anime4k_spirv(void);

#endif
