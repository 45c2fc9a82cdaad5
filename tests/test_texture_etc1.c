/* ETC1 and ETC1A4 against an independent codec: libetc1 (Android's, Debian
 * android-libetc1-dev) compresses a generated picture and its mip levels; the
 * blocks are rearranged into the 3DS order (four 4x4 blocks per 8x8 tile in
 * order x/4 + 2*(y/4), tiles row-major, each block a little-endian u64 where
 * the PKM stream has it big-endian: FACTS.md "Textures"), decoded by
 * picavk's GPU path and compared texel for texel with libetc1's own decode.
 * Random blocks (every mode and table, except differential sums outside
 * 0..31, which the specification leaves undefined and libetc1 and picavk
 * resolve differently) are compared the same way, on the GPU and with the
 * CPU reference.  Both guest-memory modes. */
#include "harness.h"
#include "runtime/runtime.h"
#include "tex_ref.h"

#ifdef PVK_HAVE_ETC1
#include <etc1.h>

static pvk_context *ctx;

/* A picture with smooth gradients, hard edges and noise, so the encoder
 * uses both modes, both flips and many tables. */
static void picture(uint8_t *rgb, uint32_t w, uint32_t h)
{
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint8_t *p = rgb + ((size_t)y * w + x) * 3;
            int dx = (int)x - (int)w / 3, dy = (int)y - (int)h / 2;
            int ring = ((abs(dx) + abs(dy)) / 12) % 2; /* diamonds */
            p[0] = (uint8_t)(x * 255 / (w - 1));
            p[1] = (uint8_t)(y * 255 / (h - 1));
            p[2] = (uint8_t)(ring ? 230 : 20);
            if (x > w * 3 / 4) { /* a noisy strip */
                uint32_t n = th_rand();
                p[0] = (uint8_t)n, p[1] = (uint8_t)(n >> 8), p[2] = (uint8_t)(n >> 16);
            } else if (((x / 8) + (y / 8)) % 2 && y > h * 3 / 4) { /* a checkerboard */
                p[0] = p[1] = p[2] = 255;
            }
        }
}

/* 2x2 box filter: the next mip level. */
static void halve(const uint8_t *src, uint32_t w, uint32_t h, uint8_t *dst)
{
    for (uint32_t y = 0; y < h / 2; y++)
        for (uint32_t x = 0; x < w / 2; x++)
            for (int c = 0; c < 3; c++) {
                unsigned s = src[((2 * y) * w + 2 * x) * 3 + c] + src[((2 * y) * w + 2 * x + 1) * 3 + c] +
                             src[((2 * y + 1) * w + 2 * x) * 3 + c] + src[((2 * y + 1) * w + 2 * x + 1) * 3 + c];
                dst[(y * (w / 2) + x) * 3 + c] = (uint8_t)((s + 2) / 4);
            }
}

/* libetc1's block stream (row-major 4x4 blocks, big-endian words) -> the
 * 3DS layout at `dst`; ETC1A4 (alpha != NULL, one nibble per texel, row-major)
 * puts the alpha u64 (nibble of (x, y) at index x*4 + y) before each block. */
static void to_3ds(const uint8_t *pkm, const uint8_t *alpha, uint32_t w, uint32_t h, uint8_t *dst)
{
    for (uint32_t ty = 0; ty < h / 8; ty++)
        for (uint32_t tx = 0; tx < w / 8; tx++)
            for (uint32_t blk = 0; blk < 4; blk++) {
                uint32_t bx = tx * 2 + blk % 2, by = ty * 2 + blk / 2;
                if (alpha) {
                    uint64_t a = 0;
                    for (uint32_t x = 0; x < 4; x++)
                        for (uint32_t y = 0; y < 4; y++)
                            a |= (uint64_t)(alpha[(by * 4 + y) * w + bx * 4 + x] & 15) << ((x * 4 + y) * 4);
                    for (int i = 0; i < 8; i++)
                        *dst++ = (uint8_t)(a >> (8 * i));
                }
                const uint8_t *b = pkm + ((size_t)by * (w / 4) + bx) * 8;
                for (int i = 0; i < 8; i++)
                    *dst++ = b[7 - i];
            }
}

