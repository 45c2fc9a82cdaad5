/* Built-in compute pipelines and the one submission timeline: every GPU
 * operation is a command buffer signalling the next value of one timeline
 * semaphore; operations retire in order. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpu/gpu.h"

/* Storage buffers and push-constant bytes of each built-in pipeline. */
static const struct {
    uint32_t buffers, push_size;
} pipe_layouts[PVK_PIPE_DISPLAY_BLOCK] = {
    [PVK_PIPE_FILL] = {1, 16},
    [PVK_PIPE_DISPLAY_TRANSFER] = {2, 64},
    [PVK_PIPE_DISPLAY_QUAD] = {2, 64},
    [PVK_PIPE_TEXTURE_COPY] = {2, 32},
    [PVK_PIPE_SCANOUT] = {4, 64}, /* framebuffer A, B, output, LUT */
    [PVK_PIPE_DEPTH_IO] = {2, 32}, /* guest depth buffer, linear float depth */
    [PVK_PIPE_SURFACE_CONVERT] = {2, 48}, /* linear surface pixels, guest memory */
    [PVK_PIPE_TEXTURE_DECODE_ETC] = {2, 32},
    [PVK_PIPE_LCD_SCALE] = {3, 32}, /* source, N x screen, LUT */
};

static const char *const pipe_names[PVK_PIPE_DISPLAY_BLOCK] = {
    [PVK_PIPE_FILL] = "memory fill (24-bit)",
    [PVK_PIPE_DISPLAY_TRANSFER] = "display transfer (per pixel)",
    [PVK_PIPE_DISPLAY_QUAD] = "display transfer (RGBA8 4x2 blocks, tiled to linear)",
    [PVK_PIPE_TEXTURE_COPY] = "texture copy",
    [PVK_PIPE_SCANOUT] = "LCD scan-out (per pixel)",
    [PVK_PIPE_DEPTH_IO] = "depth buffer load/store",
    [PVK_PIPE_SURFACE_CONVERT] = "surface transfer/reinterpretation",
    [PVK_PIPE_TEXTURE_DECODE_ETC] = "texture decode (ETC1, ETC1A4)",
    [PVK_PIPE_LCD_SCALE] = "LCD frame at resolution scale N",
};

/* A pipeline's layout and specialisation constants.  The variants are made
 * on first use: a context needs a few of them, and each costs a JIT compile
 * on CPU drivers. */
typedef struct pipe_info {
    uint32_t buffers, push_size, n_spec, spec[4];
    bool lazy;
} pipe_info;

static pipe_info info_of(int which)
{
    static const uint32_t bpp[3] = {4, 3, 2};
    if (which >= PVK_PIPE_TEXTURE_DECODE) /* guest texture, linear image memory or staging */
        return (pipe_info){2, 24, 1, {(uint32_t)(which - PVK_PIPE_TEXTURE_DECODE), 0, 0, 0}, true};
    if (which == PVK_PIPE_DISPLAY_QUAD_TO_TILED)
        return (pipe_info){2, 64, 1, {1, 0, 0, 0}, true};
    if (which >= PVK_PIPE_SCANOUT_BLOCK) {
        uint32_t i = (uint32_t)(which - PVK_PIPE_SCANOUT_BLOCK);
        return (pipe_info){4, 64, 3, {bpp[i / 4], i / 2 % 2, i % 2, 0}, true};
    }
    if (which >= PVK_PIPE_DISPLAY_BLOCK) {
        uint32_t i = (uint32_t)(which - PVK_PIPE_DISPLAY_BLOCK);
        /* in class, scale, to_tiled, out class: ((in * 3 + scale) * 2 + to_tiled) * 3 + out */
        return (pipe_info){2, 64, 4, {bpp[i / 18], i / 6 % 3, i / 3 % 2, bpp[i % 3]}, true};
    }
    return (pipe_info){pipe_layouts[which].buffers, pipe_layouts[which].push_size, 0, {0}, false};
}

