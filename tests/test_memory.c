/* The memory budget (issue 38): a storm of distinct states in the smallest
 * budget keeps every cache within its share (pvk_stats.held_*), evicts the
 * least recently used (budget_evictions), and what is drawn after the
 * evictions is still right: probes of a constant colour and of textures
 * decoded again after their eviction, read from guest memory.  Also the
 * budget's settings: pvk_config.memory_budget_mb, PVK_MEMORY_BUDGET_MB. */
#include "harness.h"

#include "bench/bench_draw.h"

#define FW 240u
#define FH 400u
#define TARGETS 0x22000000u /* render targets: 8 of them, 1 MiB apart (colour, then depth at +0x60000) */
#define LCD 0x18600000u
#define VB 0x20100000u
#define LIST 0x20200000u
#define TEX 0x20400000u /* 512 x 256 RGBA8 textures, 512 KiB apart */
#define TEX_BYTES (512u * 256u * 4u)
#define BUDGET_MB 64u /* the least there is */
#define TEXTURES 40u

static pvk_context *ctx;

/* The pass-through program (o0 = v0, o1 = v1 colour, o2 = v1 texture coordinate) and the quad's attributes. */
static void program(bench_list *l)
{
    const uint32_t code[4] = {0x13u << 26 | 0u << 21 | 0u << 12, 0x13u << 26 | 1u << 21 | 1u << 12,
                              0x13u << 26 | 2u << 21 | 1u << 12, 0x22u << 26};
    const uint32_t desc = 0xFu | 0x1Bu << 5 | 0x1Bu << 14 | 0x1Bu << 23;
    bench_list_wm(l, PVK_GPUREG_GEOSTAGE_CONFIG, 0x3, 0);
    bench_list_w(l, PVK_GPUREG_VSH_CODETRANSFER_CONFIG, 0);
    bench_list_put(l, PVK_GPUREG_VSH_CODETRANSFER_DATA, 0xF, 0, 4, code);
    bench_list_w(l, PVK_GPUREG_VSH_CODETRANSFER_END, 1);
    bench_list_w(l, PVK_GPUREG_VSH_OPDESCS_CONFIG, 0);
    bench_list_put(l, PVK_GPUREG_VSH_OPDESCS_DATA, 0xF, 0, 1, &desc);
    bench_list_w(l, PVK_GPUREG_VSH_ENTRYPOINT, 0x7FFF0000u);
    bench_list_w(l, PVK_GPUREG_VSH_OUTMAP_MASK, 0x7);
    static const uint32_t outmap[8] = {3, 0x03020100, 0x0B0A0908, 0x1F1F0D0C, 0x1F1F1F1F,
                                       0x1F1F1F1F, 0x1F1F1F1F, 0x1F1F1F1F};
    bench_list_wm(l, PVK_GPUREG_PRIMITIVE_CONFIG, 0x1, 2);
    bench_list_seq(l, PVK_GPUREG_SH_OUTMAP_TOTAL, 8, outmap);
    bench_list_w(l, PVK_GPUREG_SH_OUTATTR_MODE, 0);
    bench_list_w(l, PVK_GPUREG_SH_OUTATTR_CLOCK, 0x00000103);
    uint32_t p[3] = {0xFF, 1u << 28};
    bench_list_seq(l, PVK_GPUREG_ATTRIBBUFFERS_FORMAT_LOW, 2, p);
    bench_list_wm(l, PVK_GPUREG_VSH_INPUTBUFFER_CONFIG, 0xB, 0xA0000000u | 1);
    bench_list_w(l, PVK_GPUREG_VSH_NUM_ATTR, 1);
    p[0] = 0x10, p[1] = 0;
    bench_list_seq(l, PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_LOW, 2, p);
    bench_list_w(l, PVK_GPUREG_ATTRIBBUFFERS_LOC, VB >> 3);
    p[0] = 0, p[1] = 0x10, p[2] = 32u << 16 | 2u << 28;
    bench_list_seq(l, PVK_GPUREG_ATTRIBBUFFER0_OFFSET, 3, p);
}

