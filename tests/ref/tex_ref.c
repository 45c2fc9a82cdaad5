/* The reference texture decoder (see tex_ref.h).  Sources, format by format:
 * - Layout (FACTS.md "Tiling"): 8x8 tiles, row-major; inside a tile the
 *   texel index interleaves x0 y0 x1 y1 x2 y2 (x in the even bits).
 * - Byte order (FACTS.md, 3dbrew): RGBA8 bytes A, B, G, R; RGB8 B, G, R;
 *   16-bit formats a little-endian u16 with the first channel in the high
 *   bits (RGBA5551 RRRRRGGGGGBBBBBA, RGB565, RGBA4444, LA8 = L << 8 | A,
 *   HILO8 = HI << 8 | LO); LA44 L in the high nibble; L4/A4 two texels a
 *   byte, the even texel index in the low nibble.
 * - ETC1 (FACTS.md "Textures"): four 4x4 blocks per tile in order
 *   x/4 + 2*(y/4), each block a little-endian u64 holding the standard
 *   ETC1 word; ETC1A4 puts a u64 of alpha nibbles before each block, the
 *   nibble of texel (x, y) at index x*4 + y.
 * - ETC1 word (Khronos OES_compressed_ETC1_RGB8_texture, section 3.9.2):
 *   bit 33 diff, bit 32 flip, bits 39-37 / 36-34 table codewords of
 *   subblocks 1 / 2, bits 63-40 the base colours (individual: 4+4 bits per
 *   channel; differential: 5-bit base and 3-bit two's-complement delta),
 *   pixel index of texel (x, y) = x*4 + y: MSB at bit 16 + index, LSB at bit
 *   index; index 0..3 adds +a, +b, -a, -b of the table row; clamp to 0..255.
 *   The specification leaves a base + delta outside 0..31 undefined; picavk
 *   takes it modulo 32 (a 5-bit adder; not measured on hardware). */
#include "tex_ref.h"

static const unsigned bits_per_texel[14] = {32, 24, 16, 16, 16, 16, 16, 8, 8, 8, 4, 4, 4, 8};

unsigned tex_ref_bits(unsigned format)
{
    return format < 14 ? bits_per_texel[format] : 0;
}

size_t tex_ref_level_bytes(unsigned format, unsigned w, unsigned h)
{
    return (size_t)w * h * tex_ref_bits(format) / 8;
}

size_t tex_ref_level_offset(unsigned format, unsigned w, unsigned h, unsigned level)
{
    size_t off = 0;
    for (unsigned i = 0; i < level; i++)
        off += tex_ref_level_bytes(format, w >> i, h >> i);
    return off;
}

/* Texel index inside an 8x8 tile -> (x, y): undo the interleave. */
static void deinterleave(unsigned i, unsigned *x, unsigned *y)
{
    *x = (i & 1) | ((i >> 1) & 2) | ((i >> 2) & 4);
    *y = ((i >> 1) & 1) | ((i >> 2) & 2) | ((i >> 3) & 4);
}

static uint8_t from5(unsigned v) { return (uint8_t)((v << 3) | (v >> 2)); }
static uint8_t from6(unsigned v) { return (uint8_t)((v << 2) | (v >> 4)); }
static uint8_t from4(unsigned v) { return (uint8_t)(v * 17); }

static void put(uint8_t *p, unsigned r, unsigned g, unsigned b, unsigned a)
{
    p[0] = (uint8_t)r;
    p[1] = (uint8_t)g;
    p[2] = (uint8_t)b;
    p[3] = (uint8_t)a;
}

