/* The threading contract of picavk.h: two contexts in two threads work at
 * once (created concurrently too: volk's globals); one context entered from
 * a second thread during a call gets PVK_ERROR_BUSY in debug builds; an
 * embedded context shares its queue with a host thread that submits its own
 * work, both through the host's queue lock (validation stays clean). */
#include <pthread.h>

#include "harness.h"
#include "runtime/runtime.h"
#include "translator/regs.h"

#define FB 0x18000000u
#define VB 0x18200000u
#define SIDE 64u

static void reg(pvk_context *c, uint32_t id, uint32_t v)
{
    CHECK_EQ(pvk_mmio_write32(c, PVK_MMIO_PICA + 4 * id, v), PVK_SUCCESS);
}

static uint32_t f24(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return pvk_f32_to_f24(b);
}

/* MOV o0, v0; MOV o1, v1; a 64x64 RGBA8 target; one triangle over all of it. */
static void setup_draw(pvk_context *c, const float color[4])
{
    const uint32_t code[] = {(0x13u << 26) | (0u << 21) | (0u << 12), (0x13u << 26) | (1u << 21) | (1u << 12),
                             0x22u << 26};
    reg(c, PVK_GPUREG_VSH_CODETRANSFER_CONFIG, 0);
    for (unsigned i = 0; i < 3; i++)
        reg(c, PVK_GPUREG_VSH_CODETRANSFER_DATA, code[i]);
    reg(c, PVK_GPUREG_VSH_CODETRANSFER_END, 1);
    reg(c, PVK_GPUREG_VSH_OPDESCS_CONFIG, 0);
    reg(c, PVK_GPUREG_VSH_OPDESCS_DATA, 0xF | (0x1Bu << 5) | (0x1Bu << 14) | (0x1Bu << 23));
    reg(c, PVK_GPUREG_VSH_ENTRYPOINT, 0x7FFF0000u);
    reg(c, PVK_GPUREG_VSH_OUTMAP_MASK, 0x3);
    reg(c, PVK_GPUREG_SH_OUTMAP_TOTAL, 2);
    reg(c, PVK_GPUREG_SH_OUTMAP_O0, 0x03020100);
    reg(c, PVK_GPUREG_SH_OUTMAP_O0 + 1, 0x0B0A0908);
    reg(c, PVK_GPUREG_VSH_INPUTBUFFER_CONFIG, 0xA0000000u | 1);
    reg(c, PVK_GPUREG_VSH_NUM_ATTR, 1);
    reg(c, PVK_GPUREG_VSH_ATTRIBUTES_PERMUTATION_LOW, 0x10);
    reg(c, PVK_GPUREG_ATTRIBBUFFERS_LOC, VB >> 3);
    reg(c, PVK_GPUREG_ATTRIBBUFFERS_FORMAT_LOW, 0xFF);
    reg(c, PVK_GPUREG_ATTRIBBUFFERS_FORMAT_HIGH, 1u << 28);
    reg(c, PVK_GPUREG_ATTRIBBUFFER0_OFFSET, 0);
    reg(c, PVK_GPUREG_ATTRIBBUFFER0_CONFIG1, 0x10);
    reg(c, PVK_GPUREG_ATTRIBBUFFER0_CONFIG2, (32u << 16) | (2u << 28));
    reg(c, PVK_GPUREG_COLORBUFFER_FORMAT, 2);
    reg(c, PVK_GPUREG_COLORBUFFER_LOC, FB >> 3);
    reg(c, PVK_GPUREG_COLORBUFFER_READ, 0xF);
    reg(c, PVK_GPUREG_COLORBUFFER_WRITE, 0xF);
    reg(c, PVK_GPUREG_FRAMEBUFFER_DIM, SIDE | ((SIDE - 1) << 12) | (1u << 24));
    reg(c, PVK_GPUREG_VIEWPORT_WIDTH, f24(SIDE / 2.0f));
    reg(c, PVK_GPUREG_VIEWPORT_HEIGHT, f24(SIDE / 2.0f));
    reg(c, PVK_GPUREG_COLOR_OPERATION, 0x00E40100); /* citro3d's merger: blend mode, replace, RGBA written */
    reg(c, PVK_GPUREG_BLEND_FUNC, 0x01010000);
    reg(c, PVK_GPUREG_DEPTH_COLOR_MASK, 0xF00);
    reg(c, PVK_GPUREG_PRIMITIVE_CONFIG, 1);
    reg(c, PVK_GPUREG_NUMVERTICES, 3);
    float v[3][8] = {{-1, -1, -0.5f, 1}, {3, -1, -0.5f, 1}, {-1, 3, -0.5f, 1}};
    for (int k = 0; k < 3; k++)
        memcpy(&v[k][4], color, 16);
    memcpy(pvk_guest_ptr(c, VB, sizeof v), v, sizeof v);
    pvk_guest_written(c, VB, sizeof v);
}

