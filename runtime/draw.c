/* Draws: the translator's draw packets (triangles already through the CPU
 * stages in translator/vertex.c, framebuffer and raster state decoded) drawn
 * with Vulkan into the colour buffer.
 *
 * The colour and depth buffers are surfaces of the cache (vram/surface.c):
 * images that stay on the GPU between draws and go to guest memory only
 * when something reads it.  Vertices go to a ring, so a draw waits for
 * nothing.  Consecutive draws into the same buffers form a batch: one command
 * buffer, one dynamic-rendering instance, per draw only what changed in the
 * pipeline, the dynamic state, push constants and vkCmdDraw.  Where the
 * device reads attachments in rasterization order (ctx->gpu.attachment_read) a
 * batch is a VkRenderPass instead (runtime/pipeline.c makes it and its
 * imageless framebuffer): the colour attachment is input attachment 0 too,
 * pushed once per batch, and shaders that blend read the destination there
 * and blend exactly (translator/glsl_fs.c); the keys are adjusted for that in
 * pvk_keys_for_device.  The batch is
 * submitted when the buffers change, after BATCH_MAX_DRAWS draws, or when
 * anything else is about to reach the queue or wait for it
 * (pvk_batch_close, gpu/compute.c).  PVK_DEBUG=sync submits every draw
 * on its own and waits for it.
 *
 * PVK_DEBUG=roundtrip keeps the old path for comparison: every draw loads
 * the colour buffer from guest memory (detile + convert on the GPU), renders,
 * and stores it back, in one submission, waiting for the draw before; it
 * always uses dynamic rendering and Vulkan's blend unit (within 1).  The
 * colour attachment holds R, G, B, A in channel order (converted
 * on load and write-back), so blending and write masks see the guest's
 * channels.  Fragments come from the generated shader of the draw's key (TEV,
 * alpha test) through the pipeline of its output-merger key
 * (runtime/pipeline.c).
 *
 * Depth: when DEPTH_COLOR_MASK enables the test or writes, the guest depth
 * buffer (same size and tiling as the colour buffer; D16, D24 or D24S8) is
 * detiled by shaders/depth_io.comp into a linear buffer of q * 2^-24 for the
 * integer depth q, copied into a D32_SFLOAT attachment, and stored back the
 * same way (when writes are on and allowed, DEPTHBUFFER_WRITE bit 1).  D24S8
 * surfaces are D32_SFLOAT_S8_UINT: the stencil byte lives in the stencil
 * aspect and the PICA stencil test and ops are Vulkan's (dynamic state per
 * draw, set_stencil); the roundtrip path and devices without that format
 * draw without stencil (logged once) and keep memory's stencil bytes.
 * The fragment shader computes q (translator/glsl_fs.c);
 * the float encoding is exact, so the test and the round trip are too.  As in
 * Citra, writes without the test enabled use Always (3dbrew agrees).
 *
 * Coordinates: PICA window y runs up and memory row 0 is the top of the
 * buffer (row = height - 1 - y), so the Vulkan viewport is flipped (negative
 * height).  Primitives are clipped to the viewport and to -w <= z <= 0, as
 * the emulators' hardware renderers do, and to the user clip plane.  Vulkan's rasterization rules (pixel centres, top-left fill) stand
 * for the PICA's, which are not publicly measured. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"

#define MAX_DIM 1024 /* FRAMEBUFFER_DIM: 11-bit width, 10-bit height-1 */
#define VRING_SEGS 8 /* the vertex ring waits per segment, once a lap */
#define VRING_MAX ((VkDeviceSize)32 << 20) /* a batch lapping the ring grows it up to this */
#define BATCH_MAX_DRAWS 256 /* draws per submission: bounds what one close hands the GPU */

/* The vertex buffer holds the translator's vertices as they are
 * (shaders/draw.vert's inputs, runtime/pipeline.c's vertex layout). */
typedef pvk_vertex draw_vertex;

/* The open batch: consecutive draws into the same attachments, recorded
 * into one command buffer inside one vkCmdBeginRendering or render pass. */
typedef struct draw_batch {
    bool open;
    pvk_op op;
    VkImageView color, depth; /* the attachments (depth VK_NULL_HANDLE: none) */
    VkFormat dfmt;            /* the depth attachment's format: every pipeline of the batch is made for it */
    bool stencil;             /* ... which has a stencil aspect: every draw sets the stencil state */
    bool pass;                /* a VkRenderPass reading the colour attachment (ctx->gpu.attachment_read), else
                                 dynamic rendering */
    uint32_t w, h;
    VkPipeline pipeline;      /* bound last */
    uint32_t draws;
} draw_batch;

struct pvk_draw {
    draw_batch batch;
    pvk_image rt;
    VkBuffer staging, vbuf;
    VkDeviceMemory staging_mem, vbuf_mem;
    void *vmap;
    VkDeviceSize vcap, vhead;   /* vertex ring: capacity, next free byte */
    uint64_t vseg[VRING_SEGS];  /* per ring segment: timeline value of its last user */
    int vcur;                   /* segment the last allocation ended in, -1 after a wrap */
    uint64_t vlap;              /* ring laps (wraps and regrowths): regions of an earlier lap may be reused */
    /* the generated vertex shaders' uniforms last copied into the ring, at
     * uni_off in lap uni_lap for the batch of timeline value uni_value: later
     * draws of that batch with the same uniforms share them (sharing across
     * batches would keep a region of an old batch in use by the open one,
     * which the ring takes as a batch gone round it, and grows) */
    pvk_vs_draw_uniforms uni_last;
    VkDeviceSize uni_off;
    uint64_t uni_lap;           /* 0: nothing there */
    uint64_t uni_value;
    struct vs_check *checks;    /* GPU-path draws whose status words wait for their batch (vs_status) */
    uint32_t n_checks, cap_checks;
    pvk_image depth; /* depth attachment (no image until needed) */
    VkFormat dfmt; /* VK_FORMAT_UNDEFINED: the device cannot, draws go without depth */
    VkFormat dsfmt; /* D24S8 surfaces: D32_SFLOAT_S8_UINT, UNDEFINED when the device lacks it */
    bool stencil_warned, shadow_warned, border_warned, small_levels_warned;
    bool shadow_mode_warned; /* shadow rendering without attachment reads */
    uint32_t reserved_logged; /* PVK_TEXRES_* bits logged */
    VkBuffer dstaging;
    VkDeviceMemory dstaging_mem;
    uint32_t depth_addr, depth_len; /* guest depth range the draw in flight writes */
};

static pvk_result ensure_target(pvk_context *ctx, struct pvk_draw *d, uint32_t w, uint32_t h)
{
    if (d->rt.image && (d->rt.w != w || d->rt.h != h))
        pvk_retire(&ctx->gpu, true); /* a draw in flight may still use it */
    pvk_result r = pvk_image_ensure(&ctx->gpu, &d->rt, w, h, VK_FORMAT_R8G8B8A8_UNORM, PVK_COLOR_TARGET_USAGE, true);
    pvk_object_name(&ctx->gpu, VK_OBJECT_TYPE_IMAGE, (uint64_t)d->rt.image, "draw colour target %ux%u", w, h);
    return r;
}

static pvk_result ensure_depth_image(pvk_context *ctx, struct pvk_draw *d, uint32_t w, uint32_t h)
{
    if (d->depth.image && (d->depth.w != w || d->depth.h != h))
        pvk_retire(&ctx->gpu, true);
    pvk_result r = pvk_image_ensure(&ctx->gpu, &d->depth, w, h, d->dfmt, PVK_DEPTH_TARGET_USAGE, true);
    pvk_object_name(&ctx->gpu, VK_OBJECT_TYPE_IMAGE, (uint64_t)d->depth.image, "draw depth target %ux%u", w, h);
    return r;
}

static pvk_result ensure_vertices(pvk_context *ctx, struct pvk_draw *d, VkDeviceSize bytes)
{
    if (bytes <= d->vcap)
        return PVK_SUCCESS;
    if (d->vbuf)
        ctx->gpu.vk.vkDestroyBuffer(ctx->gpu.device, d->vbuf, NULL);
    if (d->vbuf_mem)
        ctx->gpu.vk.vkFreeMemory(ctx->gpu.device, d->vbuf_mem, NULL);
    d->vbuf = VK_NULL_HANDLE;
    d->vbuf_mem = VK_NULL_HANDLE;
    d->vcap = 0;
    VkDeviceSize cap = 1 << 18;
    while (cap < bytes)
        cap *= 2;
    pvk_result r = pvk_create_buffer(&ctx->gpu, cap,
                                     VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_INDEX_BUFFER_BIT |
                                         VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                     VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                     &d->vbuf, &d->vbuf_mem);
    if (r)
        return r;
    if ((r = pvk_vk_check(&ctx->gpu, ctx->gpu.vk.vkMapMemory(ctx->gpu.device, d->vbuf_mem, 0, VK_WHOLE_SIZE, 0, &d->vmap),
                          "vkMapMemory")))
        return r;
    d->vcap = cap;
    d->vhead = 0;
    d->vcur = -1;
    d->vlap++;
    memset(d->vseg, 0, sizeof d->vseg);
    return PVK_SUCCESS;
}

/* A bigger ring; everything in flight finishes first, the old buffer goes. */
static pvk_result vertex_grow(pvk_context *ctx, struct pvk_draw *d, VkDeviceSize bytes)
{
    pvk_result r = pvk_retire(&ctx->gpu, true);
    return r ? r : ensure_vertices(ctx, d, bytes);
}

/* A region of the vertex ring for one draw.  Entering a segment waits for
 * the draws that used it a lap ago (usually long done); growing the ring
 * waits for everything.  A segment last used by the open batch (its value is
 * timeline_next + 1) means one batch went round the whole ring: the ring
 * doubles, so batches of that size stop waiting; past VRING_MAX the wait
 * submits the batch first (pvk_retire_until). */
