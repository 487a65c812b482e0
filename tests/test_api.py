"""The Python API (s2sad.api): grad, value_and_grad, gradient_source, ir, the disk cache and
DifferentiationError, on modules written to files and imported as a user would."""

from __future__ import annotations

import importlib
import itertools
import textwrap

import numpy as np
import pytest
import scipy.optimize

import s2sad
from s2sad import api, pipeline

_names = itertools.count()

SUM_OF_SQUARES = """\
import numpy as np


def energy(x, w, a: float):
    s = 0.0
    for i in range(x.shape[0]):
        s += w[i] * np.sin(a * x[i]) ** 2
    return s + np.sum(x * x)


def rosen(x):
    s = 0.0
    for i in range(x.shape[0] - 1):
        s += 100.0 * (x[i + 1] - x[i] * x[i]) ** 2 + (1.0 - x[i]) ** 2
    return s


def scale(out, x, a: float):
    for i in range(x.shape[0]):
        out[i] = a * x[i] * x[i]


def calls_unknown(x):
    return x[0] + helper_elsewhere(x)
"""


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """Every test its own cache directory and an empty in-process memo."""
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(api, "_loaded", {})
    return tmp_path / "cache"


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    """Write ``text`` as a module file and import it, as the user's own module."""
    monkeypatch.syspath_prepend(str(tmp_path))

    def make(text: str):
        name = f"user_mod_{next(_names)}"
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(text))
        return importlib.import_module(name)

    return make


