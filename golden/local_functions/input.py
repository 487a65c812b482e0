import math


def damped_sum(x, w, n):
    rate = 0.5 * x
    cube = lambda t: t**3 - t  # noqa: E731

    def term(i):
        return w[i] * math.exp(-rate * i) + cube(x / (i + 1))

    total = 0.0
    for i in range(n):
        total += term(i)
    return total * cube(x)
