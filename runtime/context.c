/* The public context API: creation in the fixed order device -> compute ->
 * guest memory -> registers -> LCD, teardown in reverse. */
#include <stdlib.h>
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

pvk_result pvk_context_create(const pvk_config *config, pvk_context **out)
{
    if (!out)
        return PVK_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    pvk_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return PVK_ERROR_OUT_OF_MEMORY;
    if (config)
        ctx->cfg = *config;
    ctx->debug = pvk_debug_flags_from_env();
    ctx->log_level = ctx->cfg.log_level ? ctx->cfg.log_level : PVK_LOG_WARN;
    if (level_from_env())
        ctx->log_level = level_from_env();
    if (ctx->debug & PVK_DEBUG_VERBOSE)
        ctx->log_level = PVK_LOG_DEBUG;
    pvk_result r;
    if ((r = pvk_device_init(ctx)) || (r = pvk_compute_init(ctx)) || (r = pvk_guest_init(ctx)))
        goto fail;
    pvk_mmio_reset(ctx);
    pvk_pica_reset(ctx);
    if ((r = pvk_lcd_init(ctx)) || (r = pvk_draw_init(ctx)))
        goto fail;
    *out = ctx;
    return PVK_SUCCESS;
fail:
    pvk_log(ctx, PVK_LOG_ERROR, "context creation failed: %s", pvk_result_string(r));
    pvk_context_destroy(ctx);
    return r;
}

void pvk_context_destroy(pvk_context *ctx)
{
    if (!ctx)
        return;
    if (ctx->device)
        pvk_retire(ctx, true);
    pvk_draw_destroy(ctx);
    pvk_lcd_destroy(ctx);
    pvk_guest_destroy(ctx);
    pvk_compute_destroy(ctx);
    pvk_device_destroy(ctx);
    free(ctx);
}

pvk_result pvk_context_status(const pvk_context *ctx)
{
    return ctx ? ctx->sticky : PVK_ERROR_INVALID_ARGUMENT;
}

const char *pvk_device_name(const pvk_context *ctx)
{
    return ctx ? ctx->device_name : "";
}

pvk_result pvk_get_features(const pvk_context *ctx, pvk_features *out)
{
    if (!ctx || !out)
        return PVK_ERROR_INVALID_ARGUMENT;
    *out = ctx->features;
    return PVK_SUCCESS;
}

pvk_result pvk_get_stats(const pvk_context *ctx, pvk_stats *out)
{
    if (!ctx || !out)
        return PVK_ERROR_INVALID_ARGUMENT;
    *out = ctx->stats;
    return PVK_SUCCESS;
}

pvk_result pvk_poll(pvk_context *ctx)
{
    return ctx ? pvk_retire(ctx, false) : PVK_ERROR_INVALID_ARGUMENT;
}

pvk_result pvk_wait_idle(pvk_context *ctx)
{
    return ctx ? pvk_retire(ctx, true) : PVK_ERROR_INVALID_ARGUMENT;
}
