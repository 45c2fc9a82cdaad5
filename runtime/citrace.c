/* Citra's CiTrace files (.ctf), played back into a context.
 *
 * Layout (little endian, from Citra's recorder): a 100-byte header (magic
 * "CiTr", version 1, header size, ten offset/size pairs of initial state in
 * u32 units, stream offset, stream element count), the initial-state blocks,
 * memory data, then 20-byte stream elements: u32 type (0xE1 frame marker,
 * 0xE2 memory load {file offset, size, physical address, pad}, 0xE3 register
 * write {physical address, size code 0xD1-0xD4, u64 value}).  Recorders
 * differ in the order of the register write's first two words; the size code
 * tells which word is which.  Every offset and size is checked against the
 * file before use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"

#define CT_HEADER_SIZE 100u
#define CT_ELEMENT_SIZE 20u
#define CT_MAX_FILE (1ull << 32)

enum { CT_FRAME = 0xE1, CT_MEMORY = 0xE2, CT_REGISTER = 0xE3 };
enum { CT_SIZE_8 = 0xD1, CT_SIZE_64 = 0xD4 };

/* Initial-state blocks in header order. */
enum {
    CT_GPU_REGS,
    CT_LCD_REGS,
    CT_PICA_REGS,
    CT_DEFAULT_ATTRIBUTES,
    CT_VS_PROGRAM,
    CT_VS_SWIZZLE,
    CT_VS_UNIFORMS,
    CT_GS_PROGRAM,
    CT_GS_SWIZZLE,
    CT_GS_UNIFORMS,
    CT_BLOCKS,
};

typedef struct ct_file {
    const uint8_t *data;
    uint64_t size;
} ct_file;

/* [off, off+len) inside the file? */
static bool in_file(const ct_file *f, uint64_t off, uint64_t len)
{
    return off <= f->size && len <= f->size - off;
}

static void ctx_write(pvk_context *ctx, uint32_t paddr, uint32_t value)
{
    if (pvk_ctx_mmio_check(ctx, paddr, "CiTrace"))
        (void)pvk_ctx_mmio_write(ctx, paddr, value); /* bad writes are logged and counted there */
}

/* A sub-word register write merges into the 32-bit register. */
static void write_sized(pvk_context *ctx, uint32_t addr, uint32_t size_code, uint64_t value)
{
    if (size_code == CT_SIZE_64) {
        ctx_write(ctx, addr, (uint32_t)value);
        ctx_write(ctx, addr + 4, (uint32_t)(value >> 32));
        return;
    }
    uint32_t bytes = size_code == CT_SIZE_8 ? 1 : size_code == CT_SIZE_8 + 1 ? 2 : 4;
    if (bytes == 4) {
        ctx_write(ctx, addr, (uint32_t)value);
        return;
    }
    uint32_t word = addr & ~3u, shift = (addr & 3) * 8, old = 0;
    if (shift + bytes * 8 > 32) {
        pvk_bad_input(&ctx->gpu, "CiTrace: %u-byte register write at 0x%08X crosses a word", bytes, addr);
        return;
    }
    uint32_t mask = (bytes == 1 ? 0xFFu : 0xFFFFu) << shift;
    if (word >= PVK_MMIO_BASE && word - PVK_MMIO_BASE < 0x1000)
        old = pvk_mmio_reg(&ctx->vram, word - PVK_MMIO_BASE); /* a read could have side effects */
    else if (word >= PVK_MMIO_BASE + 0x1000 && word - PVK_MMIO_BASE < PVK_MMIO_SIZE)
        old = ctx->pica.regs[(word - PVK_MMIO_BASE - 0x1000) / 4]; /* as stored: no read side effects */
    ctx_write(ctx, word, (old & ~mask) | (((uint32_t)value << shift) & mask));
}

