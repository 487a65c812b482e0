"""C structs as they are (``parse/c_records``): what is refused, and how it is said.

The numerics of struct values, pointer members, local structs and member addresses are
checked by their golden cases (golden/c/struct_by_value_mixed, struct_pointer_member,
local_struct, struct_member_address, struct_number_member_address, struct_array_pointer_members,
struct_array_pointer_members_written, struct_array_element_to_helper, malloc_one_struct,
malloc_struct_pointer_members). Here: each construct that remains refused gives
one located diagnostic, in C words, with a hint; and the gradient's signature keeps the
user's struct parameters with one shadow struct each.
"""

from __future__ import annotations

import numpy as np
import pytest

from cbuild import compile_c, have_gcc
from source_gradients import CALLS_KEPT, check_command

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError

TYPES = """typedef struct { double gamma; int m; } Wishart;
typedef struct { int rows, cols; double *data; } Matrix;
typedef struct { double x; double v[3]; int id; } Particle;
"""


def _error(body: str, func: str, wrt: str, target: str = "c"):
    source = TYPES + body
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(source, "t.c", func, [wrt], target)
    (d,) = info.value.diagnostics  # one problem, one message: no follow-on errors
    assert d.hint, d.message
    text = info.value.render()
    assert text.startswith(f"t.c:{d.loc.line}:{d.loc.col}: error: ") and "^" in text
    return d


def _line(body: str, needle: str) -> int:
    return (TYPES + body).split("\n").index(next(s for s in (TYPES + body).split("\n") if needle in s)) + 1