static pvk_result vertex_alloc(pvk_context *ctx, struct pvk_draw *d, VkDeviceSize bytes, VkDeviceSize *off)
{
    pvk_result r;
    bytes = (bytes + 63) & ~(VkDeviceSize)63;
    if (bytes * 2 > d->vcap && (r = vertex_grow(ctx, d, bytes * 4)))
        return r;
    if (d->vhead + bytes > d->vcap) {
        d->vhead = 0;
        d->vcur = -1;
        d->vlap++;
    }
    VkDeviceSize seg = d->vcap / VRING_SEGS;
    int first = (int)(d->vhead / seg), last = (int)((d->vhead + bytes - 1) / seg);
    for (int i = first; i <= last; i++) {
        if (i != d->vcur && d->vseg[i] > ctx->gpu.timeline_next && d->vcap < VRING_MAX) {
            if ((r = vertex_grow(ctx, d, d->vcap * 2)))
                return r;
            return vertex_alloc(ctx, d, bytes, off); /* once: the new ring is empty */
        }
        if (i != d->vcur && d->vseg[i] && (r = pvk_retire_until(&ctx->gpu, d->vseg[i])))
            return r;
        d->vseg[i] = 0;
    }
    *off = d->vhead;
    d->vhead += bytes;
    d->vcur = last;
    return PVK_SUCCESS;
}

/* The ring region [off, off+bytes) is in use until timeline `value`. */
static void vertex_used(struct pvk_draw *d, VkDeviceSize off, VkDeviceSize bytes, uint64_t value)
{
    VkDeviceSize seg = d->vcap / VRING_SEGS;
    for (VkDeviceSize i = off / seg; bytes && i <= (off + bytes - 1) / seg; i++)
        d->vseg[i] = value;
}

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
    uint64_t value;             /* timeline value of the draw's batch */
    uint64_t seq;               /* the translator's draw number */
    VkDeviceSize off;           /* its pvk_vs_status in the ring, or (gs) its pre-pass counters */
    bool gs;                    /* a geometry pre-pass (draw_submit_gs) */
    uint64_t gs_key;            /* gs: pvk_gs_key_hash */
} vs_check;

static pvk_result vs_check_add(struct pvk_draw *d, uint64_t value, uint64_t seq, VkDeviceSize off, bool gs,
                               uint64_t gs_key)
{
    if (d->n_checks == d->cap_checks) {
        uint32_t cap = d->cap_checks ? 2 * d->cap_checks : 64;
        vs_check *c = realloc(d->checks, sizeof *c * cap);
        if (!c)
            return PVK_ERROR_OUT_OF_MEMORY;
        d->checks = c;
        d->cap_checks = cap;
    }
    d->checks[d->n_checks++] = (vs_check){value, seq, off, gs, gs_key};
    return PVK_SUCCESS;
}

/* Report the checked draws of batches up to timeline `done`. */
static void vs_status(pvk_context *ctx, uint64_t done)
{
    struct pvk_draw *d = ctx->draw;
    if (!d)
        return;
    uint32_t keep = 0;
    for (uint32_t i = 0; i < d->n_checks; i++) {
        const vs_check *c = &d->checks[i];
        if (c->value > done) {
            d->checks[keep++] = *c;
            continue;
        }
        if (c->gs) { /* the pre-pass's counters; one error per draw, as on the vertex path */
            uint32_t cnt[PVK_GS_COUNTERS];
            memcpy(cnt, (const uint8_t *)d->vmap + c->off, sizeof cnt);
            uint32_t bad = pvk_gs_account(ctx, c->gs_key, cnt);
            if (bad)
                pvk_bad_input(&ctx->gpu, "draw %llu: geometry program on the GPU: %u invocations did not end (runaway "
                                   "program, bad instruction, or a vertex whose program did not end); they draw "
                                   "nothing", (unsigned long long)c->seq, bad);
            continue;
        }
        pvk_vs_status st;
        memcpy(&st, (const uint8_t *)d->vmap + c->off, sizeof st);
        if (!(st.kinds & 14u))
            continue;
        /* one error per draw, as the CPU path's first bad vertex stops it */
        if (st.kinds & 6u)
            pvk_bad_input(&ctx->gpu, "draw %llu: vertex program on the GPU: %s at pc 0x%03X%s; those vertices are not drawn",
                          (unsigned long long)c->seq,
                          st.kinds & 2u ? "runaway program stopped"
                                        : "undefined opcode, BREAK outside a loop or PC past code memory",
                          st.kinds & 2u ? st.pc[0] : st.pc[1],
                          (st.kinds & 6u) == 6u ? " (and vertices with bad instructions)" : "");
        if (st.kinds & 8u)
            pvk_unsupported(&ctx->gpu, "draw %llu: a vertex fell through past a subroutine's end into code the GPU "
                                 "translation does not cover (pc 0x%03X): not drawn",
                            (unsigned long long)c->seq, st.pc[2]);
    }
    d->n_checks = keep;
}

/* A batch of draws is done. */
static void batch_retire(pvk_gpu *gpu, const pvk_pending *p)
{
    pvk_context *ctx = pvk_ctx_of_gpu(gpu);
    vs_status(ctx, p->value);
}

/* Draws order everything against everything around them. */
static void image_barrier_aspect(pvk_context *ctx, VkCommandBuffer cmd, VkImage img, VkImageAspectFlags aspect,
                                 VkImageLayout from, VkImageLayout to)
{
    pvk_image_barrier(&ctx->gpu, cmd, img, aspect, from, to, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                      VK_ACCESS_2_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                      VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT);
}

static void image_barrier(pvk_context *ctx, VkCommandBuffer cmd, VkImage img, VkImageLayout from, VkImageLayout to)
{
    image_barrier_aspect(ctx, cmd, img, VK_IMAGE_ASPECT_COLOR_BIT, from, to);
}

static void draw_retire(pvk_gpu *gpu, const pvk_pending *p)
{
    pvk_context *ctx = pvk_ctx_of_gpu(gpu);
    vs_status(ctx, p->value);
    pvk_guest_span s;
    if (pvk_guest_resolve(&ctx->vram, p->dst_addr, p->dst_len, NULL, &s))
        pvk_guest_download(&ctx->vram, &s);
    struct pvk_draw *d = ctx->draw; /* one draw in flight at most: its depth range is here */
    if (!d)
        return;
    if (d->depth_len && pvk_guest_resolve(&ctx->vram, d->depth_addr, d->depth_len, NULL, &s))
        pvk_guest_download(&ctx->vram, &s);
    d->depth_len = 0;
}

/* Where a packet draws: guest spans of its colour and depth buffers, or
 * false (logged and counted) when they are outside guest memory. */
typedef struct target {
    uint32_t w, h, bpp, addr;
    int fmt;    /* transfer-engine format code */
    bool color; /* colour writes allowed (COLORBUFFER_WRITE): the buffer is loaded and stored */
    bool block32;
    pvk_guest_span span;
    uint32_t scale; /* resolution scale of the attachments (1 on the round-trip path) */
} target;

typedef struct depth_state {
    bool use, write;
    bool stencil;    /* the attachment has a stencil aspect (a D24S8 surface) */
    VkFormat vkfmt;  /* of the attachment */
    VkCompareOp op;
    uint32_t bpp, addr, bits, format;
    pvk_guest_span span;
} depth_state;

static bool packet_target(pvk_context *ctx, const pvk_draw_packet *pk, target *t, bool roundtrip)
{
    const pvk_fb_desc *fb = &pk->fb;
    *t = (target){fb->width, fb->height, fb->color_bpp, fb->color_addr, fb->color_xfer_format, fb->color_write,
                  fb->block32, {0}, roundtrip ? 1 : ctx->vram.scale};
    /* Without colour writes (depth-only passes: citro3d binds no colour
     * buffer and clears the access registers) the colour buffer is left
     * alone; nothing reads it until blending exists. */
    if (!t->color || !roundtrip) /* surfaces check their ranges themselves */
        return true;
    return pvk_guest_resolve(&ctx->vram, t->addr, t->w * t->h * t->bpp, "draw colour buffer", &t->span);
}

/* The depth buffer a draw uses: `use` when the test or writes are on, `write`
 * when its contents go back to guest memory (DEPTHBUFFER_WRITE allows). */
static bool packet_depth(pvk_context *ctx, struct pvk_draw *d, const pvk_draw_packet *pk, depth_state *ds,
                         bool roundtrip)
{
    const pvk_fb_desc *fb = &pk->fb;
    const pvk_raster_desc *rd = &pk->raster;
    memset(ds, 0, sizeof *ds);
    ds->vkfmt = d->dfmt;
    if ((!rd->depth_test && !rd->depth_write && !rd->stencil_test) || d->dfmt == VK_FORMAT_UNDEFINED)
        return true;
    /* every D24S8 surface gets the stencil aspect, whether this draw tests or not */
    ds->stencil = fb->depth_format == 3 && !roundtrip && d->dsfmt != VK_FORMAT_UNDEFINED;
    if (ds->stencil)
        ds->vkfmt = d->dsfmt;
    if (rd->stencil_test && !ds->stencil && !d->stencil_warned) {
        d->stencil_warned = true;
        pvk_unsupported(&ctx->gpu, "draw: stencil test without %s: drawn without stencil",
                        roundtrip ? "the surface cache (PVK_DEBUG=roundtrip)" : "D32_SFLOAT_S8_UINT attachments");
    }
    ds->bpp = fb->depth_bpp;
    ds->bits = fb->depth_bits;
    ds->addr = fb->depth_addr;
    ds->format = fb->depth_format;
    if (roundtrip &&
        !pvk_guest_resolve(&ctx->vram, ds->addr, fb->width * fb->height * ds->bpp, "draw depth buffer", &ds->span))
        return false;
    ds->use = true;
    ds->write = rd->depth_write && fb->depth_write;
    ds->op = rd->depth_test ? pvk_vk_compare_op(rd->depth_func) : VK_COMPARE_OP_ALWAYS;
    return true;
}

