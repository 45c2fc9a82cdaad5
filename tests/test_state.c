/* Save states (pvk_state_save / pvk_state_load, docs/save-states.md).
 *
 * Exact: every scene script of tests/scenes runs once as written and once
 * with `state roundtrip` (save, scribble over guest memory and run a memory
 * fill, restore memory, load into the same context) at two random
 * top-level points; both pass their probes and end with the same frame hash
 * and guest memory.  A session of six frames (scenes run one after another
 * in one context, recorded as a trace) is saved as a random frame begins and
 * replayed from there by a new context (pvk_trace_replay_from): the later
 * frames' hashes equal the uninterrupted replay's, at 1x, at 4x, and from
 * 4x into 1x.  A display transfer's IRQ pending at the save is raised once,
 * in order, with a new context carrying on.  Every register reads the same
 * after a load into a new context, which saves the same bytes again.
 * Robust: truncated, bit-flipped, re-versioned and foreign states are
 * refused (PVK_ERROR_BAD_DATA), counted, and leave the context's state as
 * it was. */
#include <dirent.h>
#include <time.h>
#include <unistd.h>
#include <stdbool.h>

#include "harness.h"
#include "tools/tools.h"

/* ---- scenes ---- */

static uint64_t memory_hash(pvk_context *ctx, uint32_t base, uint32_t size)
{
    const uint8_t *p = pvk_guest_ptr(ctx, base, size);
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; p && i < size; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 1099511628211ull;
    }
    return h;
}

typedef struct outcome {
    pvk_result r;
    int failures;
    uint64_t frame, vram, fcram;
} outcome;

/* Every guest region and its size (an Old 3DS context). */
static const uint32_t regions[][2] = {{PVK_VRAM_BASE, PVK_VRAM_SIZE},
                                      {PVK_FCRAM_BASE, PVK_FCRAM_SIZE},
                                      {PVK_AXI_WRAM_BASE, PVK_AXI_WRAM_SIZE}};
/* What the scenes and `state roundtrip` touch of FCRAM (tools/scene.c) */
#define SCENE_FCRAM (16u << 20)

/* The scenes share one context (so that pipelines built for one run serve
 * the next): before each run it goes back to a fresh context's state, the
 * state saved right after its creation, with guest memory zeroed.  Scenes
 * that expect errors or unsupported uses counted (pvk_stats counts on)
 * get a context of their own. */
static pvk_context *shared;
static uint8_t *fresh_state;
static size_t fresh_len;

static outcome run_scene(const char *text, size_t len, const char *dir, bool quiet, bool own)
{
    pvk_context *ctx = own ? th_context(NULL, 0) : shared;
    outcome o = {0};
    if (!own) {
        pvk_wait_idle(ctx);
        for (int i = 0; i < 3; i++) {
            uint32_t n = regions[i][0] == PVK_FCRAM_BASE ? SCENE_FCRAM : regions[i][1];
            memset(pvk_guest_ptr(ctx, regions[i][0], n), 0, n);
            pvk_guest_written(ctx, regions[i][0], n);
        }
        CHECK_EQ(pvk_state_load(ctx, fresh_state, fresh_len), PVK_SUCCESS);
    }
    th_quiet_errors = quiet;
    o.r = pvk_scene_run_text(ctx, text, len, "scene", dir, &o.failures);
    th_quiet_errors = 0;
    if (pvk_frame_hash(ctx, &o.frame))
        o.frame = 0;
    o.vram = memory_hash(ctx, PVK_VRAM_BASE, PVK_VRAM_SIZE);
    o.fcram = memory_hash(ctx, PVK_FCRAM_BASE, SCENE_FCRAM);
    if (own)
        th_release(ctx);
    return o;
}

/* Offsets of the lines where a statement may go (not inside a command
 * list or a shader). */
