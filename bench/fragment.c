/* Fill rate of the generated fragment shader: full-screen quads (400 x 240
 * RGBA8, the top screen) drawn 8 deep per draw, no depth test, against the
 * same quads with the plain TEV (stage 0 replaces with the vertex colour) in
 * the same run: fog alone, 8 lights alone, the procedural texture alone
 * (noise, linear colour LUT; then with mipmap-linear levels: two colour
 * lookups a pixel), and the heaviest configuration (8 lights in
 * configuration 7 with every LUT, spot and distance attenuation on each,
 * Fresnel, geometric factors; fog; the procedural texture with noise and
 * mipmap-linear levels; all of them read by the TEV), and texture unit 0 sampled by the TEV (an RGBA8 256x256 texture,
 * bilinear, and an ETC1 one with 6 levels, trilinear; 2.56 texels a pixel).  Time from the first register write to the GPU being idle, best
 * of 3 runs (of as many draws as take a quarter second); `ratio` = Mpixels/s
 * of the case ÷ Mpixels/s of the plain quad.  Then every case again on the
 * ubershader (PVK_DEBUG=ubershader), against the case's own shader. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_draw.h"

#define W 400u
#define H 240u
#define DEPTH 8u  /* quads per draw */
#define MAX_DRAWS 64u
#define FB 0x18000000u
#define VB 0x18200000u

/* MOV o0-o4, v0-v4: position, colour, normal quaternion, view, texture coordinate 0. */
static void shader(pvk_context *ctx)
{
    bench_reg(ctx, PVK_GPUREG_VSH_CODETRANSFER_CONFIG, 0);
    for (unsigned i = 0; i < 5; i++)
        bench_reg(ctx, PVK_GPUREG_VSH_CODETRANSFER_DATA, (0x13u << 26) | (i << 21) | (i << 12));
    bench_reg(ctx, PVK_GPUREG_VSH_CODETRANSFER_DATA, 0x22u << 26);
    bench_reg(ctx, PVK_GPUREG_VSH_CODETRANSFER_END, 1);
    bench_reg(ctx, PVK_GPUREG_VSH_OPDESCS_CONFIG, 0);
    bench_reg(ctx, PVK_GPUREG_VSH_OPDESCS_DATA, 0xF | (0x1Bu << 5) | (0x1Bu << 14) | (0x1Bu << 23));
    bench_reg(ctx, PVK_GPUREG_VSH_ENTRYPOINT, 0x7FFF0000u);
    bench_reg(ctx, PVK_GPUREG_VSH_OUTMAP_MASK, 0x1F);
    bench_reg(ctx, PVK_GPUREG_SH_OUTMAP_TOTAL, 5);
    static const uint32_t outmap[5] = {0x03020100, 0x0B0A0908, 0x07060504, 0x1F141312, 0x1F1F0D0C};
    for (unsigned i = 0; i < 5; i++)
        bench_reg(ctx, PVK_GPUREG_SH_OUTMAP_O0 + i, outmap[i]);
    bench_reg(ctx, PVK_GPUREG_VSH_INPUTBUFFER_CONFIG, 0xA0000000u | 4);
    bench_reg(ctx, PVK_GPUREG_VSH_NUM_ATTR, 4);
    bench_reg(ctx, PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_LOW, 0x43210);
    bench_reg(ctx, PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_HIGH, 0);
    bench_reg(ctx, PVK_GPUREG_ATTRIBBUFFERS_LOC, VB >> 3);
    bench_reg(ctx, PVK_GPUREG_ATTRIBBUFFERS_FORMAT_LOW, 0xFFFFF);
    bench_reg(ctx, PVK_GPUREG_ATTRIBBUFFERS_FORMAT_HIGH, 4u << 28);
    bench_reg(ctx, PVK_GPUREG_ATTRIBBUFFER0_OFFSET, 0);
    bench_reg(ctx, PVK_GPUREG_ATTRIBBUFFER0_CONFIG1, 0x43210);
    bench_reg(ctx, PVK_GPUREG_ATTRIBBUFFER0_CONFIG2, (80u << 16) | (5u << 28));
}

