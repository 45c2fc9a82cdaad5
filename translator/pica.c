/* The PICA internal register file as the CPU sees it through the external
 * window 0x10401000-0x10401FFF, register names, and the public entry point
 * for command lists.  Decoding and side effects live in cmdlist.c. */
#include <string.h>

#include "runtime/runtime.h"

pvk_result pvk_pica_mmio_write(pvk_context *ctx, uint32_t id, uint32_t value)
{
    if (id >= PVK_PICA_REG_COUNT)
        return PVK_ERROR_OUT_OF_RANGE;
    if (!ctx->pica.ready)
        pvk_pica_reset(ctx);
    return pvk_pica_cpu_write(ctx, id, value);
}

uint32_t pvk_pica_mmio_read(pvk_context *ctx, uint32_t id)
{
    if (id >= PVK_PICA_REG_COUNT)
        return 0;
    if (!ctx->pica.ready)
        pvk_pica_reset(ctx);
    if (id < PVK_GPUREG_IRQ_REQ) /* IRQ_ACK reads its mirror, IRQ_REQ */
        id += PVK_GPUREG_IRQ_REQ;
    return ctx->pica.regs[id];
}

void pvk_pica_set_hooks(pvk_context *ctx, const pvk_pica_hooks *hooks)
{
    if (!ctx->pica.ready)
        pvk_pica_reset(ctx);
    if (hooks)
        ctx->pica.hooks = *hooks;
    else
        memset(&ctx->pica.hooks, 0, sizeof ctx->pica.hooks);
}

/* The GSP way (GX command 1): size, address, start through the external
 * registers, so a trace records it like any other host. */
pvk_result pvk_command_list_run(pvk_context *ctx, uint32_t paddr, uint32_t size)
{
    if (!ctx)
        return PVK_ERROR_INVALID_ARGUMENT;
    pvk_result r = pvk_mmio_write32(ctx, 0x10401000u + 4 * PVK_GPUREG_CMDBUF_SIZE0, size >> 3);
    if (!r)
        r = pvk_mmio_write32(ctx, 0x10401000u + 4 * PVK_GPUREG_CMDBUF_ADDR0, paddr >> 3);
    if (!r)
        r = pvk_mmio_write32(ctx, 0x10401000u + 4 * PVK_GPUREG_CMDBUF_JUMP0, 1);
    return r;
}

/* ---- names ---- */

typedef struct reg_name {
    const char *name; /* "GPUREG_..." */
    uint16_t id;
} reg_name;

#define PVK_NAME_(n, i) {"GPUREG_" #n, (i)},
static const reg_name reg_names[] = {PVK_PICA_REG_LIST(PVK_NAME_)};
#undef PVK_NAME_

/* The seed documents' names where libctru's differ. */
static const reg_name seed_names[] = {
    {"RENDERBUFFER_INVALIDATE", PVK_GPUREG_FRAMEBUFFER_INVALIDATE},
    {"RENDERBUFFER_FLUSH", PVK_GPUREG_FRAMEBUFFER_FLUSH},
    {"COLORBUFFER_READING", PVK_GPUREG_COLORBUFFER_READ},
    {"COLORBUFFER_WRITING", PVK_GPUREG_COLORBUFFER_WRITE},
    {"DEPTHBUFFER_READING", PVK_GPUREG_DEPTHBUFFER_READ},
    {"DEPTHBUFFER_WRITING", PVK_GPUREG_DEPTHBUFFER_WRITE},
    {"RENDERBUFFER_BLOCK32", PVK_GPUREG_FRAMEBUFFER_BLOCK32},
    {"RENDERBUFFER_DIM_0", PVK_GPUREG_FRAMEBUFFER_DIM},
    {"RENDERBUFFER_DIM_1", PVK_GPUREG_RENDERBUF_DIM},
    {"IRQ_REQ", PVK_GPUREG_IRQ_REQ},
    {"VSH_FLOATUNIFORM_INDEX", PVK_GPUREG_VSH_FLOATUNIFORM_CONFIG},
    {"GSH_FLOATUNIFORM_INDEX", PVK_GPUREG_GSH_FLOATUNIFORM_CONFIG},
    {"VSH_CODETRANSFER_INDEX", PVK_GPUREG_VSH_CODETRANSFER_CONFIG},
    {"GSH_CODETRANSFER_INDEX", PVK_GPUREG_GSH_CODETRANSFER_CONFIG},
    {"VSH_OPDESCS_INDEX", PVK_GPUREG_VSH_OPDESCS_CONFIG},
    {"GSH_OPDESCS_INDEX", PVK_GPUREG_GSH_OPDESCS_CONFIG},
};

const char *pvk_pica_reg_name(uint32_t id)
{
    for (size_t i = 0; i < sizeof reg_names / sizeof reg_names[0]; i++)
        if (reg_names[i].id == id)
            return reg_names[i].name;
    return NULL;
}

int pvk_pica_reg_id(const char *name)
{
    if (!name)
        return -1;
    if (!strncmp(name, "GPUREG_", 7))
        name += 7;
    for (size_t i = 0; i < sizeof reg_names / sizeof reg_names[0]; i++)
        if (!strcmp(reg_names[i].name + 7, name))
            return reg_names[i].id;
    for (size_t i = 0; i < sizeof seed_names / sizeof seed_names[0]; i++)
        if (!strcmp(seed_names[i].name, name))
            return seed_names[i].id;
    return -1;
}
