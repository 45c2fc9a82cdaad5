/* Traces: a recorded session replays to the same frames and guest memory;
 * corrupt, truncated and hostile files are refused without a crash. */
#include <zstd.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "tools/tools.h"
#include "translator/translator.h"

#define TRACE "test_trace.pvt"
#define FRAMES 4

static void wr(pvk_context *ctx, uint32_t off, uint32_t v)
{
    CHECK_EQ(pvk_mmio_write32(ctx, 0x10400000u + off, v), PVK_SUCCESS);
}

static uint64_t hashes[2][FRAMES];

/* One 3DS "frame" of work: the host draws a gradient into FCRAM, a display
 * transfer tiles it into VRAM and back, fills clear part of the bottom
 * framebuffer, and the LCD shows both. */
static void session_frame(pvk_context *ctx, int frame)
{
    uint8_t *src = pvk_guest_ptr(ctx, 0x20100000, 240 * 400 * 4);
    for (uint32_t i = 0; i < 240 * 400; i++) {
        uint32_t v = (i * 7u + (uint32_t)frame * 1234567u) | 0xFF;
        memcpy(src + i * 4, &v, 4);
    }
    pvk_guest_written(ctx, 0x20100000, 240 * 400 * 4);
    /* linear -> tiled into VRAM, then tiled -> linear into the top framebuffer */
    wr(ctx, 0xC00, 0x20100000 >> 3);
    wr(ctx, 0xC04, 0x18200000 >> 3);
    wr(ctx, 0xC08, (400u << 16) | 240);
    wr(ctx, 0xC0C, (400u << 16) | 240);
    wr(ctx, 0xC10, 2);
    wr(ctx, 0xC18, 1);
    wr(ctx, 0xC00, 0x18200000 >> 3);
    wr(ctx, 0xC04, 0x18000000 >> 3);
    wr(ctx, 0xC10, (uint32_t)(frame & 1)); /* flip every other frame */
    wr(ctx, 0xC18, 1);
    wr(ctx, 0x010, 0x18100000 >> 3);
    wr(ctx, 0x014, (0x18100000 + 240 * 4 * (uint32_t)(80 + 40 * frame)) >> 3);
    wr(ctx, 0x018, 0x00FF00FFu + (uint32_t)frame);
    wr(ctx, 0x01C, 0x201);
    CHECK_EQ(pvk_vblank(ctx), PVK_SUCCESS);
}

static void setup_lcd(pvk_context *ctx)
{
    for (uint32_t s = 0; s < 2; s++) {
        uint32_t b = 0x400 + 0x100 * s;
        wr(ctx, b + 0x5C, ((s ? 320u : 400u) << 16) | 240);
        wr(ctx, b + 0x68, s ? 0x18100000 : 0x18000000);
        wr(ctx, b + 0x70, 0);
        wr(ctx, b + 0x90, 240 * 4);
        wr(ctx, b + 0x74, 1);
    }
}

static pvk_result record_hash(void *user, pvk_context *ctx, uint32_t frame)
{
    (void)user;
    if (frame < FRAMES)
        CHECK_EQ(pvk_frame_hash(ctx, &hashes[1][frame]), PVK_SUCCESS);
    return PVK_SUCCESS;
}

static uint8_t *file_bytes(const char *path, size_t *n)
{
    *n = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(*n ? *n : 1);
    if (fread(b, 1, *n, f) != *n)
        *n = 0;
    fclose(f);
    return b;
}

static void write_file(const char *path, const void *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    fwrite(b, 1, n, f);
    fclose(f);
}

/* A hand-made trace: header + zstd of `records`. */
static void write_trace(const char *path, const uint8_t *records, size_t n, uint32_t version)
{
    uint8_t head[16] = {'P', 'V', 'K', 'T', 'R', 'C', '\r', '\n', (uint8_t)version, 0, 0, 0, 0, 0, 0, 0};
    size_t cap = ZSTD_compressBound(n);
    uint8_t *out = malloc(16 + cap);
    memcpy(out, head, 16);
    size_t z = ZSTD_compress(out + 16, cap, records, n, 1);
    write_file(path, out, 16 + z);
    free(out);
}

