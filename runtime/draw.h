/* runtime/draw*.c's private header: the draw state (struct pvk_draw), the
 * open batch, a packet's targets, and what the draw files call of each
 * other.  draw.c takes packets and chooses the path; draw_ring.c holds the
 * vertex ring; draw_textures.c binds textures; draw_state.c is what both
 * paths share; draw_batch.c records batches; draw_roundtrip.c is the
 * PVK_DEBUG=roundtrip path.  Nothing outside runtime/draw*.c includes it. */
#ifndef PVK_DRAW_H
#define PVK_DRAW_H

#include "runtime/runtime.h"

#define MAX_DIM 1024 /* FRAMEBUFFER_DIM: 11-bit width, 10-bit height-1 */
#define VRING_SEGS 8 /* the vertex ring waits per segment, once a lap */
#define VRING_MAX ((VkDeviceSize)32 << 20) /* a batch lapping the ring grows it up to this */
#define BATCH_MAX_DRAWS 256 /* draws per submission: bounds what one close hands the GPU */

/* The vertex buffer holds the translator's vertices as they are
 * (shaders/draw.vert's inputs, runtime/pipeline.c's vertex layout). */
typedef pvk_vertex draw_vertex;

/* What a command buffer of draws has been given so far: a draw records only
 * the dynamic state, push constants, push descriptors and vertex buffers that
 * differ from the draw before it (on lavapipe every recorded command is an
 * allocation; a game's consecutive draws mostly share them).  `known` has a
 * bit per DYN_* value set since the buffer began; 0 at a batch's start. */
enum {
    DYN_BLEND = 1u << 0, DYN_VIEWPORT = 1u << 1, DYN_SCISSOR = 1u << 2, DYN_FRAG_PUSH = 1u << 3,
    DYN_CLIP_PUSH = 1u << 4, DYN_DEPTH = 1u << 5, DYN_STENCIL = 1u << 6, DYN_CULL = 1u << 7,
    DYN_VERTEX_BUFFERS = 1u << 8, DYN_INDEX = 1u << 9,
};
#define DYN_BINDINGS 16u /* push-descriptor bindings remembered (the draw layout's are 0-9) */
typedef struct draw_clip_push {
    float plane[4];
    uint32_t enable, pad[3];
} draw_clip_push;
typedef struct draw_vertex_binds { /* unused entries zero: compared whole */
    VkBuffer buf[12];
    VkDeviceSize off[12];
    uint32_t count, pad;
} draw_vertex_binds;
typedef struct draw_index_bind {
    VkBuffer buf;
    VkDeviceSize off;
    uint64_t type; /* VkIndexType, widened: no padding */
} draw_index_bind;
typedef struct draw_dyn {
    uint32_t known;
    uint32_t desc_known; /* bit per binding */
    float blend[4];
    VkViewport viewport;
    VkRect2D scissor;
    pvk_draw_push frag;
    draw_clip_push clip;
    uint32_t depth[3]; /* test, write, compare op */
    uint32_t stencil[9]; /* test, fail, pass, depth fail, compare op, compare mask, write mask, reference */
    uint32_t cull;
    uint8_t desc[DYN_BINDINGS][sizeof(VkDescriptorImageInfo) > sizeof(VkDescriptorBufferInfo)
                                   ? sizeof(VkDescriptorImageInfo)
                                   : sizeof(VkDescriptorBufferInfo)];
    draw_vertex_binds vb;
    draw_index_bind ib;
} draw_dyn;

/* The open batch: consecutive draws into the same attachments, recorded
 * into one command buffer inside one vkCmdBeginRendering or render pass. */
typedef struct draw_batch {
    bool open;
    pvk_op op;
    VkImageView color, depth; /* the attachments (depth VK_NULL_HANDLE: none) */
    VkFormat dfmt; /* the depth attachment's format: every pipeline of the batch is made for it */
    bool stencil; /* ... which has a stencil aspect: every draw sets the stencil state */
    bool pass; /* a VkRenderPass reading the colour attachment (ctx->gpu.attachment_read), else
                                 dynamic rendering */
    uint32_t w, h;
    VkPipeline pipeline; /* bound last */
    uint32_t draws;
    draw_dyn dyn; /* what the batch's draws have set */
} draw_batch;

