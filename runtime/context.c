/* The context: creation in the fixed order device -> compute -> guest memory
 * -> surfaces -> textures -> samplers -> registers -> LCD -> draws, teardown
 * in reverse; the translator's
 * environment (how the PICA reaches guest memory, the log, IRQs and the draw
 * path); and the register bus that routes a GPU register access to the
 * external file (vram/) or the PICA's (translator/).  Public entry points are
 * in api.c. */
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <string.h>
#include <strings.h>

#include "runtime/runtime.h"

static pvk_log_level level_from_env(void)
{
    const char *e = getenv("PVK_LOG_LEVEL");
    if (!e)
        return PVK_LOG_DEFAULT;
    static const char *names[] = {"", "error", "warn", "info", "debug"};
    for (int i = 1; i <= PVK_LOG_DEBUG; i++)
        if (!strcasecmp(e, names[i]))
            return (pvk_log_level)i;
    return PVK_LOG_DEFAULT;
}

/* ---- the translator's environment ---- */

static void env_report(void *user, pvk_pica_report kind, pvk_log_level level, uint32_t count, const char *msg)
{
    pvk_context *ctx = user;
    switch (kind) {
    case PVK_PICA_OUT_OF_RANGE: /* also bad input */
        ctx->gpu.stats.out_of_range += count;
        ctx->gpu.stats.bad_input += count;
        break;
    case PVK_PICA_BAD_INPUT: ctx->gpu.stats.bad_input += count; break;
    case PVK_PICA_UNSUPPORTED: ctx->gpu.stats.unsupported += count; break;
    case PVK_PICA_NOTE: break;
    }
    if (msg)
        pvk_log(&ctx->gpu, level, "%s", msg);
}

static const void *env_guest_read(void *user, uint32_t paddr, uint32_t len)
{
    pvk_context *ctx = user;
    return pvk_guest_cpu_read(&ctx->vram, paddr, len);
}

static void env_p3d(void *user, bool active, bool raise)
{
    pvk_context *ctx = user;
    pvk_mmio_set_p3d(&ctx->vram, active);
    if (raise)
        pvk_raise_irq(&ctx->gpu, PVK_IRQ_P3D);
}

static pvk_result env_draw(void *user, const pvk_draw_packet *packet)
{
    return pvk_draw_submit(user, packet);
}

/* RENDERBUFFER_FLUSH: the guest wants its render targets in memory (a
 * display transfer or the CPU reads them next).  INVALIDATE drops the
 * hardware's tile cache; picavk learns of guest writes from
 * pvk_guest_written, transfers and fills, so it has nothing to drop.
 * TEXUNIT_CONFIG's clear-texture-cache bit drops every cached texture: a
 * host that wrote texture bytes without pvk_guest_written gets them decoded
 * again, as the hardware would read them again. */
static pvk_result env_cache(void *user, pvk_pica_cache_op op)
{
    pvk_context *ctx = user;
    if (op == PVK_PICA_TEXTURE_CACHE_CLEAR)
        pvk_texture_cache_clear(&ctx->vram);
    if (op != PVK_PICA_FRAMEBUFFER_FLUSH)
        return PVK_SUCCESS;
    pvk_fb_desc fb;
    pvk_fb_desc_get(&ctx->pica, &fb);
    uint32_t px = fb.width * fb.height;
    pvk_result r = PVK_SUCCESS;
    if (px && fb.color_bpp)
        r = pvk_guest_sync_for_read(&ctx->vram, fb.color_addr, px * fb.color_bpp);
    if (!r && px && fb.depth_bpp)
        r = pvk_guest_sync_for_read(&ctx->vram, fb.depth_addr, px * fb.depth_bpp);
    return r;
}

static void pica_init(pvk_context *ctx)
{
    pvk_pica_env env = {
        .user = ctx,
        .log_level = ctx->gpu.log_level,
        .report = env_report,
        .guest_read = env_guest_read,
        .p3d = env_p3d,
        .draw = env_draw,
        .cache = env_cache,
        .gpu_vs = !(ctx->gpu.debug & PVK_DEBUG_CPU_VS),
    };
    pvk_pica_reset(&ctx->pica);
    pvk_pica_set_env(&ctx->pica, &env);
}

/* pvk_config.texture_dump_dir, else PVK_TEXTURE_DUMP; NULL or "": none. */
static const char *dump_dir(const pvk_context *ctx)
{
    return ctx->gpu.cfg.texture_dump_dir ? ctx->gpu.cfg.texture_dump_dir : getenv("PVK_TEXTURE_DUMP");
}

