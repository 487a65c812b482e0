"""An array rebound to a part of it of another rank (``d = d[d > 0]``, ``x = x.reshape(n, 3)``,
``A = np.sum(A, axis=1)``) at the top of a function's body: two variables, the second renamed
``d_2`` from there on (parse/py_rebound_lists.py), as a rebound list is. One variable of s2sad's IR
has one type, and such code was refused ("use a different variable"; probe round 10: a
Lennard-Jones energy over the pair distances). Each is checked against central differences."""

from __future__ import annotations

import pytest

from source_gradients import check_command
from s2sad import pipeline

PROGRAMS = """
import numpy as np


def positive_pairs(x):
    d = x[:, None] - x[None, :]
    d = d[d > 0]
    return np.sum(d**-2)


def reshaped(x, w):
    x = x.reshape(2, 3)
    return np.sum(np.tanh(x @ w))


def reduced(A, v):
    A = np.sum(A * A, axis=1)
    A = np.sqrt(A + 1.0)
    return np.dot(A, v)


def a_row(X):
    X = X[0]
    return np.sum(np.exp(X))
"""

CASES = [("positive_pairs", "x", "x=5", ("py",)), ("reshaped", "x,w", "x=6,w=3", ("py", "numba")),
         ("reduced", "A,v", "A=4x3,v=4", ("py", "numba")), ("a_row", "X", "X=3x4", ("py", "numba"))]


@pytest.mark.parametrize("func, wrt, sizes, targets", CASES, ids=[c[0] for c in CASES])
def test_an_array_rebound_to_another_rank_is_two_variables(func, wrt, sizes, targets, tmp_path, capsys):
    for target in targets:
        check_command(tmp_path, capsys, PROGRAMS, func, wrt, sizes, target)


def test_a_rebinding_of_the_same_rank_keeps_its_name():
    source = "import numpy as np\n\n\ndef f(x):\n    x = x[1:] * 2.0\n    x = x[x > 0.0]\n    return np.sum(x)\n"
    text = pipeline.gradient_source(source, "prog.py", "f", ["x"], "py")
    assert "x_2 = " in text and "x_3" not in text, text  # x[1:] * 2.0 keeps x's rank: one name for both
