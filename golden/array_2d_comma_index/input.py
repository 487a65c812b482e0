def matvec(A, x, y, n, m):
    for i in range(n):
        acc = 0.0
        for j in range(m):
            acc += A[i, j] * x[j]
        y[i] = acc
