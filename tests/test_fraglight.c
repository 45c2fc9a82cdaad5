/* Fog and fragment lighting against the CPU reference (tests/ref/light_ref.c).
 *
 * Fog: random fog LUTs (all 24 bits random, so neighbouring entries need not
 * agree), colours and Z flip over a quad whose depth ramps across the
 * buffer; every pixel is compared exactly with the reference evaluated at
 * the depth the draw wrote to its D24S8 buffer (the fog input is that
 * depth), the TEV output being the flat primary colour.  Fog off leaves the
 * colour alone whatever the LUT holds.
 *
 * Lighting: random light environments (1-8 lights in random permutation
 * slots, every configuration, random LUT enables, inputs, abs flags and
 * scales, spot, distance attenuation, two-sided, geometric factors, clamp
 * highlights, Fresnel, random colours, positions and spot directions, bump
 * and tangent maps from texture unit 0 with and without renormalisation,
 * shadow attenuation from it to the primary/secondary colours and alphas,
 * inverted or not, lights' shadow disables) with
 * random continuous LUTs, on 8x8 cells each with its own normal quaternion
 * and view vector; primary and secondary colour through the TEV against the
 * double-precision reference (LIGHT_TOLERANCE); and triangles whose corners
 * carry different quaternions, two of them of the opposite sign, every pixel
 * against the reference at the interpolated attributes (INTERP_TOLERANCE;
 * fails by up to 204 without the shorter-arc flip of runtime/draw.c).  The
 * same light environments over lists, strips and fans with the vertex
 * program on the GPU (the flip in shaders/draw_quat.geom) and on the CPU,
 * byte for byte (lighting_paths).
 *
 * Procedural texture: random PROCTEX0-5 states (every clamp, shift and
 * combiner, noise, separate alpha, the six filters: nearest and linear colour
 * LUT, one mipmap level or two blended, with biases that aim the level of
 * detail from -1.5 to 8.5, random min/max LOD and level 1-3 offsets, offsets
 * and widths, each coordinate set) and random LUTs over a quad with texture
 * coordinates in [-3, 3] (one level of detail per case: the coordinates are
 * linear across the quad), every pixel against the reference
 * (PT_TOLERANCE).
 *
 * Shadow rendering: random shadow buffers, FRAGOP_SHADOW values and TEV
 * greens (0: depth writes), quads at random constant depths in mode 3, every
 * pixel exact against the reference; without attachment reads the draw is
 * counted unsupported and writes its TEV colour. */
#include <stdlib.h>

#include "draw_common.h"
#include "frag_ref.h"
#include "light_ref.h"
#include "runtime/runtime.h"

#include <math.h>

#define DB 0x18100000u
/* The GPU computes lighting in float32, the reference in double; both round
 * to 8 bits.  A channel near a rounding boundary, or a LUT input near an
 * index boundary (the test's LUTs are continuous, as programs make them), may
 * land on the other side: 1 allowed (0 seen on lavapipe). */
#define LIGHT_TOLERANCE 1
/* The procedural texture is float32 on both sides, but its function has
 * discontinuities (noise-grid cell edges with a random noise LUT, nearest
 * colour-entry rounding, repeat and pulse thresholds) where the GPU and the
 * CPU may fall on different sides: each channel within 2 on all but 0.2% of
 * the pixels (0.03% seen on lavapipe, all in cases with noise). */
/* Interpolated attributes: the rasterizer's barycentrics differ from the
 * reference's double ones by about 1e-5 of a unit, which a steep LUT (scale
 * 8) can turn into one more step of 8-bit rounding. */
#define INTERP_TOLERANCE 2
#define PT_TOLERANCE 2
#define PT_OFF_PER_MILLE 2

static uint32_t regs[0x400]; /* what this test wrote, for the references */
static uint32_t fog_lut[128];

static void wreg(uint32_t id, uint32_t v)
{
    regs[id] = v;
    reg(id, v);
}

static void plain_tev(void)
{
    static const uint32_t stage_reg[6] = {PVK_GPUREG_TEXENV0_SOURCE, PVK_GPUREG_TEXENV1_SOURCE,
                                          PVK_GPUREG_TEXENV2_SOURCE, PVK_GPUREG_TEXENV3_SOURCE,
                                          PVK_GPUREG_TEXENV4_SOURCE, PVK_GPUREG_TEXENV5_SOURCE};
    for (int n = 0; n < 6; n++)
        for (int k = 0; k < 5; k++)
            wreg(stage_reg[n] + k, 0);
    wreg(PVK_GPUREG_TEXENV_UPDATE_BUFFER, 0);
    wreg(PVK_GPUREG_FRAGOP_ALPHA_TEST, 0);
}

/* A quad over the buffer in colour c, z from -z0 at the left to -z1 at the
 * right (depth z0 .. z1 with citro3d's depth map). */
static void ramp_quad(const uint8_t c[4], float z0, float z1)
{
    static const float xy[6][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, -1}, {1, 1}, {-1, 1}};
    float *v = pvk_guest_ptr(ctx, VB, 6 * 32);
    for (int i = 0; i < 6; i++) {
        float p[8] = {xy[i][0], xy[i][1], xy[i][0] < 0 ? -z0 : -z1, 1.0f,
                      c[0] / 255.0f, c[1] / 255.0f, c[2] / 255.0f, c[3] / 255.0f};
        memcpy(v + 8 * i, p, sizeof p);
    }
    pvk_guest_written(ctx, VB, 6 * 32);
}

static void upload_fog_lut(void)
{
    wreg(PVK_GPUREG_FOG_LUT_INDEX, 0);
    for (int i = 0; i < 128; i++) {
        fog_lut[i] = th_rand() & 0xFFFFFFu;
        reg(PVK_GPUREG_FOG_LUT_DATA + (i & 7), fog_lut[i]);
    }
}

static void fog_case(int k)
{
    bool on = k % 5 != 4;
    if (k % 3 == 0)
        upload_fog_lut(); /* otherwise the LUT of the case before: the runtime's copy stays */
    wreg(PVK_GPUREG_TEXENV_UPDATE_BUFFER, (on ? 5u : 0u) | (th_rand() & 1) << 16);
    wreg(PVK_GPUREG_FOG_COLOR, th_rand() & 0xFFFFFFu);
    uint8_t c[4];
    for (int i = 0; i < 4; i++)
        c[i] = (uint8_t)th_rand();
    ramp_quad(c, (float)(th_rand() % 1000) / 999.0f, (float)(th_rand() % 1000) / 999.0f);
    draw_arrays(0, 6);
    CHECK_EQ(pvk_guest_flush(ctx, FB, W * H * 4), PVK_SUCCESS);
    CHECK_EQ(pvk_guest_flush(ctx, DB, W * H * 4), PVK_SUCCESS);
    const uint8_t *fb = pvk_guest_ptr(ctx, FB, W * H * 4), *db = pvk_guest_ptr(ctx, DB, W * H * 4);
    int bad = 0, fogged = 0;
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            uint32_t i = tiled_index(x, y);
            uint32_t z24 = db[4 * i] | db[4 * i + 1] << 8 | db[4 * i + 2] << 16;
            uint8_t want[4], tev[4];
            CHECK(ref_tev(regs, c, tev));
            memcpy(want, tev, 4);
            ref_fog(regs, fog_lut, z24, want);
            const uint8_t *p = fb + 4 * i;
            uint8_t got[4] = {p[3], p[2], p[1], p[0]};
            fogged += memcmp(want, tev, 4) != 0;
            if (memcmp(got, want, 4)) {
                if (!bad++)
                    fprintf(stderr, "fog case %d (%s, UPDATE_BUFFER %08X) at %u,%u depth %06X: got %u,%u,%u,%u "
                            "want %u,%u,%u,%u\n", k, on ? "on" : "off", regs[PVK_GPUREG_TEXENV_UPDATE_BUFFER], x, y,
                            z24, got[0], got[1], got[2], got[3], want[0], want[1], want[2], want[3]);
            }
        }
    CHECK_EQ(bad, 0);
    CHECK(on ? fogged > 0 : fogged == 0); /* the case tested something */
}

