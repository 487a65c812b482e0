"""The C a numerical code is written in: switch, the comma operator, tables, bit operations,
typedefs, restrict and unsigned lengths (issue 17, item 7).

Each construct's numerics are checked by its golden case (tests/test_golden_c.py:
switch_fallthrough, switch_jumps, comma_operator, const_tables, bitwise_ops,
typedef_restrict, typedef_float, float_counter, size_t_loops); this file checks what those
cannot show: the IR's meaning against the compiled C on many inputs (every switch value,
negative operands of bit operations), the shapes and signatures the output takes, inputs
that must not crash (a length of zero), and the located errors for what stays refused.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from cbuild import CFunction, Out, build, build_sanitized, have_gcc
from cprimal import CSignature
from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError
from s2sad.pipeline import parse_source
from s2sad.ssa.interp import Interpreter
from s2sad.ssa.printer import print_module
from s2sad.ssa.verifier import verify_module

needs_gcc = pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")


def _run_ir(source: str, func: str, *args):
    module = parse_source(source, "t.c", func)
    verify_module(module)
    return Interpreter(module).run(module.functions[func], list(args))[0]


def _diagnostics(source: str, func: str = "f") -> list[str]:
    with pytest.raises(DiagnosticError) as info:
        parse_source(source, "t.c", func)
    return [f"{d.loc.line}:{d.loc.col}: {d.message}" if d.loc else d.message for d in info.value.diagnostics]


def _rendered(source: str, func: str = "f") -> str:
    with pytest.raises(DiagnosticError) as info:
        parse_source(source, "t.c", func)
    return info.value.render()


def _gradient(source: str, func: str, wrt: list[str], target: str = "c") -> str:
    return pipeline.gradient_source(source, "t.c", func, wrt, target, pipeline.Options())


# -- switch ------------------------------------------------------------------------------------

_SWITCH = """
#define TWO 2
int f(int k, int n)
{
    int r = 0;
    for (int i = 0; i < n; i++) {
        switch (k + i) {
        case 0:
            r += 1;
            /* falls through */
        case 1:
        case TWO:
            r += 10;
            if (r > 40) {
                break;
            }
            r += 100;
            break;
        default:
            r += 1000;
            /* falls through */
        case 5:
            r += 10000;
            continue;
        case 6:
            return r + 7;
        case 7: {
            int t = r * 2;
            r = t;
        }
        }
        r += 3;
    }
    return r;
}
"""


@needs_gcc
def test_switch_means_what_c_means_for_every_value():
    """Fall-through, shared labels, a default before other cases, break in the middle of a
    case, continue and return inside cases: the IR agrees with gcc for every value."""
    c = CFunction(build(_SWITCH), "f", ["int", "int"], "int")
    for k in range(-2, 10):
        for n in range(0, 4):
            assert _run_ir(_SWITCH, "f", k, n) == c(k, n), (k, n)


def test_switch_is_an_if_chain_without_loops():
    module = parse_source("int f(int k) { int r = 0; switch (k) { case 1: r = 5; break; case 2: r = 6; "
                          "break; default: r = 7; } return r; }", "t.c", "f")
    names = [op.name for op in module.functions["f"].walk()]
    assert names.count("if") == 2 and "while" not in names and "for" not in names
    text = print_module(module)
    assert "eq(" in text


def test_switch_ending_a_function_in_returns_needs_no_final_return():
    src = "double f(double *x, int k) {\n    switch (k) {\n    case 0: return x[0];\n    default: return x[1];\n" \
          "    }\n}\n"
    assert _run_ir(src, "f", np.array([2.0, 3.0]), 0) == 2.0
    assert _run_ir(src, "f", np.array([2.0, 3.0]), 4) == 3.0


@pytest.mark.parametrize(
    "body, expected",
    [
        ("switch (n) { x[0] = 1; case 0: break; } return x[0];",
         "3:18: this statement comes before the first 'case' of the switch, so it never runs"),
        ("switch (n) { case 0: for (;;) { case 1: break; } } return x[0];",
         "3:37: a 'case' label inside a nested statement of the switch is not supported"),
        ("switch (n) { case 0: continue; } return x[0];", "3:26: 'continue' outside a loop"),
        ("switch (n) { case n: break; } return x[0];", "3:23: a case label must be an integer constant"),
        ("switch (x[0]) { case 0: break; } return x[0];",
         "3:13: the value of a switch must be an integer, not a double"),
    ],
)
def test_switch_problems_are_located(body, expected):
    src = "double f(double *x, int n) {\n    \n    " + body + "\n}\n"
    messages = _diagnostics(src)
    assert expected in messages, messages


def test_enumerators_are_constants_and_enum_types_ints():
    src = "typedef enum { A, B, C = 5, D } Mode;\nenum Side { L = -1, R = 1 };\n" \
          "int f(Mode m, enum Side s) { switch (m) { case B: return 10 * s; case D: return 20; default: return C; } }"
    assert [_run_ir(src, "f", m, -1) for m in (0, 1, 5, 6)] == [5, -10, 5, 20]
    ir = print_module(parse_source(src, "t.c", "f"))
    assert 'c_params = ["Mode", "enum Side"]' in ir
    assert '["Mode", "typedef enum { A, B, C = 5, D } Mode;"]' in ir and "enum Side { L = -1, R = 1 };" in ir
    # Inside a function (probe round 8): its enumerators are constants where no other name of the
    # file is theirs; where one is (a parameter B), the enum would shadow it, and stays refused.
    local = "double f(double *x, int n) {\n    enum { NI = 4, NH = NI + 1 };\n    double h[NH];\n" \
            "    for (int i = 0; i < NH; i++) h[i] = x[i] * NI;\n    return h[0] + h[4] + n;\n}\n"
    assert _run_ir(local, "f", np.arange(5.0), 0) == 0 + 4 * 4
    messages = _diagnostics("double f(double *x, int B) {\n    enum { A, B };\n    return x[0];\n}\n")
    assert "2:5: an enum defined inside a function is not supported" in messages, messages


# -- goto and labels -------------------------------------------------------------------------


def test_goto_and_labels_are_located_errors_with_a_caret_and_a_hint():
    src = "double f(double *x, int n) {\n    double s = x[0];\n    if (n > 2) goto done;\n    s = x[1];\n" \
          "done:\n    return s;\n}\n"
    text = _rendered(src)
    assert "t.c:3:16: error: goto is not supported\n        if (n > 2) goto done;\n" \
           "                   ^~~~~~~~~~" in text
    assert "t.c:5:1: error: labels are not supported\n    done:\n    ^~~~~" in text
    assert text.count("hint: use break, continue or a flag") == 2


def test_a_loop_made_of_gotos_is_refused_for_its_gotos_alone():
    # (its end looked reachable without a return: a message about a path the gotos make up)
    src = "double f(const double *x, int n) {\n    double s = 0;\n    int i = 0;\nloop:\n" \
          "    if (i >= n) goto done;\n    s += x[i];\n    i++;\n    goto loop;\ndone:\n    return s;\n}\n"
    text = _rendered(src)
    assert "labels are not supported" in text and "goto is not supported" in text, text
    assert "can reach its end" not in text, text


# -- the comma operator, tables, declarations -------------------------------------------------


def test_comma_operator_evaluates_left_to_right():
    src = "int f(int n) { int i, j, s = 0; for (i = 0, j = n - 1; i < j; i++, j--) s += i * j; " \
          "int b; int a = (b = s, b + 1); return a * 10 + b; }"
    s = sum(i * (9 - i) for i in range(5))
    assert _run_ir(src, "f", 10) == (s + 1) * 10 + s


STEPPED_TARGETS = """\
void by_index(int n, double *y, const double *x) {
    int i = 0;
    for (int k = 0; k < n; k++) { y[i++] += x[k] * x[k]; y[i++]++; y[++i] -= x[k]; }
}

void by_pointer(int n, double *y, const double *x) {
    double *q = y;
    const double *p = x;
    for (int k = 0; k < n; k++) { *q++ *= *p; (*q++)++; *++q += *p++ * 2.0; }
}

static int next(int *i) { int v = *i; *i = v + 1; return v; }

