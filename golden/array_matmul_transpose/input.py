import numpy as np


def products(A: "f64[m, n]", B: "f64[n, k]", x: "f64[n]", y: "f64[m]"):
    Ax = A @ x
    AB = np.dot(A, B)
    yA = y @ A
    C = np.transpose(AB).T + np.outer(y, yA @ B)
    return x @ x + np.sum(Ax * y) + np.sum(AB * AB) + np.matmul(yA, x) + np.sum(C) + np.sum(A.T @ y)