static size_t top_level_lines(const char *text, size_t len, size_t *at, size_t max)
{
    size_t n = 0;
    int block = 0; /* 1 cmdlist, 2 shader */
    for (size_t pos = 0; pos < len;) {
        const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
        size_t ll = nl ? (size_t)(nl - line) : len - pos;
        while (ll && (*line == ' ' || *line == '\t'))
            line++, ll--;
        if (!block && n < max)
            at[n++] = pos;
        if (!block && ll >= 7 && !strncmp(line, "cmdlist", 7))
            block = 1;
        else if (!block && ll >= 6 && !strncmp(line, "shader", 6))
            block = 2;
        else if (block == 1 && ll >= 3 && !strncmp(line, "end", 3) &&
                 (ll == 3 || line[3] == ' ' || line[3] == '#' || line[3] == '\r'))
            block = 0;
        else if (block == 2 && ll >= 9 && !strncmp(line, "endshader", 9))
            block = 0;
        pos += (nl ? (size_t)(nl - (text + pos)) : len - pos) + 1;
    }
    return n;
}

static void scenes(void)
{
    shared = th_context(NULL, 0);
    CHECK_EQ(pvk_state_save(shared, NULL, 0, &fresh_len), PVK_SUCCESS);
    fresh_state = malloc(fresh_len);
    CHECK_EQ(pvk_state_save(shared, fresh_state, fresh_len, &fresh_len), PVK_SUCCESS);
    DIR *d = opendir(PVK_SCENE_DIR);
    CHECK(d != NULL);
    int ran = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t nl = strlen(e->d_name);
        if (nl < 5 || strcmp(e->d_name + nl - 4, ".pvs"))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", PVK_SCENE_DIR, e->d_name);
        char *text;
        size_t len;
        if (pvk_read_file(path, &text, &len)) {
            CHECK(!"scene unreadable");
            continue;
        }
        size_t at[4096];
        size_t lines = top_level_lines(text, len, at, 4096);
        /* two random points, in order (the second may equal the first) */
        size_t p1 = at[th_rand() % lines], p2 = at[th_rand() % lines];
        if (p2 < p1) {
            size_t t = p1;
            p1 = p2;
            p2 = t;
        }
        static const char rt[] = "state roundtrip\n";
        char *mixed = malloc(len + 2 * sizeof rt);
        size_t m = 0;
        memcpy(mixed + m, text, p1), m += p1;
        memcpy(mixed + m, rt, sizeof rt - 1), m += sizeof rt - 1;
        memcpy(mixed + m, text + p1, p2 - p1), m += p2 - p1;
        memcpy(mixed + m, rt, sizeof rt - 1), m += sizeof rt - 1;
        memcpy(mixed + m, text + p2, len - p2), m += len - p2;
        bool quiet = strstr(e->d_name, "bad") != NULL;
        bool own = false;
        for (const char *x = text; (x = strstr(x, "expect ")); x++)
            own |= (!strncmp(x, "expect errors ", 14) && x[14] != '0') ||
                   (!strncmp(x, "expect unsupported ", 19) && x[19] != '0');
        outcome a = run_scene(text, len, PVK_SCENE_DIR, quiet, own),
                b = run_scene(mixed, m, PVK_SCENE_DIR, quiet, own);
        printf("%s: round trips at bytes %zu and %zu: %s/%s, probe failures %d/%d, frame %016llx/%016llx\n",
               e->d_name, p1, p2, pvk_result_string(a.r), pvk_result_string(b.r), a.failures, b.failures,
               (unsigned long long)a.frame, (unsigned long long)b.frame);
        CHECK_EQ(a.r, PVK_SUCCESS);
        CHECK_EQ(b.r, PVK_SUCCESS);
        CHECK_EQ(b.failures, 0);
        CHECK_EQ(b.frame, a.frame);
        CHECK_EQ(b.vram, a.vram);
        CHECK_EQ(b.fcram, a.fcram);
        free(mixed);
        free(text);
        ran++;
    }
    if (d)
        closedir(d);
    CHECK(ran >= 20);
    th_release(shared);
    free(fresh_state);
}

/* ---- traces ---- */

#define MAX_FRAMES 64

