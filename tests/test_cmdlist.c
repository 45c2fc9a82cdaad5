/* The command-list processor, driven as a 3DS program would: command
 * buffers written into guest memory, started through the external registers
 * 0x104018E0/E8/F0, results read back through 0x10401000+4*id (and, for the
 * uploaded tables, from the translator state).  Masks, consecutive and
 * fixed-id writes, padding, channel jumps, every FIFO port, the P3D
 * interrupt, draw and cache triggers, dirty bits and every malformed case. */
#include <math.h>

#include "harness.h"
#include "runtime/runtime.h"

#define PAD 0xDEADBEEFu /* padding words are garbage on purpose */
#define REGS 0x10401000u

typedef struct lb {
    uint32_t w[8192];
    uint32_t n;
} lb;

static void put(lb *b, uint32_t id, uint32_t mask, int consecutive, uint32_t count, const uint32_t *prm)
{
    b->w[b->n++] = prm[0];
    b->w[b->n++] = pvk_cmd_header(id, mask, count - 1, consecutive);
    for (uint32_t i = 1; i < count; i++)
        b->w[b->n++] = prm[i];
    if ((count - 1) & 1)
        b->w[b->n++] = PAD;
}
static void w1(lb *b, uint32_t id, uint32_t v) { put(b, id, 0xF, 0, 1, &v); }
static void wm(lb *b, uint32_t id, uint32_t mask, uint32_t v) { put(b, id, mask, 0, 1, &v); }
/* FINALIZE as libctru ends a list, padded to 16 bytes with a second one. */
static void finish(lb *b)
{
    w1(b, PVK_GPUREG_FINALIZE, 0x12345678);
    if (b->n % 4)
        w1(b, PVK_GPUREG_FINALIZE, 0x12345678);
}

