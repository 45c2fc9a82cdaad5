/* The guest physical memory map and its Vulkan buffers.  Zero copy through
 * VK_EXT_external_memory_host where the device has it; otherwise a mapped
 * device buffer mirrors each region and GPU operations copy in and out. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "vram/vram.h"

static const struct { uint32_t base, size; const char *name; } region_layout[PVK_REGION_COUNT] = {
    [PVK_REGION_VRAM] = {PVK_VRAM_BASE, PVK_VRAM_SIZE, "VRAM"},
    [PVK_REGION_FCRAM] = {PVK_FCRAM_BASE, PVK_FCRAM_SIZE, "FCRAM"},
    [PVK_REGION_AXI_WRAM] = {PVK_AXI_WRAM_BASE, PVK_AXI_WRAM_SIZE, "AXI WRAM"},
};

static const VkBufferUsageFlags guest_usage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;

static pvk_result import_region(pvk_vram *vm, pvk_guest_region *g)
{
    VkMemoryHostPointerPropertiesEXT hpp = {.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
    pvk_result r =
        pvk_vk_check(vm->gpu,
                     vm->gpu->vk.vkGetMemoryHostPointerPropertiesEXT(
                         vm->gpu->device, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, g->host, &hpp),
                     "vkGetMemoryHostPointerPropertiesEXT");
    if (r)
        return r;
    VkExternalMemoryBufferCreateInfo embci = {
        .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
        .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
    };
    VkBufferCreateInfo bci = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .pNext = &embci,
        .size = g->size,
        .usage = guest_usage,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    if ((r = pvk_vk_check(vm->gpu, vm->gpu->vk.vkCreateBuffer(vm->gpu->device, &bci, NULL, &g->buffer),
                          "vkCreateBuffer")))
        return r;
    VkMemoryRequirements req;
    vm->gpu->vk.vkGetBufferMemoryRequirements(vm->gpu->device, g->buffer, &req);
    int type = pvk_find_memory_type(vm->gpu, req.memoryTypeBits & hpp.memoryTypeBits, 0);
    if (type < 0 || req.size > g->size) {
        pvk_log(vm->gpu, PVK_LOG_WARN, "host memory import: no usable memory type; mirroring instead");
        return PVK_ERROR_MISSING_FEATURE;
    }
    VkImportMemoryHostPointerInfoEXT imp = {
        .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
        .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
        .pHostPointer = g->host,
    };
    VkMemoryAllocateInfo mai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .pNext = &imp,
        .allocationSize = g->size,
        .memoryTypeIndex = (uint32_t)type,
    };
    if ((r = pvk_vk_check(vm->gpu, vm->gpu->vk.vkAllocateMemory(vm->gpu->device, &mai, NULL, &g->memory),
                          "vkAllocateMemory (import)")))
        return r;
    if ((r = pvk_vk_check(vm->gpu, vm->gpu->vk.vkBindBufferMemory(vm->gpu->device, g->buffer, g->memory, 0),
                          "vkBindBufferMemory")))
        return r;
    g->imported = true;
    return PVK_SUCCESS;
}

static pvk_result mirror_region(pvk_vram *vm, pvk_guest_region *g)
{
    pvk_result r = pvk_create_buffer(vm->gpu, g->size, guest_usage,
                                     VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                     &g->buffer, &g->memory);
    if (r)
        return r;
    void *p;
    if ((r = pvk_vk_check(vm->gpu, vm->gpu->vk.vkMapMemory(vm->gpu->device, g->memory, 0, VK_WHOLE_SIZE, 0, &p),
                          "vkMapMemory")))
        return r;
    g->mirror = p;
    memcpy(g->mirror, g->host, g->size);
    return PVK_SUCCESS;
}

static void release_buffer(pvk_vram *vm, pvk_guest_region *g)
{
    if (g->buffer)
        vm->gpu->vk.vkDestroyBuffer(vm->gpu->device, g->buffer, NULL);
    if (g->memory)
        vm->gpu->vk.vkFreeMemory(vm->gpu->device, g->memory, NULL);
    g->buffer = VK_NULL_HANDLE;
    g->memory = VK_NULL_HANDLE;
    g->mirror = NULL;
    g->imported = false;
}

/* Anonymous zero pages: nothing is resident until touched, so a context
 * costs what the guest uses, not 128-256 MiB up front.  `align` is the
 * device's host-import alignment (may exceed the page size). */
static pvk_result map_zero(pvk_guest_region *g, size_t align)
{
    size_t len = (size_t)g->size + (align > 4096 ? align : 0);
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return PVK_ERROR_OUT_OF_MEMORY;
    g->map = m;
    g->map_len = len;
    g->host = (uint8_t *)(((uintptr_t)m + align - 1) / align * align);
    g->host_owned = true;
    return PVK_SUCCESS;
}

