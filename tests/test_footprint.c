/* Memory footprint: guest memory picavk allocates is mapped lazily (zero
 * pages), so a new context's FCRAM is not resident and its resident size
 * stays small; pvk_set_output refuses sizes past its documented cap. */
#define _DEFAULT_SOURCE /* mincore */
#include <sys/mman.h>
#include <unistd.h>

#include "harness.h"

/* Resident bytes of this process (/proc/self/statm, second field). */
static uint64_t rss(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long size = 0, res = 0;
    if (f) {
        if (fscanf(f, "%llu %llu", &size, &res) != 2)
            res = 0;
        fclose(f);
    }
    return res * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* Resident pages of [p, p+len) (mincore). */
static size_t resident_pages(void *p, size_t len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), n = (len + page - 1) / page, count = 0;
    unsigned char *vec = malloc(n);
    if (!vec || mincore(p, len, vec)) {
        free(vec);
        return (size_t)-1;
    }
    for (size_t i = 0; i < n; i++)
        count += vec[i] & 1;
    free(vec);
    return count;
}

static void footprint(int mirror, int new_3ds)
{
    uint64_t before = rss();
    pvk_config cfg = {.new_3ds = new_3ds};
    pvk_context *ctx = th_context(&cfg, mirror);
    uint64_t after = rss();
    uint32_t fcram = new_3ds ? PVK_FCRAM_SIZE_N3DS : PVK_FCRAM_SIZE;
    uint8_t *p = pvk_guest_ptr(ctx, PVK_FCRAM_BASE, fcram);
    CHECK(p != NULL);
    size_t res = resident_pages(p, fcram);
    printf("  %s%s: resident %.1f MiB before the context, %.1f MiB after (+%.1f MiB); FCRAM pages resident: %zu\n",
           mirror ? "mirror" : "import", new_3ds ? ", New 3DS" : "", before / 1048576.0, after / 1048576.0,
           (after - before) / 1048576.0, res);
    if (!mirror)
        CHECK(res < 16); /* nothing touched the zero pages */
    /* the memory reads as zero and works */
    CHECK_EQ(p[fcram - 1], 0);
    p[12345] = 7;
    CHECK_EQ(pvk_guest_written(ctx, PVK_FCRAM_BASE + 12345, 1), PVK_SUCCESS);
    CHECK_EQ(p[12345], 7);
    th_release(ctx);
}

/* A guest-programmed 1024x1024 top screen at output scale 8 would be an
 * 8192x8192 image per slot (3.4 GB in all); picavk makes it at scale 4. */
static void output_cap(void)
{
    pvk_context *ctx = th_context(NULL, 0);
    const uint32_t pdc = 0x10400400u;
    pvk_mmio_write32(ctx, pdc + 0x60, (0xD1u + 1024) << 16 | 0xD1u); /* 1024 pixels a line */
    pvk_mmio_write32(ctx, pdc + 0x64, (2u + 1024) << 16 | 2u);        /* 1024 lines */
    pvk_mmio_write32(ctx, pdc + 0x68, PVK_FCRAM_BASE);
    pvk_mmio_write32(ctx, pdc + 0x70, 0);
    pvk_mmio_write32(ctx, pdc + 0x90, 1024 * 4);
    pvk_mmio_write32(ctx, pdc + 0x74, 1);
    pvk_output_config oc = {.scale = 8};
    CHECK_EQ(pvk_set_output(ctx, &oc), PVK_SUCCESS);
    CHECK_EQ(pvk_vblank(ctx), PVK_SUCCESS);
    pvk_frame f;
    CHECK_EQ(pvk_frame_acquire(ctx, &f), PVK_SUCCESS);
    CHECK_EQ(f.screens[PVK_SCREEN_TOP].extent.width, 4096);
    CHECK_EQ(f.screens[PVK_SCREEN_TOP].extent.height, 4096);
    CHECK_EQ(f.screens[PVK_SCREEN_BOTTOM].extent.width, 320 * 4); /* one scale for the whole frame */
    CHECK_EQ(pvk_frame_release(ctx, &f, VK_NULL_HANDLE, 0), PVK_SUCCESS);
    /* stacked: the combined image must fit too */
    oc.layout = PVK_LAYOUT_STACKED;
    CHECK_EQ(pvk_set_output(ctx, &oc), PVK_SUCCESS);
    CHECK_EQ(pvk_vblank(ctx), PVK_SUCCESS);
    CHECK_EQ(pvk_frame_acquire(ctx, &f), PVK_SUCCESS);
    uint64_t cw = f.combined.extent.width, ch = f.combined.extent.height;
    CHECK(cw <= PVK_OUTPUT_MAX_DIM && ch <= PVK_OUTPUT_MAX_DIM && cw * ch <= PVK_OUTPUT_MAX_PIXELS);
    CHECK_EQ(cw, 1024 * 3);
    CHECK_EQ(pvk_frame_release(ctx, &f, VK_NULL_HANDLE, 0), PVK_SUCCESS);
    th_release(ctx);
}

int main(void)
{
    footprint(0, 0); /* first: the process's one-time Vulkan set-up counts here */
    footprint(0, 1);
    footprint(1, 0);
    output_cap();
    return th_finish("test_footprint");
}
