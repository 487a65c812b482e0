"""Reductions over several axes, keepdims results reduced again, and np.argmax / np.argmin.

* ``np.sum(X, axis=(0, 1))`` (also ``mean``, ``max``, ``min``, ``prod``, ``count_nonzero``, with
  ``keepdims=``): reduced one axis after the other from the last (``py_arrays.reduction``). It was
  refused ("axis= must be an integer literal").
* A keepdims reduction of a keepdims reduction, ``np.sum(np.sum(X, axis=2, keepdims=True),
  axis=1, keepdims=True)``, is of extent 1 on both axes (``array_ops.shape_unit_axes``): its
  adjoint was summed over one of them only, which Python output refused at run time with a
  broadcasting error and compiled C ran past its arrays with ("double free or corruption").
* ``np.argmax(x)``, ``x.argmin()``: the first best position among all the entries, an integer
  (it was refused as an unsupported NumPy function).
"""

from __future__ import annotations

import pytest

from s2sad.cli import main

from source_gradients import HEADER, arr, check_source, the_refusal

SOURCE = """
import numpy as np


def tuple_axes(X: "f64[a, b, c]"):
    s = np.sum(X ** 2, axis=(0, 1)) @ np.mean(X, axis=(0, -2))
    return s + np.sum(X[..., 0]) + np.min(X, axis=(0, 1, 2)) * X[0, 0, 0] + np.prod(X, axis=(0, 1, 2))


def nested_keepdims(X: "f64[a, b, c]"):
    inner = np.sum(np.sum(X ** 2, axis=2, keepdims=True), axis=1, keepdims=True)
    return np.sum(X / inner) + np.sum(X / np.sum(X ** 2, axis=(1, 2), keepdims=True) ** 2)


def counted_over_axes(X: "f64[a, b, c]"):
    return np.sum(np.sum(X, axis=2) * np.count_nonzero(X > 0, axis=(1, 2))[:, None])


def positions(x: "f64[n]", w: "f64[n]", A: "f64[m, n]"):
    k = np.argmax(x)
    j = x.argmin()
    return w[k] * x[k] + x[j] ** 2 + A.ravel()[np.argmax(A)] ** 2 + A[0, np.argmin(A[0])]
"""

CASES = {
    "tuple_axes": (["X"], [arr("X", 3, 4, 2)]),
    "nested_keepdims": (["X"], [arr("X", 3, 4, 2)]),
    "counted_over_axes": (["X"], [arr("X", 3, 4, 2)]),
    "positions": (["x", "w", "A"], [arr("x", 5), arr("w", 5), arr("A", 3, 5)]),
}


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("func", list(CASES))
def test_reductions_match_central_differences(func, target):
    wrt, params = CASES[func]
    check_source(SOURCE, wrt, params, target, func=func, seeds=3)


@pytest.mark.parametrize("func", ["nested_keepdims", "counted_over_axes", "positions"])
def test_c_output_of_the_reductions_is_checked(tmp_path, capsys, func):
    path = tmp_path / "r.py"
    path.write_text(SOURCE)
    wrt, _ = CASES[func]
    sizes = "x=5,w=5,A=3x5" if func == "positions" else "X=3x4x2"
    assert main(["check", str(path), "--func", func, "--wrt", ",".join(wrt), "--target", "c",
                 "--sizes", sizes]) == 0, capsys.readouterr()
    assert "all adjoints match" in capsys.readouterr().out


@pytest.mark.parametrize("call, message", [
    ("np.sum(X, axis=(0, 0))", "an axis is named twice"),
    ("np.sum(X, axis=(0, 3))", "axis 3 is out of range for a 3-D array"),
    ("np.argmax(X, axis=3)[0] * 1.0", "axis 3 is out of range for a 3-D array"),
    ("np.argmax(X, axis=1, out=None)[0] * 1.0", "np.argmax() with out= is not supported"),
])
def test_axes_numpy_would_refuse_are_located_errors(call, message):
    source = HEADER + f'def f(X: "f64[a, b, c]"):\n    return np.sum({call})\n'
    d = the_refusal(source, ["X"])
    assert message in d.message and d.loc.line == source.count("\n"), d


ARG_EXTREMES = HEADER + """
def picked(X: "f64[n, d]", y: "f64[n]"):
    k = np.argmax(X, axis=1)
    j = X.argmin(axis=0)
    return np.sum(X[np.arange(X.shape[0]), k] ** 2) + np.sum(y * k) + np.sum(X[j, np.arange(X.shape[1])])


def deep(T: "f64[a, b, c]"):
    k = np.argmax(T, axis=-1)
    j = np.argmin(T, axis=1)
    return np.sum(T * T[1, 2, k[1, 2]]) + np.sum(T[0, j[0, 3], 3] * k)
"""


@pytest.mark.parametrize("target", ["py", "numba", "c"])
@pytest.mark.parametrize("func, wrt, sizes", [("picked", "X,y", "X=5x4,y=5"), ("deep", "T", "T=2x3x4")])
def test_argmax_and_argmin_along_an_axis(tmp_path, capsys, target, func, wrt, sizes):
    """The index of the first largest (smallest) entry along one axis, per position of the others:
    integers, with no derivative, that pick the entries whose adjoints flow."""
    path = tmp_path / "r.py"
    path.write_text(ARG_EXTREMES)
    code = main(["check", str(path), "--func", func, "--wrt", wrt, "--target", target, "--sizes", sizes])
    out = capsys.readouterr()
    assert code == 0 and "all adjoints match" in out.out, out.out + out.err
