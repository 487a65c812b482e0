def sumsq(x, n):
    s = 0.0
    for i in range(n):
        s += x[i] * x[i]
    return s


def f(x, n):
    # after an early return, a helper reads an array that changes later
    r = sumsq(x, n)
    if x[0] < 0.0:
        return r
    x[1] = x[1] * 3.0
    r = r + sumsq(x, n)
    x[2] = x[2] * x[1]
    return r + x[2]
