/* Draw pipelines by key: the translator's pipeline key (output merger state)
 * and fragment-shader key (TEV, alpha test) select a VkPipeline; the fragment
 * shader is generated GLSL (translator/glsl_fs.c) compiled with glslang at
 * first use.  One open-addressing table keyed by XXH3 of the two keys (with
 * the depth format and whether the pipeline is for the attachment-read
 * render pass or dynamic rendering); the last pipeline handed out is checked
 * first with memcmp, no hash.  The table holds at most TABLE_LIVE pipelines:
 * past that the least recently used one goes, destroyed once the timeline
 * reaches the value of the last submission that used it (never waited for:
 * the open draw batch may be recording with it).  The layout has push
 * constants and set 0 of push descriptors: texture units 0-2 (bindings 0-2)
 * and the colour attachment as input attachment (binding 4).  On the
 * attachment-read path the render passes and imageless framebuffers live
 * here too, cached for the context.
 *
 * On disk (pvk_config.cache_dir, "" for none; unset: PVK_CACHE_DIR, else
 * $XDG_CACHE_HOME/picavk, else ~/.cache/picavk):
 * the VkPipelineCache, one file per device (pipeline-cache UUID) and driver
 * version, saved when the context ends; and each compiled fragment shader as
 * fs-<XXH3 of its GLSL>.spv, so a second run compiles nothing.  Anything
 * unreadable or malformed there is ignored with a warning.
 *
 * PVK_DEBUG=shaders dumps every fragment module as SPIRV-Cross reads it back
 * (shaders/<hash>.frag.glsl, the hash of the .spv name) beside the GLSL it
 * was generated from (<hash>.generated.frag.glsl).  Debug builds (and
 * PVK_DEBUG=shaders) reflect every module and refuse a pipeline whose shaders
 * do not fit the layout made here: generated code and this layout drift apart
 * silently otherwise (push constants read garbage, an input reads 0). */
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "runtime/runtime.h"
#include "shaders/shaders.h"

#ifdef NDEBUG
#define CHECK_ALWAYS false
#else
#define CHECK_ALWAYS true
#endif

/* 2048 slots for at most 1024 pipelines (far more distinct states than a
 * game frame uses): the table stays at most half full, so probes are short */
#define TABLE_BITS 11
#define TABLE_LIVE 1024u

typedef struct key_pair {
    pvk_pipe_key pipe;
    pvk_fs_key fs;
    uint32_t depth_format; /* VkFormat of the depth attachment (UNDEFINED: none; a depth-stencil format: stencil too) */
    uint32_t render_pass;  /* 1: for the attachment-read render pass (subpass 0), 0: dynamic rendering */
    uint32_t program;      /* 1: a generated vertex stage for `vs`; 0: shaders/draw.vert (`vs` zero) */
    pvk_vs_key vs;
} key_pair;

/* Generated vertex modules by key (a refused key is remembered too, so its
 * draws go to the CPU without translating again). */
#define VS_MODULES 64
typedef struct vs_module {
    pvk_vs_key key;
    VkShaderModule module;  /* VK_NULL_HANDLE: refused */
} vs_module;

/* The attachment-read path's render passes, by depth format and depth load
 * op, and imageless framebuffers, by those and the size. */
#define MAX_PASSES 8
#define MAX_FRAMEBUFFERS 32
typedef struct pass_entry {
    VkFormat depth;
    bool load;
    VkRenderPass pass;
} pass_entry;
typedef struct fb_entry {
    VkFormat depth;
    bool load;
    uint32_t w, h;
    VkFramebuffer fb;
} fb_entry;

typedef struct entry {
    key_pair key;
    uint64_t hash;
    VkPipeline pipeline;
    uint64_t value; /* timeline value of the last submission recorded with it */
    uint64_t tick; /* when it was last handed out: the smallest is evicted */
} entry;

/* An evicted pipeline, destroyed once the timeline reaches `value`. */
typedef struct retired_pipeline {
    VkPipeline pipeline;
    uint64_t value;
} retired_pipeline;

/* Fragment modules by key, so that a new pipeline for a key seen before
 * (another blend, depth or cull state) skips GLSL generation and SPIR-V.
 * A pipeline keeps what it needs of a module once vkCreateGraphicsPipelines
 * returns, so evicting one destroys it at once. */
#define FS_MODULES 64u
typedef struct fs_module {
    pvk_fs_key key;
    uint64_t hash; /* XXH3 of key, 0: an empty slot */
    uint64_t used; /* a counter value, for LRU */
    VkShaderModule module;
} fs_module;

struct pvk_pipelines {
    fs_module fsm[FS_MODULES];
    uint64_t fsm_clock;
    char dir[512];              /* the disk cache directory, "" when there is none */
    uint64_t disk_bytes;        /* its cache files' size: scanned once, then kept by writes */
    uint64_t disk_cap;          /* pvk_config.cache_max_bytes or the default */
    VkPipelineCache cache;
    VkPipelineLayout layout;
    VkDescriptorSetLayout set_layout; /* set 0: push descriptors (PVK_DRAW_BINDING_DST) */
    VkPushConstantRange ranges[2]; /* the layout's, for the module check */
    pvk_layout_binding bindings[8]; /* ... and its descriptors */
    uint32_t n_bindings;
    vs_module vsm[VS_MODULES];
    uint32_t n_vsm;
    bool attrib_ok[4][4];       /* the device reads pvk_vk_attrib_format(type, comps) as vertex input */
    pass_entry passes[MAX_PASSES];
    uint32_t n_passes;
    fb_entry fbs[MAX_FRAMEBUFFERS];
    uint32_t n_fbs;
    VkShaderModule vertex;
    VkShaderModule quat_geom;   /* shaders/draw_quat.geom, VK_NULL_HANDLE without geometry shaders */
    entry table[1u << TABLE_BITS];
    uint32_t count;
    entry *last;
    uint64_t tick;
    retired_pipeline *retired; /* evicted, maybe still in use by the GPU */
    uint32_t n_retired, cap_retired;
    uint64_t created;
    bool logic_warned, dump_warned, evict_logged;
    bool check;                 /* reflect modules against the layout */
    bool vertex_fits;           /* the vertex shader passed that check */
    pvk_spirv_info vertex_info; /* its outputs: what fragment inputs may read */
};

/* mkdir -p of a path whose parent's parent exists (~/.cache/picavk at most) */
static bool make_dir(const char *path)
{
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s", path);
    char *slash = strrchr(tmp, '/');
    if (slash && slash != tmp) {
        *slash = 0;
        if (mkdir(tmp, 0755) && errno != EEXIST)
            return false;
    }
    return !mkdir(path, 0755) || errno == EEXIST;
}

static void find_dir(pvk_context *ctx, struct pvk_pipelines *pl)
{
    const char *cfg = ctx->gpu.cfg.cache_dir, *env = getenv("PVK_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"),
               *home = getenv("HOME");
    /* the host's setting wins over the environment; "" turns the disk cache off */
    if (cfg) {
        if (!*cfg)
            return;
        snprintf(pl->dir, sizeof pl->dir, "%s", cfg);
    } else if (env && *env)
        snprintf(pl->dir, sizeof pl->dir, "%s", env);
    else if (xdg && *xdg)
        snprintf(pl->dir, sizeof pl->dir, "%s/picavk", xdg);
    else if (home && *home)
        snprintf(pl->dir, sizeof pl->dir, "%s/.cache/picavk", home);
    if (pl->dir[0] && !make_dir(pl->dir)) {
        pvk_log(&ctx->gpu, PVK_LOG_WARN, "shader cache: cannot create %s; caching in memory only", pl->dir);
        pl->dir[0] = 0;
    }
}

/* A file of the disk cache (not a temporary, not the PVK_DEBUG=shaders dumps). */
static bool cache_file(const char *name)
{
    size_t n = strlen(name);
    return (!strncmp(name, "fs-", 3) || !strncmp(name, "vs-", 3) || !strncmp(name, "cs-", 3) ||
            !strncmp(name, "pipelines-", 10)) &&
           n > 4 && (!strcmp(name + n - 4, ".spv") || !strcmp(name + n - 4, ".bin"));
}

