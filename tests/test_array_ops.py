"""Whole-array NumPy ops (``arr.``): typing, text form, interpreter, front end, adjoint, emitters.

The golden cases ``golden/array_*`` check the full path numerically (finite
differences, Python and Numba); these tests pin the pieces: the verifier's
typing rules, the IR text round trip, the reference interpreter against NumPy,
diagnostics for what is not supported, vectorized adjoints, and (when
installed) agreement with autograd.
"""

from __future__ import annotations

import re
import shutil
import textwrap

import numpy as np
import pytest

from s2sad.pipeline import parse_source
from s2sad import pipeline
from s2sad.adjoint.rules import RULES
from s2sad.diagnostics import DiagnosticError
from s2sad.ssa import array_ops
from s2sad.ssa.interp import Interpreter
from s2sad.ssa.parser import parse_module
from s2sad.ssa.printer import print_module
from s2sad.ssa.verifier import VerifyError, verify_module
from source_gradients import check_source, num

ALL_OPS_IR = """module "arrays.py"

func @f(%A: array<f64,2>, %B: array<f64,2>, %x: array<f64,1>, %s: f64) -> f64 {
  %n = dim(%x) {axis = 0} : i64
  %one = const() {value = 1.0} : f64
  %Ax = arr.matmul(%A, %x) : array<f64,1>
  %AB = arr.matmul(%A, %B) : array<f64,2>
  %xA = arr.matmul(%x, %A) : array<f64,1>
  %xx = arr.matmul(%x, %x) : f64
  %At = arr.transpose(%A) : array<f64,2>
  %o = arr.outer(%Ax, %xA) : array<f64,2>
  %e = arr.math.exp(%Ax) : array<f64,1>
  %h = arr.add(%AB, %x) : array<f64,2>
  %hs = arr.mul(%h, %s) : array<f64,2>
  %m = arr.maximum(%hs, %o) : array<f64,2>
  %c = arr.gt(%m, %s) : array<bool,2>
  %w = arr.where(%c, %m, %s) : array<f64,2>
  %ng = arr.neg(%w) : array<f64,2>
  %r0 = arr.sum(%ng) {axis = 1} : array<f64,1>
  %r1 = arr.max(%ng) {axis = 0, keepdims = true} : array<f64,2>
  %r2 = arr.mean(%At) : f64
  %r3 = arr.min(%e) : f64
  %f = arr.full(%n, %one) : array<f64,1>
  %b = arr.broadcast(%r0, %A) {axis = 1} : array<f64,2>
  %st = arr.sum_to(%b, %r1) {keep = [0]} : array<f64,2>
  %t0 = arr.sum(%st) : f64
  %t1 = arr.matmul(%f, %e) : f64
  %u0 = add(%t0, %t1) : f64
  %u1 = add(%u0, %r2) : f64
  %u2 = add(%u1, %r3) : f64
  %u = add(%u2, %xx) : f64
  return(%u)
}
"""


def test_ir_text_round_trips_and_verifies():
    module = parse_module(ALL_OPS_IR)
    verify_module(module)
    text = print_module(module)
    assert print_module(parse_module(text)) == text
    assert "arr.sum_to(%b, %r1) {keep = [0]}" in text


def test_interpreter_runs_every_op_like_numpy():
    module = parse_module(ALL_OPS_IR)
    rng = np.random.default_rng(0)
    A, B, x = rng.normal(size=(3, 3)), rng.normal(size=(3, 3)), rng.normal(size=3)
    s = 0.3
    got = Interpreter(module).call("f", A, B, x, s)
    Ax, AB, xA = A @ x, A @ B, x @ A
    m = np.maximum((AB + x) * s, np.outer(Ax, xA))
    ng = -np.where(m > s, m, s)
    r0 = ng.sum(axis=1)
    b = np.broadcast_to(r0[:, None], A.shape)
    st = b.sum(axis=0, keepdims=True)
    e = np.exp(Ax)
    want = st.sum() + np.ones(3) @ e + A.T.mean() + e.min() + x @ x
    assert got == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize(
    "line, message",
    [
        ("%bad = arr.matmul(%A, %T) : array<f64,2>", "takes two arrays of rank 1 or 2"),
        ("%bad = arr.outer(%A, %x) : array<f64,2>", "takes two rank-1 arrays"),
        ("%bad = arr.sum(%A) {axis = 2} : array<f64,1>", "axis 2 is out of range"),
        ("%bad = arr.transpose(%x) : array<f64,1>", "takes one rank-2 array"),
        ("%bad = arr.add(%A, %x) : array<f64,1>", "gives array<f64,2>, not array<f64,1>"),
        ("%bad = arr.where(%x, %x, %x) : array<f64,1>", "takes a boolean array"),
        ("arr.accum(%x, %A)", "adds array<f64,2> into array<f64,1>"),
    ],
)
def test_verifier_rejects_ill_typed_array_ops(line, message):
    text = f"""module "bad.py"

func @f(%A: array<f64,2>, %T: array<f64,3>, %x: array<f64,1>) -> f64 {{
  {line}
  %z = const() {{value = 0.0}} : f64
  return(%z)
}}
"""
    with pytest.raises(VerifyError) as info:
        verify_module(parse_module(text))
    assert message in str(info.value)


