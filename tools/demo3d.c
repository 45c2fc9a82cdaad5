/* `picavk demo`'s 3D scene: what a citro3d program does for one frame, done
 * through the public API only.  The CPU side (linear heap in FCRAM) holds
 * the vertex buffers, two textures and ONE command list shaped as citro3d
 * writes it: C3D_FrameBegin/FrameDrawOn (render target, viewport), C3D_Init's
 * output merger defaults, C3D_BindProgram (the vertex program's code,
 * descriptors, constants and output map), C3D_FogLutBind, C3D_TexBind,
 * C3D_TexEnv, then per object C3D_FVUnifMtx4x4 and C3D_DrawArrays, and
 * C3D_FrameEnd's FRAMEBUFFER_FLUSH, FRAMEBUFFER_INVALIDATE and FINALIZE.
 * Around it the GX commands: a memory fill clears colour and depth first; a
 * display transfer (C3D_FrameBufTransfer) puts the picture into the LCD's
 * framebuffer after.  Lighting is done per vertex in the vertex program (a
 * directional light, Lambert diffuse, Blinn-Phong specular in the colour's
 * alpha), the TEV modulates the texture by it and adds the highlight, blob
 * shadows are blended onto the ground, and fog (mode 5, an exponential
 * LUT) fades the far objects into the sky. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "picavk/picavk.h"
#include "tools/asm.h"
#include "tools/demo.h"

/* Guest memory: the render target in VRAM, the CPU's buffers in FCRAM. */
enum {
    RT_COLOR = 0x18200000u, /* RGBA8 240x400, 8x8 tiles */
    RT_DEPTH = 0x18280000u, /* D24S8 240x400 */
    CMDLIST = 0x20000000u,
    VBO = 0x20100000u,      /* position, normal, texcoord: 32 bytes a vertex */
    TEX_BALL = 0x20400000u, /* RGBA8 128x64 */
    TEX_FLOOR = 0x20480000u,/* RGBA8 64x64 */
    TEX_SHADOW = 0x20490000u,/* RGBA8 32x32: a soft dark disc in alpha */
    CMDLIST_CAP = 0x40000u, /* C3D_DEFAULT_CMDBUF_SIZE */
    VBO_CAP = 0x300000u,
};
#define RT_W 240
#define RT_H 400
#define CLEAR_RGBA 0x8CB4E0FFu /* sky: also the fog colour */
#define NEAR 1.0f
#define FAR 30.0f

/* ---- the vertex program (picasso syntax, assembled at run time) ---- */

static const char vsh_src[] =
    "; mvp transform, per-vertex light in view space\n"
    ".fvec mvp[4], nrm[3], light, halfv, ambient, diffuse\n"
    ".constf k(0.0, 1.0, 24.0, 0.0001)\n"
    ".alias zero k.xxxx\n"
    ".alias one k.yyyy\n"
    ".out opos position\n"
    ".out oclr color\n"
    ".out otc0 texcoord0\n"
    ".alias ipos v0\n"
    ".alias inrm v1\n"
    ".alias itc0 v2\n"
    ".proc main\n"
    "    dp4 opos.x, mvp[0], ipos\n"
    "    dp4 opos.y, mvp[1], ipos\n"
    "    dp4 opos.z, mvp[2], ipos\n"
    "    dp4 opos.w, mvp[3], ipos\n"
    "    dp3 r0.x, nrm[0], inrm\n"     /* the normal in view space */
    "    dp3 r0.y, nrm[1], inrm\n"
    "    dp3 r0.z, nrm[2], inrm\n"
    "    dp3 r1, light, r0\n"          /* Lambert: max(N.L, 0) */
    "    max r1, zero, r1\n"
    "    mul r2, diffuse, r1\n"
    "    add r2, ambient, r2\n"
    "    dp3 r3, halfv, r0\n"          /* Blinn-Phong: max(N.H, tiny)^24 */
    "    max r3, k.wwww, r3\n"
    "    lg2 r3, r3\n"
    "    mul r3, k.zzzz, r3\n"
    "    ex2 r3, r3\n"
    "    min r2, one, r2\n"
    "    mov r2.w, r3.x\n"             /* the highlight rides in alpha */
    "    mov oclr, r2\n"
    "    mov otc0, itc0\n"
    "    end\n"
    ".end\n";

