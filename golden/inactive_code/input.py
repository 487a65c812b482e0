def f(x, y, n):
    s = 0.0
    count = 0
    unused = y * y
    for i in range(n):
        s += x[i] * y
        count += 1
    return s / count
