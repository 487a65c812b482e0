"""Positions of the nonzero entries: ``np.where(m)[0]``, ``np.nonzero(A > c)[k]``,
``np.flatnonzero(x)`` (``py_arrays.nonzero_positions``): the mask of the entries picks them from
an array of positions, integers that index what the code reads (``x[idx]``, ``A[rows, cols]``).
They were refused (np.where of one argument, np.flatnonzero unsupported, ``x[np.nonzero(x)[0]]``
read as an element)."""

from __future__ import annotations

import pytest


from source_gradients import HEADER, arr, check_source, the_refusal

SOURCE = HEADER + """
def where_one(x: "f64[n]"):
    idx = np.where(x > 0)[0]
    return np.sum(x[idx] ** 2) + np.sum(x[np.nonzero(x)[0]]) + np.sum(x[np.flatnonzero(x < 0.1)] * 3.0)


def rows_and_columns(A: "f64[m, n]"):
    rows = np.nonzero(A > 0.2)[0]
    cols = np.where(A > 0.2)[1]
    return np.sum(A[rows, cols] ** 2) + np.sum(A[1, np.flatnonzero(A[0] > 0.0)])
"""


@pytest.mark.parametrize("func, target", [("where_one", "py"), ("where_one", "numba"), ("rows_and_columns", "py")])
def test_positions_of_nonzero_entries_match_central_differences(func, target):
    params = [arr("x", 7)] if func == "where_one" else [arr("A", 4, 5)]
    check_source(SOURCE, [params[0].name], params, target, func=func, seeds=3)


def test_more_positions_than_the_array_has_axes_is_a_located_error():
    source = HEADER + 'def f(x: "f64[n]"):\n    return np.sum(x[np.nonzero(x)[1]])\n'
    d = the_refusal(source, ["x"])
    assert "np.nonzero of a 1-D array gives 1 array of positions, not 2" in d.message, d
