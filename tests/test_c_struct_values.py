"""Struct values: one whose member is an array of structs (``parse/c_struct_values.py``), and
values stored whole through a pointer (``*out = scale(a, 2.0)``, ``out[i] = v``).

``typedef struct { int n; Body b[8]; } System;`` has no bundle of members s2sad reads a local
value as (``c_records``), but it is a run of numbers (``c_structs``): ``System s;`` is held as
``System s[1]``, ``s.b[i].x`` as ``s[0].b[i].x``, ``&s`` as ``&s[0]``. A particle system stepped
by a helper, each gradient (C, Python, Numba; -O0 and -O2) against central differences of the
compiled primal (through ``s2sad check``); and what stays refused, located.
"""

from __future__ import annotations

import pytest

from cbuild import have_gcc
from source_gradients import CALLS_KEPT

from s2sad import cli, pipeline

pytestmark = pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")

SYSTEM = """\
#include <math.h>

typedef struct {
    double x, v, m;
} Body;

typedef struct {
    int n;
    Body b[8];
} System;

static void step(System *s, double dt)
{
    for (int i = 0; i < s->n; i++) {
        s->b[i].v -= dt * s->b[i].x / s->b[i].m;
        s->b[i].x += dt * s->b[i].v;
    }
}

double energy(const double *x0, const double *m, int n, int steps)
{
    System s;
    s.n = n;
    for (int i = 0; i < n; i++) {
        s.b[i].x = x0[i];
        s.b[i].v = 0.0;
        s.b[i].m = m[i];
    }
    for (int k = 0; k < steps; k++)
        step(&s, 0.01);
    double e = 0.0;
    for (int i = 0; i < n; i++)
        e += 0.5 * s.b[i].m * s.b[i].v * s.b[i].v + 0.5 * s.b[i].x * s.b[i].x;
    return e;
}
"""


@pytest.mark.parametrize("level", ["-O0", "-O2"])
@pytest.mark.parametrize("target", ["c", "py", "numba"])
def test_a_value_with_an_array_of_structs_is_one_element_of_its_run(tmp_path, capsys, target, level):
    path = tmp_path / "system.c"
    path.write_text(SYSTEM)
    code = cli.main(["check", str(path), "--func", "energy", "--wrt", "x0,m", "--sizes", "x0=5,m=5,n=5,steps=7",
                     "--range", "0.5,1.5", "--target", target, level])
    out = capsys.readouterr()
    assert code == 0 and "all adjoints match central differences" in out.out, out.out + out.err


def test_the_output_declares_the_value_as_one_element(tmp_path, capsys):
    path = tmp_path / "system.c"
    path.write_text(SYSTEM)
    assert cli.main(["grad", str(path), "--func", "energy", "--wrt", "x0,m", "-o", str(tmp_path / "g.c")]) == 0
    assert "System s[1];" in (tmp_path / "g.c").read_text()
    # where step stays a call (at -O2 it is inlined into the loop), it is given the one element
    text = pipeline.gradient_source(SYSTEM, "system.c", "energy", ["x0", "m"], "c", CALLS_KEPT)
    assert "System s[1];" in text and "step(s, 0.01);" in text


def test_an_initialized_value_stays_refused_where_it_is_declared(tmp_path, capsys):
    path = tmp_path / "system.c"
    path.write_text(SYSTEM.replace("    System s;\n", "    System s = {0};\n"))
    assert cli.main(["grad", str(path), "--func", "energy", "--wrt", "x0,m"]) == 1
    err = capsys.readouterr().err
    assert "system.c:22:5: error: System is used as a value here, and the member 'b' of System is an array of " \
        "structs" in err and "^" in err


THROUGH_POINTERS = """\
typedef struct { double x, y; } Vec;
typedef struct { int id; double x, y; } P;

static Vec scale(Vec a, double s)
{
    Vec r;
    r.x = a.x * s;
    r.y = a.y * s;
    return r;
}

static void apply(Vec *out, Vec a) { *out = scale(a, 2.0); }
static void copy_to(Vec *out, Vec a) { Vec t = scale(a, 0.5); *out = t; }
static void each(Vec *out, const Vec *in, int n, double s) { for (int i = 0; i < n; i++) out[i] = scale(in[i], s); }

static P moved(P a, double s)
{
    P r;
    r.id = a.id;
    r.x = a.x + s * a.y;
    r.y = a.y * s;
    return r;
}

static void update(P *out, const P *in, double s) { P t = moved(*in, s); *out = t; }

double f(const double *p, int n)
{
    Vec vs[4], ws[4];
    double e = 0.0;
    for (int i = 0; i < n; i++) {
        Vec a = {p[2 * i], p[2 * i + 1]};
        Vec b, c;
        apply(&b, a);
        copy_to(&c, b);
        vs[i] = c;
        P q;
        q.id = i;
        q.x = p[2 * i];
        q.y = b.y;
        P r;
        update(&r, &q, 0.5);
        e += b.x * b.y + c.x * c.x + r.x * r.id;
    }
    each(ws, vs, n, 3.0);
    for (int i = 0; i < n; i++)
        e += ws[i].x * ws[i].y;
    return e;
}
"""


@pytest.mark.parametrize("target", ["c", "py", "numba"])
def test_a_struct_value_is_stored_whole_through_a_pointer(tmp_path, capsys, target):
    """``*out = scale(a, 2.0)``, ``*out = t``, ``out[i] = scale(in[i], s)`` into a run of structs of
    one type, and ``*out = t`` through a pointer to one struct of mixed members: member by member."""
    path = tmp_path / "vec.c"
    path.write_text(THROUGH_POINTERS)
    code = cli.main(["check", str(path), "--func", "f", "--wrt", "p", "--sizes", "p=8,n=4", "--target", target])
    out = capsys.readouterr()
    assert code == 0 and "all adjoints match central differences" in out.out, out.out + out.err


# A struct copied whole from one pointer's to another's (*b = *a, b[i] = a[j]): its numbers, as C
# copies a struct (probe round 9: 'a whole pv is used as a value').
POINTER_TO_POINTER = """typedef struct { double x, v; } pv;
static void kick(const pv *a, pv *b, double h) { *b = *a; b->v -= h * a->x; b->x += h * b->v; }
static void shift(pv *dst, const pv *src, int n)
{
    for (int i = 0; i + 1 < n; i++) dst[i + 1] = src[i];
    dst[0] = src[n - 1];
}
double f(double x0, double v0, const double *w, int n)
{
    pv s = {x0, v0}, t;
    for (int k = 0; k < n; k++) { kick(&s, &t, 0.1); s = t; }
    pv a[4], c[4];
    for (int i = 0; i < 4; i++) { a[i].x = w[i] * s.x; a[i].v = w[i] + s.v; }
    shift(c, a, 4);
    double e = 0.0;
    for (int i = 0; i < 4; i++) e += c[i].x * w[i] + c[i].v * c[i].v;
    return s.x * s.x + s.v * s.v + e;
}
"""


@pytest.mark.parametrize("target", ["c", "py"])
def test_a_struct_copied_from_pointer_to_pointer_is_its_numbers(tmp_path, capsys, target):
    path = tmp_path / "pv.c"
    path.write_text(POINTER_TO_POINTER)
    code = cli.main(["check", str(path), "--func", "f", "--wrt", "x0,v0,w", "--sizes", "w=4,n=5", "--target", target])
    out = capsys.readouterr()
    assert code == 0 and "all adjoints match central differences" in out.out, out.out + out.err
