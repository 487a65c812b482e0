"""NumPy's in-place calls (``parse/py_inplace_calls.py``): ``y.sort()`` and ``np.f(..., out=y)``
read as the assignments ``y[...] = np.sort(y)`` and ``y[...] = np.f(...)`` (both were refused:
"method calls such as 'y.sort(...)' are not supported", "np.multiply() with out= is not
supported"), checked against central differences, another name of the array included."""

from __future__ import annotations

import pytest
from source_gradients import HEADER, arr, check_source, the_refusal

INPLACE = HEADER + """

def sorted_in_place(x: "f64[n]"):
    y = x * 1.5
    z = y
    y.sort()
    return np.sum(z * np.arange(len(z))) + y[0]


def sorted_stably(x: "f64[n]"):
    y = np.tanh(x)
    y.sort(kind="mergesort")
    return np.sum(y * np.arange(len(y)))


def into_out(x: "f64[n]", A: "f64[m, n]"):
    y = np.empty_like(x)
    np.multiply(x, x, out=y)
    np.add(y, 1.0, out=y)
    B = A.copy()
    row = B[1]
    np.sqrt(y, out=row)
    return np.sum(B ** 2) + np.sum(np.sqrt(y))
"""


@pytest.mark.parametrize("func, wrt, params", [
    ("sorted_in_place", ["x"], [arr("x", 5)]),
    ("sorted_stably", ["x"], [arr("x", 5)]),
    ("into_out", ["x", "A"], [arr("x", 3), arr("A", 2, 3)]),
])
@pytest.mark.parametrize("target", ["py", "numba"])
def test_in_place_calls_are_the_assignments_they_make(func, wrt, params, target):
    check_source(INPLACE, wrt, params, target=target, func=func)


def test_a_sort_along_an_axis_a_lists_sort_and_an_out_whose_value_is_used_stay_refused():
    source = HEADER + "\n\ndef f(A: \"f64[m, n]\"):\n    B = A * 1.0\n    B.sort(axis=0)\n    return np.sum(B)\n"
    assert "method calls such as 'B.sort(...)' are not supported" in the_refusal(source, ["A"]).message
    source = HEADER + "\n\ndef f(x: \"f64[n]\"):\n    y = np.empty_like(x)\n    z = np.add(x, x, out=y)\n" \
        "    return np.sum(z)\n"
    assert "out= is not supported" in the_refusal(source, ["x"]).message
    # a Python list's sort() is no NumPy assignment: it keeps its own message
    source = HEADER + "\n\ndef f(x: \"f64[n]\"):\n    vals = []\n    for i in range(len(x)):\n" \
        "        vals.append(x[i] * x[i])\n    vals.sort()\n    return vals[0]\n"
    assert "method calls such as 'vals.sort(...)' are not supported" in the_refusal(source, ["x"]).message