pvk_result pvk_guest_init(pvk_vram *vm)
{
    pvk_guest *gm = &vm->guest;
    size_t page = vm->gpu->import_alignment > 4096 ? vm->gpu->import_alignment : 4096;
    bool try_import = vm->gpu->features.external_memory_host && !(vm->gpu->debug & PVK_DEBUG_NO_HOST_IMPORT);
    gm->zero_copy = try_import;
    for (int i = 0; i < PVK_REGION_COUNT; i++) {
        pvk_guest_region *g = &gm->regions[i];
        g->base = region_layout[i].base;
        g->size = region_layout[i].size;
        if (i == PVK_REGION_FCRAM && vm->gpu->cfg.new_3ds)
            g->size = PVK_FCRAM_SIZE_N3DS;
        if (vm->gpu->cfg.guest_memory[i]) {
            g->host = vm->gpu->cfg.guest_memory[i];
        } else {
            pvk_result r = map_zero(g, page);
            if (r)
                return r;
        }
        pvk_result r = PVK_ERROR_MISSING_FEATURE;
        if (try_import && (uintptr_t)g->host % page == 0 && g->size % page == 0)
            r = import_region(vm, g);
        if (r) {
            release_buffer(vm, g);
            gm->zero_copy = false;
            if ((r = mirror_region(vm, g)))
                return r;
        }
        pvk_object_name(vm->gpu, VK_OBJECT_TYPE_BUFFER, (uint64_t)g->buffer, "guest %s 0x%08X (%s)",
                        region_layout[i].name, g->base, g->imported ? "imported" : "mirror");
        pvk_log(vm->gpu, PVK_LOG_INFO, "%s at 0x%08X, %u KiB, %s", region_layout[i].name, g->base, g->size / 1024,
                g->imported ? "imported (zero copy)" : "mirrored");
    }
    return PVK_SUCCESS;
}

void pvk_guest_destroy(pvk_vram *vm)
{
    for (int i = 0; i < PVK_REGION_COUNT; i++) {
        pvk_guest_region *g = &vm->guest.regions[i];
        if (vm->gpu->device)
            release_buffer(vm, g);
        if (g->host_owned)
            munmap(g->map, g->map_len);
        g->host = NULL;
    }
}

static bool resolve(pvk_vram *vm, uint32_t paddr, uint32_t len, const char *what, pvk_guest_span *out)
{
    for (int i = 0; i < PVK_REGION_COUNT; i++) {
        pvk_guest_region *g = &vm->guest.regions[i];
        /* Written so that no sum can overflow. */
        if (len && paddr >= g->base && paddr - g->base < g->size && len <= g->size - (paddr - g->base)) {
            if (out)
                *out = (pvk_guest_span){g, paddr - g->base, len};
            return true;
        }
    }
    if (what) {
        vm->gpu->stats.out_of_range++;
        pvk_bad_input(vm->gpu, "%s: guest range 0x%08X+0x%X is outside guest memory", what, paddr, len);
    }
    return false;
}

bool pvk_guest_bind(pvk_vram *vm, const pvk_guest_span *s, pvk_buffer_range *range, uint32_t *sub, const char *what)
{
    VkDeviceSize align = vm->gpu->props.limits.minStorageBufferOffsetAlignment;
    if (align < 16)
        align = 16;
    VkDeviceSize off = s->offset & ~(align - 1);
    /* Round the end up to 16 bytes for the shaders' vector views; regions are
     * multiples of 16 bytes, so this stays inside. */
    VkDeviceSize end = ((VkDeviceSize)s->offset + s->len + 15) & ~(VkDeviceSize)15;
    if (end > s->region->size)
        end = s->region->size;
    *range = (pvk_buffer_range){s->region->buffer, off, end - off};
    *sub = (uint32_t)(s->offset - off);
    if (range->range > vm->gpu->props.limits.maxStorageBufferRange) {
        pvk_bad_input(vm->gpu, "%s: %u bytes exceed the device's storage buffer range", what, s->len);
        return false;
    }
    return true;
}

/* GPU operations resolve through here; the observer (a trace recorder)
 * hears of the ranges they use. */
bool pvk_guest_resolve(pvk_vram *vm, uint32_t paddr, uint32_t len, const char *what, pvk_guest_span *out)
{
    pvk_guest_span s;
    if (!resolve(vm, paddr, len, what, &s))
        return false;
    if (vm->guest.observe && what)
        vm->guest.observe(vm, &s);
    if (out)
        *out = s;
    return true;
}

void pvk_guest_upload(pvk_vram *vm, const pvk_guest_span *s)
{
    (void)vm;
    if (s->region->mirror)
        memcpy(s->region->mirror + s->offset, s->region->host + s->offset, s->len);
}

void pvk_guest_download(pvk_vram *vm, const pvk_guest_span *s)
{
    (void)vm;
    if (s->region->mirror)
        memcpy(s->region->host + s->offset, s->region->mirror + s->offset, s->len);
}

/* For the public entry points (runtime/api.c): the range check they need. */
bool pvk_guest_check(pvk_vram *vm, uint32_t paddr, uint32_t len, const char *what)
{
    return resolve(vm, paddr, len, what, NULL);
}

void *pvk_guest_host(pvk_vram *vm, uint32_t paddr, uint32_t len, const char *what)
{
    pvk_guest_span s;
    if (!resolve(vm, paddr, len, what, &s))
        return NULL;
    return s.region->host + s.offset;
}
