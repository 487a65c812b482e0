"""numba.prange loops: parallel in the Numba gradient where Numba's parallel semantics allow.

Numba reduces the scalars a prange body adds to, privatizes what it assigns, and has
no atomic add on the CPU; so an adjoint prange loop is parallel when each of its
array accumulations is the iteration's own and what it carries are sums, and is a
commented serial loop otherwise. prange counts up by one: a reversed loop runs its
(independent) iterations in prange's order. The gradients run with several Numba
threads and are compared with central differences of the input run as plain Python.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from source_gradients import CALLS_KEPT
from fd import ParamSpec, check_gradient

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError
from s2sad.emit_py.emitter import NJIT_PARALLEL

# The decorator as the output lays it out (ruff format wraps it past 100 columns)
PARALLEL_OPTIONS = NJIT_PARALLEL[len("@numba.njit("):NJIT_PARALLEL.index(", cache=")]

numba = pytest.importorskip("numba")

SOURCE = """\
import numba
from numba import prange


def blend(a: float, x, idx, y, n: int):
    for i in prange(n):
        y[i] = a * x[i] * x[i] + y[i]
    for i in numba.prange(n):
        y[i] = y[i] + x[idx[i]]
"""

PARAMS = [
    ParamSpec("a", "float"),
    ParamSpec("x", "array", (30,)),
    ParamSpec("idx", "array", (30,), dtype="i64", ints=(0, 10)),
    ParamSpec("y", "array", (30,)),
    ParamSpec("n", "int", value=30),
]


def _namespace(text: str) -> dict:
    namespace: dict = {}
    exec(compile(text, "<prange>", "exec"), namespace)
    return namespace


def test_numba_gradient_keeps_prange_where_iterations_are_independent():
    text = pipeline.gradient_source(SOURCE, "blend.py", "blend", ["a", "x"], "numba")
    assert text.count(PARALLEL_OPTIONS) == 1
    forward, reverse = text.split("# reverse sweep")
    assert forward.count("numba.prange(n)") == 2
    # The gather's adjoint adds to d_x[idx[i]]: serial. The first loop's is the iteration's own,
    # and d_a is a sum Numba reduces: parallel, counted up.
    serial, parallel = reverse.split("# line 6:")
    assert "# serial: iterations may add to the same element" in serial and "range(n - 1, -1, -1)" in serial
    assert "for i in numba.prange(n):" in parallel and "d_a += " in parallel


def test_numba_prange_gradient_matches_finite_differences_with_threads():
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    primal = _namespace(SOURCE)["blend"]  # prange is range when run as Python
    gradient = _namespace(pipeline.gradient_source(SOURCE, "blend.py", "blend", ["a", "x"], "numba"))["grad_blend"]
    for seed in range(2):
        check_gradient(primal, gradient, PARAMS, ["a", "x"], {"y"}, np.random.default_rng(seed))
    assert numba.get_num_threads() >= 1


def test_python_output_of_prange_is_a_plain_loop():
    text = pipeline.gradient_source(SOURCE, "blend.py", "blend", ["a", "x"], "py")
    assert "prange" not in text.replace("# line 6: for i in prange(n):", "").replace(
        "# line 8: for i in numba.prange(n):", "") and "numba" not in text.split("def ")[0]


def test_prange_that_breaks_is_a_located_error():
    src = SOURCE.replace("        y[i] = a * x[i] * x[i] + y[i]\n",
                         "        if x[i] > 2.0:\n            break\n        y[i] = a * x[i] * x[i] + y[i]\n")
    with pytest.raises(DiagnosticError) as e:
        pipeline.gradient_source(src, "blend.py", "blend", ["a", "x"], "numba")
    text = e.value.render()
    assert text.startswith("blend.py:6:14: error: a prange loop cannot break or return") and "^" in text


ROTATE = """\
import math
import numba


def rotate(pts, out, theta, n):
    c = math.cos(theta)
    s = math.sin(theta)
    for i in numba.prange(n):
        px = pts[2 * i]
        py = pts[2 * i + 1]
        out[2 * i] = c * px - s * py
        out[2 * i + 1] = s * px + c * py
