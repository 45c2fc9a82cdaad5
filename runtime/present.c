/* LCD output: at each VBlank the PDC registers of both screens are read and
 * each screen's framebuffer is scanned out by a compute pass into an upright
 * RGBA8 image (host-visible buffer; read with pvk_frame_read). */
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"

#define MAX_SCANLINES 1024 /* output width: 400 top, 800 wide, 320 bottom */
#define MAX_LINE_PIXELS 1024 /* output height: 240 */

typedef struct lcd_screen {
    VkBuffer buf;
    VkDeviceMemory mem;
    uint32_t *pixels; /* mapped */
    uint32_t width, height;
} lcd_screen;

struct pvk_lcd {
    lcd_screen screens[PVK_SCREEN_COUNT];
    uint64_t frame_value; /* timeline value of the last scan-out */
    uint64_t frames;
};

pvk_result pvk_lcd_init(pvk_context *ctx)
{
    struct pvk_lcd *lcd = calloc(1, sizeof *lcd);
    if (!lcd)
        return PVK_ERROR_OUT_OF_MEMORY;
    ctx->lcd = lcd;
    for (int i = 0; i < PVK_SCREEN_COUNT; i++) {
        lcd_screen *s = &lcd->screens[i];
        pvk_result r = pvk_create_buffer(ctx, (VkDeviceSize)MAX_SCANLINES * MAX_LINE_PIXELS * 4,
                                         VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                         &s->buf, &s->mem);
        if (r)
            return r;
        void *p;
        if ((r = pvk_vk_check(ctx, ctx->vk.vkMapMemory(ctx->device, s->mem, 0, VK_WHOLE_SIZE, 0, &p), "vkMapMemory")))
            return r;
        s->pixels = p;
    }
    return PVK_SUCCESS;
}

void pvk_lcd_destroy(pvk_context *ctx)
{
    struct pvk_lcd *lcd = ctx->lcd;
    if (!lcd)
        return;
    for (int i = 0; i < PVK_SCREEN_COUNT; i++) {
        lcd_screen *s = &lcd->screens[i];
        if (s->buf)
            ctx->vk.vkDestroyBuffer(ctx->device, s->buf, NULL);
        if (s->mem)
            ctx->vk.vkFreeMemory(ctx->device, s->mem, NULL);
    }
    free(lcd);
    ctx->lcd = NULL;
}

/* The push-constant block of scanout.comp. */
typedef struct scanout_push {
    uint32_t width, height;
    int32_t start_a, start_b;
    uint32_t lo_a, hi_a, lo_b, hi_b;
    int32_t stride;
    uint32_t fmt, interlace, overscan, double_pixels;
    uint32_t pad[3];
} scanout_push;
_Static_assert(sizeof(scanout_push) == 64, "scanout push constants");

/* Resolve the guest bytes one framebuffer's scanlines touch and bind them.
 * On failure the framebuffer reads as missing (overscan colour). */
static void bind_framebuffer(pvk_context *ctx, uint32_t addr, int32_t stride, uint32_t lines, uint32_t row_bytes,
                             const char *what, pvk_buffer_range *range, int32_t *start, uint32_t *lo, uint32_t *hi)
{
    int64_t span_lo = (int64_t)addr + (stride < 0 ? (int64_t)(lines - 1) * stride : 0);
    int64_t span_hi = (int64_t)addr + (stride > 0 ? (int64_t)(lines - 1) * stride : 0) + row_bytes;
    pvk_guest_span span;
    uint32_t sub;
    if (span_lo >= 0 && span_hi <= UINT32_MAX &&
        pvk_guest_resolve(ctx, (uint32_t)span_lo, (uint32_t)(span_hi - span_lo), what, &span) &&
        pvk_guest_bind(ctx, &span, range, &sub, what)) {
        *start = (int32_t)(sub + (uint32_t)((int64_t)addr - span_lo));
        *lo = sub;
        *hi = sub + span.len;
        return;
    }
    if (span_lo < 0 || span_hi > UINT32_MAX)
        pvk_bad_input(ctx, "%s: framebuffer at 0x%08X with stride %d leaves the address space", what, addr, stride);
    /* any valid binding; the empty window makes every pixel the overscan colour */
    *range = (pvk_buffer_range){ctx->guest.regions[PVK_REGION_VRAM].buffer, 0, 16};
    *start = 0;
    *lo = *hi = 0;
}

