/* Textures sampled in draws: TEV sources texture 0-2 read their units
 * through the generated fragment shader, compared pixel by pixel with a CPU
 * model of the texture unit (tests/ref/sample_ref.c over the reference
 * decoder tests/ref/tex_ref.c).
 *
 * A full-target quad carries texture coordinates that put every pixel
 * centre at least 1/8 texel away from a texel edge, so the nearest filter
 * has one right answer: random textures of all 14 formats x the four wraps
 * x nearest/linear (exact for nearest; linear within LINEAR_TOL per channel,
 * texels next to a border the shader applies are skipped, see below); level
 * selection by the LOD registers (min level, max level, bias) and by
 * minification, levels past 8x8 clamped, the linear mip filter halfway
 * between two levels; units 1 and 2 (texture coordinates 1, 2, and 2 taking
 * 1's); the six faces of a cube map; a projection texture; the border colour
 * applied by the shader on a device without custom border colours
 * (PVK_DEBUG=no-custom-border); shadow 2D textures against the emulators'
 * comparison model and a shadow buffer drawn in shadow mode sampled from its
 * surface, a shadow cube counted unsupported and reading 0;
 * render-to-texture (a draw samples what the draw before rendered, no
 * write-back); draws with a cached texture stay in one batch; a texture the
 * host rewrites is seen; a reserved wrap mode is counted.  Again on
 * PVK_DEBUG=roundtrip, the draw path without the surface cache. */
#include <math.h>
#include <stdbool.h>

#define W 64u
#define H 64u
#include "draw_common.h"
#include "runtime/runtime.h"
#include "sample_ref.h"
#include "tex_ref.h"

#define TEX0 0x18100000u
#define TEX1 0x18140000u
#define TEX2 0x18180000u
#define RTT 0x18280000u /* render-to-texture target, 32 x 32 RGBA8 */
#define LINEAR_TOL 1    /* linear filtering: most a channel may differ from the rounded model */

static const char *const format_names[14] = {"RGBA8", "RGB8", "RGBA5551", "RGB565", "RGBA4", "LA8", "HILO8",
                                             "L8",    "A8",   "LA4",      "L4",     "A4",    "ETC1", "ETC1A4"};

/* MOV o0-o3, v0-v3; END. */
static void upload_shader4(void)
{
    static const uint32_t outmap[4] = {0x03020100, 0x1F100D0C, 0x1F1F0F0E, 0x1F1F1716};
    upload_mov_shader(4, outmap);
}

/* TEV stage 0 = `src` (RGB and alpha, replace); stages 1-5 pass it on. */
static void tev_source(unsigned src)
{
    static const uint16_t base[6] = {PVK_GPUREG_TEXENV0_SOURCE, PVK_GPUREG_TEXENV1_SOURCE,
                                     PVK_GPUREG_TEXENV2_SOURCE, PVK_GPUREG_TEXENV3_SOURCE,
                                     PVK_GPUREG_TEXENV4_SOURCE, PVK_GPUREG_TEXENV5_SOURCE};
    for (unsigned s = 0; s < 6; s++) {
        uint32_t v = s ? 15 : src;
        reg(base[s], v | v << 4 | v << 8 | v << 16 | v << 20 | v << 24);
        reg(base[s] + 1, 0);
        reg(base[s] + 2, 0);
        reg(base[s] + 4, 0);
    }
}

static void setup_target(uint32_t addr, uint32_t w, uint32_t h)
{
    setup_rgba8_target(addr, w, h);
    merger_replace();
}

/* The quad's corners: texture coordinates 0 (s, t, w), 1 and 2 at the
 * bottom-left, bottom-right, top-left and top-right of the target. */
typedef struct corners {
    float tc0[4][3], tc1[4][2], tc2[4][2];
} corners;

/* A quad over the whole target as a strip from vertex slot `slot` (256
 * bytes each), not waited for. */
static void draw_quad_at(const corners *c, uint32_t slot)
{
    static const float pos[4][2] = {{-1, -1}, {1, -1}, {-1, 1}, {1, 1}};
    float v[4][16] = {{0}};
    for (int i = 0; i < 4; i++) {
        v[i][0] = pos[i][0], v[i][1] = pos[i][1], v[i][2] = -0.5f, v[i][3] = 1;
        memcpy(&v[i][4], c->tc0[i], 12);
        memcpy(&v[i][8], c->tc1[i], 8);
        memcpy(&v[i][12], c->tc2[i], 8);
    }
    uint32_t at = VB + slot * 256; /* read by the CPU at the draw: no wait needed */
    memcpy(pvk_guest_ptr(ctx, at, sizeof v), v, sizeof v);
    pvk_guest_written(ctx, at, sizeof v);
    reg(PVK_GPUREG_ATTRIBBUFFERS_LOC, at >> 3);
    reg(PVK_GPUREG_PRIMITIVE_CONFIG, (1u << 8) | 3); /* strip, 4 outputs */
    reg(PVK_GPUREG_NUMVERTICES, 4);
    reg(PVK_GPUREG_VERTEX_OFFSET, 0);
    reg(PVK_GPUREG_DRAWARRAYS, 1);
}

