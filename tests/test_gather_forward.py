"""Stencil adjoints in gather form (opt/gather.py) and independent reversed loops run forward
(opt/forward_order.py): the gradients against central differences, for sizes at and around the
edges where the gather loops' end tests matter, in Python, Numba and C output; and the loops
each must leave as they are."""

from __future__ import annotations

import ctypes
import re

import numpy as np
import pytest

from cbuild import INPUT_FLAGS, build, have_gcc
from fd import central_difference, check_source_function
from s2sad import pipeline

def _heat_source() -> str:
    """The heat stepper of the loop benchmarks (bench/loop_programs.py), as its source."""
    import inspect
    import sys
    from pathlib import Path

    bench = str(Path(__file__).resolve().parent.parent / "bench")
    sys.path.insert(0, bench)
    try:
        import loop_programs
    finally:
        sys.path.remove(bench)
    return "import numpy as np\n\n\n" + inspect.getsource(loop_programs.heat)


HEAT = _heat_source()

# Offsets 0, +2 and +3 (none at +1), written 2 + i, with a weight read at the counter and a
# sine: the terms are recomputed at their own iteration's index.
SKEW = """import math


def skew(x, w, n: int):
    s = 0.0
    for i in range(n - 3):
        s += w[i] * math.sin(x[i] * x[2 + i]) + x[i + 3] ** 2
    return s
"""

# Two offsets (a difference): the scatter loop of two additions stays as it is, one loop.
SPRINGS = """def springs(x, k, n: int):
    s = 0.0
    for i in range(n - 1):
        s += k * (x[i + 1] - x[i]) ** 2
    return s
"""


def _gradient(source: str, func: str, wrt: list[str], target: str = "py", **options) -> str:
    return pipeline.gradient_source(source, "prog.py", func, wrt, target, pipeline.Options(**options))


def test_the_heat_stencils_adjoint_is_gathered_and_its_copies_run_forward():
    text = _gradient(HEAT, "heat", ["u"])
    assert "gathered: one element each" in text
    assert "d_u[i] += d_v_i * r + d_v_i2 * r + (d_v_i3 - d_v_i3 * r * 2.0)" in text  # the inner part: no tests
    assert re.search(r"for i in range\(n\):\n +# line \d+: u\[i\] = v\[i\]", text)  # the copy's adjoint, forward
    assert "for _ in range(steps - 1, -1, -1):" in text  # the time loop carries its state: reversed


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8])
def test_the_gathered_heat_gradient_matches_central_differences(target, n):
    u = np.random.default_rng(n).uniform(-1.0, 1.0, n)
    check_source_function(HEAT, "heat", [u, 0.3, 3], ["u"], target)


def test_a_loop_adding_at_two_offsets_stays_one_scatter_loop():
    text = _gradient(SPRINGS, "springs", ["x", "k"])
    assert "gathered" not in text and len(re.findall(r"^ +for i in range\(", text, re.M)) == 1, text
    check_source_function(SPRINGS, "springs", [np.linspace(-1.0, 1.0, 6), 0.7, 6], ["x", "k"])


@pytest.mark.parametrize("n", [3, 4, 5, 8])
def test_a_stencil_of_offsets_zero_two_and_three_is_gathered(n):
    text = _gradient(SKEW, "skew", ["x", "w"])
    assert "gathered: one element each" in text
    rng = np.random.default_rng(n)
    check_source_function(SKEW, "skew", [rng.uniform(-1, 1, n), rng.uniform(-1, 1, n), n], ["x", "w"])


def test_a_term_that_reads_what_its_iteration_wrote_stays_scattered():
    """The slice of d_x's additions reads t[i] after the iteration stores it: recomputing the
    term before the loop would read t's old value."""
    source = """def f(x, t, n: int):
    s = 0.0
    for i in range(1, n - 1):
        t[i] = x[i - 1] * x[i + 1]
        s += t[i] * t[i]
    return s
"""
    assert "gathered" not in _gradient(source, "f", ["x"])
    rng = np.random.default_rng(3)
    check_source_function(source, "f", [rng.uniform(-1, 1, 6), np.zeros(6), 6], ["x"])


def test_nothing_is_gathered_or_reordered_under_may_alias():
    text = _gradient(HEAT, "heat", ["u"], may_alias=True)
    assert "gathered" not in text and not re.search(r"for i in range\(n\):\n +# line \d+: u\[i\]", text)


def test_a_loop_whose_iterations_depend_on_each_other_stays_reversed():
    source = """def f(x, n: int):
    for i in range(1, n):
        x[i] = x[i] + 0.5 * x[i - 1]
    s = 0.0
    for i in range(n):
        s += x[i] * x[i]
    return s
"""
    text = _gradient(source, "f", ["x"])
    assert "for i in range(n - 1, 0, -1):" in text
    check_source_function(source, "f", [np.array([0.5, -1.0, 2.0, 0.25]), 4], ["x"])


C_STENCIL = """double f(const double *u, double *v, int n, double a)
{
    for (int i = 1; i < n - 1; i++) v[i] = a * u[i - 1] + u[i] * u[i] - a * u[i + 1];
    double s = 0.0;
    for (int i = 0; i < n; i++) s += v[i] * v[i];
    return s;
}
"""


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
@pytest.mark.parametrize("n", [2, 3, 4, 9])
def test_a_c_stencils_gathered_adjoint_matches_central_differences(n):
    text = pipeline.gradient_source(C_STENCIL, "t.c", "f", ["u", "a"], "c")
    assert "gathered: one element each" in text
    ptr = ctypes.POINTER(ctypes.c_double)
    primal = build(C_STENCIL, INPUT_FLAGS).f
    primal.argtypes, primal.restype = [ptr, ptr, ctypes.c_int, ctypes.c_double], ctypes.c_double
    grad = build(text).grad_f
    grad.argtypes = [ptr, ptr, ptr, ptr, ctypes.c_int, ctypes.c_double, ptr, ctypes.c_double]

    def run(u: np.ndarray, a: float) -> float:
        return primal(np.ascontiguousarray(u).ctypes.data_as(ptr), np.zeros(n).ctypes.data_as(ptr), n, a)

    rng = np.random.default_rng(n)
    u, a = rng.uniform(-1, 1, n), 0.7
    d_u, v, d_v, d_a = np.zeros(n), np.zeros(n), np.zeros(n), ctypes.c_double(0.0)
    grad(u.ctypes.data_as(ptr), d_u.ctypes.data_as(ptr), v.ctypes.data_as(ptr), d_v.ctypes.data_as(ptr), n, a,
         ctypes.byref(d_a), 1.0)
    np.testing.assert_allclose(d_u, central_difference(run, [u, a], 0), rtol=1e-7, atol=1e-9)
    assert d_a.value == pytest.approx(float(central_difference(run, [u, a], 1)), rel=1e-7, abs=1e-9)
