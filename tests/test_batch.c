/* Draw batches: consecutive draws into the same buffers are one submission
 * (pvk_stats.submissions), from one command list or across register writes
 * (public calls); whatever needs the GPU
 * or waits for it next (pvk_poll, a register read, a display transfer, a
 * memory fill, RENDERBUFFER_FLUSH, a host flush, a scan-out) submits the
 * batch first and sees every draw in it; 256 draws close a batch; a lapped
 * vertex ring grows instead of waiting on the open batch; and the bytes equal
 * PVK_DEBUG=sync's (a batch per draw), and on Vulkan's blend unit
 * (PVK_DEBUG=no-attachment-read) PVK_DEBUG=roundtrip's (a submission per
 * draw, waited for, which always blends that way), in both guest-memory
 * modes.  And a long-running host's many states: 5,000 distinct draw
 * pipelines in command lists, more than the cache keeps (issue 27), evict
 * the least recently used without cutting the open batch. */
#include "draw_common.h"

#define DB 0x18100000u  /* depth buffer (D24S8) */
#define OUT 0x18300000u /* display transfer output (linear RGBA8) */
#define NV 16384u       /* vertices in the buffer at VB */
#define LIST 0x18500000u /* a command list */
#define SAMPLERS 32 /* runtime.h PVK_SAMPLER_CACHE: samplers the context keeps */

/* CACHED and SYNC blend in the shader (attachment reads, where the device
 * has them); ROUNDTRIP and CACHED_FF on Vulkan's blend unit */
enum { CACHED, ROUNDTRIP, SYNC, CACHED_FF, MODES };

typedef struct result {
    uint8_t out[W * H * 4];   /* display transfer after a batch */
    uint8_t part[W * H * 4];  /* colour after draws, a fill over half of it, draws */
    uint8_t big[W * H * 4];   /* colour after a batch of 50 x 300 vertices */
    uint8_t frame[400 * 240 * 4]; /* the LCD's scan-out of the colour buffer */
    uint8_t color[W * H * 4], depth[W * H * 4]; /* at the end */
    uint8_t over[W * H * 4];  /* colour drawn over the depth buffer's bytes */
} result;

static pvk_context *make(int mode, int mirror)
{
    static const char *const flags[MODES] = {NULL, "roundtrip", "sync", "no-attachment-read"};
    return th_context_debug(NULL, flags[mode], mirror);
}

static uint64_t submissions(void)
{
    pvk_stats s;
    pvk_get_stats(ctx, &s);
    return s.submissions;
}

static const uint32_t depth_on = 1u | (4u << 4) | (0xFu << 8) | (1u << 12); /* less-than, RGBA and depth writes */

static void setup(void)
{
    upload_shader();
    setup_attribs();
    setup_target_d24s8(DB);
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, depth_on);
    reg(PVK_GPUREG_COLOR_OPERATION, 0x00E40100);
    reg(PVK_GPUREG_BLEND_FUNC, 0x01010000); /* replace */
    reg(PVK_GPUREG_PRIMITIVE_CONFIG, 1);
    uint8_t *fb = pvk_guest_ptr(ctx, FB, W * H * 4), *db = pvk_guest_ptr(ctx, DB, W * H * 4);
    for (uint32_t i = 0; i < W * H * 4; i++) {
        fb[i] = (uint8_t)(i * 13 + 5);
        db[i] = i % 4 == 3 ? (uint8_t)(i * 7 + 1) : 0xF0;
    }
    pvk_guest_written(ctx, FB, W * H * 4);
    pvk_guest_written(ctx, DB, W * H * 4);
    /* random triangles, most smaller than the buffer, translucent colours */
    float *v = pvk_guest_ptr(ctx, VB, NV * 32);
    th_rng = 0xBA7C4ull;
    for (uint32_t t = 0; t < NV / 3; t++) {
        float cx = (float)th_rand_range(0, 2000) / 1000.0f - 1.0f, cy = (float)th_rand_range(0, 2000) / 1000.0f - 1.0f;
        float z = -(float)th_rand_range(1, 1000) / 1001.0f;
        uint32_t rgba = th_rand();
        for (int k = 0; k < 3; k++) {
            float *p = v + (t * 3 + k) * 8;
            p[0] = cx + (float)th_rand_range(0, 800) / 1000.0f - 0.4f;
            p[1] = cy + (float)th_rand_range(0, 800) / 1000.0f - 0.4f;
            p[2] = z;
            p[3] = 1.0f;
            for (int c = 0; c < 4; c++)
                p[4 + c] = (float)((rgba >> (8 * c)) & 0xFF) / 255.0f;
        }
    }
    pvk_guest_written(ctx, VB, NV * 32);
}

