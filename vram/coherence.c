/* Where guest memory and the GPU's copies of it meet: every reader of guest
 * memory syncs through here first (surfaces newer than memory are written
 * back, GPU work writing the range is waited for), and every writer says what
 * it changed (surfaces over it are forgotten).  guestmem.c below only maps
 * and binds memory; surface.c holds the copies. */
#include "runtime/runtime.h"

/* Is a GPU operation in flight about to write guest bytes the CPU wants? */
static bool pending_writes(const pvk_context *ctx, uint32_t paddr, uint32_t len)
{
    for (uint32_t i = 0; i < ctx->pending_count; i++) {
        const pvk_pending *p = &ctx->pending[(ctx->pending_head + i) % PVK_MAX_PENDING];
        if (p->dst_len && paddr < p->dst_addr + p->dst_len && p->dst_addr < paddr + len)
            return true;
    }
    return false;
}

pvk_result pvk_guest_sync_for_read(pvk_context *ctx, uint32_t paddr, uint32_t len)
{
    return pvk_surface_flush(ctx, paddr, len);
}

const void *pvk_guest_cpu_read(pvk_context *ctx, uint32_t paddr, uint32_t len)
{
    pvk_guest_span s;
    if (!pvk_guest_resolve(ctx, paddr, len, NULL, &s)) /* quietly: the caller names the buffer */
        return NULL;
    /* Surfaces newer than memory go home; then wait only when GPU work in
     * flight writes these bytes (mirror mode copies them back only at
     * retirement), so draws reading vertices do not wait for earlier draws. */
    pvk_guest_sync_for_read(ctx, paddr, len);
    if (ctx->pending_count && ((ctx->debug & PVK_DEBUG_ROUNDTRIP) || pending_writes(ctx, paddr, len)))
        pvk_retire(ctx, true);
    if (ctx->guest.observe)
        ctx->guest.observe(ctx, &s);
    return s.region->host + s.offset;
}

void pvk_guest_gpu_write(pvk_context *ctx, uint32_t paddr, uint32_t len)
{
    pvk_surface_invalidate(ctx, paddr, len, true);
}

void pvk_guest_gpu_write_lines(pvk_context *ctx, uint32_t paddr, uint32_t len, uint32_t run, uint32_t gap)
{
    pvk_surface_invalidate_lines(ctx, paddr, len, run, gap, true);
}

void pvk_guest_before_cpu_write(pvk_context *ctx, uint32_t paddr, uint32_t len)
{
    pvk_surface_invalidate(ctx, paddr, len, true);
    pvk_retire(ctx, true);
}

pvk_result pvk_guest_sync_all(pvk_context *ctx)
{
    return pvk_surface_flush_all(ctx);
}

void pvk_guest_invalidate(pvk_context *ctx, uint32_t paddr, uint32_t len)
{
    /* After the write: the CPU's bytes win over whatever a surface held
     * (hosts flush before writing a render target; picavk's own writers
     * call pvk_guest_before_cpu_write).  Mirror mode copies guest bytes in
     * at every GPU operation, so nothing else caches them. */
    pvk_surface_invalidate(ctx, paddr, len, false);
}
