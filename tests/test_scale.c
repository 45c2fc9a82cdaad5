/* Resolution scaling (pvk_config.scale, pvk_set_scale, PVK_SCALE): draws
 * render at N x, the guest reads 1x memory, the LCD shows N x.
 *  - A flat scene (axis-aligned quads with edges on pixel boundaries, so no
 *    pixel centre moves relative to an edge at any scale: depth test,
 *    stencil mask, include and exclude scissors, a memory fill that clears
 *    the scaled surfaces, a display transfer from the surface with format
 *    conversion, flip and 2x2 downscale): colour, depth-stencil and transfer
 *    output bytes identical at scales 1-4 (3 also with mirrored memory).
 *  - A slanted scene (two rotated triangles): at scale N the resolved 1x
 *    colour differs from scale 1 only at pixels on an edge of the 1x image,
 *    and in fewer pixels than that edge has.  Odd scales resolve at the 1x
 *    pixel centre: no difference at all is allowed there.
 *  - pvk_set_scale between draws (the 1x surface written back, the 3x one
 *    loaded from it) gives the bytes of a scale-1 run.
 *  - Memory fills as clears at 3x: every byte value of every channel, and
 *    depth/stencil values, come back exactly.
 *  - Reinterpretation (RGBA8 <-> D24S8) at 2x and 3x on the scaled images,
 *    no resolve, bytes equal to 1x.
 *  - Render-to-texture at 2x and 3x: the texture is the scaled image (no
 *    resolve counted), the result differs from 1x only on edges.
 *  - The LCD at 2x and 4x: frame sizes; a flat scene is the 1x frame
 *    upsampled exactly, a slanted edge changes colour at every sub-pixel
 *    phase (an upsampled 1x frame only at phase 0).
 *  - Every scene script's probes hold at 3x; bad scales from the config,
 *    the call and PVK_SCALE are refused with a logged error. */
#include <dirent.h>
#include <stdbool.h>

#include "draw_common.h"
#include "tools/tools.h"

#define DB 0x18100000u  /* D24S8 depth-stencil */
#define OUT 0x18300000u /* display transfer output */
#define OUT_BYTES ((W / 2) * (H / 2) * 2)

typedef struct image {
    uint8_t color[W * H * 4], depth[W * H * 4], out[OUT_BYTES];
    pvk_stats st;
} image;

static int mirror; /* guest memory mirrored in device buffers instead of imported */

static pvk_context *make(uint32_t scale)
{
    pvk_config cfg = {.scale = scale};
    return th_context(&cfg, mirror);
}

static void fill32(uint32_t unit, uint32_t start, uint32_t len, uint32_t value)
{
    uint32_t base = unit ? 0x20 : 0x10;
    ext(base, start >> 3);
    ext(base + 4, (start + len) >> 3);
    ext(base + 8, value);
    ext(base + 0xC, 0x201);
}

static uint32_t nvert; /* vertices written at VB so far (one buffer per run) */
static uint32_t tw = W, th = H; /* the target's size (window pixels) */

/* Vertex (window pixel x, y; y up), depth z (PICA z: depth = -z), colour. */
static void vert(float x, float y, float z, uint32_t rgba)
{
    float *p = (float *)pvk_guest_ptr(ctx, VB + nvert * 32, 32);
    p[0] = 2.0f * x / (float)tw - 1.0f;
    p[1] = 2.0f * y / (float)th - 1.0f;
    p[2] = z;
    p[3] = 1.0f;
    for (int c = 0; c < 4; c++)
        p[4 + c] = (float)((rgba >> (24 - 8 * c)) & 0xFF) / 255.0f; /* 0xRRGGBBAA */
    nvert++;
}

static void draw_from(uint32_t first, uint32_t n)
{
    pvk_guest_written(ctx, VB + first * 32, n * 32);
    reg(PVK_GPUREG_ATTRIBBUFFER0_OFFSET, first * 32);
    /* not waited for: pvk_wait_idle writes every surface back */
    reg(PVK_GPUREG_PRIMITIVE_CONFIG, 1);
    reg(PVK_GPUREG_NUMVERTICES, n);
    reg(PVK_GPUREG_VERTEX_OFFSET, 0);
    reg(PVK_GPUREG_DRAWARRAYS, 1);
}

/* The pixels [x0, x1) x [y0, y1) (window, y up) in one colour at depth -z. */
static void quad(uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1, float z, uint32_t rgba)
{
    uint32_t first = nvert;
    float a = (float)x0, b = (float)y0, c = (float)x1, d = (float)y1;
    vert(a, b, z, rgba), vert(c, b, z, rgba), vert(c, d, z, rgba);
    vert(a, b, z, rgba), vert(c, d, z, rgba), vert(a, d, z, rgba);
    draw_from(first, 6);
}