/* Record the scan-out of one screen (pdc 0 top, 1 bottom; `eye` 1 = B buffer). */
static void scan_screen(pvk_context *ctx, pvk_op *op, int pdc, int eye, lcd_screen *out)
{
    const uint32_t *r = &ctx->mmio.regs[(PVK_REG_PDC0 + 0x100u * (uint32_t)pdc) / 4];
    uint32_t format = r[PVK_PDC_FORMAT / 4], size = r[PVK_PDC_IMAGE_SIZE / 4];
    uint32_t select = r[PVK_PDC_SELECT / 4] & 1;
    uint32_t line_pixels = size & 0xFFFF, lines = size >> 16;
    if (!line_pixels || !lines) { /* not programmed: the panel's native size */
        line_pixels = 240;
        lines = pdc ? 320 : 400;
    }
    if (line_pixels > MAX_LINE_PIXELS || lines > MAX_SCANLINES) {
        pvk_bad_input(ctx, "PDC%d: image size %ux%u exceeds %ux%u; clipped", pdc, lines, line_pixels, MAX_SCANLINES,
                      MAX_LINE_PIXELS);
        line_pixels = line_pixels > MAX_LINE_PIXELS ? MAX_LINE_PIXELS : line_pixels;
        lines = lines > MAX_SCANLINES ? MAX_SCANLINES : lines;
    }
    uint32_t fmt = format & 7;
    /* Formats 5-7: outside userland the hardware shows pixel-doubled RGBA8.
     * Bit 6 on the bottom screen doubles pixels too (on the top screen it
     * doubles scanlines on the panel, which leaves the logical image as is). */
    uint32_t dbl = fmt >= 5 || (pdc == 1 && (format & 0x40));
    if (fmt >= 5)
        fmt = 0;
    uint32_t bpp = fmt == 0 ? 4 : fmt == 1 ? 3 : 2;
    int32_t stride = (int32_t)r[PVK_PDC_STRIDE / 4];
    uint32_t addr = eye ? r[(select ? PVK_PDC_FB_B1 : PVK_PDC_FB_B0) / 4] : r[(select ? PVK_PDC_FB_A1 : PVK_PDC_FB_A0) / 4];
    uint32_t row_bytes = (dbl ? (line_pixels + 1) / 2 : line_pixels) * bpp;
    scanout_push pc = {
        .width = lines,
        .height = line_pixels,
        .stride = stride,
        .fmt = fmt,
        .interlace = 0, /* each eye is its own image */
        .overscan = r[PVK_PDC_OVERSCAN_COLOR / 4] & 0xFFFFFF,
        .double_pixels = dbl,
    };
    pvk_buffer_range ranges[3];
    bool enabled = r[PVK_PDC_CONTROL / 4] & 1;
    if (enabled) {
        bind_framebuffer(ctx, addr, stride, lines, row_bytes, pdc ? "PDC1 framebuffer" : "PDC0 framebuffer",
                         &ranges[0], &pc.start_a, &pc.lo_a, &pc.hi_a);
        pvk_mmio_count(ctx, pdc ? PVK_REG_TRAFFIC_LCD_BOTTOM_READS : PVK_REG_TRAFFIC_LCD_TOP_READS, lines * row_bytes);
    } else {
        /* a disabled controller pushes no pixels: black */
        ranges[0] = (pvk_buffer_range){ctx->guest.regions[PVK_REGION_VRAM].buffer, 0, 16};
        pc.overscan = 0;
    }
    ranges[1] = ranges[0];
    pc.start_b = pc.start_a;
    pc.lo_b = pc.lo_a;
    pc.hi_b = pc.hi_a;
    ranges[2] = (pvk_buffer_range){out->buf, 0, (VkDeviceSize)lines * line_pixels * 4};
    out->width = lines;
    out->height = line_pixels;
    pvk_op_dispatch(ctx, op, PVK_PIPE_SCANOUT, ranges, &pc, (lines + 7) / 8, (line_pixels + 7) / 8, 1);
}

