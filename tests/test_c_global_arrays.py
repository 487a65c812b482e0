"""Arrays at file scope (parse/c_global_arrays.py): a function that uses them, itself or through
its helpers, is differentiated as written; its C gradient keeps the user's signature and works
on the program's arrays (declared extern), with adjoints of its own.

Each program is compiled by gcc (-Wall -Wextra -Werror) with its gradient, as a user links them,
and the gradient is compared with central differences of the compiled primal; the arrays the
program holds are set through the library, as the program would set them.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np
import pytest

from cbuild import INPUT_FLAGS, build, have_gcc
from source_gradients import CALLS_KEPT
from fd import central_difference
from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError

pytestmark = pytest.mark.skipif(not have_gcc(), reason="needs gcc")

# A work array a helper fills inside a loop and the caller reads (the scratch buffer of legacy
# code), a 2-D array filled and read through a helper, and a table the program sets (`scale`),
# which the gradient reads as the program left it.
PROGRAM = """#include <math.h>
#define N 8
#define M 3

double work[N];
double grid[N][M];
double scale[N];

static void diff1(const double *x, int n)
{
    for (int i = 0; i < n - 1; i++) work[i] = x[i + 1] - x[i];
}

static double rowsum(int i)
{
    double s = 0.0;
    for (int j = 0; j < M; j++) s += grid[i][j] * grid[i][j];
    return s;
}

