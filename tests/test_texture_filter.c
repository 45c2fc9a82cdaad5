/* Texture filters at resolution scale N (pvk_config.texture_filter,
 * vram/filter.c): random textures through the texture cache of a context at
 * scale N with the bicubic filter; the texture's image is N times larger and
 * level 0 equals this file's CPU version of the same algorithm (bicubic
 * convolution, Keys' a = -0.5, the 4x4 texels around each output pixel's
 * centre mapped back, edges clamped, on the RGBA the texture unit gives) to
 * at most 1 in each channel (the GPU computes in float, this in double);
 * further levels are the level before halved.  MMPX on palette textures
 * at 2x, 3x (one pass: the image 2x) and 4x (two passes) equals this file's
 * CPU version exactly; Anime4K (its 2x gradient grid, then the push at Nx)
 * at 2x-4x matches this file's float version to within 1, ScaleForce at 2x
 * and 3x too, and a red | black edge its hand-worked values.  At scale 1
 * nothing is filtered; Azahar's other
 * filters are refused as not written yet, an unknown name as invalid;
 * PVK_TEXTURE_FILTER names the filter too. */
#include <math.h>
#include <stdlib.h>

#include "draw_common.h"
#include "runtime/runtime.h"
#include "tex_ref.h"

#undef W /* draw_common.h's target size; the names below are MMPX's */
#undef H
#define TEX 0x18100000u

static double keys(double x)
{
    x = fabs(x);
    return x < 1 ? (1.5 * x - 2.5) * x * x + 1 : x < 2 ? ((-0.5 * x + 2.5) * x - 4) * x + 2 : 0;
}

/* The CPU version: src w x h RGBA8 -> out (w*s) x (h*s). */
static void bicubic(const uint8_t *src, uint32_t w, uint32_t h, uint32_t s, uint8_t *out)
{
    for (uint32_t oy = 0; oy < h * s; oy++)
        for (uint32_t ox = 0; ox < w * s; ox++) {
            double sx = (ox + 0.5) / s - 0.5, sy = (oy + 0.5) / s - 0.5;
            int bx = (int)floor(sx), by = (int)floor(sy);
            double fx = sx - bx, fy = sy - by, acc[4] = {0};
            for (int j = -1; j <= 2; j++)
                for (int i = -1; i <= 2; i++) {
                    int x = bx + i, y = by + j;
                    x = x < 0 ? 0 : x >= (int)w ? (int)w - 1 : x;
                    y = y < 0 ? 0 : y >= (int)h ? (int)h - 1 : y;
                    double wt = keys(i - fx) * keys(j - fy);
                    for (int c = 0; c < 4; c++)
                        acc[c] += wt * src[((size_t)y * w + x) * 4 + c] / 255.0;
                }
            for (int c = 0; c < 4; c++) {
                double v = acc[c] < 0 ? 0 : acc[c] > 1 ? 1 : acc[c];
                out[((size_t)oy * w * s + ox) * 4 + c] = (uint8_t)lround(v * 255);
            }
        }
}

/* ---- MMPX (McGuire and Gagiu 2021), 2x, as published: rules on exact RGBA
 * equality and an integer luma, in order; written here from the paper's
 * description independently of the shader ---- */
typedef struct img {
    const uint32_t *p;
    int w, h;
} img;

static uint32_t at(const img *m, int x, int y)
{
    x = x < 0 ? 0 : x >= m->w ? m->w - 1 : x;
    y = y < 0 ? 0 : y >= m->h ? m->h - 1 : y;
    return m->p[y * m->w + x];
}

static uint32_t luma(uint32_t c)
{
    return ((c & 255) + (c >> 8 & 255) + (c >> 16 & 255) + 1) * (256 - (c >> 24));
}