def test_every_array_op_of_the_primal_has_a_rule():
    adjoint_only = {array_ops.PREFIX + n for n in ("broadcast", "sum_to")} | set(array_ops.ACCUMULATIONS)
    # Their adjoints are accumulations into part of the operand's shadow, made by the reverse
    # transform itself: d_a[lo:hi] += g, np.add.at(d_a, idx, g).
    adjoint_only |= {array_ops.PREFIX + "slice", array_ops.PREFIX + "take", array_ops.PREFIX + "mask"}
    # Only adjoints make them (np.prod's, digamma's on arrays): no input spells them.
    adjoint_only |= {array_ops.PREFIX + "prod_others", array_ops.PREFIX + "math.trigamma",
                     array_ops.PREFIX + "sum_to_shape"}  # (and a shape-generic parameter's adjoint)
    adjoint_only |= {array_ops.PREFIX + n for n in ("interp_weights", "interp_slope", "interp_breaks")}  # np.interp's
    comparisons = {array_ops.PREFIX + n for n in array_ops.COMPARE}  # boolean: no derivative flows
    comparisons.add(array_ops.PREFIX + "argsort")  # integer indices: none either
    missing = sorted(n for n in array_ops.NAMES - adjoint_only - comparisons if n not in RULES)
    # Ufuncs without a rule are rejected with a named MissingRule, never differentiated as zero.
    assert all(n.startswith(array_ops.PREFIX + "math.") for n in missing), missing
    for fn in ("exp", "log", "sin", "cos", "tanh", "sqrt", "abs"):
        assert array_ops.PREFIX + "math." + fn in RULES


FRONT_END_SOURCE = """
import numpy as np


def f(A: "f64[m, n]", x: "f64[n]", b: "f64[m]", s: float):
    h = np.tanh(A @ x + b) * s
    z = h - np.max(h)
    p = np.exp(z) / np.sum(np.exp(z))
    q = np.where(x > 0.0, x, 0.5 * x)
    return np.sum(p * np.log(p + 1.0)) + np.mean(A.T @ h) + q @ q + np.min(np.outer(h, x), axis=1) @ b
"""


def test_front_end_lowers_numpy_and_interpreter_agrees_with_python():
    module = parse_source(FRONT_END_SOURCE, "prog.py", "f")
    verify_module(module)
    names = {op.name for op in module.functions["f"].walk()}
    assert {"arr.matmul", "arr.math.tanh", "arr.max", "arr.where", "arr.outer", "arr.transpose"} <= names
    namespace: dict = {}
    exec(FRONT_END_SOURCE, namespace)
    rng = np.random.default_rng(1)
    args = (rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=3), 0.7)
    got = Interpreter(module).call("f", *args)
    assert got == pytest.approx(namespace["f"](*args), rel=1e-12)


def test_mlp_adjoint_is_vectorized():
    src = 'import numpy as np\n\n\ndef loss(W: "f64[m, n]", x, b: "f64[m]", y: "f64[m]"):\n' \
          "    return np.sum((np.tanh(W @ x + b) - y) ** 2)\n"
    out = pipeline.gradient_source(src, "loss.py", "loss", ["W", "x", "b"], "py")
    assert "d_W += np.outer(" in out
    assert "d_x += W.T @ " in out
    assert not re.search(r"^\s*for ", out, re.M)  # no loop (the docstring may say "for")


def _diagnose(source: str, target: str = "py", level: int = 2) -> str:
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(textwrap.dedent(source), "prog.py", "f", ["x"], target, pipeline.Options(level=level))
    return info.value.render()


@pytest.mark.parametrize(
    "body, fragment",
    [
        ("return np.sum(x, axis=k)", "axis= must be an integer literal"),
        ("return np.sum(x @ 2.0)", "the right operand of a matrix product is not an array"),
        ("return np.sum(np.outer(x, np.outer(x, x)))", "takes two rank-1 arrays"),
        ("return np.sum(x, axis=3)", "axis 3 is out of range for a 1-D array"),
        ("return np.sum(np.partition(x, 2))", "the NumPy function 'np.partition' is not supported"),
    ],
)
def test_unsupported_numpy_gets_a_located_diagnostic(body, fragment):
    text = _diagnose(f"""
        import numpy as np


        def f(x: "f64[n]", k: int):
            {body}
    """)
    assert fragment in text
    assert text.startswith("prog.py:6:"), text
    assert "^" in text


def test_a_product_of_a_value_from_an_unannotated_parameter_names_the_annotation():
    """r = model(theta, t) - y; 0.5 * r @ r: nothing shows that t or y is the array, t is taken
    for a number, and the hint "use * to scale by a number" was not true: annotating t makes it a
    product of vectors."""
    source = """
        import numpy as np


        def model(theta, t):
            a, b = theta
            return a * np.exp(-b * t)


        def f(x, t, y):
            r = model(x, t) - y
            return 0.5 * r @ r
    """
    text = _diagnose(source)
    assert "the left operand of a matrix product is not evidently an array: it is computed from 't'" in text
    assert 'hint: annotate the array among them: t: "f64[n]"' in text
    annotated = textwrap.dedent(source).replace("def f(x, t, y)", 'def f(x, t: "f64[n]", y)')
    assert "def grad_f(x, d_x, t, y" in pipeline.gradient_source(annotated, "prog.py", "f", ["x"], "py")


