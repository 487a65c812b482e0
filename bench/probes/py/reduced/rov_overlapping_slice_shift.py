import numpy as np


def f(x, w):
    buf = np.zeros(3)
    s = 0.0
    for t in range(len(x)):
        buf[1:] = buf[:-1]
        buf[0] = x[t]
        s += np.dot(w, buf) ** 2
    return s
