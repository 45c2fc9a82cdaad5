/* Geometry programs on the GPU: the compute pre-pass of pvk_gs_draw packets
 * (shaders from translator/glsl_gs.c).  runtime/draw.c copies a draw's
 * inputs into its vertex ring, records the two dispatches here in an
 * operation of their own (compute cannot run inside the draw batch's
 * rendering, so the batch is submitted first, as for a texture decode),
 * then draws the slots the second pass wrote like the CPU path's vertices,
 * with the CPU path's pipeline.
 *
 * Pipelines are cached in memory by the whole pvk_gs_key (open addressing,
 * dropped all at once when half full) and their SPIR-V on disk with the
 * other generated shaders (pvk_shader_spirv).  A key whose programs the
 * translator does not take whole is remembered as such: its draws run on
 * the CPU.
 *
 * Counters the shaders keep (per draw, in its ring region; runtime/draw.c
 * reads them when the draw's batch is done, reports unfinished invocations
 * and adds them here with pvk_gs_account): triangles past an invocation's
 * slots (not drawn), invocations that did not end, and the most triangles
 * one invocation wanted; pvk_gs_slots uses the last to give later draws
 * enough slots. */
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "runtime/runtime.h"
#include "shaders/shaders.h"

#define TABLE_SIZE 128u
#define GROUP 64u
#define BINDINGS 5u
#define LEARNED 64u

typedef struct gs_entry {
    pvk_gs_key key;
    VkPipeline vertex, geometry; /* both NULL and `used`: not translated whole (CPU path) */
    bool used;
} gs_entry;

typedef struct gs_learned {
    uint64_t hash; /* pvk_gs_key_hash */
    uint32_t want;
} gs_learned;

struct pvk_gs {
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    gs_entry table[TABLE_SIZE];
    uint32_t count;
    uint64_t excess, unfinished; /* pvk_gs_account's sums */
    gs_learned learned[LEARNED]; /* most triangles an invocation wanted, by key (direct-mapped) */
};

static pvk_result gs_init(pvk_context *ctx)
{
    if (ctx->gs)
        return PVK_SUCCESS;
    struct pvk_gs *g = calloc(1, sizeof *g);
    if (!g)
        return PVK_ERROR_OUT_OF_MEMORY;
    ctx->gs = g;
    VkDescriptorSetLayoutBinding b[BINDINGS];
    for (uint32_t i = 0; i < BINDINGS; i++)
        b[i] = (VkDescriptorSetLayoutBinding){i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo dsl = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR,
        .bindingCount = BINDINGS,
        .pBindings = b,
    };
    pvk_result r =
        pvk_vk_check(&ctx->gpu, ctx->gpu.vk.vkCreateDescriptorSetLayout(ctx->gpu.device, &dsl, NULL, &g->set_layout),
                     "vkCreateDescriptorSetLayout");
    VkPushConstantRange pcr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(pvk_gs_push)};
    VkPipelineLayoutCreateInfo plci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1,
        .pSetLayouts = &g->set_layout,
        .pushConstantRangeCount = 1,
        .pPushConstantRanges = &pcr,
    };
    if (!r)
        r = pvk_vk_check(&ctx->gpu, ctx->gpu.vk.vkCreatePipelineLayout(ctx->gpu.device, &plci, NULL, &g->layout),
                         "vkCreatePipelineLayout");
    if (r) {
        pvk_gs_destroy(ctx);
        return r;
    }
    return PVK_SUCCESS;
}

static void drop_pipelines(pvk_context *ctx, struct pvk_gs *g)
{
    for (uint32_t i = 0; i < TABLE_SIZE; i++) {
        if (g->table[i].vertex)
            ctx->gpu.vk.vkDestroyPipeline(ctx->gpu.device, g->table[i].vertex, NULL);
        if (g->table[i].geometry)
            ctx->gpu.vk.vkDestroyPipeline(ctx->gpu.device, g->table[i].geometry, NULL);
    }
    memset(g->table, 0, sizeof g->table);
    g->count = 0;
}

void pvk_gs_destroy(pvk_context *ctx)
{
    struct pvk_gs *g = ctx->gs;
    if (!g)
        return;
    drop_pipelines(ctx, g);
    if (g->layout)
        ctx->gpu.vk.vkDestroyPipelineLayout(ctx->gpu.device, g->layout, NULL);
    if (g->set_layout)
        ctx->gpu.vk.vkDestroyDescriptorSetLayout(ctx->gpu.device, g->set_layout, NULL);
    free(g);
    ctx->gs = NULL;
}

