import math

EPS = 1e-3


def smooth_abs(t, eps=EPS):
    return math.sqrt(t * t + eps)


def penalty(x, y, a=1.0, b=100.0, p=2):
    total = (a - x) ** 2 + b * (y - x * x) ** p
    return total + smooth_abs(x) + smooth_abs(y, eps=0.5) + smooth_abs(eps=0.1, t=x - y)
