"""Custom derivatives (``--derivatives FILE``): the user's adjoint ``grad_f`` of a function
``f`` s2sad cannot see (a library call, a black box), called by the generated gradient.

Every gradient here is checked numerically: by ``s2sad check`` (central differences of the
user's own primal, run with the real library, or compiled with gcc) or by finite differences
written out; the mistakes a user can make get located errors with true hints."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import s2sad
from s2sad.cli import main

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

# The canonical case: scipy.special.gammaln, whose derivative is scipy.special.digamma.
LOGLIK = """\
import numpy as np
from scipy.special import gammaln


def loglik(x, n):
    s = 0.0
    for i in range(n):
        s += gammaln(x[i]) * x[i]
    return s
"""

GAMMALN_ADJOINT = """\
from scipy.special import digamma


def grad_gammaln(x, d_return=1.0):
    return d_return * digamma(x)
"""

# A black box that reads an array (and takes a scalar): the input imports both from their module.
MODEL = """\
import numpy as np

from physics import energy, wave


def model(x, a: float, n: int):
    s = 0.0
    for i in range(n):
        s += x[i] * wave(x[i], a)
    e = energy(x, a, n)
    x[0] = 2.0 * x[0]
    return s + e * x[0]
"""

PHYSICS = """\
import math


def wave(x, a):
    return math.sin(a * x)


def grad_wave(x, a, d_return=1.0):
    return d_return * a * math.cos(a * x), d_return * x * math.cos(a * x)


def energy(x, a, n):
    e = 0.0
    for i in range(n):
        e += a * x[i] * x[i]
    return e


def grad_energy(x, d_x, a, n, d_return=1.0):
    d_a = 0.0
    for i in range(n):
        d_x[i] += d_return * 2.0 * a * x[i]
        d_a += d_return * x[i] * x[i]
    return d_a
"""

MODEL_C = """\
double wave(double x, double a);
double energy(const double *x, double a, int n);

double model(double *x, double a, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += x[i] * wave(x[i], a);
    }
    double e = energy(x, a, n);
    x[0] = 2.0 * x[0];
    return s + e * x[0];
}
"""

PHYSICS_C = """\
#include <math.h>

double wave(double x, double a) { return sin(a * x); }

void grad_wave(double x, double *d_x, double a, double *d_a, double d_return)
{
    *d_x += d_return * a * cos(a * x);
    *d_a += d_return * x * cos(a * x);
}

double energy(const double *x, double a, int n)
{
    double e = 0.0;
    for (int i = 0; i < n; i++) e += a * x[i] * x[i];
    return e;
}

