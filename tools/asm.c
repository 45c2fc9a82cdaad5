/* The PICA200 shader assembler: devkitPro picasso syntax (common subset).
 *
 * Encodings: translator/sh_isa.h (3dbrew "GPU/Shader Instruction Set").
 *
 * Supported: every instruction, .proc/.end, ifu/ifc/for blocks with .else and
 * .end, labels, .alias, .fvec/.ivec/.bool, .constf/.consti, .setf/.seti/.setb,
 * .in, .out (position normalquat color texcoord0 texcoord0w texcoord1
 * texcoord2 view dummy and short names, optional mask or register), .entry,
 * swizzles, negation, indexing (c8[4]) and relative addressing
 * (c[a0.x + 3], arr[lcnt+2]; a0/a0.x, a1/a0.y, a2/lcnt/aL), .gsh (point,
 * variable, fixed and the legacy form, see dir_gsh).  Not supported:
 * .constfa arrays, .nodvle.  Several sources make one program (pvk_pica_asm_files).
 *
 * Allocation follows picasso: .fvec/.ivec/.bool from the bottom of their
 * register file, .constf/.consti from the top; padding NOPs where a block
 * would end on a flow-control instruction.  Operand descriptors are shared
 * when the fields an instruction uses agree; they are allocated in program
 * order with picasso's MAD swap (see alloc_opdescs), so the table and the
 * indexes match picasso's.
 *
 * The SHBIN file is the one picasso v2.6+ writes for the supported subset (its
 * frontend read for the layout: DVLE version 0x1002, .in input mask, uniform
 * table sorted by register with '$' spelt '.', one constant table in source
 * order).  Left different, all harmless: explicit dphi/sgei/slti/madi with
 * two narrow sources keep the inverted encoding (picasso decides by the
 * operands; either computes the same); the entry may be a label and main may
 * be missing (picasso refuses both); constants within a factor 2 of the f24
 * range ends or NaN convert as regs.h does (picasso keeps their mantissa). */
#include "tools/asm.h"
#include "tools/tools.h"
#include "translator/regs.h" /* register ids of the upload, f24 conversion */

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ---- limits of the assembler's own tables ---- */
#define MAX_NAME 64
#define MAX_LINE 1024
#define MAX_ALIASES 512
#define MAX_LABELS 512
#define MAX_PROCS 256
#define MAX_RELOCS PVK_SH_CODE_WORDS
#define MAX_DEPTH 16

typedef enum { RK_NONE, RK_V, RK_R, RK_C, RK_I, RK_B, RK_O } rkind;

typedef struct operand {
    rkind kind;
    int index;
    uint8_t swz[4];   /* component read for lanes 0-3 (0 x .. 3 w) */
    bool neg;
    int idx;          /* relative addressing: 0 none, 1 a0.x, 2 a0.y, 3 aL */
} operand;

typedef struct alias {
    char name[MAX_NAME];
    operand op;
} alias;

typedef struct symbol {
    char name[MAX_NAME];
    uint32_t pos, size;
} symbol;

typedef struct reloc {
    char name[MAX_NAME];
    uint32_t at;
    int line;
    bool proc;        /* CALL*: dst and num from a procedure; else dst of a label */
} reloc;

typedef enum { BLK_PROC, BLK_IF, BLK_FOR } blk_type;
typedef struct block {
    blk_type type;
    uint32_t pos, else_pos;
    bool has_else;
    char name[MAX_NAME];
    int line;
} block;

typedef struct asm_state {
    pvk_shbin *out;
    char *err;
    size_t err_len;
    int line;
    bool failed;

    /* operand descriptors wanted per instruction, allocated at the end */
    uint32_t want_val[PVK_SH_CODE_WORDS], want_mask[PVK_SH_CODE_WORDS];
    uint8_t want_kind[PVK_SH_CODE_WORDS]; /* 0 none, 1 7-bit index, 2 5-bit index (MAD) */
    int want_line[PVK_SH_CODE_WORDS];
    uint32_t desc_mask[PVK_SH_OPDESCS];   /* bits some user of each descriptor relies on */
    uint8_t desc_of[PVK_SH_CODE_WORDS];   /* the descriptor each instruction got */

    alias aliases[MAX_ALIASES];
    uint32_t alias_count;
    symbol labels[MAX_LABELS], procs[MAX_PROCS];
    uint32_t label_count, proc_count;
    reloc relocs[MAX_RELOCS];
    uint32_t reloc_count;
    block stack[MAX_DEPTH];
    uint32_t depth;
    bool last_was_end;                    /* the last thing was the end of an IF/FOR */

    char entry[MAX_NAME];
    int entry_line;
    int fvec_lo, fvec_hi, ivec_lo, ivec_hi, bool_lo, bool_hi; /* allocation cursors */
    /* .fvec/.ivec/.bool stop below every .constf/.consti an earlier source of
     * the same program placed (picasso's allocator bound): the lowest such */
    int fvec_cap, ivec_cap, bool_cap;
    uint32_t out_used;                    /* 4 bits per o register: components claimed */

    /* Several sources in one program (pvk_pica_asm_files): each continues
     * the code of the ones before; procedures, operand descriptors and the
     * uniforms of the shared register space (every source but a .gsh with
     * a mode) are the program's, as picasso keeps them. */
    uint32_t base;                        /* code position where this source starts */
    uint32_t file;                        /* which source */
    uint32_t file_base[PVK_SHBIN_MAX_ENTRIES];
    struct { int fvec_lo, ivec_lo, bool_lo, fvec_cap, ivec_cap, bool_cap; } shared;
    struct global_uniform {
        char name[MAX_NAME];
        rkind kind;
        int first, n;
    } globals[PVK_SHBIN_MAX_UNIFORMS];
    uint32_t global_count;
} asm_state;

static bool fail(asm_state *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(asm_state *s, const char *fmt, ...)
{
    if (s->failed)
        return false;
    s->failed = true;
    if (s->err && s->err_len) {
        int n = s->line > 0 ? snprintf(s->err, s->err_len, "line %d: ", s->line) : 0;
        if (n >= 0 && (size_t)n < s->err_len) {
            /* messages quote the source's tokens: no control bytes to the terminal */
            char msg[512];
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(msg, sizeof msg, fmt, ap);
            va_end(ap);
            pvk_escape(msg, s->err + n, s->err_len - (size_t)n);
        }
    }
    return false;
}

/* ---- text helpers ---- */

static char *trim(char *p)
{
    while (*p && isspace((unsigned char)*p))
        p++;
    size_t n = strlen(p);
    while (n && isspace((unsigned char)p[n - 1]))
        p[--n] = 0;
    return p;
}

static bool is_ident(const char *p)
{
    if (!*p || isdigit((unsigned char)*p))
        return false;
    for (; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != '$')
            return false;
    return true;
}

static bool ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return false;
    return *a == *b;
}

/* Split `p` at top-level commas (not inside () or []); returns the count. */
static int split_args(char *p, char **argv, int max)
{
    int n = 0, depth = 0;
    p = trim(p);
    if (!*p)
        return 0;
    argv[n++] = p;
    for (; *p; p++) {
        if (*p == '(' || *p == '[')
            depth++;
        else if ((*p == ')' || *p == ']') && depth)
            depth--;
        else if (*p == ',' && !depth) {
            *p = 0;
            if (n == max)
                return max + 1;
            argv[n++] = p + 1;
        }
    }
    for (int i = 0; i < n; i++)
        argv[i] = trim(argv[i]);
    return n;
}

static bool parse_int(const char *p, long lo, long hi, long *v)
{
    char *end;
    if (!*p)
        return false;
    long x = strtol(p, &end, 0);
    while (isspace((unsigned char)*end))
        end++;
    if (end == p || *end || x < lo || x > hi)
        return false;
    *v = x;
    return true;
}

static bool copy_name(asm_state *s, char *dst, const char *src)
{
    if (strlen(src) >= MAX_NAME)
        return fail(s, "name too long: '%s'", src);
    strcpy(dst, src);
    return true;
}

/* ---- symbols ---- */

static alias *find_alias(asm_state *s, const char *name)
{
    for (uint32_t i = 0; i < s->alias_count; i++)
        if (!strcmp(s->aliases[i].name, name))
            return &s->aliases[i];
    return NULL;
}

static symbol *find_sym(symbol *t, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(t[i].name, name))
            return &t[i];
    return NULL;
}

/* A plain register name: o0-o15 v0-v15 r0-r15 c0-c95 i0-i3 b0-b15. */
static bool reg_name(const char *p, rkind *kind, int *index)
{
    static const struct { char c; rkind k; } t[] = {
        {'o', RK_O}, {'v', RK_V}, {'r', RK_R}, {'c', RK_C}, {'i', RK_I}, {'b', RK_B},
    };
    if (!p[0] || !isdigit((unsigned char)p[1]))
        return false;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        if (tolower((unsigned char)p[0]) != t[i].c)
            continue;
        long v;
        for (const char *q = p + 1; *q; q++)
            if (!isdigit((unsigned char)*q))
                return false;
        if (strlen(p + 1) > 3 || !parse_int(p + 1, 0, 999, &v))
            return false;
        *kind = t[i].k;
        *index = (int)v;
        return true;
    }
    return false;
}

static int reg_count(rkind k)
{
    switch (k) {
    case RK_C: return 96;
    case RK_I: return 4;
    case RK_NONE: return 0;
    default: return 16;
    }
}

static const char *kind_letter(rkind k)
{
    switch (k) {
    case RK_V: return "v";
    case RK_R: return "r";
    case RK_C: return "c";
    case RK_I: return "i";
    case RK_B: return "b";
    case RK_O: return "o";
    default: return "?";
    }
}

/* Swizzle letters (1-4, the last repeats) into lanes.  Like picasso, any of
 * xyzw, rgba and stpq name components 0-3, mixed freely. */
static bool parse_swizzle(const char *p, uint8_t swz[4])
{
    static const char *const sets[] = {"xyzw", "rgba", "stpq"};
    size_t n = strlen(p);
    if (n < 1 || n > 4)
        return false;
    for (size_t i = 0; i < 4; i++) {
        char c = (char)tolower((unsigned char)p[i < n ? i : n - 1]);
        const char *at = NULL;
        size_t k;
        for (k = 0; k < 3 && c && !at; k++)
            at = strchr(sets[k], c);
        if (!at)
            return false;
        swz[i] = (uint8_t)(at - sets[k - 1]);
    }
    return true;
}

static int index_reg(const char *p)
{
    if (ieq(p, "a0") || ieq(p, "a0.x"))
        return 1;
    if (ieq(p, "a1") || ieq(p, "a0.y"))
        return 2;
    if (ieq(p, "a2") || ieq(p, "lcnt") || ieq(p, "al"))
        return 3;
    return 0;
}

/* A register operand: [-]base[ [terms] ][.swizzle] where base is a register,
 * an alias, or `c` alone before brackets (c[a0.x + 3]), and terms add
 * integers and at most one index register. */
