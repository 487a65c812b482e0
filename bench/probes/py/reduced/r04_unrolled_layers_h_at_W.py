import numpy as np


def f(X, W1, W2):
    h = X
    for W in [W1, W2]:
        h = h @ W
    return np.sum(h)
