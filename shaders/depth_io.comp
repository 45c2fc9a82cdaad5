// Depth buffer load/store between guest memory (8x8 tiles, Morton order
// inside a tile; D16 2 bytes, D24 3 bytes, D24S8 4 bytes with the stencil in
// byte 3, little endian) and a linear buffer of D32_SFLOAT values holding
// q * 2^-24 for the integer depth q: exact in float32 for q < 2^24, so the
// Vulkan depth test compares the integers and the round trip is bit exact.
//   mode 0 (load): one invocation per pixel, guest -> linear.
//   mode 1 (store): one invocation per guest word, linear -> guest; bytes of
//   the word that belong to a stencil are kept.
#version 460
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Guest { uint guest[]; };
layout(std430, set = 0, binding = 1) buffer Linear { uint lin[]; };
layout(push_constant) uniform Push {
    uint base;   // byte offset of the depth buffer inside binding 0 (multiple of 4)
    uint width, height;
    uint bpp;    // 2, 3 or 4
    uint mode;   // 0 load, 1 store
    uint count;  // invocations that do work: pixels (load) or words (store)
};

const float SCALE = 16777216.0; // 2^24

uint rd8(uint o) { return (guest[o >> 2] >> ((o & 3u) * 8u)) & 0xFFu; }

uint morton(uint x, uint y)
{
    return (x & 1u) | ((y & 1u) << 1) | ((x & 2u) << 1) | ((y & 2u) << 2) | ((x & 4u) << 2) | ((y & 4u) << 3);
}

// Depth integer of tiled pixel index p from the linear buffer.
uint depth_of(uint p)
{
    uint tile = p >> 6, m = p & 63u, tiles_x = width >> 3;
    uint x = (tile % tiles_x) * 8u + ((m & 1u) | ((m >> 1) & 2u) | ((m >> 2) & 4u));
    uint y = (tile / tiles_x) * 8u + (((m >> 1) & 1u) | ((m >> 2) & 2u) | ((m >> 3) & 4u));
    uint q = uint(uintBitsToFloat(lin[y * width + x]) * SCALE);
    uint maxq = bpp == 2u ? 0xFFFFu : 0xFFFFFFu;
    return min(q, maxq);
}

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= count)
        return;
    if (mode == 0u) {
        uint x = i % width, y = i / width;
        uint o = base + ((y & ~7u) * width + (x & ~7u) * 8u + morton(x & 7u, y & 7u)) * bpp;
        uint q = rd8(o) | (rd8(o + 1u) << 8);
        if (bpp != 2u)
            q |= rd8(o + 2u) << 16;
        lin[i] = floatBitsToUint(float(q) / SCALE);
        return;
    }
    uint word = guest[(base >> 2) + i], outw = 0u;
    for (uint b = 0u; b < 4u; b++) {
        uint byte_index = i * 4u + b, j = byte_index % bpp;
        uint v = j == 3u ? (word >> (b * 8u)) & 0xFFu : (depth_of(byte_index / bpp) >> (j * 8u)) & 0xFFu;
        outw |= v << (b * 8u);
    }
    guest[(base >> 2) + i] = outw;
}
