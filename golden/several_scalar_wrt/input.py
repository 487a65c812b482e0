def f(a, b, c):
    return a * b * c + a / (1.0 + b * b)
