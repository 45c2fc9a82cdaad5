/* The hardware-measured transfer and fill results from FACTS.md (hwtests),
 * as exact assertions through the real library and through the CPU
 * reference model; plus the completion bits and IRQs. */
#include "harness.h"
#include "transfer_ref.h"

#define REG(off) (PVK_MMIO_BASE + (off))
#define ARENA 0x200000u
#define SRC (PVK_VRAM_BASE + 0x000000u)
#define DST (PVK_VRAM_BASE + 0x100000u)

static pvk_context *ctx;
static uint8_t *lib;               /* the library's guest memory, first ARENA bytes of VRAM */
static uint8_t *shadow;            /* the reference model's copy */
static ref_guest ref;
static int irq_count[PVK_IRQ_COUNT];

static void on_irq(void *user, pvk_context *c, pvk_irq which)
{
    (void)user;
    (void)c;
    if ((unsigned)which < PVK_IRQ_COUNT)
        irq_count[which]++;
}

static uint32_t rd(uint32_t off)
{
    uint32_t v = 0;
    CHECK_EQ(pvk_mmio_read32(ctx, REG(off), &v), PVK_SUCCESS);
    return v;
}

static void wr(uint32_t off, uint32_t v)
{
    CHECK_EQ(pvk_mmio_write32(ctx, REG(off), v), PVK_SUCCESS);
}

static void clear_all(void)
{
    memset(lib, 0, ARENA);
    memset(shadow, 0, ARENA);
}

static void put8(uint32_t addr, uint8_t v)
{
    lib[addr - PVK_VRAM_BASE] = v;
    shadow[addr - PVK_VRAM_BASE] = v;
}

static void put32(uint32_t addr, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        put8(addr + (uint32_t)i, (uint8_t)(v >> (8 * i)));
}

