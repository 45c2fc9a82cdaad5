// Depth buffer load/store between guest memory (8x8 tiles, Morton order
// inside a tile; D16 2 bytes, D24 3 bytes, D24S8 4 bytes with the stencil in
// byte 3, little endian) and a linear buffer of D32_SFLOAT values holding
// q * 2^-24 for the integer depth q: exact in float32 for q < 2^24, so the
// Vulkan depth test compares the integers and the round trip is bit exact.
// With `stencil` set (D24S8 surfaces with a stencil aspect) the linear
// buffer continues after width*height floats with width*height stencil bytes,
// tightly packed as vkCmdCopyBufferToImage/ImageToBuffer want them for the
// stencil aspect.
//
// One invocation moves 8 pixels: Morton indices 8k..8k+7 of a tile are a 4x2
// block, so its guest bytes are whole words (4, 6 or 8), its depth two runs
// of 4 floats and its stencil two whole words.  gl_GlobalInvocationID.x is
// the block within a row of tiles (tile x * 8 + block), .y the tile row: no
// divisions.
//   mode 0 (load):  guest -> linear (and stencil).
//   mode 1 (store): linear (and stencil) -> guest; without `stencil` a D24S8
//                   store keeps the stencil byte memory holds.
#version 460
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Guest { uint guest[]; };
layout(std430, set = 0, binding = 1) buffer Linear { uint lin[]; };
layout(push_constant) uniform Push {
    uint base;    // byte offset of the depth buffer inside binding 0 (multiple of 4)
    uint width, height; // multiples of 8
    uint bpp;     // 2, 3 or 4
    uint mode;    // 0 load, 1 store
    uint stencil; // 1: stencil bytes follow the depths in binding 1
};

const float SCALE = 16777216.0; // 2^24

uint to_q(uint bits, uint maxq)
{
    return min(uint(uintBitsToFloat(bits) * SCALE), maxq);
}

void main()
{
    uint tiles_x = width >> 3, g = gl_GlobalInvocationID.x, ty = gl_GlobalInvocationID.y;
    if (g >= tiles_x * 8u || ty >= (height >> 3))
        return;
    uint tx = g >> 3, blk = g & 7u;
    // block bits are Morton bits 3-5: y1, x2, y2
    uint x = tx * 8u + ((blk & 2u) << 1), y = ty * 8u + ((blk & 1u) << 1) + (blk & 4u);
    uint gw = (base >> 2) + (((ty * tiles_x + tx) * 64u + blk * 8u) * bpp >> 2);
    uint r0 = y * width + x, r1 = r0 + width;                 // the block's two rows of floats
    uint s0 = width * height + (r0 >> 2), s1 = s0 + (width >> 2); // and of stencil words (after w*h floats)
    // pixel j of the block: Morton bits x0 y0 x1 -> (x + (j&1) + 2*(j>>2), y + ((j>>1)&1));
    // row 0 holds j = 0 1 4 5, row 1 j = 2 3 6 7
    uint q[8], s[8];
    if (mode == 0u) {
        if (bpp == 2u) {
            for (uint k = 0u; k < 4u; k++) {
                uint w = guest[gw + k];
                q[2u * k] = w & 0xFFFFu;
                q[2u * k + 1u] = w >> 16;
            }
        } else if (bpp == 3u) {
            for (uint h = 0u; h < 2u; h++) {
                uint w0 = guest[gw + 3u * h], w1 = guest[gw + 3u * h + 1u], w2 = guest[gw + 3u * h + 2u];
                q[4u * h] = w0 & 0xFFFFFFu;
                q[4u * h + 1u] = (w0 >> 24) | ((w1 & 0xFFFFu) << 8);
                q[4u * h + 2u] = (w1 >> 16) | ((w2 & 0xFFu) << 16);
                q[4u * h + 3u] = w2 >> 8;
            }
        } else {
            for (uint k = 0u; k < 8u; k++) {
                uint w = guest[gw + k];
                q[k] = w & 0xFFFFFFu;
                s[k] = w >> 24;
            }
        }
        lin[r0] = floatBitsToUint(float(q[0]) / SCALE);
        lin[r0 + 1u] = floatBitsToUint(float(q[1]) / SCALE);
        lin[r0 + 2u] = floatBitsToUint(float(q[4]) / SCALE);
        lin[r0 + 3u] = floatBitsToUint(float(q[5]) / SCALE);
        lin[r1] = floatBitsToUint(float(q[2]) / SCALE);
        lin[r1 + 1u] = floatBitsToUint(float(q[3]) / SCALE);
        lin[r1 + 2u] = floatBitsToUint(float(q[6]) / SCALE);
        lin[r1 + 3u] = floatBitsToUint(float(q[7]) / SCALE);
        if (stencil != 0u && bpp == 4u) {
            lin[s0] = s[0] | (s[1] << 8) | (s[4] << 16) | (s[5] << 24);
            lin[s1] = s[2] | (s[3] << 8) | (s[6] << 16) | (s[7] << 24);
        }
        return;
    }
    uint maxq = bpp == 2u ? 0xFFFFu : 0xFFFFFFu;
    q[0] = to_q(lin[r0], maxq);
    q[1] = to_q(lin[r0 + 1u], maxq);
    q[4] = to_q(lin[r0 + 2u], maxq);
    q[5] = to_q(lin[r0 + 3u], maxq);
    q[2] = to_q(lin[r1], maxq);
    q[3] = to_q(lin[r1 + 1u], maxq);
    q[6] = to_q(lin[r1 + 2u], maxq);
    q[7] = to_q(lin[r1 + 3u], maxq);
    if (bpp == 2u) {
        for (uint k = 0u; k < 4u; k++)
            guest[gw + k] = q[2u * k] | (q[2u * k + 1u] << 16);
    } else if (bpp == 3u) {
        for (uint h = 0u; h < 2u; h++) {
            guest[gw + 3u * h] = q[4u * h] | (q[4u * h + 1u] << 24);
            guest[gw + 3u * h + 1u] = (q[4u * h + 1u] >> 8) | (q[4u * h + 2u] << 16);
            guest[gw + 3u * h + 2u] = (q[4u * h + 2u] >> 16) | (q[4u * h + 3u] << 8);
        }
    } else {
        if (stencil != 0u) {
            uint a = lin[s0], b = lin[s1];
            s[0] = a & 0xFFu, s[1] = (a >> 8) & 0xFFu, s[4] = (a >> 16) & 0xFFu, s[5] = a >> 24;
            s[2] = b & 0xFFu, s[3] = (b >> 8) & 0xFFu, s[6] = (b >> 16) & 0xFFu, s[7] = b >> 24;
            for (uint k = 0u; k < 8u; k++)
                guest[gw + k] = q[k] | (s[k] << 24);
        } else {
            for (uint k = 0u; k < 8u; k++)
                guest[gw + k] = q[k] | (guest[gw + k] & 0xFF000000u);
        }
    }
}
