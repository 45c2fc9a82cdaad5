/* Draws on the CPU side: every vertex through index -> attribute loading ->
 * vertex shader -> output map, then primitive assembly into a triangle list,
 * handed to env.draw as a packet with the framebuffer and raster state.
 *
 * Checks that drop a draw (logged, counted, the list goes on): a colour
 * buffer whose size is not a multiple of 8 in 1..1024 or of unknown format,
 * a reserved depth format while depth is used, attributes outside guest
 * memory, more than PVK_MAX_DRAW_VERTICES vertices.  A runaway shader or an
 * exhausted per-call budget (shader instructions, vertices, pixels: see
 * geometry.h) stops the list. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "translator/geometry.h"

#define MAX_DIM 1024 /* FRAMEBUFFER_DIM: 11-bit width, 10-bit height-1 */

/* Pixels a triangle can cover: its window bounding box clipped to the
 * viewport and the framebuffer; the whole clip rectangle when a vertex is at
 * or behind the eye (w <= 0) or not a number. */
static double tri_area(const pvk_vertex *verts, const uint32_t *index, const float vp[4], double fw, double fh)
{
    double cx0 = vp[0] > 0 ? vp[0] : 0, cy0 = vp[1] > 0 ? vp[1] : 0;
    double cx1 = (double)vp[0] + vp[2], cy1 = (double)vp[1] + vp[3];
    cx1 = cx1 < fw ? cx1 : fw, cy1 = cy1 < fh ? cy1 : fh;
    if (!(cx1 > cx0 && cy1 > cy0))
        return 0;
    double x0 = cx1, y0 = cy1, x1 = cx0, y1 = cy0;
    for (int k = 0; k < 3; k++) {
        const float *pos = verts[index[k]].pos;
        double w = pos[3];
        if (!(w > 0))
            return (cx1 - cx0) * (cy1 - cy0);
        double x = vp[0] + (pos[0] / w + 1) * 0.5 * vp[2], y = vp[1] + (pos[1] / w + 1) * 0.5 * vp[3];
        if (x != x || y != y)
            return (cx1 - cx0) * (cy1 - cy0);
        x0 = x < x0 ? x : x0, x1 = x > x1 ? x : x1, y0 = y < y0 ? y : y0, y1 = y > y1 ? y : y1;
    }
    x0 = x0 > cx0 ? x0 : cx0, y0 = y0 > cy0 ? y0 : cy0, x1 = x1 < cx1 ? x1 : cx1, y1 = y1 < cy1 ? y1 : cy1;
    return x1 > x0 && y1 > y0 ? (x1 - x0 + 1) * (y1 - y0 + 1) : 0;
}

/* Charge a packet's pixels: its triangles plus the framebuffer it loads and stores. */
static pvk_result charge_area(pvk_pica *p, const pvk_draw_packet *pk)
{
    double fw = pk->fb.width, fh = pk->fb.height, area = fw * fh;
    for (uint32_t k = 0; k + 3 <= pk->tri_vertices && area <= (double)p->area_budget; k += 3)
        area += tri_area(pk->verts, pk->index + k, pk->raster.viewport, fw, fh);
    if (area > (double)p->area_budget) {
        p->area_budget = 0;
        return pvk_over_budget(p, "pixels", p->area_limit ? p->area_limit : PVK_AREA_BUDGET);
    }
    p->area_budget -= (uint64_t)area;
    return PVK_SUCCESS;
}

static pvk_result run_vs(pvk_pica *p, const float v[PVK_SH_INPUTS][4], float o[PVK_SH_OUTPUTS][4])
{
    const pvk_shader_unit *sh = &p->sh[1];
    pvk_sh_run_info info = {
        .unit = sh,
        .entry = pvk_sh_entrypoint(p->regs[PVK_GPUREG_VSH_ENTRYPOINT]),
        .bools = sh->b,
    };
    for (unsigned i = 0; i < 4; i++)
        info.ints[i] = sh->i[i];
    return pvk_sh_run_charged(p, &info, v, o);
}

/* The packet's framebuffer, raster, output-merger and TEV state and (with
 * `units`) texture units from the registers. */
static void packet_decode(const pvk_pica *p, pvk_draw_packet *pk, bool units)
{
    pvk_fb_desc_get(p, &pk->fb);
    pvk_raster_desc_get(p, &pk->raster);
    for (unsigned u = 0; units && u < 3; u++)
        pvk_tex_desc_get(p, u, &pk->tex[u]);
    pvk_frag_state_get(p, &pk->pipe, &pk->fs, &pk->uniforms, &pk->blend_color, pk->tex);
}

/* packet_decode, or the last draw's result when the registers it reads are
 * as they were (pvk_packet_memo). */
static void packet_decode_memo(pvk_pica *p, pvk_draw_packet *pk)
{
    pvk_packet_memo *m = &p->packet_memo;
    if (m->valid && (!(p->dirty & PVK_DIRTY_PACKET) || !memcmp(m->regs, p->regs, sizeof m->regs))) {
        pk->fb = m->fb, pk->raster = m->raster, pk->pipe = m->pipe, pk->fs = m->fs;
        pk->uniforms = m->uniforms, pk->blend_color = m->blend_color;
        memcpy(pk->tex, m->tex, sizeof pk->tex);
#ifndef NDEBUG
        pvk_draw_packet fresh = *pk;
        packet_decode(p, &fresh, true);
        assert(!memcmp(&fresh.fb, &pk->fb, sizeof pk->fb) && !memcmp(&fresh.raster, &pk->raster, sizeof pk->raster) &&
               !memcmp(&fresh.pipe, &pk->pipe, sizeof pk->pipe) && !memcmp(&fresh.fs, &pk->fs, sizeof pk->fs) &&
               !memcmp(&fresh.uniforms, &pk->uniforms, sizeof pk->uniforms) && fresh.blend_color == pk->blend_color &&
               !memcmp(fresh.tex, pk->tex, sizeof pk->tex));
#endif
        return;
    }
    /* the texture units' registers unwritten since the memo: their part as it was */
    bool units = !m->valid || (p->dirty & (PVK_DIRTY_TEXTURE | PVK_DIRTY_PROCTEX | PVK_DIRTY_SHADOW));
    if (!units)
        memcpy(pk->tex, m->tex, sizeof pk->tex);
    packet_decode(p, pk, units);
    if (!units) {
#ifndef NDEBUG
        pvk_tex_desc fresh[3];
        for (unsigned u = 0; u < 3; u++)
            pvk_tex_desc_get(p, u, &fresh[u]);
        assert(!memcmp(fresh, pk->tex, sizeof fresh));
#endif
    }
    memcpy(m->regs, p->regs, sizeof m->regs);
    m->fb = pk->fb, m->raster = pk->raster, m->pipe = pk->pipe, m->fs = pk->fs;
    m->uniforms = pk->uniforms, m->blend_color = pk->blend_color;
    memcpy(m->tex, pk->tex, sizeof m->tex);
    m->valid = true;
}

