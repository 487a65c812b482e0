import numpy as np


def padded(u: "f64[n]", A: "f64[m, k]", c: float):
    # np.pad's modes: the copies a padding makes send their adjoints back to the entries copied
    edge = np.pad(u, 2, mode="edge")
    wrap = np.pad(u, (1, 3), mode="wrap")
    reflect = np.pad(A, ((1, 2), (2, 1)), mode="reflect")
    symmetric = np.pad(A, 1, "symmetric")
    framed = np.pad(A, ((1, 0), (0, 2)), constant_values=c)
    zeros = np.pad(u * u, 1)
    smooth = np.sum((edge[2:] - edge[:-2]) ** 2) + np.sum(np.sin(wrap) * wrap)
    return smooth + np.sum(reflect**3) + np.sum(np.cos(symmetric)) + np.sum(framed * framed) + np.sum(zeros * zeros)
