/* Draw pipelines by key: the translator's pipeline key (output merger state)
 * and fragment-shader key (TEV, alpha test) select a VkPipeline; its shaders
 * come from runtime/shader_cache.c.  One open-addressing table keyed by XXH3
 * of the two keys (with the depth format and whether the pipeline is for the
 * attachment-read render pass or dynamic rendering); the last pipeline
 * handed out is checked first with memcmp, no hash.  The table holds at most
 * what the memory budget's share allows (pvk_pipelines.live, at most
 * TABLE_LIVE): past that the least recently used one goes,
 * destroyed once the timeline reaches the value of the last submission that
 * used it (never waited for: the open draw batch may be recording with it).
 * The layout has push constants and set 0 of push descriptors: texture units
 * 0-2 (bindings 0-2) and the colour attachment as input attachment (binding
 * 4).  The VkPipelineCache is read from the disk cache at the start and
 * written back at the end. */
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "runtime/pipeline.h"

static void pipe_jobs_drop(pvk_context *ctx, struct pvk_pipelines *pl);

pvk_result pvk_pipelines_init(pvk_context *ctx)
{
    struct pvk_pipelines *pl = calloc(1, sizeof *pl);
    if (!pl)
        return PVK_ERROR_OUT_OF_MEMORY;
    ctx->pipelines = pl;
    /* the budget's share at the driver's estimated cost each, within the table */
    const pvk_budget *bu = &ctx->gpu.budget;
    uint64_t live = bu->pipelines / bu->pipeline_cost;
    pl->live = live < 16 ? 16 : live > TABLE_LIVE ? TABLE_LIVE : (uint32_t)live;
    pvk_disk_open(ctx);
    char path[600];
    size_t size = 0;
    void *data = NULL;
    if (pl->dir[0]) {
        pvk_disk_device_path(ctx, "pipelines", path, sizeof path);
        data = pvk_disk_read(path, &size);
        if (data)
            pvk_disk_touch(path);
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
     * shaders' uniforms (7) and status words (8: runtime/draw.c vs_status),
     * the ubershader's data (9: runtime/fragdata.c too) */
    VkDescriptorSetLayoutBinding dslb[9];
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
    pl->bindings[pl->n_bindings++] = (pvk_layout_binding){0, PVK_DRAW_BINDING_UBER, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
                                                          VK_SHADER_STAGE_FRAGMENT_BIT};
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
    pl->pace_frames = ctx->gpu.props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
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
    if (!r) {
        spv = pvk_builtin_draw_null_frag_spirv();
        smci.codeSize = spv.size, smci.pCode = spv.code;
        r = pvk_vk_check(&ctx->gpu, ctx->gpu.vk.vkCreateShaderModule(ctx->gpu.device, &smci, NULL, &pl->null_frag),
                         "vkCreateShaderModule");
    }
    if (!r)
        r = pvk_compiler_init(ctx); /* last: the workers read what is set up above */
    return r;
}

bool pvk_pipeline_quat_geom(pvk_context *ctx)
{
    return ctx->pipelines && ctx->pipelines->quat_geom;
}

void pvk_pipelines_held(const pvk_context *ctx, pvk_stats *out)
{
    const struct pvk_pipelines *pl = ctx->pipelines;
    out->held_pipelines = pl ? pl->count : 0;
    out->held_pipeline_bytes = out->held_pipelines * ctx->gpu.budget.pipeline_cost;
    out->held_modules = out->held_module_bytes = 0;
    if (pl)
        pvk_modules_held(ctx, &out->held_modules, &out->held_module_bytes);
}

void pvk_pipelines_destroy(pvk_context *ctx)
{
    struct pvk_pipelines *pl = ctx->pipelines;
    if (!pl)
        return;
    pvk_compiler_destroy(ctx); /* builds in flight finish first: they use what goes below */
    pvk_uber_kinds_save(ctx);
    if (pl->cache && pl->dir[0] && pl->created) {
        size_t size = 0;
        if (ctx->gpu.vk.vkGetPipelineCacheData(ctx->gpu.device, pl->cache, &size, NULL) == VK_SUCCESS && size) {
            void *data = malloc(size);
            if (data && ctx->gpu.vk.vkGetPipelineCacheData(ctx->gpu.device, pl->cache, &size, data) == VK_SUCCESS) {
                char path[600];
                pvk_disk_device_path(ctx, "pipelines", path, sizeof path);
                pvk_build b = {.ctx = ctx};
                pvk_disk_write(&b, path, data, size);
                pvk_build_flush(&b);
            }
            free(data);
        }
    }
    if (pl->cache)
        ctx->gpu.vk.vkDestroyPipelineCache(ctx->gpu.device, pl->cache, NULL);
    pipe_jobs_drop(ctx, pl);
    for (uint32_t i = 0; i < (1u << TABLE_BITS); i++)
        if (pl->table[i].pipeline)
            ctx->gpu.vk.vkDestroyPipeline(ctx->gpu.device, pl->table[i].pipeline, NULL);
    if (pl->vertex)
        ctx->gpu.vk.vkDestroyShaderModule(ctx->gpu.device, pl->vertex, NULL);
    if (pl->quat_geom)
        ctx->gpu.vk.vkDestroyShaderModule(ctx->gpu.device, pl->quat_geom, NULL);
    if (pl->null_frag)
        ctx->gpu.vk.vkDestroyShaderModule(ctx->gpu.device, pl->null_frag, NULL);
    pvk_vs_modules_destroy(ctx);
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
    if (pl->slowest[0].ns) { /* the files' names in the cache directory and the PVK_DEBUG=shaders dumps */
        char line[400];
        int n = snprintf(line, sizeof line, "shader compiles: %llu in %.1f ms; the slowest:",
                         (unsigned long long)ctx->gpu.stats.shader_compiles, ctx->gpu.stats.shader_compile_ns / 1e6);
        for (int i = 0; i < 5 && pl->slowest[i].ns && n > 0 && (size_t)n < sizeof line; i++)
            n += snprintf(line + n, sizeof line - (size_t)n, " %s-%016llx.spv %.1f ms",
                          pl->slowest[i].stage == PVK_STAGE_VERTEX    ? "vs"
                          : pl->slowest[i].stage == PVK_STAGE_COMPUTE ? "cs"
                                                                       : "fs",
                          (unsigned long long)pl->slowest[i].hash, pl->slowest[i].ns / 1e6);
        pvk_log(&ctx->gpu, PVK_LOG_INFO, "%s", line);
    }
    pvk_log(&ctx->gpu, PVK_LOG_DEBUG, "draw pipelines: %llu created, %llu found in memory",
            (unsigned long long)pl->created, (unsigned long long)ctx->gpu.stats.pipeline_hits);
    pvk_key_ids_free(&pl->fs_ids);
    pvk_key_ids_free(&pl->vs_ids);
    if (pl->disk_lock_ok)
        pthread_mutex_destroy(&pl->disk_lock);
    free(pl);
    ctx->pipelines = NULL;
}

VkPipelineLayout pvk_pipeline_layout(const pvk_context *ctx)
{
    return ctx->pipelines->layout;
}

/* A draw pipeline in the making (on a worker, or at once): what the
 * host's thread found for it, and what the build makes. */
typedef struct pipe_job {
    pvk_job job;
    pvk_build b;
    key_pair key;
    pvk_fs_key fs;             /* the keys behind key.fs_id and key.vs_id */
    pvk_vs_key vs;
    VkShaderModule vert, frag; /* frag VK_NULL_HANDLE: the build makes it (then owns it) */
    bool lent;                 /* frag came from the in-memory cache */
    size_t frag_bytes;         /* a made frag's SPIR-V bytes */
    VkRenderPass pass;
    VkPipeline pipeline;
} pipe_job;

/* On the host's thread: the modules and render pass a build needs (the
 * fragment module from the in-memory cache, lent: pinned until the job is
 * taken).  False: logged, nothing to build. */
static bool pipe_prepare(pvk_context *ctx, pipe_job *j)
{
    struct pvk_pipelines *pl = ctx->pipelines;
    const key_pair *k = &j->key;
    j->b.ctx = ctx;
    j->vert = pl->vertex;
    if (k->vs_id) {
        j->vert = pvk_vs_module(ctx, &j->vs);
        if (!j->vert) { /* pvk_pipeline_get's caller prepares it first */
            pvk_log(&ctx->gpu, PVK_LOG_ERROR, "draw pipeline: no vertex module for program %016llx",
                    (unsigned long long)j->vs.code_hash);
            return false;
        }
    }
    const pvk_pipe_key *pk = &k->pipe;
    /* Without the device's logicOp the fragment is written as it is (Copy),
     * logged once: the shader cannot read the attachment on this path. */
    if (!pk->blend && !ctx->gpu.features.logic_op && pk->logic_op != 3 && !pl->logic_warned) {
        pl->logic_warned = true;
        pvk_unsupported(&ctx->gpu, "the device has no logicOp: logic op %u is drawn as Copy", pk->logic_op);
    }
    j->pass = k->render_pass ? pvk_render_pass_get(ctx, (VkFormat)k->depth_format, true) : VK_NULL_HANDLE;
    if (k->render_pass && !j->pass)
        return false; /* logged */
    if (k->warm_up)
        return true; /* no fragment stage */
    j->frag = pvk_fragment_module_lend(ctx, &j->fs);
    j->lent = j->frag != VK_NULL_HANDLE;
    return true;
}

/* Whether the pipeline of `k` (fragment key `fs`) has the quaternion geometry stage. */
static bool has_geometry(const struct pvk_pipelines *pl, const key_pair *k, const pvk_fs_key *fs)
{
    return k->vs_id && pl->quat_geom && (k->warm_up ? k->warm_up == 2 : fs->fl.light);
}

/* On a worker (or at once): the fragment module if it was not in memory,
 * then the pipeline.  Reads only what pvk_pipelines_init set up. */
static void pipe_build(pvk_job *job)
{
    pipe_job *j = (pipe_job *)job;
    pvk_context *ctx = j->b.ctx;
    struct pvk_pipelines *pl = ctx->pipelines;
    const key_pair *k = &j->key;
    VkShaderModule vert = j->vert, frag = j->frag;
    if (k->warm_up)
        frag = pl->null_frag; /* a stage that never runs (the draw culls its triangles) */
    else if (!frag)
        frag = j->frag = pvk_fragment_module_make(&j->b, &j->fs, &j->frag_bytes);
    if (!frag)
        return;
    VkPipelineShaderStageCreateInfo stages[3] = {
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
         .module = vert, .pName = "main"},
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
         .module = frag, .pName = "main"},
    };
    /* fragment lighting after a generated vertex stage: the shorter-arc
     * quaternions per triangle (draw_submit_vs checked the module exists) */
    uint32_t n_stages = 2;
    if (has_geometry(pl, k, &j->fs))
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
    if (k->vs_id) {
        for (uint32_t b = 0; b < j->vs.bindings; b++)
            gvb[b] = (VkVertexInputBindingDescription){b, j->vs.stride[b], VK_VERTEX_INPUT_RATE_VERTEX};
        uint32_t n = 0;
        for (uint32_t i = 0; i < 12; i++) {
            uint32_t f = j->vs.fmt[i];
            if (f)
                gva[n++] = (VkVertexInputAttributeDescription){i, j->vs.binding[i],
                                                               pvk_vk_attrib_format((f - 1) % 4, (f - 1) / 4 + 1),
                                                               j->vs.offset[i]};
        }
        vi.vertexBindingDescriptionCount = j->vs.bindings;
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
        .blendEnable = pk->blend && !j->fs.blend, /* else the shader blends, exactly */
        .srcColorBlendFactor = pvk_vk_blend_factor(pk->rgb_src),
        .dstColorBlendFactor = pvk_vk_blend_factor(pk->rgb_dst),
        .colorBlendOp = pvk_vk_blend_op(pk->rgb_eq),
        .srcAlphaBlendFactor = pvk_vk_blend_factor(pk->alpha_src),
        .dstAlphaBlendFactor = pvk_vk_blend_factor(pk->alpha_dst),
        .alphaBlendOp = pvk_vk_blend_op(pk->alpha_eq),
        .colorWriteMask = pk->color_mask,
    };
    if (k->warm_up)
        cba = (VkPipelineColorBlendAttachmentState){0}; /* nothing is written */
    bool logic = !pk->blend && ctx->gpu.features.logic_op; /* else Copy (pipe_prepare said so) */
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
    VkRenderPass pass = j->pass;
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
    if (pvk_build_vk(&j->b, ctx->gpu.vk.vkCreateGraphicsPipelines(ctx->gpu.device, pl->cache, 1, &gpci, NULL, &p),
                     "vkCreateGraphicsPipelines"))
        p = VK_NULL_HANDLE; /* logged at the flush; the draw is dropped */
    j->pipeline = p; /* named by pipe_take on the host's thread */
}

