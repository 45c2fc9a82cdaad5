/* Vulkan bring-up: our own instance and device (headless) or the host's
 * (embedded), feature detection, the validation-message counter. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"

static VKAPI_ATTR VkBool32 VKAPI_CALL on_debug_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                       VkDebugUtilsMessageTypeFlagsEXT type,
                                                       const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    pvk_gpu *gpu = user;
    (void)type;
    if (severity & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT)) {
        gpu->stats.validation_errors++;
        pvk_log(gpu, PVK_LOG_ERROR, "validation: %s", data->pMessage ? data->pMessage : "(no text)");
    }
    return VK_FALSE;
}

static bool has_layer(const char *name)
{
    uint32_t n = 0;
    vkEnumerateInstanceLayerProperties(&n, NULL);
    VkLayerProperties *props = calloc(n ? n : 1, sizeof *props);
    if (!props)
        return false;
    vkEnumerateInstanceLayerProperties(&n, props);
    bool found = false;
    for (uint32_t i = 0; i < n; i++)
        found |= !strcmp(props[i].layerName, name);
    free(props);
    return found;
}

static bool has_instance_ext(const char *name)
{
    uint32_t n = 0;
    vkEnumerateInstanceExtensionProperties(NULL, &n, NULL);
    VkExtensionProperties *props = calloc(n ? n : 1, sizeof *props);
    if (!props)
        return false;
    vkEnumerateInstanceExtensionProperties(NULL, &n, props);
    bool found = false;
    for (uint32_t i = 0; i < n; i++)
        found |= !strcmp(props[i].extensionName, name);
    free(props);
    return found;
}

/* The device extensions picavk knows, in one table: name, the feature
 * flag it sets, and whether picavk cannot run without it. */
typedef struct ext_info {
    const char *name;
    size_t feature_offset; /* into pvk_features, or SIZE_MAX */
    bool required;
} ext_info;

#define FEAT(f) offsetof(pvk_features, f)
static const ext_info device_exts[] = {
    {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME, FEAT(push_descriptor), true},
    {VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME, FEAT(external_memory_host), false},
    {VK_EXT_EXTENDED_DYNAMIC_STATE_3_EXTENSION_NAME, FEAT(extended_dynamic_state3), false},
    {VK_EXT_RASTERIZATION_ORDER_ATTACHMENT_ACCESS_EXTENSION_NAME, FEAT(rasterization_order_attachment_access), false},
    {VK_EXT_CUSTOM_BORDER_COLOR_EXTENSION_NAME, FEAT(custom_border_color), false},
    {VK_EXT_SHADER_STENCIL_EXPORT_EXTENSION_NAME, FEAT(shader_stencil_export), false},
};
#define N_DEVICE_EXTS (sizeof device_exts / sizeof device_exts[0])

/* Everything picavk may query or enable, chained. */
typedef struct feature_chain {
    VkPhysicalDeviceFeatures2 f2;
    VkPhysicalDeviceVulkan11Features v11;
    VkPhysicalDeviceVulkan12Features v12;
    VkPhysicalDeviceVulkan13Features v13;
    VkPhysicalDeviceExtendedDynamicState3FeaturesEXT eds3;
    VkPhysicalDeviceRasterizationOrderAttachmentAccessFeaturesEXT roa;
    VkPhysicalDeviceCustomBorderColorFeaturesEXT cbc;
} feature_chain;

static void chain_init(feature_chain *c, const pvk_features *exts)
{
    memset(c, 0, sizeof *c);
    c->f2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    c->v11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
    c->v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    c->v13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
    c->eds3.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTENDED_DYNAMIC_STATE_3_FEATURES_EXT;
    c->roa.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RASTERIZATION_ORDER_ATTACHMENT_ACCESS_FEATURES_EXT;
    c->cbc.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_CUSTOM_BORDER_COLOR_FEATURES_EXT;
    c->f2.pNext = &c->v11;
    c->v11.pNext = &c->v12;
    c->v12.pNext = &c->v13;
    void **tail = &c->v13.pNext;
    if (exts->extended_dynamic_state3) {
        *tail = &c->eds3;
        tail = &c->eds3.pNext;
    }
    if (exts->rasterization_order_attachment_access) {
        *tail = &c->roa;
        tail = &c->roa.pNext;
    }
    if (exts->custom_border_color) {
        *tail = &c->cbc;
        tail = &c->cbc.pNext;
    }
}

/* What a host's device needs (pvk_host_vulkan_needs).  probe_device checks
 * the required entries of this list, so the list and picavk's own check of
 * a device cannot drift apart. */
