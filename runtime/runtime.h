/* runtime/ owns the context and the public API: the context as its layers'
 * state (gpu/ the Vulkan layer, vram/ guest memory and transfers, the
 * translator's register file), the PICA -> Vulkan translation tables
 * (pica_to_vk.c), drawing the translator's packets (draw*.c, pipeline.c, shader_cache.c, render_pass.c,
 * fragdata.c, gs_draw.c, vs_compute.c, sampler.c), LCD presentation
 * (present.c), traces, and every public entry point (api.c).  It never
 * decodes PICA registers: it reads the translator's descriptions.  It is the
 * top of the library: nothing below includes this header.  What tests and
 * the layers' callbacks (pvk_ctx_of_gpu, pvk_ctx_of_vram) use of it. */
#ifndef PVK_RUNTIME_H
#define PVK_RUNTIME_H

#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include <volk.h>

#include "picavk/picavk.h"
#include "gpu/gpu.h"
#include "vram/vram.h"
#include "translator/translator.h"
#include "shaders/shaders.h"

/* A context is its layers' state, bottom up: the Vulkan layer (gpu/), guest
 * memory and what moves it (vram/), then the translator's register file and
 * runtime/'s drawing, LCD and traces. */
/* ---- keys for the device (runtime/keys.c) ----
 * What the device gives the keys, filled once at context creation: the
 * guest's keys (the translator's) and the device's (the resolvers') are
 * separate values, and only the resolvers below turn one into the other. */
typedef struct pvk_device_profile {
    bool attachment_read; /* draws may read their colour attachment: exact blending, shadow rendering */
    bool lut_ubo;         /* the fragment LUTs fit a uniform buffer (else a storage buffer; PVK_DEBUG=lut-storage) */
    bool shader_float64;  /* generated vertex programs compute RCP/RSQ/EX2/LG2 in doubles */
} pvk_device_profile;
#define PVK_FRAGDATA_LUT_BYTES ((VkDeviceSize)PVK_FRAG_LUT_WORDS * 4)
/* What a resolution changed that the caller reports (counted, logged once). */
typedef struct pvk_resolve_notes {
    bool shadow_dropped; /* shadow rendering without attachment reads: the TEV colour is written */
} pvk_resolve_notes;
/* Fill ctx->profile from the device and PVK_DEBUG (context creation). */
void pvk_profile_init(pvk_context *ctx);
/* The keys a draw uses on this device from the translator's (`pipe`/`fs` may
 * be the guest's own): with attachment
 * reads on the draw's path (`attachment_read`: a render-pass batch) a blend
 * Vulkan's unit would round moves from the pipeline key into the fragment key
 * (the shader blends exactly); shadow rendering needs such a path; the LUT
 * binding kind follows the profile. */
pvk_resolve_notes pvk_keys_resolve(const pvk_device_profile *p, bool attachment_read, const pvk_pipe_key *guest_pipe,
                                   const pvk_fs_key *guest_fs, pvk_pipe_key *pipe, pvk_fs_key *fs);
/* The LUT binding kind in `fs` (fl.lut_ubo) for the profile: a uniform
 * buffer where the device's range holds them and the shader reads them (an
 * ubershader always does).  Part of pvk_keys_resolve. */
void pvk_keys_lut_binding(const pvk_device_profile *p, pvk_fs_key *fs);
/* Generated vertex and geometry programs' flags on this device (F64). */
uint32_t pvk_vs_flags_for_device(const pvk_device_profile *p, uint32_t flags);

struct pvk_context {
    pvk_gpu gpu; /* gpu/ */
    pvk_vram vram; /* vram/ (vram.gpu points at gpu) */
    pvk_device_profile profile; /* runtime/keys.c: filled once after the device */
    pvk_pica pica; /* translator/: internal register file */
    /* debug builds: the thread inside a public call (api.c), and how deep */
    _Atomic(uintptr_t) owner;
    uint32_t depth;
    struct pvk_lcd *lcd;      /* runtime/present.c */
    struct pvk_trace *trace;  /* runtime/trace.c: recording when not NULL */
    struct pvk_draw *draw;    /* runtime/draw.c */
    struct pvk_gs *gs;        /* runtime/gs_draw.c (made on the first geometry draw) */
    struct pvk_fragdata *fragdata; /* runtime/fragdata.c (made on first use) */
    struct pvk_pipelines *pipelines; /* runtime/pipeline.c */
    struct pvk_compiler *compiler;   /* runtime/compile.c: background builds */
    struct pvk_samplers *samplers; /* runtime/sampler.c */
};
/* The context a layer's callback was handed the part of (batch close,
 * retire callbacks of runtime/, the guest-memory observer). */