static void setup(pvk_context *ctx)
{
    shader(ctx);
    bench_reg(ctx, PVK_GPUREG_COLORBUFFER_FORMAT, 2);
    bench_reg(ctx, PVK_GPUREG_COLORBUFFER_LOC, FB >> 3);
    bench_reg(ctx, PVK_GPUREG_COLORBUFFER_READ, 0xF);
    bench_reg(ctx, PVK_GPUREG_COLORBUFFER_WRITE, 0xF);
    bench_reg(ctx, PVK_GPUREG_FRAMEBUFFER_DIM, W | ((H - 1) << 12) | (1u << 24));
    bench_reg(ctx, PVK_GPUREG_VIEWPORT_WIDTH, bench_f24(W / 2.0f));
    bench_reg(ctx, PVK_GPUREG_VIEWPORT_HEIGHT, bench_f24(H / 2.0f));
    bench_reg(ctx, PVK_GPUREG_VIEWPORT_XY, 0);
    bench_reg(ctx, PVK_GPUREG_DEPTHMAP_ENABLE, 1);
    bench_reg(ctx, PVK_GPUREG_DEPTHMAP_SCALE, bench_f24(-1.0f));
    bench_reg(ctx, PVK_GPUREG_COLOR_OPERATION, 0x00E40100);
    bench_reg(ctx, PVK_GPUREG_BLEND_FUNC, 0x01010000);
    bench_reg(ctx, PVK_GPUREG_DEPTH_COLOR_MASK, 0xF00);
    bench_reg(ctx, PVK_GPUREG_PRIMITIVE_CONFIG, 4);
    bench_reg(ctx, PVK_GPUREG_NUMVERTICES, 6 * DEPTH);
    bench_reg(ctx, PVK_GPUREG_VERTEX_OFFSET, 0);
    /* the quads: normals tilted across the screen, the view vector towards the eye, texture coordinates 0-4 */
    static const float xy[6][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, -1}, {1, 1}, {-1, 1}};
    float *v = pvk_guest_ptr(ctx, VB, 6 * DEPTH * 80);
    for (unsigned i = 0; i < 6 * DEPTH; i++) {
        float x = xy[i % 6][0], y = xy[i % 6][1], a = 0.4f * x, b = 0.3f * y;
        float q[4] = {b, -a, 0, 1}, l = sqrtf(1 + a * a + b * b);
        float vert[20] = {x, y, -0.2f - 0.6f * (x + 1) / 2, 1, 0.8f, 0.6f, 0.4f, 1, q[0] / l, q[1] / l, 0, q[3] / l,
                          -x, -y, 3.0f, 0, 2 * (x + 1), 2 * (y + 1), 0, 0};
        memcpy(v + 20 * i, vert, sizeof vert);
    }
    pvk_guest_written(ctx, VB, 6 * DEPTH * 80);
}

enum { FOG = 1, LIGHT = 2, PROCTEX = 4, TEX = 8, TEX_MIP = 16, PT_MIP = 32 };

#define TEX_RGBA 0x18400000u /* 256x256 RGBA8 */
#define TEX_ETC 0x18500000u  /* 256x256 ETC1, 6 levels (to 8x8) */

/* Random texels for the texture cases (decoded once, then found in the cache). */
static void textures(pvk_context *ctx)
{
    uint32_t seed = 2024;
    uint32_t rgba = 256 * 256 * 4, etc = 0;
    for (unsigned l = 0; l < 6; l++)
        etc += (256u >> l) * (256u >> l) / 2;
    uint8_t *a = pvk_guest_ptr(ctx, TEX_RGBA, rgba), *b = pvk_guest_ptr(ctx, TEX_ETC, etc);
    for (uint32_t i = 0; i < rgba; i++)
        a[i] = (uint8_t)((seed = seed * 1664525u + 1013904223u) >> 24);
    for (uint32_t i = 0; i < etc; i++)
        b[i] = (uint8_t)((seed = seed * 1664525u + 1013904223u) >> 24);
    pvk_guest_written(ctx, TEX_RGBA, rgba);
    pvk_guest_written(ctx, TEX_ETC, etc);
}

