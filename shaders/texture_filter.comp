#version 450
// Texture filters at resolution scale N (vram/filter.c): a texture decoded
// from guest memory, read through its view (the unit's RGBA), written N
// times larger into level 0 of an RGBA8 image.  FILTER 0: bicubic
// convolution (Keys 1981, a = -0.5, "Catmull-Rom"), the 4x4 texels around
// each output pixel's centre mapped back to the source, edges clamped.
// FILTER 1: MMPX (McGuire and Gagiu 2021), 2x: each source texel becomes
// 2x2 copies of itself or a neighbour by rules on exact RGBA equality and
// an integer luma, applied in the published order (one invocation per source
// texel; scale is 2).
// FILTER 3: ScaleForce as Citra and Azahar run it, N x in one pass: the
// bilinear colour and its 8 neighbours one texel away; each neighbour's
// weight from its red difference (what the emulators' colour distance
// reduces to: 0.6 x red) and alpha; the sample point moved away from the
// dissimilar side by the weighted mean direction (each axis clamped to its
// length) and read there with a cubic B-spline through four bilinear taps
// (the emulators' truncating split of the coordinate kept); no weight at
// all: the bilinear colour.  Bilinear sampling is done here from texelFetch.
// FILTER 4: xBRZ "freescale" as Citra and Azahar run it, N x in one pass:
// for each corner of the output pixel's source texel, whether an edge runs
// across it (ITU-R BT.2020 YCbCr distances of the 4x4 texels around the
// corner, weighed along both diagonals), then for each corner that blends,
// the line's slope (normal, shallow, steep) from the distances around it and
// the texel's colour mixed toward the nearer of its two neighbours by a
// smoothstep of the output point's signed distance from the line (in output
// pixels); one invocation per source texel writes its N x N pixels.  The four corners are one rule turned by quarter turns; the
// distances are kept from contraction so ties fall the same way everywhere.
layout(local_size_x = 8, local_size_y = 8) in;
layout(constant_id = 0) const int FILTER = 0;
layout(binding = 0) uniform sampler2D src;
layout(binding = 1, rgba8) uniform writeonly image2D dst;
layout(push_constant) uniform Push {
    ivec2 size; // the source level's size
    int scale;
} p;

float keys(float x)
{
    x = abs(x);
    return x < 1.0 ? (1.5 * x - 2.5) * x * x + 1.0 : x < 2.0 ? ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0 : 0.0;
}

vec4 texel(ivec2 c)
{
    return texelFetch(src, clamp(c, ivec2(0), p.size - 1), 0);
}

// ---- MMPX ----
uint px(ivec2 c)
{
    return packUnorm4x8(texelFetch(src, clamp(c, ivec2(0), p.size - 1), 0));
}

uint luma(uint c) // (r + g + b + 1) * (256 - a): brighter ranks higher, more transparent too
{
    return ((c & 0xFFu) + ((c >> 8) & 0xFFu) + ((c >> 16) & 0xFFu) + 1u) * (256u - (c >> 24));
}

bool eq2(uint x, uint a, uint b) { return x == a && x == b; }
bool eq3(uint x, uint a, uint b, uint c) { return x == a && x == b && x == c; }
bool eq4(uint x, uint a, uint b, uint c, uint d) { return x == a && x == b && x == c && x == d; }
bool any3(uint x, uint a, uint b, uint c) { return x == a || x == b || x == c; }
bool none2(uint x, uint a, uint b) { return x != a && x != b; }
bool none4(uint x, uint a, uint b, uint c, uint d) { return x != a && x != b && x != c && x != d; }

