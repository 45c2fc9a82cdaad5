/* The geometry shader unit on the CPU path (translator/gs.c): a register
 * file (pvk_pica) driven by the writes citro3d/libctru make
 * (shaderProgramConfigure for the geometry stage), vertex and geometry
 * programs from the assembler, attributes in a guest-memory buffer, and the
 * draw packets the translator hands env.draw compared with positions,
 * colours and triangle orders worked out by hand.  No Vulkan: the packets
 * are the result.  Covers the point mode (quads from points, the winding
 * flag, the input permutation, several VS vertices per invocation), the
 * fixed and variable modes, primitive assembly of emitted vertices, the
 * unit's registers and b15 between invocations, immediate mode, and bad
 * configurations (logged and counted, never a crash). */
#include <math.h>

#include "harness.h"
#include "tools/asm.h"
#include "translator/geometry.h"

#define BASE 0x20000000u /* guest address of `mem` */

static uint8_t mem[1 << 16];
static pvk_pica P;
static uint64_t n_bad, n_unsupported, n_msgs;

static void on_report(void *user, pvk_pica_report kind, pvk_log_level level, uint32_t count, const char *msg)
{
    (void)user, (void)level;
    if (kind == PVK_PICA_BAD_INPUT || kind == PVK_PICA_OUT_OF_RANGE)
        n_bad += count;
    else if (kind == PVK_PICA_UNSUPPORTED)
        n_unsupported += count;
    if (msg && kind != PVK_PICA_NOTE)
        n_msgs++;
    if (msg && kind != PVK_PICA_NOTE && !th_quiet_errors)
        fprintf(stderr, "[pica %d] %s\n", (int)kind, msg);
}
static const void *on_read(void *user, uint32_t paddr, uint32_t len)
{
    (void)user;
    if (paddr < BASE || paddr - BASE > sizeof mem || len > sizeof mem - (paddr - BASE))
        return NULL;
    return mem + (paddr - BASE);
}

/* ---- the packets, copied ---- */
#define MAX_V 4096
typedef struct packet {
    pvk_draw_kind kind;
    uint32_t n;                 /* index entries */
    pvk_vertex v[MAX_V];        /* the triangles' vertices in index order */
} packet;
static packet pk[8];
static int n_pk;
static pvk_result on_draw(void *user, const pvk_draw_packet *d)
{
    (void)user;
    if (n_pk < 8) {
        packet *k = &pk[n_pk];
        k->kind = d->kind;
        k->n = d->tri_vertices;
        for (uint32_t i = 0; i < d->tri_vertices && i < MAX_V; i++)
            k->v[i] = d->verts[d->index[i]];
    }
    n_pk++;
    return PVK_SUCCESS;
}

/* One guest call: the runtime refills the work budgets for each. */
static bool any_result; /* test_random: a runaway program may stop a list */
static void wr(uint32_t id, uint32_t v)
{
    pvk_pica_new_call(&P);
    pvk_result r = pvk_pica_write(&P, id, v);
    if (!any_result)
        CHECK_EQ(r, PVK_SUCCESS);
}
static uint32_t f32bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static void reset(void)
{
    memset(&P, 0, sizeof P);
    pvk_pica_env e = {.report = on_report, .guest_read = on_read, .draw = on_draw, .log_level = PVK_LOG_WARN};
    pvk_pica_set_env(&P, &e);
    n_pk = 0;
    n_bad = n_unsupported = n_msgs = 0;
    memset(mem, 0, sizeof mem);
    /* an 8x8 RGBA8 colour buffer, no depth */
    wr(PVK_GPUREG_FRAMEBUFFER_DIM, 8 | 7 << 12 | 1 << 24);
    wr(PVK_GPUREG_COLORBUFFER_LOC, (BASE + 0x8000) >> 3);
}

/* Assemble `src` and load it into unit 1 (vertex) or 0 (geometry) the way
 * libctru's shaderProgramUploadDvle and shaderProgramConfigure do: code,
 * descriptors, constants, entry point and output mask into the unit's own
 * registers; the VS output count into VSH_OUTMAP_TOTAL1/2 (vertex) or the
 * output map into SH_OUTMAP_* (whichever unit draws last: the geometry unit). */
static pvk_shbin SB;
static void load(unsigned unit, const char *src)
{
    char err[256] = "";
    pvk_result r = pvk_pica_asm(src, strlen(src), &SB, err, sizeof err);
    if (r)
        fprintf(stderr, "asm: %s\n", err);
    CHECK_EQ(r, PVK_SUCCESS);
    static pvk_reg_write w[PVK_SHBIN_UPLOAD_MAX];
    uint32_t n = pvk_shbin_upload(&SB, w, PVK_SHBIN_UPLOAD_MAX);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id = w[i].id;
        if (id >= PVK_GPUREG_VSH_BASE && id < PVK_GPUREG_VSH_BASE + PVK_GPUREG_SHADER_SPAN) {
            wr(unit ? id : id - PVK_GPUREG_SHADER_SPAN, w[i].value);
        } else if (id == PVK_GPUREG_VSH_OUTMAP_TOTAL1 || id == PVK_GPUREG_VSH_OUTMAP_TOTAL2) {
            if (unit)
                wr(id, w[i].value);
        } else if (!unit) { /* the output map is the geometry shader's */
            wr(id, w[i].value);
        }
    }
}