/* Many draws in a row (no wait), each with its own fog LUT and colour, each
 * into its own 4x4 cell of a 128x96 buffer: more LUT copies than the ring
 * holds, so its space is reused while earlier draws are recorded but not yet
 * submitted or still running; every cell must show its own draw's fog. */
static void fog_ring(void)
{
    enum { CW = 128, CH = 96, CELL = 4, DRAWS = 400 };
    reg(PVK_GPUREG_FRAMEBUFFER_DIM, CW | ((CH - 1) << 12) | (1u << 24));
    reg(PVK_GPUREG_VIEWPORT_WIDTH, f24(CW / 2.0f));
    reg(PVK_GPUREG_VIEWPORT_HEIGHT, f24(CH / 2.0f));
    static uint32_t factor[DRAWS], color[DRAWS];
    const uint8_t c[4] = {200, 100, 50, 255};
    float *v = pvk_guest_ptr(ctx, VB, DRAWS * 6 * 32);
    static const float corner[6][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 0}, {1, 1}, {0, 1}};
    for (int d = 0; d < DRAWS; d++)
        for (int j = 0; j < 6; j++) {
            int cx = d % (CW / CELL), cy = d / (CW / CELL);
            float p[8] = {(cx + corner[j][0]) * CELL / (CW / 2.0f) - 1, (cy + corner[j][1]) * CELL / (CH / 2.0f) - 1,
                          -0.5f, 1, c[0] / 255.0f, c[1] / 255.0f, c[2] / 255.0f, c[3] / 255.0f};
            memcpy(v + 8 * (6 * d + j), p, sizeof p);
        }
    pvk_guest_written(ctx, VB, DRAWS * 6 * 32);
    wreg(PVK_GPUREG_TEXENV_UPDATE_BUFFER, 5);
    reg(PVK_GPUREG_PRIMITIVE_CONFIG, 1);
    reg(PVK_GPUREG_NUMVERTICES, 6);
    pvk_stats before = stats();
    for (int d = 0; d < DRAWS; d++) {
        factor[d] = th_rand() % 2049;
        color[d] = th_rand() & 0xFFFFFFu;
        reg(PVK_GPUREG_FOG_LUT_INDEX, 0);
        for (int i = 0; i < 128; i++) /* value `factor` (2048 as 2047 + 1 through the difference), difference 0 */
            reg(PVK_GPUREG_FOG_LUT_DATA, (factor[d] > 2047 ? 2047u : factor[d]) << 13);
        wreg(PVK_GPUREG_FOG_COLOR, color[d]);
        reg(PVK_GPUREG_VERTEX_OFFSET, 6 * (uint32_t)d);
        reg(PVK_GPUREG_DRAWARRAYS, 1);
    }
    CHECK_EQ(pvk_guest_flush(ctx, FB, CW * CH * 4), PVK_SUCCESS);
    pvk_stats after = stats();
    CHECK(after.submissions - before.submissions < DRAWS / 8); /* the draws were batched, not waited for one by one */
    const uint8_t *fb = pvk_guest_ptr(ctx, FB, CW * CH * 4);
    int bad = 0;
    for (int d = 0; d < DRAWS; d++) {
        int cx = d % (CW / CELL), cy = d / (CW / CELL);
        uint32_t x = (uint32_t)(cx * CELL + 1), y = (uint32_t)(cy * CELL + 2), row = CH - 1 - y;
        uint32_t m = (x & 1) | (row & 1) << 1 | (x & 2) << 1 | (row & 2) << 2 | (x & 4) << 2 | (row & 4) << 3;
        const uint8_t *p = fb + 4 * ((row & ~7u) * CW + (x & ~7u) * 8 + m);
        uint32_t f = factor[d] > 2047 ? 2047 : factor[d];
        for (int k = 0; k < 3; k++) {
            uint32_t want = (c[k] * f + (color[d] >> (8 * k) & 0xFF) * (2048 - f)) >> 11;
            if (p[3 - k] != want && !bad++)
                fprintf(stderr, "fog ring: draw %d channel %d: got %u want %u\n", d, k, p[3 - k], want);
        }
    }
    CHECK_EQ(bad, 0);
    reg(PVK_GPUREG_FRAMEBUFFER_DIM, W | ((H - 1) << 12) | (1u << 24));
    reg(PVK_GPUREG_VIEWPORT_WIDTH, f24(W / 2.0f));
    reg(PVK_GPUREG_VIEWPORT_HEIGHT, f24(H / 2.0f));
}

/* log lines that mention gas, counted (and echoed as the harness does) */
static int gas_logs;
static void gas_log(void *user, pvk_log_level level, const char *msg)
{
    gas_logs += strstr(msg, "gas") != NULL;
    th_log(user, level, msg);
}

