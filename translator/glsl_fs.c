/* The fragment shader for a pvk_fs_key, as GLSL: the scissor exclude
 * rectangle, the PICA depth (z/w scaled and offset, W-buffer, quantised to
 * the buffer's bits, passed as q * 2^-24 so the D32 test compares integers),
 * the six TEV stages with their buffer, the alpha test.
 *
 * TEV arithmetic is integer on 8-bit channels as the most careful software
 * model (Citra's) does it; nothing of it is float (FACTS.md "TEV combiner
 * buffer", 3dbrew "GPU/Internal Registers" TEXENVi):
 *   replace a; modulate a*b/255; add min(a+b, 255); add-signed
 *   clamp(a+b-128); interpolate (a*c + b*(255-c))/255; subtract max(a-b, 0);
 *   dot3 sum of ((2a-255)*(2b-255)+128)/256 over R, G, B, clamped, in every
 *   channel (dot3_rgba also in alpha); multiply-add min((a*b + 255*c)/255, 255);
 *   add-multiply min(a+b, 255)*c/255; then times the stage's scale, saturated.
 * Divisions truncate.  The primary colour enters as round(colour * 255).
 * Unknown sources, operands and combine modes read as 0 (Citra does the same
 * and logs); texture units 0-2 are sampled (texture_samples), the procedural
 * unit 3 reads 0 until it exists; the fragment primary
 * and secondary colours are 0 while lighting does not exist (the hardware
 * gives 0 with lighting off).
 *
 * With the key's blend state (devices that read attachments in rasterization
 * order) the shader blends too: the destination comes from the colour
 * attachment as an input attachment, and every equation and factor is the
 * integer arithmetic of tests/ref/frag_ref.c, so the result is exact.
 * Without it the generated text is unchanged (disk-cached shaders stay). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "translator/translator.h"


/* The GLSL expression (uvec4) of TEV source `src` in stage `n`. */
static const char *source(unsigned src)
{
    switch (src) {
    case PVK_TEV_SRC_PRIMARY: return "primary";
    case PVK_TEV_SRC_FRAG_PRIMARY: return "frag_pri"; /* fragment lighting (glsl_light.c); 0 with lighting off */
    case PVK_TEV_SRC_FRAG_SECONDARY: return "frag_sec";
    case PVK_TEV_SRC_TEX0: return "tex0";
    case PVK_TEV_SRC_TEX1: return "tex1";
    case PVK_TEV_SRC_TEX2: return "tex2";
    case PVK_TEV_SRC_TEX3: return "tex3"; /* the procedural texture (glsl_light.c); 0 with unit 3 off */
    case PVK_TEV_SRC_BUFFER: return "buf";
    case PVK_TEV_SRC_CONSTANT: return "konst";
    case PVK_TEV_SRC_PREVIOUS: return "prev";
    default: return "uvec4(0u)"; /* unknown codes, and stage 0's "previous" of "previous" (PVK_TEV_SRC_ZERO) */
    }
}

static void rgb_operand(pvk_text *b, unsigned op, const char *v)
{
    switch (op) {
    case 0: pvk_text_put(b, "%s.rgb", v); break;
    case 1: pvk_text_put(b, "(uvec3(255u) - %s.rgb)", v); break;
    case 2: pvk_text_put(b, "%s.aaa", v); break;
    case 3: pvk_text_put(b, "(uvec3(255u) - %s.aaa)", v); break;
    case 4: pvk_text_put(b, "%s.rrr", v); break;
    case 5: pvk_text_put(b, "(uvec3(255u) - %s.rrr)", v); break;
    case 8: pvk_text_put(b, "%s.ggg", v); break;
    case 9: pvk_text_put(b, "(uvec3(255u) - %s.ggg)", v); break;
    case 12: pvk_text_put(b, "%s.bbb", v); break;
    case 13: pvk_text_put(b, "(uvec3(255u) - %s.bbb)", v); break;
    default: pvk_text_put(b, "uvec3(0u)"); break;
    }
}

static void alpha_operand(pvk_text *b, unsigned op, const char *v)
{
    static const char comp[4] = {'a', 'r', 'g', 'b'};
    if (op & 1)
        pvk_text_put(b, "(255u - %s.%c)", v, comp[op >> 1]);
    else
        pvk_text_put(b, "%s.%c", v, comp[op >> 1]);
}

/* Blend factor `f` (BLEND_FUNC, 0-15) for the colour channels (`alpha`
 * false, a uvec3) or alpha (a uint) of source s, destination d and blend
 * colour k, as tests/ref/frag_ref.c computes it; 0xF (unknown) is One. */
static void blend_factor(pvk_text *b, unsigned f, bool alpha)
{
    static const char *const rgb[16] = {
        "uvec3(0u)", "uvec3(255u)", "s.rgb", "(uvec3(255u) - s.rgb)", "d.rgb", "(uvec3(255u) - d.rgb)",
        "uvec3(s.a)", "uvec3(255u - s.a)", "uvec3(d.a)", "uvec3(255u - d.a)", "k.rgb", "(uvec3(255u) - k.rgb)",
        "uvec3(k.a)", "uvec3(255u - k.a)", "uvec3(min(s.a, 255u - d.a))", "uvec3(255u)"};
    static const char *const a[16] = {"0u",        "255u",        "s.a", "(255u - s.a)", "d.a", "(255u - d.a)",
                                      "s.a",       "(255u - s.a)", "d.a", "(255u - d.a)", "k.a", "(255u - k.a)",
                                      "k.a",       "(255u - k.a)", "255u", "255u"};
    pvk_text_put(b, "%s", alpha ? a[f & 15] : rgb[f & 15]);
}

/* One blend equation (BLEND_FUNC 0-7) on channels `ch` ("rgb" or "a") into
 * res: integer, truncating divisions by 255, as tests/ref/frag_ref.c does;
 * min and max take no factors (Vulkan's rule, which the reference follows);
 * 5-7 are Add (seed document 000). */
