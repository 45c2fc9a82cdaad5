/* Resolution scale in frames shaped as real programs build them: every
 * citro3d frame ends with FRAMEBUFFER_FLUSH (the render target written home
 * at 1x) before C3D_FrameEnd's display transfer, and citro3d flushes when a
 * frame switches from a texture target to the screen.  The scenes
 * (tests/scenes/citro3d_rtt_frame.pvs: render-to-texture -> flush ->
 * textured draw -> flush -> display transfer -> VBlank; scale_showcase.pvs)
 * run at 1x and at 2x, 3x and 4x, and again at N x with their flushes taken
 * out (the frame drawn straight into the N x targets and transferred from
 * them).  At each N the LCD picture with the flushes:
 *  - equals the one without, pixel for pixel (so it has as many N x N
 *    blocks that are not one colour: the N x detail), and has such blocks;
 *  - box-averaged to 1x, equals the 1x picture wherever that is flat
 *    (tests/scale_judge.h: the same judgement as the real programs');
 *  - came from the N x images: transfers and textures read the surfaces
 *    (surface_transfers, texture_from_surface), while the flushes wrote the
 *    1x bytes home (surface_writebacks). */
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "harness.h"
#include "scale_judge.h"
#include "tools/tools.h"

#define MAXPX (400u * 240u * 16u)

typedef struct shot {
    uint32_t w, h;
    uint32_t px[MAXPX];
    pvk_stats st;
} shot;

/* The scene at `path` with every line holding GPUREG_FRAMEBUFFER_FLUSH
 * dropped, written to `out`. */
static bool without_flushes(const char *path, const char *out)
{
    FILE *in = fopen(path, "r"), *o = fopen(out, "w");
    bool ok = in && o;
    char line[1024];
    while (ok && fgets(line, sizeof line, in))
        if (!strstr(line, "GPUREG_FRAMEBUFFER_FLUSH"))
            fputs(line, o);
    if (in)
        fclose(in);
    if (o)
        ok = !fclose(o) && ok;
    return ok;
}

static void run(const char *path, uint32_t scale, shot *s)
{
    pvk_config cfg = {.scale = scale};
    pvk_context *ctx = th_context(&cfg, 0);
    int failures = 0;
    CHECK_EQ(pvk_scene_run_file(ctx, path, &failures), PVK_SUCCESS);
    CHECK_EQ(failures, 0);
    CHECK_EQ(pvk_frame_size(ctx, PVK_SCREEN_TOP, &s->w, &s->h), PVK_SUCCESS);
    CHECK_EQ(s->w, 400 * scale);
    CHECK_EQ(s->h, 240 * scale);
    if (s->w == 400 * scale && s->h == 240 * scale)
        CHECK_EQ(pvk_frame_read(ctx, PVK_SCREEN_TOP, s->px, s->w * 4), PVK_SUCCESS);
    pvk_get_stats(ctx, &s->st);
    th_release(ctx);
}

static void scene(const char *name, bool textured)
{
    static shot one, big, straight;
    char path[1024], flat[256];
    snprintf(path, sizeof path, "%s/%s", PVK_SCENE_DIR, name);
    snprintf(flat, sizeof flat, "/tmp/picavk-noflush-%d-%s", (int)getpid(), name);
    CHECK(without_flushes(path, flat));
    run(path, 1, &one);
    for (uint32_t n = 2; n <= 4; n++) {
        run(path, n, &big);
        run(flat, n, &straight);
        uint32_t differ = 0;
        for (uint32_t i = 0; i < big.w * big.h; i++)
            differ += big.px[i] != straight.px[i];
        sj_result with = sj_judge((const uint8_t *)one.px, one.w, one.h, (const uint8_t *)big.px, n);
        sj_result without = sj_judge((const uint8_t *)one.px, one.w, one.h, (const uint8_t *)straight.px, n);
        printf("%s at %ux: %u of %u blocks mixed (%u without the flushes), %u pixels differ from the frame "
               "without them; box average vs 1x: %u flat pixels off (worst %u), %u of %u edge pixels differ; "
               "write-backs %llu, transfers from surfaces %llu, textures from surfaces %llu\n",
               name, n, with.mixed, one.w * one.h, without.mixed, differ, with.flat_off, with.worst, with.edge_off,
               with.edge, (unsigned long long)big.st.surface_writebacks,
               (unsigned long long)big.st.surface_transfers, (unsigned long long)big.st.texture_from_surface);
        CHECK_EQ(differ, 0);
        CHECK_EQ(with.mixed, without.mixed);
        CHECK(with.mixed > 500); /* both scenes' slanted edges run for hundreds of pixels */
        CHECK_EQ(with.flat_off, 0);
        CHECK(big.st.surface_writebacks > 0); /* the flushes did write memory */
        CHECK(big.st.surface_transfers > 0);
        if (textured)
            CHECK(big.st.texture_from_surface > 0);
    }
    remove(flat);
}

int main(void)
{
    scene("citro3d_rtt_frame.pvs", true);
    scene("scale_showcase.pvs", false);
    return th_finish("test_scale_frames");
}
