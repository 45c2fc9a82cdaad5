/* The picavk command line: info, demo. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "picavk/picavk.h"
#include "tools/tools.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: picavk <command> [options]\n"
            "\n"
            "commands:\n"
            "  info              print the Vulkan device picavk picks and its features\n"
            "  demo [-o DIR] [--trace FILE] [--scale N]\n"
            "                    program both LCDs as the 3DS OS does, clear them on the GPU,\n"
            "                    show a test pattern in each of the five framebuffer formats and\n"
            "                    a 3D frame: DIR/top-<format>.png, bottom-<format>.png, top.png,\n"
            "                    top-right.png, bottom.png (default DIR: .); --trace records the\n"
            "                    session for `picavk replay`\n"
            "  run [-o DIR] [--scale N] SCENE.pvs...  run scene scripts; prints PASS/FAIL per script;\n"
            "                    -o DIR: `save color NAME` statements write DIR/NAME.png\n"
            "  replay TRACE [-o DIR] [--quiet] [--stats] [--scale N]\n"
            "                    replay a picavk trace (.pvt) or a Citra CiTrace (.ctf) headless:\n"
            "                    DIR/frameNNNN-*.png and DIR/hashes.txt, a hash per frame (DIR: .);\n"
            "                    progress on a terminal (frame N of M, frames/s), else a line per\n"
            "                    frame, then a summary; --quiet prints only errors; --stats then\n"
            "                    prints every counter as `name value` lines (draws, pipelines\n"
            "                    created, cache hits, shader compiles, surface counters, ...)\n"
            "  asm FILE.pica [-o FILE.shbin]\n"
            "                    assemble a PICA200 vertex or geometry (.gsh) shader (picasso syntax) into a SHBIN\n"
            "  --help            this text\n"
            "\n"
            "--scale N (1-10) renders at N times the 3DS resolution: PNGs of the screens are N\n"
            "times larger, guest memory (probes, hashes of memory) stays 1x.\n"
            "\n"
            "environment: PVK_DEVICE=<name part> picks a device, PVK_VALIDATION=1 enables the\n"
            "Khronos validation layer, PVK_SCALE=N sets the resolution scale (as --scale),\n"
            "PVK_LOG_LEVEL=error|warn|info|debug, PVK_CACHE_DIR=DIR keeps\n"
            "compiled shaders, PVK_DEBUG=flag,... (no-host-import, verbose, sync, no-logic-op,\n"
            "roundtrip, shaders, no-custom-border, no-attachment-read,\n"
            "cpu-vs, lut-storage, texture-staging)\n");
}

/* --scale N of demo, run and replay (0: the config's default, PVK_SCALE may override) */
static pvk_config g_cfg;

/* Parse the value of --scale; false (said) when it is not 1..PVK_MAX_SCALE. */
static bool parse_scale(const char *cmd, const char *v)
{
    char *end;
    unsigned long n = strtoul(v, &end, 10);
    if (!*v || *end || n < 1 || n > PVK_MAX_SCALE) {
        fprintf(stderr, "picavk %s: --scale takes an integer 1..%u, not '%s'\n", cmd, PVK_MAX_SCALE, v);
        return false;
    }
    g_cfg.scale = (uint32_t)n;
    return true;
}

static int fail(const char *what, pvk_result r)
{
    fprintf(stderr, "picavk: %s: %s\n", what, pvk_result_string(r));
    return 1;
}

