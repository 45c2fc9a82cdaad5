/* Frames per second of a citro3d-like frame: memory fills clear the colour
 * (RGBA8 240x400) and depth (D24S8) buffers, 50 draws of 300 vertices (100
 * triangles each, depth test and writes on) go through the register
 * interface, a display transfer converts the colour buffer to the BGR8 LCD
 * framebuffer, and pvk_vblank scans it out.  The baseline is the same frame
 * with PVK_DEBUG=roundtrip (every draw loads and stores the colour and depth
 * buffers through guest memory and waits for the draw before), measured in
 * the same run on a second context; both must show the same picture. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_draw.h"

#define FW 240u /* the top screen's buffers: 240 pixels a row, 400 rows */
#define FH 400u
#define COLOR 0x18000000u
#define DEPTH 0x18100000u
#define LCD 0x18200000u
#define VB 0x20100000u
#define DRAWS 50u
#define VERTS 300u

static void ext(pvk_context *ctx, uint32_t off, uint32_t v)
{
    pvk_mmio_write32(ctx, PVK_MMIO_BASE + off, v);
}

static pvk_context *setup(void)
{
    pvk_config cfg = {.log_level = PVK_LOG_WARN};
    pvk_context *ctx = NULL;
    pvk_result r = pvk_context_create(&cfg, &ctx);
    if (r) {
        fprintf(stderr, "frame bench: no context: %s\n", pvk_result_string(r));
        exit(1);
    }
    bench_passthrough(ctx, VB);
    /* RGBA8 colour, D24S8 depth, less-than test with writes */
    bench_reg(ctx, PVK_GPUREG_COLORBUFFER_FORMAT, 2);
    bench_reg(ctx, PVK_GPUREG_COLORBUFFER_LOC, COLOR >> 3);
    bench_reg(ctx, PVK_GPUREG_COLORBUFFER_READ, 0xF);
    bench_reg(ctx, PVK_GPUREG_COLORBUFFER_WRITE, 0xF);
    bench_reg(ctx, PVK_GPUREG_DEPTHBUFFER_FORMAT, 3);
    bench_reg(ctx, PVK_GPUREG_DEPTHBUFFER_LOC, DEPTH >> 3);
    bench_reg(ctx, PVK_GPUREG_DEPTHBUFFER_READ, 3);
    bench_reg(ctx, PVK_GPUREG_DEPTHBUFFER_WRITE, 3);
    bench_reg(ctx, PVK_GPUREG_FRAMEBUFFER_DIM, FW | ((FH - 1) << 12) | (1u << 24));
    bench_reg(ctx, PVK_GPUREG_VIEWPORT_WIDTH, bench_f24(FW / 2.0f));
    bench_reg(ctx, PVK_GPUREG_VIEWPORT_HEIGHT, bench_f24(FH / 2.0f));
    bench_reg(ctx, PVK_GPUREG_VIEWPORT_XY, 0);
    bench_reg(ctx, PVK_GPUREG_DEPTHMAP_ENABLE, 1);
    bench_reg(ctx, PVK_GPUREG_DEPTHMAP_SCALE, bench_f24(-1.0f));
    bench_reg(ctx, PVK_GPUREG_DEPTHMAP_OFFSET, bench_f24(0.0f));
    bench_reg(ctx, PVK_GPUREG_DEPTH_COLOR_MASK, 1u | (4u << 4) | (0xFu << 8) | (1u << 12));
    /* citro3d's output merger: blend mode, src alpha / one minus src alpha; TEV
     * stage 0 modulates the vertex colour with a constant, stage 1 adds the buffer */
    bench_reg(ctx, PVK_GPUREG_COLOR_OPERATION, 0x00E40100);
    bench_reg(ctx, PVK_GPUREG_BLEND_FUNC, 0x76760000);
    bench_reg(ctx, PVK_GPUREG_TEXENV0_SOURCE, 0x00E000E0);
    bench_reg(ctx, PVK_GPUREG_TEXENV0_COMBINER, 0x00010001);
    bench_reg(ctx, PVK_GPUREG_TEXENV0_COLOR, 0xC0FFE0D0);
    bench_reg(ctx, PVK_GPUREG_TEXENV1_SOURCE, 0x00DF00DF);
    bench_reg(ctx, PVK_GPUREG_TEXENV1_COMBINER, 0x00020002);
    for (uint32_t st = 2; st < 6; st++)
        bench_reg(ctx, st < 4 ? PVK_GPUREG_TEXENV0_SOURCE + 8 * st : PVK_GPUREG_TEXENV4_SOURCE + 8 * (st - 4), 0x000F000F);
    bench_reg(ctx, PVK_GPUREG_PRIMITIVE_CONFIG, 1);
    /* the LCD: BGR8 framebuffer A, 2D */
    ext(ctx, 0x468, LCD);
    ext(ctx, 0x470, 0x41);
    ext(ctx, 0x490, FW * 3);
    ext(ctx, 0x474, 1);
    /* 50 x 100 triangles, each draw at its own offset of one buffer */
    float *v = pvk_guest_ptr(ctx, VB, DRAWS * VERTS * 32);
    uint32_t seed = 12345;
    for (uint32_t i = 0; i < DRAWS * VERTS; i++) {
        float *p = v + i * 8;
        for (int k = 0; k < 2; k++) {
            seed = seed * 1664525u + 1013904223u;
            p[k] = (float)(seed >> 8) / 8388608.0f - 1.0f;
        }
        p[2] = -(float)((i / 3) % 97 + 1) / 100.0f;
        p[3] = 1.0f;
        uint32_t c = (i / 3) * 2654435761u;
        for (int k = 0; k < 4; k++)
            p[4 + k] = k == 3 ? 1.0f : (float)((c >> (8 * k)) & 0xFF) / 255.0f;
    }
    pvk_guest_written(ctx, VB, DRAWS * VERTS * 32);
    return ctx;
}

