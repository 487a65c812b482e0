import numpy as np


def f(L_flat):
    L = np.zeros((3, 3))
    L[np.tril_indices(3)] = L_flat
    return np.sum(L @ L.T)
