/* translator/: a PICA vertex program as GLSL, with the interpreter's
 * semantics (translator/shader.c is the oracle: every rule below is one of
 * its header's rules, reproduced).
 *
 * Shape: straight-line programs (no flow instruction reachable) are straight
 * code (emit_straight), and so are programs whose only flow is LOOPs one
 * after another with straight bodies, a GLSL `for` each (emit_loops).  Every other program is a dispatcher over basic
 * blocks: `uint pica_main()` is a `for (;;) switch (pc)` with one case per
 * basic block of the instructions reachable from the entry point;
 * CALL/IF/LOOP keep the interpreter's explicit stacks (4/8/4 entries, a full
 * stack drops its oldest entry) in private arrays.  So control flow that does
 * not nest (jumps into loops, calls of odd ranges, shared ends) runs exactly
 * as the interpreter runs it; structured emission of structured flow is a
 * later optimisation.  A block ends at a flow
 * instruction, at an undefined opcode, and where some stack may end on
 * PC+1 (the stacks' checks are emitted only there: the set of ends a
 * reachable CALL/IF/LOOP can push is known statically).  Each block adds
 * its length to the step count first: past the budget (pica_max_steps, the
 * interpreter's max_steps) the program stops with PICA_RUNAWAY, so a
 * runaway program terminates on the GPU and says so.
 *
 * Arithmetic: f24 values live in f32 registers, as in the interpreter.
 * Subnormal flushing of inputs, 0 * x = 0 (not NaN) in MUL, MAD, DP3/4/H and DST,
 * "no -0", NaN-ordered MAX/MIN/compares, and rounding to f24 (nearest even
 * on the 16-bit mantissa, flush below / saturate above the normal range) are
 * integer bit operations on the f32 results, so they are exact wherever the
 * f32 operation is (add, multiply, floor; `precise` forbids fused
 * multiply-adds the interpreter does not do).  RCP, RSQ, EX2 and LG2 with
 * PVK_GLSL_VS_F64 compute in double precision: 1/x and sqrt are correctly
 * rounded in double, and rounding those to f32 is exactly the f32 result
 * (53 >= 2*24+2 bits makes double rounding innocuous), and exp2/log2 are
 * evaluated to about 1e-16 and rounded to f32, which matches the correctly
 * rounded f32 function except within 1e-16 of a rounding tie.  Without it
 * they use the GPU's f32 functions (Vulkan: 2.5-3 ulp of f32, so within one
 * f24 ulp after rounding).
 *
 * Interface (the embedding shader declares these before the generated
 * text, so the same text serves a compute harness and a vertex shader):
 *   vec4 pica_fu[96]   float uniforms c0-c95 as f32 (pvk_vs_uniforms_pack)
 *   uvec4 pica_ints    i0-i3, uint pica_bools (b0-b15), uint pica_max_steps
 * It declares vec4 pica_v[16] (inputs, raw f32: truncated to f24 here as the
 * attribute loader does), vec4 pica_o[16] (outputs; unwritten ones keep what
 * the caller put there), the registers pica_r, pica_a0, pica_aL, pica_cmp,
 * pica_steps and pica_end_pc, and `uint pica_main()` returning PICA_OK,
 * PICA_RUNAWAY, PICA_BAD (PC past code memory, undefined opcode, BREAK
 * outside a LOOP: the interpreter's errors) or PICA_FALLBACK (the run left
 * the translated code, see analyse(): run the vertex on the interpreter). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "translator/geometry.h"


/* Helpers every program shares: the interpreter's float rules. */
static const char prelude[] =
    "const uint PICA_OK = 0u, PICA_RUNAWAY = 1u, PICA_BAD = 2u, PICA_FALLBACK = 3u;\n"
    "vec4 pica_v[16], pica_o[16], pica_r[16];\n"
    "ivec2 pica_a0;\n"
    "uint pica_aL, pica_steps, pica_end_pc;\n"
    "bvec2 pica_cmp;\n"
    "uvec2 pica_cs[4]; uint pica_cs_b, pica_cs_n;\n"   /* CALL: end, return */
    "uvec2 pica_is[8]; uint pica_is_b, pica_is_n;\n"   /* IF: end, target */
    "uvec4 pica_ls[4]; uint pica_ls_b, pica_ls_n;\n"   /* LOOP: start, end, remaining, inc | outer aL << 8 */
    "float pica_inf(bool neg) { return uintBitsToFloat(neg ? 0xFF800000u : 0x7F800000u); }\n"
    "bool pica_isnan(float x) { return (floatBitsToUint(x) & 0x7FFFFFFFu) > 0x7F800000u; }\n"
    /* f24_round: nearest even on 16 mantissa bits, +0 below 2^-62, +-inf above */
    "float pica_f24(float x) {\n"
    "  uint u = floatBitsToUint(x);\n"
    "  if ((u & 0x7F800000u) == 0x7F800000u) return x;\n"
    "  u = (u + 0x3Fu + ((u >> 7) & 1u)) & ~0x7Fu;\n"
    "  uint e = (u >> 23) & 0xFFu;\n"
    "  if (e < 65u) return 0.0;\n"
    "  if (e > 190u) return pica_inf((u >> 31) != 0u);\n"
    "  return uintBitsToFloat(u);\n"
    "}\n"
    "vec4 pica_f24(vec4 x) { return vec4(pica_f24(x.x), pica_f24(x.y), pica_f24(x.z), pica_f24(x.w)); }\n"
    /* f24_flush: arithmetic inputs below the f24 normal range (and -0) become +0 */
    /* on the bits: compilers may turn "abs(x) < c ? 0 : x" into "abs(x) >= c ? x : 0" (NaN -> 0) */
    "float pica_flush(float x) { return (floatBitsToUint(x) & 0x7FFFFFFFu) < 0x20800000u ? 0.0 : x; }\n"
    "vec4 pica_flush(vec4 x) { return vec4(pica_flush(x.x), pica_flush(x.y), pica_flush(x.z), pica_flush(x.w)); }\n"
    /* an input register as the loader stores it: truncated to f24 (NaN stays NaN) */
    "float pica_in(float x) {\n"
    "  uint f = floatBitsToUint(x), e = (f >> 23) & 0xFFu;\n"
    "  if (e == 0xFFu) return x;\n"
    "  if (e <= 64u) return 0.0;\n"
    "  if (e >= 191u) return pica_inf((f >> 31) != 0u);\n"
    "  return uintBitsToFloat(f & 0xFFFFFF80u);\n"
    "}\n"
    "vec4 pica_in(vec4 x) { return vec4(pica_in(x.x), pica_in(x.y), pica_in(x.z), pica_in(x.w)); }\n"
    /* a negated source: no -0 */
    "vec4 pica_neg(vec4 x) { uvec4 u = floatBitsToUint(x);\n"
    "  return uintBitsToFloat(mix(u ^ 0x80000000u, uvec4(0u), equal(u & 0x7FFFFFFFu, uvec4(0u)))); }\n"
    /* PICA multiplication of flushed inputs: 0 * inf = 0, NaN * 0 = NaN.  NaN
     * and zero are tested on the bits and first: compilers fold x * 0.0 to 0
     * for a constant zero register, and turn "a == 0 || b == 0 ? 0 : a * b"
     * into fmulz (NaN * 0 = 0). */
    "bool pica_iszero(float x) { return (floatBitsToUint(x) & 0x7FFFFFFFu) == 0u; }\n"
    "float pica_mul(float a, float b) {\n"
    "  if (pica_isnan(a) || pica_isnan(b)) return uintBitsToFloat(0x7FC00000u);\n"
    "  if (pica_iszero(a) || pica_iszero(b)) return 0.0;\n"
    "  precise float p = a * b;\n"
    "  return p;\n"
    "}\n"
    "vec4 pica_mul(vec4 a, vec4 b) { return vec4(pica_mul(a.x, b.x), pica_mul(a.y, b.y), pica_mul(a.z, b.z),\n"
    "  pica_mul(a.w, b.w)); }\n"
    /* a > b ? a : b, spelled so no compiler turns it into fmax (which drops NaN) */
    "float pica_max(float a, float b) { return pica_isnan(a) || pica_isnan(b) ? b : max(a, b); }\n"
    "float pica_min(float a, float b) { return pica_isnan(a) || pica_isnan(b) ? b : min(a, b); }\n"
    "vec4 pica_max(vec4 a, vec4 b) { return vec4(pica_max(a.x, b.x), pica_max(a.y, b.y), pica_max(a.z, b.z),\n"
    "  pica_max(a.w, b.w)); }\n"
    "vec4 pica_min(vec4 a, vec4 b) { return vec4(pica_min(a.x, b.x), pica_min(a.y, b.y), pica_min(a.z, b.z),\n"
    "  pica_min(a.w, b.w)); }\n"
    "vec4 pica_add(vec4 a, vec4 b) { a = pica_flush(a); b = pica_flush(b); precise vec4 s = a + b; return pica_f24(s); }\n"
    /* the interpreter's order: ((0 + p0) + p1) + ... */
    "vec4 pica_dp(vec4 a, vec4 b, uint n, bool h) {\n"
    "  a = pica_flush(a); b = pica_flush(b);\n"
    "  if (h) a.w = 1.0;\n"
    "  precise float s = 0.0;\n"
    "  s += pica_mul(a.x, b.x); s += pica_mul(a.y, b.y); s += pica_mul(a.z, b.z);\n"
    "  if (n == 4u) s += pica_mul(a.w, b.w);\n"
    "  return vec4(pica_f24(s));\n"
    "}\n"
    "vec4 pica_dst(vec4 a, vec4 b) { a = pica_flush(a); b = pica_flush(b);\n"
    "  return vec4(1.0, pica_f24(pica_mul(a.y, b.y)), a.z, b.w); }\n"
    "vec4 pica_mul4(vec4 a, vec4 b) { return pica_f24(pica_mul(pica_flush(a), pica_flush(b))); }\n"
    "vec4 pica_mad(vec4 a, vec4 b, vec4 c) {\n"
    "  vec4 p = pica_f24(pica_mul(pica_flush(a), pica_flush(b)));\n"
    "  precise vec4 s = p + pica_flush(c);\n"
    "  return pica_f24(s);\n"
    "}\n"
    "vec4 pica_sge(vec4 a, vec4 b) { return vec4(a.x >= b.x ? 1.0 : 0.0, a.y >= b.y ? 1.0 : 0.0,\n"
    "  a.z >= b.z ? 1.0 : 0.0, a.w >= b.w ? 1.0 : 0.0); }\n"
    "vec4 pica_slt(vec4 a, vec4 b) { return vec4(a.x < b.x ? 1.0 : 0.0, a.y < b.y ? 1.0 : 0.0,\n"
    "  a.z < b.z ? 1.0 : 0.0, a.w < b.w ? 1.0 : 0.0); }\n"
    "vec4 pica_flr(vec4 a) { return pica_f24(floor(pica_flush(a))); }\n"
    "vec4 pica_litp(vec4 a) {\n"
    "  pica_cmp = bvec2(a.x >= 0.0, a.w >= 0.0);\n"
    "  return vec4(pica_max(a.x, 0.0), pica_max(pica_min(a.y, 127.99609375), -127.99609375), 0.0,\n"
    "              pica_max(a.w, 0.0));\n"
    "}\n"
    /* MOVA: truncation toward zero, NaN reads 0, saturating */
    "int pica_mova(float x) {\n"
    "  if (pica_isnan(x)) return 0;\n"
    "  if (x >= 2147483520.0) return 0x7FFFFFFF;\n"
    "  if (x <= -2147483648.0) return int(0x80000000u);\n"
    "  return int(x);\n"
    "}\n"
    /* a constant through a0.x / a0.y / aL: offsets outside a byte are not applied */
    "vec4 pica_crel(uint base, int off) {\n"
    "  if (off < -128 || off > 127) off = 0;\n"
    "  uint ci = uint(int(base) + off) & 0x7Fu;\n"
    "  return ci >= 96u ? vec4(1.0) : pica_fu[ci];\n"
    "}\n"
    "int pica_al() { return pica_aL >= 128u ? int(pica_aL) - 256 : int(pica_aL); }\n"
    /* the stacks: a full stack drops its oldest entry */
    "void pica_call_push(uint end, uint ret) {\n"
    "  if (pica_cs_n == 4u) { pica_cs_b++; pica_cs_n--; }\n"
    "  pica_cs[(pica_cs_b + pica_cs_n++) & 3u] = uvec2(end, ret);\n"
    "}\n"
    "void pica_if_push(uint end, uint target) {\n"
    "  if (pica_is_n == 8u) { pica_is_b++; pica_is_n--; }\n"
    "  pica_is[(pica_is_b + pica_is_n++) & 7u] = uvec2(end, target);\n"
    "}\n"
    "void pica_loop_push(uint start, uint end, uint iv) {\n"
    "  if (pica_ls_n == 4u) { pica_ls_b++; pica_ls_n--; }\n"
    "  pica_ls[(pica_ls_b + pica_ls_n++) & 3u] = uvec4(start, end, iv & 0xFFu, ((iv >> 16) & 0xFFu) | pica_aL << 8);\n"
    "  pica_aL = (iv >> 8) & 0xFFu;\n"
    "}\n"
    /* BREAK with a LOOP open: its end; the enclosing loop gets its aL back */
    "uint pica_loop_break() {\n"
    "  uvec4 l = pica_ls[(pica_ls_b + --pica_ls_n) & 3u];\n"
    "  if (pica_ls_n > 0u) pica_aL = l.w >> 8;\n"
    "  return l.y;\n"
    "}\n"
    /* The checks on PC+1 = `next`; `npc` is where the program goes otherwise.
     * Applied call, if, loop: each one that hits wins over what came before. */
    "uint pica_call_check(uint next, uint npc) {\n"
    "  uint cpc = next; bool hit = false;\n"
    "  for (uint pops = 1u; pops <= 4u; pops++) {\n" /* at most 4 entries: unrolled, no loop left */
    "    if (pica_cs_n == 0u || pica_cs[(pica_cs_b + pica_cs_n - 1u) & 3u].x != cpc) break;\n"
    "    uint ret = pica_cs[(pica_cs_b + --pica_cs_n) & 3u].y;\n"
    "    if (pops != 4u) cpc = ret;\n" /* 3dbrew: the fourth return in a row is lost */
    "    hit = true;\n"
    "  }\n"
    "  return hit ? cpc : npc;\n"
    "}\n"
    "uint pica_if_check(uint next, uint npc) {\n"
    "  if (pica_is_n > 0u && pica_is[(pica_is_b + pica_is_n - 1u) & 7u].x == next)\n"
    "    return pica_is[(pica_is_b + --pica_is_n) & 7u].y;\n"
    "  return npc;\n"
    "}\n"
    "uint pica_loop_check(uint next, uint npc) {\n"
    "  if (pica_ls_n == 0u) return npc;\n"
    "  uint t = (pica_ls_b + pica_ls_n - 1u) & 3u;\n"
    "  uvec4 l = pica_ls[t];\n"
    "  if (l.y != next) return npc;\n"
    "  pica_aL = (pica_aL + (l.w & 0xFFu)) & 0xFFu;\n"
    "  if (l.z > 0u) { pica_ls[t].z = l.z - 1u; return l.x; }\n"
    "  if (pica_ls_n > 1u) pica_aL = l.w >> 8;\n"
    "  pica_ls_n--;\n"
    "  return next;\n"
    "}\n";

