/* The PICA200 geometry shader unit on the CPU: the VS outputs of a draw's
 * vertices are buffered into one geometry-shader invocation's inputs, the
 * shader runs on the interpreter (shader.c) from GSH_ENTRYPOINT with the
 * geometry unit's own uniforms, and every SETEMIT/EMIT pair with the
 * "primitive" flag hands a triangle to primitive assembly.
 *
 * Facts this follows (sources in brackets):
 *  - GEOSTAGE_CONFIG bits 0-1 = 2 puts the geometry unit in the pipeline;
 *    VSH_COM_MODE = 1 gives it its own configuration (registers 0x280-0x2AF)
 *    [3dbrew GPU/Internal Registers; libctru shaderProgramConfigure writes
 *    2 and 1 together].
 *  - Each vertex hands the geometry stage VSH_OUTMAP_TOTAL1 + 1 entries: its
 *    output registers whose VSH_OUTMAP_MASK bit is set, in register order
 *    [Citra UnitState::WriteOutput; libctru writes outmapData[0] - 1, the VS
 *    output count, to 0x24A and 0x251].
 *  - GSH_MISC0 bits 0-7 pick the mode [libctru DVLE_geoShaderMode; picasso's
 *    `.gsh`; Citra geometry_pipeline.cpp for the buffering]:
 *    0 point: entries fill GSH_INPUTBUFFER_CONFIG bits 0-3 + 1 input slots,
 *      then entry i goes to v[GSH_ATTRIBUTES_PERMUTATION nibble i] and the
 *      shader runs (libctru: stride = the VS output count, identity
 *      permutation, so n-vertex primitives are inputs / outputs vertices).
 *    1 variable-size primitives (GEOSTAGE_CONFIG bit 31, INPUTBUFFER bit 8):
 *      DRAWELEMENTS only; an index entry gives a primitive's vertex count,
 *      which goes to c0 (all four components); the next count vertices go to
 *      c1 onwards, the first GSH_MISC1 + 1 of them with all their entries,
 *      the others with entry 0 only (the position); the shader runs after
 *      the last one.
 *    2 fixed-size primitives (INPUTBUFFER bit 8): MISC0 bits 8-11 + 1
 *      vertices of MISC0 bits 12-15 + 1 entries each go to the float
 *      uniforms from c[MISC0 bits 16-23], then the shader runs.
 *  - EMIT stores the outputs in slot SETEMIT.vtxid (0-2); with SETEMIT's
 *    primitive flag it also sends slots 0, 1, 2 as one triangle, and with
 *    its winding flag primitive assembly in mode 3 swaps the triangle's
 *    first two vertices [Citra GSEmitter::Emit, PrimitiveAssembler; 3dbrew
 *    Shader Instruction Set; picasso's `setemit vtx, prim inv`].  In modes
 *    0-2 the emitted vertices are assembled by that topology instead [Citra
 *    pull request 2865, from a hardware test].
 *  - The output map (SH_OUTMAP_TOTAL, SH_OUTMAP_O0-6) applies to the
 *    geometry shader's outputs, GSH_OUTMAP_MASK picking the registers
 *    [libctru: the GS DVLE's outmap replaces the VS's].
 *  - The unit keeps its registers between invocations and draws, and b15 is
 *    set after every invocation, so a program that clears it sees the first
 *    invocation of a batch [Citra GeometryPipeline::SubmitVertex].
 *  - Every draw starts with an empty input buffer [Citra reconfigures the
 *    pipeline per draw]; an incomplete last invocation is dropped. */
#include <stdlib.h>
#include <string.h>

#include "translator/geometry.h"

/* Bits of pvk_gs_state.logged: each unsupported corner is logged once,
 * counted every time. */
enum {
    LOG_MODE = 1u << 0,
    LOG_COM_MODE = 1u << 1,
    LOG_UNIT_MODE = 1u << 2,
    LOG_FLAGS = 1u << 3,
    LOG_STRIDE = 1u << 4,
    LOG_COUNT0 = 1u << 5,
    LOG_WHOLE = 1u << 6,
    LOG_ARRAYS = 1u << 7,
    LOG_GEOSTAGE = 1u << 8,
};

static void unsupported_once(pvk_pica *p, uint32_t bit, const char *msg)
{
    if (p->gs.logged & bit) {
        pvk_pica_count(p, PVK_PICA_UNSUPPORTED, 1);
        return;
    }
    p->gs.logged |= bit;
    pvk_pica_unsupported(p, "geometry shader: %s", msg);
}

