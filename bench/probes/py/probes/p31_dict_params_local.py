import math


def predict(params, x):
    return params["a"] * math.exp(-params["b"] * x) + params["c"]


def exp_fit_loss(a, b, c, xs, ys):
    params = {"a": a, "b": b, "c": c}
    total = 0.0
    for x, y in zip(xs, ys):
        r = predict(params, x) - y
        total += r * r
    return total / len(xs)


def probe_spec():
    xs = [0.0, 0.5, 1.0, 1.5, 2.0]
    ys = [3.1, 2.0, 1.4, 1.0, 0.8]
    return dict(func="exp_fit_loss", wrt=["a", "b", "c"], args=[2.5, 1.1, 0.4, xs, ys], kwargs={},
                idioms="local dict passed to helper, zip over Python lists, math.exp")
