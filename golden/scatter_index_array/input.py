def f(x, idx, out, n):
    for i in range(n):
        out[idx[i]] += x[i] * x[i]