def test_c_output_of_a_returned_array_is_rejected():
    """Python and Numba gradients of ``return x + 1.0`` take an array d_return (test_array_return);
    C output does not support it yet."""
    text = _diagnose("""
        import numpy as np


        def f(x: "f64[n]", k: int):
            return x + 1.0
    """, target="c")
    assert text.startswith("prog.py:6:5: error: --target c: 'f' returns an array"), text
    assert "^" in text


def test_c_target_takes_whole_array_sizes_it_cannot_tell_as_parameters():
    # C lowers whole-array ops to loops, which need the extents a bare ndarray does not give:
    # the caller passes them (never guessed from loop bounds), and the size comment says so.
    # x[0] proves x a vector; without it, its rank would be a guess, which C output refuses.
    src = textwrap.dedent("""
        import numpy as np


        def f(x: np.ndarray):
            s = 0.0 * x[0]
            return s + np.sum(np.exp(x))
    """)
    out = pipeline.gradient_source(src, "prog.py", "f", ["x"], "c")
    assert "void grad_f(double *x, double *d_x, long x_shape0, double d_return)" in out
    assert "// Array sizes: x, d_x: [x_shape0]." in out
    assert "i < x_shape0" in out
    guessed = src.replace("0.0 * x[0]", "0.0")
    with pytest.raises(DiagnosticError, match="the rank of parameter 'x' is not evident in 'f'"):
        pipeline.gradient_source(guessed, "prog.py", "f", ["x"], "c")


def test_numba_target_reports_reductions_it_cannot_compile():
    text = _diagnose("""
        import numpy as np


        def f(x: "f64[n]"):
            return np.sum(np.exp(np.max(x, axis=0, keepdims=True)))
    """, target="numba")
    assert "does not compile under Numba" in text


AUTOGRAD_CASES = {
    "mlp": ('import numpy as np\n\n\ndef f(W: "f64[m, n]", x: "f64[n]", b: "f64[m]"):\n'
            "    return np.sum(np.tanh(W @ x + b) ** 2)\n", ["W", "x", "b"], [(4, 3), (3,), (4,)]),
    "softmax": ('import numpy as np\n\n\ndef f(Z: "f64[m, k]"):\n'
                "    e = np.exp(Z - np.max(Z, axis=1, keepdims=True))\n"
                "    p = e / np.sum(e, axis=1, keepdims=True)\n"
                "    return np.sum(p * p)\n", ["Z"], [(3, 4)]),
}


@pytest.mark.parametrize("name", sorted(AUTOGRAD_CASES))
def test_gradient_agrees_with_autograd(name):
    autograd = pytest.importorskip("autograd", reason="autograd is not installed (optional test dependency)")
    anp = pytest.importorskip("autograd.numpy")
    source, wrt, shapes = AUTOGRAD_CASES[name]
    rng = np.random.default_rng(2)
    args = [rng.normal(size=s) for s in shapes]
    ours_ns: dict = {}
    exec(pipeline.gradient_source(source, "f.py", "f", wrt, "py"), ours_ns)
    call = []
    shadows = [np.zeros_like(a) for a in args]
    for a, d in zip(args, shadows):
        call += [a, d]
    ours_ns["grad_f"](*call)
    theirs_ns: dict = {"np": anp}
    exec(source.replace("import numpy as np\n", ""), theirs_ns)
    for k, d in enumerate(shadows):
        want = autograd.grad(theirs_ns["f"], k)(*args)
        np.testing.assert_allclose(d, want, rtol=1e-10, atol=1e-12)


SLICE_TAKE_IR = """module "arrays.py"

func @g(%A: array<f64,2>, %p: array<f64,1>, %idx: array<i64,1>, %d: array<f64,2>, %dp: array<f64,1>) -> f64 {
  %c1 = const() {value = 1} : i64
  %j = const() {value = 2} : i64
  %n = dim(%A) {axis = 0} : i64
  %m1 = const() {value = -1} : i64
  %hi = add(%n, %m1) : i64
  %inner = arr.slice(%A, %c1, %hi, %j) {axes = ["r", "i"]} : array<f64,1>
  %q = arr.take(%p, %idx) : array<f64,1>
  arr.accum_slice(%d, %inner, %c1, %hi, %j) {axes = ["r", "i"]}
  arr.accum_take(%dp, %idx, %q)
  %s = arr.sum(%inner) : f64
  return(%s)
}
"""


def test_slice_and_take_round_trip_verify_and_run():
    module = parse_module(SLICE_TAKE_IR)
    verify_module(module)
    text = print_module(module)
    assert print_module(parse_module(text)) == text
    rng = np.random.default_rng(3)
    A, p = rng.normal(size=(4, 5)), rng.normal(size=3)
    idx = np.array([0, 2, 2, 1, 2])
    d, dp = np.zeros((4, 5)), np.zeros(3)
    got = Interpreter(module).call("g", A, p, idx, d, dp)
    assert got == pytest.approx(A[1:-1, 2].sum())
    want_d = np.zeros((4, 5))
    want_d[1:-1, 2] = A[1:-1, 2]
    np.testing.assert_array_equal(d, want_d)
    np.testing.assert_allclose(dp, [p[0], p[1], 3 * p[2]])  # repeated indices add up


