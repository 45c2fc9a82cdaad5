/* Fuzz target: the GPU vertex and geometry paths against the CPU
 * interpreter.  Each input builds one draw (a vertex program, and in half
 * of the inputs a geometry program in point mode after it, their
 * uniforms, vertices and the draw) and writes it identically into two
 * contexts: one draws with the programs on the GPU (translator/glsl_vs.c as
 * the vertex stage, or the geometry pre-pass of translator/glsl_gs.c), the
 * other with PVK_DEBUG=cpu-vs (translator/shader.c).  Programs are mostly
 * valid so that most inputs draw something: words from the input with their
 * opcodes and flow targets made sane (undefined opcodes become arithmetic;
 * END, and BREAK/BREAKC outside a LOOP's body, become NOPs; jumps, IFs and
 * LOOPs go forward inside the program; CALLs go to a subroutine area; loops
 * count to 7; the geometry program reads only the inputs its unit fills),
 * inside a fixed frame that sets a0, writes the colour (half the time the
 * low mantissa bits of a temporary, so that a rounding difference shows) and
 * a position near the vertex's own.  Flag bit 5 keeps the words raw instead
 * (undefined opcodes, BREAK, backward jumps: runaways).
 *
 * What must agree (docs/shaders.md: both paths hand the rasterizer the same
 * f32 values, the translation being bit-exact f24 arithmetic):
 *  - when neither context reports bad vertices (pvk_stats.bad_input
 *    unchanged, the draw's register write succeeded): the colour buffers
 *    byte for byte, and after a geometry draw the geometry unit's float
 *    uniforms;
 *  - when the CPU path reports bad vertices (a runaway, an undefined opcode,
 *    BREAK outside a loop), the GPU path must report them too; the pictures
 *    are not compared (the CPU path stops the draw at the first such vertex,
 *    the GPU path drops only those vertices);
 *  - when only the GPU path reports, it is a mismatch if the CPU path ran
 *    the whole draw in at most 16384 instructions (no GPU limit applies
 *    below that: 2^20 instructions, 16384 basic blocks per vertex).
 * Not compared: a geometry draw the GPU path drew short by design
 * (pvk_stats.gs_excess_triangles: a program whose emits the code does not
 * bound, the first time it wants more triangle slots than learned).
 * A Vulkan validation message or a context that stops working fails too.
 * A mismatch prints the case (program words with their opcodes, uniforms,
 * the interpreter's outputs, vertices, the first differing pixels) and
 * aborts.
 *
 * Input: byte 0 flags (bit 0 geometry program; bits 1-2 DRAWARRAYS, from an
 * offset, u8 or u16 DRAWELEMENTS; bits 3-4 PRIMITIVE_CONFIG mode; bit 5 raw
 * words; bit 6 loop counts up to 255; bit 7 the body's own o0 is the
 * position), byte 1 vertex count, byte 2 body lengths, bytes 3-10 the seed
 * of what the input does not give (uniforms, vertices, descriptors), then
 * 32-bit instruction words, bytes of choices, and (index, value) patches of
 * float uniforms and descriptors.  Past the input's end the seed's
 * generator continues, so every input, short ones too, is a whole case. */
#define _GNU_SOURCE /* mkdtemp, nftw */
#include <dlfcn.h>
#include <ftw.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "picavk/picavk.h"
#include "runtime/runtime.h"
#include "translator/geometry.h"
#include "translator/regs.h"

#define FB 0x18000000u /* colour buffer, W x H RGBA8 */
#define VB 0x18200000u /* NVERT vertices: four float4 attributes, 64 bytes apart */
#define IB 0x18210000u /* indices */
#define W 64u
#define H 48u
#define NVERT 32u
#define SUB 0x100u     /* the subroutine area: SUB_LEN words, then END */
#define SUB_LEN 16u
#define CODE_WORDS (SUB + SUB_LEN + 1)
#define MAX_BODY 48u
#define GS_MAX_GROUPS 6u
/* The most instructions a draw may take on the CPU path for a report of
 * bad vertices by the GPU path alone to be a mismatch (the vertex stage's
 * basic-block limit, PVK_GLSL_VS_DRAW_MAX_BLOCKS). */
#define STEPS_NO_GPU_LIMIT 16384u

enum { OP_MOV = 0x13, OP_MOVA = 0x12, OP_NOP = 0x21, OP_END = 0x22, OP_SETEMIT = 0x2B, OP_EMIT = 0x2A };

static pvk_context *gpu, *cpu;
static char cache_dir[64];
static char last_error[512]; /* the last error either context logged */
static int verbose; /* PVK_FUZZ_VERBOSE=1: a line per input compared and the log; 2: each case too */

/* ---- the input as a stream of choices ---- */

static const uint8_t *in_p;
static size_t in_n;
static uint64_t rng;

static uint32_t rnd32(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (uint32_t)((rng * 0x2545F4914F6CDD1Dull) >> 32);
}

/* The next input byte, or the generator's once the input is used up. */
static uint32_t take8(void)
{
    if (in_n) {
        in_n--;
        return *in_p++;
    }
    return rnd32() & 0xFF;
}

static uint32_t take32(void)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= take8() << (8 * i);
    return v;
}

/* ---- the case ---- */

typedef struct unit_prog {
    uint32_t code[CODE_WORDS];
    uint32_t desc[32];
    uint32_t f[96][4]; /* f24 */
    uint32_t ints[4], bools;
} unit_prog;

static struct {
    uint32_t flags;
    bool gs, raw;
    unit_prog vs, gsp;
    float vdata[NVERT][16];
    uint32_t mode, draw, count, offset, per;
    uint16_t index[256];
} C;