#define HOST(flag) (uint32_t) offsetof(pvk_host_vulkan, flag)
#define NEED_EXT(kind, name, flag, gives)                                                                              \
    {                                                                                                                  \
        kind, name, 0, 0, !(flag), (flag), gives                                                                       \
    }
#define NEED_F10(member, flag, gives)                                                                                  \
    {                                                                                                                  \
        PVK_NEED_FEATURE, #member, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,                                       \
            (uint32_t)offsetof(VkPhysicalDeviceFeatures2, features.member), !(flag), (flag), gives                     \
    }
#define NEED_FEAT_(type, stype, member, flag, gives)                                                                   \
    {                                                                                                                  \
        PVK_NEED_FEATURE, #member, stype, (uint32_t)offsetof(type, member), !(flag), (flag), gives                     \
    }
#define NEED_FEAT(...) NEED_FEAT_(__VA_ARGS__) /* V12, V13: two arguments each */
#define V12 VkPhysicalDeviceVulkan12Features, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES
#define V13 VkPhysicalDeviceVulkan13Features, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES
static const pvk_vulkan_need host_needs[] = {
    NEED_EXT(PVK_NEED_DEVICE_EXTENSION, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME, 0, NULL),
    NEED_F10(shaderClipDistance, 0, NULL),
    NEED_FEAT(V12, storageBuffer8BitAccess, 0, NULL),
    NEED_FEAT(V12, timelineSemaphore, 0, NULL),
    NEED_FEAT(V13, synchronization2, 0, NULL),
    NEED_FEAT(V13, dynamicRendering, 0, NULL),
    /* the built-in compute shaders size their workgroups with LocalSizeId */
    NEED_FEAT(V13, maintenance4, 0, NULL),
    NEED_EXT(PVK_NEED_INSTANCE_EXTENSION, VK_EXT_DEBUG_UTILS_EXTENSION_NAME, HOST(debug_utils_enabled),
             "objects named, passes and draws labelled for debuggers; without: none"),
    NEED_EXT(PVK_NEED_DEVICE_EXTENSION, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME, HOST(external_memory_host_enabled),
             "guest memory imported, no copies; without: mirrored in device buffers and copied"),
#define CBC "any border colour in samplers; without: the nearest built-in one, or the shader applies it"
    NEED_EXT(PVK_NEED_DEVICE_EXTENSION, VK_EXT_CUSTOM_BORDER_COLOR_EXTENSION_NAME, HOST(custom_border_color_enabled),
             CBC),
    NEED_FEAT(VkPhysicalDeviceCustomBorderColorFeaturesEXT,
              VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_CUSTOM_BORDER_COLOR_FEATURES_EXT, customBorderColors,
              HOST(custom_border_color_enabled), CBC),
    NEED_FEAT(VkPhysicalDeviceCustomBorderColorFeaturesEXT,
              VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_CUSTOM_BORDER_COLOR_FEATURES_EXT, customBorderColorWithoutFormat,
              HOST(custom_border_color_enabled), CBC),
#define ROA                                                                                                            \
    "draws read their colour attachment and blend exactly as the PICA's integer arithmetic does; without: "            \
    "Vulkan's blend unit (within 1)"
    NEED_EXT(PVK_NEED_DEVICE_EXTENSION, VK_EXT_RASTERIZATION_ORDER_ATTACHMENT_ACCESS_EXTENSION_NAME,
             HOST(attachment_read_enabled), ROA),
    NEED_FEAT(VkPhysicalDeviceRasterizationOrderAttachmentAccessFeaturesEXT,
              VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RASTERIZATION_ORDER_ATTACHMENT_ACCESS_FEATURES_EXT,
              rasterizationOrderColorAttachmentAccess, HOST(attachment_read_enabled), ROA),
    NEED_FEAT(V12, imagelessFramebuffer, HOST(attachment_read_enabled), ROA),
    NEED_FEAT(V12, separateDepthStencilLayouts, HOST(attachment_read_enabled), ROA),
    NEED_F10(vertexPipelineStoresAndAtomics, HOST(vertex_stores_enabled),
             "vertex programs of draws on the GPU (the vertex stage reports failed vertices through a storage "
             "buffer); without: on the CPU interpreter"),
    NEED_F10(geometryShader, HOST(geometry_shader_enabled),
             "fragment-lit draws' vertex programs on the GPU; without: on the CPU interpreter"),
    NEED_F10(logicOp, HOST(logic_op_enabled), "the 16 logic ops; without: drawn as Copy"),
    NEED_F10(shaderFloat64, HOST(shader_float64_enabled),
             "RCP, RSQ, EX2, LG2 of programs on the GPU in double precision, as exact as the CPU interpreter; "
             "without: f32 (within one f24 ulp)"),
#undef CBC
#undef ROA
};
#undef V12
#undef V13