static pvk_result replay_expect(const char *path, pvk_result want)
{
    pvk_context *ctx = th_context(NULL, 0);
    th_quiet_errors = 1;
    pvk_result r = pvk_trace_replay(ctx, path, NULL, NULL);
    th_quiet_errors = 0;
    CHECK_EQ(r, want);
    th_release(ctx);
    return r;
}

static void hostile_files(void)
{
    size_t n = 0;
    uint8_t *good = file_bytes(TRACE, &n);
    CHECK(good && n > 64);
    /* truncated at several points */
    size_t cuts[] = {0, 7, 16, 40, n / 2, n - 3};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        write_file("bad.pvt", good, cuts[i]);
        replay_expect("bad.pvt", PVK_ERROR_BAD_DATA);
        uint32_t frames;
        CHECK_EQ(pvk_trace_frames("bad.pvt", &frames), PVK_ERROR_BAD_DATA);
    }
    /* flipped bytes in the compressed stream */
    for (int i = 0; i < 8; i++) {
        uint8_t *b = malloc(n);
        memcpy(b, good, n);
        size_t at = 16 + th_rand() % (n - 16);
        b[at] ^= (uint8_t)(1u << (th_rand() % 8));
        write_file("bad.pvt", b, n);
        pvk_context *ctx = th_context(NULL, 0);
        th_quiet_errors = 1;
        pvk_result r = pvk_trace_replay(ctx, "bad.pvt", NULL, NULL);
        th_quiet_errors = 0;
        /* zstd's checksum is off, so a flip may decode to other valid data */
        CHECK(r == PVK_ERROR_BAD_DATA || r == PVK_SUCCESS);
        th_release(ctx);
        free(b);
    }
    free(good);
    /* bad magic, unknown version, missing file */
    write_file("bad.pvt", "NOTATRACEFILE...", 16);
    replay_expect("bad.pvt", PVK_ERROR_BAD_DATA);
    write_trace("bad.pvt", (const uint8_t *)"\x06\x04\0\0\0\0\0\0\0", 9, 99);
    replay_expect("bad.pvt", PVK_ERROR_BAD_DATA);
    replay_expect("does-not-exist.pvt", PVK_ERROR_IO);
    /* a well-formed empty trace */
    write_trace("ok.pvt", (const uint8_t *)"\x06\x04\0\0\0\0\0\0\0", 9, 1);
    replay_expect("ok.pvt", PVK_SUCCESS);
    /* hostile records: huge length, wrong lengths, unknown type, memory outside guest memory */
    static const uint8_t huge[] = {3, 0xFF, 0xFF, 0xFF, 0x7F, 0, 0, 0, 0};
    write_trace("bad.pvt", huge, sizeof huge, 1);
    replay_expect("bad.pvt", PVK_ERROR_BAD_DATA);
    static const uint8_t short_mmio[] = {3, 4, 0, 0, 0, 0, 0, 0x40, 0x10};
    write_trace("bad.pvt", short_mmio, sizeof short_mmio, 1);
    replay_expect("bad.pvt", PVK_ERROR_BAD_DATA);
    static const uint8_t unknown[] = {0x77, 0, 0, 0, 0};
    write_trace("bad.pvt", unknown, sizeof unknown, 1);
    replay_expect("bad.pvt", PVK_ERROR_BAD_DATA);
    static const uint8_t outside[] = {4, 8, 0, 0, 0, 0xF0, 0xFF, 0xFF, 0xFF, 1, 2, 3, 4};
    write_trace("bad.pvt", outside, sizeof outside, 1);
    replay_expect("bad.pvt", PVK_ERROR_BAD_DATA);
    static const uint8_t ext_short[] = {1, 4, 0, 0, 0, 1, 2, 3, 4};
    write_trace("bad.pvt", ext_short, sizeof ext_short, 1);
    replay_expect("bad.pvt", PVK_ERROR_BAD_DATA);
    /* an MMIO write to a bad address is logged and counted, replay goes on */
    static const uint8_t bad_reg[] = {3, 8, 0, 0, 0, 0x01, 0, 0, 0, 1, 0, 0, 0, 6, 4, 0, 0, 0, 0, 0, 0, 0};
    write_trace("bad.pvt", bad_reg, sizeof bad_reg, 1);
    replay_expect("bad.pvt", PVK_SUCCESS);
    remove("bad.pvt");
    remove("ok.pvt");
}

