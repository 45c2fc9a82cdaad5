/* gpu/ is the Vulkan layer every other folder stands on: the device (picavk's
 * own through volk, or the host's), command recording and submission (ops),
 * barriers, the timeline and retirement of finished work, buffers and
 * images, the built-in compute pipelines, logging and the counters, IRQ
 * delivery to the host.  It knows nothing of guest memory, surfaces, PICA
 * registers or drawing; layers above register callbacks (retire, batch close)
 * instead of being called by name.  What the other folders may use of it. */
#ifndef PVK_GPU_H
#define PVK_GPU_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include <volk.h>

#include "picavk/picavk.h"
#include "shaders/shaders.h"

typedef struct pvk_gpu pvk_gpu;

/* PVK_DEBUG=flag,flag switches. */
enum {
    PVK_DEBUG_NO_HOST_IMPORT = 1u << 0, /* "no-host-import": mirror guest memory in device buffers */
    PVK_DEBUG_VERBOSE = 1u << 1, /* "verbose": log level DEBUG */
    PVK_DEBUG_SYNC = 1u << 2, /* "sync": wait for every GPU operation at once (a batch per draw) */
    PVK_DEBUG_NO_LOGIC_OP = 1u << 3, /* "no-logic-op": act as if the device lacked logicOp (fallback tests) */
    PVK_DEBUG_ROUNDTRIP = 1u << 4, /* "roundtrip": no surface cache, every draw loads and stores guest memory */
    PVK_DEBUG_SHADERS = 1u << 5, /* "shaders": dump generated shaders (SPIRV-Cross GLSL) to the cache dir */
    PVK_DEBUG_NO_CUSTOM_BORDER = 1u << 6, /* "no-custom-border": act as if the device lacked custom border colours */
    PVK_DEBUG_NO_ATTACHMENT_READ = 1u << 7, /* "no-attachment-read": act as if the device lacked
                                               rasterizationOrderAttachmentAccess (fixed-function blending) */
    PVK_DEBUG_LUT_STORAGE = 1u << 8, /* "lut-storage": the fragment LUTs in a storage buffer, as on devices whose
                                           maxUniformBufferRange cannot hold them (runtime/fragdata.c) */
    PVK_DEBUG_CPU_VS = 1u << 9, /* "cpu-vs": vertex programs of draws on the CPU interpreter */
    PVK_DEBUG_TEXTURE_STAGING = 1u << 10, /* "texture-staging": texture decodes through a staging buffer and a
                                             copy, as on GPUs, also on CPU devices (vram/texture.c) */
    PVK_DEBUG_UBERSHADER = 1u << 11, /* "ubershader": every draw's fragment shader is the ubershader */
    PVK_DEBUG_DRAW_LABELS = 1u << 12, /* "draw-labels": a debug label around every draw, not only every batch
                                         (formatting one costs about a tenth of a draw's CPU time) */
};

/* One built-in compute pipeline: storage buffers through push descriptors and
 * a push-constant block. */
typedef struct pvk_compute_pipeline {
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    uint32_t buffers;
    uint32_t push_size;
} pvk_compute_pipeline;

/* A storage buffer binding: buffer, offset, range. */
typedef struct pvk_buffer_range {
    VkBuffer buffer;
    VkDeviceSize offset, range;
} pvk_buffer_range;

/* GPU work in flight: retired in submission order once the timeline passes
 * `value`; `retire` then runs on the host thread (status bits, IRQs,
 * copying results back in mirror mode). */
typedef struct pvk_pending {
    uint64_t value;
    VkCommandBuffer cmd;
    void (*retire)(struct pvk_gpu *gpu, const struct pvk_pending *p);
    void *owner; /* the layer state `retire` works on (vram/: its pvk_vram) */
    uint32_t arg; /* e.g. which fill unit */
    uint32_t dst_addr, dst_len; /* guest range written, for mirror downloads */
    VkBuffer scratch; /* freed on retire */
    VkDeviceMemory scratch_mem;
} pvk_pending;

#define PVK_MAX_PENDING 256

/* One recording in progress (pvk_op_begin .. pvk_op_submit). */
typedef struct pvk_op {
    VkCommandBuffer cmd;
    pvk_pending p;
    bool labelled; /* pvk_op_label opened a debug label; submit closes it */
} pvk_op;

typedef struct pvk_grave pvk_grave; /* gpu/defer.c */

/* The memory budget's shares in bytes (pvk_config.memory_budget_mb; the
 * split is docs/memory.md's).  Pipelines count at `pipeline_cost` each, an
 * estimate of the driver's memory for one (Vulkan reports none). */
