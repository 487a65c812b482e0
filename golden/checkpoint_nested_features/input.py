import math


def f(x, y, A, n: int, steps: int):
    s = 0.0
    # s2sad: checkpoint binomial(snapshots=2)
    for t in range(steps):
        j = 0
        while j < n:
            x[j] = math.sin(x[j]) + 0.3 * x[(j + 1) % n] * s
            j += 1
        for i in range(n):
            if x[i] > 0.9:
                break
            s += x[i] * x[i] * y[i]
        for i in range(2):
            for k in range(n):
                A[i, k] = A[i, k] * 0.5 + x[k] * A[1 - i, k]
        s = s * 0.5 + A[0, 1]
    for i in range(n):
        y[i] = y[i] * 2.0
    return s
