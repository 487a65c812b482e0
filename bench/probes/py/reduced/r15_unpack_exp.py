import numpy as np


def f(theta):
    a, b = np.exp(theta)
    return a * b
