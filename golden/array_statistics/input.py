import numpy as np


def statistics(A: "f64[m, n]", x: "f64[n]"):
    """Variances, deviations, products and running sums, whole and along an axis."""
    spread = np.var(x) + x.std(ddof=1) + np.sum(np.std(A, axis=0, ddof=1))
    cols = np.sum(A.var(axis=1, keepdims=True) * A)
    products = np.prod(x) + np.sum(A.prod(axis=0)) + np.sum(np.prod(A, axis=1) ** 2)
    running = np.sum(np.cumsum(x) ** 2) + np.sum(np.cumsum(A, axis=1) * A) + np.sum(A.cumsum(axis=0) ** 2)
    return spread + cols + products + running
