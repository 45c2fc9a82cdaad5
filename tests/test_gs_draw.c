/* Draws with a geometry program (GEOSTAGE_CONFIG geometry shader on,
 * PRIMITIVE_CONFIG mode 3) through the GPU path (runtime/gs_draw.c: the
 * vertex and geometry programs in a compute pre-pass, translator/glsl_gs.c)
 * against the same draws on the CPU interpreter (PVK_DEBUG=cpu-vs): the
 * colour buffers must be equal byte for byte.  Hand-written programs (a
 * point-sprite expansion, a triangle subdivision, winding flips, fixed-size
 * particles, variable-size primitives with one or two main vertices, a loop
 * that emits more triangles than the default slots) and what the GPU path
 * must leave to the CPU (a runaway program, one that reads a temporary the
 * last invocation left, emitted strips, SETEMIT vertex id 3) and
 * random ones (random arithmetic on the inputs between random SETEMIT/EMIT
 * sequences, one to three input vertices, DRAWARRAYS and u8/u16
 * DRAWELEMENTS).  The GPU path must really run (its counter), and a program
 * whose emits the code does not bound gets its slots from what earlier
 * draws wanted: the first such draw is counted short, the next is exact. */
#include <time.h>

#include "draw_common.h"
#include "runtime/runtime.h"

static void (*const unused_helpers[])(void) = {upload_shader, setup_attribs};
static uint32_t (*const unused_index)(uint32_t, uint32_t) = tiled_index;
static pvk_context *gpu, *cpu;

/* ---- instruction encoders (3dbrew "GPU/Shader Instruction Set") ---- */
enum { ADD = 0x00, DP4 = 0x02, MUL = 0x08, MAX = 0x0C, MIN = 0x0D, MOV = 0x13, END = 0x22, CALL = 0x24, JMPU = 0x2D,
       LOOP = 0x29, EMIT = 0x2A, SETEMIT = 0x2B };
/* format 1: src1 may be any register (7 bits), src2 only v0-v15/r0-r15 */
static uint32_t f1(uint32_t op, uint32_t dst, uint32_t src1, uint32_t idx, uint32_t src2, uint32_t desc)
{
    return op << 26 | dst << 21 | idx << 19 | src1 << 12 | src2 << 7 | desc;
}
static uint32_t f3(uint32_t op, uint32_t dst, uint32_t num, uint32_t id)
{
    return op << 26 | id << 22 | dst << 10 | num;
}
static uint32_t setemit(uint32_t vtx, bool prim, bool inv)
{
    return (uint32_t)SETEMIT << 26 | vtx << 24 | (uint32_t)prim << 23 | (uint32_t)inv << 22;
}
static uint32_t opdesc(uint32_t mask, uint32_t s1, int n1, uint32_t s2, int n2)
{
    return mask | (uint32_t)(n1 != 0) << 4 | s1 << 5 | (uint32_t)(n2 != 0) << 13 | s2 << 14 | 0x1Bu << 23;
}
#define EMITW ((uint32_t)EMIT << 26)
#define ENDW ((uint32_t)END << 26)

/* ---- one case ---- */

typedef struct gs_case {
    const char *name;
    uint32_t vs_code[16], n_vs;         /* vertex program (descriptor 0 identity) */
    uint32_t vs_outputs;                /* o0..: handed on to the geometry unit */
    uint32_t code[512], n_code, desc[32], entry;
    float c[96][4];
    uint32_t ints[4], bools;
    uint32_t inputs;                    /* GSH_INPUTBUFFER_CONFIG attributes */
    uint32_t gs_outmask, outmap[7], n_outmap;
    uint32_t verts;                     /* vertices in the buffer: float4 position, float4 colour */
    float vdata[512][8];
    uint32_t misc0, misc1;              /* GSH_MISC0 (mode ...), GSH_MISC1 */
    bool to_uniforms;                   /* GSH_INPUTBUFFER_CONFIG bit 8 */
    uint32_t topology;                  /* PRIMITIVE_CONFIG mode: 3, or 0 */
    uint32_t count;                     /* elements drawn */
    bool stops;                         /* the draw stops the list (a runaway program) */
    int index_kind;                     /* 0 arrays, 1 u8, 2 u16 */
    uint16_t index[1024];
} gs_case;
static gs_case C;

#define IB (VB + 0x20000u)

