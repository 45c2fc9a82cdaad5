/* The PICA command-list processor and the side effects of internal register
 * writes.  A command is a parameter word, a header word (id, byte-enable
 * mask, extra-parameter count, consecutive flag), the extra parameters and a
 * padding word when the count is odd (FACTS.md "Command lists").  Every write
 * merges with the old value by the mask, marks the state groups it changes
 * and, for the few registers that do something, runs a side effect from a
 * table indexed by register id.  Malformed lists stop with a logged, counted
 * error; the work per kick is bounded. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "translator/geometry.h"

/* Side effects, stored in the top 6 bits of pvk_pica.info[id]. */
enum {
    H_NONE,
    H_IRQ,                 /* 0x000-0x03F: ACK, REQ (FINALIZE), CMP, MASK, AUTOSTOP */
    H_TEXUNIT_CONFIG,      /* bit 16 clears the texture cache */
    H_EARLYDEPTH_CLEAR,
    H_FB_INVALIDATE,
    H_FB_FLUSH,
    H_PROCTEX_LUT_INDEX,
    H_PROCTEX_LUT_DATA,
    H_FOG_LUT_INDEX,
    H_FOG_LUT_DATA,
    H_GAS_LUT_INDEX,
    H_GAS_LUT_DATA,
    H_LIGHTING_LUT_INDEX,
    H_LIGHTING_LUT_DATA,
    H_DRAW_ARRAYS,
    H_DRAW_ELEMENTS,
    H_FIXEDATTR_INDEX,
    H_FIXEDATTR_DATA,
    H_CMDBUF_JUMP,
    H_SH_BOOL,
    H_SH_INT,
    H_SH_FLOAT_INDEX,
    H_SH_FLOAT_DATA,
    H_SH_CODE_INDEX,
    H_SH_CODE_DATA,
    H_SH_OPDESC_INDEX,
    H_SH_OPDESC_DATA,
    H_COUNT,
};
_Static_assert(H_COUNT <= 64, "handler index must fit in 6 bits");
#define H_SHIFT 26
_Static_assert(PVK_DIRTY_ALL < (1u << H_SHIFT), "dirty bits overlap the handler index");

/* What a side effect asks of the decoder. */
enum {
    FLOW_NONE = 0,
    FLOW_JUMP0,  /* continue at channel 0's buffer */
    FLOW_JUMP1,
    FLOW_STOP,   /* FINALIZE matched with IRQ_AUTOSTOP */
    FLOW_ERROR,  /* p->error says why */
};

/* FIFOs for the overflow log (one message per FIFO per kick). */
enum { Q_LIGHTING, Q_FOG, Q_GAS, Q_PROCTEX, Q_FLOAT, Q_CODE, Q_OPDESC, Q_FIXED };
static const char *const fifo_names[] = {
    "lighting LUT", "fog LUT", "gas LUT", "procedural texture LUT",
    "float uniform", "shader code", "operand descriptor", "fixed attribute",
};

static const uint32_t mask_bytes[16] = {
    0x00000000, 0x000000FF, 0x0000FF00, 0x0000FFFF, 0x00FF0000, 0x00FF00FF, 0x00FFFF00, 0x00FFFFFF,
    0xFF000000, 0xFF0000FF, 0xFF00FF00, 0xFF00FFFF, 0xFFFF0000, 0xFFFF00FF, 0xFFFFFF00, 0xFFFFFFFF,
};

/* ---- the table indexed by register id ---- */

static void dirty_range(uint32_t *info, uint32_t lo, uint32_t hi, uint32_t bits)
{
    for (uint32_t id = lo; id <= hi; id++)
        info[id] |= bits;
}

static void handler_range(uint32_t *info, uint32_t lo, uint32_t hi, uint32_t h)
{
    for (uint32_t id = lo; id <= hi; id++)
        info[id] = (info[id] & PVK_DIRTY_ALL) | h << H_SHIFT;
}

