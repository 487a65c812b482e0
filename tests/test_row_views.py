"""Writes through a row of an array (``for row in Z: row -= m``, ``row = Z[i]; row /= ...``):
NumPy's row is a view of the array's memory, so the writes reach the array, and reads of the row
see the array's writes. The front end binds such a row to the IR's ``view`` of the array (what C's
``Z[i]`` is; parse/py_arrays.row_view) wherever the function writes through the name, and every
gradient here is checked against central differences (``s2sad check``) for Python, Numba and C
output. Views it cannot follow stay located errors, never silently wrong gradients.
"""

from __future__ import annotations

import pytest

from source_gradients import HEADER, check_command, the_refusal

ROWS = HEADER + '''def normalize_rows(X: "f64[n, k]"):
    for row in X:
        row /= np.linalg.norm(row)
    return np.sum(X * np.arange(X.shape[1]))


def centre(X: "f64[n, k]", m: "f64[k]"):
    for i in range(X.shape[0]):
        row = X[i]
        row -= m
        row[0] = row[0] * 2.0
    return np.sum(X ** 3)


def local(x: "f64[n]", n: int):
    Z = np.zeros((n, 3))
    for i in range(n):
        row = Z[i]
        row += x[i]
        row[1] *= x[i]
    return np.sum(Z ** 2)


def planes(T: "f64[a, b, c]"):
    for plane in T:
        for row in plane:
            row *= row[0]
    return np.sum(T * T)


def last_row(X: "f64[n, k]"):
    r = X[-1]
    r *= 3.0
    return np.sum(X ** 2)


def weighted(X: "f64[n, k]", w: "f64[n]"):
    for i, row in enumerate(X):
        row *= w[i]
    return np.sum(np.sin(X))


def zipped(X: "f64[n, k]", w: "f64[n]"):
    for row, c in zip(X, w):
        row += c * row[0]
    return np.sum(X ** 2)


def shifted(X: "f64[n, k]"):
    for row in X:
        row[1:] = row[1:] * 0.5 + row[:-1]
    return np.sum(X ** 2)


def seen_after(Z: "f64[n, k]"):
    row = Z[0]
    Z[0, 1] = 5.0
    row *= 2.0
    return np.sum(row ** 2) + np.sum(Z)


def carried(Z: "f64[n, k]", w: "f64[k]"):
    s = 0.0
    for row in Z:
        row *= w
        s += np.sum(row ** 2)
        w = w * 0.5
    return s


def another_name(Z: "f64[n, k]"):
    s = 0.0
    for row in Z:
        t = row
        t *= 2.0
        s += np.sum(row)
    return s + np.sum(Z * Z)


def rebound_after(Z: "f64[n, k]"):
    row = Z[1]
    Z = Z * 2.0
    row -= 1.0
    return np.sum(Z ** 2) + np.sum(row ** 3)


def fresh_alias(x: "f64[n]"):
    e = np.exp(x)
    g = e
    g[0] = 1.0  # (e is g: NumPy's one array)
    return np.sum(e * x)


def scale(r, a):
    r *= a


def through_a_helper(X: "f64[n, k]"):
    for row in X:
        scale(row, 2.0)
    scale(X[1], 3.0)
    return np.sum(X ** 2)


def tail(x: "f64[n]", y: "f64[n]"):
    y[:] = x * x
    z = y[1:]
    z *= 2.0
    z[0] += x[0]
    w = x[2:]
    w += np.sin(y[0])
    return np.sum(y * x)


def row_tails(x: "f64[k]", Z: "f64[n, k]"):
    for i in range(Z.shape[0]):
        Z[i] = x * (i + 1.0)
        t = Z[i, 1:]
        t *= 1.5
        t[-1] = t[0] * x[0]
    return np.sum(Z * Z)


def tails_to_a_helper(x: "f64[n]", y: "f64[n]"):
    y[:] = x * x
    scale(y[1:], 2.0)
    for k in range(3):
        scale(y[k:], 0.5)
    return np.sum(y * x)


def unannotated(Z, m):
    for i in range(Z.shape[0]):
        row = Z[i]
        row -= m
        row[0] = row[0] * 2.0
    return np.sum(Z * Z)
'''