static int reports;

/* picavk's decode of level `level` against libetc1's decode (and alpha). */
static void compare(const pvk_texture *t, uint32_t level, const uint8_t *etc_rgb, const uint8_t *alpha)
{
    uint32_t w = t->desc.width >> level, h = t->desc.height >> level;
    uint8_t *img = malloc((size_t)w * h * 4);
    CHECK_EQ(pvk_texture_read(&ctx->vram, t, 0, level, img, (size_t)w * h * 4), PVK_SUCCESS);
    int bad = 0;
    for (uint32_t i = 0; i < w * h; i++) {
        uint8_t want_a = alpha ? (uint8_t)((alpha[i] & 15) * 17) : 255;
        if (memcmp(img + i * 4, etc_rgb + i * 3, 3) || img[i * 4 + 3] != want_a) {
            if (!bad && reports++ < 10)
                fprintf(stderr, "%s %ux%u level %u texel (%u, %u): picavk %02X%02X%02X%02X, libetc1 %02X%02X%02X%02X\n",
                        alpha ? "ETC1A4" : "ETC1", t->desc.width, t->desc.height, level, i % w, i / w, img[i * 4],
                        img[i * 4 + 1], img[i * 4 + 2], img[i * 4 + 3], etc_rgb[i * 3], etc_rgb[i * 3 + 1],
                        etc_rgb[i * 3 + 2], want_a);
            bad++;
        }
    }
    CHECK_EQ(bad, 0);
    free(img);
}

/* A picture and its mip levels through libetc1 and picavk. */
static void real_picture(uint32_t addr, int with_alpha)
{
    enum { PW = 256, PH = 128, LEVELS = 4 };
    uint32_t format = with_alpha ? PVK_TEX_ETC1A4 : PVK_TEX_ETC1;
    uint32_t bytes = pvk_texture_face_bytes(format, PW, PH, LEVELS);
    uint8_t *guest = pvk_guest_ptr(ctx, addr, bytes);
    CHECK(guest != NULL);
    uint8_t *rgb = malloc(PW * PH * 3), *next = malloc(PW * PH * 3), *pkm = malloc(PW * PH);
    uint8_t *etc_rgb[LEVELS], *alpha[LEVELS];
    picture(rgb, PW, PH);
    uint32_t off = 0;
    for (uint32_t l = 0; l < LEVELS; l++) {
        uint32_t w = PW >> l, h = PH >> l;
        CHECK_EQ(etc1_encode_image(rgb, w, h, 3, w * 3, pkm), 0);
        etc_rgb[l] = malloc((size_t)w * h * 3);
        CHECK_EQ(etc1_decode_image(pkm, etc_rgb[l], w, h, 3, w * 3), 0);
        alpha[l] = NULL;
        if (with_alpha) { /* an alpha ramp across, with a notch */
            alpha[l] = malloc((size_t)w * h);
            for (uint32_t i = 0; i < w * h; i++)
                alpha[l][i] = (uint8_t)((i % w) * 16 / w ^ ((i / w) % 5 == 0 ? 15 : 0));
        }
        /* the codec is real: libetc1's picture is near the original */
        uint64_t err = 0, n = 0;
        for (uint32_t i = 0; i < w * h * 3; i++)
            if (i / 3 % w < w / 2) { /* left of the noise */
                err += (uint64_t)abs((int)etc_rgb[l][i] - (int)rgb[i]);
                n++;
            }
        CHECK(err < 32 * n); /* hard colour edges cost ETC1 tens of levels */
        to_3ds(pkm, alpha[l], w, h, guest + off);
        off += w * h * (with_alpha ? 8 : 4) / 8;
        halve(rgb, w, h, next);
        memcpy(rgb, next, (size_t)(w / 2) * (h / 2) * 3);
    }
    CHECK_EQ(off, bytes);
    CHECK_EQ(pvk_guest_written(ctx, addr, bytes), PVK_SUCCESS);
    pvk_texture_desc d = {.addr = {addr}, .width = PW, .height = PH, .format = format, .levels = LEVELS, .faces = 1};
    pvk_texture t;
    CHECK_EQ(pvk_texture_decode(&ctx->vram, &d, &t), PVK_SUCCESS);
    for (uint32_t l = 0; l < LEVELS; l++) {
        compare(&t, l, etc_rgb[l], alpha[l]);
        free(etc_rgb[l]);
        free(alpha[l]);
    }
    pvk_texture_destroy(&ctx->vram, &t);
    free(rgb);
    free(next);
    free(pkm);
}

