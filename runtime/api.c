/* Every public entry point of picavk.h, in one place: the argument checks,
 * the sticky device-lost check, the trace recorder's hooks, then dispatch to
 * the folder that does the work.  Nothing else in the library is reachable
 * from a host. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <strings.h>

#include "runtime/runtime.h"

#define CHECK_CTX(ctx)                                                                                                 \
    do {                                                                                                               \
        if (!(ctx))                                                                                                    \
            return PVK_ERROR_INVALID_ARGUMENT;                                                                         \
        if ((ctx)->gpu.sticky)                                                                                         \
            return (ctx)->gpu.sticky;                                                                                  \
    } while (0)

/* The threading contract (picavk.h): a context is externally synchronised.
 * Debug builds check it: the first thread in owns the context until its
 * outermost call returns (callbacks may call back in on the same thread);
 * another thread meanwhile gets PVK_ERROR_BUSY, logged, instead of a crash
 * deep in the driver.  Release builds (NDEBUG) do not check. */
#ifndef NDEBUG
static _Thread_local char thread_tag; /* its address names the thread */

typedef struct entry {
    pvk_context *ctx;
    bool busy;
} entry;

static entry enter(pvk_context *ctx, const char *fn)
{
    uintptr_t me = (uintptr_t)&thread_tag, none = 0;
    if (atomic_compare_exchange_strong(&ctx->owner, &none, me) || none == me) {
        ctx->depth++;
        return (entry){ctx, false};
    }
    pvk_log(&ctx->gpu, PVK_LOG_ERROR,
            "%s: the context is in use by another thread (a context is externally "
            "synchronised); call refused",
            fn);
    return (entry){ctx, true};
}

static void leave(entry *e)
{
    if (e->ctx && !e->busy && --e->ctx->depth == 0)
        atomic_store(&e->ctx->owner, 0);
}

/* Opens a call on a non-NULL ctx; `refused` is what to return when busy. */
#define ENTER(ctx, refused)                                                                                      \
    entry entry_ __attribute__((cleanup(leave))) = (ctx) ? enter((ctx), __func__) : (entry){0};               \
    if (entry_.busy)                                                                                          \
        return refused
#else
#define ENTER(ctx, refused) (void)0
#endif

/* ---- context ---- */

const char *pvk_result_string(pvk_result r)
{
    return pvk_result_name(r);
}

#ifndef PVK_VERSION_STRING
#error "PVK_VERSION_STRING comes from CMakeLists.txt's project(VERSION)"
#endif
const char *pvk_version(void)
{
    return PVK_VERSION_STRING;
}

pvk_result pvk_context_create(const pvk_config *config, pvk_context **out)
{
    if (!out)
        return PVK_ERROR_INVALID_ARGUMENT;
    return pvk_ctx_create(config, out);
}

void pvk_context_destroy(pvk_context *ctx)
{
    if (!ctx)
        return;
    ENTER(ctx, );
#ifndef NDEBUG
    entry_.ctx = NULL; /* freed below: nothing to release after */
#endif
    if (ctx->trace)
        (void)pvk_trace_stop(ctx); /* a complete, replayable file; a write error is logged (destroy returns nothing) */
    pvk_ctx_destroy(ctx);
}

pvk_result pvk_context_status(const pvk_context *ctx)
{
    return ctx ? ctx->gpu.sticky : PVK_ERROR_INVALID_ARGUMENT;
}

const char *pvk_device_name(const pvk_context *ctx)
{
    return ctx ? ctx->gpu.device_name : "";
}

pvk_result pvk_get_features(const pvk_context *ctx, pvk_features *out)
{
    if (!ctx || !out)
        return PVK_ERROR_INVALID_ARGUMENT;
    *out = ctx->gpu.features;
    return PVK_SUCCESS;
}

