/* Save states (pvk_state_save, pvk_state_load): the GPU's state as a small
 * blob that does not depend on the device, the resolution scale or the
 * compile threads.  The format, field by field: docs/save-states.md.
 *
 * Header (32 bytes, little endian): magic "PVKSTATE", u32 format version,
 * u32 flags (bit 0: saved by a New 3DS context), u32 bytes after the header,
 * u32 section count, u64 XXH3-64 of the bytes after the header.  Then
 * sections, each u32 tag (four ASCII bytes), u32 length, payload:
 *   EXTR  the external registers as stored, both LCD colour LUTs, the IRQ
 *         status bits picavk keeps outside them;
 *   PICA  the internal register file and data ports (pvk_pica_state_save,
 *         the snapshot traces carry, with its own version word);
 *   LIVE  the rest of the command processor (pvk_pica_live_save).
 * Loading checks everything before it changes anything. */
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "runtime/runtime.h"

#define STATE_MAGIC "PVKSTATE"
#define STATE_VERSION 1u
#define HEADER_BYTES 32u
#define FLAG_NEW_3DS 1u
#define SECTIONS 3u
#define TAG(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
#define TAG_EXTR TAG('E', 'X', 'T', 'R')
#define TAG_PICA TAG('P', 'I', 'C', 'A')
#define TAG_LIVE TAG('L', 'I', 'V', 'E')
#define EXTR_WORDS (PVK_MMIO_WORDS + 2 * PVK_LCD_LUT_SIZE + 1)

static size_t state_bytes(const pvk_context *ctx)
{
    return HEADER_BYTES + 8u * SECTIONS + 4u * EXTR_WORDS + pvk_pica_state_save(&ctx->pica, NULL, 0) +
           pvk_pica_live_save(&ctx->pica, NULL, 0);
}

pvk_result pvk_state_write(pvk_context *ctx, void *buf, size_t capacity, size_t *size)
{
    size_t need = state_bytes(ctx);
    *size = need;
    if (!buf)
        return PVK_SUCCESS;
    if (capacity < need) {
        pvk_log(&ctx->gpu, PVK_LOG_ERROR, "pvk_state_save: the buffer holds %zu bytes, the state needs %zu", capacity,
                need);
        return PVK_ERROR_INVALID_ARGUMENT;
    }
    /* what is in flight lands first (its IRQs are raised now, as by
     * pvk_wait_idle), and guest memory gets every surface's bytes */
    pvk_result r = pvk_guest_sync_all(&ctx->vram);
    if (!r)
        r = pvk_retire_host(&ctx->gpu);
    if (r)
        return r;
    const pvk_mmio *m = &ctx->vram.mmio;
    if (m->fill_busy[0] || m->fill_busy[1] || m->copy_busy) { /* every op retired: cannot happen */
        pvk_log(&ctx->gpu, PVK_LOG_ERROR, "pvk_state_save: a transfer is still running");
        return PVK_ERROR_TIMEOUT;
    }
    uint8_t *out = buf, *p = out + HEADER_BYTES;
    pvk_put_le32(p, TAG_EXTR);
    pvk_put_le32(p + 4, 4u * EXTR_WORDS);
    p += 8;
    for (uint32_t i = 0; i < PVK_MMIO_WORDS; i++, p += 4)
        pvk_put_le32(p, m->regs[i]);
    for (int s = 0; s < 2; s++)
        for (uint32_t i = 0; i < PVK_LCD_LUT_SIZE; i++, p += 4)
            pvk_put_le32(p, m->lut[s][i]);
    pvk_put_le32(p, (uint32_t)m->p3d_irq << 31 | (m->irq_low_bits & 3));
    p += 4;
    size_t n = pvk_pica_state_save(&ctx->pica, NULL, 0);
    pvk_put_le32(p, TAG_PICA);
    pvk_put_le32(p + 4, (uint32_t)n);
    pvk_pica_state_save(&ctx->pica, p + 8, n);
    p += 8 + n;
    n = pvk_pica_live_save(&ctx->pica, NULL, 0);
    pvk_put_le32(p, TAG_LIVE);
    pvk_put_le32(p + 4, (uint32_t)n);
    pvk_pica_live_save(&ctx->pica, p + 8, n);
    p += 8 + n;

    memcpy(out, STATE_MAGIC, 8);
    pvk_put_le32(out + 8, STATE_VERSION);
    pvk_put_le32(out + 12, ctx->gpu.cfg.new_3ds ? FLAG_NEW_3DS : 0);
    pvk_put_le32(out + 16, (uint32_t)(need - HEADER_BYTES));
    pvk_put_le32(out + 20, SECTIONS);
    uint64_t h = XXH3_64bits(out + HEADER_BYTES, need - HEADER_BYTES);
    pvk_put_le32(out + 24, (uint32_t)h);
    pvk_put_le32(out + 28, (uint32_t)(h >> 32));
    ctx->gpu.stats.state_saves++;
    return PVK_SUCCESS;
}

/* Refuse `data` with a logged reason: bad input, nothing changed. */
#define REFUSE(...)                                                                                                    \
    do {                                                                                                               \
        pvk_bad_input(&ctx->gpu, "pvk_state_load: " __VA_ARGS__);                                                    \
        goto refused;                                                                                                  \
    } while (0)

