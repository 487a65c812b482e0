import math


def softplus(z, a):
    return math.log(1.0 + math.exp(a * z))


def f(x, a, n):
    s = 0.0
    for i in range(n):
        s += softplus(x[i], a)
    return s