pvk_result pvk_get_device_info(const pvk_context *ctx, pvk_device_info *out)
{
    if (!ctx || !out)
        return PVK_ERROR_INVALID_ARGUMENT;
    *out = (pvk_device_info){
        .api_version = ctx->gpu.props.apiVersion,
        .driver_version = ctx->gpu.props.driverVersion,
        .vendor_id = ctx->gpu.props.vendorID,
        .device_id = ctx->gpu.props.deviceID,
        .type = ctx->gpu.props.deviceType,
    };
    snprintf(out->driver_name, sizeof out->driver_name, "%s", ctx->gpu.driver_props.driverName);
    snprintf(out->driver_info, sizeof out->driver_info, "%s", ctx->gpu.driver_props.driverInfo);
    return PVK_SUCCESS;
}

pvk_result pvk_get_stats(const pvk_context *ctx, pvk_stats *out)
{
    if (!ctx || !out)
        return PVK_ERROR_INVALID_ARGUMENT;
    *out = ctx->gpu.stats;
    const pvk_pica_counters *c = &ctx->pica.counters;
    out->command_lists = c->lists;
    out->draws = c->draws;
    out->vertices = c->vertices;
    out->triangles = c->triangles;
    out->immediate_vertices = c->immediate_vertices;
    out->gs_cpu_fallbacks = c->gs_fallbacks;
    out->gpu_steps_charged = c->gpu_steps;
    out->gpu_capped_draws = c->gpu_capped;
    out->gpu_budget_fallbacks = c->gpu_budget_fallbacks;
    pvk_gs_counts(ctx, &out->gs_excess_triangles, &out->gs_unfinished);
    pvk_pipelines_held(ctx, out);
    pvk_textures_held(&ctx->vram, &out->held_textures, &out->held_texture_bytes);
    pvk_surfaces_held(&ctx->vram, &out->held_surfaces, &out->held_surface_bytes);
    out->held_samplers = pvk_samplers_held(ctx);
    pvk_dump_counts(&ctx->vram, &out->textures_dumped, &out->texture_dump_failures);
    pvk_pack_stats(&ctx->vram, out);
    out->held_bytes = out->held_pipeline_bytes + out->held_module_bytes + out->held_texture_bytes +
                      out->held_surface_bytes + out->held_pack_bytes;
    return PVK_SUCCESS;
}

pvk_result pvk_poll(pvk_context *ctx)
{
    ENTER(ctx, PVK_ERROR_BUSY);
    CHECK_CTX(ctx);
    return pvk_retire(&ctx->gpu, false);
}

/* Idle means guest memory holds everything the GPU made, too. */
pvk_result pvk_wait_idle(pvk_context *ctx)
{
    ENTER(ctx, PVK_ERROR_BUSY);
    CHECK_CTX(ctx);
    pvk_result r = pvk_guest_sync_all(&ctx->vram);
    return r ? r : pvk_retire_host(&ctx->gpu);
}

/* ---- guest memory ---- */

void *pvk_guest_ptr(pvk_context *ctx, uint32_t paddr, uint32_t len)
{
    ENTER(ctx, NULL);
    return ctx ? pvk_guest_host(&ctx->vram, paddr, len, "pvk_guest_ptr") : NULL;
}

pvk_result pvk_guest_written(pvk_context *ctx, uint32_t paddr, uint32_t len)
{
    ENTER(ctx, PVK_ERROR_BUSY);
    CHECK_CTX(ctx);
    if (!pvk_guest_check(&ctx->vram, paddr, len, "pvk_guest_written"))
        return PVK_ERROR_OUT_OF_RANGE;
    pvk_guest_invalidate(&ctx->vram, paddr, len);
    return PVK_SUCCESS;
}

pvk_result pvk_guest_flush(pvk_context *ctx, uint32_t paddr, uint32_t len)
{
    ENTER(ctx, PVK_ERROR_BUSY);
    if (!ctx)
        return PVK_ERROR_INVALID_ARGUMENT;
    if (!pvk_guest_check(&ctx->vram, paddr, len, "pvk_guest_flush"))
        return PVK_ERROR_OUT_OF_RANGE;
    pvk_result r = ctx->gpu.sticky ? ctx->gpu.sticky : pvk_guest_sync_for_read(&ctx->vram, paddr, len);
    return r ? r : pvk_retire_host(&ctx->gpu);
}

