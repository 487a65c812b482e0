import math


def gauss(v, w):
    return math.exp(-w * v * v)


def blur(x, out, w: float, n: int):
    """A plain range loop whose iterations s2sad proves independent (out[i] only)."""
    for i in range(n):
        out[i] = x[i] * gauss(x[i], w) + out[i]