/* The geometry stage as shaderProgramConfigure sets it for `mode`
 * (0 point, 1 variable, 2 fixed), with `stride` VS outputs per vertex. */
static void geostage(uint32_t mode, uint32_t stride, uint32_t fixed_start, uint32_t fixed_num, uint32_t var_num)
{
    wr(PVK_GPUREG_GEOSTAGE_CONFIG, 2 | (mode == 1 ? 0x80000000u : 0));
    wr(PVK_GPUREG_VSH_COM_MODE, 1);
    uint32_t misc = mode;
    if (mode == 2)
        misc |= 0x01000000u | fixed_start << 16 | (stride - 1) << 12 | (fixed_num - 1) << 8;
    wr(PVK_GPUREG_GSH_MISC0, misc);
    wr(PVK_GPUREG_GSH_MISC1, mode == 1 ? var_num - 1 : 0);
    wr(PVK_GPUREG_GSH_INPUTBUFFER_CONFIG, 0x08000000u | (mode ? 0x100u : 0) | (stride - 1));
    wr(PVK_GPUREG_GSH_ATTRIBUTES_PERMUTATION_LOW, 0x76543210u);
    wr(PVK_GPUREG_GSH_ATTRIBUTES_PERMUTATION_HIGH, 0xFEDCBA98u);
    wr(PVK_GPUREG_PRIMITIVE_CONFIG, 3u << 8 | 1); /* geometry primitives, 2 outputs */
}

/* Attributes: `n` vertices of two f32x4 attributes (v0 position, v1 colour)
 * from `data` at BASE, one buffer. */
static void attribs(const float (*data)[8], uint32_t n)
{
    memcpy(mem, data, sizeof(float) * 8 * n);
    wr(PVK_GPUREG_ATTRIBBUFFERS_LOC, BASE >> 3);
    wr(PVK_GPUREG_ATTRIBBUFFERS_FORMAT_LOW, 0xFF); /* two f32 x4 */
    wr(PVK_GPUREG_ATTRIBBUFFERS_FORMAT_HIGH, 1u << 28);
    wr(PVK_GPUREG_ATTRIBBUFFER0_OFFSET, 0);
    wr(PVK_GPUREG_ATTRIBBUFFER0_CONFIG1, 0x10);
    wr(PVK_GPUREG_ATTRIBBUFFER0_CONFIG2, 32u << 16 | 2u << 28);
    wr(PVK_GPUREG_VSH_NUM_ATTR, 1);
    wr(PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_LOW, 0x10);
}

static void set_gs_c(uint32_t c, float x, float y, float z, float w)
{
    wr(PVK_GPUREG_GSH_FLOATUNIFORM_CONFIG, 0x80000000u | c);
    wr(PVK_GPUREG_GSH_FLOATUNIFORM_DATA, f32bits(w));
    wr(PVK_GPUREG_GSH_FLOATUNIFORM_DATA, f32bits(z));
    wr(PVK_GPUREG_GSH_FLOATUNIFORM_DATA, f32bits(y));
    wr(PVK_GPUREG_GSH_FLOATUNIFORM_DATA, f32bits(x));
}

static void draw_arrays(uint32_t n)
{
    wr(PVK_GPUREG_NUMVERTICES, n);
    wr(PVK_GPUREG_VERTEX_OFFSET, 0);
    wr(PVK_GPUREG_DRAWARRAYS, 1);
}

/* A u8 index buffer at BASE + 0x4000, drawn. */
static void draw_elements(const uint8_t *idx, uint32_t n)
{
    memcpy(mem + 0x4000, idx, n);
    wr(PVK_GPUREG_INDEXBUFFER_CONFIG, 0x4000);
    wr(PVK_GPUREG_NUMVERTICES, n);
    wr(PVK_GPUREG_DRAWELEMENTS, 1);
}

static int near(float a, float b) { return fabsf(a - b) < 1e-4f; }
#define CHECK_POS(vx, x, y, z, w) \
    CHECK(near((vx).pos[0], x) && near((vx).pos[1], y) && near((vx).pos[2], z) && near((vx).pos[3], w))
#define CHECK_RGB(vx, r, g, b) CHECK(near((vx).color[0], r) && near((vx).color[1], g) && near((vx).color[2], b))

static const char *VS_PASS = ".out opos position\n"
                             ".out oclr color\n"
                             ".proc main\n"
                             "  mov opos, v0\n"
                             "  mov oclr, v1\n"
                             "  end\n"
                             ".end\n";

