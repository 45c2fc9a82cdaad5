/* Drawing: triangles through attribute loading, the vertex shader and the
 * Vulkan rasterizer cover exactly the pixels whose centres lie inside them
 * (coordinates are chosen so no centre lies on an edge), in the colour the
 * vertices carry; culling, strips, fans, viewport offsets and both scissor
 * modes; the colour buffer lands tiled in guest memory in its format. */
#include "draw_common.h"
#include "tools/asm.h"

static void setup_fb(uint32_t fmt_code)
{
    reg(PVK_GPUREG_COLORBUFFER_FORMAT, (fmt_code << 16) | (fmt_code == 0 ? 2 : 0));
    reg(PVK_GPUREG_COLORBUFFER_LOC, FB >> 3);
    reg(PVK_GPUREG_COLORBUFFER_READ, 0xF); /* colour reads and writes allowed, as citro3d binds it */
    reg(PVK_GPUREG_COLORBUFFER_WRITE, 0xF);
    setup_view();
}

/* Window-space (pixels, y up) vertices -> clip space for a W x H viewport at `ox`, `oy`. */
typedef struct { float x, y; } pt;

static void put_vertices(const pt *p, unsigned n, const float color[4], int ox, int oy)
{
    float *v = pvk_guest_ptr(ctx, VB, n * 32);
    for (unsigned i = 0; i < n; i++) {
        v[i * 8 + 0] = (p[i].x - (float)ox) / (W / 2.0f) - 1.0f;
        v[i * 8 + 1] = (p[i].y - (float)oy) / (H / 2.0f) - 1.0f;
        v[i * 8 + 2] = -0.5f;
        v[i * 8 + 3] = 1.0f;
        memcpy(&v[i * 8 + 4], color, 16);
    }
    pvk_guest_written(ctx, VB, n * 32);
}

/* RGBA8 word of window pixel (x, y), y up: tiled, row 0 at the top. */
static uint32_t pixel(uint32_t x, uint32_t y)
{
    uint32_t idx = tiled_index(x, y);
    const uint8_t *p = (const uint8_t *)pvk_guest_ptr(ctx, FB, W * H * 4) + idx * 4;
    return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static float edge(pt a, pt b, float x, float y)
{
    return (b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x);
}

static int inside(const pt t[3], float x, float y)
{
    float e0 = edge(t[0], t[1], x, y), e1 = edge(t[1], t[2], x, y), e2 = edge(t[2], t[0], x, y);
    return (e0 > 0 && e1 > 0 && e2 > 0) || (e0 < 0 && e1 < 0 && e2 < 0);
}

/* Every pixel: `want` where any of the triangles covers its centre (and the
 * optional rectangle test passes), 0 elsewhere. */
static void expect_cover(const pt *tris, unsigned ntris, uint32_t want, int rx0, int ry0, int rx1, int ry1, int excl)
{
    int bad = 0;
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            int in = 0;
            for (unsigned t = 0; t < ntris; t++)
                in |= inside(&tris[3 * t], (float)x + 0.5f, (float)y + 0.5f);
            if (rx1 >= rx0) {
                int r = (int)x >= rx0 && (int)x <= rx1 && (int)y >= ry0 && (int)y <= ry1;
                in &= excl ? !r : r;
            }
            uint32_t got = pixel(x, y), exp = in ? want : 0;
            if (got != exp && bad++ < 5)
                fprintf(stderr, "pixel (%u,%u): got 0x%08X, want 0x%08X\n", x, y, got, exp);
        }
    CHECK_EQ(bad, 0);
}

static const float RED[4] = {1, 0, 0, 1};

/* Immediate mode: FIXEDATTRIB_INDEX = 0xF, then each vertex's attributes
 * (position, colour) as three f24-packed words each. */
static void immediate(uint32_t mode, const pt *p, unsigned n, const float color[4])
{
    reg(PVK_GPUREG_PRIMITIVE_CONFIG, (mode << 8) | 1);
    reg(PVK_GPUREG_RESTART_PRIMITIVE, 1);
    reg(PVK_GPUREG_FIXEDATTRIB_INDEX, 0xF);
    for (unsigned i = 0; i < n; i++) {
        float pos[4] = {p[i].x / (W / 2.0f) - 1.0f, p[i].y / (H / 2.0f) - 1.0f, -0.5f, 1.0f};
        const float *attrs[2] = {pos, color};
        for (int a = 0; a < 2; a++) {
            uint32_t f[4], words[3];
            for (int c = 0; c < 4; c++)
                f[c] = f24(attrs[a][c]);
            pvk_pack_f24x4(f, words);
            for (int k = 0; k < 3; k++)
                reg(PVK_GPUREG_FIXEDATTRIB_DATA0 + (uint32_t)k, words[k]);
        }
    }
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
}

