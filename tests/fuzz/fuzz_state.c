/* Fuzz target: pvk_state_load.  The context holds a state of its own (a
 * frame drawn by a citro3d-shaped command list); each input is loaded over
 * it.  The first byte picks how: odd, the bytes as they are (the header,
 * length and checksum checks); even, the rest is a state whose header this
 * target completes (magic, version, length, the checksum of the body), so
 * that mutations reach the section and field checks.  Whatever the input,
 * the load either succeeds or leaves the context as it was (its own state
 * saved again is the same bytes), and the context still draws. */
#include <string.h>

#include <xxhash.h>

#include "fuzz_common.h"
#include "tools/tools.h"

static const char scene[] = "mmio GPU_PDC0_IMAGE_SIZE = 0x019000F0\n"
                            "mmio GPU_PDC0_FB_A_ADDR0 = 0x18000000\n"
                            "mmio GPU_PDC0_FB_STRIDE = 960\n"
                            "mmio GPU_PDC0_CONTROL = 1\n"
                            "mmio GPU_MEMFILL_DST_ADDR0 = 0x03000000\n"
                            "mmio GPU_MEMFILL_DST_END0 = 0x0300BB80\n"
                            "mmio GPU_MEMFILL_DATA0 = 0xFF0000FF\n"
                            "mmio GPU_MEMFILL_CNT0 = 0x201\n"
                            "reg GPUREG_TEXENV0_COLOR = 0x00123456\n"
                            "vblank\n";

static uint8_t *saved;
static size_t saved_len;

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> 8 * i);
}

static void own_state(uint8_t **out, size_t *len)
{
    *len = 0;
    *out = NULL;
    if (pvk_state_save(fuzz_ctx, NULL, 0, len) || !(*out = malloc(*len)) ||
        pvk_state_save(fuzz_ctx, *out, *len, len))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!saved) {
        int failures = 0;
        pvk_scene_run_text(fuzz_ctx, scene, sizeof scene - 1, "fuzz_state", NULL, &failures);
    }
    free(saved); /* the state before this input (the VBlank after the last one moved it) */
    own_state(&saved, &saved_len);
    if (size < 1 || size > (1u << 20))
        return 0;
    uint8_t *blob;
    size_t n;
    if (data[0] & 1) {
        n = size - 1;
        blob = malloc(n ? n : 1);
        memcpy(blob, data + 1, n);
    } else {
        n = 32 + size - 1;
        blob = malloc(n);
        memcpy(blob, "PVKSTATE", 8);
        put32(blob + 8, 1);
        put32(blob + 12, 0);
        put32(blob + 16, (uint32_t)(size - 1));
        put32(blob + 20, 3);
        memcpy(blob + 32, data + 1, size - 1);
        uint64_t h = XXH3_64bits(blob + 32, size - 1);
        put32(blob + 24, (uint32_t)h);
        put32(blob + 28, (uint32_t)(h >> 32));
    }
    pvk_result r = pvk_state_load(fuzz_ctx, blob, n);
    free(blob);
    if (r == PVK_SUCCESS) {
        /* a state it took: the context goes back to its own for the next input */
        if (pvk_state_load(fuzz_ctx, saved, saved_len))
            abort();
    } else {
        uint8_t *now;
        size_t now_len;
        own_state(&now, &now_len);
        if (now_len != saved_len || memcmp(now, saved, saved_len))
            abort(); /* a refused load changed the state */
        free(now);
    }
    pvk_vblank(fuzz_ctx);
    pvk_wait_idle(fuzz_ctx);
    fuzz_check();
    return 0;
}
