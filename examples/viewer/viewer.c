/* picavk viewer: an example frontend, and the reference for embedding picavk
 * in a host that owns Vulkan.
 *
 * The host (this program) owns everything Vulkan: the instance (with the
 * extensions SDL needs for a window surface), the device (with what
 * pvk_host_vulkan_needs lists: picavk's requirements and every optional
 * group the device has), the queue and the swapchain.  picavk borrows the instance,
 * device and queue (embedded mode, pvk_config.host_vulkan) and hands back each
 * VBlank's screens as VkImages.  Once per 3DS frame the host
 *
 *   1. lets picavk run the frame's work and pvk_vblank  (here: the trace
 *      replay does both and then calls on_frame),
 *   2. pvk_frame_acquire: the newest screen images and the timeline value
 *      that marks them finished,
 *   3. records blits of those images into a swapchain image,
 *   4. submits that with a wait on picavk's timeline semaphore at that value,
 *      signalling its own timeline semaphore when done,
 *   5. pvk_frame_release with its own semaphore and value, so that picavk does
 *      not write the images again before the host's blits have read them,
 *   6. presents.
 *
 * Only the public API (include/picavk/picavk.h), Vulkan and SDL2 are used.
 * Everything runs on one thread: picavk submits to the shared queue from
 * inside its calls, the host between them.
 *
 * Keys: space pause/resume, `.` or right arrow one frame while paused, L
 * cycle layouts, F cycle filters, Q or Escape quit. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* picavk is built with VK_NO_PROTOTYPES (it loads Vulkan through volk), so
 * the host loads its own entry points, here through SDL's Vulkan loader.
 * vulkan.h before SDL_vulkan.h keeps SDL from declaring the handle types. */
#include <vulkan/vulkan.h>
#include <SDL.h>
#include <SDL_vulkan.h>

#include <picavk/picavk.h>
#include "tools/tools.h" /* pvk_write_png, for --screenshot only */

/* The 3DS refreshes its LCDs every 4481136 cycles of its 268111856 Hz GPU
 * clock: 59.831 Hz. */
#define FRAME_NS (1000000000.0 * 4481136.0 / 268111856.0)
#define FRAMES_IN_FLIGHT 2
#define MAX_SWAPCHAIN_IMAGES 8
#define MAX_NEEDS 64

/* ---- Vulkan entry points ---- */

#define GLOBAL_FNS(X) X(CreateInstance) X(EnumerateInstanceLayerProperties) X(EnumerateInstanceExtensionProperties)
#define INSTANCE_FNS(X)                                                                                              \
    X(DestroyInstance) X(EnumeratePhysicalDevices) X(GetPhysicalDeviceProperties) X(GetPhysicalDeviceFeatures2)     \
    X(GetPhysicalDeviceQueueFamilyProperties) X(GetPhysicalDeviceFormatProperties)                                  \
    X(EnumerateDeviceExtensionProperties) X(GetPhysicalDeviceSurfaceSupportKHR)                                    \
    X(GetPhysicalDeviceSurfaceCapabilitiesKHR) X(GetPhysicalDeviceSurfaceFormatsKHR)                               \
    X(GetPhysicalDeviceSurfacePresentModesKHR) X(DestroySurfaceKHR) X(CreateDevice) X(GetDeviceProcAddr)
#define DEBUG_FNS(X) X(CreateDebugUtilsMessengerEXT) X(DestroyDebugUtilsMessengerEXT)
#define DEVICE_FNS(X)                                                                                                \
    X(DestroyDevice) X(GetDeviceQueue) X(DeviceWaitIdle) X(CreateSwapchainKHR) X(DestroySwapchainKHR)               \
    X(GetSwapchainImagesKHR) X(AcquireNextImageKHR) X(QueuePresentKHR) X(CreateSemaphore) X(DestroySemaphore)       \
    X(WaitSemaphores) X(CreateCommandPool) X(DestroyCommandPool) X(AllocateCommandBuffers)                          \
    X(BeginCommandBuffer) X(EndCommandBuffer) X(ResetCommandBuffer) X(CmdPipelineBarrier2) X(CmdClearColorImage)    \
    X(CmdBlitImage2) X(QueueSubmit2)

#define DECLARE(name) PFN_vk##name name;
static struct {
    PFN_vkGetInstanceProcAddr GetInstanceProcAddr;
    GLOBAL_FNS(DECLARE) INSTANCE_FNS(DECLARE) DEBUG_FNS(DECLARE) DEVICE_FNS(DECLARE)
} vk;

/* ---- state ---- */

typedef struct options {
    const char *trace;
    uint32_t scale;              /* initial window size in 3DS screens */
    pvk_output_layout layout;
    pvk_output_filter filter;
    bool paused;
    uint32_t stop_frame;         /* --frames: pause after this frame (1 = the first) */
    const char *screenshot;      /* --screenshot: the expected window contents as PNG */
} options;

/* Where one screen was drawn in the window in the last present. */
typedef struct placed {
    bool shown;
    VkRect2D rect;
} placed;

typedef struct viewer {
    options opt;
    SDL_Window *window;
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    unsigned validation_messages;
    VkSurfaceKHR surface;
    VkPhysicalDevice phys;
    VkDevice device;
    uint32_t queue_family;
    VkQueue queue;
    /* What picavk wants of the instance and device (pvk_host_vulkan_needs),
     * per entry: the instance or device has it, and it is enabled */
    const pvk_vulkan_need *needs;
    uint32_t n_needs;
    bool need_have[MAX_NEEDS], need_use[MAX_NEEDS];

    VkSwapchainKHR swapchain;
    VkFormat swap_format;
    VkExtent2D extent;
    VkPresentModeKHR present_mode;
    uint32_t n_images;
    VkImage images[MAX_SWAPCHAIN_IMAGES];
    VkSemaphore rendered[MAX_SWAPCHAIN_IMAGES]; /* per image: its blits finished, present may start */
    bool swapchain_stale;

    VkCommandPool pool;
    VkCommandBuffer cmd[FRAMES_IN_FLIGHT];
    VkSemaphore acquired[FRAMES_IN_FLIGHT];     /* per slot: the swapchain image may be written */
    uint64_t slot_value[FRAMES_IN_FLIGHT];      /* `timeline` value of the slot's last submit */
    VkSemaphore timeline;                       /* the host's: counts finished submits */
    uint64_t submits;

    pvk_context *ctx;
    pvk_output_config out;
    placed screens[PVK_SCREEN_COUNT];           /* of the last present */
    VkExtent2D content_1x;                      /* the last frame's layout at scale 1 */

    uint32_t frame;                             /* frames replayed so far */
    bool paused, step, quit, ended, redraw;
    double next_ns;                             /* when the next frame is due */
} viewer;

static const char *const layout_names[] = {"separate", "stacked", "side-by-side"};
static const char *const filter_names[] = {"nearest", "linear"};