/* A ring region the GPU path's small draws share within a batch, so that a
 * draw records neither a push descriptor nor a vertex-buffer bind (each an
 * allocation or three in lavapipe's command buffer): DRAW_STATUS_SLOTS
 * pvk_vs_status entries, the draw's chosen by firstInstance, then one
 * window per vertex binding, bound once, where a draw's vertices go at a
 * multiple of the binding's stride chosen by firstVertex.  Valid in ring lap
 * `lap` for the batch of timeline value `value`. */
#define DRAW_STATUS_SLOTS 256u
#define DRAW_WINDOW_MAX ((VkDeviceSize)128 << 10) /* a draw needing more than an eighth copies to its region */
typedef struct draw_chunk {
    uint64_t lap, value; /* value 0: none */
    VkDeviceSize off, bytes; /* the region; the windows follow the status entries */
    VkDeviceSize win; /* bytes of each window */
    uint32_t wins; /* windows: vertex bindings the chunk takes */
    uint32_t slots; /* status entries used */
    VkDeviceSize end[12]; /* per window: bytes in use from its start */
} draw_chunk;

struct pvk_draw {
    draw_batch batch;
    pvk_image rt;
    VkBuffer staging, vbuf;
    VkDeviceMemory staging_mem, vbuf_mem;
    void *vmap;
    VkDeviceSize vcap, vhead; /* vertex ring: capacity, next free byte */
    uint64_t vseg[VRING_SEGS]; /* per ring segment: timeline value of its last user */
    int vcur; /* segment the last allocation ended in, -1 after a wrap */
    uint64_t vlap; /* ring laps (wraps and regrowths): regions of an earlier lap may be reused */
    /* the generated vertex shaders' uniforms last copied into the ring, at
     * uni_off in lap uni_lap for the batch of timeline value uni_value: later
     * draws of that batch with the same uniforms share them (sharing across
     * batches would keep a region of an old batch in use by the open one,
     * which the ring takes as a batch gone round it, and grows) */
    uint64_t uni_version; /* pvk_vs_draw.uniforms_version of the copy */
    VkDeviceSize uni_off;
    uint64_t uni_lap; /* 0: nothing there */
    uint64_t uni_value;
    draw_chunk chunk; /* the open batch's status entries and vertex windows */
    /* The draw last sent back to the interpreter while its vertex module or
     * pipelines were building (pvk_pipeline_get's cpu_vs): its retry takes
     * what is ready. */
    uint64_t diverted_seq;
    bool diverted;
    struct vs_check *checks; /* GPU-path draws whose status words wait for their batch (pvk_draw_check_report) */
    uint32_t n_checks, cap_checks;
    pvk_image depth; /* depth attachment (no image until needed) */
    VkFormat dfmt; /* VK_FORMAT_UNDEFINED: the device cannot, draws go without depth */
    VkFormat dsfmt; /* D24S8 surfaces: D32_SFLOAT_S8_UINT, UNDEFINED when the device lacks it */
    VkBuffer dstaging;
    VkDeviceMemory dstaging_mem;
    uint32_t depth_addr, depth_len; /* guest depth range the draw in flight writes */
};

/* The GPU path's bad vertices.  A vertex whose program does not end in END
 * (glsl_vs.c: a runaway program, an undefined opcode, a PC past code memory,
 * BREAK outside a loop, or the dispatcher's iteration limit) is not drawn,
 * as on the CPU path, and marks the draw's pvk_vs_status in the ring; when
 * the draw's batch is done (its retire, always before the ring region is
 * reused or the ring replaced) the status is read and the draw reported
 * once, counted as the CPU path counts it (pvk_stats.bad_input).  The
 * dispatcher's limit of PVK_GLSL_VS_DRAW_MAX_BLOCKS blocks is a runaway
 * there: a tight endless loop meets it before the step budget (a program
 * that would finish within the budget after more blocks is not drawn
 * either).  A fall-through into code not translated (PICA_FALLBACK) is
 * counted unsupported.  Unlike the CPU path the command list has gone on by
 * then: only the draw's failing vertices are lost. */
