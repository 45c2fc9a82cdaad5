/* Textures through the surface cache (vram/texture.c pvk_texture_get): a
 * texture over a render target the GPU just drew is built from the
 * surface's image with no write-back (pvk_stats.surface_writebacks does not
 * move), texel for texel what a write-back and a decode from memory give,
 * for colour buffers of every format read as each texture format of their
 * pixel size and for depth buffers (D24S8 as RGBA8, D24 as RGB888, D16 as
 * 16-bit formats), at scales 1 and 2;
 * a texture the surface covers only in part is decoded after a write-back;
 * cached textures are reused until a host write, a memory fill, a texture
 * copy or a draw into their bytes drops them; after TEXUNIT_CONFIG's
 * clear-texture-cache bit a texture decoded from memory is used again only
 * if its bytes are unchanged (a write the host did not report is seen);
 * PVK_DEBUG=roundtrip decodes every time.  Both guest-memory
 * modes. */
#include "draw_common.h"
#include "runtime/runtime.h"

#define DB 0x18100000u  /* depth buffer */
#define MEMTEX 0x18300000u
#define COPYSRC 0x18380000u
#define SCALED 0x18400000u

/* Every level of every face as the image stores it (at its scale), malloc'd. */
static uint8_t *texels(const pvk_texture *t, size_t *size)
{
    uint32_t tb, k = t->scale ? t->scale : 1;
    pvk_texture_vk_format(t->desc.format, NULL, &tb);
    size_t n = 0;
    for (uint32_t l = 0; l < t->desc.levels; l++)
        n += (size_t)(t->desc.width >> l) * (t->desc.height >> l) * tb * k * k;
    uint8_t *out = malloc(n * t->desc.faces), *p = out;
    for (uint32_t f = 0; f < t->desc.faces; f++)
        for (uint32_t l = 0; l < t->desc.levels; l++) {
            size_t b = (size_t)(t->desc.width >> l) * (t->desc.height >> l) * tb * k * k;
            CHECK_EQ(pvk_texture_read(&ctx->vram, t, f, l, p, b), PVK_SUCCESS);
            p += b;
        }
    *size = n * t->desc.faces;
    return out;
}

/* What guest memory decodes to now (after whatever flush the caller made). */
static uint8_t *reference(const pvk_texture_desc *d, size_t *size)
{
    pvk_texture t;
    CHECK_EQ(pvk_texture_decode(&ctx->vram, d, &t), PVK_SUCCESS);
    uint8_t *out = texels(&t, size);
    pvk_texture_destroy(&ctx->vram, &t);
    return out;
}

static pvk_texture_desc desc(uint32_t addr, uint32_t w, uint32_t h, uint32_t format, uint32_t levels)
{
    pvk_texture_desc d = {.addr = {addr}, .width = w, .height = h, .format = format, .levels = levels, .faces = 1};
    return d;
}

/* Four corners of different colours and depths, two triangles over the
 * whole buffer (interpolation makes many values); stencil replaced by 0x5A. */
static void draw_dirty(float shade)
{
    const float v[6][8] = {
        {-1, -1, -0.2f, 1, 1, 0, shade, 1},   {1, -1, -0.5f, 1, 0, 1, 0, 0.5f}, {1, 1, -0.9f, 1, 0, 0, 1, 0},
        {-1, -1, -0.2f, 1, 1, 0, shade, 1},   {1, 1, -0.9f, 1, 0, 0, 1, 0},     {-1, 1, -0.1f, 1, 0.3f, 0.6f, 0.9f, 0.25f},
    };
    memcpy(pvk_guest_ptr(ctx, VB, sizeof v), v, sizeof v);
    pvk_guest_written(ctx, VB, sizeof v);
    reg(PVK_GPUREG_DEPTH_COLOR_MASK, 0x1F11); /* test Always, RGBA and depth writes */
    reg(PVK_GPUREG_STENCIL_TEST, 1u | 1u << 4 | 0xFFu << 8 | 0x5Au << 16 | 0xFFu << 24);
    reg(PVK_GPUREG_STENCIL_OP, 2u << 8); /* z-pass: replace */
    reg(PVK_GPUREG_PRIMITIVE_CONFIG, 1);
    reg(PVK_GPUREG_NUMVERTICES, 6);
    reg(PVK_GPUREG_VERTEX_OFFSET, 0);
    reg(PVK_GPUREG_DRAWARRAYS, 1); /* no wait: the surfaces stay dirty */
}

