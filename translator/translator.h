/* translator/ owns the PICA: its internal register file and data ports, the
 * command-list processor, vertex attribute loading, the shader instruction set
 * and interpreter, primitive assembly, and the decoding of framebuffer and
 * raster state into plain descriptions (draw packets).
 * It never calls Vulkan, never includes vram/ or runtime/, and never sees a
 * pvk_context: it takes a pvk_pica and reaches the outside world only through
 * the callbacks in pvk_pica_env.  What the other folders may use of it. */
#ifndef PVK_TRANSLATOR_H
#define PVK_TRANSLATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "picavk/picavk.h"
#include "translator/regs.h"
#include "translator/sh_isa.h"

/* ---- pixel formats: the one place their sizes are decoded ---- */

/* Bytes per pixel of a colour format: the transfer engine's and the LCD's
 * codes (0 RGBA8, 1 RGB8, 2 RGB565, 3 RGB5A1, 4-7 RGBA4) and COLORBUFFER's
 * (0 RGBA8, 1 RGB8, 2 RGB5A1, 3 RGB565, 4 RGBA4) alike. */
static inline uint32_t pvk_color_format_bpp(uint32_t code)
{
    return code == 0 ? 4 : code == 1 ? 3 : 2;
}

/* Bytes per pixel of DEPTHBUFFER_FORMAT (0 D16, 2 D24, 3 D24S8; 1 is not a
 * format: 0). */
static inline uint32_t pvk_depth_format_bpp(uint32_t code)
{
    return code == 0 ? 2 : code == 2 ? 3 : code == 3 ? 4 : 0;
}

#define PVK_PICA_REG_COUNT 0x400u

/* Work bounds per kick (a CPU write to CMDBUF_JUMP0/1): a list that jumps
 * more often or decodes more words than this is stopped as malformed. */
#define PVK_CMDLIST_MAX_JUMPS 65536u
#define PVK_CMDLIST_MAX_WORDS (1u << 25)

/* State groups a register write can change (pvk_pica.dirty).  Later code
 * rebuilds only what changed and clears the bits it consumed. */
enum {
    PVK_DIRTY_RASTER = 1u << 0,        /* culling, viewport, clip planes, depth map, scissor, early depth */
    PVK_DIRTY_OUTMAP = 1u << 1,        /* shader output map and attribute clocks */
    PVK_DIRTY_TEXTURE = 1u << 2,       /* texture units 0-2 */
    PVK_DIRTY_PROCTEX = 1u << 3,       /* texture unit 3 (procedural) */
    PVK_DIRTY_PROCTEX_LUT = 1u << 4,
    PVK_DIRTY_TEV = 1u << 5,           /* combiners, buffer inputs and color */
    PVK_DIRTY_FOG = 1u << 6,
    PVK_DIRTY_FOG_LUT = 1u << 7,
    PVK_DIRTY_FRAGMENT = 1u << 8,      /* fragment operation mode, alpha test */
    PVK_DIRTY_BLEND = 1u << 9,         /* blend / logic op and constant */
    PVK_DIRTY_DEPTH_STENCIL = 1u << 10, /* stencil, depth test, write masks */
    PVK_DIRTY_FRAMEBUFFER = 1u << 11,  /* buffer addresses, formats, size, access */
    PVK_DIRTY_GAS = 1u << 12,
    PVK_DIRTY_GAS_LUT = 1u << 13,
    PVK_DIRTY_SHADOW = 1u << 14,
    PVK_DIRTY_LIGHTING = 1u << 15,
    PVK_DIRTY_LIGHTING_LUT = 1u << 16,
    PVK_DIRTY_VERTEX_INPUT = 1u << 17, /* attribute buffers, index buffer, vertex counts */
    PVK_DIRTY_FIXED_ATTR = 1u << 18,
    PVK_DIRTY_PRIMITIVE = 1u << 19,    /* geometry stage, primitive mode */
    PVK_DIRTY_GS_CONFIG = 1u << 20,
    PVK_DIRTY_GS_UNIFORM = 1u << 21,
    PVK_DIRTY_GS_CODE = 1u << 22,      /* code and operand descriptors */
    PVK_DIRTY_VS_CONFIG = 1u << 23,
    PVK_DIRTY_VS_UNIFORM = 1u << 24,
    PVK_DIRTY_VS_CODE = 1u << 25,
    PVK_DIRTY_ALL = (1u << 26) - 1,
    /* what registers 0x040-0x1FF mark (those of no group mark RASTER): the
     * packet memo's registers (IRQ registers are not read by a draw) */
    PVK_DIRTY_PACKET = PVK_DIRTY_RASTER | PVK_DIRTY_OUTMAP | PVK_DIRTY_TEXTURE | PVK_DIRTY_PROCTEX |
                       PVK_DIRTY_PROCTEX_LUT | PVK_DIRTY_TEV | PVK_DIRTY_FOG | PVK_DIRTY_FOG_LUT | PVK_DIRTY_FRAGMENT |
                       PVK_DIRTY_BLEND | PVK_DIRTY_DEPTH_STENCIL | PVK_DIRTY_FRAMEBUFFER | PVK_DIRTY_GAS |
                       PVK_DIRTY_GAS_LUT | PVK_DIRTY_SHADOW | PVK_DIRTY_LIGHTING | PVK_DIRTY_LIGHTING_LUT,
    /* the attribute plan's registers and fixed attributes (VSH_NUM_ATTR and
     * the permutation are VS_CONFIG) */
    PVK_DIRTY_ATTRIB = PVK_DIRTY_VERTEX_INPUT | PVK_DIRTY_FIXED_ATTR | PVK_DIRTY_VS_CONFIG,
};

/* Data-port capacities (3dbrew). */
#define PVK_LIGHTING_LUTS 24
#define PVK_LUT_ENTRIES 256
#define PVK_FOG_LUT_ENTRIES 128
#define PVK_GAS_LUT_ENTRIES 16
#define PVK_PROCTEX_LUT_TABLES 6 /* 0 noise, 2 RGB map, 3 alpha map: 128; 4 color, 5 color diff: 256 */
#define PVK_FIXED_ATTRS 12
#define PVK_MAX_VS_INPUTS 16

/* One shader unit (0 = geometry, 1 = vertex): what the data ports uploaded. */
typedef struct pvk_shader_unit {
    uint32_t code[PVK_SH_CODE_WORDS];
    uint32_t opdesc[PVK_SH_OPDESCS];
    uint32_t f[PVK_SH_FLOAT_UNIFORMS][4]; /* float1.7.16, x y z w */
    uint32_t i[4];                        /* INTUNIFORM_I0-3 as written (x,y,z,w bytes) */
    uint32_t b;                           /* BOOLUNIFORM bits 0-15 */
    uint32_t code_pos, opdesc_pos, float_index;
    uint32_t float_buf[4];                /* partial uniform being uploaded */
    uint32_t float_words;
} pvk_shader_unit;

/* Cache triggers. */
typedef enum pvk_pica_cache_op {
    PVK_PICA_FRAMEBUFFER_INVALIDATE = 0,
    PVK_PICA_FRAMEBUFFER_FLUSH = 1,
    PVK_PICA_TEXTURE_CACHE_CLEAR = 2,
    PVK_PICA_EARLYDEPTH_CLEAR = 3,
} pvk_pica_cache_op;

/* The framebuffer the registers describe (translator/fb.c decodes it once;
 * every other folder reads this, never the registers). */
typedef struct pvk_fb_desc {
    uint32_t width, height;          /* FRAMEBUFFER_DIM */
    uint32_t color_addr, depth_addr; /* byte addresses (64-byte units in the registers) */
    uint32_t color_format;           /* COLORBUFFER_FORMAT: 0 RGBA8, 1 RGB8, 2 RGB5A1, 3 RGB565, 4 RGBA4 */
    int color_xfer_format;           /* the same layout as a transfer-engine format code
                                        (0 RGBA8, 1 RGB8, 2 RGB565, 3 RGB5A1, 4 RGBA4); -1 unknown */
    uint32_t depth_format;           /* DEPTHBUFFER_FORMAT: 0 D16, 1 reserved, 2 D24, 3 D24S8 */
    uint32_t color_bpp, depth_bpp;   /* bytes per pixel (0: unknown format) */
    uint32_t depth_bits;             /* 16 or 24 (0: reserved format) */
    bool block32;                    /* RENDERBUFFER_BLOCK32: 32x32 tiles */
    bool color_read, color_write;    /* COLORBUFFER_READ/WRITE */
    bool depth_read, depth_write;    /* DEPTHBUFFER_READ/WRITE bit 1 */
    bool stencil_read, stencil_write;/* DEPTHBUFFER_READ/WRITE bit 0 */
} pvk_fb_desc;

