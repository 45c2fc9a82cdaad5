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

/* ---- attribute loading (translator/attrib.c; the plan and its memo are in translator.h) ---- */

/* Decode the registers into `plan`.  A configuration no vertex can be loaded
 * from (e.g. more than 12 attributes) is logged, counted and refused. */
pvk_result pvk_attrib_plan_build(const pvk_pica *p, pvk_attrib_plan *plan);
/* The same, from p's memo when its inputs are unchanged (the plan stays
 * valid until the next call). */
pvk_result pvk_attrib_plan_get(pvk_pica *p, const pvk_attrib_plan **plan);
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
    /* Optional: the temporaries, address registers, condition flags and
     * SETEMIT state the run starts from and leaves behind (at END or when
     * it stops on an error); NULL starts from zero as a vertex unit does. */
    pvk_sh_persist *persist;
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
/* A vertex from output registers `o` by a resolved map (below), with the
 * colour made absolute and saturated as the hardware does. */
void pvk_sh_outmap_apply(const uint8_t sem_src[24], const float o[PVK_SH_OUTPUTS][4], pvk_vertex *out);
/* The map for a unit whose enabled outputs are `mask` (VSH_ or GSH_OUTMAP_MASK). */
void pvk_sh_outmap_sources_mask(const pvk_pica *p, uint32_t mask, uint8_t sem_src[24]);
/* The map itself: for each semantic 0-23, output register * 4 + component,
 * or PVK_VS_SEM_NONE (the default value: 0, w of position and colour 1). */
void pvk_vs_outmap_sources(const pvk_pica *p, uint8_t sem_src[24]);

/* ---- primitive assembly (translator/geometry.c) ---- */

/* Vertex numbers (0..count-1) of the triangles a PRIMITIVE_CONFIG mode
 * makes of `count` vertices, three per triangle, into `out` (room for
 * 3 * count); returns how many were written.  Mode 3 is a list: without a
 * geometry shader it is how citro3d draws indexed triangle lists; with one,
 * pvk_gs_assemble handles its winding flag. */
uint32_t pvk_assemble_triangles(uint32_t mode, uint32_t count, uint32_t *out);

/* ---- geometry shader (translator/gs.c) ---- */

/* GSH_MISC0 bits 0-7 (libctru DVLE_geoShaderMode, picasso `.gsh`). */
enum pvk_gs_mode {
    PVK_GS_POINT = 0,    /* VS outputs of `vertices` vertices -> input registers v0-v15 */
    PVK_GS_VARIABLE = 1, /* an index-buffer entry gives the vertex count; c0 = count, vertices from c1 */
    PVK_GS_FIXED = 2,    /* `vertices` vertices -> float uniforms from c`first_uniform` */
};

/* Vertices the geometry shader may emit in one draw (3 per primitive it
 * emits): past it the draw is dropped, logged and counted.  Emitted vertices
 * also charge the call's vertex budget (PVK_VERTEX_BUDGET). */
#define PVK_GS_MAX_EMIT_VERTICES (1u << 18)

/* One draw's geometry-shader configuration, decoded once from the registers
 * (sources: 3dbrew GPU/Internal Registers; libctru shaderProgramConfigure
 * for the values programs write; Citra's geometry_pipeline.cpp for how the
 * modes buffer vertices).  The GPU path builds from this too: fields keep
 * their meaning, new ones are added at the end. */
typedef struct pvk_gs_plan {
    uint8_t mode;             /* enum pvk_gs_mode */
    uint8_t topology;         /* PRIMITIVE_CONFIG mode the emitted vertices are assembled with:
                                 3 (what citro3d sets) = a list in which SETEMIT's winding flag
                                 swaps a triangle's first two vertices; 0-2 list/strip/fan */
    uint8_t vs_outputs;       /* entries each vertex hands on: VSH_OUTMAP_TOTAL1 + 1 */
    uint8_t vs_out_reg[16];   /* entry k = VS output register vs_out_reg[k]: the k-th set bit of
                                 VSH_OUTMAP_MASK (0xFF: none, reads as 0) */
    uint8_t inputs;           /* point: entries per invocation, GSH_INPUTBUFFER_CONFIG bits 0-3 + 1 */
    uint8_t input_reg[16];    /* point: entry i -> v[input_reg[i]] (GSH_ATTRIBUTES_PERMUTATION) */
    uint8_t vertices;         /* vertices per invocation: point inputs / vs_outputs, fixed MISC0
                                 bits 8-11 + 1, variable 0 (each primitive's count comes first) */
    uint8_t stride;           /* fixed: uniforms per vertex (MISC0 bits 12-15 + 1) */
    uint8_t first_uniform;    /* fixed: MISC0 bits 16-23; variable: 1 (c0 holds the count) */
    uint8_t main_vertices;    /* variable: leading vertices that hand on all entries (GSH_MISC1 + 1);
                                 the rest hand on entry 0 only (the position) */
    uint16_t out_mask;        /* GSH_OUTMAP_MASK: output registers an EMIT takes */
    uint32_t entry;           /* GSH_ENTRYPOINT */
    uint8_t sem_src[24];      /* output map (SH_OUTMAP_O0-6) over the GS outputs, as pvk_vs_key.sem_src */
} pvk_gs_plan;

