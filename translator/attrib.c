/* Vertex attribute loading: ATTRIBBUFFERS_* decoded into a plan once per
 * draw, then one vertex at a time into the shader's input registers.
 *
 * Layout rules (3dbrew "GPU/Internal Registers" 0x200-0x22A; Citra
 * video_core/vertex_loader.cpp for the alignment; 3dbrew "GPU/Programming
 * Guide", Fixed Vertex Attributes, for the override):
 * - base = ATTRIBBUFFERS_LOC bits 1-28 * 16; buffer i starts at base +
 *   OFFSET_i, vertex n of it at + n * stride (CONFIG2 bits 16-23).
 * - A buffer's order list (CONFIG1 nibbles 0-7, CONFIG2 nibbles 0-3, count in
 *   CONFIG2 bits 28-31) walks through the vertex: attribute entries (0-11)
 *   first align the position to their element size (1 byte, 2 short, 4
 *   float) and then take elements * size bytes; padding entries 12-15 align
 *   to 4 and skip 4/8/12/16 bytes.
 * - Missing components of an attribute with fewer than 4 are 0, 0, 0, 1.
 * - An attribute a buffer names is loaded from it whatever the fixed mask
 *   says; otherwise a set FORMAT_HIGH mask bit gives the fixed attribute value
 *   (always four f24); otherwise nothing is loaded.
 * - Attribute i goes to input register VSH_ATTRIBUTES_PERMUTATION nibble i.
 * - Values become f24 on the way in (s8/u8/s16 are exact; f32 loses mantissa
 *   bits as pvk_f32_to_f24 truncates).
 * - DRAWARRAYS: vertex VERTEX_OFFSET + i; DRAWELEMENTS: entry i of the u8 or
 *   u16 (INDEXBUFFER_CONFIG bit 31) index buffer at base + offset; indexed
 *   draws ignore VERTEX_OFFSET. */
#include <assert.h>
#include <string.h>

#include "translator/geometry.h"

static const uint8_t elem_size[4] = {1, 1, 2, 4}; /* s8, u8, s16, f32 */

static uint32_t align_up(uint32_t v, uint32_t a) { return (v + a - 1) & ~(a - 1); }

