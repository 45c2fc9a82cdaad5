/* CPU time per draw through picavk: the register writes of a 3-vertex
 * DRAWARRAYS and everything they start (dirty tracking, the vertex stages,
 * key build, pipeline lookup, recording into the open batch, and a share of
 * its submission: the draws of a repetition are one batch), for (a) identical
 * consecutive draws, (b) draws alternating between 8 output-merger states,
 * (c) a new state every draw (a new pipeline each time, its shader from the
 * cache after the first).  The GPU's own time is not counted: draws do not
 * wait for it.  The baseline is recording the same number of bare vkCmdDraws
 * into one dynamic-rendering pass with one of picavk's pipelines, in the same
 * run: `ratio` = picavk draws/s ÷ bare draws/s. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_draw.h"
#include "runtime/runtime.h"

#define N 200u
#define SIDE 64u
#define FB 0x18000000u
#define VB 0x18100000u

static void setup(pvk_context *ctx)
{
    bench_passthrough(ctx, VB);
    bench_reg(ctx, PVK_GPUREG_COLORBUFFER_FORMAT, 2);
    bench_reg(ctx, PVK_GPUREG_COLORBUFFER_LOC, FB >> 3);
    bench_reg(ctx, PVK_GPUREG_COLORBUFFER_READ, 0xF);
    bench_reg(ctx, PVK_GPUREG_COLORBUFFER_WRITE, 0xF);
    bench_reg(ctx, PVK_GPUREG_FRAMEBUFFER_DIM, SIDE | ((SIDE - 1) << 12) | (1u << 24));
    bench_reg(ctx, PVK_GPUREG_VIEWPORT_WIDTH, bench_f24(SIDE / 2.0f));
    bench_reg(ctx, PVK_GPUREG_VIEWPORT_HEIGHT, bench_f24(SIDE / 2.0f));
    bench_reg(ctx, PVK_GPUREG_VIEWPORT_XY, 0);
    bench_reg(ctx, PVK_GPUREG_COLOR_OPERATION, 0x00E40100);
    bench_reg(ctx, PVK_GPUREG_BLEND_FUNC, 0x76760000);
    bench_reg(ctx, PVK_GPUREG_DEPTH_COLOR_MASK, 0xF00);
    bench_reg(ctx, PVK_GPUREG_PRIMITIVE_CONFIG, 1);
    bench_reg(ctx, PVK_GPUREG_NUMVERTICES, 3);
    bench_reg(ctx, PVK_GPUREG_VERTEX_OFFSET, 0);
    static const float tri[3][8] = {{-0.5f, -0.5f, -0.5f, 1, 1, 0, 0, 1},
                                    {0.5f, -0.5f, -0.5f, 1, 0, 1, 0, 1},
                                    {0.0f, 0.5f, -0.5f, 1, 0, 0, 1, 1}};
    memcpy(pvk_guest_ptr(ctx, VB, sizeof tri), tri, sizeof tri);
    pvk_guest_written(ctx, VB, sizeof tri);
}

/* One batch of N draws for `states` (0: one state; k: BLEND_FUNC cycles
 * through k values from `base`, each a different pipeline), waited for
 * afterwards: its wall and calling-thread CPU seconds (the driver's threads,
 * which run batches on the same cores, not counted). */
