/* The transfer engine: memory fill (PSC0/PSC1) and memcopy (PPF: display
 * transfer and texture copy), decoded from the external registers and run as
 * compute dispatches on the guest-memory buffers.
 *
 * Parameters real hardware hangs on or refuses are dropped: logged, counted
 * in pvk_stats.bad_input, nothing written, and the completion bits and IRQ are
 * still raised so a guest waiting for them does not hang either. */
#include <string.h>

#include "vram/vram.h"

/* Copies of at most this many runs use vkCmdCopyBuffer instead of a shader. */
#define MAX_COPY_REGIONS 256

static void groups_1d(uint32_t items, uint32_t *gx, uint32_t *gy)
{
    uint32_t groups = (items + 63) / 64;
    *gx = groups > 65535 ? 65535 : (groups ? groups : 1);
    *gy = (groups + 65534) / 65535;
    if (!*gy)
        *gy = 1;
}

/* Mirror mode: an earlier operation's results must reach host memory before
 * this one's inputs are copied in, so mirrored operations run one at a time. */
static void mirror_prepare(pvk_vram *vm, const pvk_guest_span *a, const pvk_guest_span *b)
{
    if (!a->region->mirror && (!b || !b->region->mirror))
        return;
    pvk_gpu_idle(vm->gpu);
    pvk_guest_upload(vm, a);
    if (b)
        pvk_guest_upload(vm, b);
}

/* ---- memory fill ---- */

static void fill_done(pvk_vram *vm, int unit)
{
    pvk_mmio *m = &vm->mmio;
    uint32_t *cnt = &m->regs[(PVK_REG_MEMFILL0 + 0x10 * unit + 0xC) / 4];
    if (m->fill_busy[unit])
        m->fill_busy[unit]--;
    if (!m->fill_busy[unit])
        *cnt &= ~1u;
    *cnt |= 2u;
    pvk_raise_irq(vm->gpu, unit ? PVK_IRQ_PSC1 : PVK_IRQ_PSC0);
}

static void fill_retire(pvk_gpu *gpu, const pvk_pending *p)
{
    (void)gpu;
    pvk_vram *vm = p->owner;
    pvk_guest_span s;
    if (pvk_guest_resolve(vm, p->dst_addr, p->dst_len, NULL, &s))
        pvk_guest_download(vm, &s);
    fill_done(vm, (int)p->arg);
}

pvk_result pvk_transfer_fill(pvk_vram *vm, int unit)
{
    pvk_mmio *m = &vm->mmio;
    uint32_t base = (PVK_REG_MEMFILL0 + 0x10 * (uint32_t)unit) / 4;
    uint32_t start = m->regs[base] << 3, end = m->regs[base + 1] << 3;
    uint32_t value = m->regs[base + 2], cnt = m->regs[base + 3];
    uint32_t wbits = (cnt >> 8) & 3;
    uint32_t width = wbits == 0 ? 0 : wbits == 2 ? 2 : 1; /* 16, 32, 24 bit */
    m->regs[base + 3] |= 1; /* busy */
    m->fill_busy[unit]++;
    vm->gpu->stats.fills++;

    pvk_guest_span span;
    if (end <= start) {
        pvk_bad_input(vm->gpu, "memory fill %d: end 0x%08X is not after start 0x%08X; dropped", unit, end, start);
        fill_done(vm, unit);
        return PVK_ERROR_BAD_PARAMETERS;
    }
    if (!pvk_guest_resolve(vm, start, end - start, "memory fill", &span)) {
        fill_done(vm, unit);
        return PVK_ERROR_OUT_OF_RANGE;
    }
    pvk_buffer_range b;
    uint32_t sub;
    if (!pvk_guest_bind(vm, &span, &b, &sub, "memory fill")) {
        fill_done(vm, unit);
        return PVK_ERROR_BAD_PARAMETERS;
    }
    /* cached surfaces the fill covers are cleared, others reload */
    pvk_surface_fill(vm, start, span.len, value, width == 0 ? 2 : width == 2 ? 4 : 3);
    mirror_prepare(vm, &span, NULL);
    pvk_op op;
    pvk_result r = pvk_op_begin(vm->gpu, &op);
    if (r) {
        fill_done(vm, unit);
        return r;
    }
    pvk_op_label(vm->gpu, &op, "memory fill %d: 0x%08X+0x%X, %s-bit", unit, start, span.len,
                 width == 0   ? "16"
                 : width == 2 ? "32"
                              : "24");
    if (width != 1) {
        /* 16- and 32-bit patterns repeat every 4 bytes: the device's fill */
        uint32_t word = width == 2 ? value : (value & 0xFFFF) * 0x10001u;
        vm->gpu->vk.vkCmdFillBuffer(op.cmd, b.buffer, b.offset + sub, span.len, word);
    } else {
        uint32_t chunks = span.len / 16;
        uint32_t push[4] = {sub / 16, chunks, value, width};
        uint32_t gx, gy;
        groups_1d(chunks, &gx, &gy);
        pvk_op_dispatch(vm->gpu, &op, PVK_PIPE_FILL, &b, push, gx, gy, 1);
    }
    op.p.retire = fill_retire;
    op.p.owner = vm;
    op.p.arg = (uint32_t)unit;
    op.p.dst_addr = start;
    op.p.dst_len = span.len;
    pvk_mmio_count(&vm->mmio, unit ? PVK_REG_TRAFFIC_MEMFILL1_WRITES : PVK_REG_TRAFFIC_MEMFILL0_WRITES, span.len);
    if ((r = pvk_op_submit(vm->gpu, &op)))
        fill_done(vm, unit);
    return r;
}

