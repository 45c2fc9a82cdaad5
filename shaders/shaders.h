/* shaders/ owns the built-in shaders (GLSL compiled to SPIR-V at build time and
 * embedded) and the run-time GLSL compiler (glslang C API) for generated ones.
 * It holds no other C logic and never records commands. */
#ifndef PVK_SHADERS_H
#define PVK_SHADERS_H

#include <stddef.h>
#include <stdint.h>

#include "picavk/picavk.h"

typedef enum pvk_shader_stage {
    PVK_STAGE_VERTEX,
    PVK_STAGE_FRAGMENT,
    PVK_STAGE_COMPUTE,
} pvk_shader_stage;

/* Compile GLSL to SPIR-V for Vulkan 1.3.  On success *words is malloc'd
 * (free it).  On failure returns PVK_ERROR_BAD_DATA and, when `log` is not
 * NULL, a malloc'd compiler log there. */
pvk_result pvk_glsl_compile(pvk_shader_stage stage, const char *source, uint32_t **words, size_t *n_words,
                            char **log);

#endif