static bool parse_operand(asm_state *s, const char *text, operand *op)
{
    char buf[MAX_LINE];
    if (strlen(text) >= sizeof buf)
        return fail(s, "operand too long");
    strcpy(buf, text);
    char *p = trim(buf);
    memset(op, 0, sizeof *op);
    for (int i = 0; i < 4; i++)
        op->swz[i] = (uint8_t)i;
    if (*p == '-') {
        op->neg = true;
        p = trim(p + 1);
    }
    char *swz = NULL, *br = strchr(p, '[');
    long offset = 0;
    if (br) {
        char *close = strchr(br, ']');
        if (!close)
            return fail(s, "missing ']' in '%s'", text);
        *close = 0;
        *br = 0;
        char *rest = trim(close + 1);
        if (*rest == '.')
            swz = rest + 1;
        else if (*rest)
            return fail(s, "unexpected '%s' after ']' in '%s'", rest, text);
        /* terms: [+|-] (integer | index register) ... */
        char *q = trim(br + 1);
        if (!*q)
            return fail(s, "empty index in '%s'", text);
        while (*q) {
            int sign = 1;
            while (*q == '+' || *q == '-' || isspace((unsigned char)*q)) {
                if (*q == '-')
                    sign = -sign;
                q++;
            }
            char term[MAX_NAME];
            size_t n = 0;
            while (*q && *q != '+' && *q != '-' && !isspace((unsigned char)*q) && n < sizeof term - 1)
                term[n++] = *q++;
            term[n] = 0;
            while (isspace((unsigned char)*q))
                q++;
            if (!n)
                return fail(s, "bad index in '%s'", text);
            int ir = index_reg(term);
            long v;
            if (ir) {
                if (op->idx || sign < 0)
                    return fail(s, "bad index register use in '%s'", text);
                op->idx = ir;
            } else if (parse_int(term, -255, 255, &v)) {
                offset += sign * v;
            } else {
                return fail(s, "bad index term '%s' in '%s'", term, text);
            }
        }
    } else {
        char *dot = strchr(p, '.');
        if (dot) {
            *dot = 0;
            swz = dot + 1;
        }
    }
    p = trim(p);
    alias *a = find_alias(s, p);
    if (a) {
        operand base = a->op;
        op->kind = base.kind;
        op->index = base.index;
        op->neg ^= base.neg;
        if (base.idx && op->idx)
            return fail(s, "two index registers in '%s'", text);
        op->idx |= base.idx;
        memcpy(op->swz, base.swz, 4);
    } else if (br && ieq(p, "c")) {
        op->kind = RK_C;
        op->index = 0;
    } else if (!reg_name(p, &op->kind, &op->index)) {
        return fail(s, "invalid register '%s'", p);
    }
    op->index += (int)offset;
    if (op->index < 0 || op->index >= reg_count(op->kind))
        return fail(s, "invalid register '%s' (%s%d is out of range)", text, kind_letter(op->kind), op->index);
    if (swz) {
        uint8_t user[4];
        if (!parse_swizzle(swz, user))
            return fail(s, "invalid swizzle '.%s'", swz);
        uint8_t comb[4];
        for (int i = 0; i < 4; i++)
            comb[i] = op->swz[user[i]];
        memcpy(op->swz, comb, 4);
    }
    return true;
}

static uint32_t selector(const operand *op)
{
    return (uint32_t)op->swz[0] << 6 | (uint32_t)op->swz[1] << 4 | (uint32_t)op->swz[2] << 2 | op->swz[3];
}

/* Destination mask (bit 3 = x) from the lanes a destination names. */
static uint32_t dest_mask(const operand *op)
{
    uint32_t m = 0;
    for (int i = 0; i < 4; i++)
        m |= 8u >> op->swz[i];
    return m;
}

/* ---- operand roles ---- */

static bool src_wide(asm_state *s, const operand *op, const char *text, int n)
{
    if (op->kind != RK_V && op->kind != RK_R && op->kind != RK_C)
        return fail(s, "invalid register for src%d: '%s' (v0-v15, r0-r15 or c0-c95)", n, text);
    return true;
}

static bool src_narrow(asm_state *s, const operand *op, const char *text, int n)
{
    if (op->kind != RK_V && op->kind != RK_R)
        return fail(s, "invalid register for src%d: '%s' (v0-v15 or r0-r15 only)", n, text);
    if (op->idx)
        return fail(s, "relative addressing is not available for src%d: '%s'", n, text);
    return true;
}

static uint32_t src_code(const operand *op)
{
    switch (op->kind) {
    case RK_V: return (uint32_t)op->index;
    case RK_R: return 0x10u + (uint32_t)op->index;
    default: return 0x20u + (uint32_t)op->index;
    }
}

static bool dest(asm_state *s, const char *text, operand *op, uint32_t *code)
{
    if (!parse_operand(s, text, op))
        return false;
    if (op->kind != RK_O && op->kind != RK_R)
        return fail(s, "invalid destination register '%s' (o0-o15 or r0-r15)", text);
    if (op->neg || op->idx)
        return fail(s, "a destination cannot be negated or indexed: '%s'", text);
    *code = op->kind == RK_O ? (uint32_t)op->index : 0x10u + (uint32_t)op->index;
    return true;
}

/* Reading two different input registers in one instruction is not possible. */
static bool inputs_ok(asm_state *s, const operand *a, const operand *b, const operand *c)
{
    const operand *o[3] = {a, b, c};
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (o[i] && o[j] && o[i]->kind == RK_V && o[j]->kind == RK_V && o[i]->index != o[j]->index)
                return fail(s, "source operands must not be different input registers (v%d, v%d)", o[i]->index,
                            o[j]->index);
    return true;
}

/* ---- code emission ---- */

static bool emit(asm_state *s, uint32_t word)
{
    pvk_shbin *o = s->out;
    if (o->code_len >= PVK_SH_CODE_WORDS)
        return fail(s, "program too long (limit %d instructions)", PVK_SH_CODE_WORDS);
    s->want_kind[o->code_len] = 0;
    o->code[o->code_len++] = word;
    s->last_was_end = false;
    return true;
}

/* Operand-descriptor field bits for source n (1-3), and for one lane of it. */
static uint32_t src_field(int n) { return 0x1FFu << (4 + 9 * (n - 1)); }
static uint32_t lane_bits(int n, int lane) { return 3u << (4 + 9 * (n - 1) + 1 + 6 - 2 * lane); }

/* Which descriptor bits `op` depends on, given the value it wants. */
static uint32_t relevant_bits(int op, uint32_t val, int nsrc)
{
    uint32_t m = 0;
    for (int n = 1; n <= nsrc; n++)
        m |= src_field(n);
    if (op != PVK_SH_CMP)
        m |= 0xF;
    switch (op) {
    case PVK_SH_ADD: case PVK_SH_MUL: case PVK_SH_SGE: case PVK_SH_SLT: case PVK_SH_SGEI: case PVK_SH_SLTI:
    case PVK_SH_FLR: case PVK_SH_MAX: case PVK_SH_MIN: case PVK_SH_MOV: case PVK_SH_MAD: case PVK_SH_MADI:
        for (int lane = 0; lane < 4; lane++)
            if (!(val & (8u >> lane)))
                for (int n = 1; n <= nsrc; n++)
                    m &= ~lane_bits(n, lane);
        break;
    case PVK_SH_DP3:
        m &= ~(lane_bits(1, 3) | lane_bits(2, 3));
        break;
    case PVK_SH_DPH: case PVK_SH_DPHI:
        m &= ~lane_bits(1, 3);
        break;
    case PVK_SH_EX2: case PVK_SH_LG2: case PVK_SH_RCP: case PVK_SH_RSQ:
        m &= ~(lane_bits(1, 1) | lane_bits(1, 2) | lane_bits(1, 3));
        break;
    case PVK_SH_MOVA:
        if (!(val & 8))
            m &= ~lane_bits(1, 0);
        if (!(val & 4))
            m &= ~lane_bits(1, 1);
        m &= ~(lane_bits(1, 2) | lane_bits(1, 3));
        break;
    case PVK_SH_CMP:
        /* src2's z w are as unused, but picasso keeps them: share as it does */
        m &= ~(lane_bits(1, 2) | lane_bits(1, 3));
        break;
    }
    return m;
}

/* Emit an instruction that needs an operand descriptor (patched in later). */
static bool emit_desc(asm_state *s, uint32_t word, int op, uint32_t dmask, const operand *s1, const operand *s2,
                      const operand *s3, bool mad)
{
    uint32_t val = dmask & 0xF;
    const operand *src[3] = {s1, s2, s3};
    int nsrc = 0;
    for (int n = 0; n < 3; n++) {
        if (!src[n])
            continue;
        nsrc = n + 1;
        val |= (uint32_t)src[n]->neg << (4 + 9 * n) | selector(src[n]) << (5 + 9 * n);
    }
    uint32_t at = s->out->code_len;
    if (!emit(s, word))
        return false;
    s->want_val[at] = val;
    s->want_mask[at] = relevant_bits(op, val, nsrc);
    s->want_kind[at] = mad ? 2 : 1;
    s->want_line[at] = s->line;
    return true;
}

/* An error at instruction `at`: its line and its source. */
static void set_place(asm_state *s, uint32_t at)
{
    s->line = s->want_line[at];
    while (s->file && at < s->file_base[s->file])
        s->file--;
}

/* Share or allocate descriptors in program order, as picasso does, so the
 * table comes out the same.  MAD indexes them with 5 bits: when its
 * descriptor lands at 32 or above, it trades places with the first one below
 * 32 that no MAD uses, and the instructions already given either are
 * renumbered (never a MAD's: both slots are MAD-free). */
static bool alloc_opdescs(asm_state *s)
{
    pvk_shbin *o = s->out;
    uint32_t mad_used = 0; /* bit k: descriptor k (< 32) serves a MAD */
    for (uint32_t i = 0; i < o->code_len; i++) {
        if (!s->want_kind[i])
            continue;
        uint32_t v = s->want_val[i], m = s->want_mask[i], k;
        for (k = 0; k < o->opdesc_len; k++) {
            uint32_t both = m & s->desc_mask[k];
            if (((o->opdesc[k] ^ v) & both) == 0)
                break;
        }
        if (k == o->opdesc_len) {
            if (k >= PVK_SH_OPDESCS) {
                set_place(s, i);
                return fail(s, "too many operand descriptors (limit %d)", PVK_SH_OPDESCS);
            }
            o->opdesc[k] = v;
            s->desc_mask[k] = 0;
            o->opdesc_len++;
        }
        o->opdesc[k] = (o->opdesc[k] & ~m) | (v & m);
        s->desc_mask[k] |= m;
        if (s->want_kind[i] == 2) {
            if (k >= 32) {
                uint32_t w = 0;
                while (w < 32 && mad_used >> w & 1)
                    w++;
                if (w == 32) {
                    set_place(s, i);
                    return fail(s, "too many operand descriptors for MAD (limit 32)");
                }
                uint32_t t = o->opdesc[w];
                o->opdesc[w] = o->opdesc[k];
                o->opdesc[k] = t;
                t = s->desc_mask[w];
                s->desc_mask[w] = s->desc_mask[k];
                s->desc_mask[k] = t;
                for (uint32_t j = 0; j < i; j++) {
                    if (s->want_kind[j] == 1 && s->desc_of[j] == w)
                        s->desc_of[j] = (uint8_t)k;
                    else if (s->want_kind[j] == 1 && s->desc_of[j] == k)
                        s->desc_of[j] = (uint8_t)w;
                }
                k = w;
            }
            mad_used |= 1u << k;
        }
        s->desc_of[i] = (uint8_t)k;
    }
    for (uint32_t i = 0; i < o->code_len; i++)
        if (s->want_kind[i])
            o->code[i] |= s->want_kind[i] == 2 ? s->desc_of[i] & 0x1Fu : s->desc_of[i] & 0x7Fu;
    return true;
}

/* ---- instructions ---- */

typedef enum { F_0, F_1, F_1U, F_MOVA, F_CMP, F_MAD, F_COND, F_CALL, F_BOOL, F_LOOP, F_SETEMIT } insn_fmt;

typedef struct insn {
    const char *name;
    insn_fmt fmt;
    uint8_t op, opi;   /* opi: the inverted form (0 = none) */
    bool inv;          /* the mnemonic asks for the inverted form */
} insn;

