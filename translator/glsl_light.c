/* The fragment shader's fog, fragment lighting, procedural texture and
 * shadow rendering (pvk_fs_fraglight_key), as GLSL pieces glsl_fs.c places:
 * declarations, the lighting colours and the procedural texture before the
 * TEV stages, shadow rendering after them, fog after the alpha test.
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
    /* the LUT words: a uniform buffer where the device's range allows (faster
     * on lavapipe), else a storage buffer (runtime/fragdata.c decides) */
    if (k->fl.lut_ubo)
        pvk_text_put(b, "layout(set = 0, binding = 5, std140) uniform Luts { uvec4 lut4[%u]; };\n"
                        "uint lut_word(uint i) { return lut4[i >> 2][i & 3u]; }\n",
                     (unsigned)PVK_FRAG_LUT_WORDS / 4);
    else
        pvk_text_put(b, "layout(set = 0, binding = 5, std430) readonly buffer Luts { uint lut[]; };\n"
                        "uint lut_word(uint i) { return lut[i]; }\n");
    pvk_text_put(b, "struct Light { vec4 pos; vec4 spot; uvec4 colors; vec4 atten; };\n"
                    "layout(set = 0, binding = 6, std140) uniform Params {\n"
                    "    Light lights[8];\n"
                    "    uvec4 misc;\n" /* ambient, fog colour */
                    "    vec4 pt_noise_u, pt_noise_v;\n" /* amplitude, phase, frequency */
                    "    float pt_bias;\n"
                    "    uint pt_offsets, pt_width, pt_lod;\n"
                    "};\n");
    if (k->fl.shadow && !k->blend) /* the shadow buffer's pixel (glsl_fs.c declares it for blending) */
        pvk_text_put(b, "layout(input_attachment_index = 0, set = 0, binding = 4) uniform subpassInput dst_in;\n");
}

void pvk_glsl_fraglight_fog(pvk_text *b, const pvk_fs_key *k)
{
    if (!k->fl.fog)
        return;
    /* d: glsl_fs.c's PICA depth, the same value the depth buffer gets.  Fog
     * is part of the ubershader's kind: lavapipe runs a block its data would
     * skip, masked, and the LUT read costs a quarter of the fill rate */
    pvk_text_put(b, "    {\n");
    pvk_text_put(b, "    uint z24 = uint(clamp(d, 0.0, 1.0) * 16777215.0);\n");
    if (k->uber) /* fog_flip: byte 10 of the ubershader's data */
        pvk_text_put(b, "    if (ub(ust[6], 10u) != 0u)\n        z24 = 16777215u - z24;\n");
    else if (k->fl.fog_flip)
        pvk_text_put(b, "    z24 = 16777215u - z24;\n");
    pvk_text_put(b, "    uint e = lut_word(%uu + (z24 >> 17));\n"
                    "    int f = int((e >> 13) & 0x7FFu) + ((int(e << 19) >> 19) * int(z24 & 0x1FFFFu) >> 17);\n"
                    "    uint fu = uint(clamp(f, 0, 2048));\n"
                    "    prev.rgb = (prev.rgb * fu + rgba8(misc.y).rgb * (2048u - fu)) >> 11;\n"
                    "    }\n",
                 (unsigned)PVK_FRAG_LUT_FOG);
}

