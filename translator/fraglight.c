/* Fog, fragment lighting and procedural-texture registers decoded into the
 * fragment shader key (pvk_fs_fraglight_key) and the parameter block
 * (pvk_fs_params).  Field layouts: 3dbrew "GPU/Internal Registers"
 * (TEXENV_UPDATE_BUFFER, FOG_*, LIGHT*, LIGHTING_*, TEXUNIT3_PROCTEX*),
 * named once in regs.h.  What picavk does not emulate is counted as
 * unsupported on every draw that uses it and logged once. */
#include <math.h>
#include <string.h>

#include "translator/translator.h"

/* float1.5.10 (half precision: bias 15, denormals as IEEE's). */
static float f16(uint32_t v)
{
    uint32_t e = (v >> 10) & 0x1F, m = v & 0x3FF;
    float f = e ? ldexpf((float)(m | 0x400), (int)e - 25) : ldexpf((float)m, -24);
    return (v & 0x8000) ? -f : f;
}

/* float1.7.12 (bias 63; exponent 0 is zero). */
static float f20(uint32_t v)
{
    uint32_t e = (v >> 12) & 0x7F, m = v & 0xFFF;
    float f = e ? ldexpf((float)(m | 0x1000), (int)e - 63 - 12) : 0.0f;
    return (v & 0x80000) ? -f : f;
}

/* SPOTDIR's fixed1.1.11 (13-bit two's complement) over 2047, as Citra,
 * checked against hardware, reads it. */
static float fix13(uint32_t v)
{
    int32_t x = (int32_t)(v << 19) >> 19;
    return (float)x / 2047.0f;
}

/* LIGHTi_* colour (B bits 0-7, G 10-17, R 20-27) as R | G << 8 | B << 16. */
static uint32_t light_color(uint32_t v)
{
    return pvk_light_color_r(v) | pvk_light_color_g(v) << 8 | pvk_light_color_b(v) << 16;
}

/* Which LUTs each light environment configuration has (LIGHTING_CONFIG0
 * bits 4-7; 3dbrew's table), bit per PVK_LUT_*; DA is in all of them. */
static uint8_t config_luts(uint32_t config, bool *known)
{
    enum { D0 = 1 << PVK_LUT_D0, D1 = 1 << PVK_LUT_D1, SP = 1 << PVK_LUT_SP, FR = 1 << PVK_LUT_FR,
           RB = 1 << PVK_LUT_RB, RG = 1 << PVK_LUT_RG, RR = 1 << PVK_LUT_RR, ALL = 0x7F };
    *known = true;
    switch (config) {
    case 0: return D0 | RR | SP;
    case 1: return FR | RR | SP;
    case 2: return D0 | D1 | RR;
    case 3: return D0 | D1 | FR;
    case 4: return ALL & ~FR;
    case 5: return ALL & ~D1;
    case 6: return ALL & ~(RB | RG);
    case 8: return ALL;
    default: *known = false; return ALL; /* 7, 9-15: undocumented */
    }
}

enum { LOG_GAS = 0, LOG_BUMP, LOG_CONFIG, LOG_FOG_MODE, LOG_PROCTEX_COORDS, LOG_PROCTEX_FILTER };

static void unsupported(pvk_pica *p, unsigned what, const char *msg)
{
    if (p->fraglight_logged & (1u << what)) {
        pvk_pica_count(p, PVK_PICA_UNSUPPORTED, 1);
        return;
    }
    p->fraglight_logged |= 1u << what;
    pvk_pica_unsupported(p, "draw: %s", msg);
}