static void name_pipeline(pvk_gpu *gpu, int which)
{
    uint64_t h = (uint64_t)gpu->pipes[which].pipeline;
    pipe_info in = info_of(which);
    if (which >= PVK_PIPE_TEXTURE_DECODE)
        pvk_object_name(gpu, VK_OBJECT_TYPE_PIPELINE, h, "texture decode (format %u)", in.spec[0]);
    else if (which == PVK_PIPE_DISPLAY_QUAD_TO_TILED)
        pvk_object_name(gpu, VK_OBJECT_TYPE_PIPELINE, h, "display transfer (RGBA8 4x2 blocks, linear to tiled)");
    else if (which >= PVK_PIPE_SCANOUT_BLOCK)
        pvk_object_name(gpu, VK_OBJECT_TYPE_PIPELINE, h, "LCD scan-out (4x4 blocks, %u bytes per pixel%s%s)",
                        in.spec[0], in.spec[1] ? ", LUT" : "", in.spec[2] ? ", doubled" : "");
    else if (which >= PVK_PIPE_DISPLAY_BLOCK)
        pvk_object_name(gpu, VK_OBJECT_TYPE_PIPELINE, h,
                        "display transfer (4x2 blocks, %u to %u bytes per pixel, scale %u, %s)", in.spec[0], in.spec[3],
                        in.spec[1], in.spec[2] ? "linear to tiled" : "tiled to linear");
    else
        pvk_object_name(gpu, VK_OBJECT_TYPE_PIPELINE, h, "%s", pipe_names[which]);
}

static void destroy_pipeline(pvk_gpu *gpu, pvk_compute_pipeline *p)
{
    if (p->pipeline)
        gpu->vk.vkDestroyPipeline(gpu->device, p->pipeline, NULL);
    if (p->layout)
        gpu->vk.vkDestroyPipelineLayout(gpu->device, p->layout, NULL);
    if (p->set_layout)
        gpu->vk.vkDestroyDescriptorSetLayout(gpu->device, p->set_layout, NULL);
    memset(p, 0, sizeof *p);
}

static pvk_result create_pipeline(pvk_gpu *gpu, int which)
{
    pvk_compute_pipeline *p = &gpu->pipes[which];
    pipe_info in = info_of(which);
    p->buffers = in.buffers;
    p->push_size = in.push_size;
    VkDescriptorSetLayoutBinding b[4];
    for (uint32_t i = 0; i < p->buffers; i++)
        b[i] = (VkDescriptorSetLayoutBinding){
            .binding = i,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .descriptorCount = 1,
            .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
        };
    VkDescriptorSetLayoutCreateInfo dsl = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR,
        .bindingCount = p->buffers,
        .pBindings = b,
    };
    pvk_result r;
    if ((r = pvk_vk_check(gpu, gpu->vk.vkCreateDescriptorSetLayout(gpu->device, &dsl, NULL, &p->set_layout),
                          "vkCreateDescriptorSetLayout")))
        return r;
    VkPushConstantRange pcr = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .size = p->push_size};
    VkPipelineLayoutCreateInfo plci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1,
        .pSetLayouts = &p->set_layout,
        .pushConstantRangeCount = 1,
        .pPushConstantRanges = &pcr,
    };
    if ((r = pvk_vk_check(gpu, gpu->vk.vkCreatePipelineLayout(gpu->device, &plci, NULL, &p->layout),
                          "vkCreatePipelineLayout")))
        return r;
    pvk_spirv spv = pvk_builtin_spirv(which);
    VkSpecializationMapEntry map[4] = {{0, 0, 4}, {1, 4, 4}, {2, 8, 4}, {3, 12, 4}};
    VkSpecializationInfo spec = {in.n_spec, map, in.n_spec * 4, in.spec};
    return pvk_compute_pipeline_create(gpu, spv.code, spv.size, p->layout, in.n_spec ? &spec : NULL, &p->pipeline);
}

