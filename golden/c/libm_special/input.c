/* math.h's special functions: gamma, error functions, roots and logarithms near 1,
 * remainders, signs, scaling by powers of two, and rounding (a zero derivative). */
#include <math.h>

double libm_special(const double *x, const double *y, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        double a = lgamma(x[i]) + tgamma(y[i]) * erf(x[i]) - erfc(y[i]);
        double b = cbrt(x[i]) + log1p(y[i]) + expm1(x[i]) + asinh(x[i]) + acosh(y[i] + 1.0) + atanh(0.5 * x[i]);
        double c = fmod(y[i], 0.7) + copysign(x[i], y[i] - 1.5) + hypot(x[i], y[i]) + remainder(y[i], 0.6);
        double d = fdim(y[i], x[i]) + ldexp(x[i], i - 2) + exp2(x[i]) + log2(y[i]) + log10(y[i]);
        double r = round(4.0 * x[i]) + rint(4.0 * y[i]) + nearbyint(y[i]) + trunc(y[i]) + floor(x[i]) + ceil(y[i]);
        s += a * b + c + d * r;
    }
    return s;
}
