"""Ranks of unannotated NumPy parameters: proven from the code, or checked at the gradient's entry.

NumPy code is rarely annotated, and whole-array use does not tell a parameter's
rank (``W @ x + b`` works with a scalar, a vector or a matrix ``b``). Type
inference marks each rank it had to assume (``attrs["assumed"]`` of the primal,
0 for a number); the entry gradient checks them and raises ``ValueError`` naming
the parameter, so that a guess is never silently wrong (issue 14, classes 1 and 9).
Only where the generated code depends on the guess: a rank-free array (``np.sum(W)``)
and a parameter never read need no check. C and CUDA output check nothing at run time,
so there every assumed kind is a located error naming the annotation.
"""

from __future__ import annotations

import re

import textwrap

import numpy as np
import pytest
from fd import ParamSpec, central_difference, check_gradient
from source_gradients import check_command

from s2sad.pipeline import parse_source
from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError

HEADER = "import math\n\nimport numpy as np\n\n\n"


def assumed(source: str, func: str) -> dict:
    module = parse_source(HEADER + textwrap.dedent(source), "prog.py", func)
    return module.functions[func].attrs.get("assumed", {})


def gradient(source: str, func: str, wrt: list[str], target: str = "py"):
    text = pipeline.gradient_source(HEADER + textwrap.dedent(source), "prog.py", func, wrt, target)
    namespace: dict = {}
    exec(compile(text, f"<grad_{func}>", "exec"), namespace)
    return namespace[f"grad_{func}"], text


def primal(source: str, func: str):
    namespace: dict = {}
    exec(compile(HEADER + textwrap.dedent(source), "<primal>", "exec"), namespace)
    return namespace[func]


MLP = """
def f(W, b, x):
    return np.sum(np.tanh(W @ x + b))
"""

DOT = """
def g(x, W):
    return np.sum(np.tanh(np.dot(x, W)))
"""

EXP = """
def e(x):
    return np.exp(x)
"""


ROW_OF_A_COPY = "def f(A, v):\n    B = A.copy()\n    B[0, :] += v\n    return np.sum(B ** 2)\n"
COVARIANCE = "def f(A):\n    c = A - A.mean(axis=0)\n    cov = c.T @ c\n    return np.trace(cov)\n"
PAIR_DIFFERENCES = "def f(X):\n    r = X[1:] - X[0]\n    return np.sum(np.sum(r * r, axis=1) ** -3)\n"
# Two reductions of X along one axis met elementwise: alike, X a matrix (it was taken for 3-D, as
# in A - A.mean(axis=0); probe round 10)
TWO_REDUCTIONS = "def f(X):\n    return np.sum(np.min(X, axis=0) * np.prod(X, axis=0))\n"


@pytest.mark.parametrize("source, wrt, shapes", [
    (ROW_OF_A_COPY, ["A"], [("A", (3, 4)), ("v", ())]),
    (COVARIANCE, ["A"], [("A", (5, 3))]),
    (PAIR_DIFFERENCES, ["X"], [("X", (4, 3))]),
    (TWO_REDUCTIONS, ["X"], [("X", (4, 3))]),
])
def test_ranks_from_what_is_done_with_a_derived_value_give_right_gradients(source, wrt, shapes):
    from source_gradients import arr, check_source, num

    params = [arr(n, *shape) if shape else num(n) for n, shape in shapes]
    check_source(HEADER + source, wrt, params)


# ------------------------------------------------------------------ what inference assumes
@pytest.mark.parametrize(
    "source, func, expected",
    [
        (MLP, "f", {"W": 2, "b": 0, "x": 1}),
        (DOT, "g", {"x": 1, "W": 2}),  # a vector times a matrix, as the names write it (py_products)
        (EXP, "e", {"x": 0}),
        # other operations whose adjoint depends on the operand's rank
        ("def f(A):\n    return np.sum(A, axis=0) * 2.0\n", "f", {"A": 1}),
        ("def f(x):\n    return np.mean(x)\n", "f", {"x": 1}),
        ("def f(u, v):\n    return np.sum(np.outer(u, v) ** 2)\n", "f", {"u": 1, "v": 1}),
        ("def f(A, v):\n    return np.sum(A.T * v)\n", "f", {"A": 2, "v": 0}),
        ("def f(x):\n    return np.sum(x.reshape(2, -1) ** 2)\n", "f", {"x": 1}),
        ("def f(x):\n    return np.sum((x[1:] - x[:-1]) ** 2)\n", "f", {"x": 1}),
        ("def f(A, j: int):\n    return np.sum(A[:, j] ** 2)\n", "f", {"A": 2}),
        ("def f(x, c):\n    return np.sum(np.where(x > 0.0, x, c)) + np.sum(x)\n", "f", {"x": 1, "c": 0}),
        ("def f(x, c):\n    return np.mean(np.maximum(x, c)) + np.mean(x)\n", "f", {"x": 1, "c": 0}),
        ("def f(x, a):\n    y = a * 2.0\n    return np.sum(x * y) + np.sum(x)\n", "f", {"x": 1, "a": 0}),
        ("def f(x, a):\n    return np.sum(x) * math.exp(a)\n", "f", {"x": 1}),
        ("def f(x, a):\n    if a > 0.0:\n        return np.sum(x * a)\n    return np.sum(x)\n", "f", {"x": 1}),
        # a part of an array takes a number or an array of its shape (found by a probe: v had no check)
        ("def f(A, v):\n    A[1, :] += v\n    return np.sum(A ** 2)\n", "f", {"A": 2, "v": 0}),
        ("def f(x, v):\n    x[2:] = v\n    return np.sum(x ** 2)\n", "f", {"x": 1, "v": 0}),
        # elements picked by an index array or a mask too (probe round 9: y[idx] += x with an
        # array x gave its adjoint summed to one number, unchecked)
        ('def f(x, idx: "i64[n]"):\n    y = np.zeros(3)\n    y[idx] += x\n    return np.sum(y ** 2)\n', "f",
         {"x": 0}),
        ("def f(x, v):\n    x[x > 0.0] = v\n    return np.sum(x ** 2)\n", "f", {"x": 1, "v": 0}),
        # needs that travel through a copy, a transpose, a product and parts of one array (probes)
        (ROW_OF_A_COPY, "f", {"A": 2, "v": 0}),
        (COVARIANCE, "f", {"A": 2}),
        (PAIR_DIFFERENCES, "f", {"X": 2}),
    ],
)
def test_unproven_ranks_are_marked(source, func, expected):
    got = assumed(source, func)
    assert got == expected
    assert list(got) == [n for n in got]  # parameter order


