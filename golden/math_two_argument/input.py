import math


def f(x, y):
    r = math.hypot(x, y) + math.atan2(y, x)
    return r * math.pow(x, y) + math.erf(x - y) + math.log1p(y)
