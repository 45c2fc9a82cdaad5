/* A compute harness for translated vertex programs (translator/glsl_vs.c):
 * the generated GLSL embedded in a compute shader, one invocation per
 * vertex, inputs and results in host-visible storage buffers.  It proves the
 * translator against the interpreter (tests/test_vs_gpu.c) and measures it
 * (bench/vertex) before draws use it.  Pipelines are cached in memory by a
 * packed key: XXH3 of the code and of the operand descriptors, the entry
 * point and the flags. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "runtime/runtime.h"
#include "shaders/shaders.h"

#define TABLE_SIZE 256u
#define GROUP 64u
#define WORDS_PLAIN 68u /* o0-o15, status/steps/end_pc/0 */
#define WORDS_REGS 136u /* + r0-r15, a0.x, a0.y, aL, cmp */

typedef struct vs_key {
    uint64_t code_hash, desc_hash;
    uint32_t entry, flags; /* PVK_GLSL_VS_* | KEY_REGS */
} vs_key;
_Static_assert(sizeof(vs_key) == 24, "vs_key is packed");
#define KEY_REGS (1u << 31)

typedef struct vs_entry {
    vs_key key;
    VkPipeline pipeline;
} vs_entry;

typedef struct host_buffer {
    VkBuffer buf;
    VkDeviceMemory mem;
    void *map;
    VkDeviceSize size;
} host_buffer;

struct pvk_vs_compute {
    pvk_context *ctx;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    vs_entry table[TABLE_SIZE];
    uint32_t count;
    uint64_t compiled, hits;
    host_buffer in, out, uni;
};

static const char head[] =
    "#version 460\n"
    "layout(local_size_x = 64) in;\n"
    "layout(std430, set = 0, binding = 0) readonly buffer PicaIn { vec4 pica_vin[]; };\n"
    "layout(std430, set = 0, binding = 1) writeonly buffer PicaOut { uvec4 pica_out[]; };\n"
    "layout(std430, set = 0, binding = 2) readonly buffer PicaUniforms {\n"
    "  vec4 pica_fu[96]; uvec4 pica_ints; uint pica_bools; uint pica_max_steps; };\n"
    "layout(push_constant) uniform PicaPush { uint pica_count; };\n";

static const char tail_plain[] =
    "void main() {\n"
    "  uint id = gl_GlobalInvocationID.x;\n"
    "  if (id >= pica_count) return;\n"
    "  for (uint i = 0u; i < 16u; i++) { pica_v[i] = pica_vin[id * 16u + i]; pica_o[i] = vec4(0.0); }\n"
    "  uint base = id * %uu;\n"
    "  uint st = pica_main();\n"
    "  for (uint i = 0u; i < 16u; i++) pica_out[base + i] = floatBitsToUint(pica_o[i]);\n"
    "  pica_out[base + 16u] = uvec4(st, pica_steps, pica_end_pc, 0u);\n";
static const char tail_regs[] =
    "  for (uint i = 0u; i < 16u; i++) pica_out[base + 17u + i] = floatBitsToUint(pica_r[i]);\n"
    "  pica_out[base + 33u] = uvec4(uint(pica_a0.x), uint(pica_a0.y), pica_aL,\n"
    "                               (pica_cmp.x ? 1u : 0u) | (pica_cmp.y ? 2u : 0u));\n";

static void buffer_free(pvk_context *ctx, host_buffer *b)
{
    if (b->map)
        ctx->gpu.vk.vkUnmapMemory(ctx->gpu.device, b->mem);
    if (b->buf)
        ctx->gpu.vk.vkDestroyBuffer(ctx->gpu.device, b->buf, NULL);
    if (b->mem)
        ctx->gpu.vk.vkFreeMemory(ctx->gpu.device, b->mem, NULL);
    memset(b, 0, sizeof *b);
}

/* At least `size` bytes, host-visible and mapped (grown by doubling). */
static pvk_result buffer_ensure(pvk_context *ctx, host_buffer *b, VkDeviceSize size)
{
    if (b->size >= size)
        return PVK_SUCCESS;
    VkDeviceSize want = b->size ? b->size : 4096;
    while (want < size)
        want *= 2;
    buffer_free(ctx, b);
    pvk_result r =
        pvk_create_buffer(&ctx->gpu, want, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, &b->buf, &b->mem);
    if (!r)
        r = pvk_vk_check(&ctx->gpu, ctx->gpu.vk.vkMapMemory(ctx->gpu.device, b->mem, 0, VK_WHOLE_SIZE, 0, &b->map),
                         "vkMapMemory");
    if (r) {
        buffer_free(ctx, b);
        return r;
    }
    b->size = want;
    return PVK_SUCCESS;
}

