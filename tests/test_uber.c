/* The ubershader (PVK_DEBUG=ubershader: one fragment shader reading the
 * TEV stages, buffer updates, alpha test, shader-side blending, fog's z flip
 * and the texture units' type, coordinates, borders and shadow mode from
 * data) against the specialised shaders (one per state): random fragment
 * states drawn in two contexts, one of each, must give the same bytes.
 *
 * Each state: a random RGBA8 destination; random triangles with colours,
 * texture coordinates 0 (s, t, w), 1 and 2 reaching outside [0, 1]; six
 * random TEV stages (sources 0-6 and 13-15, every operand, combine modes
 * 0-9, scales 0-2; in half the states the later stages and some between
 * pass "previous" on, and half of those replace or modulate only), buffer
 * updates and colour; a random alpha test; random
 * shader-side blending (equations 0-4, factors 0-14) or a logic op; fog with
 * a random LUT and z flip now and then; texture units 0-2 at random with
 * small random textures (unit 0 2D, shadow 2D or projection; texture 2 on
 * coordinates 1 or 2; every wrap with random border colours, L8/LA8/A8 now
 * and then so the shader applies the border).  Compile threads are off in
 * both contexts, so the plain one never takes the ubershader and the counts
 * are exact.  A last draw with one TEV register changed in the ubershader
 * context only must differ: the comparison can fail. */
#include <stdbool.h>

#define W 64u
#define H 64u
#include "draw_common.h"

#define TEX_BASE 0x18100000u /* unit u's texture at TEX_BASE + u * TEX_STRIDE */
#define TEX_STRIDE 0x10000u
#define N_STATES 120
#define N_TRI 4                     /* triangles a draw */
#define VTX_BYTES (4 * 16)          /* four float4 attributes */
#define SLOT (N_TRI * 3 * VTX_BYTES) /* one draw's vertices */

static pvk_context *plain_ctx, *uber_ctx;
static uint8_t prefill[W * H * 4]; /* the last state's destination before its draws */

/* The states' own generator (xorshift32), reseeded per state so both
 * contexts see the same state and a failing one can be drawn alone. */
static uint32_t rs;
static uint32_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 17;
    rs ^= rs << 5;
    return rs;
}
static uint32_t rnd_n(uint32_t n) /* [0, n) */
{
    return rnd() % n;
}
static float rnd_f(float lo, float hi)
{
    return lo + (hi - lo) * (float)(rnd() >> 8) / (float)(1u << 24);
}

/* The state's register writes, for the report of a failing state. */
static struct {
    uint16_t id;
    uint32_t v;
} written[512];
static unsigned n_written;

static void wreg(uint32_t id, uint32_t v)
{
    if (n_written < sizeof written / sizeof written[0])
        written[n_written].id = (uint16_t)id, written[n_written++].v = v;
    reg(id, v);
}

static const uint16_t stage_reg[6] = {PVK_GPUREG_TEXENV0_SOURCE, PVK_GPUREG_TEXENV1_SOURCE,
                                      PVK_GPUREG_TEXENV2_SOURCE, PVK_GPUREG_TEXENV3_SOURCE,
                                      PVK_GPUREG_TEXENV4_SOURCE, PVK_GPUREG_TEXENV5_SOURCE};

static uint32_t rnd_source(void)
{
    static const uint32_t s[] = {0, 1, 2, 3, 4, 5, 6, 13, 14, 15};
    return s[rnd_n(10)];
}

/* Random TEV stages.  Half the states: every stage random.  The others in
 * the shapes programs write (citro3d's unused stages pass "previous" on):
 * stages after a random one pass it on, as do some between (which the
 * ubershader skips unless the buffer is read), and half of them replace or
 * modulate only (the ubershader's simple kind). */