typedef struct disk_entry {
    struct timespec used; /* mtime: set on write and on every hit */
    uint64_t size;
    char name[96];
} disk_entry;

static int older(const void *a, const void *b)
{
    const struct timespec *x = &((const disk_entry *)a)->used, *y = &((const disk_entry *)b)->used;
    return x->tv_sec != y->tv_sec ? (x->tv_sec < y->tv_sec ? -1 : 1)
           : x->tv_nsec != y->tv_nsec ? (x->tv_nsec < y->tv_nsec ? -1 : 1)
                                      : 0;
}

/* Sums the cache files' sizes; over the cap, removes the least recently used
 * until three quarters of it are left (never `keep`, the file just written),
 * so that the next scan is many writes away.  Runs at context creation and
 * when a write crosses the cap, never per compile. */
static void disk_scan(pvk_context *ctx, struct pvk_pipelines *pl, const char *keep)
{
    DIR *d = opendir(pl->dir);
    if (!d)
        return;
    disk_entry *e = NULL;
    size_t n = 0, cap = 0;
    uint64_t total = 0;
    char path[sizeof pl->dir + 260];
    for (struct dirent *de; (de = readdir(d));) {
        struct stat st;
        if (!cache_file(de->d_name) || strlen(de->d_name) >= sizeof e->name)
            continue;
        snprintf(path, sizeof path, "%s/%s", pl->dir, de->d_name);
        if (stat(path, &st) || !S_ISREG(st.st_mode))
            continue;
        if (n == cap) {
            disk_entry *g = realloc(e, (cap = cap ? 2 * cap : 256) * sizeof *e);
            if (!g)
                break;
            e = g;
        }
        e[n].used = st.st_mtim;
        e[n].size = (uint64_t)st.st_size;
        memcpy(e[n].name, de->d_name, strlen(de->d_name) + 1); /* fits: checked above */
        total += e[n++].size;
    }
    closedir(d);
    if (total > pl->disk_cap && e) {
        qsort(e, n, sizeof *e, older);
        for (size_t i = 0; i < n && total > pl->disk_cap / 4 * 3; i++) {
            if (keep && !strcmp(e[i].name, keep))
                continue;
            snprintf(path, sizeof path, "%s/%s", pl->dir, e[i].name);
            if (!remove(path)) {
                total -= e[i].size;
                ctx->gpu.stats.disk_cache_evictions++;
            }
        }
    }
    free(e);
    pl->disk_bytes = total;
}

/* A hit makes the file the most recently used (its mtime is what eviction reads). */
static void disk_touch(const char *path)
{
    utimensat(AT_FDCWD, path, NULL, 0);
}

static void *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *b = n > 0 && n < (64l << 20) ? malloc((size_t)n) : NULL;
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *size = b ? (size_t)n : 0;
    return b;
}

/* Written whole under a temporary name, then renamed: readers never see half a file. */
static void write_file(pvk_context *ctx, const char *path, const void *data, size_t size)
{
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    bool ok = f && fwrite(data, 1, size, f) == size;
    if (f && fclose(f))
        ok = false;
    struct stat old;
    uint64_t replaced = stat(path, &old) ? 0 : (uint64_t)old.st_size;
    if (!ok || rename(tmp, path)) {
        remove(tmp);
        pvk_log(&ctx->gpu, PVK_LOG_WARN, "shader cache: cannot write %s", path);
        return;
    }
    struct pvk_pipelines *pl = ctx->pipelines;
    pl->disk_bytes += size - (replaced < pl->disk_bytes ? replaced : pl->disk_bytes);
    if (pl->disk_bytes > pl->disk_cap) {
        const char *slash = strrchr(path, '/');
        disk_scan(ctx, pl, slash ? slash + 1 : path);
    }
}

static void cache_path(const pvk_context *ctx, const struct pvk_pipelines *pl, char *out, size_t cap)
{
    char uuid[2 * VK_UUID_SIZE + 1];
    for (unsigned i = 0; i < VK_UUID_SIZE; i++)
        snprintf(uuid + 2 * i, 3, "%02x", ctx->gpu.props.pipelineCacheUUID[i]);
    snprintf(out, cap, "%s/pipelines-%s-%08x.bin", pl->dir, uuid, ctx->gpu.props.driverVersion);
}

pvk_result pvk_pipelines_init(pvk_context *ctx)
{
    struct pvk_pipelines *pl = calloc(1, sizeof *pl);
    if (!pl)
        return PVK_ERROR_OUT_OF_MEMORY;
    ctx->pipelines = pl;
    find_dir(ctx, pl);
    pl->disk_cap = ctx->gpu.cfg.cache_max_bytes ? ctx->gpu.cfg.cache_max_bytes : PVK_DEFAULT_CACHE_MAX_BYTES;
    if (pl->dir[0])
        disk_scan(ctx, pl, NULL);
    char path[600];
    size_t size = 0;
    void *data = NULL;
    if (pl->dir[0]) {
        cache_path(ctx, pl, path, sizeof path);
        data = read_file(path, &size);
        if (data)
            disk_touch(path);
    }
    VkPipelineCacheCreateInfo pcci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO, .initialDataSize = size, .pInitialData = data};
    /* the driver checks the header and ignores data of another device or version */
    if (ctx->gpu.vk.vkCreatePipelineCache(ctx->gpu.device, &pcci, NULL, &pl->cache) != VK_SUCCESS) {
        pvk_log(&ctx->gpu, PVK_LOG_WARN, "pipeline cache %s is unusable; starting empty", path);
        pcci.initialDataSize = 0;
        pcci.pInitialData = NULL;
        if (ctx->gpu.vk.vkCreatePipelineCache(ctx->gpu.device, &pcci, NULL, &pl->cache) != VK_SUCCESS)
            pl->cache = VK_NULL_HANDLE;
    }
    free(data);
    pl->ranges[0] = (VkPushConstantRange){VK_SHADER_STAGE_VERTEX_BIT, 0, 32};
    pl->ranges[1] = (VkPushConstantRange){VK_SHADER_STAGE_FRAGMENT_BIT, 32, sizeof(pvk_draw_push)};
    /* set 0 by push descriptors: texture units 0-2 as combined image
     * samplers (bindings 0-2), the colour attachment as input attachment 0
     * for shaders that blend (4), the fog, lighting and procedural-texture
     * LUTs and parameters (5, 6: runtime/fragdata.c), the generated vertex
     * shaders' uniforms (7) and status words (8: runtime/draw.c vs_status) */
    VkDescriptorSetLayoutBinding dslb[8];
    for (uint32_t u = 0; u < 3; u++)
        pl->bindings[pl->n_bindings++] = (pvk_layout_binding){0, PVK_DRAW_BINDING_TEX0 + u,
                                                              VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                                                              VK_SHADER_STAGE_FRAGMENT_BIT};
    pl->bindings[pl->n_bindings++] = (pvk_layout_binding){0, PVK_DRAW_BINDING_DST, VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT,
                                                          VK_SHADER_STAGE_FRAGMENT_BIT};
    pl->bindings[pl->n_bindings++] = (pvk_layout_binding){0, PVK_DRAW_BINDING_FRAG_LUTS,
                                                          pvk_fragdata_lut_type(ctx), VK_SHADER_STAGE_FRAGMENT_BIT};
    pl->bindings[pl->n_bindings++] = (pvk_layout_binding){0, PVK_DRAW_BINDING_FRAG_PARAMS,
                                                          VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, VK_SHADER_STAGE_FRAGMENT_BIT};
    pl->bindings[pl->n_bindings++] = (pvk_layout_binding){0, PVK_DRAW_BINDING_VS, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                                          VK_SHADER_STAGE_VERTEX_BIT};
    pl->bindings[pl->n_bindings++] = (pvk_layout_binding){0, PVK_DRAW_BINDING_VS_STATUS,
                                                          VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_SHADER_STAGE_VERTEX_BIT};
    for (uint32_t i = 0; i < pl->n_bindings; i++)
        dslb[i] = (VkDescriptorSetLayoutBinding){pl->bindings[i].binding, pl->bindings[i].type, 1,
                                                 pl->bindings[i].stages, NULL};
    VkDescriptorSetLayoutCreateInfo dslci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR,
        .bindingCount = pl->n_bindings,
        .pBindings = dslb,
    };
    for (uint32_t t = 0; t < 4; t++)
        for (uint32_t c = 0; c < 4; c++) {
            VkFormatProperties fp;
            vkGetPhysicalDeviceFormatProperties(ctx->gpu.phys, pvk_vk_attrib_format(t, c + 1), &fp);
            pl->attrib_ok[t][c] = (fp.bufferFeatures & VK_FORMAT_FEATURE_VERTEX_BUFFER_BIT) != 0;
        }
    pvk_result r =
        pvk_vk_check(&ctx->gpu, ctx->gpu.vk.vkCreateDescriptorSetLayout(ctx->gpu.device, &dslci, NULL, &pl->set_layout),
                     "vkCreateDescriptorSetLayout");
    if (r)
        return r;
    VkPipelineLayoutCreateInfo plci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1,
        .pSetLayouts = &pl->set_layout,
        .pushConstantRangeCount = 2,
        .pPushConstantRanges = pl->ranges,
    };
    r = pvk_vk_check(&ctx->gpu, ctx->gpu.vk.vkCreatePipelineLayout(ctx->gpu.device, &plci, NULL, &pl->layout),
                     "vkCreatePipelineLayout");
    if (r)
        return r;
    pvk_spirv spv = pvk_builtin_draw_vertex_spirv();
    pl->check = CHECK_ALWAYS || (ctx->gpu.debug & PVK_DEBUG_SHADERS);
    if (pl->check) {
        /* a vertex shader that does not fit refuses every draw pipeline (logged here, once) */
        char err[256], why[256];
        if (pvk_spirv_reflect(spv.code, spv.size / 4, &pl->vertex_info, err))
            pvk_log(&ctx->gpu, PVK_LOG_ERROR, "draw vertex shader: %s", err);
        else if (!pvk_shader_fits_layout(&pl->vertex_info, VK_SHADER_STAGE_VERTEX_BIT, NULL, pl->ranges, 2,
                                         pl->bindings, pl->n_bindings, why, sizeof why))
            pvk_log(&ctx->gpu, PVK_LOG_ERROR, "draw vertex shader does not fit the draw pipeline layout: %s", why);
        else
            pl->vertex_fits = true;
    }
    VkShaderModuleCreateInfo smci = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = spv.size, .pCode = spv.code};
    if ((r = pvk_vk_check(&ctx->gpu, ctx->gpu.vk.vkCreateShaderModule(ctx->gpu.device, &smci, NULL, &pl->vertex),
                          "vkCreateShaderModule")))
        return r;
    /* features.geometry_shader: the device has it and, on a host's device,
     * pvk_host_vulkan.geometry_shader_enabled says it was enabled */
    if (ctx->gpu.features.geometry_shader) {
        spv = pvk_builtin_draw_quat_geom_spirv();
        smci.codeSize = spv.size, smci.pCode = spv.code;
        r = pvk_vk_check(&ctx->gpu, ctx->gpu.vk.vkCreateShaderModule(ctx->gpu.device, &smci, NULL, &pl->quat_geom),
                         "vkCreateShaderModule");
    }
    return r;
}