static void tri(float x0, float y0, float x1, float y1, float x2, float y2, uint32_t rgba)
{
    uint32_t first = nvert;
    vert(x0, y0, -0.5f, rgba), vert(x1, y1, -0.5f, rgba), vert(x2, y2, -0.5f, rgba);
    draw_from(first, 3);
}

static const uint32_t depth_less = 1u | (4u << 4) | (0xFu << 8) | (1u << 12); /* test less, RGBA and depth writes */

static void setup(void)
{
    nvert = 0;
    upload_shader();
    setup_attribs();
    setup_target_d24s8(DB);
    merger_replace();
    reg(PVK_GPUREG_STENCIL_TEST, 0);
}

static void read_back(image *im)
{
    copy_out(im->color, FB);
    CHECK_EQ(pvk_guest_flush(ctx, DB, W * H * 4), PVK_SUCCESS);
    memcpy(im->depth, pvk_guest_ptr(ctx, DB, W * H * 4), W * H * 4);
    im->st = stats();
}

static void flat_scene(uint32_t scale, image *im)
{
    ctx = make(scale);
    setup();
    fill32(0, FB, W * H * 4, 0x203040FF);
    fill32(1, DB, W * H * 4, 0x00FFFFFF); /* far, stencil 0 */
    quad(0, 0, W, H, -0.9f, 0x808080FF); /* makes both surfaces */
    /* a fill of the whole colour buffer while it is a scaled surface: a clear at N x */
    uint64_t clears = stats().surface_clears;
    fill32(0, FB, W * H * 4, 0x102030FF);
    CHECK_EQ(stats().surface_clears, clears + 1);
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, depth_less);
    quad(4, 4, 36, 30, -0.5f, 0xFF0000FF);
    quad(20, 10, 60, 40, -0.7f, 0x00FF00FF); /* behind the red one where they overlap */
    quad(24, 2, 30, 46, -0.3f, 0x0000FFFF);
    /* stencil: write 5 into a rectangle (colour and depth writes off), then
     * draw only where the stencil equals 5 */
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, 0);
    reg(PVK_GPUREG_STENCIL_TEST, 1u | (1u << 4) | (0xFFu << 8) | (5u << 16) | (0xFFu << 24)); /* always, ref 5 */
    reg(PVK_GPUREG_STENCIL_OP, 2u << 8);                                                     /* z-pass: replace */
    quad(40, 2, 62, 20, -0.1f, 0);
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, 0xF00);
    reg(PVK_GPUREG_STENCIL_TEST, 1u | (2u << 4) | (5u << 16) | (0xFFu << 24)); /* equal 5, no writes */
    reg(PVK_GPUREG_STENCIL_OP, 0);
    quad(32, 0, W, 24, -0.1f, 0xFFFF00FF);
    reg(PVK_GPUREG_STENCIL_TEST, 0);
    /* scissors: include [8, 24] x [30, 45], exclude [44, 55] x [26, 40] */
    reg(PVK_GPUREG_SCISSORTEST_MODE, 3);
    reg(PVK_GPUREG_SCISSORTEST_POS, 8 | (30u << 16));
    reg(PVK_GPUREG_SCISSORTEST_DIM, 24 | (45u << 16));
    quad(0, 0, W, H, -0.05f, 0xFF00FFFF);
    reg(PVK_GPUREG_SCISSORTEST_MODE, 1);
    reg(PVK_GPUREG_SCISSORTEST_POS, 44 | (26u << 16));
    reg(PVK_GPUREG_SCISSORTEST_DIM, 55 | (40u << 16));
    quad(40, 24, W, H, -0.05f, 0x00FFFFFF);
    reg(PVK_GPUREG_SCISSORTEST_MODE, 0);
    /* display transfer from the dirty surface: RGBA8 -> RGB565, flipped, 2x2 down */
    uint64_t direct = stats().surface_transfers;
    ext(0xC00, FB >> 3);
    ext(0xC04, OUT >> 3);
    ext(0xC0C, W | (H << 16));
    ext(0xC08, W | (H << 16));
    ext(0xC10, 1u | (0u << 8) | (2u << 12) | (2u << 24));
    ext(0xC18, 1);
    CHECK_EQ(stats().surface_transfers, direct + 1);
    CHECK_EQ(pvk_guest_flush(ctx, OUT, OUT_BYTES), PVK_SUCCESS);
    memcpy(im->out, pvk_guest_ptr(ctx, OUT, OUT_BYTES), OUT_BYTES);
    read_back(im);
    th_release(ctx);
}

