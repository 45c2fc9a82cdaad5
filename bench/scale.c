/* Frame time at resolution scale 1, 2 and 4 of a fill-bound frame: a memory
 * fill clears the 240x400 RGBA8 colour buffer, 24 draws of two large
 * overlapping quads each (alpha blended, src alpha / one minus src alpha,
 * every quad covering 60-95 % of the buffer) go through the register
 * interface, a display transfer converts the buffer to the BGR8 LCD
 * framebuffer and pvk_vblank presents it (at scale N the N x frame).  Each
 * scale has its own context in the same process; they take turns (seven
 * slices each, the median counts), so load from elsewhere hits all three.
 * The ratio is the time at N x over the time at 1x, to compare with N^2
 * (the pixels): the aim is frame_x4 <= 16 on lavapipe.  The same
 * frame without the transfer and the VBlank (draws_xN) shows how much of it
 * is the draws themselves.  Every frame ends as citro3d's do, with
 * FRAMEBUFFER_FLUSH (the N x target resolved and written back at 1x) before
 * the transfer; the same frame without the flush (noflush_xN) measures what
 * that write-back costs, and the write-back bytes per frame are counted. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_draw.h"

#define FW 240u
#define FH 400u
#define COLOR 0x18000000u
#define LCD 0x18200000u
#define VB 0x20100000u
#define DRAWS 24u
#define VERTS 12u /* two quads a draw */

static pvk_context *setup(uint32_t scale)
{
    pvk_context *ctx = bench_context("scale", scale);
    bench_passthrough(ctx, VB);
    bench_reg(ctx, PVK_GPUREG_COLORBUFFER_FORMAT, 2);
    bench_reg(ctx, PVK_GPUREG_COLORBUFFER_LOC, COLOR >> 3);
    bench_reg(ctx, PVK_GPUREG_COLORBUFFER_READ, 0xF);
    bench_reg(ctx, PVK_GPUREG_COLORBUFFER_WRITE, 0xF);
    bench_reg(ctx, PVK_GPUREG_DEPTHBUFFER_READ, 0);
    bench_reg(ctx, PVK_GPUREG_DEPTHBUFFER_WRITE, 0);
    bench_reg(ctx, PVK_GPUREG_FRAMEBUFFER_DIM, FW | ((FH - 1) << 12) | (1u << 24));
    bench_reg(ctx, PVK_GPUREG_VIEWPORT_WIDTH, bench_f24(FW / 2.0f));
    bench_reg(ctx, PVK_GPUREG_VIEWPORT_HEIGHT, bench_f24(FH / 2.0f));
    bench_reg(ctx, PVK_GPUREG_VIEWPORT_XY, 0);
    bench_reg(ctx, PVK_GPUREG_DEPTH_COLOR_MASK, 0xFu << 8); /* no depth, RGBA writes */
    bench_reg(ctx, PVK_GPUREG_COLOR_OPERATION, 0x00E40100);
    bench_reg(ctx, PVK_GPUREG_BLEND_FUNC, 0x76760000);
    bench_reg(ctx, PVK_GPUREG_PRIMITIVE_CONFIG, 1);
    bench_ext(ctx, 0x468, LCD);
    bench_ext(ctx, 0x470, 0x41);
    bench_ext(ctx, 0x490, FW * 3);
    bench_ext(ctx, 0x474, 1);
    float *v = pvk_guest_ptr(ctx, VB, DRAWS * VERTS * 32);
    uint32_t seed = 777;
    for (uint32_t q = 0; q < DRAWS * VERTS / 6; q++) {
        float c[4], r[4];
        for (int k = 0; k < 4; k++) {
            seed = seed * 1664525u + 1013904223u;
            c[k] = (float)(seed >> 8) / 16777216.0f;
            seed = seed * 1664525u + 1013904223u;
            r[k] = 0.6f + 0.35f * (float)(seed >> 8) / 16777216.0f; /* extents: 60-95 % */
        }
        float x0 = -r[0], x1 = r[1], y0 = -r[2], y1 = r[3];
        const float corner[6][2] = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y0}, {x1, y1}, {x0, y1}};
        for (int k = 0; k < 6; k++) {
            float *p = v + (q * 6 + k) * 8;
            p[0] = corner[k][0], p[1] = corner[k][1], p[2] = -0.5f, p[3] = 1.0f;
            p[4] = c[0], p[5] = c[1], p[6] = c[2], p[7] = 0.25f + 0.5f * c[3];
        }
    }
    pvk_guest_written(ctx, VB, DRAWS * VERTS * 32);
    return ctx;
}

/* `present` false: the fill and the draws only (the surface stays on the
 * GPU; the next frame's fill clears it), to tell the draws' share.
 * `flush` false: no FRAMEBUFFER_FLUSH (nothing written back before the
 * transfer, which reads the surface): what a lazy write-back would cost. */
static bool flush = true;
static void frame_part(pvk_context *ctx, bool present)
{
    bench_ext(ctx, 0x10, COLOR >> 3);
    bench_ext(ctx, 0x14, (COLOR + FW * FH * 4) >> 3);
    bench_ext(ctx, 0x18, 0x202020FF);
    bench_ext(ctx, 0x1C, 0x201);
    for (uint32_t d = 0; d < DRAWS; d++)
        bench_draw_arrays(ctx, d * VERTS * 32, VERTS);
    if (flush)
        bench_reg(ctx, PVK_GPUREG_FRAMEBUFFER_FLUSH, 1);
    if (!present)
        return;
    bench_display_transfer(ctx, COLOR, LCD, FW, FH);
    pvk_vblank(ctx);
}

static void frame(pvk_context *ctx)
{
    frame_part(ctx, true);
}

