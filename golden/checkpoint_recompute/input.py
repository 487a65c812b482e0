import math


def f(x, n: int, steps: int):
    s = 1.0
    # s2sad: checkpoint recompute
    for t in range(steps):
        for i in range(n):
            x[i] = math.sin(x[i]) * s + 0.5 * x[i]
        s = s * 0.9 + x[t % n] ** 2
    return s
