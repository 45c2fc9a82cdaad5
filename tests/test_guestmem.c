/* The guest physical map: edges, overflow, out of range; both binding paths
 * (host import and mirror) carry GPU writes back to host memory. */
#include "harness.h"

static void map_edges(pvk_context *ctx)
{
    pvk_stats before, after;
    pvk_get_stats(ctx, &before);
    th_quiet_errors = 1;
    /* first and last byte of each region */
    CHECK(pvk_guest_ptr(ctx, PVK_VRAM_BASE, 1) != NULL);
    CHECK(pvk_guest_ptr(ctx, PVK_VRAM_BASE + PVK_VRAM_SIZE - 1, 1) != NULL);
    CHECK(pvk_guest_ptr(ctx, PVK_VRAM_BASE, PVK_VRAM_SIZE) != NULL);
    CHECK(pvk_guest_ptr(ctx, PVK_FCRAM_BASE + PVK_FCRAM_SIZE - 4, 4) != NULL);
    CHECK(pvk_guest_ptr(ctx, PVK_AXI_WRAM_BASE, PVK_AXI_WRAM_SIZE) != NULL);
    /* one past, straddling, before, between, overflow, zero length */
    CHECK(pvk_guest_ptr(ctx, PVK_VRAM_BASE + PVK_VRAM_SIZE, 1) == NULL);
    CHECK(pvk_guest_ptr(ctx, PVK_VRAM_BASE + PVK_VRAM_SIZE - 1, 2) == NULL);
    CHECK(pvk_guest_ptr(ctx, PVK_VRAM_BASE - 1, 1) == NULL);
    CHECK(pvk_guest_ptr(ctx, PVK_VRAM_BASE - 1, 2) == NULL);
    CHECK(pvk_guest_ptr(ctx, 0x1F000000, 4) == NULL);
    CHECK(pvk_guest_ptr(ctx, PVK_FCRAM_BASE + PVK_FCRAM_SIZE, 4) == NULL);
    CHECK(pvk_guest_ptr(ctx, PVK_FCRAM_BASE + 16, 0xFFFFFFF0u) == NULL);
    CHECK(pvk_guest_ptr(ctx, 0xFFFFFFFFu, 2) == NULL);
    CHECK(pvk_guest_ptr(ctx, PVK_VRAM_BASE, 0) == NULL);
    CHECK(pvk_guest_ptr(ctx, 0, 16) == NULL);
    CHECK_EQ(pvk_guest_written(ctx, 0x10000000, 4), PVK_ERROR_OUT_OF_RANGE);
    CHECK_EQ(pvk_guest_flush(ctx, PVK_VRAM_BASE, 64), PVK_SUCCESS);
    th_quiet_errors = 0;
    pvk_get_stats(ctx, &after);
    CHECK_EQ(after.out_of_range - before.out_of_range, 11);
    CHECK(after.bad_input >= after.out_of_range);
    /* pointers are contiguous inside a region */
    uint8_t *a = pvk_guest_ptr(ctx, PVK_VRAM_BASE, 1), *b = pvk_guest_ptr(ctx, PVK_VRAM_BASE + 0x1234, 1);
    CHECK(b - a == 0x1234);
}

/* A GPU memory fill must land in host-visible guest memory in both modes. */
static void fill_roundtrip(pvk_context *ctx)
{
    uint32_t addr = PVK_FCRAM_BASE + 0x100000;
    uint8_t *p = pvk_guest_ptr(ctx, addr - 16, 96);
    memset(p, 0xEE, 96);
    pvk_mmio_write32(ctx, 0x10400010, addr >> 3);
    pvk_mmio_write32(ctx, 0x10400014, (addr + 64) >> 3);
    pvk_mmio_write32(ctx, 0x10400018, 0x11223344);
    CHECK_EQ(pvk_mmio_write32(ctx, 0x1040001C, (2u << 8) | 1), PVK_SUCCESS);
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    for (int i = 0; i < 16; i++)
        CHECK_EQ(p[i], 0xEE);
    for (int i = 0; i < 64; i += 4)
        CHECK_EQ(p[16 + i] | p[17 + i] << 8 | p[18 + i] << 16 | (uint32_t)p[19 + i] << 24, 0x11223344);
    for (int i = 80; i < 96; i++)
        CHECK_EQ(p[i], 0xEE);
}

int main(void)
{
    for (int mirror = 0; mirror < 2; mirror++) {
        pvk_context *ctx = th_context(NULL, mirror);
        map_edges(ctx);
        fill_roundtrip(ctx);
        th_release(ctx);
    }
    /* host-supplied guest memory in headless mode (a 64-bit host that keeps
     * guest memory at its own addresses), imported and mirrored: GPU writes
     * land in the host's pages */
    static uint8_t wram[PVK_AXI_WRAM_SIZE] __attribute__((aligned(65536)));
    uint8_t *vram = aligned_alloc(65536, PVK_VRAM_SIZE);
    for (int mirror = 0; mirror < 2; mirror++) {
        memset(vram, 0, PVK_VRAM_SIZE);
        pvk_config cfg = {0};
        cfg.guest_memory[PVK_REGION_AXI_WRAM] = wram;
        cfg.guest_memory[PVK_REGION_VRAM] = vram;
        pvk_context *ctx = th_context(&cfg, mirror);
        CHECK(pvk_guest_ptr(ctx, PVK_AXI_WRAM_BASE + 8, 4) == wram + 8);
        CHECK(pvk_guest_ptr(ctx, PVK_VRAM_BASE + 0x100, 4) == vram + 0x100);
        pvk_mmio_write32(ctx, 0x10400010, (PVK_VRAM_BASE + 0x1000) >> 3);
        pvk_mmio_write32(ctx, 0x10400014, (PVK_VRAM_BASE + 0x1040) >> 3);
        pvk_mmio_write32(ctx, 0x10400018, 0xA1B2C3D4);
        CHECK_EQ(pvk_mmio_write32(ctx, 0x1040001C, (2u << 8) | 1), PVK_SUCCESS);
        CHECK_EQ(pvk_guest_flush(ctx, PVK_VRAM_BASE + 0x1000, 0x40), PVK_SUCCESS);
        CHECK_EQ(vram[0x1000] | vram[0x1001] << 8 | vram[0x1002] << 16 | (uint32_t)vram[0x1003] << 24, 0xA1B2C3D4);
        CHECK_EQ(vram[0x1040], 0);
        th_release(ctx);
    }
    free(vram);
    pvk_context *ctx;
    /* New 3DS: 256 MiB FCRAM */
    pvk_config n3 = {.new_3ds = 1};
    ctx = th_context(&n3, 0);
    CHECK(pvk_guest_ptr(ctx, PVK_FCRAM_BASE + PVK_FCRAM_SIZE_N3DS - 4, 4) != NULL);
    uint32_t id = 0;
    pvk_mmio_read32(ctx, 0x10400000, &id);
    CHECK_EQ(id, 0x00010006);
    th_release(ctx);
    return th_finish("test_guestmem");
}