/* Where a draw's vertices come from: the ring region of the CPU path's
 * shaded vertices, or (vertex programs on the GPU) guest memory bound as
 * vertex and index buffers, widened indices and the uniforms in the ring. */
typedef struct draw_input {
    VkDeviceSize voff;            /* CPU path */
    const pvk_vs_draw *vs;        /* GPU path: */
    VkBuffer vb[12], ib;
    VkDeviceSize vb_off[12], ib_off, uni_off;
    VkDeviceSize status_off;      /* the draw's pvk_vs_status */
} draw_input;

static pvk_result render_roundtrip(pvk_context *ctx, struct pvk_draw *d, const pvk_draw_packet *pk,
                                   const draw_input *in);

/* The PICA's one stencil state for both faces (STENCIL_TEST, STENCIL_OP;
 * translator/fb.c decodes and gates them); off for a draw that does not
 * use the batch's D24S8 surface.  Vulkan compares (reference & mask) op
 * (stored & mask), as the PICA does. */
static void set_stencil(pvk_context *ctx, VkCommandBuffer cmd, const pvk_raster_desc *rd, bool on)
{
    const VkStencilFaceFlags both = VK_STENCIL_FACE_FRONT_AND_BACK;
    ctx->gpu.vk.vkCmdSetStencilTestEnable(cmd, on && rd->stencil_test);
    ctx->gpu.vk.vkCmdSetStencilOp(cmd, both, pvk_vk_stencil_op(rd->stencil_fail), pvk_vk_stencil_op(rd->stencil_zpass),
                              pvk_vk_stencil_op(rd->stencil_zfail), pvk_vk_compare_op(rd->stencil_func));
    ctx->gpu.vk.vkCmdSetStencilCompareMask(cmd, both, rd->stencil_compare_mask);
    ctx->gpu.vk.vkCmdSetStencilWriteMask(cmd, both, on ? rd->stencil_write_mask : 0);
    ctx->gpu.vk.vkCmdSetStencilReference(cmd, both, rd->stencil_ref);
}
static pvk_result render_batched(pvk_context *ctx, struct pvk_draw *d, const pvk_draw_packet *pk,
                                 const draw_input *in);

/* Host views of a draw's attribute buffers, each from its address rounded
 * down to 4 bytes (the copies keep attributes at their alignment). */
static pvk_result attrib_sources(pvk_context *ctx, const pvk_vs_draw *vs, const uint8_t *src[12])
{
    for (uint32_t b = 0; b < vs->key.bindings; b++) {
        uint32_t a = vs->buf_addr[b] & ~3u, len = vs->buf_len[b] + (vs->buf_addr[b] & 3u);
        src[b] = pvk_guest_host(&ctx->vram, a, len, "draw attribute buffer");
        if (!src[b])
            return PVK_ERROR_OUT_OF_RANGE; /* the translator checked it: cannot happen */
    }
    return PVK_SUCCESS;
}

/* The GPU path's inputs, copied into one region of the ring: the uniforms
 * (unless the last copy of this lap holds the same), the indices, and each
 * attribute buffer's range as the guest has it now (at the same address
 * modulo 4, so attributes stay aligned).  The translator checked the ranges
 * and synchronised them (pvk_guest_cpu_read).  *region, *region_bytes: the
 * ring bytes to mark in use besides the uniforms. */
static pvk_result vs_inputs(pvk_context *ctx, struct pvk_draw *d, const pvk_vs_draw *vs, bool roundtrip,
                            draw_input *in, VkDeviceSize *region, VkDeviceSize *region_bytes)
{
    pvk_result r;
    in->vs = vs;
    const VkDeviceSize ubytes = sizeof(pvk_vs_draw_uniforms);
    VkDeviceSize align = ctx->gpu.props.limits.minStorageBufferOffsetAlignment;
    align = align > 64 ? align : 64;
    VkDeviceSize ibytes = vs->indexed ? (VkDeviceSize)vs->count * 2 : 0;
    const uint8_t *src[12];
    if ((r = attrib_sources(ctx, vs, src)))
        return r;
    bool need_uni = roundtrip || d->uni_lap != d->vlap || !d->batch.open || d->uni_value != ctx->gpu.timeline_next + 1 ||
                    memcmp(&d->uni_last, vs->uniforms, ubytes);
    VkDeviceSize base = 0, bytes = 0;
    for (int tries = 0;; tries++) {
        bytes = (sizeof(pvk_vs_status) + align - 1) & ~(align - 1);
        bytes += need_uni ? (ubytes + 63) & ~(VkDeviceSize)63 : 0;
        bytes += (ibytes + 63) & ~(VkDeviceSize)63;
        for (uint32_t b = 0; b < vs->key.bindings; b++)
            bytes += (vs->buf_len[b] + 4 + 63) & ~(VkDeviceSize)63;
        if (roundtrip) { /* the ring is this draw's alone (draw_submit_vs waited) */
            if ((r = ensure_vertices(ctx, d, bytes)))
                return r;
            base = 0;
            break;
        }
        uint64_t lap = d->vlap;
        VkDeviceSize raw;
        if ((r = vertex_alloc(ctx, d, bytes + align, &raw)))
            return r;
        base = (raw + align - 1) & ~(align - 1);
        bytes += base - raw;
        if (need_uni || d->vlap == lap || tries)
            break;
        need_uni = true; /* the ring wrapped or grew past the last uniforms: take them along */
    }
    VkDeviceSize off = base;
    uint8_t *map = d->vmap;
    const pvk_vs_status fresh = {0, {UINT32_MAX, UINT32_MAX, UINT32_MAX}};
    memcpy(map + off, &fresh, sizeof fresh);
    in->status_off = off;
    off += (sizeof(pvk_vs_status) + align - 1) & ~(align - 1);
    if (need_uni) {
        memcpy(map + off, vs->uniforms, ubytes);
        d->uni_last = *vs->uniforms;
        d->uni_off = off;
        d->uni_lap = roundtrip ? 0 : d->vlap;
        off += (ubytes + 63) & ~(VkDeviceSize)63;
    }
    in->uni_off = d->uni_off;
    if (ibytes) {
        memcpy(map + off, vs->index16, ibytes);
        in->ib = d->vbuf;
        in->ib_off = off;
        off += (ibytes + 63) & ~(VkDeviceSize)63;
    }
    for (uint32_t b = 0; b < vs->key.bindings; b++) {
        uint32_t mis = vs->buf_addr[b] & 3u;
        memcpy(map + off, src[b], vs->buf_len[b] + mis);
        in->vb[b] = d->vbuf;
        in->vb_off[b] = off + mis;
        off += (vs->buf_len[b] + 4 + 63) & ~(VkDeviceSize)63;
    }
    *region = base;
    *region_bytes = bytes;
    d->uni_value = need_uni ? 0 : d->uni_value; /* draw_submit_vs names the batch that got the copy */
    return PVK_SUCCESS;
}

/* Bind the draw's vertices and draw. */
static void record_vertices(pvk_context *ctx, struct pvk_draw *d, VkCommandBuffer cmd, const pvk_draw_packet *pk,
                            const draw_input *in)
{
    const pvk_vs_draw *vs = in->vs;
    if (!vs) {
        ctx->gpu.vk.vkCmdBindVertexBuffers(cmd, 0, 1, &d->vbuf, &in->voff);
        ctx->gpu.vk.vkCmdDraw(cmd, pk->tri_vertices, 1, 0, 0);
        return;
    }
    VkDescriptorBufferInfo bi[2] = {{d->vbuf, in->uni_off, sizeof(pvk_vs_draw_uniforms)},
                                    {d->vbuf, in->status_off, sizeof(pvk_vs_status)}};
    VkWriteDescriptorSet w[2];
    for (int i = 0; i < 2; i++)
        w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                      .dstBinding = i ? PVK_DRAW_BINDING_VS_STATUS : PVK_DRAW_BINDING_VS,
                                      .descriptorCount = 1,
                                      .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                      .pBufferInfo = &bi[i]};
    ctx->gpu.vk.vkCmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pvk_pipeline_layout(ctx), 0, 2, w);
    if (vs->key.bindings)
        ctx->gpu.vk.vkCmdBindVertexBuffers(cmd, 0, vs->key.bindings, in->vb, in->vb_off);
    if (vs->indexed) {
        ctx->gpu.vk.vkCmdBindIndexBuffer(cmd, in->ib, in->ib_off, VK_INDEX_TYPE_UINT16);
        ctx->gpu.vk.vkCmdDrawIndexed(cmd, vs->count, 1, 0, vs->vertex_offset, 0);
    } else {
        ctx->gpu.vk.vkCmdDraw(cmd, vs->count, 1, 0, 0);
    }
}

/* A draw whose vertex program runs on the GPU (pk->vs). */
static pvk_result draw_submit_vs(pvk_context *ctx, struct pvk_draw *d, const pvk_draw_packet *pk)
{
    bool roundtrip = ctx->gpu.debug & PVK_DEBUG_ROUNDTRIP;
    /* fragment lighting takes each triangle's quaternions along the shorter
     * arc (pvk_draw_submit): per triangle, which a vertex stage cannot do; a
     * geometry shader does (runtime/pipeline.c) */
    if (pk->fs.fl.light && !pvk_pipeline_quat_geom(ctx))
        return PVK_ERROR_MISSING_FEATURE;
    if (!ctx->gpu.vertex_stores)
        return PVK_ERROR_MISSING_FEATURE; /* bad vertices could not be reported (vs_status) */
    pvk_result r = pvk_vs_module_prepare(ctx, pk->vs);
    if (r)
        return r; /* MISSING_FEATURE: the translator draws on the CPU */
    if (roundtrip && (r = pvk_retire(&ctx->gpu, true)))
        return r;
    draw_input in = {0};
    VkDeviceSize region = 0, bytes = 0;
    if ((r = vs_inputs(ctx, d, pk->vs, roundtrip, &in, &region, &bytes)))
        return r;
    r = roundtrip ? render_roundtrip(ctx, d, pk, &in) : render_batched(ctx, d, pk, &in);
    uint64_t value = ctx->gpu.timeline_next + (d->batch.open ? 1 : 0);
    vertex_used(d, in.uni_off, sizeof(pvk_vs_draw_uniforms), value);
    vertex_used(d, region, bytes, value);
    if (!d->uni_value)
        d->uni_value = value;
    pvk_result rc = r ? PVK_SUCCESS : vs_check_add(d, value, pk->seq, in.status_off, false, 0);
    uint64_t done = 0; /* submitted already (PVK_DEBUG=sync waits there too, its retire came first) */
    if (!rc && !r && !d->batch.open && ctx->gpu.timeline &&
        ctx->gpu.vk.vkGetSemaphoreCounterValue(ctx->gpu.device, ctx->gpu.timeline, &done) == VK_SUCCESS)
        vs_status(ctx, done);
    return r ? r : rc;
}

