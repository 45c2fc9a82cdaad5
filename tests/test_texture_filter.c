/* Texture filters at resolution scale N (pvk_config.texture_filter,
 * vram/filter.c): random textures through the texture cache of a context at
 * scale N with the bicubic filter; the texture's image is N times larger and
 * level 0 equals this file's CPU version of the same algorithm (bicubic
 * convolution, Keys' a = -0.5, the 4x4 texels around each output pixel's
 * centre mapped back, edges clamped, on the RGBA the texture unit gives) to
 * at most 1 in each channel (the GPU computes in float, this in double);
 * further levels are the level before halved.  At scale 1 nothing is
 * filtered; Azahar's other filters are refused as not written yet, an
 * unknown name as invalid; PVK_TEXTURE_FILTER names the filter too. */
#include <math.h>
#include <stdlib.h>

#include "draw_common.h"
#include "runtime/runtime.h"
#include "tex_ref.h"

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
    setenv("PVK_TEXTURE_FILTER", "bicubic", 1);
    check(PVK_TEX_RGB565, 16, 8, 1, 2, NULL);
    unsetenv("PVK_TEXTURE_FILTER");
    static const struct {
        const char *name;
        pvk_result want;
    } refused[] = {{"xbrz", PVK_ERROR_UNSUPPORTED},     {"scaleforce", PVK_ERROR_UNSUPPORTED},
                   {"mmpx", PVK_ERROR_UNSUPPORTED},     {"anime4k", PVK_ERROR_UNSUPPORTED},
                   {"lanczos", PVK_ERROR_INVALID_ARGUMENT}};
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