static void blend_equation(pvk_text *b, unsigned eq, unsigned src, unsigned dst, bool alpha)
{
    const char *ch = alpha ? "a" : "rgb", *T = alpha ? "uint" : "uvec3";
    if (eq == 3 || eq == 4) {
        pvk_text_put(b, "    res.%s = %s(s.%s, d.%s);\n", ch, eq == 3 ? "min" : "max", ch, ch);
        return;
    }
    pvk_text_put(b, "    {\n        %s x = s.%s * ", T, ch);
    blend_factor(b, src, alpha);
    pvk_text_put(b, ", y = d.%s * ", ch);
    blend_factor(b, dst, alpha);
    pvk_text_put(b, ";\n");
    if (eq == 1)
        pvk_text_put(b, "        res.%s = (x - min(x, y)) / 255u;\n", ch);
    else if (eq == 2)
        pvk_text_put(b, "        res.%s = (y - min(x, y)) / 255u;\n", ch);
    else
        pvk_text_put(b, "        res.%s = min((x + y) / 255u, %s(255u));\n", ch, T);
    pvk_text_put(b, "    }\n");
}

/* The helper (tev_helpers) computing combine mode `mode` on (a, b, c); NULL: unknown, reads 0. */
static const char *combine_fn(unsigned mode)
{
    switch (mode) {
    case PVK_TEV_REPLACE: return "tev_replace";
    case PVK_TEV_MODULATE: return "tev_modulate";
    case PVK_TEV_ADD: return "tev_add";
    case PVK_TEV_ADD_SIGNED: return "tev_add_signed";
    case PVK_TEV_LERP: return "tev_lerp";
    case PVK_TEV_SUBTRACT: return "tev_subtract";
    case PVK_TEV_MUL_ADD: return "tev_mul_add";
    case PVK_TEV_ADD_MUL: return "tev_add_mul";
    default: return NULL;
    }
}

/* A stage after the first that hands "previous" on unchanged (replace with
 * it, colour and alpha, x1): only the buffer update is left of it.  Stage 0's
 * "previous" is not the combiner output (it reads 0 or argument 3). */
static bool passes_through(const pvk_tev_stage *st, unsigned n)
{
    return n > 0 && st->rgb_combine == PVK_TEV_REPLACE && st->rgb_src[0] == PVK_TEV_SRC_PREVIOUS && !st->rgb_op[0] &&
           !st->rgb_scale && st->alpha_combine == PVK_TEV_REPLACE && st->alpha_src[0] == PVK_TEV_SRC_PREVIOUS &&
           !st->alpha_op[0] && !st->alpha_scale;
}

static const char *const prelude =
    "#version 460\n"
    "layout(location = 0) in vec4 color;\n"
    "layout(location = 2) in float clip_w;\n"
    "layout(location = 3) in vec4 tc01;\n" /* texcoord 0 (s, t), texcoord 1 (s, t): shaders/draw.vert's outputs */
    "layout(location = 4) in vec3 tc2w;\n" /* texcoord 2 (s, t), texcoord 0 w */
    "layout(location = 5) in vec4 quat;\n" /* normal quaternion */
    "layout(location = 6) in vec3 view;\n"
    "layout(location = 0) out vec4 out_color;\n"
    "layout(push_constant) uniform Push {\n"
    "    layout(offset = 32) ivec4 exclude;\n" /* scissor exclude rectangle, attachment pixels; x1 < x0: none */
    "    float depth_scale, depth_offset, depth_max;\n"
    "    uint w_buffer;\n"
    "    uint tev_color[6];\n"
    "    uint buffer_color;\n"
    "    uint alpha_ref;\n"
    "    uint tex_border[3];\n"
    "    uint shadow_bias;\n";
/* ... then, when the shader blends, the blend colour (BLEND_COLOR), the
 * ubershader's texture word (at its fixed offset: pvk_draw_push.uber_tex),
 * and: */
static const char *const prelude_end =
    "};\n"
    "uvec4 rgba8(uint c) { return uvec4(c & 255u, (c >> 8) & 255u, (c >> 16) & 255u, c >> 24); }\n"
    /* a sampled UNORM colour to the TEV's bytes: exact for unfiltered texels
     * (c / 255 back to c); filtered values round to nearest */
    "uvec4 texel8(vec4 c) { return uvec4(round(clamp(c, 0.0, 1.0) * 255.0)); }\n";

/* Declarations of the samplers of the enabled units (runtime/pipeline.c's
 * set 0, bindings 0-2). */
static void texture_decls(pvk_text *b, const pvk_fs_tex_key *t)
{
    for (unsigned u = 0; u < 3; u++) {
        if (!(t->enable >> u & 1))
            continue;
        bool cube = u == 0 && (t->type0 == PVK_TEXTYPE_CUBE || t->type0 == PVK_TEXTYPE_SHADOW_CUBE);
        pvk_text_put(b, "layout(set = 0, binding = %u) uniform %s tex_unit%u;\n", u, cube ? "samplerCube" : "sampler2D",
                     u);
    }
    /* Shadow 2D (Citra's and Azahar's model; 3dbrew documents only the
     * registers): each texel of an RGBA8 texture holds what shadow-mode
     * rendering writes (translator/glsl_light.c): a 24-bit depth in memory
     * bytes 0-2, most significant first (the A, B, G channels), and an 8-bit
     * intensity in byte 3 (R).  A texel lets
     * the light through (its intensity / 255) where its depth is greater
     * than the fragment's z, else 0; a texel outside the texture gives 1.
     * The four texels around the sample point are compared, then mixed
     * bilinearly whatever the filter registers say. */
    if ((t->enable & 1) && t->type0 == PVK_TEXTYPE_SHADOW_2D)
        pvk_text_put(b, "float shadow_texel(ivec2 p, ivec2 size, uint z)\n{\n"
                        "    if (any(lessThan(p, ivec2(0))) || any(greaterThanEqual(p, size)))\n"
                        "        return 1.0;\n"
                        "    uvec4 c = texel8(texelFetch(tex_unit0, ivec2(p.x, size.y - 1 - p.y), 0));\n"
                        "    return (c.a << 16 | c.b << 8 | c.g) > z ? float(c.r) / 255.0 : 0.0;\n"
                        "}\n");
}

/* Unit 0's shadow texture at c: z is |w| of texture coordinates 0 clamped
 * to 1, as a 24-bit depth, minus the bias; four texels' results filtered. */