static pvk_result load_initial_state(pvk_context *ctx, const ct_file *f, const uint8_t *h)
{
    for (int b = 0; b < CT_BLOCKS; b++) {
        uint32_t off = pvk_get_le32(h + 12 + 8 * b), words = pvk_get_le32(h + 16 + 8 * b);
        if (!in_file(f, off, (uint64_t)words * 4)) {
            pvk_bad_input(&ctx->gpu, "CiTrace: initial-state block %d (0x%X words at 0x%X) lies outside the file", b,
                          words, off);
            return PVK_ERROR_BAD_DATA;
        }
    }
    /* The external (GPU) register file goes in masked like register writes,
     * the internal (PICA) one as stored, both without side effects; the LCD
     * block belongs to another unit. */
    uint32_t off = pvk_get_le32(h + 12 + 8 * CT_GPU_REGS), n = pvk_get_le32(h + 16 + 8 * CT_GPU_REGS);
    uint32_t gpu[PVK_MMIO_WORDS] = {0};
    for (uint32_t i = 0; i < n && i < PVK_MMIO_WORDS; i++)
        gpu[i] = pvk_get_le32(f->data + off + 4 * i);
    pvk_mmio_load(&ctx->vram, gpu, NULL, n < PVK_MMIO_WORDS ? n : PVK_MMIO_WORDS);
    off = pvk_get_le32(h + 12 + 8 * CT_PICA_REGS);
    n = pvk_get_le32(h + 16 + 8 * CT_PICA_REGS);
    for (uint32_t i = 0; i < n && i < PVK_PICA_REG_COUNT; i++)
        ctx->pica.regs[i] = pvk_get_le32(f->data + off + 4 * i);
    /* Shader state into the translator's tables (unit 1 vertex, 0 geometry);
     * uniforms and default attributes are f24 words, x y z w. */
    pvk_pica *pica = &ctx->pica;
    struct { int block; uint32_t *dst; uint32_t cap; } tables[] = {
        {CT_DEFAULT_ATTRIBUTES, &pica->fixed_attr[0][0], PVK_FIXED_ATTRS * 4},
        {CT_VS_PROGRAM, pica->sh[1].code, PVK_SH_CODE_WORDS},
        {CT_VS_SWIZZLE, pica->sh[1].opdesc, PVK_SH_OPDESCS},
        {CT_VS_UNIFORMS, &pica->sh[1].f[0][0], PVK_SH_FLOAT_UNIFORMS * 4},
        {CT_GS_PROGRAM, pica->sh[0].code, PVK_SH_CODE_WORDS},
        {CT_GS_SWIZZLE, pica->sh[0].opdesc, PVK_SH_OPDESCS},
        {CT_GS_UNIFORMS, &pica->sh[0].f[0][0], PVK_SH_FLOAT_UNIFORMS * 4},
    };
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
        off = pvk_get_le32(h + 12 + 8 * tables[t].block);
        n = pvk_get_le32(h + 16 + 8 * tables[t].block);
        if (n > tables[t].cap)
            pvk_log(&ctx->gpu, PVK_LOG_WARN, "CiTrace: initial-state block %d has %u words; %u kept", tables[t].block,
                    n, tables[t].cap);
        for (uint32_t i = 0; i < n && i < tables[t].cap; i++)
            tables[t].dst[i] = pvk_get_le32(f->data + off + 4 * i);
    }
    pvk_pica_written(pica); /* written behind the translator's memos */
    return PVK_SUCCESS;
}

