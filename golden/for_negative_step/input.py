def f(x, n):
    s = 0.0
    for i in range(n - 1, -1, -1):
        s = 0.5 * s + x[i] * x[i]
    return s
