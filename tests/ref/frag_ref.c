/* See frag_ref.h.  Written from the documents, one obvious step at a time. */
#include "frag_ref.h"

static int clamp255(int v) { return v < 0 ? 0 : v > 255 ? 255 : v; }

static const uint32_t stage_reg[6] = {0x0C0, 0x0C8, 0x0D0, 0x0D8, 0x0F0, 0x0F8};

static void bytes_of(uint32_t w, int c[4])
{
    for (int i = 0; i < 4; i++)
        c[i] = (int)((w >> (8 * i)) & 0xFF);
}

/* Source `s` as RGBA ints. */
static void source(unsigned s, const int primary[4], const int prev[4], const int buf[4], const int konst[4],
                   int out[4])
{
    for (int i = 0; i < 4; i++) {
        switch (s) {
        case 0: out[i] = primary[i]; break;
        case 13: out[i] = buf[i]; break;
        case 14: out[i] = konst[i]; break;
        case 15: out[i] = prev[i]; break;
        default: out[i] = 0; break; /* lighting colours and textures: not emulated yet, 0 */
        }
    }
}

static void rgb_operand(unsigned op, const int c[4], int out[3])
{
    int v[3];
    switch (op >> 1) {
    case 0: v[0] = c[0], v[1] = c[1], v[2] = c[2]; break; /* colour */
    case 1: v[0] = v[1] = v[2] = c[3]; break;             /* alpha */
    case 2: v[0] = v[1] = v[2] = c[0]; break;             /* red */
    case 4: v[0] = v[1] = v[2] = c[1]; break;             /* green */
    case 6: v[0] = v[1] = v[2] = c[2]; break;             /* blue */
    default: v[0] = v[1] = v[2] = 0; op &= ~1u; break;    /* unknown */
    }
    for (int i = 0; i < 3; i++)
        out[i] = (op & 1) ? 255 - v[i] : v[i];
}

static int alpha_operand(unsigned op, const int c[4])
{
    static const int comp[4] = {3, 0, 1, 2};
    int v = c[comp[op >> 1]];
    return (op & 1) ? 255 - v : v;
}

static int combine(unsigned mode, int a, int b, int c)
{
    switch (mode) {
    case 0: return a;
    case 1: return a * b / 255;
    case 2: return a + b > 255 ? 255 : a + b;
    case 3: return clamp255(a + b - 128);
    case 4: return (a * c + b * (255 - c)) / 255;
    case 5: return a - b < 0 ? 0 : a - b;
    case 8: return clamp255((a * b + 255 * c) / 255);
    case 9: return (a + b > 255 ? 255 : a + b) * c / 255;
    default: return 0;
    }
}

