/* The surface cache: colour and depth buffers as VkImages keyed by guest
 * address, size, PICA format, tiling and resolution scale, so consecutive
 * draws render into the same image without touching guest memory.
 *
 * A surface is `valid` when its image holds the guest bytes or something
 * newer, and `dirty` when the image is newer than guest memory.  A surface
 * is loaded (compute untile, the transfer and depth_io shaders) only when it
 * is created or was invalidated by a guest write (host CPU, fill, transfer);
 * it is written back (tile pass) only when something needs guest memory:
 * see pvk_surface_flush's callers in vram/guestmem.c.  Surfaces never
 * overlap: a new surface over exactly the bytes of another (address, size,
 * pixel size, block mode, scale) in another format is converted from the old
 * image on the GPU (reinterpret()); any other overlap writes the old one back
 * and drops it, then loads from memory.
 *
 * D24S8 surfaces in a depth-stencil format (D32_SFLOAT_S8_UINT, draw.c picks
 * it) carry the stencil byte in their stencil aspect: loads, write-backs and
 * fills move both aspects, and the image is the truth for both.
 *
 * Images are scale x the guest size.  At rest colour images are in
 * COLOR_ATTACHMENT_OPTIMAL, depth images in DEPTH_ATTACHMENT_OPTIMAL and
 * depth-stencil images in DEPTH_STENCIL_ATTACHMENT_OPTIMAL (one layout for
 * both aspects: separateDepthStencilLayouts is not required of the device);
 * every pass returns them there.  Scale 1 copies between the linear staging
 * buffer and the image; other scales go through a 1x scratch image and a
 * nearest blit both ways.  Down (the resolve a write-back makes) it takes
 * the sample at ((x + 1/2) N, (y + 1/2) N) of each N x N block: the 1x
 * pixel centre for odd N, half a sample right and down of it for even N,
 * fixed integer positions, so the resolve is deterministic on every device.
 * Nearest rather than a box average for colour too: the guest then reads
 * only colours its draws produced (no edge blends a 1x render could not
 * make), colour and depth resolve at the same sample, and a surface loaded
 * from memory (nearest up) resolves to exactly the bytes it was loaded
 * from. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "vram/vram.h"

#define MAX_SURFACES 16
#define MAX_SHOWN 4 /* top, right eye, bottom and one spare */
#define MAX_DIM 1024 /* FRAMEBUFFER_DIM: 11-bit width, 10-bit height-1 */

struct pvk_surface {
    pvk_surface_key key;
    uint32_t bpp, len;       /* guest bytes per pixel, guest bytes */
    VkFormat vk_format;
    pvk_image image;         /* at rest in COLOR/DEPTH_ATTACHMENT_OPTIMAL */
    bool used, valid, dirty; /* valid: holds memory or newer; dirty: newer than memory */
    bool stencil;            /* the image has a stencil aspect (D24S8 in a depth-stencil format) */
    uint64_t last_use;
};

struct pvk_surfaces {
    pvk_surface s[MAX_SURFACES];
    pvk_surface *last; /* returned by the last request (get) */
    uint64_t tick;
    VkBuffer staging; /* linear RGBA8, or float depth then stencil bytes, at 1x */
    VkDeviceMemory staging_mem;
    pvk_image scratch[3]; /* 1x colour / depth / depth-stencil images for scaled surfaces */
    bool blit;            /* the device blits RGBA8 and D32 (scales other than 1) */
    bool blit_ds;         /* ... and D32_SFLOAT_S8_UINT */
    /* Shown images: the scaled copy of a display transfer's output that the
     * LCD presents instead of the 1x bytes (pvk_surface_shown); `big` holds
     * the scaled source image copied out linearly on its way there. */
    struct shown {
        uint32_t addr, len, width, height, fmt, scale; /* the 1x output it shows, and its scale */
        bool valid;
        uint64_t last_use;
        VkBuffer buf;
        VkDeviceMemory mem;
        VkDeviceSize cap;
    } shown[MAX_SHOWN];
    VkBuffer big;
    VkDeviceMemory big_mem;
    VkDeviceSize big_cap;
};

static const VkImageUsageFlags surface_usage =
    VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;

static bool is_depth(const pvk_surface *s)
{
    return s->key.kind == PVK_SURFACE_DEPTH;
}

/* Every aspect of the image (barriers and blits take them together). */
static VkImageAspectFlags aspect_of(const pvk_surface *s)
{
    return !is_depth(s) ? VK_IMAGE_ASPECT_COLOR_BIT
           : s->stencil ? VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT
                        : VK_IMAGE_ASPECT_DEPTH_BIT;
}

static VkImageLayout rest_layout(const pvk_surface *s)
{
    return !is_depth(s) ? VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL
           : s->stencil ? VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL
                        : VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL;
}

/* Buffer <-> image copies of the linear staging layout of a w x h image of
 * surface `s`: one region per aspect (colour or depth at 0; stencil bytes
 * after w*h floats).  The 1x staging layout, or the whole n x image. */
static uint32_t image_regions(const pvk_surface *s, uint32_t w, uint32_t h, VkBufferImageCopy r[2])
{
    r[0] = (VkBufferImageCopy){.imageSubresource = {is_depth(s) ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT,
                                                    0, 0, 1},
                               .imageExtent = {w, h, 1}};
    r[1] = (VkBufferImageCopy){.bufferOffset = (VkDeviceSize)w * h * 4,
                               .imageSubresource = {VK_IMAGE_ASPECT_STENCIL_BIT, 0, 0, 1},
                               .imageExtent = {w, h, 1}};
    return s->stencil ? 2 : 1;
}

static uint32_t copy_regions(const pvk_surface *s, VkBufferImageCopy r[2])
{
    return image_regions(s, s->key.width, s->key.height, r);
}

void pvk_depth_io(pvk_vram *vm, struct pvk_op *op, pvk_buffer_range guest, uint32_t sub, pvk_buffer_range linear,
                  uint32_t w, uint32_t h, uint32_t bpp, bool store, bool stencil)
{
    struct { uint32_t base, width, height, bpp, mode, stencil, pad[2]; } io = {sub, w, h, bpp, store, stencil, {0, 0}};
    pvk_buffer_range bufs[2] = {guest, linear};
    /* one invocation per 4x2 block: w per row of tiles (depth_io.comp) */
    pvk_op_dispatch(vm->gpu, op, PVK_PIPE_DEPTH_IO, bufs, &io, (w + 63) / 64, h / 8, 1);
}

static void barrier(pvk_vram *vm, VkCommandBuffer cmd, VkImage img, VkImageAspectFlags aspect, VkImageLayout from,
                    VkImageLayout to)
{
    pvk_image_barrier(vm->gpu, cmd, img, aspect, from, to, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                      VK_ACCESS_2_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                      VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT);
}