static void build_info(uint32_t *info)
{
    memset(info, 0, PVK_PICA_REG_COUNT * sizeof *info);
    handler_range(info, 0x000, 0x03F, H_IRQ);

    dirty_range(info, 0x040, 0x04E, PVK_DIRTY_RASTER);
    dirty_range(info, 0x04F, 0x056, PVK_DIRTY_OUTMAP);
    dirty_range(info, 0x061, 0x063, PVK_DIRTY_RASTER);
    handler_range(info, PVK_GPUREG_EARLYDEPTH_CLEAR, PVK_GPUREG_EARLYDEPTH_CLEAR, H_EARLYDEPTH_CLEAR);
    dirty_range(info, 0x064, 0x064, PVK_DIRTY_OUTMAP);
    dirty_range(info, 0x065, 0x06D, PVK_DIRTY_RASTER);
    dirty_range(info, PVK_GPUREG_RENDERBUF_DIM, PVK_GPUREG_RENDERBUF_DIM, PVK_DIRTY_FRAMEBUFFER);
    dirty_range(info, PVK_GPUREG_SH_OUTATTR_CLOCK, PVK_GPUREG_SH_OUTATTR_CLOCK, PVK_DIRTY_OUTMAP);

    dirty_range(info, 0x080, 0x09E, PVK_DIRTY_TEXTURE);
    dirty_range(info, PVK_GPUREG_TEXUNIT_CONFIG, PVK_GPUREG_TEXUNIT_CONFIG, PVK_DIRTY_PROCTEX);
    handler_range(info, PVK_GPUREG_TEXUNIT_CONFIG, PVK_GPUREG_TEXUNIT_CONFIG, H_TEXUNIT_CONFIG);
    dirty_range(info, PVK_GPUREG_TEXUNIT0_SHADOW, PVK_GPUREG_TEXUNIT0_SHADOW, PVK_DIRTY_SHADOW);
    dirty_range(info, PVK_GPUREG_LIGHTING_ENABLE0, PVK_GPUREG_LIGHTING_ENABLE0, PVK_DIRTY_LIGHTING);
    dirty_range(info, 0x0A8, 0x0AD, PVK_DIRTY_PROCTEX);
    dirty_range(info, PVK_GPUREG_PROCTEX_LUT, PVK_GPUREG_PROCTEX_LUT_DATA + 7, PVK_DIRTY_PROCTEX_LUT);
    handler_range(info, PVK_GPUREG_PROCTEX_LUT, PVK_GPUREG_PROCTEX_LUT, H_PROCTEX_LUT_INDEX);
    handler_range(info, PVK_GPUREG_PROCTEX_LUT_DATA, PVK_GPUREG_PROCTEX_LUT_DATA + 7, H_PROCTEX_LUT_DATA);

    dirty_range(info, 0x0C0, 0x0DF, PVK_DIRTY_TEV);
    dirty_range(info, PVK_GPUREG_TEXENV_UPDATE_BUFFER, PVK_GPUREG_TEXENV_UPDATE_BUFFER,
                PVK_DIRTY_TEV | PVK_DIRTY_FOG | PVK_DIRTY_GAS);
    dirty_range(info, PVK_GPUREG_FOG_COLOR, PVK_GPUREG_FOG_COLOR, PVK_DIRTY_FOG);
    dirty_range(info, PVK_GPUREG_GAS_ATTENUATION, PVK_GPUREG_GAS_ACCMAX, PVK_DIRTY_GAS);
    dirty_range(info, PVK_GPUREG_FOG_LUT_INDEX, PVK_GPUREG_FOG_LUT_DATA + 7, PVK_DIRTY_FOG_LUT);
    handler_range(info, PVK_GPUREG_FOG_LUT_INDEX, PVK_GPUREG_FOG_LUT_INDEX, H_FOG_LUT_INDEX);
    handler_range(info, PVK_GPUREG_FOG_LUT_DATA, PVK_GPUREG_FOG_LUT_DATA + 7, H_FOG_LUT_DATA);
    dirty_range(info, 0x0F0, 0x0FD, PVK_DIRTY_TEV);

    dirty_range(info, PVK_GPUREG_COLOR_OPERATION, PVK_GPUREG_COLOR_OPERATION, PVK_DIRTY_FRAGMENT | PVK_DIRTY_BLEND);
    dirty_range(info, PVK_GPUREG_BLEND_FUNC, PVK_GPUREG_BLEND_COLOR, PVK_DIRTY_BLEND);
    dirty_range(info, PVK_GPUREG_FRAGOP_ALPHA_TEST, PVK_GPUREG_FRAGOP_ALPHA_TEST, PVK_DIRTY_FRAGMENT);
    dirty_range(info, PVK_GPUREG_STENCIL_TEST, PVK_GPUREG_DEPTH_COLOR_MASK, PVK_DIRTY_DEPTH_STENCIL);
    dirty_range(info, PVK_GPUREG_DEPTH_COLOR_MASK, PVK_GPUREG_DEPTH_COLOR_MASK, PVK_DIRTY_BLEND);
    handler_range(info, PVK_GPUREG_FRAMEBUFFER_INVALIDATE, PVK_GPUREG_FRAMEBUFFER_INVALIDATE, H_FB_INVALIDATE);
    handler_range(info, PVK_GPUREG_FRAMEBUFFER_FLUSH, PVK_GPUREG_FRAMEBUFFER_FLUSH, H_FB_FLUSH);
    dirty_range(info, PVK_GPUREG_COLORBUFFER_READ, PVK_GPUREG_FRAMEBUFFER_DIM, PVK_DIRTY_FRAMEBUFFER);
    dirty_range(info, PVK_GPUREG_EARLYDEPTH_TEST2, PVK_GPUREG_EARLYDEPTH_TEST2, PVK_DIRTY_RASTER);
    dirty_range(info, PVK_GPUREG_GAS_LIGHT_XY, PVK_GPUREG_GAS_DELTAZ_DEPTH, PVK_DIRTY_GAS);
    handler_range(info, PVK_GPUREG_GAS_LUT_INDEX, PVK_GPUREG_GAS_LUT_DATA, H_NONE);
    info[PVK_GPUREG_GAS_LUT_INDEX] = info[PVK_GPUREG_GAS_LUT_DATA] = PVK_DIRTY_GAS_LUT; /* not gas state */
    handler_range(info, PVK_GPUREG_GAS_LUT_INDEX, PVK_GPUREG_GAS_LUT_INDEX, H_GAS_LUT_INDEX);
    handler_range(info, PVK_GPUREG_GAS_LUT_DATA, PVK_GPUREG_GAS_LUT_DATA, H_GAS_LUT_DATA);
    dirty_range(info, PVK_GPUREG_FRAGOP_SHADOW, PVK_GPUREG_FRAGOP_SHADOW, PVK_DIRTY_SHADOW);

    dirty_range(info, 0x140, PVK_GPUREG_LIGHTING_LIGHT_PERMUTATION, PVK_DIRTY_LIGHTING);
    dirty_range(info, PVK_GPUREG_LIGHTING_LUT_INDEX, PVK_GPUREG_LIGHTING_LUT_INDEX, PVK_DIRTY_LIGHTING_LUT);
    dirty_range(info, PVK_GPUREG_LIGHTING_LUT_DATA, PVK_GPUREG_LIGHTING_LUT_DATA + 7, PVK_DIRTY_LIGHTING_LUT);
    handler_range(info, PVK_GPUREG_LIGHTING_LUT_INDEX, PVK_GPUREG_LIGHTING_LUT_INDEX, H_LIGHTING_LUT_INDEX);
    handler_range(info, PVK_GPUREG_LIGHTING_LUT_DATA, PVK_GPUREG_LIGHTING_LUT_DATA + 7, H_LIGHTING_LUT_DATA);
    for (uint32_t id = PVK_GPUREG_LIGHTING_LUT_INDEX; id <= PVK_GPUREG_LIGHTING_LUT_DATA + 7; id++)
        if (id != PVK_GPUREG_LIGHTING_ENABLE1)
            info[id] &= ~(uint32_t)PVK_DIRTY_LIGHTING; /* LUT uploads are not light state */

    dirty_range(info, PVK_GPUREG_ATTRIBBUFFERS_LOC, PVK_GPUREG_NUMVERTICES, PVK_DIRTY_VERTEX_INPUT);
    dirty_range(info, PVK_GPUREG_GEOSTAGE_CONFIG, PVK_GPUREG_GEOSTAGE_CONFIG, PVK_DIRTY_PRIMITIVE);
    dirty_range(info, PVK_GPUREG_VERTEX_OFFSET, PVK_GPUREG_POST_VERTEX_CACHE_NUM, PVK_DIRTY_VERTEX_INPUT);
    handler_range(info, PVK_GPUREG_DRAWARRAYS, PVK_GPUREG_DRAWARRAYS, H_DRAW_ARRAYS);
    handler_range(info, PVK_GPUREG_DRAWELEMENTS, PVK_GPUREG_DRAWELEMENTS, H_DRAW_ELEMENTS);
    dirty_range(info, PVK_GPUREG_FIXEDATTRIB_INDEX, PVK_GPUREG_FIXEDATTRIB_DATA2, PVK_DIRTY_FIXED_ATTR);
    handler_range(info, PVK_GPUREG_FIXEDATTRIB_INDEX, PVK_GPUREG_FIXEDATTRIB_INDEX, H_FIXEDATTR_INDEX);
    handler_range(info, PVK_GPUREG_FIXEDATTRIB_DATA0, PVK_GPUREG_FIXEDATTRIB_DATA2, H_FIXEDATTR_DATA);
    handler_range(info, PVK_GPUREG_CMDBUF_JUMP0, PVK_GPUREG_CMDBUF_JUMP1, H_CMDBUF_JUMP);
    dirty_range(info, PVK_GPUREG_VSH_NUM_ATTR, PVK_GPUREG_VSH_NUM_ATTR, PVK_DIRTY_VERTEX_INPUT | PVK_DIRTY_VS_CONFIG);
    dirty_range(info, PVK_GPUREG_VSH_COM_MODE, PVK_GPUREG_VSH_COM_MODE, PVK_DIRTY_GS_CONFIG);
    dirty_range(info, PVK_GPUREG_VSH_OUTMAP_TOTAL1, PVK_GPUREG_VSH_OUTMAP_TOTAL1, PVK_DIRTY_VS_CONFIG | PVK_DIRTY_OUTMAP);
    dirty_range(info, PVK_GPUREG_VSH_OUTMAP_TOTAL2, PVK_GPUREG_VSH_OUTMAP_TOTAL2, PVK_DIRTY_VS_CONFIG | PVK_DIRTY_OUTMAP);
    dirty_range(info, PVK_GPUREG_GSH_MISC0, PVK_GPUREG_GSH_MISC1, PVK_DIRTY_PRIMITIVE | PVK_DIRTY_GS_CONFIG);
    dirty_range(info, PVK_GPUREG_PRIMITIVE_CONFIG, PVK_GPUREG_RESTART_PRIMITIVE, PVK_DIRTY_PRIMITIVE);

    for (int u = 0; u < 2; u++) {
        uint32_t b = u ? PVK_GPUREG_VSH_BASE : PVK_GPUREG_GSH_BASE;
        uint32_t cfg = u ? PVK_DIRTY_VS_CONFIG : PVK_DIRTY_GS_CONFIG;
        uint32_t uni = u ? PVK_DIRTY_VS_UNIFORM : PVK_DIRTY_GS_UNIFORM;
        uint32_t code = u ? PVK_DIRTY_VS_CODE : PVK_DIRTY_GS_CODE;
        dirty_range(info, b + 0x00, b + 0x04, uni);
        handler_range(info, b + 0x00, b + 0x00, H_SH_BOOL);
        handler_range(info, b + 0x01, b + 0x04, H_SH_INT);
        dirty_range(info, b + 0x09, b + 0x0D, cfg);
        dirty_range(info, b + 0x0F, b + 0x0F, code);
        dirty_range(info, b + 0x10, b + 0x18, uni);
        handler_range(info, b + 0x10, b + 0x10, H_SH_FLOAT_INDEX);
        handler_range(info, b + 0x11, b + 0x18, H_SH_FLOAT_DATA);
        dirty_range(info, b + 0x1B, b + 0x2D, code);
        handler_range(info, b + 0x1B, b + 0x1B, H_SH_CODE_INDEX);
        handler_range(info, b + 0x1C, b + 0x23, H_SH_CODE_DATA);
        handler_range(info, b + 0x25, b + 0x25, H_SH_OPDESC_INDEX);
        handler_range(info, b + 0x26, b + 0x2D, H_SH_OPDESC_DATA);
    }
    /* registers of no group below 0x200 mark RASTER: every write the packet
     * memo could see sets a bit of PVK_DIRTY_PACKET */
    for (uint32_t id = 0x040; id < PVK_PACKET_MEMO_REGS; id++)
        if (!(info[id] & PVK_DIRTY_ALL))
            info[id] |= PVK_DIRTY_RASTER;
}

