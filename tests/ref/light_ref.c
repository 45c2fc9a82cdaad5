/* See light_ref.h. */
#include "light_ref.h"

void ref_fog(const uint32_t *regs, const uint32_t *fog_lut, uint32_t z24, uint8_t rgba[4])
{
    uint32_t ub = regs[0x0E0];
    if ((ub & 7) != 5)
        return;
    if (ub >> 16 & 1)
        z24 = 0xFFFFFFu - z24;
    uint32_t e = fog_lut[z24 >> 17];
    int32_t value = (int32_t)(e >> 13 & 0x7FF);
    int32_t diff = (int32_t)(e & 0x1FFF) - (e & 0x1000 ? 0x2000 : 0); /* 13-bit two's complement */
    int64_t prod = (int64_t)diff * (int64_t)(z24 & 0x1FFFF);
    /* floor division by 2^17 */
    int64_t step = prod >= 0 ? prod / 131072 : -((-prod + 131071) / 131072);
    int64_t f = value + step;
    if (f < 0)
        f = 0;
    if (f > 2048)
        f = 2048;
    uint32_t fc = regs[0x0E1];
    for (int c = 0; c < 3; c++) {
        uint32_t fog = fc >> (8 * c) & 0xFF;
        rgba[c] = (uint8_t)((rgba[c] * (uint32_t)f + fog * (uint32_t)(2048 - f)) >> 11);
    }
}

#include <math.h>
#include <string.h>

typedef struct { double x, y, z; } v3;

