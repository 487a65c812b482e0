"""What the reverse sweep keeps of an array a call overwrites inside a loop, and struct members
passed to calls.

A helper that writes an array it is passed (``axpy3(a, x, &y[3 * i])``) is re-run by its
gradient from a copy of what it touched, taken before the call and kept on a stack in a loop
(``adjoint/forward.py``, ``adjoint/tape.py``). The copy holds what the callee may touch, as its
extents tell (``analysis/extents.py``: ``y[k]`` for ``k < 3``: three numbers), never the rest of
the array from the view on, which made a loop's stack quadratic in its trip count. Where the
callee's extents do not tell (an index read from memory), the copy is the array's rest, as
before. Both are checked against central differences here, at every optimization level.
"""

from __future__ import annotations

import numpy as np
import pytest
from source_gradients import CALLS_KEPT
from fd import central_differences, check_source_function

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError

AXPY = """
static void axpy3(double a, const double *x, double *y)
{
    for (int k = 0; k < 3; k++)
        y[k] += a * x[k] * y[k];
}

double f(double *y, const double *x, int n, double a)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        axpy3(a, x, &y[3 * i]);
        s += y[3 * i] * y[3 * i + 2];
    }
    return s;
}
"""

GATHER = """
static void bump(const int *idx, double *y)
{
    y[idx[0]] = y[idx[0]] * y[idx[0]] + 1.0;
}

double f(double *y, const int *idx, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        bump(idx, &y[i]);
        s += y[i] * y[i];
    }
    return s;
}
"""


def central_gradient(J, theta: np.ndarray) -> np.ndarray:
    return np.array(central_differences(lambda *t: J(np.array(t)), list(theta)))


def _run(text: str, name: str) -> object:
    scope: dict = {}
    exec(compile(text, f"<{name}>", "exec"), scope)
    return scope["grad_f"]


def _primal_axpy(y, x, n, a):
    y = y.copy()
    s = 0.0
    for i in range(n):
        for k in range(3):
            y[3 * i + k] += a * x[k] * y[3 * i + k]
        s += y[3 * i] * y[3 * i + 2]
    return s


