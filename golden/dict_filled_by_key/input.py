import numpy as np


def energy(x, k, n):
    terms = {}
    terms["spring"] = 0.0
    terms["field"] = np.sin(k) * x[0]
    for i in range(n - 1):
        terms["spring"] += k * (x[i + 1] - x[i]) ** 2
    terms["field"] *= 0.5
    return terms["spring"] + terms["field"]