/* ---- memcopy ---- */

static void copy_done(pvk_vram *vm)
{
    pvk_mmio *m = &vm->mmio;
    uint32_t *cnt = &m->regs[PVK_REG_MEMCOPY_CNT / 4];
    if (m->copy_busy)
        m->copy_busy--;
    if (!m->copy_busy)
        *cnt &= ~1u;
    *cnt |= 0x100u;
    pvk_raise_irq(vm->gpu, PVK_IRQ_PPF);
}

static void copy_retire(pvk_gpu *gpu, const pvk_pending *p)
{
    (void)gpu;
    pvk_vram *vm = p->owner;
    pvk_guest_span s;
    if (pvk_guest_resolve(vm, p->dst_addr, p->dst_len, NULL, &s))
        pvk_guest_download(vm, &s);
    copy_done(vm);
}

/* Length of the span a line/gap walk of `size` bytes touches (size >= 1).
 * 64-bit: register values can make it exceed 4 GiB. */
static uint64_t strided_span(uint64_t size, uint64_t width, uint64_t gap)
{
    uint64_t full = (size - 1) / width; /* complete lines before the last byte */
    return full * (width + gap) + (size - full * width);
}

/* pvk_guest_resolve for a length computed in 64 bits: anything past 4 GiB
 * lies outside every region, and is refused (and counted) as such. */
static bool resolve64(pvk_vram *vm, uint32_t paddr, uint64_t len, const char *what, pvk_guest_span *out)
{
    return pvk_guest_resolve(vm, paddr, len > UINT32_MAX ? UINT32_MAX : (uint32_t)len, what, out);
}

/* Record: optional scratch copy of the source when it overlaps the
 * destination (the hardware streams; picavk reads everything first), then
 * one dispatch.  `push` gets the source and destination sub-offsets in its
 * first two words, divided by `unit`. */
static const char *pipe_name(int pipe)
{
    return pipe == PVK_PIPE_TEXTURE_COPY ? "texture copy" : "display transfer";
}

