"""Slice and row assignment, copies, and arrays rebound in loops (Python input).

``a[lo:hi] = v``, ``A[i] = row``, ``A[:, j] += col`` and a number broadcast into a block are loops
of element stores (``py_arrays.assign_slice``), bounds read as Python reads them; a slice with a
step (``x[::2]``, ``x[::-1]``) is a gather of the indices it picks, ``...`` the axes left; ``x.copy()`` and
a whole-array value the code writes into are new arrays; a name rebound in a loop names one array
that each rebinding fills (``py_lower.refill``), where nothing can tell that from rebinding it.
Each case is checked against central differences for Python and Numba output at -O0 and -O2
(golden/array_slice_assignment, array_rebound_in_loop, array_copy_then_write, array_step_slices
show the output);
what stays refused is a located error.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap

import pytest
from source_gradients import HEADER, arr, check_source, count, num

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError

CASES = {
    # Bounds past the end, negative ones from integers, an empty part: as Python slices.
    "bounds_as_python_reads_them": ("""
        def f(x: "f64[n]", k: int, j: int):
            y = np.zeros_like(x)
            y[k:] = x[k:] * 2.0
            y[:-k] += np.sin(x[k:])
            y[j:100] -= 0.5 * x[0]
            y[-j:] *= 3.0
            y[4:2] = 7.0
            return np.sum(y * y * x)
    """, ["x"], [arr("x", 6), count("k", 2), count("j", -3)]),
    "matrix_rows_columns_and_blocks": ("""
        def f(A: "f64[m, n]", r: "f64[n]"):
            B = A.copy()
            B[1] = r * r
            B[:, 0] = B[:, 1] * A[:, 2]
            B[1:, 1:] += A[:-1, :-1]
            B[0, :] = np.sum(r)
            return np.sum(np.tanh(B) * A)
    """, ["A", "r"], [arr("A", 4, 3), arr("r", 3)]),
    "a_row_stretched_into_a_block": ("""
        def f(A: "f64[m, n]", r: "f64[n]"):
            B = np.zeros_like(A)
            B[1:3, :] = r
            B[:, 1:2] += A[:, 0:1]
            return np.sum(B * A)
    """, ["A", "r"], [arr("A", 4, 3), arr("r", 3)]),
    "stepping_in_a_loop": ("""
        def f(u0: "f64[n]", c: float, steps: int):
            u = u0.copy()
            for t in range(steps):
                u[1:] = u[1:] - c * (u[1:] - u[:-1])
                u = u + c * np.sin(u)
            return np.sum(u * u)
    """, ["u0", "c"], [arr("u0", 5), num("c", 0.1, 0.4), count("steps", 3)]),
    "leapfrog_by_tuple": ("""
        def f(u0: "f64[n]", c: float, steps: int):
            u = u0.copy()
            u_prev = u0 * 0.5
            for t in range(steps):
                u_next = 2.0 * u - u_prev + c * np.sin(u)
                u_prev, u = u, u_next
            return np.sum(u * u) + np.sum(u_prev)
    """, ["u0", "c"], [arr("u0", 5), num("c", 0.1, 0.4), count("steps", 3)]),
    # u *= r, pos += dt * vel: NumPy writes into the array (a parameter's too: the caller sees it).
    "whole_array_augmented_assignments": ("""
        def f(u0, vel0, x, rate: float, dt: float, steps: int):
            u = u0.copy()
            vel = vel0.copy()
            for _ in range(steps):
                u *= rate
                u += 0.1 * np.sin(u)
                vel += dt * u
                u -= dt * vel
            x *= rate
            e = np.exp(x)
            e /= 2.0
            return np.sum(u * u) + np.sum(vel**2) + np.sum(x**3) + np.sum(e * x)
    """, ["u0", "vel0", "x", "rate", "dt"], [arr("u0", 5), arr("vel0", 5), arr("x", 3), num("rate", 0.5, 1.5),
                                            num("dt", 0.05, 0.2), count("steps", 3)]),
    # h's shape after the loop's rebinding is Wh's rows, before it h0's: taken to be equal, checked on entry.
    "rebound_to_a_product_of_parameters": ("""
        def f(Wh, Wx, xs, h0):
            h = h0
            for t in range(xs.shape[0]):
                h = np.tanh(Wh @ h + Wx @ xs[t])
            return np.sum(h * h)
    """, ["Wh", "Wx", "h0"], [arr("Wh", 3, 3), arr("Wx", 3, 2), arr("xs", 4, 2), arr("h0", 3)]),
    "steps_and_ellipsis": ("""
        def f(x: "f64[n]", A: "f64[m, n]", k: int):
            y = np.zeros_like(x)
            y[::2] = x[1::2] * 3.0
            y[::-1] += x * x
            y[k::-3] = 0.5
            B = A.copy()
            B[:, ::2] = A[:, 1:2] * 2.0
            B[..., 1] -= np.sum(np.sin(x[-2::-1]))
            return np.sum(y * x) + np.sum(B * B * A) + np.sum(x[k:0:-1] * x[:k - 3:-1])
    """, ["x", "A"], [arr("x", 6), arr("A", 3, 6), count("k", 4)]),
    "written_whole_value": ("""
        def f(x: "f64[n]"):
            e = np.exp(x)
            e[0] = 1.0
            e[1:3] *= x[1:3]
            return np.sum(e * x)
    """, ["x"], [arr("x", 4)]),
    # A part bounded by another array's extent: its adjoint adds into that part of the shadow
    # (d_x[:len(obs)] was printed d_x[:], all of it: NumPy refused, Numba added out of place)
    "part_bounded_by_another_extent": ("""
        def f(x: "f64[n]", obs: "f64[m]"):
            y = np.exp(x)
            return np.sum((y[:len(obs)] - obs) ** 2) + np.sum((x[:len(obs)] - obs) ** 2)
    """, ["x", "obs"], [arr("x", 7), arr("obs", 4)]),
    # A part subscripted again is a subscript of the part: y[lo:hi][::-1] (an AR model's lagged
    # window, unannotated), A[1:][0] (a row of it), x[1:][1:] (a part of a part).
    "parts_of_parts": ("""
        def f(phi, y):
            p = len(phi)
            s = 0.0
            for t in range(p, len(y)):
                window = y[t - p:t][::-1]
                s += (y[t] - np.dot(phi, window)) ** 2
            return s

        def g(A: "f64[m, n]", x: "f64[k]"):
            r = A[1:][0][1:]
            c = A[:, 1:][1]
            e = A[1:3][0][1]
            return np.sum(r * c) + e * np.sum(x[1:][1:] ** 2) + np.sum(x[::2][1:]) + f(x[:2], x)
    """, ["A", "x"], [arr("A", 4, 3), arr("x", 7)]),
    # A slice's length as the difference of its bounds (py_affine): x[p - 1 - j:n - 1 - j] with j
    # in range(p) is n - p long, as np.zeros(n - p) is (probe p70, unannotated); x[1:] - x[:-1]
    # and U[1:-1, 1:-1] are n - 1 and m - 2 by n - 2 long, in a loop counting down too.
    "lagged_slices_rebound_in_a_loop": ("""
        def f(phi, c: float, x):
            p = phi.shape[0]
            n = x.shape[0]
            pred = c * np.ones(n - p)
            for j in range(p):
                pred = pred + phi[j] * x[p - 1 - j:n - 1 - j]
            return np.sum((x[p:] - pred) ** 2)
    """, ["phi", "c", "x"], [arr("phi", 3), num("c"), arr("x", 8)]),
    "differences_and_borders_rebound_in_a_loop": ("""
        def f(x: "f64[n]", U: "f64[m, k]", w: "f64[s]"):
            d = np.zeros(len(x) - 1)
            for t in reversed(range(len(w))):
                d = d + w[t] * (x[1:] - x[:-1])
            m, k = U.shape
            V = np.zeros((m - 2, k - 2))
            for t in range(2):
                V = V + np.sin(U[1:-1, 1:-1]) * U[2:, :-2]
            return np.sum(d ** 2) + np.sum(V ** 2)
    """, ["x", "U", "w"], [arr("x", 6), arr("U", 5, 4), arr("w", 3)]),
    # Rebound to values made with reductions along an axis (probe round 8: refused as not
    # evidently of the shape): a row-normalised matrix (keepdims), a sum over axis 0.
    "reductions_along_an_axis_rebound_in_a_loop": ("""
        def f(A, B, U, T: "f64[n, n]"):
            P = A / np.sum(A, axis=1, keepdims=True)
            a = B[0]
            for t in range(1, B.shape[0]):
                a = a @ P
            c = U[0].copy()
            for t in range(1, U.shape[0]):
                c = np.sum(c[:, None] * T, axis=0)
            return np.sum(a) + np.sum(c ** 2)
    """, ["A", "B", "U", "T"], [arr("A", 3, 3), arr("B", 4, 3), arr("U", 3, 3), arr("T", 3, 3)]),
}


def source_of(case: str) -> str:
    return HEADER + textwrap.dedent(CASES[case][0])


@pytest.mark.parametrize("level", [0, 2])
@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("case", list(CASES))
def test_gradient_matches_finite_differences(case, target, level):
    _, wrt, params = CASES[case]
    check_source(source_of(case), wrt, params, target, level, func="g" if "def g(" in CASES[case][0] else "f")


@pytest.mark.parametrize("source, where, message", [
    ("""
    def f(x: "f64[n]", y: "f64[m]", steps: int):
        v = x.copy()
        for t in range(steps):
            v = v + y[1:]
        return np.sum(v)
    """, "prog.py:10:13", "'v' is rebound in a loop, and this value's shape is not evidently the shape 'v' has"),
    # A part whose bounds are not evidently within the array (x[j:j + 3] stops at its end) or
    # whose length differs by one: its length is not evidently the one 'v' has.
    ("""
    def f(x: "f64[n]", w: "f64[m]"):
        v = np.zeros(3)
        for j in range(len(w)):
            v = v + w[j] * x[j:j + 3]
        return np.sum(v)
    """, "prog.py:10:13", "'v' is rebound in a loop, and this value's shape is not evidently the shape 'v' has"),
    ("""
    def f(x: "f64[n]", w: "f64[m]"):
        p = len(w)
        v = np.zeros(len(x) - p)
        for j in range(p):
            v = v + w[j] * x[p - j:len(x) - 1 - j]
        return np.sum(v)
    """, "prog.py:11:13", "'v' is rebound in a loop, and this value's shape is not evidently the shape 'v' has"),
    ("""
    def f(x: "f64[n]", n: int):
        t = x[:-1]
        for k in range(n - 1):
            x[k + 1] = x[k + 1] + t[k]
        return np.sum(x * x)
    """, "prog.py:10:9", "'t' is a view of this array (NumPy shares their memory)"),
    ("""
    def f(x: "f64[n]", A: "f64[m, n, k]"):
        return np.sum(A[:, ::2])
    """, "prog.py:8:24", "slices with a step are supported on vectors and matrices only"),
    ("""
    def f(x: "f64[n]", A: "f64[m, n]"):
        A[1:][0] = x
        return np.sum(A)
    """, "prog.py:8:5", "chained subscripts with a slice are not supported"),
    ("""
    def f(x: "f64[n]", k: int):
        return np.sum(x[::k])
    """, "prog.py:8:23", "a slice's step must be a nonzero integer literal here"),
    ("""
    def f(x: "f64[n]", steps: int):
        u = x.copy()
        w = x * 2.0
        for t in range(steps):
            u = w
            w[0] = u[1]
        return np.sum(u)
    """, "prog.py:11:13", "'u' and 'w' would name the same array, which this function writes into"),
    # A slice with a step is a view in NumPy as any slice is (the IR's gather is a copy): a write
    # through it, or into its array while it may still be read, was lost (probe round 8).
    ("""
    def f(x: "f64[n]"):
        y = x.copy()
        e = y[::2]
        e *= 2.0
        return np.sum(y)
    """, "prog.py:10:5", "'e' is a NumPy view of another array"),
    ("""
    def f(x: "f64[n]"):
        y = x.copy()
        e = y[1::2][::-1]
        y[0] = 5.0 * x[1]
        return np.sum(e ** 2)
    """, "prog.py:10:5", "'e' is a view of this array (NumPy shares their memory)"),
    ("""
    def f(x: "f64[n]", s: float = 1.0):
        return np.sum(np.tanh(x) if s > 0 else np.sin(x))
    """, "prog.py:8:19", "choosing between arrays with a conditional expression is not supported"),
])
def test_what_stays_refused_is_a_located_error(source, where, message):
    # (A helper rebinding v = v + y to x's copy is no longer here: its callers show the extents
    # equal or the gradient checks them, test_plain_python's REBINDING_HELPER.)
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(HEADER + textwrap.dedent(source), "prog.py", "f", ["x"], "py")
    text = info.value.render()
    assert f"{where}: error: {message}" in text, text
    assert "hint:" in text


# An assignment of a conditional expression between arrays is the if statement that assigns each
# branch's array (refused before: 'choosing between arrays with a conditional expression').
CHOSEN = HEADER + textwrap.dedent("""
    def f(x: "f64[n]", s: float):
        y = np.tanh(x) if s > 0 else np.sin(x) * s
        w = y * 2.0 if s < 0.5 else x * y
        return np.sum(y ** 2) + np.sum(w * x)