/* A draw through a real shader replays to the same colour buffer. */
static void draw_roundtrip(void)
{
    pvk_context *ctx = th_context(NULL, 0);
    int failures = -1;
    CHECK_EQ(pvk_trace_begin(ctx, "draw.pvt"), PVK_SUCCESS);
    CHECK_EQ(pvk_scene_run_file(ctx, PVK_SCENE_DIR "/triangle_shader.pvs", &failures), PVK_SUCCESS);
    CHECK_EQ(failures, 0);
    CHECK_EQ(pvk_trace_end(ctx), PVK_SUCCESS);
    static uint8_t fb[64 * 48 * 4];
    memcpy(fb, pvk_guest_ptr(ctx, PVK_VRAM_BASE, sizeof fb), sizeof fb);
    th_release(ctx);
    int drawn = 0;
    for (size_t i = 0; i < sizeof fb; i++)
        drawn += fb[i] != 0;
    CHECK(drawn > 1000);
    ctx = th_context(NULL, 0);
    CHECK_EQ(pvk_trace_replay(ctx, "draw.pvt", NULL, NULL), PVK_SUCCESS);
    CHECK(memcmp(fb, pvk_guest_ptr(ctx, PVK_VRAM_BASE, sizeof fb), sizeof fb) == 0);
    th_release(ctx);
    remove("draw.pvt");
}

static pvk_result keep_hash(void *user, pvk_context *ctx, uint32_t frame)
{
    (void)frame;
    return pvk_frame_hash(ctx, user);
}

/* A version-1 trace (picavk 0.1: the register-file snapshot laid out by
 * struct) still replays.  It was recorded by that version from
 * tests/traces/setup.pvs (a shader uploaded before recording, so it comes
 * from the snapshot) and frame.pvs (a fill, the triangle, a VBlank); the
 * hash is what 0.1 replayed it to, and the top screen shows the red
 * triangle's tiles as a linear scan-out reads them. */
static void old_trace(void)
{
    pvk_context *ctx = th_context(NULL, 0);
    uint64_t h = 0;
    CHECK_EQ(pvk_trace_replay(ctx, PVK_TRACE_DIR "/v1_triangle.pvt", keep_hash, &h), PVK_SUCCESS);
    CHECK_EQ(h, 0xe723f67d8be5feccull);
    pvk_stats st;
    pvk_get_stats(ctx, &st);
    CHECK_EQ(st.bad_input, 0);
    CHECK_EQ(st.draws, 1);
    CHECK_EQ(st.triangles, 1);
    th_release(ctx);
    uint32_t frames = 99;
    CHECK_EQ(pvk_trace_frames(PVK_TRACE_DIR "/v1_triangle.pvt", &frames), PVK_SUCCESS);
    CHECK_EQ(frames, 1);
    CHECK_EQ(pvk_trace_frames("does-not-exist.pvt", &frames), PVK_ERROR_IO);
}

/* The register-file snapshot: save/load round trip, and refusals. */
static void pica_snapshot(void)
{
    pvk_pica *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    pvk_pica_reset(a);
    pvk_pica_reset(b);
    for (uint32_t i = 0; i < PVK_SH_CODE_WORDS; i++)
        a->sh[1].code[i] = i * 2654435761u;
    a->regs[PVK_GPUREG_BLEND_COLOR] = 0x11223344;
    a->fog_lut[5] = 77;
    a->sh[0].code_pos = 9;
    size_t n = pvk_pica_state_save(a, NULL, 0);
    uint8_t *buf = malloc(n);
    CHECK_EQ(pvk_pica_state_save(a, buf, n), n);
    CHECK_EQ(buf[0], PVK_PICA_STATE_VERSION);
    CHECK_EQ(pvk_pica_state_load(b, buf, n), PVK_SUCCESS);
    CHECK(memcmp(b->regs, a->regs, sizeof a->regs) == 0);
    CHECK(memcmp(b->sh, a->sh, sizeof a->sh) == 0);
    CHECK_EQ(b->fog_lut[5], 77);
    /* wrong size, unknown version, a position outside its table: refused, state kept */
    CHECK_EQ(pvk_pica_state_load(b, buf, n - 4), PVK_ERROR_BAD_DATA);
    buf[0] = 99;
    CHECK_EQ(pvk_pica_state_load(b, buf, n), PVK_ERROR_BAD_DATA);
    buf[0] = 1;
    pvk_pica_reset(a);
    a->sh[1].code_pos = PVK_SH_CODE_WORDS + 1;
    pvk_pica_state_save(a, buf, n);
    CHECK_EQ(pvk_pica_state_load(b, buf, n), PVK_ERROR_BAD_DATA);
    CHECK_EQ(b->fog_lut[5], 77);
    free(buf);
    free(a);
    free(b);
}

