/* The fragment pipeline against the CPU reference (tests/ref/frag_ref.c):
 * random TEV configurations (every source picavk emulates, every operand,
 * combine mode and scale, the buffer chain, constants) and alpha tests on a
 * flat-coloured quad, exact; random blend and logic-op states with colour
 * write masks over a random destination: logic ops and masks exact;
 * blending exact where the shader reads the colour attachment
 * (rasterizationOrderAttachmentAccess, lavapipe has it) and within 1 of the
 * reference's integer arithmetic with PVK_DEBUG=no-attachment-read (Vulkan's
 * blend unit rounds where the PICA model truncates).  Both guest-memory modes
 * on each path.  PVK_DEBUG=shaders dumps
 * and the reflection check of generated modules against the draw layout. */
#include <glob.h>

#include "draw_common.h"
#include "frag_ref.h"
#include "runtime/runtime.h"
#include "shaders/shaders.h"

static uint32_t regs[0x400]; /* what this test wrote, for the reference */

static void wreg(uint32_t id, uint32_t v)
{
    regs[id] = v;
    reg(id, v);
}

static void setup_fb(void)
{
    reg(PVK_GPUREG_COLORBUFFER_FORMAT, 2); /* RGBA8 */
    reg(PVK_GPUREG_COLORBUFFER_LOC, FB >> 3);
    reg(PVK_GPUREG_COLORBUFFER_READ, 0xF);
    reg(PVK_GPUREG_COLORBUFFER_WRITE, 0xF);
    reg(PVK_GPUREG_FRAMEBUFFER_DIM, W | ((H - 1) << 12) | (1u << 24));
    reg(PVK_GPUREG_VIEWPORT_WIDTH, f24(W / 2.0f));
    reg(PVK_GPUREG_VIEWPORT_HEIGHT, f24(H / 2.0f));
    reg(PVK_GPUREG_VIEWPORT_XY, 0);
}

/* Two triangles over the whole buffer, in colour `c` (RGBA bytes), `copies`
 * times over (each pixel drawn that often by one draw). */
static void quad_n(const uint8_t c[4], int copies)
{
    static const float xy[6][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, -1}, {1, 1}, {-1, 1}};
    float *v = pvk_guest_ptr(ctx, VB, 6 * 32 * copies);
    for (int i = 0; i < 6 * copies; i++) {
        float p[8] = {xy[i % 6][0], xy[i % 6][1], -0.5f, 1.0f, c[0] / 255.0f, c[1] / 255.0f, c[2] / 255.0f,
                      c[3] / 255.0f};
        memcpy(v + 8 * i, p, sizeof p);
    }
    pvk_guest_written(ctx, VB, 6 * 32 * copies);
}

static void quad(const uint8_t c[4])
{
    quad_n(c, 1);
}

/* Fill the colour buffer with `c` (RGBA8 in memory: A, B, G, R). */
static void fill_fb(const uint8_t c[4])
{
    pvk_wait_idle(ctx);
    uint8_t *p = pvk_guest_ptr(ctx, FB, W * H * 4);
    for (uint32_t i = 0; i < W * H; i++)
        p[4 * i] = c[3], p[4 * i + 1] = c[2], p[4 * i + 2] = c[1], p[4 * i + 3] = c[0];
    pvk_guest_written(ctx, FB, W * H * 4);
}

static void read_px(uint32_t x, uint32_t y, uint8_t out[4])
{
    const uint8_t *p = (const uint8_t *)pvk_guest_ptr(ctx, FB, W * H * 4) + tiled_index(x, y) * 4;
    out[0] = p[3], out[1] = p[2], out[2] = p[1], out[3] = p[0];
}

static void rnd4(uint8_t c[4])
{
    for (int i = 0; i < 4; i++)
        c[i] = (uint8_t)th_rand();
}

static const uint32_t stage_reg[6] = {PVK_GPUREG_TEXENV0_SOURCE, PVK_GPUREG_TEXENV1_SOURCE, PVK_GPUREG_TEXENV2_SOURCE,
                                      PVK_GPUREG_TEXENV3_SOURCE, PVK_GPUREG_TEXENV4_SOURCE, PVK_GPUREG_TEXENV5_SOURCE};