/* src w x h packed RGBA (R in the low byte) -> out 2w x 2h */
static void mmpx(const uint32_t *src, int w, int h, uint32_t *out)
{
    img m = {src, w, h};
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
#define PX(dx, dy) at(&m, x + (dx), y + (dy))
            uint32_t A = PX(-1, -1), B = PX(0, -1), C = PX(1, -1), D = PX(-1, 0), E = PX(0, 0), F = PX(1, 0);
            uint32_t G = PX(-1, 1), H = PX(0, 1), I = PX(1, 1), P = PX(0, -2), Q = PX(-2, 0), R = PX(2, 0), S = PX(0, 2);
            uint32_t o[4] = {E, E, E, E}; /* J K / L M */
            uint32_t Bl = luma(B), Dl = luma(D), El = luma(E), Fl = luma(F), Hl = luma(H);
            if (D == B && D != H && D != F && (El >= Dl || E == A) && (E == A || E == C || E == G) &&
                (El < Dl || A != D || E != P || E != Q))
                o[0] = D;
            if (B == F && B != D && B != H && (El >= Bl || E == C) && (E == A || E == C || E == I) &&
                (El < Bl || C != B || E != P || E != R))
                o[1] = B;
            if (H == D && H != F && H != B && (El >= Hl || E == G) && (E == A || E == G || E == I) &&
                (El < Hl || G != H || E != S || E != Q))
                o[2] = H;
            if (F == H && F != B && F != D && (El >= Fl || E == I) && (E == C || E == G || E == I) &&
                (El < Fl || I != H || E != R || E != S))
                o[3] = F;
            if (E != F && E == C && E == I && E == D && E == Q && F == B && F == H && F != PX(3, 0))
                o[1] = o[3] = F;
            if (E != D && E == A && E == G && E == F && E == R && D == B && D == H && D != PX(-3, 0))
                o[0] = o[2] = D;
            if (E != H && E == G && E == I && E == B && E == P && H == D && H == F && H != PX(0, 3))
                o[2] = o[3] = H;
            if (E != B && E == A && E == C && E == H && E == S && B == D && B == F && B != PX(0, -3))
                o[0] = o[1] = B;
            if (Bl < El && E == G && E == H && E == I && E == S && E != A && E != D && E != C && E != F)
                o[0] = o[1] = B;
            if (Hl < El && E == A && E == B && E == C && E == P && E != D && E != G && E != I && E != F)
                o[2] = o[3] = H;
            if (Fl < El && E == A && E == D && E == G && E == Q && E != B && E != C && E != I && E != H)
                o[1] = o[3] = F;
            if (Dl < El && E == C && E == F && E == I && E == R && E != B && E != A && E != G && E != H)
                o[0] = o[2] = D;
            if (H != B) {
                if (H != A && H != E && H != C) {
                    if (H == G && H == F && H == R && H != D && H != PX(2, -1))
                        o[2] = o[3];
                    if (H == I && H == D && H == Q && H != F && H != PX(-2, -1))
                        o[3] = o[2];
                }
                if (B != I && B != G && B != E) {
                    if (B == A && B == F && B == R && B != D && B != PX(2, 1))
                        o[0] = o[1];
                    if (B == C && B == D && B == Q && B != F && B != PX(-2, 1))
                        o[1] = o[0];
                }
            }
            if (F != D) {
                if (D != I && D != E && D != C) {
                    if (D == A && D == H && D == S && D != B && D != PX(1, 2))
                        o[0] = o[2];
                    if (D == G && D == B && D == P && D != H && D != PX(1, -2))
                        o[2] = o[0];
                }
                if (F != E && F != A && F != G) {
                    if (F == C && F == H && F == S && F != B && F != PX(-1, 2))
                        o[1] = o[3];
                    if (F == I && F == B && F == P && F != H && F != PX(-1, -2))
                        o[3] = o[1];
                }
            }
#undef PX
            out[(2 * y) * 2 * w + 2 * x] = o[0], out[(2 * y) * 2 * w + 2 * x + 1] = o[1];
            out[(2 * y + 1) * 2 * w + 2 * x] = o[2], out[(2 * y + 1) * 2 * w + 2 * x + 1] = o[3];
        }
}

/* MMPX on a palette texture (three RGBA8 colours, one of them half transparent, so
 * that neighbours are often equal and the rules fire) at `scale`: applied as often as
 * the scale allows, the image that many times 2x, equal to the CPU version exactly. */
static void check_mmpx(uint32_t scale)
{
    const uint32_t w = 32, h = 32;
    pvk_config cfg = {.scale = scale, .texture_filter = "mmpx"};
    ctx = th_context(&cfg, 0);
    static const uint8_t pal[3][4] = {{0xFF, 0x20, 0x40, 0x60}, {0xFF, 0xE0, 0xD0, 0x10}, {0x80, 0x00, 0x00, 0x00}};
    size_t len = tex_ref_level_bytes(PVK_TEX_RGBA8, w, h);
    uint8_t *bytes = pvk_guest_ptr(ctx, TEX, (uint32_t)len);
    for (size_t i = 0; i < len; i += 4)
        memcpy(bytes + i, pal[th_rand() % 3], 4);
    pvk_guest_written(ctx, TEX, (uint32_t)len);
    pvk_texture_desc d = {.addr = {TEX}, .width = w, .height = h, .format = PVK_TEX_RGBA8, .levels = 1, .faces = 1};
    const pvk_texture *t = NULL;
    CHECK_EQ(pvk_texture_get(&ctx->vram, &d, &t), PVK_SUCCESS);
    uint32_t s = 1;
    while (s * 2 <= scale)
        s *= 2;
    CHECK(t && t->filtered && t->scale == s);
    uint32_t *cur = malloc((size_t)w * h * 4), *next = NULL;
    tex_ref_decode(bytes, w, h, PVK_TEX_RGBA8, (uint8_t *)cur); /* R in the low byte: packUnorm4x8's order */
    int cw = (int)w, ch = (int)h, changed = 0;
    for (uint32_t k = 1; k < s; k *= 2) {
        next = malloc((size_t)cw * ch * 16);
        mmpx(cur, cw, ch, next);
        for (int y = 0; y < ch * 2; y++)
            for (int x = 0; x < cw * 2; x++)
                changed += next[y * cw * 2 + x] != cur[(y / 2) * cw + x / 2];
        free(cur);
        cur = next, cw *= 2, ch *= 2;
    }
    uint32_t *got = malloc((size_t)cw * ch * 4);
    if (t && t->scale == s) {
        CHECK_EQ(pvk_texture_read(&ctx->vram, t, 0, 0, got, (size_t)cw * ch * 4), PVK_SUCCESS);
        int off = 0;
        for (int i = 0; i < cw * ch; i++)
            off += got[i] != cur[i];
        printf("mmpx at x%u: image x%u, %d texels changed from nearest by the rules, %d differ from the CPU version\n",
               scale, s, changed, off);
        CHECK_EQ(off, 0);
        CHECK(changed > 100);
    }
    free(got);
    free(cur);
    th_release(ctx);
}

