/* Texture binding: the units a draw samples, each a texture of the cache
 * (vram/texture.c) or a render target read in place, with its sampler
 * (runtime/sampler.c), pushed as descriptors 0-2. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/draw.h"

/* Register values the documents call reserved or unknown that a sampled
 * unit uses (translator/texture.c decodes them as its PVK_TEXRES_* comments
 * say): counted unsupported every draw, logged once each.  Sizes, formats
 * and levels the decoder refuses are counted there instead. */
static void count_reserved(pvk_context *ctx, const pvk_tex_desc *td, uint32_t mask)
{
    static const struct {
        uint32_t bit;
        const char *what;
    } kinds[] = {
        {PVK_TEXRES_TYPE, "a reserved texture type (unit 0: 6-7, taken as disabled; units 1/2: not 0, ignored)"},
        {PVK_TEXRES_WRAP, "wrap mode 4-7 (taken as 0-1, 6-7 as repeat)"},
        {PVK_TEXRES_ETC1_FLAG, "an ETC1 flag that disagrees with the format (the format decides)"},
        {PVK_TEXRES_SHADOW_BIT, "a shadow bit that disagrees with the type (the type decides)"},
        {PVK_TEXRES_LOD, "a min level above the max level (the max is taken) or a max level past 8x8"},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (!(td->reserved & mask & kinds[i].bit))
            continue;
        pvk_unsupported_once(&ctx->gpu, PVK_ONCE_TEXRES + (unsigned)__builtin_ctz(kinds[i].bit),
                             "draw: texture unit %u has %s (counted per draw)", td->unit, kinds[i].what);
    }
}

/* The textures of the packet's enabled units (pvk_texture_get: cached,
 * built from a render target, or decoded; a decode or a build is its own
 * submission, so it closes an open batch and runs before the draw) and their
 * samplers, and the fragment key adjusted to what could be bound: a unit
 * whose texture is refused (bad input, logged and counted by the texture
 * cache) or whose type is not sampled (shadow cube; counted) reads 0.  The
 * border colour goes through the shader (shader_border) where the sampler
 * cannot carry it: no custom border colours (logged once), or a view with a
 * swizzle (L, A, LA, HILO formats), whose border Vulkan applies before the
 * swizzle.  Those samplers clamp to the edge on the emulated axes. */
pvk_result pvk_draw_textures(pvk_context *ctx, const pvk_draw_packet *pk, pvk_fs_key *fs, tex_binding *tb)
{
    tb->units = 0;
    fs->tex.shader_border = 0;
    for (uint32_t u = 0; u < 3; u++) {
        if (!(fs->tex.enable >> u & 1))
            continue;
        const pvk_tex_desc *td = &pk->tex[u];
        fs->tex.enable &= (uint8_t) ~(1u << u); /* set again once bound */
        if (td->type == PVK_TEXTYPE_SHADOW_CUBE) {
            /* undocumented, and no emulator models it to follow */
            pvk_unsupported_once(&ctx->gpu, PVK_ONCE_SHADOW_CUBE,
                                 "draw: shadow cube textures are not sampled: they read 0 (counted per draw)");
            continue;
        }
        pvk_texture_desc desc;
        const pvk_texture *t = NULL;
        if (!pvk_texture_desc_from_unit(td, &desc))
            continue;
        /* Levels below 8x8 have no documented layout (vram/texture.c refuses
         * them): rather than lose the texture, its levels down to 8x8 are
         * sampled, the level of detail clamped to them; counted unsupported. */
        uint32_t fit = 1;
        while (fit < desc.levels && (desc.width >> fit) >= 8 && (desc.height >> fit) >= 8 &&
               (desc.width >> fit) % 8 == 0 && (desc.height >> fit) % 8 == 0)
            fit++;
        bool cut = fit < desc.levels;
        if (cut) {
            pvk_unsupported_once(&ctx->gpu, PVK_ONCE_SMALL_LEVELS,
                                 "draw: texture %ux%u with %u levels: levels smaller than 8x8 are not decoded; "
                                 "sampled from the first %u (counted per draw)",
                                 desc.width, desc.height, desc.levels, fit);
            desc.levels = fit;
        }
        pvk_result r = pvk_texture_get(&ctx->vram, &desc, &t);
        if (r) {
            if (ctx->gpu.sticky)
                return r;
            continue; /* logged and counted */
        }
        pvk_sampler_key sk;
        pvk_sampler_key_from_desc(td, &sk);
        if (cut) {
            sk.max_level = (uint8_t)(sk.max_level < fit - 1 ? sk.max_level : fit - 1);
            sk.min_level = (uint8_t)(sk.min_level < fit - 1 ? sk.min_level : fit - 1);
        }
        uint32_t texel_bytes = 0;
        pvk_texture_vk_format(desc.format, NULL, &texel_bytes);
        if (td->type == PVK_TEXTYPE_SHADOW_2D) /* the shader fetches texels and compares them itself */
            sk = (pvk_sampler_key){0};
        bool bs = pvk_vk_address_mode(sk.wrap_s) == VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER,
             bt = pvk_vk_address_mode(sk.wrap_t) == VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER;
        if ((bs || bt) && (texel_bytes < 4 || !ctx->gpu.features.custom_border_color)) {
            if (!ctx->gpu.features.custom_border_color && pvk_once(&ctx->gpu, PVK_ONCE_SHADER_BORDER)) {
                pvk_log(&ctx->gpu, PVK_LOG_WARN,
                        "draw: no custom border colours: the fragment shader clamps to the border "
                        "colour itself (pvk_stats.shader_borders)");
            }
            ctx->gpu.stats.shader_borders++;
            fs->tex.shader_border |= (uint8_t)((bs ? 1u << u : 0) | (bt ? 1u << (u + 4) : 0));
            if (bs)
                sk.wrap_s = 0; /* clamp to edge */
            if (bt)
                sk.wrap_t = 0;
            sk.border = 0;
        }
        VkSampler smp = pvk_sampler_get(ctx, &sk, NULL);
        if (!smp) {
            if (ctx->gpu.sticky)
                return ctx->gpu.sticky;
            continue; /* logged */
        }
        count_reserved(ctx, td, cut ? ~(uint32_t)PVK_TEXRES_LOD : ~0u); /* levels past 8x8: counted above */
        tb->info[u] = (VkDescriptorImageInfo){smp, t->view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
        tb->units |= 1u << u;
        fs->tex.enable |= (uint8_t)(1u << u);
        ctx->gpu.stats.texture_samples++;
    }
    return PVK_SUCCESS;
}

/* Push the bound units' descriptors (bindings 0-2; the others keep theirs). */
void pvk_draw_push_textures(pvk_context *ctx, draw_dyn *dyn, VkCommandBuffer cmd, const tex_binding *tb)
{
    VkWriteDescriptorSet w[3];
    uint32_t n = 0;
    for (uint32_t u = 0; u < 3; u++)
        if (tb->units >> u & 1)
            w[n++] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                            .dstBinding = PVK_DRAW_BINDING_TEX0 + u,
                                            .descriptorCount = 1,
                                            .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                                            .pImageInfo = &tb->info[u]};
    pvk_draw_push_descriptors(ctx, dyn, cmd, w, n);
}