static pvk_result play(pvk_context *ctx, const ct_file *f, pvk_frame_fn on_frame, void *user)
{
    if (f->size < CT_HEADER_SIZE || memcmp(f->data, "CiTr", 4)) {
        pvk_bad_input(&ctx->gpu, "CiTrace: not a CiTrace file (bad magic or shorter than its header)");
        return PVK_ERROR_BAD_DATA;
    }
    const uint8_t *h = f->data;
    if (pvk_get_le32(h + 4) != 1) {
        pvk_bad_input(&ctx->gpu, "CiTrace: version %u is not supported", pvk_get_le32(h + 4));
        return PVK_ERROR_BAD_DATA;
    }
    if (pvk_get_le32(h + 8) < CT_HEADER_SIZE || pvk_get_le32(h + 8) > f->size) {
        pvk_bad_input(&ctx->gpu, "CiTrace: header size %u is impossible", pvk_get_le32(h + 8));
        return PVK_ERROR_BAD_DATA;
    }
    uint32_t stream_off = pvk_get_le32(h + 92), count = pvk_get_le32(h + 96);
    if (!in_file(f, stream_off, (uint64_t)count * CT_ELEMENT_SIZE)) {
        pvk_bad_input(&ctx->gpu, "CiTrace: %u stream elements at 0x%X run past the end of the file", count, stream_off);
        return PVK_ERROR_BAD_DATA;
    }
    pvk_result r = load_initial_state(ctx, f, h);
    if (r)
        return r;
    uint32_t frames = 0;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *e = f->data + stream_off + (uint64_t)i * CT_ELEMENT_SIZE;
        switch (pvk_get_le32(e)) {
        case CT_FRAME:
            if ((r = pvk_lcd_vblank(ctx)))
                return r;
            if (on_frame && (r = on_frame(user, ctx, frames)))
                return r;
            frames++;
            break;
        case CT_MEMORY: {
            uint32_t data_off = pvk_get_le32(e + 4), size = pvk_get_le32(e + 8), addr = pvk_get_le32(e + 12);
            if (!size)
                break;
            if (!in_file(f, data_off, size)) {
                pvk_bad_input(&ctx->gpu, "CiTrace: element %u: memory data at 0x%X+0x%X lies outside the file", i,
                              data_off, size);
                return PVK_ERROR_BAD_DATA;
            }
            uint8_t *dst =
                pvk_guest_host(&ctx->vram, addr, size, "CiTrace memory load"); /* logs and counts a bad range */
            if (!dst)
                break;
            pvk_guest_before_cpu_write(&ctx->vram, addr, size);
            memcpy(dst, f->data + data_off, size);
            pvk_guest_invalidate(&ctx->vram, addr, size);
            break;
        }
        case CT_REGISTER: {
            uint32_t a = pvk_get_le32(e + 4), b = pvk_get_le32(e + 8);
            uint64_t value = pvk_get_le32(e + 12) | (uint64_t)pvk_get_le32(e + 16) << 32;
            uint32_t addr, size;
            if (b >= CT_SIZE_8 && b <= CT_SIZE_64) {
                addr = a;
                size = b;
            } else if (a >= CT_SIZE_8 && a <= CT_SIZE_64) {
                addr = b;
                size = a;
            } else {
                pvk_bad_input(&ctx->gpu, "CiTrace: element %u: register write without a size code", i);
                return PVK_ERROR_BAD_DATA;
            }
            write_sized(ctx, addr, size, value);
            break;
        }
        default:
            pvk_bad_input(&ctx->gpu, "CiTrace: element %u has unknown type 0x%X", i, pvk_get_le32(e));
            return PVK_ERROR_BAD_DATA;
        }
        if (ctx->gpu.sticky)
            return ctx->gpu.sticky;
    }
    pvk_result rs = pvk_guest_sync_all(&ctx->vram); /* the replay is over: guest memory holds what it drew */
    pvk_result rr = pvk_retire(&ctx->gpu, true);
    return rs ? rs : rr;
}

pvk_result pvk_citrace_play(pvk_context *ctx, const void *data, size_t size, pvk_frame_fn on_frame, void *user)
{
    ct_file f = {data, size};
    return play(ctx, &f, on_frame, user);
}

pvk_result pvk_citrace_play_file(pvk_context *ctx, const char *path, pvk_frame_fn on_frame, void *user)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        pvk_log(&ctx->gpu, PVK_LOG_ERROR, "CiTrace: cannot open %s", path);
        return PVK_ERROR_IO;
    }
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    if (n < 0 || (unsigned long long)n >= CT_MAX_FILE) {
        fclose(fp);
        pvk_bad_input(&ctx->gpu, "CiTrace: %s is too large", path);
        return PVK_ERROR_BAD_DATA;
    }
    uint8_t *buf = malloc(n ? (size_t)n : 1);
    if (!buf) {
        fclose(fp);
        return PVK_ERROR_OUT_OF_MEMORY;
    }
    size_t got = fread(buf, 1, (size_t)n, fp);
    fclose(fp);
    pvk_result r = got == (size_t)n ? pvk_citrace_play(ctx, buf, got, on_frame, user) : PVK_ERROR_IO;
    free(buf);
    return r;
}

/* Frame markers in a CiTrace file, without applying anything. */
pvk_result pvk_citrace_count_frames(const void *data, size_t size, uint32_t *frames)
{
    ct_file f = {data, size};
    *frames = 0;
    if (f.size < CT_HEADER_SIZE || memcmp(f.data, "CiTr", 4))
        return PVK_ERROR_BAD_DATA;
    uint32_t stream_off = pvk_get_le32(f.data + 92), count = pvk_get_le32(f.data + 96);
    if (!in_file(&f, stream_off, (uint64_t)count * CT_ELEMENT_SIZE))
        return PVK_ERROR_BAD_DATA;
    for (uint32_t i = 0; i < count; i++)
        *frames += pvk_get_le32(f.data + stream_off + (uint64_t)i * CT_ELEMENT_SIZE) == CT_FRAME;
    return PVK_SUCCESS;
}
