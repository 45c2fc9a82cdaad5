/* What texture dumps cost (pvk_config.texture_dump_dir): N distinct 256x256
 * RGBA8 textures taken through the texture cache (pvk_texture_get: decode,
 * and with dumps the level's CityHash64 and the read-back copy recorded),
 * the caller's time per texture with and without dumps in the same run; the
 * time until the worker has written every PNG; and CityHash64's throughput
 * against XXH3 and memcpy on the same bytes (the hash is the only part of a
 * dump on the caller's path besides recording the copy). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "runtime/runtime.h"

#define SIDE 256u
#define N 64u
#define TEX 0x20000000u

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (uint32_t)((rng * 0x2545F4914F6CDD1Dull) >> 32);
}

/* Seconds per texture for the caller: N new textures through the cache, then idle. */
static double run(const char *dir, double *written_s)
{
    pvk_config cfg = {.log_level = PVK_LOG_WARN, .texture_dump_dir = dir};
    pvk_context *ctx = NULL;
    if (pvk_context_create(&cfg, &ctx)) {
        fprintf(stderr, "dump bench: no context\n");
        exit(1);
    }
    const uint32_t bytes = SIDE * SIDE * 4;
    for (uint32_t i = 0; i < N; i++) {
        uint32_t *p = pvk_guest_ptr(ctx, TEX + i * bytes, bytes);
        for (uint32_t k = 0; k < bytes / 4; k++)
            p[k] = rnd();
    }
    pvk_guest_written(ctx, TEX, N * bytes);
    double t0 = now();
    for (uint32_t i = 0; i < N; i++) {
        pvk_texture_desc d = {.width = SIDE, .height = SIDE, .format = PVK_TEX_RGBA8, .levels = 1, .faces = 1};
        d.addr[0] = TEX + i * bytes;
        const pvk_texture *t;
        if (pvk_texture_get(&ctx->vram, &d, &t)) {
            fprintf(stderr, "dump bench: texture %u refused\n", i);
            exit(1);
        }
    }
    pvk_wait_idle(ctx);
    double per = (now() - t0) / N;
    pvk_stats st;
    for (int i = 0; dir && i < 6000; i++) { /* the worker's PNGs */
        pvk_get_stats(ctx, &st);
        if (st.textures_dumped + st.texture_dump_failures >= N)
            break;
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    *written_s = now() - t0;
    pvk_context_destroy(ctx);
    return per;
}

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[600];
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

int main(void)
{
    /* hashes on 1 MiB, best of 9 */
    size_t len = 1u << 20;
    uint8_t *buf = malloc(len), *copy = malloc(len);
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)rnd();
    double best[3] = {1e9, 1e9, 1e9};
    volatile uint64_t sink = 0;
    for (int r = 0; r < 9; r++) {
        double t = now();
        sink += pvk_cityhash64(buf, len);
        double a = now();
        sink += XXH3_64bits(buf, len);
        double b = now();
        memcpy(copy, buf, len);
        sink += copy[len / 2];
        double c = now();
        best[0] = a - t < best[0] ? a - t : best[0];
        best[1] = b - a < best[1] ? b - a : best[1];
        best[2] = c - b < best[2] ? c - b : best[2];
    }
    printf("BENCH dump hash: CityHash64 %.2f GB/s, XXH3 %.2f GB/s (%.2fx), memcpy %.2f GB/s (%.2fx)\n",
           len / best[0] / 1e9, len / best[1] / 1e9, best[1] / best[0], len / best[2] / 1e9, best[2] / best[0]);
    char dir[] = "/tmp/picavk-dump-bench-XXXXXX";
    if (!mkdtemp(dir)) {
        fprintf(stderr, "dump bench: no temporary folder\n");
        return 1;
    }
    double w0, w1;
    double off = run(NULL, &w0), on = run(dir, &w1);
    printf("BENCH dump: %u new %ux%u RGBA8 textures: %.0f us each for the caller without dumps, %.0f us with "
           "(%.2fx); every PNG written %.0f ms after the first texture (%.1f ms a texture)\n",
           N, SIDE, SIDE, off * 1e6, on * 1e6, on / off, w1 * 1e3, w1 * 1e3 / N);
    remove_dir(dir);
    free(buf);
    free(copy);
    return (int)(sink & 0);
}
