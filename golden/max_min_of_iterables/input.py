def spread(x, c):
    top = max(v * c for v in x if v > -0.9)
    low = min([v - c for v in x])
    return top - low + max(x) * min(x)
