/* What both draw paths (the batch and the round trip) share: where a
 * packet draws (colour and depth targets), the dynamic state of a draw
 * (viewport, scissor, depth, stencil, push constants), recording its
 * vertices, and the attachments' images and barriers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/draw.h"
#include "runtime/pipeline.h"

pvk_result pvk_draw_target_image(pvk_context *ctx, struct pvk_draw *d, uint32_t w, uint32_t h)
{
    if (d->rt.image && (d->rt.w != w || d->rt.h != h))
        pvk_gpu_idle(&ctx->gpu); /* a draw in flight may still use it */
    pvk_result r = pvk_image_ensure(&ctx->gpu, &d->rt, w, h, VK_FORMAT_R8G8B8A8_UNORM, PVK_COLOR_TARGET_USAGE, true);
    pvk_object_name(&ctx->gpu, VK_OBJECT_TYPE_IMAGE, (uint64_t)d->rt.image, "draw colour target %ux%u", w, h);
    return r;
}

pvk_result pvk_draw_depth_image(pvk_context *ctx, struct pvk_draw *d, uint32_t w, uint32_t h)
{
    if (d->depth.image && (d->depth.w != w || d->depth.h != h))
        pvk_gpu_idle(&ctx->gpu);
    pvk_result r = pvk_image_ensure(&ctx->gpu, &d->depth, w, h, d->dfmt, PVK_DEPTH_TARGET_USAGE, true);
    pvk_object_name(&ctx->gpu, VK_OBJECT_TYPE_IMAGE, (uint64_t)d->depth.image, "draw depth target %ux%u", w, h);
    return r;
}

/* Draws order everything against everything around them. */
void pvk_draw_barrier_aspect(pvk_context *ctx, VkCommandBuffer cmd, VkImage img, VkImageAspectFlags aspect,
                             VkImageLayout from, VkImageLayout to)
{
    pvk_image_barrier(&ctx->gpu, cmd, img, aspect, from, to, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                      VK_ACCESS_2_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                      VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT);
}

void pvk_draw_barrier(pvk_context *ctx, VkCommandBuffer cmd, VkImage img, VkImageLayout from, VkImageLayout to)
{
    pvk_draw_barrier_aspect(ctx, cmd, img, VK_IMAGE_ASPECT_COLOR_BIT, from, to);
}

bool pvk_draw_packet_target(pvk_context *ctx, const pvk_draw_packet *pk, target *t, bool roundtrip)
{
    const pvk_fb_desc *fb = &pk->fb;
    *t = (target){fb->width,
                  fb->height,
                  fb->color_bpp,
                  fb->color_addr,
                  fb->color_xfer_format,
                  fb->color_write,
                  fb->block32,
                  {0},
                  roundtrip ? 1 : ctx->vram.scale};
    /* Without colour writes (depth-only passes: citro3d binds no colour
     * buffer and clears the access registers) the colour buffer is left
     * alone; nothing reads it until blending exists. */
    if (!t->color || !roundtrip) /* surfaces check their ranges themselves */
        return true;
    return pvk_guest_resolve(&ctx->vram, t->addr, t->w * t->h * t->bpp, "draw colour buffer", &t->span);
}

/* The depth buffer a draw uses: `use` when the test or writes are on, `write`
 * when its contents go back to guest memory (DEPTHBUFFER_WRITE allows). */
