/* The fragment shader's fog, fragment lighting and procedural texture
 * (pvk_fs_fraglight_key), as GLSL pieces glsl_fs.c places: declarations,
 * the lighting colours before the TEV stages, fog after the alpha test.
 * tests/ref/light_ref.c is the same arithmetic on the CPU.
 *
 * The LUTs are the data ports' words in a storage buffer (binding 5,
 * PVK_FRAG_LUT_* word offsets), the parameters a uniform block (binding 6,
 * pvk_fs_params).
 *
 * Fog (3dbrew TEXENV_UPDATE_BUFFER, FOG_LUT_DATA): the fog LUT's 128 entries
 * hold an 11-bit value (bits 13-23, 1.0 = 2048) and a 13-bit signed
 * difference to the next entry (bits 0-12).  The LUT is indexed by the
 * fragment's 24-bit depth (the depth-buffer value of a D24 buffer; flipped to
 * 2^24-1 - depth with Z flip): entry depth >> 17, interpolated by its low 17
 * bits.  Everything is integer: f = value + diff * low17 / 2^17 (floored),
 * clamped to [0, 2048]; each colour channel becomes
 * (c * f + fog * (2048 - f)) / 2048, truncated; alpha is kept.  Where the
 * hardware rounds is not publicly measured; this is the LUT's own fixed
 * point carried through. */
#include <stdio.h>

#include "translator/translator.h"

void pvk_glsl_fraglight_decls(pvk_text *b, const pvk_fs_key *k)
{
    if (!pvk_fs_uses_fragdata(k))
        return;
    pvk_text_put(b, "layout(set = 0, binding = 5, std430) readonly buffer Luts { uint lut[]; };\n"
                    "struct Light { vec4 pos; vec4 spot; uvec4 colors; vec4 atten; };\n"
                    "layout(set = 0, binding = 6, std140) uniform Params {\n"
                    "    Light lights[8];\n"
                    "    uvec4 misc;\n" /* ambient, fog colour */
                    "    vec4 pt_noise_u, pt_noise_v;\n"
                    "    vec4 pt_misc;\n"
                    "};\n");
}

void pvk_glsl_fraglight_fog(pvk_text *b, const pvk_fs_key *k)
{
    if (!k->fl.fog)
        return;
    /* d: glsl_fs.c's PICA depth, the same value the depth buffer gets */
    pvk_text_put(b, "    {\n"
                    "    uint z24 = uint(clamp(d, 0.0, 1.0) * 16777215.0);\n");
    if (k->fl.fog_flip)
        pvk_text_put(b, "    z24 = 16777215u - z24;\n");
    pvk_text_put(b, "    uint e = lut[%uu + (z24 >> 17)];\n"
                    "    int f = int((e >> 13) & 0x7FFu) + ((int(e << 19) >> 19) * int(z24 & 0x1FFFFu) >> 17);\n"
                    "    uint fu = uint(clamp(f, 0, 2048));\n"
                    "    prev.rgb = (prev.rgb * fu + rgba8(misc.y).rgb * (2048u - fu)) >> 11;\n"
                    "    }\n",
                 (unsigned)PVK_FRAG_LUT_FOG);
}

