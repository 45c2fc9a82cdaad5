/* Texture packs (pvk_config.texture_pack_dir, vram/pack.c): random
 * textures in guest memory, a pack folder written here the way a player
 * edits a dump (files named tex1_{W}x{H}_{HASH}_{FORMAT}_mip{L}.png, HASH the
 * CityHash64 of the level's guest bytes, computed here), drawn through a
 * context with the pack:
 *  - a 4x replacement (inverted colours, each texel 4x4): the texture's
 *    image is 128x128 and holds the file's pixels exactly; the 1x picture
 *    is the original picture with its colours inverted (so the rows are
 *    where a dump puts them);
 *  - an ETC1 texture with three levels: mip0 from a 2x file, mip1 made by a
 *    2x2 box filter (no file), mip2 from its file (a solid colour, which the
 *    minified draw shows); with skip_mipmap the mip2 file is not used;
 *  - pack.json's "textures" map naming a file of another name (1x, L8);
 *  - files refused (a corrupt PNG, 1.5x, 3x): counted, logged, the original
 *    drawn;
 *  - flip_png_files false: files stored bottom row first give the same image;
 *  - without the wait (the default): the first draw is the original and
 *    counted pending, a later one the replacement; with a texture filter at
 *    2x the original is drawn filtered meanwhile;
 *  - a 64 MiB budget: the decoded replacements held stay within its share;
 *  - no pack.json (the old hash: CityHash64 of the level decoded as Citra
 *    decodes it, checked for all 14 formats against this test's reading of
 *    those facts): the file named by the old hash replaces its texture,
 *    those named by new hashes nothing; a path that is not a folder: no
 *    context. */
#include <dirent.h>
#include <png.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define W 32u
#define H 32u
#include "draw_common.h"
#include "runtime/runtime.h"
#include "tex_ref.h"
#include "translator/translator.h"

#define TEX 0x18100000u

typedef struct tcase {
    uint32_t w, h, format, levels;
} tcase;

enum { C_INVERT4, C_ETC_MIPS, C_MAPPED, C_CORRUPT, C_RATIO, C_NPOT, CASES };
static const tcase cases[CASES] = {
    [C_INVERT4] = {32, 32, 0, 1}, [C_ETC_MIPS] = {64, 64, 12, 3}, [C_MAPPED] = {32, 32, 7, 1},
    [C_CORRUPT] = {32, 32, 4, 1}, [C_RATIO] = {32, 32, 8, 1},     [C_NPOT] = {16, 16, 3, 1},
};

static uint8_t *bytes[CASES];
static uint8_t ref_fb[CASES][W * H * 4]; /* each case drawn without a pack */
static const uint8_t solid[4] = {40, 200, 90, 255};

static uint32_t addr_of(size_t c)
{
    return TEX + (uint32_t)c * 0x30000u;
}

static uint64_t level_hash(size_t ci, uint32_t l)
{
    const tcase *c = &cases[ci];
    return pvk_cityhash64(bytes[ci] + tex_ref_level_offset(c->format, c->w, c->h, l),
                          tex_ref_level_bytes(c->format, c->w >> l, c->h >> l));
}

