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
 * batch is a VkRenderPass instead (runtime/render_pass.c makes it and its
 * imageless framebuffer): the colour attachment is input attachment 0 too,
 * pushed once per batch, and shaders that blend read the destination there
 * and blend exactly (translator/glsl_fs.c); the keys are adjusted for that in
 * pvk_keys_resolve (runtime/keys.c).  The batch is
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

#include "runtime/draw.h"

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

/* The firstVertex placing each binding's bytes past `end` (bytes in use of
 * its window) within `win`, at a multiple of its stride and at the guest's
 * address modulo 4 (attributes stay aligned); false when there is none. */
static bool window_place(const VkDeviceSize *end, VkDeviceSize win, const pvk_vs_draw *vs, uint32_t *v)
{
    uint32_t nb = vs->key.bindings;
    VkDeviceSize first = 0;
    for (uint32_t b = 0; b < nb; b++) {
        VkDeviceSize s = vs->key.stride[b], need = (end[b] + s - 1) / s;
        first = need > first ? need : first;
    }
    for (VkDeviceSize f = first; f < first + 4; f++) {
        bool aligned = true, fits = true;
        for (uint32_t b = 0; b < nb; b++) {
            VkDeviceSize at = f * vs->key.stride[b];
            aligned &= (at & 3u) == (vs->buf_addr[b] & 3u);
            fits &= at + vs->buf_len[b] <= win;
        }
        if (!fits)
            return false;
        if (aligned) {
            *v = (uint32_t)f;
            return true;
        }
    }
    return false;
}

/* Can the open batch's chunk take the draw's status entry (and, `small`,
 * its vertices: *v)? */
static bool chunk_fits(const struct pvk_draw *d, const pvk_context *ctx, const pvk_vs_draw *vs, bool small, uint32_t *v)
{
    const draw_chunk *ch = &d->chunk;
    if (!ch->value || ch->lap != d->vlap || !d->batch.open || ch->value != ctx->gpu.timeline_next + 1 ||
        ch->slots >= DRAW_STATUS_SLOTS)
        return false;
    return !small || (vs->key.bindings <= ch->wins && window_place(ch->end, ch->win, vs, v));
}

/* The GPU path's inputs, copied into the ring: the uniforms (unless the last
 * copy of this lap holds the same), the indices, and each attribute
 * buffer's range as the guest has it now (at the same address modulo 4, so
 * attributes stay aligned), into the batch's chunk (draw_chunk) when they
 * fit there, else into the draw's region; the status entry in the chunk
 * (the round trip's in the region).  The translator checked the ranges and
 * synchronised them (pvk_guest_cpu_read).  *region, *region_bytes: the ring
 * bytes to mark in use besides the uniforms and the chunk. */