pvk_result pvk_compute_pipeline_create(pvk_gpu *gpu, const uint32_t *code, size_t size, VkPipelineLayout layout,
                                       const VkSpecializationInfo *spec, VkPipeline *out)
{
    VkShaderModuleCreateInfo smci = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = size, .pCode = code};
    VkShaderModule mod;
    pvk_result r =
        pvk_vk_check(gpu, gpu->vk.vkCreateShaderModule(gpu->device, &smci, NULL, &mod), "vkCreateShaderModule");
    if (r)
        return r;
    VkComputePipelineCreateInfo cpci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage =
            {
                .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = mod,
                .pName = "main",
                .pSpecializationInfo = spec,
            },
        .layout = layout,
    };
    r = pvk_vk_check(gpu, gpu->vk.vkCreateComputePipelines(gpu->device, VK_NULL_HANDLE, 1, &cpci, NULL, out),
                     "vkCreateComputePipelines");
    gpu->vk.vkDestroyShaderModule(gpu->device, mod, NULL);
    return r;
}

pvk_result pvk_compute_init(pvk_gpu *gpu)
{
    pvk_result r;
    VkCommandPoolCreateInfo cpci = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
        .queueFamilyIndex = gpu->queue_family,
    };
    if ((r = pvk_vk_check(gpu, gpu->vk.vkCreateCommandPool(gpu->device, &cpci, NULL, &gpu->cmd_pool),
                          "vkCreateCommandPool")))
        return r;
    VkSemaphoreTypeCreateInfo stci = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
        .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
        .initialValue = 0,
    };
    VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &stci};
    if ((r = pvk_vk_check(gpu, gpu->vk.vkCreateSemaphore(gpu->device, &sci, NULL, &gpu->timeline),
                          "vkCreateSemaphore")))
        return r;
    for (int i = 0; i < PVK_PIPE_COUNT; i++) {
        if (info_of(i).lazy)
            continue;
        if ((r = create_pipeline(gpu, i)))
            return r;
        name_pipeline(gpu, i);
    }
    return PVK_SUCCESS;
}

void pvk_compute_destroy(pvk_gpu *gpu)
{
    if (!gpu->device)
        return;
    pvk_gpu_idle(gpu);
    for (int i = 0; i < PVK_PIPE_COUNT; i++)
        destroy_pipeline(gpu, &gpu->pipes[i]);
    if (gpu->timeline)
        gpu->vk.vkDestroySemaphore(gpu->device, gpu->timeline, NULL);
    if (gpu->cmd_pool)
        gpu->vk.vkDestroyCommandPool(gpu->device, gpu->cmd_pool, NULL);
}

/* Everything earlier on the queue (shader and transfer writes, host writes)
 * happens before everything after, for the memory both touch. */
static void full_barrier(pvk_gpu *gpu, VkCommandBuffer cmd, VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access)
{
    VkMemoryBarrier2 mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
        .srcStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
        .srcAccessMask = VK_ACCESS_2_MEMORY_WRITE_BIT,
        .dstStageMask = dst_stage,
        .dstAccessMask = dst_access,
    };
    VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .memoryBarrierCount = 1, .pMemoryBarriers = &mb};
    gpu->vk.vkCmdPipelineBarrier2(cmd, &di);
}

void pvk_image_barrier(pvk_gpu *gpu, VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect, VkImageLayout from,
                       VkImageLayout to, VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                       VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access)
{
    VkImageMemoryBarrier2 b = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
        .srcStageMask = src_stage,
        .srcAccessMask = src_access,
        .dstStageMask = dst_stage,
        .dstAccessMask = dst_access,
        .oldLayout = from,
        .newLayout = to,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .image = image,
        .subresourceRange = {aspect, 0, 1, 0, 1},
    };
    VkDependencyInfo di = {
        .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .imageMemoryBarrierCount = 1, .pImageMemoryBarriers = &b};
    gpu->vk.vkCmdPipelineBarrier2(cmd, &di);
}

