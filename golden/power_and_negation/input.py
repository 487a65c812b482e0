def f(x):
    return -x ** 3 + 2.0 * x ** 0.5 - (-x) ** 2
