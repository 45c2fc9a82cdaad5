/* Command-list decode speed: a large, realistic list (per batch: uniform
 * uploads, texture and combiner state with typical masks, attribute buffer
 * setup, a draw; now and then shader code and a lighting LUT) in guest
 * memory, kicked through CMDBUF_SIZE0/ADDR0/JUMP0.  The translator runs on
 * its own, without a device: guest memory is a host buffer behind its
 * environment, and draws are counted and dropped (no draw callback).  The
 * floor is a plain loop copying the same words, measured in the same run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_draw.h"
#include "translator/translator.h"

static uint32_t rng = 12345;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static void batch(bench_list *b, int i)
{
    uint32_t p[64];
    /* model-view-projection and a normal matrix: 12 f32 uniforms, one fixed-id command */
    bench_list_w(b, PVK_GPUREG_VSH_FLOATUNIFORM_CONFIG, 0x80000000u);
    for (int k = 0; k < 48; k++)
        p[k] = 0x3F800000u + (rnd() & 0xFFFF);
    bench_list_put(b, PVK_GPUREG_VSH_FLOATUNIFORM_DATA, 0xF, 0, 48, p);
    /* texture unit 0 */
    for (int k = 0; k < 5; k++)
        p[k] = rnd();
    bench_list_put(b, PVK_GPUREG_TEXUNIT0_BORDER_COLOR, 0xF, 1, 5, p);
    bench_list_w(b, PVK_GPUREG_TEXUNIT0_TYPE, rnd() & 0xF);
    bench_list_wm(b, PVK_GPUREG_TEXUNIT_CONFIG, 0xB, 0x00001001 | (i % 16 == 0 ? 0x10000 : 0));
    /* two combiner stages, five registers each */
    for (int s = 0; s < 2; s++) {
        for (int k = 0; k < 5; k++)
            p[k] = rnd();
        bench_list_put(b, PVK_GPUREG_TEXENV0_SOURCE + 8 * s, 0xF, 1, 5, p);
    }
    bench_list_wm(b, PVK_GPUREG_TEXENV_UPDATE_BUFFER, 0x2, rnd());
    /* fragment state with partial masks */
    bench_list_w(b, PVK_GPUREG_BLEND_FUNC, rnd());
    bench_list_wm(b, PVK_GPUREG_DEPTH_COLOR_MASK, 0x3, rnd());
    bench_list_wm(b, PVK_GPUREG_STENCIL_TEST, 0x1, rnd());
    bench_list_w(b, PVK_GPUREG_FRAGOP_ALPHA_TEST, rnd());
    /* attribute buffers: base, formats and three buffers, consecutive */
    for (int k = 0; k < 12; k++)
        p[k] = rnd();
    bench_list_put(b, PVK_GPUREG_ATTRIBBUFFERS_LOC, 0xF, 1, 12, p);
    bench_list_w(b, PVK_GPUREG_VSH_NUM_ATTR, 2);
    bench_list_w(b, PVK_GPUREG_VSH_INPUTBUFFER_CONFIG, 0xA0000002);
    bench_list_w(b, PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_LOW, 0x210);
    /* the draw, as citro3d brackets it: triangle strips of 3-192 vertices */
    bench_list_draw_arrays(b, 1, 0, 3 * (1 + (rnd() & 63)));
    /* now and then: a shader program (512 words + descriptors) and a lighting LUT */
    if (i % 50 == 0) {
        bench_list_w(b, PVK_GPUREG_VSH_CODETRANSFER_CONFIG, 0);
        for (int c = 0; c < 512; c += 64) {
            for (int k = 0; k < 64; k++)
                p[k] = rnd();
            bench_list_put(b, PVK_GPUREG_VSH_CODETRANSFER_DATA, 0xF, 0, 64, p);
        }
        bench_list_w(b, PVK_GPUREG_VSH_CODETRANSFER_END, 1);
        bench_list_w(b, PVK_GPUREG_VSH_OPDESCS_CONFIG, 0);
        for (int k = 0; k < 32; k++)
            p[k] = rnd();
        bench_list_put(b, PVK_GPUREG_VSH_OPDESCS_DATA, 0xF, 0, 32, p);
    }
    if (i % 100 == 0) {
        bench_list_w(b, PVK_GPUREG_LIGHTING_LUT_INDEX, (uint32_t)(i / 100 % 24) << 8);
        for (int c = 0; c < 256; c += 64) {
            for (int k = 0; k < 64; k++)
                p[k] = rnd() & 0xFFFFFF;
            bench_list_put(b, PVK_GPUREG_LIGHTING_LUT_DATA, 0xF, 0, 64, p);
        }
    }
}