static inline pvk_context *pvk_ctx_of_gpu(pvk_gpu *gpu)
{
    return (pvk_context *)(void *)((char *)gpu - offsetof(pvk_context, gpu));
}
static inline pvk_context *pvk_ctx_of_vram(pvk_vram *vm)
{
    return (pvk_context *)(void *)((char *)vm - offsetof(pvk_context, vram));
}

/* Set ctx->vram.scale (0 means 1); false (logged, naming `what`) when out of range. */
bool pvk_scale_set(pvk_context *ctx, uint32_t scale, const char *what);

/* ---- PICA -> Vulkan tables (runtime/pica_to_vk.c) ---- */
VkCompareOp pvk_vk_compare_op(uint32_t func);
VkCullModeFlags pvk_vk_cull_mode(uint32_t mode);
VkFormat pvk_vk_attrib_format(uint32_t type, uint32_t comps);
VkLogicOp pvk_vk_logic_op(uint32_t op);
VkBlendOp pvk_vk_blend_op(uint32_t eq);
VkBlendFactor pvk_vk_blend_factor(uint32_t f);
VkStencilOp pvk_vk_stencil_op(uint32_t op);
VkFilter pvk_vk_filter(uint32_t filter);
VkSamplerMipmapMode pvk_vk_mipmap_mode(uint32_t filter);
VkSamplerAddressMode pvk_vk_address_mode(uint32_t wrap);
VkBorderColor pvk_vk_border_color(uint32_t rgba);

/* ---- samplers (runtime/sampler.c) ---- */
/* A texture unit's sampling state in PICA codes: zero-initialised, compared
 * with memcmp; the border colour is 0 unless a wrap clamps to it. */
typedef struct pvk_sampler_key {
    uint8_t mag_filter, min_filter, mip_filter; /* 0 nearest, 1 linear */
    uint8_t wrap_s, wrap_t;                     /* TEXUNITi_PARAM wraps 0-7 */
    uint8_t compare;                            /* 1: shadow types (depth compare) */
    uint8_t min_level, max_level;               /* TEXUNITi_LOD */
    int16_t lod_bias;                           /* fixed1.4.8 */
    uint8_t pad[2];
    uint32_t border;                            /* R, G, B, A bytes */
} pvk_sampler_key;
_Static_assert(sizeof(pvk_sampler_key) == 16, "pvk_sampler_key is packed");
#define PVK_SAMPLER_CACHE 32 /* samplers kept; the least recently used goes */
uint32_t pvk_samplers_held(const pvk_context *ctx);
pvk_result pvk_samplers_init(pvk_context *ctx);
void pvk_samplers_destroy(pvk_context *ctx);
void pvk_sampler_key_from_desc(const pvk_tex_desc *d, pvk_sampler_key *out);
/* The create info for a key; a custom border colour goes in `cbc` (chained
 * into `ci`) when the device has them.  *border_fallback: the key clamps to
 * a border colour that Vulkan's nearest built-in one stands for. */
void pvk_sampler_info(const pvk_context *ctx, const pvk_sampler_key *k, VkSamplerCreateInfo *ci,
                      VkSamplerCustomBorderColorCreateInfoEXT *cbc, bool *border_fallback);
/* The sampler for a key, created on first use (VK_NULL_HANDLE after a logged
 * failure); it lives until evicted, at least until the GPU passes the
 * current batch.  *emulate_border (may be NULL): the border colour is a
 * built-in stand-in, so a shader that wants the PICA's must clamp itself. */
VkSampler pvk_sampler_get(pvk_context *ctx, const pvk_sampler_key *k, bool *emulate_border);
/* Samplers cached now (tests). */
uint32_t pvk_sampler_count(const pvk_context *ctx);

/* ---- the context (runtime/context.c) ---- */
pvk_result pvk_ctx_create(const pvk_config *config, pvk_context **out);
void pvk_ctx_destroy(pvk_context *ctx);
/* The register bus: `paddr` must pass pvk_ctx_mmio_check (physical, aligned,
 * inside the GPU's window); routes to vram/ (external) or translator/ (PICA). */
