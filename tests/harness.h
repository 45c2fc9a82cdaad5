/* A tiny test harness: CHECK macros, a context with validation on and its
 * log captured, and a closing verdict that fails on any validation message. */
#ifndef PVK_TEST_HARNESS_H
#define PVK_TEST_HARNESS_H

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "picavk/picavk.h"

static int th_checks, th_failures;
static int th_log_errors;      /* error-level log lines seen */
static char th_last_error[1024];
static int th_quiet_errors;    /* errors are expected: don't echo them */

#define CHECK(cond)                                                                  \
    do {                                                                             \
        th_checks++;                                                                 \
        if (!(cond)) {                                                               \
            th_failures++;                                                           \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)

#define CHECK_EQ(a, b)                                                                                 \
    do {                                                                                               \
        uint64_t th_a = (uint64_t)(a), th_b = (uint64_t)(b);                                           \
        th_checks++;                                                                                   \
        if (th_a != th_b) {                                                                            \
            th_failures++;                                                                             \
            fprintf(stderr, "%s:%d: CHECK_EQ failed: %s = 0x%" PRIX64 ", %s = 0x%" PRIX64 "\n", __FILE__, \
                    __LINE__, #a, th_a, #b, th_b);                                                     \
        }                                                                                              \
    } while (0)

static void th_log(void *user, pvk_log_level level, const char *msg)
{
    (void)user;
    if (level == PVK_LOG_ERROR) {
        th_log_errors++;
        snprintf(th_last_error, sizeof th_last_error, "%s", msg);
        if (th_quiet_errors)
            return;
    }
    fprintf(stderr, "[picavk %d] %s\n", (int)level, msg);
}

/* A headless context with the validation layer on and PVK_DEBUG set to
 * `debug` (NULL: none); `mirror` adds the guest-memory fallback (device
 * buffers instead of host import). */
static inline pvk_context *th_context_debug(pvk_config *cfg_in, const char *debug, int mirror)
{
    pvk_config cfg = {0};
    if (cfg_in)
        cfg = *cfg_in;
    cfg.validation = 1;
    /* Waits: lavapipe builds a pipeline's code at its first draw, inside the
     * queue; under AddressSanitizer (whose malloc the driver's LLVM uses too)
     * with an empty shader cache one took longer than the default 10 s.  A
     * test of the timeout itself sets its own. */
    if (!cfg.wait_timeout_ms)
        cfg.wait_timeout_ms = 120000;
    if (!cfg.log)
        cfg.log = th_log;
    /* PVK_TEST_DEBUG: flags for every context of a test (ctest runs the
     * drawing tests again with cpu-vs: both vertex paths meet the same checks) */
    const char *extra = getenv("PVK_TEST_DEBUG");
    char flags[256];
    snprintf(flags, sizeof flags, "%s%s%s%s%s", mirror ? "no-host-import" : "", mirror && debug ? "," : "",
             debug ? debug : "", extra && *extra && (mirror || debug) ? "," : "", extra ? extra : "");
    if (flags[0])
        setenv("PVK_DEBUG", flags, 1);
    else
        unsetenv("PVK_DEBUG");
    pvk_context *ctx = NULL;
    pvk_result r = pvk_context_create(&cfg, &ctx);
    if (r) {
        fprintf(stderr, "cannot create a context: %s\n", pvk_result_string(r));
        exit(1);
    }
    /* lavapipe keeps process-wide state for graphics pipelines and blits; once
     * the loader unloads the driver, LeakSanitizer sees it as leaked from an
     * unknown module.  Keeping the driver mapped keeps it reachable (a no-op
     * on other drivers). */
    dlopen("libvulkan_lvp.so", RTLD_LAZY | RTLD_NOLOAD);
    return ctx;
}

/* The same without debug flags. */
static inline pvk_context *th_context(pvk_config *cfg_in, int mirror)
{
    return th_context_debug(cfg_in, NULL, mirror);
}

/* Fails the test on any validation message, then destroys the context. */
static inline void th_release(pvk_context *ctx)
{
    pvk_wait_idle(ctx);
    pvk_stats st;
    pvk_get_stats(ctx, &st);
    CHECK_EQ(st.validation_errors, 0);
    CHECK_EQ(pvk_context_status(ctx), PVK_SUCCESS);
    pvk_context_destroy(ctx);
}

static int th_finish(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, th_checks, th_failures);
    return th_failures ? 1 : 0;
}

/* Seconds on a monotonic clock: tests print their parts' times. */
static inline double th_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Deterministic pseudo-random numbers (xorshift64*). */
static uint64_t th_rng = 0x9E3779B97F4A7C15ull;
static inline uint32_t th_rand(void)
{
    th_rng ^= th_rng >> 12;
    th_rng ^= th_rng << 25;
    th_rng ^= th_rng >> 27;
    return (uint32_t)((th_rng * 0x2545F4914F6CDD1Dull) >> 32);
}
static inline uint32_t th_rand_range(uint32_t lo, uint32_t hi) /* [lo, hi] */
{
    return lo + th_rand() % (hi - lo + 1);
}

#endif
