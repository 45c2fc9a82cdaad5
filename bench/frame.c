/* Frames per second of a citro3d-like frame: memory fills clear the colour
 * (RGBA8 240x400) and depth (D24S8) buffers, 50 draws of 300 vertices (100
 * triangles each, depth test and writes on) go through the register
 * interface, a display transfer converts the colour buffer to the BGR8 LCD
 * framebuffer, and pvk_vblank scans it out.  The baseline is the same frame
 * with PVK_DEBUG=roundtrip (every draw loads and stores the colour and depth
 * buffers through guest memory and waits for the draw before), measured in
 * the same run on a second context; it blends on Vulkan's blend unit, so the
 * cache with PVK_DEBUG=no-attachment-read (dynamic rendering, that blend unit)
 * must show the same picture, and the default path (render passes, exact
 * blending in the shader where the device reads attachments) is measured
 * against it (frame_attachment_read).
 * The floor (frame_vs_bare): the frame's triangles, as picavk's vertex stages
 * shaded them, drawn by bare Vulkan in one render pass per frame with the
 * same pipelines and dynamic state into cleared colour and depth images,
 * queued as picavk's frames are and waited for at the end, on a third
 * context. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_draw.h"
#include "runtime/runtime.h"

#define FW 240u /* the top screen's buffers: 240 pixels a row, 400 rows */
#define FH 400u
#define COLOR 0x18000000u
#define DEPTH 0x18100000u
#define LCD 0x18200000u
#define VB 0x20100000u
#define DRAWS 50u
#define VERTS 300u

static pvk_context *setup(void)
{
    pvk_context *ctx = bench_context("frame", 0);
    bench_passthrough(ctx, VB);
    /* RGBA8 colour, D24S8 depth, less-than test with writes */
    bench_reg(ctx, PVK_GPUREG_COLORBUFFER_FORMAT, 2);
    bench_reg(ctx, PVK_GPUREG_COLORBUFFER_LOC, COLOR >> 3);
    bench_reg(ctx, PVK_GPUREG_COLORBUFFER_READ, 0xF);
    bench_reg(ctx, PVK_GPUREG_COLORBUFFER_WRITE, 0xF);
    bench_reg(ctx, PVK_GPUREG_DEPTHBUFFER_FORMAT, 3);
    bench_reg(ctx, PVK_GPUREG_DEPTHBUFFER_LOC, DEPTH >> 3);
    bench_reg(ctx, PVK_GPUREG_DEPTHBUFFER_READ, 3);
    bench_reg(ctx, PVK_GPUREG_DEPTHBUFFER_WRITE, 3);
    bench_reg(ctx, PVK_GPUREG_FRAMEBUFFER_DIM, FW | ((FH - 1) << 12) | (1u << 24));
    bench_reg(ctx, PVK_GPUREG_VIEWPORT_WIDTH, bench_f24(FW / 2.0f));
    bench_reg(ctx, PVK_GPUREG_VIEWPORT_HEIGHT, bench_f24(FH / 2.0f));
    bench_reg(ctx, PVK_GPUREG_VIEWPORT_XY, 0);
    bench_reg(ctx, PVK_GPUREG_DEPTHMAP_ENABLE, 1);
    bench_reg(ctx, PVK_GPUREG_DEPTHMAP_SCALE, bench_f24(-1.0f));
    bench_reg(ctx, PVK_GPUREG_DEPTHMAP_OFFSET, bench_f24(0.0f));
    bench_reg(ctx, PVK_GPUREG_DEPTH_COLOR_MASK, 1u | (4u << 4) | (0xFu << 8) | (1u << 12));
    /* citro3d's output merger: blend mode, src alpha / one minus src alpha; TEV
     * stage 0 modulates the vertex colour with a constant, stage 1 adds the buffer */
    bench_reg(ctx, PVK_GPUREG_COLOR_OPERATION, 0x00E40100);
    bench_reg(ctx, PVK_GPUREG_BLEND_FUNC, 0x76760000);
    bench_reg(ctx, PVK_GPUREG_TEXENV0_SOURCE, 0x00E000E0);
    bench_reg(ctx, PVK_GPUREG_TEXENV0_COMBINER, 0x00010001);
    bench_reg(ctx, PVK_GPUREG_TEXENV0_COLOR, 0xC0FFE0D0);
    bench_reg(ctx, PVK_GPUREG_TEXENV1_SOURCE, 0x00DF00DF);
    bench_reg(ctx, PVK_GPUREG_TEXENV1_COMBINER, 0x00020002);
    for (uint32_t st = 2; st < 6; st++)
        bench_reg(ctx, st < 4 ? PVK_GPUREG_TEXENV0_SOURCE + 8 * st : PVK_GPUREG_TEXENV4_SOURCE + 8 * (st - 4), 0x000F000F);
    bench_reg(ctx, PVK_GPUREG_PRIMITIVE_CONFIG, 1);
    /* the LCD: BGR8 framebuffer A, 2D */
    bench_lcd_top(ctx, LCD, FW);
    /* 50 x 100 triangles, each draw at its own offset of one buffer */
    float *v = pvk_guest_ptr(ctx, VB, DRAWS * VERTS * 32);
    uint32_t seed = 12345;
    for (uint32_t i = 0; i < DRAWS * VERTS; i++) {
        float *p = v + i * 8;
        for (int k = 0; k < 2; k++) {
            seed = seed * 1664525u + 1013904223u;
            p[k] = (float)(seed >> 8) / 8388608.0f - 1.0f;
        }
        p[2] = -(float)((i / 3) % 97 + 1) / 100.0f;
        p[3] = 1.0f;
        uint32_t c = (i / 3) * 2654435761u;
        for (int k = 0; k < 4; k++)
            p[4 + k] = k == 3 ? 1.0f : (float)((c >> (8 * k)) & 0xFF) / 255.0f;
    }
    pvk_guest_written(ctx, VB, DRAWS * VERTS * 32);
    return ctx;
}