bool pvk_ctx_mmio_check(pvk_context *ctx, uint32_t paddr, const char *what);
uint32_t pvk_ctx_mmio_read(pvk_context *ctx, uint32_t paddr);
pvk_result pvk_ctx_mmio_write(pvk_context *ctx, uint32_t paddr, uint32_t value);

/* ---- traces (runtime/trace.c, runtime/citrace.c) ---- */
typedef struct pvk_trace pvk_trace;
pvk_result pvk_trace_start(pvk_context *ctx, const char *path);
pvk_result pvk_trace_stop(pvk_context *ctx);
/* Recording hooks; call only when ctx->trace. */
void pvk_trace_mmio(pvk_context *ctx, uint32_t paddr, uint32_t value);
void pvk_trace_vblank(pvk_context *ctx);
/* Players: feed a file to the context through the register bus, guest
 * memory and the LCD, calling `on_frame` after each VBlank.  With a save
 * `state` (pvk_trace_play): frames before `from` only write guest memory,
 * then the state is loaded and the replay goes on from frame `from`. */
pvk_result pvk_trace_play(pvk_context *ctx, const char *path, uint32_t from, const void *state, size_t state_size,
                          pvk_frame_fn on_frame, void *user);
pvk_result pvk_citrace_play(pvk_context *ctx, const void *data, size_t size, pvk_frame_fn on_frame, void *user);
pvk_result pvk_citrace_play_file(pvk_context *ctx, const char *path, pvk_frame_fn on_frame, void *user);
/* Frames in a file, nothing applied (progress displays). */
pvk_result pvk_trace_count_frames(const char *path, uint32_t *frames);
pvk_result pvk_citrace_count_frames(const void *data, size_t size, uint32_t *frames);

/* Little-endian words of the files and blobs runtime/ writes and reads
 * (traces, CiTrace files, save states). */