/* A quad over the target, texture coordinates 0..1, nearest filters, unit 0's colour as it is. */
static void draw(size_t ci)
{
    const tcase *c = &cases[ci];
    setup_rgba8_target(FB, W, H);
    merger_replace();
    static const uint32_t outmap[3] = {0x03020100, 0x0B0A0908, 0x1F1F0D0C};
    upload_mov_shader(3, outmap);
    for (unsigned s = 0; s < 6; s++) {
        uint32_t v = s ? 15u : 3u, base = s < 4 ? PVK_GPUREG_TEXENV0_SOURCE + 8 * s : PVK_GPUREG_TEXENV0_SOURCE + 8 * s + 16;
        reg(base, v | v << 16);
        reg(base + 1, 0);
        reg(base + 2, 0);
        reg(base + 4, 0);
    }
    reg(PVK_GPUREG_TEXUNIT0_DIM, c->h | c->w << 16);
    reg(PVK_GPUREG_TEXUNIT0_PARAM, 0);
    reg(PVK_GPUREG_TEXUNIT0_LOD, (c->levels - 1) << 16);
    reg(PVK_GPUREG_TEXUNIT0_ADDR1, addr_of(ci) >> 3);
    reg(PVK_GPUREG_TEXUNIT0_TYPE, c->format);
    reg(PVK_GPUREG_TEXUNIT_CONFIG, 1u | 1u << 12 | 1u << 16);
    static const float pos[4][2] = {{-1, -1}, {1, -1}, {-1, 1}, {1, 1}};
    float v[4][12] = {{0}};
    for (int i = 0; i < 4; i++) {
        v[i][0] = pos[i][0], v[i][1] = pos[i][1], v[i][2] = -0.5f, v[i][3] = 1;
        v[i][4] = v[i][5] = v[i][6] = v[i][7] = 1;
        v[i][8] = (pos[i][0] + 1) / 2, v[i][9] = (pos[i][1] + 1) / 2;
    }
    memcpy(pvk_guest_ptr(ctx, VB, sizeof v), v, sizeof v);
    pvk_guest_written(ctx, VB, sizeof v);
    reg(PVK_GPUREG_PRIMITIVE_CONFIG, (1u << 8) | 2);
    reg(PVK_GPUREG_NUMVERTICES, 4);
    reg(PVK_GPUREG_VERTEX_OFFSET, 0);
    reg(PVK_GPUREG_DRAWARRAYS, 1);
}

static void upload_all(void)
{
    for (size_t ci = 0; ci < CASES; ci++) {
        const tcase *c = &cases[ci];
        uint32_t len = (uint32_t)tex_ref_level_offset(c->format, c->w, c->h, c->levels);
        memcpy(pvk_guest_ptr(ctx, addr_of(ci), len), bytes[ci], len);
        pvk_guest_written(ctx, addr_of(ci), len);
    }
}

/* Case ci drawn, the picture as the guest sees it. */
static void draw_out(size_t ci, uint8_t *fb)
{
    draw(ci);
    copy_out(fb, FB);
}

/* ---- the pack's files ---- */

static void write_png(const char *dir, const char *name, const uint8_t *rgba, uint32_t w, uint32_t h)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = w, img.height = h, img.format = PNG_FORMAT_RGBA;
    CHECK(png_image_write_to_file(&img, path, 0, rgba, (png_int_32)(w * 4), NULL));
}

static void write_text(const char *dir, const char *name, const char *text)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void pack_json(const char *dir, bool skip_mipmap, bool flip, const char *textures)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\n  // a comment, as Azahar allows\n  \"author\": \"test\",\n  \"options\": {\"skip_mipmap\": %s, "
             "\"flip_png_files\": %s, \"use_new_hash\": true}%s%s\n}\n",
             skip_mipmap ? "true" : "false", flip ? "true" : "false", textures ? ",\n  \"textures\": " : "",
             textures ? textures : "");
    write_text(dir, "pack.json", text);
}

static void name_of(char *out, size_t n, size_t ci, uint32_t l, uint32_t w, uint32_t h)
{
    snprintf(out, n, "tex1_%ux%u_%016llX_%u_mip%u.png", w, h, (unsigned long long)level_hash(ci, l),
             cases[ci].format, l);
}

/* Level l of case ci as the texture unit gives it, `s` times larger (each texel s x s), colours inverted. */
static uint8_t *scaled_inverted(size_t ci, uint32_t l, uint32_t s)
{
    const tcase *c = &cases[ci];
    uint32_t lw = c->w >> l, lh = c->h >> l;
    uint8_t *one = malloc((size_t)lw * lh * 4), *out = malloc((size_t)lw * lh * s * s * 4);
    tex_ref_decode(bytes[ci] + tex_ref_level_offset(c->format, c->w, c->h, l), lw, lh, c->format, one);
    for (uint32_t y = 0; y < lh * s; y++)
        for (uint32_t x = 0; x < lw * s; x++)
            for (int k = 0; k < 4; k++) {
                uint8_t v = one[((size_t)(y / s) * lw + x / s) * 4 + k];
                out[((size_t)y * lw * s + x) * 4 + k] = k < 3 ? (uint8_t)(255 - v) : v;
            }
    free(one);
    return out;
}

