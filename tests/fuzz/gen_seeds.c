/* Writes fuzz seeds from real picavk traces: the same session as a
 * fuzz_trace_struct input (tests/fuzz/trace_struct.h) and as a Citra
 * CiTrace file for fuzz_citrace, so both fuzzers start from streams that draw,
 * transfer and update memory instead of from a handful of hand-made bytes.
 *
 *   gen_seeds OUTDIR NAME [--setup S.pvs] [--frames N] SCENE.pvs... | TRACE.pvt
 *
 * Scenes run on a fresh context while a trace records them (after the
 * untraced setup scene, whose state then enters through the snapshots); a
 * .pvt is converted as it is.  Writes OUTDIR/fuzz_trace_struct/NAME.bin and
 * OUTDIR/fuzz_citrace/NAME.ctf.  To keep seeds small, memory records that a
 * VBlank reads (scan-out) or a display transfer of more than 4 pages reads
 * (a rendered frame) are left out, as the replay makes them again, and so are
 * zero pages (a fresh context's contents); pages of one repeated word become fills, other pages lose their trailing zero bytes,
 * and CiTrace pages with equal bytes share their data.  scripts/gen-seeds.sh
 * makes the stored seeds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "runtime/runtime.h"
#include "tools/tools.h"
#include "trace_struct.h"

typedef struct buf {
    uint8_t *p;
    size_t n, cap;
} buf;

static void put(buf *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        if (!b->p)
            exit(2);
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}
static void put8(buf *b, uint32_t v) { put(b, &(uint8_t){(uint8_t)v}, 1); }
static void put16(buf *b, uint32_t v) { put(b, &(uint16_t){(uint16_t)v}, 2); } /* x86: little endian */
static void put32(buf *b, uint32_t v) { put(b, &v, 4); }
static void set32(buf *b, size_t at, uint32_t v) { memcpy(b->p + at, &v, 4); }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint32_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static void set16(buf *b, size_t at, uint32_t v) { memcpy(b->p + at, &(uint16_t){(uint16_t)v}, 2); }

static int fail(const char *what)
{
    fprintf(stderr, "gen_seeds: %s\n", what);
    return 1;
}

static int read_file(const char *path, buf *b)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    uint8_t chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        put(b, chunk, n);
    fclose(f);
    return 1;
}

static int write_file(const char *dir, const char *sub, const char *name, const char *ext, const buf *b)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/%s.%s", dir, sub, name, ext);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b->p, 1, b->n, f) != b->n || fclose(f))
        return fail("cannot write a seed (does OUTDIR/fuzz_trace_struct exist?)");
    printf("%s: %zu bytes\n", path, b->n);
    return 0;
}

/* The trace's records, decompressed: [type u8][len u32][payload]... */
static int decompress(const buf *file, buf *rec)
{
    if (file->n < 16 || memcmp(file->p, "PVKTRC\r\n", 8) || get32(file->p + 8) != 2)
        return fail("not a version-2 picavk trace");
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    ZSTD_inBuffer in = {file->p + 16, file->n - 16, 0};
    uint8_t chunk[1 << 16];
    while (in.pos < in.size) {
        ZSTD_outBuffer o = {chunk, sizeof chunk, 0};
        size_t r = ZSTD_decompressStream(dc, &o, &in);
        if (ZSTD_isError(r)) {
            ZSTD_freeDCtx(dc);
            return fail("corrupt trace");
        }
        put(rec, chunk, o.pos);
    }
    ZSTD_freeDCtx(dc);
    return 0;
}

static const uint32_t region_base[] = {0x18000000, 0x20000000, 0x1FF00000};
static const uint32_t region_size[] = {0x600000, 0x8000000, 0x80000};

static uint32_t region_of(uint32_t addr, uint32_t *off)
{
    for (uint32_t r = 0; r < 3; r++)
        if (addr - region_base[r] < region_size[r]) {
            *off = addr - region_base[r];
            return r;
        }
    *off = addr;
    return 3;
}