/* RCP, RSQ, EX2, LG2 in double precision (see the top of the file). */
static const char prelude_f64[] =
    "float pica_rcp(float x) { return float(1.0lf / double(x)); }\n"
    "float pica_rsq(float x) { float s = float(sqrt(double(x))); return float(1.0lf / double(s)); }\n"
    "float pica_ex2(float x) {\n"
    "  if (pica_isnan(x) || x >= 128.0) return x >= 128.0 ? pica_inf(false) : x;\n"
    "  if (x < -160.0) return 0.0;\n"
    "  double n = floor(double(x) + 0.5lf), t = (double(x) - n) * 0.6931471805599453094lf;\n"
    "  double p = 1.0lf / 6227020800.0lf;\n" /* Taylor series of e^t to t^13: error < 1e-17 for |t| <= 0.35 */
    "  p = p * t + 1.0lf / 479001600.0lf; p = p * t + 1.0lf / 39916800.0lf; p = p * t + 1.0lf / 3628800.0lf;\n"
    "  p = p * t + 1.0lf / 362880.0lf; p = p * t + 1.0lf / 40320.0lf; p = p * t + 1.0lf / 5040.0lf;\n"
    "  p = p * t + 1.0lf / 720.0lf; p = p * t + 1.0lf / 120.0lf; p = p * t + 1.0lf / 24.0lf;\n"
    "  p = p * t + 1.0lf / 6.0lf; p = p * t + 0.5lf; p = p * t + 1.0lf; p = p * t + 1.0lf;\n"
    "  return float(ldexp(p, int(n)));\n"
    "}\n"
    "float pica_lg2(float x) {\n"
    "  if (pica_isnan(x) || x < 0.0) return uintBitsToFloat(0x7FC00000u);\n"
    "  if (x == 0.0) return pica_inf(true);\n"
    "  if (isinf(x)) return x;\n"
    "  int e; double m = frexp(double(x), e);\n"
    "  if (m < 0.70710678118654752lf) { m *= 2.0lf; e--; }\n"
    "  double s = (m - 1.0lf) / (m + 1.0lf), s2 = s * s, p = 1.0lf / 23.0lf;\n" /* 2 atanh(s) = ln m */
    "  p = p * s2 + 1.0lf / 21.0lf; p = p * s2 + 1.0lf / 19.0lf; p = p * s2 + 1.0lf / 17.0lf;\n"
    "  p = p * s2 + 1.0lf / 15.0lf; p = p * s2 + 1.0lf / 13.0lf; p = p * s2 + 1.0lf / 11.0lf;\n"
    "  p = p * s2 + 1.0lf / 9.0lf; p = p * s2 + 1.0lf / 7.0lf; p = p * s2 + 1.0lf / 5.0lf;\n"
    "  p = p * s2 + 1.0lf / 3.0lf; p = p * s2 + 1.0lf;\n"
    "  return float(double(e) + 2.0lf * s * p * 1.4426950408889634074lf);\n"
    "}\n";