static uint32_t f1(uint32_t op, uint32_t dst, uint32_t src1, uint32_t src2, uint32_t desc)
{
    return op << 26 | dst << 21 | src1 << 12 | src2 << 7 | desc;
}

/* MAD dst, src1 (v/r), src2 (any), src3 (v/r) with descriptor `desc`. */
static uint32_t mad(uint32_t dst, uint32_t src1, uint32_t src2, uint32_t src3, uint32_t desc)
{
    return 7u << 29 | dst << 24 | src1 << 17 | src2 << 10 | src3 << 5 | desc;
}

static uint32_t opdesc_identity(uint32_t mask) { return mask | 0x1Bu << 5 | 0x1Bu << 14 | 0x1Bu << 23; }

static uint32_t f24_of(float x)
{
    uint32_t b;
    memcpy(&b, &x, 4);
    return pvk_f32_to_f24(b);
}

static uint32_t set_dst(uint32_t w, uint32_t dst) { return (w & ~(0xFFFu << 10)) | dst << 10; }
static uint32_t set_num(uint32_t w, uint32_t num) { return (w & ~0xFFu) | num; }

static bool undefined_op(uint32_t op)
{
    return op == 0x10 || op == 0x11 || (op >= 0x14 && op <= 0x17) || (op >= 0x1C && op <= 0x1F);
}

/* The source field of `bits` bits at `shift`: an input register (v0-v15)
 * becomes one of the `inputs` the geometry unit fills (reading the others
 * reads what an earlier invocation left: the CPU path's alone). */
static uint32_t fill_src(uint32_t w, unsigned shift, unsigned bits, uint32_t inputs)
{
    uint32_t mask = (1u << bits) - 1, v = (w >> shift) & mask;
    return v < 0x10 ? (w & ~(mask << shift)) | (v % inputs) << shift : w;
}

static uint32_t geometry_inputs(uint32_t w, uint32_t inputs)
{
    uint32_t op = w >> 26;
    if (op >= 0x38) /* MAD: src1 5 bits, src2 7, src3 5 */
        return fill_src(fill_src(fill_src(w, 17, 5, inputs), 10, 7, inputs), 5, 5, inputs);
    if (op >= 0x30) /* MADI: src1 5, src2 5, src3 7 */
        return fill_src(fill_src(fill_src(w, 17, 5, inputs), 12, 5, inputs), 5, 7, inputs);
    if (op >= 0x18 && op <= 0x1B) /* inverted format 1: src1 5, src2 7 */
        return fill_src(fill_src(w, 14, 5, inputs), 7, 7, inputs);
    if (op < 0x20 || op == 0x2E || op == 0x2F) /* format 1 and CMP: src1 7, src2 5 */
        return fill_src(fill_src(w, 12, 7, inputs), 7, 5, inputs);
    return w;
}

/* The LOOPs made so far (first word, last word of the body): a BREAK is
 * kept inside one only.  Flow may still jump into a loop from outside. */
#define MAX_LOOPS 64
static uint32_t loops[MAX_LOOPS][2], n_loops;

static bool in_loop(uint32_t pc)
{
    for (uint32_t i = 0; i < n_loops; i++)
        if (pc > loops[i][0] && pc <= loops[i][1])
            return true;
    return false;
}

/* A body word at `pc` whose region's code ends before `end` (the region's
 * last word, which flow may reach but not pass): sane flow as the file's
 * header says.  `in_sub`: no calls (no recursion); `geometry`: EMIT and
 * SETEMIT kept. */
static uint32_t sane(uint32_t w, uint32_t pc, uint32_t end, bool in_sub, bool geometry)
{
    uint32_t op = w >> 26, dst = (w >> 10) & 0xFFF, num = w & 0xFF;
    if (C.raw) { /* as it is, but flow stays in written code */
        if (op >= 0x23 && op <= 0x2D && op != OP_EMIT && op != OP_SETEMIT)
            w = set_dst(w, dst % CODE_WORDS);
        return w;
    }
    if (undefined_op(op)) {
        op &= 0x0F;
        w = (w & 0x03FFFFFFu) | op << 26;
    }
    switch (op) {
    case 0x20: case 0x23: /* BREAK, BREAKC: an error outside a loop */
        if (!in_loop(pc))
            return (uint32_t)OP_NOP << 26;
        return w;
    case OP_END: /* before the position is written: nothing drawn */
        return (uint32_t)OP_NOP << 26;
    case 0x24: case 0x25: case 0x26: { /* CALL, CALLC, CALLU */
        if (in_sub)
            return (uint32_t)OP_NOP << 26;
        uint32_t at = dst % SUB_LEN;
        return set_num(set_dst(w, SUB + at), 1 + num % (SUB_LEN - at));
    }
    case 0x27: case 0x28: { /* IFU, IFC: ELSE part at dst, num words long */
        uint32_t else_at = pc + 1 + dst % (end - pc);
        return set_num(set_dst(w, else_at), num % (end - else_at + 1));
    }
    case 0x29: /* LOOP: body up to dst */
        w = set_dst(w, pc + 1 + dst % (end - pc));
        if (n_loops < MAX_LOOPS)
            loops[n_loops][0] = pc, loops[n_loops++][1] = (w >> 10) & 0xFFF;
        return w;
    case 0x2C: case 0x2D: /* JMPC, JMPU */
        return set_dst(w, pc + 1 + dst % (end - pc));
    case OP_EMIT:
        return geometry ? w : (uint32_t)OP_NOP << 26;
    case OP_SETEMIT: /* vertex id 3 is a guest error the CPU path logs per EMIT */
        return !geometry ? (uint32_t)OP_NOP << 26 : ((w >> 24) & 3) == 3 ? w & ~(1u << 24) : w;
    default:
        return geometry ? geometry_inputs(w, 2 * C.per) : w;
    }
}

