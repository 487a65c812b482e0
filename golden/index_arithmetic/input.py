def f(x, out, n):
    for i in range(n):
        out[i] = x[(i + 1) % n] - 2.0 * x[i] + x[(i + n - 1) % n]
