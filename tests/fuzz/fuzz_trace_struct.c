/* Fuzz target: picavk trace replay, structure-aware.  The input is a record
 * sequence (tests/fuzz/trace_struct.h) that this target compresses into a
 * valid trace file, so mutations reach the replayed register writes, memory
 * and command lists rather than dying in zstd (fuzz_trace keeps fuzzing the
 * file bytes themselves).  PVK_FUZZ_DUMP=FILE keeps the last trace built, for
 * `picavk replay`. */
#define _GNU_SOURCE /* memfd_create */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <zstd.h>

#include "fuzz_common.h"
#include "runtime/runtime.h"
#include "trace_struct.h"

typedef struct cursor {
    const uint8_t *p;
    size_t n;
} cursor;

typedef struct out {
    uint8_t *p;
    size_t n, cap;
} out;

static int trace_fd = -1;
static char trace_path[64];
static uint8_t *internal0, *external0; /* a fresh context's snapshots */
static size_t internal0_len, external0_len;
static uint8_t *scratch; /* one record's payload */
static size_t scratch_cap;

static uint32_t take(cursor *c, int bytes)
{
    uint32_t v = 0;
    for (int i = 0; i < bytes; i++)
        if (c->n) {
            v |= (uint32_t)c->p[0] << (8 * i);
            c->p++;
            c->n--;
        }
    return v;
}

static const uint8_t *take_bytes(cursor *c, size_t *len)
{
    if (*len > c->n)
        *len = c->n;
    const uint8_t *p = c->p;
    c->p += *len;
    c->n -= *len;
    return p;
}

static void reserve(out *o, size_t n)
{
    if (o->n + n > o->cap) {
        o->cap = (o->n + n) * 2;
        o->p = realloc(o->p, o->cap);
        if (!o->p)
            abort();
    }
}

static void put(out *o, const void *d, size_t n)
{
    reserve(o, n);
    if (n)
        memcpy(o->p + o->n, d, n);
    o->n += n;
}

static void put32(out *o, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(o, b, 4);
}

static void record(out *o, uint8_t type, const void *payload, uint32_t len)
{
    put(o, &type, 1);
    put32(o, len);
    put(o, payload, len);
}

static void mmio(out *o, uint32_t addr, uint32_t value)
{
    uint8_t p[8];
    memcpy(p, &addr, 4); /* x86: little endian, as the file */
    memcpy(p + 4, &value, 4);
    record(o, TS_REC_MMIO, p, 8);
}

static uint8_t *payload(size_t n)
{
    if (n > scratch_cap) {
        scratch_cap = n;
        scratch = realloc(scratch, n);
        if (!scratch)
            abort();
    }
    return scratch;
}

static uint32_t guest_addr(cursor *c)
{
    static const uint32_t base[] = {0x18000000, 0x20000000, 0x1FF00000};
    static const uint32_t size[] = {0x600000, 0x8000000, 0x80000};
    uint32_t region = take(c, 1) % TS_REGIONS, off = take(c, 4);
    return region == 3 ? off : base[region] + off % size[region];
}

/* A memory record of `len` bytes from `src`, or of `pattern` repeated. */
static void memory(out *o, uint32_t addr, const uint8_t *src, size_t len, uint32_t pattern)
{
    uint8_t *p = payload(4 + len);
    memcpy(p, &addr, 4);
    if (src)
        memcpy(p + 4, src, len);
    else
        for (size_t i = 0; i < len; i++)
            p[4 + i] = (uint8_t)(pattern >> (i % 4 * 8));
    record(o, TS_REC_MEMORY, p, (uint32_t)(4 + len));
}

/* The fresh snapshot with (index, value) patches from the input. */
static void snapshot(out *o, cursor *c, uint8_t type, const uint8_t *base, size_t len)
{
    uint8_t *p = payload(len);
    memcpy(p, base, len);
    uint32_t patches = take(c, 2), words = (uint32_t)(len / 4);
    for (uint32_t i = 0; i < patches && c->n; i++) {
        uint32_t at = take(c, 2) % words, v = take(c, 4);
        memcpy(p + 4 * at, &v, 4);
    }
    record(o, type, p, (uint32_t)len);
}