/* C3Di_FrameBufBind of target t (RGBA8 colour, D24S8 depth), the viewport, no blending or depth test. */
static void target(bench_list *l, uint32_t t)
{
    uint32_t p[4];
    bench_list_w(l, PVK_GPUREG_FRAMEBUFFER_INVALIDATE, 1);
    p[0] = (TARGETS + t * 0x100000u + 0x60000u) >> 3, p[1] = (TARGETS + t * 0x100000u) >> 3;
    p[2] = 0x01000000u | (FH - 1) << 12 | FW;
    bench_list_seq(l, PVK_GPUREG_DEPTHBUFFER_LOC, 3, p);
    bench_list_w(l, PVK_GPUREG_RENDERBUF_DIM, p[2]);
    bench_list_w(l, PVK_GPUREG_DEPTHBUFFER_FORMAT, 3);
    bench_list_w(l, PVK_GPUREG_COLORBUFFER_FORMAT, 2);
    p[0] = p[1] = 0xF, p[2] = p[3] = 3;
    bench_list_seq(l, PVK_GPUREG_COLORBUFFER_READ, 4, p);
    bench_list_w(l, PVK_GPUREG_VIEWPORT_WIDTH, bench_f24(FW / 2.0f));
    bench_list_w(l, PVK_GPUREG_VIEWPORT_HEIGHT, bench_f24(FH / 2.0f));
    bench_list_w(l, PVK_GPUREG_VIEWPORT_XY, 0);
    bench_list_w(l, PVK_GPUREG_SCISSORTEST_MODE, 0);
    bench_list_w(l, PVK_GPUREG_FACECULLING_CONFIG, 0);
    bench_list_w(l, PVK_GPUREG_BLEND_FUNC, 0x01010000u);
    bench_list_w(l, PVK_GPUREG_COLOR_OPERATION, 0x00E40100u);
    bench_list_w(l, PVK_GPUREG_DEPTH_COLOR_MASK, 0xF00u | 1u << 12);
}

static void tev(bench_list *l, const uint32_t st0[5])
{
    static const uint32_t pass[5] = {0x000F000F, 0, 0, 0xFFFFFFFFu, 0};
    bench_list_seq(l, PVK_GPUREG_TEXENV0_SOURCE, 5, st0);
    for (uint32_t s = 1; s < 6; s++)
        bench_list_seq(l, s < 4 ? PVK_GPUREG_TEXENV0_SOURCE + 8 * s : PVK_GPUREG_TEXENV0_SOURCE + 8 * s + 16, 5,
                       pass);
}

/* Unit 0 samples texture k (nearest, 512 x 256 RGBA8), or nothing when k < 0. */
static void texture(bench_list *l, int k)
{
    if (k < 0) {
        bench_list_wm(l, PVK_GPUREG_TEXUNIT_CONFIG, 0xB, 0x00001000u);
        return;
    }
    bench_list_w(l, PVK_GPUREG_TEXUNIT0_DIM, 256u | 512u << 16);
    bench_list_w(l, PVK_GPUREG_TEXUNIT0_PARAM, 0);
    bench_list_w(l, PVK_GPUREG_TEXUNIT0_ADDR1, (TEX + (uint32_t)k * TEX_BYTES) >> 3);
    bench_list_w(l, PVK_GPUREG_TEXUNIT0_TYPE, 0);
    bench_list_wm(l, PVK_GPUREG_TEXUNIT_CONFIG, 0xB, 0x00001001u);
}

/* Texture k's one colour (RGBA8 in memory: A, B, G, R), as the texture unit reads it: 0xAABBGGRR. */
static uint32_t tex_colour(uint32_t k)
{
    return 0xFF000000u | (k * 0x3Bu & 0xFF) << 16 | (k * 0x71u & 0xFF) << 8 | ((0x40u + k * 0x17u) & 0xFF);
}

