/* The fragment shader's LUTs and parameters (fog, lighting, procedural
 * texture) for draws: a host-visible ring buffer the draw binds from as
 * descriptor set 0 bindings 5 (storage buffer: the LUT words,
 * PVK_FRAG_LUT_*) and 6 (uniform buffer: pvk_fs_params); and the
 * ubershader's data (binding 9, pvk_fs_uber_state: 112 bytes; the blocks of
 * the last 8 states kept).
 *
 * The LUT block (31 KiB; a uniform buffer where the device's range allows,
 * which lavapipe reads about twice as fast as a storage buffer) is copied only when the translator's LUT version
 * changed (a LUT data port was written) or its copy is about to be
 * overwritten; the parameter block (576 bytes) when it differs from the last
 * one.  A block stays in the ring until every draw that reads it is done:
 * the ring is cut into segments, each remembering the timeline value of the
 * last draw reading anything in it, and writing into a segment again waits
 * for that value first (usually long reached; when it is the open batch's,
 * pvk_retire_until submits the batch).  A draw's data is therefore never
 * overwritten while a recorded or submitted draw may still read it. */
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"

#define RING_BYTES ((VkDeviceSize)4 << 20)
#define SEGS 8
#define LUT_BYTES PVK_FRAGDATA_LUT_BYTES
#define UBER_BLOCKS 8
#define UBER_BYTES (PVK_UBER_WORDS * sizeof(uint32_t))

struct pvk_fragdata {
    VkBuffer buf;
    VkDeviceMemory mem;
    uint8_t *map;
    VkDeviceSize head, align;
    int cur;                      /* segment the last allocation ended in, -1 after a wrap */
    uint64_t seg[SEGS];           /* timeline value of the last draw reading the segment */
    bool lut_valid, params_valid; /* the cached blocks below are intact */
    uint64_t lut_version;
    VkDeviceSize lut_off, params_off;
    pvk_fs_params params;         /* what params_off holds */
    /* the ubershader's data of the last UBER_BLOCKS states: draws that
     * alternate between a few states (most frames) write none again */
    struct {
        bool valid;
        VkDeviceSize off;
        uint32_t words[PVK_UBER_WORDS]; /* what off holds */
    } uber[UBER_BLOCKS];
    uint32_t uber_next; /* the block replaced next (round robin) */
};

static void fragdata_free(pvk_context *ctx, struct pvk_fragdata *f)
{
    if (f->buf)
        ctx->gpu.vk.vkDestroyBuffer(ctx->gpu.device, f->buf, NULL);
    if (f->mem)
        ctx->gpu.vk.vkFreeMemory(ctx->gpu.device, f->mem, NULL);
    free(f);
}

static pvk_result fragdata_create(pvk_context *ctx)
{
    struct pvk_fragdata *f = calloc(1, sizeof *f);
    if (!f)
        return PVK_ERROR_OUT_OF_MEMORY;
    pvk_result r = pvk_create_buffer(
        &ctx->gpu, RING_BYTES, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, &f->buf, &f->mem);
    void *map = NULL;
    if (!r)
        r = pvk_vk_check(&ctx->gpu, ctx->gpu.vk.vkMapMemory(ctx->gpu.device, f->mem, 0, VK_WHOLE_SIZE, 0, &map),
                         "vkMapMemory");
    if (r) {
        fragdata_free(ctx, f);
        return r;
    }
    pvk_object_name(&ctx->gpu, VK_OBJECT_TYPE_BUFFER, (uint64_t)f->buf, "fragment LUTs and parameters (ring)");
    f->map = map;
    const VkPhysicalDeviceLimits *lim = &ctx->gpu.props.limits;
    f->align = 256; /* at least every offset alignment Vulkan allows */
    if (lim->minStorageBufferOffsetAlignment > f->align)
        f->align = lim->minStorageBufferOffsetAlignment;
    if (lim->minUniformBufferOffsetAlignment > f->align)
        f->align = lim->minUniformBufferOffsetAlignment;
    f->cur = -1;
    ctx->fragdata = f;
    return PVK_SUCCESS;
}

