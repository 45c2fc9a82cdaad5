/* The PICA shader interpreter (translator/shader.c) against values worked
 * out by hand from 3dbrew "GPU/Shader Instruction Set": every opcode with
 * edge values, f24 rounding and flushing, relative addressing, and the
 * control-flow stacks with their depth limits.  Programs are encoded here by
 * small helpers that build the instruction words field by field. */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "runtime/runtime.h"
#include "translator/geometry.h"

/* ---- encoders (field layouts from the instruction-set page) ---- */

enum {
    ADD = 0x00, DP3 = 0x01, DP4 = 0x02, DPH = 0x03, DST = 0x04, EX2 = 0x05, LG2 = 0x06, LITP = 0x07,
    MUL = 0x08, SGE = 0x09, SLT = 0x0A, FLR = 0x0B, MAX = 0x0C, MIN = 0x0D, RCP = 0x0E, RSQ = 0x0F,
    MOVA = 0x12, MOV = 0x13, DPHI = 0x18, DSTI = 0x19, SGEI = 0x1A, SLTI = 0x1B,
    BREAK = 0x20, NOP = 0x21, END = 0x22, BREAKC = 0x23, CALL = 0x24, CALLC = 0x25, CALLU = 0x26,
    IFU = 0x27, IFC = 0x28, LOOP = 0x29, EMIT = 0x2A, SETEMIT = 0x2B, JMPC = 0x2C, JMPU = 0x2D,
};
enum { EQ, NE, LT, LE, GT, GE, T6, T7 };        /* CMP operators */
enum { C_OR, C_AND, C_X, C_Y };                /* condition operators */
enum { IX_NONE, IX_A0X, IX_A0Y, IX_AL };       /* relative index */

#define V(n) (uint32_t)(n)
#define R(n) (0x10u + (n))
#define C(n) (0x20u + (n))
#define O(n) (uint32_t)(n)

#define XYZW 0x1Bu /* swizzles: component 0 in bits 6-7 */
#define XXXX 0x00u
#define YYYY 0x55u
#define WZYX 0xE4u
#define M_ALL 0xFu /* destination masks: bit 3 = x */
#define M_X 8u
#define M_Y 4u
#define M_XY 0xCu

static uint32_t opdesc(uint32_t mask, uint32_t s1, int n1, uint32_t s2, int n2, uint32_t s3, int n3)
{
    return mask | (uint32_t)(n1 != 0) << 4 | s1 << 5 | (uint32_t)(n2 != 0) << 13 | s2 << 14 |
           (uint32_t)(n3 != 0) << 22 | s3 << 23;
}
static uint32_t f1(uint32_t op, uint32_t dst, uint32_t src1, uint32_t idx, uint32_t src2, uint32_t desc)
{
    return op << 26 | dst << 21 | idx << 19 | src1 << 12 | src2 << 7 | desc;
}
static uint32_t f1i(uint32_t op, uint32_t dst, uint32_t src1, uint32_t src2, uint32_t idx, uint32_t desc)
{
    return op << 26 | dst << 21 | idx << 19 | src1 << 14 | src2 << 7 | desc;
}
static uint32_t f1u(uint32_t op, uint32_t dst, uint32_t src1, uint32_t idx, uint32_t desc)
{
    return f1(op, dst, src1, idx, 0, desc);
}
static uint32_t f1c(uint32_t cmpx, uint32_t cmpy, uint32_t src1, uint32_t idx, uint32_t src2, uint32_t desc)
{
    return 0x17u << 27 | cmpx << 24 | cmpy << 21 | idx << 19 | src1 << 12 | src2 << 7 | desc;
}
static uint32_t f2(uint32_t op, uint32_t dst, uint32_t num, uint32_t condop, uint32_t refx, uint32_t refy)
{
    return op << 26 | refx << 25 | refy << 24 | condop << 22 | dst << 10 | num;
}
static uint32_t f3(uint32_t op, uint32_t dst, uint32_t num, uint32_t id)
{
    return op << 26 | id << 22 | dst << 10 | num;
}
static uint32_t f0(uint32_t op) { return op << 26; }
static uint32_t f4(uint32_t vtx, uint32_t prim, uint32_t winding)
{
    return (uint32_t)SETEMIT << 26 | vtx << 24 | prim << 23 | winding << 22;
}
static uint32_t f5(uint32_t dst, uint32_t src1, uint32_t src2, uint32_t idx, uint32_t src3, uint32_t desc)
{
    return 7u << 29 | dst << 24 | idx << 22 | src1 << 17 | src2 << 10 | src3 << 5 | desc;
}
static uint32_t f5i(uint32_t dst, uint32_t src1, uint32_t src2, uint32_t src3, uint32_t idx, uint32_t desc)
{
    return 6u << 29 | dst << 24 | idx << 22 | src1 << 17 | src2 << 12 | src3 << 5 | desc;
}

/* ---- program building and running ---- */

static pvk_shader_unit U;
static uint32_t n_code;
static pvk_sh_run_info info;
static pvk_sh_regs regs;
static float vin[16][4], out[16][4];
static pvk_context *ctx;

/* f24 raw words of special values. */
#define F24_INF 0x7F0000u
#define F24_NINF 0xFF0000u
#define F24_NAN 0x7F0001u
#define F24_NZERO 0x800000u
#define F24_SUBMAX 0x00FFFFu /* largest subnormal: 0xFFFF * 2^-78 */
#define F24_MINNORM 0x010000u /* 2^-62 */

static void reset(void)
{
    memset(&U, 0, sizeof U);
    n_code = 0;
    memset(&info, 0, sizeof info);
    info.unit = &U;
    info.regs_out = &regs;
    memset(&regs, 0, sizeof regs);
    memset(vin, 0, sizeof vin);
    for (int i = 0; i < 16; i++)
        for (int c = 0; c < 4; c++)
            out[i][c] = -7.0f; /* "untouched" marker */
    /* descriptor 0: all components, identity swizzles */
    U.opdesc[0] = opdesc(M_ALL, XYZW, 0, XYZW, 0, XYZW, 0);
}
static void put(uint32_t w) { U.code[n_code++] = w; }
static void put_at(uint32_t pc, uint32_t w) { U.code[pc] = w; }
static uint32_t f24(float x) { uint32_t u; memcpy(&u, &x, 4); return pvk_f32_to_f24(u); }
static void set_c(unsigned i, float x, float y, float z, float w)
{
    U.f[i][0] = f24(x), U.f[i][1] = f24(y), U.f[i][2] = f24(z), U.f[i][3] = f24(w);
}
static void set_c_raw(unsigned i, uint32_t x, uint32_t y, uint32_t z, uint32_t w)
{
    U.f[i][0] = x, U.f[i][1] = y, U.f[i][2] = z, U.f[i][3] = w;
}
static void set_v(unsigned i, float x, float y, float z, float w)
{
    vin[i][0] = x, vin[i][1] = y, vin[i][2] = z, vin[i][3] = w;
}
/* tests/test_vs_gpu.c includes this file and sets the hook: every program
 * run here runs through the GPU translator too. */
