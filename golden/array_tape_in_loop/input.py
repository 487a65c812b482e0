import numpy as np


def decay(x: "f64[n]", n: int):
    """The whole-array value np.tanh(x) differs in every iteration, since the loop scales one
    element of x each time: each reversed iteration needs its own."""
    s = 1.0
    for i in range(n):
        s += np.sum(np.tanh(x)) * s
        x[i] = 0.5 * x[i]
    return s
