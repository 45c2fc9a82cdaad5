/* Memory under a storm of distinct states (issue 38): what a long or
 * hostile run makes picavk hold.
 *
 * Frames as citro3d builds them (a memory fill, one command list, a display
 * transfer, VBlank), 32 draws each, where nearly every draw brings something
 * new: a TEV configuration (six stages of random sources, operands and
 * combiners: a new fragment shader), a blend, depth and colour-mask state
 * (a new pipeline), every 4th draw a new texture (random format of the 14,
 * 8-256 texels a side, new bytes at a new address), every 8th a new vertex
 * program (another constant and output swizzle), and every 20,000 calls
 * another resolution scale (1, 2, 3, 4).  A call is a draw or a library call
 * (fill, written memory, list, transfer, VBlank).
 *
 * Every 10,000 calls it prints the process's resident size and what picavk
 * says it holds (pvk_stats.held_*), and checks a probe: a draw of a known
 * state whose colour must reach guest memory.  The last line compares the
 * end's resident size with the size when the budget first filled.
 *
 * `--cycles N`: N contexts one after another, each created, given CALLS
 * calls of the storm and destroyed; the resident size after each: what a
 * context leaves behind (BENCH line; exit 1 past 50 MB over the first).
 *
 *   bench/memory [CALLS, default 150000] [--budget MB] [--every N] [--quiet] [--cycles N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_draw.h"

#define FW 240u
#define FH 400u
#define COLOR 0x18000000u
#define DEPTH 0x18100000u
#define LCD 0x18200000u
#define VB 0x20100000u
#define LIST 0x20200000u
#define TEX 0x20400000u       /* textures rotate through 32 MiB from here */
#define TEX_SPAN (32u << 20)
#define DRAWS 32u /* a frame's draws */
#define NEW 8u     /* new states a frame */
#define VERTS 6u

static uint64_t rng = 0x243F6A8885A308D3ull;
static uint32_t rnd(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (uint32_t)((rng * 0x2545F4914F6CDD1Dull) >> 32);
}

static double rss_mb(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, res = 0;
    if (f) {
        if (fscanf(f, "%lu %lu", &size, &res) != 2)
            res = 0;
        fclose(f);
    }
    return (double)res * (double)sysconf(_SC_PAGESIZE) / (1024.0 * 1024.0);
}

/* Vertex program k: MOV o0 = v0, MUL o1 = c[4 + k % 88] * v1, MOV o2 = v1 with
 * source swizzle k / 88 (a new program for every k), END. */
static void bind_program(bench_list *l, uint32_t k)
{
    uint32_t code[4] = {0x13u << 26 | 0u << 21 | 0u << 12 | 0u << 7,
                        0x08u << 26 | 1u << 21 | (0x20u + 4 + k % 88) << 12 | 1u << 7 | 0,
                        0x13u << 26 | 2u << 21 | 1u << 12 | 1u << 7 | 1, 0x22u << 26};
    uint32_t swz = (k / 88) % 256; /* o2's source swizzle: descriptor 1 */
    uint32_t desc[2] = {0xFu | 0x1Bu << 5 | 0x1Bu << 14 | 0x1Bu << 23,
                        0xFu | swz << 5 | 0x1Bu << 14 | 0x1Bu << 23};
    bench_list_wm(l, PVK_GPUREG_GEOSTAGE_CONFIG, 0x3, 0);
    bench_list_wm(l, PVK_GPUREG_GEOSTAGE_CONFIG2, 0x3, 0);
    bench_list_w(l, PVK_GPUREG_VSH_CODETRANSFER_CONFIG, 0);
    bench_list_put(l, PVK_GPUREG_VSH_CODETRANSFER_DATA, 0xF, 0, 4, code);
    bench_list_w(l, PVK_GPUREG_VSH_CODETRANSFER_END, 1);
    bench_list_w(l, PVK_GPUREG_VSH_OPDESCS_CONFIG, 0);
    bench_list_put(l, PVK_GPUREG_VSH_OPDESCS_DATA, 0xF, 0, 2, desc);
    bench_list_w(l, PVK_GPUREG_VSH_ENTRYPOINT, 0x7FFF0000u);
    bench_list_w(l, PVK_GPUREG_VSH_OUTMAP_MASK, 0x7);
    bench_list_w(l, PVK_GPUREG_VSH_OUTMAP_TOTAL1, 2);
    bench_list_w(l, PVK_GPUREG_VSH_OUTMAP_TOTAL2, 2);
    static const uint32_t outmap[8] = {3, 0x03020100, 0x0B0A0908, 0x1F1F0D0C, 0x1F1F1F1F,
                                       0x1F1F1F1F, 0x1F1F1F1F, 0x1F1F1F1F};
    bench_list_wm(l, PVK_GPUREG_PRIMITIVE_CONFIG, 0x1, 2);
    bench_list_seq(l, PVK_GPUREG_SH_OUTMAP_TOTAL, 8, outmap);
    bench_list_w(l, PVK_GPUREG_SH_OUTATTR_MODE, 0);
    bench_list_w(l, PVK_GPUREG_SH_OUTATTR_CLOCK, 0x00000103);
    bench_list_w(l, PVK_GPUREG_VSH_FLOATUNIFORM_CONFIG, 0x80000000u | (4 + k % 88));
    uint32_t tint[4];
    const float t[4] = {1.0f, 0.9f, 0.8f, 1.0f}; /* w, z, y, x */
    memcpy(tint, t, sizeof t);
    bench_list_put(l, PVK_GPUREG_VSH_FLOATUNIFORM_DATA, 0xF, 0, 4, tint);
}

