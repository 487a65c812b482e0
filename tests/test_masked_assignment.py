"""Assignment where a boolean mask holds (``py_arrays.assign_at_mask``), and reads of the rows a
mask of an array's leading extents picks (``A[z > 0]``, ``A[z > 0, :]``, ``T[M > 0]``; they were
refused with the same message).

``y[x > 0.5] = 0.0``, ``y[m] = np.exp(z[m]) * x[m]``, ``B[A < 0] *= c``, rows ``B[z > 0] = v``:
NumPy's assignment to the entries a mask picks, in row-major order. It was refused with "this
is an array, but a number is needed here". Each gradient against central differences (Python,
and Numba run as Python), C output where its masked reads allow, and the shapes NumPy would
refuse as located errors.
"""

from __future__ import annotations

import pytest

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError

from source_gradients import arr, check_source, num, the_refusal

SOURCE = """
import numpy as np


def scalar(x: "f64[n]"):
    y = x * 2.0
    y[x > 0.5] = 0.0
    return np.sum(y * y)


def picked_values(x: "f64[n]", z: "f64[n]"):
    y = x * 2.0
    m = z > 0.0
    y[m] = np.exp(z[m]) * x[m]
    return np.sum(y * y)


def augmented(A: "f64[n, k]", c: float):
    B = A * 1.0
    B[A < 0.0] *= c
    B[B > 0.5] += c * c
    return np.sum(B * B)


def itself(x: "f64[n]"):
    y = x.copy()
    y[y < 0.0] = -y[y < 0.0] * 0.5
    return np.sum(y ** 3)


def in_a_loop(x: "f64[n]", c: float):
    y = x.copy()
    for _ in range(3):
        y[y > 0.2] = y[y > 0.2] * c
        y = y + 0.1
    return np.sum(y ** 2)


def rows(A: "f64[n, k]", z: "f64[n]", v: "f64[k]"):
    B = A * 1.0
    B[z > 0.0] = v * 2.0
    B[z < -0.5] *= v
    return np.sum(B * B)


def stretched(x: "f64[n]", c: float):
    y = x * 1.0
    y[x > 0.0] = np.array([c])
    return np.sum(y * y)


def rows_read(A: "f64[n, k]", z: "f64[n]"):
    B = A[z < 0.0]
    return np.sum(B * B) + np.sum(A[z > 0.0, :].mean(axis=0) ** 2)


def rows_set_with_slices(A: "f64[n, k]", z: "f64[n]"):
    B = A * 1.0
    B[z > 0.0, :] = 0.5 * B[z > 0.0, :] ** 2
    return np.sum(B * A)


def leading_two_axes(T: "f64[n, k, j]", M: "f64[n, k]"):
    return np.sum(np.sin(T[M > 0.0]) * T[M > 0.0][:, 0:1])


def columns_by_transpose(A: "f64[n, k]", z: "f64[k]"):
    B = A.T[z > 0.0].T
    return np.sum(B * B)
"""

CASES = {
    "scalar": (["x"], [arr("x", 7)]),
    "picked_values": (["x", "z"], [arr("x", 7), arr("z", 7)]),
    "augmented": (["A", "c"], [arr("A", 3, 4), num("c")]),
    "itself": (["x"], [arr("x", 7)]),
    "in_a_loop": (["x", "c"], [arr("x", 7), num("c", 0.5, 1.5)]),
    "rows": (["A", "v"], [arr("A", 5, 3), arr("z", 5), arr("v", 3)]),
    "stretched": (["x", "c"], [arr("x", 6), num("c")]),
    "rows_read": (["A"], [arr("A", 6, 3), arr("z", 6)]),
    "rows_set_with_slices": (["A"], [arr("A", 6, 3), arr("z", 6)]),
    "leading_two_axes": (["T"], [arr("T", 4, 3, 2), arr("M", 4, 3)]),
    "columns_by_transpose": (["A"], [arr("A", 3, 6), arr("z", 6)]),
}

NUMBA_REFUSES = {"leading_two_axes"}  # (a mask of two axes does not compile under Numba)


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("func", list(CASES))
def test_a_masked_assignment_matches_central_differences(func, target):
    wrt, params = CASES[func]
    if target == "numba" and func in NUMBA_REFUSES:
        with pytest.raises(DiagnosticError, match="does not compile under Numba"):
            pipeline.gradient_source(SOURCE, "prog.py", func, wrt, target)
        return
    check_source(SOURCE, wrt, params, target, func=func, seeds=3)


def test_c_output_assigns_where_a_mask_holds():
    text = pipeline.gradient_source(SOURCE, "prog.py", "scalar", ["x"], "c")
    assert "if (" in text and "d_x[" in text, text


@pytest.mark.parametrize(
    "line, message",
    [
        ("B[A > 0.0] = A[:, :, None]", "this value has 3 dimensions, more than the 1 of the entries a mask picks"),
        ("m = (A > 0.0)[:, :, None]\n    B[m] = 0.0", "this mask has 3 dimensions, more than the array's 2"),
        ("B[A > 0.0, :] = 0.0", "this mask and the slices after it index 3 dimensions, more than the array's 2"),
        ("B = B[1:, A[0] > 0.0]", "a mask is supported as the first index only"),  # (B[:, m]: columns, accepted)
    ],
)
def test_a_value_or_mask_numpy_refuses_is_a_located_error(line, message):
    source = f'import numpy as np\n\n\ndef f(A: "f64[n, k]"):\n    B = A * 1.0\n    {line}\n    return np.sum(B * B)\n'
    d = the_refusal(source, ["A"])
    assert d.loc.line == 6 + line.count("\n") and d.message.startswith(message), d