static void frame(pvk_context *ctx)
{
    /* clear colour and depth with the two fill units, as citro3d does */
    bench_fill2(ctx, COLOR, FW * FH * 4, 0x202020FF, DEPTH, FW * FH * 4, 0x00FFFFFF);
    for (uint32_t d = 0; d < DRAWS; d++)
        bench_draw_arrays(ctx, d * VERTS * 32, VERTS);
    bench_reg(ctx, PVK_GPUREG_FRAMEBUFFER_FLUSH, 1);
    /* tiled RGBA8 -> linear BGR8 */
    bench_display_transfer(ctx, COLOR, LCD, FW, FH);
    pvk_vblank(ctx);
}

typedef struct run {
    double fps;
    uint32_t frames;
    pvk_stats st;
    uint32_t *pixels;
} run;

static run measure(const char *debug, double seconds)
{
    setenv("PVK_DEBUG", debug, 1);
    pvk_context *ctx = setup();
    run r = {0};
    frame(ctx); /* warm-up: pipelines, surfaces, images */
    pvk_wait_idle(ctx);
    double t0 = bench_now(), t1;
    do {
        frame(ctx);
        r.frames++;
        if (r.frames % 8 == 0)
            pvk_poll(ctx);
        t1 = bench_now();
    } while (t1 - t0 < seconds || r.frames < 3);
    pvk_wait_idle(ctx);
    t1 = bench_now();
    r.fps = r.frames / (t1 - t0);
    pvk_get_stats(ctx, &r.st);
    uint32_t w, h;
    pvk_frame_size(ctx, PVK_SCREEN_TOP, &w, &h);
    r.pixels = calloc(400 * 240, 4); /* the largest top frame */
    if (r.pixels && w * h <= 400 * 240)
        pvk_frame_read(ctx, PVK_SCREEN_TOP, r.pixels, w * 4);
    pvk_context_destroy(ctx);
    return r;
}

/* The frame's draws as the translator hands them to the runtime. */
typedef struct captured {
    pvk_draw_packet pk[DRAWS]; /* pointers cleared: the vertices are in `verts` */
    uint32_t first[DRAWS];
    pvk_vertex *verts;         /* draw.c's vertex layout: the translator's vertices as they are */
    uint32_t draws, nverts;
} captured;

static captured cap;

static pvk_result capture(void *user, const pvk_draw_packet *pk)
{
    (void)user;
    if (cap.draws == DRAWS || cap.nverts + pk->tri_vertices > DRAWS * VERTS)
        return PVK_SUCCESS;
    cap.pk[cap.draws] = *pk;
    cap.pk[cap.draws].verts = NULL;
    cap.pk[cap.draws].index = NULL;
    cap.first[cap.draws++] = cap.nverts;
    for (uint32_t k = 0; k < pk->tri_vertices; k++, cap.nverts++) {
        cap.verts[cap.nverts] = pk->verts[pk->index[k]];
    }
    return PVK_SUCCESS;
}