void by_call(int n, double *y, const double *x) {
    int i = 0, j = -1;
    for (int k = 0; k < n; k++) { y[next(&i)] *= x[k]; y[next(&i)] += 1.0; y[(j += 3)] -= x[k]; i++; }
}

void by_cell(int n, double *y, const double *x) {
    int cnt[1] = {0};
    for (int k = 0; k < n; k++) { y[cnt[0]++] += x[k]; y[cnt[0]++] *= x[k]; cnt[0]++; }
}

void by_comma(int n, double *y, const double *x) {
    int i = 0, j = 0;
    for (int k = 0; k < n; k++) { y[(i++, i)] += x[k]; y[k % 2 ? i++ : j++] *= x[k]; }
}
"""


@pytest.mark.parametrize("func", ["by_index", "by_pointer", "by_call", "by_cell", "by_comma"])
def test_an_increment_in_the_target_of_a_compound_assignment_steps_once(func, tmp_path, capsys):
    """y[i++] += v and *q++ *= v read and write y[i] and step i once: s2sad stepped it for the
    read and again for the write, updating y[i + 1] from y[i] (check: MISMATCH, relative error
    3.8 for the arrays at exit, 1.7 for x's adjoint; a silently wrong gradient). So is a call in
    the target made once (y[next(&i)]), an assignment in it (y[j += 3]), a step of an element
    (y[cnt[0]++]), a comma and a choice whose parts step (y[(i++, i)], y[c ? i++ : j++])."""
    from s2sad.cli import main

    n, x = 3, np.array([0.5, -1.5, 2.0])
    expected = np.arange(12.0)
    i = j = 0
    for k in range(n):  # as C runs by_index (and by_pointer, by its pointers)
        if func == "by_comma":
            i += 1
            expected[i] += x[k]
            at, i, j = (i, i + 1, j) if k % 2 else (j, i, j + 1)
            expected[at] *= x[k]
            continue
        if func == "by_index":
            expected[i] += x[k] * x[k]
            expected[i + 1] += 1.0
            expected[i + 3] -= x[k]
        elif func == "by_cell":
            expected[i] += x[k]
            expected[i + 1] *= x[k]
        elif func == "by_call":
            expected[i] *= x[k]
            expected[i + 1] += 1.0
            expected[i + 2] -= x[k]
        else:
            expected[i] *= x[k]
            expected[i + 1] += 1.0
            expected[i + 3] += x[k] * 2.0
        i += 3
    got = np.arange(12.0)
    module = parse_source(STEPPED_TARGETS, "t.c", func)
    Interpreter(module).run(module.functions[func], [n, got, x])  # (the arrays changed in place)
    np.testing.assert_allclose(got, expected)
    if have_gcc():
        path = tmp_path / "stepped.c"
        path.write_text(STEPPED_TARGETS)
        assert main(["check", str(path), "--func", func, "--wrt", "y,x", "--sizes", "n=3,y=12,x=3"]) == 0
        assert "all adjoints match" in capsys.readouterr().out


def test_tables_and_unsized_arrays_hold_their_initializers():
    src = "static const double coef[] = {1.0, 2.0, 4.0};\nstatic const int perm[3] = {2, 0, 1};\n" \
          "double f(double *x) { double w[] = {0.5, 0.25}; static const double z[2] = {3.0}; " \
          "double s = 0; for (int i = 0; i < 3; i++) s += coef[i] * x[perm[i]]; return s * w[1] + z[0] + z[1]; }"
    x = np.array([1.0, 10.0, 100.0])
    assert _run_ir(src, "f", x) == (100.0 + 2.0 + 40.0) * 0.25 + 3.0


def test_designated_array_initializers_set_the_elements_they_name(tmp_path, capsys):
    """C counts on from a designated element (``[2] = 0.5, 3.0`` sets 2 and 3), sizes an unsized
    array to the last, and designates rows (probe round 9: refused, and located at line 1)."""
    from source_gradients import check_command

    src = "double f(const double *x) {\n    double w[5] = {[0] = 1.0, [2] = 0.5, 3.0, [4] = -2.0};\n" \
          "    static const double c[] = {[3] = 2.0, 1.5};\n" \
          "    double m[2][3] = {[1] = {[2] = 4.0}, [0] = {1.0, 2.0}};\n    double s = 0.0;\n" \
          "    for (int i = 0; i < 5; i++) s += w[i] * x[i] * c[i];\n" \
          "    for (int i = 0; i < 2; i++)\n        for (int j = 0; j < 3; j++) s += m[i][j] * x[i + j] * x[i];\n" \
          "    return s;\n}\n"
    x = np.array([1.0, 10.0, 100.0, 1000.0, 10000.0])
    assert _run_ir(src, "f", x) == 3.0 * 1000.0 * 2.0 + -2.0 * 10000.0 * 1.5 + 4.0 * 1000.0 * 10.0 + 1.0 + 2.0 * 10.0
    check_command(tmp_path, capsys, src, "f", "x", "x=5", "c", "t.c")
    with pytest.raises(DiagnosticError) as info:
        parse_source("double f(double *x) {\n    double w[3] = {[n] = 1.0};\n    return w[0] * x[0];\n}\n", "t.c", "f")
    assert str(info.value.diagnostics[0].loc.line) == "2" and "must be a constant" in info.value.diagnostics[0].message


def test_an_old_style_definition_is_the_prototype_it_means(tmp_path, capsys):
    """K&R parameters (older numerical C): each name takes its declaration, an undeclared one is
    an int (C89); the gradient prints the prototype (probe round 9: 'every parameter needs a name')."""
    from source_gradients import check_command

    src = "double f(x, n, scale)\ndouble *x;\ndouble scale;\n{\n    double s = 0.0;\n    int i;\n" \
          "    for (i = 0; i < n; i++) s += x[i] * (i + scale);\n    return s * s;\n}\n"
    assert "void grad_f(double *x, double *d_x, int n, double scale, double *d_scale, double d_return)" in \
        _gradient(src, "f", ["x", "scale"])
    check_command(tmp_path, capsys, src, "f", "x,scale", "n=5", "c", "t.c")


@pytest.mark.parametrize("call, hint", [
    ("qsort(x, 3, sizeof *x, cmp)", "write the sort or the search as a loop in this file"),
    ("(double)strlen(name)", "s2sad does not read strings"),
    ("(double)rand()", "draw the random numbers outside the function"),
])
def test_c_library_functions_s2sad_does_not_follow_get_a_true_hint(call, hint):
    # (the hint was to define qsort in this file)
    src = "#include <stdlib.h>\n#include <string.h>\nint cmp(const void *a, const void *b);\n" \
          f"double f(double *x, const char *name) {{\n    double r = {call};\n    return x[0] * r;\n}}\n"
    with pytest.raises(DiagnosticError) as info:
        parse_source(src, "t.c", "f")
    d = next(d for d in info.value.diagnostics if "of the C library is not supported" in d.message)
    assert d.loc.line == 5 and d.hint.startswith(hint), d


def test_a_static_global_the_function_writes_is_refused_where_it_writes_it():
    # (the hint to drop static led to a second refusal: the write)
    messages = _diagnostics("static long nevals = 0;\ndouble f(double *x) {\n    nevals += 1;\n    return x[0];\n}\n")
    assert messages == ["3:5: 'nevals' is a global variable, and this writes it: s2sad reads global variables, and "
                        "the gradient could not restore one it changed"], messages


SKIPPED_ASSIGNMENTS = """#include <math.h>
double newton(double x, double c)
{
    double y = x;
    int it = 0;
    for (;;) {
        double yn = 0.5 * (y + c / y);
        if (fabs(yn - y) < 1e-14 || ++it > 50) { y = yn; break; }
        y = yn;
    }
    return y + 0.01 * it;
}
double relax(const double *x, int n)
{
    double u = 0.0, res;
    int it = 0, wide = 0;
    do {
        double du = 0.5 * (x[it % n] - u);
        u += du;
        res = fabs(du) > 0.3 ? (wide++, fabs(du)) : fabs(du);
    } while (res > 1e-3 && ++it < 40);
    return u * u + 0.1 * it + 0.01 * wide;
}
"""


@pytest.mark.parametrize("func, wrt, sizes, ranges", [("newton", "x,c", "", "1,3"), ("relax", "x", "n=5", "0,1")])
def test_assignments_c_may_skip_are_results_of_the_branch(func, wrt, sizes, ranges, tmp_path, capsys):
    """``res > tol && ++it < 500``, ``... || ++it > 50``, ``cond ? (k++, v) : w``: the variables a
    side assigns are what the side that ran leaves (probe round 9: refused, 'assign in a separate
    statement'); the iteration counts reach the result, so a skipped step would show."""
    from source_gradients import check_command

    assert _run_ir(SKIPPED_ASSIGNMENTS, "newton", 2.0, 2.0) == pytest.approx(np.sqrt(2.0) + 0.01 * 5, abs=1e-12)
    check_command(tmp_path, capsys, SKIPPED_ASSIGNMENTS, func, wrt, sizes, "c", "t.c", ("--range", ranges))


def test_a_const_table_prints_as_an_initialized_array():
    src = "static const double coef[4] = {1.0, -0.5, 0.25, 0.0};\n" \
          "double f(const double *x) { return coef[1] * x[0] + coef[2] * x[1]; }"
    text = _gradient(src, "f", ["x"])
    assert "double coef[4] = {1.0, -0.5, 0.25, 0.0};" in text


@pytest.mark.parametrize(
    "body, expected",
    [
        ("double w[]; return x[0];", "2:12: a local array needs its size"),
        ("static double c = 1; c += 1; return c * x[0];", "2:19: 'static' local variables that the function writes"),
        ("static double w[2] = {1, 2}; double *p = w; return p[0] * x[0];",
         "2:19: 'static' local variables that the function writes"),
        ("static double c; c += 1; return c * x[0];", "'static' local variables without an initializer"),
        ("static double c; if (x[0] > 0) c = x[0]; return c;", "'static' local variables without an initializer"),
        ("static int k; double *p = (double *)&k; k = 1; return p[0] * x[0];",
         "'static' local variables without an initializer"),
        ("double a[2][] = {{1, 2}}; return x[0];", "only the first size of a local array may be left out"),
    ],
)
def test_declaration_problems_are_located(body, expected):
    src = "double table[2] = {1.0, 2.0};\ndouble f(double *x) {\n    " + body + "\n}\n"
    src = src.replace("\ndouble f", "double f", 1)  # keep the body on line 2
    messages = _diagnostics(src)
    assert any(expected in m for m in messages), messages


def test_a_global_array_of_unknown_size_is_located():
    src = "extern double table[];\ndouble f(double *x) {\n    return table[0] * x[0];\n}\n"
    messages = _diagnostics(src)
    assert any("3:12: the global variable 'table' is not a number: s2sad reads global numbers, and arrays of "
               "numbers of known size" in m for m in messages), messages


def test_prototypes_extern_and_block_scope_declarations_are_accepted():
    src = "extern double g(double);\nstatic double h(double v);\n" \
          "double f(double *x) { extern double g(double); return h(x[0]); }\n" \
          "static double h(double v) { return 2.0 * v; }\n"
    assert _run_ir(src, "f", np.array([3.0])) == 6.0


# -- typedefs, const, restrict ------------------------------------------------------------------

_TYPEDEFS = """typedef double real;
typedef real weight_t;
typedef unsigned long count_t;
real f(const real *restrict x, real *restrict y, const count_t n, const weight_t a)
{
    real s = 0.0;
    for (count_t i = 0; i < n; i++) {
        y[i] = a * x[i];
        s += y[i];
    }
    return s;
}
"""


def test_typedefs_are_kept_and_defined_before_use():
    text = _gradient(_TYPEDEFS, "f", ["x", "a"])
    head = text.index("typedef double real;")
    assert head < text.index("typedef real weight_t;") < text.index("void grad_f(")
    assert "typedef unsigned long count_t;" in text
    assert ("void grad_f(const real *restrict x, real *d_x, real *restrict y, real *d_y, const count_t n, "
            "const weight_t a, weight_t *d_a, real d_return)") in " ".join(text.split()), text


@needs_gcc
def test_typedef_gradient_matches_the_primal_and_compiles_clean():
    from fd import ParamSpec, check_gradient

    text = _gradient(_TYPEDEFS, "f", ["x", "a"])
    sig = CSignature.parse(_TYPEDEFS, "f")
    specs = [ParamSpec("x", "array", (5,)), ParamSpec("y", "array", (5,)), ParamSpec("n", "int", value=5),
             ParamSpec("a", "float")]
    check_gradient(sig.primal(build(_TYPEDEFS)), sig.gradient(build_sanitized(text), ["x", "a"], ["y"]), specs,
                   ["x", "a"], {"y"}, np.random.default_rng(0), returns_float=True)


_GLOBALS = """#include <math.h>
typedef float real;
double scale = 1.5;
real shift = 0.25f;
extern int mode;
static const double W[3] = {0.5, -1.0, 2.0};

static double term(double v, int i)
{
    return W[i % 3] * sin(v) * scale + shift;
}

double f(const double *x, double a, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += term(x[i] * a, i) * (mode > 1 ? x[i] : 1.0);
    }
    return s * scale;
}
"""


@needs_gcc
def test_global_numbers_are_read_through_extern_declarations():
    """A file-scope number that is not const is read where the source reads it, declared extern
    in the gradient's file (linked with the file that defines it), its value as the program has
    it at that moment: a program that changes it between calls gets the gradient of what ran."""
    from fd import ParamSpec, check_gradient

    text = _gradient(_GLOBALS, "f", ["x", "a"])
    assert "extern double scale;" in text and "extern float shift;" in text and "extern int mode;" in text
    assert "static const double W" not in text or "extern" not in text.split("static const double W")[0][-20:]
    definitions = "\ndouble scale = 1.5;\nfloat shift = 0.25f;\nint mode = 3;\n"
    primal_lib, grad_lib = build(_GLOBALS + "int mode = 3;\n"), build(text + definitions)
    sig = CSignature.parse(_GLOBALS, "f")
    specs = [ParamSpec("x", "array", (5,)), ParamSpec("a", "float"), ParamSpec("n", "int", value=5)]
    for value in (1.5, -0.75):  # the program changes the global between calls: both libraries see it
        for lib in (primal_lib, grad_lib):
            ctypes.c_double.in_dll(lib, "scale").value = value
        check_gradient(sig.primal(primal_lib), sig.gradient(grad_lib, ["x", "a"], []), specs, ["x", "a"], set(),
                       np.random.default_rng(0), returns_float=True)


_GLOBAL_CHANGED_OUTSIDE = """#include <math.h>
double scale = 1.5;
double bump(int i);

double f(const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        double b = bump(i);
        s += sin(scale * x[i]) * b;
    }
    return s;
}
"""


@needs_gcc
def test_global_numbers_are_values_unless_code_elsewhere_may_change_them():
    """Where the function differentiated and those it calls call nothing defined elsewhere, a
    global holds one value while the gradient runs (parse/c_globals): read where it is used,
    never kept per iteration. A call out of the file may change it: each read is kept for the
    reverse sweep, and a function that changes it between iterations gets the right gradient."""
    from fd import ParamSpec, check_gradient

    text = _gradient(_GLOBALS, "f", ["x", "a"])
    assert not [w for w in ("scale", "shift", "mode") if f"tape_{w}" in text or f"{w}_value" in text]
    assert "* scale" in text
    text = _gradient(_GLOBAL_CHANGED_OUTSIDE, "f", ["x"])
    assert "tape_scale_value[" in text
    elsewhere = "\ndouble bump(int i) { scale += 0.25; return 1.0 + 0.5 * i; }\n"
    definitions = "\ndouble scale = 1.5;" + elsewhere
    primal_lib = build(_GLOBAL_CHANGED_OUTSIDE + elsewhere)
    grad_lib = build(text + definitions)
    sig = CSignature.parse(_GLOBAL_CHANGED_OUTSIDE, "f")
    specs = [ParamSpec("x", "array", (5,)), ParamSpec("n", "int", value=5)]

    def primal(*args):  # each run from the same start: the call changes the global
        ctypes.c_double.in_dll(primal_lib, "scale").value = 1.5
        return sig.primal(primal_lib)(*args)

    def gradient(*args, **kwargs):
        ctypes.c_double.in_dll(grad_lib, "scale").value = 1.5
        return sig.gradient(grad_lib, ["x"], [])(*args, **kwargs)

    check_gradient(primal, gradient, specs, ["x"], set(), np.random.default_rng(2), returns_float=True)


@pytest.mark.parametrize("target, expected", [
    ("py", "2:80: --target py: 'scale' is a global variable of the C program, which Python output cannot read"),
    ("numba", "2:80: --target numba: 'scale' is a global variable of the C program"),
    ("cuda", "2:80: --target cuda: 'scale' is a global variable of the host program, which device code cannot read"),
])
def test_a_global_number_in_output_that_cannot_read_it_is_a_located_error(target, expected):
    source = ("double scale = 2.0;\nvoid f(const double *x, double *y, int n) { for (int i = 0; i < n; i++) "
              "y[i] = scale * x[i]; }\n")
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(source, "t.c", "f", ["x"], target)
    d = info.value.diagnostics[0]
    assert f"{d.loc.line}:{d.loc.col}: {d.message}".startswith(expected), d.message


_STATICS = """#include <math.h>
double f(const double *x, double a, int n)
{
    static double w = 0.5;
    static double coef[3] = {1.0, -0.5, 0.25};
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += w * coef[i % 3] * sin(a * x[i]);
    }
    return s;
}
"""


@needs_gcc
def test_static_locals_that_nothing_writes_are_constants():
    """A static with an initializer that the function never writes holds the same values at
    every call: read as a plain local (a write, or a bare array name that may be written
    through, is refused: test_declaration_problems_are_located)."""
    from fd import ParamSpec, check_gradient

    text = _gradient(_STATICS, "f", ["x", "a"])
    sig = CSignature.parse(_STATICS, "f")
    specs = [ParamSpec("x", "array", (5,)), ParamSpec("a", "float"), ParamSpec("n", "int", value=5)]
    check_gradient(sig.primal(build(_STATICS)), sig.gradient(build_sanitized(text), ["x", "a"], []), specs, ["x", "a"],
                   set(), np.random.default_rng(1), returns_float=True)


# f2c's locals: every one static, each set before it is read at every call (``static int i;`` the
# counter of a loop whose init sets it): the value kept from the call before is never read.
_F2C_STATICS = """#include <math.h>
double f(double *x, double *a, int *n)
{
    static int i;
    static double s, t;
    --x;
    s = 0.;
    for (i = 1; i <= *n; ++i) {
        t = sin(*a * x[i]);
        s += t * t;
    }
    return s;
}
"""


@needs_gcc
def test_f2c_statics_set_before_they_are_read_are_plain_locals():
    from fd import ParamSpec, check_gradient

    text = _gradient(_F2C_STATICS, "f", ["x", "a"])
    sig = CSignature.parse(_F2C_STATICS, "f")
    specs = [ParamSpec("x", "array", (5,)), ParamSpec("a", "array", (1,)), ParamSpec("n", "array", (1,), dtype="i32",
                                                                                       ints=(5, 6))]
    check_gradient(sig.primal(build(_F2C_STATICS)), sig.gradient(build_sanitized(text), ["x", "a"], []), specs,
                   ["x", "a"], set(), np.random.default_rng(1), returns_float=True)


@pytest.mark.parametrize("body, value", [
    ("static double c; if (x[0] > 0) c = 2 * x[0]; else c = x[1]; return c;", 6.0),
    ("static double c; static int k; k = 0; do { c = x[k]; k++; } while (k < 2); return c;", 4.0),
    ("static double c, d; d = 0; while (d < 1) { c = x[1]; d = d + c; } return d;", 4.0),
    ("static const double c; return x[0];", 3.0),  # (never read)
])
def test_a_static_number_set_before_it_is_read_on_every_path_is_a_plain_local(body, value):
    src = "double f(double *x) {\n    " + body + "\n}\n"
    assert _run_ir(src, "f", np.array([3.0, 4.0])) == value


@pytest.mark.parametrize("source, expected", [
    ("static double scale = 2.0;\ndouble f(double *x) { return scale * x[0]; }\n",
     "'scale' is a static global variable: the gradient, in a file of its own, cannot read it"),
    ("double scale = 2.0;\ndouble f(double *x) { scale += x[0]; return x[0]; }\n",
     "'scale' is a global variable, and this writes it"),
    ("int calls;\ndouble f(double *x) { calls++; return x[0]; }\n", "'calls' is a global variable, and this writes it"),
])
def test_global_variables_written_or_out_of_reach_are_located_errors(source, expected):
    messages = _diagnostics(source)
    assert any(expected in m for m in messages), messages


def test_a_variable_refused_where_it_is_declared_gives_no_follow_on_errors():
    """One message for the declaration, none for each use of the variable after it."""
    source = """#include <stdlib.h>
typedef struct { int rows, cols; double *data; } Matrix;
double f(const double *x, int n)
{
    Matrix *ms = malloc(n * sizeof(Matrix));
    for (int i = 0; i < n; i++) {
        ms[i].rows = 1;
        ms[i].data = malloc(sizeof(double));
        ms[i].data[0] = x[i] * x[i];
    }
    double s = ms[0].data[0];
    free(ms);
    return s;
}
"""
    messages = _diagnostics(source)
    assert len(messages) == 1 and messages[0].startswith("5:25: arrays of Matrix on the heap"), messages


def test_a_refused_declaration_of_a_number_a_loop_carries_is_one_located_error():
    """doorfuzz seed 16400078: the loop carrying ``s`` asked the type of a variable declared void
    after its declaration was refused (an internal error); it keeps its declared type."""
    source = """double f(const double *x, int n)
{
    double s = 0xFFFFFFFFFFFFFFFFFFFF;
    for (int i = 0; i + 1 < n; i += 2) {
        s += x[i] * x[i + 1];
    }
    return s;
}
"""
    messages = _diagnostics(source)
    assert messages == ["3:16: this integer constant is too large for any C integer type"], messages
    # doorfuzz seed 16901340: a declaration whose type is refused (no type to carry), with OpenMP too
    for pragma in ("", "    #pragma omp parallel for lastprivate(t)\n"):
        source = ("double f(int n, const double *x, double *y)\n{\n    unsigned\n    double t = 0.0;\n" + pragma
                  + "    for (int i = 0; i < n; i++) {\n        t = x[i] * x[i];\n        y[i] = t + x[i];\n    }\n"
                  "    return t * t;\n}\n")
        messages = _diagnostics(source)
        assert messages == ["4:12: 'unsigned double' is not a C type: 'double' has no signed or unsigned form"], \
            messages


def test_cuda_output_drops_restrict_and_keeps_typedefs():
    src = "typedef double real;\n__global__ void k(const real *__restrict__ x, real *__restrict__ y, int n)\n" \
          "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = x[i] * x[i]; }\n"
    text = pipeline.gradient_source(src, "t.cu", "k", ["x"], "cuda", pipeline.Options())
    assert "typedef double real;" in text and "restrict" not in text
    assert "__global__ void grad_k(const real *x, real *d_x, real *y, real *d_y, int n)" in text


# -- unsigned lengths ---------------------------------------------------------------------------


@needs_gcc
@pytest.mark.parametrize("case, args", [("unsigned_counter", (0,)), ("size_t_loops", (0, 0)),
                                        ("size_t_loops", (3, 0)), ("size_t_loops", (0, 1))])
def test_unsigned_lengths_of_zero_run_no_loop(case, args):
    """A reversed loop from ``n - 1`` with an ``unsigned`` n of zero: C's ``n - 1`` wraps to
    4294967295, so the gradient reads n as a long first (it used to run 4 billion times)."""
    from test_golden_c import BY_NAME

    golden = BY_NAME[case]
    text = golden.generate("c")
    assert "(long)n - 1" in text or "(long)m - 1" in text
    grad = golden.signature.gradient(build_sanitized(text), golden.wrt, golden.written)
    shadowed = set(golden.wrt) | set(golden.written)
    # Each pointer and its shadow (both cases list their arrays before the lengths).
    arrays = [np.ones(4) for p in golden.signature.params if p.pointer for _ in range(1 + (p.name in shadowed))]
    grad(*arrays, *args, **({"d_return": 1.0} if golden.signature.returns_float else {}))


def test_unsigned_comparisons_print_without_sign_warnings():
    src = "#include <stddef.h>\nvoid f(const double *x, double *y, size_t n) { for (size_t i = 0; i < n; i++) " \
          "y[i] = x[i] * x[i]; }"
    text = _gradient(src, "f", ["x"])
    assert "i < (long)n" in text


# -- bit operations ---------------------------------------------------------------------------------

_BITS = """
int f(int a, int b)
{
    int s = a & b;
    s += (a | b) * 3 + (a ^ b) * 5 + (~a) * 7;
    s += (a >> (b & 3)) * 11 + (b << (a & 3)) * 13;
    int k = a;
    k <<= 2; k >>= 1; k |= b; k &= 0x3f; k ^= 5; k %= 7;
    return s * 17 + k;
}
"""


@needs_gcc
def test_bit_operations_mean_what_c_means_for_negative_operands():
    c = CFunction(build(_BITS), "f", ["int", "int"], "int")
    for a in range(-9, 10, 3):
        for b in range(-8, 9, 4):
            assert _run_ir(_BITS, "f", a, b) == c(a, b), (a, b)


def test_bit_operations_are_ops_of_their_own_and_print_with_parentheses():
    text = print_module(parse_source(_BITS, "t.c", "f"))
    for name in ("bitand(", "bitor(", "bitxor(", "bitnot(", "shl(", "shr("):
        assert name in text, name
    src = "double f(const double *x, int n, int s) { return x[(n + 1) & s] + x[(n >> s) | 1]; }"
    c_text = _gradient(src, "f", ["x"])
    assert "(n + 1) & s" in c_text and "(n >> s) | 1" in c_text


def test_complementing_an_unsigned_value_is_refused():
    messages = _diagnostics("double f(double *x, unsigned n) {\n    return x[~n & 1];\n}\n")
    assert any(m.startswith("2:14: 'n' is unsigned") or "complementing an unsigned value (~)" in m
               for m in messages), messages


MEMORY = "#include <string.h>\n"


def test_memcpy_memmove_memset_mean_what_c_means():
    """The element loops s2sad reads them as, run by the IR interpreter, against the C library's."""
    source = MEMORY + """
double f(double *a, const double *b, int n)
{
    memcpy(a, b, n * sizeof(double));
    memmove(a + 1, a, (n - 1) * sizeof(double));
    memset(a, 0, 2 * sizeof(double));
    memmove(a, a + 2, (n - 2) * sizeof(double));
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += (i + 1) * a[i];
    return s;
}
"""
    b = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    a = np.zeros(6)
    # by hand: a = b; a = [1, 1, 2, 3, 4, 5]; a = [0, 0, 2, 3, 4, 5]; a = [2, 3, 4, 5, 4, 5]
    want = float(np.dot(np.arange(1, 7), [2.0, 3.0, 4.0, 5.0, 4.0, 5.0]))
    assert _run_ir(source, "f", a, b, 6) == want
    if have_gcc():
        c = CFunction(build(source), "f", ["double *", "double *", "int"], "double")
        assert c(np.zeros(6), b, 6) == want


def test_sizeof_a_variable_is_its_bytes():
    """sizeof of a number or of a local array of constant extents, as C counts it (memcpy(y, y0,
    sizeof y) copies the whole array); a pointer's own size is refused."""
    source = MEMORY + """
double f(const double *y0)
{
    double y[2][3];
    double s = 0.0;
    memcpy(y, y0, sizeof y);
    s += sizeof s / 8;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            s += (i + 2 * j + 1) * y[i][j];
    return s;
}
"""
    y0 = np.arange(1.0, 7.0)
    want = 1.0 + float(sum((i + 2 * j + 1) * y0[3 * i + j] for i in range(2) for j in range(3)))
    assert _run_ir(source, "f", y0) == want
    if have_gcc():
        assert CFunction(build(source), "f", ["double *"], "double")(y0) == want
    (message,) = _diagnostics(MEMORY + "double f(const double *x, int n) {\n    const double *v = x;\n"
                              "    return v[0] + sizeof v;\n}\n")
    assert message.startswith("4:26: sizeof is supported for scalar types, elements, numbers and arrays of "
                              "constant size only"), message


def test_sizeof_a_variable_length_array_is_its_declared_bytes():
    """``sizeof v`` of ``double v[n]`` (and of its rows, ``sizeof A[0]`` of ``double A[n][m]``):
    the bytes of the extents it was declared with, computed where it is read (probe round 11: it
    was refused)."""
    source = MEMORY + """
double f(const double *x, int n, int m)
{
    double v[n];
    double A[n][m];
    memset(v, 0, sizeof v);
    memset(A, 0, sizeof A);
    memcpy(v, x, (n - 1) * sizeof v[0]);
    for (int j = 0; j < m; j++) A[1][j] = x[j] * x[j];
    double s = (double)(sizeof A[0] / sizeof(double));
    for (int i = 0; i < n; i++) s += v[i] * v[i];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) s += A[i][j];
    return s;
}
"""
    x = np.arange(1.0, 6.0)
    want = 3.0 + float(np.sum(x[:4] ** 2)) + float(np.sum(x[:3] ** 2))
    assert _run_ir(source, "f", x, 5, 3) == want
    if have_gcc():
        assert CFunction(build(source), "f", ["double *", "int", "int"], "double")(x, 5, 3) == want


@pytest.mark.parametrize("body, expected", [
    ("double f(double *a, int n) { memset(a, 1, n * sizeof(double)); return a[0]; }",
     "memset with a byte other than 0 writes no number s2sad can follow"),
    ("double f(double *a, const int *b, int n) { memcpy(a, b, n * sizeof(int)); return a[0]; }",
     "memcpy between arrays of int and double is not supported"),
    ("double f(double *a, const double *b) { memcpy(a, b); return a[0]; }", "memcpy takes 3 arguments"),
])
def test_memory_call_problems_are_located(body, expected):
    (message,) = _diagnostics(MEMORY + body)
    assert message.startswith("2:") and expected in message, message


# Functions passed by name (parse/c_function_args): a typedef'd pointer parameter called as
# f(t, y), two functions passed to one integrator (a copy each), a pointer declared in place
# called as (*g)(x), &sq, a library function, a helper that passes its function on, one that
# calls itself passing its function again.
_FUNCTION_ARGUMENTS = """#include <math.h>
typedef double (*rhs_fn)(double t, double y, double k);

static double decay(double t, double y, double k) { return -k * y + sin(t); }
static double growth(double t, double y, double k) { return k * y * (1.0 - y) + 0.1 * cos(t); }

static double rk4(rhs_fn f, double t, double y, double h, double k)
{
    double k1 = f(t, y, k);
    double k2 = f(t + 0.5 * h, y + 0.5 * h * k1, k);
    double k3 = f(t + 0.5 * h, y + 0.5 * h * k2, k);
    double k4 = f(t + h, y + h * k3, k);
    return y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
}

static double sq(double v) { return v * v; }

static double simpson(double (*g)(double), double a, double b, int n)
{
    double h = (b - a) / n, s = g(a) + g(b);
    for (int i = 1; i < n; i++) {
        s += (i % 2 ? 4.0 : 2.0) * (*g)(a + i * h);
    }
    return s * h / 3.0;
}

static double integrate(double (*g)(double), double a, double b) { return simpson(g, a, b, 8); }

static double repeat(double (*g)(double), double x, int times)
{
    return times == 0 ? x : repeat(g, g(x) * 0.5, times - 1);
}

double f(double y0, double k, double a, double b, int steps)
{
    double y = y0, z = y0, t = 0.0;
    for (int i = 0; i < steps; i++) {
        y = rk4(decay, t, y, 0.05, k);
        z = rk4(&growth, t, z, 0.05, k);
        t += 0.05;
    }
    return y * z + integrate(&sq, a, b) + integrate(sin, a, b) * integrate(sq, 0.0, b) + repeat(sin, a * b, 3);
}
"""


@needs_gcc
def test_functions_passed_by_name_are_read_as_a_copy_of_the_callee_each():
    from fd import ParamSpec, check_gradient

    wrt = ["y0", "k", "a", "b"]
    text = _gradient(_FUNCTION_ARGUMENTS, "f", wrt)
    for copy in ("rk4_decay", "rk4_growth", "simpson_sin", "repeat_sin"):
        assert f"grad_{copy}(" in text, copy
    sig = CSignature.parse(_FUNCTION_ARGUMENTS, "f")
    specs = [ParamSpec("y0", "float", low=0.2, high=0.8), ParamSpec("k", "float", low=0.5, high=1.5),
             ParamSpec("a", "float", low=0.1, high=0.5), ParamSpec("b", "float", low=1.0, high=2.0),
             ParamSpec("steps", "int", value=6)]
    check_gradient(sig.primal(build(_FUNCTION_ARGUMENTS)), sig.gradient(build(text), wrt, []), specs, wrt, set(),
                   np.random.default_rng(3), returns_float=True)


_HELD_FUNCTIONS = """#include <math.h>
typedef double (*rhs_fn)(double t, double y);
static double decay(double t, double y) { return -y + sin(t); }
static double euler(rhs_fn f, double t, double y, double h) { return y + h * f(t, y); }
double f(double y0, int steps)
{
    rhs_fn rhs = decay;
    double (*g)(double) = &cos;
    double y = y0, t = 0.0;
    for (int i = 0; i < steps; i++) {
        y = euler(rhs, t, y, 0.1) + 0.01 * (*g)(y) + 0.01 * rhs(t, y);
        t += 0.1;
    }
    return y;
}
"""


@needs_gcc
def test_a_local_pointer_set_once_to_a_function_is_that_function():
    from fd import ParamSpec, check_gradient

    text = _gradient(_HELD_FUNCTIONS, "f", ["y0"])
    sig = CSignature.parse(_HELD_FUNCTIONS, "f")
    specs = [ParamSpec("y0", "float"), ParamSpec("steps", "int", value=5)]
    check_gradient(sig.primal(build(_HELD_FUNCTIONS)), sig.gradient(build(text), ["y0"], []), specs, ["y0"], set(),
                   np.random.default_rng(5), returns_float=True)


# Functions held in struct members (parse/c_member_functions, probe t06): two systems of one type
# with different functions, one by a designated initializer, passed by address through two
# helpers; the member is read only as a call.
_MEMBER_FUNCTIONS = """#include <math.h>
#define NEQ 2
typedef void (*rhs_fn)(double t, const double *y, double *dydt, const double *p);
typedef struct { int n; rhs_fn f; const double *p; } OdeSystem;
static void lotka(double t, const double *y, double *dydt, const double *p)
{
    (void)t;
    dydt[0] = p[0] * y[0] - p[1] * y[0] * y[1];
    dydt[1] = p[2] * y[0] * y[1] - p[3] * y[1];
}
static void damped(double t, const double *y, double *dydt, const double *p)
{
    dydt[0] = y[1];
    dydt[1] = -p[0] * y[0] - p[1] * y[1] + 0.1 * sin(t);
}
static void euler_step(const OdeSystem *sys, double t, double h, double *y)
{
    double k[NEQ];
    sys->f(t, y, k, sys->p);
    for (int i = 0; i < sys->n; i++) y[i] += h * k[i];
}
static void run(const OdeSystem *sys, double h, int steps, double *y)
{
    for (int s = 0; s < steps; s++) euler_step(sys, s * h, h, y);
}
double f(const double *p, const double *y0, int steps)
{
    OdeSystem a = {NEQ, lotka, p};
    OdeSystem b = {.p = p + 2, .n = NEQ, .f = damped};
    double y[NEQ] = {y0[0], y0[1]}, z[NEQ] = {y0[1], y0[0]};
    run(&a, 0.01, steps, y);
    run(&b, 0.02, steps, z);
    return y[0] * z[1] + y[1];
}
"""


@needs_gcc
def test_functions_held_in_struct_members_are_read_as_functions_passed():
    import ctypes

    from fd import central_difference

    text = _gradient(_MEMBER_FUNCTIONS, "f", ["p", "y0"])
    assert "run_lotka(" in text and "run_damped(" in text and "rhs_fn" not in text
    ptr = ctypes.POINTER(ctypes.c_double)
    primal = build(_MEMBER_FUNCTIONS).f
    primal.argtypes, primal.restype = [ptr, ptr, ctypes.c_int], ctypes.c_double
    grad = build(text).grad_f
    grad.argtypes = [ptr, ptr, ptr, ptr, ctypes.c_int, ctypes.c_double]
    p, y0 = np.array([0.5, 0.3, 0.4, 0.2]), np.array([1.2, 0.7])
    d_p, d_y0 = np.zeros(4), np.zeros(2)
    grad(p.ctypes.data_as(ptr), d_p.ctypes.data_as(ptr), y0.ctypes.data_as(ptr), d_y0.ctypes.data_as(ptr), 20, 1.0)

    def run(p_: np.ndarray, y_: np.ndarray) -> float:
        return primal(np.ascontiguousarray(p_).ctypes.data_as(ptr), np.ascontiguousarray(y_).ctypes.data_as(ptr), 20)

    np.testing.assert_allclose(d_p, central_difference(run, [p, y0], 0), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(d_y0, central_difference(run, [p, y0], 1), rtol=1e-7, atol=1e-9)


def test_a_struct_held_function_that_callers_outside_the_file_choose_stays_refused():
    """A struct of such a member in the signature of a function other files call: its layout is
    theirs, and so is the function it holds."""
    source = _MEMBER_FUNCTIONS.replace("double f(const double *p, const double *y0, int steps)",
                                       "double g(const OdeSystem *s, double *y) { run(s, 0.1, 3, y); return y[0]; }\n"
                                       "double f(const double *p, const double *y0, int steps)")
    assert any("rhs_fn" in m for m in _diagnostics(source, "g")), _diagnostics(source, "g")


def test_a_function_pointer_nothing_passes_by_name_is_a_located_error():
    messages = _diagnostics("double apply(double (*g)(double), double x) { return g(x) * x; }\n", "apply")
    assert any("1:22: a pointer to a function is read only where a call passes a function by name" in m
               for m in messages), messages
    source = ("static double twice(double (*g)(double), double x) { return g(g(x)); }\n"
              "double f(double x, double (*h)(double)) { return twice(h, x); }\n")
    assert any("a pointer to a function is read only where" in m for m in _diagnostics(source)), _diagnostics(source)
    source = ("static double sq(double v) { return v * v; }\nstatic double cube(double v) { return v * v * v; }\n"
              "static double pick(double (*g)(double), double x) { if (x > 1.0) g = cube; return g(x); }\n"
              "double f(double x) { return pick(sq, x); }\n")  # g points elsewhere later: no copy for sq
    assert any("3:28: a pointer to a function is read only where" in m for m in _diagnostics(source)), \
        _diagnostics(source)


# Local pointers to one member (parse/c_member_pointers): read through *g, g[0], g->x, passed on.
_MEMBER_POINTERS = """#include <math.h>
typedef struct { double x; double y; } Pair;
typedef struct { double gamma; double beta; Pair p; } Norm;

static void damp(double *v, double by) { *v *= by; }

static double run(const double *x, Norm w, double a, int n)
{
    Norm local = {a, 2.0 * a, {0.5, a}};
    double *g = &w.gamma;
    double *h = &local.gamma;
    const Pair *q = &local.p;
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        *h += x[i] * g[0];
        s += sin(*g * x[i]) + w.beta * local.gamma + q->y * x[i];
        damp(h, 0.9);
    }
    return s + local.gamma;
}

double f(const double *x, double b, double a, int n)
{
    Norm w = {b, 0.5 * b, {b, 1.0}};
    return run(x, w, a, n);
}
"""


@needs_gcc
def test_local_pointers_to_one_member_read_as_the_member():
    from fd import ParamSpec, check_gradient

    wrt = ["x", "b", "a"]
    text = _gradient(_MEMBER_POINTERS, "f", wrt)
    sig = CSignature.parse(_MEMBER_POINTERS, "f")
    specs = [ParamSpec("x", "array", (5,)), ParamSpec("b", "float"), ParamSpec("a", "float"),
             ParamSpec("n", "int", value=5)]
    check_gradient(sig.primal(build(_MEMBER_POINTERS)), sig.gradient(build(text), wrt, []), specs, wrt, set(),
                   np.random.default_rng(4), returns_float=True)


def test_a_pointer_to_a_member_of_a_variable_assigned_again_stays_a_located_error():
    """(``w = *v`` leaves ``g`` where it was; read as ``w.gamma``, each use is still the same memory,
    but a variable assigned whole is not told apart from a pointer moved: refused, as before.)"""
    source = ("typedef struct { double gamma; } Norm;\n"
              "double f(const double *x, Norm w, const Norm *v) {\n"
              "    double *g = &w.gamma;\n"
              "    double s = *g;\n"
              "    w = *v;\n"
              "    return s + *g * x[0];\n}\n")
    messages = _diagnostics(source)
    assert any(m.startswith("3:18: taking the address of 'w.gamma' is not supported here") for m in messages), messages


# An if whose branch always jumps puts the statements after it into its other branch; where that
# branch may jump too (an else-if that returns, breaks or continues), they run only where it did
# not (found by a probe: the middle return of an SPH kernel was lost, value and gradient wrong).
_JUMP_CHAINS = """#include <math.h>
static double kern(double q)
{
    if (q > 5.0) return q;
    if (q < 1.0) return 2.0 * q;
    else if (q < 2.0) return 3.0 * q * q;
    else if (q < 3.0) return 4.0 * q;
    return sin(q);
}

static double nested(double q)
{
    if (q < 1.0) {
        return 2.0 * q;
    } else {
        if (q < 2.0) return 3.0 * q;
    }
    return q * q;
}

double f(const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        if (x[i] < -0.5) continue;
        else if (x[i] > 3.5) break;
        s += kern(x[i]) * x[i] + nested(x[i]);
    }
    return s;
}
"""


@needs_gcc
@pytest.mark.parametrize("level", [0, 2])
def test_statements_after_an_else_if_that_jumps_run_only_where_it_did_not(level):
    from fd import ParamSpec, check_gradient

    text = pipeline.gradient_source(_JUMP_CHAINS, "t.c", "f", ["x"], "c", pipeline.Options(level=level))
    sig = CSignature.parse(_JUMP_CHAINS, "f")
    primal, gradient = sig.primal(build(_JUMP_CHAINS)), sig.gradient(build(text), ["x"], [])
    for seed in range(4):  # 16 numbers across every branch, a break among them now and then
        specs = [ParamSpec("x", "array", (16,), low=-1.0, high=3.7), ParamSpec("n", "int", value=16)]
        check_gradient(primal, gradient, specs, ["x"], set(), np.random.default_rng(seed), returns_float=True)
    for q in (0.5, 1.5, 2.5, 4.0, 6.0, -0.7, 3.6):  # the IR means what the C means
        assert _run_ir(_JUMP_CHAINS, "kern", q) == pytest.approx(primal_kern(q))
        assert _run_ir(_JUMP_CHAINS, "nested", q) == pytest.approx(q * q if q >= 2.0 else 3 * q if q >= 1 else 2 * q)


def primal_kern(q: float) -> float:
    import math

    return q if q > 5 else 2 * q if q < 1 else 3 * q * q if q < 2 else 4 * q if q < 3 else math.sin(q)


# math.h's classification macros as comparisons, NAN as inf - inf, and sizeof of a local array
# whose extent is a #define (found by a probe of numerical C: each was refused).
_CLASSIFY = """#include <math.h>
#include <string.h>
#define NB 4
int kind(double v)
{
    return isnan(v) + 10 * isinf(v) + 100 * isfinite(v) + 1000 * __builtin_isnan(v);
}

double f(const double *x, int n)
{
    double b[NB];
    memset(b, 0, sizeof b);
    for (int i = 0; i < n; i++) {
        if (isnan(x[i]) || !isfinite(x[i])) continue;
        b[i % NB] += x[i] * x[i];
    }
    if (b[0] < 0.0) return NAN;
    return b[0] * b[1] + b[2] + (double)(sizeof(b) / sizeof(b[0]));
}
"""


@needs_gcc
def test_classification_macros_nan_and_sizeof_of_a_defined_extent():
    from fd import ParamSpec, check_gradient

    inf, nan = float("inf"), float("nan")
    for v, expected in ((1.5, 100), (inf, 10), (-inf, 10), (nan, 1001)):
        assert _run_ir(_CLASSIFY, "kind", v) == expected, v
    text = _gradient(_CLASSIFY, "f", ["x"])
    sig = CSignature.parse(_CLASSIFY, "f")
    specs = [ParamSpec("x", "array", (9,)), ParamSpec("n", "int", value=9)]
    check_gradient(sig.primal(build(_CLASSIFY)), sig.gradient(build(text), ["x"], []), specs, ["x"], set(),
                   np.random.default_rng(2), returns_float=True)
    assert "isnan(t0)" in text  # (x != x, printed as C's test of it)


def test_a_body_after_a_declarator_of_no_function_is_a_located_error():
    """doorfuzz seed 17000883: ``None { ... }`` (a mutated signature) parses as a definition whose
    declarator declares no function; every pass took it for one (an internal error)."""
    source = "/* a length */\nNone\n{\n    double s = 0.0;\n    return s;\n}\ndouble g(double x) { return x; }\n"
    rendered = _rendered(source, "g")
    assert "t.c:2:1: error: 'None' is followed by a function body but is not declared as a function" in rendered
    assert "hint: a definition names its result type" in rendered


def test_an_integer_constant_past_the_largest_long_is_a_located_error():
    """doorfuzz seed 17001450: ``int i = -9223372036854775809`` (a constant C gives no signed type)
    was carried as a 64-bit integer it does not fit, and the OpenMP loop it started did not compile."""
    source = "double f(const double *x, int n)\n{\n    double s = 0.0;\n" \
             "    for (long i = -9223372036854775809; i < n; i++) s += x[i];\n    return s;\n}\n"
    assert _diagnostics(source) == ["4:20: this integer constant is past the largest long (2^63 - 1); s2sad "
                                    "computes integers as 64-bit signed numbers"]


# A local function pointer assigned several named functions under branches and only called: an
# integer saying which, each call a choice (probe t28: an activation chosen at run time).
_CHOSEN_FUNCTIONS = """#include <math.h>
typedef double (*activation_fn)(double);
static double sigmoid(double z) { return 1.0 / (1.0 + exp(-z)); }
static double softsign(double z) { return z / (1.0 + fabs(z)); }
double f(const double *w, const double *x, int n, int mode)
{
    activation_fn act = sigmoid;
    double (*outer)(double);
    if (mode == 1) act = tanh;
    else if (mode == 2) act = &softsign;
    outer = mode > 0 ? sigmoid : softsign;
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        double a = act(w[i] * x[i]);
        s += a * (*act)(a) + outer(a * x[i]);
    }
    return s;
}
"""


@needs_gcc
@pytest.mark.parametrize("mode", [0, 1, 2])
def test_a_function_pointer_chosen_among_named_functions_is_a_choice_at_each_call(mode):
    from fd import ParamSpec, check_gradient

    source = _CHOSEN_FUNCTIONS
    text = _gradient(source, "f", ["w"])
    assert "act == 0 ? sigmoid(" in text or "act == 0" in text
    sig = CSignature.parse(source, "f")
    specs = [ParamSpec("w", "array", (5,)), ParamSpec("x", "array", (5,)), ParamSpec("n", "int", value=5),
             ParamSpec("mode", "int", value=mode)]
    check_gradient(sig.primal(build(source)), sig.gradient(build(text), ["w"], []), specs, ["w"], set(),
                   np.random.default_rng(mode), returns_float=True)


# void *params as GSL writes right-hand sides: the one struct type its casts give it (c_void_params).
_VOID_PARAMS = """#include <math.h>
typedef struct { double k; double c; } DecayParams;

static int decay_rhs(double t, const double y[], double dydt[], void *params)
{
    const DecayParams *P = (const DecayParams *)params;
    dydt[0] = -P->k * y[0] + P->c * sin(t);
    return 0;
}

static void euler(int (*f)(double, const double *, double *, void *), void *params, double *y, double t1, int n)
{
    double h = t1 / n, dy[1];
    for (int i = 0; i < n; i++) {
        f(i * h, y, dy, params);
        y[0] += h * dy[0];
    }
}

double f(double k, double y0, double c)
{
    DecayParams P = {k, c};
    double y[1] = {y0};
    euler(decay_rhs, (void *)&P, y, 1.0, 20);
    euler(decay_rhs, &P, y, 2.0, 10);
    return y[0] * y[0];
}
"""


@needs_gcc
def test_a_void_pointer_parameter_holding_one_struct_type_is_a_pointer_to_it():
    from fd import ParamSpec, check_gradient

    text = _gradient(_VOID_PARAMS, "f", ["k", "y0", "c"])
    assert "void *params" not in text and "const DecayParams *params" in text
    sig = CSignature.parse(_VOID_PARAMS, "f")
    specs = [ParamSpec("k", "float", low=0.3, high=1.0), ParamSpec("y0", "float", low=1.0, high=2.0),
             ParamSpec("c", "float")]
    check_gradient(sig.primal(build(_VOID_PARAMS)), sig.gradient(build(text), ["k", "y0", "c"], []), specs,
                   ["k", "y0", "c"], set(), np.random.default_rng(7), returns_float=True)


def test_a_table_whose_values_fail_is_one_located_error():
    """doorfuzz seed 17100532: a file-scope table with a constant too large was declared again after
    its values failed (an internal error: declared twice)."""
    source = ("static const int offsets[] = {-2, 99999999999999999999999999};\n"
              "double f(const double *x, int n) { double s = 0.0; for (int i = 2; i < n; i++) "
              "s += x[i + offsets[i % 2]]; return s; }\n")
    assert _diagnostics(source) == ["1:35: this integer constant is too large for any C integer type"]


# Writes C forbids (a const object), each beside writes it allows: through a const struct's
# pointer member, a const pointer's own elements' neighbours declared without const.
_CONST_DECLS = """typedef struct { double x; double y; } V;
typedef struct { int n; double *w; double m[3]; const double *cw; } R;
double f(double *x, const double A[4][4], const double **C, double **D, const V *cv, V *v, const R *r, R *q)
{
    D[0][0] = 1.0; v->x = 2.0; r->w[0] = 3.0; q->m[1] = 4.0; q->w[0] = 5.0; *x = 6.0;
    %s
    return x[0] + A[1][1] + C[0][0] + D[0][0] + cv->y + v->x + r->m[0] + q->w[0] + r->w[0];
}
"""


@pytest.mark.parametrize("write, expected", [
    ("", None),
    ("C[0][1] = 1.0;", "'C[0][1]' cannot be assigned: it is const ('C' is declared 'const double **')"),
    ("A[1][2] += 1.0;", "'A[1][2]' cannot be assigned: it is const ('A' is declared 'const double [4][4]')"),
    ("cv->x = 1.0;", "'cv->x' cannot be assigned: it is const ('cv' is declared 'const V *')"),
    ("(*cv).y++;", "'(*cv).y' cannot be assigned: it is const ('cv' is declared 'const V *')"),
    ("r->m[2] = 1.0;", "'r->m[2]' cannot be assigned: it is a member of a const struct"),
    ("r->n = 1;", "'r->n' cannot be assigned: it is a member of a const struct"),
    ("q->cw[0] = 1.0;", "'q->cw[0]' cannot be assigned: it is const (the member 'cw' is declared 'const double *')"),
])
def test_a_write_to_a_const_object_is_a_located_error(write, expected):
    """doorfuzz seed 17404413: ``a->type = ...`` of a ``const Particle *a`` (which gcc refuses) gave
    a gradient that assigned the const struct too and did not compile."""
    source = _CONST_DECLS % write
    if expected is None:
        _gradient(source, "f", ["x"])  # every write C allows lowers
        return
    rendered = _rendered(source)
    line, col = rendered.split("t.c:", 1)[1].split(":")[:2]
    assert line == "6" and int(col) >= 5 and f"error: {expected}" in rendered, rendered
    assert "hint: " in rendered


def test_a_prototype_with_a_parameter_of_no_type_is_a_located_error():
    """doorfuzz seed 17506085: ``int bucket(doublet);`` (a space deleted: an old-style parameter
    list of names) was an internal error where the function is called."""
    source = ("int bucket(doublet);\n"
              "double f(const double *x, int n)\n{\n    double s = 0.0;\n"
              "    for (int i = 0; i < n; i++)\n        s += x[i] * bucket(x[i]);\n    return s;\n}\n")
    assert _diagnostics(source) == ["6:21: cannot call 'bucket', defined outside t.c: 'bucket' is declared with "
                                    "'doublet', a parameter of no type (old-style C), so its arguments' types are "
                                    "not known"]


def test_a_struct_held_function_passed_on_from_an_unknown_struct_stays_refused():
    """``run`` gets a struct of a known function from ``f`` and one of an unknown function from
    ``g`` (a parameter): no call of it may miss the function, so nothing is rewritten."""
    source = _MEMBER_FUNCTIONS.replace(
        "double f(const double *p, const double *y0, int steps)",
        "static void g(const OdeSystem *s, double *y) { run(s, 0.1, 3, y); }\n"
        "double f(const double *p, const double *y0, int steps)").replace(
        "    return y[0] * z[1] + y[1];", "    g(&a, z);\n    return y[0] * z[1] + y[1];")
    text = _gradient(source, "f", ["p"])
    assert "run_lotka(" in text  # g passes a's function on: known after all
    unknown = _MEMBER_FUNCTIONS.replace(
        "double f(const double *p, const double *y0, int steps)",
        "static void g(OdeSystem s, double *y) { s.n = 2; run(&s, 0.1, 3, y); }\n"
        "double f(const double *p, const double *y0, int steps)")
    assert any("rhs_fn" in m for m in _diagnostics(unknown)), _diagnostics(unknown)


# Probe p20 (reduced): two restrict parameters naming one array, both only read (valid C). The
# gradient's shadows were restrict too, and both are d_x, written: gcc -O3 -fno-inline computed
# d_x = x, not 2x (and -Wrestrict warned at the call). Shadows are never restrict.
RESTRICT_PAIR = """
static double dot(int n, const double *restrict a, const double *restrict b)
{
    double s = 0;
    for (int i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
}

double sumsq(int n, const double *x)
{
    return dot(n, x, x);
}
"""


@pytest.mark.skipif(not have_gcc(), reason="gcc not available")
def test_shadows_of_restrict_parameters_passed_one_array_are_not_restrict():
    text = pipeline.gradient_source(RESTRICT_PAIR, "dot.c", "sumsq", ["x"], "c")
    assert "const double *restrict a, double *d_a," in text, text
    lib = build(text, extra=("-O3", "-fno-inline"))
    grad = CFunction(lib, "grad_sumsq", ["int", "double *", "double *", "double"])
    x = np.array([0.5, -1.25, 2.0, 3.5, -0.75])
    d_x = np.zeros_like(x)
    grad(5, x, d_x, 1.0)
    assert np.allclose(d_x, 2.0 * x), d_x


# Probe p09 (ADBench's GMM: for (int j = 1; j <= p; j++) with double p): a floating-point loop
# bound, which C compares with the counter converted to double, is the integer bound that
# compares alike (ceil or floor); was a located error.
FLOAT_BOUNDS = """
double f(double a, double p)
{
    double s = 0.0;
    for (int j = 1; j <= p; j++)
        s += a * j;
    for (int j = 0; j < p; j++)
        s += a * a;
    for (int j = 10; j > p; j--)
        s -= a * j;
    for (int j = 10; j >= p; j -= 2)
        s += 0.5 * a * a * j;
    return s;
}
"""


@pytest.mark.skipif(not have_gcc(), reason="gcc not available")
@pytest.mark.parametrize("p", [-2.5, 0.0, 1.0, 3.0, 3.5, 4.999, 7.25, 12.0])
def test_a_floating_point_loop_bound_counts_as_c_compares(p):
    primal = CFunction(build(FLOAT_BOUNDS), "f", ["double", "double"], "double")
    text = pipeline.gradient_source(FLOAT_BOUNDS, "bounds.c", "f", ["a"], "c")
    grad = CFunction(build(text), "grad_f", ["double", "double *", "double", "double"])
    a, h = 0.7, 1e-6
    d_a = Out(0.0)
    grad(a, d_a, p, 1.0)
    want = (primal(a + h, p) - primal(a - h, p)) / (2 * h)
    assert np.isclose(d_a.value, want, rtol=1e-7, atol=1e-9), (d_a.value, want)
