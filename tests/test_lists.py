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
from source_gradients import HEADER, arr, check_source, count, load, num, the_refusal

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
    # A list rebound to its array (py_rebound_lists): two variables, resid and resid_array; an AR
    # model as written, unannotated (np.dot(phi, part of y): a dot product).
    "list_rebound_to_its_array": ("""
        def f(phi, sigma, y):
            p = len(phi)
            resid = []
            for t in range(p, len(y)):
                pred = np.dot(phi, y[t - p:t][::-1])
                resid.append(y[t] - pred)
            resid = np.array(resid)
            n = len(resid)
            return 0.5 * n * np.log(2 * np.pi * sigma ** 2) + np.sum(resid ** 2) / (2 * sigma ** 2)
    """, ["phi", "sigma", "y"], [arr("phi", 2), num("sigma", 0.5, 1.5), arr("y", 8)]),
    # A trajectory started with its first states, then appended to (py_list_starts: started empty,
    # those appended first), rebound to its array at the end.
    "started_with_items_then_appends": ("""
        def f(x0: "f64[n]", dt: float, steps: int):
            x = np.array(x0)
            traj = [np.array(x), x * 2.0]
            for _ in range(steps):
                x[:] = x * (1.0 + dt * np.sin(x))
                traj.append(np.array(x))
            traj = np.array(traj)
            return np.sum(traj ** 2) + traj[1, 0]
    """, ["x0", "dt"], [arr("x0", 3), num("dt", 0.05, 0.2), count("steps", 3)]),
    # A trajectory of the state's .copy() (probe round 7: refused, its items' shape not evident)
    "appends_of_method_copies": ("""
        def f(u0, a):
            u = u0.copy()
            traj = []
            for t in range(4):
                u = u * a
                traj.append(u.copy())
            return np.sum(np.array(traj) ** 2)
    """, ["u0", "a"], [arr("u0", 3), num("a", 0.5, 1.5)]),
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


SEQUENCE_PARAMS = """
import math


def pairwise_sum(xs, ys):
    return sum(x * y for x, y in zip(xs, ys))


def list_poly(coeffs, x):
    total = 0.0
    for i, c in enumerate(coeffs):
        total += c * x ** i
    return total


def nested_lists(mat, v):
    out = 0.0
    for row in mat:
        s = 0.0
        for a, b in zip(row, v):
            s += a * b
        out += math.tanh(s)
    return out
"""


def _sequence_gradient(func: str, wrt: list[str]):
    text = pipeline.gradient_source(SEQUENCE_PARAMS, "prog.py", func, wrt, "py")
    namespace: dict = {}
    exec(compile(text, "<grad>", "exec"), namespace)
    primal_ns: dict = {}
    exec(compile(SEQUENCE_PARAMS, "<primal>", "exec"), primal_ns)
    return namespace[f"grad_{func}"], primal_ns[func]


def test_parameters_passed_as_python_lists_as_the_primal_takes_them():
    """Plain Python called with lists (``pairwise_sum([0.1, 0.4], [1.0, 2.0])``): the gradient
    takes the same lists (made arrays on entry; their shadows are arrays), where it failed on
    ``xs.shape``. ``for row in mat`` with ``row`` looped over in turn makes ``mat`` a matrix: a list
    of lists works too."""
    grad, f = _sequence_gradient("pairwise_sum", ["xs", "ys"])
    xs, ys = [0.1, 0.4, -0.3], (1.0, 2.0, 0.5)
    d_xs, d_ys = np.zeros(3), np.zeros(3)
    grad(xs, d_xs, ys, d_ys, 1.0)
    np.testing.assert_allclose(d_xs, ys)
    np.testing.assert_allclose(d_ys, xs)
    assert xs == [0.1, 0.4, -0.3]  # the caller's list is not changed

    grad, f = _sequence_gradient("list_poly", ["coeffs", "x"])
    d_coeffs = np.zeros(3)
    d_x = grad([0.5, -1.0, 0.25], d_coeffs, 0.7, 1.0)
    np.testing.assert_allclose(d_coeffs, [1.0, 0.7, 0.49])
    assert d_x == pytest.approx((f([0.5, -1.0, 0.25], 0.7 + 1e-6) - f([0.5, -1.0, 0.25], 0.7 - 1e-6)) / 2e-6)

    grad, f = _sequence_gradient("nested_lists", ["mat", "v"])
    mat, v = [[0.1, 0.2], [0.3, -0.4]], [0.5, 1.0]
    d_mat, d_v = np.zeros((2, 2)), np.zeros(2)
    grad(mat, d_mat, v, d_v, 1.0)
    h, expected = 1e-6, np.zeros((2, 2))
    for i in range(2):
        for j in range(2):
            plus, minus = np.array(mat), np.array(mat)
            plus[i, j] += h
            minus[i, j] -= h
            expected[i, j] = (f(plus.tolist(), v) - f(minus.tolist(), v)) / (2 * h)
    np.testing.assert_allclose(d_mat, expected, rtol=1e-6, atol=1e-9)


