/* Texture decode (vram/texture.c) against the CPU reference decoder
 * (tests/ref/tex_ref.c), exact: random bytes of all 14 formats, sizes from
 * 8x8 to 1024x1024 (non-square too), mip chains and cube maps, in both
 * guest-memory modes; a render target drawn but not yet written back is
 * decoded as drawn; bad input is refused, logged and counted. */
#include "draw_common.h"
#include "runtime/runtime.h"
#include "tex_ref.h"

static const char *const names[PVK_TEX_FORMAT_COUNT] = {"RGBA8888", "RGB888", "RGBA5551", "RGB565", "RGBA4444",
                                                         "LA8",      "HILO8",  "L8",       "A8",     "LA44",
                                                         "L4",       "A4",     "ETC1",     "ETC1A4"};

static int reports;
static uint64_t texels_checked;
static int cases;

/* A channel of the view: the image texel through the format's swizzle. */
static uint8_t through(VkComponentSwizzle s, int self, const uint8_t *t, uint32_t n)
{
    if (s == VK_COMPONENT_SWIZZLE_IDENTITY)
        s = (VkComponentSwizzle)(VK_COMPONENT_SWIZZLE_R + self);
    if (s == VK_COMPONENT_SWIZZLE_ZERO)
        return 0;
    if (s == VK_COMPONENT_SWIZZLE_ONE)
        return 255;
    uint32_t c = (uint32_t)(s - VK_COMPONENT_SWIZZLE_R);
    return c < n ? t[c] : c == 3 ? 255 : 0; /* channels a format lacks read (0, 0, 0, 1) */
}

/* Random bytes at `addr`, told to picavk as a host write. */
static void randomise(uint32_t addr, uint32_t len)
{
    uint8_t *p = pvk_guest_ptr(ctx, addr, len);
    CHECK(p != NULL);
    if (!p)
        return;
    for (uint32_t i = 0; i < len; i++)
        p[i] = (uint8_t)th_rand();
    CHECK_EQ(pvk_guest_written(ctx, addr, len), PVK_SUCCESS);
}

/* Every level and face of `t` read back and compared with the reference. */
static void compare(const pvk_texture *t)
{
    const pvk_texture_desc *d = &t->desc;
    VkComponentMapping sw;
    uint32_t tb;
    pvk_texture_vk_format(d->format, &sw, &tb);
    size_t max = (size_t)d->width * d->height;
    uint8_t *img = malloc(max * 4), *ref = malloc(max * 4);
    for (uint32_t f = 0; f < d->faces; f++) {
        const uint8_t *guest = pvk_guest_ptr(ctx, d->addr[f], pvk_texture_face_bytes(d->format, d->width, d->height,
                                                                                       d->levels));
        for (uint32_t l = 0; l < d->levels; l++) {
            uint32_t w = d->width >> l, h = d->height >> l;
            CHECK_EQ(pvk_texture_read(&ctx->vram, t, f, l, img, (size_t)w * h * tb), PVK_SUCCESS);
            tex_ref_decode(guest + tex_ref_level_offset(d->format, d->width, d->height, l), w, h, d->format, ref);
            int bad = 0;
            for (uint32_t i = 0; i < w * h; i++) {
                const uint8_t *g = img + (size_t)i * tb;
                uint8_t rgba[4] = {through(sw.r, 0, g, tb), through(sw.g, 1, g, tb), through(sw.b, 2, g, tb),
                                   through(sw.a, 3, g, tb)};
                if (memcmp(rgba, ref + (size_t)i * 4, 4)) {
                    if (!bad && reports++ < 10)
                        fprintf(stderr,
                                "%s %ux%u face %u level %u (%ux%u) texel (%u, %u): GPU %02X%02X%02X%02X, "
                                "reference %02X%02X%02X%02X\n",
                                names[d->format], d->width, d->height, f, l, w, h, i % w, i / w, rgba[0], rgba[1],
                                rgba[2], rgba[3], ref[i * 4], ref[i * 4 + 1], ref[i * 4 + 2], ref[i * 4 + 3]);
                    bad++;
                }
            }
            CHECK_EQ(bad, 0);
            texels_checked += (uint64_t)w * h;
        }
    }
    free(img);
    free(ref);
}

