import math


def f(x, n):
    t = 0.5
    for i in range(n):
        t = math.sin(t * x[i]) + x[i]
    return t