@pytest.mark.parametrize("body, func, wrt, needle, message", [
    ("static double g(const Wishart *w) { return w->gamma; }\n"
     "double f(const double *x, Wishart w) { return g(w) * x[0]; }\n",
     "f", "x", "return g(w)", "'g' expects a pointer to a Wishart here"),
    ("static double g(Wishart w) { return w.gamma; }\n"
     "double f(const double *x, const Matrix *M) { return g(M) * x[0]; }\n",
     "f", "x", "return g(M)", "'g' expects a Wishart here"),
    ("double f(const Matrix *Ms, int n) { double s = 0; for (int i = 0; i < n; i++, Ms++) s += Ms->data[0];"
     " return s + Ms[0].data[1]; }\n", "f", "Ms", "for (int i",
     "'Ms' points to an array of Matrix, used here as a value (moving it, Ms++, is not supported either)"),
    ("static double g(const Matrix *Ms, int n) { return Ms[n - 1].data[0]; }\n"
     "double f(const Matrix *Ms, int n) { const Matrix *L = &Ms[1]; return Ms[0].data[0] * g(L, n); }\n",
     "f", "Ms", "* g(L, n)", "'g' takes an array of Matrix: s2sad passes one on only as the array parameter"),
    ("double f(const Matrix *Ms, int n) { return Ms[n].beta; }\n", "f", "Ms", "Ms[n].beta",
     "Matrix has no member 'beta'"),
    ("double f(const Matrix *M, double *t) { M->data = t; return t[0]; }\n", "f", "t", "M->data = t",
     "'M->data' cannot be assigned: it is a member of a const struct"),
    ("double f(Particle p) { p.v[0] = 2.0; return p.v[0] * p.x; }\n", "f", "p", "p.v[0] = 2.0",
     "'p.v[0]' cannot be assigned: it is an array member of a struct passed by value"),
    ("double f(Matrix *Ms, double *x) { Ms[1].data = x; return Ms[0].data[0] * x[0]; }\n", "f", "x",
     "Ms[1].data = x", "'Ms[1].data' cannot be pointed elsewhere"),
    ("double f(Wishart w) { return w->gamma; }\n", "f", "w", "w->gamma",
     "'w' is a Wishart value: its members are read with '.'"),
    ("double f(const Matrix *M) { return M.data[0]; }\n", "f", "M", "M.data",
     "'M' is a pointer to a Matrix: its members are read with '->'"),
    ("double f(Wishart w) { return w.beta; }\n", "f", "w", "w.beta", "Wishart has no member 'beta'"),
    ("Wishart f(double a) { Wishart w = {a, 1}; return w; }\n", "f", "a", "Wishart f",
     "--target c: 'f' returns a struct (Wishart), and the function differentiated must return one number"),
    ("Particle f(double a) { Particle p = {a, {0}, 1}; return p; }\n", "f", "a", "Particle f",
     "functions returning a struct (Particle) with array or pointer members are not supported"),
    ("double f(const Matrix ms[], double a) { return a * ms[1]; }\n", "f", "a", "return a * ms[1]",
     "'ms' points to an array of Matrix, used here as a value"),
    ("double f(double a) { Matrix *m = 0; (void)m; return a; }\n", "f", "a", "Matrix *m",
     "local pointers to Matrix are not supported"),
    ("double f(double a, int n) { Matrix *ms = malloc(n * sizeof(Matrix)); return a; }\n",
     "f", "a", "n * sizeof(Matrix)", "arrays of Matrix on the heap are not supported yet"),
    ("double f(double a) { Matrix *m = malloc(sizeof(Wishart)); return a; }\n",
     "f", "a", "sizeof(Wishart)", "this is not the size of a Matrix"),
    ("double f(double a) { Matrix *m = malloc(sizeof(Matrix)); m->rows = 2; m = 0; return a * m->rows; }\n",
     "f", "a", "m = 0", "'m' cannot be assigned: it holds the one Matrix it was allocated with"),
    ("double f(const Matrix *Ms, int n) { double s = 0; for (int i = 0; i < n; i++) {\n"
     "const Matrix *L = &Ms[i]; s += L->data[0]; L = &Ms[0]; } return s; }\n",
     "f", "Ms", "L = &Ms[0]", "'L' cannot be assigned: it points to one Matrix of 'Ms' from its declaration on"),
    ("double f(double a) { Matrix *m = malloc(sizeof(Matrix)); m->rows = 2; Matrix *q = m; return a; }\n",
     "f", "a", "Matrix *q", "a second pointer to the Matrix 'm' is not supported"),
    ("double f(double a) { Wishart w = {a, 2}; double *d = (double *)&w; return d[0]; }\n",
     "f", "a", "(double *)&w", "taking the address of the Wishart 'w' is supported where it is passed to a "
     "function of this file or sets a pointer to Wishart"),
    ("typedef struct { double k, c; } P2;\n"
     "static void w2(P2 *p, double *x) { p->k += *x; *x = 2.0; }\n"
     "double f(double k) { P2 p = {k, k}; w2(&p, &p.c); return p.k; }\n",
     "f", "k", "w2(&p, &p.c)", "'w2' is passed '&p' and, here, more of that P2"),
    ("typedef struct { double k, c; } P2;\n"
     "double f(double k) { P2 p = {k, k}; const P2 *q = &p; q->k = 2.0; return p.k * q->c; }\n",
     "f", "k", "q->k = 2.0", "'q->k' cannot be assigned: 'q' points to a const struct"),
    ("typedef struct { double k; int n; } S3;\n"
     "static void two(S3 *a, const S3 *b) { a->k += b->k * b->n; }\n"
     "static void run(S3 *s) { S3 *t = s; two(t, s); }\n"
     "double f(double k) { S3 v = {k, 2}; run(&v); return v.k; }\n",
     "f", "k", "two(t, s)", "'two' is passed 't' and, here, more of that S3"),
    ("double f(double a) { Wishart w; memset(&w, 0, 8); w.gamma += a; return w.gamma; }\n", "f", "a",
     "memset(&w", "memset of the Wishart 'w' is supported for the whole struct only"),
    ("double f(const double *x) { Wishart w; memcpy(&w, x, sizeof w); return w.gamma; }\n", "f", "x",
     "memcpy(&w", "memcpy into the Wishart 'w' copies from another Wishart only"),
    ("static void scale(Wishart *w, double *x) { w->gamma *= *x; *x = 2.0; }\n"
     "double f(double k) { Wishart w = {k, 1}; Wishart *v = &w; scale(v, &w.gamma); return w.gamma; }\n",
     "f", "k", "scale(v, &w.gamma)", "'scale' is passed 'v' and, here, more of that Wishart"),
    ("double f(double a, int k) { Matrix ms[2]; ms[k].rows = 2; return a * ms[k].rows; }\n", "f", "a", "ms[2]",
     "local arrays of Matrix are not supported yet"),
    ("typedef struct { double x, y; } P2;\n"
     "double f(const double *a) { P2 g[2][2]; g[0][0].x = a[0]; return g[0][0].x; }\n", "f", "a", "P2 g",
     "local arrays of P2 of more than one dimension are not supported"),
    ("typedef struct { double v[2]; double m; } B;\n"
     "double f(const double *a) { B g[2] = {{{1.0, 2.0}, 3.0}}; return g[0].m * a[0]; }\n", "f", "a", "B g",
     "this initializer of an array of B is not supported"),
    ("typedef struct { double x, y; } P2;\n"
     "double f(const double *a) { P2 *g = malloc(3 * sizeof(double)); g[0].x = a[0]; return g[0].x; }\n",
     "f", "a", "P2 *g", "sizeof gives 8 bytes but a P2 is 16"),
    # (a pointer to one member that never moves reads as the member: c_member_pointers; one moved is refused)
    ("double f(const Particle *p) { const double *q = &p->x; double s = *q; q = &p->y; return s * *q; }\n", "f",
     "p", "&p->x", "taking the address of 'p->x' is not supported"),
    ("static void put(double *y, const Wishart *w) { *y = w->gamma; }\n"
     "double f(const double *x) { Wishart w = {x[0], 1}; put(&w.gamma, &w); return w.gamma; }\n",
     "f", "x", "put(&w.gamma", "'put' is passed '&w.gamma' and, here, more of 'w's memory"),
    ("static void sq(double *a, double *b) { *a *= *b; }\n"
     "double f(Wishart w) { sq(&w.gamma, &w.gamma); return w.gamma; }\n",
     "f", "w", "sq(&w.gamma", "'sq' is passed '&w.gamma' and, here, more of 'w's memory"),
    ("static void twice(double *y) { *y *= 2.0; }\n"
     "double f(const Wishart *w) { twice(&w->gamma); return w->gamma; }\n",
     "f", "w", "twice(&w->gamma", "'w->gamma' cannot be assigned: it is a member of a const struct"),
    ("double f(Wishart w) { return w.gamma * w.m; }\n", "f", "w", "double f",
     "--target py: 'f' takes the struct 'w' (Wishart), which only C output passes as written"),
    # doorfuzz seed 17504130: ``double :x, v;`` (an unnamed bit-field member) was an internal error
    ("typedef struct { int id; double :x, v; } Body;\n"
     "double f(Body *bs, int n) { double s = 0.0; for (int i = 0; i < n; i++) s += bs[i].v; return s; }\n",
     "f", "bs", "double f", "an unnamed member of Body is a bit-field, which s2sad does not read"),
    ("typedef struct { unsigned flags : 3; double v; } Flagged;\n"
     "double f(Flagged *p) { return p->v * p->v; }\n",
     "f", "p", "double f", "the member 'flags' of Flagged is a bit-field, which s2sad does not read"),
])
def test_refused_struct_constructs_are_located(body, func, wrt, needle, message):
    target = "py" if message.startswith("--target py") else "c"
    d = _error(body, func, wrt, target)
    assert message in d.message
    assert d.loc.line == _line(body, needle)