bool pvk_pipeline_quat_geom(pvk_context *ctx)
{
    return ctx->pipelines && ctx->pipelines->quat_geom;
}

/* Destroy the evicted pipelines whose last submission is done (`all`: every
 * one, at the context's end).  A lost context keeps them for its end: its
 * counter says nothing more. */
static void reap(pvk_context *ctx, struct pvk_pipelines *pl, bool all)
{
    uint64_t done = UINT64_MAX;
    if (!pl->n_retired)
        return;
    if (!all &&
        (ctx->gpu.sticky || !ctx->gpu.timeline ||
         pvk_vk_check(&ctx->gpu, ctx->gpu.vk.vkGetSemaphoreCounterValue(ctx->gpu.device, ctx->gpu.timeline, &done),
                      "vkGetSemaphoreCounterValue")))
        return;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < pl->n_retired; i++) {
        if (pl->retired[i].value <= done)
            ctx->gpu.vk.vkDestroyPipeline(ctx->gpu.device, pl->retired[i].pipeline, NULL);
        else
            pl->retired[kept++] = pl->retired[i];
    }
    pl->n_retired = kept;
}

void pvk_pipelines_destroy(pvk_context *ctx)
{
    struct pvk_pipelines *pl = ctx->pipelines;
    if (!pl)
        return;
    if (pl->cache && pl->dir[0] && pl->created) {
        size_t size = 0;
        if (ctx->gpu.vk.vkGetPipelineCacheData(ctx->gpu.device, pl->cache, &size, NULL) == VK_SUCCESS && size) {
            void *data = malloc(size);
            if (data && ctx->gpu.vk.vkGetPipelineCacheData(ctx->gpu.device, pl->cache, &size, data) == VK_SUCCESS) {
                char path[600];
                cache_path(ctx, pl, path, sizeof path);
                write_file(ctx, path, data, size);
            }
            free(data);
        }
    }
    if (pl->cache)
        ctx->gpu.vk.vkDestroyPipelineCache(ctx->gpu.device, pl->cache, NULL);
    for (uint32_t i = 0; i < (1u << TABLE_BITS); i++)
        if (pl->table[i].pipeline)
            ctx->gpu.vk.vkDestroyPipeline(ctx->gpu.device, pl->table[i].pipeline, NULL);
    reap(ctx, pl, true); /* the context's end waited for the GPU (or it is lost) */
    free(pl->retired);
    if (pl->vertex)
        ctx->gpu.vk.vkDestroyShaderModule(ctx->gpu.device, pl->vertex, NULL);
    if (pl->quat_geom)
        ctx->gpu.vk.vkDestroyShaderModule(ctx->gpu.device, pl->quat_geom, NULL);
    for (uint32_t i = 0; i < pl->n_vsm; i++)
        if (pl->vsm[i].module)
            ctx->gpu.vk.vkDestroyShaderModule(ctx->gpu.device, pl->vsm[i].module, NULL);
    for (uint32_t i = 0; i < FS_MODULES; i++)
        if (pl->fsm[i].module)
            ctx->gpu.vk.vkDestroyShaderModule(ctx->gpu.device, pl->fsm[i].module, NULL);
    for (uint32_t i = 0; i < pl->n_fbs; i++)
        ctx->gpu.vk.vkDestroyFramebuffer(ctx->gpu.device, pl->fbs[i].fb, NULL);
    for (uint32_t i = 0; i < pl->n_passes; i++)
        ctx->gpu.vk.vkDestroyRenderPass(ctx->gpu.device, pl->passes[i].pass, NULL);
    if (pl->layout)
        ctx->gpu.vk.vkDestroyPipelineLayout(ctx->gpu.device, pl->layout, NULL);
    if (pl->set_layout)
        ctx->gpu.vk.vkDestroyDescriptorSetLayout(ctx->gpu.device, pl->set_layout, NULL);
    pvk_log(&ctx->gpu, PVK_LOG_DEBUG, "draw pipelines: %llu created, %llu found in memory",
            (unsigned long long)pl->created, (unsigned long long)ctx->gpu.stats.pipeline_hits);
    free(pl);
    ctx->pipelines = NULL;
}

VkPipelineLayout pvk_pipeline_layout(const pvk_context *ctx)
{
    return ctx->pipelines->layout;
}

static const char *stage_name(VkShaderStageFlagBits stage)
{
    return stage == VK_SHADER_STAGE_VERTEX_BIT ? "vertex" : stage == VK_SHADER_STAGE_FRAGMENT_BIT ? "fragment" : "shader";
}

