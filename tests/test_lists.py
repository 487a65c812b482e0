"""Lists, comprehensions and ``sum(...)`` (issue 18, tuples and lists).

A list is lowered to an array with room for every append and a length (``py_lists``);
comprehensions and ``sum(...)`` to loops inside the expression (``py_comprehension``). Each case
is checked against central differences for Python and Numba output at -O0 and -O2; the golden
cases list_append_loop, list_literal, list_comprehension, sum_generator and
sum_list_comprehension show the output. What stays refused is in tests/test_frontend.py.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from source_gradients import HEADER, arr, check_source, count, load, num

from s2sad import pipeline

# name -> (source, wrt, parameters)
CASES = {
    "append_under_a_condition": ("""
        def f(x: "f64[n]"):
            pos = []
            for v in x:
                if v > 0.0:
                    pos.append(v * v)
            s = 0.0
            for k in range(len(pos)):
                s += pos[k] * (k + 1)
            return s + np.mean(pos) if len(pos) > 0 else s
    """, ["x"], [arr("x", 6)]),
    "literal_then_appends_in_nested_loops": ("""
        def f(x: "f64[n]", c: float, m: int):
            h = [c, 2.0 * c]
            for t in range(m):
                for v in x:
                    h.append(math.tanh(v * c + t))
            h.append(c * c)
            return sum(h) + h[-2] * h[3] + h[len(h) - 1]
    """, ["x", "c"], [arr("x", 3), num("c"), count("m", 2)]),
    "index_that_may_be_negative": ("""
        def f(x: float, n: int):
            h = []
            for t in range(n):
                x = 0.9 * x + math.sin(x)
                h.append(x)
            s = 0.0
            for t in range(n):
                s += h[t - 1] * h[t]
            return s
    """, ["x"], [num("x"), count("n", 4)]),
    "items_written_in_place": ("""
        def f(a: float, b: float):
            v = [a, b, a * b]
            for i in range(3):
                v[i] = v[i] * v[(i + 1) % 3]
            v[0] += b
            return v[0] + v[1] * v[2]
    """, ["a", "b"], [num("a"), num("b")]),
    "loop_over_a_list": ("""
        def f(x: "f64[n]"):
            h = [np.sum(x), np.max(x)]
            for v in x:
                h.append(v * v)
            s = 0.0
            for i, v in enumerate(h):
                s += v / (i + 1)
            for a, b in zip(h, x):
                s += a * b
            return s
    """, ["x"], [arr("x", 4)]),
    "list_made_again_each_step": ("""
        def f(x: "f64[n]", n: int, steps: int):
            total = 0.0
            for t in range(steps):
                row = [x[i] * (t + 1) for i in range(n) if x[i] > -0.5]
                total += sum(row) * len(row)
            return total
    """, ["x"], [arr("x", 5), count("n", 5), count("steps", 3)]),
    "comprehension_of_two_clauses": ("""
        def f(A: "f64[m, n]", m: int, n: int):
            p = [A[i, j] * A[j, i] for i in range(m) for j in range(n)]
            return np.sum(np.array(p) ** 2) + p[n + 1]
    """, ["A"], [arr("A", 3, 3), count("m", 3), count("n", 3)]),
    "sums_of_every_kind": ("""
        def f(x: "f64[n]", y: "f64[n]", c: float):
            s = sum(x) + sum(range(3)) * c + sum([c, 2.0 * c], 1.0)
            s += sum(a * b for a, b in zip(x, y) if a > b)
            s += sum(x[i] * y[j] for i in range(len(x)) for j in range(i))
            s += sum(1 for v in x if v > 0.0) * c
            return s
    """, ["x", "y", "c"], [arr("x", 4), arr("y", 4), num("c")]),
    "comprehension_names_shadow_locals": ("""
        def f(x: "f64[n]", c: float):
            v = c * 2.0
            s = sum(v * v for v in x)
            return s + v
    """, ["x", "c"], [arr("x", 3), num("c")]),
    "np_array_of_an_array_is_a_new_array": ("""
        def f(x: "f64[n]", n: int):
            a = np.array(x)
            a[0] = 2.0 * a[0]
            s = np.sum(np.asarray(a) * x)
            for i in range(n):
                s += a[i] * x[i]
            return s
    """, ["x"], [arr("x", 3), count("n", 3)]),
    "list_of_arrays_with_swaps": ("""
        def f(u0: "f64[n]", n: int, steps: int, dt: float):
            u = np.zeros(n)
            un = np.zeros(n)
            for i in range(n):
                u[i] = u0[i]
            traj = []
            for t in range(steps):
                for i in range(n):
                    un[i] = u[i] + dt * np.sin(u[(i + 1) % n])
                u, un = un, u
                traj.append(np.array(u))
            s = 0.0
            for k in range(len(traj)):
                s += np.sum(traj[k] * traj[k]) * (k + 1)
            for v in traj:
                s += v[0]
            return s + np.sum(np.array(traj)) + traj[-1][1]
    """, ["u0", "dt"], [arr("u0", 3), count("n", 3), count("steps", 3), num("dt", 0.05, 0.2)]),
    "numpy_functions_of_lists": ("""
        def f(x: "f64[n]", c: float):
            h = [c, c * c]
            for v in x:
                h.append(math.exp(v))
            return np.sum(np.tanh(np.asarray(h))) + np.mean([c, x[0]]) * np.max(h)
    """, ["x", "c"], [arr("x", 3), num("c")]),
}


def source_of(case: str) -> str:
    return HEADER + textwrap.dedent(CASES[case][0])


@pytest.mark.parametrize("level", [0, 2])
@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("case", list(CASES))
def test_gradient_matches_finite_differences(case, target, level):
    _, wrt, params = CASES[case]
    check_source(source_of(case), wrt, params, target, level)


def test_compiled_numba_gradient_of_a_list():
    pytest.importorskip("numba")
    source = source_of("index_that_may_be_negative")
    grad = load(pipeline.gradient_source(source, "prog.py", "f", ["x"], "numba"), "<numba>")["grad_f"]
    primal = load(source, "<f>")["f"]
    h = 1e-6
    assert grad(0.3, 4, 1.0) == pytest.approx((primal(0.3 + h, 4) - primal(0.3 - h, 4)) / (2 * h), rel=1e-6)


def test_the_buffer_has_room_for_every_append():
    """Capacity: the literal's items plus, per append, the product of its loops' trip counts."""
    ir = pipeline.ir_text(source_of("literal_then_appends_in_nested_loops"), "prog.py", "f")
    alloc = next(line for line in ir.splitlines() if "alloc(" in line)
    assert '{elem = "f64", fill = "empty"}' in alloc
    f = load(pipeline.gradient_source(source_of("literal_then_appends_in_nested_loops"), "prog.py", "f",
                                      ["x", "c"], "py"), "<g>")["grad_f"]
    x = np.array([0.1, -0.2, 0.3, 0.5])
    d_x = np.zeros(4)
    f(x, d_x, 0.5, 3, 1.0)  # 2 + 3 * 4 + 1 items: an overflow would raise here
    assert np.all(np.isfinite(d_x))
