// Passes that read a surface's pixels (copied out of its image into a linear
// 1x buffer: RGBA8 as R, G, B, A bytes) without writing them back to guest
// memory first.  Each pixel goes through the guest bytes it would be written
// back as (the transfer engine's packing), so the results equal a write-back
// followed by what reads memory next.
//   op 0, display transfer: one invocation per output pixel; the input is a
//     whole colour surface (tiled in memory, so its linear copy needs no
//     untiling), the output linear in guest memory: format conversion,
//     vertical flip, 2x1 / 2x2 box downscale as display_transfer.comp.
#version 460
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
layout(local_size_x = 8, local_size_y = 8) in;
layout(std430, set = 0, binding = 0) buffer Lin { uint lin[]; };
layout(std430, set = 0, binding = 1) buffer GuestB { uint8_t g8[]; };
layout(std430, set = 0, binding = 1) buffer GuestW { uint g32[]; };
layout(push_constant) uniform Push {
    uint op;          // 0 display transfer
    uint width, height; // output size after downscale
    uint src_width;   // surface width (row length of lin)
    uint src_fmt;     // surface format 0-4 (transfer codes)
    uint dst_fmt;     // output format 0-4
    uint mode;        // bit 0 flip, bits 2-3 downscale (0, 1 = 2x1, 2 = 2x2)
    uint guest_base;  // byte offset of the output in binding 1
    uint flags;       // unused by op 0
};

uint bpp(uint f) { return f == 0u ? 4u : f == 1u ? 3u : 2u; }

uvec4 natural(uint v) { return uvec4(v & 0xFFu, (v >> 8) & 0xFFu, (v >> 16) & 0xFFu, v >> 24); }

// Colour -> the guest bytes of one pixel as a little-endian word
// (display_transfer.comp's store: RGBA8 is A,B,G,R; RGB8 B,G,R).
uint pack_color(uvec4 c, uint f)
{
    if (f == 0u) return (c.r << 24) | (c.g << 16) | (c.b << 8) | c.a;
    if (f == 1u) return c.b | (c.g << 8) | (c.r << 16);
    if (f == 2u) return ((c.r >> 3) << 11) | ((c.g >> 2) << 5) | (c.b >> 3);
    if (f == 3u) return ((c.r >> 3) << 11) | ((c.g >> 3) << 6) | ((c.b >> 3) << 1) | (c.a >> 7);
    return ((c.r >> 4) << 12) | ((c.g >> 4) << 8) | ((c.b >> 4) << 4) | (c.a >> 4);
}

// The guest bytes of one pixel -> colour (display_transfer.comp's load).
uvec4 unpack_color(uint v, uint f)
{
    if (f == 0u) return uvec4(v >> 24, (v >> 16) & 0xFFu, (v >> 8) & 0xFFu, v & 0xFFu);
    if (f == 1u) return uvec4((v >> 16) & 0xFFu, (v >> 8) & 0xFFu, v & 0xFFu, 255u);
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
    uint v = pack_color(c, f);
    if (f == 0u && (o & 3u) == 0u) { g32[o >> 2] = v; return; }
    for (uint i = 0u; i < bpp(f); i++)
        g8[o + i] = uint8_t(v >> (8u * i));
}

void display_transfer()
{
    uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
    if (x >= width || y >= height) return;
    uint scale = (mode >> 2) & 3u;
    uint sx = scale != 0u ? 1u : 0u, sy = scale == 2u ? 1u : 0u;
    uint i = (y << sy) * src_width + (x << sx);
    // each input pixel as the surface's format holds it in memory
    uvec4 c = unpack_color(pack_color(natural(lin[i]), src_fmt), src_fmt);
    if (sx != 0u) c += unpack_color(pack_color(natural(lin[i + 1u]), src_fmt), src_fmt);
    if (sy != 0u) {
        c += unpack_color(pack_color(natural(lin[i + src_width]), src_fmt), src_fmt);
        c += unpack_color(pack_color(natural(lin[i + src_width + 1u]), src_fmt), src_fmt);
    }
    c >>= uvec4(sx + sy); // truncating average
    uint oy = (mode & 1u) != 0u ? height - 1u - y : y;
    store(guest_base + (oy * width + x) * bpp(dst_fmt), dst_fmt, c);
}

void main()
{
    if (op == 0u)
        display_transfer();
}