static void fog_tests(int mirror)
{
    pvk_config cfg = {.log = gas_log};
    gas_logs = 0;
    ctx = th_context(&cfg, mirror);
    upload_shader();
    setup_attribs();
    setup_target_d24s8(DB);
    merger_replace();
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, 0xF00 | 1u << 12); /* depth writes, no test (Always) */
    plain_tev();
    for (int k = 0; k < 40; k++)
        fog_case(k);
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, 0xF00);
    fog_ring();
    /* What is not emulated is counted on every draw that uses it.  Gas: the
     * shading pass (fog mode 7), the accumulation pass (fragment operation
     * mode 1) and a draw with both are each one unsupported event per draw,
     * and each of the two is logged once. */
    static const uint32_t gas_fog[3] = {7, 0, 7}, gas_colorop[3] = {0x00E40100, 0x00E40101, 0x00E40101};
    uint8_t c[4] = {10, 20, 30, 255};
    ramp_quad(c, 0.5f, 0.5f);
    for (int g = 0; g < 3; g++) {
        wreg(PVK_GPUREG_TEXENV_UPDATE_BUFFER, gas_fog[g]);
        wreg(PVK_GPUREG_COLOR_OPERATION, gas_colorop[g]);
        for (int i = 0; i < 2; i++) {
            uint64_t before = stats().unsupported;
            draw_arrays(0, 6);
            CHECK_EQ(stats().unsupported, before + 1);
        }
    }
    CHECK_EQ(gas_logs, 2);
    wreg(PVK_GPUREG_TEXENV_UPDATE_BUFFER, 0);
    wreg(PVK_GPUREG_COLOR_OPERATION, 0x00E40100);
    /* procedural-texture mipmaps are emulated (not counted); the undocumented filters 6-7 are */
    wreg(PVK_GPUREG_TEXUNIT_CONFIG, 1u << 10 | 1u << 12);
    for (uint32_t filter = 5; filter < 8; filter++) {
        wreg(PVK_GPUREG_TEXUNIT3_PROCTEX4, filter | 255u << 11);
        uint64_t before = stats().unsupported;
        draw_arrays(0, 6);
        CHECK_EQ(stats().unsupported, before + (filter > 5));
    }
    wreg(PVK_GPUREG_TEXUNIT_CONFIG, 1u << 12);
    th_release(ctx);
}

/* ---- lighting ---- */

static uint32_t light_lut[24][256];

/* MOV o0-o3, v0-v3: position, colour, normal quaternion, view. */
static void upload_lit_shader(void)
{
    static const uint32_t outmap[4] = {0x03020100, 0x0B0A0908, 0x07060504, 0x1F141312};
    upload_mov_shader(4, outmap);
}

static float frand(float lo, float hi)
{
    return lo + (hi - lo) * (float)(th_rand() % 100001) / 100000.0f;
}

/* What a float survives as through the vertex shader (float1.7.16). */
static float as_f24(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    b = pvk_f24_to_f32(pvk_f32_to_f24(b));
    memcpy(&f, &b, 4);
    return f;
}

/* A float1.5.10 near f (|f| < 60000). */
static uint32_t to_f16(float f)
{
    uint32_t s = f < 0 ? 0x8000 : 0;
    f = fabsf(f);
    if (f < 1.0f / 16384)
        return s;
    int e;
    float m = frexpf(f, &e); /* f = m * 2^e, m in [0.5, 1) */
    return s | (uint32_t)(e + 14) << 10 | ((uint32_t)(m * 2048.0f) & 0x3FF);
}

/* A float1.7.12 near f. */
static uint32_t to_f20(float f)
{
    uint32_t s = f < 0 ? 0x80000 : 0;
    f = fabsf(f);
    if (f == 0)
        return s;
    int e;
    float m = frexpf(f, &e);
    return s | (uint32_t)(e + 62) << 12 | ((uint32_t)(m * 8192.0f) & 0xFFF);
}

static uint32_t rnd_color(void)
{
    return (th_rand() & 0xFF) | (th_rand() & 0xFF) << 10 | (th_rand() & 0xFF) << 20;
}

/* A LUT as a program makes one: samples of a smooth curve, each entry's
 * difference the step to the next in the order the LUT is read (signed
 * inputs: index -128..127, i.e. entries 128..255 then 0..127), so that the
 * interpolation is continuous and an input rounding differently on the GPU
 * moves the result only a little. */
static void random_lut(uint32_t *t, bool signed_order)
{
    double v[257];
    double a = frand(0, 1), b = frand(-3, 3), c = frand(-3, 3);
    for (int i = 0; i <= 256; i++) {
        double x = i / 256.0, y = a + b * x * (1 - x) + c * x * x * (1 - x);
        v[i] = y < 0 ? 0 : y > 1 ? 1 : y;
    }
    for (int i = 0; i < 256; i++) {
        int val = (int)(v[i] * 4095.0 + 0.5);
        double next = i < 255 ? (int)(v[i + 1] * 4095.0 + 0.5) / 4095.0 : val / 4095.0;
        int d = (int)floor((next - val / 4095.0) * 2047.0 + 0.5); /* differences count 1/2047 */
        uint32_t diff = d < 0 ? (uint32_t)(-d) | 0x800 : (uint32_t)d;
        int slot = signed_order ? (i + 128) & 255 : i;
        t[slot] = (uint32_t)val | diff << 12;
    }
}

static void upload_light_lut(unsigned table)
{
    wreg(PVK_GPUREG_LIGHTING_LUT_INDEX, table << 8);
    for (int i = 0; i < 256; i++)
        reg(PVK_GPUREG_LIGHTING_LUT_DATA + (i & 7), light_lut[table][i]);
}

/* A random light environment with random LUTs. */
static void random_lighting(void)
{
    static const uint32_t configs[] = {0, 1, 2, 3, 4, 5, 6, 8};
    static const uint32_t scales[] = {0, 0, 0, 1, 2, 3, 6, 7};
    uint32_t n = th_rand() % 8;
    wreg(PVK_GPUREG_LIGHTING_ENABLE0, 1);
    wreg(PVK_GPUREG_LIGHTING_ENABLE1, 0);
    wreg(PVK_GPUREG_LIGHTING_NUM_LIGHTS, n);
    wreg(PVK_GPUREG_LIGHTING_CONFIG0, 0x80000400u | configs[th_rand() % 8] << 4 | (th_rand() % 4) << 2 |
                                          (th_rand() % 2) << 27);
    wreg(PVK_GPUREG_LIGHTING_CONFIG1, (th_rand() & 0x7FFFFFu) | 0x40000u | (th_rand() & 0xFFu) << 24);
    uint32_t abs = 0, sel = 0, scl = 0, perm = 0;
    for (int l = 0; l < 7; l++) {
        abs |= (th_rand() & 1) << (4 * l + 1);
        sel |= (th_rand() % 6) << (4 * l);
        scl |= scales[th_rand() % 8] << (4 * l);
    }
    for (int i = 0; i < 8; i++)
        perm |= (th_rand() % 8) << (4 * i);
    wreg(PVK_GPUREG_LIGHTING_LUTINPUT_ABS, abs);
    wreg(PVK_GPUREG_LIGHTING_LUTINPUT_SELECT, sel);
    wreg(PVK_GPUREG_LIGHTING_LUTINPUT_SCALE, scl);
    wreg(PVK_GPUREG_LIGHTING_LIGHT_PERMUTATION, perm);
    wreg(PVK_GPUREG_LIGHTING_AMBIENT, rnd_color() & 0x3F0FC3Fu); /* dim, so sums stay below 1 often */
    for (int id = 0; id < 8; id++) {
        uint32_t b = 0x140 + 0x10 * id;
        wreg(b + 0, rnd_color());
        wreg(b + 1, rnd_color());
        wreg(b + 2, rnd_color() & 0x3FCFF3FCu >> 1);
        wreg(b + 3, rnd_color() & 0x3F0FC3Fu);
        wreg(b + 4, to_f16(frand(-4, 4)) | to_f16(frand(-4, 4)) << 16);
        wreg(b + 5, to_f16(frand(-4, 4)));
        float sx = frand(-1, 1), sy = frand(-1, 1), sz = frand(-1, 1), sl = sqrtf(sx * sx + sy * sy + sz * sz) + 1e-3f;
        wreg(b + 6, ((uint32_t)(int32_t)(sx / sl * 2047) & 0x1FFF) | ((uint32_t)(int32_t)(sy / sl * 2047) & 0x1FFF) << 16);
        wreg(b + 7, (uint32_t)(int32_t)(sz / sl * 2047) & 0x1FFF);
        wreg(b + 9, th_rand() & 0xF);
        wreg(b + 10, to_f20(frand(-0.5f, 0.5f)));
        wreg(b + 11, to_f20(frand(-0.3f, 0.3f)));
    }
    /* LUTs read in the order their input reads them (DA always unsigned) */
    static const int table_input[7] = {0, 1, -1, 3, 4, 5, 6}; /* D0 D1 . FR RB RG RR -> table */
    for (int l = 0; l < 7; l++)
        if (table_input[l] >= 0)
            random_lut(light_lut[table_input[l]], abs >> (4 * l + 1) & 1);
    for (int id = 0; id < 8; id++) {
        random_lut(light_lut[8 + id], abs >> 9 & 1);
        random_lut(light_lut[16 + id], false);
    }
    for (unsigned t = 0; t < 24; t++)
        if (t != 2 && t != 7)
            upload_light_lut(t);
}

