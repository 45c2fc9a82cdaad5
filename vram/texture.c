/* Texture decode: a PICA texture in guest memory (all 14 formats, mip levels,
 * cube faces) becomes a VkImage, decoded by compute shaders into a linear
 * staging buffer that is copied into the image: texture_decode.comp for the
 * twelve uncompressed formats (driven by the channel table below),
 * texture_decode_etc.comp for ETC1 and ETC1A4.  Nothing is decoded per texel
 * on the CPU.
 *
 * The image format keeps every bit of the source (the view's swizzle makes
 * the RGBA the texture unit gives; A-only formats read RGB 0, L formats
 * replicate L, as Citra does):
 *
 *   PICA format          image                  stored                     view swizzle
 *   RGBA8888, RGB888     R8G8B8A8_UNORM         R, G, B, A (RGB888: A=255)  identity
 *   RGBA5551, RGB565     R8G8B8A8_UNORM         bit-replicated to 8 bits    identity
 *   RGBA4444             R8G8B8A8_UNORM         x*17                        identity
 *   ETC1, ETC1A4         R8G8B8A8_UNORM         RGB, A=255 / alpha x*17     identity
 *   LA8                  R8G8_UNORM             L, A                        L L L A
 *   HILO8                R8G8_UNORM             HI, LO                      HI LO 0 1
 *   LA44                 R8G8_UNORM             L*17, A*17                  L L L A
 *   L8, L4               R8_UNORM               L (L4: x*17)                L L L 1
 *   A8, A4               R8_UNORM               A (A4: x*17)                0 0 0 A
 *
 * Every expansion is exact and invertible (x*17 and bit replication keep the
 * source bits in the high bits).  Image row 0 is the first row in memory
 * (the top as a display transfer sees it); sampling will flip t.
 *
 * Levels follow level 0 in memory, each half as wide and high, each laid out
 * like level 0.  Levels are accepted while both sides stay multiples of 8 (as
 * citro3d makes them: C3D_TexCalcMaxLevel); what the hardware reads for
 * smaller levels (an 8x8 tile only partly covered) is not documented, so
 * such requests are refused as unsupported. */
#include <string.h>

#include "runtime/runtime.h"

static const VkComponentSwizzle R = VK_COMPONENT_SWIZZLE_R, G = VK_COMPONENT_SWIZZLE_G,
                                ZERO = VK_COMPONENT_SWIZZLE_ZERO, ONE = VK_COMPONENT_SWIZZLE_ONE,
                                ID = VK_COMPONENT_SWIZZLE_IDENTITY;

/* Output channel c of an uncompressed format, for texture_decode.comp: the
 * texel read as a little-endian value of `bits`, channel at bit `shift`,
 * `width` bits wide, widened to 8 bits by replication; or a constant. */
#define CH(shift, width) ((uint32_t)(shift) | (uint32_t)(width) << 8)
#define K(value) ((uint32_t)(value) << 16)

