/* The texture unit registers decoded once (seed 001; 3dbrew "GPU/Internal
 * Registers" 0x080-0x09E; field layouts checked against citro3d's
 * C3D_TexInitWithParams / C3Di_SetTex / C3D_TexSetFilter / C3D_TexSetWrap /
 * C3D_TexSetLodBias and libctru's gpu/enums.h): TEXUNIT_CONFIG and, per unit,
 * border colour, size, filters, wraps, LOD, addresses, shadow and format.
 *
 * Values the documents call reserved or unknown are decoded as the comment
 * on each PVK_TEXRES_* bit says and flagged in pvk_tex_desc.reserved; the
 * translator does not count them (a desc is read many times per draw): the
 * draw path that samples counts what it uses. */
#include <string.h>

#include "translator/translator.h"

/* The five registers BORDER_COLOR, DIM, PARAM, LOD, ADDR(1) are consecutive
 * for each unit; TYPE is apart. */
static const uint16_t unit_base[3] = {PVK_GPUREG_TEXUNIT0_BORDER_COLOR, PVK_GPUREG_TEXUNIT1_BORDER_COLOR,
                                      PVK_GPUREG_TEXUNIT2_BORDER_COLOR};
static const uint16_t unit_type[3] = {PVK_GPUREG_TEXUNIT0_TYPE, PVK_GPUREG_TEXUNIT1_TYPE, PVK_GPUREG_TEXUNIT2_TYPE};

#define TEX_FORMAT_ETC1 12u /* TYPE value of ETC1 (vram/vram.h PVK_TEX_ETC1) */
#define TEX_FORMATS 14u

void pvk_texunit_config_get(const pvk_pica *p, pvk_texunit_config *c)
{
    uint32_t v = p->regs[PVK_GPUREG_TEXUNIT_CONFIG];
    memset(c, 0, sizeof *c);
    for (unsigned u = 0; u < 3; u++)
        c->enable[u] = pvk_texunit_enable(v, u);
    c->enable[3] = pvk_texunit3_enable(v);
    c->tex3_coords = pvk_texunit3_coords(v);
    c->tex2_coords = pvk_texunit2_coords(v);
}

static bool size_ok(uint32_t n)
{
    return n >= 8 && n <= 1024 && n % 8 == 0;
}