static int cmd_info(void)
{
    pvk_context *ctx;
    pvk_result r = pvk_context_create(&g_cfg, &ctx);
    if (r)
        return fail("cannot create a context", r);
    pvk_features f;
    pvk_get_features(ctx, &f);
    printf("device: %s\n", pvk_device_name(ctx));
    const struct { const char *name; int on; } rows[] = {
        {"logicOp", f.logic_op},
        {"dualSrcBlend", f.dual_src_blend},
        {"extendedDynamicState", f.extended_dynamic_state},
        {"extendedDynamicState2", f.extended_dynamic_state2},
        {"extendedDynamicState3", f.extended_dynamic_state3},
        {"rasterizationOrderAttachmentAccess", f.rasterization_order_attachment_access},
        {"externalMemoryHost", f.external_memory_host},
        {"customBorderColor", f.custom_border_color},
        {"formats4444", f.formats_4444},
        {"D24S8", f.d24s8},
        {"geometryShader", f.geometry_shader},
        {"shaderStencilExport", f.shader_stencil_export},
        {"timelineSemaphore", f.timeline_semaphore},
        {"pushDescriptor", f.push_descriptor},
        {"storageBuffer8BitAccess", f.storage_buffer_8bit},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        printf("  %-36s %s\n", rows[i].name, rows[i].on ? "yes" : "no");
    pvk_context_destroy(ctx);
    return 0;
}

/* Register writes by their 3DS userland address (0x1EF00000-based). */
static pvk_result wr(pvk_context *ctx, uint32_t va, uint32_t v)
{
    return pvk_mmio_write32(ctx, pvk_mmio_address(va), v);
}

/* The PDC setup from nngxInitialize: the top screen's values as listed in
 * seed document 004; the bottom screen's the same timing with its own
 * vertical window (0x528-0x540, 0x548, 0x564) as bare-metal 3DS code programs
 * it, giving 320 scanlines.  Framebuffers: RGBA8, A mode, first addresses. */
static void setup_lcds(pvk_context *ctx, uint32_t top_fb, uint32_t bottom_fb)
{
    static const uint32_t top_init[][2] = {
        {0x400, 0x1C2}, {0x404, 0xD1}, {0x408, 0x1C1}, {0x40C, 0x1C1}, {0x410, 0}, {0x414, 0xCF},
        {0x418, 0xD1}, {0x41C, 0x1C501C1}, {0x420, 0x10000}, {0x424, 0x19D}, {0x428, 2}, {0x42C, 0x1C2},
        {0x430, 0x1C2}, {0x434, 0x1C2}, {0x438, 1}, {0x43C, 2}, {0x440, 0x1960192}, {0x444, 0},
        {0x448, 0}, {0x45C, 0x19000F0}, {0x460, 0x1C100D1}, {0x464, 0x1920002}, {0x470, 0x80340},
        {0x49C, 0}, {0x468, 0x18300000}, {0x46C, 0x18300000}, {0x494, 0x18300000}, {0x498, 0x18300000},
        {0x478, 1}, {0x474, 0x10501},
    };
    static const uint32_t bottom_init[][2] = {
        {0x510, 0xCD}, {0x528, 0x52}, {0x52C, 0x192}, {0x530, 0x192}, {0x534, 0x4F}, {0x538, 0x50},
        {0x53C, 0x52}, {0x540, 0x1980194}, {0x548, 0x11}, {0x55C, 0x14000F0}, {0x564, 0x1920052},
        {0x570, 0x80300},
    };
    for (size_t i = 0; i < sizeof top_init / sizeof top_init[0]; i++) {
        wr(ctx, 0x1EF00000 + top_init[i][0], top_init[i][1]);
        wr(ctx, 0x1EF00100 + top_init[i][0], top_init[i][1]);
    }
    for (size_t i = 0; i < sizeof bottom_init / sizeof bottom_init[0]; i++)
        wr(ctx, 0x1EF00000 + bottom_init[i][0], bottom_init[i][1]);
    /* 240 pixels * 4 bytes per memory row */
    for (int s = 0; s < 2; s++) {
        uint32_t base = 0x1EF00400 + 0x100u * (uint32_t)s, fb = s ? bottom_fb : top_fb;
        wr(ctx, base + 0x68, fb);
        wr(ctx, base + 0x6C, fb);
        wr(ctx, base + 0x94, fb);
        wr(ctx, base + 0x98, fb);
        wr(ctx, base + 0x90, 240 * 4);
        wr(ctx, base + 0x78, 0);
    }
}

/* Fill [addr, addr+len) with a 32-bit value through memory fill unit `unit`. */
static pvk_result gpu_fill(pvk_context *ctx, int unit, uint32_t addr, uint32_t len, uint32_t value)
{
    uint32_t b = 0x1EF00010 + 0x10u * (uint32_t)unit;
    pvk_result r;
    if ((r = wr(ctx, b + 0, addr >> 3)) || (r = wr(ctx, b + 4, (addr + len) >> 3)) || (r = wr(ctx, b + 8, value)))
        return r;
    return wr(ctx, b + 0xC, (2u << 8) | 1); /* 32-bit, start */
}

/* The demo's test patterns as 0xRRGGBB for screen pixel (x, y) of a w x 240
 * screen.  Top: eight colour bars over a grey ramp and red, green, blue ramps
 * (dark at the left); `shift` moves the bars for the right eye.  Bottom: red
 * grows to the right, green downwards, a white frame and a black square in
 * the top-left corner. */
static uint32_t demo_pattern(int bottom, uint32_t x, uint32_t y, uint32_t w, uint32_t shift)
{
    if (bottom) {
        if (x < 4 || y < 4 || x >= w - 4 || y >= 236)
            return 0xFFFFFF;
        if (x >= 12 && x < 44 && y >= 12 && y < 44)
            return 0;
        return (x * 255 / (w - 1)) << 16 | (y * 255 / 239) << 8 | 0x60;
    }
    static const uint32_t bars[8] = {0xFFFFFF, 0xFFFF00, 0x00FFFF, 0x00FF00,
                                     0xFF00FF, 0xFF0000, 0x0000FF, 0x000000};
    uint32_t ramp = x * 255 / (w - 1);
    if (y < 150)
        return bars[((x + w - shift) % w) * 8 / w];
    if (y < 180)
        return ramp * 0x010101u;
    if (y < 200)
        return ramp << 16;
    if (y < 220)
        return ramp << 8;
    return ramp;
}

/* Write the pattern into guest memory at `fb` in LCD format `fmt` (0-4), one
 * 240-pixel memory row per screen column, the row's first pixel at the
 * bottom, rows `stride` bytes apart. */
static pvk_result demo_draw(pvk_context *ctx, int bottom, uint32_t fb, uint32_t fmt, uint32_t stride, uint32_t w,
                            uint32_t shift)
{
    uint8_t *mem = pvk_guest_ptr(ctx, fb, w * stride);
    if (!mem)
        return PVK_ERROR_OUT_OF_RANGE;
    uint32_t bpp = fmt == 0 ? 4 : fmt == 1 ? 3 : 2;
    for (uint32_t x = 0; x < w; x++)
        for (uint32_t y = 0; y < 240; y++) {
            uint32_t c = demo_pattern(bottom, x, y, w, shift), r = c >> 16, g = (c >> 8) & 0xFF, b = c & 0xFF;
            uint8_t *p = mem + x * stride + (239 - y) * bpp;
            uint32_t v = 0;
            switch (fmt) {
            case 0: p[0] = 0xFF, p[1] = (uint8_t)b, p[2] = (uint8_t)g, p[3] = (uint8_t)r; continue;
            case 1: p[0] = (uint8_t)b, p[1] = (uint8_t)g, p[2] = (uint8_t)r; continue;
            case 2: v = (r >> 3) << 11 | (g >> 2) << 5 | b >> 3; break;
            case 3: v = (r >> 3) << 11 | (g >> 3) << 6 | (b >> 3) << 1 | 1; break;
            default: v = (r >> 4) << 12 | (g >> 4) << 8 | (b >> 4) << 4 | 0xF; break;
            }
            p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
        }
    return pvk_guest_written(ctx, fb, w * stride);
}

/* Write the last frame's screens as DIR/<prefix><screen><suffix>.png. */
static pvk_result write_screens(pvk_context *ctx, const char *dir, const char *prefix, const char *suffix, bool verbose)
{
    static const struct { pvk_screen s; const char *name; } outs[] = {
        {PVK_SCREEN_TOP, "top"}, {PVK_SCREEN_TOP_RIGHT, "top-right"}, {PVK_SCREEN_BOTTOM, "bottom"}};
    for (size_t i = 0; i < 3; i++) {
        uint32_t w, h;
        pvk_frame_size(ctx, outs[i].s, &w, &h);
        if (!w)
            continue;
        uint8_t *px = malloc((size_t)w * h * 4);
        if (!px)
            return PVK_ERROR_OUT_OF_MEMORY;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s%s%s.png", dir, prefix, outs[i].name, suffix);
        pvk_result r = pvk_frame_read(ctx, outs[i].s, px, (size_t)w * 4);
        if (!r)
            r = pvk_write_png(path, px, w, h, (size_t)w * 4);
        free(px);
        if (r)
            return r;
        if (verbose)
            printf("wrote %s (%ux%u)\n", path, w, h);
    }
    return PVK_SUCCESS;
}

static int cmd_demo(const char *dir, const char *trace)
{
    if (mkdir(dir, 0755) && errno != EEXIST) {
        fprintf(stderr, "picavk: cannot create %s: %s\n", dir, strerror(errno));
        return 1;
    }
    pvk_context *ctx;
    pvk_result r = pvk_context_create(&g_cfg, &ctx);
    if (r)
        return fail("cannot create a context", r);
    printf("device: %s\n", pvk_device_name(ctx));
    if (trace && (r = pvk_trace_begin(ctx, trace)))
        goto out;
    const uint32_t top_fb = 0x18000000, right_fb = 0x18080000, bottom_fb = 0x18100000;
    static const char *const fmt_names[5] = {"rgba8", "rgb8", "rgb565", "rgb5a1", "rgba4"};
    setup_lcds(ctx, top_fb, bottom_fb);
    /* Clear the framebuffers through the GPU, then draw with the CPU. */
    if ((r = gpu_fill(ctx, 0, top_fb, 0x100000, 0x000000FF)) ||
        (r = gpu_fill(ctx, 1, bottom_fb, 320 * 240 * 4, 0x000000FF)) || (r = pvk_wait_idle(ctx)))
        goto out;
    /* Frames 0-5: each format in turn on both screens; the last frame puts the
     * top screen in 3D (AB interlace, 800 scanlines: 400 per eye) in RGBA8
     * with a right eye whose bars sit 12 pixels to the right. */
    for (uint32_t frame = 0; frame <= 5 && !r; frame++) {
        uint32_t fmt = frame % 5, bpp = fmt == 0 ? 4 : fmt == 1 ? 3 : 2, stereo = frame == 5;
        wr(ctx, 0x1EF00470, 0x80300 | (stereo ? 0x20 : 0x40) | fmt);
        wr(ctx, 0x1EF00464, stereo ? 0x3220002 : 0x1920002);
        wr(ctx, 0x1EF00494, stereo ? right_fb : top_fb);
        wr(ctx, 0x1EF00570, 0x80300 | (stereo ? 2 : fmt));
        wr(ctx, 0x1EF00490, 240 * bpp);
        wr(ctx, 0x1EF00590, 240 * (stereo ? 2 : bpp));
        if ((r = demo_draw(ctx, 0, top_fb, fmt, 240 * bpp, 400, 0)) ||
            (stereo && (r = demo_draw(ctx, 0, right_fb, fmt, 240 * bpp, 400, 12))) ||
            (r = demo_draw(ctx, 1, bottom_fb, stereo ? 2 : fmt, 240 * (stereo ? 2 : bpp), 320, 0)) ||
            (r = pvk_vblank(ctx)))
            break;
        char suffix[16];
        suffix[0] = 0;
        if (!stereo)
            snprintf(suffix, sizeof suffix, "-%s", fmt_names[fmt]);
        r = write_screens(ctx, dir, "", suffix, true);
    }
    if (trace && !r)
        r = pvk_trace_end(ctx);
out:
    pvk_context_destroy(ctx);
    return r ? fail("demo", r) : 0;
}

/* ---- replay ---- */

typedef struct replay_state {
    const char *dir;
    FILE *hashes;
    bool quiet, tty;   /* --quiet: only errors; tty: progress on one updating line */
    uint32_t total;    /* frames in the file, 0 when unknown */
    uint32_t frames;
    double t0;
} replay_state;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static pvk_result on_replay_frame(void *user, pvk_context *ctx, uint32_t frame)
{
    replay_state *st = user;
    uint64_t hash;
    pvk_result r = pvk_frame_hash(ctx, &hash);
    if (r)
        return r;
    char prefix[32];
    snprintf(prefix, sizeof prefix, "frame%04u-", frame);
    if ((r = write_screens(ctx, st->dir, prefix, "", false)))
        return r;
    fprintf(st->hashes, "%u %016llx\n", frame, (unsigned long long)hash);
    st->frames = frame + 1;
    if (st->quiet)
        return PVK_SUCCESS;
    double dt = now_s() - st->t0;
    double fps = dt > 0 ? st->frames / dt : 0;
    if (st->tty) {
        if (st->total)
            fprintf(stderr, "\rframe %u of %u, %.1f frames/s ", st->frames, st->total, fps);
        else
            fprintf(stderr, "\rframe %u, %.1f frames/s ", st->frames, fps);
    } else {
        printf("frame %u %016llx\n", frame, (unsigned long long)hash);
    }
    return PVK_SUCCESS;
}

/* --stats: every counter on its own line, for people and scripts (grep '^shader_compiles ') */
static void print_stats(const pvk_stats *s)
{
    const struct { const char *name; uint64_t value; } rows[] = {
        {"command_lists", s->command_lists},
        {"draws", s->draws},
        {"vertices", s->vertices},
        {"triangles", s->triangles},
        {"immediate_vertices", s->immediate_vertices},
        {"fills", s->fills},
        {"transfers", s->transfers},
        {"texture_copies", s->texture_copies},
        {"pipelines_created", s->pipelines_created},
        {"pipeline_hits", s->pipeline_hits},
        {"pipeline_evictions", s->pipeline_evictions},
        {"shader_compiles", s->shader_compiles},
        {"shader_disk_hits", s->shader_disk_hits},
        {"surface_loads", s->surface_loads},
        {"surface_writebacks", s->surface_writebacks},
        {"surface_reinterpretations", s->surface_reinterpretations},
        {"surface_clears", s->surface_clears},
        {"surface_bytes", s->surface_bytes},
        {"surface_transfers", s->surface_transfers},
        {"surface_resolves", s->surface_resolves},
        {"submissions", s->submissions},
        {"texture_decodes", s->texture_decodes},
        {"texture_hits", s->texture_hits},
        {"texture_from_surface", s->texture_from_surface},
        {"texture_invalidations", s->texture_invalidations},
        {"samplers_created", s->samplers_created},
        {"sampler_border_fallbacks", s->sampler_border_fallbacks},
        {"bad_input", s->bad_input},
        {"out_of_range", s->out_of_range},
        {"unsupported", s->unsupported},
        {"validation_errors", s->validation_errors},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        printf("%s %llu\n", rows[i].name, (unsigned long long)rows[i].value);
}

static int cmd_replay(const char *trace, const char *dir, bool quiet, bool stats_lines)
{
    if (mkdir(dir, 0755) && errno != EEXIST) {
        fprintf(stderr, "picavk: cannot create %s: %s\n", dir, strerror(errno));
        return 1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/hashes.txt", dir);
    replay_state st = {dir, fopen(path, "w"), quiet, isatty(STDERR_FILENO), 0, 0, 0};
    if (!st.hashes) {
        fprintf(stderr, "picavk: cannot write %s\n", path);
        return 1;
    }
    if (st.tty && !quiet && pvk_trace_frames(trace, &st.total) != PVK_SUCCESS)
        st.total = 0; /* a damaged file: the replay says what is wrong */
    pvk_context *ctx;
    pvk_result r = pvk_context_create(&g_cfg, &ctx);
    if (r) {
        fclose(st.hashes);
        return fail("cannot create a context", r);
    }
    /* CiTrace files start with "CiTr"; everything else is read as a picavk trace */
    char magic[4] = {0};
    FILE *probe = fopen(trace, "rb");
    if (probe) {
        if (fread(magic, 1, 4, probe) != 4)
            magic[0] = 0;
        fclose(probe);
    }
    st.t0 = now_s();
    if (!memcmp(magic, "CiTr", 4))
        r = pvk_citrace_replay(ctx, trace, on_replay_frame, &st);
    else
        r = pvk_trace_replay(ctx, trace, on_replay_frame, &st);
    double dt = now_s() - st.t0;
    pvk_stats stats;
    pvk_get_stats(ctx, &stats);
    pvk_context_destroy(ctx);
    fclose(st.hashes);
    if (st.tty && !quiet && st.frames)
        fputc('\n', stderr);
    if (!quiet)
        printf("replayed %u frames in %.2f s (%.1f frames/s): %llu command lists, %llu draws, %llu triangles, "
               "%llu fills, %llu transfers, %llu texture copies; %llu pipelines created, %llu shaders compiled "
               "(%llu from the disk cache); %llu errors in the guest's input, %llu unsupported\n",
               st.frames, dt, dt > 0 ? st.frames / dt : 0.0, (unsigned long long)stats.command_lists,
               (unsigned long long)stats.draws, (unsigned long long)stats.triangles, (unsigned long long)stats.fills,
               (unsigned long long)stats.transfers, (unsigned long long)stats.texture_copies,
               (unsigned long long)stats.pipelines_created, (unsigned long long)stats.shader_compiles,
               (unsigned long long)stats.shader_disk_hits, (unsigned long long)stats.bad_input,
               (unsigned long long)stats.unsupported);
    if (stats_lines)
        print_stats(&stats);
    if (r)
        return fail("replay", r);
    if (stats.bad_input)
        fprintf(stderr, "picavk: replay: %llu errors in the guest's input (see the log)\n",
                (unsigned long long)stats.bad_input);
    return 0;
}

/* ---- scene scripts ---- */

static int cmd_run(int n, char **paths)
{
    int failed = 0;
    for (int i = 0; i < n; i++) {
        pvk_context *ctx;
        pvk_result r = pvk_context_create(&g_cfg, &ctx);
        if (r)
            return fail("cannot create a context", r);
        int failures = 0;
        r = pvk_scene_run_file(ctx, paths[i], &failures);
        pvk_context_destroy(ctx);
        bool ok = !r && !failures;
        printf("%s %s", ok ? "PASS" : "FAIL", paths[i]);
        if (r)
            printf(" (%s)", pvk_result_string(r));
        else if (failures)
            printf(" (%d probes differ)", failures);
        printf("\n");
        failed += !ok;
    }
    printf("%d passed, %d failed\n", n - failed, failed);
    return failed ? 1 : 0;
}

/* ---- shader assembler ---- */

static int cmd_asm(const char *in, const char *out)
{
    FILE *f = fopen(in, "rb");
    if (!f) {
        fprintf(stderr, "picavk asm: %s: %s\n", in, strerror(errno));
        return 1;
    }
    char *src = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? 2 * cap : 65536;
            char *p = realloc(src, cap);
            if (!p) {
                free(src);
                fclose(f);
                return fail("out of memory", PVK_ERROR_OUT_OF_MEMORY);
            }
            src = p;
        }
        size_t n = fread(src + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    bool rerr = ferror(f);
    fclose(f);
    if (rerr) {
        free(src);
        fprintf(stderr, "picavk asm: cannot read %s\n", in);
        return 1;
    }
    char err[512], def[4096];
    void *bin = NULL;
    size_t size = 0;
    pvk_result r = pvk_shader_assemble(src, len, &bin, &size, err, sizeof err);
    free(src);
    if (r) {
        if (r == PVK_ERROR_BAD_DATA)
            fprintf(stderr, "%s:%s\n", in, err + (strncmp(err, "line ", 5) ? 0 : 5));
        else
            fprintf(stderr, "picavk asm: %s\n", pvk_result_string(r));
        return 1;
    }
    if (!out) { /* FILE.pica -> FILE.shbin */
        const char *dot = strrchr(in, '.'), *slash = strrchr(in, '/');
        size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - in) : strlen(in);
        snprintf(def, sizeof def, "%.*s.shbin", (int)(stem < 4000 ? stem : 4000), in);
        out = def;
    }
    FILE *o = fopen(out, "wb");
    bool ok = o && fwrite(bin, 1, size, o) == size;
    if (o && fclose(o))
        ok = false;
    free(bin);
    if (!ok) {
        fprintf(stderr, "picavk asm: cannot write %s\n", out);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "info"))
        return cmd_info();
    if (!strcmp(cmd, "demo")) {
        const char *dir = ".", *trace = NULL;
        for (int i = 2; i < argc; i++) {
            if (!strcmp(argv[i], "-o") && i + 1 < argc)
                dir = argv[++i];
            else if (!strcmp(argv[i], "--trace") && i + 1 < argc)
                trace = argv[++i];
            else if (!strcmp(argv[i], "--scale") && i + 1 < argc) {
                if (!parse_scale("demo", argv[++i]))
                    return 2;
            } else {
                fprintf(stderr, "picavk demo: unknown option '%s'\n", argv[i]);
                return 2;
            }
        }
        return cmd_demo(dir, trace);
    }
    if (!strcmp(cmd, "run")) {
        int first = 2;
        for (;;) {
            if (argc > first + 1 && !strcmp(argv[first], "-o")) { /* `save color NAME` statements write DIR/NAME.png */
                if (setenv("PVK_SCENE_OUT", argv[first + 1], 1))
                    return fail("cannot set PVK_SCENE_OUT", PVK_ERROR_OUT_OF_MEMORY);
            } else if (argc > first + 1 && !strcmp(argv[first], "--scale")) {
                if (!parse_scale("run", argv[first + 1]))
                    return 2;
            } else {
                break;
            }
            first += 2;
        }
        if (argc <= first) {
            fprintf(stderr, "usage: picavk run [-o DIR] [--scale N] SCENE.pvs [SCENE.pvs ...]\n");
            return 2;
        }
        return cmd_run(argc - first, argv + first);
    }
    if (!strcmp(cmd, "replay")) {
        const char *trace = NULL, *dir = ".";
        bool quiet = false, stats = false;
        for (int i = 2; i < argc; i++) {
            if (!strcmp(argv[i], "-o") && i + 1 < argc)
                dir = argv[++i];
            else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q"))
                quiet = true;
            else if (!strcmp(argv[i], "--stats"))
                stats = true;
            else if (!strcmp(argv[i], "--scale") && i + 1 < argc) {
                if (!parse_scale("replay", argv[++i]))
                    return 2;
            }
            else if (argv[i][0] != '-' && !trace)
                trace = argv[i];
            else {
                fprintf(stderr, "picavk replay: unexpected argument '%s'\n", argv[i]);
                return 2;
            }
        }
        if (!trace) {
            fprintf(stderr, "usage: picavk replay TRACE.pvt [-o DIR] [--quiet] [--stats] [--scale N]\n");
            return 2;
        }
        return cmd_replay(trace, dir, quiet, stats);
    }
    if (!strcmp(cmd, "asm")) {
        const char *in = NULL, *out = NULL;
        for (int i = 2; i < argc; i++) {
            if (!strcmp(argv[i], "-o") && i + 1 < argc)
                out = argv[++i];
            else if (argv[i][0] != '-' && !in)
                in = argv[i];
            else {
                fprintf(stderr, "picavk asm: unexpected argument '%s'\n", argv[i]);
                return 2;
            }
        }
        if (!in) {
            fprintf(stderr, "usage: picavk asm FILE.pica [-o FILE.shbin]\n");
            return 2;
        }
        return cmd_asm(in, out);
    }
    fprintf(stderr, "picavk: unknown command '%s' (try --help)\n", cmd);
    return 2;
}
