/* CPU reference of the PICA fragment stages picavk implements: the TEV
 * combiners with their buffer, the alpha test, blending (integer, Citra's
 * model), logic ops and the colour write mask.  Decodes the registers itself
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

#endif