static void (*run_hook)(pvk_result interpreted);
static pvk_result run(void)
{
    pvk_result r = pvk_sh_run(&ctx->pica, &info, (const float(*)[4])vin, out);
    if (run_hook)
        run_hook(r);
    return r;
}

static uint32_t bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
/* Exact float comparison by bits (so +0 and -0 differ); NaN matches NaN. */
#define CHECK_F(got, want)                                                               \
    do {                                                                                 \
        float g_ = (got), w_ = (want);                                                   \
        th_checks++;                                                                     \
        if (!(isnan(g_) && isnan(w_)) && bits(g_) != bits(w_)) {                         \
            th_failures++;                                                               \
            fprintf(stderr, "%s:%d: %s = %a (0x%08X), want %a\n", __FILE__, __LINE__, #got, \
                    (double)g_, bits(g_), (double)w_);                                   \
        }                                                                                \
    } while (0)
#define CHECK_V4(reg, a, b, c, d) \
    do { CHECK_F((reg)[0], a); CHECK_F((reg)[1], b); CHECK_F((reg)[2], c); CHECK_F((reg)[3], d); } while (0)

/* ---- arithmetic ---- */

static void test_add_and_rounding(void)
{
    reset();
    set_v(0, 1, 2, -3, INFINITY);
    set_v(1, 0.5f, -2, 3, -INFINITY);
    put(f1(ADD, O(0), V(0), 0, V(1), 0));
    /* rounding to the 16-bit mantissa: nearest, ties to even */
    set_v(2, 1, 1, 1 + 0x1p-16f, 0x1.8p63f);
    set_v(3, 0x1.8p-17f, 0x1p-17f, 0x1p-17f, 0x1.8p63f);
    put(f1(ADD, O(1), V(2), 0, V(3), 0));
    /* input subnormals flush: s + 0 = 0; MOV keeps s; n*0.5 flushes on output */
    set_c_raw(0, F24_SUBMAX, F24_MINNORM, F24_NZERO, 0);
    put(f1u(MOV, R(0), C(0), 0, 0));
    put(f1(ADD, O(2), R(0), 0, V(4), 0));
    put(f1u(MOV, O(3), C(0), 0, 0));
    set_v(5, 0.5f, 0.5f, 0.5f, 2);
    put(f1(MUL, O(4), R(0), 0, V(5), 0)); /* (s*0.5, n*0.5, -0*0.5, 0*2) */
    put(f1(MUL, O(5), C(0), 0, V(5), 0)); /* s * 0.5: input flushed; n * 0.5: output flushed */
    put(f0(END));
    CHECK_EQ(run(), PVK_SUCCESS);
    CHECK_V4(out[0], 1.5f, 0.0f, 0.0f, NAN); /* inf + -inf = NaN */
    /* 1 + 0.75 ulp -> 1 + ulp; 1 + 0.5 ulp -> 1 (even); 1+ulp + 0.5 ulp -> 1 + 2 ulp (even);
     * 1.5*2^63 * 2 = 1.5*2^64 is past the largest f24 (just under 2^64) -> inf */
    CHECK_V4(out[1], 1 + 0x1p-16f, 1.0f, 1 + 0x1p-15f, INFINITY);
    CHECK_V4(out[2], 0.0f, 0x1p-62f, 0.0f, 0.0f);
    CHECK_V4(out[3], 0xFFFFp-78f, 0x1p-62f, 0.0f, 0.0f); /* -0 reads as +0 */
    CHECK_V4(out[4], 0.0f, 0.0f, 0.0f, 0.0f);
    CHECK_F(out[5][0], 0.0f);
    CHECK_F(out[5][1], 0.0f); /* n * 0.5 = 2^-63: below f24's normal range */
}

static void test_mul_dot(void)
{
    reset();
    set_v(0, 3, INFINITY, 0, NAN);
    set_v(1, 4, 0, -INFINITY, 0);
    put(f1(MUL, O(0), V(0), 0, V(1), 0));
    set_v(2, -2, 1, 2, 3);
    set_v(3, 0, 0, 0, 0);
    put(f1(MUL, O(1), V(2), 0, V(3), 0)); /* -2 * 0 = +0 (no -0) */
    set_v(4, 1, 2, 3, 4);
    set_v(5, 5, 6, 7, 8);
    put(f1(DP3, O(2), V(4), 0, V(5), 0));
    put(f1(DP4, O(3), V(4), 0, V(5), 0));
    put(f1(DPH, O(4), V(4), 0, V(5), 0));
    put(f1i(DPHI, O(5), V(4), V(5), 0, 0));
    /* 0 * inf inside a dot product, partial destination mask */
    set_v(6, INFINITY, 1, 1, 1);
    set_v(7, 0, 1, 1, 1);
    U.opdesc[1] = opdesc(M_XY, XYZW, 0, XYZW, 0, XYZW, 0);
    put(f1(DP4, O(6), V(6), 0, V(7), 1));
    /* swizzle and negation: DP3 of -(v4.wzyx) with v5.xxxx = -(4+3+2)*5 */
    U.opdesc[2] = opdesc(M_ALL, WZYX, 1, XXXX, 0, XYZW, 0);
    put(f1(DP3, O(7), V(4), 0, V(5), 2));
    put(f0(END));
    CHECK_EQ(run(), PVK_SUCCESS);
    CHECK_V4(out[0], 12.0f, 0.0f, 0.0f, NAN);
    CHECK_V4(out[1], 0.0f, 0.0f, 0.0f, 0.0f);
    CHECK_V4(out[2], 38.0f, 38.0f, 38.0f, 38.0f);
    CHECK_V4(out[3], 70.0f, 70.0f, 70.0f, 70.0f);
    CHECK_V4(out[4], 46.0f, 46.0f, 46.0f, 46.0f);
    CHECK_V4(out[5], 46.0f, 46.0f, 46.0f, 46.0f);
    CHECK_V4(out[6], 3.0f, 3.0f, -7.0f, -7.0f);
    CHECK_V4(out[7], -45.0f, -45.0f, -45.0f, -45.0f);
}