/* geoshader-style: each point becomes a quad of two triangles, the second
 * emitted with the winding flag (slots: BL BR TL, then TR replaces slot 1). */
static const char *GS_QUAD = ".out opos position\n"
                             ".out oclr color\n"
                             ".proc main\n"
                             "  mov oclr, v1\n"
                             "  setemit 0\n"
                             "  add opos, c0, v0\n"
                             "  emit\n"
                             "  setemit 1\n"
                             "  add opos, c1, v0\n"
                             "  emit\n"
                             "  setemit 2, prim\n"
                             "  add opos, c2, v0\n"
                             "  emit\n"
                             "  setemit 1, prim inv\n"
                             "  add opos, c3, v0\n"
                             "  emit\n"
                             "  end\n"
                             ".end\n";

static void quad_offsets(void)
{
    set_gs_c(0, -0.25f, -0.25f, 0, 0);
    set_gs_c(1, 0.25f, -0.25f, 0, 0);
    set_gs_c(2, -0.25f, 0.25f, 0, 0);
    set_gs_c(3, 0.25f, 0.25f, 0, 0);
}

static void test_point_quads(void)
{
    reset();
    geostage(0, 2, 0, 0, 0);
    load(1, VS_PASS);
    load(0, GS_QUAD);
    quad_offsets();
    static const float v[2][8] = {{0, 0, 0.5f, 1, 1, 0, 0, 1}, {0.5f, -0.5f, 0.25f, 1, 0, 1, 0, 1}};
    attribs(v, 2);
    draw_arrays(2);
    CHECK_EQ(n_pk, 1);
    CHECK_EQ(n_bad + n_unsupported, 0);
    packet *k = &pk[0];
    CHECK_EQ(k->kind, PVK_DRAW_ARRAYS);
    CHECK_EQ(k->n, 12);
    /* point 0: (BL, BR, TL), then the winding flag swaps (BL, TR, TL) to (TR, BL, TL) */
    CHECK_POS(k->v[0], -0.25f, -0.25f, 0.5f, 1);
    CHECK_POS(k->v[1], 0.25f, -0.25f, 0.5f, 1);
    CHECK_POS(k->v[2], -0.25f, 0.25f, 0.5f, 1);
    CHECK_POS(k->v[3], 0.25f, 0.25f, 0.5f, 1);
    CHECK_POS(k->v[4], -0.25f, -0.25f, 0.5f, 1);
    CHECK_POS(k->v[5], -0.25f, 0.25f, 0.5f, 1);
    for (int i = 0; i < 6; i++)
        CHECK_RGB(k->v[i], 1, 0, 0);
    /* point 1 around (0.5, -0.5) */
    CHECK_POS(k->v[6], 0.25f, -0.75f, 0.25f, 1);
    CHECK_POS(k->v[7], 0.75f, -0.75f, 0.25f, 1);
    CHECK_POS(k->v[8], 0.25f, -0.25f, 0.25f, 1);
    CHECK_POS(k->v[9], 0.75f, -0.25f, 0.25f, 1);
    CHECK_POS(k->v[10], 0.25f, -0.75f, 0.25f, 1);
    CHECK_POS(k->v[11], 0.25f, -0.25f, 0.25f, 1);
    for (int i = 6; i < 12; i++)
        CHECK_RGB(k->v[i], 0, 1, 0);
    CHECK_EQ(P.counters.vertices, 2);
    CHECK_EQ(P.counters.triangles, 4);
    /* b15 is set after every invocation */
    CHECK(P.sh[0].b & 0x8000);
}

/* DRAWELEMENTS in point mode: indices pick the vertices; two VS vertices
 * per invocation (GSH_INPUTBUFFER_CONFIG 4 entries of 2 outputs each),
 * entries placed by a permutation that swaps the two vertices' registers. */
static void test_point_pairs_elements(void)
{
    reset();
    geostage(0, 2, 0, 0, 0);
    wr(PVK_GPUREG_GSH_INPUTBUFFER_CONFIG, 0x08000000u | 3); /* 4 entries: 2 vertices */
    wr(PVK_GPUREG_GSH_ATTRIBUTES_PERMUTATION_LOW, 0x76541032u); /* entries 0,1 -> v2,v3; 2,3 -> v0,v1 */
    load(1, VS_PASS);
    /* a triangle from the pair: first vertex (now v2), second (v0), and the
     * first moved by c0; colour of the first (v3) */
    load(0, ".out opos position\n"
            ".out oclr color\n"
            ".proc main\n"
            "  mov oclr, v3\n"
            "  setemit 0\n"
            "  mov opos, v2\n"
            "  emit\n"
            "  setemit 1\n"
            "  mov opos, v0\n"
            "  emit\n"
            "  setemit 2, prim\n"
            "  add opos, c0, v2\n"
            "  emit\n"
            "  end\n"
            ".end\n");
    set_gs_c(0, 0, 0.5f, 0, 0);
    static const float v[3][8] = {
        {-1, -1, 0, 1, 1, 0, 0, 1}, {1, -1, 0, 1, 0, 1, 0, 1}, {0, 1, 0, 1, 0, 0, 1, 1}};
    attribs(v, 3);
    static const uint8_t idx[5] = {2, 0, 1, 1, 2}; /* pairs (2,0), (1,1); the 5th is an incomplete invocation */
    draw_elements(idx, 5);
    CHECK_EQ(n_pk, 1);
    CHECK_EQ(n_bad + n_unsupported, 0);
    packet *k = &pk[0];
    CHECK_EQ(k->kind, PVK_DRAW_ELEMENTS);
    CHECK_EQ(k->n, 6);
    CHECK_POS(k->v[0], 0, 1, 0, 1);
    CHECK_POS(k->v[1], -1, -1, 0, 1);
    CHECK_POS(k->v[2], 0, 1.5f, 0, 1);
    CHECK_RGB(k->v[0], 0, 0, 1);
    CHECK_POS(k->v[3], 1, -1, 0, 1);
    CHECK_POS(k->v[4], 1, -1, 0, 1);
    CHECK_POS(k->v[5], 1, -0.5f, 0, 1);
    CHECK_RGB(k->v[5], 0, 1, 0);
    CHECK_EQ(P.counters.vertices, 5);
}

