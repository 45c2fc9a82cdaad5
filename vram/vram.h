/* vram/ owns guest memory and what moves it: the guest physical memory map
 * (host pointers, device buffers, zero-copy import or mirroring), the
 * external register file (memory control, memfill/memcopy, PDC), the
 * transfer engine (memory fill, display transfer, texture copy as compute
 * shaders) and, next, the surface cache.  It uses only the Vulkan layer
 * (gpu/gpu.h) and the translator's descriptions; it never decides how to
 * draw and never calls the public API or runtime/.  What the other folders may use
 * of it. */
#ifndef PVK_VRAM_H
#define PVK_VRAM_H

#include <stdbool.h>
#include <stdint.h>

#include <volk.h>

#include "gpu/gpu.h"
#include "translator/translator.h"

typedef struct pvk_vram pvk_vram;

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
    void (*observe)(pvk_vram *vm, const pvk_guest_span *s);
} pvk_guest;

pvk_result pvk_guest_init(pvk_vram *vm);
void pvk_guest_destroy(pvk_vram *vm);
/* The one bounds check: [paddr, paddr+len) inside one region (len 0 is
 * refused).  Logs and counts a refusal when `what` is not NULL. */
bool pvk_guest_resolve(pvk_vram *vm, uint32_t paddr, uint32_t len, const char *what, pvk_guest_span *out);
/* Bind a span as a storage buffer: descriptor offsets must be aligned, so
 * the byte offset of the span inside `range` goes to *sub.  Refuses (logged)
 * spans longer than the device's storage-buffer range. */
bool pvk_guest_bind(pvk_vram *vm, const pvk_guest_span *s, pvk_buffer_range *range, uint32_t *sub, const char *what);
/* The one CPU read of guest memory for the command processor, attribute and
 * index buffers: host bytes of [paddr, paddr+len) once nothing newer is on the
 * GPU, or NULL (not logged) outside guest memory. */
const void *pvk_guest_cpu_read(pvk_vram *vm, uint32_t paddr, uint32_t len);
/* Range check for an entry point: logs and counts (naming `what`) a refusal. */
bool pvk_guest_check(pvk_vram *vm, uint32_t paddr, uint32_t len, const char *what);
/* Host pointer for a range, NULL (logged as `what`) outside guest memory. */
void *pvk_guest_host(pvk_vram *vm, uint32_t paddr, uint32_t len, const char *what);
/* The CPU changed [paddr, paddr+len) (checked by the caller): forget GPU copies. */
void pvk_guest_invalidate(pvk_vram *vm, uint32_t paddr, uint32_t len);
/* Mirror mode: copy host bytes to the device copy / back.  No-ops when imported. */
void pvk_guest_upload(pvk_vram *vm, const pvk_guest_span *s);
void pvk_guest_download(pvk_vram *vm, const pvk_guest_span *s);

/* Readers and writers of guest memory that may live in a surface (vram/guestmem.c).
 * Every GPU pass that reads guest memory (transfers, scan-out) first calls
 * pvk_guest_sync_for_read: surfaces newer than memory are written back
 * (recorded, ordered before the reader; nothing waits).  CPU readers go
 * through pvk_guest_cpu_read, which also waits for GPU writes to the range.
 * A GPU pass about to write guest memory calls pvk_guest_gpu_write: surfaces
 * it overlaps are invalidated (dirty ones it covers only in part are written
 * back first, so their other bytes survive). */
pvk_result pvk_guest_sync_for_read(pvk_vram *vm, uint32_t paddr, uint32_t len);
void pvk_guest_gpu_write(pvk_vram *vm, uint32_t paddr, uint32_t len);
/* ... writing only `run` bytes of every `run + gap` (a texture copy's output lines) */
void pvk_guest_gpu_write_lines(pvk_vram *vm, uint32_t paddr, uint32_t len, uint32_t run, uint32_t gap);
/* The CPU (picavk's own trace players) is about to write the range: surfaces
 * are written back and the GPU drained, so pvk_guest_invalidate after the
 * write loses nothing but what the write replaces. */