static void get_fog(pvk_pica *p, pvk_fs_fraglight_key *k, pvk_fs_params *prm)
{
    uint32_t ub = p->regs[PVK_GPUREG_TEXENV_UPDATE_BUFFER];
    uint32_t mode = pvk_fog_mode(ub);
    if (mode == 5) {
        k->fog = 1;
        k->fog_flip = (uint8_t)pvk_fog_z_flip(ub);
        prm->fog_color = p->regs[PVK_GPUREG_FOG_COLOR] & 0xFFFFFFu;
    } else if (mode == 7) {
        /* Gas shading.  Public sources give its registers, its LUT layout and
         * how citro3d drives it, not its arithmetic, and no emulator has it
         * to compare with (docs/shaders.md, "Gas rendering").  A gas draw is one
         * unsupported event: with fragment operation mode 1 (the density
         * accumulation pass) vertex.c counts the draw, so not again here. */
        if (pvk_colorop_fragment_mode(p->regs[PVK_GPUREG_COLOR_OPERATION]) != 1)
            unsupported(p, LOG_GAS, "gas shading (fog mode 7) is not emulated; drawn without fog");
    } else if (mode != 0) {
        unsupported(p, LOG_FOG_MODE, "fog modes other than 0, 5 and 7 are undocumented; drawn without fog");
    }
}

static void get_lighting(pvk_pica *p, pvk_fs_fraglight_key *k, pvk_fs_params *prm)
{
    const uint32_t *r = p->regs;
    if (!pvk_lighting_enable0(r[PVK_GPUREG_LIGHTING_ENABLE0]))
        return;
    uint32_t c0 = r[PVK_GPUREG_LIGHTING_CONFIG0], c1 = r[PVK_GPUREG_LIGHTING_CONFIG1];
    k->light = 1;
    k->num_lights = (uint8_t)(pvk_lighting_num_lights_m1(r[PVK_GPUREG_LIGHTING_NUM_LIGHTS]) + 1);
    k->config = (uint8_t)pvk_lighting_config(c0);
    bool known;
    uint8_t have = config_luts(k->config, &known);
    if (!known)
        unsupported(p, LOG_CONFIG, "lighting configuration 7 or 9-15 is undocumented; taken as configuration 7 (8)");
    k->fresnel = (uint8_t)pvk_lighting_fresnel(c0);
    k->clamp_highlights = (uint8_t)pvk_lighting_clamp_highlights(c0);
    k->bump_mode = (uint8_t)pvk_lighting_bump_mode(c0);
    if (k->bump_mode == 3) {
        unsupported(p, LOG_BUMP, "bump mode 3 is undocumented; lit with the interpolated normal");
        k->bump_mode = 0;
    }
    if (k->bump_mode) {
        k->bump_unit = (uint8_t)pvk_lighting_bump_unit(c0); /* 3: the procedural texture */
        k->bump_renorm = (uint8_t)(k->bump_mode == 1 && !pvk_lighting_bump_no_renorm(c0));
    }
    /* CONFIG1 bits 16, 17, 19-22 disable D0, D1, FR, RB, RG, RR; SP and DA are per light */
    static const uint8_t disable_bit[PVK_LUT_INPUTS] = {16, 17, 0xFF, 19, 20, 21, 22};
    uint32_t abs = r[PVK_GPUREG_LIGHTING_LUTINPUT_ABS], sel = r[PVK_GPUREG_LIGHTING_LUTINPUT_SELECT],
             scale = r[PVK_GPUREG_LIGHTING_LUTINPUT_SCALE];
    for (unsigned l = 0; l < PVK_LUT_INPUTS; l++) {
        bool on = (have >> l) & 1;
        if (disable_bit[l] != 0xFF && (c1 >> disable_bit[l] & 1))
            on = false;
        k->lut_on |= (uint8_t)(on << l);
        k->lut_abs |= (uint8_t)(!((abs >> (4 * l + 1)) & 1) << l); /* bit set: abs() disabled */
        k->lut_input[l] = (uint8_t)pvk_lighting_lut_field(sel, l);
        k->lut_scale[l] = (uint8_t)pvk_lighting_lut_field(scale, l);
    }
    bool sp = (have >> PVK_LUT_SP) & 1;
    bool shadow = pvk_lighting_shadow_enable(c0);
    uint32_t perm = r[PVK_GPUREG_LIGHTING_LIGHT_PERMUTATION];
    for (unsigned i = 0; i < k->num_lights; i++) {
        pvk_fs_light *L = &k->lights[i];
        uint32_t id = pvk_lighting_permutation(perm, i);
        const uint32_t *lr = r + 0x140 + 0x10 * id;
        uint32_t cfg = lr[9];
        L->id = (uint8_t)id;
        L->directional = (uint8_t)pvk_light_directional(cfg);
        L->two_sided = (uint8_t)pvk_light_two_side(cfg);
        L->geo0 = (uint8_t)pvk_light_geo_factor0(cfg);
        L->geo1 = (uint8_t)pvk_light_geo_factor1(cfg);
        L->spot = (uint8_t)(sp && !((c1 >> (8 + id)) & 1));
        L->dist_atten = (uint8_t)!((c1 >> (24 + id)) & 1);
        L->shadow = (uint8_t)(shadow && !((c1 >> id) & 1));
    }
    if (shadow) /* the shadow unit's texel attenuates (glsl_light.c) */
        k->shadow_atten = (uint8_t)(PVK_SHADOW_ATTEN_ON | pvk_lighting_shadow_unit(c0) |
                                    pvk_lighting_shadow_primary(c0) << 2 | pvk_lighting_shadow_secondary(c0) << 3 |
                                    pvk_lighting_shadow_invert(c0) << 4 | pvk_lighting_shadow_alpha(c0) << 5);
    for (unsigned id = 0; id < 8; id++) {
        const uint32_t *lr = r + 0x140 + 0x10 * id;
        pvk_fs_light_params *lp = &prm->light[id];
        lp->specular0 = light_color(lr[0]);
        lp->specular1 = light_color(lr[1]);
        lp->diffuse = light_color(lr[2]);
        lp->ambient = light_color(lr[3]);
        lp->pos[0] = f16(pvk_light_f16_low(lr[4]));
        lp->pos[1] = f16(pvk_light_f16_high(lr[4]));
        lp->pos[2] = f16(pvk_light_f16_low(lr[5]));
        lp->spot[0] = fix13(pvk_light_spot_low(lr[6]));
        lp->spot[1] = fix13(pvk_light_spot_high(lr[6]));
        lp->spot[2] = fix13(pvk_light_spot_low(lr[7]));
        lp->atten_bias = f20(pvk_light_attenuation(lr[10]));
        lp->atten_scale = f20(pvk_light_attenuation(lr[11]));
    }
    prm->ambient = light_color(r[PVK_GPUREG_LIGHTING_AMBIENT]);
}