bool pvk_shader_fits_layout(const pvk_spirv_info *m, VkShaderStageFlagBits stage, const pvk_spirv_info *prev,
                            const VkPushConstantRange *ranges, uint32_t n_ranges, const pvk_layout_binding *bindings,
                            uint32_t n_bindings, char *why, size_t cap)
{
    const char *sn = stage_name(stage);
    if (m->push_blocks > 1) {
        snprintf(why, cap, "%s stage: %u push-constant blocks", sn, m->push_blocks);
        return false;
    }
    /* every byte of the block inside ranges visible to this stage (they may be split) */
    for (uint32_t pos = m->push_blocks ? m->push_offset : 0, end = m->push_blocks ? m->push_end : 0; pos < end;) {
        uint32_t next = pos;
        for (uint32_t i = 0; i < n_ranges; i++)
            if ((ranges[i].stageFlags & stage) && ranges[i].offset <= pos && pos < ranges[i].offset + ranges[i].size &&
                ranges[i].offset + ranges[i].size > next)
                next = ranges[i].offset + ranges[i].size;
        if (next == pos) {
            snprintf(why, cap, "%s stage: push constants %u..%u, but bytes from %u are in no %s range of the layout",
                     sn, m->push_offset, m->push_end, pos, sn);
            return false;
        }
        pos = next;
    }
    if (m->descriptors > PVK_SPIRV_MAX_DESC) {
        snprintf(why, cap, "%s stage: %u resources, more than the check reads", sn, m->descriptors);
        return false;
    }
    for (uint32_t i = 0; i < m->descriptors; i++) {
        const pvk_spirv_desc *d = &m->desc[i];
        const pvk_layout_binding *lb = NULL;
        for (uint32_t j = 0; j < n_bindings && !lb; j++)
            if (bindings[j].set == d->set && bindings[j].binding == d->binding)
                lb = &bindings[j];
        if (!lb) {
            snprintf(why, cap, "%s stage: uses descriptor set %u binding %u, which the layout does not have", sn,
                     d->set, d->binding);
            return false;
        }
        if (lb->type != d->type || !(lb->stages & stage)) {
            snprintf(why, cap, "%s stage: descriptor set %u binding %u is type %d in the module, type %d for stages "
                     "0x%x in the layout", sn, d->set, d->binding, (int)d->type, (int)lb->type, (unsigned)lb->stages);
            return false;
        }
    }
    for (uint32_t i = 0; prev && i < m->n_inputs; i++) {
        const pvk_spirv_io *in = &m->inputs[i], *out = NULL;
        for (uint32_t j = 0; j < prev->n_outputs && !out; j++)
            if (prev->outputs[j].location == in->location)
                out = &prev->outputs[j];
        if (!out || in->location == PVK_SPIRV_NO_LOCATION) {
            snprintf(why, cap, "%s input '%s' at location %d: the stage before writes nothing there", sn, in->name,
                     (int)in->location);
            return false;
        }
        if (strcmp(in->type, out->type) || in->array != out->array || in->flat != out->flat ||
            in->noperspective != out->noperspective) {
            snprintf(why, cap, "%s input '%s' at location %u is %s%s%s%s, the stage before writes %s%s%s%s (%s)", sn,
                     in->name, in->location, in->flat ? "flat " : "", in->noperspective ? "noperspective " : "",
                     in->type, in->array ? "[]" : "", out->flat ? "flat " : "",
                     out->noperspective ? "noperspective " : "", out->type, out->array ? "[]" : "", out->name);
            return false;
        }
    }
    return true;
}

/* SPIR-V of the generated GLSL (XXH3 `hash`): from the disk cache, else compiled (and stored). */
uint32_t *pvk_shader_spirv(pvk_context *ctx, pvk_shader_stage stage, const char *src, uint64_t hash,
                           size_t *n_words)
{
    struct pvk_pipelines *pl = ctx->pipelines;
    char path[600] = "";
    if (pl->dir[0]) {
        snprintf(path, sizeof path, "%s/%s-%016llx.spv", pl->dir,
                 stage == PVK_STAGE_VERTEX ? "vs" : stage == PVK_STAGE_COMPUTE ? "cs" : "fs",
                 (unsigned long long)hash);
        size_t size = 0;
        uint32_t *words = read_file(path, &size);
        if (words && size % 4 == 0 && size >= 20 && words[0] == 0x07230203u) {
            ctx->gpu.stats.shader_disk_hits++;
            disk_touch(path);
            *n_words = size / 4;
            return words;
        }
        if (words)
            pvk_log(&ctx->gpu, PVK_LOG_WARN, "shader cache: %s is not SPIR-V; compiling again", path);
        free(words);
    }
    uint32_t *words = NULL;
    char *log = NULL;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pvk_result r = pvk_glsl_compile(stage, src, &words, n_words, &log);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (r) {
        /* generated code that does not compile is picavk's bug, not the guest's */
        pvk_log(&ctx->gpu, PVK_LOG_ERROR, "generated %s shader does not compile: %s\n%s",
                stage == PVK_STAGE_VERTEX    ? "vertex"
                : stage == PVK_STAGE_COMPUTE ? "compute"
                                             : "fragment",
                log ? log : "", src);
        free(log);
        return NULL;
    }
    free(log);
    ctx->gpu.stats.shader_compiles++;
    uint64_t ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u + (uint64_t)(t1.tv_nsec - t0.tv_nsec);
    ctx->gpu.stats.shader_compile_ns += ns;
    if (ns > ctx->gpu.stats.shader_compile_max_ns)
        ctx->gpu.stats.shader_compile_max_ns = ns;
    if (path[0])
        write_file(ctx, path, words, *n_words * 4);
    return words;
}

/* PVK_DEBUG=shaders: the module as SPIRV-Cross reads it, beside its source. */
static void dump_fragment(pvk_context *ctx, const pvk_fs_key *fs, uint64_t hash, const char *src,
                          const uint32_t *words, size_t n_words)
{
    struct pvk_pipelines *pl = ctx->pipelines;
    char dir[560], cross[600], gen[600], err[256];
    snprintf(dir, sizeof dir, "%s/shaders", pl->dir);
    if (!pl->dir[0] || !make_dir(dir)) {
        if (!pl->dump_warned)
            pvk_log(&ctx->gpu, PVK_LOG_WARN,
                    "PVK_DEBUG=shaders: no cache directory to dump shaders into (PVK_CACHE_DIR)");
        pl->dump_warned = true;
        return;
    }
    char *glsl = pvk_spirv_to_glsl(words, n_words, err);
    if (!glsl) {
        pvk_log(&ctx->gpu, PVK_LOG_ERROR, "PVK_DEBUG=shaders: fragment shader %016llx: %s", (unsigned long long)hash,
                err);
        return;
    }
    /* a header naming the key, so a dump can be traced to the state that made it */
    char head[200 + 3 * sizeof *fs];
    int n = snprintf(head, sizeof head, "// picavk fragment shader fs-%016llx.spv read back by SPIRV-Cross\n"
                     "// the generated GLSL: %016llx.generated.frag.glsl\n// key:",
                     (unsigned long long)hash, (unsigned long long)hash);
    for (size_t i = 0; i < sizeof *fs && n > 0 && (size_t)n + 3 < sizeof head; i++)
        n += snprintf(head + n, sizeof head - (size_t)n, " %02x", ((const uint8_t *)fs)[i]);
    size_t hl = strlen(head), gl = strlen(glsl);
    char *text = malloc(hl + 1 + gl);
    if (text) {
        memcpy(text, head, hl);
        text[hl] = '\n';
        memcpy(text + hl + 1, glsl, gl);
        snprintf(cross, sizeof cross, "%s/%016llx.frag.glsl", dir, (unsigned long long)hash);
        snprintf(gen, sizeof gen, "%s/%016llx.generated.frag.glsl", dir, (unsigned long long)hash);
        write_file(ctx, cross, text, hl + 1 + gl);
        write_file(ctx, gen, src, strlen(src));
        pvk_log(&ctx->gpu, PVK_LOG_INFO, "PVK_DEBUG=shaders: fragment shader %s (generated from %s)", cross, gen);
    }
    free(text);
    free(glsl);
}