/* ---- small maths: row-major 4x4 matrices ---- */

typedef struct { float m[4][4]; } mat4;

static mat4 mat_mul(mat4 a, mat4 b)
{
    mat4 r;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            r.m[i][j] = a.m[i][0] * b.m[0][j] + a.m[i][1] * b.m[1][j] + a.m[i][2] * b.m[2][j] + a.m[i][3] * b.m[3][j];
    return r;
}

static mat4 mat_id(void)
{
    mat4 r = {{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}};
    return r;
}

static mat4 mat_rot(int axis, float a)
{
    mat4 r = mat_id();
    int i = (axis + 1) % 3, j = (axis + 2) % 3;
    r.m[i][i] = cosf(a), r.m[i][j] = -sinf(a);
    r.m[j][i] = sinf(a), r.m[j][j] = cosf(a);
    return r;
}

static mat4 mat_trs(float x, float y, float z, float s)
{
    mat4 r = mat_id();
    r.m[0][0] = r.m[1][1] = r.m[2][2] = s;
    r.m[0][3] = x, r.m[1][3] = y, r.m[2][3] = z;
    return r;
}

/* Mtx_PerspTilt's shape: a perspective for the 400x240 screen drawn into
 * the 240x400 target the LCD scans sideways (clip x = the screen's up,
 * clip y = the screen's left), z/w from -1 at the near plane to 0 at the far
 * one (the PICA clips 0 >= z >= -w; DEPTHMAP_SCALE -1 makes that depth 1..0,
 * nearer greater: citro3d's GPU_GREATER). */
static mat4 persp_tilt(float fovy, float aspect)
{
    float f = 1.0f / tanf(fovy / 2);
    mat4 r = {{{0}}};
    r.m[0][1] = f;
    r.m[1][0] = -f / aspect;
    r.m[2][2] = -NEAR / (FAR - NEAR);
    r.m[2][3] = -NEAR * FAR / (FAR - NEAR);
    r.m[3][2] = -1;
    return r;
}

static void norm3(float v[3])
{
    float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int i = 0; i < 3; i++)
        v[i] /= l;
}

/* f32 -> the PICA's float1.7.16 (citro3d's f32tof24, exponent clamped) */
static uint32_t f24(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    if (!(u & 0x7FFFFFFFu))
        return 0;
    int e = (int)(u >> 23 & 0xFF) - 127 + 63;
    if (e <= 0)
        return (u >> 31) << 23;
    return (u >> 31) << 23 | (uint32_t)(e > 127 ? 127 : e) << 16 | (u >> 7 & 0xFFFF);
}

/* ---- the command list, as libctru's GPUCMD_* build it ---- */

typedef struct cmdbuf {
    uint32_t *w;
    uint32_t n, cap;
    bool full;
} cmdbuf;

/* The internal register id of GPUREG_<name> (the public name table). */
static uint32_t reg(const char *name)
{
    uint32_t a = pvk_register_address(name);
    return a ? (a - 0x10401000u) / 4 : UINT32_MAX;
}

/* One command: `n` values to register `id` (the same register, or `seq`
 * consecutive ones), byte mask `mask`; padded to 8 bytes.  An unknown
 * register or a full buffer fails the list. */
static void cmd(cmdbuf *c, uint32_t id, const uint32_t *v, uint32_t n, uint32_t mask, bool seq)
{
    if (id > 0x3FF || !n || n > 256 || c->n + n + 2 > c->cap) {
        c->full = true;
        return;
    }
    c->w[c->n++] = v[0];
    c->w[c->n++] = id | mask << 16 | (n - 1) << 20 | (uint32_t)seq << 31;
    for (uint32_t i = 1; i < n; i++)
        c->w[c->n++] = v[i];
    if (c->n & 1)
        c->w[c->n++] = 0;
}

