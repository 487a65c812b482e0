import numpy as np


def norms(x: "f64[n]", A: "f64[m, n]"):
    u = x / np.linalg.norm(x)
    rows = np.linalg.norm(A, axis=1)
    cols = np.linalg.norm(A, axis=0)
    l1 = np.linalg.norm(x, 1)
    return np.sum(u * x) + np.linalg.norm(A) + np.sum(rows**2) + np.sum(cols) + l1 + np.linalg.norm(x, ord=np.inf)