/* An f24 uniform component: specials, small integers, moderate values. */
static uint32_t rnd_uniform(void)
{
    static const uint32_t special[] = {0x7F0000u, 0xFF0000u, 0x7F0001u, 0x800000u, 0x00FFFFu, 0x010000u, 0,
                                       0x3F0000u, 0xBF0000u, 0x3E0000u, 0x400000u};
    uint32_t k = rnd32() % 8;
    if (k == 0)
        return special[rnd32() % (sizeof special / sizeof special[0])];
    if (k < 4)
        return f24_of((float)((int32_t)(rnd32() % 9) - 4));
    if (k < 7)
        return (rnd32() & 0x80FFFFu) | (0x3Au + rnd32() % 8) << 16; /* about 2^-5 .. 2^3 */
    return rnd32() & 0xFFFFFFu;
}

static void uniforms(unit_prog *u)
{
    u->desc[0] = opdesc_identity(0xF);
    for (uint32_t d = 1; d < 30; d++)
        u->desc[d] = rnd32() % 3 ? (rnd32() % 4 ? 0xFu : rnd32() % 16) | (rnd32() & 0x7FFFFFF0u)
                                 : opdesc_identity(0xF);
    u->desc[29] = opdesc_identity(0xF) | 1u << 13; /* src2 negated: a - b */
    u->desc[30] = opdesc_identity(0xC); /* xy: MOVA */
    u->desc[31] = opdesc_identity(0xF);
    for (uint32_t i = 0; i < 96; i++)
        for (uint32_t c = 0; c < 4; c++)
            u->f[i][c] = rnd_uniform();
    /* the frame's constants: c95 scales a temporary into the position, c94
     * holds a0, c80-c87 the geometry program's corner offsets */
    float scale = 1.0f / 8;
    uint32_t c95[4] = {f24_of(scale), f24_of(scale), 0, 0};
    memcpy(u->f[95], c95, sizeof c95);
    for (uint32_t c = 0; c < 4; c++) { /* the clamp of that temporary; the scale that shows low bits */
        u->f[92][c] = f24_of(-4.0f), u->f[93][c] = f24_of(4.0f);
        u->f[91][c] = (63u + 4 + rnd32() % 13) << 16; /* 2^4 .. 2^16 */
    }
    for (uint32_t c = 0; c < 4; c++)
        u->f[94][c] = f24_of((float)(rnd32() % 4));
    for (uint32_t i = 80; i < 88; i++) {
        u->f[i][0] = f24_of((float)((int32_t)(rnd32() % 61) - 30) / 100.0f);
        u->f[i][1] = f24_of((float)((int32_t)(rnd32() % 61) - 30) / 100.0f);
        u->f[i][2] = u->f[i][3] = 0;
    }
    for (uint32_t i = 0; i < 4; i++) {
        uint32_t v = take32();
        if (!(C.flags & 0x40))
            v &= ~0xF8u; /* count 0-7 */
        u->ints[i] = v & 0xFFFFFFu;
    }
    u->bools = take8() | take8() << 8;
}

/* Patches from the input: (index, value) over float uniform components and
 * descriptors 1-29 of the unit. */
static void patches(unit_prog *u)
{
    uint32_t n = take8() % 8;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t at = take8() | take8() << 8, v = take32();
        at %= 96 * 4 + 29;
        if (at < 96 * 4)
            u->f[at / 4][at % 4] = v & 0xFFFFFFu;
        else
            u->desc[1 + at - 96 * 4] = v;
    }
}

/* The vertex program: MOVA a0.xy, c94; the body; the colour (v1, a
 * temporary, or the fraction of a temporary times c91 = 2^4..2^16: its low
 * mantissa bits, where a rounding difference shows in the picture); the
 * position (o0 = v0 + r * c95 with r clamped to c92..c93, or v0, or what
 * the body left); END. */
static void gen_vs(uint32_t len)
{
    unit_prog *u = &C.vs;
    uint32_t *c = u->code, pc = 0;
    c[pc++] = f1(OP_MOVA, 0, 0x20 + 94, 0, 30);
    uint32_t end = 1 + len; /* the colour line */
    for (uint32_t i = 0; i < len; i++, pc++)
        c[pc] = sane(take32(), pc, end, false, false);
    uint32_t k = take8(), r = 0x10 + (k >> 2) % 16;
    if (k % 4 < 2) { /* a temporary or v1 */
        c[pc++] = f1(OP_MOV, 1, k & 1 ? r : 1, 0, 0);
    } else { /* its low bits: o1 = r * c91 - flr(r * c91) */
        c[pc++] = f1(0x08, 0x1E, 0x20 + 91, r, 0);
        c[pc++] = f1(0x0B, 0x1D, 0x1E, 0, 0);
        c[pc++] = f1(0x00, 1, 0x1E, 0x1D, 29);
    }
    k = take8();
    if (C.flags & 0x80)
        c[pc++] = (uint32_t)OP_NOP << 26;
    else if (k % 4 == 0)
        c[pc++] = f1(OP_MOV, 0, 0, 0, 0);
    else { /* r15 = min(max(r, c92), c93); o0 = r15 * c95 + v0 */
        c[pc++] = f1(0x0C, 0x1F, 0x20 + 92, 0x10 + (k >> 2) % 16, 0);
        c[pc++] = f1(0x0D, 0x1F, 0x20 + 93, 0x1F, 0);
        c[pc++] = mad(0, 0x1F, 0x20 + 95, 0, 0);
    }
    c[pc++] = (uint32_t)OP_END << 26;
    for (uint32_t i = 0; i < SUB_LEN; i++)
        c[SUB + i] = sane(take32(), SUB + i, SUB + SUB_LEN, true, false);
    c[SUB + SUB_LEN] = (uint32_t)OP_END << 26;
    uniforms(u);
}

