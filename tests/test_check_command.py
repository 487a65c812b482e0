"""``s2sad check``: the generated gradient against central differences of the user's own
function (the Python file imported, the C file compiled with gcc), with exit status 0 when
all adjoints match, 1 on a mismatch or an input it cannot check, 2 for bad usage."""

from __future__ import annotations

import shutil
import textwrap

import pytest

from s2sad import pipeline
from source_gradients import HEADER
from test_array_ops import UNIT_AXES
from s2sad.cli import main

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

SMOOTH_PY = """\
import numpy as np


def smooth(out, x, a: float, n: int):
    s = 0.0
    for i in range(n):
        out[i] = a * np.tanh(x[i])
        s += out[i] * x[i]
    return s
"""

SMOOTH_C = """\
#include <math.h>

double smooth(double *out, const double *x, double a, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        out[i] = a * tanh(x[i]);
        s += out[i] * x[i];
    }
    return s;
}
"""

# The derivative of tanh written with the wrong sign: what a hand-edited gradient might hold.
RIGHT, WRONG = "(1.0 - t0 * t0)", "(1.0 + t0 * t0)"


@pytest.fixture
def smooth_py(tmp_path):
    path = tmp_path / "smooth.py"
    path.write_text(SMOOTH_PY)
    return str(path)


@pytest.fixture
def smooth_c(tmp_path):
    path = tmp_path / "smooth.c"
    path.write_text(SMOOTH_C)
    return str(path)


def _rows(out: str) -> dict[str, list[str]]:
    """The table's rows: parameter -> [max abs error, max rel error, result]."""
    lines = out.splitlines()
    assert lines[1].split() == ["parameter", "max", "abs", "error", "max", "rel", "error", "result"]
    return {line.rsplit(None, 3)[0]: line.rsplit(None, 3)[1:] for line in lines[2:-1]}


