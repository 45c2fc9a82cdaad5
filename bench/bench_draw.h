/* What the drawing benchmarks share: timing, register writes, the
 * pass-through vertex setup (MOV o0, v0; MOV o1, v1; END, fed one interleaved
 * float4 position + float4 colour buffer), the fragment LUTs, the external
 * registers' memory fill, display transfer and LCD setup, and command lists
 * in guest memory built as libctru's GPUCMD_* and citro3d build them, as a
 * program drives the GPU. */
#ifndef PVK_BENCH_DRAW_H
#define PVK_BENCH_DRAW_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "picavk/picavk.h"
#include "translator/regs.h"

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU time of the calling thread alone (not the driver's threads). */
static inline double bench_thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A context for bench `name` at resolution `scale` (0: 1), warnings only;
 * a bench without one has nothing to measure: it says why and exits. */
static inline pvk_context *bench_context(const char *name, uint32_t scale)
{
    pvk_config cfg = {.log_level = PVK_LOG_WARN, .scale = scale};
    pvk_context *ctx = NULL;
    pvk_result r = pvk_context_create(&cfg, &ctx);
    if (r) {
        fprintf(stderr, "%s bench: no context: %s\n", name, pvk_result_string(r));
        exit(1);
    }
    return ctx;
}

static inline void bench_reg(pvk_context *ctx, uint32_t id, uint32_t v)
{
    pvk_mmio_write32(ctx, PVK_MMIO_PICA + 4 * id, v);
}

/* DRAWARRAYS of `n` vertices from byte `offset` of attribute buffer 0. */
static inline void bench_draw_arrays(pvk_context *ctx, uint32_t offset, uint32_t n)
{
    bench_reg(ctx, PVK_GPUREG_ATTRIBBUFFER0_OFFSET, offset);
    bench_reg(ctx, PVK_GPUREG_NUMVERTICES, n);
    bench_reg(ctx, PVK_GPUREG_VERTEX_OFFSET, 0);
    bench_reg(ctx, PVK_GPUREG_DRAWARRAYS, 1);
}

static inline uint32_t bench_f24(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return pvk_f32_to_f24(b);
}

/* The pass-through vertex shader and attribute buffer 0 at `vb`: vertices
 * of 32 bytes, position then colour. */
static inline void bench_passthrough(pvk_context *ctx, uint32_t vb)
{
    const uint32_t code[] = {(0x13u << 26) | (0u << 21) | (0u << 12), (0x13u << 26) | (1u << 21) | (1u << 12),
                             0x22u << 26};
    bench_reg(ctx, PVK_GPUREG_VSH_CODETRANSFER_CONFIG, 0);
    for (unsigned i = 0; i < 3; i++)
        bench_reg(ctx, PVK_GPUREG_VSH_CODETRANSFER_DATA, code[i]);
    bench_reg(ctx, PVK_GPUREG_VSH_CODETRANSFER_END, 1);
    bench_reg(ctx, PVK_GPUREG_VSH_OPDESCS_CONFIG, 0);
    bench_reg(ctx, PVK_GPUREG_VSH_OPDESCS_DATA, 0xF | (0x1Bu << 5) | (0x1Bu << 14) | (0x1Bu << 23));
    bench_reg(ctx, PVK_GPUREG_VSH_ENTRYPOINT, 0x7FFF0000u);
    bench_reg(ctx, PVK_GPUREG_VSH_OUTMAP_MASK, 0x3);
    bench_reg(ctx, PVK_GPUREG_SH_OUTMAP_TOTAL, 2);
    bench_reg(ctx, PVK_GPUREG_SH_OUTMAP_O0, 0x03020100);
    bench_reg(ctx, PVK_GPUREG_SH_OUTMAP_O0 + 1, 0x0B0A0908);
    bench_reg(ctx, PVK_GPUREG_VSH_INPUTBUFFER_CONFIG, 0xA0000000u | 1);
    bench_reg(ctx, PVK_GPUREG_VSH_NUM_ATTR, 1);
    bench_reg(ctx, PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_LOW, 0x10);
    bench_reg(ctx, PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_HIGH, 0);
    bench_reg(ctx, PVK_GPUREG_ATTRIBBUFFERS_LOC, vb >> 3);
    bench_reg(ctx, PVK_GPUREG_ATTRIBBUFFERS_FORMAT_LOW, 0xFF);
    bench_reg(ctx, PVK_GPUREG_ATTRIBBUFFERS_FORMAT_HIGH, 1u << 28);
    bench_reg(ctx, PVK_GPUREG_ATTRIBBUFFER0_CONFIG1, 0x10);
    bench_reg(ctx, PVK_GPUREG_ATTRIBBUFFER0_CONFIG2, (32u << 16) | (2u << 28));
}

/* ---- external registers (0x10400000-) ---- */

static inline void bench_ext(pvk_context *ctx, uint32_t off, uint32_t v)
{
    pvk_mmio_write32(ctx, PVK_MMIO_BASE + off, v);
}

/* Both memory-fill units at once, 32-bit values (as C3D_FrameBufClear
 * clears a colour and a depth buffer): [a, a + a_bytes) with `av`,
 * [b, b + b_bytes) with `bv`. */
static inline void bench_fill2(pvk_context *ctx, uint32_t a, uint32_t a_bytes, uint32_t av, uint32_t b,
                               uint32_t b_bytes, uint32_t bv)
{
    bench_ext(ctx, 0x10, a >> 3);
    bench_ext(ctx, 0x14, (a + a_bytes) >> 3);
    bench_ext(ctx, 0x18, av);
    bench_ext(ctx, 0x1C, 0x201);
    bench_ext(ctx, 0x20, b >> 3);
    bench_ext(ctx, 0x24, (b + b_bytes) >> 3);
    bench_ext(ctx, 0x28, bv);
    bench_ext(ctx, 0x2C, 0x201);
}

/* A display transfer of a w x h tiled RGBA8 buffer to linear BGR8 (as
 * C3D_FrameBufTransfer hands a render target to the LCD framebuffer). */
static inline void bench_display_transfer(pvk_context *ctx, uint32_t src, uint32_t dst, uint32_t w, uint32_t h)
{
    bench_ext(ctx, 0xC00, src >> 3);
    bench_ext(ctx, 0xC04, dst >> 3);
    bench_ext(ctx, 0xC08, w | h << 16);
    bench_ext(ctx, 0xC0C, w | h << 16);
    bench_ext(ctx, 0xC10, 1u << 12);
    bench_ext(ctx, 0xC14, 0);
    bench_ext(ctx, 0xC18, 1);
}

/* The top LCD shows framebuffer A at `fb`: BGR8, 2D, `w` pixels a column. */
static inline void bench_lcd_top(pvk_context *ctx, uint32_t fb, uint32_t w)
{
    bench_ext(ctx, 0x468, fb);
    bench_ext(ctx, 0x470, 0x41);
    bench_ext(ctx, 0x490, w * 3);
    bench_ext(ctx, 0x474, 1);
}

/* ---- the fragment LUTs ---- */

/* A lighting LUT entry: 12-bit value and the signed 12-bit difference to the next. */
static inline uint32_t bench_lut_word(double v, double next)
{
    int val = (int)(fmin(fmax(v, 0), 1) * 4095 + 0.5);
    int d = (int)floor((fmin(fmax(next, 0), 1) - val / 4095.0) * 2047 + 0.5);
    return (uint32_t)val | (d < 0 ? (uint32_t)(-d) | 0x800 : (uint32_t)d) << 12;
}

/* Every lighting LUT, the fog LUT and the procedural-texture LUTs, smooth curves. */
static inline void bench_frag_luts(pvk_context *ctx)
{
    for (unsigned t = 0; t < 24; t++) {
        if (t == 2 || t == 7)
            continue;
        bench_reg(ctx, PVK_GPUREG_LIGHTING_LUT_INDEX, t << 8);
        for (int i = 0; i < 256; i++) {
            double x = i / 256.0, x1 = (i + 1) / 256.0;
            bench_reg(ctx, PVK_GPUREG_LIGHTING_LUT_DATA, bench_lut_word(pow(x, 1 + t % 5), pow(x1, 1 + t % 5)));
        }
    }
    bench_reg(ctx, PVK_GPUREG_FOG_LUT_INDEX, 0);
    for (int i = 0; i < 128; i++)
        bench_reg(ctx, PVK_GPUREG_FOG_LUT_DATA, (uint32_t)(2047 - 16 * i) << 13 | 0x1FF0);
    for (unsigned t = 0; t < 6; t++) {
        if (t == 1)
            continue;
        bench_reg(ctx, PVK_GPUREG_PROCTEX_LUT, t << 8);
        for (int i = 0; i < (t >= 4 ? 256 : 128); i++)
            bench_reg(ctx, PVK_GPUREG_PROCTEX_LUT_DATA,
                      t == 4 ? (uint32_t)i * 0x01010101u : t == 5 ? 0x00808080u : (uint32_t)(i * 32) | 32u << 12);
    }
}

/* ---- command lists ---- */

/* A command list being built in host memory (then copied into guest
 * memory and run): words as libctru's GPUCMD_Add writes them. */
typedef struct bench_list {
    uint32_t *w;
    uint32_t n, cap;
} bench_list;

/* One command: register `id` (`consecutive`: the parameters go to id,
 * id + 1, ...; else all to id), byte mask, `count` parameters (1-256);
 * padded to an even number of words. */
static inline void bench_list_put(bench_list *b, uint32_t id, uint32_t mask, int consecutive, uint32_t count,
                                  const uint32_t *prm)
{
    if (b->n + count + 3 > b->cap) {
        uint32_t cap = b->cap * 2 + count + 64;
        uint32_t *w = realloc(b->w, cap * 4);
        if (!w) {
            fprintf(stderr, "bench: out of memory for a command list\n");
            exit(1);
        }
        b->w = w;
        b->cap = cap;
    }
    b->w[b->n++] = prm[0];
    b->w[b->n++] = pvk_cmd_header(id, mask, count - 1, consecutive);
    for (uint32_t i = 1; i < count; i++)
        b->w[b->n++] = prm[i];
    if ((count - 1) & 1)
        b->w[b->n++] = 0;
}

static inline void bench_list_w(bench_list *b, uint32_t id, uint32_t v) { bench_list_put(b, id, 0xF, 0, 1, &v); }
static inline void bench_list_wm(bench_list *b, uint32_t id, uint32_t mask, uint32_t v)
{
    bench_list_put(b, id, mask, 0, 1, &v);
}
/* `count` registers from `id` on (GPUCMD_AddIncrementalWrites). */
static inline void bench_list_seq(bench_list *b, uint32_t id, uint32_t count, const uint32_t *prm)
{
    bench_list_put(b, id, 0xF, 1, count, prm);
}

/* C3D_DrawArrays: `count` vertices of `primitive` (PRIMITIVE_CONFIG bits
 * 8-9) from vertex `first`. */
static inline void bench_list_draw_arrays(bench_list *b, uint32_t primitive, uint32_t first, uint32_t count)
{
    bench_list_wm(b, PVK_GPUREG_PRIMITIVE_CONFIG, 0x2, primitive << 8);
    bench_list_w(b, PVK_GPUREG_RESTART_PRIMITIVE, 1);
    bench_list_w(b, PVK_GPUREG_INDEXBUFFER_CONFIG, 0x80000000u);
    bench_list_w(b, PVK_GPUREG_NUMVERTICES, count);
    bench_list_w(b, PVK_GPUREG_VERTEX_OFFSET, first);
    bench_list_wm(b, PVK_GPUREG_GEOSTAGE_CONFIG2, 0x1, 1);
    bench_list_wm(b, PVK_GPUREG_START_DRAW_FUNC0, 0x1, 0);
    bench_list_w(b, PVK_GPUREG_DRAWARRAYS, 1);
    bench_list_wm(b, PVK_GPUREG_START_DRAW_FUNC0, 0x1, 1);
    bench_list_wm(b, PVK_GPUREG_GEOSTAGE_CONFIG2, 0x1, 0);
    bench_list_w(b, PVK_GPUREG_VTX_FUNC, 1);
}

/* The end of a list as GPUCMD_Split makes it: FINALIZE, twice when that
 * leaves the list short of a 16-byte multiple. */
static inline void bench_list_finalize(bench_list *b)
{
    bench_list_w(b, PVK_GPUREG_FINALIZE, 0x12345678);
    if (b->n & 3)
        bench_list_w(b, PVK_GPUREG_FINALIZE, 0x12345678);
}

/* C3D_FrameEnd's split after draws: flush and invalidate the framebuffer,
 * clear the early depth buffer, then FINALIZE. */
static inline void bench_list_frame_end(bench_list *b)
{
    bench_list_w(b, PVK_GPUREG_FRAMEBUFFER_FLUSH, 1);
    bench_list_w(b, PVK_GPUREG_FRAMEBUFFER_INVALIDATE, 1);
    bench_list_w(b, PVK_GPUREG_EARLYDEPTH_CLEAR, 1);
    bench_list_finalize(b);
}

#endif