static uint32_t get32(const uint8_t *m, uint32_t addr)
{
    const uint8_t *p = m + (addr - PVK_VRAM_BASE);
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t get16(const uint8_t *m, uint32_t addr)
{
    const uint8_t *p = m + (addr - PVK_VRAM_BASE);
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t get8(const uint8_t *m, uint32_t addr)
{
    return m[addr - PVK_VRAM_BASE];
}

/* Check a value in both the library's memory and the model's. */
#define BOTH(getter, addr, expect)                \
    do {                                          \
        CHECK_EQ(getter(lib, (addr)), (expect));    \
        CHECK_EQ(getter(shadow, (addr)), (expect)); \
    } while (0)

/* A memcopy through the registers, waited for; the same through the model. */
static void memcopy(const ref_copy_regs *r)
{
    wr(0xC00, r->src_addr);
    wr(0xC04, r->dst_addr);
    wr(0xC08, r->out_dim);
    wr(0xC0C, r->in_dim);
    wr(0xC10, r->flags);
    wr(0xC20, r->tex_size);
    wr(0xC24, r->tex_src_width);
    wr(0xC28, r->tex_dst_width);
    wr(0xC18, 1);
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    CHECK(ref_memcopy(&ref, r));
    CHECK_EQ(ref.fault, 0);
    wr(0xC18, 0);
}

static void display(uint32_t ow, uint32_t oh, uint32_t iw, uint32_t flags)
{
    ref_copy_regs r = {.src_addr = SRC >> 3, .dst_addr = DST >> 3, .out_dim = oh << 16 | ow, .in_dim = oh << 16 | iw,
                       .flags = flags};
    memcopy(&r);
}

static void fill(int unit, uint32_t start, uint32_t end, uint32_t value, uint32_t width)
{
    uint32_t base = unit ? 0x020 : 0x010;
    wr(base + 0, start >> 3);
    wr(base + 4, end >> 3);
    wr(base + 8, value);
    wr(base + 0xC, width << 8 | 1);
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    ref_fill_regs r = {start >> 3, end >> 3, value, width << 8 | 1};
    CHECK(ref_memfill(&ref, &r));
    CHECK_EQ(ref.fault, 0);
    wr(base + 0xC, 0);
}

#define FMT(in, out) ((uint32_t)(in) << 8 | (uint32_t)(out) << 12)

/* A uniform RGBA8 input of w x h pixels (layout does not matter). */
static void uniform_input(uint32_t w, uint32_t h, uint32_t color)
{
    for (uint32_t i = 0; i < w * h; i++)
        put32(SRC + 4 * i, color);
}

static void conversions(void)
{
    /* RGBA8 -> RGB5A1: alpha 0x80 -> 1, 0x7F -> 0 (tiled->linear, 64x16) */
    static const struct { uint32_t in, out; } a1[] = {
        {0xFFFFFF80u, 0xFFFF}, {0xFFFFFF7Fu, 0xFFFE}, {0x08102080u, 0x0889}, {0x0810207Fu, 0x0888},
    };
    for (size_t t = 0; t < sizeof a1 / sizeof a1[0]; t++) {
        clear_all();
        uniform_input(64, 16, a1[t].in);
        display(64, 16, 64, FMT(0, 3));
        for (uint32_t i = 0; i < 64 * 16; i += 37)
            BOTH(get16, DST + 2 * i, a1[t].out);
        BOTH(get16, DST + 2 * (64 * 16 - 1), a1[t].out);
    }
    /* RGBA8 -> RGBA4: alpha 0x64 -> 6, 0x7F -> 7, 0x80 -> 8, 0xFE -> 0xF */
    static const struct { uint32_t a, nib; } a4[] = {{0x64, 6}, {0x7F, 7}, {0x80, 8}, {0xFE, 0xF}};
    for (size_t t = 0; t < sizeof a4 / sizeof a4[0]; t++) {
        clear_all();
        uniform_input(64, 16, 0x1F2F3F00u | a4[t].a);
        display(64, 16, 64, FMT(0, 4));
        uint32_t expect = 0x1230u | a4[t].nib;
        for (uint32_t i = 0; i < 64 * 16; i += 41)
            BOTH(get16, DST + 2 * i, expect);
    }
    /* RGBA8 -> RGB565 and RGB8 truncate; RGB8 bytes are B, G, R */
    clear_all();
    uniform_input(64, 16, 0xFFFBF7C0u);
    display(64, 16, 64, FMT(0, 2));
    BOTH(get16, DST, (0x1Fu << 11) | (0x3Eu << 5) | 0x1Eu);
    clear_all();
    uniform_input(64, 16, 0x11223344u);
    display(64, 16, 64, FMT(0, 1));
    BOTH(get8, DST + 0, 0x33);
    BOTH(get8, DST + 1, 0x22);
    BOTH(get8, DST + 2, 0x11);
    BOTH(get8, DST + 3 * 1023 + 2, 0x11);
}

/* Tiled input pixel (x, y) of a `w`-wide RGBA8 image at SRC. */
static void put_tiled(uint32_t x, uint32_t y, uint32_t w, uint32_t v)
{
    put32(SRC + 4 * ref_morton_index(x, y, w), v);
}

static void downscale(void)
{
    /* 2x1: 0xFF000000 beside 0 -> 0x7F000000 */
    clear_all();
    for (uint32_t y = 0; y < 16; y++)
        for (uint32_t x = 0; x < 128; x++)
            put_tiled(x, y, 128, (x & 1) ? 0 : 0xFF000000u);
    display(128, 16, 128, FMT(0, 0) | 1u << 24);
    for (uint32_t i = 0; i < 64 * 16; i++)
        BOTH(get32, DST + 4 * i, 0x7F000000u);
    BOTH(get32, DST + 4 * 64 * 16, 0); /* nothing past the halved output */
    /* 2x2 of 0xFFFF0000, 0xFF0000FF over two zeros -> 0x7F3F003F */
    clear_all();
    for (uint32_t y = 0; y < 32; y++)
        for (uint32_t x = 0; x < 128; x++)
            put_tiled(x, y, 128, (y & 1) ? 0 : (x & 1) ? 0xFF0000FFu : 0xFFFF0000u);
    display(128, 32, 128, FMT(0, 0) | 2u << 24);
    for (uint32_t i = 0; i < 64 * 16; i++)
        BOTH(get32, DST + 4 * i, 0x7F3F003Fu);
    BOTH(get32, DST + 4 * 64 * 16, 0);
}

static void zcurve(void)
{
    clear_all();
    for (uint32_t i = 0; i < 64 * 16; i++)
        put32(SRC + 4 * i, i); /* tiled word i holds i */
    display(64, 16, 64, FMT(0, 0));
    BOTH(get32, DST + 4 * (0 * 64 + 0), 0);
    BOTH(get32, DST + 4 * (0 * 64 + 1), 1);  /* word 1 -> (1, 0) */
    BOTH(get32, DST + 4 * (1 * 64 + 0), 2);  /* word 2 -> (0, 1) */
    BOTH(get32, DST + 4 * (2 * 64 + 3), 13); /* word 13 -> (3, 2) */
    BOTH(get32, DST + 4 * (0 * 64 + 8), 64); /* the next tile to the right */
    BOTH(get32, DST + 4 * (8 * 64 + 0), 512); /* the next tile row */
    /* and back: linear -> tiled restores the tiled words */
    for (uint32_t i = 0; i < 64 * 16; i++)
        put32(SRC + 4 * i, get32(lib, DST + 4 * i));
    for (uint32_t i = 0; i < 64 * 16; i++)
        put32(DST + 4 * i, 0);
    display(64, 16, 64, FMT(0, 0) | 2);
    for (uint32_t i = 0; i < 64 * 16; i++)
        BOTH(get32, DST + 4 * i, i);
    /* flip: output row y comes from input row h-1-y */
    clear_all();
    for (uint32_t y = 0; y < 16; y++)
        for (uint32_t x = 0; x < 64; x++)
            put_tiled(x, y, 64, y << 16 | x);
    display(64, 16, 64, FMT(0, 0) | 1);
    BOTH(get32, DST + 4 * (0 * 64 + 5), 15u << 16 | 5);
    BOTH(get32, DST + 4 * (15 * 64 + 7), 0u << 16 | 7);
}

static void fills(void)
{
    uint32_t a = DST;
    /* 32-bit 0x00FFFFFF -> FF FF FF 00 repeating */
    clear_all();
    fill(0, a, a + 48, 0x00FFFFFFu, 2);
    for (uint32_t i = 0; i < 48; i++)
        BOTH(get8, a + i, (i % 4) == 3 ? 0x00u : 0xFFu);
    BOTH(get8, a + 48, 0); /* nothing at or past the end */
    BOTH(get8, a + 49, 0);
    BOTH(get8, a - 1, 0);
    /* 24-bit 0x00FFFF00 -> 00 FF FF 00 FF FF ..., width 1 and 3 */
    for (uint32_t width = 1; width <= 3; width += 2) {
        clear_all();
        fill(1, a, a + 48, 0x00FFFF00u, width);
        for (uint32_t i = 0; i < 48; i++)
            BOTH(get8, a + i, (i % 3) == 0 ? 0x00u : 0xFFu);
        BOTH(get8, a + 48, 0);
        BOTH(get8, a + 49, 0);
    }
    /* 24-bit byte order with distinct bytes: bits 7-0, 15-8, 23-16 */
    clear_all();
    fill(0, a, a + 96, 0xAA112233u, 1);
    static const uint8_t order[3] = {0x33, 0x22, 0x11};
    for (uint32_t i = 0; i < 96; i++)
        BOTH(get8, a + i, order[i % 3]);
    BOTH(get8, a + 96, 0);
    /* 16-bit */
    clear_all();
    fill(1, a, a + 32, 0xAABBCCDDu, 0);
    for (uint32_t i = 0; i < 32; i++)
        BOTH(get8, a + i, (i & 1) ? 0xCCu : 0xDDu);
    BOTH(get8, a + 32, 0);
}

/* 0x200-wide input, 0xF0-wide output, RGBA8 -> RGB8 with bit 2: no stretch,
 * each output row is the start of the matching input row. */
static void crop(void)
{
    clear_all();
    const uint32_t iw = 0x200, ow = 0xF0, h = 16;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < iw; x++)
            put_tiled(x, y, iw, (x & 0xFF) << 24 | (y << 16) | (x >> 8) << 8 | 0xFF);
    display(ow, h, iw, FMT(0, 1) | 4);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < ow; x += 7) {
            uint32_t o = DST + 3 * (y * ow + x);
            BOTH(get8, o + 0, x >> 8); /* B */
            BOTH(get8, o + 1, y);      /* G */
            BOTH(get8, o + 2, x & 0xFF); /* R */
        }
    BOTH(get8, DST + 3 * ow * h, 0);
}