/* The same from slot 0, waited for. */
static void draw_quad(const corners *c)
{
    draw_quad_at(c, 0);
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
}

/* Every texture coordinate set the same: s across from s0 to s1, t up from
 * t0 to t1, w 1. */
static corners plain(float s0, float t0, float s1, float t1)
{
    corners c;
    const float st[4][2] = {{s0, t0}, {s1, t0}, {s0, t1}, {s1, t1}};
    for (int i = 0; i < 4; i++) {
        c.tc0[i][0] = st[i][0], c.tc0[i][1] = st[i][1], c.tc0[i][2] = 1;
        memcpy(c.tc1[i], st[i], 8);
        memcpy(c.tc2[i], st[i], 8);
    }
    return c;
}

/* One unit as its registers hold it. */
typedef struct unit_cfg {
    uint32_t addr, w, h, format, levels;
    unsigned wrap_s, wrap_t, mag, min, mip;
    uint32_t border;
    uint32_t type;          /* unit 0 only */
    int32_t bias;           /* fixed1.4.8 */
    uint32_t min_level;
} unit_cfg;

static void set_unit(unsigned u, const unit_cfg *c)
{
    static const uint16_t base[3] = {PVK_GPUREG_TEXUNIT0_BORDER_COLOR, PVK_GPUREG_TEXUNIT1_BORDER_COLOR,
                                     PVK_GPUREG_TEXUNIT2_BORDER_COLOR};
    static const uint16_t type[3] = {PVK_GPUREG_TEXUNIT0_TYPE, PVK_GPUREG_TEXUNIT1_TYPE, PVK_GPUREG_TEXUNIT2_TYPE};
    bool shadow = c->type == 2 || c->type == 4;
    reg(base[u], c->border);
    reg(base[u] + 1, c->h | c->w << 16);
    reg(base[u] + 2, c->mag << 1 | c->min << 2 | (c->format == 12 ? 2u << 4 : 0) | c->wrap_t << 8 |
                         c->wrap_s << 12 | (shadow ? 1u << 20 : 0) | c->mip << 24 | (u == 0 ? c->type << 28 : 0));
    reg(base[u] + 3, ((uint32_t)c->bias & 0x1FFF) | (c->levels - 1) << 16 | c->min_level << 24);
    reg(base[u] + 4, c->addr >> 3);
    reg(type[u], c->format);
}

/* TEXUNIT_CONFIG: units enabled (bits 0-2), texture 2 on coordinates 1,
 * citro3d's bit 12, and the clear-texture-cache bit it writes with binds. */
static void enable_units(uint32_t mask, bool tex2_tc1)
{
    reg(PVK_GPUREG_TEXUNIT_CONFIG, mask | 1u << 12 | (tex2_tc1 ? 1u << 13 : 0) | 1u << 16);
}

/* Random texels for `faces` faces of `levels` levels one after another at
 * addr (faces `stride` bytes apart), and the reference decode of each
 * (rgba[face][level], malloc'd). */
static void random_texture(uint32_t addr, uint32_t stride, unsigned faces, const unit_cfg *c,
                           uint8_t *rgba[6][8])
{
    size_t len = tex_ref_level_offset(c->format, c->w, c->h, c->levels);
    pvk_wait_idle(ctx);
    for (unsigned f = 0; f < faces; f++) {
        uint8_t *p = pvk_guest_ptr(ctx, addr + f * stride, (uint32_t)len);
        for (size_t i = 0; i < len; i++)
            p[i] = (uint8_t)th_rand();
        pvk_guest_written(ctx, addr + f * stride, (uint32_t)len);
        for (unsigned l = 0; l < c->levels; l++) {
            unsigned w = c->w >> l, h = c->h >> l;
            rgba[f][l] = NULL;
            if (w < 8 || h < 8) /* the reference decodes whole tiles */
                continue;
            rgba[f][l] = malloc((size_t)w * h * 4);
            tex_ref_decode(p + tex_ref_level_offset(c->format, c->w, c->h, l), w, h, c->format, rgba[f][l]);
        }
    }
}

static void free_texture(unsigned faces, unsigned levels, uint8_t *rgba[6][8])
{
    for (unsigned f = 0; f < faces; f++)
        for (unsigned l = 0; l < levels; l++)
            free(rgba[f][l]);
}

/* Window pixel (x, y) of the colour buffer read back (memory bytes A, B, G, R). */
static void pixel(const uint8_t *fb, uint32_t x, uint32_t y, uint8_t out[4])
{
    const uint8_t *p = fb + tiled_index(x, y) * 4;
    out[0] = p[3], out[1] = p[2], out[2] = p[1], out[3] = p[0];
}

/* What the model says pixel (x, y) shows, or false to skip it. */
typedef bool (*expect_fn)(void *user, uint32_t x, uint32_t y, uint8_t out[4]);

