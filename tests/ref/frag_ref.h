/* CPU reference of the PICA fragment stages picavk implements: the TEV
 * combiners with their buffer, the alpha test, blending (integer, Citra's
 * model), logic ops, the colour write mask, and the stencil test and
 * operations.  Decodes the registers itself
 * (register ids and bit layouts from seed 000 and 3dbrew, written out here),
 * so it does not share the translator's decoding. */
#ifndef PVK_FRAG_REF_H
#define PVK_FRAG_REF_H

#include <stdbool.h>
#include <stdint.h>

/* TEV and alpha test for a fragment of primary colour `primary` (RGBA
 * bytes): writes the combiner output and returns false when the alpha test
 * discards it.  `regs` is the whole PICA register file (0x400 words). */
bool ref_tev(const uint32_t *regs, const uint8_t primary[4], uint8_t out[4]);

/* The output merger on one pixel: `src` the TEV output, `dst` the colour
 * buffer's RGBA; writes the new buffer value. */
void ref_merge(const uint32_t *regs, const uint8_t src[4], const uint8_t dst[4], uint8_t out[4]);

/* The compare functions of the alpha, stencil and depth tests (seed 000):
 * 0 never, 1 always, 2 a == b, 3 a != b, 4 a < b, 5 a <= b, 6 a > b, 7 a >= b. */
bool ref_compare(unsigned func, unsigned a, unsigned b);

/* The stencil test of a fragment over stored stencil byte `stored`
 * (STENCIL_TEST; FACTS.md: (ref & mask) func (stored & mask)).  True when
 * it passes or does not apply (disabled, or the depth buffer is not D24S8). */
bool ref_stencil_test(const uint32_t *regs, uint8_t stored);

/* The stencil byte after a fragment: STENCIL_OP's fail op when the stencil
 * test failed, its z-fail op when the depth test failed, else its z-pass op
 * (also when the depth test is off), limited to the write mask of
 * STENCIL_TEST and to nothing without DEPTHBUFFER_WRITE bit 0. */
uint8_t ref_stencil_update(const uint32_t *regs, uint8_t stored, bool stencil_pass, bool depth_pass);

#endif
