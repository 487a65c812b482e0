import numpy as np


def f(X, mus):
    n, d = X.shape
    s = 0.0
    for k in range(len(mus)):
        s += np.sum((X - mus[k]) ** 2)
    return s
