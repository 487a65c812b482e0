import numpy as np


def softplus_stats(x: "f64[n]"):
    y = np.log1p(np.exp(x))
    count = 0
    for i in range(len(x)):
        if x[i] > 0.0:
            count += 1
    return y, np.sum(y * y), count
