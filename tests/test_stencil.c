/* The stencil test and operations against the CPU reference
 * (tests/ref/frag_ref.c): random STENCIL_TEST/STENCIL_OP states (every
 * function and op, random reference and masks, stencil writes allowed or
 * not by DEPTHBUFFER_WRITE bit 0) with random depth tests, two random
 * flat-depth triangles in one draw (overlapping, so ops apply twice in
 * primitive order) over random D24S8 contents; after the flush every depth,
 * stencil and colour byte must equal the reference.  Also: a 32-bit memory
 * fill sets the stencil with the depth, the stencil test does nothing with
 * a D24 buffer, and random cases straight after a fill.  Both guest-memory
 * modes.  PVK_DEBUG=roundtrip draws without stencil (README), so nothing
 * here compares with it. */
#include "draw_common.h"
#include "frag_ref.h"

#define DB 0x18100000u /* depth buffer */
#define CASES 120

static uint32_t regs[0x400]; /* what this test wrote, for the reference */

static void wreg(uint32_t id, uint32_t v)
{
    regs[id] = v;
    reg(id, v);
}

static void setup_fb(uint32_t depth_fmt)
{
    wreg(PVK_GPUREG_COLORBUFFER_FORMAT, 2);
    wreg(PVK_GPUREG_COLORBUFFER_LOC, FB >> 3);
    wreg(PVK_GPUREG_COLORBUFFER_READ, 0xF);
    wreg(PVK_GPUREG_COLORBUFFER_WRITE, 0xF);
    wreg(PVK_GPUREG_DEPTHBUFFER_FORMAT, depth_fmt);
    wreg(PVK_GPUREG_DEPTHBUFFER_LOC, DB >> 3);
    wreg(PVK_GPUREG_FRAMEBUFFER_DIM, W | ((H - 1) << 12) | (1u << 24));
    wreg(PVK_GPUREG_VIEWPORT_WIDTH, f24(W / 2.0f));
    wreg(PVK_GPUREG_VIEWPORT_HEIGHT, f24(H / 2.0f));
    wreg(PVK_GPUREG_VIEWPORT_XY, 0);
    wreg(PVK_GPUREG_FACECULLING_CONFIG, 0);
    wreg(PVK_GPUREG_SCISSORTEST_MODE, 0);
    wreg(PVK_GPUREG_DEPTHBUFFER_READ, 3);
    wreg(PVK_GPUREG_DEPTHBUFFER_WRITE, 3);
    /* z-buffer, d = -z: triangles at z = -k/32 have depth k/32 */
    wreg(PVK_GPUREG_DEPTHMAP_ENABLE, 1);
    wreg(PVK_GPUREG_DEPTHMAP_SCALE, f24(-1.0f));
    wreg(PVK_GPUREG_DEPTHMAP_OFFSET, f24(0.0f));
    wreg(PVK_GPUREG_COLOR_OPERATION, 0x00E40100);
    wreg(PVK_GPUREG_BLEND_FUNC, 0x01010000);
}

/* The depth the fragment shader stores for depth k/32 (float32, as it computes). */
static uint32_t q_of(uint32_t k)
{
    volatile float d = (float)k / 32.0f;
    volatile float prod = d * 16777215.0f;
    return (uint32_t)prod;
}

/* A triangle: vertices on a quarter-pixel grid (window pixels, y up, x4), depth k/32. */
typedef struct tri {
    int32_t x[3], y[3];
    uint32_t k;
    uint8_t color[4];
} tri;

static int64_t edge4(const tri *t, int a, int b, int64_t px, int64_t py)
{
    return (int64_t)(t->x[b] - t->x[a]) * (py - t->y[a]) - (int64_t)(t->y[b] - t->y[a]) * (px - t->x[a]);
}

/* 1 inside, 0 outside, -1 on an edge through the pixel centre (the
 * rasterizer's tie rule decides: the pixel is not compared). */
static int covers(const tri *t, uint32_t x, uint32_t y)
{
    int64_t px = 4 * (int64_t)x + 2, py = 4 * (int64_t)y + 2;
    int64_t e[3] = {edge4(t, 0, 1, px, py), edge4(t, 1, 2, px, py), edge4(t, 2, 0, px, py)};
    if (!e[0] || !e[1] || !e[2])
        return -1;
    return (e[0] > 0 && e[1] > 0 && e[2] > 0) || (e[0] < 0 && e[1] < 0 && e[2] < 0);
}

