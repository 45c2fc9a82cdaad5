/* The output merger and TEV registers decoded into the pipeline key, the
 * fragment shader key and the fragment uniforms (seed 000; 3dbrew "GPU/
 * Internal Registers" 0x0C0-0x0FD for the combiners). */
#include <stdbool.h>
#include <string.h>

#include "translator/translator.h"

/* TEXENVi_* register blocks: stages 0-3 are 8 apart from 0x0C0, 4-5 from 0x0F0. */
static const uint16_t tev_base[6] = {
    PVK_GPUREG_TEXENV0_SOURCE, PVK_GPUREG_TEXENV1_SOURCE, PVK_GPUREG_TEXENV2_SOURCE,
    PVK_GPUREG_TEXENV3_SOURCE, PVK_GPUREG_TEXENV4_SOURCE, PVK_GPUREG_TEXENV5_SOURCE,
};

/* How many of a stage's three arguments combine mode `mode` reads (0 for
 * the unknown modes, which give 0; dot3 only in colour). */
static unsigned tev_args(unsigned mode, bool alpha)
{
    switch (mode) {
    case PVK_TEV_REPLACE: return 1;
    case PVK_TEV_MODULATE: case PVK_TEV_ADD: case PVK_TEV_ADD_SIGNED: case PVK_TEV_SUBTRACT: return 2;
    case PVK_TEV_DOT3_RGB: case PVK_TEV_DOT3_RGBA: return alpha ? 0 : 2;
    case PVK_TEV_LERP: case PVK_TEV_MUL_ADD: case PVK_TEV_ADD_MUL: return 3;
    default: return 0;
    }
}

/* One key for each distinct computation: stage 0's "previous" in colour
 * arguments 1 and 2 becomes what it reads (argument 3's source, 0 when that
 * is "previous" too), then the sources and operands a mode does not read
 * (after dot3_rgba all of alpha's) and the unknown scale 3 (x1) are zeroed,
 * and unknown modes (which give 0) are one code; so registers left over in unused fields compile no new shader. */
static void tev_canonical(pvk_tev_stage *st, unsigned n)
{
    for (unsigned i = 0; n == 0 && i < 2; i++)
        if (st->rgb_src[i] == PVK_TEV_SRC_PREVIOUS)
            st->rgb_src[i] = st->rgb_src[2] == PVK_TEV_SRC_PREVIOUS ? PVK_TEV_SRC_ZERO : st->rgb_src[2];
    unsigned rgb = tev_args(st->rgb_combine, false), alpha = tev_args(st->alpha_combine, true);
    if (!tev_args(st->rgb_combine, false))
        st->rgb_combine = 0xF;
    if (st->rgb_combine == PVK_TEV_DOT3_RGBA) { /* alpha is the dot product too (scaled by the alpha scale) */
        st->alpha_combine = 0;
        alpha = 0;
    } else if (!alpha) { /* an unknown alpha mode gives 0 */
        st->alpha_combine = 0xF;
        st->alpha_scale = 0;
    }
    for (unsigned i = 0; i < 3; i++) {
        if (i >= rgb)
            st->rgb_src[i] = st->rgb_op[i] = 0;
        if (i >= alpha)
            st->alpha_src[i] = st->alpha_op[i] = 0;
    }
    if (st->rgb_scale > 2)
        st->rgb_scale = 0;
    if (st->alpha_scale > 2)
        st->alpha_scale = 0;
}

