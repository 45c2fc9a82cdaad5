/* Texture filters at resolution scale N (pvk_config.texture_filter,
 * PVK_TEXTURE_FILTER): a texture decoded from guest memory is upscaled N
 * times by a compute pass (shaders/texture_filter.comp) into an RGBA8 image
 * that draws sample instead of the 1x one; render targets read as textures,
 * pack replacements and cube maps are not filtered.  Level 0 is filtered,
 * each further level is the level before it halved (a linear blit).  The
 * filters Azahar offers with its resolution scale, by name:
 *
 *   bicubic     bicubic convolution (Keys, a = -0.5), 4x4 texels, to N x in one pass
 *   mmpx        MMPX (McGuire and Gagiu 2021), 2x, applied as often as N
 *               allows (4x: twice; 3x: once, the image then 2x)
 *   anime4k     Anime4K as Citra and Azahar run it: a luma gradient on a 2x
 *               grid, then N x in one pass, each pixel pushed toward its
 *               flatter neighbours where the gradient is strong
 *   scaleforce  ScaleForce as Citra and Azahar run it: N x in one pass, each
 *               pixel read with a cubic B-spline from a point moved away
 *               from its dissimilar neighbours
 *   xbrz        xBRZ "freescale" as Citra and Azahar run it: N x in one pass,
 *               each pixel its texel's colour blended toward a neighbour where
 *               an edge crosses one of the texel's corners, by its distance
 *               from the edge's line
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "shaders/shaders.h"
#include "vram/vram.h"

struct pvk_filter {
    int kind; /* the shader's FILTER */
    VkDescriptorSetLayout dsl;
    VkPipelineLayout layout;
    VkPipeline pipeline[3]; /* Anime4K: its three passes; the others: [0] */
    VkSampler sampler;
};

enum { FILTER_BICUBIC = 0, FILTER_MMPX = 1, FILTER_ANIME4K = 2, FILTER_SCALEFORCE = 3, FILTER_XBRZ = 4 }; /* the shader's FILTER; Anime4K has its own */

typedef struct filter_push {
    int32_t w, h, scale;
} filter_push;

static const struct {
    const char *name;
    int kind;
} names[] = {{"bicubic", FILTER_BICUBIC}, {"mmpx", FILTER_MMPX}, {"anime4k", FILTER_ANIME4K},
             {"scaleforce", FILTER_SCALEFORCE}, {"xbrz", FILTER_XBRZ}};

pvk_result pvk_filter_init(pvk_vram *vm, const char *name)
{
    if (!name || !*name || !strcasecmp(name, "none"))
        return PVK_SUCCESS;
    int kind = -1;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcasecmp(name, names[i].name))
            kind = names[i].kind;
    if (kind < 0) {
        pvk_log(vm->gpu, PVK_LOG_ERROR, "texture filter \"%s\": none of none, bicubic, mmpx, anime4k, scaleforce, xbrz",
                name);
        return PVK_ERROR_INVALID_ARGUMENT;
    }
    struct pvk_filter *f = calloc(1, sizeof *f);
    if (!f)
        return PVK_ERROR_OUT_OF_MEMORY;
    vm->filter = f;
    f->kind = kind;
    pvk_gpu *gpu = vm->gpu;
    bool a4k = kind == FILTER_ANIME4K;
    VkDescriptorSetLayoutBinding b[4] = {
        {0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
        {1, a4k ? VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER : VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1,
         VK_SHADER_STAGE_COMPUTE_BIT, NULL},
        {2, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
        {3, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
    };
    VkDescriptorSetLayoutCreateInfo dsl = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                           .flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR,
                                           .bindingCount = a4k ? 4 : 2,
                                           .pBindings = b};
    VkPushConstantRange pcr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(filter_push)};
    VkPipelineLayoutCreateInfo plci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                       .setLayoutCount = 1,
                                       .pSetLayouts = &f->dsl,
                                       .pushConstantRangeCount = 1,
                                       .pPushConstantRanges = &pcr};
    VkSamplerCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
                               .magFilter = VK_FILTER_NEAREST,
                               .minFilter = VK_FILTER_NEAREST,
                               .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
                               .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
                               .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE};
    int32_t spec_value[3] = {kind, 0, 0};
    if (a4k)
        spec_value[0] = 0, spec_value[1] = 1, spec_value[2] = 2; /* its passes */
    VkSpecializationMapEntry me = {0, 0, sizeof(int32_t)};
    pvk_spirv code = a4k ? pvk_builtin_texture_anime4k_spirv() : pvk_builtin_texture_filter_spirv();
    pvk_result r;
    if ((r = pvk_vk_check(gpu, gpu->vk.vkCreateDescriptorSetLayout(gpu->device, &dsl, NULL, &f->dsl),
                          "vkCreateDescriptorSetLayout")) ||
        (r = pvk_vk_check(gpu, gpu->vk.vkCreatePipelineLayout(gpu->device, &plci, NULL, &f->layout),
                          "vkCreatePipelineLayout")) ||
        (r = pvk_vk_check(gpu, gpu->vk.vkCreateSampler(gpu->device, &sci, NULL, &f->sampler), "vkCreateSampler"))) {
        pvk_filter_destroy(vm);
        return r;
    }
    for (int i = 0; i < (a4k ? 3 : 1); i++) {
        VkSpecializationInfo spec = {1, &me, sizeof(int32_t), &spec_value[i]};
        if ((r = pvk_compute_pipeline_create(gpu, code.code, code.size, f->layout, &spec, &f->pipeline[i]))) {
            pvk_filter_destroy(vm);
            return r;
        }
    }
    pvk_log(gpu, PVK_LOG_INFO, "texture filter: %s (textures decoded at resolution scale N > 1)", name);
    return PVK_SUCCESS;
}

