import numpy as np

WEIGHTS = np.array([0.2, 0.3, 0.5])


def f(x):
    return np.sum(WEIGHTS * x ** 2)