static void fill(pvk_context *c, uint32_t value)
{
    pvk_mmio_write32(c, 0x10400010, FB >> 3);
    pvk_mmio_write32(c, 0x10400014, (FB + SIDE * SIDE * 4) >> 3);
    pvk_mmio_write32(c, 0x10400018, value);
    pvk_mmio_write32(c, 0x1040001C, 0x201);
}

/* Alternate fills and draws; count the words that are not what was asked. */
static int fills_and_draws(pvk_context *c, uint32_t seed)
{
    const float color[4] = {(seed & 1) ? 1.0f : 0.0f, 0, (seed & 1) ? 0.0f : 1.0f, 1};
    const uint32_t drawn = (seed & 1) ? 0xFF0000FFu : 0x0000FFFFu; /* RGBA8 word: R G B A from the top byte */
    setup_draw(c, color);
    int wrong = 0;
    for (uint32_t i = 0; i < 24; i++) {
        uint32_t value = seed * 0x01000193u + i;
        fill(c, value);
        if (i & 1)
            reg(c, PVK_GPUREG_DRAWARRAYS, 1);
        CHECK_EQ(pvk_wait_idle(c), PVK_SUCCESS);
        const uint32_t *p = pvk_guest_ptr(c, FB, SIDE * SIDE * 4);
        for (uint32_t k = 0; k < SIDE * SIDE; k++)
            wrong += p[k] != ((i & 1) ? drawn : value);
    }
    return wrong;
}

typedef struct worker {
    pthread_t thread;
    uint32_t seed;
    int wrong;
    pvk_result created;
    uint64_t validation;
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;
    pvk_config cfg = {.validation = 1, .log = th_log};
    pvk_context *c = NULL;
    w->created = pvk_context_create(&cfg, &c);
    if (w->created)
        return NULL;
    dlopen("libvulkan_lvp.so", RTLD_LAZY | RTLD_NOLOAD); /* as th_context does, for LeakSanitizer */
    w->wrong = fills_and_draws(c, w->seed);
    pvk_stats st;
    pvk_get_stats(c, &st);
    w->validation = st.validation_errors;
    pvk_context_destroy(c);
    return NULL;
}

static void two_contexts(void)
{
    worker w[2] = {{.seed = 1}, {.seed = 2}};
    for (int i = 0; i < 2; i++)
        CHECK_EQ(pthread_create(&w[i].thread, NULL, worker_main, &w[i]), 0);
    for (int i = 0; i < 2; i++) {
        pthread_join(w[i].thread, NULL);
        CHECK_EQ(w[i].created, PVK_SUCCESS);
        CHECK_EQ(w[i].wrong, 0);
        CHECK_EQ(w[i].validation, 0);
    }
}

/* ---- one context, two threads ---- */

static pvk_context *shared;
static pthread_mutex_t handoff = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t handoff_cv = PTHREAD_COND_INITIALIZER;
static int intruder_state; /* 0 waiting, 1 go, 2 done */
#ifndef NDEBUG
static pvk_result intruder_results[3];
#endif

static void *intruder(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&handoff);
    while (intruder_state != 1)
        pthread_cond_wait(&handoff_cv, &handoff);
    pthread_mutex_unlock(&handoff);
#ifndef NDEBUG /* a release build does not check: entering would break the contract */
    uint32_t v;
    intruder_results[0] = pvk_mmio_write32(shared, 0x10400018, 1);
    intruder_results[1] = pvk_wait_idle(shared);
    intruder_results[2] = pvk_mmio_read32(shared, 0x10400018, &v);
#endif
    pthread_mutex_lock(&handoff);
    intruder_state = 2;
    pthread_cond_broadcast(&handoff_cv);
    pthread_mutex_unlock(&handoff);
    return NULL;
}

/* The owner's IRQ callback runs inside its call: let the intruder try then. */
static void hold_and_let_in(void *user, pvk_context *c, pvk_irq which)
{
    (void)user, (void)c;
    if (which != PVK_IRQ_PSC0 || intruder_state)
        return;
    pthread_mutex_lock(&handoff);
    intruder_state = 1;
    pthread_cond_broadcast(&handoff_cv);
    while (intruder_state != 2)
        pthread_cond_wait(&handoff_cv, &handoff);
    pthread_mutex_unlock(&handoff);
    uint32_t v; /* the owner itself may call back in */
    CHECK_EQ(pvk_mmio_read32(c, 0x10400018, &v), PVK_SUCCESS);
}

