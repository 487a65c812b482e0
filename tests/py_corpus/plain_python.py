"""Plain Python: math, lists, tuples, helpers, defaults, the way scripts are written."""

import math

import numpy as np


def rosenbrock(x, y, a=1.0, b=100.0):
    return (a - x) ** 2 + b * (y - x * x) ** 2


def rosenbrock_nd(x):
    total = 0.0
    for i in range(len(x) - 1):
        total += 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2
    return total


def himmelblau(x, y):
    return (x * x + y - 11) ** 2 + (x + y * y - 7) ** 2


def distance(p, q):
    return math.sqrt((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2)


def polygon_perimeter(xs, ys):
    total = 0.0
    n = len(xs)
    for i in range(n):
        j = (i + 1) % n
        total += math.hypot(xs[j] - xs[i], ys[j] - ys[i])
    return total


def shoelace_area(xs, ys):
    n = len(xs)
    s = 0.0
    for i in range(n):
        s += xs[i] * ys[(i + 1) % n] - xs[(i + 1) % n] * ys[i]
    return 0.5 * s


def compound_interest(principal, rate, years):
    amount = principal
    for _ in range(years):
        amount *= 1 + rate
    return amount


def newton_sqrt(a, iterations=20):
    x = a
    for _ in range(iterations):
        x = 0.5 * (x + a / x)
    return x


def bisection_free_root(c):
    x = 1.0
    for _ in range(30):
        x = x - (x**3 - c) / (3 * x**2)
    return x


def piecewise(x):
    if x < 0:
        return x * x
    elif x < 1:
        return math.sin(x)
    else:
        return math.log(x) + math.sin(1.0)


def conditional_expression(x, y):
    m = x if x > y else y
    return m * m + x * y


def squares_list(xs):
    squares = [v * v for v in xs]
    return sum(squares)


def list_append_loop(x, n):
    values = []
    for i in range(n):
        values.append(math.sin(x * i))
    return sum(values)


def tuple_return(x, y):
    s = x + y
    p = x * y
    return s, p


def nested_helper(x):
    def g(t):
        return t * math.exp(-t)

    return g(x) + g(2 * x)


def lambda_helper(x):
    f = lambda t: t**3 - t  # noqa: E731 - as scripts write it
    return f(x) * f(x + 1)


def keyword_only(x, *, scale=2.0, shift=0.5):
    return math.tanh(scale * x + shift)


def global_constant(x):
    return GRAVITY * x * x / 2


GRAVITY = 9.81


def zip_dot(xs, ys):
    return sum(a * b for a, b in zip(xs, ys))


def enumerate_weights(xs):
    total = 0.0
    for i, v in enumerate(xs):
        total += (i + 1) * v * v
    return total


def while_converge(x):
    y = x
    k = 0
    while abs(y) > 1e-3 and k < 50:
        y = 0.5 * y
        k += 1
    return y + x


def max_of_list(xs):
    return max([v * v for v in xs])


def min_builtin_pair(x, y):
    return min(x * x, y + 1.0)


def abs_and_pow(x):
    return abs(x) ** 1.5


def trapezoid_integral(a, b, n):
    h = (b - a) / n
    s = 0.5 * (math.exp(-a * a) + math.exp(-b * b))
    for i in range(1, n):
        t = a + i * h
        s += math.exp(-t * t)
    return s * h


def simpson_integral(k, n):
    h = 1.0 / n
    s = 0.0
    for i in range(n + 1):
        t = i * h
        w = 1 if i == 0 or i == n else (4 if i % 2 == 1 else 2)
        s += w * math.sin(k * t)
    return s * h / 3


def assert_and_print(x):
    assert x > 0, "x must be positive"
    y = math.log(x)
    return y * y


def array_copy_then_modify(x):
    y = x.copy()
    y[0] = 0.0
    return np.sum(y * x)


def return_array(x):
    return np.exp(x)


def slice_assignment(x):
    y = np.zeros(len(x))
    y[1:] = x[:-1] * 2
    return np.sum(y * y)


def reversed_loop(xs):
    acc = 0.0
    for v in reversed(xs):
        acc = acc * 0.5 + v
    return acc


def divmod_free_modular(x, n):
    total = 0.0
    for i in range(n):
        if i % 3 == 0:
            total += x**i
        else:
            total -= x / (i + 1)
    return total


def smooth_step(x, edge0=0.0, edge1=1.0):
    t = (x - edge0) / (edge1 - edge0)
    t = min(max(t, 0.0), 1.0)
    return t * t * (3 - 2 * t)


def soft_clip_sum(xs, *, limit=2.0, sharpness=4.0):
    total = 0.0
    for v in xs:
        total += limit * math.tanh(sharpness * v / limit)
    return total


def closure_over_weights(w, x):
    def basis(k):
        return w[k] * math.cos(k * x)

    return sum(basis(k) for k in range(len(w)))


def largest_magnitude(xs):
    return max(abs(v) for v in xs) + min(xs)


def printed_progress(x, n):
    y = x
    for i in range(n):
        y = y - 0.1 * (y * y - 2.0)
        print("iteration", i, "y =", y)
    return y


def lambda_with_default_call(x, y):
    blend = lambda a, b, t=0.25: (1 - t) * a + t * b  # noqa: E731
    return blend(x, y) * blend(y, x, t=0.75)