static bool packet_state(pvk_pica *p, pvk_draw_packet *pk)
{
    pvk_fb_desc *fb = &pk->fb;
    packet_decode_memo(p, pk);
    pvk_fraglight_get(p, &pk->fs.fl, &pk->params); /* every draw: it counts what it does not support */
    pk->lighting_lut = &p->lighting_lut[0][0];
    pk->fog_lut = p->fog_lut;
    pk->proctex_lut = &p->proctex_lut[0][0];
    pk->lut_version = p->lut_version;
    if (fb->width == 0 || fb->width % 8 || fb->height % 8 || fb->width > MAX_DIM || fb->height > MAX_DIM) {
        pvk_pica_bad_input(p, "draw: colour buffer size %ux%u is not a multiple of 8 tiles in 1..%u; dropped",
                           fb->width, fb->height, MAX_DIM);
        return false;
    }
    if (fb->color_xfer_format < 0) {
        pvk_pica_bad_input(p, "draw: colour buffer format %u is unknown; dropped", fb->color_format);
        return false;
    }
    if ((pk->raster.depth_test || pk->raster.depth_write) && fb->depth_bits == 0) {
        pvk_pica_bad_input(p, "draw: depth buffer format 1 is reserved; dropped");
        return false;
    }
    /* Gas (1) rendering, the undocumented mode 2, and shadow rendering (3)
     * into anything but RGBA8 do not exist: such draws render as mode 0,
     * counted every draw, logged once (shadow rendering: fraglight.c). */
    uint32_t colorop = p->regs[PVK_GPUREG_COLOR_OPERATION];
    /* Bits 24 ("only each 2nd line") and 25 ("nothing") carry question
     * marks in the seed and no program or test is known to set them. */
    if ((colorop >> 24) & 3) {
        if (!(p->fragmode_logged & (1u << 4))) {
            pvk_pica_unsupported(p, "draw: COLOR_OPERATION bits 24-25 = %u are not emulated; drawn as 0",
                                 (colorop >> 24) & 3);
            p->fragmode_logged |= 1u << 4;
        } else {
            pvk_pica_count(p, PVK_PICA_UNSUPPORTED, 1);
        }
    }
    uint32_t mode = pvk_colorop_fragment_mode(colorop);
    pvk_fraglight_shadow_state(&pk->fs.fl, &pk->pipe, &pk->raster);
    if (mode && !pk->fs.fl.shadow) { /* shadow rendering into RGBA8 is fraglight.c's */
        if (!(p->fragmode_logged & (1u << mode))) {
            pvk_pica_unsupported(p, "draw: fragment operation mode %u (%s) is drawn as the default mode", mode,
                                 mode == 1 ? "gas" : mode == 3 ? "shadow" : "undocumented");
            p->fragmode_logged |= 1u << mode;
        } else {
            pvk_pica_count(p, PVK_PICA_UNSUPPORTED, 1);
        }
    }
    return true;
}

uint64_t pvk_draw_packet_hash(const pvk_draw_packet *pk)
{
    /* both descriptions are zeroed before they are filled: no padding garbage */
    uint64_t h = XXH3_64bits_withSeed(&pk->fb, sizeof pk->fb, XXH3_64bits(&pk->raster, sizeof pk->raster));
    return XXH3_64bits_withSeed(&pk->fs, sizeof pk->fs, XXH3_64bits_withSeed(&pk->pipe, sizeof pk->pipe, h));
}

static pvk_result submit(pvk_pica *p, pvk_draw_packet *pk)
{
    p->counters.triangles += pk->tri_vertices / 3;
    pk->seq = pk->kind == PVK_DRAW_IMMEDIATE ? p->counters.immediate_vertices : p->counters.draws;
    if (p->env.report && p->env.log_level >= PVK_LOG_DEBUG)
        pvk_pica_debug(p, "draw %llu: %s, %u vertices (%s), %u triangles, colour %ux%u format %u at 0x%08X, state %016llx",
                       (unsigned long long)pk->seq,
                       pk->kind == PVK_DRAW_ARRAYS ? "arrays" : pk->kind == PVK_DRAW_ELEMENTS ? "elements" : "immediate",
                       pk->vertices, pk->gs ? "programs on the GPU, triangle slots" : pk->vs ? "program on the GPU" : "shaded on the CPU",
                       pk->tri_vertices / 3,
                       pk->fb.width, pk->fb.height, pk->fb.color_format, pk->fb.color_addr,
                       (unsigned long long)pvk_draw_packet_hash(pk));
    return p->env.draw ? p->env.draw(p->env.user, pk) : PVK_SUCCESS;
}

/* GEOSTAGE_CONFIG bits 0-1: 0 no geometry shader, 2 the geometry shader
 * (3dbrew); 1 and 3 are undocumented and drawn without one. */
static bool geometry_stage(pvk_pica *p)
{
    uint32_t g = pvk_geostage_gs(p->regs[PVK_GPUREG_GEOSTAGE_CONFIG]);
    if (g == 1 || g == 3) {
        if (!p->gs_logged)
            pvk_pica_unsupported(p, "GEOSTAGE_CONFIG bits 0-1 = %u (undocumented) drawn without a geometry shader", g);
        else
            pvk_pica_count(p, PVK_PICA_UNSUPPORTED, 1);
        p->gs_logged = true;
    }
    return g == 2;
}