static uint32_t next_addr = PVK_FCRAM_BASE + 0x200000;
static uint32_t place(pvk_context *ctx, const lb *b)
{
    uint32_t addr = next_addr, bytes = b->n * 4;
    next_addr += ((bytes + 15) & ~15u) + 64;
    if (next_addr > PVK_FCRAM_BASE + 0x3000000)
        next_addr = PVK_FCRAM_BASE + 0x200000;
    memcpy(pvk_guest_ptr(ctx, addr, bytes ? bytes : 4), b->w, bytes);
    return addr;
}
static pvk_result kick(pvk_context *ctx, uint32_t addr, uint32_t bytes)
{
    pvk_mmio_write32(ctx, 0x104018E0, bytes >> 3);
    pvk_mmio_write32(ctx, 0x104018E8, addr >> 3);
    return pvk_mmio_write32(ctx, 0x104018F0, 1);
}
static pvk_result run(pvk_context *ctx, const lb *b) { return kick(ctx, place(ctx, b), b->n * 4); }
static uint32_t reg(pvk_context *ctx, uint32_t id)
{
    uint32_t v = 0;
    pvk_mmio_read32(ctx, REGS + 4 * id, &v);
    return v;
}
static void set(pvk_context *ctx, uint32_t id, uint32_t v) { pvk_mmio_write32(ctx, REGS + 4 * id, v); }
static uint32_t f32bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static float f24(uint32_t v)
{
    uint32_t u = pvk_f24_to_f32(v);
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static pvk_stats stats(pvk_context *ctx)
{
    pvk_stats s;
    pvk_get_stats(ctx, &s);
    return s;
}

static int irq_count;
static void on_irq(void *user, pvk_context *ctx, pvk_irq which)
{
    (void)user, (void)ctx;
    if (which == PVK_IRQ_P3D)
        irq_count++;
}
static uint32_t irq_flags(pvk_context *ctx)
{
    uint32_t v = 0;
    pvk_mmio_read32(ctx, 0x10400034, &v);
    return v;
}

/* ---- the translator's draw and cache callbacks, captured ---- */
static pvk_draw_packet draws[64];
static int draw_count, cache_ops[4];
static pvk_result draw_result;
static pvk_pica_env saved_env;
static pvk_result on_draw(void *user, const pvk_draw_packet *d)
{
    (void)user;
    if (draw_count < 64) {
        draws[draw_count] = *d;
        draws[draw_count].verts = NULL; /* not kept past the call */
        draws[draw_count].index = NULL;
    }
    draw_count++;
    return draw_result;
}
static pvk_result on_cache(void *user, pvk_pica_cache_op op)
{
    (void)user;
    cache_ops[op]++;
    return PVK_SUCCESS;
}
static void hooks_on(pvk_context *ctx)
{
    saved_env = ctx->pica.env;
    pvk_pica_env e = saved_env;
    e.draw = on_draw;
    e.cache = on_cache;
    pvk_pica_set_env(&ctx->pica, &e);
    draw_count = 0;
    draw_result = PVK_SUCCESS;
    memset(cache_ops, 0, sizeof cache_ops);
}

/* ---- tests ---- */

static void masks(pvk_context *ctx)
{
    for (uint32_t m = 0; m < 16; m++) {
        lb b = {0};
        w1(&b, PVK_GPUREG_BLEND_COLOR, 0x11223344);
        wm(&b, PVK_GPUREG_BLEND_COLOR, m, 0xAABBCCDD);
        finish(&b);
        CHECK_EQ(run(ctx, &b), PVK_SUCCESS);
        uint32_t want = 0;
        for (int i = 0; i < 4; i++)
            want |= ((m >> i) & 1 ? 0xAABBCCDDu : 0x11223344u) & (0xFFu << (8 * i));
        CHECK_EQ(reg(ctx, PVK_GPUREG_BLEND_COLOR), want);
    }
    /* the mask applies to every parameter of a command */
    lb b = {0};
    uint32_t three[3] = {0xA1A2A3A4, 0xB1B2B3B4, 0xC1C2C3C4};
    w1(&b, PVK_GPUREG_TEXENV0_SOURCE, 0x01010101);
    w1(&b, PVK_GPUREG_TEXENV0_OPERAND, 0x02020202);
    w1(&b, PVK_GPUREG_TEXENV0_COMBINER, 0x03030303);
    put(&b, PVK_GPUREG_TEXENV0_SOURCE, 0x9, 1, 3, three);
    finish(&b);
    CHECK_EQ(run(ctx, &b), PVK_SUCCESS);
    CHECK_EQ(reg(ctx, PVK_GPUREG_TEXENV0_SOURCE), 0xA10101A4);
    CHECK_EQ(reg(ctx, PVK_GPUREG_TEXENV0_OPERAND), 0xB10202B4);
    CHECK_EQ(reg(ctx, PVK_GPUREG_TEXENV0_COMBINER), 0xC10303C4);
}

static void consecutive_and_padding(pvk_context *ctx)
{
    /* 3dbrew's example: 0xAAAAAAAA 0x802F011C 0xBBBBBBBB 0xCCCCCCCC */
    lb b = {0};
    b.w[b.n++] = 0xAAAAAAAA;
    b.w[b.n++] = 0x802F011C;
    b.w[b.n++] = 0xBBBBBBBB;
    b.w[b.n++] = 0xCCCCCCCC; /* two extra parameters: four words, no padding */
    b.w[b.n++] = 0x00000777;
    b.w[b.n++] = pvk_cmd_header(PVK_GPUREG_LOGIC_OP, 0xF, 0, 0);
    finish(&b);
    CHECK_EQ(b.n % 4, 0);
    CHECK_EQ(run(ctx, &b), PVK_SUCCESS);
    CHECK_EQ(reg(ctx, 0x11C), 0xAAAAAAAA);
    CHECK_EQ(reg(ctx, 0x11D), 0xBBBBBBBB);
    CHECK_EQ(reg(ctx, 0x11E), 0xCCCCCCCC);
    CHECK_EQ(reg(ctx, PVK_GPUREG_LOGIC_OP), 0x777);

    /* the same words without the consecutive bit: all three go to 0x11C */
    b.n = 0;
    uint32_t p3[3] = {1, 2, 3};
    w1(&b, 0x11D, 0x55);
    put(&b, 0x11C, 0xF, 0, 3, p3);
    /* one extra parameter: three words, padded with garbage */
    uint32_t p2[2] = {0x10, 0x20};
    put(&b, PVK_GPUREG_SCISSORTEST_POS, 0xF, 1, 2, p2);
    CHECK_EQ(b.w[b.n - 1], PAD);
    w1(&b, PVK_GPUREG_VIEWPORT_XY, 0x30);
    finish(&b);
    CHECK_EQ(run(ctx, &b), PVK_SUCCESS);
    CHECK_EQ(reg(ctx, 0x11C), 3);
    CHECK_EQ(reg(ctx, 0x11D), 0x55);
    CHECK_EQ(reg(ctx, PVK_GPUREG_SCISSORTEST_POS), 0x10);
    CHECK_EQ(reg(ctx, PVK_GPUREG_SCISSORTEST_DIM), 0x20);
    CHECK_EQ(reg(ctx, PVK_GPUREG_VIEWPORT_XY), 0x30);

    /* 255 extra parameters, consecutive over 0x100-0x1FF (garbage into the
     * gas and lighting LUT ports on the way: overflows are expected) */
    b.n = 0;
    uint32_t many[256];
    for (int i = 0; i < 256; i++)
        many[i] = 0x1000 + i;
    put(&b, 0x100, 0xF, 1, 256, many);
    finish(&b);
    th_quiet_errors = 1;
    CHECK_EQ(run(ctx, &b), PVK_SUCCESS);
    th_quiet_errors = 0;
    CHECK_EQ(reg(ctx, 0x101), 0x1001);
    CHECK_EQ(reg(ctx, 0x1FF), 0x10FF);
}

static void jumps(pvk_context *ctx)
{
    /* A (channel 0) loads channel 1 with B and jumps; B loads channel 0 with C
     * and jumps back; C finishes.  Nothing after a jump in A or B runs. */
    lb a = {0}, bb = {0}, c = {0};
    w1(&c, PVK_GPUREG_STENCIL_OP, 0xC);
    finish(&c);
    uint32_t c_addr = place(ctx, &c);
    w1(&bb, PVK_GPUREG_STENCIL_TEST, 0xB);
    w1(&bb, PVK_GPUREG_CMDBUF_SIZE0, (c.n * 4) >> 3);
    w1(&bb, PVK_GPUREG_CMDBUF_ADDR0, c_addr >> 3);
    w1(&bb, PVK_GPUREG_CMDBUF_JUMP0, 1);
    w1(&bb, PVK_GPUREG_STENCIL_OP, 0xBAD);
    finish(&bb);
    uint32_t b_addr = place(ctx, &bb);
    w1(&a, PVK_GPUREG_DEPTH_COLOR_MASK, 0xA);
    w1(&a, PVK_GPUREG_CMDBUF_SIZE1, (bb.n * 4) >> 3);
    w1(&a, PVK_GPUREG_CMDBUF_ADDR1, b_addr >> 3);
    w1(&a, PVK_GPUREG_CMDBUF_JUMP1, 0x12345678); /* any value jumps */
    w1(&a, PVK_GPUREG_STENCIL_TEST, 0xBAD);
    finish(&a);
    set(ctx, PVK_GPUREG_STENCIL_OP, 0);
    int irqs = irq_count;
    uint64_t lists = stats(ctx).command_lists;
    uint64_t jumps_before = ctx->pica.counters.jumps;
    CHECK_EQ(run(ctx, &a), PVK_SUCCESS);
    CHECK_EQ(reg(ctx, PVK_GPUREG_DEPTH_COLOR_MASK), 0xA);
    CHECK_EQ(reg(ctx, PVK_GPUREG_STENCIL_TEST), 0xB);
    CHECK_EQ(reg(ctx, PVK_GPUREG_STENCIL_OP), 0xC);
    CHECK_EQ(irq_count - irqs, 1);
    CHECK_EQ(stats(ctx).command_lists - lists, 1);
    CHECK_EQ(ctx->pica.counters.jumps - jumps_before, 2);
    /* the start bit reads 0 once done */
    CHECK_EQ(reg(ctx, PVK_GPUREG_CMDBUF_JUMP0), 0);
    CHECK_EQ(reg(ctx, PVK_GPUREG_CMDBUF_JUMP1), 0);
    /* a CPU write without bit 0 starts nothing */
    lists = stats(ctx).command_lists;
    CHECK_EQ(pvk_mmio_write32(ctx, 0x104018F0, 2), PVK_SUCCESS);
    CHECK_EQ(stats(ctx).command_lists, lists);
    /* channel 1 started by the CPU through 0x104018F4 */
    set(ctx, PVK_GPUREG_CMDBUF_SIZE1, (c.n * 4) >> 3);
    set(ctx, PVK_GPUREG_CMDBUF_ADDR1, c_addr >> 3);
    set(ctx, PVK_GPUREG_STENCIL_OP, 0);
    CHECK_EQ(pvk_mmio_write32(ctx, 0x104018F4, 1), PVK_SUCCESS);
    CHECK_EQ(reg(ctx, PVK_GPUREG_STENCIL_OP), 0xC);
    /* the public entry point */
    set(ctx, PVK_GPUREG_STENCIL_OP, 0);
    CHECK_EQ(pvk_command_list_run(ctx, c_addr, c.n * 4), PVK_SUCCESS);
    CHECK_EQ(reg(ctx, PVK_GPUREG_STENCIL_OP), 0xC);
}

static void interrupts(pvk_context *ctx)
{
    pvk_pica_reset(&ctx->pica);
    CHECK_EQ(irq_flags(ctx) >> 31, 0);
    /* FINALIZE raises P3D and (autostop) ends the list */
    lb b = {0};
    w1(&b, PVK_GPUREG_LOGIC_OP, 1);
    w1(&b, PVK_GPUREG_FINALIZE, 0x12345678);
    w1(&b, PVK_GPUREG_LOGIC_OP, 2);
    w1(&b, PVK_GPUREG_FINALIZE, 0x12345678);
    int irqs = irq_count;
    CHECK_EQ(run(ctx, &b), PVK_SUCCESS);
    CHECK_EQ(irq_count - irqs, 1);
    CHECK_EQ(reg(ctx, PVK_GPUREG_LOGIC_OP), 1);
    CHECK_EQ(irq_flags(ctx) >> 31, 1);
    CHECK_EQ(reg(ctx, PVK_GPUREG_IRQ_STAT) & 0xF, 0xF);
    CHECK_EQ(reg(ctx, PVK_GPUREG_IRQ_ACK), 0x12345678); /* ACK reads REQ */
    /* GSP's acknowledge: ACK(0) = 0 makes REQ differ from CMP, bit 31 clears */
    set(ctx, PVK_GPUREG_IRQ_ACK, 0);
    CHECK_EQ(irq_flags(ctx) >> 31, 0);
    CHECK_EQ(reg(ctx, PVK_GPUREG_FINALIZE), 0);
    /* a second FINALIZE without an acknowledge still signals */
    CHECK_EQ(run(ctx, &b), PVK_SUCCESS);
    irqs = irq_count;
    CHECK_EQ(run(ctx, &b), PVK_SUCCESS);
    CHECK_EQ(irq_count - irqs, 1);
    set(ctx, PVK_GPUREG_IRQ_ACK, 0);

    /* autostop off: the list runs past FINALIZE, interrupting twice */
    set(ctx, PVK_GPUREG_IRQ_AUTOSTOP, 0);
    irqs = irq_count;
    CHECK_EQ(run(ctx, &b), PVK_SUCCESS);
    CHECK_EQ(reg(ctx, PVK_GPUREG_LOGIC_OP), 2);
    CHECK_EQ(irq_count - irqs, 2);
    set(ctx, PVK_GPUREG_IRQ_AUTOSTOP, 1);
    set(ctx, PVK_GPUREG_IRQ_ACK, 0);

    /* compare mismatch: no interrupt, no stop */
    set(ctx, PVK_GPUREG_IRQ_CMP, 0x87654321);
    irqs = irq_count;
    CHECK_EQ(run(ctx, &b), PVK_SUCCESS);
    CHECK_EQ(irq_count - irqs, 0);
    CHECK_EQ(reg(ctx, PVK_GPUREG_LOGIC_OP), 2);
    CHECK_EQ(irq_flags(ctx) >> 31, 0);
    /* one matching byte is enough (byte 0 = 0x78) */
    set(ctx, PVK_GPUREG_IRQ_CMP, 0x00000078);
    set(ctx, PVK_GPUREG_IRQ_ACK, 0xFFFFFFFF);
    irqs = irq_count;
    CHECK_EQ(run(ctx, &b), PVK_SUCCESS);
    CHECK_EQ(irq_count - irqs, 1);
    CHECK_EQ(reg(ctx, PVK_GPUREG_LOGIC_OP), 1);
    CHECK_EQ(reg(ctx, PVK_GPUREG_IRQ_STAT) & 0xF, 0x1);
    /* masked bytes neither interrupt nor stop */
    set(ctx, PVK_GPUREG_IRQ_ACK, 0xFFFFFFFF);
    set(ctx, PVK_GPUREG_IRQ_MASK, 0xFFFFFFFF);
    irqs = irq_count;
    CHECK_EQ(run(ctx, &b), PVK_SUCCESS);
    CHECK_EQ(irq_count - irqs, 0);
    CHECK_EQ(reg(ctx, PVK_GPUREG_LOGIC_OP), 2);
    CHECK_EQ(irq_flags(ctx) >> 31, 0);
    /* unmasking a byte that already matches raises it at once (CPU side) */
    irqs = irq_count;
    set(ctx, PVK_GPUREG_IRQ_MASK, 0xFFFFFFFE);
    CHECK_EQ(irq_count - irqs, 1);
    CHECK_EQ(irq_flags(ctx) >> 31, 1);
    /* the other REQ words are reachable from a list (IRQ #4..#63) */
    pvk_pica_reset(&ctx->pica);
    set(ctx, PVK_GPUREG_IRQ_CMP + 5, 0xAB000000);
    set(ctx, PVK_GPUREG_IRQ_MASK_HIGH, ~(1u << 23)); /* byte 4*5+3 = 23 -> high word bit... */
    set(ctx, PVK_GPUREG_IRQ_MASK, ~(1u << 23));
    set(ctx, PVK_GPUREG_IRQ_MASK_HIGH, 0xFFFFFFFF);
    b.n = 0;
    wm(&b, PVK_GPUREG_IRQ_REQ + 5, 0x8, 0xAB000000);
    w1(&b, PVK_GPUREG_LOGIC_OP, 7);
    finish(&b);
    irqs = irq_count;
    CHECK_EQ(run(ctx, &b), PVK_SUCCESS);
    CHECK_EQ(irq_count - irqs, 1);
    CHECK_EQ(reg(ctx, PVK_GPUREG_LOGIC_OP), 0); /* autostop */
    /* CPU-only registers are out of a list's reach */
    pvk_pica_reset(&ctx->pica);
    b.n = 0;
    w1(&b, PVK_GPUREG_IRQ_CMP, 0x11111111);
    w1(&b, PVK_GPUREG_IRQ_MASK, 0);
    w1(&b, PVK_GPUREG_IRQ_AUTOSTOP, 0);
    finish(&b);
    CHECK_EQ(run(ctx, &b), PVK_SUCCESS);
    CHECK_EQ(reg(ctx, PVK_GPUREG_IRQ_CMP), 0x12345678);
    CHECK_EQ(reg(ctx, PVK_GPUREG_IRQ_MASK), 0xFFFFFFF0);
    CHECK_EQ(reg(ctx, PVK_GPUREG_IRQ_AUTOSTOP), 1);
    CHECK_EQ(reg(ctx, PVK_GPUREG_FIXED_00010002), 0x00010002);
    set(ctx, PVK_GPUREG_IRQ_ACK, 0);
}

static void shader_ports(pvk_context *ctx)
{
    pvk_pica_reset(&ctx->pica);
    pvk_shader_unit *vs = &ctx->pica.sh[1], *gs = &ctx->pica.sh[0];
    set(ctx, PVK_GPUREG_VSH_COM_MODE, 1); /* separate geometry configuration */
    lb b = {0};
    /* float uniforms, 32-bit mode: w, z, y, x; consecutive from the index register */
    uint32_t f[9] = {0x80000000u | 5, f32bits(4), f32bits(3), f32bits(2), f32bits(1),
                     f32bits(-0.5f), f32bits(0), f32bits(1e30f), f32bits(0.25f)};
    put(&b, PVK_GPUREG_VSH_FLOATUNIFORM_CONFIG, 0xF, 1, 9, f);
    /* 24-bit mode: three words per uniform, fixed id */
    uint32_t x[4] = {pvk_f32_to_f24(f32bits(7)), pvk_f32_to_f24(f32bits(-8)), pvk_f32_to_f24(f32bits(9.5f)),
                     pvk_f32_to_f24(f32bits(10))};
    uint32_t packed[6];
    pvk_pack_f24x4(x, packed);
    pvk_pack_f24x4(x, packed + 3);
    w1(&b, PVK_GPUREG_VSH_FLOATUNIFORM_CONFIG, 94);
    put(&b, PVK_GPUREG_VSH_FLOATUNIFORM_DATA, 0xF, 0, 6, packed);
    /* code: index, then 3 words to one alias, 8 words over the aliases */
    uint32_t code[11];
    for (int i = 0; i < 11; i++)
        code[i] = 0xC0DE0000u + i;
    w1(&b, PVK_GPUREG_VSH_CODETRANSFER_CONFIG, 10);
    put(&b, PVK_GPUREG_VSH_CODETRANSFER_DATA, 0xF, 0, 3, code);
    put(&b, PVK_GPUREG_VSH_CODETRANSFER_DATA, 0xF, 1, 8, code + 3);
    w1(&b, PVK_GPUREG_VSH_CODETRANSFER_END, 1);
    uint32_t od[4] = {0x0000036F, 0x1234567F, 0x0000000F, 0x1B1B1B1F};
    w1(&b, PVK_GPUREG_VSH_OPDESCS_CONFIG, 126);
    put(&b, PVK_GPUREG_VSH_OPDESCS_DATA, 0xF, 0, 2, od);
    w1(&b, PVK_GPUREG_VSH_BOOLUNIFORM, 0x7FFF00A5);
    uint32_t ints[4] = {0x01020304, 0x05060708, 0x090A0B0C, 0x0D0E0F10};
    put(&b, PVK_GPUREG_VSH_INTUNIFORM_I0, 0xF, 1, 4, ints);
    /* geometry unit: its own ports */
    w1(&b, PVK_GPUREG_GSH_CODETRANSFER_CONFIG, 0);
    put(&b, PVK_GPUREG_GSH_CODETRANSFER_DATA, 0xF, 0, 2, od + 2);
    w1(&b, PVK_GPUREG_GSH_FLOATUNIFORM_CONFIG, 0x80000000u);
    put(&b, PVK_GPUREG_GSH_FLOATUNIFORM_DATA, 0xF, 0, 4, f + 1);
    w1(&b, PVK_GPUREG_GSH_OPDESCS_CONFIG, 0);
    w1(&b, PVK_GPUREG_GSH_OPDESCS_DATA, 0x55);
    w1(&b, PVK_GPUREG_GSH_BOOLUNIFORM, 0x3);
    w1(&b, PVK_GPUREG_GSH_INTUNIFORM_I2, 0x77);
    finish(&b);
    ctx->pica.dirty = 0;
    CHECK_EQ(run(ctx, &b), PVK_SUCCESS);
    CHECK(f24(vs->f[5][0]) == 1 && f24(vs->f[5][1]) == 2 && f24(vs->f[5][2]) == 3 && f24(vs->f[5][3]) == 4);
    CHECK(f24(vs->f[6][0]) == 0.25f && isinf(f24(vs->f[6][1])) && f24(vs->f[6][2]) == 0 && f24(vs->f[6][3]) == -0.5f);
    for (int k = 0; k < 4; k++) {
        CHECK_EQ(vs->f[94][k], x[k]);
        CHECK_EQ(vs->f[95][k], x[k]);
    }
    CHECK(f24(vs->f[94][2]) == 9.5f);
    for (int i = 0; i < 11; i++)
        CHECK_EQ(vs->code[10 + i], 0xC0DE0000u + i);
    CHECK_EQ(vs->code[9], 0);
    CHECK_EQ(vs->code[21], 0);
    CHECK_EQ(vs->opdesc[126], od[0]);
    CHECK_EQ(vs->opdesc[127], od[1]);
    CHECK_EQ(vs->b, 0x00A5);
    for (int i = 0; i < 4; i++)
        CHECK_EQ(vs->i[i], ints[i]);
    CHECK_EQ(gs->code[0], od[2]);
    CHECK_EQ(gs->code[1], od[3]);
    CHECK_EQ(gs->code[10], 0); /* no mirroring with VSH_COM_MODE = 1 */
    CHECK(f24(gs->f[0][0]) == 1 && f24(gs->f[0][3]) == 4);
    CHECK_EQ(gs->opdesc[0], 0x55);
    CHECK_EQ(gs->b, 3);
    CHECK_EQ(gs->i[2], 0x77);
    uint32_t d = ctx->pica.dirty;
    CHECK(d & PVK_DIRTY_VS_UNIFORM);
    CHECK(d & PVK_DIRTY_VS_CODE);
    CHECK(d & PVK_DIRTY_GS_CODE);
    CHECK(d & PVK_DIRTY_GS_UNIFORM);
    CHECK(!(d & (PVK_DIRTY_BLEND | PVK_DIRTY_TEXTURE | PVK_DIRTY_LIGHTING)));

    /* VSH_COM_MODE = 0 and no geometry shader: the geometry unit gets the vertex uploads */
    set(ctx, PVK_GPUREG_VSH_COM_MODE, 0);
    set(ctx, PVK_GPUREG_GEOSTAGE_CONFIG, 0);
    set(ctx, PVK_GPUREG_GSH_FLOATUNIFORM_CONFIG, 0); /* the mirror keeps the vertex unit's f32 mode */
    b.n = 0;
    w1(&b, PVK_GPUREG_VSH_CODETRANSFER_CONFIG, 100);
    put(&b, PVK_GPUREG_VSH_CODETRANSFER_DATA, 0xF, 0, 2, od);
    w1(&b, PVK_GPUREG_VSH_FLOATUNIFORM_CONFIG, 0x80000000u | 40);
    put(&b, PVK_GPUREG_VSH_FLOATUNIFORM_DATA, 0xF, 0, 4, f + 1);
    finish(&b);
    CHECK_EQ(run(ctx, &b), PVK_SUCCESS);
    CHECK_EQ(vs->code[100], od[0]);
    CHECK_EQ(gs->code[100], od[0]);
    CHECK_EQ(gs->code[101], od[1]);
    CHECK(f24(gs->f[40][0]) == 1 && f24(gs->f[40][3]) == 4);
    /* ... but not while a geometry shader is in use */
    set(ctx, PVK_GPUREG_GEOSTAGE_CONFIG, 2);
    b.n = 0;
    w1(&b, PVK_GPUREG_VSH_CODETRANSFER_CONFIG, 200);
    w1(&b, PVK_GPUREG_VSH_CODETRANSFER_DATA, 0x99);
    finish(&b);
    CHECK_EQ(run(ctx, &b), PVK_SUCCESS);
    CHECK_EQ(vs->code[200], 0x99);
    CHECK_EQ(gs->code[200], 0);

    /* overflow: uniforms past c95, code past 4095, descriptors past 127 */
    uint64_t bad = stats(ctx).bad_input, dropped = ctx->pica.counters.dropped;
    th_quiet_errors = 1;
    b.n = 0;
    w1(&b, PVK_GPUREG_VSH_FLOATUNIFORM_CONFIG, 0x80000000u | 95);
    put(&b, PVK_GPUREG_VSH_FLOATUNIFORM_DATA, 0xF, 0, 8, f + 1);
    w1(&b, PVK_GPUREG_VSH_CODETRANSFER_CONFIG, 4094);
    put(&b, PVK_GPUREG_VSH_CODETRANSFER_DATA, 0xF, 0, 4, code);
    w1(&b, PVK_GPUREG_VSH_OPDESCS_CONFIG, 127);
    put(&b, PVK_GPUREG_VSH_OPDESCS_DATA, 0xF, 0, 3, od);
    finish(&b);
    CHECK_EQ(run(ctx, &b), PVK_SUCCESS);
    th_quiet_errors = 0;
    CHECK(f24(vs->f[95][0]) == 1);
    CHECK_EQ(vs->code[4094], code[0]);
    CHECK_EQ(vs->code[4095], code[1]);
    CHECK_EQ(vs->opdesc[127], od[0]);
    CHECK_EQ(ctx->pica.counters.dropped - dropped, 1 + 2 + 2);
    CHECK_EQ(stats(ctx).bad_input - bad, 1 + 2 + 2);
}

static void lut_ports(pvk_context *ctx)
{
    pvk_pica_reset(&ctx->pica);
    pvk_pica *p = &ctx->pica;
    lb b = {0};
    uint32_t data[256];
    for (int i = 0; i < 256; i++)
        data[i] = 0x00ABC000u + i;
    /* lighting: table FR (3), 256 entries in one command; SP2 (10) from 250 */
    w1(&b, PVK_GPUREG_LIGHTING_LUT_INDEX, 3 << 8);
    put(&b, PVK_GPUREG_LIGHTING_LUT_DATA, 0xF, 0, 256, data);
    w1(&b, PVK_GPUREG_LIGHTING_LUT_INDEX, 10 << 8 | 250);
    put(&b, PVK_GPUREG_LIGHTING_LUT_DATA, 0xF, 1, 6, data); /* over the aliases 0x1C8-0x1CD */
    /* fog: 128 entries from 0, over the 8 aliases */
    w1(&b, PVK_GPUREG_FOG_LUT_INDEX, 0);
    for (int i = 0; i < 128; i += 8)
        put(&b, PVK_GPUREG_FOG_LUT_DATA, 0xF, 1, 8, data + i);
    /* gas: 16 entries from 0 */
    w1(&b, PVK_GPUREG_GAS_LUT_INDEX, 0);
    put(&b, PVK_GPUREG_GAS_LUT_DATA, 0xF, 0, 16, data + 100);
    /* procedural texture: noise (128), color (256), color difference from 200 */
    w1(&b, PVK_GPUREG_PROCTEX_LUT, 0 << 8);
    put(&b, PVK_GPUREG_PROCTEX_LUT_DATA, 0xF, 0, 128, data);
    w1(&b, PVK_GPUREG_PROCTEX_LUT, 4 << 8);
    put(&b, PVK_GPUREG_PROCTEX_LUT_DATA, 0xF, 0, 256, data);
    w1(&b, PVK_GPUREG_PROCTEX_LUT, 5 << 8 | 200);
    put(&b, PVK_GPUREG_PROCTEX_LUT_DATA, 0xF, 0, 3, data + 7);
    /* the byte mask merges with the register's previous value, here the last fog word */
    wm(&b, PVK_GPUREG_FOG_LUT_DATA + 7, 0x1, 0xFFFFFF11);
    finish(&b);
    p->dirty = 0;
    uint64_t bad = stats(ctx).bad_input;
    th_quiet_errors = 1;
    CHECK_EQ(run(ctx, &b), PVK_SUCCESS);
    th_quiet_errors = 0;
    for (int i = 0; i < 256; i++)
        CHECK_EQ(p->lighting_lut[3][i], data[i]);
    for (int i = 0; i < 6; i++)
        CHECK_EQ(p->lighting_lut[10][250 + i], data[i]);
    for (int i = 0; i < 128; i++)
        CHECK_EQ(p->fog_lut[i], data[i]);
    for (int i = 0; i < 16; i++)
        CHECK_EQ(p->gas_lut[i], data[100 + i]);
    for (int i = 0; i < 128; i++)
        CHECK_EQ(p->proctex_lut[0][i], data[i]);
    for (int i = 0; i < 256; i++)
        CHECK_EQ(p->proctex_lut[4][i], data[i]);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(p->proctex_lut[5][200 + i], data[7 + i]);
    CHECK_EQ(stats(ctx).bad_input - bad, 1); /* fog entry 128 does not exist */
    CHECK_EQ(reg(ctx, PVK_GPUREG_FOG_LUT_DATA + 7), (data[127] & ~0xFFu) | 0x11);
    uint32_t want = PVK_DIRTY_LIGHTING_LUT | PVK_DIRTY_FOG_LUT | PVK_DIRTY_GAS_LUT | PVK_DIRTY_PROCTEX_LUT;
    CHECK_EQ(p->dirty, want);

    /* past the end of each table, and tables that do not exist */
    th_quiet_errors = 1;
    b.n = 0;
    w1(&b, PVK_GPUREG_LIGHTING_LUT_INDEX, 23 << 8 | 255);
    put(&b, PVK_GPUREG_LIGHTING_LUT_DATA, 0xF, 0, 3, data);
    w1(&b, PVK_GPUREG_LIGHTING_LUT_INDEX, 24 << 8); /* no table 24 */
    w1(&b, PVK_GPUREG_LIGHTING_LUT_DATA, 1);
    w1(&b, PVK_GPUREG_GAS_LUT_INDEX, 15);
    put(&b, PVK_GPUREG_GAS_LUT_DATA, 0xF, 0, 2, data);
    w1(&b, PVK_GPUREG_FOG_LUT_INDEX, 0xFFFF);
    w1(&b, PVK_GPUREG_FOG_LUT_DATA, 1);
    w1(&b, PVK_GPUREG_PROCTEX_LUT, 1 << 8); /* no table 1 */
    w1(&b, PVK_GPUREG_PROCTEX_LUT_DATA, 1);
    w1(&b, PVK_GPUREG_PROCTEX_LUT, 2 << 8 | 127);
    put(&b, PVK_GPUREG_PROCTEX_LUT_DATA, 0xF, 0, 2, data);
    finish(&b);
    uint64_t dropped = p->counters.dropped;
    bad = stats(ctx).bad_input;
    CHECK_EQ(run(ctx, &b), PVK_SUCCESS);
    th_quiet_errors = 0;
    CHECK_EQ(p->lighting_lut[23][255], data[0]);
    CHECK_EQ(p->gas_lut[15], data[0]);
    CHECK_EQ(p->proctex_lut[2][127], data[0]);
    CHECK_EQ(p->counters.dropped - dropped, 2 + 1 + 1 + 1 + 1 + 1);
    CHECK_EQ(stats(ctx).bad_input - bad, 7);
}

static void attributes_and_draws(pvk_context *ctx)
{
    pvk_pica_reset(&ctx->pica);
    hooks_on(ctx);
    pvk_pica *p = &ctx->pica;
    uint64_t draws0 = p->counters.draws, imm0 = p->counters.immediate_vertices;
    /* a framebuffer, a vertex shader that only ENDs and an index buffer in
     * guest memory, so draws reach the callback */
    p->sh[1].code[0] = 0x22u << 26;
    uint32_t a0[4] = {pvk_f32_to_f24(f32bits(1)), pvk_f32_to_f24(f32bits(2)), pvk_f32_to_f24(f32bits(3)),
                      pvk_f32_to_f24(f32bits(4))};
    uint32_t a1[4] = {pvk_f32_to_f24(f32bits(-1)), pvk_f32_to_f24(f32bits(0.5f)), 0, pvk_f32_to_f24(f32bits(1))};
    uint32_t w6[6];
    pvk_pack_f24x4(a0, w6);
    pvk_pack_f24x4(a1, w6 + 3);
    lb b = {0};
    /* fixed attributes 2 and 3 (the index advances) */
    w1(&b, PVK_GPUREG_FIXEDATTRIB_INDEX, 2);
    put(&b, PVK_GPUREG_FIXEDATTRIB_DATA0, 0xF, 1, 3, w6);
    put(&b, PVK_GPUREG_FIXEDATTRIB_DATA0, 0xF, 1, 3, w6 + 3);
    /* immediate mode, two attributes per vertex, two vertices */
    w1(&b, PVK_GPUREG_VSH_NUM_ATTR, 1);
    w1(&b, PVK_GPUREG_FIXEDATTRIB_INDEX, 0xF);
    for (int v = 0; v < 2; v++) {
        put(&b, PVK_GPUREG_FIXEDATTRIB_DATA0, 0xF, 1, 3, w6);
        put(&b, PVK_GPUREG_FIXEDATTRIB_DATA0, 0xF, 1, 3, w6 + 3);
    }
    /* draws */
    w1(&b, PVK_GPUREG_FRAMEBUFFER_DIM, 8 | 7 << 12 | 1 << 24);
    w1(&b, PVK_GPUREG_ATTRIBBUFFERS_LOC, 0x18000000 >> 3);
    w1(&b, PVK_GPUREG_NUMVERTICES, 36);
    w1(&b, PVK_GPUREG_VERTEX_OFFSET, 6);
    w1(&b, PVK_GPUREG_DRAWARRAYS, 1);
    w1(&b, PVK_GPUREG_DRAWARRAYS, 0); /* 0 = idle */
    w1(&b, PVK_GPUREG_NUMVERTICES, 12);
    w1(&b, PVK_GPUREG_DRAWELEMENTS, 1);
    wm(&b, PVK_GPUREG_DRAWELEMENTS, 0, 1); /* nothing written */
    /* cache triggers */
    w1(&b, PVK_GPUREG_FRAMEBUFFER_FLUSH, 1);
    w1(&b, PVK_GPUREG_FRAMEBUFFER_INVALIDATE, 1);
    w1(&b, PVK_GPUREG_FRAMEBUFFER_INVALIDATE, 0);
    w1(&b, PVK_GPUREG_TEXUNIT_CONFIG, 0x00011007);
    wm(&b, PVK_GPUREG_TEXUNIT_CONFIG, 0x1, 0x3); /* must not clear the cache again */
    w1(&b, PVK_GPUREG_EARLYDEPTH_CLEAR, 1);
    finish(&b);
    CHECK_EQ(run(ctx, &b), PVK_SUCCESS);
    for (int k = 0; k < 4; k++) {
        CHECK_EQ(p->fixed_attr[2][k], a0[k]);
        CHECK_EQ(p->fixed_attr[3][k], a1[k]);
    }
    /* two immediate vertices (no triangle yet), then two draws */
    CHECK_EQ(p->counters.immediate_vertices - imm0, 2);
    CHECK_EQ(p->counters.draws - draws0, 2);
    for (int k = 0; k < 4; k++) { /* the last vertex's attributes, assembled in order */
        CHECK_EQ(p->imm[0][k], a0[k]);
        CHECK_EQ(p->imm[1][k], a1[k]);
    }
    CHECK_EQ(draw_count, 2);
    CHECK_EQ(draws[0].kind, PVK_DRAW_ARRAYS);
    CHECK_EQ(draws[0].vertices, 36);
    CHECK_EQ(draws[0].tri_vertices, 36);
    CHECK_EQ(draws[0].fb.width, 8);
    CHECK_EQ(draws[0].fb.height, 8);
    CHECK_EQ(draws[1].kind, PVK_DRAW_ELEMENTS);
    CHECK_EQ(draws[1].vertices, 12);
    CHECK_EQ(cache_ops[PVK_PICA_FRAMEBUFFER_FLUSH], 1);
    CHECK_EQ(cache_ops[PVK_PICA_FRAMEBUFFER_INVALIDATE], 1);
    CHECK_EQ(cache_ops[PVK_PICA_TEXTURE_CACHE_CLEAR], 1);
    CHECK_EQ(cache_ops[PVK_PICA_EARLYDEPTH_CLEAR], 1);
    CHECK_EQ(reg(ctx, PVK_GPUREG_TEXUNIT_CONFIG), 0x00001003);

    /* a failing draw hook stops the list with its error */
    draw_result = PVK_ERROR_DEVICE_LOST;
    b.n = 0;
    w1(&b, PVK_GPUREG_DRAWARRAYS, 1);
    w1(&b, PVK_GPUREG_LOGIC_OP, 0xE);
    finish(&b);
    CHECK_EQ(run(ctx, &b), PVK_ERROR_DEVICE_LOST);
    CHECK(reg(ctx, PVK_GPUREG_LOGIC_OP) != 0xE);

    /* without a draw callback: counted as unsupported, logged once */
    pvk_pica_env e = saved_env;
    e.draw = NULL;
    pvk_pica_set_env(p, &e);
    uint64_t uns = stats(ctx).unsupported;
    b.n = 0;
    w1(&b, PVK_GPUREG_DRAWARRAYS, 1);
    w1(&b, PVK_GPUREG_DRAWELEMENTS, 1);
    finish(&b);
    CHECK_EQ(run(ctx, &b), PVK_SUCCESS);
    CHECK_EQ(stats(ctx).unsupported - uns, 2);

    /* fixed attribute 12-14 do not exist */
    uint64_t bad = stats(ctx).bad_input;
    th_quiet_errors = 1;
    b.n = 0;
    w1(&b, PVK_GPUREG_FIXEDATTRIB_INDEX, 11);
    put(&b, PVK_GPUREG_FIXEDATTRIB_DATA0, 0xF, 1, 3, w6);
    put(&b, PVK_GPUREG_FIXEDATTRIB_DATA0, 0xF, 1, 3, w6);
    finish(&b);
    CHECK_EQ(run(ctx, &b), PVK_SUCCESS);
    th_quiet_errors = 0;
    CHECK_EQ(stats(ctx).bad_input - bad, 1);
    CHECK_EQ(p->fixed_attr[11][3], a0[3]);
    pvk_pica_set_env(p, &saved_env);
    pvk_pica_reset(p);
}

static void dirty_groups(pvk_context *ctx)
{
    static const struct {
        uint32_t id, bits;
    } cases[] = {
        {PVK_GPUREG_BLEND_FUNC, PVK_DIRTY_BLEND},
        {PVK_GPUREG_LOGIC_OP, PVK_DIRTY_BLEND},
        {PVK_GPUREG_FRAGOP_ALPHA_TEST, PVK_DIRTY_FRAGMENT},
        {PVK_GPUREG_STENCIL_TEST, PVK_DIRTY_DEPTH_STENCIL},
        {PVK_GPUREG_DEPTH_COLOR_MASK, PVK_DIRTY_DEPTH_STENCIL | PVK_DIRTY_BLEND},
        {PVK_GPUREG_TEXUNIT0_PARAM, PVK_DIRTY_TEXTURE},
        {PVK_GPUREG_TEXUNIT3_PROCTEX2, PVK_DIRTY_PROCTEX},
        {PVK_GPUREG_TEXENV3_COMBINER, PVK_DIRTY_TEV},
        {PVK_GPUREG_TEXENV5_SCALE, PVK_DIRTY_TEV},
        {PVK_GPUREG_FOG_COLOR, PVK_DIRTY_FOG},
        {PVK_GPUREG_FACECULLING_CONFIG, PVK_DIRTY_RASTER},
        {PVK_GPUREG_SCISSORTEST_DIM, PVK_DIRTY_RASTER},
        {PVK_GPUREG_SH_OUTMAP_O3, PVK_DIRTY_OUTMAP},
        {PVK_GPUREG_COLORBUFFER_LOC, PVK_DIRTY_FRAMEBUFFER},
        {PVK_GPUREG_RENDERBUF_DIM, PVK_DIRTY_FRAMEBUFFER},
        {PVK_GPUREG_GAS_LIGHT_XY, PVK_DIRTY_GAS},
        {PVK_GPUREG_FRAGOP_SHADOW, PVK_DIRTY_SHADOW},
        {PVK_GPUREG_LIGHT5_DIFFUSE, PVK_DIRTY_LIGHTING},
        {PVK_GPUREG_LIGHTING_CONFIG1, PVK_DIRTY_LIGHTING},
        {PVK_GPUREG_ATTRIBBUFFER7_CONFIG2, PVK_DIRTY_VERTEX_INPUT},
        {PVK_GPUREG_PRIMITIVE_CONFIG, PVK_DIRTY_PRIMITIVE},
        {PVK_GPUREG_VSH_ENTRYPOINT, PVK_DIRTY_VS_CONFIG},
        {PVK_GPUREG_GSH_OUTMAP_MASK, PVK_DIRTY_GS_CONFIG},
        {PVK_GPUREG_CMDBUF_SIZE1, 0},
        {0x3FF, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lb b = {0};
        w1(&b, cases[i].id, 0x1);
        ctx->pica.dirty = 0;
        CHECK_EQ(pvk_cmdlist_run_words(&ctx->pica, b.w, b.n), PVK_SUCCESS);
        if (ctx->pica.dirty != cases[i].bits)
            fprintf(stderr, "register 0x%03X\n", cases[i].id);
        CHECK_EQ(ctx->pica.dirty, cases[i].bits);
    }
    /* CPU writes mark too */
    ctx->pica.dirty = 0;
    set(ctx, PVK_GPUREG_BLEND_COLOR, 5);
    CHECK_EQ(ctx->pica.dirty, PVK_DIRTY_BLEND);
}

static void malformed(pvk_context *ctx)
{
    pvk_pica_reset(&ctx->pica);
    th_quiet_errors = 1;
    pvk_stats s0 = stats(ctx);
    int irqs = irq_count;

    /* runs past its buffer: 255 extra parameters in a 32-byte list */
    lb b = {0};
    w1(&b, PVK_GPUREG_LOGIC_OP, 3);
    b.w[b.n++] = 0;
    b.w[b.n++] = pvk_cmd_header(PVK_GPUREG_BLEND_COLOR, 0xF, 255, 1);
    b.w[b.n++] = 0;
    b.w[b.n++] = 0;
    finish(&b);
    CHECK_EQ(run(ctx, &b), PVK_ERROR_BAD_PARAMETERS);
    CHECK_EQ(reg(ctx, PVK_GPUREG_LOGIC_OP), 3);
    CHECK_EQ(irq_count, irqs); /* stopped before FINALIZE */
    CHECK_EQ(stats(ctx).bad_input - s0.bad_input, 1);

    /* register ids past 0x3FF, directly and through consecutive mode */
    b.n = 0;
    w1(&b, 0x400, 1);
    finish(&b);
    CHECK_EQ(run(ctx, &b), PVK_ERROR_BAD_PARAMETERS);
    b.n = 0;
    uint32_t two[2] = {1, 2};
    put(&b, 0x3FF, 0xF, 1, 2, two);
    finish(&b);
    CHECK_EQ(run(ctx, &b), PVK_ERROR_BAD_PARAMETERS);
    CHECK_EQ(reg(ctx, 0x3FF), 0); /* the whole command is refused */
    CHECK_EQ(stats(ctx).bad_input - s0.bad_input, 3);

    /* the address outside guest memory, and straddling the end of FCRAM */
    s0 = stats(ctx);
    CHECK_EQ(kick(ctx, 0x10000000, 64), PVK_ERROR_OUT_OF_RANGE);
    CHECK_EQ(kick(ctx, PVK_FCRAM_BASE + PVK_FCRAM_SIZE - 16, 32), PVK_ERROR_OUT_OF_RANGE);
    CHECK_EQ(kick(ctx, 0xFFFFFFF0, 0x1FFFF0), PVK_ERROR_OUT_OF_RANGE);
    CHECK_EQ(stats(ctx).out_of_range - s0.out_of_range, 3);

    /* odd alignment: the address (8 mod 16) is refused; an odd size drops the last 8 bytes */
    s0 = stats(ctx);
    b.n = 0;
    w1(&b, PVK_GPUREG_LOGIC_OP, 4);
    finish(&b);
    uint32_t addr = place(ctx, &b);
    CHECK_EQ(kick(ctx, addr + 8, 16), PVK_ERROR_BAD_PARAMETERS);
    b.n = 0;
    w1(&b, PVK_GPUREG_LOGIC_OP, 5);
    w1(&b, PVK_GPUREG_LOGIC_OP, 6);
    w1(&b, PVK_GPUREG_FINALIZE, 0x12345678);
    w1(&b, PVK_GPUREG_LOGIC_OP, 7);
    irqs = irq_count;
    CHECK_EQ(kick(ctx, place(ctx, &b), 24), PVK_SUCCESS); /* 24 bytes: runs 16 */
    CHECK_EQ(reg(ctx, PVK_GPUREG_LOGIC_OP), 6);
    CHECK_EQ(irq_count, irqs); /* the 3dbrew pitfall: FINALIZE in the lost 8 bytes */
    /* empty */
    CHECK_EQ(kick(ctx, addr, 0), PVK_ERROR_BAD_PARAMETERS);
    CHECK_EQ(stats(ctx).bad_input - s0.bad_input, 3);

    /* jump loops: a list that jumps to itself, and two that jump to each other */
    s0 = stats(ctx);
    b.n = 0;
    w1(&b, PVK_GPUREG_CMDBUF_JUMP0, 1);
    w1(&b, PVK_GPUREG_FINALIZE, 0x12345678);
    addr = place(ctx, &b);
    CHECK_EQ(kick(ctx, addr, 16), PVK_ERROR_BAD_PARAMETERS);
    lb a = {0}, c = {0};
    uint32_t a_addr = next_addr;
    w1(&a, PVK_GPUREG_CMDBUF_JUMP1, 1);
    w1(&a, PVK_GPUREG_FINALIZE, 0x12345678);
    place(ctx, &a);
    w1(&c, PVK_GPUREG_CMDBUF_SIZE0, 2);
    w1(&c, PVK_GPUREG_CMDBUF_ADDR0, a_addr >> 3);
    w1(&c, PVK_GPUREG_CMDBUF_JUMP0, 1);
    w1(&c, PVK_GPUREG_FINALIZE, 0x12345678);
    set(ctx, PVK_GPUREG_CMDBUF_SIZE1, 4);
    set(ctx, PVK_GPUREG_CMDBUF_ADDR1, place(ctx, &c) >> 3);
    CHECK_EQ(kick(ctx, a_addr, 16), PVK_ERROR_BAD_PARAMETERS);
    /* a loop through large buffers hits the word budget instead */
    uint32_t big_words = 1u << 21; /* 8 MiB: 16 laps exceed 2^25 words before 65536 jumps */
    uint32_t big = PVK_FCRAM_BASE + 0x4000000;
    uint32_t *bw = pvk_guest_ptr(ctx, big, big_words * 4);
    for (uint32_t i = 0; i < big_words - 2; i += 2) {
        bw[i] = 0;
        bw[i + 1] = pvk_cmd_header(PVK_GPUREG_BLEND_COLOR, 0xF, 0, 0);
    }
    bw[big_words - 2] = 1;
    bw[big_words - 1] = pvk_cmd_header(PVK_GPUREG_CMDBUF_JUMP0, 0xF, 0, 0);
    CHECK_EQ(kick(ctx, big, big_words * 4), PVK_ERROR_BAD_PARAMETERS);
    CHECK_EQ(stats(ctx).bad_input - s0.bad_input, 3);
    CHECK_EQ(reg(ctx, PVK_GPUREG_CMDBUF_JUMP0), 0);

    /* a jump to a channel that was never set up */
    pvk_pica_reset(&ctx->pica);
    b.n = 0;
    w1(&b, PVK_GPUREG_CMDBUF_JUMP1, 1);
    finish(&b);
    CHECK(run(ctx, &b) != PVK_SUCCESS);

    /* a trailing lone word through the host-memory entry point */
    uint32_t lone[3] = {1, pvk_cmd_header(PVK_GPUREG_LOGIC_OP, 0xF, 0, 0), 5};
    CHECK_EQ(pvk_cmdlist_run_words(&ctx->pica, lone, 3), PVK_ERROR_BAD_PARAMETERS);
    CHECK_EQ(reg(ctx, PVK_GPUREG_LOGIC_OP), 1);

    /* random garbage: never crashes, never hangs, never writes outside the register file */
    pvk_pica_reset(&ctx->pica);
    uint32_t *g = pvk_guest_ptr(ctx, PVK_FCRAM_BASE + 0x100000, 4096);
    for (int round = 0; round < 3000; round++) {
        uint32_t n = th_rand_range(1, 256) * 4;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t r = th_rand();
            if (i & 1) /* mostly plausible headers */
                r = (r & 0x80FF0000u) | (th_rand() % 3 ? (r >> 4) % 0x300 : (r & 0x3FF)) |
                    (th_rand() % 4 ? 0 : (r & 0x0F000000u));
            g[i] = r;
        }
        if (round % 7 == 0) /* sometimes a jump into the same buffer */
            g[n - 1] = pvk_cmd_header(PVK_GPUREG_CMDBUF_JUMP0, 0xF, 0, 0);
        kick(ctx, PVK_FCRAM_BASE + 0x100000, n * 4);
    }
    th_quiet_errors = 0;
    pvk_pica_reset(&ctx->pica);
    set(ctx, PVK_GPUREG_IRQ_ACK, 0);
}

static void names(void)
{
    CHECK_EQ(pvk_pica_reg_id("GPUREG_BLEND_FUNC"), 0x101);
    CHECK_EQ(pvk_pica_reg_id("BLEND_FUNC"), 0x101);
    CHECK_EQ(pvk_pica_reg_id("GPUREG_RENDERBUFFER_FLUSH"), 0x111);
    CHECK_EQ(pvk_pica_reg_id("GPUREG_LIGHT7_ATTENUATION_SCALE"), 0x1BB);
    CHECK_EQ(pvk_pica_reg_id("GPUREG_ATTRIBBUFFERB_CONFIG2"), 0x226);
    CHECK_EQ(pvk_pica_reg_id("GPUREG_VSH_OPDESCS_DATA"), 0x2D6);
    CHECK_EQ(pvk_pica_reg_id("GPUREG_NOPE"), -1);
    CHECK(pvk_pica_reg_name(0x23C) && !strcmp(pvk_pica_reg_name(0x23C), "GPUREG_CMDBUF_JUMP0"));
    CHECK(pvk_pica_reg_name(0x010) && !strcmp(pvk_pica_reg_name(0x010), "GPUREG_FINALIZE"));
    CHECK(pvk_pica_reg_name(0x3FF) == NULL);
    CHECK(pvk_pica_reg_name(0x400) == NULL);
    /* every named id is unique and in range */
    int named = 0;
    for (uint32_t id = 0; id < 0x400; id++) {
        const char *n = pvk_pica_reg_name(id);
        if (!n)
            continue;
        named++;
        CHECK_EQ(pvk_pica_reg_id(n), id);
    }
    CHECK(named > 300);
}

int main(void)
{
    pvk_config cfg = {.irq = on_irq};
    pvk_context *ctx = th_context(&cfg, 0);
    names();
    masks(ctx);
    consecutive_and_padding(ctx);
    jumps(ctx);
    interrupts(ctx);
    shader_ports(ctx);
    lut_ports(ctx);
    attributes_and_draws(ctx);
    dirty_groups(ctx);
    malformed(ctx);
    th_release(ctx);
    return th_finish("test_cmdlist");
}
