"""Multi-dimensional C arrays: declared extents, rows, and the errors of a wrong rank.

The golden cases (golden/c/vla_matvec, fixed_2d_param, pointer_to_rows, vla_3d,
local_2d_array, row_to_helper, whole_2d_to_helper; golden/omp/rows_2d) check the
numbers. This file checks what they cannot show: that a declared extent is an exact
shape and one left out is not, that a row ``A[i]`` is a row view in every layer (the
verifier, the folder, the interpreter, the sizes analysis), what the C and CUDA
outputs declare, and that a use of the wrong rank is one located error whose hint,
applied, gives a program s2sad differentiates.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cbuild import compile_c, have_gcc
from source_gradients import CALLS_KEPT
from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError
from s2sad.analysis.extents import Affine, Sizes
from s2sad.opt.passes import run_pipeline
from s2sad.pipeline import parse_source
from s2sad.ssa.interp import Interpreter
from s2sad.ssa.parser import parse_module
from s2sad.ssa.verifier import verify_module


def _fn(source: str, func: str):
    module = parse_source(source, "t.c", func)
    verify_module(module)
    return module, module.functions[func]


# -- declared extents ----------------------------------------------------------------------------

def test_declared_extents_are_the_shape_and_a_left_out_one_is_unknown():
    src = ("#define M 4\nenum { K = 2 };\n"
           "double f(int n, int m, const double A[n][m], double (*P)[M], double Q[][K], const double x[2 * n + 1],"
           " double T[n][m][M]) { return A[0][0] + P[0][0] + Q[0][0] + x[0] + T[0][0][0]; }\n")
    module, fn = _fn(src, "f")
    assert [str(p.type) for p in fn.params] == ["i64", "i64", "array<f64,2>", "array<f64,2>", "array<f64,2>",
                                               "array<f64,1>", "array<f64,3>"]
    assert fn.attrs["shapes"] == {"A": ["n", "m"], "P": ["", 4], "Q": ["", 2], "x": ["2 * n + 1"],
                                  "T": ["n", "m", 4]}
    # The signature keeps the #define by name (the output defines it again), the enumerator as its value.
    assert fn.attrs["c_params"][2:] == ["const double [n][m]", "double (*)[M]", "double [][2]",
                                        "const double [2 * n + 1]", "double [n][m][M]"]
    assert fn.attrs["c_macros"] == {"M": 4}
    sizes = Sizes(module)
    exact = sizes.exact_axes(fn)
    assert {(2, 0), (2, 1), (3, 1), (4, 1), (5, 0), (6, 2)} <= exact
    assert (3, 0) not in exact and (4, 0) not in exact  # (*P)[M], Q[][K]: the rows are not declared
    assert sizes.extents(fn)[5] == [Affine((((0,), 2),), 1)]


@pytest.mark.parametrize(
    "params, message",
    [
        ("double A[n][4], int n", "the array size 'n' is neither an integer parameter declared before this one"),
        ("int n, double A[n][sizeof(double)]", "this array size is not supported"),
        ("int n, double A[n][]", "only the first size of an array parameter may be left out"),
        ("int n, double **A[4]", "arrays of this element type are not supported"),
    ],
)
def test_array_parameters_s2sad_cannot_size_are_located(params, message):
    with pytest.raises(DiagnosticError) as info:
        parse_source(f"double f({params}) {{ return 0.0; }}\n", "t.c", "f")
    (d,) = info.value.diagnostics
    assert d.loc.line == 1 and message in d.message and d.hint, d


# -- rows ----------------------------------------------------------------------------------------

ROWS = """\
static double dot(int m, const double a[m], const double b[m])
{
    double s = 0.0;
    for (int j = 0; j < m; j++)
        s += a[j] * b[j];
    return s;
}