static void run(bench_list *l)
{
    bench_list_frame_end(l);
    void *g = pvk_guest_ptr(ctx, LIST, l->n * 4);
    CHECK(g != NULL);
    memcpy(g, l->w, l->n * 4);
    CHECK_EQ(pvk_guest_written(ctx, LIST, l->n * 4), PVK_SUCCESS);
    CHECK_EQ(pvk_command_list_run(ctx, LIST, l->n * 4), PVK_SUCCESS);
    l->n = 0;
}

/* The centre pixel of target t as 0xAABBGGRR. */
static uint32_t centre(uint32_t t)
{
    uint32_t a = TARGETS + t * 0x100000u;
    CHECK_EQ(pvk_guest_flush(ctx, a, FW * FH * 4), PVK_SUCCESS);
    const uint8_t *p = pvk_guest_ptr(ctx, a + (FW * FH / 2) * 4, 4);
    return p ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3] : 0;
}

static void within_budget(const pvk_stats *st, uint64_t *peak)
{
    const uint64_t mb = 1u << 20, total = BUDGET_MB * mb;
    /* the shares of docs/memory.md */
    CHECK(st->held_pipelines <= 20); /* 40 MiB at lavapipe's 2 MiB each */
    CHECK(st->held_texture_bytes <= total / 8);
    CHECK(st->held_surface_bytes <= total * 3 / 16);
    CHECK(st->held_module_bytes <= total / 16);
    CHECK_EQ(st->held_bytes,
             st->held_pipeline_bytes + st->held_module_bytes + st->held_texture_bytes + st->held_surface_bytes);
    if (st->held_bytes > *peak)
        *peak = st->held_bytes;
}

