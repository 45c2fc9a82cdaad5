/* A host that ends its process without pvk_context_destroy while compile
 * threads still build (a test harness, a crashed frontend's exit path, the
 * realclient shim): the process must end cleanly.  Before, a worker could
 * be inside glslang or the driver when the libraries' destructors ran
 * (the validation layer's crashed), so the exit segfaulted, in about one
 * run of seven.  Each of RUNS child processes queues the builds of 24 new
 * states, then exits with its context alive (no leak check: ctest turns
 * LeakSanitizer off for this test); the parent checks how they ended. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "draw_common.h"

#define RUNS 6

static int child(void)
{
    pvk_config cfg = {.compile_threads = 1, .cache_dir = ""};
    ctx = th_context(&cfg, 0);
    setup_plain_rgba8();
    float *v = pvk_guest_ptr(ctx, VB, 3 * 32);
    for (unsigned k = 0; k < 3; k++) {
        float *q = v + k * 8;
        q[0] = k == 1 ? 0.8f : -0.8f, q[1] = k == 2 ? 0.8f : -0.8f, q[2] = -0.5f, q[3] = 1.0f;
        q[4] = 0.5f, q[5] = 0.25f * (float)k, q[6] = 0.7f, q[7] = 1.0f;
    }
    pvk_guest_written(ctx, VB, 3 * 32);
    for (unsigned s = 0; s < 24; s++) {
        tev_mode_state(s);
        reg(PVK_GPUREG_ATTRIBBUFFER0_OFFSET, 0);
        reg(PVK_GPUREG_PRIMITIVE_CONFIG, 1);
        reg(PVK_GPUREG_NUMVERTICES, 3);
        reg(PVK_GPUREG_VERTEX_OFFSET, 0);
        reg(PVK_GPUREG_DRAWARRAYS, 1);
    }
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    pvk_stats st = stats();
    CHECK(st.ubershader_draws > 0); /* their own pipelines were building */
    CHECK_EQ(st.validation_errors, 0);
    CHECK_EQ(th_log_errors, 0);
    return th_failures; /* the context stays: the builds go on into the exit */
}

int main(void)
{
    unsetenv("PVK_COMPILE_THREADS"); /* the context says what it wants */
    for (int i = 0; i < RUNS; i++) {
        fflush(stdout); /* not printed again by the child's exit */
        fflush(stderr);
        pid_t pid = fork(); /* before any Vulkan in this process */
        if (pid == 0)
            exit(child() ? 1 : 0);
        CHECK(pid > 0);
        int status = 0;
        CHECK_EQ(waitpid(pid, &status, 0), pid);
        if (WIFSIGNALED(status))
            printf("run %d: ended by signal %d\n", i, WTERMSIG(status));
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    (void)clear_fb, (void)draw_arrays, (void)tiled_index, (void)setup_target_d24s8, (void)differ, (void)copy_out;
    (void)th_release;
    return th_finish("test_exit");
}
