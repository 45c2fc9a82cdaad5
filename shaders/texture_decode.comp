// Texture decode, uncompressed formats (vram/texture.c): one level of a PICA
// texture in guest memory -> rows `pitch` words apart (a linear image's own
// memory, or a staging buffer copied into the image).  One invocation per 8x8 tile, writing 32-bit words of 1 texel
// (RGBA8 images), 2 (R8G8) or 4 (R8).  y = 0 is the first row in memory.
//
// Layout (FACTS.md "Tiling"): 8x8 tiles, tiles row-major, texels inside a
// tile in Morton order (x in the even bits).  A texel is `bits` wide and read
// as a little-endian value (4-bit texels: the even one in the low nibble); the
// format is a table pushed by vram/texture.c (which channel sits at which
// bits), not a switch here: lavapipe runs every branch of a switch for every
// invocation, so one straight path serves all twelve formats.
#version 460
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dst { uint dst[]; };
layout(push_constant) uniform Push {
    uint src_base;      // byte offset of the level inside binding 0 (a multiple of 8)
    uint dst_base;      // word offset of the level inside binding 1
    uint width;         // of the level (a multiple of 8)
    uint words_per_row; // of the image level
    uint tiles;         // 8x8 tiles in the level
    uint row_groups;    // workgroups per row of the dispatch grid
    uint bits;          // guest bits per texel: 4, 8, 16, 24, 32
    uint src_last;      // last word of binding 0 (the second word of a straddling texel stops there)
    uint chan[4];       // output channel c: bits 0-7 shift, 8-15 width (0: constant), 16-23 constant
    uint pitch;         // words from one output row to the next
};

uint morton(uint x, uint y)
{
    return (x & 1u) | ((y & 1u) << 1) | ((x & 2u) << 1) | ((y & 2u) << 2) | ((x & 4u) << 2) | ((y & 4u) << 3);
}

// Bit replication to 8 bits (w = 1..8): 4-bit x*17, 5-bit (x << 3) | (x >> 2), ...
uint widen(uint v, uint w)
{
    uint r = v << (8u - w);
    r |= r >> w;
    r |= r >> (2u * w);
    r |= r >> (4u * w);
    return r & 255u;
}

uint channel(uint v, uint c)
{
    uint d = chan[c], w = (d >> 8) & 255u;
    return w == 0u ? (d >> 16) & 255u : widen((v >> (d & 255u)) & ((1u << w) - 1u), w);
}

// The raw texel value `bit` bits into the level.
uint raw(uint bit)
{
    uint o = src_base + (bit >> 3);
    uint word = o >> 2, sh = (o & 3u) * 8u + (bit & 7u);
    uint v = src[word] >> sh;
    if (sh + bits > 32u) // only RGB888 texels straddle two words
        v |= src[min(word + 1u, src_last)] << (32u - sh);
    return v;
}

void main()
{
    uint t = gl_GlobalInvocationID.x + gl_WorkGroupID.y * row_groups * 64u;
    if (t >= tiles) return;
    uint tiles_x = width >> 3, tile_bit = t * 64u * bits;
    // texels per word and channels per texel: 1 x 4 (RGBA8), 2 x 2 (R8G8), 4 x 1 (R8).
    // Loops with uniform counts, not branches: lavapipe runs both sides of an if, but
    // a loop only as often as it goes round; push constants read with constant indices.
    uint per = width / words_per_row, chans = 4u / per;
    uvec4 d = uvec4(chan[0], chan[1], chan[2], chan[3]);
    uvec4 w = (d >> 8) & 255u, sh = d & 255u, k = (d >> 16) & 255u;
    uvec4 mask = (uvec4(1u) << w) - 1u;
    uint out_row = dst_base + (t / tiles_x) * 8u * pitch + (t % tiles_x) * (8u / per);
    for (uint y = 0u; y < 8u; y++, out_row += pitch)
        for (uint xw = 0u; xw < 8u / per; xw++) {
            uint word = 0u;
            for (uint i = 0u; i < per; i++) {
                uint v = raw(tile_bit + morton(xw * per + i, y) * bits);
                for (uint c = 0u; c < chans; c++) {
                    // channel c without indexing: select its descriptor
                    uint cw = c == 0u ? w.x : c == 1u ? w.y : c == 2u ? w.z : w.w;
                    uint cs = c == 0u ? sh.x : c == 1u ? sh.y : c == 2u ? sh.z : sh.w;
                    uint cm = c == 0u ? mask.x : c == 1u ? mask.y : c == 2u ? mask.z : mask.w;
                    uint ck = c == 0u ? k.x : c == 1u ? k.y : c == 2u ? k.z : k.w;
                    uint val = cw == 0u ? ck : widen((v >> cs) & cm, cw);
                    word |= val << (8u * (i * chans + c));
                }
            }
            dst[out_row + xw] = word;
        }
}
