/* SPIRV-Cross (its C API) on generated modules: back to readable GLSL for
 * PVK_DEBUG=shaders, and reflection of what a module needs from its pipeline
 * layout (push-constant block, descriptor sets, stage interface), which the
 * runtime checks against the layout it made. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <spirv_cross/spirv_cross_c.h>

#include "shaders/shaders.h"

static void error_cb(void *user, const char *msg)
{
    snprintf(user, 256, "%s", msg);
}

/* A parsed module and its compiler; errors land in err (256 bytes). */
static bool open_module(const uint32_t *words, size_t n_words, spvc_backend backend, char *err, spvc_context *out_ctx,
                        spvc_compiler *out)
{
    err[0] = 0;
    spvc_context c = NULL;
    if (spvc_context_create(&c) != SPVC_SUCCESS) {
        snprintf(err, 256, "spvc_context_create failed");
        return false;
    }
    spvc_context_set_error_callback(c, error_cb, err);
    spvc_parsed_ir ir = NULL;
    if (spvc_context_parse_spirv(c, words, n_words, &ir) != SPVC_SUCCESS ||
        spvc_context_create_compiler(c, backend, ir, SPVC_CAPTURE_MODE_TAKE_OWNERSHIP, out) != SPVC_SUCCESS) {
        if (!err[0])
            snprintf(err, 256, "SPIRV-Cross cannot read the module");
        spvc_context_destroy(c);
        return false;
    }
    *out_ctx = c;
    return true;
}

char *pvk_spirv_to_glsl(const uint32_t *words, size_t n_words, char err[256])
{
    spvc_context c;
    spvc_compiler comp;
    if (!open_module(words, n_words, SPVC_BACKEND_GLSL, err, &c, &comp))
        return NULL;
    spvc_compiler_options opts = NULL;
    const char *src = NULL;
    char *out = NULL;
    /* the dialect glslang read: GLSL 460 with Vulkan semantics (push constants, sets) */
    if (spvc_compiler_create_compiler_options(comp, &opts) == SPVC_SUCCESS &&
        spvc_compiler_options_set_uint(opts, SPVC_COMPILER_OPTION_GLSL_VERSION, 460) == SPVC_SUCCESS &&
        spvc_compiler_options_set_bool(opts, SPVC_COMPILER_OPTION_GLSL_ES, SPVC_FALSE) == SPVC_SUCCESS &&
        spvc_compiler_options_set_bool(opts, SPVC_COMPILER_OPTION_GLSL_VULKAN_SEMANTICS, SPVC_TRUE) == SPVC_SUCCESS &&
        spvc_compiler_install_compiler_options(comp, opts) == SPVC_SUCCESS &&
        spvc_compiler_compile(comp, &src) == SPVC_SUCCESS && src) {
        out = strdup(src);
        if (!out)
            snprintf(err, 256, "out of memory");
    } else if (!err[0]) {
        snprintf(err, 256, "SPIRV-Cross cannot compile the module to GLSL");
    }
    spvc_context_destroy(c);
    return out;
}

/* "vec4", "uint", "ivec2", "mat4", ...: enough to tell interface types apart */
static void type_name(spvc_type t, char out[32])
{
    const char *scalar = "?", *prefix = "?";
    switch (spvc_type_get_basetype(t)) {
    case SPVC_BASETYPE_FP32: scalar = "float", prefix = ""; break;
    case SPVC_BASETYPE_FP64: scalar = "double", prefix = "d"; break;
    case SPVC_BASETYPE_FP16: scalar = "float16_t", prefix = "f16"; break;
    case SPVC_BASETYPE_INT32: scalar = "int", prefix = "i"; break;
    case SPVC_BASETYPE_UINT32: scalar = "uint", prefix = "u"; break;
    case SPVC_BASETYPE_BOOLEAN: scalar = "bool", prefix = "b"; break;
    case SPVC_BASETYPE_STRUCT: scalar = "struct"; break;
    default: break;
    }
    unsigned vec = spvc_type_get_vector_size(t), cols = spvc_type_get_columns(t);
    if (cols > 1)
        snprintf(out, 32, "%smat%ux%u", prefix, cols, vec);
    else if (vec > 1)
        snprintf(out, 32, "%svec%u", prefix, vec);
    else
        snprintf(out, 32, "%s", scalar);
}

