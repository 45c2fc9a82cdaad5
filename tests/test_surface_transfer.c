/* Display transfers straight from a surface: draws into a colour buffer of
 * each format, then a display transfer of it to every output format the
 * engine takes, with and without flip, each downscale and a crop, give the
 * same bytes as the per-draw round trip (PVK_DEBUG=roundtrip, which reads
 * guest memory), in both guest-memory modes; the counters show that none of
 * them wrote the surface back.  A transfer the surface path does not take (a
 * narrower output without the crop bit: rows run on through memory) writes
 * it back and still matches. */
#include <dlfcn.h>

#include "draw_common.h"

#define OUT 0x18300000u
#define MAX_CASES 160
#define BUF 0x4000u /* one colour buffer (W x H x 4 bytes) */

typedef struct { float x, y; } pt;

/* Transfer codes 0-4 -> COLORBUFFER_FORMAT (the 16-bit formats are numbered apart). */
static const uint32_t pica_format[5] = {0, 1, 3, 2, 4};

typedef struct result {
    uint8_t out[MAX_CASES][W * H * 4];
    uint8_t fb[5 * BUF]; /* the colour buffers at the end */
    int cases;
} result;

static pvk_context *make_context(int mirror, int roundtrip)
{
    return th_context_debug(NULL, roundtrip ? "roundtrip" : NULL, mirror);
}

/* Three triangles of random vertex colours (gradients: every low bit varies). */
static void draw_some(void)
{
    for (int t = 0; t < 3; t++) {
        float *v = pvk_guest_ptr(ctx, VB, 3 * 32);
        for (unsigned i = 0; i < 3; i++) {
            v[i * 8 + 0] = (float)th_rand_range(0, 2000) / 1000.0f - 1.0f;
            v[i * 8 + 1] = (float)th_rand_range(0, 2000) / 1000.0f - 1.0f;
            v[i * 8 + 2] = -0.5f;
            v[i * 8 + 3] = 1.0f;
            for (int c = 0; c < 4; c++)
                v[i * 8 + 4 + c] = (float)th_rand_range(0, 255) / 255.0f;
        }
        pvk_guest_written(ctx, VB, 3 * 32);
        reg(PVK_GPUREG_PRIMITIVE_CONFIG, 1);
        reg(PVK_GPUREG_NUMVERTICES, 3);
        reg(PVK_GPUREG_VERTEX_OFFSET, 0);
        reg(PVK_GPUREG_DRAWARRAYS, 1);
    }
}

/* One display transfer of the colour buffer at `src` (transfer format `in`) to OUT. */
static void transfer(result *res, int roundtrip, uint32_t src, uint32_t in, uint32_t out, uint32_t flip,
                     uint32_t scale, uint32_t ow, uint32_t oh, uint32_t crop)
{
    draw_some();
    pvk_stats before = stats();
    ext(0xC00, src >> 3);
    ext(0xC04, OUT >> 3);
    ext(0xC08, ow | oh << 16);
    ext(0xC0C, W | H << 16);
    ext(0xC10, flip | crop << 2 | in << 8 | out << 12 | scale << 24);
    ext(0xC14, 0);
    ext(0xC18, 1);
    CHECK_EQ(pvk_guest_flush(ctx, OUT, W * H * 4), PVK_SUCCESS);
    if (res->cases == MAX_CASES)
        abort();
    memcpy(res->out[res->cases++], pvk_guest_ptr(ctx, OUT, W * H * 4), W * H * 4);
    pvk_stats after = stats();
    CHECK_EQ(after.transfers, before.transfers + 1);
    CHECK_EQ(after.bad_input, 0);
    if (roundtrip)
        return;
    /* the surface path unless the rows run on (narrower, no crop bit) */
    int direct = ow == W || crop;
    CHECK_EQ(after.surface_writebacks, before.surface_writebacks + (direct ? 0 : 1));
    CHECK_EQ(after.surface_transfers, before.surface_transfers + (direct ? 1 : 0));
    CHECK_EQ(after.surface_loads, before.surface_loads);
}

static void run(int mirror, int roundtrip, result *res)
{
    ctx = make_context(mirror, roundtrip);
    th_rng = 0xC0FFEE11ull;
    res->cases = 0;
    upload_shader();
    setup_attribs();
    reg(PVK_GPUREG_COLORBUFFER_READ, 0xF);
    reg(PVK_GPUREG_COLORBUFFER_WRITE, 0xF);
    reg(PVK_GPUREG_DEPTHBUFFER_READ, 0);
    reg(PVK_GPUREG_DEPTHBUFFER_WRITE, 0);
    setup_view();
    merger_replace();
    /* each format in its own buffer, so no surface changes format */
    uint8_t *p = pvk_guest_ptr(ctx, FB, 5 * BUF);
    for (uint32_t i = 0; i < 5 * BUF; i++)
        p[i] = (uint8_t)(i * 29 + 3);
    pvk_guest_written(ctx, FB, 5 * BUF);
    for (uint32_t in = 0; in < 5; in++) {
        uint32_t src = FB + in * BUF;
        reg(PVK_GPUREG_COLORBUFFER_LOC, src >> 3);
        reg(PVK_GPUREG_COLORBUFFER_FORMAT, (pica_format[in] << 16) | (in == 0 ? 2 : 0));
        for (uint32_t out = 0; out < 5; out++) {
            uint32_t ib = in == 0 ? 4 : in == 1 ? 3 : 2, ob = out == 0 ? 4 : out == 1 ? 3 : 2;
            if ((ib == 3 && ob != 3) || (ib == 2 && ob != 2))
                continue; /* the engine refuses these */
            for (uint32_t flip = 0; flip < 2; flip++)
                for (uint32_t scale = 0; scale < 3; scale++)
                    transfer(res, roundtrip, src, in, out, flip, scale, W, H, 0);
            /* cropped to a smaller output with bit 2; without it the rows run on */
            transfer(res, roundtrip, src, in, out, 1, 0, W - 16, H - 8, 1);
            transfer(res, roundtrip, src, in, out, 0, 2, W - 16, H - 16, 1);
            transfer(res, roundtrip, src, in, out, 0, 0, W - 16, H, 0);
        }
    }
    CHECK_EQ(pvk_guest_flush(ctx, FB, 5 * BUF), PVK_SUCCESS);
    memcpy(res->fb, pvk_guest_ptr(ctx, FB, 5 * BUF), 5 * BUF);
    th_release(ctx);
}

int main(void)
{
    static result cached, trip;
    for (int mirror = 0; mirror < 2; mirror++) {
        run(mirror, 0, &cached);
        run(mirror, 1, &trip);
        CHECK_EQ(cached.cases, trip.cases);
        for (int i = 0; i < trip.cases; i++)
            if (differ(cached.out[i], trip.out[i], W * H * 4)) {
                fprintf(stderr, "mirror %d: transfer %d differs in %d bytes\n", mirror, i,
                        differ(cached.out[i], trip.out[i], W * H * 4));
                CHECK(0);
            }
        CHECK_EQ(differ(cached.fb, trip.fb, sizeof trip.fb), 0);
        /* not trivially equal: the draws changed the outputs between transfers */
        CHECK(differ(trip.out[0], trip.out[1], W * H * 4) > 1000);
    }
    (void)clear_fb, (void)draw_arrays, (void)tiled_index;
    return th_finish("test_surface_transfer");
}
