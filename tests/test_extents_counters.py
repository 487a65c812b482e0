"""Extents from loops C writes with a step that is not a constant, and from pointers they rebind
(issue 17, item 4: ADBench's LSTM as written).

``for (i = 0; i <= 2 * l * b - 1; i += 2 * b)`` is a ``while`` in the IR; its counter's last
value is ``2 * l * b - 2 * b`` where the span is a whole number of steps, and unknown (as an
attained bound) where it is not. A pointer rebound in the loop is a selector and an offset: the
offsets it holds into one array are those carried beside that array's selector. The numerics
of the whole shape are golden/c/pointer_rebound_strided (run under the sanitizers).
"""

from __future__ import annotations

from s2sad.analysis.extents import Affine, Sizes
from s2sad.pipeline import parse_source


def _extents(source: str, func: str) -> dict[str, list]:
    module = parse_source(source, "t.c", func)
    fn = module.functions[func]
    names = [p.name_hint for p in fn.params]
    ints = {i: n for i, n in enumerate(names)}

    def text(a):
        if a is None:
            return None
        parts = [f"{c}*{'*'.join(ints[i] for i in k)}" for k, c in a.terms]
        return " + ".join(parts + ([str(a.const)] if a.const or not parts else []))

    return {n: [text(a) for a in e] for n, e in zip(names, Sizes(module).extents(fn)) if e is not None}


def test_exact_division_of_forms():
    layers, b = Affine.of_param(0), Affine.of_param(1)
    assert layers.times(b).scale(2).divided(b.scale(2)) == layers
    assert layers.times(b).scale(6).divided(Affine.of_const(3)) == layers.times(b).scale(2)
    assert layers.times(b).scale(3).divided(b.scale(2)) is None  # 3 is not a multiple of 2
    assert layers.scale(2).divided(b) is None  # b does not divide layers
    assert layers.times(b).plus(1).divided(b) is None  # nor the constant


STRIDED = """
void f(int l, int b, double *s, int k)
{
    for (int i = 0; i <= 2 * l * b - 1; i += 2 * b) {
        s[i] = 1.0;
        s[i + b] = 2.0;
    }
}
"""


def test_a_counter_stepping_by_a_size_reaches_the_last_whole_step():
    # i's last value is 2 * l * b - 2 * b, so s[i + b] reaches 2 * l * b - b.
    assert _extents(STRIDED, "f")["s"] == ["2*l*b + -1*b + 1"]


def test_a_counter_that_may_stop_short_gives_only_an_upper_bound():
    # i < 2 * l * b + 1 by 2 * b: below 2 * l * b + 1 is all that is known: s[i + b] within 2 * l * b + b + 1.
    source = STRIDED.replace("<= 2 * l * b - 1", "< 2 * l * b + 1")
    assert _extents(source, "f")["s"] == ["2*l*b + 1*b + 1"]


def test_a_loop_with_a_break_is_no_counter():
    source = STRIDED.replace("s[i + b] = 2.0;", "s[i + b] = 2.0; if (s[0] > k) break;")
    assert _extents(source, "f")["s"] == [None]


EXITS = """
double f(const double *x, int n, double tol)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += x[i] * x[i];
        if (s > tol) BODY;
    }
    return s;
}
"""


def test_a_loop_that_may_leave_early_still_bounds_its_counter():
    """C's early exits (break, return: ``while (!returned && i < n)``, the counter stepped only
    where none was taken) and a data-dependent second test: i stays below n, x is n long (the
    gradient's "Array sizes"; check asked for --sizes x)."""
    for exit in ("break", "return s * 2.0"):
        assert _extents(EXITS.replace("BODY", exit), "f")["x"] == ["1*n"], exit
    source = "double f(const double *x, int n) { double s = 0; int i = 0;\n" \
             "while (i < n && s < 2.0) { s += x[i] * x[i]; i++; } return s; }"
    assert _extents(source, "f")["x"] == ["1*n"]


def test_a_counter_stepped_by_different_amounts_is_no_counter():
    source = "double f(const double *x, int n) { double s = 0; int i = 0;\n" \
             "while (i < n && s < 2.0) { s += x[i]; if (s > 1.0) i += 2; else i++; } return s; }"
    assert _extents(source, "f")["x"] == [None]


REBOUND = """
static void layer(int h, double *out, const double *in)
{
    for (int i = 0; i < h; i++)
        out[i] = out[i] + in[i];
}

double f(int l, int b, double *s, double *x2)
{
    const double *xp = x2;
    for (int i = 0; i < l * b; i += b) {
        layer(b, &s[i], xp);
        xp = &s[i];
    }
    double r = 0.0;
    for (int i = 0; i < b; i++)
        r += xp[i];
    return r;
}
"""


def test_offsets_of_a_rebound_pointer_follow_the_array_it_points_at():
    # xp is x2 (offset 0) or a row of s (offset i): x2 needs b elements, not l * b.
    assert _extents(REBOUND, "f") == {"s": ["1*l*b"], "x2": ["1*b"]}