/* ---- registers ---- */

uint32_t pvk_mmio_address(uint32_t addr)
{
    if (addr >= PVK_MMIO_BASE && addr - PVK_MMIO_BASE < PVK_MMIO_SIZE)
        return addr;
    if (addr >= PVK_MMIO_USER_VA && addr - PVK_MMIO_USER_VA < PVK_MMIO_SIZE)
        return addr - PVK_MMIO_USER_VA + PVK_MMIO_BASE;
    return 0;
}

pvk_result pvk_mmio_read32(pvk_context *ctx, uint32_t paddr, uint32_t *value)
{
    ENTER(ctx, PVK_ERROR_BUSY);
    if (!ctx || !value)
        return PVK_ERROR_INVALID_ARGUMENT;
    *value = 0;
    if (!pvk_ctx_mmio_check(ctx, paddr, "pvk_mmio_read32"))
        return PVK_ERROR_OUT_OF_RANGE;
    *value = pvk_ctx_mmio_read(ctx, paddr);
    return ctx->gpu.sticky;
}

pvk_result pvk_mmio_write32(pvk_context *ctx, uint32_t paddr, uint32_t value)
{
    ENTER(ctx, PVK_ERROR_BUSY);
    CHECK_CTX(ctx);
    if (!pvk_ctx_mmio_check(ctx, paddr, "pvk_mmio_write32"))
        return PVK_ERROR_OUT_OF_RANGE;
    pvk_result r = pvk_ctx_mmio_write(ctx, paddr, value);
    /* Recorded after the write's own work: the guest memory that work used
     * enters the trace before the write that started it. */
    if (ctx->trace)
        pvk_trace_mmio(ctx, paddr, value);
    return r;
}

uint32_t pvk_register_address(const char *name)
{
    if (!name)
        return 0;
    for (uint32_t off = 0; off < 0x1000; off += 4) {
        const char *n = pvk_mmio_name(off);
        if (n && !strcasecmp(n, name))
            return PVK_MMIO_BASE + off;
    }
    int id = pvk_pica_reg_id(name);
    return id < 0 ? 0 : PVK_MMIO_PICA + 4 * (uint32_t)id;
}

const char *pvk_register_name(uint32_t paddr)
{
    if (paddr < PVK_MMIO_BASE || paddr - PVK_MMIO_BASE >= PVK_MMIO_SIZE || (paddr & 3))
        return NULL;
    if (paddr < PVK_MMIO_PICA)
        return pvk_mmio_name(paddr - PVK_MMIO_BASE);
    return pvk_pica_reg_name((paddr - PVK_MMIO_PICA) / 4);
}

pvk_result pvk_get_framebuffer(pvk_context *ctx, pvk_framebuffer_info *out)
{
    ENTER(ctx, PVK_ERROR_BUSY);
    if (!ctx || !out)
        return PVK_ERROR_INVALID_ARGUMENT;
    pvk_fb_desc fb;
    pvk_fb_desc_get(&ctx->pica, &fb);
    *out = (pvk_framebuffer_info){fb.width, fb.height, fb.color_addr, fb.depth_addr, fb.color_format,
                                  fb.depth_format, fb.color_bpp, fb.depth_bpp};
    return PVK_SUCCESS;
}

void pvk_log_message(pvk_context *ctx, pvk_log_level level, const char *message)
{
    if (message)
        pvk_log(&ctx->gpu, level, "%s", message);
}

/* The GSP way (GX command 1): size, address, start through the external
 * registers, so a trace records it like any other host. */
pvk_result pvk_command_list_run(pvk_context *ctx, uint32_t paddr, uint32_t size)
{
    ENTER(ctx, PVK_ERROR_BUSY);
    const uint32_t pica = PVK_MMIO_PICA;
    pvk_result r = pvk_mmio_write32(ctx, pica + 4 * PVK_GPUREG_CMDBUF_SIZE0, size >> 3);
    if (!r)
        r = pvk_mmio_write32(ctx, pica + 4 * PVK_GPUREG_CMDBUF_ADDR0, paddr >> 3);
    if (!r)
        r = pvk_mmio_write32(ctx, pica + 4 * PVK_GPUREG_CMDBUF_JUMP0, 1);
    return r;
}