typedef struct vs_check {
    uint64_t value; /* timeline value of the draw's batch */
    uint64_t seq; /* the translator's draw number */
    VkDeviceSize off; /* its pvk_vs_status in the ring, or (gs) its pre-pass counters */
    bool gs; /* a geometry pre-pass (draw_submit_gs) */
    uint64_t gs_key; /* gs: pvk_gs_key_hash */
} vs_check;

/* Where a packet draws: guest spans of its colour and depth buffers, or
 * false (logged and counted) when they are outside guest memory. */
typedef struct target {
    uint32_t w, h, bpp, addr;
    int fmt; /* transfer-engine format code */
    bool color; /* colour writes allowed (COLORBUFFER_WRITE): the buffer is loaded and stored */
    bool block32;
    pvk_guest_span span;
    uint32_t scale; /* resolution scale of the attachments (1 on the round-trip path) */
} target;

typedef struct depth_state {
    bool use, write;
    bool stencil; /* the attachment has a stencil aspect (a D24S8 surface) */
    VkFormat vkfmt; /* of the attachment */
    VkCompareOp op;
    uint32_t bpp, addr, bits, format;
    pvk_guest_span span;
} depth_state;

/* Where a draw's vertices come from: the ring region of the CPU path's
 * shaded vertices, or (vertex programs on the GPU) guest memory bound as
 * vertex and index buffers, widened indices and the uniforms in the ring. */
typedef struct draw_input {
    VkDeviceSize voff; /* CPU path */
    const pvk_vs_draw *vs; /* GPU path: */
    VkBuffer vb[12], ib;
    VkDeviceSize vb_off[12], ib_off, uni_off;
    VkDeviceSize status_off; /* the draw's pvk_vs_status */
    VkDeviceSize status_base, status_range; /* the status binding: entry `instance` is the draw's */
    uint32_t instance; /* firstInstance */
    uint32_t first_vertex; /* added to firstVertex / vertexOffset: the vertices' place in a window */
} draw_input;

/* What a draw samples: per bound unit (bit u of `units`) the texture's view
 * and a sampler, as push descriptors for bindings 0-2. */
typedef struct tex_binding {
    uint32_t units;
    VkDescriptorImageInfo info[3];
} tex_binding;

pvk_result pvk_draw_ring_ensure(pvk_context *ctx, struct pvk_draw *d, VkDeviceSize bytes);

/* A region of the vertex ring for one draw.  Entering a segment waits for
 * the draws that used it a lap ago (usually long done); growing the ring
 * waits for everything.  A segment last used by the open batch (its value is
 * timeline_next + 1) means one batch went round the whole ring: the ring
 * doubles, so batches of that size stop waiting; past VRING_MAX the wait
 * submits the batch first (pvk_retire_until). */
pvk_result pvk_draw_ring_alloc(pvk_context *ctx, struct pvk_draw *d, VkDeviceSize bytes, VkDeviceSize *off);

/* The ring region [off, off+bytes) is in use until timeline `value`. */
void pvk_draw_ring_used(struct pvk_draw *d, VkDeviceSize off, VkDeviceSize bytes, uint64_t value);

pvk_result pvk_draw_check_add(struct pvk_draw *d, uint64_t value, uint64_t seq, VkDeviceSize off, bool gs,
                              uint64_t gs_key);

/* Report the checked draws of batches up to timeline `done`. */
void pvk_draw_check_report(pvk_context *ctx, uint64_t done);

pvk_result pvk_draw_target_image(pvk_context *ctx, struct pvk_draw *d, uint32_t w, uint32_t h);

pvk_result pvk_draw_depth_image(pvk_context *ctx, struct pvk_draw *d, uint32_t w, uint32_t h);

/* Draws order everything against everything around them. */
void pvk_draw_barrier_aspect(pvk_context *ctx, VkCommandBuffer cmd, VkImage img, VkImageAspectFlags aspect,
                             VkImageLayout from, VkImageLayout to);

void pvk_draw_barrier(pvk_context *ctx, VkCommandBuffer cmd, VkImage img, VkImageLayout from, VkImageLayout to);

bool pvk_draw_packet_target(pvk_context *ctx, const pvk_draw_packet *pk, target *t, bool roundtrip);

/* The depth buffer a draw uses: `use` when the test or writes are on, `write`
 * when its contents go back to guest memory (DEPTHBUFFER_WRITE allows). */
