def dot(a, b, n):
    s = 0.0
    for i in range(n):
        s += a[i] * b[i]
    return s
