// LCD scan-out (PDC): reads one screen's linear framebuffer, stored rotated
// (each memory row is one screen column, the row's first pixel at the bottom),
// converts it to RGBA8 and writes it upright into `image`.
#version 460
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
layout(local_size_x = 8, local_size_y = 8) in;
layout(std430, set = 0, binding = 0) readonly buffer SrcA { uint8_t a8[]; };
layout(std430, set = 0, binding = 1) readonly buffer SrcB { uint8_t b8[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { uint image[]; };
layout(push_constant) uniform Push {
    uint width, height;      // output size in screen pixels (columns, rows)
    int start_a, start_b;    // byte offset of each framebuffer pointer in its binding
    uint lo_a, hi_a;         // readable byte window [lo, hi) in binding 0 (empty: missing)
    uint lo_b, hi_b;         // the same in binding 1
    int stride;              // bytes between memory rows (screen columns); may be <= 0
    uint fmt;                // 0 RGBA8, 1 RGB8, 2 RGB565, 3 RGB5A1, 4 RGBA4
    uint interlace;          // 0 A, 1 AA, 2 AB, 3 BA
    uint overscan;           // 0x00BBGGRR shown where the framebuffer is missing
    uint double_pixels;      // formats 5-7: every pixel twice along the scanline
};

bool use_b_now;
uint rd8(uint o) { return use_b_now ? uint(b8[o]) : uint(a8[o]); }

uvec4 load(uint o, uint f)
{
    if (f == 0u) return uvec4(rd8(o + 3u), rd8(o + 2u), rd8(o + 1u), rd8(o));
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

void main()
{
    uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
    if (x >= width || y >= height) return;
    // Scanline x comes from framebuffer A or B by the interlace mode; each
    // buffer's pointer advances by the stride once per scanline it supplies.
    use_b_now = interlace == 2u ? (x & 1u) == 1u : interlace == 3u ? (x & 1u) == 0u : false;
    uint line = interlace >= 2u ? x >> 1 : x;
    uint bpp = fmt == 0u ? 4u : fmt == 1u ? 3u : 2u;
    uint py = height - 1u - y;
    if (double_pixels != 0u) py >>= 1;
    int o = (use_b_now ? start_b : start_a) + int(line) * stride + int(py * bpp);
    uint lo = use_b_now ? lo_b : lo_a, hi = use_b_now ? hi_b : hi_a;
    uint color = overscan | 0xFF000000u;
    if (o >= int(lo) && uint(o) + bpp <= hi) {
        uvec4 c = load(uint(o), fmt);
        color = c.r | (c.g << 8) | (c.b << 16) | 0xFF000000u; // screens have no alpha
    }
    image[y * width + x] = color;
}
