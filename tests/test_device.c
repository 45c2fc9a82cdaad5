/* Headless bring-up on lavapipe, the validation-message counter (a
 * deliberately invalid Vulkan call must be caught), feature detection, the
 * sticky device-lost error, embedded mode (a host's device, made from
 * pvk_host_vulkan_needs) and the run-time GLSL compiler. */
#include "draw_common.h" /* harness.h, the drawing helpers */
#include "runtime/runtime.h"
#include "shaders/shaders.h"

static void bringup(void)
{
    pvk_context *ctx = th_context(NULL, 0);
    CHECK(strlen(pvk_device_name(ctx)) > 0);
    printf("device: %s\n", pvk_device_name(ctx));
    pvk_features f;
    CHECK_EQ(pvk_get_features(ctx, &f), PVK_SUCCESS);
    CHECK(f.timeline_semaphore && f.push_descriptor && f.storage_buffer_8bit);
    CHECK(f.debug_utils); /* headless with validation: the instance has VK_EXT_debug_utils, passes get labels */
    if (strstr(pvk_device_name(ctx), "llvmpipe")) /* lavapipe has these (vulkaninfo) */
        CHECK(f.external_memory_host && f.logic_op && f.rasterization_order_attachment_access);
    /* the device picavk runs on, as `picavk info` reports it */
    pvk_device_info d;
    CHECK_EQ(pvk_get_device_info(ctx, &d), PVK_SUCCESS);
    CHECK(d.api_version >= VK_API_VERSION_1_3);
    CHECK_EQ(d.vendor_id, ctx->gpu.props.vendorID);
    CHECK(strlen(d.driver_name) > 0 && strlen(d.driver_name) < sizeof d.driver_name);
    if (strstr(pvk_device_name(ctx), "llvmpipe"))
        CHECK(!strcmp(d.driver_name, "llvmpipe") && strstr(d.driver_info, "Mesa") &&
              d.type == VK_PHYSICAL_DEVICE_TYPE_CPU);
    CHECK_EQ(pvk_get_device_info(ctx, NULL), PVK_ERROR_INVALID_ARGUMENT);
    CHECK_EQ(pvk_get_device_info(NULL, &d), PVK_ERROR_INVALID_ARGUMENT);
    th_release(ctx);
}

/* vkCreateBuffer with size 0 violates VUID-VkBufferCreateInfo-size-00912. */
static void validation_counter(void)
{
    pvk_context *ctx = th_context(NULL, 0);
    th_quiet_errors = 1;
    VkBufferCreateInfo bci = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = 0,
        .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
    };
    VkBuffer buf = VK_NULL_HANDLE;
    VkResult vr = ctx->gpu.vk.vkCreateBuffer(ctx->gpu.device, &bci, NULL, &buf);
    if (vr == VK_SUCCESS && buf)
        ctx->gpu.vk.vkDestroyBuffer(ctx->gpu.device, buf, NULL);
    th_quiet_errors = 0;
    pvk_stats st;
    pvk_get_stats(ctx, &st);
    CHECK(st.validation_errors >= 1);
    CHECK(strstr(th_last_error, "00912") != NULL);
    pvk_context_destroy(ctx);
}

static void device_lost_is_sticky(void)
{
    pvk_context *ctx = th_context(NULL, 0);
    th_quiet_errors = 1;
    CHECK_EQ(pvk_vk_check(&ctx->gpu, VK_ERROR_DEVICE_LOST, "test"), PVK_ERROR_DEVICE_LOST);
    th_quiet_errors = 0;
    CHECK_EQ(pvk_context_status(ctx), PVK_ERROR_DEVICE_LOST);
    CHECK_EQ(pvk_mmio_write32(ctx, 0x10400004, 1), PVK_ERROR_DEVICE_LOST);
    CHECK_EQ(pvk_guest_written(ctx, PVK_VRAM_BASE, 4), PVK_ERROR_DEVICE_LOST);
    CHECK_EQ(pvk_vblank(ctx), PVK_ERROR_DEVICE_LOST);
    pvk_context_destroy(ctx);
}

