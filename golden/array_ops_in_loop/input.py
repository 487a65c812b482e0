import numpy as np


def rows(A: "f64[m, n]", w: "f64[n]", m: int):
    # whole-array work on each row inside a loop: recomputed in the reversed loop, never stored
    s = 0.0
    for i in range(m):
        s += np.sum(np.tanh(A[i] * w)) * s
    return s
