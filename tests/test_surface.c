/* The surface cache: a sequence of draws with depth, host writes, memory
 * fills, a display transfer, RENDERBUFFER_FLUSH and an LCD scan-out of a
 * render target gives the same guest bytes and frame as the per-draw round
 * trip (PVK_DEBUG=roundtrip, the oracle here), in both guest-memory modes;
 * the counters show that draws into the same buffers moved no guest memory
 * and that each reader caused exactly the write-backs it needed. */
#include <dlfcn.h>

#include "draw_common.h"

#define DB 0x18100000u  /* depth buffer (D24S8) */
#define OUT 0x18300000u /* display transfer output (linear RGBA8) */
#define SRC 0x18400000u /* texture copy source */
#define NDRAWS 6

typedef struct { float x, y; } pt;

/* What a run leaves behind, compared between the cached and round-trip paths. */
typedef struct result {
    uint8_t out[W * H * 4];   /* display transfer of the draws */
    uint8_t depth[W * H * 4]; /* depth buffer after them */
    uint8_t host[W * H * 4];  /* colour after a host write and one draw, read after RENDERBUFFER_FLUSH */
    uint8_t part[W * H * 4];  /* after a fill over half the colour buffer between draws */
    uint8_t full[W * H * 4];  /* after a fill over all of it */
    uint8_t gaps[W * H * 4];  /* after a draw and a texture copy with gaps over all of it */
    uint32_t frame[400 * 240];
    uint32_t fw, fh;
} result;

static pvk_context *make_context(int mirror, int roundtrip)
{
    return th_context_debug(NULL, roundtrip ? "roundtrip" : NULL, mirror);
}

static void setup(void)
{
    upload_shader();
    setup_attribs();
    setup_target_d24s8(DB);
    /* less-than test, RGBA and depth writes; blend mode with a replace blend (citro3d's setup) */
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, 1u | (4u << 4) | (0xFu << 8) | (1u << 12));
    reg(PVK_GPUREG_COLOR_OPERATION, 0x00E40100);
    reg(PVK_GPUREG_BLEND_FUNC, 0x01010000);
    /* colour: a pattern; depth: far, stencil bytes a pattern the GPU must keep */
    uint8_t *fb = pvk_guest_ptr(ctx, FB, W * H * 4), *db = pvk_guest_ptr(ctx, DB, W * H * 4);
    for (uint32_t i = 0; i < W * H * 4; i++) {
        fb[i] = (uint8_t)(i * 13 + 5);
        db[i] = i % 4 == 3 ? (uint8_t)(i * 7 + 1) : 0xF0;
    }
    pvk_guest_written(ctx, FB, W * H * 4);
    pvk_guest_written(ctx, DB, W * H * 4);
}

/* One triangle (window pixels, y up) at clip depth z, drawn without waiting. */
static void draw_tri(const pt p[3], uint32_t rgba, float z)
{
    float *v = pvk_guest_ptr(ctx, VB, 3 * 32);
    for (unsigned i = 0; i < 3; i++) {
        v[i * 8 + 0] = p[i].x / (W / 2.0f) - 1.0f;
        v[i * 8 + 1] = p[i].y / (H / 2.0f) - 1.0f;
        v[i * 8 + 2] = z;
        v[i * 8 + 3] = 1.0f;
        for (int c = 0; c < 4; c++)
            v[i * 8 + 4 + c] = (float)((rgba >> (24 - 8 * c)) & 0xFF) / 255.0f;
    }
    pvk_guest_written(ctx, VB, 3 * 32);
    reg(PVK_GPUREG_PRIMITIVE_CONFIG, 1);
    reg(PVK_GPUREG_NUMVERTICES, 3);
    reg(PVK_GPUREG_VERTEX_OFFSET, 0);
    reg(PVK_GPUREG_DRAWARRAYS, 1);
}

static void random_tri(uint32_t seed_draw)
{
    pt p[3];
    for (int i = 0; i < 3; i++)
        p[i] = (pt){(float)th_rand_range(0, W * 4) / 4.0f + 0.125f, (float)th_rand_range(0, H * 4) / 4.0f + 0.125f};
    draw_tri(p, th_rand() | 0xFF, -(float)th_rand_range(1, 1000) / 1001.0f);
    (void)seed_draw;
}

