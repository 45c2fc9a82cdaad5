/* translator/: a CPU interpreter of the PICA200 shader instruction set
 * (3dbrew "GPU/Shader Instruction Set").  It is the oracle for the later
 * SPIR-V translation, so it favours being obviously right over being fast:
 * one switch over the opcode, no caching of decoded programs.
 *
 * Float model (what we know from 3dbrew's hardware measurements and what we
 * chose where it is silent):
 *  - Registers hold f24 values (1.7.16, bias 63) stored in a float, which
 *    represents every f24 value exactly, subnormals included.
 *  - Arithmetic instructions (ADD DP3 DP4 DPH DST EX2 LG2 MUL FLR RCP RSQ
 *    MAD) flush input subnormals to +0, compute in f32, and round the result
 *    to f24: round to nearest even (the hardware's rounding mode is not
 *    documented; "MAD is not an FMA, the intermediate is rounded" says it
 *    rounds), results below the f24 normal range become +0, above it +-inf.
 *  - MOV, MAX, MIN, SGE, SLT, CMP, LITP and MOVA select or compare without
 *    flushing (3dbrew: cmp and max keep subnormals).
 *  - There is no -0: every zero we produce or read is +0 (rcp(-0) = +inf).
 *  - x * 0 = 0 for any non-NaN x, infinities included, in MUL, MAD, DP*,
 *    DST; NaN * 0 = NaN.
 *  - max(a, b) = a > b ? a : b and min(a, b) = a < b ? a : b: these give
 *    every row of 3dbrew's table (max(NaN, 0) = 0, max(0, NaN) = NaN, ...)
 *    except "max(0, -inf) = -inf", which contradicts max(-inf, +inf) = +inf
 *    and min(0, -inf) = -inf under any ordering; we treat it as a typo.
 *  - RCP/RSQ/EX2/LG2 are approximations on hardware of unknown precision;
 *    we use the correctly rounded f32 functions and round to f24, with the
 *    documented special cases (rcp(0) = +inf, rsq(-x) = NaN, rsq(inf) = 0).
 *  - Inputs v0-v15 are truncated to f24 as the attribute loader does
 *    (pvk_f32_to_f24); float uniforms are f24 already.
 *
 * Control flow follows 3dbrew's stack model: independent CALL (4 deep), IF
 * (8 deep) and LOOP (4 deep) stacks that overflow by dropping their oldest
 * entry.  After every instruction each stack compares its top against PC+1;
 * the LOOP stack (loop back / leave) wins over IF (jump past the else
 * block), which wins over CALL (return, repeated while entries match), which
 * wins over a jump the instruction asked for (JMPC/JMPU/CALL/IF false/BREAK),
 * which wins over PC+1.  Entries an instruction pushes take part in the
 * check right after it (that is what makes an empty IF branch work).
 *
 * Nesting: the LOOP stack pops one entry per instruction (3dbrew), so of two
 * LOOPs ending on the same instruction only the inner one iterates; the
 * outer one's end is missed (picasso pads a NOP so blocks never share an
 * end; Citra's JIT compiles loops structurally and iterates both, its
 * interpreter follows 3dbrew).  3dbrew does not say what happens to aL: a
 * nested loop that ends or breaks gives the enclosing loop its aL back as it
 * was at the inner LOOP, and the outermost loop leaves aL as its last
 * increment made it, as Citra/Azahar's interpreter (loop stack
 * `previous_aL`) and JIT (loop registers saved around an inner LOOP) agree;
 * D3D vs_3_0, which the ISA follows, scopes aL to the innermost loop too. */
#include <math.h>
#include <string.h>

#include "translator/geometry.h"

/* ---- f24 ---- */

