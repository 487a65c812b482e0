def f(x, n):
    s = 0.0
    for i in range(2, n - 1):
        s += x[i - 1] * x[i + 1]
    return s
