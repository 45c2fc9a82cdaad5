/* Samplers for the texture units: a small cache of VkSamplers keyed by the
 * PICA sampling state (pvk_sampler_key: filters, wraps, LOD, border colour,
 * shadow compare), the least recently used evicted past PVK_SAMPLER_CACHE.
 *
 * The PICA's border colour is any RGBA8 value.  With VK_EXT_custom_border_color
 * (customBorderColorWithoutFormat: one sampler serves R8, RG8 and RGBA8
 * images) the sampler carries it exactly; without, the nearest built-in
 * colour stands in, logged once, counted (pvk_stats.sampler_border_fallbacks)
 * and reported by pvk_sampler_get so the fragment shader can clamp to the
 * border itself.  Images with a swizzled view (L, A, LA, HILO formats) see
 * the border colour before the swizzle unless the device has
 * borderColorSwizzle: draws apply the border in the shader for those, and
 * for every format without custom border colours (runtime/draw.c). */
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"

typedef struct sampler_entry {
    pvk_sampler_key key;
    VkSampler sampler;
    bool border_fallback;
    uint64_t last_use;   /* cache tick */
    uint64_t gpu_value;  /* timeline value of the last work that may use it */
} sampler_entry;

struct pvk_samplers {
    sampler_entry e[PVK_SAMPLER_CACHE];
    uint32_t count;
    uint64_t tick;
};

pvk_result pvk_samplers_init(pvk_context *ctx)
{
    ctx->samplers = calloc(1, sizeof *ctx->samplers);
    return ctx->samplers ? PVK_SUCCESS : PVK_ERROR_OUT_OF_MEMORY;
}

void pvk_samplers_destroy(pvk_context *ctx)
{
    struct pvk_samplers *c = ctx->samplers;
    if (!c)
        return;
    if (c->count && ctx->gpu.pending_count)
        pvk_gpu_idle(&ctx->gpu); /* work in flight may sample through them */
    for (uint32_t i = 0; i < c->count; i++)
        ctx->gpu.vk.vkDestroySampler(ctx->gpu.device, c->e[i].sampler, NULL);
    free(c);
    ctx->samplers = NULL;
}

static bool clamps_to_border(uint32_t wrap)
{
    return pvk_vk_address_mode(wrap) == VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER;
}

void pvk_sampler_key_from_desc(const pvk_tex_desc *d, pvk_sampler_key *k)
{
    memset(k, 0, sizeof *k);
    k->mag_filter = d->mag_filter;
    k->min_filter = d->min_filter;
    k->mip_filter = d->mip_filter;
    k->wrap_s = d->wrap_s;
    k->wrap_t = d->wrap_t;
    k->compare = d->type == PVK_TEXTYPE_SHADOW_2D || d->type == PVK_TEXTYPE_SHADOW_CUBE;
    k->min_level = (uint8_t)d->min_level;
    k->max_level = (uint8_t)d->max_level;
    k->lod_bias = (int16_t)d->lod_bias_fixed;
    if (clamps_to_border(d->wrap_s) || clamps_to_border(d->wrap_t))
        k->border = d->border;
}

void pvk_sampler_info(const pvk_context *ctx, const pvk_sampler_key *k, VkSamplerCreateInfo *ci,
                      VkSamplerCustomBorderColorCreateInfoEXT *cbc, bool *border_fallback)
{
    float bias = (float)k->lod_bias / 256.0f, most = ctx->gpu.props.limits.maxSamplerLodBias;
    bias = bias > most ? most : bias < -most ? -most : bias;
    /* Vulkan clamps the level of detail to [minLod, maxLod] as the PICA's
     * LOD register clamps the level; a min level above the max (flagged by
     * the decoder) takes the max */
    float min_lod = k->min_level, max_lod = k->max_level;
    if (min_lod > max_lod)
        min_lod = max_lod;
    *ci = (VkSamplerCreateInfo){
        .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
        .magFilter = pvk_vk_filter(k->mag_filter),
        .minFilter = pvk_vk_filter(k->min_filter),
        .mipmapMode = pvk_vk_mipmap_mode(k->mip_filter),
        .addressModeU = pvk_vk_address_mode(k->wrap_s),
        .addressModeV = pvk_vk_address_mode(k->wrap_t),
        .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE, /* cube maps: unused */
        .mipLodBias = bias,
        /* shadow textures: for a depth view of a shadow map; draws never use
         * it (they fetch RGBA8 shadow texels and compare in the shader) */
        .compareEnable = k->compare ? VK_TRUE : VK_FALSE,
        .compareOp = k->compare ? VK_COMPARE_OP_LESS_OR_EQUAL : VK_COMPARE_OP_NEVER,
        .minLod = min_lod,
        .maxLod = max_lod,
        .borderColor = VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK,
    };
    *border_fallback = false;
    memset(cbc, 0, sizeof *cbc);
    bool border = clamps_to_border(k->wrap_s) || clamps_to_border(k->wrap_t);
    if (!border)
        return;
    if (ctx->gpu.features.custom_border_color) {
        *cbc = (VkSamplerCustomBorderColorCreateInfoEXT){
            .sType = VK_STRUCTURE_TYPE_SAMPLER_CUSTOM_BORDER_COLOR_CREATE_INFO_EXT,
            .format = VK_FORMAT_UNDEFINED,
        };
        for (int c = 0; c < 4; c++)
            cbc->customBorderColor.float32[c] = (float)((k->border >> (8 * c)) & 0xFF) / 255.0f;
        ci->borderColor = VK_BORDER_COLOR_FLOAT_CUSTOM_EXT;
        ci->pNext = cbc;
        return;
    }
    ci->borderColor = pvk_vk_border_color(k->border);
    static const uint32_t exact[3] = {0x00000000u, 0xFF000000u, 0xFFFFFFFFu}; /* the built-ins as RGBA bytes */
    *border_fallback = true;
    for (int i = 0; i < 3; i++)
        if (k->border == exact[i])
            *border_fallback = false;
}

