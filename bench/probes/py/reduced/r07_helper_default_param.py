import numpy as np


def shift(x, c=0.0):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[i] + c
    return out


def f(x, c):
    return np.sum(shift(x, c) ** 2)
