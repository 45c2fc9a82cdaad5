/* tools/: what the picavk command line and the tests add on top of the GPU
 * library: the shader assembler (asm.c, picasso syntax -> SHBIN), scene
 * scripts (scene.c), PNG files (png.c) and reading input files (input.c).
 * An emulator that links picavk carries none of it.  Everything here drives
 * a context through the public API only (picavk/picavk.h); this is the
 * tools library's API. */
#ifndef PVK_TOOLS_H
#define PVK_TOOLS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "picavk/picavk.h"

/* The most a tool reads from one input file (a scene script, shader
 * source): more is a mistake (a wrong path, /dev/zero), not input. */
#define PVK_TOOLS_MAX_INPUT ((size_t)64 << 20)
#define PVK_TOOLS_MAX_INPUT_TEXT "64 MiB"

/* Open an input file for reading: 0 and *out, or an errno value (EISDIR
 * for a directory, which fopen would open). */
int pvk_open_input(const char *path, FILE **out);
/* Read the file at `path` whole into *data (malloc'd, NUL after the *len
 * bytes; free() it).  Returns 0, or an errno value: EISDIR for a directory,
 * EFBIG past PVK_TOOLS_MAX_INPUT, what open or read said otherwise. */
int pvk_read_file(const char *path, char **data, size_t *len);
/* The reason to print for pvk_read_file's error. */
const char *pvk_input_error(int err);

/* `in` for a message that echoes input: control bytes (ESC, CR, ...) as
 * \xNN so a line of a script cannot drive the terminal.  Cut to fit `cap`;
 * returns `out`. */
char *pvk_escape(const char *in, char *out, size_t cap);

/* Write RGBA8 pixels as a PNG file. */
pvk_result pvk_write_png(const char *path, const void *rgba, uint32_t width, uint32_t height, size_t stride);

/* Assemble a PICA200 vertex shader written in devkitPro picasso's syntax
 * (common subset) into a SHBIN file image (DVLB/DVLP/DVLE as picasso writes
 * it), returned in *data (free() it) and *size.  On bad source returns
 * PVK_ERROR_BAD_DATA with "line N: what" in `err` (may be NULL). */
pvk_result pvk_shader_assemble(const char *src, size_t len, void **data, size_t *size, char *err, size_t err_len);

/* Run a scene script (.pvs, see docs/cli.md).  Probes that do not match are
 * logged and counted in *failures; a malformed script stops with
 * PVK_ERROR_BAD_DATA naming the line.  `dir` resolves `mem ... file NAME`. */
pvk_result pvk_scene_run_file(pvk_context *ctx, const char *path, int *failures);
pvk_result pvk_scene_run_text(pvk_context *ctx, const char *text, size_t len, const char *name, const char *dir,
                              int *failures);

#endif