typedef struct pvk_budget {
    uint64_t total, pipelines, surfaces, textures, modules;
    uint64_t pack; /* a texture pack's decoded replacements (taken from the pipelines' share when there is a pack) */
    uint64_t pipeline_cost;
} pvk_budget;

/* The Vulkan layer's state: one per context (pvk_context.gpu). */
struct pvk_gpu {
    pvk_config cfg;
    pvk_context *handle; /* the public handle host callbacks (IRQs) are given */
    uint64_t once;       /* pvk_once_id bits given already */
    pvk_log_level log_level;
    uint32_t debug; /* PVK_DEBUG_* */
    pvk_result sticky; /* PVK_ERROR_DEVICE_LOST once lost */
    /* Every layer's counters (pvk_get_stats): kept at the bottom so each
     * layer counts without calling up. */
    pvk_stats stats;
    pvk_budget budget; /* pvk_device_init: from cfg.memory_budget_mb and the device */
    pvk_features features;
    /* Draws read their colour attachment in the shader (exact PICA blending):
     * rasterizationOrderColorAttachmentAccess, imagelessFramebuffer and
     * separateDepthStencilLayouts; every batch a VkRenderPass (runtime/draw.c,
     * runtime/pipeline.c). */
    bool attachment_read;
    bool shader_float64; /* enabled on the device (runtime/vs_compute.c) */
    bool vertex_stores; /* vertexPipelineStoresAndAtomics enabled: the GPU vertex path reports bad vertices */

    /* Vulkan */
    bool own_instance, own_device;
    bool debug_utils; /* VK_EXT_debug_utils enabled on the instance */
    VkInstance instance;
    VkPhysicalDevice phys;
    VkDevice device;
    VkQueue queue;
    uint32_t queue_family;
    struct VolkDeviceTable vk;
    /* Instance-level debug-utils entry points of this context's instance:
     * volk keeps instance functions in process globals that the next context
     * creation overwrites, so nothing reads those globals after creation. */
    PFN_vkCmdBeginDebugUtilsLabelEXT begin_label;
    PFN_vkCmdEndDebugUtilsLabelEXT end_label;
    PFN_vkSetDebugUtilsObjectNameEXT set_object_name;
    /* embedded mode: the host's queue lock (pvk_host_vulkan), copied */
    void (*queue_lock)(void *user, VkQueue queue);
    void (*queue_unlock)(void *user, VkQueue queue);
    void *queue_lock_user;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceDriverProperties driver_props; /* pvk_get_device_info */
    VkPhysicalDeviceMemoryProperties mem_props;
    uint64_t import_alignment; /* minImportedHostPointerAlignment */
    char device_name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
    VkCommandPool cmd_pool;
    VkSemaphore timeline;
    uint64_t timeline_next; /* last value submitted */
    VkCommandBuffer free_cmds[PVK_MAX_PENDING];
    uint32_t free_cmd_count;
    pvk_pending pending[PVK_MAX_PENDING]; /* ring, oldest first */
    uint32_t pending_head, pending_count;
    pvk_compute_pipeline pipes[PVK_PIPE_COUNT];
    /* Set while a recording stays open across operations (the draw batch of
     * runtime/draw.c, which registers it); pvk_batch_close clears it and
     * calls it. */
    pvk_result (*batch_close)(struct pvk_gpu *gpu);
    /* objects waiting for the work that may use them (gpu/defer.c) */
    pvk_grave *graves;
    uint32_t n_graves, cap_graves;
};

