/* External register semantics: reset values, writable bits, read-only
 * registers, computed status registers, the userland address window.
 * The expected values are written here from the seed documents, apart from
 * the library's own table. */
#include "harness.h"

#define REG(off) (0x10400000u + (off))

static uint32_t rd(pvk_context *ctx, uint32_t off)
{
    uint32_t v = 0xDEADBEEF;
    CHECK_EQ(pvk_mmio_read32(ctx, REG(off), &v), PVK_SUCCESS);
    return v;
}

static void wr(pvk_context *ctx, uint32_t off, uint32_t v)
{
    CHECK_EQ(pvk_mmio_write32(ctx, REG(off), v), PVK_SUCCESS);
}

/* Plain storage registers: offset, reset value, writable bits. */
static const struct { uint32_t off, reset, mask; } plain[] = {
    {0x004, 0, 0xFFFFFFFF},          /* GPU_VRAM_CNT */
    {0x008, 0, 0x3},                 /* GPU_UNKNOWN_2BIT */
    {0x010, 0, 0x1FFFFFFE},          /* memfill 0 start: address bits 1-28 */
    {0x014, 0, 0x1FFFFFFE},
    {0x018, 0, 0xFFFFFFFF},
    {0x020, 0, 0x1FFFFFFE},          /* memfill 1 */
    {0x024, 0, 0x1FFFFFFE},
    {0x028, 0, 0xFFFFFFFF},
    {0x030, 0, 0xFFFFFFFF},          /* GPU_VRAM_POWER */
    {0x048, 0, 0xFFFFFFFF},
    {0x050, 0x1111EF00, 0xFFFFFFFF}, /* GPU_TIMING_CNT1 reset value */
    {0x054, 0x00000112, 0xFFFFFFFF}, /* GPU_TIMING_CNT2 */
    {0x068, 0x00A80000, 0xFFFFFFFF},
    {0x0C0, 0x20000000, 0xFFFFFFFF}, /* backlight 1 */
    {0x0C4, 0x18000000, 0xFFFFFFFF}, /* VRAM A base */
    {0x0C8, 0x18300000, 0xFFFFFFFF}, /* VRAM B base */
    {0x0CC, 0x20000000, 0xFFFFFFFF}, /* backlight 2 */
    {0x0D0, 0, 0xF},                 /* GPU_UNKNOWN_4BIT */
    {0xC00, 0, 0x1FFFFFFE},          /* memcopy src */
    {0xC04, 0, 0x1FFFFFFE},
    {0xC08, 0, 0xFFF8FFF8},          /* sizes: bits 0-2 / 16-18 unused */
    {0xC0C, 0, 0xFFF8FFF8},
    {0xC10, 0, 0x0301772F},          /* flags: bits 4, 6-7, 11, 15, 17-23, 26-31 not writable */
    {0xC14, 0, 0x001FFFFF},
    {0xC20, 0, 0xFFFFFFF0},
    {0xC24, 0, 0xFFFFFFFF},
    {0xC28, 0, 0xFFFFFFFF},
    {0xC2C, 0, 0x1},
};

/* Read-only registers: a write of all ones changes nothing. */
static const uint32_t readonly[] = {0x000, 0x038, 0x040, 0x044, 0x058, 0x060, 0x070, 0x074, 0x078, 0x07C,
                                    0x080, 0x084, 0x088, 0x08C, 0x090, 0x094, 0x098, 0x09C, 0x0A0, 0x0A4,
                                    0x0A8, 0x0AC, 0x0B0, 0x0B4, 0x0B8, 0x0BC};

static void plain_registers(pvk_context *ctx)
{
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        CHECK_EQ(rd(ctx, plain[i].off), plain[i].reset);
        wr(ctx, plain[i].off, 0xFFFFFFFF);
        CHECK_EQ(rd(ctx, plain[i].off), plain[i].mask);
        wr(ctx, plain[i].off, 0);
        CHECK_EQ(rd(ctx, plain[i].off), 0);
        wr(ctx, plain[i].off, plain[i].reset);
    }
    for (size_t i = 0; i < sizeof readonly / sizeof readonly[0]; i++) {
        uint32_t before = rd(ctx, readonly[i]);
        wr(ctx, readonly[i], 0xFFFFFFFF);
        CHECK_EQ(rd(ctx, readonly[i]), before);
    }
}

