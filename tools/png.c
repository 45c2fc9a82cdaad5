/* PNG output through libpng (well tested; a hand-written deflate writer
 * would be more code to get wrong). */
#include <png.h>
#include <stdio.h>

#include "tools/tools.h"

pvk_result pvk_write_png(const char *path, const void *rgba, uint32_t width, uint32_t height, size_t stride)
{
    if (!path || !rgba || !width || !height || stride < (size_t)width * 4)
        return PVK_ERROR_INVALID_ARGUMENT;
    FILE *f = fopen(path, "wb");
    if (!f)
        return PVK_ERROR_IO;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_write_struct(&png, &info);
        fclose(f);
        return PVK_ERROR_OUT_OF_MEMORY;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        fclose(f);
        return PVK_ERROR_IO;
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (uint32_t y = 0; y < height; y++)
        png_write_row(png, (png_const_bytep)rgba + (size_t)y * stride);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return fclose(f) ? PVK_ERROR_IO : PVK_SUCCESS;
}
