"""Assigning to parts of an array: slices, rows, columns, a number broadcast into a block."""

import numpy as np


def smooth_edges(A: "f64[m, n]", v: "f64[n]", k: int):
    B = np.zeros_like(A)
    B[0] = v
    B[1, :] = v * 2.0
    B[:, 2] += A[:, 0]
    B[2:4, 1:3] = 0.5
    B[-1] -= A[0] * A[1]
    B[k:, 0] = np.tanh(A[k:, 1])
    return np.sum(B * B * A)