/* One frame's triangles in one pass: record, submit, wait. */
static void bare_frame(pvk_context *ctx, VkBuffer vbuf, pvk_image *color, pvk_image *depth)
{
    pvk_op op;
    if (pvk_op_begin(&ctx->gpu, &op))
        return;
    VkCommandBuffer cmd = op.cmd;
    pvk_image_barrier(&ctx->gpu, cmd, color->image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                      VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, 0,
                      VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT);
    pvk_image_barrier(&ctx->gpu, cmd, depth->image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                      VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, 0,
                      VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT);
    VkRenderingAttachmentInfo att = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                     .imageView = color->view,
                                     .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                     .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
                                     .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
                                     .clearValue.color.float32 = {0.125f, 0.125f, 0.125f, 1.0f}};
    VkRenderingAttachmentInfo datt = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                      .imageView = depth->view,
                                      .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                                      .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
                                      .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
                                      .clearValue.depthStencil.depth = 1.0f};
    VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
                          .renderArea = {{0, 0}, {FW, FH}},
                          .layerCount = 1,
                          .colorAttachmentCount = 1,
                          .pColorAttachments = &att,
                          .pDepthAttachment = &datt};
    ctx->gpu.vk.vkCmdBeginRendering(cmd, &ri);
    VkPipelineLayout layout = pvk_pipeline_layout(ctx);
    VkDeviceSize zero = 0;
    ctx->gpu.vk.vkCmdBindVertexBuffers(cmd, 0, 1, &vbuf, &zero);
    VkPipeline bound = VK_NULL_HANDLE;
    for (uint32_t i = 0; i < cap.draws; i++) {
        const pvk_draw_packet *pk = &cap.pk[i];
        const pvk_raster_desc *rd = &pk->raster;
        bool uber = false;
        VkPipeline pipe = pvk_pipeline_get(ctx, &pk->pipe, &pk->fs, VK_FORMAT_D32_SFLOAT, false, NULL, &uber, NULL);
        if (!pipe)
            break;
        if (pipe != bound)
            ctx->gpu.vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, bound = pipe);
        VkViewport vp = {rd->viewport[0], (float)FH - rd->viewport[1], rd->viewport[2], -rd->viewport[3], 0, 1};
        VkRect2D sc = {{0, 0}, {FW, FH}};
        float bc[4];
        for (int k = 0; k < 4; k++)
            bc[k] = (float)((pk->blend_color >> (8 * k)) & 0xFF) / 255.0f;
        ctx->gpu.vk.vkCmdSetViewport(cmd, 0, 1, &vp);
        ctx->gpu.vk.vkCmdSetScissor(cmd, 0, 1, &sc);
        ctx->gpu.vk.vkCmdSetBlendConstants(cmd, bc);
        ctx->gpu.vk.vkCmdSetCullMode(cmd, pvk_vk_cull_mode(rd->cull));
        ctx->gpu.vk.vkCmdSetDepthTestEnable(cmd, rd->depth_test);
        ctx->gpu.vk.vkCmdSetDepthWriteEnable(cmd, rd->depth_write);
        ctx->gpu.vk.vkCmdSetDepthCompareOp(cmd, pvk_vk_compare_op(rd->depth_func));
        pvk_draw_push push = {{1, 1, 0, 0}, rd->depth_scale, rd->depth_offset, 16777215.0f, rd->w_buffer,
                              pk->uniforms, pk->blend_color, 0};
        struct { float plane[4]; uint32_t enable, pad[3]; } clip = {{0, 0, 0, 0}, 0, {0, 0, 0}};
        ctx->gpu.vk.vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_FRAGMENT_BIT, 32, sizeof push, &push);
        ctx->gpu.vk.vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof clip, &clip);
        ctx->gpu.vk.vkCmdDraw(cmd, pk->tri_vertices, 1, cap.first[i], 0);
    }
    ctx->gpu.vk.vkCmdEndRendering(cmd);
    pvk_op_submit(&ctx->gpu, &op);
}