#define CELLS_X ((int)W / 8)
#define CELLS_Y ((int)H / 8)

/* One 8x8 quad per cell, each with its own normal quaternion and view vector. */
static void lit_cells(float quat[CELLS_Y][CELLS_X][4], float view[CELLS_Y][CELLS_X][3])
{
    float *v = pvk_guest_ptr(ctx, VB, CELLS_X * CELLS_Y * 6 * 64);
    static const float corner[6][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 0}, {1, 1}, {0, 1}};
    int k = 0;
    for (int cy = 0; cy < CELLS_Y; cy++)
        for (int cx = 0; cx < CELLS_X; cx++) {
            float q[4], l = 0;
            for (int i = 0; i < 4; i++)
                q[i] = frand(-1, 1), l += q[i] * q[i];
            for (int i = 0; i < 4; i++)
                quat[cy][cx][i] = as_f24(q[i] / sqrtf(l + 1e-6f));
            for (int i = 0; i < 3; i++)
                view[cy][cx][i] = as_f24(frand(-3, 3));
            view[cy][cx][2] = as_f24(frand(0.5f, 3)); /* never zero */
            for (int j = 0; j < 6; j++, k++) {
                float x = (cx + corner[j][0]) * 8.0f / (W / 2.0f) - 1.0f;
                float y = (cy + corner[j][1]) * 8.0f / (H / 2.0f) - 1.0f;
                float p[16] = {x, y, -0.5f, 1.0f, 1, 1, 1, 1, quat[cy][cx][0], quat[cy][cx][1], quat[cy][cx][2],
                               quat[cy][cx][3], view[cy][cx][0], view[cy][cx][1], view[cy][cx][2], 0};
                memcpy(v + 16 * k, p, sizeof p);
            }
        }
    pvk_guest_written(ctx, VB, CELLS_X * CELLS_Y * 6 * 64);
}

static int light_worst, light_hist[8], light_mid, interp_worst, interp_hist[8];

#define TEX 0x18300000u

/* Every third case a bump (1) or tangent (2) map on texture unit 0: an 8x8
 * RGBA8 texture of one random colour, so every sample is that texel. */
static void random_bump(uint8_t texel[4])
{
    uint32_t mode = th_rand() % 3, shadow = th_rand() % 2;
    for (int c = 0; c < 4; c++)
        texel[c] = (uint8_t)th_rand();
    if (!mode && !shadow) {
        wreg(PVK_GPUREG_TEXUNIT_CONFIG, 1u << 12);
        return;
    }
    /* bump/tangent map and/or shadow attenuation (bits 0, 16-19) from unit 0 */
    wreg(PVK_GPUREG_LIGHTING_CONFIG0, (regs[PVK_GPUREG_LIGHTING_CONFIG0] & ~0x73CF0001u) | mode << 28 |
                                          (th_rand() & 1) << 30 | shadow | (shadow ? (th_rand() & 0xF) << 16 : 0));
    uint8_t *t = pvk_guest_ptr(ctx, TEX, 8 * 8 * 4);
    for (int i = 0; i < 64; i++)
        t[4 * i] = texel[3], t[4 * i + 1] = texel[2], t[4 * i + 2] = texel[1], t[4 * i + 3] = texel[0];
    pvk_guest_written(ctx, TEX, 8 * 8 * 4);
    wreg(PVK_GPUREG_TEXUNIT0_DIM, 8 | 8u << 16);
    wreg(PVK_GPUREG_TEXUNIT0_PARAM, 0);
    wreg(PVK_GPUREG_TEXUNIT0_LOD, 0);
    wreg(PVK_GPUREG_TEXUNIT0_ADDR1, TEX >> 3);
    wreg(PVK_GPUREG_TEXUNIT0_TYPE, 0); /* RGBA8 */
    wreg(PVK_GPUREG_TEXUNIT_CONFIG, 1u | 1u << 12);
}

/* TEV stage 0 passes fragment colour `src` (1 primary, 2 secondary) through. */
static void lit_case(int k)
{
    random_lighting();
    uint8_t bump[4];
    random_bump(bump);
    float quat[CELLS_Y][CELLS_X][4], view[CELLS_Y][CELLS_X][3];
    lit_cells(quat, view);
    for (uint32_t src = 1; src <= 2; src++) {
        wreg(PVK_GPUREG_TEXENV0_SOURCE, src | src << 16);
        reg(PVK_GPUREG_PRIMITIVE_CONFIG, 3);
        reg(PVK_GPUREG_NUMVERTICES, CELLS_X * CELLS_Y * 6);
        reg(PVK_GPUREG_VERTEX_OFFSET, 0);
        reg(PVK_GPUREG_DRAWARRAYS, 1);
        CHECK_EQ(pvk_guest_flush(ctx, FB, W * H * 4), PVK_SUCCESS);
        const uint8_t *fb = pvk_guest_ptr(ctx, FB, W * H * 4);
        for (int cy = 0; cy < CELLS_Y; cy++)
            for (int cx = 0; cx < CELLS_X; cx++) {
                uint8_t pri[4], sec[4];
                uint8_t texel[4][4] = {{0}};
                memcpy(texel[0], bump, 4); /* unit 0: the bump/tangent map and the shadow attenuation */
                ref_lighting(regs, (const uint32_t (*)[256])light_lut, quat[cy][cx], view[cy][cx],
                             (const uint8_t (*)[4])texel, pri, sec);
                const uint8_t *want = src == 1 ? pri : sec;
                const uint8_t *p = fb + 4 * tiled_index(8 * cx + 3, 8 * cy + 4);
                uint8_t got[4] = {p[3], p[2], p[1], p[0]};
                int worst = 0;
                for (int c = 0; c < 4; c++) {
                    int e = abs((int)got[c] - (int)want[c]);
                    worst = e > worst ? e : worst;
                }
                light_hist[worst < 7 ? worst : 7]++;
                for (int c = 0; c < 3; c++)
                    light_mid += want[c] > 0 && want[c] < 255;
                if (worst > light_worst) {
                    light_worst = worst;
                    fprintf(stderr, "lighting case %d cell %d,%d %s: got %u,%u,%u,%u want %u,%u,%u,%u (worst so far %d)\n",
                            k, cx, cy, src == 1 ? "primary" : "secondary", got[0], got[1], got[2], got[3], want[0],
                            want[1], want[2], want[3], worst);
                }
            }
    }
}

