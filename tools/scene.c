/* Scene scripts (.pvs): human-written GPU scenes and their expected results.
 * One statement per line; `#` starts a comment.  docs/cli.md documents the
 * statements.  The parser trusts nothing: every number, address and length
 * is checked, errors name the line, and execution stops at the first one. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tools/asm.h"
#include "tools/tools.h"

#define MAX_LINE 4096
#define MAX_CMDLIST_WORDS (1u << 20)

typedef struct scene {
    pvk_context *ctx;
    const char *name;  /* for messages */
    const char *dir;   /* for `mem ADDR file NAME`, may be NULL */
    int line;
    int failures;      /* probes that did not match */
    /* shader source being collected (`shader vs` ... `endshader`) */
    bool in_shader;
    char *sh_src;
    size_t sh_len, sh_cap;
    int sh_line;       /* line of `shader`, for messages */
    bool sh_geometry;  /* `shader gs`: upload as a VS + GS program */
    uint32_t sh_stride;/* `shader gs stride N`: VS outputs per vertex (0: the VS's output count) */
    pvk_shbin *vs;     /* the last `shader vs`, which a `shader gs` is paired with */
    /* command list being assembled */
    bool in_cmdlist;
    uint32_t cl_addr;
    uint32_t *cl;
    uint32_t cl_len, cl_cap;
} scene;

/* Messages go to the context's log, as the library's own do.  They quote
 * the script (names, tokens, the path), so control bytes are escaped. */
