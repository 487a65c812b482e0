import numpy as np


def least_squares(A: "f64[m, n]", c: "f64[n]", y: "f64[m]", lam: float):
    r = A @ c - y
    return 0.5 * (r @ r) + lam * np.sum(c * c)