def _central(f, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    out = np.zeros_like(x)
    for i in range(x.size):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        out[i] = (f(up) - f(down)) / (2 * h)
    return out


def test_grad_matches_central_differences(user_module):
    m = user_module(SUM_OF_SQUARES)
    grad_energy = s2sad.grad(m.energy, wrt=("x", "a"))
    rng = np.random.default_rng(1)
    x, w, a = rng.normal(size=5), rng.uniform(size=5), 0.7
    d_x = np.zeros(5)
    d_a = grad_energy(x, d_x, w, a)  # the contract's signature: d_x after x, a's adjoint returned
    np.testing.assert_allclose(d_x, _central(lambda v: m.energy(v, w, a), x), rtol=1e-6, atol=1e-8)
    expected_a = (m.energy(x, w, a + 1e-6) - m.energy(x, w, a - 1e-6)) / 2e-6
    assert d_a == pytest.approx(expected_a, rel=1e-6)


def test_written_arrays_follow_the_shadow_semantics(user_module):
    m = user_module(SUM_OF_SQUARES)
    grad_scale = s2sad.grad(m.scale, wrt="x")
    x = np.array([1.0, 2.0, 3.0])
    out, d_out, d_x = np.zeros(3), np.array([1.0, 0.5, 2.0]), np.zeros(3)
    assert grad_scale(out, d_out, x, d_x, 3.0) is None
    np.testing.assert_allclose(out, 3.0 * x * x)  # the primal's side effect
    np.testing.assert_allclose(d_x, [1.0 * 6 * 1, 0.5 * 6 * 2, 2.0 * 6 * 3])
    np.testing.assert_array_equal(d_out, 0.0)  # out's entry value was overwritten


def test_value_and_grad_drives_scipy_minimize_to_the_minimum(user_module):
    m = user_module(SUM_OF_SQUARES)
    fun = s2sad.value_and_grad(m.rosen, wrt="x")
    x0 = np.array([-1.2, 1.0, -0.5, 0.8])
    value, gradient = fun(x0)
    assert value == pytest.approx(m.rosen(x0))
    assert gradient.shape == x0.shape and gradient is not fun(x0)[1]  # a fresh array each call
    np.testing.assert_allclose(gradient, _central(m.rosen, x0), rtol=1e-6)
    np.testing.assert_array_equal(x0, [-1.2, 1.0, -0.5, 0.8])  # the caller's x is left alone
    result = scipy.optimize.minimize(fun, x0, jac=True, method="BFGS", options={"gtol": 1e-8})
    assert result.success
    np.testing.assert_allclose(result.x, np.ones(4), atol=1e-5)


def test_value_and_grad_with_several_parameters_gives_a_tuple_in_wrt_order(user_module):
    m = user_module(SUM_OF_SQUARES)
    fun = s2sad.value_and_grad(m.energy, wrt=("a", "x"))
    x, w = np.array([0.3, -0.2]), np.array([1.0, 2.0])
    value, (d_a, d_x) = fun(x, w, 0.5)
    assert value == pytest.approx(m.energy(x, w, 0.5))
    assert isinstance(d_a, float) and d_x.shape == (2,)
    np.testing.assert_allclose(d_x, _central(lambda v: m.energy(v, w, 0.5), x), rtol=1e-6)


def test_value_and_grad_refuses_a_function_without_a_value(user_module):
    m = user_module(SUM_OF_SQUARES)
    with pytest.raises(TypeError, match="returns a number"):
        s2sad.value_and_grad(m.scale, wrt="x")


def test_a_second_grad_reads_the_disk_cache_instead_of_translating(user_module, monkeypatch, private_cache):
    m = user_module(SUM_OF_SQUARES)
    calls = []
    real = pipeline.gradient_source
    monkeypatch.setattr(pipeline, "gradient_source", lambda *a, **k: calls.append(a[2]) or real(*a, **k))
    first = s2sad.grad(m.rosen, wrt="x", level=1)
    assert calls == ["rosen"]
    entries = list(private_cache.glob("rosen_*.py"))
    assert len(entries) == 1 and "def grad_rosen(x, d_x" in entries[0].read_text()
    monkeypatch.setattr(api, "_loaded", {})  # as a new process would start: only the disk cache
    second = s2sad.grad(m.rosen, wrt="x", level=1)
    assert calls == ["rosen"]  # no second translation
    assert second.__code__.co_filename == str(entries[0])  # a real file-backed module
    x = np.array([0.1, 0.2, 0.3])
    d1, d2 = np.zeros(3), np.zeros(3)
    first(x, d1)
    second(x, d2)
    np.testing.assert_array_equal(d1, d2)
    s2sad.grad(m.rosen, wrt="x", level=0)  # another option is another entry
    assert calls == ["rosen", "rosen"] and len(list(private_cache.glob("rosen_*.py"))) == 2
    assert not list(private_cache.glob(".*"))  # no temporary file left behind


def test_the_cache_lives_under_xdg_cache_home_without_s2sad_cache_dir(user_module, monkeypatch, tmp_path):
    m = user_module(SUM_OF_SQUARES)
    monkeypatch.delenv("S2SAD_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert api.cache_dir() == tmp_path / "xdg" / "s2sad"
    s2sad.grad(m.rosen, wrt="x")
    assert len(list((tmp_path / "xdg" / "s2sad").glob("rosen_*.py"))) == 1


def test_errors_are_differentiation_errors_with_the_located_message(user_module):
    m = user_module(SUM_OF_SQUARES)
    with pytest.raises(s2sad.DifferentiationError) as caught:
        s2sad.grad(m.calls_unknown, wrt="x")
    message = str(caught.value)
    file = m.__name__ + ".py"
    assert message.startswith(f"{file}:24:19: error: cannot differentiate through call to 'helper_elsewhere'")
    assert "    return x[0] + helper_elsewhere(x)\n" in message and "^~~" in message
    assert isinstance(caught.value, Exception) and caught.value.diagnostics
    with pytest.raises(s2sad.DifferentiationError, match="has no parameter 'y'"):
        s2sad.grad(m.rosen, wrt="y")


def test_nested_functions_are_refused_not_confused_with_module_level_ones(user_module):
    def rosen(x):  # same name as the module-level function of SUM_OF_SQUARES, but another one
        return x[0]

    with pytest.raises(s2sad.DifferentiationError, match="not defined at the top level"):
        s2sad.grad(rosen, wrt="x")


def test_numba_njit_functions_in_a_package(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    package = tmp_path / "user_pkg_numba"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "model.py").write_text(textwrap.dedent("""\
        import numba


        @numba.njit
        def quartic(x, c: float):
            s = 0.0
            for i in range(x.shape[0]):
                s += c * x[i] ** 4
            return s
        """))
    model = importlib.import_module("user_pkg_numba.model")
    x = np.array([0.5, -1.0, 2.0])
    for target in ("numba", "py"):
        gradient = s2sad.grad(model.quartic, wrt=("x", "c"), target=target)
        d_x = np.zeros(3)
        d_c = gradient(x, d_x, 3.0)
        np.testing.assert_allclose(d_x, 12.0 * x ** 3)
        assert d_c == pytest.approx(np.sum(x ** 4))
    assert hasattr(s2sad.grad(model.quartic, wrt="x", target="numba"), "py_func")  # compiled by Numba


def test_gradient_source_and_ir_give_the_command_lines_text(tmp_path):
    path = tmp_path / "norm2.c"
    path.write_text("double norm2(double *x, int n) {\n    double s = 0.0;\n"
                    "    for (int i = 0; i < n; i++) s += x[i] * x[i];\n    return s;\n}\n")
    text = s2sad.gradient_source(str(path), wrt="x", target="c")
    assert text == pipeline.gradient_source(path.read_text(), str(path), None, ["x"], "c")
    assert "void grad_norm2(double *x, double *d_x, int n, double d_return)" in text
    assert s2sad.ir(path).startswith('module "norm2.c"')
    with pytest.raises(ValueError, match="level must be 0, 1 or 2"):
        s2sad.gradient_source(path, wrt="x", level=3)
    with pytest.raises(s2sad.DifferentiationError, match=r"norm2\.c:1:\d+: error: --wrt n: .* is an integer"):
        s2sad.gradient_source(path, wrt="n")


def test_the_scipy_example_runs_as_written(capsys):
    import runpy
    from pathlib import Path

    runpy.run_path(str(Path(__file__).parent.parent / "examples" / "optimize_with_scipy.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert out.startswith("success: True") and "minimum at x = [1. 1. 1. 1. 1.]" in out


def test_deeply_nested_input_translates_in_process_as_on_the_command_line(tmp_path):
    """A 1,500-deep nest of parentheses is recursion 1,500 deep in the parsers and printers: the
    API translates on the command line's deep stack (s2sad/deep_stack.py) and leaves the
    interpreter's recursion limit as it found it."""
    import sys

    depth = 1500
    path = tmp_path / "deep.c"
    path.write_text("double deep(double x)\n{\n    return " + "(" * depth + "x" + " * 1.0)" * depth + ";\n}\n")
    limit = sys.getrecursionlimit()
    text = s2sad.gradient_source(str(path), wrt="x", target="c")
    assert "void grad_deep(double x, double *d_x, double d_return)" in text
    assert sys.getrecursionlimit() == limit


def test_a_translation_collects_less_often_and_restores_the_collector(tmp_path, monkeypatch):
    """While a translation runs, young collections come every 10,000 allocations and the middle
    generation is walked every thousand of them (s2sad/interpreter_settings.py: most of what a
    translation allocates lives to its end); afterwards the caller's thresholds are back, and a
    caller's own higher threshold is never lowered."""
    import gc

    import s2sad.pipeline as pipeline

    seen = []
    emit = pipeline.emit_source

    def watched(*args, **kwargs):
        seen.append(gc.get_threshold())
        return emit(*args, **kwargs)

    monkeypatch.setattr(pipeline, "emit_source", watched)
    path = tmp_path / "f.c"
    path.write_text("double f(double x)\n{\n    return x * x;\n}\n")
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 5_000, 10)
        s2sad.gradient_source(str(path), wrt="x", target="c")
        assert seen == [(10_000, 5_000, 100)]
        assert gc.get_threshold() == (700, 5_000, 10)
    finally:
        gc.set_threshold(*before)