/* ---- fragment lighting ----
 *
 * The model (3dbrew "GPU/Internal Registers" 0x140-0x1D9; where it is silent,
 * Citra's software renderer, compared with hardware; tests/ref/light_ref.c
 * restates it):
 *   the normal N and tangent T are (0,0,1) and (1,0,0) rotated by the
 *   normalised interpolated quaternion; V = normalize(view).  Per light
 *   (LIGHTING_LIGHT_PERMUTATION order) with position/direction p:
 *   Lr = p (directional) or p + view; L = normalize(Lr); Hr = L + V;
 *   H = normalize(Hr); n.l = dot(N, L), abs() when two-sided, else max(n.l, 0).
 *   LUT inputs: 0 N.H, 1 V.H, 2 N.V, 3 L.N, 4 -L.P (dot(L, SPOTDIR / 2047),
 *   the register holding -P), 5 cos phi (dot(H - N (N.H), T), in
 *   configuration 7 only, else 0); 6-7 read 0.
 *   A LUT reads, with abs() on, the input made |x| for a two-sided light and
 *   max(x, 0) otherwise, at index floor(x * 256) (clamped to
 *   0-255), else x at floor(x * 128) (clamped to -128..127, two's complement
 *   index), interpolating value + difference * fraction; an entry's value
 *   is bits 0-11 / 4095 (fixed0.0.12) and its difference bits 12-22 / 2047
 *   (fixed1.0.11, sign and magnitude: negative when bit 23 is set; 4095 and
 *   2047 rather than 4096 and 2048 so that all ones is 1.0, as Citra, whose
 *   lighting was checked against hardware, reads them); then times the
 *   scale (1, 2, 4, 8, 1/4, 1/2; 4-5 read 1x).
 *   A LUT off in CONFIG1 or missing from the configuration reads 1.
 *   spot = SP(light) if its spot is on, else 1; distance = DA(light) at
 *   clamp(bias + scale * |Lr|, 0, 1) (unsigned index, no scale)
 *   if its attenuation is on, else 1.  Reflection R = (RR, RG or RR's value,
 *   RB or RR's value).  Geometric factor min(n.l / dot(Hr, Hr), 1) (0 when
 *   Hr is 0).  diffuse += (diffuse colour * n.l + ambient colour) * dist *
 *   spot; specular += (D0 * specular0 [* geo0] + D1 * R * specular1
 *   [* geo1]) * dist * spot, times 0 when clamp highlights is on and
 *   n.l is 0.  Fresnel (FR) of the last light goes to the primary and/or
 *   secondary alpha (CONFIG0 bits 2-3), which is 1 otherwise.  primary =
 *   clamp(diffuse + global ambient), secondary = clamp(specular), each
 *   channel times 255 truncated to 8 bits for the TEV (Citra's software
 *   renderer).  Colours are bytes / 255.
 *   Shadow attenuation (CONFIG0 bit 0): S = the shadow unit's texel / 255
 *   (bits 24-25; 1 - S with bit 18); for lights whose shadow CONFIG1 does not
 *   disable, S.rgb multiplies the diffuse term (bit 16) and the specular
 *   term (bit 17); with bit 19, S.a multiplies the alphas the Fresnel selector
 *   names.  This follows Citra's software renderer, which was compared with
 *   hardware.
 * Bump mapping (CONFIG0 bits 28-29 = 1) takes the surface normal from the
 * bump unit's texel (bits 22-23; 3 is the procedural texture) as 2c/255 - 1
 * and, unless bit 30 is set, recomputes its z as sqrt(max(1 - x^2 - y^2, 0));
 * tangent mapping (2) takes the tangent that way and keeps the normal (0,0,1);
 * both are then rotated by the quaternion. */

static const char *const lut_input_expr[8] = {"dot(N, H)", "dot(V, H)", "dot(N, V)", "dot(L, N)",
                                              "dot(L, lights[%u].spot.xyz)", "dot(H - N * dot(N, H), T)",
                                              "0.0", "0.0"};

static float scale_of(unsigned code)
{
    static const float s[8] = {1.0f, 2.0f, 4.0f, 8.0f, 1.0f, 1.0f, 0.25f, 0.5f};
    return s[code & 7];
}

/* The value of LUT input `l` (PVK_LUT_*) from table `table` as a float expression statement into `dst`. */
static void lut_read(pvk_text *b, const pvk_fs_fraglight_key *k, unsigned l, unsigned table, const pvk_fs_light *lt,
                     const char *dst)
{
    char in[96];
    unsigned sel = k->lut_input[l] & 7;
    if (sel == 5 && k->config != 8)
        sel = 6; /* cos phi only in configuration 7 (code 8); else 0 */
    snprintf(in, sizeof in, lut_input_expr[sel], lt->id & 7);
    if (k->lut_abs >> l & 1) /* abs(): |x| for two-sided lights, else max(x, 0) */
        pvk_text_put(b, "        %s = lut_abs(%uu, %s(%s%s)) * %.9g;\n", dst, table, lt->two_sided ? "abs" : "max", in,
                     lt->two_sided ? "" : ", 0.0", (double)scale_of(k->lut_scale[l]));
    else
        pvk_text_put(b, "        %s = lut_signed(%uu, %s) * %.9g;\n", dst, table, in, (double)scale_of(k->lut_scale[l]));
}

