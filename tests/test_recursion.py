"""Recursive functions: the gradient of a function that calls itself calls itself.

The golden cases golden/recursive_* and golden/c/recursive_divide_conquer check the output
and its numerics in every target; here, recursion below the root (a helper that recurses,
called in a loop) and the errors a recursive function can still get.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_properties import _exec

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError

HELPER = """\
import math


def tree(x, lo: int, hi: int):
    if hi - lo == 1:
        return math.exp(0.5 * x[lo])
    mid = (lo + hi) // 2
    return tree(x, lo, mid) * tree(x, mid, hi) + 0.25 * x[mid]


def f(x, n: int):
    s = 0.0
    for k in range(1, n + 1):
        s += math.sin(tree(x, 0, k))
    return s
"""


def _fd(f, x, n, h=1e-6):
    out = np.zeros_like(x)
    for i in range(len(x)):
        xp, xm = x.copy(), x.copy()
        xp[i] += h
        xm[i] -= h
        out[i] = (f(xp, n) - f(xm, n)) / (2 * h)
    return out


@pytest.mark.parametrize("level", [2, 0])
def test_recursive_helper_called_in_a_loop_matches_finite_differences(level):
    src = pipeline.gradient_source(HELPER, "t.py", "f", ["x"], "py", pipeline.Options(level=level))
    assert "grad_tree(x, d_x, lo, mid," in src  # the helper's gradient recurses
    ns = _exec(src)
    primal = _exec(HELPER).f
    x = np.random.default_rng(1).uniform(-1, 1, 6)
    d_x = np.zeros(6)
    ns.grad_f(x, d_x, 6, 1.0)
    assert np.allclose(d_x, _fd(primal, x, 6), rtol=1e-6, atol=1e-8)


def test_recursive_call_making_a_parameter_outside_wrt_active_is_reported():
    src = """\
def f(x: float, y: float, n: int):
    if n == 0:
        return x + y
    return f(x, x * y, n - 1)
"""
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(src, "t.py", "f", ["x"])
    text = info.value.render()
    assert "t.py:4:12: error: recursive call to 'f' passes a value that depends on --wrt as parameter(s) 'y'" in text
    assert "hint: add y to --wrt" in text
    ns = _exec(pipeline.gradient_source(src, "t.py", "f", ["x", "y"]))
    gx, gy = ns.grad_f(0.7, 1.3, 3)
    # f = x + x**3 * y (y -> x*y three times): df/dx = 1 + 3 x**2 y, df/dy = x**3
    assert np.isclose(gx, 1 + 3 * 0.7**2 * 1.3) and np.isclose(gy, 0.7**3)