void pvk_gs_outmap_sources(const pvk_pica *p, uint8_t sem_src[24])
{
    pvk_sh_outmap_sources_mask(p, p->regs[PVK_GPUREG_GSH_OUTMAP_MASK], sem_src);
}

pvk_result pvk_gs_plan_build(pvk_pica *p, pvk_draw_kind kind, pvk_gs_plan *plan)
{
    const uint32_t *r = p->regs;
    memset(plan, 0, sizeof *plan);
    uint32_t misc0 = r[PVK_GPUREG_GSH_MISC0], inbuf = r[PVK_GPUREG_GSH_INPUTBUFFER_CONFIG];
    plan->mode = (uint8_t)pvk_gsh_misc0_mode(misc0);
    plan->topology = (uint8_t)pvk_primitive_mode(r[PVK_GPUREG_PRIMITIVE_CONFIG]);
    plan->vs_outputs = (uint8_t)(pvk_outmap_total_m1(r[PVK_GPUREG_VSH_OUTMAP_TOTAL1]) + 1);
    uint32_t mask = pvk_sh_outmap_mask(r[PVK_GPUREG_VSH_OUTMAP_MASK]);
    memset(plan->vs_out_reg, 0xFF, sizeof plan->vs_out_reg);
    for (uint32_t reg = 0, k = 0; reg < PVK_SH_OUTPUTS; reg++)
        if (mask & (1u << reg))
            plan->vs_out_reg[k++] = (uint8_t)reg;
    plan->inputs = (uint8_t)(pvk_sh_input_count_m1(inbuf) + 1);
    for (unsigned i = 0; i < 16; i++)
        plan->input_reg[i] = (uint8_t)pvk_sh_permutation(r[PVK_GPUREG_GSH_ATTRIBUTES_PERMUTATION_LOW],
                                                         r[PVK_GPUREG_GSH_ATTRIBUTES_PERMUTATION_HIGH], i);
    plan->out_mask = (uint16_t)pvk_sh_outmap_mask(r[PVK_GPUREG_GSH_OUTMAP_MASK]);
    plan->entry = pvk_sh_entrypoint(r[PVK_GPUREG_GSH_ENTRYPOINT]);
    pvk_gs_outmap_sources(p, plan->sem_src);

    /* Registers libctru always writes alongside the mode; a program that
     * does otherwise runs with the mode MISC0 names (what Citra decides by). */
    if (!pvk_vsh_com_mode(r[PVK_GPUREG_VSH_COM_MODE]))
        unsupported_once(p, LOG_COM_MODE, "VSH_COM_MODE 0 (geometry unit without its own configuration) "
                                          "is run with the geometry registers anyway");
    if (pvk_sh_input_unit_mode(inbuf) != 0x08)
        unsupported_once(p, LOG_UNIT_MODE, "GSH_INPUTBUFFER_CONFIG bits 24-31 are not 0x08 (geometry mode); "
                                           "run as a geometry shader anyway");
    if (plan->mode <= PVK_GS_FIXED && (pvk_sh_input_to_uniform(inbuf) != (plan->mode != PVK_GS_POINT) ||
                                       pvk_geostage_subdivision(r[PVK_GPUREG_GEOSTAGE_CONFIG]) !=
                                           (plan->mode == PVK_GS_VARIABLE)))
        unsupported_once(p, LOG_FLAGS, "GSH_INPUTBUFFER_CONFIG bit 8 / GEOSTAGE_CONFIG bit 31 disagree with "
                                       "the GSH_MISC0 mode; the mode wins");

    switch (plan->mode) {
    case PVK_GS_POINT:
        if (plan->inputs % plan->vs_outputs) {
            unsupported_once(p, LOG_WHOLE, "point mode with inputs that are not whole vertices "
                                           "(GSH_INPUTBUFFER_CONFIG + 1 not a multiple of VSH_OUTMAP_TOTAL1 + 1); "
                                           "draw dropped");
            return PVK_ERROR_BAD_PARAMETERS;
        }
        plan->vertices = (uint8_t)(plan->inputs / plan->vs_outputs);
        plan->stride = plan->vs_outputs;
        break;
    case PVK_GS_FIXED:
        plan->vertices = (uint8_t)(pvk_gsh_misc0_fixed_vertices_m1(misc0) + 1);
        plan->stride = (uint8_t)(pvk_gsh_misc0_fixed_stride_m1(misc0) + 1);
        plan->first_uniform = (uint8_t)pvk_gsh_misc0_fixed_start(misc0);
        if (plan->stride != plan->vs_outputs) /* Citra asserts they agree; we place by the stride */
            unsupported_once(p, LOG_STRIDE, "fixed mode with a stride (GSH_MISC0 bits 12-15) other than the VS "
                                            "output count; vertices placed by the stride");
        if (plan->first_uniform + (uint32_t)plan->vertices * plan->stride > PVK_SH_FLOAT_UNIFORMS) {
            pvk_pica_bad_input(p, "geometry shader: fixed mode puts %u vertices of %u uniforms from c%u, past c95; "
                                  "draw dropped",
                               plan->vertices, plan->stride, plan->first_uniform);
            return PVK_ERROR_BAD_PARAMETERS;
        }
        break;
    case PVK_GS_VARIABLE:
        if (kind != PVK_DRAW_ELEMENTS) { /* the vertex counts come from the index buffer */
            unsupported_once(p, LOG_ARRAYS, "variable-size primitives without an index buffer (DRAWARRAYS or "
                                            "immediate mode) have no vertex counts; draw dropped");
            return PVK_ERROR_BAD_PARAMETERS;
        }
        plan->first_uniform = 1;
        plan->main_vertices = (uint8_t)(pvk_gsh_misc1_main_vertices_m1(r[PVK_GPUREG_GSH_MISC1]) + 1);
        plan->stride = plan->vs_outputs;
        break;
    default:
        unsupported_once(p, LOG_MODE, "GSH_MISC0 mode other than 0-2; draw dropped");
        return PVK_ERROR_BAD_PARAMETERS;
    }
    return PVK_SUCCESS;
}

