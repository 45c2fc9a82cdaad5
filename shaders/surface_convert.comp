// Passes that read a surface's pixels (copied out of its image into a linear
// 1x buffer: RGBA8 as R, G, B, A bytes, or D32 bits holding q * 2^-24)
// without writing them back to guest memory first.  Each pixel goes through
// the guest bytes it would be written back as (the transfer engine's packing
// for colour, depth_io's for depth), so the results equal a write-back
// followed by what reads memory next.
//   op 0, display transfer: one invocation per output pixel; the input is a
//     whole colour surface (tiled in memory, so its linear copy needs no
//     untiling), the output linear in guest memory: format conversion,
//     vertical flip, 2x1 / 2x2 box downscale as display_transfer.comp.
//     Mode bit 4: the output is the scaled copy the LCD shows (vram/surface.c
//     "shown images"): pixels as R, G, B, A bytes after the round trip
//     through the output format, rows `width` pixels, at guest_base.
//   op 1, reinterpretation: one invocation per pixel, in place: the pixel as
//     guest bytes of the old format, read back as the new format (a load).
//     D24S8's stencil byte comes from and goes to the stencil aspect's copy
//     after the w*h depth words of binding 0 (flags bits 1 and 2); without a
//     stencil aspect it stays in guest memory: an old D24S8 reads it from
//     there, a new D24S8 writes it there (flags bit 0).
#version 460
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
layout(local_size_x = 8, local_size_y = 8) in;
layout(std430, set = 0, binding = 0) buffer Lin { uint lin[]; };
layout(std430, set = 0, binding = 0) buffer LinB { uint8_t lin8[]; };
layout(std430, set = 0, binding = 1) buffer GuestB { uint8_t g8[]; };
layout(std430, set = 0, binding = 1) buffer GuestW { uint g32[]; };
layout(push_constant) uniform Push {
    uint op;          // 0 display transfer, 1 reinterpretation
    uint width, height; // op 0: output size after downscale; op 1: surface size
    uint src_width;   // op 0: surface width (row length of lin)
    uint src_fmt;     // surface format: 0-4 colour (transfer codes), 8 + DEPTHBUFFER_FORMAT for depth
    uint dst_fmt;     // op 0: output format 0-4; op 1: the new surface's format, coded as src_fmt
    uint mode;        // op 0: bit 0 flip, bits 2-3 downscale (0, 1 = 2x1, 2 = 2x2), bit 4 shown copy
    uint guest_base;  // byte offset in binding 1: op 0 the output, op 1 the surface (stencil bytes)
    uint flags;       // op 1: bit 0 store a new D24S8's stencil byte in guest memory; bit 1 the old
                      // D24S8's stencil is in binding 0 after the depth, bit 2 the new one's goes there
};

const float SCALE = 16777216.0; // 2^24, as depth_io.comp

uint bpp(uint f) { return f == 0u ? 4u : f == 1u ? 3u : 2u; }

uint morton(uint x, uint y)
{
    return (x & 1u) | ((y & 1u) << 1) | ((x & 2u) << 1) | ((y & 2u) << 2) | ((x & 4u) << 2) | ((y & 4u) << 3);
}

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
    if ((mode & 16u) != 0u) {
        uvec4 q = unpack_color(pack_color(c, dst_fmt), dst_fmt);
        g32[(guest_base >> 2) + oy * width + x] = q.r | (q.g << 8) | (q.b << 16) | (q.a << 24);
        return;
    }
    store(guest_base + (oy * width + x) * bpp(dst_fmt), dst_fmt, c);
}

void reinterpret()
{
    uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
    if (x >= width || y >= height) return;
    uint i = y * width + x;
    uint word = (guest_base >> 2) + (y & ~7u) * width + (x & ~7u) * 8u + morton(x & 7u, y & 7u);
    uint v = lin[i], bits;
    if (src_fmt >= 8u) { // depth_io's store: truncate, clamp
        uint q = min(uint(uintBitsToFloat(v) * SCALE), src_fmt == 8u ? 0xFFFFu : 0xFFFFFFu);
        uint s8 = (flags & 2u) != 0u ? uint(lin8[width * height * 4u + i]) : g32[word] >> 24;
        bits = src_fmt == 11u ? q | (s8 << 24) : q;
    } else {
        bits = pack_color(natural(v), src_fmt);
    }
    if (dst_fmt >= 8u) { // depth_io's load
        lin[i] = floatBitsToUint(float(bits & (dst_fmt == 8u ? 0xFFFFu : 0xFFFFFFu)) / SCALE);
        if (dst_fmt == 11u && (flags & 4u) != 0u)
            lin8[width * height * 4u + i] = uint8_t(bits >> 24);
        else if (dst_fmt == 11u && (flags & 1u) != 0u)
            g32[word] = (g32[word] & 0x00FFFFFFu) | (bits & 0xFF000000u);
    } else {
        uvec4 c = unpack_color(bits, dst_fmt);
        lin[i] = c.r | (c.g << 8) | (c.b << 16) | (c.a << 24);
    }
}

void main()
{
    if (op == 0u)
        display_transfer();
    else
        reinterpret();
}
