/* A hostile list on the GPU vertex path (issue 25): one command list of
 * DRAWS DRAWARRAYS of VERTICES vertices each, every vertex running a
 * program that never ends (MOV o0, v0; MOV o1, v1; 67 ADDs into r0
 * (v1 and v0 by turns); MOV o1, r0; JMPU
 * back to the MOVs while b0 is false: blocks of 69 instructions, so the
 * step cap stops it before the dispatcher's block limit), into a 64x64
 * colour buffer.  It measures one pvk_command_list_run and the
 * pvk_wait_idle after it, then checks that the context still draws.
 *
 *   bench/runaway [--gs] [DRAWS [VERTICES]]   (default 16 x 256, --gs 24 x 400;
 *                                              tests/test_hostile.c runs the same
 *                                              list, test_gs_draw.c the --gs one)
 *
 * Before the per-call budget covered the GPU path each vertex ran 2^20
 * instructions (DRAWS x VERTICES x 2^20 in all); now the list costs about
 * one call's budget (PVK_SHADER_BUDGET, 2^27) and stops, as on the CPU path
 * (README "Vertex programs in draws" gives the figures). */
#include <stdbool.h>

#include "bench_draw.h"

#define FB 0x18000000u
#define VB 0x20200000u
#define LIST 0x20000000u

/* --gs: the vertex program passes through; a geometry program (point
 * mode, one vertex an invocation) emits a small triangle, then loops
 * forever in blocks of 62 instructions (MOV r0, v1 once; 60 ADDs into r0,
 * v0 and v1 by turns; JMPC back while c3.x > v0.x) for points left of
 * x = 0: all but the last (the GPU path replays the last invocation on the
 * CPU and takes the draw only when it ends).  tests/test_gs_draw.c
 * (runaway_list) draws the same program. */
static void gs_setup(pvk_context *ctx, uint32_t n)
{
    float *v = pvk_guest_ptr(ctx, VB, n * 32);
    for (uint32_t i = 0; i < n; i++) {
        float x = i + 1 == n ? 0.5f : -0.1f - 0.8f * (float)i / (float)n, y = -0.9f + 1.8f * (float)(i % 97) / 97.0f;
        const float vert[8] = {x, y, -0.5f, 1.0f, 1.0f, 0.5f, 0.25f, 1.0f};
        memcpy(v + 8 * i, vert, sizeof vert);
    }
    pvk_guest_written(ctx, VB, n * 32);
    bench_reg(ctx, PVK_GPUREG_VSH_COM_MODE, 1);
    bench_reg(ctx, PVK_GPUREG_VSH_OUTMAP_TOTAL1, 1);
    bench_reg(ctx, PVK_GPUREG_VSH_OUTMAP_TOTAL2, 1);
    uint32_t code[80], k = 0;
    code[k++] = 0x13u << 26 | 1u << 21 | 1u << 12; /* MOV o1, v1 */
    for (uint32_t q = 0; q < 3; q++) {
        code[k++] = 0x00u << 26 | 0u << 21 | (0x20u + q) << 12; /* ADD o0, c[q], v0 */
        code[k++] = 0x2Bu << 26 | q << 24 | (q == 2 ? 1u : 0u) << 23; /* SETEMIT q (prim on the last) */
        code[k++] = 0x2Au << 26; /* EMIT */
    }
    code[k++] = 0x17u << 27 | 4u << 24 | 4u << 21 | 0x23u << 12; /* CMP c3 > v0 (x) */
    code[k++] = 0x13u << 26 | 0x10u << 21 | 1u << 12; /* MOV r0, v1 */
    uint32_t loop = k;
    for (uint32_t i = 0; i < 60; i++)
        code[k++] = 0x10u << 21 | 0x10u << 12 | (i & 1u) << 7; /* ADD r0, r0, v0 / v1 */
    code[k++] = 0x2Cu << 26 | 1u << 25 | 2u << 22 | loop << 10; /* JMPC cmp.x back */
    code[k++] = 0x22u << 26;
    bench_reg(ctx, PVK_GPUREG_GSH_CODETRANSFER_CONFIG, 0);
    for (uint32_t i = 0; i < k; i++)
        bench_reg(ctx, PVK_GPUREG_GSH_CODETRANSFER_DATA, code[i]);
    bench_reg(ctx, PVK_GPUREG_GSH_CODETRANSFER_END, 1);
    bench_reg(ctx, PVK_GPUREG_GSH_OPDESCS_CONFIG, 0);
    bench_reg(ctx, PVK_GPUREG_GSH_OPDESCS_DATA, 0xF | (0x1Bu << 5) | (0x1Bu << 14) | (0x1Bu << 23));
    const float c[4][2] = {{-0.02f, -0.02f}, {0.02f, -0.02f}, {0.0f, 0.02f}, {0.0f, 0.0f}};
    for (uint32_t i = 0; i < 4; i++) {
        const float f[4] = {0.0f, 0.0f, c[i][1], c[i][0]}; /* w, z, y, x */
        bench_reg(ctx, PVK_GPUREG_GSH_FLOATUNIFORM_CONFIG, 0x80000000u | i);
        for (int j = 0; j < 4; j++) {
            uint32_t b;
            memcpy(&b, &f[j], 4);
            bench_reg(ctx, PVK_GPUREG_GSH_FLOATUNIFORM_DATA, b);
        }
    }
    bench_reg(ctx, PVK_GPUREG_GSH_BOOLUNIFORM, 0x7FFF0000u);
    bench_reg(ctx, PVK_GPUREG_GSH_ENTRYPOINT, 0x7FFF0000u);
    bench_reg(ctx, PVK_GPUREG_GSH_INPUTBUFFER_CONFIG, 0x08000000u | 1);
    bench_reg(ctx, PVK_GPUREG_GSH_ATTRIBUTES_PERMUTATION_LOW, 0x76543210u);
    bench_reg(ctx, PVK_GPUREG_GSH_ATTRIBUTES_PERMUTATION_HIGH, 0xFEDCBA98u);
    bench_reg(ctx, PVK_GPUREG_GSH_OUTMAP_MASK, 0x3);
    bench_reg(ctx, PVK_GPUREG_GEOSTAGE_CONFIG, 2);
    bench_reg(ctx, PVK_GPUREG_GSH_MISC0, 0);
    bench_reg(ctx, PVK_GPUREG_GSH_MISC1, 0);
    bench_reg(ctx, PVK_GPUREG_PRIMITIVE_CONFIG, 3u << 8 | 1);
}