static void build(out *o, cursor *c, int flags)
{
    record(o, TS_REC_EXTERNAL, external0, (uint32_t)external0_len);
    /* format 1 has the snapshot without its version word */
    int v1 = flags & TS_FLAG_VERSION1;
    record(o, TS_REC_INTERNAL, internal0 + (v1 ? 4 : 0), (uint32_t)(internal0_len - (v1 ? 4 : 0)));
    uint32_t frames = 0;
    while (c->n) {
        uint32_t op = take(c, 1) % TS_OP_COUNT;
        switch (op) {
        case TS_MMIO: {
            uint32_t off = take(c, 2) & 0x1FFC;
            mmio(o, 0x10400000 + off, take(c, 4));
            break;
        }
        case TS_MMIO_RAW: {
            uint32_t addr = take(c, 4);
            mmio(o, addr, take(c, 4));
            break;
        }
        case TS_MEMORY:
        case TS_FILL: {
            int fill = op == TS_FILL;
            uint32_t addr = guest_addr(c);
            size_t len = take(c, 2);
            if (fill) {
                memory(o, addr, NULL, len, take(c, 4));
            } else {
                const uint8_t *src = take_bytes(c, &len);
                memory(o, addr, src, len, 0);
            }
            break;
        }
        case TS_CMDLIST: {
            uint32_t addr = guest_addr(c) & ~15u;
            size_t len = take(c, 1) * 8u;
            const uint8_t *src = take_bytes(c, &len);
            len &= ~(size_t)7;
            memory(o, addr, src, len, 0);
            mmio(o, 0x104018E0, (uint32_t)len >> 3);
            mmio(o, 0x104018E8, addr >> 3);
            mmio(o, 0x104018F0, 1);
            break;
        }
        case TS_VBLANK:
            record(o, TS_REC_VBLANK, NULL, 0);
            frames++;
            break;
        case TS_INTERNAL:
            snapshot(o, c, TS_REC_INTERNAL, internal0 + (v1 ? 4 : 0), internal0_len - (v1 ? 4 : 0));
            break;
        case TS_EXTERNAL:
            snapshot(o, c, TS_REC_EXTERNAL, external0, external0_len);
            break;
        case TS_RAW: {
            uint8_t type = (uint8_t)take(c, 1);
            size_t len = take(c, 2);
            const uint8_t *src = take_bytes(c, &len);
            record(o, type, src, (uint32_t)len);
            break;
        }
        }
    }
    if (!(flags & TS_FLAG_NO_END)) {
        uint32_t f = frames + (flags & TS_FLAG_BAD_FRAMES ? 1 : 0);
        record(o, TS_REC_END, &f, 4);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) {
        ready = 1;
        pvk_context *ctx = fuzz_ctx;
        internal0_len = pvk_pica_state_save(&ctx->pica, NULL, 0);
        internal0 = malloc(internal0_len);
        pvk_pica_state_save(&ctx->pica, internal0, internal0_len);
        external0_len = sizeof ctx->vram.mmio.regs + sizeof ctx->vram.mmio.lut;
        external0 = malloc(external0_len);
        memcpy(external0, ctx->vram.mmio.regs, sizeof ctx->vram.mmio.regs);
        memcpy(external0 + sizeof ctx->vram.mmio.regs, ctx->vram.mmio.lut, sizeof ctx->vram.mmio.lut);
        /* the trace lives in memory; the reader opens it by path */
        trace_fd = memfd_create("pvk-fuzz-trace", 0);
        if (trace_fd < 0)
            abort();
        snprintf(trace_path, sizeof trace_path, "/proc/self/fd/%d", trace_fd);
    }
    cursor c = {data, size};
    int flags = (int)take(&c, 1);
    out rec = {0};
    build(&rec, &c, flags);

    size_t bound = ZSTD_compressBound(rec.n);
    out file = {0};
    put(&file, "PVKTRC\r\n", 8);
    put32(&file, flags & TS_FLAG_VERSION1 ? 1 : 2);
    put32(&file, flags & TS_FLAG_NEW3DS ? 1 : 0);
    size_t head = file.n;
    reserve(&file, bound);
    size_t z = ZSTD_compress(file.p + head, bound, rec.p, rec.n, 1);
    if (ZSTD_isError(z))
        abort();
    file.n = head + z;
    if (flags & TS_FLAG_CUT)
        file.n -= z < 8 ? z : 8;
    free(rec.p);

    if (ftruncate(trace_fd, 0) || pwrite(trace_fd, file.p, file.n, 0) != (ssize_t)file.n)
        abort();
    const char *dump = getenv("PVK_FUZZ_DUMP");
    if (dump) {
        FILE *f = fopen(dump, "wb");
        if (f) {
            fwrite(file.p, 1, file.n, f);
            fclose(f);
        }
    }
    free(file.p);
    pvk_trace_replay(fuzz_ctx, trace_path, NULL, NULL);
    fuzz_check();
    return 0;
}