/* The attribute setup (two float4 attributes: position, colour/texture coordinate). */
static void bind_attributes(bench_list *l)
{
    uint32_t p[3] = {0xFF, 1u << 28};
    bench_list_seq(l, PVK_GPUREG_ATTRIBBUFFERS_FORMAT_LOW, 2, p);
    bench_list_wm(l, PVK_GPUREG_VSH_INPUTBUFFER_CONFIG, 0xB, 0xA0000000u | 1);
    bench_list_w(l, PVK_GPUREG_VSH_NUM_ATTR, 1);
    p[0] = 0x10, p[1] = 0;
    bench_list_seq(l, PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_LOW, 2, p);
    bench_list_w(l, PVK_GPUREG_ATTRIBBUFFERS_LOC, VB >> 3);
    p[0] = 0, p[1] = 0x10, p[2] = 32u << 16 | 2u << 28;
    bench_list_seq(l, PVK_GPUREG_ATTRIBBUFFER0_OFFSET, 3, p);
}

static const uint8_t bpp[14] = {32, 24, 16, 16, 16, 16, 16, 8, 8, 8, 4, 4, 4, 8};

/* Texture t on unit 0: random format and size, random bytes at an address of
 * its own (written when `write`: the first frame that draws it). */
static uint32_t tex_next;
static uint32_t texture(pvk_context *ctx, bench_list *l, uint32_t t, int write)
{
    uint64_t keep = rng;
    rng = 0x13198A2E03707344ull ^ (uint64_t)t * 0x9E3779B97F4A7C15ull;
    rnd();
    uint32_t fmt = rnd() % 14, w = 8u << rnd() % 6, h = 8u << rnd() % 6;
    uint32_t bytes = w * h * bpp[fmt] / 8, param = (rnd() % 2) << 1 | (rnd() % 2) << 2 | (rnd() % 4) << 8 |
                                                    (rnd() % 4) << 12;
    static uint32_t addr_of[4096];
    uint32_t calls = 0;
    if (!addr_of[t % 4096] || write) {
        if (tex_next + bytes > TEX_SPAN)
            tex_next = 0;
        addr_of[t % 4096] = TEX + tex_next;
        tex_next += (bytes + 127) & ~127u;
        uint32_t *p = pvk_guest_ptr(ctx, addr_of[t % 4096], bytes);
        for (uint32_t i = 0; p && i < bytes / 4; i++)
            p[i] = rnd();
        pvk_guest_written(ctx, addr_of[t % 4096], bytes);
        calls = 1;
    }
    bench_list_w(l, PVK_GPUREG_TEXUNIT0_DIM, h | w << 16);
    bench_list_w(l, PVK_GPUREG_TEXUNIT0_PARAM, param);
    bench_list_w(l, PVK_GPUREG_TEXUNIT0_ADDR1, addr_of[t % 4096] >> 3);
    bench_list_w(l, PVK_GPUREG_TEXUNIT0_TYPE, fmt);
    bench_list_wm(l, PVK_GPUREG_TEXUNIT_CONFIG, 0xB, 0x00001001u);
    rng = keep;
    return calls;
}

