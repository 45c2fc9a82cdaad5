/* The draw ring: one host-visible buffer that holds the CPU path's shaded
 * vertices, the GPU path's uniforms and status words, widened indices and
 * geometry pre-pass regions.  Allocation waits per segment once a lap and
 * grows the ring when a batch laps it; the GPU path's status words are read
 * back here once their batch is done (bad vertices reported). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/draw.h"

pvk_result pvk_draw_ring_ensure(pvk_context *ctx, struct pvk_draw *d, VkDeviceSize bytes)
{
    if (bytes <= d->vcap)
        return PVK_SUCCESS;
    if (d->vbuf)
        ctx->gpu.vk.vkDestroyBuffer(ctx->gpu.device, d->vbuf, NULL);
    if (d->vbuf_mem)
        ctx->gpu.vk.vkFreeMemory(ctx->gpu.device, d->vbuf_mem, NULL);
    d->vbuf = VK_NULL_HANDLE;
    d->vbuf_mem = VK_NULL_HANDLE;
    d->vcap = 0;
    VkDeviceSize cap = 1 << 18;
    while (cap < bytes)
        cap *= 2;
    pvk_result r = pvk_create_buffer(
        &ctx->gpu, cap,
        VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, &d->vbuf, &d->vbuf_mem);
    if (r)
        return r;
    if ((r = pvk_vk_check(&ctx->gpu,
                          ctx->gpu.vk.vkMapMemory(ctx->gpu.device, d->vbuf_mem, 0, VK_WHOLE_SIZE, 0, &d->vmap),
                          "vkMapMemory")))
        return r;
    d->vcap = cap;
    d->vhead = 0;
    d->vcur = -1;
    d->vlap++;
    memset(d->vseg, 0, sizeof d->vseg);
    return PVK_SUCCESS;
}

/* A bigger ring; everything in flight finishes first, the old buffer goes. */
static pvk_result vertex_grow(pvk_context *ctx, struct pvk_draw *d, VkDeviceSize bytes)
{
    pvk_result r = pvk_retire(&ctx->gpu, true);
    return r ? r : pvk_draw_ring_ensure(ctx, d, bytes);
}

/* A region of the vertex ring for one draw.  Entering a segment waits for
 * the draws that used it a lap ago (usually long done); growing the ring
 * waits for everything.  A segment last used by the open batch (its value is
 * timeline_next + 1) means one batch went round the whole ring: the ring
 * doubles, so batches of that size stop waiting; past VRING_MAX the wait
 * submits the batch first (pvk_retire_until). */
pvk_result pvk_draw_ring_alloc(pvk_context *ctx, struct pvk_draw *d, VkDeviceSize bytes, VkDeviceSize *off)
{
    pvk_result r;
    bytes = (bytes + 63) & ~(VkDeviceSize)63;
    if (bytes * 2 > d->vcap && (r = vertex_grow(ctx, d, bytes * 4)))
        return r;
    if (d->vhead + bytes > d->vcap) {
        d->vhead = 0;
        d->vcur = -1;
        d->vlap++;
    }
    VkDeviceSize seg = d->vcap / VRING_SEGS;
    int first = (int)(d->vhead / seg), last = (int)((d->vhead + bytes - 1) / seg);
    for (int i = first; i <= last; i++) {
        if (i != d->vcur && d->vseg[i] > ctx->gpu.timeline_next && d->vcap < VRING_MAX) {
            if ((r = vertex_grow(ctx, d, d->vcap * 2)))
                return r;
            return pvk_draw_ring_alloc(ctx, d, bytes, off); /* once: the new ring is empty */
        }
        if (i != d->vcur && d->vseg[i] && (r = pvk_retire_until(&ctx->gpu, d->vseg[i])))
            return r;
        d->vseg[i] = 0;
    }
    *off = d->vhead;
    d->vhead += bytes;
    d->vcur = last;
    return PVK_SUCCESS;
}

/* The ring region [off, off+bytes) is in use until timeline `value`. */
void pvk_draw_ring_used(struct pvk_draw *d, VkDeviceSize off, VkDeviceSize bytes, uint64_t value)
{
    VkDeviceSize seg = d->vcap / VRING_SEGS;
    for (VkDeviceSize i = off / seg; bytes && i <= (off + bytes - 1) / seg; i++)
        d->vseg[i] = value;
}

pvk_result pvk_draw_check_add(struct pvk_draw *d, uint64_t value, uint64_t seq, VkDeviceSize off, bool gs,
                              uint64_t gs_key)
{
    if (d->n_checks == d->cap_checks) {
        uint32_t cap = d->cap_checks ? 2 * d->cap_checks : 64;
        vs_check *c = realloc(d->checks, sizeof *c * cap);
        if (!c)
            return PVK_ERROR_OUT_OF_MEMORY;
        d->checks = c;
        d->cap_checks = cap;
    }
    d->checks[d->n_checks++] = (vs_check){value, seq, off, gs, gs_key};
    return PVK_SUCCESS;
}

/* Report the checked draws of batches up to timeline `done`. */
void pvk_draw_check_report(pvk_context *ctx, uint64_t done)
{
    struct pvk_draw *d = ctx->draw;
    if (!d)
        return;
    uint32_t keep = 0;
    for (uint32_t i = 0; i < d->n_checks; i++) {
        const vs_check *c = &d->checks[i];
        if (c->value > done) {
            d->checks[keep++] = *c;
            continue;
        }
        if (c->gs) { /* the pre-pass's counters; one error per draw, as on the vertex path */
            uint32_t cnt[PVK_GS_COUNTERS];
            memcpy(cnt, (const uint8_t *)d->vmap + c->off, sizeof cnt);
            uint32_t bad = pvk_gs_account(ctx, c->gs_key, cnt);
            if (bad)
                pvk_bad_input(&ctx->gpu,
                              "draw %llu: geometry program on the GPU: %u invocations did not end (runaway "
                              "program, bad instruction, or a vertex whose program did not end); they draw "
                              "nothing",
                              (unsigned long long)c->seq, bad);
            continue;
        }
        pvk_vs_status st;
        memcpy(&st, (const uint8_t *)d->vmap + c->off, sizeof st);
        if (!(st.kinds & 14u))
            continue;
        /* one error per draw, as the CPU path's first bad vertex stops it */
        if (st.kinds & 6u)
            pvk_bad_input(&ctx->gpu,
                          "draw %llu: vertex program on the GPU: %s at pc 0x%03X%s; those vertices are not drawn",
                          (unsigned long long)c->seq,
                          st.kinds & 2u ? "runaway program stopped"
                                        : "undefined opcode, BREAK outside a loop or PC past code memory",
                          st.kinds & 2u ? st.pc[0] : st.pc[1],
                          (st.kinds & 6u) == 6u ? " (and vertices with bad instructions)" : "");
        if (st.kinds & 8u)
            pvk_unsupported(&ctx->gpu,
                            "draw %llu: a vertex fell through past a subroutine's end into code the GPU "
                            "translation does not cover (pc 0x%03X): not drawn",
                            (unsigned long long)c->seq, st.pc[2]);
    }
    d->n_checks = keep;
}
