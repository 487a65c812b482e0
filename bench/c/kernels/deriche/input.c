#include <math.h>

/* A recursive (IIR) edge filter run forward and backward along both axes. */
void deriche(int w, int h, double alpha, const double imgIn[w][h], double imgOut[w][h], double y1[w][h],
             double y2[w][h])
{
    double k = (1.0 - exp(-alpha)) * (1.0 - exp(-alpha)) / (1.0 + 2.0 * alpha * exp(-alpha) - exp(2.0 * alpha));
    double a1 = k, a5 = k;
    double a2 = k * exp(-alpha) * (alpha - 1.0), a6 = a2;
    double a3 = k * exp(-alpha) * (alpha + 1.0), a7 = a3;
    double a4 = -k * exp(-2.0 * alpha), a8 = a4;
    double b1 = pow(2.0, -alpha);
    double b2 = -exp(-2.0 * alpha);
    for (int i = 0; i < w; i++) {
        double ym1 = 0.0, ym2 = 0.0, xm1 = 0.0;
        for (int j = 0; j < h; j++) {
            y1[i][j] = a1 * imgIn[i][j] + a2 * xm1 + b1 * ym1 + b2 * ym2;
            xm1 = imgIn[i][j];
            ym2 = ym1;
            ym1 = y1[i][j];
        }
    }
    for (int i = 0; i < w; i++) {
        double yp1 = 0.0, yp2 = 0.0, xp1 = 0.0, xp2 = 0.0;
        for (int j = h - 1; j >= 0; j--) {
            y2[i][j] = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2;
            xp2 = xp1;
            xp1 = imgIn[i][j];
            yp2 = yp1;
            yp1 = y2[i][j];
        }
    }
    for (int i = 0; i < w; i++)
        for (int j = 0; j < h; j++)
            imgOut[i][j] = y1[i][j] + y2[i][j];
    for (int j = 0; j < h; j++) {
        double tm1 = 0.0, ym1 = 0.0, ym2 = 0.0;
        for (int i = 0; i < w; i++) {
            y1[i][j] = a5 * imgOut[i][j] + a6 * tm1 + b1 * ym1 + b2 * ym2;
            tm1 = imgOut[i][j];
            ym2 = ym1;
            ym1 = y1[i][j];
        }
    }
    for (int j = 0; j < h; j++) {
        double tp1 = 0.0, tp2 = 0.0, yp1 = 0.0, yp2 = 0.0;
        for (int i = w - 1; i >= 0; i--) {
            y2[i][j] = a7 * tp1 + a8 * tp2 + b1 * yp1 + b2 * yp2;
            tp2 = tp1;
            tp1 = imgOut[i][j];
            yp2 = yp1;
            yp1 = y2[i][j];
        }
    }
    for (int i = 0; i < w; i++)
        for (int j = 0; j < h; j++)
            imgOut[i][j] = y1[i][j] + y2[i][j];
}