static void color_format(uint32_t fmt) /* COLORBUFFER_FORMAT format code */
{
    reg(PVK_GPUREG_COLORBUFFER_FORMAT, fmt << 16 | (fmt == 0 ? 2u : fmt == 1 ? 1u : 0u));
}

/* The textures `fmts` over the colour buffer drawn as `cb_fmt` (and, with
 * `depth`, RGBA8 over the D24S8 buffer), each built from its surface without
 * a write-back, then equal to write-back + decode. */
static void from_surfaces(uint32_t cb_fmt, const uint32_t *fmts, int n, int depth_fmt, uint32_t depth_tex)
{
    bool depth = depth_fmt >= 0;
    color_format(cb_fmt);
    reg(PVK_GPUREG_DEPTHBUFFER_FORMAT, depth ? (uint32_t)depth_fmt : 3);
    draw_dirty(0.25f * (float)cb_fmt);
    uint8_t *got[8];
    size_t size[8];
    pvk_texture_desc d[8];
    int m = 0;
    for (int i = 0; i < n + depth; i++, m++) {
        d[m] = i < n ? desc(FB, W, H, fmts[i], 1) : desc(DB, W, H, depth_tex, 1);
        pvk_stats before = stats();
        const pvk_texture *t;
        CHECK_EQ(pvk_texture_get(&ctx->vram, &d[m], &t), PVK_SUCCESS);
        pvk_stats after = stats();
        CHECK_EQ(after.texture_from_surface, before.texture_from_surface + 1);
        CHECK_EQ(after.surface_writebacks, before.surface_writebacks);
        CHECK_EQ(after.texture_decodes, before.texture_decodes);
        CHECK(t && t->image && t->desc.format == (i < n ? fmts[i] : depth_tex));
        got[m] = texels(t, &size[m]);
        /* a second look finds it */
        const pvk_texture *again;
        CHECK_EQ(pvk_texture_get(&ctx->vram, &d[m], &again), PVK_SUCCESS);
        CHECK(again == t);
        CHECK_EQ(stats().texture_hits, after.texture_hits + 1);
        CHECK_EQ(stats().surface_writebacks, before.surface_writebacks);
    }
    /* now memory: write back and decode the same bytes */
    CHECK_EQ(pvk_guest_flush(ctx, FB, W * H * 4), PVK_SUCCESS);
    CHECK_EQ(pvk_guest_flush(ctx, DB, W * H * 4), PVK_SUCCESS);
    for (int i = 0; i < m; i++) {
        size_t rs;
        uint8_t *want = reference(&d[i], &rs);
        CHECK_EQ(rs, size[i]);
        bool same = rs == size[i] && !memcmp(want, got[i], rs), blank = true;
        for (size_t k = 0; k < rs; k++)
            blank &= got[i][k] == 0;
        if (!same)
            fprintf(stderr, "%s buffer format %u read as texture format %u: differs from write-back + decode\n",
                    d[i].addr[0] == DB ? "depth" : "colour", d[i].addr[0] == DB ? (uint32_t)depth_fmt : cb_fmt,
                    d[i].format);
        CHECK(same);
        CHECK(!blank); /* the draw reached it */
        free(want);
        free(got[i]);
    }
}

/* A texture in plain memory: decoded, then found, until `drop` writes over it. */
static void expect_decode(const pvk_texture_desc *d)
{
    pvk_stats before = stats();
    const pvk_texture *t;
    CHECK_EQ(pvk_texture_get(&ctx->vram, d, &t), PVK_SUCCESS);
    CHECK_EQ(stats().texture_decodes, before.texture_decodes + 1);
    CHECK_EQ(pvk_texture_get(&ctx->vram, d, &t), PVK_SUCCESS);
    CHECK_EQ(stats().texture_decodes, before.texture_decodes + 1);
    CHECK_EQ(stats().texture_hits, before.texture_hits + 1);
}