/* ---- Anime4K as Citra and Azahar run it, in float as the shader does:
 * a 2x grid of (horizontal luma difference, smoothed luma) from bilinear
 * samples one texel apart, then 1 - |gradient| on it, then at Nx each
 * pixel's bilinear colour pushed 60% toward the mean of three neighbours on
 * the flatter side by the first of eight directional tests that holds,
 * where the gradient is strong (below 0.4) ---- */
typedef struct fimg {
    const float *p; /* 4 floats a texel */
    int w, h;
} fimg;

static const float *fat(const fimg *m, int x, int y)
{
    x = x < 0 ? 0 : x >= m->w ? m->w - 1 : x;
    y = y < 0 ? 0 : y >= m->h ? m->h - 1 : y;
    return m->p + ((size_t)y * m->w + x) * 4;
}

static float mixf(float a, float b, float t)
{
    return a * (1.0f - t) + b * t;
}

static void fbilinear(const fimg *m, float tx, float ty, float *out)
{
    float x = tx - 0.5f, y = ty - 0.5f, x0 = floorf(x), y0 = floorf(y), fx = x - x0, fy = y - y0;
    int ix = (int)x0, iy = (int)y0;
    for (int c = 0; c < 4; c++)
        out[c] = mixf(mixf(fat(m, ix, iy)[c], fat(m, ix + 1, iy)[c], fx),
                      mixf(fat(m, ix, iy + 1)[c], fat(m, ix + 1, iy + 1)[c], fx), fy);
}

static float fluma(const float *c)
{
    return c[0] * 0.2627f + c[1] * 0.6780f + c[2] * 0.0593f;
}

static void anime4k(const uint8_t *rgba, int w, int h, int n, uint8_t *out)
{
    float *s = malloc((size_t)w * h * 16), *xy = calloc((size_t)w * h * 4, 16), *lu = calloc((size_t)w * h * 4, 16);
    for (size_t i = 0; i < (size_t)w * h * 4; i++)
        s[i] = rgba[i] / 255.0f;
    fimg S = {s, w, h}, XY = {xy, 2 * w, 2 * h}, LU = {lu, 2 * w, 2 * h};
    for (int y = 0; y < 2 * h; y++)
        for (int x = 0; x < 2 * w; x++) {
            float tx = (x + 0.5f) / 2.0f, ty = (y + 0.5f) / 2.0f, a[4], b[4], c[4];
            fbilinear(&S, tx - 1.0f, ty, a), fbilinear(&S, tx, ty, b), fbilinear(&S, tx + 1.0f, ty, c);
            float lm = fluma(a), l0 = fluma(b), lp = fluma(c);
            xy[((size_t)y * 2 * w + x) * 4] = lp - lm;
            xy[((size_t)y * 2 * w + x) * 4 + 1] = lm + 2.0f * l0 + lp;
        }
    for (int y = 0; y < 2 * h; y++)
        for (int x = 0; x < 2 * w; x++) {
            const float *a = fat(&XY, x, y - 1), *b = fat(&XY, x, y), *c = fat(&XY, x, y + 1);
            float gx = c[0] + 2.0f * b[0] + a[0], gy = a[1] - c[1];
            lu[((size_t)y * 2 * w + x) * 4] = 1.0f - sqrtf(gx * gx + gy * gy);
        }
    static const int light[8][3][2] = {{{-1, -1}, {0, -1}, {1, -1}}, {{-1, 1}, {0, 1}, {1, 1}},
                                       {{1, 0}, {0, -1}, {1, -1}},   {{-1, 1}, {-1, 0}, {0, 1}},
                                       {{1, 0}, {1, 1}, {1, -1}},    {{-1, 0}, {-1, -1}, {-1, 1}},
                                       {{1, 0}, {1, 1}, {0, 1}},     {{0, -1}, {-1, 0}, {-1, -1}}};
    static const int dark[8][3][2] = {{{-1, 1}, {0, 1}, {1, 1}},  {{-1, -1}, {0, -1}, {1, -1}},
                                      {{0, 0}, {-1, 0}, {0, 1}},  {{0, 0}, {1, 0}, {0, -1}},
                                      {{-1, 0}, {-1, -1}, {-1, 1}}, {{1, 0}, {1, 1}, {1, -1}},
                                      {{0, 0}, {-1, 0}, {0, -1}}, {{0, 0}, {1, 0}, {0, 1}}};
    static const bool above[8] = {true, true, false, false, true, true, false, false};
    for (int y = 0; y < h * n; y++)
        for (int x = 0; x < w * n; x++) {
            float tx = (x + 0.5f) / (float)n, ty = (y + 0.5f) / (float)n, qx = 2.0f * tx, qy = 2.0f * ty, c0[4], g[4];
            fbilinear(&S, tx, ty, c0);
            fbilinear(&LU, qx, qy, g);
            float lc = g[0], res[4] = {c0[0], c0[1], c0[2], c0[3]};
            if (!(lc > 0.4f))
                for (int k = 0; k < 8; k++) {
                    float lmin = 1e30f, dmax = -1e30f, sum[4] = {0}, t[4];
                    for (int m = 0; m < 3; m++) {
                        fbilinear(&LU, qx + light[k][m][0], qy + light[k][m][1], t);
                        lmin = fminf(lmin, t[0]);
                        fbilinear(&LU, qx + dark[k][m][0], qy + dark[k][m][1], t);
                        dmax = fmaxf(dmax, t[0]);
                        fbilinear(&S, tx + light[k][m][0], ty + light[k][m][1], t);
                        for (int c = 0; c < 4; c++)
                            sum[c] += t[c];
                    }
                    if (lmin > dmax && (!above[k] || lmin > lc)) {
                        for (int c = 0; c < 4; c++)
                            res[c] = c0[c] * (1.0f - 0.6f) + (sum[c] / 3.0f) * 0.6f;
                        break;
                    }
                }
            for (int c = 0; c < 4; c++)
                out[((size_t)y * w * n + x) * 4 + c] = (uint8_t)lrintf(fminf(fmaxf(res[c], 0.0f), 1.0f) * 255.0f);
        }
    free(s);
    free(xy);
    free(lu);
}