static const insn insns[] = {
    {"nop", F_0, PVK_SH_NOP, 0, false},       {"end", F_0, PVK_SH_END, 0, false},
    {"emit", F_0, PVK_SH_EMIT, 0, false},     {"break", F_0, PVK_SH_BREAK, 0, false},
    {"add", F_1, PVK_SH_ADD, 0, false},       {"dp3", F_1, PVK_SH_DP3, 0, false},
    {"dp4", F_1, PVK_SH_DP4, 0, false},       {"dph", F_1, PVK_SH_DPH, PVK_SH_DPHI, false},
    {"dphi", F_1, PVK_SH_DPH, PVK_SH_DPHI, true}, {"dst", F_1, PVK_SH_DST, PVK_SH_DSTI, false},
    {"dsti", F_1, PVK_SH_DST, PVK_SH_DSTI, true}, {"mul", F_1, PVK_SH_MUL, 0, false},
    {"sge", F_1, PVK_SH_SGE, PVK_SH_SGEI, false}, {"sgei", F_1, PVK_SH_SGE, PVK_SH_SGEI, true},
    {"slt", F_1, PVK_SH_SLT, PVK_SH_SLTI, false}, {"slti", F_1, PVK_SH_SLT, PVK_SH_SLTI, true},
    {"max", F_1, PVK_SH_MAX, 0, false},       {"min", F_1, PVK_SH_MIN, 0, false},
    {"ex2", F_1U, PVK_SH_EX2, 0, false},      {"lg2", F_1U, PVK_SH_LG2, 0, false},
    {"litp", F_1U, PVK_SH_LITP, 0, false},    {"flr", F_1U, PVK_SH_FLR, 0, false},
    {"rcp", F_1U, PVK_SH_RCP, 0, false},      {"rsq", F_1U, PVK_SH_RSQ, 0, false},
    {"mov", F_1U, PVK_SH_MOV, 0, false},      {"mova", F_MOVA, PVK_SH_MOVA, 0, false},
    {"cmp", F_CMP, PVK_SH_CMP, 0, false},     {"mad", F_MAD, PVK_SH_MAD, PVK_SH_MADI, false},
    {"madi", F_MAD, PVK_SH_MAD, PVK_SH_MADI, true}, {"breakc", F_COND, PVK_SH_BREAKC, 0, false},
    {"callc", F_COND, PVK_SH_CALLC, 0, false}, {"ifc", F_COND, PVK_SH_IFC, 0, false},
    {"jmpc", F_COND, PVK_SH_JMPC, 0, false},  {"call", F_CALL, PVK_SH_CALL, 0, false},
    {"callu", F_BOOL, PVK_SH_CALLU, 0, false}, {"ifu", F_BOOL, PVK_SH_IFU, 0, false},
    {"jmpu", F_BOOL, PVK_SH_JMPU, 0, false},  {"for", F_LOOP, PVK_SH_LOOP, 0, false},
    {"loop", F_LOOP, PVK_SH_LOOP, 0, false},  {"setemit", F_SETEMIT, PVK_SH_SETEMIT, 0, false},
};

static bool nargs(asm_state *s, const char *name, int have, int lo, int hi)
{
    if (have < lo || have > hi) {
        if (lo == hi)
            return fail(s, "%s takes %d operand%s, not %d", name, lo, lo == 1 ? "" : "s", have);
        return fail(s, "%s takes %d to %d operands, not %d", name, lo, hi, have);
    }
    return true;
}

static bool push_block(asm_state *s, blk_type t, const char *name)
{
    if (s->depth == MAX_DEPTH)
        return fail(s, "blocks nested too deeply (limit %d)", MAX_DEPTH);
    block *b = &s->stack[s->depth++];
    memset(b, 0, sizeof *b);
    b->type = t;
    b->pos = t == BLK_PROC ? s->out->code_len : s->out->code_len - 1;
    b->line = s->line;
    if (name)
        strcpy(b->name, name);
    return true;
}

static bool add_reloc(asm_state *s, const char *name, bool proc)
{
    if (!is_ident(name))
        return fail(s, "invalid %s name '%s'", proc ? "procedure" : "label", name);
    if (s->reloc_count == MAX_RELOCS)
        return fail(s, "too many references");
    reloc *r = &s->relocs[s->reloc_count++];
    if (!copy_name(s, r->name, name))
        return false;
    r->at = s->out->code_len - 1;
    r->line = s->line;
    r->proc = proc;
    return true;
}

/* cmp.x, !cmp.y, a && b, a || b (single & and | too) -> refx refy condop bits. */
static bool parse_cond(asm_state *s, const char *text, uint32_t *bits)
{
    char buf[MAX_LINE];
    snprintf(buf, sizeof buf, "%s", text);
    char *ops[2] = {buf, NULL};
    uint32_t condop = 0;
    char *amp = strpbrk(buf, "&|");
    if (amp) {
        char c = *amp;
        *amp = 0;
        ops[1] = amp + 1 + (amp[1] == c);
        condop = c == '&' ? 1 : 0;
    }
    uint32_t ref[2] = {1, 1};
    int seen[2] = {0, 0}, which0 = -1;
    for (int k = 0; k < 2 && ops[k]; k++) {
        char *p = trim(ops[k]);
        uint32_t neg = 0;
        for (; *p == '!'; p++)
            neg ^= 1;
        p = trim(p);
        int w = ieq(p, "cmp.x") ? 0 : ieq(p, "cmp.y") ? 1 : -1;
        if (w < 0)
            return fail(s, "invalid condition '%s' (cmp.x, cmp.y, negated with !)", p);
        if (seen[w]++)
            return fail(s, "condition tests cmp.%c twice", "xy"[w]);
        ref[w] = !neg;
        if (k == 0)
            which0 = w;
    }
    if (!ops[1])
        condop = which0 == 0 ? 2 : 3;
    *bits = ref[0] << 25 | ref[1] << 24 | condop << 22;
    return true;
}

static bool bool_reg(asm_state *s, const char *text, int *id, bool *neg)
{
    operand op;
    *neg = false;
    while (*text == '!') {
        *neg = !*neg;
        text++;
    }
    if (!parse_operand(s, text, &op))
        return false;
    if (op.kind != RK_B || op.neg || op.idx)
        return fail(s, "invalid boolean uniform '%s' (b0-b15)", text);
    *id = op.index;
    return true;
}

static bool do_insn(asm_state *s, const insn *in, int argc, char **argv)
{
    operand d, a, b, c;
    uint32_t dc;
    switch (in->fmt) {
    case F_0:
        if (!nargs(s, in->name, argc, 0, 0))
            return false;
        return emit(s, (uint32_t)in->op << 26);

    case F_1: {
        if (!nargs(s, in->name, argc, 3, 3) || !dest(s, argv[0], &d, &dc) || !parse_operand(s, argv[1], &a) ||
            !parse_operand(s, argv[2], &b))
            return false;
        bool wide2 = b.kind == RK_C || b.idx;
        bool inv = in->opi && (in->inv || (wide2 && a.kind != RK_C && !a.idx));
        if (!inv) {
            if (!src_wide(s, &a, argv[1], 1) || !src_narrow(s, &b, argv[2], 2))
                return false;
        } else if (!src_narrow(s, &a, argv[1], 1) || !src_wide(s, &b, argv[2], 2)) {
            return false;
        }
        if (!inputs_ok(s, &a, &b, NULL))
            return false;
        uint32_t w;
        if (!inv)
            w = (uint32_t)in->op << 26 | dc << 21 | (uint32_t)a.idx << 19 | src_code(&a) << 12 | src_code(&b) << 7;
        else
            w = (uint32_t)in->opi << 26 | dc << 21 | (uint32_t)b.idx << 19 | src_code(&a) << 14 | src_code(&b) << 7;
        return emit_desc(s, w, inv ? in->opi : in->op, dest_mask(&d), &a, &b, NULL, false);
    }

    case F_1U:
        if (!nargs(s, in->name, argc, 2, 2) || !dest(s, argv[0], &d, &dc) || !parse_operand(s, argv[1], &a) ||
            !src_wide(s, &a, argv[1], 1))
            return false;
        return emit_desc(s, (uint32_t)in->op << 26 | dc << 21 | (uint32_t)a.idx << 19 | src_code(&a) << 12, in->op,
                         dest_mask(&d), &a, NULL, NULL, false);

    case F_MOVA: {
        /* mova a0.x|a0.y|a0.xy|a0|a1|a01, src  (picasso: a0 = x, a1 = y) */
        if (!nargs(s, in->name, argc, 2, 2))
            return false;
        uint32_t m;
        const char *t = argv[0];
        if (ieq(t, "a0") || ieq(t, "a0.x"))
            m = 8;
        else if (ieq(t, "a1") || ieq(t, "a0.y"))
            m = 4;
        else if (ieq(t, "a01") || ieq(t, "a0.xy"))
            m = 12;
        else
            return fail(s, "invalid destination for mova: '%s' (a0.x, a0.y or a0.xy)", t);
        if (!parse_operand(s, argv[1], &a) || !src_wide(s, &a, argv[1], 1))
            return false;
        return emit_desc(s, (uint32_t)PVK_SH_MOVA << 26 | (uint32_t)a.idx << 19 | src_code(&a) << 12, PVK_SH_MOVA, m, &a,
                         NULL, NULL, false);
    }

    case F_CMP: {
        static const char *const ops[] = {"eq", "ne", "lt", "le", "gt", "ge", "6", "7"};
        if (!nargs(s, in->name, argc, 4, 4) || !parse_operand(s, argv[0], &a) || !src_wide(s, &a, argv[0], 1))
            return false;
        uint32_t cx = 8, cy = 8;
        for (uint32_t k = 0; k < 8; k++) {
            if (ieq(argv[1], ops[k]))
                cx = k;
            if (ieq(argv[2], ops[k]))
                cy = k;
        }
        if (cx == 8 || cy == 8)
            return fail(s, "invalid comparison '%s' (eq ne lt le gt ge)", cx == 8 ? argv[1] : argv[2]);
        if (!parse_operand(s, argv[3], &b) || !src_narrow(s, &b, argv[3], 2) || !inputs_ok(s, &a, &b, NULL))
            return false;
        uint32_t w = (uint32_t)PVK_SH_CMP << 26 | cx << 24 | cy << 21 | (uint32_t)a.idx << 19 | src_code(&a) << 12 |
                     src_code(&b) << 7;
        return emit_desc(s, w, PVK_SH_CMP, 0, &a, &b, NULL, false);
    }

    case F_MAD: {
        if (!nargs(s, in->name, argc, 4, 4) || !dest(s, argv[0], &d, &dc) || !parse_operand(s, argv[1], &a) ||
            !parse_operand(s, argv[2], &b) || !parse_operand(s, argv[3], &c) || !src_narrow(s, &a, argv[1], 1))
            return false;
        bool inv = in->inv || ((c.kind == RK_C || c.idx) && b.kind != RK_C && !b.idx);
        if (!inv) {
            if (!src_wide(s, &b, argv[2], 2) || !src_narrow(s, &c, argv[3], 3))
                return false;
        } else if (!src_narrow(s, &b, argv[2], 2) || !src_wide(s, &c, argv[3], 3)) {
            return false;
        }
        if (!inputs_ok(s, &a, &b, &c))
            return false;
        uint32_t w;
        if (!inv)
            w = (uint32_t)PVK_SH_MAD << 26 | dc << 24 | (uint32_t)b.idx << 22 | src_code(&a) << 17 | src_code(&b) << 10 |
                src_code(&c) << 5;
        else
            w = (uint32_t)PVK_SH_MADI << 26 | dc << 24 | (uint32_t)c.idx << 22 | src_code(&a) << 17 |
                src_code(&b) << 12 | src_code(&c) << 5;
        return emit_desc(s, w, inv ? PVK_SH_MADI : PVK_SH_MAD, dest_mask(&d), &a, &b, &c, true);
    }

    case F_COND: {
        bool target = in->op == PVK_SH_CALLC || in->op == PVK_SH_JMPC;
        uint32_t bits = 0;
        if (!nargs(s, in->name, argc, target ? 2 : 1, target ? 2 : 1) || !parse_cond(s, argv[0], &bits) ||
            !emit(s, (uint32_t)in->op << 26 | bits))
            return false;
        if (in->op == PVK_SH_IFC)
            return push_block(s, BLK_IF, NULL);
        return target ? add_reloc(s, argv[1], in->op == PVK_SH_CALLC) : true;
    }

    case F_CALL:
        if (!nargs(s, in->name, argc, 1, 1) || !emit(s, (uint32_t)PVK_SH_CALL << 26))
            return false;
        return add_reloc(s, argv[0], true);

    case F_BOOL: {
        bool target = in->op != PVK_SH_IFU, neg;
        int id;
        if (!nargs(s, in->name, argc, target ? 2 : 1, target ? 2 : 1) || !bool_reg(s, argv[0], &id, &neg))
            return false;
        if (neg && in->op != PVK_SH_JMPU)
            return fail(s, "%s cannot test a negated boolean", in->name);
        if (!emit(s, (uint32_t)in->op << 26 | (uint32_t)id << 22 | (uint32_t)neg))
            return false;
        if (in->op == PVK_SH_IFU)
            return push_block(s, BLK_IF, NULL);
        return add_reloc(s, argv[1], in->op == PVK_SH_CALLU);
    }

    case F_LOOP:
        if (!nargs(s, in->name, argc, 1, 1) || !parse_operand(s, argv[0], &a))
            return false;
        if (a.kind != RK_I || a.neg || a.idx)
            return fail(s, "invalid integer uniform '%s' (i0-i3)", argv[0]);
        if (!emit(s, (uint32_t)PVK_SH_LOOP << 26 | (uint32_t)a.index << 22))
            return false;
        return push_block(s, BLK_FOR, NULL);

    case F_SETEMIT: {
        long vtx;
        if (!nargs(s, in->name, argc, 1, 2))
            return false;
        if (!parse_int(argv[0], 0, 2, &vtx))
            return fail(s, "invalid vertex id '%s' (0-2)", argv[0]);
        uint32_t prim = 0, inv = 0;
        if (argc == 2) {
            char *save = NULL;
            for (char *f = strtok_r(argv[1], " \t", &save); f; f = strtok_r(NULL, " \t", &save)) {
                if (ieq(f, "prim") || ieq(f, "primitive"))
                    prim = 1;
                else if (ieq(f, "inv") || ieq(f, "invert"))
                    inv = 1;
                else
                    return fail(s, "unknown setemit flag '%s'", f);
            }
        }
        return emit(s, (uint32_t)PVK_SH_SETEMIT << 26 | (uint32_t)vtx << 24 | prim << 23 | inv << 22);
    }
    }
    return fail(s, "internal error");
}