void pvk_guest_before_cpu_write(pvk_vram *vm, uint32_t paddr, uint32_t len);
/* Everything the GPU holds newer than guest memory goes home (pvk_wait_idle). */
pvk_result pvk_guest_sync_all(pvk_vram *vm);

/* ---- surface cache (vram/surface.c) ---- */

/* What colour targets (surfaces, the draw's scratch image) and depth targets
 * are created with: imageless framebuffers name these usages exactly. */
#define PVK_COLOR_TARGET_USAGE                                                                                         \
    (VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |     \
     VK_IMAGE_USAGE_TRANSFER_DST_BIT)
#define PVK_DEPTH_TARGET_USAGE                                                                                         \
    (VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT)

typedef enum pvk_surface_kind {
    PVK_SURFACE_COLOR = 0,
    PVK_SURFACE_DEPTH = 1,
} pvk_surface_kind;

/* What makes two surfaces the same: zero-initialise, compared with memcmp. */
typedef struct pvk_surface_key {
    uint32_t addr;           /* guest physical start */
    uint32_t width, height;  /* guest pixels (1x) */
    uint32_t format;         /* colour: transfer-engine code 0-4; depth: DEPTHBUFFER_FORMAT 0, 2, 3 */
    uint8_t kind;            /* pvk_surface_kind */
    uint8_t block32;         /* RENDERBUFFER_BLOCK32 (loaded and stored as 8x8 tiles, as transfers do) */
    uint8_t scale;           /* resolution scale: the image is width*scale x height*scale */
    uint8_t pad;
} pvk_surface_key;
_Static_assert(sizeof(pvk_surface_key) == 20, "pvk_surface_key is packed");

typedef struct pvk_surface pvk_surface; /* vram/surface.c */

pvk_result pvk_surface_init(pvk_vram *vm);
void pvk_surface_destroy(pvk_vram *vm);
/* The surface for `key`, created on first use and loaded from guest memory
 * when it is new or a guest write invalidated it, or converted on the GPU
 * from a surface over the same bytes in another format (reinterpreted);
 * `what` names the use in logs.  The pointer lives until the next surface
 * call. */
pvk_result pvk_surface_get(pvk_vram *vm, const pvk_surface_key *key, VkFormat vk_format, const char *what,
                           pvk_surface **out);
/* The image view to render into: RGBA8 (memory byte order) or D32 (q * 2^-24),
 * width*scale x height*scale, in COLOR/DEPTH_ATTACHMENT_OPTIMAL. */
VkImageView pvk_surface_view(const pvk_surface *s);
/* Record depth_io.comp: a guest depth buffer (w x h, bpp 2/3/4, tiled) to
 * the linear float layout in `linear` (store false) or back (store true);
 * with `stencil` (D24S8) stencil bytes follow the w*h floats in `linear`,
 * else a D24S8 store keeps memory's stencil bytes. */
struct pvk_op;
void pvk_depth_io(pvk_vram *vm, struct pvk_op *op, pvk_buffer_range guest, uint32_t sub, pvk_buffer_range linear,
                  uint32_t w, uint32_t h, uint32_t bpp, bool store, bool stencil);
/* A draw wrote the image: it is newer than guest memory now. */
void pvk_surface_drawn(pvk_surface *s);
/* Write back dirty surfaces overlapping the range (recorded, not waited for). */
pvk_result pvk_surface_flush(pvk_vram *vm, uint32_t paddr, uint32_t len);
pvk_result pvk_surface_flush_all(pvk_vram *vm);
/* Guest memory in the range changed or is about to: overlapping surfaces
 * reload before their next use.  `keep_outside` (only before the write)
 * writes back dirty surfaces the range covers in part first. */
void pvk_surface_invalidate(pvk_vram *vm, uint32_t paddr, uint32_t len, bool keep_outside);
/* ... for a writer of `run` bytes every `run + gap` bytes over the range (a
 * texture copy with gaps): surfaces only in its gaps stay, dirty ones it
 * writes in part go home first (with `keep_outside`). */
void pvk_surface_invalidate_lines(pvk_vram *vm, uint32_t paddr, uint32_t len, uint32_t run, uint32_t gap,
                                  bool keep_outside);
