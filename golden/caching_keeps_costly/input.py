import math


def f(x, w, n: int):
    """sin(p) and cos(p) are kept for the reverse sweep, which needs both (each is the other's
    derivative): computing them again costs more than their 16 bytes of tape, so the cut keeps
    them beside p (which the derivative of p * p needs); exp(w[i]) likewise, though w is only
    read and it could be computed again for nothing but its cost."""
    s = 0.0
    for i in range(n):
        p = x[i] * w[i]
        x[i] = math.sin(p) * math.cos(p) + p * p
        s += x[i] * math.exp(w[i])
    return s
