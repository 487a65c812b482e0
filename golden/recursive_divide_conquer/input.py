import math


def rprod(x, lo: int, hi: int):
    """A product of sin(x[i]) + 2 over [lo, hi), split in halves (divide and conquer)."""
    if hi - lo == 1:
        return math.sin(x[lo]) + 2.0
    mid = (lo + hi) // 2
    left = rprod(x, lo, mid)
    right = rprod(x, mid, hi)
    return left * right
