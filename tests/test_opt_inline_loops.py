"""The inlining of helpers with loops that a loop calls (s2sad.opt.inline_loops).

Each program is differentiated at -O2 (the pipeline that runs the pass) and checked against
central differences; the text of the gradient says whether the helper was inlined (no
``grad_<helper>``) or stayed a call. The heuristic only chooses: -O1 (no inlining) must give
the same adjoints, and does (the same check at level 1).
"""

from __future__ import annotations

import pytest

from source_gradients import HEADER, arr, check_source, count
from s2sad.opt import inline_loops
from s2sad.pipeline import parse_source

# A helper computing values its reverse sweep needs (v * v of a value it computed).
KEEPS = HEADER + '''
def half_sq(q, x, d: int) -> float:
    s = 0.0
    for r in range(d):
        v = math.exp(q[r]) * x[r]
        for c in range(r):
            v += q[c] * x[c]
        s += v * v
    return 0.5 * s


def f(q, x, n: int, d: int) -> float:
    total = 0.0
    for i in range(n):
        total += math.log(1.0 + half_sq(q, x[i * d:], d))
    return total
'''

SQNORM = '''
def sqnorm(v, d: int) -> float:
    s = 0.0
    for j in range(d):
        s += v[j] * v[j]
    return s
'''

# A helper writing no array: its reverse reads its array argument as the call saw it.
PURE = HEADER + SQNORM + '''

def f(x, mu, tmp, n: int, d: int) -> float:
    total = 0.0
    for i in range(n):
        for j in range(d):
            tmp[j] = x[i * d + j] - mu[j]
        total += math.exp(-0.5 * sqnorm(tmp, d))
    return total
'''

# A helper writing an array as a linear map of what it reads: its gradient re-runs nothing.
LINEAR = HEADER + '''
def subtract(a, b, out, d: int) -> None:
    for j in range(d):
        out[j] = a[j] - b[j]


def f(x, mu, tmp, n: int, d: int) -> float:
    total = 0.0
    for i in range(n):
        subtract(x[i * d:], mu, tmp, d)
        total += tmp[0] * tmp[d - 1]
    return total
'''

# A helper writing its state through a nonlinear update (an LSTM cell's shape).
CELL = HEADER + '''
def cell(w, h, gates, m: int) -> None:
    for r in range(m):
        gates[r] = w[r] * h[r] + w[m + r]
    for r in range(m):
        h[r] = math.tanh(gates[r]) * h[r]


def f(w, h, gates, steps: int, m: int) -> float:
    for t in range(steps):
        cell(w, h, gates, m)
    return h[0] + h[m - 1]
'''

# The helper called once, outside any loop: its gradient runs once, it stays a call.
ONCE = HEADER + SQNORM + '''

def f(x, d: int) -> float:
    return math.sqrt(sqnorm(x, d))
'''


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("source, wrt, params, helper, inlined", [
    (KEEPS, ["q", "x"], [arr("q", 4), arr("x", 12), count("n", 3), count("d", 4)], "half_sq", True),
    (PURE, ["x", "mu"], [arr("x", 9), arr("mu", 3), arr("tmp", 3), count("n", 3), count("d", 3)], "sqnorm", True),
    (LINEAR, ["x", "mu"], [arr("x", 9), arr("mu", 3), arr("tmp", 3), count("n", 3), count("d", 3)], "subtract", False),
    (CELL, ["w", "h"], [arr("w", 6), arr("h", 3), arr("gates", 3), count("steps", 4), count("m", 3)], "cell", True),
    (ONCE, ["x"], [arr("x", 5), count("d", 5)], "sqnorm", False),
], ids=["keeps_values", "writes_no_array", "linear_writer", "nonlinear_writer", "called_once"])
def test_helper_inlined_where_its_gradient_would_rerun_it(source, wrt, params, helper, inlined, level):
    text = check_source(source, wrt, params, level=level)
    assert (f"def grad_{helper}(" not in text) is (inlined and level == 2)


# Linear in what it computes: a sum scaled and divided by constants.
SCALED = LINEAR.replace("out[j] = a[j] - b[j]", "out[j] = (a[j] - b[j]) * 0.5 / 3.0 + out[j] / 2.0")


@pytest.mark.parametrize("source, helper, reruns", [
    (KEEPS, "half_sq", True), (PURE, "sqnorm", True), (LINEAR, "subtract", False), (CELL, "cell", True),
    (SCALED, "subtract", False),
])
def test_which_helpers_rerun_in_their_gradient(source, helper, reruns):
    module = parse_source(source, "prog.py", "f")
    assert inline_loops.reruns_in_gradient(module, module.functions[helper]) is reruns


def test_helper_over_the_size_bound_stays_a_call(monkeypatch):
    monkeypatch.setattr(inline_loops, "MAX_OPS", 5)
    text = check_source(KEEPS, ["q", "x"], [arr("q", 4), arr("x", 12), count("n", 3), count("d", 4)])
    assert "def grad_half_sq(" in text


def test_helper_with_a_checkpointed_loop_stays_a_call():
    loop = "    for r in range(m):\n        h[r]"
    source = CELL.replace(loop, "    # s2sad: checkpoint recompute\n" + loop)
    text = check_source(source, ["w", "h"], [arr("w", 6), arr("h", 3), arr("gates", 3), count("steps", 4),
                                            count("m", 3)])
    assert "def grad_cell(" in text
