/* The attachment-read path's render passes (by depth format and depth load
 * op) and imageless framebuffers (by those and the size), cached for the
 * context: draws that read their colour attachment (blending in the shader)
 * run in a subpass with it as input attachment 0. */
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/pipeline.h"

VkRenderPass pvk_render_pass_get(pvk_context *ctx, VkFormat depth, bool load)
{
    struct pvk_pipelines *pl = ctx->pipelines;
    for (uint32_t i = 0; i < pl->n_passes; i++)
        if (pl->passes[i].depth == depth && pl->passes[i].load == load)
            return pl->passes[i].pass;
    if (pl->n_passes == MAX_PASSES) { /* three depth formats and two load ops fit */
        pvk_log(&ctx->gpu, PVK_LOG_ERROR, "render passes: more than %d kinds", MAX_PASSES);
        return VK_NULL_HANDLE;
    }
    bool stencil = depth == VK_FORMAT_D32_SFLOAT_S8_UINT || depth == VK_FORMAT_D24_UNORM_S8_UINT;
    VkImageLayout drest = stencil ? VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL
                                  : VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL;
    VkAttachmentLoadOp dload = load ? VK_ATTACHMENT_LOAD_OP_LOAD : VK_ATTACHMENT_LOAD_OP_CLEAR;
    VkAttachmentStoreOp dstore = load ? VK_ATTACHMENT_STORE_OP_STORE : VK_ATTACHMENT_STORE_OP_DONT_CARE;
    /* surfaces rest in the attachment layouts; inside the subpass the colour
     * attachment is also input attachment 0, a feedback loop in GENERAL */
    VkAttachmentDescription2 att[2] = {
        {.sType = VK_STRUCTURE_TYPE_ATTACHMENT_DESCRIPTION_2, .format = VK_FORMAT_R8G8B8A8_UNORM,
         .samples = VK_SAMPLE_COUNT_1_BIT, .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD,
         .storeOp = VK_ATTACHMENT_STORE_OP_STORE, .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
         .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .initialLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
         .finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL},
        {.sType = VK_STRUCTURE_TYPE_ATTACHMENT_DESCRIPTION_2, .format = depth, .samples = VK_SAMPLE_COUNT_1_BIT,
         .loadOp = dload, .storeOp = dstore,
         .stencilLoadOp = stencil ? dload : VK_ATTACHMENT_LOAD_OP_DONT_CARE,
         .stencilStoreOp = stencil ? dstore : VK_ATTACHMENT_STORE_OP_DONT_CARE,
         .initialLayout = drest, .finalLayout = drest},
    };
    VkAttachmentReference2 color = {.sType = VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_2, .attachment = 0,
                                    .layout = VK_IMAGE_LAYOUT_GENERAL};
    VkAttachmentReference2 input = {.sType = VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_2, .attachment = 0,
                                    .layout = VK_IMAGE_LAYOUT_GENERAL, .aspectMask = VK_IMAGE_ASPECT_COLOR_BIT};
    VkAttachmentReference2 dref = {.sType = VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_2, .attachment = 1,
                                   .layout = drest};
    bool has_depth = depth != VK_FORMAT_UNDEFINED;
    VkSubpassDescription2 sub = {
        .sType = VK_STRUCTURE_TYPE_SUBPASS_DESCRIPTION_2,
        .flags = VK_SUBPASS_DESCRIPTION_RASTERIZATION_ORDER_ATTACHMENT_COLOR_ACCESS_BIT_EXT,
        .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
        .inputAttachmentCount = 1,
        .pInputAttachments = &input,
        .colorAttachmentCount = 1,
        .pColorAttachments = &color,
        .pDepthStencilAttachment = has_depth ? &dref : NULL,
    };
    /* everything before and after the pass, as the full barriers of
     * pvk_op_begin/pvk_op_submit order the dynamic-rendering path */
    const VkPipelineStageFlags gfx = VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
                                     VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT |
                                     VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    const VkAccessFlags gfx_access = VK_ACCESS_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT |
                                     VK_ACCESS_INPUT_ATTACHMENT_READ_BIT |
                                     VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                                     VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
    VkSubpassDependency2 deps[2] = {
        {.sType = VK_STRUCTURE_TYPE_SUBPASS_DEPENDENCY_2, .srcSubpass = VK_SUBPASS_EXTERNAL, .dstSubpass = 0,
         .srcStageMask = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, .dstStageMask = gfx,
         .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT, .dstAccessMask = gfx_access},
        {.sType = VK_STRUCTURE_TYPE_SUBPASS_DEPENDENCY_2, .srcSubpass = 0, .dstSubpass = VK_SUBPASS_EXTERNAL,
         .srcStageMask = gfx, .dstStageMask = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
         .srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
         .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT},
    };
    VkRenderPassCreateInfo2 rpci = {
        .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO_2,
        .attachmentCount = has_depth ? 2 : 1,
        .pAttachments = att,
        .subpassCount = 1,
        .pSubpasses = &sub,
        .dependencyCount = 2,
        .pDependencies = deps,
    };
    VkRenderPass pass = VK_NULL_HANDLE;
    if (pvk_vk_check(&ctx->gpu, ctx->gpu.vk.vkCreateRenderPass2(ctx->gpu.device, &rpci, NULL, &pass),
                     "vkCreateRenderPass2"))
        return VK_NULL_HANDLE;
    pvk_object_name(&ctx->gpu, VK_OBJECT_TYPE_RENDER_PASS, (uint64_t)pass, "draws reading their colour attachment%s%s",
                    has_depth ? (stencil ? ", depth-stencil" : ", depth") : "",
                    has_depth ? (load ? " loaded" : " cleared") : "");
    pl->passes[pl->n_passes++] = (pass_entry){depth, load, pass};
    return pass;
}

