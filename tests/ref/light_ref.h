/* CPU reference of the PICA fragment stages around the TEV combiners:
 * fog, fragment lighting, the procedural texture and shadow rendering, written from
 * 3dbrew "GPU/Internal Registers" (register ids and bit layouts written out
 * here, not shared with the translator).  The arithmetic where the hardware's
 * is not publicly measured is the documented choice of
 * translator/glsl_light.c, restated. */
#ifndef PVK_LIGHT_REF_H
#define PVK_LIGHT_REF_H

#include <stdbool.h>
#include <stdint.h>

/* Fog (TEXENV_UPDATE_BUFFER 0x0E0 mode 5, Z flip bit 16; FOG_COLOR 0x0E1) on
 * the TEV output `rgba` of a fragment whose 24-bit depth is `z24`, with the
 * 128-entry fog LUT as the data port stored it.  No-op unless mode 5. */
void ref_fog(const uint32_t *regs, const uint32_t *fog_lut, uint32_t z24, uint8_t rgba[4]);

/* Fragment lighting (LIGHTING_*, LIGHTi_* 0x140-0x1D9; the model is the one
 * translator/glsl_light.c states) for a fragment with normal quaternion
 * `quat` and view vector `view`, with the 24 lighting LUTs as stored, and
 * `texel` the RGBA of texture units 0-3 at the fragment (the bump/tangent
 * map's and the shadow unit's, when LIGHTING_CONFIG0 uses them):
 * the fragment primary and secondary colours as RGBA bytes (0 when lighting
 * is off).  Computed in double precision. */
void ref_lighting(const uint32_t *regs, const uint32_t lut[24][256], const float quat[4], const float view[3],
                  const uint8_t texel[4][4], uint8_t primary[4], uint8_t secondary[4]);

/* The procedural texture (texture unit 3: TEXUNIT3_PROCTEX0-5 0x0A8-0x0AD,
 * the LUTs as the PROCTEX_LUT data port stored them: 0 noise, 2 RGB map,
 * 3 alpha map, 4 colour, 5 colour difference) at texture coordinate (u, v):
 * RGBA bytes.  `duv` is max(|du/dx|, |du/dy|) + max(|dv/dx|, |dv/dy|), the
 * coordinates' change per pixel, for the mipmap filters' level of detail.
 * Single precision, as the shader computes it. */
void ref_proctex(const uint32_t *regs, const uint32_t lut[6][256], float u, float v, float duv, uint8_t out[4]);

/* Shadow rendering (COLOR_OPERATION mode 3; FRAGOP_SHADOW 0x130) of a fragment
 * with 24-bit depth `z24` and TEV output green `g` over the RGBA8 shadow
 * buffer pixel `rgba` (R intensity, G/B/A the depth's low/middle/high byte),
 * updated in place. */
void ref_shadow(const uint32_t *regs, uint32_t z24, uint8_t g, uint8_t rgba[4]);

#endif
