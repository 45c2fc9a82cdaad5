/* Hostile command lists finish: the per-call vertex and pixel budgets
 * (translator/geometry.h) stop lists that would keep the GPU busy for hours,
 * as malformed (logged, counted) but with P3D raised.  No timing is asserted:
 * the test finishing is the point.  Also: a host wait that times out leaves
 * the context usable. */
#include <stdlib.h>
#include <time.h>

#include "draw_common.h"
#include "runtime/runtime.h"
#include "translator/geometry.h"

#define BIG 1024u /* a 1024x1024 RGBA8 target */
#define LIST 0x20000000u /* FCRAM: lists and indices */

/* draw_common.h helpers for the small target, unused here */
static void (*const unused_helpers[])(void) = {clear_fb};
static uint32_t (*const unused_index)(uint32_t, uint32_t) = tiled_index;
static void (*const unused_draw)(uint32_t, uint32_t) = draw_arrays;

static int p3d;
static void on_irq(void *user, pvk_context *c, pvk_irq which)
{
    (void)user, (void)c;
    p3d += which == PVK_IRQ_P3D;
}

static void big_target(void)
{
    reg(PVK_GPUREG_COLORBUFFER_FORMAT, 2);
    reg(PVK_GPUREG_COLORBUFFER_LOC, FB >> 3);
    reg(PVK_GPUREG_COLORBUFFER_READ, 0xF);
    reg(PVK_GPUREG_COLORBUFFER_WRITE, 0xF);
    reg(PVK_GPUREG_FRAMEBUFFER_DIM, BIG | ((BIG - 1) << 12) | (1u << 24));
    reg(PVK_GPUREG_VIEWPORT_WIDTH, f24(BIG / 2.0f));
    reg(PVK_GPUREG_VIEWPORT_HEIGHT, f24(BIG / 2.0f));
    reg(PVK_GPUREG_VIEWPORT_XY, 0);
    reg(PVK_GPUREG_FACECULLING_CONFIG, 0);
    reg(PVK_GPUREG_SCISSORTEST_MODE, 0);
    reg(PVK_GPUREG_PRIMITIVE_CONFIG, 1); /* triangle list, 2 outputs */
    /* one triangle over the whole target */
    static const float v[3][8] = {{-1, -1, -0.5f, 1, 1, 0, 0, 1}, {3, -1, -0.5f, 1, 0, 1, 0, 1},
                                  {-1, 3, -0.5f, 1, 0, 0, 1, 1}};
    memcpy(pvk_guest_ptr(ctx, VB, sizeof v), v, sizeof v);
    pvk_guest_written(ctx, VB, sizeof v);
}

static uint32_t *put_cmd(uint32_t *w, uint32_t id, uint32_t v)
{
    w[0] = v;
    w[1] = pvk_cmd_header(id, 0xF, 0, 0);
    return w + 2;
}

/* Run the list at LIST; it must stop with an error counted and P3D raised. */
static void expect_stopped(uint32_t bytes, const char *what)
{
    pvk_guest_written(ctx, LIST, bytes);
    pvk_stats a, b;
    pvk_get_stats(ctx, &a);
    int irqs = p3d;
    th_quiet_errors = 1;
    pvk_result r = pvk_command_list_run(ctx, LIST, bytes);
    th_quiet_errors = 0;
    CHECK(r != PVK_SUCCESS);
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    pvk_get_stats(ctx, &b);
    CHECK(b.bad_input > a.bad_input);
    CHECK_EQ(p3d - irqs, 1);
    CHECK(strstr(th_last_error, what) != NULL);
    printf("  %s: stopped after %llu draws, %llu vertices (%s)\n", what, (unsigned long long)(b.draws - a.draws),
           (unsigned long long)(b.vertices - a.vertices), th_last_error);
}

/* 48 bytes that draw a triangle and jump back to their own start. */
static void jump_loop(void)
{
    uint32_t *w0 = pvk_guest_ptr(ctx, LIST, 48), *w = w0;
    w = put_cmd(w, PVK_GPUREG_NUMVERTICES, 3);
    w = put_cmd(w, PVK_GPUREG_VERTEX_OFFSET, 0);
    w = put_cmd(w, PVK_GPUREG_DRAWARRAYS, 1);
    w = put_cmd(w, PVK_GPUREG_CMDBUF_ADDR0, LIST >> 3);
    w = put_cmd(w, PVK_GPUREG_CMDBUF_SIZE0, 48 >> 3);
    w = put_cmd(w, PVK_GPUREG_CMDBUF_JUMP0, 1);
    CHECK_EQ(w - w0, 12);
    expect_stopped(48, "pixels");
}

