def f(x, n):
    s = 0.0
    for i in range(n):
        if s > 1.5:
            break
        s += x[i] * x[i]
    return s