/* hwtests RGBA8_To_RGB8_Different_Sizes: the same sizes without bit 2.  The
 * input is read as if it were 0xF0 wide (tile rows 0xF0 * 8 pixels apart):
 * input word 0xF0 * 0x190 - 1, the last pixel of a 240-wide tiled image,
 * lands in the last output pixel, and the last input word is never read. */
static void no_crop(void)
{
    clear_all();
    const uint32_t iw = 0x200, ow = 0xF0, h = 0x190;
    put32(SRC, 0xFF000000u);
    put32(SRC + 4 * (iw * h - 1), 0x0000FF00u);
    put32(SRC + 4 * (ow * h - 1), 0x00FF0000u);
    display(ow, h, iw, FMT(0, 1));
    BOTH(get32, DST, 0x00FF0000u);                  /* red: bytes 00 00 FF */
    BOTH(get32, DST + 4 * 0x1193F, 0x00FF0000u);    /* the last pixel: green */
    BOTH(get32, DST + 4 * (ow * h - 1), 0);         /* nothing past the output */
}

/* Bit 5 (tiled->tiled) and bit 3 (texture copy) copy bytes unchanged. */
static void raw_copies(void)
{
    clear_all();
    for (uint32_t i = 0; i < 64 * 16 * 4; i++)
        put8(SRC + i, (uint8_t)(i * 7 + 3));
    /* formats RGBA8 -> RGBA8, flip and downscale set: all ignored */
    display(64, 16, 64, FMT(0, 0) | 0x20 | 1 | 2u << 24);
    for (uint32_t i = 0; i < 64 * 16 * 4; i += 4)
        BOTH(get32, DST + i, get32(lib, SRC + i));
    BOTH(get32, DST + 64 * 16 * 4, 0);
    /* RGBA8 -> RGB565: bytes per pixel of the output (2): half the bytes, raw */
    clear_all();
    for (uint32_t i = 0; i < 64 * 16 * 4; i++)
        put8(SRC + i, (uint8_t)(i * 5 + 1));
    display(32, 16, 64, FMT(0, 2) | 0x20);
    for (uint32_t r = 0; r < 2; r++)
        for (uint32_t i = 0; i < 32 * 8 * 2; i += 4)
            BOTH(get32, DST + r * 32 * 8 * 2 + i, get32(lib, SRC + r * 64 * 8 * 2 + i));
    BOTH(get32, DST + 32 * 16 * 2, 0);
    /* texture copy: contiguous, no conversion even with format bits set */
    clear_all();
    for (uint32_t i = 0; i < 4096; i++)
        put8(SRC + i, (uint8_t)(i * 13 + 9));
    ref_copy_regs t = {.src_addr = SRC >> 3, .dst_addr = DST >> 3, .flags = 8 | FMT(0, 2) | 1 | 2,
                       .tex_size = 1024, .tex_src_width = 0x00010002, .tex_dst_width = 0x00030004};
    memcopy(&t);
    for (uint32_t i = 0; i < 1024; i += 4)
        BOTH(get32, DST + i, get32(lib, SRC + i));
    BOTH(get32, DST + 1024, 0);
    /* texture copy with gaps: 32-byte lines, source gap 16, output gap 48 */
    clear_all();
    for (uint32_t i = 0; i < 4096; i++)
        put8(SRC + i, (uint8_t)(i * 11 + 1));
    t.flags = 8 | 4;
    t.tex_size = 256;
    t.tex_src_width = 1u << 16 | 2;
    t.tex_dst_width = 3u << 16 | 2;
    memcopy(&t);
    for (uint32_t line = 0; line < 8; line++)
        for (uint32_t i = 0; i < 32; i++) {
            BOTH(get8, DST + line * 80 + i, get8(lib, SRC + line * 48 + i));
            if (i < 16 && line < 7)
                BOTH(get8, DST + line * 80 + 32 + i, 0);
        }
}