/* A random source among those picavk emulates (and now and then one it reads as 0). */
static uint32_t rnd_source(void)
{
    static const uint32_t s[] = {0, 0, 13, 14, 14, 15, 15, 1, 3};
    return s[th_rand() % (sizeof s / sizeof s[0])];
}

static void random_tev(void)
{
    static const uint32_t rgb_ops[] = {0, 1, 2, 3, 4, 5, 8, 9, 12, 13};
    for (int n = 0; n < 6; n++) {
        uint32_t src = 0, op = 0;
        for (int i = 0; i < 3; i++) {
            src |= rnd_source() << (4 * i) | rnd_source() << (16 + 4 * i);
            op |= rgb_ops[th_rand() % 10] << (4 * i) | (th_rand() % 8) << (12 + 4 * i);
        }
        uint32_t rgb_mode = th_rand() % 10, a_mode = th_rand() % 10;
        if (a_mode == 6 || a_mode == 7) /* dot3 is a colour mode */
            a_mode = 1;
        uint32_t base = stage_reg[n];
        wreg(base, src);
        wreg(base + 1, op);
        wreg(base + 2, rgb_mode | a_mode << 16);
        wreg(base + 3, th_rand());
        wreg(base + 4, (th_rand() % 3) | (th_rand() % 3) << 16);
    }
    wreg(PVK_GPUREG_TEXENV_UPDATE_BUFFER, (th_rand() & 0xFF) << 8);
    wreg(PVK_GPUREG_TEXENV_BUFFER_COLOR, th_rand());
    wreg(PVK_GPUREG_FRAGOP_ALPHA_TEST, th_rand() % 4 ? 0 : 1 | (th_rand() % 8) << 4 | (th_rand() & 0xFF) << 8);
}

/* TEV stages all Replace of the primary colour, no alpha test. */
static void plain_tev(void)
{
    for (int n = 0; n < 6; n++)
        for (int k = 0; k < 5; k++)
            wreg(stage_reg[n] + k, 0);
    wreg(PVK_GPUREG_TEXENV_UPDATE_BUFFER, 0);
    wreg(PVK_GPUREG_FRAGOP_ALPHA_TEST, 0);
}

static void replace_blend(void)
{
    wreg(PVK_GPUREG_COLOR_OPERATION, 0x00E40100);
    wreg(PVK_GPUREG_BLEND_FUNC, 0x01010000);
    wreg(PVK_GPUREG_DEPTH_COLOR_MASK, 0xF00);
}

/* Draw, then compare two pixels with the reference; returns the worst channel error. */
static int check_case(const uint8_t prim[4], const uint8_t dst[4], int tol, const char *what, int k)
{
    fill_fb(dst);
    quad(prim);
    reg(PVK_GPUREG_PRIMITIVE_CONFIG, 1);
    reg(PVK_GPUREG_NUMVERTICES, 6);
    reg(PVK_GPUREG_VERTEX_OFFSET, 0);
    reg(PVK_GPUREG_DRAWARRAYS, 1);
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    uint8_t tev[4], want[4];
    bool kept = ref_tev(regs, prim, tev);
    if (kept)
        ref_merge(regs, tev, dst, want);
    else
        memcpy(want, dst, 4);
    int worst = 0;
    static const uint32_t at[2][2] = {{10, 10}, {50, 37}};
    for (int i = 0; i < 2; i++) {
        uint8_t got[4];
        read_px(at[i][0], at[i][1], got);
        for (int c = 0; c < 4; c++) {
            int e = abs((int)got[c] - (int)want[c]);
            worst = e > worst ? e : worst;
        }
    }
    if (worst > tol) {
        uint8_t got[4];
        read_px(10, 10, got);
        fprintf(stderr, "%s case %d: got %u,%u,%u,%u want %u,%u,%u,%u (tev %u,%u,%u,%u %s)\n", what, k, got[0],
                got[1], got[2], got[3], want[0], want[1], want[2], want[3], tev[0], tev[1], tev[2], tev[3],
                kept ? "kept" : "discarded");
    }
    CHECK(worst <= tol);
    return worst;
}

/* Blending that reads what the draws before it wrote, in one batch: four
 * draws of a random blend state over one random destination, the last one
 * covering every pixel three times itself (reads in rasterization order).
 * Against the reference applied draw after draw. */