double rows(int n, int m, const double A[n][m], const double (*B)[3])
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += dot(m, A[i], A[n - 1 - i]) + dot(2, &A[i][1], *(B + i)) + (*B)[2] * (B + 1)[i % 2][1];
    return s;
}
"""


def _rows_reference(A: np.ndarray, B: np.ndarray) -> float:
    n = A.shape[0]
    return float(sum(A[i] @ A[n - 1 - i] + A[i, 1:3] @ B[i, :2] + B[0, 2] * B[1 + i % 2, 1] for i in range(n)))


def test_rows_are_views_that_the_interpreter_runs_as_numpy_rows():
    module, fn = _fn(ROWS, "rows")
    views = [(str(op.operands[0].type), str(op.result.type)) for op in fn.walk() if op.name == "view"]
    assert ("array<f64,2>", "array<f64,1>") in views  # rows
    assert ("array<f64,1>", "array<f64,1>") in views  # &A[i][1]: from element 1 of the row A[i]
    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    got = Interpreter(module).call("rows", 4, 3, A, B)
    assert got == pytest.approx(_rows_reference(A, B), rel=1e-14)


def test_a_row_view_is_no_offset_of_its_array():
    """``view(A, 0)`` of a matrix is the row A[0], not A: the folder keeps it, and does not
    merge a view of a row into a view of the matrix."""
    text = ("func @f(%A: array<f64,2>) -> f64 {\n"
            "  %z = const() {value = 0} : i64\n  %one = const() {value = 1} : i64\n"
            "  %r = view(%A, %z) : array<f64,1>\n  %t = view(%r, %one) : array<f64,1>\n"
            "  %v = load(%t, %z) : f64\n  return(%v)\n}\n")
    module = parse_module(text)
    verify_module(module)
    run_pipeline(module, "fold,dce")
    verify_module(module)
    views = [op for op in module.functions["f"].walk() if op.name == "view"]
    assert [str(op.result.type) for op in views] == ["array<f64,1>", "array<f64,1>"]
    A = np.arange(6.0).reshape(2, 3)
    assert Interpreter(module).call("f", A) == 1.0


def test_rows_passed_to_a_helper_bound_the_rows_of_a_pointer_to_rows():
    src = ("#define M 4\nstatic double sq(const double r[M]) { double s = 0.0;"
           " for (int j = 0; j < M; j++) s += r[j] * r[j]; return s; }\n"
           "double f(int n, const double (*A)[M]) { double s = 0.0; for (int i = 0; i < n; i++) s += sq(A[i]);"
           " return s; }\n")
    module, fn = _fn(src, "f")
    sizes = Sizes(module)
    assert sizes.extents(fn)[1] == [Affine.of_param(0), Affine.of_const(4)]  # n rows (a cover), 4 declared
    assert (1, 0) not in sizes.exact_axes(fn) and (1, 1) in sizes.exact_axes(fn)


# -- output --------------------------------------------------------------------------------------

@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
def test_c_output_keeps_declarators_and_rows_and_casts_flat_buffers_to_rows():
    src = ("#define M 3\n"
           "static void scale(int n, double B[restrict n][M], double c) {"
           " for (int i = 0; i < n; i++) for (int j = 0; j < M; j++) B[i][j] *= c; }\n"
           "double f(int n, double (*restrict A)[M], const double x[static 2]) {\n"
           "    double W[n][M];\n"
           "    for (int i = 0; i < n; i++) for (int j = 0; j < M; j++) W[i][j] = A[i][j] * x[j % 2];\n"
           "    scale(n, W, x[0]);\n    scale(n, A, 2.0);\n    double s = 0.0;\n"
           "    for (int i = 0; i < n; i++) for (int j = 0; j < M; j++) s += W[i][j] * A[i][j];\n"
           "    return s;\n}\n")
    text = pipeline.gradient_source(src, "t.c", "f", ["A", "x"], "c")
    assert "void grad_f(int n, double (*restrict A)[M], double (*d_A)[M], const double x[static 2],\n" \
           "            double d_x[static 2], double d_return)" in text
    assert "static void grad_scale(int n, double B[restrict n][M], double d_B[n][M], double c," in text
    assert "#define M 3" in text and "d_A[i][j] +=" in text
    # W lives on the heap, a pointer to its rows; its copy before the call is a flat buffer,
    # cast where the callee declares rows.
    assert "double (*W)[M] = malloc(n * M * sizeof(double));" in text and "W[i][j] = " in text
    assert "scale(n, W, x[0]);" in text and "grad_scale(n, (double (*)[M])W_before_scale, d_W, " in text
    compile_c(text)  # gcc -std=c99 -Wall -Wextra -Werror


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
def test_a_define_only_the_signature_names_is_defined_in_the_output():
    src = "#define N 2\ndouble det2(const double A[N][N]) { return A[0][0] * A[1][1] - A[0][1] * A[1][0]; }\n"
    text = pipeline.gradient_source(src, "t.c", "det2", ["A"], "c")
    assert "#define N 2" in text and "void grad_det2(const double A[N][N], double d_A[N][N], double d_return)" in text
    compile_c(text)


def test_local_arrays_of_constant_extents_keep_them_in_c_output():
    src = ("double f(const double *x) { double t[2][3] = {{1, 2, 3}, {4, 5, 6}}; double s = 0.0;"
           " for (int i = 0; i < 2; i++) for (int j = 0; j < 3; j++) s += t[i][j] * x[j]; return s; }\n")
    text = pipeline.gradient_source(src, "t.c", "f", ["x"], "c")
    assert "double t[2][3] = {0};" in text and "t[1][2] = 6.0;" in text and "t[i][j]" in text
    const = src.replace("double t[2][3]", "static const double t[2][3]")
    text = pipeline.gradient_source(const, "t.c", "f", ["x"], "c")
    assert "double t[2][3] = {{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}};" in text


def test_cuda_output_passes_arrays_as_flat_pointers():
    src = ("void k(int n, int m, const double A[n][m], double y[n]) {\n    #pragma omp parallel for\n"
           "    for (int i = 0; i < n; i++) {\n        double s = 0.0;\n"
           "        for (int j = 0; j < m; j++) s += A[i][j] * A[i][j];\n        y[i] = s;\n    }\n}\n")
    text = pipeline.gradient_source(src, "k.c", "k", ["A"], "cuda")
    assert "grad_k(int n, int m, const double *A, double *d_A, double *y, double *d_y)" in text
    assert "d_A[i * m + j] +=" in text and "[n]" not in text


# -- a wrong rank --------------------------------------------------------------------------------

HELPERS = ("static double g(int m, const double r[m]) { return r[0] * r[m - 1]; }\n"
           "static double h(int n, int m, const double B[n][m]) { return B[0][0] * B[n - 1][m - 1]; }\n")
F = "double f(int n, int m, const double A[n][m])\n{{\n    double s = 0.0;\n    {body}\n    return s;\n}}\n"


@pytest.mark.parametrize(
    "body, fixed, message, hint",
    [
        ("s += A[1];", "s += A[1][0];", "'A[1]' is a row of 'A', not a number",
         "'A' has 2 dimensions: index each one once, A[i][j]"),
        ("s += A[1] * 2.0;", "s += A[1][0] * 2.0;", "'A[1]' is a row of 'A', not a number",
         "'A' has 2 dimensions: index each one once, A[i][j]"),
        ("s += A[0][1][1];", "s += A[0][1];", "'A' has 2 dimension(s), indexed with 3",
         "'A' has 2 dimensions: index each one once, A[i][j]"),
        ("s += g(m, A);", "s += g(m, A[0]);", "'g' expects an array of 1 dimension(s) here ('const double [m]'), "
         "and 'A' has 2", "pass one row, A[i]"),
        ("s += h(n, m, A[0]);", "s += h(n, m, A);", "'h' expects an array of 2 dimension(s) here "
         "('const double [n][m]'), and 'A[0]' has 1", "pass the whole array, A"),
        ("const double *p = A; s += p[0];", "const double *p = A[0]; s += p[0];",
         "'A' has 2 dimensions: C does not convert it to 'const double *'", "point at one of its rows: A[i]"),
        ("const double (*p)[4] = A; s += p[0][0];", "const double (*p)[m] = A; s += p[0][0];",
         "'A' is not an array of rows of 'const double (*)[4]'",
         "point it at an array declared with rows of that size"),
        ("const double (*p)[m] = A[0]; s += p[0][0];", "const double (*p)[m] = A; s += p[0][0];",
         "'A[0]' has 1 dimensions: C does not convert it to 'const double (*)[m]'",
         "point it at an array of rows of that size, or at rows allocated for it: p = malloc(n * sizeof *p)"),
        # (C converts with a cast: the message said it does not; C probe round 6)
        ("const double (*p)[m] = (const double (*)[m])A[0]; s += p[0][0];",
         "const double (*p)[m] = A; s += p[0][0];",
         "a cast that reads the 1-D 'A[0]' as rows of another shape is not supported yet",
         "index it flat: A[0][j * m + i]"),
    ],
)
def test_a_wrong_rank_is_a_located_error_whose_hint_works(body, fixed, message, hint):
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(HELPERS + F.format(body=body), "t.c", "f", ["A"], "c")
    (d,) = info.value.diagnostics
    assert d.loc.line == 6 and d.message == message and hint in d.hint, d
    text = pipeline.gradient_source(HELPERS + F.format(body=fixed), "t.c", "f", ["A"], "c")
    assert "d_A[" in text


# -- rows of pointers (double **) ----------------------------------------------------------------
# golden/c/pointer_rows_param and pointer_rows_written_by_helper check the numbers, each row a
# block of its own under -fsanitize=address (tests/cbuild.py); these check what the output says.

C_GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "c"

POINTER_ROWS = ("static double dot(const double *a, const double *x, int m)\n{\n    double s = 0.0;\n"
                "    for (int j = 0; j < m; j++) s += a[j] * x[j];\n    return s;\n}\n"
                "double f(const double *const *A, const double *x, double **Y, int n, int m)\n{\n"
                "    double s = 0.0;\n    for (int i = 0; i < n; i++) {\n        Y[i][0] = dot(A[i], x, m);\n"
                "        s += Y[i][0] * A[i][0];\n    }\n    return s;\n}\n")


def test_rows_of_pointers_are_an_array_of_two_dimensions_of_unknown_extents():
    module, fn = _fn(POINTER_ROWS, "f")
    assert [str(p.type) for p in fn.params] == ["array<f64,2>", "array<f64,1>", "array<f64,2>", "i64", "i64"]
    assert fn.attrs["shapes"]["A"] == ["", ""] and fn.attrs["c_params"][0] == "const double *const *"
    exact = Sizes(module).exact_axes(fn)
    assert (0, 0) not in exact and (0, 1) not in exact  # nothing declares how many rows, or how long


def test_c_output_keeps_rows_of_pointers_and_their_shadows_and_indexes_them_twice():
    text = pipeline.gradient_source(POINTER_ROWS, "t.c", "f", ["A", "x"], "c", CALLS_KEPT)
    assert ("void grad_f(const double *const *A, double *const *d_A, const double *x, double *d_x, double **Y,\n"
            "            double **d_Y, int n, int m, double d_return)") in text
    assert "grad_dot(A[i], d_A[i], x, d_x, m, " in text and "d_A[i][0] +=" in text
    assert "* m" not in text  # no flat index into a double **


def test_a_flat_snapshot_passed_as_rows_gets_a_table_of_rows_freed_with_it():
    # (at -O2 the helper is inlined into the loop: golden/c/pointer_rows_written_by_helper)
    case = C_GOLDEN / "pointer_rows_written_by_helper"
    spec = json.loads((case / "case.json").read_text())
    text = pipeline.gradient_source((case / "input.c").read_text(), "input.c", spec["func"], spec["wrt"], "c",
                                    CALLS_KEPT)
    assert "double **U_before_relax_rows = malloc(U_before_relax_len0 * sizeof(double *));" in text
    assert "U_before_relax_rows[r] = U_before_relax + r * U_before_relax_len1;" in text
    assert "grad_relax(U_before_relax_rows, d_U, n, m);" in text
    assert text.index("free(U_before_relax_rows);") < text.index("free(U_before_relax);")


@pytest.mark.parametrize(
    "decl, message",
    [
        ("double **p = 0; s += x[0];", "a local pointer to pointers is supported only as a matrix whose rows are"),
        ("double ***p = 0; s += x[0];", "pointers to pointers of this kind are not supported"),
    ],
)
def test_pointers_to_pointers_other_than_rows_parameters_are_located(decl, message):
    src = f"double f(const double *x)\n{{\n    double s = 0.0;\n    {decl}\n    return s;\n}}\n"
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(src, "t.c", "f", ["x"], "c")
    (d,) = info.value.diagnostics
    assert d.loc.line == 4 and message in d.message and d.hint, d


ROWS_IN_A_LOOP = """#include <stdlib.h>
double f(const double *x, int n, int m)
{
    double **A = malloc(n * sizeof(double *));
    for (int i = 0; i < n; i++) {
        A[i] = malloc(ROW * sizeof(double));
        for (int j = 0; j < m; j++) A[i][j] = x[i] * j;
    }
    BETWEEN
    double s = A[0][1];
    free(A);
    return s;
}
"""


@pytest.mark.parametrize(
    "row, between",
    [
        ("(i + 1)", ""),  # rows of different lengths
        ("m", "A[1] = A[0];"),  # a row rebound: two names for one row
        ("m", "A = malloc(n * sizeof(double *));"),  # the pointer array replaced
    ],
)
def test_rows_malloced_in_a_loop_only_as_one_matrix(row, between):
    """double **A whose rows a loop allocates is one n x m array (golden/c/local_rows_malloc)
    only where that is exact; otherwise the declaration is a located error naming the form."""
    src = ROWS_IN_A_LOOP.replace("ROW", row).replace("BETWEEN", between)
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(src, "t.c", "f", ["x"], "c")
    first = info.value.diagnostics[0]
    assert first.loc.line == 4 and "supported only as a matrix whose rows are allocated in one loop" in first.message


def test_rows_malloced_in_a_loop_are_one_matrix_with_a_shadow_of_its_shape():
    text = pipeline.gradient_source(ROWS_IN_A_LOOP.replace("ROW", "m").replace("BETWEEN", ""), "t.c", "f",
                                    ["x"], "c")
    assert "double (*d_A)[m] = calloc(1, n * m * sizeof(double));" in text and "d_A[i][j]" in text
    assert "A[i] = malloc" not in text


def test_cuda_output_refuses_rows_of_pointers_with_the_flat_form_as_hint():
    src = ("void k(double **A, double *y, int n, int m) {\n    #pragma omp parallel for\n"
           "    for (int i = 0; i < n; i++) {\n        double s = 0.0;\n"
           "        for (int j = 0; j < m; j++) s += A[i][j] * A[i][j];\n        y[i] = s;\n    }\n}\n")
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(src, "k.c", "k", ["A"], "cuda")
    (d,) = info.value.diagnostics
    assert d.loc.line == 1 and "'A' is declared double **" in d.message and "double *A" in d.hint, d
    fixed = src.replace("double **A", "double *A").replace("A[i][j]", "A[i * m + j]")
    assert "d_A[i * m + j]" in pipeline.gradient_source(fixed, "k.c", "k", ["A"], "cuda")


def test_an_array_of_pointers_parameter_is_rows_of_pointers_as_c_has_it():
    src = POINTER_ROWS.replace("const double *const *A", "const double *A[]").replace("double **Y", "double *Y[4]")
    text = pipeline.gradient_source(src, "t.c", "f", ["A", "x"], "c")
    assert "grad_f(const double **A, double **d_A, const double *x, double *d_x, double **Y, double **d_Y," in text
    assert "d_A[i][0] +=" in text


# -- array typedefs ------------------------------------------------------------------------------

def test_array_typedefs_are_the_arrays_they_name():
    """``typedef double vec2[2]; typedef vec2 mat2[2];`` (linmath.h's style): a parameter of the
    typedef is the array C reads (``mat2 Q``: 2 x 2; ``const mat2 *Ps``: matrices in a row;
    ``const vec2 w``), ``sizeof`` of one is its bytes, and the gradient declares its arrays so."""
    src = """typedef double vec2[2];
typedef vec2 mat2[2];
double tr(int n, const mat2 *Ps, mat2 Q, const vec2 w)
{
    double s = 0.0;
    for (int k = 0; k < n; k++)
        s += Ps[k][0][0] * Q[1][1] + Ps[k][1][0] * w[1] * (double)(sizeof(mat2) / sizeof(vec2));
    return s;
}
"""
    _, fn = _fn(src, "tr")
    assert [str(p.type) for p in fn.params] == ["i64", "array<f64,3>", "array<f64,2>", "array<f64,1>"]
    assert fn.attrs["c_params"] == ["int", "const double (*)[2][2]", "double [2][2]", "const double [2]"]
    assert fn.attrs["shapes"] == {"Ps": ["", 2, 2], "Q": [2, 2], "w": [2]}
    out = pipeline.gradient_source(src, "t.c", "tr", ["Ps", "Q", "w"], "c")
    assert "void grad_tr(int n, const double (*Ps)[2][2], double (*d_Ps)[2][2], double Q[2][2]," in out
    if have_gcc():
        compile_c(out)
    n = 3
    Ps = np.arange(12.0).reshape(n, 2, 2) / 10
    Q, w = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([0.5, -1.5])
    value = Interpreter(_fn(src, "tr")[0]).call("tr", n, Ps, Q, w)
    assert value == pytest.approx(sum(P[0][0] * 4.0 + P[1][0] * -1.5 * 2.0 for P in Ps))


POINTER_TYPEDEFS = """\
#include <stdlib.h>
#include <math.h>
typedef double real;
typedef real *Vector;
typedef double **Matrix;

static Vector vec_new(int n) { return malloc(n * sizeof(double)); }

double f(const Vector x, Matrix A, int n) {
    Vector y = vec_new(n);
    for (int i = 0; i < n; i++) {
        y[i] = 0.0;
        for (int j = 0; j < n; j++) y[i] += A[i][j] * x[j];
    }
    double s = 0.0;
    for (int i = 0; i < n; i++) s += tanh(y[i]);
    free(y);
    return s;
}
"""


def test_pointer_typedefs_are_the_pointers_they_name(tmp_path):
    """``typedef double *Vector;`` (older numerical C's vectors), of a typedef and to pointers:
    'type 'Vector' is not supported' before; ``const Vector x`` is a const pointer, as C reads it."""
    _, fn = _fn(POINTER_TYPEDEFS, "f")
    assert [str(p.type) for p in fn.params] == ["array<f64,1>", "array<f64,2>", "i64"]
    out = pipeline.gradient_source(POINTER_TYPEDEFS, "t.c", "f", ["x", "A"], "c")
    assert "void grad_f(real *const x, real *const d_x, double **A, double **d_A, int n," in out
    if have_gcc():
        from s2sad.cli import main

        compile_c(out)
        path = tmp_path / "t.c"
        path.write_text(POINTER_TYPEDEFS)
        assert main(["check", str(path), "--wrt", "x,A"]) == 0


def test_an_unknown_type_name_is_still_located():
    with pytest.raises(DiagnosticError) as info:
        parse_source("typedef double vec2[2];\ndouble f(const vec3 v) { return v[0]; }\n", "t.c", "f")
    (d,) = info.value.diagnostics
    assert d.loc.line == 2, d


# A helper given one matrix twice, called in a `while` the reverse sweep counts: the copy of the
# matrix its gradient re-runs from is taken in each iteration, out of an if of the reversal; its
# extents are the declaration's constants in every branch (probe round 7: "cannot tell the size of
# array 'E_before_matmul' made in an if", where the source has none).
SQUARINGS = """\
#define M 2
static void matmul(const double A[M][M], const double B[M][M], double C[M][M])
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < M; j++)
            C[i][j] = A[i][0] * B[0][j] + A[i][1] * B[1][j];
}

