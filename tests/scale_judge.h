/* The judgement of an N x screen against the 1x screen of the same frame,
 * shared by tests/scale_judge.c (real programs, scripts/realclient.sh) and
 * tests/test_scale_frames.c:
 * - detail: the count of N x N blocks of the N x picture that are not one
 *   colour (a 1x frame blown up has none; a frame drawn at N x has them
 *   along every slanted edge);
 * - the box average of each N x N block equals the 1x pixel within
 *   SJ_TOL per channel wherever the 1x picture is flat (see SJ_R); at edges
 *   the two may differ (coverage moves with the sample grid), so those are
 *   only counted.
 * Pixels are RGBA8 (alpha ignored), rows packed. */
#ifndef PVK_TESTS_SCALE_JUDGE_H
#define PVK_TESTS_SCALE_JUDGE_H

#include <stdint.h>
#include <stdlib.h>

#define SJ_TOL 8 /* per channel: linear texture filtering samples N x N points where 1x samples one */
/* Flat: the pixels up to SJ_R away are one colour, none past the border.  1
 * is not enough: a feature thinner than a pixel (a toon-shading highlight, a
 * circle's rim at the screen's border) misses 1x pixel centres that its
 * N x samples hit. */
#define SJ_R 2

typedef struct sj_result {
    uint32_t mixed;    /* N x N blocks not one colour */
    uint32_t flat_off; /* flat 1x pixels whose block's average is off by more than SJ_TOL */
    uint32_t worst;    /* the largest such difference */
    uint32_t edge, edge_off; /* 1x pixels not flat, and how many of them differ */
    uint32_t first_x, first_y; /* the first flat pixel off */
} sj_result;

static inline int sj_same_rgb(const uint8_t *a, const uint8_t *b)
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

static inline sj_result sj_judge(const uint8_t *one, uint32_t w, uint32_t h, const uint8_t *big, uint32_t n)
{
    sj_result r = {0};
    uint32_t bw = w * n;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            const uint8_t *p = one + ((size_t)y * w + x) * 4;
            const uint8_t *first = big + ((size_t)y * n * bw + x * n) * 4;
            uint32_t sum[3] = {0, 0, 0};
            int uniform = 1;
            for (uint32_t j = 0; j < n; j++)
                for (uint32_t i = 0; i < n; i++) {
                    const uint8_t *q = big + ((size_t)(y * n + j) * bw + x * n + i) * 4;
                    uniform &= sj_same_rgb(q, first);
                    for (int c = 0; c < 3; c++)
                        sum[c] += q[c];
                }
            r.mixed += !uniform;
            int flat = 1;
            for (int dy = -SJ_R; dy <= SJ_R; dy++)
                for (int dx = -SJ_R; dx <= SJ_R; dx++) {
                    int xx = (int)x + dx, yy = (int)y + dy;
                    flat &= xx >= 0 && yy >= 0 && xx < (int)w && yy < (int)h &&
                            sj_same_rgb(one + ((size_t)yy * w + xx) * 4, p);
                }
            r.edge += !flat;
            uint32_t d = 0;
            for (int c = 0; c < 3; c++) {
                int avg = (int)((sum[c] + n * n / 2) / (n * n)), dc = abs(avg - p[c]);
                d = (uint32_t)dc > d ? (uint32_t)dc : d;
            }
            if (d <= SJ_TOL)
                continue;
            if (!flat) {
                r.edge_off++;
                continue;
            }
            if (!r.flat_off)
                r.first_x = x, r.first_y = y;
            r.flat_off++;
            r.worst = d > r.worst ? d : r.worst;
        }
    return r;
}

#endif
