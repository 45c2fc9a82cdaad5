/* The PICA200 shader instruction set, defined once: opcodes, word layouts and
 * operand-descriptor fields (3dbrew "GPU/Shader Instruction Set").  The
 * interpreter (translator/shader.c), the assembler (tools/asm.c) and the
 * coming SPIR-V translator all read instructions through these.
 *
 *   1   op[31:26] dst[25:21] idx[20:19] src1[18:12] src2[11:7] desc[6:0]
 *   1i  op[31:26] dst[25:21] idx[20:19] src1[18:14] src2[13:7] desc[6:0]
 *   1u  format 1 without src2 (one source)
 *   1c  op[31:27] cmpx[26:24] cmpy[23:21] idx[20:19] src1[18:12] src2[11:7] desc[6:0]
 *   2   op[31:26] refx[25] refy[24] condop[23:22] dst[21:10] num[7:0]
 *   3   op[31:26] bool/int id[25:22] dst[21:10] num[7:0]
 *   4   op[31:26] vtx[25:24] prim[23] inv[22]                       (SETEMIT)
 *   5   op[31:29] dst[28:24] idx[23:22] src1[21:17] src2[16:10] src3[9:5] desc[4:0]
 *   5i  op[31:29] dst[28:24] idx[23:22] src1[21:17] src2[16:12] src3[11:5] desc[4:0]
 * Operand descriptor: dst mask[3:0] (bit 3 = x), src1 neg[4] swizzle[12:5],
 * src2 neg[13] swizzle[21:14], src3 neg[22] swizzle[30:23]; a swizzle holds
 * component 0 in its top two bits (xyzw = 0x1B).
 * Source registers: 0x00-0x0F v, 0x10-0x1F r, 0x20-0x7F c (7-bit fields;
 * 5-bit fields reach v and r only).  Destinations: 0x00-0x0F o, 0x10-0x1F r.
 * Relative index: 0 none, 1 a0.x, 2 a0.y, 3 aL. */
#ifndef PVK_SH_ISA_H
#define PVK_SH_ISA_H

#include <stdbool.h>
#include <stdint.h>

#define PVK_SH_CODE_WORDS 4096
#define PVK_SH_OPDESCS 128
#define PVK_SH_FLOAT_UNIFORMS 96
#define PVK_SH_INPUTS 16  /* v0-v15 */
#define PVK_SH_OUTPUTS 16 /* o0-o15 */

enum pvk_sh_op {
    PVK_SH_ADD = 0x00, PVK_SH_DP3 = 0x01, PVK_SH_DP4 = 0x02, PVK_SH_DPH = 0x03, PVK_SH_DST = 0x04,
    PVK_SH_EX2 = 0x05, PVK_SH_LG2 = 0x06, PVK_SH_LITP = 0x07, PVK_SH_MUL = 0x08, PVK_SH_SGE = 0x09,
    PVK_SH_SLT = 0x0A, PVK_SH_FLR = 0x0B, PVK_SH_MAX = 0x0C, PVK_SH_MIN = 0x0D, PVK_SH_RCP = 0x0E,
    PVK_SH_RSQ = 0x0F, PVK_SH_MOVA = 0x12, PVK_SH_MOV = 0x13,
    PVK_SH_DPHI = 0x18, PVK_SH_DSTI = 0x19, PVK_SH_SGEI = 0x1A, PVK_SH_SLTI = 0x1B,
    PVK_SH_BREAK = 0x20, PVK_SH_NOP = 0x21, PVK_SH_END = 0x22, PVK_SH_BREAKC = 0x23, PVK_SH_CALL = 0x24,
    PVK_SH_CALLC = 0x25, PVK_SH_CALLU = 0x26, PVK_SH_IFU = 0x27, PVK_SH_IFC = 0x28, PVK_SH_LOOP = 0x29,
    PVK_SH_EMIT = 0x2A, PVK_SH_SETEMIT = 0x2B, PVK_SH_JMPC = 0x2C, PVK_SH_JMPU = 0x2D,
    PVK_SH_CMP = 0x2E,  /* 0x2E-0x2F */
    PVK_SH_MADI = 0x30, /* 0x30-0x37 */
    PVK_SH_MAD = 0x38,  /* 0x38-0x3F */
};

#define PVK_SH_FIELD_(w, lo, n) (((w) >> (lo)) & ((1u << (n)) - 1u))