/* A draw whose vertex and geometry programs run on the GPU (pk->gs): one
 * ring region takes the uniforms of both units, the indices, the
 * variable-primitive table, the attributes, the vertex program's outputs and
 * the triangle slots; the compute pre-pass (runtime/gs_draw.c) is its own
 * submission after the open batch (compute cannot run inside its
 * rendering), then the slots are drawn like the CPU path's vertices. */
static pvk_result draw_submit_gs(pvk_context *ctx, struct pvk_draw *d, const pvk_draw_packet *pk)
{
    const pvk_gs_draw *gs = pk->gs;
    const pvk_vs_draw *vs = &gs->vs;
    if (ctx->gpu.debug & PVK_DEBUG_ROUNDTRIP)
        return PVK_ERROR_MISSING_FEATURE; /* the old path draws on the CPU */
    VkPipeline pa, pb;
    pvk_result r = pvk_gs_prepare(ctx, gs, &pa, &pb);
    if (r)
        return r; /* MISSING_FEATURE: the translator draws on the CPU */
    uint32_t slots = pvk_gs_slots(ctx, gs);
    if (!slots) { /* triangles would be dropped on every draw: the CPU path has no slots */
        pvk_log(&ctx->gpu, PVK_LOG_DEBUG, "geometry program on the CPU: an invocation emits more than %u triangles",
                PVK_GS_MAX_SLOTS);
        return PVK_ERROR_MISSING_FEATURE;
    }
    if ((uint64_t)gs->prims * slots > gs->max_tris)
        return PVK_ERROR_MISSING_FEATURE; /* the CPU path counts what is really emitted */
    VkDeviceSize align = ctx->gpu.props.limits.minStorageBufferOffsetAlignment;
    align = align > 64 ? align : 64;
#define GS_UP(x) (((x) + align - 1) & ~(align - 1))
    VkDeviceSize tri_bytes = (VkDeviceSize)gs->prims * slots * 3 * sizeof(draw_vertex);
    VkDeviceSize vso_bytes = (VkDeviceSize)gs->vertices * (gs->key.vs_outputs + 1u) * 16;
    VkDeviceSize ibytes = vs->indexed ? (VkDeviceSize)vs->count * 2 : 0;
    VkDeviceSize tbytes = gs->prim_table ? (VkDeviceSize)gs->prims * 8 : 0;
    VkDeviceSize bytes = GS_UP(sizeof(pvk_vs_draw_uniforms)) + GS_UP(sizeof(pvk_vs_uniforms)) + GS_UP(ibytes) +
                         GS_UP(tbytes) + GS_UP(vso_bytes) + GS_UP(tri_bytes) + GS_UP(PVK_GS_COUNTERS * 4);
    for (uint32_t b = 0; b < vs->key.bindings; b++)
        bytes += GS_UP(vs->buf_len[b] + 4);
    if (bytes > PVK_GS_MAX_RING_BYTES)
        return PVK_ERROR_MISSING_FEATURE; /* the CPU path needs no slots */
    const uint8_t *src[12];
    if ((r = attrib_sources(ctx, vs, src)))
        return r;
    /* the pre-pass goes after the draws recorded so far */
    if ((r = pvk_batch_close(&ctx->gpu)) && ctx->gpu.sticky)
        return r;
    VkDeviceSize raw, base;
    if ((r = vertex_alloc(ctx, d, bytes + align, &raw)))
        return r;
    base = GS_UP(raw);
    uint8_t *map = d->vmap;
    pvk_gs_ranges rg;
    pvk_gs_push push;
    memset(&push, 0, sizeof push);
    VkDeviceSize off = base;
    rg.vs_uni = off;
    memcpy(map + off, vs->uniforms, sizeof(pvk_vs_draw_uniforms));
    off += GS_UP(sizeof(pvk_vs_draw_uniforms));
    rg.gs_uni = off;
    memcpy(map + off, gs->uniforms, sizeof(pvk_vs_uniforms));
    off += GS_UP(sizeof(pvk_vs_uniforms));
    if (ibytes) {
        memcpy(map + off, vs->index16, ibytes);
        push.idx_word = (uint32_t)(off / 4);
        push.indexed = 1;
        push.vertex_offset = vs->vertex_offset;
        off += GS_UP(ibytes);
    }
    if (tbytes) {
        memcpy(map + off, gs->prim_table, tbytes);
        push.table_word = (uint32_t)(off / 4);
        off += GS_UP(tbytes);
    }
    for (uint32_t b = 0; b < vs->key.bindings; b++) {
        uint32_t mis = vs->buf_addr[b] & 3u;
        memcpy(map + off, src[b], vs->buf_len[b] + mis);
        push.boff[b] = (uint32_t)(off + mis);
        off += GS_UP(vs->buf_len[b] + 4);
    }
    rg.vso = off, rg.vso_bytes = vso_bytes;
    off += GS_UP(vso_bytes);
    rg.tri = off, rg.tri_bytes = tri_bytes;
    off += GS_UP(tri_bytes);
    rg.cnt = off;
    memset(map + off, 0, PVK_GS_COUNTERS * 4);
    off += GS_UP(PVK_GS_COUNTERS * 4);
#undef GS_UP
    push.tri_slots = slots;
    push.light = pk->fs.fl.light;
    pvk_op op;
    if ((r = pvk_op_begin(&ctx->gpu, &op)))
        return r;
    pvk_op_label(&ctx->gpu, &op, "geometry program pre-pass (%u vertices, %u primitives, %u slots each)", gs->vertices,
                 gs->prims, slots);
    pvk_gs_record(ctx, op.cmd, gs, pa, pb, d->vbuf, &rg, &push);
    if ((r = pvk_op_submit(&ctx->gpu, &op))) {
        vertex_used(d, raw, bytes + align, ctx->gpu.timeline_next);
        return r;
    }
    pvk_draw_packet cpk = *pk; /* the slots, drawn as the CPU path draws its vertices */
    cpk.gs = NULL;
    cpk.tri_vertices = gs->prims * slots * 3;
    draw_input in = {.voff = rg.tri};
    r = render_batched(ctx, d, &cpk, &in);
    uint64_t value = ctx->gpu.timeline_next + (d->batch.open ? 1 : 0);
    vertex_used(d, raw, bytes + align, value);
    /* the counters are read when the draw's batch is done (vs_status):
     * after the pre-pass's submission, which comes first on the queue */
    pvk_result rc = vs_check_add(d, value, pk->seq, rg.cnt, true, pvk_gs_key_hash(gs));
    ctx->gpu.stats.gs_gpu_draws++;
    return r ? r : rc;
}

/* What a draw samples: per bound unit (bit u of `units`) the texture's view
 * and a sampler, as push descriptors for bindings 0-2. */
typedef struct tex_binding {
    uint32_t units;
    VkDescriptorImageInfo info[3];
} tex_binding;

/* Register values the documents call reserved or unknown that a sampled
 * unit uses (translator/texture.c decodes them as its PVK_TEXRES_* comments
 * say): counted unsupported every draw, logged once each.  Sizes, formats
 * and levels the decoder refuses are counted there instead. */
