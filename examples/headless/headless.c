/* picavk headless example: one frame drawn the way a 3DS program draws it.
 *
 * A host that emulates a 3DS owns the guest's memory and forwards the guest's
 * register writes; this program plays both parts with only picavk.h.  It
 *
 *   1. creates a context on guest memory it allocated itself (VRAM, FCRAM),
 *   2. writes a vertex buffer and a 16x16 texture into FCRAM,
 *   3. clears the 240x400 render target with the two memory fill units,
 *   4. builds ONE command list the way citro3d does (shader upload, render
 *      target, viewport, output merger, attributes, texture, TEV, fragment
 *      lighting, DRAWARRAYS, FRAMEBUFFER_FLUSH, FINALIZE) and starts it through
 *      the command-list registers, as GSP does,
 *   5. copies the render target to a BGR8 LCD framebuffer with a display
 *      transfer, programs the top screen's PDC registers and signals VBlank,
 *   6. reads the top screen, writes it as a PNG and checks pixels against a
 *      CPU computation of the same lighting, texturing and colour.
 *
 * docs/driving-the-pica.md explains each step.  Usage: headless [OUT.png] */
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <picavk/picavk.h>

/* Guest physical addresses.  Render target and depth buffer in VRAM (as
 * citro3d puts them), everything the CPU writes in FCRAM (its linear heap). */
#define COLOR_BUF 0x18000000u /* 240x400 RGBA8, 8x8 tiles */
#define DEPTH_BUF 0x18100000u /* 240x400 D24S8 */
#define CMD_LIST 0x20000000u
#define VERTICES 0x20010000u
#define TEXTURE 0x20020000u   /* 16x16 RGBA8, 8x8 tiles */
#define LCD_FB 0x20100000u    /* 240x400 BGR8, linear: what the top LCD scans out */
#define TARGET_BYTES (240u * 400u * 4u)

/* PICA internal registers (libctru's names), written by command lists. */
enum {
    FINALIZE = 0x010, FACECULLING_CONFIG = 0x040, VIEWPORT_WIDTH = 0x041, DEPTHMAP_SCALE = 0x04D,
    SH_OUTMAP_TOTAL = 0x04F, SH_OUTATTR_MODE = 0x064, SCISSORTEST_MODE = 0x065, VIEWPORT_XY = 0x068,
    DEPTHMAP_ENABLE = 0x06D, RENDERBUF_DIM = 0x06E, SH_OUTATTR_CLOCK = 0x06F, TEXUNIT_CONFIG = 0x080,
    TEXUNIT0_BORDER_COLOR = 0x081, TEXUNIT0_TYPE = 0x08E, LIGHTING_ENABLE0 = 0x08F, TEXENV0_SOURCE = 0x0C0,
    TEXENV1_SOURCE = 0x0C8, TEXENV2_SOURCE = 0x0D0, TEXENV3_SOURCE = 0x0D8, TEXENV4_SOURCE = 0x0F0,
    TEXENV5_SOURCE = 0x0F8, COLOR_OPERATION = 0x100, BLEND_FUNC = 0x101, FRAGOP_ALPHA_TEST = 0x104,
    FRAMEBUFFER_INVALIDATE = 0x110,
    FRAMEBUFFER_FLUSH = 0x111, COLORBUFFER_READ = 0x112, DEPTHBUFFER_FORMAT = 0x116, COLORBUFFER_FORMAT = 0x117,
    FRAMEBUFFER_BLOCK32 = 0x11B, DEPTHBUFFER_LOC = 0x11C, LIGHT0_SPECULAR0 = 0x140, LIGHTING_AMBIENT = 0x1C0,
    LIGHTING_NUM_LIGHTS = 0x1C2, LIGHTING_ENABLE1 = 0x1C6, LIGHTING_LUTINPUT_ABS = 0x1D0,
    LIGHTING_LIGHT_PERMUTATION = 0x1D9, ATTRIBBUFFERS_LOC = 0x200, ATTRIBBUFFERS_FORMAT_LOW = 0x201,
    ATTRIBBUFFER0_OFFSET = 0x203, INDEXBUFFER_CONFIG = 0x227, NUMVERTICES = 0x228, GEOSTAGE_CONFIG = 0x229,
    VERTEX_OFFSET = 0x22A, DRAWARRAYS = 0x22E, VTX_FUNC = 0x231, VSH_NUM_ATTR = 0x242, VSH_COM_MODE = 0x244,
    START_DRAW_FUNC0 = 0x245, VSH_OUTMAP_TOTAL1 = 0x24A, VSH_OUTMAP_TOTAL2 = 0x251, GSH_MISC0 = 0x252,
    GEOSTAGE_CONFIG2 = 0x253, GSH_MISC1 = 0x254, PRIMITIVE_CONFIG = 0x25E, RESTART_PRIMITIVE = 0x25F,
    GSH_INPUTBUFFER_CONFIG = 0x289, VSH_BOOLUNIFORM = 0x2B0, VSH_INTUNIFORM_I0 = 0x2B1,
    VSH_INPUTBUFFER_CONFIG = 0x2B9, VSH_ENTRYPOINT = 0x2BA, VSH_ATTRIBUTES_PERMUTATION_LOW = 0x2BB,
    VSH_OUTMAP_MASK = 0x2BD, VSH_CODETRANSFER_END = 0x2BF, VSH_FLOATUNIFORM_CONFIG = 0x2C0,
    VSH_FLOATUNIFORM_DATA = 0x2C1, VSH_CODETRANSFER_CONFIG = 0x2CB, VSH_CODETRANSFER_DATA = 0x2CC,
    VSH_OPDESCS_CONFIG = 0x2D5, VSH_OPDESCS_DATA = 0x2D6,
};