static void special_registers(pvk_context *ctx)
{
    CHECK_EQ(rd(ctx, 0x000), 0x00010002); /* hardware ID */
    CHECK_EQ(rd(ctx, 0x1000 + 0xD4), 0x00010002); /* 0x104010D4 reads the same */
    CHECK_EQ(rd(ctx, 0x038), 0x10402000); /* GPU_STAT_SOMETHING at reset */
    CHECK_EQ(rd(ctx, 0x034) & 3, 3);      /* IRQ flags bits 0-1 usually set ... */
    wr(ctx, 0x03C, 1);                    /* ... until GPU_MAKE_SOMETHING bit 0 */
    CHECK_EQ(rd(ctx, 0x034) & 3, 0);
    CHECK_EQ(rd(ctx, 0x038), 0x10410000);
    CHECK_EQ(rd(ctx, 0x03C), 1);
    /* GPU_MAKE_WHATEVER_MESS: bit 0 is written, read back at bit 8 */
    wr(ctx, 0x05C, 0xFFFFFFFF);
    CHECK_EQ(rd(ctx, 0x05C), 0x3F3F0100);
    wr(ctx, 0x05C, 0x00010000);
    CHECK_EQ(rd(ctx, 0x05C), 0x00010000);
    /* backlight status reads 3 while a backlight register is 0 */
    CHECK_EQ(rd(ctx, 0x040), 0);
    wr(ctx, 0x0C0, 0);
    CHECK_EQ(rd(ctx, 0x040), 3);
    wr(ctx, 0x0C0, 0x20000000);
    /* memfill CNT: width and unknown bits stored; bit 1 cannot be set by a write */
    wr(ctx, 0x01C, 0x001F0302);
    CHECK_EQ(rd(ctx, 0x01C), 0x001F0300);
    wr(ctx, 0x02C, 0);
    CHECK_EQ(rd(ctx, 0x02C), 0);
    /* memcopy CNT: nothing set by writing 0x100 */
    wr(ctx, 0xC18, 0x100);
    CHECK_EQ(rd(ctx, 0xC18), 0);
    /* remain counter reads 3FFFh (done) when idle; IRQ position is R/W */
    wr(ctx, 0xC1C, 0xFFFFFFFF);
    CHECK_EQ(rd(ctx, 0xC1C), 0x3FFF3FFF);
    /* busy flags idle */
    CHECK_EQ(rd(ctx, 0x058), 0);
    /* unnamed offsets read 0 and ignore writes */
    wr(ctx, 0x00C, 0x12345678);
    CHECK_EQ(rd(ctx, 0x00C), 0);
    wr(ctx, 0x600, 0x12345678);
    CHECK_EQ(rd(ctx, 0x600), 0);
    /* PDC: timing registers are 12 bits, colour 24 bits, LUT auto-increments */
    wr(ctx, 0x400, 0xFFFFFFFF);
    CHECK_EQ(rd(ctx, 0x400), 0xFFF);
    wr(ctx, 0x51C, 0xFFFFFFFF);
    CHECK_EQ(rd(ctx, 0x51C), 0x0FFF0FFF);
    wr(ctx, 0x44C, 0xFFFFFFFF);
    CHECK_EQ(rd(ctx, 0x44C), 0x00FFFFFF);
    wr(ctx, 0x480, 7);
    wr(ctx, 0x484, 0xAA112233);
    wr(ctx, 0x484, 0x00445566);
    CHECK_EQ(rd(ctx, 0x480), 0); /* index is write-only */
    wr(ctx, 0x480, 7);
    CHECK_EQ(rd(ctx, 0x484), 0x00112233);
    CHECK_EQ(rd(ctx, 0x484), 0x00445566);
    wr(ctx, 0x490, 0xFFFFFC40); /* stride is a full signed word */
    CHECK_EQ(rd(ctx, 0x490), 0xFFFFFC40);
}