pvk_result pvk_vs_compute_create(pvk_context *ctx, pvk_vs_compute **out)
{
    *out = NULL;
    pvk_vs_compute *vc = calloc(1, sizeof *vc);
    if (!vc)
        return PVK_ERROR_OUT_OF_MEMORY;
    vc->ctx = ctx;
    VkDescriptorSetLayoutBinding b[3];
    for (uint32_t i = 0; i < 3; i++)
        b[i] = (VkDescriptorSetLayoutBinding){i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo dsl = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR,
        .bindingCount = 3,
        .pBindings = b,
    };
    pvk_result r =
        pvk_vk_check(&ctx->gpu, ctx->gpu.vk.vkCreateDescriptorSetLayout(ctx->gpu.device, &dsl, NULL, &vc->set_layout),
                     "vkCreateDescriptorSetLayout");
    VkPushConstantRange pcr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 16};
    VkPipelineLayoutCreateInfo plci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1,
        .pSetLayouts = &vc->set_layout,
        .pushConstantRangeCount = 1,
        .pPushConstantRanges = &pcr,
    };
    if (!r)
        r = pvk_vk_check(&ctx->gpu, ctx->gpu.vk.vkCreatePipelineLayout(ctx->gpu.device, &plci, NULL, &vc->layout),
                         "vkCreatePipelineLayout");
    if (!r)
        r = buffer_ensure(ctx, &vc->uni, sizeof(pvk_vs_uniforms));
    if (r) {
        pvk_vs_compute_destroy(vc);
        return r;
    }
    *out = vc;
    return PVK_SUCCESS;
}

static void drop_pipelines(pvk_vs_compute *vc)
{
    pvk_context *ctx = vc->ctx;
    for (uint32_t i = 0; i < TABLE_SIZE; i++)
        if (vc->table[i].pipeline)
            ctx->gpu.vk.vkDestroyPipeline(ctx->gpu.device, vc->table[i].pipeline, NULL);
    memset(vc->table, 0, sizeof vc->table);
    vc->count = 0;
}

void pvk_vs_compute_destroy(pvk_vs_compute *vc)
{
    if (!vc)
        return;
    pvk_context *ctx = vc->ctx;
    pvk_gpu_idle(&ctx->gpu); /* nothing of ours may still run */
    drop_pipelines(vc);
    buffer_free(ctx, &vc->in);
    buffer_free(ctx, &vc->out);
    buffer_free(ctx, &vc->uni);
    if (vc->layout)
        ctx->gpu.vk.vkDestroyPipelineLayout(ctx->gpu.device, vc->layout, NULL);
    if (vc->set_layout)
        ctx->gpu.vk.vkDestroyDescriptorSetLayout(ctx->gpu.device, vc->set_layout, NULL);
    free(vc);
}

void pvk_vs_compute_counts(const pvk_vs_compute *vc, uint64_t *compiled, uint64_t *hits)
{
    *compiled = vc->compiled;
    *hits = vc->hits;
}

/* Translate, compile and build the pipeline of `prog`. */
static pvk_result build(pvk_vs_compute *vc, const pvk_vs_program *prog, bool regs, VkPipeline *out)
{
    pvk_context *ctx = vc->ctx;
    char *body = NULL;
    pvk_result r = pvk_glsl_vertex_program(prog, &body, NULL);
    if (r)
        return r;
    size_t cap = strlen(head) + strlen(body) + sizeof tail_plain + sizeof tail_regs + 64;
    char *src = malloc(cap);
    if (!src) {
        free(body);
        return PVK_ERROR_OUT_OF_MEMORY;
    }
    size_t n = (size_t)snprintf(src, cap, "%s%s", head, body);
    n += (size_t)snprintf(src + n, cap - n, tail_plain, regs ? WORDS_REGS / 4 : WORDS_PLAIN / 4);
    snprintf(src + n, cap - n, "%s}\n", regs ? tail_regs : "");
    free(body);
    uint32_t *words = NULL;
    size_t n_words = 0;
    char *log = NULL;
    r = pvk_glsl_compile(PVK_STAGE_COMPUTE, src, &words, &n_words, &log);
    if (r) {
        /* generated code that does not compile is picavk's bug, not the guest's */
        pvk_log(&ctx->gpu, PVK_LOG_ERROR, "translated vertex program does not compile: %s\n%s", log ? log : "", src);
        free(log);
        free(src);
        return r;
    }
    free(log);
    free(src);
    r = pvk_compute_pipeline_create(&ctx->gpu, words, n_words * 4, vc->layout, NULL, out);
    free(words);
    if (!r)
        pvk_object_name(&ctx->gpu, VK_OBJECT_TYPE_PIPELINE, (uint64_t)*out,
                        "vertex program %016llx (compute, entry %u)",
                        (unsigned long long)XXH3_64bits(prog->code, PVK_SH_CODE_WORDS * 4), prog->entry);
    return r;
}

