/* Soak driver (scripts/soak.sh): a hostile host's random mix of memory fills,
 * texture copies, draws, host writes, flushes, VBlanks and teardowns with
 * work in flight, for a given time.  Two 1 MiB windows (VRAM and FCRAM) have
 * a CPU model of their contents: fills, copies between them and host writes
 * are applied to the model too, and each flush of a window must return what
 * the model holds, so lost or misplaced data fails the run.  Draws go to their
 * own render target; copies of it into a window make those model bytes
 * unknown until written again.  Prints resident memory every few seconds and
 * every call slower than the limit; exits 1 on a logged error, a validation
 * message, a context that is not usable, a model mismatch or a slow call.
 *
 *   soak SECONDS [SEED]      (PVK_DEBUG=no-host-import for mirrored memory,
 *                             SOAK_VERBOSE=1 to list every operation,
 *                             SOAK_SLOW_MS=N for the slow-call limit, 2000) */
#include <stdbool.h>
#include <time.h>

#include "draw_common.h"

/* draw_common.h helpers this driver does not use */
static void (*const unused_helpers[])(void) = {clear_fb};
static uint32_t (*const unused_index)(uint32_t, uint32_t) = tiled_index;
static void (*const unused_draw)(uint32_t, uint32_t) = draw_arrays;

#define DB 0x18100000u /* depth buffer of the render target */
#define WIN_SIZE 0x100000u
static double slow_ms = 2000; /* SOAK_SLOW_MS; far above any single operation here on lavapipe */

typedef struct window {
    uint32_t base;
    uint8_t model[WIN_SIZE];
    uint8_t known[WIN_SIZE]; /* 0 after a copy from the render target */
} window;

static window win[2] = {{.base = 0x18400000u}, {.base = 0x20400000u}};
static uint64_t ops, mismatches, slow_calls, contexts;
static uint64_t draws, fills, copies; /* over all contexts */
static double worst_ms;
static const char *worst_op = "";

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static double resident_mib(void)
{
    long pages = 0, rss = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
            rss = 0;
        fclose(f);
    }
    return rss * 4096.0 / (1 << 20);
}

/* Every operation is timed: a call that blocks is a finding too. */
static double op_start;
static int verbose; /* SOAK_VERBOSE=1: every operation on stderr */
static void begin(void) { op_start = now_ms(); }

#define NOTE(...)                                                \
    do {                                                         \
        if (verbose) {                                           \
            fprintf(stderr, "op %llu: ", (unsigned long long)ops); \
            fprintf(stderr, __VA_ARGS__);                        \
            fputc('\n', stderr);                                 \
        }                                                        \
    } while (0)
static void end(const char *what)
{
    double ms = now_ms() - op_start;
    if (ms > worst_ms) {
        worst_ms = ms;
        worst_op = what;
    }
    if (ms > slow_ms) {
        slow_calls++;
        fprintf(stderr, "soak: slow call: %s took %.0f ms (op %llu)\n", what, ms, (unsigned long long)ops);
    }
}

static void setup_target(void)
{
    upload_shader();
    setup_attribs();
    merger_replace();
    setup_target_d24s8(DB);
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, 1u | (4u << 4) | (0xFu << 8) | (1u << 12)); /* less, RGBA and depth writes */
    /* the top LCD scans out the render target */
    ext(0x45C, (240u << 16) | 400);
    ext(0x468, FB);
    ext(0x470, 0);
    ext(0x490, W * 4);
    ext(0x474, 1);
}

/* The host's view of a window starts as the model. */
static void new_context(void)
{
    int mirror = getenv("PVK_DEBUG") && strstr(getenv("PVK_DEBUG"), "no-host-import");
    ctx = th_context(NULL, mirror);
    contexts++;
    for (int w = 0; w < 2; w++) {
        memcpy(pvk_guest_ptr(ctx, win[w].base, WIN_SIZE), win[w].model, WIN_SIZE);
        pvk_guest_written(ctx, win[w].base, WIN_SIZE);
    }
    setup_target();
}

/* A 16-byte aligned range inside window w: [*off, *off + *len). */
static void pick(uint32_t *off, uint32_t *len, uint32_t max)
{
    *len = th_rand_range(1, max / 16) * 16;
    *off = th_rand_range(0, (WIN_SIZE - *len) / 16) * 16;
}

