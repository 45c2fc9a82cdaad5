/* Reading the files tools are given and echoing their text in messages:
 * one size limit and one escaping rule for the CLI, scene scripts and the
 * assembler. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/tools.h"

int pvk_open_input(const char *path, FILE **out)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno ? errno : EIO;
    /* fopen opens a directory; reading it then fails, which a read loop
     * that stops at 0 bytes takes for an empty file (a scene that passes) */
    struct stat st;
    int e = fstat(fileno(f), &st) ? (errno ? errno : EIO) : S_ISDIR(st.st_mode) ? EISDIR : 0;
    if (e) {
        fclose(f);
        return e;
    }
    *out = f;
    return 0;
}

int pvk_read_file(const char *path, char **data, size_t *len)
{
    const size_t max = PVK_TOOLS_MAX_INPUT;
    *data = NULL;
    *len = 0;
    FILE *f;
    int e = pvk_open_input(path, &f);
    if (e)
        return e;
    /* no size from stat: pipes and devices (/dev/zero) are read until the
     * limit, one byte past it tells "too large" from "exactly max" */
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            if (cap > max) {
                e = EFBIG;
                break;
            }
            size_t next = cap ? 2 * cap : 65536;
            if (next > max + 1)
                next = max + 1;
            char *p = realloc(buf, next + 1); /* + the terminating NUL */
            if (!p) {
                e = ENOMEM;
                break;
            }
            buf = p;
            cap = next;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (!got) {
            if (ferror(f))
                e = errno ? errno : EIO;
            break;
        }
    }
    fclose(f);
    if (!e && n > max)
        e = EFBIG;
    if (e) {
        free(buf);
        return e;
    }
    if (!buf && !(buf = malloc(1)))
        return ENOMEM;
    buf[n] = 0;
    *data = buf;
    *len = n;
    return 0;
}

const char *pvk_input_error(int err)
{
    return err == EFBIG ? "larger than " PVK_TOOLS_MAX_INPUT_TEXT : strerror(err);
}

char *pvk_escape(const char *in, char *out, size_t cap)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;
    if (!cap)
        return out;
    for (; in && *in; in++) {
        unsigned char c = (unsigned char)*in;
        /* C0 controls and DEL: ESC sequences would drive the terminal, CR and
         * BS would overwrite what was printed.  Bytes >= 0x80 stay: UTF-8
         * names must read as they are. */
        bool ctl = c < 0x20 || c == 0x7F;
        if (n + (ctl ? 4 : 1) >= cap)
            break;
        if (ctl) {
            out[n++] = '\\', out[n++] = 'x', out[n++] = hex[c >> 4], out[n++] = hex[c & 15];
        } else {
            out[n++] = (char)c;
        }
    }
    out[n] = 0;
    return out;
}
