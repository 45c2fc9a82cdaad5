// Texture decode, ETC1 and ETC1A4 (vram/texture.c): one invocation per 4x4
// block, in memory order, writing its 16 texels as RGBA8 words into rows
// `pitch` words apart (a linear image's memory, or a staging buffer).  y = 0 is the first row in memory.
//
// Layout (FACTS.md "Textures"): four 4x4 blocks per 8x8 tile in order
// x/4 + 2*(y/4), tiles row-major; each block a little-endian u64 equal to the
// standard ETC1 word; ETC1A4 puts a u64 of alpha nibbles before each block
// (the nibble of texel (x, y) at index x*4 + y, expanded x*17).  The ETC1
// word per Khronos OES_compressed_ETC1_RGB8_texture.
#version 460
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dst { uint dst[]; };
layout(push_constant) uniform Push {
    uint src_base;   // byte offset of the level inside binding 0 (a multiple of 8)
    uint dst_base;   // word offset of the level inside binding 1
    uint width;      // of the level (a multiple of 8)
    uint blocks;     // 4x4 blocks in the level
    uint row_groups; // workgroups per row of the dispatch grid
    uint a4;         // 1: ETC1A4
    uint pitch;      // words from one output row to the next
    uint pad;
};

// Intensity modifiers (a, b) per table codeword; pixel index 0..3 adds +a, +b, -a, -b.
const int etc_mod[16] = int[](2, 8, 5, 17, 9, 29, 13, 42, 18, 60, 24, 80, 33, 106, 47, 183);

void main()
{
    uint b = gl_GlobalInvocationID.x + gl_WorkGroupID.y * row_groups * 64u;
    if (b >= blocks) return;
    uint tile = b >> 2, tiles_x = width >> 3;
    uint x0 = (tile % tiles_x) * 8u + (b & 1u) * 4u, y0 = (tile / tiles_x) * 8u + ((b >> 1) & 1u) * 4u;
    uint o = (src_base >> 2) + b * (2u + 2u * a4);
    uint alpha_lo = 0xFFFFFFFFu, alpha_hi = 0xFFFFFFFFu;
    if (a4 != 0u) {
        alpha_lo = src[o];
        alpha_hi = src[o + 1u];
        o += 2u;
    }
    uint lo = src[o], hi = src[o + 1u]; // hi: bits 63-32 of the ETC1 word
    bool flip = (hi & 1u) != 0u;
    // base colours of subblocks 1 and 2
    uvec3 c1, c2;
    if ((hi & 2u) != 0u) { // differential: 5-bit base, 3-bit two's-complement delta
        uvec3 c = uvec3(hi >> 27, (hi >> 19) & 31u, (hi >> 11) & 31u);
        ivec3 d = ivec3(uvec3(hi >> 24, hi >> 16, hi >> 8) & 7u);
        d -= (d & 4) << 1;
        // the specification leaves sums outside 0..31 undefined: a 5-bit adder wraps
        uvec3 e = uvec3(ivec3(c) + d) & 31u;
        c1 = (c << 3) | (c >> 2);
        c2 = (e << 3) | (e >> 2);
    } else { // individual: two 4-bit colours
        c1 = uvec3(hi >> 28, (hi >> 20) & 15u, (hi >> 12) & 15u) * 17u;
        c2 = uvec3((hi >> 24) & 15u, (hi >> 16) & 15u, (hi >> 8) & 15u) * 17u;
    }
    uint t1 = ((hi >> 5) & 7u) * 2u, t2 = ((hi >> 2) & 7u) * 2u;
    for (uint i = 0u; i < 16u; i++) { // pixel index i = x*4 + y
        uint px = i >> 2, py = i & 3u;
        bool second = flip ? py >= 2u : px >= 2u;
        int m = etc_mod[(second ? t2 : t1) + ((lo >> i) & 1u)];
        if (((lo >> (16u + i)) & 1u) != 0u) m = -m;
        uvec3 rgb = uvec3(clamp(ivec3(second ? c2 : c1) + m, 0, 255));
        uint a = (((i < 8u ? alpha_lo : alpha_hi) >> ((i & 7u) * 4u)) & 15u) * 17u;
        dst[dst_base + (y0 + py) * pitch + x0 + px] = rgb.r | (rgb.g << 8) | (rgb.b << 16) | (a << 24);
    }
}
