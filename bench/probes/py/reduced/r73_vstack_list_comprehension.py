import numpy as np


def f(x: "f64[n]", w: "f64[3]"):
    Phi = np.vstack([x ** k for k in range(3)]).T
    return np.sum((Phi @ w) ** 2)