/* The geometry program: every register it reads written first (r0-r15,
 * a0, aL, cmp, o0, o1, a SETEMIT; body words read only the inputs the unit
 * fills), so the GPU path may take it; then three to six groups of body
 * words, each followed by a corner (o0 = an input position + c80..c87),
 * SETEMIT and EMIT; END. */
static void gen_gs(uint32_t len)
{
    unit_prog *u = &C.gsp;
    uint32_t *c = u->code, pc = 0, inputs = 2 * C.per;
    n_loops = 0; /* the vertex program's are elsewhere */
    for (uint32_t r = 0; r < 16; r++) {
        uint32_t k = take8();
        c[pc++] = f1(OP_MOV, 0x10 + r, k & 1 ? k % inputs : 0x20 + (k >> 1) % 96, 0, 0);
    }
    c[pc++] = f1(OP_MOVA, 0, 0x20 + 94, 0, 30);
    c[pc] = 0x29u << 26 | (pc + 1) << 10; /* LOOP i0 over a NOP: sets aL */
    pc++;
    c[pc++] = (uint32_t)OP_NOP << 26;
    c[pc++] = 0x17u << 27 | (take8() % 6) << 24 | (take8() % 6) << 21 | (0x20u + 93) << 12 | 0x10u << 7; /* CMP */
    c[pc++] = f1(OP_MOV, 0, 0, 0, 0);
    c[pc++] = f1(OP_MOV, 1, 1, 0, 0);
    c[pc++] = (uint32_t)OP_SETEMIT << 26;
    uint32_t groups = 3 + take8() % (GS_MAX_GROUPS - 2), each = len / groups; /* a triangle at least */
    uint32_t end = pc + groups * (each + 3); /* END */
    for (uint32_t g = 0; g < groups; g++) {
        for (uint32_t i = 0; i < each; i++, pc++)
            c[pc] = sane(take32(), pc, end, false, true);
        uint32_t k = take8();
        c[pc++] = f1(0x00, 0, 0x20 + 80 + k % 8, 2 * ((k >> 3) % C.per), 0); /* ADD o0, c, v */
        uint32_t vtx = g < 3 ? g : (k >> 5) % 3, prim = g >= 2 && (g == 2 || (k & 0x80));
        c[pc++] = (uint32_t)OP_SETEMIT << 26 | vtx << 24 | prim << 23 | (take8() & 1) << 22;
        c[pc++] = (uint32_t)OP_EMIT << 26;
    }
    c[pc++] = (uint32_t)OP_END << 26;
    for (uint32_t i = 0; i < SUB_LEN; i++)
        c[SUB + i] = sane(take32(), SUB + i, SUB + SUB_LEN, true, true);
    c[SUB + SUB_LEN] = (uint32_t)OP_END << 26;
    uniforms(u);
}

static float rnd_f(float lo, float hi) { return lo + (hi - lo) * (float)(rnd32() % 100001) / 100000.0f; }

static void gen_case(const uint8_t *data, size_t size)
{
    memset(&C, 0, sizeof C);
    n_loops = 0;
    in_p = data, in_n = size;
    C.flags = take8();
    C.gs = C.flags & 1;
    C.raw = C.flags & 0x20;
    C.draw = (C.flags >> 1) & 3;
    C.mode = (C.flags >> 3) & 3;
    uint32_t nbyte = take8(), lens = take8();
    rng = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 8; i++)
        rng = (rng ^ take8()) * 0x100000001B3ull;
    if (!rng)
        rng = 1;
    /* vertices: x, y in the viewport and a little past it, z inside, w 1;
     * colour 0-1; v2, v3 anything the uniforms have (as f32) */
    for (uint32_t v = 0; v < NVERT; v++) {
        float *p = C.vdata[v];
        p[0] = rnd_f(-1.1f, 1.1f), p[1] = rnd_f(-1.1f, 1.1f), p[2] = rnd_f(-0.9f, -0.1f), p[3] = 1.0f;
        for (int k = 4; k < 8; k++)
            p[k] = rnd_f(0.0f, 1.0f);
        for (int k = 8; k < 16; k++) {
            uint32_t b = pvk_f24_to_f32(rnd_uniform());
            memcpy(&p[k], &b, 4);
        }
    }
    gen_vs(lens % (MAX_BODY + 1));
    if (C.gs) {
        C.per = 1 + nbyte % 3;
        C.count = C.per * (2 + (nbyte >> 2) % 7);
        C.mode = C.mode == 3 || C.mode == 1 ? 3 : C.mode; /* strips run across invocations: the CPU's */
        gen_gs((lens >> 2) % (MAX_BODY + 1));
    } else {
        C.count = 3 + nbyte % 30;
    }
    if (C.draw == 1)
        C.offset = take8() % (NVERT - (C.count < NVERT ? C.count : NVERT) + 1);
    for (uint32_t i = 0; i < C.count; i++)
        C.index[i] = (uint16_t)(take8() % NVERT);
    patches(&C.vs);
    if (C.gs)
        patches(&C.gsp);
}

/* ---- writing it into a context ---- */

static pvk_context *cur;
static pvk_result reg(uint32_t id, uint32_t v) { return pvk_mmio_write32(cur, 0x10401000u + 4 * id, v); }

/* Code, descriptors and uniforms of the vertex unit (base 0x2B0) or the
 * geometry unit (0x280): the register blocks are laid out alike. */