/* 1 MiB of 3-vertex draws (DRAWARRAYS only: 8 bytes each) with a FINALIZE
 * at the end that is never reached. */
static void many_draws(void)
{
    const uint32_t bytes = 1u << 20;
    uint32_t *w0 = pvk_guest_ptr(ctx, LIST, bytes), *w = w0;
    w = put_cmd(w, PVK_GPUREG_NUMVERTICES, 3);
    w = put_cmd(w, PVK_GPUREG_VERTEX_OFFSET, 0);
    while ((size_t)(w - w0) + 4 <= bytes / 4)
        w = put_cmd(w, PVK_GPUREG_DRAWARRAYS, 1);
    put_cmd(w, PVK_GPUREG_FINALIZE, 0x12345678);
    expect_stopped(bytes, "pixels");
}

/* One DRAWELEMENTS of 2^20 u16 indices cycling over the triangle. */
static void huge_elements_stop(const char *stop)
{
    const uint32_t n = 1u << 20, ib = LIST + 0x100000;
    uint16_t *idx = pvk_guest_ptr(ctx, ib, n * 2);
    for (uint32_t i = 0; i < n; i++)
        idx[i] = (uint16_t)(i % 3);
    pvk_guest_written(ctx, ib, n * 2);
    uint32_t *w0 = pvk_guest_ptr(ctx, LIST, 48), *w = w0;
    w = put_cmd(w, PVK_GPUREG_INDEXBUFFER_CONFIG, (ib - VB) | 1u << 31);
    w = put_cmd(w, PVK_GPUREG_NUMVERTICES, n);
    w = put_cmd(w, PVK_GPUREG_VERTEX_OFFSET, 0);
    w = put_cmd(w, PVK_GPUREG_DRAWELEMENTS, 1);
    w = put_cmd(w, PVK_GPUREG_FINALIZE, 0x12345678);
    w = put_cmd(w, 0, 0);
    expect_stopped(48, stop);
}

/* `n` fills of 64 MiB of FCRAM, both units taking turns, fill i writing
 * i: far longer work for lavapipe than the 1 ms waits below allow. */
static void long_fills(pvk_context *c, int n)
{
    for (int i = 0; i < n; i++) {
        uint32_t unit = 0x10400010u + 0x10u * (i & 1), start = PVK_FCRAM_BASE + (i & 1) * 0x4000000u;
        pvk_mmio_write32(c, unit, start >> 3);
        pvk_mmio_write32(c, unit + 4, (start + 0x4000000u) >> 3);
        pvk_mmio_write32(c, unit + 8, (uint32_t)i);
        pvk_mmio_write32(c, unit + 12, 0x201);
    }
}

/* A host wait that gives up returns PVK_ERROR_TIMEOUT; the work goes on and
 * a later wait succeeds. */
static void wait_timeout(void)
{
    pvk_config cfg = {.wait_timeout_ms = 1};
    pvk_context *c = th_context(&cfg, 0);
    long_fills(c, 16);
    pvk_result r = pvk_wait_idle(c);
    CHECK_EQ(r, PVK_ERROR_TIMEOUT);
    unsigned tries = 0;
    while (r == PVK_ERROR_TIMEOUT && tries++ < 1000000)
        r = pvk_wait_idle(c);
    CHECK_EQ(r, PVK_SUCCESS);
    printf("  wait timeout: %u more 1 ms waits until idle\n", tries);
    const uint32_t *p = pvk_guest_ptr(c, PVK_FCRAM_BASE, 4);
    CHECK_EQ(p[0], 14); /* the last fill of unit 0 */
    CHECK_EQ(pvk_context_status(c), PVK_SUCCESS);
    th_release(c);
}

