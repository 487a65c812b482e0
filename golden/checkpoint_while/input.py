import math


def f(x, a: float):
    """A while loop with a data-dependent trip count, checkpointed: its entry state is kept,
    and each reversed iteration is reached by re-running the ones before it."""
    k = 0
    # s2sad: checkpoint recompute
    while a < 10.0:
        a = a * (1.5 + math.sin(x[k % 3])) + 0.25
        x[k % 3] = x[k % 3] * 0.9 + 0.1 * a
        k += 1
    return a
