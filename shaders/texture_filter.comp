#version 450
// Texture filters at resolution scale N (vram/filter.c): a texture decoded
// from guest memory, read through its view (the unit's RGBA), written N
// times larger into level 0 of an RGBA8 image.  FILTER 0: bicubic
// convolution (Keys 1981, a = -0.5, "Catmull-Rom"), the 4x4 texels around
// each output pixel's centre mapped back to the source, edges clamped.
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

void main()
{
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
