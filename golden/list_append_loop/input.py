import math


def trajectory_loss(x, n, k):
    hist = []
    for t in range(n):
        x = math.sin(x) + 0.5 * x
        hist.append(x)
    mean = sum(hist) / len(hist)
    return hist[k] * mean + hist[-1]