static void bad_arguments(void)
{
    pvk_context *ctx = NULL;
    CHECK_EQ(pvk_context_create(NULL, NULL), PVK_ERROR_INVALID_ARGUMENT);
    pvk_host_vulkan hv = {0};
    pvk_config cfg = {.host_vulkan = &hv, .log = th_log};
    th_quiet_errors = 1;
    CHECK_EQ(pvk_context_create(&cfg, &ctx), PVK_ERROR_INVALID_ARGUMENT);
    th_quiet_errors = 0;
    CHECK(ctx == NULL);
    CHECK_EQ(pvk_wait_idle(NULL), PVK_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(pvk_result_string(PVK_ERROR_DEVICE_LOST), "device lost") == 0);
    pvk_context_destroy(NULL);
}

/* Embedded mode: a host-owned instance and device (here borrowed from a
 * headless context) are used and not destroyed by picavk. */
static void embedded(void)
{
    pvk_context *host = th_context(NULL, 0);
    pvk_host_vulkan hv = {
        .get_instance_proc_addr = vkGetInstanceProcAddr,
        .instance = host->gpu.instance,
        .physical_device = host->gpu.phys,
        .device = host->gpu.device,
        .queue = host->gpu.queue,
        .queue_family = host->gpu.queue_family,
        .external_memory_host_enabled = host->gpu.features.external_memory_host,
    };
    pvk_config cfg = {.host_vulkan = &hv, .log = th_log};
    pvk_context *ctx = NULL;
    CHECK_EQ(pvk_context_create(&cfg, &ctx), PVK_SUCCESS);
    if (ctx) {
        CHECK(ctx->gpu.device == host->gpu.device && !ctx->gpu.own_device && !ctx->gpu.own_instance);
        /* a fill runs on the borrowed device */
        uint32_t *p = pvk_guest_ptr(ctx, PVK_VRAM_BASE, 32);
        pvk_mmio_write32(ctx, 0x10400010, PVK_VRAM_BASE >> 3);
        pvk_mmio_write32(ctx, 0x10400014, (PVK_VRAM_BASE + 32) >> 3);
        pvk_mmio_write32(ctx, 0x10400018, 0xCAFEF00D);
        pvk_mmio_write32(ctx, 0x1040001C, 0x201);
        pvk_wait_idle(ctx);
        CHECK_EQ(p[0], 0xCAFEF00D);
        CHECK_EQ(p[7], 0xCAFEF00D);
        /* picavk cannot know what the host enabled: no attachment reads and
         * no vertex programs on the GPU (vertex-stage stores) unless told */
        CHECK(!ctx->gpu.attachment_read);
        CHECK(!ctx->gpu.vertex_stores);
        pvk_context_destroy(ctx);
    }
    /* the headless context enabled rasterization-order attachment access and
     * imagelessFramebuffer where the device has them; as a host it says so */
    hv.attachment_read_enabled = host->gpu.attachment_read;
    hv.vertex_stores_enabled = host->gpu.vertex_stores;
    ctx = NULL;
    CHECK_EQ(pvk_context_create(&cfg, &ctx), PVK_SUCCESS);
    if (ctx) {
        CHECK_EQ(ctx->gpu.attachment_read, host->gpu.attachment_read);
        CHECK_EQ(ctx->gpu.vertex_stores, host->gpu.vertex_stores);
        if (strstr(pvk_device_name(ctx), "llvmpipe"))
            CHECK(ctx->gpu.vertex_stores);
        if (strstr(pvk_device_name(ctx), "llvmpipe"))
            CHECK(ctx->gpu.attachment_read);
        pvk_context_destroy(ctx);
    }
    th_release(host); /* the host's device still works after picavk left */
}

/* The feature structs a host chains, for query and for device creation. */
typedef struct host_chain {
    VkPhysicalDeviceFeatures2 f2;
    VkPhysicalDeviceVulkan11Features v11;
    VkPhysicalDeviceVulkan12Features v12;
    VkPhysicalDeviceVulkan13Features v13;
    VkPhysicalDeviceCustomBorderColorFeaturesEXT cbc;
    VkPhysicalDeviceRasterizationOrderAttachmentAccessFeaturesEXT roa;
} host_chain;

