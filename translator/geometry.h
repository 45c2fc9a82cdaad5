/* translator/: the geometry stages on the CPU, in the order a draw runs them:
 * vertex index -> attribute loading -> vertex shader -> output map ->
 * primitive assembly, and the draw that runs them all (vertex.c).  Each stage
 * reads the PICA state in a pvk_pica (regs.h names every register). */
#ifndef PVK_GEOMETRY_H
#define PVK_GEOMETRY_H

#include <stdbool.h>
#include <stdint.h>

#include "picavk/picavk.h"
#include "translator/translator.h"

#define PVK_MAX_ATTRIBS 12

/* ---- attribute loading (translator/attrib.c) ---- */

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

/* Decode the registers into `plan`.  A configuration no vertex can be loaded
 * from (e.g. more than 12 attributes) is logged, counted and refused. */
pvk_result pvk_attrib_plan_build(const pvk_pica *p, pvk_attrib_plan *plan);
/* Input registers for vertex `index` (the final index: VERTEX_OFFSET and the
 * index buffer already applied).  Registers no attribute maps stay as the
 * caller left them.  Reads outside guest memory are logged, counted and
 * refused (PVK_ERROR_OUT_OF_RANGE). */
pvk_result pvk_attrib_fetch(const pvk_pica *p, const pvk_attrib_plan *plan, uint32_t index,
                            float v[PVK_SH_INPUTS][4]);
/* The vertex index of element `i` of the current draw: VERTEX_OFFSET + i for
 * DRAWARRAYS; for DRAWELEMENTS the u8 or u16 index buffer entry
 * (INDEXBUFFER_CONFIG) at ATTRIBBUFFERS_LOC base + offset. */
pvk_result pvk_draw_vertex_index(const pvk_pica *p, bool elements, uint32_t i, uint32_t *index);

/* ---- vertex shader (translator/shader.c) ---- */

/* Run the vertex shader unit (p->sh[1]) from GPUREG_VSH_ENTRYPOINT on
 * inputs v0-v15 and write o0-o15 (unwritten outputs keep the caller's
 * values).  Runaway programs stop after a bounded number of instructions,
 * logged and counted (PVK_ERROR_BAD_DATA). */
pvk_result pvk_vs_run(const pvk_pica *p, const float v[PVK_SH_INPUTS][4], float o[PVK_SH_OUTPUTS][4]);

#define PVK_SH_MAX_STEPS (1u << 20) /* instructions per invocation before it counts as runaway */

/* EMIT of a geometry shader: the vertex in o0-o15 with the last SETEMIT's fields. */
typedef void (*pvk_sh_emit_fn)(void *user, unsigned vtxid, bool primemit, bool winding,
                               const float o[PVK_SH_OUTPUTS][4]);

/* What an invocation leaves behind besides the outputs (tests, debugging). */
typedef struct pvk_sh_regs {
    float r[16][4];
    int32_t a0[2];
    uint8_t aL;
    bool cmp[2];
    uint32_t steps, end_pc; /* instructions executed, PC of the END */
} pvk_sh_regs;

/* One invocation of a shader unit with everything explicit: no register
 * file needed, so tests can run programs without building a command list. */
typedef struct pvk_sh_run_info {
    const pvk_shader_unit *unit;  /* code, operand descriptors, float uniforms */
    uint32_t entry;               /* first instruction (word index) */
    uint32_t bools;               /* b0-b15 */
    uint32_t ints[4];             /* i0-i3: x | y << 8 | z << 16 */
    pvk_sh_emit_fn emit;          /* NULL: EMIT/SETEMIT are logged as unsupported (vertex unit) */
    void *emit_user;
    uint32_t max_steps;           /* 0: PVK_SH_MAX_STEPS */
    pvk_sh_regs *regs_out;        /* optional */
} pvk_sh_run_info;

/* Messages go through `log`'s environment; it may be NULL (nothing logged or counted).  Inputs are rounded to f24
 * as the attribute loader would; outputs are f24 values stored as float. */