/* The debug check: does this fragment module (and the vertex shader) fit the draw layout? */
static bool fragment_fits(pvk_context *ctx, uint64_t hash, const uint32_t *words, size_t n_words)
{
    struct pvk_pipelines *pl = ctx->pipelines;
    if (!pl->vertex_fits) {
        pvk_log(&ctx->gpu, PVK_LOG_ERROR, "draw pipeline refused: the vertex shader does not fit the layout (logged)");
        return false;
    }
    pvk_spirv_info info;
    char err[256], why[256];
    if (pvk_spirv_reflect(words, n_words, &info, err)) {
        pvk_log(&ctx->gpu, PVK_LOG_ERROR, "draw pipeline refused: fragment shader %016llx: %s",
                (unsigned long long)hash, err);
        return false;
    }
    if (!pvk_shader_fits_layout(&info, VK_SHADER_STAGE_FRAGMENT_BIT, &pl->vertex_info, pl->ranges, 2, pl->bindings,
                                pl->n_bindings, why, sizeof why)) {
        pvk_log(&ctx->gpu, PVK_LOG_ERROR, "draw pipeline refused: fragment shader %016llx does not fit the layout: %s",
                (unsigned long long)hash, why);
        return false;
    }
    return true;
}

static VkShaderModule fragment_module_make(pvk_context *ctx, const pvk_fs_key *fs)
{
    char *src = pvk_glsl_fragment(fs);
    if (!src)
        return VK_NULL_HANDLE;
    uint64_t hash = XXH3_64bits(src, strlen(src));
    size_t n = 0;
    uint32_t *words = pvk_shader_spirv(ctx, PVK_STAGE_FRAGMENT, src, hash, &n);
    if (words && (ctx->gpu.debug & PVK_DEBUG_SHADERS))
        dump_fragment(ctx, fs, hash, src, words, n); /* before the check: a refused module can be read */
    VkShaderModule mod = VK_NULL_HANDLE;
    if (words && (!ctx->pipelines->check || fragment_fits(ctx, hash, words, n))) {
        VkShaderModuleCreateInfo smci = {
            .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = n * 4, .pCode = words};
        if (pvk_vk_check(&ctx->gpu, ctx->gpu.vk.vkCreateShaderModule(ctx->gpu.device, &smci, NULL, &mod),
                         "vkCreateShaderModule"))
            mod = VK_NULL_HANDLE; /* logged; the pipeline is refused below */
    }
    free(words);
    free(src);
    return mod;
}

/* The module for `fs`: from the in-memory cache, else made (and kept, the
 * least recently used going when the cache is full). */
static VkShaderModule fragment_module(pvk_context *ctx, const pvk_fs_key *fs)
{
    struct pvk_pipelines *pl = ctx->pipelines;
    uint64_t hash = XXH3_64bits(fs, sizeof *fs) | 1; /* never 0, the empty slot */
    fs_module *lru = &pl->fsm[0];
    for (uint32_t i = 0; i < FS_MODULES; i++) {
        fs_module *m = &pl->fsm[i];
        if (m->hash == hash && !memcmp(&m->key, fs, sizeof *fs)) {
            m->used = ++pl->fsm_clock;
            return m->module;
        }
        if (m->used < lru->used)
            lru = m;
    }
    VkShaderModule mod = fragment_module_make(ctx, fs);
    if (!mod)
        return VK_NULL_HANDLE;
    if (lru->module)
        ctx->gpu.vk.vkDestroyShaderModule(ctx->gpu.device, lru->module, NULL);
    ctx->gpu.stats.fragment_modules_created++;
    *lru = (fs_module){.key = *fs, .hash = hash, .used = ++pl->fsm_clock, .module = mod};
    return mod;
}

/* The debug check of a generated vertex module: it fits the layout and
 * writes every output shaders/draw.vert writes, the same way (what the
 * fragment shaders were checked against). */
static bool vertex_fits(pvk_context *ctx, const pvk_vs_key *key, const uint32_t *words, size_t n_words)
{
    struct pvk_pipelines *pl = ctx->pipelines;
    pvk_spirv_info *info = malloc(sizeof *info), *want = calloc(1, sizeof *want);
    char err[256], why[256] = "";
    bool ok = info && want && pl->vertex_fits;
    if (ok && pvk_spirv_reflect(words, n_words, info, err)) {
        snprintf(why, sizeof why, "%s", err);
        ok = false;
    }
    if (ok)
        ok = pvk_shader_fits_layout(info, VK_SHADER_STAGE_VERTEX_BIT, NULL, pl->ranges, 2, pl->bindings,
                                    pl->n_bindings, why, sizeof why);
    for (uint32_t i = 0; ok && i < pl->vertex_info.n_outputs; i++)
        if (pl->vertex_info.outputs[i].location != PVK_SPIRV_NO_LOCATION)
            want->inputs[want->n_inputs++] = pl->vertex_info.outputs[i];
    if (ok)
        ok = pvk_shader_fits_layout(want, VK_SHADER_STAGE_FRAGMENT_BIT, info, NULL, 0, NULL, 0, why, sizeof why);
    if (!ok)
        pvk_log(&ctx->gpu, PVK_LOG_ERROR, "generated vertex shader (program %016llx) refused: %s",
                (unsigned long long)key->code_hash, why[0] ? why : "the built-in vertex shader does not fit");
    free(info);
    free(want);
    return ok;
}

static vs_module *vs_find(struct pvk_pipelines *pl, const pvk_vs_key *key)
{
    for (uint32_t i = 0; i < pl->n_vsm; i++)
        if (!memcmp(&pl->vsm[i].key, key, sizeof *key))
            return &pl->vsm[i];
    return NULL;
}

/* The key with the device's flags, as modules and pipelines are keyed. */
static void vs_key_for_device(const pvk_context *ctx, const pvk_vs_draw *vs, pvk_vs_key *key)
{
    *key = vs->key;
    key->flags = pvk_vs_flags_for_device(&ctx->profile, key->flags);
}

pvk_result pvk_vs_module_prepare(pvk_context *ctx, const pvk_vs_draw *vs)
{
    struct pvk_pipelines *pl = ctx->pipelines;
    pvk_vs_key key;
    vs_key_for_device(ctx, vs, &key);
    for (uint32_t i = 0; i < 12; i++) {
        uint32_t f = key.fmt[i];
        if (f && !pl->attrib_ok[(f - 1) % 4][(f - 1) / 4]) {
            pvk_log(&ctx->gpu, PVK_LOG_DEBUG, "vertex format %d is not a vertex input format here: draw on the CPU",
                    (int)pvk_vk_attrib_format((f - 1) % 4, (f - 1) / 4 + 1));
            return PVK_ERROR_MISSING_FEATURE;
        }
    }
    vs_module *m = vs_find(pl, &key);
    if (m)
        return m->module ? PVK_SUCCESS : PVK_ERROR_MISSING_FEATURE;
    if (pl->n_vsm == VS_MODULES) { /* pipelines keep what they need: modules can go any time */
        for (uint32_t i = 0; i < pl->n_vsm; i++)
            if (pl->vsm[i].module)
                ctx->gpu.vk.vkDestroyShaderModule(ctx->gpu.device, pl->vsm[i].module, NULL);
        pl->n_vsm = 0;
    }
    char *src = NULL;
    pvk_result r = pvk_glsl_vertex_shader(&key, vs->code, vs->opdesc, &src);
    VkShaderModule mod = VK_NULL_HANDLE;
    if (r == PVK_ERROR_MISSING_FEATURE) {
        pvk_log(&ctx->gpu, PVK_LOG_DEBUG,
                "vertex program %016llx (entry %u) is not translated whole: its draws run on "
                "the CPU",
                (unsigned long long)key.code_hash, key.entry);
    } else if (r) {
        return r;
    } else {
        uint64_t hash = XXH3_64bits(src, strlen(src));
        size_t n = 0;
        uint32_t *words = pvk_shader_spirv(ctx, PVK_STAGE_VERTEX, src, hash, &n);
        free(src);
        if (!words)
            return PVK_ERROR_VULKAN; /* logged: picavk's bug */
        if (!pl->check || vertex_fits(ctx, &key, words, n)) {
            VkShaderModuleCreateInfo smci = {
                .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = n * 4, .pCode = words};
            r = pvk_vk_check(&ctx->gpu, ctx->gpu.vk.vkCreateShaderModule(ctx->gpu.device, &smci, NULL, &mod),
                             "vkCreateShaderModule");
        } else {
            r = PVK_ERROR_VULKAN;
        }
        free(words);
        if (r)
            return r;
    }
    pl->vsm[pl->n_vsm++] = (vs_module){key, mod};
    return mod ? PVK_SUCCESS : PVK_ERROR_MISSING_FEATURE;
}