bool ref_tev(const uint32_t *regs, const uint8_t primary_in[4], uint8_t out[4])
{
    int primary[4], prev[4] = {0, 0, 0, 0}, buf[4] = {0, 0, 0, 0}, next_buf[4];
    for (int i = 0; i < 4; i++)
        primary[i] = primary_in[i];
    bytes_of(regs[0x0FD], next_buf); /* TEXENV_BUFFER_COLOR */
    uint32_t update = regs[0x0E0];
    for (unsigned n = 0; n < 6; n++) {
        const uint32_t *t = regs + stage_reg[n];
        int konst[4];
        bytes_of(t[3], konst);
        int rgb_in[3][3], a_in[3];
        for (unsigned i = 0; i < 3; i++) {
            unsigned rs = (t[0] >> (4 * i)) & 0xF, as = (t[0] >> (16 + 4 * i)) & 0xF;
            if (n == 0 && rs == 15 && i < 2) /* stage 0: previous in colour sources 1, 2 reads source 3 */
                rs = ((t[0] >> 8) & 0xF) == 15 ? 0xFF : (t[0] >> 8) & 0xF;
            int c[4];
            source(rs, primary, prev, buf, konst, c);
            rgb_operand((t[1] >> (4 * i)) & 0xF, c, rgb_in[i]);
            source(as, primary, prev, buf, konst, c);
            a_in[i] = alpha_operand((t[1] >> (12 + 4 * i)) & 7, c);
        }
        unsigned rgb_mode = t[2] & 0xF, a_mode = (t[2] >> 16) & 0xF;
        int res[4];
        if (rgb_mode == 6 || rgb_mode == 7) {
            int d = 0;
            for (int i = 0; i < 3; i++)
                d += ((rgb_in[0][i] * 2 - 255) * (rgb_in[1][i] * 2 - 255) + 128) / 256;
            res[0] = res[1] = res[2] = clamp255(d);
        } else {
            for (int i = 0; i < 3; i++)
                res[i] = combine(rgb_mode, rgb_in[0][i], rgb_in[1][i], rgb_in[2][i]);
        }
        res[3] = rgb_mode == 7 ? res[0] : combine(a_mode, a_in[0], a_in[1], a_in[2]);
        unsigned rsc = t[4] & 3, asc = (t[4] >> 16) & 3;
        int rmul = rsc == 1 ? 2 : rsc == 2 ? 4 : 1, amul = asc == 1 ? 2 : asc == 2 ? 4 : 1;
        for (int i = 0; i < 3; i++)
            prev[i] = clamp255(res[i] * rmul);
        prev[3] = clamp255(res[3] * amul);
        for (int i = 0; i < 4; i++)
            buf[i] = next_buf[i];
        if (n < 4 && (update >> (8 + n) & 1))
            next_buf[0] = prev[0], next_buf[1] = prev[1], next_buf[2] = prev[2];
        if (n < 4 && (update >> (12 + n) & 1))
            next_buf[3] = prev[3];
    }
    for (int i = 0; i < 4; i++)
        out[i] = (uint8_t)prev[i];
    uint32_t at = regs[0x104];
    if (!(at & 1))
        return true;
    int ref = (int)((at >> 8) & 0xFF), a = prev[3];
    switch ((at >> 4) & 7) {
    case 0: return false;
    case 1: return true;
    case 2: return a == ref;
    case 3: return a != ref;
    case 4: return a < ref;
    case 5: return a <= ref;
    case 6: return a > ref;
    default: return a >= ref;
    }
}

static int factor(unsigned f, int ch, const int s[4], const int d[4], const int k[4])
{
    switch (f) {
    case 0: return 0;
    case 1: return 255;
    case 2: return s[ch];
    case 3: return 255 - s[ch];
    case 4: return d[ch];
    case 5: return 255 - d[ch];
    case 6: return s[3];
    case 7: return 255 - s[3];
    case 8: return d[3];
    case 9: return 255 - d[3];
    case 10: return k[ch];
    case 11: return 255 - k[ch];
    case 12: return k[3];
    case 13: return 255 - k[3];
    case 14: return ch == 3 ? 255 : (s[3] < 255 - d[3] ? s[3] : 255 - d[3]);
    default: return 255;
    }
}

static unsigned logic(unsigned op, unsigned s, unsigned d)
{
    switch (op) {
    case 0: return 0;
    case 1: return s & d;
    case 2: return s & ~d;
    case 3: return s;
    case 4: return 0xFF;
    case 5: return ~s;
    case 6: return d;
    case 7: return ~d;
    case 8: return ~(s & d);
    case 9: return s | d;
    case 10: return ~(s | d);
    case 11: return s ^ d;
    case 12: return ~(s ^ d);
    case 13: return ~s & d;
    case 14: return s | ~d;
    default: return ~s | d;
    }
}