static const char prelude_f32[] =
    "float pica_rcp(float x) { return 1.0 / x; }\n"
    "float pica_rsq(float x) { return 1.0 / sqrt(x); }\n"
    "float pica_ex2(float x) { return exp2(x); }\n"
    "float pica_lg2(float x) {\n"
    "  return pica_isnan(x) || x < 0.0 ? uintBitsToFloat(0x7FC00000u) : x == 0.0 ? pica_inf(true) : log2(x);\n"
    "}\n";
static const char prelude_tail[] =
    "vec4 pica_rcp(vec4 a) { float x = pica_flush(a.x); return vec4(x == 0.0 ? pica_inf(false) : pica_f24(pica_rcp(x))); }\n"
    "vec4 pica_rsq(vec4 a) { float x = pica_flush(a.x);\n"
    "  return vec4(x == 0.0 ? pica_inf(false) : x < 0.0 ? uintBitsToFloat(0x7FC00000u) : pica_f24(pica_rsq(x))); }\n"
    "vec4 pica_ex2(vec4 a) { return vec4(pica_f24(pica_ex2(pica_flush(a.x)))); }\n"
    "vec4 pica_lg2(vec4 a) { return vec4(pica_f24(pica_lg2(pica_flush(a.x)))); }\n";

/* ---- analysis ---- */

enum { K_ALU, K_PLAIN, K_FLOW, K_END, K_UNDEF };

static int kind_of(uint32_t op)
{
    if (pvk_sh_is_mad(op) || pvk_sh_is_cmp(op))
        return K_ALU;
    if (op <= PVK_SH_RSQ || op == PVK_SH_MOVA || op == PVK_SH_MOV || (op >= PVK_SH_DPHI && op <= PVK_SH_SLTI))
        return K_ALU;
    switch (op) {
    case PVK_SH_NOP: case PVK_SH_EMIT: case PVK_SH_SETEMIT: return K_PLAIN; /* EMIT: a NOP on the vertex unit */
    case PVK_SH_END: return K_END;
    case PVK_SH_BREAK: case PVK_SH_BREAKC: case PVK_SH_CALL: case PVK_SH_CALLC: case PVK_SH_CALLU:
    case PVK_SH_IFU: case PVK_SH_IFC: case PVK_SH_LOOP: case PVK_SH_JMPC: case PVK_SH_JMPU:
        return K_FLOW;
    default: return K_UNDEF;
    }
}

#define NPC (PVK_SH_CODE_WORDS + 512) /* targets reach 4095 + 255 + 1 */

typedef struct analysis {
    uint8_t reach[NPC], leader[NPC], call_end[NPC], if_end[NPC], loop_end[NPC];
    uint8_t all_call_end[NPC]; /* of everything reachable without the limits */
    uint32_t count;            /* instructions marked reachable */
    uint32_t hot_count;        /* ... of everything reachable by hot edges, without the limit */
    bool hot_done;             /* all of those are translated */
} analysis;

/* Breadth-first from the queued PCs (work[*head..*tail)), at most up to
 * `limit` instructions marked; a fallthrough onto a possible CALL end goes
 * to `cold` instead when `cold_end` is given. */
static void walk(const uint32_t *code, analysis *a, uint16_t *work, uint32_t *head, uint32_t *tail, uint32_t limit,
                 const uint8_t *cold_end, uint16_t *cold, uint32_t *ncold)
{
#define REACH(t)                                                                   \
    do {                                                                           \
        uint32_t t_ = (t);                                                         \
        if (t_ < PVK_SH_CODE_WORDS && !a->reach[t_] && a->count < limit) {         \
            a->reach[t_] = 1;                                                      \
            a->count++;                                                            \
            work[(*tail)++] = (uint16_t)t_;                                        \
        }                                                                          \
    } while (0)
    while (*head < *tail) {
        uint32_t pc = work[(*head)++], w = code[pc], op = pvk_sh_opcode(w);
        int k = kind_of(op);
        if (k == K_END || k == K_UNDEF)
            continue;
        if (cold_end && cold_end[pc + 1]) {
            if (pc + 1 < PVK_SH_CODE_WORDS && !a->reach[pc + 1])
                cold[(*ncold)++] = (uint16_t)(pc + 1);
        } else {
            REACH(pc + 1);
        }
        if (k != K_FLOW)
            continue;
        uint32_t dst = pvk_sh_f2_dst(w), num = pvk_sh_f2_num(w);
        switch (op) {
        case PVK_SH_CALL: case PVK_SH_CALLC: case PVK_SH_CALLU: REACH(dst); break;
        case PVK_SH_IFU: case PVK_SH_IFC: REACH(dst); REACH(dst + num); break;
        case PVK_SH_LOOP: REACH(dst + 1); break;
        case PVK_SH_JMPC: case PVK_SH_JMPU: REACH(dst); break;
        default: break; /* BREAK, BREAKC: to a LOOP's end, reached from the LOOP */
        }
    }
#undef REACH
}