/* ---- blocks ---- */

static bool is_jump_or_call(uint32_t w)
{
    uint32_t op = pvk_sh_opcode(w);
    return op == PVK_SH_JMPC || op == PVK_SH_JMPU || op == PVK_SH_CALL || op == PVK_SH_CALLC || op == PVK_SH_CALLU;
}

/* picasso's padding rule: a block must not end on another block's end, on a
 * jump or call (or, in a loop, BREAKC), nor be empty. */
static bool pad_before_close(asm_state *s, const block *b)
{
    pvk_shbin *o = s->out;
    uint32_t n = o->code_len;
    bool pad;
    if (s->last_was_end)
        pad = true;
    else if (n == 0)
        pad = true;
    else {
        uint32_t last = o->code[n - 1];
        uint32_t min = b->type == BLK_PROC ? 1 : 2;
        pad = is_jump_or_call(last) || (b->type == BLK_FOR && pvk_sh_opcode(last) == PVK_SH_BREAKC) || n - b->pos < min;
    }
    return pad ? emit(s, (uint32_t)PVK_SH_NOP << 26) : true;
}

static bool dir_else(asm_state *s)
{
    if (!s->depth || s->stack[s->depth - 1].type != BLK_IF)
        return fail(s, ".else without ifu/ifc");
    block *b = &s->stack[s->depth - 1];
    if (b->has_else)
        return fail(s, "second .else in one block");
    if (!pad_before_close(s, b))
        return false;
    b->has_else = true;
    b->else_pos = s->out->code_len;
    s->out->code[b->pos] = (s->out->code[b->pos] & ~(0xFFFu << 10)) | b->else_pos << 10;
    return true;
}

static bool dir_end(asm_state *s)
{
    if (!s->depth)
        return fail(s, ".end without .proc, ifu, ifc or for");
    block *b = &s->stack[s->depth - 1];
    if (!pad_before_close(s, b))
        return false;
    s->depth--;
    pvk_shbin *o = s->out;
    uint32_t cur = o->code_len;
    switch (b->type) {
    case BLK_PROC: {
        if (s->proc_count == MAX_PROCS)
            return fail(s, "too many procedures");
        symbol *p = &s->procs[s->proc_count++];
        strcpy(p->name, b->name);
        p->pos = b->pos;
        p->size = cur - b->pos;
        break;
    }
    case BLK_FOR:
        o->code[b->pos] = (o->code[b->pos] & ~(0xFFFu << 10)) | (cur - 1) << 10;
        s->last_was_end = true;
        break;
    case BLK_IF:
        if (!b->has_else) {
            o->code[b->pos] = (o->code[b->pos] & ~(0xFFFu << 10)) | cur << 10;
        } else {
            if (cur - b->else_pos > 0xFF)
                return fail(s, ".else block too long (limit 255 instructions)");
            o->code[b->pos] = (o->code[b->pos] & ~0xFFu) | (cur - b->else_pos);
        }
        s->last_was_end = true;
        break;
    }
    return true;
}

/* ---- directives ---- */

static bool add_alias(asm_state *s, const char *name, const operand *op)
{
    if (!is_ident(name))
        return fail(s, "invalid name '%s'", name);
    rkind k;
    int idx;
    if (reg_name(name, &k, &idx))
        return fail(s, "'%s' is a register name", name);
    if (find_alias(s, name))
        return fail(s, "'%s' is already defined", name);
    if (s->alias_count == MAX_ALIASES)
        return fail(s, "too many names (limit %d)", MAX_ALIASES);
    alias *a = &s->aliases[s->alias_count++];
    if (!copy_name(s, a->name, name))
        return false;
    a->op = *op;
    return true;
}

static operand plain_operand(rkind k, int index)
{
    operand op = {k, index, {0, 1, 2, 3}, false, 0};
    return op;
}

/* An entry of the DVLE uniform table.  Its symbol spells '$' as '.' (picasso
 * lets identifiers use '$' to stand for the '.' a program looks up). */
static bool add_uniform(asm_state *s, const char *name, uint16_t first, uint16_t last)
{
    pvk_shbin *o = s->out;
    if (o->uniform_count == PVK_SHBIN_MAX_UNIFORMS)
        return fail(s, "too many uniforms (limit %d)", PVK_SHBIN_MAX_UNIFORMS);
    if (strlen(name) >= PVK_SHBIN_NAME_LEN)
        return fail(s, "name too long: '%s'", name);
    char *d = o->uniform[o->uniform_count].name;
    strcpy(d, name);
    for (; *d; d++)
        if (*d == '$')
            *d = '.';
    o->uniform[o->uniform_count].first = first;
    o->uniform[o->uniform_count].last = last;
    o->uniform_count++;
    return true;
}

/* picasso writes the table sorted by register (stable here; only two .in of
 * one register could tie). */
static void sort_uniforms(pvk_shbin *o)
{
    for (uint32_t i = 1; i < o->uniform_count; i++) {
        struct pvk_shbin_uniform u = o->uniform[i];
        uint32_t j = i;
        for (; j > 0 && o->uniform[j - 1].first > u.first; j--)
            o->uniform[j] = o->uniform[j - 1];
        o->uniform[j] = u;
    }
}

/* .fvec/.ivec/.bool name, name[n], ... */
static bool dir_uniform(asm_state *s, rkind k, int argc, char **argv)
{
    if (!argc)
        return fail(s, "missing uniform name");
    for (int i = 0; i < argc; i++) {
        char *name = argv[i], *br = strchr(name, '[');
        long n = 1;
        if (br) {
            char *close = strchr(br, ']');
            if (!close || *trim(close + 1))
                return fail(s, "bad array size in '%s'", argv[i]);
            *close = 0;
            *br = 0;
            if (!parse_int(trim(br + 1), 1, 96, &n))
                return fail(s, "bad array size in '%s'", argv[i]);
            name = trim(name);
        }
        int *lo = k == RK_C ? &s->fvec_lo : k == RK_I ? &s->ivec_lo : &s->bool_lo;
        int hi = k == RK_C ? s->fvec_hi : k == RK_I ? s->ivec_hi : s->bool_hi;
        int cap = k == RK_C ? s->fvec_cap : k == RK_I ? s->ivec_cap : s->bool_cap;
        if (cap < hi)
            hi = cap;
        /* an earlier source's uniform of this name: the same registers */
        struct global_uniform *g = NULL;
        bool shared = !s->out->gsh_explicit;
        for (uint32_t j = 0; shared && j < s->global_count && !g; j++)
            if (!strcmp(s->globals[j].name, name))
                g = &s->globals[j];
        if (g && !find_alias(s, name) && (g->kind != k || g->n != n))
            return fail(s, "uniform '%s' has another type or size in an earlier source", name);
        if (!g && *lo + n - 1 > hi)
            return fail(s, "not enough uniform registers for '%s'", name);
        int first = g ? g->first : *lo;
        if (!g)
            *lo += (int)n;
        operand op = plain_operand(k, first);
        uint16_t base = k == RK_C ? 0x10 : k == RK_I ? 0x70 : 0x78;
        if (!add_alias(s, name, &op))
            return false;
        if (shared && !g && s->global_count < PVK_SHBIN_MAX_UNIFORMS && strlen(name) < MAX_NAME) {
            g = &s->globals[s->global_count++];
            strcpy(g->name, name);
            g->kind = k;
            g->first = first;
            g->n = (int)n;
        }
        /* a name starting with '_' is private: not in the DVLE table */
        if (name[0] != '_' && !add_uniform(s, name, (uint16_t)(base + first), (uint16_t)(base + first + n - 1)))
            return false;
    }
    return true;
}

/* "name(x, y, z, w)" -> name and the four value strings. */
static bool split_paren(asm_state *s, char *text, char **name, char **vals)
{
    char *open = strchr(text, '('), *close = strrchr(text, ')');
    if (!open || !close || close < open || *trim(close + 1))
        return fail(s, "expected name(x, y, z, w)");
    *open = 0;
    *close = 0;
    *name = trim(text);
    int n = split_args(open + 1, vals, 4);
    if (n != 4)
        return fail(s, "expected four values, got %d", n > 4 ? 5 : n);
    return true;
}

static bool add_fconst(asm_state *s, int reg, char **vals)
{
    pvk_shbin *o = s->out;
    if (o->fconst_count == PVK_SH_FLOAT_UNIFORMS)
        return fail(s, "too many float constants");
    o->fconst[o->fconst_count].reg = (uint8_t)reg;
    o->fconst[o->fconst_count].seq = (uint16_t)(o->fconst_count + o->iconst_count + o->bconst_count);
    for (int i = 0; i < 4; i++) {
        char *end;
        /* through double, as picasso's atof: the same float in every case */
        float f = (float)strtod(vals[i], &end);
        if (end == vals[i] || *trim(end))
            return fail(s, "invalid number '%s'", vals[i]);
        uint32_t bits;
        memcpy(&bits, &f, 4);
        o->fconst[o->fconst_count].f24[i] = pvk_f32_to_f24(bits);
    }
    o->fconst_count++;
    return true;
}