static void apply(pvk_context *c)
{
    ctx = c;
    /* vertex unit: separate configuration */
    reg(PVK_GPUREG_VSH_COM_MODE, 1);
    reg(PVK_GPUREG_VSH_CODETRANSFER_CONFIG, 0);
    for (uint32_t i = 0; i < C.n_vs; i++)
        reg(PVK_GPUREG_VSH_CODETRANSFER_DATA, C.vs_code[i]);
    reg(PVK_GPUREG_VSH_CODETRANSFER_END, 1);
    reg(PVK_GPUREG_VSH_OPDESCS_CONFIG, 0);
    reg(PVK_GPUREG_VSH_OPDESCS_DATA, 0xF | (0x1Bu << 5) | (0x1Bu << 14) | (0x1Bu << 23));
    reg(PVK_GPUREG_VSH_ENTRYPOINT, 0x7FFF0000u);
    reg(PVK_GPUREG_VSH_OUTMAP_MASK, (1u << C.vs_outputs) - 1);
    reg(PVK_GPUREG_VSH_OUTMAP_TOTAL1, C.vs_outputs - 1);
    reg(PVK_GPUREG_VSH_OUTMAP_TOTAL2, C.vs_outputs - 1);
    reg(PVK_GPUREG_VSH_INPUTBUFFER_CONFIG, 0xA0000000u | 1);
    reg(PVK_GPUREG_VSH_NUM_ATTR, 1);
    reg(PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_LOW, 0x10);
    reg(PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_HIGH, 0);
    setup_attribs();
    /* geometry unit */
    reg(PVK_GPUREG_GSH_CODETRANSFER_CONFIG, 0);
    for (uint32_t i = 0; i < C.n_code; i++)
        reg(PVK_GPUREG_GSH_CODETRANSFER_DATA, C.code[i]);
    reg(PVK_GPUREG_GSH_CODETRANSFER_END, 1);
    reg(PVK_GPUREG_GSH_OPDESCS_CONFIG, 0);
    for (uint32_t i = 0; i < 32; i++)
        reg(PVK_GPUREG_GSH_OPDESCS_DATA, C.desc[i]);
    for (uint32_t i = 0; i < 96; i++) {
        reg(PVK_GPUREG_GSH_FLOATUNIFORM_CONFIG, 0x80000000u | i);
        for (int k = 3; k >= 0; k--) {
            uint32_t b;
            memcpy(&b, &C.c[i][k], 4);
            reg(PVK_GPUREG_GSH_FLOATUNIFORM_DATA, b);
        }
    }
    for (uint32_t i = 0; i < 4; i++)
        reg(PVK_GPUREG_GSH_INTUNIFORM_I0 + i, C.ints[i]);
    reg(PVK_GPUREG_GSH_BOOLUNIFORM, 0x7FFF0000u | C.bools);
    reg(PVK_GPUREG_GSH_ENTRYPOINT, 0x7FFF0000u | C.entry);
    reg(PVK_GPUREG_GSH_INPUTBUFFER_CONFIG, 0x08000000u | (C.to_uniforms ? 0x100u : 0) | (C.inputs - 1));
    reg(PVK_GPUREG_GSH_ATTRIBUTES_PERMUTATION_LOW, 0x76543210u);
    reg(PVK_GPUREG_GSH_ATTRIBUTES_PERMUTATION_HIGH, 0xFEDCBA98u);
    reg(PVK_GPUREG_GSH_OUTMAP_MASK, C.gs_outmask);
    reg(PVK_GPUREG_SH_OUTMAP_TOTAL, C.n_outmap);
    for (uint32_t i = 0; i < 7; i++)
        reg(PVK_GPUREG_SH_OUTMAP_O0 + i, i < C.n_outmap ? C.outmap[i] : 0x1F1F1F1F);
    reg(PVK_GPUREG_GEOSTAGE_CONFIG, 2u | ((C.misc0 & 0xFF) == 1 ? 1u << 31 : 0));
    reg(PVK_GPUREG_GSH_MISC0, C.misc0);
    reg(PVK_GPUREG_GSH_MISC1, C.misc1);
    /* memory */
    CHECK_EQ(pvk_wait_idle(c), PVK_SUCCESS);
    uint8_t *fb = pvk_guest_ptr(c, FB, W * H * 4);
    for (uint32_t i = 0; i < W * H; i++)
        fb[4 * i] = 0x11, fb[4 * i + 1] = 0x22, fb[4 * i + 2] = 0x33, fb[4 * i + 3] = 0x44;
    pvk_guest_written(c, FB, W * H * 4);
    memcpy(pvk_guest_ptr(c, VB, sizeof C.vdata), C.vdata, sizeof C.vdata);
    pvk_guest_written(c, VB, sizeof C.vdata);
    uint8_t *ib = pvk_guest_ptr(c, IB, 2048);
    for (uint32_t i = 0; i < C.count && C.index_kind; i++) {
        if (C.index_kind == 1)
            ib[i] = (uint8_t)C.index[i];
        else
            ib[2 * i] = (uint8_t)C.index[i], ib[2 * i + 1] = (uint8_t)(C.index[i] >> 8);
    }
    pvk_guest_written(c, IB, 2048);
    reg(PVK_GPUREG_PRIMITIVE_CONFIG, (C.topology << 8) | (C.vs_outputs - 1));
    reg(PVK_GPUREG_NUMVERTICES, C.count);
    if (C.index_kind) {
        reg(PVK_GPUREG_INDEXBUFFER_CONFIG, (IB - VB) | (C.index_kind == 2 ? 1u << 31 : 0));
    } else {
        reg(PVK_GPUREG_VERTEX_OFFSET, 0);
    }
    uint32_t go = C.index_kind ? PVK_GPUREG_DRAWELEMENTS : PVK_GPUREG_DRAWARRAYS;
    pvk_result r = pvk_mmio_write32(c, 0x10401000u + 4 * go, 1);
    CHECK(C.stops ? r != PVK_SUCCESS : r == PVK_SUCCESS);
    CHECK_EQ(pvk_wait_idle(c), PVK_SUCCESS);
}

static void setup(pvk_context *c)
{
    ctx = c;
    reg(PVK_GPUREG_COLORBUFFER_FORMAT, 2); /* RGBA8 */
    reg(PVK_GPUREG_COLORBUFFER_LOC, FB >> 3);
    reg(PVK_GPUREG_COLORBUFFER_READ, 0xF);
    reg(PVK_GPUREG_COLORBUFFER_WRITE, 0xF);
    setup_view();
    merger_replace();
    tev_primary_colour();
}

