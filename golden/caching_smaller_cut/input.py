import math


def f(x, y, n: int):
    """x[i] and y[i] are overwritten; the reverse sweep needs them only through p."""
    s = 0.0
    for i in range(n):
        p = x[i] + y[i]
        s += math.sin(p) * math.cos(p)
        x[i] = 0.5 * y[i]
        y[i] = 2.0 * p
    return s