void ref_merge(const uint32_t *regs, const uint8_t src[4], const uint8_t dst[4], uint8_t out[4])
{
    int s[4], d[4], k[4], res[4];
    for (int i = 0; i < 4; i++)
        s[i] = src[i], d[i] = dst[i];
    bytes_of(regs[0x103], k); /* BLEND_COLOR */
    if ((regs[0x100] >> 8) & 1) { /* blend */
        uint32_t bf = regs[0x101];
        for (int ch = 0; ch < 4; ch++) {
            unsigned eq = ch < 3 ? bf & 7 : (bf >> 8) & 7;
            unsigned sf = ch < 3 ? (bf >> 16) & 0xF : (bf >> 24) & 0xF;
            unsigned df = ch < 3 ? (bf >> 20) & 0xF : (bf >> 28) & 0xF;
            int a = s[ch] * factor(sf, ch, s, d, k), b = d[ch] * factor(df, ch, s, d, k);
            switch (eq) {
            case 1: res[ch] = clamp255((a - b) / 255); break;
            case 2: res[ch] = clamp255((b - a) / 255); break;
            case 3: res[ch] = s[ch] < d[ch] ? s[ch] : d[ch]; break; /* Vulkan's min/max: no factors */
            case 4: res[ch] = s[ch] > d[ch] ? s[ch] : d[ch]; break;
            default: res[ch] = clamp255((a + b) / 255); break;
            }
        }
    } else {
        for (int ch = 0; ch < 4; ch++)
            res[ch] = (int)(logic(regs[0x102] & 0xF, (unsigned)s[ch], (unsigned)d[ch]) & 0xFF);
    }
    unsigned mask = (regs[0x107] >> 8) & 0xF; /* DEPTH_COLOR_MASK R G B A */
    for (int ch = 0; ch < 4; ch++)
        out[ch] = (uint8_t)((mask >> ch & 1) ? res[ch] : d[ch]);
}

bool ref_compare(unsigned func, unsigned a, unsigned b)
{
    switch (func & 7) {
    case 0: return false;
    case 1: return true;
    case 2: return a == b;
    case 3: return a != b;
    case 4: return a < b;
    case 5: return a <= b;
    case 6: return a > b;
    default: return a >= b;
    }
}

/* Register ids (seed 000): STENCIL_TEST 0x105, STENCIL_OP 0x106,
 * DEPTHBUFFER_WRITE 0x115, DEPTHBUFFER_FORMAT 0x116. */
static bool stencil_on(const uint32_t *regs)
{
    return (regs[0x105] & 1) && (regs[0x116] & 3) == 3;
}

bool ref_stencil_test(const uint32_t *regs, uint8_t stored)
{
    if (!stencil_on(regs))
        return true;
    uint32_t t = regs[0x105];
    unsigned func = (t >> 4) & 7, ref = (t >> 16) & 0xFF, mask = t >> 24;
    return ref_compare(func, ref & mask, stored & mask);
}

uint8_t ref_stencil_update(const uint32_t *regs, uint8_t stored, bool stencil_pass, bool depth_pass)
{
    if (!stencil_on(regs))
        return stored;
    uint32_t t = regs[0x105], o = regs[0x106];
    unsigned op = !stencil_pass ? o & 7 : !depth_pass ? (o >> 4) & 7 : (o >> 8) & 7;
    unsigned ref = (t >> 16) & 0xFF, s = stored, v;
    switch (op) {
    case 0: v = s; break;                      /* keep */
    case 1: v = 0; break;                      /* zero */
    case 2: v = ref; break;                    /* replace */
    case 3: v = s == 255 ? 255 : s + 1; break; /* increment, saturating */
    case 4: v = s == 0 ? 0 : s - 1; break;     /* decrement, saturating */
    case 5: v = ~s & 0xFF; break;              /* invert */
    case 6: v = (s + 1) & 0xFF; break;         /* increment, wrapping */
    default: v = (s - 1) & 0xFF; break;        /* decrement, wrapping */
    }
    unsigned wmask = (regs[0x115] & 1) ? (t >> 8) & 0xFF : 0;
    return (uint8_t)((v & wmask) | (s & ~wmask));
}
