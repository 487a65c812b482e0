import numpy as np


def f(pos):
    i, j = np.triu_indices(pos.shape[0], 1)
    diff = pos[i] - pos[j]
    return np.sum(diff ** 2)