static void test_dst_ex2_lg2_litp_flr(void)
{
    reset();
    set_v(0, 9, 2, 3, 9);
    set_v(1, 9, 5, 9, 7);
    put(f1(DST, O(0), V(0), 0, V(1), 0));
    put(f1i(DSTI, O(1), V(0), V(1), 0, 0));
    set_v(2, 3, -1, INFINITY, -INFINITY);
    U.opdesc[1] = opdesc(M_ALL, YYYY, 0, XYZW, 0, XYZW, 0);
    U.opdesc[2] = opdesc(M_ALL, 0xAAu /* zzzz */, 0, XYZW, 0, XYZW, 0);
    U.opdesc[3] = opdesc(M_ALL, 0xFFu /* wwww */, 0, XYZW, 0, XYZW, 0);
    put(f1u(EX2, O(2), V(2), 0, 0)); /* uses .x only */
    put(f1u(EX2, R(0), V(2), 0, 1));
    put(f1u(EX2, R(1), V(2), 0, 2));
    put(f1u(EX2, R(2), V(2), 0, 3));
    set_v(3, 8, 0, -1, 0.5f);
    put(f1u(LG2, R(3), V(3), 0, 0));
    put(f1u(LG2, R(4), V(3), 0, 1));
    put(f1u(LG2, R(5), V(3), 0, 2));
    put(f1u(LG2, R(6), V(3), 0, 3));
    set_v(4, -1, 200, 5, 2);
    put(f1u(LITP, O(3), V(4), 0, 0));
    set_v(5, 1.5f, -1.5f, -0.25f, 3);
    put(f1u(FLR, O(4), V(5), 0, 0));
    put(f0(END));
    CHECK_EQ(run(), PVK_SUCCESS);
    CHECK_V4(out[0], 1.0f, 10.0f, 3.0f, 7.0f);
    CHECK_V4(out[1], 1.0f, 10.0f, 3.0f, 7.0f);
    CHECK_V4(out[2], 8.0f, 8.0f, 8.0f, 8.0f);
    CHECK_F(regs.r[0][0], 0.5f);
    CHECK_F(regs.r[1][0], INFINITY);
    CHECK_F(regs.r[2][0], 0.0f);
    CHECK_F(regs.r[3][0], 3.0f);
    CHECK_F(regs.r[4][0], -INFINITY);
    CHECK_F(regs.r[5][0], NAN);
    CHECK_F(regs.r[6][0], -1.0f);
    /* LITP: (max(x,0), clamp(y, +-127.9961), 0, max(w,0)); cmp.x = x >= 0, cmp.y = w >= 0 */
    CHECK_V4(out[3], 0.0f, 127.99609375f, 0.0f, 2.0f);
    CHECK(!regs.cmp[0] && regs.cmp[1]);
    CHECK_V4(out[4], 1.0f, -2.0f, -1.0f, 3.0f);

    reset();
    set_v(0, 1, -300, 0, -1);
    put(f1u(LITP, O(0), V(0), 0, 0));
    put(f0(END));
    CHECK_EQ(run(), PVK_SUCCESS);
    CHECK_V4(out[0], 1.0f, -127.99609375f, 0.0f, 0.0f);
    CHECK(regs.cmp[0] && !regs.cmp[1]);
}

static void test_compare_select(void)
{
    reset();
    set_v(0, 1, 2, 3, NAN);
    set_v(1, 1, 3, 2, 0);
    put(f1(SGE, O(0), V(0), 0, V(1), 0));
    put(f1(SLT, O(1), V(0), 0, V(1), 0));
    set_c(0, 1, 3, 2, 0);
    put(f1i(SGEI, O(2), V(0), C(0), 0, 0));
    put(f1i(SLTI, O(3), V(0), C(0), 0, 0));
    /* 3dbrew's max/min table */
    set_v(2, 0, NAN, 0, -INFINITY);
    set_v(3, INFINITY, 0, NAN, INFINITY);
    put(f1(MAX, O(4), V(2), 0, V(3), 0));
    put(f1(MIN, O(5), V(2), 0, V(3), 0));
    set_v(4, 0, 0, 0, 0);
    set_v(5, -INFINITY, 0, 0, 0);
    put(f1(MIN, O(6), V(4), 0, V(5), 0));
    /* max(s, 0) = s: no flushing */
    set_c_raw(1, F24_SUBMAX, 0, 0, 0);
    put(f1(MAX, O(7), C(1), 0, V(4), 0));
    put(f0(END));
    CHECK_EQ(run(), PVK_SUCCESS);
    CHECK_V4(out[0], 1.0f, 0.0f, 1.0f, 0.0f);
    CHECK_V4(out[1], 0.0f, 1.0f, 0.0f, 0.0f);
    CHECK_V4(out[2], 1.0f, 0.0f, 1.0f, 0.0f);
    CHECK_V4(out[3], 0.0f, 1.0f, 0.0f, 0.0f);
    /* max(0,inf)=inf, max(NaN,0)=0, max(0,NaN)=NaN, max(-inf,inf)=inf */
    CHECK_V4(out[4], INFINITY, 0.0f, NAN, INFINITY);
    /* min(0,inf)=0, min(NaN,0)=0, min(0,NaN)=NaN, min(-inf,inf)=-inf */
    CHECK_V4(out[5], 0.0f, 0.0f, NAN, -INFINITY);
    CHECK_F(out[6][0], -INFINITY);
    CHECK_F(out[7][0], 0xFFFFp-78f);

    /* CMP: every operator on x (1 vs 2) and y (2 vs 2); s vs 0 is not equal */
    static const bool want_x[8] = {false, true, true, true, false, false, true, true};
    static const bool want_y[8] = {true, false, false, true, false, true, true, true};
    for (uint32_t opx = 0; opx < 8; opx++) {
        reset();
        set_c(0, 1, 2, 0, 0);
        set_v(0, 2, 2, 0, 0);
        put(f1c(opx, opx, C(0), 0, V(0), 0));
        put(f0(END));
        CHECK_EQ(run(), PVK_SUCCESS);
        CHECK_EQ(regs.cmp[0], want_x[opx]);
        CHECK_EQ(regs.cmp[1], want_y[opx]);
    }
    reset();
    set_c_raw(0, F24_SUBMAX, F24_NZERO, 0, 0);
    put(f1c(EQ, EQ, C(0), 0, V(0), 0)); /* s == 0 false; -0 == 0 true */
    put(f0(END));
    CHECK_EQ(run(), PVK_SUCCESS);
    CHECK(!regs.cmp[0] && regs.cmp[1]);
}