static void op_fill(void)
{
    window *w = &win[th_rand() & 1];
    uint32_t off, len, value = th_rand(), unit = th_rand() & 1;
    pick(&off, &len, th_rand() & 1 ? 4096 : WIN_SIZE / 4);
    begin();
    ext(0x10 + 0x10 * unit, (w->base + off) >> 3);
    ext(0x14 + 0x10 * unit, (w->base + off + len) >> 3);
    ext(0x18 + 0x10 * unit, value);
    ext(0x1C + 0x10 * unit, 0x201); /* 32-bit, start */
    end("memory fill");
    NOTE("fill unit %u 0x%08X+0x%X = 0x%08X", unit, w->base + off, len, value);
    for (uint32_t i = 0; i < len; i++)
        w->model[off + i] = (uint8_t)(value >> (i % 4 * 8));
    memset(w->known + off, 1, len);
}

/* A contiguous texture copy (flags bit 3, no gaps): memmove semantics. */
static void texture_copy(uint32_t src, uint32_t dst, uint32_t len)
{
    begin();
    ext(0xC00, src >> 3);
    ext(0xC04, dst >> 3);
    ext(0xC20, len);
    ext(0xC24, 0);
    ext(0xC28, 0);
    ext(0xC10, 8);
    ext(0xC18, 1);
    end("texture copy");
}

static void op_copy(void)
{
    window *s = &win[th_rand() & 1], *d = &win[th_rand() & 1];
    uint32_t soff, len, doff;
    pick(&soff, &len, th_rand() & 1 ? 4096 : WIN_SIZE / 4);
    doff = th_rand_range(0, (WIN_SIZE - len) / 16) * 16;
    texture_copy(s->base + soff, d->base + doff, len);
    NOTE("copy 0x%08X -> 0x%08X, 0x%X bytes", s->base + soff, d->base + doff, len);
    memmove(d->model + doff, s->model + soff, len);
    memmove(d->known + doff, s->known + soff, len);
}

/* The render target into a window: bytes the model cannot predict. */
static void op_copy_target(void)
{
    window *d = &win[th_rand() & 1];
    uint32_t len = th_rand_range(1, W * H * 4 / 16) * 16, doff = th_rand_range(0, (WIN_SIZE - len) / 16) * 16;
    texture_copy(FB, d->base + doff, len);
    NOTE("copy render target -> 0x%08X, 0x%X bytes", d->base + doff, len);
    memset(d->known + doff, 0, len);
}

/* A texture copy with gaps whose output span covers the whole render target
 * after a draw of one known colour over all of it: the copy's lines take the
 * window's bytes, its gaps keep the drawn colour (they must not revert to
 * what memory held before the draw). */
static void op_gap_copy_target(void)
{
    window *s = &win[th_rand() & 1];
    uint8_t rgba[4];
    for (int c = 0; c < 4; c++)
        rgba[c] = (uint8_t)th_rand();
    uint32_t out_w = th_rand_range(1, 8) * 16, out_gap = th_rand_range(1, 8) * 16, period = out_w + out_gap;
    uint32_t size = ((W * H * 4 + period - 1) / period + th_rand_range(0, 2)) * out_w;
    size = size < 192 ? 192 : size;
    uint32_t soff = th_rand_range(0, (WIN_SIZE - size) / 16) * 16;
    begin();
    static const float pos[3][2] = {{-1, -1}, {3, -1}, {-1, 3}};
    float *v = pvk_guest_ptr(ctx, VB, 3 * 32);
    for (int i = 0; i < 3; i++) {
        v[i * 8 + 0] = pos[i][0], v[i * 8 + 1] = pos[i][1], v[i * 8 + 2] = -0.5f, v[i * 8 + 3] = 1.0f;
        for (int c = 0; c < 4; c++)
            v[i * 8 + 4 + c] = rgba[c] / 255.0f;
    }
    pvk_guest_written(ctx, VB, 3 * 32);
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, 1u | (1u << 4) | (0xFu << 8) | (1u << 12)); /* always */
    reg(PVK_GPUREG_PRIMITIVE_CONFIG, 1);
    reg(PVK_GPUREG_NUMVERTICES, 3);
    reg(PVK_GPUREG_VERTEX_OFFSET, 0);
    reg(PVK_GPUREG_DRAWARRAYS, 1);
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, 1u | (4u << 4) | (0xFu << 8) | (1u << 12)); /* back to less */
    ext(0xC00, (s->base + soff) >> 3);
    ext(0xC04, FB >> 3);
    ext(0xC20, size);
    ext(0xC24, 0);
    ext(0xC28, (out_gap / 16) << 16 | out_w / 16);
    ext(0xC10, 0xC); /* texture copy with gaps */
    ext(0xC18, 1);
    CHECK_EQ(pvk_guest_flush(ctx, FB, W * H * 4), PVK_SUCCESS);
    end("texture copy with gaps over the render target");
    NOTE("gap copy 0x%08X+0x%X -> render target, lines %u gaps %u", s->base + soff, size, out_w, out_gap);
    const uint8_t *p = pvk_guest_ptr(ctx, FB, W * H * 4);
    for (uint32_t i = 0; i < W * H * 4; i++) {
        uint32_t line = i / period, in = i % period, from = line * out_w + in;
        bool copied = in < out_w && from < size;
        if (copied && !s->known[soff + from])
            continue;
        uint8_t want = copied ? s->model[soff + from] : rgba[3 - i % 4]; /* memory holds A, B, G, R */
        if (p[i] != want) {
            mismatches++;
            fprintf(stderr, "soak: op %llu: render target byte %u (%s) is 0x%02X, expected 0x%02X\n",
                    (unsigned long long)ops, i, copied ? "copied" : "in a gap", p[i], want);
            break;
        }
    }
}