static void flip_rows(uint8_t *px, uint32_t w, uint32_t h)
{
    for (uint32_t y = 0; y < h / 2; y++)
        for (uint32_t i = 0; i < w * 4; i++) {
            uint8_t t = px[(size_t)y * w * 4 + i];
            px[(size_t)y * w * 4 + i] = px[(size_t)(h - 1 - y) * w * 4 + i];
            px[(size_t)(h - 1 - y) * w * 4 + i] = t;
        }
}

static uint8_t *box(const uint8_t *src, uint32_t w, uint32_t h)
{
    uint8_t *dst = malloc((size_t)w / 2 * h / 2 * 4);
    for (uint32_t y = 0; y < h / 2; y++)
        for (uint32_t x = 0; x < w / 2; x++)
            for (int k = 0; k < 4; k++) {
                unsigned s = src[((size_t)(2 * y) * w + 2 * x) * 4 + k] + src[((size_t)(2 * y) * w + 2 * x + 1) * 4 + k] +
                             src[((size_t)(2 * y + 1) * w + 2 * x) * 4 + k] +
                             src[((size_t)(2 * y + 1) * w + 2 * x + 1) * 4 + k];
                dst[((size_t)y * w / 2 + x) * 4 + k] = (uint8_t)((s + 2) / 4);
            }
    return dst;
}

static char root[] = "/tmp/picavk-pack-XXXXXX";

static const char *make_dir(const char *name)
{
    static char paths[8][600];
    static int n;
    char *p = paths[n++ % 8];
    snprintf(p, 600, "%s/%s", root, name);
    CHECK(mkdir(p, 0755) == 0);
    return p;
}

/* The replacements of the main pack (`flip`: stored bottom row first). */
static void write_pack(const char *dir, bool flip_files)
{
    char name[128];
    uint8_t *a = scaled_inverted(C_INVERT4, 0, 4);
    if (flip_files)
        flip_rows(a, 128, 128);
    name_of(name, sizeof name, C_INVERT4, 0, 32, 32);
    write_png(dir, name, a, 128, 128);
    free(a);
    uint8_t *e0 = scaled_inverted(C_ETC_MIPS, 0, 2);
    name_of(name, sizeof name, C_ETC_MIPS, 0, 64, 64);
    write_png(dir, name, e0, 128, 128);
    free(e0);
    uint8_t sq[32 * 32 * 4]; /* mip2 of a 2x replacement: 32x32 */
    for (int i = 0; i < 32 * 32; i++)
        memcpy(sq + i * 4, solid, 4);
    name_of(name, sizeof name, C_ETC_MIPS, 2, 16, 16);
    write_png(dir, name, sq, 32, 32);
    uint8_t *m = scaled_inverted(C_MAPPED, 0, 1);
    write_png(dir, "grass.png", m, 32, 32); /* named by pack.json's textures map */
    free(m);
    name_of(name, sizeof name, C_CORRUPT, 0, 32, 32);
    write_text(dir, name, "\x89PNG\r\n\x1a\nnot really");
    uint8_t *r = scaled_inverted(C_RATIO, 0, 3);
    name_of(name, sizeof name, C_RATIO, 0, 32, 32);
    write_png(dir, name, r, 48, 48); /* drawn from 96x96: cut to 48x48 (1.5x) */
    free(r);
    uint8_t *n3 = scaled_inverted(C_NPOT, 0, 3);
    name_of(name, sizeof name, C_NPOT, 0, 16, 16);
    write_png(dir, name, n3, 48, 48); /* 3x: not a power of two */
    free(n3);
    char map[128];
    snprintf(map, sizeof map, "{\"%016llX\": [\"grass.png\"]}", (unsigned long long)level_hash(C_MAPPED, 0));
    pack_json(dir, false, !flip_files, map);
}

