/* Draws: the command processor's draw hook.  Vertices run through the CPU
 * stages (attribute loading, the vertex shader interpreter, the output map,
 * primitive assembly) and are drawn with Vulkan into the colour buffer.
 *
 * Until the surface cache exists every draw loads the colour buffer from
 * guest memory (detile + convert on the GPU), renders, and stores it back, in
 * one submission: guest memory stays the truth after each draw.  Fragments
 * are the interpolated primary colour.
 *
 * Depth: when DEPTH_COLOR_MASK enables the test or writes, the guest depth
 * buffer (same size and tiling as the colour buffer; D16, D24 or D24S8) is
 * detiled by shaders/depth_io.comp into a linear buffer of q * 2^-24 for the
 * integer depth q, copied into a D32_SFLOAT attachment, and stored back the
 * same way when writes are on and allowed (DEPTHBUFFER_WRITE bit 1); D24S8
 * stencil bytes are kept.  The fragment shader computes q (see draw.frag);
 * the float encoding is exact, so the test and the round trip are too.  As in
 * Citra, writes without the test enabled use Always (3dbrew agrees).
 *
 * Coordinates: PICA window y runs up and memory row 0 is the top of the
 * buffer (row = height - 1 - y), so the Vulkan viewport is flipped (negative
 * height).  Primitives are clipped to the viewport and to -w <= z <= 0, as
 * the emulators' hardware renderers do, and to the user clip plane.  Vulkan's rasterization rules (pixel centres, top-left fill) stand
 * for the PICA's, which are not publicly measured. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"
#include "translator/geometry.h"
#include "translator/regs.h"

#define MAX_DIM 1024 /* FRAMEBUFFER_DIM: 11-bit width, 10-bit height-1 */

typedef struct draw_vertex {
    float pos[4];
    float color[4];
} draw_vertex;

struct pvk_draw {
    uint64_t budget; /* shader instructions left in this guest call */
    VkPipelineLayout layout;
    VkPipeline pipeline;
    pvk_image rt;
    VkBuffer staging, vbuf;
    VkDeviceMemory staging_mem, vbuf_mem;
    void *vmap;
    VkDeviceSize vcap;
    pvk_image depth; /* depth attachment (no image until needed) */
    VkFormat dfmt; /* VK_FORMAT_UNDEFINED: the device cannot, draws go without depth */
    VkBuffer dstaging;
    VkDeviceMemory dstaging_mem;
    uint32_t depth_addr, depth_len; /* guest depth range the draw in flight writes */
    bool gs_logged;
    pvk_vertex imm[3]; /* immediate mode: vertices the next triangle needs */
    uint32_t imm_count;
};

/* PICA colour buffer format (COLORBUFFER_FORMAT bits 16-18) -> transfer
 * format code (0 RGBA8, 1 RGB8, 2 RGB565, 3 RGB5A1, 4 RGBA4); -1 unknown. */
static int color_format_to_transfer(uint32_t f)
{
    switch (f) {
    case 0: return 0; /* RGBA8 */
    case 1: return 1; /* RGB8 */
    case 2: return 3; /* RGB5A1 */
    case 3: return 2; /* RGB565 */
    case 4: return 4; /* RGBA4 */
    default: return -1;
    }
}