/* A memory fill of `fill_bytes`-byte units of `value` is about to run: a
 * surface it covers with one pixel value (RGBA8 by a 32-bit fill, depth by
 * a fill of its pixel size) is cleared to it and stays valid; any other
 * surface it touches is invalidated as by pvk_guest_gpu_write. */
void pvk_surface_fill(pvk_vram *vm, uint32_t start, uint32_t len, uint32_t value, uint32_t fill_bytes);
/* Display transfers straight from a surface (vram/transfer.c): the colour
 * surface starting at `addr` whose image is the better source of its bytes
 * (valid and dirty, or valid at resolution scale N > 1), or NULL; its key; and beginning
 * `op` with its pixels copied into a linear 1x buffer (RGBA8 in R, G, B, A
 * byte order, rows `width` pixels long), returned as *out and visible to the
 * op's later commands.  The surface stays as it was.  On failure `op` is
 * not begun. */
struct pvk_op;
pvk_surface *pvk_surface_color_source(pvk_vram *vm, uint32_t addr);
const pvk_surface_key *pvk_surface_key_of(const pvk_surface *s);
pvk_result pvk_surface_begin_read(pvk_vram *vm, pvk_surface *s, struct pvk_op *op, pvk_buffer_range *out);
/* Shown images (the LCD at resolution scale N > 1): a display transfer
 * from a scaled colour surface into guest memory also keeps the transfer's
 * output at N x (same conversion, flip and downscale, pixels as R, G, B, A
 * bytes in memory order, rows width*N long) until something writes those
 * guest bytes; present.c shows it in place of the 1x bytes.
 * _prepare (before the op begins; may wait for the GPU) reserves a slot for
 * a `width` x `height` output in format `fmt` (0-4) at `addr` from a
 * surface keyed `src`, or returns -1 (scale 1, too large); _record adds the
 * copy to the op that reads the surface (mode: bit 0 flip, bits 2-3
 * downscale); pvk_surface_shown finds a valid one at the current scale
 * whose first `rows` rows are the framebuffer at `addr`. */
int pvk_surface_shown_prepare(pvk_vram *vm, const pvk_surface_key *src, uint32_t addr, uint32_t width, uint32_t height,
                              uint32_t fmt);
void pvk_surface_shown_record(pvk_vram *vm, pvk_surface *s, struct pvk_op *op, int slot, uint32_t mode);
bool pvk_surface_shown(pvk_vram *vm, uint32_t addr, uint32_t width, uint32_t rows, uint32_t fmt, pvk_buffer_range *out);
/* Textures from surfaces (vram/texture.c): the surface whose guest bytes
 * are exactly [addr, addr+len) and whose image is the better source of them
 * (as for pvk_surface_color_source), or NULL; its bytes per pixel;
 * and beginning `op` with the bytes a write-back of it would store (tiled,
 * in its format) recorded into a buffer the op frees (*bytes), nothing
 * written to guest memory, and the cache's 1x staging buffer (at least
 * 1024 x 1024 x 4 bytes) free for the op's later commands (*spare).  The
 * surface stays as it was.  On failure `op` is not begun. */
pvk_surface *pvk_surface_source_over(pvk_vram *vm, uint32_t addr, uint32_t len);
/* A texture copy of exactly the bytes of the source surface `s` to `dst_addr`
 * (vram/transfer.c, at resolution scale > 1): begin `op` with the image
 * copied into a surface of the same key at dst_addr, made without loading
 * it, valid and dirty (newer than guest memory, written back when something
 * reads it).  The caller has invalidated what the copy overwrites.  On
 * failure `op` is not begun. */
pvk_result pvk_surface_begin_copy(pvk_vram *vm, pvk_surface *s, uint32_t dst_addr, struct pvk_op *op);
/* Render-to-texture at resolution scale N > 1 (vram/texture.c): begin `op`
 * with the colour surface's N x image in a buffer the op reads next
 * (*pixels: R, G, B, A bytes, rows width*N pixels, each pixel as its
 * format's guest bytes would decode: what a 1x texture of those bytes holds,
 * at N x), nothing resolved or written back.  On failure `op` is not begun. */
