"""numba.prange loops: parallel in the Numba gradient where Numba's parallel semantics allow.

Numba reduces the scalars a prange body adds to, privatizes what it assigns, and has
no atomic add on the CPU; so an adjoint prange loop is parallel when each of its
array accumulations is the iteration's own and what it carries are sums, and is a
commented serial loop otherwise. prange counts up by one: a reversed loop runs its
(independent) iterations in prange's order. The gradients run with several Numba
threads and are compared with central differences of the input run as plain Python.
"""

from __future__ import annotations

import numpy as np
import pytest
from fd import ParamSpec, check_gradient

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError

numba = pytest.importorskip("numba")

SOURCE = """\
import numba
from numba import prange


def blend(a: float, x, idx, y, n: int):
    for i in prange(n):
        y[i] = a * x[i] * x[i] + y[i]
    for i in numba.prange(n):
        y[i] = y[i] + x[idx[i]]
"""

PARAMS = [
    ParamSpec("a", "float"),
    ParamSpec("x", "array", (30,)),
    ParamSpec("idx", "array", (30,), dtype="i64", ints=(0, 10)),
    ParamSpec("y", "array", (30,)),
    ParamSpec("n", "int", value=30),
]


def _namespace(text: str) -> dict:
    namespace: dict = {}
    exec(compile(text, "<prange>", "exec"), namespace)
    return namespace


def test_numba_gradient_keeps_prange_where_iterations_are_independent():
    text = pipeline.gradient_source(SOURCE, "blend.py", "blend", ["a", "x"], "numba")
    assert text.count("@numba.njit(parallel=True)") == 1
    forward, reverse = text.split("# reverse sweep")
    assert forward.count("numba.prange(n)") == 2
    # The gather's adjoint adds to d_x[idx[i]]: serial. The first loop's is the iteration's own,
    # and d_a is a sum Numba reduces: parallel, counted up.
    serial, parallel = reverse.split("# line 6:")
    assert "# serial: iterations may add to the same element" in serial and "range(n - 1, -1, -1)" in serial
    assert "for i in numba.prange(n):" in parallel and "d_a += " in parallel


def test_numba_prange_gradient_matches_finite_differences_with_threads():
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    primal = _namespace(SOURCE)["blend"]  # prange is range when run as Python
    gradient = _namespace(pipeline.gradient_source(SOURCE, "blend.py", "blend", ["a", "x"], "numba"))["grad_blend"]
    for seed in range(2):
        check_gradient(primal, gradient, PARAMS, ["a", "x"], {"y"}, np.random.default_rng(seed))
    assert numba.get_num_threads() >= 1


def test_python_output_of_prange_is_a_plain_loop():
    text = pipeline.gradient_source(SOURCE, "blend.py", "blend", ["a", "x"], "py")
    assert "prange" not in text.replace("# line 6: for i in prange(n):", "").replace(
        "# line 8: for i in numba.prange(n):", "") and "numba" not in text.split("def ")[0]


def test_prange_that_breaks_is_a_located_error():
    src = SOURCE.replace("        y[i] = a * x[i] * x[i] + y[i]\n",
                         "        if x[i] > 2.0:\n            break\n        y[i] = a * x[i] * x[i] + y[i]\n")
    with pytest.raises(DiagnosticError) as e:
        pipeline.gradient_source(src, "blend.py", "blend", ["a", "x"], "numba")
    text = e.value.render()
    assert text.startswith("blend.py:6:14: error: a prange loop cannot break or return") and "^" in text


ROTATE = """\
import math
import numba


def rotate(pts, out, theta, n):
    c = math.cos(theta)
    s = math.sin(theta)
    for i in numba.prange(n):
        px = pts[2 * i]
        py = pts[2 * i + 1]
        out[2 * i] = c * px - s * py
        out[2 * i + 1] = s * px + c * py
"""


def test_sums_added_to_several_times_are_gathered_per_iteration():
    """Numba takes a prange reduction only as one ``s += x`` per iteration; the adjoint adds
    to d_c and d_s twice each (and by -=): each iteration sums into its own d_c_it first.
    The points' elements 2 * i and 2 * i + 1 are the iteration's own: plain +=. No annotation
    on n: a prange bound is an integer."""
    text = pipeline.gradient_source(ROTATE, "rotate.py", "rotate", ["pts", "theta"], "numba")
    reverse = text.split("# reverse sweep")[1]
    assert "for i in numba.prange(n):" in reverse and "serial" not in reverse
    assert reverse.count("d_c += d_c_it") == 1 and reverse.count("d_s += d_s_it") == 1
    assert "d_pts[2 * i + 1] += d_py" in reverse
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    primal = _namespace(ROTATE)["rotate"]
    gradient = _namespace(text)["grad_rotate"]
    params = [ParamSpec("pts", "array", (40,)), ParamSpec("out", "array", (40,)), ParamSpec("theta", "float"),
              ParamSpec("n", "int", value=20)]
    for seed in range(2):
        check_gradient(primal, gradient, params, ["pts", "theta"], {"out"}, np.random.default_rng(seed))
