import math

import numpy as np


def pairwise_logsum(x, lo, hi):
    """Pairwise (tree) summation of log(1 + x_i^2), recursing on halves."""
    if hi - lo <= 2:
        s = 0.0
        for i in range(lo, hi):
            s += math.log(1.0 + x[i] ** 2)
        return s
    mid = (lo + hi) // 2
    return pairwise_logsum(x, lo, mid) + pairwise_logsum(x, mid, hi)


def exp_tail(t, k, n):
    """exp(t) by its Taylor series in nested (Horner) form: 1 + t/k (1 + t/(k+1) (...))."""
    if k > n:
        return 1.0
    return 1.0 + t / k * exp_tail(t, k + 1, n)


def tree_objective(x, t):
    n = len(x)
    s = pairwise_logsum(x, 0, n)
    odd = sum(x[i] for i in range(n) if i % 2 == 1)
    return s + exp_tail(t, 1, 12) * odd


def probe_spec():
    x = np.array([0.3, -1.2, 0.8, 0.05, -0.4, 1.7, 0.9])
    return dict(func="tree_objective", wrt=["x", "t"], args=[x, 0.45], kwargs={},
                idioms="recursive pairwise summation on index halves with mid = (lo + hi) // 2, recursive "
                       "Taylor series with an int depth argument, sum() of a generator filtered by i % 2 == 1")
