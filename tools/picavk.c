/* The picavk command line: info, demo, run, replay, asm. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "picavk/picavk.h"
#include "tools/asm.h"
#include "tools/demo.h"
#include "tools/tools.h"

/* Where demo and replay write without -o: a directory of their own, never
 * the current one (a replay writes three PNGs per frame). */
#define DEMO_DIR "demo-out"
#define REPLAY_DIR "replay-out"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: picavk <command> [options]\n"
            "\n"
            "commands:\n"
            "  info              picavk's version, the Vulkan device it picks (Vulkan and driver\n"
            "                    versions) and the device features it needs, uses or ignores\n"
            "  demo [-o DIR] [--trace FILE] [--scale N] [--stats]\n"
            "                    program both LCDs as the 3DS OS does, clear them on the GPU,\n"
            "                    show a test pattern in each of the five framebuffer formats and\n"
            "                    a stereoscopic frame: DIR/top-<format>.png, bottom-<format>.png,\n"
            "                    top.png, top-right.png, bottom.png; then a lit, textured, fogged\n"
            "                    3D scene drawn by one citro3d-shaped command list: top-scene.png\n"
            "                    (default DIR: " DEMO_DIR "); --trace records the session for\n"
            "                    `picavk replay`\n"
            "  run [-o DIR] [--scale N] [--stats] SCENE.pvs...\n"
            "                    run scene scripts; prints PASS/FAIL per script;\n"
            "                    -o DIR: `save color NAME` statements write DIR/NAME.png\n"
            "  replay TRACE [-o DIR] [--quiet] [--stats] [--scale N]\n"
            "               [--save-at N | --load STATE --from N]\n"
            "                    replay a picavk trace (.pvt) or a Citra CiTrace (.ctf) headless:\n"
            "                    DIR/frameNNNN-*.png and DIR/hashes.txt, a hash per frame (default\n"
            "                    DIR: " REPLAY_DIR "); progress on a terminal (frame N (frames 0-M),\n"
            "                    frames/s), else a line per frame (frames count from 0, as in the\n"
            "                    file names), then a summary and where the files went; --quiet\n"
            "                    prints only errors; --save-at N writes DIR/state-N.bin, the GPU's\n"
            "                    save state as frame N begins; --load STATE --from N continues\n"
            "                    from such a state (frames before N only write guest memory)\n"
            "  asm FILE.pica... [-o FILE.shbin]\n"
            "                    assemble PICA200 vertex or geometry (.gsh) shaders (picasso\n"
            "                    syntax) into one SHBIN, an entry per source in order sharing\n"
            "                    one program, as picasso does (default: the first FILE.shbin);\n"
            "                    says what it wrote\n"
            "  --help            this text (COMMAND --help: that command's usage)\n"
            "  --version         picavk's version\n"
            "\n"
            "--dump-textures DIR (demo, run, replay): every texture the GPU decodes, once per\n"
            "hash, as DIR/tex1_WxH_HASH_FORMAT_mipL.png, named as Citra and Azahar name their\n"
            "dumps, with a pack.json template (PVK_TEXTURE_DUMP=DIR does the same).\n"
            "--texture-pack DIR (demo, run, replay): draw textures with the replacement PNGs of\n"
            "a Citra/Azahar texture pack in DIR, each decoded before its first draw\n"
            "(PVK_TEXTURE_PACK=DIR does the same, without the wait).\n"
            "--texture-filter NAME (demo, run, replay): at --scale N > 1 upscale each texture N times\n"
            "on the GPU with the filter NAME (bicubic, mmpx, anime4k, scaleforce, xbrz; PVK_TEXTURE_FILTER=NAME does\n"
            "the same).\n"
            "\n"
            "--stats (demo, run, replay): then every pvk_stats counter as a `name value` line\n"
            "(draws, pipelines_created, pipeline_hits, shader_compiles, surface_loads, ...;\n"
            "run: summed over its scenes).\n"
            "\n"
            "Options may come before, between or after the file names; -- ends them.  An\n"
            "output directory (-o DIR) is created with its parents when missing.\n"
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

/* Input (a path, an argument) echoed in a message, control bytes escaped
 * (tools/input.c); the buffer lives to the end of the enclosing block. */
#define ESC(s) pvk_escape((s), (char[1024]){0}, 1024)

/* --scale N (0: the config's default, PVK_SCALE may override) and
 * --dump-textures DIR and --texture-pack DIR of demo, run and replay */
static pvk_config g_cfg;

