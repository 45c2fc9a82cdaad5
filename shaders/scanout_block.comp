// LCD scan-out (PDC) in blocks: one invocation per 4 screen columns x 4
// pixels along them (image rows).  Each column's 4 pixels are one run of
// whole words in its framebuffer row, and each image row of the block one
// 16-byte store, so the rotation happens in registers.
//
// runtime/present.c runs this only where every run is whole words inside the
// bound framebuffers (present, word-aligned start, width a multiple of 4,
// not doubled RGB8) and leaves the last height % 4 image rows, and anything
// else, to scanout.comp (per pixel).  Binding 0 holds the framebuffer of the
// even columns, binding 1 that of the odd ones (the same one in modes A and
// AA), so each column reads one buffer.  Specialised per bytes per pixel,
// LUT and doubling, because CPU drivers pay for every memory access in the
// code, taken or not.
#version 460
layout(local_size_x = 8, local_size_y = 8) in;
layout(constant_id = 0) const uint BPP = 4u;     // bytes per memory pixel
layout(constant_id = 1) const bool LUT = false;  // the colour LUT is not the identity
layout(constant_id = 2) const bool DBL = false;  // every memory pixel shown twice
layout(std430, set = 0, binding = 0) readonly buffer Even { uint even[]; };
layout(std430, set = 0, binding = 1) readonly buffer Odd { uint odd[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { uvec4 image4[]; };
layout(std430, set = 0, binding = 3) readonly buffer Lut { uint lut[256]; };
layout(push_constant) uniform Push {
    uint width, height;      // output size in screen pixels (columns, rows); width % 4 == 0
    int start_even, start_odd; // byte offset of each framebuffer pointer in its binding
    uint lo_a, hi_a, lo_b, hi_b; // (not read here)
    int stride;              // bytes between memory rows (screen columns); may be <= 0
    uint fmt;                // 0 RGBA8, 1 RGB8, 2 RGB565, 3 RGB5A1, 4 RGBA4
    uint mode;               // 0: column x is row x; else row x / 2
};

uint x0, p0;

uint rd(bool odd_col, uint i)
{
    if (odd_col) return odd[i];
    return even[i];
}

// Channels as the display sees them (RGBA8 is A,B,G,R; RGB8 is B,G,R; 16-bit
// little-endian, narrow channels widened by bit replication), through the
// LUT (each channel through its own byte of the entry): 0x00BBGGRR.
uvec4 colour(uvec4 v)
{
    uvec4 r, g, b;
    if (fmt == 0u) {
        r = v >> 24; g = (v >> 16) & 0xFFu; b = (v >> 8) & 0xFFu;
    } else if (fmt == 1u) {
        r = (v >> 16) & 0xFFu; g = (v >> 8) & 0xFFu; b = v & 0xFFu;
    } else if (fmt == 2u) {
        r = v >> 11; g = (v >> 5) & 63u; b = v & 31u;
        r = (r << 3) | (r >> 2); g = (g << 2) | (g >> 4); b = (b << 3) | (b >> 2);
    } else if (fmt == 3u) {
        r = v >> 11; g = (v >> 6) & 31u; b = (v >> 1) & 31u;
        r = (r << 3) | (r >> 2); g = (g << 3) | (g >> 2); b = (b << 3) | (b >> 2);
    } else {
        r = (v >> 12) * 17u; g = ((v >> 8) & 15u) * 17u; b = ((v >> 4) & 15u) * 17u;
    }
    if (!LUT) return r | (g << 8) | (b << 16);
    return uvec4((lut[r.x] & 0xFFu) | (lut[g.x] & 0xFF00u) | (lut[b.x] & 0xFF0000u),
                 (lut[r.y] & 0xFFu) | (lut[g.y] & 0xFF00u) | (lut[b.y] & 0xFF0000u),
                 (lut[r.z] & 0xFFu) | (lut[g.z] & 0xFF00u) | (lut[b.z] & 0xFF0000u),
                 (lut[r.w] & 0xFFu) | (lut[g.w] & 0xFF00u) | (lut[b.w] & 0xFF0000u));
}

// The 4 pixels from p0 along column x0 + c.
uvec4 column(uint c)
{
    bool odd_col = (c & 1u) != 0u;
    uint x = x0 + c, row = mode == 0u ? x : x >> 1;
    int o = (odd_col ? start_odd : start_even) + int(row) * stride + int((DBL ? p0 >> 1 : p0) * BPP);
    uint i = uint(o) >> 2;
    uvec4 v;
    if (BPP == 4u) {
        v = DBL ? uvec4(rd(odd_col, i), rd(odd_col, i + 1u), 0u, 0u)
                : uvec4(rd(odd_col, i), rd(odd_col, i + 1u), rd(odd_col, i + 2u), rd(odd_col, i + 3u));
    } else if (BPP == 3u) { // never doubled here: 2 pixels of 3 bytes are not whole words
        uint w0 = rd(odd_col, i), w1 = rd(odd_col, i + 1u), w2 = rd(odd_col, i + 2u);
        v = uvec4(w0 & 0xFFFFFFu, (w0 >> 24) | ((w1 & 0xFFFFu) << 8), (w1 >> 16) | ((w2 & 0xFFu) << 16), w2 >> 8);
    } else if (DBL) {
        uint w0 = rd(odd_col, i);
        v = uvec4(w0 & 0xFFFFu, w0 >> 16, 0u, 0u);
    } else {
        uint w0 = rd(odd_col, i), w1 = rd(odd_col, i + 1u);
        v = uvec4(w0 & 0xFFFFu, w0 >> 16, w1 & 0xFFFFu, w1 >> 16);
    }
    uvec4 k = colour(v);
    return DBL ? k.xxyy : k;
}

void main()
{
    x0 = gl_GlobalInvocationID.x * 4u;
    p0 = gl_GlobalInvocationID.y * 4u;
    if (x0 >= width || p0 + 4u > height) return;
    uvec4 c0 = column(0u), c1 = column(1u), c2 = column(2u), c3 = column(3u);
    // image row y = height - 1 - p; the panels have no alpha
    uint at = ((height - 1u - p0) * width + x0) >> 2, step = width >> 2;
    image4[at] = uvec4(c0.x, c1.x, c2.x, c3.x) | 0xFF000000u;
    image4[at - step] = uvec4(c0.y, c1.y, c2.y, c3.y) | 0xFF000000u;
    image4[at - 2u * step] = uvec4(c0.z, c1.z, c2.z, c3.z) | 0xFF000000u;
    image4[at - 3u * step] = uvec4(c0.w, c1.w, c2.w, c3.w) | 0xFF000000u;
}
