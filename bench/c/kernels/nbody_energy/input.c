#include <math.h>

/* The potential energy of n bodies in 3-D, pairs in a triangular loop. */
double energy(int n, const double pos[n][3], const double mass[n])
{
    double e = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double r2 = 0.01;
            for (int c = 0; c < 3; c++) {
                double d = pos[i][c] - pos[j][c];
                r2 += d * d;
            }
            e -= mass[i] * mass[j] / sqrt(r2);
        }
    return e;
}