static void one_context_two_threads(void)
{
    pvk_config cfg = {.irq = hold_and_let_in};
    shared = th_context(&cfg, 0);
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, intruder, NULL), 0);
    th_quiet_errors = 1;
    fill(shared, 0x12345678);
    CHECK_EQ(pvk_wait_idle(shared), PVK_SUCCESS); /* the PSC0 callback runs in here */
    th_quiet_errors = 0;
    pthread_join(t, NULL);
    CHECK_EQ(intruder_state, 2);
#ifndef NDEBUG
    for (int i = 0; i < 3; i++)
        CHECK_EQ(intruder_results[i], PVK_ERROR_BUSY);
    CHECK(strstr(th_last_error, "another thread") != NULL);
#else
    printf("  release build (NDEBUG): concurrent entry is not checked\n");
#endif
    /* free again once the owner's call returned */
    uint32_t v;
    CHECK_EQ(pvk_mmio_read32(shared, 0x10400018, &v), PVK_SUCCESS);
    const uint32_t *p = pvk_guest_ptr(shared, FB, 16);
    CHECK_EQ(p[0], 0x12345678);
    th_release(shared);
}

/* ---- an embedded context sharing the host's queue ---- */

static pthread_mutex_t queue_mutex = PTHREAD_MUTEX_INITIALIZER;
static int locks_taken;

static void lock_queue(void *user, VkQueue q)
{
    (void)user, (void)q;
    pthread_mutex_lock(&queue_mutex);
    locks_taken++;
}

static void unlock_queue(void *user, VkQueue q)
{
    (void)user, (void)q;
    pthread_mutex_unlock(&queue_mutex);
}

typedef struct host_thread {
    pvk_context *host;
    volatile int stop;
    uint64_t submits;
} host_thread;

/* The host's own work: empty submissions that signal its timeline semaphore. */
static void *host_submits(void *arg)
{
    host_thread *h = arg;
    pvk_context *hc = h->host;
    VkSemaphoreTypeCreateInfo stci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                      .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
    VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &stci};
    VkSemaphore sem;
    CHECK_EQ(hc->gpu.vk.vkCreateSemaphore(hc->gpu.device, &sci, NULL, &sem), VK_SUCCESS);
    uint64_t value = 0;
    while (!h->stop) {
        VkSemaphoreSubmitInfo ssi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
                                     .semaphore = sem,
                                     .value = ++value,
                                     .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
        VkSubmitInfo2 si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2, .signalSemaphoreInfoCount = 1,
                            .pSignalSemaphoreInfos = &ssi};
        lock_queue(NULL, hc->gpu.queue);
        CHECK_EQ(hc->gpu.vk.vkQueueSubmit2(hc->gpu.queue, 1, &si, VK_NULL_HANDLE), VK_SUCCESS);
        unlock_queue(NULL, hc->gpu.queue);
        VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1,
                                  .pSemaphores = &sem, .pValues = &value};
        CHECK_EQ(hc->gpu.vk.vkWaitSemaphores(hc->gpu.device, &wi, UINT64_MAX), VK_SUCCESS);
    }
    h->submits = value;
    hc->gpu.vk.vkDestroySemaphore(hc->gpu.device, sem, NULL);
    return NULL;
}

static void embedded_shared_queue(void)
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
        .debug_utils_enabled = host->gpu.debug_utils,
        .queue_lock = lock_queue,
        .queue_unlock = unlock_queue,
    };
    pvk_config cfg = {.host_vulkan = &hv, .log = th_log};
    pvk_context *c = NULL;
    CHECK_EQ(pvk_context_create(&cfg, &c), PVK_SUCCESS);
    if (!c) {
        th_release(host);
        return;
    }
    host_thread h = {.host = host};
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, host_submits, &h), 0);
    CHECK_EQ(fills_and_draws(c, 3), 0);
    h.stop = 1;
    pthread_join(t, NULL);
    printf("  embedded: the host thread submitted %llu times, picavk %llu times, both under the lock\n",
           (unsigned long long)h.submits, (unsigned long long)(locks_taken - (int)h.submits));
    CHECK(locks_taken > (int)h.submits);
    pvk_context_destroy(c);
    th_release(host); /* validation messages of both land in the host's instance */
}

int main(void)
{
    two_contexts();
    one_context_two_threads();
    embedded_shared_queue();
    return th_finish("test_threads");
}
