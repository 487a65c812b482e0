"""A list comprehension stacked by NumPy: the design matrix of a polynomial fit as
np.vstack([x**k for k in range(degree + 1)]).T, and np.stack of one along axis 1. The items are
made into one buffer along a new first axis, as long as the range and as wide as x."""

import numpy as np


def poly_ridge(w: "f64[q]", x: "f64[n]", y: "f64[n]", degree: int, lam: float):
    Phi = np.vstack([x**k for k in range(degree + 1)]).T
    pred = Phi @ w
    waves = np.stack([np.sin(k * x) for k in range(1, 3)], axis=1)
    return np.mean((pred - y) ** 2) + lam * np.sum(w[1:] ** 2) + lam * np.sum(waves**2)
