/* The CPU reference model of the transfer engine: per-byte and per-pixel
 * loops taken directly from the specification.  Slow on purpose. */
#include "transfer_ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VRAM_BASE 0x18000000u
#define VRAM_SIZE 0x00600000u
#define FCRAM_BASE 0x20000000u
#define FCRAM_SIZE 0x08000000u
#define WRAM_BASE 0x1FF00000u
#define WRAM_SIZE 0x00080000u

void ref_guest_init(ref_guest *g, uint8_t *mem, uint32_t mem_base, uint32_t mem_size)
{
    memset(g, 0, sizeof *g);
    ref_guest_add(g, mem, mem_base, mem_size);
}

bool ref_guest_add(ref_guest *g, uint8_t *mem, uint32_t mem_base, uint32_t mem_size)
{
    if (g->count >= REF_MAX_WINDOWS)
        return false;
    g->win[g->count].base = mem_base;
    g->win[g->count].size = mem_size;
    g->win[g->count].data = mem;
    g->count++;
    return true;
}

/* ---- guest memory ---- */

bool ref_range_in_region(const ref_guest *g, uint32_t addr, uint64_t len)
{
    uint64_t fcram = g->fcram_size ? g->fcram_size : FCRAM_SIZE;
    const uint64_t base[3] = {VRAM_BASE, FCRAM_BASE, WRAM_BASE};
    const uint64_t size[3] = {VRAM_SIZE, fcram, WRAM_SIZE};
    for (int i = 0; i < 3; i++)
        if ((uint64_t)addr >= base[i] && (uint64_t)addr + len <= base[i] + size[i])
            return true;
    return false;
}

static uint8_t *byte_at(ref_guest *g, uint64_t addr)
{
    for (int i = 0; i < g->count; i++) {
        const ref_window *w = &g->win[i];
        if (addr >= w->base && addr < (uint64_t)w->base + w->size)
            return w->data + (addr - w->base);
    }
    if (!g->fault)
        fprintf(stderr, "transfer_ref: guest byte 0x%llX is outside every window\n", (unsigned long long)addr);
    g->fault = 1;
    return NULL;
}

static uint8_t read_byte(ref_guest *g, uint64_t addr)
{
    uint8_t *p = byte_at(g, addr);
    return p ? *p : 0;
}

static void write_byte(ref_guest *g, uint64_t addr, uint8_t v)
{
    uint8_t *p = byte_at(g, addr);
    if (p)
        *p = v;
}

/* Register address fields: bits 1-28 kept, byte address = value << 3. */
static uint32_t reg_address(uint32_t value)
{
    return (value & 0x1FFFFFFEu) << 3;
}

/* ---- memory fill ---- */

bool ref_memfill(ref_guest *g, const ref_fill_regs *r)
{
    if (!(r->cnt & 1))
        return false;
    uint32_t start = reg_address(r->dst_addr);
    uint32_t end = reg_address(r->dst_end);
    if (end <= start)
        return false;
    if (!ref_range_in_region(g, start, (uint64_t)end - start))
        return false;
    uint32_t width = (r->cnt >> 8) & 3;
    uint32_t period = width == 0 ? 2 : width == 2 ? 4 : 3;
    for (uint64_t i = 0; i < (uint64_t)end - start; i++) {
        uint32_t k = (uint32_t)(i % period);
        write_byte(g, (uint64_t)start + i, (uint8_t)(r->value >> (8 * k)));
    }
    return true;
}

/* ---- pixels ---- */

uint32_t ref_format_bpp(uint32_t fmt)
{
    switch (fmt & 7) {
    case 0:
        return 4;
    case 1:
        return 3;
    default:
        return 2;
    }
}

typedef struct rgba {
    uint32_t r, g, b, a;
} rgba;

static uint32_t expand5(uint32_t v) { return (v << 3) | (v >> 2); }
static uint32_t expand6(uint32_t v) { return (v << 2) | (v >> 4); }
static uint32_t expand4(uint32_t v) { return v * 17; }

static rgba decode(const uint8_t *p, uint32_t fmt)
{
    rgba c = {0, 0, 0, 0};
    uint32_t v16 = (uint32_t)p[0] | (uint32_t)p[1] << 8; /* only meaningful for 16-bit */
    switch (fmt & 7) {
    case 0: /* bytes A, B, G, R */
        c.a = p[0];
        c.b = p[1];
        c.g = p[2];
        c.r = p[3];
        break;
    case 1: /* bytes B, G, R */
        c.b = p[0];
        c.g = p[1];
        c.r = p[2];
        c.a = 255;
        break;
    case 2: /* RGB565 */
        c.r = expand5((v16 >> 11) & 31);
        c.g = expand6((v16 >> 5) & 63);
        c.b = expand5(v16 & 31);
        c.a = 255;
        break;
    case 3: /* RGB5A1 */
        c.r = expand5((v16 >> 11) & 31);
        c.g = expand5((v16 >> 6) & 31);
        c.b = expand5((v16 >> 1) & 31);
        c.a = (v16 & 1) ? 255 : 0;
        break;
    default: /* RGBA4 */
        c.r = expand4((v16 >> 12) & 15);
        c.g = expand4((v16 >> 8) & 15);
        c.b = expand4((v16 >> 4) & 15);
        c.a = expand4(v16 & 15);
        break;
    }
    return c;
}

