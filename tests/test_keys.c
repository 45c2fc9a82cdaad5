/* Pipeline and fragment-shader keys (translator/fs_key.c), without a device:
 * the same register state gives the same bytes and hash whatever the output
 * structs held before; every register field that is part of a key changes
 * the key; fields outside the key (uniforms, dynamic state) do not; padding
 * stays zero. */
#include <xxhash.h>

#include "harness.h"
#include "runtime/runtime.h"
#include "translator/regs.h"
#include "translator/translator.h"

typedef struct keys {
    pvk_pipe_key pipe;
    pvk_fs_key fs;
    pvk_fs_uniforms uni;
    uint32_t blend_color;
    pvk_fs_params params;
} keys;

static void get(pvk_pica *p, keys *k, int garbage)
{
    memset(k, garbage, sizeof *k); /* decoding must overwrite every byte */
    pvk_frag_state_get(p, &k->pipe, &k->fs, &k->uni, &k->blend_color, NULL);
    pvk_fraglight_get(p, &k->fs.fl, &k->params); /* what translator/vertex.c adds */
}

static int same_keys(const keys *a, const keys *b)
{
    return !memcmp(&a->pipe, &b->pipe, sizeof a->pipe) && !memcmp(&a->fs, &b->fs, sizeof a->fs);
}

/* citro3d's state after C3D_Init plus one C3D_TexEnv and C3D_AlphaBlend. */
static void citro3d_defaults(pvk_pica *p)
{
    pvk_pica_reset(p);
    uint32_t *r = p->regs;
    r[PVK_GPUREG_COLOR_OPERATION] = 0x00E40100;
    r[PVK_GPUREG_BLEND_FUNC] = 0x76760000;
    r[PVK_GPUREG_LOGIC_OP] = 3;
    r[PVK_GPUREG_DEPTH_COLOR_MASK] = 0x1F61; /* depth GREATER, RGBA and depth writes */
    r[PVK_GPUREG_COLORBUFFER_WRITE] = 0xF;
    r[PVK_GPUREG_TEXENV0_SOURCE] = 0x00E000E0;
    r[PVK_GPUREG_TEXENV0_COMBINER] = 0x00010001;
    r[PVK_GPUREG_TEXENV0_COLOR] = 0x80FFFF80;
    r[PVK_GPUREG_TEXUNIT_CONFIG] = 0x1407; /* units 0-3 on (C3D_TexBind, a procedural texture), citro3d's bit 12 */
    /* fog, and a light environment of two lights as citro3d's C3D_LightEnv writes it */
    r[PVK_GPUREG_TEXENV_UPDATE_BUFFER] = 5;
    r[PVK_GPUREG_LIGHTING_ENABLE0] = 1;
    r[PVK_GPUREG_LIGHTING_NUM_LIGHTS] = 1;
    r[PVK_GPUREG_LIGHTING_CONFIG0] = 0x80000400u | 8u << 4;
    r[PVK_GPUREG_LIGHTING_CONFIG1] = 0x00040000u;
    r[PVK_GPUREG_LIGHTING_LIGHT_PERMUTATION] = 0x10;
    r[PVK_GPUREG_LIGHTING_LUTINPUT_ABS] = 0x02222222;
}

/* One register field: flipping `bits` of register `reg` must (or must not)
 * change a key. */
typedef struct field {
    const char *name;
    uint16_t reg;
    uint32_t bits;
    int in_key;
} field;

/* The one resolver of keys for the device (runtime/keys.c), from a device
 * profile: with attachment reads a blending key's BLEND_FUNC state moves into
 * the fragment-shader key; otherwise nothing changes. */
static pvk_device_profile dev;
static void resolve(keys *k)
{
    pvk_resolve_notes n = pvk_keys_resolve(&dev, true, &k->pipe, &k->fs, &k->pipe, &k->fs);
    CHECK(!n.shadow_dropped);
}

