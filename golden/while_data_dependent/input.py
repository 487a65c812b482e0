def f(x, a):
    k = 0
    while a < 10.0:
        a = a * x[k % 3] + 0.25
        k += 1
    return a