static void op_host_write(void)
{
    window *w = &win[th_rand() & 1];
    uint32_t off = th_rand_range(0, WIN_SIZE - 1), len = th_rand_range(1, th_rand() & 1 ? 64 : 65536);
    if (len > WIN_SIZE - off)
        len = WIN_SIZE - off;
    begin();
    pvk_guest_flush(ctx, w->base + off, len); /* the contract: the GPU's writes first */
    uint8_t *p = pvk_guest_ptr(ctx, w->base + off, len);
    for (uint32_t i = 0; i < len; i++)
        w->model[off + i] = p[i] = (uint8_t)th_rand();
    pvk_guest_written(ctx, w->base + off, len);
    end("host write");
    NOTE("host write 0x%08X+0x%X", w->base + off, len);
    memset(w->known + off, 1, len);
}

static void op_draw(void)
{
    uint32_t tris = th_rand_range(1, 8);
    begin();
    float *v = pvk_guest_ptr(ctx, VB, tris * 3 * 32);
    for (uint32_t i = 0; i < tris * 3; i++) {
        v[i * 8 + 0] = (float)th_rand_range(0, 400) / 100.0f - 2.0f; /* partly off screen */
        v[i * 8 + 1] = (float)th_rand_range(0, 400) / 100.0f - 2.0f;
        v[i * 8 + 2] = -(float)th_rand_range(1, 1000) / 1001.0f;
        v[i * 8 + 3] = 1.0f;
        for (int c = 0; c < 4; c++)
            v[i * 8 + 4 + c] = (float)th_rand_range(0, 255) / 255.0f;
    }
    pvk_guest_written(ctx, VB, tris * 3 * 32);
    reg(PVK_GPUREG_PRIMITIVE_CONFIG, (th_rand_range(0, 2) << 8) | 1); /* list, strip, fan */
    reg(PVK_GPUREG_NUMVERTICES, tris * 3);
    reg(PVK_GPUREG_VERTEX_OFFSET, 0);
    reg(PVK_GPUREG_DRAWARRAYS, 1);
    if (th_rand() % 4 == 0)
        reg(PVK_GPUREG_FRAMEBUFFER_FLUSH, 1);
    end("draw");
    NOTE("draw %u triangles", tris);
}

static void op_host_write_target(void)
{
    begin();
    pvk_guest_flush(ctx, FB, W * H * 4);
    uint8_t *p = pvk_guest_ptr(ctx, FB, W * H * 4);
    uint32_t off = th_rand_range(0, W * H * 4 - 256);
    memset(p + off, (int)th_rand(), 256);
    pvk_guest_written(ctx, FB, W * H * 4);
    end("host write into the render target");
}

/* Flush a window and compare it with the model. */
static void op_verify(void)
{
    window *w = &win[th_rand() & 1];
    begin();
    CHECK_EQ(pvk_guest_flush(ctx, w->base, WIN_SIZE), PVK_SUCCESS);
    end("flush of a window");
    NOTE("verify 0x%08X", w->base);
    const uint8_t *p = pvk_guest_ptr(ctx, w->base, WIN_SIZE);
    for (uint32_t i = 0; i < WIN_SIZE; i++)
        if (w->known[i] && p[i] != w->model[i]) {
            mismatches++;
            fprintf(stderr, "soak: op %llu: guest byte 0x%08X is 0x%02X, the model says 0x%02X\n",
                    (unsigned long long)ops, w->base + i, p[i], w->model[i]);
            memcpy(w->model, p, WIN_SIZE); /* report each loss once */
            break;
        }
}

