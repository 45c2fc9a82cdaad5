#version 450
// Anime4K as Citra and Azahar run it with their resolution scale N
// (vram/filter.c): three passes over a texture decoded from guest memory.
// PASS 0: a horizontal luma gradient and a smoothed luma on a 2x grid, from
// bilinear samples of the texture one texel apart; PASS 1: a gradient
// magnitude on that grid (1 - |G|: flat is 1); PASS 2: at Nx, each pixel's
// bilinear colour, pushed 60% toward the mean of three neighbours on the
// flatter side when the gradient there is strong (below 0.4) and one of
// eight directional tests holds.  Bilinear sampling is done here from
// texelFetch (the CPU reference does the same arithmetic); the grid is
// 32-bit float (Azahar's is 16-bit).
layout(local_size_x = 8, local_size_y = 8) in;
layout(constant_id = 0) const int PASS = 0;
layout(binding = 0) uniform sampler2D src;  // the texture (1x)
layout(binding = 1) uniform sampler2D grid; // the 2x grid the pass reads
layout(binding = 2, rgba32f) uniform writeonly image2D grid_out;
layout(binding = 3, rgba8) uniform writeonly image2D dst;
layout(push_constant) uniform Push {
    ivec2 size; // the texture's size
    int scale;
} p;

vec4 s_at(ivec2 c)
{
    return texelFetch(src, clamp(c, ivec2(0), p.size - 1), 0);
}

vec4 g_at(ivec2 c)
{
    return texelFetch(grid, clamp(c, ivec2(0), p.size * 2 - 1), 0);
}

// bilinear at `t` in texel units (texel centres at +0.5), edges clamped
vec4 s_bilinear(vec2 t)
{
    vec2 x = t - 0.5;
    ivec2 i = ivec2(floor(x));
    vec2 f = x - vec2(i);
    return mix(mix(s_at(i), s_at(i + ivec2(1, 0)), f.x), mix(s_at(i + ivec2(0, 1)), s_at(i + ivec2(1, 1)), f.x), f.y);
}

float g_bilinear(vec2 t)
{
    vec2 x = t - 0.5;
    ivec2 i = ivec2(floor(x));
    vec2 f = x - vec2(i);
    return mix(mix(g_at(i).x, g_at(i + ivec2(1, 0)).x, f.x), mix(g_at(i + ivec2(0, 1)).x, g_at(i + ivec2(1, 1)).x, f.x),
               f.y);
}

float luma(vec4 c)
{
    return c.r * 0.2627 + c.g * 0.6780 + c.b * 0.0593;
}

// the eight tests: 3 "light" taps, 3 "dark" taps, whether the light ones must also exceed the centre
const ivec2 LIGHT[24] = ivec2[](ivec2(-1, -1), ivec2(0, -1), ivec2(1, -1), ivec2(-1, 1), ivec2(0, 1), ivec2(1, 1),
                                ivec2(1, 0), ivec2(0, -1), ivec2(1, -1), ivec2(-1, 1), ivec2(-1, 0), ivec2(0, 1),
                                ivec2(1, 0), ivec2(1, 1), ivec2(1, -1), ivec2(-1, 0), ivec2(-1, -1), ivec2(-1, 1),
                                ivec2(1, 0), ivec2(1, 1), ivec2(0, 1), ivec2(0, -1), ivec2(-1, 0), ivec2(-1, -1));
const ivec2 DARK[24] = ivec2[](ivec2(-1, 1), ivec2(0, 1), ivec2(1, 1), ivec2(-1, -1), ivec2(0, -1), ivec2(1, -1),
                               ivec2(0, 0), ivec2(-1, 0), ivec2(0, 1), ivec2(0, 0), ivec2(1, 0), ivec2(0, -1),
                               ivec2(-1, 0), ivec2(-1, -1), ivec2(-1, 1), ivec2(1, 0), ivec2(1, 1), ivec2(1, -1),
                               ivec2(0, 0), ivec2(-1, 0), ivec2(0, -1), ivec2(0, 0), ivec2(1, 0), ivec2(0, 1));
const bool ABOVE[8] = bool[](true, true, false, false, true, true, false, false);

void main()
{
    ivec2 o = ivec2(gl_GlobalInvocationID.xy);
    if (PASS == 0) {
        if (any(greaterThanEqual(o, p.size * 2)))
            return;
        vec2 t = (vec2(o) + 0.5) / 2.0;
        float lm = luma(s_bilinear(t - vec2(1, 0))), l0 = luma(s_bilinear(t)), lp = luma(s_bilinear(t + vec2(1, 0)));
        imageStore(grid_out, o, vec4(lp - lm, lm + 2.0 * l0 + lp, 0.0, 0.0));
    } else if (PASS == 1) {
        if (any(greaterThanEqual(o, p.size * 2)))
            return;
        vec2 a = g_at(o - ivec2(0, 1)).xy, b = g_at(o).xy, c = g_at(o + ivec2(0, 1)).xy;
        float gx = c.x + 2.0 * b.x + a.x, gy = a.y - c.y;
        imageStore(grid_out, o, vec4(1.0 - sqrt(gx * gx + gy * gy), 0.0, 0.0, 0.0));
    } else {
        if (any(greaterThanEqual(o, p.size * p.scale)))
            return;
        vec2 t = (vec2(o) + 0.5) / float(p.scale), q = 2.0 * t;
        vec4 c0 = s_bilinear(t);
        float lc = g_bilinear(q);
        vec4 outc = c0;
        if (!(lc > 0.4)) {
            for (int k = 0; k < 8; k++) {
                float lmin = 1e30, dmax = -1e30;
                vec4 sum = vec4(0.0);
                for (int n = 0; n < 3; n++) {
                    ivec2 l = LIGHT[k * 3 + n], d = DARK[k * 3 + n];
                    lmin = min(lmin, g_bilinear(q + vec2(l)));
                    dmax = max(dmax, g_bilinear(q + vec2(d)));
                    sum += s_bilinear(t + vec2(l));
                }
                if (lmin > dmax && (!ABOVE[k] || lmin > lc)) {
                    outc = c0 * (1.0 - 0.6) + (sum / 3.0) * 0.6;
                    break;
                }
            }
        }
        imageStore(dst, o, outc);
    }
}
