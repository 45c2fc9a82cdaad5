// Memory fill (PSC0/PSC1): one invocation writes one 16-byte chunk.  Start
// and end come from registers in 16-byte units, so chunks never straddle.
#version 460
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Dst { uvec4 dst[]; };
layout(push_constant) uniform Push {
    uint first_chunk; // chunk index of the fill start inside the binding
    uint chunks;      // number of 16-byte chunks
    uint value;       // GPU_MEMFILL_DATA
    uint width;       // 0 = 16-bit, 1 = 24-bit, 2 = 32-bit
};

// Byte `i` of the pattern, counting from the fill start.
uint pattern_byte(uint i)
{
    if (width == 0u) return (value >> (8u * (i & 1u))) & 0xFFu;
    if (width == 2u) return (value >> (8u * (i & 3u))) & 0xFFu;
    return (value >> (8u * (i % 3u))) & 0xFFu;
}

void main()
{
    uint c = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * 65535u * 64u;
    if (c >= chunks) return;
    uvec4 v;
    if (width == 2u) {
        v = uvec4(value);
    } else if (width == 0u) {
        uint h = value & 0xFFFFu;
        v = uvec4(h | (h << 16));
    } else {
        uint base = c * 16u;
        for (uint w = 0u; w < 4u; w++) {
            uint word = 0u;
            for (uint b = 0u; b < 4u; b++)
                word |= pattern_byte(base + w * 4u + b) << (8u * b);
            v[w] = word;
        }
    }
    dst[first_chunk + c] = v;
}