/* DRAWARRAYS of `n` vertices from vertex `first` of the buffer, not waited for. */
static void draw(uint32_t first, uint32_t n)
{
    reg(PVK_GPUREG_ATTRIBBUFFER0_OFFSET, (first % (NV - n)) * 32);
    reg(PVK_GPUREG_NUMVERTICES, n);
    reg(PVK_GPUREG_VERTEX_OFFSET, 0);
    reg(PVK_GPUREG_DRAWARRAYS, 1);
}

/* Draw i of a batch in one of several states that stay inside one batch:
 * depth test off, alpha blending, exclusive and inclusive scissors, culling. */
static void varied_draw(uint32_t i)
{
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, i % 5 == 4 ? 0xF00u : depth_on);
    reg(PVK_GPUREG_BLEND_FUNC, i % 7 == 3 ? 0x76760000u : 0x01010000u);
    reg(PVK_GPUREG_SCISSORTEST_MODE, i % 3 == 1 ? 1 : i % 3 == 2 ? 3 : 0);
    reg(PVK_GPUREG_SCISSORTEST_POS, (i % 16) | (i % 12) << 16);
    reg(PVK_GPUREG_SCISSORTEST_DIM, (20 + i % 40) | (16 + i % 30) << 16);
    reg(PVK_GPUREG_FACECULLING_CONFIG, i % 4 == 2 ? 1 : 0);
    draw(i * 33, 30);
}

static void plain_state(void)
{
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, depth_on);
    reg(PVK_GPUREG_BLEND_FUNC, 0x01010000);
    reg(PVK_GPUREG_SCISSORTEST_MODE, 0);
    reg(PVK_GPUREG_FACECULLING_CONFIG, 0);
}

static void fill32(uint32_t start, uint32_t end, uint32_t value)
{
    ext(0x10, start >> 3);
    ext(0x14, end >> 3);
    ext(0x18, value);
    ext(0x1C, 0x201);
}

