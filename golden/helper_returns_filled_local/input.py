import numpy as np


def softplus_rows(A, c):
    m = A.shape[0]
    out = np.zeros(m)
    for i in range(m):
        s = 0.0
        for j in range(A.shape[1]):
            s += np.log(1.0 + np.exp(c * A[i, j]))
        out[i] = s
    return out


def weighted_softplus(A: "f64[m, n]", w: "f64[m]", c: float):
    r = softplus_rows(A, c)
    return np.sum(w * r) + np.sum(softplus_rows(A * A, 0.5))