static void encode(uint8_t *p, uint32_t fmt, rgba c)
{
    uint32_t v16 = 0;
    switch (fmt & 7) {
    case 0:
        p[0] = (uint8_t)c.a;
        p[1] = (uint8_t)c.b;
        p[2] = (uint8_t)c.g;
        p[3] = (uint8_t)c.r;
        return;
    case 1:
        p[0] = (uint8_t)c.b;
        p[1] = (uint8_t)c.g;
        p[2] = (uint8_t)c.r;
        return;
    case 2:
        v16 = (c.r >> 3) << 11 | (c.g >> 2) << 5 | (c.b >> 3);
        break;
    case 3:
        v16 = (c.r >> 3) << 11 | (c.g >> 3) << 6 | (c.b >> 3) << 1 | (c.a >> 7);
        break;
    default:
        v16 = (c.r >> 4) << 12 | (c.g >> 4) << 8 | (c.b >> 4) << 4 | (c.a >> 4);
        break;
    }
    p[0] = (uint8_t)v16;
    p[1] = (uint8_t)(v16 >> 8);
}

/* Tiled pixel index: 8x8 tiles row-major, Morton order inside a tile with x
 * in the even bits (x0, y0, x1, y1, x2, y2). */
uint32_t ref_morton_index(uint32_t x, uint32_t y, uint32_t w)
{
    uint32_t m = 0;
    for (uint32_t bit = 0; bit < 3; bit++) {
        m |= ((x >> bit) & 1) << (2 * bit);
        m |= ((y >> bit) & 1) << (2 * bit + 1);
    }
    return (y & ~7u) * w + (x & ~7u) * 8 + m;
}

static uint32_t linear_index(uint32_t x, uint32_t y, uint32_t w)
{
    return y * w + x;
}

/* Snapshot [addr, addr+len) of guest memory. */
static uint8_t *snapshot(ref_guest *g, uint32_t addr, uint64_t len)
{
    uint8_t *s = malloc(len ? len : 1);
    if (!s) {
        g->fault = 1;
        return NULL;
    }
    for (uint64_t i = 0; i < len; i++)
        s[i] = read_byte(g, (uint64_t)addr + i);
    return s;
}

static bool is16(uint32_t fmt)
{
    return fmt >= 2;
}

static bool display_transfer(ref_guest *g, uint32_t src, uint32_t dst, uint32_t ow, uint32_t oh, uint32_t iw,
                             uint32_t flags)
{
    uint32_t in_fmt = (flags >> 8) & 7, out_fmt = (flags >> 12) & 7;
    uint32_t ds = (flags >> 24) & 3;
    bool flip = flags & 1, to_tiled = flags & 2;
    if (ow == 0 || oh == 0 || iw == 0 || ow > iw || ds == 3)
        return false;
    if (in_fmt == 1 && out_fmt != 1)
        return false;
    if (is16(in_fmt) && !is16(out_fmt))
        return false;
    uint32_t sx = ds != 0, sy = ds == 2;
    uint32_t w = ow >> sx, h = oh >> sy;
    if (to_tiled && (w % 8 != 0 || h % 8 != 0))
        return false;
    uint32_t in_bpp = ref_format_bpp(in_fmt), out_bpp = ref_format_bpp(out_fmt);
    /* input rows (tile rows) are IW pixels apart with bit 2, else OW: the
     * input is read as if it were as wide as the output */
    uint32_t pitch = (flags & 4) ? iw : ow;
    /* the bytes actually read: the last row (tile row) only up to OW */
    uint32_t lines = to_tiled ? 1 : 8, rows = (oh + lines - 1) / lines;
    uint64_t src_len = ((uint64_t)(rows - 1) * pitch + ow) * lines * in_bpp;
    uint64_t dst_len = (uint64_t)w * h * out_bpp;
    if (!ref_range_in_region(g, src, src_len) || !ref_range_in_region(g, dst, dst_len))
        return false;

    uint8_t *in = snapshot(g, src, src_len);
    if (!in)
        return false;
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            rgba sum = {0, 0, 0, 0};
            for (uint32_t dy = 0; dy <= sy; dy++) {
                for (uint32_t dx = 0; dx <= sx; dx++) {
                    uint32_t ix = (x << sx) + dx, iy = (y << sy) + dy;
                    uint32_t idx = to_tiled ? linear_index(ix, iy, pitch) : ref_morton_index(ix, iy, pitch);
                    rgba c = decode(in + (uint64_t)idx * in_bpp, in_fmt);
                    sum.r += c.r;
                    sum.g += c.g;
                    sum.b += c.b;
                    sum.a += c.a;
                }
            }
            uint32_t shift = sx + sy;
            rgba avg = {sum.r >> shift, sum.g >> shift, sum.b >> shift, sum.a >> shift};
            uint32_t oy = flip ? h - 1 - y : y;
            uint32_t odx = to_tiled ? ref_morton_index(x, oy, w) : linear_index(x, oy, w);
            uint8_t px[4];
            encode(px, out_fmt, avg);
            for (uint32_t b = 0; b < out_bpp; b++)
                write_byte(g, (uint64_t)dst + (uint64_t)odx * out_bpp + b, px[b]);
        }
    }
    free(in);
    return true;
}

