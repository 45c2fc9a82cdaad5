/* The sample traces in tests/traces/ (scenes of tests/scenes/ recorded by
 * tests/record_trace.c, see tests/README.md) replay to the frame a person
 * looked at: the frame hash of that replay, and the pixels the scene itself
 * probes on the top screen (taken from the scene script, so a changed hash
 * with the probes still right points at an edge, not at the picture).
 * No errors in the guest's input, every draw drawn. */
#include "harness.h"

typedef struct probe {
    uint32_t x, y;
    uint8_t rgba[4];
} probe;

typedef struct sample {
    const char *file;
    uint64_t hash;     /* pvk_frame_hash after the trace's one VBlank */
    uint64_t draws;    /* pvk_stats.draws */
    probe probes[6];
    unsigned n_probes;
} sample;

/* Hashes from `picavk replay` of each file, its PNGs checked by eye; the
 * probes are the scene's `probe top` lines. */
static const sample samples[] = {
    {"scale_showcase.pvt", 0x158a6ff876ba075dull, 2,
     {{10, 10, {104, 176, 216, 255}},
      {120, 40, {255, 51, 51, 255}},
      {350, 150, {51, 89, 229, 255}},
      {100, 150, {255, 242, 153, 255}},
      {250, 170, {140, 216, 229, 255}},
      {330, 215, {179, 215, 235, 255}}},
     6},
    {"citro3d_rtt_frame.pvt", 0x53fcefd14e918453ull, 3,
     {{286, 189, {255, 0, 0, 255}}, {59, 179, {104, 176, 216, 255}}, {112, 70, {255, 0, 255, 255}},
      {37, 22, {255, 255, 0, 255}}},
     4},
    {"stencil_mask.pvt", 0xea8e5bb22c83db30ull, 4,
     {{179, 107, {0, 0, 255, 255}}, {119, 119, {0, 255, 0, 255}}, {199, 23, {0, 255, 0, 255}},
      {39, 23, {104, 176, 216, 255}}},
     4},
};

static pvk_result keep_hash(void *user, pvk_context *ctx, uint32_t frame)
{
    (void)frame;
    return pvk_frame_hash(ctx, user);
}

static void replay(const sample *s)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", PVK_TRACE_DIR, s->file);
    uint32_t frames = 0;
    CHECK_EQ(pvk_trace_frames(path, &frames), PVK_SUCCESS);
    CHECK_EQ(frames, 1);
    pvk_context *ctx = th_context(NULL, 0);
    uint64_t h = 0;
    CHECK_EQ(pvk_trace_replay(ctx, path, keep_hash, &h), PVK_SUCCESS);
    if (h != s->hash)
        fprintf(stderr, "%s: frame hash %016llx, expected %016llx\n", s->file, (unsigned long long)h,
                (unsigned long long)s->hash);
    CHECK_EQ(h, s->hash);
    uint32_t w = 0, hh = 0;
    CHECK_EQ(pvk_frame_size(ctx, PVK_SCREEN_TOP, &w, &hh), PVK_SUCCESS);
    CHECK_EQ(w, 400);
    CHECK_EQ(hh, 240);
    static uint8_t px[400 * 240 * 4];
    if (w == 400 && hh == 240) {
        CHECK_EQ(pvk_frame_read(ctx, PVK_SCREEN_TOP, px, 400 * 4), PVK_SUCCESS);
        for (unsigned i = 0; i < s->n_probes; i++) {
            const probe *p = &s->probes[i];
            const uint8_t *got = px + 4 * (p->y * 400 + p->x);
            if (memcmp(got, p->rgba, 4))
                fprintf(stderr, "%s: top (%u, %u) = rgba(%u,%u,%u,%u), expected rgba(%u,%u,%u,%u)\n", s->file, p->x,
                        p->y, got[0], got[1], got[2], got[3], p->rgba[0], p->rgba[1], p->rgba[2], p->rgba[3]);
            CHECK(!memcmp(got, p->rgba, 4));
        }
    }
    pvk_stats st;
    pvk_get_stats(ctx, &st);
    CHECK_EQ(st.bad_input, 0);
    CHECK_EQ(st.unsupported, 0);
    CHECK_EQ(st.draws, s->draws);
    printf("  %s: frame %016llx, %llu draws, %u probes\n", s->file, (unsigned long long)h,
           (unsigned long long)st.draws, s->n_probes);
    th_release(ctx);
}

int main(void)
{
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++)
        replay(&samples[i]);
    return th_finish("test_sample_traces");
}