typedef struct replay {
    uint64_t hash[MAX_FRAMES];
    uint32_t frames;
    uint32_t save_at;   /* save as this frame begins (after save_at VBlanks) */
    uint8_t *state;
    size_t state_len;
} replay;

static pvk_result on_frame(void *user, pvk_context *ctx, uint32_t frame)
{
    replay *rp = user;
    if (frame < MAX_FRAMES && pvk_frame_hash(ctx, &rp->hash[frame]))
        return PVK_ERROR_VULKAN;
    rp->frames = frame + 1;
    if (frame + 1 == rp->save_at) {
        size_t n = 0;
        pvk_result r = pvk_state_save(ctx, NULL, 0, &n);
        if (r || !(rp->state = malloc(n)))
            return r ? r : PVK_ERROR_OUT_OF_MEMORY;
        rp->state_len = n;
        return pvk_state_save(ctx, rp->state, n, &rp->state_len);
    }
    return PVK_SUCCESS;
}

static void replay_run(const char *path, uint32_t scale, replay *rp, uint32_t from, const replay *load)
{
    pvk_config cfg = {.scale = scale};
    pvk_context *ctx = th_context(&cfg, 0);
    pvk_result r = load ? pvk_trace_replay_from(ctx, path, from, load->state, load->state_len, on_frame, rp)
                        : pvk_trace_replay(ctx, path, on_frame, rp);
    CHECK_EQ(r, PVK_SUCCESS);
    th_release(ctx);
}

/* A program's session of several frames: scenes of tests/scenes run one
 * after another in one context (each leaves its state to the next, as the
 * parts of a program do), a frame each, recorded as a trace. */
static const char *session_scenes[] = {"citro3d_frame.pvs", "citro3d_rtt_frame.pvs", "stencil_mask.pvs",
                                       "scale_showcase.pvs", "citro3d_frame.pvs", "fill_lcd.pvs"};
enum { SESSION_FRAMES = sizeof session_scenes / sizeof session_scenes[0] };

static void record_session(const char *path)
{
    pvk_context *ctx = th_context(NULL, 0);
    CHECK_EQ(pvk_trace_begin(ctx, path), PVK_SUCCESS);
    for (int i = 0; i < SESSION_FRAMES; i++) {
        char scene_path[4096];
        snprintf(scene_path, sizeof scene_path, "%s/%s", PVK_SCENE_DIR, session_scenes[i]);
        int failures = -1; /* the probes expect a fresh context: not checked here */
        CHECK_EQ(pvk_scene_run_file(ctx, scene_path, &failures), PVK_SUCCESS);
    }
    CHECK_EQ(pvk_trace_end(ctx), PVK_SUCCESS);
    th_release(ctx);
}

static void traces(void)
{
    char path[] = "/tmp/test_state_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    record_session(path);
    uint32_t frames = 0;
    CHECK_EQ(pvk_trace_frames(path, &frames), PVK_SUCCESS);
    CHECK_EQ(frames, SESSION_FRAMES);
    replay ref1 = {0};
    replay_run(path, 1, &ref1, 0, NULL);
    CHECK_EQ(ref1.frames, frames);
    for (uint32_t scale = 1; scale <= 4; scale += 3) {
        replay ref = ref1;
        if (scale != 1)
            replay_run(path, scale, &ref, 0, NULL);
        /* saved as a random frame begins, past the first */
        replay saver = {.save_at = th_rand_range(1, frames - 1)};
        replay_run(path, scale, &saver, 0, NULL);
        CHECK(saver.state != NULL);
        /* saving changed nothing in the run that saved */
        CHECK(memcmp(saver.hash, ref.hash, sizeof ref.hash) == 0);
        /* a new context at the same scale, and at 1x from 4x */
        for (uint32_t to = scale; saver.state && to >= 1; to = to == 1 ? 0 : 1) {
            replay loaded = {0};
            replay_run(path, to, &loaded, saver.save_at, &saver);
            CHECK_EQ(loaded.frames, frames);
            const replay *want = to == 1 ? &ref1 : &ref;
            uint32_t equal = 0;
            for (uint32_t f = saver.save_at; f < frames; f++)
                equal += loaded.hash[f] == want->hash[f];
            printf("session of %u frames: saved at %ux as frame %u began (%zu bytes), loaded at %ux: %u of %u "
                   "later frames equal\n",
                   frames, scale, saver.save_at, saver.state_len, to, equal, frames - saver.save_at);
            CHECK_EQ(equal, frames - saver.save_at);
        }
        free(saver.state);
    }
    unlink(path);
}