/* The vertex shader, assembled with `picavk asm` from (picasso syntax):
 *
 *   .fvec projection[4]                    ; c0-c3, set by the host per frame
 *   .constf identity(0.0, 0.0, 0.0, 1.0)   ; c95: the normal quaternion
 *   .out outpos position                   ; o0
 *   .out outq normalquat                   ; o1
 *   .out outview view                      ; o2
 *   .out outtc0 texcoord0                  ; o3
 *   .out outclr color                      ; o4
 *   .alias inpos v0                        ; eye-space position
 *   .alias intc0 v1
 *   .alias inclr v2
 *   .proc main
 *       dp4 outpos.x, projection[0], inpos
 *       dp4 outpos.y, projection[1], inpos
 *       dp4 outpos.z, projection[2], inpos
 *       dp4 outpos.w, projection[3], inpos
 *       mov outq, identity                 ; every normal is +z: a flat triangle
 *       mov outview, -inpos                ; eye - position, for the lighting
 *       mov outtc0, intc0
 *       mov outclr, inclr
 *       end
 *   .end */
static const uint32_t vs_code[] = {0x08020000, 0x08021001, 0x08022002, 0x08023003, 0x4C27F004,
                                   0x4C400005, 0x4C601004, 0x4C802004, 0x88000000};
static const uint32_t vs_opdescs[] = {0x0006C368, 0x0006C364, 0x0006C362, 0x0006C361, 0x0000036F, 0x0000037F};
/* Output map: which semantic each component of o0-o6 carries (libctru's DVLE
 * rule): 0-3 position, 4-7 quaternion, 8-B colour, C-D texcoord 0, 12-14 view, 1F none. */
static const uint32_t vs_outmap[8] = {5, 0x03020100, 0x07060504, 0x1F141312, 0x1F1F0D0C,
                                      0x0B0A0908, 0x1F1F1F1F, 0x1F1F1F1F};

/* The triangle in eye space (z = -2, looking down -z): position, texture
 * coordinates (two repeats of the texture), colour. */
typedef struct vertex { float pos[3], tc[2], rgb[3]; } vertex;
static const vertex tri[3] = {
    {{0.0f, 0.85f, -2.0f}, {1.0f, 2.0f}, {1.0f, 1.0f, 1.0f}},   /* top: white */
    {{-1.2f, -0.85f, -2.0f}, {0.0f, 0.0f}, {1.0f, 0.55f, 0.35f}}, /* bottom left: orange */
    {{1.2f, -0.85f, -2.0f}, {2.0f, 0.0f}, {0.35f, 0.6f, 1.0f}},   /* bottom right: blue */
};
static const float light_pos[3] = {0.5f, 0.25f, -1.25f}; /* eye space, 0.75 above the triangle */
#define DIFFUSE 230 /* the light's diffuse colour, grey */
#define AMBIENT 40  /* the scene's ambient light, grey */
static const uint32_t clear_rgba = 0x202838FF; /* memory fill value: 0xRRGGBBAA */

