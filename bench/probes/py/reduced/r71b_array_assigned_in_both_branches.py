import numpy as np


def f(z: "f64[n]", c):
    if c > 0.0:
        out = np.tanh(z)
    else:
        out = np.exp(z)
    return np.sum(out)
