/* GPU traces: record what a host hands picavk, replay it anywhere.
 *
 * File: an 8-byte magic "PVKTRC\r\n", u32 version, u32 flags (bit 0 New 3DS),
 * then one zstd stream of records.  A record is u8 type, u32 payload length
 * (little endian), payload.  The stream opens with snapshots of the external
 * and internal register files; guest memory enters as MEMORY records of whole
 * 4 KiB pages the first time the GPU touches them and again whenever their
 * contents changed since (hash per page), so a trace carries only what the
 * GPU used.  Readers check every length against the record type and the
 * bytes left; nothing in a file is trusted. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>
#include <zstd.h>

#include "runtime/runtime.h"

#define TRACE_MAGIC "PVKTRC\r\n"
/* 2: the internal-state record is the translator's versioned snapshot
 *    (pvk_pica_state_save), starting with its own version word.
 * 1: the same words without that version word (the snapshot's version 1). */
#define TRACE_VERSION 2u
#define PAGE 4096u
#define MAX_RECORD (PAGE + 64u + 4u * (PVK_MMIO_WORDS + 2 * PVK_LCD_LUT_SIZE) + sizeof(pvk_pica))

enum {
    REC_EXTERNAL = 1, /* u32 regs[PVK_MMIO_WORDS], u32 lut[2][256] */
    REC_INTERNAL = 2, /* the translator's register-file snapshot (pvk_pica_state_save) */
    REC_MMIO = 3,     /* u32 paddr, u32 value */
    REC_MEMORY = 4,   /* u32 paddr, bytes */
    REC_VBLANK = 5,   /* empty: one 3DS frame */
    REC_END = 6,      /* u32 frames: the recorder closed the file */
};

struct pvk_trace {
    FILE *f;
    ZSTD_CCtx *zc;
    uint8_t *buf; /* uncompressed records waiting for compression */
    size_t len, cap;
    uint8_t *out;
    size_t out_cap;
    uint64_t *page_hash[PVK_REGION_COUNT]; /* 0 = not yet in the trace */
    uint32_t frames;
    bool failed;
};

static void compress(pvk_trace *t, ZSTD_EndDirective mode)
{
    ZSTD_inBuffer in = {t->buf, t->len, 0};
    for (;;) {
        ZSTD_outBuffer out = {t->out, t->out_cap, 0};
        size_t left = ZSTD_compressStream2(t->zc, &out, &in, mode);
        if (ZSTD_isError(left) || fwrite(t->out, 1, out.pos, t->f) != out.pos) {
            t->failed = true;
            break;
        }
        if (mode == ZSTD_e_continue ? in.pos == in.size : left == 0)
            break;
    }
    t->len = 0;
}

/* Append one record; payload parts a (len_a) and b (len_b) are concatenated. */
static void emit(pvk_trace *t, uint8_t type, const void *a, uint32_t len_a, const void *b, uint32_t len_b)
{
    size_t need = 5 + (size_t)len_a + len_b;
    if (t->len + need > t->cap)
        compress(t, ZSTD_e_continue);
    uint8_t *p = t->buf + t->len;
    p[0] = type;
    pvk_put_le32(p + 1, len_a + len_b);
    if (len_a)
        memcpy(p + 5, a, len_a);
    if (len_b)
        memcpy(p + 5 + len_a, b, len_b);
    t->len += need;
}

static bool emit_snapshot(pvk_context *ctx, pvk_trace *t)
{
    emit(t, REC_EXTERNAL, ctx->vram.mmio.regs, sizeof ctx->vram.mmio.regs, ctx->vram.mmio.lut,
         sizeof ctx->vram.mmio.lut);
    size_t n = pvk_pica_state_save(&ctx->pica, NULL, 0);
    uint8_t *st = malloc(n);
    if (!st)
        return false;
    pvk_pica_state_save(&ctx->pica, st, n);
    emit(t, REC_INTERNAL, st, (uint32_t)n, NULL, 0);
    free(st);
    return true;
}

static void trace_free(pvk_trace *t)
{
    if (!t)
        return;
    if (t->f)
        fclose(t->f);
    ZSTD_freeCCtx(t->zc);
    free(t->buf);
    free(t->out);
    for (int i = 0; i < PVK_REGION_COUNT; i++)
        free(t->page_hash[i]);
    free(t);
}

