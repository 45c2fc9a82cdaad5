// Texture copy (memcopy with flags bit 3): raw 16-byte chunks, the input and
// output each cut into lines of `width` chunks followed by `gap` skipped chunks.
#version 460
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dst { uvec4 dst[]; };
layout(push_constant) uniform Push {
    uint src_first, dst_first; // chunk index of the start inside each binding
    uint chunks;               // total chunks copied
    uint in_width, in_gap;     // in chunks; width >= 1
    uint out_width, out_gap;
};

void main()
{
    uint c = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * 65535u * 64u;
    if (c >= chunks) return;
    // Without gaps there is nothing to divide: CPU drivers run integer
    // division one lane at a time.
    uint s = in_gap == 0u ? c : (c / in_width) * (in_width + in_gap) + c % in_width;
    uint d = out_gap == 0u ? c : (c / out_width) * (out_width + out_gap) + c % out_width;
    dst[dst_first + d] = src[src_first + s];
}