/* ---- a display transfer's IRQ pending at the save ---- */

typedef struct irq_log {
    int n;
    pvk_irq seq[64];
} irq_log;

static void on_irq(void *user, pvk_context *ctx, pvk_irq which)
{
    (void)ctx;
    irq_log *l = user;
    if (l->n < 64)
        l->seq[l->n++] = which;
}

/* Part one ends with a display transfer started and not waited for: its
 * IRQ is still to come. */
static const char irq_part1[] =
    "mmio GPU_PDC0_IMAGE_SIZE = 0x019000F0\n"
    "mmio GPU_PDC0_FB_A_ADDR0 = 0x18300000\n"
    "mmio GPU_PDC0_FB_STRIDE = 960\n"
    "mmio GPU_PDC0_CONTROL = 1\n"
    "mmio GPU_MEMFILL_DST_ADDR0 = 0x03000000\n"
    "mmio GPU_MEMFILL_DST_END0 = 0x0300BB80\n"
    "mmio GPU_MEMFILL_DATA0 = 0xFF8040FF\n"
    "mmio GPU_MEMFILL_CNT0 = 0x201\n"
    "wait\n"
    /* display transfer: the filled buffer to the framebuffer */
    "mmio GPU_MEMCOPY_SRC_ADDR = 0x03000000\n"
    "mmio GPU_MEMCOPY_DST_ADDR = 0x03060000\n"
    "mmio GPU_MEMCOPY_DISPLAY_IN_SIZE = 0x019000F0\n"
    "mmio GPU_MEMCOPY_DISPLAY_OUT_SIZE = 0x019000F0\n"
    "mmio GPU_MEMCOPY_FLAGS = 0x00000001\n"
    "mmio GPU_MEMCOPY_CNT = 1\n";
static const char irq_part2[] = "vblank\n"
                                "wait\n"
                                "probe reg GPU_MEMCOPY_CNT = 0x100\n"
                                "probe top 0 0 rgba(255,128,64,255)\n";

static pvk_result run_text(pvk_context *ctx, const char *text)
{
    int failures = -1;
    pvk_result r = pvk_scene_run_text(ctx, text, strlen(text), "pending_irq", NULL, &failures);
    CHECK_EQ(failures, 0);
    return r;
}

/* Between the two parts: saved, a new context, guest memory carried over as
 * a host's save state carries it (saved after pvk_state_save, restored
 * before pvk_state_load), loaded. */
static pvk_context *carry_over(pvk_context *from, pvk_config *cfg)
{
    size_t n = 0;
    CHECK_EQ(pvk_state_save(from, NULL, 0, &n), PVK_SUCCESS);
    uint8_t *st = malloc(n);
    CHECK_EQ(pvk_state_save(from, st, n, &n), PVK_SUCCESS);
    pvk_context *to = th_context(cfg, 0);
    for (int i = 0; i < 3; i++) {
        memcpy(pvk_guest_ptr(to, regions[i][0], regions[i][1]), pvk_guest_ptr(from, regions[i][0], regions[i][1]),
               regions[i][1]);
        CHECK_EQ(pvk_guest_written(to, regions[i][0], regions[i][1]), PVK_SUCCESS);
    }
    CHECK_EQ(pvk_state_load(to, st, n), PVK_SUCCESS);
    free(st);
    th_release(from);
    return to;
}

