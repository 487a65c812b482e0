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


SWAPPED = """\
def f(a: "f64[n]", b: "f64[n]", n: int) -> float:
    if n <= 0:
        return 0.0
    a[0] = a[0] * 2.0
    return b[0] + f(b, a, n - 1)


def h(a: "f64[n]", b: "f64[n]", c: "f64[n]", n: int) -> float:
    return c[0] * b[0] + f(a, b, n)
"""

SWAPPED_C = """\
double f(int n, double a[n], double b[n])
{
    if (n <= 0) {
        return 0.0;
    }
    a[0] = a[0] * 2.0;
    return b[0] + f(n - 1, b, a);
}

double h(int n, double a[n], double b[n], const double c[n])
{
    double s = c[0] * b[0];
    return s + f(n, a, b);
}
"""


def _fd_h(h, a, b, c, n, step=1e-6):
    out = np.zeros_like(c)
    for j in range(len(c)):
        cp, cm = c.copy(), c.copy()
        cp[j] += step
        cm[j] -= step
        out[j] = (h(a.copy(), b.copy(), cp, n) - h(a.copy(), b.copy(), cm, n)) / (2 * step)
    return out


@pytest.mark.parametrize("level", [2, 0])
def test_a_load_before_a_call_that_writes_it_through_its_own_recursion_stays_before(level):
    """``f(a, b)`` writes ``a`` and, calling itself as ``f(b, a)``, ``b``: the load of ``b[0]`` that
    ``h`` makes before calling it was printed after the call (the emitter's summary of what ``f``
    writes had taken its self-call to write nothing), and ``d_c`` came out twice too large, silently."""
    primal = _exec(SWAPPED).h
    ns = _exec(pipeline.gradient_source(SWAPPED, "r.py", "h", ["c"], "py", pipeline.Options(level=level)))
    rng = np.random.default_rng(0)
    a, b, c = rng.random(4), rng.random(4), rng.random(4)
    d = [np.zeros(4) for _ in range(3)]
    ns.grad_h(a.copy(), d[0], b.copy(), d[1], c.copy(), d[2], 3)
    assert np.allclose(d[2], _fd_h(primal, a, b, c, 3), rtol=1e-6, atol=1e-9)


def test_a_load_before_a_call_that_writes_it_through_its_own_recursion_stays_before_in_c():
    import ctypes

    from cbuild import build, have_gcc

    if not have_gcc():
        pytest.skip("gcc is not installed")
    lib = build(pipeline.gradient_source(SWAPPED_C, "r.c", "h", ["c"], "c"))
    primal = build(SWAPPED_C)
    ptr = ctypes.POINTER(ctypes.c_double)
    primal.h.restype = ctypes.c_double
    primal.h.argtypes = [ctypes.c_int, ptr, ptr, ptr]
    lib.grad_h.restype = None
    lib.grad_h.argtypes = [ctypes.c_int, ptr, ptr, ptr, ptr, ptr, ptr, ctypes.c_double]

    def p(x):
        return x.ctypes.data_as(ptr)

    rng = np.random.default_rng(0)
    a, b, c = rng.random(4), rng.random(4), rng.random(4)
    d_a, d_b, d_c = np.zeros(4), np.zeros(4), np.zeros(4)
    a1, b1 = a.copy(), b.copy()
    lib.grad_h(4, p(a1), p(d_a), p(b1), p(d_b), p(c), p(d_c), 1.0)
    expected = _fd_h(lambda a_, b_, c_, n: primal.h(n, p(a_), p(b_), p(c_)), a, b, c, 4)
    assert np.allclose(d_c, expected, rtol=1e-6, atol=1e-9)
