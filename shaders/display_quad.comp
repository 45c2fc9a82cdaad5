// Display transfer, RGBA8 -> RGBA8 without scaling: one 4x2 pixel block per
// invocation.  Two horizontally adjacent 2x2 quads of a tile are 32
// contiguous bytes in tiled memory (their Morton indices differ only in x1)
// and two 16-byte runs in a linear one, so the common framebuffer copy moves
// only whole 16-byte vectors.  The surface cache's RGBA8 loads and
// write-backs come here too: guest RGBA8 (A,B,G,R bytes) to or from R,G,B,A
// (format 5) is a byte swap of each word.  Offsets must be multiples of 16.
// The direction is a specialisation constant: CPU drivers pay for the
// memory accesses of both sides of a branch.
#version 460
layout(local_size_x = 8, local_size_y = 8) in;
layout(constant_id = 0) const bool TO_TILED = false; // mode bit 1
layout(std430, set = 0, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dst { uvec4 dst[]; };
layout(push_constant) uniform Push {
    uint src_base, dst_base;  // byte offsets (multiples of 16) inside each binding
    uint in_width;            // input row length in pixels
    uint out_width, out_height;
    uint in_fmt, out_fmt;     // 0 (A,B,G,R bytes) or 5 (R,G,B,A): different ones swap bytes
    uint mode;                // bit 0 flip, bit 1 linear->tiled
};

uint morton(uint x, uint y)
{
    return (x & 1u) | ((y & 1u) << 1) | ((x & 2u) << 1) | ((y & 2u) << 2) | ((x & 4u) << 2) | ((y & 4u) << 3);
}

// Pixel index of (x, y) in a tiled image `w` pixels wide.
uint tiled_index(uint x, uint y, uint w)
{
    return (y & ~7u) * w + (x & ~7u) * 8u + morton(x & 7u, y & 7u);
}

uvec4 order(uvec4 v)
{
    if (in_fmt == out_fmt) return v;
    return (v << 24) | ((v & 0xFF00u) << 8) | ((v >> 8) & 0xFF00u) | (v >> 24);
}

void main()
{
    uint x = gl_GlobalInvocationID.x * 4u, y = gl_GlobalInvocationID.y * 2u;
    if (x >= out_width || y >= out_height) return;
    bool flip = (mode & 1u) != 0u;
    if (!TO_TILED) { // tiled -> linear
        uint t = (src_base >> 4) + tiled_index(x, y, in_width) / 4u;
        uvec4 q0 = order(src[t]), q1 = order(src[t + 1u]);
        uint y0 = flip ? out_height - 1u - y : y, y1 = flip ? y0 - 1u : y0 + 1u;
        dst[(dst_base >> 4) + (y0 * out_width + x) / 4u] = uvec4(q0.xy, q1.xy);
        dst[(dst_base >> 4) + (y1 * out_width + x) / 4u] = uvec4(q0.zw, q1.zw);
    } else { // linear -> tiled
        uvec4 a = order(src[(src_base >> 4) + (y * in_width + x) / 4u]);
        uvec4 b = order(src[(src_base >> 4) + ((y + 1u) * in_width + x) / 4u]);
        uint oy = flip ? out_height - 2u - y : y;
        if (flip) { uvec4 t = a; a = b; b = t; }
        uint t = (dst_base >> 4) + tiled_index(x, oy, out_width) / 4u;
        dst[t] = uvec4(a.xy, b.xy);
        dst[t + 1u] = uvec4(a.zw, b.zw);
    }
}
