"""Functions that return several values (``return s, t``; issue 18, tuples and lists).

The contract: the gradient takes one tuple ``d_return`` with one seed per returned value
(floats default to 1.0 only when every returned value is a float), and J holds the sum of
each seed times its value. A callee that returns several values is unpacked by its caller
(``s, c = helper(x)``), and its gradient is called with the tuple of their adjoints. Each
case is checked against central differences (``fd.check_gradient`` seeds a returned tuple
with one random seed per value) for Python and Numba output, at every optimization level
(at -O2 a small callee is inlined; below, its own gradient takes the tuple). C output refuses
a function differentiated that returns several values with a located error; a callee that
returns several writes them through pointers its caller passes (``moments(x, n, c, &s, &q)``),
and its gradient takes one seed parameter per value (golden/tuple_unpack_helper and
tuple_helper_in_loop are checked numerically in tests/test_emit_c.py).
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from cbuild import compile_c
from source_gradients import CALLS_KEPT, HEADER, arr, check_source, count, load, num

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError

# name -> (source, wrt, parameters)
CASES = {
    "same_value_twice": ("""
        def f(x):
            y = x * x
            return y, y
    """, ["x"], [num("x")]),
    "returned_in_a_loop": ("""
        def f(x: "f64[n]", n: int):
            s = 0.0
            for i in range(n):
                s += x[i]
                if s > 1.0:
                    return s, x[i]
            return s, 0.0
    """, ["x"], [arr("x", 6), count("n", 6)]),
    "integer_among_them": ("""
        def f(x: "f64[n]", n: int):
            k = 0
            best = x[0]
            for i in range(n):
                if x[i] > best:
                    best = x[i]
                    k = i
            return k, best * best
    """, ["x"], [arr("x", 5), count("n", 5)]),
    "callee_passes_them_on": ("""
        def polar(x, y):
            return math.hypot(x, y), math.atan2(y, x)


        def g(x, y):
            return polar(x * 2.0, y)


        def f(x, y):
            r, t = g(x, y)
            u, v = polar(r, t)
            return u * v + r
    """, ["x", "y"], [num("x", 0.5, 1.0), num("y", 0.5, 1.0)]),
    "callee_with_loop_in_a_loop": ("""
        def moments(x: "f64[n]", n: int, c: float):
            s = 0.0
            q = 0.0
            for i in range(n):
                s += x[i] - c
                q += (x[i] - c) ** 2
            return s, q


        def f(x: "f64[n]", n: int, c: float):
            total = 0.0
            for k in range(3):
                s, q = moments(x, n, c * k)
                total += q / n - (s / n) ** 2
            return total
    """, ["x", "c"], [arr("x", 4), count("n", 4), num("c")]),
}


def source_of(case: str) -> str:
    return HEADER + textwrap.dedent(CASES[case][0])


@pytest.mark.parametrize("level", [0, 2])
@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("case", list(CASES))
def test_gradient_matches_finite_differences(case, target, level):
    _, wrt, params = CASES[case]
    check_source(source_of(case), wrt, params, target, level)


def test_the_seeds_come_as_one_tuple():
    text = pipeline.gradient_source(source_of("same_value_twice"), "prog.py", "f", ["x"], "py")
    assert "def grad_f(x, d_return=(1.0, 1.0)):" in text
    assert "d_return_0, d_return_1 = d_return" in text
    # an integer among the values: no default (the contract), its seed never read
    text = pipeline.gradient_source(source_of("integer_among_them"), "prog.py", "f", ["x"], "py")
    assert "def grad_f(x, d_x, n, d_return):" in text


def test_a_callee_gradient_takes_the_tuple_of_adjoints():
    # (-O2 would inline moments into the loop: opt/inline_loops)
    text = pipeline.gradient_source(source_of("callee_with_loop_in_a_loop"), "prog.py", "f", ["x", "c"], "py",
                                    CALLS_KEPT)
    assert "def grad_moments(x, d_x, n, c, d_return=(1.0, 1.0)):" in text
    assert "grad_moments(x, d_x, n, c * float(k), (d_s, d_q))" in text


def test_compiled_numba_gradient_takes_the_tuple():
    pytest.importorskip("numba")
    text = pipeline.gradient_source(source_of("callee_with_loop_in_a_loop"), "prog.py", "f", ["x", "c"], "numba")
    grad = load(text, "<numba>")["grad_f"]
    primal = load(source_of("callee_with_loop_in_a_loop"), "<f>")["f"]
    x = np.array([0.1, 0.5, -0.3, 0.7])
    d_x = np.zeros(4)
    d_c = grad(x, d_x, 4, 0.2, 1.0)
    h = 1e-6
    assert d_c == pytest.approx((primal(x, 4, 0.2 + h) - primal(x, 4, 0.2 - h)) / (2 * h), rel=1e-6)


def diagnose(source: str, wrt: list[str], target: str = "py", level: int = 2) -> str:
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(HEADER + textwrap.dedent(source), "prog.py", "f", wrt, target,
                                 pipeline.Options(level=level))
    return info.value.render()


def test_c_output_of_several_values_is_a_located_error():
    text = diagnose(CASES["same_value_twice"][0], ["x"], "c")
    assert text.startswith("prog.py:7:1: error: --target c: 'f' returns several values, which a C function cannot")
    assert "hint: use --target py or numba" in text


@pytest.mark.parametrize("level", [0, 2])
def test_c_output_of_a_callee_of_several_values_passes_pointers_to_them(level):
    """A callee kept as a function (it has a loop) writes its results through pointers; its
    gradient takes one seed per result, and the file compiles without a warning."""
    options = CALLS_KEPT if level == 2 else pipeline.Options(level=level)  # (-O2 would inline moments)
    text = pipeline.gradient_source(source_of("callee_with_loop_in_a_loop"), "prog.py", "f", ["x", "c"], "c",
                                    options)
    assert "static void moments(double *x, long n, double c, double *result_0, double *result_1) {" in text
    assert "    *result_0 = s;\n    *result_1 = q;\n}" in text
    assert "moments(x, n, c * k, &s, &" in text
    assert "grad_moments(x, d_x, n, c * k, &d_c_local" in text and ", d_s, d_q);" in text
    compile_c(text)


def test_c_output_where_the_callee_was_inlined():
    """At -O2 a small callee that returns several values is inlined: nothing of it is left for C
    to refuse, and the C gradient is an ordinary one."""
    source = """
        def sincos(t: float):
            return math.sin(t), math.cos(t)


        def f(x: float):
            s, c = sincos(x)
            return s * c
    """
    text = pipeline.gradient_source(HEADER + textwrap.dedent(source), "prog.py", "f", ["x"], "c")
    assert "void grad_f(double x, double *d_x, double d_return)" in text
    assert "sincos" not in text
    kept = pipeline.gradient_source(HEADER + textwrap.dedent(source), "prog.py", "f", ["x"], "c",
                                    pipeline.Options(level=0))
    assert "    sincos(x, &s, &c);\n" in kept and "grad_sincos(x, &d_x_local, d_s, d_c);" in kept