static void stacked_blend(int tol, int k)
{
    plain_tev();
    wreg(PVK_GPUREG_COLOR_OPERATION, 0x00E40100);
    wreg(PVK_GPUREG_BLEND_FUNC, (th_rand() % 8) | (th_rand() % 8) << 8 | (th_rand() % 16) << 16 |
                                    (th_rand() % 16) << 20 | (th_rand() % 16) << 24 | (th_rand() % 16) << 28);
    wreg(PVK_GPUREG_BLEND_COLOR, th_rand());
    wreg(PVK_GPUREG_DEPTH_COLOR_MASK, 0xF00);
    uint8_t dst[4], want[4], prim[4], tev[4];
    rnd4(dst);
    fill_fb(dst);
    memcpy(want, dst, 4);
    pvk_stats a = {0}, b;
    for (int i = 0; i < 4; i++) {
        int copies = i == 3 ? 3 : 1;
        rnd4(prim);
        quad_n(prim, copies);
        reg(PVK_GPUREG_PRIMITIVE_CONFIG, 1);
        reg(PVK_GPUREG_NUMVERTICES, 6 * copies);
        reg(PVK_GPUREG_VERTEX_OFFSET, 0);
        reg(PVK_GPUREG_DRAWARRAYS, 1);
        ref_tev(regs, prim, tev);
        for (int c = 0; c < copies; c++)
            ref_merge(regs, tev, want, want);
        if (i == 0) /* the surface was loaded (the fill) and the batch opened */
            pvk_get_stats(ctx, &a);
    }
    pvk_get_stats(ctx, &b);
    CHECK_EQ(b.submissions, a.submissions); /* the later three joined the open batch */
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    int worst = 0;
    uint8_t got[4];
    static const uint32_t at[3][2] = {{10, 10}, {50, 37}, {W - 1, H - 1}};
    for (int i = 0; i < 3; i++) {
        read_px(at[i][0], at[i][1], got);
        for (int c = 0; c < 4; c++)
            worst = abs((int)got[c] - (int)want[c]) > worst ? abs((int)got[c] - (int)want[c]) : worst;
    }
    if (worst > tol * 6)
        fprintf(stderr, "stacked blend %d (BLEND_FUNC %08X): got %u,%u,%u,%u want %u,%u,%u,%u\n", k,
                regs[PVK_GPUREG_BLEND_FUNC], got[0], got[1], got[2], got[3], want[0], want[1], want[2], want[3]);
    CHECK(worst <= tol * 6); /* the fallback's error may grow by 1 a blend */
}

/* Draw three fragment states; returns the context's stats afterwards. */
static pvk_stats three_states(void)
{
    ctx = th_context(NULL, 0);
    upload_shader();
    setup_attribs();
    setup_fb();
    replace_blend();
    uint8_t prim[4] = {50, 100, 150, 200}, dst[4] = {0, 0, 0, 0};
    for (int k = 0; k < 3; k++) {
        plain_tev();
        wreg(PVK_GPUREG_TEXENV0_COMBINER, k == 0 ? 0 : k == 1 ? 1 : 2); /* replace, modulate, add */
        wreg(PVK_GPUREG_TEXENV0_SOURCE, 0x00000000);
        check_case(prim, dst, 0, "disk cache", k);
    }
    pvk_stats st;
    pvk_get_stats(ctx, &st);
    th_release(ctx); /* saves the pipeline cache */
    return st;
}