/* The GPU is about to use these guest bytes: record pages not yet in the
 * trace (the guest-memory observer while recording). */
static void trace_observe(pvk_vram *vm, const pvk_guest_span *s)
{
    pvk_context *ctx = pvk_ctx_of_vram(vm);
    pvk_trace *t = ctx->trace;
    /* Record memory as the GPU will see it: after the work before it, with
     * render targets written back for every page recorded (a replay's
     * memory record replaces what a surface holds). */
    uint32_t lo = s->offset / PAGE * PAGE, hi = (s->offset + s->len - 1) / PAGE * PAGE + PAGE;
    /* a failed write-back is logged and counted (surface_writeback_failures):
     * the page is recorded as memory holds it */
    (void)pvk_guest_sync_for_read(&ctx->vram, s->region->base + lo, hi - lo);
    if (ctx->gpu.pending_count)
        pvk_gpu_idle(&ctx->gpu);
    int region = (int)(s->region - ctx->vram.guest.regions);
    for (uint32_t page = s->offset / PAGE; page <= (s->offset + s->len - 1) / PAGE; page++) {
        const uint8_t *bytes = s->region->host + (size_t)page * PAGE;
        uint64_t h = XXH3_64bits(bytes, PAGE) | 1; /* never 0: 0 means "not recorded" */
        if (t->page_hash[region][page] == h)
            continue;
        t->page_hash[region][page] = h;
        uint8_t addr[4];
        pvk_put_le32(addr, s->region->base + page * PAGE);
        emit(t, REC_MEMORY, addr, 4, bytes, PAGE);
    }
}

pvk_result pvk_trace_start(pvk_context *ctx, const char *path)
{
    if (ctx->trace) {
        pvk_log(&ctx->gpu, PVK_LOG_ERROR, "pvk_trace_begin: a trace is already being recorded");
        return PVK_ERROR_INVALID_ARGUMENT;
    }
    pvk_trace *t = calloc(1, sizeof *t);
    if (!t)
        return PVK_ERROR_OUT_OF_MEMORY;
    t->cap = 1u << 20;
    t->out_cap = ZSTD_CStreamOutSize();
    t->buf = malloc(t->cap);
    t->out = malloc(t->out_cap);
    t->zc = ZSTD_createCCtx();
    for (int i = 0; i < PVK_REGION_COUNT; i++)
        t->page_hash[i] = calloc(ctx->vram.guest.regions[i].size / PAGE, sizeof(uint64_t));
    if (!t->buf || !t->out || !t->zc || !t->page_hash[0] || !t->page_hash[1] || !t->page_hash[2]) {
        trace_free(t);
        return PVK_ERROR_OUT_OF_MEMORY;
    }
    ZSTD_CCtx_setParameter(t->zc, ZSTD_c_compressionLevel, 3);
    t->f = fopen(path, "wb");
    if (!t->f) {
        pvk_log(&ctx->gpu, PVK_LOG_ERROR, "pvk_trace_begin: cannot create %s", path);
        trace_free(t);
        return PVK_ERROR_IO;
    }
    uint8_t head[16];
    memcpy(head, TRACE_MAGIC, 8);
    pvk_put_le32(head + 8, TRACE_VERSION);
    pvk_put_le32(head + 12, ctx->gpu.cfg.new_3ds ? 1 : 0);
    fwrite(head, 1, sizeof head, t->f);
    /* Work in flight would change memory after we snapshot it. */
    pvk_gpu_idle(&ctx->gpu);
    if (!emit_snapshot(ctx, t)) {
        trace_free(t);
        return PVK_ERROR_OUT_OF_MEMORY;
    }
    ctx->trace = t;
    ctx->vram.guest.observe = trace_observe;
    return PVK_SUCCESS;
}

