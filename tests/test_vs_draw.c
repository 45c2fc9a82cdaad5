/* Draws with the vertex program on the GPU (translator/glsl_vs.c as the
 * vertex stage, attributes and indices from guest memory: runtime/draw.c)
 * against the same draws on the CPU interpreter (PVK_DEBUG=cpu-vs): random
 * programs (arithmetic of every kind, relative addressing, IF/LOOP/CALL; a
 * quarter without flow, which glsl_vs.c emits as straight-line code) x
 * random attribute layouts (every format and component count, padding,
 * several loaders, fixed attributes, permutations) x random draws (lists,
 * strips, fans, mode 3, DRAWARRAYS with an offset, u8/u16 DRAWELEMENTS, an
 * odd index-buffer address) render the same colour buffer, byte for byte.
 * Both paths hand the rasterizer the same f32 vertex values (the translated
 * program is bit-exact, tests/test_vs_gpu.c), so any difference is the
 * draw path's.  The GPU path must really run (its vertex counter), and the
 * cases it declines (misaligned attributes) must still match.  Strips and
 * fans crossing the clip volume's sides (test_strip_fan_clipped) check the
 * GPU path's vertex order; bad vertices are reported (test_bad_vertices). */
#include <stdlib.h>

#include "draw_common.h"
#include "runtime/runtime.h"
#include "translator/translator.h"

static uint32_t (*const unused_index)(uint32_t, uint32_t) = tiled_index;
static pvk_context *gpu, *cpu;
static unsigned cases, gpu_cases, fallback_cases, drawn_cases, straight_cases, loop_cases;
static bool looped; /* this case's program has LOOPs and no other flow */

/* ---- instruction encoders (3dbrew "GPU/Shader Instruction Set") ---- */
enum { ADD = 0x00, DP3 = 0x01, DP4 = 0x02, DPH = 0x03, EX2 = 0x05, LG2 = 0x06, MUL = 0x08, SGE = 0x09, SLT = 0x0A,
       FLR = 0x0B, MAX = 0x0C, MIN = 0x0D, RCP = 0x0E, RSQ = 0x0F, MOVA = 0x12, MOV = 0x13, NOP = 0x21, END = 0x22,
       CALL = 0x24, IFU = 0x27, LOOP = 0x29 };
static uint32_t f1(uint32_t op, uint32_t dst, uint32_t src1, uint32_t idx, uint32_t src2, uint32_t desc)
{
    return op << 26 | dst << 21 | idx << 19 | src1 << 12 | src2 << 7 | desc;
}
static uint32_t f5(uint32_t dst, uint32_t src1, uint32_t src2, uint32_t idx, uint32_t src3, uint32_t desc)
{
    return 7u << 29 | dst << 24 | idx << 22 | src1 << 17 | src2 << 10 | src3 << 5 | desc;
}
static uint32_t f3(uint32_t op, uint32_t dst, uint32_t num, uint32_t id)
{
    return op << 26 | id << 22 | dst << 10 | num;
}
static uint32_t opdesc(uint32_t mask, uint32_t s1, int n1, uint32_t s2, int n2, uint32_t s3, int n3)
{
    return mask | (uint32_t)(n1 != 0) << 4 | s1 << 5 | (uint32_t)(n2 != 0) << 13 | s2 << 14 |
           (uint32_t)(n3 != 0) << 22 | s3 << 23;
}

/* ---- one random case, written identically into both contexts ---- */

typedef struct scene {
    uint32_t code[128], n_code, desc[32];
    float c[96][4];
    uint32_t ints[4], bools;
    uint32_t regs[64][2], n_regs;  /* attribute and draw registers */
    uint32_t fixed[12][4];         /* f24 */
    uint32_t fixed_mask;
    uint8_t mem[65536];            /* at VB: 3 buffers of 40 vertices of at most 8 * 16 + 4 * 16 + 8 bytes, indices */
    uint32_t mem_len;
} scene;
static scene S;

static void put_reg(uint32_t id, uint32_t v)
{
    S.regs[S.n_regs][0] = id, S.regs[S.n_regs][1] = v, S.n_regs++;
}

static float rnd_f(float lo, float hi) { return lo + (hi - lo) * (float)(th_rand() % 100001) / 100000.0f; }
static uint32_t rnd_src(unsigned attribs)
{
    uint32_t k = th_rand() % 3;
    return k == 0 ? th_rand() % 16 : k == 1 ? 0x10u + th_rand() % 16 : 0x20u + 8 + th_rand() % 88;
    (void)attribs;
}