/* Shaders and pipelines survive the context on disk; broken files are ignored. */
static void disk_cache(void)
{
    char dir[] = "/tmp/pvk-cache-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    setenv("PVK_CACHE_DIR", dir, 1);
    /* exact counts: builds on the drawing thread, as the draws ask (compile
     * threads build a state's shader for the CPU and GPU vertex paths both) */
    setenv("PVK_COMPILE_THREADS", "0", 1);
    /* three fragment shaders (with PVK_DEBUG=ubershader two: replace and
     * modulate share the simple kind, add takes the full one), and the
     * quad's vertex program unless it runs on the CPU */
    const char *extra = getenv("PVK_TEST_DEBUG");
    bool uber = extra && strstr(extra, "ubershader");
    uint64_t shaders = (uber ? 2 : 3) + !(extra && strstr(extra, "cpu-vs"));
    pvk_stats a = three_states();
    CHECK_EQ(a.shader_compiles, shaders);
    CHECK_EQ(a.shader_disk_hits, 0);
    CHECK(a.pipelines_created >= (uber ? 1u : 3u));
    CHECK_EQ(a.ubershader_draws, uber ? 3u : 0u);
    pvk_stats b = three_states();
    CHECK_EQ(b.shader_compiles, 0); /* a second run compiles nothing */
    CHECK_EQ(b.shader_disk_hits, shaders);
    /* garbage in every cache file: warnings, compiles again, same pixels (check_case) */
    char cmd[256];
    snprintf(cmd, sizeof cmd, "for f in %s/*; do echo garbage > \"$f\"; done", dir);
    CHECK_EQ(system(cmd), 0);
    pvk_stats c = three_states();
    CHECK_EQ(c.shader_compiles, shaders);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_EQ(system(cmd), 0);
    unsetenv("PVK_CACHE_DIR");
    unsetenv("PVK_COMPILE_THREADS");
}

/* Without logicOp (PVK_DEBUG=no-logic-op masks it): Copy, counted as unsupported once. */
static void no_logic_op(void)
{
    setenv("PVK_DEBUG", "no-logic-op", 1);
    pvk_config cfg = {.validation = 1, .log = th_log};
    CHECK_EQ(pvk_context_create(&cfg, &ctx), PVK_SUCCESS);
    unsetenv("PVK_DEBUG");
    dlopen("libvulkan_lvp.so", RTLD_LAZY | RTLD_NOLOAD); /* keeps lavapipe mapped for LeakSanitizer, as th_context does */
    pvk_features f;
    pvk_get_features(ctx, &f);
    CHECK_EQ(f.logic_op, 0);
    upload_shader();
    setup_attribs();
    setup_fb();
    memset(regs, 0, sizeof regs);
    plain_tev();
    wreg(PVK_GPUREG_COLOR_OPERATION, 0x00E40000);
    wreg(PVK_GPUREG_LOGIC_OP, 3); /* Copy: exact on this path too */
    wreg(PVK_GPUREG_DEPTH_COLOR_MASK, 0xF00);
    uint8_t prim[4] = {1, 2, 3, 4}, dst[4] = {9, 9, 9, 9}, got[4];
    check_case(prim, dst, 0, "copy without logicOp", 0);
    wreg(PVK_GPUREG_LOGIC_OP, 11); /* Xor: drawn as Copy */
    pvk_stats a, b;
    pvk_get_stats(ctx, &a);
    fill_fb(dst);
    quad(prim);
    reg(PVK_GPUREG_DRAWARRAYS, 1);
    pvk_wait_idle(ctx);
    read_px(20, 20, got);
    CHECK(!memcmp(got, prim, 4));
    pvk_get_stats(ctx, &b);
    CHECK_EQ(b.unsupported - a.unsupported, 1);
    th_release(ctx);
}

/* The whole of a small text file (NULL if unreadable). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *b = calloc(1, 1 << 20);
    if (b && fread(b, 1, (1 << 20) - 1, f) == 0) {
        free(b);
        b = NULL;
    }
    fclose(f);
    return b;
}

/* PVK_DEBUG=shaders: a draw dumps its fragment shader as SPIRV-Cross reads
 * it back, beside the generated GLSL, into PVK_CACHE_DIR/shaders. */