static uint32_t random_tev(void)
{
    uint32_t shape = rnd_n(4), last = rnd_n(4);
    for (uint32_t n = 0; n < 6; n++) {
        if (shape >= 2 && n > 0 && (n > last || rnd_n(3) == 0)) {
            wreg(stage_reg[n], 0x000F000Fu); /* replace with previous, x1 */
            wreg(stage_reg[n] + 1, 0);
            wreg(stage_reg[n] + 2, 0);
            wreg(stage_reg[n] + 3, rnd());
            wreg(stage_reg[n] + 4, 0);
            continue;
        }
        uint32_t src = 0, op = 0, modes = shape == 3 ? 2 : 10;
        for (int i = 0; i < 3; i++) {
            src |= rnd_source() << (4 * i) | rnd_source() << (16 + 4 * i);
            op |= rnd_n(16) << (4 * i) | rnd_n(8) << (12 + 4 * i); /* reserved RGB operands read 0 in both */
        }
        wreg(stage_reg[n], src);
        wreg(stage_reg[n] + 1, op);
        wreg(stage_reg[n] + 2, rnd_n(modes) | rnd_n(modes) << 16);
        wreg(stage_reg[n] + 3, rnd());
        wreg(stage_reg[n] + 4, rnd_n(3) | rnd_n(3) << 16);
    }
    wreg(PVK_GPUREG_TEXENV_BUFFER_COLOR, rnd());
    return shape;
}

/* Unit u on at random with a small random texture; returns its enable bit. */
static uint32_t random_unit(unsigned u)
{
    static const uint16_t base[3] = {PVK_GPUREG_TEXUNIT0_BORDER_COLOR, PVK_GPUREG_TEXUNIT1_BORDER_COLOR,
                                     PVK_GPUREG_TEXUNIT2_BORDER_COLOR};
    static const uint16_t type_reg[3] = {PVK_GPUREG_TEXUNIT0_TYPE, PVK_GPUREG_TEXUNIT1_TYPE,
                                         PVK_GPUREG_TEXUNIT2_TYPE};
    if (rnd_n(3) == 0)
        return 0;
    static const uint32_t types[3] = {0, 2, 3}; /* 2D, shadow 2D, projection (PVK_TEXTYPE_*) */
    uint32_t type = u == 0 ? types[rnd_n(3)] : 0;
    /* mostly RGBA8; L8, LA8 and A8 are swizzled views, whose border the shader applies */
    static const uint32_t formats[6] = {0, 0, 0, 7, 5, 8}, bpp[6] = {4, 4, 4, 1, 2, 1};
    unsigned f = type == 2 ? 0 : rnd_n(6);
    uint32_t w = 8u << rnd_n(3), h = 8u << rnd_n(3), addr = TEX_BASE + u * TEX_STRIDE, len = w * h * bpp[f];
    uint8_t *p = pvk_guest_ptr(ctx, addr, len);
    for (uint32_t i = 0; i < len; i++)
        p[i] = (uint8_t)rnd();
    pvk_guest_written(ctx, addr, len);
    uint32_t wrap_s = rnd_n(4), wrap_t = rnd_n(4), filter = rnd_n(4); /* edge, border, repeat, mirror */
    wreg(base[u], rnd());
    wreg(base[u] + 1, h | w << 16);
    wreg(base[u] + 2, (filter & 1) << 1 | (filter >> 1) << 2 | wrap_t << 8 | wrap_s << 12 |
                          (type == 2 ? 1u << 20 : 0) | type << 28);
    wreg(base[u] + 3, 0); /* one level, no bias */
    wreg(base[u] + 4, addr >> 3);
    wreg(type_reg[u], formats[f]);
    if (type == 2) /* orthographic or perspective, a bias */
        wreg(PVK_GPUREG_TEXUNIT0_SHADOW, rnd_n(2) | (rnd() & 0xFFFF) << 1);
    return 1u << u;
}