/* A random ALU instruction into r0-r15 or o1-o3 (o0 is the position). */
static uint32_t rnd_alu(void)
{
    static const uint32_t ops[] = {ADD, DP3, DP4, DPH, EX2, LG2, MUL, SGE, SLT, FLR, MAX, MIN, RCP, RSQ, MOV, MOV, 0x38};
    uint32_t op = ops[th_rand() % (sizeof ops / sizeof ops[0])];
    uint32_t dst = th_rand() % 3 ? 0x10u + th_rand() % 16 : 1 + th_rand() % 3;
    uint32_t d = 1 + th_rand() % 15, idx = th_rand() % 4 == 0 ? 1 + th_rand() % 3 : 0;
    uint32_t s2 = th_rand() & 1 ? th_rand() % 16 : 0x10u + th_rand() % 16;
    if (op == 0x38)
        return f5(dst, s2, rnd_src(0), idx, th_rand() % 16, d);
    return f1(op, dst, rnd_src(0), idx, s2, d);
}

static void gen_program(void)
{
    uint32_t *c = S.code, n = 0;
    /* position: o0 = M v0 (DP4 per component, descriptors 16-19 mask x, y, z, w) */
    for (uint32_t i = 0; i < 4; i++)
        c[n++] = f1(DP4, 0, 0x20u + i, 0, 0, 16 + i);
    c[n++] = f1(MOVA, 0, 0x20u + 7, 0, 0, 20); /* a0.xy from c7 (small integers) */
    uint32_t len = th_rand_range(3, 20);
    bool flat = th_rand() % 4 == 0; /* no flow: glsl_vs.c's straight-line emission */
    straight_cases += flat;
    looped = !flat && th_rand() % 3 == 0; /* LOOPs only: straight emission with GLSL loops */
    for (uint32_t k = 0; k < len; k++) {
        uint32_t choice = flat ? 9 : th_rand() % 10;
        if (looped && choice != 1)
            choice = th_rand() % 3 ? 9 : 1;
        if (choice == 0) { /* IFU b, then/else of one instruction each */
            uint32_t at = n++;
            c[n++] = rnd_alu();
            c[n++] = rnd_alu();
            c[at] = f3(IFU, at + 2, 1, th_rand() % 16);
        } else if (choice == 1) { /* LOOP i over two instructions (aL-relative sources inside) */
            uint32_t at = n++;
            c[n++] = rnd_alu();
            c[n++] = f1(ADD, 0x10u + th_rand() % 16, 0x20u + 8, 3, 0x10u + th_rand() % 16, 1);
            c[at] = f3(LOOP, n - 1, 0, th_rand() % 4);
        } else if (choice == 2) { /* CALL of the subroutine at 100 */
            c[n++] = f3(CALL, 100, 3, 0);
        } else {
            c[n++] = rnd_alu();
        }
    }
    c[n++] = f1(MOV, 1, 0x10u + th_rand() % 16, 0, 0, th_rand() % 16); /* colour */
    c[n++] = (uint32_t)END << 26;
    for (uint32_t i = 0; i < 3; i++) /* the subroutine */
        c[100 + i] = rnd_alu();
    S.n_code = 103;
    /* descriptors: 0 identity, 1-15 random, 16-19 one component, 20 xy */
    S.desc[0] = opdesc(0xF, 0x1B, 0, 0x1B, 0, 0x1B, 0);
    for (uint32_t d = 1; d < 16; d++)
        S.desc[d] = opdesc(th_rand() % 4 ? 0xF : th_rand() % 16, th_rand() & 0xFF, th_rand() % 4 == 0,
                           th_rand() & 0xFF, th_rand() % 4 == 0, th_rand() & 0xFF, th_rand() % 4 == 0);
    for (uint32_t i = 0; i < 4; i++)
        S.desc[16 + i] = opdesc(8u >> i, 0x1B, 0, 0x1B, 0, 0x1B, 0);
    S.desc[20] = opdesc(0xC, 0x1B, 0, 0x1B, 0, 0x1B, 0);
}

/* Attribute 0 is the position (scaled to about [-1.2, 1.2] by c0-c3);
 * attributes 1.. are anything.  Returns the vertex count the buffers hold. */