/* Hand the triangles a geometry shader emitted to env.draw (pk's state is
 * filled in). */
static pvk_result submit_gs(pvk_pica *p, pvk_draw_packet *pk, const pvk_gs_plan *gp, const pvk_gs_sink *sink)
{
    if (!sink->count)
        return PVK_SUCCESS;
    uint32_t *idx = malloc(sizeof *idx * 3 * (size_t)sink->count);
    if (!idx)
        return PVK_ERROR_OUT_OF_MEMORY;
    pk->verts = sink->verts;
    pk->index = idx;
    pk->tri_vertices = pvk_gs_assemble(gp, sink, idx);
    pvk_result r = PVK_SUCCESS;
    if (pk->tri_vertices && !(r = charge_area(p, pk)))
        r = submit(p, pk);
    free(idx);
    return r;
}

/* DRAWARRAYS/DRAWELEMENTS through the geometry shader (gs.c): every
 * vertex's VS outputs feed the geometry stage; the variable mode reads
 * index entries that start a primitive as its vertex count. */
static pvk_result draw_gs(pvk_pica *p, pvk_draw_packet *pk, const pvk_attrib_plan *plan, bool elements,
                          uint32_t count, const pvk_gs_plan *gpp)
{
    const pvk_gs_plan gp = *gpp;
    pvk_gs_sink sink = {0};
    pvk_result r = PVK_SUCCESS;
    pvk_gs_begin(p);
    for (uint32_t i = 0; i < count && !r; i++) {
        uint32_t index;
        float v[PVK_SH_INPUTS][4] = {{0}}, o[PVK_SH_OUTPUTS][4] = {{0}};
        if ((r = pvk_draw_vertex_index(p, elements, i, &index)))
            break;
        if (pvk_gs_wants_count(p, &gp)) {
            pvk_gs_count(p, &gp, index);
            continue;
        }
        if ((r = pvk_attrib_fetch(p, plan, index, v)) || (r = run_vs(p, v, o)))
            break;
        r = pvk_gs_vertex(p, &gp, (const float(*)[4])o, &sink);
    }
    p->counters.vertices += count;
    if (!r)
        r = submit_gs(p, pk, &gp, &sink);
    free(sink.verts);
    free(sink.winding);
    return r == PVK_ERROR_OUT_OF_RANGE || r == PVK_ERROR_BAD_PARAMETERS ? PVK_SUCCESS : r;
}

/* The GPU path's pixel charge: the CPU never sees its triangles, so each
 * counts as the whole viewport inside the framebuffer (an upper bound), plus
 * the framebuffer.  A draw whose bound does not fit the call's remaining
 * budget runs on the CPU path instead, which charges the triangles' real
 * boxes (PVK_ERROR_MISSING_FEATURE). */
static pvk_result charge_area_gpu(pvk_pica *p, const pvk_draw_packet *pk)
{
    const float *vp = pk->raster.viewport;
    double fw = pk->fb.width, fh = pk->fb.height;
    double x0 = vp[0] > 0 ? vp[0] : 0, y0 = vp[1] > 0 ? vp[1] : 0;
    double x1 = (double)vp[0] + vp[2], y1 = (double)vp[1] + vp[3];
    x1 = x1 < fw ? x1 : fw, y1 = y1 < fh ? y1 : fh;
    double tri = x1 > x0 && y1 > y0 ? (x1 - x0 + 1) * (y1 - y0 + 1) : 0;
    double area = fw * fh + tri * (pk->tri_vertices / 3);
    if (area > (double)p->area_budget)
        return PVK_ERROR_MISSING_FEATURE;
    p->area_budget -= (uint64_t)area;
    return PVK_SUCCESS;
}

/* A GPU-path packet: its pixel bound charged, then submitted.
 * PVK_ERROR_MISSING_FEATURE (the bound does not fit, or the runtime refuses
 * it) undoes the charge and the triangle count: the CPU path counts and
 * charges the draw instead.  Otherwise its `count` vertices are counted. */
static pvk_result submit_gpu(pvk_pica *p, pvk_draw_packet *pk, uint32_t count)
{
    uint64_t area_before = p->area_budget;
    pvk_result res = charge_area_gpu(p, pk);
    if (res)
        return res;
    res = submit(p, pk);
    if (res == PVK_ERROR_MISSING_FEATURE) {
        p->counters.triangles -= pk->tri_vertices / 3;
        p->area_budget = area_before;
    } else {
        p->counters.vertices += count;
        p->counters.gpu_vertices += count;
    }
    return res;
}

static const uint8_t elem_bytes[4] = {1, 1, 2, 4}; /* s8, u8, s16, f32 */

/* What the geometry unit keeps across a draw (translator/gs.c), saved
 * before the GPU path replays a draw's last invocation so that a draw
 * handed back to the CPU path starts from the same state. */
typedef struct gs_snapshot {
    pvk_gs_state gs;
    float f[PVK_SH_FLOAT_UNIFORMS][4];
    uint32_t b;
    uint64_t budget, vertex_budget;
} gs_snapshot;

static void gs_save(const pvk_pica *p, gs_snapshot *s)
{
    s->gs = p->gs;
    memcpy(s->f, p->sh[0].f, sizeof s->f);
    s->b = p->sh[0].b;
    s->budget = p->budget, s->vertex_budget = p->vertex_budget;
}

static void gs_restore(pvk_pica *p, const gs_snapshot *s)
{
    p->gs = s->gs;
    memcpy(p->sh[0].f, s->f, sizeof s->f);
    p->sh[0].b = s->b;
    p->budget = s->budget, p->vertex_budget = s->vertex_budget;
}

/* The draw's elements [from, count) through the CPU stages and the
 * geometry unit, what it emits thrown away: after the GPU ran a draw, the
 * last invocation again on the CPU leaves the unit as the hardware leaves it
 * (float uniforms the fixed and variable modes fill, registers, emit slots,
 * b15).  Its result: a runaway last invocation stops the list on the CPU. */
