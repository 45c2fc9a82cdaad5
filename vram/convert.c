/* Recording a tiled <-> linear conversion between two bound buffers with the
 * display-transfer shaders: what the surface cache and the round-trip draw
 * path use to move colour buffers between guest memory and images, and the
 * choice of shader the display transfer shares. */
#include "vram/vram.h"

int pvk_transfer_pick(uint32_t in_fmt, uint32_t out_fmt, uint32_t scale, bool to_tiled, uint32_t w, uint32_t h,
                      uint32_t in_width, bool aligned16, uint32_t *gx, uint32_t *gy)
{
    /* whole 4x2 blocks: every transfer (sizes are multiples of 8); a surface
     * of another size takes the per-pixel shader */
    bool blocks = w % 4 == 0 && h % 2 == 0 && in_width % 4 == 0;
    bool rgba8_in = in_fmt == 0 || in_fmt == PVK_XFER_RGBA8_NATURAL;
    bool rgba8_out = out_fmt == 0 || out_fmt == PVK_XFER_RGBA8_NATURAL;
    int pipe = PVK_PIPE_DISPLAY_TRANSFER;
    if (blocks && rgba8_in && rgba8_out && scale == 0 && aligned16)
        pipe = to_tiled ? PVK_PIPE_DISPLAY_QUAD_TO_TILED : PVK_PIPE_DISPLAY_QUAD; /* 16-byte vectors both ways */
    else if (blocks)
        pipe = pvk_pipe_display_block(rgba8_in ? 4 : pvk_color_format_bpp(in_fmt), scale, to_tiled,
                                      rgba8_out ? 4 : pvk_color_format_bpp(out_fmt));
    uint32_t cw = blocks ? w / 4 : w, ch = blocks ? h / 2 : h;
    *gx = (cw + 7) / 8;
    *gy = (ch + 7) / 8;
    return pipe;
}

void pvk_transfer_record_convert(pvk_vram *vm, pvk_op *op, pvk_buffer_range src, uint32_t src_sub, pvk_buffer_range dst,
                                 uint32_t dst_sub, uint32_t in_width, uint32_t w, uint32_t h, uint32_t in_fmt,
                                 uint32_t out_fmt, uint32_t mode)
{
    uint32_t gx, gy;
    int pipe = pvk_transfer_pick(in_fmt, out_fmt, 0, mode & 2, w, h, in_width, src_sub % 16 == 0 && dst_sub % 16 == 0,
                                 &gx, &gy);
    uint32_t push[16] = {src_sub, dst_sub, in_width, w, h, in_fmt, out_fmt, mode & 3};
    pvk_buffer_range ranges[2] = {src, dst};
    pvk_op_dispatch(vm->gpu, op, pipe, ranges, push, gx, gy, 1);
}