static pvk_result vs_inputs(pvk_context *ctx, struct pvk_draw *d, const pvk_vs_draw *vs, bool roundtrip, draw_input *in,
                            VkDeviceSize *region, VkDeviceSize *region_bytes)
{
    pvk_result r;
    in->vs = vs;
    const VkDeviceSize ubytes = sizeof(pvk_vs_draw_uniforms);
    VkDeviceSize align = ctx->gpu.props.limits.minStorageBufferOffsetAlignment;
    align = align > 64 ? align : 64;
    VkDeviceSize ibytes = vs->tri_index ? (VkDeviceSize)vs->tri_count * 4 /* strips, fans: the CPU path's list */
                          : vs->indexed ? (VkDeviceSize)vs->count * 2
                                        : 0;
    const uint8_t *src[12];
    if ((r = attrib_sources(ctx, vs, src)))
        return r;
    uint32_t nb = vs->key.bindings;
    /* small: every binding's bytes fit a window a few times over */
    VkDeviceSize want = 0;
    bool small = !roundtrip;
    for (uint32_t b = 0; b < nb; b++) {
        VkDeviceSize w = vs->buf_len[b] + 4u * vs->key.stride[b];
        small &= vs->key.stride[b] != 0; /* a stride of 0 reads the window's start whatever firstVertex says */
        want = w > want ? w : want;
    }
    small &= want <= DRAW_WINDOW_MAX / 8;
    bool need_uni = roundtrip || d->uni_lap != d->vlap || !d->batch.open ||
                    d->uni_value != ctx->gpu.timeline_next + 1 || d->uni_version != vs->uniforms_version;
    const VkDeviceSize status_bytes = (sizeof(pvk_vs_status) + align - 1) & ~(align - 1);
    VkDeviceSize base = 0, bytes = 0, chunk_at = 0, chunk_bytes = 0, win = 0;
    uint32_t v = 0;
    bool in_chunk = false, windows = false;
    for (int tries = 0;; tries++) {
        in_chunk = !roundtrip && chunk_fits(d, ctx, vs, small, &v);
        chunk_bytes = 0;
        windows = in_chunk && small;
        if (!roundtrip && !in_chunk) { /* a new chunk, after the draw's own bytes */
            static const VkDeviceSize none[12];
            win = 16384;
            while (small && win < 8 * want)
                win *= 2;
            windows = small && window_place(none, win, vs, &v);
            chunk_bytes = (VkDeviceSize)DRAW_STATUS_SLOTS * sizeof(pvk_vs_status) + (windows ? nb * win : 0);
        }
        bytes = roundtrip ? status_bytes : 0;
        bytes += need_uni ? (ubytes + 63) & ~(VkDeviceSize)63 : 0;
        bytes += (ibytes + 63) & ~(VkDeviceSize)63;
        if (!windows)
            for (uint32_t b = 0; b < nb; b++)
                bytes += (vs->buf_len[b] + 4 + 63) & ~(VkDeviceSize)63;
        if (chunk_bytes)
            bytes = (bytes + align - 1) & ~(align - 1);
        if (roundtrip) { /* the ring is this draw's alone (draw_submit_vs waited) */
            if ((r = pvk_draw_ring_ensure(ctx, d, bytes)))
                return r;
            base = 0;
            break;
        }
        uint64_t lap = d->vlap;
        VkDeviceSize raw;
        if ((r = pvk_draw_ring_alloc(ctx, d, bytes + chunk_bytes + align, &raw)))
            return r;
        base = (raw + align - 1) & ~(align - 1);
        chunk_at = base + bytes;
        bytes += base - raw;
        if (d->vlap == lap || tries)
            break;
        need_uni = true; /* the ring wrapped or grew past the last uniforms and the chunk: take them along */
    }
    if (chunk_bytes) {
        draw_chunk *ch = &d->chunk;
        memset(ch, 0, sizeof *ch);
        ch->lap = d->vlap;
        ch->value = UINT64_MAX; /* set by draw_submit_vs */
        ch->off = chunk_at;
        ch->bytes = chunk_bytes;
        ch->win = win;
        ch->wins = windows ? nb : 0;
        in_chunk = true;
    }
    VkDeviceSize off = base;
    uint8_t *map = d->vmap;
    const pvk_vs_status fresh = {0, {UINT32_MAX, UINT32_MAX, UINT32_MAX}};
    if (in_chunk) {
        draw_chunk *ch = &d->chunk;
        in->instance = ch->slots++;
        in->status_base = ch->off;
        in->status_range = (VkDeviceSize)DRAW_STATUS_SLOTS * sizeof(pvk_vs_status);
        in->status_off = ch->off + in->instance * sizeof(pvk_vs_status);
    } else {
        in->instance = 0;
        in->status_base = in->status_off = off;
        in->status_range = sizeof(pvk_vs_status);
        off += status_bytes;
    }
    memcpy(map + in->status_off, &fresh, sizeof fresh);
    if (need_uni) {
        memcpy(map + off, vs->uniforms, ubytes);
        d->uni_version = vs->uniforms_version;
        d->uni_off = off;
        d->uni_lap = roundtrip ? 0 : d->vlap;
        off += (ubytes + 63) & ~(VkDeviceSize)63;
    }
    in->uni_off = d->uni_off;
    if (ibytes) {
        memcpy(map + off, vs->tri_index ? (const void *)vs->tri_index : vs->index16, ibytes);
        in->ib = d->vbuf;
        in->ib_off = off;
        off += (ibytes + 63) & ~(VkDeviceSize)63;
    }
    in->first_vertex = windows ? v : 0;
    for (uint32_t b = 0; b < nb; b++) {
        uint32_t mis = vs->buf_addr[b] & 3u;
        in->vb[b] = d->vbuf;
        if (windows) {
            draw_chunk *ch = &d->chunk;
            VkDeviceSize at = v * (VkDeviceSize)vs->key.stride[b];
            in->vb_off[b] = ch->off + (VkDeviceSize)DRAW_STATUS_SLOTS * sizeof(pvk_vs_status) + b * ch->win;
            memcpy(map + in->vb_off[b] + at, src[b] + mis, vs->buf_len[b]);
            ch->end[b] = at + vs->buf_len[b];
            continue;
        }
        memcpy(map + off, src[b], vs->buf_len[b] + mis);
        in->vb_off[b] = off + mis;
        off += (vs->buf_len[b] + 4 + 63) & ~(VkDeviceSize)63;
    }
    *region = base;
    *region_bytes = bytes;
    d->uni_value = need_uni ? 0 : d->uni_value; /* draw_submit_vs names the batch that got the copy */
    return PVK_SUCCESS;
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
        return PVK_ERROR_MISSING_FEATURE; /* bad vertices could not be reported (pvk_draw_check_report) */
    bool building;
    pvk_result r = pvk_vs_module_prepare(ctx, pk->vs, &building);
    if (r) {
        /* while the module builds, the interpreter's draw takes what is
         * ready (pvk_pipeline_get): no pipeline of its own for a few frames */
        d->diverted = building;
        d->diverted_seq = pk->seq;
        return r; /* MISSING_FEATURE: the translator draws on the CPU */
    }
    if (roundtrip && (r = pvk_retire(&ctx->gpu, true)))
        return r;
    draw_input in = {0};
    VkDeviceSize region = 0, bytes = 0;
    if ((r = vs_inputs(ctx, d, pk->vs, roundtrip, &in, &region, &bytes)))
        return r;
    r = roundtrip ? pvk_draw_render_roundtrip(ctx, d, pk, &in) : pvk_draw_render_batched(ctx, d, pk, &in);
    uint64_t value = ctx->gpu.timeline_next + (d->batch.open ? 1 : 0);
    pvk_draw_ring_used(d, in.uni_off, sizeof(pvk_vs_draw_uniforms), value);
    pvk_draw_ring_used(d, region, bytes, value);
    if (!d->uni_value)
        d->uni_value = value;
    if (!roundtrip && d->chunk.value) { /* the chunk goes on with the batch the draw went into */
        pvk_draw_ring_used(d, d->chunk.off, d->chunk.bytes, value);
        d->chunk.value = d->batch.open ? value : 0;
    }
    pvk_result rc = r ? PVK_SUCCESS : pvk_draw_check_add(d, value, pk->seq, in.status_off, false, 0);
    uint64_t done = 0; /* submitted already (PVK_DEBUG=sync waits there too, its retire came first) */
    if (!rc && !r && !d->batch.open && ctx->gpu.timeline &&
        ctx->gpu.vk.vkGetSemaphoreCounterValue(ctx->gpu.device, ctx->gpu.timeline, &done) == VK_SUCCESS)
        pvk_draw_check_report(ctx, done);
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
    if (!slots) { /* triangles would be pvk_draw_dropped on every draw: the CPU path has no slots */
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
    if ((r = pvk_draw_ring_alloc(ctx, d, bytes + align, &raw)))
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
        pvk_draw_ring_used(d, raw, bytes + align, ctx->gpu.timeline_next);
        return r;
    }
    pvk_draw_packet cpk = *pk; /* the slots, drawn as the CPU path draws its vertices */
    cpk.gs = NULL;
    cpk.tri_vertices = gs->prims * slots * 3;
    draw_input in = {.voff = rg.tri};
    r = pvk_draw_render_batched(ctx, d, &cpk, &in);
    uint64_t value = ctx->gpu.timeline_next + (d->batch.open ? 1 : 0);
    pvk_draw_ring_used(d, raw, bytes + align, value);
    /* the counters are read when the draw's batch is done (pvk_draw_check_report):
     * after the pre-pass's submission, which comes first on the queue */
    pvk_result rc = pvk_draw_check_add(d, value, pk->seq, rg.cnt, true, pvk_gs_key_hash(gs));
    ctx->gpu.stats.gs_gpu_draws++;
    return r ? r : rc;
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
        if ((r = pvk_retire(&ctx->gpu, true)) || (r = pvk_draw_ring_ensure(ctx, d, bytes)))
            return r;
    } else if ((r = pvk_draw_ring_alloc(ctx, d, bytes, &voff))) {
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
    r = roundtrip ? pvk_draw_render_roundtrip(ctx, d, pk, &in) : pvk_draw_render_batched(ctx, d, pk, &in);
    /* in use by the batch the draw went into: still open (the next value) or submitted */
    pvk_draw_ring_used(d, voff, bytes, ctx->gpu.timeline_next + (d->batch.open ? 1 : 0));
    return r;
}

pvk_result pvk_draw_init(pvk_context *ctx)
{
    struct pvk_draw *d = calloc(1, sizeof *d);
    if (!d)
        return PVK_ERROR_OUT_OF_MEMORY;
    ctx->draw = d;
    pvk_log(&ctx->gpu, PVK_LOG_INFO,
            "drawing: TEV combiners, texture units 0-2 (no shadow cube maps), the procedural "
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
    (void)pvk_batch_close(&ctx->gpu); /* the context's last retire submitted it already */
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