/* What to translate: what is reachable from the entry point, breadth first,
 * at most MAX_TRANSLATED instructions (the PICA200's 512 words of vertex
 * program memory).  Falling through the end of a subroutine (PC+1 is some
 * CALL's DST+NUM and no return happened) is followed last and for
 * COLD_BUDGET instructions more only: code memory past a program is often
 * leftover words.  A run that leaves the translated set stops with
 * PICA_FALLBACK and the caller runs that vertex on the interpreter. */
#define MAX_TRANSLATED 512u
#define COLD_BUDGET 64u
static void analyse(const uint32_t *code, uint32_t entry, analysis *a)
{
    uint16_t work[PVK_SH_CODE_WORDS], cold[PVK_SH_CODE_WORDS];
    uint32_t head = 0, tail = 0, ncold = 0;
    memset(a, 0, sizeof *a);
    /* pass 1: every CALL end of everything reachable (a superset) */
    a->reach[entry] = 1;
    a->count = 1;
    work[tail++] = (uint16_t)entry;
    walk(code, a, work, &head, &tail, PVK_SH_CODE_WORDS, NULL, NULL, NULL);
    uint8_t *call_end = a->all_call_end;
    for (uint32_t pc = 0; pc < PVK_SH_CODE_WORDS; pc++) {
        uint32_t w = code[pc], op = pvk_sh_opcode(w);
        if (a->reach[pc] && (op == PVK_SH_CALL || op == PVK_SH_CALLC || op == PVK_SH_CALLU))
            call_end[pvk_sh_f2_dst(w) + pvk_sh_f2_num(w)] = 1;
    }
    /* pass 1b: the hot edges without the limit (what a draw needs translated) */
    memset(a->reach, 0, sizeof a->reach);
    head = tail = 0;
    a->reach[entry] = 1;
    a->count = 1;
    work[tail++] = (uint16_t)entry;
    walk(code, a, work, &head, &tail, PVK_SH_CODE_WORDS, call_end, cold, &ncold);
    a->hot_count = a->count;
    ncold = 0;
    /* pass 2: hot edges, then the cold ones within the budget */
    memset(a->reach, 0, sizeof a->reach);
    head = tail = 0;
    a->reach[entry] = 1;
    a->count = 1;
    work[tail++] = (uint16_t)entry;
    walk(code, a, work, &head, &tail, MAX_TRANSLATED, call_end, cold, &ncold);
    a->hot_done = a->count == a->hot_count;
    /* all cold targets at once, breadth first: a run of leftover words after
     * one subroutine does not starve the others */
    uint32_t limit = a->count + COLD_BUDGET;
    for (uint32_t i = 0; i < ncold && a->count < limit; i++) {
        uint32_t t = cold[i];
        if (a->reach[t])
            continue;
        a->reach[t] = 1;
        a->count++;
        work[tail++] = (uint16_t)t;
    }
    walk(code, a, work, &head, &tail, limit, NULL, NULL, NULL);
    /* the stacks' possible ends and the block leaders, from what is translated */
    a->leader[entry] = 1;
    for (uint32_t pc = 0; pc < PVK_SH_CODE_WORDS; pc++) {
        uint32_t w = code[pc], op = pvk_sh_opcode(w);
        if (!a->reach[pc] || kind_of(op) != K_FLOW)
            continue;
        uint32_t dst = pvk_sh_f2_dst(w), num = pvk_sh_f2_num(w);
        switch (op) {
        case PVK_SH_CALL: case PVK_SH_CALLC: case PVK_SH_CALLU: a->call_end[dst + num] = 1; a->leader[dst] = 1; break;
        case PVK_SH_IFU: case PVK_SH_IFC: a->if_end[dst] = 1; a->leader[dst] = a->leader[dst + num] = 1; break;
        case PVK_SH_LOOP: a->loop_end[dst + 1] = 1; a->leader[dst + 1] = 1; break;
        case PVK_SH_JMPC: case PVK_SH_JMPU: a->leader[dst] = 1; break;
        default: break;
        }
    }
    /* after a block end, a new block (loop starts and call returns among them) */
    for (uint32_t pc = 0; pc < PVK_SH_CODE_WORDS; pc++) {
        if (!a->reach[pc])
            continue;
        int k = kind_of(pvk_sh_opcode(code[pc]));
        uint32_t n = pc + 1;
        if (k == K_FLOW || a->call_end[n] || a->if_end[n] || a->loop_end[n])
            a->leader[n] = 1;
    }
}

static bool ends_block(const analysis *a, const uint32_t *code, uint32_t pc)
{
    int k = kind_of(pvk_sh_opcode(code[pc]));
    uint32_t n = pc + 1;
    return k != K_ALU && k != K_PLAIN ? true : a->call_end[n] || a->if_end[n] || a->loop_end[n] || a->leader[n] ||
                                                   n >= PVK_SH_CODE_WORDS || !a->reach[n];
}

/* ---- emission ---- */

/* Source `reg` with relative index `idx` (constants only) through slot `slot` of descriptor `d`. */
static void src(pvk_text *b, const char *name, uint32_t reg, uint32_t idx, uint32_t d, unsigned slot)
{
    char base[48];
    if (reg < 0x10)
        snprintf(base, sizeof base, "pica_v[%u]", reg);
    else if (reg < 0x20)
        snprintf(base, sizeof base, "pica_r[%u]", reg - 0x10);
    else if (!idx)
        snprintf(base, sizeof base, "pica_fu[%u]", reg - 0x20);
    else
        snprintf(base, sizeof base, "pica_crel(%uu, %s)", reg - 0x20,
                 idx == 1 ? "pica_a0.x" : idx == 2 ? "pica_a0.y" : "pica_al()");
    uint32_t sel = pvk_sh_desc_swizzle(d, slot);
    char sw[5];
    for (unsigned i = 0; i < 4; i++)
        sw[i] = "xyzw"[(sel >> (6 - 2 * i)) & 3u];
    sw[4] = 0;
    if (pvk_sh_desc_neg(d, slot))
        pvk_text_put(b, "  vec4 %s = pica_neg(%s.%s);\n", name, base, sw);
    else
        pvk_text_put(b, "  vec4 %s = %s.%s;\n", name, base, sw);
}

static void dst(pvk_text *b, uint32_t reg, uint32_t d)
{
    uint32_t m = pvk_sh_desc_mask(d);
    if (!m)
        return;
    char sw[5];
    unsigned n = 0;
    for (unsigned i = 0; i < 4; i++)
        if (m & (8u >> i))
            sw[n++] = "xyzw"[i];
    sw[n] = 0;
    const char *arr = reg < 0x10 ? "pica_o" : "pica_r";
    uint32_t i = reg < 0x10 ? reg : reg - 0x10;
    if (m == 0xF)
        pvk_text_put(b, "  %s[%u] = t;\n", arr, i);
    else
        pvk_text_put(b, "  %s[%u].%s = t.%s;\n", arr, i, sw, sw);
}

static void cond(pvk_text *b, uint32_t w)
{
    const char *x = pvk_sh_f2_refx(w) ? "pica_cmp.x" : "!pica_cmp.x";
    const char *y = pvk_sh_f2_refy(w) ? "pica_cmp.y" : "!pica_cmp.y";
    switch (pvk_sh_f2_condop(w)) {
    case 0: pvk_text_put(b, "(%s || %s)", x, y); break;
    case 1: pvk_text_put(b, "(%s && %s)", x, y); break;
    case 2: pvk_text_put(b, "(%s)", x); break;
    default: pvk_text_put(b, "(%s)", y); break;
    }
}

static const char *cmp_op(uint32_t op)
{
    static const char *const ops[6] = {"==", "!=", "<", "<=", ">", ">="};
    return op < 6 ? ops[op] : NULL;
}

