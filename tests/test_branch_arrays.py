"""Arrays from the branches of an if (Python input): a function returning an array from each
branch (``if kind == "elu": return ... elif ...: return ... else: return ...``), and a name bound
to a new array in each branch (``if c: y = np.exp(x) else: y = np.tanh(x)``).

Each is one array, allocated before the if with the extents every branch's array evidently has,
that the branch taken fills (``py_lower.merge_arrays``); a chain of elifs fills one array. Checked
against central differences for Python and Numba output at -O0 and -O2 (golden/array_from_branches
shows the output, compiled by Numba); what would tell that apart from Python's arrays (a branch's
array a parameter, a view, or shared with another name; shapes not evidently one) stays a located
error, and so do an array returned from a loop and a path that returns nothing.
"""

from __future__ import annotations

import textwrap

import pytest
from fd import ParamSpec
from source_gradients import HEADER, arr, check_source, count, num

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError


def text(kind: str) -> ParamSpec:
    return ParamSpec("kind", "str", text=kind)


ACTIVATE = """
    def activate(z, kind, alpha):
        if kind == "softplus":
            return np.log1p(np.exp(-np.abs(z))) + np.maximum(z, 0.0)
        elif kind == "elu":
            return np.where(z > 0, z, alpha * (np.exp(z) - 1.0))
        elif kind == "gelu":
            return 0.5 * z * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (z + 0.044715 * z ** 3)))
        else:
            return np.tanh(z)
"""

CASES = {
    # Probe p71: the kind a string parameter at one call, a literal at the other.
    **{f"activation_{kind}": (ACTIVATE + """
    def f(W1, b1, W2, X, alpha: float, kind="elu"):
        h = activate(X @ W1 + b1, kind, alpha)
        h2 = activate(h @ W2, "gelu", alpha)
        return np.mean(np.sum(h2, axis=1) ** 2)
    """, ["W1", "b1", "W2", "alpha"], [arr("W1", 3, 4), arr("b1", 4), arr("W2", 4, 2), arr("X", 5, 3),
                                       num("alpha", 0.5, 1.5), text(kind)])
        for kind in ("softplus", "elu", "gelu", "tanh")},
    # Returned from nested branches, a statement after an inner if that returns (lowered into
    # the branch that goes on), the function differentiated returning the array.
    **{f"returned_from_nested_branches_{k}": ("""
    def f(A: "f64[m, n]", k: int):
        if k < 2:
            B = A @ A.T
            if k == 0:
                return np.sin(B)
            B = B * 2.0
        else:
            B = np.cos(A @ A.T)
        return B + 1.0
    """, ["A"], [arr("A", 3, 4), count("k", k)]) for k in (0, 1, 2)},
    # A name bound to a new array in each branch; in one branch only (the other keeps the array
    # it had); a return before the end, with statements after it.
    **{f"bound_in_branches_{k}": ("""
    def f(x: "f64[n]", c: float, k: int):
        if k > 0:
            y = np.exp(c * x)
        else:
            y = np.tanh(x) * c
        z = np.zeros(len(x))
        if k > 1:
            z = y * y
        return np.sum(y * x) + np.sum(z) + np.sum(g(x, k))

    def g(x, k: int):
        out = np.sin(x)
        if k == 2:
            return out
        out = out * 3.0
        return out
        out = np.zeros(2)
    """, ["x", "c"], [arr("x", 5), num("c"), count("k", k)]) for k in (0, 1, 2)},
    # A name bound in one branch keeps the array it had (a parameter's, which nothing writes into
    # after; a local's, written after) in the other: filled into the one array too; a return after
    # an if whose branch returned fills the array that if made.
    **{f"kept_in_one_branch_{c}": ("""
    def f(x: "f64[n]", c: float):
        return np.sum(g(x, c) * x)

    def g(x, c: float):
        y = np.exp(x)
        if c > 0.0:
            if c > 1.0:
                return np.exp(x)
            x = x * 2.0
            y = np.cos(x)
        y[0] = 1.0
        return np.sin(x) + y
    """, ["x", "c"], [arr("x", 5), num("c", c - 0.1, c + 0.1)]) for c in (-1.0, 0.5, 1.5)},
}


@pytest.mark.parametrize("level", [0, 2])
@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("case", list(CASES))
def test_gradient_matches_finite_differences(case, target, level):
    source, wrt, params = CASES[case]
    check_source(HEADER + textwrap.dedent(source), wrt, params, target, level)


def test_the_branches_fill_one_array_allocated_before_the_if():
    out = pipeline.gradient_source(HEADER + textwrap.dedent(CASES["activation_elu"][0]), "prog.py", "f",
                                   ["W1"], "py")
    helper = out[out.index("def activate("):out.index("def grad_activate(")]
    assert helper.count("np.empty(") == 1 and helper.index("np.empty(") < helper.index("if kind ==")
    assert helper.rstrip().endswith("return result"), helper


@pytest.mark.parametrize("source, where, message", [
    ("""
    def f(x: "f64[n]", c: int):
        if c > 0:
            y = x
        else:
            y = np.exp(x)
        return np.sum(y)
    """, "prog.py:12:19", "'y' refers to a different array depending on the branch taken, and a branch's array is "
        "also named 'x'"),
    ("""
    def f(x: "f64[n]", c: int):
        if c > 0:
            y = x[1:]
        else:
            y = np.exp(x[:-1])
        return np.sum(y)
    """, "prog.py:12:19", "and a branch's array is a view of another"),
    ("""
    def f(x: "f64[n]", c: int):
        y = np.exp(x)
        z = y
        if c > 0:
            y = np.sin(x)
        return np.sum(y) + np.sum(z)
    """, "prog.py:12:19", "and a branch's array is also named 'z'"),
    ("""
    def f(x: "f64[n]", c: int):
        if c > 0:
            y = np.zeros(3)
        else:
            y = np.zeros(4)
        return np.sum(y * x[:3])
    """, "prog.py:12:19", "and the branches' arrays do not evidently have one shape"),
    ("""
    def f(x: "f64[n]", c: float):
        return np.sum(g(x, c))

    def g(x, c: float):
        if c > 0.0:
            return np.exp(x)
        return x
    """, "prog.py:13:12", "the array this function returns depends on the branch taken, and a branch's array is "
        "the parameter 'x' itself"),
    ("""
    def f(x: "f64[n]", c: float):
        if c > 0.0:
            x = np.sin(x)
        x[0] = 1.0
        return np.sum(x)
    """, "prog.py:10:5", "'x' refers to a different array depending on the branch taken, and a branch keeps "
        "the parameter's array 'x' had before the if, which this function writes into"),
    ("""
    def f(x: "f64[n]", k: int):
        return np.sum(g(x, k))

    def g(x, k: int):
        for i in range(k):
            if i > 2:
                return np.exp(x)
        return x * 2.0
    """, "prog.py:13:13", "a function that returns an array cannot return it from inside a loop"),
    ("""
    def f(x: "f64[n]", c: float):
        return np.sum(g(x, c))

    def g(x, c: float):
        if c > 0.0:
            return np.exp(x)
    """, "prog.py:10:1", "function 'g' can reach its end without returning a value"),
])
def test_what_stays_refused_is_a_located_error(source, where, message):
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(HEADER + textwrap.dedent(source), "prog.py", "f", ["x"], "py")
    rendered = info.value.render()
    assert f"{where}: error: " in rendered and message in rendered, rendered
    assert "hint:" in rendered