static void random_tri(tri *t)
{
    do {
        for (int i = 0; i < 3; i++) {
            /* inside the viewport: no clipping, so the rasterizer sees these exact vertices */
            t->x[i] = (int32_t)th_rand_range(0, 4 * W);
            t->y[i] = (int32_t)th_rand_range(0, 4 * H);
        }
    } while (llabs(edge4(t, 0, 1, t->x[2], t->y[2])) < 4 * 16 * 40); /* not too thin */
    t->k = th_rand_range(1, 31);
    for (int i = 0; i < 3; i++)
        t->color[i] = (uint8_t)th_rand();
    t->color[3] = 255;
}

static void put_tris(const tri *t, unsigned n)
{
    float *v = pvk_guest_ptr(ctx, VB, n * 3 * 32);
    for (unsigned i = 0; i < n; i++)
        for (int j = 0; j < 3; j++) {
            float *p = v + (i * 3 + j) * 8;
            p[0] = (float)t[i].x[j] / 4.0f / (W / 2.0f) - 1.0f;
            p[1] = (float)t[i].y[j] / 4.0f / (H / 2.0f) - 1.0f;
            p[2] = -(float)t[i].k / 32.0f;
            p[3] = 1.0f;
            for (int c = 0; c < 4; c++)
                p[4 + c] = t[i].color[c] / 255.0f;
        }
    pvk_guest_written(ctx, VB, n * 3 * 32);
}

static uint8_t *dbytes(void) { return pvk_guest_ptr(ctx, DB, W * H * 4); }
static uint8_t *cbytes(void) { return pvk_guest_ptr(ctx, FB, W * H * 4); }

/* Random D24S8 contents: depths near the triangles' (equal, one off) or
 * anywhere, stencil bytes near the reference or anywhere; random colour. */
static void random_contents(const tri *t, unsigned n, uint32_t ref)
{
    pvk_wait_idle(ctx);
    uint8_t *d = dbytes(), *c = cbytes();
    for (uint32_t i = 0; i < W * H; i++) {
        uint32_t q = q_of(t[th_rand() % n].k), r = th_rand() % 4;
        q = r == 0 ? q : r == 1 ? q + 1 : r == 2 ? q - 1 : th_rand() & 0xFFFFFF;
        uint32_t s = th_rand() % 3 ? (ref + th_rand() % 3 - 1) & 0xFF : th_rand() & 0xFF;
        if (th_rand() % 8 == 0)
            s = th_rand() % 2 ? 0 : 255; /* the saturation edges */
        uint32_t word = (q & 0xFFFFFF) | s << 24;
        memcpy(d + 4 * i, &word, 4);
        uint32_t col = th_rand();
        memcpy(c + 4 * i, &col, 4);
    }
    pvk_guest_written(ctx, DB, W * H * 4);
    pvk_guest_written(ctx, FB, W * H * 4);
}

/* The reference: the triangles in order over copies of the buffers;
 * `skip` marks pixels an edge runs through. */
static void reference(const tri *t, unsigned n, const uint8_t *d0, const uint8_t *c0, uint8_t *d, uint8_t *c,
                      uint8_t *skip)
{
    memcpy(d, d0, W * H * 4);
    memcpy(c, c0, W * H * 4);
    memset(skip, 0, W * H);
    uint32_t mask = regs[PVK_GPUREG_DEPTH_COLOR_MASK];
    bool dtest = mask & 1, dwrite = (mask >> 12) & 1, dallow = (regs[PVK_GPUREG_DEPTHBUFFER_WRITE] >> 1) & 1;
    unsigned dfunc = (mask >> 4) & 7;
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            uint32_t i = tiled_index(x, y);
            for (unsigned k = 0; k < n; k++) {
                int cov = covers(&t[k], x, y);
                if (cov < 0)
                    skip[i] = 1;
                if (cov <= 0)
                    continue;
                uint32_t word;
                memcpy(&word, d + 4 * i, 4);
                uint32_t q = q_of(t[k].k), stored = word & 0xFFFFFF;
                uint8_t s = (uint8_t)(word >> 24);
                bool sp = ref_stencil_test(regs, s);
                /* the depth test: write-only compares Always; off entirely: passes */
                bool dp = !dtest || ref_compare(dfunc, q, stored);
                s = ref_stencil_update(regs, s, sp, dp);
                if (sp && dp) {
                    if (dwrite && dallow)
                        stored = q;
                    /* RGBA8 in memory: A, B, G, R */
                    uint8_t *p = c + 4 * i;
                    p[0] = t[k].color[3], p[1] = t[k].color[2], p[2] = t[k].color[1], p[3] = t[k].color[0];
                }
                word = stored | (uint32_t)s << 24;
                memcpy(d + 4 * i, &word, 4);
            }
        }
}