void pvk_fragdata_destroy(pvk_context *ctx)
{
    if (ctx->fragdata)
        fragdata_free(ctx, ctx->fragdata);
    ctx->fragdata = NULL;
}

static bool overlaps(VkDeviceSize a, VkDeviceSize an, VkDeviceSize b, VkDeviceSize bn)
{
    return a < b + bn && b < a + an;
}

/* `bytes` of the ring; entering a segment waits for its last reader and
 * drops the cached blocks in it. */
static pvk_result ring_alloc(pvk_context *ctx, struct pvk_fragdata *f, VkDeviceSize bytes, VkDeviceSize *off)
{
    VkDeviceSize start = (f->head + f->align - 1) & ~(f->align - 1);
    if (start + bytes > RING_BYTES) {
        start = 0;
        f->cur = -1;
    }
    VkDeviceSize seg = RING_BYTES / SEGS;
    int first = (int)(start / seg), last = (int)((start + bytes - 1) / seg);
    for (int i = first; i <= last; i++) {
        if (i == f->cur)
            continue;
        pvk_result r;
        if (f->seg[i] && (r = pvk_retire_until(&ctx->gpu, f->seg[i])))
            return r;
        f->seg[i] = 0;
        if (f->lut_valid && overlaps(f->lut_off, LUT_BYTES, (VkDeviceSize)i * seg, seg))
            f->lut_valid = false;
        if (f->params_valid && overlaps(f->params_off, sizeof(pvk_fs_params), (VkDeviceSize)i * seg, seg))
            f->params_valid = false;
        for (int u = 0; u < UBER_BLOCKS; u++)
            if (f->uber[u].valid && overlaps(f->uber[u].off, UBER_BYTES, (VkDeviceSize)i * seg, seg))
                f->uber[u].valid = false;
    }
    *off = start;
    f->head = start + bytes;
    f->cur = last;
    return PVK_SUCCESS;
}

/* `bytes` of `data` in the ring at *off unless *valid. */
static pvk_result put(pvk_context *ctx, struct pvk_fragdata *f, const void *data, size_t bytes, bool *valid,
                      VkDeviceSize *off)
{
    if (*valid)
        return PVK_SUCCESS;
    pvk_result r = ring_alloc(ctx, f, bytes, off);
    if (r)
        return r;
    memcpy(f->map + *off, data, bytes);
    *valid = true;
    return PVK_SUCCESS;
}

