/* Central differences for the golden C cases whose parameters ctypes cannot build (struct
 * values, structs with pointer members): the case's check.c defines NTHETA, the objective
 * J(theta) (the primal on inputs built from theta: d_return * f + <seed, what it writes>) and
 * G(theta, grad) (the generated gradient on the same inputs), and this main compares them. */
#include <math.h>
#include <stdio.h>

static double J(const double *theta);
static void G(const double *theta, double *grad);

int main(void) {
    double theta[NTHETA], grad[NTHETA], t[NTHETA];
    unsigned s = 12345u;
    for (int k = 0; k < NTHETA; k++) {
        s = s * 1103515245u + 12345u;
        theta[k] = 0.25 + (double)((s >> 16) % 1000u) / 1000.0;
    }
    G(theta, grad);
    int bad = 0;
    for (int k = 0; k < NTHETA; k++) {
        const double h = 1e-6;
        for (int q = 0; q < NTHETA; q++)
            t[q] = theta[q];
        t[k] = theta[k] + h;
        double up = J(t);
        t[k] = theta[k] - h;
        double down = J(t);
        double fd = (up - down) / (2.0 * h);
        if (fabs(fd - grad[k]) > 1e-5 * (1.0 + fabs(fd))) {
            printf("theta[%d]: gradient %.12g, central differences %.12g\n", k, grad[k], fd);
            bad = 1;
        }
    }
    return bad;
}