/* One triangle whose corners carry different normal quaternions (the second
 * and third the other sign of a nearby rotation, as a mesh may store them)
 * and views: every pixel well inside against the reference at the
 * interpolated attributes (w = 1: linear in the window), the quaternions
 * taken along the shorter arc as draws do. */
static void interpolated_case(int k)
{
    random_lighting();
    uint8_t bump[4];
    random_bump(bump);
    wreg(PVK_GPUREG_TEXENV0_SOURCE, 0x00010001);
    static const float px[3][2] = {{4, 4}, {60, 8}, {10, 44}};
    float q[3][4], v[3][3], base[4], l = 0;
    for (int i = 0; i < 4; i++)
        base[i] = frand(-1, 1), l += base[i] * base[i];
    for (int c = 0; c < 3; c++) {
        float m = 0;
        for (int i = 0; i < 4; i++)
            q[c][i] = base[i] / sqrtf(l) + frand(-0.3f, 0.3f), m += q[c][i] * q[c][i];
        for (int i = 0; i < 4; i++)
            q[c][i] = as_f24((c ? -1.0f : 1.0f) * q[c][i] / sqrtf(m));
        for (int i = 0; i < 3; i++)
            v[c][i] = as_f24(i == 2 ? frand(0.5f, 3) : frand(-3, 3));
    }
    float *vb = pvk_guest_ptr(ctx, VB, 3 * 64);
    for (int c = 0; c < 3; c++) {
        float p[16] = {px[c][0] / (W / 2.0f) - 1, px[c][1] / (H / 2.0f) - 1, -0.5f, 1, 1, 1, 1, 1,
                       q[c][0], q[c][1], q[c][2], q[c][3], v[c][0], v[c][1], v[c][2], 0};
        memcpy(vb + 16 * c, p, sizeof p);
    }
    pvk_guest_written(ctx, VB, 3 * 64);
    clear_fb();
    draw_arrays(0, 3);
    CHECK_EQ(pvk_guest_flush(ctx, FB, W * H * 4), PVK_SUCCESS);
    const uint8_t *fb = pvk_guest_ptr(ctx, FB, W * H * 4);
    /* the shorter arc from corner 0 */
    float qs[3][4];
    for (int c = 0; c < 3; c++) {
        float d = 0;
        for (int i = 0; i < 4; i++)
            d += q[0][i] * q[c][i];
        for (int i = 0; i < 4; i++)
            qs[c][i] = d < 0 ? -q[c][i] : q[c][i];
    }
    double area = (px[1][0] - px[0][0]) * (px[2][1] - px[0][1]) - (px[2][0] - px[0][0]) * (px[1][1] - px[0][1]);
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            double cx = x + 0.5, cy = y + 0.5, b[3];
            for (int c = 0; c < 3; c++) {
                const float *a = px[(c + 1) % 3], *e = px[(c + 2) % 3];
                b[c] = ((e[0] - a[0]) * (cy - a[1]) - (cx - a[0]) * (e[1] - a[1])) / area;
            }
            if (b[0] < 0.03 || b[1] < 0.03 || b[2] < 0.03)
                continue; /* near an edge: coverage and attribute rounding are the rasterizer's */
            float qi[4], vi[3];
            for (int i = 0; i < 4; i++)
                qi[i] = (float)(b[0] * qs[0][i] + b[1] * qs[1][i] + b[2] * qs[2][i]);
            for (int i = 0; i < 3; i++)
                vi[i] = (float)(b[0] * v[0][i] + b[1] * v[1][i] + b[2] * v[2][i]);
            uint8_t pri[4], sec[4], texel[4][4] = {{0}};
            memcpy(texel[0], bump, 4);
            ref_lighting(regs, (const uint32_t (*)[256])light_lut, qi, vi, (const uint8_t (*)[4])texel, pri, sec);
            const uint8_t *p = fb + 4 * tiled_index(x, y);
            uint8_t got[4] = {p[3], p[2], p[1], p[0]};
            int worst = 0;
            for (int c = 0; c < 4; c++)
                worst = abs((int)got[c] - (int)pri[c]) > worst ? abs((int)got[c] - (int)pri[c]) : worst;
            interp_hist[worst < 7 ? worst : 7]++;
            if (worst > interp_worst) {
                interp_worst = worst;
                fprintf(stderr, "interpolated lighting case %d at %u,%u: got %u,%u,%u,%u want %u,%u,%u,%u\n", k, x, y,
                        got[0], got[1], got[2], got[3], pri[0], pri[1], pri[2], pri[3]);
            }
        }
}

/* `debug`: "lut-storage" runs it with the LUTs in a storage buffer (devices
 * whose uniform-buffer range cannot hold them). */
static void lighting_tests(const char *debug)
{
    light_worst = light_mid = interp_worst = 0;
    memset(light_hist, 0, sizeof light_hist);
    memset(interp_hist, 0, sizeof interp_hist);
    ctx = th_context_debug(NULL, debug, 0);
    upload_lit_shader();
    setup_target_d24s8(DB);
    merger_replace();
    plain_tev();
    for (uint32_t id = PVK_GPUREG_TEXENV1_SOURCE; id <= PVK_GPUREG_TEXENV5_SOURCE; id += 8)
        if (id <= PVK_GPUREG_TEXENV3_SOURCE || id >= PVK_GPUREG_TEXENV4_SOURCE)
            wreg(id, 0x000F000F); /* stages 1-5 pass stage 0's output on */
    for (int k = 0; k < 40; k++)
        lit_case(k);
    fprintf(stderr, "lighting%s: worst channel error %d; cells by worst error 0..6, >6:",
            debug ? " (LUTs in a storage buffer)" : "", light_worst);
    for (int i = 0; i < 8; i++)
        fprintf(stderr, " %d", light_hist[i]);
    fprintf(stderr, "\n");
    CHECK(light_worst <= LIGHT_TOLERANCE);
    CHECK(light_mid > CELLS_X * CELLS_Y * 40 * 2); /* most channels lit between black and saturation */
    for (int k = 0; k < 20; k++)
        interpolated_case(k);
    fprintf(stderr, "interpolated lighting: worst channel error %d; pixels by worst error 0..6, >6:", interp_worst);
    int interp_n = 0;
    for (int i = 0; i < 8; i++)
        fprintf(stderr, " %d", interp_hist[i]), interp_n += interp_hist[i];
    fprintf(stderr, "\n");
    CHECK(interp_n > 20 * 500);
    CHECK(interp_worst <= INTERP_TOLERANCE);
    th_release(ctx);
}

