/* Frame-time stutter of a game-shaped workload with an empty shader cache
 * (issue 24 item 5).  120 frames, each one command list in guest memory as
 * citro3d builds it: the render target bound (C3D_FrameDrawOn), attribute
 * and buffer setup, then 300 draws (C3D_DrawArrays of a 4x4-cell quad, 96
 * vertices, its model-view-projection uploaded before each draw as
 * C3D_UpdateUniforms does), each state change writing what citro3d writes
 * for it (shaderProgramUse when the vertex program changes, the effect
 * block, TEV stages 0-1, fog and buffer mode, the light environment, the
 * procedural texture), and C3D_FrameEnd's FRAMEBUFFER_FLUSH + INVALIDATE +
 * EARLYDEPTH_CLEAR + FINALIZE.  Around the list, as citro3d's queue runs
 * them: a memory fill of colour and depth before, a display transfer to the
 * LCD framebuffer after, then VBlank.
 *
 * States: 40 "world" states (4 vertex programs) are drawn by every frame;
 * at frames 30 and 90 a burst brings 60 new fragment states (TEV combiners,
 * fragment lighting, fog, procedural texture, alpha test, combiner buffer)
 * and 10 new vertex programs, which stay in use until the next burst
 * replaces them (frames 30-119 draw 100 states, 3 draws each).  The world
 * states are first drawn by an untimed loading frame before frame 0 (its
 * time is printed), so the bursts are the only new states of the 120.
 *
 * A frame's time is from the fill to the GPU being idle after VBlank
 * (pvk_wait_idle): the frame's compiles and its GPU work (on lavapipe much
 * of a new state's cost is spent there, while the queue runs its first
 * draw), nothing of the next frame's.  Building the list (the guest's work) is not
 * timed.  The process's CPU time per frame (lavapipe's threads included) is
 * printed beside the wall time: it moves less when the machine is shared.
 *
 * Each configuration runs three times on its own fresh cache directories
 * (PVK_CACHE_DIR for picavk's SPIR-V and pipeline cache, and
 * MESA_SHADER_CACHE_DIR for the driver's: lavapipe keeps the machine code of
 * its shaders on disk too; both read at context creation, removed at the
 * end): cold (the directories empty), warm (a second context, the
 * directories as the first left them) and spv (a third, picavk's directory
 * filled, the driver's empty again: the driver's own compiles).  The warm
 * run is the baseline: its median is a frame without compiles, its worst ÷
 * median what the disk caches leave.  Two configurations: no compile
 * threads, and the default (pvk_config.compile_threads = 0).
 *
 * `--frames` prints every frame (wall and CPU time, pipelines created, draws
 * drawn another way, waits, submissions): where the worst frames fall.  `--only threads0` or
 * `--only default` runs one configuration.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_draw.h"

#define FRAMES 120u
#define DRAWS 300u
#define WORLD 40u          /* states every frame draws */
#define SCENE 60u          /* new fragment states a burst brings */
#define WORLD_PROGRAMS 4u
#define SCENE_PROGRAMS 10u /* new vertex programs a burst brings */
#define BURSTS 2u
static const uint32_t burst_at[BURSTS] = {30, 90};

#define FW 240u /* the top screen's buffers: 240 pixels a row, 400 rows */
#define FH 400u
#define COLOR 0x18000000u
#define DEPTH 0x18100000u
#define LCD 0x18200000u
#define VB 0x20100000u
#define LIST 0x20200000u
#define LIST_MAX (2u << 20)
#define GRID 4u /* a draw: GRID x GRID cells, two triangles each */
#define VERTS (GRID * GRID * 6)
#define STRIDE 80u /* position, colour, normal quaternion, view vector, texture coordinate 0: float4 each */
#define COLS 15u   /* draws on a 15 x 20 grid over the screen, overlapping */
#define ROWS 20u

/* ---- states ---- */

/* What a state sets beyond the world defaults (citro3d calls in brackets). */
typedef struct material {
    uint32_t program;       /* vertex program */
    uint32_t tev[2][5];     /* stages 0-1: source, operand, combiner, colour, scale (C3D_TexEnv*) */
    uint32_t update_buffer; /* TEXENV_UPDATE_BUFFER: fog mode 5, buffer inputs (C3D_FogGasMode, C3D_TexEnvBufUpdate) */
    uint32_t alpha_test;    /* FRAGOP_ALPHA_TEST (C3D_AlphaTest) */
    uint32_t lights;        /* 0: no light environment (C3D_LightEnvBind(NULL)) */
    uint32_t light_config0, light_config1;
    uint32_t proctex0;      /* TEXUNIT3_PROCTEX0, 0: no procedural texture (C3D_ProcTexBind) */
} material;

/* The combiner functions stage 0 takes turns with: all read two or three sources. */
static const uint8_t tev_ops[8] = {1 /* modulate */, 2 /* add */, 3 /* add signed */, 4 /* lerp */,
                                   5 /* subtract */, 8 /* multiply-add */, 9 /* add-multiply */, 6 /* dot3 rgb */};

/* Fog, alpha test, light environment (1-4), procedural texture (1-3), combiner buffer. */
typedef struct extra {
    uint8_t fog, alpha, light, proctex, buffer;
} extra;
static const extra extras[20] = {
    {0, 0, 0, 0, 0}, {1, 0, 0, 0, 0}, {0, 1, 0, 0, 0}, {0, 0, 1, 0, 0}, {1, 0, 1, 0, 0},
    {0, 0, 2, 0, 0}, {0, 0, 3, 0, 0}, {0, 0, 4, 0, 0}, {0, 0, 0, 1, 0}, {0, 0, 0, 2, 0},
    {0, 0, 0, 3, 0}, {1, 0, 0, 1, 0}, {0, 0, 1, 2, 0}, {1, 1, 0, 0, 0}, {0, 1, 2, 0, 0},
    {0, 1, 0, 2, 0}, {1, 0, 3, 0, 0}, {0, 0, 0, 0, 1}, {0, 0, 4, 1, 0}, {1, 1, 0, 3, 1},
};