static pvk_result run_copy(pvk_vram *vm, int pipe, const pvk_guest_span *src, const pvk_guest_span *dst,
                           uint32_t out_run, uint32_t out_gap, uint32_t *push, uint32_t unit, uint32_t gx, uint32_t gy,
                           VkBufferCopy *regions, uint32_t n_regions)
{
    pvk_buffer_range bs, bd;
    uint32_t ssub, dsub;
    if (!pvk_guest_bind(vm, src, &bs, &ssub, "memcopy source") ||
        !pvk_guest_bind(vm, dst, &bd, &dsub, "memcopy destination")) {
        copy_done(vm);
        return PVK_ERROR_BAD_PARAMETERS;
    }
    /* the source as the GPU last drew it; the destination's surfaces reload
     * (what the output's gaps keep of them goes home first; a failed
     * write-back is logged and counted, and memory's bytes are copied) */
    (void)pvk_guest_sync_for_read(vm, src->region->base + src->offset, src->len);
    pvk_guest_gpu_write_lines(vm, dst->region->base + dst->offset, dst->len, out_run, out_gap);
    mirror_prepare(vm, src, dst);
    pvk_op op;
    pvk_result r = pvk_op_begin(vm->gpu, &op);
    if (r) {
        copy_done(vm);
        return r;
    }
    pvk_op_label(vm->gpu, &op, "%s: 0x%08X+0x%X -> 0x%08X+0x%X", pipe_name(pipe), src->region->base + src->offset,
                 src->len, dst->region->base + dst->offset, dst->len);
    bool overlap = src->region == dst->region && src->offset < dst->offset + dst->len &&
                   dst->offset < src->offset + src->len;
    if (overlap) {
        if ((r = pvk_create_buffer(vm->gpu, bs.range,
                                   VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                   VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &op.p.scratch, &op.p.scratch_mem))) {
            pvk_op_abort(vm->gpu, &op);
            copy_done(vm);
            return r;
        }
        VkBufferCopy region = {bs.offset, 0, bs.range};
        vm->gpu->vk.vkCmdCopyBuffer(op.cmd, bs.buffer, op.p.scratch, 1, &region);
        pvk_op_barrier(vm->gpu, &op);
        bs.buffer = op.p.scratch;
        bs.offset = 0;
    }
    if (regions) {
        /* plain runs of bytes: the device's copy engine (a memcpy on CPU drivers) */
        for (uint32_t i = 0; i < n_regions; i++) {
            regions[i].srcOffset += bs.offset + ssub;
            regions[i].dstOffset += bd.offset + dsub;
        }
        vm->gpu->vk.vkCmdCopyBuffer(op.cmd, bs.buffer, bd.buffer, n_regions, regions);
    } else {
        push[0] = ssub / unit;
        push[1] = dsub / unit;
        pvk_buffer_range ranges[2] = {bs, bd};
        pvk_op_dispatch(vm->gpu, &op, pipe, ranges, push, gx, gy, 1);
    }
    op.p.retire = copy_retire;
    op.p.owner = vm;
    op.p.dst_addr = dst->region->base + dst->offset;
    op.p.dst_len = dst->len;
    pvk_mmio_count(&vm->mmio, PVK_REG_TRAFFIC_MEMCOPY_READS, src->len);
    pvk_mmio_count(&vm->mmio, PVK_REG_TRAFFIC_MEMCOPY_WRITES, dst->len);
    if ((r = pvk_op_submit(vm->gpu, &op)))
        copy_done(vm);
    return r;
}

static void copy_retire_irq(pvk_gpu *gpu, const pvk_pending *p)
{
    (void)gpu;
    pvk_vram *vm = p->owner;
    (void)p;
    copy_done(vm);
}

/* A raw copy of exactly a scaled render target's bytes, in one run, to bytes
 * it does not overlap: the target's image is copied into a surface at the
 * destination (resolution scale kept, nothing resolved, guest memory at the
 * destination written when something reads it).  *handled is false (and
 * nothing was done that the memory path would not do) otherwise. */