"""


def test_sums_added_to_several_times_are_gathered_per_iteration():
    """Numba takes a prange reduction only as one ``s += x`` per iteration; the adjoint adds
    to d_c and d_s twice each (and by -=): each iteration sums into its own d_c_it first.
    The points' elements 2 * i and 2 * i + 1 are the iteration's own: plain +=. No annotation
    on n: a prange bound is an integer."""
    text = pipeline.gradient_source(ROTATE, "rotate.py", "rotate", ["pts", "theta"], "numba")
    reverse = text.split("# reverse sweep")[1]
    assert "for i in numba.prange(n):" in reverse and "serial" not in reverse
    assert reverse.count("d_c += d_c_it") == 1 and reverse.count("d_s += d_s_it") == 1
    assert "d_pts[2 * i + 1] += d_py" in reverse
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    primal = _namespace(ROTATE)["rotate"]
    gradient = _namespace(text)["grad_rotate"]
    params = [ParamSpec("pts", "array", (40,)), ParamSpec("out", "array", (40,)), ParamSpec("theta", "float"),
              ParamSpec("n", "int", value=20)]
    for seed in range(2):
        check_gradient(primal, gradient, params, ["pts", "theta"], {"out"}, np.random.default_rng(seed))


# -- races the reverse sweep could add (issue 14): calls, nesting, carried values, tapes ----------


def _threads() -> list[int]:
    return [t for t in (2, 4) if t <= numba.config.NUMBA_NUM_THREADS] or [1]


def _gradient(src: str, func: str, wrt: list[str], options: pipeline.Options = pipeline.DEFAULT):
    text = pipeline.gradient_source(src, f"{func}.py", func, wrt, "numba", options)
    return text, _namespace(text)["grad_" + func]


def _check(src: str, func: str, wrt: list[str], params: list[ParamSpec], written: set[str], seeds: int = 2,
           options: pipeline.Options = pipeline.DEFAULT):
    """Central differences of the primal (run as Python) at each thread count (``options``:
    CALLS_KEPT where the test is of a helper's gradient called in the loop, which -O2 inlines)."""
    text, gradient = _gradient(src, func, wrt, options)
    primal = _namespace(src)[func]
    for t in _threads():
        numba.set_num_threads(t)
        for seed in range(seeds):
            check_gradient(primal, gradient, params, wrt, written, np.random.default_rng(seed))
    return text, gradient


def _same_with_threads(gradient, args: list, runs: int = 6) -> None:
    """``gradient`` (arrays followed by their shadows in ``args``, seeds of 0.5) gives with 2
    and 4 threads what it gives with one, on inputs large enough for threads to meet."""
    def run():
        work = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        out = gradient(*work)
        return [a for a in work if isinstance(a, np.ndarray)], out

    numba.set_num_threads(1)
    want, want_out = run()
    for t in _threads():
        numba.set_num_threads(t)
        for _ in range(runs):
            got, got_out = run()
            for g, w in zip(got, want):
                np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12, err_msg=f"{t} threads")
            np.testing.assert_allclose(np.asarray(got_out if got_out is not None else 0.0),
                                       np.asarray(want_out if want_out is not None else 0.0), rtol=1e-9)


def _reverse(text: str, func: str) -> str:
    return text.split(f"def grad_{func}(")[1].split("# reverse sweep")[1]


KMEANS = """\
import numba


def dist2(x, i: int, c, k: int, d: int) -> float:
    s = 0.0
    for j in range(d):
        t = x[i * d + j] - c[k * d + j]
        s += t * t
    return s


def assign(x, c, lab, y, n: int, d: int):
    for i in numba.prange(n):
        y[i] = dist2(x, i, c, lab[i], d)
"""