static uint32_t gen_attributes(bool *misaligned)
{
    static const uint32_t size[4] = {1, 1, 2, 4};
    uint32_t attribs = th_rand_range(1, 8);
    uint32_t type[12], comps[12];
    uint32_t low = 0, high = (attribs - 1) << 28;
    for (uint32_t i = 0; i < attribs; i++) {
        type[i] = th_rand() % 4;
        comps[i] = th_rand_range(i == 0 ? 2 : 1, 4);
        uint32_t f = type[i] | (comps[i] - 1) << 2;
        if (i < 8)
            low |= f << (4 * i);
        else
            high |= f << (4 * (i - 8));
    }
    /* the position's scale into c0-c3 (a matrix close to the identity) */
    float scale = type[0] == 3 ? 1.0f : type[0] == 2 ? 1.0f / 1000 : type[0] == 1 ? 1.0f / 100 : 1.0f / 100;
    float shift = type[0] == 1 ? -1.2f : 0.0f;
    memset(S.c, 0, sizeof S.c);
    for (uint32_t r = 0; r < 4; r++)
        for (uint32_t k = 0; k < 4; k++)
            S.c[r][k] = r == k ? (r == 3 ? 1.0f : scale) : (r < 2 && k < 3 ? rnd_f(-0.1f, 0.1f) * scale : 0.0f);
    S.c[0][3] = shift, S.c[1][3] = shift;
    if (comps[0] < 4) /* w defaults to 1 */
        S.c[3][3] = 1.0f;
    S.c[2][2] = 0.0f, S.c[2][3] = -0.5f; /* z inside the clip volume */
    S.c[7][0] = (float)th_rand_range(0, 4), S.c[7][1] = (float)th_rand_range(0, 4);
    for (uint32_t i = 8; i < 96; i++)
        for (uint32_t k = 0; k < 4; k++)
            S.c[i][k] = th_rand() % 8 ? rnd_f(-3, 3) : (float)(th_rand() % 5);
    /* loaders: attributes dealt over 1-3 buffers; some attributes fixed instead */
    uint32_t nbuf = th_rand_range(1, 3), in_buf[12], order[3][12], cnt[3] = {0};
    S.fixed_mask = 0;
    for (uint32_t i = 0; i < attribs; i++) {
        in_buf[i] = i && th_rand() % 5 == 0 ? 99 : th_rand() % nbuf;
        if (in_buf[i] == 99) {
            S.fixed_mask |= 1u << i;
            for (int k = 0; k < 4; k++) {
                float v = rnd_f(-2, 2);
                uint32_t b;
                memcpy(&b, &v, 4);
                S.fixed[i][k] = pvk_f32_to_f24(b);
            }
            continue;
        }
        if (th_rand() % 4 == 0 && cnt[in_buf[i]] < 11)
            order[in_buf[i]][cnt[in_buf[i]]++] = 12 + th_rand() % 4; /* padding */
        order[in_buf[i]][cnt[in_buf[i]]++] = i;
    }
    if (!cnt[0]) /* loader 0 always exists: the position is in it unless fixed (never) */
        order[0][cnt[0]++] = 12;
    high |= S.fixed_mask << 16;
    put_reg(PVK_GPUREG_ATTRIBBUFFERS_LOC, VB >> 3);
    put_reg(PVK_GPUREG_ATTRIBBUFFERS_FORMAT_LOW, low);
    put_reg(PVK_GPUREG_ATTRIBBUFFERS_FORMAT_HIGH, high);
    uint32_t verts = 40, at = 0;
    *misaligned = false;
    for (uint32_t b = 0; b < 3; b++) {
        uint32_t id = PVK_GPUREG_ATTRIBBUFFER0_OFFSET + 3 * b;
        if (b >= nbuf || !cnt[b]) {
            put_reg(id + 2, 0);
            continue;
        }
        /* the layout by the loader's rules, to fill the bytes */
        uint32_t pos = 0, off[12] = {0};
        for (uint32_t k = 0; k < cnt[b]; k++) {
            uint32_t e = order[b][k];
            if (e >= 12) {
                pos = ((pos + 3) & ~3u) + (e - 11) * 4;
                continue;
            }
            pos = (pos + size[type[e]] - 1) & ~(size[type[e]] - 1);
            off[e] = pos;
            pos += size[type[e]] * comps[e];
        }
        uint32_t stride = ((pos + 3) & ~3u) + (th_rand() % 3 == 0 ? 4 * (th_rand() % 3) : 0);
        if (th_rand() % 6 == 0) /* sometimes as tight as the loader allows, aligned or not */
            stride = pos;
        uint32_t boff = at + (th_rand() % 8 == 0 ? th_rand() % 4 : 0);
        if (boff + verts * stride + 256 > sizeof S.mem) { /* cannot happen with these sizes */
            CHECK(!"vertex bytes fit the scene's memory");
            stride = 0;
        }
        for (uint32_t e = 0; e < attribs; e++)
            if (in_buf[e] == b && type[e] > 1 && ((boff + off[e]) % size[type[e]] || stride % size[type[e]]))
                *misaligned = true;
        uint32_t c1 = 0, c2 = stride << 16 | cnt[b] << 28;
        for (uint32_t k = 0; k < cnt[b]; k++)
            if (k < 8)
                c1 |= order[b][k] << (4 * k);
            else
                c2 |= order[b][k] << (4 * (k - 8));
        put_reg(id, boff);
        put_reg(id + 1, c1);
        put_reg(id + 2, c2);
        if (boff + verts * stride + 256 > sizeof S.mem) { /* cannot with these limits; says so if they change */
            fprintf(stderr, "test_vs_draw: scene bytes overflow\n");
            exit(1);
        }
        /* bytes: random, the position's components in range */
        for (uint32_t v = 0; v < verts; v++) {
            uint8_t *p = S.mem + boff + v * stride;
            for (uint32_t k = 0; k < stride; k++)
                p[k] = (uint8_t)th_rand();
            for (uint32_t e = 0; e < attribs; e++) {
                if (in_buf[e] != b)
                    continue;
                for (uint32_t k = 0; k < comps[e]; k++) {
                    uint8_t *q = p + off[e] + k * size[type[e]];
                    if (type[e] == 3) {
                        float f = e == 0 ? rnd_f(-1.2f, 1.2f) : th_rand() % 8 ? rnd_f(-4, 4) : 0.0f;
                        memcpy(q, &f, 4);
                    } else if (type[e] == 2 && e == 0) {
                        int16_t s = (int16_t)((int32_t)th_rand_range(0, 2400) - 1200);
                        memcpy(q, &s, 2);
                    } else if (type[e] == 0 && e == 0) {
                        q[0] = (uint8_t)(int8_t)((int32_t)th_rand_range(0, 240) - 120);
                    } else if (type[e] == 1 && e == 0) {
                        q[0] = (uint8_t)th_rand_range(0, 240);
                    }
                }
            }
        }
        at = (boff + verts * stride + 64) & ~15u;
    }
    S.mem_len = at + 64;
    /* input registers: a permutation, sometimes two attributes on one register */
    uint32_t perm[12], regs16[16];
    for (uint32_t i = 0; i < 16; i++)
        regs16[i] = i;
    for (uint32_t i = 15; i > 0; i--) {
        uint32_t j = th_rand() % (i + 1), t = regs16[i];
        regs16[i] = regs16[j], regs16[j] = t;
    }
    for (uint32_t i = 0; i < 12; i++)
        perm[i] = i && th_rand() % 10 == 0 ? regs16[th_rand() % 16] : regs16[i];
    /* the program reads the position from v0: put attribute 0 there */
    for (uint32_t i = 1; i < 12; i++)
        if (perm[i] == perm[0])
            perm[i] = 15;
    uint32_t p = perm[0];
    for (uint32_t i = 0; i < 12; i++)
        perm[i] = perm[i] == p ? 0 : perm[i] == 0 ? p : perm[i];
    uint32_t plo = 0, phi = 0;
    for (uint32_t i = 0; i < 12; i++)
        if (i < 8)
            plo |= perm[i] << (4 * i);
        else
            phi |= perm[i] << (4 * (i - 8));
    put_reg(PVK_GPUREG_VSH_NUM_ATTR, attribs - 1);
    put_reg(PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_LOW, plo);
    put_reg(PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_HIGH, phi);
    return verts;
}