pvk_result pvk_surface_begin_scaled_pixels(pvk_vram *vm, pvk_surface *s, struct pvk_op *op, pvk_buffer_range *pixels);
uint32_t pvk_surface_bytes_per_pixel(const pvk_surface *s);
pvk_result pvk_surface_begin_guest_bytes(pvk_vram *vm, pvk_surface *s, struct pvk_op *op, pvk_buffer_range *bytes,
                                         pvk_buffer_range *spare);

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
void pvk_mmio_reset(pvk_vram *vm);
/* Load a register snapshot (a trace's, a CiTrace's) of `count` words: every
 * register keeps only the bits a write could set, read-only registers stay
 * picavk's own; `lut` may be NULL. */
void pvk_mmio_load(pvk_vram *vm, const uint32_t *regs, const uint32_t lut[2][PVK_LCD_LUT_SIZE], uint32_t count);
/* Load a save state's registers (runtime/state.c): as pvk_mmio_load, and
 * the read-only registers picavk keeps (traffic counters, status words; not
 * GPU_HW_ID, the context's own) and the IRQ status bits (`irq`: bit 31 P3D, bits 0-1
 * GPU_STAT_IRQ_FLAGS' low bits) as saved; nothing is busy after it. */
void pvk_mmio_state_load(pvk_vram *vm, const uint32_t *regs, const uint32_t lut[2][PVK_LCD_LUT_SIZE], uint32_t irq);
uint32_t pvk_mmio_reg(const pvk_vram *vm, uint32_t offset); /* stored value */
/* Register access through 0x10400000 + `offset` (offset < 0x1000). */
uint32_t pvk_mmio_ext_read(pvk_vram *vm, uint32_t offset);
pvk_result pvk_mmio_ext_write(pvk_vram *vm, uint32_t offset, uint32_t value);
/* GPU_STAT_IRQ_FLAGS bit 31 follows the command processor's P3D line. */
void pvk_mmio_set_p3d(pvk_vram *vm, bool active);
/* Add to a read-only traffic counter (wraps like hardware counters). */
static inline void pvk_mmio_count(pvk_mmio *m, uint32_t offset, uint32_t amount)
{
    m->regs[offset / 4] += amount;
}

/* ---- transfer engine (vram/transfer.c) ---- */
pvk_result pvk_transfer_fill(pvk_vram *vm, int unit);
pvk_result pvk_transfer_memcopy(pvk_vram *vm);
/* Record a tiled<->linear conversion between two bound buffers into `op`
 * (the display-transfer shaders): `w` x `h` pixels, input rows `in_width`
 * pixels long, formats 0-4 as for transfers, mode bit 0 flip, bit 1
 * linear->tiled.  Byte offsets must be multiples of 4. */
struct pvk_op;
/* Format code for pvk_transfer_record_convert only: RGBA8 with R in the first
 * byte, as a VK_FORMAT_R8G8B8A8_UNORM image holds it (draw attachments). */
#define PVK_XFER_RGBA8_NATURAL 5u
void pvk_transfer_record_convert(pvk_vram *vm, struct pvk_op *op, pvk_buffer_range src, uint32_t src_sub,
                                 pvk_buffer_range dst, uint32_t dst_sub, uint32_t in_width, uint32_t w, uint32_t h,
                                 uint32_t in_fmt, uint32_t out_fmt, uint32_t mode);
/* The display-transfer pipeline (PVK_PIPE_*) for a w x h conversion (scale:
 * 0, 1 = 2x1, 2 = 2x2 downscale; to_tiled: linear -> tiled) whose
 * input rows are `in_width` pixels and, with `aligned16`, whose byte offsets
 * are multiples of 16; and its workgroup counts.  Blocks of 4x2 pixels with
 * word (RGBA8: 16-byte vector) loads and stores where the sizes allow. */
int pvk_transfer_pick(uint32_t in_fmt, uint32_t out_fmt, uint32_t scale, bool to_tiled, uint32_t w, uint32_t h,
                      uint32_t in_width, bool aligned16, uint32_t *gx, uint32_t *gy);