pvk_result pvk_surface_init(pvk_vram *vm)
{
    struct pvk_surfaces *c = calloc(1, sizeof *c);
    if (!c)
        return PVK_ERROR_OUT_OF_MEMORY;
    vm->surfaces = c;
    pvk_result r = pvk_create_buffer(vm->gpu, (VkDeviceSize)MAX_DIM * MAX_DIM * 5,
                                     VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                         VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                     VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &c->staging, &c->staging_mem);
    pvk_object_name(vm->gpu, VK_OBJECT_TYPE_BUFFER, (uint64_t)c->staging, "surface staging (linear, 1x)");
    VkFormatProperties cp, dp, sp;
    vkGetPhysicalDeviceFormatProperties(vm->gpu->phys, VK_FORMAT_R8G8B8A8_UNORM, &cp);
    vkGetPhysicalDeviceFormatProperties(vm->gpu->phys, VK_FORMAT_D32_SFLOAT, &dp);
    vkGetPhysicalDeviceFormatProperties(vm->gpu->phys, VK_FORMAT_D32_SFLOAT_S8_UINT, &sp);
    VkFormatFeatureFlags need = VK_FORMAT_FEATURE_BLIT_SRC_BIT | VK_FORMAT_FEATURE_BLIT_DST_BIT;
    c->blit = (cp.optimalTilingFeatures & need) == need && (dp.optimalTilingFeatures & need) == need;
    c->blit_ds = c->blit && (sp.optimalTilingFeatures & need) == need;
    return r;
}

/* A surface goes: its image waits for the work that may use it (submitted,
 * or the open draw batch: the next submission) in the GPU layer's deferred
 * destroy, so no surface call waits for the GPU to let one go. */
static void drop(pvk_vram *vm, pvk_surface *s)
{
    pvk_image_defer_destroy(vm->gpu, &s->image, pvk_gpu_submitted(vm->gpu) + 1);
    memset(s, 0, sizeof *s);
}

void pvk_surface_destroy(pvk_vram *vm)
{
    struct pvk_surfaces *c = vm->surfaces;
    if (!c)
        return;
    for (int i = 0; i < MAX_SURFACES; i++)
        if (c->s[i].used)
            drop(vm, &c->s[i]);
    for (int i = 0; i < 3; i++)
        pvk_image_destroy(vm->gpu, &c->scratch[i]);
    for (int i = 0; i < MAX_SHOWN; i++) {
        if (c->shown[i].buf)
            vm->gpu->vk.vkDestroyBuffer(vm->gpu->device, c->shown[i].buf, NULL);
        if (c->shown[i].mem)
            vm->gpu->vk.vkFreeMemory(vm->gpu->device, c->shown[i].mem, NULL);
    }
    if (c->big)
        vm->gpu->vk.vkDestroyBuffer(vm->gpu->device, c->big, NULL);
    if (c->big_mem)
        vm->gpu->vk.vkFreeMemory(vm->gpu->device, c->big_mem, NULL);
    if (c->staging)
        vm->gpu->vk.vkDestroyBuffer(vm->gpu->device, c->staging, NULL);
    if (c->staging_mem)
        vm->gpu->vk.vkFreeMemory(vm->gpu->device, c->staging_mem, NULL);
    free(c);
    vm->surfaces = NULL;
}

/* Guest bytes under a shown image changed: the LCD shows memory again. */
static void shown_invalidate(struct pvk_surfaces *c, uint32_t paddr, uint32_t len)
{
    for (int i = 0; c && i < MAX_SHOWN; i++) {
        struct shown *d = &c->shown[i];
        if (d->valid && len && paddr < d->addr + d->len && d->addr < paddr + len)
            d->valid = false;
    }
}

/* Is the image of `s` the better source of its guest bytes?  When it is
 * newer than memory, and at resolution scale N > 1 also when it is not: a
 * write-back (FRAMEBUFFER_FLUSH) leaves memory equal to its 1x resolve, and
 * readers of the N x image keep the detail.  Every write to the bytes by
 * anyone else (host, fill, transfer) invalidates the surface. */
static bool is_source(const pvk_surface *s)
{
    return s->used && s->valid && (s->dirty || s->key.scale > 1);
}

static bool overlaps(const pvk_surface *s, uint32_t paddr, uint32_t len)
{
    return s->used && len && paddr < s->key.addr + s->len && s->key.addr < paddr + len;
}

static bool covers(uint32_t paddr, uint32_t len, const pvk_surface *s)
{
    return paddr <= s->key.addr && (uint64_t)s->key.addr + s->len <= (uint64_t)paddr + len;
}

/* Scaled surfaces: the 1x scratch image of the surface's kind, in
 * TRANSFER_DST layout on return when `dst`, else TRANSFER_SRC after `from`. */
static pvk_result scratch_for(pvk_vram *vm, pvk_surface *s, pvk_image **out)
{
    struct pvk_surfaces *c = vm->surfaces;
    pvk_image *im = &c->scratch[is_depth(s) + s->stencil];
    if (im->image && (im->w != s->key.width || im->h != s->key.height) && pvk_gpu_busy(vm->gpu))
        pvk_gpu_idle(vm->gpu); /* an earlier pass may still use it */
    *out = im;
    return pvk_image_ensure(vm->gpu, im, s->key.width, s->key.height, s->vk_format, surface_usage, false);
}

static void blit(pvk_vram *vm, VkCommandBuffer cmd, const pvk_surface *s, VkImage src, uint32_t sw, uint32_t sh,
                 VkImage dst, uint32_t dw, uint32_t dh)
{
    VkImageBlit b = {
        .srcSubresource = {aspect_of(s), 0, 0, 1},
        .srcOffsets = {{0, 0, 0}, {(int32_t)sw, (int32_t)sh, 1}},
        .dstSubresource = {aspect_of(s), 0, 0, 1},
        .dstOffsets = {{0, 0, 0}, {(int32_t)dw, (int32_t)dh, 1}},
    };
    (void)s;
    vm->gpu->vk.vkCmdBlitImage(cmd, src, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dst,
                               VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &b,
                               VK_FILTER_NEAREST); /* see the top of the file */
}

/* Record the image of `s` (through the 1x scratch image when scaled, as a
 * write-back downsamples) into the staging buffer at 1x. */