static void get_proctex(pvk_pica *p, pvk_fs_fraglight_key *k, pvk_fs_params *prm)
{
    const uint32_t *r = p->regs;
    uint32_t cfg = r[PVK_GPUREG_TEXUNIT_CONFIG];
    if (!pvk_texunit3_enable(cfg))
        return;
    uint32_t p0 = r[PVK_GPUREG_TEXUNIT3_PROCTEX0], p4 = r[PVK_GPUREG_TEXUNIT3_PROCTEX4];
    k->proctex = 1;
    k->pt_coords = (uint8_t)pvk_texunit3_coords(cfg);
    if (k->pt_coords > 2) {
        k->pt_coords = 2; /* 3 is undocumented (pvk_tex_desc flags it too) */
        unsupported(p, LOG_PROCTEX_COORDS, "texture 3 coordinates 3 are undocumented; texture 2's are used");
    }
    k->pt_u_clamp = (uint8_t)pvk_proctex_u_clamp(p0);
    k->pt_v_clamp = (uint8_t)pvk_proctex_v_clamp(p0);
    k->pt_rgb_func = (uint8_t)pvk_proctex_rgb_func(p0);
    k->pt_alpha_func = (uint8_t)pvk_proctex_alpha_func(p0);
    k->pt_separate = (uint8_t)pvk_proctex_alpha_separate(p0);
    k->pt_noise = (uint8_t)pvk_proctex_noise_enable(p0);
    k->pt_u_shift = (uint8_t)pvk_proctex_u_shift(p0);
    k->pt_v_shift = (uint8_t)pvk_proctex_v_shift(p0);
    uint32_t filter = pvk_proctex_min_filter(p4);
    if (filter > 5) {
        unsupported(p, LOG_PROCTEX_FILTER, "procedural texture filters 6-7 are undocumented; taken as 0-1");
        filter &= 1;
    }
    k->pt_filter = (uint8_t)filter;
    uint32_t n[2] = {r[PVK_GPUREG_TEXUNIT3_PROCTEX1], r[PVK_GPUREG_TEXUNIT3_PROCTEX2]};
    uint32_t freq = r[PVK_GPUREG_TEXUNIT3_PROCTEX3];
    float *dst[2] = {prm->pt_noise_u, prm->pt_noise_v};
    for (int i = 0; i < 2; i++) {
        dst[i][0] = (float)(int16_t)pvk_proctex_noise_amplitude(n[i]) / 4095.0f;
        dst[i][1] = f16(pvk_proctex_noise_phase(n[i]));
        dst[i][2] = f16(i ? pvk_proctex_noise_freq_v(freq) : pvk_proctex_noise_freq_u(freq));
    }
    prm->pt_bias = f16(pvk_proctex_bias_low(p0) | pvk_proctex_bias_high(p4) << 8);
    prm->pt_offsets = r[PVK_GPUREG_TEXUNIT3_PROCTEX5]; /* pvk_proctex_level_offset's bytes, as the shader reads them */
    prm->pt_width = pvk_proctex_width(p4);
    prm->pt_lod = pvk_proctex_min_lod(p4) | pvk_proctex_max_lod(p4) << 8;
}