static pvk_result gs_replay(pvk_pica *p, const pvk_gs_plan *gp, const pvk_attrib_plan *plan, bool elements,
                            uint32_t from, uint32_t count)
{
    pvk_gs_sink sink = {0};
    pvk_result r = PVK_SUCCESS;
    pvk_gs_begin(p);
    for (uint32_t i = from; i < count && !r; i++) {
        uint32_t index;
        float v[PVK_SH_INPUTS][4] = {{0}}, o[PVK_SH_OUTPUTS][4] = {{0}};
        if ((r = pvk_draw_vertex_index(p, elements, i, &index)))
            break;
        if (pvk_gs_wants_count(p, gp)) {
            pvk_gs_count(p, gp, index);
            continue;
        }
        if ((r = pvk_attrib_fetch(p, plan, index, v)) || (r = run_vs(p, v, o)))
            break;
        r = pvk_gs_vertex(p, gp, (const float(*)[4])o, &sink);
    }
    free(sink.verts);
    free(sink.winding);
    return r;
}

/* The GPU path's charge to the call's shader-instruction budget for `n`
 * invocations of the program at `entry` on `unit`, out of `left`: the bound
 * its code shows (pvk_sh_step_bound) each, or, without one, a cap given
 * from the budget (a quarter of what is left over the invocations, at
 * least PVK_GPU_MIN_STEPS, at most PVK_SH_MAX_STEPS), so a draw of programs
 * that run away costs what it was given and leaves room for later draws.
 * *max_steps: where the GPU stops an invocation (the bound or the cap: no
 * invocation runs more than it was charged).  0: the charge does not fit
 * what is left; the CPU path runs the draw, charging what it really runs. */
static uint64_t gpu_charge(pvk_pica *p, unsigned unit, uint64_t code_hash, uint32_t entry, uint64_t n, uint64_t left,
                           uint32_t *max_steps, bool *capped)
{
    uint64_t b = pvk_step_bound_cached(p, unit, code_hash, entry);
    *capped = !b;
    if (b)
        b = b < PVK_SH_MAX_STEPS ? b : PVK_SH_MAX_STEPS;
    else if ((b = left / 4 / (n ? n : 1)) < PVK_GPU_MIN_STEPS)
        b = PVK_GPU_MIN_STEPS;
    else if (b > PVK_SH_MAX_STEPS)
        b = PVK_SH_MAX_STEPS;
    if (!n || b * n > left)
        return 0;
    *max_steps = (uint32_t)b;
    return b * n;
}

/* The geometry-program part of draw_gpu: `vs` is the vertex stage it built
 * (vertices 0..nverts-1 after rebasing), `table` the variable mode's
 * primitives (first element, vertex count).  PVK_ERROR_MISSING_FEATURE: the
 * CPU path, from the state the draw found.  What the GPU path refuses: a
 * topology other than 0 and 3 (strips and fans run across invocations), a
 * program that reads what an earlier invocation left (the unit keeps its
 * registers; pvk_gs_program_stateless) or emits vertex id 3, a last
 * invocation that does not end (replayed on the CPU first), more emitted
 * vertices than PVK_GS_MAX_EMIT_VERTICES could be, or work past the budgets. */