/* The texture: a checkerboard of 4x4-texel squares, white and teal, t = 0 at the bottom. */
static uint32_t texel(uint32_t s, uint32_t t)
{
    return ((s / 4 + t / 4) & 1) ? 0x288CA0FF : 0xFFFFFFFF; /* 0xRRGGBBAA */
}

/* PICA floats: sign, `e` exponent bits (bias 2^(e-1) - 1), `m` mantissa bits
 * (float1.5.10 for light positions, 1.7.16 "f24", 1.7.23 "f31").  Normal values only. */
static uint32_t pica_float(float f, int e, int m)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    if (!(b & 0x7FFFFFFF))
        return 0;
    uint32_t exp = ((b >> 23) & 0xFF) - 127 + ((1u << (e - 1)) - 1);
    return (b >> 31) << (e + m) | exp << m | (b & 0x7FFFFF) >> (23 - m);
}

/* ---- the command list, laid out as libctru's GPUCMD_* functions lay it out ---- */

static uint32_t *cl, cl_words;

/* One command: the first value, the header (register id, byte mask, number of
 * further values, consecutive flag), the further values, a padding word that
 * keeps the next command 8-byte aligned.  Consecutive: values go to id, id+1,
 * ...; else all to id (a data port). */
static void cmd(uint32_t id, uint32_t mask, bool consecutive, const uint32_t *v, uint32_t n)
{
    cl[cl_words++] = v[0];
    cl[cl_words++] = id | mask << 16 | (n - 1) << 20 | (uint32_t)consecutive << 31;
    for (uint32_t i = 1; i < n; i++)
        cl[cl_words++] = v[i];
    if (cl_words & 1)
        cl[cl_words++] = 0;
}
#define ARR(...) (const uint32_t[]){__VA_ARGS__}, sizeof((const uint32_t[]){__VA_ARGS__}) / 4
#define W(id, v) cmd(id, 0xF, false, ARR(v))           /* GPUCMD_AddWrite */
#define MASKED(id, m, v) cmd(id, m, false, ARR(v))      /* GPUCMD_AddMaskedWrite */
#define SEQ(id, ...) cmd(id, 0xF, true, ARR(__VA_ARGS__)) /* GPUCMD_AddIncrementalWrites */

