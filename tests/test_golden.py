"""Golden files: expected output of every case, and every case run and checked.

``pytest --update-golden`` rewrites the expected files; reviewers read the diff.
Beyond the text comparison, every expected gradient (Python and Numba) is
imported and checked against central finite differences of the primal under
the contract's shadow semantics, closed-form cases also against sympy, and all
generated Python must pass ``ruff check`` with ruff's default rules and come out as
``ruff format`` would write it.
"""

from __future__ import annotations

import builtins
import shutil
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from fd import check_gradient, written_arrays
from golden_cases import OUTPUTS, compare_with_golden, load_cases, load_module

from s2sad import pipeline
from s2sad.parse.python_frontend import parse_python

CASES = load_cases()
FILES = [*OUTPUTS, "expected.ir"]


def test_there_are_enough_golden_cases():
    assert len(CASES) >= 30


@pytest.mark.parametrize("filename", FILES)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_golden_output(case, filename, request):
    text = case.generate(filename)
    assert text == case.generate(filename), "output is not deterministic"
    path = case.folder / filename
    compare_with_golden(request, path, text)


@pytest.mark.parametrize("filename", list(OUTPUTS))
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_golden_gradient_matches_finite_differences(case, filename):
    primal = getattr(load_module(case.folder / "input.py", f"golden_input_{case.name}"), case.func)
    stem = filename.removesuffix(".py")
    grad_mod = load_module(case.folder / filename, f"golden_{case.name}_{stem}")
    gradient = getattr(grad_mod, f"grad_{case.func}")
    if filename == "expected_numba.py" and not case.numba_jit:
        gradient = gradient.py_func  # the same code, uncompiled (see GoldenCase.numba_jit)
    written = written_arrays(parse_python(case.source, "input.py", case.func), case.func)
    for seed in range(2):
        check_gradient(primal, gradient, case.params, case.wrt, written, np.random.default_rng(seed))


@pytest.mark.parametrize("level", [0, 1])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_gradient_at_other_levels_matches_finite_differences(case, level):
    """The expected files are -O2; -O0 and -O1 gradients must be just as correct."""
    options = pipeline.Options(level=level)
    text = pipeline.gradient_source(case.source, "input.py", case.func, case.wrt, "py", options)
    namespace: dict = {}
    exec(compile(text, f"<{case.name} -O{level}>", "exec"), namespace)
    primal = getattr(load_module(case.folder / "input.py", f"golden_input_{case.name}"), case.func)
    written = written_arrays(parse_python(case.source, "input.py", case.func), case.func)
    gradient = namespace[f"grad_{case.func}"]
    check_gradient(primal, gradient, case.params, case.wrt, written, np.random.default_rng(level))


@pytest.mark.skipif(
    shutil.which("ruff") is None and not Path(sys.executable).with_name("ruff").exists(), reason="ruff is not installed"
)
def test_generated_python_passes_ruff():
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    files = [str(c.folder / f) for c in CASES for f in OUTPUTS]
    r = subprocess.run([ruff, "check", "--isolated", "--no-cache", *files], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.skipif(
    shutil.which("ruff") is None and not Path(sys.executable).with_name("ruff").exists(), reason="ruff is not installed"
)
def test_generated_python_is_ruff_formatted():
    """Every Python file s2sad wrote under golden/ (from Python and from C input), as
    ``ruff format --check`` with its default settings wants it."""
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    files = sorted(str(p) for p in Path(CASES[0].folder).parent.rglob("expected*.py"))
    assert len(files) > 200
    r = subprocess.run([ruff, "format", "--isolated", "--no-cache", "--check", *files], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stdout + r.stderr


# ---------------------------------------------------------------- sympy oracle
_SYMPY_NAMES = {
    "sin": sp.sin,
    "cos": sp.cos,
    "tan": sp.tan,
    "exp": sp.exp,
    "log": sp.log,
    "sqrt": sp.sqrt,
    "tanh": sp.tanh,
    "sinh": sp.sinh,
    "cosh": sp.cosh,
    "atan": sp.atan,
    "arctan": sp.atan,
    "asin": sp.asin,
    "arcsin": sp.asin,
    "acos": sp.acos,
    "arccos": sp.acos,
    "atan2": sp.atan2,
    "arctan2": sp.atan2,
    "hypot": lambda a, b: sp.sqrt(a**2 + b**2),
    "pow": lambda a, b: a**b,
    "power": lambda a, b: a**b,
    "erf": sp.erf,
    "erfc": sp.erfc,
    "lgamma": lambda a: sp.log(sp.Abs(sp.gamma(a))),
    "gamma": sp.gamma,
    "asinh": sp.asinh,
    "acosh": sp.acosh,
    "atanh": sp.atanh,
    "cbrt": lambda a: sp.sign(a) * sp.Abs(a) ** sp.Rational(1, 3),
    "exp2": lambda a: 2**a,
    "copysign": lambda a, b: sp.Abs(a) * sp.sign(b),
    "ldexp": lambda a, n: a * 2**n,
    "log1p": lambda a: sp.log(1 + a),
    "expm1": lambda a: sp.exp(a) - 1,
    "maximum": sp.Max,
    "minimum": sp.Min,
    "fabs": sp.Abs,
    "abs": sp.Abs,
    "absolute": sp.Abs,
    "pi": sp.pi,
    "e": sp.E,
}


def _sympy_function(case):
    """The case's function evaluated on sympy symbols: math and numpy mapped to sympy."""
    shim = types.SimpleNamespace(**_SYMPY_NAMES)

    def fake_import(name, *args, **kwargs):
        if name.split(".")[0] in ("math", "numpy"):
            return shim
        return builtins.__import__(name, *args, **kwargs)

    fake = dict(vars(builtins), __import__=fake_import, abs=sp.Abs, min=sp.Min, max=sp.Max)
    namespace = {"__builtins__": fake}
    exec(compile(case.source, str(case.folder / "input.py"), "exec"), namespace)
    return namespace[case.func]


SYMPY_CASES = [c for c in CASES if c.sympy]


def test_closed_form_cases_exist():
    assert len(SYMPY_CASES) >= 8


@pytest.mark.parametrize("case", SYMPY_CASES, ids=lambda c: c.name)
def test_closed_form_gradient_matches_sympy(case):
    assert all(p.kind in ("float", "int") for p in case.params)
    symbols = [sp.Symbol(p.name, real=True) if p.kind == "float" else p.value for p in case.params]
    expr = _sympy_function(case)(*symbols)
    gradient = getattr(load_module(case.folder / "expected.py", f"golden_sympy_{case.name}"), f"grad_{case.func}")
    rng = np.random.default_rng(1)
    for _ in range(3):
        point = [p.sample(rng) for p in case.params]
        subs = {s: v for s, v in zip(symbols, point) if isinstance(s, sp.Symbol)}
        got = gradient(*point, d_return=1.0)
        got = got if isinstance(got, tuple) else (got,)
        wrt_symbols = [s for s, p in zip(symbols, case.params) if p.name in case.wrt]
        for g, s in zip(got, wrt_symbols):
            expect = float(sp.diff(expr, s).subs(subs).evalf())
            assert np.isclose(g, expect, rtol=1e-10, atol=1e-12), (s, g, expect)
