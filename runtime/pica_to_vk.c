/* Every PICA enum -> Vulkan value translation, in one place.  The translator
 * keeps PICA codes in its descriptions and keys; only this file knows what
 * they become on the device. */
#include "runtime/runtime.h"

/* DEPTH_COLOR_MASK bits 4-6 (also the stencil and alpha test functions). */
VkCompareOp pvk_vk_compare_op(uint32_t func)
{
    switch (func & 7) {
    case 0: return VK_COMPARE_OP_NEVER;
    case 1: return VK_COMPARE_OP_ALWAYS;
    case 2: return VK_COMPARE_OP_EQUAL;
    case 3: return VK_COMPARE_OP_NOT_EQUAL;
    case 4: return VK_COMPARE_OP_LESS;
    case 5: return VK_COMPARE_OP_LESS_OR_EQUAL;
    case 6: return VK_COMPARE_OP_GREATER;
    default: return VK_COMPARE_OP_GREATER_OR_EQUAL;
    }
}

/* FACECULLING_CONFIG: 1 keeps clockwise triangles, 2 counter-clockwise
 * (window y up; the viewport flip makes Vulkan's front face the PICA's
 * counter-clockwise one), 0 keeps all. */
VkCullModeFlags pvk_vk_cull_mode(uint32_t mode)
{
    switch (mode) {
    case 1: return VK_CULL_MODE_FRONT_BIT;
    case 2: return VK_CULL_MODE_BACK_BIT;
    default: return VK_CULL_MODE_NONE;
    }
}

/* An attribute of ATTRIBBUFFERS_FORMAT (type 0 s8, 1 u8, 2 s16, 3 f32;
 * 1-4 components) as a vertex input format: integers stay integers (the
 * generated shader converts them exactly), floats are read raw. */
VkFormat pvk_vk_attrib_format(uint32_t type, uint32_t comps)
{
    static const VkFormat f[4][4] = {
        {VK_FORMAT_R8_SINT, VK_FORMAT_R8G8_SINT, VK_FORMAT_R8G8B8_SINT, VK_FORMAT_R8G8B8A8_SINT},
        {VK_FORMAT_R8_UINT, VK_FORMAT_R8G8_UINT, VK_FORMAT_R8G8B8_UINT, VK_FORMAT_R8G8B8A8_UINT},
        {VK_FORMAT_R16_SINT, VK_FORMAT_R16G16_SINT, VK_FORMAT_R16G16B16_SINT, VK_FORMAT_R16G16B16A16_SINT},
        {VK_FORMAT_R32_SFLOAT, VK_FORMAT_R32G32_SFLOAT, VK_FORMAT_R32G32B32_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT},
    };
    return type < 4 && comps >= 1 && comps <= 4 ? f[type][comps - 1] : VK_FORMAT_UNDEFINED;
}

/* LOGIC_OP, PICA order (seed 000, FACTS.md) -> Vulkan's own order. */
VkLogicOp pvk_vk_logic_op(uint32_t op)
{
    static const VkLogicOp ops[16] = {
        VK_LOGIC_OP_CLEAR,         VK_LOGIC_OP_AND,        VK_LOGIC_OP_AND_REVERSE, VK_LOGIC_OP_COPY,
        VK_LOGIC_OP_SET,           VK_LOGIC_OP_COPY_INVERTED, VK_LOGIC_OP_NO_OP,    VK_LOGIC_OP_INVERT,
        VK_LOGIC_OP_NAND,          VK_LOGIC_OP_OR,         VK_LOGIC_OP_NOR,         VK_LOGIC_OP_XOR,
        VK_LOGIC_OP_EQUIVALENT,    VK_LOGIC_OP_AND_INVERTED, VK_LOGIC_OP_OR_REVERSE, VK_LOGIC_OP_OR_INVERTED,
    };
    return ops[op & 15];
}

/* BLEND_FUNC equations: 5-7 add like 0 (seed 000).  Vulkan's MIN/MAX ignore
 * the factors; the PICA's (in Citra's model) apply them: documented. */
VkBlendOp pvk_vk_blend_op(uint32_t eq)
{
    switch (eq) {
    case 1: return VK_BLEND_OP_SUBTRACT;
    case 2: return VK_BLEND_OP_REVERSE_SUBTRACT;
    case 3: return VK_BLEND_OP_MIN;
    case 4: return VK_BLEND_OP_MAX;
    default: return VK_BLEND_OP_ADD;
    }
}