/* Patches turning snapshot `base` into `now` (same length, in words). */
static void patches(buf *s, const uint8_t *base, const uint8_t *now, size_t len)
{
    uint32_t count = 0;
    for (size_t i = 0; i < len / 4; i++)
        count += get32(base + 4 * i) != get32(now + 4 * i);
    put16(s, count);
    for (size_t i = 0; i < len / 4; i++)
        if (get32(base + 4 * i) != get32(now + 4 * i)) {
            put16(s, (uint32_t)i);
            put32(s, get32(now + 4 * i));
        }
}

/* Words of `w` up to the last one that is not 0. */
static uint32_t used_words(const uint32_t *w, uint32_t n)
{
    while (n && !w[n - 1])
        n--;
    return n;
}

typedef struct ct_block {
    const uint32_t *words;
    uint32_t count;
} ct_block;

int main(int argc, char **argv)
{
    if (argc < 4)
        return fail("usage: gen_seeds OUTDIR NAME [--setup S.pvs] [--frames N] SCENE.pvs... | TRACE.pvt");
    const char *outdir = argv[1], *name = argv[2], *setup = NULL;
    uint32_t max_frames = UINT32_MAX;
    int first = 3;
    for (; first < argc && !strncmp(argv[first], "--", 2); first += 2) {
        if (first + 1 >= argc)
            return fail("option without a value");
        if (!strcmp(argv[first], "--setup"))
            setup = argv[first + 1];
        else if (!strcmp(argv[first], "--frames"))
            max_frames = (uint32_t)strtoul(argv[first + 1], NULL, 0);
        else
            return fail("unknown option");
    }
    if (first >= argc)
        return fail("no input");

    pvk_context *ctx;
    if (pvk_context_create(&(pvk_config){.log_level = PVK_LOG_ERROR}, &ctx))
        return fail("cannot create a context");
    /* the fresh snapshots fuzz_trace_struct starts every input from */
    size_t int_len = pvk_pica_state_save(&ctx->pica, NULL, 0), ext_len = sizeof ctx->vram.mmio.regs + sizeof ctx->vram.mmio.lut;
    uint8_t *int0 = malloc(int_len), *ext0 = malloc(ext_len);
    pvk_pica_state_save(&ctx->pica, int0, int_len);
    memcpy(ext0, ctx->vram.mmio.regs, sizeof ctx->vram.mmio.regs);
    memcpy(ext0 + sizeof ctx->vram.mmio.regs, ctx->vram.mmio.lut, sizeof ctx->vram.mmio.lut);

    buf file = {0};
    size_t in_len = strlen(argv[first]);
    if (in_len > 4 && !strcmp(argv[first] + in_len - 4, ".pvt")) {
        if (!read_file(argv[first], &file))
            return fail("cannot read the trace");
    } else {
        int failures = 0;
        char tmp[] = "/tmp/pvk-gen-seeds-XXXXXX";
        int fd = mkstemp(tmp);
        if (fd < 0)
            return fail("no temporary file");
        if (setup && pvk_scene_run_file(ctx, setup, &failures))
            return fail("the setup scene failed");
        if (pvk_trace_begin(ctx, tmp))
            return fail("cannot record");
        for (int i = first; i < argc; i++)
            if (pvk_scene_run_file(ctx, argv[i], &failures))
                return fail("a scene failed");
        if (pvk_trace_end(ctx) || !read_file(tmp, &file))
            return fail("recording failed");
        remove(tmp);
    }
    buf rec = {0};
    if (decompress(&file, &rec))
        return 1;

    /* Memory records right before a VBlank are what its scan-out read. */
    size_t nrec = 0;
    for (size_t pos = 0; pos + 5 <= rec.n; pos += 5 + get32(rec.p + pos + 1))
        nrec++;
    uint8_t *keep = calloc(nrec + 1, 1);
    {
        size_t i = 0, run = 0;
        for (size_t pos = 0; pos + 5 <= rec.n; pos += 5 + get32(rec.p + pos + 1), i++) {
            uint8_t type = rec.p[pos];
            keep[i] = 1;
            if (type == TS_REC_MEMORY) {
                run++;
                continue;
            }
            if (type == TS_REC_VBLANK || (type == TS_REC_MMIO && get32(rec.p + pos + 5) == 0x10400C18 && run > 4))
                for (size_t k = i - run; k < i; k++)
                    keep[k] = 0;
            run = 0;
        }
    }

    pvk_pica *pica = calloc(1, sizeof *pica); /* the initial internal state, for the CiTrace blocks */
    uint32_t ext[PVK_MMIO_WORDS];
    memcpy(ext, ext0, sizeof ext);
    pvk_pica_state_load(pica, int0, int_len);

    buf st = {0}, data = {0}, elems = {0};
    put8(&st, 0);
    uint32_t frames = 0, count = 0, i = 0, fill_end = 0, fill_pattern = 0;
    size_t fill_at = 0, ndata = 0, *data_pos = NULL;
    uint32_t *data_len = NULL;
    for (size_t pos = 0; pos + 5 <= rec.n && frames < max_frames; pos += 5 + get32(rec.p + pos + 1), i++) {
        uint8_t type = rec.p[pos];
        uint32_t len = get32(rec.p + pos + 1);
        const uint8_t *p = rec.p + pos + 5;
        if (!keep[i])
            continue;
        if (type != TS_REC_MEMORY)
            fill_at = 0;
        switch (type) {
        case TS_REC_EXTERNAL:
            put8(&st, TS_EXTERNAL);
            patches(&st, ext0, p, len);
            memcpy(ext, p, sizeof ext);
            break;
        case TS_REC_INTERNAL:
            put8(&st, TS_INTERNAL);
            patches(&st, int0, p, len);
            if (pvk_pica_state_load(pica, p, len))
                return fail("bad internal snapshot");
            break;
        case TS_REC_MMIO: {
            uint32_t addr = get32(p), value = get32(p + 4);
            if (addr - 0x10400000u <= 0x1FFC && !(addr & 3)) {
                put8(&st, TS_MMIO);
                put16(&st, addr - 0x10400000u);
            } else {
                put8(&st, TS_MMIO_RAW);
                put32(&st, addr);
            }
            put32(&st, value);
            /* both element layouts CiTrace recorders use */
            put32(&elems, 0xE3);
            put32(&elems, count & 1 ? 0xD3 : addr);
            put32(&elems, count & 1 ? addr : 0xD3);
            put32(&elems, value);
            put32(&elems, 0);
            count++;
            break;
        }
        case TS_REC_MEMORY: {
            uint32_t addr = get32(p), n = len - 4, off;
            const uint8_t *bytes = p + 4;
            uint32_t r = region_of(addr, &off);
            int periodic = n >= 4;
            for (uint32_t k = 4; k < n && periodic; k++)
                periodic = bytes[k] == bytes[k - 4];
            if (periodic && !get32(bytes))
                break; /* zero pages: what a fresh context holds */
            if (periodic) {
                /* a fill continuing the previous one grows it */
                uint32_t pattern = get32(bytes);
                if (fill_at && fill_end == addr && fill_pattern == pattern && get16(st.p + fill_at) + n <= 0xFFFF) {
                    set16(&st, fill_at, get16(st.p + fill_at) + n);
                } else {
                    put8(&st, TS_FILL);
                    put8(&st, r);
                    put32(&st, off);
                    fill_at = st.n;
                    put16(&st, n);
                    put32(&st, pattern);
                }
                fill_end = addr + n;
                fill_pattern = pattern;
            } else {
                while (n && !bytes[n - 1])
                    n--;
                if (!n)
                    break;
                put8(&st, TS_MEMORY);
                put8(&st, r);
                put32(&st, off);
                put16(&st, n);
                put(&st, bytes, n);
                fill_at = 0;
            }
            /* CiTrace: pages with the same bytes share their data */
            uint32_t data_off = (uint32_t)data.n;
            for (size_t k = 0; k < ndata; k++)
                if (data_len[k] == n && !memcmp(data.p + data_pos[k], bytes, n)) {
                    data_off = data_pos[k];
                    break;
                }
            if (data_off == data.n) {
                data_pos = realloc(data_pos, (ndata + 1) * sizeof *data_pos);
                data_len = realloc(data_len, (ndata + 1) * sizeof *data_len);
                data_pos[ndata] = data_off;
                data_len[ndata++] = n;
                put(&data, bytes, n);
            }
            put32(&elems, 0xE2);
            put32(&elems, data_off); /* relative until the layout is known */
            put32(&elems, n);
            put32(&elems, addr);
            put32(&elems, 0);
            count++;
            continue;
        }
        case TS_REC_VBLANK:
            put8(&st, TS_VBLANK);
            put32(&elems, 0xE1);
            for (int k = 0; k < 4; k++)
                put32(&elems, 0);
            count++;
            frames++;
            break;
        default: /* the end record: the target writes its own */
            break;
        }
    }

    /* CiTrace: header, initial-state blocks, memory data, stream */
    uint32_t reset_used = PVK_MMIO_WORDS; /* external words up to the last that is not its reset value */
    while (reset_used && ext[reset_used - 1] == get32(ext0 + 4 * (reset_used - 1)))
        reset_used--;
    const ct_block blocks[10] = {
        {ext, reset_used},
        {NULL, 0}, /* LCD registers: another unit, ignored by picavk */
        {pica->regs, used_words(pica->regs, PVK_PICA_REG_COUNT)},
        {&pica->fixed_attr[0][0], used_words(&pica->fixed_attr[0][0], PVK_FIXED_ATTRS * 4)},
        {pica->sh[1].code, used_words(pica->sh[1].code, PVK_SH_CODE_WORDS)},
        {pica->sh[1].opdesc, used_words(pica->sh[1].opdesc, PVK_SH_OPDESCS)},
        {&pica->sh[1].f[0][0], used_words(&pica->sh[1].f[0][0], PVK_SH_FLOAT_UNIFORMS * 4)},
        {pica->sh[0].code, used_words(pica->sh[0].code, PVK_SH_CODE_WORDS)},
        {pica->sh[0].opdesc, used_words(pica->sh[0].opdesc, PVK_SH_OPDESCS)},
        {&pica->sh[0].f[0][0], used_words(&pica->sh[0].f[0][0], PVK_SH_FLOAT_UNIFORMS * 4)},
    };
    buf ct = {0};
    put(&ct, "CiTr", 4);
    put32(&ct, 1);
    put32(&ct, 100);
    uint32_t at = 100;
    for (int b = 0; b < 10; b++) {
        put32(&ct, at);
        put32(&ct, blocks[b].count);
        at += 4 * blocks[b].count;
    }
    uint32_t data_at = at, stream_at = at + (uint32_t)data.n;
    put32(&ct, stream_at);
    put32(&ct, count);
    for (int b = 0; b < 10; b++)
        if (blocks[b].count)
            put(&ct, blocks[b].words, 4 * blocks[b].count);
    put(&ct, data.p, data.n);
    size_t elem_at = ct.n;
    put(&ct, elems.p, elems.n);
    for (uint32_t e = 0; e < count; e++)
        if (get32(ct.p + elem_at + 20 * e) == 0xE2)
            set32(&ct, elem_at + 20 * e + 4, data_at + get32(ct.p + elem_at + 20 * e + 4));

    int r = write_file(outdir, "fuzz_trace_struct", name, "bin", &st) ||
            write_file(outdir, "fuzz_citrace", name, "ctf", &ct);
    printf("%s: %u frames, %u CiTrace elements\n", name, frames, count);
    free(st.p), free(data.p), free(elems.p), free(ct.p), free(rec.p), free(file.p);
    free(keep), free(pica), free(int0), free(ext0), free(data_pos), free(data_len);
    pvk_context_destroy(ctx);
    return r;
}