static void run(int mode, int mirror, result *res)
{
    ctx = make(mode, mirror);
    setup();
    int counted = mode == CACHED || mode == CACHED_FF;
    draw(0, 3); /* loads both surfaces */
    CHECK_EQ(pvk_poll(ctx), PVK_SUCCESS);

    /* 40 draws in changing dynamic state and two pipelines, each its own
     * register writes (public calls): nothing reaches the queue until pvk_poll */
    uint64_t s0 = submissions();
    for (uint32_t i = 0; i < 40; i++)
        varied_draw(i);
    if (counted)
        CHECK_EQ(submissions(), s0);
    CHECK_EQ(pvk_poll(ctx), PVK_SUCCESS);
    if (counted)
        CHECK_EQ(submissions(), s0 + 1);
    else if (mode == SYNC)
        CHECK_EQ(submissions(), s0 + 40);
    plain_state();

    /* a register read submits the batch */
    s0 = submissions();
    for (uint32_t i = 0; i < 5; i++)
        draw(1000 + i * 30, 30);
    uint32_t v;
    CHECK_EQ(pvk_mmio_read32(ctx, 0x10401000u + 4 * PVK_GPUREG_FRAMEBUFFER_DIM, &v), PVK_SUCCESS);
    if (counted)
        CHECK_EQ(submissions(), s0 + 1);

    /* a display transfer reads the colour buffer: the batch, the write-back,
     * then the transfer */
    for (uint32_t i = 0; i < 10; i++)
        varied_draw(100 + i);
    plain_state();
    ext(0xC00, FB >> 3);
    ext(0xC04, OUT >> 3);
    ext(0xC08, W | H << 16);
    ext(0xC0C, W | H << 16);
    ext(0xC10, 0);
    ext(0xC14, 0);
    ext(0xC18, 1);
    copy_out(res->out, OUT);

    /* a fill over half of the colour buffer between two batches */
    for (uint32_t i = 0; i < 10; i++)
        draw(2000 + i * 30, 30);
    fill32(FB, FB + W * H * 2, 0x11223344);
    for (uint32_t i = 0; i < 10; i++)
        draw(3000 + i * 30, 30);
    copy_out(res->part, FB);

    /* 300 small draws: two batches (256 draws close one) */
    s0 = submissions();
    for (uint32_t i = 0; i < 300; i++)
        draw(i * 3, 3);
    CHECK_EQ(pvk_poll(ctx), PVK_SUCCESS);
    if (counted)
        CHECK_EQ(submissions(), s0 + 2);

    /* 30 x 300 vertices (792 KB of 88-byte vertices) go round the first
     * vertex ring (256 KB) several times inside one batch: the ring grows
     * rather than wait for the batch, and the same again fits without waiting */
    for (uint32_t i = 0; i < 30; i++)
        draw(i * 300, 300);
    reg(PVK_GPUREG_FRAMEBUFFER_FLUSH, 1);
    copy_out(res->big, FB);
    s0 = submissions();
    for (uint32_t i = 0; i < 30; i++)
        draw(i * 300 + 1, 300);
    CHECK_EQ(pvk_poll(ctx), PVK_SUCCESS);
    if (counted)
        CHECK_EQ(submissions(), s0 + 1);

    /* a depth-only draw (no colour writes) between colour draws: three
     * batches, the middle one into a scratch colour target */
    s0 = submissions();
    for (uint32_t i = 0; i < 4; i++)
        draw(5000 + i * 30, 30);
    reg(PVK_GPUREG_COLORBUFFER_WRITE, 0);
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, 1u | (4u << 4) | (1u << 12));
    draw(6000, 60);
    reg(PVK_GPUREG_COLORBUFFER_WRITE, 0xF);
    plain_state();
    for (uint32_t i = 0; i < 4; i++)
        draw(7000 + i * 30, 30);
    CHECK_EQ(pvk_poll(ctx), PVK_SUCCESS);
    if (counted)
        CHECK_EQ(submissions(), s0 + 3);

    /* the LCD scans the render target out: the batch and its write-back first */
    ext(0x468, FB);
    ext(0x470, 0);
    ext(0x490, W * 4);
    ext(0x474, 1);
    for (uint32_t i = 0; i < 8; i++)
        draw(8000 + i * 30, 30);
    CHECK_EQ(pvk_vblank(ctx), PVK_SUCCESS);
    uint32_t fw = 0, fh = 0;
    CHECK_EQ(pvk_frame_size(ctx, PVK_SCREEN_TOP, &fw, &fh), PVK_SUCCESS);
    CHECK(fw * fh * 4 <= sizeof res->frame && fw * fh > 0);
    if (fw * fh * 4 <= sizeof res->frame)
        CHECK_EQ(pvk_frame_read(ctx, PVK_SCREEN_TOP, res->frame, fw * 4), PVK_SUCCESS);

    /* a command list of 30 draws, as GSP runs it: one batch, still open
     * when the call returns, submitted by the next poll */
    uint32_t *list = pvk_guest_ptr(ctx, LIST, 30 * 32), n = 0; /* 32 bytes a draw: a multiple of 16 */
    for (uint32_t i = 0; i < 30; i++) {
        const uint32_t cmd[4][2] = {{PVK_GPUREG_ATTRIBBUFFER0_OFFSET, (10000 + i * 30) * 32},
                                    {PVK_GPUREG_NUMVERTICES, 30},
                                    {PVK_GPUREG_VERTEX_OFFSET, 0},
                                    {PVK_GPUREG_DRAWARRAYS, 1}};
        for (int k = 0; k < 4; k++) {
            list[n++] = cmd[k][1];
            list[n++] = 0x000F0000u | cmd[k][0]; /* all bytes, one parameter */
        }
    }
    pvk_guest_written(ctx, LIST, n * 4);
    s0 = submissions();
    CHECK_EQ(pvk_command_list_run(ctx, LIST, n * 4), PVK_SUCCESS);
    if (counted)
        CHECK_EQ(submissions(), s0);
    CHECK_EQ(pvk_poll(ctx), PVK_SUCCESS);
    if (counted)
        CHECK_EQ(submissions(), s0 + 1);
    else if (mode == SYNC)
        CHECK_EQ(submissions(), s0 + 30);

    /* draws left in an open batch go home with pvk_wait_idle */
    for (uint32_t i = 0; i < 20; i++)
        varied_draw(200 + i);
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    memcpy(res->color, pvk_guest_ptr(ctx, FB, W * H * 4), W * H * 4);
    memcpy(res->depth, pvk_guest_ptr(ctx, DB, W * H * 4), W * H * 4);

    /* A surface of the open batch dropped under it: with nothing else in
     * flight, the batch tests an unchanged (clean) depth surface, then a
     * colour buffer over the depth buffer's bytes replaces that surface
     * without a write-back; the batch must be submitted before its depth
     * image goes.  The validation layer here does not report a view
     * destroyed under an open dynamic-rendering recording, and lavapipe drew
     * the same bytes without the fix: this runs the path, it cannot prove it. */
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, 1u | (4u << 4) | (0xFu << 8)); /* less-than, no depth writes */
    for (uint32_t i = 0; i < 4; i++)
        draw(9000 + i * 30, 30);
    reg(PVK_GPUREG_COLORBUFFER_LOC, DB >> 3);
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, 0xF00);
    draw(9500, 60);
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    memcpy(res->over, pvk_guest_ptr(ctx, DB, W * H * 4), W * H * 4);
    th_release(ctx);
}

