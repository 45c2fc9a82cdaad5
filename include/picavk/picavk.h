/* picavk: the Nintendo 3DS GPU (PICA200) on Vulkan.  Public C API.
 *
 * A context owns (or borrows) a Vulkan device and the guest physical memory
 * map.  The host drives it the way the 3DS CPU drives the GPU: 32-bit writes to
 * the GPU's memory-mapped registers and writes to guest memory.  Every call
 * returns a pvk_result; nothing aborts on bad input.
 *
 * Threads.  A context is externally synchronised, like a Vulkan object: one
 * thread at a time may call functions on it (any thread, one after another,
 * is fine).  Different contexts are independent and may be used from
 * different threads at once, including pvk_context_create and
 * pvk_context_destroy.  Callbacks (log, IRQ, replay frame callbacks, the
 * embedded queue lock) run synchronously on the thread of the picavk call
 * that causes them, never on one of picavk's compile threads (each context
 * starts pvk_config.compile_threads of them to build shaders; what they log
 * is handed to the log callback by a later call on the context's thread);
 * they may call back into the same context.  Debug builds (NDEBUG not defined)
 * detect a second thread entering a context during a call: it is logged and
 * the call returns PVK_ERROR_BUSY (NULL for pvk_guest_ptr) without doing
 * anything.  pvk_guest_ptr's memory may be written by the host from any
 * thread, but between calls it must be announced (pvk_guest_written) and
 * read only after pvk_guest_flush, as usual. */
#ifndef PICAVK_H
#define PICAVK_H

#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan_core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version this header belongs to, for a host's #if; CMake checks it
 * against project(VERSION), which pvk_version() reports at run time. */
#define PVK_VERSION_MAJOR 0
#define PVK_VERSION_MINOR 1

/* Marks the API: the only symbols a shared libpicavk exports (the library is
 * built with hidden visibility and PVK_BUILD_SHARED).  Empty for the host. */
#if defined(PVK_BUILD_SHARED) && (defined(__GNUC__) || defined(__clang__))
#define PVK_API __attribute__((visibility("default")))
#else
#define PVK_API
#endif

typedef enum pvk_result {
    PVK_SUCCESS = 0,
    PVK_ERROR_INVALID_ARGUMENT = -1, /* a NULL pointer, an unknown enum, ... */
    PVK_ERROR_OUT_OF_MEMORY = -2,
    PVK_ERROR_NO_DEVICE = -3,        /* no Vulkan device fits */
    PVK_ERROR_MISSING_FEATURE = -4,  /* the device lacks something required */
    PVK_ERROR_VULKAN = -5,           /* a Vulkan call failed */
    PVK_ERROR_DEVICE_LOST = -6,      /* sticky: every later call returns it */
    PVK_ERROR_UNSUPPORTED = -7,      /* not implemented (yet); logged */
    PVK_ERROR_OUT_OF_RANGE = -8,     /* a guest address range outside the map */
    PVK_ERROR_BAD_PARAMETERS = -9,   /* guest-programmed parameters real hardware rejects */
    PVK_ERROR_IO = -10,
    PVK_ERROR_BAD_DATA = -11,        /* a corrupt file or stream */
    PVK_ERROR_TIMEOUT = -12,         /* a wait gave up (pvk_config.wait_timeout_ms); the
                                        work goes on and a later wait can succeed */
    PVK_ERROR_BUSY = -13,            /* debug builds: the context was entered from a second
                                        thread while a call was running; nothing done */
} pvk_result;

PVK_API const char *pvk_result_string(pvk_result r);

/* The library's version, "MAJOR.MINOR.PATCH" (the picavk that runs, which a
 * shared library may make newer than the header a host was built with). */
PVK_API const char *pvk_version(void);

typedef enum pvk_log_level {
    PVK_LOG_DEFAULT = 0, /* in pvk_config: WARN, or PVK_LOG_LEVEL from the environment */
    PVK_LOG_ERROR = 1,
    PVK_LOG_WARN = 2,
    PVK_LOG_INFO = 3,
    PVK_LOG_DEBUG = 4,
} pvk_log_level;

typedef void (*pvk_log_fn)(void *user, pvk_log_level level, const char *message);

/* The GPU's interrupt sources, in the order of GPU_STAT_IRQ_FLAGS bits 26..31. */
typedef enum pvk_irq {
    PVK_IRQ_PSC0 = 0, /* memory fill 0 finished */
    PVK_IRQ_PSC1 = 1, /* memory fill 1 finished */
    PVK_IRQ_PDC0 = 2, /* top screen VBlank */
    PVK_IRQ_PDC1 = 3, /* bottom screen VBlank */
    PVK_IRQ_PPF = 4,  /* memcopy (display transfer / texture copy) finished */
    PVK_IRQ_P3D = 5,  /* command list interrupt request matched */
    PVK_IRQ_COUNT = 6,
} pvk_irq;

typedef struct pvk_context pvk_context;
typedef void (*pvk_irq_fn)(void *user, pvk_context *ctx, pvk_irq which);

/* Embedded mode: the host's Vulkan objects.  picavk loads its entry points
 * from them (through volk) and never creates or destroys them.  The device
 * must be Vulkan 1.3 with timelineSemaphore, storageBuffer8BitAccess,
 * synchronization2, dynamicRendering, maintenance4 and shaderClipDistance
 * enabled, and VK_KHR_push_descriptor; pvk_host_vulkan_needs lists these and
 * the optional extensions and features with the flag below that tells picavk
 * each was enabled (examples/viewer creates its device from that list).
 * picavk uses only what the flags say: it cannot see what the host enabled. */
