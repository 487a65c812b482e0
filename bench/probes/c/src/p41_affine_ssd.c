/* Intensity-based image registration cost: the moving image (float pixels,
 * row-major, width w, height h) is resampled by bilinear interpolation at the
 * affine image of each fixed-image pixel, coordinates clamped to the image
 * (floor, (int) casts, a CLAMP macro); pixels outside a binary mask
 * (unsigned char) are skipped. Sum of squared differences, normalised by the
 * number of pixels used, plus a small penalty pulling the affine part to the
 * identity. */
#include <math.h>

#define CLAMP(v, lo, hi) ((v) < (lo) ? (lo) : ((v) > (hi) ? (hi) : (v)))

static double bilinear(const float *img, int w, int h, double x, double y)
{
    x = CLAMP(x, 0.0, (double)(w - 1));
    y = CLAMP(y, 0.0, (double)(h - 1));
    int x0 = (int)floor(x), y0 = (int)floor(y);
    if (x0 > w - 2) x0 = w - 2;
    if (y0 > h - 2) y0 = h - 2;
    const double fx = x - x0, fy = y - y0;
    const float *row0 = img + (long)y0 * w;
    const float *row1 = row0 + w;
    double top = (1.0 - fx) * row0[x0] + fx * row0[x0 + 1];
    double bot = (1.0 - fx) * row1[x0] + fx * row1[x0 + 1];
    return (1.0 - fy) * top + fy * bot;
}

double affine_ssd(const double *T, const float *fixed, const float *moving,
                  const unsigned char *mask, int w, int h, double reg)
{
    const double cx = 0.5 * (w - 1), cy = 0.5 * (h - 1);
    double ssd = 0.0;
    long count = 0;
    for (int j = 0; j < h; j++) {
        for (int i = 0; i < w; i++) {
            if (!mask[j * w + i]) continue;
            const double u = i - cx, v = j - cy;
            const double xs = T[0] * u + T[1] * v + T[2] + cx;
            const double ys = T[3] * u + T[4] * v + T[5] + cy;
            const double d = bilinear(moving, w, h, xs, ys) - (double)fixed[j * w + i];
            ssd += d * d;
            ++count;
        }
    }
    const double pen = (T[0] - 1.0) * (T[0] - 1.0) + T[1] * T[1]
                     + T[3] * T[3] + (T[4] - 1.0) * (T[4] - 1.0);
    return ssd / (double)count + reg * pen;
}
