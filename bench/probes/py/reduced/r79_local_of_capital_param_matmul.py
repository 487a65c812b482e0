import numpy as np


def f(C, v):
    K = np.exp(-C)
    return np.sum(K @ v)