typedef struct pvk_host_vulkan {
    PFN_vkGetInstanceProcAddr get_instance_proc_addr;
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    VkQueue queue;             /* must support compute; graphics for rendering */
    uint32_t queue_family;
    /* Optional: VK_EXT_external_memory_host was enabled on the device. */
    int external_memory_host_enabled;
    /* Optional: VK_EXT_debug_utils was enabled on the instance; picavk then
     * names its objects and labels its command buffers (RenderDoc, validation). */
    int debug_utils_enabled;
    /* Optional: VK_EXT_custom_border_color was enabled with its
     * customBorderColors and customBorderColorWithoutFormat features; picavk
     * then gives samplers the PICA's border colour (otherwise the nearest of
     * Vulkan's built-in ones, logged once and counted). */
    int custom_border_color_enabled;
    /* Optional (NULL: none): Vulkan requires external synchronisation of a
     * queue.  When the host also submits to `queue` from other threads, picavk
     * calls queue_lock before and queue_unlock after each of its
     * vkQueueSubmit2 calls, on the thread of the picavk call.  picavk never
     * calls vkQueueWaitIdle: it waits on its own timeline semaphore, outside
     * the lock. */
    void (*queue_lock)(void *user, VkQueue queue);
    void (*queue_unlock)(void *user, VkQueue queue);
    void *queue_lock_user;
    /* Optional: VK_EXT_rasterization_order_attachment_access was enabled with
     * rasterizationOrderColorAttachmentAccess, and imagelessFramebuffer and
     * separateDepthStencilLayouts (core 1.2): draws then read their colour
     * attachment and blend exactly as the PICA's integer arithmetic does;
     * else Vulkan's blend unit (within 1). */
    int attachment_read_enabled;
    /* Optional: vertexPipelineStoresAndAtomics was enabled.  Vertex programs
     * of draws then run as the Vulkan vertex stage, which reports vertices
     * that fail (runaway programs, undefined opcodes) back through a storage
     * buffer; else they run on the CPU interpreter. */
    int vertex_stores_enabled;
    /* Optional: geometryShader was enabled.  Fragment-lit draws can then run
     * their vertex programs on the GPU, a geometry shader turning each
     * triangle's quaternions as the PICA interpolates them; else they run
     * on the CPU interpreter.  pvk_features.geometry_shader reports it. */
    int geometry_shader_enabled;
    /* Optional: logicOp was enabled: the PICA's 16 logic ops; else every
     * logic op draws as Copy (logged once, counted unsupported). */
    int logic_op_enabled;
    /* Optional: shaderFloat64 was enabled: vertex and geometry programs on
     * the GPU compute RCP, RSQ, EX2 and LG2 in double precision, as exact as
     * the CPU interpreter; else with the GPU's f32 functions (within one
     * f24 ulp). */
    int shader_float64_enabled;
} pvk_host_vulkan;

/* What picavk wants of a device the host creates (embedded mode), as data a
 * host applies to its own instance and device creation.  Each entry is an
 * instance extension, a device extension or a feature (a VkBool32 member of
 * a feature struct).  Required entries must all be enabled: picavk refuses
 * the device otherwise (PVK_ERROR_MISSING_FEATURE, the first missing one
 * logged).  Optional entries come in groups, one per pvk_host_vulkan flag:
 * a host that enabled every entry with the same host_flag sets that flag
 * to 1.  Beyond the list: an instance and device of at least
 * PVK_VULKAN_API_VERSION, and a queue with graphics and compute. */
#define PVK_VULKAN_API_VERSION VK_API_VERSION_1_3

typedef enum pvk_vulkan_need_kind {
    PVK_NEED_INSTANCE_EXTENSION = 0,
    PVK_NEED_DEVICE_EXTENSION = 1,
    PVK_NEED_FEATURE = 2,
} pvk_vulkan_need_kind;

typedef struct pvk_vulkan_need {
    pvk_vulkan_need_kind kind;
    const char *name;               /* "VK_KHR_push_descriptor"; a feature's member: "timelineSemaphore" */
    /* Features: the sType of the struct that has the member and the
     * member's byte offset in it.  VkPhysicalDeviceFeatures members are given
     * in VkPhysicalDeviceFeatures2 (VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
     * offset counted from the start of VkPhysicalDeviceFeatures2); the others
     * in VkPhysicalDeviceVulkan11/12/13Features or an extension's feature
     * struct, whose extension is in the same group.  0 for extensions. */
    VkStructureType feature_struct;
    uint32_t feature_offset;
    int required;
    /* Optional entries: offsetof(pvk_host_vulkan, the int flag of the
     * group); 0 for required ones. */
    uint32_t host_flag;
    const char *gives;              /* optional entries: what the group gives, and what picavk does without it */
} pvk_vulkan_need;

/* The list (static, constant: valid for the process's lifetime), required
 * entries first.  Needs no context. */
PVK_API pvk_result pvk_host_vulkan_needs(const pvk_vulkan_need **needs, uint32_t *count);

