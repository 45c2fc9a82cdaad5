/* vram/ owns guest memory and what moves it: the guest physical memory map
 * (host pointers, device buffers, zero-copy import or mirroring), the
 * external register file (memory control, memfill/memcopy, PDC), the
 * transfer engine (memory fill, display transfer, texture copy as compute
 * shaders) and, next, the surface cache.  It uses only runtime's low-level
 * GPU layer (context, logging, buffers, command recording); it never decides
 * how to draw and never calls the public API.  What the other folders may use
 * of it. */
#ifndef PVK_VRAM_H
#define PVK_VRAM_H

#include <stdbool.h>
#include <stdint.h>

#include <volk.h>

#include "picavk/picavk.h"

typedef struct pvk_guest_region {
    uint32_t base, size;
    uint8_t *host;           /* the guest bytes as the host sees them */
    bool host_owned;         /* picavk mapped `host` (inside [map, map + map_len)) */
    void *map;
    size_t map_len;
    VkBuffer buffer;         /* the same bytes as a storage buffer */
    VkDeviceMemory memory;
    bool imported;           /* zero copy: `buffer` aliases `host` */
    uint8_t *mirror;         /* mirror mode: mapped device copy of `host` */
} pvk_guest_region;

/* A resolved guest range: region and byte offset inside it. */
typedef struct pvk_guest_span {
    pvk_guest_region *region;
    uint32_t offset, len;
} pvk_guest_span;

typedef struct pvk_guest {
    pvk_guest_region regions[PVK_REGION_COUNT];
    bool zero_copy;          /* every region imported */
    /* Told of every range the GPU or the command processor is about to use
     * (the trace recorder listens); NULL when nobody does. */
    void (*observe)(pvk_context *ctx, const pvk_guest_span *s);
} pvk_guest;

typedef struct pvk_buffer_range {
    VkBuffer buffer;
    VkDeviceSize offset, range;
} pvk_buffer_range;

pvk_result pvk_guest_init(pvk_context *ctx);
void pvk_guest_destroy(pvk_context *ctx);
/* The one bounds check: [paddr, paddr+len) inside one region (len 0 is
 * refused).  Logs and counts a refusal when `what` is not NULL. */
bool pvk_guest_resolve(pvk_context *ctx, uint32_t paddr, uint32_t len, const char *what,
                       pvk_guest_span *out);
/* Bind a span as a storage buffer: descriptor offsets must be aligned, so
 * the byte offset of the span inside `range` goes to *sub.  Refuses (logged)
 * spans longer than the device's storage-buffer range. */
bool pvk_guest_bind(pvk_context *ctx, const pvk_guest_span *s, pvk_buffer_range *range, uint32_t *sub,
                    const char *what);
/* The one CPU read of guest memory for the command processor, attribute and
 * index buffers: host bytes of [paddr, paddr+len) once nothing newer is on the
 * GPU, or NULL (not logged) outside guest memory. */
const void *pvk_guest_cpu_read(pvk_context *ctx, uint32_t paddr, uint32_t len);
/* Range check for an entry point: logs and counts (naming `what`) a refusal. */
bool pvk_guest_check(pvk_context *ctx, uint32_t paddr, uint32_t len, const char *what);
/* Host pointer for a range, NULL (logged as `what`) outside guest memory. */
void *pvk_guest_host(pvk_context *ctx, uint32_t paddr, uint32_t len, const char *what);
/* The CPU changed [paddr, paddr+len) (checked by the caller): forget GPU copies. */
void pvk_guest_invalidate(pvk_context *ctx, uint32_t paddr, uint32_t len);
/* Mirror mode: copy host bytes to the device copy / back.  No-ops when imported. */
void pvk_guest_upload(pvk_context *ctx, const pvk_guest_span *s);
void pvk_guest_download(pvk_context *ctx, const pvk_guest_span *s);

/* ---- external registers ---- */

#define PVK_MMIO_WORDS (0x1000u / 4) /* 0x10400000-0x10400FFF; the rest is the PICA file */
#define PVK_LCD_LUT_SIZE 256