void pvk_glsl_fraglight_helpers(pvk_text *b, const pvk_fs_key *key)
{
    if (key->fl.shadow) /* a float1.5.10's mantissa, truncated (the exponent is not limited) */
        pvk_text_put(b, "float half_trunc(float x) { return uintBitsToFloat(floatBitsToUint(x) & 0xFFFFE000u); }\n");
    if (!key->fl.light)
        return;
    pvk_text_put(b,
        "float lut_entry(uint table, uint i, float frac)\n{\n"
        "    uint e = lut_word(table * 256u + i);\n"
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
                    "    vec3 sn = vec3(0.0, 0.0, 1.0), st = vec3(1.0, 0.0, 0.0);\n");
    /* bump (1) or tangent (2) map: the unit's texel, 2c - 1, replaces the surface normal or tangent */
    if (k->bump_mode == 1)
        pvk_text_put(b, "    sn = vec3(tex%u.rgb) / 255.0 * 2.0 - 1.0;\n", k->bump_unit & 3);
    else if (k->bump_mode == 2)
        pvk_text_put(b, "    st = vec3(tex%u.rgb) / 255.0 * 2.0 - 1.0;\n", k->bump_unit & 3);
    if (k->bump_renorm)
        pvk_text_put(b, "    sn.z = sqrt(max(1.0 - dot(sn.xy, sn.xy), 0.0));\n");
    pvk_text_put(b, "    vec3 N = quat_rotate(nq, sn), T = quat_rotate(nq, st);\n"
                    "    vec3 V = normalize(view);\n"
                    "    vec3 dsum = vec3(0.0), ssum = vec3(0.0);\n"
                    "    float pa = 1.0, sa = 1.0;\n");
    if (k->shadow_atten & PVK_SHADOW_ATTEN_ON)
        pvk_text_put(b, "    vec4 shadow = vec4(tex%u) / 255.0;\n%s", k->shadow_atten & 3,
                     k->shadow_atten & PVK_SHADOW_ATTEN_INVERT ? "    shadow = vec4(1.0) - shadow;\n" : "");
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
            lut_read(b, k, PVK_LUT_SP, table[PVK_LUT_SP] + id, lt, "spot");
        if (lt->dist_atten) /* the distance is |Lr|, the light vector before normalisation */
            pvk_text_put(b, "        dist = lut_abs(%uu, clamp(lights[%u].atten.x + lights[%u].atten.y * length(Lr), "
                            "0.0, 1.0));\n",
                         16 + id, id, id);
        if (on[PVK_LUT_D0])
            lut_read(b, k, PVK_LUT_D0, 0, lt, "d0");
        if (on[PVK_LUT_D1])
            lut_read(b, k, PVK_LUT_D1, 1, lt, "d1");
        if (on[PVK_LUT_RR])
            lut_read(b, k, PVK_LUT_RR, 6, lt, "refl.r");
        pvk_text_put(b, "        refl.gb = vec2(refl.r);\n");
        if (on[PVK_LUT_RG])
            lut_read(b, k, PVK_LUT_RG, 5, lt, "refl.g");
        if (on[PVK_LUT_RB])
            lut_read(b, k, PVK_LUT_RB, 4, lt, "refl.b");
        if (lt->geo0 || lt->geo1)
            pvk_text_put(b, "        float hh = dot(Hr, Hr);\n"
                            "        geo = hh == 0.0 ? 0.0 : min(nl / hh, 1.0);\n");
        pvk_text_put(b, "        vec3 spec = d0 * color3(lights[%u].colors.x)%s + d1 * refl * color3(lights[%u].colors.y)%s;\n",
                     id, lt->geo0 ? " * geo" : "", id, lt->geo1 ? " * geo" : "");
        if (k->clamp_highlights)
            pvk_text_put(b, "        spec *= nl > 0.0 ? 1.0 : 0.0;\n");
        bool shadowed = lt->shadow && (k->shadow_atten & PVK_SHADOW_ATTEN_ON);
        pvk_text_put(b, "        dsum += (color3(lights[%u].colors.z) * nl%s + color3(lights[%u].colors.w)) * dist * spot;\n"
                        "        ssum += spec * dist * spot%s;\n",
                     id, shadowed && (k->shadow_atten & PVK_SHADOW_ATTEN_PRIMARY) ? " * shadow.rgb" : "", id,
                     shadowed && (k->shadow_atten & PVK_SHADOW_ATTEN_SECONDARY) ? " * shadow.rgb" : "");
        if (i + 1 == k->num_lights && on[PVK_LUT_FR] && k->fresnel) {
            pvk_text_put(b, "        float fr;\n");
            lut_read(b, k, PVK_LUT_FR, 3, lt, "fr");
            if (k->fresnel & 1)
                pvk_text_put(b, "        pa = fr;\n");
            if (k->fresnel & 2)
                pvk_text_put(b, "        sa = fr;\n");
        }
        pvk_text_put(b, "    }\n");
    }
    if ((k->shadow_atten & PVK_SHADOW_ATTEN_ON) && (k->shadow_atten & PVK_SHADOW_ATTEN_ALPHA)) {
        /* the Fresnel selector says which alphas */
        if (k->fresnel & 1)
            pvk_text_put(b, "    pa *= shadow.a;\n");
        if (k->fresnel & 2)
            pvk_text_put(b, "    sa *= shadow.a;\n");
    }
    pvk_text_put(b, "    dsum += color3(misc.x);\n"
                    "    frag_pri = uvec4(clamp(vec4(dsum, pa), 0.0, 1.0) * 255.0);\n"
                    "    frag_sec = uvec4(clamp(vec4(ssum, sa), 0.0, 1.0) * 255.0);\n"
                    "    }\n");
}