/* Parse the value of --scale; false (said) when it is not 1..PVK_MAX_SCALE. */
static bool parse_scale(const char *cmd, const char *v)
{
    char *end;
    unsigned long n = strtoul(v, &end, 10);
    if (!*v || *end || n < 1 || n > PVK_MAX_SCALE) {
        fprintf(stderr, "picavk %s: --scale takes an integer 1..%u, not '%s'\n", cmd, PVK_MAX_SCALE, ESC(v));
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

/* mkdir -p: an output directory (-o) and the parents it needs.  False,
 * said, when one cannot be made or the path is a file. */
static bool make_dirs(const char *cmd, const char *dir)
{
    char p[4096];
    size_t n = strlen(dir);
    if (!n || n >= sizeof p) {
        fprintf(stderr, "picavk %s: -o needs a directory name (of at most %zu bytes)\n", cmd, sizeof p - 1);
        return false;
    }
    memcpy(p, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (p[i] != '/' && p[i])
            continue;
        char c = p[i];
        p[i] = 0;
        if (mkdir(p, 0755) && errno != EEXIST) {
            fprintf(stderr, "picavk %s: cannot create %s: %s\n", cmd, ESC(p), strerror(errno));
            return false;
        }
        p[i] = c;
    }
    struct stat st;
    if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "picavk %s: %s is not a directory\n", cmd, ESC(dir));
        return false;
    }
    return true;
}

/* ---- counters ---- */

/* Every pvk_stats counter by name, in picavk.h's order: the one table --stats
 * of every command prints.  The assertion fails the build when picavk.h
 * gains a counter this table lacks. */
#define STAT(f) {#f, offsetof(pvk_stats, f)}
static const struct { const char *name; size_t offset; } stat_rows[] = {
    STAT(bad_input), STAT(out_of_range), STAT(unsupported), STAT(validation_errors),
    STAT(fills), STAT(transfers), STAT(texture_copies), STAT(command_lists),
    STAT(draws), STAT(vertices), STAT(triangles), STAT(immediate_vertices),
    STAT(pipelines_created), STAT(pipeline_hits), STAT(shader_compiles), STAT(shader_disk_hits),
    STAT(surface_loads), STAT(surface_writebacks), STAT(surface_reinterpretations), STAT(surface_clears),
    STAT(surface_bytes), STAT(surface_transfers), STAT(submissions),
    STAT(texture_decodes), STAT(texture_hits), STAT(texture_from_surface), STAT(texture_invalidations),
    STAT(samplers_created), STAT(sampler_border_fallbacks), STAT(texture_samples), STAT(shader_borders),
    STAT(surface_resolves), STAT(gs_gpu_draws), STAT(gs_cpu_fallbacks), STAT(gs_excess_triangles),
    STAT(gs_unfinished), STAT(surface_writeback_failures), STAT(pipeline_evictions),
    STAT(shader_compile_ns), STAT(shader_compile_max_ns), STAT(disk_cache_evictions),
    STAT(fragment_modules_created), STAT(gpu_waits), STAT(background_builds),
    STAT(cpu_vs_while_building), STAT(ubershader_draws), STAT(pipeline_waits), STAT(gpu_steps_charged), STAT(gpu_capped_draws), STAT(gpu_budget_fallbacks),
    STAT(ubershader_prebuilds), STAT(vs_warm_ups), STAT(state_saves), STAT(state_loads),
    STAT(held_pipelines), STAT(held_pipeline_bytes), STAT(held_modules), STAT(held_module_bytes),
    STAT(held_textures), STAT(held_texture_bytes), STAT(held_surfaces), STAT(held_surface_bytes),
    STAT(held_samplers), STAT(held_bytes), STAT(budget_evictions), STAT(textures_dumped),
    STAT(texture_dump_failures), STAT(textures_replaced), STAT(replacement_pending_draws),
    STAT(texture_pack_failures), STAT(held_pack_bytes), STAT(textures_filtered),
};
#undef STAT
_Static_assert(sizeof stat_rows / sizeof stat_rows[0] == sizeof(pvk_stats) / sizeof(uint64_t),
               "a pvk_stats counter is missing from stat_rows");

static uint64_t *stat_field(pvk_stats *s, size_t row)
{
    return (uint64_t *)((char *)s + stat_rows[row].offset);
}

/* `name value` lines, for people and scripts (grep '^shader_compiles ') */
static void print_stats(pvk_stats *s)
{
    for (size_t i = 0; i < sizeof stat_rows / sizeof stat_rows[0]; i++)
        printf("%s %llu\n", stat_rows[i].name, (unsigned long long)*stat_field(s, i));
}