/* ==== textures (vram/texture.c) ====
 * A PICA texture in guest memory decoded into a VkImage by a compute shader
 * (shaders/texture_decode.comp), all 14 formats, with its mip levels and, for
 * cube maps, six faces; cached by pvk_texture_get beside the surfaces (one
 * invalidation path: surface.c tells the texture cache of every write it
 * hears of), and built from a render target's image when one holds the
 * texture's bytes.  Draws sample them (runtime/draw.c). */

/* GPUREG_TEXUNITi_TYPE values (seed 001; libctru GPU_TEXCOLOR). */
enum {
    PVK_TEX_RGBA8 = 0,
    PVK_TEX_RGB8 = 1,
    PVK_TEX_RGBA5551 = 2,
    PVK_TEX_RGB565 = 3,
    PVK_TEX_RGBA4 = 4,
    PVK_TEX_LA8 = 5,
    PVK_TEX_HILO8 = 6,
    PVK_TEX_L8 = 7,
    PVK_TEX_A8 = 8,
    PVK_TEX_LA4 = 9,
    PVK_TEX_L4 = 10,
    PVK_TEX_A4 = 11,
    PVK_TEX_ETC1 = 12,
    PVK_TEX_ETC1A4 = 13,
    PVK_TEX_FORMAT_COUNT = 14,
};

#define PVK_TEX_MIN_DIM 8u
#define PVK_TEX_MAX_DIM 1024u

typedef struct pvk_texture_desc {
    uint32_t addr[6];       /* guest physical address of level 0 of each face (8-byte aligned);
                               2D: addr[0]; cube: +X, -X, +Y, -Y, +Z, -Z (TEXUNIT0_ADDR1-6) */
    uint32_t width, height; /* level 0: 8..1024, multiples of 8 */
    uint32_t format;        /* PVK_TEX_* */
    uint32_t levels;        /* level 0 and the mip levels stored after it, each half as wide and high */
    uint32_t faces;         /* 1 (2D) or 6 (cube map; square) */
} pvk_texture_desc;

typedef struct pvk_texture {
    pvk_texture_desc desc;
    VkFormat vk_format;
    VkImage image;          /* at rest in SHADER_READ_ONLY_OPTIMAL */
    VkImageView view;       /* 2D or cube, with the format's swizzle (sampler-ready RGBA) */
    VkDeviceMemory mem;
    uint32_t scale;         /* the image is scale x the size of `desc` (0 or 1: 1x; more: built from a
                               render target at that resolution scale, or a pack's replacement) */
    bool replaced;          /* a texture pack's image (RGBA8, identity swizzle) */
    bool filtered;          /* the texture filter's image (RGBA8, identity swizzle, `scale` the resolution scale) */
} pvk_texture;

/* The image format a PICA format decodes to, the view swizzle that turns it
 * into the RGBA the texture unit gives, and bytes per texel; UNDEFINED for a
 * reserved format. */
VkFormat pvk_texture_vk_format(uint32_t format, VkComponentMapping *swizzle, uint32_t *texel_bytes);
/* Guest bytes one face spans: its levels one after another. */
uint32_t pvk_texture_face_bytes(uint32_t format, uint32_t width, uint32_t height, uint32_t levels);
/* Create `out` and record its decode from guest memory (render targets over
 * the range are written back first; nothing waits).  Bad input (reserved
 * format, size, level count, faces, alignment, range outside guest memory)
 * is logged, counted in pvk_stats.bad_input and refused; `out` is then
 * zeroed. */
pvk_result pvk_texture_decode(pvk_vram *vm, const pvk_texture_desc *desc, pvk_texture *out);
/* Copy one level of one face to host memory as the image stores it (rows
 * of (width >> level) * texel_bytes bytes); waits for the GPU.  Tests. */
pvk_result pvk_texture_read(pvk_vram *vm, const pvk_texture *t, uint32_t face, uint32_t level, void *dst, size_t size);
/* Waits for GPU work that may still use it, then frees it. */
void pvk_texture_destroy(pvk_vram *vm, pvk_texture *t);

