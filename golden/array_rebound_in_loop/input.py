"""Arrays rebound in a loop: each name keeps naming one array, which every rebinding fills."""

import numpy as np


def diffuse(u0: "f64[n]", c: "f64[n]", alpha: float, steps: int):
    u = u0.copy()
    y = np.zeros_like(u0)
    m = len(u0)
    for _ in range(steps):
        new = u.copy()
        for i in range(1, m - 1):
            new[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        u = new
        y = y * u + c[0] * alpha
    return np.sum(u * u) + np.sum(np.sin(y))
