import numpy as np


def f(x):
    E = 0.0
    for i in range(len(x) - 1):
        E += np.sum(x[i + 1] - x[i])
    return E + np.sum(x[0] ** 2)
