import numpy as np


def f(A: "f64[m, n]", r: "f64[n]", x: "f64[n]", s: float):
    # array-array, array-scalar and row broadcasting (r stretches over A's rows)
    B = A * r + s * A - A / (2.0 + r * r)
    u = -(x - s) ** 2
    return np.sum(B * B) + np.sum(u * r) / s
