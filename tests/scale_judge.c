/* Judges an N x screen against the 1x screen of the same frame (the real
 * programs' harness, scripts/realclient.sh; the judgement is scale_judge.h):
 *
 *   scale_judge N ONE.png BIG.png [--no-detail]
 *
 * BIG must be exactly N times ONE in both directions, have no flat pixel off
 * and, unless --no-detail, N x detail (mixed blocks > 0).  Prints one line;
 * exits 0 when the picture passes, 1 when not, 2 on bad arguments or
 * unreadable files. */
#include <png.h>
#include <stdio.h>
#include <string.h>

#include "scale_judge.h"

static uint8_t *load(const char *path, uint32_t *w, uint32_t *h)
{
    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&im, path)) {
        fprintf(stderr, "scale_judge: %s: %s\n", path, im.message);
        return NULL;
    }
    im.format = PNG_FORMAT_RGBA;
    uint8_t *px = malloc(PNG_IMAGE_SIZE(im));
    if (!px || !png_image_finish_read(&im, NULL, px, 0, NULL)) {
        fprintf(stderr, "scale_judge: %s: %s\n", path, px ? im.message : "out of memory");
        free(px);
        png_image_free(&im);
        return NULL;
    }
    *w = im.width;
    *h = im.height;
    return px;
}

int main(int argc, char **argv)
{
    if (argc < 4 || atoi(argv[1]) < 2) {
        fprintf(stderr, "usage: scale_judge N ONE.png BIG.png [--no-detail]\n");
        return 2;
    }
    uint32_t n = (uint32_t)atoi(argv[1]), w, h, bw, bh;
    int need_detail = !(argc > 4 && !strcmp(argv[4], "--no-detail"));
    uint8_t *one = load(argv[2], &w, &h), *big = one ? load(argv[3], &bw, &bh) : NULL;
    if (!one || !big) {
        free(one);
        return 2;
    }
    if (bw != w * n || bh != h * n) {
        printf("FAIL %s: %ux%u is not %u x %ux%u\n", argv[3], bw, bh, n, w, h);
        free(one), free(big);
        return 1;
    }
    sj_result r = sj_judge(one, w, h, big, n);
    int pass = r.flat_off == 0 && (r.mixed > 0 || !need_detail);
    printf("%s %s: %u of %u blocks mixed; box average vs 1x: %u flat pixels off by more than %d (worst %u, "
           "first at %u,%u), %u of %u edge pixels differ\n",
           pass ? "PASS" : "FAIL", argv[3], r.mixed, w * h, r.flat_off, SJ_TOL, r.worst, r.first_x, r.first_y,
           r.edge_off, r.edge);
    free(one), free(big);
    return pass ? 0 : 1;
}