bool pvk_draw_packet_depth(pvk_context *ctx, struct pvk_draw *d, const pvk_draw_packet *pk, depth_state *ds,
                           bool roundtrip)
{
    const pvk_fb_desc *fb = &pk->fb;
    const pvk_raster_desc *rd = &pk->raster;
    memset(ds, 0, sizeof *ds);
    ds->vkfmt = d->dfmt;
    if ((!rd->depth_test && !rd->depth_write && !rd->stencil_test) || d->dfmt == VK_FORMAT_UNDEFINED)
        return true;
    /* every D24S8 surface gets the stencil aspect, whether this draw tests or not */
    ds->stencil = fb->depth_format == 3 && !roundtrip && d->dsfmt != VK_FORMAT_UNDEFINED;
    if (ds->stencil)
        ds->vkfmt = d->dsfmt;
    if (rd->stencil_test && !ds->stencil && pvk_once(&ctx->gpu, PVK_ONCE_STENCIL)) {
        pvk_unsupported(&ctx->gpu, "draw: stencil test without %s: drawn without stencil",
                        roundtrip ? "the surface cache (PVK_DEBUG=roundtrip)" : "D32_SFLOAT_S8_UINT attachments");
    }
    ds->bpp = fb->depth_bpp;
    ds->bits = fb->depth_bits;
    ds->addr = fb->depth_addr;
    ds->format = fb->depth_format;
    if (roundtrip &&
        !pvk_guest_resolve(&ctx->vram, ds->addr, fb->width * fb->height * ds->bpp, "draw depth buffer", &ds->span))
        return false;
    ds->use = true;
    ds->write = rd->depth_write && fb->depth_write;
    ds->op = rd->depth_test ? pvk_vk_compare_op(rd->depth_func) : VK_COMPARE_OP_ALWAYS;
    return true;
}

/* True when the buffer lacks `bit`'s value `v` (n bytes; no padding in
 * them), which is then remembered as set: the caller records it. */
static bool dyn_differs(draw_dyn *dyn, uint32_t bit, void *slot, const void *v, size_t n)
{
    if (!dyn)
        return true;
    if ((dyn->known & bit) && !memcmp(slot, v, n))
        return false;
    memcpy(slot, v, n);
    dyn->known |= bit;
    return true;
}

/* The PICA's one stencil state for both faces (STENCIL_TEST, STENCIL_OP;
 * translator/fb.c decodes and gates them); off for a draw that does not
 * use the batch's D24S8 surface.  Vulkan compares (reference & mask) op
 * (stored & mask), as the PICA does. */
static void set_stencil(pvk_context *ctx, draw_dyn *dyn, VkCommandBuffer cmd, const pvk_raster_desc *rd, bool on)
{
    const VkStencilFaceFlags both = VK_STENCIL_FACE_FRONT_AND_BACK;
    const uint32_t v[8] = {on && rd->stencil_test,
                           pvk_vk_stencil_op(rd->stencil_fail),
                           pvk_vk_stencil_op(rd->stencil_zpass),
                           pvk_vk_stencil_op(rd->stencil_zfail),
                           pvk_vk_compare_op(rd->stencil_func),
                           rd->stencil_compare_mask,
                           on ? rd->stencil_write_mask : 0,
                           rd->stencil_ref};
    if (!dyn_differs(dyn, DYN_STENCIL, dyn ? dyn->stencil : NULL, v, sizeof v))
        return;
    ctx->gpu.vk.vkCmdSetStencilTestEnable(cmd, v[0]);
    ctx->gpu.vk.vkCmdSetStencilOp(cmd, both, (VkStencilOp)v[1], (VkStencilOp)v[2], (VkStencilOp)v[3],
                                  (VkCompareOp)v[4]);
    ctx->gpu.vk.vkCmdSetStencilCompareMask(cmd, both, v[5]);
    ctx->gpu.vk.vkCmdSetStencilWriteMask(cmd, both, v[6]);
    ctx->gpu.vk.vkCmdSetStencilReference(cmd, both, v[7]);
}

void pvk_draw_push_descriptors(pvk_context *ctx, draw_dyn *dyn, VkCommandBuffer cmd, const VkWriteDescriptorSet *w,
                               uint32_t n)
{
    VkWriteDescriptorSet keep[DYN_BINDINGS];
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t b = w[i].dstBinding;
        const void *info = w[i].pImageInfo ? (const void *)w[i].pImageInfo : (const void *)w[i].pBufferInfo;
        size_t len = w[i].pImageInfo ? sizeof *w[i].pImageInfo : sizeof *w[i].pBufferInfo;
        if (dyn && b < DYN_BINDINGS && w[i].descriptorCount == 1 && info) {
            if ((dyn->desc_known >> b & 1) && !memcmp(dyn->desc[b], info, len))
                continue;
            memcpy(dyn->desc[b], info, len);
            dyn->desc_known |= 1u << b;
        }
        if (k < DYN_BINDINGS)
            keep[k++] = w[i];
    }
    if (k)
        ctx->gpu.vk.vkCmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pvk_pipeline_layout(ctx), 0, k,
                                              keep);
}

