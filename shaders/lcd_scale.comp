// LCD frames at resolution scale N (runtime/present.c): one invocation per
// pixel of the N x upright screen image.
//   mode 0: the 1x scan-out (binding 0, upright RGBA8, width x height)
//           upsampled, nearest: what the screen shows from memory the GPU
//           did not render at N x.
//   mode 1: a shown image (binding 0: a display transfer's output kept at
//           N x, pixels as R, G, B, A bytes, memory rows of src_width
//           pixels, each one screen column, its first pixel at the bottom),
//           rotated upright and through the colour LUT as scanout.comp does
//           with the 1x bytes.
#version 460
layout(local_size_x = 8, local_size_y = 8) in;
layout(std430, set = 0, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint image[]; };
layout(std430, set = 0, binding = 2) readonly buffer Lut { uint lut[256]; };
layout(push_constant) uniform Push {
    uint mode;
    uint n;             // the scale
    uint width, height; // the 1x screen (columns, rows)
    uint src_width;     // mode 1: pixels per memory row of the shown image
};

void main()
{
    uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y, ow = width * n;
    if (x >= ow || y >= height * n) return;
    if (mode == 0u) {
        image[y * ow + x] = src[(y / n) * width + x / n];
        return;
    }
    uint v = src[x * src_width + (height * n - 1u - y)];
    uint r = v & 0xFFu, g = (v >> 8) & 0xFFu, b = (v >> 16) & 0xFFu;
    image[y * ow + x] = (lut[r] & 0xFFu) | (lut[g] & 0xFF00u) | (lut[b] & 0xFF0000u) | 0xFF000000u;
}