void grad_energy(const double *x, double *d_x, double a, double *d_a, int n, double d_return)
{
    for (int i = 0; i < n; i++) {
        d_x[i] += d_return * 2.0 * a * x[i];
        *d_a += d_return * x[i] * x[i];
    }
}
"""


def _files(tmp_path, **texts: str) -> dict[str, str]:
    out = {}
    for name, text in texts.items():
        path = tmp_path / name.replace("_py", ".py").replace("_c", ".c")
        path.write_text(text)
        out[name] = str(path)
    return out


def _check(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _grad(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["grad", *argv])
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------------------------------
# Python


def test_gammaln_through_its_custom_adjoint_matches_central_differences(tmp_path, capsys):
    f = _files(tmp_path, loglik_py=LOGLIK, gammaln_adjoint_py=GAMMALN_ADJOINT)
    code, out, err = _check(capsys, f["loglik_py"], "--wrt", "x", "--derivatives", f["gammaln_adjoint_py"],
                            "--range", "0.5,3")
    assert code == 0, out + err
    assert "all adjoints match central differences" in out


def test_python_output_imports_the_function_and_its_adjoint_and_is_ruff_clean(tmp_path, capsys):
    f = _files(tmp_path, loglik_py=LOGLIK, gammaln_adjoint_py=GAMMALN_ADJOINT)
    out_path = tmp_path / "grad_loglik.py"
    code, _, err = _grad(capsys, f["loglik_py"], "--wrt", "x", "--derivatives", f["gammaln_adjoint_py"],
                         "-o", str(out_path))
    assert code == 0, err
    text = out_path.read_text()
    assert "from gammaln_adjoint import grad_gammaln\nfrom scipy.special import gammaln\n" in text
    assert "--derivatives gammaln_adjoint.py" in text.splitlines()[1]  # the header's command, runnable
    assert "grad_gammaln(x[i], d_gammaln_value)" in text
    for args in (["check", "--isolated"], ["format", "--check", "--isolated"]):
        r = subprocess.run([sys.executable, "-m", "ruff", *args, str(out_path)], capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr
    # The same input gives the same bytes.
    assert _grad(capsys, f["loglik_py"], "--wrt", "x", "--derivatives", f["gammaln_adjoint_py"])[1] == text


def test_arrays_scalars_and_an_array_written_after_the_call(tmp_path, capsys):
    """``energy(x, ...)`` reads x, which the primal overwrites after the call: the adjoint is
    given x as the call saw it; ``wave``'s adjoint returns two scalars' adjoints (a tuple)."""
    f = _files(tmp_path, model_py=MODEL, physics_py=PHYSICS)
    code, out, err = _check(capsys, f["model_py"], "--wrt", "x,a", "--derivatives", f["physics_py"])
    assert code == 0, out + err
    text = _grad(capsys, f["model_py"], "--wrt", "x,a", "--derivatives", f["physics_py"])[1]
    assert "x_before_energy = x.copy()" in text
    assert "grad_energy(x_before_energy, d_x, a, n, d_e)" in text


def test_a_primal_the_derivatives_file_defines_is_imported_from_it(tmp_path, capsys):
    """The input calls ``wave`` without importing it (its module sets it up otherwise): the
    output imports it from the derivatives file, which defines it beside grad_wave."""
    source = MODEL.replace("from physics import energy, wave\n", "from physics import energy\n")
    f = _files(tmp_path, model_py=source, physics_py=PHYSICS)
    code, text, err = _grad(capsys, f["model_py"], "--wrt", "x,a", "--derivatives", f["physics_py"])
    assert code == 0, err
    assert "from physics import energy, grad_energy, grad_wave, wave\n" in text
    # Run it against finite differences of the primal, with wave bound as the module would bind it.
    sys.path.insert(0, str(tmp_path))
    try:
        namespace: dict = {}
        exec(compile(text, "grad_model.py", "exec"), namespace)
        primal: dict = {}
        exec(compile(source, "model.py", "exec"), primal)
        import physics  # noqa: E402  (written by this test)
        primal["wave"] = physics.wave
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("physics", None)
    rng = np.random.default_rng(3)
    x0, a, n = rng.uniform(-1, 1, 5), 0.6, 5
    d_x = np.zeros(5)
    d_a = namespace["grad_model"](x0.copy(), d_x, a, n, 1.0)
    h = 1e-6

    def J(x, a):
        return primal["model"](x.copy(), a, n)

    fd_x = [(J(x0 + e, a) - J(x0 - e, a)) / (2 * h) for e in np.eye(5) * h]
    assert np.allclose(d_x, fd_x, rtol=1e-6, atol=1e-8)
    assert abs(d_a - (J(x0, a + h) - J(x0, a - h)) / (2 * h)) < 1e-7


def test_a_wrong_custom_adjoint_is_caught_by_check(tmp_path, capsys):
    wrong = GAMMALN_ADJOINT.replace("d_return * digamma(x)", "d_return * digamma(x) * 1.01")
    f = _files(tmp_path, loglik_py=LOGLIK, gammaln_adjoint_py=wrong)
    code, out, _ = _check(capsys, f["loglik_py"], "--wrt", "x", "--derivatives", f["gammaln_adjoint_py"],
                          "--range", "0.5,3")
    assert code == 1
    assert "MISMATCH" in out or "mismatch" in out


def test_the_python_api_takes_derivatives(tmp_path, monkeypatch):
    f = _files(tmp_path, loglik_py=LOGLIK, gammaln_adjoint_py=GAMMALN_ADJOINT)
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    loglik = importlib.import_module("loglik").loglik
    grad = s2sad.grad(loglik, wrt="x", derivatives=[f["gammaln_adjoint_py"]])
    x = np.array([0.7, 1.3, 2.9])
    d_x = np.zeros(3)
    grad(x, d_x, 3)
    from scipy.special import digamma, gammaln

    assert np.allclose(d_x, gammaln(x) + x * digamma(x), rtol=1e-12)
    sys.modules.pop("loglik", None)
    sys.modules.pop("gammaln_adjoint", None)


# ------------------------------------------------------------------------------------------
# C


@needs_gcc
def test_c_custom_adjoints_match_central_differences(tmp_path, capsys):
    f = _files(tmp_path, model_c=MODEL_C, physics_c=PHYSICS_C)
    code, out, err = _check(capsys, f["model_c"], "--wrt", "x,a", "--derivatives", f["physics_c"])
    assert code == 0, out + err


@needs_gcc
def test_c_output_declares_the_adjoints_and_compiles_without_warnings(tmp_path, capsys):
    f = _files(tmp_path, model_c=MODEL_C, physics_c=PHYSICS_C)
    code, text, err = _grad(capsys, f["model_c"], "--wrt", "x,a", "--derivatives", f["physics_c"])
    assert code == 0, err
    assert ("/* Defined outside this file, with custom adjoints in physics.c (--derivatives): link it. */\n"
            "double wave(double x, double a);\n") in text
    assert "void grad_wave(double x, double *d_x, double a, double *d_a, double d_return);" in text
    out = tmp_path / "grad_model.c"
    out.write_text(text)
    r = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-O2", "-c", str(out), "-o",
                        str(tmp_path / "grad_model.o")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


# ------------------------------------------------------------------------------------------
# Mistakes, located


def test_an_adjoint_of_the_wrong_arity_is_located_at_the_call(tmp_path, capsys):
    bad = GAMMALN_ADJOINT.replace("def grad_gammaln(x, d_return=1.0):", "def grad_gammaln(x):")
    bad = bad.replace("d_return * digamma(x)", "digamma(x)")
    f = _files(tmp_path, loglik_py=LOGLIK, gammaln_adjoint_py=bad)
    code, _, err = _grad(capsys, f["loglik_py"], "--wrt", "x", "--derivatives", f["gammaln_adjoint_py"])
    assert code == 1
    assert "loglik.py:8:14: error: 'grad_gammaln' takes 1 parameter(s), and this call needs 2: " \
           "def grad_gammaln(x, d_return), which returns d_x" in err
    assert "hint: see " in err and "gammaln_adjoint.py:4" in err


@needs_gcc
def test_a_c_adjoint_that_does_not_fit_the_prototype_is_located(tmp_path, capsys):
    bad = PHYSICS_C.replace("void grad_wave(double x, double *d_x, double a, double *d_a, double d_return)",
                            "void grad_wave(double x, double *d_x, double a, double d_return)")
    bad = bad.replace("    *d_a += d_return * x * cos(a * x);\n", "")
    f = _files(tmp_path, model_c=MODEL_C, physics_c=bad)
    code, _, err = _grad(capsys, f["model_c"], "--wrt", "x,a", "--derivatives", f["physics_c"])
    assert code == 1
    assert "model.c:8:21: error: 'grad_wave' does not take what the gradient passes: void grad_wave(double x, " \
           "double *d_x, double a, double *d_a, double d_return)" in err


def test_a_call_without_source_or_adjoint_points_to_derivatives(tmp_path, capsys):
    # (gammaln itself is one of the scipy.special functions s2sad differentiates; gamma is not)
    f = _files(tmp_path, loglik_py=LOGLIK.replace("gammaln", "gamma"))
    code, _, err = _grad(capsys, f["loglik_py"], "--wrt", "x")
    assert code == 1
    assert "loglik.py:8:14: error: cannot differentiate through call to 'gamma': its source is not in " \
           "loglik.py" in err
    assert "or give it a custom derivative: a function grad_gamma in a file passed with --derivatives (see README, " \
           "Custom derivatives)" in err


def test_an_imported_function_of_inactive_numbers_needs_no_derivative(tmp_path, capsys):
    """``gamma(n / 2.0)`` with ``n`` an integer: called where the primal calls it, its value
    kept for the reverse sweep (float() checks that it is a number), no adjoint asked for;
    imported in the output as in the input."""
    source = textwrap.dedent("""\
        from scipy.special import gamma


        def lik(x, n: int):
            c = gamma(n / 2.0)
            s = 0.0
            for i in range(n):
                s += c * x[i] * x[i]
            return s
    """)
    f = _files(tmp_path, lik_py=source)
    code, out, err = _check(capsys, f["lik_py"], "--wrt", "x")
    assert code == 0, out + err
    text = _grad(capsys, f["lik_py"], "--wrt", "x")[1]
    assert "from scipy.special import gamma\n" in text and "c = float(gamma(float(n) / 2.0))" in text


def test_an_array_passed_to_a_function_without_source_needs_a_custom_derivative(tmp_path, capsys):
    """A function s2sad cannot see may change an array it is given: without a custom adjoint
    (which states that it only reads them) passing one is refused, located at the argument."""
    source = textwrap.dedent("""\
        from physics import energy


        def f(x: "f64[n]", a: float, n: int):
            return energy(x, a, n) * 2.0
    """)
    f = _files(tmp_path, f_py=source)
    code, _, err = _grad(capsys, f["f_py"], "--wrt", "a")
    assert code == 1
    assert "f.py:5:19: error: 'energy' is defined outside f.py, and may change the array it is " \
           "passed here" in err


@needs_gcc
def test_an_active_c_extern_without_adjoint_points_to_derivatives(tmp_path, capsys):
    f = _files(tmp_path, model_c=MODEL_C)
    code, _, err = _grad(capsys, f["model_c"], "--wrt", "x,a")
    assert code == 1
    assert "a function grad_energy in a file passed with --derivatives (see README, Custom derivatives)" in err


def test_files_that_cannot_serve(tmp_path, capsys):
    f = _files(tmp_path, loglik_py=LOGLIK, empty_py="import math\n\n\ndef helper(x):\n    return x\n",
               physics_c=PHYSICS_C)
    code, _, err = _grad(capsys, f["loglik_py"], "--wrt", "x", "--derivatives", f["empty_py"])
    assert code == 1 and "it defines no custom adjoint" in err and "name the adjoint of a function f grad_f" in err
    code, _, err = _grad(capsys, f["loglik_py"], "--wrt", "x", "--derivatives", str(tmp_path / "missing.py"))
    assert code == 2 and "--derivatives" in err and "no such file" in err
    twice = _files(tmp_path, again_py=GAMMALN_ADJOINT, once_py=GAMMALN_ADJOINT)
    code, _, err = _grad(capsys, f["loglik_py"], "--wrt", "x", "--derivatives", twice["again_py"],
                         "--derivatives", twice["once_py"])
    assert code == 1 and "a second custom adjoint of 'gammaln'" in err


def test_a_c_adjoint_for_python_input_is_refused(tmp_path, capsys):
    source = textwrap.dedent("""\
        from physics import wave


        def f(x: float, a: float):
            return wave(x, a)
    """)
    f = _files(tmp_path, f_py=source, physics_c=PHYSICS_C)
    code, _, err = _grad(capsys, f["f_py"], "--wrt", "x", "--derivatives", f["physics_c"])
    assert code == 1
    assert "the custom adjoint of 'wave' is C" in err and "this input is Python" in err


# ------------------------------------------------------------------------------------------
# The README's examples, as it runs them

EXAMPLES = "examples/custom_derivatives"


def test_the_python_example_checks(capsys):
    code, out, err = _check(capsys, f"{EXAMPLES}/poisson.py", "--wrt", "theta,k", "--range", "0.5,3",
                            "--derivatives", f"{EXAMPLES}/gammaln_adjoint.py")
    assert code == 0, out + err


@needs_gcc
def test_the_c_example_checks(capsys):
    code, out, err = _check(capsys, f"{EXAMPLES}/spring.c", "--wrt", "x,k0",
                            "--derivatives", f"{EXAMPLES}/stiffness.c")
    assert code == 0, out + err


def test_ir_and_gradient_source_take_derivatives(capsys):
    assert main(["ir", f"{EXAMPLES}/poisson.py", "--derivatives", f"{EXAMPLES}/gammaln_adjoint.py"]) == 0
    assert "extern" in capsys.readouterr().out
    text = s2sad.gradient_source(f"{EXAMPLES}/spring.c", wrt="x,k0", target="c",
                                 derivatives=[f"{EXAMPLES}/stiffness.c"])
    assert "grad_stiffness(d, &d_d, k0, &d_k0_local, d_stiffness_value);" in text


def test_a_function_of_the_input_with_a_custom_adjoint_is_called_not_differentiated(tmp_path, capsys):
    """A solver the user does not want differentiated through: its custom adjoint replaces it;
    the output imports it from the input's module (Python) or declares it (C, linked with the
    input). A wrong adjoint is caught by check, against the real function."""
    source = textwrap.dedent("""\
        import math


        def wave(x, a):
            return math.sin(a * x)


        def here(x, a: float, n: int):
            s = 0.0
            for i in range(n):
                s += wave(x[i], a) * x[i]
            return s
    """)
    adjoint = textwrap.dedent("""\
        import math


        def grad_wave(x, a, d_return=1.0):
            return d_return * a * math.cos(a * x), d_return * x * math.cos(a * x)
    """)
    f = _files(tmp_path, here_py=source, wave_adjoint_py=adjoint)
    code, out, err = _check(capsys, f["here_py"], "--func", "here", "--wrt", "x,a", "--derivatives",
                            f["wave_adjoint_py"])
    assert code == 0, out + err
    text = _grad(capsys, f["here_py"], "--func", "here", "--wrt", "x,a", "--derivatives", f["wave_adjoint_py"])[1]
    assert "from here import wave\nfrom wave_adjoint import grad_wave\n" in text and "def wave(" not in text
    wrong = _files(tmp_path, wrong_py=adjoint.replace("d_return * a * math.cos", "d_return * 1.1 * a * math.cos"))
    assert _check(capsys, f["here_py"], "--func", "here", "--wrt", "x,a", "--derivatives", wrong["wrong_py"])[0] == 1


@needs_gcc
def test_a_c_function_of_the_input_with_a_custom_adjoint(tmp_path, capsys):
    source = textwrap.dedent("""\
        double wave(double x, double a) { return 3.0 * x * a; }

        double f(const double *x, double a, int n)
        {
            double s = 0.0;
            for (int i = 0; i < n; i++) s += x[i] * wave(x[i], a);
            return s;
        }
    """)
    adjoint = textwrap.dedent("""\
        void grad_wave(double x, double *d_x, double a, double *d_a, double d_return)
        {
            *d_x += d_return * 3.0 * a;
            *d_a += d_return * 3.0 * x;
        }
    """)
    f = _files(tmp_path, model_c=source, wave_adjoint_c=adjoint)
    code, out, err = _check(capsys, f["model_c"], "--func", "f", "--wrt", "x,a", "--derivatives", f["wave_adjoint_c"])
    assert code == 0, out + err
    static = _files(tmp_path, static_c=source.replace("double wave(", "static double wave("))
    code, _, err = _grad(capsys, static["static_c"], "--func", "f", "--wrt", "x", "--derivatives", f["wave_adjoint_c"])
    assert code == 1 and "static.c:1:15: error: 'wave' has a custom adjoint" in err and "drop static" in err


def test_numba_output_calls_numba_compiled_adjoints(tmp_path, capsys):
    """For --target numba the function and its adjoint are Numba functions of their module."""
    physics = textwrap.dedent("""\
        import math

        import numba


        @numba.njit
        def wave(x, a):
            return math.sin(a * x)


        @numba.njit
        def grad_wave(x, a, d_return=1.0):
            return d_return * a * math.cos(a * x), d_return * x * math.cos(a * x)
    """)
    source = textwrap.dedent("""\
        from physics_nb import wave


        def m(x, a: float, n: int):
            s = 0.0
            for i in range(n):
                s += x[i] * wave(x[i], a)
            return s
    """)
    f = _files(tmp_path, m_py=source, physics_nb_py=physics)
    code, out, err = _check(capsys, f["m_py"], "--wrt", "x,a", "--target", "numba",
                            "--derivatives", f["physics_nb_py"])
    assert code == 0, out + err


# ------------------------------------------------------------------------------------------
# Parallel loops

SPRINGS_OMP_C = """\
double wave(double x, double a);