/* Fragment lighting with the vertex program on the GPU (a geometry shader,
 * shaders/draw_quat.geom, takes each triangle's quaternions along the
 * shorter arc) against the CPU path (PVK_DEBUG=cpu-vs), byte for byte: the
 * same random light environments over lists, strips and fans of triangles
 * whose corners carry quaternions of alternating sign; the GPU path must
 * take every such draw where the device has geometry shaders. */
static void lighting_paths(void)
{
    pvk_context *both[2] = {th_context(NULL, 0), th_context_debug(NULL, "cpu-vs", 0)};
    static uint8_t pic[2][W * H * 4];
    int cases = 0, differ_cases = 0, flips = 0;
    uint64_t on_gpu = 0;
    for (int k = 0; k < 60; k++) {
        uint32_t mode = (uint32_t)k % 3, n = mode == 0 ? 9 : 7;
        for (int c = 0; c < 2; c++) {
            ctx = both[c];
            th_rng = 0xF1A9000ull + (uint64_t)k * 0x9E3779B97F4A7C15ull;
            if (k == 0) {
                upload_lit_shader();
                setup_target_d24s8(DB);
                merger_replace();
                plain_tev();
                for (uint32_t id = PVK_GPUREG_TEXENV1_SOURCE; id <= PVK_GPUREG_TEXENV5_SOURCE; id += 8)
                    if (id <= PVK_GPUREG_TEXENV3_SOURCE || id >= PVK_GPUREG_TEXENV4_SOURCE)
                        wreg(id, 0x000F000F);
            }
            random_lighting();
            uint8_t bump[4];
            random_bump(bump);
            wreg(PVK_GPUREG_TEXENV0_SOURCE, 0x00010001);
            float base[4], l = 0;
            for (int i = 0; i < 4; i++)
                base[i] = frand(-1, 1), l += base[i] * base[i];
            float *vb = pvk_guest_ptr(ctx, VB, n * 64);
            for (uint32_t v = 0; v < n; v++) {
                /* a zigzag over the buffer (lists: three triangles side by side) */
                float x = mode == 2 && v == 0 ? 0.0f : -0.9f + 1.8f * (float)(mode == 2 ? v - 1 : v) / (float)(n - 1);
                float y = mode == 2 && v == 0 ? -0.9f : (v & 1) ? 0.8f : -0.6f;
                float q[4], m = 0;
                for (int i = 0; i < 4; i++)
                    q[i] = base[i] / sqrtf(l) + frand(-1.5f, 1.5f), m += q[i] * q[i]; /* far apart: which corner is first matters */
                float sign = th_rand() % 3 == 0 ? -1.0f : 1.0f; /* the other sign of a nearby rotation */
                float p[16] = {x, y, -0.5f, 1, 1, 1, 1, 1, 0, 0, 0, 0, frand(-3, 3), frand(-3, 3), frand(0.5f, 3), 0};
                for (int i = 0; i < 4; i++)
                    p[8 + i] = as_f24(sign * q[i] / sqrtf(m));
                memcpy(vb + 16 * v, p, sizeof p);
                flips += c == 0 && sign < 0;
            }
            pvk_guest_written(ctx, VB, n * 64);
            clear_fb();
            uint64_t before = ctx->pica.counters.gpu_vertices;
            draw_arrays(mode, n);
            if (c == 0)
                on_gpu += ctx->pica.counters.gpu_vertices != before;
            copy_out(pic[c], FB);
        }
        cases++;
        int d = differ(pic[0], pic[1], sizeof pic[0]);
        if (d)
            fprintf(stderr, "lighting on both vertex paths, case %d (%s): %d bytes differ\n", k,
                    mode == 0 ? "list" : mode == 1 ? "strip" : "fan", d);
        differ_cases += d != 0;
    }
    fprintf(stderr, "lighting on both vertex paths: %d draws (%llu on the GPU path, %d corners of the other sign), "
                    "%d differ\n", cases, (unsigned long long)on_gpu, flips, differ_cases);
    CHECK_EQ(differ_cases, 0);
    CHECK(flips > cases);
    pvk_features f;
    pvk_get_features(both[0], &f);
    if (f.geometry_shader && !getenv("PVK_TEST_DEBUG"))
        CHECK_EQ(on_gpu, (uint64_t)cases);
    ctx = both[0];
    th_release(both[0]);
    th_release(both[1]);
}

/* ---- procedural texture ---- */

static uint32_t pt_lut[6][256];

/* MOV o0-o3, v0-v3: position, colour, texture coordinates 0 (v2.xy), 1 and 2 (v3). */
static void upload_tc_shader(void)
{
    upload_lit_shader();
    reg(PVK_GPUREG_SH_OUTMAP_O0 + 2, 0x1F1F0D0C);
    reg(PVK_GPUREG_SH_OUTMAP_O0 + 3, 0x17160F0E);
}

/* A 128-entry value LUT (noise, RGB map, alpha map) of a smooth curve, each
 * difference the step to the next entry (12-bit two's complement, 1/4095). */
static void random_value_lut(uint32_t *t)
{
    double a = frand(0, 1), b = frand(-3, 3), c = frand(-3, 3);
    int val[129];
    for (int i = 0; i <= 128; i++) {
        double x = i / 128.0, y = a + b * x * (1 - x) + c * x * x * (1 - x);
        val[i] = (int)((y < 0 ? 0 : y > 1 ? 1 : y) * 4095.0 + 0.5);
    }
    for (int i = 0; i < 128; i++)
        t[i] = (uint32_t)val[i] | ((uint32_t)(val[i + 1] - val[i]) & 0xFFF) << 12;
}

static void upload_pt_lut(unsigned table, unsigned n)
{
    wreg(PVK_GPUREG_PROCTEX_LUT, table << 8);
    for (unsigned i = 0; i < n; i++)
        reg(PVK_GPUREG_PROCTEX_LUT_DATA + (i & 7), pt_lut[table][i]);
}

static int pt_level_hist[11]; /* mipmap cases by target level of detail (floor: < 0, 0 .. 7, >= 8), 10: bias 0 */

/* `duv`: the case's max(|du/dx|, |du/dy|) + max(|dv/dx|, |dv/dy|), for a
 * bias that puts the level of detail where the case wants it. */