#define F24_MIN_NORMAL 0x1p-62f /* exponent 1 of a bias-63 float */

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static float f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* The value of a float1.7.16 word (exponent 0 is a subnormal: m * 2^-78). */
static float f24_value(uint32_t w)
{
    uint32_t sign = (w >> 23) & 1u, exp = (w >> 16) & 0x7Fu, mant = w & 0xFFFFu;
    float v;
    if (exp == 0x7F)
        v = mant ? NAN : INFINITY;
    else if (exp == 0)
        v = (float)mant * 0x1p-78f; /* exact: at most 16 significant bits */
    else
        v = f32_from_bits((exp + 127 - 63) << 23 | mant << 7);
    if (v == 0.0f)
        return 0.0f; /* no -0 */
    return sign ? -v : v;
}

/* An arithmetic result rounded to f24: nearest even on the 16-bit mantissa,
 * outside the normal range flushed to +0 or saturated to infinity. */
static float f24_round(float x)
{
    if (isnan(x))
        return NAN;
    if (isinf(x))
        return x;
    uint32_t u = f32_bits(x);
    u += 0x3Fu + ((u >> 7) & 1u);
    u &= ~0x7Fu;
    uint32_t e = (u >> 23) & 0xFFu; /* f32 exponent; f24 normal range is 65..190 */
    if (e < 65)
        return 0.0f;
    if (e > 190)
        return (u >> 31) ? -INFINITY : INFINITY;
    return f32_from_bits(u);
}

/* An arithmetic input: f24 subnormals (and -0) become +0. */
static float f24_flush(float x)
{
    return fabsf(x) < F24_MIN_NORMAL ? 0.0f : x;
}

/* An input register value as the loader stores it: truncated to f24. */
static float f24_from_input(float x)
{
    if (isnan(x)) /* a NaN whose payload sits in the truncated bits must stay NaN */
        return NAN;
    return f24_value(pvk_f32_to_f24(f32_bits(x)));
}

/* PICA multiplication: 0 * inf = 0, NaN * 0 = NaN.  Inputs already flushed. */
static float pica_mul(float a, float b)
{
    if ((a == 0.0f && !isnan(b)) || (b == 0.0f && !isnan(a)))
        return 0.0f;
    return a * b;
}

static float pica_max(float a, float b) { return a > b ? a : b; }
static float pica_min(float a, float b) { return a < b ? a : b; }

/* ---- interpreter state ---- */

enum { CALL_DEPTH = 4, IF_DEPTH = 8, LOOP_DEPTH = 4 };

typedef struct sh_call { uint32_t end, ret; } sh_call;
typedef struct sh_if { uint32_t end, target; } sh_if;
typedef struct sh_loop { uint32_t start, end, remaining; uint8_t inc, outer_aL; } sh_loop;

typedef struct sh_state {
    const pvk_pica *log;           /* where messages go, or NULL */
    const pvk_sh_run_info *info;
    const pvk_shader_unit *unit;
    float v[16][4];
    float r[16][4];
    float (*o)[4];
    int32_t a0[2];
    uint8_t aL;                    /* 8 bits like INT.y/INT.z; a signed offset when used */
    bool cmp[2];
    sh_call call[CALL_DEPTH];
    sh_if ifs[IF_DEPTH];
    sh_loop loop[LOOP_DEPTH];
    unsigned ncall, nif, nloop;
    unsigned emit_vtx;
    bool emit_prim, emit_winding, emit_logged;
} sh_state;

/* Push onto a ring of `cap` entries: a full stack drops its oldest entry. */
#define STACK_PUSH(arr, n, cap, entry)                                          \
    do {                                                                        \
        if ((n) == (cap)) {                                                     \
            memmove(&(arr)[0], &(arr)[1], ((cap) - 1) * sizeof((arr)[0]));     \
            (n)--;                                                              \
        }                                                                       \
        (arr)[(n)++] = (entry);                                                 \
    } while (0)

#define desc_mask pvk_sh_desc_mask

/* Source register `reg` (0x00-0x0F v, 0x10-0x1F r, 0x20-0x7F c) with
 * relative index `idx` (0 none, 1 a0.x, 2 a0.y, 3 aL), swizzled and negated
 * per descriptor `d`, source slot `src` (0-2). */
