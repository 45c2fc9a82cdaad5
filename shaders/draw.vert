// Pass-through vertex shader for vertices the CPU shader stage transformed.
// PICA clip space keeps -w <= z <= 0 visible; Vulkan keeps 0 <= z <= w, so z
// is negated for clipping.  x and y pass as they are (the viewport flips y).
// The user clip plane works on the PICA position.  The PICA depth is computed
// in the fragment shader from gl_FragCoord.z, which is -z/w of the clipped
// triangle (linear in screen space), and w (perspective correct, for the
// W-buffer).  Not from a z/w divided per vertex: a vertex at or behind the
// eye (w <= 0) has no meaningful z/w, and clipping cannot repair it.
//
// The inputs are translator.h's pvk_vertex as it is (runtime/pipeline.c's
// vertex layout); the outputs are the interface every fragment shader of
// translator/glsl_fs.c reads, and which a generated vertex shader must write
// the same way: locations 0 and 2-6 below, gl_Position, gl_ClipDistance[0].
#version 460
layout(location = 0) in vec4 in_pos;
layout(location = 1) in vec4 in_quat;
layout(location = 2) in vec4 in_color;
layout(location = 3) in vec4 in_tc01;    // texcoord 0 (s, t), texcoord 1 (s, t)
layout(location = 4) in vec3 in_tc2w;    // texcoord 2 (s, t), texcoord 0 w
layout(location = 5) in vec3 in_view;
layout(location = 0) out vec4 color;
layout(location = 2) out float clip_w;
layout(location = 3) out vec4 tc01;
layout(location = 4) out vec3 tc2w;
layout(location = 5) out vec4 quat;
layout(location = 6) out vec3 view;
layout(push_constant) uniform Push {
    vec4 clip_plane; // FRAGOP_CLIP_DATA0-3: kept where dot(plane, position) >= 0
    uint clip_enable;
};
out float gl_ClipDistance[1];
void main()
{
    gl_Position = vec4(in_pos.x, in_pos.y, -in_pos.z, in_pos.w);
    gl_ClipDistance[0] = clip_enable != 0u ? dot(clip_plane, in_pos) : 1.0;
    color = in_color;
    clip_w = in_pos.w;
    tc01 = in_tc01;
    tc2w = in_tc2w;
    quat = in_quat;
    view = in_view;
}