static pvk_result draw_gs_gpu(pvk_pica *p, pvk_draw_packet *pk, const pvk_vs_draw *vs, pvk_vs_draw_uniforms *uni,
                              const pvk_gs_plan *gp, const pvk_attrib_plan *plan, bool elements, uint32_t count,
                              uint32_t nverts, const uint32_t *table, uint32_t nprims)
{
    if (gp->topology != 0 && gp->topology != 3) {
        pvk_pica_debug(p, "geometry program on the CPU: emitted vertices assembled as a %s",
                       gp->topology == 1 ? "strip" : "fan");
        return PVK_ERROR_MISSING_FEATURE;
    }
    const pvk_shader_unit *sh = &p->sh[0];
    uint16_t v_defined = 0;
    if (gp->mode == PVK_GS_POINT)
        for (uint32_t i = 0; i < gp->inputs; i++)
            v_defined |= (uint16_t)(1u << (gp->input_reg[i] & 15u));
    if (!pvk_gs_program_stateless(sh->code, sh->opdesc, gp->entry, v_defined, gp->sem_src)) {
        pvk_pica_debug(p, "geometry program on the CPU: it may read what an earlier invocation left in the unit");
        return PVK_ERROR_MISSING_FEATURE;
    }
    pvk_gs_draw g;
    memset(&g, 0, sizeof g);
    pvk_gs_key *k = &g.key;
    k->vs = vs->key;
    memset(k->vs.sem_src, 0, sizeof k->vs.sem_src);
    k->code_hash = XXH3_64bits(sh->code, sizeof sh->code);
    k->desc_hash = XXH3_64bits(sh->opdesc, sizeof sh->opdesc);
    for (uint32_t i = 0; i < 16; i++)
        k->gs_perm |= (uint64_t)(gp->input_reg[i] & 15u) << (4 * i);
    k->entry = gp->entry;
    for (uint32_t j = 0; j < gp->vs_outputs && j < 16; j++)
        if (gp->vs_out_reg[j] < PVK_SH_OUTPUTS)
            k->vs_out_reg[j] = (uint8_t)(gp->vs_out_reg[j] + 1);
    k->vs_outputs = gp->vs_outputs;
    k->mode = gp->mode == PVK_GS_POINT ? PVK_GS_MODE_POINT : gp->mode == PVK_GS_FIXED ? PVK_GS_MODE_FIXED
                                                                                      : PVK_GS_MODE_VARIABLE;
    k->vertices = gp->vertices;
    k->stride = gp->stride;
    k->uniform_start = gp->first_uniform;
    k->main_vertices = gp->main_vertices;
    memcpy(k->sem_src, gp->sem_src, sizeof k->sem_src);
    k->winding_swaps = gp->topology == 3;
    g.vs = *vs;
    g.code = sh->code;
    g.opdesc = sh->opdesc;
    pvk_vs_uniforms gu; /* as the first invocation finds them */
    pvk_vs_uniforms_pack(sh, sh->b, sh->i, 0, &p->fu_memo[0], &gu);
    g.uniforms = &gu;
    g.vertices = nverts;
    if (gp->mode == PVK_GS_FIXED && count % gp->vertices) {
        /* the CPU path writes the incomplete last one's uniforms: the
         * replay of the last whole invocation would not leave them */
        pvk_pica_debug(p, "geometry program on the CPU: %u vertices are not whole fixed-size primitives", count);
        return PVK_ERROR_MISSING_FEATURE;
    }
    g.prims = gp->mode == PVK_GS_VARIABLE ? nprims : count / gp->vertices;
    g.prim_table = gp->mode == PVK_GS_VARIABLE ? table : NULL;
    g.tri_slots = pvk_gs_emit_bound(sh->code, gp->entry);
    g.max_tris = PVK_GS_MAX_EMIT_VERTICES / 3;
    if (!g.prims) { /* nothing runs the geometry program, as on the CPU path */
        p->counters.vertices += count;
        return PVK_SUCCESS;
    }
    if ((uint64_t)g.prims * (g.tri_slots ? g.tri_slots : 1u) > g.max_tris) {
        pvk_pica_debug(p, "geometry program on the CPU: %u invocations could emit more than %u triangles", g.prims,
                       g.max_tris);
        return PVK_ERROR_MISSING_FEATURE; /* the CPU path may drop it (it counts what is emitted) */
    }
    if (g.tri_slots > PVK_GS_MAX_SLOTS) {
        pvk_pica_debug(p, "geometry program on the CPU: an invocation may emit %u triangles, more than %u slots",
                       g.tri_slots, PVK_GS_MAX_SLOTS);
        return PVK_ERROR_MISSING_FEATURE;
    }
    /* the emitted vertices' charge: the slots the runtime may draw (it
     * picks at most PVK_GS_MAX_SLOTS when the code does not bound them) */
    uint64_t emit_bound = (uint64_t)g.prims * (g.tri_slots ? g.tri_slots : PVK_GS_MAX_SLOTS) * 3u;
    if (emit_bound > p->vertex_budget) {
        pvk_pica_debug(p, "geometry program on the CPU: the call's vertex budget");
        return PVK_ERROR_MISSING_FEATURE;
    }
    /* the last invocation on the CPU: the unit's state after the draw, and
     * a runaway there is the CPU path's to report */
    gs_snapshot snap;
    gs_save(p, &snap);
    if (g.prims > 1)
        p->sh[0].b |= 1u << 15;
    uint32_t from = gp->mode == PVK_GS_VARIABLE ? table[2 * (g.prims - 1)] - 1 : (g.prims - 1) * gp->vertices;
    uint32_t to = gp->mode == PVK_GS_VARIABLE ? table[2 * (g.prims - 1)] + table[2 * (g.prims - 1) + 1]
                                              : g.prims * gp->vertices;
    /* quiet: what it would report, the CPU path reports when it runs the draw */
    void (*report)(void *, pvk_pica_report, pvk_log_level, uint32_t, const char *) = p->env.report;
    p->env.report = NULL;
    pvk_result rr = gs_replay(p, gp, plan, elements, from, to);
    p->env.report = report;
    if (rr) {
        gs_restore(p, &snap);
        pvk_pica_debug(p, "geometry program on the CPU: its last invocation does not end");
        return PVK_ERROR_MISSING_FEATURE;
    }
    /* the shader-instruction budget: both programs' invocations on the GPU
     * (gpu_charge), as the CPU path charges what they run */
    uint32_t vs_steps = 0, gs_steps = 0;
    bool vs_capped = false, gs_capped = false;
    uint64_t vs_charge = gpu_charge(p, 1, vs->key.code_hash, vs->key.entry, nverts, p->budget, &vs_steps, &vs_capped);
    uint64_t gs_charge =
        vs_charge ? gpu_charge(p, 0, k->code_hash, gp->entry, g.prims, p->budget - vs_charge, &gs_steps, &gs_capped)
                  : 0;
    if (!gs_charge) {
        gs_restore(p, &snap);
        p->counters.gpu_budget_fallbacks++;
        pvk_pica_debug(p, "geometry program on the CPU: %u + %u invocations do not fit the call's shader budget "
                          "(%llu instructions left)", nverts, g.prims, (unsigned long long)p->budget);
        return PVK_ERROR_MISSING_FEATURE;
    }
    p->draw_uniforms_version += uni->u.max_steps != vs_steps;
    uni->u.max_steps = vs_steps;
    gu.max_steps = gs_steps;
    pk->vs = NULL;
    pk->gs = &g;
    pk->tri_vertices = (uint32_t)emit_bound; /* the pixel charge: the bound's triangles, each the viewport */
    pvk_result res = submit_gpu(p, pk, count);
    if (res != PVK_ERROR_MISSING_FEATURE) {
        p->counters.gs_gpu_draws++;
        p->vertex_budget -= emit_bound < p->vertex_budget ? emit_bound : p->vertex_budget;
        p->budget -= vs_charge + gs_charge;
        p->counters.gpu_steps += vs_charge + gs_charge;
        p->counters.gpu_capped += vs_capped || gs_capped;
    }
    pk->gs = NULL;
    if (res == PVK_ERROR_MISSING_FEATURE)
        gs_restore(p, &snap);
    return res;
}

/* The GPU path's vertex uniforms (pvk_pica.draw_uniforms): the float,
 * integer and boolean uniforms and the fixed attributes' values, rebuilt
 * when a write or a new attribute plan may have changed them; the version
 * moves when their bytes do (max_steps is the draw's: gpu_charge). */