static pvk_result surface_copy(pvk_vram *vm, uint32_t src_addr, uint32_t dst_addr, uint64_t size, bool one_run,
                               bool *handled)
{
    *handled = false;
    pvk_surface *s = one_run && size <= UINT32_MAX ? pvk_surface_source_over(vm, src_addr, (uint32_t)size) : NULL;
    if (!s)
        return PVK_SUCCESS;
    pvk_surface_key key = *pvk_surface_key_of(s);
    if (key.scale == 1 || key.kind != PVK_SURFACE_COLOR || (dst_addr < src_addr + size && src_addr < dst_addr + size) ||
        !pvk_guest_resolve(vm, dst_addr, (uint32_t)size, NULL, NULL))
        return PVK_SUCCESS;
    /* what the copy overwrites goes (partly covered surfaces home first) */
    pvk_guest_gpu_write(vm, dst_addr, (uint32_t)size);
    s = pvk_surface_source_over(vm, src_addr, (uint32_t)size); /* host callbacks may have run */
    if (!s || memcmp(pvk_surface_key_of(s), &key, sizeof key))
        return PVK_SUCCESS;
    *handled = true;
    pvk_op op;
    pvk_result r = pvk_surface_begin_copy(vm, s, dst_addr, &op);
    if (r) {
        copy_done(vm);
        return r;
    }
    pvk_op_label(vm->gpu, &op, "texture copy of surface 0x%08X -> 0x%08X at x%u", src_addr, dst_addr, key.scale);
    op.p.retire = copy_retire_irq;
    op.p.owner = vm;
    pvk_mmio_count(&vm->mmio, PVK_REG_TRAFFIC_MEMCOPY_READS, (uint32_t)size);
    pvk_mmio_count(&vm->mmio, PVK_REG_TRAFFIC_MEMCOPY_WRITES, (uint32_t)size);
    if ((r = pvk_op_submit(vm->gpu, &op))) {
        copy_done(vm);
        return r;
    }
    vm->gpu->stats.surface_transfers++;
    return PVK_SUCCESS;
}

/* Raw chunk copy shared by texture copy and tiled->tiled display transfers. */
static pvk_result chunk_copy(pvk_vram *vm, uint32_t src_addr, uint32_t dst_addr, uint64_t size, uint32_t in_w,
                             uint32_t in_gap, uint32_t out_w, uint32_t out_gap)
{
    if (size == 0) { /* only from a zero-height raw copy: nothing to do */
        copy_done(vm);
        return PVK_SUCCESS;
    }
    bool handled;
    pvk_result sr = surface_copy(vm, src_addr, dst_addr, size,
                                 (in_gap == 0 || in_w >= size) && (out_gap == 0 || out_w >= size), &handled);
    if (handled)
        return sr;
    pvk_guest_span src, dst;
    if (!resolve64(vm, src_addr, strided_span(size, in_w, in_gap), "memcopy source", &src) ||
        !resolve64(vm, dst_addr, strided_span(size, out_w, out_gap), "memcopy destination", &dst)) {
        copy_done(vm);
        return PVK_ERROR_OUT_OF_RANGE;
    }
    /* A copy made of few runs goes through vkCmdCopyBuffer: a run ends where
     * an input or an output line does. */
    VkBufferCopy regions[MAX_COPY_REGIONS];
    uint32_t n = 0;
    for (uint64_t i = 0; i < size && n <= MAX_COPY_REGIONS;) {
        uint64_t len = size - i, in_left = in_w - i % in_w, out_left = out_w - i % out_w;
        len = len < in_left ? len : in_left;
        len = len < out_left ? len : out_left;
        if (n < MAX_COPY_REGIONS)
            regions[n] = (VkBufferCopy){(i / in_w) * (in_w + in_gap) + i % in_w,
                                        (i / out_w) * (out_w + out_gap) + i % out_w, len};
        n++;
        i += len;
    }
    if (n <= MAX_COPY_REGIONS)
        return run_copy(vm, PVK_PIPE_TEXTURE_COPY, &src, &dst, out_w, out_gap, NULL, 16, 0, 0, regions, n);
    /* both spans lie inside a region now, so size / 16 fits in 32 bits */
    uint32_t chunks = (uint32_t)(size / 16);
    uint32_t push[8] = {0, 0, chunks, in_w / 16, in_gap / 16, out_w / 16, out_gap / 16, 0};
    uint32_t gx, gy;
    groups_1d(chunks, &gx, &gy);
    return run_copy(vm, PVK_PIPE_TEXTURE_COPY, &src, &dst, out_w, out_gap, push, 16, gx, gy, NULL, 0);
}

static pvk_result refuse(pvk_vram *vm, const char *why, uint32_t flags)
{
    pvk_bad_input(vm->gpu, "memcopy (flags 0x%08X): %s; dropped", flags, why);
    copy_done(vm);
    return PVK_ERROR_BAD_PARAMETERS;
}