static void read_src(const sh_state *s, uint32_t reg, uint32_t idx, uint32_t d, unsigned src, float out[4])
{
    float c[4];
    const float *p;
    if (reg < 0x10) {
        p = s->v[reg];
    } else if (reg < 0x20) {
        p = s->r[reg - 0x10];
    } else {
        /* Relative addressing applies to constants only (3dbrew). */
        int32_t off = 0;
        if (idx == 1 || idx == 2)
            off = s->a0[idx - 1];
        else if (idx == 3)
            off = s->aL >= 128 ? (int32_t)s->aL - 256 : (int32_t)s->aL;
        if (off < -128 || off > 127) /* out of byte bounds: not applied */
            off = 0;
        uint32_t ci = (uint32_t)((int32_t)(reg - 0x20) + off) & 0x7Fu;
        if (ci >= PVK_SH_FLOAT_UNIFORMS) {
            c[0] = c[1] = c[2] = c[3] = 1.0f;
        } else {
            for (unsigned i = 0; i < 4; i++)
                c[i] = f24_value(s->unit->f[ci][i]);
        }
        p = c;
    }
    uint32_t sel = pvk_sh_desc_swizzle(d, src);
    bool neg = pvk_sh_desc_neg(d, src);
    for (unsigned i = 0; i < 4; i++) {
        float x = p[(sel >> (6 - 2 * i)) & 3u];
        if (neg)
            x = -x;
        out[i] = x == 0.0f ? 0.0f : x; /* no -0 */
    }
}

static void write_dst(sh_state *s, uint32_t dst, uint32_t d, const float val[4])
{
    float *p = dst < 0x10 ? s->o[dst] : s->r[dst - 0x10];
    uint32_t mask = desc_mask(d);
    for (unsigned i = 0; i < 4; i++)
        if (mask & (8u >> i))
            p[i] = val[i];
}

static void flush4(float x[4])
{
    for (unsigned i = 0; i < 4; i++)
        x[i] = f24_flush(x[i]);
}

static void splat(float out[4], float x)
{
    out[0] = out[1] = out[2] = out[3] = x;
}

/* The x/y comparison of CMP (operators 6 and 7 are "always true"). */
static bool compare(uint32_t op, float a, float b)
{
    switch (op) {
    case 0: return a == b;
    case 1: return a != b;
    case 2: return a < b;
    case 3: return a <= b;
    case 4: return a > b;
    case 5: return a >= b;
    default: return true;
    }
}

/* Format 2 condition on cmp.x / cmp.y. */
static bool condition(const sh_state *s, uint32_t w)
{
    bool x = s->cmp[0] == pvk_sh_f2_refx(w);
    bool y = s->cmp[1] == pvk_sh_f2_refy(w);
    switch (pvk_sh_f2_condop(w)) {
    case 0: return x || y;
    case 1: return x && y;
    case 2: return x;
    default: return y;
    }
}

/* MOVA: truncate toward zero; NaN reads as 0 and the value saturates
 * (anything outside -128..127 is ignored by relative addressing anyway). */
static int32_t mova_value(float x)
{
    if (isnan(x))
        return 0;
    if (x >= 2147483520.0f)
        return INT32_MAX;
    if (x <= -2147483648.0f)
        return INT32_MIN;
    return (int32_t)x;
}

/* Opcodes (6 bits; CMP, MADI and MAD use the top bits only). */

/* The registers a unit keeps for its next invocation (pvk_sh_run_info.persist). */
static void save_persist(const sh_state *s)
{
    pvk_sh_persist *k = s->info->persist;
    if (!k)
        return;
    memcpy(k->r, s->r, sizeof k->r);
    k->a0[0] = s->a0[0], k->a0[1] = s->a0[1];
    k->aL = s->aL;
    k->cmp[0] = s->cmp[0], k->cmp[1] = s->cmp[1];
    k->emit_vtx = (uint8_t)s->emit_vtx;
    k->emit_prim = s->emit_prim, k->emit_winding = s->emit_winding;
}