/* State `id` (0-39 world, 40-99 the first burst, 100-159 the second): the
 * combiner function from id / 20, the rest from id % 20, so every id is a
 * different fragment shader and every burst has all kinds. */
static void material_of(uint32_t id, material *m)
{
    memset(m, 0, sizeof *m);
    const extra *e = &extras[id % 20];
    uint32_t op = tev_ops[id / 20 % 8];
    m->program = id < WORLD ? id % WORLD_PROGRAMS
                            : WORLD_PROGRAMS + (id - WORLD) / SCENE * SCENE_PROGRAMS + (id - WORLD) % SCENE_PROGRAMS;
    /* stage 0: (fragment primary colour when lit, else the vertex colour) op (texture 3 with the
     * procedural texture, else the constant), the vertex colour third; alpha: vertex x constant */
    uint32_t a = e->light ? 1 : 0, b = e->proctex ? 6 : 14;
    m->tev[0][0] = a | b << 4 | 0u << 8 | (0u | 14u << 4) << 16;
    m->tev[0][1] = 0;
    m->tev[0][2] = op | 1u << 16;
    m->tev[0][3] = 0xFF000000u | (0x80u + id % 64) << 16 | (0xC0u - id % 64) << 8 | 0x90u;
    m->tev[0][4] = 0;
    /* stage 1: add the specular (fragment secondary) when lit, the buffer when asked, else
     * modulate by the constant; alpha passes */
    uint32_t s1 = e->light ? 2 : e->buffer ? 13 : 14;
    m->tev[1][0] = 15u | s1 << 4 | 15u << 16;
    m->tev[1][1] = 0;
    m->tev[1][2] = (e->light || e->buffer ? 2u : 1u) | 0u << 16;
    m->tev[1][3] = 0xFFE0E0E0u;
    m->tev[1][4] = 0;
    m->update_buffer = (e->fog ? 5u : 0u) | (e->buffer ? 0x1100u : 0u);
    m->alpha_test = e->alpha ? 1u | 6u << 4 | 0x20u << 8 : 0; /* greater than 0x20 */
    /* LIGHTING_CONFIG1: a set bit disables (shadow 0-7, spot 8-15, LUTs D0 16 D1 17 FR 19 RB-RR
     * 20-22, distance attenuation 24-31) */
    static const struct { uint32_t lights, config0, config1; } env[5] = {
        {0, 0, 0},
        {1, 0x80000400u | 0u << 4, 0xFF7EFFFFu},           /* one light, D0 */
        {2, 0x80000400u | 2u << 4, 0xFF7CFFFFu},           /* two lights, D0 and D1 */
        {1, 0x80000400u | 0u << 4, 0xFE7EFEFFu},           /* one spot light with distance attenuation */
        {3, 0x80000400u | 3u << 4 | 1u << 2, 0xFF74FFFFu}, /* three lights, D0, D1 and Fresnel to alpha */
    };
    m->lights = env[e->light].lights;
    m->light_config0 = env[e->light].config0;
    m->light_config1 = env[e->light].config1;
    /* PROCTEX0: U/V clamp, RGB and alpha functions, separate alpha (14), noise (15) */
    static const uint32_t pt[4] = {0, 3 | 3 << 3 | 2 << 6 | 2 << 10, 3 | 3 << 3 | 6 << 6 | 8 << 10 | 1 << 14 | 1 << 15,
                                   1 | 1 << 3 | 9 << 6 | 4 << 10};
    m->proctex0 = pt[e->proctex];
}

/* Vertex program k: DP4 o0.xyzw = c0-c3 . v0 (the model-view-projection), MUL o1 = c[4 + k] * v1
 * (a tint of its own), MOV o2-o4 = v2-v4 (normal quaternion, view, texture coordinate 0), END.
 * Operand descriptor 0 writes xyzw, 1-4 one component each; swizzles identity. */
#define VP_WORDS 9u
static void program_of(uint32_t k, uint32_t code[VP_WORDS], uint32_t desc[5])
{
    for (uint32_t r = 0; r < 4; r++)
        code[r] = 0x02u << 26 | 0u << 21 | (0x20u + r) << 12 | 0u << 7 | (1 + r);
    code[4] = 0x08u << 26 | 1u << 21 | (0x20u + 4 + k) << 12 | 1u << 7;
    for (uint32_t o = 2; o < 5; o++)
        code[3 + o] = 0x13u << 26 | o << 21 | o << 12;
    code[8] = 0x22u << 26;
    for (uint32_t d = 0; d < 5; d++)
        desc[d] = (d ? 8u >> (d - 1) : 0xFu) | 0x1Bu << 5 | 0x1Bu << 14 | 0x1Bu << 23;
}

/* ---- the command list of a frame ---- */

static void f32_words(uint32_t out[4], float x, float y, float z, float w)
{
    const float v[4] = {w, z, y, x}; /* FLOATUNIFORM_DATA in f32 mode: w, z, y, x */
    memcpy(out, v, sizeof v);
}

/* shaderProgramUse of program k: geometry stage off, code and operand
 * descriptors, entry point, output map, its constant c[4 + k]. */