static void shadow_sample(pvk_text *b)
{
    pvk_text_put(b, "        uint z = uint(max(0, int(min(abs(tc2w.z), 1.0) * 16777215.0) - int(shadow_bias)));\n"
                    "        ivec2 size = textureSize(tex_unit0, 0);\n"
                    "        vec2 p = c * vec2(size) - 0.5, f = fract(p);\n"
                    "        ivec2 i = ivec2(floor(p));\n"
                    "        float s = mix(mix(shadow_texel(i, size, z), shadow_texel(i + ivec2(1, 0), size, z), f.x),\n"
                    "                      mix(shadow_texel(i + ivec2(0, 1), size, z), shadow_texel(i + ivec2(1, 1), size, z), f.x),\n"
                    "                      f.y);\n"
                    "        tex0 = texel8(vec4(s));\n");
}

/* The ubershader's unit u (not a cube map) of unit 0's type `type` (part
 * of its kind: a branch per type, even one no lane takes, halves lavapipe's
 * fill rate); texture 2's coordinates, the borders and shadow ortho from
 * its push word (pvk_fs_uber_tex); the specialised text below otherwise. */
static void uber_sample(pvk_text *b, unsigned u, unsigned type)
{
    pvk_text_put(b, "    {\n");
    if (type == PVK_TEXTYPE_SHADOW_2D) {
        pvk_text_put(b, "        vec2 c = tc01.xy;\n"
                        "        if ((uber_tex >> 24) == 0u)\n"
                        "            c = c / tc2w.z;\n");
        shadow_sample(b);
        pvk_text_put(b, "    }\n");
        return;
    }
    const char *tc = u == 0 ? "tc01.xy" : u == 1 ? "tc01.zw" : "((uber_tex & 0x100u) != 0u ? tc01.zw : tc2w.xy)";
    pvk_text_put(b, "        vec2 c = %s;\n", tc);
    if (type == PVK_TEXTYPE_PROJECTION)
        pvk_text_put(b, "        c = c / tc2w.z;\n"
                        "        tex%u = texel8(texture(tex_unit%u, vec2(c.x, 1.0 - c.y)));\n",
                     u, u);
    else
        pvk_text_put(b, "        vec2 d = c * vec2(textureSize(tex_unit%u, 0)), m = max(abs(dFdx(d)), abs(dFdy(d)));\n"
                        "        tex%u = texel8(textureLod(tex_unit%u, vec2(c.x, 1.0 - c.y), log2(max(m.x, m.y))));\n",
                     u, u, u);
    pvk_text_put(b, "        uint border = uber_tex >> 16;\n"
                    "        if (((border >> %uu & 1u) != 0u && (c.x < 0.0 || c.x >= 1.0)) ||\n"
                    "            ((border >> %uu & 1u) != 0u && (c.y < 0.0 || c.y >= 1.0)))\n"
                    "            tex%u = rgba8(tex_border[%u]);\n"
                    "    }\n",
                 u, u + 4, u, u);
}

/* tex0-2: the TEV's texture sources, sampled first (implicit LOD needs
 * every fragment of the quad, before any discard).  PICA t runs up from the
 * last row in memory while image row 0 is memory's first: v = 1 - t.  Unit 0
 * reads texture coordinates 0, unit 1 coordinates 1, unit 2 coordinates 2 or
 * 1; a projection texture divides s and t by texture coordinate 0's w; a
 * cube map takes (s, t, w) of coordinates 0 as the direction (Citra's model:
 * Vulkan's face selection with each face's t flipped like a 2D texture's,
 * which is the y axis on the X and Z faces and z on the Y faces; not
 * documented by 3dbrew).  Projection and cube maps take Vulkan's implicit
 * level of detail.  With shader_border a coordinate outside [0, 1)
 * gives the border colour, texel for texel as the PICA decides it with the
 * nearest filter. */
static void texture_samples(pvk_text *b, const pvk_fs_tex_key *t, bool uber)
{
    pvk_text_put(b, "    uvec4 tex0 = uvec4(0u), tex1 = uvec4(0u), tex2 = uvec4(0u);\n");
    for (unsigned u = 0; u < 3; u++) {
        if (!(t->enable >> u & 1))
            continue;
        unsigned type = u == 0 ? t->type0 : PVK_TEXTYPE_2D;
        if (uber && type != PVK_TEXTYPE_CUBE) {
            uber_sample(b, u, type);
            continue;
        }
        if (type == PVK_TEXTYPE_SHADOW_2D) {
            pvk_text_put(b, "    {\n"
                            "        vec2 c = tc01.xy%s;\n",
                         t->shadow_ortho ? "" : " / tc2w.z");
            shadow_sample(b);
            pvk_text_put(b, "    }\n");
            continue;
        }
        if (type == PVK_TEXTYPE_CUBE) {
            pvk_text_put(b, "    {\n"
                            "        vec3 d = vec3(tc01.xy, tc2w.z), m = abs(d);\n"
                            "        if (m.y >= m.x && m.y >= m.z)\n"
                            "            d.z = -d.z;\n"
                            "        else\n"
                            "            d.y = -d.y;\n"
                            "        tex0 = texel8(texture(tex_unit0, d));\n"
                            "    }\n");
            continue;
        }
        const char *tc = u == 0 ? "tc01.xy" : u == 1 || t->tex2_tc1 ? "tc01.zw" : "tc2w.xy";
        pvk_text_put(b, "    {\n        vec2 c = %s%s;\n", tc, type == PVK_TEXTYPE_PROJECTION ? " / tc2w.z" : "");
        if (type == PVK_TEXTYPE_PROJECTION) {
            pvk_text_put(b, "        tex%u = texel8(texture(tex_unit%u, vec2(c.x, 1.0 - c.y)));\n", u, u);
        } else {
            /* the level of detail as the emulators compute it for 2D
             * textures: log2 of the largest texel-space derivative (the
             * sampler adds the bias and clamps to the LOD registers' levels) */
            pvk_text_put(b, "        vec2 d = c * vec2(textureSize(tex_unit%u, 0)), m = max(abs(dFdx(d)), abs(dFdy(d)));\n"
                            "        tex%u = texel8(textureLod(tex_unit%u, vec2(c.x, 1.0 - c.y), log2(max(m.x, m.y))));\n",
                         u, u, u);
        }
        bool bs = t->shader_border >> u & 1, bt = t->shader_border >> (u + 4) & 1;
        if (bs || bt)
            pvk_text_put(b, "        if (%s%s%s)\n            tex%u = rgba8(tex_border[%u]);\n",
                         bs ? "c.x < 0.0 || c.x >= 1.0" : "", bs && bt ? " || " : "",
                         bt ? "c.y < 0.0 || c.y >= 1.0" : "", u, u);
        pvk_text_put(b, "    }\n");
    }
}

