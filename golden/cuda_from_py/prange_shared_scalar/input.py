import numba


def softsign(x, y, a: float, n: int):
    """Each iteration of the prange loop is one thread; a is read by all of them."""
    for i in numba.prange(n):
        y[i] = a * x[i] / (1.0 + abs(x[i]))