static bool add_iconst(asm_state *s, int reg, char **vals)
{
    pvk_shbin *o = s->out;
    if (o->iconst_count == sizeof o->iconst / sizeof o->iconst[0])
        return fail(s, "too many integer constants");
    o->iconst[o->iconst_count].reg = (uint8_t)reg;
    o->iconst[o->iconst_count].seq = (uint16_t)(o->fconst_count + o->iconst_count + o->bconst_count);
    for (int i = 0; i < 4; i++) {
        long v;
        if (!parse_int(vals[i], -128, 255, &v))
            return fail(s, "invalid integer '%s' (-128..255)", vals[i]);
        o->iconst[o->iconst_count].v[i] = (uint8_t)v;
    }
    o->iconst_count++;
    return true;
}

/* .constf/.consti name(x, y, z, w): a register from the top, preloaded. */
static bool dir_const(asm_state *s, rkind k, char *rest)
{
    char *name = NULL, *vals[5];
    if (!split_paren(s, rest, &name, vals))
        return false;
    int *hi = k == RK_C ? &s->fvec_hi : &s->ivec_hi;
    int lo = k == RK_C ? s->fvec_lo : s->ivec_lo;
    if (*hi < lo)
        return fail(s, "not enough uniform registers for constant '%s'", name);
    int reg = (*hi)--;
    operand op = plain_operand(k, reg);
    if (!add_alias(s, name, &op))
        return false;
    return k == RK_C ? add_fconst(s, reg, vals) : add_iconst(s, reg, vals);
}

/* .setf/.seti reg(x, y, z, w) */
static bool dir_set(asm_state *s, rkind k, char *rest)
{
    char *name = NULL, *vals[5];
    operand op;
    if (!split_paren(s, rest, &name, vals) || !parse_operand(s, name, &op))
        return false;
    if (op.kind != k || op.idx)
        return fail(s, "'%s' is not %s", name, k == RK_C ? "a float uniform (c0-c95)" : "an integer uniform (i0-i3)");
    return k == RK_C ? add_fconst(s, op.index, vals) : add_iconst(s, op.index, vals);
}

static bool dir_setb(asm_state *s, char *rest)
{
    char *save = NULL, *reg = strtok_r(rest, " \t", &save), *val = strtok_r(NULL, " \t", &save);
    if (!reg || !val || strtok_r(NULL, " \t", &save))
        return fail(s, "expected .setb bN value");
    int id;
    bool neg;
    if (!bool_reg(s, reg, &id, &neg))
        return false;
    if (neg)
        return fail(s, "invalid boolean uniform '%s'", reg);
    int v = ieq(val, "true") || ieq(val, "on") || !strcmp(val, "1") ? 1
            : ieq(val, "false") || ieq(val, "off") || !strcmp(val, "0") ? 0
                                                                          : -1;
    if (v < 0)
        return fail(s, "invalid boolean value '%s'", val);
    pvk_shbin *o = s->out;
    if (o->bconst_count == sizeof o->bconst / sizeof o->bconst[0])
        return fail(s, "too many boolean constants");
    o->bconst[o->bconst_count].reg = (uint8_t)id;
    o->bconst[o->bconst_count].seq = (uint16_t)(o->fconst_count + o->iconst_count + o->bconst_count);
    o->bconst[o->bconst_count].value = (uint8_t)v;
    o->bconst_count++;
    return true;
}