/* Compare the whole target with `expect`; returns the largest difference. */
static int compare(const char *what, expect_fn expect, void *user, int tol)
{
    static uint8_t fb[W * H * 4];
    copy_out(fb, FB);
    int worst = 0, bad = 0, reported = 0;
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            uint8_t e[4], g[4];
            if (!expect(user, x, y, e))
                continue;
            pixel(fb, x, y, g);
            int d = 0;
            for (int k = 0; k < 4; k++)
                d = abs(e[k] - g[k]) > d ? abs(e[k] - g[k]) : d;
            worst = d > worst ? d : worst;
            if (d > tol) {
                bad++;
                if (reported++ < 3)
                    fprintf(stderr, "%s: pixel (%u, %u) is %02X%02X%02X%02X, the model says %02X%02X%02X%02X\n", what,
                            x, y, g[0], g[1], g[2], g[3], e[0], e[1], e[2], e[3]);
            }
        }
    CHECK_EQ(bad, 0);
    return worst;
}

/* ---- 2D textures ---- */

typedef struct plain_case {
    const uint8_t *level;
    unsigned w, h;
    sample_ref_unit ref;
    float s0, t0, s1, t1;
    bool shader_border; /* the border goes through the shader: skip texels whose bilinear footprint straddles it */
} plain_case;

static double coord(float a, float b, uint32_t i, uint32_t n)
{
    return a + ((double)i + 0.5) / n * (b - a);
}

/* Does a linear footprint at texel coordinate x (of n) straddle the border edge? */
static bool straddles(double x, unsigned n)
{
    double p = x * n - 0.5;
    return (p > -1 && p < 0) || (p > n - 1 && p < n);
}

static bool expect_plain(void *user, uint32_t x, uint32_t y, uint8_t out[4])
{
    const plain_case *c = user;
    double s = coord(c->s0, c->s1, x, W), t = coord(c->t0, c->t1, y, H);
    if (c->shader_border && c->ref.linear &&
        ((c->ref.wrap_s == 1 && straddles(s, c->w)) || (c->ref.wrap_t == 1 && straddles(t, c->h))))
        return false;
    sample_ref_2d(&c->ref, c->level, c->w, c->h, s, t, out);
    return true;
}

static bool swizzled(uint32_t format)
{
    return format >= 5 && format <= 11; /* L, A, LA, HILO: decoded to one or two channels */
}

/* Every format x wrap x filter, random sizes and border colours. */
static void formats_wraps_filters(bool no_custom_border)
{
    static const char *const wraps[4] = {"edge", "border", "repeat", "mirror"};
    int worst_linear = 0;
    uint64_t borders = stats().shader_borders;
    for (uint32_t format = 0; format < 14; format++)
        for (unsigned wrap = 0; wrap < 4; wrap++)
            for (unsigned linear = 0; linear < 2; linear++) {
                if (no_custom_border && wrap != 1)
                    continue;
                unit_cfg u = {.addr = TEX0, .w = 8u << th_rand_range(0, 3), .h = 8u << th_rand_range(0, 3),
                              .format = format, .levels = 1, .wrap_s = wrap, .wrap_t = wrap, .mag = linear,
                              .min = linear, .border = th_rand()};
                uint8_t *rgba[6][8];
                random_texture(TEX0, 0, 1, &u, rgba);
                set_unit(0, &u);
                enable_units(1, false);
                tev_source(3);
                plain_case c = {rgba[0][0], u.w, u.h, {wrap, wrap, (int)linear, {0}}, -1, -1, 2, 2,
                                no_custom_border || swizzled(format)};
                for (int k = 0; k < 4; k++)
                    c.ref.border[k] = (uint8_t)(u.border >> (8 * k));
                corners q = plain(c.s0, c.t0, c.s1, c.t1);
                draw_quad(&q);
                char what[96];
                snprintf(what, sizeof what, "%s %ux%u wrap %s %s%s", format_names[format], u.w, u.h, wraps[wrap],
                         linear ? "linear" : "nearest", no_custom_border ? " (no custom border colours)" : "");
                int d = compare(what, expect_plain, &c, linear ? LINEAR_TOL : 0);
                if (linear)
                    worst_linear = d > worst_linear ? d : worst_linear;
                free_texture(1, 1, rgba);
            }
    printf("linear filtering: largest difference from the rounded bilinear model %d (tolerance %d)%s\n", worst_linear,
           LINEAR_TOL, no_custom_border ? ", no custom border colours" : "");
    /* every border case went through the shader without custom border colours;
     * with them only the swizzled formats did (7 formats x 2 filters) */
    CHECK_EQ(stats().shader_borders - borders, no_custom_border ? 28u : 14u);
}

/* ---- levels of detail ---- */

typedef struct mip_case {
    const uint8_t *levels[2]; /* levels 1 and 2 of a 32x32 texture */
    float range;
} mip_case;

/* Nearest texels of levels 1 and 2, mixed half and half (the level of
 * detail is 1.5); pixels within 1/20 texel of an edge on either level are
 * not judged. */
static bool expect_trilinear(void *user, uint32_t x, uint32_t y, uint8_t out[4])
{
    const mip_case *c = user;
    double s = coord(0, c->range, x, W), t = coord(0, c->range, y, H);
    sample_ref_unit u = {2, 2, 0, {0}};
    uint8_t a[2][4];
    for (int l = 0; l < 2; l++) {
        unsigned n = 16u >> l;
        double fs = s * n - floor(s * n), ft = t * n - floor(t * n);
        if (fs < 0.05 || fs > 0.95 || ft < 0.05 || ft > 0.95)
            return false;
        sample_ref_2d(&u, c->levels[l], n, n, s, t, a[l]);
    }
    for (int k = 0; k < 4; k++)
        out[k] = (uint8_t)((a[0][k] + a[1][k] + 1) / 2);
    return true;
}