/* Draw, flush, compare everything but the skipped pixels; returns the
 * number of differing pixels. */
static int run_case(const tri *t, unsigned n, const char *what, int k)
{
    uint8_t *d0 = malloc(W * H * 4), *c0 = malloc(W * H * 4), *d = malloc(W * H * 4), *c = malloc(W * H * 4),
            *skip = malloc(W * H);
    pvk_wait_idle(ctx);
    memcpy(d0, dbytes(), W * H * 4);
    memcpy(c0, cbytes(), W * H * 4);
    reference(t, n, d0, c0, d, c, skip);
    put_tris(t, n);
    draw_arrays(0, 3 * n);
    CHECK_EQ(pvk_guest_flush(ctx, DB, W * H * 4), PVK_SUCCESS);
    CHECK_EQ(pvk_guest_flush(ctx, FB, W * H * 4), PVK_SUCCESS);
    int bad = 0;
    for (uint32_t i = 0; i < W * H; i++) {
        if (skip[i])
            continue;
        if (memcmp(d + 4 * i, dbytes() + 4 * i, 4) || memcmp(c + 4 * i, cbytes() + 4 * i, 4)) {
            if (bad++ < 4) {
                uint32_t gd, wd, gc, wc;
                memcpy(&gd, dbytes() + 4 * i, 4), memcpy(&wd, d + 4 * i, 4);
                memcpy(&gc, cbytes() + 4 * i, 4), memcpy(&wc, c + 4 * i, 4);
                uint32_t od;
                memcpy(&od, d0 + 4 * i, 4);
                fprintf(stderr,
                        "%s case %d, tiled pixel %u: depth+stencil %08X want %08X (was %08X), colour %08X want %08X "
                        "(STENCIL_TEST %08X OP %03X DEPTH_COLOR_MASK %04X DEPTHBUFFER_WRITE %u)\n",
                        what, k, i, gd, wd, od, gc, wc, regs[PVK_GPUREG_STENCIL_TEST], regs[PVK_GPUREG_STENCIL_OP],
                        regs[PVK_GPUREG_DEPTH_COLOR_MASK], regs[PVK_GPUREG_DEPTHBUFFER_WRITE]);
            }
        }
    }
    free(d0), free(c0), free(d), free(c), free(skip);
    CHECK_EQ(bad, 0);
    return bad;
}

static void random_state(void)
{
    uint32_t func = th_rand() % 8, ref = th_rand() & 0xFF;
    uint32_t cmask = th_rand() % 3 ? 0xFF : th_rand() & 0xFF, wmask = th_rand() % 3 ? 0xFF : th_rand() & 0xFF;
    wreg(PVK_GPUREG_STENCIL_TEST, (th_rand() % 8 ? 1u : 0u) | func << 4 | wmask << 8 | ref << 16 | cmask << 24);
    wreg(PVK_GPUREG_STENCIL_OP, (th_rand() % 8) | (th_rand() % 8) << 4 | (th_rand() % 8) << 8);
    uint32_t dmode = th_rand() % 4; /* test + write, test only, write only, neither */
    wreg(PVK_GPUREG_DEPTH_COLOR_MASK, (dmode <= 1 ? 1u : 0u) | (th_rand() % 8) << 4 | 0xFu << 8 |
                                          (dmode == 0 || dmode == 2 ? 1u << 12 : 0u));
    wreg(PVK_GPUREG_DEPTHBUFFER_WRITE, th_rand() % 4 ? 3 : th_rand() % 4);
}

