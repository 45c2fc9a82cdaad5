/* A slow CPU reference decoder of the 14 PICA texture formats, written from
 * the format documents (seed 001, 3dbrew "GPU/Texture formats", FACTS.md
 * "Tiling" and "Textures"; ETC1 from Khronos OES_compressed_ETC1_RGB8_texture)
 * as the tests' oracle.  It walks guest memory in storage order (tile after
 * tile, texel index by texel index) and places each texel; it shares nothing
 * with the GPU decoder. */
#ifndef PVK_TEX_REF_H
#define PVK_TEX_REF_H

#include <stddef.h>
#include <stdint.h>

/* Guest bits per texel of format 0-13; 0 for a reserved format. */
unsigned tex_ref_bits(unsigned format);
/* Bytes a level of w x h texels takes in guest memory. */
size_t tex_ref_level_bytes(unsigned format, unsigned w, unsigned h);
/* Byte offset of mip level `level` from level 0 (levels follow each other,
 * each half as wide and high). */
size_t tex_ref_level_offset(unsigned format, unsigned w, unsigned h, unsigned level);

/* Decode one level of w x h texels (multiples of 8) at `src` to RGBA8 as the
 * texture unit gives it: rows of w * 4 bytes R, G, B, A, row 0 the first row
 * in memory.  L formats replicate L into RGB; A formats give RGB 0; HILO8
 * gives (HI, LO, 0, 255); 4-bit values expand by x*17, 5- and 6-bit ones by
 * bit replication. */
void tex_ref_decode(const uint8_t *src, unsigned w, unsigned h, unsigned format, uint8_t *rgba);

/* One ETC1 block from its 64-bit word (bit 63 first, as the specification
 * numbers it): rgb[y][x][c] for the 4x4 texels. */
void tex_ref_etc1_block(uint64_t word, uint8_t rgb[4][4][3]);

#endif