/* `copies` draws of N_TRI random triangles each, the first over the whole target. */
static void random_draws(unsigned copies)
{
    for (unsigned d = 0; d < copies; d++) {
        float v[N_TRI * 3][16];
        for (unsigned i = 0; i < N_TRI * 3; i++) {
            float w = rnd_f(0.5f, 2.0f); /* perspective-correct interpolation has a say */
            float x = rnd_f(-1.2f, 1.2f), y = rnd_f(-1.2f, 1.2f), z = rnd_f(-1.0f, 0.0f);
            if (i < 3) /* the first triangle covers the target: every pixel is drawn */
                x = i == 1 ? 3.0f : -1.0f, y = i == 2 ? 3.0f : -1.0f;
            float a[16] = {x * w, y * w, z * w, w,
                           rnd_f(0, 1), rnd_f(0, 1), rnd_f(0, 1), rnd_f(0, 1),
                           /* texture coordinates 0 (s, t, w: projection and shadow z), 1, 2 */
                           rnd_f(-0.5f, 1.5f), rnd_f(-0.5f, 1.5f), rnd_f(0.25f, 2.0f), rnd_f(-0.5f, 1.5f),
                           rnd_f(-0.5f, 1.5f), rnd_f(-0.5f, 1.5f), rnd_f(-0.5f, 1.5f), 0};
            memcpy(v[i], a, sizeof a);
        }
        uint32_t at = VB + d * SLOT;
        memcpy(pvk_guest_ptr(ctx, at, sizeof v), v, sizeof v);
        pvk_guest_written(ctx, at, sizeof v);
        reg(PVK_GPUREG_ATTRIBBUFFERS_LOC, at >> 3);
        reg(PVK_GPUREG_PRIMITIVE_CONFIG, 3); /* triangles, 4 outputs */
        reg(PVK_GPUREG_NUMVERTICES, N_TRI * 3);
        reg(PVK_GPUREG_VERTEX_OFFSET, 0);
        reg(PVK_GPUREG_DRAWARRAYS, 1);
    }
}

typedef struct features {
    unsigned fog, blend, logic, alpha_test, tex2_tc1, type0[4], passing_on, simple;
} features;

/* Draws state `index` in the current context (the same bytes for the same
 * index); `visible` keeps what could hide the TEV output away (alpha test,
 * blending, logic op, fog, masks), `sabotage` then changes TEXENV5_COMBINER.
 * Returns the number of draws. */
static unsigned draw_state(unsigned index, bool visible, bool sabotage, features *ft)
{
    rs = 0x9E3779B9u ^ (index * 0x85EBCA6Bu);
    if (!rs)
        rs = 1;
    n_written = 0;
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    uint8_t *fb = pvk_guest_ptr(ctx, FB, W * H * 4);
    for (uint32_t i = 0; i < W * H * 4; i++)
        fb[i] = prefill[i] = (uint8_t)rnd();
    pvk_guest_written(ctx, FB, W * H * 4);

    uint32_t shape = random_tev();
    uint32_t fog = !visible && rnd_n(3) == 0;
    wreg(PVK_GPUREG_TEXENV_UPDATE_BUFFER, (fog ? 5u : 0u) | (rnd() & 0xFF00u) | (rnd() & 1u) << 16);
    if (fog) {
        wreg(PVK_GPUREG_FOG_COLOR, rnd() & 0xFFFFFFu);
        reg(PVK_GPUREG_FOG_LUT_INDEX, 0);
        for (unsigned i = 0; i < 128; i++)
            reg(PVK_GPUREG_FOG_LUT_DATA + (i & 7), rnd() & 0xFFFFFFu);
    }
    uint32_t at = rnd_n(3) == 0 && !visible;
    wreg(PVK_GPUREG_FRAGOP_ALPHA_TEST, at | rnd_n(8) << 4 | (rnd() & 0xFF) << 8);
    uint32_t kind = visible ? 0 : rnd_n(6); /* 0: replace, 1: logic op, else a random blend */
    wreg(PVK_GPUREG_COLOR_OPERATION, 0x00E40000 | (kind != 1 ? 0x100u : 0));
    uint32_t bf = 0x01010000; /* add, One, Zero */
    if (kind >= 2)
        bf = rnd_n(5) | rnd_n(5) << 8 | rnd_n(15) << 16 | rnd_n(15) << 20 | rnd_n(15) << 24 | rnd_n(15) << 28;
    wreg(PVK_GPUREG_BLEND_FUNC, bf);
    wreg(PVK_GPUREG_LOGIC_OP, rnd_n(16));
    wreg(PVK_GPUREG_BLEND_COLOR, rnd());
    wreg(PVK_GPUREG_DEPTH_COLOR_MASK, (visible || rnd_n(8) ? 0xFu : rnd_n(16)) << 8); /* no depth test */

    uint32_t units = 0;
    for (unsigned u = 0; u < 3; u++)
        units |= random_unit(u);
    uint32_t tc1 = rnd_n(2);
    wreg(PVK_GPUREG_TEXUNIT_CONFIG, units | 1u << 12 | tc1 << 13 | 1u << 16);

    if (sabotage) { /* rgb combine mode's low bit flipped: replace <-> modulate, add <-> add signed, ... */
        uint32_t c = 0;
        for (unsigned i = 0; i < n_written; i++)
            if (written[i].id == PVK_GPUREG_TEXENV5_COMBINER)
                c = written[i].v;
        reg(PVK_GPUREG_TEXENV5_COMBINER, c ^ 1u);
    }
    unsigned copies = 1 + rnd_n(2); /* a second draw blends over the first in the same batch */
    random_draws(copies);
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    if (ft) {
        ft->fog += fog;
        ft->passing_on += shape >= 2;
        ft->simple += shape == 3;
        ft->blend += kind >= 2;
        ft->logic += kind == 1;
        ft->alpha_test += at;
        ft->tex2_tc1 += tc1 && (units & 4);
        if (units & 1)
            for (unsigned i = 0; i < n_written; i++)
                if (written[i].id == PVK_GPUREG_TEXUNIT0_PARAM)
                    ft->type0[written[i].v >> 28 & 3]++;
    }
    return copies;
}

