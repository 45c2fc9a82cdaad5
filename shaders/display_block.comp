// Display transfer and the surface cache's tile/untile passes, one 4x2 block
// of output pixels per invocation, every load and store a whole 32-bit word.
// Pixels of 3 and 2 bytes share words with their neighbours, so a block
// moves whole words where one invocation per pixel stored byte by byte.
//
// Specialised (constant_id 0-3) per input and output bytes per pixel,
// downscale and direction, so the driver unrolls every loop, keeps the block
// in registers and compiles only the loads and stores this variant makes:
// CPU drivers (llvmpipe) predicate both sides of every branch, and each
// memory access costs a loop over the SIMD lanes even when none is active.
// Flip and the formats' bit layouts are uniform arithmetic.
//
// A 4x2 output block reads a (4 << SX) x (2 << SY) input block:
//  - tiled input: 4x2 sub-blocks, each 8 contiguous pixels (two 2x2 quads
//    adjacent in x share Morton bits y1, x2, y2), output rows linear; a flip
//    moves the rows where they are stored;
//  - linear input: one run per input row, output 8 contiguous tiled pixels;
//    a flip chooses which rows are read.
// Needs w % 4 == 0, h % 2 == 0, byte offsets and linear input rows in whole
// words (vram/convert.c picks this pipeline only then).
#version 460
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 8, local_size_y = 8) in;
layout(constant_id = 0) const uint IN_BPP = 4u; // 4, 3 or 2 bytes per input pixel
layout(constant_id = 1) const uint SCALE = 0u;  // 0 none, 1 2x1, 2 2x2
layout(constant_id = 2) const bool TO_TILED = false; // mode bit 1: linear -> tiled
layout(constant_id = 3) const uint OUT_BPP = 4u; // 4, 3 or 2 bytes per output pixel
layout(std430, set = 0, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dst { uint dst[]; };
layout(push_constant) uniform Push {
    uint src_base, dst_base;  // byte offsets (multiples of 4) inside each binding
    uint in_width;            // input row length in pixels
    uint out_width, out_height; // output size after downscale
    uint in_fmt, out_fmt;     // 0 RGBA8, 1 RGB8, 2 RGB565, 3 RGB5A1, 4 RGBA4, 5 RGBA8 as R,G,B,A bytes
    uint mode;                // bit 0 flip, bit 1 linear->tiled (TO_TILED here)
};

const uint SX = SCALE != 0u ? 1u : 0u;
const uint SY = SCALE == 2u ? 1u : 0u;
const uint BW = 4u << SX, BH = 2u << SY; // input block
const uint RUN_WORDS = 2u * IN_BPP;      // 8 pixels
const uint ROW_WORDS = BW * IN_BPP / 4u; // one linear input row of the block

uint w[32];    // the input block's words as loaded
uvec4 px[32];  // its pixels, px[row * BW + column]

uint morton(uint x, uint y)
{
    return (x & 1u) | ((y & 1u) << 1) | ((x & 2u) << 1) | ((y & 2u) << 2) | ((x & 4u) << 2) | ((y & 4u) << 3);
}

uint tiled_index(uint x, uint y, uint width)
{
    return (y & ~7u) * width + (x & ~7u) * 8u + morton(x & 7u, y & 7u);
}

// Bits of pixel k of a run starting at word `at` of w[], little-endian.
uint bits(uint at, uint k)
{
    if (IN_BPP == 4u) return w[at + k];
    if (IN_BPP == 2u) return (w[at + (k >> 1)] >> ((k & 1u) * 16u)) & 0xFFFFu;
    uint b = k * 3u, i = at + (b >> 2), s = (b & 3u) * 8u;
    return (s <= 8u ? w[i] >> s : (w[i] >> s) | (w[i + 1u] << (32u - s))) & 0xFFFFFFu;
}

// Memory byte order: RGBA8 is A,B,G,R; RGB8 is B,G,R; 16-bit is little endian;
// narrow channels widen by bit replication.
uvec4 decode(uint v)
{
    if (in_fmt == 0u) return uvec4(v >> 24, (v >> 16) & 0xFFu, (v >> 8) & 0xFFu, v & 0xFFu);
    if (in_fmt == 5u) return uvec4(v & 0xFFu, (v >> 8) & 0xFFu, (v >> 16) & 0xFFu, v >> 24);
    if (in_fmt == 1u) return uvec4(v >> 16, (v >> 8) & 0xFFu, v & 0xFFu, 255u);
    if (in_fmt == 2u) {
        uvec3 c = uvec3(v >> 11, (v >> 5) & 63u, v & 31u);
        return uvec4((c.r << 3) | (c.r >> 2), (c.g << 2) | (c.g >> 4), (c.b << 3) | (c.b >> 2), 255u);
    }
    if (in_fmt == 3u) {
        uvec3 c = uvec3(v >> 11, (v >> 6) & 31u, (v >> 1) & 31u);
        return uvec4((c << 3) | (c >> 2), (v & 1u) * 255u);
    }
    return uvec4(v >> 12, (v >> 8) & 15u, (v >> 4) & 15u, v & 15u) * 17u;
}

uint encode(uvec4 c)
{
    if (out_fmt == 0u) return (c.r << 24) | (c.g << 16) | (c.b << 8) | c.a;
    if (out_fmt == 5u) return c.r | (c.g << 8) | (c.b << 16) | (c.a << 24);
    if (out_fmt == 1u) return c.b | (c.g << 8) | (c.r << 16);
    if (out_fmt == 2u) return ((c.r >> 3) << 11) | ((c.g >> 2) << 5) | (c.b >> 3);
    if (out_fmt == 3u) return ((c.r >> 3) << 11) | ((c.g >> 3) << 6) | ((c.b >> 3) << 1) | (c.a >> 7);
    return ((c.r >> 4) << 12) | ((c.g >> 4) << 8) | ((c.b >> 4) << 4) | (c.a >> 4);
}

// Store n (4 or 8) encoded pixels as whole words from word `at` of dst.
void store_run(uint at, uint p[8], uint n)
{
    if (OUT_BPP == 4u) {
        [[unroll]] for (uint i = 0u; i < n; i++) dst[at + i] = p[i];
    } else if (OUT_BPP == 2u) {
        [[unroll]] for (uint i = 0u; i < n / 2u; i++) dst[at + i] = p[2u * i] | (p[2u * i + 1u] << 16);
    } else { // four 3-byte pixels are three words
        [[unroll]] for (uint i = 0u; i < n / 4u; i++) {
            uint a = p[4u * i], b = p[4u * i + 1u], c = p[4u * i + 2u], d = p[4u * i + 3u];
            dst[at + 3u * i] = a | (b << 24);
            dst[at + 3u * i + 1u] = (b >> 8) | (c << 16);
            dst[at + 3u * i + 2u] = (c >> 16) | (d << 8);
        }
    }
}

void main()
{
    uint bx = gl_GlobalInvocationID.x * 4u, by = gl_GlobalInvocationID.y * 2u;
    if (bx >= out_width || by >= out_height) return;
    bool flip = (mode & 1u) != 0u;
    uint ix = bx << SX, ib = src_base >> 2;
    if (!TO_TILED) {
        uint iy = by << SY;
        [[unroll]] for (uint sy = 0u; sy < BH / 2u; sy++)
            [[unroll]] for (uint sx = 0u; sx < BW / 4u; sx++) {
                uint run = sy * (BW / 4u) + sx;
                uint at = ib + tiled_index(ix + 4u * sx, iy + 2u * sy, in_width) * IN_BPP / 4u;
                [[unroll]] for (uint i = 0u; i < RUN_WORDS; i++) w[run * RUN_WORDS + i] = src[at + i];
                [[unroll]] for (uint k = 0u; k < 8u; k++) {
                    uint dx = (k & 1u) | ((k >> 1) & 2u), dy = (k >> 1) & 1u;
                    px[(2u * sy + dy) * BW + 4u * sx + dx] = decode(bits(run * RUN_WORDS, k));
                }
            }
    } else {
        [[unroll]] for (uint q = 0u; q < BH; q++) {
            uint oy = by + (q >> SY); // the output row this input row feeds
            uint iy = ((flip ? out_height - 1u - oy : oy) << SY) + (q & SY);
            uint at = ib + (iy * in_width + ix) * IN_BPP / 4u;
            [[unroll]] for (uint i = 0u; i < ROW_WORDS; i++) w[q * ROW_WORDS + i] = src[at + i];
            [[unroll]] for (uint k = 0u; k < BW; k++) px[q * BW + k] = decode(bits(q * ROW_WORDS, k));
        }
    }
    // downscale (truncating average) and encode: p[row * 4 + column]
    uint p[8];
    [[unroll]] for (uint r = 0u; r < 2u; r++)
        [[unroll]] for (uint i = 0u; i < 4u; i++) {
            uvec4 c = px[(r << SY) * BW + (i << SX)];
            if (SX != 0u) c += px[(r << SY) * BW + (i << SX) + 1u];
            if (SY != 0u) c += px[((r << SY) + 1u) * BW + (i << SX)] + px[((r << SY) + 1u) * BW + (i << SX) + 1u];
            p[r * 4u + i] = encode(c >> (SX + SY));
        }
    uint db = dst_base >> 2;
    if (!TO_TILED) {
        [[unroll]] for (uint r = 0u; r < 2u; r++) {
            uint oy = flip ? out_height - 1u - (by + r) : by + r;
            uint row[8];
            [[unroll]] for (uint i = 0u; i < 4u; i++) row[i] = p[r * 4u + i];
            store_run(db + (oy * out_width + bx) * OUT_BPP / 4u, row, 4u);
        }
    } else {
        uint run[8];
        [[unroll]] for (uint k = 0u; k < 8u; k++) run[k] = p[((k >> 1) & 1u) * 4u + ((k & 1u) | ((k >> 1) & 2u))];
        store_run(db + tiled_index(bx, by, out_width) * OUT_BPP / 4u, run, 8u);
    }
}