static void bind_program(bench_list *l, uint32_t k)
{
    uint32_t code[VP_WORDS], desc[5], p[8];
    program_of(k, code, desc);
    bench_list_wm(l, PVK_GPUREG_GEOSTAGE_CONFIG, 0x3, 0);
    bench_list_wm(l, PVK_GPUREG_GEOSTAGE_CONFIG2, 0x3, 0);
    bench_list_wm(l, PVK_GPUREG_VSH_COM_MODE, 0x1, 0);
    bench_list_w(l, PVK_GPUREG_VSH_CODETRANSFER_CONFIG, 0);
    bench_list_put(l, PVK_GPUREG_VSH_CODETRANSFER_DATA, 0xF, 0, VP_WORDS, code);
    bench_list_w(l, PVK_GPUREG_VSH_CODETRANSFER_END, 1);
    bench_list_w(l, PVK_GPUREG_VSH_OPDESCS_CONFIG, 0);
    bench_list_put(l, PVK_GPUREG_VSH_OPDESCS_DATA, 0xF, 0, 5, desc);
    bench_list_w(l, PVK_GPUREG_VSH_ENTRYPOINT, 0x7FFF0000u);
    bench_list_w(l, PVK_GPUREG_VSH_OUTMAP_MASK, 0x1F);
    bench_list_w(l, PVK_GPUREG_VSH_OUTMAP_TOTAL1, 4);
    bench_list_w(l, PVK_GPUREG_VSH_OUTMAP_TOTAL2, 4);
    /* GPU_SetShaderOutmap: position, colour, quaternion, view, texture coordinate 0 */
    static const uint32_t outmap[8] = {5,          0x03020100, 0x0B0A0908, 0x07060504,
                                       0x1F141312, 0x1F1F0D0C, 0x1F1F1F1F, 0x1F1F1F1F};
    bench_list_wm(l, PVK_GPUREG_PRIMITIVE_CONFIG, 0x1, 4);
    bench_list_seq(l, PVK_GPUREG_SH_OUTMAP_TOTAL, 8, outmap);
    bench_list_w(l, PVK_GPUREG_SH_OUTATTR_MODE, 1);
    bench_list_w(l, PVK_GPUREG_SH_OUTATTR_CLOCK, 0x01000103);
    bench_list_wm(l, PVK_GPUREG_GEOSTAGE_CONFIG, 0xA, 0);
    bench_list_w(l, PVK_GPUREG_GSH_MISC0, 0);
    bench_list_w(l, PVK_GPUREG_GSH_MISC1, 0);
    bench_list_w(l, PVK_GPUREG_GSH_INPUTBUFFER_CONFIG, 0xA0000000u);
    bench_list_w(l, PVK_GPUREG_VSH_BOOLUNIFORM, 0x7FFF0000u);
    memset(p, 0, sizeof p);
    bench_list_seq(l, PVK_GPUREG_VSH_INTUNIFORM_I0, 4, p);
    bench_list_w(l, PVK_GPUREG_VSH_FLOATUNIFORM_CONFIG, 0x80000000u | (4 + k));
    f32_words(p, 1.0f - 0.02f * (float)(k % 8), 0.9f + 0.01f * (float)(k % 10), 0.8f + 0.015f * (float)(k % 12), 1.0f);
    bench_list_put(l, PVK_GPUREG_VSH_FLOATUNIFORM_DATA, 0xF, 0, 4, p);
}

/* The state changes of `m` (everything the state touches, as citro3d's
 * dirty flags write it when the material changes). */
static void bind_material(bench_list *l, const material *m)
{
    /* C3Di_EffectBind: depth map, culling, alpha/stencil/depth tests, blending */
    uint32_t effect[2] = {bench_f24(-1.0f), 0};
    uint32_t tests[4] = {m->alpha_test, 0, 0, 1u | 4u << 4 | 0xFu << 8 | 1u << 12}; /* depth less, writes on */
    bench_list_w(l, PVK_GPUREG_DEPTHMAP_ENABLE, 1);
    bench_list_w(l, PVK_GPUREG_FACECULLING_CONFIG, 0);
    bench_list_seq(l, PVK_GPUREG_DEPTHMAP_SCALE, 2, effect);
    bench_list_seq(l, PVK_GPUREG_FRAGOP_ALPHA_TEST, 4, tests);
    bench_list_w(l, PVK_GPUREG_BLEND_COLOR, 0);
    bench_list_w(l, PVK_GPUREG_BLEND_FUNC, 0x76760000u);
    bench_list_wm(l, PVK_GPUREG_COLOR_OPERATION, 0x2, 0x00000100u);
    /* C3Di_TexEnvBind of stages 0 and 1 */
    bench_list_seq(l, PVK_GPUREG_TEXENV0_SOURCE, 5, m->tev[0]);
    bench_list_seq(l, PVK_GPUREG_TEXENV1_SOURCE, 5, m->tev[1]);
    bench_list_wm(l, PVK_GPUREG_TEXENV_UPDATE_BUFFER, 0x7, m->update_buffer);
    /* the light environment */
    bench_list_w(l, PVK_GPUREG_LIGHTING_ENABLE0, m->lights ? 1 : 0);
    bench_list_w(l, PVK_GPUREG_LIGHTING_ENABLE1, m->lights ? 0 : 1);
    if (m->lights) {
        uint32_t conf[2] = {m->light_config0, m->light_config1};
        bench_list_w(l, PVK_GPUREG_LIGHTING_NUM_LIGHTS, m->lights - 1);
        bench_list_seq(l, PVK_GPUREG_LIGHTING_CONFIG0, 2, conf);
    }
    /* texture units: the procedural texture (unit 3) or none */
    bench_list_wm(l, PVK_GPUREG_TEXUNIT_CONFIG, 0xB, 0x00001000u | (m->proctex0 ? 1u << 10 : 0));
    if (m->proctex0)
        bench_list_w(l, PVK_GPUREG_TEXUNIT3_PROCTEX0, m->proctex0);
}

