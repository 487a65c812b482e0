def f(x, y, n: int, steps: int):
    acc = 0.0
    # s2sad: checkpoint periodic(k=2)
    for t in range(steps, 0, -1):
        for i in range(1, n):
            y[i] = y[i - 1] * 0.5 + x[i] * y[i] * t
        acc += y[n - 1] * y[n - 1]
    return acc
