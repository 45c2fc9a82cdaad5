/* translator/: the PICA internal register file, the command-list processor
 * and (later) draws.  Never calls Vulkan.  What the other folders may use of it. */
#ifndef PVK_TRANSLATOR_H
#define PVK_TRANSLATOR_H

#include <stdbool.h>
#include <stdint.h>

#include "picavk/picavk.h"
#include "translator/regs.h"

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
};

/* Data-port capacities (3dbrew). */
#define PVK_SH_CODE_WORDS 4096
#define PVK_SH_OPDESCS 128
#define PVK_SH_FLOAT_UNIFORMS 96
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

/* What a draw trigger hands the draw hook. */
typedef enum pvk_pica_draw_kind {
    PVK_PICA_DRAW_ARRAYS = 0,     /* GPUREG_DRAWARRAYS */
    PVK_PICA_DRAW_ELEMENTS = 1,   /* GPUREG_DRAWELEMENTS */
    PVK_PICA_DRAW_IMMEDIATE = 2,  /* one vertex complete through FIXEDATTRIB_INDEX = 0xF */
} pvk_pica_draw_kind;

typedef struct pvk_pica_draw {
    pvk_pica_draw_kind kind;
    uint32_t count, first;        /* NUMVERTICES, VERTEX_OFFSET (arrays / elements) */
    const uint32_t (*attrs)[4];   /* immediate: the vertex's attributes (f24 x y z w) */
    uint32_t attr_count;
} pvk_pica_draw;

/* Cache triggers. */
typedef enum pvk_pica_cache_op {
    PVK_PICA_FRAMEBUFFER_INVALIDATE = 0,
    PVK_PICA_FRAMEBUFFER_FLUSH = 1,
    PVK_PICA_TEXTURE_CACHE_CLEAR = 2,
    PVK_PICA_EARLYDEPTH_CLEAR = 3,
} pvk_pica_cache_op;

/* A hook that returns an error stops the command list (the error is the kick's result). */
typedef pvk_result (*pvk_pica_draw_fn)(pvk_context *ctx, void *user, const pvk_pica_draw *draw);
typedef pvk_result (*pvk_pica_cache_fn)(pvk_context *ctx, void *user, pvk_pica_cache_op op);

typedef struct pvk_pica_hooks {
    pvk_pica_draw_fn draw;        /* NULL: counted and logged (once) as unsupported */
    void *draw_user;
    pvk_pica_cache_fn cache;      /* NULL: nothing to do */
    void *cache_user;
} pvk_pica_hooks;

typedef struct pvk_pica_counters {
    uint64_t writes;              /* register writes decoded from command lists */
    uint64_t draws, immediate_vertices, cache_ops, jumps;
    uint64_t dropped;             /* FIFO words past the end of their table */
} pvk_pica_counters;

typedef struct pvk_pica {
    uint32_t regs[PVK_PICA_REG_COUNT];
    uint32_t info[PVK_PICA_REG_COUNT]; /* per id: dirty bits | side effect << 26 */
    bool ready;                        /* reset values and tables in place */
    bool draw_logged;
    bool in_list;                      /* the write comes from a command list */
    uint32_t dirty;                    /* PVK_DIRTY_* since the consumer last cleared it */
    pvk_pica_hooks hooks;
    pvk_pica_counters counters;

    /* data ports */
    pvk_shader_unit sh[2];             /* 0 geometry, 1 vertex */
    uint32_t lighting_lut[PVK_LIGHTING_LUTS][PVK_LUT_ENTRIES];
    uint32_t fog_lut[PVK_FOG_LUT_ENTRIES];
    uint32_t gas_lut[PVK_GAS_LUT_ENTRIES];
    uint32_t proctex_lut[PVK_PROCTEX_LUT_TABLES][PVK_LUT_ENTRIES];
    uint32_t lighting_pos, fog_pos, gas_pos, proctex_pos; /* FIFO write positions */
    uint32_t fixed_attr[PVK_FIXED_ATTRS][4];              /* f24 x y z w */
    uint32_t attr_buf[3], attr_words;                     /* FIXEDATTRIB_DATA0-2 in progress */
    uint32_t fixed_index;                                 /* next fixed attribute, 0xF = immediate */
    uint32_t imm[PVK_MAX_VS_INPUTS][4];                   /* immediate-mode vertex being assembled */
    uint32_t imm_count;
    uint32_t overflow_logged;                             /* bit per FIFO: logged this kick */
    uint64_t irq_active;                                  /* enabled IRQ compare matches */
    pvk_result error;                                     /* why a list stopped */
} pvk_pica;

/* A 32-bit write from the CPU side (external window 0x10401000+4*id):
 * stores the register and runs its side effect; a write of bit 0 to
 * CMDBUF_JUMP0/1 runs that channel's command list before returning. */
pvk_result pvk_pica_mmio_write(pvk_context *ctx, uint32_t id, uint32_t value);
uint32_t pvk_pica_mmio_read(pvk_context *ctx, uint32_t id);
/* cmdlist.c: the register write behind pvk_pica_mmio_write (id < 0x400). */
pvk_result pvk_pica_cpu_write(pvk_context *ctx, uint32_t id, uint32_t value);

/* Reset values (the state GSP leaves after GPU init, see pica.c); runs
 * lazily on first use, call again to reset. */
void pvk_pica_reset(pvk_context *ctx);
void pvk_pica_set_hooks(pvk_context *ctx, const pvk_pica_hooks *hooks);

/* Run command-list channel 0 or 1 from its CMDBUF_ADDR/SIZE registers,
 * following jumps, until its end or FINALIZE with IRQ_AUTOSTOP. */
pvk_result pvk_cmdlist_kick(pvk_context *ctx, unsigned channel);
/* Decode words from host memory as one command list (a jump inside it
 * continues in guest memory as in a kick).  For tests, fuzzers and benchmarks. */
pvk_result pvk_cmdlist_run_words(pvk_context *ctx, const uint32_t *words, uint32_t count);

/* libctru-style name of register `id` ("GPUREG_BLEND_FUNC"), or NULL when unnamed. */
const char *pvk_pica_reg_name(uint32_t id);
/* Register id for a name with or without the "GPUREG_" prefix, -1 when unknown. */
int pvk_pica_reg_id(const char *name);

#endif
