def f(x, y, n: int):
    """x[i] and y[i] are overwritten; the reverse sweep needs them only through p, and what it
    needs of p (p * p + 1.0, p - 2.0) is cheap to compute again: p alone is cached."""
    s = 0.0
    for i in range(n):
        p = x[i] + y[i]
        s += (p * p + 1.0) * (p - 2.0)
        x[i] = 0.5 * y[i]
        y[i] = 2.0 * p
    return s