static void count_reserved(pvk_context *ctx, const pvk_tex_desc *td, uint32_t mask)
{
    static const struct { uint32_t bit; const char *what; } kinds[] = {
        {PVK_TEXRES_TYPE, "a reserved texture type (unit 0: 6-7, taken as disabled; units 1/2: not 0, ignored)"},
        {PVK_TEXRES_WRAP, "wrap mode 4-7 (taken as 0-1, 6-7 as repeat)"},
        {PVK_TEXRES_ETC1_FLAG, "an ETC1 flag that disagrees with the format (the format decides)"},
        {PVK_TEXRES_SHADOW_BIT, "a shadow bit that disagrees with the type (the type decides)"},
        {PVK_TEXRES_LOD, "a min level above the max level (the max is taken) or a max level past 8x8"},
    };
    struct pvk_draw *d = ctx->draw;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (!(td->reserved & mask & kinds[i].bit))
            continue;
        if (!(d->reserved_logged & kinds[i].bit)) {
            d->reserved_logged |= kinds[i].bit;
            pvk_unsupported(&ctx->gpu, "draw: texture unit %u has %s (counted per draw)", td->unit, kinds[i].what);
        } else {
            ctx->gpu.stats.unsupported++;
        }
    }
}

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
static pvk_result textures_for_draw(pvk_context *ctx, const pvk_draw_packet *pk, pvk_fs_key *fs, tex_binding *tb)
{
    struct pvk_draw *d = ctx->draw;
    tb->units = 0;
    fs->tex.shader_border = 0;
    for (uint32_t u = 0; u < 3; u++) {
        if (!(fs->tex.enable >> u & 1))
            continue;
        const pvk_tex_desc *td = &pk->tex[u];
        fs->tex.enable &= (uint8_t)~(1u << u); /* set again once bound */
        if (td->type == PVK_TEXTYPE_SHADOW_CUBE) {
            /* undocumented, and no emulator models it to follow */
            if (!d->shadow_warned) {
                d->shadow_warned = true;
                pvk_unsupported(&ctx->gpu, "draw: shadow cube textures are not sampled: they read 0 (counted per draw)");
            } else {
                ctx->gpu.stats.unsupported++;
            }
            continue;
        }
        pvk_texture_desc desc;
        const pvk_texture *t = NULL;
        if (!pvk_texture_desc_from_unit(td, &desc))
            continue;
        /* Levels below 8x8 have no documented layout (vram/texture.c refuses
         * them): rather than lose the texture, its levels down to 8x8 are
         * sampled, the level of detail clamped to them; counted unsupported. */
        uint32_t fit = 1;
        while (fit < desc.levels && (desc.width >> fit) >= 8 && (desc.height >> fit) >= 8 &&
               (desc.width >> fit) % 8 == 0 && (desc.height >> fit) % 8 == 0)
            fit++;
        bool cut = fit < desc.levels;
        if (cut) {
            if (!d->small_levels_warned) {
                d->small_levels_warned = true;
                pvk_unsupported(&ctx->gpu, "draw: texture %ux%u with %u levels: levels smaller than 8x8 are not decoded; "
                                     "sampled from the first %u (counted per draw)",
                                desc.width, desc.height, desc.levels, fit);
            } else {
                ctx->gpu.stats.unsupported++;
            }
            desc.levels = fit;
        }
        pvk_result r = pvk_texture_get(&ctx->vram, &desc, &t);
        if (r) {
            if (ctx->gpu.sticky)
                return r;
            continue; /* logged and counted */
        }
        pvk_sampler_key sk;
        pvk_sampler_key_from_desc(td, &sk);
        if (cut) {
            sk.max_level = (uint8_t)(sk.max_level < fit - 1 ? sk.max_level : fit - 1);
            sk.min_level = (uint8_t)(sk.min_level < fit - 1 ? sk.min_level : fit - 1);
        }
        uint32_t texel_bytes = 0;
        pvk_texture_vk_format(desc.format, NULL, &texel_bytes);
        if (td->type == PVK_TEXTYPE_SHADOW_2D) /* the shader fetches texels and compares them itself */
            sk = (pvk_sampler_key){0};
        bool bs = pvk_vk_address_mode(sk.wrap_s) == VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER,
             bt = pvk_vk_address_mode(sk.wrap_t) == VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER;
        if ((bs || bt) && (texel_bytes < 4 || !ctx->gpu.features.custom_border_color)) {
            if (!ctx->gpu.features.custom_border_color && !d->border_warned) {
                d->border_warned = true;
                pvk_log(&ctx->gpu, PVK_LOG_WARN, "draw: no custom border colours: the fragment shader clamps to the border "
                                           "colour itself (pvk_stats.shader_borders)");
            }
            ctx->gpu.stats.shader_borders++;
            fs->tex.shader_border |= (uint8_t)((bs ? 1u << u : 0) | (bt ? 1u << (u + 4) : 0));
            if (bs)
                sk.wrap_s = 0; /* clamp to edge */
            if (bt)
                sk.wrap_t = 0;
            sk.border = 0;
        }
        VkSampler smp = pvk_sampler_get(ctx, &sk, NULL);
        if (!smp) {
            if (ctx->gpu.sticky)
                return ctx->gpu.sticky;
            continue; /* logged */
        }
        count_reserved(ctx, td, cut ? ~(uint32_t)PVK_TEXRES_LOD : ~0u); /* levels past 8x8: counted above */
        tb->info[u] = (VkDescriptorImageInfo){smp, t->view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
        tb->units |= 1u << u;
        fs->tex.enable |= (uint8_t)(1u << u);
        ctx->gpu.stats.texture_samples++;
    }
    return PVK_SUCCESS;
}

/* Push the bound units' descriptors (bindings 0-2; the others keep theirs). */
static void push_textures(pvk_context *ctx, VkCommandBuffer cmd, const tex_binding *tb)
{
    VkWriteDescriptorSet w[3];
    uint32_t n = 0;
    for (uint32_t u = 0; u < 3; u++)
        if (tb->units >> u & 1)
            w[n++] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                            .dstBinding = PVK_DRAW_BINDING_TEX0 + u,
                                            .descriptorCount = 1,
                                            .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                                            .pImageInfo = &tb->info[u]};
    if (n)
        ctx->gpu.vk.vkCmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pvk_pipeline_layout(ctx), 0, n, w);
}

pvk_result pvk_draw_submit(pvk_context *ctx, const pvk_draw_packet *pk)
{
    struct pvk_draw *d = ctx->draw;
    if (pk->gs)
        return draw_submit_gs(ctx, d, pk);
    if (pk->vs)
        return draw_submit_vs(ctx, d, pk);
    VkDeviceSize bytes = (VkDeviceSize)pk->tri_vertices * sizeof(draw_vertex), voff = 0;
    bool roundtrip = ctx->gpu.debug & PVK_DEBUG_ROUNDTRIP;
    pvk_result r;
    if (roundtrip) {
        /* The old path: the vertex buffer and render target are shared by
         * all draws, so wait for the previous user before writing them. */
        if ((r = pvk_retire(&ctx->gpu, true)) || (r = ensure_vertices(ctx, d, bytes)))
            return r;
    } else if ((r = vertex_alloc(ctx, d, bytes, &voff))) {
        return r;
    }
    draw_vertex *dv = (draw_vertex *)((uint8_t *)d->vmap + voff);
    for (uint32_t k = 0; k < pk->tri_vertices; k++) { /* gathered once, straight into the ring */
        dv[k] = pk->verts[pk->index[k]];
    }
    if (pk->fs.fl.light) /* q and -q are one rotation: interpolate each triangle's along the shorter arc */
        for (uint32_t k = 0; k + 2 < pk->tri_vertices; k += 3)
            for (int j = 1; j <= 2; j++) {
                const float *a = dv[k].quat;
                float *b = dv[k + j].quat;
                if (a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0)
                    b[0] = -b[0], b[1] = -b[1], b[2] = -b[2], b[3] = -b[3];
            }
    draw_input in = {.voff = voff};
    r = roundtrip ? render_roundtrip(ctx, d, pk, &in) : render_batched(ctx, d, pk, &in);
    /* in use by the batch the draw went into: still open (the next value) or submitted */
    vertex_used(d, voff, bytes, ctx->gpu.timeline_next + (d->batch.open ? 1 : 0));
    return r;
}

/* Errors of a surface request that drop the draw (logged and counted)
 * rather than stop the command list. */
static bool dropped(pvk_result r)
{
    return r == PVK_ERROR_BAD_PARAMETERS || r == PVK_ERROR_OUT_OF_RANGE || r == PVK_ERROR_MISSING_FEATURE;
}

/* The colour and depth surfaces of a draw (NULL when it does not use one). */
static pvk_result packet_surfaces(pvk_context *ctx, const target *t, const depth_state *ds, pvk_surface **cs,
                                  pvk_surface **dsurf)
{
    *cs = *dsurf = NULL;
    pvk_result r;
    if (t->color) {
        if (t->fmt < 0 || !t->bpp) {
            pvk_bad_input(&ctx->gpu, "draw: colour buffer format is unknown; dropped");
            return PVK_ERROR_BAD_PARAMETERS;
        }
        pvk_surface_key key = {.addr = t->addr, .width = t->w, .height = t->h, .format = (uint32_t)t->fmt,
                               .kind = PVK_SURFACE_COLOR, .block32 = t->block32, .scale = (uint8_t)ctx->vram.scale};
        if ((r = pvk_surface_get(&ctx->vram, &key, VK_FORMAT_R8G8B8A8_UNORM, "draw colour buffer", cs)))
            return r;
    }
    if (ds->use) {
        if (!ds->bpp) {
            pvk_bad_input(&ctx->gpu, "draw: depth buffer format %u is reserved; dropped", ds->format);
            return PVK_ERROR_BAD_PARAMETERS;
        }
        uint32_t len = t->w * t->h * ds->bpp, clen = t->w * t->h * t->bpp;
        if (t->color && ds->addr < t->addr + clen && t->addr < ds->addr + len) {
            pvk_unsupported(&ctx->gpu, "draw: depth buffer 0x%08X overlaps the colour buffer 0x%08X; drawn without depth",
                            ds->addr, t->addr);
            return PVK_SUCCESS;
        }
        pvk_surface_key key = {.addr = ds->addr, .width = t->w, .height = t->h, .format = ds->format,
                               .kind = PVK_SURFACE_DEPTH, .block32 = t->block32, .scale = (uint8_t)ctx->vram.scale};
        if ((r = pvk_surface_get(&ctx->vram, &key, ds->vkfmt, "draw depth buffer", dsurf)))
            return r;
    }
    return PVK_SUCCESS;
}

/* A viewport Vulkan can take; false (logged and counted: the draw is dropped)
 * otherwise. */
static bool viewport_ok(pvk_context *ctx, const pvk_raster_desc *rd, uint32_t scale)
{
    float vw = rd->viewport[2], vh = rd->viewport[3];
    const uint32_t *max = ctx->gpu.props.limits.maxViewportDimensions;
    if (vw > 0 && vw <= 8192 && vh > 0 && vh <= 8192 && vw * (float)scale <= (float)max[0] &&
        vh * (float)scale <= (float)max[1])
        return true;
    pvk_bad_input(&ctx->gpu, "draw: viewport %gx%g is not drawable; dropped", vw, vh);
    return false;
}

/* The per-draw state inside a render pass: blend constants, viewport,
 * scissor, push constants (exclusive scissor, depth mapping, TEV uniforms,
 * clip plane), depth test and writes (when the pass has a depth attachment),
 * the stencil state (when it has a stencil aspect) and culling.  Everything a
 * pipeline leaves dynamic is set for every draw, so draws of one batch do not
 * inherit each other's state. */
