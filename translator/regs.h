/* The PICA200 internal register file, 0x000-0x3FF: every register that
 * libctru (include/3ds/gpu/registers.h), 3dbrew (GPU/Internal Registers) or
 * GBATEK (the seed documents 000/001, "Finalize Interrupt registers") names,
 * named once, with accessors for the fields those sources document.
 *
 * Names follow libctru with a PVK_ prefix.  Where a seed document uses a
 * different name the comment gives it.  Registers that several ids alias
 * (FIFO data ports written with consecutive mode) are named by their first id
 * and a _COUNT.  Values are the 32-bit words as the CPU or a command list
 * writes them; the CPU sees register id at 0x10401000 + 4 * id. */
#ifndef PVK_REGS_H
#define PVK_REGS_H

#include <stdint.h>

/* X(name, id): the list every table of names is built from. */
#define PVK_PICA_REG_LIST(X)                                                      \
    /* interrupts and finalize (0x000-0x03F; GBATEK) */                          \
    X(IRQ_ACK, 0x000)        /* 16 words: mirrors of IRQ_REQ, CPU side */         \
    X(FINALIZE, 0x010)       /* = IRQ_REQ word 0; 16 words 0x010-0x01F */         \
    X(IRQ_CMP, 0x020)        /* 16 words of compare bytes */                      \
    X(IRQ_MASK, 0x030)       /* low word; bit i set = IRQ byte i disabled */      \
    X(IRQ_MASK_HIGH, 0x031)                                                       \
    X(IRQ_STAT, 0x032)       /* read-only: byte i of REQ == byte i of CMP */      \
    X(IRQ_STAT_HIGH, 0x033)                                                       \
    X(IRQ_AUTOSTOP, 0x034)   /* bit 0: a matching REQ write ends the list */      \
    X(FIXED_00010002, 0x035) /* read-only 0x00010002 */                           \
    /* rasterizer (0x040-0x07F) */                                                \
    X(FACECULLING_CONFIG, 0x040)                                                  \
    X(VIEWPORT_WIDTH, 0x041)                                                      \
    X(VIEWPORT_INVW, 0x042)                                                       \
    X(VIEWPORT_HEIGHT, 0x043)                                                     \
    X(VIEWPORT_INVH, 0x044)                                                       \
    X(FRAGOP_CLIP, 0x047)                                                         \
    X(FRAGOP_CLIP_DATA0, 0x048)                                                   \
    X(FRAGOP_CLIP_DATA1, 0x049)                                                   \
    X(FRAGOP_CLIP_DATA2, 0x04A)                                                   \
    X(FRAGOP_CLIP_DATA3, 0x04B)                                                   \
    X(DEPTHMAP_SCALE, 0x04D)                                                      \
    X(DEPTHMAP_OFFSET, 0x04E)                                                     \
    X(SH_OUTMAP_TOTAL, 0x04F)                                                     \
    X(SH_OUTMAP_O0, 0x050)                                                        \
    X(SH_OUTMAP_O1, 0x051)                                                        \
    X(SH_OUTMAP_O2, 0x052)                                                        \
    X(SH_OUTMAP_O3, 0x053)                                                        \
    X(SH_OUTMAP_O4, 0x054)                                                        \
    X(SH_OUTMAP_O5, 0x055)                                                        \
    X(SH_OUTMAP_O6, 0x056)                                                        \
    X(EARLYDEPTH_FUNC, 0x061)                                                     \
    X(EARLYDEPTH_TEST1, 0x062)                                                    \
    X(EARLYDEPTH_CLEAR, 0x063)                                                    \
    X(SH_OUTATTR_MODE, 0x064)                                                     \
    X(SCISSORTEST_MODE, 0x065)                                                    \
    X(SCISSORTEST_POS, 0x066)                                                     \
    X(SCISSORTEST_DIM, 0x067)                                                     \
    X(VIEWPORT_XY, 0x068)                                                         \
    X(EARLYDEPTH_DATA, 0x06A)                                                     \
    X(DEPTHMAP_ENABLE, 0x06D)                                                     \
    X(RENDERBUF_DIM, 0x06E)  /* seed: GPUREG_RENDERBUFFER_DIM_1 */                \
    X(SH_OUTATTR_CLOCK, 0x06F)                                                    \
    /* texturing (0x080-0x0FF) */                                                 \
    X(TEXUNIT_CONFIG, 0x080)                                                      \
    X(TEXUNIT0_BORDER_COLOR, 0x081)                                               \
    X(TEXUNIT0_DIM, 0x082)                                                        \
    X(TEXUNIT0_PARAM, 0x083)                                                      \
    X(TEXUNIT0_LOD, 0x084)                                                        \
    X(TEXUNIT0_ADDR1, 0x085)                                                      \
    X(TEXUNIT0_ADDR2, 0x086)                                                      \
    X(TEXUNIT0_ADDR3, 0x087)                                                      \
    X(TEXUNIT0_ADDR4, 0x088)                                                      \
    X(TEXUNIT0_ADDR5, 0x089)                                                      \
    X(TEXUNIT0_ADDR6, 0x08A)                                                      \
    X(TEXUNIT0_SHADOW, 0x08B)                                                     \
    X(TEXUNIT0_TYPE, 0x08E)                                                       \
    X(LIGHTING_ENABLE0, 0x08F)                                                    \
    X(TEXUNIT1_BORDER_COLOR, 0x091)                                               \
    X(TEXUNIT1_DIM, 0x092)                                                        \
    X(TEXUNIT1_PARAM, 0x093)                                                      \
    X(TEXUNIT1_LOD, 0x094)                                                        \
    X(TEXUNIT1_ADDR, 0x095)                                                       \
    X(TEXUNIT1_TYPE, 0x096)                                                       \
    X(TEXUNIT2_BORDER_COLOR, 0x099)                                               \
    X(TEXUNIT2_DIM, 0x09A)                                                        \
    X(TEXUNIT2_PARAM, 0x09B)                                                      \
    X(TEXUNIT2_LOD, 0x09C)                                                        \
    X(TEXUNIT2_ADDR, 0x09D)                                                       \
    X(TEXUNIT2_TYPE, 0x09E)                                                       \
    X(TEXUNIT3_PROCTEX0, 0x0A8)                                                   \
    X(TEXUNIT3_PROCTEX1, 0x0A9)                                                   \
    X(TEXUNIT3_PROCTEX2, 0x0AA)                                                   \
    X(TEXUNIT3_PROCTEX3, 0x0AB)                                                   \
    X(TEXUNIT3_PROCTEX4, 0x0AC)                                                   \
    X(TEXUNIT3_PROCTEX5, 0x0AD)                                                   \
    X(PROCTEX_LUT, 0x0AF)                                                         \
    X(PROCTEX_LUT_DATA, 0x0B0) /* FIFO, 8 aliases 0x0B0-0x0B7 */                  \
    X(TEXENV0_SOURCE, 0x0C0)                                                      \
    X(TEXENV0_OPERAND, 0x0C1)                                                     \
    X(TEXENV0_COMBINER, 0x0C2)                                                    \
    X(TEXENV0_COLOR, 0x0C3)                                                       \
    X(TEXENV0_SCALE, 0x0C4)                                                       \
    X(TEXENV1_SOURCE, 0x0C8)                                                      \
    X(TEXENV1_OPERAND, 0x0C9)                                                     \
    X(TEXENV1_COMBINER, 0x0CA)                                                    \
    X(TEXENV1_COLOR, 0x0CB)                                                       \
    X(TEXENV1_SCALE, 0x0CC)                                                       \
    X(TEXENV2_SOURCE, 0x0D0)                                                      \
    X(TEXENV2_OPERAND, 0x0D1)                                                     \
    X(TEXENV2_COMBINER, 0x0D2)                                                    \
    X(TEXENV2_COLOR, 0x0D3)                                                       \
    X(TEXENV2_SCALE, 0x0D4)                                                       \
    X(TEXENV3_SOURCE, 0x0D8)                                                      \
    X(TEXENV3_OPERAND, 0x0D9)                                                     \
    X(TEXENV3_COMBINER, 0x0DA)                                                    \
    X(TEXENV3_COLOR, 0x0DB)                                                       \
    X(TEXENV3_SCALE, 0x0DC)                                                       \
    X(TEXENV_UPDATE_BUFFER, 0x0E0)                                                \
    X(FOG_COLOR, 0x0E1)                                                           \
    X(GAS_ATTENUATION, 0x0E4)                                                     \
    X(GAS_ACCMAX, 0x0E5)                                                          \
    X(FOG_LUT_INDEX, 0x0E6)                                                       \
    X(FOG_LUT_DATA, 0x0E8) /* FIFO, 8 aliases 0x0E8-0x0EF */                      \
    X(TEXENV4_SOURCE, 0x0F0)                                                      \
    X(TEXENV4_OPERAND, 0x0F1)                                                     \
    X(TEXENV4_COMBINER, 0x0F2)                                                    \
    X(TEXENV4_COLOR, 0x0F3)                                                       \
    X(TEXENV4_SCALE, 0x0F4)                                                       \
    X(TEXENV5_SOURCE, 0x0F8)                                                      \
    X(TEXENV5_OPERAND, 0x0F9)                                                     \
    X(TEXENV5_COMBINER, 0x0FA)                                                    \
    X(TEXENV5_COLOR, 0x0FB)                                                       \
    X(TEXENV5_SCALE, 0x0FC)                                                       \
    X(TEXENV_BUFFER_COLOR, 0x0FD)                                                 \
    /* framebuffer (0x100-0x13F) */                                               \
    X(COLOR_OPERATION, 0x100)                                                     \
    X(BLEND_FUNC, 0x101)                                                          \
    X(LOGIC_OP, 0x102)                                                            \
    X(BLEND_COLOR, 0x103)                                                         \
    X(FRAGOP_ALPHA_TEST, 0x104)                                                   \
    X(STENCIL_TEST, 0x105)                                                        \
    X(STENCIL_OP, 0x106)                                                          \
    X(DEPTH_COLOR_MASK, 0x107)                                                    \
    X(FRAMEBUFFER_INVALIDATE, 0x110) /* seed: GPUREG_RENDERBUFFER_INVALIDATE */   \
    X(FRAMEBUFFER_FLUSH, 0x111)      /* seed: GPUREG_RENDERBUFFER_FLUSH */        \
    X(COLORBUFFER_READ, 0x112)       /* seed: GPUREG_COLORBUFFER_READING */       \
    X(COLORBUFFER_WRITE, 0x113)      /* seed: GPUREG_COLORBUFFER_WRITING */       \
    X(DEPTHBUFFER_READ, 0x114)       /* seed: GPUREG_DEPTHBUFFER_READING */       \
    X(DEPTHBUFFER_WRITE, 0x115)      /* seed: GPUREG_DEPTHBUFFER_WRITING */       \
    X(DEPTHBUFFER_FORMAT, 0x116)                                                  \
    X(COLORBUFFER_FORMAT, 0x117)                                                  \
    X(EARLYDEPTH_TEST2, 0x118)                                                    \
    X(FRAMEBUFFER_BLOCK32, 0x11B)    /* seed: GPUREG_RENDERBUFFER_BLOCK32 */      \
    X(DEPTHBUFFER_LOC, 0x11C)                                                     \
    X(COLORBUFFER_LOC, 0x11D)                                                     \
    X(FRAMEBUFFER_DIM, 0x11E)        /* seed: GPUREG_RENDERBUFFER_DIM_0 */        \
    X(GAS_LIGHT_XY, 0x120)                                                        \
    X(GAS_LIGHT_Z, 0x121)                                                         \
    X(GAS_LIGHT_Z_COLOR, 0x122)                                                   \
    X(GAS_LUT_INDEX, 0x123)                                                       \
    X(GAS_LUT_DATA, 0x124) /* FIFO */                                             \
    X(GAS_ACCMAX_FEEDBACK, 0x125)                                                 \
    X(GAS_DELTAZ_DEPTH, 0x126)                                                    \
    X(FRAGOP_SHADOW, 0x130)                                                       \
    /* fragment lighting (0x140-0x1FF): 8 lights of 16 ids each */                \
    PVK_PICA_LIGHT_REGS(X, 0, 0x140)                                              \
    PVK_PICA_LIGHT_REGS(X, 1, 0x150)                                              \
    PVK_PICA_LIGHT_REGS(X, 2, 0x160)                                              \
    PVK_PICA_LIGHT_REGS(X, 3, 0x170)                                              \
    PVK_PICA_LIGHT_REGS(X, 4, 0x180)                                              \
    PVK_PICA_LIGHT_REGS(X, 5, 0x190)                                              \
    PVK_PICA_LIGHT_REGS(X, 6, 0x1A0)                                              \
    PVK_PICA_LIGHT_REGS(X, 7, 0x1B0)                                              \
    X(LIGHTING_AMBIENT, 0x1C0)                                                    \
    X(LIGHTING_NUM_LIGHTS, 0x1C2)                                                 \
    X(LIGHTING_CONFIG0, 0x1C3)                                                    \
    X(LIGHTING_CONFIG1, 0x1C4)                                                    \
    X(LIGHTING_LUT_INDEX, 0x1C5)                                                  \
    X(LIGHTING_ENABLE1, 0x1C6)                                                    \
    X(LIGHTING_LUT_DATA, 0x1C8) /* FIFO, 8 aliases 0x1C8-0x1CF */                 \
    X(LIGHTING_LUTINPUT_ABS, 0x1D0)                                               \
    X(LIGHTING_LUTINPUT_SELECT, 0x1D1)                                            \
    X(LIGHTING_LUTINPUT_SCALE, 0x1D2)                                             \
    X(LIGHTING_LIGHT_PERMUTATION, 0x1D9)                                          \
    /* geometry pipeline (0x200-0x27F) */                                         \
    X(ATTRIBBUFFERS_LOC, 0x200)                                                   \
    X(ATTRIBBUFFERS_FORMAT_LOW, 0x201)                                            \
    X(ATTRIBBUFFERS_FORMAT_HIGH, 0x202)                                           \
    PVK_PICA_ATTRIBBUFFER_REGS(X, 0, 0x203)                                       \
    PVK_PICA_ATTRIBBUFFER_REGS(X, 1, 0x206)                                       \
    PVK_PICA_ATTRIBBUFFER_REGS(X, 2, 0x209)                                       \
    PVK_PICA_ATTRIBBUFFER_REGS(X, 3, 0x20C)                                       \
    PVK_PICA_ATTRIBBUFFER_REGS(X, 4, 0x20F)                                       \
    PVK_PICA_ATTRIBBUFFER_REGS(X, 5, 0x212)                                       \
    PVK_PICA_ATTRIBBUFFER_REGS(X, 6, 0x215)                                       \
    PVK_PICA_ATTRIBBUFFER_REGS(X, 7, 0x218)                                       \
    PVK_PICA_ATTRIBBUFFER_REGS(X, 8, 0x21B)                                       \
    PVK_PICA_ATTRIBBUFFER_REGS(X, 9, 0x21E)                                       \
    PVK_PICA_ATTRIBBUFFER_REGS(X, A, 0x221)                                       \
    PVK_PICA_ATTRIBBUFFER_REGS(X, B, 0x224)                                       \
    X(INDEXBUFFER_CONFIG, 0x227)                                                  \
    X(NUMVERTICES, 0x228)                                                         \
    X(GEOSTAGE_CONFIG, 0x229)                                                     \
    X(VERTEX_OFFSET, 0x22A)                                                       \
    X(POST_VERTEX_CACHE_NUM, 0x22D)                                               \
    X(DRAWARRAYS, 0x22E)                                                          \
    X(DRAWELEMENTS, 0x22F)                                                        \
    X(VTX_FUNC, 0x231)                                                            \
    X(FIXEDATTRIB_INDEX, 0x232)                                                   \
    X(FIXEDATTRIB_DATA0, 0x233)                                                   \
    X(FIXEDATTRIB_DATA1, 0x234)                                                   \
    X(FIXEDATTRIB_DATA2, 0x235)                                                   \
    X(CMDBUF_SIZE0, 0x238)                                                        \
    X(CMDBUF_SIZE1, 0x239)                                                        \
    X(CMDBUF_ADDR0, 0x23A)                                                        \
    X(CMDBUF_ADDR1, 0x23B)                                                        \
    X(CMDBUF_JUMP0, 0x23C)                                                        \
    X(CMDBUF_JUMP1, 0x23D)                                                        \
    X(VSH_NUM_ATTR, 0x242)                                                        \
    X(VSH_COM_MODE, 0x244)                                                        \
    X(START_DRAW_FUNC0, 0x245)                                                    \
    X(VSH_OUTMAP_TOTAL1, 0x24A)                                                   \
    X(VSH_OUTMAP_TOTAL2, 0x251)                                                   \
    X(GSH_MISC0, 0x252)                                                           \
    X(GEOSTAGE_CONFIG2, 0x253)                                                    \
    X(GSH_MISC1, 0x254)                                                           \
    X(PRIMITIVE_CONFIG, 0x25E)                                                    \
    X(RESTART_PRIMITIVE, 0x25F)                                                   \
    /* geometry shader (0x280-0x2AF) and vertex shader (0x2B0-0x2DF) */           \
    PVK_PICA_SHADER_REGS(X, GSH, 0x280)                                           \
    PVK_PICA_SHADER_REGS(X, VSH, 0x2B0)