/* Frames for about `seconds` on `ctx` (warm), waited for: ms a frame. */
static double slice(pvk_context *ctx, bool present, double seconds, uint32_t *frames)
{
    uint32_t n = 0;
    double t0 = bench_now(), t1;
    do {
        frame_part(ctx, present);
        if (++n % 4 == 0)
            pvk_poll(ctx);
        t1 = bench_now();
    } while (t1 - t0 < seconds || n < 2);
    pvk_wait_idle(ctx);
    *frames += n;
    return (bench_now() - t0) * 1000.0 / n;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define ROUNDS 7

int main(void)
{
    static const uint32_t scales[3] = {1, 2, 4};
    pvk_context *ctx[3];
    double ms[3][ROUNDS], med[3], dms[3][ROUNDS], dmed[3], nms[3][ROUNDS], nmed[3], wb_bytes[3];
    uint32_t nframes[3] = {0};
    uint32_t dframes[3] = {0};
    uint32_t frames[3] = {0}, w[3], h[3];
    for (int i = 0; i < 3; i++) {
        ctx[i] = setup(scales[i]);
        frame(ctx[i]); /* warm-up: pipelines, surfaces, images */
        pvk_wait_idle(ctx[i]);
    }
    /* the scales take turns, so a change in the machine's load hits all of them */
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < 3; i++)
        {
            ms[i][r] = slice(ctx[i], true, 0.5 * scales[i], &frames[i]);
            dms[i][r] = slice(ctx[i], false, 0.3 * scales[i], &dframes[i]);
            flush = false;
            nms[i][r] = slice(ctx[i], true, 0.5 * scales[i], &nframes[i]);
            flush = true;
        }
    for (int i = 0; i < 3; i++) { /* guest bytes written back by one frame with the flush */
        pvk_stats a, b;
        pvk_wait_idle(ctx[i]);
        pvk_get_stats(ctx[i], &a);
        frame(ctx[i]);
        pvk_get_stats(ctx[i], &b);
        wb_bytes[i] = (double)(b.surface_writebacks - a.surface_writebacks) * FW * FH * 4;
    }
    for (int i = 0; i < 3; i++) {
        qsort(ms[i], ROUNDS, sizeof ms[i][0], by_value);
        qsort(dms[i], ROUNDS, sizeof dms[i][0], by_value);
        qsort(nms[i], ROUNDS, sizeof nms[i][0], by_value);
        nmed[i] = nms[i][ROUNDS / 2];
        med[i] = ms[i][ROUNDS / 2];
        dmed[i] = dms[i][ROUNDS / 2];
        pvk_frame_size(ctx[i], PVK_SCREEN_TOP, &w[i], &h[i]);
        pvk_context_destroy(ctx[i]);
    }
    printf("scale: fill, %u draws x %u vertices (blended quads over 60-95 %% of a %ux%u RGBA8 buffer), display "
           "transfer RGBA8->BGR8, vblank; median of %d turns\n",
           DRAWS, VERTS, FW, FH, ROUNDS);
    printf("%-6s %10s %10s %10s %8s %12s %10s %10s %12s %10s\n", "scale", "ms/frame", "fastest", "slowest", "frames",
           "top frame", "x 1x time", "pixels x", "draws only", "x 1x");
    for (int i = 0; i < 3; i++) {
        char size[32];
        snprintf(size, sizeof size, "%ux%u", w[i], h[i]);
        printf("%-6u %10.2f %10.2f %10.2f %8u %12s %10.2f %10u %12.2f %10.2f\n", scales[i], med[i], ms[i][0],
               ms[i][ROUNDS - 1], frames[i], size, med[i] / med[0], scales[i] * scales[i], dmed[i], dmed[i] / dmed[0]);
    }
    printf("(draws only: the fill and the draws, no transfer or vblank; a slice's closing wait writes the buffer "
           "back once)\n");
    printf("%-6s %14s %14s %16s\n", "scale", "no flush ms", "flush share", "written back/frame");
    for (int i = 0; i < 3; i++)
        printf("%-6u %14.2f %13.1f%% %14.0f B\n", scales[i], nmed[i], 100.0 * (med[i] - nmed[i]) / med[i],
               wb_bytes[i]);
    printf("BENCH name=writeback_bytes_x1 value=%.0f unit=bytes baseline=frame_pixels ratio=%.3f\n", wb_bytes[0],
           wb_bytes[0] / (FW * FH * 4));
    printf("BENCH name=writeback_bytes_x4 value=%.0f unit=bytes baseline=writeback_bytes_x1 ratio=%.3f\n",
           wb_bytes[2], wb_bytes[2] / wb_bytes[0]);
    printf("BENCH name=noflush_x4 value=%.3f unit=ms baseline=frame_x4 ratio=%.3f\n", nmed[2], nmed[2] / med[2]);
    printf("BENCH name=draws_x2 value=%.3f unit=ms baseline=draws_x1 ratio=%.3f\n", dmed[1], dmed[1] / dmed[0]);
    printf("BENCH name=draws_x4 value=%.3f unit=ms baseline=draws_x1 ratio=%.3f\n", dmed[2], dmed[2] / dmed[0]);
    printf("BENCH name=frame_x1 value=%.3f unit=ms baseline=frame_x1 ratio=1.000\n", med[0]);
    printf("BENCH name=frame_x2 value=%.3f unit=ms baseline=frame_x1 ratio=%.3f\n", med[1], med[1] / med[0]);
    printf("BENCH name=frame_x4 value=%.3f unit=ms baseline=frame_x1 ratio=%.3f\n", med[2], med[2] / med[0]);
    return 0;
}