/* One texture unit as the registers describe it (translator/texture.c, seed
 * 001).  PICA codes are kept (runtime/pica_to_vk.c maps them); every other
 * folder reads this, never the TEXUNIT registers. */
enum {
    PVK_TEXTYPE_2D = 0,               /* TEXUNIT0_PARAM bits 28-30 (units 1/2: always 2D) */
    PVK_TEXTYPE_CUBE = 1,
    PVK_TEXTYPE_SHADOW_2D = 2,
    PVK_TEXTYPE_PROJECTION = 3,
    PVK_TEXTYPE_SHADOW_CUBE = 4,
    PVK_TEXTYPE_DISABLED = 5,
    PVK_TEXTYPE_PROCEDURAL = 8,       /* unit 3: TEXUNIT3_PROCTEX*, not a texture in memory */
};
/* Register values the documents call reserved or unknown (pvk_tex_desc.reserved):
 * decoded as said next to each, flagged so the draw path can count them. */
enum {
    PVK_TEXRES_TYPE = 1u << 0,        /* unit 0 type 6-7: taken as disabled; units 1/2 type != 0: ignored */
    PVK_TEXRES_FORMAT = 1u << 1,      /* TYPE 14-15: no such format */
    PVK_TEXRES_WRAP = 1u << 2,        /* wrap 4-7 (Citra: "weird results"): 4 edge, 5 border, 6-7 repeat */
    PVK_TEXRES_ETC1_FLAG = 1u << 3,   /* PARAM bits 4-5 = 1 or 3, or 2 with a format other than ETC1 */
    PVK_TEXRES_SIZE = 1u << 4,        /* DIM not 8..1024 in multiples of 8, or a cube map not square */
    PVK_TEXRES_LOD = 1u << 5,         /* min level > max level, or max level past the 8x8 level */
    PVK_TEXRES_SHADOW_BIT = 1u << 6,  /* PARAM bit 20 on units 1/2, or it disagrees with a unit 0 type */
    PVK_TEXRES_COORDS = 1u << 7,      /* TEXUNIT_CONFIG bits 8-9 = 3 (texture 3 coordinates) */
};
typedef struct pvk_tex_desc {
    uint32_t unit;                    /* 0-3 */
    bool enabled;                     /* TEXUNIT_CONFIG bit 0-2 / 10, and (unit 0) a type other than disabled */
    uint32_t type;                    /* PVK_TEXTYPE_* */
    uint32_t coords;                  /* texture coordinate set read: 0-2 (unit 2 may read 1, unit 3 any) */
    uint32_t width, height;           /* DIM */
    uint32_t format;                  /* TYPE bits 0-3 (vram/vram.h PVK_TEX_*) */
    uint32_t faces;                   /* 6 for cube types, else 1 */
    uint32_t addr[6];                 /* byte addresses: 2D in addr[0]; cube +X -X +Y -Y +Z -Z */
    uint32_t levels;                  /* max level + 1: levels stored in memory */
    uint32_t border;                  /* BORDER_COLOR: R, G, B, A bytes */
    uint8_t mag_filter, min_filter, mip_filter; /* 0 nearest, 1 linear */
    uint8_t wrap_s, wrap_t;           /* 0 clamp to edge, 1 clamp to border, 2 repeat, 3 mirrored repeat (4-7 reserved) */
    uint8_t etc1_param;               /* PARAM bits 4-5 (2 with ETC1; the format decides the decode) */
    bool shadow;                      /* PARAM bit 20 (unit 0) */
    int32_t lod_bias_fixed;           /* LOD bits 0-12, fixed1.4.8 sign-extended */
    float lod_bias;                   /* the same in levels */
    uint32_t min_level, max_level;    /* LOD bits 24-27, 16-19 */
    bool shadow_perspective;          /* TEXUNIT0_SHADOW bit 0 clear (unit 0) */
    uint32_t shadow_bias_fixed;       /* bits 1-23 as the upper bits of a 24-bit fraction */
    float shadow_bias;                /* the same, 0..1 */
    uint32_t reserved;                /* PVK_TEXRES_* */
} pvk_tex_desc;

/* What TEXUNIT_CONFIG says besides the per-unit enables. */
typedef struct pvk_texunit_config {
    bool enable[4];                   /* bits 0-2, 10 */
    uint32_t tex3_coords;             /* bits 8-9: 0-2 */
    uint32_t tex2_coords;             /* bit 13: 0 its own (2), 1 those of texture 1 */
} pvk_texunit_config;

/* Rasterizer and depth state of a draw in plain numbers (PICA enums kept:
 * runtime/pica_to_vk.c maps them). */
typedef struct pvk_raster_desc {
    float viewport[4];               /* x, y (window, y up), width, height */
    uint32_t scissor_mode;           /* SCISSORTEST_MODE: 0 off, 1 exclude, 3 include */
    int32_t scissor[4];              /* x0, y0, x1, y1: inclusive window rectangle */
    uint32_t cull;                   /* FACECULLING_CONFIG: 0 none, 1 keep clockwise, 2 keep counter-clockwise */
    bool clip_enable;
    float clip[4];                   /* user clip plane */
    float depth_scale, depth_offset; /* DEPTHMAP_SCALE / OFFSET */
    bool w_buffer;                   /* DEPTHMAP_ENABLE bit 0 clear */
    bool depth_test, depth_write;    /* DEPTH_COLOR_MASK */
    uint32_t depth_func;             /* 0 never, 1 always, 2 eq, 3 ne, 4 lt, 5 le, 6 gt, 7 ge */
    /* STENCIL_TEST / STENCIL_OP (fb.c says which registers gate them) */
    bool stencil_test;               /* enabled and the depth buffer is D24S8 */
    uint32_t stencil_func;           /* as depth_func: (ref & compare_mask) func (stored & compare_mask) */
    uint32_t stencil_ref;            /* 0-255 */
    uint32_t stencil_compare_mask;   /* STENCIL_TEST bits 24-31 */
    uint32_t stencil_write_mask;     /* bits 8-15; 0 when DEPTHBUFFER_WRITE bit 0 forbids stencil writes */
    uint32_t stencil_fail, stencil_zfail, stencil_zpass; /* STENCIL_OP: 0 keep, 1 zero, 2 replace, 3 incr,
                                                            4 decr (saturating), 5 invert, 6 incr, 7 decr (wrapping) */
} pvk_raster_desc;

/* What Vulkan bakes into a pipeline of the output merger, in PICA codes
 * (runtime/pica_to_vk.c maps them).  Zeroed before it is filled, compared
 * with memcmp and hashed whole: every byte is a field. */
typedef struct pvk_pipe_key {
    uint8_t blend;                   /* COLOR_OPERATION bit 8: 1 blend, 0 logic op */
    uint8_t logic_op;                /* LOGIC_OP, PICA order 0-15 */
    uint8_t rgb_eq, alpha_eq;        /* BLEND_FUNC equations 0-7 */
    uint8_t rgb_src, rgb_dst, alpha_src, alpha_dst; /* BLEND_FUNC factors 0-15 */
    uint8_t color_mask;              /* DEPTH_COLOR_MASK bits 8-11 (R G B A = bits 0-3); 0 without colour writes */
    uint8_t pad[3];
} pvk_pipe_key;
_Static_assert(sizeof(pvk_pipe_key) == 12, "pvk_pipe_key is packed");

/* The generated fragment shader's key: the TEV combiners and the alpha test.
 * Same rules as pvk_pipe_key. */
/* TEV codes (3dbrew "GPU/Internal Registers" TEXENVi_SOURCE/_COMBINER). */
enum {
    PVK_TEV_SRC_PRIMARY = 0, PVK_TEV_SRC_FRAG_PRIMARY = 1, PVK_TEV_SRC_FRAG_SECONDARY = 2,
    PVK_TEV_SRC_TEX0 = 3, PVK_TEV_SRC_TEX1 = 4, PVK_TEV_SRC_TEX2 = 5, PVK_TEV_SRC_TEX3 = 6,
    PVK_TEV_SRC_BUFFER = 13, PVK_TEV_SRC_CONSTANT = 14, PVK_TEV_SRC_PREVIOUS = 15,
    PVK_TEV_SRC_ZERO = 0xFF, /* not a register value: what stage 0's "previous" reads (tev_canonical) */
};
enum {
    PVK_TEV_REPLACE = 0, PVK_TEV_MODULATE = 1, PVK_TEV_ADD = 2, PVK_TEV_ADD_SIGNED = 3, PVK_TEV_LERP = 4,
    PVK_TEV_SUBTRACT = 5, PVK_TEV_DOT3_RGB = 6, PVK_TEV_DOT3_RGBA = 7, PVK_TEV_MUL_ADD = 8, PVK_TEV_ADD_MUL = 9,
};
typedef struct pvk_tev_stage {
    uint8_t rgb_src[3], alpha_src[3];   /* 0 primary, 1/2 fragment primary/secondary, 3-6 texture 0-3,
                                           13 previous buffer, 14 constant, 15 previous */
    uint8_t rgb_op[3], alpha_op[3];     /* operands (colour/alpha/channel, one-minus) */
    uint8_t rgb_combine, alpha_combine; /* 0 replace .. 9 add-then-multiply */
    uint8_t rgb_scale, alpha_scale;     /* 0 x1, 1 x2, 2 x4 */
} pvk_tev_stage;
/* Fog, fragment lighting and the procedural texture in a fragment shader key
 * (translator/fraglight.c decodes them; 3dbrew "GPU/Internal Registers"
 * 0x0A8-0x0AF, 0x0E0-0x0EF, 0x140-0x1D9).  Zero when unused. */
