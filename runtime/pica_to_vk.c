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
