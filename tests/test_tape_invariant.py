"""A value the reverse sweep needs is taped once per iteration of the loops it changes in, not of
every loop around it (issue 19, item 2: "tape each value once, where it changes").

``A[r][s]`` read inside ``for p`` (``for s`` within it) is the same in every ``p`` iteration
when nothing in ``p``'s loop writes ``A``: its tape has a slot per ``(r, s)``, each ``p``
iteration storing the same value there (``adjoint.tape._invariant_in``; doitgen of the kernel
suite went from 33x its primal to 4x), or, where no loop that reads it writes it before the
read, the whole array is copied once where the loop nest starts (``A_at_loop``, an entry copy:
one slot per element). Where the loop writes the array, every loop keeps its place in the
index. (Tapes of a known size in every loop: C output here.)
"""

from __future__ import annotations

import numpy as np
import pytest
from cbuild import CFunction, build, have_gcc
from fd import central_difference

from s2sad import pipeline

pytestmark = pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")

SOURCE = """
void contract(int nr, int m, double A[nr][m], const double C[m][m], double *out)
{{
    double total = 0.0;
    for (int r = 0; r < nr; r++) {{
        for (int p = 0; p < m; p++) {{
            double acc = 0.0;
            for (int s = 0; s < m; s++)
                acc += A[r][s] * C[s][p];
            total += acc * acc;{inside}
        }}
        for (int p = 0; p < m; p++)
            A[r][p] = A[r][p] * 0.5;
    }}
    *out = total;
}}
"""
INSIDE = "\n            A[r][0] = A[r][0] + 0.25 * C[p][0];"


def _contract(A: np.ndarray, C: np.ndarray, inside: bool) -> float:
    A = A.copy()
    total = 0.0
    for r in range(A.shape[0]):
        for p in range(A.shape[1]):
            acc = float(A[r] @ C[:, p])
            total += acc * acc
            if inside:
                A[r, 0] += 0.25 * C[p, 0]
        A[r] *= 0.5
    return total


@pytest.mark.parametrize("level", [0, 2])
@pytest.mark.parametrize("inside", [False, True], ids=["written_after", "written_inside"])
def test_a_value_invariant_in_a_loop_is_taped_once_for_it(level, inside):
    source = SOURCE.format(inside=INSIDE if inside else "")
    text = pipeline.gradient_source(source, "t.c", "contract", ["A", "C"], "c", pipeline.Options(level=level))
    lines = [line.strip() for line in text.splitlines()]
    if inside:
        # A changes inside the p loop: a slot per (r, p, s)
        store = next(line for line in lines if line.startswith("tape_A_elem["))
        index = store[len("tape_A_elem["):store.index("] =")]
        assert "p" in index.replace("np", ""), store
    else:
        # A changes only after the p loop: one copy of A where the nest starts, read at [r, s]
        assert not any(line.startswith("tape_A_elem[") for line in lines), text
        assert "memcpy(A_at_loop, A, nr * m * sizeof(double));" in lines, text
        assert any("A_at_loop[r * m + s]" in line for line in lines), text
    grad = CFunction(build(text), "grad_contract", ["int", "int", "double *", "double *", "double *", "double *",
                                                     "double *", "double *"])
    rng = np.random.default_rng(3)
    nr, m = 3, 4
    A, C = rng.normal(size=(nr, m)), rng.normal(size=(m, m))
    dA, dC = np.zeros_like(A), np.zeros_like(C)
    grad(nr, m, A.copy(), dA, C, dC, np.zeros(1), np.ones(1))
    np.testing.assert_allclose(dA, central_difference(_contract, [A, C, inside], 0), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(dC, central_difference(_contract, [A, C, inside], 1), rtol=1e-6, atol=1e-7)
