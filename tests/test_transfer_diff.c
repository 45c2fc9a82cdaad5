/* Randomised differential test of the transfer engine: memory fills,
 * display transfers, tiled->tiled raw copies and texture copies programmed
 * through the registers exactly as a 3DS program would, against the CPU
 * reference model (tests/ref/transfer_ref.c).  Guest memory is poisoned with
 * random bytes around every operation; afterwards the library's guest memory
 * must equal the model's byte for byte.  Dropped operations must write
 * nothing, count in bad_input, and still complete with their IRQ. */
#include "harness.h"
#include "transfer_ref.h"

#define REG(off) (PVK_MMIO_BASE + (off))
#define MARGIN 512u  /* placement keeps this far from an arena's ends */
#define WINDOW 64u   /* poisoned and compared around each range */

#define OPS_SINGLE 2000 /* per guest-memory mode */
#define OPS_BATCH 200  /* batches of fill0 + fill1 + memcopy, per mode */

/* Parts of guest memory the test mirrors in a shadow copy for the model. */
typedef struct arena {
    uint32_t base, size;
    uint32_t region_end; /* the end of its region when the arena reaches it, else 0 */
    uint8_t *lib, *shadow;
} arena;

static arena arenas[4] = {
    {PVK_VRAM_BASE, PVK_VRAM_SIZE, PVK_VRAM_BASE + PVK_VRAM_SIZE, NULL, NULL},
    {PVK_FCRAM_BASE, 0x100000, 0, NULL, NULL},
    {PVK_FCRAM_BASE + PVK_FCRAM_SIZE - 0x80000, 0x80000, PVK_FCRAM_BASE + PVK_FCRAM_SIZE, NULL, NULL},
    {PVK_AXI_WRAM_BASE, PVK_AXI_WRAM_SIZE, PVK_AXI_WRAM_BASE + PVK_AXI_WRAM_SIZE, NULL, NULL},
};
#define N_ARENAS 4

static pvk_context *ctx;
static ref_guest ref;
static int irq_count[PVK_IRQ_COUNT];
static int reports;         /* mismatch reports printed */
static int n_ops, n_accepted, n_dropped;
static int kind_count[4][2]; /* [fill, display, raw, texcopy][accepted] */

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
    pvk_mmio_read32(ctx, REG(off), &v);
    return v;
}

static void wr(uint32_t off, uint32_t v)
{
    CHECK_EQ(pvk_mmio_write32(ctx, REG(off), v), PVK_SUCCESS);
}

static arena *arena_of(uint64_t addr)
{
    for (int i = 0; i < N_ARENAS; i++)
        if (addr >= arenas[i].base && addr < (uint64_t)arenas[i].base + arenas[i].size)
            return &arenas[i];
    return NULL;
}

/* Fresh random bytes in [addr - WINDOW, addr + len + WINDOW) (clipped to the
 * arena), in both the library's memory and the shadow. */
static void poison(uint32_t addr, uint64_t len)
{
    arena *a = arena_of(addr);
    if (!a)
        return;
    uint64_t lo = addr >= a->base + WINDOW ? addr - WINDOW : a->base;
    uint64_t hi = (uint64_t)addr + len + WINDOW;
    if (hi > (uint64_t)a->base + a->size)
        hi = (uint64_t)a->base + a->size;
    for (uint64_t p = lo; p < hi; p++) {
        uint8_t v = (uint8_t)th_rand();
        a->lib[p - a->base] = v;
        a->shadow[p - a->base] = v;
    }
}

typedef struct op {
    int kind; /* 0 fill, 1 display transfer, 2 raw tiled copy, 3 texture copy */
    int unit;
    ref_fill_regs fill;
    ref_copy_regs copy;
    uint32_t src, dst;         /* byte addresses */
    uint64_t src_len, dst_len; /* superset of the bytes touched (for poisoning) */
} op;