static const struct {
    uint8_t bits;        /* guest bits per texel */
    uint8_t out_bytes;   /* image bytes per texel */
    VkFormat vk;
    VkComponentMapping swizzle;
    uint32_t chan[4];    /* image channels from the texel (bytes A,B,G,R = R in bits 24-31, ...) */
    const char *name;
} formats[PVK_TEX_FORMAT_COUNT] = {
    [PVK_TEX_RGBA8] = {32, 4, VK_FORMAT_R8G8B8A8_UNORM, {ID, ID, ID, ID}, {CH(24, 8), CH(16, 8), CH(8, 8), CH(0, 8)},
                       "RGBA8888"},
    [PVK_TEX_RGB8] = {24, 4, VK_FORMAT_R8G8B8A8_UNORM, {ID, ID, ID, ID}, {CH(16, 8), CH(8, 8), CH(0, 8), K(255)},
                      "RGB888"},
    [PVK_TEX_RGBA5551] = {16, 4, VK_FORMAT_R8G8B8A8_UNORM, {ID, ID, ID, ID},
                          {CH(11, 5), CH(6, 5), CH(1, 5), CH(0, 1)}, "RGBA5551"},
    [PVK_TEX_RGB565] = {16, 4, VK_FORMAT_R8G8B8A8_UNORM, {ID, ID, ID, ID}, {CH(11, 5), CH(5, 6), CH(0, 5), K(255)},
                        "RGB565"},
    [PVK_TEX_RGBA4] = {16, 4, VK_FORMAT_R8G8B8A8_UNORM, {ID, ID, ID, ID}, {CH(12, 4), CH(8, 4), CH(4, 4), CH(0, 4)},
                       "RGBA4444"},
    [PVK_TEX_LA8] = {16, 2, VK_FORMAT_R8G8_UNORM, {R, R, R, G}, {CH(8, 8), CH(0, 8)}, "LA8"},
    [PVK_TEX_HILO8] = {16, 2, VK_FORMAT_R8G8_UNORM, {R, G, ZERO, ONE}, {CH(8, 8), CH(0, 8)}, "HILO8"},
    [PVK_TEX_L8] = {8, 1, VK_FORMAT_R8_UNORM, {R, R, R, ONE}, {CH(0, 8)}, "L8"},
    [PVK_TEX_A8] = {8, 1, VK_FORMAT_R8_UNORM, {ZERO, ZERO, ZERO, R}, {CH(0, 8)}, "A8"},
    [PVK_TEX_LA4] = {8, 2, VK_FORMAT_R8G8_UNORM, {R, R, R, G}, {CH(4, 4), CH(0, 4)}, "LA44"},
    [PVK_TEX_L4] = {4, 1, VK_FORMAT_R8_UNORM, {R, R, R, ONE}, {CH(0, 4)}, "L4"},
    [PVK_TEX_A4] = {4, 1, VK_FORMAT_R8_UNORM, {ZERO, ZERO, ZERO, R}, {CH(0, 4)}, "A4"},
    /* decoded by texture_decode_etc.comp */
    [PVK_TEX_ETC1] = {4, 4, VK_FORMAT_R8G8B8A8_UNORM, {ID, ID, ID, ID}, {0}, "ETC1"},
    [PVK_TEX_ETC1A4] = {8, 4, VK_FORMAT_R8G8B8A8_UNORM, {ID, ID, ID, ID}, {0}, "ETC1A4"},
};

#define MAX_LEVELS 8 /* 1024 .. 8 */

VkFormat pvk_texture_vk_format(uint32_t format, VkComponentMapping *swizzle, uint32_t *texel_bytes)
{
    if (format >= PVK_TEX_FORMAT_COUNT)
        return VK_FORMAT_UNDEFINED;
    if (swizzle)
        *swizzle = formats[format].swizzle;
    if (texel_bytes)
        *texel_bytes = formats[format].out_bytes;
    return formats[format].vk;
}

uint32_t pvk_texture_face_bytes(uint32_t format, uint32_t width, uint32_t height, uint32_t levels)
{
    if (format >= PVK_TEX_FORMAT_COUNT)
        return 0;
    uint64_t bits = 0;
    for (uint32_t i = 0; i < levels && i < 32; i++)
        bits += (uint64_t)(width >> i) * (height >> i) * formats[format].bits;
    return (uint32_t)(bits / 8);
}

/* Does level `i` of a side `n` long exist as citro3d lays levels out? */
static bool level_ok(uint32_t n, uint32_t i)
{
    return (n >> i) >= 8 && (n >> i) % 8 == 0 && (n >> i) << i == n;
}

/* The refusals, each logged and counted (bad_input, or unsupported for
 * levels the hardware may have but whose layout is undocumented). */