/* pvk_config.texture_pack_dir, else PVK_TEXTURE_PACK; NULL or "": none. */
static const char *pack_dir(const pvk_context *ctx)
{
    return ctx->gpu.cfg.texture_pack_dir ? ctx->gpu.cfg.texture_pack_dir : getenv("PVK_TEXTURE_PACK");
}

/* pvk_config.texture_pack_sync, or PVK_TEXTURE_PACK_SYNC=1. */
static bool pack_sync(const pvk_context *ctx)
{
    const char *e = getenv("PVK_TEXTURE_PACK_SYNC");
    return ctx->gpu.cfg.texture_pack_sync || (e && !strcmp(e, "1"));
}

pvk_result pvk_ctx_create(const pvk_config *config, pvk_context **out)
{
    *out = NULL;
    pvk_context *ctx = calloc(1, sizeof *ctx);
    if (ctx)
        ctx->vram.gpu = &ctx->gpu, ctx->gpu.handle = ctx; /* vram/ reaches the Vulkan layer only through vram.gpu */
    if (!ctx)
        return PVK_ERROR_OUT_OF_MEMORY;
    if (config)
        ctx->gpu.cfg = *config;
    ctx->gpu.debug = pvk_debug_flags_from_env();
    ctx->gpu.log_level = ctx->gpu.cfg.log_level ? ctx->gpu.cfg.log_level : PVK_LOG_WARN;
    if (level_from_env())
        ctx->gpu.log_level = level_from_env();
    if (ctx->gpu.debug & PVK_DEBUG_VERBOSE)
        ctx->gpu.log_level = PVK_LOG_DEBUG;
    if ((ctx->gpu.debug & PVK_DEBUG_SHADERS) && ctx->gpu.log_level < PVK_LOG_INFO)
        ctx->gpu.log_level = PVK_LOG_INFO; /* the dumps are logged at info: say where they went */
    pvk_result r;
    const char *es = getenv("PVK_SCALE"); /* tools: overrides the config */
    if (es && *es) {
        char *end;
        unsigned long v = strtoul(es, &end, 10);
        if (*end || v == 0 || v > PVK_MAX_SCALE) {
            pvk_log(&ctx->gpu, PVK_LOG_ERROR, "PVK_SCALE=%s: the resolution scale is an integer 1..%u", es,
                    PVK_MAX_SCALE);
            free(ctx);
            return PVK_ERROR_INVALID_ARGUMENT;
        }
        ctx->gpu.cfg.scale = (uint32_t)v;
    }
    if (!pvk_scale_set(ctx, ctx->gpu.cfg.scale, "pvk_config.scale")) {
        free(ctx);
        return PVK_ERROR_INVALID_ARGUMENT;
    }
    uint32_t budget = ctx->gpu.cfg.memory_budget_mb;
    const char *eb = getenv("PVK_MEMORY_BUDGET_MB"); /* the host's setting wins */
    if (!budget && eb && *eb) {
        char *end;
        unsigned long v = strtoul(eb, &end, 10);
        if (*end || v == 0 || v > (1ul << 20)) {
            pvk_log(&ctx->gpu, PVK_LOG_ERROR, "PVK_MEMORY_BUDGET_MB=%s: the memory budget is a number of MiB", eb);
            free(ctx);
            return PVK_ERROR_INVALID_ARGUMENT;
        }
        budget = (uint32_t)v;
    }
    if (!budget)
        budget = PVK_DEFAULT_MEMORY_BUDGET_MB;
    if (budget < PVK_MIN_MEMORY_BUDGET_MB) {
        pvk_log(&ctx->gpu, PVK_LOG_WARN, "memory budget %u MiB: %u MiB is the least it works in; using that", budget,
                PVK_MIN_MEMORY_BUDGET_MB);
        budget = PVK_MIN_MEMORY_BUDGET_MB;
    }
    ctx->gpu.cfg.memory_budget_mb = budget; /* pvk_device_init splits it */
    ctx->gpu.cfg.texture_pack_dir = pack_dir(ctx); /* a pack takes a share of it */
    /* Creation reads volk's globals throughout (instance-level calls); another
     * thread's creation must not reload them meanwhile. */
    pvk_vulkan_global_lock();
    if ((r = pvk_device_init(&ctx->gpu)) || (r = pvk_compute_init(&ctx->gpu)) || (r = pvk_guest_init(&ctx->vram)) ||
        (r = pvk_surface_init(&ctx->vram)) || (r = pvk_textures_init(&ctx->vram)) || (r = pvk_samplers_init(ctx)) ||
        (r = pvk_dump_init(&ctx->vram, dump_dir(ctx))) || (r = pvk_pack_init(&ctx->vram, ctx->gpu.cfg.texture_pack_dir, pack_sync(ctx))) ||
        (r = pvk_filter_init(&ctx->vram, ctx->gpu.cfg.texture_filter ? ctx->gpu.cfg.texture_filter
                                                                      : getenv("PVK_TEXTURE_FILTER"))))
        goto fail;
    pvk_profile_init(ctx);
    pvk_mmio_reset(&ctx->vram);
    pica_init(ctx);
    if ((r = pvk_lcd_init(ctx)) || (r = pvk_pipelines_init(ctx)) || (r = pvk_draw_init(ctx)))
        goto fail;
    pvk_uber_kinds_prebuild(ctx);
    pvk_vulkan_global_unlock();
    *out = ctx;
    return PVK_SUCCESS;
fail:
    pvk_vulkan_global_unlock();
    pvk_log(&ctx->gpu, PVK_LOG_ERROR, "context creation failed: %s", pvk_result_name(r));
    pvk_ctx_destroy(ctx);
    return r;
}