/* The entries a vertex hands on are its output registers in VSH_OUTMAP_MASK
 * order, whatever their numbers: o0 and o5 become v0 and v1; o2, written
 * but not in the mask, is not passed. */
static void test_vs_output_registers(void)
{
    reset();
    geostage(0, 2, 0, 0, 0);
    load(1, ".out opos position o0\n"
            ".out oclr color o5\n"
            ".proc main\n"
            "  mov opos, v0\n"
            "  mov o2, v1\n"
            "  mov oclr, v1\n"
            "  mov oclr.x, v0\n"   /* colour red = position x: tells o5 from o2 */
            "  end\n"
            ".end\n");
    CHECK_EQ(P.regs[PVK_GPUREG_VSH_OUTMAP_MASK], 0x21);
    load(0, GS_QUAD);
    quad_offsets();
    static const float v[1][8] = {{0.5f, 0, 0, 1, 0, 1, 0, 1}};
    attribs(v, 1);
    draw_arrays(1);
    CHECK_EQ(n_pk, 1);
    CHECK_EQ(pk[0].n, 6);
    CHECK_POS(pk[0].v[0], 0.25f, -0.25f, 0, 1);
    CHECK_RGB(pk[0].v[0], 0.5f, 1, 0);
}

/* Immediate mode feeds the geometry shader too: each vertex (one
 * invocation in point mode) is a packet of the quad it becomes. */
static void put_f24x4(const float x[4])
{
    uint32_t a[4], w[3];
    for (int i = 0; i < 4; i++)
        a[i] = pvk_f32_to_f24(f32bits(x[i]));
    pvk_pack_f24x4(a, w);
    for (int i = 0; i < 3; i++)
        wr(PVK_GPUREG_FIXEDATTRIB_DATA0 + (uint32_t)i, w[i]);
}
static void test_immediate(void)
{
    reset();
    geostage(0, 2, 0, 0, 0);
    load(1, VS_PASS);
    load(0, GS_QUAD);
    quad_offsets();
    wr(PVK_GPUREG_VSH_NUM_ATTR, 1);
    wr(PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_LOW, 0x10);
    wr(PVK_GPUREG_FIXEDATTRIB_INDEX, 0xF);
    static const float a[2][2][4] = {{{0, 0, 0, 1}, {0, 0, 1, 1}}, {{0.5f, 0.5f, 0, 1}, {1, 1, 1, 1}}};
    for (int v = 0; v < 2; v++) {
        put_f24x4(a[v][0]);
        put_f24x4(a[v][1]);
    }
    CHECK_EQ(n_pk, 2);
    CHECK_EQ(n_bad + n_unsupported, 0);
    CHECK_EQ(pk[0].kind, PVK_DRAW_IMMEDIATE);
    CHECK_EQ(pk[0].n, 6);
    CHECK_POS(pk[0].v[0], -0.25f, -0.25f, 0, 1);
    CHECK_POS(pk[0].v[3], 0.25f, 0.25f, 0, 1);
    CHECK_RGB(pk[0].v[0], 0, 0, 1);
    CHECK_EQ(pk[1].n, 6);
    CHECK_POS(pk[1].v[1], 0.75f, 0.25f, 0, 1);
    CHECK_RGB(pk[1].v[5], 1, 1, 1);
}

/* Fixed mode: three vertices of two entries each go to c4-c9, one
 * invocation per three; the program draws them in reverse order. */
