/* Depth buffer: exact integer depths in guest memory for D16, D24 and D24S8
 * after drawing triangles at known z with known DEPTHMAP_SCALE/_OFFSET, the
 * W-buffer mode, clamping, every depth function with two overlapping
 * triangles, writes gated by DEPTH_COLOR_MASK and DEPTHBUFFER_WRITE, and the
 * D24S8 stencil bytes left alone; a triangle crossing the eye plane, against
 * a per-pixel reference that clips in clip space (test_eye_plane).
 *
 * Expected depths follow FACTS.md "Output merger" (Citra's rasterizer):
 * d = z/w * scale + offset (times w in W-buffer mode, DEPTHMAP_ENABLE = 0),
 * clamped to [0, 1], times 2^bits - 1, truncated.  The values are chosen so
 * every float32 step is exact and the double result agrees. */
#include <math.h>

#include "draw_common.h"

#define DB 0x18100000u /* depth buffer */

static void setup_fb(uint32_t depth_fmt)
{
    reg(PVK_GPUREG_COLORBUFFER_FORMAT, 2);
    reg(PVK_GPUREG_COLORBUFFER_LOC, FB >> 3);
    reg(PVK_GPUREG_COLORBUFFER_READ, 0xF);
    reg(PVK_GPUREG_COLORBUFFER_WRITE, 0xF);
    reg(PVK_GPUREG_DEPTHBUFFER_FORMAT, depth_fmt);
    reg(PVK_GPUREG_DEPTHBUFFER_LOC, DB >> 3);
    setup_view();
    reg(PVK_GPUREG_COLORBUFFER_READ, 0xF);
    reg(PVK_GPUREG_COLORBUFFER_WRITE, 0xF);
    reg(PVK_GPUREG_DEPTHBUFFER_READ, 3);
    reg(PVK_GPUREG_DEPTHBUFFER_WRITE, 3);
}

static void depthmap(int zbuffer, float scale, float offset)
{
    reg(PVK_GPUREG_DEPTHMAP_ENABLE, zbuffer ? 1 : 0);
    reg(PVK_GPUREG_DEPTHMAP_SCALE, f24(scale));
    reg(PVK_GPUREG_DEPTHMAP_OFFSET, f24(offset));
}

/* DEPTH_COLOR_MASK: test enable, function, RGBA writes on, depth write enable. */
static void depth_mask(int test, uint32_t func, int write)
{
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, (test ? 1u : 0u) | (func << 4) | (0xFu << 8) | (write ? 1u << 12 : 0u));
}

typedef struct { float x, y; } pt;

/* Window-space (pixels, y up) vertices at clip z and w (x, y scaled by w). */
static void put_vertices(const pt *p, unsigned n, const float color[4], float z, float w)
{
    float *v = pvk_guest_ptr(ctx, VB, n * 32);
    for (unsigned i = 0; i < n; i++) {
        v[i * 8 + 0] = (p[i].x / (W / 2.0f) - 1.0f) * w;
        v[i * 8 + 1] = (p[i].y / (H / 2.0f) - 1.0f) * w;
        v[i * 8 + 2] = z;
        v[i * 8 + 3] = w;
        memcpy(&v[i * 8 + 4], color, 16);
    }
    pvk_guest_written(ctx, VB, n * 32);
}

