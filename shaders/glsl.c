/* Run-time GLSL -> SPIR-V through glslang's C API, for generated shaders. */
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#include <glslang/Include/glslang_c_interface.h>
#include <glslang/Public/resource_limits_c.h>

#include "shaders/shaders.h"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t compile_lock = PTHREAD_MUTEX_INITIALIZER; /* pthreads: ThreadSanitizer sees them */

/* glslang keeps per-process state: initialise once, never finalise (the
 * process may still compile until exit). */
static void init_glslang(void)
{
    glslang_initialize_process();
}

static char *dup_log(const char *a, const char *b)
{
    size_t la = a ? strlen(a) : 0, lb = b ? strlen(b) : 0;
    char *s = malloc(la + lb + 1);
    if (!s)
        return NULL;
    if (la)
        memcpy(s, a, la);
    if (lb)
        memcpy(s + la, b, lb);
    s[la + lb] = 0;
    return s;
}

pvk_result pvk_glsl_compile(pvk_shader_stage stage, const char *source, uint32_t **words, size_t *n_words,
                            char **log)
{
    if (!source || !words || !n_words)
        return PVK_ERROR_INVALID_ARGUMENT;
    *words = NULL;
    *n_words = 0;
    if (log)
        *log = NULL;
    glslang_stage_t gs = stage == PVK_STAGE_VERTEX ? GLSLANG_STAGE_VERTEX
                         : stage == PVK_STAGE_FRAGMENT ? GLSLANG_STAGE_FRAGMENT
                                                       : GLSLANG_STAGE_COMPUTE;
    pthread_once(&init_once, init_glslang);
    const glslang_input_t input = {
        .language = GLSLANG_SOURCE_GLSL,
        .stage = gs,
        .client = GLSLANG_CLIENT_VULKAN,
        .client_version = GLSLANG_TARGET_VULKAN_1_3,
        .target_language = GLSLANG_TARGET_SPV,
        .target_language_version = GLSLANG_TARGET_SPV_1_6,
        .code = source,
        .default_version = 460,
        .default_profile = GLSLANG_NO_PROFILE,
        .messages = GLSLANG_MSG_SPV_RULES_BIT | GLSLANG_MSG_VULKAN_RULES_BIT,
        .resource = glslang_default_resource(),
    };
    pvk_result r = PVK_ERROR_BAD_DATA;
    pthread_mutex_lock(&compile_lock);
    glslang_shader_t *shader = glslang_shader_create(&input);
    glslang_program_t *program = NULL;
    if (!shader) {
        r = PVK_ERROR_OUT_OF_MEMORY;
        goto out;
    }
    if (!glslang_shader_preprocess(shader, &input) || !glslang_shader_parse(shader, &input)) {
        if (log)
            *log = dup_log(glslang_shader_get_info_log(shader), glslang_shader_get_info_debug_log(shader));
        goto out;
    }
    program = glslang_program_create();
    glslang_program_add_shader(program, shader);
    if (!glslang_program_link(program, GLSLANG_MSG_SPV_RULES_BIT | GLSLANG_MSG_VULKAN_RULES_BIT)) {
        if (log)
            *log = dup_log(glslang_program_get_info_log(program), glslang_program_get_info_debug_log(program));
        goto out;
    }
    glslang_program_SPIRV_generate(program, gs);
    size_t n = glslang_program_SPIRV_get_size(program);
    uint32_t *w = malloc(n * sizeof *w);
    if (!w) {
        r = PVK_ERROR_OUT_OF_MEMORY;
        goto out;
    }
    glslang_program_SPIRV_get(program, w);
    *words = w;
    *n_words = n;
    r = PVK_SUCCESS;
out:
    if (program)
        glslang_program_delete(program);
    if (shader)
        glslang_shader_delete(shader);
    pthread_mutex_unlock(&compile_lock);
    return r;
}
