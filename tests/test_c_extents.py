"""C output from Python: an array's extents are its own, never the bounds of the loops indexing it.

Issue 14, class 2: ``A[i, j]`` with ``j`` in ``range(k)`` was indexed ``A[i * k + j]``, so an
``A`` wider than ``k`` columns gave a wrong gradient. The row length (and ``len(x)``, and the
size of a copy that no loop bounds) now comes from an annotation or, where none gives it, from a
``long`` parameter ``<array>_shape<axis>`` after the arrays and shadows, before ``d_return``.
"""

from __future__ import annotations

import numpy as np
import pytest

from cbuild import CFunction, build, have_gcc
from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError

pytestmark = pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")

COLSUM = """\
def colsum(A, m, k):
    s = 0.0
    for i in range(m):
        for j in range(k):
            s += A[i{sep}j] ** 2
    return s
"""


def _fd(f, x, h=1e-6):
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[idx] += h
        xm[idx] -= h
        g[idx] = (f(xp) - f(xm)) / (2 * h)
    return g


@pytest.mark.parametrize("level", [0, 2])
@pytest.mark.parametrize("sep", [", ", "]["], ids=["comma", "chained"])
def test_row_length_is_the_arrays_own_not_a_loop_bound(sep, level):
    source = COLSUM.format(sep=sep)
    text = pipeline.gradient_source(source, "colsum.py", "colsum", ["A"], "c", pipeline.Options(level=level))
    assert "void grad_colsum(double *A, double *d_A, long m, long k, long A_shape1, double d_return)" in text
    assert "// Array sizes: A, d_A: [m][A_shape1] (row-major)." in text
    namespace: dict = {}
    exec(source, namespace)
    rng = np.random.default_rng(0)
    A = rng.normal(size=(3, 4))
    m, k = 3, 2  # k < A.shape[1]: the loop bound is not the row length
    d_A = np.zeros_like(A)
    grad = CFunction(build(text), "grad_colsum", ["double *", "double *", "long", "long", "long", "double"])
    grad(A, d_A, m, k, A.shape[1], 1.0)
    np.testing.assert_allclose(d_A, _fd(lambda a: namespace["colsum"](a, m, k), A), rtol=1e-6, atol=1e-8)


def test_len_is_the_arrays_own_length():
    source = (
        "def f(x, n):\n    s = 0.0\n    for i in range(n):\n        s += x[i] * x[i]\n"
        "    return s * len(x)\n"
    )
    text = pipeline.gradient_source(source, "f.py", "f", ["x"], "c")
    assert "void grad_f(double *x, double *d_x, long n, long x_shape0, double d_return)" in text
    namespace: dict = {}
    exec(source, namespace)
    x = np.random.default_rng(1).normal(size=5)
    d_x = np.zeros_like(x)
    grad = CFunction(build(text), "grad_f", ["double *", "double *", "long", "long", "double"])
    grad(x, d_x, 3, 5, 1.0)
    np.testing.assert_allclose(d_x, _fd(lambda v: namespace["f"](v, 3), x), rtol=1e-6, atol=1e-8)


def test_a_copy_is_not_sized_by_one_loop_when_another_reaches_further():
    # x is written in range(n) and read in range(m): a copy sized n would be too small when m > n.
    source = """\
def g(x, n, m):
    s = 0.0
    for i in range(n):
        x[i] = x[i] * x[i]
    for j in range(m):
        s += x[j] * x[(j + 1) % m]
    return s


def f(x, n, m):
    t = g(x, n, m)
    x[0] = 0.5 * x[0]
    return t * x[1]
"""
    text = pipeline.gradient_source(source, "f.py", "f", ["x"], "c", pipeline.Options(level=0))
    assert "x_shape0" in text  # neither n nor m bounds what is touched
    namespace: dict = {}
    exec(source, namespace)
    x0 = np.random.default_rng(2).uniform(0.5, 1.5, size=6)
    n, m = 2, 5

    def J(v, seed):
        v = v.copy()
        return namespace["f"](v, n, m) + float(seed @ v)

    seed = np.random.default_rng(3).normal(size=6)
    x, d_x = x0.copy(), seed.copy()
    grad = CFunction(build(text), "grad_f", ["double *", "double *", "long", "long", "long", "double"])
    grad(x, d_x, n, m, 6, 1.0)
    np.testing.assert_allclose(d_x, _fd(lambda v: J(v, seed), x0), rtol=1e-6, atol=1e-8)