typedef struct pvk_mmio {
    uint32_t regs[PVK_MMIO_WORDS];   /* stored values, already masked */
    uint32_t lut[2][PVK_LCD_LUT_SIZE];
    bool p3d_irq;                    /* GPU_STAT_IRQ_FLAGS bit 31 */
    uint32_t irq_low_bits;           /* GPU_STAT_IRQ_FLAGS bits 0-1 */
    uint32_t fill_busy[2];           /* pending fills per unit */
    uint32_t copy_busy;              /* pending memcopies */
} pvk_mmio;

/* Register offsets from 0x10400000 (names as in the seed documents). */
enum {
    PVK_REG_HW_ID = 0x000,
    PVK_REG_VRAM_CNT = 0x004,
    PVK_REG_UNKNOWN_2BIT = 0x008,
    PVK_REG_MEMFILL0 = 0x010, /* +0 DST_ADDR, +4 DST_END, +8 DATA, +C CNT */
    PVK_REG_MEMFILL1 = 0x020,
    PVK_REG_VRAM_POWER = 0x030,
    PVK_REG_STAT_IRQ_FLAGS = 0x034,
    PVK_REG_STAT_SOMETHING = 0x038,
    PVK_REG_MAKE_SOMETHING = 0x03C,
    PVK_REG_STAT_BACKLIGHT = 0x040,
    PVK_REG_UNKNOWN_7F80 = 0x044,
    PVK_REG_UNKNOWN_32BIT = 0x048,
    PVK_REG_TIMING_CNT1 = 0x050,
    PVK_REG_TIMING_CNT2 = 0x054,
    PVK_REG_STAT_BUSY = 0x058,
    PVK_REG_MAKE_MESS = 0x05C,
    PVK_REG_STAT_MESS = 0x060,
    PVK_REG_UNKNOWN_A80000 = 0x068,
    PVK_REG_TRAFFIC_FIRST = 0x070, /* 0x070..0x0BC: read-only traffic counters */
    PVK_REG_TRAFFIC_NON_VRAM_READS = 0x070,
    PVK_REG_TRAFFIC_NON_VRAM_WRITES = 0x074,
    PVK_REG_TRAFFIC_VRAM_A_READS = 0x078,
    PVK_REG_TRAFFIC_VRAM_A_WRITES = 0x07C,
    PVK_REG_TRAFFIC_VRAM_B_READS = 0x080,
    PVK_REG_TRAFFIC_VRAM_B_WRITES = 0x084,
    PVK_REG_TRAFFIC_LCD_TOP_READS = 0x0A0,
    PVK_REG_TRAFFIC_LCD_BOTTOM_READS = 0x0A4,
    PVK_REG_TRAFFIC_MEMCOPY_READS = 0x0A8,
    PVK_REG_TRAFFIC_MEMCOPY_WRITES = 0x0AC,
    PVK_REG_TRAFFIC_MEMFILL0_WRITES = 0x0B0,
    PVK_REG_TRAFFIC_MEMFILL1_WRITES = 0x0B4,
    PVK_REG_TRAFFIC_LAST = 0x0BC,
    PVK_REG_BACKLIGHT1 = 0x0C0,
    PVK_REG_VRAM_A_BASE = 0x0C4,
    PVK_REG_VRAM_B_BASE = 0x0C8,
    PVK_REG_BACKLIGHT2 = 0x0CC,
    PVK_REG_UNKNOWN_4BIT = 0x0D0,
    PVK_REG_PDC0 = 0x400,
    PVK_REG_PDC1 = 0x500,
    PVK_REG_MEMCOPY_SRC = 0xC00,
    PVK_REG_MEMCOPY_DST = 0xC04,
    PVK_REG_MEMCOPY_OUT_DIM = 0xC08, /* low 16: output width, high 16: output height */
    PVK_REG_MEMCOPY_IN_DIM = 0xC0C,  /* low 16: input width (row length incl. gap) */
    PVK_REG_MEMCOPY_FLAGS = 0xC10,
    PVK_REG_MEMCOPY_UNKNOWN_21BIT = 0xC14,
    PVK_REG_MEMCOPY_CNT = 0xC18,
    PVK_REG_MEMCOPY_REMAIN_IRQ = 0xC1C,
    PVK_REG_MEMCOPY_TEX_SIZE = 0xC20,
    PVK_REG_MEMCOPY_TEX_SRC_WIDTH = 0xC24,
    PVK_REG_MEMCOPY_TEX_DST_WIDTH = 0xC28,
    PVK_REG_MEMCOPY_UNKNOWN_FLAG = 0xC2C,
};