/* Memory fills over scaled surfaces are image clears: every byte value of
 * every colour channel, and depths and stencils, come back from a
 * write-back as the fill wrote them (a small draw makes the surfaces dirty). */
static void fill_values(uint32_t scale)
{
    ctx = make(scale);
    setup();
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, depth_less);
    static uint8_t color[W * H * 4], depth[W * H * 4];
    uint32_t bad = 0;
    for (uint32_t k = 0; k < 64; k++) {
        uint32_t cv = (4 * k) << 24 | (255 - 4 * k - 1) << 16 | ((4 * k + 2) ^ 0x5A) << 8 | (4 * k + 3);
        uint32_t dv = (k * 0x3F3F3Fu + 0x10101u) & 0xFFFFFF;
        dv |= (k * 37 & 0xFF) << 24;
        fill32(0, FB, W * H * 4, cv);
        fill32(1, DB, W * H * 4, dv);
        quad(0, 0, 8, 8, -0.0f, 0xFFFFFFFF); /* depth 0: passes the less test everywhere */
        copy_out(color, FB);
        CHECK_EQ(pvk_guest_flush(ctx, DB, W * H * 4), PVK_SUCCESS);
        memcpy(depth, pvk_guest_ptr(ctx, DB, W * H * 4), W * H * 4);
        for (uint32_t y = 8; y < H; y++)
            for (uint32_t x = 8; x < W; x++) {
                uint32_t i = tiled_index(x, y), c, d;
                memcpy(&c, color + 4 * i, 4);
                memcpy(&d, depth + 4 * i, 4);
                bad += c != cv || d != dv;
            }
    }
    CHECK_EQ(bad, 0);
    printf("fill values at %ux: %llu surface clears\n", scale, (unsigned long long)stats().surface_clears);
    CHECK(stats().surface_clears >= 126); /* both buffers, every fill after the first */
    th_release(ctx);
}

/* ---- render-to-texture ----
 * A slanted triangle over a fill in a 32x32 RGBA8 buffer at RTT, then a
 * quad over FB textured with it (unit 0, nearest): at scale N the texture is
 * built from the N x image (texture_from_surface, no resolve, no
 * write-back). */
#define RTT 0x18280000u
#define RTT_DIM 32u

/* MOV o0-o2, v0-v2: position, colour, texture coordinate 0 (s, t). */
static void textured_shader(void)
{
    static const uint32_t outmap[3] = {0x03020100, 0x0B0A0908, 0x1F1F0D0C};
    upload_mov_shader(3, outmap);
}

static void target(uint32_t addr, uint32_t w, uint32_t h)
{
    setup_rgba8_target(addr, w, h);
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, 0xF00);
    merger_replace();
}

/* Triangles from (x, y in NDC, s, t) corners, colour `rgba`, not waited for. */
static void textured_tris(const float (*v)[4], uint32_t n, uint32_t rgba)
{
    float *p = (float *)pvk_guest_ptr(ctx, VB, n * 48);
    for (uint32_t i = 0; i < n; i++) {
        float q[12] = {v[i][0], v[i][1], -0.5f, 1, 0, 0, 0, 1, v[i][2], v[i][3], 0, 1};
        for (int c = 0; c < 4; c++)
            q[4 + c] = (float)((rgba >> (24 - 8 * c)) & 0xFF) / 255.0f;
        memcpy(p + 12 * i, q, sizeof q);
    }
    pvk_guest_written(ctx, VB, n * 48);
    reg(PVK_GPUREG_PRIMITIVE_CONFIG, 2);
    reg(PVK_GPUREG_NUMVERTICES, n);
    reg(PVK_GPUREG_VERTEX_OFFSET, 0);
    reg(PVK_GPUREG_DRAWARRAYS, 1);
}

/* TEV stage 0 takes source `src` for colour and alpha; the others pass it on. */
static void tev(uint32_t src)
{
    for (unsigned st = 0; st < 6; st++) {
        uint32_t base = st < 4 ? PVK_GPUREG_TEXENV0_SOURCE + 8 * st : PVK_GPUREG_TEXENV4_SOURCE + 8 * (st - 4);
        uint32_t v = st ? 15 : src;
        reg(base, v | v << 4 | v << 8 | v << 16 | v << 20 | v << 24);
        reg(base + 1, 0);
        reg(base + 2, 0);
        reg(base + 4, 0);
    }
}