pvk_result pvk_trace_stop(pvk_context *ctx)
{
    pvk_trace *t = ctx->trace;
    uint8_t frames[4];
    pvk_put_le32(frames, t->frames);
    emit(t, REC_END, frames, 4, NULL, 0);
    compress(t, ZSTD_e_end);
    bool failed = t->failed || fflush(t->f) != 0;
    ctx->trace = NULL;
    ctx->vram.guest.observe = NULL;
    trace_free(t);
    if (failed) {
        pvk_log(&ctx->gpu, PVK_LOG_ERROR, "pvk_trace_end: writing the trace failed");
        return PVK_ERROR_IO;
    }
    return PVK_SUCCESS;
}

void pvk_trace_mmio(pvk_context *ctx, uint32_t paddr, uint32_t value)
{
    uint8_t p[8];
    pvk_put_le32(p, paddr);
    pvk_put_le32(p + 4, value);
    emit(ctx->trace, REC_MMIO, p, 8, NULL, 0);
}

void pvk_trace_vblank(pvk_context *ctx)
{
    emit(ctx->trace, REC_VBLANK, NULL, 0, NULL, 0);
    ctx->trace->frames++;
}

/* ---- replay ---- */

typedef struct reader {
    FILE *f;
    ZSTD_DCtx *dc;
    uint8_t *in;
    size_t in_cap;
    ZSTD_inBuffer zin;
    uint8_t *buf; /* decompressed bytes not yet parsed: [pos, len) */
    size_t pos, len, cap;
    bool eof;
} reader;

/* Make at least `n` decompressed bytes available; false at end of data. */
static bool fill(pvk_context *ctx, reader *r, size_t n, pvk_result *err)
{
    if (r->pos) {
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
        r->len -= r->pos;
        r->pos = 0;
    }
    while (r->len < n) {
        if (r->zin.pos == r->zin.size) {
            if (r->eof)
                return false;
            r->zin.src = r->in;
            r->zin.size = fread(r->in, 1, r->in_cap, r->f);
            r->zin.pos = 0;
            if (r->zin.size == 0) {
                r->eof = true;
                return false;
            }
        }
        ZSTD_outBuffer out = {r->buf, r->cap, r->len};
        size_t ret = ZSTD_decompressStream(r->dc, &out, &r->zin);
        if (ZSTD_isError(ret)) {
            pvk_bad_input(&ctx->gpu, "trace: corrupt compressed data (%s)", ZSTD_getErrorName(ret));
            *err = PVK_ERROR_BAD_DATA;
            return false;
        }
        r->len = out.pos;
    }
    return true;
}