/* `run --stats`: each scene has its own context; the counters are summed */
static void add_stats(pvk_stats *sum, pvk_stats *s)
{
    for (size_t i = 0; i < sizeof stat_rows / sizeof stat_rows[0]; i++)
        *stat_field(sum, i) += *stat_field(s, i);
}

/* Every pvk_features flag, what picavk does with it and without it (runtime/
 * device.c probes them; the assertion keeps the table in step with picavk.h). */
enum { NEED_REQUIRED, NEED_USED, NEED_UNUSED };
#define FEAT(f) offsetof(pvk_features, f)
static const struct {
    const char *name;
    size_t offset;
    int need;
    const char *use; /* NEED_USED: what it gives; without it: what picavk does instead */
} feature_rows[] = {
    {"pushDescriptor", FEAT(push_descriptor), NEED_REQUIRED, NULL},
    {"timelineSemaphore", FEAT(timeline_semaphore), NEED_REQUIRED, NULL},
    {"storageBuffer8BitAccess", FEAT(storage_buffer_8bit), NEED_REQUIRED, NULL},
    {"extendedDynamicState", FEAT(extended_dynamic_state), NEED_REQUIRED, NULL},
    {"logicOp", FEAT(logic_op), NEED_USED, "the 16 logic ops; without: drawn as Copy"},
    {"rasterizationOrderAttachmentAccess", FEAT(rasterization_order_attachment_access), NEED_USED,
     "exact blending in the shader; without: Vulkan's blend unit (within 1)"},
    {"externalMemoryHost", FEAT(external_memory_host), NEED_USED,
     "guest memory imported; without: mirrored and copied"},
    {"customBorderColor", FEAT(custom_border_color), NEED_USED,
     "any border colour in samplers; without: the shader applies it"},
    {"geometryShader", FEAT(geometry_shader), NEED_USED,
     "fragment-lit draws on the GPU; without: their vertex programs on the CPU"},
    {"debugUtils", FEAT(debug_utils), NEED_USED, "names and labels for debuggers; without: none"},
    {"dualSrcBlend", FEAT(dual_src_blend), NEED_UNUSED, NULL},
    {"extendedDynamicState2", FEAT(extended_dynamic_state2), NEED_UNUSED, NULL},
    {"extendedDynamicState3", FEAT(extended_dynamic_state3), NEED_UNUSED, NULL},
    {"formats4444", FEAT(formats_4444), NEED_UNUSED, NULL},
    {"D24S8", FEAT(d24s8), NEED_UNUSED, NULL},
    {"shaderStencilExport", FEAT(shader_stencil_export), NEED_UNUSED, NULL},
};
#undef FEAT
_Static_assert(sizeof feature_rows / sizeof feature_rows[0] == sizeof(pvk_features) / sizeof(int),
               "a pvk_features flag is missing from feature_rows");

static int cmd_info(void)
{
    printf("picavk %s\n", pvk_version());
    pvk_context *ctx;
    pvk_result r = pvk_context_create(&g_cfg, &ctx);
    if (r)
        return fail("cannot create a context", r);
    pvk_features f;
    pvk_device_info d;
    pvk_get_features(ctx, &f);
    pvk_get_device_info(ctx, &d);
    static const char *const types[] = {"other", "integrated GPU", "discrete GPU", "virtual GPU", "CPU"};
    printf("device: %s\n", pvk_device_name(ctx));
    printf("  %s, vendor 0x%04x, device 0x%04x\n", (unsigned)d.type < 5 ? types[d.type] : "other", d.vendor_id,
           d.device_id);
    printf("  Vulkan %u.%u.%u, driver %s%s%s (driverVersion 0x%08x)\n", VK_API_VERSION_MAJOR(d.api_version),
           VK_API_VERSION_MINOR(d.api_version), VK_API_VERSION_PATCH(d.api_version),
           d.driver_name[0] ? d.driver_name : "unknown", d.driver_info[0] ? ": " : "", d.driver_info, d.driver_version);
    static const char *const heads[] = {
        "required (with Vulkan 1.3, shaderClipDistance, synchronization2, dynamicRendering, maintenance4):",
        "used when present:", "detected, not used:"};
    for (int need = NEED_REQUIRED; need <= NEED_UNUSED; need++) {
        printf("%s\n", heads[need]);
        for (size_t i = 0; i < sizeof feature_rows / sizeof feature_rows[0]; i++) {
            if (feature_rows[i].need != need)
                continue;
            int on = *(const int *)((const char *)&f + feature_rows[i].offset);
            printf("  %-36s %-3s%s%s\n", feature_rows[i].name, on ? "yes" : "no", feature_rows[i].use ? "  " : "",
                   feature_rows[i].use ? feature_rows[i].use : "");
        }
    }
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

/* Write the last frame's screens as DIR/<prefix><screen><suffix>.png,
 * counting them in *written. */
static pvk_result write_screens(pvk_context *ctx, const char *dir, const char *prefix, const char *suffix, bool verbose,
                                unsigned *written)
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
        ++*written;
        if (verbose)
            printf("wrote %s (%ux%u)\n", ESC(path), w, h);
    }
    return PVK_SUCCESS;
}

