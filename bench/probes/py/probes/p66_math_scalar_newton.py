import math


def bessel_i0(x, tol=1e-15):
    # power series sum_k ((x/2)^k / k!)^2
    term = 1.0
    total = 1.0
    k = 0
    while term > tol * total:
        k += 1
        term *= (0.5 * x / k) ** 2
        total += term
    return total


def steady_state(a, b, x0=1.0, tol=1e-13):
    # root of g(x) = x - a * exp(-b * x) by Newton's method
    x = x0
    for _ in range(100):
        g = x - a * math.exp(-b * x)
        dg = 1.0 + a * b * math.exp(-b * x)
        step = g / dg
        x -= step
        if abs(step) < tol:
            break
    return x


def von_mises_score(kappa, mu, a, b, angles):
    xs = steady_state(a, b)
    ll = 0.0
    for th in angles:
        ll += kappa * math.cos(th - mu) - math.log(2 * math.pi * bessel_i0(kappa))
    return -ll + math.log1p(xs ** 2)


def probe_spec():
    return dict(func="von_mises_score", wrt=["kappa", "mu", "a", "b"],
                args=[1.3, 0.4, 2.0, 0.7, [0.1, 0.5, -0.3, 1.2, 0.8]], kwargs={},
                idioms="math-only scalar code: while series with relative tolerance, for-range Newton with "
                       "break, math.log1p, loop over a Python list parameter")
