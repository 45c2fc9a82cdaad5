/* CiTrace import: a file built here from the documented layout plays back
 * (memory loads, register writes in both element layouts, sub-word writes,
 * frame markers); damaged files are refused without a crash. */
#include "harness.h"

typedef struct buf {
    uint8_t *p;
    size_t n, cap;
} buf;

static void put(buf *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}
static void put32(buf *b, uint32_t v) { put(b, &v, 4); } /* x86: little endian */
static void set32(buf *b, size_t at, uint32_t v) { memcpy(b->p + at, &v, 4); }

/* Header, 4 GPU registers and 2 PICA registers of initial state, 64 bytes of
 * memory data, then the stream. */
static buf make_trace(void)
{
    buf b = {0};
    put(&b, "CiTr", 4);
    put32(&b, 1);
    put32(&b, 100);
    for (int i = 0; i < 20; i++)
        put32(&b, 0);
    put32(&b, 0); /* stream offset */
    put32(&b, 0); /* stream count */
    set32(&b, 12, 100); /* gpu registers at 100, 4 words */
    set32(&b, 16, 4);
    set32(&b, 28, 116); /* pica registers at 116, 0x42 words */
    set32(&b, 32, 0x42);
    for (int i = 0; i < 10; i++) /* the others: empty, at the end of the blocks */
        if (i != 0 && i != 2)
            set32(&b, 12 + 8 * i, 116 + 4 * 0x42);
    put32(&b, 0x00010002); /* gpu regs 0..3 */
    put32(&b, 0xABCD0000); /* GPU_VRAM_CNT */
    put32(&b, 0);
    put32(&b, 0);
    for (uint32_t i = 0; i < 0x42; i++) /* pica regs 0..0x41 */
        put32(&b, i == 0x41 ? 0x11111111 : 0);
    uint32_t data_off = (uint32_t)b.n;
    for (int i = 0; i < 64; i++) {
        uint8_t v = (uint8_t)(i * 3 + 1);
        put(&b, &v, 1);
    }
    uint32_t stream = (uint32_t)b.n;
    set32(&b, 92, stream);
    uint32_t count = 0;
#define ELEM(t, a, bb, c, d)        \
    do {                            \
        put32(&b, t);               \
        put32(&b, a);               \
        put32(&b, bb);              \
        put32(&b, c);               \
        put32(&b, d);               \
        count++;                    \
    } while (0)
    ELEM(0xE2, data_off, 64, 0x20000000, 0);               /* memory load */
    ELEM(0xE3, 0x10400010, 0xD3, 0x18000000 >> 3, 0);      /* fill start (current layout) */
    ELEM(0xE3, 0xD3, 0x10400014, (0x18000000 + 32) >> 3, 0); /* fill end (other layout) */
    ELEM(0xE3, 0x10400018, 0xD3, 0xA1B2C3D4, 0);
    ELEM(0xE3, 0x1040001C, 0xD3, 0x201, 0);
    ELEM(0xE1, 0, 0, 0, 0);                                /* frame */
    ELEM(0xE3, 0x10400C15, 0xD1, 0x5A, 0);                 /* byte write into 0xC14 bits 8-15 */
    ELEM(0xE3, 0x10400048, 0xD4, 0x55667788, 0x99AABBCC);  /* 64-bit: 0x048 and 0x04C */
    ELEM(0xE1, 0, 0, 0, 0);
    set32(&b, 96, count);
    return b;
}

static uint32_t frames_seen;
static pvk_result on_frame(void *user, pvk_context *ctx, uint32_t frame)
{
    (void)user;
    (void)ctx;
    CHECK_EQ(frame, frames_seen);
    frames_seen++;
    return PVK_SUCCESS;
}

static uint32_t rd(pvk_context *ctx, uint32_t a)
{
    uint32_t v = 0;
    pvk_mmio_read32(ctx, a, &v);
    return v;
}

static void expect_refused(const buf *b)
{
    pvk_context *ctx = th_context(NULL, 0);
    th_quiet_errors = 1;
    CHECK_EQ(pvk_citrace_replay_memory(ctx, b->p, b->n, NULL, NULL), PVK_ERROR_BAD_DATA);
    th_quiet_errors = 0;
    th_release(ctx);
}

int main(void)
{
    buf b = make_trace();
    pvk_context *ctx = th_context(NULL, 0);
    frames_seen = 0;
    CHECK_EQ(pvk_citrace_replay_memory(ctx, b.p, b.n, on_frame, NULL), PVK_SUCCESS);
    CHECK_EQ(frames_seen, 2);
    const uint8_t *m = pvk_guest_ptr(ctx, 0x20000000, 64);
    for (int i = 0; i < 64; i++)
        CHECK_EQ(m[i], (uint8_t)(i * 3 + 1));
    const uint32_t *v = pvk_guest_ptr(ctx, 0x18000000, 36);
    for (int i = 0; i < 8; i++)
        CHECK_EQ(v[i], 0xA1B2C3D4);
    CHECK_EQ(v[8], 0);
    CHECK_EQ(rd(ctx, 0x10400004), 0xABCD0000);  /* initial GPU register state */
    CHECK_EQ(rd(ctx, 0x10401104), 0x11111111);  /* initial PICA register state (id 0x41) */
    CHECK_EQ(rd(ctx, 0x10400C14), 0x5A00);      /* sub-word write merged */
    CHECK_EQ(rd(ctx, 0x10400048), 0x55667788);
    th_release(ctx);

    /* damage: each must be refused */
    buf d = {malloc(b.n), b.n, b.n};
    size_t cuts[] = {0, 3, 99, 100, b.n - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        memcpy(d.p, b.p, b.n);
        d.n = cuts[i];
        expect_refused(&d);
    }
    d.n = b.n;
    static const struct { size_t at; uint32_t v; } pokes[] = {
        {0, 0x58585858},      /* magic */
        {4, 2},               /* version */
        {8, 5},               /* header size */
        {12, 0xFFFFFFF0},     /* gpu register block offset */
        {16, 0x40000000},     /* gpu register block size */
        {92, 0xFFFFFFFF},     /* stream offset */
        {96, 0x10000000},     /* stream count */
    };
    for (size_t i = 0; i < sizeof pokes / sizeof pokes[0]; i++) {
        memcpy(d.p, b.p, b.n);
        set32(&d, pokes[i].at, pokes[i].v);
        expect_refused(&d);
    }
    uint32_t stream;
    memcpy(&stream, b.p + 92, 4);
    memcpy(d.p, b.p, b.n);
    set32(&d, stream, 0x77); /* unknown element type */
    expect_refused(&d);
    memcpy(d.p, b.p, b.n);
    set32(&d, stream + 4, 0xFFFFFF00); /* memory data outside the file */
    expect_refused(&d);
    memcpy(d.p, b.p, b.n);
    set32(&d, stream + 20 + 8, 0x1234); /* register write without a size code */
    expect_refused(&d);
    /* memory load to an address outside guest memory: logged and counted, play goes on */
    memcpy(d.p, b.p, b.n);
    set32(&d, stream + 12, 0x00001000);
    ctx = th_context(NULL, 0);
    th_quiet_errors = 1;
    CHECK_EQ(pvk_citrace_replay_memory(ctx, d.p, d.n, NULL, NULL), PVK_SUCCESS);
    th_quiet_errors = 0;
    pvk_stats st;
    pvk_get_stats(ctx, &st);
    CHECK_EQ(st.out_of_range, 1);
    th_release(ctx);
    free(d.p);
    free(b.p);
    return th_finish("test_citrace");
}
