"""``--with-value``: the gradient also gives back the primal's value (Python: ``(value,
adjoints)``; C: the value as its return value), computed by its forward sweep, with the same
adjoints as without it; checked against the primal and central differences."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
import textwrap

import numpy as np
import pytest

from s2sad import pipeline
from s2sad.cli import main
from s2sad.diagnostics import DiagnosticError

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

MODEL = textwrap.dedent("""\
    import numpy as np


    def model(out, x, a: float, n: int):
        s = 0.0
        for i in range(n):
            out[i] = a * np.tanh(x[i])
            s += out[i] * x[i]
        return s * a
""")

MODEL_C = textwrap.dedent("""\
    #include <math.h>

    double model(double *out, const double *x, double a, int n) {
        double s = 0.0;
        for (int i = 0; i < n; i++) {
            out[i] = a * tanh(x[i]);
            s += out[i] * x[i];
        }
        return s * a;
    }
""")

WITH = pipeline.Options(with_value=True)


def _python(text: str, name: str):
    namespace: dict = {}
    exec(compile(text, "generated.py", "exec"), namespace)
    return namespace[name]


def _inputs():
    rng = np.random.default_rng(7)
    return rng.uniform(-1, 1, 5), 0.8


def test_python_gives_the_value_and_the_same_adjoints():
    primal = _python(MODEL, "model")
    plain = _python(pipeline.gradient_source(MODEL, "model.py", None, ["x", "a"], "py"), "grad_model")
    both = _python(pipeline.gradient_source(MODEL, "model.py", None, ["x", "a"], "py", WITH), "grad_model")
    x, a = _inputs()
    d_out, d_x = np.zeros(5), np.zeros(5)
    value, d_a = both(np.zeros(5), d_out, x, d_x, a, 5, 1.0)
    assert value == pytest.approx(primal(np.zeros(5), x, a, 5), rel=1e-15)
    d_x2 = np.zeros(5)
    assert d_a == pytest.approx(plain(np.zeros(5), np.zeros(5), x, d_x2, a, 5, 1.0), rel=1e-15)
    assert np.array_equal(d_x, d_x2)
    h = 1e-6  # and the adjoint of a is the derivative of the value
    fd = (primal(np.zeros(5), x, a + h, 5) - primal(np.zeros(5), x, a - h, 5)) / (2 * h)
    assert d_a == pytest.approx(fd, rel=1e-7)


def test_python_value_of_several_results_and_no_scalar_adjoint():
    source = textwrap.dedent("""\
        def two(x, n: int):
            s = 0.0
            for i in range(n):
                s += x[i] * x[i]
            return s, 2.0 * s
    """)
    text = pipeline.gradient_source(source, "two.py", None, ["x"], "py", WITH)
    assert "return (s, 2.0 * s), None" in text
    x = np.array([1.0, 2.0, 3.0])
    d_x = np.zeros(3)
    value, adjoints = _python(text, "grad_two")(x, d_x, 3, (1.0, 0.0))
    assert value == (14.0, 28.0) and adjoints is None
    assert np.allclose(d_x, 2 * x)


def test_the_header_and_the_docstring_say_it(tmp_path, capsys):
    path = tmp_path / "model.py"
    path.write_text(MODEL)
    assert main(["grad", str(path), "--wrt", "x,a", "--with-value"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[1].endswith("--target py --with-value")
    assert "Returns (model(...), dJ/da), the value as model returns it." in " ".join(text.split())


@needs_gcc
def test_c_returns_the_value(tmp_path):
    text = pipeline.gradient_source(MODEL_C, "model.c", None, ["x", "a"], "c", WITH)
    assert "double grad_model(double *out, double *d_out, const double *x, double *d_x, double a, double *d_a, " \
           "int n, double d_return) {" in " ".join(text.split())
    src = tmp_path / "grad_model.c"
    src.write_text(text)
    lib = tmp_path / "grad_model.so"
    r = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-O2", "-shared", "-fPIC", str(src),
                        "-o", str(lib), "-lm"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    fn = ctypes.CDLL(str(lib)).grad_model
    fn.restype = ctypes.c_double
    x, a = _inputs()
    out, d_out, d_x = np.zeros(5), np.zeros(5), np.zeros(5)
    d_a = ctypes.c_double(0.0)
    ptr = ctypes.POINTER(ctypes.c_double)
    value = fn(*(v.ctypes.data_as(ptr) for v in (out, d_out, x, d_x)), ctypes.c_double(a), ctypes.byref(d_a),
               5, ctypes.c_double(1.0))
    primal = _python(MODEL, "model")
    assert value == pytest.approx(primal(np.zeros(5), x, a, 5), rel=1e-14)
    h = 1e-6
    fd = (primal(np.zeros(5), x, a + h, 5) - primal(np.zeros(5), x, a - h, 5)) / (2 * h)
    assert d_a.value == pytest.approx(fd, rel=1e-7)


def test_what_has_no_value_to_give_is_refused():
    source = "def fill(out, x, n: int):\n    for i in range(n):\n        out[i] = 2.0 * x[i]\n"
    with pytest.raises(DiagnosticError, match="--with-value: 'fill' returns no value"):
        pipeline.gradient_source(source, "fill.py", None, ["x"], "py", WITH)
    recursive = textwrap.dedent("""\
        def power(x: float, k: int):
            if k == 0:
                return 1.0
            return x * power(x, k - 1)
    """)
    with pytest.raises(DiagnosticError, match="--with-value: 'power' calls itself"):
        pipeline.gradient_source(recursive, "power.py", None, ["x"], "py", WITH)
    kernel = "__global__ void k(double *y, const double *x) {\n    y[threadIdx.x] = x[threadIdx.x];\n}\n"
    with pytest.raises(DiagnosticError, match="--with-value: 'k' returns no value"):
        pipeline.gradient_source(kernel, "k.cu", None, ["x"], "cuda", WITH)
