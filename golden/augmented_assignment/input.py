def f(x, a, n):
    s = a
    for i in range(n):
        s += x[i]
        s *= a
        s -= x[i] * 0.5
        s /= 1.5
        x[i] *= s
    return s
