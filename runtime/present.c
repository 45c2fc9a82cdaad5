/* LCD output.  At each VBlank the PDC registers of both screens are decoded
 * and each screen is scanned out by a compute pass into an upright RGBA8
 * host-visible buffer (pvk_frame_read), then copied and scaled into VkImages
 * for hosts (pvk_frame_acquire / pvk_frame_release).
 *
 * Register semantics chosen here (seed 004 leaves them open):
 * - Image size: pixels per scanline (screen height) = HDisp (0x60) end - start,
 *   scanlines (screen width) = 0x64 high - low ("framebuffer total height"):
 *   the OS tables give 0x1C1-0xD1 = 240 and 0x192-2 = 400 (top) or
 *   0x192-0x52 = 320 (bottom).  Unprogrammed (0) means the panel's size.
 * - The stride's low 3 bits are ignored (the seed: "bottom 3 bits ignored",
 *   strides must be multiples of 8); zero repeats the first row, negative
 *   strides walk backwards from the pointer.
 * - Interlace: each framebuffer has its own row pointer that advances once per
 *   scanline it supplies; AA starts both at A.  On the top screen AB/BA feed
 *   the two eyes through the parallax barrier, so the left eye is the lines
 *   from A and the right eye the lines from B (each half the scanlines: 800
 *   scanlines in 3D give 400 per eye); the right eye image exists only when B's
 *   address differs.  The bottom screen shows the interleaved lines as is.
 * - Formats 5-7 show as RGBA8 with every memory pixel output twice along the
 *   scanline (the seed: "pixel-doubled RGBA8" outside userland); bit 6 on the
 *   bottom screen doubles pixels the same way, on the top it doubles
 *   scanlines on the panel only, which leaves the logical image unchanged.
 * - The colour LUT is always applied, per channel: R = LUT[R] bits 0-7,
 *   G = LUT[G] bits 8-15, B = LUT[B] bits 16-23 (a gamma table; boot code
 *   fills it with i * 0x010101, the reset value in vram/mmio.c).  The overscan
 *   colour bypasses it.
 * - Missing framebuffers (outside guest memory, absurd strides) are logged,
 *   counted and shown as the overscan colour; a disabled PDC shows black.
 * - VBlank: FB_SELECT bit 0 is latched into bit 4 and selects the first or
 *   second address; status bit 17 and the PDC IRQ are raised when the PDC is
 *   enabled and the VBlank IRQ is not masked (control bit 9).
 * - Resolution scale N > 1 (pvk_set_scale): frames are N x the screen.  A
 *   screen in mode A (2D, and each eye in 3D) whose framebuffer is exactly
 *   the output of a display transfer from a scaled render target (a shown
 *   image, vram/surface.c: same address, format, rows of 240 pixels packed
 *   at the stride, no pixel doubling, nothing written there since) shows
 *   that image at N x, through the LUT; every other screen is its 1x
 *   scan-out upsampled (nearest).  The output scale of pvk_set_output then
 *   multiplies the frame. */
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "runtime/runtime.h"

#define MAX_LINES 1024       /* screen width: 400 top, 800 wide/3D, 320 bottom */
#define MAX_LINE_PIXELS 1024 /* screen height: 240 */
#define MAX_SCALE 8
#define N_SLOTS 3            /* image sets: one being written, two the host may hold */

typedef struct lcd_screen {
    VkBuffer buf;
    VkDeviceMemory mem;
    uint32_t *pixels; /* mapped */
    uint32_t width, height; /* 0 x 0: absent this frame */
    uint32_t scale;         /* the frame is width*scale x height*scale */
    /* resolution scale > 1: the frame at N x (mapped), and the shown image
     * the scan found for it this frame */
    VkBuffer big;
    VkDeviceMemory big_mem;
    uint32_t *big_pixels;
    VkDeviceSize big_cap;
    bool has_shown;
    pvk_buffer_range shown;
} lcd_screen;

/* The frame's size: the screen times the resolution scale it was made at. */
static uint32_t frame_w(const lcd_screen *s)
{
    return s->width * s->scale;
}

static uint32_t frame_h(const lcd_screen *s)
{
    return s->height * s->scale;
}

typedef pvk_image lcd_image;

/* One set of output images; the host holds it between acquire and release. */
typedef struct frame_slot {
    lcd_image stage[PVK_SCREEN_COUNT];   /* 1x copies of the scan-out: blit sources */
    lcd_image screens[PVK_SCREEN_COUNT];
    lcd_image combined;
    bool has[PVK_SCREEN_COUNT], has_combined;
    VkRect2D rects[PVK_SCREEN_COUNT];
    VkImageLayout layout;
    uint64_t frame, value;               /* VBlank count and timeline value that filled it */
    uint32_t holds;
    VkSemaphore host_done;               /* the host's last use of the images */
    uint64_t host_done_value;
} frame_slot;

struct pvk_lcd {
    lcd_screen screens[PVK_SCREEN_COUNT];
    VkBuffer lut_buf; /* both LUTs, 1 KiB each, refreshed every VBlank */
    VkDeviceMemory lut_mem;
    pvk_output_config out;
    frame_slot slots[N_SLOTS];
    int newest; /* slot of the newest frame, -1 before the first */
    uint64_t frame_value; /* timeline value of the last scan-out */
    uint64_t frames;
    uint32_t clamped_scale; /* the last scale an output cap forced (logged on change) */
    bool warned_held;
};

static void destroy_image(pvk_context *ctx, lcd_image *im)
{
    pvk_image_destroy(&ctx->gpu, im);
}

/* (Re)create `im` at w x h unless it already is that size; output images
 * are sampled by the host and get a view. */