/* A new fragment state: six TEV stages of random sources (primary colour,
 * texture 0, constant, previous), operands and combiners; blend, depth and
 * colour mask at random. */
static void new_fragment(bench_list *l)
{
    static const uint8_t src[4] = {0, 3, 14, 15};
    for (uint32_t s = 0; s < 6; s++) {
        uint32_t id = (s < 4 ? PVK_GPUREG_TEXENV0_SOURCE + 8 * s : PVK_GPUREG_TEXENV0_SOURCE + 8 * s + 16);
        uint32_t w[5];
        w[0] = src[rnd() % 4] | src[rnd() % 4] << 4 | src[rnd() % 4] << 8 | src[rnd() % 4] << 16 |
               src[rnd() % 4] << 20 | src[rnd() % 4] << 24;
        w[1] = (rnd() % 4) | (rnd() % 4) << 4 | (rnd() % 4) << 8 | (rnd() % 4) << 12;
        w[2] = (rnd() % 10) | (rnd() % 10) << 16;
        w[3] = rnd() | 0xFF000000u;
        w[4] = rnd() % 3 | (rnd() % 3) << 16;
        bench_list_seq(l, id, 5, w);
    }
    /* four blend equations, eight depth tests: a few dozen pipeline kinds, each with its ubershader */
    static const uint32_t blend[4] = {0x01010000u, 0x76760000u, 0x01010101u, 0x67670000u};
    bench_list_w(l, PVK_GPUREG_BLEND_FUNC, blend[rnd() % 4]);
    bench_list_w(l, PVK_GPUREG_COLOR_OPERATION, 0x00E40100u);
    bench_list_w(l, PVK_GPUREG_DEPTH_COLOR_MASK, 1u | (rnd() % 8) << 4 | 0xFu << 8 | 1u << 12);
}

/* The probe's state: pass-through program 0 colour, TEV stage 0 the constant, the rest previous,
 * no blending, depth test off: a known colour over the whole target. */
static void probe_state(bench_list *l, uint32_t colour)
{
    static const uint32_t pass[5] = {0x000F000F, 0, 0, 0xFFFFFFFFu, 0};
    uint32_t st0[5] = {0x000E000E, 0, 0, colour, 0};
    bench_list_seq(l, PVK_GPUREG_TEXENV0_SOURCE, 5, st0);
    for (uint32_t s = 1; s < 6; s++)
        bench_list_seq(l, s < 4 ? PVK_GPUREG_TEXENV0_SOURCE + 8 * s : PVK_GPUREG_TEXENV0_SOURCE + 8 * s + 16, 5,
                       pass);
    bench_list_w(l, PVK_GPUREG_BLEND_FUNC, 0x01010000u); /* add, one x src + zero x dst */
    bench_list_w(l, PVK_GPUREG_COLOR_OPERATION, 0x00E40100u);
    bench_list_w(l, PVK_GPUREG_DEPTH_COLOR_MASK, 0xF00u); /* no depth test, RGBA writes */
    bench_list_wm(l, PVK_GPUREG_TEXUNIT_CONFIG, 0xB, 0x00001000u);
}

static void frame_start(bench_list *l)
{
    uint32_t p[4];
    l->n = 0;
    bench_list_w(l, PVK_GPUREG_FRAMEBUFFER_INVALIDATE, 1);
    p[0] = DEPTH >> 3, p[1] = COLOR >> 3, p[2] = 0x01000000u | (FH - 1) << 12 | FW;
    bench_list_seq(l, PVK_GPUREG_DEPTHBUFFER_LOC, 3, p);
    bench_list_w(l, PVK_GPUREG_RENDERBUF_DIM, p[2]);
    bench_list_w(l, PVK_GPUREG_DEPTHBUFFER_FORMAT, 3);
    bench_list_w(l, PVK_GPUREG_COLORBUFFER_FORMAT, 2);
    p[0] = p[1] = 0xF, p[2] = p[3] = 3;
    bench_list_seq(l, PVK_GPUREG_COLORBUFFER_READ, 4, p);
    bench_list_w(l, PVK_GPUREG_VIEWPORT_WIDTH, bench_f24(FW / 2.0f));
    bench_list_w(l, PVK_GPUREG_VIEWPORT_HEIGHT, bench_f24(FH / 2.0f));
    bench_list_w(l, PVK_GPUREG_VIEWPORT_XY, 0);
    bench_list_w(l, PVK_GPUREG_SCISSORTEST_MODE, 0);
    bench_list_w(l, PVK_GPUREG_DEPTHMAP_ENABLE, 1);
    bench_list_w(l, PVK_GPUREG_FACECULLING_CONFIG, 0);
    uint32_t effect[2] = {bench_f24(-1.0f), 0};
    bench_list_seq(l, PVK_GPUREG_DEPTHMAP_SCALE, 2, effect);
    bind_attributes(l);
}