/* Frames per second of the bare pass over the captured triangles. */
static double measure_bare(double seconds)
{
    unsetenv("PVK_DEBUG");
    pvk_context *ctx = setup();
    pvk_pica_env env = ctx->pica.env;
    env.draw = capture;
    env.gpu_vs = false; /* the bare pass draws shaded triangles */
    pvk_pica_set_env(&ctx->pica, &env);
    cap.verts = calloc(DRAWS * VERTS, sizeof *cap.verts);
    double fps = 0;
    VkBuffer vbuf = VK_NULL_HANDLE;
    VkDeviceMemory vmem = VK_NULL_HANDLE;
    pvk_image color = {0}, depth = {0};
    void *map = NULL;
    frame(ctx); /* captures the draws; nothing is drawn */
    pvk_wait_idle(ctx);
    VkDeviceSize bytes = (VkDeviceSize)DRAWS * VERTS * sizeof *cap.verts;
    if (cap.draws == DRAWS && cap.verts &&
        !pvk_create_buffer(&ctx->gpu, bytes, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
                           VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, &vbuf, &vmem) &&
        ctx->gpu.vk.vkMapMemory(ctx->gpu.device, vmem, 0, VK_WHOLE_SIZE, 0, &map) == VK_SUCCESS &&
        !pvk_image_ensure(&ctx->gpu, &color, FW, FH, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, true) &&
        !pvk_image_ensure(&ctx->gpu, &depth, FW, FH, VK_FORMAT_D32_SFLOAT, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                          true)) {
        memcpy(map, cap.verts, bytes);
        bare_frame(ctx, vbuf, &color, &depth); /* warm-up */
        pvk_retire(&ctx->gpu, true);
        uint32_t frames = 0;
        double t0 = bench_now(), t1;
        do { /* paced as picavk's loop is: queued, polled, waited for at the end */
            bare_frame(ctx, vbuf, &color, &depth);
            if (++frames % 8 == 0)
                pvk_retire(&ctx->gpu, false);
            t1 = bench_now();
        } while (t1 - t0 < seconds || frames < 3);
        pvk_retire(&ctx->gpu, true);
        fps = frames / (bench_now() - t0);
    } else {
        fprintf(stderr, "frame bench: the bare pass could not be set up (%u draws captured)\n", cap.draws);
    }
    pvk_retire(&ctx->gpu, true);
    pvk_image_destroy(&ctx->gpu, &color);
    pvk_image_destroy(&ctx->gpu, &depth);
    if (vbuf)
        ctx->gpu.vk.vkDestroyBuffer(ctx->gpu.device, vbuf, NULL);
    if (vmem)
        ctx->gpu.vk.vkFreeMemory(ctx->gpu.device, vmem, NULL);
    free(cap.verts);
    pvk_context_destroy(ctx);
    return fps;
}

int main(void)
{
    run cached = measure("", 3.0);
    run ff = measure("no-attachment-read", 3.0);
    run trip = measure("roundtrip", 3.0);
    double bare = measure_bare(3.0);
    /* the round trip blends on Vulkan's blend unit, as the cache does without attachment reads */
    int same = ff.pixels && trip.pixels && !memcmp(ff.pixels, trip.pixels, 400 * 240 * 4);
    int worst = 0;
    for (uint32_t i = 0; cached.pixels && trip.pixels && i < 400 * 240 * 4; i++) {
        int e = abs((int)((uint8_t *)cached.pixels)[i] - (int)((uint8_t *)trip.pixels)[i]);
        worst = e > worst ? e : worst;
    }
    double f = 1.0 + cached.frames; /* warm-up frame included in the counters */
    printf("frame: 2 fills, %u draws x %u vertices (depth test + write, D24S8), RENDERBUFFER_FLUSH, display "
           "transfer RGBA8->BGR8 %ux%u, vblank\n",
           DRAWS, VERTS, FW, FH);
    printf("%-30s %10s %8s %14s %14s %14s\n", "path", "frames/s", "frames", "loads/frame", "writebacks/frame",
           "MB moved/frame");
    printf("%-30s %10.2f %8u %14.2f %14.2f %14.2f\n", "surface cache", cached.fps, cached.frames,
           cached.st.surface_loads / f, cached.st.surface_writebacks / f, cached.st.surface_bytes / f / 1e6);
    printf("%-30s %10.2f %8u %14.2f %14.2f %14.2f\n", "  no-attachment-read", ff.fps, ff.frames,
           ff.st.surface_loads / (1.0 + ff.frames), ff.st.surface_writebacks / (1.0 + ff.frames),
           ff.st.surface_bytes / (1.0 + ff.frames) / 1e6);
    printf("%-30s %10.2f %8u %14s %14s %14.2f\n", "PVK_DEBUG=roundtrip", trip.fps, trip.frames, "per draw",
           "per draw", 2.0 * DRAWS * FW * FH * 4 * 2 / 1e6);
    printf("%-30s %10.2f %8s   (the same triangles, one pass a frame)\n", "bare Vulkan", bare,
           "");
    printf("same picture with Vulkan's blend unit, cached and round trip: %s; exact blending differs from it by "
           "at most %d\n", same ? "yes" : "NO", worst);
    printf("BENCH name=frame value=%.2f unit=frames/s baseline=roundtrip ratio=%.2f\n", cached.fps,
           cached.fps / trip.fps);
    printf("BENCH name=frame_vs_bare value=%.2f unit=frames/s baseline=bare_vulkan ratio=%.3f\n", cached.fps,
           bare > 0 ? cached.fps / bare : 0.0);
    /* the attachment-read path (render passes, blending in the shader) against dynamic rendering and
     * Vulkan's blend unit */
    printf("BENCH name=frame_attachment_read value=%.2f unit=frames/s baseline=no_attachment_read ratio=%.3f\n",
           cached.fps, ff.fps > 0 ? cached.fps / ff.fps : 0.0);
    free(ff.pixels);
    free(cached.pixels);
    free(trip.pixels);
    return same ? 0 : 1;
}