/* Bind the draw's vertices and draw. */
void pvk_draw_record_vertices(pvk_context *ctx, struct pvk_draw *d, draw_dyn *dyn, VkCommandBuffer cmd,
                              const pvk_draw_packet *pk, const draw_input *in)
{
    const pvk_vs_draw *vs = in->vs;
    if (!vs) {
        if (dyn)
            dyn->known &= ~(uint32_t)DYN_VERTEX_BUFFERS;
        ctx->gpu.vk.vkCmdBindVertexBuffers(cmd, 0, 1, &d->vbuf, &in->voff);
        ctx->gpu.vk.vkCmdDraw(cmd, pk->tri_vertices, 1, 0, 0);
        return;
    }
    VkDescriptorBufferInfo bi[2] = {{d->vbuf, in->uni_off, sizeof(pvk_vs_draw_uniforms)},
                                    {d->vbuf, in->status_base, in->status_range}};
    VkWriteDescriptorSet w[2];
    for (int i = 0; i < 2; i++)
        w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                      .dstBinding = i ? PVK_DRAW_BINDING_VS_STATUS : PVK_DRAW_BINDING_VS,
                                      .descriptorCount = 1,
                                      .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                      .pBufferInfo = &bi[i]};
    pvk_draw_push_descriptors(ctx, dyn, cmd, w, 2);
    uint32_t nb = vs->key.bindings;
    if (nb) {
        draw_vertex_binds vb = {.count = nb};
        memcpy(vb.buf, in->vb, nb * sizeof *in->vb);
        memcpy(vb.off, in->vb_off, nb * sizeof *in->vb_off);
        if (dyn_differs(dyn, DYN_VERTEX_BUFFERS, dyn ? &dyn->vb : NULL, &vb, sizeof vb))
            ctx->gpu.vk.vkCmdBindVertexBuffers(cmd, 0, nb, in->vb, in->vb_off);
    }
    if (vs->tri_index || vs->indexed) {
        draw_index_bind ib = {in->ib, in->ib_off, vs->tri_index ? VK_INDEX_TYPE_UINT32 : VK_INDEX_TYPE_UINT16};
        if (dyn_differs(dyn, DYN_INDEX, dyn ? &dyn->ib : NULL, &ib, sizeof ib))
            ctx->gpu.vk.vkCmdBindIndexBuffer(cmd, ib.buf, ib.off, (VkIndexType)ib.type);
    }
    /* firstVertex / vertexOffset: where the vertices sit in a window; firstInstance: the status entry */
    int32_t first = (int32_t)in->first_vertex;
    if (vs->tri_index) /* a strip or fan as the CPU path's list (pvk_vs_draw.tri_index) */
        ctx->gpu.vk.vkCmdDrawIndexed(cmd, vs->tri_count, 1, 0, (vs->indexed ? vs->vertex_offset : 0) + first,
                                     in->instance);
    else if (vs->indexed)
        ctx->gpu.vk.vkCmdDrawIndexed(cmd, vs->count, 1, 0, vs->vertex_offset + first, in->instance);
    else
        ctx->gpu.vk.vkCmdDraw(cmd, vs->count, 1, in->first_vertex, in->instance);
}

/* Errors of a surface request that drop the draw (logged and counted)
 * rather than stop the command list. */
bool pvk_draw_dropped(pvk_result r)
{
    return r == PVK_ERROR_BAD_PARAMETERS || r == PVK_ERROR_OUT_OF_RANGE || r == PVK_ERROR_MISSING_FEATURE;
}