static void compare(pvk_text *b, const char *comp, uint32_t op)
{
    if (op == 1) /* ordered compare negated: NaN != x is true, as in C */
        pvk_text_put(b, "  pica_cmp.%s = !(a.%s == c.%s);\n", comp, comp, comp);
    else if (op < 6)
        pvk_text_put(b, "  pica_cmp.%s = a.%s %s c.%s;\n", comp, comp, cmp_op(op), comp);
    else
        pvk_text_put(b, "  pica_cmp.%s = true;\n", comp);
}

/* One arithmetic instruction (formats 1, 1i, 1u, 1c, 5, 5i). */
static void alu(pvk_text *b, const uint32_t *opdesc, uint32_t w)
{
    uint32_t op = pvk_sh_opcode(w);
    pvk_text_put(b, "  {\n");
    if (pvk_sh_is_mad(op)) {
        bool inv = pvk_sh_is_inverted(op);
        uint32_t d = opdesc[pvk_sh_f5_desc(w)], idx = pvk_sh_f5_idx(w);
        src(b, "a", pvk_sh_f5_src1(w), 0, d, 0);
        src(b, "c", inv ? pvk_sh_f5i_src2(w) : pvk_sh_f5_src2(w), inv ? 0 : idx, d, 1);
        src(b, "e", inv ? pvk_sh_f5i_src3(w) : pvk_sh_f5_src3(w), inv ? idx : 0, d, 2);
        pvk_text_put(b, "  vec4 t = pica_mad(a, c, e);\n");
        dst(b, pvk_sh_f5_dst(w), d);
    } else if (pvk_sh_is_cmp(op)) {
        uint32_t d = opdesc[pvk_sh_f1_desc(w)];
        src(b, "a", pvk_sh_f1_src1(w), pvk_sh_f1_idx(w), d, 0);
        src(b, "c", pvk_sh_f1_src2(w), 0, d, 1);
        compare(b, "x", pvk_sh_f1c_cmpx(w));
        compare(b, "y", pvk_sh_f1c_cmpy(w));
    } else {
        uint32_t d = opdesc[pvk_sh_f1_desc(w)], idx = pvk_sh_f1_idx(w);
        bool one = op == PVK_SH_EX2 || op == PVK_SH_LG2 || op == PVK_SH_LITP || op == PVK_SH_FLR ||
                   op == PVK_SH_RCP || op == PVK_SH_RSQ || op == PVK_SH_MOV || op == PVK_SH_MOVA;
        if (pvk_sh_is_inverted(op)) {
            src(b, "a", pvk_sh_f1i_src1(w), 0, d, 0);
            src(b, "c", pvk_sh_f1i_src2(w), idx, d, 1);
        } else {
            src(b, "a", pvk_sh_f1_src1(w), idx, d, 0);
            if (!one)
                src(b, "c", pvk_sh_f1_src2(w), 0, d, 1);
        }
        const char *e = NULL;
        switch (op) {
        case PVK_SH_ADD: e = "pica_add(a, c)"; break;
        case PVK_SH_DP3: e = "pica_dp(a, c, 3u, false)"; break;
        case PVK_SH_DP4: e = "pica_dp(a, c, 4u, false)"; break;
        case PVK_SH_DPH: case PVK_SH_DPHI: e = "pica_dp(a, c, 4u, true)"; break;
        case PVK_SH_DST: case PVK_SH_DSTI: e = "pica_dst(a, c)"; break;
        case PVK_SH_MUL: e = "pica_mul4(a, c)"; break;
        case PVK_SH_SGE: case PVK_SH_SGEI: e = "pica_sge(a, c)"; break;
        case PVK_SH_SLT: case PVK_SH_SLTI: e = "pica_slt(a, c)"; break;
        case PVK_SH_MAX: e = "pica_max(a, c)"; break;
        case PVK_SH_MIN: e = "pica_min(a, c)"; break;
        case PVK_SH_EX2: e = "pica_ex2(a)"; break;
        case PVK_SH_LG2: e = "pica_lg2(a)"; break;
        case PVK_SH_LITP: e = "pica_litp(a)"; break;
        case PVK_SH_FLR: e = "pica_flr(a)"; break;
        case PVK_SH_RCP: e = "pica_rcp(a)"; break;
        case PVK_SH_RSQ: e = "pica_rsq(a)"; break;
        case PVK_SH_MOV: e = "a"; break;
        default: break; /* MOVA */
        }
        if (e) {
            pvk_text_put(b, "  vec4 t = %s;\n", e);
            dst(b, pvk_sh_f1_dst(w), d);
        } else {
            if (pvk_sh_desc_mask(d) & 8u)
                pvk_text_put(b, "  pica_a0.x = pica_mova(a.x);\n");
            if (pvk_sh_desc_mask(d) & 4u)
                pvk_text_put(b, "  pica_a0.y = pica_mova(a.y);\n");
        }
    }
    pvk_text_put(b, "  }\n");
}

/* The end of a block at `pc`: the instruction's own flow, then the stack checks on PC+1. */
static void block_end(pvk_text *b, const analysis *a, uint32_t pc, uint32_t w)
{
    uint32_t op = pvk_sh_opcode(w), n = pc + 1;
    uint32_t dst_off = pvk_sh_f2_dst(w), num = pvk_sh_f2_num(w), id = pvk_sh_f3_id(w);
    pvk_text_put(b, "  uint npc = %uu;\n", n);
    switch (kind_of(op) == K_FLOW ? op : 0xFFu) {
    case PVK_SH_BREAK:
    case PVK_SH_BREAKC:
        pvk_text_put(b, "  if (");
        if (op == PVK_SH_BREAKC)
            cond(b, w);
        else
            pvk_text_put(b, "true");
        pvk_text_put(b, ") {\n    if (pica_ls_n == 0u) { pica_end_pc = %uu; return PICA_BAD; }\n"
               "    npc = pica_loop_break();\n  }\n", pc);
        break;
    case PVK_SH_CALL:
    case PVK_SH_CALLC:
    case PVK_SH_CALLU:
        pvk_text_put(b, "  if (");
        if (op == PVK_SH_CALLC)
            cond(b, w);
        else if (op == PVK_SH_CALLU)
            pvk_text_put(b, "((pica_bools >> %uu) & 1u) != 0u", id);
        else
            pvk_text_put(b, "true");
        pvk_text_put(b, ") { pica_call_push(%uu, %uu); npc = %uu; }\n", dst_off + num, n, dst_off);
        break;
    case PVK_SH_IFU:
    case PVK_SH_IFC:
        pvk_text_put(b, "  if (");
        if (op == PVK_SH_IFC)
            cond(b, w);
        else
            pvk_text_put(b, "((pica_bools >> %uu) & 1u) != 0u", id);
        pvk_text_put(b, ") pica_if_push(%uu, %uu); else npc = %uu;\n", dst_off, dst_off + num, dst_off);
        break;
    case PVK_SH_LOOP:
        pvk_text_put(b, "  pica_loop_push(%uu, %uu, pica_ints[%u]);\n", n, dst_off + 1, id & 3u);
        break;
    case PVK_SH_JMPC:
        pvk_text_put(b, "  if (");
        cond(b, w);
        pvk_text_put(b, ") npc = %uu;\n", dst_off);
        break;
    case PVK_SH_JMPU:
        pvk_text_put(b, "  if (((pica_bools >> %uu) & 1u) != %uu) npc = %uu;\n", id, num & 1u, dst_off);
        break;
    default:
        break;
    }
    if (a->call_end[n])
        pvk_text_put(b, "  npc = pica_call_check(%uu, npc);\n", n);
    if (a->if_end[n])
        pvk_text_put(b, "  npc = pica_if_check(%uu, npc);\n", n);
    if (a->loop_end[n])
        pvk_text_put(b, "  npc = pica_loop_check(%uu, npc);\n", n);
    pvk_text_put(b, "  pc = npc;\n");
}

/* The ALU instruction at `q` and the copies of its word that follow it up
 * to `last` (exclusive): a run of one word (unwritten memory is ADDs of
 * zeros) is a loop.  Returns the words emitted. */