static void random_proctex(float duv)
{
    uint32_t clamp_u = th_rand() % 8 < 7 ? th_rand() % 5 : th_rand() % 8, clamp_v = th_rand() % 5;
    uint32_t width = 1 + th_rand() % 255, offset = th_rand() % (257 - width);
    uint32_t filter = th_rand() % 6;
    /* the LOD bias (float1.5.10, low byte in PROCTEX0 bits 20-27, high byte in
     * PROCTEX4 bits 19-26): a target level of detail from -1.5 to 8.5 (so the
     * clamps act too), of either sign, or 0 (level 0) */
    float target = frand(-1.5f, 8.5f);
    uint32_t bias = th_rand() % 10 ? to_f16(exp2f(target) / ((float)width * duv)) | (th_rand() & 1) << 15 : 0;
    if (filter >= 2)
        pt_level_hist[bias ? (int)fminf(fmaxf(floorf(target), -1.0f), 8.0f) + 1 : 10]++;
    uint32_t min_lod = th_rand() % 4, max_lod = 3 + th_rand() % 6;
    if (th_rand() % 10 == 0)
        min_lod = 5 + th_rand() % 3, max_lod = 2 + th_rand() % 3; /* min above max: max wins */
    uint32_t p0 = clamp_u | clamp_v << 3 | (th_rand() % 11) << 6 | (th_rand() % 11) << 10 | (th_rand() & 1) << 14 |
                  (th_rand() & 1) << 15 | (th_rand() % 3) << 16 | (th_rand() % 3) << 18 | (bias & 0xFF) << 20;
    wreg(PVK_GPUREG_TEXUNIT3_PROCTEX0, p0);
    wreg(PVK_GPUREG_TEXUNIT3_PROCTEX1, ((uint32_t)(int32_t)(frand(-0.5f, 0.5f) * 4096) & 0xFFFF) |
                                           to_f16(frand(-2, 2)) << 16);
    wreg(PVK_GPUREG_TEXUNIT3_PROCTEX2, ((uint32_t)(int32_t)(frand(-0.5f, 0.5f) * 4096) & 0xFFFF) |
                                           to_f16(frand(-2, 2)) << 16);
    wreg(PVK_GPUREG_TEXUNIT3_PROCTEX3, to_f16(frand(0.1f, 3)) | to_f16(frand(0.1f, 3)) << 16);
    wreg(PVK_GPUREG_TEXUNIT3_PROCTEX4, filter | min_lod << 3 | max_lod << 7 | width << 11 | (bias >> 8) << 19);
    /* levels 1-3 at random offsets (citro3d writes 0x80, 0xC0, 0xE0) */
    wreg(PVK_GPUREG_TEXUNIT3_PROCTEX5, offset | (th_rand() & 0xFFFFFFu) << 8);
    random_value_lut(pt_lut[0]);
    random_value_lut(pt_lut[2]);
    random_value_lut(pt_lut[3]);
    /* the colour LUT: a random walk, each difference half the step to the next */
    int c[4];
    for (int k = 0; k < 4; k++)
        c[k] = (int)(th_rand() % 256);
    for (int i = 0; i < 256; i++) {
        int n[4];
        uint32_t col = 0, diff = 0;
        for (int k = 0; k < 4; k++) {
            n[k] = c[k] + (int)(th_rand() % 61) - 30;
            n[k] = n[k] < 0 ? 0 : n[k] > 255 ? 255 : n[k];
            col |= (uint32_t)c[k] << (8 * k);
            diff |= ((uint32_t)((n[k] - c[k]) / 2) & 0xFF) << (8 * k);
            c[k] = n[k];
        }
        pt_lut[4][i] = col;
        pt_lut[5][i] = diff;
    }
    upload_pt_lut(0, 128);
    upload_pt_lut(2, 128);
    upload_pt_lut(3, 128);
    upload_pt_lut(4, 256);
    upload_pt_lut(5, 256);
}

static int pt_cases, pt_bad_total, pt_worst_case;

static void proctex_case(int k)
{
    /* texture coordinates across the buffer: set 0 from (a, b) to (c, d), sets 1 and 2 others */
    float t[3][4];
    for (int s = 0; s < 3; s++)
        for (int i = 0; i < 4; i++)
            t[s][i] = frand(-3, 3);
    unsigned set = th_rand() % 3;
    /* u runs along x, v along y: their change per pixel */
    float duv = fabsf(t[set][2] - t[set][0]) / W + fabsf(t[set][3] - t[set][1]) / H;
    random_proctex(duv);
    wreg(PVK_GPUREG_TEXUNIT_CONFIG, 1u << 10 | set << 8 | 1u << 12);
    static const float xy[6][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, -1}, {1, 1}, {-1, 1}};
    float *v = pvk_guest_ptr(ctx, VB, 6 * 64);
    for (int i = 0; i < 6; i++) {
        int r = xy[i][0] > 0, tp = xy[i][1] > 0;
        float p[16] = {xy[i][0], xy[i][1], -0.5f, 1, 1, 1, 1, 1,
                       r ? t[0][2] : t[0][0], tp ? t[0][3] : t[0][1], 0, 0,
                       r ? t[1][2] : t[1][0], tp ? t[1][3] : t[1][1], r ? t[2][2] : t[2][0], tp ? t[2][3] : t[2][1]};
        memcpy(v + 16 * i, p, sizeof p);
    }
    pvk_guest_written(ctx, VB, 6 * 64);
    draw_arrays(0, 6);
    CHECK_EQ(pvk_guest_flush(ctx, FB, W * H * 4), PVK_SUCCESS);
    const uint8_t *fb = pvk_guest_ptr(ctx, FB, W * H * 4);
    int bad = 0;
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            float fx = (x + 0.5f) / W, fy = (y + 0.5f) / H;
            float u = t[set][0] + (t[set][2] - t[set][0]) * fx, vv = t[set][1] + (t[set][3] - t[set][1]) * fy;
            uint8_t want[4];
            /* at resolution scale n the shader's pixels are n times smaller (PVK_SCALE) */
            ref_proctex(regs, (const uint32_t (*)[256])pt_lut, u, vv, duv / (float)pvk_get_scale(ctx), want);
            const uint8_t *p = fb + 4 * tiled_index(x, y);
            uint8_t got[4] = {p[3], p[2], p[1], p[0]};
            int worst = 0;
            for (int c = 0; c < 4; c++)
                worst = abs((int)got[c] - (int)want[c]) > worst ? abs((int)got[c] - (int)want[c]) : worst;
            if (worst > PT_TOLERANCE && bad++ < 2)
                fprintf(stderr, "proctex case %d (PROCTEX0 %08X, 4 %08X) at %u,%u (%g, %g): got %u,%u,%u,%u want "
                        "%u,%u,%u,%u\n", k, regs[PVK_GPUREG_TEXUNIT3_PROCTEX0], regs[PVK_GPUREG_TEXUNIT3_PROCTEX4], x,
                        y, u, vv, got[0], got[1], got[2], got[3], want[0], want[1], want[2], want[3]);
        }
    pt_cases++;
    pt_bad_total += bad;
    pt_worst_case = bad > pt_worst_case ? bad : pt_worst_case;
}