def test_a_helper_that_needs_a_row_length_is_a_located_error():
    source = """\
def rowdot(A, i, k):
    s = 0.0
    for j in range(k):
        s += A[i, j] * A[i, j]
    return s


def f(A, m, k):
    s = 0.0
    for i in range(m):
        s += rowdot(A, i, k)
    return s
"""
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(source, "f.py", "f", ["A"], "c", pipeline.Options(level=0))
    assert "f.py:4:" in info.value.render() and "cannot tell the size of array 'A'" in info.value.render()


def test_c_input_whose_array_no_loop_bounds_gets_a_hint_true_for_c():
    # C has no annotations: the hint names what s2sad looked at (the loops), not a Python syntax.
    # (out[n - 1 - i] beside out[i] of a strided loop was such a case; both are bounded now: n - 1.)
    source = """\
void w(double *out, const int *idx, int n)
{
    for (int i = 0; i < n; i++) {
        out[idx[i]] *= out[i];
    }
}

double f(double *x, double *y, const int *idx, int n)
{
    w(y, idx, n);
    return x[0] * y[0];
}
"""
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(source, "f.c", "f", ["x"], "c", pipeline.Options(level=2))
    text = info.value.render()
    assert "cannot tell the size of array 'y' in C output" in text
    assert "bounds 'y' by the loops that index it" in text and '"f64[' not in text


def test_a_shape_symbol_the_function_also_assigns_is_that_extent(tmp_path):
    # It was refused ("give the shape symbol another name"), and its hint once told the user to
    # annotate the parameter, which was annotated already.
    from s2sad.cli import main

    source = ('import numpy as np\n\n\ndef f(logits: "f64[n, k]"):\n    n = logits.shape[0]\n'
              "    return np.sum(logits * logits) / n\n")
    assert "long n, long k" in pipeline.gradient_source(source, "f.py", "f", ["logits"], "c")
    path = tmp_path / "f.py"
    path.write_text(source)
    assert main(["check", str(path), "--wrt", "logits", "--sizes", "logits=3x4", "--target", "py"]) == 0


C_CONSTANT_INDEX = """\
double r0(double *z, int n)
{
    double h0 = 0.0;
    if (z[3] > 0.5) {
        for (int i = 1; i < n - 1; i++) {
            h0 += z[i];
        }
    }
    return h0;
}

double f(double *x, double *y, int n)
{
    y[0] *= r0(x, n);
    x[1] += 0.5;
    return 0.5;
}
"""


@pytest.mark.parametrize("level", [0, 1, 2])
def test_a_copy_reaches_a_constant_index_past_the_loops(level):
    """Fuzz seed 9200799, shrunk: x must be copied before r0 (x[1] changes after the call), and
    the copy was sized by r0's loop alone, n - 1 elements, while r0 also reads z[3]: with n = 4
    the gradient's branch read past the copy, and d_x was wrong. A constant index raises the
    cover: max_l(n - 1, 4)."""
    text = pipeline.gradient_source(C_CONSTANT_INDEX, "f.c", "f", ["x"], "c", pipeline.Options(level=level))
    assert "max_l(n - 1, 4)" in text and "[max(n - 1, 4)]" in text
    n = 4

    def J(v, seeds):
        x, y = v.copy(), np.array([0.75, 0.0])
        y[0] *= sum(x[1:n - 1]) if x[3] > 0.5 else 0.0
        x[1] += 0.5
        return 0.5 + float(seeds[0] @ x) + float(seeds[1] @ y)

    rng = np.random.default_rng(5)
    x0 = np.array([0.3, 0.9, 1.1, 0.8])
    seeds = (rng.normal(size=4), rng.normal(size=2))
    x, d_x, y, d_y = x0.copy(), seeds[0].copy(), np.array([0.75, 0.0]), seeds[1].copy()
    grad = CFunction(build(text), "grad_f", ["double *", "double *", "double *", "double *", "int", "double"])
    grad(x, d_x, y, d_y, n, 1.0)
    np.testing.assert_allclose(d_x, _fd(lambda v: J(v, seeds), x0), rtol=1e-6, atol=1e-8)


