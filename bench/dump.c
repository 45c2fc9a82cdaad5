/* What texture dumps and packs cost (pvk_config.texture_dump_dir,
 * texture_pack_dir): N distinct 256x256 RGBA8 textures taken through the
 * texture cache (pvk_texture_get: decode, and with dumps the level's
 * CityHash64 and the read-back copy recorded), the caller's time per texture
 * with and without dumps in the same run; the time until the worker has
 * written every PNG; CityHash64's throughput against XXH3 and memcpy on the
 * same bytes (the hash is the only part of a dump on the caller's path
 * besides recording the copy).  Then the dump made a pack of 4x
 * replacements (1024x1024): the caller's time per texture when each is
 * asked for (drawn as the original meanwhile), the worker's time to decode
 * them all, and the caller's time per texture when the ready replacement is
 * copied into its image, against the same textures without a pack.  Last the
 * bicubic, MMPX, Anime4K and ScaleForce texture filters at 4x against the same textures
 * unfiltered at 4x. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <png.h>
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

static pvk_context *context(const char *dump, const char *pack, uint32_t scale, const char *filter)
{
    pvk_config cfg = {.log_level = PVK_LOG_WARN, .texture_dump_dir = dump, .texture_pack_dir = pack,
                      .memory_budget_mb = 2048, /* the pack's share holds every replacement */
                      .scale = scale, .texture_filter = filter};
    pvk_context *ctx = NULL;
    if (pvk_context_create(&cfg, &ctx)) {
        fprintf(stderr, "dump bench: no context\n");
        exit(1);
    }
    rng = 0x9E3779B97F4A7C15ull; /* the same textures every run */
    const uint32_t bytes = SIDE * SIDE * 4;
    for (uint32_t i = 0; i < N; i++) {
        uint32_t *p = pvk_guest_ptr(ctx, TEX + i * bytes, bytes);
        for (uint32_t k = 0; k < bytes / 4; k++)
            p[k] = rnd();
    }
    pvk_guest_written(ctx, TEX, N * bytes);
    return ctx;
}

/* Seconds per texture for the caller: the N textures through the cache, then idle. */
static double all_textures(pvk_context *ctx)
{
    const uint32_t bytes = SIDE * SIDE * 4;
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
    return (now() - t0) / N;
}

/* Seconds per texture for the caller: N new textures through the cache, then idle. */
static double run(const char *dir, double *written_s)
{
    pvk_context *ctx = context(dir, NULL, 1, NULL);
    double t0 = now();
    double per = all_textures(ctx);
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

/* The dump as a pack: each PNG 4x as large (each texel 4x4), the same names and pack.json. */
static void make_pack(const char *dump, const char *pack)
{
    DIR *d = opendir(dump);
    struct dirent *e;
    char in[600], out[600];
    while (d && (e = readdir(d))) {
        snprintf(in, sizeof in, "%s/%s", dump, e->d_name);
        snprintf(out, sizeof out, "%s/%s", pack, e->d_name);
        if (!strcmp(e->d_name, "pack.json")) {
            FILE *f = fopen(in, "rb"), *g = fopen(out, "wb");
            char buf[4096];
            size_t n;
            while (f && g && (n = fread(buf, 1, sizeof buf, f)))
                fwrite(buf, 1, n, g);
            if (f)
                fclose(f);
            if (g)
                fclose(g);
            continue;
        }
        if (strncmp(e->d_name, "tex1_", 5))
            continue;
        png_image img;
        memset(&img, 0, sizeof img);
        img.version = PNG_IMAGE_VERSION;
        if (!png_image_begin_read_from_file(&img, in))
            continue;
        img.format = PNG_FORMAT_RGBA;
        uint32_t w = img.width, h = img.height;
        uint32_t *px = malloc(PNG_IMAGE_SIZE(img)), *big = malloc((size_t)w * h * 16 * 4);
        if (px && big && png_image_finish_read(&img, NULL, px, 0, NULL)) {
            for (uint32_t y = 0; y < h * 4; y++)
                for (uint32_t x = 0; x < w * 4; x++)
                    big[(size_t)y * w * 4 + x] = px[(size_t)(y / 4) * w + x / 4];
            png_image o;
            memset(&o, 0, sizeof o);
            o.version = PNG_IMAGE_VERSION;
            o.width = w * 4, o.height = h * 4, o.format = PNG_FORMAT_RGBA;
            png_image_write_to_file(&o, out, 0, big, 0, NULL);
        } else
            png_image_free(&img);
        free(px);
        free(big);
    }
    if (d)
        closedir(d);
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
    char pack[] = "/tmp/picavk-pack-bench-XXXXXX";
    if (!mkdtemp(pack)) {
        fprintf(stderr, "dump bench: no temporary folder\n");
        return 1;
    }
    make_pack(dir, pack);
    pvk_context *ctx = context(NULL, NULL, 1, NULL);
    double plain = all_textures(ctx);
    pvk_context_destroy(ctx);
    ctx = context(NULL, pack, 1, NULL);
    double asked = all_textures(ctx), t0 = now();
    while (!pvk_pack_idle(&ctx->vram))
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    double decoded = now() - t0;
    double uploaded = all_textures(ctx);
    pvk_stats st;
    pvk_get_stats(ctx, &st);
    pvk_context_destroy(ctx);
    printf("BENCH pack: %u textures with %ux%u replacements: %.0f us each for the caller when asked for "
           "(%.2fx of %.0f us without a pack), %.1f ms a replacement on the worker (all decoded %.0f ms later), "
           "%.0f us each when copied into the image (%.2fx); %llu replaced, %llu pending draws, %.1f MiB held\n",
           N, SIDE * 4, SIDE * 4, asked * 1e6, asked / plain, plain * 1e6, decoded * 1e3 / N, decoded * 1e3,
           uploaded * 1e6, uploaded / plain, (unsigned long long)st.textures_replaced,
           (unsigned long long)st.replacement_pending_draws, st.held_pack_bytes / 1048576.0);
    /* the filters at 4x: the same textures, 16 output texels each */
    ctx = context(NULL, NULL, 4, "none");
    double unfiltered = all_textures(ctx);
    pvk_context_destroy(ctx);
    static const char *const filters[] = {"bicubic", "mmpx", "anime4k", "scaleforce", "xbrz"};
    for (size_t i = 0; i < sizeof filters / sizeof filters[0]; i++) {
        ctx = context(NULL, NULL, 4, filters[i]);
        double filtered = all_textures(ctx);
        pvk_context_destroy(ctx);
        double mtex = (double)SIDE * SIDE * 16 / 1e6;
        printf("BENCH filter: %s at 4x, %u textures of %ux%u: %.0f us each for the caller (%.2fx of %.0f us "
               "unfiltered at 4x): %.1f ms per output Mtexel, %.0f Mtexel/s\n",
               filters[i], N, SIDE, SIDE, filtered * 1e6, filtered / unfiltered, unfiltered * 1e6,
               (filtered - unfiltered) * 1e3 / mtex, mtex / (filtered - unfiltered));
    }
    remove_dir(pack);
    remove_dir(dir);
    free(buf);
    free(copy);
    return (int)(sink & 0);
}