static void rtt_scene(uint32_t scale, image *im)
{
    ctx = make(scale);
    textured_shader();
    target(RTT, RTT_DIM, RTT_DIM);
    reg(PVK_GPUREG_TEXUNIT_CONFIG, 0);
    tev(0); /* the vertex colour */
    fill32(0, RTT, RTT_DIM * RTT_DIM * 4, 0x2040A0FF);
    const float tri[3][4] = {{-0.83f, -0.71f, 0, 0}, {0.77f, -0.22f, 0, 0}, {-0.19f, 0.91f, 0, 0}};
    textured_tris(tri, 3, 0xF0D030FF);
    /* FB samples RTT: texture unit 0, RGBA8 32x32, nearest, clamp */
    target(FB, W, H);
    reg(PVK_GPUREG_TEXUNIT0_BORDER_COLOR, 0);
    reg(PVK_GPUREG_TEXUNIT0_BORDER_COLOR + 1, RTT_DIM | RTT_DIM << 16);
    reg(PVK_GPUREG_TEXUNIT0_BORDER_COLOR + 2, 0);
    reg(PVK_GPUREG_TEXUNIT0_BORDER_COLOR + 3, 0);
    reg(PVK_GPUREG_TEXUNIT0_BORDER_COLOR + 4, RTT >> 3);
    reg(PVK_GPUREG_TEXUNIT0_TYPE, 0);
    reg(PVK_GPUREG_TEXUNIT_CONFIG, 1u | 1u << 12 | 1u << 16);
    tev(3); /* texture 0 */
    pvk_stats before = stats();
    const float quad4[4][4] = {{-1, -1, 0, 0}, {1, -1, 1, 0}, {1, 1, 1, 1}, {-1, 1, 0, 1}};
    textured_tris(quad4, 4, 0xFFFFFFFF);
    CHECK_EQ(pvk_poll(ctx), PVK_SUCCESS);
    pvk_stats after = stats();
    CHECK_EQ(after.texture_from_surface - before.texture_from_surface, 1);
    CHECK_EQ(after.surface_resolves - before.surface_resolves, 0);
    CHECK_EQ(after.surface_writebacks - before.surface_writebacks, 0);
    copy_out(im->color, FB);
    im->st = stats();
    th_release(ctx);
}

/* ---- reinterpretation at n x ----
 * RGBA8 colour at RB, drawn in flat quads, then read as the D24S8 depth
 * buffer of draws into FB (depth = the G, B, A bytes, stencil = R: a depth
 * test and a stencil test pick the quads), then drawn into as RGBA8 again:
 * both conversions run on the n x images (no resolve before the flush) and
 * the bytes equal scale 1's. */
#define RB 0x18140000u

static void reinterpret_scene(uint32_t scale, image *im)
{
    ctx = make(scale);
    setup();
    tw = W, th = H;
    reg(PVK_GPUREG_COLORBUFFER_LOC, RB >> 3);
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, 0xF00);
    fill32(0, RB, W * H * 4, 0x00FFFFFF); /* depth 1.0, stencil 0 */
    quad(4, 4, 28, 40, -0.5f, 0x05200000);  /* depth 0x200000 (0.125), stencil 5 */
    quad(30, 10, 60, 44, -0.5f, 0x09C00000); /* depth 0xC00000 (0.75), stencil 9 */
    uint64_t resolves = stats().surface_resolves, conversions = stats().surface_reinterpretations;
    reg(PVK_GPUREG_COLORBUFFER_LOC, FB >> 3);
    reg(PVK_GPUREG_DEPTHBUFFER_LOC, RB >> 3);
    fill32(0, FB, W * H * 4, 0x000000FF);
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, 1u | (4u << 4) | (0xFu << 8)); /* less, no depth writes */
    quad(0, 0, W, H, -0.5f, 0xFF0000FF);  /* where the stored depth is above 0.5 */
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, 0xF00);
    reg(PVK_GPUREG_STENCIL_TEST, 1u | (2u << 4) | (9u << 16) | (0xFFu << 24)); /* equal 9 */
    reg(PVK_GPUREG_STENCIL_OP, 0);
    quad(0, 20, W, H, -0.5f, 0x00FF00FF);
    reg(PVK_GPUREG_STENCIL_TEST, 0);
    /* RB as colour again, one more quad into it */
    reg(PVK_GPUREG_DEPTHBUFFER_LOC, DB >> 3);
    reg(PVK_GPUREG_COLORBUFFER_LOC, RB >> 3);
    quad(16, 16, 48, 32, -0.5f, 0x3050A0FF);
    CHECK_EQ(pvk_poll(ctx), PVK_SUCCESS);
    CHECK_EQ(stats().surface_reinterpretations - conversions, 2);
    CHECK_EQ(stats().surface_resolves, resolves);
    copy_out(im->color, FB);
    CHECK_EQ(pvk_guest_flush(ctx, RB, W * H * 4), PVK_SUCCESS);
    memcpy(im->depth, pvk_guest_ptr(ctx, RB, W * H * 4), W * H * 4);
    th_release(ctx);
}