static VkPipeline create(pvk_context *ctx, const key_pair *k)
{
    struct pvk_pipelines *pl = ctx->pipelines;
    VkShaderModule vert = pl->vertex;
    if (k->program) {
        const vs_module *m = vs_find(pl, &k->vs);
        if (!m || !m->module) { /* pvk_pipeline_get's caller prepares it first */
            pvk_log(&ctx->gpu, PVK_LOG_ERROR, "draw pipeline: no vertex module for program %016llx",
                    (unsigned long long)k->vs.code_hash);
            return VK_NULL_HANDLE;
        }
        vert = m->module;
    }
    VkShaderModule frag = fragment_module(ctx, &k->fs);
    if (!frag)
        return VK_NULL_HANDLE;
    VkPipelineShaderStageCreateInfo stages[3] = {
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
         .module = vert, .pName = "main"},
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
         .module = frag, .pName = "main"},
    };
    /* fragment lighting after a generated vertex stage: the shorter-arc
     * quaternions per triangle (draw_submit_vs checked the module exists) */
    uint32_t n_stages = 2;
    if (k->program && k->fs.fl.light && pl->quat_geom)
        stages[n_stages++] = (VkPipelineShaderStageCreateInfo){
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_GEOMETRY_BIT,
            .module = pl->quat_geom, .pName = "main"};
    /* draw.c's vertex layout: pvk_vertex as it is (shaders/draw.vert's inputs) */
    VkVertexInputBindingDescription vb = {0, sizeof(pvk_vertex), VK_VERTEX_INPUT_RATE_VERTEX};
    VkVertexInputAttributeDescription va[6] = {
        {0, 0, VK_FORMAT_R32G32B32A32_SFLOAT, offsetof(pvk_vertex, pos)},
        {1, 0, VK_FORMAT_R32G32B32A32_SFLOAT, offsetof(pvk_vertex, quat)},
        {2, 0, VK_FORMAT_R32G32B32A32_SFLOAT, offsetof(pvk_vertex, color)},
        {3, 0, VK_FORMAT_R32G32B32A32_SFLOAT, offsetof(pvk_vertex, tc0)}, /* tc0, tc1 */
        {4, 0, VK_FORMAT_R32G32B32_SFLOAT, offsetof(pvk_vertex, tc2)},    /* tc2, tc0_w */
        {5, 0, VK_FORMAT_R32G32B32_SFLOAT, offsetof(pvk_vertex, view)},
    };
    _Static_assert(offsetof(pvk_vertex, tc1) == offsetof(pvk_vertex, tc0) + 8 &&
                       offsetof(pvk_vertex, tc0_w) == offsetof(pvk_vertex, tc2) + 8,
                   "draw.vert reads tc0/tc1 and tc2/tc0_w as one attribute each");
    VkPipelineVertexInputStateCreateInfo vi = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
        .vertexBindingDescriptionCount = 1,
        .pVertexBindingDescriptions = &vb,
        .vertexAttributeDescriptionCount = 6,
        .pVertexAttributeDescriptions = va,
    };
    /* a generated stage: guest attribute buffers as they are (attribute i at location i) */
    VkVertexInputBindingDescription gvb[12];
    VkVertexInputAttributeDescription gva[12];
    if (k->program) {
        for (uint32_t b = 0; b < k->vs.bindings; b++)
            gvb[b] = (VkVertexInputBindingDescription){b, k->vs.stride[b], VK_VERTEX_INPUT_RATE_VERTEX};
        uint32_t n = 0;
        for (uint32_t i = 0; i < 12; i++) {
            uint32_t f = k->vs.fmt[i];
            if (f)
                gva[n++] = (VkVertexInputAttributeDescription){i, k->vs.binding[i],
                                                               pvk_vk_attrib_format((f - 1) % 4, (f - 1) / 4 + 1),
                                                               k->vs.offset[i]};
        }
        vi.vertexBindingDescriptionCount = k->vs.bindings;
        vi.pVertexBindingDescriptions = gvb;
        vi.vertexAttributeDescriptionCount = n;
        vi.pVertexAttributeDescriptions = gva;
    }
    VkPipelineInputAssemblyStateCreateInfo ia = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
        /* strips and fans too: a generated stage draws them as the CPU path's
         * list (pvk_vs_draw.tri_index), vertex for vertex */
        .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
    };
    VkPipelineViewportStateCreateInfo vp = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO, .viewportCount = 1, .scissorCount = 1};
    VkPipelineRasterizationStateCreateInfo rs = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
        .polygonMode = VK_POLYGON_MODE_FILL,
        .frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE, /* with the flipped viewport: y-up CCW is front */
        .lineWidth = 1.0f,
    };
    VkPipelineMultisampleStateCreateInfo ms = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
        .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT,
    };
    const pvk_pipe_key *pk = &k->pipe;
    /* The attachment holds R, G, B, A in its channels 0-3 (natural order),
     * so the PICA's mask bits 0-3 are Vulkan's R, G, B, A bits. */
    VkPipelineColorBlendAttachmentState cba = {
        .blendEnable = pk->blend && !k->fs.blend, /* else the shader blends, exactly */
        .srcColorBlendFactor = pvk_vk_blend_factor(pk->rgb_src),
        .dstColorBlendFactor = pvk_vk_blend_factor(pk->rgb_dst),
        .colorBlendOp = pvk_vk_blend_op(pk->rgb_eq),
        .srcAlphaBlendFactor = pvk_vk_blend_factor(pk->alpha_src),
        .dstAlphaBlendFactor = pvk_vk_blend_factor(pk->alpha_dst),
        .alphaBlendOp = pvk_vk_blend_op(pk->alpha_eq),
        .colorWriteMask = pk->color_mask,
    };
    /* Without the device's logicOp the fragment is written as it is (Copy),
     * logged once: the shader cannot read the attachment on this path. */
    bool logic = !pk->blend && ctx->gpu.features.logic_op;
    if (!pk->blend && !logic && pk->logic_op != 3 && !pl->logic_warned) {
        pl->logic_warned = true;
        pvk_unsupported(&ctx->gpu, "the device has no logicOp: logic op %u is drawn as Copy", pk->logic_op);
    }
    VkPipelineColorBlendStateCreateInfo cb = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
        /* the subpass reads its colour attachment in rasterization order */
        .flags = k->render_pass ? VK_PIPELINE_COLOR_BLEND_STATE_CREATE_RASTERIZATION_ORDER_ATTACHMENT_ACCESS_BIT_EXT : 0,
        .logicOpEnable = logic,
        .logicOp = logic ? pvk_vk_logic_op(pk->logic_op) : VK_LOGIC_OP_COPY,
        .attachmentCount = 1,
        .pAttachments = &cba,
    };
    VkPipelineDepthStencilStateCreateInfo dss = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
    bool depth = k->depth_format != VK_FORMAT_UNDEFINED;
    /* a depth-stencil format is the stencil attachment too; the stencil
     * test, ops, masks and reference are dynamic (draw.c sets them per draw) */
    bool stencil = k->depth_format == VK_FORMAT_D32_SFLOAT_S8_UINT || k->depth_format == VK_FORMAT_D24_UNORM_S8_UINT;
    VkDynamicState dyn[] = {VK_DYNAMIC_STATE_VIEWPORT,           VK_DYNAMIC_STATE_SCISSOR,
                            VK_DYNAMIC_STATE_CULL_MODE,          VK_DYNAMIC_STATE_BLEND_CONSTANTS,
                            VK_DYNAMIC_STATE_DEPTH_TEST_ENABLE,  VK_DYNAMIC_STATE_DEPTH_WRITE_ENABLE,
                            VK_DYNAMIC_STATE_DEPTH_COMPARE_OP,   VK_DYNAMIC_STATE_STENCIL_TEST_ENABLE,
                            VK_DYNAMIC_STATE_STENCIL_OP,         VK_DYNAMIC_STATE_STENCIL_COMPARE_MASK,
                            VK_DYNAMIC_STATE_STENCIL_WRITE_MASK, VK_DYNAMIC_STATE_STENCIL_REFERENCE};
    VkPipelineDynamicStateCreateInfo ds = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
        .dynamicStateCount = stencil ? 12 : depth ? 7 : 4, .pDynamicStates = dyn};
    VkFormat fmt = VK_FORMAT_R8G8B8A8_UNORM;
    VkPipelineRenderingCreateInfo rci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO, .colorAttachmentCount = 1,
        .pColorAttachmentFormats = &fmt, .depthAttachmentFormat = (VkFormat)k->depth_format,
        .stencilAttachmentFormat = stencil ? (VkFormat)k->depth_format : VK_FORMAT_UNDEFINED};
    VkRenderPass pass = k->render_pass ? pvk_render_pass_get(ctx, (VkFormat)k->depth_format, true) : VK_NULL_HANDLE;
    if (k->render_pass && !pass) {
        return VK_NULL_HANDLE; /* logged */
    }
    VkGraphicsPipelineCreateInfo gpci = {
        .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
        .pNext = pass ? NULL : &rci, /* any load op: compatible with every pass of this depth format */
        .renderPass = pass,
        .subpass = 0,
        .stageCount = n_stages,
        .pStages = stages,
        .pVertexInputState = &vi,
        .pInputAssemblyState = &ia,
        .pViewportState = &vp,
        .pRasterizationState = &rs,
        .pMultisampleState = &ms,
        .pColorBlendState = &cb,
        .pDepthStencilState = depth ? &dss : NULL,
        .pDynamicState = &ds,
        .layout = pl->layout,
    };
    VkPipeline p = VK_NULL_HANDLE;
    if (pvk_vk_check(&ctx->gpu,
                     ctx->gpu.vk.vkCreateGraphicsPipelines(ctx->gpu.device, pl->cache, 1, &gpci, NULL, &p),
                     "vkCreateGraphicsPipelines"))
        p = VK_NULL_HANDLE; /* logged; the draw is dropped */
    if (p)
        pvk_object_name(&ctx->gpu, VK_OBJECT_TYPE_PIPELINE, (uint64_t)p, "draw: %s, mask %X%s",
                        k->fs.blend ? "blend in the shader"
                        : pk->blend ? "blend"
                                    : "logic op",
                        pk->color_mask, k->render_pass ? ", render pass" : "");
    return p;
}

