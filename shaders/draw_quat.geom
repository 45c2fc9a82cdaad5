// Fragment lighting's shorter-arc rule for draws whose vertex program runs
// on the GPU: a normal quaternion q and -q are one rotation, and the
// rasterizer interpolates each triangle's quaternions linearly, so the
// corners are taken on the side of the triangle's first corner, as
// runtime/draw.c does on the CPU path (pvk_draw_submit): a corner whose dot
// product with the first corner's quaternion is below 0 is negated.  The
// same products summed in the same order without fused multiply-adds
// (precise), so every flip is the CPU path's.
//
// Every such draw is a triangle list whose vertices come in the CPU path's
// order (strips and fans too: translator/vertex.c hands the runtime the
// list pvk_assemble_triangles makes), so the first input vertex is the CPU
// path's first corner, and the vertices are emitted in input order.
#version 460
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;

in gl_PerVertex { // as the vertex stages declare it implicitly (every member)
    vec4 gl_Position;
    float gl_PointSize;
    float gl_ClipDistance[1];
    float gl_CullDistance[1];
} gl_in[];
out gl_PerVertex {
    vec4 gl_Position;
    float gl_ClipDistance[1];
};
layout(location = 0) in vec4 in_color[];
layout(location = 2) in float in_clip_w[];
layout(location = 3) in vec4 in_tc01[];
layout(location = 4) in vec3 in_tc2w[];
layout(location = 5) in vec4 in_quat[];
layout(location = 6) in vec3 in_view[];
layout(location = 0) out vec4 color;
layout(location = 2) out float clip_w;
layout(location = 3) out vec4 tc01;
layout(location = 4) out vec3 tc2w;
layout(location = 5) out vec4 quat;
layout(location = 6) out vec3 view;

void main()
{
    vec4 a = in_quat[0];
    for (int i = 0; i < 3; i++) {
        vec4 b = in_quat[i];
        precise float d = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
        if (i != 0 && d < 0.0)
            b = -b;
        gl_Position = gl_in[i].gl_Position;
        gl_ClipDistance[0] = gl_in[i].gl_ClipDistance[0];
        color = in_color[i];
        clip_w = in_clip_w[i];
        tc01 = in_tc01[i];
        tc2w = in_tc2w[i];
        quat = b;
        view = in_view[i];
        EmitVertex();
    }
    EndPrimitive();
}