static void test_rcp_rsq(void)
{
    reset();
    set_c_raw(0, F24_NZERO, F24_INF, F24_NINF, F24_NAN);
    set_v(0, 2, 3, 0, 4);
    U.opdesc[1] = opdesc(M_ALL, YYYY, 0, XYZW, 0, XYZW, 0);
    U.opdesc[2] = opdesc(M_ALL, 0xAAu, 0, XYZW, 0, XYZW, 0);
    U.opdesc[3] = opdesc(M_ALL, 0xFFu, 0, XYZW, 0, XYZW, 0);
    U.opdesc[4] = opdesc(M_ALL, 0xFFu, 1, XYZW, 0, XYZW, 0); /* -w */
    int k = 0;
    for (uint32_t op = RCP; op <= RSQ; op++) {
        for (uint32_t d = 0; d < 4; d++)
            put(f1u(op, R(k++), V(0), 0, d)); /* of 2, 3, 0, 4 */
        for (uint32_t d = 0; d < 4; d++)
            put(f1u(op, R(k++), C(0), 0, d)); /* of -0, inf, -inf, NaN */
    }
    put(f1u(RSQ, O(0), V(0), 0, 4)); /* rsq(-4) */
    put(f1u(RCP, R(0), C(0), 0, 2)); /* rsq(rcp(-inf)) = +inf: there is no -0 */
    put(f1u(RSQ, O(1), R(0), 0, 0));
    put(f0(END));
    CHECK_EQ(run(), PVK_SUCCESS);
    /* 1/3 = 1.0101...b * 2^-2: mantissa 0x5555, next bit 0 -> rounds down */
    const float third = (1.0f + 0x5555p-16f) * 0.25f;
    CHECK_F(regs.r[1][0], third);
    CHECK_F(regs.r[2][0], INFINITY);
    CHECK_F(regs.r[3][0], 0.25f);
    CHECK_F(regs.r[4][0], INFINITY); /* rcp(-0) */
    CHECK_F(regs.r[5][0], 0.0f);     /* rcp(inf) */
    CHECK_F(regs.r[6][0], 0.0f);     /* rcp(-inf): +0 */
    CHECK_F(regs.r[7][0], NAN);
    /* rsq(2) = 0.70710678 = 1.0110101000001001111...b * 2^-1: mantissa 0x6A09, next bit 1 then
     * 1110...: rounds up to 0x6A0A */
    CHECK_F(regs.r[8][0], (1.0f + 0x6A0Ap-16f) * 0.5f);
    CHECK_F(regs.r[10][0], INFINITY); /* rsq(0) */
    CHECK_F(regs.r[11][0], 0.5f);
    CHECK_F(regs.r[12][0], INFINITY); /* rsq(-0) */
    CHECK_F(regs.r[13][0], 0.0f);     /* rsq(inf) */
    CHECK_F(regs.r[14][0], NAN);      /* rsq(-inf) */
    CHECK_F(regs.r[15][0], NAN);
    CHECK_F(out[0][0], NAN);          /* rsq(-4) */
    CHECK_F(out[1][0], INFINITY);
}

static void test_mad(void)
{
    reset();
    /* (1 + 2^-16)^2 = 1 + 2^-15 + 2^-32; rounded first it is 1 + 2^-15, so adding
     * -(1 + 2^-15) gives 0 (a fused multiply-add would give 2^-32) */
    set_v(0, 1 + 0x1p-16f, INFINITY, 2, 3);
    set_c(0, 1 + 0x1p-16f, 0, 3, 4);
    set_v(1, -(1 + 0x1p-15f), 1, 1, -12);
    put(f5(O(0), V(0), C(0), 0, V(1), 0));
    /* MADI: SRC3 is the 7-bit operand; negation of each source */
    U.opdesc[5] = opdesc(M_ALL, XYZW, 1, XYZW, 0, XYZW, 1);
    set_v(2, 2, 2, 2, 2);
    put(f5i(O(1), V(2), V(2), C(0), 0, 5)); /* -(v2) * v2 - c0 */
    put(f0(END));
    CHECK_EQ(run(), PVK_SUCCESS);
    CHECK_V4(out[0], 0.0f, 1.0f, 7.0f, 0.0f);
    /* -5 - 2^-16 is a quarter ulp from -5 (ulp 2^-14 in [4, 8)): rounds to -5 */
    CHECK_V4(out[1], -5.0f, -4.0f, -7.0f, -8.0f);
}