static void fill_status(int unit)
{
    uint32_t base = unit ? 0x020 : 0x010;
    pvk_irq which = unit ? PVK_IRQ_PSC1 : PVK_IRQ_PSC0;
    uint32_t flag = 1u << (26 + unit);
    clear_all();
    int before = irq_count[which], others = irq_count[PVK_IRQ_PPF];
    wr(base + 0, DST >> 3);
    wr(base + 4, (DST + 256) >> 3);
    wr(base + 8, 0x12345678);
    wr(base + 0xC, 2u << 8 | 1);
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    uint32_t cnt = rd(base + 0xC);
    CHECK_EQ(cnt & 1, 0);          /* not busy */
    CHECK_EQ(cnt & 2, 2);          /* finished */
    CHECK_EQ((cnt >> 8) & 3, 2);   /* the width reads back */
    CHECK_EQ(rd(0x034) & flag, flag);
    CHECK_EQ(irq_count[which], before + 1);
    CHECK_EQ(irq_count[PVK_IRQ_PPF], others);
    CHECK_EQ(get32(lib, DST + 252), 0x12345678);
    wr(base + 0xC, 0);             /* acknowledge */
    CHECK_EQ(rd(base + 0xC) & 3, 0);
    CHECK_EQ(rd(0x034) & flag, 0);
    /* a dropped fill (end <= start) still completes and raises the IRQ */
    pvk_stats s0, s1;
    pvk_get_stats(ctx, &s0);
    th_quiet_errors = 1;
    wr(base + 0, DST >> 3);
    wr(base + 4, DST >> 3);
    pvk_mmio_write32(ctx, REG(base + 0xC), 1);
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    th_quiet_errors = 0;
    pvk_get_stats(ctx, &s1);
    CHECK(s1.bad_input > s0.bad_input);
    CHECK_EQ(rd(base + 0xC) & 3, 2);
    CHECK_EQ(rd(0x034) & flag, flag);
    CHECK_EQ(irq_count[which], before + 2);
    CHECK_EQ(get32(lib, DST + 252), 0x12345678);
    wr(base + 0xC, 0);
    CHECK_EQ(rd(0x034) & flag, 0);
    /* CNT written without bit 0 starts nothing */
    put32(DST + 0x800, 0xDEADBEEFu);
    wr(base + 0, (DST + 0x800) >> 3);
    wr(base + 4, (DST + 0x810) >> 3);
    wr(base + 8, 0);
    wr(base + 0xC, 2u << 8);
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    CHECK_EQ(irq_count[which], before + 2);
    CHECK_EQ(get32(lib, DST + 0x800), 0xDEADBEEFu);
    CHECK_EQ(rd(base + 0xC) & 3, 0);
    CHECK_EQ(rd(0x034) & flag, 0);
}