@pytest.mark.parametrize(
    "source, func",
    [
        ('def f(W: "f64[m, n]", b: "f64[m]", x: "f64[n]"):\n    return np.sum(np.tanh(W @ x + b))\n', "f"),
        ("def f(A):\n    n, m = A.shape\n    return np.sum(A.T @ A) + n * m\n", "f"),
        ("def f(x, n: int):\n    s = 0.0\n    for i in range(n):\n        s += x[i] ** 2\n    return s\n", "f"),
        ("def f(A, n: int):\n    s = 0.0\n    for i in range(n):\n        s += A[i, 0] * np.sum(A.T)\n    return s\n",
         "f"),
        ("def f(x, a):\n    return math.exp(a) * x[0]\n", "f"),
        ("def f(x):\n    return math.sin(x) * x\n", "f"),
        ("def f(x, y):\n    return abs(y) * max(x, -y, 0.5)\n", "f"),
    ],
)
def test_proven_ranks_are_not_marked(source, func):
    assert assumed(source, func) == {}


def test_a_callee_that_assumes_a_rank_makes_the_caller_assume_it():
    source = """
    def h(v):
        return np.sum(v.T @ v)


    def f(x):
        return h(x)
    """
    assert assumed(source, "h") == {"v": 2}
    assert assumed(source, "f") == {"x": 2}
    proven = source.replace("def h(v):", 'def h(v: "f64[n, n]"):')
    assert assumed(proven, "f") == {}


AFFINE = """
def affine(x, a, c):
    return a * x + c


def chain(a, c, x, y):
    z = affine(x, a, c)
    return np.mean((z - y) ** 2)
"""


def test_values_a_helper_carries_reach_what_its_result_meets():
    # a, c and x reach np.mean only through affine's value: each may be an array there, which the
    # IR, typing chain's values as numbers, takes np.mean of as the number itself. Unchecked, the
    # gradient for arrays x and y was silently wrong (np.mean's 1 / n lost, d_a an array).
    assert assumed(AFFINE, "chain") == {"a": 0, "c": 0, "x": 0, "y": 0}
    grad, text = gradient(AFFINE, "chain", ["a", "c"])
    assert "sum_to_shape" not in text  # checked numbers, not served at any shape (np.mean of a number)
    with pytest.raises(ValueError, match="must be a number"):
        grad(0.5, 0.25, np.ones(3), np.ones(3))
    d_a, d_c = grad(0.5, 0.25, 1.5, 2.0)
    z = 0.5 * 1.5 + 0.25
    assert d_a == pytest.approx(2 * (z - 2.0) * 1.5) and d_c == pytest.approx(2 * (z - 2.0))


# ------------------------------------------------------------------ the generated checks
def test_the_mlp_bias_is_shape_generic():
    """``W @ x + b`` works with a number or a vector ``b``: no rank check, but a check of its axes,
    and its shadow (tests/test_shape_generic.py checks the gradients)."""
    grad, text = gradient(MLP, "f", ["W", "b", "x"])
    assert "np.ndim(b) != 0" not in text and "np.ndim(b) > 1" in text
    W, x, b = np.ones((3, 2)), np.ones(2), np.ones((3, 3))
    with pytest.raises(ValueError, match=r"b may be a number or an array of up to 1 axis in f, not 2"):
        grad(W, np.zeros_like(W), b, np.zeros_like(b), x, np.zeros_like(x))


def test_the_numba_mlp_bias_is_shape_generic_too():
    """Numba compiles the gradient for each kind of argument: ``b`` is a number or a vector there
    too, its axes checked as Numba compiles (tests/test_shape_generic.py checks the gradients)."""
    grad, text = gradient(MLP, "f", ["W", "b", "x"], "numba")
    assert 'hasattr(b, "ndim") and b.ndim > 1' in text and "b.ndim != 0" not in text
    W, x, b = np.ones((3, 2)), np.ones(2), np.ones((3, 3))
    with pytest.raises(ValueError, match=r"b may be a number or an array of up to 1 axis in f"):
        grad(W, np.zeros_like(W), b, np.zeros_like(b), x, np.zeros_like(x))


def test_the_dot_gradient_refuses_a_matrix_left_operand():
    grad, _ = gradient(DOT, "g", ["x", "W"])
    x, W = np.ones((2, 3)), np.ones((3, 2))
    with pytest.raises(ValueError, match="x must be a 1-D array"):
        grad(x, np.zeros_like(x), W, np.zeros_like(W))


SELF_DOT = """
def f(x):
    return np.dot(x, x)
"""


@pytest.mark.parametrize("wrong", [np.ones((3, 3)), 1.5, np.ones((2, 2, 2))], ids=["matrix", "number", "3-D"])
def test_the_numba_check_stops_a_rank_the_gradient_does_not_compile_for(wrong):
    """Fuzzer seed 10200408: Numba types a whole function before any of it runs, so the adjoint
    of ``np.dot(x, x)``, written for the matrix ``x`` was then taken for, failed to compile for a
    vector or a number (a TypingError in ``np.expand_dims``) before the check could raise. The
    checks are decided as Numba compiles, and the gradient is compiled only when they hold (``x``
    is now taken for a vector, ``py_products``: the other ranks are the wrong ones)."""
    grad, _ = gradient(SELF_DOT, "f", ["x"], "numba")
    for seed in range(2):  # right at the assumed rank
        check_gradient(primal(SELF_DOT, "f"), grad, [ParamSpec("x", "array", (3,))], ["x"], set(),
                       np.random.default_rng(seed))
    with pytest.raises(ValueError, match=r'x must be a 1-D array.*annotate x: "f64\[m, n\]"'):
        grad(wrong, np.zeros_like(wrong), np.dot(wrong, wrong))