static void compare(const result *a, const result *b)
{
    CHECK_EQ(differ(a->out, b->out, sizeof a->out), 0);
    CHECK_EQ(differ(a->part, b->part, sizeof a->part), 0);
    CHECK_EQ(differ(a->big, b->big, sizeof a->big), 0);
    CHECK_EQ(differ(a->frame, b->frame, sizeof a->frame), 0);
    CHECK_EQ(differ(a->color, b->color, sizeof a->color), 0);
    CHECK_EQ(differ(a->depth, b->depth, sizeof a->depth), 0);
    CHECK_EQ(differ(a->over, b->over, sizeof a->over), 0);
}

/* ---- many draw states (issue 27) ----
 * 5,000 draws, each its own pipeline: BLEND_FUNC min or max per RGB and
 * alpha with factors 0-14 (Vulkan's blend unit is exact for min/max, so one
 * fragment shader serves all) and colour masks 1-15 (0 would draw into a
 * scratch target, another batch).  Each draw is a triangle over one pixel
 * centre; draws 3072 on take a second set of triangles with other colours
 * over the same pixels, so the result is a fold of two states per pixel,
 * checked against a CPU model of min/max and the mask. */
#define NPIX (W * H)
#define NSTATES 5000u
#define MANY_LIST 0x18500000u
#define MANY_PER_LIST 500u /* draws per command list, a host's frame */

static uint32_t many_blend(uint32_t i)
{
    uint32_t f = i / 60; /* after the mask (15) and the two equations (4) */
    uint32_t rgb_eq = 3 + (i / 15) % 2, alpha_eq = 3 + (i / 30) % 2;
    return rgb_eq | alpha_eq << 8 | (f % 15) << 16 | (f / 15 % 15) << 20 | (f / 225 % 15) << 24;
}

static uint32_t many_mask(uint32_t i)
{
    return 1 + i % 15;
}

/* The triangle of draw i: pixel i % NPIX, of the first or second set. */
static uint32_t many_tri(uint32_t i)
{
    return i % (2 * NPIX);
}

static uint8_t many_colour(uint32_t tri, int c)
{
    return (uint8_t)(tri * 37u + (uint32_t)c * 101u + (tri >= NPIX ? 77u : 0u));
}

/* What draw i does to the guest bytes: per channel in the mask, min or max
 * of the stored value and the triangle's colour (RGBA8 bytes are A B G R). */