void pvk_op_barrier(pvk_gpu *gpu, pvk_op *op)
{
    full_barrier(gpu, op->cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                 VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT);
}

pvk_result pvk_batch_close(pvk_gpu *gpu)
{
    pvk_result (*close)(pvk_gpu *) = gpu->batch_close;
    if (!close)
        return PVK_SUCCESS;
    gpu->batch_close = NULL; /* before the call: closing submits, which may retire */
    return close(gpu);
}

pvk_result pvk_op_begin(pvk_gpu *gpu, pvk_op *op)
{
    memset(op, 0, sizeof *op);
    (void)pvk_batch_close(gpu); /* what comes next runs after the draws so far (a failure is logged) */
    if (gpu->sticky)
        return gpu->sticky;
    pvk_result r;
    /* Keep the ring from overflowing: wait for the oldest operation. */
    if (gpu->pending_count == PVK_MAX_PENDING && (r = pvk_retire(gpu, true)))
        return r;
    if (gpu->free_cmd_count) {
        op->cmd = gpu->free_cmds[--gpu->free_cmd_count];
    } else {
        VkCommandBufferAllocateInfo cbai = {
            .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
            .commandPool = gpu->cmd_pool,
            .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
            .commandBufferCount = 1,
        };
        if ((r = pvk_vk_check(gpu, gpu->vk.vkAllocateCommandBuffers(gpu->device, &cbai, &op->cmd),
                              "vkAllocateCommandBuffers")))
            return r;
    }
    VkCommandBufferBeginInfo bi = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };
    if ((r = pvk_vk_check(gpu, gpu->vk.vkBeginCommandBuffer(op->cmd, &bi), "vkBeginCommandBuffer"))) {
        gpu->free_cmds[gpu->free_cmd_count++] = op->cmd;
        op->cmd = VK_NULL_HANDLE;
        return r;
    }
    pvk_op_barrier(gpu, op);
    return PVK_SUCCESS;
}

void pvk_op_abort(pvk_gpu *gpu, pvk_op *op)
{
    if (!op->cmd)
        return;
    gpu->vk.vkEndCommandBuffer(op->cmd);
    gpu->vk.vkResetCommandBuffer(op->cmd, 0);
    gpu->free_cmds[gpu->free_cmd_count++] = op->cmd;
    if (op->p.scratch)
        gpu->vk.vkDestroyBuffer(gpu->device, op->p.scratch, NULL);
    if (op->p.scratch_mem)
        gpu->vk.vkFreeMemory(gpu->device, op->p.scratch_mem, NULL);
    op->cmd = VK_NULL_HANDLE;
}

static void label_begin_v(pvk_gpu *gpu, VkCommandBuffer cmd, const char *fmt, va_list ap)
{
    char name[160];
    vsnprintf(name, sizeof name, fmt, ap);
    VkDebugUtilsLabelEXT label = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT, .pLabelName = name};
    gpu->begin_label(cmd, &label);
}

bool pvk_cmd_label(pvk_gpu *gpu, VkCommandBuffer cmd, const char *fmt, ...)
{
    if (!gpu->features.debug_utils || !gpu->begin_label || !gpu->end_label)
        return false;
    va_list ap;
    va_start(ap, fmt);
    label_begin_v(gpu, cmd, fmt, ap);
    va_end(ap);
    return true;
}

void pvk_op_label(pvk_gpu *gpu, pvk_op *op, const char *fmt, ...)
{
    if (!gpu->features.debug_utils || !gpu->begin_label || op->labelled)
        return;
    va_list ap;
    va_start(ap, fmt);
    label_begin_v(gpu, op->cmd, fmt, ap);
    va_end(ap);
    op->labelled = true;
}

