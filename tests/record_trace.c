/* Records a scene script as a picavk trace: the sample traces in
 * tests/traces/ (see tests/README.md) are scenes of tests/scenes/ recorded
 * this way.  Not a test; scripts/ does not call it.
 *   build/tests/record_trace SCENE.pvs OUT.pvt
 * The trace starts before the scene's first line, so it holds what the
 * scene does from a fresh context; each `vblank` of the scene is a frame.
 * Exits non-zero when the scene fails a probe or cannot be recorded. */
#include <stdio.h>

#include "picavk/picavk.h"
#include "tools/tools.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: record_trace SCENE.pvs OUT.pvt\n");
        return 2;
    }
    pvk_context *ctx = NULL;
    pvk_config cfg = {0};
    pvk_result r = pvk_context_create(&cfg, &ctx);
    if (r) {
        fprintf(stderr, "record_trace: cannot create a context: %s\n", pvk_result_string(r));
        return 1;
    }
    int failures = 0;
    if ((r = pvk_trace_begin(ctx, argv[2]))) {
        fprintf(stderr, "record_trace: %s: %s\n", argv[2], pvk_result_string(r));
    } else {
        r = pvk_scene_run_file(ctx, argv[1], &failures);
        pvk_result e = pvk_trace_end(ctx);
        if (!r)
            r = e;
        if (r || failures)
            fprintf(stderr, "record_trace: %s: %s, %d probes failed\n", argv[1], pvk_result_string(r), failures);
    }
    uint32_t frames = 0;
    if (!r)
        r = pvk_trace_frames(argv[2], &frames);
    if (!r && !failures)
        printf("recorded %s: %u frames\n", argv[2], frames);
    pvk_context_destroy(ctx);
    return r || failures ? 1 : 0;
}
