/* Fuzz target: the scene-script parser and runner. */
#include "fuzz_common.h"
#include "tools/tools.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int failures;
    pvk_scene_run_text(fuzz_ctx, (const char *)data, size, "fuzz", NULL, &failures);
    fuzz_check();
    return 0;
}