static void shader_dump(void)
{
    char dir[] = "/tmp/pvk-dump-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    setenv("PVK_CACHE_DIR", dir, 1);
    setenv("PVK_DEBUG", "shaders", 1);
    pvk_config cfg = {.validation = 1, .log = th_log};
    CHECK_EQ(pvk_context_create(&cfg, &ctx), PVK_SUCCESS);
    unsetenv("PVK_DEBUG");
    dlopen("libvulkan_lvp.so", RTLD_LAZY | RTLD_NOLOAD); /* as th_context does */
    upload_shader();
    setup_attribs();
    setup_fb();
    memset(regs, 0, sizeof regs);
    replace_blend();
    plain_tev();
    /* stage 0 modulates primary by the constant; alpha test GEQUAL: both show in the code */
    wreg(PVK_GPUREG_TEXENV0_SOURCE, 0x00E000E0);
    wreg(PVK_GPUREG_TEXENV0_COMBINER, 0x00010001);
    wreg(PVK_GPUREG_TEXENV0_COLOR, 0x80FF40C0);
    wreg(PVK_GPUREG_FRAGOP_ALPHA_TEST, 1 | 7 << 4 | 0x20 << 8);
    uint8_t prim[4] = {200, 100, 50, 250}, dst[4] = {0, 0, 0, 0};
    int errors = th_log_errors;
    check_case(prim, dst, 0, "PVK_DEBUG=shaders", 0);
    CHECK_EQ(th_log_errors, errors); /* the module passed the layout check */
    th_release(ctx);
    unsetenv("PVK_CACHE_DIR");

    char pattern[64];
    glob_t g;
    snprintf(pattern, sizeof pattern, "%s/shaders/*.generated.frag.glsl", dir);
    CHECK_EQ(glob(pattern, 0, NULL, &g), 0);
    CHECK_EQ(g.gl_pathc, 1);
    if (g.gl_pathc == 1) {
        char cross[128];
        snprintf(cross, sizeof cross, "%.*s.frag.glsl", (int)(strlen(g.gl_pathv[0]) - strlen(".generated.frag.glsl")),
                 g.gl_pathv[0]);
        char *a = slurp(cross), *b = slurp(g.gl_pathv[0]);
        CHECK(a && b);
        if (a && b) {
            CHECK(strstr(a, "void main()") != NULL);
            CHECK(strstr(a, "// key:") != NULL);
            /* this key's code, as SPIRV-Cross writes it: the modulate helper, the alpha test */
            CHECK(strstr(a, "tev_modulate(") != NULL);
            CHECK(strstr(a, ">= ") && strstr(a, "alpha_ref))") && strstr(a, "discard;"));
            CHECK(strstr(a, "tev_lerp(") == NULL); /* a helper no stage calls is not in the module */
            CHECK(strstr(a, "layout(push_constant") != NULL);
            CHECK(strstr(b, "#version 460") == b); /* the generated source, unchanged */
            /* only the helpers its stages call are generated */
            CHECK(strstr(b, "tev_modulate(") != NULL && strstr(b, "tev_lerp(") == NULL);
        }
        free(a);
        free(b);
    }
    globfree(&g);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_EQ(system(cmd), 0);
}

static bool reflect_glsl(pvk_shader_stage stage, const char *src, pvk_spirv_info *info)
{
    uint32_t *words = NULL;
    size_t n = 0;
    char *log = NULL, err[256];
    pvk_result r = pvk_glsl_compile(stage, src, &words, &n, &log);
    if (r)
        fprintf(stderr, "%s\n", log ? log : "");
    free(log);
    CHECK_EQ(r, PVK_SUCCESS);
    bool ok = !r && !pvk_spirv_reflect(words, n, info, err);
    free(words);
    CHECK(ok);
    return ok;
}

/* The reflection check (no device): generated modules fit the draw layout,
 * and a layout or module that does not fit is caught, with the reason. */
