/* Deferred destruction: one list of Vulkan objects that submitted work may
 * still use (replaced surface images, evicted textures, samplers and
 * pipelines, framebuffers), each destroyed once the timeline reaches the
 * value of the last submission that may use it.  Nothing here waits: the
 * list is reaped whenever work retires and emptied at the device's end. */
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"

struct pvk_grave {
    uint64_t value;
    VkObjectType type;
    uint64_t handle;
    VkImageView view;
    VkDeviceMemory mem;
};

static void destroy(pvk_gpu *gpu, const pvk_grave *g)
{
    switch (g->type) {
        case VK_OBJECT_TYPE_PIPELINE: gpu->vk.vkDestroyPipeline(gpu->device, (VkPipeline)g->handle, NULL); break;
        case VK_OBJECT_TYPE_SAMPLER: gpu->vk.vkDestroySampler(gpu->device, (VkSampler)g->handle, NULL); break;
        case VK_OBJECT_TYPE_FRAMEBUFFER:
            gpu->vk.vkDestroyFramebuffer(gpu->device, (VkFramebuffer)g->handle, NULL);
            break;
        case VK_OBJECT_TYPE_IMAGE:
            if (g->view)
                gpu->vk.vkDestroyImageView(gpu->device, g->view, NULL);
            gpu->vk.vkDestroyImage(gpu->device, (VkImage)g->handle, NULL);
            break;
        case VK_OBJECT_TYPE_BUFFER: gpu->vk.vkDestroyBuffer(gpu->device, (VkBuffer)g->handle, NULL); break;
        case VK_OBJECT_TYPE_IMAGE_VIEW: gpu->vk.vkDestroyImageView(gpu->device, (VkImageView)g->handle, NULL); break;
        default: break;
    }
    if (g->mem)
        gpu->vk.vkFreeMemory(gpu->device, g->mem, NULL);
}

bool pvk_gpu_defer_destroy(pvk_gpu *gpu, uint64_t value, VkObjectType type, uint64_t handle, VkImageView view,
                           VkDeviceMemory mem)
{
    if (!handle && !mem)
        return true;
    if (gpu->n_graves == gpu->cap_graves) {
        uint32_t cap = gpu->cap_graves ? gpu->cap_graves * 2 : 64;
        pvk_grave *n = realloc(gpu->graves, cap * sizeof *n);
        if (!n) {
            pvk_log(gpu, PVK_LOG_ERROR, "out of memory deferring the destruction of a Vulkan object");
            return false;
        }
        gpu->graves = n;
        gpu->cap_graves = cap;
    }
    gpu->graves[gpu->n_graves++] = (pvk_grave){value, type, handle, view, mem};
    return true;
}

void pvk_gpu_reap(pvk_gpu *gpu, uint64_t done)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < gpu->n_graves; i++) {
        if (gpu->graves[i].value <= done)
            destroy(gpu, &gpu->graves[i]);
        else
            gpu->graves[kept++] = gpu->graves[i];
    }
    gpu->n_graves = kept;
    if (done == UINT64_MAX) {
        free(gpu->graves);
        gpu->graves = NULL;
        gpu->cap_graves = 0;
    }
}

void pvk_image_defer_destroy(pvk_gpu *gpu, pvk_image *im, uint64_t value)
{
    if (im->image && !pvk_gpu_defer_destroy(gpu, value, VK_OBJECT_TYPE_IMAGE, (uint64_t)im->image, im->view, im->mem)) {
        pvk_gpu_idle(gpu); /* no room to wait in: wait here */
        pvk_image_destroy(gpu, im);
    }
    memset(im, 0, sizeof *im);
}
