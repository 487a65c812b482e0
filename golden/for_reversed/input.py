def horner(c, t, n):
    s = 0.0
    for i in reversed(range(n)):
        s = s * t + c[i]
    return s