/* The top screen's last frame alone as DIR/NAME.png. */
static pvk_result write_top(pvk_context *ctx, const char *dir, const char *name, unsigned *written)
{
    uint32_t w, h;
    pvk_frame_size(ctx, PVK_SCREEN_TOP, &w, &h);
    uint8_t *px = w ? malloc((size_t)w * h * 4) : NULL;
    if (!px)
        return PVK_ERROR_OUT_OF_MEMORY;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.png", dir, name);
    pvk_result r = pvk_frame_read(ctx, PVK_SCREEN_TOP, px, (size_t)w * 4);
    if (!r)
        r = pvk_write_png(path, px, w, h, (size_t)w * 4);
    free(px);
    if (!r) {
        ++*written;
        printf("wrote %s (%ux%u)\n", ESC(path), w, h);
    }
    return r;
}

static int cmd_demo(const char *dir, const char *trace, bool stats_lines)
{
    if (!make_dirs("demo", dir))
        return 1;
    pvk_context *ctx;
    pvk_result r = pvk_context_create(&g_cfg, &ctx);
    if (r)
        return fail("cannot create a context", r);
    printf("device: %s\n", pvk_device_name(ctx));
    unsigned pictures = 0;
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
        r = write_screens(ctx, dir, "", suffix, true, &pictures);
    }
    /* Frame 6: a 3D scene drawn by the GPU as a citro3d program draws one
     * (tools/demo3d.c), shown on the top screen in 2D, BGR8 */
    if (!r) {
        wr(ctx, 0x1EF00470, 0x80300 | 0x40 | 1);
        wr(ctx, 0x1EF00464, 0x1920002);
        wr(ctx, 0x1EF00490, 240 * 3);
        r = demo_scene(ctx, top_fb);
    }
    if (!r && !(r = pvk_vblank(ctx)))
        r = write_top(ctx, dir, "top-scene", &pictures);
    if (trace && !r)
        r = pvk_trace_end(ctx);
out:
    if (stats_lines && !r) {
        pvk_stats st;
        pvk_get_stats(ctx, &st);
        print_stats(&st);
    }
    pvk_context_destroy(ctx);
    if (r)
        return fail("demo", r);
    printf("wrote %u pictures to %s/%s%s\n", pictures, ESC(dir), trace ? " and the trace " : "", trace ? ESC(trace) : "");
    return 0;
}

/* ---- replay ---- */

typedef struct replay_state {
    const char *dir;
    long save_at;      /* --save-at N: -1 none */
    pvk_result save_result;
    FILE *hashes;
    bool quiet, tty;   /* --quiet: only errors; tty: progress on one updating line */
    uint32_t total;    /* frames in the file, 0 when unknown */
    uint32_t frames;
    unsigned pictures; /* PNGs written */
    double t0;
} replay_state;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* --save-at N: DIR/state-N.bin as frame N begins (N 0: before the first record) */
static pvk_result save_state(pvk_context *ctx, replay_state *st)
{
    size_t n = 0;
    void *buf = NULL;
    pvk_result r = pvk_state_save(ctx, NULL, 0, &n);
    if (!r && !(buf = malloc(n)))
        r = PVK_ERROR_OUT_OF_MEMORY;
    if (!r)
        r = pvk_state_save(ctx, buf, n, &n);
    char path[4096];
    snprintf(path, sizeof path, "%s/state-%ld.bin", st->dir, st->save_at);
    FILE *f = r ? NULL : fopen(path, "wb");
    if (!r && (!f || fwrite(buf, 1, n, f) != n)) {
        fprintf(stderr, "picavk replay: cannot write %s\n", ESC(path));
        r = PVK_ERROR_IO;
    }
    if (f && fclose(f) && !r) {
        fprintf(stderr, "picavk replay: cannot write %s\n", ESC(path));
        r = PVK_ERROR_IO;
    }
    free(buf);
    if (!r && !st->quiet)
        printf("saved the state as frame %ld begins to %s (%zu bytes)\n", st->save_at, ESC(path), n);
    st->save_result = r;
    st->save_at = -1;
    return r;
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
    if ((r = write_screens(ctx, st->dir, prefix, "", false, &st->pictures)))
        return r;
    fprintf(st->hashes, "%u %016llx\n", frame, (unsigned long long)hash);
    st->frames = frame + 1;
    if (st->save_at == (long)frame + 1 && (r = save_state(ctx, st)))
        return r;
    if (st->quiet)
        return PVK_SUCCESS;
    double dt = now_s() - st->t0;
    double fps = dt > 0 ? st->frames / dt : 0;
    if (st->tty) { /* frames count from 0, as in the file names, hashes.txt and logs */
        if (st->total)
            fprintf(stderr, "\rframe %u (frames 0-%u), %.1f frames/s ", frame, st->total - 1, fps);
        else
            fprintf(stderr, "\rframe %u, %.1f frames/s ", frame, fps);
    } else {
        printf("frame %u %016llx\n", frame, (unsigned long long)hash);
    }
    return PVK_SUCCESS;
}

