/* The output map and primitive assembly. */
#include <math.h>
#include <string.h>

#include "translator/geometry.h"
#include "translator/regs.h"

void pvk_vs_outmap_sources(const pvk_pica *p, uint8_t sem_src[24])
{
    pvk_sh_outmap_sources_mask(p, p->regs[PVK_GPUREG_VSH_OUTMAP_MASK], sem_src);
}

void pvk_sh_outmap_sources_mask(const pvk_pica *p, uint32_t outmask, uint8_t sem_src[24])
{
    memset(sem_src, PVK_VS_SEM_NONE, 24);
    /* Semantic codes (3dbrew SH_OUTMAP_Oi): where component c of output
     * register i goes; 0x1F and unknown codes go nowhere.  The map lists the
     * shader's enabled outputs in order (VSH_OUTMAP_MASK); a later slot
     * naming a semantic again wins. */
    uint32_t total = pvk_sh_outmap_total(p->regs[PVK_GPUREG_SH_OUTMAP_TOTAL]);
    uint32_t mask = outmask & 0xFFFF;
    uint32_t slot = 0;
    for (uint32_t reg = 0; reg < PVK_SH_OUTPUTS && slot < 7 && slot < total; reg++) {
        if (!(mask & (1u << reg)))
            continue;
        uint32_t map = p->regs[PVK_GPUREG_SH_OUTMAP_O0 + slot];
        for (unsigned c = 0; c < 4; c++) {
            uint32_t sem = pvk_sh_outmap_semantic(map, c);
            if (sem < 24 && sem != 17 && sem != 21)
                sem_src[sem] = (uint8_t)(reg * 4 + c);
        }
        slot++;
    }
}

void pvk_vs_outmap(const pvk_pica *p, const float o[PVK_SH_OUTPUTS][4], pvk_vertex *out)
{
    uint8_t src[24];
    pvk_vs_outmap_sources(p, src);
    pvk_sh_outmap_apply(src, o, out);
}

void pvk_sh_outmap_apply(const uint8_t src[24], const float o[PVK_SH_OUTPUTS][4], pvk_vertex *out)
{
    memset(out, 0, sizeof *out);
    out->pos[3] = 1.0f;
    out->color[3] = 1.0f;
    float *dst[24] = {
        &out->pos[0],   &out->pos[1],   &out->pos[2],   &out->pos[3],   &out->quat[0], &out->quat[1],
        &out->quat[2],  &out->quat[3],  &out->color[0], &out->color[1], &out->color[2], &out->color[3],
        &out->tc0[0],   &out->tc0[1],   &out->tc1[0],   &out->tc1[1],   &out->tc0_w,   NULL,
        &out->view[0],  &out->view[1],  &out->view[2],  NULL,           &out->tc2[0],  &out->tc2[1],
    };
    for (unsigned s = 0; s < 24; s++)
        if (dst[s] && src[s] != PVK_VS_SEM_NONE)
            *dst[s] = o[src[s] >> 2][src[s] & 3];
    /* The hardware takes the absolute value of vertex colours and saturates
     * them before interpolation (Citra, from hardware tests). */
    for (int c = 0; c < 4; c++) {
        float v = fabsf(out->color[c]);
        out->color[c] = v > 1.0f ? 1.0f : v;
    }
}

uint32_t pvk_assemble_triangles(uint32_t mode, uint32_t count, uint32_t *out)
{
    uint32_t n = 0;
    switch (mode) {
    case 1: /* strip: every other triangle reversed to keep one winding */
        for (uint32_t i = 0; i + 2 < count; i++) {
            out[n++] = (i & 1) ? i + 1 : i;
            out[n++] = (i & 1) ? i : i + 1;
            out[n++] = i + 2;
        }
        break;
    case 2: /* fan */
        for (uint32_t i = 1; i + 1 < count; i++) {
            out[n++] = 0;
            out[n++] = i;
            out[n++] = i + 1;
        }
        break;
    default: /* 0 list; 3 list (citro3d's indexed lists; a geometry shader's triangles: gs.c) */
        for (uint32_t i = 0; i + 2 < count; i += 3) {
            out[n++] = i;
            out[n++] = i + 1;
            out[n++] = i + 2;
        }
        break;
    }
    return n;
}