/* The combine helpers the key's stages use, per argument type (uint for
 * alpha, uvec3 for colour): GLSL has no templates, and unused ones would
 * only lengthen every compile. */
static void tev_helpers(pvk_text *b, const pvk_fs_key *key)
{
    static const char *types[2][2] = {{"uint", "int"}, {"uvec3", "ivec3"}};
    uint32_t used[2] = {0, 0}; /* bit m: combine mode m, for alpha / colour */
    bool dot3 = key->uber;
    if (key->uber)
        used[0] = used[1] = 0x3FF;
    for (unsigned n = 0; n < 6 && !key->uber; n++) {
        const pvk_tev_stage *st = &key->stage[n];
        if (passes_through(st, n))
            continue;
        used[1] |= 1u << (st->rgb_combine & 15);
        used[0] |= 1u << (st->alpha_combine & 15);
        dot3 |= st->rgb_combine == PVK_TEV_DOT3_RGB || st->rgb_combine == PVK_TEV_DOT3_RGBA;
    }
    for (int t = 0; t < 2; t++) {
        const char *T = types[t][0], *I = types[t][1];
        uint32_t u = used[t];
        if (u >> PVK_TEV_REPLACE & 1)
            pvk_text_put(b, "%s tev_replace(%s a, %s b, %s c) { return a; }\n", T, T, T, T);
        if (u >> PVK_TEV_MODULATE & 1)
            pvk_text_put(b, "%s tev_modulate(%s a, %s b, %s c) { return a * b / 255u; }\n", T, T, T, T);
        if (u >> PVK_TEV_ADD & 1)
            pvk_text_put(b, "%s tev_add(%s a, %s b, %s c) { return min(a + b, %s(255u)); }\n", T, T, T, T, T);
        if (u >> PVK_TEV_ADD_SIGNED & 1)
            pvk_text_put(b, "%s tev_add_signed(%s a, %s b, %s c) { return %s(clamp(%s(a + b) - 128, 0, 255)); }\n", T,
                         T, T, T, T, I);
        if (u >> PVK_TEV_LERP & 1)
            pvk_text_put(b, "%s tev_lerp(%s a, %s b, %s c) { return (a * c + b * (255u - c)) / 255u; }\n", T, T, T, T);
        if (u >> PVK_TEV_SUBTRACT & 1)
            pvk_text_put(b, "%s tev_subtract(%s a, %s b, %s c) { return %s(max(%s(a) - %s(b), 0)); }\n", T, T, T, T, T,
                         I, I);
        if (u >> PVK_TEV_MUL_ADD & 1)
            pvk_text_put(b, "%s tev_mul_add(%s a, %s b, %s c) { return min((a * b + 255u * c) / 255u, %s(255u)); }\n",
                         T, T, T, T, T);
        if (u >> PVK_TEV_ADD_MUL & 1)
            pvk_text_put(b, "%s tev_add_mul(%s a, %s b, %s c) { return min(a + b, %s(255u)) * c / 255u; }\n", T, T, T,
                         T, T);
    }
    if (dot3)
        pvk_text_put(b, "uint tev_dot3(uvec3 a, uvec3 b)\n{\n"
                        "    ivec3 p = (ivec3(a) * 2 - 255) * (ivec3(b) * 2 - 255) + 128;\n"
                        "    return uint(clamp(p.x / 256 + p.y / 256 + p.z / 256, 0, 255));\n}\n");
}

/* Stage `n`'s combiners into "prev" (the two helpers above; arguments from
 * a canonical key, fs_key.c tev_canonical). */
static void tev_stage(pvk_text *b, const pvk_tev_stage *st, unsigned n)
{
    pvk_text_put(b, "    // stage %u\n    konst = rgba8(tev_color[%u]);\n", n, n);
    /* stage 0's "previous" in colour arguments 1 and 2 is already what it
     * reads (fs_key.c tev_canonical) */
    const char *rs[3], *as[3];
    for (unsigned i = 0; i < 3; i++) {
        rs[i] = source(st->rgb_src[i]);
        as[i] = source(st->alpha_src[i]);
    }
    const char *fn = combine_fn(st->rgb_combine);
    if (st->rgb_combine == PVK_TEV_DOT3_RGB || st->rgb_combine == PVK_TEV_DOT3_RGBA) {
        pvk_text_put(b, "    rgb = uvec3(tev_dot3(");
        rgb_operand(b, st->rgb_op[0], rs[0]);
        pvk_text_put(b, ", ");
        rgb_operand(b, st->rgb_op[1], rs[1]);
        pvk_text_put(b, "));\n");
    } else if (fn) {
        pvk_text_put(b, "    rgb = %s(", fn);
        for (unsigned i = 0; i < 3; i++) {
            rgb_operand(b, st->rgb_op[i], rs[i]);
            pvk_text_put(b, i < 2 ? ", " : ");\n");
        }
    } else {
        pvk_text_put(b, "    rgb = uvec3(0u);\n");
    }
    fn = combine_fn(st->alpha_combine);
    if (st->rgb_combine == PVK_TEV_DOT3_RGBA) {
        pvk_text_put(b, "    a = rgb.r;\n"); /* dot3_rgba: the alpha is the dot product too */
    } else if (fn) {
        pvk_text_put(b, "    a = %s(", fn);
        for (unsigned i = 0; i < 3; i++) {
            alpha_operand(b, st->alpha_op[i], as[i]);
            pvk_text_put(b, i < 2 ? ", " : ");\n");
        }
    } else {
        pvk_text_put(b, "    a = 0u;\n");
    }
    unsigned rs_shift = st->rgb_scale < 3 ? st->rgb_scale : 0, as_shift = st->alpha_scale < 3 ? st->alpha_scale : 0;
    pvk_text_put(b, "    prev = uvec4(min(rgb << %uu, uvec3(255u)), min(a << %uu, 255u));\n", rs_shift, as_shift);
}