/* The linear mip filter between two levels: 2^1.5 texels a pixel. */
static void trilinear(void)
{
    unit_cfg u = {.addr = TEX0, .w = 32, .h = 32, .format = 0, .levels = 3, .wrap_s = 2, .wrap_t = 2, .mip = 1};
    uint8_t *rgba[6][8];
    random_texture(TEX0, 0, 1, &u, rgba);
    set_unit(0, &u);
    enable_units(1, false);
    tev_source(3);
    mip_case c = {{rgba[0][1], rgba[0][2]}, 4.0f * sqrtf(2.0f)};
    corners q = plain(0, 0, c.range, c.range);
    draw_quad(&q);
    /* half of an odd difference rounds either way */
    int worst = compare("mip linear at LOD 1.5", expect_trilinear, &c, 1);
    printf("mip linear halfway between levels: largest difference from the model %d (tolerance 1)\n", worst);
    free_texture(1, 3, rgba);
}

static void lod(void)
{
    static const struct {
        const char *what;
        float range;          /* s, t from 0 to range: range * 32 / 64 texels per pixel */
        uint32_t levels, min_level;
        int32_t bias;
        unsigned expect;      /* level sampled */
    } cases[] = {
        {"magnified", 1, 3, 0, 0, 0},
        {"magnified, min level 1", 1, 3, 1, 0, 1},
        {"magnified, bias +2", 1, 3, 0, 2 * 256, 1},
        {"2 texels a pixel", 4, 3, 0, 0, 1},
        {"2 texels a pixel, max level 0", 4, 1, 0, 0, 0},
        {"4 texels a pixel", 8, 3, 0, 0, 2},
        {"4 texels a pixel, bias -1", 8, 3, 0, -256, 1},
        {"4 texels a pixel, min level 2 max 2", 8, 3, 2, 0, 2},
        /* levels to 1x1: those under 8x8 are not decoded, the 8x8 one stands in */
        {"8 texels a pixel, levels down to 1x1", 16, 6, 0, 0, 2},
    };
    uint64_t unsupported = stats().unsupported;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unit_cfg u = {.addr = TEX0, .w = 32, .h = 32, .format = 0, .levels = cases[i].levels, .wrap_s = 2,
                      .wrap_t = 2, .bias = cases[i].bias, .min_level = cases[i].min_level};
        uint8_t *rgba[6][8];
        random_texture(TEX0, 0, 1, &u, rgba);
        set_unit(0, &u);
        enable_units(1, false);
        tev_source(3);
        unsigned l = cases[i].expect;
        /* shifted by 1/256: pixel centres stay off texel edges at every level and ratio used */
        const float o = 1.0f / 256;
        plain_case c = {rgba[0][l], 32 >> l, 32 >> l, {2, 2, 0, {0}}, o, o, cases[i].range + o, cases[i].range + o,
                        false};
        corners q = plain(c.s0, c.t0, c.s1, c.t1);
        draw_quad(&q);
        compare(cases[i].what, expect_plain, &c, 0);
        free_texture(1, u.levels, rgba);
    }
    CHECK_EQ(stats().unsupported - unsupported, 1); /* the last case */
    trilinear();
}

/* ---- units 1 and 2 ---- */

typedef struct swap_case {
    plain_case p;
    int map; /* 0: (s, t); 1: (t, s); 2: (1 - s, t) of the plain coordinates */
} swap_case;

static bool expect_mapped(void *user, uint32_t x, uint32_t y, uint8_t out[4])
{
    const swap_case *c = user;
    double s = coord(c->p.s0, c->p.s1, x, W), t = coord(c->p.t0, c->p.t1, y, H);
    double ms = c->map == 1 ? t : c->map == 2 ? 1 - s : s, mt = c->map == 1 ? s : t;
    sample_ref_2d(&c->p.ref, c->p.level, c->p.w, c->p.h, ms, mt, out);
    return true;
}

