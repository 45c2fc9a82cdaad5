// Display transfer, RGBA8 -> RGBA8 without scaling: one 2x2 quad per
// invocation.  A quad at even (x, y) is 16 contiguous bytes in a tiled image
// (the low Morton bits are x0, y0) and two 8-byte runs in a linear one, so the
// common framebuffer copy moves whole vectors.  A separate pipeline because
// the general shader's size costs CPU drivers several times its work.
#version 460
layout(local_size_x = 8, local_size_y = 8) in;
layout(std430, set = 0, binding = 0) readonly buffer SrcQ { uvec4 src128[]; };
layout(std430, set = 0, binding = 0) readonly buffer SrcD { uvec2 src64[]; };
layout(std430, set = 0, binding = 1) writeonly buffer DstQ { uvec4 dst128[]; };
layout(std430, set = 0, binding = 1) writeonly buffer DstD { uvec2 dst64[]; };
layout(push_constant) uniform Push {
    uint src_base, dst_base;  // byte offsets (multiples of 16) inside each binding
    uint in_width;            // input row length in pixels
    uint out_width, out_height;
    uint in_fmt, out_fmt;     // both 0 here
    uint mode;                // bit 0 flip, bit 1 linear->tiled
};

uint morton(uint x, uint y)
{
    return (x & 1u) | ((y & 1u) << 1) | ((x & 2u) << 1) | ((y & 2u) << 2) | ((x & 4u) << 2) | ((y & 4u) << 3);
}

uint tiled_index(uint x, uint y, uint w)
{
    return (y & ~7u) * w + (x & ~7u) * 8u + morton(x & 7u, y & 7u);
}

void main()
{
    uint x = gl_GlobalInvocationID.x * 2u, y = gl_GlobalInvocationID.y * 2u;
    if (x >= out_width || y >= out_height) return;
    bool flip = (mode & 1u) != 0u;
    if ((mode & 2u) == 0u) { // tiled -> linear
        uvec4 q = src128[(src_base >> 4) + tiled_index(x, y, in_width) / 4u];
        uint y0 = flip ? out_height - 1u - y : y, y1 = flip ? y0 - 1u : y0 + 1u;
        dst64[(dst_base >> 3) + (y0 * out_width + x) / 2u] = q.xy;
        dst64[(dst_base >> 3) + (y1 * out_width + x) / 2u] = q.zw;
    } else { // linear -> tiled
        uvec2 a = src64[(src_base >> 3) + (y * in_width + x) / 2u];
        uvec2 b = src64[(src_base >> 3) + ((y + 1u) * in_width + x) / 2u];
        uint oy = flip ? out_height - 2u - y : y;
        if (flip) { uvec2 t = a; a = b; b = t; }
        dst128[(dst_base >> 4) + tiled_index(x, oy, out_width) / 4u] = uvec4(a, b);
    }
}