def test_wrt_a_struct_without_floating_point_members_is_an_error():
    source = TYPES + "typedef struct { int n; } Count;\ndouble f(const double *x, Count c) { return x[0] * c.n; }\n"
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(source, "t.c", "f", ["c"], "c")
    assert "the struct 'c' of 'f' has no floating-point members" in str(info.value)


def test_struct_parameters_keep_their_declarations_with_one_shadow_struct_each():
    source = TYPES + (
        "double f(const Matrix *M, Wishart w, Particle *p)\n"
        "{ p->x = w.gamma * M->data[0] + p->v[1] * w.m; return p->x * M->data[M->cols]; }\n")
    text = pipeline.gradient_source(source, "t.c", "f", ["M", "w"], "c")
    assert ("void grad_f(const Matrix *M, Matrix *d_M, Wishart w, Wishart *d_w, Particle *p, Particle *d_p, "
            "double d_return)") in " ".join(text.split())
    assert "d_w->gamma +=" in text and "d_M->data[" in text and "d_p->x" in text
    assert "d_p->id" not in text and "d_M->rows" not in text  # integer members have no adjoint


# -- structs returned by value (golden/c/struct_returned_by_value checks the numbers) -------------

VEC3 = ("typedef struct { double x, y, z; } Vec3;\n"
        "static Vec3 vsub(Vec3 a, Vec3 b) { Vec3 r = {a.x - b.x, a.y - b.y, a.z - b.z}; return r; }\n"
        "static double dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }\n"
        "double f(const double *p) {\n    Vec3 a = {p[0], p[1], p[2]}, b = {p[3], p[4], p[5]};\n    {body}\n}\n")


def test_a_struct_returned_by_value_is_written_through_a_pointer_per_member_in_c_output():
    text = pipeline.gradient_source(VEC3.replace("{body}", "Vec3 d = vsub(a, b);\n    return dot(d, d);"), "t.c",
                                    "f", ["p"], "c", pipeline.Options(level=0))
    assert ("static void vsub(double a_x, double a_y, double a_z, double b_x, double b_y, double b_z,\n"
            "                 double *result_x, double *result_y, double *result_z) {") in text
    assert "    *result_x = r_x;\n    *result_y = r_y;\n    *result_z = r_z;\n" in text
    assert "vsub(a_x, a_y, a_z, b_x, b_y, b_z, &vsub_x, &vsub_y, &vsub_z);" in text
    assert "double d_return_x, double d_return_y, double d_return_z)" in " ".join(text.split())  # grad_vsub's seeds


@pytest.mark.parametrize("body, message, fixed", [
    ("double d = vsub(a, b);\n    return d;", "'vsub' returns a whole Vec3, used here as a value",
     "Vec3 r = vsub(a, b);\n    return r.y;"),
    ("return vsub(a, b).w;", "Vec3 has no member 'w'", "return vsub(a, b).z;"),
    ("return dot(vsub(a, b), 2.0);", "'dot' expects a Vec3 here", "return dot(vsub(a, b), a);"),
])
def test_a_struct_a_call_returns_is_used_as_c_allows_else_located(body, message, fixed):
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(VEC3.replace("{body}", body), "t.c", "f", ["p"], "c")
    (d,) = info.value.diagnostics
    assert d.loc.line == 6 and message in d.message and d.hint, d
    assert "d_p[" in pipeline.gradient_source(VEC3.replace("{body}", fixed), "t.c", "f", ["p"], "c",
                                              pipeline.Options(level=0))


@pytest.mark.parametrize("level", [0, 2])
def test_a_struct_call_passed_on_or_read_by_member_is_the_same_as_through_a_variable(level):
    """``dot(vsub(a, b), a)`` and ``vsub(a, b).x`` as written (golden/c/struct_call_as_argument
    checks such code against finite differences): the same gradient as with a variable between."""
    def grad(body: str) -> str:
        text = pipeline.gradient_source(VEC3.replace("{body}", body), "t.c", "f", ["p"], "py",
                                        pipeline.Options(level=level))
        namespace: dict = {}
        exec(compile(text, "<grad_f>", "exec"), namespace)
        p, d_p = np.linspace(0.3, 1.8, 6), np.zeros(6)
        namespace["grad_f"](p, d_p)
        return d_p

    written = grad("return dot(vsub(a, b), a) * vsub(b, a).y;")
    through = grad("Vec3 u = vsub(a, b);\n    Vec3 v = vsub(b, a);\n    return dot(u, a) * v.y;")
    assert np.allclose(written, through) and np.any(written != 0.0)


