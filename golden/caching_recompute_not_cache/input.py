import math


def f(x, w, n: int):
    """u = x[i] is overwritten, so it is cached; u * u, sin(u * u) and exp(w[i]) (w is only
    read) are recomputed from it in the reverse sweep instead of being cached too."""
    s = 0.0
    for i in range(n):
        u = x[i]
        x[i] = u * w[i]
        s += u * math.sin(u * u) * math.exp(w[i])
    return s