/* Register writes in list `l`: a command's parameters. */
static uint64_t list_writes(const bench_list *l)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i + 1 < l->n;) {
        uint32_t count = ((l->w[i + 1] >> 20) & 0xFF) + 1;
        n += count;
        i += 2 + (count - 1) + ((count - 1) & 1);
    }
    return n;
}

/* Runs list `l` as a frame: fill, list, transfer, VBlank; returns the
 * calls: the list's register writes and the library calls. */
static uint64_t play(pvk_context *ctx, bench_list *l)
{
    bench_list_frame_end(l);
    void *g = pvk_guest_ptr(ctx, LIST, l->n * 4);
    if (!g) {
        fprintf(stderr, "memory bench: the list does not fit\n");
        exit(1);
    }
    memcpy(g, l->w, l->n * 4);
    pvk_guest_written(ctx, LIST, l->n * 4);
    bench_fill2(ctx, COLOR, FW * FH * 4, 0x202020FF, DEPTH, FW * FH * 4, 0x00FFFFFF);
    pvk_result r = pvk_command_list_run(ctx, LIST, l->n * 4);
    bench_display_transfer(ctx, COLOR, LCD, FW, FH);
    if (!r)
        r = pvk_vblank(ctx);
    if (r) {
        fprintf(stderr, "memory bench: %s\n", pvk_result_string(r));
        exit(1);
    }
    return list_writes(l) + 4 + 8 + 7; /* written, fill and transfer registers, list, VBlank */
}