static void many_model(uint8_t *fb, uint32_t i)
{
    uint32_t tri = many_tri(i), p = tri % NPIX, blend = many_blend(i), mask = many_mask(i);
    uint8_t *px = fb + tiled_index(p % W, p / W) * 4;
    for (int c = 0; c < 4; c++) { /* R G B A */
        if (!(mask >> c & 1))
            continue;
        uint32_t eq = c == 3 ? blend >> 8 & 7 : blend & 7;
        uint8_t v = many_colour(tri, c), *d = &px[3 - c];
        *d = eq == 4 ? (v > *d ? v : *d) : (v < *d ? v : *d);
    }
}

/* Draws [first, first + n) as one command list. */
static void many_list(uint32_t first, uint32_t n)
{
    uint32_t *list = pvk_guest_ptr(ctx, MANY_LIST, n * 32), k = 0;
    for (uint32_t i = first; i < first + n; i++) {
        const uint32_t cmd[4][2] = {{PVK_GPUREG_BLEND_FUNC, many_blend(i)},
                                    {PVK_GPUREG_DEPTH_COLOR_MASK, many_mask(i) << 8},
                                    {PVK_GPUREG_ATTRIBBUFFER0_OFFSET, many_tri(i) * 3 * 32},
                                    {PVK_GPUREG_DRAWARRAYS, 1}};
        for (int j = 0; j < 4; j++) {
            list[k++] = cmd[j][1];
            list[k++] = 0x000F0000u | cmd[j][0];
        }
    }
    pvk_guest_written(ctx, MANY_LIST, k * 4);
    CHECK_EQ(pvk_command_list_run(ctx, MANY_LIST, k * 4), PVK_SUCCESS);
}

/* On the CPU vertex path (the built-in vertex stage): lavapipe creates such
 * a pipeline in half the time of one with a generated vertex stage, which
 * keeps this under a minute with ASan; scenes/pipeline_table_full.pvs runs
 * the evictions with a vertex program on the GPU. */
