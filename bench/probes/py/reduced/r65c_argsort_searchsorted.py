import numpy as np


def f(beta, time, edges):
    order = np.argsort(time)
    k = np.searchsorted(edges, time) - 1
    return np.sum(beta[order] * beta[k])
