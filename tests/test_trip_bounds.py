"""Tapes of loops whose bounds move with an outer loop are allocated once, and are big enough.

For each inner-loop shape the generated Python pushes into an array of the
bounded capacity with no growth check: a bound that is too small raises an
IndexError when the gradient runs, for any of the sizes tried (including no
iteration at all). Values are checked against central differences.
"""

from __future__ import annotations

import numpy as np
import pytest

from s2sad import pipeline
from s2sad.ssa.interp import Interpreter

SHAPES = [
    "range(i + 1, n)",
    "range(i)",
    "range(n - 1, i, -1)",
    "range(i, n, 2)",
    "range(2, i + 3)",
    "range(i + 2, 0, -3)",
]

TEMPLATE = """
def f(x, n):
    total = 0.0
    for i in range(n):
        row = 1.0
        for j in {shape}:
            row = row * x[j] + 0.5
        total += row
    return total
"""


def _allocated_once_and_enough(source: str, sizes: tuple[int, ...], seed: int) -> None:
    """The gradient of ``f(x, n)`` never grows a tape, and is right (an IndexError where too small)."""
    code = pipeline.gradient_source(source, "f.py", "f", ["x"], "py", pipeline.Options())
    assert "np.concatenate" not in code  # never grows
    scope: dict = {}
    exec(compile(code, "grad_f.py", "exec"), scope)
    exec(compile(source, "f.py", "exec"), scope)
    rng = np.random.default_rng(seed)
    for n in sizes:
        x = rng.uniform(0.5, 1.0, n + 4)
        d_x = np.zeros_like(x)
        scope["grad_f"](x, d_x, n)
        h = 1e-6
        fd = np.array([(scope["f"](x + h * e, n) - scope["f"](x - h * e, n)) / (2 * h) for e in np.eye(len(x))])
        np.testing.assert_allclose(d_x, fd, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("shape", SHAPES)
def test_tape_of_a_moving_inner_loop_is_allocated_once_and_suffices(shape):
    _allocated_once_and_enough(TEMPLATE.format(shape=shape), (0, 1, 2, 5, 8), 0)


TRIANGLE = """
def f(x, n):
    total = 0.0
    for i in range(n):
        for j in {middle}:
            row = 1.0
            for k in {inner}:
                row = row * x[k] + 0.5 * x[j]
            total += row * x[i]
    return total
"""


@pytest.mark.parametrize("middle, inner", [("range(i)", "range(j)"), ("range(i, n)", "range(i, j + 1)"),
                                           ("range(i - 1, -1, -1)", "range(j + 2)")])
def test_tape_of_a_triangle_of_loops_is_allocated_once_and_suffices(middle, inner):
    # k < j < i: the inner loop's bounds are counters of loops whose bounds are counters too.
    _allocated_once_and_enough(TRIANGLE.format(middle=middle, inner=inner), (0, 1, 2, 5), 1)


DIVIDING = """
def f(x):
    total = 0.0
    s = {start}
    while {test}:
        total = total * x[s % 4] + x[0]
        s = s // {by}
    return total
"""


@pytest.mark.parametrize(
    "start, test, by, trips",
    [(32, "s > 0", 2, 6), (32, "s >= 1", 2, 6), (100, "s > 0", 3, 5), (32, "s > 4", 2, 3), (1, "s > 0", 2, 1),
     (0, "s > 0", 2, 0), (32, "s != 0", 2, 6)],
)
def test_a_loop_dividing_its_counter_has_a_constant_tape(start, test, by, trips):
    """``while s > 0: ...; s //= 2`` from a constant runs floor(log2(start)) + 1 times: its tapes
    are allocated once at that size (an undersized one raises), and the gradient is right."""
    source = DIVIDING.format(start=start, test=test, by=by)
    code = pipeline.gradient_source(source, "f.py", "f", ["x"], "py", pipeline.Options())
    assert "np.concatenate" not in code  # never grows
    assert f"np.empty({trips}" in code or trips == 0
    scope: dict = {}
    exec(compile(code, "grad_f.py", "exec"), scope)
    exec(compile(source, "f.py", "exec"), scope)
    x = np.random.default_rng(1).uniform(0.5, 1.0, 4)
    d_x = np.zeros_like(x)
    scope["grad_f"](x, d_x)
    h = 1e-6
    for k in range(4):
        e = np.zeros(4)
        e[k] = h
        fd = (scope["f"](x + e) - scope["f"](x - e)) / (2 * h)
        assert abs(d_x[k] - fd) < 1e-6 * max(1.0, abs(fd))


@pytest.mark.parametrize("test, step", [("s != 3", "s // 2"), ("s > 0", "s // 1"), ("s > -1", "s // 2")])
def test_a_counter_that_may_not_stop_keeps_a_growing_tape(test, step):
    source = f"""
def f(x, n):
    total = 0.0
    s = 32
    while {test}:
        total = total * x[0] + 1.0
        s = {step}
        if s == 0:
            break
    return total
"""
    code = pipeline.gradient_source(source, "f.py", "f", ["x"], "py", pipeline.Options())
    assert "np.concatenate" in code  # no bound found: the tape grows


# Loops whose enclosing ops are not all counted loops (found by the fuzzer: trip_bound read the
# counter of a `while` or an `if`, which have none, and crashed).
ENCLOSED = {
    "for_in_while_in_for": """
def f(x, a, n):
    s = 0.5
    t = -0.25
    for i in range(n):
        k = 0
        while k < n:
            k += 1
            for j in range(n - 1, -1, -3):
                s += math.tanh(a * x[j])
                t *= a
    return s + t
""",
    "bound_made_inside_an_if": """
def f(x, a, n):
    m = 0
    if x[0] > -10.0:
        m = min(n, 1 + int(2.0 * abs(x[1])))
        for i in range(m):
            x[i] *= a
    return x[0] * x[1] + x[2]
""",
}


@pytest.mark.parametrize("level", [0, 1, 2])
@pytest.mark.parametrize("name", sorted(ENCLOSED))
def test_loops_inside_whiles_and_ifs_get_right_gradients(name, level):
    source = "import math\n" + ENCLOSED[name]
    options = pipeline.Options(level=level)
    code = pipeline.gradient_source(source, "f.py", "f", ["x", "a"], "py", options)
    scope: dict = {}
    exec(compile(source, "f.py", "exec"), scope)
    primal = scope["f"]
    exec(compile(code, "grad_f.py", "exec"), scope)
    rng = np.random.default_rng(1)
    n = 5
    x0, a0 = rng.uniform(0.6, 0.9, n), 0.7
    x, d_x = x0.copy(), np.zeros(n)
    d_a = scope["grad_f"](x, d_x, a0, n)

    def value(x_in, a_in):  # the contract's J = f + <d_x(entry) = 0, x(exit)>: just f
        return primal(x_in.copy(), a_in, n)

    h = 1e-6
    fd_x = [(value(x0 + h * e, a0) - value(x0 - h * e, a0)) / (2 * h) for e in np.eye(n)]
    fd_a = (value(x0, a0 + h) - value(x0, a0 - h)) / (2 * h)
    np.testing.assert_allclose(d_x, fd_x, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(d_a, fd_a, rtol=1e-6, atol=1e-7)


# -- a triangle's tape is as long as what it holds -------------------------------------------

class _CountingTapes(Interpreter):
    """The reference interpreter, noting each stack's capacity and the most it held at once."""

    def __init__(self, module):
        super().__init__(module)
        self.stacks: list[list[int]] = []  # [capacity, held, most held], per tape.new run

    def _op(self, op, env):
        out = super()._op(op, env)
        if op.name == "tape.new":
            self.stacks.append([int(env[op.operands[0]]), 0, 0])
            self.by_id[id(out[0])] = self.stacks[-1]
        elif op.name in ("tape.push", "tape.pop"):
            stack = self.by_id[id(env[op.operands[0]])]
            stack[1] += 1 if op.name == "tape.push" else -1
            stack[2] = max(stack[2], stack[1])
        return out

    by_id: dict = {}


# Inner loops whose trip count moves by one with the outer counter (exact: the capacity is the
# pushes), and some that are negative for part of the outer range (clamped at 0 there).
MOVING = ["range(i)", "range(i + 1, n)", "range(n - 1, i, -1)", "range(2, i + 3)", "range(i - 2)",
          "range(i, n - 3)", "range(i + 1, -1, -1)", "range(3 - i)"]
OUTER = ["range(n)", "range(n - 1, -1, -1)", "range(2, n + 1)"]


@pytest.mark.parametrize("outer", OUTER)
@pytest.mark.parametrize("inner", MOVING)
def test_a_triangles_tape_holds_exactly_its_values(outer, inner):
    """The tape of ``row`` in a triangular nest is allocated as long as the pushes it takes (a
    sum of trip counts, not the square of the longest), for every size, none included; the
    gradient is checked against central differences above (the shapes of SHAPES)."""
    source = TEMPLATE.replace("for i in range(n)", f"for i in {outer}").format(shape=inner)
    module = pipeline.gradient_module(source, "f.py", "f", ["x"], pipeline.Options(level=2))
    for n in range(0, 8):
        run = _CountingTapes(module)
        run.by_id = {}
        x = np.linspace(0.5, 1.0, n + 8)
        run.call("grad_f", x.copy(), np.zeros_like(x), n, 1.0)
        assert run.stacks, "the nest keeps a tape"
        for capacity, _, most in run.stacks:
            assert capacity == most, f"n={n}: capacity {capacity} for {most} values"