void mmpx()
{
    ivec2 c = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(c, p.size)))
        return;
    uint A = px(c + ivec2(-1, -1)), B = px(c + ivec2(0, -1)), C = px(c + ivec2(1, -1));
    uint D = px(c + ivec2(-1, 0)), E = px(c), F = px(c + ivec2(1, 0));
    uint G = px(c + ivec2(-1, 1)), H = px(c + ivec2(0, 1)), I = px(c + ivec2(1, 1));
    uint P = px(c + ivec2(0, -2)), Q = px(c + ivec2(-2, 0)), R = px(c + ivec2(2, 0)), S = px(c + ivec2(0, 2));
    uint J = E, K = E, L = E, M = E; // top-left, top-right, bottom-left, bottom-right
    if (!(eq4(E, A, B, C, D) && eq4(E, F, G, H, I))) {
        uint Bl = luma(B), Dl = luma(D), El = luma(E), Fl = luma(F), Hl = luma(H);
        // 1:1 slopes
        if (D == B && D != H && D != F && (El >= Dl || E == A) && any3(E, A, C, G) &&
            (El < Dl || A != D || E != P || E != Q))
            J = D;
        if (B == F && B != D && B != H && (El >= Bl || E == C) && any3(E, A, C, I) &&
            (El < Bl || C != B || E != P || E != R))
            K = B;
        if (H == D && H != F && H != B && (El >= Hl || E == G) && any3(E, A, G, I) &&
            (El < Hl || G != H || E != S || E != Q))
            L = H;
        if (F == H && F != B && F != D && (El >= Fl || E == I) && any3(E, C, G, I) &&
            (El < Fl || I != H || E != R || E != S))
            M = F;
        // lines meeting
        if (E != F && eq4(E, C, I, D, Q) && eq2(F, B, H) && F != px(c + ivec2(3, 0)))
            K = M = F;
        if (E != D && eq4(E, A, G, F, R) && eq2(D, B, H) && D != px(c + ivec2(-3, 0)))
            J = L = D;
        if (E != H && eq4(E, G, I, B, P) && eq2(H, D, F) && H != px(c + ivec2(0, 3)))
            L = M = H;
        if (E != B && eq4(E, A, C, H, S) && eq2(B, D, F) && B != px(c + ivec2(0, -3)))
            J = K = B;
        // tips of bright triangles
        if (Bl < El && eq4(E, G, H, I, S) && none4(E, A, D, C, F))
            J = K = B;
        if (Hl < El && eq4(E, A, B, C, P) && none4(E, D, G, I, F))
            L = M = H;
        if (Fl < El && eq4(E, A, D, G, Q) && none4(E, B, C, I, H))
            K = M = F;
        if (Dl < El && eq4(E, C, F, I, R) && none4(E, B, A, G, H))
            J = L = D;
        // 2:1 and 1:2 slopes, in order, each reading the outputs as they stand
        if (H != B) {
            if (H != A && H != E && H != C) {
                if (eq3(H, G, F, R) && none2(H, D, px(c + ivec2(2, -1))))
                    L = M;
                if (eq3(H, I, D, Q) && none2(H, F, px(c + ivec2(-2, -1))))
                    M = L;
            }
            if (B != I && B != G && B != E) {
                if (eq3(B, A, F, R) && none2(B, D, px(c + ivec2(2, 1))))
                    J = K;
                if (eq3(B, C, D, Q) && none2(B, F, px(c + ivec2(-2, 1))))
                    K = J;
            }
        }
        if (F != D) {
            if (D != I && D != E && D != C) {
                if (eq3(D, A, H, S) && none2(D, B, px(c + ivec2(1, 2))))
                    J = L;
                if (eq3(D, G, B, P) && none2(D, H, px(c + ivec2(1, -2))))
                    L = J;
            }
            if (F != E && F != A && F != G) {
                if (eq3(F, C, H, S) && none2(F, B, px(c + ivec2(-1, 2))))
                    K = M;
                if (eq3(F, I, B, P) && none2(F, H, px(c + ivec2(-1, -2))))
                    M = K;
            }
        }
    }
    ivec2 o = c * 2;
    imageStore(dst, o, unpackUnorm4x8(J));
    imageStore(dst, o + ivec2(1, 0), unpackUnorm4x8(K));
    imageStore(dst, o + ivec2(0, 1), unpackUnorm4x8(L));
    imageStore(dst, o + ivec2(1, 1), unpackUnorm4x8(M));
}

// ---- ScaleForce ----
vec4 bil(vec2 t) // t in texel units (centres at +0.5), edges clamped, p + f * (q - p)
{
    vec2 x = t - 0.5;
    ivec2 i = ivec2(floor(x));
    vec2 f = x - vec2(i);
    vec4 a = texel(i), b = texel(i + ivec2(1, 0)), c = texel(i + ivec2(0, 1)), d = texel(i + ivec2(1, 1));
    vec4 top = a + f.x * (b - a), bot = c + f.x * (d - c);
    return top + f.y * (bot - top);
}

