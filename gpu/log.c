/* Logging, result strings and the PVK_DEBUG / PVK_LOG_LEVEL environment. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"

const char *pvk_result_name(pvk_result r)
{
    switch (r) {
        case PVK_SUCCESS: return "success";
        case PVK_ERROR_INVALID_ARGUMENT: return "invalid argument";
        case PVK_ERROR_OUT_OF_MEMORY: return "out of memory";
        case PVK_ERROR_NO_DEVICE: return "no suitable Vulkan device";
        case PVK_ERROR_MISSING_FEATURE: return "device lacks a required feature";
        case PVK_ERROR_VULKAN: return "Vulkan call failed";
        case PVK_ERROR_DEVICE_LOST: return "device lost";
        case PVK_ERROR_UNSUPPORTED: return "not supported";
        case PVK_ERROR_OUT_OF_RANGE: return "guest address out of range";
        case PVK_ERROR_BAD_PARAMETERS: return "bad hardware parameters";
        case PVK_ERROR_IO: return "I/O error";
        case PVK_ERROR_BAD_DATA: return "corrupt data";
        case PVK_ERROR_TIMEOUT: return "timed out waiting for the GPU";
        case PVK_ERROR_BUSY: return "context in use by another thread";
    }
    return "unknown result";
}

static const char *level_name(pvk_log_level l)
{
    switch (l) {
        case PVK_LOG_ERROR: return "error";
        case PVK_LOG_WARN: return "warn";
        case PVK_LOG_INFO: return "info";
        case PVK_LOG_DEBUG: return "debug";
        default: return "log";
    }
}

static void vlog(pvk_gpu *gpu, pvk_log_level level, const char *fmt, va_list ap)
{
    if (gpu && level > gpu->log_level)
        return;
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    if (gpu && gpu->cfg.log)
        gpu->cfg.log(gpu->cfg.log_user, level, buf);
    else
        fprintf(stderr, "picavk %s: %s\n", level_name(level), buf);
}

void pvk_log(pvk_gpu *gpu, pvk_log_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(gpu, level, fmt, ap);
    va_end(ap);
}

void pvk_bad_input(pvk_gpu *gpu, const char *fmt, ...)
{
    gpu->stats.bad_input++;
    va_list ap;
    va_start(ap, fmt);
    vlog(gpu, PVK_LOG_ERROR, fmt, ap);
    va_end(ap);
}

void pvk_unsupported(pvk_gpu *gpu, const char *fmt, ...)
{
    gpu->stats.unsupported++;
    va_list ap;
    va_start(ap, fmt);
    vlog(gpu, PVK_LOG_WARN, fmt, ap);
    va_end(ap);
}

bool pvk_once(pvk_gpu *gpu, pvk_once_id id)
{
    uint64_t bit = (uint64_t)1 << id;
    bool first = !(gpu->once & bit);
    gpu->once |= bit;
    return first;
}

void pvk_unsupported_once(pvk_gpu *gpu, pvk_once_id id, const char *fmt, ...)
{
    gpu->stats.unsupported++;
    if (!pvk_once(gpu, id))
        return;
    va_list ap;
    va_start(ap, fmt);
    vlog(gpu, PVK_LOG_WARN, fmt, ap);
    va_end(ap);
}

uint32_t pvk_debug_flags_from_env(void)
{
    static const struct {
        const char *name;
        uint32_t bit;
    } flags[] = {
        {"no-host-import", PVK_DEBUG_NO_HOST_IMPORT},
        {"verbose", PVK_DEBUG_VERBOSE},
        {"sync", PVK_DEBUG_SYNC},
        {"no-logic-op", PVK_DEBUG_NO_LOGIC_OP},
        {"roundtrip", PVK_DEBUG_ROUNDTRIP},
        {"shaders", PVK_DEBUG_SHADERS},
        {"no-custom-border", PVK_DEBUG_NO_CUSTOM_BORDER},
        {"no-attachment-read", PVK_DEBUG_NO_ATTACHMENT_READ},
        {"lut-storage", PVK_DEBUG_LUT_STORAGE},
        {"cpu-vs", PVK_DEBUG_CPU_VS},
        {"texture-staging", PVK_DEBUG_TEXTURE_STAGING},
        {"ubershader", PVK_DEBUG_UBERSHADER},
        {"draw-labels", PVK_DEBUG_DRAW_LABELS},
    };
    const char *env = getenv("PVK_DEBUG");
    uint32_t out = 0;
    while (env && *env) {
        size_t n = strcspn(env, ",");
        for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
            if (strlen(flags[i].name) == n && !strncmp(env, flags[i].name, n))
                out |= flags[i].bit;
        env += n + (env[n] == ',');
    }
    return out;
}

pvk_result pvk_vk_check(pvk_gpu *gpu, VkResult r, const char *what)
{
    if (r == VK_SUCCESS)
        return PVK_SUCCESS;
    if (r == VK_ERROR_DEVICE_LOST) {
        gpu->sticky = PVK_ERROR_DEVICE_LOST;
        pvk_log(gpu, PVK_LOG_ERROR, "%s: device lost; the context is unusable from now on", what);
        return PVK_ERROR_DEVICE_LOST;
    }
    pvk_log(gpu, PVK_LOG_ERROR, "%s failed: VkResult %d", what, (int)r);
    if (r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY)
        return PVK_ERROR_OUT_OF_MEMORY;
    return PVK_ERROR_VULKAN;
}

void pvk_raise_irq(pvk_gpu *gpu, pvk_irq which)
{
    pvk_log(gpu, PVK_LOG_DEBUG, "IRQ %d", (int)which);
    if (gpu->cfg.irq)
        gpu->cfg.irq(gpu->cfg.irq_user, gpu->handle, which);
}
