import math


def sums(x, n):
    s = 0.0
    q = 0.0
    for i in range(n):
        s += x[i]
        q += x[i] * x[i]
    return s, q


def sincos(t):
    return math.sin(t), math.cos(t)


def spread(x, n):
    s, q = sums(x, n)
    m = s / n
    sn, cs = sincos(m)
    return q / n - m * m + sn * cs