/* ---- texture copy of a render target ----
 * FB drawn (flat quads), texture-copied whole to CP, then drawn into
 * again: CP holds the snapshot.  At n x the copy is an image copy (counted in
 * surface_transfers, no resolve before the flush); bytes as at 1x. */
#define CP 0x18380000u

static void copy_scene(uint32_t scale, image *im)
{
    ctx = make(scale);
    setup();
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, 0xF00);
    fill32(0, FB, W * H * 4, 0x000000FF);
    quad(4, 4, 40, 30, -0.5f, 0xC08040FF);
    quad(20, 16, 60, 44, -0.5f, 0x40A0E0FF);
    pvk_stats before = stats();
    ext(0xC00, FB >> 3);
    ext(0xC04, CP >> 3);
    ext(0xC20, W * H * 4);
    ext(0xC24, 0);
    ext(0xC28, 0);
    ext(0xC10, 8); /* texture copy, no gaps */
    ext(0xC18, 1);
    quad(0, 0, 16, 16, -0.5f, 0xFFFFFFFF); /* after the copy: not in CP */
    CHECK_EQ(pvk_poll(ctx), PVK_SUCCESS);
    pvk_stats after = stats();
    CHECK_EQ(after.texture_copies - before.texture_copies, 1);
    CHECK_EQ(after.surface_transfers - before.surface_transfers, scale > 1 ? 1 : 0);
    CHECK_EQ(after.surface_resolves, before.surface_resolves);
    copy_out(im->color, FB);
    copy_out(im->depth, CP); /* CP's bytes in `depth` */
    th_release(ctx);
}

/* Pixel value i of a W x H RGBA8 buffer. */
static uint32_t px(const uint8_t *b, uint32_t i)
{
    uint32_t v;
    memcpy(&v, b + 4 * i, 4);
    return v;
}

/* Is window pixel (x, y) of the 1x image on an edge (a neighbour, diagonals
 * included, holds another value)? */
static bool on_edge(const uint8_t *b, uint32_t x, uint32_t y)
{
    uint32_t v = px(b, tiled_index(x, y));
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int nx = (int)x + dx, ny = (int)y + dy;
            if (nx >= 0 && ny >= 0 && nx < (int)W && ny < (int)H && px(b, tiled_index((uint32_t)nx, (uint32_t)ny)) != v)
                return true;
        }
    return false;
}

static void slanted_scene(uint32_t scale, image *im)
{
    ctx = make(scale);
    setup();
    fill32(0, FB, W * H * 4, 0x000000FF);
    fill32(1, DB, W * H * 4, 0x00FFFFFF);
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, 0xF00);
    tri(3.3f, 5.1f, 58.7f, 12.4f, 20.2f, 44.9f, 0xE0C040FF);
    tri(40.6f, 46.3f, 62.1f, 20.8f, 30.4f, 17.7f, 0x4080F0FF);
    read_back(im);
    th_release(ctx);
}

/* Draw at 1x, switch to `to` without a flush, draw more. */
static void switched_scene(uint32_t from, uint32_t to, image *im)
{
    ctx = make(from);
    setup();
    fill32(0, FB, W * H * 4, 0x000000FF);
    fill32(1, DB, W * H * 4, 0x00FFFFFF);
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, depth_less);
    quad(8, 8, 40, 40, -0.5f, 0xFF8000FF);
    CHECK_EQ(pvk_set_scale(ctx, to), PVK_SUCCESS);
    quad(16, 0, 56, 24, -0.6f, 0x0080FFFF); /* behind the first where they overlap */
    tri(1.5f, 46.2f, 62.3f, 44.1f, 33.3f, 3.7f, 0x80FF80FF);
    read_back(im);
    th_release(ctx);
}

/* ---- the LCD ----
 * A 240x400 RGBA8 render target (the top screen as games draw it, one
 * memory row a screen column), display-transferred to a linear RGB8
 * framebuffer the top screen shows; the frame read back at scale x. */
