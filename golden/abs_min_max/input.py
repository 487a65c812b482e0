def f(x, y):
    return abs(y) * max(x, -y, 0.5) + min(x * x, y * y)