/* Is a differential block's second base colour outside 0..31 in a channel? */
static int undefined_sum(const uint8_t *b)
{
    if (!(b[3] & 2))
        return 0;
    for (int c = 0; c < 3; c++) {
        int base = b[c] >> 3, d = b[c] & 7;
        d -= (d & 4) << 1;
        if (base + d < 0 || base + d > 31)
            return 1;
    }
    return 0;
}

/* Random blocks: libetc1, the CPU reference and the GPU agree. */
static void random_blocks(uint32_t addr)
{
    enum { RW = 128, RH = 64 };
    uint8_t *pkm = malloc(RW * RH / 2), *etc_rgb = malloc(RW * RH * 3);
    uint32_t skipped = 0;
    for (uint32_t i = 0; i < RW * RH / 16; i++) {
        uint8_t *b = pkm + i * 8;
        do {
            for (int k = 0; k < 8; k++)
                b[k] = (uint8_t)th_rand();
            skipped += (uint32_t)undefined_sum(b);
        } while (undefined_sum(b));
        uint8_t lib[ETC1_DECODED_BLOCK_SIZE], ref[4][4][3];
        etc1_decode_block(b, lib);
        uint64_t word = 0;
        for (int k = 0; k < 8; k++)
            word = word << 8 | b[k];
        tex_ref_etc1_block(word, ref);
        int same = 1;
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 4; x++)
                same &= !memcmp(ref[y][x], lib + 3 * (x + 4 * y), 3);
        CHECK(same);
    }
    CHECK(skipped > 0); /* the rule above was exercised */
    CHECK_EQ(etc1_decode_image(pkm, etc_rgb, RW, RH, 3, RW * 3), 0);
    uint8_t *guest = pvk_guest_ptr(ctx, addr, RW * RH / 2);
    to_3ds(pkm, NULL, RW, RH, guest);
    CHECK_EQ(pvk_guest_written(ctx, addr, RW * RH / 2), PVK_SUCCESS);
    pvk_texture_desc d = {.addr = {addr}, .width = RW, .height = RH, .format = PVK_TEX_ETC1, .levels = 1, .faces = 1};
    pvk_texture t;
    CHECK_EQ(pvk_texture_decode(&ctx->vram, &d, &t), PVK_SUCCESS);
    compare(&t, 0, etc_rgb, NULL);
    pvk_texture_destroy(&ctx->vram, &t);
    free(pkm);
    free(etc_rgb);
}

int main(void)
{
    for (int mirror = 0; mirror < 2; mirror++) {
        ctx = th_context(NULL, mirror);
        real_picture(PVK_VRAM_BASE + 0x40000, 0);
        real_picture(PVK_FCRAM_BASE + 0x100000, 1);
        random_blocks(PVK_VRAM_BASE + 0x200008);
        th_release(ctx);
    }
    return th_finish("test_texture_etc1");
}
#else
int main(void)
{
    printf("test_texture_etc1: libetc1 (android-libetc1-dev) not found; skipped\n");
    return 77;
}
#endif