/* The VBlank's waits honour the timeout too: with fills of 64 MiB in flight
 * and 1 ms allowed, a VBlank that must reuse an older frame's images gives
 * up with PVK_ERROR_TIMEOUT (raising no IRQ), and once the GPU is idle the
 * next one works and the frame is the screen's. */
static unsigned vblank_irqs;
static void count_vblank(void *user, pvk_context *c, pvk_irq which)
{
    (void)user, (void)c;
    vblank_irqs += which == PVK_IRQ_PDC0;
}

static void vblank_timeout(void)
{
    pvk_config cfg = {.wait_timeout_ms = 1, .irq = count_vblank};
    pvk_context *c = th_context(&cfg, 0);
    /* the top screen: a 240x400 RGB8 framebuffer of one colour */
    uint8_t *fb = pvk_guest_ptr(c, 0x18300000u, 240 * 400 * 3);
    memset(fb, 0x5A, 240 * 400 * 3);
    pvk_guest_written(c, 0x18300000u, 240 * 400 * 3);
    pvk_mmio_write32(c, 0x1040045Cu, (400u << 16) | 240);
    pvk_mmio_write32(c, 0x10400468u, 0x18300000u);
    pvk_mmio_write32(c, 0x10400470u, 0x41);
    pvk_mmio_write32(c, 0x10400490u, 720);
    pvk_mmio_write32(c, 0x10400474u, 1);
    pvk_result r = PVK_SUCCESS;
    unsigned calls = 0, irqs = 0;
    for (int round = 0; round < 4 && r != PVK_ERROR_TIMEOUT; round++) {
        long_fills(c, 8);
        for (int v = 0; v < 4 && r != PVK_ERROR_TIMEOUT; v++, calls++) {
            irqs = vblank_irqs;
            r = pvk_vblank(c);
        }
    }
    CHECK_EQ(r, PVK_ERROR_TIMEOUT);
    CHECK_EQ(vblank_irqs, irqs); /* the VBlank that gave up raised nothing */
    printf("  VBlank timeout: after %u VBlanks\n", calls);
    unsigned tries = 0;
    while ((r = pvk_wait_idle(c)) == PVK_ERROR_TIMEOUT && tries++ < 1000000)
        ;
    CHECK_EQ(r, PVK_SUCCESS);
    CHECK_EQ(pvk_vblank(c), PVK_SUCCESS);
    CHECK_EQ(vblank_irqs, irqs + 1);
    static uint32_t px[400 * 240];
    tries = 0;
    while ((r = pvk_frame_read(c, PVK_SCREEN_TOP, px, 400 * 4)) == PVK_ERROR_TIMEOUT && tries++ < 1000000)
        ; /* the scan-out itself may take more than 1 ms */
    CHECK_EQ(r, PVK_SUCCESS);
    CHECK_EQ(px[1000] & 0xFFFFFF, 0x5A5A5Au);
    CHECK_EQ(pvk_context_status(c), PVK_SUCCESS);
    th_release(c);
}

/* Runaway vertex programs on the GPU path (issue 25): one list of
 * RUNAWAY_DRAWS DRAWARRAYS of RUNAWAY_VERTICES vertices each, every vertex
 * looping forever in blocks of 69 instructions (MOV o0, v0; MOV o1, v1;
 * 67 ADDs into r0, v1 and v0 by turns; MOV o1, r0; JMPU back while b0 is
 * false), so the step cap, not the dispatcher's block limit, stops each.  The GPU path gives such a program
 * (no bound in its code) a per-invocation cap from the call's shader budget
 * and charges invocations x cap; once the budget cannot pay a draw, the CPU
 * path takes it and stops the list as it would (a runaway, or the budget
 * spent).  So the list costs about one call's budget of instructions, not
 * draws x vertices x 2^20.  The time of the run and the wait after it is
 * printed (not asserted; README "Limitations" and bench/runaway.c). */