/* A context at `scale` with `filter` and a 32x32 RGBA8 texture through its
 * cache, random texels or (`pal`) three colours in lines of 1:1 and 1:2
 * slopes: *src the texture's RGBA (the CPU reference decoder's), *out the
 * filtered image's level 0 (NULL when the texture is not as expected). */
static void shaped_filtered(uint32_t scale, const char *filter, const uint8_t (*pal)[4], uint8_t **src, uint8_t **out)
{
    const uint32_t w = 32, h = 32;
    pvk_config cfg = {.scale = scale, .texture_filter = filter};
    ctx = th_context(&cfg, 0);
    size_t len = tex_ref_level_bytes(PVK_TEX_RGBA8, w, h), n = (size_t)w * h * scale * scale * 4;
    uint8_t *bytes = pvk_guest_ptr(ctx, TEX, (uint32_t)len);
    for (size_t i = 0; i < len; i++)
        bytes[i] = (uint8_t)th_rand();
    if (pal) /* 8x8 tiles, texels in Z order, A B G R bytes; the CPU decoder reads *src back as the GPU does */
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < w; x++) {
                uint32_t z = 0;
                for (int b = 0; b < 3; b++)
                    z |= ((x >> b) & 1u) << (2 * b) | ((y >> b) & 1u) << (2 * b + 1);
                const uint8_t *c = pal[((int)x - 2 * (int)y + 64 > 50) + ((x + y) % 11 < 4)];
                uint8_t *t = bytes + (((y / 8) * (w / 8) + x / 8) * 64 + z) * 4;
                t[0] = c[3], t[1] = c[2], t[2] = c[1], t[3] = c[0];
            }
    pvk_guest_written(ctx, TEX, (uint32_t)len);
    *src = malloc((size_t)w * h * 4);
    tex_ref_decode(bytes, w, h, PVK_TEX_RGBA8, *src);
    pvk_texture_desc d = {.addr = {TEX}, .width = w, .height = h, .format = PVK_TEX_RGBA8, .levels = 1, .faces = 1};
    const pvk_texture *t = NULL;
    CHECK_EQ(pvk_texture_get(&ctx->vram, &d, &t), PVK_SUCCESS);
    CHECK(t && t->filtered && t->scale == scale);
    *out = malloc(n);
    if (!t || t->scale != scale || pvk_texture_read(&ctx->vram, t, 0, 0, *out, n)) {
        CHECK(!"filtered image read back");
        free(*out);
        *out = NULL;
    }
}

static void random_filtered(uint32_t scale, const char *filter, uint8_t **src, uint8_t **out)
{
    shaped_filtered(scale, filter, NULL, src, out);
}

/* Pixels of `got` with a channel more than 1 from `want` (n bytes). */
static int far_off(const uint8_t *got, const uint8_t *want, size_t n)
{
    int off = 0;
    for (size_t i = 0; i < n; i += 4) {
        int bad = 0;
        for (int c = 0; c < 4; c++)
            bad |= abs(got[i + c] - want[i + c]) > 1;
        off += bad;
    }
    return off;
}

/* Anime4K at `scale` on random texels (strong gradients everywhere: the
 * push moves 45% of the pixels) against the CPU version: at most 1 in every
 * channel, allowing 0.1% of the pixels where a strict comparison of nearly
 * equal gradients could go the other way (none so far). */