pvk_result pvk_state_read(pvk_context *ctx, const void *data, size_t size)
{
    const uint8_t *d = data;
    pvk_pica *pica = NULL;
    if (size < HEADER_BYTES || memcmp(d, STATE_MAGIC, 8))
        REFUSE("not a picavk save state (%zu bytes, no PVKSTATE header)", size);
    uint32_t version = pvk_get_le32(d + 8), flags = pvk_get_le32(d + 12), body = pvk_get_le32(d + 16),
             sections = pvk_get_le32(d + 20);
    if (version != STATE_VERSION)
        REFUSE("format version %u; this picavk (%s) reads version %u", version, pvk_version(), STATE_VERSION);
    if (body != size - HEADER_BYTES)
        REFUSE("the state is %zu bytes, its header says %u", size, HEADER_BYTES + body);
    uint64_t h = XXH3_64bits(d + HEADER_BYTES, body);
    if (pvk_get_le32(d + 24) != (uint32_t)h || pvk_get_le32(d + 28) != (uint32_t)(h >> 32))
        REFUSE("checksum mismatch: the state is corrupt");
    if (flags & ~FLAG_NEW_3DS)
        REFUSE("unknown flags 0x%X", flags);
    if (!(flags & FLAG_NEW_3DS) != !ctx->gpu.cfg.new_3ds)
        REFUSE("saved by a%s 3DS context, this one is a%s", flags & FLAG_NEW_3DS ? " New" : "n Old",
               ctx->gpu.cfg.new_3ds ? " New" : "n Old");
    if (sections != SECTIONS)
        REFUSE("%u sections, version %u has %u", sections, STATE_VERSION, SECTIONS);

    const uint8_t *extr = NULL, *sec_pica = NULL, *live = NULL;
    uint32_t pica_len = 0, live_len = 0;
    const uint8_t *p = d + HEADER_BYTES, *end = d + size;
    for (uint32_t s = 0; s < sections; s++) {
        if (end - p < 8)
            REFUSE("section %u is cut", s);
        uint32_t tag = pvk_get_le32(p), len = pvk_get_le32(p + 4);
        p += 8;
        if ((size_t)(end - p) < len || len % 4)
            REFUSE("section %u: length %u does not fit", s, len);
        const uint8_t **slot = tag == TAG_EXTR ? &extr : tag == TAG_PICA ? &sec_pica : tag == TAG_LIVE ? &live : NULL;
        if (!slot)
            REFUSE("section %u: unknown tag 0x%08X", s, tag);
        if (*slot)
            REFUSE("section %.4s twice", (const char *)(p - 8));
        *slot = p;
        if (tag == TAG_EXTR && len != 4u * EXTR_WORDS)
            REFUSE("external registers: %u bytes, not %u", len, 4u * EXTR_WORDS);
        if (tag == TAG_PICA)
            pica_len = len;
        if (tag == TAG_LIVE)
            live_len = len;
        p += len;
    }
    if (p != end)
        REFUSE("%zu bytes after the last section", (size_t)(end - p));

    /* the command processor's part, checked on a copy */
    pica = malloc(sizeof *pica);
    if (!pica)
        return PVK_ERROR_OUT_OF_MEMORY;
    *pica = ctx->pica;
    if (pvk_pica_state_load(pica, sec_pica, pica_len))
        REFUSE("the internal register file does not load (version %u, %u bytes)", pvk_get_le32(sec_pica), pica_len);
    if (pvk_pica_live_load(pica, live, live_len))
        REFUSE("the command processor's state does not load (version %u, %u bytes)", pvk_get_le32(live), live_len);

    /* Work still in flight finishes first, so that nothing lands in the
     * guest memory the host restored (it should have waited itself). */
    pvk_result r = pvk_retire_host(&ctx->gpu);
    if (r) {
        free(pica);
        return r;
    }
    uint32_t regs[PVK_MMIO_WORDS], lut[2][PVK_LCD_LUT_SIZE];
    for (uint32_t i = 0; i < PVK_MMIO_WORDS; i++)
        regs[i] = pvk_get_le32(extr + 4 * i);
    for (int s = 0; s < 2; s++)
        for (uint32_t i = 0; i < PVK_LCD_LUT_SIZE; i++)
            lut[s][i] = pvk_get_le32(extr + 4 * (PVK_MMIO_WORDS + s * PVK_LCD_LUT_SIZE + i));
    pvk_mmio_state_load(&ctx->vram, regs, lut, pvk_get_le32(extr + 4 * (EXTR_WORDS - 1)));
    ctx->pica = *pica;
    free(pica);
    /* every cache is rebuilt from guest memory, which the host restored */
    for (int i = 0; i < PVK_REGION_COUNT; i++) {
        const pvk_guest_region *g = &ctx->vram.guest.regions[i];
        if (g->size)
            pvk_guest_invalidate(&ctx->vram, g->base, g->size);
    }
    pvk_texture_cache_clear(&ctx->vram);
    ctx->gpu.stats.state_loads++;
    return PVK_SUCCESS;

refused:
    free(pica);
    return PVK_ERROR_BAD_DATA;
}