void pvk_frag_state_get(const pvk_pica *p, pvk_pipe_key *pipe, pvk_fs_key *fs, pvk_fs_uniforms *uni,
                        uint32_t *blend_color, const pvk_tex_desc *units)
{
    const uint32_t *r = p->regs;
    memset(pipe, 0, sizeof *pipe);
    memset(fs, 0, sizeof *fs);
    memset(uni, 0, sizeof *uni);

    uint32_t bf = r[PVK_GPUREG_BLEND_FUNC];
    pipe->blend = (uint8_t)pvk_colorop_blend(r[PVK_GPUREG_COLOR_OPERATION]);
    if (pipe->blend) {
        pipe->rgb_eq = (uint8_t)pvk_blend_rgb_eq(bf);
        pipe->alpha_eq = (uint8_t)pvk_blend_alpha_eq(bf);
        pipe->rgb_src = (uint8_t)pvk_blend_rgb_src(bf);
        pipe->rgb_dst = (uint8_t)pvk_blend_rgb_dst(bf);
        pipe->alpha_src = (uint8_t)pvk_blend_alpha_src(bf);
        pipe->alpha_dst = (uint8_t)pvk_blend_alpha_dst(bf);
    } else {
        pipe->logic_op = (uint8_t)pvk_logic_op(r[PVK_GPUREG_LOGIC_OP]);
    }
    /* no colour writes at all without the buffer's write access */
    if (pvk_colorbuffer_access(r[PVK_GPUREG_COLORBUFFER_WRITE]))
        pipe->color_mask = (uint8_t)pvk_color_write_mask(r[PVK_GPUREG_DEPTH_COLOR_MASK]);
    *blend_color = r[PVK_GPUREG_BLEND_COLOR];

    for (unsigned s = 0; s < 6; s++) {
        const uint32_t *t = r + tev_base[s];
        pvk_tev_stage *st = &fs->stage[s];
        for (unsigned i = 0; i < 3; i++) {
            st->rgb_src[i] = (uint8_t)pvk_texenv_rgb_source(t[0], i);
            st->alpha_src[i] = (uint8_t)pvk_texenv_alpha_source(t[0], i);
            st->rgb_op[i] = (uint8_t)pvk_texenv_rgb_operand(t[1], i);
            st->alpha_op[i] = (uint8_t)pvk_texenv_alpha_operand(t[1], i);
        }
        st->rgb_combine = (uint8_t)pvk_texenv_rgb_combine(t[2]);
        st->alpha_combine = (uint8_t)pvk_texenv_alpha_combine(t[2]);
        uni->tev_color[s] = t[3];
        st->rgb_scale = (uint8_t)pvk_texenv_rgb_scale(t[4]);
        st->alpha_scale = (uint8_t)pvk_texenv_alpha_scale(t[4]);
        tev_canonical(st, s);
    }
    uint32_t ub = r[PVK_GPUREG_TEXENV_UPDATE_BUFFER];
    fs->buffer_rgb = (uint8_t)((ub >> 8) & 0xF);
    fs->buffer_alpha = (uint8_t)((ub >> 12) & 0xF);
    uni->buffer_color = r[PVK_GPUREG_TEXENV_BUFFER_COLOR];
    uint32_t at = r[PVK_GPUREG_FRAGOP_ALPHA_TEST];
    fs->alpha_test = (uint8_t)pvk_alpha_test_enable(at);
    if (fs->alpha_test)
        fs->alpha_func = (uint8_t)pvk_alpha_test_func(at);
    uni->alpha_ref = pvk_alpha_test_ref(at);

    /* texture units 0-2: which sample, unit 0's type, texture 2's coordinates */
    for (unsigned u = 0; u < 3; u++) {
        pvk_tex_desc d;
        if (units)
            d = units[u];
        else
            pvk_tex_desc_get(p, u, &d);
        if (!d.enabled)
            continue;
        fs->tex.enable |= (uint8_t)(1u << u);
        uni->tex_border[u] = d.border;
        if (u == 0) {
            fs->tex.type0 = (uint8_t)d.type;
            if (d.type == PVK_TEXTYPE_SHADOW_2D || d.type == PVK_TEXTYPE_SHADOW_CUBE) {
                fs->tex.shadow_ortho = !d.shadow_perspective;
                uni->shadow_bias = d.shadow_bias_fixed;
            }
        }
        if (u == 2)
            fs->tex.tex2_tc1 = d.coords == 1;
    }
}