/* Link the core structs and those extension structs `chain_it` accepts. */
static void host_chain_init(host_chain *c, bool (*chain_it)(VkStructureType, const void *), const void *user)
{
    memset(c, 0, sizeof *c);
    c->f2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    c->v11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
    c->v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    c->v13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
    c->cbc.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_CUSTOM_BORDER_COLOR_FEATURES_EXT;
    c->roa.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RASTERIZATION_ORDER_ATTACHMENT_ACCESS_FEATURES_EXT;
    VkBaseOutStructure *all[] = {(void *)&c->v11, (void *)&c->v12, (void *)&c->v13, (void *)&c->cbc, (void *)&c->roa};
    VkBaseOutStructure *tail = (VkBaseOutStructure *)&c->f2;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (i < 3 || chain_it(all[i]->sType, user))
            tail = tail->pNext = all[i];
}

static VkBool32 *host_member(host_chain *c, const pvk_vulkan_need *n)
{
    for (VkBaseOutStructure *s = (VkBaseOutStructure *)&c->f2; s; s = s->pNext)
        if (s->sType == n->feature_struct)
            return (VkBool32 *)((char *)s + n->feature_offset);
    return NULL;
}

typedef struct needs_state {
    const pvk_vulkan_need *needs;
    uint32_t count;
    VkExtensionProperties ext[512];
    uint32_t n_ext;
    bool debug_utils;  /* the host's instance has VK_EXT_debug_utils */
    bool use[64];      /* per need: enabled on the device being made */
} needs_state;

static bool device_has(const needs_state *st, const char *name)
{
    for (uint32_t i = 0; i < st->n_ext; i++)
        if (!strcmp(st->ext[i].extensionName, name))
            return true;
    return false;
}

/* An extension's struct is chained when its group's device extension is
 * there (to query) or enabled (to create). */
static bool chain_if_supported(VkStructureType t, const void *user)
{
    const needs_state *st = user;
    for (uint32_t i = 0; i < st->count; i++)
        if (st->needs[i].feature_struct == t)
            for (uint32_t j = 0; j < st->count; j++)
                if (st->needs[j].host_flag == st->needs[i].host_flag &&
                    st->needs[j].kind == PVK_NEED_DEVICE_EXTENSION && device_has(st, st->needs[j].name))
                    return true;
    return false;
}
static bool chain_if_used(VkStructureType t, const void *user)
{
    const needs_state *st = user;
    for (uint32_t i = 0; i < st->count; i++)
        if (st->use[i] && st->needs[i].feature_struct == t)
            return true;
    return false;
}

/* A device on `host`'s physical device made the way a host makes it from
 * pvk_host_vulkan_needs: every required entry, and with `optional` every
 * optional group the device has whole, its flag set in *hv. */
static VkDevice needs_device(pvk_context *host, bool optional, pvk_host_vulkan *hv, struct VolkDeviceTable *vk)
{
    static needs_state st;
    memset(&st, 0, sizeof st);
    CHECK_EQ(pvk_host_vulkan_needs(&st.needs, &st.count), PVK_SUCCESS);
    CHECK(st.count <= 64);
    st.n_ext = 512;
    vkEnumerateDeviceExtensionProperties(host->gpu.phys, NULL, &st.n_ext, st.ext);
    st.debug_utils = host->gpu.debug_utils;
    host_chain have, on;
    host_chain_init(&have, chain_if_supported, &st);
    vkGetPhysicalDeviceFeatures2(host->gpu.phys, &have.f2);
    bool supported[64];
    for (uint32_t i = 0; i < st.count; i++) {
        const pvk_vulkan_need *n = &st.needs[i];
        VkBool32 *m = n->kind == PVK_NEED_FEATURE ? host_member(&have, n) : NULL;
        supported[i] = n->kind == PVK_NEED_FEATURE             ? m && *m
                       : n->kind == PVK_NEED_DEVICE_EXTENSION ? device_has(&st, n->name)
                                                               : st.debug_utils;
        if (n->required)
            CHECK(supported[i]); /* picavk runs on this device: it has them all */
    }
    *hv = (pvk_host_vulkan){.get_instance_proc_addr = vkGetInstanceProcAddr, .instance = host->gpu.instance,
                            .physical_device = host->gpu.phys, .queue_family = host->gpu.queue_family};
    for (uint32_t i = 0; i < st.count; i++) {
        bool whole = true; /* every entry of its group is there */
        for (uint32_t j = 0; j < st.count; j++)
            if (st.needs[j].host_flag == st.needs[i].host_flag)
                whole &= supported[j];
        st.use[i] = st.needs[i].required || (optional && whole);
        if (st.use[i] && !st.needs[i].required)
            *(int *)((char *)hv + st.needs[i].host_flag) = 1;
    }
    host_chain_init(&on, chain_if_used, &st);
    const char *exts[64];
    uint32_t n_exts = 0;
    for (uint32_t i = 0; i < st.count; i++) {
        if (!st.use[i])
            continue;
        if (st.needs[i].kind == PVK_NEED_FEATURE)
            *host_member(&on, &st.needs[i]) = VK_TRUE;
        else if (st.needs[i].kind == PVK_NEED_DEVICE_EXTENSION)
            exts[n_exts++] = st.needs[i].name;
    }
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                   .queueFamilyIndex = host->gpu.queue_family, .queueCount = 1, .pQueuePriorities = &prio};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &on.f2,
                              .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci,
                              .enabledExtensionCount = n_exts, .ppEnabledExtensionNames = exts};
    VkDevice dev = VK_NULL_HANDLE;
    CHECK_EQ(vkCreateDevice(host->gpu.phys, &dci, NULL, &dev), VK_SUCCESS);
    if (dev) {
        volkLoadDeviceTable(vk, dev);
        vk->vkGetDeviceQueue(dev, host->gpu.queue_family, 0, &hv->queue);
        hv->device = dev;
    }
    return dev;
}

