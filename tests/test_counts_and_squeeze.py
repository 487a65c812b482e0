"""Counting with masks, and ``np.squeeze``.

* ``np.sum(x > 0.0)`` counts, as NumPy sums booleans as integers. The IR typed the sum of a
  boolean array as a boolean, and C output accumulated it into a ``bool``, which stops at 1: a
  silently wrong gradient of ``np.sum(x) * np.sum(x > 0.0)``. A sum along an axis of a mask
  (``np.sum(X > 0.0, axis=1)``) meeting a float array was refused ("no derivative rule for
  arr.gt"): an array of integers or booleans is never active.
  ``np.cumsum(x > 0.0)`` counts too (it was refused).
* ``np.count_nonzero(a)`` (``axis=``, ``keepdims=``): that sum of ``a != 0`` (of ``a`` itself
  for a mask). It was refused as an unsupported NumPy function.
* ``np.squeeze(x)``, ``x.squeeze()``, ``axis=``: a reshape without the axes of extent 1. Without
  ``axis=`` the rank of the result depends on which extents are 1, so every axis's extent must
  be evident when the gradient is written (``x.reshape(1, -1)``, ``keepdims``, ``"f64[n, 1]"``);
  otherwise a located error whose hint names the axes that evidently are 1.
"""

from __future__ import annotations

import numpy as np
import pytest

from cbuild import CFunction, build, have_gcc
from s2sad import pipeline

from fd import ParamSpec
from source_gradients import arr, check_source, the_refusal

SOURCE = """
import numpy as np


def counted(x: "f64[n]"):
    return np.sum(x) * np.sum(x > 0.0) + np.sum(x * x) / np.count_nonzero(x > -0.5)


def counted_rows(X: "f64[m, n]"):
    k = np.sum(X > 0.0, axis=1)
    j = np.count_nonzero(X < 0.25, axis=0, keepdims=True)
    return np.sum(X.T * k) + np.sum(X * j)


def nonzero_labels(x: "f64[n]", lab: "i64[n]"):
    return np.sum(x * x) * np.count_nonzero(lab)


def running_count(x: "f64[n]"):
    c = np.cumsum(x > 0.0)
    return np.sum(x * c) + (x > 0.2).sum() * x[1] + np.mean(x > 0.1) * x[2]


def squeezed(X: "f64[m, n]", w: "f64[n, 1]"):
    z = np.squeeze(X @ w, axis=1)
    y = X[0].reshape(1, -1)
    return np.sum(np.tanh(z)) + np.sum(np.squeeze(y, axis=(0,)) ** 2) + np.sum(y.squeeze(0) * z[0])


def squeezed_all(X: "f64[m, n]"):
    mx = np.max(X, axis=1, keepdims=True)
    one = X[0:1, 0:1]
    return np.sum(mx.squeeze(axis=1) ** 2) + np.sin(one.squeeze())
"""

CASES = {
    "counted": (["x"], [arr("x", 7)]),
    "counted_rows": (["X"], [arr("X", 4, 5)]),
    "nonzero_labels": (["x"], [arr("x", 5), ParamSpec("lab", "array", (5,), dtype="i64", ints=(0, 3))]),
    "running_count": (["x"], [arr("x", 7)]),
    "squeezed": (["X", "w"], [arr("X", 4, 3), arr("w", 3, 1)]),
    "squeezed_all": (["X"], [arr("X", 4, 3)]),
}


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("func", list(CASES))
def test_counts_and_squeezes_match_central_differences(func, target):
    wrt, params = CASES[func]
    check_source(SOURCE, wrt, params, target, func=func, seeds=3)


@pytest.mark.skipif(not have_gcc(), reason="gcc not available")
@pytest.mark.parametrize("func", ["counted", "running_count"])
def test_c_output_counts_a_mask_as_an_integer(func):
    text = pipeline.gradient_source(SOURCE, "prog.py", func, ["x"], "c")
    assert "bool acc" not in text, text
    grad = CFunction(build(text), f"grad_{func}", ["double *", "double *", "long", "double"])
    namespace: dict = {}
    exec(compile(SOURCE, "prog.py", "exec"), namespace)
    primal = namespace[func]
    x = np.array([0.3, -0.7, 1.1, 0.4, -0.2, 0.9, -1.3])
    d_x = np.zeros(7)
    grad(x.copy(), d_x, 7, 1.0)
    h = 1e-6
    want = [(primal(x + h * e) - primal(x - h * e)) / (2 * h) for e in np.eye(7)]
    assert np.allclose(d_x, want, rtol=1e-6, atol=1e-8), (d_x, want)


@pytest.mark.parametrize(
    "body, message, hint",
    [
        ("return np.sum(np.squeeze(X) ** 2)", "np.squeeze drops the axes of extent 1, and whether axis 0",
         "np.squeeze(x, axis=1)"),
        ("y = X[0].reshape(1, -1)\n    return np.sum(y.squeeze() ** 2)", "whether axis 1 of this array",
         "np.squeeze(x, axis=0)"),
        ("return np.sum(np.squeeze(X, axis=2))", "axis 2 is out of range for a 2-D array", "axis=0"),
    ],
)
def test_a_squeeze_of_a_rank_known_only_at_run_time_is_a_located_error(body, message, hint):
    source = f'import numpy as np\n\n\ndef f(X: "f64[m, n]"):\n    {body}\n'
    d = the_refusal(source, ["X"])
    assert d.loc.line == 5 + body.count("\n") and message in d.message and hint in (d.hint or ""), d