/* Guest physical memory ranges. */
#define PVK_VRAM_BASE 0x18000000u
#define PVK_VRAM_SIZE 0x00600000u
#define PVK_FCRAM_BASE 0x20000000u
#define PVK_FCRAM_SIZE 0x08000000u     /* 128 MiB (Old 3DS) */
#define PVK_FCRAM_SIZE_N3DS 0x10000000u /* 256 MiB (New 3DS) */
#define PVK_AXI_WRAM_BASE 0x1FF00000u
#define PVK_AXI_WRAM_SIZE 0x00080000u

typedef enum pvk_region {
    PVK_REGION_VRAM = 0,
    PVK_REGION_FCRAM = 1,
    PVK_REGION_AXI_WRAM = 2,
    PVK_REGION_COUNT = 3,
} pvk_region;

/* Zero means default for every field. */
typedef struct pvk_config {
    pvk_log_fn log;            /* default: stderr */
    void *log_user;
    pvk_log_level log_level;   /* messages less severe than this are dropped */
    pvk_irq_fn irq;            /* called from the host's thread inside picavk calls */
    void *irq_user;
    int new_3ds;               /* hardware ID bit 2, 256 MiB FCRAM */
    int validation;            /* headless: enable VK_LAYER_KHRONOS_validation;
                                  also on when PVK_VALIDATION=1 is in the environment */
    const pvk_host_vulkan *host_vulkan; /* NULL: headless (own instance and device) */
    /* Guest memory the host already has (either mode): host pointers per
     * region (NULL: picavk allocates).  Each must be page aligned (the
     * device's import alignment for zero copy, else it is mirrored) and stay
     * valid for the context's lifetime. */
    void *guest_memory[PVK_REGION_COUNT];
    /* How long pvk_wait_idle, pvk_guest_flush, pvk_frame_read and pvk_vblank
     * wait for the GPU before they return PVK_ERROR_TIMEOUT (default 10000
     * ms), and how long a released frame's images wait for the host's
     * semaphore (pvk_frame_release) before they are reused, logged.  The work
     * is not lost: a later wait or poll retires it.  Waits picavk makes for
     * itself inside a command list before it reuses a resource are not
     * bounded; the per-call draw budget bounds the work they wait for. */
    uint32_t wait_timeout_ms;
    /* Resolution scale: draws render at `scale` x the guest's buffer size
     * (1..PVK_MAX_SCALE, 0 means 1; the environment variable PVK_SCALE
     * overrides it).  The guest still sees exactly the 1x bytes in its
     * memory; the LCD frames are `scale` x the screen size (see
     * pvk_set_scale). */
    uint32_t scale;
    /* Disk cache of compiled shaders and the Vulkan pipeline cache.  NULL:
     * PVK_CACHE_DIR from the environment, else $XDG_CACHE_HOME/picavk, else
     * ~/.cache/picavk.  A path: that directory (created if its parent
     * exists); the host's choice wins over PVK_CACHE_DIR.  "" (empty
     * string): no disk cache at all, nothing is read or written.  Read only
     * during pvk_context_create. */
    const char *cache_dir;
    /* The disk cache's size cap in bytes (0: PVK_DEFAULT_CACHE_MAX_BYTES).
     * Past it the least recently used files go (a hit counts as a use)
     * until three quarters are left: pvk_stats.disk_cache_evictions. */
    uint64_t cache_max_bytes;
    /* Worker threads that build shaders in the background (0: the default,
     * min(4, cores - 1); negative: none, every build on the calling thread
     * as the draw asks for it; at most 8).  The environment's
     * PVK_COMPILE_THREADS overrides it (0 there means none).  A draw never
     * waits for a vertex program's build: the CPU interpreter draws it,
     * with the same bytes, until the build is done
     * (pvk_stats.cpu_vs_while_building). */
    int compile_threads;
    /* The memory budget in MiB (0: PVK_MEMORY_BUDGET_MB from the
     * environment, else PVK_DEFAULT_MEMORY_BUDGET_MB; at least
     * PVK_MIN_MEMORY_BUDGET_MB): what the caches that grow with distinct
     * guest states may hold together.  Split (docs/memory.md): draw
     * pipelines 5/8, counted at an estimate of the driver's memory for one
     * (Vulkan does not report it), surfaces 3/16, textures 1/8, shader
     * modules and samplers the rest.  Past a share the least recently used
     * entries go without waiting for the GPU (pvk_stats.budget_evictions);
     * pvk_stats.held_* says what is held.  Guest memory, the device and the
     * driver's own globals are not in it. */
    uint32_t memory_budget_mb;
    /* Texture dumps (docs/texture-packs.md): every texture level a draw
     * decodes from guest memory, once per hash, written into this directory
     * (made if its parent exists) as a PNG named as Citra and Azahar name
     * their dumps (tex1_WxH_HASH_FORMAT_mipL.png), with a pack.json
     * template; by a worker thread, after the GPU's copy is done, never on
     * the draw's path.  NULL: PVK_TEXTURE_DUMP from the environment, else
     * none; "": none. */
    const char *texture_dump_dir;
    /* Texture packs (docs/texture-packs.md): a folder of replacement PNGs
     * as Citra and Azahar read it (pack.json's options and textures map,
     * the new or the old hash, files named by the hash of the texture
     * level they replace, of any
     * power-of-two multiple of its size); each replacement is decoded by a
     * worker thread (the original is drawn until it is ready) and sampled
     * at its full size.  NULL: PVK_TEXTURE_PACK from the environment, else
     * none; "": none; a path that is not a folder fails context creation. */
    const char *texture_pack_dir;
    /* A texture whose replacement is still being decoded waits for it
     * instead of being drawn as the original (as Azahar without
     * asynchronous loading; recordings and tests that must not depend on
     * timing).  PVK_TEXTURE_PACK_SYNC=1 in the environment does the same. */
    uint32_t texture_pack_sync; /* 0: off; else on */
    /* Texture filter at resolution scale N > 1 (docs/texture-packs.md):
     * "bicubic" upscales each texture decoded from guest memory N times on
     * the GPU, "mmpx" (pixel art) 2x as often as N allows, "anime4k" and
     * "scaleforce" N times, sharpening edges, "xbrz" N times, smoothing
     * the edges of pixel art along their slopes (render targets read as
     * textures, cube maps and pack replacements are not filtered); another
     * name fails context creation with PVK_ERROR_INVALID_ARGUMENT.  NULL:
     * PVK_TEXTURE_FILTER from the environment, else none; "" or "none":
     * none. */
    const char *texture_filter;
} pvk_config;
#define PVK_DEFAULT_CACHE_MAX_BYTES (64ull << 20)
#define PVK_DEFAULT_MEMORY_BUDGET_MB 768u
#define PVK_MIN_MEMORY_BUDGET_MB 64u

