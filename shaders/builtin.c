/* The built-in shaders, compiled at build time by glslangValidator and
 * embedded here (the headers are generated into the build tree). */
#include "runtime/runtime.h"

#include "display_quad.spv.h"
#include "display_transfer.spv.h"
#include "fill.spv.h"
#include "scanout.spv.h"
#include "texture_copy.spv.h"

pvk_spirv pvk_builtin_spirv(int pipe)
{
    switch (pipe) {
    case PVK_PIPE_FILL: return (pvk_spirv){pvk_spv_fill, sizeof pvk_spv_fill};
    case PVK_PIPE_DISPLAY_TRANSFER: return (pvk_spirv){pvk_spv_display_transfer, sizeof pvk_spv_display_transfer};
    case PVK_PIPE_DISPLAY_QUAD: return (pvk_spirv){pvk_spv_display_quad, sizeof pvk_spv_display_quad};
    case PVK_PIPE_TEXTURE_COPY: return (pvk_spirv){pvk_spv_texture_copy, sizeof pvk_spv_texture_copy};
    case PVK_PIPE_SCANOUT: return (pvk_spirv){pvk_spv_scanout, sizeof pvk_spv_scanout};
    }
    return (pvk_spirv){0, 0};
}
