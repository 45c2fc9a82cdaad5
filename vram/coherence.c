/* Where guest memory and the GPU's copies of it meet: every reader of guest
 * memory syncs through here first (surfaces newer than memory are written
 * back, GPU work writing the range is waited for), and every writer says what
 * it changed (surfaces over it are forgotten).  guestmem.c below only maps
 * and binds memory; surface.c holds the copies. */
#include "vram/vram.h"

pvk_result pvk_guest_sync_for_read(pvk_vram *vm, uint32_t paddr, uint32_t len)
{
    return pvk_surface_flush(vm, paddr, len);
}

const void *pvk_guest_cpu_read(pvk_vram *vm, uint32_t paddr, uint32_t len)
{
    pvk_guest_span s;
    if (!pvk_guest_resolve(vm, paddr, len, NULL, &s)) /* quietly: the caller names the buffer */
        return NULL;
    /* Surfaces newer than memory go home; then wait only when GPU work in
     * flight writes these bytes (mirror mode copies them back only at
     * retirement), so draws reading vertices do not wait for earlier draws.
     * A failed write-back is logged and counted; memory's bytes are read. */
    (void)pvk_guest_sync_for_read(vm, paddr, len);
    if (pvk_gpu_busy(vm->gpu) &&
        ((vm->gpu->debug & PVK_DEBUG_ROUNDTRIP) || pvk_gpu_writes_pending(vm->gpu, paddr, len)))
        pvk_gpu_idle(vm->gpu);
    if (vm->guest.observe)
        vm->guest.observe(vm, &s);
    return s.region->host + s.offset;
}

void pvk_guest_gpu_write(pvk_vram *vm, uint32_t paddr, uint32_t len)
{
    pvk_surface_invalidate(vm, paddr, len, true);
}

void pvk_guest_gpu_write_lines(pvk_vram *vm, uint32_t paddr, uint32_t len, uint32_t run, uint32_t gap)
{
    pvk_surface_invalidate_lines(vm, paddr, len, run, gap, true);
}

void pvk_guest_before_cpu_write(pvk_vram *vm, uint32_t paddr, uint32_t len)
{
    pvk_surface_invalidate(vm, paddr, len, true);
    pvk_gpu_idle(vm->gpu);
}

pvk_result pvk_guest_sync_all(pvk_vram *vm)
{
    return pvk_surface_flush_all(vm);
}

void pvk_guest_invalidate(pvk_vram *vm, uint32_t paddr, uint32_t len)
{
    /* After the write: the CPU's bytes win over whatever a surface held
     * (hosts flush before writing a render target; picavk's own writers
     * call pvk_guest_before_cpu_write).  Mirror mode copies guest bytes in
     * at every GPU operation, so nothing else caches them. */
    pvk_surface_invalidate(vm, paddr, len, false);
}