/* ---- LCD output ---- */

pvk_result pvk_vblank(pvk_context *ctx)
{
    ENTER(ctx, PVK_ERROR_BUSY);
    CHECK_CTX(ctx);
    pvk_result r = pvk_lcd_vblank(ctx);
    /* after the scan-out recorded the framebuffers it read */
    if (!r && ctx->trace)
        pvk_trace_vblank(ctx);
    return r;
}

pvk_result pvk_frame_size(pvk_context *ctx, pvk_screen screen, uint32_t *width, uint32_t *height)
{
    ENTER(ctx, PVK_ERROR_BUSY);
    if (!ctx || !width || !height || (unsigned)screen >= PVK_SCREEN_COUNT)
        return PVK_ERROR_INVALID_ARGUMENT;
    pvk_lcd_frame_size(ctx, screen, width, height);
    return PVK_SUCCESS;
}

pvk_result pvk_frame_read(pvk_context *ctx, pvk_screen screen, void *rgba, size_t stride)
{
    ENTER(ctx, PVK_ERROR_BUSY);
    if (!ctx || !rgba || (unsigned)screen >= PVK_SCREEN_COUNT)
        return PVK_ERROR_INVALID_ARGUMENT;
    return pvk_lcd_frame_read(ctx, screen, rgba, stride);
}

pvk_result pvk_frame_hash(pvk_context *ctx, uint64_t *hash)
{
    ENTER(ctx, PVK_ERROR_BUSY);
    if (!ctx || !hash)
        return PVK_ERROR_INVALID_ARGUMENT;
    return pvk_lcd_frame_hash(ctx, hash);
}

pvk_result pvk_set_output(pvk_context *ctx, const pvk_output_config *config)
{
    ENTER(ctx, PVK_ERROR_BUSY);
    if (!ctx)
        return PVK_ERROR_INVALID_ARGUMENT;
    return pvk_lcd_set_output(ctx, config);
}

pvk_result pvk_set_scale(pvk_context *ctx, uint32_t scale)
{
    ENTER(ctx, PVK_ERROR_BUSY);
    if (!ctx)
        return PVK_ERROR_INVALID_ARGUMENT;
    if (ctx->gpu.sticky)
        return ctx->gpu.sticky;
    /* surfaces follow lazily: pvk_surface_get keys them by ctx->vram.scale */
    return pvk_scale_set(ctx, scale, "pvk_set_scale") ? PVK_SUCCESS : PVK_ERROR_INVALID_ARGUMENT;
}

uint32_t pvk_get_scale(const pvk_context *ctx)
{
    return ctx ? ctx->vram.scale : 1;
}

pvk_result pvk_frame_acquire(pvk_context *ctx, pvk_frame *frame)
{
    ENTER(ctx, PVK_ERROR_BUSY);
    if (!ctx || !frame)
        return PVK_ERROR_INVALID_ARGUMENT;
    return pvk_lcd_frame_acquire(ctx, frame);
}

pvk_result pvk_frame_release(pvk_context *ctx, const pvk_frame *frame, VkSemaphore done, uint64_t done_value)
{
    ENTER(ctx, PVK_ERROR_BUSY);
    if (!ctx || !frame)
        return PVK_ERROR_INVALID_ARGUMENT;
    return pvk_lcd_frame_release(ctx, frame, done, done_value);
}

/* ---- save states ---- */

pvk_result pvk_state_save(pvk_context *ctx, void *buf, size_t capacity, size_t *size)
{
    ENTER(ctx, PVK_ERROR_BUSY);
    CHECK_CTX(ctx);
    if (!size)
        return PVK_ERROR_INVALID_ARGUMENT;
    return pvk_state_write(ctx, buf, capacity, size);
}