typedef struct pvk_fs_light {
    uint8_t id;                         /* LIGHTING_LIGHT_PERMUTATION: which light's registers (0-7) */
    uint8_t directional, two_sided, geo0, geo1; /* LIGHTi_CONFIG bits 0-3 */
    uint8_t spot, dist_atten, shadow;   /* LIGHTING_CONFIG1 enables (bits 8+id, 24+id, 0+id inverted) */
} pvk_fs_light;
/* The seven LUTs with an input: D0, D1, SP, FR, RB, RG, RR (LIGHTING_LUTINPUT_* field order). */
enum { PVK_LUT_D0, PVK_LUT_D1, PVK_LUT_SP, PVK_LUT_FR, PVK_LUT_RB, PVK_LUT_RG, PVK_LUT_RR, PVK_LUT_INPUTS };
typedef struct pvk_fs_fraglight_key {
    uint8_t fog;                        /* TEXENV_UPDATE_BUFFER fog mode 5 */
    uint8_t fog_flip;                   /* bit 16: z flip */
    uint8_t light;                      /* lighting on (LIGHTING_ENABLE0 and not LIGHTING_ENABLE1) */
    uint8_t num_lights;                 /* 1-8 */
    uint8_t config;                     /* LIGHTING_CONFIG0 bits 4-7 */
    uint8_t fresnel;                    /* bits 2-3: 1 primary alpha, 2 secondary alpha, 3 both */
    uint8_t clamp_highlights;
    uint8_t bump_mode, bump_unit, bump_renorm;
    uint8_t lut_on;                     /* bit per PVK_LUT_*: enabled in CONFIG1 and present in the configuration */
    uint8_t lut_abs;                    /* bit per PVK_LUT_*: abs() of the input */
    uint8_t lut_input[PVK_LUT_INPUTS];  /* selectors 0-5 (6-7 read 0) */
    uint8_t lut_scale[PVK_LUT_INPUTS];  /* scale codes 0-3, 6, 7 (4-5 read as 1x) */
    pvk_fs_light lights[8];
    uint8_t proctex;                    /* texture unit 3 on: TEV source 6 is the procedural texture */
    uint8_t pt_u_clamp, pt_v_clamp, pt_rgb_func, pt_alpha_func, pt_separate, pt_noise, pt_u_shift, pt_v_shift;
    uint8_t pt_coords;                  /* TEXUNIT_CONFIG bits 8-9 */
    uint8_t pt_filter;                  /* PROCTEX4 minification filter 0-5: bit 0 interpolates the colour LUT,
                                           2-3 one mipmap level, 4-5 two levels blended */
    uint8_t shadow;                     /* COLOR_OPERATION mode 3: the shader writes the shadow buffer (reads the
                                           colour attachment; the runtime clears it where it cannot, counted) */
    uint8_t shadow_atten;               /* LIGHTING_CONFIG0 shadow attenuation: PVK_SHADOW_ATTEN_* | shadow unit */
    uint8_t lut_ubo;                    /* the LUTs are a uniform buffer, not a storage buffer: set by the runtime
                                           (pvk_fragdata_for_device) for the device; the translator leaves it 0 */
} pvk_fs_fraglight_key;
enum {
    PVK_SHADOW_ATTEN_ON = 1u << 7,      /* bit 0 */
    PVK_SHADOW_ATTEN_PRIMARY = 1u << 2, /* bit 16 */
    PVK_SHADOW_ATTEN_SECONDARY = 1u << 3, /* bit 17 */
    PVK_SHADOW_ATTEN_INVERT = 1u << 4,  /* bit 18 */
    PVK_SHADOW_ATTEN_ALPHA = 1u << 5,   /* bit 19; bits 0-1 of shadow_atten: the unit (bits 24-25) */
};
_Static_assert(sizeof(pvk_fs_fraglight_key) == 26 + 8 * 8 + 14, "pvk_fs_fraglight_key is packed");

/* Parameters of the fragment shader's fog, lighting and procedural texture:
 * a std140 uniform block (binding PVK_DRAW_BINDING_FRAG_PARAMS), decoded
 * from the registers by the translator.  Colours are R | G << 8 | B << 16. */
typedef struct pvk_fs_light_params {
    float pos[4];                       /* LIGHTi_XY/_Z float1.5.10; w unused */
    float spot[4];                      /* SPOTDIR fixed1.1.11 as stored (the negated direction) */
    uint32_t specular0, specular1, diffuse, ambient;
    float atten_bias, atten_scale, pad[2]; /* float1.7.12 */
} pvk_fs_light_params;
typedef struct pvk_fs_params {
    pvk_fs_light_params light[8];       /* by light id, not by permutation slot */
    uint32_t ambient, fog_color;
    float shadow_constant, shadow_linear; /* FRAGOP_SHADOW float1.5.10 halves */
    float pt_noise_u[4];                /* amplitude (PROCTEX1/2 bits 0-15 signed / 4095), phase, frequency */
    float pt_noise_v[4];
    float pt_bias;                      /* PROCTEX0/4 LOD bias, float1.5.10 */
    uint32_t pt_offsets;                /* PROCTEX5: colour LUT offsets of levels 0-3, a byte each */
    uint32_t pt_width;                  /* PROCTEX4 width */
    uint32_t pt_lod;                    /* PROCTEX4 min LOD | max LOD << 8 */
} pvk_fs_params;
_Static_assert(sizeof(pvk_fs_params) == 8 * 64 + 16 + 48, "pvk_fs_params is the std140 block");

/* The LUT storage buffer (binding PVK_DRAW_BINDING_FRAG_LUTS), words as the
 * data ports stored them, at these word offsets. */
enum {
    PVK_FRAG_LUT_LIGHTING = 0,                                   /* [24][256] */
    PVK_FRAG_LUT_FOG = PVK_FRAG_LUT_LIGHTING + 24 * 256,         /* [128] */
    PVK_FRAG_LUT_PROCTEX = PVK_FRAG_LUT_FOG + 128,                /* [6][256] */
    PVK_FRAG_LUT_WORDS = PVK_FRAG_LUT_PROCTEX + 6 * 256,
};
_Static_assert(PVK_FRAG_LUT_WORDS % 4 == 0, "the LUT words fill uvec4s (the uniform-buffer form)");

/* What the shader needs of texture units 0-2 (TEV sources 3-5). */
typedef struct pvk_fs_tex_key {
    uint8_t enable;                     /* bit u: unit u samples (TEXUNIT_CONFIG, and unit 0's type not disabled);
                                           the runtime clears a unit it cannot bind (it then reads 0) */
    uint8_t type0;                      /* unit 0's PVK_TEXTYPE_* (2D, cube, shadow 2D, projection, shadow cube) */
    uint8_t tex2_tc1;                   /* texture 2 reads texture coordinates 1 (TEXUNIT_CONFIG bit 13) */
    uint8_t shader_border;              /* bit u: unit u clamps s to its border colour in the shader, bit u+4: t.
                                           Set by the runtime (no custom border colours, or a swizzled view); the
                                           translator leaves it 0 */
    uint8_t shadow_ortho;               /* shadow 2D: TEXUNIT0_SHADOW bit 0 (s and t not divided by w) */
    uint8_t pad[3];
} pvk_fs_tex_key;
typedef struct pvk_fs_key {
    pvk_tev_stage stage[6];
    uint8_t buffer_rgb, buffer_alpha;   /* TEXENV_UPDATE_BUFFER bits 8-11 / 12-15: stage 0-3 outputs enter the buffer */
    uint8_t alpha_test, alpha_func;     /* FRAGOP_ALPHA_TEST enable, function 0-7 */
    /* Blending done by the shader from the attachment it reads (pvk_pipe_key's
     * BLEND_FUNC fields, moved here by the runtime's one device-adjustment
     * function when the device can read attachments); all 0 otherwise, and the
     * translator never sets them. */
    uint8_t blend;                      /* 1: the shader blends, fixed-function blending is off */
    uint8_t rgb_eq, alpha_eq;           /* BLEND_FUNC equations 0-7 */
    uint8_t rgb_src, rgb_dst, alpha_src, alpha_dst; /* BLEND_FUNC factors 0-15 */
    uint8_t uber;                       /* the ubershader's module key (pvk_fs_uber_key): 1 or 2 stages run, or
                                           PVK_UBER_LOOP; the translator leaves 0 */
    pvk_fs_tex_key tex;
    pvk_fs_fraglight_key fl;            /* fog, fragment lighting, procedural texture (translator/fraglight.c) */
} pvk_fs_key;
_Static_assert(sizeof(pvk_fs_key) == 6 * 16 + 12 + sizeof(pvk_fs_tex_key) + sizeof(pvk_fs_fraglight_key),
               "pvk_fs_key is packed");

