/* Texture dumps (pvk_config.texture_dump_dir, vram/dump.c): draws sample
 * random textures of all 14 formats, some with mip levels, a cube map and a
 * size that is not a power of two; after the context's end the dump folder
 * holds exactly one PNG per power-of-two level and face, named
 * tex1_{W}x{H}_{HASH:016X}_{FORMAT}_mip{LEVEL}.png with HASH the CityHash64
 * of the level's guest bytes (computed here), whose pixels equal the CPU
 * reference decoder's (tests/ref/tex_ref.c) texel for texel, first row first;
 * a pack.json template; pvk_stats.textures_dumped says as many.  A texture
 * drawn twice is dumped once; a second context over the same folder writes
 * nothing (the files are there); no folder, no dump. */
#include <dirent.h>
#include <png.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define W 32u
#define H 32u
#include "draw_common.h"
#include "tex_ref.h"
#include "translator/translator.h"

#define TEX 0x18100000u /* textures one after another, 64 KiB apart at least */

typedef struct tcase {
    uint32_t w, h, format, levels, faces;
} tcase;

static const tcase cases[] = {
    {32, 32, 0, 1, 1},  {64, 32, 1, 1, 1},  {32, 64, 2, 2, 1},  {16, 16, 3, 1, 1},  {32, 32, 4, 3, 1},
    {64, 64, 5, 1, 1},  {32, 16, 6, 1, 1},  {128, 32, 7, 2, 1}, {32, 32, 8, 1, 1},  {16, 32, 9, 1, 1},
    {64, 16, 10, 1, 1}, {32, 32, 11, 2, 1}, {64, 64, 12, 3, 1}, {32, 32, 13, 1, 1}, {16, 16, 0, 1, 6},
    {24, 16, 0, 1, 1}, /* not a power of two: not dumped */
};
#define CASES (sizeof cases / sizeof cases[0])

static uint32_t addr_of(size_t c, uint32_t face)
{
    return TEX + (uint32_t)c * 0x30000u + face * 0x800u;
}

/* A quad over the target, texture coordinates 0..1, sampling unit 0 (a cube map: face +x's direction). */
static void draw(const tcase *c, size_t ci)
{
    setup_rgba8_target(FB, W, H);
    static const uint32_t outmap[3] = {0x03020100, 0x0B0A0908, 0x1F1F0D0C};
    upload_mov_shader(3, outmap);
    for (unsigned s = 0; s < 6; s++) { /* stage 0: texture 0, replace; the rest pass it on */
        uint32_t v = s ? 15u : 3u, base = s < 4 ? PVK_GPUREG_TEXENV0_SOURCE + 8 * s : PVK_GPUREG_TEXENV0_SOURCE + 8 * s + 16;
        reg(base, v | v << 16);
        reg(base + 1, 0);
        reg(base + 2, 0);
        reg(base + 4, 0);
    }
    reg(PVK_GPUREG_TEXUNIT0_DIM, c->h | c->w << 16);
    reg(PVK_GPUREG_TEXUNIT0_PARAM, (c->format == 12 ? 2u << 4 : 0) | (c->faces == 6 ? 1u << 28 : 0));
    reg(PVK_GPUREG_TEXUNIT0_LOD, (c->levels - 1) << 16);
    reg(PVK_GPUREG_TEXUNIT0_ADDR1, addr_of(ci, 0) >> 3);
    for (uint32_t f = 1; f < c->faces; f++)
        reg(PVK_GPUREG_TEXUNIT0_ADDR1 + f, addr_of(ci, f) >> 3);
    reg(PVK_GPUREG_TEXUNIT0_TYPE, c->format);
    reg(PVK_GPUREG_TEXUNIT_CONFIG, 1u | 1u << 12 | 1u << 16);
    static const float pos[4][2] = {{-1, -1}, {1, -1}, {-1, 1}, {1, 1}};
    float v[4][12] = {{0}};
    for (int i = 0; i < 4; i++) {
        v[i][0] = pos[i][0], v[i][1] = pos[i][1], v[i][2] = -0.5f, v[i][3] = 1;
        v[i][4] = v[i][5] = v[i][6] = v[i][7] = 1;
        v[i][8] = (pos[i][0] + 1) / 2, v[i][9] = (pos[i][1] + 1) / 2, v[i][10] = c->faces == 6 ? 1.0f : 0;
    }
    if (c->faces == 6) /* a direction along +x: (1, t, s) */
        for (int i = 0; i < 4; i++)
            v[i][8] = 1.0f, v[i][9] = pos[i][1] * 0.5f, v[i][10] = pos[i][0] * 0.5f;
    memcpy(pvk_guest_ptr(ctx, VB, sizeof v), v, sizeof v);
    pvk_guest_written(ctx, VB, sizeof v);
    reg(PVK_GPUREG_PRIMITIVE_CONFIG, (1u << 8) | 2);
    reg(PVK_GPUREG_NUMVERTICES, 4);
    reg(PVK_GPUREG_VERTEX_OFFSET, 0);
    reg(PVK_GPUREG_DRAWARRAYS, 1);
}

static uint8_t *read_png(const char *path, uint32_t *w, uint32_t *h)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, path))
        return NULL;
    img.format = PNG_FORMAT_RGBA;
    uint8_t *px = malloc(PNG_IMAGE_SIZE(img));
    if (!px || !png_image_finish_read(&img, NULL, px, 0, NULL)) {
        free(px);
        png_image_free(&img);
        return NULL;
    }
    *w = img.width, *h = img.height;
    return px;
}