@pytest.mark.parametrize("level", [0, 2])
def test_a_struct_of_one_member_returned_by_value_is_one_value_through_a_pointer(level):
    source = ("struct P { double k; };\nstatic struct P g(double a) { struct P p = {a * a}; return p; }\n"
              "double f(double a) { struct P q = g(a); return q.k * a; }\n")
    text = pipeline.gradient_source(source, "t.c", "f", ["a"], "c", pipeline.Options(level=level))
    code = "\n".join(line for line in text.split("\n") if not line.strip().startswith("//"))
    assert "struct P d_return" not in code and "struct P g(" not in code
    compile_c(text)


def test_an_array_of_structs_with_integers_kept_number_by_number_goes_through_its_members():
    """A helper that writes such an array, called in a loop: each iteration's structs are kept
    number by number through slot_get_Q / slot_set_Q, which read and write the members
    (golden/c/struct_array_mixed_stepped checks the numbers)."""
    source = ("typedef struct { int id; double x; } Q;\n"
              "static void step(Q *qs, int n) { for (int i = 0; i < n; i++) qs[i].x *= qs[i].x; }\n"
              "double f(Q *qs, int n, int k) {\n    for (int t = 0; t < k; t++) step(qs, n);\n"
              "    return qs[n - 1].x; }\n")
    text = pipeline.gradient_source(source, "t.c", "f", ["qs"], "c", CALLS_KEPT)
    assert "static double slot_get_Q(const Q *a, long k) {" in text and "        return a[k / 2].id;" in text
    assert "slot_set_Q(qs_before_step, e, " in text and "Q *qs_before_step = " in text


# -- a loop bounded by a member of a struct the function may write (golden/c/struct_member_bound_written) --

SYS = ("typedef struct { int n; double scale; double acc; } Sys;\n"
       "static void touch(Sys *s) { s->scale += 1.0; }\n"
       # (n is written somewhere in the file: a cell, which the loop may change; c_member_writes)
       "static void clamp(Sys *s) { if (s->n > 64) s->n = 64; }\n"
       "double f(Sys *s, const double *x) {\n    {before}\n"
       "    for (int i = 0; i < s->n; i++) {\n        s->acc += s->scale * x[i];\n        {body}\n    }\n"
       "    return s->acc;\n}\n")


@pytest.mark.parametrize("before, body, counted", [
    ("", "s->scale *= 0.9;", True),  # other members written: n is the same in every iteration
    ("", "if (x[i] > 2.0) s->n = i;", False),
    ("", "touch(s);", False),  # a callee given s may write s->n
    ("int *np = &s->n;", "if (x[i] > 2.0) *np = i;", False),  # a pointer to n, taken anywhere
    ("Sys *t = s;", "if (x[i] > 2.0) t->n = i;", False),  # a second pointer to the same struct
    ("", "Sys *t = s; touch(t);", False),  # ... declared in the loop, given to a callee
])
def test_a_loop_bounded_by_a_writable_structs_member_is_counted_where_nothing_in_it_writes_the_member(
        before, body, counted):
    source = SYS.replace("{before}", before).replace("{body}", body)
    text = pipeline.gradient_source(source, "t.c", "f", ["x"], "c")
    assert ("for (long i = 0; i < s->n; i++)" in text) == counted, text
    assert ("while" in text) != counted, text


# An element of an array of structs whose members are all doubles, used as a struct value: passed
# to a helper that takes one by value, copied into a local, read through *p (found by a probe of
# physics code: each was refused).
_RUN_ELEMENTS = """#include <math.h>
typedef struct { double x, y, z; } vec3;

static double vdot(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

static vec3 vsub(vec3 a, vec3 b)
{
    vec3 r = {a.x - b.x, a.y - b.y, a.z - b.z};
    return r;
}

double energy(const vec3 *v, const vec3 *pos, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += 0.5 * vdot(v[i], v[i]);
        vec3 a = pos[i];
        const vec3 *p = &v[i];
        s += a.x * a.y * vdot(*p, *(pos + i));
        for (int j = i + 1; j < n; j++) {
            vec3 d = vsub(pos[i], pos[j]);
            s -= 1.0 / sqrt(vdot(d, d) + 0.1);
        }
    }
    return s;
}
"""