pvk_result pvk_sh_run(const pvk_pica *log, const pvk_sh_run_info *info, const float v[PVK_SH_INPUTS][4],
                      float o[PVK_SH_OUTPUTS][4]);
/* Run unit 0 (geometry) or 1 (vertex) of `p` with its entry point
 * register and uniforms; `emit` as above (NULL for the vertex unit). */
pvk_result pvk_sh_run_unit(const pvk_pica *p, unsigned unit, const float v[PVK_SH_INPUTS][4],
                           float o[PVK_SH_OUTPUTS][4], pvk_sh_emit_fn emit, void *emit_user);

/* The value of a float1.7.16 word as the interpreter reads registers and
 * uniforms: subnormals m * 2^-78, no -0, exponent 127 inf/NaN. */
float pvk_sh_f24_value(uint32_t w);

/* ---- output map (translator/geometry.c) ---- */

void pvk_vs_outmap(const pvk_pica *p, const float o[PVK_SH_OUTPUTS][4], pvk_vertex *out);
/* The map itself: for each semantic 0-23, output register * 4 + component,
 * or PVK_VS_SEM_NONE (the default value: 0, w of position and colour 1). */
void pvk_vs_outmap_sources(const pvk_pica *p, uint8_t sem_src[24]);

/* ---- primitive assembly (translator/geometry.c) ---- */

/* Vertex numbers (0..count-1) of the triangles a PRIMITIVE_CONFIG mode
 * makes of `count` vertices, three per triangle, into `out` (room for
 * 3 * count); returns how many were written.  Mode 3 (geometry shader
 * primitives) is drawn as a triangle list. */
uint32_t pvk_assemble_triangles(uint32_t mode, uint32_t count, uint32_t *out);

/* ---- draws (translator/vertex.c) ---- */

/* The per-call shader work bound: a guest call (one register write, which may
 * run a whole command list) gets this many shader instructions across all
 * its vertices, so no input can make picavk spin. */
#define PVK_SHADER_BUDGET (1ull << 27)
/* Draw work bounds per guest call, a few seconds of what a real PICA200 does
 * at the 3DS's 268 MHz.  DMP rates the core at 15.3 M polygons/s and
 * 800 Mpixel/s at 200 MHz (Wikipedia "PICA200", Specification), so at
 * 268 MHz about 20 M vertices/s and 1.07 Gpixel/s: 2^26 vertices is about
 * 3.3 s and 2^32 pixels about 4 s.  A draw's pixels are its triangles'
 * screen bounding boxes clipped to the viewport and framebuffer, plus the
 * framebuffer's own area because picavk loads and stores the whole target
 * around every draw (picavk's cost, not the hardware's).  Past either bound
 * the command list stops like a malformed one (logged, counted) but raises
 * P3D as its FINALIZE would have, so the guest does not wait forever. */
#define PVK_VERTEX_BUDGET (1ull << 26)
#define PVK_AREA_BUDGET (1ull << 32)
/* Attribute bytes a draw with its vertex program on the GPU may read (the
 * runtime copies them): sparse index buffers over wide strides make more,
 * and such draws run on the CPU, which reads only the vertices used. */
#define PVK_VS_DRAW_MAX_BYTES (8u << 20)
/* At most this many vertices in one DRAWARRAYS / DRAWELEMENTS. */
#define PVK_MAX_DRAW_VERTICES (1u << 20)

/* DRAWARRAYS / DRAWELEMENTS: run every vertex through the stages, assemble
 * triangles and hand the packet to env.draw.  Bad attributes or framebuffers
 * are logged, counted and dropped (success); a runaway shader or an exhausted
 * budget is an error that stops the list. */
pvk_result pvk_vertex_draw(pvk_pica *p, bool elements);
/* One immediate-mode vertex (its `n` attributes, f24 x y z w): a packet for
 * each triangle it completes; PRIMITIVE_CONFIG or RESTART_PRIMITIVE writes
 * start a new primitive. */
pvk_result pvk_vertex_immediate(pvk_pica *p, const uint32_t (*attrs)[4], uint32_t n);

#endif