pvk_result pvk_state_load(pvk_context *ctx, const void *buf, size_t size)
{
    ENTER(ctx, PVK_ERROR_BUSY);
    CHECK_CTX(ctx);
    if (!buf && size)
        return PVK_ERROR_INVALID_ARGUMENT;
    if (ctx->trace) { /* a trace replays from its own snapshot and pages */
        pvk_log(&ctx->gpu, PVK_LOG_ERROR, "pvk_state_load: not while a trace is recorded (pvk_trace_end first)");
        return PVK_ERROR_UNSUPPORTED;
    }
    return pvk_state_read(ctx, buf ? buf : "", size);
}

/* ---- traces ---- */

pvk_result pvk_trace_begin(pvk_context *ctx, const char *path)
{
    ENTER(ctx, PVK_ERROR_BUSY);
    CHECK_CTX(ctx);
    if (!path)
        return PVK_ERROR_INVALID_ARGUMENT;
    return pvk_trace_start(ctx, path);
}

pvk_result pvk_trace_end(pvk_context *ctx)
{
    ENTER(ctx, PVK_ERROR_BUSY);
    if (!ctx || !ctx->trace)
        return PVK_ERROR_INVALID_ARGUMENT;
    return pvk_trace_stop(ctx);
}

pvk_result pvk_trace_replay(pvk_context *ctx, const char *path, pvk_frame_fn on_frame, void *user)
{
    ENTER(ctx, PVK_ERROR_BUSY);
    CHECK_CTX(ctx);
    if (!path)
        return PVK_ERROR_INVALID_ARGUMENT;
    return pvk_trace_play(ctx, path, 0, NULL, 0, on_frame, user);
}

pvk_result pvk_trace_replay_from(pvk_context *ctx, const char *path, uint32_t frame, const void *state,
                                 size_t state_size, pvk_frame_fn on_frame, void *user)
{
    ENTER(ctx, PVK_ERROR_BUSY);
    CHECK_CTX(ctx);
    if (!path || !state)
        return PVK_ERROR_INVALID_ARGUMENT;
    return pvk_trace_play(ctx, path, frame, state, state_size, on_frame, user);
}

pvk_result pvk_citrace_replay(pvk_context *ctx, const char *path, pvk_frame_fn on_frame, void *user)
{
    ENTER(ctx, PVK_ERROR_BUSY);
    CHECK_CTX(ctx);
    if (!path)
        return PVK_ERROR_INVALID_ARGUMENT;
    return pvk_citrace_play_file(ctx, path, on_frame, user);
}

pvk_result pvk_citrace_replay_memory(pvk_context *ctx, const void *data, size_t size, pvk_frame_fn on_frame,
                                     void *user)
{
    ENTER(ctx, PVK_ERROR_BUSY);
    CHECK_CTX(ctx);
    if (!data && size)
        return PVK_ERROR_INVALID_ARGUMENT;
    return pvk_citrace_play(ctx, data, size, on_frame, user);
}

pvk_result pvk_trace_frames(const char *path, uint32_t *frames)
{
    if (!path || !frames)
        return PVK_ERROR_INVALID_ARGUMENT;
    *frames = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return PVK_ERROR_IO;
    char magic[4] = {0};
    bool citrace = fread(magic, 1, 4, f) == 4 && !memcmp(magic, "CiTr", 4);
    pvk_result r = PVK_SUCCESS;
    if (citrace) {
        /* the header, then the element stream: read the file whole, as a replay does */
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        uint8_t *buf = n > 0 && (unsigned long)n < (1ul << 31) ? malloc((size_t)n) : NULL;
        fseek(f, 0, SEEK_SET);
        if (!buf)
            r = n > 0 ? PVK_ERROR_OUT_OF_MEMORY : PVK_ERROR_BAD_DATA;
        else if (fread(buf, 1, (size_t)n, f) != (size_t)n)
            r = PVK_ERROR_IO;
        else
            r = pvk_citrace_count_frames(buf, (size_t)n, frames);
        free(buf);
    }
    fclose(f);
    return citrace ? r : pvk_trace_count_frames(path, frames);
}