static bool vk_ok(VkResult r, const char *what)
{
    if (r == VK_SUCCESS)
        return true;
    fprintf(stderr, "viewer: %s failed (VkResult %d)\n", what, (int)r);
    return false;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ---- instance ---- */

static VKAPI_ATTR VkBool32 VKAPI_CALL on_validation(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                    VkDebugUtilsMessageTypeFlagsEXT type,
                                                    const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    viewer *v = user;
    (void)severity;
    (void)type;
    v->validation_messages++;
    fprintf(stderr, "viewer: validation: %s\n", data->pMessage ? data->pMessage : "(no text)");
    return VK_FALSE;
}

static bool layer_available(const char *name)
{
    uint32_t n = 0;
    vk.EnumerateInstanceLayerProperties(&n, NULL);
    VkLayerProperties *props = calloc(n ? n : 1, sizeof *props);
    bool found = false;
    if (props && vk.EnumerateInstanceLayerProperties(&n, props) == VK_SUCCESS)
        for (uint32_t i = 0; i < n; i++)
            found |= !strcmp(props[i].layerName, name);
    free(props);
    return found;
}

/* An instance with the extensions SDL needs for this window's surface, plus,
 * when PVK_VALIDATION is set, the Khronos validation layer and a messenger
 * that counts its messages (picavk does this itself only when headless). */
static bool create_instance(viewer *v)
{
    vk.GetInstanceProcAddr = (PFN_vkGetInstanceProcAddr)SDL_Vulkan_GetVkGetInstanceProcAddr();
    if (!vk.GetInstanceProcAddr) {
        fprintf(stderr, "viewer: no Vulkan loader: %s\n", SDL_GetError());
        return false;
    }
#define LOAD_GLOBAL(name) vk.name = (PFN_vk##name)vk.GetInstanceProcAddr(NULL, "vk" #name);
    GLOBAL_FNS(LOAD_GLOBAL)

    const char *env = getenv("PVK_VALIDATION");
    bool validation = env && *env && strcmp(env, "0") != 0;
    const char *layers[] = {"VK_LAYER_KHRONOS_validation"};
    if (validation && !layer_available(layers[0])) {
        fprintf(stderr, "viewer: PVK_VALIDATION is set but VK_LAYER_KHRONOS_validation is not installed\n");
        return false;
    }
    unsigned n_sdl = 0;
    if (!SDL_Vulkan_GetInstanceExtensions(v->window, &n_sdl, NULL)) {
        fprintf(stderr, "viewer: SDL_Vulkan_GetInstanceExtensions: %s\n", SDL_GetError());
        return false;
    }
    const char **exts = calloc(n_sdl + 1, sizeof *exts);
    if (!exts)
        return false;
    SDL_Vulkan_GetInstanceExtensions(v->window, &n_sdl, exts);
    uint32_t n_exts = n_sdl;
    /* picavk's instance extensions, all optional (VK_EXT_debug_utils: names
     * and labels in RenderDoc; the validation messenger needs it too) */
    if (pvk_host_vulkan_needs(&v->needs, &v->n_needs) || v->n_needs > MAX_NEEDS)
        return free(exts), false;
    uint32_t n_avail = 0;
    vk.EnumerateInstanceExtensionProperties(NULL, &n_avail, NULL);
    VkExtensionProperties *avail = calloc(n_avail ? n_avail : 1, sizeof *avail);
    if (!avail || vk.EnumerateInstanceExtensionProperties(NULL, &n_avail, avail) != VK_SUCCESS)
        return free(exts), free(avail), false;
    bool debug_utils = false;
    for (uint32_t i = 0; i < v->n_needs; i++) {
        if (v->needs[i].kind != PVK_NEED_INSTANCE_EXTENSION)
            continue;
        for (uint32_t k = 0; k < n_avail; k++)
            v->need_have[i] |= !strcmp(avail[k].extensionName, v->needs[i].name);
        if (v->need_have[i]) {
            const char **grown = realloc(exts, (n_exts + 2) * sizeof *exts);
            if (!grown)
                return free(exts), free(avail), false;
            exts = grown;
            exts[n_exts++] = v->needs[i].name;
            debug_utils |= !strcmp(v->needs[i].name, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
        }
    }
    free(avail);
    if (validation && !debug_utils)
        exts[n_exts++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME; /* fails below with a message */

    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "picavk viewer",
        .apiVersion = PVK_VULKAN_API_VERSION,
    };
    VkDebugUtilsMessengerCreateInfoEXT mci = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
        .pfnUserCallback = on_validation,
        .pUserData = v,
    };
    VkInstanceCreateInfo ici = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pNext = validation ? &mci : NULL, /* also reports vkCreateInstance/vkDestroyInstance */
        .pApplicationInfo = &app,
        .enabledLayerCount = validation ? 1 : 0,
        .ppEnabledLayerNames = layers,
        .enabledExtensionCount = n_exts,
        .ppEnabledExtensionNames = exts,
    };
    bool ok = vk_ok(vk.CreateInstance(&ici, NULL, &v->instance), "vkCreateInstance");
    free(exts);
    if (!ok)
        return false;
#define LOAD_INSTANCE(name) vk.name = (PFN_vk##name)vk.GetInstanceProcAddr(v->instance, "vk" #name);
    INSTANCE_FNS(LOAD_INSTANCE)
    if (validation) {
        DEBUG_FNS(LOAD_INSTANCE)
        if (!vk_ok(vk.CreateDebugUtilsMessengerEXT(v->instance, &mci, NULL, &v->messenger),
                   "vkCreateDebugUtilsMessengerEXT"))
            return false;
    }
    if (!SDL_Vulkan_CreateSurface(v->window, v->instance, &v->surface)) {
        fprintf(stderr, "viewer: SDL_Vulkan_CreateSurface: %s\n", SDL_GetError());
        return false;
    }
    return true;
}

/* ---- device ---- */

static bool has_extension(const VkExtensionProperties *props, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(props[i].extensionName, name))
            return true;
    return false;
}

/* The feature structs picavk's needs name (pvk_vulkan_need.feature_struct),
 * chained for query and for device creation; an entry naming another struct
 * counts as missing. */
typedef struct features {
    VkPhysicalDeviceFeatures2 f2;
    VkPhysicalDeviceVulkan11Features v11;
    VkPhysicalDeviceVulkan12Features v12;
    VkPhysicalDeviceVulkan13Features v13;
    VkPhysicalDeviceCustomBorderColorFeaturesEXT cbc;
    VkPhysicalDeviceRasterizationOrderAttachmentAccessFeaturesEXT roa;
} features;

/* Link the core structs, and an extension's struct where `ext_ok` says its
 * extension is there (to query) or enabled (to create): a struct of an
 * extension the device lacks must not be chained. */
static void features_init(features *f, bool (*ext_ok)(const viewer *, VkStructureType, const bool *), const viewer *v,
                          const bool *ext)
{
    memset(f, 0, sizeof *f);
    f->f2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    f->v11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
    f->v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    f->v13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
    f->cbc.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_CUSTOM_BORDER_COLOR_FEATURES_EXT;
    f->roa.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RASTERIZATION_ORDER_ATTACHMENT_ACCESS_FEATURES_EXT;
    VkBaseOutStructure *chain[] = {(void *)&f->v11, (void *)&f->v12, (void *)&f->v13, (void *)&f->cbc, (void *)&f->roa};
    VkBaseOutStructure *tail = (VkBaseOutStructure *)&f->f2;
    for (size_t i = 0; i < sizeof chain / sizeof chain[0]; i++)
        if (i < 3 || ext_ok(v, chain[i]->sType, ext))
            tail = tail->pNext = chain[i];
}