@pytest.mark.parametrize("level", [0, 1, 2])
def test_a_call_in_a_loop_keeps_only_what_the_callee_touches(level):
    options = CALLS_KEPT if level == 2 else pipeline.Options(level=level)  # -O2 would inline axpy
    text = pipeline.gradient_source(AXPY, "t.c", "f", ["y", "x", "a"], "py", options)
    assert "min(" in text  # the stack takes min(rest of y, 3) numbers per call, not the rest of y
    grad = _run(text, "axpy")
    rng = np.random.default_rng(0)
    n = 6
    y, x, a = rng.uniform(0.5, 1.5, 3 * n), rng.uniform(0.5, 1.5, 3), 0.3
    d_y, d_x = np.zeros_like(y), np.zeros_like(x)
    y_in = y.copy()
    d_a = grad(y, d_y, x, d_x, n, a, 1.0)
    theta = np.concatenate([y_in, x, [a]])

    def J(t):
        return _primal_axpy(t[: 3 * n], t[3 * n : 3 * n + 3], n, t[-1])

    want = central_gradient(J, theta)
    got = np.concatenate([d_y, d_x, [d_a]])
    assert np.allclose(got, want, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("level", [0, 2])
def test_a_callee_reaching_through_an_index_array_copies_the_rest_as_before(level):
    text = pipeline.gradient_source(GATHER, "t.c", "f", ["y"], "py", pipeline.Options(level=level))
    grad = _run(text, "gather")
    n = 5
    idx = np.array([2], dtype=np.int32)
    rng = np.random.default_rng(1)
    y = rng.uniform(0.1, 0.5, n + 2)
    y_in = y.copy()
    d_y = np.zeros_like(y)
    grad(y, d_y, idx, n, 1.0)

    def J(t):
        t = t.copy()
        s = 0.0
        for i in range(n):
            t[i + 2] = t[i + 2] * t[i + 2] + 1.0
            s += t[i] * t[i]
        return s

    assert np.allclose(d_y, central_gradient(J, y_in), rtol=1e-6, atol=1e-8)


HEAD = """
static void head2(double *y)
{
    y[0] = y[0] * y[1];
    y[1] = y[1] + 1.0;
}

double f(double *y, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        head2(y);
        s += y[0] + y[n - 1] * y[i];
    }
    return s;
}
"""


@pytest.mark.parametrize("level", [0, 2])
def test_a_whole_array_copy_shorter_than_the_array_is_popped_as_pushed(level):
    """head2 touches y[0:2] of a longer y: each iteration's stack holds 2 numbers, and the
    reverse sweep pops as many as that iteration pushed (not the array's length)."""
    text = pipeline.gradient_source(HEAD, "t.c", "f", ["y"], "py", pipeline.Options(level=level))
    grad = _run(text, "head")
    n = 5
    y = np.random.default_rng(2).uniform(0.2, 0.6, n)
    y_in = y.copy()
    d_y = np.zeros_like(y)
    grad(y, d_y, n, 1.0)

    def J(t):
        t = t.copy()
        s = 0.0
        for i in range(n):
            t[0] = t[0] * t[1]
            t[1] = t[1] + 1.0
            s += t[0] + t[n - 1] * t[i]
        return s

    assert np.allclose(d_y, central_gradient(J, y_in), rtol=1e-6, atol=1e-8)


MEMBERS = """
typedef struct { double x, y; } V2;
typedef struct { double pos[3]; V2 v; } Body;
static double first(const double *v) { return v[0]; }
"""


def test_the_address_of_a_struct_member_is_a_located_error_with_a_hint():
    source = MEMBERS + "double f(const Body *b) { return first(&b->v); }\n"
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(source, "t.c", "f", ["b"], "c")
    (d,) = info.value.diagnostics
    assert "a struct member that is a struct or a 2-D array" in d.message
    assert d.loc.line == source.split("\n").index("double f(const Body *b) { return first(&b->v); }") + 1
    assert "&bodies[i]" in d.hint


def test_an_array_member_passes_as_a_pointer_to_its_first_number():
    source = MEMBERS + "double f(const Body *b) { return first(b->pos) * first(&b->pos[1]) * first(&b->v.y); }\n"
    text = pipeline.gradient_source(source, "t.c", "f", ["b"], "c")
    for member in ("&b->pos[0]", "&b->pos[1]", "&b->v.y", "&d_b->pos[0]", "&d_b->pos[1]", "&d_b->v.y"):
        assert member in text


FILLS = """
static void project2(const double *p, double *out)
{
    out[0] = p[0] / p[2];
    out[1] = p[1] / p[2];
    out[0] = out[0] * (1.0 + out[0] * out[0]);
}

static void scale_all(int n, const double *v, double *out)
{
    for (int i = 0; i < n; i++)
        out[i] = 2.0 * v[i];
    for (int i = 0; i < n; i++)
        out[i] = out[i] * out[i];
}

static void reads_first(int n, double *out)
{
    for (int i = 0; i < n; i++)
        out[i] = out[i] + 1.0;
}

double f(const double *x, int n)
{
    double proj[2];
    double *tmp = malloc(n * sizeof(double));
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        project2(&x[3 * i], proj);
        scale_all(n, x, tmp);
        reads_first(n, tmp);
        s += proj[0] * proj[1] + tmp[i];
    }
    free(tmp);
    return s;
}
"""


def test_a_callee_that_writes_an_argument_before_reading_it_takes_a_new_buffer():
    """project2 and scale_all write their out arrays before reading them: no copy of what the
    caller's arrays held (proj is never set by the caller); reads_first reads its own first."""
    source = "#include <stdlib.h>\n" + FILLS
    text = pipeline.gradient_source(source, "t.c", "f", ["x"], "c", pipeline.Options(level=0))
    assert "proj_before_project2" not in text and "proj_for_project2" in text
    assert "tmp_before_scale_all" not in text and "tmp_for_scale_all" in text
    assert "tmp_before_reads_first" in text  # its entry values matter


def test_the_written_first_check_answers_no_when_unsure():
    from s2sad.analysis.extents import Sizes
    from s2sad.analysis.overwritten import overwritten_first
    from s2sad.pipeline import parse_source

    module = parse_source("#include <stdlib.h>\n" + FILLS, "t.c", "f")
    sizes = Sizes(module)
    fns = module.functions
    assert overwritten_first(module, fns["project2"], 1, sizes)
    assert not overwritten_first(module, fns["project2"], 0, sizes)  # only read
    assert not overwritten_first(module, fns["reads_first"], 1, sizes)


@pytest.mark.parametrize("level", [0, 2])
def test_new_buffers_for_arguments_written_first_give_the_gradient(level):
    source = "#include <stdlib.h>\n" + FILLS
    grad = _run(pipeline.gradient_source(source, "t.c", "f", ["x"], "py", pipeline.Options(level=level)), "fills")
    n = 4
    x = np.random.default_rng(3).uniform(0.5, 1.5, 3 * n)
    d_x = np.zeros_like(x)
    grad(x, d_x, n, 1.0)

    def J(t):
        s = 0.0
        tmp = np.zeros(n)
        for i in range(n):
            p = t[3 * i : 3 * i + 3]
            out0, out1 = p[0] / p[2], p[1] / p[2]
            out0 = out0 * (1.0 + out0 * out0)
            tmp = (2.0 * t[:n]) ** 2 + 1.0
            s += out0 * out1 + tmp[i]
        return s

    assert np.allclose(d_x, central_gradient(J, x.copy()), rtol=1e-6, atol=1e-8)


LOOKS_AHEAD = """
static void smooth(int n, const double *v, double *out)
{
    for (int i = 0; i < n; i++) {
        out[i] = v[i];
        out[i] = out[i] * out[(i + 1) % n];
    }
}

double f(const double *x, double *w, int n)
{
    double s = 0.0;
    for (int t = 0; t < 3; t++) {
        smooth(n, x, w);
        s += w[0] * x[t];
    }
    return s;
}
"""


@pytest.mark.parametrize("level", [0, 2])
def test_a_fill_loop_that_reads_ahead_keeps_the_copy(level):
    """smooth writes out[i], then reads out[i + 1], which still holds its value on entry (the
    loop fills every element smooth touches, yet reads ahead of itself): the
    array is copied before the call, not replaced by a new buffer."""
    text = pipeline.gradient_source(LOOKS_AHEAD, "t.c", "f", ["x", "w"], "py", pipeline.Options(level=level))
    if level == 0:
        assert "w_before_smooth" in text and "w_for_smooth" not in text
    grad = _run(text, "ahead")
    n = 5
    rng = np.random.default_rng(4)
    x, w = rng.uniform(0.5, 1.5, n), rng.uniform(0.5, 1.5, n)
    theta = np.concatenate([x, w])
    d_x, d_w = np.zeros(n), np.zeros(n)
    grad(x.copy(), d_x, w.copy(), d_w, n, 1.0)

    def J(t):
        xs, ws = t[:n], t[n:].copy()
        s = 0.0
        for k in range(3):
            for i in range(n):
                ws[i] = xs[i]
                ws[i] = ws[i] * ws[(i + 1) % n]
            s += ws[0] * xs[k]
        return s

    assert np.allclose(np.concatenate([d_x, d_w]), central_gradient(J, theta), rtol=1e-6, atol=1e-8)


SCRATCH = """
#include <stdlib.h>

static void qt(int d, const double *q, const double *v, double *out)
{
    for (int i = 0; i < d; i++)
        out[i] = q[i] * v[i];
    for (int i = 0; i < d; i++)
        for (int j = i + 1; j < d; j++)
            out[j] += q[j] * v[i];
}

static double sq(int d, const double *v)
{
    double s = 0.0;
    for (int i = 0; i < d; i++)
        s += v[i] * v[i];
    return s;
}

double f(const double *q, const double *x, int n, int d)
{
    double *tmp = malloc(d * sizeof(double));
    double s = 0.0;
    for (int k = 0; k < n; k++) {
        qt(d, q, &x[k * d], tmp);
        s += sq(d, tmp);
    }
    free(tmp);
    return s;
}
"""


def _grad_helper(text: str, name: str) -> str:
    start = text.index(f"static void {name}(")
    return text[start:text.index("\n}\n", start)]


@pytest.mark.parametrize("level", [0, 2])
def test_a_helper_gradient_leaves_a_scratch_argument_alone(level):
    """The reverse sweep passes grad_qt a buffer for ``out`` that nothing reads afterwards
    (``opt/dce.scratch_params``), and grad_qt's own reverse sweep reads nothing qt wrote there:
    so it no longer re-runs qt's forward sweep into it. The gradient is unchanged."""
    text = pipeline.gradient_source(SCRATCH, "t.c", "f", ["q", "x"], "c", pipeline.Options(level=level))
    helper = _grad_helper(text, "grad_qt")
    assert "(void)out;" in helper and "forward sweep" not in helper
    grad = _run(pipeline.gradient_source(SCRATCH, "t.c", "f", ["q", "x"], "py", pipeline.Options(level=level)),
                "scratch")
    n, d = 3, 4
    rng = np.random.default_rng(5)
    q, x = rng.uniform(0.5, 1.5, d), rng.uniform(-1.0, 1.0, n * d)
    d_q, d_x = np.zeros_like(q), np.zeros_like(x)
    grad(q, d_q, x, d_x, n, d, 1.0)

    def J(t):
        s = 0.0
        for k in range(n):
            v = t[d + k * d : d + (k + 1) * d]
            out = t[:d] * v
            for i in range(d):
                out[i + 1 :] += t[i + 1 : d] * v[i]
            s += float(out @ out)
        return s

    want = central_gradient(J, np.concatenate([q, x]))
    assert np.allclose(np.concatenate([d_q, d_x]), want, rtol=1e-6, atol=1e-8)


def test_an_array_tape_in_loops_of_known_trip_counts_is_allocated_once_at_its_size():
    """A copy per iteration (the array a helper reads, kept for its gradient) goes on a stack
    sized from the loops' trip counts and the array's extent, made before the loops: no capacity
    test and no growth in the loop (issue 19's first item)."""
    source = SCRATCH.replace("qt(d, q, &x[k * d], tmp);", "qt(d, q, &x[k * d], tmp);\n        tmp[0] *= q[0];")
    text = pipeline.gradient_source(source, "t.c", "f", ["q", "x"], "c", pipeline.Options(level=2))
    assert "tape_tmp" in text and "realloc" not in text and "_cap" not in text


RECURSIVE_WRITER = """
double f(const double *x, double *out, int n)
{
    double s = 0.0;
    if (n > 0) {
        double tmp[2];
        s = f(x, tmp, n - 1);
    }
    out[0] = x[0] * x[0] + s;
    return s + x[1];
}
"""


@pytest.mark.parametrize("level", [0, 2])
def test_the_function_the_user_calls_keeps_what_it_writes_though_its_own_calls_pass_scratch(level):
    """f calls itself with a scratch buffer for ``out``; the user's call passes ``out`` and reads
    it (and seeds ``d_out``): the scratch rule (``opt/dce.scratch_params``) never applies to the
    function the user calls. It once did, dropping ``out[0] = ...`` and d_out's part of d_x."""
    text = pipeline.gradient_source(RECURSIVE_WRITER, "t.c", "f", ["x", "out"], "py", pipeline.Options(level=level))
    grad = _run(text, "recursive")

    def f(x, out, n):  # the C primal, as Python
        s = 0.0
        if n > 0:
            s = f(x, np.zeros(2), n - 1)
        out[0] = x[0] * x[0] + s
        return s + x[1]

    x, out, d_x, d_out = np.array([0.7, 1.3]), np.zeros(2), np.zeros(2), np.array([0.5, 0.0])
    grad(x, d_x, out, d_out, 2, 1.0)
    want_out = np.zeros(2)
    f(x, want_out, 2)
    assert np.allclose(out, want_out)  # the primal's write, which the gradient makes too

    def J(t):  # d_return * f + d_out . (what f leaves in out)
        o = np.zeros(2)
        return f(t, o, 2) + 0.5 * o[0]

    assert np.allclose(d_x, central_gradient(J, x.copy()), rtol=1e-6, atol=1e-8)


# Fuzz seed 10930753, shrunk: the helper reads z[i] for i < n - 1 and, in a loop by 3, z[i3]
# for i3 < n; the copy of y taken before each call in the loop held n - 1 numbers (the strided
# loop's bound, an upper bound only, was left out of the cover), and the gradient's re-run of
# the helper read past it (IndexError in Python; Numba does not check).
STRIDED = """
static double peek(const double *z, int n)
{
    double h = 0.0;
    for (int i = 0; i < n - 1; i++)
        h += z[i];
    for (int i3 = 1; i3 < n; i3 += 3)
        h = h * 0.5 + sin(z[i3]);
    return h * z[2];
}

double f(double *y, int n)
{
    double s = 0.0;
    for (int k = 0; k < 3; k++) {
        s += peek(y, n) * y[k];
        y[k] = cos(s);
    }
    return s;
}
"""


def _primal_strided(y, n):
    y = y.copy()
    s = 0.0
    for k in range(3):
        h = sum(y[: n - 1])
        for i3 in range(1, n, 3):
            h = h * 0.5 + np.sin(y[i3])
        s += h * y[2] * y[k]
        y[k] = np.cos(s)
    return s


@pytest.mark.parametrize("level", [0, 2])
def test_a_copy_for_a_call_holds_what_a_strided_loop_of_the_callee_reads(level):
    text = pipeline.gradient_source("#include <math.h>\n" + STRIDED, "t.c", "f", ["y"], "py",
                                    pipeline.Options(level=level))
    grad = _run(text, "strided")
    n = 5  # i3 reaches 4 = n - 1, past the n - 1 numbers the plain loop reads
    y = np.random.default_rng(1).uniform(0.5, 1.5, n)
    d_y = np.zeros(n)
    grad(y.copy(), d_y, n, 1.0)
    want = central_gradient(lambda t: _primal_strided(t, n), y)
    assert np.allclose(d_y, want, rtol=1e-6, atol=1e-8)


# A helper that reads its array's own length (range(1, len(d)), beside d[0]): the copy a call in a
# loop takes for its gradient is all of the array. Sized from d[0] alone, one element, the
# re-run saw a one-element array (probe round 7: d_u [2, 0, 0, 0] where [2, 5, 2.8, 3.6]).
OWN_LENGTH = {
    "returns_a_number": '''
def total(d):
    s = d[0]
    for i in range(1, len(d)):
        s += d[i] * d[i]
    return s


def f(u):
    v = u.copy()
    acc = 0.0
    for _ in range(2):
        acc += total(v)
        v[1] *= 2.0
    return acc
''',
    "writes_an_argument": '''
def sq(d, out):
    out[0] = d[0]
    for i in range(1, len(d)):
        out[i] = d[i] * d[i]


def f(u):
    w = np.zeros(len(u))
    v = u.copy()
    for _ in range(2):
        sq(v, w)
        v = w * 0.5
    return np.sum(v)
''',
    "returns_an_array": '''
def smooth(d):
    out = np.zeros(len(d))
    out[0] = d[0]
    for i in range(1, len(d)):
        out[i] = out[i - 1] + d[i] * d[i]
    return out


def f(u):
    for _ in range(2):
        u = smooth(u)
    return np.sum(u)
''',
}


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("name", sorted(OWN_LENGTH))
def test_a_callee_reading_its_arrays_length_gets_a_copy_of_all_of_it(name, target):
    source = "import numpy as np\n" + OWN_LENGTH[name]
    check_source_function(source, "f", [np.array([0.3, 0.5, 0.7, 0.9])], ["u"], target)


# A C local array of constant size in a loop body, overwritten by a helper that stays a call:
# its copy before each call takes two numbers in every iteration, so its tape is sized before
# the loop (nobs * 2), not grown with realloc, and no length is taped per iteration.
ROTATE = """#include <math.h>

static void rotate(const double *r, double *v)
{
    double t[2];
    for (int k = 0; k < 2; k++)
        t[k] = cos(r[0]) * v[k] - sin(r[0]) * v[1 - k];
    for (int k = 0; k < 2; k++)
        v[k] = t[k];
}

double f(const double *x, const double *r, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        double v[2];
        v[0] = x[2 * i];
        v[1] = x[2 * i + 1];
        rotate(r, v);
        s += v[0] * v[1];
    }
    return s;
}
"""


def test_a_constant_sized_local_copied_before_a_call_in_a_loop_has_a_tape_sized_up_front(tmp_path, capsys):
    from s2sad import cli

    text = pipeline.gradient_source(ROTATE, "rot.c", "f", ["x", "r"], "c", CALLS_KEPT)
    assert "grad_rotate(" in text and "v_before_rotate" in text
    assert "realloc(" not in text and "_cap" not in text and "_len[" not in text, text
    path = tmp_path / "rot.c"
    path.write_text(ROTATE)
    code = cli.main(["check", str(path), "--func", "f", "--wrt", "x,r", "--sizes", "x=8,r=1,n=4",
                     "--passes", CALLS_KEPT.passes])
    out = capsys.readouterr()
    assert code == 0 and "all adjoints match central differences" in out.out, out.out + out.err