/* ---- side effects ---- */

static uint64_t irq_mask(const uint32_t *regs)
{
    return regs[PVK_GPUREG_IRQ_MASK] | (uint64_t)regs[PVK_GPUREG_IRQ_MASK_HIGH] << 32;
}

/* Recompute the 64 compare flags (byte i of REQ == byte i of CMP) and the
 * P3D line.  `hit_bytes` are the REQ bytes just written: one of them
 * matching and enabled raises the interrupt even when it was already up
 * (every FINALIZE signals); otherwise only newly matching bytes raise it. */
static int irq_update(pvk_pica *p, uint64_t hit_bytes)
{
    uint32_t *regs = p->regs;
    uint64_t stat = 0;
    for (unsigned w = 0; w < PVK_GPUREG_IRQ_WORDS; w++) {
        uint32_t x = regs[PVK_GPUREG_IRQ_REQ + w] ^ regs[PVK_GPUREG_IRQ_CMP + w];
        for (unsigned b = 0; b < 4; b++)
            if (!((x >> (8 * b)) & 0xFF))
                stat |= 1ull << (4 * w + b);
    }
    regs[PVK_GPUREG_IRQ_STAT] = (uint32_t)stat;
    regs[PVK_GPUREG_IRQ_STAT_HIGH] = (uint32_t)(stat >> 32);
    uint64_t active = stat & ~irq_mask(regs);
    uint64_t hit = active & hit_bytes;
    bool raise = hit || (active & ~p->irq_active);
    p->irq_active = active;
    if (p->env.p3d)
        p->env.p3d(p->env.user, active != 0, raise);
    if (!raise)
        return FLOW_NONE;
    if (hit && p->in_list && (regs[PVK_GPUREG_IRQ_AUTOSTOP] & 1))
        return FLOW_STOP;
    return FLOW_NONE;
}