static void gen_scene(uint64_t seed, bool *misaligned)
{
    th_rng = seed;
    memset(&S, 0, sizeof S);
    gen_program();
    uint32_t verts = gen_attributes(misaligned);
    for (uint32_t i = 0; i < 4; i++)
        S.ints[i] = th_rand_range(0, 3) | th_rand_range(0, 4) << 8 | (th_rand() % 3) << 16;
    if (looped) { /* counts to 255, any start, steps that wrap */
        for (uint32_t i = 0; i < 4; i++)
            S.ints[i] = (th_rand() % 3 ? th_rand_range(0, 6) : 255 - th_rand() % 3) | (th_rand() & 0xFF) << 8 |
                        (th_rand() % 2 ? 256 - th_rand_range(1, 3) : th_rand() & 0xFF) << 16;
        /* the program takes that emission */
        static uint32_t code[PVK_SH_CODE_WORDS], desc[PVK_SH_OPDESCS];
        memcpy(code, S.code, sizeof S.code);
        memcpy(desc, S.desc, sizeof S.desc);
        pvk_vs_program prog = {code, desc, 0, 0};
        char *src = NULL;
        pvk_glsl_vs_stats st = {0};
        CHECK_EQ(pvk_glsl_vertex_program(&prog, &src, &st), PVK_SUCCESS);
        free(src);
        CHECK(st.straight);
        loop_cases += st.loops > 0;
    }
    S.bools = th_rand() & 0xFFFF;
    /* the output map: o0 position, o1 colour (components in some order), o2/o3 texture coordinates and view */
    static const uint32_t colour_maps[] = {0x0B0A0908, 0x08090A0B, 0x0B09080A, 0x1F0A0908};
    put_reg(PVK_GPUREG_VSH_OUTMAP_MASK, 0xF);
    put_reg(PVK_GPUREG_SH_OUTMAP_TOTAL, 4);
    put_reg(PVK_GPUREG_SH_OUTMAP_O0, 0x03020100);
    put_reg(PVK_GPUREG_SH_OUTMAP_O0 + 1, colour_maps[th_rand() % 4]);
    put_reg(PVK_GPUREG_SH_OUTMAP_O0 + 2, 0x0F0E0D0C);
    put_reg(PVK_GPUREG_SH_OUTMAP_O0 + 3, th_rand() & 1 ? 0x1F141312 : 0x07060504);
    /* the draw */
    uint32_t mode = th_rand() % 4, n = th_rand_range(3, 36);
    put_reg(PVK_GPUREG_PRIMITIVE_CONFIG, mode << 8 | 3);
    put_reg(PVK_GPUREG_NUMVERTICES, n);
    if (th_rand() & 1) {
        put_reg(PVK_GPUREG_VERTEX_OFFSET, th_rand_range(0, verts - n));
        put_reg(PVK_GPUREG_DRAWARRAYS, 1);
    } else {
        bool u16 = th_rand() & 1;
        uint32_t ib = (S.mem_len + 15) & ~15u, odd = u16 && th_rand() % 4 == 0;
        ib += odd;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t x = th_rand() % verts;
            if (u16)
                S.mem[ib + 2 * i] = (uint8_t)x, S.mem[ib + 2 * i + 1] = 0;
            else
                S.mem[ib + i] = (uint8_t)x;
        }
        S.mem_len = ib + 2 * n + 16;
        put_reg(PVK_GPUREG_INDEXBUFFER_CONFIG, ib | (u16 ? 1u << 31 : 0));
        put_reg(PVK_GPUREG_DRAWELEMENTS, 1);
    }
}