static void op_vblank(void)
{
    begin();
    CHECK_EQ(pvk_vblank(ctx), PVK_SUCCESS);
    if (th_rand() % 8 == 0) {
        static uint8_t rgba[400 * 240 * 4];
        CHECK_EQ(pvk_frame_read(ctx, PVK_SCREEN_TOP, rgba, 400 * 4), PVK_SUCCESS);
    }
    end("vblank");
}

/* Checks the context and adds its counters to the totals. */
static void count_stats(void)
{
    pvk_stats st;
    pvk_get_stats(ctx, &st);
    CHECK_EQ(st.validation_errors, 0);
    CHECK_EQ(pvk_context_status(ctx), PVK_SUCCESS);
    draws += st.draws;
    fills += st.fills;
    copies += st.texture_copies;
}

/* Destroy with work in flight; the windows' GPU results are lost with the
 * context, so the model takes what the host last saw after a flush. */
static void op_teardown(void)
{
    for (int w = 0; w < 2; w++)
        op_verify();
    count_stats();
    for (int w = 0; w < 2; w++) {
        pvk_guest_flush(ctx, win[w].base, WIN_SIZE);
        memcpy(win[w].model, pvk_guest_ptr(ctx, win[w].base, WIN_SIZE), WIN_SIZE);
        memset(win[w].known, 1, WIN_SIZE);
    }
    op_draw(); /* in flight at destruction */
    begin();
    pvk_context_destroy(ctx);
    end("context destroy");
    begin();
    new_context();
    end("context create");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: soak SECONDS [SEED]\n");
        return 2;
    }
    (void)unused_helpers, (void)unused_index, (void)unused_draw;
    double seconds = atof(argv[1]);
    verbose = getenv("SOAK_VERBOSE") != NULL;
    if (getenv("SOAK_SLOW_MS"))
        slow_ms = atof(getenv("SOAK_SLOW_MS"));
    th_rng = argc > 2 ? strtoull(argv[2], NULL, 0) | 1 : 0x9E3779B97F4A7C15ull;
    for (int w = 0; w < 2; w++)
        memset(win[w].known, 1, WIN_SIZE); /* guest memory starts zeroed, as the model */
    double t0 = now_ms(), next_report = 0;
    new_context();
    printf("soak: %.0f s, seed 0x%llX, %s guest memory\n", seconds, (unsigned long long)th_rng,
           getenv("PVK_DEBUG") && strstr(getenv("PVK_DEBUG"), "no-host-import") ? "mirrored" : "imported");
    for (;;) {
        double t = (now_ms() - t0) / 1e3;
        if (t >= next_report) {
            printf("soak: t=%5.0f s  ops=%8llu  contexts=%llu  resident=%7.1f MiB  slowest=%.0f ms (%s)\n", t,
                   (unsigned long long)ops, (unsigned long long)contexts, resident_mib(), worst_ms, worst_op);
            fflush(stdout);
            next_report += 10;
        }
        if (t >= seconds)
            break;
        uint32_t r = th_rand() % 10000;
        if (r < 2500)
            op_fill();
        else if (r < 4500)
            op_copy();
        else if (r < 5000)
            op_copy_target();
        else if (r < 6500)
            op_host_write();
        else if (r < 8500)
            op_draw();
        else if (r < 8650)
            op_host_write_target();
        else if (r < 8700)
            op_gap_copy_target();
        else if (r < 9600)
            op_verify();
        else if (r < 9998)
            op_vblank();
        else
            op_teardown(); /* one in 5000 */
        ops++;
        if (ops % 64 == 0) {
            begin();
            pvk_poll(ctx);
            end("poll");
        }
    }
    op_verify();
    op_verify();
    pvk_wait_idle(ctx);
    count_stats();
    th_release(ctx); /* checks validation messages and the status once more */
    printf("soak: %llu operations, %llu contexts, %llu draws, %llu fills, %llu texture copies; %llu mismatches, "
           "%llu slow calls, %d errors logged, %d failed checks; slowest call %.0f ms (%s); resident %.1f MiB\n",
           (unsigned long long)ops, (unsigned long long)contexts, (unsigned long long)draws,
           (unsigned long long)fills, (unsigned long long)copies, (unsigned long long)mismatches,
           (unsigned long long)slow_calls, th_log_errors, th_failures, worst_ms, worst_op, resident_mib());
    int bad = th_finish("soak") || mismatches || slow_calls || th_log_errors;
    printf("soak: %s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