void pvk_filter_destroy(pvk_vram *vm)
{
    struct pvk_filter *f = vm->filter;
    if (!f)
        return;
    pvk_gpu *gpu = vm->gpu;
    for (int i = 0; i < 3; i++)
        if (f->pipeline[i])
            gpu->vk.vkDestroyPipeline(gpu->device, f->pipeline[i], NULL);
    if (f->sampler)
        gpu->vk.vkDestroySampler(gpu->device, f->sampler, NULL);
    if (f->layout)
        gpu->vk.vkDestroyPipelineLayout(gpu->device, f->layout, NULL);
    if (f->dsl)
        gpu->vk.vkDestroyDescriptorSetLayout(gpu->device, f->dsl, NULL);
    free(f);
    vm->filter = NULL;
}

uint32_t pvk_filter_step(const pvk_vram *vm)
{
    return vm->filter && vm->filter->kind == FILTER_MMPX ? 2 : 0;
}

void pvk_filter_record(pvk_vram *vm, VkCommandBuffer cmd, VkImageView src, VkImageView dst, uint32_t w, uint32_t h,
                       uint32_t scale)
{
    struct pvk_filter *f = vm->filter;
    pvk_gpu *gpu = vm->gpu;
    VkDescriptorImageInfo in = {f->sampler, src, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL},
                          out = {VK_NULL_HANDLE, dst, VK_IMAGE_LAYOUT_GENERAL};
    VkWriteDescriptorSet wr[2] = {
        {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstBinding = 0, .descriptorCount = 1,
         .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, .pImageInfo = &in},
        {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstBinding = 1, .descriptorCount = 1,
         .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, .pImageInfo = &out},
    };
    filter_push push = {(int32_t)w, (int32_t)h, (int32_t)scale};
    gpu->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, f->pipeline[0]);
    gpu->vk.vkCmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, f->layout, 0, 2, wr);
    gpu->vk.vkCmdPushConstants(cmd, f->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
    uint32_t n = f->kind == FILTER_MMPX || f->kind == FILTER_XBRZ ? 1 : scale; /* an invocation per source texel */
    gpu->vk.vkCmdDispatch(cmd, (w * n + 7) / 8, (h * n + 7) / 8, 1);
}

bool pvk_filter_grids(const pvk_vram *vm)
{
    return vm->filter && vm->filter->kind == FILTER_ANIME4K;
}

/* Work of one pass done before the next reads it (the images stay in GENERAL). */
static void pass_barrier(pvk_gpu *gpu, VkCommandBuffer cmd)
{
    VkMemoryBarrier2 mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
                           .srcStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                           .srcAccessMask = VK_ACCESS_2_SHADER_WRITE_BIT,
                           .dstStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                           .dstAccessMask = VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_SHADER_WRITE_BIT};
    VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .memoryBarrierCount = 1, .pMemoryBarriers = &mb};
    gpu->vk.vkCmdPipelineBarrier2(cmd, &di);
}

void pvk_filter_record_grids(pvk_vram *vm, VkCommandBuffer cmd, VkImageView src, const VkImageView grid[2],
                             VkImageView dst, uint32_t w, uint32_t h, uint32_t scale)
{
    struct pvk_filter *f = vm->filter;
    pvk_gpu *gpu = vm->gpu;
    filter_push push = {(int32_t)w, (int32_t)h, (int32_t)scale};
    for (int pass = 0; pass < 3; pass++) {
        /* pass 0 writes grid 0; pass 1 reads it and writes grid 1; pass 2 reads grid 1 */
        VkImageView in = grid[pass == 0 ? 1 : pass == 1 ? 0 : 1], out = grid[pass == 1 ? 1 : 0];
        VkDescriptorImageInfo ii[4] = {{f->sampler, src, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL},
                                       {f->sampler, in, VK_IMAGE_LAYOUT_GENERAL},
                                       {VK_NULL_HANDLE, out, VK_IMAGE_LAYOUT_GENERAL},
                                       {VK_NULL_HANDLE, dst, VK_IMAGE_LAYOUT_GENERAL}};
        VkWriteDescriptorSet wr[4];
        for (uint32_t i = 0; i < 4; i++)
            wr[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstBinding = i,
                                           .descriptorCount = 1,
                                           .descriptorType = i < 2 ? VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER
                                                                   : VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
                                           .pImageInfo = &ii[i]};
        if (pass)
            pass_barrier(gpu, cmd);
        gpu->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, f->pipeline[pass]);
        gpu->vk.vkCmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, f->layout, 0, 4, wr);
        gpu->vk.vkCmdPushConstants(cmd, f->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
        uint32_t n = pass < 2 ? 2 : scale;
        gpu->vk.vkCmdDispatch(cmd, (w * n + 7) / 8, (h * n + 7) / 8, 1);
    }
}