/* Vulkan's blend unit gives the PICA's integer result exactly when no
 * product needs rounding: Min and Max (no factors), or factors that are all
 * Zero or One (0x1, and 0xF taken as One), as a replace blend has. */

VkRenderPass pvk_render_pass_get(pvk_context *ctx, VkFormat depth, bool load)
{
    struct pvk_pipelines *pl = ctx->pipelines;
    for (uint32_t i = 0; i < pl->n_passes; i++)
        if (pl->passes[i].depth == depth && pl->passes[i].load == load)
            return pl->passes[i].pass;
    if (pl->n_passes == MAX_PASSES) { /* three depth formats and two load ops fit */
        pvk_log(&ctx->gpu, PVK_LOG_ERROR, "render passes: more than %d kinds", MAX_PASSES);
        return VK_NULL_HANDLE;
    }
    bool stencil = depth == VK_FORMAT_D32_SFLOAT_S8_UINT || depth == VK_FORMAT_D24_UNORM_S8_UINT;
    VkImageLayout drest = stencil ? VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL
                                  : VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL;
    VkAttachmentLoadOp dload = load ? VK_ATTACHMENT_LOAD_OP_LOAD : VK_ATTACHMENT_LOAD_OP_CLEAR;
    VkAttachmentStoreOp dstore = load ? VK_ATTACHMENT_STORE_OP_STORE : VK_ATTACHMENT_STORE_OP_DONT_CARE;
    /* surfaces rest in the attachment layouts; inside the subpass the colour
     * attachment is also input attachment 0, a feedback loop in GENERAL */
    VkAttachmentDescription2 att[2] = {
        {.sType = VK_STRUCTURE_TYPE_ATTACHMENT_DESCRIPTION_2, .format = VK_FORMAT_R8G8B8A8_UNORM,
         .samples = VK_SAMPLE_COUNT_1_BIT, .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD,
         .storeOp = VK_ATTACHMENT_STORE_OP_STORE, .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
         .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .initialLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
         .finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL},
        {.sType = VK_STRUCTURE_TYPE_ATTACHMENT_DESCRIPTION_2, .format = depth, .samples = VK_SAMPLE_COUNT_1_BIT,
         .loadOp = dload, .storeOp = dstore,
         .stencilLoadOp = stencil ? dload : VK_ATTACHMENT_LOAD_OP_DONT_CARE,
         .stencilStoreOp = stencil ? dstore : VK_ATTACHMENT_STORE_OP_DONT_CARE,
         .initialLayout = drest, .finalLayout = drest},
    };
    VkAttachmentReference2 color = {.sType = VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_2, .attachment = 0,
                                    .layout = VK_IMAGE_LAYOUT_GENERAL};
    VkAttachmentReference2 input = {.sType = VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_2, .attachment = 0,
                                    .layout = VK_IMAGE_LAYOUT_GENERAL, .aspectMask = VK_IMAGE_ASPECT_COLOR_BIT};
    VkAttachmentReference2 dref = {.sType = VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_2, .attachment = 1,
                                   .layout = drest};
    bool has_depth = depth != VK_FORMAT_UNDEFINED;
    VkSubpassDescription2 sub = {
        .sType = VK_STRUCTURE_TYPE_SUBPASS_DESCRIPTION_2,
        .flags = VK_SUBPASS_DESCRIPTION_RASTERIZATION_ORDER_ATTACHMENT_COLOR_ACCESS_BIT_EXT,
        .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
        .inputAttachmentCount = 1,
        .pInputAttachments = &input,
        .colorAttachmentCount = 1,
        .pColorAttachments = &color,
        .pDepthStencilAttachment = has_depth ? &dref : NULL,
    };
    /* everything before and after the pass, as the full barriers of
     * pvk_op_begin/pvk_op_submit order the dynamic-rendering path */
    const VkPipelineStageFlags gfx = VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
                                     VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT |
                                     VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    const VkAccessFlags gfx_access = VK_ACCESS_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT |
                                     VK_ACCESS_INPUT_ATTACHMENT_READ_BIT |
                                     VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                                     VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
    VkSubpassDependency2 deps[2] = {
        {.sType = VK_STRUCTURE_TYPE_SUBPASS_DEPENDENCY_2, .srcSubpass = VK_SUBPASS_EXTERNAL, .dstSubpass = 0,
         .srcStageMask = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, .dstStageMask = gfx,
         .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT, .dstAccessMask = gfx_access},
        {.sType = VK_STRUCTURE_TYPE_SUBPASS_DEPENDENCY_2, .srcSubpass = 0, .dstSubpass = VK_SUBPASS_EXTERNAL,
         .srcStageMask = gfx, .dstStageMask = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
         .srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
         .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT},
    };
    VkRenderPassCreateInfo2 rpci = {
        .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO_2,
        .attachmentCount = has_depth ? 2 : 1,
        .pAttachments = att,
        .subpassCount = 1,
        .pSubpasses = &sub,
        .dependencyCount = 2,
        .pDependencies = deps,
    };
    VkRenderPass pass = VK_NULL_HANDLE;
    if (pvk_vk_check(&ctx->gpu, ctx->gpu.vk.vkCreateRenderPass2(ctx->gpu.device, &rpci, NULL, &pass),
                     "vkCreateRenderPass2"))
        return VK_NULL_HANDLE;
    pvk_object_name(&ctx->gpu, VK_OBJECT_TYPE_RENDER_PASS, (uint64_t)pass, "draws reading their colour attachment%s%s",
                    has_depth ? (stencil ? ", depth-stencil" : ", depth") : "",
                    has_depth ? (load ? " loaded" : " cleared") : "");
    pl->passes[pl->n_passes++] = (pass_entry){depth, load, pass};
    return pass;
}

