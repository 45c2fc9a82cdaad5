/* Texture decode throughput per format: the GPU path (pvk_texture_decode:
 * image and staging allocation, the compute decode, the copy into the
 * image) against the CPU reference decoder (tests/ref/tex_ref.c) on the same
 * bytes, measured in the same run; and the time to first use of a 256x256
 * ETC1 texture with its mip levels (decode call to image ready). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/runtime.h"
#include "tex_ref.h"

#define SIDE 512u
#define BATCH 8 /* textures decoded before one wait */
#define REPS 9  /* best of: the machine is shared */

static const char *const names[PVK_TEX_FORMAT_COUNT] = {"rgba8888", "rgb888", "rgba5551", "rgb565", "rgba4444",
                                                         "la8",      "hilo8",  "l8",       "a8",     "la44",
                                                         "l4",       "a4",     "etc1",     "etc1a4"};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU time of the whole process, lavapipe's worker threads included: the
 * work a decode costs, whatever else the machine runs. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static pvk_context *ctx;
static uint64_t rng = 0x9E3779B97F4A7C15ull;

static void randomise(uint32_t addr, uint32_t len)
{
    uint8_t *p = pvk_guest_ptr(ctx, addr, len);
    for (uint32_t i = 0; i < len; i++) {
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        p[i] = (uint8_t)rng;
    }
    pvk_guest_written(ctx, addr, len);
}

/* Seconds per texture: best of `reps` batches, each BATCH decodes into
 * fresh images and one wait; *cpu_s the process CPU time of that batch. */
static double time_gpu(const pvk_texture_desc *d, int reps, double *cpu_s)
{
    pvk_texture t[BATCH];
    double best = 1e9;
    for (int r = 0; r < reps; r++) {
        double t0 = now(), c0 = cpu_now();
        for (int i = 0; i < BATCH; i++)
            if (pvk_texture_decode(&ctx->vram, d, &t[i]))
                return -1;
        pvk_wait_idle(ctx);
        double s = (now() - t0) / BATCH, c = (cpu_now() - c0) / BATCH;
        if (s < best)
            best = s, *cpu_s = c;
        for (int i = 0; i < BATCH; i++)
            pvk_texture_destroy(&ctx->vram, &t[i]);
    }
    return best;
}

static double time_cpu(const uint8_t *src, unsigned w, unsigned h, unsigned levels, unsigned format, uint8_t *out,
                       int reps)
{
    double best = 1e9;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        for (int i = 0; i < BATCH; i++)
            for (unsigned l = 0; l < levels; l++)
                tex_ref_decode(src + tex_ref_level_offset(format, w, h, l), w >> l, h >> l, format, out);
        double s = (now() - t0) / BATCH;
        best = s < best ? s : best;
        __asm__ volatile("" ::"r"(out) : "memory");
    }
    return best;
}

int main(void)
{
    pvk_config cfg = {0};
    if (pvk_context_create(&cfg, &ctx)) {
        fprintf(stderr, "bench/texture: no context\n");
        return 1;
    }
    printf("device: %s\n", pvk_device_name(ctx));
    const uint32_t addr = PVK_FCRAM_BASE;
    uint8_t *out = malloc((size_t)SIDE * SIDE * 4);
    double gpu[PVK_TEX_FORMAT_COUNT], cpu[PVK_TEX_FORMAT_COUNT], gpu_cpu[PVK_TEX_FORMAT_COUNT];
    for (uint32_t f = 0; f < PVK_TEX_FORMAT_COUNT; f++) {
        pvk_texture_desc d = {.addr = {addr}, .width = SIDE, .height = SIDE, .format = f, .levels = 1, .faces = 1};
        randomise(addr, pvk_texture_face_bytes(f, SIDE, SIDE, 1));
        time_gpu(&d, 1, &gpu_cpu[f]); /* warm up: allocations, page faults */
        gpu[f] = time_gpu(&d, REPS, &gpu_cpu[f]);
        cpu[f] = time_cpu(pvk_guest_ptr(ctx, addr, 1), SIDE, SIDE, 1, f, out, REPS);
    }

    /* first use: 256x256 ETC1, levels 256..8, fresh bytes each time; median of 9 */
    enum { FW = 256, FLEVELS = 6, RUNS = 9 };
    double first[RUNS], ref_first[RUNS];
    uint32_t fbytes = pvk_texture_face_bytes(PVK_TEX_ETC1, FW, FW, FLEVELS);
    for (int i = 0; i < RUNS; i++) {
        uint32_t a = addr + 0x400000u + (uint32_t)i * 0x10000u;
        randomise(a, fbytes);
        pvk_wait_idle(ctx);
        pvk_texture_desc d = {.addr = {a}, .width = FW, .height = FW, .format = PVK_TEX_ETC1, .levels = FLEVELS,
                              .faces = 1};
        pvk_texture t;
        double t0 = now();
        if (pvk_texture_decode(&ctx->vram, &d, &t))
            return 1;
        pvk_wait_idle(ctx);
        first[i] = now() - t0;
        pvk_texture_destroy(&ctx->vram, &t);
        t0 = now();
        for (unsigned l = 0; l < FLEVELS; l++)
            tex_ref_decode(pvk_guest_ptr(ctx, a, fbytes) + tex_ref_level_offset(PVK_TEX_ETC1, FW, FW, l), FW >> l,
                           FW >> l, PVK_TEX_ETC1, out);
        ref_first[i] = now() - t0;
    }
    for (int i = 0; i < RUNS; i++) /* sort for the median */
        for (int j = i + 1; j < RUNS; j++) {
            if (first[j] < first[i]) { double x = first[i]; first[i] = first[j]; first[j] = x; }
            if (ref_first[j] < ref_first[i]) { double x = ref_first[i]; ref_first[i] = ref_first[j]; ref_first[j] = x; }
        }

    double texels = (double)SIDE * SIDE;
    printf("%ux%u, batches of %d, best of %d; 'CPU-time' counts texels per second of the process's CPU time "
           "(lavapipe's threads included)\n",
           SIDE, SIDE, BATCH, REPS);
    printf("%-10s %12s %12s %8s %16s\n", "format", "GPU Mtex/s", "CPU Mtex/s", "ratio", "GPU CPU-time");
    for (uint32_t f = 0; f < PVK_TEX_FORMAT_COUNT; f++)
        printf("%-10s %12.1f %12.1f %8.2f %16.1f\n", names[f], texels / gpu[f] / 1e6, texels / cpu[f] / 1e6,
               cpu[f] / gpu[f], texels / gpu_cpu[f] / 1e6);
    printf("first use, 256x256 ETC1 with 6 levels (decode call to image ready), median of %d: %.2f ms; "
           "the CPU reference decoding the same levels (no upload): %.2f ms\n",
           RUNS, first[RUNS / 2] * 1e3, ref_first[RUNS / 2] * 1e3);
    for (uint32_t f = 0; f < PVK_TEX_FORMAT_COUNT; f++)
        printf("BENCH name=decode_%s value=%.1f unit=Mtexel/s baseline=cpu_ref ratio=%.3f\n", names[f],
               texels / gpu[f] / 1e6, cpu[f] / gpu[f]);
    printf("BENCH name=first_use_etc1_256_mips value=%.3f unit=ms baseline=cpu_ref ratio=%.3f\n", first[RUNS / 2] * 1e3,
           first[RUNS / 2] / ref_first[RUNS / 2]);
    free(out);
    pvk_stats st;
    pvk_get_stats(ctx, &st);
    pvk_context_destroy(ctx);
    return st.bad_input ? 1 : 0;
}