/* The texture cache.  pvk_texture_get returns the texture for `desc`:
 *  (a) the cached one when nothing wrote its guest bytes since it was made
 *      (pvk_stats.texture_hits);
 *  (b) else, when a dirty colour or depth surface holds exactly its bytes
 *      (one face, one level, the same size, a texel the size of the
 *      surface's pixel, not ETC), one built on the GPU from the surface's
 *      image through the bytes a write-back would store, with nothing
 *      written to guest memory (texture_from_surface);
 *  (c) else one decoded from guest memory, surfaces over its bytes written
 *      back first (texture_decodes).
 * The pointer is the cache's, valid until the next texture call; the image
 * lives until evicted or invalidated and the GPU is past its last use (the
 * current batch counts as a use).  PVK_DEBUG=roundtrip (draws write guest
 * memory behind the surface cache's back) makes every call decode. */
#define PVK_TEXTURE_CACHE 32
pvk_result pvk_textures_init(pvk_vram *vm);
void pvk_textures_destroy(pvk_vram *vm);
pvk_result pvk_texture_get(pvk_vram *vm, const pvk_texture_desc *desc, const pvk_texture **out);
/* Something wrote [paddr, paddr+len) or is about to (surface.c calls it from
 * every invalidation it makes, and for draw targets): textures over it are
 * dropped before their next use. */
void pvk_texture_invalidate(pvk_vram *vm, uint32_t paddr, uint32_t len);
/* TEXUNIT_CONFIG bit 16 (clear texture cache): a texture decoded from
 * memory is used again only if its guest bytes still hash as they did when
 * it was decoded (textures built from surfaces stay: see texture.c). */
void pvk_texture_cache_clear(pvk_vram *vm);
/* The texture a texture unit's description (translator/texture.c) names:
 * false for a disabled or procedural unit. */
struct pvk_tex_desc;
bool pvk_texture_desc_from_unit(const struct pvk_tex_desc *unit, pvk_texture_desc *out);
/* Surfaces held now and their images' bytes (pvk_stats.held_surfaces). */
void pvk_surfaces_held(const pvk_vram *vm, uint64_t *count, uint64_t *bytes);
/* Textures held now and their images' bytes (pvk_stats.held_textures). */
void pvk_textures_held(const pvk_vram *vm, uint64_t *count, uint64_t *bytes);
/* Textures cached and valid now (tests). */
uint32_t pvk_texture_cached(const pvk_vram *vm);

/* ---- texture dumps (vram/dump.c) ---- */
#define PVK_DUMP_SLOTS 64u /* levels whose read-back is in flight at most */
typedef struct pvk_dump_level {
    uint32_t w, h, format, level; /* w 0: a free slot */
    uint64_t hash;                /* CityHash64 of the level's guest bytes */
} pvk_dump_level;
/* Dumps into `dir` (made if its parent exists; NULL or "": none), a worker thread, pack.json's template. */
pvk_result pvk_dump_init(pvk_vram *vm, const char *dir);
/* Writes what is queued, joins the worker (after the GPU is idle: no read-back retires later). */
void pvk_dump_destroy(pvk_vram *vm);
/* PNGs written and failed so far (pvk_stats.textures_dumped, texture_dump_failures). */
void pvk_dump_counts(const pvk_vram *vm, uint64_t *written, uint64_t *failed);
/* A read-back slot for `level` if its hash is new (then remembered); -1: no dump. */
int pvk_dump_claim(pvk_vram *vm, const pvk_dump_level *level);
void pvk_dump_release(pvk_vram *vm, int slot);
/* pvk_pending.retire of a read-back (owner: the pvk_vram, arg: the slot,
 * scratch: the buffer): the pixels to the worker. */
void pvk_dump_retire(pvk_gpu *gpu, const pvk_pending *p);

/* ---- texture packs (vram/pack.c) ---- */
#define PVK_PACK_LEVELS 8u
/* A pack in `dir` (NULL or "": none; not a folder: refused), indexed now, a
 * worker thread; `sync`: a lookup waits for its replacement's decode. */
pvk_result pvk_pack_init(pvk_vram *vm, const char *dir, bool sync);
void pvk_pack_destroy(pvk_vram *vm);
/* A texture's replacement: every level RGBA8, one after another (level l
 * (width >> l) x (height >> l), row 0 the image's row 0), `scale` times the
 * texture's size; the pointer is the pack's, valid until the next call. */