static pvk_result check(pvk_context *ctx, const pvk_texture_desc *d, pvk_guest_span spans[6])
{
    if (d->format >= PVK_TEX_FORMAT_COUNT) {
        pvk_bad_input(ctx, "texture decode: format %u is reserved (0-13 are defined)", d->format);
        return PVK_ERROR_BAD_PARAMETERS;
    }
    const char *name = formats[d->format].name;
    if (d->width < PVK_TEX_MIN_DIM || d->height < PVK_TEX_MIN_DIM || d->width > PVK_TEX_MAX_DIM ||
        d->height > PVK_TEX_MAX_DIM || d->width % 8 || d->height % 8) {
        pvk_bad_input(ctx, "texture decode: %s %ux%u: sides must be multiples of 8 from %u to %u", name, d->width,
                      d->height, PVK_TEX_MIN_DIM, PVK_TEX_MAX_DIM);
        return PVK_ERROR_BAD_PARAMETERS;
    }
    uint32_t side = d->width > d->height ? d->width : d->height, full = 1;
    while (side >> full)
        full++; /* levels down to 1x1 */
    if (d->levels < 1 || d->levels > full) {
        pvk_bad_input(ctx, "texture decode: %s %ux%u with %u levels (1 to %u, the last 1x1)", name, d->width,
                      d->height, d->levels, full);
        return PVK_ERROR_BAD_PARAMETERS;
    }
    for (uint32_t i = 1; i < d->levels; i++)
        if (!level_ok(d->width, i) || !level_ok(d->height, i)) {
            pvk_unsupported(ctx,
                            "texture decode: %s %ux%u level %u would be %ux%u; levels need sides that are "
                            "multiples of 8 (smaller ones have no documented layout)",
                            name, d->width, d->height, i, d->width >> i, d->height >> i);
            return PVK_ERROR_UNSUPPORTED;
        }
    if (d->faces != 1 && d->faces != 6) {
        pvk_bad_input(ctx, "texture decode: %u faces (1 for 2D, 6 for a cube map)", d->faces);
        return PVK_ERROR_BAD_PARAMETERS;
    }
    if (d->faces == 6 && d->width != d->height) {
        pvk_bad_input(ctx, "texture decode: a %ux%u cube map is not square", d->width, d->height);
        return PVK_ERROR_BAD_PARAMETERS;
    }
    uint32_t bytes = pvk_texture_face_bytes(d->format, d->width, d->height, d->levels);
    for (uint32_t f = 0; f < d->faces; f++) {
        if (d->addr[f] % 8) { /* the address registers count 8-byte units */
            pvk_bad_input(ctx, "texture decode: address 0x%08X is not 8-byte aligned", d->addr[f]);
            return PVK_ERROR_BAD_PARAMETERS;
        }
        if (!pvk_guest_resolve(ctx, d->addr[f], bytes, "texture decode", &spans[f]))
            return PVK_ERROR_OUT_OF_RANGE;
    }
    return PVK_SUCCESS;
}

static void destroy_image(pvk_context *ctx, pvk_texture *t)
{
    if (t->view)
        ctx->vk.vkDestroyImageView(ctx->device, t->view, NULL);
    if (t->image)
        ctx->vk.vkDestroyImage(ctx->device, t->image, NULL);
    if (t->mem)
        ctx->vk.vkFreeMemory(ctx->device, t->mem, NULL);
    memset(t, 0, sizeof *t);
}

static pvk_result create_image(pvk_context *ctx, pvk_texture *t)
{
    const pvk_texture_desc *d = &t->desc;
    VkImageCreateInfo ici = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
        .flags = d->faces == 6 ? VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT : 0,
        .imageType = VK_IMAGE_TYPE_2D,
        .format = t->vk_format,
        .extent = {d->width, d->height, 1},
        .mipLevels = d->levels,
        .arrayLayers = d->faces,
        .samples = VK_SAMPLE_COUNT_1_BIT,
        .tiling = VK_IMAGE_TILING_OPTIMAL,
        .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
    };
    pvk_result r;
    if ((r = pvk_vk_check(ctx, ctx->vk.vkCreateImage(ctx->device, &ici, NULL, &t->image), "vkCreateImage")))
        return r;
    if ((r = pvk_image_memory(ctx, t->image, &t->mem)))
        return r;
    VkImageViewCreateInfo vci = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
        .image = t->image,
        .viewType = d->faces == 6 ? VK_IMAGE_VIEW_TYPE_CUBE : VK_IMAGE_VIEW_TYPE_2D,
        .format = t->vk_format,
        .components = formats[d->format].swizzle,
        .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, d->levels, 0, d->faces},
    };
    if ((r = pvk_vk_check(ctx, ctx->vk.vkCreateImageView(ctx->device, &vci, NULL, &t->view), "vkCreateImageView")))
        return r;
    pvk_object_name(ctx, VK_OBJECT_TYPE_IMAGE, (uint64_t)t->image, "texture %s 0x%08X %ux%u, %u levels%s",
                    formats[d->format].name, d->addr[0], d->width, d->height, d->levels,
                    d->faces == 6 ? ", cube" : "");
    return PVK_SUCCESS;
}