static void pending_irq(void)
{
    irq_log plain = {0}, carried = {0};
    uint64_t frame[2] = {0};
    for (int k = 0; k < 2; k++) {
        irq_log *l = k ? &carried : &plain;
        pvk_config cfg = {.irq = on_irq, .irq_user = l};
        pvk_context *ctx = th_context(&cfg, 0);
        CHECK_EQ(run_text(ctx, irq_part1), PVK_SUCCESS);
        if (k)
            ctx = carry_over(ctx, &cfg);
        CHECK_EQ(run_text(ctx, irq_part2), PVK_SUCCESS);
        CHECK_EQ(pvk_frame_hash(ctx, &frame[k]), PVK_SUCCESS);
        th_release(ctx);
    }
    CHECK_EQ(carried.n, plain.n);
    CHECK(memcmp(carried.seq, plain.seq, sizeof plain.seq) == 0);
    int ppf = 0;
    for (int i = 0; i < plain.n; i++)
        ppf += plain.seq[i] == PVK_IRQ_PPF;
    CHECK_EQ(ppf, 1);
    CHECK_EQ(frame[1], frame[0]);
}

/* ---- the register files, field by field, into a new context ---- */

static void registers(void)
{
    pvk_context *a = th_context(NULL, 0);
    /* every writable external register, and internal state through a command list of register writes */
    for (uint32_t off = 0; off < 0x1000; off += 4) {
        const char *name = pvk_register_name(0x10400000 + off);
        if (!name || strstr(name, "CNT") || strstr(name, "LUT_DATA"))
            continue; /* starters and data ports: they act */
        pvk_mmio_write32(a, 0x10400000 + off, th_rand());
    }
    for (uint32_t id = 0x40; id < 0x60; id++) /* rasterizer registers */
        pvk_mmio_write32(a, 0x10401000 + 4 * id, th_rand());
    size_t n = 0;
    CHECK_EQ(pvk_state_save(a, NULL, 0, &n), PVK_SUCCESS);
    uint8_t *st = malloc(n);
    CHECK_EQ(pvk_state_save(a, st, n, &n), PVK_SUCCESS);
    pvk_context *b = th_context(NULL, 0);
    CHECK_EQ(pvk_state_load(b, st, n), PVK_SUCCESS);
    int differ = 0;
    for (uint32_t off = 0; off < 0x2000; off += 4) {
        uint32_t va = 0, vb = 0;
        if (pvk_register_name(0x10400000 + off) || off >= 0x1000) {
            pvk_mmio_read32(a, 0x10400000 + off, &va);
            pvk_mmio_read32(b, 0x10400000 + off, &vb);
            if (va != vb && differ++ < 8)
                fprintf(stderr, "register 0x%08X: 0x%08X saved, 0x%08X loaded\n", 0x10400000 + off, va, vb);
        }
    }
    CHECK_EQ(differ, 0);
    /* the loaded context saves the same bytes as the one that saved (both
     * after the reads above: reading a LUT data port moves its index) */
    uint8_t *again = malloc(n);
    size_t m = 0;
    CHECK_EQ(pvk_state_save(a, st, n, &m), PVK_SUCCESS);
    CHECK_EQ(pvk_state_save(b, again, n, &m), PVK_SUCCESS);
    CHECK_EQ(m, n);
    for (size_t i = 0, shown = 0; i < n && shown < 4; i += 4)
        if (memcmp(again + i, st + i, 4) && ++shown)
            fprintf(stderr, "state byte %zu: %08X saved, %08X after a load\n", i, *(uint32_t *)(st + i),
                    *(uint32_t *)(again + i));
    CHECK(memcmp(again, st, n) == 0);
    free(again);
    free(st);
    th_release(b);
    th_release(a);
}

/* ---- refusals ---- */