/* ---- procedural texture (texture unit 3) ----
 *
 * 3dbrew ("GPU/Internal Registers" PROCTEX0-5 and the LUT formats, "GPU/
 * Procedural Texture Generation") names the stages; the arithmetic is what
 * Citra found by comparing with hardware (its noise hash is hardware-checked),
 * restated (tests/ref/light_ref.c has it too):
 *   u, v = |texture coordinate| of the selected set.  The shift offsets come
 *   first, from the other coordinate: odd int(v)/2 % 2, even (int(v)+1)/2 % 2,
 *   times 1 with mirrored repeat, else 0.5.  Noise (PROCTEX0 bit 15): at
 *   x = 9 f_u |u + phase_u|, y likewise, with i = int(x), fx = x - i, four
 *   corner gradients g(i+a, j+b) * (fx + fy - a - b) blended by the noise
 *   LUT at fx and fy; u += noise * amplitude_u, v likewise, then |u|, |v|.
 *   Then the shifts, then each coordinate's clamp: 0 to zero (> 1 -> 0),
 *   1 to edge, 2 repeat (fraction), 3 mirrored (odd integer part: 1 - fraction),
 *   4 pulse (<= 0.5 -> 0, else 1), 5-7 as to edge.  The combiner (0 u, 1 u^2,
 *   2 v, 3 v^2, 4 (u+v)/2, 5 (u^2+v^2)/2, 6 min(sqrt(u^2+v^2), 1), 7 min,
 *   8 max, 9 min(((u+v)/2 + sqrt(u^2+v^2))/2, 1), others 0) goes through the
 *   RGB map LUT; the result picks colour LUT entry offset + r * (width - 1):
 *   nearest rounds (halves up), linear adds the fraction times twice the difference
 *   entry (each byte signed: half the step to the next entry) and truncates.
 *   With separate alpha, alpha is the alpha combiner through the alpha map
 *   times 255, truncated.  The 128-entry LUTs (noise, maps) are read at
 *   index min(int(128 x), 127) plus the fraction times the difference
 *   (bits 12-23, two's complement) over 4095; values bits 0-11 / 4095.
 * Mipmap levels (PROCTEX4 filters 2-5; 3dbrew names the filters, the min/max
 * LOD fields and PROCTEX5's level 0-3 offsets; the rest is the model of
 * Citra's hardware renderers, not stated as measured, restated):
 *   lod = log2(|width * bias| * (max(|du/dx|, |du/dy|) + max(|dv/dx|, |dv/dy|)))
 *   over the selected texture coordinates' screen derivatives (taken before
 *   abs(): the same magnitudes away from 0, no fold), 0 when the bias is 0,
 *   then raised to min LOD and lowered to min(max LOD, 7), in that order.
 *   Level L reads the colour LUT as level 0 does with width >> L and offset
 *   PROCTEX5 byte L (L 0-3) or 256 - (16 >> (L - 4)) (L 4-7: 0xF0, 0xF8, 0xFC,
 *   0xFE, Citra's observation).  Filters 2-3 use level floor(lod + 0.5);
 *   filters 4-5 blend levels floor(lod) and the next (at most 7) by the
 *   fraction: c0 + f (c1 - c0), truncated.  Filter bit 0 still picks nearest
 *   or linear within a level.  The lookups sit before main's first discard
 *   (glsl_fs.c) so that the derivatives see the whole 2x2 quad. */

