/* The shader cache: SPIR-V of generated GLSL on disk and shader modules in
 * memory.
 *
 * On disk (pvk_config.cache_dir, "" for none; unset: PVK_CACHE_DIR, else
 * $XDG_CACHE_HOME/picavk, else ~/.cache/picavk): each compiled shader as
 * fs-, vs- or cs-<XXH3 of its GLSL>.spv, so a second run compiles nothing,
 * and the VkPipelineCache (written by runtime/pipeline.c), one file per
 * device and driver version.  The files' total stays under
 * pvk_config.cache_max_bytes: the least recently used (by mtime, touched on
 * every hit) go.  Anything unreadable or malformed there is ignored with a
 * warning.
 *
 * In memory: fragment modules by pvk_fs_key (LRU), so a pipeline-state-only
 * change makes no GLSL or SPIR-V, and generated vertex modules by pvk_vs_key.
 *
 * PVK_DEBUG=shaders dumps every fragment module as SPIRV-Cross reads it back
 * (shaders/<hash>.frag.glsl, the hash of the .spv name) beside the GLSL it
 * was generated from (<hash>.generated.frag.glsl).  Debug builds (and
 * PVK_DEBUG=shaders) reflect every module and refuse one that does not fit
 * the draw layout: generated code and the layout drift apart silently
 * otherwise (push constants read garbage, an input reads 0). */
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

#include "runtime/pipeline.h"

/* mkdir -p of a path whose parent's parent exists (~/.cache/picavk at most) */
bool pvk_disk_make_dir(const char *path)
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
    if (pl->dir[0] && !pvk_disk_make_dir(pl->dir)) {
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
static void disk_scan(struct pvk_pipelines *pl, const char *keep, uint64_t *evicted)
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
                (*evicted)++;
            }
        }
    }
    free(e);
    pl->disk_bytes = total;
}

/* A hit makes the file the most recently used (its mtime is what eviction reads). */
void pvk_disk_touch(const char *path)
{
    utimensat(AT_FDCWD, path, NULL, 0);
}

void *pvk_disk_read(const char *path, size_t *size)
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
void pvk_disk_write(pvk_build *b, const char *path, const void *data, size_t size)
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
        pvk_build_log(b, PVK_LOG_WARN, "shader cache: cannot write %s", path);
        return;
    }
    struct pvk_pipelines *pl = b->ctx->pipelines;
    if (pl->disk_lock_ok)
        pthread_mutex_lock(&pl->disk_lock);
    pl->disk_bytes += size - (replaced < pl->disk_bytes ? replaced : pl->disk_bytes);
    if (pl->disk_bytes > pl->disk_cap) {
        const char *slash = strrchr(path, '/');
        disk_scan(pl, slash ? slash + 1 : path, &b->disk_evictions);
    }
    if (pl->disk_lock_ok)
        pthread_mutex_unlock(&pl->disk_lock);
}

void pvk_disk_device_path(const pvk_context *ctx, const char *prefix, char *out, size_t cap)
{
    char uuid[2 * VK_UUID_SIZE + 1];
    for (unsigned i = 0; i < VK_UUID_SIZE; i++)
        snprintf(uuid + 2 * i, 3, "%02x", ctx->gpu.props.pipelineCacheUUID[i]);
    snprintf(out, cap, "%s/%s-%s-%08x.bin", ctx->pipelines->dir, prefix, uuid, ctx->gpu.props.driverVersion);
}

