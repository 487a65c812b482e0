/* Lotka-Volterra parameter fit: classical RK4 taking the right-hand side as
 * a function pointer, Numerical Recipes rk4() layout. */
#include <math.h>

#define NMAX 8

typedef void (*derivs_fn)(double t, const double y[], double dydt[], const double *par);

static void lotka(double t, const double y[], double dydt[], const double *par)
{
    (void)t;
    dydt[0] = par[0] * y[0] - par[1] * y[0] * y[1];
    dydt[1] = par[2] * y[0] * y[1] - par[3] * y[1];
}

static void rk4(double y[], double dydx[], int n, double x, double h, double yout[],
                derivs_fn derivs, const double *par)
{
    int i;
    double xh, hh, h6, dym[NMAX], dyt[NMAX], yt[NMAX];

    hh = h * 0.5;
    h6 = h / 6.0;
    xh = x + hh;
    for (i = 0; i < n; i++) yt[i] = y[i] + hh * dydx[i];
    (*derivs)(xh, yt, dyt, par);
    for (i = 0; i < n; i++) yt[i] = y[i] + hh * dyt[i];
    (*derivs)(xh, yt, dym, par);
    for (i = 0; i < n; i++) {
        yt[i] = y[i] + h * dym[i];
        dym[i] += dyt[i];
    }
    (*derivs)(x + h, yt, dyt, par);
    for (i = 0; i < n; i++)
        yout[i] = y[i] + h6 * (dydx[i] + dyt[i] + 2.0 * dym[i]);
}

double lv_misfit(const double *par, const double *y0, int nsteps, double h, const double *obs)
{
    double y[2], dydx[2], yout[2];
    double x = 0.0, misfit = 0.0;
    y[0] = y0[0];
    y[1] = y0[1];
    for (int s = 0; s < nsteps; s++) {
        lotka(x, y, dydx, par);
        rk4(y, dydx, 2, x, h, yout, lotka, par);
        x += h;
        for (int i = 0; i < 2; i++) {
            y[i] = yout[i];
            double e = y[i] - obs[2 * s + i];
            misfit += e * e;
        }
    }
    return 0.5 * misfit;
}
