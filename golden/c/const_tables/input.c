#include <math.h>

/* Read-only tables, as numerical code keeps its coefficients: file-scope static const
   arrays (one sized by its initializer), a static const local, and unsized local arrays
   of doubles and of ints. */
#define NCOEF 5

static const double coef[NCOEF] = {1.0, -0.5, 0.25, -0.125, 0.0625};
static const int offsets[] = {-2, -1, 0, 1, 2};

static double poly(double v)
{
    double p = 0.0;
    for (int k = NCOEF - 1; k >= 0; k--) {
        p = p * v + coef[k];
    }
    return p;
}

double smooth_energy(const double *x, int n)
{
    double w[] = {0.1, 0.2, 0.4, 0.2, 0.1};
    static const double scale[] = {1.0, 2.0};
    int order[] = {1, 0};
    double s = 0.0;
    for (int i = 2; i < n - 2; i++) {
        double v = 0.0;
        for (int k = 0; k < 5; k++) {
            v += w[k] * x[i + offsets[k]];
        }
        s += scale[order[i % 2]] * poly(v);
    }
    return s;
}