static void refusals(void)
{
    pvk_context *ctx = th_context(NULL, 0);
    int failures = -1;
    char text[4096];
    snprintf(text, sizeof text, "%s%s", irq_part1, irq_part2);
    CHECK_EQ(pvk_scene_run_text(ctx, text, strlen(text), "refusals", NULL, &failures), PVK_SUCCESS);
    size_t n = 0;
    CHECK_EQ(pvk_state_save(ctx, NULL, 0, &n), PVK_SUCCESS);
    CHECK(n > 32 && n < 256 * 1024);
    uint8_t *st = malloc(n), *bad = malloc(n + 8), *now = malloc(n);
    size_t got = 0;
    th_quiet_errors = 1;
    CHECK_EQ(pvk_state_save(ctx, st, n - 1, &got), PVK_ERROR_INVALID_ARGUMENT);
    CHECK_EQ(pvk_state_save(ctx, NULL, 0, NULL), PVK_ERROR_INVALID_ARGUMENT);
    CHECK_EQ(pvk_state_save(ctx, st, n, &got), PVK_SUCCESS);
    CHECK_EQ(got, n);
    pvk_stats before;
    pvk_get_stats(ctx, &before);
    int refused = 0, cases = 0;
    /* truncated at every multiple of 4 and a few odd lengths, one byte too many */
    for (size_t len = 0; len < n; len += len < 64 ? 1 : 97) {
        cases++;
        refused += pvk_state_load(ctx, st, len) == PVK_ERROR_BAD_DATA;
    }
    memcpy(bad, st, n);
    bad[n] = 0;
    cases++;
    refused += pvk_state_load(ctx, bad, n + 1) == PVK_ERROR_BAD_DATA;
    /* one bit flipped anywhere (header fields, checksum, sections) */
    for (int k = 0; k < 200; k++) {
        memcpy(bad, st, n);
        size_t at = k < 32 ? (size_t)k : th_rand() % n;
        bad[at] ^= (uint8_t)(1u << (th_rand() % 8));
        cases++;
        refused += pvk_state_load(ctx, bad, n) == PVK_ERROR_BAD_DATA;
    }
    /* another version, another model: refused with a reason even with a
     * valid checksum (the checksum covers the body, not the header) */
    memcpy(bad, st, n);
    bad[8] = 2;
    cases++;
    refused += pvk_state_load(ctx, bad, n) == PVK_ERROR_BAD_DATA;
    CHECK(strstr(th_last_error, "version 2") != NULL);
    memcpy(bad, st, n);
    bad[12] = 1;
    cases++;
    refused += pvk_state_load(ctx, bad, n) == PVK_ERROR_BAD_DATA;
    CHECK(strstr(th_last_error, "New 3DS") != NULL);
    CHECK_EQ(pvk_state_load(ctx, NULL, 4), PVK_ERROR_INVALID_ARGUMENT);
    th_quiet_errors = 0;
    CHECK_EQ(refused, cases);
    pvk_stats after;
    pvk_get_stats(ctx, &after);
    CHECK_EQ(after.bad_input - before.bad_input, (uint64_t)cases);
    CHECK_EQ(after.state_loads, before.state_loads);
    /* unchanged: the same bytes saved again, and it still works */
    CHECK_EQ(pvk_state_save(ctx, now, n, &got), PVK_SUCCESS);
    CHECK(memcmp(now, st, n) == 0);
    CHECK_EQ(pvk_state_load(ctx, st, n), PVK_SUCCESS);
    CHECK_EQ(pvk_scene_run_text(ctx, text, strlen(text), "refusals", NULL, &failures), PVK_SUCCESS);
    CHECK_EQ(failures, 0);
    free(st);
    free(bad);
    free(now);
    th_release(ctx);
}

int main(void)
{
    static const struct {
        const char *name;
        void (*fn)(void);
    } parts[] = {{"refusals", refusals}, {"registers", registers}, {"pending_irq", pending_irq},
                 {"traces", traces},     {"scenes", scenes}};
    const char *only = getenv("TEST_STATE_ONLY");
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        if (only && strcmp(only, parts[i].name))
            continue;
        double t = th_now();
        parts[i].fn();
        printf("-- %s: %.1f s\n", parts[i].name, th_now() - t);
    }
    return th_finish("test_state");
}