static void device_adjustment(void)
{
    static pvk_pica p;
    keys k, built;
    citro3d_defaults(&p);
    get(&p, &built, 0);
    CHECK(built.pipe.blend && built.pipe.rgb_src && !built.fs.blend); /* the translator never sets fs.blend */
    k = built;
    dev.attachment_read = false;
    resolve(&k);
    CHECK(same_keys(&k, &built));
    dev.attachment_read = true;
    resolve(&k);
    CHECK_EQ(k.fs.blend, 1);
    CHECK(k.fs.rgb_eq == built.pipe.rgb_eq && k.fs.alpha_eq == built.pipe.alpha_eq);
    CHECK(k.fs.rgb_src == built.pipe.rgb_src && k.fs.rgb_dst == built.pipe.rgb_dst);
    CHECK(k.fs.alpha_src == built.pipe.alpha_src && k.fs.alpha_dst == built.pipe.alpha_dst);
    CHECK(k.pipe.blend && !k.pipe.rgb_eq && !k.pipe.rgb_src && !k.pipe.rgb_dst && !k.pipe.alpha_src &&
          !k.pipe.alpha_dst && !k.pipe.alpha_eq);
    CHECK_EQ(k.pipe.color_mask, built.pipe.color_mask); /* the write mask stays fixed-function */
    CHECK(!memcmp(k.fs.stage, built.fs.stage, sizeof k.fs.stage));
    /* a replace blend (One, Zero) and Min/Max are exact on Vulkan's blend unit: keys unchanged */
    uint32_t bf = p.regs[PVK_GPUREG_BLEND_FUNC];
    p.regs[PVK_GPUREG_BLEND_FUNC] = 0x01010000;
    get(&p, &built, 0);
    k = built;
    resolve(&k);
    CHECK(same_keys(&k, &built));
    p.regs[PVK_GPUREG_BLEND_FUNC] = 0x76760403; /* RGB min, alpha max: no factors */
    get(&p, &built, 0);
    k = built;
    resolve(&k);
    CHECK(same_keys(&k, &built));
    p.regs[PVK_GPUREG_BLEND_FUNC] = 0x76760003; /* RGB min, alpha add with factors: the shader blends */
    get(&p, &built, 0);
    k = built;
    resolve(&k);
    CHECK_EQ(k.fs.blend, 1);
    p.regs[PVK_GPUREG_BLEND_FUNC] = bf;
    /* logic-op mode: the fixed-function logic op, keys unchanged */
    p.regs[PVK_GPUREG_COLOR_OPERATION] &= ~(1u << 8);
    get(&p, &built, 0);
    k = built;
    resolve(&k);
    CHECK(same_keys(&k, &built));
    /* the guest's keys stay as built: the device's are separate values */
    pvk_pipe_key pipe;
    pvk_fs_key fs, shadow = built.fs;
    shadow.fl.shadow = 1;
    CHECK(!pvk_keys_resolve(&dev, true, &built.pipe, &shadow, &pipe, &fs).shadow_dropped);
    CHECK_EQ(fs.fl.shadow, 1);
    /* shadow rendering on a path without attachment reads: dropped, reported */
    CHECK(pvk_keys_resolve(&dev, false, &built.pipe, &shadow, &pipe, &fs).shadow_dropped);
    CHECK_EQ(fs.fl.shadow, 0);
    CHECK_EQ(shadow.fl.shadow, 1);
    dev.attachment_read = false;
    CHECK(pvk_keys_resolve(&dev, true, &built.pipe, &shadow, &pipe, &fs).shadow_dropped);
    /* doubles in generated vertex programs where the device has them */
    CHECK_EQ(pvk_vs_flags_for_device(&dev, 0), 0);
    dev.shader_float64 = true;
    CHECK_EQ(pvk_vs_flags_for_device(&dev, 0), PVK_GLSL_VS_F64);
}