typedef struct pvk_replacement {
    const uint8_t *rgba;
    uint32_t width, height, levels, scale;
} pvk_replacement;
enum { PVK_PACK_NONE, PVK_PACK_PENDING, PVK_PACK_READY };
/* The replacement of a texture decoded from guest memory (`level_hash`: the
 * CityHash64 of each level's guest bytes): none, being decoded (asked for
 * now if it was not), or ready (`out`). */
int pvk_pack_find(pvk_vram *vm, const pvk_texture_desc *d, const uint64_t *level_hash, pvk_replacement *out);
/* The pack is keyed by the old hash (pvk_old_hash), not the guest bytes' CityHash64. */
bool pvk_pack_old_hash(const pvk_vram *vm);
/* Citra's and Azahar's old texture hash of one level (`level`: its guest
 * bytes, w x h, both multiples of 8): CityHash64 of the level decoded as
 * they decode it for the hash (vram/oldhash.c); 0 when out of memory.
 * pvk_old_hash_bytes: those decoded bytes (malloc'd, *len bytes; tests). */
uint64_t pvk_old_hash(const uint8_t *level, uint32_t format, uint32_t w, uint32_t h);
uint8_t *pvk_old_hash_bytes(const uint8_t *level, uint32_t format, uint32_t w, uint32_t h, size_t *len);
uint32_t pvk_old_hash_texel_bytes(uint32_t format);
/* Counts a replacement made into an image, a texture drawn while its replacement was pending. */
void pvk_pack_count(pvk_vram *vm, bool replaced, bool pending);
/* pvk_stats' pack fields. */
void pvk_pack_stats(const pvk_vram *vm, pvk_stats *s);
/* Nothing queued or being decoded (tests wait for it). */
bool pvk_pack_idle(pvk_vram *vm);

/* ---- texture filters at resolution scale N (vram/filter.c) ---- */
/* The filter `name` (NULL, "" or "none": none; an unknown name:
 * PVK_ERROR_INVALID_ARGUMENT; one not written yet: PVK_ERROR_UNSUPPORTED;
 * both logged). */
pvk_result pvk_filter_init(pvk_vram *vm, const char *name);
void pvk_filter_destroy(pvk_vram *vm);
/* The filter reads two 2x grids of its own (Anime4K: RGBA32F images the
 * caller makes, sampled and stored in GENERAL): record with pvk_filter_record_grids. */
bool pvk_filter_grids(const pvk_vram *vm);
void pvk_filter_record_grids(pvk_vram *vm, VkCommandBuffer cmd, VkImageView src, const VkImageView grid[2],
                             VkImageView dst, uint32_t w, uint32_t h, uint32_t scale);
/* 0: the filter makes any scale in one pass; else the factor of each pass (2). */
uint32_t pvk_filter_step(const pvk_vram *vm);
/* Record the filter of `src` (w x h, level 0, shader-readable) into `dst`
 * (a storage view of an RGBA8 level w*scale x h*scale in GENERAL). */
void pvk_filter_record(pvk_vram *vm, VkCommandBuffer cmd, VkImageView src, VkImageView dst, uint32_t w, uint32_t h,
                       uint32_t scale);

/* vram/'s state in a context (pvk_context.vram). */
struct pvk_vram {
    pvk_gpu *gpu; /* the context's Vulkan layer */
    uint32_t scale; /* resolution scale of render targets and frames, 1..PVK_MAX_SCALE */
    pvk_guest guest;
    pvk_mmio mmio; /* the external register file */
    struct pvk_surfaces *surfaces; /* vram/surface.c */
    struct pvk_textures *textures; /* vram/texture.c: the texture cache */
    struct pvk_dump *dump;         /* vram/dump.c: texture dumps, NULL when off */
    struct pvk_pack *pack;         /* vram/pack.c: a texture pack, NULL when none */
    struct pvk_filter *filter;     /* vram/filter.c: the texture filter at scale N, NULL when none */
};

#endif