static void describe(const op *o)
{
    if (o->kind == 0)
        fprintf(stderr, "  fill unit %d: start 0x%08X end 0x%08X value 0x%08X cnt 0x%08X\n", o->unit,
                o->fill.dst_addr, o->fill.dst_end, o->fill.value, o->fill.cnt);
    else
        fprintf(stderr,
                "  %s: src 0x%08X dst 0x%08X out_dim 0x%08X in_dim 0x%08X flags 0x%08X tex_size 0x%08X "
                "src_width 0x%08X dst_width 0x%08X\n",
                o->kind == 1 ? "display transfer" : o->kind == 2 ? "raw tiled copy" : "texture copy",
                o->copy.src_addr, o->copy.dst_addr, o->copy.out_dim, o->copy.in_dim, o->copy.flags,
                o->copy.tex_size, o->copy.tex_src_width, o->copy.tex_dst_width);
}

/* Compare [lo, hi) of one arena; report and resynchronise on a mismatch. */
static int compare(arena *a, uint64_t lo, uint64_t hi, const op *ops, int n_op)
{
    if (lo < a->base)
        lo = a->base;
    if (hi > (uint64_t)a->base + a->size)
        hi = (uint64_t)a->base + a->size;
    if (lo >= hi)
        return 0;
    size_t off = (size_t)(lo - a->base), len = (size_t)(hi - lo);
    th_checks++;
    if (!memcmp(a->lib + off, a->shadow + off, len))
        return 0;
    th_failures++;
    size_t first = off, last = off, count = 0;
    for (size_t i = off; i < off + len; i++)
        if (a->lib[i] != a->shadow[i]) {
            if (!count)
                first = i;
            last = i;
            count++;
        }
    if (reports++ < 12) {
        fprintf(stderr, "MISMATCH: %zu bytes differ in 0x%08zX..0x%08zX (first: library 0x%02X, model 0x%02X)\n", count,
                a->base + first, a->base + last, a->lib[first], a->shadow[first]);
        for (int i = 0; i < n_op; i++)
            describe(&ops[i]);
    }
    memcpy(a->lib + off, a->shadow + off, len); /* check later operations independently */
    return 1;
}

static void compare_all(const char *when)
{
    for (int i = 0; i < N_ARENAS; i++) {
        th_checks++;
        if (memcmp(arenas[i].lib, arenas[i].shadow, arenas[i].size)) {
            th_failures++;
            if (reports++ < 12)
                fprintf(stderr, "MISMATCH outside the compared windows (%s), arena 0x%08X\n", when, arenas[i].base);
            memcpy(arenas[i].lib, arenas[i].shadow, arenas[i].size);
        }
    }
}

/* ---- placement ---- */

static uint32_t place_in(const arena *a, uint64_t len)
{
    uint32_t lo = MARGIN / 16, hi = (uint32_t)((a->size - MARGIN - len) / 16);
    return a->base + 16 * th_rand_range(lo, hi);
}

static const uint32_t nowhere[] = {
    0x00000000u, 0x10000000u, 0x17FFFF00u, 0x18600000u, 0x1FF80000u, 0x1FFFFFF0u, 0x28000000u, 0x30000000u,
};

/* An address for a range of `len` bytes: mostly well inside an arena; sometimes
 * ending exactly at a region's end (`exact_ok`: the touched span is exactly
 * `len`), crossing it, or in no region at all.  `*far` is set for ranges the
 * hardware drops (not inside one region). */
static uint32_t place(uint64_t len, int exact_ok, int forced_arena, int *far)
{
    uint32_t r = th_rand() % 100;
    if (forced_arena < 0 && r < 3) {
        static const int edge[3] = {0, 2, 3};
        const arena *a = &arenas[edge[th_rand() % 3]];
        if (exact_ok)
            return (uint32_t)(a->region_end - len);
    }
    if (forced_arena < 0 && r >= 3 && r < 6 && len >= 32) {
        static const int edge[3] = {0, 2, 3};
        const arena *a = &arenas[edge[th_rand() % 3]];
        *far = 1;
        return exact_ok ? a->region_end - (uint32_t)((len / 2) & ~15ull) : a->region_end - 16;
    }
    if (forced_arena < 0 && r >= 6 && r < 8) {
        uint32_t addr = nowhere[th_rand() % (sizeof nowhere / sizeof nowhere[0])];
        if (!(addr >= 0x17FFFF00u && addr < 0x18000000u && len <= 0x100))
            *far = 1;
        return addr;
    }
    int ai = forced_arena >= 0 ? forced_arena : (int)(th_rand() % N_ARENAS);
    return place_in(&arenas[ai], len);
}

