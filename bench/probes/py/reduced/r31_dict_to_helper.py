import math


def predict(params, x):
    return params["a"] * math.exp(-params["b"] * x)


def f(a, b, x):
    params = {"a": a, "b": b}
    return predict(params, x)
