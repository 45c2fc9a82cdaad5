/* The draw batch: consecutive draws into the same surfaces recorded into
 * one command buffer inside one dynamic-rendering instance or render pass,
 * submitted when the buffers change, after BATCH_MAX_DRAWS draws, or when
 * other GPU work is about to reach the queue (pvk_batch_close). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/draw.h"

/* A batch of draws is done. */
static void batch_retire(pvk_gpu *gpu, const pvk_pending *p)
{
    pvk_context *ctx = pvk_ctx_of_gpu(gpu);
    pvk_draw_check_report(ctx, p->value);
}

/* The colour and depth surfaces of a draw (NULL when it does not use one). */
static pvk_result packet_surfaces(pvk_context *ctx, const target *t, const depth_state *ds, pvk_surface **cs,
                                  pvk_surface **dsurf)
{
    *cs = *dsurf = NULL;
    pvk_result r;
    if (t->color) {
        if (t->fmt < 0 || !t->bpp) {
            pvk_bad_input(&ctx->gpu, "draw: colour buffer format is unknown; pvk_draw_dropped");
            return PVK_ERROR_BAD_PARAMETERS;
        }
        pvk_surface_key key = {.addr = t->addr,
                               .width = t->w,
                               .height = t->h,
                               .format = (uint32_t)t->fmt,
                               .kind = PVK_SURFACE_COLOR,
                               .block32 = t->block32,
                               .scale = (uint8_t)ctx->vram.scale};
        if ((r = pvk_surface_get(&ctx->vram, &key, VK_FORMAT_R8G8B8A8_UNORM, "draw colour buffer", cs)))
            return r;
    }
    if (ds->use) {
        if (!ds->bpp) {
            pvk_bad_input(&ctx->gpu, "draw: depth buffer format %u is reserved; pvk_draw_dropped", ds->format);
            return PVK_ERROR_BAD_PARAMETERS;
        }
        uint32_t len = t->w * t->h * ds->bpp, clen = t->w * t->h * t->bpp;
        if (t->color && ds->addr < t->addr + clen && t->addr < ds->addr + len) {
            pvk_unsupported(&ctx->gpu,
                            "draw: depth buffer 0x%08X overlaps the colour buffer 0x%08X; drawn without depth",
                            ds->addr, t->addr);
            return PVK_SUCCESS;
        }
        pvk_surface_key key = {.addr = ds->addr,
                               .width = t->w,
                               .height = t->h,
                               .format = ds->format,
                               .kind = PVK_SURFACE_DEPTH,
                               .block32 = t->block32,
                               .scale = (uint8_t)ctx->vram.scale};
        if ((r = pvk_surface_get(&ctx->vram, &key, ds->vkfmt, "draw depth buffer", dsurf)))
            return r;
    }
    return PVK_SUCCESS;
}

/* Label one draw of a batch (PVK_DEBUG=draw-labels and debug utils; the
 * batch has its own label); true when pvk_label_end must close it. */
static bool label_draw(pvk_context *ctx, VkCommandBuffer cmd, const pvk_draw_packet *pk, uint32_t addr)
{
    if (!(ctx->gpu.debug & PVK_DEBUG_DRAW_LABELS))
        return false;
    return pvk_cmd_label(&ctx->gpu, cmd, "draw %llu (%s, %u triangles, state %016llx) into 0x%08X",
                         (unsigned long long)pk->seq,
                         pk->kind == PVK_DRAW_ARRAYS     ? "arrays"
                         : pk->kind == PVK_DRAW_ELEMENTS ? "elements"
                                                         : "immediate",
                         pk->tri_vertices / 3, (unsigned long long)pvk_draw_packet_hash(pk), addr);
}

/* The hook pvk_batch_close calls: end the pass and submit the batch. */
static pvk_result batch_submit(pvk_gpu *gpu)
{
    pvk_context *ctx = pvk_ctx_of_gpu(gpu);
    draw_batch *b = &ctx->draw->batch;
    if (!b->open)
        return PVK_SUCCESS;
    b->open = false;
    if (b->pass)
        ctx->gpu.vk.vkCmdEndRenderPass(b->op.cmd);
    else
        ctx->gpu.vk.vkCmdEndRendering(b->op.cmd);
    if (ctx->gpu.sticky) { /* a lost device runs nothing more */
        pvk_op_abort(&ctx->gpu, &b->op);
        return ctx->gpu.sticky;
    }
    return pvk_op_submit(&ctx->gpu, &b->op);
}