void pvk_gs_begin(pvk_pica *p)
{
    p->gs.fill = 0;
    p->gs.prim_left = 0;
    p->gs.prim_vertex = 0;
}

bool pvk_gs_wants_count(const pvk_pica *p, const pvk_gs_plan *plan)
{
    return plan->mode == PVK_GS_VARIABLE && p->gs.prim_left == 0;
}

static void set_uniform(pvk_pica *p, uint32_t c, const float x[4])
{
    for (unsigned k = 0; k < 4; k++) {
        uint32_t b;
        memcpy(&b, &x[k], 4);
        p->sh[0].f[c][k] = pvk_f32_to_f24(b);
    }
}

void pvk_gs_count(pvk_pica *p, const pvk_gs_plan *plan, uint32_t count)
{
    (void)plan;
    if (count == 0) { /* what the unit does with an empty primitive is unknown */
        unsupported_once(p, LOG_COUNT0, "variable-size primitive of 0 vertices skipped");
        return;
    }
    float n[4] = {(float)count, (float)count, (float)count, (float)count};
    set_uniform(p, 0, n);
    p->dirty |= PVK_DIRTY_GS_UNIFORM;
    p->gs.fill = 1;
    p->gs.prim_left = count;
    p->gs.prim_vertex = 0;
}

/* ---- running the shader and collecting what it emits ---- */

typedef struct emit_ctx {
    pvk_pica *p;
    const pvk_gs_plan *plan;
    pvk_gs_sink *sink;
} emit_ctx;

static void on_emit(void *user, unsigned vtxid, bool primemit, bool winding, const float o[PVK_SH_OUTPUTS][4])
{
    emit_ctx *e = user;
    pvk_pica *p = e->p;
    pvk_gs_sink *sink = e->sink;
    if (sink->error)
        return;
    if (vtxid > 2) { /* a loop of these must not flood the log: once per draw */
        if (sink->bad_vtx_logged)
            pvk_pica_count(p, PVK_PICA_BAD_INPUT, 1);
        else
            pvk_pica_bad_input(p, "geometry shader: EMIT of vertex id 3 (SETEMIT takes 0-2); ignored");
        sink->bad_vtx_logged = true;
        return;
    }
    memcpy(p->gs.slot[vtxid], o, sizeof p->gs.slot[vtxid]);
    if (!primemit)
        return;
    if (sink->count + 3 > PVK_GS_MAX_EMIT_VERTICES) {
        pvk_pica_bad_input(p, "geometry shader: more than %u vertices emitted in one draw; draw dropped",
                           PVK_GS_MAX_EMIT_VERTICES);
        sink->error = PVK_ERROR_BAD_PARAMETERS;
        return;
    }
    if ((sink->error = pvk_charge_vertices(p, 3)))
        return;
    if (sink->count + 3 > sink->cap) {
        uint32_t cap = sink->cap ? sink->cap * 2 : 96;
        cap = cap < PVK_GS_MAX_EMIT_VERTICES ? cap : PVK_GS_MAX_EMIT_VERTICES;
        pvk_vertex *v = realloc(sink->verts, sizeof *v * cap);
        if (v)
            sink->verts = v;
        uint8_t *w = v ? realloc(sink->winding, cap / 3) : NULL;
        if (!v || !w) {
            sink->error = PVK_ERROR_OUT_OF_MEMORY;
            return;
        }
        sink->winding = w;
        sink->cap = cap;
    }
    for (unsigned k = 0; k < 3; k++)
        pvk_sh_outmap_apply(e->plan->sem_src, (const float(*)[4])p->gs.slot[k], &sink->verts[sink->count + k]);
    sink->winding[sink->count / 3] = winding;
    sink->count += 3;
}

