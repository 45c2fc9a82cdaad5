/* The picavk command line: info, demo. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "picavk/picavk.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: picavk <command> [options]\n"
            "\n"
            "commands:\n"
            "  info              print the Vulkan device picavk picks and its features\n"
            "  demo [-o DIR]     program both LCDs as the 3DS OS does, fill their framebuffers\n"
            "                    through the GPU, and write DIR/top.png and DIR/bottom.png\n"
            "                    (default DIR: .)\n"
            "  --help            this text\n"
            "\n"
            "environment: PVK_DEVICE=<name part> picks a device, PVK_VALIDATION=1 enables the\n"
            "Khronos validation layer, PVK_LOG_LEVEL=error|warn|info|debug, PVK_DEBUG=flag,...\n"
            "(no-host-import, verbose, sync)\n");
}

static int fail(const char *what, pvk_result r)
{
    fprintf(stderr, "picavk: %s: %s\n", what, pvk_result_string(r));
    return 1;
}

static int cmd_info(void)
{
    pvk_context *ctx;
    pvk_result r = pvk_context_create(NULL, &ctx);
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

/* The top screen's PDC setup from nngxInitialize (seed document 004),
 * the bottom's mirroring it with 320 scanlines. */
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
    for (size_t i = 0; i < sizeof top_init / sizeof top_init[0]; i++) {
        wr(ctx, 0x1EF00000 + top_init[i][0], top_init[i][1]);
        uint32_t v = top_init[i][1];
        if (top_init[i][0] == 0x45C)
            v = 0x14000F0; /* 320 scanlines of 240 pixels */
        wr(ctx, 0x1EF00100 + top_init[i][0], v);
    }
    /* framebuffers: RGBA8 (format 0, 2D), 240 pixels * 4 bytes per memory row */
    for (int s = 0; s < 2; s++) {
        uint32_t base = 0x1EF00400 + 0x100u * (uint32_t)s, fb = s ? bottom_fb : top_fb;
        wr(ctx, base + 0x68, fb);
        wr(ctx, base + 0x6C, fb);
        wr(ctx, base + 0x94, fb);
        wr(ctx, base + 0x98, fb);
        wr(ctx, base + 0x70, 0x80300 | (s ? 0 : 0x40));
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

static int cmd_demo(const char *dir)
{
    if (mkdir(dir, 0755) && errno != EEXIST) {
        fprintf(stderr, "picavk: cannot create %s: %s\n", dir, strerror(errno));
        return 1;
    }
    pvk_context *ctx;
    pvk_result r = pvk_context_create(NULL, &ctx);
    if (r)
        return fail("cannot create a context", r);
    printf("device: %s\n", pvk_device_name(ctx));
    const uint32_t top_fb = 0x18000000, bottom_fb = 0x18100000;
    setup_lcds(ctx, top_fb, bottom_fb);
    /* Clear colours as RGBA8 words 0xRRGGBBAA: a dark blue top, a teal bottom. */
    if ((r = gpu_fill(ctx, 0, top_fb, 400 * 240 * 4, 0x203060FF)) ||
        (r = gpu_fill(ctx, 1, bottom_fb, 320 * 240 * 4, 0x208080FF)) || (r = pvk_vblank(ctx)))
        goto out;
    static const struct { pvk_screen s; const char *name; } outs[] = {
        {PVK_SCREEN_TOP, "top.png"}, {PVK_SCREEN_TOP_RIGHT, "top-right.png"}, {PVK_SCREEN_BOTTOM, "bottom.png"}};
    for (size_t i = 0; i < 3; i++) {
        uint32_t w, h;
        pvk_frame_size(ctx, outs[i].s, &w, &h);
        if (!w)
            continue;
        uint8_t *px = malloc((size_t)w * h * 4);
        if (!px) {
            r = PVK_ERROR_OUT_OF_MEMORY;
            goto out;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, outs[i].name);
        if (!(r = pvk_frame_read(ctx, outs[i].s, px, (size_t)w * 4)))
            r = pvk_write_png(path, px, w, h, (size_t)w * 4);
        free(px);
        if (r)
            goto out;
        printf("wrote %s (%ux%u)\n", path, w, h);
    }
out:
    pvk_context_destroy(ctx);
    return r ? fail("demo", r) : 0;
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
        const char *dir = ".";
        for (int i = 2; i < argc; i++) {
            if (!strcmp(argv[i], "-o") && i + 1 < argc)
                dir = argv[++i];
            else {
                fprintf(stderr, "picavk demo: unknown option '%s'\n", argv[i]);
                return 2;
            }
        }
        return cmd_demo(dir);
    }
    fprintf(stderr, "picavk: unknown command '%s' (try --help)\n", cmd);
    return 2;
}
