"""A list comprehension stacked by NumPy (Python input): ``np.vstack([x ** k for k in
range(degree + 1)])``, ``np.stack([...], axis=1)``, ``np.column_stack``, ``np.hstack``, and
``np.array`` of one.

The items are made into one buffer along a new first axis (``py_comprehension.fill``), whose
other extents are those every item evidently has, made before the first item is
(``py_extents.made_before``); each item is copied in over its own extents. The stacking is then
that buffer, reshaped or transposed as NumPy stacks (``py_linalg._stacked_items``). An item the
function takes for an array where nothing else shows it (``x`` in ``x ** k``) is, as in
``np.vstack([x, y])``, a rank assumed and checked on entry. Checked against central differences
for Python and Numba output at -O0 and -O2 (golden/stacked_comprehension shows the output, C's
too); what is not supported is a located error.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from source_gradients import HEADER, arr, check_source, count

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError

CASES = {
    # Probe p73: x unannotated, degree and lam defaulted.
    "vander_vstack": ("""
        def f(w, x, y, degree=3, lam=0.1):
            Phi = np.vstack([x ** k for k in range(degree + 1)]).T
            pred = Phi @ w
            return np.mean((pred - y) ** 2) + lam * np.sum(w[1:] ** 2)
    """, ["w", "x"], [arr("w", 4), arr("x", 9), arr("y", 9)]),
    "stack_along_each_axis": ("""
        def f(w: "f64[q]", x: "f64[n]", degree: int):
            A = np.stack([np.sin(k * x) for k in range(degree)], axis=1)
            B = np.stack([x * 0.5 ** k for k in range(degree)])
            C = np.column_stack([np.cos(x) ** k for k in range(1, degree + 1)])
            return np.sum(np.tanh(A @ w)) + np.sum(B.T @ w) + np.sum((C @ w) ** 2)
    """, ["w", "x"], [arr("w", 3), arr("x", 5), count("degree", 3)]),
    # hstack, a filtered comprehension (its count carried), matrices under one another, numbers.
    "hstack_filtered_matrices_and_numbers": ("""
        def f(x: "f64[n]", A: "f64[m, n]", k: int):
            v = np.hstack([np.exp(x * j) for j in range(k) if j != 1])
            B = np.vstack([A * j for j in range(k)])
            c = np.vstack([x[j] ** 2 for j in range(k)])
            P = np.array([x * j for j in range(k)])
            return np.sum(v * v) + np.sum(B ** 2) + np.sum(c * c.T) + np.sum(np.sin(P))
    """, ["x", "A"], [arr("x", 4), arr("A", 2, 4), count("k", 3)]),
}


@pytest.mark.parametrize("level", [0, 2])
@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("case", list(CASES))
def test_gradient_matches_finite_differences(case, target, level):
    source, wrt, params = CASES[case]
    check_source(HEADER + textwrap.dedent(source), wrt, params, target, level)


def test_an_item_taken_for_an_array_is_checked_on_entry():
    text = pipeline.gradient_source(HEADER + textwrap.dedent(CASES["vander_vstack"][0]), "prog.py", "f", ["w"], "py")
    namespace: dict = {}
    exec(compile(text, "<grad f>", "exec"), namespace)
    with pytest.raises(ValueError, match="x must be a 1-D array"):
        namespace["grad_f"](np.ones(4), np.zeros(4), 0.5, np.ones(9))


@pytest.mark.parametrize("source, where, message", [
    ("""
    def f(x: "f64[n]", k: int):
        return np.sum(np.vstack([x[:j + 1] for j in range(k)]))
    """, "prog.py:8:30", "the items of this list comprehension are arrays whose shape is not evident before the "
        "first is made"),
    ("""
    def f(x: "f64[n]", A: "f64[m, n]"):
        return np.sum(np.vstack([A[i] * x for i in range(A.shape[0])]))
    """, "prog.py:8:30", "the items of this list comprehension are arrays whose shape is not evident"),
    ("""
    def f(x: "f64[n]", A: "f64[m, n]", k: int):
        return np.sum(np.hstack([A * j for j in range(k)]))
    """, "prog.py:8:29", "np.hstack of a list comprehension of 2-D arrays is supported along a new first axis "
        "only"),
])
def test_what_stays_refused_is_a_located_error(source, where, message):
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(HEADER + textwrap.dedent(source), "prog.py", "f", ["x"], "py")
    rendered = info.value.render()
    assert f"{where}: error: {message}" in rendered, rendered
    assert "hint:" in rendered