static pvk_result compile(pvk_context *ctx, struct pvk_gs *g, const char *src, const char *what, VkPipeline *out)
{
    uint64_t hash = XXH3_64bits(src, strlen(src));
    size_t n = 0;
    uint32_t *words = pvk_shader_spirv(ctx, PVK_STAGE_COMPUTE, src, hash, &n);
    if (!words)
        return PVK_ERROR_VULKAN; /* logged: picavk's bug */
    pvk_result r = pvk_compute_pipeline_create(&ctx->gpu, words, n * 4, g->layout, NULL, out);
    free(words);
    if (!r)
        pvk_object_name(&ctx->gpu, VK_OBJECT_TYPE_PIPELINE, (uint64_t)*out, "%s (compute, %016llx)", what,
                        (unsigned long long)hash);
    return r;
}

static pvk_result build(pvk_context *ctx, struct pvk_gs *g, const pvk_gs_draw *gs, const pvk_gs_key *key,
                        gs_entry *e)
{
    char *src = NULL;
    pvk_result r = pvk_glsl_gs_vertex_pass(key, gs->vs.code, gs->vs.opdesc, &src);
    if (!r) {
        r = compile(ctx, g, src, "vertex program before a geometry program", &e->vertex);
        free(src);
        src = NULL;
    }
    if (!r)
        r = pvk_glsl_gs_geometry_pass(key, gs->code, gs->opdesc, &src);
    if (!r) {
        r = compile(ctx, g, src, "geometry program", &e->geometry);
        free(src);
    }
    if (r == PVK_ERROR_MISSING_FEATURE)
        pvk_log(&ctx->gpu, PVK_LOG_DEBUG,
                "geometry program %016llx (entry %u) or its vertex program is not translated "
                "whole, or it has more than %u reachable EMITs: its draws run on the CPU",
                (unsigned long long)key->code_hash, key->entry, PVK_GLSL_GS_MAX_EMIT_SITES);
    return r;
}

pvk_result pvk_gs_prepare(pvk_context *ctx, const pvk_gs_draw *gs, VkPipeline *vertex, VkPipeline *geometry)
{
    pvk_result r = gs_init(ctx);
    if (r)
        return r;
    struct pvk_gs *g = ctx->gs;
    pvk_gs_key key = gs->key;
    key.flags = pvk_vs_flags_for_device(&ctx->profile, key.flags);
    uint32_t i = (uint32_t)XXH3_64bits(&key, sizeof key) & (TABLE_SIZE - 1);
    for (;; i = (i + 1) & (TABLE_SIZE - 1)) {
        gs_entry *e = &g->table[i];
        if (!e->used)
            break;
        if (!memcmp(&e->key, &key, sizeof key)) {
            *vertex = e->vertex, *geometry = e->geometry;
            return e->geometry ? PVK_SUCCESS : PVK_ERROR_MISSING_FEATURE;
        }
    }
    if (g->count >= TABLE_SIZE / 2) { /* start over rather than grow without bound */
        if ((r = pvk_retire(&ctx->gpu, true)))
            return r;
        drop_pipelines(ctx, g);
        return pvk_gs_prepare(ctx, gs, vertex, geometry);
    }
    gs_entry e = {.key = key, .used = true};
    r = build(ctx, g, gs, &key, &e);
    if (r && r != PVK_ERROR_MISSING_FEATURE) {
        if (e.vertex)
            ctx->gpu.vk.vkDestroyPipeline(ctx->gpu.device, e.vertex, NULL);
        return r;
    }
    if (r) { /* remembered: the CPU path */
        if (e.vertex)
            ctx->gpu.vk.vkDestroyPipeline(ctx->gpu.device, e.vertex, NULL);
        e.vertex = e.geometry = VK_NULL_HANDLE;
    }
    g->table[i] = e;
    g->count++;
    *vertex = e.vertex, *geometry = e.geometry;
    return r;
}

uint64_t pvk_gs_key_hash(const pvk_gs_draw *gs)
{
    return XXH3_64bits(&gs->key, sizeof gs->key);
}