/* An indexed triangle list as citro3d's C3D_DrawElements(GPU_TRIANGLES)
 * sends it: PRIMITIVE_CONFIG mode 3 ("geometry primitive") and
 * GEOSTAGE_CONFIG bit 8 (triangle elements), but no geometry shader (bits
 * 0-1 = 0).  It is an ordinary triangle list: drawn, nothing unsupported.
 * With the geometry stage on (bits 0-1 = 2) but the geometry unit never
 * configured (VSH_COM_MODE 0, GSH_INPUTBUFFER_CONFIG not in geometry mode)
 * the draw runs through that unit and the odd configuration is reported
 * (geometry shaders themselves: tests/test_gs.c). */
static void elements_mode3(const pt tri[3])
{
    const uint32_t IB = VB + 0x1000;
    put_vertices(tri, 3, RED, 0, 0);
    uint16_t *ib = pvk_guest_ptr(ctx, IB, 8);
    ib[0] = 2, ib[1] = 0, ib[2] = 1, ib[3] = 0; /* the same triangle, rotated */
    pvk_guest_written(ctx, IB, 8);
    pvk_stats a, b;
    pvk_get_stats(ctx, &a);
    clear_fb();
    reg(PVK_GPUREG_PRIMITIVE_CONFIG, (3u << 8) | 1);
    reg(PVK_GPUREG_RESTART_PRIMITIVE, 1);
    reg(PVK_GPUREG_INDEXBUFFER_CONFIG, (IB - VB) | 1u << 31); /* u16 indices */
    reg(PVK_GPUREG_NUMVERTICES, 3);
    reg(PVK_GPUREG_VERTEX_OFFSET, 0);
    reg(PVK_GPUREG_GEOSTAGE_CONFIG, 0x100);
    reg(PVK_GPUREG_GEOSTAGE_CONFIG2, 0x100);
    reg(PVK_GPUREG_DRAWELEMENTS, 1);
    reg(PVK_GPUREG_GEOSTAGE_CONFIG, 0);
    reg(PVK_GPUREG_GEOSTAGE_CONFIG2, 0);
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    expect_cover(tri, 1, 0xFF0000FF, 0, 0, -1, -1, 0);
    pvk_get_stats(ctx, &b);
    CHECK_EQ(b.unsupported, a.unsupported);
    reg(PVK_GPUREG_GEOSTAGE_CONFIG, 2);
    reg(PVK_GPUREG_DRAWELEMENTS, 1);
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    reg(PVK_GPUREG_GEOSTAGE_CONFIG, 0);
    pvk_get_stats(ctx, &b);
    CHECK(b.unsupported > a.unsupported);
}

/* Gas (COLOR_OPERATION bits 0-1 = 1) and the undocumented mode 2 do not
 * exist: the draw still renders as mode 0, and every such draw counts as
 * unsupported (logged once per mode).  Mode 3 into RGBA8 is shadow rendering
 * (test_fraglight): over a buffer of zeros (depth 0) nothing is nearer, so
 * nothing changes. */
static void fragment_modes(const pt tri[3])
{
    put_vertices(tri, 3, RED, 0, 0);
    pvk_stats a, b;
    pvk_get_stats(ctx, &a);
    for (uint32_t mode = 0; mode < 4; mode++) {
        clear_fb();
        reg(PVK_GPUREG_COLOR_OPERATION, 0x00E40100 | mode);
        draw_arrays(0, 3);
        expect_cover(tri, 1, mode == 3 ? 0 : 0xFF0000FF, 0, 0, -1, -1, 0);
    }
    for (uint32_t i = 0; i < 2; i++) { /* a second gas draw: counted, not logged again */
        reg(PVK_GPUREG_COLOR_OPERATION, 0x00E40101);
        draw_arrays(0, 3);
    }
    reg(PVK_GPUREG_COLOR_OPERATION, 0x02E40100); /* bit 25, "render nothing?" in the seed */
    draw_arrays(0, 3);
    merger_replace();
    pvk_get_stats(ctx, &b);
    CHECK_EQ(b.unsupported, a.unsupported + 5);
}