static VkBool32 *feature_member(features *f, const pvk_vulkan_need *n)
{
    for (VkBaseOutStructure *s = (VkBaseOutStructure *)&f->f2; s; s = s->pNext)
        if (s->sType == n->feature_struct)
            return (VkBool32 *)((char *)s + n->feature_offset);
    return NULL;
}

/* An extension feature struct belongs to the device extension of its group
 * (pvk_vulkan_need.host_flag); `ext` says per entry whether that extension
 * counts (there, or enabled). */
static bool group_ext(const viewer *v, VkStructureType t, const bool *ext)
{
    for (uint32_t i = 0; i < v->n_needs; i++)
        if (v->needs[i].feature_struct == t)
            for (uint32_t j = 0; j < v->n_needs; j++)
                if (v->needs[j].kind == PVK_NEED_DEVICE_EXTENSION && v->needs[j].host_flag == v->needs[i].host_flag &&
                    ext[j])
                    return true;
    return false;
}

/* Which of picavk's device extensions and features `pd` has (have[]), and
 * whether that is every required one. */
static bool probe_needs(const viewer *v, VkPhysicalDevice pd, const VkExtensionProperties *ext, uint32_t n_ext,
                        bool *have)
{
    for (uint32_t i = 0; i < v->n_needs; i++)
        if (v->needs[i].kind == PVK_NEED_DEVICE_EXTENSION) {
            have[i] = false;
            for (uint32_t k = 0; k < n_ext; k++)
                have[i] |= !strcmp(ext[k].extensionName, v->needs[i].name);
        } else if (v->needs[i].kind == PVK_NEED_INSTANCE_EXTENSION) {
            have[i] = v->need_have[i]; /* create_instance found it */
        }
    features f;
    features_init(&f, group_ext, v, have);
    vk.GetPhysicalDeviceFeatures2(pd, &f.f2);
    bool ok = true;
    for (uint32_t i = 0; i < v->n_needs; i++) {
        if (v->needs[i].kind == PVK_NEED_FEATURE) {
            const VkBool32 *m = feature_member(&f, &v->needs[i]);
            have[i] = m && *m;
        }
        ok &= have[i] || !v->needs[i].required;
    }
    return ok;
}

static VkExtensionProperties *device_extensions(VkPhysicalDevice pd, uint32_t *n)
{
    *n = 0;
    vk.EnumerateDeviceExtensionProperties(pd, NULL, n, NULL);
    VkExtensionProperties *ext = calloc(*n ? *n : 1, sizeof *ext);
    if (ext && vk.EnumerateDeviceExtensionProperties(pd, NULL, n, ext) != VK_SUCCESS)
        *n = 0;
    return ext;
}

/* Can this device run picavk and present to our surface?  Sets the queue
 * family (graphics + compute + present: picavk and the host share one queue). */
static bool device_suitable(viewer *v, VkPhysicalDevice pd, uint32_t *family)
{
    VkPhysicalDeviceProperties props;
    vk.GetPhysicalDeviceProperties(pd, &props);
    if (props.apiVersion < PVK_VULKAN_API_VERSION)
        return false;

    uint32_t n;
    VkExtensionProperties *ext = device_extensions(pd, &n);
    bool have[MAX_NEEDS];
    bool ok = ext && has_extension(ext, n, VK_KHR_SWAPCHAIN_EXTENSION_NAME) && probe_needs(v, pd, ext, n, have);
    free(ext);
    if (!ok)
        return false;

    /* the swapchain images are written with vkCmdBlitImage2 */
    VkFormatProperties fp;
    vk.GetPhysicalDeviceFormatProperties(pd, VK_FORMAT_R8G8B8A8_UNORM, &fp);
    if (!(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_BLIT_SRC_BIT))
        return false;

    uint32_t nq = 0;
    vk.GetPhysicalDeviceQueueFamilyProperties(pd, &nq, NULL);
    VkQueueFamilyProperties q[32];
    if (nq > 32)
        nq = 32;
    vk.GetPhysicalDeviceQueueFamilyProperties(pd, &nq, q);
    for (uint32_t i = 0; i < nq; i++) {
        VkBool32 present = VK_FALSE;
        vk.GetPhysicalDeviceSurfaceSupportKHR(pd, i, v->surface, &present);
        if (present && (q[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) && (q[i].queueFlags & VK_QUEUE_COMPUTE_BIT)) {
            *family = i;
            return true;
        }
    }
    return false;
}

static int type_rank(VkPhysicalDeviceType t)
{
    return t == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ? 3 : t == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ? 2
         : t == VK_PHYSICAL_DEVICE_TYPE_CPU ? 0 : 1;
}

/* Pick a device (a GPU before a CPU driver such as lavapipe; PVK_DEVICE=<part
 * of the name> forces one, as for picavk headless) and create it with what
 * picavk needs, every optional group of pvk_host_vulkan_needs the device
 * has whole (each turns on a part of picavk: its `gives`), and what the host
 * itself uses (VK_KHR_swapchain). */
static bool create_device(viewer *v)
{
    uint32_t n = 0;
    vk.EnumeratePhysicalDevices(v->instance, &n, NULL);
    VkPhysicalDevice devs[16];
    if (n > 16)
        n = 16;
    vk.EnumeratePhysicalDevices(v->instance, &n, devs);
    const char *want = getenv("PVK_DEVICE");
    int best = -1, best_rank = -1;
    for (uint32_t i = 0; i < n; i++) {
        VkPhysicalDeviceProperties p;
        vk.GetPhysicalDeviceProperties(devs[i], &p);
        uint32_t family;
        if ((want && *want && !strstr(p.deviceName, want)) || !device_suitable(v, devs[i], &family))
            continue;
        if (type_rank(p.deviceType) > best_rank) {
            best = (int)i;
            best_rank = type_rank(p.deviceType);
            v->queue_family = family;
        }
    }
    if (best < 0) {
        fprintf(stderr, "viewer: no Vulkan 1.3 device with what picavk needs and presentation to the window\n");
        return false;
    }
    v->phys = devs[best];

    /* An optional group is used when the device has all of it. */
    uint32_t n_ext;
    VkExtensionProperties *ext = device_extensions(v->phys, &n_ext);
    if (!ext)
        return false;
    probe_needs(v, v->phys, ext, n_ext, v->need_have);
    free(ext);
    const char *exts[MAX_NEEDS + 1] = {VK_KHR_SWAPCHAIN_EXTENSION_NAME};
    uint32_t n_exts = 1;
    for (uint32_t i = 0; i < v->n_needs; i++) {
        bool whole = true;
        for (uint32_t j = 0; j < v->n_needs; j++)
            if (v->needs[j].host_flag == v->needs[i].host_flag)
                whole &= v->need_have[j];
        v->need_use[i] = v->needs[i].required || whole;
        if (v->need_use[i] && v->needs[i].kind == PVK_NEED_DEVICE_EXTENSION)
            exts[n_exts++] = v->needs[i].name;
    }
    features f;
    features_init(&f, group_ext, v, v->need_use);
    for (uint32_t i = 0; i < v->n_needs; i++)
        if (v->need_use[i] && v->needs[i].kind == PVK_NEED_FEATURE)
            *feature_member(&f, &v->needs[i]) = VK_TRUE;
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = v->queue_family,
        .queueCount = 1,
        .pQueuePriorities = &prio,
    };
    VkDeviceCreateInfo dci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = &f.f2,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &qci,
        .enabledExtensionCount = n_exts,
        .ppEnabledExtensionNames = exts,
    };
    if (!vk_ok(vk.CreateDevice(v->phys, &dci, NULL, &v->device), "vkCreateDevice"))
        return false;