/* The texture of case ci now in the cache: level l's pixels (w x h RGBA8 expected). */
static int level_differs(size_t ci, uint32_t l, const uint8_t *want, uint32_t w, uint32_t h)
{
    const tcase *c = &cases[ci];
    pvk_texture_desc d = {.addr = {addr_of(ci)}, .width = c->w, .height = c->h, .format = c->format,
                          .levels = c->levels, .faces = 1};
    const pvk_texture *t = NULL;
    CHECK_EQ(pvk_texture_get(&ctx->vram, &d, &t), PVK_SUCCESS);
    if (!t)
        return -1;
    CHECK(t->replaced);
    size_t n = (size_t)w * h * 4;
    uint8_t *got = malloc(n);
    pvk_result r = pvk_texture_read(&ctx->vram, t, 0, l, got, n);
    CHECK_EQ(r, PVK_SUCCESS);
    int dif = r ? -1 : differ(got, want, n);
    free(got);
    return dif;
}

static void inverted_fb(const uint8_t *fb, uint8_t *out)
{
    for (size_t i = 0; i < W * H * 4; i++) /* RGBA8 colour buffer bytes: A, B, G, R */
        out[i] = i % 4 ? (uint8_t)(255 - fb[i]) : fb[i];
}

static void main_pack(const char *dir, bool flipped)
{
    pvk_config cfg = {.texture_pack_dir = dir, .texture_pack_sync = 1};
    ctx = th_context(&cfg, 0);
    upload_all();
    uint8_t fb[W * H * 4], want[W * H * 4];
    draw_out(C_INVERT4, fb);
    inverted_fb(ref_fb[C_INVERT4], want);
    CHECK_EQ(differ(fb, want, sizeof fb), 0);
    uint8_t *a = scaled_inverted(C_INVERT4, 0, 4);
    CHECK_EQ(level_differs(C_INVERT4, 0, a, 128, 128), 0);
    free(a);
    if (!flipped) {
        draw_out(C_ETC_MIPS, fb); /* minified 2x: level 2, the solid file */
        int off = 0;
        for (size_t i = 0; i < W * H; i++)
            off += fb[i * 4 + 3] != solid[0] || fb[i * 4 + 2] != solid[1] || fb[i * 4 + 1] != solid[2];
        CHECK_EQ(off, 0);
        uint8_t *e0 = scaled_inverted(C_ETC_MIPS, 0, 2), *e1 = box(e0, 128, 128);
        CHECK_EQ(level_differs(C_ETC_MIPS, 0, e0, 128, 128), 0);
        CHECK_EQ(level_differs(C_ETC_MIPS, 1, e1, 64, 64), 0);
        uint8_t sq[32 * 32 * 4];
        for (int i = 0; i < 32 * 32; i++)
            memcpy(sq + i * 4, solid, 4);
        CHECK_EQ(level_differs(C_ETC_MIPS, 2, sq, 32, 32), 0);
        free(e0);
        free(e1);
        draw_out(C_MAPPED, fb);
        inverted_fb(ref_fb[C_MAPPED], want);
        CHECK_EQ(differ(fb, want, sizeof fb), 0);
        th_quiet_errors = 1;
        for (size_t ci = C_CORRUPT; ci <= C_NPOT; ci++) {
            draw_out(ci, fb);
            CHECK_EQ(differ(fb, ref_fb[ci], sizeof fb), 0);
        }
        th_quiet_errors = 0;
        pvk_stats st = stats();
        CHECK_EQ(st.textures_replaced, 3);
        CHECK_EQ(st.texture_pack_failures, 3);
        CHECK_EQ(st.replacement_pending_draws, 0);
        CHECK(st.held_pack_bytes >= (128 * 128 + 128 * 128 * 4 / 3) * 4);
        CHECK(st.held_bytes >= st.held_pack_bytes);
    }
    th_release(ctx);
}