/* The most levels a w x h texture can have (sides stay multiples of 8). */
static uint32_t max_levels(uint32_t w, uint32_t h)
{
    uint32_t n = 1;
    while ((w >> n) >= 8 && (w >> n) % 8 == 0 && (w >> n) << n == w && (h >> n) >= 8 && (h >> n) % 8 == 0 &&
           (h >> n) << n == h)
        n++;
    return n;
}

/* A random 8-byte-aligned place for `len` bytes in VRAM or the first
 * 32 MiB of FCRAM. */
static uint32_t place(uint32_t len)
{
    if (th_rand() % 2) {
        uint32_t slots = (PVK_VRAM_SIZE - len) / 8;
        return PVK_VRAM_BASE + th_rand() % (slots + 1) * 8;
    }
    return PVK_FCRAM_BASE + th_rand() % ((0x2000000u - len) / 8 + 1) * 8;
}

static void run_case(uint32_t format, uint32_t w, uint32_t h, uint32_t levels, uint32_t faces, int at_end)
{
    pvk_texture_desc d = {.width = w, .height = h, .format = format, .levels = levels, .faces = faces};
    uint32_t bytes = pvk_texture_face_bytes(format, w, h, levels);
    CHECK_EQ(bytes, tex_ref_level_offset(format, w, h, levels));
    for (uint32_t f = 0; f < faces; f++) {
        /* at_end: the last bytes of VRAM, so a read past the range would show */
        d.addr[f] = at_end ? PVK_VRAM_BASE + PVK_VRAM_SIZE - bytes * (f + 1) : place(bytes);
        randomise(d.addr[f], bytes);
    }
    pvk_texture t;
    pvk_result r = pvk_texture_decode(&ctx->vram, &d, &t);
    CHECK_EQ(r, PVK_SUCCESS);
    if (r) {
        fprintf(stderr, "%s %ux%u levels %u faces %u: %s\n", names[format], w, h, levels, faces,
                pvk_result_string(r));
        return;
    }
    CHECK(t.view != VK_NULL_HANDLE);
    compare(&t);
    pvk_texture_destroy(&ctx->vram, &t);
    CHECK(t.image == VK_NULL_HANDLE);
    cases++;
}

static void random_cases(int mirror)
{
    /* one 1024x1024 with every level per mode: ETC1 (the common compressed
     * format) once, RGBA8888 (the widest texel) once */
    run_case(mirror ? PVK_TEX_RGBA8 : PVK_TEX_ETC1, 1024, 1024, 8, 1, 0);
    for (uint32_t f = 0; f < PVK_TEX_FORMAT_COUNT; f++) {
        run_case(f, 8, 8, 1, 1, f == 5);
        /* long and thin, both ways, rotating through the formats */
        if ((f + (uint32_t)mirror) % 2)
            run_case(f, 1024, 8 << (f % 3), 1 + f % 3, 1, 0);
        else
            run_case(f, 8 << (f % 3), 1024, 1 + f % 3, 1, 0);
        /* random sizes, non-square, every level they allow */
        for (int i = 0; i < 2; i++) {
            uint32_t w = th_rand_range(1, 32) * 8, h = th_rand_range(1, 32) * 8;
            if (i == 1) { /* powers of two: long mip chains */
                w = 8u << th_rand_range(0, 5);
                h = 8u << th_rand_range(0, 5);
            }
            run_case(f, w, h, th_rand_range(1, max_levels(w, h)), 1, 0);
        }
        /* a cube map: six faces, each at its own address */
        run_case(f, 32, 32, 3, 6, f == 13);
    }
}