pvk_result pvk_host_vulkan_needs(const pvk_vulkan_need **needs, uint32_t *count)
{
    if (!needs || !count)
        return PVK_ERROR_INVALID_ARGUMENT;
    *needs = host_needs;
    *count = sizeof host_needs / sizeof host_needs[0];
    return PVK_SUCCESS;
}

/* The VkBool32 a feature need names in `c`; NULL when its struct is not chained. */
static VkBool32 *chain_member(feature_chain *c, const pvk_vulkan_need *n)
{
    for (VkBaseOutStructure *s = (VkBaseOutStructure *)&c->f2; s; s = s->pNext)
        if (s->sType == n->feature_struct)
            return (VkBool32 *)((char *)s + n->feature_offset);
    return NULL;
}

/* Which known extensions `phys` offers; sets the matching feature flags. */
static void probe_extensions(VkPhysicalDevice phys, pvk_features *f)
{
    uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(phys, NULL, &n, NULL);
    VkExtensionProperties *props = calloc(n ? n : 1, sizeof *props);
    if (!props)
        return;
    vkEnumerateDeviceExtensionProperties(phys, NULL, &n, props);
    for (size_t e = 0; e < N_DEVICE_EXTS; e++)
        for (uint32_t i = 0; i < n; i++)
            if (!strcmp(props[i].extensionName, device_exts[e].name))
                *(int *)((char *)f + device_exts[e].feature_offset) = 1;
    free(props);
}

static bool has_device_ext(VkPhysicalDevice phys, const char *name)
{
    uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(phys, NULL, &n, NULL);
    VkExtensionProperties *props = calloc(n ? n : 1, sizeof *props);
    if (!props)
        return false;
    vkEnumerateDeviceExtensionProperties(phys, NULL, &n, props);
    bool found = false;
    for (uint32_t i = 0; i < n; i++)
        found |= !strcmp(props[i].extensionName, name);
    free(props);
    return found;
}

/* Fill `f` from the device's extensions and feature structs.  Returns
 * false with `missing` set to the first required thing it lacks. */
static bool probe_device(VkPhysicalDevice phys, pvk_features *f, feature_chain *c, const char **missing)
{
    memset(f, 0, sizeof *f);
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(phys, &props);
    if (props.apiVersion < PVK_VULKAN_API_VERSION) {
        *missing = "Vulkan 1.3";
        return false;
    }
    probe_extensions(phys, f);
    chain_init(c, f);
    vkGetPhysicalDeviceFeatures2(phys, &c->f2);
    f->logic_op = c->f2.features.logicOp;
    f->dual_src_blend = c->f2.features.dualSrcBlend;
    f->geometry_shader = c->f2.features.geometryShader;
    f->extended_dynamic_state = 1; /* core in 1.3 */
    f->extended_dynamic_state2 = 1;
    f->timeline_semaphore = c->v12.timelineSemaphore;
    f->storage_buffer_8bit = c->v12.storageBuffer8BitAccess;
    f->rasterization_order_attachment_access &= c->roa.rasterizationOrderColorAttachmentAccess;
    /* picavk's samplers serve images of several formats: only custom
     * border colours without a format are of use */
    int cbc = f->custom_border_color;
    f->custom_border_color &= c->cbc.customBorderColors && c->cbc.customBorderColorWithoutFormat;
    if (cbc && !f->custom_border_color) { /* unchain it: the extension is not enabled then */
        chain_init(c, f);
        vkGetPhysicalDeviceFeatures2(phys, &c->f2);
    }
    f->formats_4444 = 1; /* VK_FORMAT_A4R4G4B4/A4B4G4R4 are core in 1.3 */
    VkFormatProperties fp;
    vkGetPhysicalDeviceFormatProperties(phys, VK_FORMAT_D24_UNORM_S8_UINT, &fp);
    f->d24s8 = !!(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT);
    for (size_t i = 0; i < sizeof host_needs / sizeof host_needs[0]; i++) {
        const pvk_vulkan_need *n = &host_needs[i];
        if (!n->required || n->kind == PVK_NEED_INSTANCE_EXTENSION)
            continue;
        const VkBool32 *member = n->kind == PVK_NEED_FEATURE ? chain_member(c, n) : NULL;
        if (n->kind == PVK_NEED_FEATURE ? !member || !*member : !has_device_ext(phys, n->name)) {
            *missing = n->name;
            return false;
        }
    }
    return true;
}