static int out_type(const char *t)
{
    static const struct { const char *a, *b; int type; } names[] = {
        {"position", "pos", PVK_SHBIN_OUT_POSITION},    {"normalquat", "nquat", PVK_SHBIN_OUT_NORMALQUAT},
        {"color", "clr", PVK_SHBIN_OUT_COLOR},          {"texcoord0", "tcoord0", PVK_SHBIN_OUT_TEXCOORD0},
        {"texcoord0w", "tcoord0w", PVK_SHBIN_OUT_TEXCOORD0W}, {"texcoord1", "tcoord1", PVK_SHBIN_OUT_TEXCOORD1},
        {"texcoord2", "tcoord2", PVK_SHBIN_OUT_TEXCOORD2}, {"view", "view", PVK_SHBIN_OUT_VIEW},
        {"dummy", "dummy", PVK_SHBIN_OUT_DUMMY},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (ieq(t, names[i].a) || ieq(t, names[i].b))
            return names[i].type;
    return -1;
}

/* .out name|- type[.mask] [oN[.mask]] */
static bool dir_out(asm_state *s, char *rest)
{
    char *save = NULL, *name = strtok_r(rest, " \t", &save), *type = strtok_r(NULL, " \t", &save),
         *reg = strtok_r(NULL, " \t", &save);
    if (!name || !type || strtok_r(NULL, " \t", &save))
        return fail(s, "expected .out name type [register]");
    uint8_t swz[4] = {0, 1, 2, 3};
    int oid = -1;
    if (reg) {
        operand op;
        if (!parse_operand(s, reg, &op))
            return false;
        if (op.kind != RK_O || op.neg || op.idx)
            return fail(s, "invalid output register '%s'", reg);
        oid = op.index;
        memcpy(swz, op.swz, 4);
    }
    char *dot = strchr(type, '.');
    if (dot) {
        *dot = 0;
        if (reg)
            return fail(s, "give the output mask on the type or on the register, not both");
        if (!parse_swizzle(dot + 1, swz))
            return fail(s, "invalid output mask '.%s'", dot + 1);
    }
    int t = out_type(type);
    if (t < 0)
        return fail(s, "unknown output type '%s'", type);
    uint32_t mask = 0;
    for (int i = 0; i < 4; i++)
        mask |= 1u << swz[i];
    pvk_shbin *o = s->out;
    if (oid < 0) {
        for (int i = 0; i < 16 && oid < 0; i++)
            if (!(o->outmap_mask & 1u << i))
                oid = i;
        if (oid < 0)
            return fail(s, "too many outputs");
    } else if (s->out_used >> (4 * oid) & mask) {
        return fail(s, "output o%d.%s collides with an earlier .out", oid, dot ? dot + 1 : "xyzw");
    }
    if (oid >= 7 && t != PVK_SHBIN_OUT_DUMMY)
        return fail(s, "o%d can only be a dummy output", oid);
    if (o->out_count == PVK_SHBIN_MAX_OUTPUTS)
        return fail(s, "too many outputs");
    if (strcmp(name, "-")) {
        operand op = plain_operand(RK_O, oid);
        if (!add_alias(s, name, &op))
            return false;
    }
    if (t == PVK_SHBIN_OUT_DUMMY && o->geometry) /* picasso: the VS and GS output maps are merged */
        o->merge_outmaps = true;
    o->out[o->out_count].type = (uint8_t)t;
    o->out[o->out_count].reg = (uint8_t)oid;
    o->out[o->out_count].mask = (uint8_t)mask;
    o->out_count++;
    o->outmap_mask |= 1u << oid;
    s->out_used |= mask << (4 * oid);
    return true;
}

/* .in name [vN] */
static bool dir_in(asm_state *s, int argc, char **argv)
{
    char *save = NULL, *name = argc == 1 ? strtok_r(argv[0], " \t", &save) : NULL;
    char *reg = name ? strtok_r(NULL, " \t", &save) : NULL;
    if (!name || strtok_r(NULL, " \t", &save))
        return fail(s, "expected .in name [register]");
    int id = -1;
    if (reg) {
        operand op;
        if (!parse_operand(s, reg, &op))
            return false;
        if (op.kind != RK_V || op.neg || op.idx)
            return fail(s, "invalid input register '%s'", reg);
        id = op.index;
    } else {
        for (int i = 0; i < 16 && id < 0; i++)
            if (!(s->out->input_mask & 1u << i))
                id = i;
        if (id < 0)
            return fail(s, "too many inputs");
    }
    /* picasso's DVLE input mask is exactly the .in registers */
    s->out->input_mask |= 1u << id;
    operand op = plain_operand(RK_V, id);
    return add_alias(s, name, &op) && add_uniform(s, name, (uint16_t)id, (uint16_t)id);
}

/* A float-uniform register operand of .gsh ("c48" or an alias of one). */
static bool gsh_reg(asm_state *s, const char *t, int *reg)
{
    operand op;
    if (!t || !parse_operand(s, (char *)t, &op))
        return false;
    if (op.kind != RK_C || op.neg || op.idx || memcmp(op.swz, (uint8_t[4]){0, 1, 2, 3}, 4))
        return fail(s, "invalid float uniform register '%s'", t);
    *reg = op.index;
    return true;
}

/* .gsh                                  (legacy: a geometry shader, point mode)
 * .gsh point firstReg
 * .gsh variable firstReg vtxNum
 * .gsh fixed firstReg arrayStartReg vtxNum
 * As picasso: flags the DVLE as a geometry shader with the GSH_MISC0 mode
 * (libctru DVLE_geoShaderMode), .fvec allocation starts at firstReg (the
 * registers below hold the vertices in the variable and fixed modes), and
 * .bool allocation stops at b14 (the hardware sets b15 after every
 * invocation). */
static bool dir_gsh(asm_state *s, char *rest)
{
    pvk_shbin *o = s->out;
    char *save = NULL, *mode = strtok_r(rest, " \t", &save);
    if (!mode) {
        o->geometry = true;
        s->bool_hi = 14;
        return true;
    }
    if (o->geometry && o->gsh_explicit)
        return fail(s, ".gsh had already been used");
    if (o->fconst_count || o->iconst_count || o->bconst_count || o->uniform_count || o->out_count)
        return fail(s, ".gsh must come before any constant, uniform or output");
    int m = ieq(mode, "point") ? 0
            : ieq(mode, "variable") || ieq(mode, "subdivision") ? 1
            : ieq(mode, "fixed") || ieq(mode, "particle") ? 2
                                                           : -1;
    if (m < 0)
        return fail(s, "invalid geometry shader mode '%s' (point, variable or fixed)", mode);
    int first, start = 0;
    long num = 0;
    char *a = strtok_r(NULL, " \t", &save), *b = strtok_r(NULL, " \t", &save), *c = strtok_r(NULL, " \t", &save);
    int want = m == 0 ? 1 : m == 1 ? 2 : 3;
    if ((want >= 1 && !a) || (want >= 2 && !b) || (want >= 3 && !c) || (want < 3 && (want == 1 ? b : c)) ||
        strtok_r(NULL, " \t", &save))
        return fail(s, m == 0   ? "expected .gsh point firstReg"
                       : m == 1 ? "expected .gsh variable firstReg vtxNum"
                                : "expected .gsh fixed firstReg arrayStartReg vtxNum");
    if (!gsh_reg(s, a, &first))
        return false;
    if (m == 1 && !parse_int(b, 0, 255, &num))
        return fail(s, "invalid vertex count '%s' (0-255)", b);
    if (m == 2) {
        if (!gsh_reg(s, b, &start))
            return false;
        if (!parse_int(c, 0, 255, &num))
            return fail(s, "invalid vertex count '%s' (0-255)", c);
        if (start >= first)
            return fail(s, "the vertex array c%d overlaps the uniform pool from c%d", start, first);
    }
    o->geometry = o->gsh_explicit = true;
    o->gsh_mode = (uint8_t)m;
    o->gsh_fixed_start = (uint8_t)start;
    o->gsh_variable_num = m == 1 ? (uint8_t)num : 0;
    o->gsh_fixed_num = m == 2 ? (uint8_t)num : 0;
    /* a register space of its own, not the program's shared one */
    s->fvec_lo = first;
    s->ivec_lo = s->bool_lo = 0;
    s->fvec_cap = 95;
    s->ivec_cap = 3;
    s->bool_cap = s->bool_hi = 14;
    return true;
}

static bool do_directive(asm_state *s, const char *dir, char *rest)
{
    char *argv[32];
    if (ieq(dir, ".constf"))
        return dir_const(s, RK_C, rest);
    if (ieq(dir, ".consti"))
        return dir_const(s, RK_I, rest);
    if (ieq(dir, ".setf"))
        return dir_set(s, RK_C, rest);
    if (ieq(dir, ".seti"))
        return dir_set(s, RK_I, rest);
    if (ieq(dir, ".setb"))
        return dir_setb(s, rest);
    if (ieq(dir, ".out"))
        return dir_out(s, rest);
    int argc = split_args(rest, argv, 32);
    if (argc > 32)
        return fail(s, "too many operands");
    if (ieq(dir, ".proc")) {
        if (argc != 1 || !is_ident(argv[0]))
            return fail(s, "expected .proc name");
        if (s->depth)
            return fail(s, ".proc inside another block");
        if (find_sym(s->procs, s->proc_count, argv[0]))
            return fail(s, "procedure '%s' is already defined", argv[0]);
        if (strlen(argv[0]) >= MAX_NAME)
            return fail(s, "name too long: '%s'", argv[0]);
        return push_block(s, BLK_PROC, argv[0]);
    }
    if (ieq(dir, ".end"))
        return argc ? fail(s, ".end takes no operands") : dir_end(s);
    if (ieq(dir, ".else"))
        return argc ? fail(s, ".else takes no operands") : dir_else(s);
    if (ieq(dir, ".alias")) {
        char *save = NULL, *name = argc == 1 ? strtok_r(argv[0], " \t", &save) : NULL;
        char *reg = name ? strtok_r(NULL, "", &save) : NULL;
        operand op;
        if (!name || !reg)
            return fail(s, "expected .alias name register");
        return parse_operand(s, trim(reg), &op) && add_alias(s, name, &op);
    }
    if (ieq(dir, ".fvec"))
        return dir_uniform(s, RK_C, argc, argv);
    if (ieq(dir, ".ivec"))
        return dir_uniform(s, RK_I, argc, argv);
    if (ieq(dir, ".bool"))
        return dir_uniform(s, RK_B, argc, argv);
    if (ieq(dir, ".in"))
        return dir_in(s, argc, argv);
    if (ieq(dir, ".entry")) {
        if (argc != 1 || !is_ident(argv[0]))
            return fail(s, "expected .entry name");
        s->entry_line = s->line;
        return copy_name(s, s->entry, argv[0]);
    }
    if (ieq(dir, ".gsh"))
        return dir_gsh(s, rest);
    if (ieq(dir, ".constfa") || ieq(dir, ".nodvle"))
        return fail(s, "directive %s is not supported", dir);
    return fail(s, "unknown directive '%s'", dir);
}

/* ---- lines ---- */

static bool do_line(asm_state *s, char *line)
{
    char *semi = strchr(line, ';');
    if (semi)
        *semi = 0;
    char *p = trim(line);
    /* labels: ident ':' (repeatable) */
    for (;;) {
        char *q = p;
        while (isalnum((unsigned char)*q) || *q == '_' || *q == '$')
            q++;
        char *r = q;
        while (*r == ' ' || *r == '\t')
            r++;
        if (q == p || *r != ':')
            break;
        *q = 0;
        if (!is_ident(p))
            return fail(s, "invalid label '%s'", p);
        if (find_sym(s->labels, s->label_count, p))
            return fail(s, "label '%s' is already defined", p);
        if (s->label_count == MAX_LABELS)
            return fail(s, "too many labels");
        symbol *l = &s->labels[s->label_count++];
        if (!copy_name(s, l->name, p))
            return false;
        l->pos = s->out->code_len;
        p = trim(r + 1);
    }
    if (!*p)
        return true;
    char *rest = p;
    while (*rest && !isspace((unsigned char)*rest))
        rest++;
    if (*rest)
        *rest++ = 0;
    if (*p == '.')
        return do_directive(s, p, rest);
    for (size_t i = 0; i < sizeof insns / sizeof insns[0]; i++) {
        if (!ieq(p, insns[i].name))
            continue;
        char *argv[8];
        int argc = split_args(rest, argv, 6);
        return do_insn(s, &insns[i], argc, argv);
    }
    return fail(s, "unknown instruction '%s'", p);
}

static bool finish_file(asm_state *s)
{
    pvk_shbin *o = s->out;
    if (s->depth) {
        block *b = &s->stack[s->depth - 1];
        s->line = b->line;
        return fail(s, "block not closed with .end");
    }
    for (uint32_t i = 0; i < s->reloc_count; i++) {
        reloc *r = &s->relocs[i];
        s->line = r->line;
        symbol *p = find_sym(s->procs, s->proc_count, r->name);
        uint32_t w = o->code[r->at];
        if (r->proc) {
            if (!p)
                return fail(s, "undefined procedure '%s'", r->name);
            if (p->size > 0xFF)
                return fail(s, "procedure '%s' is too long to call (limit 255 instructions)", r->name);
            w = (w & ~0x3FFFFFu) | p->pos << 10 | p->size;
        } else {
            symbol *l = find_sym(s->labels, s->label_count, r->name);
            if (!l && !p)
                return fail(s, "undefined label '%s'", r->name);
            w = (w & ~(0xFFFu << 10)) | (l ? l->pos : p->pos) << 10;
        }
        o->code[r->at] = w;
    }
    s->line = s->entry_line;
    const char *entry = s->entry[0] ? s->entry : "main";
    symbol *p = find_sym(s->procs, s->proc_count, entry);
    symbol *l = find_sym(s->labels, s->label_count, entry);
    if (p) {
        o->entry = p->pos;
        o->entry_end = p->pos + p->size;
    } else if (l) {
        o->entry = l->pos;
        o->entry_end = o->code_len;
    } else if (!s->entry[0] && o->code_len > s->base) {
        o->entry = s->base; /* no main: start at the source's first instruction */
        o->entry_end = o->code_len;
    } else {
        return fail(s, "entry point '%s' is undefined", entry);
    }
    return true;
}

/* Assemble one source into s->out, after the code of the sources before. */
static bool assemble_file(asm_state *s, const char *src, size_t len)
{
    s->line = 0;
    s->alias_count = s->label_count = s->reloc_count = s->depth = 0;
    s->last_was_end = false;
    s->entry[0] = 0;
    s->entry_line = 0;
    s->out_used = 0;
    s->fvec_lo = s->shared.fvec_lo;
    s->ivec_lo = s->shared.ivec_lo;
    s->bool_lo = s->shared.bool_lo;
    s->fvec_cap = s->shared.fvec_cap;
    s->ivec_cap = s->shared.ivec_cap;
    s->bool_cap = s->shared.bool_cap;
    s->fvec_hi = 95;
    s->ivec_hi = 3;
    s->bool_hi = 15;

    char line[MAX_LINE];
    size_t pos = 0;
    bool ok = true;
    while (ok && pos < len) {
        s->line++;
        size_t end = pos;
        while (end < len && src[end] != '\n')
            end++;
        size_t n = end - pos;
        if (n && src[pos + n - 1] == '\r')
            n--;
        if (n >= sizeof line) {
            ok = fail(s, "line too long (limit %d characters)", MAX_LINE - 1);
            break;
        }
        memcpy(line, src + pos, n);
        line[n] = 0;
        if (memchr(line, 0, n))
            ok = fail(s, "NUL character in source");
        else
            ok = do_line(s, line);
        pos = end + 1;
    }
    if (!ok || !finish_file(s))
        return false;
    if (!s->out->gsh_explicit) { /* picasso's shared allocator moves on (bools have no locals) */
        s->shared.fvec_lo = s->fvec_lo;
        s->shared.ivec_lo = s->ivec_lo;
        s->shared.bool_lo = s->bool_lo;
        s->shared.fvec_cap = s->fvec_hi < s->fvec_cap ? s->fvec_hi : s->fvec_cap;
        s->shared.ivec_cap = s->ivec_hi < s->ivec_cap ? s->ivec_hi : s->ivec_cap;
    }
    return true;
}

pvk_result pvk_pica_asm_files(uint32_t n, const char *const *src, const size_t *len, pvk_shbin *out, uint32_t *bad,
                              char *err, size_t err_len)
{
    if (err && err_len)
        err[0] = 0;
    if (bad)
        *bad = 0;
    if (!n || n > PVK_SHBIN_MAX_ENTRIES || !src || !len || !out)
        return PVK_ERROR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < n; i++)
        if (!src[i] && len[i])
            return PVK_ERROR_INVALID_ARGUMENT;
    asm_state *s = calloc(1, sizeof *s);
    if (!s)
        return PVK_ERROR_OUT_OF_MEMORY;
    s->err = err;
    s->err_len = err_len;
    s->shared.fvec_cap = 95;
    s->shared.ivec_cap = 3;
    s->shared.bool_cap = 15;
    bool ok = true;
    for (uint32_t i = 0; ok && i < n; i++) {
        pvk_shbin *o = &out[i];
        memset(o, 0, sizeof *o);
        if (i) { /* the program so far: this source's code follows it */
            memcpy(o->code, out[i - 1].code, sizeof o->code[0] * out[i - 1].code_len);
            o->code_len = out[i - 1].code_len;
        }
        s->out = o;
        s->file = i;
        s->base = s->file_base[i] = o->code_len;
        ok = assemble_file(s, src[i], len[i]);
    }
    /* the descriptors of the whole program, in its order, then every entry
     * gets the finished code and table */
    pvk_shbin *last = &out[n - 1];
    if (ok)
        ok = alloc_opdescs(s);
    for (uint32_t i = 0; ok && i < n; i++) {
        if (i < n - 1) {
            memcpy(out[i].code, last->code, sizeof last->code[0] * last->code_len);
            out[i].code_len = last->code_len;
            memcpy(out[i].opdesc, last->opdesc, sizeof last->opdesc[0] * last->opdesc_len);
            out[i].opdesc_len = last->opdesc_len;
        }
        sort_uniforms(&out[i]);
        pvk_shbin_build_outmap(&out[i]);
    }
    if (!ok && bad)
        *bad = s->file;
    free(s);
    if (!ok) {
        for (uint32_t i = 0; i < n; i++)
            memset(&out[i], 0, sizeof out[i]);
        return PVK_ERROR_BAD_DATA;
    }
    return PVK_SUCCESS;
}

pvk_result pvk_pica_asm(const char *src, size_t len, pvk_shbin *out, char *err, size_t err_len)
{
    return pvk_pica_asm_files(1, &src, &len, out, NULL, err, err_len);
}

/* ---- output map ---- */

void pvk_shbin_build_outmap(pvk_shbin *sh)
{
    for (int i = 0; i < 7; i++)
        sh->outmap[i] = 0x1F1F1F1Fu;
    sh->outmap_mask = 0;
    sh->outmap_total = 0;
    for (uint32_t e = 0; e < sh->out_count; e++) {
        uint32_t reg = sh->out[e].reg & 0xF, sem = 0x1F, num = 0;
        if (!(sh->outmap_mask & 1u << reg)) {
            sh->outmap_mask |= 1u << reg;
            sh->outmap_total++;
        }
        switch (sh->out[e].type) {
        case PVK_SHBIN_OUT_POSITION: sem = 0x00; num = 4; break;
        case PVK_SHBIN_OUT_NORMALQUAT: sem = 0x04; num = 4; break;
        case PVK_SHBIN_OUT_COLOR: sem = 0x08; num = 4; break;
        case PVK_SHBIN_OUT_TEXCOORD0: sem = 0x0C; num = 2; break;
        case PVK_SHBIN_OUT_TEXCOORD1: sem = 0x0E; num = 2; break;
        case PVK_SHBIN_OUT_TEXCOORD0W: sem = 0x10; num = 1; break;
        case PVK_SHBIN_OUT_VIEW: sem = 0x12; num = 3; break;
        case PVK_SHBIN_OUT_TEXCOORD2: sem = 0x16; num = 2; break;
        default: break; /* dummy: written but not mapped */
        }
        if (reg >= 7 || !num)
            continue;
        /* semantics go to the masked components in order; extras stay unused */
        for (uint32_t c = 0; c < 4; c++) {
            if (!(sh->out[e].mask & 1u << c))
                continue;
            uint32_t v = num ? sem : 0x1F;
            sh->outmap[reg] = (sh->outmap[reg] & ~(0xFFu << (8 * c))) | v << (8 * c);
            if (num) {
                sem++;
                num--;
            }
        }
    }
}