static pvk_result create_pipeline(pvk_context *ctx, struct pvk_draw *d)
{
    pvk_result r;
    /* vertex: clip plane (32 bytes); fragment: scissor exclude rectangle, depth map */
    VkPushConstantRange pcr[2] = {{VK_SHADER_STAGE_VERTEX_BIT, 0, 32}, {VK_SHADER_STAGE_FRAGMENT_BIT, 32, 32}};
    VkPipelineLayoutCreateInfo plci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .pushConstantRangeCount = 2,
        .pPushConstantRanges = pcr,
    };
    if ((r = pvk_vk_check(ctx, ctx->vk.vkCreatePipelineLayout(ctx->device, &plci, NULL, &d->layout),
                          "vkCreatePipelineLayout")))
        return r;
    VkShaderModule mods[2] = {VK_NULL_HANDLE, VK_NULL_HANDLE};
    for (int i = 0; i < 2; i++) {
        pvk_spirv spv = pvk_builtin_draw_spirv(i == 1);
        VkShaderModuleCreateInfo smci = {
            .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = spv.size, .pCode = spv.code};
        if ((r = pvk_vk_check(ctx, ctx->vk.vkCreateShaderModule(ctx->device, &smci, NULL, &mods[i]),
                              "vkCreateShaderModule")))
            goto out;
    }
    VkPipelineShaderStageCreateInfo stages[2] = {
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
         .module = mods[0], .pName = "main"},
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
         .module = mods[1], .pName = "main"},
    };
    VkVertexInputBindingDescription vb = {0, sizeof(draw_vertex), VK_VERTEX_INPUT_RATE_VERTEX};
    VkVertexInputAttributeDescription va[2] = {
        {0, 0, VK_FORMAT_R32G32B32A32_SFLOAT, offsetof(draw_vertex, pos)},
        {1, 0, VK_FORMAT_R32G32B32A32_SFLOAT, offsetof(draw_vertex, color)},
    };
    VkPipelineVertexInputStateCreateInfo vi = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
        .vertexBindingDescriptionCount = 1,
        .pVertexBindingDescriptions = &vb,
        .vertexAttributeDescriptionCount = 2,
        .pVertexAttributeDescriptions = va,
    };
    VkPipelineInputAssemblyStateCreateInfo ia = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
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
    VkPipelineColorBlendAttachmentState cba = {.colorWriteMask = 0xF};
    VkPipelineColorBlendStateCreateInfo cb = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO, .attachmentCount = 1, .pAttachments = &cba};
    VkPipelineDepthStencilStateCreateInfo dss = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
    VkDynamicState dyn[] = {VK_DYNAMIC_STATE_VIEWPORT,          VK_DYNAMIC_STATE_SCISSOR,
                            VK_DYNAMIC_STATE_CULL_MODE,         VK_DYNAMIC_STATE_DEPTH_TEST_ENABLE,
                            VK_DYNAMIC_STATE_DEPTH_WRITE_ENABLE, VK_DYNAMIC_STATE_DEPTH_COMPARE_OP};
    bool depth = d->dfmt != VK_FORMAT_UNDEFINED;
    VkPipelineDynamicStateCreateInfo ds = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO, .dynamicStateCount = depth ? 6 : 3,
        .pDynamicStates = dyn};
    VkFormat fmt = VK_FORMAT_R8G8B8A8_UNORM;
    VkPipelineRenderingCreateInfo rci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO, .colorAttachmentCount = 1,
        .pColorAttachmentFormats = &fmt, .depthAttachmentFormat = d->dfmt};
    VkGraphicsPipelineCreateInfo gpci = {
        .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
        .pNext = &rci,
        .stageCount = 2,
        .pStages = stages,
        .pVertexInputState = &vi,
        .pInputAssemblyState = &ia,
        .pViewportState = &vp,
        .pRasterizationState = &rs,
        .pMultisampleState = &ms,
        .pColorBlendState = &cb,
        .pDepthStencilState = depth ? &dss : NULL,
        .pDynamicState = &ds,
        .layout = d->layout,
    };
    r = pvk_vk_check(ctx, ctx->vk.vkCreateGraphicsPipelines(ctx->device, VK_NULL_HANDLE, 1, &gpci, NULL, &d->pipeline),
                     "vkCreateGraphicsPipelines");
out:
    for (int i = 0; i < 2; i++)
        if (mods[i])
            ctx->vk.vkDestroyShaderModule(ctx->device, mods[i], NULL);
    return r;
}

static pvk_result ensure_target(pvk_context *ctx, struct pvk_draw *d, uint32_t w, uint32_t h)
{
    return pvk_image_ensure(ctx, &d->rt, w, h, VK_FORMAT_R8G8B8A8_UNORM,
                            VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                            true);
}

static pvk_result ensure_depth_image(pvk_context *ctx, struct pvk_draw *d, uint32_t w, uint32_t h)
{
    return pvk_image_ensure(ctx, &d->depth, w, h, d->dfmt,
                            VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                            true);
}

static pvk_result ensure_vertices(pvk_context *ctx, struct pvk_draw *d, VkDeviceSize bytes)
{
    if (bytes <= d->vcap)
        return PVK_SUCCESS;
    if (d->vbuf)
        ctx->vk.vkDestroyBuffer(ctx->device, d->vbuf, NULL);
    if (d->vbuf_mem)
        ctx->vk.vkFreeMemory(ctx->device, d->vbuf_mem, NULL);
    d->vbuf = VK_NULL_HANDLE;
    d->vbuf_mem = VK_NULL_HANDLE;
    d->vcap = 0;
    VkDeviceSize cap = 1 << 16;
    while (cap < bytes)
        cap *= 2;
    pvk_result r = pvk_create_buffer(ctx, cap, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
                                     VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                     &d->vbuf, &d->vbuf_mem);
    if (r)
        return r;
    if ((r = pvk_vk_check(ctx, ctx->vk.vkMapMemory(ctx->device, d->vbuf_mem, 0, VK_WHOLE_SIZE, 0, &d->vmap),
                          "vkMapMemory")))
        return r;
    d->vcap = cap;
    return PVK_SUCCESS;
}

/* Draws order everything against everything around them. */
static void image_barrier_aspect(pvk_context *ctx, VkCommandBuffer cmd, VkImage img, VkImageAspectFlags aspect,
                                 VkImageLayout from, VkImageLayout to)
{
    pvk_image_barrier(ctx, cmd, img, aspect, from, to, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                      VK_ACCESS_2_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                      VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT);
}