static void set_draw_state(pvk_context *ctx, VkCommandBuffer cmd, const pvk_draw_packet *pk, uint32_t w, uint32_t h,
                           uint32_t scale, const depth_state *dst, bool depth_attachment, bool stencil_attachment)
{
    const pvk_raster_desc *rd = &pk->raster;
    float bc[4];
    for (int i = 0; i < 4; i++)
        bc[i] = (float)((pk->blend_color >> (8 * i)) & 0xFF) / 255.0f;
    ctx->gpu.vk.vkCmdSetBlendConstants(cmd, bc);
    /* Viewport: PICA window y runs up; attachment row = h - window y.  At
     * resolution scale N every window coordinate is N attachment pixels, the
     * picture not moved: an edge on a 1x pixel boundary stays on a boundary
     * of N x pixels, so flat pictures are exactly the 1x one upsampled (a
     * half-pixel move at even N would let the resolve sample 1x pixel
     * centres exactly, but put such edges on sample centres, where float
     * rounding decides coverage). */
    float vx = rd->viewport[0], vy = rd->viewport[1], vw = rd->viewport[2], vh = rd->viewport[3], n = (float)scale;
    VkViewport viewport = {vx * n, ((float)h - vy) * n, vw * n, -vh * n, 0.0f, 1.0f};
    int32_t si = (int32_t)scale;
    ctx->gpu.vk.vkCmdSetViewport(cmd, 0, 1, &viewport);
    VkRect2D scissor = {{0, 0}, {w * scale, h * scale}};
    int32_t exclude[4] = {1, 1, 0, 0}; /* x1 < x0: none */
    uint32_t smode = rd->scissor_mode;
    if (smode == 1 || smode == 3) {
        int32_t x0 = rd->scissor[0], y0 = rd->scissor[1], x1 = rd->scissor[2], y1 = rd->scissor[3];
        /* inclusive window rectangle (y up) -> attachment rows */
        int32_t r0 = (int32_t)h - 1 - y1, r1 = (int32_t)h - 1 - y0;
        if (smode == 3) {
            int32_t cx0 = x0 < 0 ? 0 : x0, cr0 = r0 < 0 ? 0 : r0;
            int32_t cx1 = x1 >= (int32_t)w ? (int32_t)w - 1 : x1, cr1 = r1 >= (int32_t)h ? (int32_t)h - 1 : r1;
            if (cx1 < cx0 || cr1 < cr0)
                scissor = (VkRect2D){{0, 0}, {0, 0}};
            else
                scissor = (VkRect2D){{cx0 * si, cr0 * si},
                                     {(uint32_t)(cx1 - cx0 + 1) * scale, (uint32_t)(cr1 - cr0 + 1) * scale}};
        } else { /* inclusive pixel ranges: 1x pixel p is N x N pixels from p * N */
            exclude[0] = x0 * si, exclude[1] = r0 * si, exclude[2] = (x1 + 1) * si - 1, exclude[3] = (r1 + 1) * si - 1;
        }
    }
    ctx->gpu.vk.vkCmdSetScissor(cmd, 0, 1, &scissor);
    pvk_draw_push fpush = {
        {exclude[0], exclude[1], exclude[2], exclude[3]},
        rd->depth_scale, rd->depth_offset,
        (float)((1u << (dst->bits ? dst->bits : 24)) - 1), rd->w_buffer, pk->uniforms, pk->blend_color};
    VkPipelineLayout layout = pvk_pipeline_layout(ctx);
    ctx->gpu.vk.vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_FRAGMENT_BIT, 32, sizeof fpush, &fpush);
    if (depth_attachment) {
        ctx->gpu.vk.vkCmdSetDepthTestEnable(cmd, dst->use);
        ctx->gpu.vk.vkCmdSetDepthWriteEnable(cmd, dst->write);
        ctx->gpu.vk.vkCmdSetDepthCompareOp(cmd, dst->use ? dst->op : VK_COMPARE_OP_ALWAYS);
    }
    if (stencil_attachment)
        set_stencil(ctx, cmd, rd, dst->stencil);
    struct { float plane[4]; uint32_t enable, pad[3]; } clip = {
        {rd->clip[0], rd->clip[1], rd->clip[2], rd->clip[3]}, rd->clip_enable, {0, 0, 0}};
    ctx->gpu.vk.vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof clip, &clip);
    ctx->gpu.vk.vkCmdSetCullMode(cmd, pvk_vk_cull_mode(rd->cull));
}

/* Label one draw of a batch (a no-op without debug utils); true when
 * pvk_label_end must close it. */
static bool label_draw(pvk_context *ctx, VkCommandBuffer cmd, const pvk_draw_packet *pk, uint32_t addr)
{
    return pvk_cmd_label(&ctx->gpu, cmd, "draw %llu (%s, %u triangles, state %016llx) into 0x%08X",
                         (unsigned long long)pk->seq,
                         pk->kind == PVK_DRAW_ARRAYS     ? "arrays"
                         : pk->kind == PVK_DRAW_ELEMENTS ? "elements"
                                                         : "immediate",
                         pk->tri_vertices / 3, (unsigned long long)pk->state_hash, addr);
}

/* The hook pvk_batch_close calls: end the pass and submit the batch. */
static pvk_result batch_submit(pvk_gpu *gpu)
{
    pvk_context *ctx = pvk_ctx_of_gpu(gpu);
    draw_batch *b = &ctx->draw->batch;
    if (!b->open)
        return PVK_SUCCESS;
    b->open = false;
    if (b->pass)
        ctx->gpu.vk.vkCmdEndRenderPass(b->op.cmd);
    else
        ctx->gpu.vk.vkCmdEndRendering(b->op.cmd);
    if (ctx->gpu.sticky) { /* a lost device runs nothing more */
        pvk_op_abort(&ctx->gpu, &b->op);
        return ctx->gpu.sticky;
    }
    return pvk_op_submit(&ctx->gpu, &b->op);
}

/* Start a batch rendering into `color` (a surface's view, or the scratch
 * target when the draw writes no colour) and the depth surface `dsurf` (or
 * the scratch depth image, cleared, when the draw uses no depth buffer). */
static pvk_result batch_open(pvk_context *ctx, struct pvk_draw *d, const target *t, pvk_surface *cs,
                             pvk_surface *dsurf, const depth_state *dst)
{
    draw_batch *b = &d->batch;
    pvk_result r;
    if ((r = pvk_op_begin(&ctx->gpu, &b->op)))
        return r;
    b->op.p.retire = batch_retire;
    VkCommandBuffer cmd = b->op.cmd;
    pvk_op_label(&ctx->gpu, &b->op, "draws into 0x%08X%s %ux%u", t->addr, t->color ? "" : " (no colour writes)", t->w,
                 t->h);
    /* surfaces are at rest in the attachment layouts; scratch images hold nothing */
    if (!cs)
        image_barrier(ctx, cmd, d->rt.image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
    if (!dsurf && d->depth.image)
        image_barrier_aspect(ctx, cmd, d->depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                             VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL);
    VkRenderingAttachmentInfo att = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = cs ? pvk_surface_view(cs) : d->rt.view,
        .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
        .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD,
        .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
    };
    VkRenderingAttachmentInfo datt = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = dsurf ? pvk_surface_view(dsurf) : d->depth.view,
        /* a D24S8 surface rests in one layout for both aspects */
        .imageLayout = dst->stencil ? VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL
                                    : VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
        .loadOp = dsurf ? VK_ATTACHMENT_LOAD_OP_LOAD : VK_ATTACHMENT_LOAD_OP_CLEAR,
        /* a surface keeps its contents even when no draw of the batch writes it */
        .storeOp = dsurf ? VK_ATTACHMENT_STORE_OP_STORE : VK_ATTACHMENT_STORE_OP_DONT_CARE,
    };
    bool depth = dsurf || d->depth.image;
    VkRenderingInfo ri = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
        .renderArea = {{0, 0}, {t->w * t->scale, t->h * t->scale}},
        .layerCount = 1,
        .colorAttachmentCount = 1,
        .pColorAttachments = &att,
        .pDepthAttachment = depth ? &datt : NULL,
        .pStencilAttachment = dst->stencil ? &datt : NULL, /* the same image and view */
    };
    b->pass = ctx->gpu.attachment_read;
    if (b->pass) {
        /* The same attachments in a render pass whose subpass reads the colour
         * attachment in rasterization order (shaders that blend). */
        VkFormat dfmt = depth ? dst->vkfmt : VK_FORMAT_UNDEFINED;
        bool load = dsurf != NULL;
        VkRenderPass pass = pvk_render_pass_get(ctx, dfmt, load);
        uint32_t fw = t->w * t->scale, fh = t->h * t->scale;
        VkFramebuffer fb = pass ? pvk_framebuffer_get(ctx, dfmt, load, fw, fh) : VK_NULL_HANDLE;
        if (!fb) {
            pvk_op_abort(&ctx->gpu, &b->op);
            return PVK_ERROR_VULKAN; /* logged */
        }
        VkImageView views[2] = {att.imageView, datt.imageView};
        VkRenderPassAttachmentBeginInfo abi = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_ATTACHMENT_BEGIN_INFO,
                                               .attachmentCount = depth ? 2 : 1, .pAttachments = views};
        VkClearValue clear[2] = {att.clearValue, datt.clearValue};
        VkRenderPassBeginInfo rpbi = {
            .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
            .pNext = &abi,
            .renderPass = pass,
            .framebuffer = fb,
            .renderArea = ri.renderArea,
            .clearValueCount = depth ? 2 : 0,
            .pClearValues = clear,
        };
        ctx->gpu.vk.vkCmdBeginRenderPass(cmd, &rpbi, VK_SUBPASS_CONTENTS_INLINE);
        VkDescriptorImageInfo dii = {VK_NULL_HANDLE, att.imageView, VK_IMAGE_LAYOUT_GENERAL};
        VkWriteDescriptorSet w = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                  .dstBinding = PVK_DRAW_BINDING_DST,
                                  .descriptorCount = 1,
                                  .descriptorType = VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT,
                                  .pImageInfo = &dii};
        ctx->gpu.vk.vkCmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pvk_pipeline_layout(ctx), 0, 1, &w);
    } else {
        ctx->gpu.vk.vkCmdBeginRendering(cmd, &ri);
    }
    b->open = true;
    b->color = att.imageView;
    b->depth = depth ? datt.imageView : VK_NULL_HANDLE;
    b->dfmt = depth ? dst->vkfmt : VK_FORMAT_UNDEFINED;
    b->stencil = dst->stencil;
    b->w = t->w * t->scale;
    b->h = t->h * t->scale;
    b->pipeline = VK_NULL_HANDLE;
    b->draws = 0;
    ctx->gpu.batch_close = batch_submit;
    return PVK_SUCCESS;
}

