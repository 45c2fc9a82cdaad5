/* Headless bring-up on lavapipe, the validation-message counter (a
 * deliberately invalid Vulkan call must be caught), feature detection, the
 * sticky device-lost error and the run-time GLSL compiler. */
#include "harness.h"
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
    CHECK_EQ(d.vendor_id, ctx->props.vendorID);
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
    VkResult vr = ctx->vk.vkCreateBuffer(ctx->device, &bci, NULL, &buf);
    if (vr == VK_SUCCESS && buf)
        ctx->vk.vkDestroyBuffer(ctx->device, buf, NULL);
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
    CHECK_EQ(pvk_vk_check(ctx, VK_ERROR_DEVICE_LOST, "test"), PVK_ERROR_DEVICE_LOST);
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
        .instance = host->instance,
        .physical_device = host->phys,
        .device = host->device,
        .queue = host->queue,
        .queue_family = host->queue_family,
        .external_memory_host_enabled = host->features.external_memory_host,
    };
    pvk_config cfg = {.host_vulkan = &hv, .log = th_log};
    pvk_context *ctx = NULL;
    CHECK_EQ(pvk_context_create(&cfg, &ctx), PVK_SUCCESS);
    if (ctx) {
        CHECK(ctx->device == host->device && !ctx->own_device && !ctx->own_instance);
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
        CHECK(!ctx->attachment_read);
        CHECK(!ctx->vertex_stores);
        pvk_context_destroy(ctx);
    }
    /* the headless context enabled rasterization-order attachment access and
     * imagelessFramebuffer where the device has them; as a host it says so */
    hv.attachment_read_enabled = host->attachment_read;
    hv.vertex_stores_enabled = host->vertex_stores;
    ctx = NULL;
    CHECK_EQ(pvk_context_create(&cfg, &ctx), PVK_SUCCESS);
    if (ctx) {
        CHECK_EQ(ctx->attachment_read, host->attachment_read);
        CHECK_EQ(ctx->vertex_stores, host->vertex_stores);
        if (strstr(pvk_device_name(ctx), "llvmpipe"))
            CHECK(ctx->vertex_stores);
        if (strstr(pvk_device_name(ctx), "llvmpipe"))
            CHECK(ctx->attachment_read);
        pvk_context_destroy(ctx);
    }
    th_release(host); /* the host's device still works after picavk left */
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
    glsl();
    return th_finish("test_device");
}
