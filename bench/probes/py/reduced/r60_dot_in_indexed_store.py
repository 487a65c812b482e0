import numpy as np


def f(x, y):
    n = len(x)
    z = np.zeros(n)
    for i in range(n):
        z[i] = y[i] - np.dot(x[:i], z[:i])
    return np.dot(z, z)