static int cmd_replay(const char *trace, const char *dir, bool quiet, bool stats_lines, long save_at,
                      const char *load, long from)
{
    if ((load != NULL) != (from >= 0) || (load && save_at >= 0)) {
        fprintf(stderr, "picavk replay: --load STATE goes with --from N, and not with --save-at\n");
        return 2;
    }
    char *state = NULL;
    size_t state_len = 0;
    if (load) {
        int e = pvk_read_file(load, &state, &state_len);
        if (e) {
            fprintf(stderr, "picavk replay: %s: %s\n", ESC(load), pvk_input_error(e));
            return 1;
        }
    }
    /* a trace that cannot be read stops here, before a directory, a context
     * and a summary of nothing */
    FILE *probe;
    int e = pvk_open_input(trace, &probe);
    if (e) {
        fprintf(stderr, "picavk replay: %s: %s\n", ESC(trace), pvk_input_error(e));
        free(state);
        return 1;
    }
    /* CiTrace files start with "CiTr"; everything else is read as a picavk trace */
    char magic[4] = {0};
    if (fread(magic, 1, 4, probe) != 4)
        magic[0] = 0;
    fclose(probe);
    if (!make_dirs("replay", dir))
        return 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/hashes.txt", dir);
    replay_state st = {.dir = dir, .save_at = save_at, .hashes = fopen(path, "w"), .quiet = quiet,
                       .tty = isatty(STDERR_FILENO)};
    if (!st.hashes || (load && !memcmp(magic, "CiTr", 4))) {
        if (st.hashes)
            fclose(st.hashes);
        fprintf(stderr, st.hashes ? "picavk replay: --load continues picavk traces (.pvt) only\n"
                                  : "picavk replay: cannot write %s\n",
                ESC(path));
        free(state);
        return 1;
    }
    if (st.tty && !quiet && pvk_trace_frames(trace, &st.total) != PVK_SUCCESS)
        st.total = 0; /* a damaged file: the replay says what is wrong */
    pvk_context *ctx;
    pvk_result r = pvk_context_create(&g_cfg, &ctx);
    if (r) {
        fclose(st.hashes);
        free(state);
        return fail("cannot create a context", r);
    }
    st.t0 = now_s();
    if (save_at == 0)
        r = save_state(ctx, &st);
    if (r)
        ;
    else if (!memcmp(magic, "CiTr", 4))
        r = pvk_citrace_replay(ctx, trace, on_replay_frame, &st);
    else if (load)
        r = pvk_trace_replay_from(ctx, trace, (uint32_t)from, state, state_len, on_replay_frame, &st);
    else
        r = pvk_trace_replay(ctx, trace, on_replay_frame, &st);
    free(state);
    if (!r && st.save_at >= 0) {
        fprintf(stderr, "picavk replay: --save-at %ld: the trace has %u frames\n", st.save_at, st.frames);
        r = PVK_ERROR_INVALID_ARGUMENT;
    }
    double dt = now_s() - st.t0;
    pvk_stats stats;
    pvk_get_stats(ctx, &stats);
    pvk_context_destroy(ctx);
    fclose(st.hashes);
    if (st.tty && !quiet && st.frames)
        fputc('\n', stderr);
    /* a file that fails before its first frame gets its error, no summary */
    bool report = !r || st.frames;
    if (!quiet && report)
        printf("replayed %u frames in %.2f s (%.1f frames/s): %llu command lists, %llu draws, %llu triangles, "
               "%llu fills, %llu transfers, %llu texture copies; %llu pipelines created, %llu shaders compiled "
               "(%llu from the disk cache); %llu errors in the guest's input, %llu unsupported\n",
               st.frames, dt, dt > 0 ? st.frames / dt : 0.0, (unsigned long long)stats.command_lists,
               (unsigned long long)stats.draws, (unsigned long long)stats.triangles, (unsigned long long)stats.fills,
               (unsigned long long)stats.transfers, (unsigned long long)stats.texture_copies,
               (unsigned long long)stats.pipelines_created, (unsigned long long)stats.shader_compiles,
               (unsigned long long)stats.shader_disk_hits, (unsigned long long)stats.bad_input,
               (unsigned long long)stats.unsupported);
    if (!quiet && report)
        printf("wrote %u pictures and hashes.txt to %s/\n", st.pictures, ESC(dir));
    if (stats_lines && report)
        print_stats(&stats);
    if (r)
        return fail("replay", r);
    if (stats.bad_input)
        fprintf(stderr, "picavk: replay: %llu errors in the guest's input (see the log)\n",
                (unsigned long long)stats.bad_input);
    return 0;
}