""")


@pytest.mark.parametrize("target", ["py", "numba", "c"])
def test_an_array_assigned_a_conditional_expression_is_chosen_by_an_if(target, tmp_path, capsys):
    from source_gradients import check_command

    for bounds in ("0.1,0.4", "0.6,0.9", "-0.9,-0.2"):  # each pair of branches
        check_command(tmp_path, capsys, CHOSEN, "f", "x,s", "x=4", target, extra=("--range", bounds))


RNN = HEADER + textwrap.dedent("""
    def f(Wh, Wx, xs, h0):
        h = h0
        for t in range(xs.shape[0]):
            h = np.tanh(Wh @ h + Wx @ xs[t])
        return np.sum(h)
""")


@pytest.mark.parametrize("target", ["py", "numba"])
def test_extents_a_rebinding_takes_to_be_equal_are_checked_on_entry(target):
    """Wh 4 x 3 and one step: the primal makes h of 4 numbers from h0's 3; the gradient, which
    keeps h at one shape, refuses on entry, naming the extents and the line."""
    import numpy as np

    text = pipeline.gradient_source(RNN, "prog.py", "f", ["Wh", "h0"], target)
    namespace: dict = {}
    exec(compile(text, "<grad>", "exec"), namespace)
    rng = np.random.default_rng(0)
    Wh, Wx, xs, h0 = rng.normal(size=(4, 3)), rng.normal(size=(4, 2)), rng.normal(size=(1, 2)), rng.normal(size=3)
    with pytest.raises(ValueError, match=r"Wh.shape\[0\] must equal h0.shape\[0\] in f \(line 10 rebinds 'h' in a "
                       r"loop, which keeps its shape\)"):
        namespace["grad_f"](Wh, np.zeros_like(Wh), Wx, xs, h0, np.zeros_like(h0))


def test_c_output_refuses_extents_taken_to_be_equal():
    # (where one annotation symbol gives both, Wh: "f64[n, n]" and h0: "f64[n]", they are one extent,
    # and C output differentiates it: test_plain_python's leapfrog)
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(RNN.replace("def f(Wh, Wx, xs, h0)", 'def f(Wh: "f64[p, n]", Wx: "f64[p, m]", '
                                             'xs: "f64[k, m]", h0: "f64[n]")'), "prog.py", "f", ["Wh"], "c")
    text = info.value.render()
    assert "prog.py:10:13: error: --target c: 'h' is rebound in a loop to a value whose shape is the one it had " \
        "before only if parameters' extents are equal" in text, text
    assert "hint: use --target py or numba" in text


# -- a part stored from an overlapping part of the same array -------------------------------------

SHIFT_REGISTER = HEADER + """
def f(x, w):
    buf = np.zeros(3)
    s = 0.0
    for t in range(len(x)):
        buf[1:] = buf[:-1]
        buf[0] = x[t]
        s += np.dot(w, buf) ** 2
    return s
