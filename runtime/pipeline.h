/* The draw pipelines' private state, shared by the files that make them:
 * runtime/pipeline.c (the layout, the pipeline table), runtime/shader_cache.c
 * (SPIR-V on disk, shader modules in memory) and runtime/render_pass.c (the
 * attachment-read path's render passes and framebuffers).  Nothing outside
 * these files includes it: the rest of the runtime calls runtime.h. */
#ifndef PVK_RUNTIME_PIPELINE_H
#define PVK_RUNTIME_PIPELINE_H

#include <pthread.h>
#include <stdatomic.h>

#include "runtime/runtime.h"
#include "shaders/shaders.h"

#ifdef NDEBUG
#define CHECK_ALWAYS false
#else
#define CHECK_ALWAYS true
#endif

/* 2048 slots for at most 1024 pipelines (far more distinct states than a
 * game frame uses; the memory budget usually allows fewer): the table stays
 * at most half full, so probes are short */
#define TABLE_BITS 11
#define TABLE_LIVE 1024u

/* A pipeline's key: the output-merger key and the ids of its shaders'
 * keys (pvk_fs_id, pvk_vs_id: one id per distinct key for the context, so
 * equal ids are equal keys). */
typedef struct key_pair {
    pvk_pipe_key pipe;
    uint32_t fs_id;
    uint32_t vs_id;        /* a generated vertex stage's key; 0: shaders/draw.vert */
    uint32_t depth_format; /* VkFormat of the depth attachment (UNDEFINED: none; a depth-stencil format: stencil too) */
    uint32_t render_pass;  /* 1: for the attachment-read render pass (subpass 0), 0: dynamic rendering */
    uint32_t warm_up;      /* 0; 1: a new program's warm-up (fs_id 0, shaders/draw_null.frag, no colour writes, its
                              triangles culled: the driver's compile of the program in a frame of its own,
                              pvk_pipeline_get); 2: with the quaternion geometry stage */
} key_pair;

/* An ubershader pipeline (built-in vertex stage) by its keys rather than
 * this context's ids: what the disk cache remembers of the kinds a program
 * drew, so that the next context builds them at its start. */
typedef struct pvk_uber_kind {
    pvk_pipe_key pipe;
    uint32_t depth_format, render_pass;
    pvk_fs_key fs;         /* an ubershader key (pvk_fs_uber_key) */
} pvk_uber_kind;
_Static_assert(sizeof(pvk_uber_kind) == sizeof(pvk_pipe_key) + 8 + sizeof(pvk_fs_key), "pvk_uber_kind is packed");
#define UBER_KINDS 64u /* remembered at most (a game has a few dozen) */

/* Ids for keys of one size: exact (XXH3, then memcmp), open addressing,
 * never reused until the table is full and starts over (runtime/shader_cache.c). */
typedef struct pvk_key_ids {
    size_t size;      /* bytes of a key */
    uint32_t count, next;
    uint8_t *keys;    /* ID_SLOTS keys */
    uint64_t *hash;   /* per slot; 0: empty */
    uint32_t *id;
    uint32_t last, prev; /* the slots found last and before: checked first, no hash (a draw that may take
                            the ubershader looks up its own key and the ubershader's in turn) */
} pvk_key_ids;

/* Generated vertex modules by key (a refused key is remembered too, so its
 * draws go to the CPU without translating again). */
