import math


def packed_quadratic(ltri, x, w, n: int, m: int):
    """Counters walking packed storage: `at` through a lower triangle stored column by column,
    `k` through rows of m weights, every other row from the end."""
    s = 0.0
    at = 0
    for i in range(n):
        for j in range(i + 1, n):
            s += ltri[at] * x[i] * x[j]
            at += 1
    k = 0
    for r in range(n - 1, -1, -2):
        for c in range(m):
            s += math.sin(w[k + c] * x[r])
        k += m
    return s