/* The 0x1EF00000 userland window names the same registers. */
static void address_window(pvk_context *ctx)
{
    CHECK_EQ(pvk_mmio_address(0x1EF00C10), 0x10400C10);
    CHECK_EQ(pvk_mmio_address(0x10400C10), 0x10400C10);
    CHECK_EQ(pvk_mmio_address(0x1EF01FFC), 0x10401FFC);
    CHECK_EQ(pvk_mmio_address(0x1EF02000), 0);
    CHECK_EQ(pvk_mmio_address(0x1EEFFFFC), 0);
    CHECK_EQ(pvk_mmio_write32(ctx, pvk_mmio_address(0x1EF00C14), 0x55), PVK_SUCCESS);
    CHECK_EQ(rd(ctx, 0xC14), 0x55);
    /* misaligned or outside: refused and counted */
    pvk_stats a, b;
    pvk_get_stats(ctx, &a);
    uint32_t v;
    th_quiet_errors = 1;
    CHECK_EQ(pvk_mmio_write32(ctx, 0x10400C15, 1), PVK_ERROR_OUT_OF_RANGE);
    CHECK_EQ(pvk_mmio_read32(ctx, 0x10402000, &v), PVK_ERROR_OUT_OF_RANGE);
    CHECK_EQ(pvk_mmio_write32(ctx, 0, 1), PVK_ERROR_OUT_OF_RANGE);
    th_quiet_errors = 0;
    pvk_get_stats(ctx, &b);
    CHECK_EQ(b.bad_input - a.bad_input, 3);
    CHECK_EQ(pvk_mmio_read32(NULL, REG(0), &v), PVK_ERROR_INVALID_ARGUMENT);
    CHECK_EQ(pvk_mmio_read32(ctx, REG(0), NULL), PVK_ERROR_INVALID_ARGUMENT);
}

static int irq_counts[PVK_IRQ_COUNT];
static void on_irq(void *user, pvk_context *ctx, pvk_irq which)
{
    (void)user;
    (void)ctx;
    irq_counts[which]++;
}

/* A fill and a memcopy raise their completion bits, the IRQ flag mirrors and
 * the host callback; traffic counters count the bytes. */
static void completion(pvk_context *ctx)
{
    memset(irq_counts, 0, sizeof irq_counts);
    wr(ctx, 0x020, 0x18000000 >> 3);
    wr(ctx, 0x024, (0x18000000 + 256) >> 3);
    wr(ctx, 0x028, 0);
    wr(ctx, 0x02C, 0x201);
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    CHECK_EQ(rd(ctx, 0x02C), 0x202);
    CHECK_EQ(rd(ctx, 0x034) >> 26, 1u << 1); /* bit 27 */
    CHECK_EQ(irq_counts[PVK_IRQ_PSC1], 1);
    CHECK_EQ(rd(ctx, 0x0B4), 256);            /* GPU_STAT_MEMFILL_1_DST_WRITES */
    wr(ctx, 0x02C, 0);                        /* acknowledge */
    CHECK_EQ(rd(ctx, 0x02C), 0);
    CHECK_EQ(rd(ctx, 0x034) >> 26, 0);
    /* texture copy of 64 bytes */
    wr(ctx, 0xC00, 0x18000000 >> 3);
    wr(ctx, 0xC04, 0x18001000 >> 3);
    wr(ctx, 0xC10, 8);
    wr(ctx, 0xC20, 64);
    wr(ctx, 0xC18, 1);
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    CHECK_EQ(rd(ctx, 0xC18), 0x100);
    CHECK_EQ(rd(ctx, 0x034) >> 26, 1u << 4); /* bit 30 */
    CHECK_EQ(irq_counts[PVK_IRQ_PPF], 1);
    CHECK_EQ(rd(ctx, 0x0A8), 64);
    CHECK_EQ(rd(ctx, 0x0AC), 64);
    wr(ctx, 0xC18, 0);
    CHECK_EQ(rd(ctx, 0x034) >> 26, 0);
}

int main(void)
{
    pvk_config cfg = {.irq = on_irq};
    pvk_context *ctx = th_context(&cfg, 0);
    plain_registers(ctx);
    special_registers(ctx);
    address_window(ctx);
    completion(ctx);
    th_release(ctx);
    return th_finish("test_mmio");
}