/* PDC block offsets (from PVK_REG_PDC0 / PVK_REG_PDC1). */
enum {
    PVK_PDC_HTOTAL = 0x00,
    PVK_PDC_OVERSCAN_COLOR = 0x4C,
    PVK_PDC_HCOUNT = 0x50,
    PVK_PDC_VCOUNT = 0x54,
    PVK_PDC_IMAGE_SIZE = 0x5C,
    PVK_PDC_HDISP = 0x60,
    PVK_PDC_FB_HEIGHT = 0x64,
    PVK_PDC_FB_A0 = 0x68,
    PVK_PDC_FB_A1 = 0x6C,
    PVK_PDC_FORMAT = 0x70,
    PVK_PDC_CONTROL = 0x74,
    PVK_PDC_SELECT = 0x78,
    PVK_PDC_LUT_INDEX = 0x80,
    PVK_PDC_LUT_DATA = 0x84,
    PVK_PDC_STRIDE = 0x90,
    PVK_PDC_FB_B0 = 0x94,
    PVK_PDC_FB_B1 = 0x98,
};

/* Name of the external register at `offset`, or NULL when unnamed. */
const char *pvk_mmio_name(uint32_t offset);
void pvk_mmio_reset(pvk_context *ctx);
/* Load a register snapshot (a trace's, a CiTrace's) of `count` words: every
 * register keeps only the bits a write could set, read-only registers stay
 * picavk's own; `lut` may be NULL. */
void pvk_mmio_load(pvk_context *ctx, const uint32_t *regs, const uint32_t lut[2][PVK_LCD_LUT_SIZE], uint32_t count);
uint32_t pvk_mmio_reg(const pvk_context *ctx, uint32_t offset); /* stored value */
/* Register access through 0x10400000 + `offset` (offset < 0x1000). */
uint32_t pvk_mmio_ext_read(pvk_context *ctx, uint32_t offset);
pvk_result pvk_mmio_ext_write(pvk_context *ctx, uint32_t offset, uint32_t value);
/* GPU_STAT_IRQ_FLAGS bit 31 follows the command processor's P3D line. */
void pvk_mmio_set_p3d(pvk_context *ctx, bool active);
/* Add to a read-only traffic counter (wraps like hardware counters). */
static inline void pvk_mmio_count(pvk_mmio *m, uint32_t offset, uint32_t amount)
{
    m->regs[offset / 4] += amount;
}

/* ---- transfer engine (vram/transfer.c) ---- */
pvk_result pvk_transfer_fill(pvk_context *ctx, int unit);
pvk_result pvk_transfer_memcopy(pvk_context *ctx);
/* Record a tiled<->linear conversion between two bound buffers into `op`
 * (the display-transfer shaders): `w` x `h` pixels, input rows `in_width`
 * pixels long, formats 0-4 as for transfers, mode bit 0 flip, bit 1
 * linear->tiled.  Byte offsets must be multiples of 16. */
struct pvk_op;
void pvk_transfer_record_convert(pvk_context *ctx, struct pvk_op *op, pvk_buffer_range src, uint32_t src_sub,
                                 pvk_buffer_range dst, uint32_t dst_sub, uint32_t in_width, uint32_t w, uint32_t h,
                                 uint32_t in_fmt, uint32_t out_fmt, uint32_t mode);

#endif