static uint32_t alu_run(pvk_text *b, const pvk_vs_program *prog, uint32_t q, uint32_t last)
{
    uint32_t w = prog->code[q], run = 1;
    while (q + run < last && prog->code[q + run] == w)
        run++;
    if (run >= 3)
        pvk_text_put(b, "  for (uint i = 0u; i < %uu; i++)\n", run);
    else
        run = 1;
    alu(b, prog->opdesc, w);
    return run;
}

/* SETEMIT or EMIT of a geometry program (PVK_GLSL_VS_GS). */
static void emit_op(pvk_text *b, uint32_t w, pvk_glsl_vs_stats *st)
{
    st->emit_sites += pvk_sh_opcode(w) == PVK_SH_EMIT;
    if (pvk_sh_opcode(w) == PVK_SH_SETEMIT)
        pvk_text_put(b, "  pica_ev = %uu; pica_ep = %s; pica_ew = %s;\n", pvk_sh_f4_vtx(w),
                     pvk_sh_f4_prim(w) ? "true" : "false", pvk_sh_f4_inv(w) ? "true" : "false");
    else
        pvk_text_put(b, "  pica_emit(pica_ev, pica_ep, pica_ew);\n");
}

/* Straight-line programs: what is reachable from the entry is one run of
 * arithmetic and NOPs ending in END, an undefined opcode or the end of code
 * memory (*last: that word, or PVK_SH_CODE_WORDS).  No stack can be pushed,
 * so the dispatcher's one block is all there is. */
static bool straight_line(const analysis *a, const uint32_t *code, uint32_t entry, bool gs, uint32_t *last)
{
    if (!a->hot_done)
        return false;
    uint32_t pc = entry;
    for (; pc < PVK_SH_CODE_WORDS; pc++) {
        uint32_t op = pvk_sh_opcode(code[pc]);
        int k = kind_of(op);
        if (k == K_FLOW || (!gs && (op == PVK_SH_EMIT || op == PVK_SH_SETEMIT)))
            return false; /* EMIT on the vertex unit: left to the dispatcher */
        if (k == K_END || k == K_UNDEF)
            break;
        if (!a->reach[pc])
            return false; /* past the translated set */
    }
    *last = pc;
    return pc == PVK_SH_CODE_WORDS || a->reach[pc];
}

/* A straight-line program as straight code, without the dispatcher loop,
 * the step check before the block, or any branch around the arithmetic:
 * llvmpipe runs a branch that depends on a uniform (the step budget) with
 * every lane's stores masked, which halved the vertex rate.  The step count
 * is known statically, so the budget picks the status at the end; the
 * registers of a vertex that ran away are not defined (the dispatcher leaves
 * them untouched), its status and PC are the dispatcher's.  A geometry
 * program's EMITs are here too: what an invocation that ran away emitted is
 * the embedding shader's to discard (translator/glsl_gs.c does). */
static void emit_straight(pvk_text *b, const pvk_vs_program *prog, uint32_t last, pvk_glsl_vs_stats *st)
{
    uint32_t entry = prog->entry, end = last < PVK_SH_CODE_WORDS ? last : PVK_SH_CODE_WORDS - 1;
    uint32_t steps = end - entry + 1;
    for (uint32_t q = entry; q < last;) {
        uint32_t w = prog->code[q], op = pvk_sh_opcode(w);
        if (op == PVK_SH_EMIT || op == PVK_SH_SETEMIT) { /* only geometry programs get here */
            emit_op(b, w, st);
            st->emits = true;
        }
        q += kind_of(op) == K_ALU ? alu_run(b, prog, q, last) : 1;
    }
    bool ok = last < PVK_SH_CODE_WORDS && kind_of(pvk_sh_opcode(prog->code[last])) == K_END;
    pvk_text_put(b, "  bool runaway = %uu > pica_max_steps;\n"
                    "  pica_steps = runaway ? 0u : %uu;\n"
                    "  pica_end_pc = runaway ? %uu : %uu;\n"
                    "  return runaway ? PICA_RUNAWAY : %s;\n}\n",
                 steps, steps, entry, last, ok ? "PICA_OK" : "PICA_BAD");
    st->blocks = 1;
    st->instructions = steps;
    st->straight = true;
}

/* Programs whose only flow is LOOPs one after another, each with a straight
 * body (arithmetic and NOPs from LOOP+1 to its DST, DST > LOOP, DST+1 inside
 * code memory), before a straight tail as in straight_line().  Each LOOP
 * runs alone on the loop stack (nothing nests, no stack is pushed
 * otherwise), so its body runs INT.x + 1 times with aL = INT.y, INT.y +
 * INT.z, ... (mod 256), and the outermost loop leaves aL as its last
 * increment made it (translator/shader.c).  Anything else (nesting, shared
 * ends, BREAK, END inside a body, a geometry program) is left to the
 * dispatcher.  At most MAX_LOOPS: llvmpipe counts the iterations of all of
 * an invocation's loops against LP_MAX_TGSI_LOOP_ITERATIONS (65535), and
 * the bodies run up to 256 times each. */
#define MAX_LOOPS 16u
typedef struct loop_seg { uint32_t at, end; } loop_seg; /* the LOOP's PC, its DST (the body's last word) */
static uint32_t loop_line(const analysis *a, const uint32_t *code, uint32_t entry, uint32_t *last, loop_seg *loops)
{
    if (!a->hot_done)
        return 0;
    uint32_t n = 0, pc = entry;
    for (; pc < PVK_SH_CODE_WORDS; pc++) {
        uint32_t w = code[pc], op = pvk_sh_opcode(w);
        int k = kind_of(op);
        if (op == PVK_SH_EMIT || op == PVK_SH_SETEMIT)
            return 0;
        if (k == K_END || k == K_UNDEF)
            break;
        if (!a->reach[pc])
            return 0;
        if (k != K_FLOW)
            continue;
        uint32_t d = pvk_sh_f2_dst(w);
        if (op != PVK_SH_LOOP || n == MAX_LOOPS || d <= pc || d + 1 >= PVK_SH_CODE_WORDS)
            return 0;
        for (uint32_t q = pc + 1; q <= d; q++) {
            uint32_t bop = pvk_sh_opcode(code[q]);
            int bk = kind_of(bop);
            if (!a->reach[q] || (bk != K_ALU && bk != K_PLAIN) || bop == PVK_SH_EMIT || bop == PVK_SH_SETEMIT)
                return 0;
        }
        loops[n++] = (loop_seg){pc, d};
        pc = d; /* on after the body */
    }
    *last = pc;
    return pc == PVK_SH_CODE_WORDS || a->reach[pc] ? n : 0;
}

/* The straight run [q, to) of a loop program. */
static void emit_run(pvk_text *b, const pvk_vs_program *prog, uint32_t q, uint32_t to)
{
    while (q < to)
        q += kind_of(pvk_sh_opcode(prog->code[q])) == K_ALU ? alu_run(b, prog, q, to) : 1;
}

/* A loop_line() program as straight code with a GLSL `for` per LOOP.  The
 * step count is prefix + iterations * body + ..., a function of the integer
 * uniforms: the status, step count and PC are computed at the end as the
 * dispatcher reaches them (its blocks: entry..LOOP, the body, DST+1..next
 * LOOP, ..., the tail; a block that would pass the budget does not start,
 * pica_steps is what the blocks before it counted, pica_end_pc its first
 * PC).  As in emit_straight(), the registers of a vertex that ran away are
 * not defined.  Bodies are emitted word by word (no alu_run loops inside a
 * loop: llvmpipe's iteration limit, see loop_line()). */
