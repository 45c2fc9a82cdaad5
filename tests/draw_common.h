/* What the drawing tests share: a context, register writes through the CPU
 * window, a hand-encoded pass-through vertex shader (MOV o0, v0; MOV o1, v1)
 * and one interleaved float4 position + colour vertex buffer at VB. */
#ifndef PVK_TEST_DRAW_COMMON_H
#define PVK_TEST_DRAW_COMMON_H

#include "harness.h"
#include "translator/regs.h"

#define FB 0x18000000u /* colour buffer */
#define VB 0x18200000u
#ifndef W /* a test may pick its own target size */
#define W 64u
#define H 48u
#endif

static pvk_context *ctx;

static void reg(uint32_t id, uint32_t v)
{
    CHECK_EQ(pvk_mmio_write32(ctx, 0x10401000u + 4 * id, v), PVK_SUCCESS);
}

static uint32_t f24(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return pvk_f32_to_f24(b);
}

/* The vertex program of the drawing tests that need more than position and
 * colour: MOV o_i, v_i for i < n (n <= 4), END; outmap[i] is SH_OUTMAP_Oi;
 * n float4 attributes interleaved in one buffer at VB, in register order. */
static inline void upload_mov_shader(unsigned n, const uint32_t *outmap)
{
    uint32_t perm = 0;
    reg(PVK_GPUREG_VSH_CODETRANSFER_CONFIG, 0);
    for (unsigned i = 0; i < n; i++) {
        reg(PVK_GPUREG_VSH_CODETRANSFER_DATA, (0x13u << 26) | (i << 21) | (i << 12));
        perm |= i << (4 * i);
    }
    reg(PVK_GPUREG_VSH_CODETRANSFER_DATA, 0x22u << 26);
    reg(PVK_GPUREG_VSH_CODETRANSFER_END, 1);
    reg(PVK_GPUREG_VSH_OPDESCS_CONFIG, 0);
    reg(PVK_GPUREG_VSH_OPDESCS_DATA, 0xF | (0x1Bu << 5) | (0x1Bu << 14) | (0x1Bu << 23));
    reg(PVK_GPUREG_VSH_ENTRYPOINT, 0x7FFF0000u);
    reg(PVK_GPUREG_VSH_OUTMAP_MASK, (1u << n) - 1);
    reg(PVK_GPUREG_SH_OUTMAP_TOTAL, n);
    for (unsigned i = 0; i < n; i++)
        reg(PVK_GPUREG_SH_OUTMAP_O0 + i, outmap[i]);
    reg(PVK_GPUREG_VSH_INPUTBUFFER_CONFIG, 0xA0000000u | (n - 1));
    reg(PVK_GPUREG_VSH_NUM_ATTR, n - 1);
    reg(PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_LOW, perm);
    reg(PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_HIGH, 0);
    reg(PVK_GPUREG_ATTRIBBUFFERS_LOC, VB >> 3);
    reg(PVK_GPUREG_ATTRIBBUFFERS_FORMAT_LOW, (1u << (4 * n)) - 1); /* float x4 each */
    reg(PVK_GPUREG_ATTRIBBUFFERS_FORMAT_HIGH, (n - 1) << 28);      /* n attributes, none fixed */
    reg(PVK_GPUREG_ATTRIBBUFFER0_OFFSET, 0);
    reg(PVK_GPUREG_ATTRIBBUFFER0_CONFIG1, perm);
    reg(PVK_GPUREG_ATTRIBBUFFER0_CONFIG2, (16u * n << 16) | (n << 28));
}

/* MOV o0, v0; MOV o1, v1; END with one identity operand descriptor. */
static void upload_shader(void)
{
    const uint32_t code[] = {(0x13u << 26) | (0u << 21) | (0u << 12), (0x13u << 26) | (1u << 21) | (1u << 12),
                             0x22u << 26};
    reg(PVK_GPUREG_VSH_CODETRANSFER_CONFIG, 0);
    for (unsigned i = 0; i < 3; i++)
        reg(PVK_GPUREG_VSH_CODETRANSFER_DATA, code[i]);
    reg(PVK_GPUREG_VSH_CODETRANSFER_END, 1);
    reg(PVK_GPUREG_VSH_OPDESCS_CONFIG, 0);
    reg(PVK_GPUREG_VSH_OPDESCS_DATA, 0xF | (0x1Bu << 5) | (0x1Bu << 14) | (0x1Bu << 23));
    reg(PVK_GPUREG_VSH_ENTRYPOINT, 0x7FFF0000u);
    reg(PVK_GPUREG_VSH_OUTMAP_MASK, 0x3);
    reg(PVK_GPUREG_SH_OUTMAP_TOTAL, 2);
    reg(PVK_GPUREG_SH_OUTMAP_O0, 0x03020100); /* position x y z w */
    reg(PVK_GPUREG_SH_OUTMAP_O0 + 1, 0x0B0A0908); /* colour r g b a */
    reg(PVK_GPUREG_VSH_INPUTBUFFER_CONFIG, 0xA0000000u | 1);
    reg(PVK_GPUREG_VSH_NUM_ATTR, 1);
    reg(PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_LOW, 0x10);
    reg(PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_HIGH, 0);
}

