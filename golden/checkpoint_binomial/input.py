def heat(u, work, n: int, steps: int, c: float):
    # s2sad: checkpoint binomial(snapshots=3)
    for t in range(steps):
        for i in range(1, n - 1):
            work[i] = u[i] + c * (u[i - 1] - 2.0 * u[i] + u[i + 1]) - 0.1 * u[i] ** 3
        for i in range(1, n - 1):
            if work[i] > 0.0:
                u[i] = work[i]
            else:
                u[i] = 0.5 * work[i]
    s = 0.0
    for i in range(n):
        s += u[i] * u[i]
    return s
