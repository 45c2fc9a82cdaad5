/* The sampler cache (runtime/sampler.c), under the validation layer: the
 * VkSamplerCreateInfo built for PICA states against the values the documents
 * give (seed 001, libctru's GPU_TEXTURE_* enums); identical states share a
 * VkSampler and each field makes another; the cache stays bounded; without
 * custom border colours (PVK_DEBUG=no-custom-border) the nearest built-in one
 * stands in, logged once, counted and reported to the caller. */
#include "harness.h"
#include "runtime/runtime.h"
#include "shaders/shaders.h"

static int border_warnings;
static void log_fn(void *user, pvk_log_level level, const char *msg)
{
    if (strstr(msg, "border colour"))
        border_warnings++;
    th_log(user, level, msg);
}

static pvk_stats stats(pvk_context *ctx)
{
    pvk_stats s;
    pvk_get_stats(ctx, &s);
    return s;
}

static pvk_tex_desc base_desc(void)
{
    pvk_tex_desc d;
    memset(&d, 0, sizeof d);
    d.enabled = true;
    d.width = d.height = 64;
    d.faces = 1;
    d.levels = 4;
    d.max_level = 3;
    d.border = 0x80402010;
    return d;
}


/* ---- sampling on the GPU: a compute shader reads texels through a sampler ---- */

#define PROBES 8
static const char probe_glsl[] =
    "#version 450\n"
    "layout(local_size_x = 1) in;\n"
    "layout(set = 0, binding = 0) uniform sampler2D tex;\n"
    "layout(set = 0, binding = 1) buffer Out { vec4 texel[]; };\n"
    "layout(push_constant) uniform P { vec2 uv[8]; };\n"
    "void main() { for (int i = 0; i < 8; i++) texel[i] = textureLod(tex, uv[i], 0.0); }\n";

/* An 8x8 RGBA8 texture, texel (x, y) = (32x, 32y, 0x80, 0xFF), row 0 first
 * in memory; tiled as FACTS.md says, decoded by pvk_texture_decode. */
static void probe_texture(pvk_context *ctx, pvk_texture *t)
{
    const uint32_t addr = 0x18000000;
    uint8_t *m = pvk_guest_ptr(ctx, addr, 256);
    for (uint32_t y = 0; y < 8; y++)
        for (uint32_t x = 0; x < 8; x++) {
            uint32_t i = (x & 1) | (y & 1) << 1 | (x & 2) << 1 | (y & 2) << 2 | (x & 4) << 2 | (y & 4) << 3;
            uint8_t *p = m + 4 * i; /* bytes A, B, G, R */
            p[0] = 0xFF, p[1] = 0x80, p[2] = (uint8_t)(32 * y), p[3] = (uint8_t)(32 * x);
        }
    pvk_guest_written(ctx, addr, 256);
    pvk_texture_desc d = {.addr = {addr}, .width = 8, .height = 8, .format = 0, .levels = 1, .faces = 1};
    CHECK_EQ(pvk_texture_decode(&ctx->vram, &d, t), PVK_SUCCESS);
}