/* A register address value: byte address >> 3 with junk in the bits the
 * register does not keep (bit 0, bits 29-31). */
static uint32_t addr_reg(uint32_t addr)
{
    uint32_t v = addr >> 3;
    if (th_rand() % 4 == 0)
        v |= th_rand() & 0xE0000001u;
    return v;
}

/* Dimension register: junk in bits 0-2 and 16-18, which are not stored. */
static uint32_t dim_reg(uint32_t lo, uint32_t hi)
{
    uint32_t v = (hi & 0xFFFF) << 16 | (lo & 0xFFFF);
    if (th_rand() % 3 == 0)
        v |= th_rand() & 0x00070007u;
    return v;
}

/* ---- operation generators ---- */

static void gen_fill(op *o, int forced_arena, int unit)
{
    memset(o, 0, sizeof *o);
    o->kind = 0;
    o->unit = unit >= 0 ? unit : (int)(th_rand() & 1);
    uint32_t r = th_rand() % 100;
    uint64_t len = r < 6 ? 16ull * th_rand_range(1, 4096) : 16ull * th_rand_range(1, 128);
    int far = 0;
    uint32_t start = place(len, 1, forced_arena, &far);
    uint32_t end = start + (uint32_t)len;
    uint32_t sel = th_rand() % 100;
    if (forced_arena < 0 && sel < 3)
        end = start; /* empty */
    else if (forced_arena < 0 && sel < 6)
        end = start - 16 * th_rand_range(1, 8); /* backwards */
    o->dst = start;
    o->dst_len = end > start ? end - start : 0;
    o->fill.dst_addr = addr_reg(start);
    o->fill.dst_end = addr_reg(end);
    uint32_t values[4] = {th_rand(), 0, 0xFFFFFFFFu, 0x00FFFF00u};
    o->fill.value = values[th_rand() % 8 < 5 ? 0 : th_rand() % 4];
    o->fill.cnt = (th_rand() & 3) << 8 | 1;
    if (th_rand() % 4 == 0)
        o->fill.cnt |= th_rand() & 0x001F0000u; /* the unknown R/W bits */
}

static uint32_t bpp(uint32_t fmt)
{
    return ref_format_bpp(fmt);
}

static void gen_dims(uint32_t *ow, uint32_t *oh, uint32_t *iw, int big)
{
    uint32_t maxw = big ? 64 : 12, maxh = big ? 16 : 5;
    *iw = 8 * th_rand_range(1, maxw);
    *ow = 8 * th_rand_range(1, *iw / 8);
    *oh = 8 * th_rand_range(1, maxh);
}

/* Bytes a display transfer reads: rows (tile rows) IW pixels apart with
 * flag bit 2, OW without; the last one only up to OW. */
static uint64_t input_len(uint32_t ow, uint32_t oh, uint32_t iw, uint32_t flags, uint32_t b, int tiled)
{
    uint32_t pitch = (flags & 4) ? iw : ow, lines = tiled ? 8 : 1, rows = (oh + lines - 1) / lines;
    if (!ow || !rows || !iw || ow > iw)
        return (uint64_t)iw * oh * b; /* refused: any length will do */
    return ((uint64_t)(rows - 1) * pitch + ow) * lines * b;
}