static void proctex_tests(const char *debug)
{
    pt_cases = pt_bad_total = pt_worst_case = 0;
    ctx = th_context_debug(NULL, debug, 0);
    upload_tc_shader();
    setup_target_d24s8(DB);
    merger_replace();
    plain_tev();
    wreg(PVK_GPUREG_TEXENV0_SOURCE, 0x00060006); /* texture 3 */
    for (uint32_t id = PVK_GPUREG_TEXENV1_SOURCE; id <= PVK_GPUREG_TEXENV5_SOURCE; id += 8)
        if (id <= PVK_GPUREG_TEXENV3_SOURCE || id >= PVK_GPUREG_TEXENV4_SOURCE)
            wreg(id, 0x000F000F);
    memset(pt_level_hist, 0, sizeof pt_level_hist);
    for (int k = 0; k < 90; k++)
        proctex_case(k);
    fprintf(stderr, "proctex: %d cases, %d of %d pixels off by more than %d, at most %d in one case\n", pt_cases,
            pt_bad_total, pt_cases * (int)(W * H), PT_TOLERANCE, pt_worst_case);
    fprintf(stderr, "proctex mipmap cases by target level of detail <0, 0..7, >=8:");
    int mip_cases = 0;
    for (int i = 0; i < 11; i++)
        fprintf(stderr, i == 10 ? ", bias 0: %d\n" : " %d", pt_level_hist[i]), mip_cases += pt_level_hist[i];
    CHECK(mip_cases >= 40); /* two thirds of the cases take a mipmap filter */
    CHECK(pt_bad_total * 1000 <= pt_cases * (int)(W * H) * PT_OFF_PER_MILLE);
    th_release(ctx);
}

/* ---- shadow rendering ---- */

/* Random shadow buffers (depth and intensity per pixel), random FRAGOP_SHADOW
 * and TEV green (0 a third of the time: depth writes), quads at random
 * constant depths drawn in mode 3; every pixel against the reference. */
static void shadow_tests(void)
{
    ctx = th_context_debug(NULL, getenv("FL_DEBUG"), 0);
    upload_shader();
    setup_attribs();
    setup_target_d24s8(DB);
    merger_replace();
    plain_tev();
    wreg(PVK_GPUREG_COLOR_OPERATION, 0x00E40103);
    wreg(PVK_GPUREG_TEXENV0_SOURCE, 0x000E000E); /* the constant colour, passed on by stages 1-5 */
    for (uint32_t id = PVK_GPUREG_TEXENV1_SOURCE; id <= PVK_GPUREG_TEXENV5_SOURCE; id += 8)
        if (id <= PVK_GPUREG_TEXENV3_SOURCE || id >= PVK_GPUREG_TEXENV4_SOURCE)
            wreg(id, 0x000F000F);
    int bad = 0, changed = 0;
    for (int k = 0; k < 30; k++) {
        uint8_t *fb = pvk_guest_ptr(ctx, FB, W * H * 4);
        pvk_wait_idle(ctx);
        static uint8_t before[W * H * 4];
        for (uint32_t i = 0; i < W * H * 4; i++)
            fb[i] = before[i] = (uint8_t)th_rand();
        pvk_guest_written(ctx, FB, W * H * 4);
        uint8_t green = th_rand() % 3 ? (uint8_t)th_rand() : 0;
        wreg(PVK_GPUREG_TEXENV0_COLOR, 0xFF0000FFu | (uint32_t)green << 8);
        wreg(PVK_GPUREG_FRAGOP_SHADOW, to_f16(frand(0.25f, 2)) | to_f16(frand(-1, 1)) << 16);
        float z = as_f24(frand(0.01f, 0.99f)); /* what the vertex shader passes on */
        uint8_t c[4] = {255, 255, 255, 255};
        ramp_quad(c, z, z);
        draw_arrays(0, 6);
        CHECK_EQ(pvk_guest_flush(ctx, FB, W * H * 4), PVK_SUCCESS);
        float d = -(-z) * 1.0f; /* citro3d's depth map: scale -1, offset 0 */
        uint32_t z24 = (uint32_t)(d * 16777215.0f);
        for (uint32_t i = 0; i < W * H; i++) {
            const uint8_t *m = before + 4 * i, *p = fb + 4 * i;
            uint8_t want[4] = {m[3], m[2], m[1], m[0]}, got[4] = {p[3], p[2], p[1], p[0]};
            ref_shadow(regs, z24, green, want);
            changed += memcmp(want, (uint8_t[4]){m[3], m[2], m[1], m[0]}, 4) != 0;
            if (memcmp(got, want, 4) && bad++ < 3)
                fprintf(stderr, "shadow case %d pixel %u (z %06X, green %u, FRAGOP_SHADOW %08X): got %u,%u,%u,%u want "
                        "%u,%u,%u,%u (was %u,%u,%u,%u)\n", k, i, z24, green, regs[PVK_GPUREG_FRAGOP_SHADOW], got[0], got[1], got[2],
                        got[3], want[0], want[1], want[2], want[3], m[3], m[2], m[1], m[0]);
        }
    }
    CHECK_EQ(bad, 0);
    CHECK(changed > 30 * (int)(W * H) / 8); /* the cases wrote depths and intensities */
    th_release(ctx);

    /* without attachment reads the draw writes its TEV colour, counted unsupported */
    ctx = th_context_debug(NULL, "no-attachment-read", 0);
    upload_shader();
    setup_attribs();
    setup_target_d24s8(DB);
    merger_replace();
    for (uint32_t id = PVK_GPUREG_TEXENV0_SOURCE; id <= PVK_GPUREG_TEXENV5_SOURCE; id += 8)
        if (id <= PVK_GPUREG_TEXENV3_SOURCE || id >= PVK_GPUREG_TEXENV4_SOURCE)
            reg(id, regs[id]);
    reg(PVK_GPUREG_TEXENV0_COLOR, 0xFF2040FFu);
    reg(PVK_GPUREG_COLOR_OPERATION, 0x00E40103);
    uint64_t unsupported = stats().unsupported;
    uint8_t c[4] = {255, 255, 255, 255};
    ramp_quad(c, 0.5f, 0.5f);
    draw_arrays(0, 6);
    CHECK_EQ(pvk_guest_flush(ctx, FB, W * H * 4), PVK_SUCCESS);
    CHECK(stats().unsupported > unsupported);
    const uint8_t *p = pvk_guest_ptr(ctx, FB, 4);
    CHECK(p[3] == 0xFF && p[2] == 0x40 && p[1] == 0x20 && p[0] == 0xFF); /* R G B A = the constant */
    wreg(PVK_GPUREG_COLOR_OPERATION, 0x00E40100);
    th_release(ctx);
}

int main(void)
{
    /* counters below say which path drew or what compiled when: builds on
     * the calling thread (tests/test_compile.c covers the compile threads) */
    setenv("PVK_COMPILE_THREADS", "0", 1);
    shadow_tests();
    proctex_tests(NULL);
    lighting_tests(NULL);
    lighting_paths();
    /* the same with the LUTs in a storage buffer, as where the uniform range is too small */
    proctex_tests("lut-storage");
    lighting_tests("lut-storage");
    for (int mirror = 0; mirror < 2; mirror++)
        fog_tests(mirror);
    return th_finish("test_fraglight");
}
