import numpy as np


def f(a, b):
    return sum(p ** 2 for p in (a, b))