/* Destroying a context while it records ends the trace: the file replays. */
static void destroy_while_recording(void)
{
    pvk_context *ctx = th_context(NULL, 0);
    setup_lcd(ctx);
    CHECK_EQ(pvk_trace_begin(ctx, "live.pvt"), PVK_SUCCESS);
    session_frame(ctx, 0);
    uint64_t want = 0;
    CHECK_EQ(pvk_frame_hash(ctx, &want), PVK_SUCCESS);
    th_release(ctx);
    ctx = th_context(NULL, 0);
    uint64_t got = 0;
    CHECK_EQ(pvk_trace_replay(ctx, "live.pvt", keep_hash, &got), PVK_SUCCESS);
    CHECK_EQ(got, want);
    th_release(ctx);
    remove("live.pvt");
}

int main(void)
{
    /* the scratch traces below have relative names: a directory of this run's
     * own, so two runs at once (ctest -j, the cpu-vs runs) cannot race */
    char dir[] = "/tmp/pvk-test-trace-XXXXXX";
    if (!mkdtemp(dir) || chdir(dir)) {
        perror("test_trace: scratch directory");
        return 1;
    }
    old_trace();
    pica_snapshot();
    destroy_while_recording();
    draw_roundtrip();
    for (int mirror = 0; mirror < 2; mirror++) {
        /* record */
        pvk_context *ctx = th_context(NULL, mirror);
        setup_lcd(ctx); /* before recording: reaches the trace through the snapshot */
        CHECK_EQ(pvk_trace_begin(ctx, TRACE), PVK_SUCCESS);
        CHECK_EQ(pvk_trace_begin(ctx, TRACE), PVK_ERROR_INVALID_ARGUMENT);
        for (int f = 0; f < FRAMES; f++) {
            session_frame(ctx, f);
            CHECK_EQ(pvk_frame_hash(ctx, &hashes[0][f]), PVK_SUCCESS);
        }
        CHECK_EQ(pvk_trace_end(ctx), PVK_SUCCESS);
        uint8_t *vram_rec = malloc(PVK_VRAM_SIZE);
        memcpy(vram_rec, pvk_guest_ptr(ctx, PVK_VRAM_BASE, PVK_VRAM_SIZE), PVK_VRAM_SIZE);
        th_release(ctx);
        /* the frames differ from each other, so equal hashes below mean something */
        CHECK(hashes[0][0] != hashes[0][1] && hashes[0][1] != hashes[0][2]);

        uint32_t counted = 0;
        CHECK_EQ(pvk_trace_frames(TRACE, &counted), PVK_SUCCESS);
        CHECK_EQ(counted, FRAMES);
        /* replay in a fresh context */
        ctx = th_context(NULL, mirror);
        memset(hashes[1], 0, sizeof hashes[1]);
        CHECK_EQ(pvk_trace_replay(ctx, TRACE, record_hash, NULL), PVK_SUCCESS);
        for (int f = 0; f < FRAMES; f++)
            CHECK_EQ(hashes[1][f], hashes[0][f]);
        CHECK(memcmp(vram_rec, pvk_guest_ptr(ctx, PVK_VRAM_BASE, PVK_VRAM_SIZE), PVK_VRAM_SIZE) == 0);
        pvk_stats st;
        pvk_get_stats(ctx, &st);
        CHECK_EQ(st.bad_input, 0);
        free(vram_rec);
        th_release(ctx);
    }
    hostile_files();
    remove(TRACE);
    rmdir(dir);
    return th_finish("test_trace");
}
