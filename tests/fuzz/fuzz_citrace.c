/* Fuzz target: the CiTrace importer. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pvk_citrace_replay_memory(fuzz_ctx, data, size, NULL, NULL);
    fuzz_check();
    return 0;
}