def test_a_correct_python_gradient_passes(smooth_py, capsys):
    assert main(["check", smooth_py, "--wrt", "x,a", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"s2sad check: grad_smooth of {smooth_py} (target py, -O2, seed 3)\n")
    rows = _rows(out)
    # out is written: its shadow is checked, and its value at exit against the primal's
    assert set(rows) == {"out", "x", "a", "out (value at exit)"}
    assert all(r[2] == "ok" and float(r[0]) < 1e-7 for r in rows.values())
    assert out.endswith("all adjoints match central differences\n")


def test_the_same_seed_gives_the_same_report_and_another_seed_other_inputs(smooth_py, capsys):
    main(["check", smooth_py, "--wrt", "x", "--seed", "7"])
    first = capsys.readouterr().out
    main(["check", smooth_py, "--wrt", "x", "--seed", "7"])
    assert capsys.readouterr().out == first
    main(["check", smooth_py, "--wrt", "x", "--seed", "8"])
    assert _rows(capsys.readouterr().out) != _rows(first)


@needs_gcc
@pytest.mark.parametrize("target", ["c", "py"])
def test_a_correct_c_gradient_passes_against_the_compiled_c_primal(smooth_c, capsys, target):
    assert main(["check", smooth_c, "--wrt", "x,a", "--target", target, "--sizes", "x=6,out=6,n=6", "-O1"]) == 0
    out = capsys.readouterr().out
    assert f"(target {target}, -O1, seed 0)" in out
    assert all(r[2] == "ok" for r in _rows(out).values())


@needs_gcc
def test_python_input_checked_as_c_output(smooth_py, capsys):
    assert main(["check", smooth_py, "--wrt", "x,a", "--target", "c"]) == 0
    assert all(r[2] == "ok" for r in _rows(capsys.readouterr().out).values())


def _wrong_gradient(monkeypatch, right: str = RIGHT, wrong: str = WRONG):
    """Every gradient check generates has ``right`` edited into ``wrong`` (which must be there)."""
    real = pipeline.gradient_source

    def edited(*args, **kwargs):
        text = real(*args, **kwargs)
        assert right in text
        return text.replace(right, wrong)

    monkeypatch.setattr(pipeline, "gradient_source", edited)


@pytest.mark.parametrize("target", ["py", pytest.param("c", marks=needs_gcc)])
def test_a_wrong_gradient_is_a_mismatch_with_status_1(smooth_py, capsys, monkeypatch, target):
    _wrong_gradient(monkeypatch)
    assert main(["check", smooth_py, "--wrt", "x,a", "--target", target]) == 1
    out = capsys.readouterr().out
    rows = _rows(out)
    assert rows["x"][2] == "MISMATCH" and rows["a"][2] == "ok"  # the edit changes d_x only
    assert out.endswith("1 of 4 rows do not match\n")


@pytest.mark.parametrize("argv, message", [
    (["--wrt", "x", "--sizes", "x=3y"], "--sizes: cannot read 'x=3y'"),
    (["--wrt", "x", "--sizes", "q=3"], "--sizes q: 'smooth' has no array or integer parameter 'q'"),
    (["--wrt", "x", "--sizes", "x=3x3"], "--sizes x: 'x' has 1 dimension(s), not 2"),
    (["--wrt", "x", "--range", "2,1"], "--range: LO must be below HI"),
    (["--wrt", "x", "--size", "0"], "--size must be positive"),
    (["--wrt", ""], "--wrt needs at least one parameter name"),
])
def test_bad_usage_exits_2(smooth_py, capsys, argv, message):
    assert main(["check", smooth_py, *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("s2sad: error: ") and message in err and "Traceback" not in err


def test_argparse_usage_errors_exit_2(smooth_py, capsys):
    with pytest.raises(SystemExit) as caught:
        main(["check", smooth_py, "--target", "cuda", "--wrt", "x"])
    assert caught.value.code == 2


def test_a_program_s2sad_cannot_differentiate_exits_1_with_the_located_message(smooth_py, capsys):
    assert main(["check", smooth_py, "--wrt", "n"]) == 1
    err = capsys.readouterr().err
    assert "smooth.py:4:1: error: --wrt n: parameter 'n' of 'smooth' is an integer" in err


def test_functions_check_cannot_run_are_refused_not_guessed(tmp_path, capsys):
    path = tmp_path / "twice.py"
    path.write_text("def twice(x):\n    return 2.0 * x * x[0]\n")
    assert main(["check", str(path), "--wrt", "x", "--sizes", "x=3"]) == 1
    err = capsys.readouterr().err
    assert "s2sad: error: check: 'twice' returns an array" in err


STRUCT_PARAMS_C = """\
#include <math.h>
#include <stdlib.h>

typedef struct { int nx; double dx, dt, kappa; } grid_t;
typedef struct { double lo, hi; } range_t;
struct layer { int n; double w[3]; double b; range_t r; double *scale; };
struct P { double x, y; };

static void laplacian(const grid_t *g, const double *u, double *lap) {
    for (int i = 1; i < g->nx - 1; ++i)
        lap[i] = (u[i - 1] - 2.0 * u[i] + u[i + 1]) / (g->dx * g->dx);
    lap[0] = lap[g->nx - 1] = 0.0;
}

double heat_energy(const grid_t *g, double *u, int steps) {
    double *lap = malloc(g->nx * sizeof(double));
    for (int s = 0; s < steps; ++s) {
        laplacian(g, u, lap);
        for (int i = 0; i < g->nx; ++i)
            u[i] += g->dt * g->kappa * lap[i];
    }
    double e = 0.0;
    for (int i = 0; i < g->nx; ++i)
        e += u[i] * u[i];
    free(lap);
    return 0.5 * g->dx * e;
}

double layer_out(struct layer *L, const double *x, range_t clip) {
    double s = L->b;
    for (int i = 0; i < L->n; i++) s += L->w[i] * x[i] * L->scale[i];
    L->b = s * 0.5;
    double t = tanh(s) * (L->r.hi - L->r.lo);
    return fmin(fmax(t, clip.lo), clip.hi) + L->b * L->r.lo;
}

double r2(struct P p) { return p.x * p.x + p.y * p.y; }
"""


@needs_gcc
@pytest.mark.parametrize("func, wrt, sizes, rows", [
    ("heat_energy", "u,g", [], ["g->dx", "g->dt", "g->kappa", "u", "u (value at exit)"]),
    ("layer_out", "L,x,clip", ["--sizes", "L.n=3"],
     ["L->w", "L->b", "L->r.lo", "L->r.hi", "L->scale", "x", "clip.lo", "clip.hi", "L->b (value at exit)"]),
    ("layer_out", "x", ["--sizes", "L->n=3"], ["L->b", "x", "L->b (value at exit)"]),
    ("r2", "p", [], ["p.x", "p.y"]),
])
def test_c_struct_parameters_are_built_from_their_members(tmp_path, capsys, func, wrt, sizes, rows):
    """A struct (through a pointer, const or written; by value) with integer, number, array,
    pointer and struct members: check makes its members and calls the function through a shim
    that builds it; the table names each member as C spells it."""
    path = tmp_path / "structs.c"
    path.write_text(STRUCT_PARAMS_C)
    assert main(["check", str(path), "--func", func, "--wrt", wrt, *sizes]) == 0
    out = capsys.readouterr().out
    assert list(_rows(out)) == rows and "all adjoints match" in out


@needs_gcc
def test_a_wrong_adjoint_of_a_struct_member_is_a_mismatch(tmp_path, capsys, monkeypatch):
    _wrong_gradient(monkeypatch, "d_L->b = d_s;", "d_L->b = 0.5 * d_s;")
    path = tmp_path / "structs.c"
    path.write_text(STRUCT_PARAMS_C)
    assert main(["check", str(path), "--func", "layer_out", "--wrt", "L,x", "--sizes", "L.n=3"]) == 1
    rows = _rows(capsys.readouterr().out)
    assert rows["L->b"][2] == "MISMATCH" and rows["x"][2] == "ok"


@needs_gcc
def test_integers_that_take_a_member_array_past_its_end_are_reported_not_compared(tmp_path, capsys):
    """L->n = 4 (--size) reads L->w[3], past the member's 3 numbers: check said MISMATCH, for
    the member after it was read; the bounds C knows are checked, and the run is refused."""
    path = tmp_path / "structs.c"
    path.write_text(STRUCT_PARAMS_C)
    assert main(["check", str(path), "--func", "layer_out", "--wrt", "x"]) == 1
    err = capsys.readouterr().err
    assert "the compiled code crashed (SIGILL)" in err and "or integers that keep within them" in err


@needs_gcc
def test_c_struct_parameters_of_python_output_are_refused_as_the_translation_does(tmp_path, capsys):
    path = tmp_path / "structs.c"
    path.write_text(STRUCT_PARAMS_C)
    assert main(["check", str(path), "--func", "r2", "--wrt", "p", "--target", "py"]) == 1
    assert "error: --target py: 'r2' takes the struct" in capsys.readouterr().err  # (the translation's refusal)


TYPEDEFS_C = """\
typedef double real;
typedef real scalar;
typedef scalar *vec;

scalar dot_scaled(const real *x, vec y, int n, scalar a) {
    real s = 0.0;
    for (int i = 0; i < n; i++) s += a * x[i] * y[i] * y[i];
    return s;
}
"""


@needs_gcc
def test_c_types_named_by_typedefs_are_the_types_they_name(tmp_path, capsys):
    """typedef double real (and chains of them, a pointer among them): check read 'const real *'
    as no type it passes and refused the function."""
    path = tmp_path / "typedefs.c"
    path.write_text(TYPEDEFS_C)
    assert main(["check", str(path), "--wrt", "x,y,a"]) == 0, capsys.readouterr().err
    assert list(_rows(capsys.readouterr().out)) == ["x", "y", "a"]


COUNTS_C = """\
double f(const double *x, int *cnt, long *last, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        if (x[i] > 0.0) {
            cnt[0] += 1;
            last[0] = i;
            s += x[i] * x[i];
        }
    }
    return s;
}
"""


@pytest.mark.parametrize("name, source, sizes", [("counts.c", COUNTS_C, "n=6"), ("counts.py", (
    'def f(x: "f64[n]", cnt: "i64[1]", last: "i64[1]"):\n    s = 0.0\n    for i in range(x.shape[0]):\n'
    '        if x[i] > 0.0:\n            cnt[0] += 1\n            last[0] = i\n            s += x[i] * x[i]\n'
    '    return s\n'), "x=6")])
def test_integer_arrays_the_function_writes_are_compared_at_exit_only(tmp_path, capsys, name, source, sizes):
    """An integer array the function writes has a shadow (the contract's), but no derivative: check
    moved its entries by a step the integers round away and divided by zero (an internal error)."""
    path = tmp_path / name
    path.write_text(source)
    assert main(["check", str(path), "--wrt", "x", "--target", "c", "--sizes", sizes]) == 0, capsys.readouterr().err
    rows = _rows(capsys.readouterr().out)
    assert list(rows) == ["x", "cnt (value at exit)", "last (value at exit)"]
    assert all(row[-1] == "ok" for row in rows.values())


STRUCTS_C = """\
#include <math.h>
#define D 3

typedef struct { double x, y; } vec2;
typedef struct { double pos[D]; double mass; } body;
typedef struct { double v; int tag; } tagged;

double path_len(const vec2 *p, int n) {
    double L = 0.0;
    for (int i = 1; i < n; i++) {
        double dx = p[i].x - p[i - 1].x, dy = p[i].y - p[i - 1].y;
        L += hypot(dx, dy);
    }
    return L;
}

double moment(const body *b, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < D; k++) s += b[i].mass * b[i].pos[k] * b[i].pos[k];
    return s;
}

double tagged_sum(const tagged *t, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) s += t[i].v * t[i].v;
    return s;
}
"""


@needs_gcc
@pytest.mark.parametrize("func, target", [("path_len", "c"), ("path_len", "py"), ("moment", "c")])
def test_an_array_of_structs_of_doubles_is_made_as_its_doubles(tmp_path, capsys, func, target):
    path = tmp_path / "structs.c"
    path.write_text(STRUCTS_C)
    assert main(["check", str(path), "--func", func, "--wrt", "p" if func == "path_len" else "b",
                 "--target", target]) == 0
    assert "all adjoints match" in capsys.readouterr().out


@needs_gcc
def test_an_array_of_structs_with_other_members_is_refused(tmp_path, capsys):
    path = tmp_path / "structs.c"
    path.write_text(STRUCTS_C)
    assert main(["check", str(path), "--func", "tagged_sum", "--wrt", "t"]) == 1
    assert "parameter 't' is declared 'const tagged *'" in capsys.readouterr().err


@pytest.mark.parametrize("schedule", ["recompute", "periodic(2)", "binomial(2)"])
def test_a_checkpointed_gradient_is_checked_too(tmp_path, capsys, schedule):
    path = tmp_path / "steps.py"
    path.write_text(
        "def steps(x, a: float, n: int):\n"
        "    s = 0.0\n"
        "    for t in range(5):\n"
        "        for i in range(n):\n"
        "            x[i] = x[i] * a + 0.1 * s\n"
        "            s += x[i] * x[i]\n"
        "    return s\n")
    assert main(["check", str(path), "--wrt", "x,a", "--checkpoint", schedule]) == 0
    out = capsys.readouterr().out
    assert f"-O2, --checkpoint {schedule}, seed 0)" in out and "all adjoints match" in out


STENCIL_C = """\
void diff(const double *x, double *e, int n)
{
    for (int i = 0; i < n; i++)
        e[i] = x[i + 1] * x[i + 1] - x[i];
}
"""


@needs_gcc
@pytest.mark.parametrize("target", ["c", "py"])
def test_arrays_get_the_shapes_the_code_reads_at_the_integers_chosen(tmp_path, capsys, target):
    """x is read up to x[n]: with n = 6 it has 7 elements (the gradient's "Array sizes"), and a
    function without a result is checked too."""
    path = tmp_path / "diff.c"
    path.write_text(STENCIL_C)
    assert main(["check", str(path), "--wrt", "x", "--size", "6", "--target", target]) == 0
    assert "all adjoints match" in capsys.readouterr().out
    assert main(["check", str(path), "--wrt", "x", "--sizes", "x=6,n=6"]) == 2
    assert ("s2sad: error: --sizes x: at the integer values chosen, the function reads 'x' up to shape 7, past 6"
            in capsys.readouterr().err)


RK4_PY = HEADER + """

def step(y, h: float):
    return y + h * np.array([1.5 * y[0] - y[0] * y[1], -3.0 * y[1] + y[0] * y[1]])


def simulate(y0, w, h: float = 0.01):
    y = y0.copy()
    v = w.copy()
    for _ in range(20):
        y = step(y, h)
        v = np.tanh(v + y[0] * w)
    return y[0] + y[1] + np.sum(v)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_extents_the_gradient_checks_on_entry_are_chosen_so(tmp_path, capsys, target):
    """y is rebound in a loop to a 2-long array: y0 is made 2 long (4, --size, fails on
    broadcasting in the primal), and w as long as v, which the loop keeps; --sizes still rules."""
    path = tmp_path / "rk4.py"
    path.write_text(RK4_PY)
    assert main(["check", str(path), "--func", "simulate", "--wrt", "y0,w", "--target", target]) == 0
    assert "all adjoints match" in capsys.readouterr().out
    assert main(["check", str(path), "--func", "simulate", "--wrt", "y0", "--sizes", "y0=3"]) == 1
    assert "raised ValueError" in capsys.readouterr().err


JACOBI_C = """\
void jacobi(int n, int m, int iters, double u[n][m], const double f[n][m], double h2) {
    double tmp[n][m];
    for (int it = 0; it < iters; it++) {
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < m - 1; j++)
                tmp[i][j] = 0.25 * (u[i-1][j] + u[i+1][j] + u[i][j-1] + u[i][j+1] - h2 * f[i][j]);
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < m - 1; j++)
                u[i][j] = tmp[i][j];
    }
}
"""


@needs_gcc
def test_c_arrays_of_more_than_one_dimension_are_passed_as_one_block(tmp_path, capsys):
    """double u[n][m] is one row-major block, as a NumPy array is: check passes it (double **,
    a table of row pointers, it does not build)."""
    path = tmp_path / "jacobi.c"
    path.write_text(JACOBI_C)
    assert main(["check", str(path), "--wrt", "u,f", "--target", "c", "--sizes", "n=5,m=4,iters=3"]) == 0
    rows = _rows(capsys.readouterr().out)
    assert set(rows) == {"u", "f", "u (value at exit)"} and all(r[2] == "ok" for r in rows.values())


@needs_gcc
def test_c_that_uses_m_pi_compiles_as_a_plain_gcc_build_sees_it(tmp_path, capsys):
    """math.h's M_PI is no name of strict C99, but every plain gcc build has it: check compiles the
    user's C with it (it said "'M_PI' undeclared")."""
    path = tmp_path / "wave.c"
    path.write_text("#include <math.h>\n\ndouble wave(const double *x, int n) {\n    double s = 0.0;\n"
                    "    for (int i = 0; i < n; i++)\n        s += sin(M_PI * x[i]);\n    return s;\n}\n")
    assert main(["check", str(path), "--wrt", "x", "--sizes", "x=5"]) == 0
    assert "all adjoints match" in capsys.readouterr().out


GATHER_C = """\
#include <math.h>

double pick(int n, int k, const double *logits, const int *labels) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += exp(logits[i * k + labels[i]]);
    return s;
}
"""


@needs_gcc
def test_an_array_whose_extent_the_c_code_does_not_tell_needs_its_size(tmp_path, capsys):
    """An index read from another array bounds nothing: compiled C would read past an array of
    a guessed size, so check asks for the shape instead of guessing."""
    path = tmp_path / "pick.c"
    path.write_text(GATHER_C)
    assert main(["check", str(path), "--wrt", "logits"]) == 2
    assert "give its shape with --sizes logits=N" in capsys.readouterr().err
    assert main(["check", str(path), "--wrt", "logits", "--sizes", "logits=16"]) == 0
    assert "all adjoints match" in capsys.readouterr().out


# Shape symbols of a Python function's annotations, with a slice one long in a branch: the C
# gradient takes n as a size parameter, which check once left out (the seed landed in n).
SYMBOLS_PY = HEADER + textwrap.dedent(UNIT_AXES["slice_before_index_in_a_branch"][0])


@needs_gcc
def test_the_c_gradient_of_annotated_python_gets_its_shape_symbols_from_the_arrays(tmp_path, capsys):
    path = tmp_path / "sym.py"
    path.write_text(SYMBOLS_PY)
    assert main(["check", str(path), "--wrt", "x,y", "--target", "c", "-O0", "--size", "6"]) == 0
    rows = _rows(capsys.readouterr().out)
    assert set(rows) == {"x", "y", "y (value at exit)"} and all(r[2] == "ok" for r in rows.values()), rows
    assert main(["check", str(path), "--wrt", "x", "--target", "c", "--sizes", "x=6,y=7"]) == 2
    assert ("the shape symbol 'n' is x.shape[0] = 6, y.shape[0] = 7; give the arrays shapes that agree"
            in capsys.readouterr().err)


MATRICES_PY = HEADER + """\
def annotated(A: "f64[m, n]", x: "f64[n]"):
    return np.sum(np.tanh(A @ x))


def read_extents(A, x: "f64[n]"):
    m, k = A.shape
    s = 0.0
    for i in range(m):
        for j in range(k):
            s += np.tanh(A[i, j] * x[j])
    return s


def sliced(A: np.ndarray):
    return np.sum(A[1:, :] * A[:-1, :]) + A[0, 1]
"""


@needs_gcc
@pytest.mark.parametrize("func, wrt", [("annotated", "A,x"), ("read_extents", "A,x"), ("sliced", "A")])
def test_the_c_gradient_of_python_with_matrices_is_checked(tmp_path, capsys, func, wrt):
    """A matrix is one row-major block to the C gradient, with its extents as size parameters:
    the annotation's symbols, or A_shape0 and A_shape1 for those the code reads (check refused
    every Python matrix for C output, then the sizes named after an array's axes)."""
    path = tmp_path / "mat.py"
    path.write_text(MATRICES_PY)
    assert main(["check", str(path), "--func", func, "--wrt", wrt, "--target", "c", "--sizes", "A=4x3"]) == 0
    rows = _rows(capsys.readouterr().out)
    assert set(rows) == set(wrt.split(",")) and all(r[2] == "ok" for r in rows.values()), rows


# Ping-pong buffers: a helper fills b from a, then the pointers swap. The reverse sweep keeps a
# copy of the buffer each call overwrites, made in whichever branch of the swap state is taken;
# its size once could not be carried out of the branch in C output.
PING_PONG_C = """\
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void step(const double *w, const double *x, double *y, int n)
{
    for (int i = 0; i < n; i++) {
        double left = i > 0 ? x[i - 1] : 0.0;
        y[i] = tanh(w[i] * x[i] + 0.5 * left);
    }
}

double f(const double *w, const double *x0, int n, int steps)
{
    double *a = malloc(n * sizeof(double));
    double *b = malloc(n * sizeof(double));
    memcpy(a, x0, n * sizeof(double));
    for (int s = 0; s < steps; s++) {
        step(w, a, b, n);
        double *t = a;
        a = b;
        b = t;
    }
    double r = 0.0;
    for (int i = 0; i < n; i++)
        r += a[i] * a[i];
    free(a);
    free(b);
    return r;
}
"""


@needs_gcc
@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_ping_pong_buffers_filled_by_a_helper(tmp_path, capsys, level):
    path = tmp_path / "pp.c"
    path.write_text(PING_PONG_C)
    assert main(["check", str(path), "--wrt", "w,x0", level, "--sizes", "n=5,steps=3"]) == 0
    rows = _rows(capsys.readouterr().out)
    assert set(rows) == {"w", "x0"} and all(r[2] == "ok" for r in rows.values()), rows


# A shape-generic parameter (adjoint.shape_generic): the bias b is a number or an array of any
# shape that broadcasts over X @ X.T; differentiated, its adjoint goes to a shadow of its own
# shape (a 0-d array for a number), which check once left out or passed as a float.
GENERIC_PY = """\
import numpy as np


def loss(X, b):
    return np.sum(np.tanh(X @ X.T + b)) / X.shape[0]


def fit(W, b, Y, c, s: float):
    r = np.tanh(W @ W.T * s + b) - Y * c
    return np.sum(r * r) * np.exp(s)


def rows(X, b, n: int):
    s = 0.0
    for i in range(n):
        s += np.sum(np.tanh(X[i] + b))
    return s


def kalman(H, s, m: int):
    R = s * np.eye(2)
    P = np.eye(3)
    for k in range(m):
        S = H @ P @ H.T + R
        K = P @ H.T @ np.linalg.inv(S)
        P = P - K @ H @ P
    return np.sum(P)
"""


@pytest.fixture
def generic_py(tmp_path):
    path = tmp_path / "generic.py"
    path.write_text(GENERIC_PY)
    return str(path)


@pytest.mark.parametrize("target, sizes", [("py", None), ("py", "b=4"), ("py", "b=4x4"), ("py", "b=1x4"),
                                           ("numba", None), ("numba", "b=4x1")])
def test_a_shape_generic_parameter_in_wrt_gets_a_shadow_of_its_shape(generic_py, capsys, target, sizes):
    """By default a number (its shadow a 0-d array); --sizes gives it a shape that broadcasts."""
    argv = ["check", generic_py, "--func", "loss", "--wrt", "X,b", "--target", target]
    assert main(argv + (["--sizes", sizes] if sizes else [])) == 0, capsys.readouterr().err
    rows = _rows(capsys.readouterr().out)
    assert set(rows) == {"X", "b"} and all(r[2] == "ok" for r in rows.values()), rows


@pytest.mark.parametrize("target", ["py", "numba"])
def test_shape_generic_parameters_among_others_keep_the_arguments_in_place(generic_py, capsys, target):
    """b and c shape-generic (b differentiated, c not), Y after b, s a scalar whose adjoint is
    returned: once the missing shadow shifted Y (and the seed into an integer parameter)."""
    assert main(["check", generic_py, "--func", "fit", "--wrt", "W,b,Y,s", "--target", target]) == 0, \
        capsys.readouterr().err
    rows = _rows(capsys.readouterr().out)
    assert set(rows) == {"W", "b", "Y", "s"} and all(r[2] == "ok" for r in rows.values()), rows
    assert main(["check", generic_py, "--func", "fit", "--wrt", "b,c", "--target", target,
                 "--sizes", "b=4x1,c=4"]) == 0, capsys.readouterr().err
    rows = _rows(capsys.readouterr().out)
    assert set(rows) == {"b", "c"} and all(r[2] == "ok" for r in rows.values()), rows
    # (an integer after b: the seed once landed in it, a TypingError in Numba)
    assert main(["check", generic_py, "--func", "rows", "--wrt", "X,b", "--target", target]) == 0, \
        capsys.readouterr().err
    rows = _rows(capsys.readouterr().out)
    assert set(rows) == {"X", "b"} and all(r[2] == "ok" for r in rows.values()), rows


@pytest.mark.parametrize("target", ["py", "numba"])
def test_a_shape_generic_parameter_typed_an_array_is_passed_a_number(generic_py, capsys, target):
    """s of s * np.eye(2), typed an array where it meets the matrices of the loop: a number by
    default too (probe round 10: drawn 4x4, and the primal failed to broadcast), a shape with --sizes."""
    for sizes in ("H=2x3,m=3", "H=2x3,m=3,s=2x2"):
        assert main(["check", generic_py, "--func", "kalman", "--wrt", "H,s", "--target", target,
                     "--sizes", sizes]) == 0, capsys.readouterr().err
        rows = _rows(capsys.readouterr().out)
        assert set(rows) == {"H", "s"} and all(r[2] == "ok" for r in rows.values()), rows


def test_a_wrong_shape_generic_adjoint_is_a_mismatch(generic_py, capsys, monkeypatch):
    _wrong_gradient(monkeypatch, "d_b += d_b2", "d_b += 1.5 * d_b2")
    for sizes in ([], ["--sizes", "b=4"]):
        assert main(["check", generic_py, "--func", "loss", "--wrt", "X,b", *sizes]) == 1
        rows = _rows(capsys.readouterr().out)
        assert rows["b"][2] == "MISMATCH" and rows["X"][2] == "ok"


def test_a_shape_generic_parameter_given_too_many_axes_is_a_usage_error(generic_py, capsys):
    assert main(["check", generic_py, "--func", "loss", "--wrt", "X,b", "--sizes", "b=4x4x4"]) == 2
    assert ("s2sad: error: --sizes b: 'b' may be a number or an array of up to 2 axes, not 3"
            in capsys.readouterr().err)


ANNOTATED_PY = """\
import numpy as np


def f(P: "f64[t, k]", w: "f64[k]"):
    return np.sum((P @ w) ** 2)
"""


@pytest.mark.parametrize("sizes", ["P=6x3,w=3", "P=6x3", "w=3"])
def test_shape_symbols_take_the_extents_given_for_the_arrays_that_carry_them(tmp_path, capsys, sizes):
    """P=6x3 makes t 6 and k 3, so w (of k elements) 3 long; w=3 makes P 4x3 (t at --size).
    Another extent would make P @ w fail on the primal's side."""
    path = tmp_path / "ann.py"
    path.write_text(ANNOTATED_PY)
    assert main(["check", str(path), "--func", "f", "--wrt", "P,w", "--sizes", sizes]) == 0, \
        capsys.readouterr().err
    rows = _rows(capsys.readouterr().out)
    assert set(rows) == {"P", "w"} and all(r[2] == "ok" for r in rows.values()), rows
    assert main(["check", str(path), "--func", "f", "--wrt", "P,w", "--sizes", "P=6x3,w=4"]) == 2
    assert ("s2sad: error: the shape symbol 'k' is P.shape[1] = 3, w.shape[0] = 4; give the arrays shapes that "
            "agree" in capsys.readouterr().err)


ROWS_C = {
    "fixed": ("double rowsum(double (*a)[3], int n)", "3", "a", "n=4"),
    "variable": ("double rowsum(int n, int m, double (*a)[m])", "m", "a", "n=4,m=5"),
    "const_macro": ("#define D 3\ndouble rowsum(const double (*a)[D], int n)", "D", "a", "n=4"),
}


@needs_gcc
@pytest.mark.parametrize("case", sorted(ROWS_C))
@pytest.mark.parametrize("target", ["c", "py"])
def test_a_c_pointer_to_rows_is_passed_as_one_block(tmp_path, capsys, case, target):
    """double (*a)[3] is one row-major block, as double a[n][3] is: check once read its spelling
    as no type it passes."""
    signature, cols, _, sizes = ROWS_C[case]
    path = tmp_path / "rows.c"
    path.write_text(f"{signature}\n{{\n    double s = 0.0;\n    for (int i = 0; i < n; i++)\n"
                    f"        for (int j = 0; j < {cols}; j++) s += a[i][j] * a[i][j] * (j + 1);\n"
                    "    return s;\n}\n")
    assert main(["check", str(path), "--func", "rowsum", "--wrt", "a", "--target", target, "--sizes", sizes]) == 0, \
        capsys.readouterr().err
    rows = _rows(capsys.readouterr().out)
    assert set(rows) == {"a"} and rows["a"][2] == "ok", rows


TABLE_C = """\
#include <math.h>

double scale_rows(SIGNATURE, int n, int m)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            a[i][j] = sin(a[i][j]) * (i + 1);
            s += a[i][j] * a[i][0];
        }
    return s;
}
"""


@needs_gcc
@pytest.mark.parametrize("signature", ["double **a", "double *a[]"])
@pytest.mark.parametrize("target", ["c", "py"])
def test_a_c_table_of_row_pointers_is_made_as_a_block_and_its_rows(tmp_path, capsys, signature, target):
    """double **a, written in place: check makes an n x m block and passes the table of its rows
    through a shim (it was refused)."""
    path = tmp_path / "table.c"
    path.write_text(TABLE_C.replace("SIGNATURE", signature))
    argv = ["check", str(path), "--wrt", "a", "--sizes", "n=3,m=5", "--target", target]
    assert main(argv) == 0, capsys.readouterr().err
    rows = _rows(capsys.readouterr().out)
    assert list(rows) == ["a", "a (value at exit)"] and all(r[2] == "ok" for r in rows.values())


@needs_gcc
def test_a_wrong_adjoint_through_a_table_of_rows_is_a_mismatch(tmp_path, capsys, monkeypatch):
    _wrong_gradient(monkeypatch, "d_a[i][0] +=", "d_a[i][0] -=")
    path = tmp_path / "table.c"
    path.write_text(TABLE_C.replace("SIGNATURE", "double **a"))
    assert main(["check", str(path), "--wrt", "a", "--sizes", "n=3,m=5"]) == 1
    assert _rows(capsys.readouterr().out)["a"][2] == "MISMATCH"


NEWTON_PY = """\
def newton_sqrt(a, tol=1e-12):
    x = a
    while abs(x * x - a) > tol:
        x = 0.5 * (x + a / x)
    return x
"""


def test_a_number_not_differentiated_keeps_its_default(tmp_path, capsys):
    """tol=1e-12 is the function's own value: drawn from --range (-0.46 at seed 0), the loop never
    ended, and check never returned."""
    path = tmp_path / "newton.py"
    path.write_text(NEWTON_PY)
    assert main(["check", str(path), "--wrt", "a", "--range", "0.5,2"]) == 0
    assert "all adjoints match" in capsys.readouterr().out


@pytest.mark.parametrize("spelled", [["--range=-2,-1"], ["--range", "-2,-1"]])
def test_a_run_that_does_not_end_is_reported_with_the_inputs(tmp_path, capsys, monkeypatch, spelled):
    # (argparse took the '-2,-1' of '--range -2,-1' for an option: a usage error)
    from s2sad import check

    monkeypatch.setattr(check, "RUN_SECONDS", 1.0)
    path = tmp_path / "newton.py"
    path.write_text(NEWTON_PY)
    assert main(["check", str(path), "--wrt", "a", *spelled]) == 1
    err = capsys.readouterr().err
    assert "'newton_sqrt' did not return within 1 s at the random inputs (a = -1." in err, err
    assert "hint: choose a --range where it ends" in err, err


def test_numbas_compile_time_is_not_taken_for_a_loop_that_never_ends(tmp_path, capsys, monkeypatch):
    """The time limit stops Python code only; for Numba output it timed the compilation, and a
    loaded machine made that a refusal (the timer cannot stop a compiled loop anyway)."""
    from s2sad import check

    monkeypatch.setattr(check, "RUN_SECONDS", 0.2)  # (compiling the gradient takes longer)
    path = tmp_path / "sq.py"
    path.write_text("import numpy as np\n\n\ndef f(x):\n    return np.sum(np.sin(x) * x)\n")
    assert main(["check", str(path), "--wrt", "x", "--sizes", "x=3", "--target", "numba"]) == 0, \
        capsys.readouterr().err


UNSIGNED_C = """\\
#include <stddef.h>
#include <stdint.h>

static double sq(double v) { return v * v; }

double rosen(const double *x, unsigned n) {
    double s = 0.0;
    for (unsigned i = 0; i + 1 < n; ++i)
        s += 100.0 * sq(x[i + 1] - sq(x[i])) + sq(1.0 - x[i]);
    return s;
}

double picked(const double *x, size_t n, const uint32_t *idx, uint64_t k) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += x[idx[i] % n] * x[i] * (double)k;
    return s;
}
"""


@needs_gcc
@pytest.mark.parametrize("func, sizes", [("rosen", "x=5,n=5"), ("picked", "x=5,n=5,idx=5,k=3")])
def test_unsigned_parameters_are_passed_as_c_declares_them(tmp_path, capsys, func, sizes):
    """unsigned, size_t, uint32_t and uint64_t numbers and arrays: check refused every function
    with one ("has unsigned integers; check does not pass them yet")."""
    path = tmp_path / "u.c"
    path.write_text(UNSIGNED_C)
    assert main(["check", str(path), "--func", func, "--wrt", "x", "--sizes", sizes]) == 0, capsys.readouterr()
    assert "all adjoints match" in capsys.readouterr().out


SHORT_ARRAY_C = """\\
double f(const double *w, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += w[i * 1000000000L] * w[i];
    return s;
}
"""


@needs_gcc
def test_compiled_c_that_runs_past_an_array_is_reported_not_a_crash(tmp_path, capsys):
    """An array given smaller than the C code reads: the process died with a segmentation fault
    (or later, of the heap the gradient's writes corrupted); the check runs in a child process,
    whose death is said."""
    path = tmp_path / "short.c"
    path.write_text(SHORT_ARRAY_C)
    assert main(["check", str(path), "--wrt", "w", "--sizes", "w=4,n=4"]) == 1
    err = capsys.readouterr().err
    assert "the compiled code crashed (SIG" in err and "give the arrays the shapes the function reads" in err, err


@needs_gcc
def test_a_program_s2sad_refuses_is_reported_from_the_child_as_located(tmp_path, capsys):
    path = tmp_path / "bad.c"
    path.write_text("double f(const double *x) {\n    return x[0]\n}\n")
    assert main(["check", str(path), "--wrt", "x"]) == 1
    assert "bad.c:3:1: error: syntax error before '}'" in capsys.readouterr().err
