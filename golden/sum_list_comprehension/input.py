def weighted_norm(x, w, n):
    return sum([w[i] * x[i] * x[i] for i in range(n)]) ** 0.5