/* A runaway vertex shader fed by immediate-mode vertices from a command
 * list that jumps to itself: the list stops after the first runaway vertex
 * (logged, counted) instead of running 65536 jumps of million-step shaders. */
static void runaway_in_a_loop(void)
{
    static const char src[] = ".proc main\nstart:\n    jmpu !b15, start\n    end\n.end\n";
    pvk_shbin *sh = calloc(1, sizeof *sh);
    pvk_reg_write *w = malloc(sizeof *w * PVK_SHBIN_UPLOAD_MAX);
    char err[128];
    CHECK_EQ(pvk_pica_asm(src, sizeof src - 1, sh, err, sizeof err), PVK_SUCCESS);
    uint32_t n = pvk_shbin_upload(sh, w, PVK_SHBIN_UPLOAD_MAX);
    for (uint32_t i = 0; i < n; i++)
        reg(w[i].id, w[i].value);
    free(sh);
    free(w);
    reg(PVK_GPUREG_VSH_NUM_ATTR, 0); /* one attribute per vertex */
    /* list: FIXEDATTRIB_INDEX = 0xF, one vertex (3 words), jump back to the start */
    const uint32_t list[] = {0xF, 0x000F0000u | PVK_GPUREG_FIXEDATTRIB_INDEX,
                             0, 0x002F0000u | PVK_GPUREG_FIXEDATTRIB_DATA0, 0, 0,
                             VB >> 3, 0x000F0000u | PVK_GPUREG_CMDBUF_ADDR0,
                             8, 0x000F0000u | PVK_GPUREG_CMDBUF_SIZE0,
                             0, 0x000F0000u | PVK_GPUREG_VERTEX_OFFSET,
                             1, 0x000F0000u | PVK_GPUREG_CMDBUF_JUMP0, 0, 0};
    _Static_assert(sizeof list == 64, "a 16-byte multiple");
    memcpy(pvk_guest_ptr(ctx, VB, sizeof list), list, sizeof list);
    pvk_guest_written(ctx, VB, sizeof list);
    pvk_stats a, b;
    pvk_get_stats(ctx, &a);
    th_quiet_errors = 1;
    pvk_result r = pvk_command_list_run(ctx, VB, sizeof list);
    th_quiet_errors = 0;
    CHECK(r != PVK_SUCCESS);
    pvk_get_stats(ctx, &b);
    CHECK(b.bad_input > a.bad_input);
    CHECK(b.bad_input - a.bad_input < 10); /* stopped at once, not once per jump */
    CHECK(strstr(th_last_error, "runaway") || strstr(th_last_error, "instructions"));
}