/* The states frame `f` draws (-1: the loading frame), sorted by vertex
 * program as a game sorts its draws; returns how many. */
static uint32_t frame_states(int f, uint32_t *ids)
{
    uint32_t scene = 0, n = 0;
    for (uint32_t b = 0; b < BURSTS; b++)
        if (f >= (int)burst_at[b])
            scene = b + 1;
    for (uint32_t id = 0; id < WORLD; id++)
        ids[n++] = id;
    for (uint32_t j = 0; scene && j < SCENE; j++)
        ids[n++] = WORLD + (scene - 1) * SCENE + j;
    material ma, mb;
    for (uint32_t i = 1; i < n; i++) /* insertion sort by program, then id */
        for (uint32_t j = i; j > 0; j--) {
            material_of(ids[j - 1], &ma);
            material_of(ids[j], &mb);
            if (ma.program < mb.program || (ma.program == mb.program && ids[j - 1] < ids[j]))
                break;
            uint32_t t = ids[j];
            ids[j] = ids[j - 1];
            ids[j - 1] = t;
        }
    return n;
}

static void build_frame(bench_list *l, int f)
{
    uint32_t p[8];
    l->n = 0;
    /* C3Di_FrameBufBind: RGBA8 colour, D24S8 depth, 240 x 400 */
    bench_list_w(l, PVK_GPUREG_FRAMEBUFFER_INVALIDATE, 1);
    p[0] = DEPTH >> 3, p[1] = COLOR >> 3, p[2] = 0x01000000u | (FH - 1) << 12 | FW;
    bench_list_seq(l, PVK_GPUREG_DEPTHBUFFER_LOC, 3, p);
    bench_list_w(l, PVK_GPUREG_RENDERBUF_DIM, p[2]);
    bench_list_w(l, PVK_GPUREG_DEPTHBUFFER_FORMAT, 3);
    bench_list_w(l, PVK_GPUREG_COLORBUFFER_FORMAT, 2);
    bench_list_w(l, PVK_GPUREG_FRAMEBUFFER_BLOCK32, 0);
    p[0] = p[1] = 0xF, p[2] = p[3] = 3;
    bench_list_seq(l, PVK_GPUREG_COLORBUFFER_READ, 4, p);
    /* C3D_SetViewport, no scissor */
    bench_list_w(l, PVK_GPUREG_VIEWPORT_WIDTH, bench_f24(FW / 2.0f));
    bench_list_w(l, PVK_GPUREG_VIEWPORT_HEIGHT, bench_f24(FH / 2.0f));
    bench_list_w(l, PVK_GPUREG_VIEWPORT_XY, 0);
    bench_list_w(l, PVK_GPUREG_SCISSORTEST_MODE, 0);
    bench_list_w(l, PVK_GPUREG_COLOR_OPERATION, 0x00E40100u);
    /* C3Di_AttrInfoBind / C3Di_BufInfoBind: five float4 attributes from one buffer */
    p[0] = 0xFFFFF, p[1] = 4u << 28;
    bench_list_seq(l, PVK_GPUREG_ATTRIBBUFFERS_FORMAT_LOW, 2, p);
    bench_list_wm(l, PVK_GPUREG_VSH_INPUTBUFFER_CONFIG, 0xB, 0xA0000000u | 4);
    bench_list_w(l, PVK_GPUREG_VSH_NUM_ATTR, 4);
    p[0] = 0x43210, p[1] = 0;
    bench_list_seq(l, PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_LOW, 2, p);
    bench_list_w(l, PVK_GPUREG_ATTRIBBUFFERS_LOC, VB >> 3);
    p[0] = 0, p[1] = 0x43210, p[2] = STRIDE << 16 | 5u << 28;
    bench_list_seq(l, PVK_GPUREG_ATTRIBBUFFER0_OFFSET, 3, p);
    /* TexEnv_Init of stages 2-5 (previous, replace), the buffer and fog colours */
    static const uint32_t pass[5] = {0x000F000F, 0, 0, 0xFFFFFFFFu, 0};
    bench_list_seq(l, PVK_GPUREG_TEXENV2_SOURCE, 5, pass);
    bench_list_seq(l, PVK_GPUREG_TEXENV3_SOURCE, 5, pass);
    bench_list_seq(l, PVK_GPUREG_TEXENV4_SOURCE, 5, pass);
    bench_list_seq(l, PVK_GPUREG_TEXENV5_SOURCE, 5, pass);
    bench_list_w(l, PVK_GPUREG_TEXENV_BUFFER_COLOR, 0xFF406080u);
    bench_list_w(l, PVK_GPUREG_FOG_COLOR, 0x00806040);

    uint32_t ids[WORLD + SCENE];
    uint32_t n = frame_states(f, ids), bound = UINT32_MAX, program = UINT32_MAX;
    float wobble = 0.004f * (float)((f + 16) % 16) - 0.03f; /* the scene moves a little each frame */
    for (uint32_t d = 0; d < DRAWS; d++) {
        uint32_t id = ids[d * n / DRAWS];
        if (id != bound) {
            material m;
            material_of(id, &m);
            if (m.program != program)
                bind_program(l, program = m.program);
            bind_material(l, &m);
            bound = id;
        }
        /* C3D_UpdateUniforms: this draw's model-view-projection, c0-c3 */
        float sx = 2.6f / COLS, sy = 2.6f / ROWS; /* 1.3 cells: neighbours overlap */
        float tx = -1.0f + 2.0f * (float)(d % COLS) / COLS + wobble, ty = -1.0f + 2.0f * (float)(d / COLS) / ROWS;
        float tz = -(float)(d * 37 % 97 + 1) / 100.0f;
        uint32_t mvp[16];
        f32_words(mvp, sx, 0, 0, tx);
        f32_words(mvp + 4, 0, sy, 0, ty);
        f32_words(mvp + 8, 0, 0, 1, tz);
        f32_words(mvp + 12, 0, 0, 0, 1);
        bench_list_w(l, PVK_GPUREG_VSH_FLOATUNIFORM_CONFIG, 0x80000000u);
        bench_list_put(l, PVK_GPUREG_VSH_FLOATUNIFORM_DATA, 0xF, 0, 16, mvp);
        bench_list_draw_arrays(l, 0, 0, VERTS);
    }
    bench_list_frame_end(l);
}