#define RT 0x18000000u
#define LFB 0x18400000u
#define RW 240u
#define RH 400u

typedef struct frame {
    uint32_t w, h;
    uint32_t px[RH * RW * 25]; /* up to 5x */
} frame;

static void lcd_scene(uint32_t scale, bool slanted, bool rgb565, frame *f)
{
    ctx = make(scale);
    nvert = 0;
    tw = RW, th = RH;
    upload_shader();
    setup_attribs();
    merger_replace();
    setup_rgba8_target(RT, RW, RH);
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, 0xF00);
    fill32(0, RT, RW * RH * 4, 0x182848FF);
    quad(10, 20, 200, 120, -0.5f, 0xF0C020FF);
    quad(60, 100, 230, 390, -0.5f, 0x3070E0FF);
    if (slanted)
        tri(20.3f, 150.2f, 180.7f, 390.1f, 230.2f, 160.6f, 0xE04040FF);
    /* RGBA8 -> RGB8, tiled -> linear, as gfx/citro3d present; or RGB565 flipped */
    ext(0xC00, RT >> 3);
    ext(0xC04, LFB >> 3);
    ext(0xC0C, RW | (RH << 16));
    ext(0xC08, RW | (RH << 16));
    ext(0xC10, rgb565 ? (2u << 12) | 1u : 1u << 12);
    ext(0xC18, 1);
    ext(0x468, LFB);
    ext(0x46C, LFB);
    ext(0x470, rgb565 ? 2 : 1);          /* mode A */
    ext(0x490, RW * (rgb565 ? 2 : 3)); /* stride */
    ext(0x474, 1);       /* enable */
    CHECK_EQ(pvk_vblank(ctx), PVK_SUCCESS);
    CHECK_EQ(pvk_frame_size(ctx, PVK_SCREEN_TOP, &f->w, &f->h), PVK_SUCCESS);
    CHECK_EQ(f->w, RH * scale);
    CHECK_EQ(f->h, RW * scale);
    if (f->w == RH * scale && f->h == RW * scale)
        CHECK_EQ(pvk_frame_read(ctx, PVK_SCREEN_TOP, f->px, f->w * 4), PVK_SUCCESS);
    uint32_t bw, bh;
    CHECK_EQ(pvk_frame_size(ctx, PVK_SCREEN_BOTTOM, &bw, &bh), PVK_SUCCESS);
    CHECK_EQ(bw, 320 * scale);
    CHECK_EQ(bh, 240 * scale);
    /* the guest's bytes are the 1x ones whatever the LCD shows */
    CHECK_EQ(pvk_guest_flush(ctx, LFB, RW * RH * 3), PVK_SUCCESS);
    th_release(ctx);
    tw = W, th = H;
}

/* Distinct positions (x mod n) of colour changes along the rows of `f`:
 * 1 for a 1x frame upsampled n times (every change at a multiple of n). */
static uint32_t edge_phases(const frame *f, uint32_t n)
{
    bool seen[16] = {0};
    uint32_t count = 0;
    for (uint32_t y = 0; y < f->h; y++)
        for (uint32_t x = 1; x < f->w; x++)
            if (f->px[y * f->w + x] != f->px[y * f->w + x - 1] && !seen[x % n]) {
                seen[x % n] = true;
                count++;
            }
    return count;
}

static void lcd_tests(void)
{
    static frame one, big;
    for (int k = 0; k < 4; k++) {
        bool slanted = k % 2, rgb565 = k >= 2; /* the shown image's conversion and flip too */
        lcd_scene(1, slanted, rgb565, &one);
        for (uint32_t n = 2; n <= 4; n += 2) {
            lcd_scene(n, slanted, rgb565, &big);
            uint32_t diff = 0;
            for (uint32_t y = 0; y < big.h; y++)
                for (uint32_t x = 0; x < big.w; x++)
                    diff += big.px[y * big.w + x] != one.px[(y / n) * one.w + x / n];
            uint32_t phases = edge_phases(&big, n);
            printf("LCD %s scene at %ux: %ux%u, %u pixels differ from 1x upsampled, colour changes at %u of %u "
                   "phases\n",
                   slanted ? (rgb565 ? "slanted RGB565 flipped" : "slanted")
                           : (rgb565 ? "flat RGB565 flipped" : "flat"),
                   n, big.w, big.h, diff, phases, n);
            if (!slanted) {
                CHECK_EQ(diff, 0);
                CHECK_EQ(phases, 1);
            } else {
                CHECK(diff > 0);
                CHECK(phases > 1); /* the N x image has edge detail 1x cannot have */
            }
        }
    }
}