pvk_result pvk_op_submit(pvk_gpu *gpu, pvk_op *op)
{
    if (op->labelled)
        pvk_label_end(gpu, op->cmd);
    /* Results become visible to the host once the timeline value is reached. */
    full_barrier(gpu, op->cmd, VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
    pvk_result r = pvk_vk_check(gpu, gpu->vk.vkEndCommandBuffer(op->cmd), "vkEndCommandBuffer");
    if (r) {
        pvk_op_abort(gpu, op);
        return r;
    }
    uint64_t value = gpu->timeline_next + 1;
    VkCommandBufferSubmitInfo cbsi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = op->cmd};
    VkSemaphoreSubmitInfo ssi = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
        .semaphore = gpu->timeline,
        .value = value,
        .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
    };
    VkSubmitInfo2 si = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
        .commandBufferInfoCount = 1,
        .pCommandBufferInfos = &cbsi,
        .signalSemaphoreInfoCount = 1,
        .pSignalSemaphoreInfos = &ssi,
    };
    pvk_queue_lock(gpu);
    VkResult vr = gpu->vk.vkQueueSubmit2(gpu->queue, 1, &si, VK_NULL_HANDLE);
    pvk_queue_unlock(gpu);
    r = pvk_vk_check(gpu, vr, "vkQueueSubmit2");
    if (r) {
        pvk_op_abort(gpu, op);
        return r;
    }
    gpu->timeline_next = value;
    gpu->stats.submissions++;
    op->p.value = value;
    op->p.cmd = op->cmd;
    uint32_t slot = (gpu->pending_head + gpu->pending_count) % PVK_MAX_PENDING;
    gpu->pending[slot] = op->p;
    gpu->pending_count++;
    op->cmd = VK_NULL_HANDLE;
    /* The operation is submitted whatever waiting for it says: its retire
     * callback runs exactly once (a lost device is sticky for later calls). */
    if (gpu->debug & PVK_DEBUG_SYNC)
        pvk_gpu_idle(gpu);
    return PVK_SUCCESS;
}

void pvk_op_dispatch(pvk_gpu *gpu, pvk_op *op, int pipe, const pvk_buffer_range *bufs, const void *push, uint32_t gx,
                     uint32_t gy, uint32_t gz)
{
    pvk_compute_pipeline *p = &gpu->pipes[pipe];
    if (!p->pipeline) {
        if (create_pipeline(gpu, pipe)) {
            destroy_pipeline(gpu, p); /* what was made of it; the next use tries again */
            pvk_log(gpu, PVK_LOG_ERROR, "compute pipeline %d cannot be created; its dispatch is dropped", pipe);
            return;
        }
        name_pipeline(gpu, pipe);
    }
    VkDescriptorBufferInfo info[4];
    VkWriteDescriptorSet w[4];
    for (uint32_t i = 0; i < p->buffers; i++) {
        info[i] = (VkDescriptorBufferInfo){bufs[i].buffer, bufs[i].offset, bufs[i].range};
        w[i] = (VkWriteDescriptorSet){
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstBinding = i,
            .descriptorCount = 1,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .pBufferInfo = &info[i],
        };
    }
    gpu->vk.vkCmdBindPipeline(op->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipeline);
    gpu->vk.vkCmdPushDescriptorSetKHR(op->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, 0, p->buffers, w);
    gpu->vk.vkCmdPushConstants(op->cmd, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, p->push_size, push);
    gpu->vk.vkCmdDispatch(op->cmd, gx, gy, gz);
}

/* Wait up to `timeout_ns` for all submitted work (when `wait`), then retire
 * what finished.  PVK_ERROR_TIMEOUT leaves the rest pending for a later call. */