static void gen_display(op *o, int forced_arena)
{
    uint32_t in_fmt = th_rand() % 8, out_fmt;
    if (th_rand() % 100 < 88)
        out_fmt = in_fmt == 0 ? th_rand() % 8 : in_fmt == 1 ? 1 : 2 + th_rand() % 6;
    else
        out_fmt = th_rand() % 8;
    uint32_t r = th_rand() % 100, ds = r < 45 ? 0 : r < 70 ? 1 : r < 96 ? 2 : 3;
    uint32_t to_tiled = th_rand() & 1;
    uint32_t ow, oh, iw;
    gen_dims(&ow, &oh, &iw, th_rand() % 10 == 0);
    if (to_tiled && ds && th_rand() % 10 != 0) {
        /* keep the downscaled output a multiple of 8 most of the time */
        if (iw < 16)
            iw = 16;
        ow = 16 * th_rand_range(1, iw / 16);
        if (ds == 2 && oh % 16)
            oh += 8;
    }
    r = th_rand() % 100;
    if (forced_arena < 0 && r < 3)
        ow = iw + 8;
    else if (forced_arena < 0 && r < 4)
        ow = 0;
    else if (forced_arena < 0 && r < 5)
        oh = 0;
    else if (forced_arena < 0 && r < 6)
        iw = 0;
    uint32_t flags = (th_rand() & 1) | to_tiled << 1 | (th_rand() & 1) << 2 | in_fmt << 8 | out_fmt << 12 | ds << 24;
    if (th_rand() % 4 == 0)
        flags |= 1u << 16; /* 32x32 blocks: ignored */
    if (th_rand() % 4 == 0)
        flags |= th_rand() & ~0x0301772Fu; /* bits the register does not keep */
    uint32_t sx = ds != 0, sy = ds == 2;
    o->kind = 1;
    o->src_len = input_len(ow, oh, iw, flags, bpp(in_fmt), !to_tiled);
    o->dst_len = (uint64_t)(ow >> sx) * (oh >> sy) * bpp(out_fmt);
    o->copy.flags = flags;
    o->copy.out_dim = dim_reg(ow, oh);
    o->copy.in_dim = dim_reg(iw, th_rand() % 3 ? oh : th_rand()); /* the high half is ignored */
}

static void gen_raw(op *o, int forced_arena)
{
    uint32_t ow, oh, iw;
    gen_dims(&ow, &oh, &iw, th_rand() % 8 == 0);
    uint32_t r = th_rand() % 100;
    if (forced_arena < 0 && r < 3)
        ow = iw + 8;
    else if (forced_arena < 0 && r < 5)
        oh = 0;
    uint32_t flags = 0x20 | (th_rand() & 0x0301770Fu & ~8u); /* formats, flip, downscale, bit 1: ignored */
    uint32_t b = bpp((flags >> 12) & 7);
    o->kind = 2;
    o->src_len = input_len(ow, oh, iw, flags, b, 1);
    o->dst_len = (uint64_t)ow * oh * b;
    o->copy.flags = flags;
    o->copy.out_dim = dim_reg(ow, oh);
    o->copy.in_dim = dim_reg(iw, th_rand());
}

static void gen_texcopy(op *o, int forced_arena)
{
    uint32_t flags = 8 | (th_rand() & 0x0301772Fu);
    if (th_rand() % 10 < 6)
        flags |= 4;
    else
        flags &= ~4u;
    uint32_t size = 16 * th_rand_range(1, 160);
    if (th_rand() % 5 == 0) {
        static const uint32_t edges[] = {16, 32, 176, 192, 208, 256};
        size = edges[th_rand() % (sizeof edges / sizeof edges[0])];
    }
    if (forced_arena < 0 && th_rand() % 30 == 0)
        size = 0;
    uint32_t iw = th_rand_range(0, 6), ig = th_rand() % 3 ? th_rand_range(0, 4) : 0;
    uint32_t ow = th_rand_range(0, 6), og = th_rand() % 3 ? th_rand_range(0, 4) : 0;
    if (forced_arena >= 0 || th_rand() % 10 != 0) {
        /* width 0 with a gap hangs: keep it rare */
        if (!iw)
            ig = 0;
        if (!ow)
            og = 0;
    }
    o->kind = 3;
    o->copy.flags = flags;
    o->copy.tex_size = size | (th_rand() % 3 == 0 ? th_rand() & 15 : 0);
    o->copy.tex_src_width = ig << 16 | iw;
    o->copy.tex_dst_width = og << 16 | ow;
    o->copy.out_dim = th_rand(); /* ignored */
    o->copy.in_dim = th_rand();
    uint64_t in_w = (flags & 4) && iw ? iw * 16 : size, out_w = (flags & 4) && ow ? ow * 16 : size;
    uint64_t in_gap = (flags & 4) && iw ? ig * 16 : 0, out_gap = (flags & 4) && ow ? og * 16 : 0;
    o->src_len = in_w ? (size + in_w - 1) / in_w * (in_w + in_gap) : 0;
    o->dst_len = out_w ? (size + out_w - 1) / out_w * (out_w + out_gap) : 0;
}