void square_s(double E[M][M], int s)
{
    double tmp[M][M];
    while (s-- > 0) {
        matmul(E, E, tmp);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < M; j++) E[i][j] = tmp[i][j];
    }
}
"""


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
def test_a_copy_of_a_constant_matrix_taken_in_a_counted_while_has_its_size(tmp_path):
    from s2sad.cli import main

    path = tmp_path / "squarings.c"
    path.write_text(SQUARINGS)
    assert main(["check", str(path), "--func", "square_s", "--wrt", "E", "--sizes", "s=3"]) == 0


# memset of a pointer to variable-length rows, sized in rows of itself (n * sizeof *t): n rows
# of m numbers (probe round 7: refused, "sizeof is supported for ... constant size only").
ROW_SIZED_MEMSET = """\
#include <stdlib.h>
#include <string.h>
double agg(int n, int m, const double *x, const int *e, int ne)
{
    double (*t)[m] = malloc(n * sizeof *t);
    memset(t, 0, n * sizeof *t);
    for (int k = 0; k < ne; k++)
        for (int j = 0; j < m; j++)
            t[e[k] % n][j] += x[k * m + j] * x[k * m + j];
    double s = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            s += t[i][j] * t[i][j] * (i + 1);
    free(t);
    return s;
}
"""


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
@pytest.mark.parametrize("unit", ["sizeof *t", "sizeof t[0]"])
def test_memset_of_rows_sized_by_a_row_of_the_array(tmp_path, unit):
    from s2sad.cli import main

    path = tmp_path / "agg.c"
    path.write_text(ROW_SIZED_MEMSET.replace("memset(t, 0, n * sizeof *t)", f"memset(t, 0, n * {unit})"))
    assert main(["check", str(path), "--func", "agg", "--wrt", "x", "--sizes", "n=3,m=2,ne=4,x=8,e=4"]) == 0