static void layout_check(void)
{
    pvk_spirv vs_spv = pvk_builtin_draw_vertex_spirv();
    pvk_spirv_info vs, fs, bad;
    char err[256], why[256] = "";
    CHECK_EQ(pvk_spirv_reflect(vs_spv.code, vs_spv.size / 4, &vs, err), PVK_SUCCESS);
    CHECK_EQ(vs.n_outputs, 6); /* colour, w, tc0+tc1, tc2+w0, quaternion, view (z/w: gl_FragCoord.z) */
    CHECK_EQ(vs.push_blocks, 1);
    CHECK_EQ(vs.push_end, 20); /* vec4 + uint */
    pvk_fs_key key;
    memset(&key, 0, sizeof key);
    char *src = pvk_glsl_fragment(&key);
    CHECK(src != NULL);
    if (!src || !reflect_glsl(PVK_STAGE_FRAGMENT, src, &fs)) {
        free(src);
        return;
    }
    CHECK_EQ(fs.push_offset, 32);
    /* up to the blend colour: this key does not blend (nor is it the ubershader) */
    CHECK_EQ(fs.push_end, 32 + offsetof(pvk_draw_push, blend_color));
    CHECK_EQ(fs.n_inputs, 6); /* the vertex stage's outputs; z/w is gl_FragCoord.z */
    CHECK_EQ(fs.sets_used, 0);

    const uint32_t fsz = sizeof(pvk_draw_push);
    /* the draw layout's set 0 (runtime/pipeline.c) */
    const pvk_layout_binding draw_set[1] = {
        {0, PVK_DRAW_BINDING_DST, VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT, VK_SHADER_STAGE_FRAGMENT_BIT}};
    VkPushConstantRange good[2] = {{VK_SHADER_STAGE_VERTEX_BIT, 0, 32}, {VK_SHADER_STAGE_FRAGMENT_BIT, 32, fsz}};
    CHECK(pvk_shader_fits_layout(&vs, VK_SHADER_STAGE_VERTEX_BIT, NULL, good, 2, NULL, 0, why, sizeof why));
    CHECK(pvk_shader_fits_layout(&fs, VK_SHADER_STAGE_FRAGMENT_BIT, &vs, good, 2, NULL, 0, why, sizeof why));
    /* one range for both stages, or the fragment bytes split in two: still fits */
    VkPushConstantRange shared = {VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, 32 + fsz};
    CHECK(pvk_shader_fits_layout(&fs, VK_SHADER_STAGE_FRAGMENT_BIT, &vs, &shared, 1, NULL, 0, why, sizeof why));
    VkPushConstantRange split[3] = {good[0], {VK_SHADER_STAGE_FRAGMENT_BIT, 32, 16},
                                    {VK_SHADER_STAGE_FRAGMENT_BIT, 48, fsz - 16}};
    CHECK(pvk_shader_fits_layout(&fs, VK_SHADER_STAGE_FRAGMENT_BIT, &vs, split, 3, NULL, 0, why, sizeof why));

    /* the fragment range short of the alpha reference (the last member this module declares) */
    VkPushConstantRange small[2] = {good[0],
                                    {VK_SHADER_STAGE_FRAGMENT_BIT, 32, (uint32_t)offsetof(pvk_draw_push, blend_color) - 4}};
    why[0] = 0;
    CHECK(!pvk_shader_fits_layout(&fs, VK_SHADER_STAGE_FRAGMENT_BIT, &vs, small, 2, NULL, 0, why, sizeof why));
    CHECK(strstr(why, "push constants") != NULL);
    printf("too small a push-constant range: %s\n", why);
    /* the right bytes, the wrong stage; the vertex range too small for its block */
    VkPushConstantRange wrong_stage[2] = {good[0], {VK_SHADER_STAGE_VERTEX_BIT, 32, fsz}};
    CHECK(!pvk_shader_fits_layout(&fs, VK_SHADER_STAGE_FRAGMENT_BIT, &vs, wrong_stage, 2, NULL, 0, why, sizeof why));
    VkPushConstantRange small_vs[2] = {{VK_SHADER_STAGE_VERTEX_BIT, 0, 16}, good[1]};
    CHECK(!pvk_shader_fits_layout(&vs, VK_SHADER_STAGE_VERTEX_BIT, NULL, small_vs, 2, NULL, 0, why, sizeof why));

    /* a descriptor set the layout does not have */
    if (reflect_glsl(PVK_STAGE_FRAGMENT,
                     "#version 460\nlayout(set = 1, binding = 0) uniform sampler2D t;\n"
                     "layout(location = 0) in vec4 color;\nlayout(location = 0) out vec4 o;\n"
                     "void main() { o = texture(t, color.xy); }\n",
                     &bad)) {
        CHECK_EQ(bad.sets_used, 2);
        CHECK_EQ(bad.descriptors, 1);
        CHECK(!pvk_shader_fits_layout(&bad, VK_SHADER_STAGE_FRAGMENT_BIT, &vs, good, 2, NULL, 0, why, sizeof why));
        CHECK(strstr(why, "descriptor set 1") != NULL);
        CHECK(!pvk_shader_fits_layout(&bad, VK_SHADER_STAGE_FRAGMENT_BIT, &vs, good, 2, draw_set, 1, why, sizeof why));
        pvk_layout_binding with_tex[2] = {
            draw_set[0], {1, 0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, VK_SHADER_STAGE_FRAGMENT_BIT}};
        CHECK(pvk_shader_fits_layout(&bad, VK_SHADER_STAGE_FRAGMENT_BIT, &vs, good, 2, with_tex, 2, why, sizeof why));
        with_tex[1].type = VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE; /* the right place, the wrong type */
        CHECK(!pvk_shader_fits_layout(&bad, VK_SHADER_STAGE_FRAGMENT_BIT, &vs, good, 2, with_tex, 2, why, sizeof why));
        CHECK(strstr(why, "type") != NULL);
    }
    /* a key that blends in the shader reads the colour attachment: set 0,
     * binding 4, an input attachment, which the draw layout has */
    key.blend = 1;
    key.rgb_eq = 1, key.alpha_eq = 4, key.rgb_src = 14, key.rgb_dst = 10, key.alpha_src = 6, key.alpha_dst = 9;
    char *bsrc = pvk_glsl_fragment(&key);
    CHECK(bsrc != NULL);
    if (bsrc && reflect_glsl(PVK_STAGE_FRAGMENT, bsrc, &bad)) {
        CHECK_EQ(bad.descriptors, 1);
        CHECK_EQ(bad.desc[0].set, 0);
        CHECK_EQ(bad.desc[0].binding, PVK_DRAW_BINDING_DST);
        CHECK_EQ(bad.desc[0].type, VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT);
        CHECK_EQ(bad.push_end, 32 + offsetof(pvk_draw_push, uber_tex)); /* the blend colour is its last member */
        CHECK(pvk_shader_fits_layout(&bad, VK_SHADER_STAGE_FRAGMENT_BIT, &vs, good, 2, draw_set, 1, why, sizeof why));
        CHECK(!pvk_shader_fits_layout(&bad, VK_SHADER_STAGE_FRAGMENT_BIT, &vs, good, 2, NULL, 0, why, sizeof why));
        CHECK(strstr(why, "descriptor set 0 binding 4") != NULL);
        printf("blending shader without the input attachment in the layout: %s\n", why);
    }
    free(bsrc);
    /* the ubershader of a blending key: its data block (binding 9), the
     * LUTs and parameters (5, 6: fog is its data) and the whole push range,
     * up to its texture word */
    pvk_fs_key ukey;
    pvk_fs_uber_key(&key, &ukey);
    CHECK(ukey.uber && ukey.blend && !ukey.rgb_eq && !ukey.rgb_src);
    char *usrc = pvk_glsl_fragment(&ukey);
    CHECK(usrc != NULL);
    if (usrc && reflect_glsl(PVK_STAGE_FRAGMENT, usrc, &bad)) {
        CHECK_EQ(bad.push_end, 32 + sizeof(pvk_draw_push));
        bool block = false;
        for (uint32_t i = 0; i < bad.descriptors; i++)
            block |= bad.desc[i].binding == PVK_DRAW_BINDING_UBER && bad.desc[i].type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
        CHECK(block);
        pvk_layout_binding with_uber[4] = {
            draw_set[0],
            {0, PVK_DRAW_BINDING_FRAG_LUTS, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_SHADER_STAGE_FRAGMENT_BIT},
            {0, PVK_DRAW_BINDING_FRAG_PARAMS, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, VK_SHADER_STAGE_FRAGMENT_BIT},
            {0, PVK_DRAW_BINDING_UBER, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, VK_SHADER_STAGE_FRAGMENT_BIT}};
        CHECK(pvk_shader_fits_layout(&bad, VK_SHADER_STAGE_FRAGMENT_BIT, &vs, good, 2, with_uber, 4, why, sizeof why));
        CHECK(!pvk_shader_fits_layout(&bad, VK_SHADER_STAGE_FRAGMENT_BIT, &vs, good, 2, with_uber, 3, why, sizeof why));
        CHECK(!pvk_shader_fits_layout(&bad, VK_SHADER_STAGE_FRAGMENT_BIT, &vs, good, 2, draw_set, 1, why, sizeof why));
    }
    free(usrc);
    /* inputs the vertex shader does not write: a wrong type, a wrong location, other interpolation */
    static const char *const wrong_inputs[] = {
        "layout(location = 2) in vec4 clip_w;\n",
        "layout(location = 1) in float extra;\n",
        "layout(location = 2) noperspective in float clip_w;\n", /* where the vertex shader says perspective */
    };
    for (int i = 0; i < 3; i++) {
        char glsl[512];
        snprintf(glsl, sizeof glsl,
                 "#version 460\n%slayout(location = 0) out vec4 o;\nvoid main() { o = vec4(%s); }\n",
                 wrong_inputs[i], i == 0 ? "clip_w.x" : i == 1 ? "extra" : "clip_w");
        if (reflect_glsl(PVK_STAGE_FRAGMENT, glsl, &bad)) {
            why[0] = 0;
            CHECK(!pvk_shader_fits_layout(&bad, VK_SHADER_STAGE_FRAGMENT_BIT, &vs, good, 2, NULL, 0, why, sizeof why));
            CHECK(strstr(why, "input") != NULL);
            printf("mismatched input %d: %s\n", i, why);
        }
    }
    free(src);
}