/* MOVA and relative addressing of constants. */
static void test_address(void)
{
    reset();
    for (unsigned i = 0; i < 96; i++)
        set_c(i, (float)i, 0, 0, 0);
    set_v(0, 2.9f, -1.9f, 0, 0);
    put(f1u(MOVA, 0, V(0), 0, 0)); /* a0 = (2, -1): truncation */
    put(f1u(MOV, O(0), C(10), IX_A0X, 0));
    put(f1u(MOV, O(1), C(10), IX_A0Y, 0));
    put(f1u(MOV, O(2), V(3), IX_A0X, 0)); /* inputs ignore the index */
    put(f1i(SGEI, R(0), V(0), C(10), IX_A0X, 0)); /* 1i: the index applies to SRC2 */
    put(f5(R(1), V(6), C(10), IX_A0Y, V(1), 0));  /* 5: to SRC2; 1 * c9 + 0 */
    put(f5i(R(2), V(6), V(6), C(10), IX_A0X, 0)); /* 5i: to SRC3; 1 * 1 + c12 */
    set_v(6, 1, 1, 1, 1);
    set_v(1, 0, 0, 0, 0);
    set_v(3, 42, 0, 0, 0);
    set_v(2, 200, -20, 90, 127);
    U.opdesc[1] = opdesc(M_X, XYZW, 0, XYZW, 0, XYZW, 0);
    U.opdesc[2] = opdesc(M_Y, 0xAAu, 0, XYZW, 0, XYZW, 0);
    U.opdesc[3] = opdesc(M_XY, 0xFFu, 0, XYZW, 0, XYZW, 0);
    put(f1u(MOVA, 0, V(2), 0, 1));        /* a0.x = 200, a0.y stays -1 */
    put(f1u(MOV, O(3), C(10), IX_A0X, 0)); /* out of byte bounds: c10 */
    put(f1u(MOV, O(4), C(10), IX_A0Y, 0)); /* c9 */
    put(f1u(MOVA, 0, V(2), 0, 2));        /* a0.y = 90 (from .z) */
    put(f1u(MOV, O(5), C(10), IX_A0Y, 0)); /* 100 > 95: (1,1,1,1) */
    put(f1u(MOVA, 0, V(2), 0, 3));        /* a0 = (127, 127) */
    put(f1u(MOV, O(6), C(95), IX_A0X, 0)); /* (95 + 127) & 0x7F = 94 */
    set_v(4, -20, 0, 0, 0);
    put(f1u(MOVA, 0, V(4), 0, 1));
    put(f1u(MOV, O(7), C(10), IX_A0X, 0)); /* (10 - 20) & 0x7F = 118: (1,1,1,1) */
    set_v(5, NAN, 1e30f, 0, 0);
    put(f1u(MOVA, 0, V(5), 0, 0));
    put(f0(END));
    CHECK_EQ(run(), PVK_SUCCESS);
    CHECK_F(out[0][0], 12.0f);
    CHECK_F(out[1][0], 9.0f);
    CHECK_F(out[2][0], 42.0f);
    CHECK_F(regs.r[0][0], 0.0f); /* 2.9 >= c12 is false */
    CHECK_F(regs.r[1][0], 9.0f);
    CHECK_F(regs.r[2][0], 13.0f);
    CHECK_F(out[3][0], 10.0f);
    CHECK_F(out[4][0], 9.0f);
    CHECK_V4(out[5], 1.0f, 1.0f, 1.0f, 1.0f);
    CHECK_F(out[6][0], 94.0f);
    CHECK_V4(out[7], 1.0f, 1.0f, 1.0f, 1.0f);
    CHECK_EQ(regs.a0[0], 0);
    CHECK(regs.a0[1] > 127); /* saturated, out of byte bounds */
}

/* ---- flow control ---- */

static void test_if(void)
{
    for (uint32_t b = 0; b < 2; b++) {
        reset();
        set_c(1, 1, 1, 0, 0);
        set_c(2, 2, 0, 0, 0);
        put(f3(IFU, 3, 2, 5));            /* then 1-2, else 3-4 */
        put(f1u(MOV, O(0), C(1), 0, 0));
        put(f0(NOP));
        put(f1u(MOV, O(0), C(2), 0, 0));
        put(f0(NOP));
        put(f1c(LT, GT, C(1), 0, V(0), 0)); /* cmp = (1 < 0, 1 > 0) = (F, T) */
        put(f2(IFC, 9, 0, C_AND, 0, 1));    /* true, empty else */
        put(f1u(MOV, O(1), C(1), 0, 0));
        put(f0(NOP));
        put(f2(IFC, 11, 1, C_OR, 1, 0));    /* false: else at 11 */
        put(f1u(MOV, O(2), C(1), 0, 0));
        put(f1u(MOV, O(2), C(2), 0, 0));
        put(f2(IFC, 13, 0, C_X, 0, 0));     /* true, then-block is empty (DST = pc + 1) */
        put(f1u(MOV, O(3), C(2), 0, 0));    /* after the if */
        put(f0(END));
        info.bools = b << 5;
        CHECK_EQ(run(), PVK_SUCCESS);
        CHECK_F(out[0][0], b ? 1.0f : 2.0f);
        CHECK_F(out[1][0], 1.0f);
        CHECK_F(out[2][0], 2.0f);
        CHECK_F(out[3][0], 2.0f);
        CHECK_EQ(regs.end_pc, 14);
    }
}

/* n nested IFU (all true), each with a one-instruction else block; the
 * outermost else writes o1.  The IF stack holds 8: a ninth drops the
 * outermost entry, whose then-block then runs into its else block.  Each
 * then-block ends with a NOP after the inner else: the IF stack pops one
 * entry per instruction and only on PC+1, so an inner IF jumping straight to
 * the outer else would run it (3dbrew "Control Flow"). */
static void test_if_depth(uint32_t n)
{
    reset();
    set_c(1, 1, 0, 0, 0);
    set_c(3, 3, 0, 0, 0);
    put_at(n, f1u(MOV, O(0), C(1), 0, 0));
    uint32_t p = n + 1;
    for (uint32_t k = n; k-- > 0;) {
        put_at(k, f3(IFU, p, 1, 0)); /* else block at p, one instruction */
        put_at(p++, k == 0 ? f1u(MOV, O(1), C(3), 0, 0) : f0(NOP));
        if (k > 0)
            put_at(p++, f0(NOP)); /* end of the enclosing then-block */
    }
    put_at(p, f0(END));
    info.bools = 1;
    CHECK_EQ(run(), PVK_SUCCESS);
    CHECK_F(out[0][0], 1.0f);
    CHECK_F(out[1][0], n <= 8 ? -7.0f : 3.0f);
}