def _matches_finite_differences(source: str, func: str, wrt: list[str], shapes: dict, ints: dict, seed: int) -> None:
    """The C gradient of ``func`` against central differences of the compiled primal: arrays of
    ``shapes`` (name -> length), integers of ``ints`` (name -> value)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from cbuild import build
    from cprimal import CSignature
    from fd import ParamSpec, check_gradient

    text = pipeline.gradient_source(source, "t.c", func, wrt, "c", pipeline.Options())
    sig = CSignature.parse(source, func)
    specs = [ParamSpec(n, "array", (k,)) for n, k in shapes.items()] + [ParamSpec(n, "int", value=v)
                                                                         for n, v in ints.items()]
    check_gradient(sig.primal(build(source)), sig.gradient(build(text), wrt, []), specs, wrt, set(),
                   np.random.default_rng(seed), returns_float=True)


def test_an_element_of_an_array_of_structs_is_a_struct_value():
    _matches_finite_differences(_RUN_ELEMENTS, "energy", ["v", "pos"], {"v": 12, "pos": 12}, {"n": 4}, 4)


_UNSIGNED_CELL = """#include <stddef.h>
typedef struct { size_t n; double *data; } V;
static void fill(V *v, double a) {
    if (v->n > 4) v->n = 4;
    for (size_t i = 0; i < v->n; i++) v->data[i] = a * (double)i * v->data[i];
}
double f(double a)
{
    double buf[4] = {1.0, 2.0, 3.0, 4.0};
    V v = {4, buf};
    fill(&v, a);
    return buf[1] * buf[3] * (double)v.n;
}
"""


def test_an_unsigned_member_passed_in_a_cell_keeps_its_type():
    """probe t32: the cell of v.n was a long[1] passed for fill's size_t * (gcc: -Wpointer-sign)."""
    from cbuild import build

    text = pipeline.gradient_source(_UNSIGNED_CELL, "t.c", "f", ["a"], "c", pipeline.Options())
    assert "size_t v_n_cell[1]" in text
    import ctypes

    lib = build(text)  # -Wall -Wextra -Werror
    grad = lib.grad_f
    grad.argtypes = [ctypes.c_double, ctypes.POINTER(ctypes.c_double), ctypes.c_double]
    d_a = ctypes.c_double(0.0)
    grad(0.7, ctypes.byref(d_a), 1.0)
    # f(a) = (a * 1 * 2) * (a * 3 * 4) * 4 = 96 a^2: f'(0.7) = 134.4
    assert abs(d_a.value - 134.4) < 1e-9


# A local array of structs with pointer members, indexed by constants only (probe t05): one struct
# per element (c_struct_arrays), each the bundle of its members as a local struct is.
_LOCAL_LAYERS = """#include <math.h>
typedef struct { const double *W, *b; int in, out; } Layer;

static void apply(const Layer *L, const double *x, double *y, int last)
{
    for (int o = 0; o < L->out; o++) {
        double z = L->b[o];
        for (int i = 0; i < L->in; i++) z += L->W[o * L->in + i] * x[i];
        y[o] = last ? z : tanh(z);
    }
}

double net2(const double *W1, const double *b1, const double *W2, const double *b2, const double *x)
{
    Layer net[3] = {{W1, b1, 3, 4}, {W2, b2, 4, 2}};
    double h[4], y[2];
    apply(&net[0], x, h, 0);
    apply(&net[1], h, y, net[2].in == 0);
    return y[0] * y[0] + y[1] * y[1];
}
"""


@pytest.mark.parametrize("spelled", ["literals", "defines"])
def test_a_local_array_of_structs_indexed_by_constants_is_a_struct_per_element(spelled):
    source = _LOCAL_LAYERS if spelled == "literals" else _LOCAL_LAYERS.replace(
        "#include <math.h>\n", "#include <math.h>\n#define NL 3\n").replace("net[3]", "net[NL]").replace(
        "net[2].in", "net[NL - 1].in")
    _matches_finite_differences(source, "net2", ["W1", "b1", "W2", "b2"],
                                {"W1": 12, "b1": 4, "W2": 8, "b2": 2, "x": 3}, {}, 5)


def test_a_local_array_of_structs_indexed_by_a_variable_stays_refused():
    source = _LOCAL_LAYERS.replace("apply(&net[1], h, y, net[2].in == 0);",
                                   "for (int l = 1; l < 2; l++) apply(&net[l], h, y, 1);")
    with pytest.raises(DiagnosticError, match="local arrays of Layer are not supported yet"):
        pipeline.gradient_source(source, "t.c", "net2", ["W1"], "c", pipeline.Options())


# -- sizeof of struct memory -----------------------------------------------------------------------

_SIZEOF = """#include <stdlib.h>
typedef struct { double x, v; } particle;
typedef double vec3[3];
double f(int n, const double *a, const double P[2][3])
{
    particle ps[3];
    double A[4][5];
    vec3 w;
    particle *p = malloc(sizeof *p);
    double *q = malloc(sizeof *q);
    ps[0].x = A[0][0] = w[0] = p->x = q[0] = a[0];
    double s = ps[0].x + A[0][0] + w[0] + p->x + q[0] + P[0][0];
    free(p);
    free(q);
    return s + (double)(sizeof ps + sizeof p[0] + sizeof(*p) + sizeof A + sizeof A[0] + sizeof *A + sizeof A[1][2]
                        + sizeof w + sizeof(vec3) + sizeof *P + sizeof P[0][0] + sizeof(double) + sizeof n
                        + sizeof q[0] + sizeof(particle));
}
"""


def test_sizeof_is_what_gcc_says():
    """A struct's size wherever the memory holds structs (``sizeof *p``, ``sizeof p[0]``, a local
    array of them), a row's where a subscript of a 2-D array reaches one, an array typedef's:
    ``sizeof *p`` of a ``particle *`` was a double's 8, and ``memcpy(p, a, n * sizeof *p)`` copied
    half the particles (golden c/sizeof_struct_memory checks that gradient)."""
    from s2sad.ssa.interp import Interpreter

    module = pipeline.parse_source(_SIZEOF, "t.c", "f")
    got = Interpreter(module).call("f", 1, np.zeros(1), np.zeros((2, 3)))
    # 48 + 16 + 16 + 160 + 40 + 40 + 8 + 24 + 24 + 24 + 8 + 8 + 4 + 8 + 16, as gcc computes it
    assert got == 444.0
    if have_gcc():
        import ctypes

        f = ctypes.CDLL(str(compile_c(_SIZEOF))).f
        f.restype = ctypes.c_double
        f.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
        a, P = np.zeros(1), np.zeros((2, 3))
        assert f(1, a.ctypes.data, P.ctypes.data) == got


