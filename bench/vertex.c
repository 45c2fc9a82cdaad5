/* Vertices per second through attribute loading (translator/attrib.c) and
 * the shader interpreter (translator/shader.c) for a typical transform
 * shader: 3 attributes (position f32x3, colour u8x4, texcoord f32x2, one
 * interleaved buffer), DP4 x4 against a 4x4 matrix in c0-c3, MOV colour and
 * texcoord, END.  The floor is a plain C loop doing the same matrix math and
 * copies on float32 arrays, measured in the same run.
 *
 * The GPU path (issue 13's first slice): the same program translated to
 * GLSL (translator/glsl_vs.c) and run through the compute harness
 * (runtime/vs_compute.c) in dispatches of 1024 and 30720 vertices, counted
 * from the inputs in host memory to the results back in host memory
 * (upload, dispatch, wait, readback), against the interpreter on the same
 * inputs in batches of the same size.  The results are checked bit for bit
 * against the interpreter first.
 *
 * End to end (issue 13's second slice): DRAWARRAYS of 1024 and 30720
 * vertices (triangle lists of zero area, so the rasterizer costs nothing)
 * into a 256x256 colour buffer, four register writes of a draw then a wait,
 * until a second has passed: the draw path with the program as the vertex
 * stage (vertex_gpu_draw_*) against the same draws with the interpreter
 * (PVK_DEBUG=cpu-vs's path, vertex_interp_draw_*), in the same context.
 *
 * Lighting (issue 13's benchmark): the same draws with a program that loops
 * over four lights through c[aL] (vertex_gpu_draw_light_*,
 * vertex_interp_draw_light_*), checked first against float32 math and bit
 * for bit between the GPU program and the interpreter. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/runtime.h"
#include "translator/geometry.h"

#define NVERT 4096u
#define STRIDE 24u /* 12 position + 4 colour + 8 texcoord */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static void wr(pvk_context *ctx, uint32_t id, uint32_t v) { pvk_pica_write(&ctx->pica, id, v); }

/* DRAWARRAYS of the configured draw, each batch size on each path (the
 * interpreter, then the GPU vertex stage), four draws then a wait for a
 * second: rate[gpu][b] in vertices/s.  False when a path was not taken as
 * named (the counters say which ran). */
static bool draw_rates(pvk_context *ctx, const uint32_t batch[2], double rate[2][2])
{
    bool ok = true;
    for (int gpu = 0; gpu < 2; gpu++) {
        ctx->pica.env.gpu_vs = gpu;
        for (int b = 0; b < 2; b++) {
            wr(ctx, PVK_GPUREG_NUMVERTICES, batch[b]);
            uint64_t before = ctx->pica.counters.gpu_vertices, n = 0;
            pvk_mmio_write32(ctx, PVK_MMIO_PICA + 4 * PVK_GPUREG_DRAWARRAYS, 1); /* pipelines built first */
            pvk_wait_idle(ctx);
            double t0 = now(), t1;
            do {
                for (int k = 0; k < 4; k++)
                    pvk_mmio_write32(ctx, PVK_MMIO_PICA + 4 * PVK_GPUREG_DRAWARRAYS, 1);
                pvk_wait_idle(ctx);
                n += 4 * batch[b];
                t1 = now();
            } while (t1 - t0 < 1.0);
            rate[gpu][b] = n / (t1 - t0);
            if ((ctx->pica.counters.gpu_vertices != before) != gpu) /* each path ran as named */
                ok = false;
        }
    }
    ctx->pica.env.gpu_vs = true;
    return ok;
}