static pvk_result bad(sh_state *s, const char *what, uint32_t pc, uint32_t w)
{
    save_persist(s);
    if (s->log)
        pvk_pica_bad_input(s->log, "shader: %s at pc 0x%03X (word 0x%08X)", what, pc, w);
    return PVK_ERROR_BAD_DATA;
}

/* Two-source operations of formats 1 and 1i into `res`. */
static void alu2(uint32_t op, float a[4], float b[4], float res[4])
{
    switch (op) {
    case PVK_SH_ADD:
        flush4(a), flush4(b);
        for (unsigned i = 0; i < 4; i++)
            res[i] = f24_round(a[i] + b[i]);
        break;
    case PVK_SH_DP3:
    case PVK_SH_DP4:
    case PVK_SH_DPH:
    case PVK_SH_DPHI: {
        flush4(a), flush4(b);
        if (op == PVK_SH_DPH || op == PVK_SH_DPHI)
            a[3] = 1.0f; /* SRC1 homogeneous */
        unsigned n = op == PVK_SH_DP3 ? 3 : 4;
        float sum = 0.0f;
        for (unsigned i = 0; i < n; i++)
            sum += pica_mul(a[i], b[i]);
        splat(res, f24_round(sum));
        break;
    }
    case PVK_SH_DST:
    case PVK_SH_DSTI:
        flush4(a), flush4(b);
        res[0] = 1.0f;
        res[1] = f24_round(pica_mul(a[1], b[1]));
        res[2] = a[2];
        res[3] = b[3];
        break;
    case PVK_SH_MUL:
        flush4(a), flush4(b);
        for (unsigned i = 0; i < 4; i++)
            res[i] = f24_round(pica_mul(a[i], b[i]));
        break;
    case PVK_SH_SGE:
    case PVK_SH_SGEI:
        for (unsigned i = 0; i < 4; i++)
            res[i] = a[i] >= b[i] ? 1.0f : 0.0f;
        break;
    case PVK_SH_SLT:
    case PVK_SH_SLTI:
        for (unsigned i = 0; i < 4; i++)
            res[i] = a[i] < b[i] ? 1.0f : 0.0f;
        break;
    case PVK_SH_MAX:
        for (unsigned i = 0; i < 4; i++)
            res[i] = pica_max(a[i], b[i]);
        break;
    default: /* PVK_SH_MIN */
        for (unsigned i = 0; i < 4; i++)
            res[i] = pica_min(a[i], b[i]);
        break;
    }
}

/* One-source arithmetic of format 1u (MOVA is handled by the caller). */
static void alu1(sh_state *s, uint32_t op, float a[4], float res[4])
{
    switch (op) {
    case PVK_SH_EX2: splat(res, f24_round(exp2f(f24_flush(a[0])))); break;
    case PVK_SH_LG2: splat(res, f24_round(log2f(f24_flush(a[0])))); break;
    case PVK_SH_RCP: {
        float x = f24_flush(a[0]);
        splat(res, x == 0.0f ? INFINITY : f24_round(1.0f / x));
        break;
    }
    case PVK_SH_RSQ: {
        float x = f24_flush(a[0]);
        splat(res, x == 0.0f ? INFINITY : f24_round(1.0f / sqrtf(x))); /* sqrt(<0) = NaN */
        break;
    }
    case PVK_SH_FLR:
        flush4(a);
        for (unsigned i = 0; i < 4; i++)
            res[i] = f24_round(floorf(a[i]));
        break;
    case PVK_SH_LITP:
        res[0] = pica_max(a[0], 0.0f);
        res[1] = pica_max(pica_min(a[1], 127.99609375f), -127.99609375f);
        res[2] = 0.0f;
        res[3] = pica_max(a[3], 0.0f);
        s->cmp[0] = a[0] >= 0.0f;
        s->cmp[1] = a[3] >= 0.0f;
        break;
    default: /* PVK_SH_MOV */
        memcpy(res, a, sizeof(float) * 4);
        break;
    }
}