static pvk_result ensure_image(pvk_context *ctx, lcd_image *im, uint32_t w, uint32_t h, bool output)
{
    pvk_result r = pvk_image_ensure(&ctx->gpu, im, w, h, VK_FORMAT_R8G8B8A8_UNORM,
                                    VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                        (output ? VK_IMAGE_USAGE_SAMPLED_BIT : 0),
                                    output);
    pvk_object_name(&ctx->gpu, VK_OBJECT_TYPE_IMAGE, (uint64_t)im->image, "LCD %s image %ux%u",
                    output ? "output" : "staging", w, h);
    return r;
}

pvk_result pvk_lcd_init(pvk_context *ctx)
{
    struct pvk_lcd *lcd = calloc(1, sizeof *lcd);
    if (!lcd)
        return PVK_ERROR_OUT_OF_MEMORY;
    ctx->lcd = lcd;
    lcd->newest = -1;
    lcd->out = (pvk_output_config){.scale = 1, .image_layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    pvk_result r;
    for (int i = 0; i < PVK_SCREEN_COUNT; i++) {
        lcd_screen *s = &lcd->screens[i];
        r = pvk_create_buffer(&ctx->gpu, (VkDeviceSize)MAX_LINES * MAX_LINE_PIXELS * 4,
                              VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                              VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, &s->buf,
                              &s->mem);
        if (r)
            return r;
        void *p;
        if ((r = pvk_vk_check(&ctx->gpu, ctx->gpu.vk.vkMapMemory(ctx->gpu.device, s->mem, 0, VK_WHOLE_SIZE, 0, &p),
                              "vkMapMemory")))
            return r;
        s->pixels = p;
    }
    r = pvk_create_buffer(&ctx->gpu, sizeof ctx->vram.mmio.lut,
                          VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                          VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &lcd->lut_buf, &lcd->lut_mem);
    if (r == PVK_ERROR_MISSING_FEATURE)
        r = pvk_create_buffer(&ctx->gpu, sizeof ctx->vram.mmio.lut,
                              VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, 0, &lcd->lut_buf,
                              &lcd->lut_mem);
    return r;
}

void pvk_lcd_destroy(pvk_context *ctx)
{
    struct pvk_lcd *lcd = ctx->lcd;
    if (!lcd)
        return;
    for (int i = 0; i < PVK_SCREEN_COUNT; i++) {
        lcd_screen *s = &lcd->screens[i];
        if (s->buf)
            ctx->gpu.vk.vkDestroyBuffer(ctx->gpu.device, s->buf, NULL);
        if (s->mem)
            ctx->gpu.vk.vkFreeMemory(ctx->gpu.device, s->mem, NULL);
        if (s->big)
            ctx->gpu.vk.vkDestroyBuffer(ctx->gpu.device, s->big, NULL);
        if (s->big_mem)
            ctx->gpu.vk.vkFreeMemory(ctx->gpu.device, s->big_mem, NULL);
    }
    for (int k = 0; k < N_SLOTS; k++) {
        frame_slot *f = &lcd->slots[k];
        for (int i = 0; i < PVK_SCREEN_COUNT; i++) {
            destroy_image(ctx, &f->stage[i]);
            destroy_image(ctx, &f->screens[i]);
        }
        destroy_image(ctx, &f->combined);
    }
    if (lcd->lut_buf)
        ctx->gpu.vk.vkDestroyBuffer(ctx->gpu.device, lcd->lut_buf, NULL);
    if (lcd->lut_mem)
        ctx->gpu.vk.vkFreeMemory(ctx->gpu.device, lcd->lut_mem, NULL);
    free(lcd);
    ctx->lcd = NULL;
}

/* ---- scan-out ---- */

/* The push-constant block of scanout.comp. */
typedef struct scanout_push {
    uint32_t width, height;
    int32_t start_a, start_b;
    uint32_t lo_a, hi_a, lo_b, hi_b;
    int32_t stride;
    uint32_t fmt, mode, overscan, double_pixels;
    uint32_t lut_identity; /* not read: the block shader is specialised on it */
    uint32_t y_end;        /* the per-pixel shader does image rows [0, y_end) */
    uint32_t pad;
} scanout_push;
_Static_assert(sizeof(scanout_push) == 64, "scanout push constants");

enum { MODE_A, MODE_AA, MODE_AB, MODE_BA };

/* One PDC's registers, decoded. */
typedef struct pdc_state {
    bool enabled;
    uint32_t lines, line_pixels; /* scanlines (screen width) x pixels per scanline */
    uint32_t fmt, bpp, mode, overscan;
    bool dbl;
    int32_t stride;
    uint32_t addr_a, addr_b;
} pdc_state;

static const uint32_t *pdc_regs(const pvk_context *ctx, int pdc)
{
    return &ctx->vram.mmio.regs[(PVK_REG_PDC0 + 0x100u * (uint32_t)pdc) / 4];
}

/* end - start of a register holding two 12-bit positions; `native` when the
 * register was never programmed or makes no sense. */
static uint32_t span_of(pvk_context *ctx, int pdc, uint32_t reg, uint32_t native, const char *name)
{
    uint32_t v = pdc_regs(ctx, pdc)[reg / 4], lo = v & 0xFFF, hi = (v >> 16) & 0xFFF;
    if (!v)
        return native;
    if (hi <= lo) {
        pvk_bad_input(&ctx->gpu, "PDC%d: %s end %u not after start %u; using %u", pdc, name, hi, lo, native);
        return native;
    }
    uint32_t n = hi - lo, max = reg == PVK_PDC_HDISP ? MAX_LINE_PIXELS : MAX_LINES;
    if (n > max) {
        pvk_bad_input(&ctx->gpu, "PDC%d: %s of %u exceeds %u; clipped", pdc, name, n, max);
        n = max;
    }
    return n;
}

static void decode(pvk_context *ctx, int pdc, pdc_state *s)
{
    const uint32_t *r = pdc_regs(ctx, pdc);
    uint32_t format = r[PVK_PDC_FORMAT / 4];
    s->enabled = r[PVK_PDC_CONTROL / 4] & 1;
    s->line_pixels = span_of(ctx, pdc, PVK_PDC_HDISP, 240, "HDisp");
    s->lines = span_of(ctx, pdc, PVK_PDC_FB_HEIGHT, pdc ? 320 : 400, "scanline window (0x64)");
    s->fmt = format & 7;
    s->dbl = s->fmt >= 5 || (pdc == 1 && (format & 0x40));
    if (s->fmt >= 5)
        s->fmt = 0;
    s->bpp = pvk_color_format_bpp(s->fmt);
    s->mode = (format >> 4) & 3;
    s->overscan = r[PVK_PDC_OVERSCAN_COLOR / 4] & 0xFFFFFF;
    s->stride = (int32_t)(r[PVK_PDC_STRIDE / 4] & ~7u);
    bool second = r[PVK_PDC_SELECT / 4] & 0x10;
    s->addr_a = r[(second ? PVK_PDC_FB_A1 : PVK_PDC_FB_A0) / 4];
    s->addr_b = s->mode == MODE_AA ? s->addr_a : r[(second ? PVK_PDC_FB_B1 : PVK_PDC_FB_B0) / 4];
}

/* Bind the guest bytes `rows` rows of one framebuffer touch.  On failure (or
 * no rows) the framebuffer reads as missing: an empty window. */
static void bind_framebuffer(pvk_context *ctx, int pdc, uint32_t addr, const pdc_state *s, uint32_t rows,
                             const char *what, pvk_buffer_range *range, int32_t *start, uint32_t *lo, uint32_t *hi)
{
    /* any valid binding for the empty window */
    *range = (pvk_buffer_range){ctx->vram.guest.regions[PVK_REGION_VRAM].buffer, 0, 16};
    *start = 0;
    *lo = *hi = 0;
    if (!rows)
        return;
    uint32_t row_bytes = (s->dbl ? (s->line_pixels + 1) / 2 : s->line_pixels) * s->bpp;
    int64_t last = (int64_t)(rows - 1) * s->stride;
    int64_t span_lo = (int64_t)addr + (last < 0 ? last : 0);
    int64_t span_hi = (int64_t)addr + (last > 0 ? last : 0) + row_bytes;
    if (span_lo < 0 || span_hi > UINT32_MAX) {
        pvk_bad_input(&ctx->gpu, "%s: framebuffer at 0x%08X with stride %d leaves the address space", what, addr,
                      s->stride);
        return;
    }
    pvk_guest_span span;
    uint32_t sub;
    /* a render target shown directly: its surface goes home first (a failed
     * write-back is logged and counted; memory's bytes are shown) */
    (void)pvk_guest_sync_for_read(&ctx->vram, (uint32_t)span_lo, (uint32_t)(span_hi - span_lo));
    if (!pvk_guest_resolve(&ctx->vram, (uint32_t)span_lo, (uint32_t)(span_hi - span_lo), what, &span) ||
        !pvk_guest_bind(&ctx->vram, &span, range, &sub, what)) {
        *range = (pvk_buffer_range){ctx->vram.guest.regions[PVK_REGION_VRAM].buffer, 0, 16};
        return;
    }
    if (span.region->mirror) { /* mirror mode: earlier GPU writes home first, then ours in */
        pvk_gpu_idle(&ctx->gpu);
        pvk_guest_upload(&ctx->vram, &span);
    }
    *start = (int32_t)(sub + (uint32_t)((int64_t)addr - span_lo));
    *lo = sub;
    *hi = sub + span.len;
    pvk_mmio_count(&ctx->vram.mmio, pdc ? PVK_REG_TRAFFIC_LCD_BOTTOM_READS : PVK_REG_TRAFFIC_LCD_TOP_READS,
                   rows * row_bytes);
}

/* Record the scan-out of `width` columns into `out`.  `mode` maps columns to
 * framebuffer rows; a_rows/b_rows are the rows each framebuffer supplies. */
static void scan(pvk_context *ctx, pvk_op *op, int pdc, const pdc_state *s, uint32_t mode, uint32_t addr_a,
                 uint32_t a_rows, uint32_t addr_b, uint32_t b_rows, uint32_t width, lcd_screen *out)
{
    const char *what = pdc ? "PDC1 framebuffer" : "PDC0 framebuffer";
    scanout_push pc = {
        .width = width,
        .height = s->line_pixels,
        .stride = s->stride,
        .fmt = s->fmt,
        .mode = mode,
        .overscan = s->overscan,
        .double_pixels = s->dbl,
    };
    pvk_buffer_range ranges[4];
    if (s->enabled) {
        bind_framebuffer(ctx, pdc, addr_a, s, a_rows, what, &ranges[0], &pc.start_a, &pc.lo_a, &pc.hi_a);
        bind_framebuffer(ctx, pdc, addr_b, s, b_rows, what, &ranges[1], &pc.start_b, &pc.lo_b, &pc.hi_b);
    } else {
        /* a disabled controller pushes no pixels: black */
        bind_framebuffer(ctx, pdc, 0, s, 0, what, &ranges[0], &pc.start_a, &pc.lo_a, &pc.hi_a);
        ranges[1] = ranges[0];
        pc.overscan = 0;
    }
    ranges[2] = (pvk_buffer_range){out->buf, 0, (VkDeviceSize)width * s->line_pixels * 4};
    ranges[3] = (pvk_buffer_range){ctx->lcd->lut_buf, (VkDeviceSize)pdc * sizeof ctx->vram.mmio.lut[0],
                                   sizeof ctx->vram.mmio.lut[0]};
    out->width = width;
    out->height = s->line_pixels;
    out->scale = 1;
    /* scaled frames: a shown image of exactly this framebuffer (rows packed at the stride) */
    out->has_shown = ctx->vram.scale > 1 && s->enabled && mode == MODE_A && !s->dbl &&
                     s->stride == (int32_t)(s->line_pixels * s->bpp) &&
                     pvk_surface_shown(&ctx->vram, addr_a, s->line_pixels, a_rows, s->fmt, &out->shown);
    /* Blocks of 4 columns x 4 pixels where every column's run is whole words
     * inside its framebuffer: both present (a window covers all its rows or
     * none), word-aligned starts (strides are multiples of 8), whole blocks
     * across, and not doubled RGB8 (two 3-byte pixels).  Binding 0 gets the
     * even columns' framebuffer, 1 the odd ones'. */
    bool two = mode == MODE_AB || mode == MODE_BA;
    uint32_t h4 = s->enabled ? s->line_pixels & ~3u : 0;
    bool blocks = h4 && width % 4 == 0 && !(s->dbl && s->bpp == 3) && pc.hi_a > pc.lo_a && pc.start_a % 4 == 0 &&
                  (!two || (pc.hi_b > pc.lo_b && pc.start_b % 4 == 0));
    if (blocks) {
        bool identity = true; /* the reset state, and what most programs leave */
        for (uint32_t i = 0; i < PVK_LCD_LUT_SIZE && identity; i++)
            identity = ctx->vram.mmio.lut[pdc][i] == 0x010101u * i;
        scanout_push bp = pc;
        pvk_buffer_range br[4] = {ranges[0], ranges[0], ranges[2], ranges[3]};
        if (two) {
            bool a_even = mode == MODE_AB;
            br[0] = ranges[a_even ? 0 : 1];
            br[1] = ranges[a_even ? 1 : 0];
            bp.start_a = a_even ? pc.start_a : pc.start_b;
            bp.start_b = a_even ? pc.start_b : pc.start_a;
        } else {
            bp.start_b = pc.start_a;
        }
        pvk_op_dispatch(&ctx->gpu, op, pvk_pipe_scanout_block(s->bpp, !identity, s->dbl), br, &bp, (width / 4 + 7) / 8,
                        (h4 / 4 + 7) / 8, 1);
    }
    /* the rest per pixel: image rows [0, y_end) are pixels line_pixels - 1 .. h4 along the scanline */
    pc.y_end = blocks ? s->line_pixels - h4 : s->line_pixels;
    if (pc.y_end)
        pvk_op_dispatch(&ctx->gpu, op, PVK_PIPE_SCANOUT, ranges, &pc, (width + 7) / 8, (pc.y_end + 7) / 8, 1);
}

static void scan_pdc(pvk_context *ctx, pvk_op *op, int pdc)
{
    struct pvk_lcd *lcd = ctx->lcd;
    pdc_state s;
    decode(ctx, pdc, &s);
    uint32_t n = s.lines;
    lcd_screen *right = &lcd->screens[PVK_SCREEN_TOP_RIGHT];
    if (pdc == 0 && s.mode >= MODE_AB) {
        /* stereo panel: each eye sees the lines of its framebuffer.  A window of
         * 800 scanlines (the panel programmed for 3D) splits between the eyes;
         * a smaller one (the 2D value, or never written, as GSP-level hosts
         * leave it: libctru's 3D is two 400-line buffers) is each eye's. */
        uint32_t eye = n >= 800 ? n / 2 : n;
        scan(ctx, op, 0, &s, MODE_A, s.addr_a, eye, 0, 0, eye, &lcd->screens[PVK_SCREEN_TOP]);
        if (s.addr_b != s.addr_a)
            scan(ctx, op, 0, &s, MODE_A, s.addr_b, eye, 0, 0, eye, right);
        else
            right->width = right->height = 0;
        return;
    }
    lcd_screen *out = &lcd->screens[pdc ? PVK_SCREEN_BOTTOM : PVK_SCREEN_TOP];
    if (pdc == 0)
        right->width = right->height = 0;
    uint32_t first = (n + 1) / 2, second = n / 2; /* rows of the buffer output first / second */
    switch (s.mode) {
    case MODE_A: scan(ctx, op, pdc, &s, MODE_A, s.addr_a, n, 0, 0, n, out); break;
    case MODE_AA: scan(ctx, op, pdc, &s, MODE_AA, s.addr_a, first, 0, 0, n, out); break;
    case MODE_AB: scan(ctx, op, pdc, &s, MODE_AB, s.addr_a, first, s.addr_b, second, n, out); break;
    default: scan(ctx, op, pdc, &s, MODE_BA, s.addr_a, second, s.addr_b, first, n, out); break;
    }
}

/* A host-visible buffer for screen `sc`'s frame at N x.  Growing it waits
 * for the last scan-out (the only reader of the old one). */
static pvk_result ensure_big(pvk_context *ctx, lcd_screen *sc, VkDeviceSize bytes)
{
    if (sc->big_cap >= bytes)
        return PVK_SUCCESS;
    if (sc->big) {
        pvk_result r = pvk_wait_value_host(&ctx->gpu, ctx->lcd->frame_value, "VBlank: growing a screen's buffer");
        if (r)
            return r;
        ctx->gpu.vk.vkDestroyBuffer(ctx->gpu.device, sc->big, NULL);
        ctx->gpu.vk.vkFreeMemory(ctx->gpu.device, sc->big_mem, NULL);
        sc->big = VK_NULL_HANDLE;
        sc->big_mem = VK_NULL_HANDLE;
        sc->big_cap = 0;
    }
    pvk_result r = pvk_create_buffer(
        &ctx->gpu, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, &sc->big, &sc->big_mem);
    void *p;
    if (r ||
        (r = pvk_vk_check(&ctx->gpu, ctx->gpu.vk.vkMapMemory(ctx->gpu.device, sc->big_mem, 0, VK_WHOLE_SIZE, 0, &p),
                          "vkMapMemory")))
        return r;
    sc->big_pixels = p;
    sc->big_cap = bytes;
    pvk_object_name(&ctx->gpu, VK_OBJECT_TYPE_BUFFER, (uint64_t)sc->big, "LCD frame at resolution scale");
    return PVK_SUCCESS;
}

/* Resolution scale N > 1: every screen's frame at N x, from its shown image
 * or its 1x scan-out (lcd_scale.comp). */
static pvk_result scale_frames(pvk_context *ctx, pvk_op *op)
{
    struct pvk_lcd *lcd = ctx->lcd;
    uint32_t n = ctx->vram.scale;
    pvk_op_barrier(&ctx->gpu, op);
    for (int i = 0; i < PVK_SCREEN_COUNT; i++) {
        lcd_screen *sc = &lcd->screens[i];
        if (!sc->width)
            continue;
        VkDeviceSize bytes = (VkDeviceSize)sc->width * sc->height * n * n * 4;
        pvk_result r = ensure_big(ctx, sc, bytes);
        if (r)
            return r;
        struct { uint32_t mode, n, width, height, src_width, pad[3]; } push = {
            sc->has_shown, n, sc->width, sc->height, sc->height * n, {0, 0, 0}};
        pvk_buffer_range bufs[3] = {
            sc->has_shown ? sc->shown : (pvk_buffer_range){sc->buf, 0, (VkDeviceSize)sc->width * sc->height * 4},
            {sc->big, 0, bytes},
            {lcd->lut_buf, (VkDeviceSize)(i == PVK_SCREEN_BOTTOM) * sizeof ctx->vram.mmio.lut[0],
             sizeof ctx->vram.mmio.lut[0]}};
        pvk_op_dispatch(&ctx->gpu, op, PVK_PIPE_LCD_SCALE, bufs, &push, (sc->width * n + 7) / 8,
                        (sc->height * n + 7) / 8, 1);
        sc->scale = n;
    }
    return PVK_SUCCESS;
}

/* ---- output images ---- */

static void image_barrier(pvk_context *ctx, VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to,
                          VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access, VkPipelineStageFlags2 dst_stage,
                          VkAccessFlags2 dst_access)
{
    pvk_image_barrier(&ctx->gpu, cmd, image, VK_IMAGE_ASPECT_COLOR_BIT, from, to, src_stage, src_access, dst_stage,
                      dst_access);
}

/* Start a write of the whole image: old contents are discarded, so whatever
 * layout the host left it in does not matter. */
static void begin_write(pvk_context *ctx, VkCommandBuffer cmd, VkImage image)
{
    image_barrier(ctx, cmd, image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                  VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, 0, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                  VK_ACCESS_2_TRANSFER_WRITE_BIT);
}

static void blit(pvk_context *ctx, VkCommandBuffer cmd, const lcd_image *src, const lcd_image *dst, VkRect2D to,
                 VkFilter filter)
{
    VkImageBlit2 region = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_BLIT_2,
        .srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
        .srcOffsets = {{0, 0, 0}, {(int32_t)src->w, (int32_t)src->h, 1}},
        .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
        .dstOffsets = {{to.offset.x, to.offset.y, 0},
                       {to.offset.x + (int32_t)to.extent.width, to.offset.y + (int32_t)to.extent.height, 1}},
    };
    VkBlitImageInfo2 bi = {
        .sType = VK_STRUCTURE_TYPE_BLIT_IMAGE_INFO_2,
        .srcImage = src->image,
        .srcImageLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
        .dstImage = dst->image,
        .dstImageLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
        .regionCount = 1,
        .pRegions = &region,
        .filter = filter,
    };
    ctx->gpu.vk.vkCmdBlitImage2(cmd, &bi);
}