static void test_loop(void)
{
    reset();
    set_c(0, 0, 0, 0, 0);
    set_c(2, 1, 0, 0, 0);
    set_c(3, 10, 0, 0, 0);
    set_c(4, 100, 0, 0, 0);
    set_c(5, 1000, 0, 0, 0);
    set_c(8, 10000, 0, 0, 0);
    set_c(9, 20000, 0, 0, 0);
    set_c(10, 40000, 0, 0, 0);
    info.ints[1] = 3 | 2 << 8 | 1 << 16;     /* 4 iterations, aL = 2, 3, 4, 5 */
    info.ints[2] = 2 | 10 << 8 | 255 << 16;  /* 3 iterations, aL = 10, 9, 8 */
    put(f1u(MOV, R(0), C(0), 0, 0));
    put(f3(LOOP, 2, 0, 1));
    put(f1(ADD, R(0), C(0), IX_AL, R(0), 0));
    put(f1u(MOV, O(0), R(0), 0, 0));
    put(f1u(MOV, R(1), C(0), 0, 0));
    put(f3(LOOP, 6, 0, 2));
    put(f1(ADD, R(1), C(0), IX_AL, R(1), 0));
    put(f1u(MOV, O(1), R(1), 0, 0));
    put(f0(END));
    CHECK_EQ(run(), PVK_SUCCESS);
    CHECK_F(out[0][0], 1111.0f);
    CHECK_F(out[1][0], 70000.0f);
    CHECK_EQ(regs.aL, 7); /* still valid after the loop: incremented after every iteration */

    /* nested loops: 3 x 4 iterations, and BREAKC out of a 10-iteration loop at 3 */
    reset();
    set_c(0, 0, 0, 0, 0);
    set_c(1, 1, 0, 0, 0);
    set_c(5, 3, 0, 0, 0);
    info.ints[0] = 2;
    info.ints[1] = 3;
    info.ints[3] = 9;
    put(f1u(MOV, R(0), C(0), 0, 0));           /* 0 */
    put(f3(LOOP, 4, 0, 0));                     /* 1: body 2-4 */
    put(f3(LOOP, 3, 0, 1));                     /* 2: body 3 */
    put(f1(ADD, R(0), C(1), 0, R(0), 0));       /* 3 */
    put(f0(NOP));                               /* 4 */
    put(f1u(MOV, O(0), R(0), 0, 0));            /* 5 */
    put(f1u(MOV, R(0), C(0), 0, 0));            /* 6 */
    put(f1u(MOV, R(1), C(5), 0, 0));            /* 7 */
    put(f3(LOOP, 11, 0, 3));                    /* 8: body 9-11 */
    put(f1(ADD, R(0), C(1), 0, R(0), 0));       /* 9 */
    put(f1c(EQ, EQ, R(0), 0, R(1), 0));         /* 10 */
    put(f2(BREAKC, 0, 0, C_X, 1, 0));           /* 11 */
    put(f1u(MOV, O(1), R(0), 0, 0));            /* 12 */
    put(f0(END));
    CHECK_EQ(run(), PVK_SUCCESS);
    CHECK_F(out[0][0], 12.0f);
    CHECK_F(out[1][0], 3.0f);
}

/* aL across nesting: an inner LOOP sets aL to its own INT.y; when the inner
 * loop ends inside an outer one, aL is the outer loop's again (saved at the
 * inner LOOP), so the outer body and its increment see their own count.  The
 * outermost loop leaves aL as its last increment made it.  And two LOOPs
 * ending on the same instruction: the LOOP stack pops one entry per
 * instruction (3dbrew), so the outer loop's end is never seen there. */
static void test_loop_nesting_aL(void)
{
    reset();
    set_c(0, 1, 0, 0, 0);
    set_c(1, 10, 0, 0, 0);
    set_c(2, 100, 0, 0, 0);
    set_c(12, 1000, 0, 0, 0);
    set_c(20, 0, 0, 0, 0);
    info.ints[0] = 2 | 0 << 8 | 1 << 16;  /* outer: 3 iterations, aL = 0, 1, 2 */
    info.ints[1] = 1 | 10 << 8 | 1 << 16; /* inner: 2 iterations, aL = 10, 11 */
    put(f1u(MOV, R(0), C(20), 0, 0));         /* 0 */
    put(f3(LOOP, 4, 0, 0));                    /* 1: body 2-4 */
    put(f3(LOOP, 3, 0, 1));                    /* 2: body 3 */
    put(f0(NOP));                              /* 3 */
    put(f1(ADD, R(0), C(0), IX_AL, R(0), 0));  /* 4: c[aL] with the outer aL */
    put(f1u(MOV, O(0), R(0), 0, 0));           /* 5 */
    put(f0(END));
    CHECK_EQ(run(), PVK_SUCCESS);
    CHECK_F(out[0][0], 111.0f); /* without the restore: c12 three times, 3000 */
    CHECK_EQ(regs.aL, 3);       /* 0 + 3 increments of 1 */

    /* BREAK out of an inner loop also gives the outer aL back */
    reset();
    set_c(0, 1, 0, 0, 0);
    set_c(1, 10, 0, 0, 0);
    set_c(20, 0, 0, 0, 0);
    set_c(30, 1000, 0, 0, 0);
    info.ints[0] = 1 | 0 << 8 | 1 << 16;  /* outer: 2 iterations, aL = 0, 1 */
    info.ints[1] = 5 | 30 << 8 | 1 << 16; /* inner: broken out of at once, aL = 30 */
    put(f1u(MOV, R(0), C(20), 0, 0));         /* 0 */
    put(f3(LOOP, 5, 0, 0));                    /* 1: body 2-5 */
    put(f3(LOOP, 4, 0, 1));                    /* 2: body 3-4 */
    put(f0(BREAK));                            /* 3 */
    put(f0(NOP));                              /* 4 */
    put(f1(ADD, R(0), C(0), IX_AL, R(0), 0));  /* 5 */
    put(f1u(MOV, O(0), R(0), 0, 0));           /* 6 */
    put(f0(END));
    CHECK_EQ(run(), PVK_SUCCESS);
    CHECK_F(out[0][0], 11.0f);

    /* shared end: the inner loop's 3 iterations, the outer body once */
    reset();
    set_c(1, 1, 0, 0, 0);
    set_c(20, 0, 0, 0, 0);
    info.ints[0] = 1; /* outer: 2 iterations if its end were seen */
    info.ints[1] = 2; /* inner: 3 iterations */
    put(f1u(MOV, R(0), C(20), 0, 0));         /* 0 */
    put(f3(LOOP, 3, 0, 0));                    /* 1: body 2-3 */
    put(f3(LOOP, 3, 0, 1));                    /* 2: body 3 */
    put(f1(ADD, R(0), C(1), 0, R(0), 0));      /* 3: both loops end here */
    put(f1u(MOV, O(0), R(0), 0, 0));           /* 4 */
    put(f0(END));
    CHECK_EQ(run(), PVK_SUCCESS);
    CHECK_F(out[0][0], 3.0f);
}

/* Five nested loops, one iteration each, all ending at different places:
 * the LOOP stack holds 4, so the fifth push drops the outermost loop and
 * its end no longer ends anything: with x = 1 the outer body would run twice. */
