// The fragment stage of a vertex-program warm-up draw (runtime/pipeline.c):
// the draw culls every triangle, so this never runs; it is a stage of its
// own because lavapipe compiles a pipeline without one (rasterizer discard)
// against a fragment stage of its own making, which its shader cache does
// not keep, once a context.  Colour writes are masked off.
#version 460
layout(location = 0) out vec4 color;

void main()
{
    color = vec4(0.0);
}
