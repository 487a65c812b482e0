def f(x, A):
    s = 0.0
    for i in range(len(x)):
        for k in range(A.shape[0]):
            s += A[k, i] * x[i]
    return s