static int irq_write(pvk_pica *p, uint32_t id, uint32_t v, uint32_t old, uint32_t bm)
{
    uint32_t *regs = p->regs;
    bool req = id >= PVK_GPUREG_IRQ_REQ && id < PVK_GPUREG_IRQ_REQ + PVK_GPUREG_IRQ_WORDS;
    if (p->in_list && !req) {
        /* GBATEK: lists reach only IRQ_REQ in 0x000-0x03F; the rest is CPU only. */
        regs[id] = old;
        pvk_pica_debug(p, "command list write to CPU-only register 0x%03X ignored", id);
        return FLOW_NONE;
    }
    if (id == PVK_GPUREG_IRQ_STAT || id == PVK_GPUREG_IRQ_STAT_HIGH || id == PVK_GPUREG_FIXED_00010002) {
        regs[id] = old; /* read-only */
        return FLOW_NONE;
    }
    if (id < PVK_GPUREG_IRQ_REQ) { /* IRQ_ACK mirrors IRQ_REQ */
        regs[id] = 0;
        regs[PVK_GPUREG_IRQ_REQ + id] = v;
        req = true;
        id += PVK_GPUREG_IRQ_REQ;
    }
    if (id > PVK_GPUREG_IRQ_AUTOSTOP)
        return FLOW_NONE;
    uint64_t hit = 0;
    if (req) {
        uint32_t bytes = (bm & 1) | (bm >> 7 & 2) | (bm >> 14 & 4) | (bm >> 21 & 8);
        hit = (uint64_t)bytes << (4 * (id - PVK_GPUREG_IRQ_REQ));
    }
    return irq_update(p, hit);
}

/* `count` words for FIFO `q` had nowhere to go: each counts as bad input,
 * the first of a kick is logged. */
static void fifo_overflow_n(pvk_pica *p, unsigned q, uint32_t index, uint32_t count)
{
    p->counters.dropped += count;
    if (p->overflow_logged & (1u << q)) {
        pvk_pica_count(p, PVK_PICA_BAD_INPUT, count);
        return;
    }
    p->overflow_logged |= 1u << q;
    pvk_pica_count(p, PVK_PICA_BAD_INPUT, count - 1);
    pvk_pica_bad_input(p, "%s upload past the end of its table (index %u); dropped", fifo_names[q], index);
}
static void fifo_overflow(pvk_pica *p, unsigned q, uint32_t index)
{
    fifo_overflow_n(p, q, index, 1);
}

/* Copy up to `n` words into table[*pos..size), advancing *pos; the rest overflows. */
static void fifo_copy(pvk_pica *p, unsigned q, uint32_t *table, uint32_t size, uint32_t *pos,
                      const uint32_t *v, uint32_t n)
{
    uint32_t fit = *pos < size ? size - *pos : 0;
    if (fit > n)
        fit = n;
    memcpy(table + *pos, v, fit * sizeof *v);
    *pos += fit;
    if (fit < n)
        fifo_overflow_n(p, q, *pos, n - fit);
}

static int cache_op(pvk_pica *p, pvk_pica_cache_op op)
{
    p->counters.cache_ops++;
    if (!p->env.cache)
        return FLOW_NONE;
    pvk_result r = p->env.cache(p->env.user, op);
    if (r) {
        p->error = r;
        return FLOW_ERROR;
    }
    return FLOW_NONE;
}

/* A draw trigger: vertex.c runs the geometry stages and hands the packet on. */
static int draw(pvk_pica *p, pvk_draw_kind kind, uint32_t attrs)
{
    if (kind == PVK_DRAW_IMMEDIATE)
        p->counters.immediate_vertices++;
    else
        p->counters.draws++;
    if (!p->env.draw) {
        if (!p->draw_logged) {
            p->draw_logged = true;
            pvk_pica_unsupported(p, "drawing is not implemented yet; draws are counted and dropped");
        } else {
            pvk_pica_count(p, PVK_PICA_UNSUPPORTED, 1);
        }
        return FLOW_NONE;
    }
    pvk_result r = kind == PVK_DRAW_IMMEDIATE ? pvk_vertex_immediate(p, (const uint32_t(*)[4])p->imm, attrs)
                                              : pvk_vertex_draw(p, kind == PVK_DRAW_ELEMENTS);
    if (r) {
        p->error = r;
        return FLOW_ERROR;
    }
    return FLOW_NONE;
}

static uint32_t lut_size(uint32_t which, uint32_t table)
{
    switch (which) {
    case Q_LIGHTING: return table < PVK_LIGHTING_LUTS ? PVK_LUT_ENTRIES : 0;
    case Q_PROCTEX: /* 0 noise, 2 RGB map, 3 alpha map, 4 color, 5 color difference */
        return table == 0 || table == 2 || table == 3 ? 128 : table == 4 || table == 5 ? 256 : 0;
    }
    return 0;
}

/* 3dbrew (VSH_COM_MODE): without its own configuration and with no
 * geometry shader in use, the geometry unit receives the vertex shader's
 * uploads too. */