static uint32_t pixel(uint32_t x, uint32_t y)
{
    const uint8_t *p = (const uint8_t *)pvk_guest_ptr(ctx, FB, W * H * 4) + tiled_index(x, y) * 4;
    return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t bpp_of(uint32_t fmt) { return fmt == 0 ? 2 : fmt == 2 ? 3 : 4; }

static uint8_t *depth_bytes(uint32_t fmt) { return pvk_guest_ptr(ctx, DB, W * H * bpp_of(fmt)); }

static uint32_t depth_at(uint32_t fmt, uint32_t x, uint32_t y)
{
    const uint8_t *p = depth_bytes(fmt) + tiled_index(x, y) * bpp_of(fmt);
    return fmt == 0 ? (uint32_t)(p[0] | p[1] << 8) : (uint32_t)(p[0] | p[1] << 8 | p[2] << 16);
}

/* Every pixel's depth set to `q`; the D24S8 stencil bytes to a pattern. */
static void fill_depth(uint32_t fmt, uint32_t q)
{
    pvk_wait_idle(ctx);
    uint32_t bpp = bpp_of(fmt);
    uint8_t *p = depth_bytes(fmt);
    for (uint32_t i = 0; i < W * H; i++)
        for (uint32_t b = 0; b < bpp; b++)
            p[i * bpp + b] = b == 3 ? (uint8_t)(i * 7 + 3) : (uint8_t)(q >> (8 * b));
    pvk_guest_written(ctx, DB, W * H * bpp);
}

/* Pseudo-random bytes everywhere (stencil included). */
static void fill_depth_random(uint32_t fmt, uint32_t seed)
{
    pvk_wait_idle(ctx);
    uint8_t *p = depth_bytes(fmt);
    for (uint32_t i = 0; i < W * H * bpp_of(fmt); i++) {
        seed = seed * 1664525u + 1013904223u;
        p[i] = (uint8_t)(seed >> 24);
    }
    pvk_guest_written(ctx, DB, W * H * bpp_of(fmt));
}

static float edge(pt a, pt b, float x, float y)
{
    return (b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x);
}

static int inside(const pt t[3], uint32_t x, uint32_t y)
{
    float px = (float)x + 0.5f, py = (float)y + 0.5f;
    float e0 = edge(t[0], t[1], px, py), e1 = edge(t[1], t[2], px, py), e2 = edge(t[2], t[0], px, py);
    return (e0 > 0 && e1 > 0 && e2 > 0) || (e0 < 0 && e1 < 0 && e2 < 0);
}

/* The formula, in float32 as the fragment shader runs it; the double
 * evaluation must agree (the test's values avoid rounding cases). */
static uint32_t expect_depth(float z, float w, float scale, float offset, int wbuffer, uint32_t bits)
{
    float maxq = (float)((1u << bits) - 1);
    volatile float d = z / w * scale;
    d = d + offset;
    if (wbuffer)
        d = d * w;
    float c = d < 0.0f ? 0.0f : d > 1.0f ? 1.0f : d;
    volatile float prod = c * maxq;
    uint32_t q = (uint32_t)prod;
    double dd = (double)z / w * scale + offset;
    if (wbuffer)
        dd *= w;
    dd = dd < 0 ? 0 : dd > 1 ? 1 : dd;
    CHECK_EQ(q, (uint32_t)floor(dd * ((1u << bits) - 1)));
    return q;
}

static const float RED[4] = {1, 0, 0, 1}, GREEN[4] = {0, 1, 0, 1};
static const pt TRI_A[3] = {{5.25f, 4.25f}, {50.75f, 9.5f}, {20.5f, 40.75f}};
static const pt TRI_B[3] = {{28.25f, 2.75f}, {60.5f, 30.25f}, {12.75f, 44.5f}};

/* After a draw of TRI_A at depth `q` over a buffer filled with `bg` by
 * fill_depth: inside pixels hold q, outside bg, all stencil bytes intact. */
static void expect_depths(uint32_t fmt, uint32_t q, uint32_t bg)
{
    int bad = 0;
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            uint32_t want = inside(TRI_A, x, y) ? q : bg, got = depth_at(fmt, x, y);
            if (got != want && bad++ < 5)
                fprintf(stderr, "fmt %u pixel (%u,%u): depth 0x%06X, want 0x%06X\n", fmt, x, y, got, want);
            uint32_t i = tiled_index(x, y);
            if (fmt == 3 && depth_bytes(fmt)[i * 4 + 3] != (uint8_t)(i * 7 + 3) && bad++ < 5)
                fprintf(stderr, "pixel (%u,%u): stencil byte changed\n", x, y);
            uint32_t col = pixel(x, y), wantc = inside(TRI_A, x, y) ? 0xFF0000FFu : 0;
            if (col != wantc && bad++ < 5)
                fprintf(stderr, "fmt %u pixel (%u,%u): colour 0x%08X, want 0x%08X\n", fmt, x, y, col, wantc);
        }
    CHECK_EQ(bad, 0);
}

typedef struct { float z, w, scale, offset; int wbuffer; } depth_case;