#define LOAD_DEVICE(name) vk.name = (PFN_vk##name)vk.GetDeviceProcAddr(v->device, "vk" #name);
    DEVICE_FNS(LOAD_DEVICE)
    vk.GetDeviceQueue(v->device, v->queue_family, 0, &v->queue);

    /* per-frame objects: a command buffer and an acquire semaphore for each
     * frame in flight, and one timeline semaphore counting finished submits */
    VkCommandPoolCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
        .queueFamilyIndex = v->queue_family,
    };
    VkCommandBufferAllocateInfo cai = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = FRAMES_IN_FLIGHT,
    };
    VkSemaphoreTypeCreateInfo tci = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
        .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
    };
    VkSemaphoreCreateInfo timeline_ci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &tci};
    VkSemaphoreCreateInfo binary_ci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    if (!vk_ok(vk.CreateCommandPool(v->device, &pci, NULL, &v->pool), "vkCreateCommandPool"))
        return false;
    cai.commandPool = v->pool;
    if (!vk_ok(vk.AllocateCommandBuffers(v->device, &cai, v->cmd), "vkAllocateCommandBuffers") ||
        !vk_ok(vk.CreateSemaphore(v->device, &timeline_ci, NULL, &v->timeline), "vkCreateSemaphore"))
        return false;
    for (int i = 0; i < FRAMES_IN_FLIGHT; i++)
        if (!vk_ok(vk.CreateSemaphore(v->device, &binary_ci, NULL, &v->acquired[i]), "vkCreateSemaphore"))
            return false;
    return true;
}

/* ---- swapchain ---- */

static void destroy_swapchain_semaphores(viewer *v)
{
    for (uint32_t i = 0; i < MAX_SWAPCHAIN_IMAGES; i++)
        if (v->rendered[i]) {
            vk.DestroySemaphore(v->device, v->rendered[i], NULL);
            v->rendered[i] = VK_NULL_HANDLE;
        }
}

/* (Re)create the swapchain at the window's size.  The images are written
 * only by transfers (clear, blit), so TRANSFER_DST is the only usage; the
 * format is UNORM because picavk's pixels are already display values. */
static bool create_swapchain(viewer *v)
{
    VkSurfaceCapabilitiesKHR caps;
    if (!vk_ok(vk.GetPhysicalDeviceSurfaceCapabilitiesKHR(v->phys, v->surface, &caps),
               "vkGetPhysicalDeviceSurfaceCapabilitiesKHR"))
        return false;
    if (!(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT)) {
        fprintf(stderr, "viewer: the surface's images cannot be transfer destinations\n");
        return false;
    }
    VkExtent2D extent = caps.currentExtent;
    if (extent.width == UINT32_MAX) {
        int w, h;
        SDL_Vulkan_GetDrawableSize(v->window, &w, &h);
        extent.width = SDL_clamp((uint32_t)w, caps.minImageExtent.width, caps.maxImageExtent.width);
        extent.height = SDL_clamp((uint32_t)h, caps.minImageExtent.height, caps.maxImageExtent.height);
    }
    vk.DeviceWaitIdle(v->device); /* nothing may still use the old images or semaphores */
    destroy_swapchain_semaphores(v);
    v->extent = extent;
    v->swapchain_stale = false;
    if (!extent.width || !extent.height) { /* minimized: nothing to present to */
        if (v->swapchain)
            vk.DestroySwapchainKHR(v->device, v->swapchain, NULL);
        v->swapchain = VK_NULL_HANDLE;
        return true;
    }

    uint32_t n = 0;
    vk.GetPhysicalDeviceSurfaceFormatsKHR(v->phys, v->surface, &n, NULL);
    VkSurfaceFormatKHR formats[64];
    if (n > 64)
        n = 64;
    vk.GetPhysicalDeviceSurfaceFormatsKHR(v->phys, v->surface, &n, formats);
    VkSurfaceFormatKHR format = {VK_FORMAT_UNDEFINED, VK_COLOR_SPACE_SRGB_NONLINEAR_KHR};
    for (uint32_t i = 0; i < n; i++) {
        VkFormatProperties fp;
        vk.GetPhysicalDeviceFormatProperties(v->phys, formats[i].format, &fp);
        if ((formats[i].format == VK_FORMAT_B8G8R8A8_UNORM || formats[i].format == VK_FORMAT_R8G8B8A8_UNORM) &&
            (fp.optimalTilingFeatures & VK_FORMAT_FEATURE_BLIT_DST_BIT)) {
            format = formats[i];
            break;
        }
    }
    if (format.format == VK_FORMAT_UNDEFINED) {
        fprintf(stderr, "viewer: the surface offers no 8-bit UNORM format\n");
        return false;
    }

    /* MAILBOX never blocks the 59.83 Hz pacing on the display's refresh; FIFO
     * is always there */
    VkPresentModeKHR modes[16];
    n = 16;
    vk.GetPhysicalDeviceSurfacePresentModesKHR(v->phys, v->surface, &n, modes);
    v->present_mode = VK_PRESENT_MODE_FIFO_KHR;
    for (uint32_t i = 0; i < n; i++)
        if (modes[i] == VK_PRESENT_MODE_MAILBOX_KHR)
            v->present_mode = modes[i];

    uint32_t count = caps.minImageCount + 1;
    if (caps.maxImageCount && count > caps.maxImageCount)
        count = caps.maxImageCount;
    VkSwapchainKHR old = v->swapchain;
    VkSwapchainCreateInfoKHR sci = {
        .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
        .surface = v->surface,
        .minImageCount = count,
        .imageFormat = format.format,
        .imageColorSpace = format.colorSpace,
        .imageExtent = extent,
        .imageArrayLayers = 1,
        .imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT,
        .imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
        .preTransform = caps.currentTransform,
        .compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
        .presentMode = v->present_mode,
        .clipped = VK_TRUE,
        .oldSwapchain = old,
    };
    bool ok = vk_ok(vk.CreateSwapchainKHR(v->device, &sci, NULL, &v->swapchain), "vkCreateSwapchainKHR");
    if (old)
        vk.DestroySwapchainKHR(v->device, old, NULL);
    if (!ok) {
        v->swapchain = VK_NULL_HANDLE;
        return false;
    }
    v->swap_format = format.format;
    v->n_images = MAX_SWAPCHAIN_IMAGES;
    if (!vk_ok(vk.GetSwapchainImagesKHR(v->device, v->swapchain, &v->n_images, v->images), "vkGetSwapchainImagesKHR"))
        return false;
    VkSemaphoreCreateInfo binary_ci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    for (uint32_t i = 0; i < v->n_images; i++)
        if (!vk_ok(vk.CreateSemaphore(v->device, &binary_ci, NULL, &v->rendered[i]), "vkCreateSemaphore"))
            return false;
    return true;
}

