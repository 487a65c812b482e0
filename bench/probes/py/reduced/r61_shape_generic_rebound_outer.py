import numpy as np


def f(q):
    Q = q * np.eye(2)
    P = np.eye(2)
    for _ in range(3):
        P = P @ P + Q
        P = P - np.outer(P[0], P[1])
    return np.sum(P)
