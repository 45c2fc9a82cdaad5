/* One context for all inputs of a fuzz run (creating a Vulkan device per
 * input would be all the fuzzer measures); logs go nowhere. */
#ifndef PVK_FUZZ_COMMON_H
#define PVK_FUZZ_COMMON_H

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "picavk/picavk.h"

static pvk_context *fuzz_ctx;

static void fuzz_log(void *user, pvk_log_level level, const char *msg)
{
    (void)user;
    (void)level;
    (void)msg;
}

/* At exit, before the libraries' destructors: compile workers may still be
 * building for the last input, inside the validation layer. */
static void fuzz_done(void)
{
    pvk_context_destroy(fuzz_ctx);
    fuzz_ctx = NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    pvk_config cfg = {.log = fuzz_log, .log_level = PVK_LOG_ERROR};
    if (pvk_context_create(&cfg, &fuzz_ctx)) {
        fprintf(stderr, "fuzz: cannot create a context\n");
        exit(1);
    }
    dlopen("libvulkan_lvp.so", RTLD_LAZY | RTLD_NOLOAD); /* see tests/harness.h */
    atexit(fuzz_done);
    return 0;
}

/* For the corpus driver (driver.c): Vulkan validation messages so far, after
 * the work in flight (the suite fails on any). */
uint64_t pvk_fuzz_validation_errors(void);
uint64_t pvk_fuzz_validation_errors(void)
{
    pvk_wait_idle(fuzz_ctx);
    pvk_stats st;
    pvk_get_stats(fuzz_ctx, &st);
    return st.validation_errors;
}

/* Every input must leave the context usable. */
static void fuzz_check(void)
{
    if (pvk_context_status(fuzz_ctx) != PVK_SUCCESS)
        abort();
}

#endif