static void upload_unit(const unit_prog *u, bool geometry)
{
    uint32_t d = geometry ? PVK_GPUREG_GSH_BOOLUNIFORM - PVK_GPUREG_VSH_BOOLUNIFORM : 0;
    reg(PVK_GPUREG_VSH_BOOLUNIFORM + d, 0x7FFF0000u | u->bools);
    for (uint32_t i = 0; i < 4; i++)
        reg(PVK_GPUREG_VSH_INTUNIFORM_I0 + d + i, u->ints[i]);
    for (uint32_t i = 0; i < 96; i++) {
        uint32_t w[3];
        pvk_pack_f24x4(u->f[i], w);
        reg(PVK_GPUREG_VSH_FLOATUNIFORM_CONFIG + d, i); /* f24 words */
        for (int k = 0; k < 3; k++)
            reg(PVK_GPUREG_VSH_FLOATUNIFORM_DATA + d, w[k]);
    }
    reg(PVK_GPUREG_VSH_CODETRANSFER_CONFIG + d, 0);
    for (uint32_t i = 0; i < CODE_WORDS; i++)
        reg(PVK_GPUREG_VSH_CODETRANSFER_DATA + d, u->code[i]);
    reg(PVK_GPUREG_VSH_CODETRANSFER_END + d, 1);
    reg(PVK_GPUREG_VSH_OPDESCS_CONFIG + d, 0);
    for (uint32_t i = 0; i < 32; i++)
        reg(PVK_GPUREG_VSH_OPDESCS_DATA + d, u->desc[i]);
    reg(PVK_GPUREG_VSH_ENTRYPOINT + d, 0x7FFF0000u);
}

/* The whole case, the draw last; returns the result of the draw's register write. */
static pvk_result apply(pvk_context *c)
{
    cur = c;
    /* target: RGBA8 at FB, the viewport over it, replace blending, TEV
     * passing the primary colour, no depth, culling or scissor */
    reg(PVK_GPUREG_COLORBUFFER_FORMAT, 2);
    reg(PVK_GPUREG_COLORBUFFER_LOC, FB >> 3);
    reg(PVK_GPUREG_COLORBUFFER_READ, 0xF);
    reg(PVK_GPUREG_COLORBUFFER_WRITE, 0xF);
    reg(PVK_GPUREG_DEPTHBUFFER_READ, 0);
    reg(PVK_GPUREG_DEPTHBUFFER_WRITE, 0);
    reg(PVK_GPUREG_FRAMEBUFFER_DIM, W | (H - 1) << 12 | 1u << 24);
    reg(PVK_GPUREG_VIEWPORT_WIDTH, f24_of(W / 2.0f));
    reg(PVK_GPUREG_VIEWPORT_HEIGHT, f24_of(H / 2.0f));
    reg(PVK_GPUREG_VIEWPORT_XY, 0);
    reg(PVK_GPUREG_FACECULLING_CONFIG, 0);
    reg(PVK_GPUREG_SCISSORTEST_MODE, 0);
    reg(PVK_GPUREG_COLOR_OPERATION, 0x00E40100);
    reg(PVK_GPUREG_BLEND_FUNC, 0x01010000);
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, 0xF00);
    static const uint32_t stage[6] = {PVK_GPUREG_TEXENV0_SOURCE, PVK_GPUREG_TEXENV1_SOURCE, PVK_GPUREG_TEXENV2_SOURCE,
                                      PVK_GPUREG_TEXENV3_SOURCE, PVK_GPUREG_TEXENV4_SOURCE, PVK_GPUREG_TEXENV5_SOURCE};
    for (int n = 0; n < 6; n++)
        for (uint32_t k = 0; k < 5; k++)
            reg(stage[n] + k, 0);
    reg(PVK_GPUREG_TEXENV_UPDATE_BUFFER, 0);
    reg(PVK_GPUREG_FRAGOP_ALPHA_TEST, 0);
    /* four float4 attributes in one buffer to v0-v3 */
    reg(PVK_GPUREG_ATTRIBBUFFERS_LOC, VB >> 3);
    reg(PVK_GPUREG_ATTRIBBUFFERS_FORMAT_LOW, 0xFFFF);
    reg(PVK_GPUREG_ATTRIBBUFFERS_FORMAT_HIGH, 3u << 28);
    reg(PVK_GPUREG_ATTRIBBUFFER0_OFFSET, 0);
    reg(PVK_GPUREG_ATTRIBBUFFER0_CONFIG1, 0x3210);
    reg(PVK_GPUREG_ATTRIBBUFFER0_CONFIG2, 64u << 16 | 4u << 28);
    reg(PVK_GPUREG_ATTRIBBUFFER1_CONFIG2, 0);
    reg(PVK_GPUREG_ATTRIBBUFFER2_CONFIG2, 0);
    reg(PVK_GPUREG_VSH_INPUTBUFFER_CONFIG, 0xA0000000u | 3);
    reg(PVK_GPUREG_VSH_NUM_ATTR, 3);
    reg(PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_LOW, 0x3210);
    reg(PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_HIGH, 0);
    /* programs: o0 position, o1 colour */
    reg(PVK_GPUREG_VSH_COM_MODE, C.gs);
    upload_unit(&C.vs, false);
    reg(PVK_GPUREG_VSH_OUTMAP_MASK, 0x3);
    reg(PVK_GPUREG_SH_OUTMAP_TOTAL, 2);
    reg(PVK_GPUREG_SH_OUTMAP_O0, 0x03020100);
    reg(PVK_GPUREG_SH_OUTMAP_O0 + 1, 0x0B0A0908);
    for (uint32_t i = 2; i < 7; i++)
        reg(PVK_GPUREG_SH_OUTMAP_O0 + i, 0x1F1F1F1F);
    if (C.gs) {
        upload_unit(&C.gsp, true);
        reg(PVK_GPUREG_VSH_OUTMAP_TOTAL1, 1);
        reg(PVK_GPUREG_VSH_OUTMAP_TOTAL2, 1);
        reg(PVK_GPUREG_GSH_INPUTBUFFER_CONFIG, 0x08000000u | (2 * C.per - 1));
        reg(PVK_GPUREG_GSH_ATTRIBUTES_PERMUTATION_LOW, 0x76543210u);
        reg(PVK_GPUREG_GSH_ATTRIBUTES_PERMUTATION_HIGH, 0xFEDCBA98u);
        reg(PVK_GPUREG_GSH_OUTMAP_MASK, 0x3);
        reg(PVK_GPUREG_GSH_MISC0, 0); /* point mode */
        reg(PVK_GPUREG_GSH_MISC1, 0);
        reg(PVK_GPUREG_GEOSTAGE_CONFIG, 2);
    } else {
        reg(PVK_GPUREG_GEOSTAGE_CONFIG, 0);
    }
    /* memory: the buffer cleared to a colour no draw makes often */
    pvk_wait_idle(c);
    uint8_t *fb = pvk_guest_ptr(c, FB, W * H * 4);
    for (uint32_t i = 0; i < W * H; i++)
        fb[4 * i] = 0x11, fb[4 * i + 1] = 0x22, fb[4 * i + 2] = 0x33, fb[4 * i + 3] = 0x44;
    pvk_guest_written(c, FB, W * H * 4);
    memcpy(pvk_guest_ptr(c, VB, sizeof C.vdata), C.vdata, sizeof C.vdata);
    pvk_guest_written(c, VB, sizeof C.vdata);
    uint8_t *ib = pvk_guest_ptr(c, IB, 512);
    for (uint32_t i = 0; i < C.count; i++)
        if (C.draw == 2)
            ib[i] = (uint8_t)C.index[i];
        else
            ib[2 * i] = (uint8_t)C.index[i], ib[2 * i + 1] = 0;
    pvk_guest_written(c, IB, 512);
    /* the draw */
    reg(PVK_GPUREG_PRIMITIVE_CONFIG, C.mode << 8 | 1);
    reg(PVK_GPUREG_NUMVERTICES, C.count);
    uint32_t go = PVK_GPUREG_DRAWARRAYS;
    if (C.draw >= 2) {
        reg(PVK_GPUREG_INDEXBUFFER_CONFIG, (IB - VB) | (C.draw == 3 ? 1u << 31 : 0));
        go = PVK_GPUREG_DRAWELEMENTS;
    } else {
        reg(PVK_GPUREG_VERTEX_OFFSET, C.draw == 1 ? C.offset : 0);
    }
    return reg(go, 1);
}