/* A slot in use: a pipeline, or one being built. */
static bool used(const entry *e)
{
    return e->pipeline || e->job;
}

/* Remove slot i, moving later entries of its probe run back into the hole
 * (backward shift: linear probing finds every key without tombstones). */
static void table_remove(struct pvk_pipelines *pl, uint32_t i)
{
    const uint32_t mask = (1u << TABLE_BITS) - 1;
    for (uint32_t j = (i + 1) & mask; used(&pl->table[j]); j = (j + 1) & mask) {
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

/* Make room for one pipeline: the least recently used one goes to the GPU
 * layer's deferred destroy (destroyed once its last submission is done);
 * one being built stays.  False (logged) when nothing can go. */
static bool evict_lru(pvk_context *ctx, struct pvk_pipelines *pl)
{
    uint32_t lru = UINT32_MAX;
    for (uint32_t j = 0; j < (1u << TABLE_BITS); j++)
        if (pl->table[j].pipeline && (lru == UINT32_MAX || pl->table[j].tick < pl->table[lru].tick))
            lru = j;
    if (!pl->evict_logged)
        pvk_log(&ctx->gpu, PVK_LOG_INFO,
                "draw pipelines: more than %u distinct states (the memory budget's share); evicting the least "
                "recently used", pl->live);
    pl->evict_logged = true;
    if (lru == UINT32_MAX) {
        pvk_log(&ctx->gpu, PVK_LOG_ERROR, "draw pipelines: all %u are being built; nothing to evict", pl->count);
        return false;
    }
    if (!pvk_gpu_defer_destroy(&ctx->gpu, pl->table[lru].value, VK_OBJECT_TYPE_PIPELINE,
                               (uint64_t)pl->table[lru].pipeline, VK_NULL_HANDLE, VK_NULL_HANDLE))
        return false;
    table_remove(pl, lru);
    ctx->gpu.stats.pipeline_evictions++;
    ctx->gpu.stats.budget_evictions++;
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

/* A finished build into its slot, on the host's thread: its log and
 * counters to the context, its fragment module back to the cache.  A failed
 * build leaves no slot (the next draw of the state tries again). */
static bool pipe_take(pvk_context *ctx, struct pvk_pipelines *pl, entry *e)
{
    pipe_job *j = e->job;
    pvk_build_flush(&j->b);
    pvk_fragment_module_return(ctx, &j->fs, j->frag, !j->lent, j->frag_bytes);
    e->job = NULL;
    pl->jobs--;
    e->pipeline = j->pipeline;
    if (e->pipeline) {
        /* not on the worker: the loader's terminator for object names walks
         * its instance list unlocked, racing any instance created or
         * destroyed meanwhile (an ASan run crashed there) */
        const pvk_pipe_key *pk = &j->key.pipe;
        pvk_object_name(&ctx->gpu, VK_OBJECT_TYPE_PIPELINE, (uint64_t)e->pipeline, "draw: %s, mask %X%s",
                        j->fs.blend ? "blend in the shader"
                        : pk->blend ? "blend"
                                    : "logic op",
                        pk->color_mask, j->key.render_pass ? ", render pass" : "");
        pl->created++;
        ctx->gpu.stats.pipelines_created++;
        ctx->gpu.stats.background_builds += j->job.on_worker;
    }
    free(j);
    bool ok = e->pipeline != VK_NULL_HANDLE;
    if (!ok) /* the slot may hold another entry after this: the caller reads it no more */
        table_remove(pl, (uint32_t)(e - pl->table));
    return ok;
}

/* Every slot's build done and taken (pvk_compiler_destroy ran: none is
 * running), for the context's end. */
static void pipe_jobs_drop(pvk_context *ctx, struct pvk_pipelines *pl)
{
    for (uint32_t i = 0; i < (1u << TABLE_BITS); i++) {
        pipe_job *j = pl->table[i].job;
        if (!j)
            continue;
        pvk_build_flush(&j->b);
        pvk_fragment_module_return(ctx, &j->fs, j->frag, !j->lent, j->frag_bytes);
        pl->table[i].pipeline = j->pipeline; /* destroyed with the others */
        pl->table[i].job = NULL;
        free(j);
    }
}

void pvk_pipelines_forget(pvk_context *ctx)
{
    struct pvk_pipelines *pl = ctx->pipelines;
    for (uint32_t i = 0; i < (1u << TABLE_BITS); i++) {
        entry *e = &pl->table[i];
        if (e->job) { /* builds are waited for as they start: none is left here */
            pvk_job_wait(ctx, &e->job->job);
            pvk_build_flush(&e->job->b);
            pvk_fragment_module_return(ctx, &e->job->fs, e->job->frag, !e->job->lent, e->job->frag_bytes);
            if (e->job->pipeline)
                ctx->gpu.vk.vkDestroyPipeline(ctx->gpu.device, e->job->pipeline, NULL); /* never recorded */
            free(e->job);
        } else if (e->pipeline &&
                   !pvk_gpu_defer_destroy(&ctx->gpu, e->value, VK_OBJECT_TYPE_PIPELINE, (uint64_t)e->pipeline,
                                          VK_NULL_HANDLE, VK_NULL_HANDLE)) {
            continue; /* logged; kept, unreachable, for the context's end */
        }
        memset(e, 0, sizeof *e);
    }
    pl->count = 0;
    for (uint32_t i = 0; i < (1u << TABLE_BITS); i++)
        pl->count += used(&pl->table[i]);
    pl->jobs = 0;
    pl->last = NULL;
    pl->n_warm = 0; /* ids start over */
    pl->forgets++;
}

void pvk_pipelines_vblank(pvk_context *ctx)
{
    if (ctx->pipelines)
        ctx->pipelines->vblanks++;
}

/* Whether a pipeline's first draw was recorded into submission `now`
 * already, or on a CPU device into this frame (VBlank to VBlank, once the
 * host calls VBlank; a host that stops calling it gets one every
 * FRAME_SUBMISSIONS submissions).  Such a draw may cost the driver a compile
 * in its queue (lavapipe compiles a shader variant there, 30-130 ms each on
 * 2 cores, with its rasterizer threads waiting): one a submission keeps a
 * frame from paying for a burst of new states at once, and on a CPU device,
 * where a citro3d frame is about ten submissions, one a frame keeps the
 * frame within about twice its usual time (bench/stutter).  The draws held
 * meanwhile take the ubershader: the same bytes. */
#define FRAME_SUBMISSIONS 32u

static bool first_draw_taken(const struct pvk_pipelines *pl, uint64_t now)
{
    /* timeline values count submissions: one each */
    return pl->fresh_value == now || (pl->pace_frames && pl->vblanks && pl->fresh_frame == pl->vblanks &&
                                      now - pl->fresh_value < FRAME_SUBMISSIONS);
}

/* Programs the driver has compiled: vs_id << 1 | 1 with the quaternion
 * geometry stage.  A ring of the last WARM_PROGRAMS: one that falls out is
 * warmed up again at worst. */
static bool warm_find(const struct pvk_pipelines *pl, uint32_t tag)
{
    for (uint32_t i = 0; i < pl->n_warm && i < WARM_PROGRAMS; i++)
        if (pl->warm[i] == tag)
            return true;
    return false;
}

static void warm_note(struct pvk_pipelines *pl, uint32_t tag)
{
    if (!warm_find(pl, tag))
        pl->warm[pl->n_warm++ % WARM_PROGRAMS] = tag;
}

static void first_draw(struct pvk_pipelines *pl, const entry *e, uint64_t now)
{
    pl->fresh_value = now;
    pl->fresh_frame = pl->vblanks;
    if (e->key.vs_id)
        warm_note(pl, e->key.vs_id << 1 | e->geometry);
}

bool pvk_pipelines_async(const pvk_context *ctx)
{
    return pvk_compiler_threads(ctx) > 0;
}

/* The slot of key `k`, or NULL. */
static entry *pipe_find(struct pvk_pipelines *pl, const key_pair *k)
{
    uint64_t h = XXH3_64bits(k, sizeof *k);
    const uint32_t mask = (1u << TABLE_BITS) - 1;
    for (uint32_t i = (uint32_t)h & mask; used(&pl->table[i]); i = (i + 1) & mask)
        if (pl->table[i].hash == h && !memcmp(&pl->table[i].key, k, sizeof *k))
            return &pl->table[i];
    return NULL;
}

/* The slot of key `k` (fragment key `fs`, vertex key `vkey`): found, or
 * made with its build submitted.  NULL after a logged failure.  Making one
 * may move other slots (an eviction): pointers into the table go stale. */
static entry *pipe_entry(pvk_context *ctx, const key_pair *k, const pvk_fs_key *fs, const pvk_vs_key *vkey)
{
    /* the ubershader's: new states of its kind need it, before the builds
     * that only replace a path that draws already */
    bool first = fs->uber || k->warm_up;
    struct pvk_pipelines *pl = ctx->pipelines;
    entry *found = pipe_find(pl, k);
    if (found)
        return found;
    uint64_t h = XXH3_64bits(k, sizeof *k);
    const uint32_t mask = (1u << TABLE_BITS) - 1;
    /* full: the least recently used goes, without waiting for the GPU or
     * touching the open batch (a long-running host sees any number of states) */
    if (pl->count >= pl->live && !evict_lru(ctx, pl))
        return NULL;
    pipe_job *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->job.run = pipe_build;
    j->key = *k;
    j->fs = *fs;
    if (vkey)
        j->vs = *vkey;
    if (!pipe_prepare(ctx, j)) {
        free(j);
        return NULL;
    }
    pl->count++;
    pl->jobs++;
    if (first && !k->vs_id)
        pvk_uber_kind_note(ctx, k, fs);
    uint32_t i = (uint32_t)h & mask; /* after the eviction: entries may have moved */
    while (used(&pl->table[i]))
        i = (i + 1) & mask;
    entry *e = &pl->table[i];
    /* used now: a new slot is the most recent, or the eviction that makes
     * room for the next one (the ubershader's, a warm-up's) would take it
     * before its first draw, which then finds no slot and is dropped */
    *e = (entry){.key = *k, .hash = h, .job = j, .geometry = has_geometry(pl, k, fs), .tick = ++pl->tick};
    pvk_compiler_submit_at(ctx, &j->job, first); /* without workers it is done now */
    return e;
}

bool pvk_pipeline_prebuild(pvk_context *ctx, const pvk_uber_kind *u)
{
    key_pair k;
    memset(&k, 0, sizeof k);
    k.pipe = u->pipe;
    k.depth_format = u->depth_format;
    k.render_pass = u->render_pass;
    k.fs_id = pvk_fs_id(ctx, &u->fs);
    /* a small budget keeps room for the draws' own builds */
    if (ctx->pipelines->jobs >= ctx->pipelines->live / 2)
        return false;
    return k.fs_id && pipe_entry(ctx, &k, &u->fs, NULL);
}

/* Builds a draw may leave running while it takes the ubershader: more wait
 * (a list of thousands of new states must not queue thousands of builds,
 * nor fill the table with slots that cannot be evicted: at most half of
 * what the budget keeps). */
#define MAX_JOBS 256u
static uint32_t max_jobs(const struct pvk_pipelines *pl)
{
    return pl->live / 2 < MAX_JOBS ? pl->live / 2 : MAX_JOBS;
}

void pvk_pipeline_jobs_finish(pvk_context *ctx)
{
    struct pvk_pipelines *pl = ctx->pipelines;
    for (uint32_t i = 0; i < (1u << TABLE_BITS) && pl->jobs;) {
        entry *e = &pl->table[i];
        if (e->job) {
            pvk_job_wait(ctx, &e->job->job);
            if (!pipe_take(ctx, pl, e))
                continue; /* removed: slot i holds the next entry of its run now */
        }
        i++;
    }
    pl->last = NULL;
}

/* Every finished build into its slot; true when fewer than max_jobs remain. */
static bool jobs_below_limit(pvk_context *ctx, struct pvk_pipelines *pl)
{
    if (pl->jobs < max_jobs(pl))
        return true;
    for (uint32_t i = 0; i < (1u << TABLE_BITS);) {
        entry *e = &pl->table[i];
        if (e->job && pvk_job_done(&e->job->job) && !pipe_take(ctx, pl, e))
            continue; /* removed: slot i holds the next entry of its run now */
        i++;
    }
    pl->last = NULL;
    return pl->jobs < max_jobs(pl);
}

/* A slot whose pipeline can be handed out without waiting. */
static bool ready(const entry *e)
{
    return e && (!e->job || pvk_job_done(&e->job->job));
}

/* The ubershader's pipeline of key uk, started if new and waited for if
 * building (counted as a wait), taken into its slot; NULL when its build
 * failed (logged). */
static entry *uber_wait(pvk_context *ctx, struct pvk_pipelines *pl, const key_pair *uk, const pvk_fs_key *ukey)
{
    entry *ue = pipe_entry(ctx, uk, ukey, NULL);
    if (!ue || !ue->job)
        return ue;
    if (!pvk_job_done(&ue->job->job)) {
        ctx->gpu.stats.pipeline_waits++;
        pvk_job_wait(ctx, &ue->job->job);
    }
    return pipe_take(ctx, pl, ue) ? ue : NULL;
}

/* The ubershader pipeline's key `uk` (fragment key `ukey`) of the state's
 * key `k`; false when it has no id (logged).  Its pipelines take the
 * interpreter's vertices (the built-in vertex stage): one per kind, not per
 * kind and program. */
static bool uber_key(pvk_context *ctx, const pvk_fs_key *fs, const pvk_pipe_key *pipe, const key_pair *k,
                     pvk_fs_key *ukey, key_pair *uk)
{
    *ukey = pvk_fs_uber_memo(&ctx->pipelines->uber_keys, fs, pipe)->key;
    pvk_keys_lut_binding(&ctx->profile, ukey);
    *uk = *k;
    uk->fs_id = pvk_fs_id(ctx, ukey);
    uk->vs_id = 0;
    return uk->fs_id != 0;
}

VkPipeline pvk_pipeline_get(pvk_context *ctx, const pvk_pipe_key *pipe, const pvk_fs_key *fs, VkFormat depth_format,
                            bool render_pass, const pvk_vs_draw *vs, bool *uber, bool *cpu_vs)
{
    struct pvk_pipelines *pl = ctx->pipelines;
    const pvk_fs_key *fs_in = fs;
    const bool uber_in = *uber, cpu_vs_in = cpu_vs && *cpu_vs;
again:
    fs = fs_in;
    *uber = uber_in;
    if (cpu_vs)
        *cpu_vs = cpu_vs_in;
    key_pair k;
    memset(&k, 0, sizeof k);
    k.pipe = *pipe;
    k.depth_format = (uint32_t)depth_format;
    k.render_pass = render_pass;
    pvk_vs_key vkey;
    if (vs)
        pvk_vs_key_for_device(ctx, vs, &vkey);
    /* the ubershader: for every draw (PVK_DEBUG=ubershader), or for a draw
     * whose own pipeline a compile thread is still building */
    bool forced = *uber && (ctx->gpu.debug & PVK_DEBUG_UBERSHADER);
    bool may_uber = *uber && !forced && pvk_pipelines_async(ctx);
    bool retry = !vs && cpu_vs && *cpu_vs; /* sent back here by the call below: take what is ready */
    *uber = false;
    if (cpu_vs)
        *cpu_vs = false;
    pvk_fs_key ukey;
    key_pair uk;
    if (forced) {
        ukey = pvk_fs_uber_memo(&ctx->pipelines->uber_keys, fs, pipe)->key;
        pvk_keys_lut_binding(&ctx->profile, &ukey); /* it reads the LUTs (fog) whatever the state's key says */
        fs = &ukey;
    }
    /* ids first: a full id table forgets every pipeline (pvk_pipelines_forget);
     * ids are never reused, so one taken before another's restart stays exact */
    k.fs_id = pvk_fs_id(ctx, fs);
    k.vs_id = vs ? pvk_vs_id(ctx, &vkey) : 0;
    if (!k.fs_id || (vs && !k.vs_id))
        return VK_NULL_HANDLE; /* logged */
    /* the submission the caller records into: the open batch, or the
     * roundtrip path's own draw, which nothing is submitted before */
    uint64_t now = ctx->gpu.timeline_next + 1;
    if (pl->last && !memcmp(&pl->last->key, &k, sizeof k)) {
        ctx->gpu.stats.pipeline_hits++;
        *uber = forced;
        return hand_out(pl, pl->last, now);
    }
    /* the ubershader's key, taken when a draw may need it: a state whose
     * own pipeline is built already (most draws) never does.  Its id may
     * restart the id table, which forgets every pipeline: then the draw
     * starts over with new ids (the ubershader's id is in the table by then) */
    bool uk_taken = false;
    uint32_t forgets = pl->forgets;
#define UBER_KEY()                                                                                                     \
    ((void)(uk_taken || (uk_taken = true, may_uber = uber_key(ctx, fs, pipe, &k, &ukey, &uk))),                       \
     may_uber && pl->forgets == forgets)
    if (retry && may_uber && !ready(pipe_find(pl, &k)) && UBER_KEY()) {
        /* a retry starts no pipeline of its own for the interpreter's
         * vertices: its program goes back to the GPU's vertex stage once
         * that pipeline (or its vertex module) is built */
        entry *ue = uber_wait(ctx, pl, &uk, &ukey);
        if (ue) {
            ctx->gpu.stats.pipeline_hits++;
            *uber = true;
            return hand_out(pl, ue, now);
        }
    }
    if (pl->forgets != forgets)
        goto again;
    entry *e = pipe_entry(ctx, &k, fs, vs ? &vkey : NULL);
    if (!e)
        return VK_NULL_HANDLE; /* logged */
    /* A pipeline's first draw may cost the driver a compile in the queue:
     * one at a time while the ubershader can draw the others (first_draw_taken). */
    bool hold = may_uber && ready(e) && !e->value && first_draw_taken(pl, now);
    /* On a CPU device the first draw of a program the driver has not seen
     * compiles its vertex stage too (lavapipe: about 100 ms, more than most
     * fragment variants; later pipelines of the program find it in Mesa's
     * shader cache).  That compile gets a frame of its own: a warm-up draw
     * of the program (shaders/draw_null.frag, no colour writes, every
     * triangle culled) in this frame's place, the state's own first draw in
     * a later one.  Not rasterizer discard: lavapipe then compiles a
     * fragment stage of its own, once a context, which no cache keeps. */
    uint32_t tag = k.vs_id << 1 | e->geometry;
    if (vs && cpu_vs && may_uber && pl->pace_frames && ready(e) && !e->value && !warm_find(pl, tag)) {
        key_pair wk = k;
        memset(&wk.pipe, 0, sizeof wk.pipe); /* it writes nothing: one per program and depth format */
        wk.pipe.blend = 1;
        wk.fs_id = 0;
        wk.warm_up = e->geometry ? 2 : 1;
        entry *w = pipe_entry(ctx, &wk, fs, &vkey); /* may move slots */
        bool failed = !w || (ready(w) && w->job && !pipe_take(ctx, pl, w)); /* logged */
        if (!failed && ready(w) && !first_draw_taken(pl, now)) {
            first_draw(pl, w, now);
            *cpu_vs = true; /* the caller records it, then the draw with the interpreter's vertices */
            return hand_out(pl, w, now);
        }
        if (failed) /* the state's own first draw pays for the compile, as without a warm-up */
            warm_note(pl, tag);
        e = pipe_find(pl, &k);
        if (!e)
            return VK_NULL_HANDLE;
        hold = hold || !failed;
    }
    if (!e->job && !hold) {
        ctx->gpu.stats.pipeline_hits++;
        *uber = forced;
        if (!e->value)
            first_draw(pl, e, now);
        return hand_out(pl, e, now);
    }
    if (may_uber && (hold || !pvk_job_done(&e->job->job)) && UBER_KEY() && jobs_below_limit(ctx, pl)) {
        e = pipe_find(pl, &k); /* finished builds taken: slots may have moved */
        if (!e)
            return VK_NULL_HANDLE; /* its build failed (logged) */
        if (!e->job && !hold) {
            ctx->gpu.stats.pipeline_hits++;
            if (!e->value)
                first_draw(pl, e, now);
            return hand_out(pl, e, now);
        }
        /* its own pipeline is being built: the ubershader's, waited for if
         * it is building too (its build was queued first, and the driver's
         * first-draw compile of a kind is better spent once for all its
         * states than on each state's own pipeline) */
        if (!vs) {
            entry *ue = uber_wait(ctx, pl, &uk, &ukey);
            if (ue) {
                ctx->gpu.stats.pipeline_hits++;
                *uber = true;
                return hand_out(pl, ue, now);
            }
        }
        /* a vertex program on the GPU: if the interpreter's vertices have a
         * pipeline ready (the state's own with the built-in vertex stage),
         * or the ubershader's once built, the caller draws that way (the
         * same bytes) while the builds go on */
        if (cpu_vs && vs) {
            key_pair k0 = k;
            k0.vs_id = 0;
            if (ready(pipe_find(pl, &k0)) || uber_wait(ctx, pl, &uk, &ukey)) {
                *cpu_vs = true;
                return VK_NULL_HANDLE;
            }
        }
        e = pipe_find(pl, &k); /* slots may have moved; one being built is never evicted */
        if (!e)
            return VK_NULL_HANDLE;
    }
    if (pl->forgets != forgets)
        goto again;
    if (e->job) {
        if (pvk_pipelines_async(ctx) && !pvk_job_done(&e->job->job))
            ctx->gpu.stats.pipeline_waits++;
        pvk_job_wait(ctx, &e->job->job);
        if (!pipe_take(ctx, pl, e))
            return VK_NULL_HANDLE; /* logged by the build */
    } else {
        ctx->gpu.stats.pipeline_hits++;
    }
    *uber = forced;
    if (!e->value)
        first_draw(pl, e, now);
    return hand_out(pl, e, now);
}
