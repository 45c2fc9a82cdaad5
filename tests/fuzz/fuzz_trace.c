/* Fuzz target: the picavk trace reader.  Inputs are trace files.  Under
 * libFuzzer a custom mutator decompresses a valid input, mutates its records
 * (a payload's bytes, a record dropped, duplicated or moved) and compresses
 * them again, so that mutations reach the records behind zstd; one mutation
 * in eight stays a plain byte mutation of the file, for the reader's checks
 * of headers and compressed data. */
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/pvk-fuzz-trace-%d.pvt", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    pvk_trace_replay(fuzz_ctx, path, NULL, NULL);
    remove(path);
    fuzz_check();
    return 0;
}

#ifdef PVK_LIBFUZZER
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

#define HEAD 16                 /* magic, version, flags */
#define MAX_RECORDS (4u << 20) /* decompressed bytes a mutation works on */

static uint8_t *recs, *tmp;

static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; } /* x86: little endian */

/* Record boundaries of recs[0, len): starts[] (at most `cap`), their count. */
static size_t split(const uint8_t *r, size_t len, size_t *starts, size_t cap)
{
    size_t n = 0, pos = 0;
    while (pos + 5 <= len && n < cap) {
        uint32_t l = rd32(r + pos + 1);
        if (l > len - pos - 5)
            break;
        starts[n++] = pos;
        pos += 5 + (size_t)l;
    }
    return n;
}

/* The records of a whole, valid stream (recorders do not store its size). */
static bool decompress(const uint8_t *data, size_t size, size_t *len)
{
    static ZSTD_DCtx *dc;
    if (!dc && !(dc = ZSTD_createDCtx()))
        return false;
    ZSTD_DCtx_reset(dc, ZSTD_reset_session_only);
    ZSTD_inBuffer in = {data + HEAD, size - HEAD, 0};
    ZSTD_outBuffer out = {recs, MAX_RECORDS / 2, 0};
    size_t r = ZSTD_decompressStream(dc, &out, &in);
    *len = out.pos;
    return r == 0 && in.pos == in.size; /* 0: the frame is complete */
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned seed)
{
    if (!recs) {
        recs = malloc(MAX_RECORDS);
        tmp = malloc(MAX_RECORDS);
        if (!recs || !tmp)
            abort();
    }
    srand(seed);
    size_t len = 0;
    if (rand() % 8 == 0 || size <= HEAD || memcmp(data, "PVKTRC\r\n", 8) || !decompress(data, size, &len))
        return LLVMFuzzerMutate(data, size, max_size);

    static size_t starts[4096];
    size_t count = split(recs, len, starts, 4096);
    if (!count)
        return LLVMFuzzerMutate(data, size, max_size);
    size_t at = starts[(size_t)rand() % count], rl = 5 + rd32(recs + at + 1);
    switch (rand() % 6) {
    case 0: /* drop a record */
        memmove(recs + at, recs + at + rl, len - at - rl);
        len -= rl;
        break;
    case 1: /* repeat it */
        if (len + rl <= MAX_RECORDS / 2) {
            memmove(recs + at + rl, recs + at, len - at);
            len += rl;
        }
        break;
    case 2: { /* move it before another record */
        size_t to = starts[(size_t)rand() % count];
        memcpy(tmp, recs + at, rl);
        memmove(recs + at, recs + at + rl, len - at - rl);
        if (to > at)
            to -= rl;
        memmove(recs + to + rl, recs + to, len - rl - to);
        memcpy(recs + to, tmp, rl);
        break;
    }
    case 3: /* the whole stream, lengths included */
        len = LLVMFuzzerMutate(recs, len, MAX_RECORDS / 2);
        break;
    default: { /* one payload, its length following the mutation */
        size_t pl = rl - 5, tail = len - at - rl;
        memcpy(tmp, recs + at + rl, tail);
        size_t nl = LLVMFuzzerMutate(recs + at + 5, pl, pl + 64 < MAX_RECORDS / 2 - len ? pl + 64 : pl);
        uint32_t l32 = (uint32_t)nl;
        memcpy(recs + at + 1, &l32, 4);
        memcpy(recs + at + 5 + nl, tmp, tail);
        len = len - pl + nl;
        break;
    }
    }
    size_t z = ZSTD_compress(tmp, MAX_RECORDS, recs, len, 1);
    if (ZSTD_isError(z) || HEAD + z > max_size)
        return LLVMFuzzerMutate(data, size, max_size);
    memcpy(data + HEAD, tmp, z);
    return HEAD + z;
}
#endif
