/* Recording a tiled <-> linear conversion between two bound buffers with the
 * display-transfer shaders: what the surface cache and the round-trip draw
 * path use to move colour buffers between guest memory and images. */
#include "runtime/runtime.h"

void pvk_transfer_record_convert(pvk_context *ctx, pvk_op *op, pvk_buffer_range src, uint32_t src_sub,
                                 pvk_buffer_range dst, uint32_t dst_sub, uint32_t in_width, uint32_t w, uint32_t h,
                                 uint32_t in_fmt, uint32_t out_fmt, uint32_t mode)
{
    /* the vector path needs 16-byte aligned rows and tiles */
    bool quads = in_fmt == 0 && out_fmt == 0 && src_sub % 16 == 0 && dst_sub % 16 == 0;
    uint32_t push[16] = {src_sub, dst_sub, in_width, w, h, in_fmt, out_fmt, mode & 3};
    uint32_t cw = quads ? w / 4 : w, ch = quads ? h / 2 : h;
    pvk_buffer_range ranges[2] = {src, dst};
    pvk_op_dispatch(ctx, op, quads ? PVK_PIPE_DISPLAY_QUAD : PVK_PIPE_DISPLAY_TRANSFER, ranges, push, (cw + 7) / 8,
                    (ch + 7) / 8, 1);
}