static void random_cases(void)
{
    int ops_seen = 0;
    for (int k = 0; k < CASES; k++) {
        random_state();
        tri t[2];
        random_tri(&t[0]);
        random_tri(&t[1]);
        ops_seen |= 1 << (regs[PVK_GPUREG_STENCIL_OP] >> 8 & 7);
        random_contents(t, 2, (regs[PVK_GPUREG_STENCIL_TEST] >> 16) & 0xFF);
        run_case(t, 2, "random", k);
    }
    CHECK_EQ(ops_seen, 0xFF); /* every z-pass op at least once */
}

static void fill_depth(uint32_t value)
{
    pvk_mmio_write32(ctx, 0x10400020, DB >> 3);
    pvk_mmio_write32(ctx, 0x10400024, (DB + W * H * 4) >> 3);
    pvk_mmio_write32(ctx, 0x10400028, value);
    pvk_mmio_write32(ctx, 0x1040002C, 0x201); /* 32-bit, start */
}

/* A 32-bit fill of the D24S8 buffer sets stencil and depth; the next draw
 * tests against the filled stencil, and memory shows both after it. */
static void fill_then_draw(void)
{
    for (int k = 0; k < 12; k++) {
        pvk_wait_idle(ctx);
        random_state();
        uint32_t value = th_rand();
        if (k < 4) /* the filled byte is the reference: Equal/NotEqual both ways */
            value = (value & 0xFFFFFF) | (regs[PVK_GPUREG_STENCIL_TEST] & 0xFF0000) << 8;
        fill_depth(value);
        pvk_stats before, after;
        pvk_get_stats(ctx, &before);
        tri t[2];
        random_tri(&t[0]);
        random_tri(&t[1]);
        CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
        run_case(t, 2, "after a fill", k);
        pvk_get_stats(ctx, &after);
        CHECK_EQ(after.surface_loads, before.surface_loads); /* cleared on the GPU, not reloaded */
    }
}

/* With a D24 buffer (format 2) there is no stencil: the test and its ops do
 * nothing and every byte of the depths is depth. */
static void d24_ignores_stencil(void)
{
    setup_fb(2);
    for (int k = 0; k < 4; k++) {
        wreg(PVK_GPUREG_STENCIL_TEST, 1 | 0u << 4 | 0xFFu << 8 | 0x55u << 16 | 0xFFu << 24); /* Never */
        wreg(PVK_GPUREG_STENCIL_OP, 1 | 1 << 4 | 1 << 8);                                  /* Zero */
        wreg(PVK_GPUREG_DEPTH_COLOR_MASK, 1u | 1u << 4 | 0xFu << 8 | 1u << 12);
        tri t;
        random_tri(&t);
        pvk_wait_idle(ctx);
        uint8_t *dp = pvk_guest_ptr(ctx, DB, W * H * 3);
        for (uint32_t i = 0; i < W * H * 3; i++)
            dp[i] = (uint8_t)th_rand();
        pvk_guest_written(ctx, DB, W * H * 3);
        put_tris(&t, 1);
        draw_arrays(0, 3);
        pvk_wait_idle(ctx);
        int bad = 0;
        for (uint32_t y = 0; y < H; y++)
            for (uint32_t x = 0; x < W; x++) {
                int cov = covers(&t, x, y);
                if (cov < 0)
                    continue;
                const uint8_t *p = dp + tiled_index(x, y) * 3;
                uint32_t q = p[0] | p[1] << 8 | (uint32_t)p[2] << 16;
                bad += cov && q != q_of(t.k);
            }
        CHECK_EQ(bad, 0);
    }
    setup_fb(3);
}

int main(void)
{
    for (int mirror = 0; mirror < 2; mirror++) {
        ctx = th_context(NULL, mirror);
        memset(regs, 0, sizeof regs);
        upload_shader();
        setup_attribs();
        setup_fb(3);
        random_cases();
        fill_then_draw();
        d24_ignores_stencil();
        pvk_stats st;
        pvk_get_stats(ctx, &st);
        CHECK_EQ(st.bad_input, 0);
        CHECK_EQ(st.unsupported, 0);
        th_release(ctx);
    }
    return th_finish("test_stencil");
}
