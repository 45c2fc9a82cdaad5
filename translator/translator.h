/* translator/: the PICA internal register file and, later, command lists and
 * draws.  Never calls Vulkan.  What the other folders may use of it. */
#ifndef PVK_TRANSLATOR_H
#define PVK_TRANSLATOR_H

#include <stdint.h>

#include "picavk/picavk.h"

#define PVK_PICA_REG_COUNT 0x400u

/* Internal register ids the external interface needs (libctru names). */
enum {
    PVK_GPUREG_FINALIZE = 0x010,
    PVK_GPUREG_CMDBUF_SIZE0 = 0x238,
    PVK_GPUREG_CMDBUF_SIZE1 = 0x239,
    PVK_GPUREG_CMDBUF_ADDR0 = 0x23A,
    PVK_GPUREG_CMDBUF_ADDR1 = 0x23B,
    PVK_GPUREG_CMDBUF_JUMP0 = 0x23C,
    PVK_GPUREG_CMDBUF_JUMP1 = 0x23D,
};

typedef struct pvk_pica {
    uint32_t regs[PVK_PICA_REG_COUNT];
} pvk_pica;

/* A 32-bit write from the CPU side (external window 0x10401000+4*id):
 * stores the register and runs its side effect. */
pvk_result pvk_pica_mmio_write(pvk_context *ctx, uint32_t id, uint32_t value);
uint32_t pvk_pica_mmio_read(pvk_context *ctx, uint32_t id);

#endif