/* BLEND_FUNC factors; 0xF is unknown and taken as One. */
VkBlendFactor pvk_vk_blend_factor(uint32_t f)
{
    static const VkBlendFactor factors[16] = {
        VK_BLEND_FACTOR_ZERO,
        VK_BLEND_FACTOR_ONE,
        VK_BLEND_FACTOR_SRC_COLOR,
        VK_BLEND_FACTOR_ONE_MINUS_SRC_COLOR,
        VK_BLEND_FACTOR_DST_COLOR,
        VK_BLEND_FACTOR_ONE_MINUS_DST_COLOR,
        VK_BLEND_FACTOR_SRC_ALPHA,
        VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
        VK_BLEND_FACTOR_DST_ALPHA,
        VK_BLEND_FACTOR_ONE_MINUS_DST_ALPHA,
        VK_BLEND_FACTOR_CONSTANT_COLOR,
        VK_BLEND_FACTOR_ONE_MINUS_CONSTANT_COLOR,
        VK_BLEND_FACTOR_CONSTANT_ALPHA,
        VK_BLEND_FACTOR_ONE_MINUS_CONSTANT_ALPHA,
        VK_BLEND_FACTOR_SRC_ALPHA_SATURATE,
        VK_BLEND_FACTOR_ONE,
    };
    return factors[f & 15];
}

/* STENCIL_OP fail/z-fail/z-pass (seed 000, 3dbrew, libctru GPU_STENCILOP):
 * 3 and 4 saturate at 255 and 0, 6 and 7 wrap. */
VkStencilOp pvk_vk_stencil_op(uint32_t op)
{
    static const VkStencilOp ops[8] = {
        VK_STENCIL_OP_KEEP,
        VK_STENCIL_OP_ZERO,
        VK_STENCIL_OP_REPLACE,
        VK_STENCIL_OP_INCREMENT_AND_CLAMP,
        VK_STENCIL_OP_DECREMENT_AND_CLAMP,
        VK_STENCIL_OP_INVERT,
        VK_STENCIL_OP_INCREMENT_AND_WRAP,
        VK_STENCIL_OP_DECREMENT_AND_WRAP,
    };
    return ops[op & 7];
}

/* TEXUNITi_PARAM mag/min filters (bits 1, 2) and the mip filter (bit 24). */
VkFilter pvk_vk_filter(uint32_t filter)
{
    return filter & 1 ? VK_FILTER_LINEAR : VK_FILTER_NEAREST;
}

VkSamplerMipmapMode pvk_vk_mipmap_mode(uint32_t filter)
{
    return filter & 1 ? VK_SAMPLER_MIPMAP_MODE_LINEAR : VK_SAMPLER_MIPMAP_MODE_NEAREST;
}

/* TEXUNITi_PARAM wrap S/T (seed 001: 0 edge, 1 border, 2 repeat, 3 mirrored).
 * 4-7 are undocumented; Citra's notes: 4 clamps to the edge and 5 to the
 * border for positive coordinates but repeat negative ones, 6 and 7 repeat.
 * The positive side is taken. */
VkSamplerAddressMode pvk_vk_address_mode(uint32_t wrap)
{
    static const VkSamplerAddressMode modes[8] = {
        VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE, VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER,
        VK_SAMPLER_ADDRESS_MODE_REPEAT,        VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT,
        VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE, VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER,
        VK_SAMPLER_ADDRESS_MODE_REPEAT,        VK_SAMPLER_ADDRESS_MODE_REPEAT,
    };
    return modes[wrap & 7];
}

/* TEXUNITi_BORDER_COLOR (R, G, B, A bytes) -> the nearest of Vulkan's
 * built-in border colours (squared distance; ties to the earlier of
 * transparent black, opaque black, opaque white), for devices without custom
 * border colours. */
VkBorderColor pvk_vk_border_color(uint32_t rgba)
{
    static const struct { uint8_t c[4]; VkBorderColor vk; } builtin[3] = {
        {{0, 0, 0, 0}, VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK},
        {{0, 0, 0, 255}, VK_BORDER_COLOR_FLOAT_OPAQUE_BLACK},
        {{255, 255, 255, 255}, VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE},
    };
    uint32_t best = UINT32_MAX;
    VkBorderColor out = VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK;
    for (int i = 0; i < 3; i++) {
        uint32_t d = 0;
        for (int c = 0; c < 4; c++) {
            int32_t e = (int32_t)((rgba >> (8 * c)) & 0xFF) - builtin[i].c[c];
            d += (uint32_t)(e * e);
        }
        if (d < best)
            best = d, out = builtin[i].vk;
    }
    return out;
}
