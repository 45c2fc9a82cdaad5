/* Compile threads (pvk_config.compile_threads, runtime/compile.c): a draw
 * whose vertex program is still being built in the background is drawn by
 * the CPU interpreter, later draws of the program take the GPU path once its
 * module is done, and the pictures are byte for byte those of a context that
 * builds everything on the calling thread (compile_threads < 0), whose
 * draws all take the GPU path.  Draws whose TEV state is new while its
 * pipeline is being built take the ubershader, with the same bytes; only
 * the first waits for it.  The ubershader's kinds are remembered in the
 * disk cache and started by the next context.  A context destroyed with
 * builds in flight ends cleanly (the ASan run checks the leaks). */
#include <stdlib.h>
#include <time.h>

#include "draw_common.h"
#include "runtime/pipeline.h"

#define PROGRAMS 6

/* MOV o0, v0; MOV o1, v1; then `extra` MOV r0, v0 (distinct code, the same
 * outputs); END.  Position and colour as upload_shader. */
static void upload_program(unsigned extra)
{
    reg(PVK_GPUREG_VSH_CODETRANSFER_CONFIG, 0);
    reg(PVK_GPUREG_VSH_CODETRANSFER_DATA, (0x13u << 26) | (0u << 21) | (0u << 12));
    reg(PVK_GPUREG_VSH_CODETRANSFER_DATA, (0x13u << 26) | (1u << 21) | (1u << 12));
    for (unsigned i = 0; i < extra; i++)
        reg(PVK_GPUREG_VSH_CODETRANSFER_DATA, (0x13u << 26) | (0x10u << 21) | (0u << 12));
    reg(PVK_GPUREG_VSH_CODETRANSFER_DATA, 0x22u << 26);
    reg(PVK_GPUREG_VSH_CODETRANSFER_END, 1);
}

static void setup(void)
{
    setup_plain_rgba8();
    float *v = pvk_guest_ptr(ctx, VB, PROGRAMS * 3 * 32);
    for (unsigned p = 0; p < PROGRAMS; p++)
        for (unsigned k = 0; k < 3; k++) { /* a triangle per program, across the buffer */
            float *q = v + (p * 3 + k) * 8;
            q[0] = -1.0f + (float)p / PROGRAMS * 2.0f + (k == 1 ? 0.5f : 0.0f);
            q[1] = k == 2 ? 0.9f : -0.8f + 0.1f * (float)p;
            q[2] = -0.5f, q[3] = 1.0f;
            q[4] = (float)(p + 1) / (PROGRAMS + 1), q[5] = 0.25f * (float)k, q[6] = 0.7f, q[7] = 1.0f;
        }
    pvk_guest_written(ctx, VB, PROGRAMS * 3 * 32);
    memset(pvk_guest_ptr(ctx, FB, W * H * 4), 0x40, W * H * 4);
    pvk_guest_written(ctx, FB, W * H * 4);
}

/* The triangle of program slot p. */
static void draw_slot(unsigned p)
{
    reg(PVK_GPUREG_ATTRIBBUFFER0_OFFSET, p * 3 * 32);
    reg(PVK_GPUREG_PRIMITIVE_CONFIG, 1);
    reg(PVK_GPUREG_NUMVERTICES, 3);
    reg(PVK_GPUREG_VERTEX_OFFSET, 0);
    reg(PVK_GPUREG_DRAWARRAYS, 1);
}

/* Each program draws its triangle (replace blend: drawing a round again
 * changes no byte).  Returns how many of the draws took the GPU path. */
static unsigned round_of_draws(void)
{
    unsigned on_gpu = 0;
    for (unsigned p = 0; p < PROGRAMS; p++) {
        upload_program(p + 1);
        uint64_t before = ctx->pica.counters.gpu_vertices;
        draw_slot(p);
        on_gpu += ctx->pica.counters.gpu_vertices != before;
    }
    return on_gpu;
}