@pytest.mark.parametrize("expr", ["sizeof p", "sizeof *R", "sizeof *M"])
def test_sizeof_s2sad_cannot_know_is_located(expr):
    """A pointer's own size, a row of rows that lie anywhere, a struct of mixed members: refused."""
    src = ("typedef struct { int k; double w; } Mixed;\n"
           f"double f(const double *p, double **R, const Mixed *M) {{ return p[0] + R[0][0] + M->w + {expr}; }}\n")
    with pytest.raises(DiagnosticError) as info:
        pipeline.parse_source(src, "t.c", "f")
    assert any("sizeof" in d.message for d in info.value.diagnostics), info.value.diagnostics


def test_a_compound_literal_some_paths_skip_stays_refused():
    """A compound literal under ``?:`` (or ``&&``, ``||``) is made only on some paths: naming it
    before its statement would make it on all of them, so it stays refused, located (golden
    c/compound_literals has those made whenever their statement runs)."""
    src = ("typedef struct { double a, b; } P;\nstatic double g(P p, double x) { return p.a * x + p.b; }\n"
           "double f(const double *x, int n) { return n > 1 ? g((P){.a = x[1], .b = 1.0}, x[0]) : x[0]; }\n")
    with pytest.raises(DiagnosticError) as info:
        pipeline.parse_source(src, "t.c", "f")
    assert all(d.loc is not None and d.loc.line == 3 for d in info.value.diagnostics), info.value.diagnostics


# A struct passed twice to a function that only reads it (dot3(&d, &d) of const pointers): each
# argument a copy of the struct, which holds the same numbers (it was refused as if the callee
# could write through one and read through the other; it still is where it can).
READ_TWICE = """
#include <math.h>

typedef struct { double x, y, z; } vec3;

static double dot3(const vec3 *a, const vec3 *b) { return a->x * b->x + a->y * b->y + a->z * b->z; }

double lj(int n, const double *p, double sigma)
{
    double e = 0.0;
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
            vec3 d = { p[3 * i] - p[3 * j], p[3 * i + 1] - p[3 * j + 1], p[3 * i + 2] - p[3 * j + 2] };
            double s6 = pow(sigma * sigma / dot3(&d, &d), 3);
            e += 4.0 * (s6 * s6 - s6);
        }
    return e;
}
"""


@pytest.mark.parametrize("target", ["c", "py"])
def test_a_struct_a_callee_only_reads_may_be_passed_twice(tmp_path, capsys, target):
    check_command(tmp_path, capsys, READ_TWICE, "lj", "p,sigma", "n=4,p=12", target, "lj.c", ("--range", "0.5,2"))
    written = READ_TWICE.replace("static double dot3(const vec3 *a", "static double dot3(vec3 *a")
    err = _error(written, "lj", "p")
    assert "'dot3' is passed '&d' and, here, more of that vec3" in str(err), str(err)


CONST_MEMBER = """#include <math.h>
typedef struct { int n; double *v; const double *m; } Particles;

double energy(const Particles *p, double k)
{
    double e = 0.0;
    for (int i = 0; i < p->n; i++)
        e += 0.5 * p->m[i] * p->v[i] * p->v[i] - k * cos(p->m[i] * p->v[i]);
    return e;
}
"""

CONST_MEMBER_DRIVER = r"""#include <stdio.h>
#include <math.h>
typedef struct { int n; double *v; const double *m; } Particles;
double energy(const Particles *p, double k);
void grad_energy(const Particles *p, Particles *d_p, double k, double *d_k, double d_return);
int main(void) {
    double v[3] = {0.3, -0.7, 1.1}, m[3] = {1.5, 0.8, 2.0}, dv[3] = {0}, dm[3] = {0}, dk = 0.0, worst = 0.0;
    Particles p = {3, v, m}, dp = {3, dv, dm};
    grad_energy(&p, &dp, 1.3, &dk, 1.0);
    for (int i = 0; i < 6; i++) {
        double *x = i < 3 ? &v[i] : &m[i - 3], ad = i < 3 ? dv[i] : dm[i - 3], x0 = *x, h = 1e-6;
        *x = x0 + h; double up = energy(&p, 1.3); *x = x0 - h; double down = energy(&p, 1.3); *x = x0;
        worst = fmax(worst, fabs(ad - (up - down) / (2 * h)));
    }
    worst = fmax(worst, fabs(dk - (energy(&p, 1.3 + 1e-6) - energy(&p, 1.3 - 1e-6)) / 2e-6));
    printf("%.3e\n", worst);
    return 0;
}
"""


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
def test_a_member_declared_const_is_written_in_the_shadow_through_a_cast(tmp_path):
    # Probe round 10: d_p->m[i] += ... through the struct's const double *m did not compile.
    text = pipeline.gradient_source(CONST_MEMBER, "t.c", "energy", ["p", "k"], "c")
    assert "((double *)d_p->m)[i] +=" in text, text
    compile_c(text)  # -Wall -Wextra -Werror
    assert _driver_error(tmp_path, CONST_MEMBER, text, CONST_MEMBER_DRIVER) < 1e-6


