/* Texture unit registers (translator/texture.c), without a device: command
 * lists written as citro3d writes them (C3D_TexInitWithParams, C3D_TexSetFilter,
 * C3D_TexSetFilterMipmap, C3D_TexSetWrap, C3D_TexSetLodBias, C3Di_SetTex and
 * the TEXUNIT_CONFIG writes of C3Di_UpdateContext) decode to the expected
 * descriptions; every field changes the description; reserved values are
 * flagged; the clear-texture-cache bit reaches the environment as a cache op
 * and does not stay in the register. */
#include "harness.h"
#include "translator/regs.h"
#include "translator/translator.h"

/* ---- citro3d's texture object, as far as the registers go ---- */
typedef struct c3d_tex {
    uint32_t addr[6];
    uint32_t fmt, width, height, param, border, lod_bias, max_level, min_level;
} c3d_tex;

enum { NEAREST = 0, LINEAR = 1 };
enum { CLAMP_TO_EDGE = 0, CLAMP_TO_BORDER = 1, REPEAT = 2, MIRRORED_REPEAT = 3 };

static void tex_init(c3d_tex *t, uint32_t w, uint32_t h, uint32_t fmt, uint32_t type, uint32_t max_level)
{
    memset(t, 0, sizeof *t);
    t->width = w, t->height = h, t->fmt = fmt, t->max_level = max_level;
    t->param = (type & 7) << 28;                 /* GPU_TEXTURE_MODE */
    if (fmt == 12)
        t->param |= 1u << 5;                     /* GPU_TEXTURE_ETC1_PARAM */
    if (type == 2 || type == 4)
        t->param |= 1u << 20;                    /* GPU_TEXTURE_SHADOW_PARAM */
}
static void tex_set_filter(c3d_tex *t, uint32_t mag, uint32_t min)
{
    t->param = (t->param & ~6u) | (mag & 1) << 1 | (min & 1) << 2;
}
static void tex_set_filter_mipmap(c3d_tex *t, uint32_t f)
{
    t->param = (t->param & ~(1u << 24)) | (f & 1) << 24;
}
static void tex_set_wrap(c3d_tex *t, uint32_t s, uint32_t tt)
{
    t->param = (t->param & ~(3u << 12 | 3u << 8)) | (s & 3) << 12 | (tt & 3) << 8;
}
static void tex_set_lod_bias(c3d_tex *t, float bias)
{
    int i = (int)(bias * 0x100);
    if (i > 0xFFF)
        i = 0xFFF;
    else if (i < -0x1000)
        i = -0x1000;
    t->lod_bias = (uint32_t)i & 0x1FFF;
}

/* ---- a command list builder ---- */
typedef struct list {
    uint32_t w[256];
    uint32_t n;
} list;

static void cmd(list *l, uint32_t id, uint32_t mask, const uint32_t *v, uint32_t count, int consecutive)
{
    l->w[l->n++] = v[0];
    l->w[l->n++] = pvk_cmd_header(id, mask, count - 1, consecutive);
    for (uint32_t i = 1; i < count; i++)
        l->w[l->n++] = v[i];
    if (l->n & 1)
        l->w[l->n++] = 0;
}
static void write1(list *l, uint32_t id, uint32_t v)
{
    cmd(l, id, 0xF, &v, 1, 0);
}

/* C3Di_SetTex for `unit`, then the TEXUNIT_CONFIG writes for `units`. */
static void bind(list *l, unsigned unit, const c3d_tex *t)
{
    static const uint32_t base[3] = {0x081, 0x091, 0x099}, type[3] = {0x08E, 0x096, 0x09E};
    uint32_t reg[10] = {t->border, t->height | t->width << 16, t->param,
                        t->lod_bias | t->max_level << 16 | t->min_level << 24, t->addr[0] >> 3};
    uint32_t n = 5;
    if (unit == 0 && (t->param >> 28 == 1 || t->param >> 28 == 4)) {
        n = 10;
        for (int i = 1; i < 6; i++)
            reg[4 + i] = (t->addr[i] >> 3) & 0x3FFFFF;
    }
    cmd(l, base[unit], 0xF, reg, n, 1);
    write1(l, type[unit], t->fmt);
}
static void config(list *l, uint32_t tex_config)
{
    uint32_t v = tex_config;
    cmd(l, PVK_GPUREG_TEXUNIT_CONFIG, 0xB, &v, 1, 0);
    v = 1u << 16; /* clear the texture cache after configuring the units */
    cmd(l, PVK_GPUREG_TEXUNIT_CONFIG, 0x4, &v, 1, 0);
    write1(l, PVK_GPUREG_TEXUNIT0_SHADOW, 1);
}

