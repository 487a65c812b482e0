/* Uniaxial fit of a fibre-reinforced hyperelastic model (neo-Hookean matrix
 * plus an exponential fibre term recruited smoothly between two stretches by a
 * smoothstep, fibre dispersion weighted through the modified Bessel function
 * I0, summed as its power series in a do/while loop). Written as a library
 * routine: void, results through out-parameters (loss and the largest absolute
 * residual), parameters in a struct passed by const pointer; Huber misfit
 * written with ternaries. */
#include <math.h>

typedef struct {
    double mu;          /* matrix shear modulus */
    double k1, k2;      /* fibre stiffness and nonlinearity */
    double b;           /* dispersion concentration */
    double lam_lo, lam_hi;  /* recruitment window */
} FiberParams;

static double smoothstep(double e0, double e1, double x)
{
    double t = (x - e0) / (e1 - e0);
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    return t * t * (3.0 - 2.0 * t);
}

/* I0(x) = sum_k ((x/2)^k / k!)^2 */
static double bessel_i0(double x)
{
    const double q = 0.25 * x * x;
    double term = 1.0, sum = 1.0;
    int k = 0;
    do {
        k++;
        term *= q / ((double)k * k);
        sum += term;
    } while (term > 1e-17 * sum);
    return sum;
}

static inline double huber(double r, double delta)
{
    const double a = fabs(r);
    return a <= delta ? 0.5 * r * r : delta * (a - 0.5 * delta);
}

void fiber_fit(const FiberParams *prm, int n, const double *lam, const double *sigma_obs,
               double delta, double *loss, double *max_abs_res)
{
    const double kappa = bessel_i0(prm->b) / (1.0 + bessel_i0(prm->b));
    double acc = 0.0, rmax = 0.0;
    for (int i = 0; i < n; i++) {
        const double l = lam[i];
        const double I4 = l * l;
        double sig = prm->mu * (l * l - 1.0 / l);
        const double E = I4 - 1.0;
        const double rec = smoothstep(prm->lam_lo, prm->lam_hi, l);
        sig += rec > 0.0 ? 2.0 * kappa * prm->k1 * E * exp(prm->k2 * E * E) * I4 : 0.0;
        const double r = sig - sigma_obs[i];
        acc += huber(r, delta);
        rmax = fmax(rmax, fabs(r));
    }
    *loss = acc / n;
    *max_abs_res = rmax;
}