/* A layout transition of every level and face. */
static void image_barrier(pvk_context *ctx, VkCommandBuffer cmd, const pvk_texture *t, uint32_t level,
                          uint32_t levels, uint32_t face, uint32_t faces, VkImageLayout from, VkImageLayout to)
{
    VkImageMemoryBarrier2 b = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
        .srcStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
        .srcAccessMask = VK_ACCESS_2_MEMORY_WRITE_BIT,
        .dstStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
        .dstAccessMask = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT,
        .oldLayout = from,
        .newLayout = to,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .image = t->image,
        .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, level, levels, face, faces},
    };
    VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .imageMemoryBarrierCount = 1,
                           .pImageMemoryBarriers = &b};
    ctx->vk.vkCmdPipelineBarrier2(cmd, &di);
}

pvk_result pvk_texture_decode(pvk_context *ctx, const pvk_texture_desc *desc, pvk_texture *out)
{
    if (!ctx || !desc || !out)
        return PVK_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (ctx->sticky)
        return ctx->sticky;
    pvk_guest_span spans[6];
    pvk_result r = check(ctx, desc, spans);
    if (r)
        return r;
    const pvk_texture_desc *d = desc;
    uint32_t bits = formats[d->format].bits, ob = formats[d->format].out_bytes;
    bool etc = d->format == PVK_TEX_ETC1 || d->format == PVK_TEX_ETC1A4;
    pvk_buffer_range src[6];
    uint32_t sub[6];
    bool mirrored = false;
    for (uint32_t f = 0; f < d->faces; f++) {
        if (!pvk_guest_bind(ctx, &spans[f], &src[f], &sub[f], "texture decode"))
            return PVK_ERROR_BAD_PARAMETERS;
        /* until textures are surfaces: a render target over the texture goes home first */
        if ((r = pvk_guest_sync_for_read(ctx, d->addr[f], spans[f].len)))
            return r;
        mirrored |= spans[f].region->mirror != NULL;
    }
    if (mirrored) { /* earlier GPU writes reach host memory, then the host's bytes go in */
        pvk_retire(ctx, true);
        for (uint32_t f = 0; f < d->faces; f++)
            pvk_guest_upload(ctx, &spans[f]);
    }

    out->desc = *d;
    for (uint32_t f = d->faces; f < 6; f++)
        out->desc.addr[f] = 0;
    out->vk_format = formats[d->format].vk;
    if ((r = create_image(ctx, out))) {
        destroy_image(ctx, out);
        return r;
    }
    /* staging: every face's levels, linear, one after another */
    VkDeviceSize face_out = 0;
    for (uint32_t l = 0; l < d->levels; l++)
        face_out += (VkDeviceSize)(d->width >> l) * (d->height >> l) * ob;
    pvk_op op;
    if ((r = pvk_op_begin(ctx, &op))) {
        destroy_image(ctx, out);
        return r;
    }
    /* freed when the op retires */
    if ((r = pvk_create_buffer(ctx, face_out * d->faces,
                               VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                               VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &op.p.scratch, &op.p.scratch_mem))) {
        pvk_op_abort(ctx, &op);
        destroy_image(ctx, out);
        return r;
    }
    pvk_op_label(ctx, &op, "texture decode: %s 0x%08X %ux%u, %u levels%s", formats[d->format].name, d->addr[0],
                 d->width, d->height, d->levels, d->faces == 6 ? ", cube" : "");
    VkBufferImageCopy regions[6 * MAX_LEVELS];
    uint32_t n = 0;
    pvk_buffer_range dst = {op.p.scratch, 0, face_out * d->faces};
    for (uint32_t f = 0; f < d->faces; f++) {
        uint64_t src_off = sub[f];
        VkDeviceSize dst_off = face_out * f;
        for (uint32_t l = 0; l < d->levels; l++) {
            uint32_t w = d->width >> l, h = d->height >> l;
            pvk_buffer_range bufs[2] = {src[f], dst};
            /* texture_decode.comp: one invocation per 8x8 tile; _etc: per 4x4 block */
            uint32_t push[12] = {(uint32_t)src_off, (uint32_t)(dst_off / 4), w};
            uint32_t items = etc ? w * h / 16 : w * h / 64;
            uint32_t groups = (items + 63) / 64, row_groups = groups < 65535 ? groups : 65535;
            int pipe = etc ? PVK_PIPE_TEXTURE_DECODE_ETC : PVK_PIPE_TEXTURE_DECODE;
            if (etc) {
                push[3] = items, push[4] = row_groups, push[5] = d->format == PVK_TEX_ETC1A4;
            } else {
                push[3] = w * ob / 4, push[4] = items, push[5] = row_groups, push[6] = bits;
                push[7] = (uint32_t)(src[f].range / 4 - 1);
                memcpy(push + 8, formats[d->format].chan, sizeof formats[d->format].chan);
            }
            pvk_op_dispatch(ctx, &op, pipe, bufs, push, row_groups, (groups + row_groups - 1) / row_groups, 1);
            regions[n++] = (VkBufferImageCopy){
                .bufferOffset = dst_off,
                .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, l, f, 1},
                .imageExtent = {w, h, 1},
            };
            src_off += (uint64_t)w * h * bits / 8;
            dst_off += (VkDeviceSize)w * h * ob;
        }
    }
    pvk_op_barrier(ctx, &op);
    image_barrier(ctx, op.cmd, out, 0, d->levels, 0, d->faces, VK_IMAGE_LAYOUT_UNDEFINED,
                  VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    ctx->vk.vkCmdCopyBufferToImage(op.cmd, op.p.scratch, out->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, n,
                                   regions);
    image_barrier(ctx, op.cmd, out, 0, d->levels, 0, d->faces, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                  VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    if ((r = pvk_op_submit(ctx, &op))) { /* the submit freed the scratch buffer */
        destroy_image(ctx, out);
        return r;
    }
    return PVK_SUCCESS;
}

pvk_result pvk_texture_read(pvk_context *ctx, const pvk_texture *t, uint32_t face, uint32_t level, void *dst,
                            size_t size)
{
    if (!ctx || !t || !t->image || !dst || face >= t->desc.faces || level >= t->desc.levels)
        return PVK_ERROR_INVALID_ARGUMENT;
    uint32_t w = t->desc.width >> level, h = t->desc.height >> level;
    VkDeviceSize bytes = (VkDeviceSize)w * h * formats[t->desc.format].out_bytes;
    if (size != bytes)
        return PVK_ERROR_INVALID_ARGUMENT;
    VkBuffer buf;
    VkDeviceMemory mem;
    pvk_result r = pvk_create_buffer(ctx, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                     VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                     &buf, &mem);
    if (r)
        return r;
    pvk_op op;
    if ((r = pvk_op_begin(ctx, &op)))
        goto done;
    pvk_op_label(ctx, &op, "texture read-back: face %u level %u", face, level);
    image_barrier(ctx, op.cmd, t, level, 1, face, 1, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                  VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    VkBufferImageCopy bic = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level, face, 1}, .imageExtent = {w, h, 1}};
    ctx->vk.vkCmdCopyImageToBuffer(op.cmd, t->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buf, 1, &bic);
    image_barrier(ctx, op.cmd, t, level, 1, face, 1, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                  VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    if ((r = pvk_op_submit(ctx, &op)) || (r = pvk_retire_until(ctx, ctx->timeline_next)))
        goto done;
    void *p;
    if ((r = pvk_vk_check(ctx, ctx->vk.vkMapMemory(ctx->device, mem, 0, VK_WHOLE_SIZE, 0, &p), "vkMapMemory")))
        goto done;
    memcpy(dst, p, bytes);
    ctx->vk.vkUnmapMemory(ctx->device, mem);
done:
    if (r && ctx->pending_count)
        pvk_retire(ctx, true); /* the copy may still be running */
    ctx->vk.vkDestroyBuffer(ctx->device, buf, NULL);
    ctx->vk.vkFreeMemory(ctx->device, mem, NULL);
    return r;
}

void pvk_texture_destroy(pvk_context *ctx, pvk_texture *t)
{
    if (!ctx || !t || !t->image)
        return;
    /* a decode or a read-back in flight may still use the image */
    if (ctx->pending_count)
        pvk_retire(ctx, true);
    destroy_image(ctx, t);
}