def test_a_gradient_called_from_prange_that_adds_to_a_shared_shadow_is_serial():
    """grad_dist2 adds to d_c[k * d + j] with k = lab[i]: iterations of one cluster meet there,
    and Numba has no atomic add. The reverse loop was numba.prange (lost updates of d_c)."""
    params = [ParamSpec("x", "array", (24,)), ParamSpec("c", "array", (6,)),
              ParamSpec("lab", "array", (12,), dtype="i64", ints=(0, 3)), ParamSpec("y", "array", (12,)),
              ParamSpec("n", "int", value=12), ParamSpec("d", "int", value=2)]
    text, gradient = _check(KMEANS, "assign", ["x", "c"], params, {"y"}, options=CALLS_KEPT)
    forward, reverse = text.split("def grad_assign(")[1].split("# reverse sweep")
    assert "for i in numba.prange(n):" in forward
    assert "# serial: grad_dist2 may add to d_x, d_c where other iterations add" in reverse
    assert "numba.prange(" not in reverse
    n, rng = 20000, np.random.default_rng(3)
    _same_with_threads(gradient, [rng.normal(size=2 * n), np.zeros(2 * n), rng.normal(size=4), np.zeros(4),
                                  rng.integers(0, 2, n), rng.normal(size=n), np.full(n, 0.5), n, 2])
    # At -O2 dist2 is inlined into the loop (opt/inline_loops): the reversed loop stays serial.
    text, _ = _check(KMEANS, "assign", ["x", "c"], params, {"y"})
    reverse = text.split("def grad_assign(")[1].split("# reverse sweep")[1]
    assert "serial: iterations may add to the same element" in reverse and "numba.prange(" not in reverse


NESTED = """\
from numba import prange


def rowdot(A, v, i: int, m: int) -> float:
    s = 0.0
    for j in prange(m):
        s += A[i * m + j] * v[j]
    return s


def matvec(A, v, y, n: int, m: int):
    for i in prange(n):
        y[i] = rowdot(A, v, i, m)


def outer(A, v, y, n: int, m: int):
    for i in prange(n):
        for j in prange(m):
            y[i * m + j] = A[i * m + j] * v[j]


def scale_rows(A, v, y, n: int, m: int):
    for i in prange(n):
        for j in prange(m):
            y[i * m + j] = A[i * m + j] * v[i]
"""


def test_nested_prange_adds_in_parallel_only_to_what_every_enclosing_iteration_owns():
    """d_v[j] is the inner iteration's own but every outer iteration adds to it: the outer
    reverse loop is serial (also when the inner prange is in a helper: matvec, which was
    parallel); d_v[i] is the outer iteration's own but every inner one adds to it."""
    n, m = 5, 4
    specs = {"A": ParamSpec("A", "array", (n * m,)), "vm": ParamSpec("v", "array", (m,)),
             "vn": ParamSpec("v", "array", (n,)), "n": ParamSpec("n", "int", value=n),
             "m": ParamSpec("m", "int", value=m)}
    cases = {"matvec": ("vm", n), "outer": ("vm", n * m), "scale_rows": ("vn", n * m)}
    texts = {}
    for func, (v, ny) in cases.items():
        params = [specs["A"], specs[v], ParamSpec("y", "array", (ny,)), specs["n"], specs["m"]]
        texts[func], gradient = _check(NESTED, func, ["A", "v"], params, {"y"}, seeds=1, options=CALLS_KEPT)
        N, M = 2000, 8
        rng = np.random.default_rng(5)
        nv, nyy = (M if v == "vm" else N), (N if func == "matvec" else N * M)
        _same_with_threads(gradient, [rng.normal(size=N * M), np.zeros(N * M), rng.normal(size=nv),
                                      np.zeros(nv), np.zeros(nyy), rng.normal(size=nyy), N, M], runs=3)
    matvec = _reverse(texts["matvec"], "matvec")
    assert "# serial: grad_rowdot may add to d_A, d_v where other iterations add" in matvec
    assert "numba.prange(" not in matvec
    outer_loop, inner_loop = _reverse(texts["outer"], "outer").split("\n        for j in")
    assert "serial: iterations may add to the same element" in outer_loop and "numba.prange(" not in outer_loop
    assert inner_loop.startswith(" numba.prange(m):")
    outer_loop, inner_loop = _reverse(texts["scale_rows"], "scale_rows").split("\n        for j in")
    assert "for i in numba.prange(n):" in outer_loop
    assert "serial: iterations may add to the same element" in outer_loop.splitlines()[-1]


CARRIED = """\
from numba import prange


def cube(a: float, k: int) -> float:
    r = 1.0
    for _ in range(k):
        r = r * a
    return r


def shifted(x, y, n: int, k: int):
    for i in prange(n):
        y[i] = cube(x[i + 1], k) + x[i]


def product(x, n: int) -> float:
    p = 1.0
    for i in prange(n):
        p *= x[i]
    return p


def largest(x, n: int) -> float:
    m = -1e300
    for i in prange(n):
        m = max(m, x[i])
    return m
"""