static void check_anime4k(uint32_t scale)
{
    const uint32_t w = 32, h = 32;
    uint8_t *src, *got;
    random_filtered(scale, "anime4k", &src, &got);
    size_t n = (size_t)w * h * scale * scale * 4;
    uint8_t *want = malloc(n);
    anime4k(src, (int)w, (int)h, (int)scale, want);
    if (got) {
        int off = far_off(got, want, n), pushed = 0;
        /* how many pixels the push moved: against the plain bilinear colour */
        fimg S = {NULL, (int)w, (int)h};
        float *fs = malloc((size_t)w * h * 16);
        for (size_t i = 0; i < (size_t)w * h * 4; i++)
            fs[i] = src[i] / 255.0f;
        S.p = fs;
        for (uint32_t y = 0; y < h * scale; y++)
            for (uint32_t x = 0; x < w * scale; x++) {
                float c0[4];
                fbilinear(&S, (x + 0.5f) / scale, (y + 0.5f) / scale, c0);
                int moved = 0;
                for (int c = 0; c < 4; c++)
                    moved |= abs((int)lrintf(c0[c] * 255.0f) - want[((size_t)y * w * scale + x) * 4 + c]) > 1;
                pushed += moved;
            }
        free(fs);
        printf("anime4k at x%u: %d of %zu pixels pushed, %d differ from the CPU version by more than 1\n", scale, pushed,
               n / 4, off);
        CHECK(pushed > 100);
        CHECK((size_t)off * 1000 <= n / 4); /* at most 0.1% */
    }
    free(src);
    free(want);
    free(got);
    th_release(ctx);
}

/* ---- ScaleForce as Citra and Azahar run it, in float as the shader does ---- */
static void sf_bil(const fimg *m, float tx, float ty, float *out)
{
    float x = tx - 0.5f, y = ty - 0.5f, x0 = floorf(x), y0 = floorf(y), fx = x - x0, fy = y - y0;
    int ix = (int)x0, iy = (int)y0;
    for (int c = 0; c < 4; c++) {
        float a = fat(m, ix, iy)[c], b = fat(m, ix + 1, iy)[c], cc = fat(m, ix, iy + 1)[c], d = fat(m, ix + 1, iy + 1)[c];
        float top = a + fx * (b - a), bot = cc + fx * (d - cc);
        out[c] = top + fy * (bot - top);
    }
}

static void sf_taps(float q, float *h0, float *h1, float *share)
{
    float i = truncf(q), f = q - i;
    float w0 = (1 - f) * (1 - f) * (1 - f) / 6, w1 = (3 * f * f * f - 6 * f * f + 4) / 6;
    float w2 = (-3 * f * f * f + 3 * f * f + 3 * f + 1) / 6, w3 = f * f * f / 6, g0 = w0 + w1, g1 = w2 + w3;
    *h0 = i - 0.5f + w1 / g0, *h1 = i + 1.5f + w3 / g1, *share = g0 / (g0 + g1);
}

static void scaleforce(const uint8_t *rgba, int w, int h, int n, uint8_t *out)
{
    float *s = malloc((size_t)w * h * 16);
    for (size_t i = 0; i < (size_t)w * h * 4; i++)
        s[i] = rgba[i] / 255.0f;
    fimg S = {s, w, h};
    for (int y = 0; y < h * n; y++)
        for (int x = 0; x < w * n; x++) {
            float tx = (x + 0.5f) / n, ty = (y + 0.5f) / n, c[4], nb[4], res[4], sum = 0, dx = 0, dy = 0;
            sf_bil(&S, tx, ty, c);
            for (int j = -1; j <= 1; j++)
                for (int i = -1; i <= 1; i++) {
                    if (!i && !j)
                        continue;
                    sf_bil(&S, tx + i, ty + j, nb);
                    float e = 0.6f * (nb[0] - c[0]), wt = sqrtf((e * e + fabsf(c[3] - nb[3])) * nb[3] * c[3]);
                    sum += wt, dx += wt * i, dy += wt * j;
                }
            if (sum == 0.0f)
                memcpy(res, c, sizeof res);
            else {
                float l = sqrtf(dx * dx + dy * dy) / sum, sx = tx - fminf(fmaxf(dx, -l), l), sy = ty - fminf(fmaxf(dy, -l), l);
                float x0, x1, ax, y0, y1, ay, t00[4], t10[4], t01[4], t11[4];
                sf_taps(sx - 0.5f, &x0, &x1, &ax);
                sf_taps(sy - 0.5f, &y0, &y1, &ay);
                sf_bil(&S, x0, y0, t00), sf_bil(&S, x1, y0, t10), sf_bil(&S, x0, y1, t01), sf_bil(&S, x1, y1, t11);
                for (int k = 0; k < 4; k++)
                    res[k] = ay * (ax * t00[k] + (1 - ax) * t10[k]) + (1 - ay) * (ax * t01[k] + (1 - ax) * t11[k]);
            }
            for (int k = 0; k < 4; k++)
                out[((size_t)y * w * n + x) * 4 + k] = (uint8_t)lrintf(fminf(fmaxf(res[k], 0.0f), 1.0f) * 255.0f);
        }
    free(s);
}

