"""Lagged slices accumulated in a loop: x[p - 1 - j:n - 1 - j] is n - p long for every j in
range(p), as evident as np.zeros(n - p) is (the difference of its bounds), so 'pred' keeps one
array that each rebinding fills."""

import numpy as np


def ar_nll(phi: "f64[q]", c: float, log_sigma: float, x: "f64[m]"):
    p = len(phi)
    n = len(x)
    pred = c + np.zeros(n - p)
    for j in range(p):
        pred = pred + phi[j] * x[p - 1 - j:n - 1 - j]
    diff = x[1:] - x[:-1]
    drift = np.zeros(n - 1)
    for j in reversed(range(2)):
        drift = drift + 0.1 * diff
    resid = x[p:] - pred
    sigma2 = np.exp(2.0 * log_sigma)
    return 0.5 * (n - p) * np.log(sigma2) + 0.5 * np.sum(resid**2) / sigma2 + np.sum(drift**2)