/* A slot the host does not hold, oldest first; -1 when all are held. */
static int free_slot(struct pvk_lcd *lcd)
{
    int best = -1;
    for (int k = 0; k < N_SLOTS; k++)
        if (!lcd->slots[k].holds && (best < 0 || lcd->slots[k].frame < lcd->slots[best].frame))
            best = k;
    return best;
}

static void wait_host(pvk_context *ctx, frame_slot *f)
{
    if (!f->host_done)
        return;
    VkSemaphoreWaitInfo wi = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
        .semaphoreCount = 1,
        .pSemaphores = &f->host_done,
        .pValues = &f->host_done_value,
    };
    uint64_t ms = ctx->gpu.cfg.wait_timeout_ms ? ctx->gpu.cfg.wait_timeout_ms : PVK_DEFAULT_WAIT_TIMEOUT_MS;
    VkResult vr = ctx->gpu.vk.vkWaitSemaphores(ctx->gpu.device, &wi, ms * 1000000ull);
    if (vr == VK_TIMEOUT)
        pvk_log(&ctx->gpu, PVK_LOG_ERROR, "frame %llu: the host's release semaphore did not reach %llu; images reused",
                (unsigned long long)f->frame, (unsigned long long)f->host_done_value);
    else
        (void)pvk_vk_check(&ctx->gpu, vr, "vkWaitSemaphores (frame release)"); /* logged; a lost device sticks */
    f->host_done = VK_NULL_HANDLE;
}