def test_returned_adjoints_and_carried_products_and_maxima_stay_serial():
    """grad_cube's returned adjoint is added to d_x[i + 1], which the next iteration's d_x[i]
    meets; a product or a running maximum carried by a prange is no sum: its adjoint is a
    serial recurrence (and so is its forward sweep, which tapes the running value)."""
    n = 9
    x = ParamSpec("x", "array", (n + 1,), low=0.5, high=1.5)
    shifted, gradient = _check(CARRIED, "shifted", ["x"], [x, ParamSpec("y", "array", (n,)),
                                                         ParamSpec("n", "int", value=n),
                                                         ParamSpec("k", "int", value=3)], {"y"},
                               options=CALLS_KEPT)
    rev = _reverse(shifted, "shifted")
    assert "serial: iterations may add to the same element" in rev and "numba.prange(" not in rev
    assert "d_x[i + 1] += d_a" in rev
    N, rng = 20000, np.random.default_rng(7)
    _same_with_threads(gradient, [rng.uniform(0.5, 1.5, N + 1), np.zeros(N + 1), np.zeros(N), rng.normal(size=N),
                                  N, 3])
    for func, carried in (("product", "p"), ("largest", "m")):
        text, _ = _check(CARRIED, func, ["x"], [x, ParamSpec("n", "int", value=n)], set())
        body = text.split(f"def grad_{func}(")[1]
        assert "numba.prange(" not in body and "parallel=" not in text
        assert f"serial: the loop carries '{carried}', which is not a sum" in body
        assert f"serial: the loop carries 'd_{carried}', which is not a sum" in body


TAPED = """\
import math
from numba import prange


def chain(x, y, n: int, m: int):
    for i in prange(n):
        t = x[i]
        for j in range(m):
            t = math.sin(t * x[j])
        y[i] = t
"""


def test_forward_prange_stays_parallel_when_each_iteration_writes_its_own_tape_rows():
    """The forward sweep records t per (i, j) at i * m + j: rows of the iteration's own, so the
    primal's prange is kept; the reverse adds to d_x[j] from every iteration: serial."""
    n, m = 6, 4
    params = [ParamSpec("x", "array", (n,)), ParamSpec("y", "array", (n,)), ParamSpec("n", "int", value=n),
              ParamSpec("m", "int", value=m)]
    text, gradient = _check(TAPED, "chain", ["x"], params, {"y"})
    forward, reverse = text.split("def grad_chain(")[1].split("# reverse sweep")
    assert "for i in numba.prange(n):" in forward and "tape_t[i * t0 + j] = t" in forward
    assert "serial: iterations may add to the same element" in reverse and "numba.prange(" not in reverse
    N, rng = 5000, np.random.default_rng(11)
    _same_with_threads(gradient, [rng.normal(size=N), np.zeros(N), np.zeros(N), rng.normal(size=N), N, m])


VERSIONED = """\
import numba


def f(x, n: int) -> float:
    s0 = 0.5
    for i in numba.prange(n):
        s0 += x[i]
    r = s0 * s0
    for k in range(n):
        s0 *= x[k]
    return r + s0
"""


def test_second_version_of_a_prange_sum_is_not_named_like_numbas_own_versions():
    """The gradient keeps s0 after the prange sum and a second variable for its products. Numba
    lowers a prange loop with its own versions of s0 (s0.1, s0.2) renamed s0_1, s0_2, and stops
    ("key already in dictionary") where the function already has a variable of that name; so a
    suffix never takes the form _<digits>."""
    n = 5
    params = [ParamSpec("x", "array", (n,), low=0.5, high=1.5), ParamSpec("n", "int", value=n)]
    text, _ = _check(VERSIONED, "f", ["x"], params, set())
    assert "s0_v2 = s0" in text and not re.search(r"\bs0_\d", text)