static pvk_vs_draw_uniforms *draw_uniforms(pvk_pica *p, const pvk_attrib_plan *plan)
{
    pvk_vs_draw_uniforms *uni = &p->draw_uniforms;
    bool reuse = p->draw_uniforms_built && !(p->dirty & (PVK_DIRTY_VS_UNIFORM | PVK_DIRTY_FIXED_ATTR)) &&
                 p->draw_uniforms_plan == p->attrib_memo.builds;
#ifdef NDEBUG
    if (reuse)
        return uni;
#endif
    pvk_vs_draw_uniforms next; /* compared whole: no padding garbage */
    memset(&next, 0, sizeof next);
    for (uint32_t i = 0; i < plan->attribs; i++)
        memcpy(next.fixed[i], plan->a[i].fixed_value, sizeof next.fixed[i]);
    const pvk_shader_unit *sh = &p->sh[1];
    pvk_vs_uniforms_pack(sh, sh->b, sh->i, 0, &p->fu_memo[1], &next.u);
    next.u.max_steps = uni->u.max_steps;
    assert(!reuse || !memcmp(&next, uni, sizeof next)); /* debug builds check every reuse */
    if (!p->draw_uniforms_built || memcmp(&next, uni, sizeof next)) {
        *uni = next;
        p->draw_uniforms_version++;
    }
    p->draw_uniforms_built = true;
    p->draw_uniforms_plan = p->attrib_memo.builds;
    return uni;
}

/* DRAWARRAYS/DRAWELEMENTS with the vertex program on the GPU: the packet
 * names guest ranges instead of carrying vertices.  Only the index buffer is
 * read here (once per index: bounds, and widening u8 or unaligned u16
 * indices).  PVK_ERROR_MISSING_FEATURE: run the CPU path instead (ranges
 * that are not one piece of guest memory, misaligned attributes, a program
 * the translator does not take whole, a device without a vertex format);
 * that path then reports what is really bad. */