/* A memcopy of a random kind; src and dst placed (in `forced_arena` when >= 0). */
static void gen_memcopy(op *o, int forced_arena)
{
    memset(o, 0, sizeof *o);
    uint32_t r = th_rand() % 100;
    if (r < 55)
        gen_display(o, forced_arena);
    else if (r < 70)
        gen_raw(o, forced_arena);
    else
        gen_texcopy(o, forced_arena);
    int far = 0;
    /* the touched span equals the placement length only for these */
    int src_exact = o->kind == 1 || o->kind == 2 || (o->kind == 3 && !(o->copy.flags & 4));
    int dst_exact = o->kind != 3 || !(o->copy.flags & 4);
    uint64_t src_len = o->src_len ? o->src_len : 16, dst_len = o->dst_len ? o->dst_len : 16;
    o->src = place(src_len, src_exact, forced_arena, &far);
    if (forced_arena < 0 && th_rand() % 100 < 15 && arena_of(o->src) && arena_of(o->src) == arena_of(o->src + src_len - 1)) {
        /* overlapping source and destination */
        arena *a = arena_of(o->src);
        int64_t d = 16 * (int64_t)th_rand_range(0, 32) - 256;
        if (th_rand() % 4 == 0)
            d = 16 * (int64_t)th_rand_range(0, (uint32_t)(src_len / 16)) - (int64_t)(src_len / 2 & ~15ull);
        int64_t dst = (int64_t)o->src + d;
        if (dst >= (int64_t)a->base + WINDOW && dst + (int64_t)dst_len + WINDOW <= (int64_t)a->base + a->size)
            o->dst = (uint32_t)dst;
        else
            o->dst = place(dst_len, dst_exact, -1, &far);
    } else {
        o->dst = place(dst_len, dst_exact, forced_arena, &far);
    }
    o->copy.src_addr = addr_reg(o->src);
    o->copy.dst_addr = addr_reg(o->dst);
}

/* ---- running ---- */

static void start(const op *o)
{
    if (o->kind == 0) {
        uint32_t base = o->unit ? 0x020 : 0x010;
        wr(base + 0, o->fill.dst_addr);
        wr(base + 4, o->fill.dst_end);
        wr(base + 8, o->fill.value);
        pvk_mmio_write32(ctx, REG(base + 0xC), o->fill.cnt); /* may report the drop */
    } else {
        wr(0xC00, o->copy.src_addr);
        wr(0xC04, o->copy.dst_addr);
        wr(0xC08, o->copy.out_dim);
        wr(0xC0C, o->copy.in_dim);
        wr(0xC10, o->copy.flags);
        wr(0xC14, 0);
        wr(0xC20, o->copy.tex_size);
        wr(0xC24, o->copy.tex_src_width);
        wr(0xC28, o->copy.tex_dst_width);
        pvk_mmio_write32(ctx, REG(0xC18), 1);
    }
}

static pvk_irq irq_of(const op *o)
{
    return o->kind ? PVK_IRQ_PPF : o->unit ? PVK_IRQ_PSC1 : PVK_IRQ_PSC0;
}

/* After completion: the finished bit and IRQ flag are set; acknowledge them. */
static void check_done_and_ack(const op *o)
{
    if (o->kind == 0) {
        uint32_t base = o->unit ? 0x020 : 0x010, flag = 1u << (26 + o->unit);
        CHECK_EQ(rd(base + 0xC) & 3, 2);
        CHECK_EQ(rd(0x034) & flag, flag);
        wr(base + 0xC, 0);
        CHECK_EQ(rd(base + 0xC) & 3, 0);
    } else {
        CHECK_EQ(rd(0xC18) & 0x101, 0x100);
        CHECK_EQ(rd(0x034) & (1u << 30), 1u << 30);
        wr(0xC18, 0);
        CHECK_EQ(rd(0xC18) & 0x101, 0);
    }
}