static void frame(pvk_context *ctx)
{
    /* clear colour and depth with the two fill units, as citro3d does */
    ext(ctx, 0x10, COLOR >> 3);
    ext(ctx, 0x14, (COLOR + FW * FH * 4) >> 3);
    ext(ctx, 0x18, 0x202020FF);
    ext(ctx, 0x1C, 0x201);
    ext(ctx, 0x20, DEPTH >> 3);
    ext(ctx, 0x24, (DEPTH + FW * FH * 4) >> 3);
    ext(ctx, 0x28, 0x00FFFFFF);
    ext(ctx, 0x2C, 0x201);
    for (uint32_t d = 0; d < DRAWS; d++) {
        bench_reg(ctx, PVK_GPUREG_ATTRIBBUFFER0_OFFSET, d * VERTS * 32);
        bench_reg(ctx, PVK_GPUREG_NUMVERTICES, VERTS);
        bench_reg(ctx, PVK_GPUREG_VERTEX_OFFSET, 0);
        bench_reg(ctx, PVK_GPUREG_DRAWARRAYS, 1);
    }
    bench_reg(ctx, PVK_GPUREG_FRAMEBUFFER_FLUSH, 1);
    /* tiled RGBA8 -> linear BGR8 */
    ext(ctx, 0xC00, COLOR >> 3);
    ext(ctx, 0xC04, LCD >> 3);
    ext(ctx, 0xC08, FW | FH << 16);
    ext(ctx, 0xC0C, FW | FH << 16);
    ext(ctx, 0xC10, 1u << 12);
    ext(ctx, 0xC14, 0);
    ext(ctx, 0xC18, 1);
    pvk_vblank(ctx);
}

typedef struct run {
    double fps;
    uint32_t frames;
    pvk_stats st;
    uint32_t *pixels;
} run;

static run measure(const char *debug, double seconds)
{
    setenv("PVK_DEBUG", debug, 1);
    pvk_context *ctx = setup();
    run r = {0};
    frame(ctx); /* warm-up: pipelines, surfaces, images */
    pvk_wait_idle(ctx);
    double t0 = bench_now(), t1;
    do {
        frame(ctx);
        r.frames++;
        if (r.frames % 8 == 0)
            pvk_poll(ctx);
        t1 = bench_now();
    } while (t1 - t0 < seconds || r.frames < 3);
    pvk_wait_idle(ctx);
    t1 = bench_now();
    r.fps = r.frames / (t1 - t0);
    pvk_get_stats(ctx, &r.st);
    uint32_t w, h;
    pvk_frame_size(ctx, PVK_SCREEN_TOP, &w, &h);
    r.pixels = calloc(400 * 240, 4); /* the largest top frame */
    if (r.pixels && w * h <= 400 * 240)
        pvk_frame_read(ctx, PVK_SCREEN_TOP, r.pixels, w * 4);
    pvk_context_destroy(ctx);
    return r;
}

int main(void)
{
    run cached = measure("", 3.0);
    run trip = measure("roundtrip", 3.0);
    int same = cached.pixels && trip.pixels && !memcmp(cached.pixels, trip.pixels, 400 * 240 * 4);
    double f = 1.0 + cached.frames; /* warm-up frame included in the counters */
    printf("frame: 2 fills, %u draws x %u vertices (depth test + write, D24S8), RENDERBUFFER_FLUSH, display "
           "transfer RGBA8->BGR8 %ux%u, vblank\n",
           DRAWS, VERTS, FW, FH);
    printf("%-30s %10s %8s %14s %14s %14s\n", "path", "frames/s", "frames", "loads/frame", "writebacks/frame",
           "MB moved/frame");
    printf("%-30s %10.2f %8u %14.2f %14.2f %14.2f\n", "surface cache", cached.fps, cached.frames,
           cached.st.surface_loads / f, cached.st.surface_writebacks / f, cached.st.surface_bytes / f / 1e6);
    printf("%-30s %10.2f %8u %14s %14s %14.2f\n", "PVK_DEBUG=roundtrip", trip.fps, trip.frames, "per draw",
           "per draw", 2.0 * DRAWS * FW * FH * 4 * 2 / 1e6);
    printf("same picture on both paths: %s\n", same ? "yes" : "NO");
    printf("BENCH name=frame value=%.2f unit=frames/s baseline=roundtrip ratio=%.2f\n", cached.fps,
           cached.fps / trip.fps);
    free(cached.pixels);
    free(trip.pixels);
    return same ? 0 : 1;
}
