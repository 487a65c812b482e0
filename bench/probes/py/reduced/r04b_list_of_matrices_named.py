import numpy as np


def f(X, W1, W2):
    weights = [W1, W2]
    h = X
    for W in weights:
        h = np.tanh(h @ W)
    return np.sum(h)
