import numpy as np


def sample_variance(x, mu):
    sq = [(xi - mu) ** 2 for xi in x]
    return sum(sq) / (len(sq) - 1)


def probe_spec():
    x = np.array([1.2, 0.7, 2.3, 1.9, 0.4, 1.1])
    return dict(func="sample_variance", wrt=["x", "mu"], args=[x, 1.0], kwargs={},
                idioms="list comprehension over array, sum(list), len(list)")
