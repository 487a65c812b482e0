import numpy as np


def mixed(x: "f64[n]", w: "f64[n]", n: int):
    # whole-array work feeding an element loop, and a loop filling an array used whole
    h = np.tanh(w * x)
    s = 0.0
    for i in range(n):
        s += h[i] * x[i]
    g = np.zeros(n)
    for i in range(n):
        g[i] = x[i] * x[i]
    e = np.ones(n) + g
    return s + np.sum(e * w)
