#include <math.h>

/* A helper whose branch fills and reads small local arrays: the reverse sweep keeps three
 * numbers per call, on the stack (`double tape_u_elem[3]`), not in a calloc'd buffer made and
 * freed on every call. */
static void unit_scaled(const double *r, const double *p, double *out) {
    double n2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    if (n2 > 1e-12) {
        double n = sqrt(n2);
        double u[3];
        for (int k = 0; k < 3; k++)
            u[k] = r[k] / n;
        double t = u[0] * p[0] + u[1] * p[1] + u[2] * p[2];
        for (int k = 0; k < 3; k++)
            out[k] = p[k] * cos(n) + u[k] * t * sin(n);
    } else {
        for (int k = 0; k < 3; k++)
            out[k] = p[k];
    }
}

double small_tape_on_stack(int m, const double *r, const double *pts) {
    double s = 0.0;
    double q[3];
    for (int i = 0; i < m; i++) {
        unit_scaled(r, &pts[3 * i], q);
        s += q[0] * q[1] + q[2] * q[2];
    }
    return s;
}