static pvk_result invoke(pvk_pica *p, const pvk_gs_plan *plan, pvk_gs_sink *sink)
{
    const pvk_shader_unit *sh = &p->sh[0];
    emit_ctx e = {p, plan, sink};
    pvk_sh_run_info info = {
        .unit = sh,
        .entry = plan->entry,
        .bools = sh->b,
        .emit = on_emit,
        .emit_user = &e,
        .persist = &p->gs.regs,
    };
    for (unsigned i = 0; i < 4; i++)
        info.ints[i] = sh->i[i];
    pvk_result r = pvk_sh_run_charged(p, &info, (const float(*)[4])p->gs.v, p->gs.o);
    p->sh[0].b |= 1u << 15; /* after every invocation (see the top) */
    return r ? r : sink->error;
}

pvk_result pvk_gs_vertex(pvk_pica *p, const pvk_gs_plan *plan, const float o[PVK_SH_OUTPUTS][4], pvk_gs_sink *sink)
{
    pvk_gs_state *g = &p->gs;
    float entry[16][4] = {{0}};
    for (unsigned k = 0; k < plan->vs_outputs; k++)
        if (plan->vs_out_reg[k] < PVK_SH_OUTPUTS)
            memcpy(entry[k], o[plan->vs_out_reg[k]], sizeof entry[k]);
    /* An immediate-mode primitive keeps its partial input across vertices,
     * and the registers may change in between: what no longer fits the
     * current configuration starts over (never past the buffers). */
    if ((plan->mode == PVK_GS_POINT && g->fill + plan->vs_outputs > plan->inputs) ||
        (plan->mode == PVK_GS_FIXED && g->fill >= plan->vertices))
        g->fill = 0;
    switch (plan->mode) {
    case PVK_GS_POINT:
        for (unsigned k = 0; k < plan->vs_outputs; k++)
            memcpy(g->buf[g->fill++], entry[k], sizeof entry[k]);
        if (g->fill < plan->inputs)
            return PVK_SUCCESS;
        for (unsigned i = 0; i < plan->inputs; i++)
            memcpy(g->v[plan->input_reg[i]], g->buf[i], sizeof g->buf[i]);
        g->fill = 0;
        break;
    case PVK_GS_FIXED: {
        uint32_t base = plan->first_uniform + g->fill * plan->stride;
        uint32_t n = plan->vs_outputs < plan->stride ? plan->vs_outputs : plan->stride;
        for (uint32_t k = 0; k < n; k++)
            set_uniform(p, base + k, entry[k]);
        p->dirty |= PVK_DIRTY_GS_UNIFORM;
        if (++g->fill < plan->vertices)
            return PVK_SUCCESS;
        g->fill = 0;
        break;
    }
    default: { /* PVK_GS_VARIABLE: the caller gave the count first */
        uint32_t n = g->prim_vertex < plan->main_vertices ? plan->vs_outputs : 1;
        for (uint32_t k = 0; k < n; k++) {
            if (g->fill >= PVK_SH_FLOAT_UNIFORMS) {
                if (g->fill++ == PVK_SH_FLOAT_UNIFORMS) /* once per primitive */
                    pvk_pica_bad_input(p, "geometry shader: a variable-size primitive of %u vertices does not fit "
                                          "c1-c95; the rest is not written",
                                       g->prim_vertex + g->prim_left);
                continue;
            }
            set_uniform(p, g->fill++, entry[k]);
        }
        p->dirty |= PVK_DIRTY_GS_UNIFORM;
        g->prim_vertex++;
        if (--g->prim_left)
            return PVK_SUCCESS;
        break;
    }
    }
    return invoke(p, plan, sink);
}

uint32_t pvk_gs_assemble(const pvk_gs_plan *plan, const pvk_gs_sink *sink, uint32_t *out)
{
    if (plan->topology != 3)
        return pvk_assemble_triangles(plan->topology, sink->count, out);
    uint32_t n = 0;
    for (uint32_t t = 0; t + 3 <= sink->count; t += 3) {
        bool swap = sink->winding[t / 3];
        out[n++] = swap ? t + 1 : t;
        out[n++] = swap ? t : t + 1;
        out[n++] = t + 2;
    }
    return n;
}
