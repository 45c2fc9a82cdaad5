/* The old texture hash of Citra and Azahar texture packs (pack.json's
 * use_new_hash false, or no pack.json): CityHash64, no seed, of one level
 * decoded the way their rasterizer decodes it for the hash, with the
 * conversion off.  Facts (read from Azahar's rasterizer cache and texture
 * codec; no code taken; docs/texture-packs.md):
 *
 *  - the level is untiled (8x8 tiles, Morton order inside) into rows with
 *    the last row in memory first (OpenGL's origin at the bottom);
 *  - formats 0-4 keep their guest bytes per texel (RGBA8 4 bytes as stored,
 *    RGB8 3, RGBA5551/RGB565/RGBA4 the 16-bit word), formats 5-13 become
 *    R, G, B, A bytes: the colour the texture unit gives (L formats grey,
 *    A formats black, HILO8 as red and green, 4-bit values x17, ETC1 alpha
 *    255), which is what picavk's texture decode gives too.
 *
 * Only texture packs made with the old hash need it: a CPU decode per
 * level of each texture decoded while such a pack is loaded. */
#include <stdlib.h>
#include <string.h>

#include "translator/translator.h"
#include "vram/vram.h"

static const uint8_t guest_bits[PVK_TEX_FORMAT_COUNT] = {32, 24, 16, 16, 16, 16, 16, 8, 8, 8, 4, 4, 4, 8};

uint32_t pvk_old_hash_texel_bytes(uint32_t format)
{
    return format == PVK_TEX_RGBA8 ? 4 : format == PVK_TEX_RGB8 ? 3 : format <= PVK_TEX_RGBA4 ? 2 : 4;
}

/* Morton index of (u, v) in an 8x8 tile: u's bits at 0, 2, 4; v's at 1, 3, 5. */
static uint32_t morton(uint32_t u, uint32_t v)
{
    uint32_t m = 0;
    for (int b = 0; b < 3; b++)
        m |= ((u >> b) & 1) << (2 * b) | ((v >> b) & 1) << (2 * b + 1);
    return m;
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint8_t clamp8(int v)
{
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* Texel (bx, by) of an ETC1 block (the colour word read little-endian) as RGB. */
static void etc1_texel(uint64_t w, uint32_t bx, uint32_t by, uint8_t rgb[3])
{
    static const int mods[8][2] = {{2, 8}, {5, 17}, {9, 29}, {13, 42}, {18, 60}, {24, 80}, {33, 106}, {47, 183}};
    uint32_t k = 4 * bx + by;
    bool flip = (w >> 32) & 1, diff = (w >> 33) & 1;
    bool second = flip ? by >= 2 : bx >= 2;
    uint32_t table = (uint32_t)(second ? (w >> 34) & 7 : (w >> 37) & 7);
    for (int c = 0; c < 3; c++) { /* R, G, B: fields 8 bits apart from bit 56 down */
        uint32_t at = 56 - 8 * (uint32_t)c, base;
        if (diff) {
            uint32_t b5 = (uint32_t)(w >> (at + 3)) & 31;
            int d = (int)((w >> at) & 7);
            d = d >= 4 ? d - 8 : d;
            /* the sum as a byte: a base outside 0..31 (an invalid block) decodes as Citra
             * decodes it, not as the hardware (five bits) and picavk's GPU decode do */
            uint32_t v = second ? (uint32_t)((int)b5 + d) & 0xFF : b5;
            base = (uint8_t)((v << 3) | (v >> 2));
        } else {
            uint32_t n = (uint32_t)(w >> (second ? at : at + 4)) & 15;
            base = n * 17;
        }
        int m = mods[table][(w >> k) & 1];
        if ((w >> (16 + k)) & 1)
            m = -m;
        rgb[c] = clamp8((int)base + m);
    }
}

/* Texel (u, v) of a tile (v: the row in memory order) as the hash sees it. */
static void texel(const uint8_t *tile, uint32_t format, uint32_t u, uint32_t v, uint8_t *out)
{
    if (format == PVK_TEX_ETC1 || format == PVK_TEX_ETC1A4) {
        uint32_t block = u / 4 + 2 * (v / 4), bx = u % 4, by = v % 4;
        bool a4 = format == PVK_TEX_ETC1A4;
        const uint8_t *b = tile + block * (a4 ? 16 : 8);
        etc1_texel(le64(a4 ? b + 8 : b), bx, by, out);
        out[3] = a4 ? (uint8_t)(((le64(b) >> (4 * (4 * bx + by))) & 15) * 17) : 255;
        return;
    }
    uint32_t m = morton(u, v), bits = guest_bits[format];
    const uint8_t *p = tile + m * bits / 8;
    switch (format) {
        case PVK_TEX_RGBA8: case PVK_TEX_RGB8: case PVK_TEX_RGBA5551: case PVK_TEX_RGB565: case PVK_TEX_RGBA4:
            memcpy(out, p, bits / 8); /* as stored */
            return;
        case PVK_TEX_LA8: out[0] = out[1] = out[2] = p[1], out[3] = p[0]; return;
        case PVK_TEX_HILO8: out[0] = p[1], out[1] = p[0], out[2] = 0, out[3] = 255; return;
        case PVK_TEX_L8: out[0] = out[1] = out[2] = p[0], out[3] = 255; return;
        case PVK_TEX_A8: out[0] = out[1] = out[2] = 0, out[3] = p[0]; return;
        case PVK_TEX_LA4: out[0] = out[1] = out[2] = (uint8_t)((p[0] >> 4) * 17), out[3] = (uint8_t)((p[0] & 15) * 17);
            return;
        default: { /* L4, A4: even texels in the low nibble */
            uint8_t n = (uint8_t)(((m & 1) ? p[0] >> 4 : p[0] & 15) * 17);
            bool l4 = format == PVK_TEX_L4;
            out[0] = out[1] = out[2] = l4 ? n : 0, out[3] = l4 ? 255 : n;
        }
    }
}

uint8_t *pvk_old_hash_bytes(const uint8_t *level, uint32_t format, uint32_t w, uint32_t h, size_t *len)
{
    if (format >= PVK_TEX_FORMAT_COUNT || !w || !h || w % 8 || h % 8)
        return NULL;
    uint32_t tb = pvk_old_hash_texel_bytes(format), tile_bytes = guest_bits[format] * 8;
    uint8_t *d = malloc((size_t)w * h * tb);
    if (!d)
        return NULL;
    for (uint32_t ty = 0; ty < h / 8; ty++)
        for (uint32_t tx = 0; tx < w / 8; tx++) {
            const uint8_t *tile = level + ((size_t)ty * (w / 8) + tx) * tile_bytes;
            for (uint32_t v = 0; v < 8; v++)
                for (uint32_t u = 0; u < 8; u++) {
                    uint8_t px[4];
                    texel(tile, format, u, v, px);
                    uint32_t row = h - 1 - (ty * 8 + v), x = tx * 8 + u;
                    memcpy(d + ((size_t)row * w + x) * tb, px, tb);
                }
        }
    *len = (size_t)w * h * tb;
    return d;
}

uint64_t pvk_old_hash(const uint8_t *level, uint32_t format, uint32_t w, uint32_t h)
{
    size_t n = 0;
    uint8_t *d = pvk_old_hash_bytes(level, format, w, h, &n);
    uint64_t v = d ? pvk_cityhash64(d, n) : 0;
    free(d);
    return v;
}