/* ---- reporting ---- */

static struct {
    uint64_t inputs, compared, gpu_vs, gpu_gs, cpu_bad, gpu_only_bad, short_draws, drew;
} counts;

static const char *op_name(uint32_t w)
{
    static const char *names[64] = {
        "add", "dp3", "dp4", "dph", "dst", "ex2", "lg2", "litp", "mul", "sge", "slt", "flr", "max", "min", "rcp", "rsq",
        "?10", "?11", "mova", "mov", "?14", "?15", "?16", "?17", "dphi", "dsti", "sgei", "slti", "?1c", "?1d", "?1e",
        "?1f", "break", "nop", "end", "breakc", "call", "callc", "callu", "ifu", "ifc", "loop", "emit", "setemit",
        "jmpc", "jmpu", "cmp", "cmp", "madi", "madi", "madi", "madi", "madi", "madi", "madi", "madi", "mad", "mad",
        "mad", "mad", "mad", "mad", "mad", "mad"};
    return names[w >> 26] ? names[w >> 26] : "?";
}

static void print_unit(const char *name, const unit_prog *u)
{
    fprintf(stderr, "%s program (pc: word opcode):\n", name);
    for (uint32_t pc = 0; pc < CODE_WORDS; pc++) {
        if (!u->code[pc] && pc < SUB)
            continue;
        fprintf(stderr, "  %03X: %08X %s\n", pc, u->code[pc], op_name(u->code[pc]));
    }
    fprintf(stderr, "  descriptors:");
    for (uint32_t d = 0; d < 32; d++)
        fprintf(stderr, "%s %08X", d % 8 ? "" : "\n   ", u->desc[d]);
    fprintf(stderr, "\n  i0-i3 %06X %06X %06X %06X, b %04X\n  c0-c95 (f24 x y z w):", u->ints[0], u->ints[1],
            u->ints[2], u->ints[3], u->bools);
    for (uint32_t i = 0; i < 96; i++)
        fprintf(stderr, "%s c%u %06X %06X %06X %06X", i % 4 ? "" : "\n   ", i, u->f[i][0], u->f[i][1], u->f[i][2],
                u->f[i][3]);
    fprintf(stderr, "\n");
}

/* Window pixel of tiled RGBA8 byte offset `i` (8x8 tiles, y up). */
static void pixel_of(uint32_t i, uint32_t *x, uint32_t *y)
{
    uint32_t px = i / 4, tile = px / 64, m = px % 64;
    uint32_t tx = (m & 1) | (m >> 1 & 2) | (m >> 2 & 4), ty = (m >> 1 & 1) | (m >> 2 & 2) | (m >> 3 & 4);
    *x = tile % (W / 8) * 8 + tx;
    *y = H - 1 - (tile / (W / 8) * 8 + ty);
}

