def f(x, y):
    m = x if x > y else y
    return m * m + (x * y if x < 0.0 else 2.0 * y)
