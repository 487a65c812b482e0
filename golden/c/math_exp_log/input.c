/* math.h: exp, log, sqrt, pow on positive inputs. */
#include <math.h>

double log_likelihood(const double *x, const double *w, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += w[i] * log(x[i]) + sqrt(x[i]) - exp(-w[i] * x[i]) + pow(x[i], w[i]);
    }
    return s;
}