static void record_readout(pvk_vram *vm, VkCommandBuffer cmd, const pvk_surface *s, pvk_image *scratch)
{
    struct pvk_surfaces *c = vm->surfaces;
    uint32_t w = s->key.width, h = s->key.height, scale = s->key.scale;
    barrier(vm, cmd, s->image.image, aspect_of(s), rest_layout(s), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    VkImage last = s->image.image;
    if (scale != 1) {
        barrier(vm, cmd, scratch->image, aspect_of(s), VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
        blit(vm, cmd, s, s->image.image, w * scale, h * scale, scratch->image, w, h);
        barrier(vm, cmd, scratch->image, aspect_of(s), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
        last = scratch->image;
        vm->gpu->stats.surface_resolves++;
    }
    VkBufferImageCopy bic[2];
    uint32_t nbic = copy_regions(s, bic);
    vm->gpu->vk.vkCmdCopyImageToBuffer(cmd, last, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, c->staging, nbic, bic);
    barrier(vm, cmd, s->image.image, aspect_of(s), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, rest_layout(s));
}

/* Record the staging buffer (1x) into the image of `s` (through the scratch
 * image when scaled, as a load upsamples); the image's old contents go. */
static void record_upload(pvk_vram *vm, VkCommandBuffer cmd, const pvk_surface *s, pvk_image *scratch)
{
    struct pvk_surfaces *c = vm->surfaces;
    uint32_t w = s->key.width, h = s->key.height, scale = s->key.scale;
    VkImage first = scale == 1 ? s->image.image : scratch->image;
    VkBufferImageCopy bic[2];
    uint32_t nbic = copy_regions(s, bic);
    barrier(vm, cmd, first, aspect_of(s), VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    vm->gpu->vk.vkCmdCopyBufferToImage(cmd, c->staging, first, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, nbic, bic);
    if (scale != 1) {
        barrier(vm, cmd, first, aspect_of(s), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
        barrier(vm, cmd, s->image.image, aspect_of(s), VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
        blit(vm, cmd, s, first, w, h, s->image.image, w * scale, h * scale);
    }
    barrier(vm, cmd, s->image.image, aspect_of(s), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, rest_layout(s));
}

/* Guest bytes of `s` -> its image. */
static pvk_result load(pvk_vram *vm, pvk_surface *s)
{
    struct pvk_surfaces *c = vm->surfaces;
    uint32_t w = s->key.width, h = s->key.height, scale = s->key.scale;
    pvk_guest_span span;
    pvk_buffer_range guest;
    uint32_t sub;
    /* a GPU read of guest memory: the trace recorder hears of it */
    if (!pvk_guest_resolve(vm, s->key.addr, s->len, "surface load", &span) ||
        !pvk_guest_bind(vm, &span, &guest, &sub, "surface load"))
        return PVK_ERROR_OUT_OF_RANGE;
    if (span.region->mirror) { /* earlier GPU writes home first, then the bytes in */
        pvk_gpu_idle(vm->gpu);
        pvk_guest_upload(vm, &span);
    }
    pvk_image *scratch = NULL;
    pvk_result r;
    if (scale != 1 && (r = scratch_for(vm, s, &scratch)))
        return r;
    pvk_op op;
    if ((r = pvk_op_begin(vm->gpu, &op)))
        return r;
    VkCommandBuffer cmd = op.cmd;
    pvk_op_label(vm->gpu, &op, "surface load: %s 0x%08X %ux%u format %u", is_depth(s) ? "depth" : "colour", s->key.addr,
                 w, h, s->key.format);
    pvk_buffer_range staging = {c->staging, 0, (VkDeviceSize)w * h * (s->stencil ? 5 : 4)};
    if (is_depth(s))
        pvk_depth_io(vm, &op, guest, sub, staging, w, h, s->bpp, false, s->stencil);
    else
        pvk_transfer_record_convert(vm, &op, guest, sub, staging, 0, w, w, h, s->key.format, PVK_XFER_RGBA8_NATURAL, 0);
    pvk_op_barrier(vm->gpu, &op);
    record_upload(vm, cmd, s, scratch);
    if ((r = pvk_op_submit(vm->gpu, &op)))
        return r;
    s->valid = true;
    s->dirty = false;
    vm->gpu->stats.surface_loads++;
    vm->gpu->stats.surface_bytes += s->len;
    return PVK_SUCCESS;
}

static void writeback_retire(pvk_gpu *gpu, const pvk_pending *p)
{
    (void)gpu;
    pvk_vram *vm = p->owner;
    pvk_guest_span s;
    if (pvk_guest_resolve(vm, p->dst_addr, p->dst_len, NULL, &s))
        pvk_guest_download(vm, &s);
}

static pvk_result write_back_once(pvk_vram *vm, pvk_surface *s);

/* The image of a dirty `s` -> guest memory (tiled, in its format).  A
 * failure is logged and counted here; callers that cannot stop (a write
 * to the bytes comes next either way) go on without the surface. */
static pvk_result write_back(pvk_vram *vm, pvk_surface *s)
{
    pvk_result r = write_back_once(vm, s);
    if (r) {
        vm->gpu->stats.surface_writeback_failures++;
        pvk_log(vm->gpu, PVK_LOG_ERROR,
                "surface 0x%08X (%ux%u): write-back failed (%s); what only the GPU held is lost", s->key.addr,
                s->key.width, s->key.height, pvk_result_name(r));
    }
    return r;
}

static pvk_result write_back_once(pvk_vram *vm, pvk_surface *s)
{
    struct pvk_surfaces *c = vm->surfaces;
    uint32_t w = s->key.width, h = s->key.height, scale = s->key.scale;
    pvk_guest_span span;
    pvk_buffer_range guest;
    uint32_t sub;
    /* internal: not observed (the range was checked when the surface was made) */
    if (!pvk_guest_resolve(vm, s->key.addr, s->len, NULL, &span) ||
        !pvk_guest_bind(vm, &span, &guest, &sub, "surface write-back"))
        return PVK_ERROR_OUT_OF_RANGE;
    /* Mirror mode, D24S8 without a stencil aspect: the store keeps stencil
     * bytes it reads from the device copy, so that copy must hold the host's bytes. */
    if (span.region->mirror && is_depth(s) && s->bpp == 4 && !s->stencil) {
        pvk_gpu_idle(vm->gpu);
        pvk_guest_upload(vm, &span);
    }
    pvk_image *scratch = NULL;
    pvk_result r;
    if (scale != 1 && (r = scratch_for(vm, s, &scratch)))
        return r;
    pvk_op op;
    if ((r = pvk_op_begin(vm->gpu, &op)))
        return r;
    VkCommandBuffer cmd = op.cmd;
    pvk_op_label(vm->gpu, &op, "surface write-back: %s 0x%08X %ux%u format %u", is_depth(s) ? "depth" : "colour",
                 s->key.addr, w, h, s->key.format);
    record_readout(vm, cmd, s, scratch);
    pvk_op_barrier(vm->gpu, &op);
    pvk_buffer_range staging = {c->staging, 0, (VkDeviceSize)w * h * (s->stencil ? 5 : 4)};
    if (is_depth(s)) {
        pvk_depth_io(vm, &op, guest, sub, staging, w, h, s->bpp, true, s->stencil);
    } else {
        pvk_transfer_record_convert(vm, &op, staging, 0, guest, sub, w, w, h, PVK_XFER_RGBA8_NATURAL, s->key.format, 2);
    }
    op.p.retire = writeback_retire;
    op.p.owner = vm;
    op.p.dst_addr = s->key.addr;
    op.p.dst_len = s->len;
    if ((r = pvk_op_submit(vm->gpu, &op)))
        return r;
    s->dirty = false;
    vm->gpu->stats.surface_writebacks++;
    vm->gpu->stats.surface_bytes += s->len;
    return PVK_SUCCESS;
}

static bool reinterpretable(const pvk_surface *s, const pvk_surface_key *key, uint32_t bpp);
static pvk_result reinterpret(pvk_vram *vm, pvk_surface *from, pvk_surface *to, const pvk_surface_key *key);

/* pvk_surface_get; with `load` false a surface that holds nothing valid is
 * not loaded (its caller overwrites the whole image). */
/* Bytes of a surface's image (a depth-stencil format: 8 a pixel). */
static uint64_t surf_bytes(const pvk_surface *s)
{
    return (uint64_t)s->image.w * s->image.h * (s->stencil ? 8 : 4);
}

void pvk_surfaces_held(const pvk_vram *vm, uint64_t *count, uint64_t *bytes)
{
    *count = *bytes = 0;
    for (int i = 0; vm->surfaces && i < MAX_SURFACES; i++)
        if (vm->surfaces->s[i].used)
            ++*count, *bytes += surf_bytes(&vm->surfaces->s[i]);
}

/* Past the memory budget's share the least recently used surfaces go
 * (written back first when dirty; nothing waits), not `keep` (just taken)
 * nor the one taken before it (a draw's other target). */
static pvk_result over_budget(pvk_vram *vm, pvk_surface *keep)
{
    struct pvk_surfaces *c = vm->surfaces;
    for (;;) {
        uint64_t held = 0;
        pvk_surface *lru = NULL;
        for (int i = 0; i < MAX_SURFACES; i++) {
            pvk_surface *s = &c->s[i];
            if (!s->used)
                continue;
            held += surf_bytes(s);
            if (s != keep && s->last_use + 1 < c->tick && (!lru || s->last_use < lru->last_use))
                lru = s;
        }
        if (!lru || held <= vm->gpu->budget.surfaces)
            return PVK_SUCCESS;
        pvk_result r;
        if (lru->dirty && (r = write_back(vm, lru)))
            return r;
        drop(vm, lru);
        vm->gpu->stats.budget_evictions++;
    }
}

static pvk_result get(pvk_vram *vm, const pvk_surface_key *key, VkFormat vk_format, const char *what, pvk_surface **out,
                      bool load_it)
{
    struct pvk_surfaces *c = vm->surfaces;
    *out = NULL;
    uint32_t bpp = key->kind == PVK_SURFACE_DEPTH ? pvk_depth_format_bpp(key->format)
                                                  : pvk_color_format_bpp(key->format);
    if (!key->width || !key->height || key->width > MAX_DIM || key->height > MAX_DIM || key->width % 8 ||
        key->height % 8) {
        pvk_bad_input(vm->gpu, "%s: a %ux%u buffer is not drawable (sizes are multiples of 8 up to %u)", what,
                      key->width, key->height, MAX_DIM);
        return PVK_ERROR_BAD_PARAMETERS;
    }
    if (!bpp) {
        pvk_bad_input(vm->gpu, "%s: depth buffer format %u is reserved; not drawn", what, key->format);
        return PVK_ERROR_BAD_PARAMETERS;
    }
    bool stencil = vk_format == VK_FORMAT_D32_SFLOAT_S8_UINT;
    if (key->scale < 1 || key->scale > PVK_MAX_SCALE ||
        key->width * key->scale > vm->gpu->props.limits.maxImageDimension2D ||
        key->height * key->scale > vm->gpu->props.limits.maxImageDimension2D) {
        pvk_unsupported(vm->gpu, "%s: a %ux%u buffer at resolution scale %u exceeds the device's images", what,
                        key->width, key->height, key->scale);
        return PVK_ERROR_MISSING_FEATURE;
    }
    if (key->scale != 1 && !(stencil ? c->blit_ds : c->blit)) {
        pvk_unsupported(vm->gpu, "%s: resolution scale %u needs blits the device lacks", what, key->scale);
        return PVK_ERROR_MISSING_FEATURE;
    }
    uint32_t len = key->width * key->height * bpp;
    if (!pvk_guest_check(vm, key->addr, len, what))
        return PVK_ERROR_OUT_OF_RANGE;
    pvk_surface *hit = NULL, *freeslot = NULL, *oldest = NULL, *from = NULL;
    pvk_result r;
    /* the surface asked for last, unchanged: nothing else overlaps it (a
     * request drops or converts every other surface over its bytes) */
    if (c->last && c->last->used && c->last->valid && c->last->vk_format == vk_format &&
        !memcmp(&c->last->key, key, sizeof *key)) {
        hit = c->last;
#ifndef NDEBUG
        for (int i = 0; i < MAX_SURFACES; i++)
            assert(&c->s[i] == hit || !c->s[i].used || !overlaps(&c->s[i], key->addr, len));
#endif
        goto found;
    }
    for (int i = 0; i < MAX_SURFACES; i++) {
        pvk_surface *s = &c->s[i];
        if (!s->used) {
            if (!freeslot)
                freeslot = s;
            continue;
        }
        if (!memcmp(&s->key, key, sizeof *key)) {
            hit = s;
            continue;
        }
        if (overlaps(s, key->addr, len)) {
            if (!from && reinterpretable(s, key, bpp)) {
                from = s; /* converted on the GPU below */
                continue;
            }
            /* the same bytes seen another way: memory becomes the truth, then
             * the new view loads from it */
            if (s->dirty && (r = write_back(vm, s)))
                return r;
            drop(vm, s);
            if (!freeslot)
                freeslot = s;
            continue;
        }
        if (!oldest || s->last_use < oldest->last_use)
            oldest = s;
    }
    if (!hit && from && from->vk_format == vk_format) {
        /* colour <-> colour: the same RGBA8 image, converted in place (no
         * other same-size pair shares an image format) */
        if ((r = reinterpret(vm, from, from, key)))
            return r;
        from->key = *key;
        from->bpp = bpp;
        pvk_object_name(vm->gpu, VK_OBJECT_TYPE_IMAGE, (uint64_t)from->image.image, "surface %s 0x%08X %ux%u x%u",
                        key->kind == PVK_SURFACE_DEPTH ? "depth" : "colour", key->addr, key->width, key->height,
                        key->scale);
        hit = from;
        from = NULL;
    }
    if (!hit) {
        if (!freeslot) { /* evict the least recently used */
            if (oldest->dirty && (r = write_back(vm, oldest)))
                return r;
            drop(vm, oldest);
            freeslot = oldest;
        }
        hit = freeslot;
        memset(hit, 0, sizeof *hit);
        hit->key = *key;
        hit->bpp = bpp;
        hit->len = len;
        hit->vk_format = vk_format;
        hit->stencil = stencil;
        /* exactly what the draw path's imageless framebuffers name */
        VkImageUsageFlags usage = key->kind == PVK_SURFACE_DEPTH ? PVK_DEPTH_TARGET_USAGE : PVK_COLOR_TARGET_USAGE;
        if ((r = pvk_image_ensure(vm->gpu, &hit->image, key->width * key->scale, key->height * key->scale, vk_format,
                                  usage, true))) {
            pvk_image_destroy(vm->gpu, &hit->image);
            memset(hit, 0, sizeof *hit);
            return r;
        }
        hit->used = true;
        pvk_object_name(vm->gpu, VK_OBJECT_TYPE_IMAGE, (uint64_t)hit->image.image, "surface %s 0x%08X %ux%u x%u",
                        key->kind == PVK_SURFACE_DEPTH ? "depth" : "colour", key->addr, key->width, key->height,
                        key->scale);
    }
    if (from) { /* colour <-> depth: into the new image, then the old one goes */
        if (reinterpret(vm, from, hit, key) && from->dirty && (r = write_back(vm, from)))
            return r;
        drop(vm, from);
    }
    if (!hit->valid && load_it && (r = load(vm, hit)))
        return r;
    c->last = hit;
found:
    hit->last_use = ++c->tick;
    if ((r = over_budget(vm, hit)))
        return r;
    /* the caller draws into it: textures decoded from these bytes (or
     * built from this surface before) are out of date from now on */
    pvk_texture_invalidate(vm, key->addr, len);
    shown_invalidate(c, key->addr, len);
    *out = hit;
    return PVK_SUCCESS;
}

pvk_result pvk_surface_get(pvk_vram *vm, const pvk_surface_key *key, VkFormat vk_format, const char *what,
                           pvk_surface **out)
{
    return get(vm, key, vk_format, what, out, true);
}

pvk_result pvk_surface_begin_copy(pvk_vram *vm, pvk_surface *s, uint32_t dst_addr, pvk_op *op)
{
    struct pvk_surfaces *c = vm->surfaces;
    pvk_surface_key key = s->key;
    key.addr = dst_addr;
    s->last_use = ++c->tick; /* not the one an eviction picks */
    pvk_surface *d;
    pvk_result r = get(vm, &key, s->vk_format, "texture copy destination", &d, false);
    if (r)
        return r;
    /* the request may have moved things: `s` must still be the source */
    if (!is_source(s) || s->key.addr == dst_addr)
        return PVK_ERROR_BAD_PARAMETERS;
    if ((r = pvk_op_begin(vm->gpu, op)))
        return r;
    uint32_t w = key.width * key.scale, h = key.height * key.scale;
    barrier(vm, op->cmd, s->image.image, aspect_of(s), rest_layout(s), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    barrier(vm, op->cmd, d->image.image, aspect_of(d), VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    VkImageCopy ic = {.srcSubresource = {aspect_of(s), 0, 0, 1}, .dstSubresource = {aspect_of(d), 0, 0, 1},
                      .extent = {w, h, 1}};
    vm->gpu->vk.vkCmdCopyImage(op->cmd, s->image.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, d->image.image,
                               VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &ic);
    barrier(vm, op->cmd, s->image.image, aspect_of(s), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, rest_layout(s));
    barrier(vm, op->cmd, d->image.image, aspect_of(d), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, rest_layout(d));
    d->valid = d->dirty = true;
    return PVK_SUCCESS;
}

VkImageView pvk_surface_view(const pvk_surface *s)
{
    return s->image.view;
}

void pvk_surface_drawn(pvk_surface *s)
{
    s->dirty = true;
}

pvk_result pvk_surface_flush(pvk_vram *vm, uint32_t paddr, uint32_t len)
{
    struct pvk_surfaces *c = vm->surfaces;
    pvk_result r = PVK_SUCCESS;
    for (int i = 0; c && i < MAX_SURFACES && !r; i++)
        if (c->s[i].dirty && overlaps(&c->s[i], paddr, len))
            r = write_back(vm, &c->s[i]);
    return r;
}

pvk_result pvk_surface_flush_all(pvk_vram *vm)
{
    return pvk_surface_flush(vm, 0, UINT32_MAX);
}

/* A writer of `run` bytes every `run + gap` bytes from `paddr`, `len` bytes
 * in all (gap 0: every byte): does it write a byte of `s`, and every byte? */
static bool lines_touch(const pvk_surface *s, uint32_t paddr, uint32_t len, uint32_t run, uint32_t gap, bool *all)
{
    *all = false;
    if (!overlaps(s, paddr, len))
        return false;
    if (!gap || run >= len) {
        *all = covers(paddr, len, s);
        return true;
    }
    uint64_t period = (uint64_t)run + gap;
    uint64_t lo = s->key.addr > paddr ? s->key.addr - paddr : 0;
    uint64_t hi = (uint64_t)s->key.addr + s->len - paddr;
    hi = hi < len ? hi : len;
    uint64_t in = lo % period;
    *all = covers(paddr, len, s) && in + (hi - lo) <= run;
    return in < run || lo - in + period < hi;
}

void pvk_surface_invalidate_lines(pvk_vram *vm, uint32_t paddr, uint32_t len, uint32_t run, uint32_t gap,
                                  bool keep_outside)
{
    struct pvk_surfaces *c = vm->surfaces;
    pvk_texture_invalidate(vm, paddr, len);
    shown_invalidate(c, paddr, len);
    for (int i = 0; c && i < MAX_SURFACES; i++) {
        pvk_surface *s = &c->s[i];
        bool all;
        if (!lines_touch(s, paddr, len, run, gap, &all))
            continue; /* a surface in a gap keeps its image */
        /* GPU-only bytes the writer leaves alone (outside its range or in
         * its gaps) survive through memory */
        if (keep_outside && s->dirty && !all)
            (void)write_back(vm, s); /* logged and counted; the write comes next either way */
        s->valid = false;
        s->dirty = false;
    }
}

void pvk_surface_invalidate(pvk_vram *vm, uint32_t paddr, uint32_t len, bool keep_outside)
{
    pvk_surface_invalidate_lines(vm, paddr, len, len, 0, keep_outside);
}

/* The word a uniform fill gives every pixel of `s`, as the image stores it
 * (RGBA8: R, G, B, A bytes, the memory's A, B, G, R reversed; D32: q * 2^-24;
 * the stencil aspect gets byte 3 of a D24S8 fill's value); false when the fill's pattern
 * does not map to one pixel value (another pixel size, a colour format
 * other than RGBA8, misaligned). */
static bool clear_word(const pvk_surface *s, uint32_t start, uint32_t value, uint32_t fill_bytes, uint32_t *out)
{
    if (fill_bytes != s->bpp || (s->key.addr - start) % fill_bytes)
        return false;
    if (is_depth(s)) {
        float d = (float)(value & (s->bpp == 2 ? 0xFFFFu : 0xFFFFFFu)) / 16777216.0f;
        memcpy(out, &d, 4);
        return true;
    }
    *out = __builtin_bswap32(value);
    return s->key.format == 0;
}

void pvk_surface_fill(pvk_vram *vm, uint32_t start, uint32_t len, uint32_t value, uint32_t fill_bytes)
{
    struct pvk_surfaces *c = vm->surfaces;
    pvk_texture_invalidate(vm, start, len);
    shown_invalidate(c, start, len);
    for (int i = 0; c && i < MAX_SURFACES; i++) {
        pvk_surface *s = &c->s[i];
        uint32_t word;
        if (!overlaps(s, start, len))
            continue;
        if (!covers(start, len, s) || !clear_word(s, start, value, fill_bytes, &word)) {
            /* reload after the fill; bytes it leaves alone go home first */
            if (s->dirty && !covers(start, len, s))
                (void)write_back(vm, s); /* logged and counted; the fill comes next either way */
            s->valid = s->dirty = false;
            continue;
        }
        /* the fill covers the surface with one value: the image gets it too
         * (at 1x a buffer fill and copy, the load's own path) and then equals
         * the memory the fill writes */
        pvk_op op;
        if (pvk_op_begin(vm->gpu, &op)) {
            s->valid = s->dirty = false;
            continue;
        }
        pvk_op_label(vm->gpu, &op, "surface clear by a memory fill: 0x%08X+0x%X", start, len);
        if (s->key.scale != 1) {
            /* scaled: a clear of the whole image (UNORM bytes k/255 and depths
             * q * 2^-24 convert exactly) instead of an upload and a blit */
            VkImageSubresourceRange all = {aspect_of(s), 0, 1, 0, 1};
            barrier(vm, op.cmd, s->image.image, aspect_of(s), VK_IMAGE_LAYOUT_UNDEFINED,
                    VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
            if (is_depth(s)) {
                VkClearDepthStencilValue v;
                memcpy(&v.depth, &word, 4);
                v.stencil = value >> 24;
                vm->gpu->vk.vkCmdClearDepthStencilImage(op.cmd, s->image.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                                        &v, 1, &all);
            } else {
                VkClearColorValue v;
                for (int k = 0; k < 4; k++)
                    v.float32[k] = (float)((word >> (8 * k)) & 0xFF) / 255.0f;
                vm->gpu->vk.vkCmdClearColorImage(op.cmd, s->image.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &v, 1,
                                                 &all);
            }
            barrier(vm, op.cmd, s->image.image, aspect_of(s), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, rest_layout(s));
        } else {
            uint32_t w = s->key.width, h = s->key.height;
            vm->gpu->vk.vkCmdFillBuffer(op.cmd, c->staging, 0, (VkDeviceSize)w * h * 4, word);
            if (s->stencil) /* D24S8: byte 3 of the fill value is every pixel's stencil */
                vm->gpu->vk.vkCmdFillBuffer(op.cmd, c->staging, (VkDeviceSize)w * h * 4, (VkDeviceSize)w * h,
                                            (value >> 24) * 0x01010101u);
            pvk_op_barrier(vm->gpu, &op);
            record_upload(vm, op.cmd, s, NULL);
        }
        if (pvk_op_submit(vm->gpu, &op)) {
            s->valid = s->dirty = false;
            continue;
        }
        s->valid = true;
        s->dirty = false;
        vm->gpu->stats.surface_clears++;
    }
}

/* ---- reading a surface without writing it back ----
 * The passes below take a surface's pixels from its image (display
 * transfers from a surface, reinterpretations) with the same image <->
 * staging steps as load() and write_back() (record_readout, record_upload). */

pvk_surface *pvk_surface_color_source(pvk_vram *vm, uint32_t addr)
{
    struct pvk_surfaces *c = vm->surfaces;
    for (int i = 0; c && i < MAX_SURFACES; i++) {
        pvk_surface *s = &c->s[i];
        if (is_source(s) && !is_depth(s) && s->key.addr == addr)
            return s;
    }
    return NULL;
}

const pvk_surface_key *pvk_surface_key_of(const pvk_surface *s)
{
    return &s->key;
}

pvk_result pvk_surface_begin_read(pvk_vram *vm, pvk_surface *s, pvk_op *op, pvk_buffer_range *out)
{
    pvk_image *scratch = NULL;
    pvk_result r;
    if ((s->key.scale != 1 && (r = scratch_for(vm, s, &scratch))) || (r = pvk_op_begin(vm->gpu, op)))
        return r;
    record_readout(vm, op->cmd, s, scratch);
    pvk_op_barrier(vm->gpu, op);
    *out = (pvk_buffer_range){vm->surfaces->staging, 0, (VkDeviceSize)s->key.width * s->key.height * 4};
    s->last_use = ++vm->surfaces->tick;
    return PVK_SUCCESS;
}

/* ---- textures from surfaces (vram/texture.c) ---- */

pvk_surface *pvk_surface_source_over(pvk_vram *vm, uint32_t addr, uint32_t len)
{
    struct pvk_surfaces *c = vm->surfaces;
    for (int i = 0; c && i < MAX_SURFACES; i++) {
        pvk_surface *s = &c->s[i];
        if (is_source(s) && s->key.addr == addr && s->len == len)
            return s;
    }
    return NULL;
}

uint32_t pvk_surface_bytes_per_pixel(const pvk_surface *s)
{
    return s->bpp;
}

/* write_back() with a scratch buffer of the op in place of guest memory:
 * the same readout (downsampled to 1x when scaled) and the same packing
 * shaders, so the bytes equal what a write-back would store. */
pvk_result pvk_surface_begin_guest_bytes(pvk_vram *vm, pvk_surface *s, pvk_op *op, pvk_buffer_range *bytes,
                                         pvk_buffer_range *spare)
{
    struct pvk_surfaces *c = vm->surfaces;
    uint32_t w = s->key.width, h = s->key.height;
    /* D24S8 without a stencil aspect keeps its stencil bytes in memory: the
     * store reads them from the buffer it writes, so it starts as memory */
    bool keep = is_depth(s) && s->bpp == 4 && !s->stencil;
    pvk_guest_span span;
    pvk_buffer_range guest = {0};
    uint32_t sub = 0;
    if (keep && (!pvk_guest_resolve(vm, s->key.addr, s->len, "texture from surface", &span) ||
                 !pvk_guest_bind(vm, &span, &guest, &sub, "texture from surface")))
        return PVK_ERROR_OUT_OF_RANGE;
    if (keep && span.region->mirror) {
        pvk_gpu_idle(vm->gpu);
        pvk_guest_upload(vm, &span);
    }
    pvk_image *scratch = NULL;
    pvk_result r;
    if ((s->key.scale != 1 && (r = scratch_for(vm, s, &scratch))) || (r = pvk_op_begin(vm->gpu, op)))
        return r;
    if ((r = pvk_create_buffer(vm->gpu, s->len, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                               VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &op->p.scratch, &op->p.scratch_mem))) {
        pvk_op_abort(vm->gpu, op);
        return r;
    }
    *bytes = (pvk_buffer_range){op->p.scratch, 0, s->len};
    if (keep) {
        VkBufferCopy bc = {guest.offset + sub, 0, s->len};
        vm->gpu->vk.vkCmdCopyBuffer(op->cmd, guest.buffer, op->p.scratch, 1, &bc);
    }
    record_readout(vm, op->cmd, s, scratch);
    pvk_op_barrier(vm->gpu, op);
    pvk_buffer_range staging = {c->staging, 0, (VkDeviceSize)w * h * (s->stencil ? 5 : 4)};
    if (is_depth(s))
        pvk_depth_io(vm, op, *bytes, 0, staging, w, h, s->bpp, true, s->stencil);
    else
        pvk_transfer_record_convert(vm, op, staging, 0, *bytes, 0, w, w, h, PVK_XFER_RGBA8_NATURAL, s->key.format, 2);
    pvk_op_barrier(vm->gpu, op);
    *spare = (pvk_buffer_range){c->staging, 0, (VkDeviceSize)MAX_DIM * MAX_DIM * 5};
    s->last_use = ++c->tick;
    return PVK_SUCCESS;
}

/* ---- reinterpretation ---- */

/* The shader's code for a surface format: colour transfer codes 0-4,
 * depth 8 + DEPTHBUFFER_FORMAT. */
static uint32_t convert_code(const pvk_surface_key *k)
{
    return k->kind == PVK_SURFACE_DEPTH ? 8 + k->format : k->format;
}

/* Can `s` become `key` (pixels of `bpp` bytes) on the GPU?  The same guest
 * bytes (address, size, pixel size, block mode) at the same scale, seen as
 * another format; a surface that holds nothing yet just reloads. */
static bool reinterpretable(const pvk_surface *s, const pvk_surface_key *key, uint32_t bpp)
{
    return s->valid && s->key.addr == key->addr && s->key.width == key->width && s->key.height == key->height &&
           s->key.scale == key->scale && s->key.block32 == key->block32 && s->bpp == bpp;
}

static pvk_result ensure_buffer(pvk_vram *vm, VkBuffer *buf, VkDeviceMemory *mem, VkDeviceSize *cap, VkDeviceSize size,
                                const char *name);

/* ... of a surface's whole n x image */
static uint32_t scaled_regions(const pvk_surface *s, VkBufferImageCopy r[2])
{
    return image_regions(s, s->key.width * s->key.scale, s->key.height * s->key.scale, r);
}

/* reinterpret() at resolution scale n > 1 when guest memory takes no part
 * (no D24S8 stencil kept in memory): the n x image is copied out whole, each
 * pixel converted through its guest bytes as at 1x, and copied into `to`,
 * nothing resolved.  False when the n x image does not fit one storage
 * buffer (reinterpret() then goes through 1x); else *r is the result. */
static bool reinterpret_scaled(pvk_vram *vm, pvk_surface *from, pvk_surface *to, const pvk_surface_key *key,
                               pvk_result *r)
{
    struct pvk_surfaces *c = vm->surfaces;
    uint32_t w = key->width * key->scale, h = key->height * key->scale;
    VkDeviceSize bytes = (VkDeviceSize)w * h * (from->stencil || to->stencil ? 5 : 4);
    if (bytes > vm->gpu->props.limits.maxStorageBufferRange)
        return false;
    pvk_op op;
    if ((*r = ensure_buffer(vm, &c->big, &c->big_mem, &c->big_cap, bytes, "scaled surface, linear")) ||
        (*r = pvk_op_begin(vm->gpu, &op)))
        return true;
    pvk_op_label(vm->gpu, &op, "surface reinterpretation at x%u: 0x%08X %ux%u %s %u -> %s %u", key->scale, key->addr,
                 key->width, key->height, is_depth(from) ? "depth" : "colour", from->key.format,
                 key->kind == PVK_SURFACE_DEPTH ? "depth" : "colour", key->format);
    VkBufferImageCopy reg[2];
    uint32_t nreg = scaled_regions(from, reg);
    barrier(vm, op.cmd, from->image.image, aspect_of(from), rest_layout(from), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    vm->gpu->vk.vkCmdCopyImageToBuffer(op.cmd, from->image.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, c->big, nreg,
                                       reg);
    barrier(vm, op.cmd, from->image.image, aspect_of(from), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, rest_layout(from));
    pvk_op_barrier(vm->gpu, &op);
    /* surface_convert.comp op 1 in place; binding 1 (guest memory at 1x) is
     * not used without the memory's stencil: the same buffer stands in */
    uint32_t flags = (from->stencil ? 2u : 0u) | (to->stencil ? 4u : 0u);
    struct { uint32_t op, width, height, src_width, src_fmt, dst_fmt, mode, guest_base, flags, pad[3]; } push = {
        1, w, h, w, convert_code(&from->key), convert_code(key), 0, 0, flags, {0, 0, 0}};
    pvk_buffer_range bufs[2] = {{c->big, 0, bytes}, {c->big, 0, bytes}};
    pvk_op_dispatch(vm->gpu, &op, PVK_PIPE_SURFACE_CONVERT, bufs, &push, (w + 7) / 8, (h + 7) / 8, 1);
    pvk_op_barrier(vm->gpu, &op);
    /* `to` may be `from` (an RGBA8 image seen as another colour format): its pixels are in the buffer now */
    nreg = scaled_regions(to, reg);
    barrier(vm, op.cmd, to->image.image, aspect_of(to), VK_IMAGE_LAYOUT_UNDEFINED,
            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    vm->gpu->vk.vkCmdCopyBufferToImage(op.cmd, c->big, to->image.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, nreg,
                                       reg);
    barrier(vm, op.cmd, to->image.image, aspect_of(to), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, rest_layout(to));
    if ((*r = pvk_op_submit(vm->gpu, &op)))
        return true;
    to->valid = true;
    to->dirty = from->dirty;
    vm->gpu->stats.surface_reinterpretations++;
    return true;
}

/* The image of `from` as the format of `to` (same size; `to` may be `from`
 * itself when both are RGBA8 images): each pixel packed to the guest bytes
 * a write-back would store and unpacked as a load would read them, all on
 * the GPU.  A D24S8 surface with a stencil aspect takes its stencil byte
 * (byte 3 of the guest word: R of an RGBA8 pixel) from and to that aspect,
 * copied beside the depth in the staging buffer.  Without one (a device
 * without D32_SFLOAT_S8_UINT) D24S8 keeps stencil in guest memory, as its
 * load and write-back then do: an old D24S8's byte 3 is read from memory,
 * and a new D24S8 made from a dirty colour surface gets byte 3 stored into
 * memory, the only guest bytes this writes.  `to` is then as valid and as
 * dirty as `from` was. */
static pvk_result reinterpret(pvk_vram *vm, pvk_surface *from, pvk_surface *to, const pvk_surface_key *key)
{
    struct pvk_surfaces *c = vm->surfaces;
    uint32_t w = key->width, h = key->height, old_code = convert_code(&from->key), new_code = convert_code(key);
    bool stencil_in = old_code == 11 && !from->stencil, stencil_out = new_code == 11 && !to->stencil && from->dirty;
    pvk_guest_span span;
    pvk_buffer_range guest;
    uint32_t sub;
    /* reading stencil bytes is a GPU read of guest memory (the trace recorder hears of it) */
    if (!pvk_guest_resolve(vm, key->addr, from->len, stencil_in ? "surface reinterpretation" : NULL, &span) ||
        !pvk_guest_bind(vm, &span, &guest, &sub, "surface reinterpretation"))
        return PVK_ERROR_OUT_OF_RANGE;
    if ((stencil_in || stencil_out) && span.region->mirror) { /* the device copy must hold the host's bytes */
        pvk_gpu_idle(vm->gpu);
        pvk_guest_upload(vm, &span);
    }
    pvk_result r;
    if (key->scale != 1 && !stencil_in && !stencil_out && reinterpret_scaled(vm, from, to, key, &r))
        return r;
    pvk_image *scratch_from = NULL, *scratch_to = NULL;
    if (key->scale != 1 && ((r = scratch_for(vm, from, &scratch_from)) || (r = scratch_for(vm, to, &scratch_to))))
        return r;
    pvk_op op;
    if ((r = pvk_op_begin(vm->gpu, &op)))
        return r;
    pvk_op_label(vm->gpu, &op, "surface reinterpretation: 0x%08X %ux%u %s %u -> %s %u", key->addr, w, h,
                 is_depth(from) ? "depth" : "colour", from->key.format,
                 key->kind == PVK_SURFACE_DEPTH ? "depth" : "colour", key->format);
    record_readout(vm, op.cmd, from, scratch_from);
    pvk_op_barrier(vm->gpu, &op);
    uint32_t flags = (stencil_out ? 1u : 0u) | (from->stencil ? 2u : 0u) | (to->stencil ? 4u : 0u);
    struct { uint32_t op, width, height, src_width, src_fmt, dst_fmt, mode, guest_base, flags, pad[3]; } push = {
        1, w, h, w, old_code, new_code, 0, sub, flags, {0, 0, 0}};
    pvk_buffer_range bufs[2] = {{c->staging, 0, (VkDeviceSize)w * h * (from->stencil || to->stencil ? 5 : 4)}, guest};
    pvk_op_dispatch(vm->gpu, &op, PVK_PIPE_SURFACE_CONVERT, bufs, &push, (w + 7) / 8, (h + 7) / 8, 1);
    pvk_op_barrier(vm->gpu, &op);
    record_upload(vm, op.cmd, to, scratch_to);
    if (stencil_out) {
        op.p.retire = writeback_retire;
        op.p.owner = vm;
        op.p.dst_addr = key->addr;
        op.p.dst_len = from->len;
    }
    if ((r = pvk_op_submit(vm->gpu, &op)))
        return r;
    to->valid = true;
    to->dirty = from->dirty;
    vm->gpu->stats.surface_reinterpretations++;
    if (stencil_out)
        vm->gpu->stats.surface_bytes += w * h; /* one stencil byte a pixel */
    return PVK_SUCCESS;
}

/* ---- shown images (the scaled LCD path) ---- */

/* A device buffer of at least `size` bytes (grown once the GPU is done with
 * the old one). */
static pvk_result ensure_buffer(pvk_vram *vm, VkBuffer *buf, VkDeviceMemory *mem, VkDeviceSize *cap, VkDeviceSize size,
                                const char *name)
{
    if (*cap >= size)
        return PVK_SUCCESS;
    if (*buf) {
        pvk_result r = pvk_retire(vm->gpu, true);
        if (r)
            return r;
        vm->gpu->vk.vkDestroyBuffer(vm->gpu->device, *buf, NULL);
        vm->gpu->vk.vkFreeMemory(vm->gpu->device, *mem, NULL);
        *buf = VK_NULL_HANDLE;
        *mem = VK_NULL_HANDLE;
        *cap = 0;
    }
    pvk_result r = pvk_create_buffer(vm->gpu, size,
                                     VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                         VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                     VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, buf, mem);
    if (r)
        return r;
    *cap = size;
    pvk_object_name(vm->gpu, VK_OBJECT_TYPE_BUFFER, (uint64_t)*buf, "%s", name);
    return PVK_SUCCESS;
}

int pvk_surface_shown_prepare(pvk_vram *vm, const pvk_surface_key *src, uint32_t addr, uint32_t width, uint32_t height,
                              uint32_t fmt)
{
    struct pvk_surfaces *c = vm->surfaces;
    uint64_t n = src->scale;
    VkDeviceSize src_bytes = (VkDeviceSize)src->width * src->height * n * n * 4;
    VkDeviceSize bytes = (VkDeviceSize)width * height * n * n * 4;
    if (n < 2 || src_bytes > vm->gpu->props.limits.maxStorageBufferRange)
        return -1;
    int k = 0;
    for (int i = 1; i < MAX_SHOWN; i++) /* a free slot, else the least recently used */
        if (c->shown[k].valid && (!c->shown[i].valid || c->shown[i].last_use < c->shown[k].last_use))
            k = i;
    struct shown *d = &c->shown[k];
    d->valid = false;
    if (ensure_buffer(vm, &c->big, &c->big_mem, &c->big_cap, src_bytes, "scaled surface, linear") ||
        ensure_buffer(vm, &d->buf, &d->mem, &d->cap, bytes, "shown image (scaled display transfer output)"))
        return -1;
    uint32_t bpp = pvk_color_format_bpp(fmt);
    *d = (struct shown){addr, width * height * bpp, width, height, fmt, src->scale, false, 0, d->buf, d->mem, d->cap};
    return k;
}

void pvk_surface_shown_record(pvk_vram *vm, pvk_surface *s, pvk_op *op, int slot, uint32_t mode)
{
    struct pvk_surfaces *c = vm->surfaces;
    struct shown *d = &c->shown[slot];
    uint32_t n = s->key.scale, sw = s->key.width * n, sh = s->key.height * n, w = d->width * n, h = d->height * n;
    /* The usual present (RGBA8 or RGB8 out of RGBA8, or the same format,
     * no flip or downscale) changes no colour the LCD shows (it ignores
     * alpha): the image's first rows are the shown image as they are. */
    bool same = mode == 0 && (d->fmt == s->key.format || (s->key.format == 0 && d->fmt == 1));
    barrier(vm, op->cmd, s->image.image, aspect_of(s), rest_layout(s), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    VkBufferImageCopy bic = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                             .imageExtent = {same ? w : sw, same ? h : sh, 1}};
    vm->gpu->vk.vkCmdCopyImageToBuffer(op->cmd, s->image.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                       same ? d->buf : c->big, 1, &bic);
    barrier(vm, op->cmd, s->image.image, aspect_of(s), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, rest_layout(s));
    d->valid = true;
    d->last_use = ++c->tick;
    if (same)
        return;
    pvk_op_barrier(vm->gpu, op);
    /* the transfer's own conversion, flip and downscale, at N x */
    struct { uint32_t op, width, height, src_width, src_fmt, dst_fmt, mode, guest_base, flags, pad[3]; } push = {
        0, w, h, sw, s->key.format, d->fmt, mode | 16u, 0, 0, {0, 0, 0}};
    pvk_buffer_range bufs[2] = {{c->big, 0, (VkDeviceSize)sw * sh * 4}, {d->buf, 0, (VkDeviceSize)w * h * 4}};
    pvk_op_dispatch(vm->gpu, op, PVK_PIPE_SURFACE_CONVERT, bufs, &push, (w + 7) / 8, (h + 7) / 8, 1);
}

bool pvk_surface_shown(pvk_vram *vm, uint32_t addr, uint32_t width, uint32_t rows, uint32_t fmt, pvk_buffer_range *out)
{
    struct pvk_surfaces *c = vm->surfaces;
    for (int i = 0; c && i < MAX_SHOWN; i++) {
        struct shown *d = &c->shown[i];
        if (d->valid && d->addr == addr && d->width == width && rows <= d->height && d->fmt == fmt &&
            d->scale == vm->scale) {
            *out = (pvk_buffer_range){d->buf, 0, (VkDeviceSize)d->width * d->height * d->scale * d->scale * 4};
            d->last_use = ++c->tick;
            return true;
        }
    }
    return false;
}

pvk_result pvk_surface_begin_scaled_pixels(pvk_vram *vm, pvk_surface *s, pvk_op *op, pvk_buffer_range *pixels)
{
    struct pvk_surfaces *c = vm->surfaces;
    uint32_t n = s->key.scale, w = s->key.width * n, h = s->key.height * n;
    VkDeviceSize bytes = (VkDeviceSize)w * h * 4;
    pvk_result r;
    if (is_depth(s) || bytes > vm->gpu->props.limits.maxStorageBufferRange)
        return PVK_ERROR_BAD_PARAMETERS;
    if ((r = ensure_buffer(vm, &c->big, &c->big_mem, &c->big_cap, bytes, "scaled surface, linear")) ||
        (r = pvk_op_begin(vm->gpu, op)))
        return r;
    barrier(vm, op->cmd, s->image.image, aspect_of(s), rest_layout(s), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    VkBufferImageCopy bic = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, .imageExtent = {w, h, 1}};
    vm->gpu->vk.vkCmdCopyImageToBuffer(op->cmd, s->image.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, c->big, 1, &bic);
    barrier(vm, op->cmd, s->image.image, aspect_of(s), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, rest_layout(s));
    pvk_op_barrier(vm->gpu, op);
    *pixels = (pvk_buffer_range){c->big, 0, bytes};
    if (s->key.format != 0) { /* RGBA8 holds every bit; the others through their guest bytes, in place */
        struct { uint32_t op, width, height, src_width, src_fmt, dst_fmt, mode, guest_base, flags, pad[3]; } push = {
            0, w, h, w, s->key.format, s->key.format, 16u, 0, 0, {0, 0, 0}};
        pvk_buffer_range bufs[2] = {*pixels, *pixels};
        pvk_op_dispatch(vm->gpu, op, PVK_PIPE_SURFACE_CONVERT, bufs, &push, (w + 7) / 8, (h + 7) / 8, 1);
        pvk_op_barrier(vm->gpu, op);
    }
    s->last_use = ++c->tick;
    return PVK_SUCCESS;
}