#define PVK_MAX_SCALE 10u

PVK_API pvk_result pvk_context_create(const pvk_config *config, pvk_context **out);
PVK_API void pvk_context_destroy(pvk_context *ctx);

/* The sticky error: PVK_ERROR_DEVICE_LOST once the device was lost, else PVK_SUCCESS. */
PVK_API pvk_result pvk_context_status(const pvk_context *ctx);
PVK_API const char *pvk_device_name(const pvk_context *ctx);

/* What the device offers; recorded once at context creation. */
typedef struct pvk_features {
    int logic_op;
    int dual_src_blend;
    int extended_dynamic_state;
    int extended_dynamic_state2;
    int extended_dynamic_state3;
    int rasterization_order_attachment_access;
    int external_memory_host;
    int custom_border_color;
    int formats_4444;
    int d24s8;
    int geometry_shader;
    int shader_stencil_export;
    int timeline_semaphore;
    int push_descriptor;
    int storage_buffer_8bit;
    int debug_utils;            /* objects named, passes and draws labelled (VK_EXT_debug_utils) */
} pvk_features;

PVK_API pvk_result pvk_get_features(const pvk_context *ctx, pvk_features *out);

/* The device a context runs on, for reports and bug reports (`picavk info`). */
typedef struct pvk_device_info {
    uint32_t api_version;    /* the device's Vulkan version (VK_API_VERSION_MAJOR/MINOR/PATCH) */
    uint32_t driver_version; /* encoded as the vendor likes; driver_info is the readable form */
    uint32_t vendor_id, device_id;
    VkPhysicalDeviceType type;
    char driver_name[VK_MAX_DRIVER_NAME_SIZE]; /* "llvmpipe", "NVIDIA", ...; "" when unknown */
    char driver_info[VK_MAX_DRIVER_INFO_SIZE]; /* "Mesa 24.0.5 (LLVM 17.0.6)", ...; "" when unknown */
} pvk_device_info;

PVK_API pvk_result pvk_get_device_info(const pvk_context *ctx, pvk_device_info *out);