static int find_queue_family(VkPhysicalDevice phys)
{
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &n, NULL);
    VkQueueFamilyProperties q[16];
    if (n > 16)
        n = 16;
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &n, q);
    for (uint32_t i = 0; i < n; i++)
        if ((q[i].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) ==
            (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT))
            return (int)i;
    return -1;
}

static int device_score(VkPhysicalDeviceType t)
{
    switch (t) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 4;
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 3;
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
        case VK_PHYSICAL_DEVICE_TYPE_CPU: return 1;
        default: return 0;
    }
}

static pvk_result create_instance(pvk_gpu *gpu, bool validation)
{
    const char *layers[1];
    uint32_t n_layers = 0;
    const char *exts[1];
    uint32_t n_exts = 0;
    if (validation) {
        if (!has_layer("VK_LAYER_KHRONOS_validation")) {
            pvk_log(gpu, PVK_LOG_ERROR, "validation requested but VK_LAYER_KHRONOS_validation is not installed");
            return PVK_ERROR_MISSING_FEATURE;
        }
        layers[n_layers++] = "VK_LAYER_KHRONOS_validation";
    }
    bool debug_utils = has_instance_ext(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    if (debug_utils)
        exts[n_exts++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    else if (validation) {
        pvk_log(gpu, PVK_LOG_ERROR, "validation requested but VK_EXT_debug_utils is missing");
        return PVK_ERROR_MISSING_FEATURE;
    }

    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "picavk",
        .pEngineName = "picavk",
        .apiVersion = VK_API_VERSION_1_3,
    };
    VkDebugUtilsMessengerCreateInfoEXT mci = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity =
            VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
        .pfnUserCallback = on_debug_message,
        .pUserData = gpu,
    };
    VkInstanceCreateInfo ici = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pNext = validation ? &mci : NULL, /* also catches messages of create/destroy */
        .pApplicationInfo = &app,
        .enabledLayerCount = n_layers,
        .ppEnabledLayerNames = layers,
        .enabledExtensionCount = n_exts,
        .ppEnabledExtensionNames = exts,
    };
    pvk_result r = pvk_vk_check(gpu, vkCreateInstance(&ici, NULL, &gpu->instance), "vkCreateInstance");
    if (r)
        return r;
    gpu->own_instance = true;
    gpu->debug_utils = debug_utils;
    volkLoadInstanceOnly(gpu->instance);
    if (validation) {
        r = pvk_vk_check(gpu, vkCreateDebugUtilsMessengerEXT(gpu->instance, &mci, NULL, &gpu->messenger),
                         "vkCreateDebugUtilsMessengerEXT");
        if (r)
            return r;
    }
    return PVK_SUCCESS;
}

static pvk_result pick_device(pvk_gpu *gpu, feature_chain *chain)
{
    uint32_t n = 0;
    vkEnumeratePhysicalDevices(gpu->instance, &n, NULL);
    if (n == 0) {
        pvk_log(gpu, PVK_LOG_ERROR, "no Vulkan devices (is mesa-vulkan-drivers installed?)");
        return PVK_ERROR_NO_DEVICE;
    }
    VkPhysicalDevice devs[16];
    if (n > 16)
        n = 16;
    vkEnumeratePhysicalDevices(gpu->instance, &n, devs);
    const char *want = getenv("PVK_DEVICE");
    int best = -1, best_score = -1;
    for (uint32_t i = 0; i < n; i++) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(devs[i], &p);
        pvk_features f;
        feature_chain c;
        const char *missing = NULL;
        if (want && *want && !strstr(p.deviceName, want))
            continue;
        if (!probe_device(devs[i], &f, &c, &missing) || find_queue_family(devs[i]) < 0) {
            pvk_log(gpu, PVK_LOG_INFO, "skipping %s: %s%s", p.deviceName,
                    missing ? missing : "no graphics+compute queue", missing ? " is required" : "");
            continue;
        }
        if (device_score(p.deviceType) > best_score) {
            best = (int)i;
            best_score = device_score(p.deviceType);
        }
    }
    if (best < 0) {
        pvk_log(gpu, PVK_LOG_ERROR, "no suitable Vulkan device%s%s", want ? " matching PVK_DEVICE=" : "",
                want ? want : "");
        return PVK_ERROR_NO_DEVICE;
    }
    gpu->phys = devs[best];
    const char *missing = NULL;
    probe_device(gpu->phys, &gpu->features, chain, &missing);
    gpu->queue_family = (uint32_t)find_queue_family(gpu->phys);
    return PVK_SUCCESS;
}