/* Does scale `s` keep every output image of this frame within the caps of
 * picavk.h (PVK_OUTPUT_MAX_DIM per side, PVK_OUTPUT_MAX_PIXELS)? */
static bool scale_fits(const struct pvk_lcd *lcd, uint32_t s)
{
    uint64_t w[PVK_SCREEN_COUNT + 1], h[PVK_SCREEN_COUNT + 1];
    for (int i = 0; i < PVK_SCREEN_COUNT; i++)
        w[i] = (uint64_t)frame_w(&lcd->screens[i]) * s, h[i] = (uint64_t)frame_h(&lcd->screens[i]) * s;
    uint64_t tw = w[PVK_SCREEN_TOP], th = h[PVK_SCREEN_TOP], bw = w[PVK_SCREEN_BOTTOM], bh = h[PVK_SCREEN_BOTTOM];
    w[PVK_SCREEN_COUNT] = h[PVK_SCREEN_COUNT] = 0;
    if (lcd->out.layout == PVK_LAYOUT_STACKED)
        w[PVK_SCREEN_COUNT] = tw > bw ? tw : bw, h[PVK_SCREEN_COUNT] = th + bh;
    else if (lcd->out.layout == PVK_LAYOUT_SIDE_BY_SIDE)
        w[PVK_SCREEN_COUNT] = tw + bw, h[PVK_SCREEN_COUNT] = th > bh ? th : bh;
    for (int i = 0; i <= PVK_SCREEN_COUNT; i++)
        if (w[i] > PVK_OUTPUT_MAX_DIM || h[i] > PVK_OUTPUT_MAX_DIM || w[i] * h[i] > PVK_OUTPUT_MAX_PIXELS)
            return false;
    return true;
}