int main(void)
{
    layout_check();
    shader_dump();
    no_logic_op();
    disk_cache();
    /* the attachment-read path (lavapipe has it) and, with it masked off,
     * Vulkan's blend unit; each in both guest-memory modes */
    for (int run = 0; run < 4; run++) {
        int mirror = run & 1;
        bool fallback = run >= 2;
        ctx = th_context_debug(NULL, fallback ? "no-attachment-read" : NULL, mirror);
        if (strstr(pvk_device_name(ctx), "llvmpipe"))
            CHECK_EQ(ctx->gpu.attachment_read, !fallback);
        const int blend_tol = ctx->gpu.attachment_read ? 0 : 1;
        upload_shader();
        setup_attribs();
        setup_fb();
        memset(regs, 0, sizeof regs);
        /* registers left 0: logic op Clear and no colour written (hardware meaning) */
        uint8_t prim[4] = {10, 200, 30, 255}, dst[4] = {1, 2, 3, 4}, got[4];
        plain_tev();
        fill_fb(dst);
        check_case(prim, dst, 0, "zero registers", 0);
        read_px(20, 20, got);
        CHECK(!memcmp(got, dst, 4));
        /* TEV and alpha test: exact */
        replace_blend();
        int n_tev = 60, discarded = 0;
        for (int k = 0; k < n_tev; k++) {
            random_tev();
            rnd4(prim);
            rnd4(dst);
            uint8_t tmp[4];
            discarded += !ref_tev(regs, prim, tmp);
            check_case(prim, dst, 0, "tev", k);
        }
        CHECK(discarded > 0 && discarded < n_tev); /* the alpha test did both */
        /* output merger: logic ops and masks exact, blending exact when the
         * shader reads the attachment, else within 1 */
        plain_tev();
        int worst_blend = 0, n_blend = 0;
        for (int k = 0; k < 240; k++) {
            bool blend = k % 3 != 0;
            wreg(PVK_GPUREG_COLOR_OPERATION, 0x00E40000 | (blend ? 0x100u : 0));
            uint32_t bf = 0;
            if (blend) { /* every equation (5-7 are Add) and factor (15 is One) */
                bf = (th_rand() % 8) | (th_rand() % 8) << 8 | (th_rand() % 16) << 16 | (th_rand() % 16) << 20 |
                     (th_rand() % 16) << 24 | (th_rand() % 16) << 28;
                n_blend++;
            }
            wreg(PVK_GPUREG_BLEND_FUNC, bf);
            wreg(PVK_GPUREG_LOGIC_OP, k / 3 % 16);
            wreg(PVK_GPUREG_BLEND_COLOR, th_rand());
            wreg(PVK_GPUREG_DEPTH_COLOR_MASK, (k % 7 ? 0xFu : th_rand() % 16) << 8);
            rnd4(prim);
            rnd4(dst);
            int w = check_case(prim, dst, blend ? blend_tol : 0, blend ? "blend" : "logic op", k);
            if (blend && w > worst_blend)
                worst_blend = w;
        }
        for (int k = 0; k < 12; k++)
            stacked_blend(blend_tol, k);
        printf("%s, mode %d: %d blend states within %d of the integer reference (allowed %d)\n",
               ctx->gpu.attachment_read ? "attachment reads" : "fixed-function blending", mirror, n_blend, worst_blend,
               blend_tol);
        th_release(ctx);
    }
    return th_finish("test_fragment");
}