static void print_case(void)
{
    fprintf(stderr, "flags %02X (%s%s), mode %u, %s of %u vertices (offset %u), %u per geometry invocation\n",
            C.flags, C.gs ? "geometry program" : "vertex program", C.raw ? ", raw words" : "", C.mode,
            C.draw >= 2 ? (C.draw == 2 ? "u8 DRAWELEMENTS" : "u16 DRAWELEMENTS") : "DRAWARRAYS", C.count, C.offset,
            C.per);
    if (C.draw >= 2) {
        fprintf(stderr, "indices:");
        for (uint32_t i = 0; i < C.count; i++)
            fprintf(stderr, " %u", C.index[i]);
        fprintf(stderr, "\n");
    }
    print_unit("vertex", &C.vs);
    if (C.gs)
        print_unit("geometry", &C.gsp);
    /* what the interpreter makes of the first vertices drawn (the CPU
     * context holds the vertex program once the case was applied) */
    for (uint32_t i = 0; i < C.count && i < 4; i++) {
        uint32_t v = C.draw >= 2 ? C.index[i] : C.draw == 1 ? C.offset + i : i;
        float in[16][4] = {{0}}, o[16][4] = {{0}};
        if (v < NVERT)
            memcpy(in, C.vdata[v], sizeof C.vdata[v]);
        pvk_result r = pvk_sh_run_unit(&cpu->pica, 1, (const float(*)[4])in, o, NULL, NULL);
        fprintf(stderr, "vertex %u on the interpreter: %s, o0 (%g %g %g %g), o1 (%g %g %g %g)\n", v,
                pvk_result_string(r), (double)o[0][0], (double)o[0][1], (double)o[0][2], (double)o[0][3],
                (double)o[1][0], (double)o[1][1], (double)o[1][2], (double)o[1][3]);
    }
    fprintf(stderr, "vertices (v0 position, v1 colour, v2, v3):\n");
    for (uint32_t v = 0; v < NVERT; v++) {
        fprintf(stderr, "  %2u:", v);
        for (int k = 0; k < 16; k++)
            fprintf(stderr, " %g", (double)C.vdata[v][k]);
        fprintf(stderr, "\n");
    }
}

/* PVK_FUZZ_DUMP=DIR: both pictures of every input as DIR/NNNNNN-gpu.ppm
 * and -cpu.ppm (upright), to look at. */