static void emit_loops(pvk_text *b, const pvk_vs_program *prog, uint32_t last, const loop_seg *loops, uint32_t nloops,
                       pvk_glsl_vs_stats *st)
{
    uint32_t q = prog->entry, end = last < PVK_SH_CODE_WORDS ? last : PVK_SH_CODE_WORDS - 1;
    pvk_text_put(b, "  uint pica_st = 0u, pica_rpc = 0xFFFFFFFFu, pica_n, pica_inc;\n");
    for (uint32_t j = 0; j < nloops; j++) {
        uint32_t at = loops[j].at, d = loops[j].end, id = pvk_sh_f3_id(prog->code[at]) & 3u, len = d - at;
        emit_run(b, prog, q, at);
        pvk_text_put(b,
                     "  if (pica_rpc == 0xFFFFFFFFu) { if (%uu > pica_max_steps - pica_st) pica_rpc = %uu; else pica_st += %uu; }\n"
                     "  pica_n = (pica_ints[%u] & 0xFFu) + 1u; pica_inc = (pica_ints[%u] >> 16) & 0xFFu;\n"
                     "  pica_aL = (pica_ints[%u] >> 8) & 0xFFu;\n"
                     "  for (uint pica_it = 0u; pica_it < pica_n; pica_it++) {\n",
                     at - q + 1, q, at - q + 1, id, id, id);
        for (uint32_t p = at + 1; p <= d; p++)
            if (kind_of(pvk_sh_opcode(prog->code[p])) == K_ALU)
                alu(b, prog->opdesc, prog->code[p]);
        pvk_text_put(b,
                     "  pica_aL = (pica_aL + pica_inc) & 0xFFu;\n  }\n"
                     "  if (pica_rpc == 0xFFFFFFFFu) { uint k = (pica_max_steps - pica_st) / %uu;\n"
                     "    if (k < pica_n) { pica_st += k * %uu; pica_rpc = %uu; } else pica_st += pica_n * %uu; }\n",
                     len, len, at + 1, len);
        st->instructions += at - q + 1 + len;
        q = d + 1;
    }
    emit_run(b, prog, q, last);
    bool ok = last < PVK_SH_CODE_WORDS && kind_of(pvk_sh_opcode(prog->code[last])) == K_END;
    pvk_text_put(b, "  if (pica_rpc == 0xFFFFFFFFu && %uu > pica_max_steps - pica_st) pica_rpc = %uu;\n"
                    "  bool runaway = pica_rpc != 0xFFFFFFFFu;\n"
                    "  pica_steps = runaway ? pica_st : pica_st + %uu;\n"
                    "  pica_end_pc = runaway ? pica_rpc : %uu;\n"
                    "  return runaway ? PICA_RUNAWAY : %s;\n}\n",
                 end - q + 1, q, end - q + 1, last, ok ? "PICA_OK" : "PICA_BAD");
    st->instructions += end - q + 1;
    st->blocks = 2 * nloops + 1;
    st->loops = nloops;
    st->straight = true;
}

pvk_result pvk_glsl_vertex_program(const pvk_vs_program *prog, char **out, pvk_glsl_vs_stats *stats)
{
    *out = NULL;
    if (prog->entry >= PVK_SH_CODE_WORDS)
        return PVK_ERROR_BAD_DATA; /* the interpreter refuses it at once */
    analysis *a = malloc(sizeof *a);
    if (!a)
        return PVK_ERROR_OUT_OF_MEMORY;
    const uint32_t *code = prog->code;
    analyse(code, prog->entry, a);
    pvk_glsl_vs_stats st = {0};
    pvk_text b = {0};
    bool gs = prog->flags & PVK_GLSL_VS_GS;
    pvk_text_put(&b, "%s%s%s", prelude, (prog->flags & PVK_GLSL_VS_F64) ? prelude_f64 : prelude_f32, prelude_tail);
    if (gs) /* SETEMIT's state; the embedding shader defines pica_emit */
        pvk_text_put(&b, "uint pica_ev; bool pica_ep, pica_ew;\nvoid pica_emit(uint vtxid, bool prim, bool winding);\n");
    pvk_text_put(&b, "uint pica_main() {\n"
            "  for (int i = 0; i < 16; i++) { pica_v[i] = pica_in(pica_v[i]); pica_r[i] = vec4(0.0); }\n"
            "  pica_a0 = ivec2(0); pica_aL = 0u; pica_cmp = bvec2(false); pica_steps = 0u; pica_end_pc = 0u;\n"
            "%s"
            "  pica_cs_b = pica_cs_n = pica_is_b = pica_is_n = pica_ls_b = pica_ls_n = 0u;\n",
        gs ? "  pica_ev = 0u; pica_ep = pica_ew = false;\n" : "");
    uint32_t straight_last;
    bool dispatch = prog->flags & PVK_GLSL_VS_DISPATCH;
    if (!dispatch && straight_line(a, code, prog->entry, gs, &straight_last)) {
        emit_straight(&b, prog, straight_last, &st);
        goto done;
    }
    loop_seg loops[MAX_LOOPS];
    uint32_t nloops = gs || dispatch ? 0 : loop_line(a, code, prog->entry, &straight_last, loops);
    if (nloops) { /* a geometry program's EMITs in a loop: the dispatcher's (glsl_gs.c) */
        emit_loops(&b, prog, straight_last, loops, nloops, &st);
        goto done;
    }
    pvk_text_put(&b, "  uint pc = %uu;\n"
            /* llvmpipe ends an invocation's loops after 65535 iterations in all
             * (LP_MAX_TGSI_LOOP_ITERATIONS): stop short of it and let the
             * interpreter run such a vertex (the helpers have no loops) */
            "  for (uint iters = 0u;; iters++) {\n"
            "  if (iters == %uu) { pica_end_pc = pc; return %s; }\n"
            "  switch (pc) {\n",
        prog->entry, (prog->flags & PVK_GLSL_VS_DRAW) ? PVK_GLSL_VS_DRAW_MAX_BLOCKS : PVK_GLSL_VS_MAX_BLOCKS,
        (prog->flags & PVK_GLSL_VS_DRAW) ? "PICA_RUNAWAY" : "PICA_FALLBACK");
    for (uint32_t pc = 0; pc < PVK_SH_CODE_WORDS; pc++) {
        if (!a->reach[pc] || !a->leader[pc])
            continue;
        uint32_t last = pc;
        while (!ends_block(a, code, last))
            last++;
        uint32_t len = last - pc + 1;
        st.blocks++;
        st.instructions += len;
        pvk_text_put(&b, "  case %uu: {\n  if (pica_steps + %uu > pica_max_steps) { pica_end_pc = %uu; return PICA_RUNAWAY; }\n"
                "  pica_steps += %uu;\n",
            pc, len, pc, len);
        for (uint32_t q = pc; q <= last;) {
            uint32_t w = code[q], op = pvk_sh_opcode(w);
            int k = kind_of(op);
            if (k == K_ALU) {
                q += alu_run(&b, prog, q, last);
                continue;
            }
            if (op == PVK_SH_EMIT || op == PVK_SH_SETEMIT) {
                st.emits = true;
                if (gs)
                    emit_op(&b, w, &st);
            }
            q++;
        }
        uint32_t w = code[last];
        int k = kind_of(pvk_sh_opcode(w));
        if (k == K_END)
            pvk_text_put(&b, "  pica_end_pc = %uu; return PICA_OK;\n", last);
        else if (k == K_UNDEF)
            pvk_text_put(&b, "  pica_end_pc = %uu; return PICA_BAD;\n", last);
        else
            block_end(&b, a, last, w);
        pvk_text_put(&b, "  break; }\n");
    }
    /* past code memory: the interpreter's error; elsewhere: code not translated */
    pvk_text_put(&b, "  default: pica_end_pc = pc; return pc < %uu ? PICA_FALLBACK : PICA_BAD;\n  }\n  }\n  return PICA_BAD;\n}\n",
        PVK_SH_CODE_WORDS);
done:
    st.complete = a->hot_done;
    free(a);
    pvk_result r = pvk_text_take(&b, out);
    if (r)
        return r;
    if (stats)
        *stats = st;
    return PVK_SUCCESS;
}

