def f(A, n):
    s = 0.0
    for i in range(n):
        for j in range(n):
            s += A[i][j] * A[j][i]
    return s
