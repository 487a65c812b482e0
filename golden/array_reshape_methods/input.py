import numpy as np


def f(x: "f64[n]", A: "f64[m, k]"):
    # methods (x.reshape, M.sum, A.max, .dot, .mean) and np.reshape with an inferred extent
    M = x.reshape(2, -1)
    r = M.sum(axis=0)
    return np.sum(r * r) + A.max() + np.reshape(A, (-1,)).dot(np.reshape(A.T, (-1,))) + M.T.mean()
