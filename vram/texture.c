/* Texture decode: a PICA texture in guest memory (all 14 formats, mip levels,
 * cube faces) becomes a VkImage, decoded by compute shaders into the
 * image's own memory on CPU devices (direct_ok), else into a linear staging
 * buffer that is copied into the image: texture_decode.comp for the
 * twelve uncompressed formats (one pipeline per format),
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
 * (the top as a display transfer sees it); sampling flips t
 * (translator/glsl_fs.c).
 *
 * Levels follow level 0 in memory, each half as wide and high, each laid out
 * like level 0.  Levels are accepted while both sides stay multiples of 8 (as
 * citro3d makes them: C3D_TexCalcMaxLevel); what the hardware reads for
 * smaller levels (an 8x8 tile only partly covered) is not documented, so
 * such requests are refused as unsupported. */
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "vram/vram.h"

static const VkComponentSwizzle R = VK_COMPONENT_SWIZZLE_R, G = VK_COMPONENT_SWIZZLE_G,
                                ZERO = VK_COMPONENT_SWIZZLE_ZERO, ONE = VK_COMPONENT_SWIZZLE_ONE,
                                ID = VK_COMPONENT_SWIZZLE_IDENTITY;

static const struct {
    uint8_t bits;        /* guest bits per texel */
    uint8_t out_bytes;   /* image bytes per texel */
    VkFormat vk;
    VkComponentMapping swizzle;
    const char *name;
} formats[PVK_TEX_FORMAT_COUNT] = {
    [PVK_TEX_RGBA8] = {32, 4, VK_FORMAT_R8G8B8A8_UNORM, {ID, ID, ID, ID}, "RGBA8888"},
    [PVK_TEX_RGB8] = {24, 4, VK_FORMAT_R8G8B8A8_UNORM, {ID, ID, ID, ID}, "RGB888"},
    [PVK_TEX_RGBA5551] = {16, 4, VK_FORMAT_R8G8B8A8_UNORM, {ID, ID, ID, ID}, "RGBA5551"},
    [PVK_TEX_RGB565] = {16, 4, VK_FORMAT_R8G8B8A8_UNORM, {ID, ID, ID, ID}, "RGB565"},
    [PVK_TEX_RGBA4] = {16, 4, VK_FORMAT_R8G8B8A8_UNORM, {ID, ID, ID, ID}, "RGBA4444"},
    [PVK_TEX_LA8] = {16, 2, VK_FORMAT_R8G8_UNORM, {R, R, R, G}, "LA8"},
    [PVK_TEX_HILO8] = {16, 2, VK_FORMAT_R8G8_UNORM, {R, G, ZERO, ONE}, "HILO8"},
    [PVK_TEX_L8] = {8, 1, VK_FORMAT_R8_UNORM, {R, R, R, ONE}, "L8"},
    [PVK_TEX_A8] = {8, 1, VK_FORMAT_R8_UNORM, {ZERO, ZERO, ZERO, R}, "A8"},
    [PVK_TEX_LA4] = {8, 2, VK_FORMAT_R8G8_UNORM, {R, R, R, G}, "LA44"},
    [PVK_TEX_L4] = {4, 1, VK_FORMAT_R8_UNORM, {R, R, R, ONE}, "L4"},
    [PVK_TEX_A4] = {4, 1, VK_FORMAT_R8_UNORM, {ZERO, ZERO, ZERO, R}, "A4"},
    /* decoded by texture_decode_etc.comp; texture_decode.comp knows the others' bit layouts */
    [PVK_TEX_ETC1] = {4, 4, VK_FORMAT_R8G8B8A8_UNORM, {ID, ID, ID, ID}, "ETC1"},
    [PVK_TEX_ETC1A4] = {8, 4, VK_FORMAT_R8G8B8A8_UNORM, {ID, ID, ID, ID}, "ETC1A4"},
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
static pvk_result check(pvk_vram *vm, const pvk_texture_desc *d, pvk_guest_span spans[6])
{
    if (d->format >= PVK_TEX_FORMAT_COUNT) {
        pvk_bad_input(vm->gpu, "texture decode: format %u is reserved (0-13 are defined)", d->format);
        return PVK_ERROR_BAD_PARAMETERS;
    }
    const char *name = formats[d->format].name;
    if (d->width < PVK_TEX_MIN_DIM || d->height < PVK_TEX_MIN_DIM || d->width > PVK_TEX_MAX_DIM ||
        d->height > PVK_TEX_MAX_DIM || d->width % 8 || d->height % 8) {
        pvk_bad_input(vm->gpu, "texture decode: %s %ux%u: sides must be multiples of 8 from %u to %u", name, d->width,
                      d->height, PVK_TEX_MIN_DIM, PVK_TEX_MAX_DIM);
        return PVK_ERROR_BAD_PARAMETERS;
    }
    uint32_t side = d->width > d->height ? d->width : d->height, full = 1;
    while (side >> full)
        full++; /* levels down to 1x1 */
    if (d->levels < 1 || d->levels > full) {
        pvk_bad_input(vm->gpu, "texture decode: %s %ux%u with %u levels (1 to %u, the last 1x1)", name, d->width,
                      d->height, d->levels, full);
        return PVK_ERROR_BAD_PARAMETERS;
    }
    for (uint32_t i = 1; i < d->levels; i++)
        if (!level_ok(d->width, i) || !level_ok(d->height, i)) {
            pvk_unsupported(vm->gpu,
                            "texture decode: %s %ux%u level %u would be %ux%u; levels need sides that are "
                            "multiples of 8 (smaller ones have no documented layout)",
                            name, d->width, d->height, i, d->width >> i, d->height >> i);
            return PVK_ERROR_UNSUPPORTED;
        }
    if (d->faces != 1 && d->faces != 6) {
        pvk_bad_input(vm->gpu, "texture decode: %u faces (1 for 2D, 6 for a cube map)", d->faces);
        return PVK_ERROR_BAD_PARAMETERS;
    }
    if (d->faces == 6 && d->width != d->height) {
        pvk_bad_input(vm->gpu, "texture decode: a %ux%u cube map is not square", d->width, d->height);
        return PVK_ERROR_BAD_PARAMETERS;
    }
    uint32_t bytes = pvk_texture_face_bytes(d->format, d->width, d->height, d->levels);
    for (uint32_t f = 0; f < d->faces; f++) {
        if (d->addr[f] % 8) { /* the address registers count 8-byte units */
            pvk_bad_input(vm->gpu, "texture decode: address 0x%08X is not 8-byte aligned", d->addr[f]);
            return PVK_ERROR_BAD_PARAMETERS;
        }
        if (!pvk_guest_resolve(vm, d->addr[f], bytes, "texture decode", &spans[f]))
            return PVK_ERROR_OUT_OF_RANGE;
    }
    return PVK_SUCCESS;
}

/* Memory of destroyed texture images, kept for the next image of the same
 * size and type (vm->textures): on lavapipe a fresh allocation is fresh
 * host pages, and faulting them in cost about a third of a decode's time.
 * Taken back only once the GPU is done with the image (as freeing it would
 * be); the oldest go when the pool is full. */
#define MEM_POOL 16
#define MEM_POOL_BYTES (32u << 20)
typedef struct mem_pool {
    struct {
        VkDeviceMemory mem;
        VkDeviceSize size;
        int type;
    } e[MEM_POOL];
    uint32_t n;
    VkDeviceSize bytes;
} mem_pool;

static mem_pool *pool_of(pvk_vram *vm);

/* The memory type pvk_image_memory picks for `req`. */
static int image_memory_type(pvk_vram *vm, const VkMemoryRequirements *req)
{
    int type = pvk_find_memory_type(vm->gpu, req->memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    return type >= 0 ? type : pvk_find_memory_type(vm->gpu, req->memoryTypeBits, 0);
}

static void destroy_image(pvk_vram *vm, pvk_texture *t)
{
    mem_pool *p = pool_of(vm);
    VkMemoryRequirements req = {0};
    if (t->mem && t->image && p)
        vm->gpu->vk.vkGetImageMemoryRequirements(vm->gpu->device, t->image, &req);
    if (req.size && req.size <= MEM_POOL_BYTES) {
        while (p->n == MEM_POOL || p->bytes + req.size > MEM_POOL_BYTES) { /* the oldest go */
            vm->gpu->vk.vkFreeMemory(vm->gpu->device, p->e[0].mem, NULL);
            p->bytes -= p->e[0].size;
            memmove(&p->e[0], &p->e[1], sizeof p->e[0] * --p->n);
        }
        p->e[p->n].mem = t->mem, p->e[p->n].size = req.size, p->e[p->n].type = image_memory_type(vm, &req);
        p->n++;
        p->bytes += req.size;
        t->mem = VK_NULL_HANDLE;
    }
    if (t->view)
        vm->gpu->vk.vkDestroyImageView(vm->gpu->device, t->view, NULL);
    if (t->image)
        vm->gpu->vk.vkDestroyImage(vm->gpu->device, t->image, NULL);
    if (t->mem)
        vm->gpu->vk.vkFreeMemory(vm->gpu->device, t->mem, NULL);
    memset(t, 0, sizeof *t);
}

/* pvk_image_memory, from the pool when it holds memory of the same size. */
static pvk_result image_memory(pvk_vram *vm, VkImage image, VkDeviceMemory *mem)
{
    mem_pool *p = pool_of(vm);
    VkMemoryRequirements req;
    vm->gpu->vk.vkGetImageMemoryRequirements(vm->gpu->device, image, &req);
    int type = image_memory_type(vm, &req);
    for (uint32_t i = p ? p->n : 0; i-- > 0;)
        if (p->e[i].size == req.size && p->e[i].type == type) {
            *mem = p->e[i].mem;
            p->bytes -= p->e[i].size;
            memmove(&p->e[i], &p->e[i + 1], sizeof p->e[0] * (p->n - i - 1));
            p->n--;
            return pvk_vk_check(vm->gpu, vm->gpu->vk.vkBindImageMemory(vm->gpu->device, image, *mem, 0),
                                "vkBindImageMemory");
        }
    return pvk_image_memory(vm->gpu, image, mem);
}

#define TEX_USAGE (VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT)

static pvk_result create_image(pvk_vram *vm, pvk_texture *t, VkImageTiling tiling)
{
    const pvk_texture_desc *d = &t->desc;
    uint32_t n = t->scale ? t->scale : 1;
    VkImageCreateInfo ici = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
        .flags = d->faces == 6 ? VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT : 0,
        .imageType = VK_IMAGE_TYPE_2D,
        .format = t->vk_format,
        .extent = {d->width * n, d->height * n, 1},
        .mipLevels = d->levels,
        .arrayLayers = d->faces,
        .samples = VK_SAMPLE_COUNT_1_BIT,
        .tiling = tiling,
        .usage = TEX_USAGE | (t->filtered ? VK_IMAGE_USAGE_STORAGE_BIT : 0),
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
    };
    pvk_result r;
    if ((r = pvk_vk_check(vm->gpu, vm->gpu->vk.vkCreateImage(vm->gpu->device, &ici, NULL, &t->image), "vkCreateImage")))
        return r;
    if ((r = image_memory(vm, t->image, &t->mem)))
        return r;
    VkImageViewCreateInfo vci = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
        .image = t->image,
        .viewType = d->faces == 6 ? VK_IMAGE_VIEW_TYPE_CUBE : VK_IMAGE_VIEW_TYPE_2D,
        .format = t->vk_format,
        .components = t->replaced || t->filtered ? (VkComponentMapping){ID, ID, ID, ID} : formats[d->format].swizzle,
        .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, d->levels, 0, d->faces},
    };
    if ((r = pvk_vk_check(vm->gpu, vm->gpu->vk.vkCreateImageView(vm->gpu->device, &vci, NULL, &t->view),
                          "vkCreateImageView")))
        return r;
    pvk_object_name(vm->gpu, VK_OBJECT_TYPE_IMAGE, (uint64_t)t->image, "texture %s 0x%08X %ux%u, %u levels%s%s",
                    formats[d->format].name, d->addr[0], d->width, d->height, d->levels, d->faces == 6 ? ", cube" : "",
                    t->replaced ? ", a pack's replacement" : t->filtered ? ", filtered" : "");
    return PVK_SUCCESS;
}