int main(int argc, char **argv)
{
    /* the first draw of each program is what is timed: built as it is asked for, on the GPU path */
    setenv("PVK_COMPILE_THREADS", "0", 1);
    bool gs = argc > 1 && !strcmp(argv[1], "--gs");
    argc -= gs, argv += gs;
    uint32_t draws = argc > 1 ? (uint32_t)atoi(argv[1]) : gs ? 24u : 16u;
    uint32_t n = argc > 2 ? (uint32_t)atoi(argv[2]) : gs ? 400u : 256u;
    if (!draws || !n || n > 65536 || draws > 1000) {
        fprintf(stderr, "usage: runaway [--gs] [DRAWS (1-1000) [VERTICES (1-65536)]]\n");
        return 2;
    }
    pvk_context *ctx = bench_context("runaway", 1);
    bench_reg(ctx, PVK_GPUREG_COLORBUFFER_FORMAT, 2);
    bench_reg(ctx, PVK_GPUREG_COLORBUFFER_LOC, FB >> 3);
    bench_reg(ctx, PVK_GPUREG_COLORBUFFER_READ, 0xF);
    bench_reg(ctx, PVK_GPUREG_COLORBUFFER_WRITE, 0xF);
    bench_reg(ctx, PVK_GPUREG_FRAMEBUFFER_DIM, 64u | (63u << 12) | (1u << 24));
    bench_reg(ctx, PVK_GPUREG_VIEWPORT_WIDTH, bench_f24(32.0f));
    bench_reg(ctx, PVK_GPUREG_VIEWPORT_HEIGHT, bench_f24(32.0f));
    bench_reg(ctx, PVK_GPUREG_PRIMITIVE_CONFIG, 1);
    bench_reg(ctx, PVK_GPUREG_COLOR_OPERATION, 0x00E40100); /* a replace blend, every channel written */
    bench_reg(ctx, PVK_GPUREG_BLEND_FUNC, 0x01010000);
    bench_reg(ctx, PVK_GPUREG_DEPTH_COLOR_MASK, 0xF00);
    bench_passthrough(ctx, VB);
    if (gs) {
        gs_setup(ctx, n);
    } else {
        void *vb = pvk_guest_ptr(ctx, VB, n * 32);
        memset(vb, 0, n * 32);
        pvk_guest_written(ctx, VB, n * 32);
        /* the runaway vertex program */
        bench_reg(ctx, PVK_GPUREG_VSH_CODETRANSFER_CONFIG, 0);
        bench_reg(ctx, PVK_GPUREG_VSH_CODETRANSFER_DATA, 0x13u << 26 | 0u << 21 | 0u << 12);
        bench_reg(ctx, PVK_GPUREG_VSH_CODETRANSFER_DATA, 0x13u << 26 | 1u << 21 | 1u << 12);
        for (uint32_t i = 0; i < 67; i++) /* ADD r0, r0, v1 / v0 by turns: a chain to run, no repeated word */
            bench_reg(ctx, PVK_GPUREG_VSH_CODETRANSFER_DATA, 0x10u << 21 | 0x10u << 12 | (i & 1u) << 7);
        bench_reg(ctx, PVK_GPUREG_VSH_CODETRANSFER_DATA, 0x13u << 26 | 1u << 21 | 0x10u << 12); /* MOV o1, r0 */
        bench_reg(ctx, PVK_GPUREG_VSH_CODETRANSFER_DATA, 0x2Du << 26 | 0u << 22 | 2u << 10 | 1u); /* JMPU !b0 -> 2 */
        bench_reg(ctx, PVK_GPUREG_VSH_CODETRANSFER_DATA, 0x22u << 26);
        bench_reg(ctx, PVK_GPUREG_VSH_CODETRANSFER_END, 1);
        bench_reg(ctx, PVK_GPUREG_VSH_BOOLUNIFORM, 0x7FFF0000u);
    }
    bench_list b = {0};
    bench_list_w(&b, PVK_GPUREG_NUMVERTICES, n);
    bench_list_w(&b, PVK_GPUREG_VERTEX_OFFSET, 0);
    for (uint32_t d = 0; d < draws; d++)
        bench_list_w(&b, PVK_GPUREG_DRAWARRAYS, 1);
    bench_list_finalize(&b);
    memcpy(pvk_guest_ptr(ctx, LIST, b.n * 4), b.w, b.n * 4);
    pvk_guest_written(ctx, LIST, b.n * 4);
    pvk_stats s0, s1;
    pvk_get_stats(ctx, &s0);
    double t0 = bench_now();
    pvk_result r = pvk_command_list_run(ctx, LIST, b.n * 4);
    double t1 = bench_now();
    pvk_result rw = pvk_wait_idle(ctx);
    double t2 = bench_now();
    pvk_get_stats(ctx, &s1);
    printf("runaway_list%s %u draws x %u vertices: run %.3f s (%s), wait %.3f s (%s), total %.3f s\n",
           gs ? " --gs" : "", draws, n, t1 - t0, pvk_result_string(r), t2 - t1, pvk_result_string(rw), t2 - t0);
    printf("  draws %llu, bad_input %llu, gpu_steps_charged %llu, gpu_capped_draws %llu, gpu_budget_fallbacks %llu\n",
           (unsigned long long)(s1.draws - s0.draws), (unsigned long long)(s1.bad_input - s0.bad_input),
           (unsigned long long)(s1.gpu_steps_charged - s0.gpu_steps_charged),
           (unsigned long long)(s1.gpu_capped_draws - s0.gpu_capped_draws),
           (unsigned long long)(s1.gpu_budget_fallbacks - s0.gpu_budget_fallbacks));
    /* the context goes on: a pass-through triangle list draws */
    bench_reg(ctx, PVK_GPUREG_GEOSTAGE_CONFIG, 0);
    bench_reg(ctx, PVK_GPUREG_VSH_COM_MODE, 0);
    bench_reg(ctx, PVK_GPUREG_PRIMITIVE_CONFIG, 1);
    bench_passthrough(ctx, VB);
    bench_draw_arrays(ctx, 0, 3);
    pvk_result ok = pvk_wait_idle(ctx);
    printf("  afterwards a pass-through draw: %s\n", pvk_result_string(ok));
    free(b.w);
    pvk_context_destroy(ctx);
    return ok == PVK_SUCCESS && rw == PVK_SUCCESS ? 0 : 1;
}
