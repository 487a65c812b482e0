"""The small C functions the output defines for what C lacks, and the calls that only compute.

``HELPERS`` (name -> definition) holds Python's floored ``//`` and ``%`` on integers and floats,
``**`` on integers, integer ``min``/``max``, and ``digamma``, which ``math.h`` lacks. The file
defines those its functions call (``cfile.c_file``); CUDA defines the same on the device.
``PURE_CALLS`` are the calls whose result is all they give (``math.h``'s and these): one whose
result nothing reads can go (``cstmt.drop_dead``).
"""

from __future__ import annotations

from ..ssa.mathfns import c_output_names

HELPERS = {
    "floordiv_l": """\
/* Python's floored a // b on integers (C's / rounds toward zero). */
static long floordiv_l(long a, long b) {
    long q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}""",
    "mod_l": """\
/* Python's a % b on integers: the result has the sign of b (C's % has the sign of a). */
static long mod_l(long a, long b) {
    long r = a % b;
    return (r != 0 && (r < 0) != (b < 0)) ? r + b : r;
}""",
    "mod_d": """\
/* Python's a % b on floats: the result has the sign of b (fmod's has the sign of a). */
static double mod_d(double a, double b) {
    double r = fmod(a, b);
    return (r != 0.0 && (r < 0.0) != (b < 0.0)) ? r + b : r;
}""",
    "pow_l": """\
/* Python's a ** b on integers (b >= 0). */
static long pow_l(long a, long b) {
    long r = 1;
    for (; b > 0; b--) {
        r *= a;
    }
    return r;
}""",
    "min_l": """\
/* Python's min(a, b) on integers. */
static long min_l(long a, long b) {
    return b < a ? b : a;
}""",
    "max_l": """\
/* Python's max(a, b) on integers. */
static long max_l(long a, long b) {
    return b > a ? b : a;
}""",
    "sign": """\
/* np.sign(x): -1, 0 or 1 as x is negative, zero or positive; NaN for NaN (math.h has none). */
static double sign(double x) {
    return x > 0.0 ? 1.0 : x < 0.0 ? -1.0 : x == x ? 0.0 : x;
}""",
    "trigamma": """\
/* psi'(x) = d digamma(x) / dx: the recurrence psi'(x) = psi'(x + 1) + 1 / x^2 up to x >= 10,
 * then the asymptotic series (to x^-15); below 0, the reflection
 * psi'(x) = pi^2 / sin(pi x)^2 - psi'(1 - x). NaN at the poles 0, -1, -2, ... */
static double trigamma(double x) {
    double acc = 0.0, sign = 1.0, t = 0.0;
    if (x <= 0.0) {
        double n = rint(x);
        if (x == n) {
            return NAN;
        }
        double s = sin(3.141592653589793 * (x - n));
        acc = 9.869604401089358 / (s * s);
        sign = -1.0;
        x = 1.0 - x;
    }
    while (x < 10.0) {
        t += 1.0 / (x * x);
        x += 1.0;
    }
    double f = 1.0 / (x * x);
    double series = (1.0 + 0.5 / x + f * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f * (
        1.0 / 30 - f * (5.0 / 66 - f * (691.0 / 2730 - f * (7.0 / 6)))))))) / x;
    return acc + sign * (t + series);
}""",
    "expit": """\
/* The logistic sigmoid 1 / (1 + exp(-x)) (SciPy's expit), without overflow for large |x|. */
static double expit(double x) {
    if (x >= 0.0) {
        return 1.0 / (1.0 + exp(-x));
    }
    double e = exp(x);
    return e / (1.0 + e);
}""",
    "digamma": """\
/* psi(x) = d lgamma(x) / dx, which math.h lacks: the recurrence psi(x) = psi(x + 1) - 1 / x
 * up to x >= 6, then the asymptotic series (to x^-14: below 2e-13 there); below 0, the
 * reflection psi(x) = psi(1 - x) - pi / tan(pi x). NaN at the poles 0, -1, -2, ... */
static double digamma(double x) {
    double acc = 0.0;
    if (x <= 0.0) {
        double n = rint(x);
        if (x == n) {
            return NAN;
        }
        /* x - n is exact, in [-1/2, 1/2]: pi / tan(pi x) has period 1, and a small argument
         * keeps tan accurate near the poles. */
        acc = -3.141592653589793 / tan(3.141592653589793 * (x - n));
        x = 1.0 - x;
    }
    while (x < 6.0) {
        acc -= 1.0 / x;
        x += 1.0;
    }
    double f = 1.0 / (x * x);
    double series = f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (
        1.0 / 132 - f * (691.0 / 32760 - f * (1.0 / 12)))))));
    return acc + log(x) - 0.5 / x - series;
}""",
}

MATH_H = frozenset(c_output_names())
# Calls that only compute a value (math.h and the helpers above): one whose result nothing
# reads can go (cstmt.drop_dead).
PURE_CALLS = frozenset(
    MATH_H | {f"{m}f" for m in MATH_H} | set(HELPERS) | {"isnan", "abs", "labs", "malloc", "calloc"}
)
