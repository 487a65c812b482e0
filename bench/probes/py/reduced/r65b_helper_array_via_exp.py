import numpy as np


def g(h, k):
    return np.sum(h[k])


def f(log_h, k):
    return g(np.exp(log_h), k)