CASES = [
    ("normalize_rows", "X", "X=3x4"),
    ("centre", "X,m", "X=3x4,m=4"),
    ("local", "x", "x=4,n=4"),
    ("planes", "T", "T=2x3x4"),
    ("last_row", "X", "X=3x4"),
    ("weighted", "X,w", "X=3x4,w=3"),
    ("zipped", "X,w", "X=3x4,w=3"),
    ("shifted", "X", "X=3x4"),
    ("seen_after", "Z", "Z=3x4"),
    ("carried", "Z,w", "Z=3x4,w=4"),
    ("another_name", "Z", "Z=3x4"),
    ("rebound_after", "Z", "Z=3x4"),
    ("fresh_alias", "x", "x=4"),
    # a vector's tail and a row's, from an index on: the IR's view of y (C's y + 1); and passed on
    ("tail", "x", "x=5"),
    ("row_tails", "x,Z", "x=4,Z=3x4"),
]


@pytest.mark.parametrize("target", ["py", "numba", "c"])
@pytest.mark.parametrize("func, wrt, sizes", CASES)
def test_writes_through_a_row_reach_the_array(tmp_path, capsys, func, wrt, sizes, target):
    check_command(tmp_path, capsys, ROWS, func, wrt, sizes, target)


@pytest.mark.parametrize("target", ["py", "numba"])  # (C output needs the helper's extents as parameters)
def test_a_helper_that_writes_a_row_writes_the_array(tmp_path, capsys, target):
    # NumPy passes the row by reference (a name of it, or X[1] itself): the helper's writes reach X.
    check_command(tmp_path, capsys, ROWS, "through_a_helper", "X", "X=3x4", target)
    check_command(tmp_path, capsys, ROWS, "tails_to_a_helper", "x", "x=5", target)


def test_an_unannotated_array_written_through_rows(tmp_path, capsys):
    check_command(tmp_path, capsys, ROWS, "unannotated", "Z", "Z=3x4")


def test_the_row_is_printed_as_numpys_row():
    from s2sad import pipeline

    text = pipeline.gradient_source(ROWS, "rows.py", "centre", ["X", "m"], "py")
    assert "row = X[i]" in text and "d_row = d_X[i]" in text, text


# A guessed rank that iterating depends on: at rank 1 the items are numbers and the loop does
# nothing; at rank 2 it writes rows. The rank is checked at the gradient's entry (it was taken as
# any shape before, and the gradient was silently wrong for a matrix).
ITERATED = HEADER + '''def f(Z, m):
    for row in Z:
        row -= m
    return np.sum(Z * Z)
'''


def test_an_iterated_parameter_keeps_its_rank_check():
    from s2sad import pipeline

    text = pipeline.gradient_source(ITERATED, "it.py", "f", ["Z"], "py")
    namespace: dict = {}
    exec(compile(text, "<grad>", "exec"), namespace)
    import numpy as np

    Z = np.ones((3, 4))
    with pytest.raises(ValueError, match="Z"):
        namespace["grad_f"](Z, np.zeros_like(Z), 0.5)


# Another name holds a view of the row's array that is not written through: it would be stale.
STALE = HEADER + '''def f(Z: "f64[n, k]"):
    other = Z[0]
    row = Z[0]
    row *= 2.0
    return np.sum(other ** 2)
'''

# A part of rows that a range picks (Z[:2]) is no row: refused as before.
RANGE = HEADER + '''def f(Z: "f64[n, k]"):
    top = Z[:2]
    top *= 3.0
    return np.sum(Z * Z)
'''


@pytest.mark.parametrize("source, says", [(STALE, "'other' is a view of this array"),
                                          (RANGE, "'top' is a NumPy view of another array")])
def test_views_it_does_not_follow_are_located_errors(source, says):
    err = the_refusal(source, ["Z"])
    assert says in str(err), str(err)
