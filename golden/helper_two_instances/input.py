import numpy as np


def damped_tanh(z, steps: int):
    s = 1.0
    for k in range(steps):
        s = 0.5 * s + 0.25
    return s * np.tanh(z)


def two_instances(w: "f64[n]", X: "f64[m, n]", t: float):
    h = damped_tanh(X @ w, 3)
    return np.sum(h * h) + damped_tanh(t, 2) * t
