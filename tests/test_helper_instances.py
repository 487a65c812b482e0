"""Helpers typed from their calls (parse/py_specialize.py) and helpers that return arrays
(parse/py_array_results.py): names of the copies, types flowing both ways, recursion, and the
located errors of what stays refused."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from fd import ParamSpec, check_gradient

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError
from s2sad.pipeline import parse_source

HEADER = "import math\n\nimport numpy as np\n\n\n"


def source_of(text: str) -> str:
    return HEADER + textwrap.dedent(text)


def gradient(text: str, func: str, wrt: list[str], target: str = "py", level: int = 2):
    out = pipeline.gradient_source(source_of(text), "prog.py", func, wrt, target, pipeline.Options(level=level))
    namespace: dict = {}
    exec(compile(out, f"<grad_{func}>", "exec"), namespace)
    return namespace[f"grad_{func}"], out


def primal(text: str, func: str):
    namespace: dict = {}
    exec(compile(source_of(text), "<primal>", "exec"), namespace)
    return namespace[func]


def located(text: str, func: str, wrt: list[str], target: str = "py", level: int = 2) -> str:
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(source_of(text), "prog.py", func, wrt, target, pipeline.Options(level=level))
    return info.value.render()


SIGMOID = """
def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def f(w: "f64[n]", X: "f64[m, n]", t: float):
    return np.sum(sigmoid(X @ w)) * sigmoid(t)
"""


def test_a_helper_called_with_a_vector_and_a_number_becomes_two_named_copies():
    module = parse_source(source_of(SIGMOID), "prog.py", "f")
    assert sorted(module.functions) == ["f", "sigmoid_1d", "sigmoid_f"]
    vector = module.functions["sigmoid_1d"]
    assert vector.params[0].type.is_array and vector.result_types[0].is_array
    assert vector.attrs["specialized_from"] == "sigmoid"
    assert not module.functions["sigmoid_f"].params[0].type.is_array
    _, text = gradient(SIGMOID, "f", ["w", "X", "t"], level=0)
    assert "def grad_sigmoid_1d(z, d_z, d_return):" in text and "def grad_sigmoid_f(z, d_return=1.0):" in text
    assert "# the adjoint of sigmoid, for calls that pass z as an array (1-D, floats)" in text
    assert text == gradient(SIGMOID, "f", ["w", "X", "t"], level=0)[1]  # deterministic


@pytest.mark.parametrize("level", [0, 2])
def test_the_copies_differentiate_right(level):
    grad, _ = gradient(SIGMOID, "f", ["w", "X", "t"], level=level)
    params = [ParamSpec("w", "array", (3,)), ParamSpec("X", "array", (4, 3)), ParamSpec("t", "float")]
    for seed in range(2):
        check_gradient(primal(SIGMOID, "f"), grad, params, ["w", "X", "t"], set(), np.random.default_rng(seed))


def test_a_helper_with_one_signature_keeps_its_name_and_a_taken_name_gets_an_underscore():
    module = parse_source(source_of("""
    def layer(W, x):
        return np.tanh(W @ x)


    def f(W: "f64[m, n]", x: "f64[n]"):
        return np.sum(layer(W, x))
    """), "prog.py", "f")
    assert sorted(module.functions) == ["f", "layer"]
    module = parse_source(source_of(SIGMOID + """

def sigmoid_f(z):
    return z
"""), "prog.py", "f")
    assert sorted(module.functions) == ["f", "sigmoid_1d", "sigmoid_f_"]


def test_a_matrix_passed_where_the_helper_body_suggests_a_vector_types_the_copy():
    text = """
    def total(v):
        return np.sum(v * v)


    def f(A: "f64[m, n]"):
        return total(A) + total(A[0])
    """
    module = parse_source(source_of(text), "prog.py", "f")
    assert sorted(module.functions) == ["f", "total_1d", "total_2d"]
    grad, _ = gradient(text, "f", ["A"], level=0)
    check_gradient(primal(text, "f"), grad, [ParamSpec("A", "array", (2, 3))], ["A"], set(), np.random.default_rng(0))


def test_a_recursive_helper_calls_its_own_copy():
    text = """
    def rsum(v, k: int):
        if k == 0:
            return 0.0
        return np.sum(v) * 0.5 + rsum(v, k - 1)


    def f(A: "f64[m, n]"):
        return rsum(A, 3) + rsum(A[0], 2)
    """
    module = parse_source(source_of(text), "prog.py", "f")
    for name in ("rsum_1d", "rsum_2d"):
        calls = [op.attrs["callee"] for op in module.functions[name].walk() if op.name == "call"]
        assert calls == [name]
    grad, _ = gradient(text, "f", ["A"], level=0)
    check_gradient(primal(text, "f"), grad, [ParamSpec("A", "array", (2, 3))], ["A"], set(), np.random.default_rng(0))


def test_an_annotated_helper_parameter_keeps_its_annotation():
    text = located("""
    def g(v: float):
        return v * 2.0


    def f(x: "f64[n]"):
        return np.sum(g(x))
    """, "f", ["x"])
    assert "prog.py:12:21: error:" in text and "parameter 'v' of 'g'" in text


FILLED = """
def squares(x):
    n = x.shape[0]
    out = np.zeros(n)
    for i in range(n):
        out[i] = x[i] * x[i]
    return out