/* ---- a run ---- */

/* Lights, procedural-texture parameters, LUTs, the LCD and the quad: what
 * a game sets up once. */
static void setup(pvk_context *ctx)
{
    bench_lcd_top(ctx, LCD, FW);
    bench_frag_luts(ctx);
    bench_reg(ctx, PVK_GPUREG_LIGHTING_LIGHT_PERMUTATION, 0x76543210);
    bench_reg(ctx, PVK_GPUREG_LIGHTING_LUTINPUT_ABS, 0);
    bench_reg(ctx, PVK_GPUREG_LIGHTING_LUTINPUT_SELECT, 0x05432100);
    bench_reg(ctx, PVK_GPUREG_LIGHTING_LUTINPUT_SCALE, 0);
    bench_reg(ctx, PVK_GPUREG_LIGHTING_AMBIENT, 0x01004010);
    for (uint32_t id = 0; id < 3; id++) { /* LIGHTi registers from 0x140 */
        uint32_t b = 0x140 + 0x10 * id;
        bench_reg(ctx, b + 0, 0x0C030080u);          /* specular 0 */
        bench_reg(ctx, b + 1, 0x04020100u);          /* specular 1 */
        bench_reg(ctx, b + 2, 0x08020080u + id);     /* diffuse */
        bench_reg(ctx, b + 3, 0x01004010u);          /* ambient */
        bench_reg(ctx, b + 4, 0x3C00BC00u + 0x100 * id); /* position x, y (float16) */
        bench_reg(ctx, b + 5, 0x3C00u);              /* z */
        bench_reg(ctx, b + 6, 0x06000600u);          /* spot direction */
        bench_reg(ctx, b + 7, 0x1A00u);
        bench_reg(ctx, b + 9, 0);                    /* positional, no geometric factors */
        bench_reg(ctx, b + 10, 0);                   /* distance attenuation bias, scale */
        bench_reg(ctx, b + 11, 0x3D000u);
    }
    bench_reg(ctx, PVK_GPUREG_TEXUNIT3_PROCTEX1, 0x38000400u);
    bench_reg(ctx, PVK_GPUREG_TEXUNIT3_PROCTEX2, 0x34000400u);
    bench_reg(ctx, PVK_GPUREG_TEXUNIT3_PROCTEX3, 0x40004000u);
    bench_reg(ctx, PVK_GPUREG_TEXUNIT3_PROCTEX4, 1u | 0x60u << 3 | 255u << 11);
    bench_reg(ctx, PVK_GPUREG_TEXUNIT3_PROCTEX5, 0xE0C08000u);
    /* the quad: GRID x GRID cells over [0, 1]^2, normals tilted across it, the view towards the eye */
    float *v = pvk_guest_ptr(ctx, VB, VERTS * STRIDE);
    static const float corner[6][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 0}, {1, 1}, {0, 1}};
    for (uint32_t i = 0; i < VERTS; i++) {
        uint32_t cell = i / 6;
        float x = ((float)(cell % GRID) + corner[i % 6][0]) / GRID;
        float y = ((float)(cell / GRID) + corner[i % 6][1]) / GRID;
        float a = 0.4f * (2 * x - 1), b = 0.3f * (2 * y - 1), len = sqrtf(1 + a * a + b * b);
        float vert[20] = {x, y, 0, 1, 0.5f + 0.5f * x, 0.7f, 0.5f + 0.5f * y, 0.8f, b / len, -a / len, 0, 1 / len,
                          -x, -y, 3.0f, 0, 2 * x, 2 * y, 0, 0};
        memcpy(v + 20 * i, vert, sizeof vert);
    }
    pvk_guest_written(ctx, VB, VERTS * STRIDE);
}

/* Files under `path`, recursively; `remove`: rm -r of it as well (the
 * cache directories, also at exit after a failure). */
static uint32_t walk_tree(const char *path, int remove)
{
    DIR *d = opendir(path);
    struct dirent *e;
    uint32_t n = 0;
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char sub[1024];
        struct stat st;
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        if (lstat(sub, &st))
            continue;
        if (S_ISDIR(st.st_mode)) {
            n += walk_tree(sub, remove);
        } else {
            n++;
            if (remove)
                unlink(sub);
        }
    }
    if (d)
        closedir(d);
    if (remove)
        rmdir(path);
    return n;
}

/* What a frame did, from the counters before and after it. */
typedef struct frame_stat {
    double ms, cpu_ms; /* wall time; CPU time of the process (lavapipe's threads too) */
    double submit_ms;  /* wall time until pvk_vblank returned, before the wait for the GPU */
    uint64_t pipelines, compiles, disk_hits;
    uint64_t unspecialised; /* draws that went another way while their shaders were being built
                               (the CPU interpreter for the vertex program, the ubershader) */
    uint64_t waits;         /* draws that waited for a compile thread (pvk_stats.pipeline_waits) */
    uint64_t submissions;   /* queue submissions (at most one pipeline's first draw each) */
    uint64_t warm_ups;      /* a new vertex program's warm-up draws (pvk_stats.vs_warm_ups) */
} frame_stat;