# The gradient assigns t twice, in the forward sweep and again in the reverse sweep, both times
# under n > 0: Numba's literal propagation, which hasattr in the checks sets off, fails on such a
# variable ("'UndefinedType' object has no attribute 'name'"), so the checks are not in its function.
ONE_PATH = """
def f(x, a, n: int):
    s = 0.5
    if n > 0:
        t = math.tanh(a)
        s = np.sum(np.dot(x, x)) * t
    return s * s
"""


def test_the_numba_checks_compile_beside_a_value_set_on_one_path():
    grad, _ = gradient(ONE_PATH, "f", ["x", "a"], "numba")
    params = [ParamSpec("x", "array", (3, 3)), ParamSpec("a", "float"), ParamSpec("n", "int", value=2)]
    for seed in range(2):
        check_gradient(primal(ONE_PATH, "f"), grad, params, ["x", "a"], set(), np.random.default_rng(seed))
    with pytest.raises(ValueError, match="x must be a 2-D array"):
        grad(np.ones(3), np.zeros(3), 0.5, 2)


def test_returning_np_exp_serves_a_number_and_an_array():
    """``return np.exp(x)`` maps any shape: x is shape-generic (adjoint.shape_generic), its adjoint
    added into a shadow of its shape, the seed d_return of the result's shape."""
    grad, _ = gradient(EXP, "e", ["x"])
    d_x = np.zeros(())
    grad(0.5, d_x)
    assert d_x == pytest.approx(np.exp(0.5))
    x, seed = np.array([0.5, 1.0]), np.array([2.0, -1.0])
    d_x = np.zeros(2)
    grad(x, d_x, d_return=seed)
    np.testing.assert_allclose(d_x, seed * np.exp(x))
    with pytest.raises(ValueError, match="d_x must be an array of the shape of x"):
        grad(x, np.zeros(()))


def located(source: str, func: str, wrt: list[str]) -> str:
    with pytest.raises(DiagnosticError) as info:
        gradient(source, func, wrt)
    return "\n".join(d.render(info.value.source_lines) for d in info.value.diagnostics)


def test_annotated_array_return_takes_an_array_d_return():
    grad, text = gradient('def e(x: "f64[n]"):\n    return np.exp(x)\n', "e", ["x"])
    assert "def grad_e(x, d_x, d_return):" in text and "ndim" not in text
    x, d_x, d_return = np.array([0.5, 1.0]), np.zeros(2), np.array([2.0, -1.0])
    grad(x, d_x, d_return)
    np.testing.assert_allclose(d_x, d_return * np.exp(x))


def test_unannotated_matrix_product_result_is_an_array_with_checked_ranks():
    """``W @ x``: W is taken for a matrix and x for a vector (guarded), so the result is a vector."""
    grad, text = gradient("def f(W, x):\n    return np.tanh(W @ x)\n", "f", ["W", "x"])
    assert "def grad_f(W, d_W, x, d_x, d_return):" in text
    W, x = np.ones((2, 3)), np.ones(3)
    with pytest.raises(ValueError, match="W must be a 2-D array"):
        grad(np.ones(3), np.zeros(3), x, np.zeros(3), np.ones(2))
    d_W, d_x = np.zeros_like(W), np.zeros_like(x)
    grad(W, d_W, x, d_x, np.ones(2))
    t = 1.0 - np.tanh(W @ x) ** 2
    np.testing.assert_allclose(d_x, W.T @ t)


def test_the_one_parameter_an_elementwise_reduction_can_take_its_array_from_is_an_array():
    """``np.sum(x * x)``: nothing but ``x`` can make the product an array, so ``x`` is typed one,
    but the sum and its adjoint do not depend on its rank: it is shape-generic, a number or an
    array of any rank, its shadow an array of its shape (checked: a float could not be added
    into). ``np.mean`` divides by the size, so there the rank it assumed is checked."""
    grad, text = gradient("def f(x):\n    return np.sqrt(np.sum(np.exp(x) * x))\n", "f", ["x"])
    for x in (np.array([0.5, 1.0]), np.ones((2, 3))):
        d_x = np.zeros_like(x)
        grad(x, d_x, 2.0)
        s = np.sum(np.exp(x) * x)
        np.testing.assert_allclose(d_x, 2.0 * (np.exp(x) * (x + 1.0)) / (2.0 * np.sqrt(s)))
    d_x = np.zeros(())  # a number too (adjoint.shape_generic: every use is elementwise, then summed)
    grad(0.5, d_x, 2.0)
    np.testing.assert_allclose(d_x, 2.0 * (np.exp(0.5) * 1.5) / (2.0 * np.sqrt(np.exp(0.5) * 0.5)))
    with pytest.raises(ValueError, match="d_x must be an array of the shape of x"):
        grad(0.5, 0.0)  # a float shadow cannot be added into
    grad, _ = gradient("def f(x):\n    return np.mean(x * x)\n", "f", ["x"])
    d_x = np.zeros(4)
    grad(np.arange(4.0), d_x)
    np.testing.assert_allclose(d_x, 2.0 * np.arange(4.0) / 4)
    with pytest.raises(ValueError, match="x must be a 1-D array"):
        grad(np.ones((2, 2)), np.zeros((2, 2)))


