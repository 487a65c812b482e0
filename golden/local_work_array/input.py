import numpy as np


def f(x, n):
    tmp = np.zeros(n)
    for i in range(n):
        tmp[i] = x[i] * x[i]
    s = 0.0
    for i in range(n):
        s += tmp[i] * x[i]
    return s
