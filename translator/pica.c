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

/* A version word, then the fields `walk` visits; saving reads only (the
 * walk writes each field back unchanged). */
static size_t save_walk(const pvk_pica *p, void *out, size_t cap, uint32_t version,
                        void (*walk)(pvk_pica *, state_io *))
{
    state_io io = {.out = out, .cap = cap};
    io_words(&io, &version, 1);
    walk((pvk_pica *)p, &io);
    return io.pos;
}

size_t pvk_pica_state_save(const pvk_pica *p, void *out, size_t cap)
{
    return save_walk(p, out, cap, PVK_PICA_STATE_VERSION, state_walk);
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

/* Load `data` (a version word, then the fields `walk` visits) into a copy
 * of `p`; only a copy `valid` accepts replaces `p`, through `commit`. */
static pvk_result load_checked(pvk_pica *p, const void *data, size_t size, uint32_t version,
                               void (*walk)(pvk_pica *, state_io *), bool (*valid)(const pvk_pica *),
                               void (*commit)(pvk_pica *, const pvk_pica *))
{
    const uint8_t *d = data;
    if (size < 4 || (d[0] | d[1] << 8 | d[2] << 16 | (uint32_t)d[3] << 24) != version)
        return PVK_ERROR_BAD_DATA;
    state_io count = {0};
    walk(p, &count);
    if (size - 4 != count.pos)
        return PVK_ERROR_BAD_DATA;
    pvk_pica *st = malloc(sizeof *st);
    if (!st)
        return PVK_ERROR_OUT_OF_MEMORY;
    *st = *p;
    state_io io = {.in = d + 4, .cap = size - 4};
    walk(st, &io);
    bool ok = valid(st);
    if (ok)
        commit(p, st);
    free(st);
    return ok ? PVK_SUCCESS : PVK_ERROR_BAD_DATA;
}

void pvk_pica_written(pvk_pica *p)
{
    p->dirty = PVK_DIRTY_ALL;
    p->lut_version++;
    p->draw_uniforms_version++;
    p->draw_uniforms_built = false;
    /* the programs may differ from those hashed and bounded before */
    p->vs_hashed = false;
    memset(p->step_bound, 0, sizeof p->step_bound);
}

static void state_commit(pvk_pica *p, const pvk_pica *st)
{
    *p = *st; /* st began as a copy of p (load_checked): its versions are p's */
    pvk_pica_written(p);
}

pvk_result pvk_pica_state_load(pvk_pica *p, const void *data, size_t size)
{
    if (!p->ready)
        pvk_pica_reset(p);
    return load_checked(p, data, size, PVK_PICA_STATE_VERSION, state_walk, state_valid, state_commit);
}

/* ---- what a save state adds to the snapshot ----
 *
 * Layout (every field a little-endian u32; floats as their bits, bools and
 * bytes widened): a version word (1); irq_active low, high; the immediate-
 * mode primitive's vertex count and its three kept vertices (pos[4] quat[4]
 * color[4] tc0[2] tc1[2] tc2[2] tc0_w view[3] each); the geometry unit:
 * r[16][4], a0[2], aL, cmp[2], the last SETEMIT's vertex, primitive and
 * winding, v[16][4], o[16][4], the emit slots [3][16][4], the point-mode
 * buffer [16][4], fill, primitives' vertices left and taken.  Traces do not
 * carry it: a trace starts at a draw boundary, where none of it matters
 * but for programs that read the geometry unit's leftovers. */

static void io_floats(state_io *io, float *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t w;
        memcpy(&w, &f[i], 4);
        io_words(io, &w, 1);
        memcpy(&f[i], &w, 4);
    }
}

static void io_byte(state_io *io, uint8_t *b)
{
    uint32_t w = *b;
    io_words(io, &w, 1);
    *b = (uint8_t)w;
}

static void io_bool(state_io *io, bool *b)
{
    uint32_t w = *b;
    io_words(io, &w, 1);
    *b = w != 0;
}

#define IOF_(x) io_floats(io, &(x)[0], sizeof(x) / sizeof((x)[0]))
#define IOF2_(x) io_floats(io, &(x)[0][0], sizeof(x) / sizeof((x)[0][0]))
#define IOF3_(x) io_floats(io, &(x)[0][0][0], sizeof(x) / sizeof((x)[0][0][0]))

static void live_walk(pvk_pica *p, state_io *io)
{
    uint32_t irq[2] = {(uint32_t)p->irq_active, (uint32_t)(p->irq_active >> 32)};
    IO_(irq);
    p->irq_active = irq[0] | (uint64_t)irq[1] << 32;
    IO1_(p->imm_vertices);
    for (int i = 0; i < 3; i++) {
        pvk_vertex *v = &p->imm_tri[i];
        IOF_(v->pos);
        IOF_(v->quat);
        IOF_(v->color);
        IOF_(v->tc0);
        IOF_(v->tc1);
        IOF_(v->tc2);
        io_floats(io, &v->tc0_w, 1);
        IOF_(v->view);
    }
    pvk_gs_state *g = &p->gs;
    IOF2_(g->regs.r);
    for (int i = 0; i < 2; i++) {
        uint32_t a = (uint32_t)g->regs.a0[i];
        io_words(io, &a, 1);
        g->regs.a0[i] = (int32_t)a;
    }
    io_byte(io, &g->regs.aL);
    io_bool(io, &g->regs.cmp[0]);
    io_bool(io, &g->regs.cmp[1]);
    io_byte(io, &g->regs.emit_vtx);
    io_bool(io, &g->regs.emit_prim);
    io_bool(io, &g->regs.emit_winding);
    IOF2_(g->v);
    IOF2_(g->o);
    IOF3_(g->slot);
    IOF2_(g->buf);
    IO1_(g->fill);
    IO1_(g->prim_left);
    IO1_(g->prim_vertex);
}

size_t pvk_pica_live_save(const pvk_pica *p, void *out, size_t cap)
{
    return save_walk(p, out, cap, PVK_PICA_LIVE_VERSION, live_walk);
}

/* gs.c indexes its buffers with these; EMIT checks the vertex id */
static bool live_valid(const pvk_pica *p)
{
    return p->gs.fill <= PVK_SH_FLOAT_UNIFORMS && p->gs.regs.emit_vtx <= 3;
}

static void live_commit(pvk_pica *p, const pvk_pica *st)
{
    p->irq_active = st->irq_active;
    p->imm_vertices = st->imm_vertices;
    memcpy(p->imm_tri, st->imm_tri, sizeof p->imm_tri);
    uint32_t logged = p->gs.logged;
    p->gs = st->gs;
    p->gs.logged = logged;
}

pvk_result pvk_pica_live_load(pvk_pica *p, const void *data, size_t size)
{
    return load_checked(p, data, size, PVK_PICA_LIVE_VERSION, live_walk, live_valid, live_commit);
}