/* ---- upload ---- */

typedef struct wbuf {
    pvk_reg_write *out;
    uint32_t cap, n;
} wbuf;

static void put_reg(wbuf *b, uint32_t id, uint32_t value)
{
    if (b->out && b->n < b->cap) {
        b->out[b->n].id = id;
        b->out[b->n].value = value;
    }
    b->n++;
}

/* A unit's own registers: code, descriptors, constants, entry point and
 * output mask, through the vertex (0x2B0-) or geometry (0x280-) ports.
 * `bools_always`: write the bool uniforms even without .setb constants
 * (libctru's shaderProgramUse always does; b15 starts clear). */
static void put_unit(wbuf *b, const pvk_shbin *sh, bool geometry, bool bools_always)
{
    uint32_t u = geometry ? PVK_GPUREG_GSH_BASE - PVK_GPUREG_VSH_BASE : 0; /* added mod 2^32 */
    uint32_t code = sh->code_len < PVK_SH_CODE_WORDS ? sh->code_len : PVK_SH_CODE_WORDS;
    uint32_t ops = sh->opdesc_len < PVK_SH_OPDESCS ? sh->opdesc_len : PVK_SH_OPDESCS;
    put_reg(b, PVK_GPUREG_VSH_CODETRANSFER_CONFIG + u, 0);
    for (uint32_t i = 0; i < code; i++)
        put_reg(b, PVK_GPUREG_VSH_CODETRANSFER_DATA + u, sh->code[i]);
    put_reg(b, PVK_GPUREG_VSH_CODETRANSFER_END + u, 1);
    put_reg(b, PVK_GPUREG_VSH_OPDESCS_CONFIG + u, 0);
    for (uint32_t i = 0; i < ops; i++)
        put_reg(b, PVK_GPUREG_VSH_OPDESCS_DATA + u, sh->opdesc[i]);
    for (uint32_t i = 0; i < sh->fconst_count && i < PVK_SH_FLOAT_UNIFORMS; i++) {
        uint32_t w[3];
        pvk_pack_f24x4(sh->fconst[i].f24, w);
        put_reg(b, PVK_GPUREG_VSH_FLOATUNIFORM_CONFIG + u, sh->fconst[i].reg); /* bit 31 clear: f24 */
        put_reg(b, PVK_GPUREG_VSH_FLOATUNIFORM_DATA + u, w[0]);
        put_reg(b, PVK_GPUREG_VSH_FLOATUNIFORM_DATA + u, w[1]);
        put_reg(b, PVK_GPUREG_VSH_FLOATUNIFORM_DATA + u, w[2]);
    }
    for (uint32_t i = 0; i < sh->iconst_count && i < 8; i++) {
        const uint8_t *v = sh->iconst[i].v;
        put_reg(b, PVK_GPUREG_VSH_INTUNIFORM_I0 + u + (sh->iconst[i].reg & 3),
                (uint32_t)v[0] | (uint32_t)v[1] << 8 | (uint32_t)v[2] << 16 | (uint32_t)v[3] << 24);
    }
    if (sh->bconst_count || bools_always) {
        uint32_t bits = 0;
        for (uint32_t i = 0; i < sh->bconst_count && i < 32; i++) {
            uint32_t bit = 1u << (sh->bconst[i].reg & 15);
            bits = sh->bconst[i].value ? bits | bit : bits & ~bit;
        }
        put_reg(b, PVK_GPUREG_VSH_BOOLUNIFORM + u, 0x7FFF0000u | bits);
    }
    put_reg(b, PVK_GPUREG_VSH_ENTRYPOINT + u, 0x7FFF0000u | (sh->entry & 0xFFFF));
    put_reg(b, PVK_GPUREG_VSH_OUTMAP_MASK + u, sh->outmap_mask & 0xFFFF);
}

static void put_outmap(wbuf *b, uint32_t total, const uint32_t map[7])
{
    put_reg(b, PVK_GPUREG_SH_OUTMAP_TOTAL, total);
    for (uint32_t i = 0; i < 7; i++)
        put_reg(b, PVK_GPUREG_SH_OUTMAP_O0 + i, map[i]);
}

uint32_t pvk_shbin_upload(const pvk_shbin *sh, pvk_reg_write *out, uint32_t cap)
{
    wbuf b = {out, cap, 0};
    put_unit(&b, sh, false, false);
    if (sh->outmap_total) {
        put_reg(&b, PVK_GPUREG_VSH_OUTMAP_TOTAL1, sh->outmap_total - 1);
        put_reg(&b, PVK_GPUREG_VSH_OUTMAP_TOTAL2, sh->outmap_total - 1);
    }
    put_outmap(&b, sh->outmap_total, sh->outmap);
    return b.n;
}

/* libctru's merged output map (shaderProgramConfigure with a GS whose DVLE
 * has mergeOutmaps): slots both maps have, then the GS's own, then the
 * VS's own, packed from slot 0. */
static uint32_t merge_outmaps(const pvk_shbin *vsh, const pvk_shbin *gsh, uint32_t map[7])
{
    uint32_t n = 0, vs_used = 0, gs_used = 0;
    for (int i = 0; i < 7; i++)
        map[i] = 0x1F1F1F1Fu;
    for (int g = 0; g < 7 && gsh->outmap[g] != 0x1F1F1F1Fu; g++)
        for (int v = 0; v < 7; v++)
            if (vsh->outmap[v] == gsh->outmap[g] && n < 7) {
                map[n++] = gsh->outmap[g];
                vs_used |= 1u << v, gs_used |= 1u << g;
                break;
            }
    for (int g = 0; g < 7 && gsh->outmap[g] != 0x1F1F1F1Fu; g++)
        if (!(gs_used & 1u << g) && n < 7)
            map[n++] = gsh->outmap[g];
    for (int v = 0; v < 7 && vsh->outmap[v] != 0x1F1F1F1Fu; v++)
        if (!(vs_used & 1u << v) && n < 7)
            map[n++] = vsh->outmap[v];
    return n;
}

uint32_t pvk_shbin_upload_program(const pvk_shbin *vsh, const pvk_shbin *gsh, uint32_t stride, pvk_reg_write *out,
                                  uint32_t cap)
{
    wbuf b = {out, cap, 0};
    /* the geometry stage first: with it on, the vertex registers reach only
     * the three vertex units (libctru's comment in shaderProgramConfigure) */
    bool variable = gsh->gsh_mode == 1;
    put_reg(&b, PVK_GPUREG_GEOSTAGE_CONFIG, 2u | (variable ? 0x80000000u : 0));
    put_reg(&b, PVK_GPUREG_GEOSTAGE_CONFIG2, 0);
    put_reg(&b, PVK_GPUREG_VSH_COM_MODE, 1);
    put_unit(&b, vsh, false, true);
    uint32_t vs_total = vsh->outmap_total ? vsh->outmap_total : 1;
    put_reg(&b, PVK_GPUREG_VSH_OUTMAP_TOTAL1, vs_total - 1);
    put_reg(&b, PVK_GPUREG_VSH_OUTMAP_TOTAL2, vs_total - 1);
    put_unit(&b, gsh, true, true);
    if (gsh->merge_outmaps) {
        uint32_t map[7];
        uint32_t n = merge_outmaps(vsh, gsh, map);
        put_outmap(&b, n, map);
    } else {
        put_outmap(&b, gsh->outmap_total, gsh->outmap);
    }
    if (!stride || stride > 16)
        stride = vs_total;
    uint32_t misc = gsh->gsh_mode;
    if (gsh->gsh_mode == 2)
        misc |= 0x01000000u | (uint32_t)gsh->gsh_fixed_start << 16 | (stride - 1) << 12 |
                (uint32_t)((gsh->gsh_fixed_num - 1) & 0xF) << 8;
    put_reg(&b, PVK_GPUREG_GSH_MISC0, misc);
    put_reg(&b, PVK_GPUREG_GSH_MISC1, variable ? (uint32_t)((gsh->gsh_variable_num - 1) & 0x1F) : 0);
    put_reg(&b, PVK_GPUREG_GSH_INPUTBUFFER_CONFIG, 0x08000000u | (gsh->gsh_mode ? 0x100u : 0) | (stride - 1));
    put_reg(&b, PVK_GPUREG_GSH_ATTRIBUTES_PERMUTATION_LOW, 0x76543210u);
    put_reg(&b, PVK_GPUREG_GSH_ATTRIBUTES_PERMUTATION_HIGH, 0xFEDCBA98u);
    return b.n;
}

/* ---- SHBIN files ---- */

static void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static void put32(uint8_t *p, uint32_t v)
{
    put16(p, v);
    put16(p + 2, v >> 16);
}
static uint32_t get16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t get32(const uint8_t *p) { return get16(p) | get16(p + 2) << 16; }

/* One DVLE's size: the 0x40-byte header, constants, labels (none),
 * outputs, uniforms, symbol table padded to a word; offsets in *lay. */
typedef struct dvle_layout {
    uint32_t nconst, sym, e_const, e_label, e_out, e_unif, e_sym, size;
} dvle_layout;

static bool entry_ok(const pvk_shbin *sh)
{
    return sh->code_len <= PVK_SH_CODE_WORDS && sh->opdesc_len <= PVK_SH_OPDESCS &&
           sh->out_count <= PVK_SHBIN_MAX_OUTPUTS && sh->uniform_count <= PVK_SHBIN_MAX_UNIFORMS &&
           sh->fconst_count <= PVK_SH_FLOAT_UNIFORMS && sh->iconst_count <= 8 && sh->bconst_count <= 32;
}

static dvle_layout dvle_size(const pvk_shbin *sh)
{
    dvle_layout l = {.nconst = sh->fconst_count + sh->iconst_count + sh->bconst_count};
    for (uint32_t i = 0; i < sh->uniform_count; i++)
        l.sym += (uint32_t)strnlen(sh->uniform[i].name, PVK_SHBIN_NAME_LEN - 1) + 1;
    l.e_const = 0x40;
    l.e_label = l.e_const + 20 * l.nconst;
    l.e_out = l.e_label;
    l.e_unif = l.e_out + 8 * sh->out_count;
    l.e_sym = l.e_unif + 8 * sh->uniform_count;
    l.size = l.e_sym + ((l.sym + 3) & ~3u);
    return l;
}

