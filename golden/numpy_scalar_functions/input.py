import numpy as np


def f(x):
    return np.sin(x) * np.exp(-x) + np.sqrt(x) * np.arctan2(x, 2.0) + np.maximum(x, 0.5)
