import math


def moments(x, y):
    return x * y, x + y


def f(x, y):
    t = (x * y, math.exp(y))
    m = moments(x, t[1])
    a, b = t
    s = m[0] / m[-1] + a * b
    if len(t) == 2:
        s += t[0]
    return s