/* Counters of what went wrong, for hosts and tests. */
typedef struct pvk_stats {
    uint64_t bad_input;         /* all logged errors caused by guest input */
    uint64_t out_of_range;      /* refused guest memory accesses (subset of bad_input) */
    uint64_t unsupported;       /* operations refused as not implemented */
    uint64_t validation_errors; /* Vulkan validation messages (error or warning) */
    uint64_t fills, transfers, texture_copies, command_lists;
    /* What reached the GPU: DRAWARRAYS/DRAWELEMENTS, vertices shaded (both
     * kinds and immediate mode), triangles drawn, immediate-mode vertices. */
    uint64_t draws, vertices, triangles, immediate_vertices;
    /* Draw pipelines: created, found in memory, fragment shaders compiled from
     * GLSL (not found in the disk cache), shaders loaded from the disk cache. */
    uint64_t pipelines_created, pipeline_hits, shader_compiles, shader_disk_hits;
    /* The surface cache: colour/depth buffers loaded from guest memory,
     * written back to it, converted on the GPU to another format of the
     * same bytes (reinterpreted instead of written back and reloaded),
     * cleared by a memory fill instead of reloaded, and the guest bytes
     * loads and write-backs moved (with the stencil bytes a reinterpretation
     * as D24S8 stores).  Draws into the same buffers add nothing here. */
    uint64_t surface_loads, surface_writebacks, surface_reinterpretations, surface_clears, surface_bytes;
    /* Display transfers that read a surface's image instead of writing it
     * back and reading guest memory, and (at resolution scale > 1) texture
     * copies of a whole render target made as a copy of its image. */
    uint64_t surface_transfers;
    /* Command buffers submitted to the queue: one per fill, transfer,
     * surface load or write-back, scan-out, and one per batch of consecutive
     * draws into the same buffers (PVK_DEBUG=roundtrip: one per draw).  A
     * batch is submitted when something else needs the GPU or waits for it
     * (any other operation, pvk_poll, pvk_wait_idle, pvk_guest_flush, a
     * register read, pvk_frame_read) or after 256 draws.  New fields are
     * added at the end; a host compiled against an older picavk.h is rebuilt
     * (0.x: no ABI promise yet). */
    uint64_t submissions;
    /* Textures (vram/texture.c): decoded from guest memory, found in the
     * texture cache unchanged, built on the GPU from a render target over
     * the same bytes (no write-back), and dropped because something wrote
     * their bytes or the guest cleared the texture cache.  Samplers
     * (runtime/sampler.c): created, and created with the nearest built-in
     * border colour because the device lacks custom ones. */
    uint64_t texture_decodes, texture_hits, texture_from_surface, texture_invalidations;
    uint64_t samplers_created, sampler_border_fallbacks;
    /* Texture units sampled by draws (runtime/draw.c), per draw and unit;
     * of those, the ones whose border colour the fragment shader applies
     * (no custom border colours, or an L/A/LA/HILO texture, whose swizzled
     * view Vulkan gives the border before the swizzle). */
    uint64_t texture_samples, shader_borders;
    /* Resolution scale (pvk_set_scale): images of scaled render targets
     * resolved to 1x (nearest) for a write-back, a display transfer or
     * texture built from one, or a reinterpretation. */
    uint64_t surface_resolves;
    /* Geometry programs (GEOSTAGE_CONFIG geometry shader on): draws whose
     * vertex and geometry programs ran in the GPU's compute pre-pass, draws
     * that could have and ran on the CPU interpreter instead (a program not
     * translated whole, more triangle slots or attribute bytes than the
     * pre-pass takes, the roundtrip path, the pixel budget), triangles an
     * invocation emitted past its slots (not drawn; later draws get room for
     * as many), and invocations that did not end (runaway, bad instruction:
     * what they emitted before is drawn).  The last two count finished GPU
     * work. */
    uint64_t gs_gpu_draws, gs_cpu_fallbacks, gs_excess_triangles, gs_unfinished;
    /* Write-backs of a surface to guest memory that failed (device lost, out
     * of memory): the bytes only the GPU held are lost; each is logged. */
    uint64_t surface_writeback_failures;
    /* Draw pipelines dropped from memory, the least recently used first,
     * when more distinct draw states than the cache holds (the memory
     * budget's share: docs/memory.md) came by; one used again is created
     * again (pipelines_created). */
    uint64_t pipeline_evictions;
    /* Time spent in glslang compiling generated shaders (shader_compiles of
     * them), in total and the slowest one, in nanoseconds. */
    uint64_t shader_compile_ns, shader_compile_max_ns;
    /* Disk cache files removed to keep it under pvk_config.cache_max_bytes. */
    uint64_t disk_cache_evictions;
    /* Fragment shader modules made (GLSL generated, then compiled or loaded
     * from disk); a pipeline for a key whose module is still in memory (64
     * kept), e.g. one that differs only in blend or depth state, makes none. */
    uint64_t fragment_modules_created;
    /* Times a library call waited for the GPU (pvk_flush, a read-back, a
     * register read and the like; evicting surfaces, textures, samplers and
     * pipelines never does: they wait in a deferred-destroy list). */
    uint64_t gpu_waits;
    /* Shaders built on the compile threads (pvk_config.compile_threads), and
     * draws whose vertex program ran on the CPU interpreter because its GPU
     * build was not done yet. */
    uint64_t background_builds, cpu_vs_while_building;
    /* Draws whose fragment shader was the ubershader (one shader for every
     * TEV, alpha-test, blend and texture-type state: exact, built once),
     * because their own pipeline was still being built or PVK_DEBUG=ubershader. */
    uint64_t ubershader_draws;
    /* Draws that waited for a pipeline's build on a compile thread: the
     * first state of a kind (fixed-function state, lighting, procedural
     * texture, sampled units and unit 0's texture type) waits for that
     * kind's ubershader pipeline. */
    uint64_t pipeline_waits;
    /* The per-call shader-instruction budget on the GPU paths (vertex and
     * geometry programs): instructions charged for them (invocations x the
     * bound the code shows, or x the per-invocation cap given to a program
     * whose code bounds nothing), draws whose programs ran under such a cap,
     * and draws left to the CPU interpreter because the charge did not fit
     * what the call had left (the interpreter then charges what it runs). */
    uint64_t gpu_steps_charged, gpu_capped_draws, gpu_budget_fallbacks;
    /* Ubershader pipelines that context creation started building on the
     * compile threads, for the kinds (fixed-function state, lighting
     * and procedural-texture structure) an earlier context drew: the
     * disk cache (pvk_config.cache_dir) remembers them per device. */
    uint64_t ubershader_prebuilds;
    /* Warm-up draws on a CPU device: a new vertex program drawn with a
     * fragment stage that never runs (every triangle culled) in a frame of
     * its own, so that the driver's compile of it and a fragment variant's
     * do not fall into one frame; the draw itself took the interpreter's
     * vertices. */
    uint64_t vs_warm_ups;
    /* Save states written (pvk_state_save with a buffer) and loaded. */
    uint64_t state_saves, state_loads;
    /* What the context holds now (not counters: pvk_get_stats reads them
     * at the call), per kind of cache, as a count and bytes: draw pipelines
     * (bytes: the budget's estimate of the driver's memory for each),
     * shader modules (fragment and vertex, their SPIR-V bytes), textures
     * and surfaces (their images' bytes, at the resolution scale for
     * surfaces), samplers; held_bytes is the sum, the figure the budget
     * (pvk_config.memory_budget_mb) bounds.  budget_evictions: entries any
     * of them dropped because its share of the budget was full (pipelines
     * also in pipeline_evictions). */
    uint64_t held_pipelines, held_pipeline_bytes, held_modules, held_module_bytes, held_textures, held_texture_bytes;
    uint64_t held_surfaces, held_surface_bytes, held_samplers, held_bytes, budget_evictions;
    /* Texture dumps (pvk_config.texture_dump_dir): PNG files written, and
     * levels not written (a file system error, logged by nothing but this). */
    uint64_t textures_dumped, texture_dump_failures;
    /* Texture packs (pvk_config.texture_pack_dir): textures drawn with a
     * pack's replacement (images made of one), texture lookups that drew
     * the original because its replacement was still being decoded,
     * replacement files refused (logged: unreadable, a size that is not a
     * power-of-two multiple of the texture's), and the host memory the
     * decoded replacements hold (in held_bytes too). */
    uint64_t textures_replaced, replacement_pending_draws, texture_pack_failures, held_pack_bytes;
    /* Textures the texture filter (pvk_config.texture_filter) upscaled. */
    uint64_t textures_filtered;
} pvk_stats;

