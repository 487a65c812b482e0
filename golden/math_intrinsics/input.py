import math


def f(x):
    a = math.sin(x) * math.cos(x) + math.tan(x)
    b = math.exp(x) + math.log(x) + math.sqrt(x)
    return a * b + math.tanh(x)