static void test_fixed(void)
{
    reset();
    geostage(2, 2, 4, 3, 0);
    load(1, VS_PASS);
    load(0, ".out opos position\n"
            ".out oclr color\n"
            ".proc main\n"
            "  setemit 0\n  mov opos, c8\n  mov oclr, c9\n  emit\n"
            "  setemit 1\n  mov opos, c6\n  mov oclr, c7\n  emit\n"
            "  setemit 2, prim\n  mov opos, c4\n  mov oclr, c5\n  emit\n"
            "  end\n"
            ".end\n");
    static const float v[7][8] = {
        {0, 0, 0, 1, 1, 0, 0, 1}, {1, 0, 0, 1, 0, 1, 0, 1}, {0, 1, 0, 1, 0, 0, 1, 1},
        {-1, 0, 0, 1, 1, 1, 0, 1}, {-1, -1, 0, 1, 0, 1, 1, 1}, {0, -1, 0, 1, 1, 0, 1, 1},
        {0.5f, 0.5f, 0, 1, 1, 1, 1, 1}, /* the 7th: an incomplete primitive, dropped */
    };
    attribs(v, 7);
    draw_arrays(7);
    CHECK_EQ(n_pk, 1);
    CHECK_EQ(n_bad + n_unsupported, 0);
    packet *k = &pk[0];
    CHECK_EQ(k->n, 6);
    CHECK_POS(k->v[0], 0, 1, 0, 1);
    CHECK_RGB(k->v[0], 0, 0, 1);
    CHECK_POS(k->v[1], 1, 0, 0, 1);
    CHECK_POS(k->v[2], 0, 0, 0, 1);
    CHECK_RGB(k->v[2], 1, 0, 0);
    CHECK_POS(k->v[3], 0, -1, 0, 1);
    CHECK_POS(k->v[5], -1, 0, 0, 1);
    CHECK_RGB(k->v[5], 1, 1, 0);
    /* the uniforms keep the last primitive's vertices (they are the unit's
     * registers), the 7th vertex went to c4-c5 */
    CHECK_EQ(P.sh[0].f[8][0], pvk_f32_to_f24(f32bits(0)));
    CHECK_EQ(P.sh[0].f[8][1], pvk_f32_to_f24(f32bits(-1)));
    CHECK_EQ(P.sh[0].f[4][0], pvk_f32_to_f24(f32bits(0.5f)));
}

/* Variable mode: polygons of 3 and 4 vertices, each prefixed with its
 * vertex count in the index buffer, fanned by the program: c0 = count, the
 * first vertex (all entries) in c1-c2, the other positions from c3 on. */
static const char *GS_FAN = ".out opos position\n"
                            ".out oclr color\n"
                            ".proc main\n"
                            "  mov oclr, c2\n"
                            "  mov r0, c0\n"
                            "  mov r2, c91\n"          /* r2.x = 3: the next vertex number + 2 */
                            "  for i0\n"
                            "    cmp r2, gt, gt, r0\n"
                            "    breakc cmp.x\n"
                            "    setemit 0\n    mov opos, c1\n    emit\n"
                            "    setemit 1\n    mov opos, c[lcnt + 3]\n    emit\n"
                            "    setemit 2, prim\n    mov opos, c[lcnt + 4]\n    emit\n"
                            "    add r2, c90, r2\n"
                            "  .end\n"
                            "  end\n"
                            ".end\n";
static void fan_setup(void)
{
    geostage(1, 2, 0, 0, 1);
    load(1, VS_PASS);
    load(0, GS_FAN);
    set_gs_c(90, 1, 1, 1, 1);
    set_gs_c(91, 3, 3, 3, 3);
    wr(PVK_GPUREG_GSH_INTUNIFORM_I0, 90 | 0 << 8 | 1 << 16); /* 91 iterations, aL from 0 by 1 */
}
static void test_variable(void)
{
    reset();
    fan_setup();
    static const float v[7][8] = {
        {0, 0, 0, 1, 1, 0, 0, 1}, {1, 0, 0, 1, 0, 1, 0, 1}, {0, 1, 0, 1, 0, 0, 1, 1},
        {-1, -1, 0, 1, 0, 1, 0, 1}, {0, -1, 0, 1, 1, 1, 1, 1}, {0, -0.5f, 0, 1, 1, 1, 1, 1},
        {-1, -0.5f, 0, 1, 1, 1, 1, 1},
    };
    attribs(v, 7);
    static const uint8_t idx[] = {3, 0, 1, 2, 4, 3, 4, 5, 6};
    draw_elements(idx, sizeof idx);
    CHECK_EQ(n_pk, 1);
    CHECK_EQ(n_bad + n_unsupported, 0);
    packet *k = &pk[0];
    CHECK_EQ(k->n, 9);
    CHECK_POS(k->v[0], 0, 0, 0, 1);
    CHECK_POS(k->v[1], 1, 0, 0, 1);
    CHECK_POS(k->v[2], 0, 1, 0, 1);
    for (int i = 0; i < 3; i++)
        CHECK_RGB(k->v[i], 1, 0, 0);
    CHECK_POS(k->v[3], -1, -1, 0, 1);
    CHECK_POS(k->v[4], 0, -1, 0, 1);
    CHECK_POS(k->v[5], 0, -0.5f, 0, 1);
    CHECK_POS(k->v[6], -1, -1, 0, 1);
    CHECK_POS(k->v[7], 0, -0.5f, 0, 1);
    CHECK_POS(k->v[8], -1, -0.5f, 0, 1);
    for (int i = 3; i < 9; i++)
        CHECK_RGB(k->v[i], 0, 1, 0); /* the polygon's first vertex only hands over its colour */
    CHECK_EQ(P.sh[0].f[0][0], pvk_f32_to_f24(f32bits(4)));
    CHECK_EQ(P.counters.vertices, 9);
}