static void put(cmdbuf *c, const char *name, uint32_t v) { cmd(c, reg(name), &v, 1, 0xF, false); }
static void put_mask(cmdbuf *c, const char *name, uint32_t v, uint32_t mask) { cmd(c, reg(name), &v, 1, mask, false); }
#define PUTS(c, name, ...) cmd((c), reg(name), (const uint32_t[]){__VA_ARGS__}, \
                               sizeof((const uint32_t[]){__VA_ARGS__}) / 4, 0xF, true)

/* C3D_BindProgram of a vertex-only program: libctru's shaderProgramUse. */
static void bind_program(cmdbuf *c, const pvk_shbin *sh)
{
    put_mask(c, "GPUREG_GEOSTAGE_CONFIG", 0, 0x3);
    put_mask(c, "GPUREG_VSH_COM_MODE", 0, 0x1);
    pvk_reg_write w[PVK_SHBIN_UPLOAD_MAX];
    uint32_t n = pvk_shbin_upload(sh, w, PVK_SHBIN_UPLOAD_MAX);
    for (uint32_t i = 0; i < n;) { /* runs of one register: one burst (GPUCMD_AddWrites) */
        uint32_t j = i + 1, v[256];
        v[0] = w[i].value;
        while (j < n && j - i < 256 && w[j].id == w[i].id && w[i].id != reg("GPUREG_VSH_FLOATUNIFORM_CONFIG"))
            v[j - i] = w[j].value, j++;
        cmd(c, w[i].id, v, j - i, 0xF, false);
        i = j;
    }
    put(c, "GPUREG_VSH_INPUTBUFFER_CONFIG", 0xA0000000u | 2); /* three attributes */
    put(c, "GPUREG_VSH_NUM_ATTR", 2);
    PUTS(c, "GPUREG_VSH_ATTRIBUTES_PERMUTATION_LOW", 0x210, 0);
    put_mask(c, "GPUREG_PRIMITIVE_CONFIG", sh->outmap_total - 1, 0x1);
}

/* C3D_FVUnifSet/C3D_FVUnifMtx4x4: f32 mode, each vec4 as w z y x */
static void uniforms(cmdbuf *c, uint32_t first, const float (*v)[4], uint32_t n)
{
    uint32_t data[4 * 16];
    for (uint32_t i = 0; i < n && i < 16; i++)
        for (int k = 0; k < 4; k++)
            memcpy(&data[4 * i + k], &v[i][3 - k], 4);
    put(c, "GPUREG_VSH_FLOATUNIFORM_CONFIG", 0x80000000u | first);
    cmd(c, reg("GPUREG_VSH_FLOATUNIFORM_DATA"), data, 4 * n, 0xF, false);
}

static int uniform_reg(const pvk_shbin *sh, const char *name)
{
    for (uint32_t i = 0; i < sh->uniform_count; i++)
        if (!strcmp(sh->uniform[i].name, name))
            return sh->uniform[i].first - 0x10;
    return 0;
}

/* C3D_TexBind(0, tex) + GPU_SetTextureEnable: linear filtering, repeat */
static void bind_texture(cmdbuf *c, uint32_t addr, uint32_t w, uint32_t h)
{
    PUTS(c, "GPUREG_TEXUNIT0_BORDER_COLOR", 0, w << 16 | h, 0x2206, 0, addr >> 3);
    put(c, "GPUREG_TEXUNIT0_TYPE", 0); /* RGBA8 */
    put(c, "GPUREG_TEXUNIT_CONFIG", 0x11001);
}

/* C3D_TexEnv and C3D_DepthTest for a lit object (stage 0 texture x light,
 * stage 1 + the highlight x white: a multiply-add of the colour's alpha;
 * depth writes) or a shadow (black, the texture's alpha; blended over the
 * ground, no depth writes). */