def test_a_local_named_as_an_annotation_length_keeps_it_apart(tmp_path):
    """``n = u0.shape[0]`` beside ``u0: "f64[n]"``: C output's size parameter ``n`` has no use in
    the IR (C prints extents with it), so the local took its variable and the extent was refused
    ("give the shape symbol another name"; Python probe round 6). A length an annotation names
    now keeps its variable (``emit.outofssa``)."""
    from s2sad.cli import main

    source = 'def f(u0: "f64[n]"):\n    n = u0.shape[0]\n    s = 0.0\n    for i in range(n):\n' \
             "        s += u0[i] * u0[i - 1] + u0[n - 1]\n    return s\n"
    text = pipeline.gradient_source(source, "f.py", "f", ["u0"], "c")
    assert "void grad_f(double *u0, double *d_u0, long n, double d_return)" in text
    path = tmp_path / "f.py"
    path.write_text(source)
    assert main(["check", str(path), "--wrt", "u0", "--sizes", "u0=5", "--target", "c"]) == 0


# A declared size the code provably reaches past (work[n] of which work + n is passed on, read up
# to 2 n): the gradient's copies and adjoints are sized by the declaration, so it read and wrote
# past them (probe round 7: a heap overflow under ASan, "double free or corruption").
PAST_DECLARED = """\
static void step(const double *a, double *u, double *g, int n)
{
    for (int j = 0; j < n; j++) { g[j] = a[j] * u[j]; u[j] = g[j] * u[j]; }
}

void f(int n, double *u, double k, int nsteps, double work[{size}])
{
    double *a = work, *g = work + n;
    for (int i = 0; i < n; i++) a[i] = k;
    for (int s = 0; s < nsteps; s++) step(a, u, g, n);
}
"""


def test_a_declared_size_the_code_reaches_past_is_a_located_error():
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(PAST_DECLARED.replace("{size}", "n"), "t.c", "f", ["u", "k"], "c")
    (d,) = info.value.diagnostics
    assert d.message == "'work' is declared with n elements, but 'f' reaches 2 * n of them", d
    assert d.loc.line == 6 and "2 * n" in d.hint, d
    # the size it reaches, or more, is accepted
    for size in ("2 * n", "2 * n + 1"):
        pipeline.gradient_source(PAST_DECLARED.replace("{size}", size), "t.c", "f", ["u", "k"], "c")


# An index a ternary keeps in range (a clamp: the neighbour, or the last element; the usual CLAMP
# macro on a 2-D image) reaches no further than the declared size: the branch chosen where
# `i + 1 < n` holds is below n (probe round 8: it was refused as reaching n + 1).
CLAMPED = {
    "neighbour": ("""double f(int n, const double x[n])
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        int j = i + 1 < n ? i + 1 : n - 1;
        s += x[i] * x[j];
    }
    return s;
}
""", "f", "x", "n=5"),
    "clamp_macro": ("""#define CLAMP(v, lo, hi) ((v) < (lo) ? (lo) : ((v) > (hi) ? (hi) : (v)))
double blur(int h, int w, const double img[h][w])
{
    double s = 0.0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double acc = 0.0;
            for (int d = -1; d <= 1; d++)
                acc += img[CLAMP(y + d, 0, h - 1)][CLAMP(x - d, 0, w - 1)];
            s += acc * acc * img[y][x];
        }
    return s;
}
""", "blur", "img", "h=4,w=5"),
}


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
@pytest.mark.parametrize("name", sorted(CLAMPED))
def test_an_index_a_ternary_keeps_in_range_is_within_the_declared_size(name, tmp_path, capsys):
    from source_gradients import check_command

    source, func, wrt, sizes = CLAMPED[name]
    check_command(tmp_path, capsys, source, func, wrt, sizes, "c", "t.c")