/* Start a batch rendering into `color` (a surface's view, or the scratch
 * target when the draw writes no colour) and the depth surface `dsurf` (or
 * the scratch depth image, cleared, when the draw uses no depth buffer). */
static pvk_result batch_open(pvk_context *ctx, struct pvk_draw *d, const target *t, pvk_surface *cs, pvk_surface *dsurf,
                             const depth_state *dst)
{
    draw_batch *b = &d->batch;
    pvk_result r;
    if ((r = pvk_op_begin(&ctx->gpu, &b->op)))
        return r;
    b->op.p.retire = batch_retire;
    VkCommandBuffer cmd = b->op.cmd;
    pvk_op_label(&ctx->gpu, &b->op, "draws into 0x%08X%s %ux%u", t->addr, t->color ? "" : " (no colour writes)", t->w,
                 t->h);
    /* surfaces are at rest in the attachment layouts; scratch images hold nothing */
    if (!cs)
        pvk_draw_barrier(ctx, cmd, d->rt.image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
    if (!dsurf && d->depth.image)
        pvk_draw_barrier_aspect(ctx, cmd, d->depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                                VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL);
    VkRenderingAttachmentInfo att = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = cs ? pvk_surface_view(cs) : d->rt.view,
        .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
        .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD,
        .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
    };
    VkRenderingAttachmentInfo datt = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = dsurf ? pvk_surface_view(dsurf) : d->depth.view,
        /* a D24S8 surface rests in one layout for both aspects */
        .imageLayout =
            dst->stencil ? VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL : VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
        .loadOp = dsurf ? VK_ATTACHMENT_LOAD_OP_LOAD : VK_ATTACHMENT_LOAD_OP_CLEAR,
        /* a surface keeps its contents even when no draw of the batch writes it */
        .storeOp = dsurf ? VK_ATTACHMENT_STORE_OP_STORE : VK_ATTACHMENT_STORE_OP_DONT_CARE,
    };
    bool depth = dsurf || d->depth.image;
    VkRenderingInfo ri = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
        .renderArea = {{0, 0}, {t->w * t->scale, t->h * t->scale}},
        .layerCount = 1,
        .colorAttachmentCount = 1,
        .pColorAttachments = &att,
        .pDepthAttachment = depth ? &datt : NULL,
        .pStencilAttachment = dst->stencil ? &datt : NULL, /* the same image and view */
    };
    b->pass = ctx->gpu.attachment_read;
    if (b->pass) {
        /* The same attachments in a render pass whose subpass reads the colour
         * attachment in rasterization order (shaders that blend). */
        VkFormat dfmt = depth ? dst->vkfmt : VK_FORMAT_UNDEFINED;
        bool load = dsurf != NULL;
        VkRenderPass pass = pvk_render_pass_get(ctx, dfmt, load);
        uint32_t fw = t->w * t->scale, fh = t->h * t->scale;
        VkFramebuffer fb = pass ? pvk_framebuffer_get(ctx, dfmt, load, fw, fh) : VK_NULL_HANDLE;
        if (!fb) {
            pvk_op_abort(&ctx->gpu, &b->op);
            return PVK_ERROR_VULKAN; /* logged */
        }
        VkImageView views[2] = {att.imageView, datt.imageView};
        VkRenderPassAttachmentBeginInfo abi = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_ATTACHMENT_BEGIN_INFO,
                                               .attachmentCount = depth ? 2 : 1,
                                               .pAttachments = views};
        VkClearValue clear[2] = {att.clearValue, datt.clearValue};
        VkRenderPassBeginInfo rpbi = {
            .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
            .pNext = &abi,
            .renderPass = pass,
            .framebuffer = fb,
            .renderArea = ri.renderArea,
            .clearValueCount = depth ? 2 : 0,
            .pClearValues = clear,
        };
        ctx->gpu.vk.vkCmdBeginRenderPass(cmd, &rpbi, VK_SUBPASS_CONTENTS_INLINE);
        VkDescriptorImageInfo dii = {VK_NULL_HANDLE, att.imageView, VK_IMAGE_LAYOUT_GENERAL};
        VkWriteDescriptorSet w = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                  .dstBinding = PVK_DRAW_BINDING_DST,
                                  .descriptorCount = 1,
                                  .descriptorType = VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT,
                                  .pImageInfo = &dii};
        ctx->gpu.vk.vkCmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pvk_pipeline_layout(ctx), 0, 1, &w);
    } else {
        ctx->gpu.vk.vkCmdBeginRendering(cmd, &ri);
    }
    b->open = true;
    b->color = att.imageView;
    b->depth = depth ? datt.imageView : VK_NULL_HANDLE;
    b->dfmt = depth ? dst->vkfmt : VK_FORMAT_UNDEFINED;
    b->stencil = dst->stencil;
    b->w = t->w * t->scale;
    b->h = t->h * t->scale;
    b->pipeline = VK_NULL_HANDLE;
    b->draws = 0;
    b->dyn.known = b->dyn.desc_known = 0;
    ctx->gpu.batch_close = batch_submit;
    return PVK_SUCCESS;
}

