"""``u, un = un, u`` of arrays in a loop or a branch (issue 18, tuples and lists).

In the IR a name never names an array chosen by control flow, so the swap exchanges the two
arrays' contents, which is the same wherever nothing else can tell (both allocated by the
function, no other name for either, the same shape evident from their allocations); anywhere
else it is a located error. Each case is checked against central differences for Python and
Numba output at -O0 and -O2 (golden/array_swap_in_loop shows the output).
"""

from __future__ import annotations

import textwrap

import pytest
from source_gradients import HEADER, arr, check_source, count, num

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError

CASES = {
    "matrices_alike": ("""
        def f(A: "f64[m, n]", steps: int):
            a = np.zeros_like(A)
            b = np.zeros_like(A)
            for i in range(A.shape[0]):
                for j in range(A.shape[1]):
                    a[i, j] = A[i, j]
            for t in range(steps):
                for i in range(A.shape[0]):
                    for j in range(A.shape[1]):
                        b[i, j] = math.sin(a[i, j]) + 0.5 * a[(i + 1) % A.shape[0], j]
                a, b = b, a
            return np.sum(a * b)
    """, ["A"], [arr("A", 3, 2), count("steps", 3)]),
    "swapped_in_a_branch": ("""
        def f(x: "f64[n]", n: int, c: float):
            u = np.zeros(n)
            v = np.zeros(n)
            for i in range(n):
                u[i] = x[i] * c
                v[i] = x[i] + c
            if c > 0.0:
                u, v = v, u
            return np.sum(u * u) + v[0]
    """, ["x", "c"], [arr("x", 4), count("n", 4), num("c")]),
    "swapped_at_the_top": ("""
        def f(x: "f64[n]", y: "f64[n]"):
            x, y = y, x
            return np.sum(x * 2.0) + y[0] * x[1]
    """, ["x", "y"], [arr("x", 3), arr("y", 3)]),
}


def source_of(case: str) -> str:
    return HEADER + textwrap.dedent(CASES[case][0])


@pytest.mark.parametrize("level", [0, 2])
@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("case", list(CASES))
def test_gradient_matches_finite_differences(case, target, level):
    _, wrt, params = CASES[case]
    check_source(source_of(case), wrt, params, target, level)


@pytest.mark.parametrize("source, where, message", [
    ("""
    def f(x: "f64[n]", y: "f64[n]", steps: int):
        for t in range(steps):
            x[0] = x[0] * 0.5 + y[0]
            x, y = y, x
        return x[0]
    """, "prog.py:10:9", "swapping arrays in a loop or a branch is supported for arrays this function allocates, "
     "and 'x' is not one"),
    ("""
    def f(x: "f64[n]", n: int, m: int, steps: int):
        u = np.zeros(n)
        v = np.zeros(m)
        for t in range(steps):
            u[0] = x[0] + v[0]
            u, v = v, u
        return u[0]
    """, "prog.py:12:9", "'u' and 'v' must have the same shape, evident from how they are allocated"),
    ("""
    def f(x: "f64[n]", n: int, steps: int):
        u = np.zeros(n)
        v = np.zeros(n)
        w = u
        for t in range(steps):
            u[0] = x[0] + v[0]
            u, v = v, u
        return w[0]
    """, "prog.py:13:9", "'w' refers to the same array as 'u'"),
])
def test_what_stays_refused_is_a_located_error(source, where, message):
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(HEADER + textwrap.dedent(source), "prog.py", "f", ["x"], "py")
    text = info.value.render()
    assert f"{where}: error: {message}" in text, text
    assert "hint:" in text