# A pointer walked through an array (*p++, q -= 2) or a second index stepped in every iteration
# (k += 2) reaches init + (trips - 1) * step; i / 2 reaches the quotient of i's bound where 2
# divides its terms: the gradient's comment gives the sizes, and check draws arrays that long
# without --sizes (it asked for them: probe rounds 8 and 9).
WALKED = """\
double sumsq(const double *x, int n) {
    const double *l = x;
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        double v = *l++;
        s += v * v;
    }
    return s;
}

double walk2(const double *x, const double *y, int n) {
    const double *p = x + 1, *q = y + 2 * n - 1;
    double s = 0.0;
    for (int i = 0; i < n; ++i) {
        s += *p++ * *q;
        q -= 2;
    }
    return s;
}

double halves(const double *x, const double *y, int n) {
    double s = 0.0;
    for (int i = 0; i < 2 * n; i++)
        s += x[i / 2] * y[i] * (i % 3 == 0 ? 1.0 : -0.5);
    return s;
}

double pairs(const double *x, int n) {
    double s = 0.0;
    int k = 0;
    for (int i = n - 1; i >= 0; i--) {
        s += x[k] * x[k + 1];
        k += 2;
    }
    return s;
}

double dot_down(const double *x, const double *y, int n) {
    double s = 0.0;
    while (n-- > 0) {
        s += *x++ * *y++;
    }
    return s;
}

void axpy_down(double a, const double *x, double *y, int n) {
    while (n--) {
        *y++ += a * *x++;
    }
}

double strided_up(const double *x, int n) {
    double s = 0.0;
    int i = 0;
    while (i++ < n) {
        s += x[0] * *x;
        x += 2;
    }
    return s;
}

double capped(const double *x, int n) {
    double s = 0.0;
    while (n-- > 0) {
        if (s > 3.0) break;
        s += *x++;
    }
    return s;
}

double skip5(const double *x, int n) {
    double s = 0.0;
    const double *p = x;
    while (n-- > 0) {
        if (n != 5) s += *p * *p;
        p++;
    }
    return s;
}

double read_before_test(const double *x, int n) {
    double s = 0.0;
    for (;;) {
        s += *x * *x;
        if (!(n-- > 0)) break;
        x++;
    }
    return s;
}
"""


@pytest.mark.parametrize("func, wrt, sizes", [
    ("sumsq", "x", "x, d_x: [n]"),
    ("walk2", "x,y", "x, d_x: [n + 1]; y, d_y: [2 * n]"),
    ("pairs", "x", "x, d_x: [2 * n]"),
    ("halves", "x,y", "x, d_x: [n]; y, d_y: [2 * n]"),  # (i / 2 of i <= 2 * n - 1: n - 1)
    # K&R's loops: pointers stepped beside a counter the test steps (while (n--), n-- > 0, i++ < n)
    ("dot_down", "x,y", "x, d_x, y, d_y: [n]"),
    ("axpy_down", "x,a", "x, d_x, y, d_y: [n]"),
    ("strided_up", "x", "x, d_x: [2 * n - 1]"),
    ("capped", "x", "x, d_x: [n]"),  # (a break: at most n)
    ("skip5", "x", "x, d_x: [n]"),  # (n != 5 is no test that ends the loop: it bounds nothing)
])
def test_a_walked_pointer_reaches_its_last_step(func, wrt, sizes, tmp_path, capsys):
    from source_gradients import check_command

    text = pipeline.gradient_source(WALKED, "t.c", func, wrt.split(","), "c")
    assert f"// Array sizes: {sizes}." in text, text
    check_command(tmp_path, capsys, WALKED, func, wrt, "n=5", "c", "t.c")


def test_a_walk_read_before_the_test_that_ends_its_loop_is_not_bounded_by_it():
    # x is read once more than the test passes (n + 1 elements): the test bounds nothing there,
    # so the size is asked for, never stated one short.
    text = pipeline.gradient_source(WALKED, "t.c", "read_before_test", ["x"], "c")
    assert "Array sizes" not in text, text


def test_a_helpers_annotation_symbol_that_is_no_parameter_gets_a_true_hint():
    # (the hint asked to annotate u, which was annotated: "f64[n]" with no n among the parameters)
    source = ('import numpy as np\n\n\ndef smooth(u: "f64[n]", out: "f64[n]"):\n'
              "    out[1:-1] = 0.5 * (u[2:] + u[:-2])\n\n\n"
              'def f(u: "f64[n]"):\n    buf = np.zeros_like(u)\n    smooth(u, buf)\n    return np.sum(buf**2)\n')
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(source, "t.py", "f", ["u"], "c")
    d = info.value.diagnostics[0]
    assert d.message == "cannot tell the size of array 'u' in C output", d
    assert d.hint == ("its annotation \"f64[n]\" names 'n', which is no integer parameter of 'smooth': add n: int to "
                      "its parameters (and pass it, len(u))"), d
    # and so it is differentiated
    fixed = source.replace('def smooth(u: "f64[n]", out: "f64[n]"):', 'def smooth(u: "f64[n]", out: "f64[n]", n: int):')
    pipeline.gradient_source(fixed.replace("smooth(u, buf)", "smooth(u, buf, len(u))"), "t.py", "f", ["u"], "c")