static pvk_result create_device(pvk_gpu *gpu, feature_chain *c)
{
    /* Enable only what we use or will use; the chain already holds the
     * device's answers, so clear what we do not want. */
    VkPhysicalDeviceFeatures want = {0};
    want.logicOp = c->f2.features.logicOp;
    want.dualSrcBlend = c->f2.features.dualSrcBlend;
    want.geometryShader = c->f2.features.geometryShader;
    want.independentBlend = c->f2.features.independentBlend;
    want.fragmentStoresAndAtomics = c->f2.features.fragmentStoresAndAtomics;
    want.shaderInt16 = c->f2.features.shaderInt16;
    want.shaderFloat64 = c->f2.features.shaderFloat64; /* exact RCP/RSQ/EX2/LG2 in translated vertex programs */
    gpu->shader_float64 = want.shaderFloat64;
    want.vertexPipelineStoresAndAtomics = c->f2.features.vertexPipelineStoresAndAtomics; /* runtime/draw.c vs_status */
    gpu->vertex_stores = want.vertexPipelineStoresAndAtomics;
    want.shaderClipDistance = VK_TRUE;
    c->f2.features = want;
    VkPhysicalDeviceVulkan11Features v11 = {
        .sType = c->v11.sType, .pNext = c->v11.pNext, .storageBuffer16BitAccess = c->v11.storageBuffer16BitAccess};
    c->v11 = v11;
    /* the attachment-read path's render passes: imageless framebuffers, and
     * depth attachments in the DEPTH_ATTACHMENT_OPTIMAL layout surfaces rest in */
    VkPhysicalDeviceVulkan12Features v12 = {.sType = c->v12.sType,
                                            .pNext = c->v12.pNext,
                                            .storageBuffer8BitAccess = VK_TRUE,
                                            .shaderInt8 = c->v12.shaderInt8,
                                            .imagelessFramebuffer = c->v12.imagelessFramebuffer,
                                            .separateDepthStencilLayouts = c->v12.separateDepthStencilLayouts,
                                            .timelineSemaphore = VK_TRUE};
    c->v12 = v12;
    /* colour only: the shader reads the colour attachment, never depth or stencil */
    c->roa.rasterizationOrderDepthAttachmentAccess = VK_FALSE;
    c->roa.rasterizationOrderStencilAttachmentAccess = VK_FALSE;
    VkPhysicalDeviceVulkan13Features v13 = {.sType = c->v13.sType,
                                            .pNext = c->v13.pNext,
                                            .synchronization2 = VK_TRUE,
                                            .dynamicRendering = VK_TRUE,
                                            .maintenance4 = c->v13.maintenance4};
    c->v13 = v13;

    const char *exts[N_DEVICE_EXTS];
    uint32_t n_exts = 0;
    for (size_t e = 0; e < N_DEVICE_EXTS; e++)
        if (*(int *)((char *)&gpu->features + device_exts[e].feature_offset))
            exts[n_exts++] = device_exts[e].name;

    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = gpu->queue_family,
        .queueCount = 1,
        .pQueuePriorities = &prio,
    };
    VkDeviceCreateInfo dci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = &c->f2,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &qci,
        .enabledExtensionCount = n_exts,
        .ppEnabledExtensionNames = exts,
    };
    pvk_result r = pvk_vk_check(gpu, vkCreateDevice(gpu->phys, &dci, NULL, &gpu->device), "vkCreateDevice");
    if (r)
        return r;
    gpu->own_device = true;
    return PVK_SUCCESS;
}

static pthread_mutex_t vulkan_global = PTHREAD_MUTEX_INITIALIZER;

void pvk_vulkan_global_lock(void)
{
    pthread_mutex_lock(&vulkan_global);
}

void pvk_vulkan_global_unlock(void)
{
    pthread_mutex_unlock(&vulkan_global);
}

/* Driver memory of one draw pipeline, measured with bench/memory (resident
 * size per pipeline while the cache fills): lavapipe keeps each pipeline's
 * LLVM-compiled code and its variants in host memory.  A GPU driver keeps
 * compiled code, much smaller; no figure is measured for one yet. */