static void say(pvk_context *ctx, pvk_log_level level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(pvk_context *ctx, pvk_log_level level, const char *fmt, ...)
{
    char msg[1024], esc[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pvk_log_message(ctx, level, pvk_escape(msg, esc, sizeof esc));
}

static pvk_result fail(scene *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static pvk_result fail(scene *s, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    say(s->ctx, PVK_LOG_ERROR, "%s:%d: %s", s->name, s->line, msg);
    return PVK_ERROR_BAD_DATA;
}

/* ---- tokens ---- */

static char *skip_ws(char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* Next whitespace-separated token, or NULL.  Lines are normalised first
 * (split_operators), so '=' and ',' are tokens of their own. */
static char *token(char **pp)
{
    char *p = skip_ws(*pp);
    if (!*p)
        return NULL;
    char *start = p;
    while (*p && *p != ' ' && *p != '\t')
        p++;
    if (*p)
        *p++ = 0;
    *pp = p;
    return start;
}

/* Copy `in` to `out` with spaces around '=' and ',' outside parentheses
 * (so `a=b,c` tokenises like `a = b , c` and `rgba(1,2,3,4)` stays whole).
 * False when the result does not fit. */
static bool split_operators(const char *in, char *out, size_t cap)
{
    size_t n = 0;
    int depth = 0;
    for (; *in; in++) {
        depth += *in == '(' ? 1 : *in == ')' ? -1 : 0;
        bool op = depth <= 0 && (*in == '=' || *in == ',');
        if (n + 4 > cap)
            return false;
        if (op)
            out[n++] = ' ';
        out[n++] = *in;
        if (op)
            out[n++] = ' ';
    }
    out[n] = 0;
    return true;
}

static bool parse_u32(const char *t, uint32_t *v)
{
    if (!t || !*t)
        return false;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(t, &end, 0);
    if (errno || *end || x > UINT32_MAX || t[0] == '-')
        return false;
    *v = (uint32_t)x;
    return true;
}

static bool expect_tok(char **pp, const char *want)
{
    char *t = token(pp);
    return t && !strcmp(t, want);
}

/* ---- register names ---- */

/* External register by name (as the seed documents name them) or number. */
static bool external_reg(const char *t, uint32_t *paddr)
{
    uint32_t v;
    if (parse_u32(t, &v)) {
        *paddr = pvk_mmio_address(v);
        return *paddr != 0;
    }
    *paddr = pvk_register_address(t);
    return *paddr && *paddr < PVK_MMIO_PICA;
}

/* Internal (PICA) register by name or number. */
static bool internal_reg(const char *t, uint32_t *id)
{
    uint32_t v;
    if (parse_u32(t, &v)) {
        *id = v;
        return v < 0x400;
    }
    uint32_t a = pvk_register_address(t);
    if (a < PVK_MMIO_PICA)
        return false;
    *id = (a - PVK_MMIO_PICA) / 4;
    return true;
}

/* ---- statements ---- */

static pvk_result st_mmio(scene *s, char *p)
{
    char *t = token(&p);
    uint32_t addr, v;
    if (!t || !external_reg(t, &addr))
        return fail(s, "unknown external register '%s'", t ? t : "");
    if (!expect_tok(&p, "=") || !parse_u32(token(&p), &v))
        return fail(s, "expected '= VALUE'");
    pvk_result r = pvk_mmio_write32(s->ctx, addr, v);
    if (r == PVK_ERROR_DEVICE_LOST)
        return r;
    return PVK_SUCCESS; /* guest errors are counted in the stats; scripts may expect them */
}

/* `reg NAME = V` writes the internal register through the CPU window. */
static pvk_result st_reg(scene *s, char *p)
{
    char *t = token(&p);
    uint32_t id, v;
    if (!t || !internal_reg(t, &id))
        return fail(s, "unknown internal register '%s'", t ? t : "");
    if (!expect_tok(&p, "=") || !parse_u32(token(&p), &v))
        return fail(s, "expected '= VALUE'");
    pvk_result r = pvk_mmio_write32(s->ctx, PVK_MMIO_BASE + 0x1000 + id * 4, v);
    return r == PVK_ERROR_DEVICE_LOST ? r : PVK_SUCCESS;
}

/* Bytes into guest memory as the host would write them. */
static pvk_result write_guest(scene *s, uint32_t addr, const uint8_t *bytes, uint32_t n)
{
    uint8_t *dst = pvk_guest_ptr(s->ctx, addr, n);
    if (!dst)
        return fail(s, "0x%08X+%u is outside guest memory", addr, n);
    pvk_wait_idle(s->ctx); /* the GPU may still read the old bytes */
    memcpy(dst, bytes, n);
    return pvk_guest_written(s->ctx, addr, n);
}

static pvk_result st_mem(scene *s, char *p)
{
    uint32_t addr;
    if (!parse_u32(token(&p), &addr))
        return fail(s, "expected an address");
    char *t = token(&p);
    if (!t)
        return fail(s, "expected '=', 'file' or 'fill'");
    if (!strcmp(t, "=")) {
        uint8_t bytes[MAX_LINE / 2];
        uint32_t n = 0;
        while ((t = token(&p))) {
            uint32_t b;
            if (!parse_u32(t, &b) && !(strlen(t) <= 2 && isxdigit((unsigned char)t[0]) &&
                                       (b = (uint32_t)strtoul(t, NULL, 16), true)))
                return fail(s, "bad byte '%s'", t);
            if (b > 0xFF)
                return fail(s, "byte 0x%X out of range", b);
            if (n == sizeof bytes)
                return fail(s, "too many bytes on one line");
            bytes[n++] = (uint8_t)b;
        }
        if (!n)
            return fail(s, "no bytes");
        return write_guest(s, addr, bytes, n);
    }
    if (!strcmp(t, "f32") || !strcmp(t, "u32")) {
        /* little-endian words: floats or integers */
        bool is_float = t[0] == 'f';
        uint8_t bytes[MAX_LINE];
        uint32_t n = 0;
        while ((t = token(&p))) {
            uint32_t w;
            if (is_float) {
                char *end;
                float f = strtof(t, &end);
                if (*end || !*t)
                    return fail(s, "bad float '%s'", t);
                memcpy(&w, &f, 4);
            } else if (!parse_u32(t, &w)) {
                return fail(s, "bad word '%s'", t);
            }
            if (n + 4 > sizeof bytes)
                return fail(s, "too many values on one line");
            for (int i = 0; i < 4; i++)
                bytes[n++] = (uint8_t)(w >> (8 * i));
        }
        if (!n)
            return fail(s, "no values");
        return write_guest(s, addr, bytes, n);
    }
    if (!strcmp(t, "fill")) {
        uint32_t len, v;
        if (!parse_u32(token(&p), &len) || !parse_u32(token(&p), &v) || v > 0xFF)
            return fail(s, "expected 'fill LENGTH BYTE'");
        uint8_t *dst = pvk_guest_ptr(s->ctx, addr, len);
        if (!dst)
            return fail(s, "0x%08X+%u is outside guest memory", addr, len);
        pvk_wait_idle(s->ctx);
        memset(dst, (int)v, len);
        return pvk_guest_written(s->ctx, addr, len);
    }
    if (!strcmp(t, "file")) {
        char *name = token(&p);
        if (!name)
            return fail(s, "expected a file name");
        char path[4096];
        if (s->dir && name[0] != '/')
            snprintf(path, sizeof path, "%s/%s", s->dir, name);
        else
            snprintf(path, sizeof path, "%s", name);
        FILE *f = fopen(path, "rb");
        if (!f)
            return fail(s, "cannot open %s", path);
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        uint8_t *dst = n > 0 && n <= (long)UINT32_MAX ? pvk_guest_ptr(s->ctx, addr, (uint32_t)n) : NULL;
        pvk_result r = PVK_SUCCESS;
        if (!dst)
            r = fail(s, "%s (%ld bytes) does not fit at 0x%08X", path, n, addr);
        else {
            pvk_wait_idle(s->ctx);
            if (fread(dst, 1, (size_t)n, f) != (size_t)n)
                r = fail(s, "cannot read %s", path);
            else
                r = pvk_guest_written(s->ctx, addr, (uint32_t)n);
        }
        fclose(f);
        return r;
    }
    return fail(s, "expected '=', 'f32', 'u32', 'file' or 'fill' after the address");
}

static pvk_result cl_push(scene *s, uint32_t w)
{
    if (s->cl_len == s->cl_cap) {
        if (s->cl_cap >= MAX_CMDLIST_WORDS)
            return fail(s, "command list longer than %u words", MAX_CMDLIST_WORDS);
        uint32_t cap = s->cl_cap ? s->cl_cap * 2 : 256;
        uint32_t *n = realloc(s->cl, cap * sizeof *n);
        if (!n)
            return PVK_ERROR_OUT_OF_MEMORY;
        s->cl = n;
        s->cl_cap = cap;
    }
    s->cl[s->cl_len++] = w;
    return PVK_SUCCESS;
}

/* Inside `cmdlist`: `NAME = V[, V...] [mask M] [seq]` becomes one command:
 * first value, header (id, mask, extra count, consecutive), extra values,
 * padding to 8 bytes. */
static pvk_result cl_statement(scene *s, char *p)
{
    char *t = token(&p);
    uint32_t id, vals[256], n = 0, mask = 0xF;
    bool seq = false;
    if (!internal_reg(t, &id))
        return fail(s, "unknown internal register '%s'", t);
    if (!expect_tok(&p, "="))
        return fail(s, "expected '='");
    for (;;) {
        if (n == 256)
            return fail(s, "more than 256 values in one command");
        if (!parse_u32(token(&p), &vals[n++]))
            return fail(s, "bad value");
        char *save = p;
        t = token(&p);
        if (!t)
            break;
        if (!strcmp(t, ","))
            continue;
        if (!strcmp(t, "mask")) {
            if (!parse_u32(token(&p), &mask) || mask > 0xF)
                return fail(s, "mask must be 0..15");
            t = token(&p);
        }
        if (t && !strcmp(t, "seq")) {
            seq = true;
            t = token(&p);
        }
        if (t)
            return fail(s, "unexpected '%s'", t);
        (void)save;
        break;
    }
    pvk_result r;
    if ((r = cl_push(s, vals[0])) ||
        (r = cl_push(s, id | mask << 16 | (n - 1) << 20 | (seq ? 1u << 31 : 0))))
        return r;
    for (uint32_t i = 1; i < n; i++)
        if ((r = cl_push(s, vals[i])))
            return r;
    if (s->cl_len & 1)
        return cl_push(s, 0);
    return PVK_SUCCESS;
}

/* `end`: pad the list to 16 bytes as libctru does, write it to guest memory. */
static pvk_result cl_end(scene *s)
{
    pvk_result r;
    while (s->cl_len % 4)
        if ((r = cl_push(s, s->cl_len % 2 ? 0 : 0x12345678)) || (r = cl_push(s, 0x000F0010)))
            return r;
    s->in_cmdlist = false;
    uint32_t bytes = s->cl_len * 4;
    uint8_t *dst = bytes ? pvk_guest_ptr(s->ctx, s->cl_addr, bytes) : NULL;
    if (!dst)
        return fail(s, "command list of %u bytes does not fit at 0x%08X", bytes, s->cl_addr);
    pvk_wait_idle(s->ctx);
    for (uint32_t i = 0; i < s->cl_len; i++) {
        uint32_t w = s->cl[i];
        uint8_t le[4] = {(uint8_t)w, (uint8_t)(w >> 8), (uint8_t)(w >> 16), (uint8_t)(w >> 24)};
        memcpy(dst + i * 4, le, 4);
    }
    return pvk_guest_written(s->ctx, s->cl_addr, bytes);
}

/* Assemble the collected source and upload it as a program would
 * (register writes through the CPU window): `shader vs` to the vertex unit
 * alone (libctru shaderProgramUse without a geometry shader, less the
 * geometry-stage registers), `shader gs` together with the last `shader vs`
 * as shaderProgramSetGsh + shaderProgramUse do (pvk_shbin_upload_program). */
static pvk_result shader_end(scene *s)
{
    s->in_shader = false;
    pvk_shbin *sh = calloc(1, sizeof *sh);
    pvk_reg_write *w = malloc(sizeof *w * PVK_SHBIN_PROGRAM_UPLOAD_MAX);
    pvk_result r = PVK_SUCCESS;
    char err[256];
    if (!sh || !w) {
        r = PVK_ERROR_OUT_OF_MEMORY;
    } else if (pvk_pica_asm(s->sh_src ? s->sh_src : "", s->sh_len, sh, err, sizeof err)) {
        int line = s->line;
        s->line = s->sh_line;
        r = fail(s, "shader: %s (counting from the line after 'shader')", err);
        s->line = line;
    } else if (s->sh_geometry && !sh->geometry) {
        r = fail(s, "shader gs: the source has no .gsh directive");
    } else if (!s->sh_geometry && sh->geometry) {
        r = fail(s, "shader vs: the source is a geometry shader (.gsh): use 'shader gs'");
    } else if (s->sh_geometry && !s->vs) {
        r = fail(s, "shader gs: no 'shader vs' before it to pair it with");
    } else {
        uint32_t n = s->sh_geometry ? pvk_shbin_upload_program(s->vs, sh, s->sh_stride, w, PVK_SHBIN_PROGRAM_UPLOAD_MAX)
                                    : pvk_shbin_upload(sh, w, PVK_SHBIN_UPLOAD_MAX);
        if (!s->sh_geometry) { /* kept for a `shader gs` that follows */
            free(s->vs);
            s->vs = sh;
            sh = NULL;
        }
        for (uint32_t i = 0; i < n && !r; i++)
            if (pvk_mmio_write32(s->ctx, PVK_MMIO_PICA + 4 * w[i].id, w[i].value) == PVK_ERROR_DEVICE_LOST)
                r = PVK_ERROR_DEVICE_LOST;
    }
    free(sh);
    free(w);
    s->sh_len = 0;
    return r;
}

static pvk_result shader_line(scene *s, const char *line)
{
    size_t n = strlen(line);
    if (s->sh_len + n + 2 > s->sh_cap) {
        size_t cap = (s->sh_len + n + 2) * 2;
        if (cap > (1u << 20))
            return fail(s, "shader source longer than 1 MiB");
        char *p = realloc(s->sh_src, cap);
        if (!p)
            return PVK_ERROR_OUT_OF_MEMORY;
        s->sh_src = p;
        s->sh_cap = cap;
    }
    memcpy(s->sh_src + s->sh_len, line, n);
    s->sh_len += n;
    s->sh_src[s->sh_len++] = '\n';
    s->sh_src[s->sh_len] = 0;
    return PVK_SUCCESS;
}

/* Window pixel (x, y up) of the colour buffer `fb` as R, G, B, A bytes,
 * decoded from its tiled guest bytes (8x8 tiles in Morton order, rows of
 * tiles from the top of the buffer).  False outside guest memory. */
static bool color_at(scene *s, const pvk_framebuffer_info *fb, uint32_t x, uint32_t y, uint32_t g[4])
{
    uint32_t w = fb->width, h = fb->height, b = fb->color_bpp;
    uint32_t row = h - 1 - y;
    uint32_t m = (x & 1) | (row & 1) << 1 | (x & 2) << 1 | (row & 2) << 2 | (x & 4) << 2 | (row & 4) << 3;
    uint32_t addr = fb->color_addr + ((row & ~7u) * w + (x & ~7u) * 8 + m) * b;
    const uint8_t *q = pvk_guest_ptr(s->ctx, addr, b);
    if (!q)
        return false;
    uint32_t v = q[0] | (b > 1 ? q[1] << 8 : 0) | (b > 2 ? q[2] << 16 : 0) | (b > 3 ? (uint32_t)q[3] << 24 : 0);
    switch (fb->color_format) {
    case 0: g[0] = v >> 24, g[1] = (v >> 16) & 255, g[2] = (v >> 8) & 255, g[3] = v & 255; break;
    case 1: g[0] = v >> 16, g[1] = (v >> 8) & 255, g[2] = v & 255, g[3] = 255; break;
    case 2: g[0] = (v >> 11) * 255 / 31, g[1] = ((v >> 6) & 31) * 255 / 31, g[2] = ((v >> 1) & 31) * 255 / 31,
            g[3] = (v & 1) * 255; break;
    case 3: g[0] = (v >> 11) * 255 / 31, g[1] = ((v >> 5) & 63) * 255 / 63, g[2] = (v & 31) * 255 / 31, g[3] = 255;
            break;
    default: g[0] = (v >> 12) * 17, g[1] = ((v >> 8) & 15) * 17, g[2] = ((v >> 4) & 15) * 17, g[3] = (v & 15) * 17;
    }
    return true;
}

static pvk_result color_buffer(scene *s, pvk_framebuffer_info *fb)
{
    pvk_get_framebuffer(s->ctx, fb);
    if (!fb->width || !fb->height || !fb->color_bpp)
        return fail(s, "the colour buffer (%ux%u, format %u) is not drawable", fb->width, fb->height,
                    fb->color_format);
    pvk_guest_flush(s->ctx, fb->color_addr, fb->width * fb->height * fb->color_bpp);
    return PVK_SUCCESS;
}

/* `probe color X Y rgba(...)`: window pixel (x, y up) of the colour buffer
 * the PICA registers name. */
static pvk_result probe_color(scene *s, char *p)
{
    uint32_t x, y, c[4], g[4], within = 0;
    char *end = NULL;
    if (!parse_u32(token(&p), &x) || !parse_u32(token(&p), &y) || !(end = strchr(p, ')')) ||
        sscanf(skip_ws(p), "rgba(%u ,%u ,%u ,%u )", &c[0], &c[1], &c[2], &c[3]) != 4)
        return fail(s, "expected 'probe color X Y rgba(R,G,B,A) [within N]'");
    p = end + 1;
    char *kw = token(&p);
    if (kw && (strcmp(kw, "within") || !parse_u32(token(&p), &within) || within > 255 || token(&p)))
        return fail(s, "expected 'within N' (0..255) after the colour");
    pvk_framebuffer_info fb;
    pvk_result r = color_buffer(s, &fb);
    if (r)
        return r;
    if (x >= fb.width || y >= fb.height)
        return fail(s, "(%u,%u) is outside the %ux%u colour buffer", x, y, fb.width, fb.height);
    if (!color_at(s, &fb, x, y, g))
        return fail(s, "the colour buffer is outside guest memory");
    bool off = false;
    for (int i = 0; i < 4; i++)
        off |= (g[i] > c[i] ? g[i] - c[i] : c[i] - g[i]) > within;
    if (off) {
        s->failures++;
        say(s->ctx, PVK_LOG_ERROR, "%s:%d: probe color %u %u: got rgba(%u,%u,%u,%u), want rgba(%u,%u,%u,%u) within %u",
                s->name, s->line, x, y, g[0], g[1], g[2], g[3], c[0], c[1], c[2], c[3], within);
    }
    return PVK_SUCCESS;
}

/* `save color NAME`: the colour buffer as $PVK_SCENE_OUT/NAME.png (window y
 * up is the picture's up), for a person to look at; nothing without the
 * variable (`picavk run -o DIR` sets it). */
/* `save top|top-right|bottom NAME`: the screen's last frame as the host
 * sees it (at resolution scale N, N x the screen). */
static pvk_result save_screen(scene *s, pvk_screen screen, const char *dir, const char *name)
{
    uint32_t w, h;
    pvk_frame_size(s->ctx, screen, &w, &h);
    if (!w || !h)
        return fail(s, "no frame of that screen to save (did the script call vblank?)");
    uint8_t *px = malloc((size_t)w * h * 4);
    if (!px)
        return PVK_ERROR_OUT_OF_MEMORY;
    pvk_result r = pvk_frame_read(s->ctx, screen, px, (size_t)w * 4);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.png", dir, name);
    if (!r && (r = pvk_write_png(path, px, w, h, (size_t)w * 4)))
        fail(s, "cannot write %s", path);
    free(px);
    return r;
}

static pvk_result st_save(scene *s, char *p)
{
    char *what = token(&p), *name = token(&p);
    bool screen = what && (!strcmp(what, "top") || !strcmp(what, "top-right") || !strcmp(what, "bottom"));
    if (!what || (strcmp(what, "color") && !screen) || !name || token(&p) || strchr(name, '/'))
        return fail(s, "expected 'save color|top|top-right|bottom NAME' (a plain file name)");
    const char *dir = getenv("PVK_SCENE_OUT");
    if (!dir || !*dir)
        return PVK_SUCCESS;
    if (screen)
        return save_screen(s, !strcmp(what, "top")      ? PVK_SCREEN_TOP
                              : !strcmp(what, "bottom") ? PVK_SCREEN_BOTTOM
                                                        : PVK_SCREEN_TOP_RIGHT,
                           dir, name);
    pvk_framebuffer_info fb;
    pvk_result r = color_buffer(s, &fb);
    if (r)
        return r;
    uint8_t *px = malloc((size_t)fb.width * fb.height * 4);
    if (!px)
        return PVK_ERROR_OUT_OF_MEMORY;
    for (uint32_t y = 0; y < fb.height && !r; y++)
        for (uint32_t x = 0; x < fb.width; x++) {
            uint32_t g[4];
            if (!color_at(s, &fb, x, y, g)) {
                r = fail(s, "the colour buffer is outside guest memory");
                break;
            }
            uint8_t *o = px + ((size_t)(fb.height - 1 - y) * fb.width + x) * 4;
            o[0] = (uint8_t)g[0], o[1] = (uint8_t)g[1], o[2] = (uint8_t)g[2], o[3] = (uint8_t)g[3];
        }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.png", dir, name);
    if (!r && (r = pvk_write_png(path, px, fb.width, fb.height, (size_t)fb.width * 4)))
        fail(s, "cannot write %s", path);
    free(px);
    return r;
}

static pvk_result st_probe(scene *s, char *p)
{
    char *what = token(&p);
    if (!what)
        return fail(s, "expected 'top', 'top-right', 'bottom', 'mem' or 'reg'");
    if (!strcmp(what, "color"))
        return probe_color(s, p);
    if (!strcmp(what, "mem")) {
        uint32_t addr, want;
        char *type = NULL;
        if (!parse_u32(token(&p), &addr) || !(type = token(&p)) || !parse_u32(token(&p), &want))
            return fail(s, "expected 'probe mem ADDR u8|u16|u32 VALUE'");
        uint32_t size = !strcmp(type, "u8") ? 1 : !strcmp(type, "u16") ? 2 : !strcmp(type, "u32") ? 4 : 0;
        if (!size)
            return fail(s, "unknown type '%s'", type);
        pvk_guest_flush(s->ctx, addr, size);
        const uint8_t *m = pvk_guest_ptr(s->ctx, addr, size);
        if (!m)
            return fail(s, "0x%08X is outside guest memory", addr);
        uint32_t got = 0;
        for (uint32_t i = 0; i < size; i++)
            got |= (uint32_t)m[i] << (8 * i);
        if (got != want) {
            s->failures++;
            say(s->ctx, PVK_LOG_ERROR, "%s:%d: probe mem 0x%08X: got 0x%X, want 0x%X", s->name, s->line, addr,
                    got, want);
        }
        return PVK_SUCCESS;
    }
    if (!strcmp(what, "reg")) {
        char *t = token(&p);
        uint32_t addr, want, got = 0;
        if (!t || !external_reg(t, &addr))
            return fail(s, "unknown external register '%s'", t ? t : "");
        if (!expect_tok(&p, "=") || !parse_u32(token(&p), &want))
            return fail(s, "expected '= VALUE'");
        pvk_mmio_read32(s->ctx, addr, &got);
        if (got != want) {
            s->failures++;
            say(s->ctx, PVK_LOG_ERROR, "%s:%d: probe reg %s: got 0x%08X, want 0x%08X", s->name, s->line, t, got,
                    want);
        }
        return PVK_SUCCESS;
    }
    pvk_screen screen;
    if (!strcmp(what, "top"))
        screen = PVK_SCREEN_TOP;
    else if (!strcmp(what, "top-right"))
        screen = PVK_SCREEN_TOP_RIGHT;
    else if (!strcmp(what, "bottom"))
        screen = PVK_SCREEN_BOTTOM;
    else
        return fail(s, "unknown probe target '%s'", what);
    uint32_t x, y, c[4];
    if (!parse_u32(token(&p), &x) || !parse_u32(token(&p), &y))
        return fail(s, "expected 'probe SCREEN X Y rgba(R,G,B,A)'");
    char *col = skip_ws(p);
    if (sscanf(col, "rgba(%u,%u,%u,%u)", &c[0], &c[1], &c[2], &c[3]) != 4 || c[0] > 255 || c[1] > 255 ||
        c[2] > 255 || c[3] > 255)
        return fail(s, "expected rgba(R,G,B,A) with components 0..255");
    uint32_t w, h, n = pvk_get_scale(s->ctx);
    pvk_frame_size(s->ctx, screen, &w, &h);
    /* screen coordinates: at resolution scale n the centre of the n x n block */
    if (x >= w / n || y >= h / n)
        return fail(s, "(%u,%u) is outside the %ux%u frame (did the script call vblank?)", x, y, w / n, h / n);
    uint8_t *px = malloc((size_t)w * h * 4);
    if (!px)
        return PVK_ERROR_OUT_OF_MEMORY;
    pvk_result r = pvk_frame_read(s->ctx, screen, px, (size_t)w * 4);
    if (!r) {
        const uint8_t *q = px + ((size_t)(y * n + n / 2) * w + x * n + n / 2) * 4;
        if (q[0] != c[0] || q[1] != c[1] || q[2] != c[2] || q[3] != c[3]) {
            s->failures++;
            say(s->ctx, PVK_LOG_ERROR, "%s:%d: probe %s %u %u: got rgba(%u,%u,%u,%u), want rgba(%u,%u,%u,%u)",
                    s->name, s->line, what, x, y, q[0], q[1], q[2], q[3], c[0], c[1], c[2], c[3]);
        }
    }
    free(px);
    return r;
}

static pvk_result st_expect(scene *s, char *p)
{
    char *what = token(&p);
    if (what && !strcmp(what, "frame-hash")) {
        char *t = token(&p);
        char *end;
        unsigned long long want = t ? strtoull(t, &end, 16) : 0;
        if (!t || *end || strlen(t) != 16)
            return fail(s, "expected 16 hex digits");
        uint64_t got;
        pvk_result r = pvk_frame_hash(s->ctx, &got);
        if (r)
            return r;
        if (got != want) {
            s->failures++;
            say(s->ctx, PVK_LOG_ERROR, "%s:%d: frame hash %016llx, want %016llx", s->name, s->line,
                    (unsigned long long)got, want);
        }
        return PVK_SUCCESS;
    }
    bool unsupported = what && !strcmp(what, "unsupported");
    if (what && (unsupported || !strcmp(what, "errors"))) {
        /* `expect errors N`: guest-input errors counted so far; `expect
         * unsupported N`: uses of what picavk does not emulate, counted so far */
        uint32_t want;
        if (!parse_u32(token(&p), &want))
            return fail(s, "expected a count");
        pvk_wait_idle(s->ctx);
        pvk_stats st;
        pvk_get_stats(s->ctx, &st);
        uint64_t got = unsupported ? st.unsupported : st.bad_input;
        if (got != want) {
            s->failures++;
            say(s->ctx, PVK_LOG_ERROR, "%s:%d: %llu %s, want %u", s->name, s->line, (unsigned long long)got,
                    unsupported ? "unsupported uses" : "guest errors", want);
        }
        return PVK_SUCCESS;
    }
    return fail(s, "expected 'frame-hash', 'errors' or 'unsupported'");
}

/* `state roundtrip`: what a host's save state and a later load do to one
 * context.  The GPU state is saved and guest memory copied (as the host
 * saves it), then unrelated work scribbles over both (host writes, a memory
 * fill over VRAM), and the host restores memory and loads the state.
 * Everything after it must behave as without it.  The memory: VRAM, AXI
 * WRAM and the first 16 MiB of FCRAM (scene scripts use the first 4; with
 * all 128 MiB, faulted in afresh for every copy, tests/test_state.c's runs
 * of every scene took 35 s instead of 6 in a Release build). */
#define ROUNDTRIP_FCRAM (16u << 20)
static pvk_result st_state(scene *s, char *p)
{
    char *what = token(&p);
    if (!what || strcmp(what, "roundtrip") || token(&p))
        return fail(s, "expected 'state roundtrip'");
    static const uint32_t regions[][2] = {{PVK_VRAM_BASE, PVK_VRAM_SIZE},
                                          {PVK_FCRAM_BASE, ROUNDTRIP_FCRAM},
                                          {PVK_AXI_WRAM_BASE, PVK_AXI_WRAM_SIZE}};
    enum { N = sizeof regions / sizeof regions[0] };
    uint8_t *copy[N] = {0}, *host[N];
    uint32_t size[N];
    size_t n = 0;
    uint8_t *state = NULL;
    pvk_result r = pvk_state_save(s->ctx, NULL, 0, &n);
    if (!r && !(state = malloc(n)))
        r = PVK_ERROR_OUT_OF_MEMORY;
    if (!r)
        r = pvk_state_save(s->ctx, state, n, &n);
    for (int i = 0; i < N && !r; i++) {
        size[i] = regions[i][1];
        host[i] = pvk_guest_ptr(s->ctx, regions[i][0], size[i]);
        if (!host[i] || !(copy[i] = malloc(size[i])))
            r = host[i] ? PVK_ERROR_OUT_OF_MEMORY : PVK_ERROR_OUT_OF_RANGE;
        else
            memcpy(copy[i], host[i], size[i]);
    }
    /* unrelated work: host writes everywhere, then a fill over VRAM */
    for (int i = 0; i < N && !r; i++) {
        memset(host[i], 0x5A, size[i]);
        r = pvk_guest_written(s->ctx, regions[i][0], size[i]);
    }
    static const uint32_t fill[][2] = {{0x10400010, PVK_VRAM_BASE >> 3},
                                       {0x10400014, (PVK_VRAM_BASE + PVK_VRAM_SIZE) >> 3},
                                       {0x10400018, 0xDEADBEEF},
                                       {0x1040001C, 0x201}};
    for (size_t i = 0; i < sizeof fill / sizeof fill[0] && !r; i++)
        r = pvk_mmio_write32(s->ctx, fill[i][0], fill[i][1]);
    if (!r)
        r = pvk_wait_idle(s->ctx);
    /* the host restores memory, then the state */
    for (int i = 0; i < N && !r; i++) {
        memcpy(host[i], copy[i], size[i]);
        r = pvk_guest_written(s->ctx, regions[i][0], size[i]);
    }
    if (!r)
        r = pvk_state_load(s->ctx, state, n);
    for (int i = 0; i < N; i++)
        free(copy[i]);
    free(state);
    return r ? fail(s, "state roundtrip: %s", pvk_result_string(r)) : PVK_SUCCESS;
}

static pvk_result statement(scene *s, char *line)
{
    if (s->in_shader) { /* the assembler sees the lines as written (';' comments) */
        char copy[MAX_LINE];
        snprintf(copy, sizeof copy, "%s", line);
        char *p = copy, *kw = token(&p);
        if (kw && !strcmp(kw, "endshader") && !token(&p)) /* `end` is an instruction */
            return shader_end(s);
        return shader_line(s, line);
    }
    char *hash = strchr(line, '#');
    if (hash)
        *hash = 0;
    char norm[3 * MAX_LINE];
    if (!split_operators(line, norm, sizeof norm))
        return fail(s, "line too long");
    char *p = norm;
    char *kw = token(&p);
    if (!kw)
        return PVK_SUCCESS;
    if (s->in_cmdlist) {
        if (!strcmp(kw, "end"))
            return cl_end(s);
        /* put the keyword back: it is the register name */
        char buf[MAX_LINE];
        int n = snprintf(buf, sizeof buf, "%s %s", kw, p);
        if (n < 0 || (size_t)n >= sizeof buf)
            return fail(s, "line too long");
        return cl_statement(s, buf);
    }
    if (!strcmp(kw, "mmio"))
        return st_mmio(s, p);
    if (!strcmp(kw, "reg"))
        return st_reg(s, p);
    if (!strcmp(kw, "mem"))
        return st_mem(s, p);
    if (!strcmp(kw, "cmdlist")) {
        if (!parse_u32(token(&p), &s->cl_addr) || (s->cl_addr & 15))
            return fail(s, "expected a 16-byte aligned address");
        s->in_cmdlist = true;
        s->cl_len = 0;
        return PVK_SUCCESS;
    }
    if (!strcmp(kw, "shader")) {
        char *unit = token(&p), *opt = unit ? token(&p) : NULL, *num = opt ? token(&p) : NULL;
        s->sh_stride = 0;
        if (unit && !strcmp(unit, "vs") && !opt) {
            s->sh_geometry = false;
        } else if (unit && !strcmp(unit, "gs") &&
                   (!opt || (!strcmp(opt, "stride") && parse_u32(num, &s->sh_stride) && s->sh_stride >= 1 &&
                             s->sh_stride <= 16 && !token(&p)))) {
            s->sh_geometry = true;
        } else {
            return fail(s, "expected 'shader vs' or 'shader gs [stride N]' (N 1-16)");
        }
        s->in_shader = true;
        s->sh_line = s->line;
        s->sh_len = 0;
        return PVK_SUCCESS;
    }
    if (!strcmp(kw, "vblank"))
        return pvk_vblank(s->ctx);
    if (!strcmp(kw, "wait"))
        return pvk_wait_idle(s->ctx);
    if (!strcmp(kw, "probe"))
        return st_probe(s, p);
    if (!strcmp(kw, "expect"))
        return st_expect(s, p);
    if (!strcmp(kw, "save"))
        return st_save(s, p);
    if (!strcmp(kw, "state"))
        return st_state(s, p);
    return fail(s, "unknown statement '%s'", kw);
}

pvk_result pvk_scene_run_text(pvk_context *ctx, const char *text, size_t len, const char *name, const char *dir,
                              int *failures)
{
    if (!ctx || (!text && len))
        return PVK_ERROR_INVALID_ARGUMENT;
    scene s = {.ctx = ctx, .name = name ? name : "scene", .dir = dir};
    pvk_result r = PVK_SUCCESS;
    size_t pos = 0;
    char line[MAX_LINE];
    while (pos < len && !r) {
        size_t n = 0;
        while (pos < len && text[pos] != '\n') {
            if (n + 1 < sizeof line)
                line[n++] = text[pos] ? text[pos] : ' ';
            else if (n + 1 == sizeof line) {
                n++; /* mark overlong */
            }
            pos++;
        }
        pos++;
        s.line++;
        if (n >= sizeof line) {
            r = fail(&s, "line longer than %d characters", MAX_LINE - 1);
            break;
        }
        line[n] = 0;
        if (n && line[n - 1] == '\r')
            line[n - 1] = 0;
        r = statement(&s, line);
    }
    if (!r && s.in_cmdlist)
        r = fail(&s, "command list not closed with 'end'");
    if (!r && s.in_shader)
        r = fail(&s, "shader not closed with 'endshader'");
    free(s.cl);
    free(s.sh_src);
    free(s.vs);
    if (!r)
        r = pvk_wait_idle(ctx);
    if (failures)
        *failures = s.failures;
    return r;
}

pvk_result pvk_scene_run_file(pvk_context *ctx, const char *path, int *failures)
{
    if (!ctx || !path)
        return PVK_ERROR_INVALID_ARGUMENT;
    char *text;
    size_t len;
    int e = pvk_read_file(path, &text, &len);
    if (e) {
        say(ctx, PVK_LOG_ERROR, "scene: %s: %s", path, pvk_input_error(e));
        return e == ENOMEM ? PVK_ERROR_OUT_OF_MEMORY : PVK_ERROR_IO;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    pvk_result r = pvk_scene_run_text(ctx, text, len, path, slash ? dir : ".", failures);
    free(text);
    return r;
}