/* PVK_TEST_DUMP=dir: the GPU path's picture as a PPM per case (to look at). */
static void dump(const char *name, const uint8_t *px)
{
    const char *dir = getenv("PVK_TEST_DUMP");
    if (!dir)
        return;
    char path[512];
    snprintf(path, sizeof path, "%s/gs_%s.ppm", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return;
    fprintf(f, "P6\n%u %u\n255\n", W, H);
    for (uint32_t y = H; y-- > 0;)
        for (uint32_t x = 0; x < W; x++) {
            const uint8_t *p = px + 4 * tiled_index(x, y);
            uint8_t rgb[3] = {p[3], p[2], p[1]}; /* RGBA8 in memory: A B G R */
            fwrite(rgb, 1, 3, f);
        }
    fclose(f);
}

static unsigned cases, gpu_cases, drawn_cases;

/* Both paths; `expect_gpu`: the GPU path must take it.  Returns the GPU
 * path's excess-triangle count for the case. */
enum { ANY = 0, GPU = 1, CPU = 2 };
static uint64_t run_case(int expect, bool compare)
{
    bool expect_gpu = expect == GPU;
    static uint8_t a[W * H * 4], b[W * H * 4];
    pvk_stats s0, s1;
    pvk_get_stats(gpu, &s0);
    apply(gpu);
    pvk_get_stats(gpu, &s1);
    bool on_gpu = s1.gs_gpu_draws != s0.gs_gpu_draws;
    apply(cpu);
    ctx = gpu;
    copy_out(a, FB);
    ctx = cpu;
    copy_out(b, FB);
    dump(C.name, a);
    uint32_t covered = 0;
    for (uint32_t i = 0; i < W * H; i++)
        covered += a[4 * i] != 0x11 || a[4 * i + 1] != 0x22 || a[4 * i + 2] != 0x33 || a[4 * i + 3] != 0x44;
    cases++;
    gpu_cases += on_gpu;
    drawn_cases += covered > 0;
    if (expect_gpu && !on_gpu)
        fprintf(stderr, "case %s: not on the GPU path\n", C.name);
    CHECK(!expect_gpu || on_gpu);
    if (expect == CPU && on_gpu)
        fprintf(stderr, "case %s: on the GPU path, which should have refused it\n", C.name);
    CHECK(expect != CPU || (!on_gpu && s1.gs_cpu_fallbacks == s0.gs_cpu_fallbacks + 1));
    pvk_stats sc;
    pvk_get_stats(cpu, &sc);
    CHECK_EQ(sc.gs_gpu_draws, 0);
    int d = compare ? differ(a, b, sizeof a) : 0;
    if (d)
        fprintf(stderr, "case %s (%s): %d bytes differ\n", C.name, on_gpu ? "GPU" : "CPU", d);
    CHECK_EQ(d, 0);
    /* the geometry unit's float uniforms after the draw (the fixed and
     * variable modes write them): later draws see them */
    bool same_c = !memcmp(gpu->pica.sh[0].f, cpu->pica.sh[0].f, sizeof gpu->pica.sh[0].f);
    if (!same_c)
        fprintf(stderr, "case %s (%s): the geometry unit's float uniforms differ after the draw\n", C.name,
                on_gpu ? "GPU" : "CPU");
    CHECK(same_c);
    return s1.gs_excess_triangles - s0.gs_excess_triangles;
}

/* ---- the cases ---- */

static float rnd_f(float lo, float hi) { return lo + (hi - lo) * (float)(th_rand() % 100001) / 100000.0f; }

/* Position and colour per vertex, positions in [-lim, lim]. */
static void random_vertices(uint32_t n, float lim)
{
    C.verts = n;
    for (uint32_t v = 0; v < n; v++) {
        for (int k = 0; k < 2; k++)
            C.vdata[v][k] = rnd_f(-lim, lim);
        C.vdata[v][2] = -0.5f, C.vdata[v][3] = 1.0f;
        for (int k = 4; k < 8; k++)
            C.vdata[v][k] = rnd_f(0.0f, 1.0f);
    }
}

static void base_case(const char *name)
{
    memset(&C, 0, sizeof C);
    C.name = name;
    /* MOV o0, v0; MOV o1, v1; END */
    C.vs_code[0] = f1(MOV, 0, 0, 0, 0, 0), C.vs_code[1] = f1(MOV, 1, 1, 0, 0, 0), C.vs_code[2] = ENDW;
    C.n_vs = 3;
    C.vs_outputs = 2;
    C.desc[0] = opdesc(0xF, 0x1B, 0, 0x1B, 0);
    for (uint32_t i = 0; i < 4; i++)
        C.desc[1 + i] = opdesc(8u >> i, 0x1B, 0, 0x1B, 0);
    C.gs_outmask = 0x3;
    C.outmap[0] = 0x03020100, C.outmap[1] = 0x0B0A0908;
    C.n_outmap = 2;
    C.topology = 3;
}

/* Point sprites: each vertex becomes a quad of two triangles (the second
 * with the winding flag), corners position + c0..c3. */
static void point_sprites(const char *name, uint32_t n, int index_kind)
{
    base_case(name);
    random_vertices(n < 400 ? n : 400, 0.9f);
    C.inputs = 2;
    uint32_t *c = C.code, k = 0;
    c[k++] = f1(MOV, 1, 1, 0, 0, 0);
    static const uint32_t vtx[4] = {0, 1, 2, 0};
    for (uint32_t q = 0; q < 4; q++) {
        c[k++] = f1(ADD, 0, 0x20 + q, 0, 0, 0);
        c[k++] = setemit(vtx[q], q >= 2, q == 3);
        c[k++] = EMITW;
    }
    c[k++] = ENDW;
    C.n_code = k;
    float s = 0.06f;
    const float off[4][2] = {{-s, -s}, {s, -s}, {-s, s}, {s, s}};
    for (int q = 0; q < 4; q++)
        C.c[q][0] = off[q][0], C.c[q][1] = off[q][1];
    C.count = n;
    C.index_kind = index_kind;
    for (uint32_t i = 0; i < n; i++)
        C.index[i] = (uint16_t)(th_rand() % C.verts);
}

/* Triangles (3 input vertices) split into 4 by their edge midpoints, each
 * inner colour from the uniforms; the middle one with the winding flag. */
static void subdivision(const char *name, int index_kind)
{
    base_case(name);
    random_vertices(60, 1.0f);
    C.inputs = 6; /* v0 v1 | v2 v3 | v4 v5 */
    uint32_t *c = C.code, k = 0;
    /* r0-r2: midpoints 01, 12, 20 (c0 = 0.5) */
    c[k++] = f1(ADD, 0x10, 0, 0, 2, 0);
    c[k++] = f1(MUL, 0x10, 0x20, 0, 0x10, 0);
    c[k++] = f1(ADD, 0x11, 2, 0, 4, 0);
    c[k++] = f1(MUL, 0x11, 0x20, 0, 0x11, 0);
    c[k++] = f1(ADD, 0x12, 4, 0, 0, 0);
    c[k++] = f1(MUL, 0x12, 0x20, 0, 0x12, 0);
    const uint32_t tri[4][3] = {{0, 0x10, 0x12}, {0x10, 2, 0x11}, {0x12, 0x11, 4}, {0x10, 0x11, 0x12}};
    for (uint32_t t = 0; t < 4; t++) {
        for (uint32_t j = 0; j < 3; j++) {
            c[k++] = f1(MOV, 0, tri[t][j], 0, 0, 0);
            uint32_t col = tri[t][j] < 0x10 ? tri[t][j] + 1 : 0x21 + t; /* a vertex's colour or a constant */
            c[k++] = f1(MOV, 1, col, 0, 0, 0);
            c[k++] = setemit(j, j == 2, t == 3);
            c[k++] = EMITW;
        }
    }
    c[k++] = ENDW;
    C.n_code = k;
    for (int i = 0; i < 4; i++)
        C.c[0][i] = 0.5f;
    for (int t = 0; t < 4; t++)
        for (int i = 0; i < 4; i++)
            C.c[1 + t][i] = rnd_f(0, 1);
    C.count = 3 * 12;
    C.index_kind = index_kind;
    for (uint32_t i = 0; i < C.count; i++)
        C.index[i] = (uint16_t)(index_kind ? th_rand() % C.verts : i);
}

/* A LOOP emitting i0.x + 1 thin triangles per input vertex: the code does
 * not bound it, so the slots come from what the runtime saw. */
static void loop_fan(const char *name, uint32_t tris)
{
    base_case(name);
    random_vertices(24, 0.8f);
    C.inputs = 2;
    uint32_t *c = C.code, k = 0;
    c[k++] = f1(MOV, 1, 1, 0, 0, 0);
    c[k++] = f1(MOV, 0x10, 0, 0, 0, 0);             /* r0: the moving corner */
    uint32_t loop_at = k++;
    c[k++] = f1(MOV, 0, 0, 0, 0, 0);                /* o0 = the vertex */
    c[k++] = setemit(0, false, false);
    c[k++] = EMITW;
    c[k++] = f1(ADD, 0x10, 0x20, 0, 0x10, 0);       /* r0 += c0 */
    c[k++] = f1(MOV, 0, 0x10, 0, 0, 0);
    c[k++] = setemit(1, false, false);
    c[k++] = EMITW;
    c[k++] = f1(ADD, 0, 0x21, 0, 0x10, 0);          /* o0 = r0 + c1 */
    c[k++] = setemit(2, true, false);
    c[k++] = EMITW;
    c[loop_at] = f3(LOOP, k - 1, 0, 0);
    c[k++] = ENDW;
    C.n_code = k;
    C.c[0][0] = 0.03f, C.c[0][1] = 0.01f;
    C.c[1][0] = 0.01f, C.c[1][1] = 0.04f;
    C.ints[0] = tris - 1; /* LOOP runs i0.x + 1 times */
    C.count = C.verts;
}

/* A program that never ends (JMPU back to itself) after emitting one triangle. */
static void runaway(const char *name)
{
    base_case(name);
    random_vertices(8, 0.7f);
    C.inputs = 2;
    uint32_t *c = C.code, k = 0;
    c[k++] = f1(MOV, 1, 1, 0, 0, 0);
    for (uint32_t q = 0; q < 3; q++) {
        c[k++] = f1(ADD, 0, 0x20 + q, 0, 0, 0);
        c[k++] = setemit(q, q == 2, false);
        c[k++] = EMITW;
    }
    c[k] = f3(JMPU, k, 1, 0); /* b0 is 0: jumps when b0 != 1 */
    k++;
    c[k++] = ENDW;
    C.n_code = k;
    const float off[3][2] = {{-0.1f, -0.1f}, {0.1f, -0.1f}, {0.0f, 0.1f}};
    for (int q = 0; q < 3; q++)
        C.c[q][0] = off[q][0], C.c[q][1] = off[q][1];
    C.count = C.verts;
    C.stops = true;
}

/* Random arithmetic on the inputs between random SETEMIT/EMIT sequences. */
static void random_case(uint64_t seed, char *name)
{
    th_rng = seed;
    snprintf(name, 32, "random_%llx", (unsigned long long)(seed & 0xFFFFFF));
    base_case(name);
    uint32_t per = th_rand_range(1, 3);
    random_vertices(48, 0.9f);
    C.inputs = 2 * per;
    for (uint32_t d = 5; d < 16; d++)
        C.desc[d] = opdesc(th_rand() % 4 ? 0xF : 1 + th_rand() % 15, th_rand() & 0xFF, th_rand() % 4 == 0,
                           th_rand() & 0xFF, th_rand() % 4 == 0);
    for (uint32_t i = 0; i < 96; i++)
        for (int k = 0; k < 4; k++)
            C.c[i][k] = i < 8 ? rnd_f(-0.2f, 0.2f) : rnd_f(-2, 2);
    uint32_t *c = C.code, k = 0;
    /* every temporary and the colour written first: invocations read nothing of the last one */
    for (uint32_t t = 0; t < 8; t++)
        c[k++] = f1(MOV, 0x10 + t, th_rand() % 2 ? th_rand() % C.inputs : 0x28 + th_rand() % 8, 0, 0, 0);
    c[k++] = f1(MOV, 1, 1, 0, 0, 0);
    uint32_t emits = th_rand_range(3, 9);
    for (uint32_t e = 0; e < emits; e++) {
        uint32_t ops = th_rand_range(0, 3);
        for (uint32_t o = 0; o < ops; o++) { /* into r0-r7 or the colour o1 */
            static const uint32_t alu[] = {ADD, MUL, MAX, MIN, DP4, MOV};
            uint32_t op = alu[th_rand() % 6];
            uint32_t dst = th_rand() % 3 ? 0x10 + th_rand() % 8 : 1;
            uint32_t s1 = th_rand() % 2 ? th_rand() % C.inputs : 0x10 + th_rand() % 8;
            uint32_t s2 = th_rand() % 2 ? th_rand() % C.inputs : 0x10 + th_rand() % 8;
            c[k++] = f1(op, dst, th_rand() % 3 ? s1 : 0x28 + th_rand() % 8, 0, s2, 5 + th_rand() % 11);
        }
        /* the position: an input position plus a small offset */
        c[k++] = f1(ADD, 0, 0x20 + th_rand() % 8, 0, 2 * (th_rand() % per), 0);
        if (e < 3) /* the slots filled in order, the first triangle after the third */
            c[k++] = setemit(e, e == 2, th_rand() % 2);
        else
            c[k++] = setemit(th_rand() % 3, th_rand() % 2, th_rand() % 2);
        c[k++] = EMITW;
    }
    c[k++] = ENDW;
    C.n_code = k;
    C.count = per * th_rand_range(1, 16);
    C.index_kind = (int)(th_rand() % 3);
    C.topology = th_rand() % 4 ? 3 : 0;
    for (uint32_t i = 0; i < C.count; i++)
        C.index[i] = (uint16_t)(C.index_kind ? th_rand() % C.verts : i);
}

/* Fixed-size primitives (particles): one vertex each into c8 (position)
 * and c9 (colour); a quad from c8 + c0..c3. */
static void fixed_particles(const char *name)
{
    base_case(name);
    random_vertices(80, 0.9f);
    C.inputs = 2;
    C.to_uniforms = true;
    C.misc0 = 2u | 0u << 8 | 1u << 12 | 8u << 16; /* fixed, 1 vertex, stride 2, from c8 */
    uint32_t *c = C.code, k = 0;
    c[k++] = f1(MOV, 0x10, 0x28, 0, 0, 0);
    c[k++] = f1(MOV, 1, 0x29, 0, 0, 0);
    static const uint32_t vtx[4] = {0, 1, 2, 0};
    for (uint32_t q = 0; q < 4; q++) {
        c[k++] = f1(ADD, 0, 0x20 + q, 0, 0x10, 0);
        c[k++] = setemit(vtx[q], q >= 2, q == 3);
        c[k++] = EMITW;
    }
    c[k++] = ENDW;
    C.n_code = k;
    float s = 0.05f;
    const float off[4][2] = {{-s, -s}, {s, -s}, {-s, s}, {s, s}};
    for (int q = 0; q < 4; q++)
        C.c[q][0] = off[q][0], C.c[q][1] = off[q][1];
    C.count = 80;
}

/* Variable-size primitives (u16 DRAWELEMENTS: a count, then that many
 * indices): 3 or 4 vertices, the first with all entries (c1 position, c2
 * colour), the others their position (c3, c4, c5); a triangle of the first
 * three, and for 4 vertices (c0.x >= 4) a second one. */
static void variable_prims(const char *name, uint32_t main_vertices)
{
    base_case(name);
    random_vertices(64, 0.9f);
    C.inputs = 2;
    C.to_uniforms = true;
    C.misc0 = 1;
    C.misc1 = main_vertices - 1;
    /* one main vertex: c1 c2 | c3 | c4 | c5; two: c1 c2 | c3 c4 | c5 | c6 */
    uint32_t *c = C.code, k = 0, if_at = 0, m = main_vertices == 2;
    c[k++] = f1(MOV, 1, 0x22, 0, 0, 0);
    c[k++] = f1(MOV, 0x11, 0x27, 0, 0, 0); /* r1 = c7 = 4 */
    const uint32_t tri[2][3] = {{0x21, 0x23, 0x24 + m}, {0x21, 0x24 + m, 0x25 + m}};
    for (uint32_t t = 0; t < 2; t++) {
        if (t == 1) {
            /* CMP c0, r1 with x: >= (format 1c), then IFC cmp.x over the second triangle */
            c[k++] = 0x17u << 27 | 5u << 24 | 5u << 21 | 0x20u << 12 | 0x11u << 7 | 0;
            if_at = k++;
        }
        for (uint32_t j = 0; j < 3; j++) {
            c[k++] = f1(MOV, 0, tri[t][j], 0, 0, 0);
            c[k++] = setemit(j, j == 2, false);
            c[k++] = EMITW;
        }
    }
    /* IFC: refx 1, condop 2 (x alone), the true part up to k, no else part */
    c[if_at] = 0x28u << 26 | 1u << 25 | 2u << 22 | k << 10 | 0;
    c[k++] = ENDW;
    for (int i = 0; i < 4; i++)
        C.c[7][i] = 4.0f;
    C.n_code = k;
    C.count = 0;
    while (C.count + 5 <= 200) {
        uint32_t n = 3 + th_rand() % 2;
        C.index[C.count++] = (uint16_t)n;
        for (uint32_t i = 0; i < n; i++)
            C.index[C.count++] = (uint16_t)(th_rand() % C.verts);
    }
    C.index_kind = 2;
}

/* A program that runs away (JMPC to itself while c3.x > v0.x) after one
 * triangle for vertices left of x = 0; vertex 7, the last, is right of it. */
static void some_runaway(const char *name)
{
    base_case(name);
    random_vertices(8, 0.7f);
    C.vdata[0][0] = -0.5f, C.vdata[7][0] = 0.5f;
    C.inputs = 2;
    uint32_t *c = C.code, k = 0;
    c[k++] = f1(MOV, 1, 1, 0, 0, 0);
    for (uint32_t q = 0; q < 3; q++) {
        c[k++] = f1(ADD, 0, 0x20 + q, 0, 0, 0);
        c[k++] = setemit(q, q == 2, false);
        c[k++] = EMITW;
    }
    c[k++] = 0x17u << 27 | 4u << 24 | 4u << 21 | 0x23u << 12 | 0u << 7 | 0; /* CMP c3 > v0 (x: format 1c) */
    c[k] = 0x2Cu << 26 | 1u << 25 | 2u << 22 | k << 10; /* JMPC cmp.x to itself */
    k++;
    c[k++] = ENDW;
    C.n_code = k;
    const float off[3][2] = {{-0.1f, -0.1f}, {0.1f, -0.1f}, {0.0f, 0.1f}};
    for (int q = 0; q < 3; q++)
        C.c[q][0] = off[q][0], C.c[q][1] = off[q][1];
    C.count = C.verts;
}

/* A list of runaway geometry programs over many vertices (issue 25): the
 * some_runaway program with blocks of 61 instructions (60 ADDs into r0,
 * v0 and v1 by turns, then JMPC cmp.x back: the step cap, not the
 * dispatcher's block limit, stops each), GS_LIST_VERTICES points of which
 * only the last is right of x = 0 (the CPU path's replay of it ends), drawn
 * GS_LIST_DRAWS times by one command list on the GPU path.  The geometry
 * program's code shows no bound: each draw's invocations run under a cap
 * given from the call's shader budget and are charged for it, so the list
 * stops within one budget (the CPU path takes the draw that no longer fits
 * and stops the list at its runaway) instead of costing draws x the
 * budget.  The run and wait are timed in the log, not asserted. */
#define GS_LIST_VERTICES 400u
#define GS_LIST_DRAWS 24u
#define GS_LIST 0x20000000u
static void runaway_list(void)
{
    base_case("runaway_list");
    random_vertices(GS_LIST_VERTICES, 0.9f);
    for (uint32_t v = 0; v + 1 < GS_LIST_VERTICES; v++)
        C.vdata[v][0] = -0.1f - 0.8f * C.vdata[v][0] * C.vdata[v][0];
    C.vdata[GS_LIST_VERTICES - 1][0] = 0.5f;
    C.inputs = 2;
    uint32_t *c = C.code, k = 0;
    c[k++] = f1(MOV, 1, 1, 0, 0, 0);
    for (uint32_t q = 0; q < 3; q++) {
        c[k++] = f1(ADD, 0, 0x20 + q, 0, 0, 0);
        c[k++] = setemit(q, q == 2, false);
        c[k++] = EMITW;
    }
    c[k++] = 0x17u << 27 | 4u << 24 | 4u << 21 | 0x23u << 12 | 0u << 7 | 0; /* CMP c3 > v0 (x: format 1c) */
    c[k++] = f1(MOV, 0x10, 1, 0, 0, 0); /* r0 written before it is read (else the CPU path's) */
    uint32_t loop = k;
    for (uint32_t i = 0; i < 60; i++)
        c[k++] = f1(ADD, 0x10, 0x10, 0, i & 1u, 0);
    c[k] = 0x2Cu << 26 | 1u << 25 | 2u << 22 | loop << 10; /* JMPC cmp.x back */
    k++;
    c[k++] = ENDW;
    C.n_code = k;
    const float off[3][2] = {{-0.02f, -0.02f}, {0.02f, -0.02f}, {0.0f, 0.02f}};
    for (int q = 0; q < 3; q++)
        C.c[q][0] = off[q][0], C.c[q][1] = off[q][1];
    C.count = C.verts;
    pvk_stats s0, s1;
    pvk_get_stats(gpu, &s0);
    apply(gpu); /* one draw by register write: the GPU path takes it */
    pvk_get_stats(gpu, &s1);
    CHECK_EQ(s1.gs_gpu_draws, s0.gs_gpu_draws + 1);
    CHECK(s1.gs_unfinished > s0.gs_unfinished);
    CHECK_EQ(s1.gpu_capped_draws, s0.gpu_capped_draws + 1);
    /* the geometry program's cap and charge: a quarter of the budget over the invocations */
    uint64_t charged = s1.gpu_steps_charged - s0.gpu_steps_charged;
    CHECK(charged >= (1ull << 27) / 4 - 3u * GS_LIST_VERTICES && charged <= (1ull << 27) / 4 + 3u * GS_LIST_VERTICES);
    /* the list: the same draw GS_LIST_DRAWS times */
    ctx = gpu;
    uint32_t *w0 = pvk_guest_ptr(gpu, GS_LIST, 1024), *w = w0;
    for (uint32_t d = 0; d < GS_LIST_DRAWS; d++)
        w[0] = 1, w[1] = pvk_cmd_header(PVK_GPUREG_DRAWARRAYS, 0xF, 0, 0), w += 2;
    w[0] = 0x12345678, w[1] = pvk_cmd_header(PVK_GPUREG_FINALIZE, 0xF, 0, 0), w += 2;
    uint32_t bytes = (uint32_t)(w - w0) * 4;
    pvk_guest_written(gpu, GS_LIST, bytes);
    pvk_get_stats(gpu, &s0);
    th_quiet_errors = 1;
    struct timespec t0, t1, t2;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pvk_result r = pvk_command_list_run(gpu, GS_LIST, bytes);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK_EQ(pvk_wait_idle(gpu), PVK_SUCCESS);
    clock_gettime(CLOCK_MONOTONIC, &t2);
    th_quiet_errors = 0;
    pvk_get_stats(gpu, &s1);
    double run = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    double wait = (double)(t2.tv_sec - t1.tv_sec) + (double)(t2.tv_nsec - t1.tv_nsec) * 1e-9;
    uint64_t on_gpu = s1.gs_gpu_draws - s0.gs_gpu_draws;
    printf("  runaway geometry programs, %u draws x %u points: run %.3f s + wait %.3f s; %llu on the GPU path "
           "(%llu shader instructions charged), %llu to the CPU path, bad input +%llu\n",
           GS_LIST_DRAWS, GS_LIST_VERTICES, run, wait, (unsigned long long)on_gpu,
           (unsigned long long)(s1.gpu_steps_charged - s0.gpu_steps_charged),
           (unsigned long long)(s1.gpu_budget_fallbacks - s0.gpu_budget_fallbacks),
           (unsigned long long)(s1.bad_input - s0.bad_input));
    CHECK(r != PVK_SUCCESS); /* stopped: the CPU path's runaway */
    CHECK(on_gpu > 0 && on_gpu < GS_LIST_DRAWS);
    CHECK_EQ(s1.gpu_capped_draws - s0.gpu_capped_draws, on_gpu);
    CHECK(s1.gpu_steps_charged - s0.gpu_steps_charged <= 1ull << 27);
    CHECK_EQ(s1.gpu_budget_fallbacks, s0.gpu_budget_fallbacks + 1);
    CHECK(s1.bad_input - s0.bad_input >= on_gpu + 1); /* each GPU draw, the CPU path's stop */
}

/* A triangle, then an IF whose IF part sets SETEMIT's primitive flag and
 * whose ELSE part clears it, b0 true: the EMIT after makes a second
 * triangle (the emit bound must follow the IF part's end past the ELSE part). */
static void if_bound(const char *name)
{
    base_case(name);
    C.verts = 1;
    float v[8] = {0.0f, 0.0f, -0.5f, 1.0f, 1, 0, 0, 1};
    memcpy(C.vdata[0], v, sizeof v);
    C.inputs = 2;
    uint32_t *c = C.code, k = 0;
    c[k++] = f1(MOV, 1, 1, 0, 0, 0);
    c[k++] = f1(ADD, 0, 0x20, 0, 0, 0), c[k++] = setemit(0, false, false), c[k++] = EMITW;
    c[k++] = f1(ADD, 0, 0x21, 0, 0, 0), c[k++] = setemit(1, false, false), c[k++] = EMITW;
    c[k++] = f1(ADD, 0, 0x22, 0, 0, 0), c[k++] = setemit(2, true, false), c[k++] = EMITW;
    c[k++] = setemit(2, false, false);              /* 10 */
    c[k++] = f3(0x27, 13, 1, 0);                    /* 11: IFU b0: IF part 12, ELSE part 13, then 14 */
    c[k++] = setemit(2, true, false);               /* 12 */
    c[k++] = setemit(2, false, false);              /* 13 */
    c[k++] = f1(ADD, 0, 0x23, 0, 0, 0);             /* 14 */
    c[k++] = EMITW;                                 /* 15 */
    c[k++] = ENDW;
    C.n_code = k;
    C.bools = 1;
    C.c[0][0] = -0.3f, C.c[1][0] = 0.3f, C.c[2][1] = 0.3f, C.c[3][1] = -0.5f;
    C.count = 1;
}

/* A fan of n + 1 triangles from one input vertex, one EMIT each (n + 2
 * EMITs in straight-line code). */
static void many_emits(const char *name, uint32_t n)
{
    base_case(name);
    C.verts = 1;
    float v[8] = {0.0f, -0.9f, -0.5f, 1.0f, 1, 0, 0, 1};
    memcpy(C.vdata[0], v, sizeof v);
    C.inputs = 2;
    uint32_t *c = C.code, k = 0;
    c[k++] = f1(MOV, 1, 1, 0, 0, 0);
    c[k++] = f1(ADD, 0, 0x21, 0, 0, 0), c[k++] = setemit(0, false, false), c[k++] = EMITW;
    c[k++] = f1(ADD, 0, 0x22, 0, 0, 0), c[k++] = setemit(1, false, false), c[k++] = EMITW;
    c[k++] = f1(MOV, 0x10, 0, 0, 0, 0);
    for (uint32_t t = 0; t < n; t++) {
        c[k++] = f1(ADD, 0x10, 0x23, 0, 0x10, 0);
        c[k++] = f1(MOV, 0, 0x10, 0, 0, 0);
        c[k++] = setemit(2, true, false);
        c[k++] = EMITW;
    }
    c[k++] = ENDW;
    C.n_code = k;
    C.c[1][0] = -0.3f, C.c[2][0] = 0.3f, C.c[3][1] = 0.025f;
    C.count = 1;
}

/* Variable-size primitives whose counts never decrease (3s, then 4s): the
 * GPU path takes those (translator/vertex.c draw_gpu). */
static void growing_index(void)
{
    C.count = 0;
    for (uint32_t n = 3; n <= 4; n++)
        for (uint32_t k = 0; k < 20; k++) {
            C.index[C.count++] = (uint16_t)n;
            for (uint32_t i = 0; i < n; i++)
                C.index[C.count++] = (uint16_t)(th_rand() % C.verts);
        }
}

int main(int argc, char **argv)
{
    (void)unused_helpers, (void)unused_index;
    bool compare = argc < 2 || strcmp(argv[1], "--no-compare");
    gpu = th_context(NULL, 0);
    cpu = th_context_debug(NULL, "cpu-vs", 0);
    setup(gpu);
    setup(cpu);
    th_rng = 0x6E0D;
    point_sprites("sprites", 200, 0);
    run_case(GPU, compare);
    point_sprites("sprites_u16", 300, 2);
    run_case(GPU, compare);
    point_sprites("sprites_u8", 100, 1);
    run_case(GPU, compare);
    subdivision("subdivision", 0);
    run_case(GPU, compare);
    subdivision("subdivision_u16", 2);
    run_case(GPU, compare);
    /* 9 triangles an invocation: more than the default slots; the first
     * draw is short (counted), the runtime then knows and the next is exact */
    loop_fan("loop_fan_first", 9);
    uint64_t excess = run_case(GPU, false);
    CHECK(excess > 0);
    loop_fan("loop_fan", 9);
    excess = run_case(GPU, compare);
    CHECK_EQ(excess, 0);
    /* the code does not bound the emits: the budget is charged for the
     * most slots the runtime may draw (24 invocations * 64 * 3 vertices),
     * more than this limit leaves, though what is emitted (24 * 9 * 3) fits */
    gpu->pica.vertex_limit = 2000;
    loop_fan("loop_fan_budget", 9);
    run_case(CPU, compare);
    gpu->pica.vertex_limit = 0;
    if_bound("if_bound");
    CHECK_EQ(run_case(GPU, compare), 0); /* both triangles had slots */
    /* 100 triangles an invocation: more than the GPU path's slots; the
     * first draw is short (counted), the next runs on the CPU, whole */
    loop_fan("loop_fan_100_first", 100);
    excess = run_case(GPU, false);
    CHECK(excess > 0);
    loop_fan("loop_fan_100", 100);
    C.c[0][0] = 0.004f, C.c[0][1] = 0.002f;
    run_case(CPU, compare);
    /* invocations other than the last run away on the GPU: the draw is
     * reported once, counted as bad input (the vertex path's way); the
     * code does not bound its emits, and what loop_fan_100 wanted before
     * is that program's alone (the GPU path takes this one) */
    {
        some_runaway("some_runaway");
        pvk_stats s0, s1;
        pvk_get_stats(gpu, &s0);
        apply(gpu);
        pvk_get_stats(gpu, &s1);
        CHECK_EQ(s1.gs_gpu_draws, s0.gs_gpu_draws + 1);
        CHECK(s1.gs_unfinished > s0.gs_unfinished);
        CHECK_EQ(s1.bad_input, s0.bad_input + 1);
        C.stops = true; /* the CPU path stops the list at the first: nothing to compare */
        apply(cpu);
    }
    runaway_list();
    /* the last invocation runs away when the GPU path replays it: the CPU path's */
    runaway("runaway");
    run_case(CPU, compare);
    fixed_particles("fixed");
    run_case(GPU, compare);
    variable_prims("variable", 1);
    growing_index();
    run_case(GPU, compare);
    variable_prims("variable_main2", 2);
    growing_index();
    run_case(GPU, compare);
    /* a trailing primitive count with too few indices (or none): its table
     * entries were written past the end of the table (ASan found it) */
    variable_prims("variable_odd", 1);
    C.count = 3, C.index[0] = 1, C.index[1] = 0, C.index[2] = 1;
    run_case(ANY, compare);
    variable_prims("variable_one", 1);
    C.count = 1, C.index[0] = 1;
    run_case(ANY, compare);
    /* counts that decrease: a smaller primitive sees uniforms a larger one
     * before it wrote (c5 here, read because c7 = 0 makes every primitive
     * draw the second triangle), which only the CPU path keeps */
    variable_prims("variable_decreasing", 1);
    for (int i = 0; i < 4; i++)
        C.c[7][i] = 0.0f;
    run_case(CPU, compare);
    /* counts that never decrease: every primitive's range covers the
     * earlier ones', the GPU path's */
    variable_prims("variable_growing", 1);
    for (int i = 0; i < 4; i++)
        C.c[7][i] = 0.0f;
    growing_index();
    run_case(GPU, compare);
    /* fixed-size primitives of two vertices, the last one incomplete: the
     * CPU path writes its uniforms (c8-c9), the GPU path's replay would not */
    fixed_particles("fixed_partial");
    C.misc0 = 2u | 1u << 8 | 1u << 12 | 8u << 16;
    C.count = 79;
    run_case(CPU, compare);
    fixed_particles("fixed_pairs");
    C.misc0 = 2u | 1u << 8 | 1u << 12 | 8u << 16;
    C.count = 78;
    run_case(GPU, compare);
    /* more reachable EMITs than PVK_GLSL_GS_MAX_EMIT_SITES: the driver's
     * compile time would grow past what a draw may wait (the CPU path) */
    many_emits("many_emits", 20);
    run_case(CPU, compare);
    many_emits("some_emits", 10);
    run_case(GPU, compare);
    /* strips of emitted vertices run across invocations: the CPU path's */
    point_sprites("sprites_strip", 60, 0);
    C.topology = 1;
    run_case(CPU, compare);
    /* SETEMIT vertex id 3: a guest error the CPU path logs per EMIT */
    point_sprites("vtx3", 40, 0);
    C.code[C.n_code - 3] = setemit(3, true, true);
    run_case(CPU, compare);
    /* reads r0 before writing it: the unit's last value, which only the CPU path has */
    point_sprites("stateful", 50, 0);
    C.code[0] = f1(MOV, 1, 0x10, 0, 0, 0);
    C.code[C.n_code - 1] = f1(ADD, 0x10, 0x24, 0, 0x10, 0);
    C.code[C.n_code++] = ENDW;
    for (int i = 0; i < 4; i++)
        C.c[4][i] = 0.125f;
    run_case(CPU, compare);
    for (uint64_t s = 1; s <= 60; s++) {
        char name[32];
        random_case(0x65D00000ull + s * 0x9E3779B97F4A7C15ull, name);
        run_case(GPU, compare);
    }
    printf("  %u geometry draws (%u drew pixels), %u on the GPU path\n", cases, drawn_cases, gpu_cases);
    CHECK(drawn_cases > cases / 2);
    th_release(gpu);
    th_release(cpu);
    return th_finish("test_gs_draw");
}
