import math


def smooth(y, x, n):
    for i in range(n):
        y[i] = 0.5 * x[i] + 0.25 * x[(i + 1) % n] + 0.25 * x[(i + n - 1) % n]


def energy(x, y, n):
    smooth(y, x, n)
    s = 0.0
    for i in range(n):
        s += math.sin(y[i]) * y[i]
    smooth(x, y, n)
    return s + x[0] * x[1]