/* Fragment values that change often: push constants, not key. */
typedef struct pvk_fs_uniforms {
    uint32_t tev_color[6];           /* TEXENVi_COLOR: R, G, B, A bytes */
    uint32_t buffer_color;           /* TEXENV_BUFFER_COLOR */
    uint32_t alpha_ref;              /* FRAGOP_ALPHA_TEST reference 0-255 */
    uint32_t tex_border[3];          /* TEXUNIT0-2_BORDER_COLOR: R, G, B, A bytes (used with shader_border) */
    uint32_t shadow_bias;            /* TEXUNIT0_SHADOW bits 1-23 as a 24-bit depth (shadow 2D) */
} pvk_fs_uniforms;

/* A transformed vertex by meaning (SH_OUTMAP_O0-6 semantics). */
typedef struct pvk_vertex {
    float pos[4];
    float quat[4];
    float color[4];
    float tc0[2], tc1[2], tc2[2];
    float tc0_w;
    float view[3];
} pvk_vertex;

/* The uniform block the generated code reads (std430: vec4 pica_fu[96];
 * uvec4 pica_ints; uint pica_bools; uint pica_max_steps). */
typedef struct pvk_vs_uniforms {
    float f[PVK_SH_FLOAT_UNIFORMS][4]; /* c0-c95: the f24 values as the interpreter reads them */
    uint32_t i[4];                     /* i0-i3: x | y << 8 | z << 16 */
    uint32_t b;                        /* b0-b15 */
    uint32_t max_steps;                /* instructions before PICA_RUNAWAY (0 packs PVK_SH_MAX_STEPS) */
    uint32_t pad[2];
} pvk_vs_uniforms;
_Static_assert(sizeof(pvk_vs_uniforms) == 96 * 16 + 32, "pvk_vs_uniforms is the std430 block");

/* The vertex stage of a draw whose program runs on the GPU (generated by
 * translator/glsl_vs.c, pipelines keyed by it in runtime/pipeline.c):
 * everything the generated vertex shader and the pipeline's vertex input
 * state depend on.  Zeroed before it is filled, compared with memcmp. */
#define PVK_VS_SEM_NONE 0xFFu
typedef struct pvk_vs_key {
    uint64_t code_hash, desc_hash;   /* XXH3 of code memory (all of it) and the operand descriptors */
    uint32_t entry;                  /* VSH_ENTRYPOINT */
    uint8_t sem_src[24];             /* output-map semantic 0-23 <- output register * 4 + component,
                                        PVK_VS_SEM_NONE: the default value (SH_OUTMAP_O0-6 resolved) */
    uint8_t pad2;                    /* (strips and fans are drawn as lists: pvk_vs_draw.tri_index) */
    uint8_t flags;                   /* PVK_GLSL_VS_* (the runtime adds F64 where the device has it) */
    uint8_t bindings;                /* vertex buffers (attribute loaders with something to read) */
    uint8_t pad0;
    uint16_t fixed;                  /* attributes given by their fixed value (uniform buffer) */
    uint16_t pad1;
    uint8_t stride[12];              /* per binding: bytes per vertex */
    uint8_t fmt[12];                 /* per attribute: 0 not loaded, else 1 + type (0 s8, 1 u8, 2 s16, 3 f32)
                                        + 4 * (components - 1) */
    uint8_t binding[12];             /* per loaded attribute: its vertex buffer */
    uint8_t reg[12];                 /* per loaded or fixed attribute: input register (permutation) */
    uint16_t offset[12];             /* per loaded attribute: byte offset inside its binding's vertex */
} pvk_vs_key;
_Static_assert(sizeof(pvk_vs_key) == 8 * 2 + 4 + 24 + 4 + 4 + 12 * 4 + 24 + 4, "pvk_vs_key is packed");

/* The uniform block of a generated vertex shader (std430 storage buffer,
 * set 0 binding PVK_DRAW_BINDING_VS of the draw layout): the program's
 * uniforms, then the fixed attributes. */
#define PVK_DRAW_BINDING_VS 7u
/* A draw's status words (std430 storage buffer, binding
 * PVK_DRAW_BINDING_VS_STATUS), written by vertices that do not end in END:
 * bit s of `kinds` for status s (1 runaway, 2 bad instruction or PC, 3 the
 * dispatcher's limit: PICA_* of glsl_vs.c), and per status the least PC
 * such a vertex stopped at.  The runtime sets them to {0, ~0, ~0, ~0}
 * before the draw and reads them when it is done. */
#define PVK_DRAW_BINDING_VS_STATUS 8u
typedef struct pvk_vs_status {
    uint32_t kinds;
    uint32_t pc[3];                  /* [s - 1] */
} pvk_vs_status;
typedef struct pvk_vs_draw_uniforms {
    pvk_vs_uniforms u;
    float fixed[12][4];              /* f24 values of fixed attributes 0-11 as f32 */
} pvk_vs_draw_uniforms;

/* A draw whose vertices the GPU loads and shades (the packet's `vs`): guest
 * ranges the translator checked to be guest memory, with attributes aligned
 * for their formats.  The runtime copies them as they are now into its
 * vertex ring (one copy per buffer, not per vertex): the guest may rewrite
 * them as soon as the command list returns, before the GPU runs the draw. */
typedef struct pvk_vs_draw {
    pvk_vs_key key;
    const uint32_t *code, *opdesc;   /* for generating the shader on a key miss */
    const pvk_vs_draw_uniforms *uniforms;
    uint64_t uniforms_version; /* pvk_pica.draw_uniforms_version: equal versions, equal bytes */
    uint32_t buf_addr[12];           /* per binding: guest address of the first vertex read (the rebased vertex 0) */
    uint32_t buf_len[12];            /* ... and bytes read from there */
    uint32_t count;                  /* vertices (DRAWARRAYS) or indices (DRAWELEMENTS) */
    bool indexed;
    const uint16_t *index16;         /* indexed: the u8 or u16 indices as u16 (read once each for their bounds) */
    int32_t vertex_offset;           /* indexed: added to each index (minus the smallest index) */
    /* Not NULL for strips and fans (PRIMITIVE_CONFIG modes 1 and 2): the
     * triangle list, 3 per triangle, in the CPU path's order
     * (pvk_assemble_triangles: odd strip triangles (i+1, i, i+2), fan
     * triangles (0, i+1, i+2)), as vertex numbers (indexed: index16's values)
     * to draw instead of count vertices.  Vulkan's strip and fan orders start
     * odd strip and fan triangles from another corner, and clipping rounds
     * by vertex order (tests/test_vs_draw.c strip_fan_clipped). */
    const uint32_t *tri_index;
    uint32_t tri_count;              /* entries of tri_index: the packet's tri_vertices */
} pvk_vs_draw;

/* A draw whose vertex and geometry programs both run on the GPU (the
 * packet's `gs`): a compute pre-pass (runtime/gs_draw.c, shaders from
 * translator/glsl_gs.c) runs the vertex program on each vertex the draw
 * reads (pass A), then the geometry program once per primitive (pass B),
 * which writes each triangle it emits as three pvk_vertex into `tri_slots`
 * triangle slots of its own; unused slots get NaN positions and draw
 * nothing.  The slots are drawn like the CPU path's vertices, in order. */