static pvk_result execute(sh_state *s)
{
    const pvk_sh_run_info *info = s->info;
    const pvk_shader_unit *u = s->unit;
    uint32_t max_steps = info->max_steps ? info->max_steps : PVK_SH_MAX_STEPS;
    uint32_t pc = info->entry, steps = 0;

    for (;;) {
        if (pc >= PVK_SH_CODE_WORDS)
            return bad(s, "program counter past the end of code memory", pc, 0);
        if (steps++ >= max_steps)
            return bad(s, "runaway program stopped", pc, u->code[pc]);
        uint32_t w = u->code[pc];
        uint32_t op = pvk_sh_opcode(w);
        bool jump = false;
        uint32_t target = 0;
        /* Fields of the flow-control formats 2 and 3. */
        uint32_t num = pvk_sh_f2_num(w), dst_off = pvk_sh_f2_dst(w), id = pvk_sh_f3_id(w);

        if (pvk_sh_is_mad(op)) {
            /* Formats 5 / 5i: DST = SRC1 * SRC2 + SRC3, product rounded first. */
            bool inv = pvk_sh_is_inverted(op);
            uint32_t d = u->opdesc[pvk_sh_f5_desc(w)];
            uint32_t idx = pvk_sh_f5_idx(w), dst = pvk_sh_f5_dst(w);
            uint32_t src1 = pvk_sh_f5_src1(w);
            uint32_t src2 = inv ? pvk_sh_f5i_src2(w) : pvk_sh_f5_src2(w);
            uint32_t src3 = inv ? pvk_sh_f5i_src3(w) : pvk_sh_f5_src3(w);
            float a[4], b[4], c[4], res[4];
            read_src(s, src1, 0, d, 0, a);
            read_src(s, src2, inv ? 0 : idx, d, 1, b);
            read_src(s, src3, inv ? idx : 0, d, 2, c);
            flush4(a), flush4(b), flush4(c);
            for (unsigned i = 0; i < 4; i++)
                res[i] = f24_round(f24_round(pica_mul(a[i], b[i])) + c[i]);
            write_dst(s, dst, d, res);
        } else if (pvk_sh_is_cmp(op)) {
            /* Format 1c */
            uint32_t d = u->opdesc[pvk_sh_f1_desc(w)];
            float a[4], b[4];
            read_src(s, pvk_sh_f1_src1(w), pvk_sh_f1_idx(w), d, 0, a);
            read_src(s, pvk_sh_f1_src2(w), 0, d, 1, b);
            s->cmp[0] = compare(pvk_sh_f1c_cmpx(w), a[0], b[0]);
            s->cmp[1] = compare(pvk_sh_f1c_cmpy(w), a[1], b[1]);
        } else {
            switch (op) {
            case PVK_SH_ADD: case PVK_SH_DP3: case PVK_SH_DP4: case PVK_SH_DPH: case PVK_SH_DST: case PVK_SH_MUL:
            case PVK_SH_SGE: case PVK_SH_SLT: case PVK_SH_MAX: case PVK_SH_MIN:
            case PVK_SH_DPHI: case PVK_SH_DSTI: case PVK_SH_SGEI: case PVK_SH_SLTI: {
                /* Format 1 (SRC1 7 bits, relative) or 1i (SRC2 7 bits, relative). */
                bool inv = pvk_sh_is_inverted(op);
                uint32_t d = u->opdesc[pvk_sh_f1_desc(w)];
                uint32_t idx = pvk_sh_f1_idx(w), dst = pvk_sh_f1_dst(w);
                float a[4], b[4], res[4];
                if (inv) {
                    read_src(s, pvk_sh_f1i_src1(w), 0, d, 0, a);
                    read_src(s, pvk_sh_f1i_src2(w), idx, d, 1, b);
                } else {
                    read_src(s, pvk_sh_f1_src1(w), idx, d, 0, a);
                    read_src(s, pvk_sh_f1_src2(w), 0, d, 1, b);
                }
                alu2(op, a, b, res);
                write_dst(s, dst, d, res);
                break;
            }
            case PVK_SH_EX2: case PVK_SH_LG2: case PVK_SH_LITP: case PVK_SH_FLR: case PVK_SH_RCP: case PVK_SH_RSQ:
            case PVK_SH_MOV: case PVK_SH_MOVA: {
                /* Format 1u */
                uint32_t d = u->opdesc[pvk_sh_f1_desc(w)];
                float a[4], res[4];
                read_src(s, pvk_sh_f1_src1(w), pvk_sh_f1_idx(w), d, 0, a);
                if (op == PVK_SH_MOVA) {
                    if (desc_mask(d) & 8u)
                        s->a0[0] = mova_value(a[0]);
                    if (desc_mask(d) & 4u)
                        s->a0[1] = mova_value(a[1]);
                } else {
                    alu1(s, op, a, res);
                    write_dst(s, pvk_sh_f1_dst(w), d, res);
                }
                break;
            }
            case PVK_SH_NOP:
                break;
            case PVK_SH_END:
                save_persist(s);
                if (info->regs_out) {
                    pvk_sh_regs *r = info->regs_out;
                    memcpy(r->r, s->r, sizeof s->r);
                    r->a0[0] = s->a0[0], r->a0[1] = s->a0[1];
                    r->aL = s->aL;
                    r->cmp[0] = s->cmp[0], r->cmp[1] = s->cmp[1];
                    r->steps = steps;
                    r->end_pc = pc;
                }
                return PVK_SUCCESS;
            case PVK_SH_BREAK:
            case PVK_SH_BREAKC:
                if (op == PVK_SH_BREAKC && !condition(s, w))
                    break;
                if (!s->nloop) /* hangs real hardware */
                    return bad(s, "BREAK outside a LOOP", pc, w);
                jump = true;
                target = s->loop[--s->nloop].end;
                if (s->nloop)
                    s->aL = s->loop[s->nloop].outer_aL;
                break;
            case PVK_SH_CALL:
            case PVK_SH_CALLC:
            case PVK_SH_CALLU:
                if ((op == PVK_SH_CALLC && !condition(s, w)) || (op == PVK_SH_CALLU && !((info->bools >> id) & 1u)))
                    break;
                STACK_PUSH(s->call, s->ncall, CALL_DEPTH, ((sh_call){dst_off + num, pc + 1}));
                jump = true;
                target = dst_off;
                break;
            case PVK_SH_IFU:
            case PVK_SH_IFC: {
                bool c = op == PVK_SH_IFC ? condition(s, w) : (info->bools >> id) & 1u;
                if (c) { /* run to DST, then skip the else block to DST+NUM */
                    STACK_PUSH(s->ifs, s->nif, IF_DEPTH, ((sh_if){dst_off, dst_off + num}));
                } else { /* the else block runs from DST and falls through */
                    jump = true;
                    target = dst_off;
                }
                break;
            }
            case PVK_SH_LOOP: {
                uint32_t iv = info->ints[id & 3u];
                STACK_PUSH(s->loop, s->nloop, LOOP_DEPTH,
                           ((sh_loop){pc + 1, dst_off + 1, iv & 0xFFu, (uint8_t)(iv >> 16), s->aL}));
                s->aL = (uint8_t)(iv >> 8);
                break;
            }
            case PVK_SH_JMPC:
                if (condition(s, w))
                    jump = true, target = dst_off;
                break;
            case PVK_SH_JMPU:
                if (((info->bools >> id) & 1u) != (num & 1u))
                    jump = true, target = dst_off;
                break;
            case PVK_SH_SETEMIT:
                s->emit_vtx = pvk_sh_f4_vtx(w);
                s->emit_prim = pvk_sh_f4_prim(w);
                s->emit_winding = pvk_sh_f4_inv(w);
                /* SETEMIT on a unit that cannot emit is logged like EMIT */
                /* fall through */
            case PVK_SH_EMIT:
                if (!info->emit) {
                    if (!s->emit_logged && s->log)
                        pvk_pica_unsupported(s->log, "shader: EMIT/SETEMIT outside a geometry shader (pc 0x%03X)", pc);
                    s->emit_logged = true;
                } else if (op == PVK_SH_EMIT) {
                    info->emit(info->emit_user, s->emit_vtx, s->emit_prim, s->emit_winding,
                               (const float(*)[4])s->o);
                }
                break;
            default:
                return bad(s, "undefined opcode", pc, w);
            }
        }

        /* Every stack checks its top against PC+1 (see the top of the file). */
        uint32_t next = pc + 1;
        uint32_t loop_pc = next, if_pc = next, call_pc = next;
        bool loop_hit = false, if_hit = false, call_hit = false;
        if (s->nloop && s->loop[s->nloop - 1].end == next) {
            sh_loop *l = &s->loop[s->nloop - 1];
            s->aL = (uint8_t)(s->aL + l->inc);
            if (l->remaining) {
                l->remaining--;
                loop_pc = l->start;
            } else {
                if (s->nloop > 1) /* see the top of the file */
                    s->aL = l->outer_aL;
                s->nloop--;
            }
            loop_hit = true;
        }
        if (s->nif && s->ifs[s->nif - 1].end == next) {
            if_pc = s->ifs[--s->nif].target;
            if_hit = true;
        }
        for (unsigned pops = 1; s->ncall && s->call[s->ncall - 1].end == call_pc; pops++) {
            uint32_t ret = s->call[--s->ncall].ret;
            if (pops != 4) /* 3dbrew: the fourth return in a row is lost */
                call_pc = ret;
            call_hit = true;
        }
        if (loop_hit)
            pc = loop_pc;
        else if (if_hit)
            pc = if_pc;
        else if (call_hit)
            pc = call_pc;
        else if (jump)
            pc = target;
        else
            pc = next;
    }
}

