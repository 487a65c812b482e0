"""Functions passed to helpers (parse/py_function_args.py): a quadrature rule given a lambda, an
ODE stepper given a right-hand side and its ``*args``, a library function passed by name; each
gradient checked against central differences of the primal as written."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError


def _source(src: str) -> str:
    return textwrap.dedent(src).lstrip()


def _gradient(src: str, func: str, wrt: list[str], target: str = "py") -> tuple[str, dict]:
    text = pipeline.gradient_source(_source(src), "prog.py", func, wrt, target, pipeline.Options())
    namespace: dict = {}
    exec(compile(text, "<grad>", "exec"), namespace)
    return text, namespace


def _primal(src: str, func: str):
    namespace: dict = {}
    exec(compile(_source(src), "prog.py", "exec"), namespace)
    return namespace[func]


def _check_scalars(src: str, func: str, args: list[float], wrt: list[str], target: str = "py") -> str:
    """The gradient of ``func`` at ``args`` (all numbers, ``wrt`` the first of them) against
    central differences; the gradient's source."""
    text, ns = _gradient(src, func, wrt, target)
    f = _primal(src, func)
    got = ns["grad_" + func](*args)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(wrt)
    for k in range(len(wrt)):
        h = 1e-6
        up, down = list(args), list(args)
        up[k] += h
        down[k] -= h
        assert got[k] == pytest.approx((f(*up) - f(*down)) / (2 * h), rel=1e-6, abs=1e-9), wrt[k]
    return text


QUADRATURE = """
    import math

    def trapezoid(f, a, b, n=50):
        h = (b - a) / n
        s = 0.5 * (f(a) + f(b))
        for i in range(1, n):
            s += f(a + i * h)
        return s * h

    def integrand(x, k):
        return math.exp(-k * x) * math.cos(x)

    def damped(k, b):
        return trapezoid(lambda x: integrand(x, k), 0.0, b)

    def two_rules(k, b):
        return trapezoid(lambda x: integrand(x, k), 0.0, b) + trapezoid(math.sin, 0.0, b * k, n=20)

    def by_keyword(k, b):
        return trapezoid(a=0.0, b=b, f=lambda t: k * t * t)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_a_lambda_reading_the_callers_variables(target):
    text = _check_scalars(QUADRATURE, "damped", [0.7, 3.0], ["k", "b"], target)
    # the helper's instance takes the lambda's capture where it took the function
    assert "def grad_trapezoid_damped_lambda(f_k, a, b, n=50" in text or target == "numba"


def test_two_functions_passed_to_one_helper_make_two_instances():
    text = _check_scalars(QUADRATURE, "two_rules", [0.7, 3.0], ["k", "b"])
    assert "trapezoid_two_rules_lambda" in text and "trapezoid_sin" in text
    ir = pipeline.ir_text(_source(QUADRATURE), "prog.py", "two_rules")
    assert "func @trapezoid_sin(%a: f64, %b: f64, %n: i64)" in ir


def test_a_function_passed_by_keyword():
    _check_scalars(QUADRATURE, "by_keyword", [0.7, 2.0], ["k", "b"])


ODE = """
    import numpy as np

    def decay(t, y, rate, shift):
        return -rate * (y - shift) + 0.1 * t

    def euler(f, y0, dt, steps, *args):
        y = y0
        for i in range(steps):
            y = y + dt * f(i * dt, y, *args) * (len(args) - 1) + 0.0 * args[0]
        return y

    def solve(rate, shift, y0):
        return euler(decay, y0, 0.05, 40, rate, shift)

    def step_twice(f, y, dt, *args):
        return euler(f, euler(f, y, dt, 3, *args), dt, 2, *args)

    def solve_nested(rate, shift, y0):
        return step_twice(lambda t, y, r: decay(t, y, r, shift), y0, 0.1, rate)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_a_right_hand_side_and_its_star_args(target):
    text = _check_scalars(ODE, "solve", [0.8, 0.3, 1.5], ["rate", "shift", "y0"], target)
    assert "args_0" in text and "args_1" in text


def test_a_function_passed_on_to_another_helper_keeps_its_captures():
    text = _check_scalars(ODE, "solve_nested", [0.8, 0.3, 1.5], ["rate", "shift", "y0"])
    assert "f_shift" in text


ARRAYS = """
    import numpy as np

    def apply(f, x, w):
        return np.sum(f(x) * w)

    def loss(x, w):
        return apply(np.tanh, x, w) + apply(lambda v: v * v * x[0], x, w)
"""


def test_numpy_functions_and_lambdas_over_arrays():
    _, ns = _gradient(ARRAYS, "loss", ["x", "w"])
    f = _primal(ARRAYS, "loss")
    rng = np.random.default_rng(3)
    x, w = rng.normal(size=4), rng.normal(size=4)
    d_x, d_w = np.zeros(4), np.zeros(4)
    ns["grad_loss"](x, d_x, w, d_w)
    for k in range(4):
        e = np.zeros(4)
        e[k] = 1e-6
        assert d_x[k] == pytest.approx((f(x + e, w) - f(x - e, w)) / 2e-6, rel=1e-6)
        assert d_w[k] == pytest.approx((f(x, w + e) - f(x, w - e)) / 2e-6, rel=1e-6)


def test_a_variable_holding_a_function_is_still_refused_where_it_is_called():
    src = """
        import math

        def trapezoid(f, a, b):
            return 0.5 * (f(a) + f(b)) * (b - a)

        def g(k, b):
            h = math.sin if k > 0 else math.cos
            return trapezoid(h, 0.0, b)
    """
    with pytest.raises(DiagnosticError) as e:
        pipeline.gradient_source(_source(src), "prog.py", "g", ["k", "b"], "py", pipeline.Options())
    text = e.value.render()
    assert "prog.py:" in text and "Traceback" not in text


LOCAL = """
    import math

    def simpson(f, a, b, n=10):
        h = (b - a) / n
        s = f(a) + f(b)
        for i in range(1, n):
            s += (4.0 if i % 2 else 2.0) * f(a + i * h)
        return s * h / 3.0

    def energy(k, b):
        def density(x):
            return math.exp(-k * x * x)

        def free(x):
            return x * x

        return simpson(density, 0.0, b) + simpson(free, 0.0, k)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_a_local_function_passed_to_a_helper(target):
    text = _check_scalars(LOCAL, "energy", [0.6, 1.3], ["k", "b"], target)
    assert "simpson_free" in text  # no captures: passed by name