#define VS_MODULES 64
typedef struct vs_module {
    pvk_vs_key key;
    VkShaderModule module;  /* VK_NULL_HANDLE: refused (or still building) */
    uint32_t bytes;         /* its SPIR-V */
    struct vs_job *job;     /* building in the background (runtime/shader_cache.c) */
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

#define WARM_PROGRAMS 64u

typedef struct entry {
    key_pair key;
    uint64_t hash;
    VkPipeline pipeline;
    struct pipe_job *job; /* being built (runtime/pipeline.c): pipeline not yet known */
    uint64_t value; /* timeline value of the last submission recorded with it */
    uint64_t tick; /* when it was last handed out: the smallest is evicted */
    bool geometry; /* it has the quaternion geometry stage */
} entry;


/* Fragment modules by key, so that a new pipeline for a key seen before
 * (another blend, depth or cull state) skips GLSL generation and SPIR-V.
 * A pipeline keeps what it needs of a module once vkCreateGraphicsPipelines
 * returns, so evicting one destroys it at once. */
#define FS_MODULES 64u
typedef struct fs_module {
    pvk_fs_key key;
    uint64_t hash; /* XXH3 of key, 0: an empty slot */
    uint64_t used; /* a counter value, for LRU */
    uint32_t pins; /* builds it is lent to: not evicted meanwhile */
    uint32_t bytes; /* its SPIR-V */
    VkShaderModule module;
} fs_module;

struct pvk_pipelines {
    fs_module fsm[FS_MODULES];
    uint64_t fsm_clock;
    char dir[512];              /* the disk cache directory, "" when there is none */
    uint64_t disk_bytes;        /* its cache files' size: scanned once, then kept by writes */
    uint64_t disk_cap;          /* pvk_config.cache_max_bytes or the default */
    pthread_mutex_t disk_lock;            /* disk_bytes and eviction: builds on workers write files too */
    bool disk_lock_ok;
    VkPipelineCache cache;
    VkPipelineLayout layout;
    VkDescriptorSetLayout set_layout; /* set 0: push descriptors (PVK_DRAW_BINDING_DST) */
    VkPushConstantRange ranges[2]; /* the layout's, for the module check */
    pvk_layout_binding bindings[9]; /* ... and its descriptors */
    uint32_t n_bindings;
    pvk_key_ids fs_ids, vs_ids;
    vs_module vsm[VS_MODULES];
    uint32_t n_vsm;
    bool attrib_ok[4][4];       /* the device reads pvk_vk_attrib_format(type, comps) as vertex input */
    pass_entry passes[MAX_PASSES];
    uint32_t n_passes;
    fb_entry fbs[MAX_FRAMEBUFFERS];
    uint32_t n_fbs;
    VkShaderModule vertex;
    VkShaderModule quat_geom;   /* shaders/draw_quat.geom, VK_NULL_HANDLE without geometry shaders */
    VkShaderModule null_frag;   /* shaders/draw_null.frag: warm-up draws' fragment stage */
    entry table[1u << TABLE_BITS];
    uint32_t count;
    uint32_t live;              /* pipelines kept at most: the budget's share (pvk_pipelines_init) */
    entry *last;
    uint32_t forgets;           /* pvk_pipelines_forget calls: ids taken before one are stale */
    uint64_t tick;
    uint64_t created;
    uint32_t jobs;              /* slots with a build not yet taken (running, queued or done) */
    uint64_t fresh_value;       /* the submission that drew a pipeline for the first time last */
    uint64_t vblanks;           /* pvk_vblank calls */
    uint64_t fresh_frame;       /* the value of vblanks then */
    uint32_t warm[WARM_PROGRAMS]; /* vs_id << 1 | geometry stage: programs the driver has compiled (a ring) */
    uint32_t n_warm;
    bool pace_frames;           /* a CPU device: one first draw a frame (first_draw_taken) */
    pvk_uber_kind kinds[UBER_KINDS]; /* the ubershader pipelines' keys, for the disk cache (runtime/uber_kinds.c) */
    uint32_t n_kinds;
    bool kinds_changed;         /* a kind the file does not have yet */
    pvk_uber_memos uber_keys;   /* pvk_pipeline_get's ubershader key of a (resolved) state */
    pvk_uber_memos uber_data;   /* pvk_draw_uber_state's data of a packet's state */
    bool logic_warned, dump_warned, evict_logged;
    struct { uint64_t ns, hash; pvk_shader_stage stage; } slowest[5]; /* logged at the end, slowest first */
    bool check;                 /* reflect modules against the layout */
    bool vertex_fits;           /* the vertex shader passed that check */
    pvk_spirv_info vertex_info; /* its outputs: what fragment inputs may read */
};

/* ---- background builds (runtime/compile.c) ---- */
/* What one build did, kept apart from the context so that it can run on a
 * worker thread: counters, log lines and the first Vulkan failure, handed
 * to the context on the host's thread by pvk_build_flush. */
typedef struct pvk_build {
    pvk_context *ctx; /* read only on a worker: device, tables, settings */
    uint64_t compiles, disk_hits, compile_ns, compile_max_ns, disk_evictions;
    uint64_t slow_hash;        /* the slowest compile's GLSL hash (its .spv name) ... */
    pvk_shader_stage slow_stage; /* ... and stage (compile_max_ns its time) */
    char *log; /* lines: a level digit, the text, NUL */
    size_t len, cap;
    VkResult vk;
    const char *vk_what;
} pvk_build;
void pvk_build_log(pvk_build *b, pvk_log_level level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* pvk_vk_check's answer for `vr`, the failure kept for the flush to log. */
pvk_result pvk_build_vk(pvk_build *b, VkResult vr, const char *what);
/* On the host's thread: the log lines to pvk_log, the counters to pvk_stats; `b` emptied. */
void pvk_build_flush(pvk_build *b);

/* A job for a worker: `run` with the state around it (the submitter's). */
typedef struct pvk_job {
    void (*run)(struct pvk_job *j);
    struct pvk_job *next;
    bool on_worker; /* it ran on a compile thread (pvk_stats.background_builds) */
    atomic_bool done;
} pvk_job;
#define PVK_MAX_COMPILE_THREADS 8
pvk_result pvk_compiler_init(pvk_context *ctx);
/* Drops the jobs not started (done, nothing run: their owners free them as
 * failed builds), lets the running ones finish and joins the workers. */
void pvk_compiler_destroy(pvk_context *ctx);
uint32_t pvk_compiler_threads(const pvk_context *ctx);
/* Queues `j` (without workers: runs it now). */
void pvk_compiler_submit(pvk_context *ctx, pvk_job *j);
/* ... at the queue's head when `first` (a build many later draws need). */
void pvk_compiler_submit_at(pvk_context *ctx, pvk_job *j, bool first);
bool pvk_job_done(const pvk_job *j);
void pvk_job_wait(pvk_context *ctx, pvk_job *j);

/* ---- the disk cache (runtime/shader_cache.c) ---- */
/* Finds (or makes) the directory, reads its size, evicts over the cap. */
void pvk_disk_open(pvk_context *ctx);
bool pvk_disk_make_dir(const char *path);
void *pvk_disk_read(const char *path, size_t *size);
void pvk_disk_touch(const char *path);
void pvk_disk_write(pvk_build *b, const char *path, const void *data, size_t size);
/* <dir>/<prefix>-<pipeline cache UUID>-<driver version>.bin: files only this device and driver read. */
void pvk_disk_device_path(const pvk_context *ctx, const char *prefix, char *out, size_t cap);

/* ---- ubershader kinds (runtime/uber_kinds.c) ---- */
/* An ubershader pipeline of `k` (vs_id 0) was started: its kind is remembered. */
void pvk_uber_kind_note(pvk_context *ctx, const key_pair *k, const pvk_fs_key *fs);
/* The kinds to the disk cache, if any is new (pvk_pipelines_destroy). */
void pvk_uber_kinds_save(pvk_context *ctx);
/* Starts the build of kind `u`'s pipeline (runtime/pipeline.c); false when it cannot (logged). */
bool pvk_pipeline_prebuild(pvk_context *ctx, const pvk_uber_kind *u);

/* ---- shader modules (runtime/shader_cache.c) ---- */
/* SPIR-V of generated GLSL (XXH3 `hash`), from the disk cache or compiled; safe on a worker. */
uint32_t *pvk_build_spirv(pvk_build *b, pvk_shader_stage stage, const char *src, uint64_t hash, size_t *n_words);
/* The fragment module for `fs` if it is in memory, lent to a build (pinned
 * until pvk_fragment_module_return); VK_NULL_HANDLE: the build makes it. */
VkShaderModule pvk_fragment_module_lend(pvk_context *ctx, const pvk_fs_key *fs);
/* Makes it (GLSL, SPIR-V from the disk cache or glslang, the module); safe
 * on a worker.  VK_NULL_HANDLE: logged into `b`. */
VkShaderModule pvk_fragment_module_make(pvk_build *b, const pvk_fs_key *fs, size_t *bytes);
/* A build is done with `module`: a lent one is unpinned, a made one (of
 * `bytes` SPIR-V) kept in memory, the least recently used going past
 * FS_MODULES or the budget's share (or destroyed when every slot is pinned). */
void pvk_fragment_module_return(pvk_context *ctx, const pvk_fs_key *fs, VkShaderModule module, bool made,
                                size_t bytes);
/* Shader modules in memory: how many, and their SPIR-V bytes (pvk_stats.held_modules). */
void pvk_modules_held(const pvk_context *ctx, uint64_t *count, uint64_t *bytes);
/* The generated vertex module for the device's key (made by
 * pvk_vs_module_prepare); VK_NULL_HANDLE when there is none. */
VkShaderModule pvk_vs_module(pvk_context *ctx, const pvk_vs_key *key);
/* The key with the device's flags, as modules and pipelines are keyed. */
void pvk_vs_key_for_device(const pvk_context *ctx, const pvk_vs_draw *vs, pvk_vs_key *key);
/* The ids of pipeline keys (key_pair); 0: out of memory (logged).  A full
 * table starts over after pvk_pipelines_forget: no pipeline keeps an old id. */
uint32_t pvk_fs_id(pvk_context *ctx, const pvk_fs_key *fs);
uint32_t pvk_vs_id(pvk_context *ctx, const pvk_vs_key *vs);
void pvk_key_ids_free(pvk_key_ids *t);
/* runtime/pipeline.c: every pipeline build in flight waited for and taken
 * (before a vertex module such a build holds is destroyed). */
void pvk_pipeline_jobs_finish(pvk_context *ctx);
/* runtime/pipeline.c: every pipeline goes (deferred destroy), for the id tables' restart. */
void pvk_pipelines_forget(pvk_context *ctx);
/* Every generated vertex module (after pvk_compiler_destroy: no job runs). */
void pvk_vs_modules_destroy(pvk_context *ctx);

#endif