/* pvk_host_vulkan_needs: a well-formed list, and devices made from it: one
 * with only the required entries (picavk must use nothing else there: the
 * validation layer watches a draw through the logic-op path), one with every
 * optional group (each flag then turns its part of picavk on). */
static void host_needs(void)
{
    const pvk_vulkan_need *needs;
    uint32_t count = 0;
    CHECK_EQ(pvk_host_vulkan_needs(NULL, &count), PVK_ERROR_INVALID_ARGUMENT);
    CHECK_EQ(pvk_host_vulkan_needs(&needs, NULL), PVK_ERROR_INVALID_ARGUMENT);
    CHECK_EQ(pvk_host_vulkan_needs(&needs, &count), PVK_SUCCESS);
    CHECK(count > 8);
    bool optional_seen = false, geometry = false;
    for (uint32_t i = 0; i < count; i++) {
        const pvk_vulkan_need *n = &needs[i];
        CHECK(n->name && n->name[0]);
        CHECK(n->kind <= PVK_NEED_FEATURE);
        CHECK(!n->required == !!n->host_flag);            /* required: no flag; optional: a flag */
        CHECK(!n->required == !!n->gives);
        CHECK(!(n->required && optional_seen));            /* required entries first */
        optional_seen |= !n->required;
        CHECK(n->host_flag % sizeof(int) == 0 && n->host_flag < sizeof(pvk_host_vulkan));
        CHECK(n->host_flag == 0 || n->host_flag >= offsetof(pvk_host_vulkan, external_memory_host_enabled));
        CHECK((n->kind == PVK_NEED_FEATURE) == (n->feature_struct != 0));
        if (!strcmp(n->name, "geometryShader"))
            geometry = n->host_flag == offsetof(pvk_host_vulkan, geometry_shader_enabled) &&
                       n->feature_struct == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2 &&
                       n->feature_offset == offsetof(VkPhysicalDeviceFeatures2, features.geometryShader);
        if (!strcmp(n->name, "timelineSemaphore"))
            CHECK(n->required && n->feature_struct == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES &&
                  n->feature_offset == offsetof(VkPhysicalDeviceVulkan12Features, timelineSemaphore));
    }
    CHECK(geometry);

    pvk_context *host = th_context(NULL, 0);
    pvk_features hf;
    pvk_get_features(host, &hf);
    for (int optional = 0; optional < 2; optional++) {
        pvk_host_vulkan hv;
        struct VolkDeviceTable vk;
        VkDevice dev = needs_device(host, optional, &hv, &vk);
        if (!dev)
            continue;
        pvk_config cfg = {.host_vulkan = &hv, .log = th_log};
        CHECK_EQ(pvk_context_create(&cfg, &ctx), PVK_SUCCESS);
        if (!ctx)
            continue;
        pvk_features f;
        pvk_get_features(ctx, &f);
        /* what picavk uses is what the flags say, where the device has it */
        CHECK_EQ(f.geometry_shader, optional && hf.geometry_shader);
        CHECK_EQ(f.logic_op, optional && hf.logic_op);
        CHECK_EQ(f.external_memory_host, optional && hf.external_memory_host);
        CHECK_EQ(f.custom_border_color, optional && hf.custom_border_color);
        CHECK_EQ(f.debug_utils, optional && hf.debug_utils);
        CHECK_EQ(ctx->gpu.attachment_read, optional && host->gpu.attachment_read);
        CHECK_EQ(ctx->gpu.vertex_stores, optional && host->gpu.vertex_stores);
        CHECK_EQ(ctx->gpu.shader_float64, optional && host->gpu.shader_float64);
        if (strstr(pvk_device_name(ctx), "llvmpipe")) /* lavapipe has every optional group */
            CHECK(!optional || (f.geometry_shader && f.logic_op && ctx->gpu.attachment_read && ctx->gpu.vertex_stores &&
                                ctx->gpu.shader_float64 && f.custom_border_color));
        /* a triangle over the whole target, blending off: the logic-op path
         * (logicOpEnable only where logicOp is on), colour (0.2, 0.4, 0.6) */
        upload_shader();
        setup_attribs();
        setup_rgba8_target(FB, W, H);
        tev_primary_colour();
        reg(PVK_GPUREG_COLOR_OPERATION, 0x00E40000);
        reg(PVK_GPUREG_LOGIC_OP, 3); /* Copy */
        reg(PVK_GPUREG_DEPTH_COLOR_MASK, 0xF00);
        const float v[3][8] = {{-1, -1, 0, 1, 0.2f, 0.4f, 0.6f, 1}, {3, -1, 0, 1, 0.2f, 0.4f, 0.6f, 1},
                               {-1, 3, 0, 1, 0.2f, 0.4f, 0.6f, 1}};
        memcpy(pvk_guest_ptr(ctx, VB, sizeof v), v, sizeof v);
        pvk_guest_written(ctx, VB, sizeof v);
        draw_arrays(0, 3);
        CHECK_EQ(pvk_guest_flush(ctx, FB, W * H * 4), PVK_SUCCESS);
        const uint8_t *px = (const uint8_t *)pvk_guest_ptr(ctx, FB, W * H * 4) + 4 * tiled_index(10, 20);
        CHECK(px[0] == 255 && px[1] == 153 && px[2] == 102 && px[3] == 51); /* A, B, G, R */
        pvk_stats st = stats();
        CHECK_EQ(st.draws, 1);
        CHECK_EQ(st.unsupported, 0);
        /* fragment-lit draws keep their geometry shader on a host's device
         * that enabled geometryShader */
        CHECK_EQ(pvk_pipeline_quat_geom(ctx), optional && hf.geometry_shader);
        pvk_context_destroy(ctx);
        ctx = NULL;
        vk.vkDeviceWaitIdle(dev);
        vk.vkDestroyDevice(dev, NULL);
    }
    th_release(host); /* no validation message from either device */
}

