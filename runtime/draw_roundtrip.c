/* PVK_DEBUG=roundtrip: the path before the surface cache, kept to compare
 * with: every draw loads its buffers from guest memory, renders and stores
 * them back in one submission, waiting for the draw before. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/draw.h"

static void draw_retire(pvk_gpu *gpu, const pvk_pending *p)
{
    pvk_context *ctx = pvk_ctx_of_gpu(gpu);
    pvk_draw_check_report(ctx, p->value);
    pvk_guest_span s;
    if (pvk_guest_resolve(&ctx->vram, p->dst_addr, p->dst_len, NULL, &s))
        pvk_guest_download(&ctx->vram, &s);
    struct pvk_draw *d = ctx->draw; /* one draw in flight at most: its depth range is here */
    if (!d)
        return;
    if (d->depth_len && pvk_guest_resolve(&ctx->vram, d->depth_addr, d->depth_len, NULL, &s))
        pvk_guest_download(&ctx->vram, &s);
    d->depth_len = 0;
}

/* The old path (PVK_DEBUG=roundtrip): load the buffers from guest memory,
 * draw, store them back, in one submission of its own. */
pvk_result pvk_draw_render_roundtrip(pvk_context *ctx, struct pvk_draw *d, const pvk_draw_packet *pk,
                                     const draw_input *in)
{
    target tt, *t = &tt;
    if (!pvk_draw_packet_target(ctx, pk, t, true))
        return PVK_SUCCESS; /* logged and counted; the list goes on */
    uint32_t w = t->w, h = t->h, bpp = t->bpp, addr = t->addr;
    int fmt = t->fmt;
    pvk_guest_span span = t->span;
    pvk_result r;
    if ((r = pvk_draw_target_image(ctx, d, w, h)))
        return r;
    pvk_buffer_range guest = {0};
    uint32_t sub = 0;
    if (t->color) {
        if (!pvk_guest_bind(&ctx->vram, &span, &guest, &sub, "draw colour buffer"))
            return PVK_SUCCESS;
        if (span.region->mirror)
            pvk_guest_upload(&ctx->vram, &span);
    }
    pvk_buffer_range staging = {d->staging, 0, (VkDeviceSize)w * h * 4};
    depth_state dst;
    if (!pvk_draw_packet_depth(ctx, d, pk, &dst, true))
        return PVK_SUCCESS; /* logged and counted */
    pvk_buffer_range dguest = {0}, dstaging = {d->dstaging, 0, (VkDeviceSize)w * h * 4};
    uint32_t dsub = 0;
    if (dst.use) {
        if (!pvk_guest_bind(&ctx->vram, &dst.span, &dguest, &dsub, "draw depth buffer"))
            return PVK_SUCCESS;
        if (dsub % 4) { /* cannot happen with 8-byte addresses and aligned regions */
            pvk_bad_input(&ctx->gpu,
                          "draw: depth buffer at 0x%08X is not word aligned in its binding; pvk_draw_dropped",
                          dst.addr);
            return PVK_SUCCESS;
        }
        if (dst.span.region->mirror)
            pvk_guest_upload(&ctx->vram, &dst.span);
    }
    if (d->dfmt != VK_FORMAT_UNDEFINED && (r = pvk_draw_depth_image(ctx, d, w, h)))
        return r;
    /* dynamic rendering and Vulkan's blend unit: keys as built, but for the textures */
    pvk_fs_key fs = pk->fs;
    tex_binding tb;
    if ((r = pvk_draw_textures(ctx, pk, &fs, &tb)))
        return r;
    pvk_pipe_key pipe;
    pvk_draw_report_resolve(ctx, pvk_keys_resolve(&ctx->profile, false, &pk->pipe, &fs, &pipe, &fs));
    pvk_fragdata_ref fref;
    if ((r = pvk_fragdata_prepare(ctx, pk, pvk_draw_uber_state(ctx, pk), &fref)))
        return r;
    bool uber = fref.uber;
    VkPipeline pipeline = pvk_pipeline_get(ctx, &pipe, &fs, d->dfmt, false, pk->vs, &uber, NULL);
    if (!pipeline)
        return PVK_ERROR_VULKAN; /* logged */
    fref.uber = uber; /* bound only for the ubershader */
    ctx->gpu.stats.ubershader_draws += uber;
    if (!pvk_draw_viewport_ok(ctx, &pk->raster, 1))
        return PVK_SUCCESS;

    pvk_op op;
    if ((r = pvk_op_begin(&ctx->gpu, &op)))
        return r;
    pvk_op_label(&ctx->gpu, &op, "draw %llu (%s, %u triangles, state %016llx) into 0x%08X", (unsigned long long)pk->seq,
                 pk->kind == PVK_DRAW_ARRAYS     ? "arrays"
                 : pk->kind == PVK_DRAW_ELEMENTS ? "elements"
                                                 : "immediate",
                 pk->tri_vertices / 3, (unsigned long long)pvk_draw_packet_hash(pk), addr);
    VkCommandBuffer cmd = op.cmd;
    /* load: tiled guest colour -> linear RGBA8 (memory byte order) -> image */
    VkBufferImageCopy bic = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, .imageExtent = {w, h, 1}};
    if (t->color) {
        pvk_transfer_record_convert(&ctx->vram, &op, guest, sub, staging, 0, w, w, h, (uint32_t)fmt,
                                    PVK_XFER_RGBA8_NATURAL, 0);
        pvk_op_barrier(&ctx->gpu, &op);
        pvk_draw_barrier(ctx, cmd, d->rt.image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
        ctx->gpu.vk.vkCmdCopyBufferToImage(cmd, d->staging, d->rt.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &bic);
        pvk_draw_barrier(ctx, cmd, d->rt.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                         VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
    } else {
        pvk_draw_barrier(ctx, cmd, d->rt.image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
    }
    /* depth: tiled guest -> linear q * 2^-24 -> D32 image */
    VkBufferImageCopy dbic = {.imageSubresource = {VK_IMAGE_ASPECT_DEPTH_BIT, 0, 0, 1}, .imageExtent = {w, h, 1}};
    if (dst.use) {
        pvk_mmio_count(&ctx->vram.mmio, PVK_REG_TRAFFIC_FIRST + 0x20, w * h * dst.bpp); /* POLYGON_DEPTHBUFFER_READS */
        pvk_depth_io(&ctx->vram, &op, dguest, dsub, dstaging, w, h, dst.bpp, false, false);
        pvk_op_barrier(&ctx->gpu, &op);
        pvk_draw_barrier_aspect(ctx, cmd, d->depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                                VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
        ctx->gpu.vk.vkCmdCopyBufferToImage(cmd, d->dstaging, d->depth.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                                           &dbic);
        pvk_draw_barrier_aspect(ctx, cmd, d->depth.image, VK_IMAGE_ASPECT_DEPTH_BIT,
                                VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL);
    } else if (d->depth.image) {
        pvk_draw_barrier_aspect(ctx, cmd, d->depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                                VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL);
    }

    VkRenderingAttachmentInfo att = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = d->rt.view,
        .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
        .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD,
        .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
    };
    VkRenderingAttachmentInfo datt = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = d->depth.view,
        .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
        .loadOp = dst.use ? VK_ATTACHMENT_LOAD_OP_LOAD : VK_ATTACHMENT_LOAD_OP_CLEAR,
        .storeOp = dst.write ? VK_ATTACHMENT_STORE_OP_STORE : VK_ATTACHMENT_STORE_OP_DONT_CARE,
    };
    VkRenderingInfo ri = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
        .renderArea = {{0, 0}, {w, h}},
        .layerCount = 1,
        .colorAttachmentCount = 1,
        .pColorAttachments = &att,
        .pDepthAttachment = d->depth.image ? &datt : NULL,
    };
    ctx->gpu.vk.vkCmdBeginRendering(cmd, &ri);
    ctx->gpu.vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
    pvk_draw_set_state(ctx, NULL, cmd, pk, w, h, 1, &dst, d->depth.image != VK_NULL_HANDLE, false,
                       pvk_fs_uber_tex(&fs));
    pvk_draw_push_textures(ctx, NULL, cmd, &tb);
    VkWriteDescriptorSet fw[3];
    VkDescriptorBufferInfo finfo[3];
    pvk_draw_push_descriptors(ctx, NULL, cmd, fw, pvk_fragdata_writes(ctx, &fref, fw, finfo));
    pvk_draw_record_vertices(ctx, d, NULL, cmd, pk, in);
    ctx->gpu.vk.vkCmdEndRendering(cmd);

    /* store: image -> linear staging -> tiled guest colour */
    if (t->color) {
        pvk_draw_barrier(ctx, cmd, d->rt.image, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                         VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
        ctx->gpu.vk.vkCmdCopyImageToBuffer(cmd, d->rt.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, d->staging, 1, &bic);
    }
    if (dst.write) {
        pvk_draw_barrier_aspect(ctx, cmd, d->depth.image, VK_IMAGE_ASPECT_DEPTH_BIT,
                                VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
        ctx->gpu.vk.vkCmdCopyImageToBuffer(cmd, d->depth.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, d->dstaging, 1,
                                           &dbic);
    }
    pvk_op_barrier(&ctx->gpu, &op);
    if (t->color)
        pvk_transfer_record_convert(&ctx->vram, &op, staging, 0, guest, sub, w, w, h, PVK_XFER_RGBA8_NATURAL,
                                    (uint32_t)fmt, 2);
    d->depth_len = 0;
    if (dst.write) {
        pvk_depth_io(&ctx->vram, &op, dguest, dsub, dstaging, w, h, dst.bpp, true, false);
        d->depth_addr = dst.addr;
        d->depth_len = w * h * dst.bpp;
        pvk_mmio_count(&ctx->vram.mmio, PVK_REG_TRAFFIC_FIRST + 0x24, w * h * dst.bpp); /* POLYGON_DEPTHBUFFER_WRITES */
    }
    op.p.retire = draw_retire;
    op.p.dst_addr = addr;
    op.p.dst_len = t->color ? w * h * bpp : 0;
    if (t->color)
        pvk_mmio_count(&ctx->vram.mmio, PVK_REG_TRAFFIC_FIRST + 0x2C, w * h * bpp); /* POLYGON_COLORBUFFER_WRITES */
    if ((r = pvk_op_submit(&ctx->gpu, &op)))
        return r;
    pvk_fragdata_used(ctx, &fref, ctx->gpu.timeline_next);
    return PVK_SUCCESS;
}