enum {
    PVK_GS_MODE_POINT = 0,           /* inputs into v0-v15 (the "point" mode: `vertices` per invocation) */
    PVK_GS_MODE_VARIABLE = 1,        /* inputs into c0 (count) and c1...; count from the index stream */
    PVK_GS_MODE_FIXED = 2,           /* inputs into c[uniform_start]...; `vertices` per invocation */
};
typedef struct pvk_gs_key {
    pvk_vs_key vs;                   /* attribute loading and the vertex program (sem_src) */
    uint64_t code_hash, desc_hash;   /* the geometry unit's code memory and operand descriptors */
    uint64_t gs_perm;                /* POINT: input i goes to register v[nibble i] (GSH_ATTRIBUTES_PERMUTATION) */
    uint32_t entry;                  /* GSH_ENTRYPOINT */
    uint8_t vs_out_reg[16];          /* entry j a vertex hands on: vertex output register + 1 (0: none, zeros) */
    uint8_t vs_outputs;              /* entries per vertex (VSH_OUTMAP_TOTAL1 + 1) */
    uint8_t mode;                    /* PVK_GS_MODE_* */
    uint8_t vertices;                /* POINT, FIXED: vertices per invocation */
    uint8_t stride;                  /* FIXED: uniforms per vertex */
    uint8_t uniform_start;           /* FIXED: first float uniform written */
    uint8_t main_vertices;           /* VARIABLE: vertices handing on all entries (the rest: entry 0) */
    uint8_t flags;                   /* PVK_GLSL_VS_F64 (the runtime adds it) */
    uint8_t winding_swaps;           /* PRIMITIVE_CONFIG 3: SETEMIT's winding swaps a triangle's first two */
    uint8_t sem_src[24];             /* the output map over the geometry unit's outputs (pvk_gs_plan) */
    uint8_t pad[4];
} pvk_gs_key;
_Static_assert(sizeof(pvk_gs_key) == sizeof(pvk_vs_key) + 24 + 4 + 16 + 8 + 24 + 4, "pvk_gs_key is packed");

typedef struct pvk_gs_draw {
    pvk_gs_key key;
    pvk_vs_draw vs;                  /* attribute ranges, indices, the vertex unit's uniforms (vs.key unused) */
    const uint32_t *code, *opdesc;   /* the geometry unit's, for generating the shader on a key miss */
    const pvk_vs_uniforms *uniforms; /* the geometry unit's (b15 as the register holds it now) */
    uint32_t vertices;               /* vertex program invocations: vertices 0..vertices-1 after rebasing */
    uint32_t prims;                  /* geometry program invocations */
    const uint32_t *prim_table;      /* VARIABLE: per invocation its first element and vertex count */
    uint32_t tri_slots;              /* triangles the code bounds an invocation to; 0: unknown (the runtime picks) */
    uint32_t max_tris;               /* slots for the whole draw at most (else the CPU path) */
} pvk_gs_draw;
/* Triangle slots per invocation when the code does not bound them, and at
 * most: a draw wanting more runs on the CPU (the translator charges the
 * budgets for PVK_GS_MAX_SLOTS when the bound is unknown). */
#define PVK_GS_DEFAULT_SLOTS 4u
#define PVK_GS_MAX_SLOTS 64u

typedef enum pvk_draw_kind {
    PVK_DRAW_ARRAYS = 0,             /* GPUREG_DRAWARRAYS */
    PVK_DRAW_ELEMENTS = 1,           /* GPUREG_DRAWELEMENTS */
    PVK_DRAW_IMMEDIATE = 2,          /* a triangle completed in immediate mode */
} pvk_draw_kind;

/* What a draw hands the runtime: triangles and everything needed to render
 * them, no register in sight. */
typedef struct pvk_draw_packet {
    pvk_draw_kind kind;
    uint32_t vertices;               /* vertices the guest submitted (immediate: 1 per triangle's last) */
    const pvk_vertex *verts;         /* the shaded vertices ... */
    const uint32_t *index;           /* ... and the triangle list over them, 3 per triangle */
    uint32_t tri_vertices;           /* entries of `index` (with `vs`: 3 per triangle the primitive makes) */
    /* Not NULL: the GPU loads and shades the vertices (verts and index are
     * NULL).  env.draw returns PVK_ERROR_MISSING_FEATURE when it cannot (the
     * translator then runs the draw on the CPU). */
    const pvk_vs_draw *vs;
    /* Not NULL: vertex and geometry programs run on the GPU (see
     * pvk_gs_draw; verts, index and vs are NULL; tri_vertices counts the
     * slots); env.draw may answer PVK_ERROR_MISSING_FEATURE as for `vs`. */
    const pvk_gs_draw *gs;
    pvk_fb_desc fb;
    pvk_raster_desc raster;
    pvk_pipe_key pipe;
    pvk_fs_key fs;
    pvk_fs_uniforms uniforms;
    pvk_fs_params params;            /* fog, lighting, procedural texture (used when pvk_fs_key.fl says) */
    const uint32_t *lighting_lut, *fog_lut, *proctex_lut; /* the data ports' tables (pvk_pica) ... */
    uint64_t lut_version;            /* ... and their version: changes whenever a LUT data port is written */
    uint32_t blend_color;            /* BLEND_COLOR: R, G, B, A bytes */
    pvk_tex_desc tex[3];             /* texture units 0-2 (fs.tex says which sample) */
    uint64_t seq;                    /* draws so far (immediate: immediate vertices), for names in logs */
} pvk_draw_packet;
/* XXH3 of a packet's fb, raster, pipe and fs (equal state, equal hash), for
 * names in logs and labels: computed when one is written, not every draw. */
uint64_t pvk_draw_packet_hash(const pvk_draw_packet *pk);

/* What the translator needs from outside, filled in by whoever owns the
 * register file (the runtime; tests fill their own).  Every member may be NULL. */
typedef enum pvk_pica_report {
    PVK_PICA_NOTE = 0,               /* a log line at the given level, not counted */
    PVK_PICA_BAD_INPUT = 1,          /* guest input error: logged as an error, counted */
    PVK_PICA_OUT_OF_RANGE = 2,       /* bad input that is a guest range outside memory */
    PVK_PICA_UNSUPPORTED = 3,        /* not implemented: logged as a warning, counted */
} pvk_pica_report;

typedef struct pvk_pica_env {
    void *user;
    pvk_log_level log_level;         /* notes less severe than this are not even formatted */
    /* `msg` NULL: only count `count` more of `kind`. */
    void (*report)(void *user, pvk_pica_report kind, pvk_log_level level, uint32_t count, const char *msg);
    /* Guest bytes [paddr, paddr+len) as the CPU would read them now, or NULL
     * when the range is not guest memory (the translator logs that). */
    const void *(*guest_read)(void *user, uint32_t paddr, uint32_t len);
    /* The P3D line: `active` is GPU_STAT_IRQ_FLAGS bit 31, `raise` an edge. */
    void (*p3d)(void *user, bool active, bool raise);
    /* An error result stops the command list (it becomes the kick's result). */
    pvk_result (*draw)(void *user, const pvk_draw_packet *packet);
    pvk_result (*cache)(void *user, pvk_pica_cache_op op);
    /* `draw` takes packets with `vs` (vertex programs on the GPU): the
     * runtime sets it unless PVK_DEBUG=cpu-vs. */
    bool gpu_vs;
} pvk_pica_env;

/* A program's static step bound as last computed (translator/budget.c). */
typedef struct pvk_step_bound_memo {
    bool valid;
    uint32_t entry, ints[4];
    uint64_t code_hash, bound;
} pvk_step_bound_memo;

typedef struct pvk_pica_counters {
    uint64_t writes;              /* register writes decoded from command lists */
    uint64_t lists, draws, vertices, triangles, immediate_vertices, cache_ops, jumps;
    uint64_t dropped;             /* FIFO words past the end of their table */
    uint64_t gpu_vertices;        /* vertices of draws whose program ran on the GPU (of `vertices`) */
    uint64_t gs_gpu_draws;        /* draws with a geometry program whose programs ran on the GPU */
    uint64_t gs_fallbacks;        /* ... that env.gpu_vs would have taken but ran on the CPU */
    uint64_t gpu_steps;           /* shader instructions charged for the GPU paths' invocations */
    uint64_t gpu_capped;          /* GPU-path draws with a program whose code shows no bound (capped) */
    uint64_t gpu_budget_fallbacks; /* draws the GPU path would take left to the CPU: the budget */
} pvk_pica_counters;

/* What the geometry shader unit keeps from one invocation to the next: on
 * the PICA it is one physical unit whose registers nothing resets between
 * invocations or draws (Citra keeps its gs_unit and GS emitter as global
 * state for this reason, and its hardware tests found programs relying on
 * it).  The temporaries, address registers, condition flags and the last
 * SETEMIT (translator/shader.c reads and writes these) ... */
typedef struct pvk_sh_persist {
    float r[16][4];
    int32_t a0[2];
    uint8_t aL;
    bool cmp[2];
    uint8_t emit_vtx;
    bool emit_prim, emit_winding;
} pvk_sh_persist;

/* ... and the input and output registers, the three emit slots, and the
 * input buffer an immediate-mode primitive fills vertex by vertex
 * (translator/gs.c).  Reset with the rest of pvk_pica; not part of saved
 * state (pvk_pica_state_save), like the vertex cache of real hardware. */