static void expect_refused(const pvk_texture_desc *d, pvk_result want, int bad, int unsupported, int range)
{
    pvk_stats s0, s1;
    pvk_get_stats(ctx, &s0);
    pvk_texture t;
    memset(&t, 0xAB, sizeof t);
    int logged = th_log_errors;
    CHECK_EQ(pvk_texture_decode(&ctx->vram, d, &t), want);
    pvk_get_stats(ctx, &s1);
    CHECK_EQ(s1.bad_input - s0.bad_input, bad);
    CHECK_EQ(s1.unsupported - s0.unsupported, unsupported);
    CHECK_EQ(s1.out_of_range - s0.out_of_range, range);
    CHECK_EQ(th_log_errors - logged, bad); /* every refusal of bad input is logged as an error */
    CHECK(t.image == VK_NULL_HANDLE && t.view == VK_NULL_HANDLE && t.mem == VK_NULL_HANDLE);
}

static void bad_inputs(void)
{
    th_quiet_errors = 1;
    const pvk_texture_desc ok = {.addr = {PVK_VRAM_BASE}, .width = 64, .height = 32, .format = 0, .levels = 1,
                                 .faces = 1};
    pvk_texture_desc d;
    const pvk_result BAD = PVK_ERROR_BAD_PARAMETERS, OUT = PVK_ERROR_OUT_OF_RANGE;
    for (uint32_t f = 14; f < 17; f++) { /* reserved formats (4 bits: 14, 15; beyond) */
        d = ok, d.format = f;
        expect_refused(&d, BAD, 1, 0, 0);
    }
    d = ok, d.format = UINT32_MAX;
    expect_refused(&d, BAD, 1, 0, 0);
    const uint32_t sizes[][2] = {{0, 8}, {8, 0}, {4, 8}, {8, 12}, {1032, 8}, {8, 2048}, {1023, 1024}, {UINT32_MAX, 8}};
    for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        d = ok, d.width = sizes[i][0], d.height = sizes[i][1];
        expect_refused(&d, BAD, 1, 0, 0);
    }
    d = ok, d.levels = 0;
    expect_refused(&d, BAD, 1, 0, 0);
    d = ok, d.width = 8, d.height = 8, d.levels = 5; /* 8, 4, 2, 1, then past 1x1 */
    expect_refused(&d, BAD, 1, 0, 0);
    d = ok, d.width = 1024, d.height = 8, d.levels = 12;
    expect_refused(&d, BAD, 1, 0, 0);
    d = ok, d.levels = UINT32_MAX;
    expect_refused(&d, BAD, 1, 0, 0);
    /* levels under 8 on a side: layout undocumented, not implemented */
    d = ok, d.width = 8, d.height = 8, d.levels = 2;
    expect_refused(&d, PVK_ERROR_UNSUPPORTED, 0, 1, 0);
    d = ok, d.width = 64, d.height = 16, d.levels = 3; /* 64x16, 32x8, 16x4 */
    expect_refused(&d, PVK_ERROR_UNSUPPORTED, 0, 1, 0);
    d = ok, d.width = 24, d.height = 24, d.levels = 2; /* 12x12 */
    expect_refused(&d, PVK_ERROR_UNSUPPORTED, 0, 1, 0);
    d = ok, d.faces = 0;
    expect_refused(&d, BAD, 1, 0, 0);
    d = ok, d.faces = 2;
    expect_refused(&d, BAD, 1, 0, 0);
    d = ok, d.faces = 6; /* not square */
    expect_refused(&d, BAD, 1, 0, 0);
    d = ok, d.addr[0] = PVK_VRAM_BASE + 4;
    expect_refused(&d, BAD, 1, 0, 0);
    /* outside guest memory, straddling a region's end, wrapping the address space */
    const uint32_t addrs[] = {0, 0x10000000, PVK_VRAM_BASE + PVK_VRAM_SIZE - 64 * 32 * 4 + 8,
                              PVK_VRAM_BASE + PVK_VRAM_SIZE, PVK_AXI_WRAM_BASE + PVK_AXI_WRAM_SIZE - 8, 0xFFFFFFF8};
    for (unsigned i = 0; i < sizeof addrs / sizeof addrs[0]; i++) {
        d = ok, d.addr[0] = addrs[i];
        expect_refused(&d, OUT, 1, 0, 1);
    }
    /* a cube with one face outside: nothing is made */
    d = ok, d.width = d.height = 16, d.faces = 6;
    for (int f = 0; f < 6; f++)
        d.addr[f] = PVK_VRAM_BASE + 0x1000u * (uint32_t)f;
    d.addr[4] = 0x08000000;
    expect_refused(&d, OUT, 1, 0, 1);
    CHECK_EQ(pvk_texture_decode(&ctx->vram, NULL, NULL), PVK_ERROR_INVALID_ARGUMENT);
    /* a valid request right after works */
    pvk_texture t;
    CHECK_EQ(pvk_texture_decode(&ctx->vram, &ok, &t), PVK_SUCCESS);
    pvk_texture_destroy(&ctx->vram, &t);
    pvk_texture_destroy(&ctx->vram, &t); /* twice is harmless */
    th_quiet_errors = 0;
}