def test_writing_into_a_view_it_cannot_follow_is_rejected():
    # e = np.exp(x); e[0] = 1.0 writes into a copy (golden/array_copy_then_write); a slice is a
    # NumPy view, which a write would change the viewed array through: a tail (x[1:]) is the
    # IR's view of x (tests/test_row_views.py), a part with an end is none.
    text = _diagnose("""
        import numpy as np


        def f(x: "f64[n]"):
            e = x[1:4]
            e[0] = 1.0
            return np.sum(e)
    """)
    assert "prog.py:7:5: error: 'e' is a NumPy view of another array" in text


# A loop that writes into a view in place (v += x, r *= 2.0) once copied the view into an array of
# its own at the loop's entry, so the viewed array never changed: a silently wrong gradient (grad
# of 'pass'). A row (v = u[1]) and a vector's tail (v = u[1:]) are views of u's memory, which the
# writes reach (tests/test_row_views.py); other views are the same located error as outside a loop.
VIEW_WRITTEN_IN_A_LOOP = {
    "for": "    v = u[1:]\n    for _ in range(2):\n        v += x\n",
    "while": "    v = u[1:]\n    i = 0\n    while i < 2:\n        v *= x\n        i += 1\n",
    "nested": "    v = u[:, 1:]\n    for _ in range(2):\n        for _ in range(2):\n            v += x\n",
}


@pytest.mark.parametrize("view", ["u[1]", "u[1, 1:]"])
def test_a_row_written_in_place_in_a_loop_writes_the_array(view):
    source = ("import numpy as np\n\n\ndef f(x: float):\n    u = np.ones((3, 3))\n    v = " + view + "\n"
              "    for _ in range(2):\n        v -= x\n    return np.sum(u * u)\n")
    check_source(source, ["x"], [num("x")])


@pytest.mark.parametrize("case", ["for", "while"])
def test_a_tail_written_in_place_in_a_loop_writes_the_array(case):
    check_source(f"import numpy as np\n\n\ndef f(x: float):\n    u = np.ones(3)\n{VIEW_WRITTEN_IN_A_LOOP[case]}"
                 "    return np.sum(u * u)\n", ["x"], [num("x")])


def test_a_view_written_in_place_in_a_loop_is_rejected():
    # (u[:, 1:] would be the IR's view of u's rows from 1 on: no tail of a vector)
    text = _diagnose(f"import numpy as np\n\n\ndef f(x: float):\n    u = np.ones((3, 3))\n"
                     f"{VIEW_WRITTEN_IN_A_LOOP['nested']}    return np.sum(u * u)\n")
    assert "error: 'v' is a NumPy view of another array" in text and "v " in text.splitlines()[1], text


# What a loop writes into in place through another name of the same array, or a parameter's, is
# that array's (each against central differences).
IN_PLACE_IN_A_LOOP = """
import numpy as np


def alias(x: float, y: "f64[n]"):
    u = y.copy()
    w = u
    for _ in range(2):
        w += x * u
    return np.sum(u * u)


def param(x: float, y: "f64[n]"):
    for _ in range(2):
        y *= x
    return np.sum(y * y)


def mixed(x: float, y: "f64[n]"):
    u = y * 2.0
    for _ in range(3):
        u += x
        u = u * u
    return np.sum(u)
"""


@pytest.mark.parametrize("func", ["alias", "param", "mixed"])
def test_an_array_written_in_place_in_a_loop_is_the_array_itself(func):
    from source_gradients import arr, check_source, num

    check_source(IN_PLACE_IN_A_LOOP, ["x", "y"], [num("x"), arr("y", 4)], func=func)


@pytest.mark.parametrize("case", ["array_mlp_loss", "array_slicing_conv2d", "array_fancy_index", "array_reductions"])
def test_gradient_ir_runs_in_the_interpreter_like_the_emitted_python(case):
    """The adjoint IR itself (accumulations, slices, scatter-adds) agrees with its Python output."""
    import json
    from pathlib import Path

    folder = Path(__file__).resolve().parent.parent / "golden" / case
    spec = json.loads((folder / "case.json").read_text())
    source = (folder / "input.py").read_text()
    module = pipeline.gradient_module(source, "input.py", spec["func"], spec["wrt"])
    namespace: dict = {}
    exec(pipeline.gradient_source(source, "input.py", spec["func"], spec["wrt"], "py"), namespace)
    rng = np.random.default_rng(4)
    args_ir, args_py = [], []
    for p in spec["params"]:
        if p["kind"] == "int":
            value = p["value"]
        elif p["kind"] == "float":
            value = float(rng.uniform(0.5, 1.5))
        elif p.get("dtype") == "i64":
            value = rng.integers(*p["ints"], size=p["shape"])
        else:
            value = rng.uniform(0.5, 1.5, size=p["shape"])
        for args in (args_ir, args_py):
            args.append(value.copy() if isinstance(value, np.ndarray) else value)
            if p["name"] in spec["wrt"] and p["kind"] == "array":
                args.append(np.zeros(p["shape"]))
    got = Interpreter(module).call(f"grad_{spec['func']}", *args_ir, 1.0)
    want = namespace[f"grad_{spec['func']}"](*args_py)
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float), rtol=1e-12)
    for a, b in zip(args_ir, args_py):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


