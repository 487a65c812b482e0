import math


def trapezoid(f, a, b, n=100):
    h = (b - a) / n
    s = 0.5 * (f(a) + f(b))
    for i in range(1, n):
        s += f(a + i * h)
    return s * h


def integrand(x, k):
    return math.exp(-k * x) * math.cos(x)


def damped_integral(k, b):
    return trapezoid(lambda x: integrand(x, k), 0.0, b)


def probe_spec():
    return dict(func="damped_integral", wrt=["k", "b"], args=[0.7, 3.0], kwargs={},
                idioms="lambda passed to a quadrature helper, math.exp/cos, default n")