/* ---- fragment lighting ----
 *
 * The model (3dbrew "GPU/Internal Registers" 0x140-0x1D9; where it is silent,
 * the behaviour emulators agree on; tests/ref/light_ref.c restates it):
 *   the normal N and tangent T are (0,0,1) and (1,0,0) rotated by the
 *   normalised interpolated quaternion; V = normalize(view).  Per light
 *   (LIGHTING_LIGHT_PERMUTATION order) with position/direction p:
 *   Lr = p (directional) or p + view; L = normalize(Lr); Hr = L + V;
 *   H = normalize(Hr); n.l = dot(N, L), abs() when two-sided, else max(n.l, 0).
 *   LUT inputs: 0 N.H, 1 V.H, 2 N.V, 3 L.N, 4 -L.P (dot(L, SPOTDIR), the
 *   register holding -P), 5 cos phi (dot(H - N (N.H), T)); 6-7 read 0.
 *   A LUT reads, with abs() on, |x| at index floor(|x| * 256) (clamped to
 *   0-255), else x at floor(x * 128) (clamped to -128..127, two's complement
 *   index), interpolating value + difference * fraction; an entry's value
 *   is bits 0-11 / 4095 (fixed0.0.12) and its difference bits 12-22 / 2047
 *   (fixed1.0.11, sign and magnitude: negative when bit 23 is set; 4095 and
 *   2047 rather than 4096 and 2048 so that all ones is 1.0, as Citra, whose
 *   lighting was checked against hardware, reads them); then times the scale (1, 2, 4, 8, 1/4, 1/2; 4-5 read 1x).
 *   A LUT off in CONFIG1 or missing from the configuration reads 1.
 *   spot = SP(light) if its spot is on, else 1; distance = DA(light) at
 *   clamp(bias + scale * length(p + view), 0, 1) (unsigned index, no scale)
 *   if its attenuation is on, else 1.  Reflection R = (RR, RG or RR's value,
 *   RB or RR's value).  Geometric factor min(n.l / dot(Hr, Hr), 1) (0 when
 *   Hr is 0).  diffuse += (diffuse colour * n.l + ambient colour) * dist *
 *   spot; specular += (D0 * specular0 [* geo0] + D1 * R * specular1
 *   [* geo1]) * dist * spot, times 0 when clamp highlights is on and
 *   n.l is 0.  Fresnel (FR) of the last light goes to the primary and/or
 *   secondary alpha (CONFIG0 bits 2-3), which is 1 otherwise.  primary =
 *   clamp(diffuse + global ambient), secondary = clamp(specular), each
 *   channel rounded to 8 bits for the TEV.  Colours are bytes / 255.
 * Shadow attenuation and bump/tangent mapping are not here (counted
 * unsupported by fraglight.c). */

static const char *const lut_input_expr[8] = {"dot(N, H)", "dot(V, H)", "dot(N, V)", "dot(L, N)",
                                              "dot(L, lights[%u].spot.xyz)", "dot(H - N * dot(N, H), T)",
                                              "0.0", "0.0"};

static float scale_of(unsigned code)
{
    static const float s[8] = {1.0f, 2.0f, 4.0f, 8.0f, 1.0f, 1.0f, 0.25f, 0.5f};
    return s[code & 7];
}

/* The value of LUT input `l` (PVK_LUT_*) from table `table` as a float expression statement into `dst`. */
static void lut_read(pvk_text *b, const pvk_fs_fraglight_key *k, unsigned l, unsigned table, unsigned id,
                     const char *dst)
{
    char in[64];
    snprintf(in, sizeof in, lut_input_expr[k->lut_input[l] & 7], id);
    pvk_text_put(b, "        %s = %s(%uu, %s) * %.9g;\n", dst, (k->lut_abs >> l & 1) ? "lut_abs" : "lut_signed",
                 table, in, (double)scale_of(k->lut_scale[l]));
}

void pvk_glsl_fraglight_helpers(pvk_text *b, const pvk_fs_key *key)
{
    if (!key->fl.light)
        return;
    pvk_text_put(b,
        "float lut_entry(uint table, uint i, float frac)\n{\n"
        "    uint e = lut[table * 256u + i];\n"
        "    float diff = float((e >> 12) & 0x7FFu) / 2047.0;\n"
        "    return float(e & 0xFFFu) / 4095.0 + ((e & 0x800000u) != 0u ? -diff : diff) * frac;\n}\n"
        "float lut_abs(uint table, float x)\n{\n"
        "    float s = abs(x) * 256.0, i = clamp(floor(s), 0.0, 255.0);\n"
        "    return lut_entry(table, uint(i), s - i);\n}\n"
        "float lut_signed(uint table, float x)\n{\n"
        "    float s = clamp(x, -1.0, 1.0) * 128.0, i = clamp(floor(s), -128.0, 127.0);\n"
        "    return lut_entry(table, uint(int(i)) & 255u, s - i);\n}\n"
        "vec3 quat_rotate(vec4 q, vec3 v) { return v + 2.0 * cross(q.xyz, cross(q.xyz, v) + q.w * v); }\n"
        "vec3 color3(uint c) { return vec3(rgba8(c).rgb) / 255.0; }\n");
}