typedef struct run_result {
    frame_stat load, frame[FRAMES];
    uint64_t hash[FRAMES];
    double median, worst, cpu_median, cpu_worst;
    uint32_t worst_frame;
    uint32_t driver_files; /* in the driver's cache directory after the run */
} run_result;

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One frame: the fill, the list, the transfer, VBlank, until the GPU is idle. */
static frame_stat play(pvk_context *ctx, bench_list *l, int f)
{
    frame_stat s = {0};
    build_frame(l, f);
    void *g = pvk_guest_ptr(ctx, LIST, l->n * 4);
    if (!g || l->n * 4 > LIST_MAX) {
        fprintf(stderr, "stutter bench: the list (%u words) does not fit\n", l->n);
        exit(1);
    }
    memcpy(g, l->w, l->n * 4);
    pvk_guest_written(ctx, LIST, l->n * 4);
    pvk_stats a, b;
    pvk_get_stats(ctx, &a);
    double t0 = bench_now(), c0 = cpu_now();
    bench_fill2(ctx, COLOR, FW * FH * 4, 0x202020FF, DEPTH, FW * FH * 4, 0x00FFFFFF);
    pvk_result r = pvk_command_list_run(ctx, LIST, l->n * 4);
    bench_display_transfer(ctx, COLOR, LCD, FW, FH);
    if (!r)
        r = pvk_vblank(ctx);
    s.submit_ms = (bench_now() - t0) * 1e3;
    if (!r)
        r = pvk_wait_idle(ctx);
    for (int tries = 0; r == PVK_ERROR_TIMEOUT && tries < 10; tries++)
        r = pvk_wait_idle(ctx); /* the work goes on: wait again */
    s.ms = (bench_now() - t0) * 1e3;
    s.cpu_ms = (cpu_now() - c0) * 1e3;
    if (r) {
        fprintf(stderr, "stutter bench: frame %d: %s\n", f, pvk_result_string(r));
        exit(1);
    }
    pvk_get_stats(ctx, &b);
    s.pipelines = b.pipelines_created - a.pipelines_created;
    s.compiles = b.shader_compiles - a.shader_compiles;
    s.disk_hits = b.shader_disk_hits - a.shader_disk_hits;
    s.unspecialised = b.cpu_vs_while_building - a.cpu_vs_while_building + b.ubershader_draws - a.ubershader_draws;
    s.waits = b.pipeline_waits - a.pipeline_waits;
    s.submissions = b.submissions - a.submissions;
    s.warm_ups = b.vs_warm_ups - a.vs_warm_ups;
    return s;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static const char *frames_label; /* --frames: each frame printed, after this label */

static void run(void (*fill)(pvk_config *), run_result *r, const char *mesa_dir)
{
    /* a burst frame's GPU work (lavapipe's queue running the first draws of 60 new pipelines)
     * takes seconds on a loaded machine, more than the default wait */
    pvk_config cfg = {.log_level = PVK_LOG_WARN, .wait_timeout_ms = 60000};
    fill(&cfg);
    pvk_context *ctx = NULL;
    pvk_result res = pvk_context_create(&cfg, &ctx);
    if (res) {
        fprintf(stderr, "stutter bench: no context: %s\n", pvk_result_string(res));
        exit(1);
    }
    setup(ctx);
    bench_list l = {0};
    r->load = play(ctx, &l, -1);
    for (uint32_t f = 0; f < FRAMES; f++) {
        r->frame[f] = play(ctx, &l, (int)f);
        if (pvk_frame_hash(ctx, &r->hash[f]))
            r->hash[f] = 0;
        const frame_stat *s = &r->frame[f];
        if (frames_label)
            printf("  frame %s %3u: %7.1f ms, CPU %7.1f ms, pipelines %llu, drawn another way %llu, waits %llu, "
                   "submissions %llu, warm-ups %llu\n",
                   frames_label, f, s->ms, s->cpu_ms, (unsigned long long)s->pipelines,
                   (unsigned long long)s->unspecialised, (unsigned long long)s->waits,
                   (unsigned long long)s->submissions, (unsigned long long)s->warm_ups);
    }
    free(l.w);
    pvk_stats st;
    pvk_get_stats(ctx, &st);
    /* the memory budget (pvk_config.memory_budget_mb) keeps this workload's pipelines: an
     * eviction here would build a state again */
    printf("  pipelines held at the end %llu (%llu MiB of the budget), evicted %llu\n",
           (unsigned long long)st.held_pipelines, (unsigned long long)(st.held_pipeline_bytes >> 20),
           (unsigned long long)st.pipeline_evictions);
    if (st.bad_input || st.unsupported || st.validation_errors)
        fprintf(stderr, "stutter bench: %llu bad inputs, %llu unsupported, %llu validation messages\n",
                (unsigned long long)st.bad_input, (unsigned long long)st.unsupported,
                (unsigned long long)st.validation_errors);
    pvk_context_destroy(ctx); /* saves the pipeline cache into the directory */
    r->driver_files = walk_tree(mesa_dir, 0);
    double ms[FRAMES];
    r->worst = 0;
    for (uint32_t f = 0; f < FRAMES; f++) {
        ms[f] = r->frame[f].ms;
        if (ms[f] > r->worst)
            r->worst = ms[f], r->worst_frame = f;
    }
    qsort(ms, FRAMES, sizeof *ms, cmp_double);
    r->median = (ms[FRAMES / 2 - 1] + ms[FRAMES / 2]) / 2;
    r->cpu_worst = 0;
    for (uint32_t f = 0; f < FRAMES; f++) {
        ms[f] = r->frame[f].cpu_ms;
        r->cpu_worst = ms[f] > r->cpu_worst ? ms[f] : r->cpu_worst;
    }
    qsort(ms, FRAMES, sizeof *ms, cmp_double);
    r->cpu_median = (ms[FRAMES / 2 - 1] + ms[FRAMES / 2]) / 2;
}

static char cache_root[512];

static void remove_cache_root(void)
{
    if (cache_root[0])
        walk_tree(cache_root, 1);
    cache_root[0] = 0;
}

/* ---- configurations ---- */

/* Shader compiles and pipelines on the drawing thread (the mode before
 * the compile threads). */
static void compile_on_draw(pvk_config *cfg)
{
    cfg->compile_threads = -1;
}

/* The default: compile threads build vertex programs and pipelines in the
 * background; draws take the ubershader and the interpreter's vertices
 * meanwhile. */
static void compile_default(pvk_config *cfg)
{
    cfg->compile_threads = 0;
}

typedef struct stutter_config {
    const char *name, *id;        /* as printed, and in the BENCH names */
    void (*fill)(pvk_config *);   /* NULL: not built yet */
    const char *missing;          /* what it waits for */
} stutter_config;

static const stutter_config configs[] = {
    {"compile_threads<0 (none)", "threads0", compile_on_draw, NULL},
    {"compile_threads=default", "default", compile_default, NULL},
};
enum { N_CONFIGS = sizeof configs / sizeof configs[0] };

static int is_burst(uint32_t f)
{
    for (uint32_t b = 0; b < BURSTS; b++)
        if (f == burst_at[b])
            return 1;
    return 0;
}

/* The runs of a configuration, in this order, on one set of directories. */
enum { COLD, WARM, SPV, CACHES };
static const char *const cache_name[CACHES] = {"cold", "warm", "spv"};

int main(int argc, char **argv)
{
    static run_result res[N_CONFIGS][CACHES];
    int same = 1, frames = 0;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--frames"))
            frames = 1;
        else if (!strcmp(argv[i], "--only") && i + 1 < argc &&
                 (!strcmp(argv[i + 1], "threads0") || !strcmp(argv[i + 1], "default")))
            only = argv[++i];
        else {
            fprintf(stderr, "usage: stutter [--frames] [--only threads0|default]\n"
                            "  --frames  print every frame's time, CPU time, pipelines, draws not specialised, waits and "
                            "submissions\n"
                            "  --only    run one configuration (the comparison needs both)\n");
            return 2;
        }
    }
    atexit(remove_cache_root);
    printf("stutter: %u frames x %u draws (%u vertices each) in one citro3d-shaped command list a frame, "
           "%ux%u RGBA8 + D24S8; %u world states (%u vertex programs) every frame; at frames %u and %u a burst of "
           "%u new fragment states and %u new vertex programs, in use from then on; a loading frame first (the "
           "world states); a frame = fill, list, display transfer, VBlank, GPU idle\n",
           FRAMES, DRAWS, VERTS, FW, FH, WORLD, WORLD_PROGRAMS, burst_at[0], burst_at[1], SCENE, SCENE_PROGRAMS);
    printf("caches: cold = picavk's (PVK_CACHE_DIR) and the driver's (MESA_SHADER_CACHE_DIR) fresh and empty; warm = "
           "both as the cold run left them; spv = picavk's filled, the driver's empty again (what the driver's own "
           "compiles cost)\n");
    for (int c = 0; c < N_CONFIGS; c++) {
        if (!configs[c].fill || (only && strcmp(only, configs[c].id)))
            continue;
        const char *tmp = getenv("TMPDIR");
        char pvk_dir[600], mesa_dir[600], mesa2_dir[600];
        snprintf(cache_root, sizeof cache_root, "%s/picavk-stutter-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(cache_root)) {
            perror("stutter bench: mkdtemp");
            return 1;
        }
        snprintf(pvk_dir, sizeof pvk_dir, "%s/picavk", cache_root);
        snprintf(mesa_dir, sizeof mesa_dir, "%s/mesa", cache_root);
        snprintf(mesa2_dir, sizeof mesa2_dir, "%s/mesa2", cache_root);
        if (mkdir(pvk_dir, 0700) || mkdir(mesa_dir, 0700) || mkdir(mesa2_dir, 0700)) {
            perror("stutter bench: mkdir");
            return 1;
        }
        setenv("PVK_CACHE_DIR", pvk_dir, 1);
        setenv("MESA_SHADER_CACHE_DIR", mesa_dir, 1);
        char label[CACHES][48];
        for (int k = 0; k < CACHES; k++)
            snprintf(label[k], sizeof label[k], "%s %s", configs[c].id, cache_name[k]);
        frames_label = frames ? label[COLD] : NULL;
        run(configs[c].fill, &res[c][COLD], mesa_dir);
        frames_label = frames ? label[WARM] : NULL;
        run(configs[c].fill, &res[c][WARM], mesa_dir);
        setenv("MESA_SHADER_CACHE_DIR", mesa2_dir, 1);
        frames_label = frames ? label[SPV] : NULL;
        run(configs[c].fill, &res[c][SPV], mesa2_dir);
        unsetenv("PVK_CACHE_DIR");
        unsetenv("MESA_SHADER_CACHE_DIR");
        remove_cache_root();
        for (int k = 1; k < CACHES; k++)
            for (uint32_t f = 0; f < FRAMES; f++)
                if (!res[c][COLD].hash[f] || res[c][COLD].hash[f] != res[c][k].hash[f])
                    same = 0;
    }

    printf("%-26s %5s %10s %10s %6s %13s %12s %18s\n", "configuration", "cache", "median ms", "worst ms", "frame",
           "worst/median", "loading ms", "CPU worst/median");
    for (int c = 0; c < N_CONFIGS; c++) {
        if (!configs[c].fill) {
            printf("%-26s not measured: not built yet (%s)\n", configs[c].name, configs[c].missing);
            continue;
        }
        if (only && strcmp(only, configs[c].id))
            continue;
        for (int k = 0; k < CACHES; k++) {
            const run_result *r = &res[c][k];
            printf("%-26s %5s %10.2f %10.2f %6u %13.2f %12.2f %18.2f\n", configs[c].name, cache_name[k], r->median,
                   r->worst, r->worst_frame, r->worst / r->median, r->load.ms, r->cpu_worst / r->cpu_median);
        }
    }
    for (int c = 0; c < N_CONFIGS; c++) {
        if (!configs[c].fill || (only && strcmp(only, configs[c].id)))
            continue;
        printf("%s, the frames with new states:\n", configs[c].name);
        printf("  %-5s %-8s %10s %16s %9s %10s %9s %10s %12s %6s\n", "cache", "frame", "wall ms", "until VBlank ms",
               "CPU ms", "pipelines", "compiles", "disk hits", "other way", "waits");
        for (int k = 0; k < CACHES; k++) {
            const run_result *r = &res[c][k];
            uint64_t other = 0;
            for (int f = -1; f < (int)FRAMES; f++) {
                const frame_stat *s = f < 0 ? &r->load : &r->frame[f];
                if (f >= 0 && !is_burst((uint32_t)f)) {
                    other += s->pipelines + s->compiles;
                    continue;
                }
                char name[16];
                snprintf(name, sizeof name, f < 0 ? "loading" : "%d", f);
                printf("  %-5s %-8s %10.1f %16.1f %9.1f %10llu %9llu %10llu %12llu %6llu\n", cache_name[k], name, s->ms,
                       s->submit_ms, s->cpu_ms, (unsigned long long)s->pipelines, (unsigned long long)s->compiles,
                       (unsigned long long)s->disk_hits, (unsigned long long)s->unspecialised,
                       (unsigned long long)s->waits);
            }
            printf("  %-5s %-8s pipelines created and shaders compiled in the other %u frames: %llu\n",
                   cache_name[k], "others", FRAMES - BURSTS, (unsigned long long)other);
        }
        for (int k = 0; k < CACHES; k++) {
            const run_result *r = &res[c][k];
            double extra = 0, cpu = 0;
            uint64_t pipes = 0;
            for (uint32_t b = 0; b < BURSTS; b++) {
                extra += r->frame[burst_at[b]].ms - r->median;
                cpu += r->frame[burst_at[b]].cpu_ms - r->cpu_median;
                pipes += r->frame[burst_at[b]].pipelines;
            }
            printf("  %s: a new state costs %.1f ms, %.1f ms of CPU (burst frames minus the median, per pipeline); "
                   "the driver's cache holds %u files after the run\n", cache_name[k], pipes ? extra / pipes : 0.0,
                   pipes ? cpu / pipes : 0.0, r->driver_files);
        }
        for (int k = 0; k < CACHES; k++) {
            /* from a burst frame to the first frame all of whose draws took their own shaders */
            const run_result *r = &res[c][k];
            uint64_t total = 0;
            for (uint32_t f = 0; f < FRAMES; f++)
                total += r->frame[f].unspecialised;
            printf("  %s: frames from a burst until every draw is specialised:", cache_name[k]);
            for (uint32_t b = 0; b < BURSTS; b++) {
                uint32_t f = burst_at[b], end = b + 1 < BURSTS ? burst_at[b + 1] : FRAMES;
                while (f < end && r->frame[f].unspecialised)
                    f++;
                if (f < end)
                    printf(" %u (burst at %u)", f - burst_at[b], burst_at[b]);
                else
                    printf(" over %u (burst at %u: not by frame %u)", end - 1 - burst_at[b], burst_at[b], end - 1);
            }
            printf("; draws drawn another way in all: %llu\n", (unsigned long long)total);
        }
    }
    printf("same %u frames (frame hashes) in every run: %s\n", FRAMES, same ? "yes" : "NO");
    for (int c = 0; c < N_CONFIGS; c++) {
        if (!configs[c].fill || (only && strcmp(only, configs[c].id)))
            continue;
        const run_result *k = &res[c][COLD], *w = &res[c][WARM], *v = &res[c][SPV];
        printf("BENCH name=stutter_%s_cold_worst value=%.2f unit=ms baseline=warm_median ratio=%.2f\n",
               configs[c].id, k->worst, k->worst / w->median);
        printf("BENCH name=stutter_%s_cold_worst_over_median value=%.2f unit=ms baseline=cold_median ratio=%.2f\n",
               configs[c].id, k->worst, k->worst / k->median);
        printf("BENCH name=stutter_%s_warm_worst_over_median value=%.2f unit=ms baseline=warm_median ratio=%.2f\n",
               configs[c].id, w->worst, w->worst / w->median);
        printf("BENCH name=stutter_%s_spv_worst value=%.2f unit=ms baseline=warm_median ratio=%.2f\n", configs[c].id,
               v->worst, v->worst / w->median);
        printf("BENCH name=stutter_%s_cold_median value=%.2f unit=ms baseline=warm_median ratio=%.3f\n",
               configs[c].id, k->median, k->median / w->median);
    }
    return same ? 0 : 1;
}
