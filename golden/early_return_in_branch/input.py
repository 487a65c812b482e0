def f(x, y):
    if x > y:
        return x * x * y
    t = x - y
    return t * t
