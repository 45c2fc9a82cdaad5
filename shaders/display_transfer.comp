// Display transfer (memcopy with flags bit 3 clear), one invocation per
// output pixel: tiled <-> linear (8x8 tiles, Morton order inside a tile),
// format conversion, vertical flip, 2x1 / 2x2 box downscale.  Only for
// sizes display_block.comp's 4x2 blocks do not cover (surfaces whose width
// is not a multiple of 4); every transfer runs in blocks.
#version 460
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
layout(local_size_x = 8, local_size_y = 8) in;
layout(std430, set = 0, binding = 0) readonly buffer SrcB { uint8_t src8[]; };
layout(std430, set = 0, binding = 0) readonly buffer SrcW { uint src32[]; };
layout(std430, set = 0, binding = 1) writeonly buffer DstB { uint8_t dst8[]; };
layout(std430, set = 0, binding = 1) writeonly buffer DstW { uint dst32[]; };
layout(push_constant) uniform Push {
    uint src_base, dst_base;  // byte offsets of the transfer inside each binding
    uint in_width;            // input row length in pixels (includes the gap)
    uint out_width, out_height; // output size after downscale
    uint in_fmt, out_fmt;     // 0 RGBA8, 1 RGB8, 2 RGB565, 3 RGB5A1, 4 RGBA4;
                              // 5 RGBA8 in R, G, B, A byte order (draw attachments, not a guest format)
    uint mode;                // bit 0 flip, bit 1 linear->tiled, bits 2-3 scale (0, 1 = 2x1, 2 = 2x2)
};

uint bpp(uint f) { return f == 0u || f == 5u ? 4u : f == 1u ? 3u : 2u; }

// Interleave x0 y0 x1 y1 x2 y2 (x in the even bits).
uint morton(uint x, uint y)
{
    return (x & 1u) | ((y & 1u) << 1) | ((x & 2u) << 1) | ((y & 2u) << 2) | ((x & 4u) << 2) | ((y & 4u) << 3);
}

// Pixel index of (x, y) in an image `w` pixels wide, tiled or linear.
uint pixel_index(uint x, uint y, uint w, bool tiled)
{
    if (!tiled) return y * w + x;
    return (y & ~7u) * w + (x & ~7u) * 8u + morton(x & 7u, y & 7u);
}

uint rd8(uint o) { return uint(src8[o]); }

// Memory byte order: RGBA8 is A,B,G,R; RGB8 is B,G,R; 16-bit is little endian.
uvec4 load(uint o, uint f)
{
    if (f == 5u) { // only ever 4-byte aligned (draw staging buffers)
        uint v = src32[o >> 2];
        return uvec4(v & 0xFFu, (v >> 8) & 0xFFu, (v >> 16) & 0xFFu, v >> 24);
    }
    if (f == 0u) {
        uint v = (o & 3u) == 0u ? src32[o >> 2] : rd8(o) | (rd8(o + 1u) << 8) | (rd8(o + 2u) << 16) | (rd8(o + 3u) << 24);
        return uvec4(v >> 24, (v >> 16) & 0xFFu, (v >> 8) & 0xFFu, v & 0xFFu);
    }
    if (f == 1u) return uvec4(rd8(o + 2u), rd8(o + 1u), rd8(o), 255u);
    uint v = rd8(o) | (rd8(o + 1u) << 8);
    if (f == 2u) {
        uint r = v >> 11, g = (v >> 5) & 63u, b = v & 31u;
        return uvec4((r << 3) | (r >> 2), (g << 2) | (g >> 4), (b << 3) | (b >> 2), 255u);
    }
    if (f == 3u) {
        uint r = v >> 11, g = (v >> 6) & 31u, b = (v >> 1) & 31u;
        return uvec4((r << 3) | (r >> 2), (g << 3) | (g >> 2), (b << 3) | (b >> 2), (v & 1u) * 255u);
    }
    return uvec4(v >> 12, (v >> 8) & 15u, (v >> 4) & 15u, v & 15u) * 17u;
}

void store(uint o, uint f, uvec4 c)
{
    if (f == 5u) { dst32[o >> 2] = c.r | (c.g << 8) | (c.b << 16) | (c.a << 24); return; }
    if (f == 0u) {
        uint v = (c.r << 24) | (c.g << 16) | (c.b << 8) | c.a;
        if ((o & 3u) == 0u) { dst32[o >> 2] = v; return; }
        dst8[o] = uint8_t(v); dst8[o + 1u] = uint8_t(v >> 8); dst8[o + 2u] = uint8_t(v >> 16); dst8[o + 3u] = uint8_t(v >> 24);
        return;
    }
    if (f == 1u) { dst8[o] = uint8_t(c.b); dst8[o + 1u] = uint8_t(c.g); dst8[o + 2u] = uint8_t(c.r); return; }
    uint v;
    if (f == 2u) v = ((c.r >> 3) << 11) | ((c.g >> 2) << 5) | (c.b >> 3);
    else if (f == 3u) v = ((c.r >> 3) << 11) | ((c.g >> 3) << 6) | ((c.b >> 3) << 1) | (c.a >> 7);
    else v = ((c.r >> 4) << 12) | ((c.g >> 4) << 8) | ((c.b >> 4) << 4) | (c.a >> 4);
    dst8[o] = uint8_t(v); dst8[o + 1u] = uint8_t(v >> 8);
}

void main()
{
    uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
    if (x >= out_width || y >= out_height) return;
    bool to_tiled = (mode & 2u) != 0u;
    uint scale = (mode >> 2) & 3u;
    uint sx = scale != 0u ? 1u : 0u, sy = scale == 2u ? 1u : 0u;
    uint ix = x << sx, iy = y << sy;
    uint ib = bpp(in_fmt);
    uvec4 c = load(src_base + pixel_index(ix, iy, in_width, !to_tiled) * ib, in_fmt);
    if (sx != 0u) c += load(src_base + pixel_index(ix + 1u, iy, in_width, !to_tiled) * ib, in_fmt);
    if (sy != 0u) {
        c += load(src_base + pixel_index(ix, iy + 1u, in_width, !to_tiled) * ib, in_fmt);
        c += load(src_base + pixel_index(ix + 1u, iy + 1u, in_width, !to_tiled) * ib, in_fmt);
    }
    c >>= uvec4(sx + sy); // truncating average
    uint oy = (mode & 1u) != 0u ? out_height - 1u - y : y;
    store(dst_base + pixel_index(x, oy, out_width, to_tiled) * bpp(out_fmt), out_fmt, c);
}