uint32_t pvk_gs_slots(const pvk_context *ctx, const pvk_gs_draw *gs)
{
    uint32_t hint = gs->tri_slots, want = 0;
    uint64_t h = pvk_gs_key_hash(gs);
    if (ctx->gs && ctx->gs->learned[h % LEARNED].hash == h)
        want = ctx->gs->learned[h % LEARNED].want;
    uint32_t n = hint ? hint : want > PVK_GS_DEFAULT_SLOTS ? want : PVK_GS_DEFAULT_SLOTS;
    return n > PVK_GS_MAX_SLOTS ? 0 : n; /* 0: more than the slots can hold, the CPU path's */
}

void pvk_gs_counts(const pvk_context *ctx, uint64_t *excess, uint64_t *unfinished)
{
    *excess = ctx->gs ? ctx->gs->excess : 0;
    *unfinished = ctx->gs ? ctx->gs->unfinished : 0;
}

uint32_t pvk_gs_account(pvk_context *ctx, uint64_t key_hash, const uint32_t cnt[PVK_GS_COUNTERS])
{
    struct pvk_gs *g = ctx->gs;
    if (!g)
        return 0;
    g->excess += cnt[0];
    g->unfinished += cnt[1];
    gs_learned *l = &g->learned[key_hash % LEARNED];
    if (l->hash != key_hash) /* another key's: replaced */
        l->hash = key_hash, l->want = 0;
    l->want = cnt[2] > l->want ? cnt[2] : l->want;
    return cnt[1];
}

void pvk_gs_record(pvk_context *ctx, VkCommandBuffer cmd, const pvk_gs_draw *gs, VkPipeline vertex,
                   VkPipeline geometry, VkBuffer ring, const pvk_gs_ranges *rg, const pvk_gs_push *push)
{
    struct pvk_gs *g = ctx->gs;
    VkDescriptorBufferInfo bi[BINDINGS] = {
        {ring, 0, VK_WHOLE_SIZE},
        {ring, rg->vs_uni, sizeof(pvk_vs_draw_uniforms)},
        {ring, rg->vso, rg->vso_bytes},
        {ring, rg->tri, rg->tri_bytes},
        {ring, rg->cnt, PVK_GS_COUNTERS * 4},
    };
    VkWriteDescriptorSet w[BINDINGS];
    for (uint32_t i = 0; i < BINDINGS; i++)
        w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstBinding = i,
                                      .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                      .pBufferInfo = &bi[i]};
    /* pass A: the vertex program on every vertex read */
    pvk_gs_push p = *push;
    p.n = gs->vertices;
    ctx->gpu.vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vertex);
    ctx->gpu.vk.vkCmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, g->layout, 0, 3, w);
    ctx->gpu.vk.vkCmdPushConstants(cmd, g->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof p, &p);
    ctx->gpu.vk.vkCmdDispatch(cmd, (gs->vertices + GROUP - 1) / GROUP, 1, 1);
    VkMemoryBarrier2 mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
                           .srcStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                           .srcAccessMask = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                           .dstStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                           .dstAccessMask = VK_ACCESS_2_SHADER_STORAGE_READ_BIT};
    VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .memoryBarrierCount = 1, .pMemoryBarriers = &mb};
    ctx->gpu.vk.vkCmdPipelineBarrier2(cmd, &di);
    /* pass B: the geometry program per primitive; binding 1 is its uniforms now */
    bi[1] = (VkDescriptorBufferInfo){ring, rg->gs_uni, sizeof(pvk_vs_uniforms)};
    p.n = gs->prims;
    ctx->gpu.vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, geometry);
    ctx->gpu.vk.vkCmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, g->layout, 0, BINDINGS, w);
    ctx->gpu.vk.vkCmdPushConstants(cmd, g->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof p, &p);
    ctx->gpu.vk.vkCmdDispatch(cmd, (gs->prims + GROUP - 1) / GROUP, 1, 1);
    /* the slots are vertices of a later submission on this queue (submission
     * order carries the barrier's second scope there); the counters are the
     * host's to read */
    mb = (VkMemoryBarrier2){.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
                            .srcStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                            .srcAccessMask = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                            .dstStageMask = VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT | VK_PIPELINE_STAGE_2_HOST_BIT,
                            .dstAccessMask = VK_ACCESS_2_VERTEX_ATTRIBUTE_READ_BIT | VK_ACCESS_2_HOST_READ_BIT};
    ctx->gpu.vk.vkCmdPipelineBarrier2(cmd, &di);
}