/* The configured scale, lowered for guest-chosen screens too big for it. */
static uint32_t frame_scale(pvk_context *ctx)
{
    struct pvk_lcd *lcd = ctx->lcd;
    uint32_t s = lcd->out.scale;
    while (s > 1 && !scale_fits(lcd, s))
        s--;
    uint32_t clamped = s == lcd->out.scale ? 0 : s;
    if (clamped && clamped != lcd->clamped_scale)
        pvk_log(&ctx->gpu, PVK_LOG_WARN, "output scale %u would exceed %u pixels per image for a %ux%u frame; using %u",
                lcd->out.scale, PVK_OUTPUT_MAX_PIXELS, frame_w(&lcd->screens[PVK_SCREEN_TOP]),
                frame_h(&lcd->screens[PVK_SCREEN_TOP]), s);
    lcd->clamped_scale = clamped;
    return s;
}

/* Record the copy of this VBlank's scan-out into slot `k`'s images. */
static pvk_result record_images(pvk_context *ctx, pvk_op *op, int k)
{
    struct pvk_lcd *lcd = ctx->lcd;
    frame_slot *f = &lcd->slots[k];
    const pvk_output_config *o = &lcd->out;
    wait_host(ctx, f);
    /* Resizing destroys images the GPU may still be writing from an old frame. */
    pvk_result r = pvk_wait_value_host(&ctx->gpu, f->value, "VBlank: reusing an older frame's images");
    if (r)
        return r;
    uint32_t s = frame_scale(ctx);
    for (int i = 0; i < PVK_SCREEN_COUNT; i++) {
        const lcd_screen *sc = &lcd->screens[i];
        f->has[i] = sc->width != 0;
        f->rects[i] = (VkRect2D){{0, 0}, {0, 0}};
        if (!f->has[i])
            continue;
        if ((s > 1 && (r = ensure_image(ctx, &f->stage[i], frame_w(sc), frame_h(sc), false))) ||
            (r = ensure_image(ctx, &f->screens[i], frame_w(sc) * s, frame_h(sc) * s, true)))
            return r;
    }
    const lcd_screen *top = &lcd->screens[PVK_SCREEN_TOP], *bot = &lcd->screens[PVK_SCREEN_BOTTOM];
    f->has_combined = o->layout != PVK_LAYOUT_SEPARATE;
    if (f->has_combined) {
        uint32_t tw = frame_w(top) * s, th = frame_h(top) * s, bw = frame_w(bot) * s, bh = frame_h(bot) * s, w, h;
        if (o->layout == PVK_LAYOUT_STACKED) {
            w = tw > bw ? tw : bw;
            h = th + bh;
            f->rects[PVK_SCREEN_TOP] = (VkRect2D){{(int32_t)(w - tw) / 2, 0}, {tw, th}};
            f->rects[PVK_SCREEN_BOTTOM] = (VkRect2D){{(int32_t)(w - bw) / 2, (int32_t)th}, {bw, bh}};
        } else {
            w = tw + bw;
            h = th > bh ? th : bh;
            f->rects[PVK_SCREEN_TOP] = (VkRect2D){{0, 0}, {tw, th}};
            f->rects[PVK_SCREEN_BOTTOM] = (VkRect2D){{(int32_t)tw, 0}, {bw, bh}};
        }
        if ((r = ensure_image(ctx, &f->combined, w, h, true)))
            return r;
    }
    VkCommandBuffer cmd = op->cmd;
    VkFilter filter = o->filter == PVK_FILTER_LINEAR ? VK_FILTER_LINEAR : VK_FILTER_NEAREST;
    /* output scale 1: the frames are copied straight into the images; other
     * scales blit them from a staging image */
    VkBufferImageCopy bics[PVK_SCREEN_COUNT];
    for (int i = 0; i < PVK_SCREEN_COUNT; i++) {
        if (!f->has[i])
            continue;
        const lcd_screen *sc = &lcd->screens[i];
        bics[i] = (VkBufferImageCopy){
            .bufferRowLength = frame_w(sc),
            .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
            .imageExtent = {frame_w(sc), frame_h(sc), 1},
        };
        VkBuffer src = sc->scale > 1 ? sc->big : sc->buf;
        begin_write(ctx, cmd, f->screens[i].image);
        if (s == 1) {
            ctx->gpu.vk.vkCmdCopyBufferToImage(cmd, src, f->screens[i].image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                                               &bics[i]);
            continue;
        }
        begin_write(ctx, cmd, f->stage[i].image);
        ctx->gpu.vk.vkCmdCopyBufferToImage(cmd, src, f->stage[i].image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                                           &bics[i]);
        image_barrier(ctx, cmd, f->stage[i].image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                      VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                      VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                      VK_ACCESS_2_TRANSFER_READ_BIT);
        blit(ctx, cmd, &f->stage[i], &f->screens[i], (VkRect2D){{0, 0}, {f->screens[i].w, f->screens[i].h}}, filter);
    }
    if (f->has_combined) {
        begin_write(ctx, cmd, f->combined.image);
        VkClearColorValue black = {.float32 = {0, 0, 0, 1}};
        VkImageSubresourceRange all = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
        ctx->gpu.vk.vkCmdClearColorImage(cmd, f->combined.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &black, 1, &all);
        image_barrier(ctx, cmd, f->combined.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                      VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                      VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                      VK_ACCESS_2_TRANSFER_WRITE_BIT);
        for (int i = 0; i < PVK_SCREEN_COUNT; i++) {
            if (i == PVK_SCREEN_TOP_RIGHT || !f->has[i])
                continue;
            if (s > 1) {
                blit(ctx, cmd, &f->stage[i], &f->combined, f->rects[i], filter);
                continue;
            }
            const lcd_screen *sc = &lcd->screens[i];
            VkBufferImageCopy at = bics[i];
            at.imageOffset = (VkOffset3D){f->rects[i].offset.x, f->rects[i].offset.y, 0};
            ctx->gpu.vk.vkCmdCopyBufferToImage(cmd, sc->scale > 1 ? sc->big : sc->buf, f->combined.image,
                                               VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &at);
        }
    }
    /* Hand over in the configured layout; the timeline signal makes it visible. */
    for (int i = 0; i <= PVK_SCREEN_COUNT; i++) {
        const lcd_image *im = i < PVK_SCREEN_COUNT ? (f->has[i] ? &f->screens[i] : NULL)
                                                   : (f->has_combined ? &f->combined : NULL);
        if (im)
            image_barrier(ctx, cmd, im->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, o->image_layout,
                          VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                          VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_READ_BIT);
    }
    f->layout = o->image_layout;
    return PVK_SUCCESS;
}