/* A render target drawn and not yet written back: decoding it as a texture
 * writes it back first, so the texture shows the draw. */
static void render_target(void)
{
    upload_shader();
    setup_attribs();
    reg(PVK_GPUREG_COLORBUFFER_FORMAT, 2); /* RGBA8 */
    reg(PVK_GPUREG_COLORBUFFER_LOC, FB >> 3);
    reg(PVK_GPUREG_COLORBUFFER_READ, 0xF);
    reg(PVK_GPUREG_COLORBUFFER_WRITE, 0xF);
    setup_view();
    merger_replace();
    clear_fb();
    float *v = pvk_guest_ptr(ctx, VB, 3 * 32);
    const float pos[3][2] = {{-0.9f, -0.9f}, {0.9f, -0.8f}, {0.1f, 0.9f}};
    for (int i = 0; i < 3; i++) {
        const float vert[8] = {pos[i][0], pos[i][1], -0.5f, 1.0f, 0.25f, 0.5f, 0.75f, 1.0f};
        memcpy(v + i * 8, vert, sizeof vert);
    }
    pvk_guest_written(ctx, VB, 3 * 32);
    reg(PVK_GPUREG_PRIMITIVE_CONFIG, 1);
    reg(PVK_GPUREG_NUMVERTICES, 3);
    reg(PVK_GPUREG_VERTEX_OFFSET, 0);
    reg(PVK_GPUREG_DRAWARRAYS, 1); /* not waited for */
    pvk_stats s0, s1;
    pvk_get_stats(ctx, &s0);
    pvk_texture_desc d = {.addr = {FB}, .width = W, .height = H, .format = PVK_TEX_RGBA8, .levels = 1, .faces = 1};
    pvk_texture t;
    CHECK_EQ(pvk_texture_decode(&ctx->vram, &d, &t), PVK_SUCCESS);
    pvk_get_stats(ctx, &s1);
    CHECK_EQ(s1.surface_writebacks, s0.surface_writebacks + 1);
    CHECK_EQ(pvk_guest_flush(ctx, FB, W * H * 4), PVK_SUCCESS);
    compare(&t); /* against the written-back memory */
    uint8_t img[W * H * 4];
    CHECK_EQ(pvk_texture_read(&ctx->vram, &t, 0, 0, img, sizeof img), PVK_SUCCESS);
    uint32_t drawn = 0;
    for (uint32_t i = 0; i < W * H; i++)
        drawn += img[i * 4 + 3] == 0xFF && img[i * 4 + 2] > img[i * 4 + 1] && img[i * 4 + 1] > img[i * 4];
    if (drawn <= W * H / 4)
        fprintf(stderr, "drawn %u; texel 1000 %02X%02X%02X%02X\n", drawn, img[4000], img[4001], img[4002], img[4003]);
    CHECK(drawn > W * H / 4); /* the triangle's colour over the cleared (zero) buffer */
    pvk_texture_destroy(&ctx->vram, &t);
}

