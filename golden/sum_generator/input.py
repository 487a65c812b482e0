import math


def soft_count(x, t):
    return sum(1.0 / (1.0 + math.exp(-v / t)) for v in x if v > -5.0)
