def f(x, y):
    s = x * y
    if x > 0.0 and y > 0.0:
        s = s * 2.0
    if not (x < -0.5 or y < -0.5):
        s = s + x
    return s
