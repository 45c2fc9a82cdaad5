// Until the fragment pipeline exists, a fragment is the interpolated primary
// colour.  The colour attachment holds guest RGBA8 bytes in memory order
// (A, B, G, R), so the channels are written reversed.
#version 460
layout(location = 0) in vec4 color;
layout(location = 0) out vec4 out_color;
layout(push_constant) uniform Push {
    layout(offset = 32) ivec4 exclude; // scissor "exclude" rectangle in attachment pixels: x0, y0, x1, y1 (inclusive); x1 < x0 = none
};
void main()
{
    ivec2 p = ivec2(gl_FragCoord.xy);
    if (exclude.z >= exclude.x && p.x >= exclude.x && p.x <= exclude.z && p.y >= exclude.y && p.y <= exclude.w)
        discard;
    out_color = clamp(color, 0.0, 1.0).abgr;
}