static void glsl(void)
{
    uint32_t *words = NULL;
    size_t n = 0;
    char *log = NULL;
    const char *ok = "#version 460\nlayout(local_size_x=1) in;\nlayout(std430,binding=0) buffer B{uint v[];};\n"
                     "void main(){ v[0] = 42u; }\n";
    CHECK_EQ(pvk_glsl_compile(PVK_STAGE_COMPUTE, ok, &words, &n, &log), PVK_SUCCESS);
    CHECK(n > 5 && words && words[0] == 0x07230203u); /* SPIR-V magic */
    free(words);
    const char *bad = "#version 460\nvoid main(){ undefined_thing = 1; }\n";
    CHECK_EQ(pvk_glsl_compile(PVK_STAGE_FRAGMENT, bad, &words, &n, &log), PVK_ERROR_BAD_DATA);
    CHECK(log && strstr(log, "undefined_thing"));
    free(log);
    CHECK_EQ(pvk_glsl_compile(PVK_STAGE_VERTEX, NULL, &words, &n, NULL), PVK_ERROR_INVALID_ARGUMENT);
}

int main(void)
{
    bringup();
    validation_counter();
    device_lost_is_sticky();
    bad_arguments();
    embedded();
    host_needs();
    glsl();
    return th_finish("test_device");
}
