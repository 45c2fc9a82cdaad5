/* A slow CPU model of a PICA texture unit's sampling, the tests' oracle for
 * textured draws, written from the documents: seed 001 (wrap modes, filters,
 * LOD registers, border colour), 3dbrew "GPU/Internal Registers" and the
 * emulators' shared model where the documents say nothing (Citra's software
 * rasterizer: t runs up from the last row in memory; mirrored repeat folds
 * with period 2n).  It reads decoded levels (tests/ref/tex_ref.c: RGBA8,
 * row 0 the first row in memory) and shares nothing with the GPU path. */
#ifndef PVK_SAMPLE_REF_H
#define PVK_SAMPLE_REF_H

#include <stdint.h>

typedef struct sample_ref_unit {
    unsigned wrap_s, wrap_t; /* 0 clamp to edge, 1 clamp to border, 2 repeat, 3 mirrored repeat */
    int linear;              /* the filter that applies (mag or min, by the level of detail) */
    uint8_t border[4];       /* R, G, B, A */
} sample_ref_unit;

/* Texel (i, j) of a w x h level after the wraps, j counted up from the
 * bottom (the last row in memory); false when a clamp-to-border wrap puts it
 * outside (the border colour). */
int sample_ref_texel(const sample_ref_unit *u, const uint8_t *rgba, unsigned w, unsigned h, long i, long j,
                     uint8_t out[4]);

/* Sample a w x h level at (s, t) (0..1 over the texture, t up): the
 * nearest texel (floor(s * w), floor(t * h)), or the bilinear mix of the
 * four around (s * w - 0.5, t * h - 0.5), rounded to nearest. */
void sample_ref_2d(const sample_ref_unit *u, const uint8_t *rgba, unsigned w, unsigned h, double s, double t,
                   uint8_t out[4]);

/* The cube face (0 +X, 1 -X, 2 +Y, 3 -Y, 4 +Z, 5 -Z: TEXUNIT0_ADDR1-6) and
 * the face's (s, t) for direction (x, y, z): the major axis picks the face
 * and the other two components, divided by it, give s and t as in
 * OpenGL/Vulkan's cube map table, with t turned to run up like a 2D
 * texture's (the emulators' model; 3dbrew does not describe it). */
void sample_ref_cube_face(double x, double y, double z, unsigned *face, double *s, double *t);

/* A shadow 2D texture (no document describes it; Citra's and Azahar's
 * model): each texel's memory bytes 0-2 are a 24-bit depth, most
 * significant first (A, B, G of the RGBA8 texel), byte 3 (R) an intensity,
 * as Citra's software renderer writes its shadow buffer.  The four texels around (s * w - 0.5,
 * t * h - 0.5) each give intensity / 255 where their depth is greater than
 * the fragment's z and 0 otherwise, 1 outside the texture; the result is
 * their bilinear mix (0..1). */
double sample_ref_shadow(const uint8_t *rgba, unsigned w, unsigned h, double s, double t, uint32_t z);

#endif
