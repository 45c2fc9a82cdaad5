/* The ubershader pipelines' kinds (fixed-function state, depth format,
 * render pass, the ubershader's key) a context drew, remembered in the disk
 * cache so that the next context on this device builds them at its start
 * on the compile threads: the first new state of a known kind then finds
 * its ubershader ready instead of waiting for it (pvk_stats.pipeline_waits).
 *
 * The file <dir>/ubershaders-<pipeline cache UUID>-<driver version>.bin:
 * a header (magic, format, picavk's version, kind size, count), the kinds,
 * then XXH3-64 of all before.  A file of another version or size, a wrong
 * checksum, or a kind this device would not draw (another device profile,
 * a depth format it cannot attach) is ignored and rewritten at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "runtime/pipeline.h"

#define KINDS_MAGIC "PVKUBERK"
#define KINDS_FORMAT 1u

typedef struct kinds_header {
    char magic[8];
    uint32_t format, kind_size, count, pad;
    uint64_t version; /* XXH3 of pvk_version(): the generator's keys may change between versions */
} kinds_header;

static uint64_t version_hash(void)
{
    const char *v = pvk_version();
    return XXH3_64bits(v, strlen(v));
}

void pvk_uber_kind_note(pvk_context *ctx, const key_pair *k, const pvk_fs_key *fs)
{
    struct pvk_pipelines *pl = ctx->pipelines;
    pvk_uber_kind u;
    memset(&u, 0, sizeof u);
    u.pipe = k->pipe;
    u.depth_format = k->depth_format;
    u.render_pass = k->render_pass;
    u.fs = *fs;
    for (uint32_t i = 0; i < pl->n_kinds; i++)
        if (!memcmp(&pl->kinds[i], &u, sizeof u))
            return;
    if (pl->n_kinds == UBER_KINDS)
        return; /* the first ones drawn stay */
    pl->kinds[pl->n_kinds++] = u;
    pl->kinds_changed = true;
}

void pvk_uber_kinds_save(pvk_context *ctx)
{
    struct pvk_pipelines *pl = ctx->pipelines;
    if (!pl->dir[0] || !pl->kinds_changed)
        return;
    size_t body = sizeof(kinds_header) + pl->n_kinds * sizeof(pvk_uber_kind);
    uint8_t *data = malloc(body + 8);
    if (!data)
        return; /* nothing remembered: the next context builds them as draws ask */
    kinds_header h = {.format = KINDS_FORMAT, .kind_size = sizeof(pvk_uber_kind), .count = pl->n_kinds,
                      .version = version_hash()};
    memcpy(h.magic, KINDS_MAGIC, 8);
    memcpy(data, &h, sizeof h);
    memcpy(data + sizeof h, pl->kinds, pl->n_kinds * sizeof(pvk_uber_kind));
    uint64_t sum = XXH3_64bits(data, body);
    memcpy(data + body, &sum, 8);
    char path[600];
    pvk_disk_device_path(ctx, "ubershaders", path, sizeof path);
    pvk_build b = {.ctx = ctx};
    pvk_disk_write(&b, path, data, body + 8);
    pvk_build_flush(&b);
    free(data);
}

/* A remembered kind this context would draw: an ubershader key as
 * pvk_fs_uber_key makes them, keys as this device's profile resolves them,
 * a depth format the device attaches, a logic op it has. */
static bool kind_usable(pvk_context *ctx, const pvk_uber_kind *u)
{
    pvk_fs_key canon;
    pvk_fs_uber_key(&u->fs, &canon);
    canon.uber = u->fs.uber; /* the stage count is the state's, gone from the key */
    if (u->fs.uber == 0 || memcmp(&canon, &u->fs, sizeof canon) || u->render_pass > 1)
        return false;
    if (u->render_pass && !ctx->profile.attachment_read)
        return false;
    if (!u->pipe.blend && u->pipe.logic_op != 3 && !ctx->gpu.features.logic_op)
        return false; /* drawn as Copy here, which its first draw reports (runtime/pipeline.c) */
    pvk_pipe_key pipe;
    pvk_fs_key fs;
    (void)pvk_keys_resolve(&ctx->profile, u->render_pass, &u->pipe, &u->fs, &pipe, &fs);
    if (memcmp(&pipe, &u->pipe, sizeof pipe) || memcmp(&fs, &u->fs, sizeof fs))
        return false;
    if (u->depth_format == VK_FORMAT_UNDEFINED)
        return true;
    if (u->depth_format != VK_FORMAT_D24_UNORM_S8_UINT && u->depth_format != VK_FORMAT_D32_SFLOAT_S8_UINT &&
        u->depth_format != VK_FORMAT_D16_UNORM && u->depth_format != VK_FORMAT_D32_SFLOAT)
        return false;
    VkFormatProperties fp;
    vkGetPhysicalDeviceFormatProperties(ctx->gpu.phys, (VkFormat)u->depth_format, &fp);
    return (fp.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT) != 0;
}

void pvk_uber_kinds_prebuild(pvk_context *ctx)
{
    struct pvk_pipelines *pl = ctx->pipelines;
    if (!pl->dir[0] || !pvk_pipelines_async(ctx) || (ctx->gpu.debug & PVK_DEBUG_UBERSHADER))
        return; /* without compile threads no draw takes the ubershader while it waits */
    char path[600];
    pvk_disk_device_path(ctx, "ubershaders", path, sizeof path);
    size_t size = 0;
    uint8_t *data = pvk_disk_read(path, &size);
    if (!data)
        return; /* none yet */
    kinds_header h;
    uint64_t sum;
    bool ok = size >= sizeof h + 8;
    if (ok) {
        memcpy(&h, data, sizeof h);
        memcpy(&sum, data + size - 8, 8);
        ok = !memcmp(h.magic, KINDS_MAGIC, 8) && h.format == KINDS_FORMAT &&
             h.kind_size == sizeof(pvk_uber_kind) && h.count <= UBER_KINDS && h.version == version_hash() &&
             size == sizeof h + (size_t)h.count * sizeof(pvk_uber_kind) + 8 && XXH3_64bits(data, size - 8) == sum;
    }
    if (!ok) {
        pvk_log(&ctx->gpu, PVK_LOG_INFO, "ubershader kinds %s: another version, or damaged; ignored", path);
        pl->kinds_changed = true; /* rewritten at the end */
        free(data);
        return;
    }
    pvk_disk_touch(path);
    uint32_t queued = 0;
    for (uint32_t i = 0; i < h.count; i++) {
        pvk_uber_kind u;
        memcpy(&u, data + sizeof h + (size_t)i * sizeof u, sizeof u);
        if (!kind_usable(ctx, &u))
            continue;
        if (pvk_pipeline_prebuild(ctx, &u))
            queued++;
    }
    pl->kinds_changed = queued != h.count; /* the file as it was, or without the kinds not drawn here */
    ctx->gpu.stats.ubershader_prebuilds += queued;
    pvk_log(&ctx->gpu, PVK_LOG_DEBUG, "ubershader kinds: %u of %u from %s building", queued, h.count, path);
    free(data);
}