/* Two float4 attributes (position, colour) interleaved in one buffer. */
static void setup_attribs(void)
{
    reg(PVK_GPUREG_ATTRIBBUFFERS_LOC, VB >> 3);
    reg(PVK_GPUREG_ATTRIBBUFFERS_FORMAT_LOW, 0xFF);               /* attr 0, 1: float x4 */
    reg(PVK_GPUREG_ATTRIBBUFFERS_FORMAT_HIGH, 1u << 28);          /* 2 attributes, none fixed */
    reg(PVK_GPUREG_ATTRIBBUFFER0_OFFSET, 0);
    reg(PVK_GPUREG_ATTRIBBUFFER0_CONFIG1, 0x10);                  /* components: attr 0, attr 1 */
    reg(PVK_GPUREG_ATTRIBBUFFER0_CONFIG2, (32u << 16) | (2u << 28)); /* 32-byte stride, 2 components */
}

/* The output merger as citro3d sets it up (C3D_Init: blend mode), with a
 * replace blend and all colour channels written: the fragment's colour lands
 * as it is.  Registers left 0 would mean logic op Clear and no colour writes. */
/* The context's counters now. */
static inline pvk_stats stats(void)
{
    pvk_stats s;
    pvk_get_stats(ctx, &s);
    return s;
}

/* A W x H RGBA8 buffer at `addr` as the guest sees it after a flush. */
static inline void copy_out(uint8_t *dst, uint32_t addr)
{
    CHECK_EQ(pvk_guest_flush(ctx, addr, W * H * 4), PVK_SUCCESS);
    memcpy(dst, pvk_guest_ptr(ctx, addr, W * H * 4), W * H * 4);
}

/* Bytes that differ between a and b. */
static inline int differ(const uint8_t *a, const uint8_t *b, size_t n)
{
    int d = 0;
    for (size_t i = 0; i < n; i++)
        d += a[i] != b[i];
    return d;
}

/* An external register write (offset from 0x10400000). */
static inline void ext(uint32_t off, uint32_t v)
{
    CHECK_EQ(pvk_mmio_write32(ctx, 0x10400000u + off, v), PVK_SUCCESS);
}

/* A W x H buffer with the viewport over all of it, no culling or scissor. */
/* The viewport over a whole w x h buffer; no culling, no scissor. */
static inline void setup_view_wh(uint32_t w, uint32_t h)
{
    reg(PVK_GPUREG_FRAMEBUFFER_DIM, w | ((h - 1) << 12) | (1u << 24));
    reg(PVK_GPUREG_VIEWPORT_WIDTH, f24((float)w / 2.0f));
    reg(PVK_GPUREG_VIEWPORT_HEIGHT, f24((float)h / 2.0f));
    reg(PVK_GPUREG_VIEWPORT_XY, 0);
    reg(PVK_GPUREG_FACECULLING_CONFIG, 0);
    reg(PVK_GPUREG_SCISSORTEST_MODE, 0);
}

static inline void setup_view(void)
{
    setup_view_wh(W, H);
}

/* An RGBA8 colour buffer at `addr`, w x h, read and written, no depth
 * buffer access, and the viewport over all of it. */
static inline void setup_rgba8_target(uint32_t addr, uint32_t w, uint32_t h)
{
    reg(PVK_GPUREG_COLORBUFFER_FORMAT, 2);
    reg(PVK_GPUREG_COLORBUFFER_LOC, addr >> 3);
    reg(PVK_GPUREG_COLORBUFFER_READ, 0xF);
    reg(PVK_GPUREG_COLORBUFFER_WRITE, 0xF);
    reg(PVK_GPUREG_DEPTHBUFFER_READ, 0);
    reg(PVK_GPUREG_DEPTHBUFFER_WRITE, 0);
    setup_view_wh(w, h);
}

/* Colour RGBA8 at FB and depth D24S8 at `db`, W x H, every access allowed,
 * the viewport over all of it, no culling or scissor, citro3d's depth map
 * (scale -1, offset 0). */
