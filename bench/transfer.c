/* Transfer-engine and scan-out throughput against memcpy of the same bytes,
 * measured in the same run: 400x240 tiled->linear display transfers from
 * RGBA8 to RGBA8 (the 16-byte vector path), RGB8 and RGB565, a 2x2
 * downscale of 800x480 RGBA8 to RGB8, a 4 MiB texture copy, a 1 MiB 32-bit
 * fill and a VBlank scanning out both screens from RGB8 framebuffers (the
 * LCD scan-out plus the copy into the output images); each as one operation
 * (submit and wait) and as a batch of 64 queued operations.  Figures are
 * bytes read per second (a transfer's input, the framebuffers). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "picavk/picavk.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static pvk_context *ctx;
static void wr(uint32_t off, uint32_t v) { pvk_mmio_write32(ctx, 0x10400000u + off, v); }

enum { DISPLAY, DISPLAY_RGB8, DISPLAY_565, DISPLAY_AA, TEXCOPY, FILL, VBLANK, KINDS };
static const char *names[KINDS] = {"display_transfer_400x240_rgba8", "display_transfer_400x240_rgba8_to_rgb8",
                                   "display_transfer_400x240_rgba8_to_rgb565",
                                   "display_transfer_800x480_rgba8_to_rgb8_2x2", "texture_copy_4MiB", "fill32_1MiB",
                                   "vblank_scanout_rgb8_both_screens"};
static const uint32_t bytes[KINDS] = {400 * 240 * 4, 400 * 240 * 4, 400 * 240 * 4, 800 * 480 * 4,
                                      4u << 20,      1u << 20,      (400 + 320) * 240 * 3};

/* Both LCDs show RGB8 framebuffers in FCRAM (the formats citro3d programs). */
static void setup_lcds(void)
{
    for (uint32_t pdc = 0; pdc < 2; pdc++) {
        uint32_t base = 0x400 + 0x100 * pdc;
        wr(base + 0x68, 0x23000000 + pdc * 0x100000); /* framebuffer A */
        wr(base + 0x70, 1);                           /* RGB8, 2D */
        wr(base + 0x90, 240 * 3);                     /* stride */
        wr(base + 0x74, 1);                           /* enable */
    }
}

static void start(int kind, int i)
{
    /* successive operations of a batch target different destinations */
    uint32_t dst_off = (uint32_t)(i % 8) * (4u << 20);
    switch (kind) {
    case DISPLAY:
    case DISPLAY_RGB8:
    case DISPLAY_565:
    case DISPLAY_AA: {
        /* the top screen is 240 pixels wide and 400 high as the transfer sees it */
        uint32_t dim = kind == DISPLAY_AA ? (800u << 16) | 480 : (400u << 16) | 240;
        uint32_t out_fmt = kind == DISPLAY_RGB8 || kind == DISPLAY_AA ? 1 : kind == DISPLAY_565 ? 2 : 0;
        wr(0xC00, 0x18000000 >> 3);
        wr(0xC04, (0x20000000 + dst_off) >> 3);
        wr(0xC08, dim);
        wr(0xC0C, dim);
        wr(0xC10, out_fmt << 12 | (kind == DISPLAY_AA ? 2u << 24 : 0));
        wr(0xC18, 1);
        break;
    }
    case TEXCOPY:
        wr(0xC00, 0x20000000 >> 3);
        wr(0xC04, (0x21000000 + dst_off) >> 3);
        wr(0xC10, 8);
        wr(0xC20, 4u << 20);
        wr(0xC18, 1);
        break;
    case FILL:
        wr(0x010, (0x22000000 + dst_off) >> 3);
        wr(0x014, (0x22000000 + dst_off + (1u << 20)) >> 3);
        wr(0x018, 0x11223344);
        wr(0x01C, 0x201);
        break;
    case VBLANK:
        pvk_vblank(ctx);
        break;
    }
}

/* Seconds per operation: best of `reps` runs of `batch` operations. */
static double time_gpu(int kind, int batch, int reps)
{
    double best = 1e9;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        for (int i = 0; i < batch; i++)
            start(kind, i);
        pvk_wait_idle(ctx);
        double t = (now() - t0) / batch;
        best = t < best ? t : best;
    }
    return best;
}

static double time_memcpy(uint32_t n, int batch, int reps)
{
    uint8_t *a = malloc(n), *b = malloc((size_t)n * 8);
    memset(a, 1, n);
    memset(b, 2, (size_t)n * 8);
    double best = 1e9;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        for (int i = 0; i < batch; i++)
            memcpy(b + (size_t)(i % 8) * n, a, n);
        double t = (now() - t0) / batch;
        best = t < best ? t : best;
        __asm__ volatile("" ::"r"(b) : "memory");
    }
    free(a);
    free(b);
    return best;
}

int main(void)
{
    pvk_config cfg = {0};
    if (pvk_context_create(&cfg, &ctx)) {
        fprintf(stderr, "bench/transfer: no context\n");
        return 1;
    }
    printf("device: %s\n", pvk_device_name(ctx));
    setup_lcds();
    for (int k = 0; k < KINDS; k++)
        time_gpu(k, 2, 1); /* warm up: pipelines, page faults */
    double res[KINDS][2], base[KINDS][2];
    static const int batches[2] = {1, 64};
    for (int k = 0; k < KINDS; k++)
        for (int b = 0; b < 2; b++) {
            res[k][b] = time_gpu(k, batches[b], b ? 3 : 10);
            base[k][b] = time_memcpy(bytes[k], batches[b], b ? 3 : 10);
        }
    printf("%-44s %6s %10s %10s %12s %8s\n", "operation", "batch", "ms/op", "GPU MB/s", "memcpy MB/s", "ratio");
    for (int k = 0; k < KINDS; k++)
        for (int b = 0; b < 2; b++)
            printf("%-44s %6d %10.3f %10.0f %12.0f %8.3f\n", names[k], batches[b], res[k][b] * 1e3,
                   bytes[k] / res[k][b] / 1e6, bytes[k] / base[k][b] / 1e6, base[k][b] / res[k][b]);
    for (int k = 0; k < KINDS; k++)
        for (int b = 0; b < 2; b++)
            printf("BENCH name=%s_%s value=%.1f unit=MB/s baseline=memcpy ratio=%.3f\n", names[k],
                   b ? "batch64" : "single", bytes[k] / res[k][b] / 1e6, base[k][b] / res[k][b]);
    pvk_stats st;
    pvk_get_stats(ctx, &st);
    pvk_context_destroy(ctx);
    return st.bad_input ? 1 : 0;
}