int main(void)
{
    for (int mirror = 0; mirror < 2; mirror++) {
        ctx = th_context(NULL, mirror);
        upload_shader();
        setup_attribs();
        merger_replace();
        setup_fb(0);
        /* a counter-clockwise triangle (y up) */
        const pt ccw[3] = {{5.25f, 4.25f}, {50.75f, 9.5f}, {20.5f, 40.75f}};
        const pt cw[3] = {ccw[0], ccw[2], ccw[1]};
        clear_fb();
        put_vertices(ccw, 3, RED, 0, 0);
        draw_arrays(0, 3);
        expect_cover(ccw, 1, 0xFF0000FF, 0, 0, -1, -1, 0);
        /* culling: mode 2 keeps counter-clockwise, mode 1 keeps clockwise */
        for (uint32_t mode = 1; mode <= 2; mode++)
            for (int wind = 0; wind < 2; wind++) {
                clear_fb();
                reg(PVK_GPUREG_FACECULLING_CONFIG, mode);
                put_vertices(wind ? cw : ccw, 3, RED, 0, 0);
                draw_arrays(0, 3);
                int kept = (mode == 2) == (wind == 0);
                expect_cover(ccw, kept ? 1 : 0, 0xFF0000FF, 0, 0, -1, -1, 0);
            }
        reg(PVK_GPUREG_FACECULLING_CONFIG, 0);
        /* strip and fan of four vertices: a quad */
        const pt quad[4] = {{3.25f, 3.25f}, {40.75f, 5.5f}, {6.5f, 30.75f}, {44.25f, 36.5f}};
        const float GREEN[4] = {0, 1, 0, 1};
        clear_fb();
        put_vertices(quad, 4, GREEN, 0, 0);
        draw_arrays(1, 4);
        const pt strip_tris[6] = {quad[0], quad[1], quad[2], quad[2], quad[1], quad[3]};
        expect_cover(strip_tris, 2, 0x00FF00FF, 0, 0, -1, -1, 0);
        const pt fan[4] = {quad[0], quad[1], quad[3], quad[2]};
        clear_fb();
        put_vertices(fan, 4, GREEN, 0, 0);
        draw_arrays(2, 4);
        const pt fan_tris[6] = {fan[0], fan[1], fan[2], fan[0], fan[2], fan[3]};
        expect_cover(fan_tris, 2, 0x00FF00FF, 0, 0, -1, -1, 0);
        /* viewport offset: the same window triangle through a shifted viewport;
         * primitives are clipped to the viewport (x >= 7, y >= 5 here) */
        clear_fb();
        reg(PVK_GPUREG_VIEWPORT_XY, 7u | (5u << 16));
        put_vertices(ccw, 3, RED, 7, 5);
        draw_arrays(0, 3);
        expect_cover(ccw, 1, 0xFF0000FF, 7, 5, W - 1, H - 1, 0);
        reg(PVK_GPUREG_VIEWPORT_XY, 0);
        /* scissor include (mode 3) and exclude (mode 1): inclusive rectangle */
        for (uint32_t smode = 1; smode <= 3; smode += 2) {
            clear_fb();
            reg(PVK_GPUREG_SCISSORTEST_MODE, smode);
            reg(PVK_GPUREG_SCISSORTEST_POS, 10u | (8u << 16));
            reg(PVK_GPUREG_SCISSORTEST_DIM, 30u | (20u << 16));
            put_vertices(ccw, 3, RED, 0, 0);
            draw_arrays(0, 3);
            expect_cover(ccw, 1, 0xFF0000FF, 10, 8, 30, 20, smode == 1);
        }
        reg(PVK_GPUREG_SCISSORTEST_MODE, 0);
        /* user clip plane: x >= 0 in clip space keeps window x >= 32 */
        clear_fb();
        reg(PVK_GPUREG_FRAGOP_CLIP, 1);
        reg(PVK_GPUREG_FRAGOP_CLIP_DATA0, f24(1.0f));
        reg(PVK_GPUREG_FRAGOP_CLIP_DATA1, 0);
        reg(PVK_GPUREG_FRAGOP_CLIP_DATA2, 0);
        reg(PVK_GPUREG_FRAGOP_CLIP_DATA3, 0);
        put_vertices(ccw, 3, RED, 0, 0);
        draw_arrays(0, 3);
        expect_cover(ccw, 1, 0xFF0000FF, 32, 0, W - 1, H - 1, 0);
        reg(PVK_GPUREG_FRAGOP_CLIP, 0);
        /* immediate mode: a triangle list and a strip */
        clear_fb();
        immediate(0, ccw, 3, RED);
        expect_cover(ccw, 1, 0xFF0000FF, 0, 0, -1, -1, 0);
        clear_fb();
        immediate(1, quad, 4, GREEN);
        expect_cover(strip_tris, 2, 0x00FF00FF, 0, 0, -1, -1, 0);
        /* colour writes disallowed (a depth-only pass): the colour buffer stays as it was */
        clear_fb();
        reg(PVK_GPUREG_COLORBUFFER_WRITE, 0);
        put_vertices(ccw, 3, RED, 0, 0);
        draw_arrays(0, 3);
        expect_cover(ccw, 0, 0xFF0000FF, 0, 0, -1, -1, 0);
        reg(PVK_GPUREG_COLORBUFFER_WRITE, 0xF);
        /* RGB565 colour buffer: a blue triangle lands as 0x001F */
        clear_fb();
        setup_fb(3);
        const float BLUE[4] = {0, 0, 1, 1};
        put_vertices(ccw, 3, BLUE, 0, 0);
        draw_arrays(0, 3);
        const uint16_t *fb16 = pvk_guest_ptr(ctx, FB, W * H * 2);
        int blue = 0, other = 0;
        for (uint32_t i = 0; i < W * H; i++)
            blue += fb16[i] == 0x001F, other += fb16[i] != 0x001F && fb16[i] != 0;
        CHECK(blue > 300);
        CHECK_EQ(other, 0);
        setup_fb(0);
        elements_mode3(ccw);
        fragment_modes(ccw);
        pvk_stats st;
        pvk_get_stats(ctx, &st);
        CHECK_EQ(st.bad_input, 0);
        runaway_in_a_loop();
        th_release(ctx);
    }
    return th_finish("test_draw");
}
