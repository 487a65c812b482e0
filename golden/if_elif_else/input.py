def f(x):
    if x < -1.0:
        y = -x * x
    elif x < 1.0:
        y = x ** 3
    else:
        y = 3.0 * x - 2.0
    return y