/* Record the packet into the open batch, opening one when its buffers
 * differ from the batch's.  A draw without depth joins a batch whatever its
 * depth attachment (the test and writes are off); one with depth needs the
 * batch's depth surface. */
/* Shadow rendering (COLOR_OPERATION mode 3, translator/glsl_light.c) reads
 * the colour attachment in the shader: on a path without attachment reads
 * the draw writes its TEV colour instead, counted unsupported. */
static void shadow_for_path(pvk_context *ctx, struct pvk_draw *d, pvk_fs_key *fs, bool attachment_read)
{
    if (!fs->fl.shadow || attachment_read)
        return;
    fs->fl.shadow = 0;
    if (d->shadow_mode_warned) {
        ctx->gpu.stats.unsupported++;
        return;
    }
    d->shadow_mode_warned = true;
    pvk_unsupported(&ctx->gpu, "draw: shadow rendering needs attachment reads (%s); the TEV colour is written instead",
                    ctx->gpu.debug & PVK_DEBUG_ROUNDTRIP ? "not on the PVK_DEBUG=roundtrip path" : "device or PVK_DEBUG");
}

static pvk_result render_batched(pvk_context *ctx, struct pvk_draw *d, const pvk_draw_packet *pk,
                                 const draw_input *in)
{
    target t;
    depth_state dst;
    pvk_surface *cs = NULL, *dsurf = NULL;
    pvk_result r;
    if (!packet_target(ctx, pk, &t, false) || !packet_depth(ctx, d, pk, &dst, false))
        return PVK_SUCCESS; /* logged and counted; the list goes on */
    /* surface loads, evictions and scratch resizes close the batch themselves */
    if ((r = packet_surfaces(ctx, &t, &dst, &cs, &dsurf)))
        return dropped(r) ? PVK_SUCCESS : r;
    /* fog/lighting/proctex data first: making room in its ring may submit the open batch */
    pvk_fragdata_ref fref;
    bool fdata = pvk_fs_uses_fragdata(&pk->fs);
    if (fdata && (r = pvk_fragdata_prepare(ctx, pk, &fref)))
        return r;
    if (dst.use && !dsurf)
        dst.use = dst.write = false; /* refused above */
    if (!dsurf)
        dst.stencil = false, dst.vkfmt = d->dfmt; /* the scratch D32 image, if any */
    uint32_t sc = t.scale, sw = t.w * sc, sh = t.h * sc; /* attachment size */
    if (!t.color && (r = ensure_target(ctx, d, sw, sh)))
        return r;
    if (!viewport_ok(ctx, &pk->raster, sc))
        return PVK_SUCCESS;
    draw_batch *b = &d->batch;
    VkImageView color = cs ? pvk_surface_view(cs) : d->rt.view;
    bool same = b->open && b->color == color && b->w == sw && b->h == sh &&
                (!dsurf || b->depth == pvk_surface_view(dsurf));
    /* another target: the batch goes first, so the textures' and samplers'
     * last use (the open or next submission) is this draw's batch */
    if (!same && (r = pvk_batch_close(&ctx->gpu)) && ctx->gpu.sticky)
        return r;
    pvk_pipe_key pipe = pk->pipe;
    pvk_fs_key fs = pk->fs;
    tex_binding tb;
    if ((r = textures_for_draw(ctx, pk, &fs, &tb)))
        return r;
    if (!b->open) { /* closed above, or by a texture decode */
        if (d->dfmt != VK_FORMAT_UNDEFINED && !dsurf && (r = ensure_depth_image(ctx, d, sw, sh)))
            return r;
        if ((r = batch_open(ctx, d, &t, cs, dsurf, &dst)))
            return r;
    }
    /* made for the batch's depth attachment, which a draw without depth shares */
    pvk_keys_for_device(ctx, &pipe, &fs);
    shadow_for_path(ctx, d, &fs, b->pass);
    pvk_fragdata_for_device(ctx, &fs);
    VkPipeline pipeline = pvk_pipeline_get(ctx, &pipe, &fs, b->dfmt, b->pass, pk->vs);
    if (!pipeline)
        return PVK_ERROR_VULKAN; /* logged */
    VkCommandBuffer cmd = b->op.cmd;
    bool labelled = label_draw(ctx, cmd, pk, t.addr);
    if (b->pipeline != pipeline) {
        ctx->gpu.vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
        b->pipeline = pipeline;
    }
    set_draw_state(ctx, cmd, pk, t.w, t.h, sc, &dst, b->depth != VK_NULL_HANDLE, b->stencil);
    push_textures(ctx, cmd, &tb);
    if (fdata)
        pvk_fragdata_bind(ctx, cmd, &fref);
    record_vertices(ctx, d, cmd, pk, in);
    if (fdata)
        pvk_fragdata_used(ctx, &fref, ctx->gpu.timeline_next + 1); /* the open batch's value */
    if (labelled)
        pvk_label_end(&ctx->gpu, cmd);
    /* the surfaces are newer than guest memory now; nothing goes home */
    if (cs)
        pvk_surface_drawn(cs);
    if (dsurf && (dst.write || (dst.stencil && pk->raster.stencil_test && pk->raster.stencil_write_mask))) {
        pvk_surface_drawn(dsurf);
        pvk_mmio_count(&ctx->vram.mmio, PVK_REG_TRAFFIC_FIRST + 0x24, t.w * t.h * dst.bpp); /* POLYGON_DEPTHBUFFER_WRITES */
    }
    if (dst.use)
        pvk_mmio_count(&ctx->vram.mmio, PVK_REG_TRAFFIC_FIRST + 0x20, t.w * t.h * dst.bpp); /* POLYGON_DEPTHBUFFER_READS */
    if (t.color)
        pvk_mmio_count(&ctx->vram.mmio, PVK_REG_TRAFFIC_FIRST + 0x2C, t.w * t.h * t.bpp); /* POLYGON_COLORBUFFER_WRITES */
    /* sync: every draw on its own, waited for */
    if (++b->draws >= (ctx->gpu.debug & PVK_DEBUG_SYNC ? 1u : BATCH_MAX_DRAWS))
        return pvk_batch_close(&ctx->gpu);
    return PVK_SUCCESS;
}

/* The old path (PVK_DEBUG=roundtrip): load the buffers from guest memory,
 * draw, store them back, in one submission of its own. */
