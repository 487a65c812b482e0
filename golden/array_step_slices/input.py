"""Slices with a step (gathers of the indices Python's range gives) and '...' indexing."""

import numpy as np


def alternating(x: "f64[n]", A: "f64[m, n]", k: int):
    pairs = x[::2] * x[1::2]
    backwards = x[::-1]
    tail = np.sin(x[k::-2])
    B = np.zeros_like(A)
    B[...] = A * 2.0
    B[..., 1] += x[0]
    return np.sum(pairs) + np.sum(backwards * x) + np.sum(tail) + np.sum(B[..., 0] * A[..., 2])