/* ---- scene scripts ---- */

static int cmd_run(const char *out, int n, char **paths, bool stats_lines)
{
    /* `save color NAME` statements write $PVK_SCENE_OUT/NAME.png */
    if (out && !make_dirs("run", out))
        return 1;
    if (out && setenv("PVK_SCENE_OUT", out, 1))
        return fail("cannot set PVK_SCENE_OUT", PVK_ERROR_OUT_OF_MEMORY);
    int failed = 0;
    pvk_stats sum = {0};
    for (int i = 0; i < n; i++) {
        pvk_context *ctx;
        pvk_result r = pvk_context_create(&g_cfg, &ctx);
        if (r)
            return fail("cannot create a context", r);
        int failures = 0;
        r = pvk_scene_run_file(ctx, paths[i], &failures);
        pvk_stats st;
        pvk_get_stats(ctx, &st);
        add_stats(&sum, &st);
        pvk_context_destroy(ctx);
        bool ok = !r && !failures;
        printf("%s %s", ok ? "PASS" : "FAIL", ESC(paths[i]));
        if (r)
            printf(" (%s)", pvk_result_string(r));
        else if (failures)
            printf(" (%d probes differ)", failures);
        printf("\n");
        failed += !ok;
    }
    printf("%d passed, %d failed\n", n - failed, failed);
    if (stats_lines)
        print_stats(&sum);
    return failed ? 1 : 0;
}

/* ---- shader assembler ---- */

/* `asm A.pica [B.pica ...]`: one SHBIN, a DVLE per source in order, one
 * shared DVLP (tools/asm.c pvk_pica_asm_files, as picasso does). */
static int cmd_asm(int n, char **in, const char *out)
{
    if (n > PVK_SHBIN_MAX_ENTRIES) {
        fprintf(stderr, "picavk asm: at most %d sources make one SHBIN, not %d\n", PVK_SHBIN_MAX_ENTRIES, n);
        return 2;
    }
    char *src[PVK_SHBIN_MAX_ENTRIES] = {0};
    size_t len[PVK_SHBIN_MAX_ENTRIES] = {0};
    pvk_shbin *sh = NULL, *back = NULL;
    uint8_t *bin = NULL;
    size_t size = 0;
    int status = 1;
    for (int i = 0; i < n; i++) {
        int e = pvk_read_file(in[i], &src[i], &len[i]);
        if (e) {
            fprintf(stderr, "picavk asm: %s: %s\n", ESC(in[i]), pvk_input_error(e));
            goto out;
        }
    }
    char err[512], def[4096];
    uint32_t bad = 0;
    pvk_result r = PVK_ERROR_OUT_OF_MEMORY;
    if ((sh = calloc((size_t)n, sizeof *sh)) && (back = malloc(sizeof *back)))
        r = pvk_pica_asm_files((uint32_t)n, (const char *const *)src, len, sh, &bad, err, sizeof err);
    if (!r)
        r = pvk_shbin_write_entries(sh, (uint32_t)n, &bin, &size);
    if (r) {
        if (r == PVK_ERROR_BAD_DATA) /* FILE:LINE: what, the file that failed */
            fprintf(stderr, "%s:%s\n", ESC(in[bad]), err + (strncmp(err, "line ", 5) ? 0 : 5));
        else
            fprintf(stderr, "picavk asm: %s\n", pvk_result_string(r));
        goto out;
    }
    if (!out) { /* FILE.pica -> FILE.shbin, after the first source */
        const char *dot = strrchr(in[0], '.'), *slash = strrchr(in[0], '/');
        size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - in[0]) : strlen(in[0]);
        snprintf(def, sizeof def, "%.*s.shbin", (int)(stem < 4000 ? stem : 4000), in[0]);
        out = def;
    }
    FILE *o = fopen(out, "wb");
    bool ok = o && fwrite(bin, 1, size, o) == size;
    if (o && fclose(o))
        ok = false;
    if (!ok) {
        fprintf(stderr, "picavk asm: cannot write %s\n", ESC(out));
        goto out;
    }
    /* what was written, read back from the file image as a loader sees it */
    if (n == 1 && !pvk_shbin_read(bin, size, back)) {
        printf("wrote %s: %zu bytes, a %s shader of %u instructions, %u outputs\n", ESC(out), size,
               back->geometry ? "geometry" : "vertex", back->code_len, back->out_count);
    } else if (n > 1 && pvk_shbin_entries(bin, size) == (uint32_t)n && !pvk_shbin_read(bin, size, back)) {
        printf("wrote %s: %zu bytes, %d entries sharing %u instructions and %u operand descriptor%s\n", ESC(out),
               size, n, back->code_len, back->opdesc_len, back->opdesc_len == 1 ? "" : "s");
        for (int i = 0; i < n && !pvk_shbin_read_entry(bin, size, (uint32_t)i, back); i++)
            printf("  entry %d, %s: a %s shader, entry point %u (up to %u), %u outputs\n", i, ESC(in[i]),
                   back->geometry ? "geometry" : "vertex", back->entry, back->entry_end, back->out_count);
    } else {
        printf("wrote %s: %zu bytes\n", ESC(out), size);
    }
    status = 0;