static void many_states(void)
{
    ctx = th_context_debug(NULL, "cpu-vs", 0); /* PVK_COMPILE_THREADS=0 (main): exact counts */
    upload_shader();
    setup_attribs();
    setup_rgba8_target(FB, W, H);
    tev_primary_colour();
    reg(PVK_GPUREG_COLOR_OPERATION, 0x00E40100);
    reg(PVK_GPUREG_PRIMITIVE_CONFIG, 1);
    reg(PVK_GPUREG_NUMVERTICES, 3);
    reg(PVK_GPUREG_VERTEX_OFFSET, 0);
    static uint8_t model[NPIX * 4];
    uint8_t *fb = pvk_guest_ptr(ctx, FB, NPIX * 4);
    for (uint32_t i = 0; i < NPIX * 4; i++)
        fb[i] = model[i] = (uint8_t)(i * 13 + 5);
    pvk_guest_written(ctx, FB, NPIX * 4);
    /* a triangle 0.8 pixels across round each pixel centre, two sets */
    float *v = pvk_guest_ptr(ctx, VB, 2 * NPIX * 3 * 32);
    for (uint32_t t = 0; t < 2 * NPIX; t++) {
        float cx = (float)(t % NPIX % W) + 0.5f, cy = (float)(t % NPIX / W) + 0.5f;
        const float corner[3][2] = {{cx - 0.4f, cy - 0.4f}, {cx + 0.4f, cy - 0.4f}, {cx, cy + 0.4f}};
        for (int k = 0; k < 3; k++) {
            float *q = v + (t * 3 + k) * 8;
            q[0] = corner[k][0] / (W / 2.0f) - 1.0f;
            q[1] = corner[k][1] / (H / 2.0f) - 1.0f;
            q[2] = -0.5f;
            q[3] = 1.0f;
            for (int c = 0; c < 4; c++)
                q[4 + c] = many_colour(t, c) / 255.0f;
        }
    }
    pvk_guest_written(ctx, VB, 2 * NPIX * 3 * 32);

    pvk_stats s0 = stats();
    for (uint32_t first = 0; first < NSTATES; first += MANY_PER_LIST) {
        many_list(first, MANY_PER_LIST);
        CHECK_EQ(pvk_poll(ctx), PVK_SUCCESS);
    }
    for (uint32_t i = 0; i < NSTATES; i++)
        many_model(model, i);
    pvk_stats s1 = stats();
    CHECK(s1.pipelines_created - s0.pipelines_created >= NSTATES);
    /* the memory budget's share decides how many stay (128 on lavapipe at the default budget) */
    uint32_t kept = (uint32_t)s1.held_pipelines, recent = kept < 100 ? kept : 100;
    CHECK(kept >= 16 && kept < NSTATES);
    CHECK(s1.pipeline_evictions - s0.pipeline_evictions >= NSTATES - kept);
    /* two batches a list (256 draws close one): nothing else submitted them */
    CHECK_EQ(s1.submissions - s0.submissions, 2 * NSTATES / MANY_PER_LIST + 1); /* + the colour buffer's load */
    /* the 100 states used last are all still there (the evictions took
     * the oldest and kept every later one findable), the first one is not */
    many_list(NSTATES - recent, recent);
    for (uint32_t i = NSTATES - recent; i < NSTATES; i++)
        many_model(model, i);
    pvk_stats s2 = stats();
    CHECK_EQ(s2.pipelines_created, s1.pipelines_created);
    CHECK_EQ(s2.pipeline_evictions, s1.pipeline_evictions);
    many_list(0, 1);
    many_model(model, 0);
    pvk_stats s3 = stats();
    CHECK_EQ(s3.pipelines_created, s2.pipelines_created + 1);
    CHECK_EQ(s3.pipeline_evictions, s2.pipeline_evictions + 1);
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    int bad = differ(pvk_guest_ptr(ctx, FB, NPIX * 4), model, NPIX * 4);
    CHECK_EQ(bad, 0);
    /* not trivially equal: the draws changed most pixels */
    uint32_t changed = 0;
    for (uint32_t i = 0; i < NPIX * 4; i++)
        changed += model[i] != (uint8_t)(i * 13 + 5);
    CHECK(changed > NPIX);
    th_release(ctx);
}

/* More samplers in one batch than the cache keeps (SAMPLERS): draws
 * of one cached texture, each with its own LOD bias.  The evicted samplers
 * the open batch uses wait in the GPU layer's deferred destroy: the batch is
 * not cut and nothing waits for the GPU. */