/* The emitted vertices go through primitive assembly with the draw's
 * topology: as a strip (mode 1) the 6 vertices of a quad make 4 triangles
 * and the winding flag means nothing. */
static void test_topology_strip(void)
{
    reset();
    geostage(0, 2, 0, 0, 0);
    wr(PVK_GPUREG_PRIMITIVE_CONFIG, 1u << 8 | 1);
    load(1, VS_PASS);
    load(0, GS_QUAD);
    quad_offsets();
    static const float v[1][8] = {{0, 0, 0, 1, 1, 1, 1, 1}};
    attribs(v, 1);
    draw_arrays(1);
    CHECK_EQ(n_pk, 1);
    packet *k = &pk[0];
    CHECK_EQ(k->n, 12);
    /* emitted: BL BR TL, BL TR TL; strip triangles (0 1 2) (2 1 3) (2 3 4) (4 3 5) */
    CHECK_POS(k->v[3], -0.25f, 0.25f, 0, 1);
    CHECK_POS(k->v[4], 0.25f, -0.25f, 0, 1);
    CHECK_POS(k->v[5], -0.25f, -0.25f, 0, 1);
    CHECK_POS(k->v[11], -0.25f, 0.25f, 0, 1);
}

/* The unit keeps its temporaries between invocations and draws, and b15 is
 * set after every invocation: a program that finds b15 clear starts its
 * running sum, later invocations add to it. */
static void test_persistence(void)
{
    reset();
    geostage(0, 2, 0, 0, 0);
    load(1, VS_PASS);
    load(0, ".out opos position\n"
            ".out oclr color\n"
            ".proc main\n"
            "  ifu b15\n"
            "    add r5, c0, r5\n"
            "  .else\n"
            "    mov r5, c1\n"
            "  .end\n"
            "  mov oclr, v1\n"
            "  setemit 0\n  mov opos, r5\n  emit\n"
            "  setemit 1\n  add opos, c2, r5\n  emit\n"
            "  setemit 2, prim\n  add opos, c3, r5\n  emit\n"
            "  end\n"
            ".end\n");
    wr(PVK_GPUREG_GSH_BOOLUNIFORM, 0x7FFF0000u); /* b15 clear: the next invocation is a first */
    set_gs_c(0, 0.125f, 0, 0, 0);
    set_gs_c(1, -0.5f, 0, 0, 1);
    set_gs_c(2, 0.0625f, 0, 0, 0);
    set_gs_c(3, 0, 0.0625f, 0, 0);
    static const float v[3][8] = {{9, 9, 9, 1, 1, 0, 0, 1}, {9, 9, 9, 1, 1, 0, 0, 1}, {9, 9, 9, 1, 1, 0, 0, 1}};
    attribs(v, 3);
    draw_arrays(3);
    draw_arrays(1); /* a second draw: the sum goes on */
    CHECK_EQ(n_pk, 2);
    CHECK_EQ(pk[0].n, 9);
    CHECK_POS(pk[0].v[0], -0.5f, 0, 0, 1);
    CHECK_POS(pk[0].v[3], -0.375f, 0, 0, 1);
    CHECK_POS(pk[0].v[6], -0.25f, 0, 0, 1);
    CHECK_POS(pk[0].v[7], -0.1875f, 0, 0, 1);
    CHECK_EQ(pk[1].n, 3);
    CHECK_POS(pk[1].v[0], -0.125f, 0, 0, 1);
    CHECK_POS(pk[1].v[2], -0.125f, 0.0625f, 0, 1);
}

/* Configurations the unit cannot run and programs that misbehave: logged,
 * counted, the draw dropped or the list stopped, never a crash. */