/* Record the packet into the open batch, opening one when its buffers
 * differ from the batch's.  A draw without depth joins a batch whatever its
 * depth attachment (the test and writes are off); one with depth needs the
 * batch's depth surface. */
pvk_result pvk_draw_render_batched(pvk_context *ctx, struct pvk_draw *d, const pvk_draw_packet *pk,
                                   const draw_input *in)
{
    target t;
    depth_state dst;
    pvk_surface *cs = NULL, *dsurf = NULL;
    pvk_result r;
    /* the per-draw counts of a draw sent back to the interpreter (below),
     * which its second pass counts again */
    pvk_stats *st = &ctx->gpu.stats;
    const uint64_t counted[4] = {st->shader_borders, st->texture_samples, st->texture_hits, st->unsupported};
    if (!pvk_draw_packet_target(ctx, pk, &t, false) || !pvk_draw_packet_depth(ctx, d, pk, &dst, false))
        return PVK_SUCCESS; /* logged and counted; the list goes on */
    /* surface loads, evictions and scratch resizes close the batch themselves */
    if ((r = packet_surfaces(ctx, &t, &dst, &cs, &dsurf)))
        return pvk_draw_dropped(r) ? PVK_SUCCESS : r;
    /* fog/lighting/proctex data first: making room in its ring may submit the open batch */
    pvk_fragdata_ref fref;
    if ((r = pvk_fragdata_prepare(ctx, pk, pvk_draw_uber_state(ctx, pk), &fref)))
        return r;
    if (dst.use && !dsurf)
        dst.use = dst.write = false; /* refused above */
    if (!dsurf)
        dst.stencil = false, dst.vkfmt = d->dfmt; /* the scratch D32 image, if any */
    uint32_t sc = t.scale, sw = t.w * sc, sh = t.h * sc; /* attachment size */
    if (!t.color && (r = pvk_draw_target_image(ctx, d, sw, sh)))
        return r;
    if (!pvk_draw_viewport_ok(ctx, &pk->raster, sc))
        return PVK_SUCCESS;
    draw_batch *b = &d->batch;
    VkImageView color = cs ? pvk_surface_view(cs) : d->rt.view;
    bool same =
        b->open && b->color == color && b->w == sw && b->h == sh && (!dsurf || b->depth == pvk_surface_view(dsurf));
    /* another target: the batch goes first, so the textures' and samplers'
     * last use (the open or next submission) is this draw's batch */
    if (!same && (r = pvk_batch_close(&ctx->gpu)) && ctx->gpu.sticky)
        return r;
    pvk_pipe_key pipe = pk->pipe;
    pvk_fs_key fs = pk->fs;
    tex_binding tb;
    if ((r = pvk_draw_textures(ctx, pk, &fs, &tb)))
        return r;
    if (!b->open) { /* closed above, or by a texture decode */
        if (d->dfmt != VK_FORMAT_UNDEFINED && !dsurf && (r = pvk_draw_depth_image(ctx, d, sw, sh)))
            return r;
        if ((r = batch_open(ctx, d, &t, cs, dsurf, &dst)))
            return r;
    }
    /* made for the batch's depth attachment, which a draw without depth shares */
    pvk_draw_report_resolve(ctx, pvk_keys_resolve(&ctx->profile, b->pass, &pipe, &fs, &pipe, &fs));
    bool uber = fref.uber, cpu_vs = !pk->vs && d->diverted && d->diverted_seq == pk->seq;
    d->diverted = false;
    uint64_t unsupported = st->unsupported;
    VkPipeline pipeline = pvk_pipeline_get(ctx, &pipe, &fs, b->dfmt, b->pass, pk->vs, &uber, &cpu_vs);
    if (cpu_vs && pk->vs) {
        /* a pipeline here is a new program's warm-up: the driver compiles
         * the program at this draw, which culls every triangle */
        if (pipeline) {
            VkCommandBuffer cmd = b->op.cmd;
            if (b->pipeline != pipeline)
                ctx->gpu.vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
            b->pipeline = pipeline;
            pvk_draw_set_state(ctx, &b->dyn, cmd, pk, t.w, t.h, sc, &dst, b->depth != VK_NULL_HANDLE, b->stencil,
                               pvk_fs_uber_tex(&fs));
            ctx->gpu.vk.vkCmdSetCullMode(cmd, VK_CULL_MODE_FRONT_AND_BACK); /* nothing drawn */
            b->dyn.known &= ~(uint32_t)DYN_CULL;
            pvk_draw_record_vertices(ctx, d, &b->dyn, cmd, pk, in);
            st->vs_warm_ups++;
        }
        /* nothing drawn yet: the translator draws it again with the
         * interpreter's vertices (its textures are looked up again; what
         * the pipelines counted, once a context, stays) */
        st->shader_borders = counted[0], st->texture_samples = counted[1];
        st->texture_hits = counted[2], st->unsupported = counted[3] + (st->unsupported - unsupported);
        st->cpu_vs_while_building++;
        d->diverted = true;
        d->diverted_seq = pk->seq;
        return PVK_ERROR_MISSING_FEATURE;
    }
    if (!pipeline)
        return PVK_ERROR_VULKAN; /* logged */
    fref.uber = uber; /* bound only for the ubershader */
    ctx->gpu.stats.ubershader_draws += uber;
    VkCommandBuffer cmd = b->op.cmd;
    bool labelled = label_draw(ctx, cmd, pk, t.addr);
    if (b->pipeline != pipeline) {
        ctx->gpu.vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
        b->pipeline = pipeline;
    }
    pvk_draw_set_state(ctx, &b->dyn, cmd, pk, t.w, t.h, sc, &dst, b->depth != VK_NULL_HANDLE, b->stencil,
                       pvk_fs_uber_tex(&fs));
    pvk_draw_push_textures(ctx, &b->dyn, cmd, &tb);
    VkWriteDescriptorSet fw[3];
    VkDescriptorBufferInfo finfo[3];
    pvk_draw_push_descriptors(ctx, &b->dyn, cmd, fw, pvk_fragdata_writes(ctx, &fref, fw, finfo));
    pvk_draw_record_vertices(ctx, d, &b->dyn, cmd, pk, in);
    pvk_fragdata_used(ctx, &fref, ctx->gpu.timeline_next + 1); /* the open batch's value */
    if (labelled)
        pvk_label_end(&ctx->gpu, cmd);
    /* the surfaces are newer than guest memory now; nothing goes home */
    if (cs)
        pvk_surface_drawn(cs);
    if (dsurf && (dst.write || (dst.stencil && pk->raster.stencil_test && pk->raster.stencil_write_mask))) {
        pvk_surface_drawn(dsurf);
        pvk_mmio_count(&ctx->vram.mmio, PVK_REG_TRAFFIC_FIRST + 0x24,
                       t.w * t.h * dst.bpp); /* POLYGON_DEPTHBUFFER_WRITES */
    }
    if (dst.use)
        pvk_mmio_count(&ctx->vram.mmio, PVK_REG_TRAFFIC_FIRST + 0x20,
                       t.w * t.h * dst.bpp); /* POLYGON_DEPTHBUFFER_READS */
    if (t.color)
        pvk_mmio_count(&ctx->vram.mmio, PVK_REG_TRAFFIC_FIRST + 0x2C,
                       t.w * t.h * t.bpp); /* POLYGON_COLORBUFFER_WRITES */
    /* sync: every draw on its own, waited for */
    if (++b->draws >= (ctx->gpu.debug & PVK_DEBUG_SYNC ? 1u : BATCH_MAX_DRAWS))
        return pvk_batch_close(&ctx->gpu);
    return PVK_SUCCESS;
}