static void build_command_list(void)
{
    /* C3D_BindProgram -> shaderProgramConfigure + shaderProgramUse */
    MASKED(GEOSTAGE_CONFIG, 0x3, 0); /* no geometry shader, first: it decides which units listen */
    MASKED(GEOSTAGE_CONFIG2, 0x3, 0);
    MASKED(VSH_COM_MODE, 0x1, 0);
    W(VSH_CODETRANSFER_CONFIG, 0);   /* code from word 0 */
    cmd(VSH_CODETRANSFER_DATA, 0xF, false, vs_code, sizeof vs_code / 4);
    W(VSH_CODETRANSFER_END, 1);
    W(VSH_OPDESCS_CONFIG, 0);
    cmd(VSH_OPDESCS_DATA, 0xF, false, vs_opdescs, sizeof vs_opdescs / 4);
    W(VSH_ENTRYPOINT, 0x7FFF0000 | 0); /* main at word 0 */
    W(VSH_OUTMAP_MASK, 0x1F);          /* o0-o4 written */
    W(VSH_OUTMAP_TOTAL1, vs_outmap[0] - 1);
    W(VSH_OUTMAP_TOTAL2, vs_outmap[0] - 1);
    MASKED(PRIMITIVE_CONFIG, 0x1, vs_outmap[0] - 1);
    cmd(SH_OUTMAP_TOTAL, 0xF, true, vs_outmap, 8);
    W(SH_OUTATTR_MODE, 1);             /* texture coordinates are output */
    W(SH_OUTATTR_CLOCK, 0x01000103);   /* position z, colour, texcoord 0, quaternion/view */
    MASKED(GEOSTAGE_CONFIG, 0xA, 0);
    W(GSH_MISC0, 0);
    W(GSH_MISC1, 0);
    W(GSH_INPUTBUFFER_CONFIG, 0xA0000000);
    W(VSH_BOOLUNIFORM, 0x7FFF0000);
    SEQ(VSH_INTUNIFORM_I0, 0, 0, 0, 0);
    SEQ(VSH_FLOATUNIFORM_CONFIG, 95, 0x3F000000, 0, 0); /* c95 = (0,0,0,1): index, then w z y x as f24 */

    /* C3D_FrameDrawOn: the render target.  It is 240 wide and 400 high, the
     * top screen turned a quarter: the LCD's lines run along its short side. */
    W(FRAMEBUFFER_INVALIDATE, 1);
    const uint32_t dim = 0x01000000 | (400 - 1) << 12 | 240;
    SEQ(DEPTHBUFFER_LOC, DEPTH_BUF >> 3, COLOR_BUF >> 3, dim); /* depth, colour, FRAMEBUFFER_DIM */
    W(RENDERBUF_DIM, dim);
    W(DEPTHBUFFER_FORMAT, 3);           /* D24S8 */
    W(COLORBUFFER_FORMAT, 0 << 16 | 2); /* RGBA8 (format 0), 4 bytes a pixel (2) */
    W(FRAMEBUFFER_BLOCK32, 0);
    SEQ(COLORBUFFER_READ, 0xF, 0xF, 0x3, 0x3); /* colour read/write, depth+stencil read/write */

    /* C3D_SetViewport(0, 0, 240, 400): half sizes (f24) and their inverses (f31) */
    SEQ(VIEWPORT_WIDTH, pica_float(120.0f, 7, 16), pica_float(2.0f / 240, 7, 23) << 1, pica_float(200.0f, 7, 16),
        pica_float(2.0f / 400, 7, 23) << 1);
    W(VIEWPORT_XY, 0);
    SEQ(SCISSORTEST_MODE, 0, 0, 0);

    /* C3D_Init's output merger: depth test GREATER writing everything, alpha
     * blending src alpha / one minus src alpha, back faces (clockwise) culled */
    W(DEPTHMAP_ENABLE, 1);
    W(FACECULLING_CONFIG, 2);
    SEQ(DEPTHMAP_SCALE, pica_float(-1.0f, 7, 16), 0); /* depth = -z/w */
    SEQ(FRAGOP_ALPHA_TEST, 0, 0x10 | 0xFF << 24, 0, 0x1F61); /* alpha test off, stencil off, ops, depth */
    W(COLOR_OPERATION, 0xE40100);
    W(BLEND_FUNC, 0x76760000);

    /* C3D_SetAttrInfo / C3D_SetBufInfo: v0 float x3, v1 float x2, v2 float x3 from one buffer */
    SEQ(ATTRIBBUFFERS_FORMAT_LOW, 0xB | 0x7 << 4 | 0xB << 8, 0xFF8u << 16 | 2u << 28);
    MASKED(VSH_INPUTBUFFER_CONFIG, 0xB, 0xA0000000 | 2);
    W(VSH_NUM_ATTR, 2);
    SEQ(VSH_ATTRIBUTES_PERMUTATION_LOW, 0x210, 0);
    W(ATTRIBBUFFERS_LOC, 0x18000000 >> 3); /* citro3d's base; buffers are offsets from it */
    SEQ(ATTRIBBUFFER0_OFFSET, VERTICES - 0x18000000, 0x210, (uint32_t)sizeof(vertex) << 16 | 3u << 28);

    /* C3D_TexBind(0, ...): RGBA8 16x16, nearest, repeat in both directions */
    MASKED(SH_OUTATTR_CLOCK, 0x2, 1 << 8);
    W(TEXUNIT_CONFIG, 0x00011000 | 1); /* unit 0 on; bit 16 clears the texture cache */
    SEQ(TEXUNIT0_BORDER_COLOR, 0, 16 << 16 | 16, 2 << 12 | 2 << 8, 0, TEXTURE >> 3);
    W(TEXUNIT0_TYPE, 0);

    /* C3D_TexEnv: stage 0 texture x vertex colour, stage 1 that x the lit colour;
     * stages 2-5 pass the previous stage on (C3D_TexEnvInit) */
    SEQ(TEXENV0_SOURCE, 0x00030003, 0, 0x00010001, 0, 0); /* sources TEXTURE0, PRIMARY_COLOR; modulate */
    SEQ(TEXENV1_SOURCE, 0x000F001F, 0, 0x00000001, 0, 0); /* PREVIOUS x FRAGMENT_PRIMARY_COLOR; alpha kept */
    const uint32_t stages[4] = {TEXENV2_SOURCE, TEXENV3_SOURCE, TEXENV4_SOURCE, TEXENV5_SOURCE};
    for (int i = 0; i < 4; i++)
        SEQ(stages[i], 0x000F000F, 0, 0, 0, 0);

    /* C3D_LightEnvBind + one positional C3D_Light: diffuse only, every LUT,
     * spot light and attenuation off (C3D_LightEnvInit's configuration) */
    W(LIGHTING_ENABLE0, 1);
    W(LIGHTING_ENABLE1, 0);
    MASKED(SH_OUTATTR_CLOCK, 0x8, 1 << 24);
    W(LIGHTING_AMBIENT, AMBIENT << 20 | AMBIENT << 10 | AMBIENT); /* R bits 20-27, G 10-17, B 0-7 */
    SEQ(LIGHTING_NUM_LIGHTS, 0, 0x88000400, 0xFFFFFFFF); /* 1 light; CONFIG0, CONFIG1 as citro3d */
    SEQ(LIGHTING_LUTINPUT_ABS, 0x2222222, 0, 0);
    W(LIGHTING_LIGHT_PERMUTATION, 0); /* slot 0 is light 0 */
    SEQ(LIGHT0_SPECULAR0, 0, 0, DIFFUSE << 20 | DIFFUSE << 10 | DIFFUSE, 0,
        pica_float(light_pos[1], 5, 10) << 16 | pica_float(light_pos[0], 5, 10), pica_float(light_pos[2], 5, 10),
        0, 0, 0, 0 /* CONFIG: positional */, 0, 0);

    /* C3D_FVUnifMtx4x4(projection): f32 mode (bit 31), each row as w, z, y, x.
     * An ortho projection of x in [-5/3, 5/3], y in [-1, 1], eye z -1..-3 to
     * clip z 0..-1, turned a quarter for the 240x400 target: clip (x, y) =
     * (screen y, -screen x), citro3d's Mtx_OrthoTilt. */
    const float proj[4][4] = {{0, 1, 0, 0}, {-0.6f, 0, 0, 0}, {0, 0, 0.5f, 0.5f}, {0, 0, 0, 1}};
    uint32_t words[16];
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            memcpy(&words[4 * r + 3 - c], &proj[r][c], 4);
    W(VSH_FLOATUNIFORM_CONFIG, 0x80000000 | 0);       /* c0, f32 mode */
    cmd(VSH_FLOATUNIFORM_DATA, 0xF, false, words, 16); /* c0-c3 */

    /* C3D_DrawArrays(GPU_TRIANGLES, 0, 3) */
    MASKED(PRIMITIVE_CONFIG, 0x2, 0 << 8);
    W(RESTART_PRIMITIVE, 1);
    W(INDEXBUFFER_CONFIG, 0x80000000);
    W(NUMVERTICES, 3);
    W(VERTEX_OFFSET, 0);
    MASKED(GEOSTAGE_CONFIG2, 0x1, 1);
    MASKED(START_DRAW_FUNC0, 0x1, 0);
    W(DRAWARRAYS, 1);
    MASKED(START_DRAW_FUNC0, 0x1, 1);
    MASKED(GEOSTAGE_CONFIG2, 0x1, 0);
    W(VTX_FUNC, 1);

    /* C3D_FrameEnd: flush the target to memory; FINALIZE raises P3D.
     * GPUCMD_Split repeats FINALIZE to make the list a multiple of 16 bytes. */
    W(FRAMEBUFFER_FLUSH, 1);
    W(FINALIZE, 0x12345678);
    if (cl_words & 3)
        W(FINALIZE, 0x12345678);
}

