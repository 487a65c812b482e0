import math


def log_sum_exp(x, shift):
    total = 0.0
    for v in x:
        total += math.exp(v - shift)
    return shift + math.log(total)
