import numpy as np


def log_partition(z: "f64[n]", n: int):
    m = np.max(z)
    return m + np.log(np.sum(np.exp(z - m)))


def helper_call(w: "f64[n]", x: "f64[n]", n: int):
    total = 0.0
    for k in range(n):
        total += x[k] * w[k]
    return log_partition(w * x, n) - 0.5 * total
