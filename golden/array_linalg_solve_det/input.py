import numpy as np


def linear_algebra(A: "f64[n, n]", B: "f64[n, k]", b: "f64[n]", v: "f64[n]"):
    x = np.linalg.solve(A, b)
    X = np.linalg.solve(A, B)
    Ainv = np.linalg.inv(A)
    D = np.diag(v) + A
    return np.linalg.det(A) + np.sum(x * v) + np.sum(X**2) + np.trace(Ainv @ D) + np.sum(np.diag(A) * b)