static void units_1_2(void)
{
    /* three different textures; tc1 = (t, s), tc2 = (1 - s, t) */
    unit_cfg u[3];
    uint8_t *rgba[3][6][8];
    static const uint32_t addr[3] = {TEX0, TEX1, TEX2}, fmt[3] = {3, 5, 12};
    for (unsigned i = 0; i < 3; i++) {
        u[i] = (unit_cfg){.addr = addr[i], .w = 16 << i, .h = 32 >> i, .format = fmt[i], .levels = 1, .wrap_s = 2,
                          .wrap_t = 3};
        random_texture(addr[i], 0, 1, &u[i], rgba[i]);
        set_unit(i, &u[i]);
    }
    corners q = plain(-1, -1, 2, 2);
    for (int i = 0; i < 4; i++) {
        float s = q.tc0[i][0], t = q.tc0[i][1];
        q.tc1[i][0] = t, q.tc1[i][1] = s;
        q.tc2[i][0] = 1 - s, q.tc2[i][1] = t;
    }
    static const struct {
        const char *what;
        unsigned unit;
        bool tex2_tc1;
        int map;
    } cases[] = {
        {"unit 0 on texcoord 0", 0, false, 0},
        {"unit 1 on texcoord 1", 1, false, 1},
        {"unit 2 on texcoord 2", 2, false, 2},
        {"unit 2 on texcoord 1", 2, true, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned n = cases[i].unit;
        enable_units(7, cases[i].tex2_tc1);
        tev_source(3 + n);
        swap_case c = {{rgba[n][0][0], u[n].w, u[n].h, {2, 3, 0, {0}}, -1, -1, 2, 2, false}, cases[i].map};
        draw_quad(&q);
        compare(cases[i].what, expect_mapped, &c, 0);
    }
    /* a disabled unit reads 0 */
    enable_units(3, false);
    tev_source(5);
    draw_quad(&q);
    static uint8_t fb[W * H * 4];
    copy_out(fb, FB);
    uint8_t g[4];
    pixel(fb, 10, 10, g);
    CHECK(!g[0] && !g[1] && !g[2] && !g[3]);
    for (unsigned i = 0; i < 3; i++)
        free_texture(1, 1, rgba[i]);
}

/* ---- cube maps ---- */

typedef struct cube_case {
    uint8_t *faces[6];
    unsigned size;
    float dir[4][3]; /* at the corners */
    unsigned face;   /* the face every pixel must land on */
} cube_case;

static bool expect_cube(void *user, uint32_t x, uint32_t y, uint8_t out[4])
{
    const cube_case *c = user;
    double fx = ((double)x + 0.5) / W, fy = ((double)y + 0.5) / H, d[3];
    for (int k = 0; k < 3; k++) /* bilinear over the quad, as the rasteriser interpolates */
        d[k] = (c->dir[0][k] * (1 - fx) + c->dir[1][k] * fx) * (1 - fy) + (c->dir[2][k] * (1 - fx) + c->dir[3][k] * fx) * fy;
    unsigned face;
    double s, t;
    sample_ref_cube_face(d[0], d[1], d[2], &face, &s, &t);
    CHECK_EQ(face, c->face);
    sample_ref_unit u = {0, 0, 0, {0}};
    sample_ref_2d(&u, c->faces[face], c->size, c->size, s, t, out);
    return true;
}

static void cube(void)
{
    unit_cfg u = {.addr = TEX0, .w = 16, .h = 16, .format = 0, .levels = 1, .type = 1};
    uint32_t stride = 0x1000;
    uint8_t *rgba[6][8];
    random_texture(TEX0, stride, 6, &u, rgba);
    set_unit(0, &u);
    for (unsigned f = 1; f < 6; f++)
        reg(PVK_GPUREG_TEXUNIT0_ADDR2 + f - 1, (TEX0 + f * stride) >> 3);
    enable_units(1, false);
    tev_source(3);
    static const char *const names[6] = {"+X", "-X", "+Y", "-Y", "+Z", "-Z"};
    for (unsigned f = 0; f < 6; f++) {
        cube_case c = {.size = 16, .face = f};
        for (unsigned i = 0; i < 6; i++)
            c.faces[i] = rgba[i][0];
        /* the major axis +-1 everywhere, the other two across and up the quad from -0.9 to 0.9 */
        unsigned major = f / 2, a = (major + 1) % 3, b = (major + 2) % 3;
        float sign = f % 2 ? -1.0f : 1.0f;
        static const float corner[4][2] = {{-0.9f, -0.9f}, {0.9f, -0.9f}, {-0.9f, 0.9f}, {0.9f, 0.9f}};
        corners q = plain(0, 0, 1, 1);
        for (int i = 0; i < 4; i++) {
            c.dir[i][major] = sign;
            c.dir[i][a] = corner[i][0];
            c.dir[i][b] = corner[i][1];
            q.tc0[i][0] = c.dir[i][0], q.tc0[i][1] = c.dir[i][1], q.tc0[i][2] = c.dir[i][2];
        }
        draw_quad(&q);
        char what[32];
        snprintf(what, sizeof what, "cube face %s", names[f]);
        compare(what, expect_cube, &c, 0);
    }
    free_texture(6, 1, rgba);
}

/* ---- projection ---- */

typedef struct proj_case {
    const uint8_t *level;
    unsigned w, h;
    float st[4][2], q[4]; /* s, t and w of texture coordinate 0 at the corners (s and t already times w) */
} proj_case;

/* A value given at the corners (bottom-left, bottom-right, top-left,
 * top-right) where the strip's two triangles interpolate it: (BL, BR, TL)
 * below the diagonal from BR to TL, (TL, BR, TR) above. */
static double lerp4(const float v[4], double fx, double fy)
{
    if (fx + fy <= 1)
        return v[0] + (v[1] - v[0]) * fx + (v[2] - v[0]) * fy;
    return v[3] + (v[2] - v[3]) * (1 - fx) + (v[1] - v[3]) * (1 - fy);
}

static bool expect_proj(void *user, uint32_t x, uint32_t y, uint8_t out[4])
{
    const proj_case *c = user;
    double fx = ((double)x + 0.5) / W, fy = ((double)y + 0.5) / H;
    float s4[4], t4[4];
    for (int i = 0; i < 4; i++)
        s4[i] = c->st[i][0], t4[i] = c->st[i][1];
    double q = lerp4(c->q, fx, fy), s = lerp4(s4, fx, fy) / q, t = lerp4(t4, fx, fy) / q;
    /* texel edges the interpolation may round either way: not judged */
    double es = s * c->w, et = t * c->h;
    if (fabs(es - floor(es + 0.5)) < 0.02 || fabs(et - floor(et + 0.5)) < 0.02)
        return false;
    sample_ref_unit u = {2, 2, 0, {0}};
    sample_ref_2d(&u, c->level, c->w, c->h, s, t, out);
    return true;
}

static void projection(void)
{
    unit_cfg u = {.addr = TEX0, .w = 32, .h = 32, .format = 0, .levels = 1, .wrap_s = 2, .wrap_t = 2, .type = 3};
    uint8_t *rgba[6][8];
    random_texture(TEX0, 0, 1, &u, rgba);
    set_unit(0, &u);
    enable_units(1, false);
    tev_source(3);
    proj_case c = {rgba[0][0], 32, 32, {{0}}, {1, 1, 3, 3}};
    static const float st[4][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
    corners q = plain(0, 0, 1, 1);
    for (int i = 0; i < 4; i++) {
        c.st[i][0] = st[i][0] * c.q[i], c.st[i][1] = st[i][1] * c.q[i];
        q.tc0[i][0] = c.st[i][0], q.tc0[i][1] = c.st[i][1], q.tc0[i][2] = c.q[i];
    }
    draw_quad(&q);
    compare("projection", expect_proj, &c, 0);
    free_texture(1, 1, rgba);
}

/* ---- a texture rewritten by the host, and one rendered by the GPU ---- */

static bool expect_const(void *user, uint32_t x, uint32_t y, uint8_t out[4])
{
    (void)x;
    memcpy(out, (const uint8_t *)user + (y < H / 2 ? 0 : 4), 4);
    return true;
}

static void render_to_texture(void)
{
    /* 1. into a 32 x 32 RGBA8 buffer at RTT: the bottom half one constant, the top half another */
    static const uint8_t colours[8] = {0x12, 0x34, 0x56, 0x78, 0xE0, 0xC0, 0xA0, 0x90};
    pvk_wait_idle(ctx);
    pvk_stats before = stats();
    setup_target(RTT, 32, 32);
    enable_units(0, false);
    tev_source(14); /* the constant */
    reg(PVK_GPUREG_SCISSORTEST_MODE, 3);
    for (unsigned half = 0; half < 2; half++) {
        const uint8_t *k = colours + 4 * half;
        reg(PVK_GPUREG_TEXENV0_COLOR, k[0] | k[1] << 8 | k[2] << 16 | (uint32_t)k[3] << 24);
        reg(PVK_GPUREG_SCISSORTEST_POS, (half ? 16u : 0u) << 16);
        reg(PVK_GPUREG_SCISSORTEST_DIM, 31u | (half ? 31u : 15u) << 16);
        corners q = plain(0, 0, 1, 1);
        draw_quad_at(&q, 1 + half); /* no waits: pvk_wait_idle would write the surface back */
    }
    reg(PVK_GPUREG_SCISSORTEST_MODE, 0);
    /* 2. the main target samples it as a 32 x 32 RGBA8 texture: nothing goes through guest memory */
    setup_target(FB, W, H);
    unit_cfg u = {.addr = RTT, .w = 32, .h = 32, .format = 0, .levels = 1};
    set_unit(0, &u);
    enable_units(1, false);
    tev_source(3);
    corners q = plain(0, 0, 1, 1);
    draw_quad_at(&q, 3);
    pvk_stats after = stats();
    CHECK_EQ(after.texture_from_surface - before.texture_from_surface, 1);
    CHECK_EQ(after.texture_decodes - before.texture_decodes, 0);
    CHECK_EQ(after.surface_writebacks - before.surface_writebacks, 0);
    /* window y runs up in both: the bottom half of the texture is the bottom of the picture */
    compare("render to texture", expect_const, (void *)colours, 0);
    after = stats();
    CHECK_EQ(after.surface_writebacks - before.surface_writebacks, 1); /* the flush for the comparison: FB only */
}

/* The host writes the texture's bytes and says so: the next draw sees them. */
static void host_rewrite(void)
{
    unit_cfg u = {.addr = TEX0, .w = 16, .h = 16, .format = 7, .levels = 1, .wrap_s = 2, .wrap_t = 2};
    set_unit(0, &u);
    enable_units(1, false);
    tev_source(3);
    for (int round = 0; round < 2; round++) {
        uint8_t *rgba[6][8];
        random_texture(TEX0, 0, 1, &u, rgba);
        plain_case c = {rgba[0][0], 16, 16, {2, 2, 0, {0}}, 0, 0, 1, 1, false};
        corners q = plain(0, 0, 1, 1);
        draw_quad(&q);
        compare(round ? "rewritten texture" : "texture before the rewrite", expect_plain, &c, 0);
        free_texture(1, 1, rgba);
    }
}

/* Draws with cached textures stay in one batch: nothing is submitted
 * between them, and each finds its texture in the cache. */
static void batching(void)
{
    unit_cfg u = {.addr = TEX0, .w = 32, .h = 16, .format = 4, .levels = 1, .wrap_s = 2, .wrap_t = 2};
    uint8_t *rgba[6][8];
    random_texture(TEX0, 0, 1, &u, rgba);
    set_unit(0, &u);
    enable_units(1, false);
    tev_source(3);
    corners q = plain(0, 0, 1, 1);
    draw_quad(&q); /* decoded here */
    pvk_stats before = stats();
    for (uint32_t i = 0; i < 4; i++)
        draw_quad_at(&q, i);
    pvk_stats after = stats();
    CHECK_EQ(after.submissions - before.submissions, 0); /* the batch is still open */
    CHECK_EQ(after.texture_hits - before.texture_hits, 4);
    CHECK_EQ(after.texture_decodes - before.texture_decodes, 0);
    plain_case c = {rgba[0][0], 32, 16, {2, 2, 0, {0}}, 0, 0, 1, 1, false};
    compare("four draws in one batch", expect_plain, &c, 0);
    free_texture(1, 1, rgba);
}

/* Wrap 6 (undocumented: taken as repeat) samples as repeat and is counted
 * unsupported. */
static void reserved_wrap(void)
{
    unit_cfg u = {.addr = TEX0, .w = 16, .h = 16, .format = 0, .levels = 1, .wrap_s = 6, .wrap_t = 2};
    uint8_t *rgba[6][8];
    random_texture(TEX0, 0, 1, &u, rgba);
    set_unit(0, &u);
    enable_units(1, false);
    tev_source(3);
    uint64_t before = stats().unsupported;
    plain_case c = {rgba[0][0], 16, 16, {2, 2, 0, {0}}, -1, -1, 2, 2, false};
    corners q = plain(c.s0, c.t0, c.s1, c.t1);
    draw_quad(&q);
    draw_quad(&q);
    CHECK_EQ(stats().unsupported - before, 2);
    compare("wrap 6 (reserved)", expect_plain, &c, 0);
    free_texture(1, 1, rgba);
}

/* ---- shadow textures ---- */

typedef struct shadow_case {
    const uint8_t *level;
    unsigned w, h;
    float s0, t0, s1, t1, w0; /* s, t across and up (before any divide by w), w everywhere */
    bool ortho;
    uint32_t bias;            /* 24-bit */
} shadow_case;

static bool expect_shadow(void *user, uint32_t x, uint32_t y, uint8_t out[4])
{
    const shadow_case *c = user;
    double s = coord(c->s0, c->s1, x, W), t = coord(c->t0, c->t1, y, H);
    if (!c->ortho)
        s /= c->w0, t /= c->w0;
    double zw = fabs(c->w0) < 1 ? fabs(c->w0) : 1;
    long z = (long)(zw * 16777215.0) - (long)c->bias;
    double v = sample_ref_shadow(c->level, c->w, c->h, s, t, (uint32_t)(z < 0 ? 0 : z));
    memset(out, (int)floor(v * 255 + 0.5), 4);
    return true;
}

/* Shadow 2D against the model: orthographic and perspective, with a bias;
 * a shadow cube is counted unsupported and reads 0. */
static void shadow(void)
{
    static const struct {
        const char *what;
        bool ortho;
        float w;
        uint32_t bias;
    } cases[] = {
        {"shadow 2D, orthographic, z 0.5", true, 0.5f, 0},
        {"shadow 2D, orthographic, z 0.75 - bias", true, 0.75f, 0x200000},
        {"shadow 2D, perspective, w 0.6", false, 0.6f, 0x10},
        {"shadow 2D, w past 1 (z clamps)", true, 2.5f, 0x7FFFFE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unit_cfg u = {.addr = TEX0, .w = 16, .h = 16, .format = 0, .levels = 1, .type = 2};
        uint8_t *rgba[6][8];
        random_texture(TEX0, 0, 1, &u, rgba);
        set_unit(0, &u);
        reg(PVK_GPUREG_TEXUNIT0_SHADOW, (cases[i].ortho ? 1u : 0u) | (cases[i].bias >> 1) << 1);
        enable_units(1, false);
        tev_source(3);
        shadow_case c = {rgba[0][0], 16, 16, -0.2f, -0.2f, 1.2f, 1.2f, cases[i].w, cases[i].ortho,
                         cases[i].bias & ~1u};
        corners q = plain(c.s0, c.t0, c.s1, c.t1);
        for (int k = 0; k < 4; k++) {
            q.tc0[k][2] = c.w0;
            if (!c.ortho) /* s, t and w as a projection would give them: the divide brings back the plain ones */
                q.tc0[k][0] *= c.w0, q.tc0[k][1] *= c.w0;
        }
        if (!c.ortho)
            c.s0 *= c.w0, c.t0 *= c.w0, c.s1 *= c.w0, c.t1 *= c.w0;
        draw_quad(&q);
        compare(cases[i].what, expect_shadow, &c, 1);
        free_texture(1, 1, rgba);
    }
    unit_cfg u = {.addr = TEX0, .w = 16, .h = 16, .format = 0, .levels = 1, .type = 4};
    set_unit(0, &u);
    for (unsigned f = 1; f < 6; f++)
        reg(PVK_GPUREG_TEXUNIT0_ADDR2 + f - 1, (TEX0 + f * 0x1000) >> 3);
    uint64_t before = stats().unsupported;
    corners q = plain(0, 0, 1, 1);
    draw_quad(&q);
    CHECK(stats().unsupported > before);
    static const uint8_t zero[8] = {0};
    compare("shadow cube (unsupported)", expect_const, (void *)zero, 0);
}

/* A shadow buffer drawn in shadow mode (COLOR_OPERATION mode 3), then
 * sampled as a shadow 2D texture straight from its surface: the byte order
 * of the two must agree.  The 32x32 buffer starts all 0xFF (depth 0xFFFFFF,
 * intensity 255); a quad at depth 0.5 over its left half writes that depth
 * (TEV green 0).  Sampled with z 0.75, the left half is in shadow (0), the
 * right half lit (255). */
static bool expect_halves(void *user, uint32_t x, uint32_t y, uint8_t out[4])
{
    (void)user;
    /* not judged: the columns mixing both halves, and the outermost pixels,
     * whose bilinear footprint reaches outside the texture (which counts as lit) */
    if ((x >= W / 2 - 2 && x <= W / 2 + 1) || x == 0 || y == 0 || x == W - 1 || y == H - 1)
        return false;
    memset(out, x < W / 2 ? 0 : 255, 4);
    return true;
}

static void shadow_rendered(void)
{
    pvk_wait_idle(ctx);
    memset(pvk_guest_ptr(ctx, RTT, 32 * 32 * 4), 0xFF, 32 * 32 * 4);
    pvk_guest_written(ctx, RTT, 32 * 32 * 4);
    pvk_stats before = stats();
    setup_target(RTT, 32, 32);
    reg(PVK_GPUREG_DEPTHMAP_ENABLE, 1);
    reg(PVK_GPUREG_DEPTHMAP_SCALE, f24(-1.0f));
    reg(PVK_GPUREG_DEPTHMAP_OFFSET, f24(0.0f));
    reg(PVK_GPUREG_COLOR_OPERATION, 0x00E40103); /* shadow mode */
    enable_units(0, false);
    tev_source(14);
    reg(PVK_GPUREG_TEXENV0_COLOR, 0xFF0000FFu); /* green 0: depth writes */
    reg(PVK_GPUREG_SCISSORTEST_MODE, 3);
    reg(PVK_GPUREG_SCISSORTEST_POS, 0);
    reg(PVK_GPUREG_SCISSORTEST_DIM, 15u | 31u << 16);
    corners q = plain(0, 0, 1, 1);
    draw_quad_at(&q, 1); /* z -0.5: depth 0.5 */
    reg(PVK_GPUREG_SCISSORTEST_MODE, 0);
    setup_target(FB, W, H); /* blend mode again */
    unit_cfg u = {.addr = RTT, .w = 32, .h = 32, .format = 0, .levels = 1, .type = 2};
    set_unit(0, &u);
    reg(PVK_GPUREG_TEXUNIT0_SHADOW, 1); /* orthographic, no bias */
    enable_units(1, false);
    tev_source(3);
    for (int k = 0; k < 4; k++)
        q.tc0[k][2] = 0.75f;
    draw_quad_at(&q, 2);
    pvk_stats after = stats();
    CHECK_EQ(after.texture_from_surface - before.texture_from_surface, 1);
    CHECK_EQ(after.surface_writebacks - before.surface_writebacks, 0);
    compare("shadow buffer drawn in shadow mode, sampled as shadow 2D", expect_halves, NULL, 0);
}

static void run(const char *debug)
{
    ctx = th_context_debug(NULL, debug, 0);
    pvk_features f;
    pvk_get_features(ctx, &f);
    bool no_custom = !f.custom_border_color || (debug && strstr(debug, "no-custom-border"));
    printf("PVK_DEBUG=%s, custom border colours %s\n", debug ? debug : "", no_custom ? "off" : "on");
    upload_shader4();
    setup_target(FB, W, H);
    clear_fb();
    bool roundtrip = debug && strstr(debug, "roundtrip");
    formats_wraps_filters(no_custom);
    if (!no_custom) {
        lod();
        units_1_2();
        cube();
        projection();
        host_rewrite();
        reserved_wrap();
        if (!roundtrip) { /* which decodes every texture from memory, a submission per draw */
            render_to_texture();
            batching();
            if (ctx->gpu.attachment_read) /* shadow rendering reads the attachment */
                shadow_rendered();
        }
        shadow();
    }
    pvk_stats s = stats();
    CHECK(s.texture_samples > 0);
    th_release(ctx);
}

int main(void)
{
    (void)upload_shader; /* draw_common.h's two-output shader: this test has its own */
    (void)setup_attribs;
    run(NULL);
    run("no-custom-border");
    run("roundtrip"); /* the old draw path binds the same textures */
    return th_finish("test_tex_draw");
}
