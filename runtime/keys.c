/* Keys for the device: the one place what the guest asked for (the keys the
 * translator built) becomes what this device draws with.  The device profile
 * is filled once, at context creation, from the device's features and
 * PVK_DEBUG; the resolvers read nothing else. */
#include "runtime/runtime.h"

/* Vulkan's blend unit is exact for min/max and for factors 0 and 1 only
 * (no product to round): such a blend needs no attachment read. */
static bool blend_exact_fixed(unsigned eq, unsigned src, unsigned dst)
{
    return eq == 3 || eq == 4 || ((src == 0 || src == 1 || src == 15) && (dst == 0 || dst == 1 || dst == 15));
}

void pvk_profile_init(pvk_context *ctx)
{
    const pvk_gpu *g = &ctx->gpu;
    ctx->profile = (pvk_device_profile){
        .attachment_read = g->attachment_read,
        .lut_ubo = g->props.limits.maxUniformBufferRange >= PVK_FRAGDATA_LUT_BYTES &&
                   !(g->debug & PVK_DEBUG_LUT_STORAGE),
        .shader_float64 = g->shader_float64,
    };
}

pvk_resolve_notes pvk_keys_resolve(const pvk_device_profile *p, bool attachment_read, const pvk_pipe_key *guest_pipe,
                                   const pvk_fs_key *guest_fs, pvk_pipe_key *pipe, pvk_fs_key *fs)
{
    pvk_resolve_notes notes = {0};
    *pipe = *guest_pipe;
    *fs = *guest_fs;
    /* exact blending: the shader blends and the pipeline's blend unit stays
     * off, so the pipeline key drops the equations and factors */
    if (attachment_read && p->attachment_read && pipe->blend &&
        !(blend_exact_fixed(pipe->rgb_eq, pipe->rgb_src, pipe->rgb_dst) &&
          blend_exact_fixed(pipe->alpha_eq, pipe->alpha_src, pipe->alpha_dst))) {
        fs->blend = 1;
        fs->rgb_eq = pipe->rgb_eq, fs->alpha_eq = pipe->alpha_eq;
        fs->rgb_src = pipe->rgb_src, fs->rgb_dst = pipe->rgb_dst;
        fs->alpha_src = pipe->alpha_src, fs->alpha_dst = pipe->alpha_dst;
        pipe->rgb_eq = pipe->alpha_eq = pipe->rgb_src = pipe->rgb_dst = pipe->alpha_src = pipe->alpha_dst = 0;
    }
    /* shadow rendering reads the colour attachment in the shader: without
     * attachment reads the draw writes its TEV colour */
    if (fs->fl.shadow && !(attachment_read && p->attachment_read)) {
        fs->fl.shadow = 0;
        notes.shadow_dropped = true;
    }
    pvk_keys_lut_binding(p, fs);
    return notes;
}

void pvk_keys_lut_binding(const pvk_device_profile *p, pvk_fs_key *fs)
{
    fs->fl.lut_ubo = pvk_fs_uses_fragdata(fs) && p->lut_ubo;
}

uint32_t pvk_vs_flags_for_device(const pvk_device_profile *p, uint32_t flags)
{
    return p->shader_float64 ? flags | PVK_GLSL_VS_F64 : flags;
}