static const char *const combiner_expr[10] = {
    "u", "u * u", "v", "v * v", "(u + v) * 0.5", "(u * u + v * v) * 0.5", "min(sqrt(u * u + v * v), 1.0)",
    "min(u, v)", "max(u, v)", "min(((u + v) * 0.5 + sqrt(u * u + v * v)) * 0.5, 1.0)"};

static void clamp_code(pvk_text *b, const char *c, unsigned mode)
{
    switch (mode) {
    case 0: pvk_text_put(b, "    if (%s > 1.0) %s = 0.0;\n", c, c); break;
    case 2: pvk_text_put(b, "    %s = fract(%s);\n", c, c); break;
    case 3: pvk_text_put(b, "    { int n = int(%s); float f = %s - float(n); %s = (n & 1) == 0 ? f : 1.0 - f; }\n", c, c, c);
        break;
    case 4: pvk_text_put(b, "    %s = %s <= 0.5 ? 0.0 : 1.0;\n", c, c); break;
    default: pvk_text_put(b, "    %s = min(%s, 1.0);\n", c, c); break;
    }
}

static void shift_code(pvk_text *b, const char *dst, const char *from, unsigned shift, unsigned clamp)
{
    const char *off = clamp == 3 ? "1.0" : "0.5";
    if (shift == 1)
        pvk_text_put(b, "    float %s = %s * float((int(%s) / 2) %% 2);\n", dst, off, from);
    else if (shift == 2)
        pvk_text_put(b, "    float %s = %s * float(((int(%s) + 1) / 2) %% 2);\n", dst, off, from);
    else
        pvk_text_put(b, "    float %s = 0.0;\n", dst);
}

