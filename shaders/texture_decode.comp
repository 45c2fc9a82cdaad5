// Texture decode, uncompressed formats (vram/texture.c): one level of a PICA
// texture in guest memory -> rows `pitch` words apart (a linear image's own
// memory, or a staging buffer copied into the image).  One pipeline per
// format (specialisation constant FMT, the PICA format 0-11), one invocation
// per 8 texels.  y = 0 is the first row in memory.
//
// Layout (FACTS.md "Tiling"): 8x8 tiles, tiles row-major, texels inside a
// tile in Morton order (x in the even bits).  A texel is BITS wide and read
// as a little-endian value (4-bit texels: the even one in the low nibble).
// Eight texels in a row in memory (Morton bits x0 y0 x1) are a 4x2 block
// and a whole number of words (BITS / 4), so an invocation loads exactly
// its block's words and stores the two rows' words (OB each), every shift
// a constant: lavapipe runs a loop over the SIMD lanes for each memory
// access and both sides of every branch, so what counts is the number of
// word loads and stores, and a format known when the pipeline is made
// leaves no branches.
#version 460
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint FMT = 0u;
layout(std430, set = 0, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dst { uint dst[]; };
// The same buffers as pairs of words: lavapipe's loop over the lanes then
// moves 8 bytes per lane and step (blocks of 8-bit and wider texels are
// whole pairs; destination rows and levels start at multiples of 8 bytes)
layout(std430, set = 0, binding = 0) readonly buffer Src2 { uvec2 src2[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dst2 { uvec2 dst2[]; };
layout(push_constant) uniform Push {
    uint src_base;   // byte offset of the level inside binding 0 (a multiple of 8)
    uint dst_base;   // word offset of the level inside binding 1
    uint width;      // of the level (a multiple of 8)
    uint blocks;     // 4x2 blocks in the level
    uint row_groups; // workgroups per row of the dispatch grid
    uint pitch;      // words from one output row to the next (even, as dst_base)
};

// Guest bits per texel and image bytes per texel (vram/texture.c's table):
// RGBA8888, RGB888, RGBA5551, RGB565, RGBA4444 -> RGBA8; LA8, HILO8, LA44
// -> RG8; L8, A8, L4, A4 -> R8.
const uint BITS = FMT == 0u ? 32u : FMT == 1u ? 24u : FMT <= 6u ? 16u : FMT <= 9u ? 8u : 4u;
const uint OB = FMT <= 4u ? 4u : (FMT <= 6u || FMT == 9u) ? 2u : 1u;

// Bit replication to 8 bits: 4-bit x*17, 5-bit (x << 3) | (x >> 2), ...
uint widen(uint v, uint w)
{
    uint r = v << (8u - w);
    r |= r >> w;
    r |= r >> (2u * w);
    r |= r >> (4u * w);
    return r & 255u;
}

// The image bytes of texel value v (the 16-bit formats hold the first
// channel in the high bits; RGBA8 is stored A, B, G, R; RGB8 B, G, R).
uint texel(uint v)
{
    switch (FMT) {
    case 0u: return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
    case 1u: return ((v >> 16) & 255u) | (v & 0xFF00u) | ((v & 255u) << 16) | 0xFF000000u;
    case 2u: return widen(v >> 11, 5u) | widen((v >> 6) & 31u, 5u) << 8 | widen((v >> 1) & 31u, 5u) << 16 |
                    ((v & 1u) * 255u) << 24;
    case 3u: return widen(v >> 11, 5u) | widen((v >> 5) & 63u, 6u) << 8 | widen(v & 31u, 5u) << 16 | 0xFF000000u;
    case 4u: return (v >> 12) * 17u | ((v >> 8) & 15u) * 17u << 8 | ((v >> 4) & 15u) * 17u << 16 |
                    (v & 15u) * 17u << 24;
    case 5u: case 6u: return (v >> 8) | (v & 255u) << 8; // L/HI, A/LO
    case 9u: return (v >> 4) * 17u | (v & 15u) * 17u << 8;
    case 10u: case 11u: return v * 17u;
    default: return v; // L8, A8
    }
}

uint w[8]; // the block's guest words (BITS / 4 of them)

// Texel k (0-7) of the block, decoded: k is a constant after unrolling, so
// the word and shift are too (RGB888 texels straddle two words).
uint tex(uint k)
{
    uint bit = k * BITS, i = bit >> 5, sh = bit & 31u;
    uint v = w[i] >> sh;
    if (sh + BITS > 32u)
        v |= w[i + 1u] << (32u - sh);
    if (BITS < 32u)
        v &= (1u << BITS) - 1u;
    return texel(v);
}

void main()
{
    uint b = gl_GlobalInvocationID.x + gl_WorkGroupID.y * row_groups * 64u;
    if (b >= blocks) return;
    // block j of its tile holds Morton indices 8j..8j+7: j's bits are y1, x2, y2
    uint tile = b >> 3, j = b & 7u, tiles_x = width >> 3;
    uint x = (tile % tiles_x) * 8u + (j & 2u) * 2u, y = (tile / tiles_x) * 8u + (j & 1u) * 2u + (j & 4u);
    uint s = (src_base >> 2) + b * (BITS / 4u);
    if (BITS >= 8u)
        for (uint i = 0u; i < BITS / 8u; i++) {
            uvec2 v = src2[(s >> 1) + i];
            w[2u * i] = v.x, w[2u * i + 1u] = v.y;
        }
    else
        w[0] = src[s];
    // texel k sits at x + (k & 1) + (k >> 2) * 2, y + ((k >> 1) & 1)
    uint t0 = tex(0u), t1 = tex(1u), t2 = tex(2u), t3 = tex(3u), t4 = tex(4u), t5 = tex(5u), t6 = tex(6u),
         t7 = tex(7u);
    uint o = dst_base + y * pitch + x * OB / 4u;
    if (OB == 4u) {
        dst2[o >> 1] = uvec2(t0, t1), dst2[(o >> 1) + 1u] = uvec2(t4, t5);
        o += pitch;
        dst2[o >> 1] = uvec2(t2, t3), dst2[(o >> 1) + 1u] = uvec2(t6, t7);
    } else if (OB == 2u) {
        dst2[o >> 1] = uvec2(t0 | t1 << 16, t4 | t5 << 16);
        dst2[(o + pitch) >> 1] = uvec2(t2 | t3 << 16, t6 | t7 << 16);
    } else {
        dst[o] = t0 | t1 << 8 | t4 << 16 | t5 << 24;
        dst[o + pitch] = t2 | t3 << 8 | t6 << 16 | t7 << 24;
    }
}