typedef struct pvk_gs_state {
    pvk_sh_persist regs;
    float v[16][4];                    /* v0-v15 */
    float o[16][4];                    /* o0-o15 */
    float slot[3][16][4];              /* o0-o15 as each EMIT left them, by SETEMIT vertex id */
    float buf[16][4];                  /* point mode: entries collected for the next invocation */
    uint32_t fill;                     /* point: entries collected; fixed: vertices; variable: next uniform */
    uint32_t prim_left, prim_vertex;   /* variable: vertices still to come, vertices taken */
    uint32_t logged;                   /* bit per unsupported corner already logged (gs.c) */
} pvk_gs_state;

/* A draw's state from the registers below 0x200 (framebuffer, raster,
 * texture units, TEV and output merger: what pvk_fb_desc_get,
 * pvk_raster_desc_get, pvk_frag_state_get and pvk_tex_desc_get read) as the
 * last draw built it, with those registers: a draw that finds them unchanged
 * copies the state instead of decoding it again (vertex.c; debug builds
 * check the copy against a decode). */
#define PVK_PACKET_MEMO_REGS 0x200u
typedef struct pvk_packet_memo {
    uint32_t regs[PVK_PACKET_MEMO_REGS];
    pvk_fb_desc fb;
    pvk_raster_desc raster;
    pvk_pipe_key pipe;
    pvk_fs_key fs;
    pvk_fs_uniforms uniforms;
    uint32_t blend_color;
    pvk_tex_desc tex[3];
    bool valid;
} pvk_packet_memo;

/* The float uniforms as f32 the last time a unit was packed: a draw whose
 * uniforms did not change copies them instead of converting 384 words. */
typedef struct pvk_fu_memo {
    uint32_t words[PVK_SH_FLOAT_UNIFORMS][4];
    float f[PVK_SH_FLOAT_UNIFORMS][4];
    bool valid;
} pvk_fu_memo;

#define PVK_MAX_ATTRIBS 12

/* One draw's attribute configuration decoded from ATTRIBBUFFERS_*,
 * VSH_NUM_ATTR, VSH_ATTRIBUTES_PERMUTATION_* and the fixed attributes.
 * Attribute i (0-11) is loaded from a buffer when a buffer's order list names
 * it (that overrides the fixed mask; the last buffer naming it wins), else
 * from fixed attribute i when its FORMAT_HIGH mask bit is set, else not at
 * all (its input register keeps its value). */
typedef struct pvk_attrib_plan {
    uint32_t base;                 /* ATTRIBBUFFERS_LOC byte address */
    uint32_t attribs;              /* attributes fed to the shader: min(FORMAT_HIGH total, VSH_NUM_ATTR + 1) */
    struct {
        uint8_t type;              /* 0 s8, 1 u8, 2 s16, 3 f32 */
        uint8_t comps;             /* 1-4 */
        bool fixed;                /* comes from the fixed attribute / default value */
        bool loaded;               /* comes from buffer buf[`buf`] at byte `offset` of a vertex */
        uint8_t reg;               /* input register v0-v15 (permutation) */
        uint8_t buf;               /* index into buf[] (loaded attributes) */
        uint16_t offset;           /* byte offset inside the buffer's vertex (aligned) */
        float fixed_value[4];
    } a[PVK_MAX_ATTRIBS];
    uint32_t buffers;              /* loaders in use (component count > 0), packed in buf[] */
    struct pvk_attrib_buffer {
        uint32_t offset;           /* from `base` */
        uint32_t stride;           /* bytes per vertex */
        uint32_t count;            /* components in the buffer's order list */
        uint32_t extent;           /* bytes of a vertex actually read (end of the last attribute) */
        uint8_t loader;            /* ATTRIBBUFFERi: i */
        uint8_t order[12];         /* attribute index, or 12-15 = padding of 4/8/12/16 bytes */
    } buf[12];
} pvk_attrib_plan;

/* The attribute plan of the last draw with the registers and fixed
 * attributes it was built from: a draw that finds them unchanged takes it
 * (pvk_attrib_plan_get; debug builds check it against a build). */
#define PVK_ATTRIB_MEMO_REGS 0x27u /* ATTRIBBUFFERS_LOC (0x200) to ATTRIBBUFFER11_CONFIG2 (0x226) */
typedef struct pvk_attrib_memo {
    uint32_t regs[PVK_ATTRIB_MEMO_REGS];
    uint32_t num_attr, perm_low, perm_high;
    uint32_t fixed[PVK_FIXED_ATTRS][4];
    bool valid;
    uint64_t builds; /* plans built: a change of plan (vertex.c's draw uniforms hold its fixed values) */
    pvk_attrib_plan plan;
} pvk_attrib_memo;

typedef struct pvk_pica {
    uint32_t regs[PVK_PICA_REG_COUNT];
    uint32_t info[PVK_PICA_REG_COUNT]; /* per id: dirty bits | side effect << 26 */
    bool ready;                        /* reset values and tables in place */
    bool draw_logged;
    bool in_list;                      /* the write comes from a command list */
    /* PVK_DIRTY_* since the consumer last cleared it: a GPU-path draw clears
     * PACKET, ATTRIB, OUTMAP and VS_UNIFORM once every memo of its state is
     * up to date (vertex.c), so the next draw finds clear bits and reuses the
     * memos without comparing their registers */
    uint32_t dirty;
    pvk_pica_env env;                  /* kept across resets */
    pvk_pica_counters counters;        /* kept across resets */
    uint64_t budget;                   /* shader instructions left in this guest call */
    uint64_t vertex_budget;            /* vertices left in this guest call (vertex.c) */
    uint64_t area_budget;              /* rasterised pixels left in this guest call (vertex.c) */
    bool budget_stop;                  /* the list stopped because a budget ran out */
    uint64_t vertex_limit, area_limit; /* 0: PVK_VERTEX_BUDGET / PVK_AREA_BUDGET (tests lower them) */

    /* data ports */
    pvk_shader_unit sh[2];             /* 0 geometry, 1 vertex */
    uint32_t lighting_lut[PVK_LIGHTING_LUTS][PVK_LUT_ENTRIES];
    uint32_t fog_lut[PVK_FOG_LUT_ENTRIES];
    uint32_t gas_lut[PVK_GAS_LUT_ENTRIES];
    uint32_t proctex_lut[PVK_PROCTEX_LUT_TABLES][PVK_LUT_ENTRIES];
    uint32_t lighting_pos, fog_pos, gas_pos, proctex_pos; /* FIFO write positions */
    uint64_t lut_version;                                 /* bumped by every LUT data write, reset and load */
    /* XXH3 of the vertex unit's code and operand descriptors for the GPU
     * path's key, computed at the first draw after the data ports (or a
     * reset or load, which zero the flag) changed them: not per draw. */
    bool vs_hashed;
    uint64_t vs_code_hash, vs_desc_hash;
    pvk_step_bound_memo step_bound[2]; /* pvk_step_bound_cached, per unit */
    pvk_fu_memo fu_memo[2];            /* pvk_vs_uniforms_pack, per unit (checks itself: any writer may change f) */
    /* The GPU path's vertex uniforms (vertex.c), kept between draws and
     * rebuilt when their sources changed; the version changes with their
     * bytes (never repeats: reset and load bump it), so the runtime copies
     * them to the GPU only then */
    pvk_vs_draw_uniforms draw_uniforms;
    uint64_t draw_uniforms_version;
    bool draw_uniforms_built;
    uint64_t draw_uniforms_plan;        /* attrib_memo.builds they were built with */
    uint8_t outmap_src[24];             /* pvk_vs_outmap_sources as the last GPU-path draw found it */
    pvk_packet_memo packet_memo;        /* packet_state (vertex.c) */
    pvk_attrib_memo attrib_memo;        /* pvk_attrib_plan_get (attrib.c) */
    uint32_t fixed_attr[PVK_FIXED_ATTRS][4];              /* f24 x y z w */
    uint32_t attr_buf[3], attr_words;                     /* FIXEDATTRIB_DATA0-2 in progress */
    uint32_t fixed_index;                                 /* next fixed attribute, 0xF = immediate */
    uint32_t imm[PVK_MAX_VS_INPUTS][4];                   /* immediate-mode vertex being assembled */
    uint32_t imm_count;
    pvk_vertex imm_tri[3];                                /* immediate mode: what the next triangle needs */
    uint32_t imm_vertices;                                /* vertices of the current primitive */
    bool gs_logged;
    pvk_gs_state gs;                                      /* the geometry unit between invocations (gs.c) */
    uint32_t fragmode_logged;                             /* warned of: bit per fragment mode, bit 4 bits 24-25 */
    uint32_t fraglight_logged;                            /* fraglight.c: warned of, bit per unsupported feature */
    uint32_t overflow_logged;                             /* bit per FIFO: logged this kick */
    uint64_t irq_active;                                  /* enabled IRQ compare matches */
    pvk_result error;                                     /* why a list stopped */
} pvk_pica;