/* One context through `calls_max` calls of the storm; 0 when every probe held and no validation message came. */
static int storm(uint64_t calls_max, uint32_t budget, uint64_t print_every, int quiet, int summary)
{
    pvk_config cfg = {.log_level = PVK_LOG_WARN, .memory_budget_mb = budget};
    pvk_context *ctx = NULL;
    if (pvk_context_create(&cfg, &ctx)) {
        fprintf(stderr, "memory bench: no context\n");
        return 1;
    }
    bench_lcd_top(ctx, LCD, FW);
    /* a quad over the whole target: position, then colour = texture coordinate */
    float *v = pvk_guest_ptr(ctx, VB, VERTS * 32);
    static const float corner[6][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 0}, {1, 1}, {0, 1}};
    for (uint32_t i = 0; i < VERTS; i++) {
        float x = corner[i][0], y = corner[i][1];
        float vert[8] = {2 * x - 1, 2 * y - 1, -0.5f, 1, x, y, 0.5f, 1};
        memcpy(v + 8 * i, vert, sizeof vert);
    }
    pvk_guest_written(ctx, VB, VERTS * 32);
    printf("memory bench: %llu calls, budget %s%u MB, device %s\n", (unsigned long long)calls_max,
           budget ? "" : "default ", budget, pvk_device_name(ctx));
    printf("%8s %8s %9s %9s %9s %10s %9s %9s\n", "calls", "RSS MB", "held MB", "pipelines", "evicted", "textures",
           "surfaces", "s");
    bench_list l = {0};
    uint64_t calls = 0, next_print = 0;
    uint32_t frame = 0, scale_step = 0, probes_bad = 0, probes = 0;
    double t0 = bench_now(), rss_full = 0;
    while (calls < calls_max) {
        frame_start(&l);
        /* draw d of frame f draws state f * NEW + d: each state lives DRAWS / NEW frames, so that
         * its own pipeline is built and drawn with, as a game's states are */
        for (uint32_t d = 0; d < DRAWS; d++) {
            uint32_t id = frame * NEW + d;
            rng = 0x243F6A8885A308D3ull ^ (uint64_t)id * 0x9E3779B97F4A7C15ull; /* the state's own numbers */
            rnd();
            if (d == 0 || id % 8 == 0)
                bind_program(&l, id / 8);
            if (d == 0 || id % 4 == 0)
                calls += texture(ctx, &l, id / 4, d >= DRAWS - NEW && id % 4 == 0);
            new_fragment(&l);
            bench_list_draw_arrays(&l, 0, 0, VERTS);
        }
        frame++;
        calls += play(ctx, &l);
        if (calls >= next_print) {
            /* the probe: a known colour over the target, read from guest memory */
            uint32_t colour = 0xFF000000u | (rnd() & 0xFFFFFF);
            frame_start(&l);
            bind_program(&l, 0);
            probe_state(&l, colour);
            bench_list_draw_arrays(&l, 0, 0, VERTS);
            calls += play(ctx, &l) + 1;
            pvk_guest_flush(ctx, COLOR, FW * FH * 4);
            const uint8_t *px = pvk_guest_ptr(ctx, COLOR + (FW * FH / 2) * 4, 4);
            /* RGBA8 in memory: A, B, G, R; TEXENV colour: R bits 0-7 */
            uint32_t got = px ? (uint32_t)px[3] | (uint32_t)px[2] << 8 | (uint32_t)px[1] << 16 | 0xFF000000u : 0;
            probes++;
            if (got != colour) {
                probes_bad++;
                fprintf(stderr, "memory bench: probe at %llu calls: %08X, expected %08X\n",
                        (unsigned long long)calls, got, colour);
            }
            pvk_stats st;
            pvk_get_stats(ctx, &st);
            double rss = rss_mb();
            if (!rss_full && st.budget_evictions)
                rss_full = rss;
            if (!quiet || calls >= calls_max)
                printf("%8llu %8.0f %9.1f %9llu %9llu %10llu %9llu %9.0f\n", (unsigned long long)calls, rss,
                       st.held_bytes / (1024.0 * 1024.0), (unsigned long long)st.held_pipelines,
                       (unsigned long long)st.budget_evictions, (unsigned long long)st.held_textures,
                       (unsigned long long)st.held_surfaces, bench_now() - t0);
            fflush(stdout);
            next_print += print_every;
        }
        if (calls / 20000 != scale_step) { /* another resolution scale */
            scale_step = (uint32_t)(calls / 20000);
            pvk_set_scale(ctx, 1 + scale_step % 4);
            calls++;
        }
    }
    double rss_end = rss_mb();
    if (summary)
        printf("BENCH memory: RSS %.0f MB at the end of %llu calls; %.0f MB when the budget first filled (%.2fx); "
           "probes %u/%u right\n",
           rss_end, (unsigned long long)calls, rss_full, rss_full ? rss_end / rss_full : 0.0, probes - probes_bad,
           probes);
    pvk_stats st;
    pvk_get_stats(ctx, &st);
    free(l.w);
    pvk_context_destroy(ctx);
    return probes_bad || st.validation_errors ? 1 : 0;
}

int main(int argc, char **argv)
{
    uint64_t calls_max = 150000, print_every = 10000;
    uint32_t budget = 0, cycles = 0;
    int quiet = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--budget") && i + 1 < argc)
            budget = (uint32_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--every") && i + 1 < argc)
            print_every = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--cycles") && i + 1 < argc)
            cycles = (uint32_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quiet"))
            quiet = 1;
        else
            calls_max = strtoull(argv[i], NULL, 10);
    }
    if (!cycles)
        return storm(calls_max, budget, print_every, quiet, 1);
#ifdef __SANITIZE_ADDRESS__
    printf("memory bench: --cycles measures the resident size, which AddressSanitizer's allocator decides: skipped\n");
    return 77;
#endif
    double first = 0, worst = 0;
    int bad = 0;
    for (uint32_t c = 0; c < cycles; c++) {
        bad |= storm(calls_max, budget, calls_max, 1, 0);
        double rss = rss_mb();
        if (!c)
            first = rss;
        worst = rss - first > worst ? rss - first : worst;
        printf("cycle %u: RSS %.0f MB after the context's end\n", c + 1, rss);
    }
    printf("BENCH memory cycles: %u contexts of %llu calls each; RSS after the first %.0f MB, at most %.0f MB more "
           "after the later ones\n", cycles, (unsigned long long)calls_max, first, worst);
    return bad || worst > 50 ? 1 : 0;
}
