/* Fuzz target: the picavk trace reader. */
#include <unistd.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/pvk-fuzz-trace-%d.pvt", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    pvk_trace_replay(fuzz_ctx, path, NULL, NULL);
    remove(path);
    fuzz_check();
    return 0;
}
