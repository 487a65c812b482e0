"""Functions that give a local struct's pointer members their memory (``parse/c_initializers.py``).

``state_init(&s, n)`` (``s->n = n; s->u = malloc(...); s->work = calloc(...)``) is read as its
statements where it is called, so the caller's struct has the memory the function gave it
(``state_free(&s)``, which allocates nothing, stays a call: the gradient frees its own copies):
a relaxation stepped by a helper through ``&s``, each gradient (C, Python, Numba) against
central differences of the compiled primal.
"""

from __future__ import annotations

import pytest

from cbuild import have_gcc

from s2sad import cli

pytestmark = pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")

STATE = """\
#include <stdlib.h>

typedef struct {
    int n;
    double *u;
    double *work;
} State;

static void state_init(State *s, int n)
{
    s->n = n;
    s->u = malloc(n * sizeof(double));
    s->work = calloc(n, sizeof(double));
}

static void state_free(State *s)
{
    free(s->u);
    free(s->work);
}

static void relax(State *s, double w)
{
    for (int i = 1; i < s->n - 1; i++)
        s->work[i] = s->u[i] + w * (s->u[i - 1] - 2.0 * s->u[i] + s->u[i + 1]);
    for (int i = 1; i < s->n - 1; i++)
        s->u[i] = s->work[i];
}

double f(const double *x, int n, int steps)
{
    State s;
    state_init(&s, n);
    for (int i = 0; i < n; i++)
        s.u[i] = x[i];
    for (int k = 0; k < steps; k++)
        relax(&s, 0.25);
    double e = 0.0;
    for (int i = 0; i < n; i++)
        e += s.u[i] * s.u[i] * (i + 1);
    state_free(&s);
    return e;
}
"""


@pytest.mark.parametrize("target", ["c", "py", "numba"])
def test_an_initializer_and_its_free_are_read_where_they_are_called(tmp_path, capsys, target):
    path = tmp_path / "state.c"
    path.write_text(STATE)
    code = cli.main(["check", str(path), "--func", "f", "--wrt", "x", "--sizes", "x=7,n=7,steps=3", "--target",
                     target])
    out = capsys.readouterr()
    assert code == 0 and "all adjoints match central differences" in out.out, out.out + out.err


def test_the_output_allocates_the_members_in_the_caller(tmp_path, capsys):
    path = tmp_path / "state.c"
    path.write_text(STATE)
    assert cli.main(["grad", str(path), "--func", "f", "--wrt", "x", "-o", str(tmp_path / "g.c")]) == 0
    text = (tmp_path / "g.c").read_text()
    assert "state_init" not in text and "malloc(" in text