#define PIPELINE_COST_CPU (2ull << 20)
#define PIPELINE_COST_GPU (256ull << 10)

static void budget_init(pvk_gpu *gpu, uint32_t mb)
{
    pvk_budget *b = &gpu->budget;
    b->total = (uint64_t)mb << 20;
    b->pipelines = b->total * 5 / 8;
    b->surfaces = b->total * 3 / 16;
    b->textures = b->total / 8;
    b->modules = b->total - b->pipelines - b->surfaces - b->textures;
    if (gpu->cfg.texture_pack_dir && *gpu->cfg.texture_pack_dir) { /* decoded replacements */
        b->pack = b->total / 8;
        b->pipelines -= b->pack;
    }
    b->pipeline_cost = gpu->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? PIPELINE_COST_CPU : PIPELINE_COST_GPU;
    pvk_log(gpu, PVK_LOG_INFO, "memory budget %u MiB: pipelines %llu MiB (%llu KiB each), surfaces %llu MiB, "
            "textures %llu MiB, shader modules and samplers %llu MiB, texture pack %llu MiB", mb,
            (unsigned long long)(b->pipelines >> 20), (unsigned long long)(b->pipeline_cost >> 10),
            (unsigned long long)(b->surfaces >> 20), (unsigned long long)(b->textures >> 20),
            (unsigned long long)(b->modules >> 20), (unsigned long long)(b->pack >> 20));
}

pvk_result pvk_device_init(pvk_gpu *gpu)
{
    feature_chain chain;
    pvk_result r;
    bool render_pass_features = false; /* imagelessFramebuffer and separateDepthStencilLayouts */
    if (gpu->cfg.host_vulkan) {
        const pvk_host_vulkan *h = gpu->cfg.host_vulkan;
        if (!h->get_instance_proc_addr || !h->instance || !h->physical_device || !h->device || !h->queue) {
            pvk_log(gpu, PVK_LOG_ERROR,
                    "embedded mode needs get_instance_proc_addr, instance, physical device, device and queue");
            return PVK_ERROR_INVALID_ARGUMENT;
        }
        volkInitializeCustom(h->get_instance_proc_addr);
        gpu->instance = h->instance;
        volkLoadInstanceOnly(gpu->instance);
        gpu->phys = h->physical_device;
        const char *missing = NULL;
        if (!probe_device(gpu->phys, &gpu->features, &chain, &missing)) {
            pvk_log(gpu, PVK_LOG_ERROR, "host device unsuitable: %s is required (pvk_host_vulkan_needs)", missing);
            return PVK_ERROR_MISSING_FEATURE;
        }
        /* Only the host knows which extensions and features it enabled: use
         * what the flags say and the device has, nothing else (the flags
         * and what they stand for: host_needs). */
        gpu->features.external_memory_host = !!h->external_memory_host_enabled;
        gpu->features.custom_border_color &= !!h->custom_border_color_enabled;
        gpu->features.rasterization_order_attachment_access &= !!h->attachment_read_enabled;
        gpu->features.logic_op &= !!h->logic_op_enabled;
        /* runtime/pipeline.c gives fragment-lit draws their geometry shader
         * by features.geometry_shader */
        gpu->features.geometry_shader &= !!h->geometry_shader_enabled;
        gpu->vertex_stores = h->vertex_stores_enabled && chain.f2.features.vertexPipelineStoresAndAtomics;
        gpu->shader_float64 = h->shader_float64_enabled && chain.f2.features.shaderFloat64;
        render_pass_features =
            h->attachment_read_enabled && chain.v12.imagelessFramebuffer && chain.v12.separateDepthStencilLayouts;
        gpu->debug_utils = !!h->debug_utils_enabled;
        gpu->device = h->device;
        gpu->queue = h->queue;
        gpu->queue_family = h->queue_family;
        gpu->queue_lock = h->queue_lock;
        gpu->queue_unlock = h->queue_unlock;
        gpu->queue_lock_user = h->queue_lock_user;
    } else {
        if (volkInitialize() != VK_SUCCESS) {
            pvk_log(gpu, PVK_LOG_ERROR, "the Vulkan loader (libvulkan.so.1) is not installed");
            return PVK_ERROR_NO_DEVICE;
        }
        const char *ev = getenv("PVK_VALIDATION");
        bool validation = gpu->cfg.validation || (ev && *ev && strcmp(ev, "0") != 0);
        if ((r = create_instance(gpu, validation)) || (r = pick_device(gpu, &chain)))
            return r;
        render_pass_features = chain.v12.imagelessFramebuffer && chain.v12.separateDepthStencilLayouts;
        if ((r = create_device(gpu, &chain)))
            return r;
    }
    volkLoadDeviceTable(&gpu->vk, gpu->device);
    gpu->begin_label = vkCmdBeginDebugUtilsLabelEXT;
    gpu->end_label = vkCmdEndDebugUtilsLabelEXT;
    gpu->set_object_name = vkSetDebugUtilsObjectNameEXT;
    if (!gpu->cfg.host_vulkan)
        gpu->vk.vkGetDeviceQueue(gpu->device, gpu->queue_family, 0, &gpu->queue);
    vkGetPhysicalDeviceProperties(gpu->phys, &gpu->props);
    /* the driver's name and version text, for reports (core in 1.2; a host's
     * instance of an older version leaves them empty) */
    gpu->driver_props =
        (VkPhysicalDeviceDriverProperties){.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    if (vkGetPhysicalDeviceProperties2) {
        VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                          .pNext = &gpu->driver_props};
        vkGetPhysicalDeviceProperties2(gpu->phys, &p2);
        gpu->driver_props.pNext = NULL;
    }
    if (gpu->features.external_memory_host) {
        VkPhysicalDeviceExternalMemoryHostPropertiesEXT hp = {
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT};
        VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &hp};
        vkGetPhysicalDeviceProperties2(gpu->phys, &p2);
        gpu->import_alignment = hp.minImportedHostPointerAlignment;
    }
    vkGetPhysicalDeviceMemoryProperties(gpu->phys, &gpu->mem_props);
    snprintf(gpu->device_name, sizeof gpu->device_name, "%s", gpu->props.deviceName);
    gpu->features.debug_utils = gpu->debug_utils; /* probing the device cleared the features */
    if (gpu->debug & PVK_DEBUG_NO_LOGIC_OP)
        gpu->features.logic_op = 0;
    if (gpu->debug & PVK_DEBUG_NO_CUSTOM_BORDER)
        gpu->features.custom_border_color = 0; /* still enabled on the device: only unused */
    if (gpu->debug & PVK_DEBUG_NO_ATTACHMENT_READ)
        gpu->features.rasterization_order_attachment_access = 0;
    gpu->attachment_read = gpu->features.rasterization_order_attachment_access && render_pass_features;
    pvk_log(gpu, PVK_LOG_INFO, "device: %s", gpu->device_name);
    budget_init(gpu, gpu->cfg.memory_budget_mb ? gpu->cfg.memory_budget_mb : PVK_DEFAULT_MEMORY_BUDGET_MB);
    return PVK_SUCCESS;
}