/* ---- picavk ---- */

static bool create_picavk(viewer *v)
{
    pvk_host_vulkan hv = {
        .get_instance_proc_addr = vk.GetInstanceProcAddr,
        .instance = v->instance,
        .physical_device = v->phys,
        .device = v->device,
        .queue = v->queue,
        .queue_family = v->queue_family,
    };
    /* each optional group the device was created with: its flag */
    fprintf(stderr, "viewer: enabled for picavk beyond its requirements:");
    for (uint32_t i = 0; i < v->n_needs; i++)
        if (v->need_use[i] && !v->needs[i].required) {
            *(int *)((char *)&hv + v->needs[i].host_flag) = 1;
            fprintf(stderr, " %s", v->needs[i].name);
        }
    fprintf(stderr, "\n");
    pvk_config cfg = {.host_vulkan = &hv}; /* log to stderr, no IRQ callback: a replay needs none */
    pvk_result r = pvk_context_create(&cfg, &v->ctx);
    if (r) {
        fprintf(stderr, "viewer: pvk_context_create: %s\n", pvk_result_string(r));
        return false;
    }
    /* The images come in TRANSFER_SRC_OPTIMAL, ready for vkCmdBlitImage2.  A
     * host that samples them in a shader keeps the default,
     * SHADER_READ_ONLY_OPTIMAL. */
    v->out = (pvk_output_config){
        .scale = v->opt.scale,
        .layout = v->opt.layout,
        .filter = v->opt.filter,
        .image_layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
    };
    r = pvk_set_output(v->ctx, &v->out);
    if (r)
        fprintf(stderr, "viewer: pvk_set_output: %s\n", pvk_result_string(r));
    return r == PVK_SUCCESS;
}

/* ---- drawing ---- */

/* One image to draw: `src` of `image` goes to `dst` in content space (the
 * frame's layout at picavk's output scale). */
typedef struct blit_item {
    const pvk_frame_image *image;
    VkRect2D dst;
} blit_item;

/* The frame's layout.  STACKED and SIDE_BY_SIDE come as one `combined` image
 * with each screen's rectangle in `rects`; SEPARATE gives only the screens,
 * which the viewer places itself: the top screen (and its right eye, in 3D,
 * beside it), the bottom screen centred below.  Returns the item count and
 * the content size; `screens` gets each screen's rectangle. */
static int frame_layout(const pvk_frame *f, blit_item items[PVK_SCREEN_COUNT], VkRect2D screens[PVK_SCREEN_COUNT],
                        VkExtent2D *content)
{
    memset(screens, 0, sizeof(VkRect2D) * PVK_SCREEN_COUNT);
    if (f->combined.image) {
        items[0] = (blit_item){&f->combined, {{0, 0}, f->combined.extent}};
        for (int i = 0; i < PVK_SCREEN_COUNT; i++)
            screens[i] = f->rects[i]; /* the right eye has none: not shown */
        *content = f->combined.extent;
        return 1;
    }
    const VkExtent2D top = f->screens[PVK_SCREEN_TOP].extent, right = f->screens[PVK_SCREEN_TOP_RIGHT].extent,
                     bottom = f->screens[PVK_SCREEN_BOTTOM].extent;
    uint32_t top_w = top.width + right.width;
    content->width = top_w > bottom.width ? top_w : bottom.width;
    content->height = (top.height > right.height ? top.height : right.height) + bottom.height;
    screens[PVK_SCREEN_TOP] = (VkRect2D){{(int32_t)(content->width - top_w) / 2, 0}, top};
    screens[PVK_SCREEN_TOP_RIGHT] = (VkRect2D){{screens[PVK_SCREEN_TOP].offset.x + (int32_t)top.width, 0}, right};
    screens[PVK_SCREEN_BOTTOM] =
        (VkRect2D){{(int32_t)(content->width - bottom.width) / 2, (int32_t)(content->height - bottom.height)}, bottom};
    int n = 0;
    for (int i = 0; i < PVK_SCREEN_COUNT; i++)
        if (f->screens[i].image)
            items[n++] = (blit_item){&f->screens[i], screens[i]};
    return n;
}

/* Content space to the window: 1:1 and centred when it fits (picavk already
 * scaled it by an integer), else shrunk to fit, keeping the aspect ratio. */
typedef struct fit {
    double k;
    int32_t x, y;
} fit;

static fit fit_content(VkExtent2D content, VkExtent2D window)
{
    double k = 1.0;
    if (content.width > window.width || content.height > window.height) {
        double kx = (double)window.width / content.width, ky = (double)window.height / content.height;
        k = kx < ky ? kx : ky;
    }
    fit t = {k, 0, 0};
    t.x = ((int32_t)window.width - (int32_t)floor(content.width * k)) / 2;
    t.y = ((int32_t)window.height - (int32_t)floor(content.height * k)) / 2;
    return t;
}

static VkRect2D fit_rect(fit t, VkRect2D r)
{
    int32_t x0 = t.x + (int32_t)floor(r.offset.x * t.k), y0 = t.y + (int32_t)floor(r.offset.y * t.k);
    int32_t x1 = t.x + (int32_t)floor((r.offset.x + r.extent.width) * t.k);
    int32_t y1 = t.y + (int32_t)floor((r.offset.y + r.extent.height) * t.k);
    return (VkRect2D){{x0, y0}, {(uint32_t)(x1 - x0), (uint32_t)(y1 - y0)}};
}

static void image_barrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to,
                          VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access, VkPipelineStageFlags2 dst_stage,
                          VkAccessFlags2 dst_access)
{
    VkImageMemoryBarrier2 b = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
        .srcStageMask = src_stage,
        .srcAccessMask = src_access,
        .dstStageMask = dst_stage,
        .dstAccessMask = dst_access,
        .oldLayout = from,
        .newLayout = to,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .image = image,
        .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1},
    };
    VkDependencyInfo dep = {
        .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
        .imageMemoryBarrierCount = 1,
        .pImageMemoryBarriers = &b,
    };
    vk.CmdPipelineBarrier2(cmd, &dep);
}

/* Record: clear the swapchain image, blit the frame's images into it, hand it
 * to presentation.  Remembers where each screen went (for --screenshot). */