static void set_look(cmdbuf *c, bool shadow)
{
    if (shadow) {
        PUTS(c, "GPUREG_TEXENV0_SOURCE", 0x0003000E, 0, 0, 0xFF000000u, 0);
        PUTS(c, "GPUREG_TEXENV1_SOURCE", 0x000F000F, 0, 0, 0, 0);
    } else {
        PUTS(c, "GPUREG_TEXENV0_SOURCE", 0x00030003, 0, 0x00010001, 0, 0);
        PUTS(c, "GPUREG_TEXENV1_SOURCE", 0x000E0FE0, 0x002, 0x00000008, 0xFFF0F4FF, 0);
    }
    put(c, "GPUREG_DEPTH_COLOR_MASK", shadow ? 0x0F61 : 0x1F61); /* GREATER; RGBA (and depth) writes */
}

/* C3D_DrawArrays(GPU_TRIANGLES, first, count) */
static void draw_arrays(cmdbuf *c, uint32_t first, uint32_t count)
{
    put_mask(c, "GPUREG_PRIMITIVE_CONFIG", 0, 0x2); /* triangles */
    put(c, "GPUREG_RESTART_PRIMITIVE", 1);
    put(c, "GPUREG_INDEXBUFFER_CONFIG", 0x80000000u);
    put(c, "GPUREG_NUMVERTICES", count);
    put(c, "GPUREG_VERTEX_OFFSET", first);
    put_mask(c, "GPUREG_GEOSTAGE_CONFIG2", 1, 0x1);
    put_mask(c, "GPUREG_START_DRAW_FUNC0", 0, 0x1);
    put(c, "GPUREG_DRAWARRAYS", 1);
    put_mask(c, "GPUREG_START_DRAW_FUNC0", 1, 0x1);
    put_mask(c, "GPUREG_GEOSTAGE_CONFIG2", 0, 0x1);
    put(c, "GPUREG_VTX_FUNC", 1);
}

/* ---- content: meshes and textures ---- */

typedef struct vertex { float pos[3], nrm[3], tc[2]; } vertex;
#define SEG_LON 48
#define SEG_LAT 32
#define SPHERE_VERTS (SEG_LON * SEG_LAT * 6)

/* A unit sphere as a triangle list, texture s around, t pole to pole. */
static uint32_t make_sphere(vertex *v)
{
    uint32_t n = 0;
    for (int j = 0; j < SEG_LAT; j++)
        for (int i = 0; i < SEG_LON; i++) {
            static const int corner[6][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 0}, {1, 1}, {0, 1}};
            for (int k = 0; k < 6; k++) {
                float s = (float)(i + corner[k][0]) / SEG_LON, t = (float)(j + corner[k][1]) / SEG_LAT;
                float lon = s * 6.2831853f, lat = (t - 0.5f) * 3.1415927f;
                float p[3] = {cosf(lat) * sinf(lon), sinf(lat), cosf(lat) * cosf(lon)};
                vertex *o = &v[n++];
                memcpy(o->pos, p, sizeof p);
                memcpy(o->nrm, p, sizeof p);
                o->tc[0] = s;
                o->tc[1] = t;
            }
        }
    return n;
}

/* The ground: a square at y = 0, the checker repeated `rep` times. */
static uint32_t make_floor(vertex *v, float half, float rep)
{
    static const int corner[6][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 0}, {1, 1}, {0, 1}};
    for (int k = 0; k < 6; k++) {
        float a = (float)corner[k][0], b = (float)corner[k][1];
        v[k] = (vertex){{(a * 2 - 1) * half, 0, (1 - b * 2) * half}, {0, 1, 0}, {a * rep, b * rep}};
    }
    return 6;
}

/* An RGBA8 texture as the PICA reads it: 8x8 tiles in rows from the top
 * (t = 1), texels in Morton order inside a tile, each word 0xRRGGBBAA;
 * texel() gives 0xAARRGGBB, alpha 0 meaning opaque. */