static pvk_result retire(pvk_gpu *gpu, bool wait, uint64_t timeout_ns, bool close)
{
    if (!gpu->timeline)
        return gpu->sticky;
    /* waiting or polling: the open batch starts now */
    pvk_result rb = close ? pvk_batch_close(gpu) : PVK_SUCCESS;
    pvk_result r = PVK_SUCCESS;
    if (wait && gpu->pending_count && !gpu->sticky) {
        VkSemaphoreWaitInfo wi = {
            .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
            .semaphoreCount = 1,
            .pSemaphores = &gpu->timeline,
            .pValues = &gpu->timeline_next,
        };
        /* a semaphore wait, not a queue operation: no queue lock held */
        gpu->stats.gpu_waits++;
        VkResult vr = gpu->vk.vkWaitSemaphores(gpu->device, &wi, timeout_ns);
        if (vr == VK_TIMEOUT) {
            pvk_log(gpu, PVK_LOG_WARN,
                    "GPU work still running after %llu ms; the wait gave up (the context stays usable)",
                    (unsigned long long)(timeout_ns / 1000000));
            r = PVK_ERROR_TIMEOUT;
        } else {
            r = pvk_vk_check(gpu, vr, "vkWaitSemaphores");
        }
    }
    uint64_t done = 0;
    pvk_result rc = PVK_SUCCESS;
    if (gpu->sticky)
        done = UINT64_MAX; /* nothing more will complete: release everything */
    else if (gpu->pending_count)
        rc = pvk_vk_check(gpu, gpu->vk.vkGetSemaphoreCounterValue(gpu->device, gpu->timeline, &done),
                          "vkGetSemaphoreCounterValue");
    if (!r)
        r = rc ? rc : rb; /* a timeout stays the answer: what finished meanwhile still retires */
    while (gpu->pending_count && gpu->pending[gpu->pending_head].value <= done) {
        pvk_pending p = gpu->pending[gpu->pending_head];
        gpu->pending_head = (gpu->pending_head + 1) % PVK_MAX_PENDING;
        gpu->pending_count--;
        if (p.retire && !gpu->sticky)
            p.retire(gpu, &p);
        if (p.scratch)
            gpu->vk.vkDestroyBuffer(gpu->device, p.scratch, NULL);
        if (p.scratch_mem)
            gpu->vk.vkFreeMemory(gpu->device, p.scratch_mem, NULL);
        gpu->vk.vkResetCommandBuffer(p.cmd, 0);
        gpu->free_cmds[gpu->free_cmd_count++] = p.cmd;
    }
    if (gpu->n_graves) /* nothing in flight: everything submitted is done */
        pvk_gpu_reap(gpu, gpu->pending_count || gpu->sticky ? done : gpu->timeline_next);
    return r ? r : gpu->sticky;
}

/* Wait up to `ns` for the timeline to reach `value` (submitted). */
static VkResult wait_timeline(pvk_gpu *gpu, uint64_t value, uint64_t ns)
{
    VkSemaphoreWaitInfo wi = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
        .semaphoreCount = 1,
        .pSemaphores = &gpu->timeline,
        .pValues = &value,
    };
    gpu->stats.gpu_waits++;
    return gpu->vk.vkWaitSemaphores(gpu->device, &wi, ns);
}

pvk_result pvk_retire_until(pvk_gpu *gpu, uint64_t value)
{
    if (!gpu->timeline || gpu->sticky || !value)
        return gpu->sticky;
    /* Only a wait for the open batch submits it: waiting for older work (the
     * vertex ring a lap behind) must not cut the batch being recorded. */
    if (value > gpu->timeline_next)
        (void)pvk_batch_close(gpu); /* a failure is logged and handled on the next line */
    if (value > gpu->timeline_next) /* the batch failed to submit: nothing else will signal it */
        value = gpu->timeline_next;
    if (gpu->sticky || !value)
        return gpu->sticky;
    pvk_result r = pvk_vk_check(gpu, wait_timeline(gpu, value, UINT64_MAX), "vkWaitSemaphores");
    pvk_result r2 = retire(gpu, false, 0, false);
    return r ? r : r2;
}

