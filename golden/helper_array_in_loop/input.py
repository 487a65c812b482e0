import numpy as np


def cell(W, x, b):
    return np.tanh(W @ x + b)


def sequence_energy(W: "f64[h, n]", b: "f64[h]", X: "f64[k, n]"):
    total = 0.0
    for t in range(X.shape[0]):
        h = cell(W, X[t], b)
        total += np.sum(h * h) * (t + 1)
    return total