MASK_IN_A_LOOP = """
import numpy as np


def f(x: "f64[n]", y: "f64[n]", n: int):
    s0 = 0.5
    p2 = 1
    for i1 in range(1, n):
        for i3 in range(0, n, p2):
            if (0.5 < 0.75):
                s0 += np.sum(np.where(x > x, x, x)[1:] * np.where(x > x, x, x)[:-1])
                s0 -= np.mean(np.where((x - s0) > np.where(x > x, x, x), x, x))
        y[0] += x[i1]
    return s0
"""


READ_THEN_WRITTEN = """
import numpy as np


def f(x: "f64[n]", y: "f64[n]", n: int):
    s = np.sum(x * x)
    x[0] = 2.0
    return s
"""

READ_IN_A_LOOP_THAT_WRITES = """
import numpy as np


def f(x: "f64[n]", y: "f64[n]", n: int):
    s = 0.5
    for i in range(n):
        s += np.sum(np.tanh(x)) * s + np.sum(x * x)
        x[i] = 2.0 * x[i]
    return s
"""

# Fuzz seed 6000050, shrunk (its branch made to run): np.where's mask compares x with s0, which
# the loop changes, so each reversed iteration needs its own mask.
MASK_IN_A_LOOP = """
import numpy as np


def f(x: "f64[n]", y: "f64[n]", n: int):
    s0 = 0.5
    p2 = 1
    for i1 in range(1, n):
        for i3 in range(0, n, p2):
            if (0.5 < 0.75):
                s0 += np.sum(np.where(x > x, x, x)[1:] * np.where(x > x, x, x)[:-1])
                s0 -= np.mean(np.where((x - s0) > np.where(x > x, x, x), x, x))
        y[0] += x[i1]
    return s0
"""


@pytest.mark.parametrize("level", [0, 2])
@pytest.mark.parametrize("source, written", [(READ_THEN_WRITTEN, set()), (READ_IN_A_LOOP_THAT_WRITES, set()),
                                             (MASK_IN_A_LOOP, {"y"})],
                         ids=["read_then_written", "read_in_a_loop_that_writes", "mask_in_a_loop"])
def test_arrays_a_whole_array_op_reads_before_they_change_are_kept(source, written, level):
    """A whole-array op's adjoint reads its arrays as they were: the forward sweep copies those
    that change later (each iteration's in an array tape), where these were located errors."""
    from fd import ParamSpec, check_gradient

    text = pipeline.gradient_source(source, "prog.py", "f", ["x"], "py", pipeline.Options(level=level))
    namespace: dict = {}
    exec(text, namespace)
    primal: dict = {}
    exec(source, primal)
    params = [ParamSpec("x", "array", (4,)), ParamSpec("y", "array", (4,)), ParamSpec("n", "int", value=4)]
    check_gradient(primal["f"], namespace["grad_f"], params, ["x"], written, np.random.default_rng(11))


UFUNC_DOMAINS = {
    "exp": (-1, 1), "log": (0.5, 2), "sqrt": (0.5, 2), "sin": (-1, 1), "cos": (-1, 1), "tan": (-1, 1),
    "tanh": (-1, 1), "sinh": (-1, 1), "cosh": (-1, 1), "expm1": (-1, 1), "log1p": (-0.5, 1),
    "arctan": (-1, 1), "arcsin": (-0.8, 0.8), "abs": (0.1, 1),
}


@pytest.mark.parametrize("fn", sorted(UFUNC_DOMAINS))
def test_each_ufunc_rule_matches_central_differences(fn):
    lo, hi = UFUNC_DOMAINS[fn]
    source = f'import numpy as np\n\n\ndef f(x: "f64[n]", w: "f64[n]"):\n    return np.sum(np.{fn}(x) * w)\n'
    namespace: dict = {}
    exec(pipeline.gradient_source(source, "f.py", "f", ["x"], "py"), namespace)
    primal_ns: dict = {}
    exec(source, primal_ns)
    rng = np.random.default_rng(5)
    x, w = rng.uniform(lo, hi, size=4), rng.normal(size=4)
    d_x = np.zeros(4)
    namespace["grad_f"](x, d_x, w)
    h = 1e-6
    fd = [(primal_ns["f"](x + h * e, w) - primal_ns["f"](x - h * e, w)) / (2 * h) for e in np.eye(4)]
    np.testing.assert_allclose(d_x, fd, rtol=1e-6, atol=1e-8)


def test_the_memory_report_counts_an_array_tape_by_its_length():
    lines: list[str] = []
    pipeline.gradient_source(READ_IN_A_LOOP_THAT_WRITES, "prog.py", "f", ["x"], "py", pipeline.Options(report=True),
                             lines)
    stack = [line for line in lines if "B x its length" in line]
    assert stack and "x iterations of line 7" in stack[0], lines