// the two tap positions and the first tap's share along one axis, q = coordinate - 0.5
vec3 bspline_taps(float q)
{
    float i = trunc(q), f = q - i; // as the emulators split it: toward zero
    float w0 = (1.0 - f) * (1.0 - f) * (1.0 - f) / 6.0, w1 = (3.0 * f * f * f - 6.0 * f * f + 4.0) / 6.0;
    float w2 = (-3.0 * f * f * f + 3.0 * f * f + 3.0 * f + 1.0) / 6.0, w3 = f * f * f / 6.0;
    float g0 = w0 + w1, g1 = w2 + w3;
    return vec3(i - 0.5 + w1 / g0, i + 1.5 + w3 / g1, g0 / (g0 + g1));
}

vec4 scaleforce(vec2 t)
{
    vec4 c = bil(t);
    float sum = 0.0;
    vec2 dir = vec2(0.0);
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            if (dx == 0 && dy == 0)
                continue;
            vec4 n = bil(t + vec2(dx, dy));
            float e = 0.6 * (n.r - c.r);
            float w = sqrt((e * e + abs(c.a - n.a)) * n.a * c.a);
            sum += w;
            dir += w * vec2(dx, dy);
        }
    if (sum == 0.0)
        return c;
    float l = length(dir) / sum;
    vec2 s = t - clamp(dir, -l, l);
    vec3 tx = bspline_taps(s.x - 0.5), ty = bspline_taps(s.y - 0.5);
    vec4 top = tx.z * bil(vec2(tx.x, ty.x)) + (1.0 - tx.z) * bil(vec2(tx.y, ty.x));
    vec4 bot = tx.z * bil(vec2(tx.x, ty.y)) + (1.0 - tx.z) * bil(vec2(tx.y, ty.y));
    return ty.z * top + (1.0 - ty.z) * bot;
}

// ---- xBRZ (freescale) ----
const int XB_NONE = 0, XB_NORMAL = 1, XB_DOMINANT = 2;

ivec2 turn(int k, ivec2 v) // k quarter turns, (x, y) -> (-y, x) each: corner 0 bottom-right, 1 bottom-left, 2 top-left, 3 top-right
{
    for (int i = 0; i < k; i++)
        v = ivec2(-v.y, v.x);
    return v;
}

vec2 turnf(int k, vec2 v)
{
    for (int i = 0; i < k; i++)
        v = vec2(-v.y, v.x);
    return v;
}

float xdist(vec4 a, vec4 b) // the BT.2020 YCbCr distance of the colours, weighted by both alphas, and the alpha difference
{
    precise vec4 d = a - b;
    precise float y = 0.2627 * d.r + 0.6780 * d.g + 0.0593 * d.b;
    precise float cb = -0.139630063 * d.r + -0.360369937 * d.g + 0.5 * d.b;
    precise float cr = 0.5 * d.r + -0.459785705 * d.g + -0.0402142954 * d.b;
    precise float l = sqrt(y * y + cb * cb + cr * cr);
    precise float r = sqrt(a.a * b.a * l * l + d.a * d.a);
    return r;
}

bool xsame(vec4 a, vec4 b) { return xdist(a, b) < 30.0 / 255.0; }

vec4 xpx(ivec2 c, int k, int dx, int dy) { return texel(c + turn(k, ivec2(dx, dy))); }

// Does an edge cross corner k of texel c (in the corner's frame: E the
// texel, F right, H below, I diagonal)?
int xbrz_corner(ivec2 c, int k)
{
    vec4 E = xpx(c, k, 0, 0), F = xpx(c, k, 1, 0), H = xpx(c, k, 0, 1), I = xpx(c, k, 1, 1);
    if ((E == F && H == I) || (E == H && F == I))
        return XB_NONE;
    vec4 B = xpx(c, k, 0, -1), C = xpx(c, k, 1, -1), D = xpx(c, k, -1, 0), G = xpx(c, k, -1, 1);
    precise float hf = xdist(G, E) + xdist(E, C) + xdist(xpx(c, k, 0, 2), I) + xdist(I, xpx(c, k, 2, 0)) +
                       4.0 * xdist(H, F);
    precise float ei = xdist(D, H) + xdist(H, xpx(c, k, 1, 2)) + xdist(B, F) + xdist(F, xpx(c, k, 2, 1)) +
                       4.0 * xdist(E, I);
    if (!(hf < ei) || E == F || E == H)
        return XB_NONE;
    return 3.6 * hf < ei ? XB_DOMINANT : XB_NORMAL;
}