static pvk_result draw_gpu(pvk_pica *p, pvk_draw_packet *pk, const pvk_attrib_plan *plan, bool elements,
                           uint32_t count, uint32_t mode, const pvk_gs_plan *gp)
{
    bool variable = gp && gp->mode == PVK_GS_VARIABLE;
    uint32_t *table = NULL, nprims = 0; /* variable-size primitives: (first element, vertices) each */
    uint32_t *tri = NULL;                /* strips and fans: the CPU path's triangle list */
    const uint32_t *r = p->regs;
    pvk_vs_draw vs;
    memset(&vs, 0, sizeof vs);
    vs.count = count;
    vs.indexed = elements;
    uint16_t *wide = NULL;
    uint64_t first = 0, last = 0; /* vertices read */
    if (elements) {
        uint32_t cfg = r[PVK_GPUREG_INDEXBUFFER_CONFIG];
        bool u16 = pvk_indexbuffer_u16(cfg);
        uint64_t addr = ((uint64_t)pvk_attribbuffers_loc(r[PVK_GPUREG_ATTRIBBUFFERS_LOC]) << 4) +
                        pvk_indexbuffer_offset(cfg);
        uint32_t len = count * (u16 ? 2u : 1u);
        const uint8_t *q = addr + len <= UINT32_MAX && p->env.guest_read
                               ? p->env.guest_read(p->env.user, (uint32_t)addr, len)
                               : NULL;
        if (!q)
            return PVK_ERROR_MISSING_FEATURE;
        /* the table: two entries per primitive, a trailing count's included
         * (each takes at least one element: at most 2 * count entries) */
        if (!(wide = malloc(sizeof *wide * count)) ||
            (variable && !(table = malloc(sizeof *table * 2 * (size_t)count))))
            goto oom;
        uint32_t lo = UINT32_MAX, hi = 0, left = 0, prev = 0;
        for (uint32_t i = 0; i < count; i++) {
            uint32_t x = u16 ? (uint32_t)(q[2 * i] | q[2 * i + 1] << 8) : q[i];
            wide[i] = (uint16_t)x;
            if (variable && !left) { /* a primitive's vertex count (translator/gs.c) */
                /* an empty primitive, or one past c95: the CPU path logs it */
                if (!x || 1u + gp->vs_outputs * (x < gp->main_vertices ? x : gp->main_vertices) +
                                  (x > gp->main_vertices ? x - gp->main_vertices : 0) > PVK_SH_FLOAT_UNIFORMS) {
                    free(wide);
                    free(table);
                    return PVK_ERROR_MISSING_FEATURE;
                }
                /* The CPU path's c-registers keep what an earlier, larger
                 * primitive wrote past a smaller one's range, while every
                 * GPU invocation starts from the draw's uniforms: the two
                 * agree when counts never decrease (each primitive's range
                 * covers the earlier ones', so the replayed last one also
                 * leaves the CPU path's state). */
                if (x < prev) {
                    free(wide);
                    free(table);
                    pvk_pica_debug(p, "geometry program on the CPU: a variable-size primitive smaller than the one "
                                      "before it sees that one's uniforms");
                    return PVK_ERROR_MISSING_FEATURE;
                }
                table[2 * nprims] = i + 1, table[2 * nprims + 1] = x;
                left = prev = x;
                continue;
            }
            lo = x < lo ? x : lo, hi = x > hi ? x : hi;
            if (variable && !--left)
                nprims++; /* complete */
        }
        if (left) { /* an incomplete last primitive is not run, but fills c0 onwards on the CPU path */
            free(wide);
            free(table);
            pvk_pica_debug(p, "geometry program on the CPU: an incomplete last variable-size primitive");
            return PVK_ERROR_MISSING_FEATURE;
        }
        if (lo > hi) { /* no vertex at all */
            free(wide);
            free(table);
            p->counters.vertices += count;
            return PVK_SUCCESS;
        }
        first = lo, last = hi;
        vs.index16 = wide;
        vs.vertex_offset = -(int32_t)lo;
    } else {
        first = r[PVK_GPUREG_VERTEX_OFFSET];
        last = first + count - 1;
    }
    pvk_result res = PVK_ERROR_MISSING_FEATURE;
    pvk_vs_key *k = &vs.key;
    uint64_t total = 0; /* bytes the runtime copies */
    for (uint32_t b = 0; b < plan->buffers; b++) {
        const struct pvk_attrib_buffer *ab = &plan->buf[b];
        if (!ab->extent)
            continue; /* only padding or unused attributes */
        uint64_t addr = (uint64_t)plan->base + ab->offset + first * ab->stride;
        uint64_t len = (last - first) * ab->stride + ab->extent;
        total += len;
        if (addr + len > UINT32_MAX || total > PVK_VS_DRAW_MAX_BYTES || !p->env.guest_read ||
            !p->env.guest_read(p->env.user, (uint32_t)addr, (uint32_t)len))
            goto out;
        uint32_t bi = k->bindings++;
        vs.buf_addr[bi] = (uint32_t)addr;
        vs.buf_len[bi] = (uint32_t)len;
        k->stride[bi] = (uint8_t)ab->stride;
        for (uint32_t i = 0; i < plan->attribs; i++) {
            if (!plan->a[i].loaded || plan->a[i].buf != b)
                continue;
            uint32_t size = elem_bytes[plan->a[i].type];
            if ((addr + plan->a[i].offset) % size || ab->stride % size)
                goto out; /* Vulkan reads components at their alignment */
            k->fmt[i] = (uint8_t)(1 + plan->a[i].type + 4 * (plan->a[i].comps - 1u));
            k->binding[i] = (uint8_t)bi;
            k->offset[i] = plan->a[i].offset;
        }
    }
    for (uint32_t i = 0; i < plan->attribs; i++) {
        k->reg[i] = plan->a[i].reg;
        if (plan->a[i].fixed)
            k->fixed |= (uint16_t)(1u << i);
    }
    const pvk_shader_unit *sh = &p->sh[1];
    if (!p->vs_hashed) {
        p->vs_code_hash = XXH3_64bits(sh->code, sizeof sh->code);
        p->vs_desc_hash = XXH3_64bits(sh->opdesc, sizeof sh->opdesc);
        p->vs_hashed = true;
    }
    k->code_hash = p->vs_code_hash;
    k->desc_hash = p->vs_desc_hash;
    k->entry = pvk_sh_entrypoint(r[PVK_GPUREG_VSH_ENTRYPOINT]);
    if (p->dirty & (PVK_DIRTY_OUTMAP | PVK_DIRTY_VS_CONFIG))
        pvk_vs_outmap_sources(p, p->outmap_src);
    memcpy(k->sem_src, p->outmap_src, sizeof k->sem_src);
    pvk_vs_draw_uniforms *uni = draw_uniforms(p, plan);
    /* every memo of the draw's state is up to date: the next draw reuses
     * them while these bits stay clear */
    p->dirty &= ~(uint32_t)(PVK_DIRTY_PACKET | PVK_DIRTY_ATTRIB | PVK_DIRTY_OUTMAP | PVK_DIRTY_VS_UNIFORM);
    vs.code = sh->code;
    vs.opdesc = sh->opdesc;
    vs.uniforms = uni;
    if (gp) {
        /* the shader budget: draw_gs_gpu (gpu_charge) */
        res = draw_gs_gpu(p, pk, &vs, uni, gp, plan, elements, count, (uint32_t)(last - first + 1), table, nprims);
        goto out;
    }
    pk->vs = &vs;
    pk->tri_vertices = mode == 1 || mode == 2 ? (count >= 3 ? 3 * (count - 2) : 0) : count / 3 * 3;
    if (pk->tri_vertices && (mode == 1 || mode == 2)) {
        /* strips and fans as the list the CPU path assembles, vertex for
         * vertex (pvk_vs_draw.tri_index): the same triangles from the same
         * first corner, so clipping rounds the same way */
        if (!(tri = malloc(sizeof *tri * pk->tri_vertices))) {
            res = PVK_ERROR_OUT_OF_MEMORY;
            goto out;
        }
        vs.tri_count = pvk_assemble_triangles(mode, count, tri);
        if (elements)
            for (uint32_t i = 0; i < vs.tri_count; i++)
                tri[i] = wide[tri[i]];
        vs.tri_index = tri;
    }
    if (!pk->tri_vertices) {
        res = PVK_SUCCESS; /* nothing to draw, as on the CPU path */
        p->counters.vertices += count;
    } else {
        /* the call's shader-instruction budget: count invocations at the
         * program's bound, or at a cap given from the budget (gpu_charge) */
        bool capped = false;
        uint32_t steps = uni->u.max_steps;
        uint64_t charge = gpu_charge(p, 1, k->code_hash, k->entry, count, p->budget, &uni->u.max_steps, &capped);
        p->draw_uniforms_version += uni->u.max_steps != steps;
        vs.uniforms_version = p->draw_uniforms_version;
        if (!charge) {
            p->counters.gpu_budget_fallbacks++;
            pvk_pica_debug(p, "vertex program on the CPU: %u invocations do not fit the call's shader budget "
                              "(%llu instructions left)", count, (unsigned long long)p->budget);
            res = PVK_ERROR_MISSING_FEATURE;
        } else if ((res = submit_gpu(p, pk, count)) != PVK_ERROR_MISSING_FEATURE) {
            p->budget -= charge;
            p->counters.gpu_steps += charge;
            p->counters.gpu_capped += capped;
        }
    }
out:
    pk->vs = NULL;
    free(wide);
    free(table);
    free(tri);
    return res;
oom:
    free(wide);
    free(table);
    return PVK_ERROR_OUT_OF_MEMORY;
}