void pvk_disk_open(pvk_context *ctx)
{
    struct pvk_pipelines *pl = ctx->pipelines;
    find_dir(ctx, pl);
    pl->disk_cap = ctx->gpu.cfg.cache_max_bytes ? ctx->gpu.cfg.cache_max_bytes : PVK_DEFAULT_CACHE_MAX_BYTES;
    pl->disk_lock_ok = !pthread_mutex_init(&pl->disk_lock, NULL);
    if (pl->dir[0])
        disk_scan(pl, NULL, &ctx->gpu.stats.disk_cache_evictions);
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
uint32_t *pvk_build_spirv(pvk_build *b, pvk_shader_stage stage, const char *src, uint64_t hash, size_t *n_words)
{
    struct pvk_pipelines *pl = b->ctx->pipelines;
    char path[600] = "";
    if (pl->dir[0]) {
        snprintf(path, sizeof path, "%s/%s-%016llx.spv", pl->dir,
                 stage == PVK_STAGE_VERTEX ? "vs" : stage == PVK_STAGE_COMPUTE ? "cs" : "fs",
                 (unsigned long long)hash);
        size_t size = 0;
        uint32_t *words = pvk_disk_read(path, &size);
        if (words && size % 4 == 0 && size >= 20 && words[0] == 0x07230203u) {
            b->disk_hits++;
            pvk_disk_touch(path);
            *n_words = size / 4;
            return words;
        }
        if (words)
            pvk_build_log(b, PVK_LOG_WARN, "shader cache: %s is not SPIR-V; compiling again", path);
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
        pvk_build_log(b, PVK_LOG_ERROR, "generated %s shader does not compile: %s\n%s",
                stage == PVK_STAGE_VERTEX    ? "vertex"
                : stage == PVK_STAGE_COMPUTE ? "compute"
                                             : "fragment",
                log ? log : "", src);
        free(log);
        return NULL;
    }
    free(log);
    b->compiles++;
    uint64_t ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u + (uint64_t)(t1.tv_nsec - t0.tv_nsec);
    b->compile_ns += ns;
    if (ns > b->compile_max_ns)
        b->compile_max_ns = ns, b->slow_hash = hash, b->slow_stage = stage;
    if (path[0])
        pvk_disk_write(b, path, words, *n_words * 4);
    return words;
}

uint32_t *pvk_shader_spirv(pvk_context *ctx, pvk_shader_stage stage, const char *src, uint64_t hash,
                           size_t *n_words)
{
    pvk_build b = {.ctx = ctx};
    uint32_t *words = pvk_build_spirv(&b, stage, src, hash, n_words);
    pvk_build_flush(&b);
    return words;
}

/* PVK_DEBUG=shaders: the module as SPIRV-Cross reads it, beside its source. */
static void dump_fragment(pvk_build *b, const pvk_fs_key *fs, uint64_t hash, const char *src,
                          const uint32_t *words, size_t n_words)
{
    struct pvk_pipelines *pl = b->ctx->pipelines;
    char dir[560], cross[600], gen[600], err[256];
    snprintf(dir, sizeof dir, "%s/shaders", pl->dir);
    if (!pl->dir[0] || !pvk_disk_make_dir(dir)) {
        if (!pl->dump_warned)
            pvk_build_log(b, PVK_LOG_WARN,
                    "PVK_DEBUG=shaders: no cache directory to dump shaders into (PVK_CACHE_DIR)");
        pl->dump_warned = true;
        return;
    }
    char *glsl = pvk_spirv_to_glsl(words, n_words, err);
    if (!glsl) {
        pvk_build_log(b, PVK_LOG_ERROR, "PVK_DEBUG=shaders: fragment shader %016llx: %s", (unsigned long long)hash,
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
        pvk_disk_write(b, cross, text, hl + 1 + gl);
        pvk_disk_write(b, gen, src, strlen(src));
        pvk_build_log(b, PVK_LOG_INFO, "PVK_DEBUG=shaders: fragment shader %s (generated from %s)", cross, gen);
    }
    free(text);
    free(glsl);
}

/* The debug check: does this fragment module (and the vertex shader) fit the draw layout? */
static bool fragment_fits(pvk_build *b, uint64_t hash, const uint32_t *words, size_t n_words)
{
    struct pvk_pipelines *pl = b->ctx->pipelines;
    if (!pl->vertex_fits) {
        pvk_build_log(b, PVK_LOG_ERROR, "draw pipeline refused: the vertex shader does not fit the layout (logged)");
        return false;
    }
    pvk_spirv_info info;
    char err[256], why[256];
    if (pvk_spirv_reflect(words, n_words, &info, err)) {
        pvk_build_log(b, PVK_LOG_ERROR, "draw pipeline refused: fragment shader %016llx: %s",
                (unsigned long long)hash, err);
        return false;
    }
    if (!pvk_shader_fits_layout(&info, VK_SHADER_STAGE_FRAGMENT_BIT, &pl->vertex_info, pl->ranges, 2, pl->bindings,
                                pl->n_bindings, why, sizeof why)) {
        pvk_build_log(b, PVK_LOG_ERROR, "draw pipeline refused: fragment shader %016llx does not fit the layout: %s",
                (unsigned long long)hash, why);
        return false;
    }
    return true;
}

VkShaderModule pvk_fragment_module_make(pvk_build *b, const pvk_fs_key *fs, size_t *bytes)
{
    pvk_context *ctx = b->ctx;
    char *src = pvk_glsl_fragment(fs);
    if (!src)
        return VK_NULL_HANDLE;
    uint64_t hash = XXH3_64bits(src, strlen(src));
    size_t n = 0;
    uint32_t *words = pvk_build_spirv(b, PVK_STAGE_FRAGMENT, src, hash, &n);
    if (words && (ctx->gpu.debug & PVK_DEBUG_SHADERS))
        dump_fragment(b, fs, hash, src, words, n); /* before the check: a refused module can be read */
    VkShaderModule mod = VK_NULL_HANDLE;
    if (words && (!ctx->pipelines->check || fragment_fits(b, hash, words, n))) {
        VkShaderModuleCreateInfo smci = {
            .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = n * 4, .pCode = words};
        if (pvk_build_vk(b, ctx->gpu.vk.vkCreateShaderModule(ctx->gpu.device, &smci, NULL, &mod),
                         "vkCreateShaderModule"))
            mod = VK_NULL_HANDLE; /* logged; the pipeline is refused below */
        *bytes = n * 4;
    }
    free(words);
    free(src);
    return mod;
}

static fs_module *fsm_find(struct pvk_pipelines *pl, const pvk_fs_key *fs, uint64_t hash)
{
    for (uint32_t i = 0; i < FS_MODULES; i++)
        if (pl->fsm[i].hash == hash && !memcmp(&pl->fsm[i].key, fs, sizeof *fs))
            return &pl->fsm[i];
    return NULL;
}

static uint64_t fsm_hash(const pvk_fs_key *fs)
{
    return XXH3_64bits(fs, sizeof *fs) | 1; /* never 0, the empty slot */
}

VkShaderModule pvk_fragment_module_lend(pvk_context *ctx, const pvk_fs_key *fs)
{
    struct pvk_pipelines *pl = ctx->pipelines;
    fs_module *m = fsm_find(pl, fs, fsm_hash(fs));
    if (!m)
        return VK_NULL_HANDLE;
    m->used = ++pl->fsm_clock;
    m->pins++;
    return m->module;
}

void pvk_modules_held(const pvk_context *ctx, uint64_t *count, uint64_t *bytes)
{
    const struct pvk_pipelines *pl = ctx->pipelines;
    *count = *bytes = 0;
    for (uint32_t i = 0; i < FS_MODULES; i++)
        if (pl->fsm[i].module)
            ++*count, *bytes += pl->fsm[i].bytes;
    for (uint32_t i = 0; i < pl->n_vsm; i++)
        if (pl->vsm[i].module)
            ++*count, *bytes += pl->vsm[i].bytes;
}

void pvk_fragment_module_return(pvk_context *ctx, const pvk_fs_key *fs, VkShaderModule module, bool made,
                                size_t bytes)
{
    struct pvk_pipelines *pl = ctx->pipelines;
    uint64_t hash = fsm_hash(fs);
    if (!module)
        return;
    if (!made) {
        fs_module *m = fsm_find(pl, fs, hash);
        if (m && m->module == module && m->pins)
            m->pins--;
        return;
    }
    ctx->gpu.stats.fragment_modules_created++;
    if (fsm_find(pl, fs, hash)) { /* another build of the same key put it there first: one is enough */
        ctx->gpu.vk.vkDestroyShaderModule(ctx->gpu.device, module, NULL);
        return;
    }
    /* a pipeline keeps what it needs of a module: one can go at once.  Past
     * the budget's share the least recently used unpinned ones go; then a
     * free slot or the least recently used takes it */
    uint64_t held, held_bytes;
    pvk_modules_held(ctx, &held, &held_bytes);
    for (;;) {
        fs_module *lru = NULL, *empty = NULL;
        for (uint32_t i = 0; i < FS_MODULES; i++) {
            fs_module *m = &pl->fsm[i];
            if (!m->module)
                empty = empty ? empty : m;
            else if (!m->pins && (!lru || m->used < lru->used))
                lru = m;
        }
        bool over = held_bytes + bytes > ctx->gpu.budget.modules;
        if (!over && empty) {
            *empty = (fs_module){.key = *fs, .hash = hash, .used = ++pl->fsm_clock, .bytes = (uint32_t)bytes,
                                 .module = module};
            return;
        }
        if (!lru) { /* every slot lent out */
            ctx->gpu.vk.vkDestroyShaderModule(ctx->gpu.device, module, NULL);
            return;
        }
        held_bytes -= lru->bytes;
        ctx->gpu.vk.vkDestroyShaderModule(ctx->gpu.device, lru->module, NULL);
        if (over)
            ctx->gpu.stats.budget_evictions++;
        *lru = (fs_module){0};
    }
}

/* The debug check of a generated vertex module: it fits the layout and
 * writes every output shaders/draw.vert writes, the same way (what the
 * fragment shaders were checked against). */
static bool vertex_fits(pvk_build *b, const pvk_vs_key *key, const uint32_t *words, size_t n_words)
{
    struct pvk_pipelines *pl = b->ctx->pipelines;
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
        pvk_build_log(b, PVK_LOG_ERROR, "generated vertex shader (program %016llx) refused: %s",
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

VkShaderModule pvk_vs_module(pvk_context *ctx, const pvk_vs_key *key)
{
    const vs_module *m = vs_find(ctx->pipelines, key);
    return m ? m->module : VK_NULL_HANDLE;
}

void pvk_vs_key_for_device(const pvk_context *ctx, const pvk_vs_draw *vs, pvk_vs_key *key)
{
    *key = vs->key;
    key->flags = pvk_vs_flags_for_device(&ctx->profile, key->flags);
}

/* A generated vertex module in the making, on a worker or at once. */
typedef struct vs_job {
    pvk_job job;
    pvk_build b;
    pvk_vs_key key;
    uint32_t code[PVK_SH_CODE_WORDS], opdesc[PVK_SH_OPDESCS]; /* copies: the guest may upload another program */
    VkShaderModule module;
    uint32_t bytes; /* its SPIR-V */
    pvk_result r; /* MISSING_FEATURE: not translated whole, draws on the CPU */
} vs_job;

static void vs_build(pvk_job *job)
{
    vs_job *j = (vs_job *)job;
    pvk_build *b = &j->b;
    pvk_context *ctx = b->ctx;
    char *src = NULL;
    j->r = pvk_glsl_vertex_shader(&j->key, j->code, j->opdesc, &src);
    if (j->r == PVK_ERROR_MISSING_FEATURE) {
        pvk_build_log(b, PVK_LOG_DEBUG, "vertex program %016llx (entry %u) is not translated whole: its draws run on "
                      "the CPU", (unsigned long long)j->key.code_hash, j->key.entry);
        return;
    }
    if (j->r)
        return;
    uint64_t hash = XXH3_64bits(src, strlen(src));
    size_t n = 0;
    uint32_t *words = pvk_build_spirv(b, PVK_STAGE_VERTEX, src, hash, &n);
    free(src);
    if (!words) {
        j->r = PVK_ERROR_VULKAN; /* logged: picavk's bug */
        return;
    }
    if (!ctx->pipelines->check || vertex_fits(b, &j->key, words, n)) {
        VkShaderModuleCreateInfo smci = {
            .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = n * 4, .pCode = words};
        j->r = pvk_build_vk(b, ctx->gpu.vk.vkCreateShaderModule(ctx->gpu.device, &smci, NULL, &j->module),
                            "vkCreateShaderModule");
        j->bytes = (uint32_t)(n * 4);
    } else {
        j->r = PVK_ERROR_VULKAN;
    }
    free(words);
}

/* A finished job's module into its slot (on the host's thread): its log
 * and counters to the context.  A failed build leaves the slot refused. */
static pvk_result vs_take(pvk_context *ctx, vs_module *m)
{
    vs_job *j = m->job;
    pvk_build_flush(&j->b);
    pvk_result r = j->r;
    m->module = r ? VK_NULL_HANDLE : j->module;
    m->bytes = r ? 0 : j->bytes;
    m->job = NULL;
    if (!r)
        ctx->gpu.stats.background_builds += j->job.on_worker;
    free(j);
    if (r && r != PVK_ERROR_MISSING_FEATURE)
        return r;
    return m->module ? PVK_SUCCESS : PVK_ERROR_MISSING_FEATURE;
}

/* The slots full: modules that are done go (pipelines keep what they need
 * of a module), the ones building stay. */
static void vs_make_room(pvk_context *ctx, struct pvk_pipelines *pl)
{
    /* pipeline builds still queued hold the modules about to go */
    pvk_pipeline_jobs_finish(ctx);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < pl->n_vsm; i++) {
        if (pl->vsm[i].job)
            pl->vsm[kept++] = pl->vsm[i];
        else if (pl->vsm[i].module)
            ctx->gpu.vk.vkDestroyShaderModule(ctx->gpu.device, pl->vsm[i].module, NULL);
    }
    pl->n_vsm = kept;
    if (kept == VS_MODULES) { /* every one building: wait for the oldest */
        pvk_job_wait(ctx, &pl->vsm[0].job->job);
        if (!vs_take(ctx, &pl->vsm[0]) && pl->vsm[0].module)
            ctx->gpu.vk.vkDestroyShaderModule(ctx->gpu.device, pl->vsm[0].module, NULL);
        memmove(&pl->vsm[0], &pl->vsm[1], --pl->n_vsm * sizeof pl->vsm[0]);
    }
}

void pvk_vs_modules_destroy(pvk_context *ctx)
{
    struct pvk_pipelines *pl = ctx->pipelines;
    for (uint32_t i = 0; i < pl->n_vsm; i++) {
        vs_module *m = &pl->vsm[i];
        if (m->job) { /* the workers are joined: every job is done */
            vs_job *j = m->job;
            free(j->b.log);
            if (j->module)
                ctx->gpu.vk.vkDestroyShaderModule(ctx->gpu.device, j->module, NULL);
            free(j);
        } else if (m->module) {
            ctx->gpu.vk.vkDestroyShaderModule(ctx->gpu.device, m->module, NULL);
        }
    }
    pl->n_vsm = 0;
}

pvk_result pvk_vs_module_prepare(pvk_context *ctx, const pvk_vs_draw *vs, bool *building)
{
    struct pvk_pipelines *pl = ctx->pipelines;
    *building = false;
    pvk_vs_key key;
    pvk_vs_key_for_device(ctx, vs, &key);
    for (uint32_t i = 0; i < 12; i++) {
        uint32_t f = key.fmt[i];
        if (f && !pl->attrib_ok[(f - 1) % 4][(f - 1) / 4]) {
            pvk_log(&ctx->gpu, PVK_LOG_DEBUG, "vertex format %d is not a vertex input format here: draw on the CPU",
                    (int)pvk_vk_attrib_format((f - 1) % 4, (f - 1) / 4 + 1));
            return PVK_ERROR_MISSING_FEATURE;
        }
    }
    vs_module *m = vs_find(pl, &key);
    if (!m) {
        if (pl->n_vsm == VS_MODULES)
            vs_make_room(ctx, pl);
        vs_job *j = calloc(1, sizeof *j);
        if (!j)
            return PVK_ERROR_OUT_OF_MEMORY;
        j->job.run = vs_build;
        j->b.ctx = ctx;
        j->key = key;
        memcpy(j->code, vs->code, sizeof j->code);
        memcpy(j->opdesc, vs->opdesc, sizeof j->opdesc);
        m = &pl->vsm[pl->n_vsm++];
        *m = (vs_module){.key = key, .job = j};
        pvk_compiler_submit(ctx, &j->job); /* without workers it is done now */
    }
    if (m->job) {
        if (!pvk_job_done(&m->job->job)) {
            /* the CPU interpreter draws it meanwhile: the same bytes (the
             * *_cpu_vs test variants), no wait for the compiler */
            ctx->gpu.stats.cpu_vs_while_building++;
            *building = true;
            return PVK_ERROR_MISSING_FEATURE;
        }
        pvk_result r = vs_take(ctx, m);
        if (r && r != PVK_ERROR_MISSING_FEATURE) {
            *m = pl->vsm[--pl->n_vsm]; /* not remembered: the next draw tries again */
            return r;
        }
    }
    return m->module ? PVK_SUCCESS : PVK_ERROR_MISSING_FEATURE;
}

/* ---- ids of keys ---- */

#define ID_SLOTS 8192u /* at most half used: short probes */

static uint32_t key_id(pvk_context *ctx, pvk_key_ids *t, const void *key, size_t size)
{
    if (t->keys && t->hash[t->last] && !memcmp(t->keys + (size_t)t->last * size, key, size))
        return t->id[t->last];
    if (t->keys && t->hash[t->prev] && !memcmp(t->keys + (size_t)t->prev * size, key, size)) {
        uint32_t i = t->prev;
        t->prev = t->last, t->last = i;
        return t->id[i];
    }
    if (!t->keys) {
        t->size = size;
        t->keys = calloc(ID_SLOTS, size);
        t->hash = calloc(ID_SLOTS, sizeof *t->hash);
        t->id = calloc(ID_SLOTS, sizeof *t->id);
        if (!t->keys || !t->hash || !t->id) {
            pvk_key_ids_free(t);
            pvk_log(&ctx->gpu, PVK_LOG_ERROR, "draw pipelines: out of memory for key ids");
            return 0;
        }
    }
    uint64_t h = XXH3_64bits(key, size) | 1;
    uint32_t i = (uint32_t)h & (ID_SLOTS - 1);
    for (; t->hash[i]; i = (i + 1) & (ID_SLOTS - 1)) {
        if (t->hash[i] == h && !memcmp(t->keys + (size_t)i * size, key, size)) {
            t->prev = t->last;
            return t->id[t->last = i];
        }
    }
    if (t->count == ID_SLOTS / 2) { /* full: every pipeline goes, the ids start over */
        pvk_log(&ctx->gpu, PVK_LOG_INFO, "draw pipelines: %u distinct shader keys; starting over", t->count);
        pvk_pipelines_forget(ctx);
        memset(t->hash, 0, ID_SLOTS * sizeof *t->hash);
        t->count = 0;
        i = (uint32_t)h & (ID_SLOTS - 1);
    }
    memcpy(t->keys + (size_t)i * size, key, size);
    t->hash[i] = h;
    t->id[i] = ++t->next;
    if (!t->next) /* after 2^32 ids: 0 means none */
        t->id[i] = ++t->next;
    t->count++;
    t->prev = t->last;
    return t->id[t->last = i];
}

uint32_t pvk_fs_id(pvk_context *ctx, const pvk_fs_key *fs)
{
    return key_id(ctx, &ctx->pipelines->fs_ids, fs, sizeof *fs);
}

uint32_t pvk_vs_id(pvk_context *ctx, const pvk_vs_key *vs)
{
    return key_id(ctx, &ctx->pipelines->vs_ids, vs, sizeof *vs);
}

void pvk_key_ids_free(pvk_key_ids *t)
{
    free(t->keys);
    free(t->hash);
    free(t->id);
    memset(t, 0, sizeof *t);
}