static void memcopy_status(void)
{
    clear_all();
    int before = irq_count[PVK_IRQ_PPF], fills0 = irq_count[PVK_IRQ_PSC0] + irq_count[PVK_IRQ_PSC1];
    uniform_input(64, 16, 0xAABBCCDD);
    wr(0xC00, SRC >> 3);
    wr(0xC04, DST >> 3);
    wr(0xC08, 16u << 16 | 64);
    wr(0xC0C, 16u << 16 | 64);
    wr(0xC10, 0);
    wr(0xC18, 1);
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    uint32_t cnt = rd(0xC18);
    CHECK_EQ(cnt & 1, 0);
    CHECK_EQ(cnt & 0x100, 0x100);
    CHECK_EQ(rd(0x034) & (1u << 30), 1u << 30);
    CHECK_EQ(irq_count[PVK_IRQ_PPF], before + 1);
    CHECK_EQ(irq_count[PVK_IRQ_PSC0] + irq_count[PVK_IRQ_PSC1], fills0);
    CHECK_EQ(get32(lib, DST), 0xAABBCCDD);
    wr(0xC18, 0);
    CHECK_EQ(rd(0xC18) & 0x101, 0);
    CHECK_EQ(rd(0x034) & (1u << 30), 0);
    /* dropped (texture copy of size 0): completes, IRQ, bad_input, nothing written */
    pvk_stats s0, s1;
    pvk_get_stats(ctx, &s0);
    th_quiet_errors = 1;
    wr(0xC10, 8);
    wr(0xC20, 0);
    wr(0xC04, (DST + 0x1000) >> 3);
    pvk_mmio_write32(ctx, REG(0xC18), 1);
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    th_quiet_errors = 0;
    pvk_get_stats(ctx, &s1);
    CHECK(s1.bad_input > s0.bad_input);
    CHECK_EQ(rd(0xC18) & 0x101, 0x100);
    CHECK_EQ(rd(0x034) & (1u << 30), 1u << 30);
    CHECK_EQ(irq_count[PVK_IRQ_PPF], before + 2);
    for (uint32_t i = 0; i < 0x2000; i++)
        CHECK_EQ(lib[DST + 0x1000 + i - PVK_VRAM_BASE], 0);
    wr(0xC18, 0);
    CHECK_EQ(rd(0x034) & (1u << 30), 0);
}

int main(void)
{
    shadow = malloc(ARENA);
    CHECK(shadow != NULL);
    for (int mirror = 0; mirror < 2; mirror++) {
        pvk_config cfg = {.irq = on_irq};
        ctx = th_context(&cfg, mirror);
        lib = pvk_guest_ptr(ctx, PVK_VRAM_BASE, ARENA);
        CHECK(lib != NULL);
        ref_guest_init(&ref, shadow, PVK_VRAM_BASE, ARENA);
        conversions();
        downscale();
        zcurve();
        fills();
        crop();
        no_crop();
        raw_copies();
        fill_status(0);
        fill_status(1);
        memcopy_status();
        th_release(ctx);
    }
    free(shadow);
    return th_finish("test_transfer_facts");
}
