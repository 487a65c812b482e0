import numpy as np


def ufuncs(x: "f64[n]", y: "f64[n]"):
    p = np.exp(x) + np.log(y) + np.sin(x) * np.cos(y) + np.tanh(x * y) + np.sqrt(y)
    q = np.abs(x) + np.maximum(x, y) + np.minimum(x, 0.25)
    r = np.where(x > 0.1, x * y, y)
    return np.sum(p * q) + np.sum(r)
