// Pass-through vertex shader for vertices the CPU shader stage transformed.
// PICA clip space keeps -w <= z <= 0 visible; Vulkan keeps 0 <= z <= w, so z
// is negated.  x and y pass as they are (the viewport flips y).
#version 460
layout(location = 0) in vec4 in_pos;
layout(location = 1) in vec4 in_color;
layout(location = 0) out vec4 color;
void main()
{
    gl_Position = vec4(in_pos.x, in_pos.y, -in_pos.z, in_pos.w);
    color = in_color;
}