static pvk_result render_roundtrip(pvk_context *ctx, struct pvk_draw *d, const pvk_draw_packet *pk,
                                   const draw_input *in)
{
    target tt, *t = &tt;
    if (!packet_target(ctx, pk, t, true))
        return PVK_SUCCESS; /* logged and counted; the list goes on */
    uint32_t w = t->w, h = t->h, bpp = t->bpp, addr = t->addr;
    int fmt = t->fmt;
    pvk_guest_span span = t->span;
    pvk_result r;
    if ((r = ensure_target(ctx, d, w, h)))
        return r;
    pvk_buffer_range guest = {0};
    uint32_t sub = 0;
    if (t->color) {
        if (!pvk_guest_bind(&ctx->vram, &span, &guest, &sub, "draw colour buffer"))
            return PVK_SUCCESS;
        if (span.region->mirror)
            pvk_guest_upload(&ctx->vram, &span);
    }
    pvk_buffer_range staging = {d->staging, 0, (VkDeviceSize)w * h * 4};
    depth_state dst;
    if (!packet_depth(ctx, d, pk, &dst, true))
        return PVK_SUCCESS; /* logged and counted */
    pvk_buffer_range dguest = {0}, dstaging = {d->dstaging, 0, (VkDeviceSize)w * h * 4};
    uint32_t dsub = 0;
    if (dst.use) {
        if (!pvk_guest_bind(&ctx->vram, &dst.span, &dguest, &dsub, "draw depth buffer"))
            return PVK_SUCCESS;
        if (dsub % 4) { /* cannot happen with 8-byte addresses and aligned regions */
            pvk_bad_input(&ctx->gpu, "draw: depth buffer at 0x%08X is not word aligned in its binding; dropped", dst.addr);
            return PVK_SUCCESS;
        }
        if (dst.span.region->mirror)
            pvk_guest_upload(&ctx->vram, &dst.span);
    }
    if (d->dfmt != VK_FORMAT_UNDEFINED && (r = ensure_depth_image(ctx, d, w, h)))
        return r;
    /* dynamic rendering and Vulkan's blend unit: keys as built, but for the textures */
    pvk_fs_key fs = pk->fs;
    tex_binding tb;
    if ((r = textures_for_draw(ctx, pk, &fs, &tb)))
        return r;
    shadow_for_path(ctx, d, &fs, false);
    pvk_fragdata_for_device(ctx, &fs);
    VkPipeline pipeline = pvk_pipeline_get(ctx, &pk->pipe, &fs, d->dfmt, false, pk->vs);
    if (!pipeline)
        return PVK_ERROR_VULKAN; /* logged */
    if (!viewport_ok(ctx, &pk->raster, 1))
        return PVK_SUCCESS;
    pvk_fragdata_ref fref;
    bool fdata = pvk_fs_uses_fragdata(&pk->fs);
    if (fdata && (r = pvk_fragdata_prepare(ctx, pk, &fref)))
        return r;

    pvk_op op;
    if ((r = pvk_op_begin(&ctx->gpu, &op)))
        return r;
    pvk_op_label(&ctx->gpu, &op, "draw %llu (%s, %u triangles, state %016llx) into 0x%08X", (unsigned long long)pk->seq,
                 pk->kind == PVK_DRAW_ARRAYS ? "arrays" : pk->kind == PVK_DRAW_ELEMENTS ? "elements" : "immediate",
                 pk->tri_vertices / 3, (unsigned long long)pk->state_hash, addr);
    VkCommandBuffer cmd = op.cmd;
    /* load: tiled guest colour -> linear RGBA8 (memory byte order) -> image */
    VkBufferImageCopy bic = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, .imageExtent = {w, h, 1}};
    if (t->color) {
        pvk_transfer_record_convert(&ctx->vram, &op, guest, sub, staging, 0, w, w, h, (uint32_t)fmt, PVK_XFER_RGBA8_NATURAL, 0);
        pvk_op_barrier(&ctx->gpu, &op);
        image_barrier(ctx, cmd, d->rt.image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
        ctx->gpu.vk.vkCmdCopyBufferToImage(cmd, d->staging, d->rt.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &bic);
        image_barrier(ctx, cmd, d->rt.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                      VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
    } else {
        image_barrier(ctx, cmd, d->rt.image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
    }
    /* depth: tiled guest -> linear q * 2^-24 -> D32 image */
    VkBufferImageCopy dbic = {.imageSubresource = {VK_IMAGE_ASPECT_DEPTH_BIT, 0, 0, 1}, .imageExtent = {w, h, 1}};
    if (dst.use) {
        pvk_mmio_count(&ctx->vram.mmio, PVK_REG_TRAFFIC_FIRST + 0x20, w * h * dst.bpp); /* POLYGON_DEPTHBUFFER_READS */
        pvk_depth_io(&ctx->vram, &op, dguest, dsub, dstaging, w, h, dst.bpp, false, false);
        pvk_op_barrier(&ctx->gpu, &op);
        image_barrier_aspect(ctx, cmd, d->depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                             VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
        ctx->gpu.vk.vkCmdCopyBufferToImage(cmd, d->dstaging, d->depth.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &dbic);
        image_barrier_aspect(ctx, cmd, d->depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                             VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL);
    } else if (d->depth.image) {
        image_barrier_aspect(ctx, cmd, d->depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                             VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL);
    }

    VkRenderingAttachmentInfo att = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = d->rt.view,
        .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
        .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD,
        .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
    };
    VkRenderingAttachmentInfo datt = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = d->depth.view,
        .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
        .loadOp = dst.use ? VK_ATTACHMENT_LOAD_OP_LOAD : VK_ATTACHMENT_LOAD_OP_CLEAR,
        .storeOp = dst.write ? VK_ATTACHMENT_STORE_OP_STORE : VK_ATTACHMENT_STORE_OP_DONT_CARE,
    };
    VkRenderingInfo ri = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
        .renderArea = {{0, 0}, {w, h}},
        .layerCount = 1,
        .colorAttachmentCount = 1,
        .pColorAttachments = &att,
        .pDepthAttachment = d->depth.image ? &datt : NULL,
    };
    ctx->gpu.vk.vkCmdBeginRendering(cmd, &ri);
    ctx->gpu.vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
    set_draw_state(ctx, cmd, pk, w, h, 1, &dst, d->depth.image != VK_NULL_HANDLE, false);
    push_textures(ctx, cmd, &tb);
    if (fdata)
        pvk_fragdata_bind(ctx, cmd, &fref);
    record_vertices(ctx, d, cmd, pk, in);
    ctx->gpu.vk.vkCmdEndRendering(cmd);

    /* store: image -> linear staging -> tiled guest colour */
    if (t->color) {
        image_barrier(ctx, cmd, d->rt.image, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                      VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
        ctx->gpu.vk.vkCmdCopyImageToBuffer(cmd, d->rt.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, d->staging, 1, &bic);
    }
    if (dst.write) {
        image_barrier_aspect(ctx, cmd, d->depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                             VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
        ctx->gpu.vk.vkCmdCopyImageToBuffer(cmd, d->depth.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, d->dstaging, 1, &dbic);
    }
    pvk_op_barrier(&ctx->gpu, &op);
    if (t->color)
        pvk_transfer_record_convert(&ctx->vram, &op, staging, 0, guest, sub, w, w, h, PVK_XFER_RGBA8_NATURAL, (uint32_t)fmt, 2);
    d->depth_len = 0;
    if (dst.write) {
        pvk_depth_io(&ctx->vram, &op, dguest, dsub, dstaging, w, h, dst.bpp, true, false);
        d->depth_addr = dst.addr;
        d->depth_len = w * h * dst.bpp;
        pvk_mmio_count(&ctx->vram.mmio, PVK_REG_TRAFFIC_FIRST + 0x24, w * h * dst.bpp); /* POLYGON_DEPTHBUFFER_WRITES */
    }
    op.p.retire = draw_retire;
    op.p.dst_addr = addr;
    op.p.dst_len = t->color ? w * h * bpp : 0;
    if (t->color)
        pvk_mmio_count(&ctx->vram.mmio, PVK_REG_TRAFFIC_FIRST + 0x2C, w * h * bpp); /* POLYGON_COLORBUFFER_WRITES */
    if ((r = pvk_op_submit(&ctx->gpu, &op)))
        return r;
    if (fdata)
        pvk_fragdata_used(ctx, &fref, ctx->gpu.timeline_next);
    return PVK_SUCCESS;
}

pvk_result pvk_draw_init(pvk_context *ctx)
{
    struct pvk_draw *d = calloc(1, sizeof *d);
    if (!d)
        return PVK_ERROR_OUT_OF_MEMORY;
    ctx->draw = d;
    pvk_log(&ctx->gpu, PVK_LOG_INFO, "drawing: TEV combiners, texture units 0-2 (no shadow cube maps), the procedural "
                               "texture, fragment lighting, fog, shadow rendering, alpha test, blending, logic ops, "
                               "depth and stencil; no gas");
    /* D32_SFLOAT holds every 24-bit depth exactly (translator/glsl_fs.c); Vulkan
     * requires it for depth attachments and transfers, but check anyway. */
    VkFormatProperties fp;
    vkGetPhysicalDeviceFormatProperties(ctx->gpu.phys, VK_FORMAT_D32_SFLOAT, &fp);
    VkFormatFeatureFlags need = VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_FORMAT_FEATURE_TRANSFER_SRC_BIT |
                                VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
    if ((fp.optimalTilingFeatures & need) == need)
        d->dfmt = VK_FORMAT_D32_SFLOAT;
    else
        pvk_log(&ctx->gpu, PVK_LOG_ERROR, "device lacks D32_SFLOAT depth attachments: draws ignore the depth buffer");
    /* D24S8: the same exact float depth plus a stencil aspect.  (D24_UNORM_S8
     * would need another depth encoding; without D32_SFLOAT_S8_UINT draws go
     * without stencil, logged when one tests.) */
    vkGetPhysicalDeviceFormatProperties(ctx->gpu.phys, VK_FORMAT_D32_SFLOAT_S8_UINT, &fp);
    if (d->dfmt && (fp.optimalTilingFeatures & need) == need)
        d->dsfmt = VK_FORMAT_D32_SFLOAT_S8_UINT;
    else
        pvk_log(&ctx->gpu, PVK_LOG_WARN, "device lacks D32_SFLOAT_S8_UINT attachments: no stencil test");
    pvk_result r;
    if ((r = pvk_create_buffer(&ctx->gpu, (VkDeviceSize)MAX_DIM * MAX_DIM * 4,
                               VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                   VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                               VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &d->dstaging, &d->dstaging_mem)) ||
        (r = pvk_create_buffer(&ctx->gpu, (VkDeviceSize)MAX_DIM * MAX_DIM * 4,
                               VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                   VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                               VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &d->staging, &d->staging_mem)))
        return r;
    pvk_object_name(&ctx->gpu, VK_OBJECT_TYPE_BUFFER, (uint64_t)d->staging, "draw colour staging (linear RGBA8)");
    pvk_object_name(&ctx->gpu, VK_OBJECT_TYPE_BUFFER, (uint64_t)d->dstaging, "draw depth staging (linear float)");
    return PVK_SUCCESS;
}

void pvk_draw_destroy(pvk_context *ctx)
{
    struct pvk_draw *d = ctx->draw;
    if (!d)
        return;
    pvk_batch_close(&ctx->gpu); /* the context's last retire submitted it already */
    pvk_image_destroy(&ctx->gpu, &d->rt);
    pvk_image_destroy(&ctx->gpu, &d->depth);
    if (d->dstaging)
        ctx->gpu.vk.vkDestroyBuffer(ctx->gpu.device, d->dstaging, NULL);
    if (d->dstaging_mem)
        ctx->gpu.vk.vkFreeMemory(ctx->gpu.device, d->dstaging_mem, NULL);
    if (d->vbuf)
        ctx->gpu.vk.vkDestroyBuffer(ctx->gpu.device, d->vbuf, NULL);
    if (d->vbuf_mem)
        ctx->gpu.vk.vkFreeMemory(ctx->gpu.device, d->vbuf_mem, NULL);
    free(d->checks);
    if (d->staging)
        ctx->gpu.vk.vkDestroyBuffer(ctx->gpu.device, d->staging, NULL);
    if (d->staging_mem)
        ctx->gpu.vk.vkFreeMemory(ctx->gpu.device, d->staging_mem, NULL);
    free(d);
    ctx->draw = NULL;
}