static void configure(pvk_context *ctx, unsigned what)
{
    /* TEV: stage 0 vertex colour (plain) or fragment primary + secondary; stage 1 modulates by texture 3 */
    bench_reg(ctx, PVK_GPUREG_TEXENV0_SOURCE, what & LIGHT ? 0x00210021 : 0);
    bench_reg(ctx, PVK_GPUREG_TEXENV0_COMBINER, what & LIGHT ? 2 : 0);
    bench_reg(ctx, PVK_GPUREG_TEXENV1_SOURCE, what & PROCTEX ? 0x006F006F : 0x000F000F);
    bench_reg(ctx, PVK_GPUREG_TEXENV1_COMBINER, what & PROCTEX ? 0x00010001 : 0);
    for (uint32_t id = PVK_GPUREG_TEXENV2_SOURCE; id <= PVK_GPUREG_TEXENV3_SOURCE; id += 8)
        bench_reg(ctx, id, 0x000F000F);
    bench_reg(ctx, PVK_GPUREG_TEXENV4_SOURCE, 0x000F000F);
    bench_reg(ctx, PVK_GPUREG_TEXENV5_SOURCE, 0x000F000F);
    bench_reg(ctx, PVK_GPUREG_TEXENV_UPDATE_BUFFER, what & FOG ? 5 : 0);
    bench_reg(ctx, PVK_GPUREG_FOG_COLOR, 0x00806040);
    bench_reg(ctx, PVK_GPUREG_LIGHTING_ENABLE0, what & LIGHT ? 1 : 0);
    bench_reg(ctx, PVK_GPUREG_LIGHTING_ENABLE1, what & LIGHT ? 0 : 1);
    bench_reg(ctx, PVK_GPUREG_LIGHTING_NUM_LIGHTS, 7);
    bench_reg(ctx, PVK_GPUREG_LIGHTING_LIGHT_PERMUTATION, 0x76543210);
    bench_reg(ctx, PVK_GPUREG_LIGHTING_CONFIG0, 0x80000400u | 8u << 4 | 3u << 2); /* all LUTs, Fresnel to both alphas */
    bench_reg(ctx, PVK_GPUREG_LIGHTING_CONFIG1, 0x000400FFu);                     /* every LUT, spot, attenuation on */
    bench_reg(ctx, PVK_GPUREG_LIGHTING_LUTINPUT_ABS, 0);
    bench_reg(ctx, PVK_GPUREG_LIGHTING_LUTINPUT_SELECT, 0x05432100);
    bench_reg(ctx, PVK_GPUREG_LIGHTING_LUTINPUT_SCALE, 0);
    bench_reg(ctx, PVK_GPUREG_LIGHTING_AMBIENT, 0x01004010);
    for (unsigned id = 0; id < 8; id++) {
        uint32_t b = 0x140 + 0x10 * id;
        bench_reg(ctx, b + 0, 0x0C030080u);
        bench_reg(ctx, b + 1, 0x04020100u);
        bench_reg(ctx, b + 2, 0x08020080u);
        bench_reg(ctx, b + 3, 0x01004010u);
        bench_reg(ctx, b + 4, 0x3C00BC00u + id);  /* (-1, 1) */
        bench_reg(ctx, b + 5, 0x3C00u);           /* z 1 */
        bench_reg(ctx, b + 6, 0x06000600u);
        bench_reg(ctx, b + 7, 0x1A00u);
        bench_reg(ctx, b + 9, 0xC);               /* positional, both geometric factors */
        bench_reg(ctx, b + 10, 0);
        bench_reg(ctx, b + 11, 0x3D000u);
    }
    bench_reg(ctx, PVK_GPUREG_TEXENV2_COMBINER, what & (TEX | TEX_MIP) ? 0x00010001 : 0);
    bench_reg(ctx, PVK_GPUREG_TEXUNIT_CONFIG,
              (what & PROCTEX ? 1u << 10 : 0) | (what & (TEX | TEX_MIP) ? 1u : 0) | 1u << 12);
    if (what & (TEX | TEX_MIP)) {
        /* stage 2 modulates by texture 0: RGBA8 bilinear, or ETC1 with mips, trilinear; repeat */
        unsigned mip = what & TEX_MIP;
        bench_reg(ctx, PVK_GPUREG_TEXENV2_SOURCE, 0x003F003F);
        bench_reg(ctx, PVK_GPUREG_TEXUNIT0_DIM, 256u | 256u << 16);
        bench_reg(ctx, PVK_GPUREG_TEXUNIT0_PARAM, 1u << 1 | 1u << 2 | 2u << 8 | 2u << 12 | (mip ? 2u << 4 | 1u << 24 : 0));
        bench_reg(ctx, PVK_GPUREG_TEXUNIT0_LOD, mip ? 5u << 16 : 0);
        bench_reg(ctx, PVK_GPUREG_TEXUNIT0_ADDR1, (mip ? TEX_ETC : TEX_RGBA) >> 3);
        bench_reg(ctx, PVK_GPUREG_TEXUNIT0_TYPE, mip ? 12 : 0);
    }
    /* PT_MIP: linear, mipmap linear, LOD bias 1.0 (0x3C00: low byte in PROCTEX0, high in PROCTEX4) */
    bench_reg(ctx, PVK_GPUREG_TEXUNIT3_PROCTEX0, 3 | 3 << 3 | 6 << 6 | 8 << 10 | 1u << 14 | 1u << 15);
    bench_reg(ctx, PVK_GPUREG_TEXUNIT3_PROCTEX1, 0x38000400u);
    bench_reg(ctx, PVK_GPUREG_TEXUNIT3_PROCTEX2, 0x34000400u);
    bench_reg(ctx, PVK_GPUREG_TEXUNIT3_PROCTEX3, 0x40004000u);
    bench_reg(ctx, PVK_GPUREG_TEXUNIT3_PROCTEX4, (what & PT_MIP ? 5u | 0x3Cu << 19 : 1u) | 0x60u << 3 | 255u << 11);
    bench_reg(ctx, PVK_GPUREG_TEXUNIT3_PROCTEX5, 0xE0C08000u);
}