static void run(int mirror)
{
    ctx = th_context(NULL, mirror);
    upload_shader();
    setup_attribs();
    setup_target_d24s8(DB);
    merger_replace();

    /* ---- (b): every colour format, read as each texture format of its pixel size ---- */
    static const uint32_t rgba8[] = {PVK_TEX_RGBA8}, rgb8[] = {PVK_TEX_RGB8};
    static const uint32_t t565[] = {PVK_TEX_RGB565, PVK_TEX_RGBA4, PVK_TEX_LA8, PVK_TEX_HILO8, PVK_TEX_RGBA5551};
    static const uint32_t t5551[] = {PVK_TEX_RGBA5551, PVK_TEX_RGB565};
    static const uint32_t t4444[] = {PVK_TEX_RGBA4, PVK_TEX_LA8};
    from_surfaces(0, rgba8, 1, 3, PVK_TEX_RGBA8); /* and D24S8 read as RGBA8 */
    from_surfaces(1, rgb8, 1, 2, PVK_TEX_RGB8);   /* D24 as RGB888 */
    from_surfaces(3, t565, 5, 0, PVK_TEX_RGB565); /* D16 as RGB565 */
    from_surfaces(2, t5551, 2, 0, PVK_TEX_HILO8);
    from_surfaces(4, t4444, 2, -1, 0);
    color_format(0);
    reg(PVK_GPUREG_DEPTHBUFFER_FORMAT, 3);

    /* ---- (c): a texture the surface covers only in part (its mip level
     * lies past the buffer): written back, then decoded ---- */
    draw_dirty(0.5f);
    pvk_texture_desc mip = desc(FB, W, H, PVK_TEX_RGBA8, 2);
    pvk_stats before = stats();
    const pvk_texture *t;
    CHECK_EQ(pvk_texture_get(&ctx->vram, &mip, &t), PVK_SUCCESS);
    CHECK_EQ(stats().surface_writebacks, before.surface_writebacks + 1);
    CHECK_EQ(stats().texture_decodes, before.texture_decodes + 1);
    CHECK_EQ(stats().texture_from_surface, before.texture_from_surface);
    size_t gs, rs;
    uint8_t *got = texels(t, &gs), *want = reference(&mip, &rs);
    CHECK(gs == rs && !memcmp(got, want, rs));
    free(got);
    free(want);

    /* ---- (a) and invalidation ---- */
    uint8_t *m = pvk_guest_ptr(ctx, MEMTEX, 64);
    for (int i = 0; i < 64; i++)
        m[i] = (uint8_t)th_rand();
    pvk_guest_written(ctx, MEMTEX, 64);
    pvk_texture_desc l8 = desc(MEMTEX, 8, 8, PVK_TEX_L8, 1);
    expect_decode(&l8);
    /* host write */
    before = stats();
    m[10] ^= 0xFF;
    pvk_guest_written(ctx, MEMTEX + 10, 1);
    CHECK_EQ(stats().texture_invalidations, before.texture_invalidations + 1);
    expect_decode(&l8);
    /* a host write elsewhere leaves it */
    before = stats();
    pvk_guest_written(ctx, MEMTEX + 64, 16);
    CHECK_EQ(pvk_texture_get(&ctx->vram, &l8, &t), PVK_SUCCESS);
    CHECK_EQ(stats().texture_hits, before.texture_hits + 1);
    CHECK_EQ(stats().texture_invalidations, before.texture_invalidations);
    /* a memory fill over it */
    ext(PVK_REG_MEMFILL0, (MEMTEX - 0x10) >> 3);
    ext(PVK_REG_MEMFILL0 + 4, (MEMTEX + 0x10) >> 3);
    ext(PVK_REG_MEMFILL0 + 8, 0x11223344);
    ext(PVK_REG_MEMFILL0 + 0xC, 0x201);
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    expect_decode(&l8);
    /* a texture copy into it */
    memset(pvk_guest_ptr(ctx, COPYSRC, 64), 0x77, 64);
    pvk_guest_written(ctx, COPYSRC, 64);
    before = stats();
    ext(PVK_REG_MEMCOPY_SRC, COPYSRC >> 3);
    ext(PVK_REG_MEMCOPY_DST, MEMTEX >> 3);
    ext(PVK_REG_MEMCOPY_TEX_SIZE, 64);
    ext(PVK_REG_MEMCOPY_TEX_SRC_WIDTH, 0);
    ext(PVK_REG_MEMCOPY_TEX_DST_WIDTH, 0);
    ext(PVK_REG_MEMCOPY_FLAGS, 1u << 3);
    ext(PVK_REG_MEMCOPY_CNT, 1);
    CHECK_EQ(pvk_wait_idle(ctx), PVK_SUCCESS);
    CHECK_EQ(stats().texture_invalidations, before.texture_invalidations + 1);
    CHECK_EQ(pvk_texture_get(&ctx->vram, &l8, &t), PVK_SUCCESS);
    CHECK_EQ(stats().texture_decodes, before.texture_decodes + 1);
    {
        size_t n;
        uint8_t *px = texels(t, &n);
        CHECK_EQ(n, 64);
        CHECK_EQ(px[0], 0x77);
        CHECK_EQ(px[63], 0x77);
        free(px);
    }
    /* The guest clears the texture cache: textures whose bytes still hash
     * the same stay; a write the host did not report (it relies on the
     * clear, as a 3DS program does) is seen at the next use after a clear */
    before = stats();
    reg(PVK_GPUREG_TEXUNIT_CONFIG, 1u << 16 | 1u << 12);
    CHECK_EQ(pvk_texture_get(&ctx->vram, &l8, &t), PVK_SUCCESS);
    CHECK_EQ(stats().texture_hits, before.texture_hits + 1);
    CHECK_EQ(stats().texture_decodes, before.texture_decodes);
    m = pvk_guest_ptr(ctx, MEMTEX, 64);
    m[5] = 0xA5; /* unreported: without a clear the cached texture is used, as the hardware's cache would */
    CHECK_EQ(pvk_texture_get(&ctx->vram, &l8, &t), PVK_SUCCESS);
    CHECK_EQ(stats().texture_hits, before.texture_hits + 2);
    {   /* this clear from a command list, as citro3d writes it: byte 2 of TEXUNIT_CONFIG alone */
        uint32_t list[2] = {1u << 16, pvk_cmd_header(PVK_GPUREG_TEXUNIT_CONFIG, 0x4, 0, 0)};
        CHECK_EQ(pvk_cmdlist_run_words(&ctx->pica, list, 2), PVK_SUCCESS);
    }
    CHECK_EQ(pvk_texture_get(&ctx->vram, &l8, &t), PVK_SUCCESS);
    CHECK_EQ(stats().texture_decodes, before.texture_decodes + 1);
    CHECK_EQ(stats().texture_invalidations, before.texture_invalidations + 1);
    {
        size_t n;
        uint8_t *px = texels(t, &n);
        CHECK_EQ(px[0], 0x77);
        CHECK_EQ(px[3], 0xA5); /* byte 5 of the tile is texel (3, 0): x in the even bits (FACTS.md) */
        free(px);
    }
    /* a draw into a texture made from its surface: made again from the new image */
    draw_dirty(0.1f);
    pvk_texture_desc fbt = desc(FB, W, H, PVK_TEX_RGBA8, 1);
    before = stats();
    CHECK_EQ(pvk_texture_get(&ctx->vram, &fbt, &t), PVK_SUCCESS);
    CHECK_EQ(stats().texture_from_surface, before.texture_from_surface + 1);
    got = texels(t, &gs);
    draw_dirty(0.9f);
    CHECK_EQ(stats().texture_invalidations, before.texture_invalidations + 1);
    CHECK_EQ(pvk_texture_get(&ctx->vram, &fbt, &t), PVK_SUCCESS);
    CHECK_EQ(stats().texture_from_surface, before.texture_from_surface + 2);
    CHECK_EQ(stats().surface_writebacks, before.surface_writebacks);
    want = texels(t, &rs);
    CHECK(gs == rs && memcmp(got, want, rs)); /* the second draw's blue differs */
    free(got);
    free(want);
    /* the same texture named by texture unit 0's registers, as citro3d binds it */
    reg(PVK_GPUREG_TEXUNIT0_BORDER_COLOR, 0);
    reg(PVK_GPUREG_TEXUNIT0_DIM, H | W << 16);
    reg(PVK_GPUREG_TEXUNIT0_PARAM, 0); /* 2D, nearest, clamp to edge */
    reg(PVK_GPUREG_TEXUNIT0_LOD, 0);
    reg(PVK_GPUREG_TEXUNIT0_ADDR1, FB >> 3);
    reg(PVK_GPUREG_TEXUNIT0_TYPE, PVK_TEX_RGBA8);
    reg(PVK_GPUREG_TEXUNIT_CONFIG, 1u << 12 | 1);
    pvk_tex_desc unit;
    pvk_texture_desc from_regs;
    pvk_tex_desc_get(&ctx->pica, 0, &unit);
    CHECK(pvk_texture_desc_from_unit(&unit, &from_regs));
    CHECK(!memcmp(&from_regs, &fbt, sizeof fbt));
    pvk_tex_desc_get(&ctx->pica, 1, &unit);
    CHECK(!pvk_texture_desc_from_unit(&unit, &from_regs)); /* unit 1 is off */
    pvk_tex_desc_get(&ctx->pica, 3, &unit);
    CHECK(!pvk_texture_desc_from_unit(&unit, &from_regs));
    /* a texture made from a surface stays through a clear: the surface holds its bytes */
    before = stats();
    reg(PVK_GPUREG_TEXUNIT_CONFIG, 1u << 16 | 1u << 12);
    CHECK_EQ(pvk_texture_get(&ctx->vram, &fbt, &t), PVK_SUCCESS);
    CHECK_EQ(stats().texture_hits, before.texture_hits + 1);
    /* the cache stays bounded; evicted textures the GPU may still read wait
     * in the deferred destroy, not the caller (mirrored memory waits for
     * the GPU's writes before each decode) */
    before = stats();
    for (uint32_t i = 0; i < PVK_TEXTURE_CACHE + 8; i++) {
        pvk_texture_desc x = desc(MEMTEX + 64 * i, 8, 8, PVK_TEX_L8, 1);
        CHECK_EQ(pvk_texture_get(&ctx->vram, &x, &t), PVK_SUCCESS);
        CHECK(pvk_texture_cached(&ctx->vram) <= PVK_TEXTURE_CACHE);
    }
    if (!mirror)
        CHECK_EQ(stats().gpu_waits, before.gpu_waits);
    /* bad input is refused, nothing cached */
    th_quiet_errors = 1;
    pvk_texture_desc bad = desc(MEMTEX, 12, 8, PVK_TEX_L8, 1);
    CHECK_EQ(pvk_texture_get(&ctx->vram, &bad, &t), PVK_ERROR_BAD_PARAMETERS);
    CHECK(t == NULL);
    th_quiet_errors = 0;

    /* ---- a surface at scale 2: the texture is its 2x image (each texel of
     * the bytes it was loaded from twice in each direction), no resolve ---- */
    uint8_t *sc = pvk_guest_ptr(ctx, SCALED, W * H * 4);
    for (uint32_t i = 0; i < W * H * 4; i++)
        sc[i] = (uint8_t)th_rand();
    pvk_guest_written(ctx, SCALED, W * H * 4);
    pvk_surface_key key = {.addr = SCALED, .width = W, .height = H, .format = 0, .kind = PVK_SURFACE_COLOR,
                           .scale = 2};
    pvk_surface *s;
    th_quiet_errors = 1;
    pvk_result r = pvk_surface_get(&ctx->vram, &key, VK_FORMAT_R8G8B8A8_UNORM, "test", &s);
    th_quiet_errors = 0;
    if (r == PVK_SUCCESS) {
        pvk_surface_drawn(s);
        pvk_texture_desc sd = desc(SCALED, W, H, PVK_TEX_RGBA8, 1);
        before = stats();
        CHECK_EQ(pvk_texture_get(&ctx->vram, &sd, &t), PVK_SUCCESS);
        CHECK_EQ(stats().texture_from_surface, before.texture_from_surface + 1);
        CHECK_EQ(stats().surface_writebacks, before.surface_writebacks);
        CHECK_EQ(stats().surface_resolves, before.surface_resolves);
        CHECK_EQ(t->scale, 2);
        got = texels(t, &gs);
        CHECK_EQ(pvk_guest_flush(ctx, SCALED, W * H * 4), PVK_SUCCESS);
        want = reference(&sd, &rs);
        uint8_t *up = malloc(rs * 4);
        for (uint32_t y = 0; up && y < 2 * H; y++)
            for (uint32_t x = 0; x < 2 * W; x++)
                memcpy(up + ((size_t)y * 2 * W + x) * 4, want + ((size_t)(y / 2) * W + x / 2) * 4, 4);
        CHECK(up && gs == rs * 4 && !memcmp(got, up, gs));
        free(up);
        free(got);
        free(want);
    } else {
        printf("no scaled surfaces on this device (%s)\n", pvk_result_string(r));
    }
    th_release(ctx);

    /* ---- PVK_DEBUG=roundtrip: no surface cache, so no texture cache ---- */
    ctx = th_context_debug(NULL, "roundtrip", mirror);
    memset(pvk_guest_ptr(ctx, MEMTEX, 64), 0x42, 64);
    pvk_guest_written(ctx, MEMTEX, 64);
    for (int i = 0; i < 2; i++)
        CHECK_EQ(pvk_texture_get(&ctx->vram, &l8, &t), PVK_SUCCESS);
    CHECK_EQ(stats().texture_decodes, 2);
    CHECK_EQ(stats().texture_hits, 0);
    th_release(ctx);
}

int main(void)
{
    (void)tiled_index;
    run(0);
    run(1);
    return th_finish("test_texture_cache");
}