#define PVK_PICA_LIGHT_REGS(X, i, b)                                              \
    X(LIGHT##i##_SPECULAR0, (b) + 0x0)                                            \
    X(LIGHT##i##_SPECULAR1, (b) + 0x1)                                            \
    X(LIGHT##i##_DIFFUSE, (b) + 0x2)                                              \
    X(LIGHT##i##_AMBIENT, (b) + 0x3)                                              \
    X(LIGHT##i##_XY, (b) + 0x4)                                                   \
    X(LIGHT##i##_Z, (b) + 0x5)                                                    \
    X(LIGHT##i##_SPOTDIR_XY, (b) + 0x6)                                           \
    X(LIGHT##i##_SPOTDIR_Z, (b) + 0x7)                                            \
    X(LIGHT##i##_CONFIG, (b) + 0x9)                                               \
    X(LIGHT##i##_ATTENUATION_BIAS, (b) + 0xA)                                     \
    X(LIGHT##i##_ATTENUATION_SCALE, (b) + 0xB)

#define PVK_PICA_ATTRIBBUFFER_REGS(X, i, b)                                       \
    X(ATTRIBBUFFER##i##_OFFSET, (b) + 0)                                          \
    X(ATTRIBBUFFER##i##_CONFIG1, (b) + 1)                                         \
    X(ATTRIBBUFFER##i##_CONFIG2, (b) + 2)

/* The geometry and vertex shader units share one layout. */
#define PVK_PICA_SHADER_REGS(X, u, b)                                             \
    X(u##_BOOLUNIFORM, (b) + 0x00)                                                \
    X(u##_INTUNIFORM_I0, (b) + 0x01)                                              \
    X(u##_INTUNIFORM_I1, (b) + 0x02)                                              \
    X(u##_INTUNIFORM_I2, (b) + 0x03)                                              \
    X(u##_INTUNIFORM_I3, (b) + 0x04)                                              \
    X(u##_INPUTBUFFER_CONFIG, (b) + 0x09)                                         \
    X(u##_ENTRYPOINT, (b) + 0x0A)                                                 \
    X(u##_ATTRIBUTES_PERMUTATION_LOW, (b) + 0x0B)                                 \
    X(u##_ATTRIBUTES_PERMUTATION_HIGH, (b) + 0x0C)                                \
    X(u##_OUTMAP_MASK, (b) + 0x0D)                                                \
    X(u##_CODETRANSFER_END, (b) + 0x0F)                                           \
    X(u##_FLOATUNIFORM_CONFIG, (b) + 0x10) /* 3dbrew: _FLOATUNIFORM_INDEX */      \
    X(u##_FLOATUNIFORM_DATA, (b) + 0x11)   /* FIFO, 8 aliases */                  \
    X(u##_CODETRANSFER_CONFIG, (b) + 0x1B) /* 3dbrew: _CODETRANSFER_INDEX */      \
    X(u##_CODETRANSFER_DATA, (b) + 0x1C)   /* FIFO, 8 aliases */                  \
    X(u##_OPDESCS_CONFIG, (b) + 0x25)      /* 3dbrew: _OPDESCS_INDEX */           \
    X(u##_OPDESCS_DATA, (b) + 0x26)        /* FIFO, 8 aliases */

#define PVK_PICA_REG_ENUM_(name, id) PVK_GPUREG_##name = (id),
enum { PVK_PICA_REG_LIST(PVK_PICA_REG_ENUM_) };
#undef PVK_PICA_REG_ENUM_

/* Sizes of the aliased ranges. */
enum {
    PVK_GPUREG_IRQ_WORDS = 16,          /* IRQ_ACK, IRQ_REQ (FINALIZE), IRQ_CMP: 64 bytes each */
    PVK_GPUREG_IRQ_REQ = PVK_GPUREG_FINALIZE,
    PVK_GPUREG_FIFO_ALIASES = 8,        /* *_LUT_DATA, *_FLOATUNIFORM_DATA, *_CODETRANSFER_DATA, *_OPDESCS_DATA */
    PVK_GPUREG_GSH_BASE = 0x280,
    PVK_GPUREG_VSH_BASE = 0x2B0,
    PVK_GPUREG_SHADER_SPAN = 0x30,      /* ids per shader unit */
};

/* ---- field access ---- */

/* Bits [lo, lo+n) of v (n < 32). */
#define PVK_BITS(v, lo, n) (((uint32_t)(v) >> (lo)) & ((1u << (n)) - 1u))

#define PVK_FIELD_(fn, lo, n) \
    static inline uint32_t pvk_##fn(uint32_t v) { return PVK_BITS(v, lo, n); }

/* Command list header (FACTS.md "Command lists"). */
PVK_FIELD_(cmd_id, 0, 16)
PVK_FIELD_(cmd_mask, 16, 4)      /* bit 16 = least significant byte */
PVK_FIELD_(cmd_extra, 20, 8)     /* parameters after the first */
PVK_FIELD_(cmd_consecutive, 31, 1)
/* Header word for a command; `extra` parameters follow the first. */
static inline uint32_t pvk_cmd_header(uint32_t id, uint32_t mask, uint32_t extra, int consecutive)
{
    return (id & 0xFFFFu) | (mask & 0xFu) << 16 | (extra & 0xFFu) << 20 | (uint32_t)(consecutive != 0) << 31;
}

/* CMDBUF_SIZE/ADDR: bytes >> 3; bit 0 is ignored (16-byte units, GBATEK). */
static inline uint32_t pvk_cmdbuf_bytes(uint32_t size_reg) { return (size_reg & 0x1FFFFEu) << 3; }
static inline uint32_t pvk_cmdbuf_paddr(uint32_t addr_reg) { return (addr_reg & 0x1FFFFFFEu) << 3; }

/* IRQ_AUTOSTOP */
PVK_FIELD_(irq_autostop, 0, 1)

/* FACECULLING_CONFIG: 0 none, 1 front (CCW), 2 back (CCW) */
PVK_FIELD_(faceculling_mode, 0, 2)
/* VIEWPORT_WIDTH/HEIGHT: f24 of size/2; VIEWPORT_INVW/INVH: bits 1-31 f31 of 2/size */
PVK_FIELD_(viewport_half, 0, 24)
PVK_FIELD_(viewport_inv, 1, 31)
PVK_FIELD_(fragop_clip_enable, 0, 1)
PVK_FIELD_(depthmap_f24, 0, 24)       /* DEPTHMAP_SCALE / _OFFSET, FRAGOP_CLIP_DATAi */
PVK_FIELD_(sh_outmap_total, 0, 3)
/* SH_OUTMAP_Oi: semantic of component c (0..3 = x,y,z,w), 5 bits each */
static inline uint32_t pvk_sh_outmap_semantic(uint32_t v, unsigned c) { return PVK_BITS(v, 8 * c, 5); }
PVK_FIELD_(earlydepth_func, 0, 2)
PVK_FIELD_(earlydepth_enable, 0, 1)
PVK_FIELD_(earlydepth_clear_trigger, 0, 1)
PVK_FIELD_(earlydepth_data, 0, 24)
PVK_FIELD_(sh_outattr_use_texcoord, 0, 1)
PVK_FIELD_(scissortest_mode, 0, 2)    /* 0 disabled, 3 enabled */
PVK_FIELD_(scissor_x, 0, 10)          /* SCISSORTEST_POS/DIM */
PVK_FIELD_(scissor_y, 16, 10)
PVK_FIELD_(viewport_x, 0, 10)         /* VIEWPORT_XY, signed 10-bit */
PVK_FIELD_(viewport_y, 16, 10)
PVK_FIELD_(depthmap_enable, 0, 1)
PVK_FIELD_(sh_outattr_clock, 0, 25)

/* FRAMEBUFFER_DIM / RENDERBUF_DIM: width in bits 0-10, height-1 in 12-21
 * (what citro3d writes: width | (height - 1) << 12 | 1 << 24) */
PVK_FIELD_(fbdim_width, 0, 11)
PVK_FIELD_(fbdim_height_m1, 12, 10)
PVK_FIELD_(fbdim_flip_y, 24, 1)

/* TEXUNIT_CONFIG (seed 001) */
static inline uint32_t pvk_texunit_enable(uint32_t v, unsigned unit) /* units 0-2 */
{
    return PVK_BITS(v, unit, 1);
}
PVK_FIELD_(texunit3_coords, 8, 2)
PVK_FIELD_(texunit3_enable, 10, 1)
PVK_FIELD_(texunit2_coords, 13, 1)
PVK_FIELD_(texunit_clear_cache, 16, 1)
/* TEXUNITi_BORDER_COLOR, TEXENVi_COLOR, BLEND_COLOR, TEXENV_BUFFER_COLOR: R,G,B,A bytes */
static inline uint32_t pvk_rgba8_component(uint32_t v, unsigned c) { return PVK_BITS(v, 8 * c, 8); }
/* TEXUNITi_DIM */
PVK_FIELD_(texdim_height, 0, 11)
PVK_FIELD_(texdim_width, 16, 11)
/* TEXUNITi_PARAM */
PVK_FIELD_(texparam_mag_filter, 1, 1)
PVK_FIELD_(texparam_min_filter, 2, 1)
PVK_FIELD_(texparam_etc1, 4, 2)
PVK_FIELD_(texparam_wrap_t, 8, 3)
PVK_FIELD_(texparam_wrap_s, 12, 3)
PVK_FIELD_(texparam_shadow, 20, 1)    /* unit 0 only */
PVK_FIELD_(texparam_mip_filter, 24, 1)
PVK_FIELD_(texparam_type, 28, 3)      /* unit 0 only: 0 2D, 1 cube, 2 shadow2D, 3 projection, 4 shadow cube, 5 disabled */
/* TEXUNITi_LOD */
PVK_FIELD_(texlod_bias, 0, 13)        /* fixed1.4.8 */
PVK_FIELD_(texlod_max, 16, 4)
PVK_FIELD_(texlod_min, 24, 4)
/* TEXUNITi_ADDR: first in 8-byte units (28 bits); ADDR2-6 the low 22 bits,
 * the upper 6 (bits 22-27 of ADDR1) shared by every cube face */
PVK_FIELD_(texaddr, 0, 28)
PVK_FIELD_(texaddr_low, 0, 22)
PVK_FIELD_(texaddr_shared, 22, 6)
/* TEXUNIT0_SHADOW */
PVK_FIELD_(texshadow_orthographic, 0, 1)
PVK_FIELD_(texshadow_zbias, 1, 23)
/* TEXUNITi_TYPE */
PVK_FIELD_(textype_format, 0, 4)
PVK_FIELD_(lighting_enable0, 0, 1)
/* TEXUNIT3_PROCTEX0..5 */
PVK_FIELD_(proctex_u_clamp, 0, 3)
PVK_FIELD_(proctex_v_clamp, 3, 3)
PVK_FIELD_(proctex_rgb_func, 6, 4)
PVK_FIELD_(proctex_alpha_func, 10, 4)
PVK_FIELD_(proctex_alpha_separate, 14, 1)
PVK_FIELD_(proctex_noise_enable, 15, 1)
PVK_FIELD_(proctex_u_shift, 16, 2)
PVK_FIELD_(proctex_v_shift, 18, 2)
PVK_FIELD_(proctex_bias_low, 20, 8)
PVK_FIELD_(proctex_noise_amplitude, 0, 16) /* PROCTEX1 (U) / PROCTEX2 (V) */
PVK_FIELD_(proctex_noise_phase, 16, 16)
PVK_FIELD_(proctex_noise_freq_u, 0, 16)    /* PROCTEX3 */
PVK_FIELD_(proctex_noise_freq_v, 16, 16)
PVK_FIELD_(proctex_min_filter, 0, 3)       /* PROCTEX4 */
PVK_FIELD_(proctex_min_lod, 3, 4)
PVK_FIELD_(proctex_max_lod, 7, 4)
PVK_FIELD_(proctex_width, 11, 8)
PVK_FIELD_(proctex_bias_high, 19, 8)
static inline uint32_t pvk_proctex_level_offset(uint32_t v, unsigned level) /* PROCTEX5, levels 0-3 */
{
    return PVK_BITS(v, 8 * level, 8);
}
/* PROCTEX_LUT: index and table (0 noise, 2 RGB map, 3 alpha map, 4 color, 5 color difference) */
PVK_FIELD_(proctex_lut_index, 0, 8)
PVK_FIELD_(proctex_lut_table, 8, 4)
/* TEXENVi_SOURCE / _OPERAND / _COMBINER / _SCALE */
static inline uint32_t pvk_texenv_rgb_source(uint32_t v, unsigned i) { return PVK_BITS(v, 4 * i, 4); }
static inline uint32_t pvk_texenv_alpha_source(uint32_t v, unsigned i) { return PVK_BITS(v, 16 + 4 * i, 4); }
static inline uint32_t pvk_texenv_rgb_operand(uint32_t v, unsigned i) { return PVK_BITS(v, 4 * i, 4); }
static inline uint32_t pvk_texenv_alpha_operand(uint32_t v, unsigned i) { return PVK_BITS(v, 12 + 4 * i, 3); }
PVK_FIELD_(texenv_rgb_combine, 0, 4)
PVK_FIELD_(texenv_alpha_combine, 16, 4)
PVK_FIELD_(texenv_rgb_scale, 0, 2)
PVK_FIELD_(texenv_alpha_scale, 16, 2)
/* TEXENV_UPDATE_BUFFER */
PVK_FIELD_(fog_mode, 0, 3)                 /* 0 off, 5 fog, 7 gas */
PVK_FIELD_(gas_density_source, 3, 1)
static inline uint32_t pvk_texenv_buffer_rgb(uint32_t v, unsigned stage) /* stages 1-4 */
{
    return PVK_BITS(v, 7 + stage, 1);
}
static inline uint32_t pvk_texenv_buffer_alpha(uint32_t v, unsigned stage) { return PVK_BITS(v, 11 + stage, 1); }
PVK_FIELD_(fog_z_flip, 16, 1)
PVK_FIELD_(gas_f16, 0, 16)                 /* GAS_ATTENUATION, GAS_ACCMAX: float1.5.10 */
PVK_FIELD_(fog_lut_index, 0, 16)

/* COLOR_OPERATION (seed 000) */
PVK_FIELD_(colorop_fragment_mode, 0, 2)    /* 0 default, 1 gas, 3 shadow */
PVK_FIELD_(colorop_blend, 8, 1)            /* 0 logic op, 1 blend */
/* BLEND_FUNC */
PVK_FIELD_(blend_rgb_eq, 0, 3)
PVK_FIELD_(blend_alpha_eq, 8, 3)
PVK_FIELD_(blend_rgb_src, 16, 4)
PVK_FIELD_(blend_rgb_dst, 20, 4)
PVK_FIELD_(blend_alpha_src, 24, 4)
PVK_FIELD_(blend_alpha_dst, 28, 4)
PVK_FIELD_(logic_op, 0, 4)
/* FRAGOP_ALPHA_TEST */
PVK_FIELD_(alpha_test_enable, 0, 1)
PVK_FIELD_(alpha_test_func, 4, 3)
PVK_FIELD_(alpha_test_ref, 8, 8)
/* STENCIL_TEST */
PVK_FIELD_(stencil_enable, 0, 1)
PVK_FIELD_(stencil_func, 4, 3)
PVK_FIELD_(stencil_write_mask, 8, 8)       /* seed: "buffer mask" */
PVK_FIELD_(stencil_ref, 16, 8)             /* 3dbrew: signed; taken as unsigned (fb.c) */
PVK_FIELD_(stencil_compare_mask, 24, 8)
/* STENCIL_OP */
PVK_FIELD_(stencil_fail_op, 0, 3)
PVK_FIELD_(stencil_zfail_op, 4, 3)
PVK_FIELD_(stencil_zpass_op, 8, 3)
/* DEPTH_COLOR_MASK */
PVK_FIELD_(depth_test_enable, 0, 1)
PVK_FIELD_(depth_func, 4, 3)
PVK_FIELD_(color_write_mask, 8, 4)         /* R,G,B,A = bits 8..11 */
PVK_FIELD_(depth_write_enable, 12, 1)
/* FRAMEBUFFER_INVALIDATE / _FLUSH */
PVK_FIELD_(fb_trigger, 0, 1)
/* COLORBUFFER_READ/WRITE: 0 off, 0xF on; DEPTHBUFFER_READ/WRITE: bit 0 stencil, bit 1 depth */
PVK_FIELD_(colorbuffer_access, 0, 4)
PVK_FIELD_(depthbuffer_access_stencil, 0, 1)
PVK_FIELD_(depthbuffer_access_depth, 1, 1)
PVK_FIELD_(depthbuffer_format, 0, 2)       /* 0 D16, 2 D24, 3 D24S8 */
PVK_FIELD_(colorbuffer_pixel_size, 0, 2)   /* 0 16-bit, 2 32-bit */
PVK_FIELD_(colorbuffer_format, 16, 3)      /* 0 RGBA8, 2 RGB5A1, 3 RGB565, 4 RGBA4 */
PVK_FIELD_(framebuffer_block32, 0, 1)
PVK_FIELD_(buffer_loc, 3, 25)              /* DEPTHBUFFER_LOC / COLORBUFFER_LOC, 64-byte units */
/* GAS_LIGHT_XY / GAS_LIGHT_Z */
PVK_FIELD_(gas_light_min, 0, 8)
PVK_FIELD_(gas_light_max, 8, 8)
PVK_FIELD_(gas_light_attenuation, 16, 8)
PVK_FIELD_(gas_light_z_effect, 0, 8)       /* GAS_LIGHT_Z_COLOR */
PVK_FIELD_(gas_lut_input, 8, 1)
PVK_FIELD_(gas_lut_index, 0, 16)
PVK_FIELD_(gas_deltaz, 0, 24)              /* GAS_DELTAZ_DEPTH */
PVK_FIELD_(gas_depth_func, 24, 2)
/* FRAGOP_SHADOW */
PVK_FIELD_(shadow_constant, 0, 16)         /* float1.5.10 scale + bias */
PVK_FIELD_(shadow_linear, 16, 16)          /* float1.5.10, -scale */

/* Lighting (3dbrew) */
PVK_FIELD_(light_color_b, 0, 8)            /* LIGHTi_SPECULAR0/1, _DIFFUSE, _AMBIENT, LIGHTING_AMBIENT */
PVK_FIELD_(light_color_g, 10, 8)
PVK_FIELD_(light_color_r, 20, 8)
PVK_FIELD_(light_f16_low, 0, 16)           /* LIGHTi_XY x, LIGHTi_Z z: float1.5.10 */
PVK_FIELD_(light_f16_high, 16, 16)         /* LIGHTi_XY y */
PVK_FIELD_(light_spot_low, 0, 13)          /* SPOTDIR: fixed1.1.11, negated */
PVK_FIELD_(light_spot_high, 16, 13)
PVK_FIELD_(light_directional, 0, 1)        /* LIGHTi_CONFIG */
PVK_FIELD_(light_two_side, 1, 1)
PVK_FIELD_(light_geo_factor0, 2, 1)
PVK_FIELD_(light_geo_factor1, 3, 1)
PVK_FIELD_(light_attenuation, 0, 20)       /* _ATTENUATION_BIAS / _SCALE: float1.7.12 */
PVK_FIELD_(lighting_num_lights_m1, 0, 3)
PVK_FIELD_(lighting_shadow_enable, 0, 1)   /* LIGHTING_CONFIG0 */
PVK_FIELD_(lighting_fresnel, 2, 2)
PVK_FIELD_(lighting_config, 4, 4)
PVK_FIELD_(lighting_shadow_primary, 16, 1)
PVK_FIELD_(lighting_shadow_secondary, 17, 1)
PVK_FIELD_(lighting_shadow_invert, 18, 1)
PVK_FIELD_(lighting_shadow_alpha, 19, 1)
PVK_FIELD_(lighting_bump_unit, 22, 2)
PVK_FIELD_(lighting_shadow_unit, 24, 2)
PVK_FIELD_(lighting_clamp_highlights, 27, 1)
PVK_FIELD_(lighting_bump_mode, 28, 2)
PVK_FIELD_(lighting_bump_no_renorm, 30, 1)
PVK_FIELD_(lighting_lut_index, 0, 8)       /* LIGHTING_LUT_INDEX */
PVK_FIELD_(lighting_lut_table, 8, 5)       /* 0 D0, 1 D1, 3 FR, 4 RB, 5 RG, 6 RR, 8-15 SP, 16-23 DA */
PVK_FIELD_(lighting_disable, 0, 1)         /* LIGHTING_ENABLE1 */
static inline uint32_t pvk_lighting_permutation(uint32_t v, unsigned i) { return PVK_BITS(v, 4 * i, 3); }
static inline uint32_t pvk_lighting_lut_field(uint32_t v, unsigned lut) /* ABS (bit 1 of), SELECT, SCALE: D0,D1,SP,FR,RB,RG,RR */
{
    return PVK_BITS(v, 4 * lut, 3);
}

/* Geometry pipeline (3dbrew) */
PVK_FIELD_(attribbuffers_loc, 1, 28)       /* base address >> 3 */
static inline uint32_t pvk_attrib_format(uint32_t low, uint32_t high, unsigned attr) /* type | size << 2 */
{
    return attr < 8 ? PVK_BITS(low, 4 * attr, 4) : PVK_BITS(high, 4 * (attr - 8), 4);
}
PVK_FIELD_(attrib_fixed_mask, 16, 12)      /* FORMAT_HIGH */
PVK_FIELD_(attrib_count_m1, 28, 4)
PVK_FIELD_(attribbuffer_offset, 0, 28)
PVK_FIELD_(attribbuffer_stride, 16, 8)     /* CONFIG2 */
PVK_FIELD_(attribbuffer_components, 28, 4)
PVK_FIELD_(indexbuffer_offset, 0, 28)
PVK_FIELD_(indexbuffer_u16, 31, 1)
PVK_FIELD_(geostage_gs, 0, 2)              /* 2 = geometry shader in use */
PVK_FIELD_(geostage_triangle_elements, 8, 1)
PVK_FIELD_(geostage_subdivision, 31, 1)     /* variable-size primitives (libctru: GSH_VARIABLE_PRIM) */
/* GSH_MISC0 as libctru's shaderProgramConfigure writes it: the mode
 * (0 point, 1 variable-size, 2 fixed-size primitives) and, in fixed mode,
 * vertices per primitive - 1, the VS output stride - 1 and the first float
 * uniform the vertices are written to (3dbrew: 0x01004302 "particle system"). */
PVK_FIELD_(gsh_misc0_mode, 0, 8)
PVK_FIELD_(gsh_misc0_fixed_vertices_m1, 8, 4)
PVK_FIELD_(gsh_misc0_fixed_stride_m1, 12, 4)
PVK_FIELD_(gsh_misc0_fixed_start, 16, 8)
PVK_FIELD_(gsh_misc1_main_vertices_m1, 0, 5) /* variable mode: vertices with all outputs - 1 */
PVK_FIELD_(post_vertex_cache_num, 0, 8)
PVK_FIELD_(fixedattrib_index, 0, 4)        /* 0-11, 0xF immediate mode */
PVK_FIELD_(vsh_num_attr_m1, 0, 4)
PVK_FIELD_(vsh_com_mode, 0, 1)             /* 1: GS has its own configuration */
PVK_FIELD_(start_draw_config_mode, 0, 1)
PVK_FIELD_(outmap_total_m1, 0, 4)
PVK_FIELD_(geostage2_function, 0, 1)
PVK_FIELD_(primitive_outmap_m1, 0, 4)      /* PRIMITIVE_CONFIG */
PVK_FIELD_(primitive_mode, 8, 2)           /* 0 triangles, 1 strip, 2 fan, 3 geometry */
PVK_FIELD_(restart_primitive_trigger, 0, 1)

/* Shader units (offsets from PVK_GPUREG_GSH_BASE / _VSH_BASE) */
PVK_FIELD_(sh_bool_uniforms, 0, 16)
static inline uint32_t pvk_sh_int_component(uint32_t v, unsigned c) { return PVK_BITS(v, 8 * c, 8); }
PVK_FIELD_(sh_input_count_m1, 0, 4)
PVK_FIELD_(sh_input_to_uniform, 8, 1)      /* GSH_INPUTBUFFER_CONFIG: VS outputs go to float uniforms */
PVK_FIELD_(sh_input_unit_mode, 24, 8)      /* 0x08 geometry shader, 0xA0 vertex shader (3dbrew) */
PVK_FIELD_(sh_entrypoint, 0, 16)
static inline uint32_t pvk_sh_permutation(uint32_t low, uint32_t high, unsigned attr)
{
    return attr < 8 ? PVK_BITS(low, 4 * attr, 4) : PVK_BITS(high, 4 * (attr - 8), 4);
}
PVK_FIELD_(sh_outmap_mask, 0, 16)
PVK_FIELD_(sh_float_index, 0, 8)
PVK_FIELD_(sh_float_f32, 31, 1)            /* 0: three words of f24, 1: four f32 words */
PVK_FIELD_(sh_code_offset, 0, 12)
PVK_FIELD_(sh_opdesc_offset, 0, 12)

#undef PVK_FIELD_

/* ---- PICA float formats ---- */

/* float1.7.16 (the shader and vertex float) from an IEEE float's bits:
 * mantissa truncated, out-of-range exponents flush to zero / infinity. */
static inline uint32_t pvk_f32_to_f24(uint32_t f)
{
    uint32_t e = (f >> 23) & 0xFFu;
    if (e - 65u < 126u) /* the common case: the exponent fits (f24 exponent 1-126) */
        return (f >> 31) << 23 | (e - 64u) << 16 | (f & 0x7FFFFFu) >> 7;
    uint32_t sign = f >> 31, mant = f & 0x7FFFFFu;
    int32_t exp = (int32_t)((f >> 23) & 0xFFu);
    if (exp == 0xFF)
        return sign << 23 | 0x7Fu << 16 | mant >> 7;
    exp += 63 - 127;
    if (exp <= 0)
        return sign << 23;
    if (exp >= 0x7F)
        return sign << 23 | 0x7Fu << 16;
    return sign << 23 | (uint32_t)exp << 16 | mant >> 7;
}

/* IEEE float bits of a float1.7.16. */
static inline uint32_t pvk_f24_to_f32(uint32_t v)
{
    uint32_t sign = (v >> 23) & 1u, exp = (v >> 16) & 0x7Fu, mant = v & 0xFFFFu;
    if (exp == 0 && mant == 0)
        return sign << 31;
    if (exp == 0x7F)
        return sign << 31 | 0xFFu << 23 | mant << 7;
    return sign << 31 | (exp + 127 - 63) << 23 | mant << 7;
}

/* Four f24 components (x, y, z, w) from the three-word packing that
 * FLOATUNIFORM_DATA (24-bit mode) and FIXEDATTRIB_DATA0-2 use: the 96-bit
 * concatenation w:z:y:x, most significant word first. */
static inline void pvk_unpack_f24x4(const uint32_t w[3], uint32_t out[4])
{
    out[3] = w[0] >> 8;
    out[2] = (w[0] & 0xFFu) << 16 | w[1] >> 16;
    out[1] = (w[1] & 0xFFFFu) << 8 | w[2] >> 24;
    out[0] = w[2] & 0xFFFFFFu;
}
static inline void pvk_pack_f24x4(const uint32_t in[4], uint32_t w[3])
{
    uint32_t x = in[0] & 0xFFFFFFu, y = in[1] & 0xFFFFFFu, z = in[2] & 0xFFFFFFu, ww = in[3] & 0xFFFFFFu;
    w[0] = ww << 8 | z >> 16;
    w[1] = (z & 0xFFFFu) << 16 | y >> 8;
    w[2] = (y & 0xFFu) << 24 | x;
}

#endif