static void record(viewer *v, VkCommandBuffer cmd, VkImage target, const pvk_frame *f)
{
    image_barrier(cmd, target, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                  VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, 0, /* after the acquire semaphore's wait */
                  VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    VkClearColorValue black = {.float32 = {0, 0, 0, 1}};
    VkImageSubresourceRange all = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vk.CmdClearColorImage(cmd, target, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &black, 1, &all);
    image_barrier(cmd, target, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                  VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);

    memset(v->screens, 0, sizeof v->screens);
    if (f->frame) {
        blit_item items[PVK_SCREEN_COUNT];
        VkRect2D screens[PVK_SCREEN_COUNT];
        VkExtent2D content;
        int n = frame_layout(f, items, screens, &content);
        fit t = fit_content(content, v->extent);
        /* shrinking uses the chosen filter; 1:1 copies are exact either way */
        VkFilter filter = v->out.filter == PVK_FILTER_LINEAR ? VK_FILTER_LINEAR : VK_FILTER_NEAREST;
        for (int i = 0; i < n; i++) {
            VkRect2D d = fit_rect(t, items[i].dst);
            if (!d.extent.width || !d.extent.height)
                continue;
            VkImageBlit2 region = {
                .sType = VK_STRUCTURE_TYPE_IMAGE_BLIT_2,
                .srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                .srcOffsets = {{0, 0, 0},
                               {(int32_t)items[i].image->extent.width, (int32_t)items[i].image->extent.height, 1}},
                .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                .dstOffsets = {{d.offset.x, d.offset.y, 0},
                               {d.offset.x + (int32_t)d.extent.width, d.offset.y + (int32_t)d.extent.height, 1}},
            };
            VkBlitImageInfo2 bi = {
                .sType = VK_STRUCTURE_TYPE_BLIT_IMAGE_INFO_2,
                .srcImage = items[i].image->image,
                .srcImageLayout = items[i].image->layout, /* as pvk_output_config.image_layout asked */
                .dstImage = target,
                .dstImageLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                .regionCount = 1,
                .pRegions = &region,
                .filter = filter,
            };
            vk.CmdBlitImage2(cmd, &bi);
        }
        for (int i = 0; i < PVK_SCREEN_COUNT; i++)
            if (screens[i].extent.width) {
                v->screens[i].shown = true;
                v->screens[i].rect = fit_rect(t, screens[i]);
            }
        uint32_t s = v->out.scale ? v->out.scale : 1;
        v->content_1x = (VkExtent2D){content.width / s, content.height / s};
    }
    image_barrier(cmd, target, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
                  VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_2_NONE, 0); /* the `rendered` semaphore orders the present */
}

/* Show picavk's newest frame: one acquire-record-submit-release-present. */
static bool present(viewer *v)
{
    if (v->swapchain_stale && !create_swapchain(v))
        return false;
    if (!v->swapchain)
        return true; /* minimized */

    /* Reuse this slot's command buffer and acquire semaphore once the GPU
     * finished the submit that last used them. */
    int slot = (int)(v->submits % FRAMES_IN_FLIGHT);
    VkSemaphoreWaitInfo wi = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
        .semaphoreCount = 1,
        .pSemaphores = &v->timeline,
        .pValues = &v->slot_value[slot],
    };
    if (!vk_ok(vk.WaitSemaphores(v->device, &wi, UINT64_MAX), "vkWaitSemaphores"))
        return false;

    uint32_t index;
    VkResult vr = vk.AcquireNextImageKHR(v->device, v->swapchain, UINT64_MAX, v->acquired[slot], VK_NULL_HANDLE,
                                         &index);
    if (vr == VK_ERROR_OUT_OF_DATE_KHR) {
        v->swapchain_stale = true; /* resized: the next present recreates it */
        return true;
    }
    if (vr == VK_SUBOPTIMAL_KHR)
        v->swapchain_stale = true; /* still presentable; recreate afterwards */
    else if (!vk_ok(vr, "vkAcquireNextImageKHR"))
        return false;

    /* picavk's newest frame: images plus the timeline value they are done at */
    pvk_frame f;
    pvk_result r = pvk_frame_acquire(v->ctx, &f);
    if (r) {
        fprintf(stderr, "viewer: pvk_frame_acquire: %s\n", pvk_result_string(r));
        return false;
    }
    /* One shared queue here, so the images need no queue family transfer;
     * a host drawing on another family would add an ownership transfer. */
    if (f.frame && f.queue_family != v->queue_family)
        fprintf(stderr, "viewer: picavk's images belong to queue family %u, ours is %u\n", f.queue_family,
                v->queue_family);

    VkCommandBuffer cmd = v->cmd[slot];
    VkCommandBufferBeginInfo begin = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };
    vk.ResetCommandBuffer(cmd, 0);
    vk.BeginCommandBuffer(cmd, &begin);
    record(v, cmd, v->images[index], &f);
    vk.EndCommandBuffer(cmd);

    uint64_t value = ++v->submits;
    VkSemaphoreSubmitInfo waits[2] = {
        {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
         .semaphore = v->acquired[slot],
         .stageMask = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT},
        /* picavk's timeline: the blits read the images only once the VBlank's
         * scan-out and copies into them are done */
        {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
         .semaphore = f.semaphore,
         .value = f.value,
         .stageMask = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT},
    };
    VkSemaphoreSubmitInfo signals[2] = {
        {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
         .semaphore = v->rendered[index],
         .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT},
        {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
         .semaphore = v->timeline,
         .value = value,
         .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT},
    };
    VkCommandBufferSubmitInfo cbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = cmd};
    VkSubmitInfo2 si = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
        .waitSemaphoreInfoCount = f.frame ? 2 : 1, /* frame 0: no images, nothing to wait for */
        .pWaitSemaphoreInfos = waits,
        .commandBufferInfoCount = 1,
        .pCommandBufferInfos = &cbi,
        .signalSemaphoreInfoCount = 2,
        .pSignalSemaphoreInfos = signals,
    };
    bool ok = vk_ok(vk.QueueSubmit2(v->queue, 1, &si, VK_NULL_HANDLE), "vkQueueSubmit2");
    v->slot_value[slot] = value;

    /* Done with the frame as far as the CPU goes; picavk waits for our
     * timeline to reach `value` before it writes these images again. */
    r = pvk_frame_release(v->ctx, &f, ok ? v->timeline : VK_NULL_HANDLE, value);
    if (r) {
        fprintf(stderr, "viewer: pvk_frame_release: %s\n", pvk_result_string(r));
        ok = false;
    }
    if (!ok)
        return false;

    VkPresentInfoKHR pi = {
        .sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
        .waitSemaphoreCount = 1,
        .pWaitSemaphores = &v->rendered[index],
        .swapchainCount = 1,
        .pSwapchains = &v->swapchain,
        .pImageIndices = &index,
    };
    vr = vk.QueuePresentKHR(v->queue, &pi);
    if (vr == VK_ERROR_OUT_OF_DATE_KHR || vr == VK_SUBOPTIMAL_KHR)
        v->swapchain_stale = true;
    else if (!vk_ok(vr, "vkQueuePresentKHR"))
        return false;
    return true;
}

/* Pick picavk's integer output scale for the window: the largest that fits
 * (1..8).  Takes effect from the next VBlank. */
static void fit_scale(viewer *v)
{
    if (!v->content_1x.width || !v->content_1x.height || !v->extent.width)
        return;
    uint32_t sx = v->extent.width / v->content_1x.width, sy = v->extent.height / v->content_1x.height;
    uint32_t s = SDL_clamp(sx < sy ? sx : sy, 1u, 8u);
    if (s != v->out.scale) {
        v->out.scale = s;
        pvk_set_output(v->ctx, &v->out);
    }
}

/* The window size that shows `layout` at `scale` without borders (the 3DS's
 * 400x240 top and 320x240 bottom screens). */
static void layout_size(pvk_output_layout layout, uint32_t scale, int *w, int *h)
{
    *w = (int)(layout == PVK_LAYOUT_SIDE_BY_SIDE ? 720 : 400) * (int)scale;
    *h = (int)(layout == PVK_LAYOUT_SIDE_BY_SIDE ? 240 : 480) * (int)scale;
}