VkFramebuffer pvk_framebuffer_get(pvk_context *ctx, VkFormat depth, bool load, uint32_t w, uint32_t h)
{
    struct pvk_pipelines *pl = ctx->pipelines;
    for (uint32_t i = 0; i < pl->n_fbs; i++) {
        const fb_entry *e = &pl->fbs[i];
        if (e->depth == depth && e->load == load && e->w == w && e->h == h)
            return e->fb;
    }
    VkRenderPass pass = pvk_render_pass_get(ctx, depth, load);
    if (!pass)
        return VK_NULL_HANDLE;
    /* many sizes: start over once the GPU is done with them.  The wait cuts
     * no batch: the only caller, draw.c batch_open, submitted the last one
     * and has not recorded with a framebuffer of the new one yet. */
    if (pl->n_fbs == MAX_FRAMEBUFFERS) {
        if (pvk_retire(&ctx->gpu, true))
            return VK_NULL_HANDLE;
        for (uint32_t i = 0; i < pl->n_fbs; i++)
            ctx->gpu.vk.vkDestroyFramebuffer(ctx->gpu.device, pl->fbs[i].fb, NULL);
        pl->n_fbs = 0;
    }
    /* imageless: the views come at vkCmdBeginRenderPass, so no framebuffer
     * outlives a surface; these must match the images' creation exactly */
    VkFormat cfmt = VK_FORMAT_R8G8B8A8_UNORM;
    VkFramebufferAttachmentImageInfo info[2] = {
        {.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_ATTACHMENT_IMAGE_INFO, .usage = PVK_COLOR_TARGET_USAGE, .width = w,
         .height = h, .layerCount = 1, .viewFormatCount = 1, .pViewFormats = &cfmt},
        {.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_ATTACHMENT_IMAGE_INFO, .usage = PVK_DEPTH_TARGET_USAGE, .width = w,
         .height = h, .layerCount = 1, .viewFormatCount = 1, .pViewFormats = &depth},
    };
    uint32_t n = depth != VK_FORMAT_UNDEFINED ? 2 : 1;
    VkFramebufferAttachmentsCreateInfo faci = {
        .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_ATTACHMENTS_CREATE_INFO, .attachmentImageInfoCount = n,
        .pAttachmentImageInfos = info};
    VkFramebufferCreateInfo fci = {
        .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
        .pNext = &faci,
        .flags = VK_FRAMEBUFFER_CREATE_IMAGELESS_BIT,
        .renderPass = pass,
        .attachmentCount = n,
        .width = w,
        .height = h,
        .layers = 1,
    };
    VkFramebuffer fb = VK_NULL_HANDLE;
    if (pvk_vk_check(&ctx->gpu, ctx->gpu.vk.vkCreateFramebuffer(ctx->gpu.device, &fci, NULL, &fb),
                     "vkCreateFramebuffer"))
        return VK_NULL_HANDLE;
    pl->fbs[pl->n_fbs++] = (fb_entry){depth, load, w, h, fb};
    return fb;
}

/* Remove slot i, moving later entries of its probe run back into the hole
 * (backward shift: linear probing finds every key without tombstones). */
static void table_remove(struct pvk_pipelines *pl, uint32_t i)
{
    const uint32_t mask = (1u << TABLE_BITS) - 1;
    for (uint32_t j = (i + 1) & mask; pl->table[j].pipeline; j = (j + 1) & mask) {
        uint32_t home = (uint32_t)pl->table[j].hash & mask;
        /* it may fill the hole unless its home lies cyclically in (i, j] */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            pl->table[i] = pl->table[j];
            i = j;
        }
    }
    memset(&pl->table[i], 0, sizeof pl->table[i]);
    pl->count--;
    pl->last = NULL; /* entries moved */
}

/* Make room for one pipeline: the least recently used one goes to the
 * retired list (destroyed once its last submission is done).  False
 * (logged) when the list cannot grow. */
static bool evict_lru(pvk_context *ctx, struct pvk_pipelines *pl)
{
    reap(ctx, pl, false); /* a good moment to look: creating a pipeline is slow anyway */
    if (pl->n_retired == pl->cap_retired) {
        uint32_t cap = pl->cap_retired ? pl->cap_retired * 2 : 64;
        retired_pipeline *r = realloc(pl->retired, cap * sizeof *r);
        if (!r) {
            pvk_log(&ctx->gpu, PVK_LOG_ERROR, "draw pipelines: out of memory evicting one of %u", pl->count);
            return false;
        }
        pl->retired = r;
        pl->cap_retired = cap;
    }
    uint32_t lru = UINT32_MAX;
    for (uint32_t j = 0; j < (1u << TABLE_BITS); j++)
        if (pl->table[j].pipeline && (lru == UINT32_MAX || pl->table[j].tick < pl->table[lru].tick))
            lru = j;
    if (!pl->evict_logged)
        pvk_log(&ctx->gpu, PVK_LOG_INFO,
                "draw pipelines: more than %u distinct states; evicting the least recently used", TABLE_LIVE);
    pl->evict_logged = true;
    pl->retired[pl->n_retired++] = (retired_pipeline){pl->table[lru].pipeline, pl->table[lru].value};
    table_remove(pl, lru);
    ctx->gpu.stats.pipeline_evictions++;
    return true;
}

/* The pipeline is recorded into the submission with value `now`. */
static VkPipeline hand_out(struct pvk_pipelines *pl, entry *e, uint64_t now)
{
    e->value = now;
    e->tick = ++pl->tick;
    pl->last = e;
    return e->pipeline;
}

VkPipeline pvk_pipeline_get(pvk_context *ctx, const pvk_pipe_key *pipe, const pvk_fs_key *fs, VkFormat depth_format,
                            bool render_pass, const pvk_vs_draw *vs)
{
    struct pvk_pipelines *pl = ctx->pipelines;
    key_pair k;
    memset(&k, 0, sizeof k);
    k.pipe = *pipe;
    k.fs = *fs;
    k.depth_format = (uint32_t)depth_format;
    k.render_pass = render_pass;
    if (vs) {
        k.program = 1;
        vs_key_for_device(ctx, vs, &k.vs);
    }
    /* the submission the caller records into: the open batch, or the
     * roundtrip path's own draw, which nothing is submitted before */
    uint64_t now = ctx->gpu.timeline_next + 1;
    if (pl->last && !memcmp(&pl->last->key, &k, sizeof k)) {
        ctx->gpu.stats.pipeline_hits++;
        return hand_out(pl, pl->last, now);
    }
    uint64_t h = XXH3_64bits(&k, sizeof k);
    const uint32_t mask = (1u << TABLE_BITS) - 1;
    for (uint32_t i = (uint32_t)h & mask; pl->table[i].pipeline; i = (i + 1) & mask) {
        entry *e = &pl->table[i];
        if (e->hash == h && !memcmp(&e->key, &k, sizeof k)) {
            ctx->gpu.stats.pipeline_hits++;
            return hand_out(pl, e, now);
        }
    }
    /* full: the least recently used goes, without waiting for the GPU or
     * touching the open batch (a long-running host sees any number of states) */
    if (pl->count >= TABLE_LIVE && !evict_lru(ctx, pl))
        return VK_NULL_HANDLE;
    VkPipeline p = create(ctx, &k);
    if (!p)
        return VK_NULL_HANDLE;
    pl->created++;
    ctx->gpu.stats.pipelines_created++;
    pl->count++;
    uint32_t i = (uint32_t)h & mask; /* after the eviction: entries may have moved */
    while (pl->table[i].pipeline)
        i = (i + 1) & mask;
    pl->table[i] = (entry){k, h, p, 0, 0};
    return hand_out(pl, &pl->table[i], now);
}