static void test_bad(void)
{
    static const float v[6][8] = {{0, 0, 0, 1, 1, 0, 0, 1}, {1, 0, 0, 1, 0, 1, 0, 1}, {0, 1, 0, 1, 0, 0, 1, 1},
                                  {0, 0, 0, 1, 1, 0, 0, 1}, {1, 0, 0, 1, 0, 1, 0, 1}, {0, 1, 0, 1, 0, 0, 1, 1}};
    th_quiet_errors = 1;

    /* point mode whose inputs are not whole vertices: 3 entries of 2-entry vertices */
    reset();
    geostage(0, 2, 0, 0, 0);
    wr(PVK_GPUREG_GSH_INPUTBUFFER_CONFIG, 0x08000000u | 2);
    load(1, VS_PASS);
    load(0, GS_QUAD);
    attribs(v, 6);
    draw_arrays(6);
    CHECK_EQ(n_pk, 0);
    CHECK_EQ(n_unsupported, 1);

    /* fixed mode past c95: 3 vertices of 2 from c92 */
    reset();
    geostage(2, 2, 92, 3, 0);
    load(1, VS_PASS);
    load(0, GS_QUAD);
    attribs(v, 6);
    draw_arrays(6);
    CHECK_EQ(n_pk, 0);
    CHECK_EQ(n_bad, 1);

    /* a mode that does not exist */
    reset();
    geostage(0, 2, 0, 0, 0);
    wr(PVK_GPUREG_GSH_MISC0, 3);
    load(1, VS_PASS);
    load(0, GS_QUAD);
    attribs(v, 6);
    draw_arrays(6);
    CHECK_EQ(n_pk, 0);
    CHECK_EQ(n_unsupported, 1);

    /* variable mode without an index buffer; a primitive of 0 vertices; a
     * primitive of 100 vertices that does not fit c1-c95 (its invocation still
     * runs, the fan reads what there is) */
    reset();
    fan_setup();
    attribs(v, 6);
    draw_arrays(6);
    CHECK_EQ(n_pk, 0);
    CHECK_EQ(n_unsupported, 1);
    static uint8_t idx[110];
    idx[0] = 0, idx[1] = 3, idx[2] = 0, idx[3] = 1, idx[4] = 2, idx[5] = 100;
    for (int i = 6; i < 106; i++)
        idx[i] = (uint8_t)(i % 6);
    draw_elements(idx, 106);
    CHECK_EQ(n_pk, 1);
    CHECK_EQ(n_unsupported, 2);
    CHECK_EQ(n_bad, 1);
    CHECK(pk[0].n >= 3);

    /* SETEMIT vertex id 3 (the assembler refuses it: a raw word) */
    reset();
    geostage(0, 2, 0, 0, 0);
    load(1, VS_PASS);
    load(0, GS_QUAD);
    P.sh[0].code[SB.entry + 1] = (uint32_t)PVK_SH_SETEMIT << 26 | 3u << 24; /* "setemit 0" -> vertex 3 */
    attribs(v, 6);
    draw_arrays(1);
    CHECK_EQ(n_bad, 1);
    CHECK_EQ(n_pk, 1);
    CHECK_EQ(pk[0].n, 6); /* slot 0 keeps what it held (zeros): still two triangles */
    /* ... in a loop: every one counted, one message per draw */
    reset();
    geostage(0, 2, 0, 0, 0);
    load(1, VS_PASS);
    load(0, ".proc main\n  for i0\n    setemit 0\n    emit\n  .end\n  end\n.end\n");
    for (uint32_t i = 0; i < 8; i++)
        if (pvk_sh_opcode(P.sh[0].code[i]) == PVK_SH_SETEMIT)
            P.sh[0].code[i] |= 3u << 24;
    wr(PVK_GPUREG_GSH_INTUNIFORM_I0, 99); /* 100 iterations */
    attribs(v, 6);
    draw_arrays(2);
    CHECK_EQ(n_bad, 200);
    CHECK_EQ(n_msgs, 1);
    CHECK_EQ(n_pk, 0);

    /* a runaway geometry shader stops the list like a runaway vertex shader */
    reset();
    geostage(0, 2, 0, 0, 0);
    load(1, VS_PASS);
    load(0, ".proc main\n"
            "loop_here:\n"
            "  jmpu !b0, loop_here\n"
            "  jmpu b0, loop_here\n"
            "  end\n"
            ".end\n");
    attribs(v, 6);
    wr(PVK_GPUREG_NUMVERTICES, 6);
    pvk_pica_new_call(&P);
    CHECK(pvk_pica_write(&P, PVK_GPUREG_DRAWARRAYS, 1) != PVK_SUCCESS);
    CHECK_EQ(n_pk, 0);
    CHECK_EQ(n_bad, 1);

    /* huge emit counts: 256 x 256 quads per invocation, past
     * PVK_GS_MAX_EMIT_VERTICES in the second invocation: the draw is dropped */
    reset();
    geostage(0, 2, 0, 0, 0);
    load(1, VS_PASS);
    load(0, ".out opos position\n"
            ".proc main\n"
            "  for i0\n"
            "    for i0\n"
            "      setemit 0\n      emit\n      setemit 1\n      emit\n      setemit 2, prim\n      emit\n"
            "    .end\n"
            "    nop\n"
            "  .end\n"
            "  end\n"
            ".end\n");
    wr(PVK_GPUREG_GSH_INTUNIFORM_I0, 255);
    attribs(v, 6);
    draw_arrays(2);
    CHECK_EQ(n_pk, 0);
    CHECK_EQ(n_bad, 1);
    CHECK_EQ(P.counters.triangles, 0);

    /* ... and against a small vertex budget the list stops */
    reset();
    geostage(0, 2, 0, 0, 0);
    load(1, VS_PASS);
    load(0, GS_QUAD);
    attribs(v, 6);
    P.vertex_limit = 20; /* 6 for the VS, 14 left: two quads fit, the third does not */
    wr(PVK_GPUREG_NUMVERTICES, 6);
    pvk_pica_new_call(&P);
    CHECK(pvk_pica_write(&P, PVK_GPUREG_DRAWARRAYS, 1) != PVK_SUCCESS);
    CHECK_EQ(n_pk, 0);
    CHECK_EQ(n_bad, 1);
    CHECK(P.budget_stop);
    th_quiet_errors = 0;
}

