// Texture decode (vram/texture.c): one level of a PICA texture in guest
// memory -> the linear staging layout copied into its VkImage.  One
// invocation per 32-bit output word: 1 texel (RGBA8 images), 2 (R8G8) or 4
// (R8) of one row.  Coordinates: y = 0 is the first row in memory.
//
// Guest layout (FACTS.md "Tiling", "Textures"): 8x8 tiles, tiles row-major,
// texels inside a tile in Morton order (x in the even bits); ETC1/ETC1A4:
// four 4x4 blocks per tile in order x/4 + 2*(y/4), each a little-endian u64
// equal to the standard ETC1 word, ETC1A4 with a u64 of alpha nibbles before it.
#version 460
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dst { uint dst[]; };
layout(push_constant) uniform Push {
    uint src_base;      // byte offset of the level inside binding 0 (a multiple of 8)
    uint dst_base;      // word offset of the level inside binding 1
    uint width, height; // of the level (multiples of 8)
    uint format;        // PICA texture format 0-13
    uint words_per_row;
    uint count;         // words in the level
    uint row_groups;    // workgroups per row of the dispatch grid
};

uint rd8(uint o) { return (src[o >> 2] >> ((o & 3u) * 8u)) & 0xFFu; }
uint rd16(uint o) { return (src[o >> 2] >> ((o & 2u) * 8u)) & 0xFFFFu; } // o even

uint morton(uint x, uint y)
{
    return (x & 1u) | ((y & 1u) << 1) | ((x & 2u) << 1) | ((y & 2u) << 2) | ((x & 4u) << 2) | ((y & 4u) << 3);
}

uint x5(uint v) { return (v << 3) | (v >> 2); }
uint x6(uint v) { return (v << 2) | (v >> 4); }

// ETC1 intensity modifiers per table codeword (OES_compressed_ETC1_RGB8_texture).
const int etc_mod[16] = int[](2, 8, 5, 17, 9, 29, 13, 42, 18, 60, 24, 80, 33, 106, 47, 183);

uvec4 etc(uint x, uint y, bool a4)
{
    uint tile = (y >> 3) * (width >> 3) + (x >> 3);
    uint o = src_base + (tile * 4u + ((x & 7u) >> 2) + 2u * ((y & 7u) >> 2)) * (a4 ? 16u : 8u);
    uint px = x & 3u, py = y & 3u, i = px * 4u + py; // pixel index inside the block
    uint alpha = 255u;
    if (a4) {
        alpha = ((src[(o >> 2) + (i >> 3)] >> ((i & 7u) * 4u)) & 15u) * 17u;
        o += 8u;
    }
    uint lo = src[o >> 2], hi = src[(o >> 2) + 1u]; // hi: bits 63-32 of the ETC1 word
    bool second = (hi & 1u) != 0u ? py >= 2u : px >= 2u; // flip bit: 4x2 subblocks, else 2x4
    uvec3 base;
    if ((hi & 2u) != 0u) { // differential: 5-bit base, 3-bit signed delta for subblock 2
        uvec3 c = uvec3(hi >> 27, (hi >> 19) & 31u, (hi >> 11) & 31u);
        if (second) {
            ivec3 d = ivec3((uvec3(hi >> 24, hi >> 16, hi >> 8)) & 7u);
            d -= (d & 4) << 1;
            // the spec leaves sums outside 0-31 undefined: a 5-bit adder wraps
            c = uvec3(ivec3(c) + d) & 31u;
        }
        base = (c << 3) | (c >> 2);
    } else { // individual: two 4-bit colours
        uint s = second ? 24u : 28u;
        base = uvec3((hi >> s) & 15u, (hi >> (s - 8u)) & 15u, (hi >> (s - 16u)) & 15u) * 17u;
    }
    uint table = second ? (hi >> 2) & 7u : (hi >> 5) & 7u;
    int m = etc_mod[table * 2u + ((lo >> i) & 1u)];
    if (((lo >> (16u + i)) & 1u) != 0u) m = -m;
    return uvec4(clamp(ivec3(base) + m, 0, 255), alpha);
}

// Texel (x, y) as the image stores it: RGBA8 formats all four channels; LA8,
// HILO8, LA44 two (r, g); L8, A8, L4, A4 one (r).  Memory byte order: RGBA8
// is A,B,G,R; RGB8 B,G,R; 16-bit formats little-endian with the first
// channel in the high bits (LA8: L high, A low; HILO8: HI high, LO low).
uvec4 texel(uint x, uint y)
{
    uint f = format;
    if (f >= 12u) return etc(x, y, f == 13u);
    uint idx = (y & ~7u) * width + (x & ~7u) * 8u + morton(x & 7u, y & 7u);
    if (f == 0u) {
        uint v = src[(src_base >> 2) + idx];
        return uvec4(v >> 24, (v >> 16) & 255u, (v >> 8) & 255u, v & 255u);
    }
    if (f == 1u) {
        uint o = src_base + idx * 3u;
        return uvec4(rd8(o + 2u), rd8(o + 1u), rd8(o), 255u);
    }
    if (f <= 6u) {
        uint v = rd16(src_base + idx * 2u);
        if (f == 2u) return uvec4(x5(v >> 11), x5((v >> 6) & 31u), x5((v >> 1) & 31u), (v & 1u) * 255u);
        if (f == 3u) return uvec4(x5(v >> 11), x6((v >> 5) & 63u), x5(v & 31u), 255u);
        if (f == 4u) return uvec4(v >> 12, (v >> 8) & 15u, (v >> 4) & 15u, v & 15u) * 17u;
        return uvec4(v >> 8, v & 255u, 0u, 0u); // LA8 (L, A), HILO8 (HI, LO)
    }
    if (f <= 8u) return uvec4(rd8(src_base + idx), 0u, 0u, 0u); // L8, A8
    if (f == 9u) {
        uint b = rd8(src_base + idx);
        return uvec4((b >> 4) * 17u, (b & 15u) * 17u, 0u, 0u); // LA44: L high nibble
    }
    // L4, A4: two texels a byte, the even one in the low nibble
    return uvec4(((rd8(src_base + (idx >> 1)) >> ((idx & 1u) * 4u)) & 15u) * 17u, 0u, 0u, 0u);
}

void main()
{
    uint id = gl_GlobalInvocationID.x + gl_WorkGroupID.y * row_groups * 64u;
    if (id >= count) return;
    uint y = id / words_per_row, xw = id % words_per_row;
    uint f = format;
    uint per = f <= 4u || f >= 12u ? 1u : f == 5u || f == 6u || f == 9u ? 2u : 4u;
    uint word = 0u;
    if (per == 1u) {
        uvec4 c = texel(xw, y);
        word = c.r | (c.g << 8) | (c.b << 16) | (c.a << 24);
    } else if (per == 2u) {
        for (uint i = 0u; i < 2u; i++) {
            uvec4 c = texel(xw * 2u + i, y);
            word |= (c.r | (c.g << 8)) << (16u * i);
        }
    } else {
        for (uint i = 0u; i < 4u; i++)
            word |= texel(xw * 4u + i, y).r << (8u * i);
    }
    dst[dst_base + id] = word;
}
