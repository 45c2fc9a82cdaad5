/* Growing text for generated shader source (glsl_fs.c, glsl_vs.c): printf
 * appends, and one out-of-memory flag checked when the text is done. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "translator/translator.h"

void pvk_text_put(pvk_text *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        /* a new text has no buffer yet: NULL + 0 is undefined in C, so measure
         * into NULL instead of offsetting it */
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->failed = true;
            return;
        }
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = (b->cap + (size_t)n) * 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->failed = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

pvk_result pvk_text_take(pvk_text *b, char **out)
{
    if (b->failed) {
        free(b->s);
        return PVK_ERROR_OUT_OF_MEMORY;
    }
    *out = b->s;
    return PVK_SUCCESS;
}