static void skip_mipmap(void)
{
    const char *dir = make_dir("skip");
    char name[128];
    uint8_t *e0 = scaled_inverted(C_ETC_MIPS, 0, 2), *e1 = box(e0, 128, 128), *e2 = box(e1, 64, 64);
    name_of(name, sizeof name, C_ETC_MIPS, 0, 64, 64);
    write_png(dir, name, e0, 128, 128);
    uint8_t sq[32 * 32 * 4];
    for (int i = 0; i < 32 * 32; i++)
        memcpy(sq + i * 4, solid, 4);
    name_of(name, sizeof name, C_ETC_MIPS, 2, 16, 16);
    write_png(dir, name, sq, 32, 32); /* not used */
    pack_json(dir, true, true, NULL);
    pvk_config cfg = {.texture_pack_dir = dir, .texture_pack_sync = 1};
    ctx = th_context(&cfg, 0);
    upload_all();
    uint8_t fb[W * H * 4];
    draw_out(C_ETC_MIPS, fb);
    CHECK_EQ(level_differs(C_ETC_MIPS, 1, e1, 64, 64), 0);
    CHECK_EQ(level_differs(C_ETC_MIPS, 2, e2, 32, 32), 0);
    CHECK_EQ(stats().textures_replaced, 1);
    th_release(ctx);
    free(e0);
    free(e1);
    free(e2);
}

/* Without the wait: the original first (counted), the replacement once decoded. */
static void asynchronous(const char *dir)
{
    pvk_config cfg = {.texture_pack_dir = dir};
    ctx = th_context(&cfg, 0);
    upload_all();
    uint8_t fb[W * H * 4], want[W * H * 4];
    draw_out(C_INVERT4, fb);
    CHECK_EQ(differ(fb, ref_fb[C_INVERT4], sizeof fb), 0);
    CHECK_EQ(stats().textures_replaced, 0);
    for (int i = 0; i < 600 && !pvk_pack_idle(&ctx->vram); i++)
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    draw_out(C_INVERT4, fb);
    inverted_fb(ref_fb[C_INVERT4], want);
    CHECK_EQ(differ(fb, want, sizeof fb), 0);
    pvk_stats st = stats();
    CHECK_EQ(st.textures_replaced, 1);
    CHECK_EQ(st.replacement_pending_draws, 1);
    th_release(ctx);
}

/* With a texture filter at 2x: the original is drawn filtered while its
 * replacement decodes, then the replacement (not filtered) takes its place. */
static void with_filter(const char *dir)
{
    pvk_config cfg = {.texture_pack_dir = dir, .scale = 2, .texture_filter = "bicubic"};
    ctx = th_context(&cfg, 0);
    upload_all();
    uint8_t fb[W * H * 4];
    draw(C_INVERT4);
    pvk_stats st = stats();
    CHECK_EQ(st.textures_filtered, 1);
    CHECK_EQ(st.textures_replaced, 0);
    for (int i = 0; i < 600 && !pvk_pack_idle(&ctx->vram); i++)
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    draw_out(C_INVERT4, fb);
    st = stats();
    CHECK_EQ(st.textures_replaced, 1);
    CHECK_EQ(st.textures_filtered, 1);
    uint8_t *a = scaled_inverted(C_INVERT4, 0, 4);
    CHECK_EQ(level_differs(C_INVERT4, 0, a, 128, 128), 0);
    free(a);
    th_release(ctx);
}

