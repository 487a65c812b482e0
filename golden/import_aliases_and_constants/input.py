from math import exp as e, log
import numpy

SCALE = 2.5
EPS = 1e-8


def f(x):
    return SCALE * e(x) / (log(x + 2.0) + EPS) + numpy.cos(x)
