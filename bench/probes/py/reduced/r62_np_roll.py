import numpy as np


def f(u):
    return np.sum((np.roll(u, -1) - u) ** 2)