/* Set everything to the state GSP leaves after GPU init (see cmdlist.c);
 * `env` is kept.  Runs lazily on first use, call again to reset. */
void pvk_pica_reset(pvk_pica *p);
void pvk_pica_set_env(pvk_pica *p, const pvk_pica_env *env);

/* A 32-bit write from the CPU side (external window 0x10401000+4*id,
 * id < 0x400): stores the register and runs its side effect; a write of
 * bit 0 to CMDBUF_JUMP0/1 runs that channel's command list before returning. */
pvk_result pvk_pica_write(pvk_pica *p, uint32_t id, uint32_t value);
uint32_t pvk_pica_read(pvk_pica *p, uint32_t id);
/* A guest call starts (a register write from the host): refill the shader,
 * vertex and area work budgets (see vertex.c). */
void pvk_pica_new_call(pvk_pica *p);

/* Run command-list channel 0 or 1 from its CMDBUF_ADDR/SIZE registers,
 * following jumps, until its end or FINALIZE with IRQ_AUTOSTOP. */
pvk_result pvk_cmdlist_kick(pvk_pica *p, unsigned channel);
/* Decode words from host memory as one command list (a jump inside it
 * continues in guest memory as in a kick).  For tests, fuzzers and benchmarks. */
pvk_result pvk_cmdlist_run_words(pvk_pica *p, const uint32_t *words, uint32_t count);

/* The framebuffer and raster state the registers describe now (fb.c). */
void pvk_fb_desc_get(const pvk_pica *p, pvk_fb_desc *out);
void pvk_raster_desc_get(const pvk_pica *p, pvk_raster_desc *out);
/* Texture units (texture.c): TEXUNIT_CONFIG, and unit 0-3's description
 * (unit 3: enable, coordinates and PVK_TEXTYPE_PROCEDURAL only). */
void pvk_texunit_config_get(const pvk_pica *p, pvk_texunit_config *out);
void pvk_tex_desc_get(const pvk_pica *p, unsigned unit, pvk_tex_desc *out);
/* The output merger and TEV state: keys and uniforms (fs_key.c); `units`:
 * texture units 0-2 as pvk_tex_desc_get gives them now, or NULL (decoded). */
void pvk_frag_state_get(const pvk_pica *p, pvk_pipe_key *pipe, pvk_fs_key *fs, pvk_fs_uniforms *uni,
                        uint32_t *blend_color, const pvk_tex_desc *units);
/* Fog, lighting and procedural-texture state (fraglight.c): the key part
 * and the parameters; unsupported parts are counted through `p`'s report. */
void pvk_fraglight_get(pvk_pica *p, pvk_fs_fraglight_key *key, pvk_fs_params *params);
/* Does a shader of this key read the LUT buffer and parameter block?  The
 * ubershader always does: its data block is there. */
static inline bool pvk_fs_uses_fragdata(const pvk_fs_key *k)
{
    return k->uber || k->fl.fog || k->fl.light || k->fl.proctex || k->fl.shadow;
}
/* Shadow rendering (key.shadow) bypasses the output merger: no depth or
 * stencil test or writes, no blending or logic op (a replace blend), every
 * channel written (fraglight.c; translator/vertex.c calls it). */
void pvk_fraglight_shadow_state(const pvk_fs_fraglight_key *key, pvk_pipe_key *pipe, pvk_raster_desc *raster);
/* Text the shader generators build (text.c): zero-initialise, append with
 * pvk_text_put, then take the text with pvk_text_take. */