out:
    for (int i = 0; i < n; i++)
        free(src[i]);
    free(sh);
    free(back);
    free(bin);
    return status;
}

/* ---- arguments ---- */

/* What a command was given.  Options may come anywhere among the operands
 * (`picavk run a.pvs -o out b.pvs`); "--" ends them. */
typedef struct cli_args {
    const char *out;   /* -o: a directory (demo, run, replay) or the SHBIN file (asm) */
    const char *trace; /* demo --trace FILE */
    const char *load;  /* replay --load STATE */
    long save_at, from; /* replay --save-at N, --from N (-1: not given) */
    bool quiet, stats, help;
    char **operands;   /* the other arguments, in order (argv's own slots) */
    int n_operands;
} cli_args;

enum { OPT_OUT = 1, OPT_TRACE = 2, OPT_SCALE = 4, OPT_QUIET = 8, OPT_STATS = 16, OPT_SAVE_AT = 32, OPT_LOAD = 64,
       OPT_FROM = 128, OPT_DUMP = 256, OPT_PACK = 512, OPT_FILTER = 1024 };

/* A frame number for --save-at and --from. */
static bool parse_frame(const char *cmd, const char *opt, const char *v, long *out)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || end == v || *end || n < 0 || n > UINT32_MAX - 1) {
        fprintf(stderr, "picavk %s: %s takes a frame number (0 or more), not '%s'\n", cmd, opt, ESC(v));
        return false;
    }
    *out = n;
    return true;
}