static pvk_result pipeline_for(pvk_vs_compute *vc, const pvk_vs_program *prog, bool regs, VkPipeline *out)
{
    vs_key k;
    memset(&k, 0, sizeof k);
    k.code_hash = XXH3_64bits(prog->code, PVK_SH_CODE_WORDS * sizeof(uint32_t));
    k.desc_hash = XXH3_64bits(prog->opdesc, PVK_SH_OPDESCS * sizeof(uint32_t));
    k.entry = prog->entry;
    k.flags = prog->flags | (regs ? KEY_REGS : 0);
    uint32_t i = (uint32_t)XXH3_64bits(&k, sizeof k) & (TABLE_SIZE - 1);
    for (;; i = (i + 1) & (TABLE_SIZE - 1)) {
        if (!vc->table[i].pipeline)
            break;
        if (!memcmp(&vc->table[i].key, &k, sizeof k)) {
            vc->hits++;
            *out = vc->table[i].pipeline;
            return PVK_SUCCESS;
        }
    }
    if (vc->count >= TABLE_SIZE / 2) { /* start over rather than grow without bound */
        pvk_gpu_idle(&vc->ctx->gpu);
        drop_pipelines(vc);
        return pipeline_for(vc, prog, regs, out);
    }
    pvk_result r = build(vc, prog, regs, out);
    if (r)
        return r;
    vc->compiled++;
    vc->count++;
    vc->table[i] = (vs_entry){k, *out};
    return PVK_SUCCESS;
}

pvk_result pvk_vs_compute_run(pvk_vs_compute *vc, const pvk_vs_program *prog_in, const pvk_vs_uniforms *uni,
                              const float (*in)[PVK_SH_INPUTS][4], uint32_t n, bool regs, pvk_vs_result *out)
{
    pvk_context *ctx = vc->ctx;
    if (!n)
        return PVK_SUCCESS;
    if (n > 65535u * GROUP)
        return PVK_ERROR_INVALID_ARGUMENT;
    pvk_vs_program prog = *prog_in;
    prog.flags = pvk_vs_flags_for_device(&ctx->profile, prog.flags);
    VkPipeline pipe;
    pvk_result r = pipeline_for(vc, &prog, regs, &pipe);
    if (r)
        return r;
    uint32_t words = regs ? WORDS_REGS : WORDS_PLAIN;
    VkDeviceSize in_size = (VkDeviceSize)n * sizeof in[0], out_size = (VkDeviceSize)n * words * 4;
    if ((r = pvk_retire(&ctx->gpu, true))) /* the buffers may still be in use by the last run */
        return r;
    if ((r = buffer_ensure(ctx, &vc->in, in_size)) || (r = buffer_ensure(ctx, &vc->out, out_size)))
        return r;
    memcpy(vc->in.map, in, in_size);
    memcpy(vc->uni.map, uni, sizeof *uni);
    pvk_op op;
    if ((r = pvk_op_begin(&ctx->gpu, &op)))
        return r;
    pvk_op_label(&ctx->gpu, &op, "vertex program (compute, %u vertices)", n);
    VkDescriptorBufferInfo bi[3] = {
        {vc->in.buf, 0, in_size}, {vc->out.buf, 0, out_size}, {vc->uni.buf, 0, sizeof *uni}};
    VkWriteDescriptorSet w[3];
    for (uint32_t i = 0; i < 3; i++)
        w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstBinding = i,
                                      .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                      .pBufferInfo = &bi[i]};
    uint32_t push[4] = {n, 0, 0, 0};
    ctx->gpu.vk.vkCmdBindPipeline(op.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
    ctx->gpu.vk.vkCmdPushDescriptorSetKHR(op.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vc->layout, 0, 3, w);
    ctx->gpu.vk.vkCmdPushConstants(op.cmd, vc->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
    ctx->gpu.vk.vkCmdDispatch(op.cmd, (n + GROUP - 1) / GROUP, 1, 1);
    if ((r = pvk_op_submit(&ctx->gpu, &op)))
        return r;
    if ((r = pvk_retire_until(&ctx->gpu, op.p.value)))
        return r;
    const uint32_t *o = vc->out.map;
    for (uint32_t v = 0; v < n; v++, o += words) {
        pvk_vs_result *res = &out[v];
        memcpy(res->o, o, 64 * 4);
        res->status = o[64], res->steps = o[65], res->end_pc = o[66], res->pad = 0;
        if (regs) {
            memcpy(res->r, o + 68, 64 * 4);
            res->a0[0] = (int32_t)o[132], res->a0[1] = (int32_t)o[133];
            res->aL = o[134], res->cmp = o[135];
        }
    }
    return PVK_SUCCESS;
}