static bool raw_tiled_copy(ref_guest *g, uint32_t src, uint32_t dst, uint32_t ow, uint32_t oh, uint32_t iw,
                           uint32_t flags)
{
    uint32_t b = ref_format_bpp((flags >> 12) & 7);
    if (ow == 0 || oh == 0 || iw == 0 || ow > iw)
        return false;
    uint32_t rows = oh / 8;
    uint32_t pitch = (flags & 4) ? iw : ow; /* as for display transfers */
    uint64_t line = (uint64_t)ow * 8 * b, in_stride = (uint64_t)pitch * 8 * b;
    /* the bytes actually read and written */
    uint64_t src_len = (uint64_t)(rows - 1) * in_stride + line, dst_len = (uint64_t)rows * line;
    if (!ref_range_in_region(g, src, src_len) || !ref_range_in_region(g, dst, dst_len))
        return false;
    uint8_t *in = snapshot(g, src, src_len);
    if (!in)
        return false;
    for (uint32_t r = 0; r < rows; r++)
        for (uint64_t i = 0; i < line; i++)
            write_byte(g, (uint64_t)dst + r * line + i, in[r * in_stride + i]);
    free(in);
    return true;
}

static bool texture_copy(ref_guest *g, uint32_t src, uint32_t dst, const ref_copy_regs *r, uint32_t flags)
{
    uint32_t size = r->tex_size & 0xFFFFFFF0u;
    if (size == 0)
        return false;
    uint64_t in_w = size, in_gap = 0, out_w = size, out_gap = 0;
    if (flags & 4) {
        uint64_t iw = (uint64_t)(r->tex_src_width & 0xFFFF) * 16, ig = (uint64_t)(r->tex_src_width >> 16) * 16;
        uint64_t ow = (uint64_t)(r->tex_dst_width & 0xFFFF) * 16, og = (uint64_t)(r->tex_dst_width >> 16) * 16;
        if ((iw == 0 && ig != 0) || (ow == 0 && og != 0) || size < 192)
            return false;
        if (iw) {
            in_w = iw;
            in_gap = ig;
        }
        if (ow) {
            out_w = ow;
            out_gap = og;
        }
    }
    /* the spans from the first to one past the last byte touched */
    uint64_t last = size - 1;
    uint64_t src_len = (last / in_w) * (in_w + in_gap) + last % in_w + 1;
    uint64_t dst_len = (last / out_w) * (out_w + out_gap) + last % out_w + 1;
    if (!ref_range_in_region(g, src, src_len) || !ref_range_in_region(g, dst, dst_len))
        return false;
    uint8_t *in = snapshot(g, src, src_len);
    if (!in)
        return false;
    for (uint64_t i = 0; i < size; i++) {
        uint64_t from = (i / in_w) * (in_w + in_gap) + i % in_w;
        uint64_t to = (i / out_w) * (out_w + out_gap) + i % out_w;
        write_byte(g, (uint64_t)dst + to, in[from]);
    }
    free(in);
    return true;
}

bool ref_memcopy(ref_guest *g, const ref_copy_regs *r)
{
    uint32_t src = reg_address(r->src_addr), dst = reg_address(r->dst_addr);
    uint32_t out_dim = r->out_dim & 0xFFF8FFF8u, in_dim = r->in_dim & 0xFFF8FFF8u;
    uint32_t flags = r->flags & 0x0301772Fu;
    uint32_t ow = out_dim & 0xFFFF, oh = out_dim >> 16, iw = in_dim & 0xFFFF;
    if (flags & 8)
        return texture_copy(g, src, dst, r, flags);
    if (flags & 0x20)
        return raw_tiled_copy(g, src, dst, ow, oh, iw, flags);
    return display_transfer(g, src, dst, ow, oh, iw, flags);
}