# Axes of extent 1 the code makes (a reshape to 1, an allocation of 1, the transpose of a keepdims
# column) and NumPy then stretches: their adjoint sums over the stretched axis. Found by a probe:
# the kernel's d_Y was wrong wherever X's rows were as many as Y's columns (a broadcast_to then
# took the unsummed adjoint), and the reshaped outer sums failed in the gradient.
UNIT_AXES = {
    "kernel_of_keepdims_columns": ("""
        def f(X, Y, ell: float):
            xx = (X * X).sum(axis=1, keepdims=True)
            yy = (Y * Y).sum(axis=1, keepdims=True)
            D = xx - 2 * X @ Y.T + yy.T
            return np.exp(-D / ell).sum()
    """, ["X", "Y", "ell"], [("X", (3, 3)), ("Y", (4, 3))]),
    "outer_sum_of_reshapes": ("""
        def f(a: "f64[n]", b: "f64[m]"):
            return np.sum((a.reshape(-1, 1) + b.reshape(1, -1)) ** 2) + np.sum(a * b.reshape((1, -1)).T[:4, 0])
    """, ["a", "b"], [("a", (4,)), ("b", (5,))]),
    "new_axes_pairwise": ("""
        def f(x, m, X):
            d = x[:, None] - x[None, :]
            diff = X[:, np.newaxis, :] - X[np.newaxis, :, :]
            w = np.exp(-np.sum(diff**2, axis=-1))
            return np.sum(m[:, np.newaxis] * m[None] / (d * d + 1.0)) + np.sum(w * X[..., 0, None])
    """, ["x", "m", "X"], [("x", (4,)), ("m", (4,)), ("X", (4, 2))]),
    "new_axis_of_a_reduction_and_a_column": ("""
        def f(X, Y, A, ell: float):
            D = np.sum(X**2, axis=1)[:, np.newaxis] + np.sum(Y**2, axis=1) - 2 * X @ Y.T
            return np.sum(np.exp(-D / ell)) + np.sum(A[:, 0, None] * A[None, 1, :] * A)
    """, ["X", "Y", "A", "ell"], [("X", (3, 3)), ("Y", (4, 3)), ("A", (3, 3))]),
    "column_of_zeros_stretched": ("""
        def f(X: "f64[n, d]", s: "f64[n]"):
            c = np.zeros((X.shape[0], 1)) + s.reshape(-1, 1)
            return np.sum((X * c) ** 2)
    """, ["X", "s"], [("X", (4, 3)), ("s", (4,))]),
    # A slice one long (s[:, :1], s[j:j + 1]): its adjoint accumulated into a slice of that shape
    # failed in the gradient (NumPy's broadcast error).
    # fuzz seed 13103312 (C output): the adjoint of a keepdims row (``np.sum(A.T, axis=1,
    # keepdims=True).T``) summed to its shape, transposed, then broadcast back, read its element at
    # the broadcast index instead of 0 on the unit axis (d_b 0.6% off at 3x6).
    "summed_row_transposed_back": ("""
        def f(x: "f64[n]", W: "f64[m, n]", b: float):
            return np.mean(np.outer(W @ x, x) * np.sum((W + b).T, axis=1, keepdims=True).T)
    """, ["x", "W", "b"], [("x", (6,)), ("W", (3, 6))]),
    "slices_one_long": ("""
        def f(S: "f64[m, n]", T: "f64[m, n]"):
            j = 1
            return np.sum(np.exp(S) * S[:, :1]) + np.sum(T * S[:, 1:2]) + np.sum(T * S[j:j + 1, :])
    """, ["S", "T"], [("S", (3, 4)), ("T", (3, 4))]),


    # fuzz seed 13103314: a keepdims row made in a branch of a loop, taped for the reverse sweep,
    # came back as an array of unknown extents, and the adjoint of what it stretched was not
    # summed over the stretched axis (a NumPy reshape error; silently wrong where shapes allowed).
    "row_taped_in_a_branch": ("""
        def f(x: "f64[n]", y: "f64[n]", W: "f64[n, n]", b: float):
            s = 1.0
            for i in range(1, 4):
                if b > 0.1:
                    s = np.sum(W)
                    y[i] *= np.max((W @ x)[:, None] * ((W @ x) @ W + s)[None, :])
            return np.sum(y)
    """, ["x", "y", "b"], [("x", (6,)), ("y", (6,)), ("W", (6, 6))]),
    # A slice one long between a value and itself less one (y[i - 1:i]), taped from a branch: its
    # adjoint was as long as x (a NumPy error; a C gradient read past the slice).
    "slice_before_index_in_a_branch": ("""
        def f(x: "f64[n]", y: "f64[n]"):
            for i in range(1, 5):
                if i % 2 == 0:
                    s = y[i - 1:i] * 2.0
                    y[i] = np.sum(s * x)
                    y[i - 1] = 0.5
            return np.sum(y * y)
    """, ["x", "y"], [("x", (6,)), ("y", (6,))]),
    # A helper's keepdims result, not inlined (-O0): the call's result takes its unit axes.
    "row_from_a_helper": ("""
        def center(z):
            return np.max(z, axis=1, keepdims=True)


        def f(z: "f64[m, n]"):
            return np.sum(np.exp(z - center(z)) * z)
    """, ["z"], [("z", (4, 5))]),
}


@pytest.mark.parametrize("case", list(UNIT_AXES))
def test_the_adjoint_of_a_stretched_axis_of_extent_one_sums_over_it(case):
    from source_gradients import HEADER, arr, check_source, num

    source, wrt, shapes = UNIT_AXES[case]
    arrays = dict(shapes)
    params = [arr(name, *shape) for name, shape in shapes] + [num(n, 0.5, 2.0) for n in ("ell", "b")
                                                              if n in wrt and n not in arrays]
    for target in ("py", "numba"):
        for level in (0, 2):
            check_source(HEADER + textwrap.dedent(source), wrt, params, target, level)