/* A viewport Vulkan can take; false (logged and counted: the draw is pvk_draw_dropped)
 * otherwise. */
bool pvk_draw_viewport_ok(pvk_context *ctx, const pvk_raster_desc *rd, uint32_t scale)
{
    float vw = rd->viewport[2], vh = rd->viewport[3];
    const uint32_t *max = ctx->gpu.props.limits.maxViewportDimensions;
    if (vw > 0 && vw <= 8192 && vh > 0 && vh <= 8192 && vw * (float)scale <= (float)max[0] &&
        vh * (float)scale <= (float)max[1])
        return true;
    pvk_bad_input(&ctx->gpu, "draw: viewport %gx%g is not drawable; pvk_draw_dropped", vw, vh);
    return false;
}

/* The per-draw state inside a render pass: blend constants, viewport,
 * scissor, push constants (exclusive scissor, depth mapping, TEV uniforms,
 * clip plane), depth test and writes (when the pass has a depth attachment),
 * the stencil state (when it has a stencil aspect) and culling.  Everything a
 * pipeline leaves dynamic is set for every draw, recorded only where `dyn`
 * shows the command buffer holds another value, so draws of one batch do not
 * inherit each other's state. */
void pvk_draw_set_state(pvk_context *ctx, draw_dyn *dyn, VkCommandBuffer cmd, const pvk_draw_packet *pk, uint32_t w,
                        uint32_t h, uint32_t scale, const depth_state *dst, bool depth_attachment,
                        bool stencil_attachment, uint32_t uber_tex)
{
    const pvk_raster_desc *rd = &pk->raster;
    float bc[4];
    for (int i = 0; i < 4; i++)
        bc[i] = (float)((pk->blend_color >> (8 * i)) & 0xFF) / 255.0f;
    if (dyn_differs(dyn, DYN_BLEND, dyn ? dyn->blend : NULL, bc, sizeof bc))
        ctx->gpu.vk.vkCmdSetBlendConstants(cmd, bc);
    /* Viewport: PICA window y runs up; attachment row = h - window y.  At
     * resolution scale N every window coordinate is N attachment pixels, the
     * picture not moved: an edge on a 1x pixel boundary stays on a boundary
     * of N x pixels, so flat pictures are exactly the 1x one upsampled (a
     * half-pixel move at even N would let the resolve sample 1x pixel
     * centres exactly, but put such edges on sample centres, where float
     * rounding decides coverage). */
    float vx = rd->viewport[0], vy = rd->viewport[1], vw = rd->viewport[2], vh = rd->viewport[3], n = (float)scale;
    VkViewport viewport = {vx * n, ((float)h - vy) * n, vw * n, -vh * n, 0.0f, 1.0f};
    int32_t si = (int32_t)scale;
    if (dyn_differs(dyn, DYN_VIEWPORT, dyn ? &dyn->viewport : NULL, &viewport, sizeof viewport))
        ctx->gpu.vk.vkCmdSetViewport(cmd, 0, 1, &viewport);
    VkRect2D scissor = {{0, 0}, {w * scale, h * scale}};
    int32_t exclude[4] = {1, 1, 0, 0}; /* x1 < x0: none */
    uint32_t smode = rd->scissor_mode;
    if (smode == 1 || smode == 3) {
        int32_t x0 = rd->scissor[0], y0 = rd->scissor[1], x1 = rd->scissor[2], y1 = rd->scissor[3];
        /* inclusive window rectangle (y up) -> attachment rows */
        int32_t r0 = (int32_t)h - 1 - y1, r1 = (int32_t)h - 1 - y0;
        if (smode == 3) {
            int32_t cx0 = x0 < 0 ? 0 : x0, cr0 = r0 < 0 ? 0 : r0;
            int32_t cx1 = x1 >= (int32_t)w ? (int32_t)w - 1 : x1, cr1 = r1 >= (int32_t)h ? (int32_t)h - 1 : r1;
            if (cx1 < cx0 || cr1 < cr0)
                scissor = (VkRect2D){{0, 0}, {0, 0}};
            else
                scissor = (VkRect2D){{cx0 * si, cr0 * si},
                                     {(uint32_t)(cx1 - cx0 + 1) * scale, (uint32_t)(cr1 - cr0 + 1) * scale}};
        } else { /* inclusive pixel ranges: 1x pixel p is N x N pixels from p * N */
            exclude[0] = x0 * si, exclude[1] = r0 * si, exclude[2] = (x1 + 1) * si - 1, exclude[3] = (r1 + 1) * si - 1;
        }
    }
    if (dyn_differs(dyn, DYN_SCISSOR, dyn ? &dyn->scissor : NULL, &scissor, sizeof scissor))
        ctx->gpu.vk.vkCmdSetScissor(cmd, 0, 1, &scissor);
    pvk_draw_push fpush = {{exclude[0], exclude[1], exclude[2], exclude[3]},
                           rd->depth_scale,
                           rd->depth_offset,
                           (float)((1u << (dst->bits ? dst->bits : 24)) - 1),
                           rd->w_buffer,
                           pk->uniforms,
                           pk->blend_color,
                           uber_tex}; /* 4-byte fields only: compared whole */
    VkPipelineLayout layout = pvk_pipeline_layout(ctx);
    if (dyn_differs(dyn, DYN_FRAG_PUSH, dyn ? &dyn->frag : NULL, &fpush, sizeof fpush))
        ctx->gpu.vk.vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_FRAGMENT_BIT, 32, sizeof fpush, &fpush);
    if (depth_attachment) {
        const uint32_t v[3] = {dst->use, dst->write, dst->use ? dst->op : VK_COMPARE_OP_ALWAYS};
        if (dyn_differs(dyn, DYN_DEPTH, dyn ? dyn->depth : NULL, v, sizeof v)) {
            ctx->gpu.vk.vkCmdSetDepthTestEnable(cmd, v[0]);
            ctx->gpu.vk.vkCmdSetDepthWriteEnable(cmd, v[1]);
            ctx->gpu.vk.vkCmdSetDepthCompareOp(cmd, (VkCompareOp)v[2]);
        }
    }
    if (stencil_attachment)
        set_stencil(ctx, dyn, cmd, rd, dst->stencil);
    draw_clip_push clip = {{rd->clip[0], rd->clip[1], rd->clip[2], rd->clip[3]}, rd->clip_enable, {0, 0, 0}};
    if (dyn_differs(dyn, DYN_CLIP_PUSH, dyn ? &dyn->clip : NULL, &clip, sizeof clip))
        ctx->gpu.vk.vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof clip, &clip);
    uint32_t cull = pvk_vk_cull_mode(rd->cull);
    if (dyn_differs(dyn, DYN_CULL, dyn ? &dyn->cull : NULL, &cull, sizeof cull))
        ctx->gpu.vk.vkCmdSetCullMode(cmd, cull);
}

const uint32_t *pvk_draw_uber_state(pvk_context *ctx, const pvk_draw_packet *pk)
{
    if (!(ctx->gpu.debug & PVK_DEBUG_UBERSHADER) && !pvk_pipelines_async(ctx))
        return NULL;
    return pvk_fs_uber_memo(&ctx->pipelines->uber_data, &pk->fs, &pk->pipe)->state;
}

/* What resolving the keys changed, reported: shadow rendering on a path
 * without attachment reads is counted unsupported per draw, logged once. */
void pvk_draw_report_resolve(pvk_context *ctx, pvk_resolve_notes notes)
{
    if (notes.shadow_dropped)
        pvk_unsupported_once(&ctx->gpu, PVK_ONCE_SHADOW_MODE,
                             "draw: shadow rendering needs attachment reads (%s); the TEV colour is written instead",
                             ctx->gpu.debug & PVK_DEBUG_ROUNDTRIP ? "not on the PVK_DEBUG=roundtrip path"
                                                                  : "device or PVK_DEBUG");
}