static void update_title(viewer *v)
{
    char title[256];
    const char *base = strrchr(v->opt.trace, '/');
    snprintf(title, sizeof title, "picavk viewer - %s - frame %u%s - %s, %s", base ? base + 1 : v->opt.trace, v->frame,
             v->ended ? " (end)" : v->paused ? " (paused)" : "", layout_names[v->out.layout],
             filter_names[v->out.filter]);
    SDL_SetWindowTitle(v->window, title);
}

/* ---- input ---- */

static void on_key(viewer *v, SDL_Keycode key)
{
    switch (key) {
    case SDLK_SPACE:
        v->paused = !v->paused;
        v->next_ns = 0; /* restart the frame clock */
        break;
    case SDLK_PERIOD:
    case SDLK_RIGHT:
        if (v->paused)
            v->step = true;
        break;
    case SDLK_l: {
        /* stacked -> side by side -> separate; like the filter, picavk applies
         * it from the next VBlank (step once to see it while paused) */
        static const pvk_output_layout next[] = {PVK_LAYOUT_SIDE_BY_SIDE, PVK_LAYOUT_STACKED, PVK_LAYOUT_SEPARATE};
        v->out.layout = next[v->out.layout == PVK_LAYOUT_SEPARATE ? 1 : v->out.layout == PVK_LAYOUT_STACKED ? 0 : 2];
        pvk_set_output(v->ctx, &v->out);
        int w, h;
        layout_size(v->out.layout, v->out.scale, &w, &h);
        SDL_SetWindowSize(v->window, w, h);
        break;
    }
    case SDLK_f:
        v->out.filter = v->out.filter == PVK_FILTER_NEAREST ? PVK_FILTER_LINEAR : PVK_FILTER_NEAREST;
        pvk_set_output(v->ctx, &v->out);
        break;
    case SDLK_q:
    case SDLK_ESCAPE:
        v->quit = true;
        break;
    default:
        return;
    }
    v->redraw = true;
}

/* Handle what is queued, waiting up to `wait_ms` for the first event. */
static void handle_events(viewer *v, int wait_ms)
{
    SDL_Event e;
    int got = wait_ms > 0 ? SDL_WaitEventTimeout(&e, wait_ms) : SDL_PollEvent(&e);
    while (got) {
        if (e.type == SDL_QUIT) /* also SIGINT / SIGTERM */
            v->quit = true;
        else if (e.type == SDL_KEYDOWN && !e.key.repeat)
            on_key(v, e.key.keysym.sym);
        else if (e.type == SDL_WINDOWEVENT &&
                 (e.window.event == SDL_WINDOWEVENT_SIZE_CHANGED || e.window.event == SDL_WINDOWEVENT_EXPOSED)) {
            v->swapchain_stale |= e.window.event == SDL_WINDOWEVENT_SIZE_CHANGED;
            v->redraw = true;
        }
        got = SDL_PollEvent(&e);
    }
}

/* ---- --screenshot ---- */

/* The window's expected contents, made from pvk_frame_read (picavk's CPU
 * copy of the scan-out) and where present() put each screen: black, with
 * each screen mapped in by nearest neighbour.  Alpha is 255: the window has
 * none.  With the nearest filter it matches the real window exactly when the
 * screens are shown 1:1 or magnified by an integer (picavk's output scale);
 * shrunk to fit a small window, drivers may round sample positions
 * differently. */
static bool write_expected(viewer *v, const char *path)
{
    uint32_t W = v->extent.width, H = v->extent.height;
    uint8_t *img = calloc((size_t)W * H, 4);
    if (!img)
        return false;
    for (size_t i = 0; i < (size_t)W * H; i++)
        img[i * 4 + 3] = 255;
    bool ok = true;
    for (int s = 0; s < PVK_SCREEN_COUNT && ok; s++) {
        if (!v->screens[s].shown)
            continue;
        uint32_t sw, sh;
        pvk_frame_size(v->ctx, (pvk_screen)s, &sw, &sh);
        uint8_t *px = malloc((size_t)sw * sh * 4);
        ok = px && pvk_frame_read(v->ctx, (pvk_screen)s, px, (size_t)sw * 4) == PVK_SUCCESS;
        VkRect2D r = v->screens[s].rect;
        for (uint32_t y = 0; ok && y < r.extent.height; y++)
            for (uint32_t x = 0; x < r.extent.width; x++) {
                uint32_t u = (uint32_t)(((uint64_t)x * 2 + 1) * sw / (2 * (uint64_t)r.extent.width));
                uint32_t w = (uint32_t)(((uint64_t)y * 2 + 1) * sh / (2 * (uint64_t)r.extent.height));
                int64_t dx = r.offset.x + (int64_t)x, dy = r.offset.y + (int64_t)y;
                if (dx < 0 || dy < 0 || dx >= W || dy >= H)
                    continue;
                memcpy(img + ((size_t)dy * W + (size_t)dx) * 4, px + ((size_t)w * sw + u) * 4, 3);
            }
        free(px);
    }
    /* written under another name and renamed: whoever waits for `path` never
     * sees half a file */
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    ok = ok && pvk_write_png(tmp, img, W, H, (size_t)W * 4) == PVK_SUCCESS && rename(tmp, path) == 0;
    free(img);
    if (!ok)
        fprintf(stderr, "viewer: cannot write %s\n", path);
    else
        printf("viewer: frame %u: wrote %s (%ux%u)\n", v->frame, path, W, H);
    fflush(stdout);
    return ok;
}

/* Frame N is on screen: write the expected image once the GPU finished it. */
static bool screenshot_now(viewer *v)
{
    if (!present(v)) /* again, so a present that MAILBOX replaced shows the same frame */
        return false;
    VkSemaphoreWaitInfo wi = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
        .semaphoreCount = 1,
        .pSemaphores = &v->timeline,
        .pValues = &v->submits,
    };
    vk_ok(vk.WaitSemaphores(v->device, &wi, UINT64_MAX), "vkWaitSemaphores");
    bool ok = write_expected(v, v->opt.screenshot);
    v->opt.screenshot = NULL;
    return ok;
}

/* While paused (or at the end of the trace): wait for input, redraw when the
 * window needs it.  Returns false on quit or an error. */
static bool hold(viewer *v)
{
    update_title(v);
    while (!v->quit && (v->paused || v->ended) && !(v->step && !v->ended)) {
        handle_events(v, 50);
        if (v->redraw) {
            v->redraw = false;
            update_title(v);
            if (!present(v))
                return false;
        }
    }
    return !v->quit;
}

/* ---- replay ---- */

/* pvk_trace_replay / pvk_citrace_replay call this after each replayed
 * pvk_vblank: present the frame, keep the 3DS's pace, handle input. */
