#include <math.h>

/* A stack of layers, each computed from the one before: the input pointer moves from x to
 * the rows of H (xp = H[l]), as a network's layer outputs are read back. */
double layers(int L, int n, const double *x, double H[L][n])
{
    const double *xp = x;
    for (int l = 0; l < L; l++) {
        for (int i = 0; i < n; i++)
            H[l][i] = sin(xp[i]) * 0.5 + xp[(i + 1) % n];
        xp = H[l];
    }
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += xp[i] * xp[i];
    return s;
}
