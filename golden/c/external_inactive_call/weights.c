/* The functions input.c declares: linked with the primal and the gradient, never read by s2sad. */
#include <math.h>

double weight(int k)
{
    return 1.0 + 0.25 * k;
}

double scaled_norm(const double *c, int m, double scale)
{
    double s = 0.0;
    for (int i = 0; i < m; i++) {
        s += c[i] * c[i];
    }
    return scale * sqrt(s);
}

int bucket(double t)
{
    return (int)(2.0 * t) % 3;
}