static void storm(void)
{
    pvk_config cfg = {.memory_budget_mb = BUDGET_MB, .scale = 2};
    ctx = th_context(&cfg, 0);
    float *v = pvk_guest_ptr(ctx, VB, 6 * 32);
    static const float corner[6][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 0}, {1, 1}, {0, 1}};
    for (uint32_t i = 0; i < 6; i++) {
        float x = corner[i][0], y = corner[i][1];
        float vert[8] = {2 * x - 1, 2 * y - 1, -0.5f, 1, x, y, 0.5f, 1};
        memcpy(v + 8 * i, vert, sizeof vert);
    }
    CHECK_EQ(pvk_guest_written(ctx, VB, 6 * 32), PVK_SUCCESS);
    /* 40 textures of one colour each: 20 MiB, more than the textures' 8 MiB share */
    for (uint32_t k = 0; k < TEXTURES; k++) {
        uint32_t *p = pvk_guest_ptr(ctx, TEX + k * TEX_BYTES, TEX_BYTES), c = tex_colour(k);
        uint32_t mem = (c >> 24) | (c >> 8 & 0xFF00) | (c << 8 & 0xFF0000) | c << 24; /* bytes A, B, G, R */
        for (uint32_t i = 0; p && i < TEX_BYTES / 4; i++)
            p[i] = mem;
    }
    CHECK_EQ(pvk_guest_written(ctx, TEX, TEXTURES * TEX_BYTES), PVK_SUCCESS);
    bench_list l = {0};
    uint64_t peak = 0;
    uint32_t wrong = 0;
    pvk_stats st;
    /* 60 frames at 2x: each into one of 8 targets (36 MiB of surfaces, more than their 12 MiB share),
     * 6 draws with new combiner states (a new fragment shader and pipeline each), every other one
     * sampling the next texture, then a probe of a known colour */
    for (uint32_t f = 0; f < 60; f++) {
        uint32_t t = f % 8;
        target(&l, t);
        program(&l);
        for (uint32_t d = 0; d < 6; d++) {
            uint32_t id = f * 6 + d;
            /* primary colour op constant, the op and operands from the id: distinct up to 10 x 4 x 4 x 4 */
            uint32_t st0[5] = {(d % 2 ? 3u : 0u) | 14u << 4 | 14u << 16, (id / 10 % 4) << 4 | (id / 40 % 4) << 8,
                               (id % 10) | 1u << 16, 0xFF000000u | id, id / 160 % 3};
            tev(&l, st0);
            texture(&l, d % 2 ? (int)((id / 2) % TEXTURES) : -1);
            bench_list_draw_arrays(&l, 0, 0, 6);
        }
        /* the probe: stage 0 replaces with the constant, or with texture k (decoded again if evicted) */
        uint32_t k = f * 7 % TEXTURES, colour = 0xFF000000u | (f * 0x2468ACu & 0xFFFFFF);
        uint32_t probe[5] = {f % 2 ? 0x00030003u : 0x000E000Eu, 0, 0, colour, 0};
        tev(&l, probe);
        texture(&l, f % 2 ? (int)k : -1);
        bench_list_draw_arrays(&l, 0, 0, 6);
        run(&l);
        uint32_t want = f % 2 ? tex_colour(k) : colour, got = centre(t);
        if (got != want && wrong++ < 5)
            fprintf(stderr, "frame %u: probe %08X, expected %08X\n", f, got, want);
        CHECK_EQ(pvk_vblank(ctx), PVK_SUCCESS);
        pvk_get_stats(ctx, &st);
        within_budget(&st, &peak);
    }
    CHECK_EQ(wrong, 0);
    pvk_get_stats(ctx, &st);
    printf("storm: %llu draws, %llu pipelines created, %llu evicted by the budget (%llu pipelines); held now: "
           "%llu pipelines, %llu modules (%llu KiB), %llu textures (%llu KiB), %llu surfaces (%llu KiB), %llu "
           "samplers; peak %llu KiB of a %u MiB budget\n",
           (unsigned long long)st.draws, (unsigned long long)st.pipelines_created,
           (unsigned long long)st.budget_evictions, (unsigned long long)st.pipeline_evictions,
           (unsigned long long)st.held_pipelines, (unsigned long long)st.held_modules,
           (unsigned long long)st.held_module_bytes >> 10, (unsigned long long)st.held_textures,
           (unsigned long long)st.held_texture_bytes >> 10, (unsigned long long)st.held_surfaces,
           (unsigned long long)st.held_surface_bytes >> 10, (unsigned long long)st.held_samplers,
           (unsigned long long)peak >> 10, BUDGET_MB);
    CHECK(peak <= (uint64_t)BUDGET_MB << 20);
    CHECK(st.pipeline_evictions > 0);
    CHECK(st.budget_evictions > st.pipeline_evictions); /* textures and surfaces went too */
    CHECK(st.held_textures < 32); /* the bytes decided, not the cache's 32 slots */
    CHECK(st.held_textures > 0 && st.held_surfaces > 0 && st.held_pipelines > 0 && st.held_modules > 0);
    CHECK_EQ(st.bad_input, 0);
    free(l.w);
    th_release(ctx);
}

/* memory_budget_mb and PVK_MEMORY_BUDGET_MB: the config wins; text that is
 * not a number is refused; less than the minimum is raised to it. */
static void settings(void)
{
    pvk_config cfg = {.log = th_log};
    pvk_context *c = NULL;
    th_quiet_errors = 1;
    setenv("PVK_MEMORY_BUDGET_MB", "lots", 1);
    int errors = th_log_errors;
    CHECK_EQ(pvk_context_create(&cfg, &c), PVK_ERROR_INVALID_ARGUMENT);
    CHECK(c == NULL);
    CHECK(th_log_errors > errors);
    cfg.memory_budget_mb = 64; /* the host's setting wins over the environment */
    c = th_context(&cfg, 0);
    pvk_context_destroy(c);
    unsetenv("PVK_MEMORY_BUDGET_MB");
    th_quiet_errors = 0;
    cfg.memory_budget_mb = 1; /* raised to PVK_MIN_MEMORY_BUDGET_MB, with a warning */
    c = th_context(&cfg, 0);
    pvk_stats st;
    CHECK_EQ(pvk_get_stats(c, &st), PVK_SUCCESS);
    CHECK(st.held_bytes <= (uint64_t)PVK_MIN_MEMORY_BUDGET_MB << 20); /* ubershader pipelines an earlier run drew */
    th_release(c);
}

int main(void)
{
    settings();
    storm();
    return th_finish("test_memory");
}
