def rpow(x: float, a: float, n: int):
    """a * x**n by linear recursion; the base case returns a."""
    if n == 0:
        return a
    return x * rpow(x, a, n - 1)