def test_a_new_axis_after_one_element_is_a_located_error():
    source = "import numpy as np\n\n\ndef f(A: \"f64[n, m]\"):\n    return np.sum(A[0, 1, None] * A)\n"
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(source, "prog.py", "f", ["A"], "py")
    text = info.value.render()
    assert "prog.py:5:19: error: a new axis (None, np.newaxis) after indexing a single element is not " \
        "supported" in text, text


# np.arange, np.linspace, np.eye: new arrays a loop fills as NumPy computes them (linspace's values
# are arithmetic of its ends, whose adjoints follow).
MADE_ARRAYS = """
import numpy as np


def trapz(a: float, b: float, n: int):
    t = np.linspace(a, b, n)
    y = np.exp(-t * t) * b
    h = (b - a) / (n - 1)
    return h * (np.sum(y) - 0.5 * (y[0] + y[-1])) + np.sum(np.linspace(a, 2.0 * b, num=4, endpoint=False) ** 2)


def arange_poly(c, x: float):
    k = np.arange(len(c))
    return np.sum(c * x**k) + np.sum(np.arange(0.5, 3.0, 0.5) * c[0]) + np.sum(np.arange(1, 7, 2) * x)


def ridge(A, lam: float):
    M = A.T @ A + lam * np.eye(A.shape[0]) + np.identity(3)
    return np.trace(M @ M)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("func, wrt, params", [
    ("trapz", ["a", "b"], [("num", "a", -1.0, 0.0), ("num", "b", 0.5, 1.5), ("count", "n", 7)]),
    ("arange_poly", ["c", "x"], [("arr", "c", 4), ("num", "x", 0.5, 1.5)]),
    ("ridge", ["A", "lam"], [("arr", "A", 3, 3), ("num", "lam", 0.5, 1.5)]),
])
def test_arange_linspace_and_eye_are_arrays_of_their_values(func, wrt, params, target):
    import source_gradients as sg

    specs = [getattr(sg, kind)(*rest) for kind, *rest in params]
    sg.check_source(MADE_ARRAYS, wrt, specs, target, func=func)


def test_a_number_spread_over_an_integer_arrays_shape_stays_a_float():
    """np.full_like(idx, d_return) of an integer idx made the seed 0.5 an integer 0: the adjoint of
    np.sum(idx * x) was 0 (found with np.arange's values)."""
    source = 'import numpy as np\n\n\ndef f(idx: "i64[n]", x: float):\n    return np.sum(idx * x)\n'
    text = pipeline.gradient_source(source, "prog.py", "f", ["x"], "py")
    namespace: dict = {}
    exec(compile(text, "<grad>", "exec"), namespace)
    assert namespace["grad_f"](np.array([1, 2, 3]), 2.0, d_return=0.5) == 3.0


# An integer parameter that indexes an array (``x[idx]``) may be an array of integers, which NumPy
# gathers with, repeats included: taken for one integer without a check, the gradient added
# ``d_x[idx] += ...`` (NumPy adds a repeated index once) and was silently wrong for repeats.
GATHER = """
import numpy as np


def f(x, idx):
    return np.sum(x[idx] ** 2)
"""


def test_an_integer_indexing_an_array_is_checked_and_an_index_array_gathers_with_repeats():
    from fd import ParamSpec
    from source_gradients import check_source

    text = pipeline.gradient_source(GATHER, "prog.py", "f", ["x"], "py")
    assert 'idx must be an integer: its rank is not evident in f (for an array, annotate idx: "i64[n]")' in text
    namespace: dict = {}
    exec(compile(text, "<grad>", "exec"), namespace)
    with pytest.raises(ValueError, match="idx must be an integer"):
        namespace["grad_f"](np.ones(4), np.zeros(4), np.array([0, 0, 1]))
    annotated = GATHER.replace("def f(x, idx):", 'def f(x, idx: "i64[m]"):')
    params = [ParamSpec("x", "array", (4,)), ParamSpec("idx", "array", (6,), dtype="i64", ints=(0, 2))]
    text = check_source(annotated, ["x"], params, "py")
    assert "np.add.at(d_x, idx, " in text
    # one that counts a range is one integer (an array there fails in the primal): no check
    counted = "def f(x, k):\n    s = 0.0\n    for i in range(k):\n        s += x[k] * x[i]\n    return s\n"
    assert "k must be" not in pipeline.gradient_source(counted, "prog.py", "f", ["x"], "py")


# Integer-array indexing with an index per axis (logp[np.arange(n), labels]: each row's entry at
# its label, the cross-entropy of classification), a number among the indices standing for an
# array of it (logp[labels, 0]); a parameter beside np.arange there is an integer array (its rank
# checked). Repeated pairs add up in the adjoint (np.add.at, or Numba's loop over every element).
MULTI_GATHER = """
import numpy as np


def f(logits, labels):
    n = logits.shape[0]
    logp = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.mean(logp[np.arange(n), labels]) + np.sum(logp[labels, 0] ** 2)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("level", [0, 2])
def test_an_index_array_per_axis_gathers_and_its_adjoint_scatters(target, level):
    from fd import ParamSpec
    from source_gradients import check_source

    params = [ParamSpec("logits", "array", (5, 3)), ParamSpec("labels", "array", (5,), dtype="i64", ints=(0, 3))]
    text = check_source(MULTI_GATHER, ["logits"], params, target, level)
    assert "labels must be a 1-D array" in text
    if target == "py":
        assert "np.add.at(d_logp, (" in text


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_an_index_array_per_axis_in_c_output_matches_python():
    import ctypes

    from cbuild import build

    annotated = MULTI_GATHER.replace("def f(logits, labels):", 'def f(logits: "f64[m, k]", labels: "i64[m]"):')
    py_text = pipeline.gradient_source(annotated, "prog.py", "f", ["logits"], "py")
    c_text = pipeline.gradient_source(annotated, "prog.py", "f", ["logits"], "c")
    assert "void grad_f(double *logits, double *d_logits, long *labels, long m, long k, double d_return)" in c_text
    logits = np.random.default_rng(3).normal(size=(4, 3))
    labels = np.array([2, 0, 2, 1], dtype=np.int64)  # a repeated label: the pairs add up
    want = np.zeros((4, 3))
    namespace: dict = {}
    exec(compile(py_text, "<grad>", "exec"), namespace)
    namespace["grad_f"](logits, want, labels, 0.7)
    got = np.zeros((4, 3))
    pointer = np.ctypeslib.ndpointer
    fn = build(c_text).grad_f
    fn.argtypes = [pointer(np.float64), pointer(np.float64), pointer(np.int64), ctypes.c_long, ctypes.c_long,
                   ctypes.c_double]
    fn(np.ascontiguousarray(logits), got, labels, 4, 3, 0.7)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


# Boolean masks (x[x > 0], r[valid] with valid = (y > -1.0) & ~(y > 0.8)): the entries picked, as
# NumPy picks them; the adjoint adds back into those entries (d_x[m] += g). Masks combine with
# & | ^ ~, spelled so in the output.
MASKS = """
import numpy as np


def f(x, r: "f64[n]", y: "f64[n]"):
    valid = (y > -1.0) & ~(y > 0.8) | (r > 0.9) ^ (r < -0.9)
    return np.sum(x[x > 0] ** 2) + np.mean((r[valid] - y[valid]) ** 2)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("level", [0, 2])
def test_a_boolean_mask_picks_entries_and_its_adjoint_adds_back_into_them(target, level):
    from source_gradients import arr, check_source

    text = check_source(MASKS, ["x", "r", "y"], [arr("x", 6), arr("r", 7), arr("y", 7)], target, level)
    assert "valid = ((y > -1.0) & ~(y > 0.8)) | ((r > 0.9) ^ t0)" in text, text
    assert "d_r[valid] += " in text


def test_a_boolean_mask_in_c_output_is_a_located_error():
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(MASKS.replace("def f(x, r", 'def f(x: "f64[n]", r'), "prog.py", "f", ["r"], "c")
    text = info.value.render()
    assert "prog.py:7:" in text and "indexing with a boolean array (x[x > 0]) is not supported for C output" in text


# np.cumprod of a vector: a loop fills the running product, so its adjoint is the loop's, right
# where an entry is 0 (a rule dividing by x[k] would give nan there).
CUMPROD = """
import numpy as np


def f(r):
    wealth = np.cumprod(1.0 + r)
    return wealth[-1] + np.sum(wealth * wealth)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("level", [0, 2])
def test_cumprod_is_a_running_product_whose_adjoint_is_right_at_zero(target, level):
    from source_gradients import arr, check_source

    text = check_source(CUMPROD, ["r"], [arr("r", 6)], target, level)
    namespace: dict = {}
    exec(compile(text, "<grad>", "exec"), namespace)
    grad = namespace["grad_f"] if target == "py" else namespace["grad_f"].py_func
    r = np.array([0.5, -1.0, 2.0, -0.5])  # 1 + r[1] is 0
    d_r = np.zeros(4)
    grad(r, d_r)

    def f(v):
        w = np.cumprod(1.0 + v)
        return w[-1] + np.sum(w * w)

    h = 1e-6
    want = [(f(r + h * e) - f(r - h * e)) / (2 * h) for e in np.eye(4)]
    np.testing.assert_allclose(d_r, want, rtol=1e-6, atol=1e-8)


# np.sort of a vector: the entries in the order a stable argsort gives, a gather whose adjoint adds
# each sorted entry's adjoint back where it came from. C output refuses it.
SORTED = """
import numpy as np


def f(x):
    xs = np.sort(x)
    return np.sum(xs * np.arange(len(x))) + np.sum(xs[:2] ** 2)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("level", [0, 2])
def test_sort_is_a_gather_by_a_stable_argsort(target, level):
    from source_gradients import arr, check_source

    text = check_source(SORTED, ["x"], [arr("x", 7)], target, level)
    assert 'np.argsort(x, kind="mergesort")' in text


def test_sort_in_c_output_is_a_located_error():
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(SORTED.replace("def f(x):", 'def f(x: "f64[n]"):'), "prog.py", "f", ["x"], "c")
    assert "prog.py:6:10: error: np.sort is not supported for C output yet" in info.value.render()
