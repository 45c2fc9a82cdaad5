/* Reinterpretation: a buffer drawn in one format and then drawn into as
 * another format of the same pixel size at the same address (RGB565 <->
 * RGB5A1 <-> RGBA4 <-> D16, RGB8 <-> D24, RGBA8 <-> D24S8) is converted on
 * the GPU, without a write-back or a load, and the guest bytes after a flush
 * equal the per-draw round trip's (PVK_DEBUG=roundtrip: every draw loads and
 * stores memory), in both guest-memory modes.  A clean surface is
 * reinterpreted too; a different size is written back and reloaded. */
#include <dlfcn.h>

#include "draw_common.h"

#define CB 0x18010000u   /* the colour buffer while a chain draws into depth */
#define BASE 0x18040000u /* chain i draws at BASE + i * 0x10000 */
#define CHAINS 6
#define MAXSTEPS 6

typedef struct { int depth; uint32_t fmt; } view; /* fmt: COLORBUFFER_FORMAT or DEPTHBUFFER_FORMAT */

static const view chains[CHAINS][MAXSTEPS] = {
    /* 16-bit colour: the same RGBA8 image, converted in place */
    {{0, 3}, {0, 2}, {0, 4}, {0, 3}, {0, 4}, {0, 2}},
    /* 16-bit colour and D16 */
    {{0, 3}, {1, 0}, {0, 4}, {1, 0}, {0, 2}},
    /* RGB8 and D24 */
    {{0, 1}, {1, 2}, {0, 1}, {1, 2}},
    /* RGBA8 and D24S8: byte 3 is R and the stencil */
    {{0, 0}, {1, 3}, {0, 0}, {1, 3}, {0, 0}},
    {{1, 3}, {0, 0}, {1, 3}},
    {{0, 2}, {0, 4}},
};

static const int chain_len[CHAINS] = {6, 5, 4, 5, 3, 2};

typedef struct result {
    uint8_t bytes[CHAINS][W * H * 4]; /* each chain's buffer after a flush */
    uint8_t clean[W * H * 4];         /* flushed, reinterpreted while clean, drawn */
    uint8_t resized[W * H * 4];       /* reinterpreted at another size: written back, reloaded */
} result;

static pvk_context *make_context(int mirror, int roundtrip)
{
    return th_context_debug(NULL, roundtrip ? "roundtrip" : NULL, mirror);
}

/* Draw two triangles of random colours and depths into `v` at `addr`
 * (a depth view draws its colour into CB), `w` x `h` pixels. */
static void draw_view(view v, uint32_t addr, uint32_t w, uint32_t h)
{
    reg(PVK_GPUREG_FRAMEBUFFER_DIM, w | ((h - 1) << 12) | (1u << 24));
    reg(PVK_GPUREG_VIEWPORT_WIDTH, f24((float)w / 2.0f));
    reg(PVK_GPUREG_VIEWPORT_HEIGHT, f24((float)h / 2.0f));
    if (v.depth) {
        reg(PVK_GPUREG_COLORBUFFER_LOC, CB >> 3);
        reg(PVK_GPUREG_COLORBUFFER_FORMAT, 2);
        reg(PVK_GPUREG_DEPTHBUFFER_LOC, addr >> 3);
        reg(PVK_GPUREG_DEPTHBUFFER_FORMAT, v.fmt);
        reg(PVK_GPUREG_DEPTH_COLOR_MASK, 1u | (1u << 4) | (0xFu << 8) | (1u << 12)); /* always, depth writes */
    } else {
        reg(PVK_GPUREG_COLORBUFFER_LOC, addr >> 3);
        reg(PVK_GPUREG_COLORBUFFER_FORMAT, (v.fmt << 16) | (v.fmt == 0 ? 2 : 0));
        reg(PVK_GPUREG_DEPTH_COLOR_MASK, 0xFu << 8);
    }
    for (int t = 0; t < 2; t++) {
        float *p = pvk_guest_ptr(ctx, VB, 3 * 32);
        for (unsigned i = 0; i < 3; i++) {
            p[i * 8 + 0] = (float)th_rand_range(0, 2000) / 1000.0f - 1.0f;
            p[i * 8 + 1] = (float)th_rand_range(0, 2000) / 1000.0f - 1.0f;
            p[i * 8 + 2] = -(float)th_rand_range(1, 1000) / 1001.0f;
            p[i * 8 + 3] = 1.0f;
            for (int c = 0; c < 4; c++)
                p[i * 8 + 4 + c] = (float)th_rand_range(0, 255) / 255.0f;
        }
        pvk_guest_written(ctx, VB, 3 * 32);
        reg(PVK_GPUREG_PRIMITIVE_CONFIG, 1);
        reg(PVK_GPUREG_NUMVERTICES, 3);
        reg(PVK_GPUREG_VERTEX_OFFSET, 0);
        reg(PVK_GPUREG_DRAWARRAYS, 1);
    }
}