/* Guest memory: one host buffer standing for FCRAM. */
static uint8_t *fcram;
#define FCRAM_BYTES (32u << 20)
static const void *guest_read(void *user, uint32_t paddr, uint32_t len)
{
    (void)user;
    if (paddr < PVK_FCRAM_BASE || paddr - PVK_FCRAM_BASE > FCRAM_BYTES || len > FCRAM_BYTES - (paddr - PVK_FCRAM_BASE))
        return NULL;
    return fcram + (paddr - PVK_FCRAM_BASE);
}

static pvk_result kick(pvk_pica *p, uint32_t addr, uint32_t bytes)
{
    pvk_result r = pvk_pica_write(p, PVK_GPUREG_CMDBUF_SIZE0, bytes >> 3);
    if (!r)
        r = pvk_pica_write(p, PVK_GPUREG_CMDBUF_ADDR0, addr >> 3);
    if (!r)
        r = pvk_pica_write(p, PVK_GPUREG_CMDBUF_JUMP0, 1);
    return r;
}

int main(void)
{
    pvk_pica *p = calloc(1, sizeof *p);
    fcram = calloc(1, FCRAM_BYTES);
    if (!p || !fcram)
        return 1;
    pvk_pica_reset(p);
    pvk_pica_env env = {.guest_read = guest_read};
    pvk_pica_set_env(p, &env);

    bench_list b = {0};
    int batches = 4000;
    for (int i = 0; i < batches; i++)
        batch(&b, i);
    bench_list_w(&b, PVK_GPUREG_FINALIZE, 0x12345678);
    if (b.n % 4)
        bench_list_w(&b, PVK_GPUREG_FINALIZE, 0x12345678);
    uint32_t addr = PVK_FCRAM_BASE + 0x1000000, bytes = b.n * 4;
    void *g = (void *)guest_read(NULL, addr, bytes);
    if (!g) {
        fprintf(stderr, "cmdlist bench: list does not fit\n");
        return 1;
    }
    memcpy(g, b.w, bytes);

    /* warm up, and count the writes in one pass */
    uint64_t w0 = p->counters.writes;
    if (kick(p, addr, bytes) != PVK_SUCCESS) {
        fprintf(stderr, "cmdlist bench: the list failed\n");
        return 1;
    }
    uint64_t per_pass = p->counters.writes - w0;
    pvk_pica_write(p, PVK_GPUREG_IRQ_ACK, 0); /* acknowledge */

    /* decode */
    int passes = 0;
    double t0 = bench_now(), t1;
    do {
        pvk_pica_write(p, PVK_GPUREG_CMDBUF_JUMP0, 1); /* size and address stay */
        pvk_pica_write(p, PVK_GPUREG_IRQ_ACK, 0);
        passes++;
        t1 = bench_now();
    } while (t1 - t0 < 1.0);
    double writes_per_s = (double)per_pass * passes / (t1 - t0);

    /* the floor: copy the same words */
    uint32_t *dst = malloc(bytes);
    int copies = 0;
    double c0 = bench_now(), c1;
    do {
        const volatile uint32_t *src = g;
        for (uint32_t i = 0; i < b.n; i++)
            dst[i] = src[i];
        copies++;
        c1 = bench_now();
    } while (c1 - c0 < 1.0);
    double words_per_s = (double)b.n * copies / (c1 - c0);
    uint32_t check = 0;
    for (uint32_t i = 0; i < b.n; i += 97)
        check ^= dst[i];

    printf("cmdlist: %d batches, %u words (%.1f KiB), %llu register writes per pass, %llu draws\n", batches, b.n,
           bytes / 1024.0, (unsigned long long)per_pass, (unsigned long long)p->counters.draws);
    printf("%-28s %14s %10s\n", "what", "per second", "ns each");
    printf("%-28s %14.3e %10.3f\n", "decode (register writes)", writes_per_s, 1e9 / writes_per_s);
    printf("%-28s %14.3e %10.3f\n", "copy loop (words)", words_per_s, 1e9 / words_per_s);
    printf("(checksum %08X, %d decode passes, %d copies)\n", check, passes, copies);
    printf("BENCH name=cmdlist_writes value=%.0f unit=writes/s baseline=word_copy_loop ratio=%.4f\n", writes_per_s,
           writes_per_s / words_per_s);
    free(dst);
    free(b.w);
    free(fcram);
    free(p);
    return 0;
}
