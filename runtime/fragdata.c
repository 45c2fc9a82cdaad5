/* The fragment shader's LUTs and parameters (fog, lighting, procedural
 * texture) for draws: a host-visible ring buffer the draw binds from as
 * descriptor set 0 bindings 5 (storage buffer: the LUT words,
 * PVK_FRAG_LUT_*) and 6 (uniform buffer: pvk_fs_params).
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
    }
    *off = start;
    f->head = start + bytes;
    f->cur = last;
    return PVK_SUCCESS;
}

pvk_result pvk_fragdata_prepare(pvk_context *ctx, const pvk_draw_packet *pk, pvk_fragdata_ref *ref)
{
    pvk_result r;
    if (!ctx->fragdata && (r = fragdata_create(ctx)))
        return r;
    struct pvk_fragdata *f = ctx->fragdata;
    /* the parameters first: their allocation may drop the LUT copy, not the other way round */
    if (!f->params_valid || memcmp(&f->params, &pk->params, sizeof f->params)) {
        VkDeviceSize off;
        if ((r = ring_alloc(ctx, f, sizeof(pvk_fs_params), &off)))
            return r;
        memcpy(f->map + off, &pk->params, sizeof pk->params);
        f->params = pk->params;
        f->params_off = off;
        f->params_valid = true;
    }
    if (!f->lut_valid || f->lut_version != pk->lut_version) {
        VkDeviceSize off;
        if ((r = ring_alloc(ctx, f, LUT_BYTES, &off)))
            return r;
        uint32_t *w = (uint32_t *)(f->map + off);
        memcpy(w + PVK_FRAG_LUT_LIGHTING, pk->lighting_lut, 24 * 256 * 4);
        memcpy(w + PVK_FRAG_LUT_FOG, pk->fog_lut, 128 * 4);
        memcpy(w + PVK_FRAG_LUT_PROCTEX, pk->proctex_lut, 6 * 256 * 4);
        f->lut_off = off;
        f->lut_version = pk->lut_version;
        f->lut_valid = true;
        if (!f->params_valid) { /* the LUT block took the segment the parameters were in */
            if ((r = ring_alloc(ctx, f, sizeof(pvk_fs_params), &off)))
                return r;
            memcpy(f->map + off, &pk->params, sizeof pk->params);
            f->params_off = off;
            f->params_valid = true;
        }
    }
    ref->lut_off = f->lut_off;
    ref->params_off = f->params_off;
    return PVK_SUCCESS;
}

VkDescriptorType pvk_fragdata_lut_type(const pvk_context *ctx)
{
    return ctx->profile.lut_ubo ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

void pvk_fragdata_bind(pvk_context *ctx, VkCommandBuffer cmd, const pvk_fragdata_ref *ref)
{
    struct pvk_fragdata *f = ctx->fragdata;
    VkDescriptorBufferInfo luts = {f->buf, ref->lut_off, LUT_BYTES};
    VkDescriptorBufferInfo params = {f->buf, ref->params_off, sizeof(pvk_fs_params)};
    VkWriteDescriptorSet w[2] = {
        {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstBinding = PVK_DRAW_BINDING_FRAG_LUTS,
         .descriptorCount = 1, .descriptorType = pvk_fragdata_lut_type(ctx), .pBufferInfo = &luts},
        {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstBinding = PVK_DRAW_BINDING_FRAG_PARAMS,
         .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, .pBufferInfo = &params},
    };
    ctx->gpu.vk.vkCmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pvk_pipeline_layout(ctx), 0, 2, w);
}

void pvk_fragdata_used(pvk_context *ctx, const pvk_fragdata_ref *ref, uint64_t value)
{
    struct pvk_fragdata *f = ctx->fragdata;
    VkDeviceSize seg = RING_BYTES / SEGS;
    const VkDeviceSize offs[2] = {ref->lut_off, ref->params_off}, lens[2] = {LUT_BYTES, sizeof(pvk_fs_params)};
    for (int b = 0; b < 2; b++)
        for (VkDeviceSize i = offs[b] / seg; i <= (offs[b] + lens[b] - 1) / seg; i++)
            f->seg[i] = value;
}