def _driver_error(tmp_path, primal: str, gradient: str, driver: str) -> float:
    """What ``driver`` (a C main calling the primal and its gradient, printing the largest
    difference from central differences) prints, built with the primal and the gradient."""
    import subprocess
    (tmp_path / "primal.c").write_text(primal)
    (tmp_path / "grad.c").write_text(gradient)
    (tmp_path / "main.c").write_text(driver)
    subprocess.run(["gcc", "-std=c99", "-O1", "-o", str(tmp_path / "run"), str(tmp_path / "main.c"),
                    str(tmp_path / "primal.c"), str(tmp_path / "grad.c"), "-lm"], check=True)
    return float(subprocess.run([str(tmp_path / "run")], capture_output=True, text=True, check=True).stdout)


# A helper writing the arrays of a struct passed by a pointer to non-const, in loops its size member
# bounds: the member, which nothing in the file writes, is a value (c_member_writes), so the arrays
# have extents (probe round 10: "cannot tell the size of array 'p_x'", with a hint to declare
# double p_x[n], which no one can write of a member).
UNWRITTEN_SIZE = """#include <math.h>
typedef struct { int n; double *x, *v; } State;

static void drift(State *s, double dt) { for (int i = 0; i < s->n; i++) s->x[i] += dt * s->v[i]; }

static void kick(State *s, double k, double dt)
{
    for (int i = 0; i < s->n; i++) s->v[i] -= dt * k * sin(s->x[i]);
}

double pendulums(State *s, double k, double dt, int steps)
{
    for (int t = 0; t < steps; t++) {
        kick(s, k, 0.5 * dt);
        drift(s, dt);
        kick(s, k, 0.5 * dt);
    }
    double e = 0.0;
    for (int i = 0; i < s->n; i++) e += 0.5 * s->v[i] * s->v[i] - k * cos(s->x[i]);
    return e;
}
"""

UNWRITTEN_SIZE_DRIVER = r"""#include <stdio.h>
#include <string.h>
#include <math.h>
typedef struct { int n; double *x, *v; } State;
double pendulums(State *s, double k, double dt, int steps);
void grad_pendulums(State *s, State *d_s, double k, double *d_k, double dt, double *d_dt, int steps,
                    double d_return);
static const double x0[3] = {0.3, -0.4, 0.7}, v0[3] = {0.1, 0.2, -0.3};
static double run_dt(const double *xs, const double *vs, double k, double dt) {
    double x[3], v[3];
    memcpy(x, xs, sizeof x); memcpy(v, vs, sizeof v);
    State s = {3, x, v};
    return pendulums(&s, k, dt, 5);
}
static double run(const double *xs, const double *vs, double k) { return run_dt(xs, vs, k, 0.1); }
int main(void) {
    double x[3], v[3], dx[3] = {0}, dv[3] = {0}, dk = 0.0, ddt = 0.0, worst = 0.0, h = 1e-6;
    memcpy(x, x0, sizeof x); memcpy(v, v0, sizeof v);
    State s = {3, x, v}, ds = {3, dx, dv};
    grad_pendulums(&s, &ds, 1.3, &dk, 0.1, &ddt, 5, 1.0);
    for (int i = 0; i < 6; i++) {
        double xp[3], vp[3], xm[3], vm[3];
        memcpy(xp, x0, sizeof xp); memcpy(vp, v0, sizeof vp); memcpy(xm, x0, sizeof xm); memcpy(vm, v0, sizeof vm);
        if (i < 3) { xp[i] += h; xm[i] -= h; } else { vp[i - 3] += h; vm[i - 3] -= h; }
        double fd = (run(xp, vp, 1.3) - run(xm, vm, 1.3)) / (2 * h);
        worst = fmax(worst, fabs((i < 3 ? dx[i] : dv[i - 3]) - fd));
    }
    worst = fmax(worst, fabs(dk - (run(x0, v0, 1.3 + h) - run(x0, v0, 1.3 - h)) / (2 * h)));
    printf("%.3e\n", worst);
    return 0;
}
"""


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
def test_a_size_member_nothing_writes_is_a_value_behind_a_pointer_to_non_const(tmp_path):
    text = pipeline.gradient_source(UNWRITTEN_SIZE, "t.c", "pendulums", ["s", "k", "dt"], "c")
    assert "Array sizes: s->x, d_s->x, s->v, d_s->v: [s->n]" in " ".join(
        line.strip("/ ") for line in text.splitlines()), text
    compile_c(text)
    assert _driver_error(tmp_path, UNWRITTEN_SIZE, text, UNWRITTEN_SIZE_DRIVER) < 1e-6
    # Written anywhere in the file (here by a function nothing calls), the member is a cell again.
    clamped = UNWRITTEN_SIZE + "void clamp(State *s) { if (s->n > 8) s->n = 8; }\n"
    with pytest.raises(DiagnosticError, match="cannot tell the size of array"):
        pipeline.gradient_source(clamped, "t.c", "pendulums", ["s", "k"], "c")


# Pointers to a struct inside another (an element of an array member): `Layer *L = &net->layers[l]`
# read and written through, and `&net->layers[l]` passed to a helper that takes a Layer *. Both
# were refused ("the address of a struct member that is a struct ... is not supported"); Layer
# mixes an int with its numbers, so C's layout is not the run of numbers s2sad holds.
NET_TYPES = """#include <math.h>
typedef struct { int id; double w[3]; double b; double out; } Layer;
typedef struct { int depth; Layer layers[4]; double scale; } Net;
"""