/* Internal waits are unbounded: their callers reuse what the GPU was using
 * (and the per-call draw budget bounds the work they wait for). */
pvk_result pvk_retire(pvk_gpu *gpu, bool wait)
{
    return retire(gpu, wait, UINT64_MAX, true);
}

void pvk_gpu_idle(pvk_gpu *gpu)
{
    pvk_result r = retire(gpu, true, UINT64_MAX, true);
    if (gpu->pending_count && !gpu->sticky) {
        pvk_log(gpu, PVK_LOG_ERROR, "waiting for the GPU failed (%s) with work in flight: the context is lost",
                pvk_result_name(r));
        gpu->sticky = PVK_ERROR_DEVICE_LOST;
    }
}

void pvk_queue_lock(pvk_gpu *gpu)
{
    if (gpu->queue_lock)
        gpu->queue_lock(gpu->queue_lock_user, gpu->queue);
}

void pvk_queue_unlock(pvk_gpu *gpu)
{
    if (gpu->queue_unlock)
        gpu->queue_unlock(gpu->queue_lock_user, gpu->queue);
}

static uint64_t host_timeout_ns(const pvk_gpu *gpu)
{
    uint64_t ms = gpu->cfg.wait_timeout_ms ? gpu->cfg.wait_timeout_ms : PVK_DEFAULT_WAIT_TIMEOUT_MS;
    return ms * 1000000ull;
}

pvk_result pvk_wait_value_host(pvk_gpu *gpu, uint64_t value, const char *what)
{
    if (!value || !gpu->timeline || gpu->sticky)
        return gpu->sticky;
    uint64_t ns = host_timeout_ns(gpu);
    VkResult vr = wait_timeline(gpu, value, ns);
    if (vr == VK_TIMEOUT) {
        pvk_log(gpu, PVK_LOG_WARN,
                "%s: GPU work still running after %llu ms; the wait gave up (the context stays "
                "usable)",
                what, (unsigned long long)(ns / 1000000));
        return PVK_ERROR_TIMEOUT;
    }
    return pvk_vk_check(gpu, vr, "vkWaitSemaphores");
}

pvk_result pvk_retire_host(pvk_gpu *gpu)
{
    return retire(gpu, true, host_timeout_ns(gpu), true);
}

/* ---- debug names and labels (VK_EXT_debug_utils, when enabled) ---- */

void pvk_label_end(pvk_gpu *gpu, VkCommandBuffer cmd)
{
    if (gpu->features.debug_utils && gpu->end_label)
        gpu->end_label(cmd);
}

void pvk_object_name(pvk_gpu *gpu, VkObjectType type, uint64_t handle, const char *fmt, ...)
{
    if (!gpu->features.debug_utils || !gpu->set_object_name || !handle)
        return;
    char name[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    VkDebugUtilsObjectNameInfoEXT info = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
        .objectType = type,
        .objectHandle = handle,
        .pObjectName = name,
    };
    gpu->set_object_name(gpu->device, &info);
}

bool pvk_gpu_busy(const pvk_gpu *gpu)
{
    return gpu->pending_count != 0;
}

uint64_t pvk_gpu_submitted(const pvk_gpu *gpu)
{
    return gpu->timeline_next;
}

bool pvk_gpu_completed(pvk_gpu *gpu, uint64_t *value)
{
    return gpu->vk.vkGetSemaphoreCounterValue(gpu->device, gpu->timeline, value) == VK_SUCCESS;
}

bool pvk_gpu_writes_pending(const pvk_gpu *gpu, uint32_t paddr, uint32_t len)
{
    for (uint32_t i = 0; i < gpu->pending_count; i++) {
        const pvk_pending *p = &gpu->pending[(gpu->pending_head + i) % PVK_MAX_PENDING];
        if (p->dst_len && paddr < p->dst_addr + p->dst_len && p->dst_addr < paddr + len)
            return true;
    }
    return false;
}