static bool mirror_to_gs(const uint32_t *regs)
{
    return !pvk_vsh_com_mode(regs[PVK_GPUREG_VSH_COM_MODE]) && pvk_geostage_gs(regs[PVK_GPUREG_GEOSTAGE_CONFIG]) != 2;
}

/* FLOATUNIFORM_DATA words: three (f24) or four (f32, w z y x) make a uniform. */
/* `f32` is the mode of the unit whose port was written (a mirrored upload
 * keeps the vertex unit's mode). */
static void float_words(pvk_pica *p, unsigned u, bool f32, const uint32_t *v, uint32_t n)
{
    pvk_shader_unit *s = &p->sh[u];
    uint32_t need = f32 ? 4 : 3;
    for (uint32_t k = 0; k < n;) {
        const uint32_t *src;
        if (s->float_words == 0 && n - k >= need) { /* whole uniforms straight from the list */
            src = v + k;
            k += need;
        } else {
            s->float_buf[s->float_words++] = v[k++];
            if (s->float_words < need)
                continue;
            s->float_words = 0;
            src = s->float_buf;
        }
        uint32_t idx = s->float_index++;
        if (idx >= PVK_SH_FLOAT_UNIFORMS) {
            fifo_overflow(p, Q_FLOAT, idx);
            continue;
        }
        if (f32) {
            uint32_t *d = s->f[idx];
            d[3] = pvk_f32_to_f24(src[0]);
            d[2] = pvk_f32_to_f24(src[1]);
            d[1] = pvk_f32_to_f24(src[2]);
            d[0] = pvk_f32_to_f24(src[3]);
        } else {
            pvk_unpack_f24x4(src, s->f[idx]);
        }
    }
}

/* Shader-unit data ports.  `u` is 0 (geometry) or 1 (vertex); `off` the id
 * minus the unit's base. */
static uint32_t id_unit_base(uint32_t id)
{
    return id >= PVK_GPUREG_VSH_BASE ? PVK_GPUREG_VSH_BASE : PVK_GPUREG_GSH_BASE;
}

static void shader_port(pvk_pica *p, unsigned u, uint32_t h, uint32_t id, uint32_t off, uint32_t v)
{
    pvk_shader_unit *s = &p->sh[u];
    switch (h) {
    case H_SH_BOOL: s->b = v & 0xFFFF; break;
    case H_SH_INT: s->i[off - 1] = v; break;
    case H_SH_FLOAT_INDEX:
        s->float_index = v & 0xFF;
        s->float_words = 0;
        break;
    case H_SH_FLOAT_DATA:
        float_words(p, u, p->regs[id_unit_base(id) + 0x10] >> 31, &v, 1);
        break;
    case H_SH_CODE_INDEX: s->code_pos = v & 0xFFF; break;
    case H_SH_CODE_DATA:
        p->vs_hashed = false;
        if (s->code_pos < PVK_SH_CODE_WORDS)
            s->code[s->code_pos++] = v;
        else
            fifo_overflow(p, Q_CODE, s->code_pos);
        break;
    case H_SH_OPDESC_INDEX: s->opdesc_pos = v & 0xFFF; break;
    case H_SH_OPDESC_DATA:
        p->vs_hashed = false;
        if (s->opdesc_pos < PVK_SH_OPDESCS)
            s->opdesc[s->opdesc_pos++] = v;
        else
            fifo_overflow(p, Q_OPDESC, s->opdesc_pos);
        break;
    }
}

/* The side effect of writing `v` (already stored, merged from `old` by
 * byte mask `bm`) to register `id`. */
