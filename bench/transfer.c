/* Transfer-engine throughput against memcpy of the same bytes, measured in
 * the same run: a 400x240 RGBA8 tiled->linear display transfer, a 4 MiB
 * texture copy and a 1 MiB 32-bit fill, each as one operation (submit and
 * wait) and as a batch of 64 queued operations. */
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

enum { DISPLAY, TEXCOPY, FILL };
static const char *names[] = {"display_transfer_400x240_rgba8", "texture_copy_4MiB", "fill32_1MiB"};
static const uint32_t bytes[] = {400 * 240 * 4, 4u << 20, 1u << 20};

static void start(int kind, int i)
{
    /* successive operations of a batch target different destinations */
    uint32_t dst_off = (uint32_t)(i % 8) * (4u << 20);
    switch (kind) {
    case DISPLAY:
        wr(0xC00, 0x18000000 >> 3);
        wr(0xC04, (0x20000000 + dst_off) >> 3);
        wr(0xC08, (400u << 16) | 240);
        wr(0xC0C, (400u << 16) | 240);
        wr(0xC10, 0);
        wr(0xC18, 1);
        break;
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
    for (int k = 0; k < 3; k++)
        time_gpu(k, 2, 1); /* warm up: pipelines, page faults */
    double res[3][2], base[3][2];
    static const int batches[2] = {1, 64};
    for (int k = 0; k < 3; k++)
        for (int b = 0; b < 2; b++) {
            res[k][b] = time_gpu(k, batches[b], b ? 3 : 10);
            base[k][b] = time_memcpy(bytes[k], batches[b], b ? 3 : 10);
        }
    printf("%-32s %10s %12s %12s %8s\n", "operation", "batch", "GPU MB/s", "memcpy MB/s", "ratio");
    for (int k = 0; k < 3; k++)
        for (int b = 0; b < 2; b++)
            printf("%-32s %10d %12.0f %12.0f %8.3f\n", names[k], batches[b], bytes[k] / res[k][b] / 1e6,
                   bytes[k] / base[k][b] / 1e6, base[k][b] / res[k][b]);
    for (int k = 0; k < 3; k++)
        for (int b = 0; b < 2; b++)
            printf("BENCH name=%s_%s value=%.1f unit=MB/s baseline=memcpy ratio=%.3f\n", names[k],
                   b ? "batch64" : "single", bytes[k] / res[k][b] / 1e6, base[k][b] / res[k][b]);
    pvk_stats st;
    pvk_get_stats(ctx, &st);
    pvk_context_destroy(ctx);
    return st.bad_input ? 1 : 0;
}