/* Can TEV source `c` be other than 0 in an ubershader of this kind (in its
 * first stage)? */
static bool uber_source_live(const pvk_fs_key *key, unsigned c, bool first)
{
    switch (c) {
    case PVK_TEV_SRC_PRIMARY:
    case PVK_TEV_SRC_CONSTANT: return true;
    case PVK_TEV_SRC_FRAG_PRIMARY:
    case PVK_TEV_SRC_FRAG_SECONDARY: return key->fl.light;
    case PVK_TEV_SRC_TEX0:
    case PVK_TEV_SRC_TEX1:
    case PVK_TEV_SRC_TEX2: return key->tex.enable >> (c - PVK_TEV_SRC_TEX0) & 1;
    case PVK_TEV_SRC_TEX3: return key->fl.proctex;
    case PVK_TEV_SRC_BUFFER:
    case PVK_TEV_SRC_PREVIOUS: return !first;
    default: return false;
    }
}

/* The ubershader's readers of its data: the uniform block (pvk_fs_uber_state),
 * a byte of it, and one function per choice the specialised shader makes
 * from its key.  Each computes every alternative with the specialised
 * generator's own text for that code and keeps the one the code names with
 * mix(..., bool), a select: lavapipe runs both sides of every branch (it
 * masks lanes), so a switch over the codes would cost them all and their
 * control flow; the selects cost the arithmetic alone. */
static void uber_helpers(pvk_text *b, const pvk_fs_key *key)
{
    pvk_text_put(b, "layout(set = 0, binding = %u, std140) uniform Uber { uvec4 ust[7]; };\n"
                    "uint ub(uvec4 w, uint i) { return (w[i >> 2] >> ((i & 3u) * 8u)) & 255u; }\n"
                    "uint pk(uvec4 v) { return v.r | v.g << 8 | v.b << 16 | v.a << 24; }\n",
                 (unsigned)PVK_DRAW_BINDING_UBER);
    /* Sources as RGBA8 words (one select a source instead of four), only
     * those that can be other than 0 in this kind: the sampled units, the
     * lighting colours with lighting, the procedural texture with unit 3;
     * stage 0's buffer and previous are 0 too (tev_source_first). */
    for (int first = 1; first >= 0; first--) {
        pvk_text_put(b, "uint tev_source%s(uint s, uint primary, uint frag_pri, uint frag_sec, uint tex0, uint tex1,\n"
                        "                uint tex2, uint tex3, uint buf, uint konst, uint prev)\n{\n"
                        "    uint r = 0u;\n",
                     first ? "_first" : "");
        for (unsigned c = 0; c < 16; c++)
            if (uber_source_live(key, c, first))
                pvk_text_put(b, "    r = mix(r, %s, s == %uu);\n", source(c), c);
        pvk_text_put(b, "    return r;\n}\n");
    }
    pvk_text_put(b, "#define SOURCES p_primary, p_frag_pri, p_frag_sec, p_tex0, p_tex1, p_tex2, p_tex3, pk(buf), konst_w, pk(prev)\n"
                    "#define SRC(s) tev_source(s, SOURCES)\n"
                    "#define SRC_FIRST(s) tev_source_first(s, SOURCES)\n");
    /* an operand is a channel selection (rgb, or one channel three times),
     * complemented for odd codes (rgb_operand, alpha_operand: 255 - x, which
     * is x ^ 255 on a byte); colour codes without one read 0 */
    pvk_text_put(b, "uvec3 rgb_operand(uint op, uint w)\n{\n"
                    "    uint c = op >> 1;\n"
                    "    uvec3 sh = c == 0u ? uvec3(0u, 8u, 16u) : uvec3(c == 1u ? 24u : c == 2u ? 0u : c == 4u ? 8u : 16u);\n"
                    "    uint m = (c <= 2u || c == 4u || c == 6u) ? 255u : 0u;\n"
                    "    return ((uvec3(w ^ ((op & 1u) != 0u ? 0xFFFFFFFFu : 0u)) >> sh) & uvec3(m));\n}\n"
                    "uint alpha_operand(uint op, uint w)\n{\n"
                    "    uint c = op >> 1;\n"
                    "    return ((w ^ ((op & 1u) != 0u ? 0xFFFFFFFFu : 0u)) >> (c == 1u ? 0u : c == 2u ? 8u : c == 3u ? 16u : 24u)) & 255u;\n}\n");
    if (key->uber & PVK_UBER_SIMPLE) { /* replace and modulate only (pvk_fs_uber_key) */
        pvk_text_put(b, "uvec3 tev_rgb(uint m, uvec3 a, uvec3 b, uvec3 c) { return m == %uu ? tev_modulate(a, b, c) : a; }\n"
                        "uint tev_alpha(uint m, uint a, uint b, uint c) { return m == %uu ? tev_modulate(a, b, c) : a; }\n",
                     (unsigned)PVK_TEV_MODULATE, (unsigned)PVK_TEV_MODULATE);
        return;
    }
    /* The combine modes that divide by 255 (modulate, lerp, multiply-add,
     * add-multiply: tev_helpers' texts, whose results are at most 255) share
     * one division of the selected numerator; the rest are selected after. */
    for (int alpha = 0; alpha < 2; alpha++) {
        const char *T = alpha ? "uint" : "uvec3", *B = alpha ? "bool" : "bvec3", *fn = alpha ? "tev_alpha" : "tev_rgb";
        pvk_text_put(b, "%s %s(uint m, %s a, %s b, %s c)\n{\n"
                        "    %s ab = a * b, sum = tev_add(a, b, c);\n"
                        "    %s num = mix(mix(mix(ab, a * c + b * (%s(255u) - c), %s(m == %uu)), ab + 255u * c, %s(m == %uu)),\n"
                        "                 sum * c, %s(m == %uu));\n"
                        "    %s r = min(num / 255u, %s(255u));\n"
                        "    r = mix(%s(0u), r, %s(m == %uu || m == %uu || m == %uu || m == %uu));\n"
                        "    r = mix(r, a, %s(m == %uu));\n"
                        "    r = mix(r, sum, %s(m == %uu));\n"
                        "    r = mix(r, tev_add_signed(a, b, c), %s(m == %uu));\n"
                        "    r = mix(r, tev_subtract(a, b, c), %s(m == %uu));\n",
                     T, fn, T, T, T, T, T, T, B, (unsigned)PVK_TEV_LERP, B, (unsigned)PVK_TEV_MUL_ADD, B,
                     (unsigned)PVK_TEV_ADD_MUL, T, T, T, B, (unsigned)PVK_TEV_MODULATE, (unsigned)PVK_TEV_LERP,
                     (unsigned)PVK_TEV_MUL_ADD, (unsigned)PVK_TEV_ADD_MUL, B, (unsigned)PVK_TEV_REPLACE, B,
                     (unsigned)PVK_TEV_ADD, B, (unsigned)PVK_TEV_ADD_SIGNED, B, (unsigned)PVK_TEV_SUBTRACT);
        if (!alpha)
            pvk_text_put(b, "    r = mix(r, uvec3(tev_dot3(a, b)), bvec3(m == %uu || m == %uu));\n",
                         (unsigned)PVK_TEV_DOT3_RGB, (unsigned)PVK_TEV_DOT3_RGBA);
        pvk_text_put(b, "    return r;\n}\n");
    }
}

