import numpy as np


def f(phi, x):
    p = phi.shape[0]
    n = x.shape[0]
    pred = 0.0
    for j in range(p):
        pred = pred + phi[j] * x[p - 1 - j:n - 1 - j]
    return np.sum((x[p:] - pred) ** 2)
