/* Vertex attribute loading (translator/attrib.c): registers set through the
 * CPU window 0x10401000 + 4 * id, attribute data written into guest memory,
 * and the input registers compared with values the test computes from the
 * layout rules (3dbrew GPU/Internal Registers 0x200-0x22A; element-size
 * alignment and padding as Citra's vertex loader; buffers override the fixed
 * mask as 3dbrew GPU/Programming Guide says).  Covers every format x
 * component count x padding x stride, alignment after odd-sized attributes,
 * several buffers, fixed attributes, the permutation, u8/u16 index buffers,
 * VERTEX_OFFSET, and out-of-range buffers, indices and configurations. */
#include <math.h>

#include "harness.h"
#include "runtime/runtime.h"
#include "translator/geometry.h"

#define REGS 0x10401000u
#define FCRAM_END (PVK_FCRAM_BASE + PVK_FCRAM_SIZE)
#define SENTINEL(r, c) (1000.0f + 10.0f * (float)(r) + (float)(c))

static void wr(pvk_context *ctx, uint32_t id, uint32_t v) { CHECK_EQ(pvk_mmio_write32(ctx, REGS + 4 * id, v), 0); }

/* ---- the register setup a test describes ---- */

typedef struct bufcfg {
    uint32_t offset, stride, n; /* n = 0: loader unused */
    uint8_t order[12];
} bufcfg;

typedef struct setup {
    uint32_t base;
    uint32_t total, vs;          /* FORMAT_HIGH attribute count, VSH_NUM_ATTR + 1 */
    uint8_t type[12], comps[12]; /* 0 s8, 1 u8, 2 s16, 3 f32; 1-4 */
    uint32_t fixed_mask;
    uint8_t perm[12];            /* attribute -> input register */
    bufcfg buf[12];              /* by loader */
} setup;

static void apply(pvk_context *ctx, const setup *s)
{
    uint32_t low = 0, high = 0, plo = 0, phi = 0;
    for (int i = 0; i < 12; i++) {
        uint32_t f = s->type[i] | (uint32_t)(s->comps[i] ? s->comps[i] - 1 : 0) << 2;
        if (i < 8) {
            low |= f << (4 * i);
            plo |= (uint32_t)s->perm[i] << (4 * i);
        } else {
            high |= f << (4 * (i - 8));
            phi |= (uint32_t)s->perm[i] << (4 * (i - 8));
        }
    }
    high |= (s->fixed_mask & 0xFFFu) << 16 | ((s->total - 1) & 0xFu) << 28;
    wr(ctx, PVK_GPUREG_ATTRIBBUFFERS_LOC, s->base >> 3);
    wr(ctx, PVK_GPUREG_ATTRIBBUFFERS_FORMAT_LOW, low);
    wr(ctx, PVK_GPUREG_ATTRIBBUFFERS_FORMAT_HIGH, high);
    for (uint32_t l = 0; l < 12; l++) {
        const bufcfg *b = &s->buf[l];
        uint32_t c1 = 0, c2 = 0;
        for (int c = 0; c < 12; c++) {
            if (c < 8)
                c1 |= (uint32_t)(b->order[c] & 0xF) << (4 * c);
            else
                c2 |= (uint32_t)(b->order[c] & 0xF) << (4 * (c - 8));
        }
        c2 |= (b->stride & 0xFFu) << 16 | (b->n & 0xFu) << 28;
        wr(ctx, PVK_GPUREG_ATTRIBBUFFER0_OFFSET + 3 * l, b->offset);
        wr(ctx, PVK_GPUREG_ATTRIBBUFFER0_CONFIG1 + 3 * l, c1);
        wr(ctx, PVK_GPUREG_ATTRIBBUFFER0_CONFIG2 + 3 * l, c2);
    }
    wr(ctx, PVK_GPUREG_VSH_NUM_ATTR, s->vs - 1);
    wr(ctx, PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_LOW, plo);
    wr(ctx, PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_HIGH, phi);
}

/* ---- the layout rules, restated ---- */

static const uint32_t esize[4] = {1, 1, 2, 4};
static uint32_t up(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }

/* Byte offset of each attribute entry of loader l's order list. */
static void layout(const setup *s, uint32_t l, uint32_t off[12])
{
    uint32_t pos = 0;
    for (uint32_t c = 0; c < s->buf[l].n; c++) {
        uint32_t e = s->buf[l].order[c];
        if (e >= 12) {
            pos = up(pos, 4) + 4 * (e - 11);
            continue;
        }
        pos = up(pos, esize[s->type[e]]);
        off[c] = pos;
        pos += esize[s->type[e]] * s->comps[e];
    }
}