/* ScaleForce at `scale`: random texels against the CPU version (within 1,
 * 0.1% allowed for near-ties of its exact zero test), and a red | black edge
 * against values worked out by hand from the algorithm (red 255, 237, 18, 0
 * across the edge at 2x). */
static void check_scaleforce(uint32_t scale)
{
    const uint32_t w = 32, h = 32;
    uint8_t *src, *got;
    random_filtered(scale, "scaleforce", &src, &got);
    size_t n = (size_t)w * h * scale * scale * 4;
    uint8_t *want = malloc(n);
    scaleforce(src, (int)w, (int)h, (int)scale, want);
    if (got) {
        int off = far_off(got, want, n);
        printf("scaleforce at x%u: %d of %zu pixels differ from the CPU version by more than 1\n", scale, off, n / 4);
        CHECK((size_t)off * 1000 <= n / 4);
    }
    if (scale == 2) { /* an 8x8 texture: columns 0-3 red, 4-7 black, every row alike */
        static const uint8_t xl[8] = {0, 1, 4, 5, 16, 17, 20, 21};
        uint32_t at = TEX + 0x10000;
        uint8_t *e = pvk_guest_ptr(ctx, at, 256);
        for (uint32_t y = 0; y < 8; y++)
            for (uint32_t x = 0; x < 8; x++) {
                uint8_t *px = e + (xl[x] + ((y & 1) << 1 | (y & 2) << 2 | (y & 4) << 3)) * 4; /* A, B, G, R */
                px[0] = 255, px[1] = 0, px[2] = 0, px[3] = x < 4 ? 255 : 0;
            }
        pvk_guest_written(ctx, at, 256);
        pvk_texture_desc ed = {.addr = {at}, .width = 8, .height = 8, .format = PVK_TEX_RGBA8, .levels = 1, .faces = 1};
        const pvk_texture *et = NULL;
        uint8_t img[16 * 16 * 4];
        CHECK_EQ(pvk_texture_get(&ctx->vram, &ed, &et), PVK_SUCCESS);
        if (et && pvk_texture_read(&ctx->vram, et, 0, 0, img, sizeof img) == PVK_SUCCESS) {
            static const int red[4][2] = {{6, 255}, {7, 237}, {8, 18}, {9, 0}}; /* 237.07, 17.93 by hand */
            for (uint32_t y = 0; y < 16; y++)
                for (int k = 0; k < 4; k++)
                    CHECK(abs(img[(y * 16 + (uint32_t)red[k][0]) * 4] - red[k][1]) <= 1);
            printf("scaleforce edge at x2: red %u %u %u %u\n", img[6 * 4], img[7 * 4], img[8 * 4], img[9 * 4]);
        }
    }
    free(src);
    free(want);
    free(got);
    th_release(ctx);
}

/* ---- xBRZ "freescale" as Citra and Azahar run it, in float as the shader
 * does (the same sums in the same order, no contraction): corner k of a texel
 * is the bottom-right one turned k quarter turns, (x, y) -> (-y, x) ---- */
static void xb_turn(int k, int *x, int *y)
{
    for (int i = 0; i < k; i++) {
        int t = *x;
        *x = -*y, *y = t;
    }
}

static const float *xb_px(const fimg *m, int cx, int cy, int k, int dx, int dy)
{
    xb_turn(k, &dx, &dy);
    return fat(m, cx + dx, cy + dy);
}

static float xb_dist(const float *a, const float *b)
{
    float d[4] = {a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3]};
    float y = 0.2627f * d[0] + 0.6780f * d[1] + 0.0593f * d[2];
    float cb = -0.139630063f * d[0] + -0.360369937f * d[1] + 0.5f * d[2];
    float cr = 0.5f * d[0] + -0.459785705f * d[1] + -0.0402142954f * d[2];
    float l = sqrtf(y * y + cb * cb + cr * cr);
    return sqrtf(a[3] * b[3] * l * l + d[3] * d[3]);
}

static bool xb_eq(const float *a, const float *b)
{
    return !memcmp(a, b, 16);
}

static bool xb_same(const float *a, const float *b)
{
    return xb_dist(a, b) < 30.0f / 255.0f;
}

enum { XB_NONE, XB_NORMAL, XB_DOMINANT };

static int xb_corner(const fimg *m, int cx, int cy, int k)
{
#define PX(dx, dy) xb_px(m, cx, cy, k, dx, dy)
    const float *E = PX(0, 0), *F = PX(1, 0), *H = PX(0, 1), *I = PX(1, 1);
    if ((xb_eq(E, F) && xb_eq(H, I)) || (xb_eq(E, H) && xb_eq(F, I)))
        return XB_NONE;
    const float *B = PX(0, -1), *C = PX(1, -1), *D = PX(-1, 0), *G = PX(-1, 1);
    float hf = xb_dist(G, E) + xb_dist(E, C) + xb_dist(PX(0, 2), I) + xb_dist(I, PX(2, 0)) + 4.0f * xb_dist(H, F);
    float ei = xb_dist(D, H) + xb_dist(H, PX(1, 2)) + xb_dist(B, F) + xb_dist(F, PX(2, 1)) + 4.0f * xb_dist(E, I);
#undef PX
    if (!(hf < ei) || xb_eq(E, F) || xb_eq(E, H))
        return XB_NONE;
    return 3.6f * hf < ei ? XB_DOMINANT : XB_NORMAL;
}