/* Every scene script's probes (guest memory at 1x, LCD probes at the centre
 * of each scaled pixel) hold at scale 3. */
static void scenes_at(uint32_t scale)
{
    DIR *d = opendir(PVK_SCENE_DIR);
    CHECK(d != NULL);
    struct dirent *e;
    int ran = 0;
    th_quiet_errors = 1; /* some scenes feed bad input on purpose */
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".pvs"))
            continue;
        /* its probes are mipmap levels, and level selection follows the n x
         * derivatives (log2(n) levels finer, as for textures 0-2) */
        if (!strcmp(e->d_name, "proctex_mipmap.pvs"))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", PVK_SCENE_DIR, e->d_name);
        ctx = make(scale);
        int failures = 0;
        pvk_result r = pvk_scene_run_file(ctx, path, &failures);
        if (r || failures)
            printf("scene %s at %ux: %s, %d probes differ\n", e->d_name, scale, pvk_result_string(r), failures);
        CHECK_EQ(r, PVK_SUCCESS);
        CHECK_EQ(failures, 0);
        th_release(ctx);
        ran++;
    }
    if (d)
        closedir(d);
    th_quiet_errors = 0;
    CHECK(ran >= 10);
}

static void bad_scales(void)
{
    th_quiet_errors = 1;
    pvk_config cfg = {.scale = PVK_MAX_SCALE + 1, .log = th_log};
    pvk_context *c = NULL;
    int errors = th_log_errors;
    CHECK_EQ(pvk_context_create(&cfg, &c), PVK_ERROR_INVALID_ARGUMENT);
    CHECK(c == NULL);
    CHECK(th_log_errors > errors);
    cfg.scale = 2;
    setenv("PVK_SCALE", "x3", 1);
    CHECK_EQ(pvk_context_create(&cfg, &c), PVK_ERROR_INVALID_ARGUMENT);
    setenv("PVK_SCALE", "11", 1);
    CHECK_EQ(pvk_context_create(&cfg, &c), PVK_ERROR_INVALID_ARGUMENT);
    unsetenv("PVK_SCALE");
    ctx = make(0); /* 0 means 1 */
    errors = th_log_errors;
    CHECK_EQ(pvk_set_scale(ctx, PVK_MAX_SCALE + 1), PVK_ERROR_INVALID_ARGUMENT);
    CHECK(th_log_errors > errors);
    CHECK_EQ(pvk_set_scale(ctx, PVK_MAX_SCALE), PVK_SUCCESS);
    CHECK_EQ(pvk_set_scale(ctx, 0), PVK_SUCCESS);
    CHECK_EQ(pvk_set_scale(NULL, 2), PVK_ERROR_INVALID_ARGUMENT);
    th_release(ctx);
    th_quiet_errors = 0;
}

/* PVK_SCALE overrides the config: a draw at 2x resolves when flushed. */
static void env_scale(void)
{
    setenv("PVK_SCALE", "2", 1);
    ctx = make(1);
    unsetenv("PVK_SCALE");
    setup();
    quad(0, 0, 8, 8, -0.5f, 0xFFFFFFFF);
    CHECK_EQ(pvk_guest_flush(ctx, FB, W * H * 4), PVK_SUCCESS);
    CHECK(stats().surface_resolves > 0);
    th_release(ctx);
}