/* 64 MiB: the pack's share is 8 MiB; 12 replacements of 1 MiB and more. */
static void budget(void)
{
    const char *dir = make_dir("budget");
    enum { N = 12, TW = 128 };
    uint8_t *tex[N];
    uint8_t *big = malloc((size_t)TW * 4 * TW * 4 * 4);
    memset(big, 0x80, (size_t)TW * 4 * TW * 4 * 4);
    size_t len = tex_ref_level_offset(0, TW, TW, 1);
    for (int i = 0; i < N; i++) {
        tex[i] = malloc(len);
        for (size_t k = 0; k < len; k++)
            tex[i][k] = (uint8_t)th_rand();
        char name[128];
        snprintf(name, sizeof name, "tex1_%ux%u_%016llX_0_mip0.png", TW, TW,
                 (unsigned long long)pvk_cityhash64(tex[i], len));
        write_png(dir, name, big, TW * 4, TW * 4);
    }
    pack_json(dir, false, true, NULL);
    pvk_config cfg = {.texture_pack_dir = dir, .texture_pack_sync = 1, .memory_budget_mb = 64};
    ctx = th_context(&cfg, 0);
    uint64_t most = 0;
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < N; i++) {
            pvk_texture_desc d = {.addr = {TEX + (uint32_t)i * 0x20000u}, .width = TW, .height = TW, .format = 0,
                                  .levels = 1, .faces = 1};
            memcpy(pvk_guest_ptr(ctx, d.addr[0], (uint32_t)len), tex[i], len);
            pvk_guest_written(ctx, d.addr[0], (uint32_t)len);
            const pvk_texture *t = NULL;
            CHECK_EQ(pvk_texture_get(&ctx->vram, &d, &t), PVK_SUCCESS);
            CHECK(t && t->replaced && t->scale == 4);
            uint64_t held = stats().held_pack_bytes;
            most = held > most ? held : most;
        }
    CHECK(most <= 8u << 20);
    CHECK(most >= 4u << 20);
    CHECK_EQ(stats().textures_replaced, 2 * N);
    printf("budget: decoded replacements held at most %llu bytes of 8 MiB\n", (unsigned long long)most);
    th_release(ctx);
    for (int i = 0; i < N; i++)
        free(tex[i]);
    free(big);
}

/* The old hash's bytes (vram/oldhash.c) of every format against this
 * test's own reading of the facts: rows last-in-memory first; formats 0-4
 * each texel's guest bytes as stored (found through the Morton tables
 * written out), 5-13 the CPU reference decoder's RGBA. */
static void old_hash_bytes(void)
{
    static const uint8_t xl[8] = {0, 1, 4, 5, 16, 17, 20, 21}, yl[8] = {0, 2, 8, 10, 32, 34, 40, 42};
    static const uint32_t tb[5] = {4, 3, 2, 2, 2};
    int wrong = 0;
    for (uint32_t f = 0; f < 14; f++) {
        const uint32_t w = 32, h = 16;
        size_t len = tex_ref_level_bytes(f, w, h), n = 0;
        uint8_t *src = malloc(len), *want = malloc((size_t)w * h * 4);
        for (size_t i = 0; i < len; i++)
            src[i] = (uint8_t)th_rand();
        /* ETC1 differential blocks whose second base leaves 0..31: Citra's decode takes the sum as
         * a byte, the hardware's (and the reference's) in five bits; such blocks get delta 0 here */
        for (size_t b = f == 13 ? 8 : 0; f >= 12 && b < len; b += f == 13 ? 16 : 8) {
            uint64_t word = 0;
            for (int i = 7; i >= 0; i--)
                word = word << 8 | src[b + i];
            for (int c = 0; (word >> 33) & 1 && c < 3; c++) {
                unsigned at = 56 - 8 * (unsigned)c, b5 = (unsigned)(word >> (at + 3)) & 31;
                int dd = (int)((word >> at) & 7);
                dd = dd >= 4 ? dd - 8 : dd;
                if ((int)b5 + dd < 0 || (int)b5 + dd > 31)
                    word &= ~(7ull << at);
            }
            for (int i = 0; i < 8; i++)
                src[b + i] = (uint8_t)(word >> (8 * i));
        }
        uint8_t *got = pvk_old_hash_bytes(src, f, w, h, &n);
        CHECK(got != NULL);
        if (f < 5) {
            CHECK_EQ(n, (size_t)w * h * tb[f]);
            for (uint32_t y = 0; y < h; y++)
                for (uint32_t x = 0; x < w; x++) {
                    size_t at = ((size_t)(y / 8) * (w / 8) + x / 8) * 64 * tb[f] + (size_t)(xl[x % 8] + yl[y % 8]) * tb[f];
                    memcpy(want + ((size_t)(h - 1 - y) * w + x) * tb[f], src + at, tb[f]);
                }
        } else {
            CHECK_EQ(n, (size_t)w * h * 4);
            tex_ref_decode(src, w, h, f, want);
            flip_rows(want, w, h);
        }
        int d = got && n <= (size_t)w * h * 4 ? differ(got, want, n) : -1;
        if (d && wrong++ < 5)
            fprintf(stderr, "old hash bytes of format %u: %d bytes differ\n", f, d);
        CHECK(pvk_old_hash(src, f, w, h) == pvk_cityhash64(got, n));
        free(got);
        free(src);
        free(want);
    }
    CHECK_EQ(wrong, 0);
}