static float xb_smoothstep(float e0, float e1, float x)
{
    float t = fminf(fmaxf((x - e0) / (e1 - e0), 0.0f), 1.0f);
    return t * t * (3.0f - 2.0f * t);
}

static void xbrz(const uint8_t *rgba, int w, int h, int n, uint8_t *out)
{
    float *s = malloc((size_t)w * h * 16);
    for (size_t i = 0; i < (size_t)w * h * 4; i++)
        s[i] = rgba[i] / 255.0f;
    fimg S = {s, w, h};
    static const int order[4] = {0, 1, 3, 2}; /* bottom-right, bottom-left, top-right, top-left */
    for (int oy = 0; oy < h * n; oy++)
        for (int ox = 0; ox < w * n; ox++) {
            int cx = ox / n, cy = oy / n, r[4];
            float px = ((float)(ox % n) + 0.5f) / (float)n - 0.5f, py = ((float)(oy % n) + 0.5f) / (float)n - 0.5f;
            float res[4];
            memcpy(res, fat(&S, cx, cy), sizeof res);
            for (int k = 0; k < 4; k++)
                r[k] = xb_corner(&S, cx, cy, k);
            for (int q = 0; q < 4; q++) {
                int k = order[q];
                if (r[k] == XB_NONE)
                    continue;
#define PX(dx, dy) xb_px(&S, cx, cy, k, dx, dy)
                const float *E = PX(0, 0), *F = PX(1, 0), *H = PX(0, 1), *I = PX(1, 1);
                const float *B = PX(0, -1), *C = PX(1, -1), *D = PX(-1, 0), *G = PX(-1, 1);
#undef PX
                float fg = xb_dist(F, G), hc = xb_dist(H, C);
                bool line = r[k] == XB_DOMINANT ||
                            !((r[(k + 3) & 3] != XB_NONE && !xb_same(E, G)) ||
                              (r[(k + 1) & 3] != XB_NONE && !xb_same(E, C)) ||
                              (xb_same(G, H) && xb_same(H, I) && xb_same(I, F) && xb_same(F, C) && !xb_same(E, I)));
                float ox0 = 0.0f, oy0 = 0.70710678f, dx = 1.0f, dy = -1.0f;
                if (line) {
                    bool shallow = 2.2f * fg <= hc && !xb_eq(E, G) && !xb_eq(D, G);
                    bool steep = 2.2f * hc <= fg && !xb_eq(E, C) && !xb_eq(B, C);
                    oy0 = shallow ? 0.25f : 0.5f;
                    dx += shallow ? 1.0f : 0.0f;
                    dy -= steep ? 1.0f : 0.0f;
                }
                const float *blend = xb_dist(E, H) >= xb_dist(E, F) ? F : H;
                for (int i = 0; i < k; i++) { /* into the image's frame */
                    float t = ox0;
                    ox0 = -oy0, oy0 = t;
                    t = dx;
                    dx = -dy, dy = t;
                }
                float p0x = px - ox0, p0y = py - oy0, f = (p0x * dx + p0y * dy) / (dx * dx + dy * dy);
                float offx = (p0x - dx * f) * (float)n, offy = (p0y - dy * f) * (float)n;
                float side = p0x * -dy + p0y * dx;
                float v = (side > 0 ? 1.0f : side < 0 ? -1.0f : 0.0f) * sqrtf(offx * offx + offy * offy);
                float a = xb_smoothstep(-0.70710678f, 0.70710678f, v);
                for (int c = 0; c < 4; c++)
                    res[c] = res[c] * (1.0f - a) + blend[c] * a;
            }
            for (int c = 0; c < 4; c++)
                out[((size_t)oy * w * n + ox) * 4 + c] = (uint8_t)lrintf(fminf(fmaxf(res[c], 0.0f), 1.0f) * 255.0f);
        }
    free(s);
}

/* xBRZ at `scale` against the CPU version, within 1 (0.1% of the pixels
 * allowed for near-ties of its comparisons): random texels, and three colours
 * in 1:1 and 1:2 lines, where corners blend along whole edges; there the
 * output must not be nearest-neighbour scaling (pixels between the colours). */
static void check_xbrz(uint32_t scale)
{
    static const uint8_t pal[3][4] = {{0x20, 0x40, 0x60, 0xFF}, {0xE0, 0xD0, 0x10, 0xFF}, {0x00, 0x00, 0x00, 0x80}};
    const uint32_t w = 32, h = 32;
    for (int shaped = 0; shaped < 2; shaped++) {
        uint8_t *src, *got;
        shaped_filtered(scale, "xbrz", shaped ? pal : NULL, &src, &got);
        size_t n = (size_t)w * h * scale * scale * 4;
        uint8_t *want = malloc(n);
        xbrz(src, (int)w, (int)h, (int)scale, want);
        if (got) {
            int off = far_off(got, want, n), blended = 0;
            for (size_t i = 0; i < n; i += 4) {
                uint32_t sx = (uint32_t)(i / 4 % (w * scale)) / scale, sy = (uint32_t)(i / 4 / (w * scale)) / scale;
                blended += memcmp(got + i, src + (sy * w + sx) * 4, 4) != 0;
            }
            printf("xbrz at x%u (%s): %d of %zu pixels differ from the CPU version by more than 1; %d blended\n",
                   scale, shaped ? "lines" : "random", off, n / 4, blended);
            CHECK((size_t)off * 1000 <= n / 4);
            CHECK(blended > (int)(n / 4 / 50));
        }
        free(src);
        free(want);
        free(got);
        th_release(ctx);
    }
}

