def f(x, n):
    p = 1.0
    for i in range(n):
        p = p * (x[i] + 0.5)
        if p > 2.0:
            return p * x[0]
    return p