static void run(int threads, uint8_t *out, pvk_stats *st)
{
    char dir[] = "/tmp/pvk_compile_XXXXXX"; /* empty: every build compiles */
    CHECK(mkdtemp(dir) != NULL);
    pvk_config cfg = {.compile_threads = threads, .cache_dir = dir};
    ctx = th_context(&cfg, 0);
    CHECK_EQ(pvk_compiler_threads(ctx), threads < 0 ? 0u : (uint32_t)threads);
    setup();
    unsigned first = round_of_draws();
    if (threads < 0) {
        CHECK_EQ(first, PROGRAMS); /* built as the draws asked */
    } else {
        /* a glslang build takes milliseconds; the draw asked microseconds after queueing it */
        CHECK(first < PROGRAMS);
        CHECK(stats().cpu_vs_while_building > 0);
    }
    /* until every program's module is done: the GPU path takes them all */
    unsigned rounds = 1, last = first;
    while (last < PROGRAMS && rounds < 2000) {
        CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
        nanosleep(&(struct timespec){0, 5000000}, NULL);
        last = round_of_draws();
        rounds++;
    }
    CHECK_EQ(last, PROGRAMS);
    copy_out(out, FB);
    *st = stats();
    th_release(ctx);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_EQ(system(cmd), 0);
}

/* `n` new TEV states from state `from` drawn one after another, each at a
 * triangle of its own program slot, with the disk cache in `dir` ("":
 * none). */
static void tev_run_in(int threads, const char *dir, unsigned from, unsigned n, uint8_t *out, pvk_stats *st)
{
    pvk_config cfg = {.compile_threads = threads, .cache_dir = dir};
    ctx = th_context(&cfg, 0);
    setup();
    upload_program(1);
    /* a fog LUT from clear to the fog colour over the depth range, for the states with fog */
    reg(PVK_GPUREG_FOG_LUT_INDEX, 0);
    for (uint32_t i = 0; i < 128; i++)
        reg(PVK_GPUREG_FOG_LUT_DATA, (2047 - 16 * i) << 13 | 0x1FF0);
    reg(PVK_GPUREG_FOG_COLOR, 0x00406080u);
    for (unsigned s = from; s < from + n; s++) {
        tev_mode_state(s);
        /* every third state fogged: fog is part of the ubershader's kind, the TEV state its data */
        reg(PVK_GPUREG_TEXENV_UPDATE_BUFFER, s % 3 == 1 ? 5u : 0u);
        draw_slot(s % PROGRAMS);
    }
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    copy_out(out, FB);
    *st = stats();
    th_release(ctx);
}

static void tev_run(int threads, unsigned n, uint8_t *out, pvk_stats *st)
{
    tev_run_in(threads, "", 0, n, out, st);
}

/* The ubershader kinds a context drew, remembered in its disk cache: the
 * next context starts their pipelines at creation; a damaged file is
 * ignored, then written anew. */
static void kinds(void)
{
    char dir[] = "/tmp/pvk_kinds_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    static uint8_t first[W * H * 4], second[W * H * 4], sync[W * H * 4];
    pvk_stats a, b, c, d, s;
    tev_run_in(1, dir, 0, 8, first, &a);
    CHECK_EQ(a.ubershader_prebuilds, 0); /* an empty directory */
    CHECK(a.ubershader_draws > 0);
    /* the same two kinds, with fog and without (the TEV state is the ubershader's data): their
     * pipelines started at creation */
    tev_run_in(1, dir, 8, 8, second, &b);
    CHECK_EQ(b.ubershader_prebuilds, 2);
    tev_run_in(-1, "", 8, 8, sync, &s);
    CHECK_EQ(differ(sync, second, sizeof sync), 0);
    printf("kinds: waits %llu with an empty cache, %llu with the kind built at creation\n",
           (unsigned long long)a.pipeline_waits, (unsigned long long)b.pipeline_waits);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "f=$(ls %s/ubershaders-*.bin) && printf 'X' | dd of=$f bs=1 seek=40 conv=notrunc 2>/dev/null",
             dir);
    CHECK_EQ(system(cmd), 0);
    tev_run_in(1, dir, 16, 8, second, &c);
    CHECK_EQ(c.ubershader_prebuilds, 0); /* damaged: ignored */
    tev_run_in(1, dir, 16, 8, second, &d);
    CHECK_EQ(d.ubershader_prebuilds, 2); /* written anew at the end of the last */
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_EQ(system(cmd), 0);
}

