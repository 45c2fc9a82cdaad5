/* Geometry programs: point-sprite expansion (citro3d's geoshader example's
 * shape), each input point (position f32x4, colour f32x4) becoming a quad
 * of two triangles emitted by the geometry program, drawn with DRAWARRAYS
 * of 1024 and 30720 points into a 256x256 colour buffer (sprites of 2x2
 * pixels), four draws then a wait, for a second.  Two paths in the same
 * context: the vertex and geometry programs in the GPU's compute pre-pass
 * (runtime/gs_draw.c: gs_gpu_points_*) and both on the CPU interpreter
 * (PVK_DEBUG=cpu-vs's path: gs_interp_points_*), in input points per second.
 * Each path is checked to run as named (the geometry draw counters) and to
 * draw the same picture. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/runtime.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void wr(pvk_context *ctx, uint32_t id, uint32_t v) { pvk_mmio_write32(ctx, PVK_MMIO_PICA + 4 * id, v); }

static void uniform(pvk_context *ctx, uint32_t id, const float v[4])
{
    wr(ctx, PVK_GPUREG_GSH_FLOATUNIFORM_CONFIG, 0x80000000u | id);
    for (int k = 3; k >= 0; k--) {
        uint32_t b;
        memcpy(&b, &v[k], 4);
        wr(ctx, PVK_GPUREG_GSH_FLOATUNIFORM_DATA, b);
    }
}

#define NPOINTS 30720u

int main(void)
{
    pvk_config cfg = {.log_level = PVK_LOG_WARN};
    pvk_context *ctx = NULL;
    pvk_result r = pvk_context_create(&cfg, &ctx);
    if (r) {
        fprintf(stderr, "geometry bench: no context: %s\n", pvk_result_string(r));
        return 1;
    }
    const uint32_t desc = 0xF | 0x1Bu << 5 | 0x1Bu << 14 | 0x1Bu << 23;
    /* vertex program: MOV o0, v0; MOV o1, v1; END */
    wr(ctx, PVK_GPUREG_VSH_COM_MODE, 1);
    wr(ctx, PVK_GPUREG_VSH_CODETRANSFER_CONFIG, 0);
    wr(ctx, PVK_GPUREG_VSH_CODETRANSFER_DATA, 0x13u << 26 | 0u << 21 | 0u << 12);
    wr(ctx, PVK_GPUREG_VSH_CODETRANSFER_DATA, 0x13u << 26 | 1u << 21 | 1u << 12);
    wr(ctx, PVK_GPUREG_VSH_CODETRANSFER_DATA, 0x22u << 26);
    wr(ctx, PVK_GPUREG_VSH_CODETRANSFER_END, 1);
    wr(ctx, PVK_GPUREG_VSH_OPDESCS_CONFIG, 0);
    wr(ctx, PVK_GPUREG_VSH_OPDESCS_DATA, desc);
    wr(ctx, PVK_GPUREG_VSH_ENTRYPOINT, 0x7FFF0000u);
    wr(ctx, PVK_GPUREG_VSH_OUTMAP_MASK, 0x3);
    wr(ctx, PVK_GPUREG_VSH_OUTMAP_TOTAL1, 1);
    wr(ctx, PVK_GPUREG_VSH_OUTMAP_TOTAL2, 1);
    wr(ctx, PVK_GPUREG_VSH_INPUTBUFFER_CONFIG, 0xA0000000u | 1);
    wr(ctx, PVK_GPUREG_VSH_NUM_ATTR, 1);
    wr(ctx, PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_LOW, 0x10);
    /* geometry program: o1 = v1; four corners v0 + c0..c3, the second triangle winding-flipped */
    uint32_t code[16], n = 0;
    code[n++] = 0x13u << 26 | 1u << 21 | 1u << 12;
    static const uint32_t vtx[4] = {0, 1, 2, 0};
    for (uint32_t q = 0; q < 4; q++) {
        code[n++] = 0x00u << 26 | 0u << 21 | (0x20u + q) << 12 | 0u << 7; /* ADD o0, c<q>, v0 */
        code[n++] = 0x2Bu << 26 | vtx[q] << 24 | (uint32_t)(q >= 2) << 23 | (uint32_t)(q == 3) << 22;
        code[n++] = 0x2Au << 26;
    }
    code[n++] = 0x22u << 26;
    wr(ctx, PVK_GPUREG_GSH_CODETRANSFER_CONFIG, 0);
    for (uint32_t i = 0; i < n; i++)
        wr(ctx, PVK_GPUREG_GSH_CODETRANSFER_DATA, code[i]);
    wr(ctx, PVK_GPUREG_GSH_CODETRANSFER_END, 1);
    wr(ctx, PVK_GPUREG_GSH_OPDESCS_CONFIG, 0);
    wr(ctx, PVK_GPUREG_GSH_OPDESCS_DATA, desc);
    const float s = 1.0f / 128; /* one pixel */
    const float corner[4][4] = {{-s, -s, 0, 0}, {s, -s, 0, 0}, {-s, s, 0, 0}, {s, s, 0, 0}};
    for (uint32_t q = 0; q < 4; q++)
        uniform(ctx, q, corner[q]);
    wr(ctx, PVK_GPUREG_GSH_ENTRYPOINT, 0x7FFF0000u);
    wr(ctx, PVK_GPUREG_GSH_BOOLUNIFORM, 0x7FFF0000u);
    wr(ctx, PVK_GPUREG_GSH_INPUTBUFFER_CONFIG, 0x08000000u | 1);
    wr(ctx, PVK_GPUREG_GSH_ATTRIBUTES_PERMUTATION_LOW, 0x76543210u);
    wr(ctx, PVK_GPUREG_GSH_ATTRIBUTES_PERMUTATION_HIGH, 0xFEDCBA98u);
    wr(ctx, PVK_GPUREG_GSH_OUTMAP_MASK, 0x3);
    wr(ctx, PVK_GPUREG_SH_OUTMAP_TOTAL, 2);
    wr(ctx, PVK_GPUREG_SH_OUTMAP_O0, 0x03020100);
    wr(ctx, PVK_GPUREG_SH_OUTMAP_O0 + 1, 0x0B0A0908);
    wr(ctx, PVK_GPUREG_GEOSTAGE_CONFIG, 2);
    /* the points: a grid over the buffer, colours from the position */
    const uint32_t fb = PVK_VRAM_BASE, vbase = PVK_FCRAM_BASE + 0x400000;
    float *vb = pvk_guest_ptr(ctx, vbase, NPOINTS * 32);
    for (uint32_t i = 0; i < NPOINTS; i++) {
        float x = (float)(i % 181) / 90.5f - 1.0f, y = (float)(i / 181 % 170) / 85.0f - 1.0f;
        float v[8] = {x, y, -0.5f, 1.0f, (x + 1) / 2, (y + 1) / 2, (float)(i % 7) / 7, 1.0f};
        memcpy(vb + 8 * i, v, sizeof v);
    }
    pvk_guest_written(ctx, vbase, NPOINTS * 32);
    wr(ctx, PVK_GPUREG_ATTRIBBUFFERS_LOC, vbase >> 3);
    wr(ctx, PVK_GPUREG_ATTRIBBUFFERS_FORMAT_LOW, 0xFF);
    wr(ctx, PVK_GPUREG_ATTRIBBUFFERS_FORMAT_HIGH, 1u << 28);
    wr(ctx, PVK_GPUREG_ATTRIBBUFFER0_OFFSET, 0);
    wr(ctx, PVK_GPUREG_ATTRIBBUFFER0_CONFIG1, 0x10);
    wr(ctx, PVK_GPUREG_ATTRIBBUFFER0_CONFIG2, 32u << 16 | 2u << 28);
    wr(ctx, PVK_GPUREG_COLORBUFFER_FORMAT, 2);
    wr(ctx, PVK_GPUREG_COLORBUFFER_LOC, fb >> 3);
    wr(ctx, PVK_GPUREG_COLORBUFFER_READ, 0xF);
    wr(ctx, PVK_GPUREG_COLORBUFFER_WRITE, 0xF);
    wr(ctx, PVK_GPUREG_FRAMEBUFFER_DIM, 256 | 255u << 12 | 1u << 24);
    wr(ctx, PVK_GPUREG_VIEWPORT_WIDTH, pvk_f32_to_f24(0x43000000u));  /* 128.0 */
    wr(ctx, PVK_GPUREG_VIEWPORT_HEIGHT, pvk_f32_to_f24(0x43000000u));
    wr(ctx, PVK_GPUREG_COLOR_OPERATION, 0x00E40100);
    wr(ctx, PVK_GPUREG_BLEND_FUNC, 0x01010000);
    wr(ctx, PVK_GPUREG_DEPTH_COLOR_MASK, 0xF00);
    wr(ctx, PVK_GPUREG_PRIMITIVE_CONFIG, 3u << 8 | 1);
    wr(ctx, PVK_GPUREG_VERTEX_OFFSET, 0);

    static const uint32_t batch[2] = {1024, NPOINTS};
    static const char *const bname[2] = {"points_1k", "points_30k"};
    double rate[2][2] = {{0, 0}, {0, 0}}; /* [gpu][batch] */
    static uint8_t pic[2][256 * 256 * 4];
    bool ok = true;
    for (int b = 0; b < 2; b++) {
        wr(ctx, PVK_GPUREG_NUMVERTICES, batch[b]);
        for (int gpu = 0; gpu < 2; gpu++) {
            ctx->pica.env.gpu_vs = gpu;
            uint8_t *m = pvk_guest_ptr(ctx, fb, 256 * 256 * 4);
            pvk_wait_idle(ctx);
            memset(m, 0, 256 * 256 * 4);
            pvk_guest_written(ctx, fb, 256 * 256 * 4);
            uint64_t before = ctx->pica.counters.gs_gpu_draws, tris = ctx->pica.counters.triangles, count = 0;
            wr(ctx, PVK_GPUREG_DRAWARRAYS, 1); /* pipelines built first */
            pvk_guest_flush(ctx, fb, 256 * 256 * 4);
            memcpy(pic[gpu], m, sizeof pic[gpu]);
            /* each path ran as named; the interpreter's path emitted two triangles a point */
            if ((ctx->pica.counters.gs_gpu_draws != before) != gpu ||
                (!gpu && ctx->pica.counters.triangles - tris != 2u * batch[b]))
                ok = false;
            double t0 = now(), t1;
            do {
                for (int k = 0; k < 4; k++)
                    wr(ctx, PVK_GPUREG_DRAWARRAYS, 1);
                pvk_wait_idle(ctx);
                count += 4 * batch[b];
                t1 = now();
            } while (t1 - t0 < 1.0);
            rate[gpu][b] = count / (t1 - t0);
        }
        if (memcmp(pic[0], pic[1], sizeof pic[0])) {
            fprintf(stderr, "geometry bench: the paths drew different pictures (%s)\n", bname[b]);
            ok = false;
        }
    }
    ctx->pica.env.gpu_vs = true;
    printf("geometry: point sprites (1 point in, 2 triangles out), vertex program MOV x2, geometry program 13 words\n");
    printf("%-40s %14s %10s %8s\n", "what", "points/s", "ns each", "ratio");
    for (int b = 0; b < 2; b++) {
        char what[64];
        snprintf(what, sizeof what, "draws, interpreter, %u each", batch[b]);
        printf("%-40s %14.3e %10.1f %8.4f\n", what, rate[0][b], 1e9 / rate[0][b], 1.0);
        snprintf(what, sizeof what, "draws, GPU compute pre-pass, %u each", batch[b]);
        printf("%-40s %14.3e %10.1f %8.4f\n", what, rate[1][b], 1e9 / rate[1][b], rate[1][b] / rate[0][b]);
    }
    if (!ok) { /* no figures for what did not run as named */
        fprintf(stderr, "geometry bench: a draw did not take the path it measures or drew what it should not\n");
        return 1;
    }
    for (int b = 0; b < 2; b++) {
        printf("BENCH name=gs_interp_%s value=%.0f unit=points/s baseline=gs_interp_%s ratio=1.0000\n", bname[b],
               rate[0][b], bname[b]);
        printf("BENCH name=gs_gpu_%s value=%.0f unit=points/s baseline=gs_interp_%s ratio=%.4f\n", bname[b],
               rate[1][b], bname[b], rate[1][b] / rate[0][b]);
    }
    pvk_context_destroy(ctx);
    return 0;
}