pvk_result pvk_trace_play(pvk_context *ctx, const char *path, uint32_t from, const void *state, size_t state_size,
                          pvk_frame_fn on_frame, void *user)
{
    if (ctx->trace) {
        pvk_log(&ctx->gpu, PVK_LOG_ERROR, "trace: cannot replay while recording");
        return PVK_ERROR_INVALID_ARGUMENT;
    }
    reader r = {0};
    pvk_result err = PVK_SUCCESS;
    r.f = fopen(path, "rb");
    if (!r.f) {
        pvk_log(&ctx->gpu, PVK_LOG_ERROR, "trace: cannot open %s", path);
        return PVK_ERROR_IO;
    }
    uint8_t head[16];
    if (fread(head, 1, 16, r.f) != 16 || memcmp(head, TRACE_MAGIC, 8)) {
        pvk_bad_input(&ctx->gpu, "trace: %s is not a picavk trace (bad magic)", path);
        fclose(r.f);
        return PVK_ERROR_BAD_DATA;
    }
    uint32_t version = pvk_get_le32(head + 8);
    if (version < 1 || version > TRACE_VERSION) {
        pvk_bad_input(&ctx->gpu, "trace: version %u is not supported (this picavk reads 1 to %u)", version,
                      TRACE_VERSION);
        fclose(r.f);
        return PVK_ERROR_BAD_DATA;
    }
    if ((pvk_get_le32(head + 12) & 1) != (ctx->gpu.cfg.new_3ds ? 1u : 0u))
        pvk_log(&ctx->gpu, PVK_LOG_WARN, "trace: recorded on a %s 3DS configuration",
                pvk_get_le32(head + 12) & 1 ? "New" : "Old");
    r.in_cap = ZSTD_DStreamInSize();
    r.cap = MAX_RECORD + ZSTD_DStreamOutSize();
    r.in = malloc(r.in_cap);
    r.buf = malloc(r.cap);
    r.dc = ZSTD_createDCtx();
    if (!r.in || !r.buf || !r.dc) {
        err = PVK_ERROR_OUT_OF_MEMORY;
        goto out;
    }
    uint32_t frames = 0;
    bool ended = false;
    /* With a save state: the records of frames before `from` only bring
     * guest memory up to date (the GPU uses no page without a record of its
     * bytes before), and the state replaces the trace's own snapshots. */
    if (state && from == 0 && (err = pvk_state_read(ctx, state, state_size)))
        goto out;
    while (!ended && fill(ctx, &r, 5, &err)) {
        uint8_t type = r.buf[r.pos];
        uint32_t len = pvk_get_le32(r.buf + r.pos + 1);
        if (len > MAX_RECORD) {
            pvk_bad_input(&ctx->gpu, "trace: record of %u bytes exceeds the limit", len);
            err = PVK_ERROR_BAD_DATA;
            break;
        }
        if (!fill(ctx, &r, 5 + (size_t)len, &err)) {
            if (!err) {
                pvk_bad_input(&ctx->gpu, "trace: truncated record");
                err = PVK_ERROR_BAD_DATA;
            }
            break;
        }
        const uint8_t *p = r.buf + r.pos + 5;
        r.pos += 5 + (size_t)len;
        bool skip = state && (frames < from || type == REC_EXTERNAL || type == REC_INTERNAL);
        if (skip && type != REC_MEMORY && type != REC_VBLANK && type != REC_END)
            continue;
        if (skip && type == REC_VBLANK) {
            if (len != 0)
                goto bad_len;
            if (++frames == from && (err = pvk_state_read(ctx, state, state_size)))
                goto out;
            continue;
        }
        switch (type) {
        case REC_EXTERNAL:
            if (len != sizeof ctx->vram.mmio.regs + sizeof ctx->vram.mmio.lut)
                goto bad_len;
        {
            pvk_gpu_idle(&ctx->gpu);
            uint32_t regs[PVK_MMIO_WORDS], lut[2][PVK_LCD_LUT_SIZE]; /* aligned copies of the record */
            memcpy(regs, p, sizeof regs);
            memcpy(lut, p + sizeof regs, sizeof lut);
            pvk_mmio_load(&ctx->vram, regs, (const uint32_t(*)[PVK_LCD_LUT_SIZE])lut, PVK_MMIO_WORDS);
        }
            break;
        case REC_INTERNAL: {
            /* version 1 files hold the snapshot's version-1 words without
             * the version word: give it one */
            uint8_t *st = malloc((size_t)len + 4);
            if (!st) {
                err = PVK_ERROR_OUT_OF_MEMORY;
                goto out;
            }
            size_t n = len;
            if (version == 1) {
                pvk_put_le32(st, 1);
                memcpy(st + 4, p, len);
                n += 4;
            } else {
                memcpy(st, p, len);
            }
            pvk_gpu_idle(&ctx->gpu);
            err = pvk_pica_state_load(&ctx->pica, st, n);
            free(st);
            if (err) {
                if (err == PVK_ERROR_BAD_DATA)
                    pvk_bad_input(&ctx->gpu,
                                  "trace: the internal register snapshot (%u bytes) is malformed or of an "
                                  "unknown version",
                                  len);
                goto out;
            }
            break;
        }
        case REC_MMIO:
            if (len != 8)
                goto bad_len;
            if (pvk_ctx_mmio_check(ctx, pvk_get_le32(p), "trace"))
                /* errors are logged and counted there */
                (void)pvk_ctx_mmio_write(ctx, pvk_get_le32(p), pvk_get_le32(p + 4));
            break;
        case REC_MEMORY: {
            if (len < 4)
                goto bad_len;
            uint32_t addr = pvk_get_le32(p);
            void *dst = pvk_guest_host(&ctx->vram, addr, len - 4, "trace memory record");
            if (!dst) {
                err = PVK_ERROR_BAD_DATA;
                goto out;
            }
            pvk_guest_before_cpu_write(&ctx->vram, addr, len - 4); /* the GPU may still read the old bytes */
            memcpy(dst, p + 4, len - 4);
            pvk_guest_invalidate(&ctx->vram, addr, len - 4);
            break;
        }
        case REC_VBLANK:
            if (len != 0)
                goto bad_len;
            if ((err = pvk_lcd_vblank(ctx)))
                goto out;
            if (on_frame && (err = on_frame(user, ctx, frames)))
                goto out;
            frames++;
            break;
        case REC_END:
            if (len != 4)
                goto bad_len;
            if (pvk_get_le32(p) != frames)
                pvk_log(&ctx->gpu, PVK_LOG_WARN, "trace: %u frames replayed, the recorder counted %u", frames,
                        pvk_get_le32(p));
            ended = true;
            break;
        default:
            pvk_bad_input(&ctx->gpu, "trace: unknown record type %u", type);
            err = PVK_ERROR_BAD_DATA;
            goto out;
        }
        continue;
    bad_len:
        pvk_bad_input(&ctx->gpu, "trace: record type %u has a bad length %u", type, len);
        err = PVK_ERROR_BAD_DATA;
        goto out;
    }
    if (!err && !ended) {
        pvk_bad_input(&ctx->gpu, "trace: %s ends without an end record (truncated?)", path);
        err = PVK_ERROR_BAD_DATA;
    }
    if (!err && state && frames < from) {
        pvk_log(&ctx->gpu, PVK_LOG_ERROR, "trace: %s has %u frames, the state is for frame %u", path, frames, from);
        err = PVK_ERROR_INVALID_ARGUMENT;
    }
out:
    {
        pvk_result rs = pvk_guest_sync_all(&ctx->vram); /* the replay is over: guest memory as recorded */
        if (!err)
            err = rs;
    }
    pvk_gpu_idle(&ctx->gpu);
    ZSTD_freeDCtx(r.dc);
    free(r.in);
    free(r.buf);
    fclose(r.f);
    return err;
}