/* A layout transition of every level and face. */
static void image_barrier(pvk_vram *vm, VkCommandBuffer cmd, const pvk_texture *t, uint32_t level, uint32_t levels,
                          uint32_t face, uint32_t faces, VkImageLayout from, VkImageLayout to)
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
    vm->gpu->vk.vkCmdPipelineBarrier2(cmd, &di);
}

/* Record the decode of `d` from `src[f]` (face f's level 0 at byte `sub[f]`
 * of its binding) into `out`'s image, which ends in
 * SHADER_READ_ONLY_OPTIMAL.  With `layouts` (one per face and level, face
 * major) `dst` is the image's own memory (a linear image, see
 * direct_layouts) and the shaders write the texels in place; without, `dst`
 * is a staging buffer, filled level after level and copied into the image. */
static void record_decode(pvk_vram *vm, pvk_op *op, const pvk_texture_desc *d, const pvk_buffer_range *src,
                          const uint32_t *sub, pvk_buffer_range dst, const pvk_texture *out,
                          const VkSubresourceLayout *layouts)
{
    uint32_t bits = formats[d->format].bits, ob = formats[d->format].out_bytes;
    bool etc = d->format == PVK_TEX_ETC1 || d->format == PVK_TEX_ETC1A4;
    VkBufferImageCopy regions[6 * MAX_LEVELS];
    uint32_t n = 0;
    if (layouts)
        image_barrier(vm, op->cmd, out, 0, d->levels, 0, d->faces, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL);
    VkDeviceSize lin_off = 0;
    for (uint32_t f = 0; f < d->faces; f++) {
        uint64_t src_off = sub[f];
        for (uint32_t l = 0; l < d->levels; l++) {
            uint32_t w = d->width >> l, h = d->height >> l;
            /* where the level's rows go, in bytes */
            VkDeviceSize dst_off = layouts ? layouts[f * d->levels + l].offset : lin_off;
            VkDeviceSize pitch = layouts ? layouts[f * d->levels + l].rowPitch : (VkDeviceSize)w * ob;
            pvk_buffer_range bufs[2] = {src[f], dst};
            /* texture_decode.comp: one invocation per 4x2 texels (8 in memory order); _etc: per 4x4 block */
            uint32_t items = etc ? w * h / 16 : w * h / 8;
            uint32_t push[8] = {(uint32_t)src_off, (uint32_t)(dst_off / 4), w, items};
            uint32_t groups = (items + 63) / 64, row_groups = groups < 65535 ? groups : 65535;
            int pipe = etc ? PVK_PIPE_TEXTURE_DECODE_ETC : PVK_PIPE_TEXTURE_DECODE + (int)d->format;
            push[4] = row_groups;
            if (etc)
                push[5] = d->format == PVK_TEX_ETC1A4, push[6] = (uint32_t)(pitch / 4);
            else
                push[5] = (uint32_t)(pitch / 4);
            pvk_op_dispatch(vm->gpu, op, pipe, bufs, push, row_groups, (groups + row_groups - 1) / row_groups, 1);
            regions[n++] = (VkBufferImageCopy){
                .bufferOffset = dst.offset + lin_off,
                .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, l, f, 1},
                .imageExtent = {w, h, 1},
            };
            src_off += (uint64_t)w * h * bits / 8;
            lin_off += (VkDeviceSize)w * h * ob;
        }
    }
    pvk_op_barrier(vm->gpu, op);
    if (layouts) {
        image_barrier(vm, op->cmd, out, 0, d->levels, 0, d->faces, VK_IMAGE_LAYOUT_GENERAL,
                      VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
        return;
    }
    image_barrier(vm, op->cmd, out, 0, d->levels, 0, d->faces, VK_IMAGE_LAYOUT_UNDEFINED,
                  VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    vm->gpu->vk.vkCmdCopyBufferToImage(op->cmd, dst.buffer, out->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, n,
                                       regions);
    image_barrier(vm, op->cmd, out, 0, d->levels, 0, d->faces, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                  VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
}

/* Linear bytes of every face's decoded levels. */
static VkDeviceSize linear_bytes(const pvk_texture_desc *d)
{
    VkDeviceSize n = 0;
    for (uint32_t l = 0; l < d->levels; l++)
        n += (VkDeviceSize)(d->width >> l) * (d->height >> l) * formats[d->format].out_bytes;
    return n * d->faces;
}

/* `out` gets `d` (faces past the last zeroed) and its image. */
static pvk_result make_image_tiled(pvk_vram *vm, const pvk_texture_desc *d, pvk_texture *out, VkImageTiling tiling)
{
    out->desc = *d;
    for (uint32_t f = d->faces; f < 6; f++)
        out->desc.addr[f] = 0;
    out->vk_format = formats[d->format].vk;
    pvk_result r = create_image(vm, out, tiling);
    if (r)
        destroy_image(vm, out);
    return r;
}

static pvk_result make_image(pvk_vram *vm, const pvk_texture_desc *d, pvk_texture *out)
{
    return make_image_tiled(vm, d, out, VK_IMAGE_TILING_OPTIMAL);
}

/* Decode straight into the image's memory?  On a CPU device (lavapipe)
 * every image is rows in host memory, so a linear one samples as fast as
 * an optimal one, and writing its rows in place saves a staging buffer the
 * size of the texture, its page faults and the copy out of it: about half
 * of a decode's time there.  Elsewhere linear images sample slowly: staging. */
static bool direct_ok(pvk_vram *vm, const pvk_texture_desc *d)
{
    if (vm->gpu->props.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU || (vm->gpu->debug & PVK_DEBUG_TEXTURE_STAGING))
        return false;
    VkFormat vk = formats[d->format].vk;
    VkFormatProperties fp;
    vkGetPhysicalDeviceFormatProperties(vm->gpu->phys, vk, &fp);
    VkFormatFeatureFlags need = VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT |
                                VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
    VkImageFormatProperties ip;
    return (fp.linearTilingFeatures & need) == need &&
           vkGetPhysicalDeviceImageFormatProperties(vm->gpu->phys, vk, VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_LINEAR,
                                                    TEX_USAGE, d->faces == 6 ? VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT : 0,
                                                    &ip) == VK_SUCCESS &&
           ip.maxMipLevels >= d->levels && ip.maxArrayLayers >= d->faces && ip.maxExtent.width >= d->width &&
           ip.maxExtent.height >= d->height;
}

/* A storage buffer over the linear image `t`'s memory (a host-accessible
 * alias: the image stays in GENERAL while the shaders write through it) and
 * each face's and level's place in it, or false where the layout does not
 * allow the shaders' 8-byte stores; the caller then stages. */
static bool alias_image(pvk_vram *vm, const pvk_texture *t, VkSubresourceLayout *layouts, VkBuffer *buf,
                        VkDeviceSize *size)
{
    const pvk_texture_desc *d = &t->desc;
    VkDeviceSize end = 0;
    for (uint32_t f = 0; f < d->faces; f++)
        for (uint32_t l = 0; l < d->levels; l++) {
            VkImageSubresource sr = {VK_IMAGE_ASPECT_COLOR_BIT, l, f};
            VkSubresourceLayout *sl = &layouts[f * d->levels + l];
            vm->gpu->vk.vkGetImageSubresourceLayout(vm->gpu->device, t->image, &sr, sl);
            VkDeviceSize row = (VkDeviceSize)(d->width >> l) * formats[d->format].out_bytes;
            if (sl->offset % 8 || sl->rowPitch % 8 || sl->rowPitch < row) /* the shaders store pairs of words */
                return false;
            VkDeviceSize e = sl->offset + sl->rowPitch * (d->height >> l);
            end = e > end ? e : end;
        }
    VkMemoryRequirements ireq, breq;
    vm->gpu->vk.vkGetImageMemoryRequirements(vm->gpu->device, t->image, &ireq);
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = end,
                              .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    if (end > ireq.size || vm->gpu->vk.vkCreateBuffer(vm->gpu->device, &bci, NULL, buf) != VK_SUCCESS)
        return false;
    vm->gpu->vk.vkGetBufferMemoryRequirements(vm->gpu->device, *buf, &breq);
    int type = image_memory_type(vm, &ireq);
    if (breq.size > ireq.size || type < 0 || !(breq.memoryTypeBits & 1u << type) ||
        vm->gpu->vk.vkBindBufferMemory(vm->gpu->device, *buf, t->mem, 0) != VK_SUCCESS) {
        vm->gpu->vk.vkDestroyBuffer(vm->gpu->device, *buf, NULL);
        *buf = VK_NULL_HANDLE;
        return false;
    }
    *size = end;
    return true;
}

pvk_result pvk_texture_decode(pvk_vram *vm, const pvk_texture_desc *desc, pvk_texture *out)
{
    if (!vm || !desc || !out)
        return PVK_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (pvk_gpu_error(vm->gpu))
        return pvk_gpu_error(vm->gpu);
    pvk_guest_span spans[6];
    pvk_result r = check(vm, desc, spans);
    if (r)
        return r;
    const pvk_texture_desc *d = desc;
    pvk_buffer_range src[6];
    uint32_t sub[6];
    bool mirrored = false;
    for (uint32_t f = 0; f < d->faces; f++) {
        if (!pvk_guest_bind(vm, &spans[f], &src[f], &sub[f], "texture decode"))
            return PVK_ERROR_BAD_PARAMETERS;
        /* render targets over the texture go home first (pvk_texture_get
         * takes a surface that holds exactly its bytes without this) */
        if ((r = pvk_guest_sync_for_read(vm, d->addr[f], spans[f].len)))
            return r;
        mirrored |= spans[f].region->mirror != NULL;
    }
    if (mirrored) { /* earlier GPU writes reach host memory, then the host's bytes go in */
        pvk_gpu_idle(vm->gpu);
        for (uint32_t f = 0; f < d->faces; f++)
            pvk_guest_upload(vm, &spans[f]);
    }
    bool direct = direct_ok(vm, d);
    if ((r = make_image_tiled(vm, d, out, direct ? VK_IMAGE_TILING_LINEAR : VK_IMAGE_TILING_OPTIMAL)))
        return r;
    VkSubresourceLayout layouts[6 * MAX_LEVELS];
    VkBuffer alias = VK_NULL_HANDLE;
    VkDeviceSize lin = 0;
    direct = direct && alias_image(vm, out, layouts, &alias, &lin);
    pvk_op op;
    if ((r = pvk_op_begin(vm->gpu, &op))) {
        if (alias)
            vm->gpu->vk.vkDestroyBuffer(vm->gpu->device, alias, NULL);
        destroy_image(vm, out);
        return r;
    }
    /* the alias, or staging: every face's levels, linear, one after another; freed when the op retires */
    if (direct)
        op.p.scratch = alias;
    else if ((r = pvk_create_buffer(vm->gpu, lin = linear_bytes(d),
                                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                    VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &op.p.scratch, &op.p.scratch_mem))) {
        pvk_op_abort(vm->gpu, &op);
        destroy_image(vm, out);
        return r;
    }
    pvk_op_label(vm->gpu, &op, "texture decode: %s 0x%08X %ux%u, %u levels%s", formats[d->format].name, d->addr[0],
                 d->width, d->height, d->levels, d->faces == 6 ? ", cube" : "");
    record_decode(vm, &op, d, src, sub, (pvk_buffer_range){op.p.scratch, 0, lin}, out, direct ? layouts : NULL);
    if ((r = pvk_op_submit(vm->gpu, &op))) { /* the submit freed the scratch buffer */
        destroy_image(vm, out);
        return r;
    }
    vm->gpu->stats.texture_decodes++;
    return PVK_SUCCESS;
}

pvk_result pvk_texture_read(pvk_vram *vm, const pvk_texture *t, uint32_t face, uint32_t level, void *dst, size_t size)
{
    if (!vm || !t || !t->image || !dst || face >= t->desc.faces || level >= t->desc.levels)
        return PVK_ERROR_INVALID_ARGUMENT;
    uint32_t n = t->scale ? t->scale : 1, w = (t->desc.width >> level) * n, h = (t->desc.height >> level) * n;
    VkDeviceSize bytes = (VkDeviceSize)w * h * (t->replaced || t->filtered ? 4 : formats[t->desc.format].out_bytes);
    if (size != bytes)
        return PVK_ERROR_INVALID_ARGUMENT;
    VkBuffer buf;
    VkDeviceMemory mem;
    pvk_result r =
        pvk_create_buffer(vm->gpu, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, &buf, &mem);
    if (r)
        return r;
    pvk_op op;
    if ((r = pvk_op_begin(vm->gpu, &op)))
        goto done;
    pvk_op_label(vm->gpu, &op, "texture read-back: face %u level %u", face, level);
    image_barrier(vm, op.cmd, t, level, 1, face, 1, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                  VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    VkBufferImageCopy bic = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level, face, 1}, .imageExtent = {w, h, 1}};
    vm->gpu->vk.vkCmdCopyImageToBuffer(op.cmd, t->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buf, 1, &bic);
    image_barrier(vm, op.cmd, t, level, 1, face, 1, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                  VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    if ((r = pvk_op_submit(vm->gpu, &op)) || (r = pvk_retire_until(vm->gpu, pvk_gpu_submitted(vm->gpu))))
        goto done;
    void *p;
    if ((r = pvk_vk_check(vm->gpu, vm->gpu->vk.vkMapMemory(vm->gpu->device, mem, 0, VK_WHOLE_SIZE, 0, &p),
                          "vkMapMemory")))
        goto done;
    memcpy(dst, p, bytes);
    vm->gpu->vk.vkUnmapMemory(vm->gpu->device, mem);
done:
    if (r && pvk_gpu_busy(vm->gpu))
        pvk_gpu_idle(vm->gpu); /* the copy may still be running */
    vm->gpu->vk.vkDestroyBuffer(vm->gpu->device, buf, NULL);
    vm->gpu->vk.vkFreeMemory(vm->gpu->device, mem, NULL);
    return r;
}

void pvk_texture_destroy(pvk_vram *vm, pvk_texture *t)
{
    if (!vm || !t || !t->image)
        return;
    /* a decode or a read-back in flight may still use the image */
    if (pvk_gpu_busy(vm->gpu))
        pvk_gpu_idle(vm->gpu);
    destroy_image(vm, t);
}

/* ---- the texture cache ----
 * Entries are keyed by the whole pvk_texture_desc (addresses, size, format,
 * levels, faces; zeroed past the last face).  Writers of guest memory never
 * call in here directly: they tell the surface cache (pvk_surface_invalidate,
 * pvk_surface_fill, a draw's pvk_surface_get), which tells this cache, so a
 * texture goes stale exactly when a surface over the same bytes would.
 *
 * The guest's clear-texture-cache bit says memory may have changed behind
 * the GPU's back.  citro3d sets it with every texture bind, so dropping every
 * texture would decode each one again per bind; instead a texture decoded
 * from memory keeps an XXH3 of the guest bytes it was decoded from, and
 * after a clear it is used again only if the bytes still hash the same (a
 * CPU read of the texture, no GPU work).  Textures built from a surface stay:
 * the surface, not memory, holds their bytes, and draws into it are seen. */

typedef struct tex_entry {
    pvk_texture tex;       /* tex.image != 0: the slot is used */
    bool valid;            /* nothing wrote its bytes since it was made */
    bool recheck;          /* a cache clear came since: compare `hash` before use */
    bool from_surface;
    bool pack_pending;     /* a texture pack's replacement is being decoded (vram/pack.c) */
    uint64_t hash;         /* of the guest bytes at decode (each face seeded with the one before) */
    uint64_t level_hash[PVK_PACK_LEVELS]; /* pack_pending: what the pack looks the levels up by */
    uint32_t lo, hi;       /* guest bytes it spans (all faces): [lo, hi) */
    uint64_t last_use;     /* cache tick */
    uint64_t gpu_value;    /* timeline value of the last work that may read the image */
} tex_entry;

struct pvk_textures {
    tex_entry e[PVK_TEXTURE_CACHE];
    uint64_t tick;
    mem_pool pool;
    uint64_t validated; /* entries made valid so far */
    /* the range pvk_texture_invalidate went through last, when `validated`
     * was `quiet_validated`: the same range again finds nothing to do (a
     * draw asks for its target every time) */
    uint32_t quiet_addr, quiet_len;
    uint64_t quiet_validated;
};

static mem_pool *pool_of(pvk_vram *vm)
{
    return vm->textures ? &vm->textures->pool : NULL;
}

pvk_result pvk_textures_init(pvk_vram *vm)
{
    vm->textures = calloc(1, sizeof *vm->textures);
    return vm->textures ? PVK_SUCCESS : PVK_ERROR_OUT_OF_MEMORY;
}

void pvk_textures_destroy(pvk_vram *vm)
{
    struct pvk_textures *c = vm->textures;
    if (!c)
        return;
    bool any = false;
    for (int i = 0; i < PVK_TEXTURE_CACHE; i++)
        any |= c->e[i].tex.image != VK_NULL_HANDLE;
    if (any && pvk_gpu_busy(vm->gpu))
        pvk_gpu_idle(vm->gpu);
    for (int i = 0; i < PVK_TEXTURE_CACHE; i++)
        if (c->e[i].tex.image)
            destroy_image(vm, &c->e[i].tex);
    for (uint32_t i = 0; i < c->pool.n; i++)
        vm->gpu->vk.vkFreeMemory(vm->gpu->device, c->pool.e[i].mem, NULL);
    free(c);
    vm->textures = NULL;
}

void pvk_texture_invalidate(pvk_vram *vm, uint32_t paddr, uint32_t len)
{
    struct pvk_textures *c = vm->textures;
    if (!c || !len || (c->quiet_len == len && c->quiet_addr == paddr && c->quiet_validated == c->validated))
        return;
    for (int i = 0; i < PVK_TEXTURE_CACHE; i++) {
        tex_entry *e = &c->e[i];
        if (e->valid && paddr < e->hi && e->lo < (uint64_t)paddr + len) {
            e->valid = false; /* the image goes when the slot is reused: the GPU may still read it */
            vm->gpu->stats.texture_invalidations++;
        }
    }
    c->quiet_addr = paddr, c->quiet_len = len, c->quiet_validated = c->validated;
}

void pvk_texture_cache_clear(pvk_vram *vm)
{
    struct pvk_textures *c = vm->textures;
    for (int i = 0; c && i < PVK_TEXTURE_CACHE; i++)
        if (c->e[i].valid && !c->e[i].from_surface)
            c->e[i].recheck = true;
}

/* XXH3 of the texture's guest bytes as the host sees them now.  Bytes a GPU
 * pass in flight is still writing may be old here: the worst that does is
 * one decode too many at the next check. */
static uint64_t guest_hash(pvk_vram *vm, const pvk_texture_desc *d, uint32_t face_len)
{
    uint64_t h = 0;
    for (uint32_t f = 0; f < d->faces; f++) { /* each face seeded with the hash so far */
        const void *p = pvk_guest_host(vm, d->addr[f], face_len, NULL);
        if (p)
            h = XXH3_64bits_withSeed(p, face_len, h);
    }
    return h;
}

uint32_t pvk_texture_cached(const pvk_vram *vm)
{
    uint32_t n = 0;
    for (int i = 0; vm->textures && i < PVK_TEXTURE_CACHE; i++)
        n += vm->textures->e[i].valid;
    return n;
}

/* Texture dumps (vram/dump.c): each level of each face whose guest bytes
 * hash as none before, copied into a host-visible buffer after its decode;
 * the PNG is written when that copy retires.  Power-of-two sizes only (as
 * Azahar dumps: the others are mostly framebuffers). */
static void dump_levels(pvk_vram *vm, const pvk_texture *t)
{
    const pvk_texture_desc *d = &t->desc;
    if ((d->width & (d->width - 1)) || (d->height & (d->height - 1)))
        return;
    for (uint32_t f = 0; f < d->faces && f < 6; f++)
        for (uint32_t l = 0; l < d->levels; l++) {
            uint32_t off = pvk_texture_face_bytes(d->format, d->width, d->height, l);
            uint32_t len = pvk_texture_face_bytes(d->format, d->width, d->height, l + 1) - off;
            const void *g = pvk_guest_host(vm, d->addr[f] + off, len, NULL);
            if (!g)
                continue;
            pvk_dump_level lv = {d->width >> l, d->height >> l, d->format, l, pvk_cityhash64(g, len)};
            int slot = pvk_dump_claim(vm, &lv);
            if (slot < 0)
                continue;
            VkDeviceSize bytes = (VkDeviceSize)lv.w * lv.h * formats[d->format].out_bytes;
            pvk_op op;
            if (pvk_op_begin(vm->gpu, &op)) {
                pvk_dump_release(vm, slot);
                return;
            }
            if (pvk_create_buffer(vm->gpu, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                  &op.p.scratch, &op.p.scratch_mem)) {
                pvk_op_abort(vm->gpu, &op);
                pvk_dump_release(vm, slot);
                return;
            }
            pvk_op_label(vm->gpu, &op, "texture dump: %016llx", (unsigned long long)lv.hash);
            image_barrier(vm, op.cmd, t, l, 1, f, 1, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                          VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
            VkBufferImageCopy bic = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, l, f, 1},
                                     .imageExtent = {lv.w, lv.h, 1}};
            vm->gpu->vk.vkCmdCopyImageToBuffer(op.cmd, t->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, op.p.scratch, 1,
                                               &bic);
            image_barrier(vm, op.cmd, t, l, 1, f, 1, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                          VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
            op.p.retire = pvk_dump_retire;
            op.p.owner = vm;
            op.p.arg = (uint32_t)slot;
            if (pvk_op_submit(vm->gpu, &op))
                pvk_dump_release(vm, slot);
        }
}

/* Bytes of a texture's image: its levels (a third more than the first) and faces, at its scale. */
static uint64_t tex_bytes(const pvk_texture_desc *d, uint32_t scale, bool replaced)
{
    uint32_t texel = 4;
    if (!replaced)
        pvk_texture_vk_format(d->format, NULL, &texel);
    uint64_t s = scale > 1 ? scale : 1, b = (uint64_t)d->width * d->height * texel * s * s * (d->faces ? d->faces : 1);
    return d->levels > 1 ? b * 4 / 3 : b;
}

void pvk_textures_held(const pvk_vram *vm, uint64_t *count, uint64_t *bytes)
{
    *count = 0;
    *bytes = vm->textures ? vm->textures->pool.bytes : 0; /* memory kept for the next images */
    for (int i = 0; vm->textures && i < PVK_TEXTURE_CACHE; i++)
        if (vm->textures->e[i].tex.image)
            ++*count, *bytes += tex_bytes(&vm->textures->e[i].tex.desc, vm->textures->e[i].tex.scale,
                                   vm->textures->e[i].tex.replaced || vm->textures->e[i].tex.filtered);
}

/* Its image is freed once the GPU is past the last work that may read it
 * (to the pool at once when it is; else the GPU layer's deferred destroy:
 * no wait here). */
static pvk_result retire_image(pvk_vram *vm, pvk_texture *t, uint64_t value);
static pvk_result evict(pvk_vram *vm, tex_entry *e)
{
    pvk_result r = retire_image(vm, &e->tex, e->gpu_value);
    if (!r)
        memset(e, 0, sizeof *e);
    return r;
}

/* A slot for a new texture of `need` bytes: past the memory budget's share
 * the least recently used go (not the last three taken: the draw's other
 * units may hold them); then a free slot, else the least recently used
 * stale one, else the least recently used. */
static pvk_result take_slot(pvk_vram *vm, uint64_t need, tex_entry **out)
{
    struct pvk_textures *c = vm->textures;
    for (;;) {
        tex_entry *best = NULL, *empty = NULL, *oldest = NULL;
        uint64_t held = 0;
        for (int i = 0; i < PVK_TEXTURE_CACHE; i++) {
            tex_entry *e = &c->e[i];
            if (!e->tex.image) {
                empty = empty ? empty : e;
                continue;
            }
            held += tex_bytes(&e->tex.desc, e->tex.scale, e->tex.replaced || e->tex.filtered);
            if (!best || (!e->valid && best->valid) || (e->valid == best->valid && e->last_use < best->last_use))
                best = e;
            if (e->last_use + 3 <= c->tick && (!oldest || e->last_use < oldest->last_use))
                oldest = e;
        }
        bool over = oldest && held + need > vm->gpu->budget.textures;
        if (!over && empty) {
            memset(empty, 0, sizeof *empty);
            *out = empty;
            return PVK_SUCCESS;
        }
        pvk_result r = evict(vm, over ? oldest : best);
        if (r)
            return r;
        vm->gpu->stats.budget_evictions += over;
    }
}

/* ---- texture packs (vram/pack.c finds and decodes the replacements) ---- */

/* What a pack knows a texture's levels by: the CityHash64 of each level's
 * guest bytes (Azahar's new hash), or of the level decoded as Citra decodes
 * it (the old hash). */
static bool level_hashes(pvk_vram *vm, const pvk_texture_desc *d, uint64_t *h)
{
    bool old = pvk_pack_old_hash(vm);
    for (uint32_t l = 0; l < d->levels && l < PVK_PACK_LEVELS; l++) {
        uint32_t off = pvk_texture_face_bytes(d->format, d->width, d->height, l);
        uint32_t len = pvk_texture_face_bytes(d->format, d->width, d->height, l + 1) - off;
        const void *g = pvk_guest_host(vm, d->addr[0] + off, len, NULL);
        if (!g)
            return false;
        h[l] = old ? pvk_old_hash(g, d->format, d->width >> l, d->height >> l) : pvk_cityhash64(g, len);
    }
    return true;
}

/* The image `t` leaves once the GPU is past `value` (now when it is). */
static pvk_result retire_image(pvk_vram *vm, pvk_texture *t, uint64_t value)
{
    uint64_t done = 0;
    if (pvk_gpu_completed(vm->gpu, &done) && done >= value)
        destroy_image(vm, t);
    else if (pvk_gpu_defer_destroy(vm->gpu, value, VK_OBJECT_TYPE_IMAGE, (uint64_t)t->image, t->view, t->mem))
        memset(t, 0, sizeof *t);
    else
        return PVK_ERROR_OUT_OF_MEMORY; /* logged */
    return PVK_SUCCESS;
}

/* `rep` into a new image (RGBA8, rep->scale times the texture's size, every
 * level copied from a host-visible buffer), `e`'s texture from now on. */
static void replace(pvk_vram *vm, tex_entry *e, const pvk_replacement *rep)
{
    pvk_texture nt = {.desc = e->tex.desc, .vk_format = VK_FORMAT_R8G8B8A8_UNORM, .scale = rep->scale, .replaced = true};
    uint32_t levels = nt.desc.levels;
    VkBufferImageCopy bic[PVK_PACK_LEVELS];
    VkDeviceSize bytes = 0;
    for (uint32_t l = 0; l < levels; l++) {
        uint32_t w = rep->width >> l, h = rep->height >> l;
        bic[l] = (VkBufferImageCopy){.bufferOffset = bytes,
                                     .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, l, 0, 1},
                                     .imageExtent = {w, h, 1}};
        bytes += (VkDeviceSize)w * h * 4;
    }
    pvk_op op;
    void *p = NULL;
    if (create_image(vm, &nt, VK_IMAGE_TILING_OPTIMAL)) {
        destroy_image(vm, &nt);
        return;
    }
    if (pvk_op_begin(vm->gpu, &op)) {
        destroy_image(vm, &nt);
        return;
    }
    if (pvk_create_buffer(vm->gpu, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, &op.p.scratch,
                          &op.p.scratch_mem) ||
        vm->gpu->vk.vkMapMemory(vm->gpu->device, op.p.scratch_mem, 0, VK_WHOLE_SIZE, 0, &p) != VK_SUCCESS) {
        pvk_op_abort(vm->gpu, &op);
        destroy_image(vm, &nt);
        return;
    }
    memcpy(p, rep->rgba, bytes);
    vm->gpu->vk.vkUnmapMemory(vm->gpu->device, op.p.scratch_mem);
    pvk_op_label(vm->gpu, &op, "texture 0x%08X %ux%u: a pack's replacement at x%u", nt.desc.addr[0], nt.desc.width,
                 nt.desc.height, rep->scale);
    image_barrier(vm, op.cmd, &nt, 0, levels, 0, 1, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    vm->gpu->vk.vkCmdCopyBufferToImage(op.cmd, op.p.scratch, nt.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, levels,
                                       bic);
    image_barrier(vm, op.cmd, &nt, 0, levels, 0, 1, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                  VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    if (pvk_op_submit(vm->gpu, &op) || retire_image(vm, &e->tex, e->gpu_value)) {
        destroy_image(vm, &nt); /* nothing recorded reads it yet */
        return;
    }
    e->tex = nt;
    e->gpu_value = pvk_gpu_submitted(vm->gpu) + 1;
    pvk_pack_count(vm, true, false);
}

/* The texture filter (vram/filter.c) of `e`, a 2D texture just decoded from
 * guest memory, into a new image at the resolution scale, `e`'s texture from
 * now on: level 0 filtered, each further level blitted down from the one
 * before.  A filter that doubles (pvk_filter_step 2) runs as often as the
 * scale allows (at 4x twice, at 3x once: the image is then 2x), through
 * intermediate images that go once the work retires.  On failure (logged)
 * the 1x texture stays. */
static void filter(pvk_vram *vm, tex_entry *e)
{
    uint32_t step = pvk_filter_step(vm), s = vm->scale, passes = 1;
    if (step)
        for (s = step, passes = 1; s * step <= vm->scale; s *= step)
            passes++;
    pvk_texture nt = {.desc = e->tex.desc, .vk_format = VK_FORMAT_R8G8B8A8_UNORM, .scale = s, .filtered = true};
    pvk_texture mid[4]; /* passes before the last: at step, step^2, ... */
    memset(mid, 0, sizeof mid);
    const pvk_texture_desc *d = &nt.desc;
    VkImageView storage = VK_NULL_HANDLE;
    pvk_op op;
    bool ok = passes <= 5 && !create_image(vm, &nt, VK_IMAGE_TILING_OPTIMAL);
    bool grids = pvk_filter_grids(vm);
    for (uint32_t i = 0; ok && grids && i < 2; i++) { /* Anime4K's 2x grids, float */
        mid[i] = (pvk_texture){.desc = *d, .vk_format = VK_FORMAT_R32G32B32A32_SFLOAT, .scale = 2, .filtered = true};
        mid[i].desc.levels = 1;
        ok = !create_image(vm, &mid[i], VK_IMAGE_TILING_OPTIMAL);
    }
    for (uint32_t i = 0; ok && i + 1 < passes; i++) {
        mid[i] = (pvk_texture){.desc = *d, .vk_format = VK_FORMAT_R8G8B8A8_UNORM, .filtered = true};
        mid[i].desc.levels = 1;
        mid[i].scale = i ? mid[i - 1].scale * step : step;
        ok = !create_image(vm, &mid[i], VK_IMAGE_TILING_OPTIMAL);
    }
    VkImageViewCreateInfo vci = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
                                 .image = nt.image,
                                 .viewType = VK_IMAGE_VIEW_TYPE_2D,
                                 .format = nt.vk_format,
                                 .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
    if (!ok ||
        pvk_vk_check(vm->gpu, vm->gpu->vk.vkCreateImageView(vm->gpu->device, &vci, NULL, &storage),
                     "vkCreateImageView") ||
        pvk_op_begin(vm->gpu, &op)) {
        if (storage)
            vm->gpu->vk.vkDestroyImageView(vm->gpu->device, storage, NULL);
        for (uint32_t i = 0; i < 4; i++)
            destroy_image(vm, &mid[i]);
        destroy_image(vm, &nt);
        return;
    }
    pvk_op_label(vm->gpu, &op, "texture %s 0x%08X %ux%u: filtered to x%u", formats[d->format].name, d->addr[0],
                 d->width, d->height, s);
    VkImageView src = e->tex.view;
    uint32_t sw = d->width, sh = d->height;
    for (uint32_t i = 0; i + 1 < passes; i++) { /* the intermediate images: sampled and stored through one view */
        image_barrier(vm, op.cmd, &mid[i], 0, 1, 0, 1, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL);
        pvk_filter_record(vm, op.cmd, src, mid[i].view, sw, sh, step);
        image_barrier(vm, op.cmd, &mid[i], 0, 1, 0, 1, VK_IMAGE_LAYOUT_GENERAL,
                      VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
        src = mid[i].view, sw *= step, sh *= step;
    }
    image_barrier(vm, op.cmd, &nt, 0, d->levels, 0, 1, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL);
    if (grids) {
        for (uint32_t i = 0; i < 2; i++)
            image_barrier(vm, op.cmd, &mid[i], 0, 1, 0, 1, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL);
        VkImageView g[2] = {mid[0].view, mid[1].view};
        pvk_filter_record_grids(vm, op.cmd, src, g, storage, sw, sh, s);
    } else
        pvk_filter_record(vm, op.cmd, src, storage, sw, sh, step ? step : s);
    for (uint32_t l = 1; l < d->levels; l++) {
        image_barrier(vm, op.cmd, &nt, l - 1, 1, 0, 1, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
        image_barrier(vm, op.cmd, &nt, l, 1, 0, 1, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
        int32_t bw = (int32_t)((d->width * s) >> (l - 1)), bh = (int32_t)((d->height * s) >> (l - 1));
        VkImageBlit blit = {.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, l - 1, 0, 1},
                            .srcOffsets = {{0, 0, 0}, {bw, bh, 1}},
                            .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, l, 0, 1},
                            .dstOffsets = {{0, 0, 0}, {bw / 2, bh / 2, 1}}};
        vm->gpu->vk.vkCmdBlitImage(op.cmd, nt.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, nt.image,
                                   VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &blit, VK_FILTER_LINEAR);
        image_barrier(vm, op.cmd, &nt, l - 1, 1, 0, 1, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                      VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
        image_barrier(vm, op.cmd, &nt, l, 1, 0, 1, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL);
    }
    image_barrier(vm, op.cmd, &nt, d->levels - 1, 1, 0, 1, VK_IMAGE_LAYOUT_GENERAL,
                  VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    if (pvk_op_submit(vm->gpu, &op) || retire_image(vm, &e->tex, e->gpu_value)) {
        vm->gpu->vk.vkDestroyImageView(vm->gpu->device, storage, NULL); /* nothing recorded reads them yet */
        for (uint32_t i = 0; i < 4; i++)
            destroy_image(vm, &mid[i]);
        destroy_image(vm, &nt);
        return;
    }
    uint64_t value = pvk_gpu_submitted(vm->gpu);
    bool kept = pvk_gpu_defer_destroy(vm->gpu, value, VK_OBJECT_TYPE_IMAGE_VIEW, (uint64_t)storage, VK_NULL_HANDLE,
                                      VK_NULL_HANDLE);
    for (uint32_t i = 0; i < 4; i++)
        kept = kept && (!mid[i].image || !retire_image(vm, &mid[i], value));
    if (!kept) { /* out of memory (logged): wait, then what is left goes now */
        pvk_gpu_idle(vm->gpu);
        for (uint32_t i = 0; i < 4; i++)
            destroy_image(vm, &mid[i]);
    }
    e->tex = nt;
    e->gpu_value = value + 1;
    vm->gpu->stats.textures_filtered++;
}

/* A texture decoded from guest memory (`fresh`: just now) and its pack's
 * replacement: asked for, drawn once ready; meanwhile the original is. */
static void pack_check(pvk_vram *vm, tex_entry *e, bool fresh)
{
    if (fresh && !e->from_surface && !e->tex.replaced && !e->tex.filtered)
        e->pack_pending = level_hashes(vm, &e->tex.desc, e->level_hash);
    if (!e->pack_pending)
        return;
    pvk_replacement rep;
    int st = pvk_pack_find(vm, &e->tex.desc, e->level_hash, &rep);
    e->pack_pending = st == PVK_PACK_PENDING;
    if (st == PVK_PACK_READY)
        replace(vm, e, &rep);
    else if (st == PVK_PACK_PENDING)
        pvk_pack_count(vm, false, true);
}

/* Is `s` a surface whose guest bytes, decoded as `d`, make the texture?
 * pvk_surface_source_over already matched address and length. */
static bool surface_fits(const pvk_surface *s, const pvk_texture_desc *d)
{
    const pvk_surface_key *k = pvk_surface_key_of(s);
    bool etc = d->format == PVK_TEX_ETC1 || d->format == PVK_TEX_ETC1A4;
    return d->faces == 1 && d->levels == 1 && !etc && k->width == d->width && k->height == d->height &&
           pvk_surface_bytes_per_pixel(s) * 8 == formats[d->format].bits;
}

/* The texture format that reads a colour surface's bytes as the surface
 * holds them (RGBA8, RGB8, RGB565, RGB5A1, RGBA4), or -1. */
static int same_layout(const pvk_surface_key *k)
{
    static const int tex[5] = {PVK_TEX_RGBA8, PVK_TEX_RGB8, PVK_TEX_RGB565, PVK_TEX_RGBA5551, PVK_TEX_RGBA4};
    return k->kind == PVK_SURFACE_COLOR && k->format < 5 ? tex[k->format] : -1;
}

/* (b) at resolution scale N: a colour surface read as its own format
 * becomes an N x texture image, texel for pixel, nothing resolved. */
static pvk_result from_scaled_surface(pvk_vram *vm, pvk_surface *s, const pvk_texture_desc *d, pvk_texture *out,
                                      uint64_t *value)
{
    const pvk_surface_key *k = pvk_surface_key_of(s);
    out->scale = k->scale;
    pvk_result r;
    if ((r = make_image(vm, d, out)))
        return r;
    pvk_op op;
    pvk_buffer_range px;
    if ((r = pvk_surface_begin_scaled_pixels(vm, s, &op, &px))) {
        destroy_image(vm, out);
        return r;
    }
    pvk_op_label(vm->gpu, &op, "texture %s 0x%08X %ux%u from colour surface format %u at x%u", formats[d->format].name,
                 d->addr[0], d->width, d->height, k->format, k->scale);
    VkBufferImageCopy bic = {.bufferOffset = px.offset,
                             .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                             .imageExtent = {d->width * k->scale, d->height * k->scale, 1}};
    image_barrier(vm, op.cmd, out, 0, 1, 0, 1, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    vm->gpu->vk.vkCmdCopyBufferToImage(op.cmd, px.buffer, out->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &bic);
    image_barrier(vm, op.cmd, out, 0, 1, 0, 1, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                  VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    if ((r = pvk_op_submit(vm->gpu, &op))) {
        destroy_image(vm, out);
        return r;
    }
    *value = pvk_gpu_submitted(vm->gpu);
    vm->gpu->stats.texture_from_surface++;
    return PVK_SUCCESS;
}

/* (b): the surface's image -> the bytes its write-back would store (in a
 * scratch buffer) -> the texture decode shader -> the image.  A scaled
 * colour surface read as its own format stays at its scale. */
static pvk_result from_surface(pvk_vram *vm, pvk_surface *s, const pvk_texture_desc *d, pvk_texture *out,
                               uint64_t *value)
{
    const pvk_surface_key *ks = pvk_surface_key_of(s);
    if (ks->scale > 1 && same_layout(ks) == (int)d->format)
        return from_scaled_surface(vm, s, d, out, value);
    pvk_result r;
    if ((r = make_image(vm, d, out)))
        return r;
    pvk_op op;
    pvk_buffer_range bytes, spare;
    if ((r = pvk_surface_begin_guest_bytes(vm, s, &op, &bytes, &spare))) {
        destroy_image(vm, out);
        return r;
    }
    const pvk_surface_key *k = pvk_surface_key_of(s);
    pvk_op_label(vm->gpu, &op, "texture %s 0x%08X %ux%u from %s surface format %u (x%u)", formats[d->format].name,
                 d->addr[0], d->width, d->height, k->kind == PVK_SURFACE_DEPTH ? "depth" : "colour", k->format,
                 k->scale);
    uint32_t sub[1] = {0};
    record_decode(vm, &op, d, &bytes, sub, spare, out, NULL);
    if ((r = pvk_op_submit(vm->gpu, &op))) {
        destroy_image(vm, out);
        return r;
    }
    *value = pvk_gpu_submitted(vm->gpu);
    vm->gpu->stats.texture_from_surface++;
    return PVK_SUCCESS;
}

pvk_result pvk_texture_get(pvk_vram *vm, const pvk_texture_desc *desc, const pvk_texture **out)
{
    if (!vm || !desc || !out)
        return PVK_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (pvk_gpu_error(vm->gpu))
        return pvk_gpu_error(vm->gpu);
    struct pvk_textures *c = vm->textures;
    pvk_texture_desc d = *desc; /* the key: nothing past the last face */
    for (uint32_t f = d.faces < 6 ? d.faces : 6; f < 6; f++)
        d.addr[f] = 0;
    bool roundtrip = vm->gpu->debug & PVK_DEBUG_ROUNDTRIP;
    for (int i = 0; i < PVK_TEXTURE_CACHE && !roundtrip; i++) {
        tex_entry *e = &c->e[i];
        if (e->valid && !memcmp(&e->tex.desc, &d, sizeof d)) { /* (a) */
            if (e->recheck) {
                uint32_t face_len = pvk_texture_face_bytes(d.format, d.width, d.height, d.levels);
                if (guest_hash(vm, &d, face_len) != e->hash) {
                    e->valid = false;
                    vm->gpu->stats.texture_invalidations++;
                    break;
                }
                e->recheck = false;
            }
            e->last_use = ++c->tick;
            e->gpu_value = pvk_gpu_submitted(vm->gpu) + 1; /* the open (or next) batch may read it */
            vm->gpu->stats.texture_hits++;
            if (e->pack_pending)
                pack_check(vm, e, false);
            *out = &e->tex;
            return PVK_SUCCESS;
        }
    }
    pvk_guest_span spans[6];
    pvk_result r = check(vm, &d, spans);
    if (r)
        return r;
    tex_entry *e;
    if ((r = take_slot(vm, tex_bytes(&d, 1, false), &e)))
        return r;
    uint32_t face_len = spans[0].len;
    pvk_surface *s = roundtrip ? NULL : pvk_surface_source_over(vm, d.addr[0], face_len);
    uint64_t value = 0;
    if (s && surface_fits(s, &d)) {
        r = from_surface(vm, s, &d, &e->tex, &value); /* (b) */
        e->from_surface = true;
    } else {
        r = pvk_texture_decode(vm, &d, &e->tex); /* (c) */
        if (!r && vm->dump)
            dump_levels(vm, &e->tex);
        value = pvk_gpu_submitted(vm->gpu);
        if (!r)
            e->hash = guest_hash(vm, &d, face_len);
    }
    if (r) {
        memset(e, 0, sizeof *e);
        return r;
    }
    e->valid = true;
    vm->textures->validated++;
    e->lo = UINT32_MAX;
    for (uint32_t f = 0; f < d.faces; f++) {
        e->lo = d.addr[f] < e->lo ? d.addr[f] : e->lo;
        e->hi = d.addr[f] + face_len > e->hi ? d.addr[f] + face_len : e->hi;
    }
    e->last_use = ++c->tick;
    e->gpu_value = value + 1; /* conservatively the batch after the build, too */
    if (vm->pack)
        pack_check(vm, e, true);
    if (vm->filter && vm->scale > 1 && !e->from_surface && !e->tex.replaced && d.faces == 1)
        filter(vm, e); /* a replacement that comes later takes its place */
    *out = &e->tex;
    return PVK_SUCCESS;
}

bool pvk_texture_desc_from_unit(const pvk_tex_desc *u, pvk_texture_desc *out)
{
    memset(out, 0, sizeof *out);
    if (!u->enabled || u->type == PVK_TEXTYPE_PROCEDURAL || u->type == PVK_TEXTYPE_DISABLED)
        return false;
    out->width = u->width;
    out->height = u->height;
    out->format = u->format;
    out->levels = u->levels;
    out->faces = u->faces;
    for (uint32_t f = 0; f < u->faces && f < 6; f++)
        out->addr[f] = u->addr[f];
    return true;
}