def test_appends_of_an_array_rebound_after_the_list_is_made_are_checked():
    """``u`` gives the items' shape where ``h`` is made, and is rebound after (a located error
    before): each append checks its item has that shape, raising where it has another."""
    source = HEADER + textwrap.dedent("""
        def f(x: "f64[n]", n: int, m: int):
            u = x * 1.0
            v = np.zeros(m)
            h = []
            for t in range(3):
                h.append(np.array(u))
                u, v = v + x[0], u
            return h[0][0] + h[2][0]
    """)
    text = pipeline.gradient_source(source, "prog.py", "f", ["x"], "py")
    grad = load(text, "<grad f>")["grad_f"]
    d_x = np.zeros(3)
    grad(np.array([0.5, 1.0, 2.0]), d_x, 3, 3)  # v as long as u: Python's list and the gradient's agree
    assert np.allclose(d_x, [3.0, 0.0, 0.0]), d_x  # h[0][0] + h[2][0] = x[0] + (x[0] + x[0])
    with pytest.raises(ValueError, match=r"x.shape\[0\] must equal m|items of the list 'h'"):
        grad(np.array([0.5, 1.0, 2.0]), np.zeros(3), 3, 2)


TUPLE_ITERATED = """
import numpy as np


def f(a, b, x: "f64[n]"):
    s = sum(p ** 2 for p in (a, b))
    for w in (a, b, 2.0):
        s += w * np.sum(x ** 2)
    return s + sum(p * q for p, q in zip((a, b), (b, a)))
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_a_tuple_written_where_a_loop_runs_over_it_is_iterated_as_a_list(target):
    """``sum(p ** 2 for p in (a, b))``, ``for w in (a, b, 2.0)``: the tuple's items, in order, as
    the list ``[a, b]`` would give them (probe p72 was refused: "the type of what sum(...) adds is
    not known")."""
    check_source(TUPLE_ITERATED, ["a", "b", "x"], [num("a"), num("b"), arr("x", 4)], target=target)


ARRAY_LITERALS = HEADER + """

def stacked(w, x: "f64[n]"):
    rows = [w * x, w**2 * x, np.sin(w) * x]
    M = np.stack(rows)
    P = np.stack(rows, axis=1)
    return np.sum(M.mean(axis=0) ** 2) + np.sum(P[:, 0] * P[:, 2])


def grown(w, x: "f64[n]"):
    hs = [np.tanh(w * x)]
    for k in range(3):
        hs.append(np.tanh(w * hs[-1] + x))
    return np.sum(np.concatenate(hs) ** 2) + sum(np.sum(h) for h in hs)


def of_rows(A: "f64[m, n]", w):
    B = np.stack(A * w)
    return np.sum(B * np.vstack(A)) + np.sum(np.column_stack(A) ** 2) + np.sum(np.hstack(A) ** 3)


def copies(x: "f64[n]", y: "f64[n]"):
    pair = [np.array(x), y * 2.0]
    x[0] = 5.0
    return np.sum(np.stack(pair) ** 2)
"""


@pytest.mark.parametrize("func, wrt, params", [
    ("stacked", ["w", "x"], [num("w"), arr("x", 4)]),
    ("grown", ["w", "x"], [num("w"), arr("x", 3)]),
    ("of_rows", ["A", "w"], [arr("A", 3, 4), num("w")]),
    ("copies", ["x", "y"], [arr("x", 3), arr("y", 3)]),
])
@pytest.mark.parametrize("target", ["py", "numba"])
def test_a_list_made_of_arrays_and_stacking_a_list_or_an_array(func, wrt, params, target):
    """A list that starts with arrays (it was refused: "a list of arrays is supported built by
    appends from an empty list"), appended to after, and np.stack/vstack/hstack/column_stack/
    concatenate of a list's name or of an array (its rows, as NumPy iterates it: refused as
    "takes a list or tuple of arrays written in the call")."""
    check_source(ARRAY_LITERALS, wrt, params, target=target, func=func)


def test_a_list_holding_an_array_the_function_may_change_is_refused():
    """Python's list holds the array itself, whose later changes it shows; the gradient's copy
    would not: the item must be a copy (np.array(x)), as for an append."""
    source = HEADER + "\n\ndef f(x: \"f64[n]\"):\n    pair = [x, x * 2.0]\n    x[0] = 5.0\n" \
        "    return np.sum(np.stack(pair) ** 2)\n"
    d = the_refusal(source, ["x"])
    assert "the array 'x' in this list is that very array" in d.message and d.hint == "put a copy in it: np.array(x)"


def test_the_arrays_of_a_list_must_have_one_shape():
    source = HEADER + "\n\ndef f(x: \"f64[n]\", y: \"f64[m]\"):\n    pair = [x * 1.0, y * 2.0]\n" \
        "    return np.sum(np.stack(pair) ** 2)\n"
    grad = load(pipeline.gradient_source(source, "prog.py", "f", ["x", "y"], "py"), "<grad f>")["grad_f"]
    d_x, d_y = np.zeros(3), np.zeros(3)
    grad(np.ones(3), d_x, np.ones(3), d_y)
    assert np.allclose(d_x, 2.0) and np.allclose(d_y, 8.0)
    with pytest.raises(ValueError, match="the arrays of a list must have one shape"):
        grad(np.ones(3), np.zeros(3), np.ones(2), np.zeros(2))
