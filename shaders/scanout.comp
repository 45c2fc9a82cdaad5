// LCD scan-out (PDC): reads one screen's linear framebuffer(s), stored rotated
// (each memory row is one screen column, the row's first pixel at the bottom),
// converts to RGBA8, applies the colour LUT and writes the image upright.
// One invocation per pixel, for what scanout_block.comp does not cover (the
// last height % 4 image rows, unaligned or missing framebuffers, odd widths,
// doubled RGB8); bytes come out of whole-word loads.
#version 460
layout(local_size_x = 8, local_size_y = 8) in;
layout(std430, set = 0, binding = 0) readonly buffer SrcA { uint a32[]; };
layout(std430, set = 0, binding = 1) readonly buffer SrcB { uint b32[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { uint image[]; };
layout(std430, set = 0, binding = 3) readonly buffer Lut { uint lut[256]; };
layout(push_constant) uniform Push {
    uint width, height;      // output size in screen pixels (columns, rows)
    int start_a, start_b;    // byte offset of each framebuffer pointer in its binding
    uint lo_a, hi_a;         // readable byte window [lo, hi) in binding 0 (empty: missing)
    uint lo_b, hi_b;         // the same in binding 1
    int stride;              // bytes between memory rows (screen columns); may be <= 0
    uint fmt;                // 0 RGBA8, 1 RGB8, 2 RGB565, 3 RGB5A1, 4 RGBA4
    uint mode;               // column -> buffer/row: 0 A, 1 AA, 2 AB, 3 BA
    uint overscan;           // 0x00BBGGRR shown where the framebuffer is missing
    uint double_pixels;      // every memory pixel shown twice along the scanline
    uint lut_identity;       // (for scanout_block.comp)
    uint y_end;              // image rows [0, y_end) are done here
};

bool use_b;
uint rd8(uint o) { return ((use_b ? b32[o >> 2] : a32[o >> 2]) >> ((o & 3u) * 8u)) & 0xFFu; }

// Bytes as the display sees them: RGBA8 is A,B,G,R; RGB8 is B,G,R; 16-bit
// formats are little-endian; narrow channels expand by bit replication.
uvec3 load(uint o)
{
    if (fmt == 0u) return uvec3(rd8(o + 3u), rd8(o + 2u), rd8(o + 1u));
    if (fmt == 1u) return uvec3(rd8(o + 2u), rd8(o + 1u), rd8(o));
    uint v = rd8(o) | (rd8(o + 1u) << 8);
    if (fmt == 2u) {
        uint r = v >> 11, g = (v >> 5) & 63u, b = v & 31u;
        return uvec3((r << 3) | (r >> 2), (g << 2) | (g >> 4), (b << 3) | (b >> 2));
    }
    if (fmt == 3u) {
        uint r = v >> 11, g = (v >> 6) & 31u, b = (v >> 1) & 31u;
        return uvec3((r << 3) | (r >> 2), (g << 3) | (g >> 2), (b << 3) | (b >> 2));
    }
    return uvec3(v >> 12, (v >> 8) & 15u, (v >> 4) & 15u) * 17u;
}

void main()
{
    uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
    if (x >= width || y >= y_end) return;
    // Each framebuffer keeps its own row pointer, advanced by the stride
    // after every scanline it supplies; AA starts both pointers at A.
    use_b = mode == 2u ? (x & 1u) == 1u : mode == 3u ? (x & 1u) == 0u : false;
    uint row = mode == 0u ? x : x >> 1;
    uint bpp = fmt == 0u ? 4u : fmt == 1u ? 3u : 2u;
    uint p = height - 1u - y; // pixel index along the memory row
    if (double_pixels != 0u) p >>= 1;
    int o = (use_b ? start_b : start_a) + int(row) * stride + int(p * bpp);
    uint lo = use_b ? lo_b : lo_a, hi = use_b ? hi_b : hi_a;
    uint color = overscan;
    if (o >= int(lo) && uint(o) + bpp <= hi) {
        uvec3 c = load(uint(o));
        // the LUT maps each channel through its own byte of the entry
        color = (lut[c.r] & 0xFFu) | (lut[c.g] & 0xFF00u) | (lut[c.b] & 0xFF0000u);
    }
    image[y * width + x] = color | 0xFF000000u; // the panels have no alpha
}