static void fill32(uint32_t start, uint32_t end, uint32_t value)
{
    ext(0x10, start >> 3);
    ext(0x14, end >> 3);
    ext(0x18, value);
    ext(0x1C, 0x201);
}

static void run(int mirror, int roundtrip, result *res)
{
    ctx = make_context(mirror, roundtrip);
    th_rng = 0x1234567ull;
    setup();
    /* N draws with depth into the same buffers */
    for (int i = 0; i < NDRAWS; i++)
        random_tri((uint32_t)i);
    pvk_stats s = stats();
    if (!roundtrip) {
        CHECK_EQ(s.surface_loads, 2); /* colour and depth, once */
        CHECK_EQ(s.surface_writebacks, 0);
        CHECK_EQ(s.surface_bytes, 2 * W * H * 4);
    } else {
        CHECK_EQ(s.surface_loads + s.surface_writebacks + s.surface_bytes, 0);
    }
    /* a display transfer of the colour buffer reads its image: nothing is written back */
    ext(0xC00, FB >> 3);
    ext(0xC04, OUT >> 3);
    ext(0xC08, W | H << 16);
    ext(0xC0C, W | H << 16);
    ext(0xC10, 0);
    ext(0xC14, 0);
    ext(0xC18, 1);
    copy_out(res->out, OUT);
    if (!roundtrip) {
        CHECK_EQ(stats().surface_writebacks, 0);
        CHECK_EQ(stats().surface_transfers, 1);
    }
    copy_out(res->depth, DB);
    if (!roundtrip)
        CHECK_EQ(stats().surface_writebacks, 1);
    /* host writes (after a flush, as the contract asks) reach the next draw */
    CHECK_EQ(pvk_guest_flush(ctx, FB, W * H * 4), PVK_SUCCESS);
    memset(pvk_guest_ptr(ctx, FB, W * H * 4), 0x5A, W * H * 4);
    pvk_guest_written(ctx, FB, W * H * 4);
    const pt small[3] = {{4.25f, 4.25f}, {30.5f, 6.5f}, {10.5f, 28.75f}};
    draw_tri(small, 0x20C040FF, -0.001f);
    s = stats();
    reg(PVK_GPUREG_FRAMEBUFFER_FLUSH, 1);
    if (!roundtrip) {
        CHECK_EQ(s.surface_loads, 3); /* the colour buffer again */
        CHECK_EQ(stats().surface_writebacks, s.surface_writebacks + 2); /* colour and depth */
    }
    s = stats();
    copy_out(res->host, FB); /* nothing left to write back */
    if (!roundtrip)
        CHECK_EQ(stats().surface_writebacks, s.surface_writebacks);
    /* a fill over half of a drawn buffer between two draws: the other half keeps the draw */
    const pt big[3] = {{1.5f, 1.5f}, {62.5f, 3.5f}, {30.5f, 46.5f}};
    draw_tri(big, 0xC02080FF, -0.0001f);
    fill32(FB, FB + W * H * 2, 0x11223344);
    draw_tri(small, 0x3030F0FF, -0.00001f);
    copy_out(res->part, FB);
    /* a fill over all of it: nothing drawn before survives */
    draw_tri(big, 0x808080FF, -0.000001f);
    fill32(FB, FB + W * H * 4, 0x99AABBCC);
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, (0xFu << 8)); /* no depth: the small triangle is drawn */
    draw_tri(small, 0x10F010FF, -0.5f);
    copy_out(res->full, FB);
    /* a draw, then a texture copy with gaps whose span covers all of it: the
     * gaps keep the draw (they must not revert to the bytes before it) */
    draw_tri(big, 0x2040A0FF, -0.5f);
    uint8_t *src = pvk_guest_ptr(ctx, SRC, W * H * 2 + 16);
    for (uint32_t i = 0; i < W * H * 2 + 16; i++)
        src[i] = (uint8_t)(i * 29 + 3);
    pvk_guest_written(ctx, SRC, W * H * 2 + 16);
    ext(0xC00, SRC >> 3);
    ext(0xC04, FB >> 3);
    ext(0xC20, W * H * 2 + 16); /* one line past the buffer: the copy's span covers it */
    ext(0xC24, 0);
    ext(0xC28, 1u << 16 | 1u); /* 16-byte lines, 16-byte gaps */
    ext(0xC10, 0xC);
    ext(0xC18, 1);
    copy_out(res->gaps, FB);
    /* the LCD shows a render target directly: scan-out writes it back */
    ext(0x468, FB);
    ext(0x470, 0);
    ext(0x490, 64);
    ext(0x474, 1);
    draw_tri(big, 0x4080C0FF, -0.5f);
    CHECK_EQ(pvk_vblank(ctx), PVK_SUCCESS);
    CHECK_EQ(pvk_frame_size(ctx, PVK_SCREEN_TOP, &res->fw, &res->fh), PVK_SUCCESS);
    CHECK(res->fw * res->fh <= 400 * 240);
    CHECK_EQ(pvk_frame_read(ctx, PVK_SCREEN_TOP, res->frame, res->fw * 4), PVK_SUCCESS);
    th_release(ctx);
}