double f(const double *x, int n, double lam)
{
    double s = 0.0;
    for (int k = 0; k < 3; k++) {
        diff1(x, n);
        for (int i = 0; i < n - 2; i++) {
            double c = work[i + 1] - work[i] + k * lam;
            s += sin(c) * c;
        }
        for (int i = 0; i < n; i++)
            for (int j = 0; j < M; j++) grid[i][j] = scale[i] * x[i] * (j + 1 + k);
        for (int i = 0; i < n; i++) s += lam * rowsum(i);
    }
    return s;
}
"""


def _library(tmp_path: Path, level: int):
    text = pipeline.gradient_source(PROGRAM, "prog.c", "f", ["x", "lam"], "c", pipeline.Options(level=level))
    user = tmp_path / "prog.c"
    user.write_text(PROGRAM)
    return text, build(text, INPUT_FLAGS, (user,))


@pytest.mark.parametrize("level", [0, 2])
def test_file_scope_arrays_are_the_programs_and_the_gradient_matches_central_differences(tmp_path, level):
    text, lib = _library(tmp_path, level)
    assert "void grad_f(const double *x, double *d_x, int n, double lam, double *d_lam, double d_return)" in text
    assert "extern double work[N];" in text and "extern double grid[N][M];" in text
    n = 6
    scale = (ctypes.c_double * 8).in_dll(lib, "scale")
    scale[:] = [0.5, -1.0, 2.0, 0.25, 1.5, -0.75, 9.0, 9.0]  # the program's values, read by both
    f = lib.f
    f.argtypes = [ctypes.POINTER(ctypes.c_double), ctypes.c_int, ctypes.c_double]
    f.restype = ctypes.c_double
    grad = lib.grad_f
    grad.argtypes = [ctypes.POINTER(ctypes.c_double)] * 2 + [ctypes.c_int, ctypes.c_double,
                                                             ctypes.POINTER(ctypes.c_double), ctypes.c_double]
    ptr = ctypes.POINTER(ctypes.c_double)

    def primal(x: np.ndarray, lam: float) -> float:
        return f(np.ascontiguousarray(x).ctypes.data_as(ptr), n, lam)

    x = np.random.default_rng(7).uniform(-1.0, 1.0, n)
    lam = 0.3
    d_x, d_lam = np.zeros(n), ctypes.c_double(0.0)
    for _ in range(2):  # a second call starts from zeroed adjoints again
        d_x[:] = 0.0
        d_lam.value = 0.0
        grad(x.ctypes.data_as(ptr), d_x.ctypes.data_as(ptr), n, lam, ctypes.byref(d_lam), 1.0)
    assert np.allclose(d_x, central_difference(primal, [x, lam], 0), rtol=1e-7, atol=1e-8)
    assert d_lam.value == pytest.approx(float(central_difference(primal, [x, lam], 1)), rel=1e-7)
    # The gradient leaves in the program's arrays what f leaves there.
    work = (ctypes.c_double * 8).in_dll(lib, "work")
    after_gradient = list(work)
    primal(x, lam)
    assert list(work) == after_gradient


@pytest.mark.parametrize("target", ["py", "numba"])
def test_python_output_of_a_function_using_a_file_scope_array_is_refused(target):
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(PROGRAM, "prog.c", "f", ["x"], target)
    (d,) = info.value.diagnostics
    assert "uses the array 'work' at file scope, which only C output can reach" in d.message
    assert "--target c" in d.hint


def test_a_file_scope_array_is_no_parameter_to_differentiate_by():
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(PROGRAM, "prog.c", "f", ["work"], "c")
    (d,) = info.value.diagnostics
    assert "'work' is an array at file scope" in d.message and d.hint == "its parameters are: x, n, lam"


@pytest.mark.parametrize("level", [0, 2])
def test_a_static_work_array_is_the_gradients_own(tmp_path, level):
    """probe t34: a static array (the gradient's file cannot reach it) that f writes before reading
    it, in a helper called in the loop: the gradient has one of its own, as good as the program's."""
    source = PROGRAM.replace("double work[N];", "static double work[N];")
    text = pipeline.gradient_source(source, "prog.c", "f", ["x"], "c", pipeline.Options(level=level))
    assert "static double work[N];" in text and "extern double work" not in text
    user = tmp_path / "prog.c"
    user.write_text(source)
    lib = build(text, INPUT_FLAGS, (user,))
    (ctypes.c_double * 8).in_dll(lib, "scale")[:] = [1.0] * 8
    ptr = ctypes.POINTER(ctypes.c_double)
    f = lib.f
    f.argtypes, f.restype = [ptr, ctypes.c_int, ctypes.c_double], ctypes.c_double
    grad = lib.grad_f
    grad.argtypes = [ptr, ptr, ctypes.c_int, ctypes.c_double, ctypes.c_double]
    x, d_x = np.random.default_rng(3).uniform(-1.0, 1.0, 5), np.zeros(5)
    grad(x.ctypes.data_as(ptr), d_x.ctypes.data_as(ptr), 5, 0.3, 1.0)
    expected = central_difference(lambda v: f(np.ascontiguousarray(v).ctypes.data_as(ptr), 5, 0.3), [x], 0)
    assert np.allclose(d_x, expected, rtol=1e-7, atol=1e-8)


STATE = """#define N 4
static double last[N];
double f(const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += READ * x[i];
        last[i] = x[i];
    }
    return s;
}
"""


@pytest.mark.parametrize("read", ["last[i]", "last[0]"])
def test_a_static_array_read_before_it_is_written_is_refused(read):
    """What an earlier call left in a static array: the gradient's own array could not hold it."""
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(STATE.replace("READ", read), "prog.c", "f", ["x"], "c")
    (d,) = info.value.diagnostics
    assert "'last' is a static array at file scope, and s2sad cannot tell that 'f' writes every element" \
        in d.message and d.hint.startswith("drop static") and d.loc.line == 3


def test_a_static_array_read_past_what_was_written_is_refused():
    source = PROGRAM.replace("double work[N];", "static double work[N];").replace(
        "for (int i = 0; i < n - 2; i++) {\n            double c = work[i + 1]",
        "for (int i = 0; i < n - 1; i++) {\n            double c = work[i + 1]")
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(source, "prog.c", "f", ["x"], "c")
    assert "'work' is a static array at file scope" in info.value.diagnostics[0].message


def test_a_local_of_the_arrays_name_is_the_functions_own():
    own = "static double rowsum(int i)\n{\n    double work[2] = {0.0, 0.0};\n    double s = work[1];"
    source = PROGRAM.replace("static double rowsum(int i)\n{\n    double s = 0.0;", own)
    text = pipeline.gradient_source(source, "prog.c", "f", ["x"], "c", CALLS_KEPT)
    assert "static void grad_rowsum(int i, double grid[N][M], double d_grid[N][M], double d_return)" in text


def test_check_links_the_program_whose_arrays_the_gradient_uses(tmp_path):
    import os
    import subprocess
    import sys

    (tmp_path / "prog.c").write_text(PROGRAM)
    root = Path(__file__).resolve().parent.parent
    r = subprocess.run([sys.executable, "-m", "s2sad", "check", "prog.c", "--func", "f", "--wrt", "x,lam"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300,
                       env={**os.environ, "PYTHONPATH": str(root)})
    assert r.returncode == 0, r.stdout + r.stderr
    assert "all adjoints match central differences" in r.stdout


# A static work array filled, then read by a helper or at a C remainder (probe round 7: refused
# with "drop static"): every element read was written first, so the gradient's own array serves.
FILLED_THEN_READ = {
    "by_a_helper": "return sum(work, NC) * x[0];",
    "at_a_remainder": "double s = 0.0;\n    for (int i = 0; i < 7; i++)\n        s += work[i % NC] * x[i % 3];\n"
                      "    return s;",
}
_FILLED = """#define NC 4
static double work[NC];
static double sum(const double *a, int n) { double s = 0.0; for (int k = 0; k < n; k++) s += a[k] * a[k]; return s; }
double f(const double *c, const double *x)
{
    for (int k = 0; k < NC; k++)
        work[k] = 2.0 * c[k];
    READ
}
"""


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
@pytest.mark.parametrize("name", sorted(FILLED_THEN_READ))
def test_a_static_array_filled_then_read_is_the_gradients_own(tmp_path, name):
    from s2sad.cli import main

    path = tmp_path / "filled.c"
    path.write_text(_FILLED.replace("READ", FILLED_THEN_READ[name]))
    assert main(["check", str(path), "--func", "f", "--wrt", "c,x", "--sizes", "c=4,x=3"]) == 0
    # a read past what the loop filled stays refused
    short = _FILLED.replace("k < NC; k++)\n        work[k]", "k < NC - 1; k++)\n        work[k]")
    with pytest.raises(DiagnosticError):
        pipeline.gradient_source(short.replace("READ", FILLED_THEN_READ[name]), "prog.c", "f", ["c", "x"], "c")


# Static local arrays (parse/c_static_locals.py): a scratch buffer kept between calls, inside the
# function, is the file-scope static array of its function (probe round 9: refused with "declare a
# plain local"), renamed where a file-scope name takes its own; one the function reads before it
# writes it is refused in words of a static local, and a table it only reads stays a local.
STATIC_LOCALS = """#define N 4
static double work[N];
double fill(const double *x)
{
    for (int i = 0; i < N; i++) work[i] = x[i];
    return work[0];
}
double f(const double *x)
{
    static double a[N];
    static double work[N] = {0.0};
    static const double w[3] = {1.0, 2.0, 3.0};
    double s = 0.0;
    for (int i = 0; i < N; i++) {
        a[i] = x[i] * x[i];
        work[i] = sin(a[i]);
    }
    for (int i = 0; i < N; i++) s += a[i] * work[N - 1 - i] * w[i % 3];
    return s;
}
double memo(const double *x)
{
    static double prev[N];
    double s = 0.0;
    for (int i = 0; i < N; i++) {
        s += prev[i] * x[i];
        prev[i] = x[i];
    }
    return s;
}
"""


def test_a_static_local_scratch_array_is_differentiated(tmp_path, capsys):
    from source_gradients import check_command

    source = "#include <math.h>\n" + STATIC_LOCALS
    text = pipeline.gradient_source(source, "prog.c", "f", ["x"], "c")
    assert "static double a[N];\nstatic double d_a[N];\nstatic double f_work[N];" in text, text
    assert "static const double w[3]" not in text.split("void grad_f")[0], "the read-only table stays a local"
    check_command(tmp_path, capsys, source, "f", "x", "x=4", "c", "prog.c")


def test_a_static_local_array_read_before_it_is_written_is_refused_as_one():
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(STATIC_LOCALS, "prog.c", "memo", ["x"], "c")
    (d,) = info.value.diagnostics
    assert d.message.startswith("'prev' is a static local array, and s2sad cannot tell that 'memo' writes"), d
    assert "its initial values or what an earlier call left" in d.message, d
    assert "as a parameter" in d.hint and d.loc.line == 21, d
    # (an element the function never writes holds its initial value: refused as well; it was
    # 'static' local variables that the function writes are not supported, test_c_language)
    initialized = "double g(const double *x) {\n    static double w[2] = {1, 2}; w[1] = x[0]; return w[0];\n}\n"
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(initialized, "prog.c", "g", ["x"], "c")
    assert info.value.diagnostics[0].message.startswith("'w' is a static local array")
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(STATIC_LOCALS, "prog.c", "f", ["x"], "py")
    assert "'f' uses the static local array 'a', which only C output can reach" in info.value.diagnostics[0].message