void pvk_glsl_proctex_helpers(pvk_text *b, const pvk_fs_key *key)
{
    const pvk_fs_fraglight_key *k = &key->fl;
    if (!k->proctex)
        return;
    unsigned base = PVK_FRAG_LUT_PROCTEX;
    pvk_text_put(b, "float pt_lut(uint table, float x)\n{\n"
                    "    float s = x * 128.0;\n"
                    "    int i = min(int(s), 127);\n"
                    "    uint e = lut_word(%uu + table * 256u + uint(clamp(i, 0, 127)));\n"
                    "    return float(e & 0xFFFu) / 4095.0 + (s - float(i)) * float(int(e << 8) >> 20) / 4095.0;\n}\n",
                 base);
    if (k->pt_noise)
        /* The two 16-entry tables of the noise hash (0 4 10 8 4 9 7 12 5 15 13 14 11 15 2 11
         * and 10 2 15 8 0 7 4 5 5 13 2 6 13 9 3 14) as nibbles of two words each: an
         * indexed constant array becomes a 16-way branch ladder in a CPU driver's
         * compiler (lavapipe took 250 ms more at such a shader's first draw). */
        pvk_text_put(b, "uint pt_nibble(uint lo, uint hi, uint i)\n{\n"
                        "    return (((i & 8u) != 0u ? hi : lo) >> (4u * (i & 7u))) & 0xFu;\n}\n"
                        "uint pt_rand1(uint v)\n{\n"
                        "    return (((v %% 9u + 2u) * 3u) & 0xFu) ^ pt_nibble(0xC7948A40u, 0xB2FBEDF5u, (v / 9u) & 0xFu);\n}\n"
                        "float pt_rand2(uint x, uint y)\n{\n"
                        "    uint a = pt_rand1(x), c = pt_rand1(y);\n"
                        "    c += (a & 3u) == 1u ? 4u : 0u;\n"
                        "    c ^= (a & 1u) * 6u;\n"
                        "    c = (c + 10u + a) & 0xFu;\n"
                        "    c ^= pt_nibble(0x54708F2Au, 0xE39D62D5u, a);\n"
                        "    return -1.0 + float(c) * 2.0 / 15.0;\n}\n"
                        "float pt_noise(float u, float v)\n{\n"
                        "    float x = 9.0 * pt_noise_u.z * abs(u + pt_noise_u.y), y = 9.0 * pt_noise_v.z * abs(v + pt_noise_v.y);\n"
                        "    uint xi = uint(x), yi = uint(y);\n"
                        "    float fx = x - float(xi), fy = y - float(yi);\n"
                        "    float g0 = pt_rand2(xi, yi) * (fx + fy), g1 = pt_rand2(xi + 1u, yi) * (fx + fy - 1.0);\n"
                        "    float g2 = pt_rand2(xi, yi + 1u) * (fx + fy - 1.0), g3 = pt_rand2(xi + 1u, yi + 1u) * (fx + fy - 2.0);\n"
                        "    float nx = pt_lut(0u, fx), ny = pt_lut(0u, fy);\n"
                        "    return mix(mix(g0, g1, nx), mix(g2, g3, nx), ny);\n}\n");
    static const char *const coords[3] = {"tc01.xy", "tc01.zw", "tc2w.xy"};
    /* one level's colour: nearest or linear in the colour LUT */
    pvk_text_put(b, "uvec4 pt_color(float r, uint level)\n{\n"
                    "    uint off = level < 4u ? (pt_offsets >> (8u * level)) & 0xFFu : 256u - (16u >> (level - 4u));\n"
                    "    float index = float(off) + r * (float(pt_width >> level) - 1.0);\n");
    if (k->pt_filter & 1)
        pvk_text_put(b, "    int i = int(index);\n"
                        "    float f = index - float(i);\n"
                        "    uint ci = uint(clamp(i, 0, 255));\n"
                        "    uvec4 c0 = rgba8(lut_word(%uu + 4u * 256u + ci));\n"
                        "    uint dw = lut_word(%uu + 5u * 256u + ci);\n"
                        "    ivec4 d = ivec4(int(dw << 24) >> 24, int(dw << 16) >> 24, int(dw << 8) >> 24, int(dw) >> 24) * 2;\n"
                        "    return uvec4(clamp(vec4(c0) + f * vec4(d), 0.0, 255.0));\n}\n",
                     base, base);
    else
        pvk_text_put(b, "    return rgba8(lut_word(%uu + 4u * 256u + uint(clamp(int(floor(index + 0.5)), 0, 255))));\n}\n",
                     base);
    const char *tc = coords[k->pt_coords < 3 ? k->pt_coords : 2];
    pvk_text_put(b, "uvec4 proctex()\n{\n"
                    "    vec2 tc = abs(%s);\n"
                    "    float u = tc.x, v = tc.y;\n",
                 tc);
    if (k->pt_filter >= 2)
        pvk_text_put(b, "    vec2 dd = max(abs(dFdx(%s)), abs(dFdy(%s)));\n"
                        "    float lod = pt_bias == 0.0 ? 0.0 : log2(abs(float(pt_width) * pt_bias) * (dd.x + dd.y));\n"
                        /* a NaN coordinate: GLSL's min/max may pass NaN on, and
                         * uint(NaN) and the shifts by it are undefined; below 0 the
                         * clamp takes the min level anyway */
                        "    if (!(lod >= 0.0)) lod = 0.0;\n"
                        "    lod = min(max(lod, float(pt_lod & 0xFFu)), float(min(pt_lod >> 8, 7u)));\n",
                     tc, tc);
    shift_code(b, "su", "v", k->pt_u_shift, k->pt_u_clamp);
    shift_code(b, "sv", "u", k->pt_v_shift, k->pt_v_clamp);
    if (k->pt_noise)
        pvk_text_put(b, "    float n = pt_noise(u, v);\n"
                        "    u = abs(u + n * pt_noise_u.x);\n"
                        "    v = abs(v + n * pt_noise_v.x);\n");
    pvk_text_put(b, "    u += su;\n    v += sv;\n");
    clamp_code(b, "u", k->pt_u_clamp);
    clamp_code(b, "v", k->pt_v_clamp);
    pvk_text_put(b, "    float r = pt_lut(2u, %s);\n", k->pt_rgb_func < 10 ? combiner_expr[k->pt_rgb_func] : "0.0");
    if (k->pt_filter >= 4)
        pvk_text_put(b, "    uint l = uint(lod);\n"
                        "    float lf = lod - float(l);\n"
                        "    vec4 c0 = vec4(pt_color(r, l)), c1 = vec4(pt_color(r, min(l + 1u, 7u)));\n"
                        "    uvec4 c = uvec4(max(c0 + lf * (c1 - c0), 0.0));\n");
    else if (k->pt_filter >= 2)
        pvk_text_put(b, "    uvec4 c = pt_color(r, uint(floor(lod + 0.5)));\n");
    else
        pvk_text_put(b, "    uvec4 c = pt_color(r, 0u);\n");
    if (k->pt_separate)
        pvk_text_put(b, "    c.a = uint(clamp(pt_lut(3u, %s), 0.0, 1.0) * 255.0);\n",
                     k->pt_alpha_func < 10 ? combiner_expr[k->pt_alpha_func] : "0.0");
    pvk_text_put(b, "    return c;\n}\n");
}