/* False, said, for an option `cmd` does not take or one missing its value. */
static bool parse_args(const char *cmd, int argc, char **argv, unsigned takes, cli_args *a)
{
    *a = (cli_args){.operands = argv, .save_at = -1, .from = -1};
    bool options = true;
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        if (options && !strcmp(s, "--")) {
            options = false;
            continue;
        }
        if (!options || s[0] != '-' || !s[1]) { /* "-" alone is a (file) name */
            a->operands[a->n_operands++] = argv[i];
            continue;
        }
        if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
            a->help = true;
            continue;
        }
        unsigned opt = !strcmp(s, "-o")                            ? OPT_OUT
                       : !strcmp(s, "--trace")                     ? OPT_TRACE
                       : !strcmp(s, "--scale")                     ? OPT_SCALE
                       : !strcmp(s, "--quiet") || !strcmp(s, "-q") ? OPT_QUIET
                       : !strcmp(s, "--stats")                     ? OPT_STATS
                       : !strcmp(s, "--save-at")                   ? OPT_SAVE_AT
                       : !strcmp(s, "--load")                      ? OPT_LOAD
                       : !strcmp(s, "--from")                      ? OPT_FROM
                       : !strcmp(s, "--dump-textures")             ? OPT_DUMP
                       : !strcmp(s, "--texture-pack")              ? OPT_PACK
                       : !strcmp(s, "--texture-filter")            ? OPT_FILTER
                                                                   : 0;
        if (!(opt & takes)) {
            fprintf(stderr, "picavk %s: unknown option '%s' (see picavk --help; -- ends the options)\n", cmd,
                    ESC(s));
            return false;
        }
        if (opt & (OPT_OUT | OPT_TRACE | OPT_SCALE | OPT_SAVE_AT | OPT_LOAD | OPT_FROM | OPT_DUMP | OPT_PACK | OPT_FILTER)) {
            if (i + 1 >= argc) {
                fprintf(stderr, "picavk %s: %s needs a value\n", cmd, s);
                return false;
            }
            const char *v = argv[++i];
            if (opt == OPT_OUT)
                a->out = v;
            else if (opt == OPT_TRACE)
                a->trace = v;
            else if (opt == OPT_LOAD)
                a->load = v;
            else if (opt == OPT_DUMP)
                g_cfg.texture_dump_dir = v; /* every context the command makes dumps there */
            else if (opt == OPT_FILTER)
                g_cfg.texture_filter = v;
            else if (opt == OPT_PACK) {
                g_cfg.texture_pack_dir = v;
                g_cfg.texture_pack_sync = true; /* the CLI's pictures do not depend on timing */
            }
            else if (opt == OPT_SAVE_AT || opt == OPT_FROM) {
                if (!parse_frame(cmd, s, v, opt == OPT_FROM ? &a->from : &a->save_at))
                    return false;
            }
            else if (!parse_scale(cmd, v))
                return false;
        } else if (opt == OPT_QUIET) {
            a->quiet = true;
        } else {
            a->stats = true;
        }
    }
    return true;
}

/* The commands: the options each takes and how many operands. */
static const struct command {
    const char *name;
    unsigned takes;
    int min_operands, max_operands;
    const char *usage;
} commands[] = {
    {"info", 0, 0, 0, "picavk info"},
    {"demo", OPT_OUT | OPT_TRACE | OPT_SCALE | OPT_STATS | OPT_DUMP | OPT_PACK | OPT_FILTER, 0, 0,
     "picavk demo [-o DIR] [--trace FILE] [--scale N] [--stats] [--dump-textures DIR] [--texture-pack DIR]\n"
     "            [--texture-filter NAME]"},
    {"run", OPT_OUT | OPT_SCALE | OPT_STATS | OPT_DUMP | OPT_PACK | OPT_FILTER, 1, INT_MAX,
     "picavk run [-o DIR] [--scale N] [--stats] [--dump-textures DIR] [--texture-pack DIR]\n"
     "           [--texture-filter NAME] SCENE.pvs..."},
    {"replay",
     OPT_OUT | OPT_QUIET | OPT_STATS | OPT_SCALE | OPT_SAVE_AT | OPT_LOAD | OPT_FROM | OPT_DUMP | OPT_PACK | OPT_FILTER,
     1, 1,
     "picavk replay TRACE [-o DIR] [--quiet] [--stats] [--scale N] [--dump-textures DIR]\n"
     "              [--texture-pack DIR] [--texture-filter NAME] [--save-at N | --load STATE --from N]"},
    {"asm", OPT_OUT, 1, INT_MAX, "picavk asm FILE.pica... [-o FILE.shbin]"},
};

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
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        printf("picavk %s\n", pvk_version());
        return 0;
    }
    const struct command *c = NULL;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(cmd, commands[i].name))
            c = &commands[i];
    if (!c) {
        fprintf(stderr, "picavk: unknown command '%s' (try --help)\n", ESC(cmd));
        return 2;
    }
    cli_args a;
    if (!parse_args(cmd, argc - 2, argv + 2, c->takes, &a))
        return 2;
    if (a.help || a.n_operands < c->min_operands || a.n_operands > c->max_operands) {
        fprintf(a.help ? stdout : stderr, "usage: %s\n", c->usage);
        return a.help ? 0 : 2;
    }
    if (!strcmp(cmd, "info"))
        return cmd_info();
    if (!strcmp(cmd, "demo"))
        return cmd_demo(a.out ? a.out : DEMO_DIR, a.trace, a.stats);
    if (!strcmp(cmd, "run"))
        return cmd_run(a.out, a.n_operands, a.operands, a.stats);
    if (!strcmp(cmd, "replay"))
        return cmd_replay(a.operands[0], a.out ? a.out : REPLAY_DIR, a.quiet, a.stats, a.save_at, a.load, a.from);
    return cmd_asm(a.n_operands, a.operands, a.out);
}