static __attribute__((noinline)) int side_effect(pvk_pica *p, uint32_t h, uint32_t id,
                                                 uint32_t v, uint32_t old, uint32_t bm)
{
    uint32_t *regs = p->regs;
    switch (h) {
    case H_IRQ:
        return irq_write(p, id, v, old, bm);
    case H_TEXUNIT_CONFIG:
        if (!(v & 0x10000))
            return FLOW_NONE;
        regs[id] = v & ~0x10000u; /* a trigger, not state */
        return cache_op(p, PVK_PICA_TEXTURE_CACHE_CLEAR);
    case H_EARLYDEPTH_CLEAR:
        return (v & 1) ? cache_op(p, PVK_PICA_EARLYDEPTH_CLEAR) : FLOW_NONE;
    case H_FB_INVALIDATE:
        return (v & 1) ? cache_op(p, PVK_PICA_FRAMEBUFFER_INVALIDATE) : FLOW_NONE;
    case H_FB_FLUSH:
        return (v & 1) ? cache_op(p, PVK_PICA_FRAMEBUFFER_FLUSH) : FLOW_NONE;

    case H_PROCTEX_LUT_INDEX: p->proctex_pos = pvk_proctex_lut_index(v); return FLOW_NONE;
    case H_FOG_LUT_INDEX: p->fog_pos = pvk_fog_lut_index(v); return FLOW_NONE;
    case H_GAS_LUT_INDEX: p->gas_pos = pvk_gas_lut_index(v); return FLOW_NONE;
    case H_LIGHTING_LUT_INDEX: p->lighting_pos = pvk_lighting_lut_index(v); return FLOW_NONE;
    case H_PROCTEX_LUT_DATA: {
        uint32_t t = pvk_proctex_lut_table(regs[PVK_GPUREG_PROCTEX_LUT]);
        if (p->proctex_pos < lut_size(Q_PROCTEX, t))
            p->proctex_lut[t][p->proctex_pos++] = v, p->lut_version++;
        else
            fifo_overflow(p, Q_PROCTEX, p->proctex_pos);
        return FLOW_NONE;
    }
    case H_FOG_LUT_DATA:
        if (p->fog_pos < PVK_FOG_LUT_ENTRIES)
            p->fog_lut[p->fog_pos++] = v, p->lut_version++;
        else
            fifo_overflow(p, Q_FOG, p->fog_pos);
        return FLOW_NONE;
    case H_GAS_LUT_DATA:
        if (p->gas_pos < PVK_GAS_LUT_ENTRIES)
            p->gas_lut[p->gas_pos++] = v;
        else
            fifo_overflow(p, Q_GAS, p->gas_pos);
        return FLOW_NONE;
    case H_LIGHTING_LUT_DATA: {
        uint32_t t = pvk_lighting_lut_table(regs[PVK_GPUREG_LIGHTING_LUT_INDEX]);
        if (p->lighting_pos < lut_size(Q_LIGHTING, t))
            p->lighting_lut[t][p->lighting_pos++] = v, p->lut_version++;
        else
            fifo_overflow(p, Q_LIGHTING, p->lighting_pos);
        return FLOW_NONE;
    }

    case H_DRAW_ARRAYS:
    case H_DRAW_ELEMENTS: {
        if (!bm || !v) /* 3dbrew: non-zero triggers */
            return FLOW_NONE;
        return draw(p, h == H_DRAW_ARRAYS ? PVK_DRAW_ARRAYS : PVK_DRAW_ELEMENTS, 0);
    }
    case H_FIXEDATTR_INDEX:
        p->fixed_index = pvk_fixedattrib_index(v);
        p->attr_words = 0;
        p->imm_count = 0;
        p->gs.fill = p->gs.prim_left = p->gs.prim_vertex = 0; /* the geometry input buffer too (gs.c) */
        return FLOW_NONE;
    case H_FIXEDATTR_DATA: {
        /* Three words make one attribute whichever of DATA0-2 they went to. */
        p->attr_buf[p->attr_words++] = v;
        if (p->attr_words < 3)
            return FLOW_NONE;
        p->attr_words = 0;
        uint32_t a[4];
        pvk_unpack_f24x4(p->attr_buf, a);
        if (p->fixed_index == 0xF) { /* immediate mode: attributes of one vertex in order */
            memcpy(p->imm[p->imm_count++], a, sizeof a);
            uint32_t n = pvk_vsh_num_attr_m1(regs[PVK_GPUREG_VSH_NUM_ATTR]) + 1;
            if (p->imm_count < n)
                return FLOW_NONE;
            p->imm_count = 0;
            return draw(p, PVK_DRAW_IMMEDIATE, n);
        }
        if (p->fixed_index < PVK_FIXED_ATTRS)
            memcpy(p->fixed_attr[p->fixed_index++], a, sizeof a);
        else
            fifo_overflow(p, Q_FIXED, p->fixed_index);
        return FLOW_NONE;
    }
    case H_CMDBUF_JUMP:
        /* Inside a list any write jumps (GBATEK: value don't care); the CPU
         * starts a list with bit 0 (seed 004). */
        if (p->in_list ? !bm : !(v & 1))
            return FLOW_NONE;
        return id == PVK_GPUREG_CMDBUF_JUMP0 ? FLOW_JUMP0 : FLOW_JUMP1;

    default: { /* shader units */
        unsigned u = id >= PVK_GPUREG_VSH_BASE;
        uint32_t off = id - (u ? PVK_GPUREG_VSH_BASE : PVK_GPUREG_GSH_BASE);
        shader_port(p, u, h, id, off, v);
        if (u && mirror_to_gs(regs)) {
            shader_port(p, 0, h, id, off, v);
            p->dirty |= (p->info[id] & PVK_DIRTY_ALL) >> 3; /* VS_* bits -> GS_* bits */
        }
        return FLOW_NONE;
    }
    }
}
_Static_assert(PVK_DIRTY_VS_CONFIG >> 3 == PVK_DIRTY_GS_CONFIG && PVK_DIRTY_VS_UNIFORM >> 3 == PVK_DIRTY_GS_UNIFORM &&
                   PVK_DIRTY_VS_CODE >> 3 == PVK_DIRTY_GS_CODE,
               "VS dirty bits shift onto GS dirty bits");

static void shader_block(pvk_pica *p, unsigned u, uint32_t h, uint32_t id, const uint32_t *v,
                         uint32_t n)
{
    pvk_shader_unit *s = &p->sh[u];
    if (h != H_SH_FLOAT_DATA)
        p->vs_hashed = false;
    if (h == H_SH_FLOAT_DATA)
        float_words(p, u, p->regs[id_unit_base(id) + 0x10] >> 31, v, n);
    else if (h == H_SH_CODE_DATA)
        fifo_copy(p, Q_CODE, s->code, PVK_SH_CODE_WORDS, &s->code_pos, v, n);
    else
        fifo_copy(p, Q_OPDESC, s->opdesc, PVK_SH_OPDESCS, &s->opdesc_pos, v, n);
}

/* The extra parameters of a full-mask, fixed-id command to a data port, as
 * one block: the common way uniforms, code and LUTs are uploaded.  Returns
 * -1 when `h` has no block form. */
static int port_block(pvk_pica *p, uint32_t h, uint32_t id, const uint32_t *v, uint32_t n)
{
    switch (h) {
    case H_SH_FLOAT_DATA:
    case H_SH_CODE_DATA:
    case H_SH_OPDESC_DATA: {
        unsigned u = id >= PVK_GPUREG_VSH_BASE;
        pvk_shader_unit *vs = &p->sh[1], *gs = &p->sh[0];
        uint32_t first = vs->float_index;
        /* Mirrored uniforms with both units in step: convert once, copy. */
        bool copy = u && h == H_SH_FLOAT_DATA && mirror_to_gs(p->regs) && !vs->float_words && !gs->float_words &&
                    gs->float_index == first;
        shader_block(p, u, h, id, v, n);
        if (u && mirror_to_gs(p->regs)) {
            if (copy && !vs->float_words && vs->float_index <= PVK_SH_FLOAT_UNIFORMS) {
                memcpy(gs->f[first], vs->f[first], (vs->float_index - first) * sizeof vs->f[0]);
                gs->float_index = vs->float_index;
            } else {
                shader_block(p, 0, h, id, v, n);
            }
            p->dirty |= (p->info[id] & PVK_DIRTY_ALL) >> 3;
        }
        break;
    }
    case H_LIGHTING_LUT_DATA: {
        uint32_t t = pvk_lighting_lut_table(p->regs[PVK_GPUREG_LIGHTING_LUT_INDEX]);
        p->lut_version++;
        if (t < PVK_LIGHTING_LUTS)
            fifo_copy(p, Q_LIGHTING, p->lighting_lut[t], PVK_LUT_ENTRIES, &p->lighting_pos, v, n);
        else
            fifo_overflow_n(p, Q_LIGHTING, p->lighting_pos, n);
        break;
    }
    case H_FOG_LUT_DATA:
        p->lut_version++;
        fifo_copy(p, Q_FOG, p->fog_lut, PVK_FOG_LUT_ENTRIES, &p->fog_pos, v, n);
        break;
    case H_PROCTEX_LUT_DATA: {
        uint32_t t = pvk_proctex_lut_table(p->regs[PVK_GPUREG_PROCTEX_LUT]);
        uint32_t size = lut_size(Q_PROCTEX, t);
        p->lut_version++;
        if (size)
            fifo_copy(p, Q_PROCTEX, p->proctex_lut[t], size, &p->proctex_pos, v, n);
        else
            fifo_overflow_n(p, Q_PROCTEX, p->proctex_pos, n);
        break;
    }
    default:
        return -1;
    }
    p->regs[id] = v[n - 1];
    return FLOW_NONE;
}

