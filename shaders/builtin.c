/* The built-in shaders, compiled at build time by glslangValidator and
 * embedded here (the headers are generated into the build tree). */
#include "shaders/shaders.h"

#include "depth_io.comp.spv.h"
#include "display_block.comp.spv.h"
#include "display_quad.comp.spv.h"
#include "display_transfer.comp.spv.h"
#include "fill.comp.spv.h"
#include "lcd_scale.comp.spv.h"
#include "scanout.comp.spv.h"
#include "scanout_block.comp.spv.h"
#include "surface_convert.comp.spv.h"
#include "texture_copy.comp.spv.h"
#include "texture_decode.comp.spv.h"
#include "texture_decode_etc.comp.spv.h"
#include "texture_filter.comp.spv.h"
#include "texture_anime4k.comp.spv.h"
#include "draw.vert.spv.h"
#include "draw_quat.geom.spv.h"
#include "draw_null.frag.spv.h"

pvk_spirv pvk_builtin_spirv(int pipe)
{
    switch (pipe) {
    case PVK_PIPE_FILL: return (pvk_spirv){pvk_spv_fill_comp, sizeof pvk_spv_fill_comp};
    case PVK_PIPE_DISPLAY_TRANSFER: return (pvk_spirv){pvk_spv_display_transfer_comp, sizeof pvk_spv_display_transfer_comp};
    case PVK_PIPE_DISPLAY_QUAD: return (pvk_spirv){pvk_spv_display_quad_comp, sizeof pvk_spv_display_quad_comp};
    case PVK_PIPE_TEXTURE_COPY: return (pvk_spirv){pvk_spv_texture_copy_comp, sizeof pvk_spv_texture_copy_comp};
    case PVK_PIPE_SCANOUT: return (pvk_spirv){pvk_spv_scanout_comp, sizeof pvk_spv_scanout_comp};
    case PVK_PIPE_DEPTH_IO: return (pvk_spirv){pvk_spv_depth_io_comp, sizeof pvk_spv_depth_io_comp};
    case PVK_PIPE_SURFACE_CONVERT: return (pvk_spirv){pvk_spv_surface_convert_comp, sizeof pvk_spv_surface_convert_comp};
    case PVK_PIPE_TEXTURE_DECODE_ETC: return (pvk_spirv){pvk_spv_texture_decode_etc_comp, sizeof pvk_spv_texture_decode_etc_comp};
    case PVK_PIPE_LCD_SCALE: return (pvk_spirv){pvk_spv_lcd_scale_comp, sizeof pvk_spv_lcd_scale_comp};
    }
    /* variants by specialisation constants */
    if (pipe >= PVK_PIPE_TEXTURE_DECODE && pipe < PVK_PIPE_COUNT)
        return (pvk_spirv){pvk_spv_texture_decode_comp, sizeof pvk_spv_texture_decode_comp};
    if (pipe == PVK_PIPE_DISPLAY_QUAD_TO_TILED)
        return (pvk_spirv){pvk_spv_display_quad_comp, sizeof pvk_spv_display_quad_comp};
    if (pipe >= PVK_PIPE_SCANOUT_BLOCK && pipe < PVK_PIPE_DISPLAY_QUAD_TO_TILED)
        return (pvk_spirv){pvk_spv_scanout_block_comp, sizeof pvk_spv_scanout_block_comp};
    if (pipe >= PVK_PIPE_DISPLAY_BLOCK && pipe < PVK_PIPE_SCANOUT_BLOCK)
        return (pvk_spirv){pvk_spv_display_block_comp, sizeof pvk_spv_display_block_comp};
    return (pvk_spirv){0, 0};
}

/* Draws' vertex shader; their fragment shaders are generated per key. */
pvk_spirv pvk_builtin_draw_vertex_spirv(void)
{
    return (pvk_spirv){pvk_spv_draw_vert, sizeof pvk_spv_draw_vert};
}

pvk_spirv pvk_builtin_draw_quat_geom_spirv(void)
{
    return (pvk_spirv){pvk_spv_draw_quat_geom, sizeof pvk_spv_draw_quat_geom};
}

pvk_spirv pvk_builtin_texture_filter_spirv(void)
{
    return (pvk_spirv){pvk_spv_texture_filter_comp, sizeof pvk_spv_texture_filter_comp};
}

pvk_spirv pvk_builtin_texture_anime4k_spirv(void)
{
    return (pvk_spirv){pvk_spv_texture_anime4k_comp, sizeof pvk_spv_texture_anime4k_comp};
}

pvk_spirv pvk_builtin_draw_null_frag_spirv(void)
{
    return (pvk_spirv){pvk_spv_draw_null_frag, sizeof pvk_spv_draw_null_frag};
}