void pvk_device_destroy(pvk_gpu *gpu)
{
    if (gpu->device)
        pvk_gpu_reap(gpu, UINT64_MAX); /* the context's end waited for the GPU (or it is lost) */
    if (gpu->device && gpu->own_device)
        gpu->vk.vkDestroyDevice(gpu->device, NULL);
    if (gpu->messenger)
        vkDestroyDebugUtilsMessengerEXT(gpu->instance, gpu->messenger, NULL);
    if (gpu->instance && gpu->own_instance)
        vkDestroyInstance(gpu->instance, NULL);
}

int pvk_find_memory_type(const pvk_gpu *gpu, uint32_t type_bits, VkMemoryPropertyFlags want)
{
    for (uint32_t i = 0; i < gpu->mem_props.memoryTypeCount; i++)
        if ((type_bits & (1u << i)) && (gpu->mem_props.memoryTypes[i].propertyFlags & want) == want)
            return (int)i;
    return -1;
}

pvk_result pvk_create_buffer(pvk_gpu *gpu, VkDeviceSize size, VkBufferUsageFlags usage, VkMemoryPropertyFlags props,
                             VkBuffer *buf, VkDeviceMemory *mem)
{
    *buf = VK_NULL_HANDLE;
    *mem = VK_NULL_HANDLE;
    VkBufferCreateInfo bci = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = size,
        .usage = usage,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    pvk_result r = pvk_vk_check(gpu, gpu->vk.vkCreateBuffer(gpu->device, &bci, NULL, buf), "vkCreateBuffer");
    if (r)
        return r;
    VkMemoryRequirements req;
    gpu->vk.vkGetBufferMemoryRequirements(gpu->device, *buf, &req);
    int type = pvk_find_memory_type(gpu, req.memoryTypeBits, props);
    if (type < 0) {
        pvk_log(gpu, PVK_LOG_ERROR, "no memory type with properties 0x%x", (unsigned)props);
        r = PVK_ERROR_MISSING_FEATURE;
        goto fail;
    }
    VkMemoryAllocateInfo mai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .allocationSize = req.size,
        .memoryTypeIndex = (uint32_t)type,
    };
    if ((r = pvk_vk_check(gpu, gpu->vk.vkAllocateMemory(gpu->device, &mai, NULL, mem), "vkAllocateMemory")))
        goto fail;
    if ((r = pvk_vk_check(gpu, gpu->vk.vkBindBufferMemory(gpu->device, *buf, *mem, 0), "vkBindBufferMemory")))
        goto fail;
    return PVK_SUCCESS;