int main(void)
{
    static result cached, trip;
    for (int mirror = 0; mirror < 2; mirror++) {
        memset(&cached, 0, sizeof cached);
        memset(&trip, 0, sizeof trip);
        run(mirror, 0, &cached);
        run(mirror, 1, &trip);
        CHECK_EQ(differ(cached.out, trip.out, sizeof trip.out), 0);
        CHECK_EQ(differ(cached.depth, trip.depth, sizeof trip.depth), 0);
        CHECK_EQ(differ(cached.host, trip.host, sizeof trip.host), 0);
        CHECK_EQ(differ(cached.part, trip.part, sizeof trip.part), 0);
        CHECK_EQ(differ(cached.full, trip.full, sizeof trip.full), 0);
        CHECK_EQ(differ(cached.gaps, trip.gaps, sizeof trip.gaps), 0);
        CHECK_EQ(cached.fw, trip.fw);
        CHECK_EQ(cached.fh, trip.fh);
        CHECK_EQ(differ((const uint8_t *)cached.frame, (const uint8_t *)trip.frame, sizeof trip.frame), 0);
        /* and the results are not trivially equal: things were drawn */
        uint8_t before[W * H * 4];
        for (uint32_t i = 0; i < W * H * 4; i++)
            before[i] = (uint8_t)(i * 13 + 5);
        CHECK(differ(trip.out, before, sizeof before) > 1000);
        int stencil_kept = 1, depth_written = 0;
        for (uint32_t i = 0; i < W * H * 4; i++) {
            if (i % 4 == 3)
                stencil_kept &= trip.depth[i] == (uint8_t)(i * 7 + 1);
            else
                depth_written += trip.depth[i] != 0xF0;
        }
        CHECK(stencil_kept);
        CHECK(depth_written > 1000);
        uint32_t host = 0, tri = 0, filled = 0, drawn = 0, gap_drawn = 0, copied = 0;
        for (uint32_t i = 0; i < W * H; i++) {
            uint32_t p, q, g;
            memcpy(&g, trip.gaps + i * 4, 4);
            /* 8 pixels per 16-byte line and 16-byte gap: the first 4 copied */
            if (i % 8 >= 4) {
                gap_drawn += g == 0x2040A0FFu;
            } else {
                uint32_t from = i / 8 * 16 + i % 8 * 4, same = 1;
                for (uint32_t k = 0; k < 4; k++)
                    same &= trip.gaps[i * 4 + k] == (uint8_t)((from + k) * 29 + 3);
                copied += same;
            }
            memcpy(&p, trip.host + i * 4, 4);
            host += p == 0x5A5A5A5Au;
            tri += p == 0x20C040FFu;
            memcpy(&q, trip.full + i * 4, 4);
            filled += q == 0x99AABBCCu;
            drawn += q == 0x10F010FFu;
        }
        CHECK(host > 1000 && tri > 100);
        CHECK(!memcmp(trip.host + tiled_index(15, 13) * 4, "\xFF\x40\xC0\x20", 4)); /* inside the small triangle */
        CHECK(filled > 1000 && drawn > 100 && filled + drawn == W * H);
        CHECK(gap_drawn > 200 && copied == W * H / 2);
    }
    (void)clear_fb, (void)draw_arrays; /* draw_common.h helpers that wait: not for this test */
    return th_finish("test_surface");
}