/* Seconds for `draws` draws of DEPTH full-screen quads, until the GPU is idle. */
static double timed(pvk_context *ctx, unsigned draws)
{
    double t0 = bench_now();
    for (unsigned i = 0; i < draws; i++)
        bench_reg(ctx, PVK_GPUREG_DRAWARRAYS, 1);
    pvk_wait_idle(ctx);
    return bench_now() - t0;
}

/* Mpixels/s: the number of draws doubles until a run takes 0.25 s (at most
 * MAX_DRAWS), then the best of 3 runs of that many. */
static double fill_rate(pvk_context *ctx, unsigned what, unsigned *draws_out)
{
    configure(ctx, what);
    timed(ctx, 1); /* warm: surface, pipeline, LUT upload */
    unsigned draws = 1;
    while (draws < MAX_DRAWS && timed(ctx, draws) < 0.25)
        draws *= 2;
    double best = 0;
    for (int rep = 0; rep < 3; rep++) {
        double rate = (double)draws * DEPTH * W * H / timed(ctx, draws) / 1e6;
        best = rate > best ? rate : best;
    }
    *draws_out = draws;
    return best;
}

/* Arguments: case names (BENCH names without "fragment_") to run only those. */
static bool wanted(int argc, char **argv, const char *name)
{
    if (argc < 2)
        return true;
    for (int a = 1; a < argc; a++)
        if (!strcmp(argv[a], name + strlen("fragment_")))
            return true;
    return false;
}

int main(int argc, char **argv)
{
    pvk_context *ctx = bench_context("fragment", 0);
    setup(ctx);
    bench_frag_luts(ctx);
    textures(ctx);
    static const struct { const char *name, *label; unsigned what; } cases[] = {
        {"fragment_plain_tev", "plain TEV (vertex colour)", 0},
        {"fragment_fog", "fog", FOG},
        {"fragment_lighting8", "8 lights, every LUT", LIGHT},
        {"fragment_proctex", "procedural texture (noise, linear)", PROCTEX},
        {"fragment_proctex_mip", "procedural texture (mipmap linear)", PROCTEX | PT_MIP},
        {"fragment_heaviest", "8 lights + fog + proctex (mipmap linear)", FOG | LIGHT | PROCTEX | PT_MIP},
        {"fragment_texture", "texture 0: RGBA8 256x256, bilinear", TEX},
        {"fragment_texture_mip", "texture 0: ETC1 256x256 mips, trilinear", TEX_MIP},
    };
    enum { N = sizeof cases / sizeof cases[0] };
    double rate[N], urate[N];
    unsigned draws[N], udraws[N];
    bool run[N];
    for (int i = 0; i < N; i++)
        run[i] = i == 0 || wanted(argc, argv, cases[i].name); /* the plain quad is every case's baseline */
    for (int i = 0; i < N; i++)
        if (run[i])
            rate[i] = fill_rate(ctx, cases[i].what, &draws[i]);
    pvk_context_destroy(ctx);
    /* the same cases on the ubershader (PVK_DEBUG=ubershader, read at context creation) */
    setenv("PVK_DEBUG", "ubershader", 1);
    ctx = bench_context("fragment", 0);
    setup(ctx);
    bench_frag_luts(ctx);
    textures(ctx);
    for (int i = 0; i < N; i++)
        if (run[i] && wanted(argc, argv, cases[i].name))
            urate[i] = fill_rate(ctx, cases[i].what, &udraws[i]);
        else
            urate[i] = 0, udraws[i] = 0;
    unsetenv("PVK_DEBUG");
    pvk_context_destroy(ctx);
    printf("fragment: draws of %u full-screen quads, %ux%u RGBA8, no depth test\n", DEPTH, W, H);
    printf("%-40s %8s %12s %10s %16s %12s\n", "case", "draws", "Mpixels/s", "vs plain", "ubershader Mpx/s",
           "vs own");
    for (int i = 0; i < N; i++)
        if (run[i])
            printf("%-40s %8u %12.2f %10.3f %16.2f %12.3f\n", cases[i].label, draws[i], rate[i], rate[i] / rate[0],
               urate[i], urate[i] / rate[i]);
    for (int i = 0; i < N; i++)
        if (run[i])
            printf("BENCH name=%s value=%.2f unit=Mpixels/s baseline=plain_tev_quad ratio=%.3f\n", cases[i].name, rate[i],
               rate[i] / rate[0]);
    for (int i = 0; i < N; i++)
        if (urate[i] > 0)
            printf("BENCH name=%s_uber value=%.2f unit=Mpixels/s baseline=own_shader ratio=%.3f\n", cases[i].name,
               urate[i], urate[i] / rate[i]);
    return 0;
}
