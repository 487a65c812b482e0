"""Diagonals off the main one: ``np.diag(v, k)`` puts a vector on the k-th diagonal of a square
matrix, ``np.diag(A, k)`` reads the k-th diagonal of a matrix (square or not), ``np.eye(n, m, k)``
is the n-by-m matrix with ones there (parse/py_arrays.made_array, parse/py_linalg.call). A
tridiagonal matrix built from a vector is ordinary NumPy code; these were refused ("np.diag takes
1 argument"). Each gradient is checked against central differences on every target."""

from __future__ import annotations

import pytest

from source_gradients import check_command
from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError

PROGRAMS = """
import numpy as np


def tridiagonal(v: "f64[n]"):
    A = np.diag(v[1:], 1) + np.diag(v) + np.diag(v[:-1], k=-1)
    return np.sum(A @ v)


def off_diagonals(A: "f64[m, n]"):
    return np.sum(np.diag(A, 1) ** 2) + np.sum(np.diag(A, k=-2) ** 3)


def shifted(x: "f64[n]"):
    n = x.shape[0]
    D = np.eye(n, k=1) - np.eye(n)
    E = np.eye(n, n + 1, 1)
    return np.sum((D @ x) ** 2) + np.sum(x @ E)


def rectangular(A: "f64[m, n]"):
    return np.sum(np.diag(A) ** 3) + np.trace(np.sin(A)) ** 2
"""

CASES = [("tridiagonal", "v", "v=5"), ("off_diagonals", "A", "A=4x6"), ("off_diagonals", "A", "A=6x3"),
         ("shifted", "x", "x=4"), ("rectangular", "A", "A=4x6"), ("rectangular", "A", "A=6x4"),
         ("rectangular", "A", "A=3x3")]


@pytest.mark.parametrize("target", ["py", "numba", "c"])
@pytest.mark.parametrize("func, wrt, sizes", CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_a_diagonal_off_the_main_one(func, wrt, sizes, target, tmp_path, capsys):
    check_command(tmp_path, capsys, PROGRAMS, func, wrt, sizes, target)


def test_a_matrix_square_by_its_annotation_keeps_its_whole_diagonal():
    # np.diag(A) of a matrix not evidently square reads A[:s, :s], s the shorter side: the C
    # and Numba outputs took the rows' extent and read past a wide matrix's diagonal before
    source = ("import numpy as np\n\n\ndef f(A: \"f64[n, n]\", v: \"f64[n]\"):\n"
              "    return np.trace(np.linalg.inv(A) @ (np.diag(v) + A)) + np.sum(np.diag(A @ A.T))\n")
    assert "arr.slice" not in pipeline.ir_text(source, "prog.py", "f")


def test_an_offset_that_is_no_literal_is_refused():
    source = "import numpy as np\n\n\ndef f(v, k: int):\n    return np.sum(np.diag(v, k) @ v)\n"
    with pytest.raises(DiagnosticError) as e:
        pipeline.gradient_source(source, "prog.py", "f", ["v"], "py")
    assert "offset k must be an integer literal" in str(e.value) and "k=1" in e.value.render()
