def f(x, y):
    """Plain arithmetic on two float scalars."""
    z = x * y - x / y + 3.0
    return z * z - y