float pvk_sh_f24_value(uint32_t w)
{
    return f24_value(w);
}

pvk_result pvk_sh_run(const pvk_pica *log, const pvk_sh_run_info *info, const float v[PVK_SH_INPUTS][4],
                      float o[PVK_SH_OUTPUTS][4])
{
    sh_state s;
    memset(&s, 0, sizeof s);
    s.log = log;
    s.info = info;
    s.unit = info->unit;
    s.o = o;
    for (unsigned i = 0; i < PVK_SH_INPUTS; i++)
        for (unsigned c = 0; c < 4; c++)
            s.v[i][c] = f24_from_input(v[i][c]);
    if (info->persist) {
        const pvk_sh_persist *k = info->persist;
        memcpy(s.r, k->r, sizeof s.r);
        s.a0[0] = k->a0[0], s.a0[1] = k->a0[1];
        s.aL = k->aL;
        s.cmp[0] = k->cmp[0], s.cmp[1] = k->cmp[1];
        s.emit_vtx = k->emit_vtx;
        s.emit_prim = k->emit_prim, s.emit_winding = k->emit_winding;
    }
    return execute(&s);
}

pvk_result pvk_sh_run_unit(const pvk_pica *p, unsigned unit, const float v[PVK_SH_INPUTS][4],
                           float o[PVK_SH_OUTPUTS][4], pvk_sh_emit_fn emit, void *emit_user)
{
    const pvk_shader_unit *sh = &p->sh[unit ? 1 : 0];
    uint32_t base = unit ? PVK_GPUREG_VSH_BASE : PVK_GPUREG_GSH_BASE;
    pvk_sh_run_info info = {
        .unit = sh,
        .entry = pvk_sh_entrypoint(p->regs[base + (PVK_GPUREG_VSH_ENTRYPOINT - PVK_GPUREG_VSH_BASE)]),
        .bools = sh->b,
        .emit = emit,
        .emit_user = emit_user,
    };
    for (unsigned i = 0; i < 4; i++)
        info.ints[i] = sh->i[i];
    return pvk_sh_run(p, &info, v, o);
}

pvk_result pvk_vs_run(const pvk_pica *p, const float v[PVK_SH_INPUTS][4], float o[PVK_SH_OUTPUTS][4])
{
    return pvk_sh_run_unit(p, 1, v, o, NULL, NULL);
}