static pvk_result texture_copy(pvk_vram *vm, uint32_t src_addr, uint32_t dst_addr, uint32_t flags)
{
    const uint32_t *regs = vm->mmio.regs;
    uint32_t size = regs[PVK_REG_MEMCOPY_TEX_SIZE / 4] & ~15u;
    uint32_t sw = regs[PVK_REG_MEMCOPY_TEX_SRC_WIDTH / 4], dw = regs[PVK_REG_MEMCOPY_TEX_DST_WIDTH / 4];
    uint32_t in_w = (sw & 0xFFFF) * 16, in_gap = (sw >> 16) * 16;
    uint32_t out_w = (dw & 0xFFFF) * 16, out_gap = (dw >> 16) * 16;
    vm->gpu->stats.texture_copies++;
    if (size == 0)
        return refuse(vm, "texture copy of size 0 (hangs the hardware)", flags);
    if (!(flags & 4)) { /* no gaps: one contiguous run */
        in_w = out_w = size;
        in_gap = out_gap = 0;
    } else {
        if ((in_w == 0 && in_gap) || (out_w == 0 && out_gap))
            return refuse(vm, "texture copy line width 0 with a gap (hangs the hardware)", flags);
        if (size < 192)
            return refuse(vm, "texture copy with gaps needs a size of at least 192 bytes (hangs the hardware)", flags);
        if (in_w == 0)
            in_w = size;
        if (out_w == 0)
            out_w = size;
    }
    return chunk_copy(vm, src_addr, dst_addr, size, in_w, in_gap, out_w, out_gap);
}

/* Bytes a display transfer reads from an input whose rows (tile rows of 8
 * when tiled) are `pitch` pixels apart: every row but the last in full, the
 * last up to the output width. */
static uint64_t input_span(uint32_t pitch, uint32_t ow, uint32_t oh, uint32_t bpp, bool tiled)
{
    uint32_t rows = tiled ? (oh + 7) / 8 : oh, lines = tiled ? 8 : 1;
    return ((uint64_t)(rows - 1) * pitch + ow) * lines * bpp;
}

/* A tiled->linear display transfer whose input is a dirty colour surface,
 * read from its start (same address and format, input width and
 * height equal to the surface's, rows the surface's width apart, block mode
 * as the surface's, output no taller than it), runs from the surface's image:
 * nothing is written back, the source's guest bytes stay stale and the
 * surface dirty, and the output equals what the write-back and the transfer
 * from memory would give (surface_convert.comp packs each pixel as the
 * write-back would).  Everything else (linear input, another address, size,
 * pitch or format, a clean surface, an output overlapping the surface) goes
 * through memory.  The surface such a transfer reads, or NULL: */
static pvk_surface *surface_source(pvk_vram *vm, uint32_t src_addr, const pvk_guest_span *dst, uint32_t flags,
                                   uint32_t pitch)
{
    const uint32_t *regs = vm->mmio.regs;
    uint32_t in_dim = regs[PVK_REG_MEMCOPY_IN_DIM / 4], oh = regs[PVK_REG_MEMCOPY_OUT_DIM / 4] >> 16;
    uint32_t in_fmt = (flags >> 8) & 7, dst_addr = dst->region->base + dst->offset;
    pvk_surface *s = (flags & 2) ? NULL : pvk_surface_color_source(vm, src_addr);
    if (!s)
        return NULL;
    const pvk_surface_key *k = pvk_surface_key_of(s);
    uint32_t len = k->width * k->height * pvk_color_format_bpp(k->format);
    if (k->format != (in_fmt > 4 ? 4 : in_fmt) || k->block32 != ((flags >> 16) & 1) || (in_dim & 0xFFFF) != k->width ||
        (in_dim >> 16) != k->height || pitch != k->width || oh > k->height ||
        (dst_addr < k->addr + len && k->addr < dst_addr + dst->len))
        return NULL;
    return s;
}

/* Run the transfer from the surface when surface_source finds one; *handled
 * is false (and nothing was done that the memory path would not do) when not. */