/* Sample `t` through `sampler` at PROBES coordinates; RGBA bytes out. */
static void probe(pvk_context *ctx, const pvk_texture *t, VkSampler sampler, const float uv[PROBES][2],
                  uint8_t out[PROBES][4])
{
    const struct VolkDeviceTable *vk = &ctx->gpu.vk;
    uint32_t *spv = NULL;
    size_t n_words = 0;
    char *log = NULL;
    CHECK_EQ(pvk_glsl_compile(PVK_STAGE_COMPUTE, probe_glsl, &spv, &n_words, &log), PVK_SUCCESS);
    free(log);
    VkDescriptorSetLayoutBinding bind[2] = {
        {0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
        {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
    };
    VkDescriptorSetLayoutCreateInfo dl = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                          .bindingCount = 2, .pBindings = bind};
    VkDescriptorSetLayout set_layout;
    CHECK_EQ(vk->vkCreateDescriptorSetLayout(ctx->gpu.device, &dl, NULL, &set_layout), VK_SUCCESS);
    VkPushConstantRange pr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, PROBES * 8};
    VkPipelineLayoutCreateInfo pl = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
                                     .pSetLayouts = &set_layout, .pushConstantRangeCount = 1,
                                     .pPushConstantRanges = &pr};
    VkPipelineLayout layout;
    CHECK_EQ(vk->vkCreatePipelineLayout(ctx->gpu.device, &pl, NULL, &layout), VK_SUCCESS);
    VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                   .codeSize = n_words * 4, .pCode = spv};
    VkShaderModule mod;
    CHECK_EQ(vk->vkCreateShaderModule(ctx->gpu.device, &mi, NULL, &mod), VK_SUCCESS);
    free(spv);
    VkComputePipelineCreateInfo cpi = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = mod, .pName = "main"},
        .layout = layout,
    };
    VkPipeline pipe;
    CHECK_EQ(vk->vkCreateComputePipelines(ctx->gpu.device, VK_NULL_HANDLE, 1, &cpi, NULL, &pipe), VK_SUCCESS);
    VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1},
                                     {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1}};
    VkDescriptorPoolCreateInfo dpi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = 1,
                                      .poolSizeCount = 2, .pPoolSizes = sizes};
    VkDescriptorPool pool;
    CHECK_EQ(vk->vkCreateDescriptorPool(ctx->gpu.device, &dpi, NULL, &pool), VK_SUCCESS);
    VkDescriptorSetAllocateInfo dai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                       .descriptorPool = pool, .descriptorSetCount = 1, .pSetLayouts = &set_layout};
    VkDescriptorSet set;
    CHECK_EQ(vk->vkAllocateDescriptorSets(ctx->gpu.device, &dai, &set), VK_SUCCESS);
    VkBuffer buf;
    VkDeviceMemory mem;
    CHECK_EQ(pvk_create_buffer(&ctx->gpu, PROBES * 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                               VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, &buf, &mem),
             PVK_SUCCESS);
    VkDescriptorImageInfo ii = {sampler, t->view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    VkDescriptorBufferInfo bi = {buf, 0, PROBES * 16};
    VkWriteDescriptorSet w[2] = {
        {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = set, .dstBinding = 0, .descriptorCount = 1,
         .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, .pImageInfo = &ii},
        {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = set, .dstBinding = 1, .descriptorCount = 1,
         .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .pBufferInfo = &bi},
    };
    vk->vkUpdateDescriptorSets(ctx->gpu.device, 2, w, 0, NULL);
    pvk_op op;
    CHECK_EQ(pvk_op_begin(&ctx->gpu, &op), PVK_SUCCESS);
    vk->vkCmdBindPipeline(op.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
    vk->vkCmdBindDescriptorSets(op.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, NULL);
    vk->vkCmdPushConstants(op.cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, PROBES * 8, uv);
    vk->vkCmdDispatch(op.cmd, 1, 1, 1);
    pvk_op_barrier(&ctx->gpu, &op);
    CHECK_EQ(pvk_op_submit(&ctx->gpu, &op), PVK_SUCCESS);
    CHECK_EQ(pvk_retire_until(&ctx->gpu, ctx->gpu.timeline_next), PVK_SUCCESS);
    float *f;
    CHECK_EQ(vk->vkMapMemory(ctx->gpu.device, mem, 0, VK_WHOLE_SIZE, 0, (void **)&f), VK_SUCCESS);
    for (int i = 0; i < PROBES; i++)
        for (int c = 0; c < 4; c++)
            out[i][c] = (uint8_t)(f[4 * i + c] * 255.0f + 0.5f);
    vk->vkUnmapMemory(ctx->gpu.device, mem);
    vk->vkDestroyBuffer(ctx->gpu.device, buf, NULL);
    vk->vkFreeMemory(ctx->gpu.device, mem, NULL);
    vk->vkDestroyDescriptorPool(ctx->gpu.device, pool, NULL);
    vk->vkDestroyPipeline(ctx->gpu.device, pipe, NULL);
    vk->vkDestroyShaderModule(ctx->gpu.device, mod, NULL);
    vk->vkDestroyPipelineLayout(ctx->gpu.device, layout, NULL);
    vk->vkDestroyDescriptorSetLayout(ctx->gpu.device, set_layout, NULL);
}

/* Each wrap mode at texel centres outside [0, 1] in s (t inside, row 3):
 * the texel column (or -1 for the border colour) each must read. */
static void probe_wraps(pvk_context *ctx, uint32_t border, const uint8_t expect_border[4])
{
    pvk_texture t;
    probe_texture(ctx, &t);
    static const float uv[PROBES][2] = {
        {-0.3f, 3.5f / 8}, {1.7f, 3.5f / 8}, {1 + 2.5f / 8, 3.5f / 8}, {-0.5f / 8, 3.5f / 8},
        {-2.5f / 8, 3.5f / 8}, {2 - 0.5f / 8, 3.5f / 8}, {5.5f / 8, 3.5f / 8}, {0.5f / 8, 3.5f / 8},
    };
    static const int expect[4][PROBES] = {
        /* clamp to edge */ {0, 7, 7, 0, 0, 7, 5, 0},
        /* clamp to border */ {-1, -1, -1, -1, -1, -1, 5, 0},
        /* repeat */ {5, 5, 2, 7, 5, 7, 5, 0},
        /* mirrored repeat */ {2, 2, 5, 0, 2, 0, 5, 0},
    };
    for (uint32_t wrap = 0; wrap < 4; wrap++) {
        pvk_sampler_key k;
        memset(&k, 0, sizeof k);
        k.wrap_s = (uint8_t)wrap;
        k.border = wrap == 1 ? border : 0;
        VkSampler s = pvk_sampler_get(ctx, &k, NULL);
        uint8_t out[PROBES][4];
        probe(ctx, &t, s, uv, out);
        for (int i = 0; i < PROBES; i++) {
            uint8_t want[4] = {(uint8_t)(32 * expect[wrap][i]), 3 * 32, 0x80, 0xFF};
            if (expect[wrap][i] < 0)
                memcpy(want, expect_border, 4);
            if (memcmp(out[i], want, 4))
                fprintf(stderr, "wrap %u probe %d (u %g): got %02X%02X%02X%02X, want %02X%02X%02X%02X\n", wrap, i,
                        (double)uv[i][0], out[i][0], out[i][1], out[i][2], out[i][3], want[0], want[1], want[2],
                        want[3]);
            CHECK(!memcmp(out[i], want, 4));
        }
    }
    pvk_texture_destroy(&ctx->vram, &t);
}

int main(void)
{
    pvk_config cfg = {.log = log_fn};
    pvk_context *ctx = th_context(&cfg, 0);
    VkSamplerCreateInfo ci;
    VkSamplerCustomBorderColorCreateInfoEXT cbc;
    bool fb;
    pvk_sampler_key k, k2;
    int custom = ctx->gpu.features.custom_border_color;
    printf("custom border colours: %s\n", custom ? "yes" : "no (fallback checks only)");

    /* ---- keys from descriptions ---- */
    pvk_tex_desc d = base_desc();
    pvk_sampler_key_from_desc(&d, &k);
    CHECK_EQ(k.border, 0); /* no wrap clamps to the border: the colour is not part of the state */
    CHECK_EQ(k.max_level, 3);
    CHECK_EQ(k.compare, 0);
    d.wrap_t = 1;
    pvk_sampler_key_from_desc(&d, &k);
    CHECK_EQ(k.border, 0x80402010);
    d.wrap_t = 5; /* reserved: the border side of Citra's note */
    pvk_sampler_key_from_desc(&d, &k2);
    CHECK_EQ(k2.border, 0x80402010);
    d = base_desc();
    d.type = PVK_TEXTYPE_SHADOW_2D;
    pvk_sampler_key_from_desc(&d, &k);
    CHECK_EQ(k.compare, 1);
    d.type = PVK_TEXTYPE_SHADOW_CUBE;
    pvk_sampler_key_from_desc(&d, &k);
    CHECK_EQ(k.compare, 1);
    d.type = PVK_TEXTYPE_PROJECTION;
    pvk_sampler_key_from_desc(&d, &k);
    CHECK_EQ(k.compare, 0);
    d = base_desc();
    d.lod_bias_fixed = -384;
    d.min_level = 1;
    pvk_sampler_key_from_desc(&d, &k);
    CHECK_EQ((uint16_t)k.lod_bias, (uint16_t)-384);
    CHECK_EQ(k.min_level, 1);

    /* ---- create infos for PICA states ---- */
    static const struct {
        uint8_t mag, min, mip, s, t, compare, lo, hi;
        int16_t bias;
        VkFilter vmag, vmin;
        VkSamplerMipmapMode vmip;
        VkSamplerAddressMode vs, vt;
        float bias_f, min_lod, max_lod;
    } cases[] = {
        /* citro3d's defaults: nearest, clamp to edge, no mips */
        {0, 0, 0, 0, 0, 0, 0, 0, 0, VK_FILTER_NEAREST, VK_FILTER_NEAREST, VK_SAMPLER_MIPMAP_MODE_NEAREST,
         VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE, VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE, 0, 0, 0},
        {1, 1, 1, 2, 3, 0, 0, 5, 0, VK_FILTER_LINEAR, VK_FILTER_LINEAR, VK_SAMPLER_MIPMAP_MODE_LINEAR,
         VK_SAMPLER_ADDRESS_MODE_REPEAT, VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT, 0, 0, 5},
        {1, 0, 1, 3, 2, 0, 2, 7, 0x80, VK_FILTER_LINEAR, VK_FILTER_NEAREST, VK_SAMPLER_MIPMAP_MODE_LINEAR,
         VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT, VK_SAMPLER_ADDRESS_MODE_REPEAT, 0.5f, 2, 7},
        {0, 1, 0, 1, 0, 0, 0, 3, -0x180, VK_FILTER_NEAREST, VK_FILTER_LINEAR, VK_SAMPLER_MIPMAP_MODE_NEAREST,
         VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER, VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE, -1.5f, 0, 3},
        /* reserved wraps 4-7: the positive side of Citra's notes */
        {0, 0, 0, 4, 5, 0, 0, 0, 0, VK_FILTER_NEAREST, VK_FILTER_NEAREST, VK_SAMPLER_MIPMAP_MODE_NEAREST,
         VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE, VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER, 0, 0, 0},
        {0, 0, 0, 6, 7, 1, 0, 0, 0, VK_FILTER_NEAREST, VK_FILTER_NEAREST, VK_SAMPLER_MIPMAP_MODE_NEAREST,
         VK_SAMPLER_ADDRESS_MODE_REPEAT, VK_SAMPLER_ADDRESS_MODE_REPEAT, 0, 0, 0},
        /* min level above max: the max */
        {0, 0, 0, 0, 0, 0, 6, 2, 0, VK_FILTER_NEAREST, VK_FILTER_NEAREST, VK_SAMPLER_MIPMAP_MODE_NEAREST,
         VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE, VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE, 0, 2, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memset(&k, 0, sizeof k);
        k.mag_filter = cases[i].mag, k.min_filter = cases[i].min, k.mip_filter = cases[i].mip;
        k.wrap_s = cases[i].s, k.wrap_t = cases[i].t, k.compare = cases[i].compare;
        k.min_level = cases[i].lo, k.max_level = cases[i].hi, k.lod_bias = cases[i].bias;
        k.border = 0xFF336699;
        pvk_sampler_info(ctx, &k, &ci, &cbc, &fb);
        CHECK_EQ(ci.sType, VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO);
        CHECK_EQ(ci.magFilter, cases[i].vmag);
        CHECK_EQ(ci.minFilter, cases[i].vmin);
        CHECK_EQ(ci.mipmapMode, cases[i].vmip);
        CHECK_EQ(ci.addressModeU, cases[i].vs);
        CHECK_EQ(ci.addressModeV, cases[i].vt);
        CHECK(ci.mipLodBias == cases[i].bias_f);
        CHECK(ci.minLod == cases[i].min_lod);
        CHECK(ci.maxLod == cases[i].max_lod);
        CHECK_EQ(ci.anisotropyEnable, VK_FALSE);
        CHECK_EQ(ci.unnormalizedCoordinates, VK_FALSE);
        CHECK_EQ(ci.compareEnable, cases[i].compare ? VK_TRUE : VK_FALSE);
        if (cases[i].compare)
            CHECK_EQ(ci.compareOp, VK_COMPARE_OP_LESS_OR_EQUAL);
        bool border = ci.addressModeU == VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER ||
                      ci.addressModeV == VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER;
        if (border && custom) {
            CHECK_EQ(ci.borderColor, VK_BORDER_COLOR_FLOAT_CUSTOM_EXT);
            CHECK(ci.pNext == &cbc);
            CHECK_EQ(cbc.format, VK_FORMAT_UNDEFINED);
            CHECK(cbc.customBorderColor.float32[0] == 0x99 / 255.0f); /* R is byte 0 */
            CHECK(cbc.customBorderColor.float32[1] == 0x66 / 255.0f);
            CHECK(cbc.customBorderColor.float32[2] == 0x33 / 255.0f);
            CHECK(cbc.customBorderColor.float32[3] == 1.0f);
            CHECK(!fb);
        } else if (!border) {
            CHECK(ci.pNext == NULL);
            CHECK(!fb);
        }
        /* and it is a valid sampler */
        VkSampler s = pvk_sampler_get(ctx, &k, NULL);
        CHECK(s != VK_NULL_HANDLE);
    }

    /* the built-in colour nearest to a PICA border colour */
    CHECK_EQ(pvk_vk_border_color(0x00000000), VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK);
    CHECK_EQ(pvk_vk_border_color(0xFF000000), VK_BORDER_COLOR_FLOAT_OPAQUE_BLACK);
    CHECK_EQ(pvk_vk_border_color(0xFFFFFFFF), VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE);
    CHECK_EQ(pvk_vk_border_color(0xF0102030), VK_BORDER_COLOR_FLOAT_OPAQUE_BLACK);
    CHECK_EQ(pvk_vk_border_color(0x10E0F0D0), VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE); /* nearer white than clear */
    CHECK_EQ(pvk_vk_border_color(0x10203010), VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK);

    /* ---- the cache ---- */
    pvk_stats s0 = stats(ctx);
    memset(&k, 0, sizeof k);
    k.wrap_s = 1;
    k.border = 0x11223344;
    k.max_level = 2;
    VkSampler a = pvk_sampler_get(ctx, &k, NULL), b = pvk_sampler_get(ctx, &k, NULL);
    CHECK(a != VK_NULL_HANDLE);
    CHECK(a == b);
    CHECK_EQ(stats(ctx).samplers_created, s0.samplers_created + 1);
    /* each field makes another sampler */
    VkSampler seen[16];
    int n_seen = 0;
    seen[n_seen++] = a;
    for (int f = 0; f < 10; f++) {
        k2 = k;
        switch (f) {
        case 0: k2.mag_filter ^= 1; break;
        case 1: k2.min_filter ^= 1; break;
        case 2: k2.mip_filter ^= 1; break;
        case 3: k2.wrap_s = 2; break;
        case 4: k2.wrap_t = 3; break;
        case 5: k2.compare = 1; break;
        case 6: k2.min_level = 1; break;
        case 7: k2.max_level = 3; break;
        case 8: k2.lod_bias = 0x40; break;
        case 9: k2.border = 0x11223345; break;
        }
        VkSampler x = pvk_sampler_get(ctx, &k2, NULL);
        CHECK(x != VK_NULL_HANDLE);
        for (int j = 0; j < n_seen; j++)
            CHECK(x != seen[j]);
        seen[n_seen++] = x;
    }
    CHECK(pvk_sampler_get(ctx, &k, NULL) == a); /* still cached */
    /* bounded: many more states than the cache holds */
    uint64_t created = stats(ctx).samplers_created, waits = stats(ctx).gpu_waits;
    for (int i = 0; i < 3 * PVK_SAMPLER_CACHE; i++) {
        k2 = k;
        k2.lod_bias = (int16_t)(100 + i);
        CHECK(pvk_sampler_get(ctx, &k2, NULL) != VK_NULL_HANDLE);
        CHECK(pvk_sampler_count(ctx) <= PVK_SAMPLER_CACHE);
    }
    CHECK_EQ(stats(ctx).samplers_created, created + 3 * PVK_SAMPLER_CACHE);
    CHECK_EQ(pvk_sampler_count(ctx), PVK_SAMPLER_CACHE);
    CHECK_EQ(stats(ctx).gpu_waits, waits); /* evicted samplers wait in the deferred destroy, not the caller */
    k2 = k;
    k2.lod_bias = (int16_t)(100 + 3 * PVK_SAMPLER_CACHE - 1); /* the newest: a hit */
    created = stats(ctx).samplers_created;
    pvk_sampler_get(ctx, &k2, NULL);
    CHECK_EQ(stats(ctx).samplers_created, created);
    pvk_sampler_get(ctx, &k, NULL); /* the oldest went: created again */
    CHECK_EQ(stats(ctx).samplers_created, created + 1);
    if (custom)
        CHECK_EQ(stats(ctx).sampler_border_fallbacks, 0);
    CHECK_EQ(border_warnings, 0);
    /* on the GPU: every wrap mode, and the PICA's border colour where the device has custom ones */
    static const uint8_t exact_border[4] = {0x10, 0x20, 0x40, 0x80};
    if (custom)
        probe_wraps(ctx, 0x80402010, exact_border);
    th_release(ctx);

    /* ---- without custom border colours ---- */
    ctx = th_context_debug(&cfg, "no-custom-border", 0);
    CHECK_EQ(ctx->gpu.features.custom_border_color, 0);
    memset(&k, 0, sizeof k);
    k.wrap_s = 1;
    k.border = 0x80402010; /* R 0x10, G 0x20, B 0x40, A 0x80: nearest is opaque black (A 128 of 255) */
    pvk_sampler_info(ctx, &k, &ci, &cbc, &fb);
    CHECK(fb);
    CHECK_EQ(ci.borderColor, VK_BORDER_COLOR_FLOAT_OPAQUE_BLACK);
    CHECK(ci.pNext == NULL);
    bool emulate = false;
    CHECK(pvk_sampler_get(ctx, &k, &emulate) != VK_NULL_HANDLE);
    CHECK(emulate);
    k.border = 0xFFF0E0D0;
    emulate = false;
    CHECK(pvk_sampler_get(ctx, &k, &emulate) != VK_NULL_HANDLE);
    CHECK(emulate);
    pvk_sampler_info(ctx, &k, &ci, &cbc, &fb);
    CHECK_EQ(ci.borderColor, VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE);
    k.border = 0xFF000000; /* opaque black: exact */
    emulate = true;
    CHECK(pvk_sampler_get(ctx, &k, &emulate) != VK_NULL_HANDLE);
    CHECK(!emulate);
    k.wrap_s = 0; /* no border in use: nothing to emulate */
    k.border = 0;
    emulate = true;
    CHECK(pvk_sampler_get(ctx, &k, &emulate) != VK_NULL_HANDLE);
    CHECK(!emulate);
    CHECK_EQ(stats(ctx).sampler_border_fallbacks, 2);
    CHECK_EQ(border_warnings, 1); /* logged once */
    static const uint8_t black[4] = {0, 0, 0, 0xFF}; /* the stand-in for 0x80402010 */
    probe_wraps(ctx, 0x80402010, black);
    th_release(ctx);
    return th_finish("test_sampler");
}