static void test_formats(void)
{
    const depth_case cases[] = {
        {-0.375f, 1.0f, -0.5f, 0.0625f, 0},  /* 0.25 */
        {-0.875f, 1.0f, -0.5f, 0.0625f, 0},  /* 0.5 */
        {-0.375f, 1.0f, -4.0f, 0.0f, 0},     /* 1.5: clamped to 1 */
        {-0.375f, 1.0f, -0.5f, -0.5f, 0},    /* -0.3125: clamped to 0 */
        {-0.75f, 2.0f, -0.5f, 0.03125f, 0},  /* z/w = -0.375: 0.21875 */
        {-0.75f, 2.0f, -0.5f, 0.03125f, 1},  /* W-buffer: 0.4375 = z*scale + w*offset */
        {-0.5f, 1.0f, 1.0f, 0.75f, 1},       /* W-buffer, w = 1: 0.25 */
    };
    const uint32_t fmts[3] = {0, 2, 3};
    for (unsigned f = 0; f < 3; f++) {
        uint32_t fmt = fmts[f], bits = fmt == 0 ? 16 : 24;
        setup_fb(fmt);
        for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            const depth_case *k = &cases[c];
            /* the W-buffer with w != 1 interpolates w: exact to D16 only */
            if (k->wbuffer && k->w != 1.0f && bits == 24)
                continue;
            uint32_t q = expect_depth(k->z, k->w, k->scale, k->offset, k->wbuffer, bits);
            uint32_t bg = 0x5A3C1E & ((1u << bits) - 1);
            clear_fb();
            fill_depth(fmt, bg);
            depthmap(!k->wbuffer, k->scale, k->offset);
            depth_mask(1, 1 /* always */, 1);
            put_vertices(TRI_A, 3, RED, k->z, k->w);
            draw_arrays(0, 3);
            expect_depths(fmt, q, bg);
        }
        /* write-only (test bit clear) behaves as Always */
        uint32_t q = expect_depth(-0.375f, 1.0f, -0.5f, 0.0625f, 0, bits);
        clear_fb();
        fill_depth(fmt, 0);
        depthmap(1, -0.5f, 0.0625f);
        depth_mask(0, 0 /* never, ignored */, 1);
        put_vertices(TRI_A, 3, RED, -0.375f, 1.0f);
        draw_arrays(0, 3);
        expect_depths(fmt, q, 0);
    }
}

/* TRI_A (red) at qA, then TRI_B (green) at qB < qA with each function over
 * a background of qB: the B-only region compares equal, the overlap less. */
static void test_functions(void)
{
    const uint32_t fmt = 2;
    setup_fb(fmt);
    depthmap(1, -0.5f, 0.0625f);
    uint32_t qa = expect_depth(-0.875f, 1.0f, -0.5f, 0.0625f, 0, 24);
    uint32_t qb = expect_depth(-0.375f, 1.0f, -0.5f, 0.0625f, 0, 24);
    CHECK(qb < qa);
    /* pass on (qB == stored, qB < stored) */
    static const int pass[8][2] = {{0, 0}, {1, 1}, {1, 0}, {0, 1}, {0, 1}, {1, 1}, {0, 0}, {1, 0}};
    for (uint32_t func = 0; func < 8; func++) {
        clear_fb();
        fill_depth(fmt, qb);
        depth_mask(0, 0, 1); /* write-only: Always */
        put_vertices(TRI_A, 3, RED, -0.875f, 1.0f);
        draw_arrays(0, 3);
        depth_mask(1, func, 1);
        put_vertices(TRI_B, 3, GREEN, -0.375f, 1.0f);
        draw_arrays(0, 3);
        int bad = 0;
        for (uint32_t y = 0; y < H; y++)
            for (uint32_t x = 0; x < W; x++) {
                int a = inside(TRI_A, x, y), b = inside(TRI_B, x, y);
                int b_wins = b && pass[func][a ? 1 : 0];
                uint32_t wantc = b_wins ? 0x00FF00FFu : a ? 0xFF0000FFu : 0;
                uint32_t wantd = b_wins ? qb : a ? qa : qb;
                uint32_t col = pixel(x, y), dep = depth_at(fmt, x, y);
                if ((col != wantc || dep != wantd) && bad++ < 5)
                    fprintf(stderr, "func %u pixel (%u,%u): colour 0x%08X depth 0x%06X, want 0x%08X 0x%06X\n",
                            func, x, y, col, dep, wantc, wantd);
            }
        CHECK_EQ(bad, 0);
    }
}

/* Depth writes off (mask bit clear, or DEPTHBUFFER_WRITE without bit 1):
 * guest depth (and stencil) stay byte for byte; the test still applies. */