int main(void)
{
    static image one, n;
    double t0 = th_now();
    flat_scene(1, &one);
    CHECK_EQ(one.st.surface_resolves, 0);
    for (uint32_t s = 2; s <= 4; s++) {
        flat_scene(s, &n);
        CHECK_EQ(differ(one.color, n.color, sizeof one.color), 0);
        CHECK_EQ(differ(one.depth, n.depth, sizeof one.depth), 0);
        CHECK_EQ(differ(one.out, n.out, sizeof one.out), 0);
        CHECK(n.st.surface_resolves > 0);
    }
    mirror = 1; /* the same at 3x with mirrored guest memory */
    flat_scene(3, &n);
    mirror = 0;
    CHECK_EQ(differ(one.color, n.color, sizeof one.color), 0);
    CHECK_EQ(differ(one.depth, n.depth, sizeof one.depth), 0);
    CHECK_EQ(differ(one.out, n.out, sizeof one.out), 0);
    /* the scene is not trivial: its parts show in the 1x bytes */
    uint32_t colours[8], ncol = 0;
    for (uint32_t i = 0; i < W * H; i++) {
        uint32_t v = px(one.color, i), k = 0;
        while (k < ncol && colours[k] != v)
            k++;
        if (k == ncol && ncol < 8)
            colours[ncol++] = v;
    }
    CHECK(ncol >= 7); /* background, red, green, blue, yellow, magenta, cyan */

    slanted_scene(1, &one);
    uint32_t edge = 0;
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++)
            edge += on_edge(one.color, x, y);
    for (uint32_t s = 2; s <= 5; s++) {
        slanted_scene(s, &n);
        uint32_t diff = 0, off_edge = 0;
        for (uint32_t y = 0; y < H; y++)
            for (uint32_t x = 0; x < W; x++) {
                uint32_t i = tiled_index(x, y);
                if (px(one.color, i) == px(n.color, i))
                    continue;
                diff++;
                off_edge += !on_edge(one.color, x, y);
            }
        printf("slanted scene at %ux: %u of %u pixels differ from 1x (%u 1x edge pixels)\n", s, diff, W * H, edge);
        CHECK_EQ(off_edge, 0);
        CHECK(diff < edge);
        if (s % 2)
            CHECK_EQ(diff, 0);
    }

    image *ref = &one;
    switched_scene(1, 1, ref);
    switched_scene(1, 3, &n);
    CHECK_EQ(differ(ref->color, n.color, sizeof ref->color), 0);
    CHECK_EQ(differ(ref->depth, n.depth, sizeof ref->depth), 0);
    CHECK(n.st.surface_writebacks >= 2); /* the 1x colour and depth surfaces went home first */
    CHECK(n.st.surface_resolves > 0);

    fill_values(3);
    copy_scene(1, &one);
    CHECK(differ(one.color, one.depth, sizeof one.color) > 0); /* the draw after the copy is not in CP */
    {
        uint32_t blue = 0;
        for (uint32_t i = 0; i < W * H; i++)
            blue += px(one.depth, i) == 0x40A0E0FFu;
        CHECK(blue > 500); /* CP holds the picture */
    }
    for (uint32_t s = 2; s <= 4; s += 2) {
        copy_scene(s, &n);
        CHECK_EQ(differ(one.color, n.color, sizeof one.color), 0);
        CHECK_EQ(differ(one.depth, n.depth, sizeof one.depth), 0);
    }
    reinterpret_scene(1, &one);
    for (uint32_t s = 2; s <= 3; s++) {
        reinterpret_scene(s, &n);
        CHECK_EQ(differ(one.color, n.color, sizeof one.color), 0);
        CHECK_EQ(differ(one.depth, n.depth, sizeof one.depth), 0);
    }
    {
        uint32_t red = 0, green = 0, black = 0;
        for (uint32_t i = 0; i < W * H; i++) {
            uint32_t v = px(one.color, i);
            red += v == 0xFF0000FFu, green += v == 0x00FF00FFu, black += v == 0x000000FFu;
        }
        /* the conversions decided: some of each (memory bytes A, B, G, R read as a little-endian word: 0xRRGGBBAA) */
        printf("reinterpretation scene: %u red, %u green, %u black pixels\n", red, green, black);
        CHECK(red > 0 && green > 0 && black > 0);
    }
    rtt_scene(1, &one);
    edge = 0;
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++)
            edge += on_edge(one.color, x, y);
    for (uint32_t s = 2; s <= 3; s++) {
        rtt_scene(s, &n);
        uint32_t diff = 0, off_edge = 0;
        for (uint32_t y = 0; y < H; y++)
            for (uint32_t x = 0; x < W; x++) {
                uint32_t i = tiled_index(x, y);
                diff += px(one.color, i) != px(n.color, i);
                off_edge += px(one.color, i) != px(n.color, i) && !on_edge(one.color, x, y);
            }
        printf("render to texture at %ux: %u of %u pixels differ from 1x (%u 1x edge pixels)\n", s, diff, W * H,
               edge);
        CHECK_EQ(off_edge, 0);
        CHECK(diff < edge);
        CHECK(edge > 40); /* the texture's triangle shows */
    }
    printf("-- scenes drawn at 1x-5x: %.1f s\n", th_now() - t0);
    double t = th_now();
    lcd_tests();
    printf("-- LCD: %.1f s\n", th_now() - t);
    t = th_now();
    scenes_at(3);
    printf("-- scene scripts at 3x: %.1f s\n", th_now() - t);
    bad_scales();
    env_scale();
    return th_finish("test_scale");
}
