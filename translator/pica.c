/* The PICA internal register file as the CPU sees it through the external
 * window 0x10401000-0x10401FFF.  Command lists arrive in a later issue; until
 * then the registers that would start one refuse with PVK_ERROR_UNSUPPORTED. */
#include "runtime/runtime.h"

pvk_result pvk_pica_mmio_write(pvk_context *ctx, uint32_t id, uint32_t value)
{
    if (id >= PVK_PICA_REG_COUNT)
        return PVK_ERROR_OUT_OF_RANGE;
    if (id == PVK_GPUREG_CMDBUF_JUMP0 || id == PVK_GPUREG_CMDBUF_JUMP1) {
        if (value & 1) {
            pvk_unsupported(ctx, "command list start (GPUREG_CMDBUF_JUMP%u) is not implemented yet",
                            id - PVK_GPUREG_CMDBUF_JUMP0);
            return PVK_ERROR_UNSUPPORTED;
        }
    }
    ctx->pica.regs[id] = value;
    return PVK_SUCCESS;
}

uint32_t pvk_pica_mmio_read(pvk_context *ctx, uint32_t id)
{
    if (id >= PVK_PICA_REG_COUNT)
        return 0;
    if (id == 0x035) /* 0x104010D4: the memory-control seed reads the hardware ID here */
        return 0x00010002u;
    return ctx->pica.regs[id];
}