static pvk_result from_surface(pvk_vram *vm, const pvk_guest_span *src, const pvk_guest_span *dst, uint32_t flags,
                               uint32_t pitch, uint32_t w, uint32_t h, bool *handled)
{
    uint32_t src_addr = src->region->base + src->offset, dst_addr = dst->region->base + dst->offset;
    uint32_t out_fmt = (flags >> 12) & 7;
    *handled = false;
    pvk_surface *s = surface_source(vm, src_addr, dst, flags, pitch);
    if (!s)
        return PVK_SUCCESS;
    pvk_surface_key key = *pvk_surface_key_of(s);
    pvk_buffer_range bd;
    uint32_t dsub;
    if (!pvk_guest_bind(vm, dst, &bd, &dsub, "memcopy destination")) {
        *handled = true;
        copy_done(vm);
        return PVK_ERROR_BAD_PARAMETERS;
    }
    /* the destination's surfaces reload (none of them is the source) */
    pvk_guest_gpu_write(vm, dst_addr, dst->len);
    mirror_prepare(vm, dst, NULL);
    /* Waiting there may have run host callbacks (IRQs) that changed the
     * surfaces: look again.  The memory path is still right if it is gone:
     * what the destination's surfaces did cannot touch the source's bytes. */
    s = surface_source(vm, src_addr, dst, flags, pitch);
    if (!s || memcmp(pvk_surface_key_of(s), &key, sizeof key))
        return PVK_SUCCESS;
    *handled = true;
    /* at resolution scale N the LCD shows the output at N x (a shown image) */
    uint32_t mode = (flags & 1) | (((flags >> 24) & 3) << 2);
    int shown = pvk_surface_shown_prepare(vm, &key, dst_addr, w, h, out_fmt > 4 ? 4 : out_fmt);
    if (shown >= 0 && ((s = surface_source(vm, src_addr, dst, flags, pitch)) == NULL ||
                       memcmp(pvk_surface_key_of(s), &key, sizeof key))) {
        *handled = false; /* waiting there changed the surfaces: the memory path is still right */
        return PVK_SUCCESS;
    }
    pvk_op op;
    pvk_buffer_range lin;
    pvk_result r = pvk_surface_begin_read(vm, s, &op, &lin);
    if (r) {
        copy_done(vm);
        return r;
    }
    pvk_op_label(vm->gpu, &op, "display transfer from surface 0x%08X %ux%u -> 0x%08X+0x%X", key.addr, key.width,
                 key.height, dst_addr, dst->len);
    struct { uint32_t op, width, height, src_width, src_fmt, dst_fmt, mode, guest_base, flags, pad[3]; } push = {
        0, w, h, key.width, key.format, out_fmt > 4 ? 4 : out_fmt, mode, dsub, 0,
        {0, 0, 0}};
    pvk_buffer_range ranges[2] = {lin, bd};
    pvk_op_dispatch(vm->gpu, &op, PVK_PIPE_SURFACE_CONVERT, ranges, &push, (w + 7) / 8, (h + 7) / 8, 1);
    if (shown >= 0)
        pvk_surface_shown_record(vm, s, &op, shown, mode);
    op.p.retire = copy_retire;
    op.p.owner = vm;
    op.p.dst_addr = dst_addr;
    op.p.dst_len = dst->len;
    /* the hardware's traffic counters see the transfer it would have made */
    pvk_mmio_count(&vm->mmio, PVK_REG_TRAFFIC_MEMCOPY_READS, src->len);
    pvk_mmio_count(&vm->mmio, PVK_REG_TRAFFIC_MEMCOPY_WRITES, dst->len);
    if ((r = pvk_op_submit(vm->gpu, &op))) {
        copy_done(vm);
        return r;
    }
    vm->gpu->stats.surface_transfers++;
    return PVK_SUCCESS;
}

