"""Pointers in C as written (issue 17, item 4): the address of a variable passed as a helper's
out-parameter, pointers rebound in loops, arrays of rows and functions returning pointers.

The numerics of each construct are checked by its golden case (tests/test_golden_c.py:
out_param_address, ...); this file checks the shapes the output takes and the located errors
for what stays refused, one message per problem and none that follows from another.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from cbuild import CFunction, build, build_sanitized, have_gcc
from cprimal import CSignature

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError
from s2sad.pipeline import parse_source
from s2sad.ssa.verifier import verify_module


def _diagnostics(source: str, func: str = "f") -> list[str]:
    with pytest.raises(DiagnosticError) as info:
        parse_source(source, "t.c", func)
    return [f"{d.loc.line}:{d.loc.col}: {d.message}" if d.loc else d.message for d in info.value.diagnostics]


def _gradient(source: str, wrt: list[str], func: str = "f") -> str:
    return pipeline.gradient_source(source, "t.c", func, wrt, "c", pipeline.Options())


# -- the address of a variable -----------------------------------------------------------------

_OUT_PARAMS = """
static void split(double a, double *hi, double *lo) { *hi = a * a; *lo = a - *hi; }
double f(double x, int n)
{
    double h, l;
    for (int i = 0; i < n; i++) {
        split(x, &h, &l);
        x = h + l;
    }
    return x;
}
"""


def test_a_variable_whose_address_is_taken_is_a_one_element_array():
    module = parse_source(_OUT_PARAMS, "t.c", "f")
    verify_module(module)
    out = _gradient(_OUT_PARAMS, ["x"])
    assert "double h[1] = {0};" in out and "h[0] = x * x;" in out  # split is inlined


def test_the_address_of_a_parameter_copies_it_into_a_cell():
    source = """
    static void twice(double *v) { *v = 2.0 * *v; }
    double f(double x) { twice(&x); return x * x; }
    """
    out = _gradient(source, ["x"])
    assert "x2[0] = x;" in out and "*d_x += " in out


@pytest.mark.parametrize("body, expected", [
    ("const double *b = x; double *q = &b; return q[0];",
     ["3:39: taking the address of the pointer 'b' is not supported"]),
    ("double a[2] = {0}; double *q = &a; return q[0] + x[0];",
     ["3:37: taking the address of the array 'a' is not supported"]),
    # The call fails; m, whose address it takes, is not then reported as never given a value.
    ("double m; g(x, &m); return m;",
     ["3:15: cannot differentiate through call to 'g': its source is not in t.c"]),
])
def test_address_problems_are_located_and_do_not_cascade(body, expected):
    source = f"\ndouble f(const double *x)\n{{   {body}\n}}\n"
    assert _diagnostics(source) == expected


# -- pointers rebound to different arrays ---------------------------------------------------------

_MOVING = """
double ext(const double *v);
double f(const double *x, double *h, int n, int k)
{{
    const double *p = x;
    for (int l = 0; l < k; l++) {{
        h[l] = p[0];
        p = h;
    }}
    {use}
}}
"""


def test_a_pointer_rebound_in_a_loop_carries_which_array_it_points_at():
    out = _gradient(_MOVING.format(use="return p[1];"), ["x"])
    assert "long p_array = 0;" in out and "p_array = 1;" in out and "p_array == 0 ? x[0] : h[0]" in out
    # which array it pointed at in an iteration is what the iteration before left: not taped
    assert "p_array = l == 0 ? 0 : 1;" in out and "tape" not in out, out


@pytest.mark.parametrize("use, expected", [
    ("return p < x + 1 ? 1.0 : 0.0;",
     ["10:12: '<' of a pointer that points at different arrays depending on the branch or the iteration "
      "is not supported"]),
    ("return ext(p);",
     ["10:16: 'p' points at a different array depending on the branch taken or the iteration, and this use "
      "of it is not supported"]),
])
def test_uses_of_a_moving_pointer_that_stay_refused_are_located(use, expected):
    assert _diagnostics(_MOVING.format(use=use)) == expected


# -- functions that return a pointer -------------------------------------------------------------

_ACCESSOR = """
static double *at(double *A, int i) { return A + i * i; }
double f(double *W, int n)
{
    double s = 0.0;
    for (int k = 0; k < n; k++)
        s += CALL[0];
    return s;
}
"""


def test_an_accessor_reads_as_the_expression_it_returns():
    """``at(W, k)`` reads as ``W + (int)(k) * (int)(k)`` (golden/c/pointer_accessors checks the
    numbers); the accessor itself is not in the output."""
    text = _gradient(_ACCESSOR.replace("CALL", "at(W, k)"), ["W"])
    assert "d_W[k * k] +=" in text and "at(double" not in text


@pytest.mark.parametrize("call, expected", [
    ("at(W, k++)", "7:20: 'at' returns a pointer, and s2sad reads it as the expression it returns, where 'i' is "
                   "used 2 times: this argument would be evaluated as often"),
    ("at(W)", "7:14: 'at' takes 2 argument(s), not 1"),
])
def test_accessor_calls_that_cannot_be_read_so_are_located(call, expected):
    assert _diagnostics(_ACCESSOR.replace("CALL", call)) == [expected]


def test_a_function_returning_a_pointer_otherwise_is_a_located_error():
    source = ("static double *pick(double *a, int k) { if (k < 0) return a; double *p = a + k; return p; }\n"
              "double f(double *x) { return pick(x, 1)[0]; }\n")
    (message,) = _diagnostics(source)
    assert message.startswith("1:16: functions returning pointers are supported only as one 'return' of a "
                              "pointer expression")


FACTORY = """#include <stdlib.h>
static double *new_vector(const double *x, int n) {
    double *v = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) v[i] = 2.0 * x[i];
    return v;
}
static double total(const double *v, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) s += v[i];
    return s;
}
double f(const double *x, int n) {
    USE
}
"""


@pytest.mark.parametrize("use, col, expected", [
    ("return total(new_vector(x, n), n);", 18, "'new_vector' returns a pointer held in a local variable, and s2sad"),
    ("return new_vector(x, n)[1];", 12, "'new_vector' returns a pointer held in a local"),
])
def test_calls_of_a_factory_other_than_a_pointer_initializer_are_located(use, col, expected):
    """double *w = new_vector(x, n); reads as the factory's statements (golden/c/factory_functions);
    a call elsewhere is located at the call, with the declaration as the hint."""
    messages = _diagnostics(FACTORY.replace("USE", use))
    assert any(m.startswith(f"13:{col}: {expected}") for m in messages), messages


def test_a_factory_call_the_gradient_does_not_read_stops_nothing():
    """The function differentiated neither is nor calls the one with the call: it was refused for
    a problem in another function of the file (probe: every function of a file with one such call)."""
    src = FACTORY.replace("USE", "return total(x, n);") + \
        "double g(const double *x, int n) {\n    return total(new_vector(x, n), n);\n}\n"
    text = pipeline.gradient_source(src, "t.c", "f", ["x"], "c")
    assert "grad_f" in text
    messages = _diagnostics(src, "g")
    assert any("'new_vector' returns a pointer held in a local" in m for m in messages), messages


def test_a_factory_called_twice_gives_two_arrays():
    src = FACTORY.replace("USE", "double *a = new_vector(x, n);\n    double *b;\n    b = new_vector(a, n);\n"
                          "    return total(a, n) * total(b, n);")
    text = pipeline.gradient_source(src, "t.c", "f", ["x"], "py")
    namespace: dict = {}
    exec(compile(text, "g", "exec"), namespace)
    import numpy as np
    x, d_x = np.array([1.0, 2.0, 3.0]), np.zeros(3)
    namespace["grad_f"](x, d_x, 3)
    s = 2.0 * x.sum()  # f = s * 2s = 2 s^2, df/dx_i = 4 s * 2
    np.testing.assert_allclose(d_x, [8.0 * s] * 3)


# Numerical Recipes' vectors: an allocation returned moved back by its first index, freed through
# a helper that moves it forth again, with casts around the byte count and the pointer freed.
NR_VECTOR = """#include <stdlib.h>
#define NR_END 1
#define FREE_ARG char*
static double *vector(long nl, long nh)
{
    double *v;
    v = (double *)malloc((size_t)((nh - nl + 1 + NR_END) * sizeof(double)));
    return v - nl + NR_END;
}
static void free_vector(double *v, long nl, long nh)
{
    (void)nh;
    free((FREE_ARG)(v + nl - NR_END));
}
double f(const double *x, int n)
{
    double *g = vector(1, n), *h;
    h = vector(0, n - 1);
    double s = 0.0;
    for (int i = 1; i <= n; i++) g[i] = x[i - 1] * x[i - 1];
    for (int i = 0; i < n; i++) h[i] = g[i + 1] * x[i];
    for (int i = 1; i < n; i++) s += (x[i] - g[i]) * h[i - 1];
    free_vector(g, 1, n);
    free_vector(h, 0, n - 1);
    return s;
}
"""


def test_a_factory_returning_its_array_moved_by_its_first_index_reads_as_a_pointer_into_it():
    """probe t01: ``return v - nl + NR_END;`` (Numerical Recipes' vector(nl, nh)) was refused.
    The C gradient against central differences of the compiled primal."""
    import ctypes

    import numpy as np

    from cbuild import INPUT_FLAGS, build
    from fd import central_difference

    ptr = ctypes.POINTER(ctypes.c_double)
    primal = build(NR_VECTOR, INPUT_FLAGS).f
    primal.argtypes, primal.restype = [ptr, ctypes.c_int], ctypes.c_double
    grad = build(pipeline.gradient_source(NR_VECTOR, "t.c", "f", ["x"], "c")).grad_f
    grad.argtypes = [ptr, ptr, ctypes.c_int, ctypes.c_double]
    x, d_x = np.array([0.3, -1.2, 0.8, 2.0]), np.zeros(4)
    grad(x.ctypes.data_as(ptr), d_x.ctypes.data_as(ptr), 4, 1.0)
    expected = central_difference(lambda v: primal(np.ascontiguousarray(v).ctypes.data_as(ptr), 4), [x], 0)
    np.testing.assert_allclose(d_x, expected, rtol=1e-7, atol=1e-9)


# A constructor returning by value a struct whose member it allocates (probe t10).
STRUCT_FACTORY = """#include <stdlib.h>
typedef struct { int rows, cols; double *data; } Matrix;
#define MAT(m, i, j) ((m)->data[(i) * (m)->cols + (j)])
static Matrix mat_alloc(int r, int c)
{
    Matrix m;
    m.rows = r; m.cols = c;
    m.data = calloc((size_t)r * c, sizeof(double));
    return m;
}
static void outer(const double *u, const double *v, Matrix *C)
{
    for (int i = 0; i < C->rows; i++)
        for (int j = 0; j < C->cols; j++) MAT(C, i, j) = u[i] * v[j] + MAT(C, i, j);
}
double f(const double *u, const double *v, int n)
{
    Matrix C = mat_alloc(n, n);
    outer(u, v, &C);
    outer(v, u, &C);
    double s = 0.0;
    for (int i = 0; i < C.rows * C.cols; i++) s += C.data[i] * C.data[i];
    free(C.data);
    return s;
}
"""


def test_a_struct_made_and_returned_by_value_reads_as_the_constructors_statements():
    import ctypes

    import numpy as np

    from cbuild import INPUT_FLAGS, build
    from fd import central_difference

    text = pipeline.gradient_source(STRUCT_FACTORY, "t.c", "f", ["u", "v"], "c")
    assert "mat_alloc" not in text
    ptr = ctypes.POINTER(ctypes.c_double)
    primal = build(STRUCT_FACTORY, INPUT_FLAGS).f
    primal.argtypes, primal.restype = [ptr, ptr, ctypes.c_int], ctypes.c_double
    grad = build(text).grad_f
    grad.argtypes = [ptr, ptr, ptr, ptr, ctypes.c_int, ctypes.c_double]
    u, v = np.array([0.3, -1.1, 0.8]), np.array([1.2, 0.4, -0.6])
    d_u, d_v = np.zeros(3), np.zeros(3)
    grad(u.ctypes.data_as(ptr), d_u.ctypes.data_as(ptr), v.ctypes.data_as(ptr), d_v.ctypes.data_as(ptr), 3, 1.0)

    def run(a: np.ndarray, b: np.ndarray) -> float:
        return primal(np.ascontiguousarray(a).ctypes.data_as(ptr), np.ascontiguousarray(b).ctypes.data_as(ptr), 3)

    np.testing.assert_allclose(d_u, central_difference(run, [u, v], 0), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(d_v, central_difference(run, [u, v], 1), rtol=1e-7, atol=1e-9)


TABLE = """double f(const double *a, const double *b, const double *c, int n)
{
    DECL
    double s = 0.0;
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < n; j++) s += USE;
    return s;
}
"""


@pytest.mark.parametrize("decl, use, line, expected", [
    ("const double *rows[3] = {a, b, c}; rows[1] = a;", "rows[k][j]", 3, "pointers 'rows' is assigned here"),
    ("const double *rows[2] = {a, b, c};", "rows[k][j]", 3, "'rows' has 2 pointers and its initializer lists 3"),
    ("const double *rows[3] = {a, b + 1, c};", "rows[k][j]", 3, "each pointer of 'rows' must point at the start"),
    ("const double *rows[3];", "rows[k][j]", 3, "'rows' needs an initializer listing its arrays"),
    ("const double *rows[3] = {a, b, c};", "rows[k][j] + (rows != 0)", 6, "pointers 'rows' is used here as a whole"),
])
def test_tables_of_pointers_used_otherwise_are_located(decl, use, line, expected):
    """double *rows[3] = {a, b, c} is read as a table of the arrays it lists (golden/c/pointer_table);
    anything that would make a row point elsewhere, or use the table whole, is a located error."""
    src = "double g(const double **p);\n" + TABLE.replace("DECL", decl).replace("USE", use)
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(src, "t.c", "f", ["a"], "c")
    first = info.value.diagnostics[0]
    assert first.loc.line == line + 1 and expected in first.message and first.hint, first


def test_a_table_listing_one_array_twice_picks_it_for_both_indices():
    src = TABLE.replace("DECL", "const double *rows[3] = {a, b, a};").replace("USE", "(k + 1) * rows[k][j]")
    text = pipeline.gradient_source(src, "t.c", "f", ["a", "b"], "c")
    assert "d_a[j] +=" in text and "d_b[j] +=" in text
    ir = pipeline.gradient_source(src, "t.c", "f", ["a", "b"], "py")
    namespace: dict = {}
    exec(compile(ir, "g", "exec"), namespace)
    import numpy as np
    a, b, c = np.array([1.0, 2.0]), np.array([3.0, 4.0]), np.array([5.0, 6.0])
    d_a, d_b = np.zeros(2), np.zeros(2)
    namespace["grad_f"](a, d_a, b, d_b, c, 2)
    np.testing.assert_array_equal(d_a, [4.0, 4.0])  # k = 0 and k = 2 read a: 1 + 3
    np.testing.assert_array_equal(d_b, [2.0, 2.0])


def test_an_allocation_is_never_null_and_a_parameter_tested_for_null_is_located():
    """s2sad reads malloc as succeeding (the gradient's own allocations do): w == NULL and !w are
    false for it; a pointer parameter may be NULL, which no gradient can know."""
    src = ("#include <stdlib.h>\ndouble f(const double *x, double *out, int n) {\n"
           "    double *w = malloc(n * sizeof(double));\n    if (w == NULL || !w) return -1.0;\n"
           "    for (int i = 0; i < n; i++) w[i] = x[i] * x[i];\n    double s = w[0];\n"
           "    free(w);\n    GUARD\n    return s;\n}\n")
    text = pipeline.gradient_source(src.replace("GUARD", ""), "t.c", "f", ["x"], "c")
    assert "d_x[i] += 2.0 * t0;" in text and "-1.0" not in text  # the failure branch is gone
    messages = _diagnostics(src.replace("GUARD", "if (out != NULL) out[0] = s;"))
    assert any(m.startswith("8:9: testing a pointer parameter for NULL is not supported") for m in messages), messages


# Ping-pong buffers as numerical C writes them: filled by memcpy before the loop, swapped through a
# temporary each step, copied from and freed by name after it (a probe's Jacobi heat steps).
_PING_PONG = """#include <stdlib.h>
#include <string.h>
double f(const double *u0, int n, double kappa, int nsteps)
{
    double *u = malloc(n * sizeof(double));
    double *unew = malloc(n * sizeof(double));
    double *out = malloc(n * sizeof(double));
    memcpy(u, u0, n * sizeof(double));
    for (int s = 0; s < nsteps; s++) {
        unew[0] = u[0];
        unew[n - 1] = u[n - 1];
        for (int i = 1; i < n - 1; i++)
            unew[i] = u[i] + kappa * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        double *tmp = u;
        u = unew;
        unew = tmp;
    }
    memcpy(out, u, n * sizeof(double));
    memset(unew, 0, n * sizeof(double));
    double e = 0.0;
    for (int i = 0; i < n; i++) e += out[i] * out[i] * u0[i];
    free(u);
    free(unew);
    free(out);
    return e;
}
"""


@pytest.mark.parametrize("steps", [2, 3])
def test_ping_pong_buffers_are_copied_into_and_freed_by_name(steps):
    import numpy as np
    from cbuild import build, have_gcc
    from cprimal import CSignature
    from fd import ParamSpec, check_gradient

    if not have_gcc():
        pytest.skip("gcc is not installed")
    text = _gradient(_PING_PONG, ["u0", "kappa"])
    sig = CSignature.parse(_PING_PONG, "f")
    specs = [ParamSpec("u0", "array", (6,)), ParamSpec("n", "int", value=6),
             ParamSpec("kappa", "float", low=0.1, high=0.3), ParamSpec("nsteps", "int", value=steps)]
    check_gradient(sig.primal(build(_PING_PONG)), sig.gradient(build(text), ["u0", "kappa"], []), specs,
                   ["u0", "kappa"], set(), np.random.default_rng(steps), returns_float=True)


# A matrix as one block cut into rows (c_row_allocs): A[0] = malloc(n * m * ...), A[i] = A[i-1] + m.
_CONTIGUOUS_ROWS = """#include <stdlib.h>
static double **dmatrix(int nr, int nc)
{
    int i;
    double **m = (double **)malloc(nr * sizeof(double *));
    m[0] = (double *)calloc(nr * nc, sizeof(double));
    for (i = 1; i < nr; i++) m[i] = m[i - 1] + nc;
    return m;
}

static void free_dmatrix(double **m)
{
    free(m[0]);
    free(m);
}

double f(const double *K, const double *x, int n)
{
    int i, j;
    double **S = (double **)malloc(n * sizeof(double *));
    S[0] = (double *)calloc(n * n, sizeof(double));
    for (i = 1; i < n; i++) S[i] = S[i - 1] + n;
    double **T = dmatrix(n, n);
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            T[i][j] = x[i] * K[j];
    for (i = 0; i < n; i++)
        for (j = 0; j <= i; j++)
            S[i][j] += 0.5 * (K[i * n + j] + K[j * n + i]);
    double e = 0.0;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            e += x[i] * S[i][j] * x[j] + T[j][i] * S[i][j];
    free(S[0]);
    free(S);
    free_dmatrix(T);
    return e;
}
"""


def test_a_block_cut_into_rows_is_a_matrix():
    import numpy as np
    from cbuild import build, have_gcc
    from cprimal import CSignature
    from fd import ParamSpec, check_gradient

    if not have_gcc():
        pytest.skip("gcc is not installed")
    text = _gradient(_CONTIGUOUS_ROWS, ["K", "x"])
    assert "double (*S)[n] = calloc(" in text
    sig = CSignature.parse(_CONTIGUOUS_ROWS, "f")
    specs = [ParamSpec("K", "array", (16,)), ParamSpec("x", "array", (4,)), ParamSpec("n", "int", value=4)]
    check_gradient(sig.primal(build(_CONTIGUOUS_ROWS)), sig.gradient(build(text), ["K", "x"], []), specs,
                   ["K", "x"], set(), np.random.default_rng(1), returns_float=True)


# Probe p11 (reduced): a struct factory whose parameters are named like the members it sets
# (m.rows = rows). Placing the factory put the argument in place of the member's name too, an
# internal error.
FACTORY_NAMES = """
#include <stdlib.h>

typedef struct {
    int rows, cols;
    double *data;
} Matrix;

static Matrix mat_new(int rows, int cols)
{
    Matrix m;
    m.rows = rows;
    m.cols = cols;
    m.data = calloc(rows * cols, sizeof(double));
    return m;
}

double sumsq(const double *x, int n)
{
    Matrix P = mat_new(n, 1);
    double s = 0.0;
    for (int i = 0; i < P.rows; i++) {
        P.data[i] = x[i] * x[i];
        s += P.data[i];
    }
    free(P.data);
    return s;
}
"""


@pytest.mark.skipif(not have_gcc(), reason="gcc not available")
def test_a_factory_parameter_named_like_a_member_leaves_the_member():
    text = pipeline.gradient_source(FACTORY_NAMES, "mat.c", "sumsq", ["x"], "c")
    grad = CFunction(build(text), "grad_sumsq", ["double *", "double *", "int", "double"])
    x = np.array([0.5, -1.5, 2.0])
    d_x = np.zeros_like(x)
    grad(x, d_x, 3, 1.0)
    assert np.allclose(d_x, 2.0 * x), d_x


# Probes p16 and p25 (reduced): malloc(n * sizeof *f) in f's own declaration (f is in scope in
# its initializer), and GSL's `struct gp *p = (struct gp *)params;` (a struct named by its tag).
SIZEOF_OWN = """
#include <stdlib.h>
double sumsq(int n, const double *x)
{
    double *f = malloc(n * sizeof *f);
    double *g = malloc(n * sizeof(*g));
    double s = 0.0;
    for (int i = 0; i < n; i++) f[i] = x[i] * x[i];
    for (int i = 0; i < n; i++) g[i] = f[i] * x[i];
    for (int i = 0; i < n; i++) s += f[i] + g[i];
    free(f);
    free(g);
    return s;
}
"""

STRUCT_TAG_PARAMS = """
#include <math.h>
struct gp { double mu; double sigma; };
static double dens(double x, void *params)
{
    struct gp *p = (struct gp *)params;
    double z = (x - p->mu) / p->sigma;
    return exp(-0.5 * z * z);
}
double total(double mu, double sigma)
{
    struct gp p = { mu, sigma };
    double s = 0.0;
    for (int i = 0; i < 10; i++) s += dens(0.1 * i, &p);
    return s;
}
"""


@pytest.mark.skipif(not have_gcc(), reason="gcc not available")
def test_sizeof_of_the_pointer_being_declared():
    text = pipeline.gradient_source(SIZEOF_OWN, "own.c", "sumsq", ["x"], "c")
    grad = CFunction(build(text), "grad_sumsq", ["int", "double *", "double *", "double"])
    x = np.array([0.5, -1.5, 2.0])
    d_x = np.zeros_like(x)
    grad(3, x, d_x, 1.0)
    assert np.allclose(d_x, 2.0 * x + 3.0 * x * x), d_x


@pytest.mark.skipif(not have_gcc(), reason="gcc not available")
def test_a_void_params_cast_to_a_struct_tag():
    from cbuild import Out

    primal = CFunction(build(STRUCT_TAG_PARAMS), "total", ["double", "double"], "double")
    text = pipeline.gradient_source(STRUCT_TAG_PARAMS, "gp.c", "total", ["mu", "sigma"], "c")
    grad = CFunction(build(text), "grad_total", ["double", "double *", "double", "double *", "double"])
    d_mu, d_sigma, h = Out(0.0), Out(0.0), 1e-6
    grad(0.4, d_mu, 0.7, d_sigma, 1.0)
    assert np.isclose(d_mu.value, (primal(0.4 + h, 0.7) - primal(0.4 - h, 0.7)) / (2 * h), rtol=1e-6)
    assert np.isclose(d_sigma.value, (primal(0.4, 0.7 + h) - primal(0.4, 0.7 - h)) / (2 * h), rtol=1e-6)


# Probe p11b (reduced): a helper that frees the caller's struct member and sets it to NULL.
FREE_NULL = """
#include <stdlib.h>
typedef struct { int n; double *data; } Vec;
static void vec_free(Vec *v) { free(v->data); v->data = NULL; }
double sumsq(const double *x, int n)
{
    Vec t;
    t.n = n;
    t.data = malloc(n * sizeof(double));
    double s = 0.0;
    for (int i = 0; i < n; i++) { t.data[i] = x[i] * x[i]; s += t.data[i]; }
    vec_free(&t);
    return s;
}
"""


@pytest.mark.skipif(not have_gcc(), reason="gcc not available")
def test_a_freed_member_set_to_null_in_a_helper():
    text = pipeline.gradient_source(FREE_NULL, "vec.c", "sumsq", ["x"], "c")
    grad = CFunction(build(text), "grad_sumsq", ["double *", "double *", "int", "double"])
    x = np.array([0.5, -1.5, 2.0])
    d_x = np.zeros_like(x)
    grad(x, d_x, 3, 1.0)
    assert np.allclose(d_x, 2.0 * x), d_x


# Numerical Recipes' dmatrix/dvector: one block indexed from nrl and ncl by moving pointers, the
# pointer to pointers declared first and assigned the call, each allocation tested, a helper
# indexing the matrix from 1 as the caller does, freed through free_dmatrix (probe p02).
_NR_MATRIX = r"""#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#define NR_END 1
#define FREE_ARG char*
static void nrerror(const char error_text[])
{
    fprintf(stderr, "%s\n", error_text);
    exit(1);
}
double **dmatrix(long nrl, long nrh, long ncl, long nch)
{
    long i, nrow = nrh - nrl + 1, ncol = nch - ncl + 1;
    double **m;
    m = (double **)malloc((size_t)((nrow + NR_END) * sizeof(double *)));
    if (!m) nrerror("allocation failure 1 in matrix()");
    m += NR_END;
    m -= nrl;
    m[nrl] = (double *)malloc((size_t)((nrow * ncol + NR_END) * sizeof(double)));
    if (!m[nrl]) nrerror("allocation failure 2 in matrix()");
    m[nrl] += NR_END;
    m[nrl] -= ncl;
    for (i = nrl + 1; i <= nrh; i++) m[i] = m[i - 1] + ncol;
    return m;
}
void free_dmatrix(double **m, long nrl, long nrh, long ncl, long nch)
{
    (void)nrh, (void)nch;
    free((FREE_ARG)(m[nrl] + ncl - NR_END));
    free((FREE_ARG)(m + nrl - NR_END));
}
double *dvector(long nl, long nh)
{
    double *v;
    v = (double *)malloc((size_t)((nh - nl + 1 + NR_END) * sizeof(double)));
    if (!v) nrerror("allocation failure in dvector()");
    return v - nl + NR_END;
}
void free_dvector(double *v, long nl, long nh)
{
    (void)nh;
    free((FREE_ARG)(v + nl - NR_END));
}
/* a[1..n][1..n] times b[1..n] into c[1..n] */
static void matvec(double **a, double b[], double c[], int n)
{
    int i, j;
    for (i = 1; i <= n; i++) {
        c[i] = 0.0;
        for (j = 1; j <= n; j++) c[i] += a[i][j] * b[j];
    }
}
double energy(double x[], double w[], int n)
{
    int i, j;
    double **a, **z, *c, e = 0.0;
    a = dmatrix(1, n, 1, n);
    z = dmatrix(0, n - 1, 0, 1);
    c = dvector(1, n);
    for (i = 1; i <= n; i++)
        for (j = 1; j <= n; j++) a[i][j] = sin(x[i] * w[j]) + (i == j ? 2.0 : 0.0);
    matvec(a, x, c, n);
    for (i = 0; i < n; i++) { z[i][0] = c[i + 1]; z[i][1] = c[i + 1] * x[i + 1]; }
    for (i = 0; i < n; i++) e += z[i][0] * z[i][1];
    free_dvector(c, 1, n);
    free_dmatrix(z, 0, n - 1, 0, 1);
    free_dmatrix(a, 1, n, 1, n);
    return e;
}
"""


def test_a_numerical_recipes_matrix_indexed_from_its_first_indices():
    """The C gradient against central differences of the compiled primal."""
    import ctypes

    from cbuild import INPUT_FLAGS
    from fd import central_difference

    if not have_gcc():
        pytest.skip("gcc is not installed")
    text = _gradient(_NR_MATRIX, ["x", "w"], func="energy")
    ptr = ctypes.POINTER(ctypes.c_double)
    primal = build(_NR_MATRIX, INPUT_FLAGS).energy
    primal.argtypes, primal.restype = [ptr, ptr, ctypes.c_int], ctypes.c_double
    grad = build(text).grad_energy
    grad.argtypes = [ptr, ptr, ptr, ptr, ctypes.c_int, ctypes.c_double]
    n = 4
    rng = np.random.default_rng(3)
    x, w = rng.uniform(-1.0, 1.0, n + 1), rng.uniform(-1.0, 1.0, n + 1)  # read from index 1
    d_x, d_w = np.zeros(n + 1), np.zeros(n + 1)
    grad(x.ctypes.data_as(ptr), d_x.ctypes.data_as(ptr), w.ctypes.data_as(ptr), d_w.ctypes.data_as(ptr), n, 1.0)

    def f(x, w):
        return primal(np.ascontiguousarray(x).ctypes.data_as(ptr), np.ascontiguousarray(w).ctypes.data_as(ptr), n)

    np.testing.assert_allclose(d_x, central_difference(f, [x, w], 0), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(d_w, central_difference(f, [x, w], 1), rtol=1e-7, atol=1e-9)
    assert d_x[0] == 0.0 and d_w[0] == 0.0


def test_a_matrix_with_an_unused_column_whose_row_pointer_is_taken_is_refused():
    """A row's pointer may walk into the next row through the block; with the unused column
    padding each row, that would read it: a located error rather than a wrong gradient."""
    source = (
        _NR_MATRIX.split("void free_dmatrix")[0].replace("double **dmatrix", "double **make")
        + """
double g(double x[], int n)
{
    double **a = make(1, n, 1, n), s = 0.0;
    for (int i = 1; i <= n; i++) for (int j = 1; j <= n; j++) a[i][j] = x[i] * x[j];
    double *p = a[1];
    for (int k = 1; k <= n * n; k++) s += p[k] * p[k];
    return s;
}
"""
    )
    with pytest.raises(DiagnosticError) as e:
        _gradient(source, ["x"], func="g")
    assert "from a first column other than 0, read only as A[i][j]" in e.value.diagnostics[0].hint
    # Indexed from 0, the block keeps its layout: the same walk is read, right (C output).
    import ctypes

    from cbuild import INPUT_FLAGS
    from fd import central_difference

    zero = source.replace("make(1, n, 1, n)", "make(0, n, 0, n)").replace("= 1; i <= n", "= 0; i <= n")
    zero = zero.replace("= 1; j <= n", "= 0; j <= n")
    ptr = ctypes.POINTER(ctypes.c_double)
    primal = build(zero, INPUT_FLAGS).g
    primal.argtypes, primal.restype = [ptr, ctypes.c_int], ctypes.c_double
    grad = build(_gradient(zero, ["x"], func="g")).grad_g
    grad.argtypes = [ptr, ptr, ctypes.c_int, ctypes.c_double]
    x, d_x = np.random.default_rng(0).uniform(-1.0, 1.0, 4), np.zeros(4)
    grad(x.ctypes.data_as(ptr), d_x.ctypes.data_as(ptr), 3, 1.0)
    expected = central_difference(lambda v: primal(np.ascontiguousarray(v).ctypes.data_as(ptr), 3), [x], 0)
    np.testing.assert_allclose(d_x, expected, rtol=1e-7, atol=1e-9)


# -- pointers to rows and states swapped by pointer ----------------------------------------------
# golden/c/rows_pointer_malloc, rows_pointer_pingpong, struct_pointer_swap_heap and
# struct_pointer_swap_local check the numbers; these check the probes and what stays refused.

PROBES = Path(__file__).resolve().parent.parent / "bench" / "probes" / "c"


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
@pytest.mark.parametrize("probe, level", [(p, lvl) for p in ("r35_swap_heap_struct_ptr", "r35b_swap_local_struct_ptr")
                                          for lvl in ("0", "2")])
def test_structs_swapped_by_pointer_match_central_differences(probe, level):
    """Two heap structs, and two local ones, swapped by pointer in a loop (probe p35, reduced):
    ``s2sad check`` compiles the gradient and compares it with central differences."""
    r = subprocess.run([sys.executable, "-m", "s2sad", "check", str(PROBES / "reduced" / f"{probe}.c"), "--func", "f",
                        "--wrt", "x", "--sizes", "x=4,n=5", "--target", "c", "-O", level],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "all adjoints match central differences" in r.stdout, r.stdout + r.stderr


_ROWS = """
#include <stdlib.h>
#define M 4
double f(const double *x, int n, int m)
{{
    double (*u)[M] = malloc(n * sizeof *u), (*v)[M] = calloc(n, sizeof *v);
    for (int i = 0; i < n; i++) for (int j = 0; j < M; j++) u[i][j] = x[i * M + j];
    for (int k = 0; k < 3; k++) {{ double (*t)[M] = u; u = v; v = t; }}
    {body}
}}
"""


@pytest.mark.parametrize("body, message", [
    ("double *r = u[1]; return r[0];",
     "9:17: a row of 'u', which points at a different array depending on the branch taken or the iteration, "
     "is not supported"),
    ("return (*u)[0];",
     "9:14: a row of 'u', which points at a different array depending on the branch taken or the iteration, "
     "is not supported"),
    ("double (*w)[m] = malloc(n * sizeof(void *)); return w[0][0];",
     "9:33: s2sad cannot tell how many of the numbers of 'w' this sizeof's bytes hold"),
    ("double (*w)[3] = u; return w[0][0];", "9:22: 'u' is not an array of rows of 'double (*)[3]'"),
    ("double (*w)[M] = malloc(n * sizeof(double[3])); return w[0][0];",
     "9:33: sizeof gives 24 bytes, neither whole rows of 'w' (32 bytes) nor its numbers"),
])
def test_what_stays_refused_of_pointers_to_rows_is_located(body, message):
    assert _diagnostics(_ROWS.format(body=body)) == [message]


# C99's rows of extents known only when the code runs, allocated in each idiom: their gradient
# (it said "the rows of 't' need a constant size", or that sizeof takes arrays of constant size only).
_VARIABLE_ROWS = """#include <stdlib.h>
double f(const double *x, int n, int m)
{
    double (*t)[m] = ALLOC;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            t[i][j] = x[i * m + j] * (j + 1);
    double s = 0.0;
    for (int i = 1; i < n; i++)
        for (int j = 0; j < m; j++)
            s += t[i][j] * t[i - 1][j];
    free(t);
    return s;
}
"""


@pytest.mark.skipif(not have_gcc(), reason="gcc not available")
@pytest.mark.parametrize("alloc", ["malloc(n * sizeof *t)", "malloc(sizeof(double[n][m]))", "calloc(n, sizeof t[0])",
                                   "malloc(n * m * sizeof(double))", "malloc(n * sizeof(double[m]))"])
def test_rows_of_variable_length_are_allocated_as_c_sizes_them(alloc):
    from fd import ParamSpec, check_gradient

    source = _VARIABLE_ROWS.replace("ALLOC", alloc)
    text = pipeline.gradient_source(source, "t.c", "f", ["x"], "c")
    sig = CSignature.parse(source, "f")
    specs = [ParamSpec("x", "array", (12,)), ParamSpec("n", "int", value=4), ParamSpec("m", "int", value=3)]
    check_gradient(sig.primal(build(source)), sig.gradient(build_sanitized(text), ["x"], []), specs, ["x"], set(),
                   np.random.default_rng(2), returns_float=True)


def test_a_struct_with_an_array_member_swapped_by_pointer_passed_through_the_pointer_is_located():
    """``g(sb)`` and ``S c = sa;`` of such a struct are read as C reads them (its array member
    copied element by element: tests/test_c_struct_2d_members.py); ``g(*cur)``, the struct the
    moving pointer holds passed by value, is not."""
    source = """
typedef struct { double a[2]; } S;
static double g(S s) { return s.a[0]; }
double f(const double *x, int n)
{
    S sa = {{0.0, 1.0}}, sb = {{x[0], x[1]}};
    S *cur = &sa, *nxt = &sb;
    for (int k = 0; k < n; k++) { S *t = cur; cur = nxt; nxt = t; }
    double s = cur->a[1] + g(sb) + g(*cur);
    S c = sa;
    return s + c.a[0];
}
"""
    assert _diagnostics(source) == [
        "9:39: 'cur[0].a' points at a different array depending on the branch taken or the iteration, and this use "
        "of it is not supported"]


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
def test_structs_of_numbers_swapped_by_pointer_pass_and_copy_whole(tmp_path):
    """A struct a pointer moves to and from, passed by value (``g(sb)``, ``g(*cur)``), copied
    (``S c = sa``), assigned whole (``sb = *nxt``) and written by a helper through the pointer:
    each as C reads it."""
    path = tmp_path / "prog.c"
    path.write_text("""#include <math.h>
typedef struct { double a, b; } S;
static double g(S s) { return s.a * s.b; }
static void h(S *s, double x) { s->b += x * s->a; }
double f(const double *x, int n)
{
    S sa = {x[0], x[1]}, sb = {0};
    S *cur = &sa, *nxt = &sb;
    for (int k = 0; k < n; k++) {
        nxt->a = cur->b;
        nxt->b = sin(cur->a);
        h(nxt, x[2]);
        S *t = cur; cur = nxt; nxt = t;
    }
    S c = sa;
    sb = *nxt;
    sa.b *= 2.0;
    return g(*cur) + g(sb) + c.b + sa.b;
}
""")
    for level in ("0", "2"):
        r = subprocess.run([sys.executable, "-m", "s2sad", "check", str(path), "--func", "f", "--wrt", "x", "--sizes",
                            "x=3,n=3", "--target", "c", "-O", level], capture_output=True, text=True, timeout=300)
        assert r.returncode == 0 and "all adjoints match central differences" in r.stdout, r.stdout + r.stderr
