import math


def moments(x, n, c):
    """The sums of x - c and of its squares: two results, returned as a tuple."""
    s = 0.0
    q = 0.0
    for i in range(n):
        s += x[i] - c
        q += (x[i] - c) ** 2
    return s, q


def spread_over_shifts(x, n, c):
    total = 0.0
    for k in range(3):
        s, q = moments(x, n, c * k)
        total += math.sqrt(q / n - (s / n) ** 2 + 1.0)
    return total