/* On a CPU device (lavapipe compiles a pipeline's shader variant at its
 * first draw, in its queue), once the host calls VBlank: one new pipeline's
 * first draw a frame, however many submissions the frame has, and with no
 * VBlank for 32 submissions one more; the other states, their pipelines
 * built, take the ubershader meanwhile.  The same bytes as without threads.
 * Elsewhere: one a submission.  held[]: ubershader draws in frames 0-3 (each
 * state once, a submission each), then of state 3 alone, with no VBlank,
 * right away and after 32 more submissions. */
static void paced_run(int threads, uint8_t *out, unsigned held[6])
{
    enum { N = 4 };
    pvk_config cfg = {.compile_threads = threads, .cache_dir = ""};
    /* the built-in vertex stage: each state's pipeline is queued at its first
     * draw (with the program on the GPU it waits for the program's module,
     * and when it is ready would depend on the machine's load) */
    ctx = th_context_debug(&cfg, "cpu-vs", 0);
    setup();
    upload_program(1);
    for (unsigned f = 0; f < 6; f++) {
        if (f < N)
            CHECK_EQ(pvk_vblank(ctx), PVK_SUCCESS);
        if (f == 5)
            for (unsigned k = 0; k < 32; k++) { /* state 0 again, taken long ago */
                tev_mode_state(40);
                draw_slot(0);
                CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
            }
        uint64_t before = stats().ubershader_draws;
        for (unsigned s = f < N ? 0 : N - 1; s < N; s++) { /* each in a submission of its own */
            tev_mode_state(40 + s);
            draw_slot(s);
            CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
        }
        held[f] = (unsigned)(stats().ubershader_draws - before);
        if (!f && threads >= 0)
            pvk_pipeline_jobs_finish(ctx); /* every state's own pipeline built, none drawn yet */
    }
    copy_out(out, FB);
    th_release(ctx);
}

static void pacing(void)
{
    static uint8_t paced[W * H * 4], sync[W * H * 4];
    unsigned held[6], none[6];
    paced_run(1, paced, held);
    paced_run(-1, sync, none);
    CHECK_EQ(differ(sync, paced, sizeof sync), 0);
    pvk_config cfg = {.compile_threads = -1, .cache_dir = ""};
    ctx = th_context(&cfg, 0);
    bool cpu = ctx->gpu.props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    th_release(ctx);
    printf("pacing: %s device, ubershader draws: frames 0-3 %u %u %u %u, then without VBlank %u, "
           "32 submissions later %u\n", cpu ? "a CPU" : "not a CPU", held[0], held[1], held[2], held[3], held[4],
           held[5]);
    CHECK_EQ(held[0], 4); /* their pipelines being built */
    static const unsigned want[6] = {4, 3, 2, 1, 1, 0}; /* built: one more taken each frame */
    for (unsigned f = 1; f < 6; f++) {
        CHECK_EQ(none[f], 0);
        CHECK_EQ(held[f], cpu ? want[f] : 0);
    }
}

/* On a CPU device, a new vertex program's first draw on the GPU path would
 * cost the driver its vertex compile and a fragment variant in one frame:
 * the program is drawn first by a warm-up (every triangle culled: nothing
 * drawn) in a frame of its own, the state's own pipeline in a later frame,
 * and a second state of the program needs no warm-up.  Each frame draws the
 * two states of two programs in turn until both take the GPU path; the
 * bytes are those of a context without threads.  warm[]: the frame of each
 * program's warm-up, gpu[] of its first draw on the GPU path (-1: none). */
static void warm_run(int threads, uint8_t *out, int warm[2], int gpu[2], pvk_stats *st)
{
    pvk_config cfg = {.compile_threads = threads, .cache_dir = ""};
    ctx = th_context(&cfg, 0);
    setup();
    warm[0] = warm[1] = gpu[0] = gpu[1] = -1;
    int f = 0;
    for (; f < 2000 && (gpu[0] < 0 || gpu[1] < 0); f++) {
        CHECK_EQ(pvk_vblank(ctx), PVK_SUCCESS);
        for (unsigned p = 0; p < 2; p++) {
            upload_program(p + 1);
            for (unsigned s = 0; s < 2; s++) { /* a second state of the program: no warm-up of its own */
                uint64_t warm0 = stats().vs_warm_ups, v0 = ctx->pica.counters.gpu_vertices;
                tev_mode_state(60 + 2 * p + s);
                draw_slot(2 * p + s);
                if (stats().vs_warm_ups != warm0) {
                    CHECK_EQ(warm[p], -1);
                    warm[p] = f;
                }
                if (ctx->pica.counters.gpu_vertices != v0 && gpu[p] < 0)
                    gpu[p] = f;
            }
        }
        CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
        nanosleep(&(struct timespec){0, 2000000}, NULL);
    }
    copy_out(out, FB);
    *st = stats();
    th_release(ctx);
}

