/* The output merger and TEV registers decoded into the pipeline key, the
 * fragment shader key and the fragment uniforms (seed 000; 3dbrew "GPU/
 * Internal Registers" 0x0C0-0x0FD for the combiners). */
#include <string.h>

#include "translator/translator.h"

/* TEXENVi_* register blocks: stages 0-3 are 8 apart from 0x0C0, 4-5 from 0x0F0. */
static const uint16_t tev_base[6] = {
    PVK_GPUREG_TEXENV0_SOURCE, PVK_GPUREG_TEXENV1_SOURCE, PVK_GPUREG_TEXENV2_SOURCE,
    PVK_GPUREG_TEXENV3_SOURCE, PVK_GPUREG_TEXENV4_SOURCE, PVK_GPUREG_TEXENV5_SOURCE,
};

void pvk_frag_state_get(const pvk_pica *p, pvk_pipe_key *pipe, pvk_fs_key *fs, pvk_fs_uniforms *uni,
                        uint32_t *blend_color)
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
    pvk_texunit_config cfg;
    pvk_texunit_config_get(p, &cfg);
    for (unsigned u = 0; u < 3; u++) {
        pvk_tex_desc d;
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