static void rm_tree(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char sub[700];
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        struct stat st;
        if (!stat(sub, &st) && S_ISDIR(st.st_mode))
            rm_tree(sub);
        else
            unlink(sub);
    }
    if (d)
        closedir(d);
    rmdir(path);
}

int main(void)
{
    CHECK(mkdtemp(root) != NULL);
    for (size_t ci = 0; ci < CASES; ci++) {
        const tcase *c = &cases[ci];
        size_t len = tex_ref_level_offset(c->format, c->w, c->h, c->levels);
        bytes[ci] = malloc(len);
        for (size_t i = 0; i < len; i++)
            bytes[ci][i] = (uint8_t)th_rand();
    }
    ctx = th_context(NULL, 0); /* the pictures without a pack */
    upload_all();
    for (size_t ci = 0; ci < CASES; ci++) {
        draw_out(ci, ref_fb[ci]);
        int drawn = 0; /* something of the texture: not one colour */
        for (size_t i = 4; i < W * H * 4; i++)
            drawn += ref_fb[ci][i] != ref_fb[ci][i % 4];
        CHECK(drawn > 0);
    }
    th_release(ctx);

    const char *main_dir = make_dir("pack");
    write_pack(main_dir, false);
    main_pack(main_dir, false);
    const char *flipped = make_dir("flipped");
    write_pack(flipped, true);
    main_pack(flipped, true);
    skip_mipmap();
    asynchronous(main_dir);
    with_filter(main_dir);
    budget();

    old_hash_bytes();
    /* no pack.json: legacy, the old hash; the main pack's files (new hashes) match nothing, a file
     * named with the old hash of C_INVERT4 replaces it */
    char pj[700];
    snprintf(pj, sizeof pj, "%s/pack.json", main_dir);
    unlink(pj);
    uint8_t *a = scaled_inverted(C_INVERT4, 0, 4);
    char name[128];
    snprintf(name, sizeof name, "tex1_32x32_%016llX_0.png",
             (unsigned long long)pvk_old_hash(bytes[C_INVERT4], 0, 32, 32));
    write_png(main_dir, name, a, 128, 128);
    free(a);
    pvk_config cfg = {.texture_pack_dir = main_dir, .texture_pack_sync = 1};
    ctx = th_context(&cfg, 0);
    upload_all();
    uint8_t fb[W * H * 4], want[W * H * 4];
    draw_out(C_INVERT4, fb);
    inverted_fb(ref_fb[C_INVERT4], want);
    CHECK_EQ(differ(fb, want, sizeof fb), 0);
    draw_out(C_MAPPED, fb);
    CHECK_EQ(differ(fb, ref_fb[C_MAPPED], sizeof fb), 0);
    CHECK_EQ(stats().textures_replaced, 1);
    th_release(ctx);
    /* not a folder: no context */
    pvk_context *none = NULL;
    pvk_config bad = {.texture_pack_dir = pj, .validation = 1, .log = th_log};
    th_quiet_errors = 1;
    CHECK_EQ(pvk_context_create(&bad, &none), PVK_ERROR_INVALID_ARGUMENT);
    th_quiet_errors = 0;
    CHECK(none == NULL);

    rm_tree(root);
    for (size_t ci = 0; ci < CASES; ci++)
        free(bytes[ci]);
    return th_finish("test_texture_pack");
}