/* A context as each state finds it: the vertex program (position, colour,
 * texture coordinates 0 s t w + 1 s, 1 t + 2 s t), the target at FB, citro3d's
 * depth map (fog's input), no depth buffer. */
static pvk_context *make_context(const char *debug)
{
    ctx = th_context_debug(NULL, debug, 0);
    static const uint32_t outmap[4] = {0x03020100, 0x0B0A0908, 0x0E100D0C, 0x1F17160F};
    upload_mov_shader(4, outmap);
    setup_rgba8_target(FB, W, H);
    reg(PVK_GPUREG_DEPTHMAP_ENABLE, 1);
    reg(PVK_GPUREG_DEPTHMAP_SCALE, f24(-1.0f));
    reg(PVK_GPUREG_DEPTHMAP_OFFSET, f24(0.0f));
    return ctx;
}

/* The picture as a PAM file (window rows top down), for a failing state. */
static void save_pam(const char *path, const uint8_t *fb)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return;
    fprintf(f, "P7\nWIDTH %u\nHEIGHT %u\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n", W, H);
    for (uint32_t y = H; y-- > 0;)
        for (uint32_t x = 0; x < W; x++) {
            const uint8_t *p = fb + tiled_index(x, y) * 4;
            const uint8_t px[4] = {p[3], p[2], p[1], p[0]};
            fwrite(px, 1, 4, f);
        }
    fclose(f);
}

static void report(unsigned index, int d, const uint8_t *a, const uint8_t *b)
{
    fprintf(stderr, "state %u: %d bytes differ; its registers:\n", index, d);
    for (unsigned i = 0; i < n_written; i++)
        fprintf(stderr, "  reg 0x%03X = 0x%08X\n", written[i].id, written[i].v);
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            uint32_t k = tiled_index(x, y) * 4;
            if (memcmp(a + k, b + k, 4)) {
                fprintf(stderr, "  first at window (%u, %u): specialised %02X%02X%02X%02X, ubershader "
                                "%02X%02X%02X%02X (RGBA)\n", x, y, a[k + 3], a[k + 2], a[k + 1], a[k], b[k + 3],
                        b[k + 2], b[k + 1], b[k]);
                y = H;
                break;
            }
        }
    char path[64];
    snprintf(path, sizeof path, "uber_state%u_specialised.pam", index);
    save_pam(path, a);
    snprintf(path, sizeof path, "uber_state%u_ubershader.pam", index);
    save_pam(path, b);
}