@pytest.mark.parametrize(
    "source, where",
    [
        ("def f(x):\n    return np.sum(np.reshape(x, (2, -1)) ** 2)\n", "prog.py:7:30"),
    ],
)
def test_a_number_used_as_an_array_names_the_annotation(source, where):
    text = located(source, "f", ["x"])
    assert text.startswith(where + ": error:")
    # x may well be an array: the message says only that nothing shows it is one
    assert "is not an array" not in text
    assert re.search(r'hint: if x (or y )?is an array, say so with an annotation \(x: "f64\[n\]"', text)


@pytest.mark.parametrize("source", ["def f(x, y):\n    return np.mean(x * y)\n",
                                    "def f(x, y, W):\n    return np.dot(np.expm1(x * y), np.sum(W, axis=0))\n"])
def test_where_either_operand_may_be_the_array_the_first_parameter_is(source):
    """``x * y`` must be an array and nothing says which is: x, the first, is taken for it (a
    checked guess, py_rank_uses), y stays a number, shape-generic in Python output."""
    assert assumed(source, "f")["x"] == 1 and assumed(source, "f")["y"] == 0


def test_np_where_takes_its_condition_as_an_array():
    """``np.sum(np.where(x > 0.0, x, 0.0))``: s2sad takes np.where's condition as an array only,
    so x, compared there, is one (a located error before ranks from uses passed comparisons)."""
    source = "def f(x):\n    return np.sum(np.where(x > 0.0, x, 0.0))\n"
    assert assumed(source, "f") == {"x": 1}
    grad, _ = gradient(source, "f", ["x"])
    for seed in range(2):
        check_gradient(primal(source, "f"), grad, [ParamSpec("x", "array", (5,))], ["x"], set(),
                       np.random.default_rng(seed))


def test_an_array_passed_for_a_parameter_the_helper_takes_for_a_number_types_it():
    """``h``'s body would take ``v`` for a number; its call passes a vector, which types it
    (py_specialize): no annotation needed, no check at run time."""
    source = """
    def h(v):
        return np.exp(v)


    def f(x: "f64[n]"):
        return np.sum(h(x))
    """
    grad, text = gradient(source, "f", ["x"])
    assert "ndim" not in text
    x, d_x = np.array([0.5, -1.0]), np.zeros(2)
    grad(x, d_x, 2.0)
    np.testing.assert_allclose(d_x, 2.0 * np.exp(x))


def test_proven_ranks_give_no_checks():
    _, text = gradient('def f(W: "f64[m, n]", b: "f64[m]", x: "f64[n]"):\n'
                       "    return np.sum(np.tanh(W @ x + b))\n", "f", ["W", "b", "x"])
    assert "ndim" not in text and "ValueError" not in text


# ------------------------------------------------------------------ right at the assumed ranks
CASES = [
    (MLP, "f", ["W", "b", "x"], [ParamSpec("W", "array", (4, 3)), ParamSpec("b", "float"),
                                 ParamSpec("x", "array", (3,))]),
    (DOT, "g", ["x", "W"], [ParamSpec("x", "array", (3,)), ParamSpec("W", "array", (3, 2))]),
    ("def f(u, v):\n    return np.sum(np.outer(u, v) ** 2)\n", "f", ["u", "v"],
     [ParamSpec("u", "array", (3,)), ParamSpec("v", "array", (2,))]),
    ("def f(x, c):\n    return np.mean(np.maximum(x, c)) + np.mean(x)\n", "f", ["x", "c"],
     [ParamSpec("x", "array", (5,)), ParamSpec("c", "float", low=-0.3, high=0.3)]),
    ("def f(A):\n    return np.sum(A, axis=0) * 2.0\n", "f", ["A"], [ParamSpec("A", "array", (4,))]),
    ("def f(x, a):\n    y = a * 2.0\n    return np.sum(x * y) + np.sum(x)\n", "f", ["x", "a"],
     [ParamSpec("x", "array", (3,)), ParamSpec("a", "float")]),
    ("def f(A, v):\n    return np.sum(A.T * v)\n", "f", ["A", "v"],
     [ParamSpec("A", "array", (2, 3)), ParamSpec("v", "float")]),
]