static pvk_result display_transfer(pvk_vram *vm, uint32_t src_addr, uint32_t dst_addr, uint32_t flags)
{
    const uint32_t *regs = vm->mmio.regs;
    uint32_t out_dim = regs[PVK_REG_MEMCOPY_OUT_DIM / 4], in_dim = regs[PVK_REG_MEMCOPY_IN_DIM / 4];
    uint32_t ow = out_dim & 0xFFFF, oh = out_dim >> 16, iw = in_dim & 0xFFFF;
    uint32_t in_fmt = (flags >> 8) & 7, out_fmt = (flags >> 12) & 7;
    in_fmt = in_fmt > 4 ? 4 : in_fmt;
    out_fmt = out_fmt > 4 ? 4 : out_fmt;
    uint32_t ib = pvk_color_format_bpp(in_fmt), ob = pvk_color_format_bpp(out_fmt);
    uint32_t scale = (flags >> 24) & 3;
    vm->gpu->stats.transfers++;
    if (ow == 0 || oh == 0 || iw == 0)
        return refuse(vm, "display transfer with a zero width or height", flags);
    if (ow > iw)
        return refuse(vm, "display transfer output wider than its input", flags);
    /* Input rows are IW pixels apart only with bit 2 (crop); without it the
     * hardware reads the input as if it were OW wide (FACTS.md, hwtests
     * RGBA8_To_RGB8_Different_Sizes), so rows run on and the picture shears. */
    uint32_t pitch = (flags & 4) ? iw : ow;
    if (flags & 0x20) {
        /* Tiled->tiled: a raw copy of whole tile rows, cropped to the output
         * width; no conversion, flip or downscale (measured: none happen). */
        uint32_t row_out = ow * 8 * ob, row_in = pitch * 8 * ob;
        return chunk_copy(vm, src_addr, dst_addr, (uint64_t)(oh / 8) * row_out, row_out, row_in - row_out, row_out, 0);
    }
    if (scale == 3)
        return refuse(vm, "display transfer downscale mode 3 is invalid", flags);
    if (ib == 3 && ob != 3)
        return refuse(vm, "24-bit input needs 24-bit output (other outputs hang the hardware)", flags);
    if (ib == 2 && ob != 2)
        return refuse(vm, "16-bit input needs 16-bit output (other outputs hang the hardware)", flags);
    uint32_t sx = scale ? 1 : 0, sy = scale == 2 ? 1 : 0;
    uint32_t w = ow >> sx, h = oh >> sy;
    bool to_tiled = flags & 2;
    if (to_tiled && (w % 8 || h % 8))
        return refuse(vm, "linear->tiled output size after downscale is not a multiple of 8", flags);
    pvk_guest_span src, dst;
    if (!resolve64(vm, src_addr, input_span(pitch, ow, oh, ib, !to_tiled), "display transfer source", &src) ||
        !resolve64(vm, dst_addr, (uint64_t)w * h * ob, "display transfer destination", &dst)) {
        copy_done(vm);
        return PVK_ERROR_OUT_OF_RANGE;
    }
    bool handled;
    pvk_result r = from_surface(vm, &src, &dst, flags, pitch, w, h, &handled);
    if (handled)
        return r;
    uint32_t mode = (flags & 1) | (to_tiled ? 2u : 0u) | (scale << 2);
    /* Sizes are multiples of 8 (register masks), so every transfer runs in
     * 4x2 blocks of whole words; RGBA8 -> RGBA8 moves 16-byte vectors, as
     * the address registers keep 16-byte granularity (bit 0 of addr >> 3 is
     * not stored) and binding offsets keep that alignment. */
    uint32_t gx, gy;
    int pipe = pvk_transfer_pick(in_fmt, out_fmt, scale, to_tiled, w, h, pitch, ((src_addr | dst_addr) & 15) == 0, &gx,
                                 &gy);
    uint32_t push[16] = {0, 0, pitch, w, h, in_fmt, out_fmt, mode};
    return run_copy(vm, pipe, &src, &dst, dst.len, 0, push, 1, gx, gy, NULL, 0);
}

pvk_result pvk_transfer_memcopy(pvk_vram *vm)
{
    pvk_mmio *m = &vm->mmio;
    uint32_t src = m->regs[PVK_REG_MEMCOPY_SRC / 4] << 3, dst = m->regs[PVK_REG_MEMCOPY_DST / 4] << 3;
    uint32_t flags = m->regs[PVK_REG_MEMCOPY_FLAGS / 4];
    m->regs[PVK_REG_MEMCOPY_CNT / 4] |= 1;
    m->copy_busy++;
    if (flags & 8)
        return texture_copy(vm, src, dst, flags);
    return display_transfer(vm, src, dst, flags);
}
