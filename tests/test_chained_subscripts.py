"""A subscript of the part an index array or a mask picks: ``X[idx][1]`` is row ``idx[1]`` of X.

``a[i][j]`` is ``a[i, j]`` when ``i`` is a number, and the front end read every chain so: with
an index array, ``X[idx][1]`` became ``X[idx, 1]`` (entry 1 of each picked row), a wrong gradient
in every output (Python probe round 6: d_X 0 where central differences give 0.251, values in a
column no one read). The chain now stops at an index that may pick several entries (an integer
array, a call giving one, a mask), whose part is a value of its own, subscripted after
(``py_expr.ExprLowerer.keeps_axis``). A store into such a part (``X[idx][1] = v``) changes neither
array in NumPy (the part is a copy) and is refused. A subscript of what any expression makes
(``X.T[0]``, ``(X * 2.0)[1]``) reads that value's row or element.
"""

from __future__ import annotations

import numpy as np
import pytest
from fd import check_source_function

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError

RNG = np.random.default_rng(11)
X = RNG.normal(size=(4, 3))
R = RNG.normal(size=6)
IDX = np.array([2, 0, 3])

# the returned expression, the parameter differentiated
CASES = {
    "row_of_picked_rows": ("np.sum(X[idx][1] ** 2)", "X"),
    "last_picked_row": ("np.sum(X[idx][-1] * X[0])", "X"),
    "entry_of_a_picked_row": ("X[idx][1, 2] ** 2 + X[idx][0][1]", "X"),
    "picked_rows_of_the_transpose": ("np.sum(X.T[idx[:2]][0] ** 2)", "X"),
    "slice_of_picked_rows": ("np.sum(X[idx][0:2] ** 2)", "X"),
    "entry_of_picked_entries": ("r[idx][2] ** 2 + r[idx][0]", "r"),
    "slice_of_sorted": ("np.sum(r[np.argsort(r)][:3] ** 2)", "r"),
    "slice_of_picked_entries": ("np.sum(r[idx][1:] * r[idx][:-1])", "r"),
    "slice_of_masked": ("np.sum(r[r > 0][:2] ** 2)", "r"),
    "reversed_sorted": ("np.sum(r[np.argsort(r)][::-1] * r)", "r"),
    "row_of_a_number_call": ("np.sum(X[int(idx[0])][1:] ** 2)", "X"),
    # a row or element of what an expression makes (refused: "give one index per dimension")
    "row_of_the_transpose": ("np.sum(X.T[0] ** 2)", "X"),
    "row_of_a_transpose_of_picked_rows": ("np.sum(X[idx].T[0] ** 2)", "X"),
    "row_of_a_product": ("np.sum((X * 2.0)[1] ** 2)", "X"),
    "entry_of_the_transpose": ("X.T[1, 2] ** 2 + np.eye(3)[0, 0] * X[0, 0]", "X"),
}


def _source(expr: str) -> str:
    return f'import numpy as np\n\n\ndef f(X: "f64[n, m]", r: "f64[p]", idx: "i64[k]"):\n    return {expr}\n'


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_subscript_of_a_picked_part_reads_that_part(name, target):
    expr, wrt = CASES[name]
    check_source_function(_source(expr), "f", [X, R, IDX], [wrt], target)


def test_c_output_reads_the_row_picked():
    """The C gradient of ``X[idx][1]``, against the Python one (s2sad check passes no 2-D arrays
    to C yet)."""
    from test_from_end import _c_call, _py_call

    source = _source("np.sum(X[idx][1] ** 2 + X[idx][0] * r[idx][2])")
    values = {"X": X, "r": R, "idx": IDX, "n": 4, "m": 3, "p": 6, "k": 3}
    got = _c_call(pipeline.gradient_source(source, "prog.py", "f", ["X"], "c"), values)
    want = _py_call(source, ["X"], ["X", "r", "idx"], values)["X"]
    np.testing.assert_allclose(got["X"], want, rtol=1e-12, atol=1e-14)
    assert np.any(want[0] != 0.0)  # row idx[1] = 0 is read whole


@pytest.mark.parametrize("store", ["Y[idx][1] = 0.0", "Y[idx][1] += 2.0", "Y[idx][0, 1] = 5.0"])
def test_a_store_into_a_picked_part_is_refused(store):
    source = f'import numpy as np\n\n\ndef f(X: "f64[n, m]", idx: "i64[k]"):\n    Y = X.copy()\n    {store}\n' \
             "    return np.sum(Y ** 2)\n"
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(source, "prog.py", "f", ["X"], "py")
    assert "prog.py:6:5: error: this stores into the part of an array that an index array picks: NumPy makes " \
           "that part a copy" in info.value.render()


def test_a_store_through_a_number_index_is_a_store():
    source = 'import numpy as np\n\n\ndef f(X: "f64[n, m]", k: int):\n    Y = X.copy()\n' \
             "    Y[int(k)][1] = 0.0\n    Y[k][0] *= 3.0\n    return np.sum(Y ** 2)\n"
    check_source_function(source, "f", [X, 2], ["X"])


def test_a_name_rebound_to_a_gather_of_itself():
    """``x = x[idx]`` (a particle filter's resampling): the rank inference followed ``x`` through
    its own assignment for ever (RecursionError, an internal error; Python probe round 6)."""
    source = "import numpy as np\n\n\ndef f(x, w):\n    idx = np.argsort(w)\n    x = x[idx]\n" \
             "    return np.sum(x * w)\n"
    for target in ("py", "numba"):
        check_source_function(source, "f", [R, R[::-1].copy()], ["x", "w"], target)