static void batch(pvk_context *ctx, uint32_t states, uint32_t base, double *wall, double *cpu)
{
    double t0 = bench_now(), c0 = bench_thread_cpu();
    for (uint32_t i = 0; i < N; i++) {
        if (states) { /* RGB source and destination factors: up to 256 distinct states */
            uint32_t k = base + i % states;
            bench_reg(ctx, PVK_GPUREG_BLEND_FUNC, 0x76000000u | (k & 0xF) << 16 | (k >> 4 & 0xF) << 20);
        }
        bench_reg(ctx, PVK_GPUREG_DRAWARRAYS, 1);
    }
    *wall = bench_now() - t0, *cpu = bench_thread_cpu() - c0;
    pvk_wait_idle(ctx);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Draws per second of a context that has drawn for a while: the median of
 * TIMED batches after WARM untimed ones (a context's first batches cost two
 * to five times more, printed apart: the driver's command pools and
 * picavk's rings and memos are still growing, new pipelines come into use
 * one a submission; a game pays that once); *cpu_rate: per second of
 * the calling thread's CPU time.  `fresh` states (a new pipeline every draw)
 * can be drawn once only: one batch, no warm-up. */
#define WARM 20
#define TIMED 15
static double picavk_rate(pvk_context *ctx, uint32_t states, uint32_t base, bool fresh, double *cpu_rate)
{
    double wall[TIMED], cpu[TIMED], w, c;
    int n = fresh ? 1 : TIMED;
    for (int rep = 0; !fresh && rep < WARM; rep++)
        batch(ctx, states, base, &w, &c);
    for (int rep = 0; rep < n; rep++)
        batch(ctx, states, base, &wall[rep], &cpu[rep]);
    qsort(wall, (size_t)n, sizeof *wall, cmp_double);
    qsort(cpu, (size_t)n, sizeof *cpu, cmp_double);
    if (cpu_rate)
        *cpu_rate = cpu[n / 2] > 0 ? N / cpu[n / 2] : 0;
    return N / wall[n / 2];
}

/* The first batch of a new context's first state, before any warm-up:
 * its calling-thread CPU seconds per draw (the pipeline's build excluded:
 * one draw waited for first). */
static double first_batch_cpu(pvk_context *ctx)
{
    double w, c;
    bench_reg(ctx, PVK_GPUREG_DRAWARRAYS, 1);
    pvk_wait_idle(ctx);
    batch(ctx, 0, 0, &w, &c);
    return c / N;
}

/* Bare Vulkan: N vkCmdDraws recorded into one pass with one of picavk's
 * pipelines, per second of the thread's CPU time (recording runs on it
 * alone): the median of TIMED passes after WARM, as picavk_rate. */
static double bare_rate(pvk_context *ctx)
{
    pvk_pipe_key pk;
    pvk_fs_key fk;
    memset(&pk, 0, sizeof pk);
    memset(&fk, 0, sizeof fk);
    pk.color_mask = 0xF;
    bool uber = false;
    VkPipeline pipe = pvk_pipeline_get(ctx, &pk, &fk, VK_FORMAT_UNDEFINED, false, NULL, &uber, NULL);
    pvk_image im = {0};
    if (!pipe || pvk_image_ensure(&ctx->gpu, &im, SIDE, SIDE, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
                                  true))
        return 0;
    double cpu[TIMED];
    int n = 0;
    for (int rep = 0; rep < WARM + TIMED; rep++) {
        pvk_op op;
        if (pvk_op_begin(&ctx->gpu, &op))
            break;
        pvk_image_barrier(&ctx->gpu, op.cmd, im.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                          VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_2_NONE, 0,
                          VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT);
        double t0 = bench_thread_cpu();
        VkRenderingAttachmentInfo att = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                         .imageView = im.view,
                                         .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                         .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD,
                                         .storeOp = VK_ATTACHMENT_STORE_OP_STORE};
        VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
                              .renderArea = {{0, 0}, {SIDE, SIDE}},
                              .layerCount = 1,
                              .colorAttachmentCount = 1,
                              .pColorAttachments = &att};
        ctx->gpu.vk.vkCmdBeginRendering(op.cmd, &ri);
        ctx->gpu.vk.vkCmdBindPipeline(op.cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipe);
        VkViewport vp = {0, 0, SIDE, SIDE, 0, 1};
        VkRect2D sc = {{0, 0}, {SIDE, SIDE}};
        ctx->gpu.vk.vkCmdSetViewport(op.cmd, 0, 1, &vp);
        ctx->gpu.vk.vkCmdSetScissor(op.cmd, 0, 1, &sc);
        for (uint32_t i = 0; i < N; i++)
            ctx->gpu.vk.vkCmdDraw(op.cmd, 3, 1, 0, 0);
        ctx->gpu.vk.vkCmdEndRendering(op.cmd);
        double t = bench_thread_cpu() - t0;
        pvk_op_abort(&ctx->gpu, &op); /* recorded, never submitted: only the CPU cost counts */
        if (rep >= WARM)
            cpu[n++] = t;
    }
    pvk_image_destroy(&ctx->gpu, &im);
    if (n < TIMED)
        return 0;
    qsort(cpu, (size_t)n, sizeof *cpu, cmp_double);
    return N / cpu[n / 2];
}

int main(int argc, char **argv)
{
    pvk_context *ctx = bench_context("drawcall", 0);
    setup(ctx);
    if (argc == 3 && !strcmp(argv[1], "--profile")) { /* one case, repeated, for perf or callgrind */
        uint32_t states = (uint32_t)atoi(argv[2]);
        double r = 0, c = 0;
        for (int i = 0; i < 40; i++) {
            r = picavk_rate(ctx, states, 0, false, &c);
            printf("%.2f ", 1e6 / c); /* each round's median: the machine's moods show */
        }
        printf("us of the thread's CPU a draw, round by round\n");
        printf("drawcall --profile %u: %.0f draws/s (%.2f us each, %.2f us of the thread's CPU)\n", states, r,
               1e6 / r, 1e6 / c);
        pvk_context_destroy(ctx);
        return 0;
    }
    double first = first_batch_cpu(ctx);
    double bare = bare_rate(ctx);
    double same_cpu, eight_cpu, fresh_cpu;
    double same = picavk_rate(ctx, 0, 0, false, &same_cpu);
    double eight = picavk_rate(ctx, 8, 0, false, &eight_cpu); /* its warm-up builds the 8 pipelines */
    double fresh = picavk_rate(ctx, N, 8, true, &fresh_cpu); /* states 8..8+N-1: new pipelines */
    printf("drawcall: %u draws of 3 vertices into %ux%u RGBA8, blending on\n", N, SIDE, SIDE);
    printf("%-44s %12s %10s %14s\n", "case", "draws/s", "us each", "us thread CPU");
    printf("%-44s %12s %10s %14.3f\n", "bare vkCmdDraw recording", "", "", 1e6 / bare);
    printf("%-44s %12s %10s %14.2f\n", "(a) in a new context's first batch", "", "", 1e6 * first);
    printf("%-44s %12.0f %10.2f %14.2f\n", "(a) picavk, identical draws", same, 1e6 / same, 1e6 / same_cpu);
    printf("%-44s %12.0f %10.2f %14.2f\n", "(b) picavk, 8 alternating states", eight, 1e6 / eight, 1e6 / eight_cpu);
    printf("%-44s %12.0f %10.2f %14.2f\n", "(c) picavk, a new pipeline every draw", fresh, 1e6 / fresh,
           1e6 / fresh_cpu);
    /* ratios: draws per second of the caller's CPU against bare recording's */
    printf("BENCH name=drawcall_same value=%.0f unit=draws/s baseline=bare_vkCmdDraw ratio=%.5f\n", same_cpu,
           same_cpu / bare);
    printf("BENCH name=drawcall_8states value=%.0f unit=draws/s baseline=bare_vkCmdDraw ratio=%.5f\n", eight_cpu,
           eight_cpu / bare);
    printf("BENCH name=drawcall_new_state value=%.0f unit=draws/s baseline=bare_vkCmdDraw ratio=%.5f\n", fresh_cpu,
           fresh_cpu / bare);
    pvk_context_destroy(ctx);
    return 0;
}