static void put_texture(uint8_t *dst, uint32_t w, uint32_t h, uint32_t (*texel)(uint32_t x, uint32_t y))
{
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint32_t tile = (y / 8) * (w / 8) + x / 8, tx = x & 7, ty = y & 7;
            uint32_t m = (tx & 1) | (ty & 1) << 1 | (tx & 2) << 1 | (ty & 2) << 2 | (tx & 4) << 2 | (ty & 4) << 3;
            uint32_t c = texel(x, y);
            uint8_t *p = dst + 4 * (tile * 64 + m);
            p[0] = (uint8_t)~(c >> 24), p[1] = (uint8_t)c, p[2] = (uint8_t)(c >> 8), p[3] = (uint8_t)(c >> 16);
        }
}

/* A beach ball: six coloured gores, white caps, a dark seam at the equator. */
static uint32_t ball_texel(uint32_t x, uint32_t y)
{
    static const uint32_t gores[6] = {0xE03C31, 0xF7D23A, 0x2F6FD8, 0xF4F4F0, 0x3BB273, 0xF08A24};
    if (y < 6 || y >= 58)
        return 0xF4F4F0;
    if (y == 31 || y == 32)
        return 0x303040;
    return gores[x * 6 / 128];
}

/* The ground: a checker of two greens with a thin light border per square. */
static uint32_t floor_texel(uint32_t x, uint32_t y)
{
    if ((x & 31) == 0 || (y & 31) == 0)
        return 0xD8D8C8;
    return ((x >> 5) ^ (y >> 5)) & 1 ? 0x4E8A3E : 0x7DB45A;
}

/* A ball's shadow on the ground: black, its alpha falling off from the
 * middle (a blob shadow, as 3DS games draw them). */
static uint32_t shadow_texel(uint32_t x, uint32_t y)
{
    float dx = ((float)x + 0.5f) / 16 - 1, dy = ((float)y + 0.5f) / 16 - 1, d = sqrtf(dx * dx + dy * dy);
    float a = d >= 1 ? 0 : 0.6f * (1 - d * d) * (1 - d * d);
    return (uint32_t)(255 - (int)(a * 255)) << 24;
}

/* ---- the frame ---- */

/* One object: its model matrix and rotation (for normals), its vertices,
 * its texture, and whether it is a shadow (blended, no depth writes). */
typedef struct object {
    mat4 model, rot;
    uint32_t first, count, tex;
    bool shadow;
} object;

/* Register writes by name (a name the table lacks is a bug here). */
struct mmio_write {
    const char *name;
    uint32_t value;
};

static pvk_result mmio_all(pvk_context *ctx, const struct mmio_write *w, size_t n)
{
    pvk_result r = PVK_SUCCESS;
    for (size_t i = 0; i < n && !r; i++) {
        uint32_t a = pvk_register_address(w[i].name);
        r = a ? pvk_mmio_write32(ctx, a, w[i].value) : PVK_ERROR_INVALID_ARGUMENT;
    }
    return r;
}