static void test_loop_depth(uint32_t n)
{
    reset();
    set_c(1, 1, 0, 0, 0);
    info.ints[0] = 1; /* 2 iterations for the outermost */
    info.ints[1] = 0; /* 1 iteration for the others */
    /* pc k: LOOP ending at 2n - k; pc n: ADD; pcs n+1..2n: NOP */
    for (uint32_t k = 0; k < n; k++)
        put_at(k, f3(LOOP, 2 * n - k, 0, k == 0 ? 0 : 1));
    put_at(n, f1(ADD, R(0), C(1), 0, R(0), 0));
    for (uint32_t k = n + 1; k <= 2 * n; k++)
        put_at(k, f0(NOP));
    put_at(2 * n + 1, f1u(MOV, O(0), R(0), 0, 0));
    put_at(2 * n + 2, f0(END));
    CHECK_EQ(run(), PVK_SUCCESS);
    CHECK_F(out[0][0], n <= 4 ? 2.0f : 1.0f);
}

static void test_call(void)
{
    reset();
    set_c(1, 1, 1, 0, 0);
    set_c(2, 2, 0, 0, 0);
    set_c(3, 3, 0, 0, 0);
    put_at(0, f2(CALL, 10, 2, 0, 0, 0));
    put_at(1, f3(CALLU, 20, 1, 2));               /* b2 false: skipped */
    put_at(2, f3(CALLU, 30, 1, 3));               /* b3 true */
    put_at(3, f1c(EQ, EQ, C(1), 0, V(0), 0));     /* cmp = (F, F) */
    put_at(4, f2(CALLC, 40, 1, C_AND, 0, 0));     /* true */
    put_at(5, f2(CALLC, 20, 1, C_OR, 1, 1));      /* false */
    put_at(6, f2(JMPC, 8, 0, C_Y, 0, 0));         /* true */
    put_at(7, f1u(MOV, O(4), C(1), 0, 0));        /* skipped */
    put_at(8, f3(JMPU, 50, 1, 2));                /* b2 false, inverted by NUM bit 0: jumps */
    put_at(10, f1u(MOV, O(0), C(1), 0, 0));
    put_at(11, f0(NOP));
    put_at(20, f1u(MOV, O(5), C(1), 0, 0));
    put_at(30, f1u(MOV, O(1), C(2), 0, 0));
    put_at(40, f1u(MOV, O(2), C(3), 0, 0));
    put_at(50, f3(JMPU, 52, 0, 3));                 /* b3 true: jumps */
    put_at(51, f1u(MOV, O(4), C(2), 0, 0));
    put_at(52, f3(JMPU, 54, 0, 2));                 /* b2 false: no jump */
    put_at(53, f1u(MOV, O(3), C(3), 0, 0));
    put_at(54, f0(END));
    info.bools = 1u << 3;
    CHECK_EQ(run(), PVK_SUCCESS);
    CHECK_F(out[0][0], 1.0f);
    CHECK_F(out[1][0], 2.0f);
    CHECK_F(out[2][0], 3.0f);
    CHECK_F(out[3][0], 3.0f);
    CHECK_F(out[4][0], -7.0f);
    CHECK_F(out[5][0], -7.0f);
}

/* n nested CALLs, each callee being "CALL next; NOP", the innermost one MOV;
 * the main program marks o1 after its call, and a marker after the
 * outermost callee (reached only if its return entry was lost) writes o2. */
static void test_call_depth(uint32_t n)
{
    reset();
    set_c(1, 1, 0, 0, 0);
    set_c(2, 2, 0, 0, 0);
    set_c(3, 3, 0, 0, 0);
    put_at(0, f2(CALL, 10, 2, 0, 0, 0));
    put_at(1, f1u(MOV, O(1), C(2), 0, 0));
    put_at(2, f0(END));
    for (uint32_t k = 1; k < n; k++) {
        put_at(10 * k, f2(CALL, 10 * (k + 1), k + 1 == n ? 1 : 2, 0, 0, 0));
        put_at(10 * k + 1, f0(NOP));
    }
    put_at(10 * n, f1u(MOV, O(0), C(1), 0, 0));
    put_at(12, f1u(MOV, O(2), C(3), 0, 0));
    put_at(13, f0(END));
    CHECK_EQ(run(), PVK_SUCCESS);
    CHECK_F(out[0][0], 1.0f);
    CHECK_F(out[1][0], n <= 4 ? 2.0f : -7.0f);
    CHECK_F(out[2][0], n <= 4 ? -7.0f : 3.0f);
}

/* Calls that all return at the same PC: 3dbrew reports that a fourth
 * return in a row loses its PC update. */
static void test_call_chain(uint32_t n)
{
    reset();
    set_c(1, 1, 0, 0, 0);
    set_c(2, 2, 0, 0, 0);
    set_c(3, 3, 0, 0, 0);
    put_at(0, f2(CALL, 10, 1, 0, 0, 0));
    put_at(1, f1u(MOV, O(1), C(2), 0, 0));
    put_at(2, f0(END));
    for (uint32_t k = 1; k < n; k++) /* each callee is only a call of the next */
        put_at(10 * k, f2(CALL, 10 * (k + 1), 1, 0, 0, 0));
    put_at(10 * n, f1u(MOV, O(0), C(1), 0, 0));
    put_at(11, f1u(MOV, O(2), C(3), 0, 0));
    put_at(12, f0(END));
    CHECK_EQ(run(), PVK_SUCCESS);
    CHECK_F(out[0][0], 1.0f);
    CHECK_F(out[1][0], n < 4 ? 2.0f : -7.0f);
    CHECK_F(out[2][0], n < 4 ? -7.0f : 3.0f);
}

/* ---- bad programs ---- */