pvk_result pvk_lcd_vblank(pvk_context *ctx)
{
    struct pvk_lcd *lcd = ctx->lcd;
    /* The select bit written during the frame takes effect now (bit 4). */
    for (int pdc = 0; pdc < 2; pdc++) {
        uint32_t *sel = &ctx->vram.mmio.regs[(PVK_REG_PDC0 + 0x100u * (uint32_t)pdc + PVK_PDC_SELECT) / 4];
        *sel = (*sel & ~0x10u) | ((*sel & 1) << 4);
    }
    pvk_op op;
    pvk_result res = pvk_op_begin(&ctx->gpu, &op);
    if (res)
        return res;
    pvk_op_label(&ctx->gpu, &op, "VBlank %llu: scan-out of both screens", (unsigned long long)lcd->frames + 1);
    ctx->gpu.vk.vkCmdUpdateBuffer(op.cmd, lcd->lut_buf, 0, sizeof ctx->vram.mmio.lut, ctx->vram.mmio.lut);
    pvk_op_barrier(&ctx->gpu, &op);
    scan_pdc(ctx, &op, 0);
    scan_pdc(ctx, &op, 1);
    if (ctx->vram.scale > 1 && (res = scale_frames(ctx, &op))) {
        pvk_op_abort(&ctx->gpu, &op);
        return res;
    }
    int k = free_slot(lcd);
    if (k >= 0) {
        pvk_op_barrier(&ctx->gpu, &op);
        if ((res = record_images(ctx, &op, k))) {
            pvk_op_abort(&ctx->gpu, &op);
            return res;
        }
    } else if (!lcd->warned_held) {
        pvk_log(&ctx->gpu, PVK_LOG_WARN, "the host holds all %d frames; VkImages not updated until one is released",
                N_SLOTS);
        lcd->warned_held = true;
    }
    if ((res = pvk_op_submit(&ctx->gpu, &op)))
        return res;
    lcd->frame_value = ctx->gpu.timeline_next;
    lcd->frames++;
    pvk_pipelines_vblank(ctx);
    if (k >= 0) {
        lcd->slots[k].frame = lcd->frames;
        lcd->slots[k].value = ctx->gpu.timeline_next;
        lcd->newest = k;
    }
    for (int pdc = 0; pdc < 2; pdc++) {
        uint32_t *r = &ctx->vram.mmio.regs[(PVK_REG_PDC0 + 0x100u * (uint32_t)pdc) / 4];
        uint32_t control = r[PVK_PDC_CONTROL / 4];
        if ((control & 1) && !(control & 0x200)) {
            r[PVK_PDC_SELECT / 4] |= 1u << 17;
            pvk_raise_irq(&ctx->gpu, pdc ? PVK_IRQ_PDC1 : PVK_IRQ_PDC0);
        }
    }
    return PVK_SUCCESS;
}

