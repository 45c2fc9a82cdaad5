/* What the drawing benchmarks share: timing, register writes and the
 * pass-through vertex setup (MOV o0, v0; MOV o1, v1; END, fed one interleaved
 * float4 position + float4 colour buffer), as a program drives the GPU. */
#ifndef PVK_BENCH_DRAW_H
#define PVK_BENCH_DRAW_H

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

#endif