"""

OVERLAPS = {
    "shift_register": (SHIFT_REGISTER, ["x", "w"], [arr("x", 5), arr("w", 3)]),
    "running_add": (HEADER + "def f(x):\n    y = x.copy()\n    y[1:] += y[:-1]\n    return np.sum(y ** 2)\n",
                    ["x"], [arr("x", 5)]),
    "running_product": (HEADER + "def f(x):\n    y = x.copy()\n    y[1:] *= y[:-1]\n    return np.sum(y ** 2)\n",
                        ["x"], [arr("x", 5)]),
    "rows_down": (HEADER + "def f(x):\n    B = np.outer(x, x)\n    B[1:, :] = B[:-1, :]\n    return np.sum(B ** 3)\n",
                  ["x"], [arr("x", 4)]),
    "columns_added": (HEADER + "def f(x):\n    B = np.outer(x, x)\n    B[:, 1:] += B[:, :-1]\n"
                      "    return np.sum(B ** 3)\n", ["x"], [arr("x", 4)]),
}


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("case", list(OVERLAPS))
def test_a_part_stored_from_an_overlapping_part_reads_it_whole_first(case, target):
    """``buf[1:] = buf[:-1]`` (a shift register), ``y[1:] += y[:-1]``: NumPy reads the value
    whole before it stores; the element stores read a view of the array they overwrite, and the
    gradient was wrong in Python and Numba (probe round 2: d_x 0.58 where 0.81 was right). The
    value is copied first."""
    source, wrt, params = OVERLAPS[case]
    check_source(source, wrt, params, target=target)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
@pytest.mark.parametrize("case", ["shift_register", "running_add", "columns_added"])
def test_an_overlapping_part_in_c_output(case, tmp_path):
    """The same in C output of the Python source (annotated: C has no ranks to check), compiled
    and checked against central differences by ``s2sad check``."""
    source = OVERLAPS[case][0].replace("def f(x, w):", 'def f(x: "f64[n]", w: "f64[3]"):').replace(
        "def f(x):", 'def f(x: "f64[n]"):')
    path = tmp_path / "prog.py"
    path.write_text(source)
    r = subprocess.run([sys.executable, "-m", "s2sad", "check", str(path), "--func", "f", "--wrt",
                        ",".join(OVERLAPS[case][1]), "--target", "c"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "all adjoints match central differences" in r.stdout, r.stdout + r.stderr