PVK_API pvk_result pvk_get_stats(const pvk_context *ctx, pvk_stats *out);

/* ---- save states (docs/save-states.md) ----
 * The GPU's state as bytes, for a host's save state: the external and LCD
 * registers, the internal register file, shader code and uniforms, the
 * lighting, fog, gas and procedural-texture LUTs and the command
 * processor.  Not guest memory (the host saves that itself), not what
 * picavk caches (pipelines, surfaces, textures).  The bytes do not depend
 * on the device, the resolution scale or compile threads.
 *
 * pvk_state_save waits (bounded by wait_timeout_ms) for work in flight,
 * raising its IRQs as pvk_wait_idle does, and writes every cached surface
 * back to guest memory first; save guest memory and your own interrupt
 * state after it.  buf == NULL: *size receives the size needed, nothing
 * else happens; a buffer smaller than that: PVK_ERROR_INVALID_ARGUMENT. */
PVK_API pvk_result pvk_state_save(pvk_context *ctx, void *buf, size_t capacity, size_t *size);
/* Restores a state from pvk_state_save after the host restored guest memory
 * (with nothing of this context's in flight: pvk_wait_idle before the
 * restore).  Caches are dropped and rebuilt from guest memory.  A
 * truncated, corrupt or unknown-version blob, or one of the other 3DS
 * model: PVK_ERROR_BAD_DATA, logged, and the context unchanged.  The
 * screens keep the last frame until the next pvk_vblank. */
PVK_API pvk_result pvk_state_load(pvk_context *ctx, const void *buf, size_t size);

/* ---- guest memory ---- */

/* Host pointer for [paddr, paddr+len) if it lies inside one region, else
 * NULL (logged and counted as out_of_range). */
PVK_API void *pvk_guest_ptr(pvk_context *ctx, uint32_t paddr, uint32_t len);
/* The host changed guest memory behind picavk's back: cached render targets
 * over the range reload from memory (the host's bytes win; flush a render
 * target before writing into it). */
PVK_API pvk_result pvk_guest_written(pvk_context *ctx, uint32_t paddr, uint32_t len);
/* The host wants to read guest memory: render targets over the range are
 * written back, then GPU writes to it are waited for.  pvk_wait_idle writes
 * back every render target. */
PVK_API pvk_result pvk_guest_flush(pvk_context *ctx, uint32_t paddr, uint32_t len);

/* ---- external registers (0x10400000 - 0x10401FFF) ---- */

#define PVK_MMIO_BASE 0x10400000u
#define PVK_MMIO_SIZE 0x00002000u
#define PVK_MMIO_USER_VA 0x1EF00000u /* the 3DS userland mapping of the same registers */
#define PVK_MMIO_PICA 0x10401000u    /* PICA internal register n is at PVK_MMIO_PICA + 4 * n */

/* Translate a userland virtual address (0x1EF00000-based) to the physical
 * register address; physical addresses pass through.  Returns 0 for anything
 * outside both windows. */
PVK_API uint32_t pvk_mmio_address(uint32_t addr);

/* Reads return the register's value (unnamed offsets read 0).  A write that
 * starts work (memory fill, memcopy, command list) runs it; completion is
 * reported by the IRQ callback, by the status bits, and after pvk_wait_idle. */
PVK_API pvk_result pvk_mmio_read32(pvk_context *ctx, uint32_t paddr, uint32_t *value);
PVK_API pvk_result pvk_mmio_write32(pvk_context *ctx, uint32_t paddr, uint32_t value);

/* A GPU register by name: the external registers as the register documents
 * name them ("GPU_PDC0_FB_STRIDE", any case) or a PICA internal register as
 * libctru names it ("GPUREG_BLEND_FUNC"; the prefix may be left out).
 * Returns its physical address, or 0 for an unknown name. */
