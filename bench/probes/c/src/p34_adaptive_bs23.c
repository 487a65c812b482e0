/* Van der Pol oscillator integrated with the Bogacki-Shampine 3(2) embedded
 * pair (FSAL) and a standard step-size controller: rejected steps retry with a
 * smaller h, the last step is cut to land on tend. Butcher tableau as static
 * const tables, controller constants as static const scalars.
 * Objective: squared distance of y(tend) to a target. */
#include <math.h>

#define NEQ 2

static const double SAFETY = 0.9;
static const double FACMIN = 0.2, FACMAX = 5.0;

static const double bs_c[4] = {0.0, 0.5, 0.75, 1.0};
static const double bs_a[4][3] = {
    {0.0, 0.0, 0.0},
    {0.5, 0.0, 0.0},
    {0.0, 0.75, 0.0},
    {2.0 / 9.0, 1.0 / 3.0, 4.0 / 9.0},
};
/* 3rd-order weights are bs_a[3]; error weights = b3 - b2 */
static const double bs_e[4] = {-5.0 / 72.0, 1.0 / 12.0, 1.0 / 9.0, -1.0 / 8.0};

static void vdp(double t, const double *y, double *dy, double mu)
{
    (void)t;
    dy[0] = y[1];
    dy[1] = mu * (1.0 - y[0] * y[0]) * y[1] - y[0];
}

static double err_norm(const double *e, const double *y0, const double *y1, double atol,
                       double rtol)
{
    double s = 0.0;
    for (int i = 0; i < NEQ; i++) {
        double sc = atol + rtol * fmax(fabs(y0[i]), fabs(y1[i]));
        s += (e[i] / sc) * (e[i] / sc);
    }
    return sqrt(s / NEQ);
}

double vdp_shoot(const double *y0, double mu, double tend, const double *target, double rtol,
                 int *nsteps_out)
{
    double y[NEQ], ynew[NEQ], k[4][NEQ], ytmp[NEQ], e[NEQ];
    double t = 0.0, h = 0.05;
    const double atol = 1e-3 * rtol;
    int nacc = 0;

    for (int i = 0; i < NEQ; i++) y[i] = y0[i];
    vdp(t, y, k[0], mu);

    while (t < tend) {
        if (t + h > tend) h = tend - t;
        for (int s = 1; s < 4; s++) {
            for (int i = 0; i < NEQ; i++) {
                ytmp[i] = y[i];
                for (int j = 0; j < s; j++)
                    ytmp[i] += h * bs_a[s][j] * k[j][i];
            }
            if (s < 3)
                vdp(t + bs_c[s] * h, ytmp, k[s], mu);
        }
        for (int i = 0; i < NEQ; i++) ynew[i] = ytmp[i];
        vdp(t + h, ynew, k[3], mu);                       /* FSAL stage */
        for (int i = 0; i < NEQ; i++) {
            e[i] = 0.0;
            for (int j = 0; j < 4; j++) e[i] += h * bs_e[j] * k[j][i];
        }
        double err = fmax(err_norm(e, y, ynew, atol, rtol), 1e-10);
        double fac = fmin(FACMAX, fmax(FACMIN, SAFETY * pow(err, -1.0 / 3.0)));
        if (err <= 1.0) {                                  /* accept */
            t += h;
            for (int i = 0; i < NEQ; i++) {
                y[i] = ynew[i];
                k[0][i] = k[3][i];
            }
            nacc++;
        }
        h *= fac;
    }
    *nsteps_out = nacc;

    double J = 0.0;
    for (int i = 0; i < NEQ; i++) J += (y[i] - target[i]) * (y[i] - target[i]);
    return J;
}
