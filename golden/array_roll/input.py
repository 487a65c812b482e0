import numpy as np


def rolled(u: "f64[n]", A: "f64[m, k]", s: int):
    # np.roll moves entries along an axis, round the end; its adjoint rolls back
    left = np.roll(u, 1)
    right = np.roll(u, -s)
    rows = np.roll(A, 2, axis=0)
    cols = np.roll(A, -1, axis=1)
    both = np.roll(A, (1, -2), axis=(0, 1))
    flat = np.roll(A, s)  # no axis: the flattened entries rolled
    return np.sum((right - left) ** 2) + np.sum(rows * A) + np.sum(np.sin(cols) * both) + np.sum(flat * A * A)