#define RUNAWAY_DRAWS 16u
#define RUNAWAY_VERTICES 256u
static void gpu_runaway_vertices(void)
{
    const uint32_t vb = LIST + 0x200000u; /* zero vertices: what they are does not matter */
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    memset(pvk_guest_ptr(ctx, vb, RUNAWAY_VERTICES * 32), 0, RUNAWAY_VERTICES * 32);
    pvk_guest_written(ctx, vb, RUNAWAY_VERTICES * 32);
    reg(PVK_GPUREG_VSH_CODETRANSFER_CONFIG, 0);
    reg(PVK_GPUREG_VSH_CODETRANSFER_DATA, 0x13u << 26 | 0u << 21 | 0u << 12);
    reg(PVK_GPUREG_VSH_CODETRANSFER_DATA, 0x13u << 26 | 1u << 21 | 1u << 12);
    for (uint32_t i = 0; i < 67; i++) /* ADD r0, r0, v1 / v0 by turns: a chain to run, no repeated word */
        reg(PVK_GPUREG_VSH_CODETRANSFER_DATA, 0x10u << 21 | 0x10u << 12 | (i & 1u) << 7);
    reg(PVK_GPUREG_VSH_CODETRANSFER_DATA, 0x13u << 26 | 1u << 21 | 0x10u << 12); /* MOV o1, r0 */
    reg(PVK_GPUREG_VSH_CODETRANSFER_DATA, 0x2Du << 26 | 0u << 22 | 2u << 10 | 1u); /* JMPU !b0 -> 2 */
    reg(PVK_GPUREG_VSH_CODETRANSFER_DATA, 0x22u << 26);
    reg(PVK_GPUREG_VSH_CODETRANSFER_END, 1);
    reg(PVK_GPUREG_VSH_BOOLUNIFORM, 0x7FFF0000u);
    reg(PVK_GPUREG_ATTRIBBUFFERS_LOC, vb >> 3);
    uint32_t *w0 = pvk_guest_ptr(ctx, LIST, 4096), *w = w0;
    w = put_cmd(w, PVK_GPUREG_NUMVERTICES, RUNAWAY_VERTICES);
    w = put_cmd(w, PVK_GPUREG_VERTEX_OFFSET, 0);
    for (uint32_t d = 0; d < RUNAWAY_DRAWS; d++)
        w = put_cmd(w, PVK_GPUREG_DRAWARRAYS, 1);
    w = put_cmd(w, PVK_GPUREG_FINALIZE, 0x12345678);
    w = put_cmd(w, 0, 0);
    uint32_t bytes = (uint32_t)(w - w0) * 4;
    pvk_guest_written(ctx, LIST, bytes);
    pvk_stats a, b;
    pvk_get_stats(ctx, &a);
    uint64_t gv = ctx->pica.counters.gpu_vertices;
    int irqs = p3d;
    th_quiet_errors = 1;
    struct timespec t0, t1, t2;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pvk_result r = pvk_command_list_run(ctx, LIST, bytes);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    clock_gettime(CLOCK_MONOTONIC, &t2);
    th_quiet_errors = 0;
    pvk_get_stats(ctx, &b);
    uint64_t gpu_draws = (ctx->pica.counters.gpu_vertices - gv) / RUNAWAY_VERTICES;
    double run = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    double wait = (double)(t2.tv_sec - t1.tv_sec) + (double)(t2.tv_nsec - t1.tv_nsec) * 1e-9;
    printf("  runaway vertex programs, %u draws x %u vertices: run %.3f s + wait %.3f s; %llu draws ran, "
           "%llu on the GPU path (%llu shader instructions charged, %llu capped draws), %llu to the CPU path, "
           "bad input +%llu (%s)\n",
           RUNAWAY_DRAWS, RUNAWAY_VERTICES, run, wait, (unsigned long long)(b.draws - a.draws),
           (unsigned long long)gpu_draws,
           (unsigned long long)(b.gpu_steps_charged - a.gpu_steps_charged),
           (unsigned long long)(b.gpu_capped_draws - a.gpu_capped_draws),
           (unsigned long long)(b.gpu_budget_fallbacks - a.gpu_budget_fallbacks),
           (unsigned long long)(b.bad_input - a.bad_input), th_last_error);
    CHECK(r != PVK_SUCCESS);
    if (!ctx->pica.env.gpu_vs) { /* PVK_TEST_DEBUG=cpu-vs: the interpreter stops the list at the first vertex */
        CHECK_EQ(b.draws - a.draws, 1);
        CHECK_EQ(b.gpu_steps_charged, a.gpu_steps_charged);
        upload_shader();
        reg(PVK_GPUREG_ATTRIBBUFFERS_LOC, VB >> 3);
        return;
    }
    /* the GPU path ran some, each charged; the budget stopped the list */
    CHECK(p3d - irqs <= 1); /* stopped by the CPU path's runaway, or by the spent budget (P3D raised) */
    CHECK(b.draws - a.draws < RUNAWAY_DRAWS);
    CHECK(gpu_draws > 0);
    CHECK_EQ(b.gpu_capped_draws - a.gpu_capped_draws, gpu_draws);
    CHECK(b.gpu_steps_charged - a.gpu_steps_charged <= PVK_SHADER_BUDGET);
    CHECK(b.gpu_steps_charged - a.gpu_steps_charged >= PVK_SHADER_BUDGET / 2);
    CHECK(b.gpu_budget_fallbacks > a.gpu_budget_fallbacks);
    /* reported: each GPU draw's runaway vertices, and the CPU path's stop */
    CHECK(b.bad_input - a.bad_input >= gpu_draws + 1);
    /* the context goes on: the pass-through program draws again */
    upload_shader();
    reg(PVK_GPUREG_ATTRIBBUFFERS_LOC, VB >> 3);
}