int main(void)
{
    (void)upload_shader; /* draw_common.h's two-output helpers: this test has its own */
    (void)setup_attribs;
    setenv("PVK_COMPILE_THREADS", "0", 1); /* no background builds: the plain context never falls back */
    plain_ctx = make_context(NULL);
    uber_ctx = make_context("ubershader");
    static uint8_t a[W * H * 4], b[W * H * 4];
    features ft = {0};
    unsigned draws = 0, changed = 0, differing = 0;
    for (unsigned i = 0; i < N_STATES; i++) {
        bool visible = i % 8 == 7; /* one in eight shows the TEV output as it is: the last check takes one */
        ctx = plain_ctx;
        unsigned n = draw_state(i, visible, false, &ft);
        copy_out(a, FB);
        ctx = uber_ctx;
        CHECK_EQ(draw_state(i, visible, false, NULL), n);
        copy_out(b, FB);
        draws += n;
        int d = differ(a, b, sizeof a);
        if (d) {
            differing++;
            report(i, d, a, b);
        }
        CHECK_EQ(d, 0);
        unsigned px = 0; /* pixels the state changed */
        for (uint32_t k = 0; k < W * H; k++)
            px += memcmp(prefill + 4 * k, a + 4 * k, 4) != 0;
        changed += px >= W * H / 4;
    }
    ctx = uber_ctx;
    uint64_t uber_draws = stats().ubershader_draws, borders = stats().shader_borders;
    ctx = plain_ctx;
    CHECK_EQ(stats().ubershader_draws, 0);
    CHECK_EQ(stats().shader_borders, borders); /* the same units bound the same way */
    CHECK_EQ(uber_draws, draws);
    CHECK(changed > N_STATES / 2);
    /* every feature came up */
    CHECK(ft.fog && ft.blend && ft.logic && ft.alpha_test && ft.tex2_tc1 && borders);
    CHECK(ft.type0[0] && ft.type0[2] && ft.type0[3]);
    CHECK(ft.passing_on && ft.simple);

    /* states drawn again, interleaved: the ubershader's data of the last 8
     * states stays in the fragment-data ring (state 0 every third draw: found
     * there; the others cycling through 11: found or replaced) */
    unsigned again = 0;
    for (unsigned k = 0; k < 36; k++) {
        unsigned i = k % 3 == 0 ? 0 : 1 + (k * 7) % 11;
        bool visible = i % 8 == 7;
        ctx = plain_ctx;
        draw_state(i, visible, false, NULL);
        copy_out(a, FB);
        ctx = uber_ctx;
        draw_state(i, visible, false, NULL);
        copy_out(b, FB);
        int d = differ(a, b, sizeof a);
        if (d)
            report(i, d, a, b);
        CHECK_EQ(d, 0);
        again++;
    }

    /* the comparison is live: one register changed in the ubershader context only (a state
     * whose stage 5 shows: in some, what stage 5 reads is 0 either way) */
    ctx = plain_ctx;
    draw_state(9, true, false, NULL);
    copy_out(a, FB);
    ctx = uber_ctx;
    draw_state(9, true, true, NULL);
    copy_out(b, FB);
    int sabotaged = differ(a, b, sizeof a);
    CHECK(sabotaged > 0);

    printf("test_uber: %u states compared (%u changed a quarter of the pixels or more), %u draws, %u differing states; "
           "fog %u, blend %u, logic op %u, alpha test %u, unit 0 2D/shadow/projection %u/%u/%u, texture 2 on "
           "coordinates 1 %u, shader borders %" PRIu64 ", stages passing previous on %u (replace/modulate only %u); %u states drawn again; one TEV register changed: %d bytes differ\n",
           N_STATES, changed, draws, differing, ft.fog, ft.blend, ft.logic, ft.alpha_test, ft.type0[0], ft.type0[2],
           ft.type0[3], ft.tex2_tc1, borders, ft.passing_on, ft.simple, again, sabotaged);
    th_release(plain_ctx);
    th_release(uber_ctx);
    unsetenv("PVK_COMPILE_THREADS");
    return th_finish("test_uber");
}