void pvk_ctx_destroy(pvk_context *ctx)
{
    if (ctx->gpu.device)
        pvk_gpu_idle(&ctx->gpu);
    pvk_draw_destroy(ctx);
    pvk_gs_destroy(ctx);
    pvk_fragdata_destroy(ctx);
    pvk_pipelines_destroy(ctx);
    pvk_lcd_destroy(ctx);
    pvk_samplers_destroy(ctx);
    pvk_textures_destroy(&ctx->vram);
    pvk_dump_destroy(&ctx->vram); /* the GPU is idle: every read-back has retired */
    pvk_pack_destroy(&ctx->vram);
    pvk_filter_destroy(&ctx->vram);
    pvk_surface_destroy(&ctx->vram);
    pvk_guest_destroy(&ctx->vram);
    pvk_compute_destroy(&ctx->gpu);
    pvk_vulkan_global_lock(); /* instance-level calls through volk's globals */
    pvk_device_destroy(&ctx->gpu);
    pvk_vulkan_global_unlock();
    free(ctx);
#ifdef __GLIBC__
    /* The heap the context's caches and the driver's compiles freed goes
     * back to the system: glibc keeps freed memory in its arenas, and a host
     * that makes contexts one after another would keep the last one's peak
     * (bench/memory --cycles: 72 MB more after 10 contexts without this,
     * 19 MB with it). */
    malloc_trim(0);
#endif
}

bool pvk_scale_set(pvk_context *ctx, uint32_t scale, const char *what)
{
    if (scale > PVK_MAX_SCALE) {
        pvk_log(&ctx->gpu, PVK_LOG_ERROR, "%s: resolution scale %u is outside 1..%u", what, scale, PVK_MAX_SCALE);
        return false;
    }
    ctx->vram.scale = scale ? scale : 1;
    return true;
}

/* ---- the register bus ---- */

bool pvk_ctx_mmio_check(pvk_context *ctx, uint32_t paddr, const char *what)
{
    if (paddr < PVK_MMIO_BASE || paddr - PVK_MMIO_BASE >= PVK_MMIO_SIZE || (paddr & 3)) {
        pvk_bad_input(&ctx->gpu, "%s: 0x%08X is not an aligned GPU register address (0x10400000-0x10401FFF)", what,
                      paddr);
        return false;
    }
    return true;
}

uint32_t pvk_ctx_mmio_read(pvk_context *ctx, uint32_t paddr)
{
    /* status bits reflect finished work; a poll that fails is logged and a
     * lost device sticks, so the read goes on with what is known */
    (void)pvk_retire(&ctx->gpu, false);
    uint32_t off = paddr - PVK_MMIO_BASE;
    if (off >= 0x1000)
        return pvk_pica_read(&ctx->pica, (off - 0x1000) / 4);
    return pvk_mmio_ext_read(&ctx->vram, off);
}

pvk_result pvk_ctx_mmio_write(pvk_context *ctx, uint32_t paddr, uint32_t value)
{
    pvk_pica_new_call(&ctx->pica); /* a guest call: a fresh shader work budget */
    uint32_t off = paddr - PVK_MMIO_BASE;
    if (off >= 0x1000)
        return pvk_pica_write(&ctx->pica, (off - 0x1000) / 4, value);
    return pvk_mmio_ext_write(&ctx->vram, off, value);
}
