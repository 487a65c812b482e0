import numpy as np


def pair_energy(X, m):
    # Nothing annotates X or m: d = X[i] - X[j] feeds np.dot, so the rows of X are arrays and X
    # has at least two axes; m[i] is a number, so m has one.
    e = 0.0
    for i in range(X.shape[0]):
        for j in range(i + 1, X.shape[0]):
            d = X[i] - X[j]
            e += m[i] * m[j] / np.sqrt(np.dot(d, d) + 0.5)
    return e
