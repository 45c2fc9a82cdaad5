/* Background builds: worker threads that turn keys into SPIR-V and Vulkan
 * objects while draws go on (pvk_config.compile_threads).  A job is a
 * function and the state it owns; its results (objects, counters, log
 * lines: runtime/pipeline.h pvk_build) are taken over on the host's thread
 * by whoever submitted it, so nothing a worker does reaches the context, its
 * counters or the host's callbacks directly.  Without workers a job runs at
 * once on the caller's thread: the same code, synchronous. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/pipeline.h"

struct pvk_compiler {
    pthread_mutex_t lock; /* pthreads, not C11 threads: ThreadSanitizer sees these */
    pthread_cond_t work, done;
    pthread_t th[PVK_MAX_COMPILE_THREADS];
    uint32_t n;
    pvk_job *head, *tail;
    bool stop;
    struct pvk_compiler *next_live; /* the contexts' compilers with workers (live_lock) */
};

/* A process may end with a context alive (no pvk_context_destroy): its
 * workers must not be inside glslang or the driver when the libraries'
 * destructors run.  An atexit handler, registered after the driver and its
 * layers were loaded (so it runs before their destructors), stops them. */
static void live_stop_all(void);
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pvk_compiler *live;

static void *worker(void *arg)
{
    struct pvk_compiler *c = arg;
    pthread_mutex_lock(&c->lock);
    for (;;) {
        while (!c->head && !c->stop)
            pthread_cond_wait(&c->work, &c->lock);
        if (!c->head) /* stopping, and the queue is drained */
            break;
        pvk_job *j = c->head;
        c->head = j->next;
        if (!c->head)
            c->tail = NULL;
        pthread_mutex_unlock(&c->lock);
        j->on_worker = true;
        j->run(j);
        pthread_mutex_lock(&c->lock);
        atomic_store_explicit(&j->done, true, memory_order_release);
        pthread_cond_broadcast(&c->done);
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

/* pvk_config.compile_threads, PVK_COMPILE_THREADS over it (tools and test
 * variants): 0 the default, negative none. */
static uint32_t thread_count(pvk_context *ctx)
{
    int want = ctx->gpu.cfg.compile_threads;
    const char *e = getenv("PVK_COMPILE_THREADS");
    if (e && *e) {
        char *end;
        long v = strtol(e, &end, 10);
        if (*end || v > PVK_MAX_COMPILE_THREADS)
            pvk_log(&ctx->gpu, PVK_LOG_WARN, "PVK_COMPILE_THREADS=%s: not a count up to %d; ignored", e,
                    PVK_MAX_COMPILE_THREADS);
        else
            want = v ? (int)v : -1; /* in the environment 0 means none */
    }
    if (ctx->gpu.debug & PVK_DEBUG_SHADERS)
        return 0; /* the dumps are written in the order draws ask for them */
    if (want < 0)
        return 0;
    if (want == 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        want = cores > 1 ? (int)(cores - 1 < 4 ? cores - 1 : 4) : 1;
    }
    return (uint32_t)(want > PVK_MAX_COMPILE_THREADS ? PVK_MAX_COMPILE_THREADS : want);
}

pvk_result pvk_compiler_init(pvk_context *ctx)
{
    struct pvk_compiler *c = calloc(1, sizeof *c);
    if (!c)
        return PVK_ERROR_OUT_OF_MEMORY;
    ctx->compiler = c;
    uint32_t n = thread_count(ctx);
    if (!n)
        return PVK_SUCCESS;
    if (pthread_mutex_init(&c->lock, NULL) || pthread_cond_init(&c->work, NULL) || pthread_cond_init(&c->done, NULL)) {
        pvk_log(&ctx->gpu, PVK_LOG_WARN, "compile threads: no lock; building on the calling thread");
        return PVK_SUCCESS;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (pthread_create(&c->th[i], NULL, worker, c)) {
            pvk_log(&ctx->gpu, PVK_LOG_WARN, "compile threads: %u of %u started", i, n);
            break;
        }
        c->n++;
    }
    if (!c->n) {
        pthread_cond_destroy(&c->done);
        pthread_cond_destroy(&c->work);
        pthread_mutex_destroy(&c->lock);
    } else {
        /* at every such creation: a driver loaded again since the last one
         * registered its destructors after that one's handler */
        pthread_mutex_lock(&live_lock);
        c->next_live = live;
        live = c;
        if (atexit(live_stop_all))
            pvk_log(&ctx->gpu, PVK_LOG_WARN, "compile threads: no exit handler; destroy the context before exit");
        pthread_mutex_unlock(&live_lock);
    }
    pvk_log(&ctx->gpu, PVK_LOG_DEBUG, "compile threads: %u", c->n);
    return PVK_SUCCESS;
}

/* Builds not started are dropped (done, nothing made); the running ones
 * finish; the workers are joined.  The lock and conditions stay (at exit a
 * host thread may still be waiting on them: it sees its job done). */
static void workers_stop(struct pvk_compiler *c)
{
    pthread_mutex_lock(&c->lock);
    for (pvk_job *j = c->head; j; j = j->next)
        atomic_store_explicit(&j->done, true, memory_order_release);
    c->head = c->tail = NULL;
    c->stop = true;
    pthread_cond_broadcast(&c->work);
    pthread_cond_broadcast(&c->done);
    pthread_mutex_unlock(&c->lock);
    for (uint32_t i = 0; i < c->n; i++)
        pthread_join(c->th[i], NULL);
    c->n = 0;
}

static void live_stop_all(void)
{
    pthread_mutex_lock(&live_lock);
    for (struct pvk_compiler *c = live; c; c = c->next_live)
        workers_stop(c); /* the context now builds on its calling thread, if it is used at all */
    live = NULL;
    pthread_mutex_unlock(&live_lock);
}

uint32_t pvk_compiler_threads(const pvk_context *ctx)
{
    return ctx->compiler ? ctx->compiler->n : 0;
}

void pvk_compiler_submit(pvk_context *ctx, pvk_job *j)
{
    pvk_compiler_submit_at(ctx, j, false);
}

void pvk_compiler_submit_at(pvk_context *ctx, pvk_job *j, bool first)
{
    struct pvk_compiler *c = ctx->compiler;
    j->next = NULL;
    j->on_worker = false;
    atomic_store_explicit(&j->done, false, memory_order_relaxed);
    if (!c || !c->n) {
        j->run(j);
        atomic_store_explicit(&j->done, true, memory_order_release);
        return;
    }
    pthread_mutex_lock(&c->lock);
    if (first && c->head) {
        j->next = c->head;
        c->head = j;
    } else {
        if (c->tail)
            c->tail->next = j;
        else
            c->head = j;
        c->tail = j;
    }
    pthread_cond_signal(&c->work);
    pthread_mutex_unlock(&c->lock);
}

bool pvk_job_done(const pvk_job *j)
{
    return atomic_load_explicit(&j->done, memory_order_acquire);
}

void pvk_job_wait(pvk_context *ctx, pvk_job *j)
{
    struct pvk_compiler *c = ctx->compiler;
    if (pvk_job_done(j))
        return;
    pthread_mutex_lock(&c->lock);
    /* not started yet: run it here rather than wait behind the queue */
    for (pvk_job **p = &c->head, *prev = NULL; *p; prev = *p, p = &(*p)->next)
        if (*p == j) {
            *p = j->next;
            if (c->tail == j)
                c->tail = prev;
            pthread_mutex_unlock(&c->lock);
            j->run(j);
            atomic_store_explicit(&j->done, true, memory_order_release);
            return;
        }
    while (!pvk_job_done(j))
        pthread_cond_wait(&c->done, &c->lock);
    pthread_mutex_unlock(&c->lock);
}

void pvk_compiler_destroy(pvk_context *ctx)
{
    struct pvk_compiler *c = ctx->compiler;
    if (!c)
        return;
    pthread_mutex_lock(&live_lock);
    for (struct pvk_compiler **p = &live; *p; p = &(*p)->next_live)
        if (*p == c) {
            *p = c->next_live;
            break;
        }
    bool sync = c->n || c->stop; /* made with workers (stopped here, or by the exit handler) */
    if (c->n)
        workers_stop(c);
    pthread_mutex_unlock(&live_lock);
    if (sync) {
        pthread_cond_destroy(&c->done);
        pthread_cond_destroy(&c->work);
        pthread_mutex_destroy(&c->lock);
    }
    free(c);
    ctx->compiler = NULL;
}

/* ---- what a build reports ---- */

void pvk_build_log(pvk_build *b, pvk_log_level level, const char *fmt, ...)
{
    if (level > b->ctx->gpu.log_level)
        return; /* dropped as pvk_log would: nothing to keep */
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t len = strlen(msg), need = b->len + 1 + len + 1;
    if (need > b->cap) {
        size_t cap = need * 2;
        char *p = realloc(b->log, cap);
        if (!p)
            return; /* the message is lost, the build goes on */
        b->log = p;
        b->cap = cap;
    }
    b->log[b->len] = (char)('0' + level);
    memcpy(b->log + b->len + 1, msg, len + 1);
    b->len = need;
}

pvk_result pvk_build_vk(pvk_build *b, VkResult vr, const char *what)
{
    if (vr == VK_SUCCESS)
        return PVK_SUCCESS;
    if (b->vk == VK_SUCCESS)
        b->vk = vr, b->vk_what = what;
    return vr == VK_ERROR_DEVICE_LOST ? PVK_ERROR_DEVICE_LOST
           : vr == VK_ERROR_OUT_OF_HOST_MEMORY || vr == VK_ERROR_OUT_OF_DEVICE_MEMORY ? PVK_ERROR_OUT_OF_MEMORY
                                                                                       : PVK_ERROR_VULKAN;
}

void pvk_build_flush(pvk_build *b)
{
    pvk_gpu *gpu = &b->ctx->gpu;
    for (size_t i = 0; i < b->len; i += strlen(b->log + i + 1) + 2)
        pvk_log(gpu, (pvk_log_level)(b->log[i] - '0'), "%s", b->log + i + 1);
    if (b->vk != VK_SUCCESS)
        (void)pvk_vk_check(gpu, b->vk, b->vk_what); /* logs it, a lost device sticks; the build said so already */
    gpu->stats.shader_compiles += b->compiles;
    gpu->stats.shader_disk_hits += b->disk_hits;
    gpu->stats.shader_compile_ns += b->compile_ns;
    if (b->compile_max_ns > gpu->stats.shader_compile_max_ns)
        gpu->stats.shader_compile_max_ns = b->compile_max_ns;
    gpu->stats.disk_cache_evictions += b->disk_evictions;
    struct pvk_pipelines *pl = b->ctx->pipelines;
    if (b->compile_max_ns && pl) { /* into the five slowest, kept in order */
        int i = 5;
        while (i > 0 && pl->slowest[i - 1].ns < b->compile_max_ns)
            i--;
        if (i < 5) {
            memmove(&pl->slowest[i + 1], &pl->slowest[i], (size_t)(4 - i) * sizeof pl->slowest[0]);
            pl->slowest[i].ns = b->compile_max_ns, pl->slowest[i].hash = b->slow_hash;
            pl->slowest[i].stage = b->slow_stage;
        }
    }
    free(b->log);
    pvk_context *ctx = b->ctx;
    memset(b, 0, sizeof *b);
    b->ctx = ctx;
}