pvk_result pvk_vertex_draw(pvk_pica *p, bool elements)
{
    p->imm_vertices = 0;
    uint32_t count = p->regs[PVK_GPUREG_NUMVERTICES];
    pvk_draw_packet pk = {.kind = elements ? PVK_DRAW_ELEMENTS : PVK_DRAW_ARRAYS, .vertices = count};
    if (!packet_state(p, &pk) || count == 0)
        return PVK_SUCCESS;
    if (count > PVK_MAX_DRAW_VERTICES) {
        pvk_pica_bad_input(p, "draw of %u vertices exceeds picavk's limit of %u; dropped", count,
                           PVK_MAX_DRAW_VERTICES);
        return PVK_SUCCESS;
    }
    const pvk_attrib_plan *plan;
    if (pvk_attrib_plan_get(p, &plan))
        return PVK_SUCCESS; /* logged and counted */
    pvk_result r = pvk_charge_vertices(p, count);
    if (r)
        return r;
    uint32_t mode = pvk_primitive_mode(p->regs[PVK_GPUREG_PRIMITIVE_CONFIG]);
    bool gs = geometry_stage(p);
    pvk_gs_plan gp;
    if (gs && pvk_gs_plan_build(p, pk.kind, &gp))
        return PVK_SUCCESS; /* logged and counted: dropped */
    if (p->env.gpu_vs) {
        r = draw_gpu(p, &pk, plan, elements, count, mode, gs ? &gp : NULL);
        if (r != PVK_ERROR_MISSING_FEATURE)
            return r == PVK_ERROR_OUT_OF_RANGE || r == PVK_ERROR_BAD_PARAMETERS ? PVK_SUCCESS : r;
        if (gs)
            p->counters.gs_fallbacks++;
    }
    if (gs)
        return draw_gs(p, &pk, plan, elements, count, &gp);
    pvk_vertex *verts = malloc(sizeof *verts * count);
    uint32_t *idx = malloc(sizeof *idx * 3 * (size_t)count);
    if (!verts || !idx) {
        r = PVK_ERROR_OUT_OF_MEMORY;
        goto out;
    }
    for (uint32_t i = 0; i < count; i++) {
        uint32_t index;
        float v[PVK_SH_INPUTS][4] = {{0}}, o[PVK_SH_OUTPUTS][4] = {{0}};
        if ((r = pvk_draw_vertex_index(p, elements, i, &index)) || (r = pvk_attrib_fetch(p, plan, index, v)))
            goto out; /* bad attributes: logged, counted, the draw is dropped */
        if ((r = run_vs(p, v, o)))
            goto out;
        pvk_vs_outmap(p, o, &verts[i]);
    }
    p->counters.vertices += count;
    uint32_t n = pvk_assemble_triangles(mode, count, idx);
    pk.verts = verts;
    pk.index = idx;
    pk.tri_vertices = n;
    if (n && !(r = charge_area(p, &pk)))
        r = submit(p, &pk);
out:
    free(verts);
    free(idx);
    return r == PVK_ERROR_OUT_OF_RANGE || r == PVK_ERROR_BAD_PARAMETERS ? PVK_SUCCESS : r;
}

/* An immediate-mode vertex through the geometry shader: the input buffer
 * fills across vertices (FIXEDATTRIB_INDEX = 0xF starts it empty, as Citra
 * resets its geometry pipeline there; its hardware test found immediate
 * mode feeds the geometry shader); what an invocation emits is one packet. */
static pvk_result immediate_gs(pvk_pica *p, const float o[PVK_SH_OUTPUTS][4])
{
    pvk_gs_plan gp;
    if (pvk_gs_plan_build(p, PVK_DRAW_IMMEDIATE, &gp))
        return PVK_SUCCESS; /* logged and counted: dropped */
    pvk_gs_sink sink = {0};
    pvk_result r = pvk_gs_vertex(p, &gp, o, &sink);
    if (!r && sink.count) {
        pvk_draw_packet pk = {.kind = PVK_DRAW_IMMEDIATE, .vertices = 1};
        if (packet_state(p, &pk))
            r = submit_gs(p, &pk, &gp, &sink);
    }
    free(sink.verts);
    free(sink.winding);
    return r == PVK_ERROR_OUT_OF_RANGE || r == PVK_ERROR_BAD_PARAMETERS ? PVK_SUCCESS : r;
}

pvk_result pvk_vertex_immediate(pvk_pica *p, const uint32_t (*attrs)[4], uint32_t n)
{
    if (p->dirty & PVK_DIRTY_PRIMITIVE) {
        p->dirty &= ~(uint32_t)PVK_DIRTY_PRIMITIVE;
        p->imm_vertices = 0;
    }
    float v[PVK_SH_INPUTS][4] = {{0}}, o[PVK_SH_OUTPUTS][4] = {{0}};
    uint64_t perm = p->regs[PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_LOW] |
                    (uint64_t)p->regs[PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_HIGH] << 32;
    for (uint32_t a = 0; a < n && a < PVK_MAX_ATTRIBS; a++)
        for (int c = 0; c < 4; c++) {
            uint32_t bits = pvk_f24_to_f32(attrs[a][c]);
            memcpy(&v[(perm >> (4 * a)) & 0xF][c], &bits, 4);
        }
    pvk_vertex vx;
    pvk_result r = pvk_charge_vertices(p, 1);
    if (!r)
        r = run_vs(p, v, o);
    if (r)
        return r; /* stops the list: see run_vs */
    p->counters.vertices++;
    if (geometry_stage(p))
        return immediate_gs(p, o);
    pvk_vs_outmap(p, o, &vx);
    uint32_t mode = pvk_primitive_mode(p->regs[PVK_GPUREG_PRIMITIVE_CONFIG]);
    uint32_t k = p->imm_vertices++;
    pvk_vertex *keep = p->imm_tri;
    /* keep what the next triangle needs: list 3, strip last 2, fan first + last */
    pvk_vertex tri[3];
    bool done = false;
    if (mode == 1 || mode == 2) {
        if (k >= 2) {
            if (mode == 2)
                tri[0] = keep[0], tri[1] = keep[1], tri[2] = vx;
            else if (k & 1)
                tri[0] = keep[1], tri[1] = keep[0], tri[2] = vx;
            else
                tri[0] = keep[0], tri[1] = keep[1], tri[2] = vx;
            done = true;
        }
        if (mode == 2 && k >= 1)
            keep[1] = vx;
        else if (mode == 1 && k >= 2)
            keep[0] = keep[1], keep[1] = vx;
        else
            keep[k] = vx;
    } else {
        keep[k % 3] = vx;
        if (k % 3 == 2) {
            tri[0] = keep[0], tri[1] = keep[1], tri[2] = keep[2];
            done = true;
        }
    }
    if (!done)
        return PVK_SUCCESS;
    static const uint32_t tri_index[3] = {0, 1, 2};
    pvk_draw_packet pk = {.kind = PVK_DRAW_IMMEDIATE, .vertices = 1, .verts = tri, .index = tri_index, .tri_vertices = 3};
    if (!packet_state(p, &pk))
        return PVK_SUCCESS;
    if ((r = charge_area(p, &pk)))
        return r;
    return submit(p, &pk);
}
