/* See sample_ref.h. */
#include "sample_ref.h"

#include <math.h>
#include <string.h>

/* One axis: index i of n texels after wrap `wrap`, or -1 for the border. */
static long wrap_index(unsigned wrap, long i, long n)
{
    switch (wrap) {
    case 0: /* clamp to edge */
        return i < 0 ? 0 : i >= n ? n - 1 : i;
    case 1: /* clamp to border */
        return i < 0 || i >= n ? -1 : i;
    case 2: { /* repeat */
        long m = i % n;
        return m < 0 ? m + n : m;
    }
    default: { /* mirrored repeat: n texels forward, n backward */
        long m = i % (2 * n);
        if (m < 0)
            m += 2 * n;
        return m < n ? m : 2 * n - 1 - m;
    }
    }
}

int sample_ref_texel(const sample_ref_unit *u, const uint8_t *rgba, unsigned w, unsigned h, long i, long j,
                     uint8_t out[4])
{
    long x = wrap_index(u->wrap_s, i, (long)w), y = wrap_index(u->wrap_t, j, (long)h);
    if (x < 0 || y < 0) {
        memcpy(out, u->border, 4);
        return 0;
    }
    long row = (long)h - 1 - y; /* t runs up: its row 0 is memory's last */
    memcpy(out, rgba + ((size_t)row * w + (size_t)x) * 4, 4);
    return 1;
}

void sample_ref_2d(const sample_ref_unit *u, const uint8_t *rgba, unsigned w, unsigned h, double s, double t,
                   uint8_t out[4])
{
    if (!u->linear) {
        sample_ref_texel(u, rgba, w, h, (long)floor(s * w), (long)floor(t * h), out);
        return;
    }
    double x = s * w - 0.5, y = t * h - 0.5;
    long i0 = (long)floor(x), j0 = (long)floor(y);
    double fx = x - i0, fy = y - j0;
    uint8_t c[4][4];
    sample_ref_texel(u, rgba, w, h, i0, j0, c[0]);
    sample_ref_texel(u, rgba, w, h, i0 + 1, j0, c[1]);
    sample_ref_texel(u, rgba, w, h, i0, j0 + 1, c[2]);
    sample_ref_texel(u, rgba, w, h, i0 + 1, j0 + 1, c[3]);
    for (int k = 0; k < 4; k++) {
        double v = (c[0][k] * (1 - fx) + c[1][k] * fx) * (1 - fy) + (c[2][k] * (1 - fx) + c[3][k] * fx) * fy;
        out[k] = (uint8_t)floor(v + 0.5);
    }
}

void sample_ref_cube_face(double x, double y, double z, unsigned *face, double *s, double *t)
{
    double ax = fabs(x), ay = fabs(y), az = fabs(z), sc, tc, ma;
    if (ax >= ay && ax >= az) {
        *face = x >= 0 ? 0 : 1;
        sc = x >= 0 ? -z : z;
        tc = -y;
        ma = ax;
    } else if (ay >= az) {
        *face = y >= 0 ? 2 : 3;
        sc = x;
        tc = y >= 0 ? z : -z;
        ma = ay;
    } else {
        *face = z >= 0 ? 4 : 5;
        sc = z >= 0 ? x : -x;
        tc = -y;
        ma = az;
    }
    /* the face is addressed like a 2D texture: t up from its last row in memory */
    *s = (sc / ma + 1) / 2;
    *t = (tc / ma + 1) / 2;
}

static double shadow_texel(const uint8_t *rgba, unsigned w, unsigned h, long i, long j, uint32_t z)
{
    if (i < 0 || j < 0 || i >= (long)w || j >= (long)h)
        return 1.0;
    const uint8_t *c = rgba + ((size_t)(h - 1 - j) * w + (size_t)i) * 4; /* j counts up from the last row */
    uint32_t depth = (uint32_t)c[3] << 16 | (uint32_t)c[2] << 8 | c[1]; /* A, B, G */
    return depth > z ? c[0] / 255.0 : 0.0;
}

double sample_ref_shadow(const uint8_t *rgba, unsigned w, unsigned h, double s, double t, uint32_t z)
{
    double x = s * w - 0.5, y = t * h - 0.5;
    long i = (long)floor(x), j = (long)floor(y);
    double fx = x - i, fy = y - j;
    double a = shadow_texel(rgba, w, h, i, j, z), b = shadow_texel(rgba, w, h, i + 1, j, z);
    double c = shadow_texel(rgba, w, h, i, j + 1, z), d = shadow_texel(rgba, w, h, i + 1, j + 1, z);
    return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy;
}
