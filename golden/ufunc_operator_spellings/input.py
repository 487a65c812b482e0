import numpy as np


def spelled(x: "f64[n]", A: "f64[m, n]", s: float):
    """NumPy's ufunc spellings of the operators, broadcasting, and on numbers."""
    y = np.multiply(np.add(A, x), np.subtract(x, 1.0)) / np.add(np.abs(x), 1.0)
    z = np.divide(np.negative(x), np.true_divide(2.0, np.add(x * x, 1.0))) + np.positive(x)
    w = np.reciprocal(np.add(np.square(x), 1.0)) + np.float_power(np.add(np.abs(x), 1.0), 1.5)
    t = np.multiply(s, np.power(s, 3)) + np.subtract(np.divide(s, 2.0), np.reciprocal(np.add(s, 2.0)))
    return np.sum(y) + np.sum(z * w) + np.float_power(np.add(s, 2.0), 0.5) + np.negative(t)