static void image_barrier(pvk_context *ctx, VkCommandBuffer cmd, VkImage img, VkImageLayout from, VkImageLayout to)
{
    image_barrier_aspect(ctx, cmd, img, VK_IMAGE_ASPECT_COLOR_BIT, from, to);
}

static float f24_reg(const pvk_context *ctx, uint32_t id)
{
    uint32_t bits = pvk_f24_to_f32(ctx->pica.regs[id] & 0xFFFFFF);
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static int32_t sign10(uint32_t v)
{
    return (int32_t)(v << 22) >> 22;
}

/* The vertex shader under the per-call budget: a guest call (one register
 * write, which may run a whole command list) gets PVK_SHADER_BUDGET
 * instructions across all its vertices, so no input can make picavk spin.
 * A runaway program or an exhausted budget is an error that stops the list. */
#define PVK_SHADER_BUDGET (1ull << 27)

void pvk_draw_new_call(pvk_context *ctx)
{
    if (ctx->draw)
        ctx->draw->budget = PVK_SHADER_BUDGET;
}

static pvk_result run_vs(pvk_context *ctx, struct pvk_draw *d, const float v[PVK_SH_INPUTS][4],
                         float o[PVK_SH_OUTPUTS][4])
{
    if (d->budget == 0) {
        pvk_bad_input(ctx, "draw: more than %llu shader instructions in one call; the command list stops",
                      (unsigned long long)PVK_SHADER_BUDGET);
        return PVK_ERROR_BAD_DATA;
    }
    const pvk_shader_unit *sh = &ctx->pica.sh[1];
    pvk_sh_regs regs;
    pvk_sh_run_info info = {
        .unit = sh,
        .entry = pvk_sh_entrypoint(ctx->pica.regs[PVK_GPUREG_VSH_ENTRYPOINT]),
        .bools = sh->b,
        .max_steps = d->budget < PVK_SH_MAX_STEPS ? (uint32_t)d->budget : PVK_SH_MAX_STEPS,
        .regs_out = &regs,
    };
    for (unsigned i = 0; i < 4; i++)
        info.ints[i] = sh->i[i];
    regs.steps = 0;
    pvk_result r = pvk_sh_run(ctx, &info, v, o);
    d->budget -= regs.steps < d->budget ? regs.steps : d->budget;
    if (r)
        d->budget = 0; /* a runaway program: nothing more this call */
    return r;
}

static void draw_retire(pvk_context *ctx, const pvk_pending *p)
{
    pvk_guest_span s;
    if (pvk_guest_resolve(ctx, p->dst_addr, p->dst_len, NULL, &s))
        pvk_guest_download(ctx, &s);
    struct pvk_draw *d = ctx->draw; /* one draw in flight at most: its depth range is here */
    if (!d)
        return;
    if (d->depth_len && pvk_guest_resolve(ctx, d->depth_addr, d->depth_len, NULL, &s))
        pvk_guest_download(ctx, &s);
    d->depth_len = 0;
}

/* Run the CPU stages for every vertex of the draw and assemble triangles
 * into the vertex buffer; returns the vertex count in *out_n. */
static pvk_result build_vertices(pvk_context *ctx, struct pvk_draw *d, const pvk_pica_draw *draw, uint32_t *out_n)
{
    uint32_t count = draw->count;
    bool elements = draw->kind == PVK_PICA_DRAW_ELEMENTS;
    *out_n = 0;
    if (count == 0)
        return PVK_SUCCESS;
    if (count > (1u << 20)) {
        pvk_bad_input(ctx, "draw of %u vertices exceeds picavk's limit of %u; dropped", count, 1u << 20);
        return PVK_ERROR_BAD_PARAMETERS;
    }
    pvk_attrib_plan plan;
    pvk_result r = pvk_attrib_plan_build(ctx, &plan);
    if (r)
        return r;
    pvk_vertex *verts = malloc(sizeof *verts * count);
    uint32_t *tris = malloc(sizeof *tris * 3 * (size_t)count);
    if (!verts || !tris) {
        free(verts);
        free(tris);
        return PVK_ERROR_OUT_OF_MEMORY;
    }
    for (uint32_t i = 0; i < count && !r; i++) {
        uint32_t index;
        float v[PVK_SH_INPUTS][4] = {{0}}, o[PVK_SH_OUTPUTS][4] = {{0}};
        if ((r = pvk_draw_vertex_index(ctx, elements, i, &index)) || (r = pvk_attrib_fetch(ctx, &plan, index, v)) ||
            (r = run_vs(ctx, d, v, o)))
            break;
        pvk_vs_outmap(ctx, o, &verts[i]);
    }
    uint32_t mode = pvk_primitive_mode(ctx->pica.regs[PVK_GPUREG_PRIMITIVE_CONFIG]);
    /* citro3d draws every indexed triangle list in mode 3 without a geometry
     * shader: only an enabled geometry stage (3dbrew GEOSTAGE_CONFIG bits
     * 0-1 = 2) is something picavk lacks. */
    if (mode == 3 && pvk_geostage_gs(ctx->pica.regs[PVK_GPUREG_GEOSTAGE_CONFIG]) == 2 && !d->gs_logged) {
        pvk_unsupported(ctx, "geometry shader primitives are drawn as a triangle list until geometry shaders exist");
        d->gs_logged = true;
    }
    uint32_t n = r ? 0 : pvk_assemble_triangles(mode, count, tris);
    if (!r && n && !(r = ensure_vertices(ctx, d, (VkDeviceSize)n * sizeof(draw_vertex)))) {
        draw_vertex *dv = d->vmap;
        for (uint32_t k = 0; k < n; k++) {
            memcpy(dv[k].pos, verts[tris[k]].pos, sizeof dv[k].pos);
            memcpy(dv[k].color, verts[tris[k]].color, sizeof dv[k].color);
        }
        *out_n = n;
    }
    free(verts);
    free(tris);
    return r;
}

/* The render target of the current registers, or false (logged) when the
 * draw cannot go anywhere. */
typedef struct target {
    uint32_t w, h, bpp, addr;
    int fmt;
    bool color; /* colour writes allowed (COLORBUFFER_WRITE): the buffer is loaded and stored */
    pvk_guest_span span;
} target;

static bool current_target(pvk_context *ctx, target *t)
{
    const uint32_t *regs = ctx->pica.regs;
    uint32_t dim = regs[PVK_GPUREG_FRAMEBUFFER_DIM];
    t->w = dim & 0x7FF;
    t->h = ((dim >> 12) & 0x3FF) + 1;
    t->fmt = color_format_to_transfer(pvk_colorbuffer_format(regs[PVK_GPUREG_COLORBUFFER_FORMAT]));
    t->addr = pvk_buffer_loc(regs[PVK_GPUREG_COLORBUFFER_LOC]) << 6; /* 64-byte units (3dbrew) */
    if (t->w == 0 || t->w % 8 || t->h % 8 || t->w > MAX_DIM || t->h > MAX_DIM) {
        pvk_bad_input(ctx, "draw: colour buffer size %ux%u is not a multiple of 8 tiles in 1..%u; dropped", t->w,
                      t->h, MAX_DIM);
        return false;
    }
    if (t->fmt < 0) {
        pvk_bad_input(ctx, "draw: colour buffer format %u is unknown; dropped",
                      pvk_colorbuffer_format(regs[PVK_GPUREG_COLORBUFFER_FORMAT]));
        return false;
    }
    t->bpp = t->fmt == 0 ? 4 : t->fmt == 1 ? 3 : 2;
    /* Without colour writes (depth-only passes: citro3d binds no colour
     * buffer and clears the access registers) the colour buffer is left
     * alone; nothing reads it until blending exists. */
    t->color = pvk_colorbuffer_access(regs[PVK_GPUREG_COLORBUFFER_WRITE]) != 0;
    if (!t->color)
        return true;
    return pvk_guest_resolve(ctx, t->addr, t->w * t->h * t->bpp, "draw colour buffer", &t->span);
}

/* The depth buffer a draw uses: `use` when the test or writes are on (and
 * the buffer is valid), `write` when its contents go back to guest memory. */
typedef struct depth_state {
    bool use, write;
    VkCompareOp op;
    uint32_t bpp, addr, bits;
    pvk_guest_span span;
} depth_state;

static bool current_depth(pvk_context *ctx, struct pvk_draw *d, const target *t, depth_state *ds)
{
    static const VkCompareOp ops[8] = {VK_COMPARE_OP_NEVER,   VK_COMPARE_OP_ALWAYS,        VK_COMPARE_OP_EQUAL,
                                       VK_COMPARE_OP_NOT_EQUAL, VK_COMPARE_OP_LESS,         VK_COMPARE_OP_LESS_OR_EQUAL,
                                       VK_COMPARE_OP_GREATER, VK_COMPARE_OP_GREATER_OR_EQUAL};
    const uint32_t *regs = ctx->pica.regs;
    uint32_t mask = regs[PVK_GPUREG_DEPTH_COLOR_MASK];
    bool test = pvk_depth_test_enable(mask), write = pvk_depth_write_enable(mask);
    memset(ds, 0, sizeof *ds);
    if ((!test && !write) || d->dfmt == VK_FORMAT_UNDEFINED)
        return true;
    uint32_t fmt = pvk_depthbuffer_format(regs[PVK_GPUREG_DEPTHBUFFER_FORMAT]);
    if (fmt == 1) {
        pvk_bad_input(ctx, "draw: depth buffer format 1 is reserved; dropped");
        return false;
    }
    ds->bpp = fmt == 0 ? 2 : fmt == 2 ? 3 : 4;
    ds->bits = fmt == 0 ? 16 : 24;
    ds->addr = pvk_buffer_loc(regs[PVK_GPUREG_DEPTHBUFFER_LOC]) << 6;
    if (!pvk_guest_resolve(ctx, ds->addr, t->w * t->h * ds->bpp, "draw depth buffer", &ds->span))
        return false;
    ds->use = true;
    ds->write = write && pvk_depthbuffer_access_depth(regs[PVK_GPUREG_DEPTHBUFFER_WRITE]);
    ds->op = test ? ops[pvk_depth_func(mask)] : VK_COMPARE_OP_ALWAYS;
    return true;
}

static pvk_result render(pvk_context *ctx, struct pvk_draw *d, const target *t, uint32_t n);

/* One immediate-mode vertex (FIXEDATTRIB_INDEX = 0xF then its attributes):
 * triangles are drawn as they complete; a write to PRIMITIVE_CONFIG or
 * RESTART_PRIMITIVE starts a new primitive. */
static pvk_result on_immediate(pvk_context *ctx, struct pvk_draw *d, const pvk_pica_draw *draw)
{
    if (ctx->pica.dirty & PVK_DIRTY_PRIMITIVE) {
        ctx->pica.dirty &= ~(uint32_t)PVK_DIRTY_PRIMITIVE;
        d->imm_count = 0;
    }
    float v[PVK_SH_INPUTS][4] = {{0}}, o[PVK_SH_OUTPUTS][4] = {{0}};
    uint64_t perm = ctx->pica.regs[PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_LOW] |
                    (uint64_t)ctx->pica.regs[PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_HIGH] << 32;
    for (uint32_t a = 0; a < draw->attr_count && a < PVK_MAX_ATTRIBS; a++)
        for (int c = 0; c < 4; c++) {
            uint32_t bits = pvk_f24_to_f32(draw->attrs[a][c]);
            memcpy(&v[(perm >> (4 * a)) & 0xF][c], &bits, 4);
        }
    pvk_vertex vx;
    pvk_result r = run_vs(ctx, d, v, o);
    if (r)
        return r; /* stops the list: see run_vs */
    pvk_vs_outmap(ctx, o, &vx);
    uint32_t mode = pvk_primitive_mode(ctx->pica.regs[PVK_GPUREG_PRIMITIVE_CONFIG]);
    uint32_t k = d->imm_count++;
    /* keep what the next triangle needs: list 3, strip last 2, fan first + last */
    pvk_vertex tri[3];
    bool done = false;
    if (mode == 1 || mode == 2) {
        if (k >= 2) {
            if (mode == 2)
                tri[0] = d->imm[0], tri[1] = d->imm[1], tri[2] = vx;
            else if (k & 1)
                tri[0] = d->imm[1], tri[1] = d->imm[0], tri[2] = vx;
            else
                tri[0] = d->imm[0], tri[1] = d->imm[1], tri[2] = vx;
            done = true;
        }
        if (mode == 2 && k >= 1)
            d->imm[1] = vx;
        else if (mode == 1 && k >= 2)
            d->imm[0] = d->imm[1], d->imm[1] = vx;
        else
            d->imm[k] = vx;
    } else {
        d->imm[k % 3] = vx;
        if (k % 3 == 2) {
            tri[0] = d->imm[0], tri[1] = d->imm[1], tri[2] = d->imm[2];
            done = true;
        }
    }
    if (!done)
        return PVK_SUCCESS;
    target t;
    if (!current_target(ctx, &t))
        return PVK_SUCCESS;
    if ((r = pvk_retire(ctx, true)) || (r = ensure_vertices(ctx, d, 3 * sizeof(draw_vertex))))
        return r;
    draw_vertex *dv = d->vmap;
    for (int i = 0; i < 3; i++) {
        memcpy(dv[i].pos, tri[i].pos, sizeof dv[i].pos);
        memcpy(dv[i].color, tri[i].color, sizeof dv[i].color);
    }
    return render(ctx, d, &t, 3);
}

static pvk_result on_draw(pvk_context *ctx, void *user, const pvk_pica_draw *draw)
{
    struct pvk_draw *d = user;
    if (draw->kind == PVK_PICA_DRAW_IMMEDIATE)
        return on_immediate(ctx, d, draw);
    d->imm_count = 0;
    target t;
    if (!current_target(ctx, &t))
        return PVK_SUCCESS; /* logged and counted; the list goes on */
    /* The vertex buffer and render target are shared by all draws: wait for
     * the previous user before writing them. */
    pvk_result r = pvk_retire(ctx, true);
    if (r)
        return r;
    uint32_t n;
    if ((r = build_vertices(ctx, d, draw, &n)))
        return r == PVK_ERROR_OUT_OF_RANGE || r == PVK_ERROR_BAD_PARAMETERS ? PVK_SUCCESS : r; /* bad attributes: dropped */
    if (n == 0)
        return PVK_SUCCESS;
    return render(ctx, d, &t, n);
}

/* Load the colour buffer, draw the `n` vertices in the vertex buffer, store it back. */
static pvk_result render(pvk_context *ctx, struct pvk_draw *d, const target *t, uint32_t n)
{
    const uint32_t *regs = ctx->pica.regs;
    uint32_t w = t->w, h = t->h, bpp = t->bpp, addr = t->addr;
    int fmt = t->fmt;
    pvk_guest_span span = t->span;
    pvk_result r;
    if ((r = ensure_target(ctx, d, w, h)))
        return r;
    pvk_buffer_range guest = {0};
    uint32_t sub = 0;
    if (t->color) {
        if (!pvk_guest_bind(ctx, &span, &guest, &sub, "draw colour buffer"))
            return PVK_SUCCESS;
        if (span.region->mirror)
            pvk_guest_upload(ctx, &span);
    }
    pvk_buffer_range staging = {d->staging, 0, (VkDeviceSize)w * h * 4};
    depth_state dst;
    if (!current_depth(ctx, d, t, &dst))
        return PVK_SUCCESS; /* logged and counted */
    pvk_buffer_range dguest = {0}, dstaging = {d->dstaging, 0, (VkDeviceSize)w * h * 4};
    uint32_t dsub = 0;
    if (dst.use) {
        if (!pvk_guest_bind(ctx, &dst.span, &dguest, &dsub, "draw depth buffer"))
            return PVK_SUCCESS;
        if (dsub % 4) { /* cannot happen with 8-byte addresses and aligned regions */
            pvk_bad_input(ctx, "draw: depth buffer at 0x%08X is not word aligned in its binding; dropped", dst.addr);
            return PVK_SUCCESS;
        }
        if (dst.span.region->mirror)
            pvk_guest_upload(ctx, &dst.span);
    }
    if (d->dfmt != VK_FORMAT_UNDEFINED && (r = ensure_depth_image(ctx, d, w, h)))
        return r;

    pvk_op op;
    if ((r = pvk_op_begin(ctx, &op)))
        return r;
    VkCommandBuffer cmd = op.cmd;
    /* load: tiled guest colour -> linear RGBA8 (memory byte order) -> image */
    VkBufferImageCopy bic = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, .imageExtent = {w, h, 1}};
    if (t->color) {
        pvk_transfer_record_convert(ctx, &op, guest, sub, staging, 0, w, w, h, (uint32_t)fmt, 0, 0);
        pvk_op_barrier(ctx, &op);
        image_barrier(ctx, cmd, d->rt.image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
        ctx->vk.vkCmdCopyBufferToImage(cmd, d->staging, d->rt.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &bic);
        image_barrier(ctx, cmd, d->rt.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                      VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
    } else {
        image_barrier(ctx, cmd, d->rt.image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
    }
    /* depth: tiled guest -> linear q * 2^-24 -> D32 image */
    struct { uint32_t base, width, height, bpp, mode, count, pad[2]; } io = {dsub, w, h, dst.bpp, 0, w * h, {0, 0}};
    VkBufferImageCopy dbic = {.imageSubresource = {VK_IMAGE_ASPECT_DEPTH_BIT, 0, 0, 1}, .imageExtent = {w, h, 1}};
    if (dst.use) {
        pvk_buffer_range bufs[2] = {dguest, dstaging};
        pvk_op_dispatch(ctx, &op, PVK_PIPE_DEPTH_IO, bufs, &io, (io.count + 63) / 64, 1, 1);
        pvk_op_barrier(ctx, &op);
        pvk_mmio_count(ctx, PVK_REG_TRAFFIC_FIRST + 0x20, w * h * dst.bpp); /* POLYGON_DEPTHBUFFER_READS */
        image_barrier_aspect(ctx, cmd, d->depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                             VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
        ctx->vk.vkCmdCopyBufferToImage(cmd, d->dstaging, d->depth.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &dbic);
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
    ctx->vk.vkCmdBeginRendering(cmd, &ri);
    ctx->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, d->pipeline);
    /* Viewport: PICA window x = (ndc.x + 1) * W/2 + x0, y likewise upwards;
     * attachment row = h - window y. */
    float vw = 2.0f * f24_reg(ctx, PVK_GPUREG_VIEWPORT_WIDTH), vh = 2.0f * f24_reg(ctx, PVK_GPUREG_VIEWPORT_HEIGHT);
    uint32_t xy = regs[PVK_GPUREG_VIEWPORT_XY];
    float vx = (float)sign10(pvk_viewport_x(xy)), vy = (float)sign10(pvk_viewport_y(xy));
    if (!(vw > 0 && vw <= 8192) || !(vh > 0 && vh <= 8192)) {
        pvk_bad_input(ctx, "draw: viewport %gx%g is not drawable; dropped", vw, vh);
        ctx->vk.vkCmdEndRendering(cmd);
        pvk_op_abort(ctx, &op);
        return PVK_SUCCESS;
    }
    VkViewport viewport = {vx, (float)h - vy, vw, -vh, 0.0f, 1.0f};
    ctx->vk.vkCmdSetViewport(cmd, 0, 1, &viewport);
    VkRect2D scissor = {{0, 0}, {w, h}};
    int32_t exclude[4] = {1, 1, 0, 0}; /* x1 < x0: none */
    uint32_t smode = pvk_scissortest_mode(regs[PVK_GPUREG_SCISSORTEST_MODE]);
    if (smode == 1 || smode == 3) {
        int32_t x0 = (int32_t)pvk_scissor_x(regs[PVK_GPUREG_SCISSORTEST_POS]);
        int32_t y0 = (int32_t)pvk_scissor_y(regs[PVK_GPUREG_SCISSORTEST_POS]);
        int32_t x1 = (int32_t)pvk_scissor_x(regs[PVK_GPUREG_SCISSORTEST_DIM]);
        int32_t y1 = (int32_t)pvk_scissor_y(regs[PVK_GPUREG_SCISSORTEST_DIM]);
        /* inclusive window rectangle (y up) -> attachment rows */
        int32_t r0 = (int32_t)h - 1 - y1, r1 = (int32_t)h - 1 - y0;
        if (smode == 3) {
            int32_t cx0 = x0 < 0 ? 0 : x0, cr0 = r0 < 0 ? 0 : r0;
            int32_t cx1 = x1 >= (int32_t)w ? (int32_t)w - 1 : x1, cr1 = r1 >= (int32_t)h ? (int32_t)h - 1 : r1;
            if (cx1 < cx0 || cr1 < cr0)
                scissor = (VkRect2D){{0, 0}, {0, 0}};
            else
                scissor = (VkRect2D){{cx0, cr0}, {(uint32_t)(cx1 - cx0 + 1), (uint32_t)(cr1 - cr0 + 1)}};
        } else {
            exclude[0] = x0, exclude[1] = r0, exclude[2] = x1, exclude[3] = r1;
        }
    }
    ctx->vk.vkCmdSetScissor(cmd, 0, 1, &scissor);
    struct { int32_t exclude[4]; float scale, offset, max; uint32_t w_buffer; } fpush = {
        {exclude[0], exclude[1], exclude[2], exclude[3]},
        f24_reg(ctx, PVK_GPUREG_DEPTHMAP_SCALE), f24_reg(ctx, PVK_GPUREG_DEPTHMAP_OFFSET),
        (float)((1u << (dst.bits ? dst.bits : 24)) - 1), !pvk_depthmap_enable(regs[PVK_GPUREG_DEPTHMAP_ENABLE])};
    ctx->vk.vkCmdPushConstants(cmd, d->layout, VK_SHADER_STAGE_FRAGMENT_BIT, 32, sizeof fpush, &fpush);
    if (d->depth.image) {
        ctx->vk.vkCmdSetDepthTestEnable(cmd, dst.use);
        ctx->vk.vkCmdSetDepthWriteEnable(cmd, dst.write);
        ctx->vk.vkCmdSetDepthCompareOp(cmd, dst.use ? dst.op : VK_COMPARE_OP_ALWAYS);
    }
    struct { float plane[4]; uint32_t enable, pad[3]; } clip = {
        {f24_reg(ctx, PVK_GPUREG_FRAGOP_CLIP_DATA0), f24_reg(ctx, PVK_GPUREG_FRAGOP_CLIP_DATA1),
         f24_reg(ctx, PVK_GPUREG_FRAGOP_CLIP_DATA2), f24_reg(ctx, PVK_GPUREG_FRAGOP_CLIP_DATA3)},
        pvk_fragop_clip_enable(regs[PVK_GPUREG_FRAGOP_CLIP]), {0, 0, 0}};
    ctx->vk.vkCmdPushConstants(cmd, d->layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof clip, &clip);
    /* FACECULLING_CONFIG: 1 keeps clockwise triangles, 2 counter-clockwise
     * (window y up), 0 keeps all. */
    uint32_t cull = pvk_faceculling_mode(regs[PVK_GPUREG_FACECULLING_CONFIG]);
    ctx->vk.vkCmdSetCullMode(cmd, cull == 1 ? VK_CULL_MODE_FRONT_BIT : cull == 2 ? VK_CULL_MODE_BACK_BIT
                                                                                 : VK_CULL_MODE_NONE);
    VkDeviceSize zero = 0;
    ctx->vk.vkCmdBindVertexBuffers(cmd, 0, 1, &d->vbuf, &zero);
    ctx->vk.vkCmdDraw(cmd, n, 1, 0, 0);
    ctx->vk.vkCmdEndRendering(cmd);

    /* store: image -> linear staging -> tiled guest colour */
    if (t->color) {
        image_barrier(ctx, cmd, d->rt.image, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                      VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
        ctx->vk.vkCmdCopyImageToBuffer(cmd, d->rt.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, d->staging, 1, &bic);
    }
    if (dst.write) {
        image_barrier_aspect(ctx, cmd, d->depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                             VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
        ctx->vk.vkCmdCopyImageToBuffer(cmd, d->depth.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, d->dstaging, 1, &dbic);
    }
    pvk_op_barrier(ctx, &op);
    if (t->color)
        pvk_transfer_record_convert(ctx, &op, staging, 0, guest, sub, w, w, h, 0, (uint32_t)fmt, 2);
    d->depth_len = 0;
    if (dst.write) {
        pvk_buffer_range bufs[2] = {dguest, dstaging};
        io.mode = 1;
        io.count = w * h * dst.bpp / 4;
        pvk_op_dispatch(ctx, &op, PVK_PIPE_DEPTH_IO, bufs, &io, (io.count + 63) / 64, 1, 1);
        d->depth_addr = dst.addr;
        d->depth_len = w * h * dst.bpp;
        pvk_mmio_count(ctx, PVK_REG_TRAFFIC_FIRST + 0x24, w * h * dst.bpp); /* POLYGON_DEPTHBUFFER_WRITES */
    }
    op.p.retire = draw_retire;
    op.p.dst_addr = addr;
    op.p.dst_len = t->color ? w * h * bpp : 0;
    if (t->color)
        pvk_mmio_count(ctx, PVK_REG_TRAFFIC_FIRST + 0x2C, w * h * bpp); /* POLYGON_COLORBUFFER_WRITES */
    return pvk_op_submit(ctx, &op);
}

pvk_result pvk_draw_init(pvk_context *ctx)
{
    struct pvk_draw *d = calloc(1, sizeof *d);
    if (!d)
        return PVK_ERROR_OUT_OF_MEMORY;
    ctx->draw = d;
    d->budget = PVK_SHADER_BUDGET;
    pvk_log(ctx, PVK_LOG_INFO, "drawing without the fragment pipeline: fragments are the interpolated primary "
                               "colour (no textures, combiners, blending or stencil yet)");
    /* D32_SFLOAT holds every 24-bit depth exactly (see draw.frag); Vulkan
     * requires it for depth attachments and transfers, but check anyway. */
    VkFormatProperties fp;
    vkGetPhysicalDeviceFormatProperties(ctx->phys, VK_FORMAT_D32_SFLOAT, &fp);
    VkFormatFeatureFlags need = VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_FORMAT_FEATURE_TRANSFER_SRC_BIT |
                                VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
    if ((fp.optimalTilingFeatures & need) == need)
        d->dfmt = VK_FORMAT_D32_SFLOAT;
    else
        pvk_log(ctx, PVK_LOG_ERROR, "device lacks D32_SFLOAT depth attachments: draws ignore the depth buffer");
    pvk_result r;
    if ((r = create_pipeline(ctx, d)) ||
        (r = pvk_create_buffer(ctx, (VkDeviceSize)MAX_DIM * MAX_DIM * 4,
                               VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                   VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                               VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &d->dstaging, &d->dstaging_mem)) ||
        (r = pvk_create_buffer(ctx, (VkDeviceSize)MAX_DIM * MAX_DIM * 4,
                               VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                   VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                               VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &d->staging, &d->staging_mem)))
        return r;
    pvk_pica_hooks hooks = ctx->pica.hooks;
    hooks.draw = on_draw;
    hooks.draw_user = d;
    pvk_pica_set_hooks(ctx, &hooks);
    return PVK_SUCCESS;
}

void pvk_draw_destroy(pvk_context *ctx)
{
    struct pvk_draw *d = ctx->draw;
    if (!d)
        return;
    pvk_image_destroy(ctx, &d->rt);
    pvk_image_destroy(ctx, &d->depth);
    if (d->dstaging)
        ctx->vk.vkDestroyBuffer(ctx->device, d->dstaging, NULL);
    if (d->dstaging_mem)
        ctx->vk.vkFreeMemory(ctx->device, d->dstaging_mem, NULL);
    if (d->vbuf)
        ctx->vk.vkDestroyBuffer(ctx->device, d->vbuf, NULL);
    if (d->vbuf_mem)
        ctx->vk.vkFreeMemory(ctx->device, d->vbuf_mem, NULL);
    if (d->staging)
        ctx->vk.vkDestroyBuffer(ctx->device, d->staging, NULL);
    if (d->staging_mem)
        ctx->vk.vkFreeMemory(ctx->device, d->staging_mem, NULL);
    if (d->pipeline)
        ctx->vk.vkDestroyPipeline(ctx->device, d->pipeline, NULL);
    if (d->layout)
        ctx->vk.vkDestroyPipelineLayout(ctx->device, d->layout, NULL);
    free(d);
    ctx->draw = NULL;
}