/* The reference itself on values worked out by hand from the documents. */
static void known_answers(void)
{
    static uint8_t src[8 * 8 * 4], out[8 * 8 * 4];
    /* RGBA8 bytes A, B, G, R; tiled word 13 is (3, 2) (FACTS.md, hwtests Test_ZCurve) */
    memcpy(src + 13 * 4, "\x44\x33\x22\x11", 4);
    memcpy(src + 1 * 4, "\x01\x02\x03\x04", 4);
    tex_ref_decode(src, 8, 8, PVK_TEX_RGBA8, out);
    CHECK(!memcmp(out + (2 * 8 + 3) * 4, "\x11\x22\x33\x44", 4));
    CHECK(!memcmp(out + 1 * 4, "\x04\x03\x02\x01", 4)); /* word 1 is (1, 0) */
    memset(src, 0, sizeof src);
    src[2 * 2] = 0x00, src[2 * 2 + 1] = 0xF8; /* RGB565 0xF800 at word 2 = (0, 1): pure red */
    src[3 * 2] = 0x3F, src[3 * 2 + 1] = 0x00; /* RGBA5551 would read 0x003F: B 31, A 1 */
    tex_ref_decode(src, 8, 8, PVK_TEX_RGB565, out);
    CHECK(!memcmp(out + 8 * 4, "\xFF\x00\x00\xFF", 4));
    tex_ref_decode(src, 8, 8, PVK_TEX_RGBA5551, out);
    CHECK(!memcmp(out + 9 * 4, "\x00\x00\xFF\xFF", 4)); /* word 3 is (1, 1) */
    tex_ref_decode(src, 8, 8, PVK_TEX_LA8, out); /* 0xF800: L 0xF8, A 0 */
    CHECK(!memcmp(out + 8 * 4, "\xF8\xF8\xF8\x00", 4));
    tex_ref_decode(src, 8, 8, PVK_TEX_HILO8, out);
    CHECK(!memcmp(out + 8 * 4, "\xF8\x00\x00\xFF", 4));
    memset(src, 0, sizeof src);
    src[0] = 0x21; /* L4: texel 0 in the low nibble */
    tex_ref_decode(src, 8, 8, PVK_TEX_L4, out);
    CHECK(!memcmp(out, "\x11\x11\x11\xFF", 4) && !memcmp(out + 4, "\x22\x22\x22\xFF", 4));
    tex_ref_decode(src, 8, 8, PVK_TEX_LA4, out); /* L high nibble */
    CHECK(!memcmp(out, "\x22\x22\x22\x11", 4));
    /* ETC1, individual mode, no flip: subblock 1 (x < 2) base 0x8 -> 0x88, table 0 (+-2, +-8);
     * subblock 2 base 0x1 -> 0x11, table 7 (+-47, +-183).  Texel (0, 0) index 0: 00 -> +2;
     * texel (3, 3) index 15: MSB 1, LSB 1 -> -183, clamped to 0. */
    uint64_t word = 0x8181810000000000ull | (7ull << 34) | (1ull << 31) | (1ull << 15);
    uint8_t rgb[4][4][3];
    tex_ref_etc1_block(word, rgb);
    CHECK(!memcmp(rgb[0][0], "\x8A\x8A\x8A", 3) && !memcmp(rgb[3][3], "\x00\x00\x00", 3));
    CHECK(!memcmp(rgb[0][2], "\x40\x40\x40", 3)); /* (2, 0): index 8, 00 -> 0x11 + 47 */
    /* the u64 is stored little-endian, ETC1A4 with its alpha first: alpha nibble of (1, 2) is index 6 */
    memset(src, 0, sizeof src);
    for (int i = 0; i < 8; i++)
        src[8 + i] = (uint8_t)(word >> (8 * i));
    src[3] = 0x0C; /* nibble 6 */
    tex_ref_decode(src, 8, 8, PVK_TEX_ETC1A4, out);
    CHECK(!memcmp(out, "\x8A\x8A\x8A\x00", 4));
    CHECK(!memcmp(out + (2 * 8 + 1) * 4 + 3, "\xCC", 1));
}

int main(void)
{
    known_answers();
    for (int mirror = 0; mirror < 2; mirror++) {
        ctx = th_context(NULL, mirror);
        th_rng = 0xC0FFEEull + (uint64_t)mirror;
        random_cases(mirror);
        render_target();
        bad_inputs();
        th_release(ctx);
    }
    printf("%d textures, %llu texels compared\n", cases, (unsigned long long)texels_checked);
    (void)draw_arrays, (void)tiled_index;
    return th_finish("test_texture_decode");
}