/* ---- shadow rendering (COLOR_OPERATION mode 3) ----
 *
 * The shadow buffer is an RGBA8 colour buffer whose pixel holds a 24-bit
 * depth in its bytes 0-2, most significant first (the A, B, G channels), and
 * an 8-bit intensity in byte 3 (R) (3dbrew; Citra's hardware-derived model,
 * restated).  A fragment of depth z (24-bit, as the depth buffer's) and
 * intensity s (the TEV output's green) over a pixel holding (rz, rs) changes
 * it only when z < rz: with s = 0 the depth becomes z (the intensity stays);
 * otherwise s' = s / (constant + linear * z / rz) (FRAGOP_SHADOW), each
 * operation rounded to a half's 10-bit mantissa by truncation, clamped to
 * 0-255 and truncated, replaces the intensity when it is below rs (the depth
 * stays).  No alpha test, fog, depth or stencil test, blending or logic op. */
void pvk_glsl_fraglight_shadow(pvk_text *b, const pvk_fs_key *key)
{
    if (!key->fl.shadow)
        return;
    pvk_text_put(b, "    {\n"
                    "    float sd = -gl_FragCoord.z * depth_scale + depth_offset;\n"
                    "    if (w_buffer != 0u)\n"
                    "        sd *= clip_w;\n"
                    "    uint z = uint(clamp(sd, 0.0, 1.0) * 16777215.0), s = prev.g;\n"
                    "    uvec4 o = uvec4(round(subpassLoad(dst_in) * 255.0));\n"
                    "    uint rz = o.a << 16 | o.b << 8 | o.g, rs = o.r;\n"
                    "    if (z < rz) {\n"
                    "        if (s == 0u) {\n"
                    "            o.a = z >> 16;\n"
                    "            o.b = (z >> 8) & 255u;\n"
                    "            o.g = z & 255u;\n"
                    "        } else {\n"
                    "            float x = half_trunc(float(z) / float(rz));\n"
                    "            float den = half_trunc(uintBitsToFloat(misc.z) + half_trunc(uintBitsToFloat(misc.w) * x));\n"
                    "            uint ns = uint(clamp(half_trunc(float(s) / den), 0.0, 255.0));\n"
                    "            if (ns < rs)\n"
                    "                o.r = ns;\n"
                    "        }\n"
                    "    }\n"
                    "    out_color = vec4(o) / 255.0;\n"
                    "    gl_FragDepth = 0.0;\n" /* no depth attachment writes in this mode */
                    "    return;\n"
                    "    }\n");
}