/* Draw `v` at `addr` after something else was drawn there: in the cached
 * run, `reinterpreted` says whether that must be a reinterpretation (no
 * load, no write-back) or a write-back and reload. */
static void switch_to(int roundtrip, view v, uint32_t addr, uint32_t w, uint32_t h, int reinterpreted)
{
    pvk_stats s = stats();
    draw_view(v, addr, w, h);
    if (roundtrip)
        return;
    pvk_stats t = stats();
    CHECK_EQ(t.surface_reinterpretations, s.surface_reinterpretations + (reinterpreted ? 1 : 0));
    CHECK_EQ(t.surface_loads, s.surface_loads + (reinterpreted ? 0 : 1));
    CHECK_EQ(t.surface_writebacks, s.surface_writebacks + (reinterpreted ? 0 : 1));
    CHECK_EQ(t.bad_input + t.unsupported, 0);
}

static void run(int mirror, int roundtrip, result *res)
{
    ctx = make_context(mirror, roundtrip);
    th_rng = 0x5EED5EEDull;
    upload_shader();
    setup_attribs();
    reg(PVK_GPUREG_COLORBUFFER_READ, 0xF);
    reg(PVK_GPUREG_COLORBUFFER_WRITE, 0xF);
    reg(PVK_GPUREG_DEPTHBUFFER_READ, 3);
    reg(PVK_GPUREG_DEPTHBUFFER_WRITE, 3);
    reg(PVK_GPUREG_VIEWPORT_XY, 0);
    reg(PVK_GPUREG_FACECULLING_CONFIG, 0);
    reg(PVK_GPUREG_SCISSORTEST_MODE, 0);
    reg(PVK_GPUREG_DEPTHMAP_ENABLE, 1);
    reg(PVK_GPUREG_DEPTHMAP_SCALE, f24(-1.0f));
    reg(PVK_GPUREG_DEPTHMAP_OFFSET, f24(0.0f));
    merger_replace();
    uint8_t *p = pvk_guest_ptr(ctx, CB, BASE + (CHAINS + 2) * 0x10000u - CB);
    for (uint32_t i = 0; i < BASE + (CHAINS + 2) * 0x10000u - CB; i++)
        p[i] = (uint8_t)(i * 31 + (i >> 7) + 9);
    pvk_guest_written(ctx, CB, BASE + (CHAINS + 2) * 0x10000u - CB);
    draw_view((view){0, 0}, CB, W, H); /* CB is cached from here on */
    for (int c = 0; c < CHAINS; c++) {
        uint32_t addr = BASE + (uint32_t)c * 0x10000u;
        pvk_stats s = stats();
        draw_view(chains[c][0], addr, W, H);
        if (!roundtrip)
            CHECK_EQ(stats().surface_loads, s.surface_loads + 1);
        for (int i = 1; i < chain_len[c]; i++)
            switch_to(roundtrip, chains[c][i], addr, W, H, 1);
        copy_out(res->bytes[c], addr);
    }
    /* a clean surface (flushed) is reinterpreted too; a new D24S8 from a
     * clean RGBA8 surface finds the stencil bytes already in memory */
    uint32_t addr = BASE + CHAINS * 0x10000u;
    draw_view((view){0, 0}, addr, W, H);
    CHECK_EQ(pvk_guest_flush(ctx, addr, W * H * 4), PVK_SUCCESS);
    switch_to(roundtrip, (view){1, 3}, addr, W, H, 1);
    copy_out(res->clean, addr);
    /* the same bytes at another size: written back and reloaded */
    addr += 0x10000u;
    draw_view((view){0, 3}, addr, W, H);
    switch_to(roundtrip, (view){0, 4}, addr, W / 2, H * 2, 0);
    copy_out(res->resized, addr);
    th_release(ctx);
}

int main(void)
{
    static result cached, trip;
    for (int mirror = 0; mirror < 2; mirror++) {
        run(mirror, 0, &cached);
        run(mirror, 1, &trip);
        for (int c = 0; c < CHAINS; c++) {
            int d = differ(cached.bytes[c], trip.bytes[c], W * H * 4);
            if (d)
                fprintf(stderr, "mirror %d: chain %d differs in %d bytes\n", mirror, c, d);
            CHECK_EQ(d, 0);
        }
        CHECK_EQ(differ(cached.clean, trip.clean, W * H * 4), 0);
        CHECK_EQ(differ(cached.resized, trip.resized, W * H * 4), 0);
        /* the draws changed the buffers */
        CHECK(differ(trip.bytes[3], trip.bytes[4], W * H * 4) > 1000);
    }
    (void)clear_fb, (void)draw_arrays, (void)tiled_index;
    return th_finish("test_surface_reinterpret");
}