static void test_bad(void)
{
    pvk_stats before, after;
    th_quiet_errors = 1;

    reset();
    put(f2(JMPC, 0, 0, C_OR, 0, 0)); /* cmp starts false: jumps to itself forever */
    pvk_get_stats(ctx, &before);
    CHECK_EQ(run(), PVK_ERROR_BAD_DATA); /* the default bound: 1M instructions */
    pvk_get_stats(ctx, &after);
    CHECK_EQ(after.bad_input, before.bad_input + 1);

    reset();
    put(f0(BREAK));
    CHECK_EQ(run(), PVK_ERROR_BAD_DATA);

    reset();
    put(0x10u << 26); /* undefined opcode */
    CHECK_EQ(run(), PVK_ERROR_BAD_DATA);

    reset();
    info.entry = PVK_SH_CODE_WORDS - 1;
    U.code[PVK_SH_CODE_WORDS - 1] = f0(NOP); /* runs off the end */
    CHECK_EQ(run(), PVK_ERROR_BAD_DATA);
    info.entry = 0xFFFF;
    CHECK_EQ(run(), PVK_ERROR_BAD_DATA);

    reset(); /* three nested loops of 256 iterations (distinct ends): bounded by max_steps */
    info.ints[0] = 255;
    info.max_steps = 5000;
    put(f3(LOOP, 5, 0, 0));
    put(f3(LOOP, 4, 0, 0));
    put(f3(LOOP, 3, 0, 0));
    put(f0(NOP));
    put(f0(NOP));
    put(f0(NOP));
    put(f0(END));
    CHECK_EQ(run(), PVK_ERROR_BAD_DATA);
    info.max_steps = 0; /* same ends: each pops one entry per instruction, so this one ends */
    U.code[0] = U.code[1] = U.code[2] = f3(LOOP, 3, 0, 0);
    U.code[4] = f0(END);
    CHECK_EQ(run(), PVK_SUCCESS);
    CHECK_EQ(regs.steps, 3 + 256 + 1);

    /* EMIT on the vertex unit: logged as unsupported, otherwise a NOP */
    reset();
    put(f4(1, 1, 0));
    put(f0(EMIT));
    put(f0(END));
    pvk_get_stats(ctx, &before);
    CHECK_EQ(run(), PVK_SUCCESS);
    pvk_get_stats(ctx, &after);
    CHECK_EQ(after.unsupported, before.unsupported + 1);
    th_quiet_errors = 0;
}

static unsigned emitted, emit_vtx;
static bool emit_prim, emit_wind;
static float emit_o0;
static void on_emit(void *user, unsigned vtxid, bool primemit, bool winding, const float o[16][4])
{
    (void)user;
    emitted++;
    emit_vtx = vtxid, emit_prim = primemit, emit_wind = winding;
    emit_o0 = o[0][0];
}

static void test_emit(void)
{
    reset();
    set_c(1, 5, 0, 0, 0);
    info.emit = on_emit;
    put(f4(2, 1, 1));
    put(f1u(MOV, O(0), C(1), 0, 0));
    put(f0(EMIT));
    put(f0(END));
    CHECK_EQ(run(), PVK_SUCCESS);
    CHECK_EQ(emitted, 1);
    CHECK_EQ(emit_vtx, 2);
    CHECK(emit_prim && emit_wind);
    CHECK_F(emit_o0, 5.0f);
}

/* pvk_vs_run through the register file: code, descriptors, uniforms and the
 * entry point uploaded with register writes as a command list would. */
static void test_vs_run(void)
{
    uint32_t prog[] = {
        f0(NOP),
        f1(DP4, O(0), C(0), 0, V(0), 1), /* entry point 1 */
        f3(IFU, 4, 0, 0),
        f1u(MOV, O(1), V(1), 0, 0),
        f0(END),
    };
    const uint32_t vb = PVK_GPUREG_VSH_BASE;
    pvk_pica_write(&ctx->pica, PVK_GPUREG_VSH_CODETRANSFER_CONFIG, 0);
    for (unsigned i = 0; i < sizeof prog / sizeof prog[0]; i++)
        pvk_pica_write(&ctx->pica, PVK_GPUREG_VSH_CODETRANSFER_DATA, prog[i]);
    pvk_pica_write(&ctx->pica, PVK_GPUREG_VSH_OPDESCS_CONFIG, 0);
    pvk_pica_write(&ctx->pica, PVK_GPUREG_VSH_OPDESCS_DATA, opdesc(M_ALL, XYZW, 0, XYZW, 0, XYZW, 0));
    pvk_pica_write(&ctx->pica, PVK_GPUREG_VSH_OPDESCS_DATA, opdesc(M_X, XYZW, 0, XYZW, 0, XYZW, 0));
    /* f32 mode: words w, z, y, x */
    pvk_pica_write(&ctx->pica, PVK_GPUREG_VSH_FLOATUNIFORM_CONFIG, 0x80000000u);
    const float c0[4] = {4, 3, 2, 1};
    for (int i = 0; i < 4; i++)
        pvk_pica_write(&ctx->pica, PVK_GPUREG_VSH_FLOATUNIFORM_DATA, bits(c0[i]));
    pvk_pica_write(&ctx->pica, PVK_GPUREG_VSH_BOOLUNIFORM, 0x7FFF0001u);
    pvk_pica_write(&ctx->pica, vb + 0x0A, 0x7FFF0001u); /* ENTRYPOINT */
    CHECK_EQ(ctx->pica.regs[PVK_GPUREG_VSH_ENTRYPOINT] & 0xFFFF, 1);
    float v[16][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}}, o[16][4];
    memset(o, 0, sizeof o);
    CHECK_EQ(pvk_vs_run(&ctx->pica, (const float(*)[4])v, o), PVK_SUCCESS);
    CHECK_F(o[0][0], 1 * 1 + 2 * 2 + 3 * 3 + 4 * 4.0f);
    CHECK_F(o[0][1], 0.0f); /* masked */
    CHECK_V4(o[1], 5.0f, 6.0f, 7.0f, 8.0f);

    th_quiet_errors = 1;
    pvk_pica_write(&ctx->pica, vb + 0x0A, 0x7FFFFFFFu); /* entry 0xFFFF: past code memory */
    CHECK_EQ(pvk_vs_run(&ctx->pica, (const float(*)[4])v, o), PVK_ERROR_BAD_DATA);
    th_quiet_errors = 0;
}

static void run_all_cases(void)
{
    test_add_and_rounding();
    test_mul_dot();
    test_dst_ex2_lg2_litp_flr();
    test_compare_select();
    test_rcp_rsq();
    test_mad();
    test_address();
    test_if();
    test_if_depth(8);
    test_if_depth(9);
    test_loop();
    test_loop_nesting_aL();
    test_loop_depth(4);
    test_loop_depth(5);
    test_call();
    test_call_depth(4);
    test_call_depth(5);
    test_call_chain(3);
    test_call_chain(4);
    test_bad();
    test_emit();
    test_vs_run();
}

int main(void)
{
    ctx = th_context(NULL, 0);
    run_all_cases();
    th_release(ctx);
    return th_finish("test_shader");
}
