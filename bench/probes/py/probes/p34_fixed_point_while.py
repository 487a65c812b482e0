import numpy as np


def fixed_point(a, x0=1.0, tol=1e-10):
    x = x0
    diff = 1.0
    while diff > tol:
        x_new = np.cos(a * x)
        diff = abs(x_new - x)
        x = x_new
    return x


def probe_spec():
    return dict(func="fixed_point", wrt=["a"], args=[0.7], kwargs={},
                idioms="while diff > tol, np.cos on a float, abs")