def f(x: "f64[n]", w: "f64[n]"):
    s = 0.0
    for k in range(3):
        s += np.sum(w * squares(x * (k + 1.0)))
    return s
"""


@pytest.mark.parametrize("level", [0, 1, 2])
def test_a_helper_returning_a_filled_local_in_a_loop(level):
    grad, text = gradient(FILLED, "f", ["x", "w"], level=level)
    assert ("grad_squares(" in text) is (level < 2)  # -O2 inlines it into the loop (opt/inline_loops)
    params = [ParamSpec("x", "array", (4,)), ParamSpec("w", "array", (4,))]
    check_gradient(primal(FILLED, "f"), grad, params, ["x", "w"], set(), np.random.default_rng(level))


def test_c_output_of_a_helper_that_returns_an_array_is_a_located_error():
    text = located(FILLED, "f", ["x", "w"], "c")
    assert "prog.py:12:5: error: --target c: 'squares' returns an array" in text
    assert "return out" in text and "^" in text


@pytest.mark.parametrize("body, what", [
    ("return x", "its parameter 'x'"),
    ("return x[1:]", "a view of its parameter 'x'"),
])
def test_a_helper_returning_its_parameter_is_a_located_error_where_that_memory_is_written_later(body, what):
    text = located(f"""
    def g(x):
        {body}


    def f(x: "f64[n]"):
        y = g(x)
        x[0] = 2.0
        return np.sum(y * y)
    """, "f", ["x"], level=0)
    assert f"prog.py:12:9: error: calling 'g', which returns {what}, is not supported here" in text
    assert "may be written while it does" in text and "hint: return a new array from 'g'" in text


# A helper that returns its parameter or views of it (unpacking a flat parameter vector), through
# another helper too: where nothing writes that memory from the call on, the result holds the
# values a copy would.
VIEWS = """
def unpack(theta):
    return theta[:3], theta[3:]


def same(x):
    return x


def through(x):
    return same(x)


def f(theta: "f64[n]", x: "f64[m]"):
    a, b = unpack(theta)
    c = through(theta)
    return np.sum(a) * np.sum(b * x) + np.sum(c ** 2)
"""


@pytest.mark.parametrize("level", [0, 2])
def test_views_of_a_parameter_no_code_writes_are_returned_as_copies(level):
    grad, _ = gradient(VIEWS, "f", ["theta", "x"], level=level)
    params = [ParamSpec("theta", "array", (7,)), ParamSpec("x", "array", (4,))]
    check_gradient(primal(VIEWS, "f"), grad, params, ["theta", "x"], set(), np.random.default_rng(level))


MIXED = """
def layer(W, x):
    return np.tanh(W @ x)


def pair(W, x):
    h = np.tanh(W @ x)
    return h, np.sum(h)


def f(W: "f64[m, n]", x: "f64[n]"):
    h = layer(W, x)
    s = 0.0
    for i in range(h.shape[0]):
        s += h[i] * h[i]
    a, b = pair(W, x)
    return s + np.sum(a * a) + b
"""


@pytest.mark.parametrize("level", [0, 2])
def test_a_returned_array_read_by_elements_and_one_of_several_returned_values(level):
    grad, _ = gradient(MIXED, "f", ["W", "x"], level=level)
    params = [ParamSpec("W", "array", (3, 2)), ParamSpec("x", "array", (2,))]
    check_gradient(primal(MIXED, "f"), grad, params, ["W", "x"], set(), np.random.default_rng(level))


def test_an_int_array_and_a_float_array_give_two_copies_in_c_output_too():
    """An annotated element type stays the caller's (``idx: "i64[n]"`` stays ``long *``), and the
    helper gets a copy for it; C output names each copy's helper in a comment."""
    text = pipeline.gradient_source(source_of("""
    def g(v, n: int):
        s = 0.0
        for i in range(n):
            s += v[i] * 1.5
        return s


    def f(x: "f64[n]", idx: "i64[n]", n: int):
        return g(x, n) * g(idx, n)
    """), "prog.py", "f", ["x"], "c")
    assert "// g, for calls that pass v as an array (1-D, integers)\nstatic double g_i1d(long *v, long n) {" in text
    assert "void grad_f(double *x, double *d_x, long *idx, long n, double d_return)" in text