void pvk_glsl_fraglight_lighting(pvk_text *b, const pvk_fs_key *key)
{
    const pvk_fs_fraglight_key *k = &key->fl;
    if (!k->light)
        return;
    pvk_text_put(b, "    {\n"
                    "    vec4 nq = normalize(quat);\n"
                    "    vec3 N = quat_rotate(nq, vec3(0.0, 0.0, 1.0)), T = quat_rotate(nq, vec3(1.0, 0.0, 0.0));\n"
                    "    vec3 V = normalize(view);\n"
                    "    vec3 dsum = vec3(0.0), ssum = vec3(0.0);\n"
                    "    float pa = 1.0, sa = 1.0;\n");
    bool on[PVK_LUT_INPUTS];
    for (unsigned l = 0; l < PVK_LUT_INPUTS; l++)
        on[l] = k->lut_on >> l & 1;
    static const unsigned table[PVK_LUT_INPUTS] = {0, 1, 8, 3, 4, 5, 6}; /* SP: 8 + light id */
    for (unsigned i = 0; i < k->num_lights && i < 8; i++) {
        const pvk_fs_light *lt = &k->lights[i];
        unsigned id = lt->id & 7;
        pvk_text_put(b, "    {\n        // light slot %u: light %u\n", i, id);
        if (lt->directional)
            pvk_text_put(b, "        vec3 Lr = lights[%u].pos.xyz;\n", id);
        else
            pvk_text_put(b, "        vec3 Lr = lights[%u].pos.xyz + view;\n", id);
        pvk_text_put(b, "        vec3 L = normalize(Lr), Hr = L + V, H = normalize(Hr);\n"
                        "        float nl = dot(N, L);\n"
                        "        nl = %s;\n"
                        "        float spot = 1.0, dist = 1.0, d0 = 1.0, d1 = 1.0, geo = 1.0;\n"
                        "        vec3 refl = vec3(1.0);\n",
                     lt->two_sided ? "abs(nl)" : "max(nl, 0.0)");
        if (lt->spot) /* on only where the configuration has SP */
            lut_read(b, k, PVK_LUT_SP, table[PVK_LUT_SP] + id, id, "spot");
        if (lt->dist_atten)
            pvk_text_put(b, "        dist = lut_abs(%uu, clamp(lights[%u].atten.x + lights[%u].atten.y * length("
                            "lights[%u].pos.xyz + view), 0.0, 1.0));\n",
                         16 + id, id, id, id);
        if (on[PVK_LUT_D0])
            lut_read(b, k, PVK_LUT_D0, 0, id, "d0");
        if (on[PVK_LUT_D1])
            lut_read(b, k, PVK_LUT_D1, 1, id, "d1");
        if (on[PVK_LUT_RR])
            lut_read(b, k, PVK_LUT_RR, 6, id, "refl.r");
        pvk_text_put(b, "        refl.gb = vec2(refl.r);\n");
        if (on[PVK_LUT_RG])
            lut_read(b, k, PVK_LUT_RG, 5, id, "refl.g");
        if (on[PVK_LUT_RB])
            lut_read(b, k, PVK_LUT_RB, 4, id, "refl.b");
        if (lt->geo0 || lt->geo1)
            pvk_text_put(b, "        float hh = dot(Hr, Hr);\n"
                            "        geo = hh == 0.0 ? 0.0 : min(nl / hh, 1.0);\n");
        pvk_text_put(b, "        vec3 spec = d0 * color3(lights[%u].colors.x)%s + d1 * refl * color3(lights[%u].colors.y)%s;\n",
                     id, lt->geo0 ? " * geo" : "", id, lt->geo1 ? " * geo" : "");
        if (k->clamp_highlights)
            pvk_text_put(b, "        spec *= nl > 0.0 ? 1.0 : 0.0;\n");
        pvk_text_put(b, "        dsum += (color3(lights[%u].colors.z) * nl + color3(lights[%u].colors.w)) * dist * spot;\n"
                        "        ssum += spec * dist * spot;\n",
                     id, id);
        if (i + 1 == k->num_lights && on[PVK_LUT_FR] && k->fresnel) {
            pvk_text_put(b, "        float fr;\n");
            lut_read(b, k, PVK_LUT_FR, 3, id, "fr");
            if (k->fresnel & 1)
                pvk_text_put(b, "        pa = fr;\n");
            if (k->fresnel & 2)
                pvk_text_put(b, "        sa = fr;\n");
        }
        pvk_text_put(b, "    }\n");
    }
    pvk_text_put(b, "    dsum += color3(misc.x);\n"
                    "    frag_pri = uvec4(round(clamp(vec4(dsum, pa), 0.0, 1.0) * 255.0));\n"
                    "    frag_sec = uvec4(round(clamp(vec4(ssum, sa), 0.0, 1.0) * 255.0));\n"
                    "    }\n");
}
