import math


def f(x, w, n: int):
    """u = x[i] is overwritten, so it is cached; u * u and u * w[i] (w is only read) are
    recomputed from it in the reverse sweep instead of being cached too; so is exp(w[i]), which
    feeds only the sum returned: no forward loop computes it to keep (caching_keeps_costly shows
    a costly value the forward sweep computes in any case, kept)."""
    s = 0.0
    for i in range(n):
        u = x[i]
        x[i] = u * w[i]
        s += u * (u * u + 1.0) * math.exp(w[i])
    return s