pvk_result pvk_fragdata_prepare(pvk_context *ctx, const pvk_draw_packet *pk, const uint32_t *uber,
                                pvk_fragdata_ref *ref)
{
    pvk_result r;
    memset(ref, 0, sizeof *ref);
    ref->uber = uber != NULL;
    ref->luts = pvk_fs_uses_fragdata(&pk->fs) || ref->uber; /* the ubershader reads them */
    if (!ref->luts && !ref->uber)
        return PVK_SUCCESS;
    if (!ctx->fragdata && (r = fragdata_create(ctx)))
        return r;
    struct pvk_fragdata *f = ctx->fragdata;
    if (ref->luts) {
        if (f->params_valid && memcmp(&f->params, &pk->params, sizeof f->params))
            f->params_valid = false;
        if (f->lut_valid && f->lut_version != pk->lut_version)
            f->lut_valid = false;
    }
    int ub = -1; /* the block with this state's data */
    for (int u = 0; ref->uber && u < UBER_BLOCKS && ub < 0; u++)
        if (f->uber[u].valid && !memcmp(f->uber[u].words, uber, UBER_BYTES))
            ub = u;
    if (ref->uber && ub < 0) {
        ub = (int)f->uber_next;
        f->uber_next = (f->uber_next + 1) % UBER_BLOCKS;
        f->uber[ub].valid = false;
    }
    /* an allocation that wraps may drop a block placed before it in this
     * call (it enters the segments from the ring's start): a second round
     * places it again, after the first round's blocks */
    for (int round = 0; round < 3; round++) {
        if (ref->luts) {
            if (!f->lut_valid) {
                f->lut_version = pk->lut_version;
                uint32_t *w = NULL;
                if ((r = ring_alloc(ctx, f, LUT_BYTES, &f->lut_off)))
                    return r;
                w = (uint32_t *)(f->map + f->lut_off);
                memcpy(w + PVK_FRAG_LUT_LIGHTING, pk->lighting_lut, 24 * 256 * 4);
                memcpy(w + PVK_FRAG_LUT_FOG, pk->fog_lut, 128 * 4);
                memcpy(w + PVK_FRAG_LUT_PROCTEX, pk->proctex_lut, 6 * 256 * 4);
                f->lut_valid = true;
            }
            f->params = pk->params;
            if ((r = put(ctx, f, &pk->params, sizeof pk->params, &f->params_valid, &f->params_off)))
                return r;
        }
        if (ref->uber) {
            memcpy(f->uber[ub].words, uber, UBER_BYTES);
            if ((r = put(ctx, f, uber, UBER_BYTES, &f->uber[ub].valid, &f->uber[ub].off)))
                return r;
        }
        if ((!ref->luts || (f->lut_valid && f->params_valid)) && (!ref->uber || f->uber[ub].valid))
            break;
    }
    ref->lut_off = f->lut_off;
    ref->params_off = f->params_off;
    ref->uber_off = ref->uber ? f->uber[ub].off : 0;
    return PVK_SUCCESS;
}

VkDescriptorType pvk_fragdata_lut_type(const pvk_context *ctx)
{
    return ctx->profile.lut_ubo ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

uint32_t pvk_fragdata_writes(pvk_context *ctx, const pvk_fragdata_ref *ref, VkWriteDescriptorSet w[3],
                             VkDescriptorBufferInfo info[3])
{
    struct pvk_fragdata *f = ctx->fragdata;
    uint32_t n = 0;
    if (ref->luts) {
        info[0] = (VkDescriptorBufferInfo){f->buf, ref->lut_off, LUT_BYTES};
        info[1] = (VkDescriptorBufferInfo){f->buf, ref->params_off, sizeof(pvk_fs_params)};
        w[n++] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                        .dstBinding = PVK_DRAW_BINDING_FRAG_LUTS, .descriptorCount = 1,
                                        .descriptorType = pvk_fragdata_lut_type(ctx), .pBufferInfo = &info[0]};
        w[n++] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                        .dstBinding = PVK_DRAW_BINDING_FRAG_PARAMS, .descriptorCount = 1,
                                        .descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, .pBufferInfo = &info[1]};
    }
    if (ref->uber) {
        info[2] = (VkDescriptorBufferInfo){f->buf, ref->uber_off, UBER_BYTES};
        w[n++] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                        .dstBinding = PVK_DRAW_BINDING_UBER, .descriptorCount = 1,
                                        .descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, .pBufferInfo = &info[2]};
    }
    return n;
}

void pvk_fragdata_used(pvk_context *ctx, const pvk_fragdata_ref *ref, uint64_t value)
{
    struct pvk_fragdata *f = ctx->fragdata;
    if (!ref->luts && !ref->uber)
        return;
    VkDeviceSize seg = RING_BYTES / SEGS;
    const VkDeviceSize offs[3] = {ref->lut_off, ref->params_off, ref->uber_off},
                       lens[3] = {LUT_BYTES, sizeof(pvk_fs_params), UBER_BYTES};
    const bool on[3] = {ref->luts, ref->luts, ref->uber};
    for (int b = 0; b < 3; b++)
        for (VkDeviceSize i = offs[b] / seg; on[b] && i <= (offs[b] + lens[b] - 1) / seg; i++)
            f->seg[i] = value;
}
