def f(x, n):
    s = 0.0
    for i in range(n):
        if x[i] < 0.0:
            continue
        s += x[i] ** 3
    return s