static void warm_up(void)
{
    static uint8_t paced[W * H * 4], sync[W * H * 4];
    int warm[2], gpu[2], swarm[2], sgpu[2];
    pvk_stats a, b;
    warm_run(1, paced, warm, gpu, &a);
    warm_run(-1, sync, swarm, sgpu, &b);
    CHECK_EQ(differ(sync, paced, sizeof sync), 0);
    pvk_config cfg = {.compile_threads = -1, .cache_dir = ""};
    ctx = th_context(&cfg, 0);
    bool cpu = ctx->gpu.props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    th_release(ctx);
    printf("warm-up: program 1 warmed in frame %d, on the GPU path from frame %d; program 2: %d, %d\n", warm[0],
           gpu[0], warm[1], gpu[1]);
    CHECK_EQ(b.vs_warm_ups, 0); /* without threads nothing is held */
    CHECK_EQ(sgpu[0], 0);
    CHECK(gpu[0] >= 0 && gpu[1] >= 0);
    if (!cpu) {
        CHECK_EQ(a.vs_warm_ups, 0);
        return;
    }
    CHECK_EQ(a.vs_warm_ups, 2); /* once a program, not once a state */
    for (int p = 0; p < 2; p++)
        CHECK(warm[p] >= 0 && warm[p] < gpu[p]);
    CHECK(warm[0] != warm[1] && warm[0] != gpu[1] && warm[1] != gpu[0]); /* one first draw a frame */
}

int main(void)
{
    unsetenv("PVK_COMPILE_THREADS"); /* the contexts here say what they want */
    static uint8_t sync[W * H * 4], bg[W * H * 4];
    pvk_stats s, b;
    run(-1, sync, &s);
    CHECK_EQ(s.background_builds, 0);
    CHECK_EQ(s.cpu_vs_while_building, 0);
    run(2, bg, &b);
    CHECK(b.background_builds >= PROGRAMS);
    CHECK_EQ(differ(sync, bg, sizeof sync), 0);
    /* not a blank picture: every program's triangle is in it */
    uint32_t drawn = 0;
    for (uint32_t i = 0; i < W * H; i++)
        drawn += sync[4 * i + 2] != 0x40;
    CHECK(drawn > W * H / 8);

    /* new TEV states, a third of them fogged: the ubershader while their
     * own pipelines are built; only the first of each kind waits, for the
     * ubershader's pipeline (two kinds, with fog and without: the TEV state
     * is their data) */
    const unsigned states = 24;
    tev_run(2, states, bg, &b);
    CHECK(b.ubershader_draws > 0);
    CHECK_EQ(b.pipeline_waits, 2);
    tev_run(-1, states, sync, &s);
    CHECK_EQ(s.ubershader_draws, 0);
    CHECK_EQ(differ(sync, bg, sizeof sync), 0);
    printf("TEV states: %u drawn, %llu on the ubershader, %llu waits\n", states,
           (unsigned long long)b.ubershader_draws, (unsigned long long)b.pipeline_waits);
    kinds();
    pacing();
    warm_up();

    /* destroyed with builds queued and running: the queued are dropped, the running finish, nothing leaks */
    pvk_config cfg = {.compile_threads = 1, .cache_dir = ""};
    ctx = th_context(&cfg, 0);
    setup();
    round_of_draws();
    th_release(ctx);
    CHECK_EQ(th_log_errors, 0);
    (void)clear_fb, (void)draw_arrays, (void)tiled_index, (void)setup_target_d24s8;
    return th_finish("test_compile");
}