static void put_dvle(uint8_t *e, const pvk_shbin *sh, const dvle_layout *l)
{
    memcpy(e, "DVLE", 4);
    put16(e + 0x04, 0x1002); /* the version picasso writes */
    e[6] = sh->geometry ? 1 : 0; /* 0 vertex, 1 geometry shader */
    e[7] = sh->merge_outmaps ? 1 : 0;
    if (sh->geometry) {      /* libctru DVLB_ParseFile: mode, fixed start, variable count, fixed count */
        e[0x14] = sh->gsh_mode;
        e[0x15] = sh->gsh_fixed_start;
        e[0x16] = sh->gsh_variable_num;
        e[0x17] = sh->gsh_fixed_num;
    }
    put32(e + 0x08, sh->entry);
    put32(e + 0x0C, sh->entry_end);
    put16(e + 0x10, sh->input_mask);
    put16(e + 0x12, sh->outmap_mask);
    put32(e + 0x18, l->e_const);
    put32(e + 0x1C, l->nconst);
    put32(e + 0x20, l->e_label);
    put32(e + 0x24, 0);
    put32(e + 0x28, l->e_out);
    put32(e + 0x2C, sh->out_count);
    put32(e + 0x30, l->e_unif);
    put32(e + 0x34, sh->uniform_count);
    put32(e + 0x38, l->e_sym);
    put32(e + 0x3C, l->sym);
    /* one table in source order (picasso's), merged from the three lists */
    uint8_t *c = e + l->e_const;
    for (uint32_t bi = 0, ii = 0, fi = 0; bi + ii + fi < l->nconst; c += 20) {
        uint32_t bs = bi < sh->bconst_count ? sh->bconst[bi].seq : UINT32_MAX;
        uint32_t is = ii < sh->iconst_count ? sh->iconst[ii].seq : UINT32_MAX;
        uint32_t fs = fi < sh->fconst_count ? sh->fconst[fi].seq : UINT32_MAX;
        if (bs <= is && bs <= fs) {
            put16(c, 0);
            put16(c + 2, sh->bconst[bi].reg);
            c[4] = sh->bconst[bi++].value;
        } else if (is <= fs) {
            put16(c, 1);
            put16(c + 2, sh->iconst[ii].reg);
            memcpy(c + 4, sh->iconst[ii++].v, 4);
        } else {
            put16(c, 2);
            put16(c + 2, sh->fconst[fi].reg);
            for (int k = 0; k < 4; k++)
                put32(c + 4 + 4 * k, sh->fconst[fi].f24[k] & 0xFFFFFF);
            fi++;
        }
    }
    for (uint32_t i = 0; i < sh->out_count; i++) {
        put16(e + l->e_out + 8 * i, sh->out[i].type);
        put16(e + l->e_out + 8 * i + 2, sh->out[i].reg);
        put16(e + l->e_out + 8 * i + 4, sh->out[i].mask);
    }
    uint32_t so = 0;
    for (uint32_t i = 0; i < sh->uniform_count; i++) {
        size_t n = strnlen(sh->uniform[i].name, PVK_SHBIN_NAME_LEN - 1);
        put32(e + l->e_unif + 8 * i, so);
        put16(e + l->e_unif + 8 * i + 4, sh->uniform[i].first);
        put16(e + l->e_unif + 8 * i + 6, sh->uniform[i].last);
        memcpy(e + l->e_sym + so, sh->uniform[i].name, n);
        so += (uint32_t)n + 1;
    }
}

/* Layout (picasso's): DVLB header (magic, N, N DVLE offsets from the file's
 * start), DVLP (0x28-byte header, code, operand descriptors as 8-byte
 * entries; its offsets from the DVLP's start), then the N DVLEs (their
 * offsets from each DVLE's start), each padded to a word. */
pvk_result pvk_shbin_write_entries(const pvk_shbin *sh, uint32_t n, uint8_t **data, size_t *size)
{
    if (!sh || !n || n > PVK_SHBIN_MAX_ENTRIES || !data || !size)
        return PVK_ERROR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < n; i++)
        if (!entry_ok(&sh[i]) || sh[i].code_len != sh[0].code_len || sh[i].opdesc_len != sh[0].opdesc_len ||
            memcmp(sh[i].code, sh[0].code, 4 * sh[0].code_len) ||
            memcmp(sh[i].opdesc, sh[0].opdesc, 4 * sh[0].opdesc_len))
            return PVK_ERROR_INVALID_ARGUMENT; /* one DVLP: the entries must share it */
    uint32_t dvlp = 8 + 4 * n, dvlp_code = 0x28, dvlp_ops = dvlp_code + 4 * sh->code_len,
             dvlp_sym = dvlp_ops + 8 * sh->opdesc_len;
    size_t total = dvlp + dvlp_sym;
    for (uint32_t i = 0; i < n; i++)
        total += dvle_size(&sh[i]).size;
    uint8_t *b = calloc(1, total);
    if (!b)
        return PVK_ERROR_OUT_OF_MEMORY;

    memcpy(b, "DVLB", 4);
    put32(b + 4, n);
    uint8_t *p = b + dvlp;
    memcpy(p, "DVLP", 4);
    put32(p + 0x08, dvlp_code);
    put32(p + 0x0C, sh->code_len);
    put32(p + 0x10, dvlp_ops);
    put32(p + 0x14, sh->opdesc_len);
    put32(p + 0x18, dvlp_sym); /* 0x1C-0x24 stay zero, as picasso leaves them */
    for (uint32_t i = 0; i < sh->code_len; i++)
        put32(p + dvlp_code + 4 * i, sh->code[i]);
    for (uint32_t i = 0; i < sh->opdesc_len; i++)
        put32(p + dvlp_ops + 8 * i, sh->opdesc[i]);

    uint32_t at = dvlp + dvlp_sym;
    for (uint32_t i = 0; i < n; i++) {
        dvle_layout l = dvle_size(&sh[i]);
        put32(b + 8 + 4 * i, at);
        put_dvle(b + at, &sh[i], &l);
        at += l.size;
    }
    *data = b;
    *size = total;
    return PVK_SUCCESS;
}

pvk_result pvk_shbin_write(const pvk_shbin *sh, uint8_t **data, size_t *size)
{
    return pvk_shbin_write_entries(sh, 1, data, size);
}

/* [off, off+n) inside [0, size)? */
static bool in_file(size_t size, uint64_t off, uint64_t n) { return off <= size && n <= size - off; }

uint32_t pvk_shbin_entries(const uint8_t *d, size_t size)
{
    if (!d || !in_file(size, 0, 16) || memcmp(d, "DVLB", 4) || !in_file(size, 8, 4ull * get32(d + 4)))
        return 0;
    return get32(d + 4);
}

pvk_result pvk_shbin_read_entry(const uint8_t *d, size_t size, uint32_t index, pvk_shbin *out)
{
    if (!d || !out)
        return PVK_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    uint32_t n = pvk_shbin_entries(d, size);
    if (!n)
        return PVK_ERROR_BAD_DATA;
    if (index >= n)
        return PVK_ERROR_INVALID_ARGUMENT;
    uint64_t dvlp = 8 + 4ull * get32(d + 4);
    if (!in_file(size, dvlp, 0x28) || memcmp(d + dvlp, "DVLP", 4))
        return PVK_ERROR_BAD_DATA;
    const uint8_t *p = d + dvlp;
    uint64_t code = dvlp + get32(p + 0x08), ncode = get32(p + 0x0C);
    uint64_t ops = dvlp + get32(p + 0x10), nops = get32(p + 0x14);
    if (ncode > PVK_SH_CODE_WORDS || nops > PVK_SH_OPDESCS || !in_file(size, code, 4 * ncode) ||
        !in_file(size, ops, 8 * nops))
        return PVK_ERROR_BAD_DATA;
    for (uint32_t i = 0; i < ncode; i++)
        out->code[i] = get32(d + code + 4 * i);
    for (uint32_t i = 0; i < nops; i++)
        out->opdesc[i] = get32(d + ops + 8 * i);
    out->code_len = (uint32_t)ncode;
    out->opdesc_len = (uint32_t)nops;

    uint64_t dvle = get32(d + 8 + 4ull * index);
    if (!in_file(size, dvle, 0x40) || memcmp(d + dvle, "DVLE", 4))
        goto bad;
    const uint8_t *e = d + dvle;
    out->entry = get32(e + 0x08);
    out->entry_end = get32(e + 0x0C);
    if (e[6] > 1 || (e[6] == 1 && e[0x14] > 2))
        goto bad;
    out->geometry = e[6] == 1;
    out->merge_outmaps = e[7] & 1;
    if (out->geometry) {
        out->gsh_explicit = true;
        out->gsh_mode = e[0x14];
        out->gsh_fixed_start = e[0x15];
        out->gsh_variable_num = e[0x16];
        out->gsh_fixed_num = e[0x17];
    }
    out->input_mask = get16(e + 0x10);
    uint64_t c = dvle + get32(e + 0x18), nc = get32(e + 0x1C);
    uint64_t o = dvle + get32(e + 0x28), no = get32(e + 0x2C);
    uint64_t u = dvle + get32(e + 0x30), nu = get32(e + 0x34);
    uint64_t sy = dvle + get32(e + 0x38), nsy = get32(e + 0x3C);
    if (out->entry >= PVK_SH_CODE_WORDS || !in_file(size, c, 20 * nc) || !in_file(size, o, 8 * no) ||
        no > PVK_SHBIN_MAX_OUTPUTS || !in_file(size, u, 8 * nu) || nu > PVK_SHBIN_MAX_UNIFORMS ||
        !in_file(size, sy, nsy))
        goto bad;
    for (uint64_t i = 0; i < nc; i++) {
        const uint8_t *k = d + c + 20 * i;
        uint32_t type = get16(k), reg = get16(k + 2);
        if (type == 0 && reg < 16 && out->bconst_count < 32) {
            out->bconst[out->bconst_count].reg = (uint8_t)reg;
            out->bconst[out->bconst_count].seq = (uint16_t)i;
            out->bconst[out->bconst_count++].value = k[4] != 0;
        } else if (type == 1 && reg < 4 && out->iconst_count < 8) {
            out->iconst[out->iconst_count].reg = (uint8_t)reg;
            out->iconst[out->iconst_count].seq = (uint16_t)i;
            memcpy(out->iconst[out->iconst_count++].v, k + 4, 4);
        } else if (type == 2 && reg < PVK_SH_FLOAT_UNIFORMS && out->fconst_count < PVK_SH_FLOAT_UNIFORMS) {
            out->fconst[out->fconst_count].reg = (uint8_t)reg;
            out->fconst[out->fconst_count].seq = (uint16_t)i;
            for (int j = 0; j < 4; j++)
                out->fconst[out->fconst_count].f24[j] = get32(k + 4 + 4 * j) & 0xFFFFFF;
            out->fconst_count++;
        } else {
            goto bad;
        }
    }
    for (uint64_t i = 0; i < no; i++) {
        const uint8_t *k = d + o + 8 * i;
        if (get16(k + 2) >= 16)
            goto bad;
        out->out[i].type = (uint8_t)get16(k);
        out->out[i].reg = (uint8_t)get16(k + 2);
        out->out[i].mask = (uint8_t)(k[4] & 0xF);
    }
    out->out_count = (uint32_t)no;
    for (uint64_t i = 0; i < nu; i++) {
        const uint8_t *k = d + u + 8 * i;
        uint32_t so = get32(k);
        if (so >= nsy)
            goto bad;
        size_t n = strnlen((const char *)d + sy + so, nsy - so);
        if (n >= PVK_SHBIN_NAME_LEN)
            n = PVK_SHBIN_NAME_LEN - 1;
        memcpy(out->uniform[i].name, d + sy + so, n);
        out->uniform[i].name[n] = 0;
        out->uniform[i].first = (uint16_t)get16(k + 4);
        out->uniform[i].last = (uint16_t)get16(k + 6);
    }
    out->uniform_count = (uint32_t)nu;
    pvk_shbin_build_outmap(out);
    return PVK_SUCCESS;
bad:
    memset(out, 0, sizeof *out);
    return PVK_ERROR_BAD_DATA;
}

pvk_result pvk_shbin_read(const uint8_t *d, size_t size, pvk_shbin *out)
{
    return pvk_shbin_read_entry(d, size, 0, out);
}

/* ---- public entry point (include/picavk/picavk.h) ---- */

pvk_result pvk_shader_assemble(const char *src, size_t len, void **data, size_t *size, char *err, size_t err_len)
{
    if (!data || !size)
        return PVK_ERROR_INVALID_ARGUMENT;
    *data = NULL;
    *size = 0;
    pvk_shbin *sh = malloc(sizeof *sh);
    if (!sh)
        return PVK_ERROR_OUT_OF_MEMORY;
    pvk_result r = pvk_pica_asm(src, len, sh, err, err_len);
    uint8_t *bytes = NULL;
    if (!r)
        r = pvk_shbin_write(sh, &bytes, size);
    free(sh);
    *data = bytes;
    return r;
}