/* GEOSTAGE_CONFIG bits 0-1 = 2: vertices go through the geometry shader. */
static inline bool pvk_gs_enabled(const pvk_pica *p)
{
    return pvk_geostage_gs(p->regs[PVK_GPUREG_GEOSTAGE_CONFIG]) == 2;
}
/* Decode the registers into `plan` for a draw of `kind`.  A configuration
 * the unit cannot run (the variable mode without an index buffer, a mode
 * other than 0-2, inputs that are not whole VS vertices, vertices past c95)
 * is logged, counted and refused (PVK_ERROR_BAD_PARAMETERS: drop the draw). */
pvk_result pvk_gs_plan_build(pvk_pica *p, pvk_draw_kind kind, pvk_gs_plan *plan);
/* The output map over the GS outputs (GSH_OUTMAP_MASK picks the registers). */
void pvk_gs_outmap_sources(const pvk_pica *p, uint8_t sem_src[24]);

/* Where one draw's emitted triangles go (gs.c fills it, vertex.c submits). */
typedef struct pvk_gs_sink {
    pvk_vertex *verts;        /* emitted vertices, in order, 3 per primitive */
    uint8_t *winding;         /* per primitive: SETEMIT's winding flag */
    uint32_t count, cap;      /* vertices */
    pvk_result error;         /* budget or memory: the draw stops */
    bool bad_vtx_logged;      /* SETEMIT vertex id 3 logged for this draw (counted every time) */
} pvk_gs_sink;

/* The draw's geometry stage, fed vertex by vertex.  pvk_gs_begin resets the
 * input buffer (every DRAWARRAYS/DRAWELEMENTS starts a fresh one), then each
 * vertex's VS outputs go to pvk_gs_vertex, which runs the geometry shader
 * whenever an invocation's inputs are complete; `count` is an index-buffer
 * entry that the variable mode takes as a primitive's vertex count.  Errors
 * (a runaway GS, an exhausted budget, out of memory) stop the draw. */
void pvk_gs_begin(pvk_pica *p);
pvk_result pvk_gs_vertex(pvk_pica *p, const pvk_gs_plan *plan, const float o[PVK_SH_OUTPUTS][4],
                         pvk_gs_sink *sink);
/* Variable mode: does the next index-buffer entry start a primitive (its
 * vertex count) rather than name a vertex? */
bool pvk_gs_wants_count(const pvk_pica *p, const pvk_gs_plan *plan);
void pvk_gs_count(pvk_pica *p, const pvk_gs_plan *plan, uint32_t count);
/* Index list (3 per triangle) over the sink's vertices for plan->topology
 * into `out` (room for 3 * sink->count); returns its length. */
uint32_t pvk_gs_assemble(const pvk_gs_plan *plan, const pvk_gs_sink *sink, uint32_t *out);

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

/* An upper bound on the instructions one invocation of the program at
 * `entry` runs with the unit's integer uniforms (translator/budget.c: straight
 * code, LOOPs, IFs, CALLs and forward jumps the stacks run as written); 0
 * when the code does not show one (backward jumps, BREAK, ...).  The GPU
 * paths charge invocations x this bound to the call's shader-instruction
 * budget and stop an invocation there. */
uint64_t pvk_sh_step_bound(const pvk_shader_unit *unit, uint32_t entry);
/* The same for unit 0 (geometry) or 1 (vertex) of `p`, remembered while
 * the code (`code_hash`: XXH3 of its code memory), entry and integer
 * uniforms stay. */
uint64_t pvk_step_bound_cached(pvk_pica *p, unsigned unit, uint64_t code_hash, uint32_t entry);
/* Floor of the per-invocation step cap the GPU paths give a program without
 * a bound: below it such draws run on the CPU (which charges the steps they
 * really run), so the GPU path never stops an invocation the interpreter
 * finishes within this many instructions. */
#define PVK_GPU_MIN_STEPS 16384u

/* A work budget ran out (`what`, its `limit`): logged and counted, the list
 * stops (PVK_ERROR_BAD_DATA). */
pvk_result pvk_over_budget(pvk_pica *p, const char *what, uint64_t limit);
/* Charge `n` vertices to the call's vertex budget; past it the list stops
 * (logged, counted, PVK_ERROR_BAD_DATA). */
pvk_result pvk_charge_vertices(pvk_pica *p, uint32_t n);
/* pvk_sh_run charged to the call's shader-instruction budget (its
 * max_steps is set from what is left); a runaway program empties the
 * budget, so nothing more runs this call. */
pvk_result pvk_sh_run_charged(pvk_pica *p, pvk_sh_run_info *info, const float v[PVK_SH_INPUTS][4],
                              float o[PVK_SH_OUTPUTS][4]);

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
