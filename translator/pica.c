/* The PICA internal register file as the CPU sees it through the external
 * window 0x10401000-0x10401FFF, the environment callbacks, register names,
 * and register-file snapshots for traces.  Decoding and side effects live in
 * cmdlist.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "translator/translator.h"

void pvk_pica_set_env(pvk_pica *p, const pvk_pica_env *env)
{
    if (!p->ready)
        pvk_pica_reset(p);
    if (env)
        p->env = *env;
    else
        memset(&p->env, 0, sizeof p->env);
}

uint32_t pvk_pica_read(pvk_pica *p, uint32_t id)
{
    if (id >= PVK_PICA_REG_COUNT)
        return 0;
    if (!p->ready)
        pvk_pica_reset(p);
    if (id < PVK_GPUREG_IRQ_REQ) /* IRQ_ACK reads its mirror, IRQ_REQ */
        id += PVK_GPUREG_IRQ_REQ;
    return p->regs[id];
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

/* ---- register-file snapshots ----
 *
 * Layout (every field a little-endian u32, in this order): the 0x400
 * registers; per shader unit (geometry, then vertex) code[4096],
 * opdesc[128], float uniforms [96][4], int uniforms [4], bool uniforms,
 * code/opdesc/float upload positions, the partial float upload [4] and its
 * word count; lighting LUTs [24][256], fog LUT [128], gas LUT [16], proctex
 * LUTs [6][256]; the lighting/fog/gas/proctex upload positions; fixed
 * attributes [12][4], the partial attribute [3] and its word count, the
 * fixed attribute index; the immediate-mode vertex [16][4] and its attribute
 * count.  Version 1 is the layout traces of picavk 0.1 carried. */

typedef struct state_io {
    uint8_t *out;       /* save: destination (NULL: only count) */
    const uint8_t *in;  /* load: source */
    size_t pos, cap;
} state_io;

static void io_words(state_io *io, uint32_t *w, size_t n)
{
    for (size_t i = 0; i < n; i++, io->pos += 4) {
        if (io->in) {
            if (io->pos + 4 <= io->cap) {
                const uint8_t *q = io->in + io->pos;
                w[i] = q[0] | q[1] << 8 | q[2] << 16 | (uint32_t)q[3] << 24;
            }
        } else if (io->out && io->pos + 4 <= io->cap) {
            uint8_t *q = io->out + io->pos;
            q[0] = (uint8_t)w[i], q[1] = (uint8_t)(w[i] >> 8), q[2] = (uint8_t)(w[i] >> 16), q[3] = (uint8_t)(w[i] >> 24);
        }
    }
}

#define IO_(x) io_words(io, (uint32_t *)(x), sizeof(x) / 4)
#define IO1_(x) io_words(io, &(x), 1)

/* One walk serves both directions, so the two can never disagree. */
static void state_walk(pvk_pica *p, state_io *io)
{
    IO_(p->regs);
    for (int u = 0; u < 2; u++) {
        pvk_shader_unit *sh = &p->sh[u];
        IO_(sh->code);
        IO_(sh->opdesc);
        IO_(sh->f);
        IO_(sh->i);
        IO1_(sh->b);
        IO1_(sh->code_pos);
        IO1_(sh->opdesc_pos);
        IO1_(sh->float_index);
        IO_(sh->float_buf);
        IO1_(sh->float_words);
    }
    IO_(p->lighting_lut);
    IO_(p->fog_lut);
    IO_(p->gas_lut);
    IO_(p->proctex_lut);
    IO1_(p->lighting_pos);
    IO1_(p->fog_pos);
    IO1_(p->gas_pos);
    IO1_(p->proctex_pos);
    IO_(p->fixed_attr);
    IO_(p->attr_buf);
    IO1_(p->attr_words);
    IO1_(p->fixed_index);
    IO_(p->imm);
    IO1_(p->imm_count);
}

size_t pvk_pica_state_save(const pvk_pica *p, void *out, size_t cap)
{
    state_io io = {.out = out, .cap = cap};
    uint32_t version = PVK_PICA_STATE_VERSION;
    io_words(&io, &version, 1);
    state_walk((pvk_pica *)p, &io); /* saving reads only */
    return io.pos;
}

/* Every FIFO position inside its table: they index the tables later. */
static bool state_valid(const pvk_pica *p)
{
    for (int u = 0; u < 2; u++) {
        const pvk_shader_unit *sh = &p->sh[u];
        if (sh->code_pos > PVK_SH_CODE_WORDS || sh->opdesc_pos > PVK_SH_OPDESCS ||
            sh->float_index > PVK_SH_FLOAT_UNIFORMS || sh->float_words >= 4)
            return false;
    }
    return p->lighting_pos <= PVK_LUT_ENTRIES * PVK_LIGHTING_LUTS && p->fog_pos <= PVK_FOG_LUT_ENTRIES &&
           p->gas_pos <= PVK_GAS_LUT_ENTRIES && p->proctex_pos <= PVK_LUT_ENTRIES * PVK_PROCTEX_LUT_TABLES &&
           p->attr_words < 3 && (p->fixed_index <= PVK_FIXED_ATTRS || p->fixed_index == 0xF) &&
           p->imm_count < PVK_MAX_VS_INPUTS;
}

pvk_result pvk_pica_state_load(pvk_pica *p, const void *data, size_t size)
{
    if (!p->ready)
        pvk_pica_reset(p);
    const uint8_t *d = data;
    if (size < 4)
        return PVK_ERROR_BAD_DATA;
    uint32_t version = d[0] | d[1] << 8 | d[2] << 16 | (uint32_t)d[3] << 24;
    if (version != 1)
        return PVK_ERROR_BAD_DATA; /* version 1 is the only layout so far */
    state_io count = {0};
    state_walk(p, &count);
    if (size - 4 != count.pos)
        return PVK_ERROR_BAD_DATA;
    pvk_pica *st = malloc(sizeof *st); /* checked before it replaces anything */
    if (!st)
        return PVK_ERROR_OUT_OF_MEMORY;
    *st = *p;
    state_io io = {.in = d + 4, .cap = size - 4};
    state_walk(st, &io);
    bool ok = state_valid(st);
    if (ok) {
        *p = *st;
        p->dirty = PVK_DIRTY_ALL;
        p->lut_version++;
    }
    free(st);
    return ok ? PVK_SUCCESS : PVK_ERROR_BAD_DATA;
}
