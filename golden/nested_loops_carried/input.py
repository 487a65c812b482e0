def f(x, n):
    total = 0.0
    for i in range(n):
        row = 1.0
        for j in range(i + 1):
            row = row * x[j] + 0.5
        total += row
    return total