PVK_API uint32_t pvk_register_address(const char *name);
/* The name of the register at physical address `paddr`, or NULL. */
PVK_API const char *pvk_register_name(uint32_t paddr);

/* The colour and depth buffers the PICA registers describe now (for tools
 * and debuggers; the GPU keeps using the registers). */
typedef struct pvk_framebuffer_info {
    uint32_t width, height;
    uint32_t color_addr, depth_addr;  /* guest physical */
    uint32_t color_format;            /* 0 RGBA8, 1 RGB8, 2 RGB5A1, 3 RGB565, 4 RGBA4 */
    uint32_t depth_format;            /* 0 D16, 2 D24, 3 D24S8 */
    uint32_t color_bpp, depth_bpp;    /* bytes per pixel; 0 for an unknown format */
} pvk_framebuffer_info;
PVK_API pvk_result pvk_get_framebuffer(pvk_context *ctx, pvk_framebuffer_info *out);

/* Hand a message to the context's log (tools that drive a context report
 * through the same channel as picavk). */
PVK_API void pvk_log_message(pvk_context *ctx, pvk_log_level level, const char *message);

/* Retire finished GPU work (raise completion bits and IRQs) without waiting.
 * Draws not yet submitted (consecutive draws wait in one batch for the next
 * operation or wait, see pvk_stats.submissions) are submitted first. */
PVK_API pvk_result pvk_poll(pvk_context *ctx);
/* Wait for all submitted GPU work, then retire it. */
PVK_API pvk_result pvk_wait_idle(pvk_context *ctx);

/* ---- command lists ---- */

/* Run the PICA command list at guest physical [paddr, paddr+size) now, the
 * way GSP does: CMDBUF_SIZE0 = size >> 3, CMDBUF_ADDR0 = paddr >> 3, then
 * bit 0 to CMDBUF_JUMP0 (0x104018E0/E8/F0).  paddr must be 16-byte aligned
 * and size a multiple of 16.  Jumps inside the list are followed; FINALIZE
 * raises PVK_IRQ_P3D.  A malformed list is logged, counted (bad_input) and
 * stopped, with PVK_ERROR_BAD_PARAMETERS or PVK_ERROR_OUT_OF_RANGE. */
PVK_API pvk_result pvk_command_list_run(pvk_context *ctx, uint32_t paddr, uint32_t size);

/* ---- LCD output (PDC0 top, PDC1 bottom) ---- */

typedef enum pvk_screen {
    PVK_SCREEN_TOP = 0,       /* top screen, left eye (the only one in 2D) */
    PVK_SCREEN_TOP_RIGHT = 1, /* top screen, right eye: present in AB/BA interlace when B differs from A */
    PVK_SCREEN_BOTTOM = 2,
    PVK_SCREEN_COUNT = 3,
} pvk_screen;

/* Once per 3DS frame: latch each PDC's framebuffer select, raise the VBlank
 * status bits and IRQs, and scan both screens out into new frame images.
 * Reusing the images of an older frame still being made waits at most
 * pvk_config.wait_timeout_ms: PVK_ERROR_TIMEOUT then, and nothing of this
 * VBlank happened (no IRQ, no frame); call it again. */
PVK_API pvk_result pvk_vblank(pvk_context *ctx);

/* Change the resolution scale (1..PVK_MAX_SCALE, 0 means 1) between frames.
 * Render targets are re-created at the new scale when next drawn into (a
 * target newer than guest memory is written back first), so the guest sees
 * no difference.  Frames (pvk_frame_size/read) are `scale` x the screen
 * size from the next pvk_vblank on: a screen showing what a display transfer
 * copied out of a render target shows that target's scaled image; other
 * screens (drawn by the CPU) are the 1x scan-out upsampled (nearest).
 * pvk_set_output's scale multiplies on top of it. */
PVK_API pvk_result pvk_set_scale(pvk_context *ctx, uint32_t scale);
/* The resolution scale in effect (1 for NULL). */
PVK_API uint32_t pvk_get_scale(const pvk_context *ctx);

/* Size of the last frame of `screen` (0 x 0 when it has none, e.g. no right eye). */
PVK_API pvk_result pvk_frame_size(pvk_context *ctx, pvk_screen screen, uint32_t *width, uint32_t *height);
/* Copy the last frame of `screen`, upright, RGBA8 (bytes R,G,B,A), to host
 * memory with `stride` bytes per row; waits for the scan-out. */
PVK_API pvk_result pvk_frame_read(pvk_context *ctx, pvk_screen screen, void *rgba, size_t stride);

/* Frames as VkImages for a host that owns a swapchain.  Every screen image is
 * upright RGBA8 (VK_FORMAT_R8G8B8A8_UNORM) at `scale` times the frame size
 * (the screen size times the resolution scale of pvk_set_scale);
 * the combined layouts add one image holding both screens. */
typedef enum pvk_output_layout {
    PVK_LAYOUT_SEPARATE = 0,     /* one image per screen only */
    PVK_LAYOUT_STACKED = 1,      /* plus `combined`: top above bottom, bottom centred (400x480 at 1x) */
    PVK_LAYOUT_SIDE_BY_SIDE = 2, /* plus `combined`: top left, bottom right, tops aligned (720x240 at 1x) */
} pvk_output_layout;

typedef enum pvk_output_filter {
    PVK_FILTER_NEAREST = 0,
    PVK_FILTER_LINEAR = 1,
} pvk_output_filter;

