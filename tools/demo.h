/* tools/: `picavk demo`'s 3D scene (demo3d.c), part of the command line only. */
#ifndef PVK_TOOLS_DEMO_H
#define PVK_TOOLS_DEMO_H

#include <stdint.h>

#include "picavk/picavk.h"

/* Draw the demo's 3D scene as a citro3d program does (a memory fill, one
 * command list, a display transfer) into the top LCD's framebuffer at
 * `lcd_fb`, 240x400 BGR8; the caller points the LCD at it and calls
 * pvk_vblank.  Public API only. */
pvk_result demo_scene(pvk_context *ctx, uint32_t lcd_fb);

#endif
