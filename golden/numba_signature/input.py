import numba
import numpy as np


@numba.njit("f8(f8[:], f8[:], f8)")
def weighted_energy(x, y, k):
    return k * np.sum(x * y) + np.sum(np.exp(x) * y)