/* The blend factors as functions of the factor code (the shader blends). */
static void uber_blend_helpers(pvk_text *b)
{
    for (int alpha = 0; alpha < 2; alpha++) {
        pvk_text_put(b, "%s blend_factor_%s(uint f, uvec4 s, uvec4 d, uvec4 k)\n{\n    %s r = %s;\n",
                     alpha ? "uint" : "uvec3", alpha ? "a" : "rgb", alpha ? "uint" : "uvec3",
                     alpha ? "255u" : "uvec3(255u)");
        for (unsigned f = 0; f < 15; f++) { /* 15 (unknown) is One, as r starts */
            pvk_text_put(b, "    r = mix(r, ");
            blend_factor(b, f, alpha);
            pvk_text_put(b, ", %s(f == %uu));\n", alpha ? "bool" : "bvec3", f);
        }
        pvk_text_put(b, "    return r;\n}\n");
    }
}

/* The ubershader's stages: what tev_stage writes per stage, from ust[n] (a
 * pvk_tev_stage's bytes; its constant colour from the stage number the data
 * gives, stages being left out), and the buffer updates of main's loop, for
 * the stages uber_stage_list names (the others change nothing that is
 * drawn).  Key `uber` 1 or 2: that many, unrolled
 * (lavapipe masks every write inside a loop, which costs as much as the
 * stage); PVK_UBER_LOOP: a loop over the count in byte 11 of ust[6] (the
 * unrolled text of six stages makes lavapipe's compile of each of its
 * shader variants seconds long). */
static void uber_stage(pvk_text *b, const char *n, const char *konst, bool first, bool buffer)
{
    const unsigned rs = offsetof(pvk_tev_stage, rgb_src), as = offsetof(pvk_tev_stage, alpha_src),
                   ro = offsetof(pvk_tev_stage, rgb_op), ao = offsetof(pvk_tev_stage, alpha_op);
    const char *src = first ? "SRC_FIRST" : "SRC";
    pvk_text_put(b, "        uvec4 w = ust[%s];\n"
                    "        uint konst_w = tev_color[%s];\n"
                    "        uvec3 r0 = rgb_operand(ub(w, %uu), %s(ub(w, %uu)));\n"
                    "        uvec3 r1 = rgb_operand(ub(w, %uu), %s(ub(w, %uu)));\n"
                    "        uvec3 r2 = rgb_operand(ub(w, %uu), %s(ub(w, %uu)));\n"
                    "        uint a0 = alpha_operand(ub(w, %uu), %s(ub(w, %uu)));\n"
                    "        uint a1 = alpha_operand(ub(w, %uu), %s(ub(w, %uu)));\n"
                    "        uint a2 = alpha_operand(ub(w, %uu), %s(ub(w, %uu)));\n",
                 n, konst, ro, src, rs, ro + 1, src, rs + 1, ro + 2, src, rs + 2, ao, src, as, ao + 1, src, as + 1, ao + 2,
                 src, as + 2);
    pvk_text_put(b, "        uint rc = ub(w, %uu), rsh = ub(w, %uu), ash = ub(w, %uu);\n"
                    "        rgb = tev_rgb(rc, r0, r1, r2);\n"
                    "        a = mix(tev_alpha(ub(w, %uu), a0, a1, a2), rgb.r, rc == %uu);\n"
                    "        prev = uvec4(min(rgb << mix(0u, rsh, rsh < 3u), uvec3(255u)), min(a << mix(0u, ash, ash < 3u), 255u));\n"
                    "        buf = next_buf;\n",
                 (unsigned)offsetof(pvk_tev_stage, rgb_combine), (unsigned)offsetof(pvk_tev_stage, rgb_scale),
                 (unsigned)offsetof(pvk_tev_stage, alpha_scale), (unsigned)offsetof(pvk_tev_stage, alpha_combine),
                 (unsigned)PVK_TEV_DOT3_RGBA);
    if (buffer) /* stages 0-3 update the buffer, which later stages read */
        pvk_text_put(b, "        next_buf.rgb = mix(next_buf.rgb, prev.rgb, bvec3(%s < 4u && (ust[6].x >> %s & 1u) != 0u));\n"
                        "        next_buf.a = mix(next_buf.a, prev.a, %s < 4u && (ust[6].x >> (8u + %s) & 1u) != 0u);\n",
                     n, n, n, n);
}

static void uber_stages(pvk_text *b, unsigned uber)
{
    pvk_text_put(b, "    uint p_primary = pk(primary), p_frag_pri = pk(frag_pri), p_frag_sec = pk(frag_sec), p_tex0 = pk(tex0),\n"
                    "         p_tex1 = pk(tex1), p_tex2 = pk(tex2), p_tex3 = pk(tex3);\n");
    uber &= PVK_UBER_STAGES;
    if (uber == PVK_UBER_LOOP) {
        pvk_text_put(b, "    uint stages = ub(ust[6], 11u);\n"
                        "    for (uint n = 0u; n < stages; n++) {\n");
        uber_stage(b, "n", "n == 0u ? 0u : n < 5u ? ub(ust[6], 11u + n) : 5u", false, true);
        pvk_text_put(b, "    }\n");
        return;
    }
    for (unsigned n = 0; n < uber && n < 6; n++) {
        char idx[8], konst[24];
        snprintf(idx, sizeof idx, "%uu", n);
        snprintf(konst, sizeof konst, n ? "ub(ust[6], %uu)" : "0u", 11 + n);
        pvk_text_put(b, "    {\n        // stage %u\n", n);
        uber_stage(b, idx, konst, n == 0, n + 1 < uber);
        pvk_text_put(b, "    }\n");
    }
}