static inline uint32_t pvk_sh_opcode(uint32_t w) { return w >> 26; }
static inline bool pvk_sh_is_mad(uint32_t op) { return op >= PVK_SH_MADI; }
static inline bool pvk_sh_is_cmp(uint32_t op) { return (op & ~1u) == PVK_SH_CMP; }
/* Formats 1i and 5i: the wide (relative) source is the second. */
static inline bool pvk_sh_is_inverted(uint32_t op)
{
    return (op >= PVK_SH_DPHI && op <= PVK_SH_SLTI) || (op >= PVK_SH_MADI && op < PVK_SH_MAD);
}

/* Formats 1, 1i, 1u, 1c */
static inline uint32_t pvk_sh_f1_desc(uint32_t w) { return PVK_SH_FIELD_(w, 0, 7); }
static inline uint32_t pvk_sh_f1_dst(uint32_t w) { return PVK_SH_FIELD_(w, 21, 5); }
static inline uint32_t pvk_sh_f1_idx(uint32_t w) { return PVK_SH_FIELD_(w, 19, 2); }
static inline uint32_t pvk_sh_f1_src1(uint32_t w) { return PVK_SH_FIELD_(w, 12, 7); }
static inline uint32_t pvk_sh_f1_src2(uint32_t w) { return PVK_SH_FIELD_(w, 7, 5); }
static inline uint32_t pvk_sh_f1i_src1(uint32_t w) { return PVK_SH_FIELD_(w, 14, 5); }
static inline uint32_t pvk_sh_f1i_src2(uint32_t w) { return PVK_SH_FIELD_(w, 7, 7); }
static inline uint32_t pvk_sh_f1c_cmpx(uint32_t w) { return PVK_SH_FIELD_(w, 24, 3); }
static inline uint32_t pvk_sh_f1c_cmpy(uint32_t w) { return PVK_SH_FIELD_(w, 21, 3); }

/* Formats 2 and 3 */
static inline uint32_t pvk_sh_f2_num(uint32_t w) { return PVK_SH_FIELD_(w, 0, 8); }
static inline uint32_t pvk_sh_f2_dst(uint32_t w) { return PVK_SH_FIELD_(w, 10, 12); }
static inline uint32_t pvk_sh_f2_condop(uint32_t w) { return PVK_SH_FIELD_(w, 22, 2); }
static inline bool pvk_sh_f2_refx(uint32_t w) { return PVK_SH_FIELD_(w, 25, 1); }
static inline bool pvk_sh_f2_refy(uint32_t w) { return PVK_SH_FIELD_(w, 24, 1); }
static inline uint32_t pvk_sh_f3_id(uint32_t w) { return PVK_SH_FIELD_(w, 22, 4); }

/* Format 4 (SETEMIT) */
static inline uint32_t pvk_sh_f4_vtx(uint32_t w) { return PVK_SH_FIELD_(w, 24, 2); }
static inline bool pvk_sh_f4_prim(uint32_t w) { return PVK_SH_FIELD_(w, 23, 1); }
static inline bool pvk_sh_f4_inv(uint32_t w) { return PVK_SH_FIELD_(w, 22, 1); }

/* Formats 5 and 5i */
static inline uint32_t pvk_sh_f5_desc(uint32_t w) { return PVK_SH_FIELD_(w, 0, 5); }
static inline uint32_t pvk_sh_f5_dst(uint32_t w) { return PVK_SH_FIELD_(w, 24, 5); }
static inline uint32_t pvk_sh_f5_idx(uint32_t w) { return PVK_SH_FIELD_(w, 22, 2); }
static inline uint32_t pvk_sh_f5_src1(uint32_t w) { return PVK_SH_FIELD_(w, 17, 5); }
static inline uint32_t pvk_sh_f5_src2(uint32_t w) { return PVK_SH_FIELD_(w, 10, 7); }
static inline uint32_t pvk_sh_f5_src3(uint32_t w) { return PVK_SH_FIELD_(w, 5, 5); }
static inline uint32_t pvk_sh_f5i_src2(uint32_t w) { return PVK_SH_FIELD_(w, 12, 5); }
static inline uint32_t pvk_sh_f5i_src3(uint32_t w) { return PVK_SH_FIELD_(w, 5, 7); }

/* Operand descriptor */
static inline uint32_t pvk_sh_desc_mask(uint32_t d) { return d & 0xFu; } /* bit 3 = x ... bit 0 = w */
static inline bool pvk_sh_desc_neg(uint32_t d, unsigned src) { return (d >> (4 + 9 * src)) & 1u; }
static inline uint32_t pvk_sh_desc_swizzle(uint32_t d, unsigned src) { return (d >> (5 + 9 * src)) & 0xFFu; }

#endif