/* ---- the rest of the host ---- */

static unsigned irq_count[PVK_IRQ_COUNT];
static void on_irq(void *user, pvk_context *ctx, pvk_irq which)
{
    (void)user, (void)ctx;
    irq_count[which]++;
}

/* A register write by physical address (the userland window, 0x1EF00000-based, works too). */
static void wr(pvk_context *ctx, uint32_t paddr, uint32_t value)
{
    pvk_result r = pvk_mmio_write32(ctx, paddr, value);
    if (r)
        fprintf(stderr, "headless: write 0x%08X: %s\n", paddr, pvk_result_string(r));
}

/* A tiny PNG writer: 8-bit RGB rows (filter 0) in stored deflate blocks. */
static uint32_t crc(uint32_t c, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    return c;
}
static void be32(uint8_t *p, uint32_t v) { p[0] = v >> 24, p[1] = v >> 16, p[2] = v >> 8, p[3] = (uint8_t)v; }
/* One chunk around data[0..n): its length and type go into the 8 bytes
 * before it, its CRC into the 4 after. */
static void chunk(FILE *f, const char *type, uint8_t *data, uint32_t n)
{
    be32(data - 8, n), memcpy(data - 4, type, 4);
    be32(data + n, ~crc(~0u, data - 4, n + 4));
    fwrite(data - 8, 1, n + 12, f);
}
static bool write_png(const char *path, const uint8_t *rgba, uint32_t w, uint32_t h)
{
    size_t row = 1 + 3 * (size_t)w, raw_n = row * h, n = 8;
    uint8_t *raw = malloc(raw_n), *z = malloc(8 + 2 + raw_n + 5 * (raw_n / 65535 + 1) + 8);
    FILE *f = raw && z ? fopen(path, "wb") : NULL;
    bool ok = f != NULL;
    if (ok) {
        for (uint32_t y = 0; y < h; y++) {
            raw[y * row] = 0;
            for (uint32_t x = 0; x < w; x++)
                memcpy(raw + y * row + 1 + 3 * x, rgba + 4 * ((size_t)y * w + x), 3);
        }
        z[n++] = 0x78, z[n++] = 0x01; /* zlib header */
        for (size_t off = 0; off < raw_n; off += 65535) {
            uint32_t len = raw_n - off < 65535 ? (uint32_t)(raw_n - off) : 65535;
            z[n++] = off + len == raw_n, z[n++] = (uint8_t)len, z[n++] = len >> 8;
            z[n++] = (uint8_t)~len, z[n++] = (uint8_t)(~len >> 8);
            memcpy(z + n, raw + off, len), n += len;
        }
        uint32_t s1 = 1, s2 = 0; /* Adler-32 */
        for (size_t i = 0; i < raw_n; i++)
            s1 = (s1 + raw[i]) % 65521, s2 = (s2 + s1) % 65521;
        be32(z + n, s2 << 16 | s1), n += 4;
        uint8_t ihdr[8 + 13 + 4] = {[16] = 8, [17] = 2}, iend[12]; /* 8-bit RGB */
        be32(ihdr + 8, w), be32(ihdr + 12, h);
        fwrite("\x89PNG\r\n\x1a\n", 1, 8, f);
        chunk(f, "IHDR", ihdr + 8, 13);
        chunk(f, "IDAT", z + 8, (uint32_t)(n - 8));
        chunk(f, "IEND", iend + 8, 0);
        ok = fclose(f) == 0;
    }
    free(raw), free(z);
    return ok;
}