static void huge_elements(void)
{
    huge_elements_stop("pixels");
}

static void huge_elements_vertices(void)
{
    huge_elements_stop("vertices");
}

int main(void)
{
    /* the GPU paths' budget cases need the GPU path from the first draw:
     * vertex programs built as the draws ask (tests/test_compile.c covers the threads) */
    setenv("PVK_COMPILE_THREADS", "0", 1);
    wait_timeout();
    vblank_timeout();
    for (int mirror = 0; mirror < 2; mirror++) {
        pvk_config cfg = {.irq = on_irq};
        ctx = th_context(&cfg, mirror);
        (void)unused_helpers, (void)unused_index, (void)unused_draw;
        upload_shader();
        setup_attribs();
        big_target();
        huge_elements(); /* the default budget: stopped before any GPU work */
        /* The default pixel budget stops these after at most 2^32 / 2^20 = 4096
         * draws into the 1024x1024 target (each costs its area and more), about
         * ten seconds of lavapipe each, minutes under ASan on a shared machine.
         * The same mechanism at 1/16 of the budget keeps the suite quick. */
        ctx->pica.area_limit = PVK_AREA_BUDGET / 16;
        jump_loop();
        many_draws();
        ctx->pica.area_limit = 0;
        /* the vertex budget, lowered the same way: 2^20 indices against 2^19 */
        ctx->pica.vertex_limit = 1u << 19;
        huge_elements_vertices();
        ctx->pica.vertex_limit = 0;
        if (!mirror)
            gpu_runaway_vertices();
        /* the context still draws within the budget afterwards */
        pvk_stats a, b;
        pvk_get_stats(ctx, &a);
        reg(PVK_GPUREG_NUMVERTICES, 3);
        reg(PVK_GPUREG_DRAWARRAYS, 1);
        CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
        pvk_get_stats(ctx, &b);
        CHECK_EQ(b.bad_input, a.bad_input);
        CHECK_EQ(b.triangles - a.triangles, 1);
        /* the reserved depth format 1 with the depth test on: refused and
         * counted, the list goes on, the next draw in D24S8 is drawn */
        th_quiet_errors = 1;
        reg(PVK_GPUREG_DEPTHBUFFER_LOC, 0x18100000u >> 3);
        reg(PVK_GPUREG_DEPTHBUFFER_FORMAT, 1);
        reg(PVK_GPUREG_DEPTH_COLOR_MASK, 1u | (1u << 4) | (0xFu << 8) | (1u << 12));
        reg(PVK_GPUREG_DRAWARRAYS, 1);
        CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
        pvk_get_stats(ctx, &a);
        CHECK_EQ(a.bad_input, b.bad_input + 1);
        reg(PVK_GPUREG_DEPTHBUFFER_FORMAT, 3);
        reg(PVK_GPUREG_DRAWARRAYS, 1);
        CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
        pvk_get_stats(ctx, &b);
        CHECK_EQ(b.bad_input, a.bad_input);
        th_quiet_errors = 0;
        th_release(ctx);
    }
    return th_finish("test_hostile");
}
