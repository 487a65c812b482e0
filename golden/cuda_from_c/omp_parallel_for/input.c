#include <math.h>

/* Rotates n points by theta. Iteration i reads and writes elements 2 * i and 2 * i + 1,
   a point no other iteration touches (s2sad proves it; the pragma says it too), so the
   adjoints of pts are plain +=, and theta's a block reduction. */
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