fail:
    if (*mem)
        gpu->vk.vkFreeMemory(gpu->device, *mem, NULL);
    if (*buf)
        gpu->vk.vkDestroyBuffer(gpu->device, *buf, NULL);
    *buf = VK_NULL_HANDLE;
    *mem = VK_NULL_HANDLE;
    return r;
}

void pvk_image_destroy(pvk_gpu *gpu, pvk_image *im)
{
    if (im->view)
        gpu->vk.vkDestroyImageView(gpu->device, im->view, NULL);
    if (im->image)
        gpu->vk.vkDestroyImage(gpu->device, im->image, NULL);
    if (im->mem)
        gpu->vk.vkFreeMemory(gpu->device, im->mem, NULL);
    memset(im, 0, sizeof *im);
}

pvk_result pvk_image_memory(pvk_gpu *gpu, VkImage image, VkDeviceMemory *mem)
{
    VkMemoryRequirements req;
    gpu->vk.vkGetImageMemoryRequirements(gpu->device, image, &req);
    int type = pvk_find_memory_type(gpu, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (type < 0)
        type = pvk_find_memory_type(gpu, req.memoryTypeBits, 0);
    VkMemoryAllocateInfo mai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .allocationSize = req.size,
        .memoryTypeIndex = (uint32_t)type,
    };
    pvk_result r = pvk_vk_check(gpu, gpu->vk.vkAllocateMemory(gpu->device, &mai, NULL, mem), "vkAllocateMemory");
    return r ? r : pvk_vk_check(gpu, gpu->vk.vkBindImageMemory(gpu->device, image, *mem, 0), "vkBindImageMemory");
}

pvk_result pvk_image_ensure(pvk_gpu *gpu, pvk_image *im, uint32_t w, uint32_t h, VkFormat format,
                            VkImageUsageFlags usage, bool view)
{
    if (im->image && im->w == w && im->h == h)
        return PVK_SUCCESS;
    pvk_image_destroy(gpu, im);
    bool stencil = format == VK_FORMAT_D24_UNORM_S8_UINT || format == VK_FORMAT_D32_SFLOAT_S8_UINT;
    bool depth = stencil || format == VK_FORMAT_D16_UNORM || format == VK_FORMAT_X8_D24_UNORM_PACK32 ||
                 format == VK_FORMAT_D32_SFLOAT;
    VkImageCreateInfo ici = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
        .imageType = VK_IMAGE_TYPE_2D,
        .format = format,
        .extent = {w, h, 1},
        .mipLevels = 1,
        .arrayLayers = 1,
        .samples = VK_SAMPLE_COUNT_1_BIT,
        .tiling = VK_IMAGE_TILING_OPTIMAL,
        .usage = usage,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
    };
    pvk_result r;
    if ((r = pvk_vk_check(gpu, gpu->vk.vkCreateImage(gpu->device, &ici, NULL, &im->image), "vkCreateImage")))
        goto fail;
    if ((r = pvk_image_memory(gpu, im->image, &im->mem)))
        goto fail;
    if (view) {
        VkImageViewCreateInfo vci = {
            .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
            .image = im->image,
            .viewType = VK_IMAGE_VIEW_TYPE_2D,
            .format = format,
            /* a depth-stencil attachment's view holds both aspects */
            .subresourceRange = {stencil ? VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT
                                 : depth ? VK_IMAGE_ASPECT_DEPTH_BIT
                                         : VK_IMAGE_ASPECT_COLOR_BIT,
                                 0, 1, 0, 1},
        };
        if ((r = pvk_vk_check(gpu, gpu->vk.vkCreateImageView(gpu->device, &vci, NULL, &im->view), "vkCreateImageView")))
            goto fail;
    }
    im->w = w;
    im->h = h;
    return PVK_SUCCESS;
fail:
    pvk_image_destroy(gpu, im);
    return r;
}