BROADCASTS = """\
import numpy as np
import numba


def f(W: "f64[m, n]", A: "f64[n, m]", x: "f64[n]", n: int, m: int) -> float:
    s = 0.0
    for i in numba.prange(n):
        s += x[i]
    c = np.tanh(W) - np.mean(np.tanh(W), axis=1, keepdims=True)
    return s * np.sum(c * W) + np.sum((W @ x) @ W) + np.sum(np.sin(W) @ A)
"""


def test_a_parallel_function_spells_every_added_axis_with_its_extents():
    """Seed 4000120: in a parallel=True function Numba's array analysis takes an axis that
    np.expand_dims adds for one of the extent it is broadcast against, and stops ("Sizes of ...
    do not match"). There a keepdims reduction and a matrix product reshape to literal extents,
    and a vector times a matrix is a sum over the transpose; other Numba functions keep
    np.expand_dims."""
    n, m = 5, 3
    params = [ParamSpec("W", "array", (m, n)), ParamSpec("A", "array", (n, m)), ParamSpec("x", "array", (n,)),
              ParamSpec("n", "int", value=n), ParamSpec("m", "int", value=m)]
    text, _ = _check(BROADCASTS, "f", ["W", "A", "x"], params, set())
    assert PARALLEL_OPTIONS in text and ".reshape((t0.shape[0], 1))" in text
    # (np.broadcast_to spells out the extents of its result itself; joined where the layout broke it)
    joined = re.sub(r"\(\s+", "(", text)
    assert joined.count("np.expand_dims(") == joined.count("np.broadcast_to(np.expand_dims(")
    serial = pipeline.gradient_source(BROADCASTS.replace("numba.prange", "range"), "f.py", "f", ["W", "A", "x"],
                                      "numba")
    assert "parallel=" not in serial and "np.expand_dims(" in serial and ".reshape((" not in serial


# Fuzz seed 13101596 (minimized): an array made in a branch of the forward sweep (W - s2 under
# ``if not returned:``) gives its shape to a broadcast in a branch of the reverse sweep; in a
# parallel=True function Numba's conversion of whole-array expressions into parallel loops failed
# to compile it ("'NoneType' object is not iterable"). Those expressions stay serial now.
BRANCH_SHAPES = """\
import math

import numpy as np
import numba


def r0(z, c, n):
    h0 = 0.0
    return ((z[2] if (z[2] < 0.0) else z[1]) if (z[0] < 0.5) else (2.0 * h0))


def f(x, y, idx, W, a, b, n, m):
    s2 = 1.0
    s1 = -0.25
    s0 = 0.5
    m4 = 0
    m6 = 0
    m8 = 0
    for i2 in range(n - 1, 0 - 1, -1):
        if ((abs(a) + np.sum(np.mean(np.expm1(0.3 * W), axis=0)[1:]
                             * np.mean(np.expm1(0.3 * W), axis=0)[:-1])) < np.arctan(x[i2])):
            return math.erf(math.erf(s2))
        s2 += math.acosh((2.5 + np.tanh(((s2 * x[((i2 + 3) % n)]) + (s1 + s2)))))
    for i3 in range(1, n):
        for i5 in range(m4 - 1, 0 - 1, -2):
            for i7 in range(m6 - 1, 0 - 1, -2):
                s2 -= s1
                y[((i5 + 2) % n)] *= np.sinh((0.5 * np.arctan(math.pow((1.5 + np.tanh(s1)), x[i3]))))
                s2 -= s2
            m8 = min(n, (1 + int(3.0 * abs(np.tanh((np.arcsin((0.8 * np.tanh(x[((n - 1) - i3)]))) - abs(y[2])))))))
            for i9 in range(m8):
                if ((x[idx[i3]] - 2.0) < (-0.25)):
                    continue
                s0 -= math.cos(((s0 - s0) * (s1 - y[((i9 + 1) % n)])))
    y[2] = np.mean(np.mean((W - s2), axis=0))
    for i10 in numba.prange(n):
        q11 = (x[((i10 + 3) % n)] if (math.log((2.0 + np.tanh((b + (-0.75))))) < (x[i10] + s1)) else r0(x, s1, n))
        y[i10] = r0(x, a, n)
        s2 += a
    for i12 in numba.prange(n):
        q13 = (math.acosh((2.5 + np.tanh(x[i12]))) if ((i12 % 2) == 0) else (2.0 + a))
        y[i12] = ((a * s1) + math.hypot(s1, x[((n - 1) - i12)]))
        s0 += (s1 * math.erf(q13))
    return x[2]
"""