NET_THROUGH_POINTER = NET_TYPES + """
double forward(Net *net, double x) {
    double h = x;
    for (int l = 0; l < net->depth; l++) {
        Layer *L = &net->layers[l];
        h = tanh(L->w[0] * h + L->w[1] * h * h + (*L).w[2] + L->b);
        L->out = h * net->scale;
    }
    const Layer *last = &net->layers[net->depth - 1];
    return last->out + net->layers[0].out * h;
}
"""

NET_THROUGH_HELPER = NET_TYPES + """
static double layer(Layer *L, double h, double scale) {
    double z = tanh(L->w[0] * h + L->w[1] * h * h + L->w[2] + L->b);
    L->out = z * scale;
    return z;
}

double forward(Net *net, double x) {
    double h = x;
    for (int l = 0; l < net->depth - 1; l++) {
        h = layer(&net->layers[l], h, net->scale);
    }
    Layer *last = &net->layers[net->depth - 1];
    Layer *top = last;
    h = layer(top, h, net->scale);
    return last->out + net->layers[0].out * h;
}
"""

NET_DRIVER = NET_TYPES + r"""#include <stdio.h>
#include <string.h>
double forward(Net *net, double x);
void grad_forward(Net *net, Net *d_net, double x, double *d_x, double d_return);
static double *entry(Net *n, int k) {  /* the k-th number of the net: 5 per layer, then scale */
    Layer *L = &n->layers[k / 5];
    return k == 20 ? &n->scale : k % 5 < 3 ? &L->w[k % 5] : k % 5 == 3 ? &L->b : &L->out;
}
int main(void) {
    Net net0, net, d_net;
    memset(&net0, 0, sizeof net0);
    net0.depth = 4;
    for (int l = 0; l < 4; l++) net0.layers[l].id = 7 * l;
    for (int k = 0; k < 21; k++) *entry(&net0, k) = 0.3 * sin(1.7 * k + 0.4);
    double x = 0.6, d_x = 0.0, h = 1e-6, worst = 0.0;
    net = net0;
    memset(&d_net, 0, sizeof d_net);
    grad_forward(&net, &d_net, x, &d_x, 1.0);
    for (int k = 0; k < 21; k++) {
        Net p = net0, m = net0;
        *entry(&p, k) += h; *entry(&m, k) -= h;
        worst = fmax(worst, fabs(*entry(&d_net, k) - (forward(&p, x) - forward(&m, x)) / (2 * h)));
    }
    Net p = net0, m = net0, q = net0;
    worst = fmax(worst, fabs(d_x - (forward(&p, x + h) - forward(&m, x - h)) / (2 * h)));
    forward(&q, x);  /* the gradient leaves the net as the primal does */
    for (int k = 0; k < 21; k++) worst = fmax(worst, fabs(*entry(&net, k) - *entry(&q, k)));
    for (int l = 0; l < 4; l++) worst = fmax(worst, fabs((double)(net.layers[l].id - 7 * l)));
    printf("%.3e\n", worst);
    return 0;
}
"""


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
@pytest.mark.parametrize("source", [NET_THROUGH_POINTER, NET_THROUGH_HELPER], ids=["pointer", "helper"])
def test_a_pointer_to_a_struct_inside_another_reads_and_writes_its_members(tmp_path, source):
    text = pipeline.gradient_source(source, "t.c", "forward", ["net", "x"], "c")
    assert "->layers[l].w[0]" in text or "Layer *L = &net->layers[l];" in text, text
    compile_c(text)  # -Wall -Wextra -Werror: the pointers are Layer *, as in the source
    assert _driver_error(tmp_path, source, text, NET_DRIVER) < 1e-6


@pytest.mark.parametrize("body, needle", [
    ("double f(Net *net) { const Layer *L = &net->layers[1]; if (L != 0) return L->b; return 0.0; }\n", "L != 0"),
    ("double f(Net *net) { Layer *L = &net->layers[1]; L++; return L->b; }\n", "L++"),
])
def test_a_pointer_to_a_struct_inside_another_used_as_a_value_is_located(body, needle):
    source = NET_TYPES + body
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(source, "t.c", "f", ["net"], "c")
    (d,) = info.value.diagnostics
    assert "'L' points at the struct net->layers[1]" in d.message and d.hint
    assert d.loc.line == source.split("\n").index(next(s for s in source.split("\n") if needle in s)) + 1


# &ps[k++].x passed to a helper: asking whether it names a struct inside a member lowered the index
# once more, stepping k twice (check: MISMATCH, relative error 0.6), before it was asked without
# lowering anything of the caller's.
STEPPED_MEMBER_ADDRESS = """typedef struct { double x, v; } P;

static void bump(double *q, double a) { *q = *q * a + 1.0; }

double f(P *ps, int n) {
    int k = 0;
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        bump(&ps[k++].x, 2.0);
        s += ps[i].x * ps[i].v;
    }
    return s + (double)k;
}
"""


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
def test_a_member_address_with_a_step_in_its_index_steps_once(tmp_path, capsys):
    check_command(tmp_path, capsys, STEPPED_MEMBER_ADDRESS, "f", "ps", "n=4,ps=8", "c", "t.c")
