"""What ``for`` loops iterate over beyond ``range`` (issue 18, tuples and lists): arrays (a
matrix's rows), ``enumerate``, ``zip``, ``reversed``, nested in one another, with jumps. Each
is lowered to a counted loop over an index (``py_iter``); each case is checked against central
differences for Python and Numba output, at -O0 and -O2. The golden cases for_over_array,
for_enumerate, for_zip and for_reversed show the output.
"""

from __future__ import annotations

import textwrap

import pytest
from source_gradients import HEADER, arr, check_source, count, num

from s2sad import pipeline

# name -> (source, wrt, parameters)
CASES = {
    "enumerate_with_start": ("""
        def f(x: "f64[n]"):
            s = 0.0
            for i, v in enumerate(x, 1):
                s += v / i
            return s
    """, ["x"], [arr("x", 4)]),
    "reversed_array": ("""
        def f(x: "f64[n]"):
            s = 0.0
            for v in reversed(x):
                s = s * 0.5 + math.sin(v)
            return s
    """, ["x"], [arr("x", 5)]),
    "reversed_range_with_step": ("""
        def f(x: "f64[n]", n: int):
            s = 0.0
            for i in reversed(range(1, n, 2)):
                s = s * 0.5 + x[i]
            return s
    """, ["x"], [arr("x", 6), count("n", 6)]),
    "reversed_descending_range": ("""
        def f(x: "f64[n]", n: int):
            s = 0.0
            for i in reversed(range(n - 1, -1, -1)):
                s = s * 0.5 + x[i] * i
            return s
    """, ["x"], [arr("x", 4), count("n", 4)]),
    "rows_of_a_matrix": ("""
        def f(A: "f64[m, n]"):
            s = 0.0
            for row in A:
                s += np.sum(row * row) * row[0]
            return s
    """, ["A"], [arr("A", 3, 2)]),
    "enumerate_of_zip_with_break": ("""
        def f(x: "f64[n]", y: "f64[n]"):
            s = 0.0
            for i, (a, b) in enumerate(zip(x, y)):
                if a > b + 0.8:
                    break
                s += i * a * b
            return s
    """, ["x", "y"], [arr("x", 5), arr("y", 5)]),
    "zip_of_range_and_array": ("""
        def f(x: "f64[n]", n: int):
            s = 0.0
            for k, v in zip(range(2, n), x):
                s += k * v * v
            return s
    """, ["x"], [arr("x", 3), count("n", 6)]),
    "loop_variable_after_the_loop": ("""
        def f(x: "f64[n]", c: float):
            v = c
            for v in x:
                if v > 0.5:
                    continue
            return v * v
    """, ["x", "c"], [arr("x", 3), num("c")]),
    "over_a_computed_array": ("""
        def f(x: "f64[n]"):
            s = 0.0
            for v in np.tanh(x) * 2.0:
                s += v ** 3
            return s
    """, ["x"], [arr("x", 4)]),
    "writes_while_iterating": ("""
        def f(x: "f64[n]", n: int):
            for i, v in enumerate(x):
                if i + 1 < n:
                    x[i + 1] = x[i + 1] + 0.5 * v
            return x[n - 1]
    """, ["x"], [arr("x", 4), count("n", 4)]),
}


def source_of(case: str) -> str:
    return HEADER + textwrap.dedent(CASES[case][0])


@pytest.mark.parametrize("level", [0, 2])
@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("case", list(CASES))
def test_gradient_matches_finite_differences(case, target, level):
    _, wrt, params = CASES[case]
    check_source(source_of(case), wrt, params, target, level)


def test_enumerate_counts_with_its_own_name():
    text = pipeline.gradient_source(HEADER + textwrap.dedent("""
        def f(x: "f64[n]"):
            s = 0.0
            for i, v in enumerate(x):
                s += i * v
            return s
    """), "prog.py", "f", ["x"], "py")
    assert "for i in range(x.shape[0]):" in text  # its iterations are independent: forward (opt/forward_order)
    assert "d_x[i] += " in text


def test_reversed_range_counts_down():
    text = pipeline.ir_text(HEADER + textwrap.dedent("""
        def f(x: "f64[n]", n: int):
            s = 0.0
            for i in reversed(range(n)):
                s = s * 0.5 + x[i]
            return s
    """), "prog.py", "f")
    assert "const() {value = -1} : i64" in text and "sub(%n" in text
