import math

import numpy as np


def smooth(x, out, n: int):
    """A local array filled element by element and returned; out is written as a side effect."""
    y = np.zeros(n)
    for i in range(1, n - 1):
        y[i] = math.sin(x[i - 1]) * x[i + 1]
        out[i] = y[i] * y[i]
    y[0] = x[0]
    return y