void pvk_tex_desc_get(const pvk_pica *p, unsigned unit, pvk_tex_desc *d)
{
    const uint32_t *r = p->regs;
    pvk_texunit_config cfg;
    pvk_texunit_config_get(p, &cfg);
    memset(d, 0, sizeof *d);
    d->unit = unit;
    if (unit >= 3) {
        /* the procedural unit: its own registers (TEXUNIT3_PROCTEX*) come
         * with procedural textures; here only what TEXUNIT_CONFIG says */
        d->unit = 3;
        d->type = PVK_TEXTYPE_PROCEDURAL;
        d->enabled = cfg.enable[3];
        d->coords = cfg.tex3_coords;
        if (d->coords == 3) { /* documented values 0-2; taken as texture 0's */
            d->reserved |= PVK_TEXRES_COORDS;
            d->coords = 0;
        }
        return;
    }
    uint32_t base = unit_base[unit];
    uint32_t border = r[base], dim = r[base + 1], param = r[base + 2], lod = r[base + 3], addr = r[base + 4];
    d->enabled = cfg.enable[unit];
    d->coords = unit == 2 && cfg.tex2_coords ? 1 : unit;
    d->border = border;
    d->width = pvk_texdim_width(dim);
    d->height = pvk_texdim_height(dim);
    d->format = pvk_textype_format(r[unit_type[unit]]);
    if (d->format >= TEX_FORMATS)
        d->reserved |= PVK_TEXRES_FORMAT;

    d->mag_filter = (uint8_t)pvk_texparam_mag_filter(param);
    d->min_filter = (uint8_t)pvk_texparam_min_filter(param);
    d->mip_filter = (uint8_t)pvk_texparam_mip_filter(param);
    d->wrap_s = (uint8_t)pvk_texparam_wrap_s(param);
    d->wrap_t = (uint8_t)pvk_texparam_wrap_t(param);
    if (d->wrap_s > 3 || d->wrap_t > 3)
        d->reserved |= PVK_TEXRES_WRAP;
    d->etc1_param = (uint8_t)pvk_texparam_etc1(param);
    /* citro3d sets 2 for ETC1 only (0 for ETC1A4, as seed 001 notes); the
     * format register decides the decode, the flag is kept for the record */
    if (d->etc1_param == 1 || d->etc1_param == 3 || (d->etc1_param == 2 && d->format != TEX_FORMAT_ETC1))
        d->reserved |= PVK_TEXRES_ETC1_FLAG;

    /* Type and shadow bit: unit 0 only (seed 001: bits 28-30 "unused (0)"
     * and bit 20 unknown on units 1/2, which citro3d binds only as 2D). */
    uint32_t type = pvk_texparam_type(param);
    bool shadow = pvk_texparam_shadow(param);
    if (unit == 0) {
        d->type = type;
        if (type > PVK_TEXTYPE_DISABLED) {
            d->reserved |= PVK_TEXRES_TYPE;
            d->type = PVK_TEXTYPE_DISABLED;
        }
        d->shadow = shadow;
        bool shadow_type = d->type == PVK_TEXTYPE_SHADOW_2D || d->type == PVK_TEXTYPE_SHADOW_CUBE;
        if (shadow != shadow_type && d->type != PVK_TEXTYPE_DISABLED)
            d->reserved |= PVK_TEXRES_SHADOW_BIT; /* citro3d sets them together */
        uint32_t sh = r[PVK_GPUREG_TEXUNIT0_SHADOW];
        d->shadow_perspective = !pvk_texshadow_orthographic(sh);
        d->shadow_bias_fixed = pvk_texshadow_zbias(sh) << 1;
        d->shadow_bias = (float)d->shadow_bias_fixed / 16777216.0f;
    } else {
        d->type = PVK_TEXTYPE_2D;
        if (type)
            d->reserved |= PVK_TEXRES_TYPE;
        if (shadow)
            d->reserved |= PVK_TEXRES_SHADOW_BIT;
    }
    if (d->type == PVK_TEXTYPE_DISABLED)
        d->enabled = false;

    bool cube = d->type == PVK_TEXTYPE_CUBE || d->type == PVK_TEXTYPE_SHADOW_CUBE;
    d->faces = cube ? 6 : 1;
    uint32_t a1 = pvk_texaddr(addr);
    d->addr[0] = a1 << 3;
    if (cube) /* ADDR2-6 keep only 22 bits: the upper 6 are ADDR1's */
        for (unsigned f = 1; f < 6; f++)
            d->addr[f] = (pvk_texaddr_shared(a1) << 22 | pvk_texaddr_low(r[PVK_GPUREG_TEXUNIT0_ADDR2 + f - 1])) << 3;
    if (!size_ok(d->width) || !size_ok(d->height) || (cube && d->width != d->height))
        d->reserved |= PVK_TEXRES_SIZE;

    /* LOD: bias fixed1.4.8 (13 bits, two's complement: citro3d stores
     * (int)(bias * 256) & 0x1FFF), then the level range */
    uint32_t bias = pvk_texlod_bias(lod);
    d->lod_bias_fixed = (int32_t)(bias << 19) >> 19;
    d->lod_bias = (float)d->lod_bias_fixed / 256.0f;
    d->max_level = pvk_texlod_max(lod);
    d->min_level = pvk_texlod_min(lod);
    d->levels = d->max_level + 1;
    /* levels stop at 8x8 (the smallest tiled level; C3D_TexCalcMaxLevel) */
    uint32_t side = d->width < d->height ? d->width : d->height, most = 0;
    while (most < 15 && (side >> (most + 1)) >= 8)
        most++;
    if (d->min_level > d->max_level || (!(d->reserved & PVK_TEXRES_SIZE) && d->max_level > most))
        d->reserved |= PVK_TEXRES_LOD;
}