pvk_result pvk_vblank(pvk_context *ctx)
{
    if (!ctx)
        return PVK_ERROR_INVALID_ARGUMENT;
    if (ctx->sticky)
        return ctx->sticky;
    struct pvk_lcd *lcd = ctx->lcd;
    pvk_op op;
    pvk_result res = pvk_op_begin(ctx, &op);
    if (res)
        return res;
    for (int pdc = 0; pdc < 2; pdc++) {
        const uint32_t *r = &ctx->mmio.regs[(PVK_REG_PDC0 + 0x100u * (uint32_t)pdc) / 4];
        lcd_screen *main = &lcd->screens[pdc ? PVK_SCREEN_BOTTOM : PVK_SCREEN_TOP];
        scan_screen(ctx, &op, pdc, 0, main);
        if (pdc == 0) {
            uint32_t interlace = (r[PVK_PDC_FORMAT / 4] >> 4) & 3;
            uint32_t sel = r[PVK_PDC_SELECT / 4] & 1;
            uint32_t a = r[(sel ? PVK_PDC_FB_A1 : PVK_PDC_FB_A0) / 4], b = r[(sel ? PVK_PDC_FB_B1 : PVK_PDC_FB_B0) / 4];
            lcd_screen *right = &lcd->screens[PVK_SCREEN_TOP_RIGHT];
            if (interlace >= 2 && a != b)
                scan_screen(ctx, &op, 0, 1, right);
            else
                right->width = right->height = 0;
        }
    }
    if ((res = pvk_op_submit(ctx, &op)))
        return res;
    lcd->frame_value = ctx->timeline_next;
    lcd->frames++;
    /* Latch the select bit into "displaying" (bit 4) and raise VBlank
     * (status bit 17) where the controller is on and the IRQ unmasked. */
    for (int pdc = 0; pdc < 2; pdc++) {
        uint32_t *r = &ctx->mmio.regs[(PVK_REG_PDC0 + 0x100u * (uint32_t)pdc) / 4];
        uint32_t *sel = &r[PVK_PDC_SELECT / 4];
        *sel = (*sel & ~0x10u) | ((*sel & 1) << 4);
        uint32_t control = r[PVK_PDC_CONTROL / 4];
        if ((control & 1) && !(control & 0x200)) {
            *sel |= 1u << 17;
            pvk_raise_irq(ctx, pdc ? PVK_IRQ_PDC1 : PVK_IRQ_PDC0);
        }
    }
    return PVK_SUCCESS;
}

pvk_result pvk_frame_size(pvk_context *ctx, pvk_screen screen, uint32_t *width, uint32_t *height)
{
    if (!ctx || !width || !height || (unsigned)screen >= PVK_SCREEN_COUNT)
        return PVK_ERROR_INVALID_ARGUMENT;
    const lcd_screen *s = &ctx->lcd->screens[screen];
    *width = ctx->lcd->frames ? s->width : 0;
    *height = ctx->lcd->frames ? s->height : 0;
    return PVK_SUCCESS;
}

pvk_result pvk_frame_read(pvk_context *ctx, pvk_screen screen, void *rgba, size_t stride)
{
    if (!ctx || !rgba || (unsigned)screen >= PVK_SCREEN_COUNT)
        return PVK_ERROR_INVALID_ARGUMENT;
    const lcd_screen *s = &ctx->lcd->screens[screen];
    if (!ctx->lcd->frames || !s->width)
        return PVK_ERROR_INVALID_ARGUMENT;
    if (stride < (size_t)s->width * 4)
        return PVK_ERROR_INVALID_ARGUMENT;
    pvk_result r = pvk_retire(ctx, true);
    if (r)
        return r;
    for (uint32_t y = 0; y < s->height; y++)
        memcpy((uint8_t *)rgba + y * stride, s->pixels + (size_t)y * s->width, (size_t)s->width * 4);
    return PVK_SUCCESS;
}