def test_a_parallel_function_compiles_broadcasts_to_the_shape_of_an_array_made_in_a_branch():
    text = pipeline.gradient_source(BRANCH_SHAPES, "f.py", "f", ["x", "a", "b"], "numba")
    assert PARALLEL_OPTIONS in text
    # the decorator's options laid out as ruff does (a dict literal was a construct the layout
    # lacked: the whole function was left as the emitter wrote it)
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    r = subprocess.run([ruff, "format", "--isolated", "--no-cache", "--check", "-"], input=text, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    grad = _namespace(text)["grad_f"]
    rng = np.random.default_rng(0)
    x, y, W = rng.uniform(-0.5, 0.5, 5), rng.normal(size=5), rng.normal(size=(2, 5))
    idx = np.arange(5)
    runs = []
    for run in (grad, grad.py_func):  # compiled (it failed to compile), then as Python
        d_x, d_y = np.zeros(5), np.zeros(5)
        d_ab = run(x, d_x, y.copy(), d_y, idx, W, 0.3, 0.2, 5, 2, 1.0)
        runs.append((d_ab, d_x))
    np.testing.assert_allclose(runs[0][0], runs[1][0])
    np.testing.assert_allclose(runs[0][1], runs[1][1])


# Fuzz seed 13500008 (minimized): an in-place operator on arrays (t24 += ...) in the adjoint of a
# checkpointed loop of whole-array expressions, in a function with a numba.prange loop: Numba's
# conversion of in-place array operators into parallel loops ("inplace_binop") crashed its parfor
# pass ("'NoneType' object is not iterable"). It is off with the "numpy" and "setitem" options.
INPLACE_SHAPES = """\
import math

import numpy as np
import numba


def g0(u, v):
    return np.tanh(u) - math.tan(0.7 * np.tanh(u))


def f(x, y, W, a, b, n, m):
    s2 = 1.0
    s1 = -0.25
    s0 = (math.log1p(0.5 + np.tanh(1.25)) + s2 ** 3) * np.min(np.where(
        (W @ x).reshape(-1, 1) + np.sum(W, axis=0).reshape(1, -1) > np.square((W @ x)[:, None] * x[None, :]),
        np.square(W * a), np.outer(np.sum(W, axis=1), W.T @ (W @ x))))
    m3 = min(n, 1 + int(3.0 * abs(np.tanh(g0(g0(y[0], y[1]), x[0] - s2)))))
    # s2sad: checkpoint binomial(snapshots=3)
    for i4 in range(m3):
        s1 += np.sum(np.outer(W @ x, (W @ x) @ W)
                     + np.sum(np.sqrt(1.5 + np.sin(W @ x))[:, None] * x[None, :], axis=1, keepdims=True))
    for i6 in range(0, n, 1):
        for i8 in range(1, n, 1):
            y[3] = math.erf(s0 - x[2]) + (1.5 + np.tanh(b)) ** x[n - 1 - i8] - math.erfc(a)
    for i9 in numba.prange(n):
        y[i9] = min(s1, x[i9]) ** 2
    return s2 + s1
"""


def test_a_parallel_function_compiles_in_place_array_operators_serially():
    text = pipeline.gradient_source(INPLACE_SHAPES, "f.py", "f", ["x", "a", "b"], "numba")
    assert '"inplace_binop": False' in text and '"setitem": False' in text
    grad = _namespace(text)["grad_f"]
    rng = np.random.default_rng(0)
    x, y, W = rng.uniform(0.1, 0.5, 4), rng.uniform(0.1, 0.5, 4), rng.uniform(0.1, 0.5, (2, 4))
    runs = []
    for run in (grad, grad.py_func):  # compiled (it failed to compile), then as Python
        d_x, d_y = np.zeros(4), np.zeros(4)
        d_ab = run(x, d_x, y.copy(), d_y, W, 0.3, 0.4, 4, 2, 1.0)
        runs.append((d_ab, d_x))
    np.testing.assert_allclose(runs[0][0], runs[1][0])
    np.testing.assert_allclose(runs[0][1], runs[1][1])
