def f(x, n):
    for i in range(1, n):
        x[i] = x[i] * x[i - 1]