static bool reflect_io(spvc_compiler comp, spvc_resources res, spvc_resource_type type, pvk_spirv_io *io,
                       uint32_t *n, char *err)
{
    const spvc_reflected_resource *list = NULL;
    size_t count = 0;
    if (spvc_resources_get_resource_list_for_type(res, type, &list, &count) != SPVC_SUCCESS)
        return false;
    *n = 0;
    for (size_t i = 0; i < count; i++) {
        if (spvc_compiler_has_decoration(comp, list[i].id, SpvDecorationBuiltIn))
            continue;
        if (*n == PVK_SPIRV_MAX_IO) {
            snprintf(err, 256, "more than %d interface variables", PVK_SPIRV_MAX_IO);
            return false;
        }
        pvk_spirv_io *v = &io[(*n)++];
        memset(v, 0, sizeof *v);
        v->location = spvc_compiler_has_decoration(comp, list[i].id, SpvDecorationLocation)
                          ? spvc_compiler_get_decoration(comp, list[i].id, SpvDecorationLocation)
                          : PVK_SPIRV_NO_LOCATION;
        spvc_type t = spvc_compiler_get_type_handle(comp, list[i].type_id);
        type_name(t, v->type);
        v->array = spvc_type_get_num_array_dimensions(t) ? spvc_type_get_array_dimension(t, 0) : 0;
        v->flat = spvc_compiler_has_decoration(comp, list[i].id, SpvDecorationFlat);
        v->noperspective = spvc_compiler_has_decoration(comp, list[i].id, SpvDecorationNoPerspective);
        snprintf(v->name, sizeof v->name, "%s", list[i].name ? list[i].name : "");
    }
    return true;
}

pvk_result pvk_spirv_reflect(const uint32_t *words, size_t n_words, pvk_spirv_info *out, char err[256])
{
    memset(out, 0, sizeof *out);
    spvc_context c;
    spvc_compiler comp;
    if (!open_module(words, n_words, SPVC_BACKEND_NONE, err, &c, &comp))
        return PVK_ERROR_BAD_DATA;
    pvk_result r = PVK_ERROR_BAD_DATA;
    spvc_resources res = NULL;
    if (spvc_compiler_create_shader_resources(comp, &res) != SPVC_SUCCESS)
        goto out;

    const spvc_reflected_resource *list = NULL;
    size_t count = 0;
    if (spvc_resources_get_resource_list_for_type(res, SPVC_RESOURCE_TYPE_PUSH_CONSTANT, &list, &count) !=
        SPVC_SUCCESS)
        goto out;
    out->push_blocks = (uint32_t)count;
    for (size_t i = 0; i < count; i++) {
        /* the block's bytes: from its first member's offset to its declared end */
        spvc_type t = spvc_compiler_get_type_handle(comp, list[i].base_type_id);
        size_t size = 0;
        unsigned first = ~0u;
        for (unsigned m = 0; m < spvc_type_get_num_member_types(t); m++) {
            unsigned off = 0;
            if (spvc_compiler_type_struct_member_offset(comp, t, m, &off) == SPVC_SUCCESS && off < first)
                first = off;
        }
        if (spvc_compiler_get_declared_struct_size(comp, t, &size) != SPVC_SUCCESS || first == ~0u)
            goto out;
        out->push_offset = first;
        out->push_end = (uint32_t)size;
    }

    /* everything that lives in a descriptor set */
    static const struct { spvc_resource_type res; VkDescriptorType type; } with_sets[] = {
        {SPVC_RESOURCE_TYPE_UNIFORM_BUFFER, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER},
        {SPVC_RESOURCE_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER},
        {SPVC_RESOURCE_TYPE_SUBPASS_INPUT, VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT},
        {SPVC_RESOURCE_TYPE_STORAGE_IMAGE, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE},
        {SPVC_RESOURCE_TYPE_SAMPLED_IMAGE, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER},
        {SPVC_RESOURCE_TYPE_SEPARATE_IMAGE, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE},
        {SPVC_RESOURCE_TYPE_SEPARATE_SAMPLERS, VK_DESCRIPTOR_TYPE_SAMPLER},
        {SPVC_RESOURCE_TYPE_ACCELERATION_STRUCTURE, VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR}};
    for (size_t k = 0; k < sizeof with_sets / sizeof with_sets[0]; k++) {
        if (spvc_resources_get_resource_list_for_type(res, with_sets[k].res, &list, &count) != SPVC_SUCCESS)
            goto out;
        for (size_t i = 0; i < count; i++) {
            unsigned set = spvc_compiler_get_decoration(comp, list[i].id, SpvDecorationDescriptorSet);
            if (out->descriptors < PVK_SPIRV_MAX_DESC)
                out->desc[out->descriptors] = (pvk_spirv_desc){
                    set, spvc_compiler_get_decoration(comp, list[i].id, SpvDecorationBinding), with_sets[k].type};
            out->descriptors++;
            if (set + 1 > out->sets_used)
                out->sets_used = set + 1;
        }
    }

    if (!reflect_io(comp, res, SPVC_RESOURCE_TYPE_STAGE_INPUT, out->inputs, &out->n_inputs, err) ||
        !reflect_io(comp, res, SPVC_RESOURCE_TYPE_STAGE_OUTPUT, out->outputs, &out->n_outputs, err))
        goto out;
    r = PVK_SUCCESS;
out:
    if (r && !err[0])
        snprintf(err, 256, "SPIRV-Cross cannot reflect the module");
    spvc_context_destroy(c);
    return r;
}