/* One texture of `format`, w x h, `levels`, through a context at `scale`: level 0 against the CPU version. */
static void check(uint32_t format, uint32_t w, uint32_t h, uint32_t levels, uint32_t scale, const char *filter)
{
    pvk_config cfg = {.scale = scale, .texture_filter = filter};
    ctx = th_context(&cfg, 0);
    size_t len = tex_ref_level_offset(format, w, h, levels);
    uint8_t *bytes = pvk_guest_ptr(ctx, TEX, (uint32_t)len);
    for (size_t i = 0; i < len; i++)
        bytes[i] = (uint8_t)th_rand();
    pvk_guest_written(ctx, TEX, (uint32_t)len);
    pvk_texture_desc d = {.addr = {TEX}, .width = w, .height = h, .format = format, .levels = levels, .faces = 1};
    const pvk_texture *t = NULL;
    CHECK_EQ(pvk_texture_get(&ctx->vram, &d, &t), PVK_SUCCESS);
    bool on = scale > 1;
    CHECK(t && t->filtered == on);
    CHECK(t && (t->scale ? t->scale : 1) == scale);
    CHECK_EQ(stats().textures_filtered, on ? 1 : 0);
    if (t && on) {
        uint8_t *src = malloc((size_t)w * h * 4), *want = malloc((size_t)w * h * scale * scale * 4),
                *got = malloc((size_t)w * h * scale * scale * 4);
        tex_ref_decode(bytes, w, h, format, src);
        bicubic(src, w, h, scale, want);
        CHECK_EQ(pvk_texture_read(&ctx->vram, t, 0, 0, got, (size_t)w * h * scale * scale * 4), PVK_SUCCESS);
        int worst = 0, off = 0;
        for (size_t i = 0; i < (size_t)w * h * scale * scale * 4; i++) {
            int dv = abs(got[i] - want[i]);
            worst = dv > worst ? dv : worst;
            off += dv > 1;
        }
        printf("format %u %ux%u at x%u: largest difference %d, %d channels past 1\n", format, w, h, scale, worst, off);
        CHECK_EQ(off, 0);
        for (uint32_t l = 1; l < levels; l++) { /* the level before, halved: its mean is the level's mean */
            size_t n = (size_t)(w * scale >> l) * (h * scale >> l) * 4;
            uint8_t *lv = malloc(n);
            CHECK_EQ(pvk_texture_read(&ctx->vram, t, 0, l, lv, n), PVK_SUCCESS);
            double m0 = 0, m1 = 0;
            for (size_t i = 0; i < (size_t)w * h * scale * scale * 4; i++)
                m0 += got[i];
            for (size_t i = 0; i < n; i++)
                m1 += lv[i];
            m0 /= (double)w * h * scale * scale * 4, m1 /= (double)n;
            CHECK(fabs(m0 - m1) < 2.0);
            free(lv);
        }
        free(src);
        free(want);
        free(got);
    }
    th_release(ctx);
}

int main(void)
{
    check(PVK_TEX_RGBA8, 16, 16, 1, 3, "bicubic");
    check(PVK_TEX_L8, 32, 16, 1, 2, "Bicubic");
    check(PVK_TEX_ETC1A4, 32, 32, 2, 4, "bicubic");
    check(PVK_TEX_RGBA8, 16, 16, 1, 1, "bicubic"); /* 1x: nothing to filter */
    check_mmpx(2);
    check_mmpx(3);
    check_mmpx(4);
    check_anime4k(2);
    check_anime4k(3);
    check_anime4k(4);
    check_scaleforce(2);
    check_scaleforce(3);
    check_xbrz(2);
    check_xbrz(3);
    check_xbrz(4);
    setenv("PVK_TEXTURE_FILTER", "bicubic", 1);
    check(PVK_TEX_RGB565, 16, 8, 1, 2, NULL);
    unsetenv("PVK_TEXTURE_FILTER");
    static const struct {
        const char *name;
        pvk_result want;
    } refused[] = {{"xbr", PVK_ERROR_INVALID_ARGUMENT}, {"lanczos", PVK_ERROR_INVALID_ARGUMENT}};
    th_quiet_errors = 1;
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        pvk_config cfg = {.scale = 2, .texture_filter = refused[i].name, .validation = 1, .log = th_log};
        pvk_context *c = NULL;
        CHECK_EQ(pvk_context_create(&cfg, &c), refused[i].want);
        CHECK(c == NULL);
    }
    th_quiet_errors = 0;
    return th_finish("test_texture_filter");
}