/* Output images are capped: at most PVK_OUTPUT_MAX_DIM pixels a side and
 * PVK_OUTPUT_MAX_PIXELS (64 MiB of RGBA8) each, so a guest that programs a
 * huge screen cannot make picavk allocate gigabytes.  A frame too big for
 * the configured scale is made at the largest scale that fits (logged).
 * The 400x240 and 320x240 screens fit every scale up to 8 in every layout;
 * 800-line wide mode up to 6 stacked and 7 side by side; a guest-programmed
 * 1024x1024 screen up to 4. */
#define PVK_OUTPUT_MAX_DIM 8192u
#define PVK_OUTPUT_MAX_PIXELS (1u << 24)

/* Zero means default for every field. */
typedef struct pvk_output_config {
    uint32_t scale;             /* integer output scale 1..8 (default 1; lowered per frame to
                                   fit PVK_OUTPUT_MAX_*) */
    pvk_output_layout layout;
    pvk_output_filter filter;   /* how scaled images are filled */
    VkImageLayout image_layout; /* layout the images are in once ready: SHADER_READ_ONLY_OPTIMAL
                                   (default), TRANSFER_SRC_OPTIMAL or GENERAL */
} pvk_output_config;

/* Applies from the next pvk_vblank on.  NULL restores the defaults. */
PVK_API pvk_result pvk_set_output(pvk_context *ctx, const pvk_output_config *config);

typedef struct pvk_frame_image {
    VkImage image;          /* VK_NULL_HANDLE: no such image in this frame */
    VkImageView view;       /* 2D colour view of the whole image */
    VkImageLayout layout;
    VkFormat format;
    VkExtent2D extent;
} pvk_frame_image;

typedef struct pvk_frame {
    uint64_t frame;         /* the VBlank (1, 2, ...) that made it; 0: no frame yet */
    pvk_frame_image screens[PVK_SCREEN_COUNT];
    pvk_frame_image combined;          /* STACKED / SIDE_BY_SIDE only */
    VkRect2D rects[PVK_SCREEN_COUNT];  /* each screen's place in `combined` (right eye: none) */
    /* Wait for `semaphore` (timeline) to reach `value` before using the images,
     * on the queue family `queue_family` that owns them. */
    VkSemaphore semaphore;
    uint64_t value;
    uint32_t queue_family;
} pvk_frame;

/* The newest frame's images.  They stay untouched until pvk_frame_release
 * (later VBlanks render into other images); the host may change their layout.
 * Several acquires of the same frame need as many releases. */
PVK_API pvk_result pvk_frame_acquire(pvk_context *ctx, pvk_frame *frame);
/* The host is done with `frame`.  `done` (optional, a timeline semaphore of the
 * same device) reaching `done_value` marks the end of the host's GPU use of
 * the images; picavk waits for it before it writes them again. */
PVK_API pvk_result pvk_frame_release(pvk_context *ctx, const pvk_frame *frame, VkSemaphore done, uint64_t done_value);

/* ---- traces ---- */

/* Record everything the host hands this context (register writes, the guest
 * memory the GPU reads, VBlanks) into a zstd-compressed trace file that
 * `picavk replay` or pvk_trace_replay plays back with nothing else. */
PVK_API pvk_result pvk_trace_begin(pvk_context *ctx, const char *path);
PVK_API pvk_result pvk_trace_end(pvk_context *ctx);

/* Called after each replayed VBlank; a non-success result stops the replay. */
typedef pvk_result (*pvk_frame_fn)(void *user, pvk_context *ctx, uint32_t frame);
/* Replay a trace into `ctx`.  A corrupt or truncated file is reported
 * (logged, counted) as PVK_ERROR_BAD_DATA; what came before it was applied. */
PVK_API pvk_result pvk_trace_replay(pvk_context *ctx, const char *path, pvk_frame_fn on_frame, void *user);
/* Continue a replay from frame `frame` (0-based) with a save state
 * pvk_state_save wrote as that frame began (after `frame` VBlanks): the
 * records of the frames before only write guest memory, then the state is
 * loaded and the replay goes on, `on_frame` counting from `frame`. */
PVK_API pvk_result pvk_trace_replay_from(pvk_context *ctx, const char *path, uint32_t frame, const void *state,
                                         size_t state_size, pvk_frame_fn on_frame, void *user);

/* How many frames (VBlanks) a picavk trace or a CiTrace file holds, read
 * without a context or applying anything (for progress displays).
 * PVK_ERROR_BAD_DATA for a corrupt or truncated file. */
PVK_API pvk_result pvk_trace_frames(const char *path, uint32_t *frames);

/* Play a Citra CiTrace (.ctf) file: its initial register state, memory
 * loads, register writes and frame markers (each a pvk_vblank). */
PVK_API pvk_result pvk_citrace_replay(pvk_context *ctx, const char *path, pvk_frame_fn on_frame, void *user);
PVK_API pvk_result pvk_citrace_replay_memory(pvk_context *ctx, const void *data, size_t size, pvk_frame_fn on_frame,
                                     void *user);

/* XXH3-64 over the last frame of every screen (sizes and RGBA8 pixels). */
PVK_API pvk_result pvk_frame_hash(pvk_context *ctx, uint64_t *hash);

#ifdef __cplusplus
}
#endif
#endif