/* ---- host access ---- */

void pvk_lcd_frame_size(pvk_context *ctx, pvk_screen screen, uint32_t *width, uint32_t *height)
{
    const lcd_screen *s = &ctx->lcd->screens[screen];
    *width = ctx->lcd->frames ? frame_w(s) : 0;
    *height = ctx->lcd->frames ? frame_h(s) : 0;
}

pvk_result pvk_lcd_frame_read(pvk_context *ctx, pvk_screen screen, void *rgba, size_t stride)
{
    const lcd_screen *s = &ctx->lcd->screens[screen];
    if (!ctx->lcd->frames || !s->width)
        return PVK_ERROR_INVALID_ARGUMENT;
    uint32_t w = frame_w(s), h = frame_h(s);
    if (stride < (size_t)w * 4)
        return PVK_ERROR_INVALID_ARGUMENT;
    pvk_result r = pvk_retire_host(&ctx->gpu); /* the host's wait: bounded */
    if (r)
        return r;
    const uint32_t *px = s->scale > 1 ? s->big_pixels : s->pixels;
    for (uint32_t y = 0; y < h; y++)
        memcpy((uint8_t *)rgba + y * stride, px + (size_t)y * w, (size_t)w * 4);
    return PVK_SUCCESS;
}

pvk_result pvk_lcd_set_output(pvk_context *ctx, const pvk_output_config *config)
{
    pvk_output_config c = config ? *config : (pvk_output_config){0};
    if (!c.scale)
        c.scale = 1;
    if (!c.image_layout)
        c.image_layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    if (c.scale > MAX_SCALE || (unsigned)c.layout > PVK_LAYOUT_SIDE_BY_SIDE || (unsigned)c.filter > PVK_FILTER_LINEAR ||
        (c.image_layout != VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL &&
         c.image_layout != VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL && c.image_layout != VK_IMAGE_LAYOUT_GENERAL)) {
        pvk_log(&ctx->gpu, PVK_LOG_ERROR,
                "pvk_set_output: scale %u, layout %d, filter %d, image layout %d not supported", c.scale, (int)c.layout,
                (int)c.filter, (int)c.image_layout);
        return PVK_ERROR_INVALID_ARGUMENT;
    }
    ctx->lcd->out = c;
    return PVK_SUCCESS;
}