static void compare_op(const op *o, const op *all, int n)
{
    if (o->kind) {
        arena *a = arena_of(o->src);
        if (a)
            compare(a, (uint64_t)o->src - WINDOW, (uint64_t)o->src + o->src_len + WINDOW, all, n);
    }
    arena *a = arena_of(o->dst);
    if (a)
        compare(a, (uint64_t)o->dst - WINDOW, (uint64_t)o->dst + o->dst_len + WINDOW, all, n);
}

static void poison_op(const op *o)
{
    if (o->kind)
        poison(o->src, o->src_len);
    poison(o->dst, o->dst_len ? o->dst_len : 16);
}

/* Runs `n` operations (disjoint when n > 1) started back to back. */
static void run(op *ops, int n)
{
    bool accepted[3];
    int irq_before[PVK_IRQ_COUNT];
    memcpy(irq_before, irq_count, sizeof irq_before);
    for (int i = 0; i < n; i++)
        poison_op(&ops[i]);
    int expect_drops = 0;
    for (int i = 0; i < n; i++) {
        accepted[i] = ops[i].kind ? ref_memcopy(&ref, &ops[i].copy) : ref_memfill(&ref, &ops[i].fill);
        expect_drops += !accepted[i];
        kind_count[ops[i].kind][accepted[i]]++;
        if (accepted[i])
            n_accepted++;
        else
            n_dropped++;
        n_ops++;
    }
    if (ref.fault) {
        fprintf(stderr, "test bug: the model touched memory outside the arenas\n");
        for (int i = 0; i < n; i++)
            describe(&ops[i]);
        ref.fault = 0;
        th_failures++;
    }
    pvk_stats s0, s1;
    pvk_get_stats(ctx, &s0);
    int errors0 = th_log_errors;
    th_quiet_errors = expect_drops > 0;
    for (int i = 0; i < n; i++)
        start(&ops[i]);
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    th_quiet_errors = 0;
    pvk_get_stats(ctx, &s1);
    uint64_t bad = s1.bad_input - s0.bad_input;
    int mismatch = 0;
    if (expect_drops) {
        th_checks++;
        if (bad < (uint64_t)expect_drops) {
            th_failures++;
            mismatch = 1;
            fprintf(stderr, "dropped operation(s) not counted in bad_input (%" PRIu64 " < %d)\n", bad, expect_drops);
        }
    } else {
        th_checks++;
        if (bad || th_log_errors != errors0) {
            th_failures++;
            mismatch = 1;
            fprintf(stderr, "accepted operation(s) reported an error: %s\n", th_last_error);
        }
    }
    if (mismatch && reports++ < 12)
        for (int i = 0; i < n; i++)
            describe(&ops[i]);
    for (int i = 0; i < PVK_IRQ_COUNT; i++) {
        int expect = irq_before[i];
        for (int k = 0; k < n; k++)
            expect += irq_of(&ops[k]) == (pvk_irq)i;
        CHECK_EQ(irq_count[i], expect);
    }
    for (int i = 0; i < n; i++)
        check_done_and_ack(&ops[i]);
    for (int i = 0; i < n; i++)
        compare_op(&ops[i], ops, n);
}

/* Parameters whose byte counts do not fit in 32 bits: whatever they wrap to,
 * the ranges lie outside every region, so they are dropped. */
