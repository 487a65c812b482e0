import numpy as np


def f(x: np.ndarray, a: float, n: int) -> float:
    s: float = 0.0
    for i in range(n):
        s += a * x[i] ** 2
    return s
