"""Ranks of unannotated NumPy parameters: proven from the code, or checked at the gradient's entry.

NumPy code is rarely annotated, and whole-array use does not tell a parameter's
rank (``W @ x + b`` works with a scalar, a vector or a matrix ``b``). Type
inference marks each rank it had to assume (``attrs["assumed"]`` of the primal,
0 for a number); the entry gradient checks them and raises ``ValueError`` naming
the parameter, so that a guess is never silently wrong (issue 14, classes 1 and 9).
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from fd import ParamSpec, check_gradient

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError
from s2sad.parse.python_frontend import parse_python

HEADER = "import math\n\nimport numpy as np\n\n\n"


def assumed(source: str, func: str) -> dict:
    module = parse_python(HEADER + textwrap.dedent(source), "prog.py", func)
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


# ------------------------------------------------------------------ what inference assumes
@pytest.mark.parametrize(
    "source, func, expected",
    [
        (MLP, "f", {"W": 2, "b": 0, "x": 1}),
        (DOT, "g", {"x": 2, "W": 1}),
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
        ("def f(A, n: int):\n    s = 0.0\n    for i in range(n):\n        s += np.sum(A[i, 0] * A.T)\n    return s\n",
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


# ------------------------------------------------------------------ the generated checks
@pytest.mark.parametrize("target", ["py", "numba"])
def test_the_mlp_gradient_refuses_a_vector_bias(target):
    grad, text = gradient(MLP, "f", ["W", "b", "x"], target)
    assert "np.ndim(b) != 0" in text or "np.asarray(b).ndim != 0" in text
    W, x, b = np.ones((3, 2)), np.ones(2), np.ones(3)
    with pytest.raises(ValueError, match=r'b must be a number.*annotate b: "f64\[n\]"'):
        grad(W, np.zeros_like(W), b, x, np.zeros_like(x))


def test_the_dot_gradient_refuses_a_vector_left_operand():
    grad, _ = gradient(DOT, "g", ["x", "W"])
    x, W = np.ones(3), np.ones((3, 2))
    with pytest.raises(ValueError, match="x must be a 2-D array"):
        grad(x, np.zeros_like(x), W, np.zeros_like(W))


def test_returning_np_exp_of_an_array_is_refused_loudly():
    grad, _ = gradient(EXP, "e", ["x"])
    assert grad(0.5) == pytest.approx(np.exp(0.5))
    with pytest.raises(ValueError, match="x must be a number"):
        grad(np.array([0.5, 1.0]))


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


@pytest.mark.parametrize(
    "source, where",
    [
        ("def f(x):\n    return np.mean(x * x)\n", "prog.py:7:20"),
        ("def f(x):\n    return np.sum(np.where(x > 0.0, x, 0.0))\n", "prog.py:7:19"),
        ("def f(x):\n    return np.sum(np.reshape(x, (2, -1)) ** 2)\n", "prog.py:7:30"),
    ],
)
def test_a_number_used_as_an_array_names_the_annotation(source, where):
    text = located(source, "f", ["x"])
    assert text.startswith(where + ": error:")
    assert 'hint: if x is an array, say so with an annotation (x: "f64[n]")' in text


def test_an_array_passed_for_an_assumed_number_names_the_callee_annotation():
    source = """
    def h(v):
        return np.exp(v)


    def f(x: "f64[n]"):
        return np.sum(h(x))
    """
    text = located(source, "f", ["x"])
    assert "prog.py:12:21: error: parameter 'v' of 'h' is taken for a float" in text
    assert "hint: annotate the parameter in 'h': v: \"f64[n]\"" in text


def test_proven_ranks_give_no_checks():
    _, text = gradient('def f(W: "f64[m, n]", b: "f64[m]", x: "f64[n]"):\n'
                       "    return np.sum(np.tanh(W @ x + b))\n", "f", ["W", "b", "x"])
    assert "ndim" not in text and "ValueError" not in text


# ------------------------------------------------------------------ right at the assumed ranks
CASES = [
    (MLP, "f", ["W", "b", "x"], [ParamSpec("W", "array", (4, 3)), ParamSpec("b", "float"),
                                 ParamSpec("x", "array", (3,))]),
    (DOT, "g", ["x", "W"], [ParamSpec("x", "array", (2, 3)), ParamSpec("W", "array", (3,))]),
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
