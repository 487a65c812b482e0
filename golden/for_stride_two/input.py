def f(x, n):
    s = 1.0
    for i in range(1, n, 2):
        s = s * x[i] + x[i - 1]
    return s