/* COLOR_OPERATION mode 3 into an RGBA8 buffer (the shadow format is 24-bit
 * depth + 8-bit intensity in its bytes); other formats stay mode 0, counted
 * by vertex.c. */
static void get_shadow(pvk_pica *p, pvk_fs_fraglight_key *k, pvk_fs_params *prm)
{
    const uint32_t *r = p->regs;
    if (pvk_colorop_fragment_mode(r[PVK_GPUREG_COLOR_OPERATION]) != 3 ||
        pvk_colorbuffer_format(r[PVK_GPUREG_COLORBUFFER_FORMAT]) != 0)
        return;
    k->shadow = 1;
    prm->shadow_constant = f16(pvk_shadow_constant(r[PVK_GPUREG_FRAGOP_SHADOW]));
    prm->shadow_linear = f16(pvk_shadow_linear(r[PVK_GPUREG_FRAGOP_SHADOW]));
}

void pvk_fraglight_shadow_state(const pvk_fs_fraglight_key *key, pvk_pipe_key *pipe, pvk_raster_desc *raster)
{
    if (!key->shadow)
        return;
    raster->depth_test = raster->depth_write = raster->stencil_test = false;
    raster->stencil_write_mask = 0;
    uint8_t mask = pipe->color_mask ? 0xF : 0; /* colour writes still need COLORBUFFER_WRITE */
    memset(pipe, 0, sizeof *pipe);
    pipe->blend = 1;
    pipe->rgb_src = pipe->alpha_src = 1; /* One, Zero, Add: the shader's value lands as it is */
    pipe->color_mask = mask;
}

void pvk_fraglight_get(pvk_pica *p, pvk_fs_fraglight_key *key, pvk_fs_params *params)
{
    memset(key, 0, sizeof *key);
    memset(params, 0, sizeof *params);
    get_fog(p, key, params);
    get_lighting(p, key, params);
    get_proctex(p, key, params);
    get_shadow(p, key, params);
}
