/* The disk shader cache under the host's control (issue 26): pvk_config.cache_dir
 * is used instead of PVK_CACHE_DIR, "" writes nothing and still draws the same
 * pixels, and the compile counters move. */
#include <dirent.h>
#include <sys/stat.h>

#include <stdlib.h>

#include "draw_common.h"
#include "runtime/pipeline.h"

/* Regular files in `dir` (0 if it cannot be opened). */
static int files_in(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Sum of the sizes of the files in `dir` whose names start with `prefix`, and the largest. */
static uint64_t bytes_in(const char *dir, const char *prefix, uint64_t *largest)
{
    DIR *d = opendir(dir);
    uint64_t total = 0, big = 0;
    char path[512];
    for (struct dirent *e; d && (e = readdir(d));) {
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (strncmp(e->d_name, prefix, strlen(prefix)) || stat(path, &st) || !S_ISREG(st.st_mode))
            continue;
        total += (uint64_t)st.st_size;
        big = (uint64_t)st.st_size > big ? (uint64_t)st.st_size : big;
    }
    if (d)
        closedir(d);
    if (largest)
        *largest = big;
    return total;
}

/* A context drawing a full-buffer triangle through TEV stage 0. */
static void scene(pvk_config *cfg)
{
    ctx = th_context(cfg, 0);
    setup_plain_rgba8();
    float *v = pvk_guest_ptr(ctx, VB, 3 * 32);
    const float pos[3][2] = {{-1, -1}, {3, -1}, {-1, 3}};
    for (int i = 0; i < 3; i++) {
        const float p[8] = {pos[i][0], pos[i][1], -0.5f, 1.0f, 0.2f, 0.4f, 0.6f, 0.8f};
        memcpy(v + 8 * i, p, sizeof p);
    }
    pvk_guest_written(ctx, VB, 3 * 32);
    reg(PVK_GPUREG_TEXENV0_COLOR, 0x40302010);
    reg(PVK_GPUREG_TEXENV0_SOURCE, 0x00E000E0u); /* source 1: the constant */
}

/* Draws distinct fragment shader `i` (< 80): TEV stage 0's colour and alpha operations. */
static void shader(uint32_t i)
{
    static const uint32_t alpha_op[8] = {0, 1, 2, 3, 4, 5, 8, 9};
    reg(PVK_GPUREG_TEXENV0_COMBINER, i % 10 | alpha_op[i / 10 % 8] << 16);
    draw_arrays(0, 3);
}

/* Three fragment shaders (TEV stage 0: replace, modulate, add of the primary
 * colour and the constant), each drawn over the whole buffer; the colour
 * buffer after the last goes to `out`. */
static pvk_stats three_shaders(pvk_config *cfg, uint8_t *out)
{
    scene(cfg);
    for (uint32_t k = 0; k < 3; k++) {
        reg(PVK_GPUREG_TEXENV0_SOURCE, 0x00E000E0u); /* source 1: the constant */
        reg(PVK_GPUREG_TEXENV0_COMBINER, k * 0x00010001u); /* replace, modulate, add */
        draw_arrays(0, 3);
    }
    copy_out(out, FB);
    pvk_stats st = stats();
    th_release(ctx);
    return st;
}

static void cache_dir_config(void)
{
    char host[] = "/tmp/pvk-cache-host-XXXXXX", env[] = "/tmp/pvk-cache-env-XXXXXX";
    CHECK(mkdtemp(host) != NULL);
    CHECK(mkdtemp(env) != NULL);
    setenv("PVK_CACHE_DIR", env, 1);
    static uint8_t a[W * H * 4], b[W * H * 4], c[W * H * 4];

    /* the host's directory wins over the environment's */
    pvk_config cfg = {.cache_dir = host};
    pvk_stats s = three_shaders(&cfg, a);
    CHECK(s.shader_compiles >= 3);
    CHECK(s.shader_compile_ns > 0);
    CHECK(s.shader_compile_max_ns > 0 && s.shader_compile_max_ns <= s.shader_compile_ns);
    CHECK(files_in(host) >= 4); /* three fragment shaders and the pipeline cache */
    CHECK_EQ(files_in(env), 0);

    /* a second context loads them */
    s = three_shaders(&cfg, b);
    CHECK_EQ(s.shader_compiles, 0);
    CHECK(s.shader_disk_hits >= 3);
    CHECK_EQ(differ(a, b, sizeof a), 0);

    /* "": no disk cache, compiled again, the same pixels, nothing written */
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", host);
    CHECK_EQ(system(cmd), 0);
    cfg.cache_dir = "";
    s = three_shaders(&cfg, c);
    CHECK(s.shader_compiles >= 3);
    CHECK_EQ(s.shader_disk_hits, 0);
    CHECK_EQ(differ(a, c, sizeof a), 0);
    CHECK_EQ(files_in(env), 0);
    struct stat st;
    CHECK(stat(host, &st) != 0); /* not even created */

    /* a quarter of a screen changed: not a trivially blank picture */
    uint32_t unset = 0;
    for (uint32_t i = 0; i < W * H; i++)
        unset += !a[i * 4] && !a[i * 4 + 1] && !a[i * 4 + 2] && !a[i * 4 + 3];
    CHECK(unset < W * H / 4);
    snprintf(cmd, sizeof cmd, "rm -rf %s", env);
    CHECK_EQ(system(cmd), 0);
    unsetenv("PVK_CACHE_DIR");
}

/* A cap smaller than what the draws compile: the oldest files go, the size
 * stays under the cap, and the most recent shader survives for the next run. */
static void cap_evicts(void)
{
    enum { N = 24 };
    char big[] = "/tmp/pvk-cache-big-XXXXXX", small[] = "/tmp/pvk-cache-cap-XXXXXX";
    CHECK(mkdtemp(big) != NULL);
    CHECK(mkdtemp(small) != NULL);
    /* what N shaders take without a cap, to size one they overflow */
    pvk_config cfg = {.cache_dir = big};
    scene(&cfg);
    for (uint32_t i = 0; i < N; i++)
        shader(i);
    th_release(ctx);
    uint64_t fs_max = 0, pipe = bytes_in(big, "pipelines-", NULL), vs = bytes_in(big, "vs-", NULL);
    uint64_t fs = bytes_in(big, "fs-", &fs_max), all = bytes_in(big, "", NULL);
    uint64_t cap = 2 * (pipe + vs + fs_max);
    printf("cache of %d shaders: %llu bytes (fragment %llu, largest %llu; pipeline cache %llu); cap %llu\n", N,
           (unsigned long long)all, (unsigned long long)fs, (unsigned long long)fs_max, (unsigned long long)pipe,
           (unsigned long long)cap);
    CHECK(all > cap); /* else this test tests nothing */

    cfg = (pvk_config){.cache_dir = small, .cache_max_bytes = cap};
    scene(&cfg);
    for (uint32_t i = 0; i < N; i++)
        shader(i);
    pvk_stats s = stats();
    th_release(ctx);
    CHECK(s.disk_cache_evictions > 0);
    CHECK(bytes_in(small, "", NULL) <= cap);

    /* the first shader was evicted, the last one is loaded */
    scene(&cfg);
    shader(0);
    pvk_stats a = stats();
    shader(N - 1);
    pvk_stats b = stats();
    th_release(ctx);
    CHECK_EQ(b.shader_compiles - a.shader_compiles, 0);
    CHECK_EQ(b.shader_disk_hits - a.shader_disk_hits, 1);
    CHECK(a.shader_compiles >= 1);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s %s", big, small);
    CHECK_EQ(system(cmd), 0);
}

/* Draws that differ only in pipeline state (here the colour write mask)
 * make new pipelines from one fragment module. */
static void module_reuse(void)
{
    pvk_config cfg = {.cache_dir = ""};
    scene(&cfg);
    reg(PVK_GPUREG_TEXENV0_COMBINER, 1); /* modulate */
    static const uint32_t mask[4] = {0xF00, 0x700, 0x300, 0x100}; /* colour write masks */
    pvk_stats a = stats();
    for (uint32_t i = 0; i < 4; i++) {
        reg(PVK_GPUREG_DEPTH_COLOR_MASK, mask[i]);
        draw_arrays(0, 3);
    }
    pvk_stats b = stats();
    th_release(ctx);
    CHECK(b.pipelines_created - a.pipelines_created >= 3);
    CHECK_EQ(b.fragment_modules_created - a.fragment_modules_created, 1);
}

/* Pipelines are keyed on ids of their shader keys (pvk_fs_id): equal keys
 * one id, each new key a new one; past the table's size (4096 keys) the ids
 * start over and the pipelines go, and drawing goes on (a new pipeline for
 * the same state, the same pixels). */
static void key_ids(void)
{
    pvk_config cfg = {.cache_dir = ""};
    scene(&cfg);
    reg(PVK_GPUREG_TEXENV0_COMBINER, 1);
    draw_arrays(0, 3);
    uint8_t before[W * H * 4], after[W * H * 4];
    copy_out(before, FB);
    pvk_fs_key k;
    memset(&k, 0, sizeof k);
    uint32_t first = pvk_fs_id(ctx, &k);
    CHECK(first != 0);
    CHECK_EQ(pvk_fs_id(ctx, &k), first);
    uint32_t prev = first;
    int increasing = 1;
    for (uint32_t i = 1; i <= 5000; i++) {
        memcpy(&k, &i, sizeof i); /* bytes of the key: a distinct key each */
        uint32_t id = pvk_fs_id(ctx, &k);
        increasing &= id > prev;
        prev = id;
    }
    CHECK(increasing);
    memset(&k, 0, sizeof k);
    CHECK(pvk_fs_id(ctx, &k) > prev); /* forgotten at the restart: a new id */
    pvk_stats a = stats();
    memset(pvk_guest_ptr(ctx, FB, W * H * 4), 0, W * H * 4);
    pvk_guest_written(ctx, FB, W * H * 4);
    draw_arrays(0, 3); /* the state drawn before: its pipeline went with the restart */
    CHECK_EQ(stats().pipelines_created - a.pipelines_created, 1);
    copy_out(after, FB);
    CHECK_EQ(differ(before, after, sizeof before), 0);
    th_release(ctx);
}

int main(void)
{
    /* counters below say which path drew or what compiled when: builds on
     * the calling thread (tests/test_compile.c covers the compile threads) */
    setenv("PVK_COMPILE_THREADS", "0", 1);
    module_reuse();
    key_ids();
    cache_dir_config();
    cap_evicts();
    CHECK_EQ(th_log_errors, 0);
    (void)clear_fb, (void)tiled_index, (void)setup_target_d24s8; /* shared helpers not used here */
    return th_finish("test_cache");
}
