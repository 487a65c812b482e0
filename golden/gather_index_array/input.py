def f(w, idx, n):
    s = 0.0
    for i in range(n):
        s += w[idx[i]] * w[idx[i]]
    return s