/* Texel number `n` of the level in storage order (plain formats). */
static void plain_texel(const uint8_t *src, unsigned format, size_t n, uint8_t *out)
{
    const uint8_t *b = src + n * tex_ref_bits(format) / 8;
    unsigned v = b[0] | (format >= 2 && format <= 6 ? b[1] << 8 : 0);
    unsigned nib = (b[0] >> (n % 2 ? 4 : 0)) & 15;
    switch (format) {
    case 0: put(out, b[3], b[2], b[1], b[0]); break;
    case 1: put(out, b[2], b[1], b[0], 255); break;
    case 2: put(out, from5(v >> 11), from5((v >> 6) & 31), from5((v >> 1) & 31), v & 1 ? 255 : 0); break;
    case 3: put(out, from5(v >> 11), from6((v >> 5) & 63), from5(v & 31), 255); break;
    case 4: put(out, from4(v >> 12), from4((v >> 8) & 15), from4((v >> 4) & 15), from4(v & 15)); break;
    case 5: put(out, v >> 8, v >> 8, v >> 8, v & 255); break;
    case 6: put(out, v >> 8, v & 255, 0, 255); break;
    case 7: put(out, b[0], b[0], b[0], 255); break;
    case 8: put(out, 0, 0, 0, b[0]); break;
    case 9: put(out, from4(b[0] >> 4), from4(b[0] >> 4), from4(b[0] >> 4), from4(b[0] & 15)); break;
    case 10: put(out, from4(nib), from4(nib), from4(nib), 255); break;
    case 11: put(out, 0, 0, 0, from4(nib)); break;
    }
}

static const int etc1_table[8][2] = {{2, 8}, {5, 17}, {9, 29}, {13, 42}, {18, 60}, {24, 80}, {33, 106}, {47, 183}};

static unsigned field(uint64_t word, unsigned hi, unsigned lo)
{
    return (unsigned)((word >> lo) & ((1ull << (hi - lo + 1)) - 1));
}

static uint8_t clamp255(int v)
{
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

void tex_ref_etc1_block(uint64_t word, uint8_t rgb[4][4][3])
{
    int diff = (int)field(word, 33, 33), flip = (int)field(word, 32, 32);
    unsigned table[2] = {field(word, 39, 37), field(word, 36, 34)};
    int base[2][3];
    for (int c = 0; c < 3; c++) {
        unsigned top = 63 - 8 * (unsigned)c; /* R at 63, G at 55, B at 47 */
        if (diff) {
            unsigned b5 = field(word, top, top - 4);
            int d = (int)field(word, top - 5, top - 7);
            if (d >= 4)
                d -= 8;
            unsigned b5b = (unsigned)((int)b5 + d) & 31;
            base[0][c] = from5(b5);
            base[1][c] = from5(b5b);
        } else {
            base[0][c] = from4(field(word, top, top - 3));
            base[1][c] = from4(field(word, top - 4, top - 7));
        }
    }
    for (unsigned x = 0; x < 4; x++)
        for (unsigned y = 0; y < 4; y++) {
            int sub = flip ? y >= 2 : x >= 2;
            unsigned idx = x * 4 + y;
            unsigned msb = field(word, 16 + idx, 16 + idx), lsb = field(word, idx, idx);
            int m = etc1_table[table[sub]][lsb];
            if (msb)
                m = -m;
            for (int c = 0; c < 3; c++)
                rgb[y][x][c] = clamp255(base[sub][c] + m);
        }
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

void tex_ref_decode(const uint8_t *src, unsigned w, unsigned h, unsigned format, uint8_t *rgba)
{
    size_t n = 0; /* texels (plain) or blocks (ETC) walked so far */
    for (unsigned ty = 0; ty < h; ty += 8)
        for (unsigned tx = 0; tx < w; tx += 8) {
            if (format == 12 || format == 13) {
                for (unsigned blk = 0; blk < 4; blk++, n++) {
                    const uint8_t *p = src + n * (format == 13 ? 16 : 8);
                    uint64_t alpha = format == 13 ? le64(p) : 0;
                    uint8_t rgb[4][4][3];
                    tex_ref_etc1_block(le64(format == 13 ? p + 8 : p), rgb);
                    unsigned bx = tx + (blk % 2) * 4, by = ty + (blk / 2) * 4;
                    for (unsigned y = 0; y < 4; y++)
                        for (unsigned x = 0; x < 4; x++) {
                            unsigned a = format == 13 ? from4((unsigned)(alpha >> ((x * 4 + y) * 4)) & 15) : 255;
                            put(rgba + ((size_t)(by + y) * w + bx + x) * 4, rgb[y][x][0], rgb[y][x][1],
                                rgb[y][x][2], a);
                        }
                }
                continue;
            }
            for (unsigned i = 0; i < 64; i++, n++) {
                unsigned x, y;
                deinterleave(i, &x, &y);
                plain_texel(src, format, n, rgba + ((size_t)(ty + y) * w + tx + x) * 4);
            }
        }
}