static inline void pvk_put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
static inline uint32_t pvk_get_le32(const uint8_t *p)
{
    return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---- save states (runtime/state.c): pvk_state_save/pvk_state_load's work ---- */
pvk_result pvk_state_write(pvk_context *ctx, void *buf, size_t capacity, size_t *size);
pvk_result pvk_state_read(pvk_context *ctx, const void *data, size_t size);

/* ---- drawing (runtime/draw.c) ---- */
pvk_result pvk_draw_init(pvk_context *ctx);
/* Render one packet of the translator into the guest buffers it names. */
pvk_result pvk_draw_submit(pvk_context *ctx, const pvk_draw_packet *packet);
void pvk_draw_destroy(pvk_context *ctx);

/* ---- fragment LUTs and parameters (runtime/fragdata.c) ---- */
typedef struct pvk_fragdata_ref {
    VkDeviceSize lut_off, params_off;
    VkDeviceSize uber_off;   /* the ubershader's block (pvk_fragdata_uber) */
    bool luts, uber;         /* which of them the draw binds */
} pvk_fragdata_ref;
/* The packet's LUT and parameter blocks (when its shader reads them) and
 * the ubershader's data block `uber` (pvk_fs_uber_state; NULL: none) in the
 * ring, each copied when it changed; call before the draw's batch is chosen:
 * it may submit the open batch to reuse ring space. */
pvk_result pvk_fragdata_prepare(pvk_context *ctx, const pvk_draw_packet *pk, const uint32_t *uber,
                                pvk_fragdata_ref *ref);
/* The descriptor writes of what `ref` holds (bindings 5 and 6, 9), their
 * buffer infos in `info`; how many (0: the shader reads none). */
uint32_t pvk_fragdata_writes(pvk_context *ctx, const pvk_fragdata_ref *ref, VkWriteDescriptorSet w[3],
                             VkDescriptorBufferInfo info[3]);
/* The draw reading them is done when the timeline reaches `value`. */
void pvk_fragdata_used(pvk_context *ctx, const pvk_fragdata_ref *ref, uint64_t value);
void pvk_fragdata_destroy(pvk_context *ctx);
/* The LUTs' descriptor type: a uniform buffer where maxUniformBufferRange
 * holds them (faster than a storage buffer on lavapipe), else a storage
 * buffer; the draw layout and every key (pvk_keys_resolve) follow it. */
VkDescriptorType pvk_fragdata_lut_type(const pvk_context *ctx);

/* ---- draw pipelines (runtime/pipeline.c, shader_cache.c, render_pass.c) ---- */
/* The layout every draw pipeline shares: vertex push constants (clip plane,
 * 32 bytes), fragment push constants from offset 32 (pvk_draw_push). */
typedef struct pvk_draw_push {
    int32_t exclude[4];
    float depth_scale, depth_offset, depth_max;
    uint32_t w_buffer;
    pvk_fs_uniforms fs;
    uint32_t blend_color;  /* BLEND_COLOR: declared only by shaders that blend (pvk_fs_key.blend) */
    uint32_t uber_tex;     /* the ubershader's texture word (pvk_fs_uber_tex) */
} pvk_draw_push;
_Static_assert(32 + offsetof(pvk_draw_push, uber_tex) == 116, "translator/glsl_fs.c's uber_tex offset");
pvk_result pvk_pipelines_init(pvk_context *ctx);
void pvk_pipelines_destroy(pvk_context *ctx);
/* Pipelines and shader modules held now (pvk_stats.held_*). */
void pvk_pipelines_held(const pvk_context *ctx, pvk_stats *out);
VkPipelineLayout pvk_pipeline_layout(const pvk_context *ctx);
/* Draws with fragment lighting can run their vertex program on the GPU
 * (the geometry shader of pvk_builtin_draw_quat_geom_spirv exists). */
bool pvk_pipeline_quat_geom(pvk_context *ctx);
/* The pipeline for these keys (built and cached on first use; the last
 * one is found without hashing).  VK_NULL_HANDLE after a logged failure.
 * *uber in: the draw's ubershader data is in place (pvk_draw_uber_state);
 * out: the pipeline returned is the ubershader's.  A new pipeline is built
 * by a compile thread (pvk_config.compile_threads); meanwhile the draw takes
 * the ubershader's pipeline for the same fixed-function state, waiting only
 * while that one builds (pvk_stats.pipeline_waits: the first state of a
 * kind); a draw with a vertex program on the GPU (`vs`) whose pipelines are
 * building is sent back (VK_NULL_HANDLE, *cpu_vs set; cpu_vs NULL: never)
 * to take that pipeline with the CPU interpreter's vertices. */
VkPipeline pvk_pipeline_get(pvk_context *ctx, const pvk_pipe_key *pipe, const pvk_fs_key *fs, VkFormat depth_format,
                            bool render_pass, const pvk_vs_draw *vs, bool *uber, bool *cpu_vs);
/* Pipelines are built on compile threads (a draw may take the ubershader meanwhile). */
bool pvk_pipelines_async(const pvk_context *ctx);
/* A frame ends (pvk_vblank): new pipelines' first draws are paced by frames. */
void pvk_pipelines_vblank(pvk_context *ctx);
/* Context creation, last: the ubershader pipelines of the kinds the disk
 * cache remembers (runtime/uber_kinds.c) start building on the compile
 * threads; the kinds drawn are written back at pvk_pipelines_destroy. */
void pvk_uber_kinds_prebuild(pvk_context *ctx);
/* Draws with vertex programs on the GPU (`vs` of the packet; pvk_pipeline_get
 * takes it then): the generated vertex module for its key, compiled now
 * (memory and disk cache).  PVK_ERROR_MISSING_FEATURE when the translator
 * does not take the program whole or the device lacks a vertex format it
 * needs: the translator draws on the CPU instead; *building tells the
 * module is still being built (the draw goes back to the GPU path after). */
pvk_result pvk_vs_module_prepare(pvk_context *ctx, const pvk_vs_draw *vs, bool *building);
/* The attachment-read path: a render pass whose subpass has the RGBA8 colour
 * attachment as input attachment 0 too, and `depth` (UNDEFINED: none) loaded
 * and stored (`load`) or cleared; and an imageless framebuffer for it of
 * w x h.  Cached for the context; VK_NULL_HANDLE after a logged failure. */
VkRenderPass pvk_render_pass_get(pvk_context *ctx, VkFormat depth, bool load);
VkFramebuffer pvk_framebuffer_get(pvk_context *ctx, VkFormat depth, bool load, uint32_t w, uint32_t h);
/* The draw layout's one descriptor set (0, push descriptors): bindings 0-2
 * are texture units 0-2 (combined image samplers, pushed per draw that
 * samples), 3 is kept for textures too; binding 4 is the colour attachment
 * as input attachment 0 for shaders that blend. */
#define PVK_DRAW_BINDING_TEX0 0u
#define PVK_DRAW_BINDING_DST 4u
/* Bindings 5 and 6: the fog/lighting/procedural-texture LUT words (storage
 * buffer) and parameters (uniform buffer, pvk_fs_params), for shaders whose
 * key uses them (pvk_fs_uses_fragdata; runtime/fragdata.c). */
#define PVK_DRAW_BINDING_FRAG_LUTS 5u
#define PVK_DRAW_BINDING_FRAG_PARAMS 6u
/* Binding 7 (PVK_DRAW_BINDING_VS, translator.h): the generated vertex
 * shader's uniforms, a storage buffer in the draw ring; binding 8
 * (PVK_DRAW_BINDING_VS_STATUS): the draw's pvk_vs_status, in the ring too. */
/* A binding of a pipeline layout, for the check below. */
typedef struct pvk_layout_binding {
    uint32_t set, binding;
    VkDescriptorType type;
    VkShaderStageFlags stages;
} pvk_layout_binding;
/* Does a module (reflected by shaders/spvc.c) fit a pipeline layout?  Its
 * push-constant block must lie inside the ranges given to `stage`, each
 * resource it uses must be one of `bindings` (same set, binding and type,
 * visible to `stage`), and (with `prev`, the stage before) each of its
 * inputs must be an output of `prev` at the same location with the same type
 * and interpolation.  False with the reason in `why`.  Debug builds and
 * PVK_DEBUG=shaders check every generated module with it. */
struct pvk_spirv_info;
bool pvk_shader_fits_layout(const struct pvk_spirv_info *m, VkShaderStageFlagBits stage,
                            const struct pvk_spirv_info *prev, const VkPushConstantRange *ranges, uint32_t n_ranges,
                            const pvk_layout_binding *bindings, uint32_t n_bindings, char *why, size_t cap);

/* SPIR-V of generated GLSL (runtime/shader_cache.c): from the disk cache by
 * `hash` of the source when it has it, else compiled (and stored); NULL
 * after a logged failure (generated code that does not compile is picavk's
 * bug).  free() the words. */
uint32_t *pvk_shader_spirv(pvk_context *ctx, pvk_shader_stage stage, const char *src, uint64_t hash,
                           size_t *n_words);

/* ---- geometry programs on the GPU (runtime/gs_draw.c) ----
 * The compute pre-pass of pvk_gs_draw packets; runtime/draw.c owns the ring
 * regions and the draw. */
#define PVK_GS_MAX_RING_BYTES ((VkDeviceSize)24 << 20) /* one draw's pre-pass region at most (else the CPU path) */
/* The passes' push constants (translator/glsl_gs.c's PicaPush). */
typedef struct pvk_gs_push {
    uint32_t n;                  /* invocations (the passes set it) */
    uint32_t idx_word;           /* indexed: ring word of the u16 indices */
    int32_t vertex_offset;       /* indexed: added to each index */
    uint32_t indexed;
    uint32_t table_word;         /* variable primitives: ring word of the (first, count) table */
    uint32_t tri_slots;          /* triangle slots per invocation */
    uint32_t light;              /* fragment lighting: quaternions along the shorter arc per triangle */
    uint32_t pad;
    uint32_t boff[12];           /* per attribute binding: ring byte of its vertex 0 */
} pvk_gs_push;
/* Ring offsets and sizes of the passes' buffers. */
typedef struct pvk_gs_ranges {
    VkDeviceSize vs_uni, gs_uni, vso, vso_bytes, tri, tri_bytes;
    VkDeviceSize cnt;            /* the draw's counters (PVK_GS_COUNTERS words, zeroed) */
} pvk_gs_ranges;
#define PVK_GS_COUNTERS 4u       /* excess triangles, unfinished invocations, most triangles wanted, unused */
/* A pre-pass's counters once its batch is done (runtime/draw.c reads them
 * from the ring): added to the context's; returns the unfinished invocations. */
uint32_t pvk_gs_account(pvk_context *ctx, uint64_t key_hash, const uint32_t cnt[PVK_GS_COUNTERS]);
/* What pvk_gs_account and pvk_gs_slots know a draw's programs by. */
uint64_t pvk_gs_key_hash(const pvk_gs_draw *gs);
/* The two pipelines for the draw's key (created on first use, cached);
 * PVK_ERROR_MISSING_FEATURE when the translator does not take a program
 * whole: the draw runs on the CPU. */
pvk_result pvk_gs_prepare(pvk_context *ctx, const pvk_gs_draw *gs, VkPipeline *vertex, VkPipeline *geometry);
/* Record both passes into `cmd` (outside any rendering) and the barriers
 * that make the slots vertices of later submissions. */
void pvk_gs_record(pvk_context *ctx, VkCommandBuffer cmd, const pvk_gs_draw *gs, VkPipeline vertex,
                   VkPipeline geometry, VkBuffer ring, const pvk_gs_ranges *rg, const pvk_gs_push *push);
/* Triangle slots for a draw whose code bounds an invocation to `hint`
 * triangles (gs->tri_slots; 0: unknown: PVK_GS_DEFAULT_SLOTS or the most
 * an earlier invocation of the same key wanted); 0 when that is more than PVK_GS_MAX_SLOTS (the
 * CPU path's draw: the GPU's would drop triangles every time). */
uint32_t pvk_gs_slots(const pvk_context *ctx, const pvk_gs_draw *gs);
/* What the shaders counted so far (finished work): triangles past the
 * slots, invocations that did not end. */
void pvk_gs_counts(const pvk_context *ctx, uint64_t *excess, uint64_t *unfinished);
void pvk_gs_destroy(pvk_context *ctx);

/* ---- vertex programs on the GPU through compute (runtime/vs_compute.c) ----
 * A harness for the GLSL translator (translator/glsl_vs.c): N input vertices
 * (v0-v15 as raw f32, 16 vec4 each) through a vertex program into an output
 * record each; compute pipelines cached in memory by a packed program key. */
typedef struct pvk_vs_compute pvk_vs_compute;
enum {
    PVK_VS_STATUS_OK = 0,
    PVK_VS_STATUS_RUNAWAY = 1, /* more than max_steps instructions */
    PVK_VS_STATUS_BAD = 2,     /* PC past code memory, undefined opcode, BREAK outside a LOOP */
    PVK_VS_STATUS_FALLBACK = 3, /* left the translated code (glsl_vs.c): run this vertex on the interpreter */
};
/* One vertex's result.  r, a0, aL, cmp only with `regs` (the tests). */
typedef struct pvk_vs_result {
    float o[PVK_SH_OUTPUTS][4]; /* unwritten outputs are 0 */
    uint32_t status, steps, end_pc, pad;
    float r[16][4];
    int32_t a0[2];
    uint32_t aL, cmp;           /* cmp: bit 0 x, bit 1 y */
} pvk_vs_result;
pvk_result pvk_vs_compute_create(pvk_context *ctx, pvk_vs_compute **out);
void pvk_vs_compute_destroy(pvk_vs_compute *vc);
/* Run `n` vertices of `in` (n * 16 vec4) through program `prog` (its flags
 * get PVK_GLSL_VS_F64 where the device has shaderFloat64) with uniforms
 * `uni`; waits for the GPU.  With `regs` the results carry r, a0, aL and
 * cmp.  PVK_ERROR_BAD_DATA when the translator refuses the program (run the
 * interpreter instead). */
pvk_result pvk_vs_compute_run(pvk_vs_compute *vc, const pvk_vs_program *prog, const pvk_vs_uniforms *uni,
                              const float (*in)[PVK_SH_INPUTS][4], uint32_t n, bool regs, pvk_vs_result *out);
/* Pipelines compiled so far (cache misses) and found in memory. */
void pvk_vs_compute_counts(const pvk_vs_compute *vc, uint64_t *compiled, uint64_t *hits);

/* ---- LCD (runtime/present.c); arguments checked by api.c ---- */
pvk_result pvk_lcd_init(pvk_context *ctx);
void pvk_lcd_destroy(pvk_context *ctx);
pvk_result pvk_lcd_vblank(pvk_context *ctx);
void pvk_lcd_frame_size(pvk_context *ctx, pvk_screen screen, uint32_t *width, uint32_t *height);
pvk_result pvk_lcd_frame_read(pvk_context *ctx, pvk_screen screen, void *rgba, size_t stride);
pvk_result pvk_lcd_frame_hash(pvk_context *ctx, uint64_t *hash);
pvk_result pvk_lcd_set_output(pvk_context *ctx, const pvk_output_config *config);
pvk_result pvk_lcd_frame_acquire(pvk_context *ctx, pvk_frame *frame);
pvk_result pvk_lcd_frame_release(pvk_context *ctx, const pvk_frame *frame, VkSemaphore done, uint64_t done_value);

#endif
