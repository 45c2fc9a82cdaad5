// Until the fragment pipeline exists, a fragment is the interpolated primary
// colour.  The colour attachment holds guest RGBA8 bytes in memory order
// (A, B, G, R), so the channels are written reversed.
//
// Depth (Citra's rasterizer, FACTS.md "Output merger"): d = z/w * scale +
// offset, times w in W-buffer mode, clamped to [0, 1] and truncated to the
// buffer's bits.  The integer q goes to the D32_SFLOAT attachment as
// q * 2^-24, exact in float32, so the Vulkan depth test compares integers.
#version 460
layout(location = 0) in vec4 color;
layout(location = 1) noperspective in float z_over_w;
layout(location = 2) in float clip_w;
layout(location = 0) out vec4 out_color;
layout(push_constant) uniform Push {
    layout(offset = 32) ivec4 exclude; // scissor "exclude" rectangle in attachment pixels: x0, y0, x1, y1 (inclusive); x1 < x0 = none
    float depth_scale, depth_offset;   // DEPTHMAP_SCALE / _OFFSET
    float depth_max;                   // 2^bits - 1
    uint w_buffer;                     // DEPTHMAP_ENABLE bit 0 clear
};
void main()
{
    ivec2 p = ivec2(gl_FragCoord.xy);
    if (exclude.z >= exclude.x && p.x >= exclude.x && p.x <= exclude.z && p.y >= exclude.y && p.y <= exclude.w)
        discard;
    out_color = clamp(color, 0.0, 1.0).abgr;
    float d = z_over_w * depth_scale + depth_offset;
    if (w_buffer != 0u)
        d *= clip_w;
    uint q = uint(clamp(d, 0.0, 1.0) * depth_max);
    gl_FragDepth = float(q) * (1.0 / 16777216.0);
}