static pvk_frame_image frame_image(const lcd_image *im, bool has, VkImageLayout layout)
{
    if (!has)
        return (pvk_frame_image){0};
    return (pvk_frame_image){im->image, im->view, layout, VK_FORMAT_R8G8B8A8_UNORM, {im->w, im->h}};
}

pvk_result pvk_lcd_frame_acquire(pvk_context *ctx, pvk_frame *frame)
{
    memset(frame, 0, sizeof *frame);
    frame->semaphore = ctx->gpu.timeline;
    frame->queue_family = ctx->gpu.queue_family;
    if (ctx->gpu.sticky)
        return ctx->gpu.sticky;
    struct pvk_lcd *lcd = ctx->lcd;
    if (lcd->newest < 0)
        return PVK_SUCCESS; /* no VBlank yet: frame 0, no images */
    frame_slot *f = &lcd->slots[lcd->newest];
    f->holds++;
    frame->frame = f->frame;
    frame->value = f->value;
    for (int i = 0; i < PVK_SCREEN_COUNT; i++) {
        frame->screens[i] = frame_image(&f->screens[i], f->has[i], f->layout);
        frame->rects[i] = f->rects[i];
    }
    frame->combined = frame_image(&f->combined, f->has_combined, f->layout);
    return PVK_SUCCESS;
}

pvk_result pvk_lcd_frame_release(pvk_context *ctx, const pvk_frame *frame, VkSemaphore done, uint64_t done_value)
{
    if (!frame->frame)
        return PVK_SUCCESS;
    struct pvk_lcd *lcd = ctx->lcd;
    for (int k = 0; k < N_SLOTS; k++) {
        frame_slot *f = &lcd->slots[k];
        if (f->frame != frame->frame || !f->holds)
            continue;
        if (done) {
            /* one pending semaphore per slot: settle a different earlier one now */
            if (f->host_done && f->host_done != done)
                wait_host(ctx, f);
            if (!f->host_done || done_value > f->host_done_value)
                f->host_done_value = done_value;
            f->host_done = done;
        }
        f->holds--;
        lcd->warned_held = false;
        return PVK_SUCCESS;
    }
    pvk_log(&ctx->gpu, PVK_LOG_ERROR, "pvk_frame_release: frame %llu is not held", (unsigned long long)frame->frame);
    return PVK_ERROR_INVALID_ARGUMENT;
}

/* XXH3-64 over the last frame of every screen (sizes and RGBA8 pixels). */
pvk_result pvk_lcd_frame_hash(pvk_context *ctx, uint64_t *hash)
{
    XXH3_state_t *st = XXH3_createState();
    if (!st)
        return PVK_ERROR_OUT_OF_MEMORY;
    XXH3_64bits_reset(st);
    pvk_result r = PVK_SUCCESS;
    for (int s = 0; s < PVK_SCREEN_COUNT && !r; s++) {
        uint32_t wh[2];
        pvk_lcd_frame_size(ctx, (pvk_screen)s, &wh[0], &wh[1]);
        XXH3_64bits_update(st, wh, sizeof wh);
        if (!wh[0] || !wh[1])
            continue;
        uint8_t *px = malloc((size_t)wh[0] * wh[1] * 4);
        if (!px) {
            r = PVK_ERROR_OUT_OF_MEMORY;
            break;
        }
        if (!(r = pvk_lcd_frame_read(ctx, (pvk_screen)s, px, (size_t)wh[0] * 4)))
            XXH3_64bits_update(st, px, (size_t)wh[0] * wh[1] * 4);
        free(px);
    }
    *hash = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    return r;
}