static void test_write_disable(void)
{
    const uint32_t fmt = 3, size = W * H * 4;
    setup_fb(fmt);
    depthmap(1, -0.5f, 0.0625f);
    uint8_t *before = malloc(size);
    for (int variant = 0; variant < 2; variant++) {
        clear_fb();
        fill_depth(fmt, 0x600000); /* above 0.25 * (2^24 - 1): LESS passes */
        memcpy(before, depth_bytes(fmt), size);
        if (variant == 0) {
            depth_mask(1, 4 /* less */, 0);
        } else {
            depth_mask(1, 4, 1);
            reg(PVK_GPUREG_DEPTHBUFFER_WRITE, 1); /* stencil only */
        }
        put_vertices(TRI_A, 3, RED, -0.375f, 1.0f);
        draw_arrays(0, 3);
        CHECK(memcmp(before, depth_bytes(fmt), size) == 0);
        int bad = 0;
        for (uint32_t y = 0; y < H; y++)
            for (uint32_t x = 0; x < W; x++)
                bad += pixel(x, y) != (inside(TRI_A, x, y) ? 0xFF0000FFu : 0);
        CHECK_EQ(bad, 0);
    }
    /* random depth and stencil bytes survive a draw that writes depth */
    reg(PVK_GPUREG_DEPTHBUFFER_WRITE, 3);
    fill_depth_random(fmt, 12345);
    memcpy(before, depth_bytes(fmt), size);
    depth_mask(1, 0 /* never */, 1);
    put_vertices(TRI_A, 3, RED, -0.375f, 1.0f);
    draw_arrays(0, 3);
    CHECK(memcmp(before, depth_bytes(fmt), size) == 0);
    free(before);
}

/* ---- a triangle crossing the eye plane (issue 41) ----
 * A ground triangle through a perspective projection shaped as citro3d's
 * Mtx_PerspTilt (clip z/w = -1 at the near plane, 0 at the far one), two
 * vertices ahead and one at or behind the eye (w < 0, w = 0, w just below
 * 0), and one ahead of the eye but nearer than the near plane.  The PICA
 * clips in clip space and takes z/w per pixel of what is left: the
 * reference solves, per pixel centre, for the point of the clip-space
 * triangle on that pixel's ray (exact, in double), covers the pixel when
 * that point is inside the triangle and the view volume (w > 0,
 * -w <= z <= 0), and takes its z/w.  Every covered pixel must hold the
 * triangle's colour and that depth (within a few float32 steps of the
 * interpolation), every other pixel its colour and depth untouched.
 * Pixels whose corners disagree about coverage are edge pixels: skipped. */

/* Clip coordinates on a grid of 2^-10: exact in f24 (the loader's
 * float-to-f24 conversion changes nothing) and in the reference. */
static double grid(double v)
{
    return floor(v * 1024.0 + 0.5) / 1024.0;
}

/* Eye space (x, y, z_e) through the projection (near 0.25, far 8, fovy 0.95). */
static void project(const double e[3], float clip[4])
{
    const double n = 0.25, f = 8.0, c = 1.0 / tan(0.95 / 2), aspect = (double)W / H;
    const double a = -n / (f - n), b = -n * f / (f - n);
    clip[0] = (float)grid(e[0] * c / aspect);
    clip[1] = (float)grid(e[1] * c);
    clip[2] = (float)grid(a * e[2] + b);
    clip[3] = (float)grid(-e[2]);
}

static void put_clip(const float v[3][4], const float color[4])
{
    float *p = pvk_guest_ptr(ctx, VB, 3 * 32);
    for (unsigned i = 0; i < 3; i++) {
        memcpy(&p[i * 8], v[i], 16);
        memcpy(&p[i * 8 + 4], color, 16);
    }
    pvk_guest_written(ctx, VB, 3 * 32);
}