static pvk_result on_frame(void *user, pvk_context *ctx, uint32_t index)
{
    viewer *v = user;
    (void)ctx;
    v->frame = index + 1;
    v->step = false;

    /* 59.83 Hz: wait for this frame's time; when late by more than two
     * frames (a slow device, a pause), restart the clock instead of racing */
    double now = now_ns();
    if (!v->next_ns || now > v->next_ns + 2 * FRAME_NS)
        v->next_ns = now;
    else if (v->next_ns > now) {
        double d = v->next_ns - now;
        struct timespec ts = {(time_t)(d / 1e9), (long)fmod(d, 1e9)};
        while (nanosleep(&ts, &ts) && errno == EINTR) {
        }
    }
    v->next_ns += FRAME_NS;

    if (!present(v))
        return PVK_ERROR_VULKAN;
    fit_scale(v);
    if (v->opt.stop_frame && v->frame == v->opt.stop_frame) {
        v->paused = true;
        if (v->opt.screenshot && !screenshot_now(v))
            return PVK_ERROR_IO;
    }
    handle_events(v, 0);
    if (!(v->frame % 15))
        update_title(v);
    if (v->paused && !hold(v))
        return PVK_ERROR_UNSUPPORTED; /* any non-success result stops the replay; v->quit tells why */
    return v->quit ? PVK_ERROR_UNSUPPORTED : PVK_SUCCESS;
}

static pvk_result replay(viewer *v)
{
    /* CiTrace files start with "CiTr"; anything else is read as a picavk trace */
    char magic[4] = {0};
    FILE *f = fopen(v->opt.trace, "rb");
    if (!f) {
        fprintf(stderr, "viewer: cannot open %s: %s\n", v->opt.trace, strerror(errno));
        return PVK_ERROR_IO;
    }
    if (fread(magic, 1, 4, f) != 4)
        magic[0] = 0;
    fclose(f);
    if (!memcmp(magic, "CiTr", 4))
        return pvk_citrace_replay(v->ctx, v->opt.trace, on_frame, v);
    return pvk_trace_replay(v->ctx, v->opt.trace, on_frame, v);
}

/* ---- main ---- */

static void destroy(viewer *v)
{
    if (v->device)
        vk.DeviceWaitIdle(v->device);
    pvk_context_destroy(v->ctx); /* before the device it borrowed */
    if (v->device) {
        destroy_swapchain_semaphores(v);
        if (v->swapchain)
            vk.DestroySwapchainKHR(v->device, v->swapchain, NULL);
        for (int i = 0; i < FRAMES_IN_FLIGHT; i++)
            if (v->acquired[i])
                vk.DestroySemaphore(v->device, v->acquired[i], NULL);
        if (v->timeline)
            vk.DestroySemaphore(v->device, v->timeline, NULL);
        if (v->pool)
            vk.DestroyCommandPool(v->device, v->pool, NULL);
        vk.DestroyDevice(v->device, NULL);
    }
    if (v->surface)
        vk.DestroySurfaceKHR(v->instance, v->surface, NULL);
    if (v->messenger)
        vk.DestroyDebugUtilsMessengerEXT(v->instance, v->messenger, NULL);
    if (v->instance)
        vk.DestroyInstance(v->instance, NULL);
    if (v->window)
        SDL_DestroyWindow(v->window);
    SDL_Quit();
}

static int usage(int status)
{
    fprintf(status ? stderr : stdout,
            "usage: picavk-viewer [options] TRACE.pvt|TRACE.ctf\n"
            "Replays a picavk trace or a Citra CiTrace at 59.83 Hz in a window.\n"
            "  --scale N          window size in 3DS screens (1-8, default 2)\n"
            "  --layout L         stacked (default), side-by-side or separate\n"
            "  --filter F         nearest (default) or linear\n"
            "  --paused           start paused\n"
            "  --frames N         pause after frame N (1 = the first)\n"
            "  --screenshot FILE  with --frames: once frame N is on screen, write the window's expected\n"
            "                     contents, made from pvk_frame_read, as a PNG\n"
            "keys: space pause, . or right arrow step while paused, L layout, F filter, Q/Esc quit\n"
            "environment: PVK_VALIDATION=1 (Khronos validation layer; exit status 1 on any message),\n"
            "             PVK_DEVICE=<part of a device name>\n");
    return status;
}

static bool parse(int argc, char **argv, options *o)
{
    *o = (options){.scale = 2, .layout = PVK_LAYOUT_STACKED, .filter = PVK_FILTER_NEAREST};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes = true;
        if (!strcmp(a, "--scale") && val)
            o->scale = (uint32_t)atoi(val);
        else if (!strcmp(a, "--layout") && val) {
            if (!strcmp(val, "stacked"))
                o->layout = PVK_LAYOUT_STACKED;
            else if (!strcmp(val, "side-by-side"))
                o->layout = PVK_LAYOUT_SIDE_BY_SIDE;
            else if (!strcmp(val, "separate"))
                o->layout = PVK_LAYOUT_SEPARATE;
            else
                return false;
        } else if (!strcmp(a, "--filter") && val) {
            if (!strcmp(val, "nearest") || !strcmp(val, "linear"))
                o->filter = strcmp(val, "linear") ? PVK_FILTER_NEAREST : PVK_FILTER_LINEAR;
            else
                return false;
        } else if (!strcmp(a, "--frames") && val)
            o->stop_frame = (uint32_t)atoi(val);
        else if (!strcmp(a, "--screenshot") && val)
            o->screenshot = val;
        else {
            takes = false;
            if (!strcmp(a, "--paused"))
                o->paused = true;
            else if (a[0] != '-' && !o->trace)
                o->trace = a;
            else
                return false;
        }
        i += takes;
    }
    return o->trace && o->scale >= 1 && o->scale <= 8 && (!o->screenshot || o->stop_frame);
}

int main(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
        return usage(0);
    viewer v = {0};
    if (!parse(argc, argv, &v.opt))
        return usage(2);
    v.paused = v.opt.paused;

    if (SDL_Init(SDL_INIT_VIDEO)) {
        fprintf(stderr, "viewer: SDL_Init: %s\n", SDL_GetError());
        return 1;
    }
    int w, h;
    layout_size(v.opt.layout, v.opt.scale, &w, &h);
    v.window = SDL_CreateWindow("picavk viewer", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, w, h,
                                SDL_WINDOW_VULKAN | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    if (!v.window) {
        fprintf(stderr, "viewer: SDL_CreateWindow: %s\n", SDL_GetError());
        destroy(&v);
        return 1;
    }
    int status = 1;
    if (create_instance(&v) && create_device(&v) && create_swapchain(&v) && create_picavk(&v)) {
        printf("viewer: %s, %ux%u swapchain, %s\n", pvk_device_name(v.ctx), v.extent.width, v.extent.height,
               v.present_mode == VK_PRESENT_MODE_MAILBOX_KHR ? "mailbox" : "fifo");
        fflush(stdout);
        update_title(&v);
        if (v.paused)
            v.redraw = true; /* frame 0: a black window until space */
        if (v.paused && !hold(&v))
            status = 0;
        else {
            pvk_result r = replay(&v);
            if (r && !v.quit)
                fprintf(stderr, "viewer: replay of %s: %s\n", v.opt.trace, pvk_result_string(r));
            else if (!v.quit) {
                /* the trace is over: keep showing its last frame */
                v.ended = true;
                if (v.opt.screenshot && !screenshot_now(&v))
                    r = PVK_ERROR_IO;
                else
                    hold(&v);
            }
            status = r && !v.quit ? 1 : 0;
        }
    }
    destroy(&v);
    if (v.validation_messages) {
        fprintf(stderr, "viewer: %u validation messages\n", v.validation_messages);
        status = 1;
    }
    return status;
}