static void apply(pvk_context *c, const uint8_t *clear)
{
    ctx = c;
    reg(PVK_GPUREG_VSH_CODETRANSFER_CONFIG, 0);
    for (uint32_t i = 0; i < S.n_code; i++)
        reg(PVK_GPUREG_VSH_CODETRANSFER_DATA, S.code[i]);
    reg(PVK_GPUREG_VSH_CODETRANSFER_END, 1);
    reg(PVK_GPUREG_VSH_OPDESCS_CONFIG, 0);
    for (uint32_t i = 0; i < 32; i++)
        reg(PVK_GPUREG_VSH_OPDESCS_DATA, S.desc[i]);
    for (uint32_t i = 0; i < 96; i++) {
        reg(PVK_GPUREG_VSH_FLOATUNIFORM_CONFIG, 0x80000000u | i);
        for (int k = 3; k >= 0; k--) {
            uint32_t b;
            memcpy(&b, &S.c[i][k], 4);
            reg(PVK_GPUREG_VSH_FLOATUNIFORM_DATA, b);
        }
    }
    for (uint32_t i = 0; i < 4; i++)
        reg(PVK_GPUREG_VSH_INTUNIFORM_I0 + i, S.ints[i]);
    reg(PVK_GPUREG_VSH_BOOLUNIFORM, 0x7FFF0000u | S.bools);
    reg(PVK_GPUREG_VSH_ENTRYPOINT, 0x7FFF0000u);
    reg(PVK_GPUREG_VSH_INPUTBUFFER_CONFIG, 0xA0000000u | 7);
    for (uint32_t i = 0; i < 12; i++)
        if (S.fixed_mask & (1u << i)) {
            uint32_t w[3];
            pvk_pack_f24x4(S.fixed[i], w);
            reg(PVK_GPUREG_FIXEDATTRIB_INDEX, i);
            for (int k = 0; k < 3; k++)
                reg(PVK_GPUREG_FIXEDATTRIB_DATA0 + (uint32_t)k, w[k]);
        }
    uint8_t *fb = pvk_guest_ptr(c, FB, W * H * 4);
    CHECK_EQ(pvk_wait_idle(c), PVK_SUCCESS);
    for (uint32_t i = 0; i < W * H; i++)
        memcpy(fb + 4 * i, clear, 4);
    pvk_guest_written(c, FB, W * H * 4);
    memcpy(pvk_guest_ptr(c, VB, sizeof S.mem), S.mem, sizeof S.mem);
    pvk_guest_written(c, VB, sizeof S.mem);
    for (uint32_t i = 0; i < S.n_regs; i++)
        reg(S.regs[i][0], S.regs[i][1]);
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

static void one_case(uint64_t seed)
{
    bool misaligned;
    gen_scene(seed, &misaligned);
    static const uint8_t clear[4] = {0x11, 0x22, 0x33, 0x44};
    uint64_t before = gpu->pica.counters.gpu_vertices;
    apply(gpu, clear);
    bool on_gpu = gpu->pica.counters.gpu_vertices != before;
    apply(cpu, clear);
    static uint8_t a[W * H * 4], b[W * H * 4];
    ctx = gpu;
    copy_out(a, FB);
    ctx = cpu;
    copy_out(b, FB);
    int d = differ(a, b, sizeof a);
    uint32_t covered = 0; /* pixels the draw changed: a case that draws nothing proves little */
    for (uint32_t i = 0; i < W * H; i++)
        covered += memcmp(a + 4 * i, clear, 4) != 0;
    drawn_cases += covered > 0;
    cases++;
    gpu_cases += on_gpu;
    fallback_cases += !on_gpu;
    CHECK_EQ(cpu->pica.counters.gpu_vertices, 0);
    if (!misaligned)
        CHECK(on_gpu); /* aligned attributes: the GPU path takes every such draw */
    if (d)
        fprintf(stderr, "case %llx (%s): %d bytes differ\n", (unsigned long long)seed, on_gpu ? "GPU" : "CPU", d);
    CHECK_EQ(d, 0);
}

/* Vertices that fail on the GPU path (issue 13): a runaway program (a tight
 * endless loop, which meets the dispatcher's block limit, and one of long
 * blocks, which meets the step budget first)
 * and an undefined opcode each give one logged error naming the draw and
 * one count of bad input once the draw is done; a good program none.
 * Without vertexPipelineStoresAndAtomics such draws take the CPU path,
 * which reports the runaway itself. */
static void test_bad_vertices(pvk_context *c)
{
    ctx = c;
    static const float vb[3][8] = {{-1, -1, -0.5f, 1, 1, 0, 0, 1}, {1, -1, -0.5f, 1, 0, 1, 0, 1},
                                   {0, 1, -0.5f, 1, 0, 0, 1, 1}};
    CHECK_EQ(pvk_wait_idle(c), PVK_SUCCESS);
    memcpy(pvk_guest_ptr(c, VB, sizeof vb), vb, sizeof vb);
    pvk_guest_written(c, VB, sizeof vb);
    upload_shader();
    setup_attribs();
    reg(PVK_GPUREG_VSH_BOOLUNIFORM, 0x7FFF0000u); /* b0 false */
    const uint32_t mov0 = 0x13u << 26 | 0u << 21 | 0u << 12, mov1 = 0x13u << 26 | 1u << 21 | 1u << 12;
    const uint32_t jmpu0 = 0x2Du << 26 | 0u << 22 | 0u << 10 | 1u; /* b0 != NUM bit 0: back to 0, always */
    static uint32_t code[4][72];
    uint32_t len[4];
    const char *want[4] = {NULL, "runaway program stopped", "runaway program stopped", "undefined opcode"};
    len[0] = 0, code[0][len[0]++] = mov0, code[0][len[0]++] = mov1, code[0][len[0]++] = 0x22u << 26;
    len[1] = 0, code[1][len[1]++] = mov0, code[1][len[1]++] = mov1, code[1][len[1]++] = jmpu0;
    code[1][len[1]++] = 0x22u << 26; /* END after the jump: never reached, ends what the translator follows */
    len[2] = 0; /* blocks of 70: the step budget (2^20) before the dispatcher's block limit */
    for (uint32_t i = 0; i < 69; i++)
        code[2][len[2]++] = i & 1 ? mov1 : mov0;
    code[2][len[2]++] = jmpu0;
    code[2][len[2]++] = 0x22u << 26;
    len[3] = 0, code[3][len[3]++] = mov0, code[3][len[3]++] = mov1, code[3][len[3]++] = 0x10u << 26;
    for (int p = 0; p < 4; p++) {
        reg(PVK_GPUREG_VSH_CODETRANSFER_CONFIG, 0);
        for (uint32_t i = 0; i < len[p]; i++)
            reg(PVK_GPUREG_VSH_CODETRANSFER_DATA, code[p][i]);
        reg(PVK_GPUREG_VSH_CODETRANSFER_END, 1);
        uint64_t gv = c->pica.counters.gpu_vertices, bad = stats().bad_input;
        int errors = th_log_errors;
        th_quiet_errors = want[p] != NULL;
        draw_arrays(0, 3);
        th_quiet_errors = 0;
        CHECK_EQ(c->pica.counters.gpu_vertices, gv + 3); /* the GPU path ran it */
        CHECK_EQ(stats().bad_input, bad + (want[p] ? 1 : 0));
        CHECK_EQ(th_log_errors, errors + (want[p] ? 1 : 0));
        if (want[p]) {
            CHECK(strstr(th_last_error, want[p]) && strstr(th_last_error, "draw "));
            printf("  bad vertices on the GPU: %s\n", th_last_error);
        }
    }
    /* One batch: good draws around a runaway one, none waited for.  Each
     * draw has its own status entry (firstInstance) in the batch's shared
     * binding: only the runaway draw is reported, by its number. */
    {
        uint64_t bad = stats().bad_input;
        int errors = th_log_errors;
        uint64_t runaway_seq = 0;
        th_quiet_errors = 1;
        reg(PVK_GPUREG_PRIMITIVE_CONFIG, 1);
        reg(PVK_GPUREG_NUMVERTICES, 3);
        reg(PVK_GPUREG_VERTEX_OFFSET, 0);
        for (int k = 0; k < 7; k++) {
            int p = k == 4 ? 1 : 0;
            reg(PVK_GPUREG_VSH_CODETRANSFER_CONFIG, 0);
            for (uint32_t i = 0; i < len[p]; i++)
                reg(PVK_GPUREG_VSH_CODETRANSFER_DATA, code[p][i]);
            reg(PVK_GPUREG_VSH_CODETRANSFER_END, 1);
            reg(PVK_GPUREG_DRAWARRAYS, 1);
            if (p)
                runaway_seq = c->pica.counters.draws; /* the draw's number (translator/vertex.c submit) */
        }
        CHECK_EQ(pvk_wait_idle(c), PVK_SUCCESS);
        th_quiet_errors = 0;
        CHECK_EQ(stats().bad_input, bad + 1);
        CHECK_EQ(th_log_errors, errors + 1);
        char name[40];
        snprintf(name, sizeof name, "draw %llu:", (unsigned long long)runaway_seq);
        CHECK(strstr(th_last_error, "runaway") && strstr(th_last_error, name));
        printf("  a runaway draw among good ones in one batch: %s\n", th_last_error);
    }
    /* without vertex-stage stores: the CPU path, which stops the list at the runaway */
    c->gpu.vertex_stores = false;
    reg(PVK_GPUREG_VSH_CODETRANSFER_CONFIG, 0);
    for (uint32_t i = 0; i < len[1]; i++)
        reg(PVK_GPUREG_VSH_CODETRANSFER_DATA, code[1][i]);
    reg(PVK_GPUREG_VSH_CODETRANSFER_END, 1);
    uint64_t gv = c->pica.counters.gpu_vertices, bad = stats().bad_input;
    th_quiet_errors = 1;
    reg(PVK_GPUREG_PRIMITIVE_CONFIG, 1);
    reg(PVK_GPUREG_NUMVERTICES, 3);
    reg(PVK_GPUREG_VERTEX_OFFSET, 0);
    pvk_mmio_write32(c, 0x10401000u + 4 * PVK_GPUREG_DRAWARRAYS, 1); /* the CPU path's error stops the list */
    CHECK_EQ(pvk_wait_idle(c), PVK_SUCCESS);
    th_quiet_errors = 0;
    CHECK_EQ(c->pica.counters.gpu_vertices, gv);
    CHECK_EQ(stats().bad_input, bad + 1);
    CHECK(strstr(th_last_error, "runaway"));
    c->gpu.vertex_stores = true;
}

/* Strips and fans whose triangles cross the clip volume's sides (issue 25,
 * tests/fuzz/corpus/fuzz_vs_paths/found-strip-clipped-odd-triangle): the
 * rasterizer's clipping rounds by the order of a triangle's vertices, so the
 * GPU path must hand it the CPU path's assembled list (odd strip triangles
 * (i+1, i, i+2), fan triangles (0, i+1, i+2)), not Vulkan's strip and fan
 * orders ((i, i+2, i+1) and (i+1, i+2, 0)), which differed in single colour
 * steps.  A pass-through program (the outputs are the attributes, exact on
 * both paths), colours with low bits set, DRAWARRAYS and DRAWELEMENTS, some
 * with face culling (the winding is the CPU path's too). */
static void test_strip_fan_clipped(void)
{
    enum { N = 40, DRAWS = 24 };
    static const uint8_t clear[4] = {0x11, 0x22, 0x33, 0x44};
    static uint8_t a[W * H * 4], b[W * H * 4];
    unsigned diffs = 0, drawn = 0;
    uint64_t gv0 = gpu->pica.counters.gpu_vertices;
    th_rng = 0xC11990DDull;
    for (unsigned k = 0; k < DRAWS; k++) {
        static float vb[N][8];
        static uint16_t ib[N];
        for (unsigned i = 0; i < N; i++) {
            float w = 0.6f + (float)(th_rand() % 1000) / 1000.0f;
            /* x, y over -1.7..1.7 of w: many vertices outside a side plane */
            vb[i][0] = w * (-1.7f + 3.4f * (float)(th_rand() % 100000) / 100000.0f);
            vb[i][1] = w * (-1.7f + 3.4f * (float)(th_rand() % 100000) / 100000.0f);
            vb[i][2] = -0.5f * w, vb[i][3] = w;
            for (int c = 0; c < 4; c++)
                vb[i][4 + c] = (float)(th_rand() % 100000) / 100000.0f;
            ib[i] = (uint16_t)(th_rand() % N);
        }
        uint32_t mode = 1 + k % 2, cull = k % 6 < 4 ? 0 : 1 + k % 2; /* strip, fan; none, front, back */
        bool elements = k % 4 >= 2;
        for (int p = 0; p < 2; p++) {
            ctx = p ? cpu : gpu;
            CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
            uint8_t *fb = pvk_guest_ptr(ctx, FB, W * H * 4);
            for (uint32_t i = 0; i < W * H; i++)
                memcpy(fb + 4 * i, clear, 4);
            pvk_guest_written(ctx, FB, W * H * 4);
            memcpy(pvk_guest_ptr(ctx, VB, sizeof vb), vb, sizeof vb);
            memcpy(pvk_guest_ptr(ctx, VB + 0x1000, sizeof ib), ib, sizeof ib);
            pvk_guest_written(ctx, VB, 0x1000 + sizeof ib);
            upload_shader();
            setup_attribs();
            reg(PVK_GPUREG_FACECULLING_CONFIG, cull);
            reg(PVK_GPUREG_PRIMITIVE_CONFIG, mode << 8 | 1);
            reg(PVK_GPUREG_NUMVERTICES, N);
            if (elements) {
                reg(PVK_GPUREG_INDEXBUFFER_CONFIG, 0x1000u | 1u << 31);
                reg(PVK_GPUREG_DRAWELEMENTS, 1);
            } else {
                reg(PVK_GPUREG_VERTEX_OFFSET, 0);
                reg(PVK_GPUREG_DRAWARRAYS, 1);
            }
            reg(PVK_GPUREG_FACECULLING_CONFIG, 0);
            copy_out(p ? b : a, FB);
        }
        uint32_t covered = 0;
        for (uint32_t i = 0; i < W * H; i++)
            covered += memcmp(a + 4 * i, clear, 4) != 0;
        drawn += covered > 0;
        int d = differ(a, b, sizeof a);
        if (d)
            fprintf(stderr, "  %s %s (cull %u): %d bytes differ\n", mode == 1 ? "strip" : "fan",
                    elements ? "elements" : "arrays", cull, d);
        diffs += d != 0;
    }
    printf("  clipped strips and fans: %u draws, %u drew pixels, %u differ\n", (unsigned)DRAWS, drawn, diffs);
    CHECK_EQ(gpu->pica.counters.gpu_vertices, gv0 + (uint64_t)DRAWS * N); /* all on the GPU path */
    CHECK_EQ(cpu->pica.counters.gpu_vertices, 0);
    CHECK(drawn == DRAWS);
    CHECK_EQ(diffs, 0);
}

int main(void)
{
    /* counters below say which path drew or what compiled when: builds on
     * the calling thread (tests/test_compile.c covers the compile threads) */
    setenv("PVK_COMPILE_THREADS", "0", 1);
    (void)unused_index;
    /* guest memory imported, then mirrored in device buffers (fewer cases) */
    for (int mirror = 0; mirror < 2; mirror++) {
        gpu = th_context(NULL, mirror);
        cpu = th_context_debug(NULL, "cpu-vs", mirror);
        setup(gpu);
        setup(cpu);
        if (!mirror)
            test_strip_fan_clipped(); /* first: the random cases leave other attribute buffers configured */
        cases = gpu_cases = fallback_cases = drawn_cases = straight_cases = loop_cases = 0;
        for (uint64_t k = 1; k <= (mirror ? 40u : 150u); k++)
            one_case(0x5EED0000ull + k * 0x9E3779B97F4A7C15ull);
        printf("  %s: %u draws (%u drew pixels, %u programs without flow, %u with LOOPs only), %u on the GPU path, "
               "%u declined (misaligned attributes)\n",
               mirror ? "mirrored memory" : "imported memory", cases, drawn_cases, straight_cases, loop_cases,
               gpu_cases, fallback_cases);
        CHECK(drawn_cases > cases / 2);
        CHECK(straight_cases > 0);
        CHECK(loop_cases > 0);
        if (!mirror)
            test_bad_vertices(gpu);
        th_release(gpu);
        th_release(cpu);
    }
    return th_finish("test_vs_draw");
}
