def poly(c, t):
    s = 0.0
    for k, ck in enumerate(c):
        s += ck * t**k
    return s