bool pvk_draw_packet_depth(pvk_context *ctx, struct pvk_draw *d, const pvk_draw_packet *pk, depth_state *ds,
                           bool roundtrip);

/* Bind the draw's vertices and draw. */
void pvk_draw_record_vertices(pvk_context *ctx, struct pvk_draw *d, draw_dyn *dyn, VkCommandBuffer cmd,
                              const pvk_draw_packet *pk, const draw_input *in);

/* Errors of a surface request that drop the draw (logged and counted)
 * rather than stop the command list. */
bool pvk_draw_dropped(pvk_result r);

/* A viewport Vulkan can take; false (logged and counted: the draw is pvk_draw_dropped)
 * otherwise. */
bool pvk_draw_viewport_ok(pvk_context *ctx, const pvk_raster_desc *rd, uint32_t scale);

/* The per-draw state inside a render pass: blend constants, viewport,
 * scissor, push constants (exclusive scissor, depth mapping, TEV uniforms,
 * clip plane), depth test and writes (when the pass has a depth attachment),
 * the stencil state (when it has a stencil aspect) and culling.  Everything a
 * pipeline leaves dynamic is set for every draw (what `dyn` shows the
 * buffer has already is not recorded again; NULL: all recorded), so draws of
 * one batch do not inherit each other's state. */
void pvk_draw_set_state(pvk_context *ctx, draw_dyn *dyn, VkCommandBuffer cmd, const pvk_draw_packet *pk, uint32_t w,
                        uint32_t h, uint32_t scale, const depth_state *dst, bool depth_attachment,
                        bool stencil_attachment, uint32_t uber_tex);

/* The ubershader's data block of the packet (pvk_fs_uber_state; valid until
 * the next call) when its draw may take the ubershader (PVK_DEBUG=ubershader,
 * or compile threads that may still be building its own pipeline); NULL
 * otherwise. */
const uint32_t *pvk_draw_uber_state(pvk_context *ctx, const pvk_draw_packet *pk);
/* Report what pvk_keys_resolve changed (counted, logged once). */
void pvk_draw_report_resolve(pvk_context *ctx, pvk_resolve_notes notes);

/* The textures of the packet's enabled units (pvk_texture_get: cached,
 * built from a render target, or decoded; a decode or a build is its own
 * submission, so it closes an open batch and runs before the draw) and their
 * samplers, and the fragment key adjusted to what could be bound: a unit
 * whose texture is refused (bad input, logged and counted by the texture
 * cache) or whose type is not sampled (shadow cube; counted) reads 0.  The
 * border colour goes through the shader (shader_border) where the sampler
 * cannot carry it: no custom border colours (logged once), or a view with a
 * swizzle (L, A, LA, HILO formats), whose border Vulkan applies before the
 * swizzle.  Those samplers clamp to the edge on the emulated axes. */
pvk_result pvk_draw_textures(pvk_context *ctx, const pvk_draw_packet *pk, pvk_fs_key *fs, tex_binding *tb);

/* Push the bound units' descriptors (bindings 0-2; the others keep theirs). */
void pvk_draw_push_textures(pvk_context *ctx, draw_dyn *dyn, VkCommandBuffer cmd, const tex_binding *tb);
/* Push descriptors of the draw layout's set 0, those `dyn` shows the buffer
 * has already left out (NULL: all pushed). */
void pvk_draw_push_descriptors(pvk_context *ctx, draw_dyn *dyn, VkCommandBuffer cmd, const VkWriteDescriptorSet *w,
                               uint32_t n);

/* Record the packet into the open batch, opening one when its buffers
 * differ from the batch's.  A draw without depth joins a batch whatever its
 * depth attachment (the test and writes are off); one with depth needs the
 * batch's depth surface. */
pvk_result pvk_draw_render_batched(pvk_context *ctx, struct pvk_draw *d, const pvk_draw_packet *pk,
                                   const draw_input *in);

/* The old path (PVK_DEBUG=roundtrip): load the buffers from guest memory,
 * draw, store them back, in one submission of its own. */
pvk_result pvk_draw_render_roundtrip(pvk_context *ctx, struct pvk_draw *d, const pvk_draw_packet *pk,
                                     const draw_input *in);

#endif