/* Floats written for f32 components and what f24 keeps of them (the
 * mantissa truncated to 16 bits, out-of-range exponents to 0 / infinity). */
static const uint32_t fvals[][2] = {
    {0x00000000, 0x00000000}, {0x3F800000, 0x3F800000}, {0xBF800000, 0xBF800000}, {0x3F000000, 0x3F000000},
    {0x40500000, 0x40500000}, {0xC49A5000, 0xC49A5000}, {0x477FE000, 0x477FE000}, /* 0 1 -1 .5 3.25 -1234.5 65504 */
    {0x3F800008, 0x3F800000}, /* 1 + 2^-20 -> 1 */
    {0x40490FDB, 0x40490F80}, /* pi, truncated */
    {0x0DA24260, 0x00000000}, /* 1e-30 -> 0 */
    {0xF149F2CA, 0xFF800000}, /* -1e30 -> -inf */
    {0x5E800000, 0x5E800000}, /* 2^62 */
};
#define NFVALS (sizeof fvals / sizeof fvals[0])

static float bits_f(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* Write component c of an attribute at p (random for integers, a table entry
 * for floats) and return the value the loader must produce. */
static float put_comp(uint8_t *p, uint32_t type, uint32_t c)
{
    uint32_t r = th_rand();
    switch (type) {
    case 0:
        p[c] = (uint8_t)r;
        return (float)(int8_t)(uint8_t)r;
    case 1:
        p[c] = (uint8_t)r;
        return (float)(uint8_t)r;
    case 2:
        p[2 * c] = (uint8_t)r;
        p[2 * c + 1] = (uint8_t)(r >> 8);
        return (float)(int16_t)(uint16_t)r;
    default: {
        const uint32_t *fv = fvals[r % NFVALS];
        for (int k = 0; k < 4; k++)
            p[4 * c + k] = (uint8_t)(fv[0] >> (8 * k));
        return bits_f(fv[1]);
    }
    }
}

/* Write attribute `a` of vertex `n` per the layout; expected values to exp. */
static void put_attr(pvk_context *ctx, const setup *s, uint32_t l, uint32_t off, uint32_t a, uint32_t n, float exp[4])
{
    uint32_t addr = s->base + s->buf[l].offset + s->buf[l].stride * n + off;
    uint8_t *p = pvk_guest_ptr(ctx, addr, esize[s->type[a]] * s->comps[a]);
    CHECK(p != NULL);
    if (!p)
        return;
    exp[0] = exp[1] = exp[2] = 0.0f;
    exp[3] = 1.0f;
    for (uint32_t c = 0; c < s->comps[a]; c++)
        exp[c] = put_comp(p, s->type[a], c);
}

static void fill_sentinel(float v[PVK_SH_INPUTS][4])
{
    for (int r = 0; r < PVK_SH_INPUTS; r++)
        for (int c = 0; c < 4; c++)
            v[r][c] = SENTINEL(r, c);
}

static int same(float a, float b) { return memcmp(&a, &b, sizeof a) == 0 || (a == b); }

#define CHECK_VEC(v, e)                                                                                  \
    do {                                                                                                 \
        int ok_ = 1;                                                                                     \
        for (int c_ = 0; c_ < 4; c_++)                                                                   \
            ok_ &= same((v)[c_], (e)[c_]);                                                               \
        CHECK(ok_);                                                                                      \
        if (!ok_)                                                                                        \
            fprintf(stderr, "  got %g %g %g %g, want %g %g %g %g\n", (v)[0], (v)[1], (v)[2], (v)[3], (e)[0], \
                    (e)[1], (e)[2], (e)[3]);                                                             \
    } while (0)

static void scramble(pvk_context *ctx, uint32_t addr, uint32_t len)
{
    uint8_t *p = pvk_guest_ptr(ctx, addr, len);
    CHECK(p != NULL);
    for (uint32_t i = 0; p && i < len; i++)
        p[i] = (uint8_t)th_rand();
}

/* ---- every format x component count x padding x stride, with and without
 * a one-byte attribute in front that forces the alignment ---- */
static void test_formats(pvk_context *ctx)
{
    static const int pads[] = {-1, 12, 13, 14, 15};
    static const uint32_t extras[] = {0, 4, 7};
    static const uint32_t verts[] = {0, 1, 2, 9};
    int combo = 0;
    for (uint32_t type = 0; type < 4; type++)
        for (uint32_t comps = 1; comps <= 4; comps++)
            for (int pi = 0; pi < 5; pi++)
                for (int prefix = 0; prefix < 2; prefix++)
                    for (int xi = 0; xi < 3; xi++, combo++) {
                        setup s = {0};
                        s.base = PVK_FCRAM_BASE + 0x100000;
                        s.total = s.vs = 2;
                        s.type[0] = (uint8_t)type, s.comps[0] = (uint8_t)comps; /* under test */
                        s.type[1] = 1, s.comps[1] = 1;                          /* u8 x1 prefix */
                        s.perm[0] = 5, s.perm[1] = 9;
                        uint32_t l = (uint32_t)combo % 12;
                        bufcfg *b = &s.buf[l];
                        b->offset = 0x40 * (uint32_t)(combo % 5);
                        if (prefix)
                            b->order[b->n++] = 1;
                        if (pads[pi] >= 0)
                            b->order[b->n++] = (uint8_t)pads[pi];
                        b->order[b->n++] = 0;
                        uint32_t off[12] = {0};
                        layout(&s, l, off);
                        uint32_t end = off[b->n - 1] + esize[type] * comps;
                        b->stride = end + extras[xi];
                        apply(ctx, &s);

                        pvk_attrib_plan plan;
                        CHECK_EQ(pvk_attrib_plan_build(&ctx->pica, &plan), PVK_SUCCESS);
                        CHECK_EQ(plan.attribs, 2);
                        CHECK_EQ(plan.buffers, 1);
                        CHECK_EQ(plan.buf[0].loader, l);
                        CHECK_EQ(plan.buf[0].stride, b->stride);
                        CHECK_EQ(plan.a[0].offset, off[b->n - 1]);
                        scramble(ctx, s.base + b->offset, b->stride * 10 + 16);
                        for (int vi = 0; vi < 4; vi++) {
                            float e0[4], e1[4] = {0}, v[PVK_SH_INPUTS][4];
                            put_attr(ctx, &s, l, off[b->n - 1], 0, verts[vi], e0);
                            if (prefix)
                                put_attr(ctx, &s, l, 0, 1, verts[vi], e1);
                            fill_sentinel(v);
                            CHECK_EQ(pvk_attrib_fetch(&ctx->pica, &plan, verts[vi], v), PVK_SUCCESS);
                            CHECK_VEC(v[5], e0);
                            for (int r = 0; r < PVK_SH_INPUTS; r++) {
                                if (r == 5 || (r == 9 && prefix))
                                    continue;
                                float sent[4] = {SENTINEL(r, 0), SENTINEL(r, 1), SENTINEL(r, 2), SENTINEL(r, 3)};
                                CHECK_VEC(v[r], sent); /* attribute 1 not in a buffer, not fixed */
                            }
                            if (prefix)
                                CHECK_VEC(v[9], e1);
                        }
                    }
}

/* Offsets written out by hand from the rules for three buffers. */
static void test_buffers(pvk_context *ctx)
{
    setup s = {0};
    s.base = PVK_FCRAM_BASE + 0x200000;
    s.total = s.vs = 12;
    static const uint8_t t[12] = {3, 1, 2, 0, 2, 3, 1, 3, 0, 2, 0, 3};
    static const uint8_t n[12] = {3, 4, 2, 3, 1, 1, 1, 2, 4, 3, 2, 4};
    for (int i = 0; i < 12; i++) {
        s.type[i] = t[i], s.comps[i] = n[i];
        s.perm[i] = (uint8_t)((i * 7 + 3) % 16); /* a permutation of distinct registers */
    }
    /* loader 0: f32x3 @0, u8x4 @12, s16x2 @16; stride 20 */
    s.buf[0] = (bufcfg){.offset = 0x0, .stride = 20, .n = 3, .order = {0, 1, 2}};
    /* loader 3: s8x3 @0, s16x1 @4 (aligned from 3), 8-byte pad (4 -> 8 -> 16), f32x1 @16; stride 24 */
    s.buf[3] = (bufcfg){.offset = 0x1000, .stride = 24, .n = 4, .order = {3, 4, 13, 5}};
    /* loader 11 at an odd offset: u8x1 @0, f32x2 @4, s16x3 @12 (attribute 9, also
     * marked fixed: the buffer wins); 16-byte pad after it; stride 36 */
    s.buf[11] = (bufcfg){.offset = 0x2003, .stride = 36, .n = 4, .order = {6, 7, 9, 15}};
    /* attribute 8: fixed; 10: neither (register untouched); 11: fixed */
    s.fixed_mask = 1u << 8 | 1u << 9 | 1u << 11;
    apply(ctx, &s);

    /* fixed values through FIXEDATTRIB_INDEX / DATA0-2 as a program sends them */
    static const float fx8[4] = {1.5f, -2.0f, 0.25f, 8.0f}, fx11[4] = {-0.0f, 100.0f, 3.0f, -7.5f};
    const float *fx[2] = {fx8, fx11};
    const uint32_t fidx[2] = {8, 11};
    for (int k = 0; k < 2; k++) {
        uint32_t f24[4], w[3];
        for (int c = 0; c < 4; c++) {
            uint32_t b;
            memcpy(&b, &fx[k][c], 4);
            f24[c] = pvk_f32_to_f24(b);
        }
        pvk_pack_f24x4(f24, w);
        wr(ctx, PVK_GPUREG_FIXEDATTRIB_INDEX, fidx[k]);
        for (int j = 0; j < 3; j++)
            wr(ctx, PVK_GPUREG_FIXEDATTRIB_DATA0 + (uint32_t)j, w[j]);
    }

    pvk_attrib_plan plan;
    CHECK_EQ(pvk_attrib_plan_build(&ctx->pica, &plan), PVK_SUCCESS);
    CHECK_EQ(plan.base, s.base);
    CHECK_EQ(plan.attribs, 12);
    CHECK_EQ(plan.buffers, 3);
    static const uint32_t want_off[12] = {0, 12, 16, 0, 4, 16, 0, 4, 0, 12, 0, 0};
    static const int want_buf[12] = {0, 0, 0, 1, 1, 1, 2, 2, -1, 2, -1, -1};
    for (int i = 0; i < 12; i++) {
        CHECK_EQ(plan.a[i].loaded, want_buf[i] >= 0);
        CHECK_EQ(plan.a[i].reg, s.perm[i]);
        if (want_buf[i] >= 0) {
            CHECK_EQ(plan.a[i].buf, want_buf[i]);
            CHECK_EQ(plan.a[i].offset, want_off[i]);
        }
    }
    CHECK(plan.a[8].fixed && plan.a[11].fixed && !plan.a[9].fixed && !plan.a[10].fixed);
    CHECK_EQ(plan.buf[0].extent, 20);
    CHECK_EQ(plan.buf[1].extent, 20);
    CHECK_EQ(plan.buf[2].extent, 18); /* trailing padding is not read */

    scramble(ctx, s.base, 0x3000);
    static const uint32_t verts[] = {0, 3, 17, 40};
    for (int vi = 0; vi < 4; vi++) {
        uint32_t nv = verts[vi];
        float e[12][4], v[PVK_SH_INPUTS][4];
        static const uint32_t loader_of[12] = {0, 0, 0, 3, 3, 3, 11, 11, 0, 11, 0, 0};
        for (int i = 0; i < 12; i++)
            if (want_buf[i] >= 0)
                put_attr(ctx, &s, loader_of[i], want_off[i], (uint32_t)i, nv, e[i]);
        memcpy(e[8], fx8, sizeof fx8);
        memcpy(e[11], fx11, sizeof fx11);
        fill_sentinel(v);
        CHECK_EQ(pvk_attrib_fetch(&ctx->pica, &plan, nv, v), PVK_SUCCESS);
        for (int i = 0; i < 12; i++) {
            if (i == 10) {
                float sent[4] = {SENTINEL(s.perm[i], 0), SENTINEL(s.perm[i], 1), SENTINEL(s.perm[i], 2),
                                 SENTINEL(s.perm[i], 3)};
                CHECK_VEC(v[s.perm[i]], sent);
            } else {
                CHECK_VEC(v[s.perm[i]], e[i]);
            }
        }
        /* registers no attribute maps keep their values */
        for (int r = 0; r < PVK_SH_INPUTS; r++) {
            int mapped = 0;
            for (int i = 0; i < 12; i++)
                mapped |= s.perm[i] == r;
            if (!mapped) {
                float sent[4] = {SENTINEL(r, 0), SENTINEL(r, 1), SENTINEL(r, 2), SENTINEL(r, 3)};
                CHECK_VEC(v[r], sent);
            }
        }
    }

    /* Only VSH_NUM_ATTR + 1 attributes reach the shader. */
    s.vs = 4;
    apply(ctx, &s);
    CHECK_EQ(pvk_attrib_plan_build(&ctx->pica, &plan), PVK_SUCCESS);
    CHECK_EQ(plan.attribs, 4);
    CHECK_EQ(plan.buf[1].extent, 3); /* loader 3 reads only attribute 3 */
    float v[PVK_SH_INPUTS][4];
    fill_sentinel(v);
    CHECK_EQ(pvk_attrib_fetch(&ctx->pica, &plan, 0, v), PVK_SUCCESS);
    for (int i = 4; i < 12; i++)
        CHECK(same(v[s.perm[i]][0], SENTINEL(s.perm[i], 0)));
    /* ... and only the FORMAT_HIGH count are loaded. */
    s.vs = 12, s.total = 2;
    apply(ctx, &s);
    CHECK_EQ(pvk_attrib_plan_build(&ctx->pica, &plan), PVK_SUCCESS);
    CHECK_EQ(plan.attribs, 2);
    CHECK_EQ(plan.buffers, 3);
    CHECK_EQ(plan.buf[1].extent, 0);
    fill_sentinel(v);
    CHECK_EQ(pvk_attrib_fetch(&ctx->pica, &plan, 0, v), PVK_SUCCESS);
    CHECK(!same(v[s.perm[1]][0], SENTINEL(s.perm[1], 0)) || s.type[1] != 1);
    for (int i = 2; i < 12; i++)
        CHECK(same(v[s.perm[i]][0], SENTINEL(s.perm[i], 0)));

    /* Two attributes on one register: the later attribute wins. */
    s.total = s.vs = 2;
    s.perm[1] = s.perm[0];
    apply(ctx, &s);
    CHECK_EQ(pvk_attrib_plan_build(&ctx->pica, &plan), PVK_SUCCESS);
    float e1[4];
    put_attr(ctx, &s, 0, 12, 1, 5, e1);
    CHECK_EQ(pvk_attrib_fetch(&ctx->pica, &plan, 5, v), PVK_SUCCESS);
    CHECK_VEC(v[s.perm[0]], e1);
}

/* Index buffers and VERTEX_OFFSET, then index -> fetch end to end. */
static void test_indices(pvk_context *ctx)
{
    setup s = {0};
    s.base = PVK_FCRAM_BASE + 0x300000;
    s.total = s.vs = 1;
    s.type[0] = 2, s.comps[0] = 2; /* s16 x2 */
    s.perm[0] = 0;
    s.buf[0] = (bufcfg){.offset = 0x10, .stride = 4, .n = 1, .order = {0}};
    apply(ctx, &s);
    uint8_t *vb = pvk_guest_ptr(ctx, s.base + 0x10, 4 * 300);
    CHECK(vb != NULL);
    for (int i = 0; vb && i < 300; i++) { /* vertex i = (i, -i) */
        int16_t x = (int16_t)i, y = (int16_t)-i;
        memcpy(vb + 4 * i, &x, 2);
        memcpy(vb + 4 * i + 2, &y, 2);
    }
    pvk_attrib_plan plan;
    CHECK_EQ(pvk_attrib_plan_build(&ctx->pica, &plan), PVK_SUCCESS);

    /* DRAWARRAYS: VERTEX_OFFSET + i */
    wr(ctx, PVK_GPUREG_VERTEX_OFFSET, 7);
    uint32_t idx = 0;
    for (uint32_t i = 0; i < 5; i++) {
        CHECK_EQ(pvk_draw_vertex_index(&ctx->pica, false, i, &idx), PVK_SUCCESS);
        CHECK_EQ(idx, 7 + i);
    }

    /* u8 indices at base + 0x2000 (VERTEX_OFFSET is ignored) */
    static const uint8_t i8[] = {0, 255, 3, 3, 128, 1};
    memcpy(pvk_guest_ptr(ctx, s.base + 0x2000, sizeof i8), i8, sizeof i8);
    wr(ctx, PVK_GPUREG_INDEXBUFFER_CONFIG, 0x2000);
    for (uint32_t i = 0; i < sizeof i8; i++) {
        CHECK_EQ(pvk_draw_vertex_index(&ctx->pica, true, i, &idx), PVK_SUCCESS);
        CHECK_EQ(idx, i8[i]);
        float v[PVK_SH_INPUTS][4];
        fill_sentinel(v);
        CHECK_EQ(pvk_attrib_fetch(&ctx->pica, &plan, idx, v), PVK_SUCCESS);
        float e[4] = {(float)i8[i], -(float)i8[i], 0.0f, 1.0f};
        CHECK_VEC(v[0], e);
    }
    /* u16 indices at an odd offset (bit 31 = u16), little endian */
    static const uint16_t i16[] = {299, 0, 258, 42, 256};
    uint8_t *ib = pvk_guest_ptr(ctx, s.base + 0x2101, 2 * sizeof i16 / sizeof i16[0]);
    for (size_t i = 0; ib && i < sizeof i16 / sizeof i16[0]; i++) {
        ib[2 * i] = (uint8_t)i16[i];
        ib[2 * i + 1] = (uint8_t)(i16[i] >> 8);
    }
    wr(ctx, PVK_GPUREG_INDEXBUFFER_CONFIG, 0x80000000u | 0x2101);
    for (uint32_t i = 0; i < sizeof i16 / sizeof i16[0]; i++) {
        CHECK_EQ(pvk_draw_vertex_index(&ctx->pica, true, i, &idx), PVK_SUCCESS);
        CHECK_EQ(idx, i16[i]);
        float v[PVK_SH_INPUTS][4];
        fill_sentinel(v);
        CHECK_EQ(pvk_attrib_fetch(&ctx->pica, &plan, idx, v), PVK_SUCCESS);
        float e[4] = {(float)i16[i], -(float)i16[i], 0.0f, 1.0f};
        CHECK_VEC(v[0], e);
    }
    /* the index buffer follows ATTRIBBUFFERS_LOC */
    memcpy(pvk_guest_ptr(ctx, s.base + 0x100 + 0x2101, 2), (uint8_t[]){0x34, 0x12}, 2);
    wr(ctx, PVK_GPUREG_ATTRIBBUFFERS_LOC, (s.base + 0x100) >> 3);
    CHECK_EQ(pvk_draw_vertex_index(&ctx->pica, true, 0, &idx), PVK_SUCCESS);
    CHECK_EQ(idx, 0x1234);
    wr(ctx, PVK_GPUREG_ATTRIBBUFFERS_LOC, s.base >> 3);
}

static pvk_stats last;
static void expect_refused(pvk_context *ctx, pvk_result got, pvk_result want, uint64_t oor)
{
    pvk_stats st;
    pvk_get_stats(ctx, &st);
    CHECK_EQ(got, want);
    CHECK_EQ(st.bad_input, last.bad_input + 1);
    CHECK_EQ(st.out_of_range, last.out_of_range + oor);
    last = st;
}

static void test_bad(pvk_context *ctx)
{
    th_quiet_errors = 1;
    pvk_get_stats(ctx, &last);

    setup s = {0};
    s.base = FCRAM_END - 0x1000;
    s.total = s.vs = 2;
    s.type[0] = 3, s.comps[0] = 3; /* f32 x3 */
    s.type[1] = 1, s.comps[1] = 4;
    s.perm[0] = 0, s.perm[1] = 1;
    /* 12 bytes of a 16-byte vertex read; 3 whole vertices fit before the end */
    s.buf[2] = (bufcfg){.offset = 0x1000 - 16 * 3 - 8, .stride = 16, .n = 1, .order = {0}};
    apply(ctx, &s);
    pvk_attrib_plan plan;
    float v[PVK_SH_INPUTS][4];
    CHECK_EQ(pvk_attrib_plan_build(&ctx->pica, &plan), PVK_SUCCESS);
    for (uint32_t n = 0; n < 3; n++)
        CHECK_EQ(pvk_attrib_fetch(&ctx->pica, &plan, n, v), PVK_SUCCESS);
    /* vertex 3 would read 8 bytes inside and 4 outside FCRAM */
    fill_sentinel(v);
    expect_refused(ctx, pvk_attrib_fetch(&ctx->pica, &plan, 3, v), PVK_ERROR_OUT_OF_RANGE, 1);
    expect_refused(ctx, pvk_attrib_fetch(&ctx->pica, &plan, 1000000, v), PVK_ERROR_OUT_OF_RANGE, 1);
    /* base + offset + stride * index past 4 GiB */
    s.buf[2].stride = 255;
    apply(ctx, &s);
    CHECK_EQ(pvk_attrib_plan_build(&ctx->pica, &plan), PVK_SUCCESS);
    expect_refused(ctx, pvk_attrib_fetch(&ctx->pica, &plan, 0xFFFFFFFFu, v), PVK_ERROR_OUT_OF_RANGE, 1);

    /* a second, valid buffer does not make the bad one pass, and nothing is written */
    s.base = PVK_AXI_WRAM_BASE + PVK_AXI_WRAM_SIZE - 0x100;
    s.buf[2] = (bufcfg){.offset = 0, .stride = 12, .n = 1, .order = {0}};    /* inside AXI WRAM */
    s.buf[5] = (bufcfg){.offset = 0x100, .stride = 4, .n = 1, .order = {1}}; /* the gap after it */
    apply(ctx, &s);
    CHECK_EQ(pvk_attrib_plan_build(&ctx->pica, &plan), PVK_SUCCESS);
    fill_sentinel(v);
    expect_refused(ctx, pvk_attrib_fetch(&ctx->pica, &plan, 0, v), PVK_ERROR_OUT_OF_RANGE, 1);
    for (int r = 0; r < PVK_SH_INPUTS; r++)
        for (int c = 0; c < 4; c++)
            CHECK(same(v[r][c], SENTINEL(r, c)));

    /* a buffer of padding only (or of attributes the shader does not take) reads nothing */
    s.buf[5] = (bufcfg){.offset = 0x100, .stride = 16, .n = 2, .order = {15, 12}};
    apply(ctx, &s);
    CHECK_EQ(pvk_attrib_plan_build(&ctx->pica, &plan), PVK_SUCCESS);
    CHECK_EQ(pvk_attrib_fetch(&ctx->pica, &plan, 0, v), PVK_SUCCESS);

    /* index buffers: a u16 entry straddling the end of FCRAM, one past it, a huge element */
    s.base = FCRAM_END - 0x100;
    s.buf[5].n = 0;
    apply(ctx, &s);
    uint32_t idx;
    wr(ctx, PVK_GPUREG_INDEXBUFFER_CONFIG, 0x80000000u | 0xFD); /* entries at end-3, end-1 */
    CHECK_EQ(pvk_draw_vertex_index(&ctx->pica, true, 0, &idx), PVK_SUCCESS);
    expect_refused(ctx, pvk_draw_vertex_index(&ctx->pica, true, 1, &idx), PVK_ERROR_OUT_OF_RANGE, 1);
    wr(ctx, PVK_GPUREG_INDEXBUFFER_CONFIG, 0xFF); /* u8: the last byte is fine, the next not */
    CHECK_EQ(pvk_draw_vertex_index(&ctx->pica, true, 0, &idx), PVK_SUCCESS);
    expect_refused(ctx, pvk_draw_vertex_index(&ctx->pica, true, 1, &idx), PVK_ERROR_OUT_OF_RANGE, 1);
    wr(ctx, PVK_GPUREG_INDEXBUFFER_CONFIG, 0x80000000u);
    expect_refused(ctx, pvk_draw_vertex_index(&ctx->pica, true, 0xFFFFFFFFu, &idx), PVK_ERROR_OUT_OF_RANGE, 1);

    /* an index that points outside the attribute buffer */
    s.base = PVK_FCRAM_BASE + 0x500000;
    s.buf[2] = (bufcfg){.offset = 0, .stride = 12, .n = 1, .order = {0}};
    apply(ctx, &s);
    uint8_t *ib = pvk_guest_ptr(ctx, s.base + 0x80, 2);
    ib[0] = 0xFF, ib[1] = 0xFF; /* vertex 65535 * 12 bytes: inside FCRAM, fine */
    wr(ctx, PVK_GPUREG_INDEXBUFFER_CONFIG, 0x80000000u | 0x80);
    CHECK_EQ(pvk_attrib_plan_build(&ctx->pica, &plan), PVK_SUCCESS);
    CHECK_EQ(pvk_draw_vertex_index(&ctx->pica, true, 0, &idx), PVK_SUCCESS);
    CHECK_EQ(pvk_attrib_fetch(&ctx->pica, &plan, idx, v), PVK_SUCCESS);
    s.buf[2].stride = 255; /* 65535 * 255 bytes: past the end of FCRAM */
    s.base = FCRAM_END - 0x100000;
    apply(ctx, &s);
    ib = pvk_guest_ptr(ctx, s.base + 0x80, 2);
    ib[0] = 0xFF, ib[1] = 0xFF;
    CHECK_EQ(pvk_attrib_plan_build(&ctx->pica, &plan), PVK_SUCCESS);
    CHECK_EQ(pvk_draw_vertex_index(&ctx->pica, true, 0, &idx), PVK_SUCCESS);
    CHECK_EQ(idx, 0xFFFF);
    expect_refused(ctx, pvk_attrib_fetch(&ctx->pica, &plan, idx, v), PVK_ERROR_OUT_OF_RANGE, 1);

    /* VERTEX_OFFSET + i past 32 bits */
    wr(ctx, PVK_GPUREG_VERTEX_OFFSET, 0xFFFFFFF0u);
    CHECK_EQ(pvk_draw_vertex_index(&ctx->pica, false, 15, &idx), PVK_SUCCESS);
    CHECK_EQ(idx, 0xFFFFFFFFu);
    expect_refused(ctx, pvk_draw_vertex_index(&ctx->pica, false, 16, &idx), PVK_ERROR_OUT_OF_RANGE, 0);
    wr(ctx, PVK_GPUREG_VERTEX_OFFSET, 0);

    /* configurations no vertex can be loaded from */
    s.total = 13;
    apply(ctx, &s);
    expect_refused(ctx, pvk_attrib_plan_build(&ctx->pica, &plan), PVK_ERROR_BAD_PARAMETERS, 0);
    s.total = 2;
    s.buf[7] = (bufcfg){.offset = 0, .stride = 4, .n = 13, .order = {0}};
    apply(ctx, &s);
    expect_refused(ctx, pvk_attrib_plan_build(&ctx->pica, &plan), PVK_ERROR_BAD_PARAMETERS, 0);
    s.buf[7].n = 0;
    apply(ctx, &s);
    CHECK_EQ(pvk_attrib_plan_build(&ctx->pica, &plan), PVK_SUCCESS);
    th_quiet_errors = 0;
}

/* Random configurations: whatever the registers say, fetching stays inside
 * guest memory (ASan watches) and either succeeds or is refused and counted. */
static void test_random(pvk_context *ctx)
{
    th_quiet_errors = 1;
    for (int iter = 0; iter < 300; iter++) {
        static const uint32_t bases[] = {PVK_FCRAM_BASE, FCRAM_END - 0x2000, PVK_VRAM_BASE + PVK_VRAM_SIZE - 0x800,
                                         PVK_AXI_WRAM_BASE, 0x00000000u, 0xFFFFFFF0u};
        wr(ctx, PVK_GPUREG_ATTRIBBUFFERS_LOC, bases[th_rand() % 6] >> 3);
        wr(ctx, PVK_GPUREG_ATTRIBBUFFERS_FORMAT_LOW, th_rand());
        wr(ctx, PVK_GPUREG_ATTRIBBUFFERS_FORMAT_HIGH, th_rand());
        for (uint32_t id = PVK_GPUREG_ATTRIBBUFFER0_OFFSET; id < PVK_GPUREG_INDEXBUFFER_CONFIG; id++)
            wr(ctx, id, (id - PVK_GPUREG_ATTRIBBUFFER0_OFFSET) % 3 == 0 ? th_rand() % 0x3000 : th_rand());
        wr(ctx, PVK_GPUREG_VSH_NUM_ATTR, th_rand());
        wr(ctx, PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_LOW, th_rand());
        wr(ctx, PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_HIGH, th_rand());
        wr(ctx, PVK_GPUREG_INDEXBUFFER_CONFIG, th_rand() & 0x80001FFFu);
        pvk_attrib_plan plan;
        pvk_stats before, after;
        pvk_get_stats(ctx, &before);
        pvk_result r = pvk_attrib_plan_build(&ctx->pica, &plan);
        for (uint32_t i = 0; r == PVK_SUCCESS && i < 8; i++) {
            uint32_t idx = 0;
            pvk_result ri = pvk_draw_vertex_index(&ctx->pica, th_rand() & 1, i, &idx);
            float v[PVK_SH_INPUTS][4];
            if (ri == PVK_SUCCESS)
                ri = pvk_attrib_fetch(&ctx->pica, &plan, idx, v);
            CHECK(ri == PVK_SUCCESS || ri == PVK_ERROR_OUT_OF_RANGE);
        }
        pvk_get_stats(ctx, &after);
        CHECK(r == PVK_SUCCESS || after.bad_input > before.bad_input);
    }
    th_quiet_errors = 0;
}

int main(void)
{
    pvk_context *ctx = th_context(NULL, 0);
    test_formats(ctx);
    test_buffers(ctx);
    test_indices(ctx);
    test_bad(ctx);
    test_random(ctx);
    th_release(ctx);
    return th_finish("test_attrib");
}