static pvk_result create(pvk_context *ctx, sampler_entry *e, const pvk_sampler_key *k)
{
    VkSamplerCreateInfo ci;
    VkSamplerCustomBorderColorCreateInfoEXT cbc;
    pvk_sampler_info(ctx, k, &ci, &cbc, &e->border_fallback);
    pvk_result r = pvk_vk_check(&ctx->gpu, ctx->gpu.vk.vkCreateSampler(ctx->gpu.device, &ci, NULL, &e->sampler),
                                "vkCreateSampler");
    if (r)
        return r;
    e->key = *k;
    ctx->gpu.stats.samplers_created++;
    if (e->border_fallback) {
        ctx->gpu.stats.sampler_border_fallbacks++;
        if (pvk_once(&ctx->gpu, PVK_ONCE_SAMPLER_FALLBACK)) {
            pvk_log(&ctx->gpu, PVK_LOG_WARN,
                    "samplers: no custom border colours on this device: border colour 0x%08X (RGBA bytes) and "
                    "others become the nearest built-in one (logged once; pvk_stats.sampler_border_fallbacks)",
                    k->border);
        }
    }
    pvk_object_name(&ctx->gpu, VK_OBJECT_TYPE_SAMPLER, (uint64_t)e->sampler,
                    "sampler mag %u min %u mip %u wrap %u/%u lod %u-%u bias %d border %08X%s", k->mag_filter,
                    k->min_filter, k->mip_filter, k->wrap_s, k->wrap_t, k->min_level, k->max_level, k->lod_bias,
                    k->border, k->compare ? " shadow" : "");
    return PVK_SUCCESS;
}

VkSampler pvk_sampler_get(pvk_context *ctx, const pvk_sampler_key *k, bool *emulate_border)
{
    struct pvk_samplers *c = ctx->samplers;
    sampler_entry *e = NULL;
    for (uint32_t i = 0; i < c->count && !e; i++)
        if (!memcmp(&c->e[i].key, k, sizeof *k))
            e = &c->e[i];
    if (!e) {
        if (c->count < PVK_SAMPLER_CACHE) {
            e = &c->e[c->count];
        } else { /* evict the least recently used: destroyed once the GPU is past its last use */
            e = &c->e[0];
            for (uint32_t i = 1; i < c->count; i++)
                if (c->e[i].last_use < e->last_use)
                    e = &c->e[i];
            if (!pvk_gpu_defer_destroy(&ctx->gpu, e->gpu_value, VK_OBJECT_TYPE_SAMPLER, (uint64_t)e->sampler,
                                       VK_NULL_HANDLE, VK_NULL_HANDLE))
                return VK_NULL_HANDLE; /* logged */
            memset(e, 0, sizeof *e);
            c->count--;
            /* keep the array dense: the last entry fills the hole */
            sampler_entry *last = &c->e[c->count];
            if (last != e) {
                *e = *last;
                e = last;
            }
        }
        if (create(ctx, e, k)) {
            memset(e, 0, sizeof *e);
            return VK_NULL_HANDLE;
        }
        c->count++;
    }
    e->last_use = ++c->tick;
    e->gpu_value = ctx->gpu.timeline_next + 1; /* the open (or next) batch may use it */
    if (emulate_border)
        *emulate_border = e->border_fallback;
    return e->sampler;
}

uint32_t pvk_sampler_count(const pvk_context *ctx)
{
    return ctx->samplers ? ctx->samplers->count : 0;
}

uint32_t pvk_samplers_held(const pvk_context *ctx)
{
    return ctx->samplers ? ctx->samplers->count : 0;
}