static void huge_cases(void)
{
    static const struct {
        uint32_t out_dim, in_dim, flags, tex_size, src_width, dst_width;
    } cases[] = {
        /* display transfer, IW*OH*4 = W*H*4 = 2^32 + 1 MiB */
        {0x80088000u, 0x8000u, 0x0000u, 0, 0, 0},
        {0x80088000u, 0x8000u, 0x0002u, 0, 0, 0},
        {0x80088000u, 0x8000u, 0x0005u, 0, 0, 0},
        /* 2x1 downscale to RGB565: W*H*2 = 1 MiB, IW*OH*4 = 2^32 + 2 MiB */
        {0x80108000u, 0x8000u, 0x2000u | 1u << 24, 0, 0, 0},
        {0xFFF8FFF8u, 0xFFF8u, 0x0000u, 0, 0, 0},
        /* tiled->tiled: (rows - 1) * IW*8*4 = 2^32 */
        {0x80080008u, 0x8000u, 0x0020u, 0, 0, 0},
        {0x80080010u, 0x8000u, 0x0021u, 0, 0, 0},
        /* texture copy: (size/16 - 1) * (16 + gap) = 2^32 on one side */
        {0, 0, 0x000Cu, 0x00100010u, 0x0FFF0001u, 0},
        {0, 0, 0x000Cu, 0x00100010u, 0, 0x0FFF0001u},
        {0, 0, 0x000Cu, 0x00100010u, 0x0FFF0001u, 0x0FFF0001u},
        {0, 0, 0x0008u, 0xFFFFFFF0u, 0, 0},
        {0, 0, 0x000Cu, 0xFFFFFFF0u, 0xFFFF0001u, 0x00000001u},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        op o;
        memset(&o, 0, sizeof o);
        o.kind = cases[i].flags & 8 ? 3 : cases[i].flags & 0x20 ? 2 : 1;
        o.src = PVK_VRAM_BASE + 0x10000;
        o.dst = PVK_VRAM_BASE + 0x40000;
        o.src_len = o.dst_len = 0x1000;
        o.copy.src_addr = o.src >> 3;
        o.copy.dst_addr = o.dst >> 3;
        o.copy.out_dim = cases[i].out_dim;
        o.copy.in_dim = cases[i].in_dim;
        o.copy.flags = cases[i].flags;
        o.copy.tex_size = cases[i].tex_size;
        o.copy.tex_src_width = cases[i].src_width;
        o.copy.tex_dst_width = cases[i].dst_width;
        run(&o, 1);
        compare_all("huge parameters");
    }
}

static void run_mode(int mirror)
{
    pvk_config cfg = {.irq = on_irq};
    ctx = th_context(&cfg, mirror);
    ref_guest_init(&ref, NULL, 0, 0);
    ref.count = 0;
    for (int i = 0; i < N_ARENAS; i++) {
        arena *a = &arenas[i];
        a->lib = pvk_guest_ptr(ctx, a->base, a->size);
        CHECK(a->lib != NULL);
        if (!a->lib)
            exit(1);
        for (uint32_t k = 0; k < a->size; k++)
            a->shadow[k] = (uint8_t)th_rand();
        memcpy(a->lib, a->shadow, a->size);
        ref_guest_add(&ref, a->shadow, a->base, a->size);
    }
    huge_cases();
    op ops[3];
    for (int i = 0; i < OPS_SINGLE; i++) {
        if (th_rand() % 100 < 25)
            gen_fill(&ops[0], -1, -1);
        else
            gen_memcopy(&ops[0], -1);
        run(ops, 1);
        if (i % 32 == 31)
            compare_all("single operations");
    }
    for (int i = 0; i < OPS_BATCH; i++) {
        /* three distinct arenas: fill unit 0, fill unit 1, memcopy */
        int perm[N_ARENAS] = {0, 1, 2, 3};
        for (int k = N_ARENAS - 1; k > 0; k--) {
            int j = (int)(th_rand() % (uint32_t)(k + 1)), t = perm[k];
            perm[k] = perm[j];
            perm[j] = t;
        }
        gen_fill(&ops[0], perm[0], 0);
        gen_fill(&ops[1], perm[1], 1);
        gen_memcopy(&ops[2], perm[2]);
        run(ops, 3);
    }
    compare_all("end");
    th_release(ctx);
}

int main(void)
{
    for (int i = 0; i < N_ARENAS; i++) {
        arenas[i].shadow = malloc(arenas[i].size);
        if (!arenas[i].shadow)
            return 1;
    }
    for (int mirror = 0; mirror < 2; mirror++)
        run_mode(mirror);
    printf("operations: %d (%d accepted, %d dropped); fill %d/%d, display %d/%d, raw %d/%d, texture copy %d/%d "
           "(accepted/dropped)\n",
           n_ops, n_accepted, n_dropped, kind_count[0][1], kind_count[0][0], kind_count[1][1], kind_count[1][0],
           kind_count[2][1], kind_count[2][0], kind_count[3][1], kind_count[3][0]);
    for (int i = 0; i < N_ARENAS; i++)
        free(arenas[i].shadow);
    return th_finish("test_transfer_diff");
}