void springs(const double *x, double *e, double a, int n)
{
    #pragma omp parallel for
    for (int i = 0; i < n; i++) {
        double d = x[i + 1] - x[i];
        e[i] = d * wave(d, a);
    }
}
"""

SPRINGS_DRIVER_C = """\
#include <stdio.h>

void grad_springs(const double *x, double *d_x, double *e, double *d_e, double a, double *d_a, int n);

int main(void)
{
    enum { N = 4000 };
    static double x[N + 1], d_x[N + 1], e[N], d_e[N];
    for (int i = 0; i <= N; i++) x[i] = 0.001 * i * i / N + 0.3 * (i % 7);
    for (int i = 0; i < N; i++) d_e[i] = 1.0 + 0.5 * (i % 3);
    double d_a = 0.0;
    grad_springs(x, d_x, e, d_e, 0.7, &d_a, N);
    double s = 0.0;
    for (int i = 0; i <= N; i++) s += d_x[i] * (1.0 + i % 5);
    printf("%.17g %.17g\\n", d_a, s);
    return 0;
}
"""


@needs_gcc
def test_a_scalar_custom_adjoint_in_an_openmp_loop_adds_into_each_threads_own_adjoint(tmp_path, capsys):
    """Its scalar adjoints come back through pointers to the reduction's private variables, so
    the parallel gradient matches the serial one (itself checked against central differences)."""
    f = _files(tmp_path, springs_c=SPRINGS_OMP_C, physics_c=PHYSICS_C, driver_c=SPRINGS_DRIVER_C)
    code, out, err = _check(capsys, f["springs_c"], "--wrt", "x,a", "--derivatives", f["physics_c"], "--size", "9")
    assert code == 0, out + err
    code, text, err = _grad(capsys, f["springs_c"], "--wrt", "x,a", "--derivatives", f["physics_c"])
    assert code == 0, err
    assert "reduction(+: d_a_local)" in text and "grad_wave(d, &d_d, a, &d_a_local, " in text
    grad = tmp_path / "grad_springs.c"
    grad.write_text(text)
    results = []
    for flags in ([], ["-fopenmp"]):
        exe = tmp_path / f"springs{len(flags)}"
        subprocess.run(["gcc", "-std=c99", "-O2", "-Wall", "-Wextra", *flags, str(grad), f["physics_c"],
                        f["driver_c"], "-lm", "-o", str(exe)], check=True, capture_output=True)
        run = subprocess.run([str(exe)], capture_output=True, text=True, check=True,
                             env={"OMP_NUM_THREADS": "4"})
        results.append([float(v) for v in run.stdout.split()])
    np.testing.assert_allclose(results[1], results[0], rtol=1e-12)


def test_a_custom_adjoint_of_arrays_in_an_openmp_loop_is_refused_at_the_call(tmp_path, capsys):
    src = """\
double energy(const double *x, double a, int n);

double total(const double *x, double a, int n)
{
    double s = 0.0;
    #pragma omp parallel for reduction(+: s)
    for (int i = 0; i < n; i++)
        s += energy(x, a, i);
    return s;
}
"""
    f = _files(tmp_path, total_c=src, physics_c=PHYSICS_C)
    code, _, err = _grad(capsys, f["total_c"], "--wrt", "x,a", "--derivatives", f["physics_c"])
    assert code == 1
    assert ("total.c:8:14: error: C output: the custom adjoint 'grad_energy' adds into the adjoints of the arrays it "
            "is passed, in iterations that run at once and may pass the same arrays") in err, err
    assert "hint: drop the loop's parallel pragma" in err