/* Random configurations, programs and draws: whatever the registers say,
 * nothing crashes or reads out of bounds (the ASan build runs this), every
 * packet is whole triangles, and the budgets hold. */
static void test_random(void)
{
    static const float v[8][8] = {{0, 0, 0, 1, 1, 0, 0, 1}, {1, 0, 0, 1, 0, 1, 0, 1}, {0, 1, 0, 1, 0, 0, 1, 1},
                                  {0, 0, 0, 1, 1, 0, 0, 1}, {1, 0, 0, 1, 0, 1, 0, 1}, {0, 1, 0, 1, 0, 0, 1, 1},
                                  {-1, 0, 0, 1, 1, 1, 0, 1}, {0, -1, 0, 1, 1, 0, 1, 1}};
    th_quiet_errors = 1;
    any_result = true;
    for (int iter = 0; iter < 400; iter++) {
        reset();
        geostage(th_rand() % 3, th_rand_range(1, 4), th_rand() % 96, th_rand_range(1, 16), th_rand_range(1, 32));
        load(1, VS_PASS);
        load(0, GS_QUAD);
        /* a few registers scrambled */
        static const uint32_t ids[] = {PVK_GPUREG_GSH_MISC0, PVK_GPUREG_GSH_MISC1, PVK_GPUREG_GSH_INPUTBUFFER_CONFIG,
                                       PVK_GPUREG_GSH_ATTRIBUTES_PERMUTATION_LOW,
                                       PVK_GPUREG_GSH_ATTRIBUTES_PERMUTATION_HIGH, PVK_GPUREG_VSH_OUTMAP_TOTAL1,
                                       PVK_GPUREG_VSH_OUTMAP_MASK, PVK_GPUREG_GSH_OUTMAP_MASK,
                                       PVK_GPUREG_PRIMITIVE_CONFIG, PVK_GPUREG_GEOSTAGE_CONFIG,
                                       PVK_GPUREG_SH_OUTMAP_TOTAL, PVK_GPUREG_GSH_ENTRYPOINT};
        for (int k = th_rand() % 4; k > 0; k--)
            wr(ids[th_rand() % (sizeof ids / sizeof ids[0])], th_rand());
        /* random words in the geometry program now and then (EMITs, jumps, anything) */
        for (int k = th_rand() % 3 ? 0 : 8; k > 0; k--) {
            static const uint32_t ops[] = {PVK_SH_EMIT, PVK_SH_SETEMIT, PVK_SH_MOV, PVK_SH_JMPU, PVK_SH_END};
            uint32_t w = ops[th_rand() % 5] << 26 | (th_rand() & 0x03FFFFFF);
            P.sh[0].code[th_rand() % 24] = w;
        }
        attribs(v, 8);
        uint8_t idx[24];
        for (int k = 0; k < 24; k++)
            idx[k] = (uint8_t)(th_rand() % 12); /* some past the 8 vertices: zeros, in memory */
        switch (th_rand() % 3) {
        case 0: draw_arrays(th_rand_range(1, 8)); break;
        case 1: draw_elements(idx, th_rand_range(1, 24)); break;
        default:
            wr(PVK_GPUREG_VSH_NUM_ATTR, 1);
            wr(PVK_GPUREG_FIXEDATTRIB_INDEX, 0xF);
            for (int k = th_rand_range(1, 6); k > 0; k--) {
                put_f24x4(v[k]);
                if (th_rand() % 4 == 0) /* the configuration changes mid-primitive */
                    wr(PVK_GPUREG_GSH_INPUTBUFFER_CONFIG, 0x08000000u | (th_rand() % 16));
                put_f24x4(v[k] + 4);
            }
        }
        for (int k = 0; k < n_pk && k < 8; k++)
            CHECK_EQ(pk[k].n % 3, 0);
        CHECK(P.counters.triangles <= PVK_GS_MAX_EMIT_VERTICES * 8ull);
    }
    any_result = false;
    th_quiet_errors = 0;
}

int main(void)
{
    (void)th_release;
    test_point_quads();
    test_point_pairs_elements();
    test_vs_output_registers();
    test_immediate();
    test_fixed();
    test_variable();
    test_topology_strip();
    test_persistence();
    test_bad();
    test_random();
    return th_finish("test_gs");
}