static float f24_bits_to_float(uint32_t f24)
{
    uint32_t b = pvk_f24_to_f32(f24);
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* Host pointer for [addr, addr+len) (addr may not even fit in 32 bits), or
 * NULL after logging and counting.  `loader` < 0 names the index buffer. */
static const uint8_t *guest_bytes(const pvk_pica *p, uint64_t addr, uint32_t len, int loader, uint32_t i)
{
    const uint8_t *host = NULL;
    if (addr <= UINT32_MAX && p->env.guest_read)
        host = p->env.guest_read(p->env.user, (uint32_t)addr, len);
    if (host)
        return host;
    if (loader < 0)
        pvk_pica_report_msg(p, PVK_PICA_OUT_OF_RANGE, PVK_LOG_ERROR,
                            "index buffer, element %u: guest range 0x%llX+0x%X is outside guest memory", i,
                            (unsigned long long)addr, len);
    else
        pvk_pica_report_msg(p, PVK_PICA_OUT_OF_RANGE, PVK_LOG_ERROR,
                            "attribute buffer %d, vertex %u: guest range 0x%llX+0x%X is outside guest memory",
                            loader, i, (unsigned long long)addr, len);
    return NULL;
}

pvk_result pvk_attrib_plan_build(const pvk_pica *p, pvk_attrib_plan *plan)
{
    const uint32_t *r = p->regs;
    memset(plan, 0, sizeof *plan);
    plan->base = pvk_attribbuffers_loc(r[PVK_GPUREG_ATTRIBBUFFERS_LOC]) << 4;

    uint32_t low = r[PVK_GPUREG_ATTRIBBUFFERS_FORMAT_LOW], high = r[PVK_GPUREG_ATTRIBBUFFERS_FORMAT_HIGH];
    uint32_t total = pvk_attrib_count_m1(high) + 1;
    if (total > PVK_MAX_ATTRIBS) {
        pvk_pica_bad_input(p, "ATTRIBBUFFERS_FORMAT_HIGH: %u attributes (at most %u); draw refused", total,
                      PVK_MAX_ATTRIBS);
        return PVK_ERROR_BAD_PARAMETERS;
    }
    uint32_t vs = pvk_vsh_num_attr_m1(r[PVK_GPUREG_VSH_NUM_ATTR]) + 1;
    plan->attribs = vs < total ? vs : total;

    uint32_t fixed = pvk_attrib_fixed_mask(high);
    uint32_t plo = r[PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_LOW], phi = r[PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_HIGH];
    for (uint32_t i = 0; i < PVK_MAX_ATTRIBS; i++) {
        uint32_t f = pvk_attrib_format(low, high, i);
        plan->a[i].type = f & 3;
        plan->a[i].comps = (uint8_t)((f >> 2) + 1);
        plan->a[i].reg = (uint8_t)pvk_sh_permutation(plo, phi, i);
        plan->a[i].fixed = (fixed >> i) & 1;
        for (int c = 0; c < 4; c++)
            plan->a[i].fixed_value[c] = f24_bits_to_float(p->fixed_attr[i][c]);
    }

    for (uint32_t l = 0; l < 12; l++) {
        uint32_t id = PVK_GPUREG_ATTRIBBUFFER0_OFFSET + 3 * l;
        uint32_t c1 = r[id + 1], c2 = r[id + 2];
        uint32_t count = pvk_attribbuffer_components(c2);
        if (!count)
            continue;
        if (count > 12) {
            pvk_pica_bad_input(p, "ATTRIBBUFFER%u_CONFIG2: %u components (at most 12); draw refused", l, count);
            return PVK_ERROR_BAD_PARAMETERS;
        }
        uint32_t bi = plan->buffers++;
        struct pvk_attrib_buffer *b = &plan->buf[bi];
        b->offset = pvk_attribbuffer_offset(r[id]);
        b->stride = pvk_attribbuffer_stride(c2);
        b->count = count;
        b->loader = (uint8_t)l;
        uint32_t pos = 0;
        for (uint32_t c = 0; c < count; c++) {
            uint32_t e = c < 8 ? PVK_BITS(c1, 4 * c, 4) : PVK_BITS(c2, 4 * (c - 8), 4);
            b->order[c] = (uint8_t)e;
            if (e >= 12) { /* padding */
                pos = align_up(pos, 4) + (e - 11) * 4;
                continue;
            }
            uint32_t size = elem_size[plan->a[e].type];
            pos = align_up(pos, size);
            if (e < plan->attribs) {
                plan->a[e].loaded = true;
                plan->a[e].buf = (uint8_t)bi;
                plan->a[e].offset = (uint16_t)pos;
            }
            pos += size * plan->a[e].comps;
            if (e < plan->attribs && pos > b->extent)
                b->extent = pos;
        }
    }
    /* A buffer overrides the fixed mask. */
    for (uint32_t i = 0; i < PVK_MAX_ATTRIBS; i++)
        if (plan->a[i].loaded)
            plan->a[i].fixed = false;
    return PVK_SUCCESS;
}

pvk_result pvk_attrib_plan_get(pvk_pica *p, const pvk_attrib_plan **plan)
{
    pvk_attrib_memo *m = &p->attrib_memo;
    const uint32_t *r = p->regs;
    _Static_assert(PVK_GPUREG_ATTRIBBUFFER0_OFFSET + 3 * 12 == PVK_GPUREG_ATTRIBBUFFERS_LOC + PVK_ATTRIB_MEMO_REGS,
                   "the memo holds every register of the plan's buffers");
    /* no write since a draw cleared the bits (pvk_pica.dirty), or the same values written again */
    if (m->valid && (!(p->dirty & PVK_DIRTY_ATTRIB) ||
                     (!memcmp(m->regs, r + PVK_GPUREG_ATTRIBBUFFERS_LOC, sizeof m->regs) &&
                      m->num_attr == r[PVK_GPUREG_VSH_NUM_ATTR] &&
                      m->perm_low == r[PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_LOW] &&
                      m->perm_high == r[PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_HIGH] &&
                      !memcmp(m->fixed, p->fixed_attr, sizeof m->fixed)))) {
#ifndef NDEBUG
        pvk_attrib_plan fresh;
        assert(pvk_attrib_plan_build(p, &fresh) == PVK_SUCCESS && !memcmp(&fresh, &m->plan, sizeof fresh));
#endif
        *plan = &m->plan;
        return PVK_SUCCESS;
    }
    m->valid = false;
    m->builds++;
    pvk_result r2 = pvk_attrib_plan_build(p, &m->plan);
    if (r2)
        return r2; /* logged and counted by every draw that finds it so */
    memcpy(m->regs, r + PVK_GPUREG_ATTRIBBUFFERS_LOC, sizeof m->regs);
    m->num_attr = r[PVK_GPUREG_VSH_NUM_ATTR];
    m->perm_low = r[PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_LOW];
    m->perm_high = r[PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_HIGH];
    memcpy(m->fixed, p->fixed_attr, sizeof m->fixed);
    m->valid = true;
    *plan = &m->plan;
    return PVK_SUCCESS;
}

static void load(const uint8_t *p, uint32_t type, uint32_t comps, float out[4])
{
    out[0] = out[1] = out[2] = 0.0f;
    out[3] = 1.0f;
    for (uint32_t c = 0; c < comps; c++) {
        switch (type) {
        case 0:
            out[c] = (float)(int8_t)p[c];
            break;
        case 1:
            out[c] = (float)p[c];
            break;
        case 2:
            out[c] = (float)(int16_t)(uint16_t)(p[2 * c] | p[2 * c + 1] << 8);
            break;
        default: {
            const uint8_t *q = p + 4 * c;
            uint32_t bits = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
            out[c] = f24_bits_to_float(pvk_f32_to_f24(bits));
            break;
        }
        }
    }
}

pvk_result pvk_attrib_fetch(const pvk_pica *p, const pvk_attrib_plan *plan, uint32_t index,
                            float v[PVK_SH_INPUTS][4])
{
    /* Every buffer is checked before any register is written. */
    const uint8_t *vtx[12] = {0};
    for (uint32_t b = 0; b < plan->buffers; b++) {
        if (!plan->buf[b].extent)
            continue; /* only padding or unused attributes */
        uint64_t addr = (uint64_t)plan->base + plan->buf[b].offset + (uint64_t)plan->buf[b].stride * index;
        vtx[b] = guest_bytes(p, addr, plan->buf[b].extent, plan->buf[b].loader, index);
        if (!vtx[b])
            return PVK_ERROR_OUT_OF_RANGE;
    }
    for (uint32_t i = 0; i < plan->attribs; i++) {
        float *dst = v[plan->a[i].reg];
        if (plan->a[i].loaded)
            load(vtx[plan->a[i].buf] + plan->a[i].offset, plan->a[i].type, plan->a[i].comps, dst);
        else if (plan->a[i].fixed)
            memcpy(dst, plan->a[i].fixed_value, sizeof plan->a[i].fixed_value);
    }
    return PVK_SUCCESS;
}

pvk_result pvk_draw_vertex_index(const pvk_pica *p, bool elements, uint32_t i, uint32_t *index)
{
    const uint32_t *r = p->regs;
    if (!elements) {
        uint32_t first = r[PVK_GPUREG_VERTEX_OFFSET];
        if (i > UINT32_MAX - first) {
            pvk_pica_bad_input(p, "VERTEX_OFFSET 0x%X + vertex %u overflows 32 bits", first, i);
            return PVK_ERROR_OUT_OF_RANGE;
        }
        *index = first + i;
        return PVK_SUCCESS;
    }
    uint32_t cfg = r[PVK_GPUREG_INDEXBUFFER_CONFIG];
    uint32_t size = pvk_indexbuffer_u16(cfg) ? 2 : 1;
    uint64_t addr = ((uint64_t)pvk_attribbuffers_loc(r[PVK_GPUREG_ATTRIBBUFFERS_LOC]) << 4) +
                    pvk_indexbuffer_offset(cfg) + (uint64_t)i * size;
    const uint8_t *q = guest_bytes(p, addr, size, -1, i);
    if (!q)
        return PVK_ERROR_OUT_OF_RANGE;
    *index = size == 2 ? (uint32_t)(q[0] | q[1] << 8) : q[0];
    return PVK_SUCCESS;
}
