import math


def f(x, w, n: int):
    """sin(p) and cos(p), which the forward sweep computes for x[i], are kept for the reverse
    sweep, which needs both (each is the other's derivative): computing them again costs more
    than their 16 bytes of tape, so the cut keeps them beside p (which the derivative of p * p
    needs). exp(w[i]) feeds only the sum returned: the reverse sweep computes it, once."""
    s = 0.0
    for i in range(n):
        p = x[i] * w[i]
        x[i] = math.sin(p) * math.cos(p) + p * p
        s += x[i] * math.exp(w[i])
    return s
