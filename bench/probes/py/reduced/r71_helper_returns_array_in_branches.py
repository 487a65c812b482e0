import numpy as np


def act(z, kind):
    if kind == "relu":
        return np.maximum(z, 0.0)
    return np.tanh(z)


def f(x: "f64[n]", kind="relu"):
    return np.sum(act(x, kind))
