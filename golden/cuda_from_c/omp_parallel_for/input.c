#include <math.h>

/* Rotates n points by theta. Iteration i writes out[2 * i] and out[2 * i + 1]: two
   indices, which s2sad does not prove apart from other iterations' by itself; the
   pragma says the iterations are independent. */
void rotate_all(int n, double theta, const double *pts, double *out)
{
    double c = cos(theta);
    double s = sin(theta);
    #pragma omp parallel for
    for (int i = 0; i < n; i++) {
        double px = pts[2 * i];
        double py = pts[2 * i + 1];
        out[2 * i] = c * px - s * py;
        out[2 * i + 1] = s * px + c * py;
    }
}