/* ---- decoding ---- */

static int list_error(pvk_pica *p, pvk_result r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int list_error(pvk_pica *p, pvk_result r, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pvk_pica_bad_input(p, "command list: %s; list stopped", msg);
    p->error = r;
    return FLOW_ERROR;
}

/* Decode n words; returns a FLOW_* code (FLOW_NONE: ran to the end). */
static int decode(pvk_pica *p, const uint32_t *w, uint32_t n)
{
    uint32_t *regs = p->regs;
    const uint32_t *info = p->info;
    uint32_t dirty = 0;
    uint64_t writes = 0;
    uint32_t pos = 0;
    int flow = FLOW_NONE;

/* One register write: merge, store, mark, side effect. */
#define PVK_WRITE_(reg, val)                                                                  \
    do {                                                                                       \
        uint32_t id_ = (reg), old_ = regs[id_], v_ = (old_ & ~bm) | ((val) & bm);              \
        uint32_t inf_ = info[id_];                                                             \
        regs[id_] = v_;                                                                        \
        dirty |= inf_;                                                                         \
        if (inf_ >> H_SHIFT) {                                                                 \
            /* merged once: a bit a side effect consumes must not return */                    \
            p->dirty |= dirty & PVK_DIRTY_ALL;                                                 \
            dirty = 0;                                                                         \
            flow = side_effect(p, inf_ >> H_SHIFT, id_, v_, old_, bm);                    \
            if (flow)                                                                          \
                goto out;                                                                      \
        }                                                                                      \
    } while (0)

    while (n - pos >= 2) {
        uint32_t hdr = w[pos + 1];
        uint32_t id = hdr & 0xFFFF, extra = (hdr >> 20) & 0xFF, step = hdr >> 31;
        if (extra > n - pos - 2) {
            flow = list_error(p, PVK_ERROR_BAD_PARAMETERS,
                              "command at word %u has %u extra parameters, past the end of its buffer", pos, extra);
            goto out;
        }
        if (id + (step ? extra : 0) >= PVK_PICA_REG_COUNT) {
            flow = list_error(p, PVK_ERROR_BAD_PARAMETERS, "command at word %u writes register 0x%X (> 0x3FF)",
                              pos, id + (step ? extra : 0));
            goto out;
        }
        uint32_t bm = mask_bytes[(hdr >> 16) & 0xF];
        uint32_t first = w[pos];
        const uint32_t *prm = w + pos + 2;
        pos += 2 + extra + (extra & 1);
        writes += 1 + extra;
        PVK_WRITE_(id, first);
        if (!step && extra && bm == 0xFFFFFFFFu && (info[id] >> H_SHIFT) >= H_PROCTEX_LUT_DATA) {
            int f = port_block(p, info[id] >> H_SHIFT, id, prm, extra);
            if (f >= 0)
                continue;
        }
        if (step) {
            for (uint32_t k = 0; k < extra; k++)
                PVK_WRITE_(id + 1 + k, prm[k]);
        } else {
            for (uint32_t k = 0; k < extra; k++)
                PVK_WRITE_(id, prm[k]);
        }
    }
    if (pos < n) /* a lone trailing word (only from pvk_cmdlist_run_words) */
        flow = list_error(p, PVK_ERROR_BAD_PARAMETERS, "a command header at word %u is past the end", pos);
out:
#undef PVK_WRITE_
    p->dirty |= dirty & PVK_DIRTY_ALL;
    p->counters.writes += writes;
    return flow;
}

/* The buffer of `channel` as host words. */
static pvk_result channel_words(pvk_pica *p, unsigned ch, const uint32_t **w, uint32_t *n)
{
    uint32_t size_reg = p->regs[PVK_GPUREG_CMDBUF_SIZE0 + ch], addr_reg = p->regs[PVK_GPUREG_CMDBUF_ADDR0 + ch];
    if (addr_reg & 1) {
        pvk_pica_bad_input(p, "command list %u: address 0x%08X is not 16-byte aligned; not run", ch, addr_reg << 3);
        return PVK_ERROR_BAD_PARAMETERS;
    }
    uint32_t bytes = pvk_cmdbuf_bytes(size_reg), paddr = pvk_cmdbuf_paddr(addr_reg);
    if (size_reg & 1) /* hardware drops the last 8 bytes (3dbrew); do the same, but say so */
        pvk_pica_bad_input(p, "command list %u: size 0x%X bytes is not a multiple of 16; the last 8 bytes are ignored",
                      ch, (size_reg & 0x1FFFFF) << 3);
    if (!bytes) {
        pvk_pica_bad_input(p, "command list %u at 0x%08X is empty; not run", ch, paddr);
        return PVK_ERROR_BAD_PARAMETERS;
    }
    const void *host = p->env.guest_read ? p->env.guest_read(p->env.user, paddr, bytes) : NULL;
    if (!host) {
        pvk_pica_report_msg(p, PVK_PICA_OUT_OF_RANGE, PVK_LOG_ERROR,
                            "command list: guest range 0x%08X+0x%X is outside guest memory", paddr, bytes);
        return PVK_ERROR_OUT_OF_RANGE;
    }
    *w = host;
    *n = bytes / 4;
    return PVK_SUCCESS;
}

/* Decode `w` (if any) and then follow jumps through guest memory. */
static pvk_result run_chain(pvk_pica *p, const uint32_t *w, uint32_t n, unsigned ch)
{
    pvk_result r = PVK_SUCCESS;
    uint32_t words = 0, jumps = 0;
    p->in_list = true;
    p->overflow_logged = 0;
    p->error = PVK_SUCCESS;
    p->budget_stop = false;
    p->counters.lists++;
    for (;;) {
        if (!w) {
            r = channel_words(p, ch, &w, &n);
            if (r)
                break;
        }
        if (n > PVK_CMDLIST_MAX_WORDS - words) {
            pvk_pica_bad_input(p, "command list: more than %u words in one kick (a jump loop?); stopped",
                          PVK_CMDLIST_MAX_WORDS);
            r = PVK_ERROR_BAD_PARAMETERS;
            break;
        }
        words += n;
        int flow = decode(p, w, n);
        w = NULL;
        if (flow == FLOW_JUMP0 || flow == FLOW_JUMP1) {
            p->counters.jumps++;
            if (++jumps > PVK_CMDLIST_MAX_JUMPS) {
                pvk_pica_bad_input(p, "command list: more than %u jumps in one kick (a jump loop?); stopped",
                              PVK_CMDLIST_MAX_JUMPS);
                r = PVK_ERROR_BAD_PARAMETERS;
                break;
            }
            ch = flow == FLOW_JUMP0 ? 0 : 1;
            continue;
        }
        if (flow == FLOW_ERROR)
            r = p->error;
        else if (flow == FLOW_NONE)
            pvk_pica_debug(p, "command list ended without FINALIZE (real hardware would hang)");
        break;
    }
    p->in_list = false;
    /* Too much work, not a hang: hardware would have reached the list's end,
     * so the guest gets the P3D its FINALIZE would have raised. */
    if (p->budget_stop && p->env.p3d)
        p->env.p3d(p->env.user, p->irq_active != 0, true);
    /* seed 004: the start bit reads 0 once the list is done */
    p->regs[PVK_GPUREG_CMDBUF_JUMP0] = p->regs[PVK_GPUREG_CMDBUF_JUMP1] = 0;
    return r;
}

pvk_result pvk_cmdlist_kick(pvk_pica *p, unsigned channel)
{
    if (!p || channel > 1)
        return PVK_ERROR_INVALID_ARGUMENT;
    if (!p->ready)
        pvk_pica_reset(p);
    return run_chain(p, NULL, 0, channel);
}

pvk_result pvk_cmdlist_run_words(pvk_pica *p, const uint32_t *words, uint32_t count)
{
    if (!p || (!words && count))
        return PVK_ERROR_INVALID_ARGUMENT;
    if (!p->ready)
        pvk_pica_reset(p);
    if (!count)
        return PVK_SUCCESS;
    return run_chain(p, words, count, 0);
}

/* A CPU write through the external window: the whole word, side effects
 * as from a list except that IRQ registers follow CPU rules. */
pvk_result pvk_pica_write(pvk_pica *p, uint32_t id, uint32_t value)
{
    if (id >= PVK_PICA_REG_COUNT)
        return PVK_ERROR_OUT_OF_RANGE;
    if (!p->ready)
        pvk_pica_reset(p);
    p->in_list = false;
    p->error = PVK_SUCCESS;
    uint32_t old = p->regs[id], inf = p->info[id];
    p->regs[id] = value;
    p->dirty |= inf & PVK_DIRTY_ALL;
    if (!(inf >> H_SHIFT))
        return PVK_SUCCESS;
    int flow = side_effect(p, inf >> H_SHIFT, id, value, old, 0xFFFFFFFFu);
    if (flow == FLOW_JUMP0 || flow == FLOW_JUMP1)
        return run_chain(p, NULL, 0, flow == FLOW_JUMP0 ? 0 : 1);
    if (flow == FLOW_ERROR)
        return p->error;
    return PVK_SUCCESS;
}

/* Reset: zeros, except what GSP sets at GPU init (GBATEK "Finalize
 * Interrupt registers"): compare bytes 0-3 = 0x12345678, only those four
 * enabled, autostop on, so a FINALIZE writing 0x12345678 ends the list and
 * raises P3D even when the host emulates GSP at a high level. */
void pvk_pica_reset(pvk_pica *p)
{
    pvk_pica_env env = p->env;
    pvk_pica_counters counters = p->counters;
    bool draw_logged = p->draw_logged;
    uint64_t lut_version = p->lut_version + 1; /* never repeats: the runtime caches uploads by it */
    uint64_t uniforms_version = p->draw_uniforms_version + 1; /* likewise */
    memset(p, 0, sizeof *p);
    p->lut_version = lut_version;
    p->draw_uniforms_version = uniforms_version;
    p->env = env;
    p->counters = counters;
    pvk_pica_new_call(p);
    p->draw_logged = draw_logged; /* once per context */
    build_info(p->info);
    p->regs[PVK_GPUREG_IRQ_CMP] = 0x12345678u;
    p->regs[PVK_GPUREG_IRQ_MASK] = 0xFFFFFFF0u;
    p->regs[PVK_GPUREG_IRQ_MASK_HIGH] = 0xFFFFFFFFu;
    p->regs[PVK_GPUREG_IRQ_AUTOSTOP] = 1;
    p->regs[PVK_GPUREG_FIXED_00010002] = 0x00010002u;
    p->ready = true;
    irq_update(p, 0);
    p->dirty = PVK_DIRTY_ALL;
}