static int count_pngs(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strstr(e->d_name, ".png") != NULL;
    if (d)
        closedir(d);
    return n;
}

static uint8_t *bytes[CASES][6]; /* each face's levels as written to guest memory */

/* A context dumping into `dir` ("" none) draws every case twice. */
static void draw_all(const char *dir)
{
    pvk_config cfg = {.texture_dump_dir = dir};
    ctx = th_context(&cfg, 0);
    for (size_t ci = 0; ci < CASES; ci++) {
        const tcase *c = &cases[ci];
        size_t len = tex_ref_level_offset(c->format, c->w, c->h, c->levels);
        for (uint32_t f = 0; f < c->faces; f++) {
            uint8_t *p = pvk_guest_ptr(ctx, addr_of(ci, f), (uint32_t)len);
            memcpy(p, bytes[ci][f], len);
            pvk_guest_written(ctx, addr_of(ci, f), (uint32_t)len);
        }
        draw(c, ci);
        draw(c, ci); /* again: dumped once */
    }
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
}

/* pvk_stats.textures_dumped once the worker has caught up with `want` (or 60 s passed). */
static uint64_t dumped(uint64_t want)
{
    pvk_stats st = stats();
    for (int i = 0; i < 600 && st.textures_dumped + st.texture_dump_failures < want; i++) {
        nanosleep(&(struct timespec){0, 100000000}, NULL);
        st = stats();
    }
    CHECK_EQ(st.texture_dump_failures, 0);
    return st.textures_dumped;
}

int main(void)
{
    char dir[] = "/tmp/picavk-dump-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    uint64_t expected = 0;
    for (size_t ci = 0; ci < CASES; ci++) {
        const tcase *c = &cases[ci];
        size_t len = tex_ref_level_offset(c->format, c->w, c->h, c->levels);
        for (uint32_t f = 0; f < c->faces; f++) {
            bytes[ci][f] = malloc(len);
            for (size_t i = 0; i < len; i++)
                bytes[ci][f][i] = (uint8_t)th_rand();
        }
        if (!(c->w & (c->w - 1)) && !(c->h & (c->h - 1)))
            expected += c->levels * c->faces;
    }
    draw_all(dir);
    CHECK_EQ(dumped(expected), expected);
    th_release(ctx);
    CHECK_EQ(count_pngs(dir), (int)expected);
    /* each level of each face: its name, its pixels */
    int wrong = 0, missing = 0;
    for (size_t ci = 0; ci < CASES; ci++) {
        const tcase *c = &cases[ci];
        for (uint32_t f = 0; f < c->faces; f++)
            for (uint32_t l = 0; l < c->levels; l++) {
                uint32_t lw = c->w >> l, lh = c->h >> l;
                const uint8_t *level = bytes[ci][f] + tex_ref_level_offset(c->format, c->w, c->h, l);
                char path[512];
                snprintf(path, sizeof path, "%s/tex1_%ux%u_%016llX_%u_mip%u.png", dir, lw, lh,
                         (unsigned long long)pvk_cityhash64(level, tex_ref_level_bytes(c->format, lw, lh)),
                         c->format, l);
                uint32_t pw = 0, ph = 0;
                uint8_t *png = read_png(path, &pw, &ph);
                bool pot = !(c->w & (c->w - 1)) && !(c->h & (c->h - 1));
                if (!pot) {
                    CHECK(png == NULL);
                    free(png);
                    continue;
                }
                if (!png) {
                    if (missing++ < 5)
                        fprintf(stderr, "missing: %s\n", path);
                    continue;
                }
                CHECK_EQ(pw, lw);
                CHECK_EQ(ph, lh);
                uint8_t *ref = malloc((size_t)lw * lh * 4);
                tex_ref_decode(level, lw, lh, c->format, ref);
                int d = pw == lw && ph == lh ? differ(png, ref, (size_t)lw * lh * 4) : 1;
                if (d && wrong++ < 5)
                    fprintf(stderr, "%s: %d bytes differ from the reference decode\n", path, d);
                free(ref);
                free(png);
            }
    }
    CHECK_EQ(missing, 0);
    CHECK_EQ(wrong, 0);
    char path[512];
    snprintf(path, sizeof path, "%s/pack.json", dir);
    FILE *pj = fopen(path, "r");
    char text[1024] = "";
    CHECK(pj != NULL);
    if (pj) {
        size_t n = fread(text, 1, sizeof text - 1, pj);
        text[n] = 0;
        fclose(pj);
    }
    CHECK(strstr(text, "\"use_new_hash\": true") != NULL);
    CHECK(strstr(text, "\"skip_mipmap\": false") != NULL);
    CHECK(strstr(text, "\"flip_png_files\": true") != NULL);
    /* the files are there: a second context writes none; without a folder nothing is dumped */
    draw_all(dir);
    CHECK_EQ(stats().textures_dumped, 0);
    th_release(ctx);
    CHECK_EQ(count_pngs(dir), (int)expected);
    unsetenv("PVK_TEXTURE_DUMP");
    draw_all("");
    CHECK_EQ(stats().textures_dumped, 0);
    th_release(ctx);
    printf("%llu levels dumped and checked in %s\n", (unsigned long long)expected, dir);
    /* the folder goes */
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
    for (size_t ci = 0; ci < CASES; ci++)
        for (uint32_t f = 0; f < 6; f++)
            free(bytes[ci][f]);
    return th_finish("test_texture_dump");
}