/* What the frame should show at screen pixel (x, y), computed on the CPU the
 * way the PICA computes it: the triangle's attributes interpolated at the
 * pixel centre, the nearest texel, the diffuse light.  Returns false where
 * the answer is not sharp (near an edge of the triangle or of a texel). */
static bool expected(uint32_t x, uint32_t y, uint8_t rgb[3], bool *inside)
{
    /* screen pixel -> eye space: the projection's inverse */
    float ex = ((x + 0.5f) / 200 - 1) / 0.6f, ey = 1 - (y + 0.5f) / 120;
    const float *a = tri[0].pos, *b = tri[1].pos, *c = tri[2].pos;
    float det = (b[1] - c[1]) * (a[0] - c[0]) + (c[0] - b[0]) * (a[1] - c[1]);
    float l[3];
    l[0] = ((b[1] - c[1]) * (ex - c[0]) + (c[0] - b[0]) * (ey - c[1])) / det;
    l[1] = ((c[1] - a[1]) * (ex - c[0]) + (a[0] - c[0]) * (ey - c[1])) / det;
    l[2] = 1 - l[0] - l[1];
    float lmin = fminf(l[0], fminf(l[1], l[2]));
    *inside = lmin > 0;
    if (fabsf(lmin) < 0.02f)
        return false;
    if (!*inside) {
        rgb[0] = clear_rgba >> 24, rgb[1] = (uint8_t)(clear_rgba >> 16), rgb[2] = (uint8_t)(clear_rgba >> 8);
        return true;
    }
    float p[3] = {0}, tc[2] = {0}, col[3] = {0};
    for (int v = 0; v < 3; v++)
        for (int k = 0; k < 3; k++) {
            p[k] += l[v] * tri[v].pos[k], col[k] += l[v] * tri[v].rgb[k];
            if (k < 2)
                tc[k] += l[v] * tri[v].tc[k];
        }
    float s = (tc[0] - floorf(tc[0])) * 16, t = (tc[1] - floorf(tc[1])) * 16;
    if (fabsf(s - roundf(s)) < 0.1f || fabsf(t - roundf(t)) < 0.1f)
        return false;
    uint32_t tex = texel((uint32_t)s, (uint32_t)t);
    /* the light vector runs from the surface to the light; the normal is +z */
    float L[3] = {light_pos[0] - p[0], light_pos[1] - p[1], light_pos[2] - p[2]};
    float n_dot_l = fmaxf(L[2] / sqrtf(L[0] * L[0] + L[1] * L[1] + L[2] * L[2]), 0);
    float lit = fminf((AMBIENT + DIFFUSE * n_dot_l) / 255, 1);
    for (int k = 0; k < 3; k++)
        rgb[k] = (uint8_t)((tex >> (24 - 8 * k) & 0xFF) * col[k] * lit);
    return true;
}