VkFramebuffer pvk_framebuffer_get(pvk_context *ctx, VkFormat depth, bool load, uint32_t w, uint32_t h)
{
    struct pvk_pipelines *pl = ctx->pipelines;
    for (uint32_t i = 0; i < pl->n_fbs; i++) {
        const fb_entry *e = &pl->fbs[i];
        if (e->depth == depth && e->load == load && e->w == w && e->h == h)
            return e->fb;
    }
    VkRenderPass pass = pvk_render_pass_get(ctx, depth, load);
    if (!pass)
        return VK_NULL_HANDLE;
    /* many sizes: start over, the old ones destroyed once the GPU is done
     * with what was submitted (the only caller, draw.c batch_open, has not
     * recorded with a framebuffer of the new batch yet) */
    if (pl->n_fbs == MAX_FRAMEBUFFERS) {
        uint32_t kept = 0;
        for (uint32_t i = 0; i < pl->n_fbs; i++)
            if (!pvk_gpu_defer_destroy(&ctx->gpu, pvk_gpu_submitted(&ctx->gpu), VK_OBJECT_TYPE_FRAMEBUFFER,
                                       (uint64_t)pl->fbs[i].fb, VK_NULL_HANDLE, VK_NULL_HANDLE))
                pl->fbs[kept++] = pl->fbs[i]; /* logged; kept for the context's end */
        if (kept == pl->n_fbs)
            return VK_NULL_HANDLE;
        pl->n_fbs = kept;
    }
    /* imageless: the views come at vkCmdBeginRenderPass, so no framebuffer
     * outlives a surface; these must match the images' creation exactly */
    VkFormat cfmt = VK_FORMAT_R8G8B8A8_UNORM;
    VkFramebufferAttachmentImageInfo info[2] = {
        {.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_ATTACHMENT_IMAGE_INFO, .usage = PVK_COLOR_TARGET_USAGE, .width = w,
         .height = h, .layerCount = 1, .viewFormatCount = 1, .pViewFormats = &cfmt},
        {.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_ATTACHMENT_IMAGE_INFO, .usage = PVK_DEPTH_TARGET_USAGE, .width = w,
         .height = h, .layerCount = 1, .viewFormatCount = 1, .pViewFormats = &depth},
    };
    uint32_t n = depth != VK_FORMAT_UNDEFINED ? 2 : 1;
    VkFramebufferAttachmentsCreateInfo faci = {
        .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_ATTACHMENTS_CREATE_INFO, .attachmentImageInfoCount = n,
        .pAttachmentImageInfos = info};
    VkFramebufferCreateInfo fci = {
        .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
        .pNext = &faci,
        .flags = VK_FRAMEBUFFER_CREATE_IMAGELESS_BIT,
        .renderPass = pass,
        .attachmentCount = n,
        .width = w,
        .height = h,
        .layers = 1,
    };
    VkFramebuffer fb = VK_NULL_HANDLE;
    if (pvk_vk_check(&ctx->gpu, ctx->gpu.vk.vkCreateFramebuffer(ctx->gpu.device, &fci, NULL, &fb),
                     "vkCreateFramebuffer"))
        return VK_NULL_HANDLE;
    pl->fbs[pl->n_fbs++] = (fb_entry){depth, load, w, h, fb};
    return fb;
}
