import math


def polar(x, y):
    r = math.hypot(x, y)
    if r == 0.0:
        return 0.0, 0.0
    return (r, math.atan2(y, x))
