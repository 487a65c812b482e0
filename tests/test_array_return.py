"""Functions that return an array (issue 14, class 9).

The gradient takes ``d_return`` as an array of the returned value's shape, with no default
(the contract), and under the shadow semantics ``J = <d_return, f(...)> + sum <d_a, a(exit)>``.
Each case here is checked against central differences (``fd.check_gradient``, which seeds a
returned array with a random ``d_return``) for Python and Numba output; what is not supported
yet gets a located error.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from fd import ParamSpec, check_gradient, written_arrays

from s2sad.pipeline import parse_source
from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError

HEADER = "import math\n\nimport numpy as np\n\n\n"


def arr(name: str, *shape: int, low: float = -1.0, high: float = 1.0) -> ParamSpec:
    return ParamSpec(name, "array", tuple(shape), low=low, high=high)


def num(name: str, low: float = -1.0, high: float = 1.0) -> ParamSpec:
    return ParamSpec(name, "float", low=low, high=high)


def count(name: str, value: int) -> ParamSpec:
    return ParamSpec(name, "int", value=value)


# name -> (source, wrt, parameters)
CASES = {
    "ufunc": ("""
        def f(x: "f64[n]"):
            return np.exp(x)
    """, ["x"], [arr("x", 5)]),
    "affine": ("""
        def f(W: "f64[m, n]", x: "f64[n]", b: "f64[m]"):
            return W @ x + b
    """, ["W", "x", "b"], [arr("W", 3, 4), arr("x", 4), arr("b", 3)]),
    "matrix_result": ("""
        def f(A: "f64[m, n]", s: float):
            return np.tanh(A) * 2.0 * s
    """, ["A", "s"], [arr("A", 3, 2), num("s")]),
    "loop_filled_local": ("""
        def f(x: "f64[n]", n: int):
            y = np.zeros(n)
            for i in range(n):
                y[i] = math.sin(x[i]) * x[i]
            return y
    """, ["x"], [arr("x", 4), count("n", 4)]),
    "parameter_itself": ("""
        def f(x: "f64[n]"):
            return x
    """, ["x"], [arr("x", 4)]),
    "written_parameter": ("""
        def f(x: "f64[n]", n: int):
            for i in range(n):
                x[i] = x[i] * x[i]
            return x
    """, ["x"], [arr("x", 4), count("n", 4)]),
    "slices": ("""
        def f(x: "f64[n]"):
            return x[1:] * x[:-1]
    """, ["x"], [arr("x", 5)]),
    "row": ("""
        def f(A: "f64[m, n]", i: int):
            return A[i] * A[i]
    """, ["A"], [arr("A", 3, 4), count("i", 1)]),
    "unannotated_ranks": ("""
        def f(W, x):
            return np.tanh(W @ x)
    """, ["W", "x"], [arr("W", 3, 4), arr("x", 4)]),
    "also_read_elementwise": ("""
        def f(x: "f64[n]", out: "f64[n]", n: int):
            e = np.exp(x)
            for i in range(n):
                out[i] = e[i] * out[i]
            return e
    """, ["x"], [arr("x", 4), arr("out", 4), count("n", 4)]),
    "side_effects": ("""
        def f(x: "f64[n]", out: "f64[n]", n: int):
            for i in range(n):
                out[i] = x[i] * x[i]
            return np.sin(out) + x
    """, ["x"], [arr("x", 4), arr("out", 4), count("n", 4)]),
    "used_twice": ("""
        def f(x: "f64[n]"):
            y = np.exp(x)
            return y * y + y
    """, ["x"], [arr("x", 4)]),
    "reduction_result": ("""
        def f(A: "f64[m, n]"):
            return np.sum(A * A, axis=0)
    """, ["A"], [arr("A", 3, 4)]),
    "inactive_result": ("""
        def f(x: "f64[n]", out: "f64[n]", n: int):
            for i in range(n):
                out[i] = x[i] * 3.0
            return np.ones(n)
    """, ["x"], [arr("x", 4), arr("out", 4), count("n", 4)]),
}


def source_of(case: str) -> str:
    return HEADER + textwrap.dedent(CASES[case][0])


def load(text: str, name: str):
    namespace: dict = {}
    exec(compile(text, name, "exec"), namespace)
    return namespace


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("case", list(CASES))
def test_array_result_gradient_matches_finite_differences(case, target):
    source = source_of(case)
    _, wrt, params = CASES[case]
    text = pipeline.gradient_source(source, "prog.py", "f", wrt, target)
    gradient = load(text, f"<grad {case}>")["grad_f"]
    if target == "numba":
        gradient = gradient.py_func  # the Numba spelling, run as Python (compiling each takes long)
    primal = load(source, f"<{case}>")["f"]
    written = written_arrays(parse_source(source, "prog.py", "f"), "f")
    for seed in range(2):
        check_gradient(primal, gradient, params, wrt, written, np.random.default_rng(seed))


def test_d_return_is_an_array_parameter_without_default():
    text = pipeline.gradient_source(source_of("affine"), "prog.py", "f", ["W", "x", "b"], "py")
    assert "def grad_f(W, d_W, x, d_x, b, d_b, d_return):" in text
    assert "d_x += W.T @ d_return" in text


def test_compiled_numba_gradient_of_an_array_result():
    pytest.importorskip("numba")
    source = source_of("loop_filled_local")
    text = pipeline.gradient_source(source, "prog.py", "f", ["x"], "numba")
    grad = load(text, "<numba>")["grad_f"]
    x = np.array([0.1, 0.5, -0.3])
    d_x, d_return = np.zeros(3), np.array([1.0, 2.0, -1.0])
    grad(x, d_x, 3, d_return)
    np.testing.assert_allclose(d_x, d_return * (np.sin(x) + x * np.cos(x)))


def test_unannotated_number_serves_every_shape():
    """``np.exp(x)`` of a parameter used only there: x is a number in the IR and, in Python output,
    shape-generic (adjoint.shape_generic): a number or an array, its adjoint added into a shadow
    of its shape, never an array differentiated as a number."""
    source = HEADER + "def f(x):\n    return np.exp(x)\n"
    grad = load(pipeline.gradient_source(source, "prog.py", "f", ["x"], "py"), "<g>")["grad_f"]
    d_x = np.zeros(())
    grad(0.5, d_x)
    assert d_x == pytest.approx(np.exp(0.5))
    x, d_x = np.array([0.5, 1.0]), np.zeros(2)
    grad(x, d_x, d_return=np.array([1.0, 3.0]))
    np.testing.assert_allclose(d_x, np.array([1.0, 3.0]) * np.exp(x))


def diagnose(source: str, wrt: list[str], target: str = "py") -> str:
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(HEADER + textwrap.dedent(source), "prog.py", "f", wrt, target)
    return info.value.render()


def test_c_output_of_an_array_result_is_a_located_error():
    text = diagnose(CASES["affine"][0], ["x"], "c")
    assert text.startswith("prog.py:8:5: error: --target c: 'f' returns an array")
    assert "return W @ x + b" in text and "^" in text
    assert "hint: use --target py or numba" in text
    # A CUDA kernel returns nothing at all (the kernelizer says so first).
    assert "a kernel returns no value" in diagnose(CASES["affine"][0], ["x"], "cuda")


@pytest.mark.parametrize(
    "source, where, message",
    [
        ("""
        def f(x: "f64[n]", c: float):
            if c > 0.0:
                return x * c
            return x
        """, "prog.py:10:12", "the array this function returns depends on the branch taken, and a branch's array "
            "is the parameter 'x'"),
        ("""
        def f(x: "f64[n]", c: float):
            if c > 0.0:
                return 1.0
            return x * c
        """, "prog.py:9:16", "this function returns an array, but this value is a number"),
        ("""
        def g(x: "f64[n]"):
            return x[1:]


        def f(x: "f64[n]"):
            y = g(x)
            x[1] = 0.0
            return np.sum(y)
        """, "prog.py:12:9", "calling 'g', which returns a view of its parameter 'x', is not supported here"),
        ("""
        def g(x: "f64[n]", c: float):
            if c > 0.0:
                return np.exp(x)
            return x


        def f(x: "f64[n]"):
            return np.sum(g(x, 1.0))
        """, "prog.py:10:12", "the array this function returns depends on the branch taken, and a branch's array "
            "is the parameter 'x'"),
        ("""
        def f(x: "f64[n]", c: float):
            if c > 0.0:
                return np.exp(x)
            return np.zeros(3)
        """, "prog.py:8:5", "the array this function returns depends on the branch taken, and the branches' arrays "
            "do not evidently have one shape"),
        ("""
        def f(x: "f64[n]", k: int):
            for i in range(k):
                if i > 2:
                    return np.exp(x)
            return x * 2.0
        """, "prog.py:10:13", "a function that returns an array cannot return it from inside a loop"),
        ("""
        def f(x: "f64[n]", c: float):
            if c > 0.0:
                return np.exp(x)
        """, "prog.py:7:1", "function 'f' can reach its end without returning a value"),
        ("""
        def g(x: "f64[n]"):
            return x * 2.0


        def f(x: "f64[n]"):
            y = g(x)
            y[0] = 1.0
            return np.sum(y)
        """, "prog.py:13:5", "this writes into an array made by "),
        ("""
        def f(x: "f64[n]"):
            for k in range(3):
                y = x * 2.0
            return y
        """, "prog.py:10:12", "'y' is an array assigned inside a loop"),
    ],
)
def test_unsupported_array_returns_are_located_errors(source, where, message):
    text = diagnose(source, ["x"])
    assert f"{where}: error: {message}" in text, text
    assert "^" in text and "hint:" in text


@pytest.mark.skipif(
    shutil.which("ruff") is None and not Path(sys.executable).with_name("ruff").exists(), reason="ruff is not installed"
)
def test_generated_python_passes_ruff(tmp_path):
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    files = []
    for case, (_, wrt, _) in CASES.items():
        for target in ("py", "numba"):
            path = tmp_path / f"{case}_{target}.py"
            path.write_text(pipeline.gradient_source(source_of(case), "prog.py", "f", wrt, target))
            files.append(str(path))
    r = subprocess.run([ruff, "check", "--isolated", "--no-cache", *files], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