typedef struct pvk_text {
    char *s;
    size_t len, cap;
    bool failed;
} pvk_text;
void pvk_text_put(pvk_text *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The finished text into *out (malloc'd), or PVK_ERROR_OUT_OF_MEMORY (the
 * text freed, *out untouched) when an append failed. */
pvk_result pvk_text_take(pvk_text *b, char **out);

/* GLSL of the fragment shader for `key` (glsl_fs.c): malloc'd, free() it;
 * NULL when out of memory.  Push constants: see the source's block.  A key
 * with `uber` set gives the ubershader: the same arithmetic, reading the
 * TEV stages, the combiner buffer, the alpha test, the shader's blend
 * equations, fog's z flip and texture units' types from data. */
char *pvk_glsl_fragment(const pvk_fs_key *key);

/* The ubershader (glsl_fs.c).  Its module key keeps of a (device-resolved)
 * key only what declares something or shapes the shader: the sampled units,
 * unit 0 as a cube map or not, blending in the shader, how many stages run
 * (pvk_fs_uber_state's: 1, 2, or more as PVK_UBER_LOOP, the count then in
 * the data), whether every stage that
 * runs replaces or modulates (PVK_UBER_SIMPLE), and fog (not its z flip),
 * lighting, the procedural texture and shadow rendering, which stay
 * specialised (few distinct ones per game, unlike TEV states; lavapipe runs
 * a block its data skips, masked, so a data switch would cost their
 * arithmetic to every draw); everything else is zero. */
void pvk_fs_uber_key(const pvk_fs_key *fs, pvk_fs_key *uber);
#define PVK_UBER_LOOP 7u
#define PVK_UBER_STAGES 7u   /* the key's stage count (1, 2 or PVK_UBER_LOOP) */
#define PVK_UBER_SIMPLE 16u  /* every stage that runs replaces or modulates: the others' arithmetic is left out */
/* What the ubershader reads of `fs` from its uniform block (set 0 binding
 * PVK_DRAW_BINDING_UBER, std140 uvec4[7]): the canonical stages it runs as
 * they are in memory (stage 0 and the later ones up to the last that does
 * not pass "previous" on, without those between that do unless the buffer
 * is read), then the buffer bits, the alpha test, the blend equations and
 * factors (from `fs` when it blends, else from `pipe`: the guest's values
 * either way), fog's z flip, the stage count, 0, and the stage numbers
 * whose constant colours slots 1-4 read.  Every byte is set. */
#define PVK_DRAW_BINDING_UBER 9u
#define PVK_UBER_WORDS 28u
void pvk_fs_uber_state(const pvk_fs_key *fs, const pvk_pipe_key *pipe, uint32_t state[PVK_UBER_WORDS]);
/* The key and data of a state asked for: a draw asks for them (in case it
 * takes the ubershader) and most draws repeat one of the few states before. */
typedef struct pvk_uber_memo {
    pvk_fs_key fs;                   /* the state they are of, */
    uint8_t blend[6];                /* with the equations and factors the data took */
    bool valid;
    pvk_fs_key key;                  /* pvk_fs_uber_key */
    uint32_t state[PVK_UBER_WORDS];  /* pvk_fs_uber_state */
} pvk_uber_memo;
#define PVK_UBER_MEMOS 8
typedef struct pvk_uber_memos {
    pvk_uber_memo m[PVK_UBER_MEMOS];
    uint32_t last, next; /* the entry found last; the next to replace (round robin) */
} pvk_uber_memos;
/* The entry of `set` holding the key and data of fs and pipe (computed when
 * none of the last PVK_UBER_MEMOS states asked for is theirs). */
const pvk_uber_memo *pvk_fs_uber_memo(pvk_uber_memos *set, const pvk_fs_key *fs, const pvk_pipe_key *pipe);
/* The push-constant word with the texture units' data (pvk_draw_push.uber_tex):
 * unit 0's type, texture 2's coordinates, the shader borders, shadow ortho. */
uint32_t pvk_fs_uber_tex(const pvk_fs_key *fs);
/* Inside translator/: glsl_fs.c's hooks into glsl_light.c (fog, lighting,
 * procedural texture): declarations after the push constants, and fog on
 * `prev` after the alpha test. */
void pvk_glsl_fraglight_decls(pvk_text *b, const pvk_fs_key *key);
void pvk_glsl_fraglight_fog(pvk_text *b, const pvk_fs_key *key);
/* ... helper functions after the TEV helpers, and the lighting colours
 * (frag_pri, frag_sec, declared 0 by glsl_fs.c) at the start of main. */
void pvk_glsl_fraglight_helpers(pvk_text *b, const pvk_fs_key *key);
void pvk_glsl_fraglight_lighting(pvk_text *b, const pvk_fs_key *key);
/* The procedural texture's function (uvec4 proctex()) after the helpers. */
void pvk_glsl_proctex_helpers(pvk_text *b, const pvk_fs_key *key);
/* Shadow rendering after the TEV stages: writes the shadow buffer and returns. */
void pvk_glsl_fraglight_shadow(pvk_text *b, const pvk_fs_key *key);

/* A vertex program for the GLSL translator (glsl_vs.c): code and operand
 * descriptors as the data ports hold them, the entry point, and options. */
enum {
    PVK_GLSL_VS_F64 = 1u << 0, /* RCP/RSQ/EX2/LG2 in double precision: exact (needs shaderFloat64) */
    /* a geometry program: SETEMIT sets uint pica_ev, bool pica_ep, pica_ew
     * (vertex id, primitive, winding; 0/false at the start) and EMIT calls
     * void pica_emit(uint vtxid, bool prim, bool winding), which the
     * embedding shader defines (prototype in the text); pica_o holds the
     * vertex.  Without it both are NOPs (the vertex unit). */
    PVK_GLSL_VS_GS = 1u << 1,
    PVK_GLSL_VS_DRAW = 1u << 2, /* the vertex stage of a draw: PVK_GLSL_VS_DRAW_MAX_BLOCKS, then PICA_RUNAWAY */
    PVK_GLSL_VS_DISPATCH = 1u << 3, /* always the dispatcher (tests: the straight emission's reference) */
};
/* Dispatcher iterations (basic blocks run) before a translated program gives
 * the vertex back to the interpreter (PICA_FALLBACK): below llvmpipe's limit
 * of 65535 loop iterations per invocation. */
#define PVK_GLSL_VS_MAX_BLOCKS 60000u
/* ... in the vertex stage of a draw, where llvmpipe stopped some invocations
 * of a tight endless loop before 60000 blocks (blocks of 3 and of 14
 * instructions; 16 passed) without running the rest of the shader, so the
 * vertex could not say so: the same loops stop at 16384 blocks.  A vertex
 * that reaches the limit there is a runaway (no interpreter to hand it to). */
#define PVK_GLSL_VS_DRAW_MAX_BLOCKS 16384u
typedef struct pvk_vs_program {
    const uint32_t *code;      /* PVK_SH_CODE_WORDS words */
    const uint32_t *opdesc;    /* PVK_SH_OPDESCS descriptors */
    uint32_t entry;
    uint32_t flags;            /* PVK_GLSL_VS_* */
} pvk_vs_program;
typedef struct pvk_glsl_vs_stats {
    uint32_t instructions;     /* reachable instructions translated */
    uint32_t blocks;           /* basic blocks (dispatcher cases) */
    bool emits;                /* EMIT/SETEMIT seen (NOPs on the vertex unit, as the interpreter treats them) */
    uint32_t emit_sites;       /* geometry programs: reachable EMITs translated (each inlines the emit) */
    bool straight;             /* straight-line code without the dispatcher (no flow reachable, or
                                  only LOOPs one after another with straight bodies: `loops`) */
    uint32_t loops;            /* LOOPs emitted as GLSL `for` loops (straight programs) */
    bool complete;             /* every instruction reachable from the entry is translated, except
                                  fallthroughs past a subroutine's end beyond the cold budget (analyse()) */
} pvk_glsl_vs_stats;
/* The program as GLSL text to embed in a shader (interface and semantics:
 * the top of glsl_vs.c), malloc'd into *out.  PVK_ERROR_BAD_DATA for an
 * entry point past code memory (the interpreter refuses it too): the caller
 * runs the interpreter instead. */
pvk_result pvk_glsl_vertex_program(const pvk_vs_program *prog, char **out, pvk_glsl_vs_stats *stats);
/* The same for a shader that has no interpreter to fall back to (draws, the
 * geometry pre-pass): PVK_ERROR_MISSING_FEATURE (nothing in *body) when the
 * entry is past code memory or the program is not translated whole. */
pvk_result pvk_glsl_program_whole(const pvk_vs_program *prog, char **body, pvk_glsl_vs_stats *st);
/* `memo` may be NULL (every word converted). */
void pvk_vs_uniforms_pack(const pvk_shader_unit *unit, uint32_t bools, const uint32_t ints[4], uint32_t max_steps,
                          pvk_fu_memo *memo, pvk_vs_uniforms *out);
/* A whole vertex shader for a draw (glsl_vs.c): attributes by `key`, the
 * program, the output map and shaders/draw.vert's interface to the fragment
 * stage; malloc'd into *out.  PVK_ERROR_MISSING_FEATURE when the program is
 * not translated whole (stats.complete): the draw runs on the CPU.  A vertex
 * whose program ends in anything but END (runaway, bad instruction, the
 * dispatcher's iteration limit, a fallthrough past a subroutine's end into
 * code not translated) gets a NaN position: its triangles are not drawn;
 * it says so in the draw's pvk_vs_status. */
pvk_result pvk_glsl_vertex_shader(const pvk_vs_key *key, const uint32_t *code, const uint32_t *opdesc, char **out);

/* The compute pre-pass of a pvk_gs_draw (glsl_gs.c; interface at its top):
 * pass A (vertex program per vertex) and pass B (geometry program per
 * primitive), malloc'd into *out.  PVK_ERROR_MISSING_FEATURE when a program
 * is not translated whole: the draw runs on the CPU. */
pvk_result pvk_glsl_gs_vertex_pass(const pvk_gs_key *key, const uint32_t *code, const uint32_t *opdesc, char **out);
/* More reachable EMITs than this: PVK_ERROR_MISSING_FEATURE (the CPU path).
 * Each inlines the emit and its stores, and the driver's compile time grows
 * faster than linearly with them (lavapipe: 10 EMITs 3 s, 30 EMITs 16 s, 70
 * more than 3 minutes). */
#define PVK_GLSL_GS_MAX_EMIT_SITES 16u
pvk_result pvk_glsl_gs_geometry_pass(const pvk_gs_key *key, const uint32_t *code, const uint32_t *opdesc, char **out);
/* Triangles one invocation of the geometry program at `entry` can emit at
 * most, when the code shows it (forward-only control flow); 0: unknown. */
uint32_t pvk_gs_emit_bound(const uint32_t *code, uint32_t entry);
/* Does no invocation of the geometry program read what an earlier one left
 * in the unit (glsl_gs.c: temporaries, address registers, flags, SETEMIT
 * state, output components the map `sem_src` takes, emit slots, input
 * registers outside `v_defined`)?  Only then may invocations run side by
 * side.  Conservative; also false for EMIT of vertex id 3 and undefined
 * opcodes (the CPU path logs those). */
bool pvk_gs_program_stateless(const uint32_t *code, const uint32_t *opdesc, uint32_t entry, uint16_t v_defined,
                              const uint8_t sem_src[24]);

/* Register file snapshots for traces (pica.c): a versioned, explicit layout
 * (register values, then each data port's tables) independent of struct
 * layout.  save writes at most `cap` bytes and returns the size needed;
 * load refuses (PVK_ERROR_BAD_DATA) a size or version it does not know. */
#define PVK_PICA_STATE_VERSION 1u /* the layout pica.c documents */
size_t pvk_pica_state_save(const pvk_pica *p, void *out, size_t cap);
/* Registers or data ports written other than through pvk_pica_write or a
 * list (a state load, a trace's initial state): every memo of draw state is
 * rebuilt, the LUT and uniform versions move on, the programs are hashed
 * and bounded again. */
void pvk_pica_written(pvk_pica *p);
pvk_result pvk_pica_state_load(pvk_pica *p, const void *data, size_t size);
/* What a save state needs besides that snapshot (pica.c documents the
 * layout): the P3D IRQ matches, the immediate-mode primitive in progress and
 * the geometry unit between invocations.  Same contract as the snapshot's. */
#define PVK_PICA_LIVE_VERSION 1u
size_t pvk_pica_live_save(const pvk_pica *p, void *out, size_t cap);
pvk_result pvk_pica_live_load(pvk_pica *p, const void *data, size_t size);

/* Report through env (internal to translator/, used by every file in it). */
void pvk_pica_report_msg(const pvk_pica *p, pvk_pica_report kind, pvk_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define pvk_pica_bad_input(p, ...) pvk_pica_report_msg((p), PVK_PICA_BAD_INPUT, PVK_LOG_ERROR, __VA_ARGS__)
#define pvk_pica_unsupported(p, ...) pvk_pica_report_msg((p), PVK_PICA_UNSUPPORTED, PVK_LOG_WARN, __VA_ARGS__)
#define pvk_pica_debug(p, ...) pvk_pica_report_msg((p), PVK_PICA_NOTE, PVK_LOG_DEBUG, __VA_ARGS__)
void pvk_pica_count(const pvk_pica *p, pvk_pica_report kind, uint32_t count);

/* CityHash64 v1.1 of `len` bytes (cityhash.c): the hash texture dumps and
 * packs are named by, as Citra and Azahar name them. */
uint64_t pvk_cityhash64(const void *data, size_t len);

/* libctru-style name of register `id` ("GPUREG_BLEND_FUNC"), or NULL when unnamed. */
const char *pvk_pica_reg_name(uint32_t id);
/* Register id for a name with or without the "GPUREG_" prefix, -1 when unknown. */
int pvk_pica_reg_id(const char *name);

#endif
