/* Save states: pvk_state_save and pvk_state_load after a real frame (the
 * sample trace tests/traces/citro3d_rtt_frame.pvt, a citro3d-shaped frame
 * with a render-to-texture pass), against what the same run measures for
 * the part a save cannot avoid: pvk_wait_idle (a save waits as it does)
 * and memcpy of the state's bytes.  Three figures: a save with nothing in
 * flight, a save as a frame ends (in the replay's frame callback: the
 * surfaces the GPU changed are written back first), and a load.  Also the state's size and its size
 * compressed with zstd level 1 (what a host keeping many states for rewind
 * would store).
 *   bench/state [TRACE] [--scale N]   (run from the repository's root) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zstd.h>

#include "picavk/picavk.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define REPS 101

typedef struct dirty_run {
    uint8_t *buf;
    size_t n;
    int count;
    double t[REPS];
} dirty_run;

static pvk_result save_in_frame(void *user, pvk_context *ctx, uint32_t frame)
{
    (void)frame;
    dirty_run *d = user;
    if (d->count >= REPS)
        return PVK_SUCCESS;
    double t0 = now();
    pvk_result r = pvk_state_save(ctx, d->buf, d->n, &d->n);
    d->t[d->count++] = now() - t0;
    return r;
}

static double median(double *t)
{
    qsort(t, REPS, sizeof *t, cmp_double);
    return t[REPS / 2];
}

int main(int argc, char **argv)
{
    const char *trace = "tests/traces/citro3d_rtt_frame.pvt";
    uint32_t scale = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--scale") && i + 1 < argc)
            scale = (uint32_t)atoi(argv[++i]);
        else
            trace = argv[i];
    }
    pvk_config cfg = {.scale = scale};
    pvk_context *ctx;
    if (pvk_context_create(&cfg, &ctx)) {
        fprintf(stderr, "state: no context\n");
        return 1;
    }
    if (pvk_trace_replay(ctx, trace, NULL, NULL)) {
        fprintf(stderr, "state: cannot replay %s (run from the repository's root)\n", trace);
        pvk_context_destroy(ctx);
        return 1;
    }
    size_t n = 0;
    pvk_state_save(ctx, NULL, 0, &n);
    uint8_t *buf = malloc(n), *copy = malloc(n);
    double t_save[REPS], t_idle[REPS], t_copy[REPS], t_load[REPS];
    for (int i = 0; i < REPS; i++) {
        double t0 = now();
        pvk_wait_idle(ctx);
        double t1 = now();
        pvk_state_save(ctx, buf, n, &n);
        double t2 = now();
        memcpy(copy, buf, n);
        double t3 = now();
        pvk_state_load(ctx, buf, n);
        double t4 = now();
        t_idle[i] = t1 - t0, t_save[i] = t2 - t1, t_copy[i] = t3 - t2, t_load[i] = t4 - t3;
    }
    /* a save as a frame ends (in the replay's frame callback: the frame's
     * surfaces are still the GPU's), replaying the trace again and again */
    dirty_run dr = {.buf = buf, .n = n};
    while (dr.count < REPS)
        if (pvk_trace_replay(ctx, trace, save_in_frame, &dr))
            break;
    size_t zcap = ZSTD_compressBound(n);
    void *z = malloc(zcap);
    size_t zn = ZSTD_compress(z, zcap, buf, n, 1);
    pvk_stats st;
    pvk_get_stats(ctx, &st);
    pvk_context_destroy(ctx);

    double save = median(t_save), idle = median(t_idle), mc = median(t_copy), load = median(t_load),
           dirty = dr.count == REPS ? median(dr.t) : 0;
    printf("save state of %s at %ux: %zu bytes, %zu with zstd -1\n", trace, scale, n,
           ZSTD_isError(zn) ? (size_t)0 : zn);
    printf("%-34s %10s\n", "median of 101", "us");
    printf("%-34s %10.1f\n", "pvk_wait_idle, nothing in flight", idle * 1e6);
    printf("%-34s %10.1f\n", "memcpy of the state", mc * 1e6);
    printf("%-34s %10.1f\n", "pvk_state_save, nothing in flight", save * 1e6);
    printf("%-34s %10.1f\n", "pvk_state_save as a frame ends", dirty * 1e6);
    printf("%-34s %10.1f\n", "pvk_state_load", load * 1e6);
    printf("(%llu saves, %llu loads, %llu surface write-backs)\n", (unsigned long long)st.state_saves,
           (unsigned long long)st.state_loads, (unsigned long long)st.surface_writebacks);
    printf("BENCH name=state_bytes value=%zu unit=bytes baseline=zstd_level1 ratio=%.2f\n", n,
           ZSTD_isError(zn) || !zn ? 0.0 : (double)n / (double)zn);
    printf("BENCH name=state_save_idle value=%.1f unit=us baseline=wait_idle_plus_memcpy ratio=%.2f\n", save * 1e6,
           save > 0 ? (idle + mc) / save : 0.0);
    printf("BENCH name=state_save_after_frame value=%.1f unit=us baseline=save_idle ratio=%.2f\n", dirty * 1e6,
           dirty > 0 ? save / dirty : 0.0);
    printf("BENCH name=state_load value=%.1f unit=us baseline=memcpy ratio=%.3f\n", load * 1e6,
           load > 0 ? mc / load : 0.0);
    free(buf);
    free(copy);
    free(z);
    return 0;
}
