#include <math.h>

/* Local 3 x 3 arrays: W from a nested initializer, tmp built in a loop, then the quadratic
   form x' tmp x read back from it. */
double local_quad(const double *x)
{
    double W[3][3] = {{2.0, 0.5, 0.0}, {0.5, 1.0, 0.25}, {0.0, 0.25, 3.0}};
    double tmp[3][3];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            tmp[i][j] = W[i][j] + sin(x[i]) * x[j];
        }
    }
    double s = 0.0;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            s += x[i] * tmp[i][j] * x[j];
        }
    }
    return s;
}