int main(void)
{
    pvk_config cfg = {.log_level = PVK_LOG_WARN};
    pvk_context *ctx = NULL;
    pvk_result r = pvk_context_create(&cfg, &ctx);
    if (r) {
        fprintf(stderr, "vertex bench: no context: %s\n", pvk_result_string(r));
        return 1;
    }

    /* the shader: o0 = M * v0, o1 = v1, o2 = v2 */
    const uint32_t desc_all = 0xF | 0x1Bu << 5 | 0x1Bu << 14 | 0x1Bu << 23;
    uint32_t code[7];
    for (uint32_t i = 0; i < 4; i++) /* DP4 o0.<i>, c<i>, v0 with descriptor 1 + i (mask one component) */
        code[i] = 0x02u << 26 | 0u << 21 | (0x20u + i) << 12 | 0u << 7 | (1 + i);
    code[4] = 0x13u << 26 | 1u << 21 | 1u << 12 | 0;  /* MOV o1, v1 */
    code[5] = 0x13u << 26 | 2u << 21 | 2u << 12 | 0;  /* MOV o2, v2 */
    code[6] = 0x22u << 26;                            /* END */
    wr(ctx, PVK_GPUREG_VSH_CODETRANSFER_CONFIG, 0);
    for (int i = 0; i < 7; i++)
        wr(ctx, PVK_GPUREG_VSH_CODETRANSFER_DATA, code[i]);
    wr(ctx, PVK_GPUREG_VSH_OPDESCS_CONFIG, 0);
    wr(ctx, PVK_GPUREG_VSH_OPDESCS_DATA, desc_all);
    for (uint32_t i = 0; i < 4; i++)
        wr(ctx, PVK_GPUREG_VSH_OPDESCS_DATA, (desc_all & ~0xFu) | (8u >> i));
    wr(ctx, PVK_GPUREG_VSH_ENTRYPOINT, 0x7FFF0000u);

    /* a perspective-ish matrix, rows uploaded as f32 uniforms (words w, z, y, x) */
    static const float m[4][4] = {
        {1.2f, 0.1f, 0.0f, 0.5f},
        {0.0f, 1.6f, 0.2f, -0.25f},
        {0.0f, 0.0f, -1.01f, -0.2f},
        {0.0f, 0.0f, -1.0f, 0.0f},
    };
    wr(ctx, PVK_GPUREG_VSH_FLOATUNIFORM_CONFIG, 0x80000000u);
    for (int row = 0; row < 4; row++)
        for (int c = 3; c >= 0; c--)
            wr(ctx, PVK_GPUREG_VSH_FLOATUNIFORM_DATA, fbits(m[row][c]));

    /* the vertex buffer in FCRAM, and the same data as float32 arrays for the floor */
    const uint32_t base = PVK_FCRAM_BASE + 0x100000;
    uint8_t *vb = pvk_guest_ptr(ctx, base, NVERT * STRIDE);
    float (*pos)[4] = malloc(sizeof(float[4]) * NVERT);
    float (*col)[4] = malloc(sizeof(float[4]) * NVERT);
    float (*tc)[4] = malloc(sizeof(float[4]) * NVERT);
    if (!vb || !pos || !col || !tc) {
        fprintf(stderr, "vertex bench: out of memory\n");
        return 1;
    }
    for (uint32_t i = 0; i < NVERT; i++) {
        float p[3] = {(float)(i % 64) / 32.0f - 1.0f, (float)(i / 64) / 32.0f - 1.0f, -2.0f - (float)(i % 7)};
        float t[2] = {(float)(i % 64) / 64.0f, (float)(i / 64) / 64.0f};
        uint8_t c[4] = {(uint8_t)i, (uint8_t)(i >> 4), (uint8_t)(i * 7), 255};
        memcpy(vb + i * STRIDE, p, 12);
        memcpy(vb + i * STRIDE + 12, c, 4);
        memcpy(vb + i * STRIDE + 16, t, 8);
        for (int k = 0; k < 4; k++) {
            pos[i][k] = k < 3 ? p[k] : 1.0f;
            col[i][k] = c[k];
            tc[i][k] = k < 2 ? t[k] : (k == 3 ? 1.0f : 0.0f);
        }
    }
    /* attributes: 0 f32x3, 1 u8x4, 2 f32x2 -> v0, v1, v2; buffer 0 order 0, 1, 2 */
    wr(ctx, PVK_GPUREG_ATTRIBBUFFERS_LOC, base >> 3);
    wr(ctx, PVK_GPUREG_ATTRIBBUFFERS_FORMAT_LOW, (3u | 2u << 2) | (1u | 3u << 2) << 4 | (3u | 1u << 2) << 8);
    wr(ctx, PVK_GPUREG_ATTRIBBUFFERS_FORMAT_HIGH, 2u << 28);
    wr(ctx, PVK_GPUREG_ATTRIBBUFFER0_OFFSET, 0);
    wr(ctx, PVK_GPUREG_ATTRIBBUFFER0_CONFIG1, 0x210);
    wr(ctx, PVK_GPUREG_ATTRIBBUFFER0_CONFIG2, STRIDE << 16 | 3u << 28);
    wr(ctx, PVK_GPUREG_VSH_NUM_ATTR, 2);
    wr(ctx, PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_LOW, 0x210);
    wr(ctx, PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_HIGH, 0);

    pvk_attrib_plan plan;
    if (pvk_attrib_plan_build(&ctx->pica, &plan) != PVK_SUCCESS) {
        fprintf(stderr, "vertex bench: attribute plan refused\n");
        return 1;
    }

    /* check once that the interpreter computes what the floor computes */
    float v[PVK_SH_INPUTS][4], o[PVK_SH_OUTPUTS][4];
    memset(v, 0, sizeof v);
    memset(o, 0, sizeof o);
    double max_err = 0;
    for (uint32_t i = 0; i < NVERT; i++) {
        if (pvk_attrib_fetch(&ctx->pica, &plan, i, v) || pvk_vs_run(&ctx->pica, (const float(*)[4])v, o)) {
            fprintf(stderr, "vertex bench: vertex %u failed\n", i);
            return 1;
        }
        for (int row = 0; row < 4; row++) {
            float want = m[row][0] * pos[i][0] + m[row][1] * pos[i][1] + m[row][2] * pos[i][2] + m[row][3];
            double err = fabs((double)o[0][row] - want) / fmax(1.0, fabs(want));
            max_err = fmax(max_err, err);
        }
        if (o[1][0] != col[i][0] || o[2][1] != tc[i][1] || o[2][3] != 1.0f) {
            fprintf(stderr, "vertex bench: vertex %u: colour/texcoord mismatch\n", i);
            return 1;
        }
    }

    /* attribute loading + interpreter */
    uint64_t n_full = 0;
    double t0 = now(), t1;
    do {
        for (uint32_t i = 0; i < NVERT; i++) {
            pvk_attrib_fetch(&ctx->pica, &plan, i, v);
            pvk_vs_run(&ctx->pica, (const float(*)[4])v, o);
        }
        n_full += NVERT;
        t1 = now();
    } while (t1 - t0 < 1.0);
    double full_rate = n_full / (t1 - t0);

    /* interpreter alone (inputs already in registers) */
    float (*vin)[PVK_SH_INPUTS][4] = calloc(NVERT, sizeof *vin);
    for (uint32_t i = 0; i < NVERT; i++)
        pvk_attrib_fetch(&ctx->pica, &plan, i, vin[i]);
    uint64_t n_sh = 0;
    t0 = now();
    do {
        for (uint32_t i = 0; i < NVERT; i++)
            pvk_vs_run(&ctx->pica, (const float(*)[4])vin[i], o);
        n_sh += NVERT;
        t1 = now();
    } while (t1 - t0 < 1.0);
    double sh_rate = n_sh / (t1 - t0);

    /* the floor: the same math on float32 arrays */
    float (*out)[3][4] = malloc(sizeof(float[3][4]) * NVERT);
    uint64_t n_c = 0;
    t0 = now();
    do {
        const float (*volatile mp)[4] = m; /* keep the matrix from being folded into constants */
        for (uint32_t i = 0; i < NVERT; i++) {
            for (int row = 0; row < 4; row++)
                out[i][0][row] = mp[row][0] * pos[i][0] + mp[row][1] * pos[i][1] + mp[row][2] * pos[i][2] +
                                 mp[row][3] * pos[i][3];
            memcpy(out[i][1], col[i], sizeof col[i]);
            memcpy(out[i][2], tc[i], sizeof tc[i]);
        }
        n_c += NVERT;
        t1 = now();
    } while (t1 - t0 < 1.0);
    double c_rate = n_c / (t1 - t0);
    float check = 0;
    for (uint32_t i = 0; i < NVERT; i += 61)
        check += out[i][0][0] + out[i][1][1];

    /* the GPU path and the interpreter per batch size */
    static const uint32_t batch[2] = {1024, 30720};
    static const char *const bname[2] = {"1k", "30k"};
    double gpu_rate[2] = {0, 0}, int_rate[2] = {0, 0};
    float (*big)[PVK_SH_INPUTS][4] = malloc(sizeof *big * batch[1]);
    pvk_vs_result *res = malloc(sizeof *res * batch[1]);
    pvk_vs_compute *vc = NULL;
    if (!big || !res || pvk_vs_compute_create(ctx, &vc)) {
        fprintf(stderr, "vertex bench: no compute harness\n");
        return 1;
    }
    for (uint32_t i = 0; i < batch[1]; i++)
        memcpy(big[i], vin[i % NVERT], sizeof big[i]);
    const pvk_shader_unit *unit = &ctx->pica.sh[1];
    pvk_vs_program prog = {.code = unit->code, .opdesc = unit->opdesc, .entry = 0};
    pvk_vs_uniforms uni;
    pvk_vs_uniforms_pack(unit, unit->b, unit->i, 0, NULL, &uni);
    if (pvk_vs_compute_run(vc, &prog, &uni, (const float(*)[PVK_SH_INPUTS][4])big, batch[1], false, res)) {
        fprintf(stderr, "vertex bench: the GPU path failed\n");
        return 1;
    }
    for (uint32_t i = 0; i < batch[1]; i++) { /* bit for bit against the interpreter */
        memset(o, 0, sizeof o);
        pvk_vs_run(&ctx->pica, (const float(*)[4])big[i], o);
        if (res[i].status || memcmp(res[i].o, o, sizeof o)) {
            fprintf(stderr, "vertex bench: GPU vertex %u differs from the interpreter\n", i);
            return 1;
        }
    }
    for (int b = 0; b < 2; b++) {
        uint64_t n = 0;
        t0 = now();
        do {
            pvk_vs_compute_run(vc, &prog, &uni, (const float(*)[PVK_SH_INPUTS][4])big, batch[b], false, res);
            n += batch[b];
            t1 = now();
        } while (t1 - t0 < 1.0);
        gpu_rate[b] = n / (t1 - t0);
        n = 0;
        t0 = now();
        do {
            for (uint32_t i = 0; i < batch[b]; i++)
                pvk_vs_run(&ctx->pica, (const float(*)[4])big[i], o);
            n += batch[b];
            t1 = now();
        } while (t1 - t0 < 0.5);
        int_rate[b] = n / (t1 - t0);
    }
    pvk_vs_compute_destroy(vc);
    free(res);
    free(big);

    /* end to end: draws through the register interface, each path */
    double draw_rate[2][2] = {{0, 0}, {0, 0}}; /* [gpu][batch] */
    const uint32_t fb = PVK_VRAM_BASE, dbase = PVK_FCRAM_BASE + 0x400000;
    uint8_t *dvb = pvk_guest_ptr(ctx, dbase, batch[1] * STRIDE);
    for (uint32_t i = 0; i < batch[1]; i++) { /* the vertices again, on one line: triangles of no area */
        memcpy(dvb + i * STRIDE, vb + (i % NVERT) * STRIDE, STRIDE);
        float yz[2] = {0.25f, -3.0f};
        memcpy(dvb + i * STRIDE + 4, yz, 8);
    }
    pvk_guest_written(ctx, dbase, batch[1] * STRIDE);
    wr(ctx, PVK_GPUREG_ATTRIBBUFFERS_LOC, dbase >> 3);
    wr(ctx, PVK_GPUREG_VSH_OUTMAP_MASK, 0x7);
    wr(ctx, PVK_GPUREG_SH_OUTMAP_TOTAL, 3);
    wr(ctx, PVK_GPUREG_SH_OUTMAP_O0, 0x03020100);
    wr(ctx, PVK_GPUREG_SH_OUTMAP_O0 + 1, 0x0B0A0908);
    wr(ctx, PVK_GPUREG_SH_OUTMAP_O0 + 2, 0x1F1F0D0C);
    wr(ctx, PVK_GPUREG_COLORBUFFER_FORMAT, 2);
    wr(ctx, PVK_GPUREG_COLORBUFFER_LOC, fb >> 3);
    wr(ctx, PVK_GPUREG_COLORBUFFER_READ, 0xF);
    wr(ctx, PVK_GPUREG_COLORBUFFER_WRITE, 0xF);
    wr(ctx, PVK_GPUREG_FRAMEBUFFER_DIM, 256 | 255u << 12 | 1u << 24);
    wr(ctx, PVK_GPUREG_VIEWPORT_WIDTH, pvk_f32_to_f24(fbits(128.0f)));
    wr(ctx, PVK_GPUREG_VIEWPORT_HEIGHT, pvk_f32_to_f24(fbits(128.0f)));
    wr(ctx, PVK_GPUREG_COLOR_OPERATION, 0x00E40100);
    wr(ctx, PVK_GPUREG_BLEND_FUNC, 0x01010000);
    wr(ctx, PVK_GPUREG_DEPTH_COLOR_MASK, 0xF00);
    wr(ctx, PVK_GPUREG_PRIMITIVE_CONFIG, 2); /* triangle list, 3 outputs */
    wr(ctx, PVK_GPUREG_VERTEX_OFFSET, 0);
    if (!draw_rates(ctx, batch, draw_rate)) {
        fprintf(stderr, "vertex bench: a draw did not take the path it measures\n");
        return 1;
    }

    /* A lighting-style program with a loop, the same draws through each path:
     *   0-3  DP4 o0.<i>, c<i>, v0           position by the matrix
     *   4    MOV r1, c9                     ambient
     *   5    LOOP i0 (to 8)                 i0: 4 lights, aL from 0 step 2
     *   6      DP3 r0, c16[aL], v0          light direction . normal
     *   7      MAX r0, c8, r0               clamped at 0 (c8 = 0)
     *   8      MAD r1, r0, c17[aL], r1      + that times the light colour
     *   9    MOV o1, r1
     *   10   MOV o2, v2
     *   11   END
     * The vertex layout has no normal, so v0 (the position) stands in for it. */
    enum { NLIGHT = 4 };
    static const float ldir[NLIGHT][3] = {{0.3f, 0.5f, -0.8f}, {-0.6f, 0.2f, -0.7f}, {0.0f, -0.9f, -0.4f},
                                          {0.5f, 0.5f, 0.5f}};
    static const float lcol[NLIGHT][4] = {{0.9f, 0.8f, 0.7f, 1.0f}, {0.1f, 0.3f, 0.6f, 0.5f},
                                          {0.4f, 0.4f, 0.1f, 0.25f}, {0.2f, 0.7f, 0.3f, 0.125f}};
    static const float amb[4] = {0.05f, 0.05f, 0.1f, 1.0f};
    uint32_t lcode[12];
    for (uint32_t i = 0; i < 4; i++)
        lcode[i] = code[i];
    lcode[4] = 0x13u << 26 | 0x11u << 21 | 0x29u << 12;                                   /* MOV r1, c9 */
    lcode[5] = 0x29u << 26 | 0u << 22 | 8u << 10 | 0;                                     /* LOOP i0, 8 */
    lcode[6] = 0x01u << 26 | 0x10u << 21 | 3u << 19 | 0x30u << 12 | 0u << 7;              /* DP3 r0, c16[aL], v0 */
    lcode[7] = 0x0Cu << 26 | 0x10u << 21 | 0x28u << 12 | 0x10u << 7;                      /* MAX r0, c8, r0 */
    lcode[8] = 0x38u << 26 | 0x11u << 24 | 3u << 22 | 0x10u << 17 | 0x31u << 10 | 0x11u << 5; /* MAD */
    lcode[9] = 0x13u << 26 | 1u << 21 | 0x11u << 12;                                      /* MOV o1, r1 */
    lcode[10] = 0x13u << 26 | 2u << 21 | 2u << 12;                                        /* MOV o2, v2 */
    lcode[11] = 0x22u << 26;                                                              /* END */
    wr(ctx, PVK_GPUREG_VSH_CODETRANSFER_CONFIG, 0);
    for (int i = 0; i < 12; i++)
        wr(ctx, PVK_GPUREG_VSH_CODETRANSFER_DATA, lcode[i]);
    wr(ctx, PVK_GPUREG_VSH_CODETRANSFER_END, 1);
    wr(ctx, PVK_GPUREG_VSH_INTUNIFORM_I0, (NLIGHT - 1) | 0u << 8 | 2u << 16); /* iterations - 1, start, step */
    const float zero[4] = {0, 0, 0, 0};
    const float *luni[2 + 2 * NLIGHT] = {zero, amb};
    float ldir4[NLIGHT][4];
    for (int k = 0; k < NLIGHT; k++) {
        memcpy(ldir4[k], ldir[k], sizeof ldir[k]);
        ldir4[k][3] = 0;
        luni[2 + 2 * k] = ldir4[k];
        luni[3 + 2 * k] = lcol[k];
    }
    wr(ctx, PVK_GPUREG_VSH_FLOATUNIFORM_CONFIG, 0x80000000u | 8); /* c8 zero, c9 ambient */
    for (int u = 0; u < 2; u++)
        for (int c = 3; c >= 0; c--)
            wr(ctx, PVK_GPUREG_VSH_FLOATUNIFORM_DATA, fbits(luni[u][c]));
    wr(ctx, PVK_GPUREG_VSH_FLOATUNIFORM_CONFIG, 0x80000000u | 16); /* c16.. direction, colour per light */
    for (int u = 2; u < 2 + 2 * NLIGHT; u++)
        for (int c = 3; c >= 0; c--)
            wr(ctx, PVK_GPUREG_VSH_FLOATUNIFORM_DATA, fbits(luni[u][c]));

    /* before timing: the interpreter against float32 math (so the loop ran
     * all four lights, aL stepping), then the GPU program bit for bit
     * against the interpreter on the draw's vertices */
    pvk_attrib_plan dplan; /* the draws' buffer */
    if (pvk_attrib_plan_build(&ctx->pica, &dplan) != PVK_SUCCESS) {
        fprintf(stderr, "vertex bench: attribute plan refused\n");
        return 1;
    }
    float (*lin)[PVK_SH_INPUTS][4] = calloc(batch[1], sizeof *lin);
    pvk_vs_result *lres = malloc(sizeof *lres * batch[1]);
    pvk_vs_compute *lvc = NULL;
    if (!lin || !lres || pvk_vs_compute_create(ctx, &lvc)) {
        fprintf(stderr, "vertex bench: no compute harness for the lighting program\n");
        return 1;
    }
    double light_err = 0;
    for (uint32_t i = 0; i < batch[1]; i++) {
        if (pvk_attrib_fetch(&ctx->pica, &dplan, i, lin[i]) || pvk_vs_run(&ctx->pica, (const float(*)[4])lin[i], o)) {
            fprintf(stderr, "vertex bench: lighting vertex %u failed\n", i);
            return 1;
        }
        for (int c = 0; c < 4; c++) {
            float want = amb[c];
            for (int k = 0; k < NLIGHT; k++) {
                float d = lin[i][0][0] * ldir[k][0] + lin[i][0][1] * ldir[k][1] + lin[i][0][2] * ldir[k][2];
                want += fmaxf(d, 0.0f) * lcol[k][c];
            }
            light_err = fmax(light_err, fabs((double)o[1][c] - want) / fmax(1.0, fabs(want)));
        }
    }
    if (light_err > 1e-3) {
        fprintf(stderr, "vertex bench: the lighting program computes %.2e off float32 math\n", light_err);
        return 1;
    }
    const pvk_shader_unit *lunit = &ctx->pica.sh[1];
    pvk_vs_program lprog = {.code = lunit->code, .opdesc = lunit->opdesc, .entry = 0};
    pvk_vs_uniforms luni_pack;
    pvk_vs_uniforms_pack(lunit, lunit->b, lunit->i, 0, NULL, &luni_pack);
    if (pvk_vs_compute_run(lvc, &lprog, &luni_pack, (const float(*)[PVK_SH_INPUTS][4])lin, batch[1], false, lres)) {
        fprintf(stderr, "vertex bench: the GPU path failed the lighting program\n");
        return 1;
    }
    for (uint32_t i = 0; i < batch[1]; i++) {
        memset(o, 0, sizeof o);
        pvk_vs_run(&ctx->pica, (const float(*)[4])lin[i], o);
        if (lres[i].status || memcmp(lres[i].o, o, sizeof o)) {
            fprintf(stderr, "vertex bench: lighting: GPU vertex %u differs from the interpreter\n", i);
            return 1;
        }
    }
    pvk_vs_compute_destroy(lvc);
    free(lres);
    free(lin);

    double light_rate[2][2] = {{0, 0}, {0, 0}}; /* [gpu][batch] */
    if (!draw_rates(ctx, batch, light_rate)) {
        fprintf(stderr, "vertex bench: a lighting draw did not take the path it measures\n");
        return 1;
    }

    printf("vertex: %u vertices, 3 attributes (f32x3, u8x4, f32x2), DP4 x4 + MOV x2 + END\n", NVERT);
    printf("max relative error of o0 against float32 math: %.2e (inputs truncated to f24: up to 2^-16 = 1.5e-05)\n",
           max_err);
    printf("%-34s %14s %10s %8s\n", "what", "vertices/s", "ns each", "ratio");
    printf("%-34s %14.3e %10.1f %8.4f\n", "attribute fetch + interpreter", full_rate, 1e9 / full_rate,
           full_rate / c_rate);
    printf("%-34s %14.3e %10.1f %8.4f\n", "interpreter alone", sh_rate, 1e9 / sh_rate, sh_rate / c_rate);
    printf("%-34s %14.3e %10.1f %8.4f\n", "float32 C loop (floor)", c_rate, 1e9 / c_rate, 1.0);
    for (int b = 0; b < 2; b++) {
        char what[64];
        snprintf(what, sizeof what, "interpreter, %u per batch", batch[b]);
        printf("%-34s %14.3e %10.1f %8.4f\n", what, int_rate[b], 1e9 / int_rate[b], int_rate[b] / c_rate);
        snprintf(what, sizeof what, "GPU (compute), %u per dispatch", batch[b]);
        printf("%-34s %14.3e %10.1f %8.4f  (%.1fx the interpreter)\n", what, gpu_rate[b], 1e9 / gpu_rate[b],
               gpu_rate[b] / c_rate, gpu_rate[b] / int_rate[b]);
    }
    for (int b = 0; b < 2; b++) {
        char what[64];
        snprintf(what, sizeof what, "draws, interpreter, %u each", batch[b]);
        printf("%-34s %14.3e %10.1f %8.4f\n", what, draw_rate[0][b], 1e9 / draw_rate[0][b],
               draw_rate[0][b] / c_rate);
        snprintf(what, sizeof what, "draws, GPU vertex stage, %u each", batch[b]);
        printf("%-34s %14.3e %10.1f %8.4f  (%.1fx the interpreter's draws)\n", what, draw_rate[1][b],
               1e9 / draw_rate[1][b], draw_rate[1][b] / c_rate, draw_rate[1][b] / draw_rate[0][b]);
    }
    for (int b = 0; b < 2; b++) {
        char what[64];
        snprintf(what, sizeof what, "lighting draws, interp., %u each", batch[b]);
        printf("%-34s %14.3e %10.1f %8.4f\n", what, light_rate[0][b], 1e9 / light_rate[0][b],
               light_rate[0][b] / c_rate);
        snprintf(what, sizeof what, "lighting draws, GPU, %u each", batch[b]);
        printf("%-34s %14.3e %10.1f %8.4f  (%.1fx the interpreter's draws)\n", what, light_rate[1][b],
               1e9 / light_rate[1][b], light_rate[1][b] / c_rate, light_rate[1][b] / light_rate[0][b]);
    }
    printf("lighting program: DP4 x4, LOOP over %d lights (DP3, MAX, MAD with c[aL]), max relative error of o1 "
           "against float32 math %.2e\n", NLIGHT, light_err);
    printf("(checksum %g)\n", (double)check);
    printf("BENCH name=vertex_fetch_shader value=%.0f unit=vertices/s baseline=f32_c_matrix_loop ratio=%.4f\n",
           full_rate, full_rate / c_rate);
    printf("BENCH name=vertex_shader value=%.0f unit=vertices/s baseline=f32_c_matrix_loop ratio=%.4f\n", sh_rate,
           sh_rate / c_rate);
    for (int b = 0; b < 2; b++) {
        printf("BENCH name=vertex_interp_%s value=%.0f unit=vertices/s baseline=f32_c_matrix_loop ratio=%.4f\n",
               bname[b], int_rate[b], int_rate[b] / c_rate);
        printf("BENCH name=vertex_gpu_%s value=%.0f unit=vertices/s baseline=f32_c_matrix_loop ratio=%.4f\n",
               bname[b], gpu_rate[b], gpu_rate[b] / c_rate);
    }
    for (int b = 0; b < 2; b++) {
        printf("BENCH name=vertex_interp_draw_%s value=%.0f unit=vertices/s baseline=f32_c_matrix_loop "
               "ratio=%.4f\n", bname[b], draw_rate[0][b], draw_rate[0][b] / c_rate);
        printf("BENCH name=vertex_gpu_draw_%s value=%.0f unit=vertices/s baseline=vertex_interp_draw_%s "
               "ratio=%.4f\n", bname[b], draw_rate[1][b], bname[b], draw_rate[1][b] / draw_rate[0][b]);
    }
    for (int b = 0; b < 2; b++) {
        printf("BENCH name=vertex_interp_draw_light_%s value=%.0f unit=vertices/s baseline=f32_c_matrix_loop "
               "ratio=%.4f\n", bname[b], light_rate[0][b], light_rate[0][b] / c_rate);
        printf("BENCH name=vertex_gpu_draw_light_%s value=%.0f unit=vertices/s baseline=vertex_interp_draw_light_%s "
               "ratio=%.4f\n", bname[b], light_rate[1][b], bname[b], light_rate[1][b] / light_rate[0][b]);
    }
    free(out);
    free(vin);
    free(pos);
    free(col);
    free(tc);
    pvk_context_destroy(ctx);
    return 0;
}