void pvk_vs_uniforms_pack(const pvk_shader_unit *unit, uint32_t bools, const uint32_t ints[4], uint32_t max_steps,
                          pvk_fu_memo *memo, pvk_vs_uniforms *out)
{
    memset(out, 0, sizeof *out);
    if (!memo) {
        for (unsigned i = 0; i < PVK_SH_FLOAT_UNIFORMS; i++)
            for (unsigned c = 0; c < 4; c++)
                out->f[i][c] = pvk_sh_f24_value(unit->f[i][c]);
    } else {
        if (!memo->valid || memcmp(memo->words, unit->f, sizeof memo->words)) {
            for (unsigned i = 0; i < PVK_SH_FLOAT_UNIFORMS; i++) {
                if (memo->valid && !memcmp(memo->words[i], unit->f[i], sizeof memo->words[i]))
                    continue;
                for (unsigned c = 0; c < 4; c++)
                    memo->f[i][c] = pvk_sh_f24_value(unit->f[i][c]);
            }
            memcpy(memo->words, unit->f, sizeof memo->words);
            memo->valid = true;
        }
        memcpy(out->f, memo->f, sizeof out->f);
    }
    for (unsigned i = 0; i < 4; i++)
        out->i[i] = ints[i];
    out->b = bools & 0xFFFFu;
    out->max_steps = max_steps ? max_steps : PVK_SH_MAX_STEPS;
}

/* ---- the vertex stage of draws ---- */

/* What the generated shader writes: shaders/draw.vert's interface, which
 * every fragment shader of glsl_fs.c reads. */
static const char vs_head[] =
    "#version 460\n"
    "layout(location = 0) out vec4 color;\n"
    "layout(location = 2) out float clip_w;\n"
    "layout(location = 3) out vec4 tc01;\n"
    "layout(location = 4) out vec3 tc2w;\n"
    "layout(location = 5) out vec4 quat;\n"
    "layout(location = 6) out vec3 view;\n"
    "layout(push_constant) uniform Push { vec4 clip_plane; uint clip_enable; };\n"
    "out float gl_ClipDistance[1];\n"
    /* pvk_vs_draw_uniforms */
    "layout(std430, set = 0, binding = %u) readonly buffer PicaVs {\n"
    "  vec4 pica_fu[96]; uvec4 pica_ints; uint pica_bools; uint pica_max_steps; uint pica_pad0, pica_pad1;\n"
    "  vec4 pica_fixed[12]; };\n"
    /* pvk_vs_status: the draw's entry is the instance index (vkCmdDraw's
     * firstInstance), so draws of a batch share one descriptor */
    "struct PicaSt { uint kinds; uint stop_pc[3]; };\n"
    "layout(std430, set = 0, binding = %u) buffer PicaStatus { PicaSt pica_st[]; };\n";

pvk_result pvk_glsl_program_whole(const pvk_vs_program *prog, char **body, pvk_glsl_vs_stats *st)
{
    pvk_result r = pvk_glsl_vertex_program(prog, body, st);
    if (r)
        return r == PVK_ERROR_BAD_DATA ? PVK_ERROR_MISSING_FEATURE : r;
    if (!st->complete) {
        free(*body);
        *body = NULL;
        return PVK_ERROR_MISSING_FEATURE;
    }
    return PVK_SUCCESS;
}

pvk_result pvk_glsl_vertex_shader(const pvk_vs_key *key, const uint32_t *code, const uint32_t *opdesc, char **out)
{
    *out = NULL;
    pvk_vs_program prog = {code, opdesc, key->entry, key->flags | PVK_GLSL_VS_DRAW};
    char *body = NULL;
    pvk_glsl_vs_stats st;
    pvk_result r = pvk_glsl_program_whole(&prog, &body, &st);
    if (r)
        return r;
    pvk_text b = {0};
    pvk_text_put(&b, vs_head, PVK_DRAW_BINDING_VS, PVK_DRAW_BINDING_VS_STATUS);
    /* attribute i at location i: integers as integers (exact), floats raw
     * (pica_main truncates them to f24 as the loader does); components the
     * format lacks read 0, 0, 0, 1 as the PICA's do */
    for (unsigned i = 0; i < 12; i++)
        if (key->fmt[i])
            pvk_text_put(&b, "layout(location = %u) in %s pica_attr%u;\n", i,
                         (key->fmt[i] - 1) % 4 == 1 ? "uvec4" : (key->fmt[i] - 1) % 4 == 3 ? "vec4" : "ivec4", i);
    pvk_text_put(&b, "%s", body);
    free(body);
    pvk_text_put(&b, "void main() {\n"
                     "  for (int i = 0; i < 16; i++) { pica_v[i] = vec4(0.0); pica_o[i] = vec4(0.0); }\n");
    for (unsigned i = 0; i < 12; i++) { /* in attribute order: a later one mapped to the same register wins */
        if (key->fmt[i])
            pvk_text_put(&b, "  pica_v[%u] = vec4(pica_attr%u);\n", key->reg[i] & 15u, i);
        else if (key->fixed & (1u << i))
            pvk_text_put(&b, "  pica_v[%u] = pica_fixed[%u];\n", key->reg[i] & 15u, i);
    }
    pvk_text_put(&b, "  uint st = pica_main();\n"
                     "  vec4 pos = vec4(0.0, 0.0, 0.0, 1.0), q = vec4(0.0), col = vec4(0.0, 0.0, 0.0, 1.0);\n"
                     "  vec4 t01 = vec4(0.0); vec3 t2w = vec3(0.0), vw = vec3(0.0);\n");
    /* the output map (pvk_vs_outmap): semantic -> variable component */
    static const char *const sem[24] = {
        "pos.x", "pos.y", "pos.z", "pos.w", "q.x",   "q.y",   "q.z",   "q.w",   "col.x", "col.y", "col.z", "col.w",
        "t01.x", "t01.y", "t01.z", "t01.w", "t2w.z", NULL,    "vw.x",  "vw.y",  "vw.z",  NULL,    "t2w.x", "t2w.y",
    };
    for (unsigned s = 0; s < 24; s++)
        if (sem[s] && key->sem_src[s] != PVK_VS_SEM_NONE)
            pvk_text_put(&b, "  %s = pica_o[%u].%c;\n", sem[s], (key->sem_src[s] >> 2) & 15u,
                         "xyzw"[key->sem_src[s] & 3u]);
    pvk_text_put(&b,
                 /* a vertex the program did not finish: no triangle of it is
                  * drawn, and the runtime reports the draw (pvk_vs_status) */
                 "  if (st != PICA_OK) {\n"
                 "    pos = vec4(uintBitsToFloat(0x7FC00000u));\n"
                 "    atomicOr(pica_st[gl_InstanceIndex].kinds, 1u << st);\n"
                 "    atomicMin(pica_st[gl_InstanceIndex].stop_pc[st - 1u], pica_end_pc);\n"
                 "  }\n"
                 /* colours: absolute value, saturated (pvk_vs_outmap) */
                 "  col = abs(col);\n"
                 "  col = vec4(col.x > 1.0 ? 1.0 : col.x, col.y > 1.0 ? 1.0 : col.y, col.z > 1.0 ? 1.0 : col.z,\n"
                 "             col.w > 1.0 ? 1.0 : col.w);\n"
                 /* shaders/draw.vert from here */
                 "  gl_Position = vec4(pos.x, pos.y, -pos.z, pos.w);\n"
                 "  gl_ClipDistance[0] = clip_enable != 0u ? dot(clip_plane, pos) : 1.0;\n"
                 "  color = col;\n"
                 "  clip_w = pos.w;\n"
                 "  tc01 = t01;\n"
                 "  tc2w = t2w;\n"
                 "  quat = q;\n"
                 "  view = vw;\n"
                 "}\n");
    return pvk_text_take(&b, out);
}