@pytest.mark.parametrize("source, func, wrt, params", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_guarded_gradients_match_finite_differences(source, func, wrt, params):
    grad, _ = gradient(source, func, wrt)
    for seed in range(2):
        check_gradient(primal(source, func), grad, params, wrt, set(), np.random.default_rng(seed))


# ------------------------------------------------------------------ rank-free uses: no check
def rank_free(source: str, func: str) -> list:
    module = parse_source(HEADER + textwrap.dedent(source), "prog.py", func)
    return module.functions[func].attrs.get("rank_free", [])


# Each of these reads W only so that the generated code means the same at every rank: whole-array
# sums, maxima and minima of W taken elementwise, leading extents, a callee that does the same.
RANK_FREE = [
    ("def f(W, a: float):\n    return np.sum(np.exp(W) * a) + np.max(W) + np.sum(-W * W) + np.min(np.tanh(W))\n",
     "f", ["W", "a"]),
    ("def f(W):\n    return W.sum() + W.max() * 2.0 + W.shape[0] + len(W)\n", "f", ["W"]),
    ("def h(v):\n    return np.sum(v) + np.max(v)\n\n\ndef f(W):\n    return h(W) * 2.0\n", "f", ["W"]),
]


@pytest.mark.parametrize("source, func, wrt", RANK_FREE, ids=["reductions", "methods", "callee"])
def test_rank_free_uses_are_marked(source, func, wrt):
    assert assumed(source, func)["W"] == 1
    assert rank_free(source, func) == ["W"]


@pytest.mark.parametrize("level", [0, 2])
@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("source, func, wrt", RANK_FREE, ids=["reductions", "methods", "callee"])
def test_rank_free_uses_need_no_rank_check_and_serve_every_rank(source, func, wrt, target, level):
    text = pipeline.gradient_source(HEADER + textwrap.dedent(source), "prog.py", func, wrt, target,
                                    pipeline.Options(level=level))
    # No rank is checked; W being differentiated, its kind is: an array of any rank (a number's
    # shadow would be a float the gradient could not add into), or, where every use of W is
    # elementwise or a whole reduction (adjoint.shape_generic), a number too, whose shadow is
    # then a 0-d array (checked to have W's shape), unless the source reads its length (len(W),
    # W.shape[0]: then an array of at least one axis).
    reads_length = "W.shape" in source
    assert "np.ndim(W) !=" not in text and ".ndim !=" not in text
    assert ("ndim < 1" in text or "ndim(W) < 1" in text) == reads_length
    generic = "d_W must be an array of the shape of W" in text
    assert text.count("W must be a NumPy array") + text.count("d_W must be an array of the shape of W") == 1
    # (not through a call, which -O2 inlines)
    assert generic == (not ("def h" in source and level == 0))
    namespace: dict = {}
    exec(compile(text, f"<grad_{func}>", "exec"), namespace)
    extra = [ParamSpec("a", "float")] if "a" in wrt else []
    specs = [ParamSpec("W", "array", shape) for shape in [(4,), (3, 2), (2, 2, 3)]]
    for k, spec in enumerate(specs + ([ParamSpec("W", "float")] if generic and not reads_length else [])):
        check_gradient(primal(source, func), namespace[f"grad_{func}"], [spec, *extra], wrt, set(),
                       np.random.default_rng(k))


@pytest.mark.parametrize(
    "source, checked",
    [
        ("def f(W):\n    return np.mean(W)\n", "W"),  # the adjoint divides by the extent of one axis
        ("def f(W):\n    return np.sum(W, axis=0) * 2.0\n", "W"),
        ("def f(W):\n    return np.sum(W * 2.0) + W.size\n", "W"),
        ("def f(W):\n    return np.sum(W * 2.0) / W.shape[-1]\n", "W"),  # the last axis: which one is the rank's
        ('def f(W, x: "f64[n]"):\n    return np.sum(W * x)\n', "W"),  # broadcast against another array
        ("def f(W, y):\n    y[0] = np.sum(W)\n    return np.sum(W[1:])\n", "W"),
        ("def f(W, a):\n    return np.sum(W * a) + np.sum(W)\n", "a"),  # a number: an array there changes d_a's kind
    ],
)
def test_rank_dependent_uses_keep_their_check(source, checked):
    assert checked in assumed(source, "f") and checked not in rank_free(source, "f")
    _, text = gradient(source, "f", [checked])
    assert f"ndim({checked})" in text


def test_the_fuzzers_rank_free_array_is_not_checked():
    """Fuzzer seed 2000368: W, inactive, read only by np.sum; it was checked to be a vector."""
    source = """
    def f(x, y, W, a, b, n, m):
        s2 = 1.0
        y[2] *= np.sum(W)
        s2 = x[1]
        return 0.5
    """
    grad, text = gradient(source, "f", ["x", "a", "b"])
    assert "np.ndim(W)" not in text
    # a and b are never read, but differentiated: a number's adjoint is returned, an array's
    # would be added into a shadow, so their kind decides the signature and stays checked.
    assert "np.ndim(a) != 0" in text and "np.ndim(b) != 0" in text
    x, y, W = np.ones(5), np.arange(5.0), np.full((3, 5), 0.5)
    d_x, d_y = np.zeros(5), np.ones(5)
    assert grad(x, d_x, y, d_y, W, 0.1, 0.2, 5, 3) == (0.0, 0.0)
    np.testing.assert_allclose(d_y, [1.0, 1.0, np.sum(W), 1.0, 1.0])


def test_parameters_never_read_are_assumed_numbers_needing_no_check():
    source = "def f(x, n, a):\n    return a * 2.0\n"
    assert assumed(source, "f") == {"x": 0, "n": 0}
    assert rank_free(source, "f") == ["x", "n"]
    grad, text = gradient(source, "f", ["a"])
    assert "ndim" not in text
    assert grad(np.ones((2, 2)), 3, 0.5) == 2.0
    annotated = 'def f(x: "f64[n]", n: int, a, c=1.0):\n    return a * 2.0\n'
    assert assumed(annotated, "f") == {}


# ------------------------------------------------------------------ C and CUDA: no guessed kinds
def c_refusal(source: str, func: str, wrt: list[str], target: str = "c") -> str:
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(HEADER + textwrap.dedent(source), "prog.py", func, wrt, target)
    return "\n".join(d.render(info.value.source_lines) for d in info.value.diagnostics)


@pytest.mark.parametrize("target", ["c", "cuda"])
def test_c_output_refuses_parameters_never_read(target):
    """Fuzzer seed 2000480: x, y, W, n, m were `double` parameters a caller passes arrays to."""
    source = "def f(x, y: \"f64[n]\", a, n: int):\n    for i in range(n):\n        y[i] = a * y[i]\n"
    text = c_refusal(source, "f", ["y", "a"], target)
    assert text.startswith(f"prog.py:6:7: error: --target {target}: the kind of parameter 'x' is not evident "
                           "in 'f' (its value is never used)")
    assert "    def f(x, y" in text and "\n          ^\n" in text
    assert 'hint: annotate x: float, x: int, or x: "f64[n]" for an array' in text
    assert text.count("error:") == 1


def test_c_output_refuses_an_assumed_rank_naming_the_annotation():
    """`np.sum(W)` on an unannotated W: C output took W for a vector (W: [W_shape0]), silently
    wrong for a matrix, although the Python gradient needs no check there."""
    text = c_refusal("def f(W, x: \"f64[n]\"):\n    return np.sum(W) * x[0]\n", "f", ["x"])
    assert text.startswith("prog.py:6:7: error: --target c: the rank of parameter 'W' is not evident in 'f' "
                           "(it would be taken for a 1-D array)")
    assert 'hint: annotate W: "f64[n]" (or W: "f64[m, n]" for a matrix)' in text


def test_the_annotation_named_for_an_index_array_is_of_integers():
    """The labels of the cross-entropy idiom index an array: "f64[n]" would not do for them."""
    source = 'def f(z: "f64[m, n]", y):\n    return -np.sum(np.log(z[np.arange(z.shape[0]), y]))\n'
    text = c_refusal(source, "f", ["z"])
    assert "the rank of parameter 'y' is not evident in 'f'" in text
    assert 'hint: annotate y: "i64[n]" (or y: "i64[m, n]" for a matrix)' in text


def test_c_output_refuses_a_number_numpy_would_take_as_an_array():
    text = c_refusal(MLP, "f", ["W", "b", "x"])
    assert "parameter 'W' is not evident" in text and "taken for a 2-D array" in text
    assert "the kind of parameter 'b' is not evident in 'f' (its use in NumPy operations takes an array" in text
    assert 'hint: annotate W: "f64[m, n]" (or W: "f64[n]" for a vector)' in text
    assert text.count("error:") == 3


def test_literal_einsum_subscripts_fix_the_ranks(tmp_path, capsys):
    """``np.einsum("ij,j->", A, x)``: NumPy refuses any other rank, so C output takes them as
    evident (probe round 10: 'the rank of parameter A is not evident')."""
    source = HEADER + "def f(A, x):\n    return np.einsum(\"ij,j->\", A, x) + np.sum(x * x)\n"
    assert assumed(source[len(HEADER):], "f") == {}
    for target in ("c", "py"):
        check_command(tmp_path, capsys, source, "f", "A,x", "A=3x4,x=4", target)


def test_a_helper_that_takes_numbers_only_makes_its_arguments_numbers(tmp_path, capsys):
    """``g(b)`` where g computes ``math.sin(y)``, or tests ``abs(step) < tol`` of its parameters in
    a Newton loop: b is a number, in the caller as in the helper, so C output takes it as evident
    (probe round 10: 'the kind of parameter b is not evident')."""
    source = HEADER + textwrap.dedent("""\
        def g(y):
            return math.sin(y)


        def solve(M, e):
            E = M
            for it in range(20):
                step = (E - e * np.sin(E) - M) / (1 - e * np.cos(E))
                E = E - step
                if abs(step) < 1e-12:
                    break
            return E


        def f(b, M, e):
            return g(b) + np.sqrt(1.0 + b * b) + np.sin(solve(M, e) / 2)
        """)
    assert assumed(source[len(HEADER):], "f") == {}
    for target in ("c", "py"):
        check_command(tmp_path, capsys, source, "f", "b,M,e", "", target, extra=("--range", "0.1,0.5"))


def test_c_output_of_evident_kinds_is_unchanged():
    source = ("def f(x, A, idx, n: int, a):\n    s = 0.0\n    for i in range(n):\n"
              "        s += A[i, 0] * x[idx[i]] * a\n    return s\n")
    assert assumed(source, "f") == {}
    text = pipeline.gradient_source(HEADER + source, "prog.py", "f", ["x", "a"], "c")
    assert "void grad_f(double *x, double *d_x, double *A, long *idx, long n, double a, double *d_a," in text


# Probe p13: mus[k] beside a 2-D X (X - mus[k]) was taken to prove mus a vector, and a matrix of
# means got a wrong gradient with no check. An element access whose value meets an array in
# elementwise arithmetic proves no rank: the guessed one is checked on entry.
def test_an_element_access_that_meets_an_array_proves_no_rank():
    source = """import numpy as np


def f(X, mus):
    n, d = X.shape
    s = 0.0
    for k in range(len(mus)):
        s += np.sum((X - mus[k]) ** 2)
    return s
"""
    text = pipeline.gradient_source(source, "prog.py", "f", ["mus"], "py")
    namespace: dict = {}
    exec(compile(text, "<grad>", "exec"), namespace)
    X = np.arange(6.0).reshape(3, 2)
    # X a matrix: mus[k] beside it is taken for a row (a mean per row), checked on entry
    with pytest.raises(ValueError, match="mus must be a 2-D array"):
        namespace["grad_f"](X, np.array([0.5, -1.0]), np.zeros(2))
    mus, d_mus = np.array([[0.0, 1.0], [2.0, 5.0]]), np.zeros((2, 2))
    namespace["grad_f"](X, mus, d_mus)
    assert np.allclose(d_mus, [-2.0 * np.sum(X - m, axis=0) for m in mus])


# Probes (ordinary NumPy, unannotated, called with batches): ranks the uses now show.
BATCH_PROBES = {
    # an index per axis, some of them arrays, of a value computed elementwise from the parameter
    "fancy_after_elementwise": ("""import numpy as np


def f(logits, labels: "i64[n]"):
    n = logits.shape[0]
    logp = logits - 1.0
    return -logp[np.arange(n), labels].mean()
""", ["logits"], [("logits", (4, 3)), ("labels", None)]),
    # a matrix product met by a parameter, summed along axis 1: the product is a batch of rows
    "product_then_bias": ("""import numpy as np


def f(x, W, eps):
    mu = x @ W
    z = mu + eps
    return np.sum(np.sum(np.tanh(z), axis=1))
""", ["x", "W", "eps"], [("x", (4, 3)), ("W", (3, 2)), ("eps", ())]),
    # einsum's letters give each operand its axes
    "einsum_after_difference": ("""import numpy as np


def f(X, mu, P):
    diff = X - mu
    return np.sum(np.einsum("ij,jk,ik->i", diff, P, diff))
""", ["X", "P"], [("X", (4, 3)), ("mu", (3,)), ("P", (3, 3))]),
    # the same with the mean's length read first: len() shows mu has an axis, not that it is the
    # batch; the difference's axes go to the first parameter (data first), as the docstring says
    "difference_after_len": ("""import numpy as np


def f(X, mu, P):
    d = len(mu)
    diff = X - mu
    return np.sum(np.einsum("ij,jk,ik->i", diff, P, diff)) / d
""", ["X", "mu", "P"], [("X", (4, 3)), ("mu", (3,)), ("P", (3, 3))]),
    # a VAE: the axis=1 sum meets products of x and x itself elementwise: x (data first) is the
    # batch, and the products' operands follow from it (x @ W_enc: x was taken for a vector)
    "vae_batch_through_products": ("""import numpy as np


def f(x, W_enc, W_mu, W_logvar, W_dec, eps):
    h = np.tanh(x @ W_enc)
    mu = h @ W_mu
    logvar = h @ W_logvar
    z = mu + np.exp(0.5 * logvar) * eps
    x_logits = z @ W_dec
    recon = np.sum(np.logaddexp(0, x_logits) - x * x_logits, axis=1)
    kl = -0.5 * np.sum(1 + logvar - mu ** 2 - np.exp(logvar), axis=1)
    return np.mean(recon + kl)
""", ["W_enc", "W_mu", "W_logvar", "W_dec"], [("x", (4, 6)), ("W_enc", (6, 5)), ("W_mu", (5, 2)),
                                              ("W_logvar", (5, 2)), ("W_dec", (2, 6)), ("eps", (4, 2))]),
    # a row of means per component against a batch the code shows is a matrix (n, d = X.shape):
    # mus[k] and sigmas[k] are rows (taken for numbers before: checked, refused at entry)
    "gmm_rows_beside_batch": ("""import numpy as np


def f(X, pis, mus, sigmas):
    n, d = X.shape
    lik = np.zeros(n)
    for k in range(len(pis)):
        diff = X - mus[k]
        quad = np.sum(diff ** 2 / (sigmas[k] ** 2 + 0.5), axis=1)
        lik += pis[k] ** 2 * np.exp(-0.5 * quad) / ((2 * np.pi) ** (d / 2) * np.prod(sigmas[k] ** 2 + 0.5))
    return -np.sum(np.log(lik))
""", ["pis", "mus", "sigmas"], [("X", (8, 2)), ("pis", (2,)), ("mus", (2, 2)), ("sigmas", (2, 2))]),
    # norm along axis 1 of the rows pairs pick
    "pairs_norm_rows": ("""import numpy as np


def f(pos):
    i, j = np.triu_indices(pos.shape[0], 1)
    diff = pos[i] - pos[j]
    return np.sum(np.linalg.norm(diff, axis=1))
""", ["pos"], [("pos", (4, 3))]),
    # an element access beside a product in elementwise arithmetic: a row (a target per step)
    "row_beside_product": ("""import numpy as np


def f(Why, hs, targets, n: int):
    loss = 0.0
    for t in range(n):
        y = Why @ hs[t]
        loss += 0.5 * np.sum((y - targets[t]) ** 2)
    return loss
""", ["Why"], [("Why", (2, 3)), ("hs", (4, 3)), ("targets", (4, 2)), ("n", 4)]),
    # axis=-1 with keepdims=True: a batch of rows (layer norm)
    "last_axis_kept": ("""import numpy as np


def f(x, g):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return np.sum(((x - mu) / np.sqrt(var + 1e-5) * g) ** 2 + x)
""", ["x", "g"], [("x", (4, 6)), ("g", (6,))]),
}


@pytest.mark.parametrize("name", list(BATCH_PROBES))
def test_batch_ranks_the_uses_show(name):
    from source_gradients import check_source

    source, wrt, shapes = BATCH_PROBES[name]
    params = []
    for pname, shape in shapes:
        if isinstance(shape, int):
            params.append(ParamSpec(pname, "int", value=shape))
        elif shape is None:
            params.append(ParamSpec(pname, "array", (4,), dtype="i64", ints=(0, 3)))
        else:
            params.append(ParamSpec(pname, "array", shape) if shape else ParamSpec(pname, "float"))
    check_source(source, wrt, params, "py")


LEAPFROG = """
def leapfrog(u, v, c, dt, steps: int):
    n = len(u)
    for _ in range(steps):
        a = np.zeros(n)
        for i in range(1, n - 1):
            a[i] = c * c * (u[i - 1] - 2 * u[i] + u[i + 1])
        v = v + dt * a
        u = u + dt * v
    return np.sum(u * u)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_a_parameter_a_loop_rebinds_to_an_array_is_taken_for_that_array(target):
    """``v = v + dt * a`` in a loop, ``a`` a vector: the variable the loop carries has one type, so
    ``v`` is a vector (a guess, checked on entry); it was taken for a number and refused
    ("'v' is a float, but this value is an array")."""
    assert assumed(LEAPFROG, "leapfrog")["v"] == 1
    grad, text = gradient(LEAPFROG, "leapfrog", ["u", "v", "c"], target)
    f = primal(LEAPFROG, "leapfrog")
    rng = np.random.default_rng(3)
    u, v = rng.normal(size=6), rng.normal(size=6)
    d_u, d_v = np.zeros(6), np.zeros(6)
    d_c = grad(u, d_u, v, d_v, 0.7, 0.05, 3)
    args = [u, v, 0.7, 0.05, 3]
    for k, got in ((0, d_u), (1, d_v), (2, d_c)):
        np.testing.assert_allclose(got, central_difference(f, args, k), rtol=1e-6, atol=1e-8)
    with pytest.raises(ValueError, match="v must be a 1-D array"):
        grad(u, d_u, 0.5, np.zeros(()), 0.7, 0.05, 3)


# -- an index guessed a number in a helper ---------------------------------------------------------

HELPER_GATHER = """
def g(h, k):
    return np.sum(h[k] ** 2)


def f(x, k):
    return g(x, k)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_an_index_a_helper_guesses_a_number_is_checked_where_it_enters(target):
    """``g(x, k)`` with ``h[k]`` in ``g``: ``k`` may be an array of integers there (a gather), which
    the helper's adjoint ``d_x[k] += ...`` would sum wrongly over repeated indices. The guess is
    the caller's too: its entry refuses an array ``k`` (probe p65 took [0, 1, 1] and got 1 where 2
    was right), and an integer ``k`` gets the derivative."""
    assert assumed(HELPER_GATHER, "f") == {"k": 0}
    grad, _ = gradient(HELPER_GATHER, "f", ["x"], target)
    x = np.array([0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="k must be an integer"):
        grad(x, np.zeros(3), np.array([0, 1, 1]))
    d_x = np.zeros(3)
    grad(x, d_x, 1)
    assert d_x == pytest.approx([0.0, 0.4, 0.0])


def test_an_index_array_annotated_where_it_enters_gathers_through_the_helper():
    """Annotated in the caller, the helper's instance gathers: repeated indices add up."""
    source = HELPER_GATHER.replace("def f(x, k):", 'def f(x, k: "i64[m]"):')
    grad, text = gradient(source, "f", ["x"])
    assert "np.add.at(d_x, k," in text
    x, k = np.array([0.1, 0.2, 0.3]), np.array([0, 1, 1, 2, 1])
    d_x = np.zeros(3)
    grad(x, d_x, k)
    f = primal(source, "f")
    assert d_x == pytest.approx(central_difference(f, [x, k], 0), rel=1e-6)
    assert d_x == pytest.approx([0.2, 1.2, 0.6])  # x[1] gathered three times: 3 * 2 * 0.2


def test_an_elementwise_argument_a_helper_takes_as_an_array_makes_its_operand_one():
    """``g(np.exp(log_h), k)`` where ``g`` indexes its first parameter: the value is an array only
    if ``log_h`` is one (probe p65b: ``log_h`` was taken for a number, and the call refused)."""
    source = """
def g(h, k):
    return np.sum(h[k])


def f(log_h, k):
    return g(np.exp(log_h), k)
"""
    assert assumed(source, "f")["log_h"] == 1
    grad, _ = gradient(source, "f", ["log_h"])
    x = np.array([0.1, -0.3, 0.2])
    d = np.zeros(3)
    grad(x, d, 1)
    assert d == pytest.approx([0.0, np.exp(-0.3), 0.0])


def test_a_named_elementwise_value_a_helper_takes_as_an_array_makes_its_operand_one():
    """The same through a name: ``k = np.exp(log_k); g(k)`` with ``g`` indexing ``k`` (probe round 8:
    ``log_k`` was taken for a number, and the call refused)."""
    source = """
def g(k):
    return k[0] * k[1]


def f(log_k):
    k = np.exp(log_k)
    return g(k)
"""
    assert assumed(source, "f")["log_k"] == 1
    grad, _ = gradient(source, "f", ["log_k"])
    x = np.array([0.1, -0.3])
    d = np.zeros(2)
    grad(x, d)
    assert d == pytest.approx(central_difference(primal(source, "f"), [x], 0), rel=1e-6)


# A mask named before it indexes (valid = target > 0; w[valid]) is an array: the compared value
# and the masked array have its axes. Named, it was read as an integer index: the masked array
# guessed 2-D (a 1-D call raised at entry), or, the compared value guessed a number, the gradient
# indexed with int(m) (NumPy's w[True] is all of w: silently wrong). Probe round 7.
NAMED_MASKS = {
    "compared_unannotated": ("def f(x, w):\n    m = x > 0\n    return np.sum(w[m] * w[m])\n", ["w"]),
    "compared_annotated": ('def f(x: "f64[n]", w):\n    m = x > 0.0\n    return np.sum(w[m] ** 2)\n', ["w"]),
    "several_arrays": ("def f(pred, target, weights):\n    valid = target > 0\n    err = pred[valid] - target[valid]\n"
                       "    w = weights[valid]\n    return np.sum(w * err ** 2)\n", ["pred", "weights"]),
    "combined": ("def f(x, w):\n    m = (x > -0.5) & ~(x > 0.5)\n    return np.sum(np.exp(w[m]))\n", ["w"]),
}


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("name", sorted(NAMED_MASKS))
def test_a_named_mask_is_an_array_of_the_masked_arrays_axes(name, target):
    source, wrt = NAMED_MASKS[name]
    grad, text = gradient(source, "f", wrt, target)
    if target == "numba":
        grad = grad.py_func
    primal = {}
    exec(compile(HEADER + source, "<f>", "exec"), primal)
    names = [p.strip().split(":")[0] for p in source[source.index("(") + 1:source.index(")")].split(",")]
    rng = np.random.default_rng(4)
    params = [ParamSpec(n, "array", shape=(6,)) for n in names]
    check_gradient(primal["f"], grad, params, wrt, set(), rng)
    assert "int(" not in text, text


def test_a_bool_number_as_an_array_index_is_a_located_error():
    source = HEADER + 'def f(x: float, w: "f64[n]"):\n    m = x > 0\n    return np.sum(w[m])\n'
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(source, "prog.py", "f", ["w"], "py")
    (d,) = info.value.diagnostics
    assert d.message.startswith("a bool as an array index") and d.loc.line == source.count("\n"), d


def test_an_array_added_at_an_index_array_gets_its_own_adjoint():
    """``y[idx] += x``: x may be a number or an array of idx's length; its gradient is shape-generic
    (probe round 9: x was taken for a number unchecked, and an array's adjoint came back summed)."""
    source = 'import numpy as np\n\n\ndef f(x, idx: "i64[n]"):\n    y = np.zeros(3)\n    y[idx] += x\n' \
             "    return np.sum(y ** 2)\n"
    namespace: dict = {}
    exec(pipeline.gradient_source(source, "f.py", "f", ["x"], "py"), namespace)
    exec(source, namespace)
    idx = np.array([0, 0, 1])
    for x in (np.array([0.3, -0.7, 0.5]), np.float64(0.3)):
        d_x = np.zeros(np.shape(x))
        namespace["grad_f"](x, d_x, idx)
        expected = central_difference(namespace["f"], [x, idx], 0)
        np.testing.assert_allclose(d_x, expected, rtol=1e-6, atol=1e-9)