static inline void setup_target_d24s8(uint32_t db)
{
    reg(PVK_GPUREG_COLORBUFFER_FORMAT, 2); /* RGBA8 */
    reg(PVK_GPUREG_COLORBUFFER_LOC, FB >> 3);
    reg(PVK_GPUREG_COLORBUFFER_READ, 0xF);
    reg(PVK_GPUREG_COLORBUFFER_WRITE, 0xF);
    reg(PVK_GPUREG_DEPTHBUFFER_FORMAT, 3); /* D24S8 */
    reg(PVK_GPUREG_DEPTHBUFFER_LOC, db >> 3);
    reg(PVK_GPUREG_DEPTHBUFFER_READ, 3);
    reg(PVK_GPUREG_DEPTHBUFFER_WRITE, 3);
    setup_view();
    reg(PVK_GPUREG_DEPTHMAP_ENABLE, 1);
    reg(PVK_GPUREG_DEPTHMAP_SCALE, f24(-1.0f));
    reg(PVK_GPUREG_DEPTHMAP_OFFSET, f24(0.0f));
}

static inline void merger_replace(void)
{
    reg(PVK_GPUREG_COLOR_OPERATION, 0x00E40100);
    reg(PVK_GPUREG_BLEND_FUNC, 0x01010000); /* add, src One, dst Zero (RGB and alpha) */
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, 0xF00);
}

/* Every TEV stage replaces with the primary colour (all source and operand
 * fields 0), no combiner-buffer updates, no alpha test. */
static inline void tev_primary_colour(void)
{
    static const uint32_t stage[6] = {PVK_GPUREG_TEXENV0_SOURCE, PVK_GPUREG_TEXENV1_SOURCE, PVK_GPUREG_TEXENV2_SOURCE,
                                      PVK_GPUREG_TEXENV3_SOURCE, PVK_GPUREG_TEXENV4_SOURCE, PVK_GPUREG_TEXENV5_SOURCE};
    for (int n = 0; n < 6; n++)
        for (uint32_t k = 0; k < 5; k++)
            reg(stage[n] + k, 0);
    reg(PVK_GPUREG_TEXENV_UPDATE_BUFFER, 0);
    reg(PVK_GPUREG_FRAGOP_ALPHA_TEST, 0);
}

/* The plain setup: the pass-through program and its attributes, the RGBA8
 * target FB (W x H), replace blending, every TEV stage the primary colour. */
static inline void setup_plain_rgba8(void)
{
    upload_shader();
    setup_attribs();
    setup_rgba8_target(FB, W, H);
    merger_replace();
    tev_primary_colour();
}

/* TEV state s: stage 0 combines the vertex colour and the constant with
 * one of eight modes, the constant's operand one of three: 24 shaders. */
static inline void tev_mode_state(unsigned s)
{
    static const uint32_t mode[8] = {0, 1, 2, 3, 4, 5, 8, 9};
    reg(PVK_GPUREG_TEXENV0_SOURCE, 0x00E000E0u); /* primary, constant, primary (colour and alpha) */
    reg(PVK_GPUREG_TEXENV0_OPERAND, (s / 8 % 3) << 4);                  /* rgb operand of argument 2 */
    reg(PVK_GPUREG_TEXENV0_COMBINER, mode[s % 8] | mode[(s + 3) % 8] << 16);
    reg(PVK_GPUREG_TEXENV0_COLOR, 0xC0306090u);
}

/* DRAWARRAYS of `n` vertices in PRIMITIVE_CONFIG mode `mode` (2 outputs), then wait. */
static inline void draw_arrays(uint32_t mode, uint32_t n)
{
    reg(PVK_GPUREG_PRIMITIVE_CONFIG, (mode << 8) | 1);
    reg(PVK_GPUREG_NUMVERTICES, n);
    reg(PVK_GPUREG_VERTEX_OFFSET, 0);
    reg(PVK_GPUREG_DRAWARRAYS, 1);
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
}

static inline void clear_fb(void)
{
    pvk_wait_idle(ctx);
    memset(pvk_guest_ptr(ctx, FB, W * H * 4), 0, W * H * 4);
    pvk_guest_written(ctx, FB, W * H * 4);
}

/* Tiled pixel index of window pixel (x, y): y up, memory row 0 at the top. */
static inline uint32_t tiled_index(uint32_t x, uint32_t y)
{
    uint32_t row = H - 1 - y;
    uint32_t m = (x & 1) | (row & 1) << 1 | (x & 2) << 1 | (row & 2) << 2 | (x & 4) << 2 | (row & 4) << 3;
    return (row & ~7u) * W + (x & ~7u) * 8 + m;
}

#endif
