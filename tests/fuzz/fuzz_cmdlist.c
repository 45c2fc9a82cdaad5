/* Fuzz target: the command-list decoder, on lists placed in guest memory
 * (so jumps and buffer ends behave as on a real kick). */
#include <string.h>

#include "fuzz_common.h"

#define LIST_ADDR 0x18400000u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size &= ~(size_t)15; /* command buffers are 16-byte multiples */
    if (size == 0 || size > 0x10000)
        return 0;
    uint8_t *dst = pvk_guest_ptr(fuzz_ctx, LIST_ADDR, (uint32_t)size);
    pvk_wait_idle(fuzz_ctx);
    memcpy(dst, data, size);
    pvk_guest_written(fuzz_ctx, LIST_ADDR, (uint32_t)size);
    pvk_command_list_run(fuzz_ctx, LIST_ADDR, (uint32_t)size);
    pvk_wait_idle(fuzz_ctx);
    fuzz_check();
    return 0;
}
