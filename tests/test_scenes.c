/* Every scene script in tests/scenes/ runs in a fresh context and must pass its probes;
 * malformed scripts are refused with the line named, never crash. */
#include <dirent.h>
#include <unistd.h>

#include "harness.h"
#include "tools/tools.h"

static int run_text(const char *text, int *failures)
{
    pvk_context *ctx = th_context(NULL, 0);
    th_quiet_errors = 1;
    pvk_result r = pvk_scene_run_text(ctx, text, strlen(text), "inline", NULL, failures);
    th_quiet_errors = 0;
    th_release(ctx);
    return r;
}

int main(void)
{
    DIR *d = opendir(PVK_SCENE_DIR);
    CHECK(d != NULL);
    int scenes = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".pvs"))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", PVK_SCENE_DIR, e->d_name);
        pvk_context *ctx = th_context(NULL, 0);
        int failures = -1;
        th_quiet_errors = strstr(e->d_name, "bad") != NULL; /* scenes about bad input log errors */
        pvk_result r = pvk_scene_run_file(ctx, path, &failures);
        th_quiet_errors = 0;
        printf("%s: %s, %d probe failures\n", e->d_name, pvk_result_string(r), failures);
        CHECK_EQ(r, PVK_SUCCESS);
        CHECK_EQ(failures, 0);
        th_release(ctx);
        scenes++;
    }
    if (d)
        closedir(d);
    CHECK(scenes >= 4);

    /* a probe that does not match is a failure, not an error */
    int f = 0;
    CHECK_EQ(run_text("mem 0x18000000 = 01 02\nprobe mem 0x18000000 u16 0x0201\nprobe mem 0x18000000 u8 7\n", &f),
             PVK_SUCCESS);
    CHECK_EQ(f, 1);
    /* malformed scripts */
    static const char *bad[] = {
        "frobnicate 1 2 3\n",
        "mmio NOT_A_REGISTER = 1\n",
        "mmio 0x10400010 1\n",
        "mmio 0x10400010 = 0x1FFFFFFFF\n",
        "mmio 0x20000000 = 1\n",
        "reg GPUREG_NOPE = 1\n",
        "reg 0x400 = 1\n",
        "mem 0x00001000 = 01\n",
        "mem 0x18000000 = 1FF\n",
        "mem 0x18000000 fill 0xFFFFFFFF 0\n",
        "mem 0x18000000 file /nonexistent\n",
        "cmdlist 0x18000004\nend\n",
        "cmdlist 0x18000000\nGPUREG_FINALIZE = 1 mask 16\nend\n",
        "cmdlist 0x18000000\nGPUREG_FINALIZE = 1\n",
        "cmdlist 0x1FFFFFF0\nGPUREG_FINALIZE = 1, 2, 3, 4, 5, 6\nend\n",
        "probe top 0 0 rgba(1,2,3,4)\n",
        "vblank\nprobe top 400 0 rgba(0,0,0,255)\n",
        "vblank\nprobe bottom 0 0 rgba(0,0,0,256)\n",
        "probe mem 0x18000000 u64 0\n",
        "expect frame-hash 1234\n",
        "expect errors\n",
        "shader vs\n    frobnicate r0\nendshader\n",
        "shader gs\nendshader\n",
        "shader gs stride 17\n",
        "shader gs stride\n",
        "shader vs\n.gsh point c0\n.proc main\nend\n.end\nendshader\n",         /* a GS as `shader vs` */
        "shader gs\n.gsh point c0\n.proc main\nend\n.end\nendshader\n",         /* no `shader vs` first */
        "shader vs\n.proc main\nend\n.end\nendshader\nshader gs\n.proc main\nend\n.end\nendshader\n", /* no .gsh */
        "expect unsupported\n",
        "shader vs\n    .proc main\n    end\n    .end\n",
        "mem 0x18000000 f32 1.0 x\n",
        "probe color 0 0 rgba(0,0,0,0)\n",
        "reg GPUREG_COLORBUFFER_FORMAT = 2\nreg GPUREG_FRAMEBUFFER_DIM = 0x01007010\nprobe color 0 0 rgba(0,0,0,0) within\n",
        "reg GPUREG_COLORBUFFER_FORMAT = 2\nreg GPUREG_FRAMEBUFFER_DIM = 0x01007010\nprobe color 0 0 rgba(0,0,0,0) within 300\n",
        "reg GPUREG_COLORBUFFER_FORMAT = 2\nreg GPUREG_FRAMEBUFFER_DIM = 0x01007010\nprobe color 0 0 rgba(0,0,0,0) near 3\n",
        "save color\n",
        "save depth x\n",
        "save color ../x\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int failures = 0;
        pvk_result r = run_text(bad[i], &failures);
        if (r != PVK_ERROR_BAD_DATA)
            fprintf(stderr, "script %zu was not refused: %s", i, bad[i]);
        CHECK_EQ(r, PVK_ERROR_BAD_DATA);
        CHECK(strstr(th_last_error, "inline:") != NULL);
    }

    /* `save color NAME` writes a PNG of the colour buffer only when asked to
     * (PVK_SCENE_OUT, `picavk run -o DIR`) */
    static const char save[] = "reg GPUREG_COLORBUFFER_FORMAT = 2\nreg GPUREG_COLORBUFFER_LOC = 0x03000000\n"
                               "reg GPUREG_FRAMEBUFFER_DIM = 0x01007010\nmem 0x18000000 fill 2048 0x7F\n"
                               "save color scene_save\n";
    char dir[] = "/tmp/picavk-scene-XXXXXX", png[128];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(png, sizeof png, "%s/scene_save.png", dir);
    CHECK_EQ(run_text(save, &f), PVK_SUCCESS);
    CHECK(access(png, F_OK) != 0);
    /* a probe with a tolerance: 0x7F7F7F7F read as R, G, B, A = 127 */
    static const char near[] = "reg GPUREG_COLORBUFFER_FORMAT = 2\nreg GPUREG_COLORBUFFER_LOC = 0x03000000\n"
                               "reg GPUREG_FRAMEBUFFER_DIM = 0x01007010\nmem 0x18000000 fill 2048 0x7F\n"
                               "probe color 3 3 rgba(128, 126, 127, 128) within 1\n"
                               "probe color 3 3 rgba(129,127,127,127) within 1\n";
    CHECK_EQ(run_text(near, &f), PVK_SUCCESS);
    CHECK_EQ(f, 1);
    setenv("PVK_SCENE_OUT", dir, 1);
    CHECK_EQ(run_text(save, &f), PVK_SUCCESS);
    unsetenv("PVK_SCENE_OUT");
    FILE *pf = fopen(png, "rb");
    unsigned char sig[8] = {0};
    CHECK(pf != NULL);
    if (pf) {
        CHECK_EQ(fread(sig, 1, 8, pf), 8);
        fclose(pf);
    }
    CHECK(!memcmp(sig, "\x89PNG\r\n\x1a\n", 8));
    remove(png);
    rmdir(dir);
    return th_finish("test_scenes");
}
