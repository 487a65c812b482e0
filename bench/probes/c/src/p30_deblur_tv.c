/* Deconvolution with total-variation regularisation: the estimate is blurred
 * with a small (2R+1)x(2R+1) kernel with clamp-to-edge boundary handling and
 * compared with the observed image; isotropic TV with a smoothing epsilon and
 * Neumann (zero) differences at the last row/column. Images are row-major
 * double *img of width w and height h. */
#include <stdlib.h>
#include <math.h>

#define R 1
#define KW (2 * R + 1)
#define AT(im, x, y) ((im)[(y) * w + (x)])

static inline int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

static void convolve_clamped(const double *img, int w, int h, const double *kern, double *out)
{
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            double acc = 0.0;
            for (int dy = -R; dy <= R; dy++) {
                int yy = y + dy;
                yy = yy < 0 ? 0 : (yy >= h ? h - 1 : yy);
                for (int dx = -R; dx <= R; dx++) {
                    int xx = clampi(x + dx, 0, w - 1);
                    acc += kern[(dy + R) * KW + (dx + R)] * AT(img, xx, yy);
                }
            }
            AT(out, x, y) = acc;
        }
    }
}

static double total_variation(const double *u, int w, int h, double eps)
{
    double tv = 0.0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double gx = (x + 1 < w) ? AT(u, x + 1, y) - AT(u, x, y) : 0.0;
            double gy = (y + 1 < h) ? AT(u, x, y + 1) - AT(u, x, y) : 0.0;
            tv += sqrt(eps * eps + gx * gx + gy * gy);
        }
    return tv;
}

double deblur_objective(const double *u, int w, int h, const double *kern,
                        const double *obs, double lambda, double eps)
{
    const int npix = w * h;
    double *Ku = malloc((size_t)npix * sizeof *Ku);
    convolve_clamped(u, w, h, kern, Ku);
    double data = 0.0;
    for (int i = 0; i < npix; ++i) {
        const double d = Ku[i] - obs[i];
        data += d * d;
    }
    free(Ku);
    return 0.5 * data + lambda * total_variation(u, w, h, eps);
}