float xbrz_side(vec2 pos, vec2 origin, vec2 dir) // smoothstep of the signed distance (output pixels) from the line
{
    vec2 p0 = pos - origin;
    vec2 off = p0 - dir * (dot(p0, dir) / dot(dir, dir));
    float v = sign(dot(p0, vec2(-dir.y, dir.x))) * length(off * float(p.scale));
    return smoothstep(-0.70710678, 0.70710678, v);
}

// One source texel c: its corners decided and each blending corner's line
// and colour worked out once, then its N x N output pixels.
void xbrz(ivec2 c)
{
    int r[4];
    for (int k = 0; k < 4; k++)
        r[k] = xbrz_corner(c, k);
    vec2 origins[4], dirs[4];
    vec4 colours[4];
    bool on[4];
    const int order[4] = int[4](0, 1, 3, 2); // bottom-right, bottom-left, top-right, top-left
    for (int n = 0; n < 4; n++) {
        int k = order[n];
        on[n] = r[k] != XB_NONE;
        if (!on[n])
            continue;
        vec4 E = xpx(c, k, 0, 0), F = xpx(c, k, 1, 0), H = xpx(c, k, 0, 1), I = xpx(c, k, 1, 1);
        vec4 B = xpx(c, k, 0, -1), C = xpx(c, k, 1, -1), D = xpx(c, k, -1, 0), G = xpx(c, k, -1, 1);
        float fg = xdist(F, G), hc = xdist(H, C);
        bool line = r[k] == XB_DOMINANT ||
                    !((r[(k + 3) & 3] != XB_NONE && !xsame(E, G)) || (r[(k + 1) & 3] != XB_NONE && !xsame(E, C)) ||
                      (xsame(G, H) && xsame(H, I) && xsame(I, F) && xsame(F, C) && !xsame(E, I)));
        vec2 origin = vec2(0.0, 0.70710678), dir = vec2(1.0, -1.0);
        if (line) {
            bool shallow = 2.2 * fg <= hc && E != G && D != G;
            bool steep = 2.2 * hc <= fg && E != C && B != C;
            origin = vec2(0.0, shallow ? 0.25 : 0.5);
            dir += vec2(shallow ? 1.0 : 0.0, steep ? -1.0 : 0.0);
        }
        colours[n] = xdist(E, H) >= xdist(E, F) ? F : H;
        origins[n] = turnf(k, origin);
        dirs[n] = turnf(k, dir);
    }
    vec4 E = texel(c);
    for (int sy = 0; sy < p.scale; sy++)
        for (int sx = 0; sx < p.scale; sx++) {
            vec2 pos = (vec2(sx, sy) + 0.5) / float(p.scale) - 0.5;
            vec4 res = E;
            for (int n = 0; n < 4; n++)
                if (on[n])
                    res = mix(res, colours[n], xbrz_side(pos, origins[n], dirs[n]));
            imageStore(dst, c * p.scale + ivec2(sx, sy), clamp(res, 0.0, 1.0));
        }
}

void main()
{
    if (FILTER == 4) {
        ivec2 c = ivec2(gl_GlobalInvocationID.xy);
        if (all(lessThan(c, p.size)))
            xbrz(c);
        return;
    }
    if (FILTER == 1) {
        mmpx();
        return;
    }
    if (FILTER == 3) {
        ivec2 o = ivec2(gl_GlobalInvocationID.xy);
        if (all(lessThan(o, p.size * p.scale)))
            imageStore(dst, o, clamp(scaleforce((vec2(o) + 0.5) / float(p.scale)), 0.0, 1.0));
        return;
    }
    ivec2 o = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(o, p.size * p.scale)))
        return;
    vec2 s = (vec2(o) + 0.5) / float(p.scale) - 0.5;
    ivec2 b = ivec2(floor(s));
    vec2 f = s - vec2(b);
    vec4 acc = vec4(0.0);
    for (int j = -1; j <= 2; j++) {
        float wy = keys(float(j) - f.y);
        for (int i = -1; i <= 2; i++)
            acc += keys(float(i) - f.x) * wy * texel(b + ivec2(i, j));
    }
    imageStore(dst, o, clamp(acc, 0.0, 1.0));
}