int main(void)
{
    device_adjustment();
    _Static_assert(sizeof(pvk_pipe_key) == 12, "the test knows the pipeline key's size");
    static pvk_pica pa, pb;
    keys a, b;
    (void)th_context; /* keys need no device */
    (void)th_release;

    /* 1. determinism: two register files with the same values, outputs
     * prefilled with different garbage, registers outside the keys differing */
    citro3d_defaults(&pa);
    citro3d_defaults(&pb);
    pb.regs[PVK_GPUREG_VIEWPORT_WIDTH] = 0x123456;
    pb.regs[PVK_GPUREG_DEPTHMAP_SCALE] = 0x3F0000;
    get(&pa, &a, 0x00);
    get(&pb, &b, 0xA5);
    CHECK(same_keys(&a, &b));
    CHECK_EQ(XXH3_64bits(&a.pipe, sizeof a.pipe), XXH3_64bits(&b.pipe, sizeof b.pipe));
    CHECK_EQ(XXH3_64bits(&a.fs, sizeof a.fs), XXH3_64bits(&b.fs, sizeof b.fs));
    /* padding is zero, so memcmp and the hash see only fields */
    for (size_t i = 0; i < sizeof b.pipe.pad; i++)
        CHECK_EQ(b.pipe.pad[i], 0);
    CHECK(!a.fs.tex.shader_border); /* the runtime's to set */
    CHECK_EQ(a.fs.tex.enable, 7);
    CHECK_EQ(a.uni.tex_border[0], 0);
    /* the defaults decode as citro3d meant them */
    CHECK_EQ(a.pipe.blend, 1);
    CHECK_EQ(a.pipe.rgb_src, 6);
    CHECK_EQ(a.pipe.rgb_dst, 7);
    CHECK_EQ(a.pipe.color_mask, 0xF);
    CHECK_EQ(a.fs.stage[0].rgb_src[1], 14);
    CHECK_EQ(a.fs.stage[0].rgb_combine, 1);
    CHECK_EQ(a.uni.tev_color[0], 0x80FFFF80);

    /* 2. every field of the keys, and fields that must stay out of them */
    static const field fields[] = {
        {"blend mode", PVK_GPUREG_COLOR_OPERATION, 1u << 8, 1},
        {"RGB equation", PVK_GPUREG_BLEND_FUNC, 0x1, 1},
        {"alpha equation", PVK_GPUREG_BLEND_FUNC, 0x100, 1},
        {"RGB source factor", PVK_GPUREG_BLEND_FUNC, 0x10000, 1},
        {"RGB destination factor", PVK_GPUREG_BLEND_FUNC, 0x100000, 1},
        {"alpha source factor", PVK_GPUREG_BLEND_FUNC, 0x1000000, 1},
        {"alpha destination factor", PVK_GPUREG_BLEND_FUNC, 0x10000000, 1},
        {"red write", PVK_GPUREG_DEPTH_COLOR_MASK, 1u << 8, 1},
        {"alpha write", PVK_GPUREG_DEPTH_COLOR_MASK, 1u << 11, 1},
        {"colour buffer write access", PVK_GPUREG_COLORBUFFER_WRITE, 0xF, 1},
        {"TEV 0 RGB source 0", PVK_GPUREG_TEXENV0_SOURCE, 0x1, 1},
        {"TEV 0 alpha source 2 (modulate reads two)", PVK_GPUREG_TEXENV0_SOURCE, 0x1u << 24, 0},
        {"TEV 0 RGB operand 1", PVK_GPUREG_TEXENV0_OPERAND, 0x10, 1},
        {"TEV 0 alpha operand 2 (modulate reads two)", PVK_GPUREG_TEXENV0_OPERAND, 0x1u << 20, 0},
        {"TEV 0 alpha operand 1", PVK_GPUREG_TEXENV0_OPERAND, 0x1u << 16, 1},
        {"TEV 0 RGB combine", PVK_GPUREG_TEXENV0_COMBINER, 0x2, 1},
        {"TEV 0 alpha combine", PVK_GPUREG_TEXENV0_COMBINER, 0x20000, 1},
        {"TEV 0 RGB scale", PVK_GPUREG_TEXENV0_SCALE, 0x1, 1},
        {"TEV 0 alpha scale", PVK_GPUREG_TEXENV0_SCALE, 0x10000, 1},
        {"TEV 3 RGB source 1 (replace reads one)", PVK_GPUREG_TEXENV3_SOURCE, 0x10, 0},
        {"TEV 3 RGB source 0", PVK_GPUREG_TEXENV3_SOURCE, 0x1, 1},
        {"TEV 5 alpha combine", PVK_GPUREG_TEXENV5_COMBINER, 0x10000, 1},
        {"buffer RGB update stage 1", PVK_GPUREG_TEXENV_UPDATE_BUFFER, 1u << 9, 1},
        {"buffer alpha update stage 3", PVK_GPUREG_TEXENV_UPDATE_BUFFER, 1u << 15, 1},
        {"alpha test enable", PVK_GPUREG_FRAGOP_ALPHA_TEST, 0x1, 1},
        {"texture 0 enable", PVK_GPUREG_TEXUNIT_CONFIG, 0x1, 1},
        {"texture 1 enable", PVK_GPUREG_TEXUNIT_CONFIG, 0x2, 1},
        {"texture 2 enable", PVK_GPUREG_TEXUNIT_CONFIG, 0x4, 1},
        {"texture 2 coordinates", PVK_GPUREG_TEXUNIT_CONFIG, 1u << 13, 1},
        {"texture 0 type", PVK_GPUREG_TEXUNIT0_PARAM, 1u << 28, 1},
        {"texture 0 disabled by its type", PVK_GPUREG_TEXUNIT0_PARAM, 5u << 28, 1},
        {"fog mode", PVK_GPUREG_TEXENV_UPDATE_BUFFER, 0x5, 1},
        {"fog Z flip", PVK_GPUREG_TEXENV_UPDATE_BUFFER, 1u << 16, 1},
        {"lighting enable", PVK_GPUREG_LIGHTING_ENABLE0, 1, 1},
        {"number of lights", PVK_GPUREG_LIGHTING_NUM_LIGHTS, 2, 1},
        {"lighting configuration", PVK_GPUREG_LIGHTING_CONFIG0, 1u << 4, 1},
        {"Fresnel selector", PVK_GPUREG_LIGHTING_CONFIG0, 1u << 2, 1},
        {"clamp highlights", PVK_GPUREG_LIGHTING_CONFIG0, 1u << 27, 1},
        {"D0 disable", PVK_GPUREG_LIGHTING_CONFIG1, 1u << 16, 1},
        {"RR disable", PVK_GPUREG_LIGHTING_CONFIG1, 1u << 22, 1},
        {"light 1 spot disable", PVK_GPUREG_LIGHTING_CONFIG1, 1u << 9, 1},
        {"light 0 distance attenuation disable", PVK_GPUREG_LIGHTING_CONFIG1, 1u << 24, 1},
        {"D1 input abs", PVK_GPUREG_LIGHTING_LUTINPUT_ABS, 1u << 5, 1},
        {"SP input", PVK_GPUREG_LIGHTING_LUTINPUT_SELECT, 1u << 8, 1},
        {"RR scale", PVK_GPUREG_LIGHTING_LUTINPUT_SCALE, 1u << 24, 1},
        {"light permutation", PVK_GPUREG_LIGHTING_LIGHT_PERMUTATION, 0x2, 1},
        {"light 1 directional", PVK_GPUREG_LIGHT1_CONFIG, 1, 1},
        {"light 0 two-sided", PVK_GPUREG_LIGHT0_CONFIG, 2, 1},
        {"light 0 geometric factor 0", PVK_GPUREG_LIGHT0_CONFIG, 4, 1},
        {"light 0 geometric factor 1", PVK_GPUREG_LIGHT0_CONFIG, 8, 1},
        {"light 2 (not enabled) directional", PVK_GPUREG_LIGHT2_CONFIG, 1, 0},
        {"bump mode", PVK_GPUREG_LIGHTING_CONFIG0, 1u << 28, 1},
        {"shadow rendering (fragment operation mode 3)", PVK_GPUREG_COLOR_OPERATION, 3, 1},
        {"shadow attenuation", PVK_GPUREG_LIGHTING_CONFIG0, 1, 1},
        {"bump unit without a bump mode", PVK_GPUREG_LIGHTING_CONFIG0, 1u << 22, 0},
        {"texture 3 (procedural) enable", PVK_GPUREG_TEXUNIT_CONFIG, 1u << 10, 1},
        {"procedural texture u clamp", PVK_GPUREG_TEXUNIT3_PROCTEX0, 0x1, 1},
        {"procedural texture noise", PVK_GPUREG_TEXUNIT3_PROCTEX0, 1u << 15, 1},
        {"procedural texture filter", PVK_GPUREG_TEXUNIT3_PROCTEX4, 0x1, 1},
        {"procedural texture noise amplitude", PVK_GPUREG_TEXUNIT3_PROCTEX1, 0x100, 0},
        {"procedural texture width", PVK_GPUREG_TEXUNIT3_PROCTEX4, 0x10u << 11, 0},
        /* uniforms and dynamic state: the same pipeline and shader */
        {"fog colour", PVK_GPUREG_FOG_COLOR, 0xFF, 0},
        {"light 0 diffuse", PVK_GPUREG_LIGHT0_DIFFUSE, 0xFF, 0},
        {"light 1 position", PVK_GPUREG_LIGHT1_XY, 0x3C00, 0},
        {"light 0 spot direction", PVK_GPUREG_LIGHT0_SPOTDIR_XY, 0x800, 0},
        {"light 0 attenuation bias", PVK_GPUREG_LIGHT0_ATTENUATION_BIAS, 0x3F000, 0},
        {"global ambient", PVK_GPUREG_LIGHTING_AMBIENT, 0xFF, 0},
        {"TEV 0 constant colour", PVK_GPUREG_TEXENV0_COLOR, 0xFF, 0},
        {"TEV buffer colour", PVK_GPUREG_TEXENV_BUFFER_COLOR, 0xFF00, 0},
        {"blend colour", PVK_GPUREG_BLEND_COLOR, 0xFF, 0},
        {"alpha test reference", PVK_GPUREG_FRAGOP_ALPHA_TEST, 0xFF00, 0},
        {"depth function", PVK_GPUREG_DEPTH_COLOR_MASK, 0x70, 0},
        {"depth write", PVK_GPUREG_DEPTH_COLOR_MASK, 1u << 12, 0},
        {"logic op (blend mode on)", PVK_GPUREG_LOGIC_OP, 0x5, 0},
        {"viewport", PVK_GPUREG_VIEWPORT_XY, 0x10, 0},
        /* what is bound per draw (view, sampler) or pushed (border colour) */
        {"texture 0 border colour", PVK_GPUREG_TEXUNIT0_BORDER_COLOR, 0xFF, 0},
        {"texture 0 address", PVK_GPUREG_TEXUNIT0_ADDR1, 0x100, 0},
        {"texture 0 size", PVK_GPUREG_TEXUNIT0_DIM, 0x8, 0},
        {"texture 1 filters and wraps", PVK_GPUREG_TEXUNIT1_PARAM, 0x2206, 0},
        {"texture 1 LOD", PVK_GPUREG_TEXUNIT1_LOD, 0x10100, 0},
        {"texture 2 format", PVK_GPUREG_TEXUNIT2_TYPE, 0x7, 0},
        {"shadow perspective of a 2D texture", PVK_GPUREG_TEXUNIT0_SHADOW, 0x1, 0},
        {"shadow bias", PVK_GPUREG_TEXUNIT0_SHADOW, 0x100, 0},
    };
    /* the third argument is in the key where the mode reads it (interpolate) */
    citro3d_defaults(&pb);
    pb.regs[PVK_GPUREG_TEXENV0_COMBINER] = 0x00040004;
    get(&pb, &b, 0);
    pb.regs[PVK_GPUREG_TEXENV0_SOURCE] ^= 0x1u << 24;
    pb.regs[PVK_GPUREG_TEXENV0_OPERAND] ^= 0x1u << 20;
    keys c;
    get(&pb, &c, 0);
    CHECK(!same_keys(&b, &c));
    CHECK(b.fs.stage[0].alpha_src[2] != c.fs.stage[0].alpha_src[2]);
    CHECK(b.fs.stage[0].alpha_op[2] != c.fs.stage[0].alpha_op[2]);
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        const field *f = &fields[i];
        citro3d_defaults(&pb);
        pb.regs[f->reg] ^= f->bits;
        get(&pb, &b, (int)i);
        int differs = !same_keys(&a, &b);
        if (differs != f->in_key)
            fprintf(stderr, "field '%s': key %s, expected %s\n", f->name, differs ? "changed" : "unchanged",
                    f->in_key ? "a change" : "none");
        CHECK_EQ(differs, f->in_key);
        if (f->in_key) /* a different key is a different hash (no collision among these few) */
            CHECK(XXH3_64bits(&a.pipe, sizeof a.pipe) != XXH3_64bits(&b.pipe, sizeof b.pipe) ||
                  XXH3_64bits(&a.fs, sizeof a.fs) != XXH3_64bits(&b.fs, sizeof b.fs));
    }

    /* 3. logic-op mode: the blend registers leave the key, the logic op enters it */
    citro3d_defaults(&pa);
    pa.regs[PVK_GPUREG_COLOR_OPERATION] &= ~(1u << 8);
    get(&pa, &a, 0);
    citro3d_defaults(&pb);
    pb.regs[PVK_GPUREG_COLOR_OPERATION] &= ~(1u << 8);
    pb.regs[PVK_GPUREG_BLEND_FUNC] ^= 0x12345;
    get(&pb, &b, 0x5A);
    CHECK(same_keys(&a, &b));
    pb.regs[PVK_GPUREG_LOGIC_OP] = 0xC;
    get(&pb, &b, 0);
    CHECK(!same_keys(&a, &b));
    CHECK_EQ(b.pipe.logic_op, 0xC);
    CHECK_EQ(b.pipe.rgb_src, 0);

    /* 4. no colour-buffer write access: no channel in the mask, whatever
     * DEPTH_COLOR_MASK says (a depth-only pass) */
    citro3d_defaults(&pb);
    pb.regs[PVK_GPUREG_COLORBUFFER_WRITE] = 0;
    get(&pb, &b, 0x77);
    CHECK_EQ(b.pipe.color_mask, 0);

    /* 5. the alpha function is in the key only while the test is on */
    citro3d_defaults(&pa);
    citro3d_defaults(&pb);
    pb.regs[PVK_GPUREG_FRAGOP_ALPHA_TEST] = 0x40; /* function 4, disabled */
    get(&pa, &a, 0);
    get(&pb, &b, 0);
    CHECK(same_keys(&a, &b));
    pa.regs[PVK_GPUREG_FRAGOP_ALPHA_TEST] = 0x41;
    pb.regs[PVK_GPUREG_FRAGOP_ALPHA_TEST] = 0x51;
    get(&pa, &a, 0);
    get(&pb, &b, 0);
    CHECK(!same_keys(&a, &b));
    /* 6. a shadow 2D texture: its perspective bit is in the key, its bias a uniform */
    citro3d_defaults(&pa);
    pa.regs[PVK_GPUREG_TEXUNIT0_PARAM] = 2u << 28 | 1u << 20;
    citro3d_defaults(&pb);
    pb.regs[PVK_GPUREG_TEXUNIT0_PARAM] = 2u << 28 | 1u << 20;
    pb.regs[PVK_GPUREG_TEXUNIT0_SHADOW] = 1;
    get(&pa, &a, 0);
    get(&pb, &b, 0x33);
    CHECK(!same_keys(&a, &b));
    CHECK_EQ(a.fs.tex.type0, 2);
    CHECK_EQ(b.fs.tex.shadow_ortho, 1);
    pb.regs[PVK_GPUREG_TEXUNIT0_SHADOW] = 0x1234;
    get(&pb, &b, 0x11);
    CHECK(same_keys(&a, &b));
    CHECK_EQ(b.uni.shadow_bias, 0x1234);
    for (size_t i = 0; i < sizeof b.fs.tex.pad; i++)
        CHECK_EQ(b.fs.tex.pad[i], 0);
    /* 7. C3D_TexEnvInit's stages 1-5 (previous, replace) leave only their
     * buffer updates in the generated code; leftovers in the arguments a
     * mode does not read (C3D_TexEnvSrc's other two) make the same key */
    citro3d_defaults(&pa);
    for (int n = 1; n < 6; n++) {
        uint32_t base = n < 4 ? PVK_GPUREG_TEXENV0_SOURCE + 8u * (uint32_t)n : PVK_GPUREG_TEXENV4_SOURCE + 8u * (n - 4u);
        pa.regs[base] = 0x000F000F;
        pa.regs[base + 1] = pa.regs[base + 2] = pa.regs[base + 4] = 0;
    }
    citro3d_defaults(&pb);
    memcpy(pb.regs, pa.regs, sizeof pb.regs);
    pb.regs[PVK_GPUREG_TEXENV3_SOURCE] = 0x0E3F0E3F; /* arguments 2 and 3 of colour and alpha: not read */
    get(&pa, &a, 0);
    get(&pb, &b, 0);
    CHECK(same_keys(&a, &b));
    char *src = pvk_glsl_fragment(&a.fs);
    CHECK(src != NULL);
    if (src) {
        CHECK(strstr(src, "// stage 0\n") != NULL);
        for (int n = 1; n < 6; n++) {
            char line[64];
            snprintf(line, sizeof line, "// stage %d passes previous on", n);
            CHECK(strstr(src, line) != NULL);
        }
        CHECK(strstr(src, "tev_modulate(") && !strstr(src, "tev_replace(") && !strstr(src, "tev_dot3("));
    }
    free(src);
    /* the same stage reading its third argument (interpolate) is another shader */
    pb.regs[PVK_GPUREG_TEXENV3_COMBINER] = 0x00040004;
    get(&pb, &b, 0);
    CHECK(!same_keys(&a, &b));
    return th_finish("test_keys");
}