/* The stages the ubershader runs, into idx (their numbers; returns how
 * many): stage 0 and those after it up to the last that does not pass
 * "previous" on, leaving out the ones between that pass it on unless a
 * stage reads the combiner buffer (which they still update). */
static unsigned uber_stage_list(const pvk_fs_key *fs, uint8_t idx[6])
{
    unsigned last = 0;
    bool buffer = false;
    for (unsigned n = 0; n < 6; n++) {
        const pvk_tev_stage *st = &fs->stage[n];
        if (passes_through(st, n))
            continue;
        last = n;
        for (unsigned i = 0; i < 3; i++)
            buffer |= st->rgb_src[i] == PVK_TEV_SRC_BUFFER || st->alpha_src[i] == PVK_TEV_SRC_BUFFER;
    }
    unsigned k = 0;
    for (unsigned n = 0; n <= last; n++)
        if (buffer || !passes_through(&fs->stage[n], n))
            idx[k++] = (uint8_t)n;
    return k;
}

char *pvk_glsl_fragment(const pvk_fs_key *key)
{
    pvk_text b = {0};
    bool uber = key->uber;
    pvk_text_put(&b, "%s", prelude);
    if (key->blend) /* pvk_draw_push's blend_color */
        pvk_text_put(&b, "    uint blend_color;\n");
    if (uber) /* pvk_draw_push's last member */
        pvk_text_put(&b, "    layout(offset = %u) uint uber_tex;\n", 32u + 84u);
    pvk_text_put(&b, "%s", prelude_end);
    if (key->blend) /* the destination: this pixel of the colour attachment (runtime/pipeline.c's set 0) */
        pvk_text_put(&b, "layout(input_attachment_index = 0, set = 0, binding = 4) uniform subpassInput dst_in;\n");
    texture_decls(&b, &key->tex);
    pvk_glsl_fraglight_decls(&b, key);
    tev_helpers(&b, key);
    if (uber) {
        uber_helpers(&b, key);
        if (key->blend)
            uber_blend_helpers(&b);
    }
    pvk_glsl_fraglight_helpers(&b, key);
    pvk_glsl_proctex_helpers(&b, key);
    pvk_text_put(&b, "void main()\n{\n");
    texture_samples(&b, &key->tex, uber);
    /* the procedural texture's mipmap LOD takes derivatives too (glsl_light.c) */
    pvk_text_put(&b, "    uvec4 tex3 = %s;\n", key->fl.proctex ? "proctex()" : "uvec4(0u)");
    pvk_text_put(&b, "    ivec2 p = ivec2(gl_FragCoord.xy);\n"
            "    if (exclude.z >= exclude.x && p.x >= exclude.x && p.x <= exclude.z && p.y >= exclude.y &&\n"
            "        p.y <= exclude.w)\n"
            "        discard;\n"
            "    uvec4 primary = uvec4(round(clamp(color, 0.0, 1.0) * 255.0));\n"
            "    uvec4 prev = uvec4(0u), buf = uvec4(0u), next_buf = rgba8(buffer_color), konst;\n"
            "    uvec3 rgb; uint a;\n"
            "    uvec4 frag_pri = uvec4(0u), frag_sec = uvec4(0u);\n");
    pvk_glsl_fraglight_lighting(&b, key);
    for (unsigned n = 0; n < 6 && !uber; n++) {
        const pvk_tev_stage *st = &key->stage[n];
        if (passes_through(st, n))
            pvk_text_put(&b, "    // stage %u passes previous on\n", n);
        else
            tev_stage(&b, st, n);
        /* the buffer lags a stage: stage n reads what stage n-2 left */
        pvk_text_put(&b, "    buf = next_buf;\n");
        if (n < 4 && (key->buffer_rgb >> n & 1))
            pvk_text_put(&b, "    next_buf.rgb = prev.rgb;\n");
        if (n < 4 && (key->buffer_alpha >> n & 1))
            pvk_text_put(&b, "    next_buf.a = prev.a;\n");
    }
    if (uber)
        uber_stages(&b, key->uber);
    pvk_glsl_fraglight_shadow(&b, key); /* shadow rendering ends the shader here: no alpha test, fog or blending */
    static const char *const cmp[8] = {"false", "true", "==", "!=", "<", "<=", ">", ">="};
    if (uber) { /* alpha_test, alpha_func: bytes 2 and 3 of ust[6] */
        pvk_text_put(&b, "    if (ub(ust[6], 2u) != 0u) {\n"
                         "        uint f = ub(ust[6], 3u) & 7u;\n"
                         "        bool pass = f == 1u");
        for (unsigned f = 2; f < 8; f++)
            pvk_text_put(&b, " ||\n            (f == %uu && prev.a %s alpha_ref)", f, cmp[f]);
        pvk_text_put(&b, ";\n        if (!pass)\n            discard;\n    }\n");
    } else if (key->alpha_test) {
        unsigned f = key->alpha_func & 7;
        if (f == 0)
            pvk_text_put(&b, "    discard;\n");
        else if (f > 1)
            pvk_text_put(&b, "    if (!(prev.a %s alpha_ref))\n        discard;\n", cmp[f]);
    }
    /* the PICA depth: the depth buffer's value and fog's input.  z/w is
     * -gl_FragCoord.z: the rasterizer's, of the triangle after clipping
     * (shaders/draw.vert says why not a per-vertex z/w) */
    pvk_text_put(&b, "    float d = -gl_FragCoord.z * depth_scale + depth_offset;\n"
            "    if (w_buffer != 0u)\n"
            "        d *= clip_w;\n"
            "    uint q = uint(clamp(d, 0.0, 1.0) * depth_max);\n");
    pvk_glsl_fraglight_fog(&b, key); /* after the alpha test, which it cannot change (it keeps alpha) */
    if (key->blend && uber) {
        /* bytes 4-9 of ust[6]: the equations, then the factors (rgb src, dst, alpha src, dst) */
        pvk_text_put(&b, "    {\n    uvec4 s = prev, d = uvec4(round(subpassLoad(dst_in) * 255.0)), k = rgba8(blend_color), res;\n");
        for (int alpha = 0; alpha < 2; alpha++) {
            const char *ch = alpha ? "a" : "rgb", *T = alpha ? "uint" : "uvec3", *fn = alpha ? "a" : "rgb";
            unsigned eq = alpha ? 5 : 4, src = alpha ? 8 : 6;
            pvk_text_put(&b, "    {\n"
                             "        uint e = ub(ust[6], %uu);\n"
                             "        %s x = s.%s * blend_factor_%s(ub(ust[6], %uu), s, d, k), y = d.%s * blend_factor_%s(ub(ust[6], %uu), s, d, k);\n"
                             "        if (e == 3u)\n            res.%s = min(s.%s, d.%s);\n"
                             "        else if (e == 4u)\n            res.%s = max(s.%s, d.%s);\n"
                             "        else if (e == 1u)\n            res.%s = (x - min(x, y)) / 255u;\n"
                             "        else if (e == 2u)\n            res.%s = (y - min(x, y)) / 255u;\n"
                             "        else\n            res.%s = min((x + y) / 255u, %s(255u));\n"
                             "    }\n",
                         eq, T, ch, fn, src, ch, fn, src + 1, ch, ch, ch, ch, ch, ch, ch, ch, ch, T);
        }
        pvk_text_put(&b, "    prev = res;\n    }\n");
    } else if (key->blend) {
        /* the stored RGBA8 bytes, exactly: unorm c/255 back to c */
        pvk_text_put(&b, "    {\n    uvec4 s = prev, d = uvec4(round(subpassLoad(dst_in) * 255.0)), k = rgba8(blend_color), res;\n");
        blend_equation(&b, key->rgb_eq, key->rgb_src, key->rgb_dst, false);
        blend_equation(&b, key->alpha_eq, key->alpha_src, key->alpha_dst, true);
        pvk_text_put(&b, "    prev = res;\n    }\n");
    }
    pvk_text_put(&b, "    out_color = vec4(prev) / 255.0;\n"
            "    gl_FragDepth = float(q) * (1.0 / 16777216.0);\n"
            "}\n");
    if (b.failed) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

void pvk_fs_uber_key(const pvk_fs_key *fs, pvk_fs_key *uber)
{
    memset(uber, 0, sizeof *uber);
    uint8_t idx[6];
    unsigned stages = uber_stage_list(fs, idx);
    uber->uber = (uint8_t)(stages <= 2 ? stages : PVK_UBER_LOOP);
    bool simple = true;
    for (unsigned k = 0; k < stages; k++)
        simple &= fs->stage[idx[k]].rgb_combine <= PVK_TEV_MODULATE && fs->stage[idx[k]].alpha_combine <= PVK_TEV_MODULATE;
    if (simple)
        uber->uber |= PVK_UBER_SIMPLE;
    uber->blend = fs->blend;
    uber->tex.enable = fs->tex.enable;
    if (fs->tex.enable & 1)
        uber->tex.type0 = fs->tex.type0; /* a kind a type (uber_sample) */
    uber->fl = fs->fl;
    uber->fl.fog_flip = 0; /* data: byte 106 */
}

void pvk_fs_uber_state(const pvk_fs_key *fs, const pvk_pipe_key *pipe, uint32_t state[PVK_UBER_WORDS])
{
    _Static_assert(sizeof fs->stage == 6 * 16, "six stages of 16 bytes: ust[0-5]");
    uint8_t *w = (uint8_t *)state;
    memset(state, 0, PVK_UBER_WORDS * 4);
    uint8_t idx[6];
    unsigned stages = uber_stage_list(fs, idx);
    for (unsigned k = 0; k < stages; k++)
        memcpy(w + 16 * k, &fs->stage[idx[k]], 16);
    const uint8_t *blend = fs->blend ? &fs->rgb_eq : &pipe->rgb_eq;
    _Static_assert(offsetof(pvk_fs_key, alpha_dst) - offsetof(pvk_fs_key, rgb_eq) == 5 &&
                       offsetof(pvk_pipe_key, alpha_dst) - offsetof(pvk_pipe_key, rgb_eq) == 5,
                   "equations then factors, in the same order in both keys");
    uint8_t extra[13] = {fs->buffer_rgb, fs->buffer_alpha, fs->alpha_test, fs->alpha_func, blend[0], blend[1],
                         blend[2], blend[3], blend[4], blend[5], fs->fl.fog_flip, (uint8_t)stages, 0};
    memcpy(w + 96, extra, sizeof extra);
    for (unsigned k = 1; k < 5 && k < stages; k++) /* whose constant colour slots 1-4 read */
        w[108 + k - 1] = idx[k];
}

const pvk_uber_memo *pvk_fs_uber_memo(pvk_uber_memos *set, const pvk_fs_key *fs, const pvk_pipe_key *pipe)
{
    const uint8_t *blend = fs->blend ? &fs->rgb_eq : &pipe->rgb_eq; /* what pvk_fs_uber_state reads */
    for (uint32_t k = 0; k < PVK_UBER_MEMOS; k++) {
        uint32_t i = (set->last + k) % PVK_UBER_MEMOS;
        pvk_uber_memo *m = &set->m[i];
        if (m->valid && !memcmp(&m->fs, fs, sizeof *fs) && !memcmp(m->blend, blend, sizeof m->blend)) {
            set->last = i;
            return m;
        }
    }
    pvk_uber_memo *m = &set->m[set->last = set->next];
    set->next = (set->next + 1) % PVK_UBER_MEMOS;
    m->fs = *fs;
    memcpy(m->blend, blend, sizeof m->blend);
    pvk_fs_uber_key(fs, &m->key);
    pvk_fs_uber_state(fs, pipe, m->state);
    m->valid = true;
    return m;
}

uint32_t pvk_fs_uber_tex(const pvk_fs_key *fs)
{
    return (uint32_t)fs->tex.type0 | (fs->tex.tex2_tc1 ? 1u : 0u) << 8 | (uint32_t)fs->tex.shader_border << 16 |
           (fs->tex.shadow_ortho ? 1u : 0u) << 24;
}
