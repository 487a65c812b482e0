def f(x, n):
    a, b = x, 1.0
    for i in range(n):
        a, b = b, a + b * x
    return a
