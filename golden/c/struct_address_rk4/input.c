/* The address of a local struct of numbers (Params p = {k, c, m}) passed to helpers that read
   it through const Params *: an RK4 integrator whose gradient with respect to k, c, m comes
   back through the struct. */
#include <math.h>
#include <string.h>
typedef struct { double k; double c; double m; } Params;
static void deriv(const Params *p, const double *y, double *dy) {
    dy[0] = y[1];
    dy[1] = -(p->k * y[0] + p->c * y[1]) / p->m;
}
static void rk4_step(const Params *p, double h, double *y) {
    double k1[2], k2[2], k3[2], k4[2], tmp[2];
    deriv(p, y, k1);
    for (int i = 0; i < 2; i++) tmp[i] = y[i] + 0.5 * h * k1[i];
    deriv(p, tmp, k2);
    for (int i = 0; i < 2; i++) tmp[i] = y[i] + 0.5 * h * k2[i];
    deriv(p, tmp, k3);
    for (int i = 0; i < 2; i++) tmp[i] = y[i] + h * k3[i];
    deriv(p, tmp, k4);
    for (int i = 0; i < 2; i++) y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
}
double simulate(double k, double c, double m, const double *y0, int steps, double h) {
    Params p = {k, c, m};
    double y[2];
    memcpy(y, y0, sizeof y);
    double energy = 0.0;
    for (int s = 0; s < steps; s++) {
        rk4_step(&p, h, y);
        energy += 0.5 * k * y[0] * y[0] + 0.5 * m * y[1] * y[1];
    }
    return energy * h;
}