/* ---- logging (gpu/log.c) ---- */
void pvk_log(pvk_gpu *gpu, pvk_log_level level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Log an error caused by guest input and count it. */
void pvk_bad_input(pvk_gpu *gpu, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pvk_unsupported(pvk_gpu *gpu, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Messages a context gives once: the first occurrence is logged, every one
 * counted where the caller says so.  One bit of pvk_gpu.once each. */
typedef enum pvk_once_id {
    PVK_ONCE_STENCIL,          /* draws: stencil test without a stencil aspect */
    PVK_ONCE_SHADOW_MODE,      /* draws: shadow rendering without attachment reads */
    PVK_ONCE_SHADOW_CUBE,      /* draws: shadow cube textures read 0 */
    PVK_ONCE_SMALL_LEVELS,     /* draws: texture levels under 8x8 */
    PVK_ONCE_SHADER_BORDER,    /* draws: the shader clamps to the border colour */
    PVK_ONCE_SAMPLER_FALLBACK, /* samplers: built-in border colours stand in */
    PVK_ONCE_TEXRES,           /* draws: reserved texture-unit values, + the PVK_TEXRES_* bit's index */
    PVK_ONCE_COUNT = PVK_ONCE_TEXRES + 8,
} pvk_once_id;
_Static_assert(PVK_ONCE_COUNT <= 64, "pvk_gpu.once is 64 bits");
/* True the first time `id` comes by in this context. */
bool pvk_once(pvk_gpu *gpu, pvk_once_id id);
/* pvk_unsupported the first time `id` comes by; later only counted. */
void pvk_unsupported_once(pvk_gpu *gpu, pvk_once_id id, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
uint32_t pvk_debug_flags_from_env(void);
const char *pvk_result_name(pvk_result r); /* pvk_result_string's table */

/* Turn a VkResult into a pvk_result, making DEVICE_LOST sticky and logging `what`. */
pvk_result pvk_vk_check(pvk_gpu *gpu, VkResult r, const char *what);

/* ---- device (gpu/device.c) ---- */
pvk_result pvk_device_init(pvk_gpu *gpu);
void pvk_device_destroy(pvk_gpu *gpu);
/* Held around context creation and destruction: volk's process-global
 * loader and instance pointers are (re)loaded then, one context at a time. */
void pvk_vulkan_global_lock(void);
void pvk_vulkan_global_unlock(void);
int pvk_find_memory_type(const pvk_gpu *gpu, uint32_t type_bits, VkMemoryPropertyFlags want);
pvk_result pvk_create_buffer(pvk_gpu *gpu, VkDeviceSize size, VkBufferUsageFlags usage, VkMemoryPropertyFlags props,
                             VkBuffer *buf, VkDeviceMemory *mem);
/* A 2D image with its memory and (optionally) a view. */
typedef struct pvk_image {
    VkImage image;
    VkImageView view;
    VkDeviceMemory mem;
    uint32_t w, h;
} pvk_image;
/* Device-local memory for `image` (any memory when none is), allocated and bound. */
pvk_result pvk_image_memory(pvk_gpu *gpu, VkImage image, VkDeviceMemory *mem);
/* (Re)create `im` at w x h unless it already is that size. */
pvk_result pvk_image_ensure(pvk_gpu *gpu, pvk_image *im, uint32_t w, uint32_t h, VkFormat format,
                            VkImageUsageFlags usage, bool view);
void pvk_image_destroy(pvk_gpu *gpu, pvk_image *im);

/* ---- deferred destruction (gpu/defer.c) ---- */
/* Destroy `handle` (a VkPipeline, VkSampler, VkFramebuffer, VkImage with its
 * `view`, VkImageView, or VkBuffer, as `type` says) and free `mem` once the timeline
 * reaches `value`: the last submission that may use them (the open batch's
 * is pvk_gpu_submitted() + 1).  Never waits; the objects are the GPU
 * layer's from here on.  False (logged, nothing taken) when out of memory. */
bool pvk_gpu_defer_destroy(pvk_gpu *gpu, uint64_t value, VkObjectType type, uint64_t handle, VkImageView view,
                           VkDeviceMemory mem);
/* An image given up the same way (`im` zeroed; out of memory, after a wait
 * for the GPU, which closes an open batch: not for the draw path). */
void pvk_image_defer_destroy(pvk_gpu *gpu, pvk_image *im, uint64_t value);
/* Destroy what waits for values up to `done` (UINT64_MAX: everything; the
 * retirement of submitted work and the device's end call it). */
void pvk_gpu_reap(pvk_gpu *gpu, uint64_t done);

/* ---- compute and submission (gpu/compute.c) ---- */
pvk_result pvk_compute_init(pvk_gpu *gpu);
/* A compute pipeline from SPIR-V (`size` bytes) with `layout`; `spec` may be
 * NULL.  The one place compute pipelines are created. */
pvk_result pvk_compute_pipeline_create(pvk_gpu *gpu, const uint32_t *code, size_t size, VkPipelineLayout layout,
                                       const VkSpecializationInfo *spec, VkPipeline *out);
void pvk_compute_destroy(pvk_gpu *gpu);
/* Submit the open draw batch, if any.  The one place a batch closes from
 * outside draw.c: pvk_op_begin, pvk_retire and pvk_retire_host call it
 * first (pvk_retire_until when it waits for the batch's value), so any other
 * GPU operation is queued after the draws recorded so far and no wait is for
 * a value nothing will signal.  A batch may stay open when a public call
 * returns; every call that needs its draws on the GPU reaches one of those
 * (docs/surface-cache.md). */
pvk_result pvk_batch_close(pvk_gpu *gpu);
pvk_result pvk_op_begin(pvk_gpu *gpu, pvk_op *op);
/* Submit; the pending record takes `op->p` (retire callback etc.). */
pvk_result pvk_op_submit(pvk_gpu *gpu, pvk_op *op);
/* Name what the op records (a debug label around all of it). */
void pvk_op_label(pvk_gpu *gpu, pvk_op *op, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Open a label on `cmd` (one draw of a batch); true when one was opened and
 * pvk_label_end must close it. */
bool pvk_cmd_label(pvk_gpu *gpu, VkCommandBuffer cmd, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Abandon a recording that failed half way. */
void pvk_op_abort(pvk_gpu *gpu, pvk_op *op);
/* Bind pipeline `pipe` (created now if it is made on first use; a failure
 * is logged and nothing runs), push `bufs` (buffer, offset, range triples)
 * and `push`, and dispatch groups. */
void pvk_op_dispatch(pvk_gpu *gpu, pvk_op *op, int pipe, const pvk_buffer_range *bufs, const void *push, uint32_t gx,
                     uint32_t gy, uint32_t gz);
/* A layout transition of a one-mip, one-layer image. */
void pvk_image_barrier(pvk_gpu *gpu, VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect, VkImageLayout from,
                       VkImageLayout to, VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                       VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access);
/* Make earlier shader/transfer writes visible to later commands of the same op. */
void pvk_op_barrier(pvk_gpu *gpu, pvk_op *op);
pvk_result pvk_retire(pvk_gpu *gpu, bool wait);
/* Wait for every submitted operation and retire it, before a resource the
 * GPU may still use is reused or freed.  Nothing to report: a failure of
 * the wait itself leaves the context lost (pvk_gpu_error; logged), since
 * nobody can say what the GPU still uses, and every later call reports it;
 * an earlier batch that failed to submit was logged and counted already. */
void pvk_gpu_idle(pvk_gpu *gpu);
/* Wait until the operation that signalled timeline `value` is done, retire
 * what is.  `value` may be that of the open batch (timeline_next + 1): it is
 * submitted first. */
pvk_result pvk_retire_until(pvk_gpu *gpu, uint64_t value);
/* The host-facing wait (pvk_wait_idle, pvk_guest_flush, pvk_frame_read): bounded by
 * pvk_config.wait_timeout_ms, PVK_ERROR_TIMEOUT past it (nothing lost). */
#define PVK_DEFAULT_WAIT_TIMEOUT_MS 10000u
pvk_result pvk_retire_host(pvk_gpu *gpu);
/* The host's bounded wait (pvk_config.wait_timeout_ms) for timeline `value`,
 * already submitted, before a host call reuses what that work uses:
 * PVK_ERROR_TIMEOUT (logged, naming `what`) when it is not reached in time;
 * nothing is retired. */
pvk_result pvk_wait_value_host(pvk_gpu *gpu, uint64_t value, const char *what);
/* Embedded mode: the host's queue lock around each queue operation. */
void pvk_queue_lock(pvk_gpu *gpu);
void pvk_queue_unlock(pvk_gpu *gpu);
/* VK_EXT_debug_utils names and labels (no-ops without the extension), so a
 * captured frame reads like the guest's: a label per pass and draw. */
void pvk_label_end(pvk_gpu *gpu, VkCommandBuffer cmd);
void pvk_object_name(pvk_gpu *gpu, VkObjectType type, uint64_t handle, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---- IRQs to the host (gpu/log.c) ---- */
void pvk_raise_irq(pvk_gpu *gpu, pvk_irq which);

/* ---- the timeline as the layers above see it (gpu/compute.c) ---- */
/* GPU work submitted and not yet retired. */
bool pvk_gpu_busy(const pvk_gpu *gpu);
/* The timeline value of the last submission (the open batch, if any, gets
 * the next one). */
uint64_t pvk_gpu_submitted(const pvk_gpu *gpu);
/* The value the GPU has reached, read without retiring anything (no retire
 * callback runs); false when it cannot be read. */
bool pvk_gpu_completed(pvk_gpu *gpu, uint64_t *value);
/* Does work in flight write guest bytes in [paddr, paddr + len)? */
bool pvk_gpu_writes_pending(const pvk_gpu *gpu, uint32_t paddr, uint32_t len);
/* PVK_ERROR_DEVICE_LOST once the device is lost (every later call fails with it). */
static inline pvk_result pvk_gpu_error(const pvk_gpu *gpu)
{
    return gpu->sticky;
}

#endif
