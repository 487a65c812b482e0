def f(x, n):
    s = 0.0
    for i in range(n):
        s += i * x[i] / n + (i // 2) * x[i]
    return s