pvk_result demo_scene(pvk_context *ctx, uint32_t lcd_fb)
{
    pvk_shbin *sh = malloc(sizeof *sh);
    cmdbuf c = {.w = pvk_guest_ptr(ctx, CMDLIST, CMDLIST_CAP * 4), .cap = CMDLIST_CAP};
    vertex *vbo = pvk_guest_ptr(ctx, VBO, VBO_CAP);
    uint8_t *tex_ball = pvk_guest_ptr(ctx, TEX_BALL, 128 * 64 * 4);
    uint8_t *tex_floor = pvk_guest_ptr(ctx, TEX_FLOOR, 64 * 64 * 4);
    uint8_t *tex_shadow = pvk_guest_ptr(ctx, TEX_SHADOW, 32 * 32 * 4);
    char err[256];
    pvk_result r = PVK_ERROR_OUT_OF_MEMORY;
    if (!sh)
        return r;
    r = PVK_ERROR_OUT_OF_RANGE;
    if (!c.w || !vbo || !tex_ball || !tex_floor || !tex_shadow)
        goto out;
    if ((r = pvk_pica_asm(vsh_src, strlen(vsh_src), sh, err, sizeof err))) {
        fprintf(stderr, "picavk demo: the vertex program: %s\n", err);
        goto out;
    }

    /* the CPU's side: meshes and textures in the linear heap */
    uint32_t n_sphere = make_sphere(vbo), n_floor = make_floor(vbo + n_sphere, 40, 20);
    uint32_t n_disc = make_floor(vbo + n_sphere + n_floor, 1, 1), disc = n_sphere + n_floor;
    put_texture(tex_ball, 128, 64, ball_texel);
    put_texture(tex_floor, 64, 64, floor_texel);
    put_texture(tex_shadow, 32, 32, shadow_texel);
    if ((r = pvk_guest_written(ctx, VBO, (disc + n_disc) * (uint32_t)sizeof(vertex))) ||
        (r = pvk_guest_written(ctx, TEX_BALL, 128 * 64 * 4)) || (r = pvk_guest_written(ctx, TEX_FLOOR, 64 * 64 * 4)) ||
        (r = pvk_guest_written(ctx, TEX_SHADOW, 32 * 32 * 4)))
        goto out;

    /* the camera a little above the ground, looking slightly down */
    mat4 view = mat_mul(mat_rot(0, 0.16f), mat_trs(0, -1.1f, 0, 1));
    mat4 proj = persp_tilt(0.95f, 400.0f / 240.0f);
    /* the light (directional, from the upper left front) in view space */
    float lw[3] = {-0.55f, 0.75f, 0.45f}, l[4] = {0}, h[4] = {0};
    norm3(lw);
    for (int i = 0; i < 3; i++)
        l[i] = view.m[i][0] * lw[0] + view.m[i][1] * lw[1] + view.m[i][2] * lw[2];
    memcpy(h, l, sizeof h);
    h[2] += 1; /* Blinn's half vector, the viewer at infinity along +z */
    norm3(h);

    /* the balls: where, how big, how turned */
    static const struct { float x, z, r, ax, ay, az; } balls[3] = {
        {0.2f, -4.2f, 1, 0, 0.6f, 0.35f}, {-2.4f, -7.5f, 0.7f, -0.3f, 2.1f, 0}, {3.6f, -13, 1.3f, 0, -0.8f, 0}};
    object objs[7] = {{mat_id(), mat_id(), n_sphere, n_floor, TEX_FLOOR, false}}; /* the ground */
    for (int i = 0; i < 3; i++) {
        mat4 rot = mat_mul(mat_rot(2, balls[i].az), mat_mul(mat_rot(0, balls[i].ax), mat_rot(1, balls[i].ay)));
        /* its shadow just above the ground, a little wider than the ball and
         * half-way to where the light would throw it, then the ball on it */
        float sx = balls[i].x - 0.5f * balls[i].r * lw[0] / lw[1], sz = balls[i].z - 0.5f * balls[i].r * lw[2] / lw[1];
        objs[1 + i] = (object){mat_trs(sx, 0.01f, sz, balls[i].r * 1.3f), mat_id(), disc, n_disc, TEX_SHADOW, true};
        objs[4 + i] = (object){mat_mul(mat_trs(balls[i].x, balls[i].r, balls[i].z, balls[i].r), rot), rot, 0,
                               n_sphere, TEX_BALL, false};
    }


    /* C3D_FrameBufClear: the fill units clear colour and depth */
    const struct mmio_write fill[] = {
        {"GPU_MEMFILL_DST_ADDR0", RT_COLOR >> 3}, {"GPU_MEMFILL_DST_END0", (RT_COLOR + RT_W * RT_H * 4) >> 3},
        {"GPU_MEMFILL_DATA0", CLEAR_RGBA},        {"GPU_MEMFILL_CNT0", 0x201}, /* 32-bit, start */
        {"GPU_MEMFILL_DST_ADDR1", RT_DEPTH >> 3}, {"GPU_MEMFILL_DST_END1", (RT_DEPTH + RT_W * RT_H * 4) >> 3},
        {"GPU_MEMFILL_DATA1", 0},                 {"GPU_MEMFILL_CNT1", 0x201},
    };
    if ((r = mmio_all(ctx, fill, sizeof fill / sizeof fill[0])))
        goto out;
    if ((r = pvk_wait_idle(ctx)))
        goto out;

    /* C3D_FrameDrawOn: the render target, the viewport */
    put(&c, "GPUREG_FRAMEBUFFER_INVALIDATE", 1);
    PUTS(&c, "GPUREG_DEPTHBUFFER_LOC", RT_DEPTH >> 3, RT_COLOR >> 3);
    put(&c, "GPUREG_FRAMEBUFFER_DIM", 0x01000000u | (RT_H - 1) << 12 | RT_W);
    PUTS(&c, "GPUREG_DEPTHBUFFER_FORMAT", 3, 2); /* D24S8; RGBA8 */
    put(&c, "GPUREG_FRAMEBUFFER_BLOCK32", 0);
    PUTS(&c, "GPUREG_COLORBUFFER_READ", 0xF, 0xF, 0x3, 0x3);
    put(&c, "GPUREG_VIEWPORT_WIDTH", f24(RT_W / 2.0f));
    put(&c, "GPUREG_VIEWPORT_HEIGHT", f24(RT_H / 2.0f));
    put(&c, "GPUREG_VIEWPORT_XY", 0);
    put(&c, "GPUREG_SCISSORTEST_MODE", 0);
    /* C3D_Init: C3D_DepthMap(true, -1, 0), no culling here, depth test
     * GREATER with all writes, no alpha or stencil test, alpha blending */
    put(&c, "GPUREG_DEPTHMAP_ENABLE", 1);
    PUTS(&c, "GPUREG_DEPTHMAP_SCALE", f24(-1.0f), 0);
    put(&c, "GPUREG_FACECULLING_CONFIG", 0);
    put(&c, "GPUREG_COLOR_OPERATION", 0xE40100);
    put(&c, "GPUREG_BLEND_FUNC", 0x76760000);
    put(&c, "GPUREG_FRAGOP_ALPHA_TEST", 0);
    put(&c, "GPUREG_STENCIL_TEST", 0);
    bind_program(&c, sh);
    /* C3D_BufInfo: one buffer of position (float3), normal (float3),
     * texcoord (float2); citro3d's base 0x18000000 */
    put(&c, "GPUREG_ATTRIBBUFFERS_LOC", 0x18000000u >> 3);
    PUTS(&c, "GPUREG_ATTRIBBUFFERS_FORMAT_LOW", 0x7BB, 0x20000000);
    PUTS(&c, "GPUREG_ATTRIBBUFFER0_OFFSET", VBO - 0x18000000u, 0x210, 0x30000000u | (uint32_t)sizeof(vertex) << 16);
    /* C3D_TexEnvInit on stages 2-5 (stages 0 and 1 per object, below) */
    static const char *const rest[4] = {"GPUREG_TEXENV2_SOURCE", "GPUREG_TEXENV3_SOURCE", "GPUREG_TEXENV4_SOURCE",
                                        "GPUREG_TEXENV5_SOURCE"};
    for (int i = 0; i < 4; i++)
        PUTS(&c, rest[i], 0x000F000F, 0, 0, 0, 0);
    /* C3D_FogGasMode(GPU_FOG, GPU_PLAIN_DENSITY, false), C3D_FogColor,
     * C3D_FogLutBind of FogLut_Exp-shaped values over the depth 1..0 */
    put_mask(&c, "GPUREG_TEXENV_UPDATE_BUFFER", 5, 0x5);
    put(&c, "GPUREG_FOG_COLOR", (CLEAR_RGBA >> 24) | (CLEAR_RGBA >> 8 & 0xFF00) | (CLEAR_RGBA << 8 & 0xFF0000));
    uint32_t lut[128];
    float prev = 0;
    for (int i = 128; i >= 0; i--) {
        /* depth i/128 -> distance from the eye -> the share of the object */
        float depth = (float)i / 128, d = NEAR * FAR / (depth * (FAR - NEAR) + NEAR);
        float x = d > 5 ? (d - 5) * 0.09f : 0, v = expf(-x * x);
        if (i < 128) {
            int val = (int)(v * 2048), diff = (int)lroundf((prev - v) * 2048);
            lut[i] = (uint32_t)(val > 0x7FF ? 0x7FF : val) << 13 | ((uint32_t)diff & 0x1FFF);
        }
        prev = v;
    }
    put(&c, "GPUREG_FOG_LUT_INDEX", 0);
    cmd(&c, reg("GPUREG_FOG_LUT_DATA"), lut, 128, 0xF, false);
    /* the light's uniforms once, then per object its matrices and a draw */
    float lights[4][4] = {{l[0], l[1], l[2], 0}, {h[0], h[1], h[2], 0}, {0.28f, 0.30f, 0.38f, 1},
                          {0.80f, 0.78f, 0.70f, 0}};
    uniforms(&c, (uint32_t)uniform_reg(sh, "light"), lights, 4);
    uint32_t bound = 0;
    for (int i = 0; i < 7; i++) {
        const object *o = &objs[i];
        if (o->tex != bound)
            bind_texture(&c, o->tex, o->tex == TEX_BALL ? 128 : o->tex == TEX_FLOOR ? 64 : 32,
                         o->tex == TEX_SHADOW ? 32 : 64);
        if (i < 2 || i == 4) /* the ground, the first shadow, the first ball */
            set_look(&c, o->shadow);
        bound = o->tex;
        mat4 mv = mat_mul(view, o->model), mvp = mat_mul(proj, mv), nr = mat_mul(view, o->rot);
        uniforms(&c, (uint32_t)uniform_reg(sh, "mvp"), (const float (*)[4])mvp.m, 4);
        uniforms(&c, (uint32_t)uniform_reg(sh, "nrm"), (const float (*)[4])nr.m, 3);
        draw_arrays(&c, o->first, o->count);
    }
    /* C3D_FrameEnd: flush and invalidate the render target, FINALIZE */
    put(&c, "GPUREG_FRAMEBUFFER_FLUSH", 1);
    put(&c, "GPUREG_FRAMEBUFFER_INVALIDATE", 1);
    put(&c, "GPUREG_FINALIZE", 0x12345678);
    while (c.n & 3 && c.n < c.cap) /* the list's size is in 16-byte units' halves */
        c.w[c.n++] = 0;
    r = PVK_ERROR_INVALID_ARGUMENT; /* a bug here: a register name, the list's size */
    if (c.full)
        goto out;
    if ((r = pvk_guest_written(ctx, CMDLIST, c.n * 4)))
        goto out;
    /* GX_ProcessCommandList: the P3D registers run it */
    const struct mmio_write run[] = {
        {"GPUREG_CMDBUF_SIZE0", c.n * 4 / 8}, {"GPUREG_CMDBUF_ADDR0", CMDLIST >> 3}, {"GPUREG_CMDBUF_JUMP0", 1}};
    if ((r = mmio_all(ctx, run, 3)))
        goto out;
    if ((r = pvk_wait_idle(ctx)))
        goto out;

    /* C3D_FrameBufTransfer: tiled RGBA8 240x400 -> linear BGR8, the LCD's */
    const struct mmio_write transfer[] = {
        {"GPU_MEMCOPY_SRC_ADDR", RT_COLOR >> 3},
        {"GPU_MEMCOPY_DST_ADDR", lcd_fb >> 3},
        {"GPU_MEMCOPY_DISPLAY_OUT_SIZE", (uint32_t)RT_H << 16 | RT_W},
        {"GPU_MEMCOPY_DISPLAY_IN_SIZE", (uint32_t)RT_H << 16 | RT_W},
        {"GPU_MEMCOPY_FLAGS", 0x1000}, /* RGBA8 in, BGR8 out */
        {"GPU_MEMCOPY_CNT", 1},
    };
    if ((r = mmio_all(ctx, transfer, sizeof transfer / sizeof transfer[0])))
        goto out;
    r = pvk_wait_idle(ctx);
out:
    free(sh);
    return r;
}