static double det3(const double m[3][3])
{
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

/* The point of the triangle seen at window (px, py): covered?, its z, w. */
static int ray_hit(const float v[3][4], double px, double py, double *z, double *w)
{
    double xn = px / (W / 2.0) - 1.0, yn = py / (H / 2.0) - 1.0;
    /* l0 + l1 + l2 = 1; sum l_i (x_i - xn w_i) = 0; sum l_i (y_i - yn w_i) = 0 */
    double m[3][3], r[3] = {1, 0, 0};
    for (int i = 0; i < 3; i++) {
        m[0][i] = 1;
        m[1][i] = v[i][0] - xn * v[i][3];
        m[2][i] = v[i][1] - yn * v[i][3];
    }
    double det = det3(m);
    if (fabs(det) < 1e-12)
        return 0;
    double l[3];
    for (int k = 0; k < 3; k++) { /* Cramer */
        double t[3][3];
        memcpy(t, m, sizeof t);
        for (int j = 0; j < 3; j++)
            t[j][k] = r[j];
        l[k] = det3(t) / det;
    }
    *z = l[0] * v[0][2] + l[1] * v[1][2] + l[2] * v[2][2];
    *w = l[0] * v[0][3] + l[1] * v[1][3] + l[2] * v[2][3];
    return l[0] >= 0 && l[1] >= 0 && l[2] >= 0 && *w > 0 && *z <= 0 && *z >= -*w;
}

typedef struct { uint32_t func, clear; int zbuffer; float scale, offset; } eye_case;

static void test_eye_plane(void)
{
    /* the third vertex: behind the eye, at it, just behind it; then a
     * triangle wholly ahead of the eye that the near plane cuts */
    static const double third[4][3] = {{0, -0.5, 1.5}, {0, -0.5, 0}, {0.25, -0.5, 1.0 / 1024}, {0, -0.5, -0.125}};
    static const eye_case cases[] = {
        {6, 0, 1, -1.0f, 0.0f},       /* citro3d's map, GREATER over 0: the game's draw */
        {4, ~0u, 1, 1.0f, 1.0f},      /* d = z/w + 1, LESS over the far value */
        {7, 0, 1, -0.5f, 0.25f},      /* GEQUAL */
        {6, 0, 0, -0.0625f, 0.0625f}, /* W-buffer: d = (w - z) / 16 */
    };
    const uint32_t fmts[2] = {0, 3};
    int covered_total = 0;
    for (unsigned f = 0; f < 2; f++) {
        uint32_t fmt = fmts[f], bits = fmt == 0 ? 16 : 24, maxq = (1u << bits) - 1;
        uint32_t tol = fmt == 0 ? 1 : 4; /* z/w interpolated in float32: a few D24 steps */
        setup_fb(fmt);
        for (unsigned t = 0; t < 4; t++) {
            const double ahead[2][3] = {{-3, -0.5, -6}, {3, -0.5, -6}};
            float v[3][4];
            project(ahead[0], v[0]);
            project(ahead[1], v[1]);
            project(third[t], v[2]);
            for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++) {
                const eye_case *k = &cases[c];
                uint32_t bg = k->clear & maxq;
                clear_fb();
                fill_depth(fmt, bg);
                depthmap(k->zbuffer, k->scale, k->offset);
                depth_mask(1, k->func, 1);
                put_clip(v, RED);
                draw_arrays(0, 3);
                int bad = 0, covered = 0;
                uint32_t worst = 0;
                for (uint32_t y = 0; y < H; y++)
                    for (uint32_t x = 0; x < W; x++) {
                        double z, w, zc, wc;
                        int in = ray_hit(v, x + 0.5, y + 0.5, &z, &w), edge_px = 0;
                        for (int corner = 0; corner < 4; corner++)
                            edge_px |= ray_hit(v, x + 0.5 + (corner & 1 ? 0.45 : -0.45),
                                               y + 0.5 + (corner & 2 ? 0.45 : -0.45), &zc, &wc) != in;
                        if (edge_px)
                            continue;
                        double d = z / w * k->scale + k->offset;
                        if (!k->zbuffer)
                            d *= w;
                        d = d < 0 ? 0 : d > 1 ? 1 : d;
                        uint32_t want_q = (uint32_t)floor(d * maxq);
                        /* the test passes where the triangle's depth beats the clear value */
                        int pass = in && (k->func == 6 ? want_q > bg : k->func == 4 ? want_q < bg : want_q >= bg);
                        if (in && want_q != bg && (want_q > bg ? want_q - bg : bg - want_q) <= tol)
                            continue; /* too close to the comparison to call */
                        covered += pass;
                        uint32_t got = depth_at(fmt, x, y), col = pixel(x, y);
                        uint32_t diff = pass ? (got > want_q ? got - want_q : want_q - got) : got != bg;
                        if (pass && diff > worst)
                            worst = diff;
                        if ((pass ? diff > tol : diff != 0) || col != (pass ? 0xFF0000FFu : 0)) {
                            if (bad++ < 4)
                                fprintf(stderr,
                                        "eye plane: fmt %u third vertex %u case %u pixel (%u,%u): colour 0x%08X "
                                        "depth 0x%06X, want %s depth 0x%06X\n",
                                        fmt, t, c, x, y, col, got, pass ? "drawn" : "untouched", pass ? want_q : bg);
                        }
                    }
                covered_total += covered;
                CHECK(covered > 200);
                CHECK_EQ(bad, 0);
                if (bad || (f == 1 && c == 0))
                    printf("eye plane: fmt %u, third vertex w = %g: case %u, %d pixels drawn, worst depth step %u, "
                           "%d wrong\n",
                           fmt, v[2][3], c, covered, worst, bad);
            }
        }
    }
    CHECK(covered_total > 10000);
}

int main(void)
{
    for (int mirror = 0; mirror < 2; mirror++) {
        ctx = th_context(NULL, mirror);
        upload_shader();
        setup_attribs();
        merger_replace();
        test_formats();
        test_functions();
        test_write_disable();
        test_eye_plane();
        pvk_stats st;
        pvk_get_stats(ctx, &st);
        CHECK_EQ(st.bad_input, 0);
        th_release(ctx);
    }
    return th_finish("test_depth");
}