static v3 add(v3 a, v3 b) { return (v3){a.x + b.x, a.y + b.y, a.z + b.z}; }
static v3 sub(v3 a, v3 b) { return (v3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static v3 mul(v3 a, double s) { return (v3){a.x * s, a.y * s, a.z * s}; }
static double dot(v3 a, v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static v3 cross(v3 a, v3 b) { return (v3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
static v3 norm(v3 a) { return mul(a, 1.0 / sqrt(dot(a, a))); }

/* v rotated by the unit quaternion (q.xyz, w) */
static v3 rotate(const double q[4], v3 v)
{
    v3 u = {q[0], q[1], q[2]};
    return add(v, mul(cross(u, add(cross(u, v), mul(v, q[3]))), 2.0));
}

/* float1.5.10 */
static double half(uint32_t v)
{
    int e = (int)(v >> 10 & 0x1F);
    double m = (double)(v & 0x3FF);
    double f = e ? ldexp(m + 1024.0, e - 25) : ldexp(m, -24);
    return v & 0x8000 ? -f : f;
}

/* float1.7.12 */
static double f20(uint32_t v)
{
    int e = (int)(v >> 12 & 0x7F);
    double f = e ? ldexp((double)(v & 0xFFF) + 4096.0, e - 75) : 0.0;
    return v & 0x80000 ? -f : f;
}

/* SPOTDIR: fixed1.1.11 (13-bit two's complement), over 2047 as Citra reads it */
static double fix13(uint32_t v)
{
    v &= 0x1FFF;
    return ((int32_t)v - (v & 0x1000 ? 0x2000 : 0)) / 2047.0;
}

/* B bits 0-7, G 10-17, R 20-27, as 0..1 */
static v3 col(uint32_t v)
{
    return (v3){(v >> 20 & 0xFF) / 255.0, (v >> 10 & 0xFF) / 255.0, (v & 0xFF) / 255.0};
}

static double entry(const uint32_t *t, unsigned i, double frac)
{
    uint32_t e = t[i];
    double diff = (double)(e >> 12 & 0x7FF) / 2047.0;
    if (e & 0x800000)
        diff = -diff;
    return (double)(e & 0xFFF) / 4095.0 + diff * frac;
}

static double lut_read(const uint32_t *t, double x, bool abs_input)
{
    if (abs_input) {
        double s = fabs(x) * 256.0, i = floor(s);
        if (i > 255)
            i = 255;
        return entry(t, (unsigned)i, s - i);
    }
    if (x < -1)
        x = -1;
    if (x > 1)
        x = 1;
    double s = x * 128.0, i = floor(s);
    if (i > 127)
        i = 127;
    return entry(t, (unsigned)((int)i & 255), s - i);
}

static uint8_t byte(double c)
{
    c = c < 0 ? 0 : c > 1 ? 1 : c;
    return (uint8_t)(c * 255.0); /* truncated */
}

void ref_lighting(const uint32_t *regs, const uint32_t lut[24][256], const float quat[4], const float view[3],
                  const uint8_t texel[4][4], uint8_t primary[4], uint8_t secondary[4])
{
    memset(primary, 0, 4);
    memset(secondary, 0, 4);
    if (!(regs[0x08F] & 1)) /* LIGHTING_ENABLE0 */
        return;
    uint32_t c0 = regs[0x1C3], c1 = regs[0x1C4], absr = regs[0x1D0], sel = regs[0x1D1], scl = regs[0x1D2];
    unsigned config = c0 >> 4 & 0xF, fresnel = c0 >> 2 & 3;
    bool clamp_hl = c0 >> 27 & 1;
    /* LUTs D0 D1 SP FR RB RG RR (field order of LUTINPUT_*): which the configuration has */
    static const char *const have[16] = {"D0 RR SP", "FR RR SP", "D0 D1 RR", "D0 D1 FR", "D0 D1 SP RB RG RR",
                                         "D0 SP FR RB RG RR", "D0 D1 SP FR RR", "D0 D1 SP FR RB RG RR",
                                         "D0 D1 SP FR RB RG RR"};
    static const char *const names[7] = {"D0", "D1", "SP", "FR", "RB", "RG", "RR"};
    static const int disable[7] = {16, 17, -1, 19, 20, 21, 22};
    static const double scales[8] = {1, 2, 4, 8, 1, 1, 0.25, 0.5};
    bool on[7], absin[7];
    unsigned input[7];
    double scale[7];
    const char *h = config < 9 ? have[config] : have[8];
    for (int l = 0; l < 7; l++) {
        on[l] = strstr(h, names[l]) != NULL && !(disable[l] >= 0 && (c1 >> disable[l] & 1));
        absin[l] = !(absr >> (4 * l + 1) & 1);
        input[l] = sel >> (4 * l) & 7;
        scale[l] = scales[scl >> (4 * l) & 7];
    }
    bool have_sp = strstr(h, "SP") != NULL;
    double q[4] = {quat[0], quat[1], quat[2], quat[3]};
    double ql = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++)
        q[i] /= ql;
    v3 sn = {0, 0, 1}, st = {1, 0, 0};
    unsigned bump = c0 >> 28 & 3;
    const uint8_t *bump_texel = texel[c0 >> 22 & 3];
    if (bump == 1 || bump == 2) { /* bump map: the surface normal; tangent map: the tangent (2c - 1) */
        v3 m = {bump_texel[0] / 255.0 * 2 - 1, bump_texel[1] / 255.0 * 2 - 1, bump_texel[2] / 255.0 * 2 - 1};
        if (bump == 1) {
            sn = m;
            if (!(c0 >> 30 & 1)) { /* recompute z */
                double z2 = 1 - m.x * m.x - m.y * m.y;
                sn.z = z2 > 0 ? sqrt(z2) : 0;
            }
        } else {
            st = m;
        }
    }
    v3 N = rotate(q, sn), T = rotate(q, st);
    v3 view3 = {view[0], view[1], view[2]}, V = norm(view3);
    v3 dsum = {0, 0, 0}, ssum = {0, 0, 0};
    double pa = 1, sa = 1;
    /* shadow attenuation: the shadow unit's texel, inverted with bit 18 */
    bool shadow_on = c0 & 1;
    double S[4];
    for (int c = 0; c < 4; c++) {
        S[c] = texel[c0 >> 24 & 3][c] / 255.0;
        if (c0 >> 18 & 1)
            S[c] = 1 - S[c];
    }
    unsigned n = (regs[0x1C2] & 7) + 1;
    for (unsigned slot = 0; slot < n; slot++) {
        unsigned id = regs[0x1D9] >> (4 * slot) & 7;
        const uint32_t *lr = regs + 0x140 + 0x10 * id;
        v3 p = {half(lr[4] & 0xFFFF), half(lr[4] >> 16), half(lr[5] & 0xFFFF)};
        v3 spotdir = {fix13(lr[6]), fix13(lr[6] >> 16), fix13(lr[7])};
        bool directional = lr[9] & 1, two = lr[9] >> 1 & 1, geo0 = lr[9] >> 2 & 1, geo1 = lr[9] >> 3 & 1;
        v3 Lr = directional ? p : add(p, view3), L = norm(Lr), Hr = add(L, V), H = norm(Hr);
        double nl = dot(N, L);
        nl = two ? fabs(nl) : nl > 0 ? nl : 0;
        double in[8] = {dot(N, H), dot(V, H), dot(N, V), dot(L, N), dot(L, spotdir),
                        config == 8 ? dot(sub(H, mul(N, dot(N, H))), T) : 0, 0, 0};
        /* abs() input: |x| for a two-sided light, else max(x, 0) */
#define IN(l) (absin[l] ? (two ? fabs(in[input[l]]) : fmax(in[input[l]], 0)) : in[input[l]])
#define READ(l, table) (lut_read(lut[table], IN(l), absin[l]) * scale[l])
        double spot = have_sp && !(c1 >> (8 + id) & 1) ? READ(2, 8 + id) : 1.0;
        double dist = 1.0;
        if (!(c1 >> (24 + id) & 1)) {
            double x = f20(lr[10] & 0xFFFFF) + f20(lr[11] & 0xFFFFF) * sqrt(dot(Lr, Lr));
            x = x < 0 ? 0 : x > 1 ? 1 : x;
            dist = lut_read(lut[16 + id], x, true);
        }
        double d0 = on[0] ? READ(0, 0) : 1.0, d1 = on[1] ? READ(1, 1) : 1.0;
        v3 refl;
        refl.x = on[6] ? READ(6, 6) : 1.0;
        refl.y = on[5] ? READ(5, 5) : refl.x;
        refl.z = on[4] ? READ(4, 4) : refl.x;
        double hh = dot(Hr, Hr), geo = hh == 0 ? 0 : (nl / hh < 1 ? nl / hh : 1);
        v3 s1 = col(lr[1]);
        v3 spec = add(mul(col(lr[0]), d0 * (geo0 ? geo : 1.0)),
                      mul((v3){d1 * refl.x * s1.x, d1 * refl.y * s1.y, d1 * refl.z * s1.z}, geo1 ? geo : 1.0));
        if (clamp_hl && !(nl > 0))
            spec = (v3){0, 0, 0};
        bool shadowed = shadow_on && !(c1 >> id & 1);
        v3 dif = mul(col(lr[2]), nl);
        if (shadowed && (c0 >> 16 & 1))
            dif = (v3){dif.x * S[0], dif.y * S[1], dif.z * S[2]};
        if (shadowed && (c0 >> 17 & 1))
            spec = (v3){spec.x * S[0], spec.y * S[1], spec.z * S[2]};
        dsum = add(dsum, mul(add(dif, col(lr[3])), dist * spot));
        ssum = add(ssum, mul(spec, dist * spot));
        if (slot + 1 == n && on[3] && fresnel) {
            double fr = READ(3, 3);
            if (fresnel & 1)
                pa = fr;
            if (fresnel & 2)
                sa = fr;
        }
#undef READ
#undef IN
    }
    if (shadow_on && (c0 >> 19 & 1)) { /* the alphas the Fresnel selector names */
        if (fresnel & 1)
            pa *= S[3];
        if (fresnel & 2)
            sa *= S[3];
    }
    dsum = add(dsum, col(regs[0x1C0]));
    primary[0] = byte(dsum.x), primary[1] = byte(dsum.y), primary[2] = byte(dsum.z), primary[3] = byte(pa);
    secondary[0] = byte(ssum.x), secondary[1] = byte(ssum.y), secondary[2] = byte(ssum.z), secondary[3] = byte(sa);
}

/* ---- procedural texture ---- */

static float pt_lut(const uint32_t *t, float x)
{
    float s = x * 128.0f;
    int i = (int)s < 127 ? (int)s : 127;
    int ci = i < 0 ? 0 : i;
    uint32_t e = t[ci];
    int32_t diff = (int32_t)(e >> 12 & 0xFFF) - (e & 0x800000 ? 0x1000 : 0);
    return (float)(e & 0xFFF) / 4095.0f + (s - (float)i) * (float)diff / 4095.0f;
}

static unsigned rand1(unsigned v)
{
    static const unsigned t[16] = {0, 4, 10, 8, 4, 9, 7, 12, 5, 15, 13, 14, 11, 15, 2, 11};
    return (((v % 9 + 2) * 3) & 0xF) ^ t[(v / 9) & 0xF];
}

static float rand2(unsigned x, unsigned y)
{
    static const unsigned t[16] = {10, 2, 15, 8, 0, 7, 4, 5, 5, 13, 2, 6, 13, 9, 3, 14};
    unsigned a = rand1(x), c = rand1(y);
    if ((a & 3) == 1)
        c += 4;
    c ^= (a & 1) * 6;
    c = (c + 10 + a) & 0xF;
    c ^= t[a];
    return -1.0f + (float)c * 2.0f / 15.0f;
}

static float lerpf(float a, float b, float t) { return a + (b - a) * t; }

static float shift_of(float from, unsigned shift, unsigned clamp)
{
    float off = clamp == 3 ? 1.0f : 0.5f;
    int n = (int)from;
    if (shift == 1)
        return off * (float)((n / 2) % 2);
    if (shift == 2)
        return off * (float)(((n + 1) / 2) % 2);
    return 0.0f;
}

static float clamp_coord(float c, unsigned mode)
{
    switch (mode) {
    case 0: return c > 1.0f ? 0.0f : c;
    case 2: return c - floorf(c);
    case 3: {
        int n = (int)c;
        float f = c - (float)n;
        return (n & 1) == 0 ? f : 1.0f - f;
    }
    case 4: return c <= 0.5f ? 0.0f : 1.0f;
    default: return c < 1.0f ? c : 1.0f;
    }
}

static float combine(float u, float v, unsigned f)
{
    switch (f) {
    case 0: return u;
    case 1: return u * u;
    case 2: return v;
    case 3: return v * v;
    case 4: return (u + v) * 0.5f;
    case 5: return (u * u + v * v) * 0.5f;
    case 6: return fminf(sqrtf(u * u + v * v), 1.0f);
    case 7: return fminf(u, v);
    case 8: return fmaxf(u, v);
    case 9: return fminf(((u + v) * 0.5f + sqrtf(u * u + v * v)) * 0.5f, 1.0f);
    default: return 0.0f;
    }
}

/* One mipmap level's colour: entry offset + r * (width - 1), nearest
 * (rounded, halves up) or linear (the fraction times twice the signed
 * difference entry, truncated). */
static void pt_color(const uint32_t *regs, const uint32_t lut[6][256], float r, unsigned level, uint8_t out[4])
{
    uint32_t p4 = regs[0x0AC], p5 = regs[0x0AD];
    unsigned off = level < 4 ? (p5 >> (8 * level) & 0xFF) : 256 - (16u >> (level - 4));
    float index = (float)off + r * ((float)((p4 >> 11 & 0xFF) >> level) - 1.0f);
    if (p4 & 1) { /* linear */
        int i = (int)index;
        float f = index - (float)i;
        int ci = i < 0 ? 0 : i > 255 ? 255 : i;
        uint32_t c = lut[4][ci], d = lut[5][ci];
        for (int k = 0; k < 4; k++) {
            int dk = (int)(int8_t)(d >> (8 * k) & 0xFF) * 2;
            float x = (float)(c >> (8 * k) & 0xFF) + f * (float)dk;
            out[k] = (uint8_t)(x < 0 ? 0 : x > 255 ? 255 : x);
        }
    } else {
        int i = (int)floorf(index + 0.5f);
        uint32_t c = lut[4][i < 0 ? 0 : i > 255 ? 255 : i];
        for (int k = 0; k < 4; k++)
            out[k] = (uint8_t)(c >> (8 * k));
    }
}

void ref_proctex(const uint32_t *regs, const uint32_t lut[6][256], float u, float v, float duv, uint8_t out[4])
{
    uint32_t p0 = regs[0x0A8], p3 = regs[0x0AB], p4 = regs[0x0AC];
    unsigned uclamp = p0 & 7, vclamp = p0 >> 3 & 7, rgbf = p0 >> 6 & 0xF, af = p0 >> 10 & 0xF;
    unsigned filter = p4 & 7;
    if (filter > 5)
        filter &= 1; /* undocumented: as 0-1 */
    /* the level of detail: bias (PROCTEX0 bits 20-27 low, PROCTEX4 bits 19-26
     * high) times width inside the log, clamped to [min, min(max, 7)] */
    float lod = 0.0f;
    if (filter >= 2) {
        float bias = (float)half((p0 >> 20 & 0xFF) | (p4 >> 19 & 0xFF) << 8);
        lod = bias == 0.0f ? 0.0f : log2f(fabsf((float)(p4 >> 11 & 0xFF) * bias) * duv);
        float lo = (float)(p4 >> 3 & 0xF), hi = (float)((p4 >> 7 & 0xF) < 7 ? (p4 >> 7 & 0xF) : 7);
        lod = fminf(fmaxf(lod, lo), hi);
    }
    u = fabsf(u);
    v = fabsf(v);
    float su = shift_of(v, p0 >> 16 & 3, uclamp), sv = shift_of(u, p0 >> 18 & 3, vclamp);
    if (p0 >> 15 & 1) {
        float amp_u = (float)(int16_t)(regs[0x0A9] & 0xFFFF) / 4095.0f;
        float amp_v = (float)(int16_t)(regs[0x0AA] & 0xFFFF) / 4095.0f;
        float ph_u = (float)half(regs[0x0A9] >> 16), ph_v = (float)half(regs[0x0AA] >> 16);
        float fu = (float)half(p3 & 0xFFFF), fv = (float)half(p3 >> 16);
        float x = 9.0f * fu * fabsf(u + ph_u), y = 9.0f * fv * fabsf(v + ph_v);
        unsigned xi = (unsigned)x, yi = (unsigned)y;
        float fx = x - (float)xi, fy = y - (float)yi;
        float g0 = rand2(xi, yi) * (fx + fy), g1 = rand2(xi + 1, yi) * (fx + fy - 1.0f);
        float g2 = rand2(xi, yi + 1) * (fx + fy - 1.0f), g3 = rand2(xi + 1, yi + 1) * (fx + fy - 2.0f);
        float nx = pt_lut(lut[0], fx), ny = pt_lut(lut[0], fy);
        float n = lerpf(lerpf(g0, g1, nx), lerpf(g2, g3, nx), ny);
        u = fabsf(u + n * amp_u);
        v = fabsf(v + n * amp_v);
    }
    u = clamp_coord(u + su, uclamp);
    v = clamp_coord(v + sv, vclamp);
    float r = pt_lut(lut[2], combine(u, v, rgbf));
    if (filter >= 4) {
        unsigned l = (unsigned)lod;
        float f = lod - (float)l;
        uint8_t c0[4], c1[4];
        pt_color(regs, lut, r, l, c0);
        pt_color(regs, lut, r, l + 1 < 7 ? l + 1 : 7, c1);
        for (int c = 0; c < 4; c++) {
            float x = (float)c0[c] + f * ((float)c1[c] - (float)c0[c]);
            out[c] = (uint8_t)(x < 0 ? 0 : x);
        }
    } else {
        pt_color(regs, lut, r, filter >= 2 ? (unsigned)floorf(lod + 0.5f) : 0, out);
    }
    if (p0 >> 14 & 1) {
        float a = pt_lut(lut[3], combine(u, v, af));
        a = a < 0 ? 0 : a > 1 ? 1 : a;
        out[3] = (uint8_t)(a * 255.0f);
    }
}

/* ---- shadow rendering ---- */

/* a float rounded to a half's 10-bit mantissa by truncation */
static float half_trunc(float x)
{
    uint32_t b;
    memcpy(&b, &x, 4);
    b &= 0xFFFFE000u;
    memcpy(&x, &b, 4);
    return x;
}

void ref_shadow(const uint32_t *regs, uint32_t z24, uint8_t g, uint8_t rgba[4])
{
    uint32_t rz = (uint32_t)rgba[3] << 16 | (uint32_t)rgba[2] << 8 | rgba[1], rs = rgba[0];
    if (z24 >= rz)
        return;
    if (g == 0) {
        rgba[3] = (uint8_t)(z24 >> 16), rgba[2] = (uint8_t)(z24 >> 8), rgba[1] = (uint8_t)z24;
        return;
    }
    float c = (float)half(regs[0x130] & 0xFFFF), l = (float)half(regs[0x130] >> 16);
    float x = half_trunc((float)z24 / (float)rz);
    float den = half_trunc(c + half_trunc(l * x));
    float s = half_trunc((float)g / den);
    s = s < 0 ? 0 : s > 255 ? 255 : s;
    if ((uint32_t)s < rs)
        rgba[0] = (uint8_t)s;
}