static void *region(size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

int main(int argc, char **argv)
{
    const char *out = argc > 1 ? argv[1] : "headless.png";
    /* 1. The guest's memory is the host's: picavk works in it (page aligned,
     * zero-copy where the device can import it). */
    uint8_t *vram = region(PVK_VRAM_SIZE), *fcram = region(PVK_FCRAM_SIZE);
    if (!vram || !fcram)
        return 1;
    pvk_config cfg = {.irq = on_irq, .guest_memory = {[PVK_REGION_VRAM] = vram, [PVK_REGION_FCRAM] = fcram}};
    pvk_context *ctx;
    pvk_result r = pvk_context_create(&cfg, &ctx);
    if (r) {
        fprintf(stderr, "headless: pvk_context_create: %s\n", pvk_result_string(r));
        return 1;
    }
    printf("headless: picavk %s on %s\n", pvk_version(), pvk_device_name(ctx));

    /* 2. Vertices and the texture, written by the "CPU" and announced. */
    memcpy(fcram + (VERTICES - PVK_FCRAM_BASE), tri, sizeof tri);
    pvk_guest_written(ctx, VERTICES, sizeof tri);
    uint8_t *tex = fcram + (TEXTURE - PVK_FCRAM_BASE);
    for (uint32_t t = 0; t < 16; t++)
        for (uint32_t s = 0; s < 16; s++) {
            /* memory rows run top down (row 0 is t = 15); 8x8 tiles, left to
             * right; inside a tile the texels in Morton order, x in the even bits */
            uint32_t row = 15 - t, morton = 0;
            for (int bit = 0; bit < 3; bit++)
                morton |= (s >> bit & 1) << (2 * bit) | (row >> bit & 1) << (2 * bit + 1);
            uint32_t c = texel(s, t);
            memcpy(tex + ((row / 8 * 2 + s / 8) * 64 + morton) * 4, &c, 4); /* bytes A, B, G, R */
        }
    pvk_guest_written(ctx, TEXTURE, 16 * 16 * 4);

    /* 3. Clear colour and depth: memory fill units 0 and 1 (start, end, value, control) */
    wr(ctx, 0x10400010, COLOR_BUF >> 3);
    wr(ctx, 0x10400014, (COLOR_BUF + TARGET_BYTES) >> 3);
    wr(ctx, 0x10400018, clear_rgba);
    wr(ctx, 0x1040001C, 2 << 8 | 1); /* 32-bit values, start */
    wr(ctx, 0x10400020, DEPTH_BUF >> 3);
    wr(ctx, 0x10400024, (DEPTH_BUF + TARGET_BYTES) >> 3);
    wr(ctx, 0x10400028, 0);
    wr(ctx, 0x1040002C, 2 << 8 | 1);

    /* 4. The command list, then GSP's three register writes to run it */
    cl = (uint32_t *)(fcram + (CMD_LIST - PVK_FCRAM_BASE));
    build_command_list();
    pvk_guest_written(ctx, CMD_LIST, cl_words * 4);
    wr(ctx, 0x104018E0, cl_words * 4 >> 3); /* CMDBUF_SIZE0: bytes / 8 */
    wr(ctx, 0x104018E8, CMD_LIST >> 3);     /* CMDBUF_ADDR0 */
    wr(ctx, 0x104018F0, 1);                 /* CMDBUF_JUMP0: go */

    /* 5. C3D_FrameBufTransfer: tiled RGBA8 240x400 -> linear BGR8, then the
     * top screen scans that out: 240 pixels a line, 400 lines */
    wr(ctx, 0x10400C00, COLOR_BUF >> 3);  /* input */
    wr(ctx, 0x10400C04, LCD_FB >> 3);     /* output */
    wr(ctx, 0x10400C08, 400 << 16 | 240); /* output width | height << 16 */
    wr(ctx, 0x10400C0C, 400 << 16 | 240); /* input size */
    wr(ctx, 0x10400C10, 1 << 12);         /* in RGBA8 (bits 8-10), out BGR8 (12-14) */
    wr(ctx, 0x10400C14, 0);
    wr(ctx, 0x10400C18, 1);               /* start; PPF when done */
    wr(ctx, 0x1040045C, 400 << 16 | 240); /* image size */
    wr(ctx, 0x10400460, 0x1C100D1);       /* pixels 209..449 of a line: 240 */
    wr(ctx, 0x10400464, 0x1920002);       /* lines 2..402: 400 */
    wr(ctx, 0x10400468, LCD_FB);          /* framebuffer A, first and second */
    wr(ctx, 0x1040046C, LCD_FB);
    wr(ctx, 0x10400470, 0x141);           /* BGR8, 2D (lines doubled), FCRAM burst */
    wr(ctx, 0x10400490, 240 * 3);         /* stride */
    wr(ctx, 0x10400478, 0);               /* show the first address */
    wr(ctx, 0x10400474, 0x10501);         /* enable */
    if ((r = pvk_wait_idle(ctx)) || (r = pvk_vblank(ctx))) {
        fprintf(stderr, "headless: %s\n", pvk_result_string(r));
        pvk_context_destroy(ctx);
        return 1;
    }

    /* 6. The top screen, upright, RGBA8 */
    uint32_t w, h;
    pvk_frame_size(ctx, PVK_SCREEN_TOP, &w, &h);
    uint8_t *rgba = malloc((size_t)w * h * 4);
    if (!rgba || w != 400 || h != 240 || pvk_frame_read(ctx, PVK_SCREEN_TOP, rgba, w * 4)) {
        fprintf(stderr, "headless: no 400x240 top screen (%ux%u)\n", w, h);
        return 1;
    }
    int bad = 0;
    uint32_t checked = 0, lit_pixels = 0;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint8_t want[3];
            bool inside;
            if (!expected(x, y, want, &inside))
                continue;
            const uint8_t *got = rgba + 4 * ((size_t)y * w + x);
            checked++, lit_pixels += inside;
            /* within 6 inside: the interpolated colour and each TEV stage round */
            int tol = inside ? 6 : 0, off = 0;
            for (int k = 0; k < 3; k++)
                off |= abs(got[k] - want[k]) > tol;
            if (off && bad++ < 5)
                fprintf(stderr, "headless: pixel (%u, %u) is %u,%u,%u, expected %u,%u,%u\n", x, y, got[0], got[1],
                        got[2], want[0], want[1], want[2]);
        }
    const pvk_irq want_irqs[] = {PVK_IRQ_PSC0, PVK_IRQ_PSC1, PVK_IRQ_P3D, PVK_IRQ_PPF, PVK_IRQ_PDC0};
    for (size_t i = 0; i < sizeof want_irqs / sizeof want_irqs[0]; i++)
        if (!irq_count[want_irqs[i]] && ++bad)
            fprintf(stderr, "headless: interrupt %d never came\n", (int)want_irqs[i]);
    pvk_stats st;
    pvk_get_stats(ctx, &st);
    if (st.draws != 1 || st.bad_input || st.unsupported) {
        fprintf(stderr, "headless: %llu draws, %llu bad inputs, %llu unsupported\n", (unsigned long long)st.draws,
                (unsigned long long)st.bad_input, (unsigned long long)st.unsupported);
        bad++;
    }
    if (!write_png(out, rgba, w, h) && ++bad)
        fprintf(stderr, "headless: cannot write %s\n", out);
    printf("headless: %u pixels checked (%u in the triangle), %d wrong; wrote %s\n", checked, lit_pixels, bad, out);
    free(rgba);
    pvk_context_destroy(ctx);
    munmap(vram, PVK_VRAM_SIZE), munmap(fcram, PVK_FCRAM_SIZE);
    return bad != 0;
}
