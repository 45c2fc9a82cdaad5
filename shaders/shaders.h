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

#endif