static void dump(const char *name, const uint8_t *px)
{
    const char *dir = getenv("PVK_FUZZ_DUMP");
    if (!dir)
        return;
    char path[512];
    snprintf(path, sizeof path, "%s/%06llu-%s.ppm", dir, (unsigned long long)counts.inputs, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return;
    fprintf(f, "P6\n%u %u\n255\n", W, H);
    for (uint32_t row = 0; row < H; row++)
        for (uint32_t x = 0; x < W; x++)
            for (uint32_t i = 0; i < W * H * 4; i += 4) {
                uint32_t px_x, px_y;
                pixel_of(i, &px_x, &px_y);
                if (px_x == x && px_y == H - 1 - row) {
                    uint8_t rgb[3] = {px[i + 3], px[i + 2], px[i + 1]}; /* RGBA8 in memory: A B G R */
                    fwrite(rgb, 1, 3, f);
                    break;
                }
            }
    fclose(f);
}

static void mismatch(const char *what, const uint8_t *a, const uint8_t *b)
{
    fprintf(stderr, "\nfuzz_vs_paths: MISMATCH between the GPU path and the CPU interpreter: %s\n", what);
    print_case();
    if (a && b) {
        int shown = 0, total = 0;
        for (uint32_t i = 0; i < W * H * 4; i += 4)
            if (memcmp(a + i, b + i, 4)) {
                total++;
                uint32_t x, y;
                pixel_of(i, &x, &y);
                if (shown++ < 8)
                    fprintf(stderr, "  pixel (%u, %u): GPU path %02X%02X%02X%02X, CPU path %02X%02X%02X%02X (RGBA)\n",
                            x, y, a[i + 3], a[i + 2], a[i + 1], a[i], b[i + 3], b[i + 2], b[i + 1], b[i]);
            }
        fprintf(stderr, "  %d pixels differ\n", total);
    }
    abort();
}

/* ---- the target ---- */

static void summary(void)
{
    fprintf(stderr,
            "fuzz_vs_paths: %llu inputs: %llu pictures compared (%llu drew pixels), %llu with the vertex "
            "program on the GPU, %llu geometry draws on the GPU; not compared: %llu with bad vertices on both "
            "paths, %llu reported by the GPU path alone past %u instructions, %llu drawn short by design\n",
            (unsigned long long)counts.inputs, (unsigned long long)counts.compared, (unsigned long long)counts.drew,
            (unsigned long long)counts.gpu_vs, (unsigned long long)counts.gpu_gs, (unsigned long long)counts.cpu_bad,
            (unsigned long long)counts.gpu_only_bad, STEPS_NO_GPU_LIMIT, (unsigned long long)counts.short_draws);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void cleanup(void)
{
    summary();
    /* before the libraries' destructors: compile workers may still be building */
    pvk_context_destroy(gpu);
    pvk_context_destroy(cpu);
    gpu = cpu = NULL;
    if (cache_dir[0])
        nftw(cache_dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static void quiet_log(void *user, pvk_log_level level, const char *msg)
{
    if (level == PVK_LOG_ERROR) /* for the report of a context that stopped working */
        snprintf(last_error, sizeof last_error, "[%s] %s", (const char *)user, msg);
    if (verbose)
        fprintf(stderr, "  [%s] %s\n", (const char *)user, msg);
}

static pvk_context *make_context(const char *debug)
{
    if (debug)
        setenv("PVK_DEBUG", debug, 1);
    else
        unsetenv("PVK_DEBUG");
    /* PVK_VALIDATION=1 adds the layer */
    /* waits: a loaded machine under ASan may take longer than the default
     * 10 s for a draw; libFuzzer's -timeout catches what hangs */
    pvk_config cfg = {.log = quiet_log, .log_user = (void *)(debug ? "cpu" : "gpu"),
                      .log_level = verbose ? PVK_LOG_DEBUG : PVK_LOG_ERROR, .wait_timeout_ms = 60000};
    pvk_context *c = NULL;
    if (pvk_context_create(&cfg, &c)) {
        fprintf(stderr, "fuzz_vs_paths: cannot create a context\n");
        exit(1);
    }
    return c;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    /* every input is a new program: its shaders go to a cache directory of
     * this run (removed at exit), not the user's */
    if (!getenv("PVK_CACHE_DIR")) {
        snprintf(cache_dir, sizeof cache_dir, "/tmp/fuzz_vs_paths.XXXXXX");
        if (mkdtemp(cache_dir))
            setenv("PVK_CACHE_DIR", cache_dir, 1);
        else
            cache_dir[0] = 0;
    }
    verbose = getenv("PVK_FUZZ_VERBOSE") ? atoi(getenv("PVK_FUZZ_VERBOSE")) : 0;
    gpu = make_context(NULL);
    cpu = make_context("cpu-vs");
    unsetenv("PVK_DEBUG");
    dlopen("libvulkan_lvp.so", RTLD_LAZY | RTLD_NOLOAD); /* see tests/harness.h */
    atexit(cleanup);
    return 0;
}

uint64_t pvk_fuzz_validation_errors(void);
uint64_t pvk_fuzz_validation_errors(void)
{
    pvk_stats a, b;
    pvk_wait_idle(gpu);
    pvk_wait_idle(cpu);
    pvk_get_stats(gpu, &a);
    pvk_get_stats(cpu, &b);
    return a.validation_errors + b.validation_errors;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    gen_case(data, size);
    counts.inputs++;
    /* both geometry units start from the oracle's state: a draw the CPU
     * path stopped part-way leaves its unit elsewhere than the GPU path's */
    gpu->pica.gs = cpu->pica.gs;
    pvk_stats g0, g1, c0, c1;
    pvk_get_stats(gpu, &g0);
    pvk_get_stats(cpu, &c0);
    uint64_t gv = gpu->pica.counters.gpu_vertices;
    pvk_result gr = apply(gpu);
    pvk_result cr = apply(cpu);
    if (verbose > 1)
        print_case();
    uint64_t cpu_steps = PVK_SHADER_BUDGET - cpu->pica.budget;
    static uint8_t a[W * H * 4], b[W * H * 4];
    pvk_result fg = pvk_guest_flush(gpu, FB, W * H * 4), fc = pvk_guest_flush(cpu, FB, W * H * 4);
    if (fg || fc || pvk_context_status(gpu) || pvk_context_status(cpu)) {
        char why[700];
        snprintf(why, sizeof why, "a context is no longer usable: flush %s / %s, status %s / %s (GPU / CPU path); %s",
                 pvk_result_string(fg), pvk_result_string(fc), pvk_result_string(pvk_context_status(gpu)),
                 pvk_result_string(pvk_context_status(cpu)), last_error);
        mismatch(why, NULL, NULL);
    }
    memcpy(a, pvk_guest_ptr(gpu, FB, W * H * 4), sizeof a);
    memcpy(b, pvk_guest_ptr(cpu, FB, W * H * 4), sizeof b);
    dump("gpu", a);
    dump("cpu", b);
    pvk_get_stats(gpu, &g1);
    pvk_get_stats(cpu, &c1);
    if (g1.validation_errors != g0.validation_errors || c1.validation_errors != c0.validation_errors)
        mismatch("a Vulkan validation message", NULL, NULL);
    bool on_gpu = C.gs ? g1.gs_gpu_draws != g0.gs_gpu_draws : gpu->pica.counters.gpu_vertices != gv;
    counts.gpu_vs += !C.gs && on_gpu;
    counts.gpu_gs += C.gs && on_gpu;
    bool gpu_bad = gr || g1.bad_input != g0.bad_input, cpu_bad = cr || c1.bad_input != c0.bad_input;
    char why[160];
    if (cpu_bad) {
        counts.cpu_bad++;
        if (!gpu_bad)
            mismatch("the CPU path reported bad vertices, the GPU path did not", a, b);
        return 0;
    }
    if (gpu_bad) {
        if (cpu_steps <= STEPS_NO_GPU_LIMIT) {
            snprintf(why, sizeof why,
                     "the GPU path reported bad vertices; the CPU path ran the draw in %llu instructions",
                     (unsigned long long)cpu_steps);
            mismatch(why, a, b);
        }
        counts.gpu_only_bad++;
        return 0;
    }
    if (g1.gs_excess_triangles != g0.gs_excess_triangles) {
        counts.short_draws++;
        return 0;
    }
    counts.compared++;
    for (uint32_t i = 0; i < W * H; i++)
        if (b[4 * i] != 0x11 || b[4 * i + 1] != 0x22 || b[4 * i + 2] != 0x33 || b[4 * i + 3] != 0x44) {
            counts.drew++;
            break;
        }
    if (verbose) {
        uint32_t covered = 0;
        for (uint32_t i = 0; i < W * H; i++)
            covered += memcmp(b + 4 * i, "\x11\x22\x33\x44", 4) != 0;
        fprintf(stderr, "flags %02X: %s, %s path, %u pixels drawn, %llu instructions on the CPU\n", C.flags,
                C.gs ? "geometry" : "vertex", on_gpu ? "GPU" : "CPU", covered, (unsigned long long)cpu_steps);
    }
    if (memcmp(a, b, sizeof a)) {
        snprintf(why, sizeof why, "the colour buffers differ (%s path on the GPU context)", on_gpu ? "GPU" : "CPU");
        mismatch(why, a, b);
    }
    if (C.gs && memcmp(gpu->pica.sh[0].f, cpu->pica.sh[0].f, sizeof gpu->pica.sh[0].f))
        mismatch("the geometry unit's float uniforms differ after the draw", NULL, NULL);
    return 0;
}