/* Count the VBlank records without applying anything (for progress
 * displays): PVK_ERROR_BAD_DATA on anything malformed, quietly. */
pvk_result pvk_trace_count_frames(const char *path, uint32_t *frames)
{
    *frames = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return PVK_ERROR_IO;
    uint8_t head[16];
    pvk_result r = PVK_SUCCESS;
    size_t in_cap = ZSTD_DStreamInSize(), cap = MAX_RECORD + ZSTD_DStreamOutSize(), len = 0;
    uint8_t *in = malloc(in_cap), *buf = malloc(cap);
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    if (!in || !buf || !dc) {
        r = PVK_ERROR_OUT_OF_MEMORY;
        goto out;
    }
    if (fread(head, 1, 16, f) != 16 || memcmp(head, TRACE_MAGIC, 8) || pvk_get_le32(head + 8) < 1 ||
        pvk_get_le32(head + 8) > TRACE_VERSION) {
        r = PVK_ERROR_BAD_DATA;
        goto out;
    }
    ZSTD_inBuffer zin = {in, 0, 0};
    for (;;) {
        /* parse whole records in buf[0, len) */
        size_t pos = 0;
        while (len - pos >= 5) {
            uint32_t rl = pvk_get_le32(buf + pos + 1);
            if (rl > MAX_RECORD) {
                r = PVK_ERROR_BAD_DATA;
                goto out;
            }
            if (len - pos < 5 + (size_t)rl)
                break;
            if (buf[pos] == REC_VBLANK)
                ++*frames;
            if (buf[pos] == REC_END)
                goto out;
            pos += 5 + (size_t)rl;
        }
        memmove(buf, buf + pos, len - pos);
        len -= pos;
        if (zin.pos == zin.size) {
            zin.size = fread(in, 1, in_cap, f);
            zin.pos = 0;
            if (!zin.size) {
                r = PVK_ERROR_BAD_DATA; /* no end record: truncated */
                goto out;
            }
        }
        ZSTD_outBuffer zout = {buf, cap, len};
        size_t ret = ZSTD_decompressStream(dc, &zout, &zin);
        if (ZSTD_isError(ret)) {
            r = PVK_ERROR_BAD_DATA;
            goto out;
        }
        len = zout.pos;
    }
out:
    ZSTD_freeDCtx(dc);
    free(in);
    free(buf);
    fclose(f);
    return r;
}