static int cache_clears, other_ops;
static pvk_result on_cache(void *user, pvk_pica_cache_op op)
{
    (void)user;
    if (op == PVK_PICA_TEXTURE_CACHE_CLEAR)
        cache_clears++;
    else
        other_ops++;
    return PVK_SUCCESS;
}

static pvk_pica pica;
static void run(list *l)
{
    CHECK_EQ(pvk_cmdlist_run_words(&pica, l->w, l->n), PVK_SUCCESS);
    l->n = 0;
}

static int same(const pvk_tex_desc *a, const pvk_tex_desc *b)
{
    return !memcmp(a, b, sizeof *a);
}

int main(void)
{
    (void)th_context; /* no device */
    (void)th_release;
    pvk_pica_reset(&pica);
    pvk_pica_env env = {.cache = on_cache};
    pvk_pica_set_env(&pica, &env);
    list l = {.n = 0};
    pvk_tex_desc d;

    /* A 256x128 RGBA8 texture with mips in FCRAM, linear filters, repeat
     * S / mirrored T, bias -1.5, on unit 0; an ETC1 texture on unit 1; an
     * L8 on unit 2 reading texture 1's coordinates. */
    c3d_tex t0, t1, t2;
    tex_init(&t0, 256, 128, 0, 0, 4);
    t0.addr[0] = 0x20100000;
    t0.border = 0x80402010;
    tex_set_filter(&t0, LINEAR, LINEAR);
    tex_set_filter_mipmap(&t0, LINEAR);
    tex_set_wrap(&t0, REPEAT, MIRRORED_REPEAT);
    tex_set_lod_bias(&t0, -1.5f);
    t0.min_level = 1;
    tex_init(&t1, 64, 64, 12, 0, 0);
    t1.addr[0] = 0x18010000;
    tex_set_wrap(&t1, CLAMP_TO_BORDER, CLAMP_TO_EDGE);
    tex_init(&t2, 8, 1024, 7, 0, 0);
    t2.addr[0] = 0x18020008;
    bind(&l, 0, &t0);
    bind(&l, 1, &t1);
    bind(&l, 2, &t2);
    config(&l, 1u << 12 | 1u << 13 | 7);
    run(&l);
    CHECK_EQ(cache_clears, 1);
    CHECK_EQ(other_ops, 0);
    CHECK_EQ(pica.regs[PVK_GPUREG_TEXUNIT_CONFIG], 1u << 12 | 1u << 13 | 7); /* bit 16 is a trigger */

    pvk_tex_desc_get(&pica, 0, &d);
    CHECK(d.enabled);
    CHECK_EQ(d.unit, 0);
    CHECK_EQ(d.type, PVK_TEXTYPE_2D);
    CHECK_EQ(d.coords, 0);
    CHECK_EQ(d.width, 256);
    CHECK_EQ(d.height, 128);
    CHECK_EQ(d.format, 0);
    CHECK_EQ(d.faces, 1);
    CHECK_EQ(d.addr[0], 0x20100000);
    CHECK_EQ(d.addr[1], 0);
    CHECK_EQ(d.levels, 5);
    CHECK_EQ(d.max_level, 4);
    CHECK_EQ(d.min_level, 1);
    CHECK_EQ(d.border, 0x80402010);
    CHECK_EQ(d.mag_filter, LINEAR);
    CHECK_EQ(d.min_filter, LINEAR);
    CHECK_EQ(d.mip_filter, LINEAR);
    CHECK_EQ(d.wrap_s, REPEAT);
    CHECK_EQ(d.wrap_t, MIRRORED_REPEAT);
    CHECK_EQ(d.lod_bias_fixed, -384);
    CHECK(d.lod_bias == -1.5f);
    CHECK(!d.shadow);
    CHECK(!d.shadow_perspective); /* C3D_Init's TEXUNIT0_SHADOW = 1: not perspective */
    CHECK_EQ(d.reserved, 0);

    pvk_tex_desc_get(&pica, 1, &d);
    CHECK(d.enabled);
    CHECK_EQ(d.type, PVK_TEXTYPE_2D);
    CHECK_EQ(d.coords, 1);
    CHECK_EQ(d.format, 12);
    CHECK_EQ(d.etc1_param, 2);
    CHECK_EQ(d.wrap_s, CLAMP_TO_BORDER);
    CHECK_EQ(d.wrap_t, CLAMP_TO_EDGE);
    CHECK_EQ(d.mag_filter, NEAREST);
    CHECK_EQ(d.levels, 1);
    CHECK_EQ(d.addr[0], 0x18010000);
    CHECK_EQ(d.reserved, 0);

    pvk_tex_desc_get(&pica, 2, &d);
    CHECK(d.enabled);
    CHECK_EQ(d.coords, 1); /* TEXUNIT_CONFIG bit 13 */
    CHECK_EQ(d.width, 8);
    CHECK_EQ(d.height, 1024);
    CHECK_EQ(d.format, 7);
    CHECK_EQ(d.addr[0], 0x18020008);
    CHECK_EQ(d.reserved, 0);

    pvk_tex_desc_get(&pica, 3, &d);
    CHECK(!d.enabled);
    CHECK_EQ(d.type, PVK_TEXTYPE_PROCEDURAL);

    /* LOD bias limits: citro3d clamps to [-0x1000, 0xFFF] / 256 */
    tex_set_lod_bias(&t0, 100.0f);
    bind(&l, 0, &t0);
    run(&l);
    pvk_tex_desc_get(&pica, 0, &d);
    CHECK_EQ(d.lod_bias_fixed, 0xFFF);
    tex_set_lod_bias(&t0, -100.0f);
    bind(&l, 0, &t0);
    run(&l);
    pvk_tex_desc_get(&pica, 0, &d);
    CHECK(d.lod_bias == -16.0f);

    /* A cube map: faces in VRAM sharing ADDR1's upper 6 bits (the lower 22
     * of each face from its own register), shadow cube with its shadow bit */
    c3d_tex cube;
    tex_init(&cube, 128, 128, 0, 1, 0);
    for (int f = 0; f < 6; f++)
        cube.addr[f] = 0x18100000 + (uint32_t)f * 0x10000;
    bind(&l, 0, &cube);
    run(&l);
    pvk_tex_desc_get(&pica, 0, &d);
    CHECK_EQ(d.type, PVK_TEXTYPE_CUBE);
    CHECK_EQ(d.faces, 6);
    for (int f = 0; f < 6; f++)
        CHECK_EQ(d.addr[f], cube.addr[f]);
    CHECK_EQ(d.reserved, 0);
    /* a face register's bits 22+ are not the face's: ADDR1's are */
    write1(&l, PVK_GPUREG_TEXUNIT0_ADDR3, (0x18120000u >> 3) | 0xFC00000u);
    run(&l);
    pvk_tex_desc_get(&pica, 0, &d);
    CHECK_EQ(d.addr[2], 0x18120000);
    tex_init(&cube, 128, 128, 0, 4, 0);
    bind(&l, 0, &cube);
    write1(&l, PVK_GPUREG_TEXUNIT0_SHADOW, 0x00ABCDE0u | 0); /* perspective, bias bits 1-23 */
    run(&l);
    pvk_tex_desc_get(&pica, 0, &d);
    CHECK_EQ(d.type, PVK_TEXTYPE_SHADOW_CUBE);
    CHECK(d.shadow);
    CHECK(d.shadow_perspective);
    CHECK_EQ(d.shadow_bias_fixed, 0x00ABCDE0u);
    CHECK_EQ(d.reserved, 0);
    tex_init(&cube, 128, 64, 0, 2, 0); /* shadow 2D need not be square */
    cube.addr[0] = 0x18000000;
    bind(&l, 0, &cube);
    run(&l);
    pvk_tex_desc_get(&pica, 0, &d);
    CHECK_EQ(d.type, PVK_TEXTYPE_SHADOW_2D);
    CHECK_EQ(d.faces, 1);
    CHECK_EQ(d.reserved, 0);
    tex_init(&cube, 128, 64, 0, 3, 0);
    bind(&l, 0, &cube);
    run(&l);
    pvk_tex_desc_get(&pica, 0, &d);
    CHECK_EQ(d.type, PVK_TEXTYPE_PROJECTION);
    CHECK(!d.shadow);
    CHECK_EQ(d.reserved, 0);
    tex_init(&cube, 128, 64, 0, 5, 0);
    bind(&l, 0, &cube);
    run(&l);
    pvk_tex_desc_get(&pica, 0, &d);
    CHECK_EQ(d.type, PVK_TEXTYPE_DISABLED);
    CHECK(!d.enabled); /* enabled in TEXUNIT_CONFIG, disabled by its type */

    /* Unit 3: enable bit 10, coordinates from bits 8-9 */
    config(&l, 1u << 12 | 1u << 10 | 2u << 8);
    run(&l);
    CHECK_EQ(cache_clears, 2);
    pvk_tex_desc_get(&pica, 3, &d);
    CHECK(d.enabled);
    CHECK_EQ(d.coords, 2);
    CHECK_EQ(d.reserved, 0);
    pvk_tex_desc_get(&pica, 0, &d);
    CHECK(!d.enabled);
    /* a write without bit 16 is no cache op */
    write1(&l, PVK_GPUREG_TEXUNIT_CONFIG, 1u << 12 | 1);
    run(&l);
    CHECK_EQ(cache_clears, 2);
    /* through the CPU-side register window too */
    CHECK_EQ(pvk_pica_write(&pica, PVK_GPUREG_TEXUNIT_CONFIG, 1u << 16 | 1u << 12 | 1), PVK_SUCCESS);
    CHECK_EQ(cache_clears, 3);
    CHECK_EQ(pica.regs[PVK_GPUREG_TEXUNIT_CONFIG], 1u << 12 | 1);

    /* ---- every field changes the description ---- */
    static const struct {
        const char *name;
        uint16_t reg;
        uint32_t bits;
        unsigned unit;
    } fields[] = {
        {"enable 0", PVK_GPUREG_TEXUNIT_CONFIG, 1u << 0, 0},
        {"enable 1", PVK_GPUREG_TEXUNIT_CONFIG, 1u << 1, 1},
        {"enable 2", PVK_GPUREG_TEXUNIT_CONFIG, 1u << 2, 2},
        {"enable 3", PVK_GPUREG_TEXUNIT_CONFIG, 1u << 10, 3},
        {"texture 3 coordinates", PVK_GPUREG_TEXUNIT_CONFIG, 1u << 8, 3},
        {"texture 2 coordinates", PVK_GPUREG_TEXUNIT_CONFIG, 1u << 13, 2},
        {"border", PVK_GPUREG_TEXUNIT0_BORDER_COLOR, 0x01000000, 0},
        {"height", PVK_GPUREG_TEXUNIT0_DIM, 0x8, 0},
        {"width", PVK_GPUREG_TEXUNIT0_DIM, 0x80000, 0},
        {"mag filter", PVK_GPUREG_TEXUNIT0_PARAM, 1u << 1, 0},
        {"min filter", PVK_GPUREG_TEXUNIT0_PARAM, 1u << 2, 0},
        {"etc1", PVK_GPUREG_TEXUNIT0_PARAM, 1u << 5, 0},
        {"wrap t", PVK_GPUREG_TEXUNIT0_PARAM, 1u << 8, 0},
        {"wrap s", PVK_GPUREG_TEXUNIT0_PARAM, 1u << 12, 0},
        {"shadow", PVK_GPUREG_TEXUNIT0_PARAM, 1u << 20, 0},
        {"mip filter", PVK_GPUREG_TEXUNIT0_PARAM, 1u << 24, 0},
        {"type", PVK_GPUREG_TEXUNIT0_PARAM, 1u << 29, 0},
        {"lod bias", PVK_GPUREG_TEXUNIT0_LOD, 1u << 3, 0},
        {"max level", PVK_GPUREG_TEXUNIT0_LOD, 1u << 16, 0},
        {"min level", PVK_GPUREG_TEXUNIT0_LOD, 1u << 24, 0},
        {"addr", PVK_GPUREG_TEXUNIT0_ADDR1, 1u << 4, 0},
        {"addr upper bits", PVK_GPUREG_TEXUNIT0_ADDR1, 1u << 23, 0},
        {"shadow perspective", PVK_GPUREG_TEXUNIT0_SHADOW, 1u << 0, 0},
        {"shadow bias", PVK_GPUREG_TEXUNIT0_SHADOW, 1u << 9, 0},
        {"format 0", PVK_GPUREG_TEXUNIT0_TYPE, 1u << 1, 0},
        {"border 1", PVK_GPUREG_TEXUNIT1_BORDER_COLOR, 0x10, 1},
        {"dim 1", PVK_GPUREG_TEXUNIT1_DIM, 0x100000, 1},
        {"param 1", PVK_GPUREG_TEXUNIT1_PARAM, 1u << 12, 1},
        {"lod 1", PVK_GPUREG_TEXUNIT1_LOD, 1u << 24, 1},
        {"addr 1", PVK_GPUREG_TEXUNIT1_ADDR, 1u << 10, 1},
        {"format 1", PVK_GPUREG_TEXUNIT1_TYPE, 1u << 2, 1},
        {"border 2", PVK_GPUREG_TEXUNIT2_BORDER_COLOR, 0x100, 2},
        {"dim 2", PVK_GPUREG_TEXUNIT2_DIM, 0x10, 2},
        {"param 2", PVK_GPUREG_TEXUNIT2_PARAM, 1u << 24, 2},
        {"lod 2", PVK_GPUREG_TEXUNIT2_LOD, 1u << 0, 2},
        {"addr 2", PVK_GPUREG_TEXUNIT2_ADDR, 1u << 20, 2},
        {"format 2", PVK_GPUREG_TEXUNIT2_TYPE, 1u << 3, 2},
    };
    /* cube faces: unit 0 as a cube map */
    static const uint16_t face_regs[5] = {PVK_GPUREG_TEXUNIT0_ADDR2, PVK_GPUREG_TEXUNIT0_ADDR3,
                                          PVK_GPUREG_TEXUNIT0_ADDR4, PVK_GPUREG_TEXUNIT0_ADDR5,
                                          PVK_GPUREG_TEXUNIT0_ADDR6};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        pvk_tex_desc a, b;
        pvk_pica_reset(&pica);
        pica.regs[PVK_GPUREG_TEXUNIT0_PARAM] = 0; /* 2D */
        pvk_tex_desc_get(&pica, fields[i].unit, &a);
        pica.regs[fields[i].reg] ^= fields[i].bits;
        pvk_tex_desc_get(&pica, fields[i].unit, &b);
        if (same(&a, &b))
            fprintf(stderr, "field '%s' does not change the description\n", fields[i].name);
        CHECK(!same(&a, &b));
    }
    for (int f = 0; f < 5; f++) {
        pvk_tex_desc a, b;
        pvk_pica_reset(&pica);
        pica.regs[PVK_GPUREG_TEXUNIT0_PARAM] = 1u << 28; /* cube */
        pvk_tex_desc_get(&pica, 0, &a);
        pica.regs[face_regs[f]] ^= 1u << 7;
        pvk_tex_desc_get(&pica, 0, &b);
        CHECK(!same(&a, &b));
        CHECK_EQ(b.addr[f + 1] ^ a.addr[f + 1], 1u << 10);
    }
    /* bits the documents leave unknown change nothing */
    {
        pvk_tex_desc a, b;
        pvk_pica_reset(&pica);
        pvk_tex_desc_get(&pica, 1, &a);
        pica.regs[PVK_GPUREG_TEXUNIT1_PARAM] ^= 1u << 0 | 1u << 3 | 3u << 6 | 1u << 11 | 1u << 15 | 1u << 25;
        pica.regs[PVK_GPUREG_TEXUNIT1_DIM] ^= 0x1F << 11;
        pica.regs[PVK_GPUREG_TEXUNIT1_LOD] ^= 7u << 13 | 0xFu << 20;
        pvk_tex_desc_get(&pica, 1, &b);
        CHECK(same(&a, &b));
    }

    /* ---- reserved values are flagged ---- */
    static const struct {
        const char *name;
        uint16_t reg;
        uint32_t value;
        unsigned unit;
        uint32_t flag;
    } bad[] = {
        {"unit 0 type 6", PVK_GPUREG_TEXUNIT0_PARAM, 6u << 28, 0, PVK_TEXRES_TYPE},
        {"unit 1 type 1", PVK_GPUREG_TEXUNIT1_PARAM, 1u << 28, 1, PVK_TEXRES_TYPE},
        {"format 14", PVK_GPUREG_TEXUNIT0_TYPE, 14, 0, PVK_TEXRES_FORMAT},
        {"format 15", PVK_GPUREG_TEXUNIT2_TYPE, 15, 2, PVK_TEXRES_FORMAT},
        {"wrap s 4", PVK_GPUREG_TEXUNIT0_PARAM, 4u << 12, 0, PVK_TEXRES_WRAP},
        {"wrap t 7", PVK_GPUREG_TEXUNIT1_PARAM, 7u << 8, 1, PVK_TEXRES_WRAP},
        {"etc1 flag 1", PVK_GPUREG_TEXUNIT0_PARAM, 1u << 4, 0, PVK_TEXRES_ETC1_FLAG},
        {"etc1 flag on RGBA8", PVK_GPUREG_TEXUNIT1_PARAM, 2u << 4, 1, PVK_TEXRES_ETC1_FLAG},
        {"shadow bit on unit 2", PVK_GPUREG_TEXUNIT2_PARAM, 1u << 20, 2, PVK_TEXRES_SHADOW_BIT},
        {"shadow bit on a 2D texture", PVK_GPUREG_TEXUNIT0_PARAM, 1u << 20, 0, PVK_TEXRES_SHADOW_BIT},
        {"width 12", PVK_GPUREG_TEXUNIT0_DIM, 12u << 16 | 8, 0, PVK_TEXRES_SIZE},
        {"height 2048", PVK_GPUREG_TEXUNIT0_DIM, 8u << 16 | 0x7F8, 0, PVK_TEXRES_SIZE},
        {"min level over max", PVK_GPUREG_TEXUNIT0_LOD, 1u << 24, 0, PVK_TEXRES_LOD},
        {"max level under 8x8", PVK_GPUREG_TEXUNIT0_LOD, 3u << 16, 0, PVK_TEXRES_LOD},
        {"texture 3 coordinates 3", PVK_GPUREG_TEXUNIT_CONFIG, 3u << 8, 3, PVK_TEXRES_COORDS},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pvk_pica_reset(&pica);
        pica.regs[PVK_GPUREG_TEXUNIT0_PARAM] = 0;
        pica.regs[PVK_GPUREG_TEXUNIT0_DIM] = pica.regs[PVK_GPUREG_TEXUNIT1_DIM] =
            pica.regs[PVK_GPUREG_TEXUNIT2_DIM] = 32u << 16 | 32; /* 32x32: levels to 8x8 are fine */
        pvk_tex_desc_get(&pica, bad[i].unit, &d);
        CHECK_EQ(d.reserved, 0);
        pica.regs[bad[i].reg] = bad[i].value;
        pvk_tex_desc_get(&pica, bad[i].unit, &d);
        if (!(d.reserved & bad[i].flag))
            fprintf(stderr, "'%s' is not flagged\n", bad[i].name);
        CHECK(d.reserved & bad[i].flag);
    }
    /* a cube map that is not square */
    pvk_pica_reset(&pica);
    pica.regs[PVK_GPUREG_TEXUNIT0_PARAM] = 1u << 28;
    pica.regs[PVK_GPUREG_TEXUNIT0_DIM] = 64u << 16 | 32;
    pvk_tex_desc_get(&pica, 0, &d);
    CHECK(d.reserved & PVK_TEXRES_SIZE);
    /* reserved type 6: taken as disabled */
    pica.regs[PVK_GPUREG_TEXUNIT_CONFIG] = 1;
    pica.regs[PVK_GPUREG_TEXUNIT0_PARAM] = 6u << 28;
    pvk_tex_desc_get(&pica, 0, &d);
    CHECK_EQ(d.type, PVK_TEXTYPE_DISABLED);
    CHECK(!d.enabled);
    return th_finish("test_texunit");
}