static void sampler_evictions(void)
{
    ctx = th_context_debug(NULL, NULL, 0);
    static const uint32_t outmap[3] = {0x03020100, 0x0B0A0908, 0x1F1F0D0C}; /* position, colour, tc0 */
    upload_mov_shader(3, outmap);
    setup_rgba8_target(FB, W, H);
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, 0xF00);
    merger_replace();
    const uint32_t tex = 0x18580000u;
    uint8_t *t = pvk_guest_ptr(ctx, tex, 8 * 8 * 4);
    for (uint32_t i = 0; i < 8 * 8 * 4; i++)
        t[i] = (uint8_t)(i * 29 + 3);
    pvk_guest_written(ctx, tex, 8 * 8 * 4);
    reg(PVK_GPUREG_TEXUNIT0_DIM, 8u | 8u << 16);
    reg(PVK_GPUREG_TEXUNIT0_PARAM, 0);
    reg(PVK_GPUREG_TEXUNIT0_ADDR1, tex >> 3);
    reg(PVK_GPUREG_TEXUNIT0_TYPE, 0); /* RGBA8 */
    reg(PVK_GPUREG_TEXUNIT_CONFIG, 1u | 1u << 12);
    for (unsigned st = 0; st < 6; st++) { /* stage 0 replaces with texture 0, the rest pass it on */
        uint32_t base = st < 4 ? PVK_GPUREG_TEXENV0_SOURCE + 8 * st : PVK_GPUREG_TEXENV4_SOURCE + 8 * (st - 4);
        uint32_t src = st ? 15 : 3;
        reg(base, src | src << 4 | src << 8 | src << 16 | src << 20 | src << 24);
        reg(base + 1, 0);
        reg(base + 2, 0);
        reg(base + 4, 0);
    }
    float *v = pvk_guest_ptr(ctx, VB, 3 * 48);
    const float corner[3][4] = {{-1, -1, 0, 0}, {3, -1, 2, 0}, {-1, 3, 0, 2}};
    for (int i = 0; i < 3; i++) {
        float q[12] = {corner[i][0], corner[i][1], -0.5f, 1, 1, 1, 1, 1, corner[i][2], corner[i][3], 0, 1};
        memcpy(v + 12 * i, q, sizeof q);
    }
    pvk_guest_written(ctx, VB, 3 * 48);
    reg(PVK_GPUREG_PRIMITIVE_CONFIG, 1);
    reg(PVK_GPUREG_NUMVERTICES, 3);
    reg(PVK_GPUREG_VERTEX_OFFSET, 0);
    reg(PVK_GPUREG_TEXUNIT0_LOD, 0);
    reg(PVK_GPUREG_DRAWARRAYS, 1); /* decodes the texture */
    CHECK_EQ(pvk_poll(ctx), PVK_SUCCESS);
    pvk_stats a = stats();
    for (uint32_t i = 1; i <= 2 * SAMPLERS; i++) {
        reg(PVK_GPUREG_TEXUNIT0_LOD, i); /* bias i/256: another sampler, the same texels at 1:1 */
        reg(PVK_GPUREG_DRAWARRAYS, 1);
    }
    pvk_stats b = stats();
    CHECK_EQ(b.samplers_created - a.samplers_created, 2 * SAMPLERS);
    CHECK_EQ(b.submissions, a.submissions); /* the batch is still open */
    CHECK_EQ(b.gpu_waits, a.gpu_waits);
    CHECK_EQ(pvk_poll(ctx), PVK_SUCCESS);
    CHECK_EQ(stats().submissions, a.submissions + 1);
    uint8_t got[W * H * 4];
    copy_out(got, FB);
    /* a texel at 1:1 (nearest): the texture's bytes, not a blank target */
    uint32_t textured = 0;
    for (uint32_t i = 0; i < W * H * 4; i += 4)
        textured += got[i] != 0 || got[i + 1] != 0;
    CHECK(textured > W * H / 2);
    th_release(ctx);
}

int main(void)
{
    /* exact submission counts: each draw takes its own pipeline, built as it
     * asks (with compile threads a draw may go back to the interpreter's
     * vertices, which fill the vertex ring another way; test_compile covers that) */
    setenv("PVK_COMPILE_THREADS", "0", 1);
    static result res[MODES];
    for (int mirror = 0; mirror < 2; mirror++) {
        memset(res, 0, sizeof res);
        for (int mode = 0; mode < MODES; mode++)
            run(mode, mirror, &res[mode]);
        compare(&res[CACHED_FF], &res[ROUNDTRIP]);
        compare(&res[CACHED], &res[SYNC]);
        /* not trivially equal: the draws changed things between the checkpoints */
        CHECK(differ(res[ROUNDTRIP].out, res[ROUNDTRIP].part, W * H * 4) > 1000);
        CHECK(differ(res[ROUNDTRIP].part, res[ROUNDTRIP].big, W * H * 4) > 1000);
        CHECK(differ(res[ROUNDTRIP].depth, res[ROUNDTRIP].over, W * H * 4) > 100);
        uint32_t half = 0;
        for (uint32_t i = 0; i < W * H / 2; i++)
            half += !memcmp(res[ROUNDTRIP].part + i * 4, "\x44\x33\x22\x11", 4);
        CHECK(half > 100 && half < W * H / 2); /* the fill shows where later draws did not cover it */
    }
    const char *extra = getenv("PVK_TEST_DEBUG");
    if (!extra || !*extra) /* it picks its own flags: the ctest variants would run it again as it is */
        many_states();
    sampler_evictions();
    CHECK_EQ(th_log_errors, 0); /* nothing dropped or refused on the way */
    (void)clear_fb, (void)draw_arrays, (void)tiled_index, (void)th_context; /* shared helpers not used here */
    return th_finish("test_batch");
}
