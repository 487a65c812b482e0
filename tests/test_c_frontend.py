"""The C front end: preprocessing, lowering shapes, diagnostics, and the CLI on .c files.

Numerics of C input are checked per golden case (tests/test_golden_c.py); this
file checks what those cannot show: which IR shapes C constructs become (a
counted ``for`` stays a ``for`` op; loops with side-effecting tests become
``while``), that the preprocessor keeps lines and columns, that every
unsupported construct gives one located diagnostic with a hint and never a
traceback, and that Python input with shape annotations gives compilable C.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cbuild import compile_c, have_gcc
from s2sad.pipeline import parse_source
from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError
from s2sad.parse.c_frontend import list_c_functions
from s2sad.ssa.interp import Interpreter
from s2sad.parse.c_preprocess import preprocess, strip_comments
from s2sad.ssa.printer import print_module
from s2sad.ssa.verifier import verify_module

ROOT = Path(__file__).resolve().parent.parent


def _ir(source: str, func: str) -> str:
    module = parse_source(source, "t.c", func)
    verify_module(module)
    return print_module(module)


def _ops(source: str, func: str) -> list[str]:
    module = parse_source(source, "t.c", func)
    return [op.name for op in module.functions[func].walk()]


def _diagnostics(source: str, func: str = "f") -> list[str]:
    with pytest.raises(DiagnosticError) as info:
        parse_source(source, "t.c", func)
    return [f"{d.loc.line}:{d.loc.col}: {d.message}" if d.loc else d.message for d in info.value.diagnostics]


# -- preprocessing -------------------------------------------------------------------------------

def test_comments_become_spaces_and_keep_columns():
    src = "a /* x\ny */ b // c\n\"//s\""
    out = strip_comments(src)
    assert out.split("\n")[0] == "a     "
    assert out.split("\n")[1] == "     b     "
    assert out.split("\n")[2] == "\"//s\""


def test_preprocessor_keeps_line_numbers_and_records_macros():
    src = "#include <math.h>\n#define N 3\n#define SCALE (2.0 * N)\n#pragma s2sad checkpoint binomial(4)\n" \
          "#ifdef NOPE\nint broken(\n#endif\ndouble f(double *x) { return x[0] * SCALE; }\n"
    pre = preprocess(src, "t.c")
    assert set(pre.macros) == {"N", "SCALE"}
    assert pre.pragmas == {4: "s2sad checkpoint binomial(4)"}
    assert pre.includes == ["math.h"]
    user = pre.text.split('#line 1 "t.c"\n', 1)[1].split("\n")
    assert user[7] == "double f(double *x) { return x[0] * SCALE; }"
    assert "broken" not in pre.text


def test_macros_are_constants_where_used():
    ir = _ir("#define N 3\n#define SCALE (2.0 * N)\ndouble f(double *x) { return x[0] * SCALE + M_PI; }", "f")
    assert "{value = 6.0}" in ir and "3.14159" in ir


def test_infinity_and_float_limits_are_known():
    ir = _ir("double f(double *x) { return x[0] > -INFINITY ? x[0] * DBL_EPSILON : DBL_MAX; }", "f")
    assert "inf" in ir and "2.220446049250313e-16" in ir and "1.7976931348623157e+308" in ir
    assert "{value = inf}" in _ir("double f(double *x) { return x[0] + HUGE_VAL; }", "f")


def test_type_macros_and_gnu_spellings_are_substituted():
    src = "#define real double\nstatic __inline__ real f(const real *__restrict__ x) { return x[0]; }"
    assert "c_params = [\"const double *restrict\"]" in _ir(src, "f")


def test_functions_are_listed_in_source_order():
    src = "static double g(double a) { return a; }\nint proto(int);\ndouble f(double *x) { return g(x[0]); }"
    assert list_c_functions(src, "t.c") == ["g", "f"]


# -- lowering shapes -----------------------------------------------------------------------------

def test_counted_for_loop_stays_a_for_op():
    src = "double f(const double *x, int n) { double s = 0; for (int i = 0; i <= n - 1; i += 1) s += x[i]; " \
          "return s; }"
    ops = _ops(src, "f")
    assert "for" in ops and "while" not in ops


def test_downward_loop_with_step_two_is_a_for_op():
    src = "double f(const double *x, int n) { double s = 0; for (int i = n - 1; i >= 0; i -= 2) s += x[i]; " \
          "return s; }"
    assert "for" in _ops(src, "f")


def test_loop_with_moving_bound_or_break_is_a_while_op():
    moving = "double f(const double *x, int n) { double s = 0; for (int i = 0; i < n; i++) { s += x[i]; n--; } " \
             "return s; }"
    breaking = "double f(const double *x, int n) { double s = 0; for (int i = 0; i < n; i++) { if (x[i] < 0) " \
               "break; s += x[i]; } return s; }"
    for src in (moving, breaking):
        ops = _ops(src, "f")
        assert "while" in ops and "for" not in ops


def test_pointer_walking_becomes_an_index():
    src = "double f(const double *x, int n) { double s = 0; for (const double *p = x; p < x + n; p++) " \
          "s += *p; return s; }"
    ir = _ir(src, "f")
    assert "load(%x, %p" in ir


def test_subarray_argument_is_a_view():
    src = "static double g(const double *v) { return v[0] * v[1]; }\n" \
          "double f(const double *x, int n) { double s = 0; for (int i = 0; i < n; i++) s += g(&x[2 * i]) " \
          "+ g(x + 1); return s; }"
    ir = _ir(src, "f")
    assert ir.count("view(") == 2


def test_int_parameters_keep_their_declared_c_types():
    ir = _ir("#include <stddef.h>\nfloat f(const float *x, size_t n, int k, unsigned u) { return x[n - 1]; }", "f")
    assert 'c_params = ["const float *", "size_t", "int", "unsigned"], c_result = "float"' in ir


# -- diagnostics ---------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "body, expected",
    [
        # Bit operations work on integers (golden/c/shifts_and_masks, golden/c/bitwise_ops).
        ("return x[0] >> 1;", "'>>' needs integer operands"),
        ("int k = 2; k |= 1.5; return x[k];", "'|' needs integer operands"),
        ("return x[~0.5 > 1];", "'~' needs an integer operand"),
        ("int k = 1; switch (k) { case 0: for (;;) { case 1: break; } } return x[0];",
         "a 'case' label inside a nested statement of the switch is not supported"),
        ("goto end; end: return x[0];", "goto is not supported"),
        ("return foo(x[0]);", "cannot differentiate through call to 'foo': its source is not in t.c"),
        ("int k = 0; scanf(\"%d\", &k); return x[k];", "'scanf' is not supported"),
        ("return x[0] + printf(\"%f\", x[0]);", "the value of 'printf' is not supported"),
        ("double *p = x; double *q = &p; return q[0];", "taking the address of the pointer 'p' is not supported"),
        ("double **pp = 0; return x[0];", "a local pointer to pointers is supported only as a matrix whose rows are"),
        ("void *v = x; return x[0];", "'void *' pointers are not supported"),
        ("g_total = x[0]; return x[0];", "'g_total' is a global variable, and this writes it"),
        ("double *p = &g_total; return p[0];", "taking the address of the global variable 'g_total'"),
        ("static double c = 1; c *= x[1]; return c * x[0];", "'static' local variables that the function writes"),
        ("double s; return s + x[0];", "'s' is used before it is given a value"),
        ("return y + x[0];", "'y' is not declared"),
        ("double *w = malloc(8); return w[0] + x[0];", "malloc's size must be count * sizeof(element)"),
        ("double *w = aligned_alloc(64, 64); return w[0] + x[0];",
         "aligned_alloc's size must be count * sizeof(element)"),
        ("double s = 0.0; posix_memalign((void **)&s, 64, 8 * sizeof(double)); return s + x[0];",
         "posix_memalign must be given the address of a pointer variable"),
        ("double *w = malloc(2 * sizeof(double)); w = realloc(w, 4 * sizeof(double)); return w[0] + x[0];",
         "realloc is not supported: s2sad needs each work array's size where it is allocated"),
        ("double a[2][2] = {{1, 2}, {3, 4}}; return a[0] + x[0];", "'a[0]' is a row of 'a', not a number"),
        ("double a[2][2] = {{1, 2}, {3, 4}}; return a[0][1][0] + x[0];", "'a' has 2 dimension(s), indexed with 3"),
        ("return 1.5 % x[0];", "'%' needs integer operands"),
    ],
)
def test_unsupported_constructs_are_located(body, expected):
    src = "double g_total;\ndouble f(double *x) {\n    " + body + "\n}\n"
    messages = _diagnostics(src)
    assert any(expected in m and m.startswith("3:") for m in messages), messages


# -- structs -------------------------------------------------------------------------------------

_BODY = "struct B { double pos[3]; double m; };\n"


def test_struct_member_is_a_field_index_into_flat_scalars():
    src = _BODY + "double f(const struct B *b, int n) { return b[n - 1].pos[2] * b->m; }"
    ir = _ir(src, "f")
    assert 'field' in ir and 'path = ".pos[]"' in ir and "coefs = [4, 1]" in ir and 'path = ".m"' in ir
    module = parse_source(src, "t.c", "f")
    b = np.arange(8, dtype=float)  # two structs: pos = 0, 1, 2 and 4, 5, 6; m = 3 and 7
    assert Interpreter(module).run(module.functions["f"], [b, 2]) == [6.0 * 3.0]
    assert module.functions["f"].attrs["c_structs"] == [
        ["struct B", "struct B {\n    double pos[3];\n    double m;\n};", 4]]


def test_struct_pointer_arithmetic_counts_structs():
    src = _BODY + "static double m(const struct B *b) { return b->m; }\n" \
        "double f(const struct B *b, int n) { double s = 0; for (int i = 0; i < n; i++) s += m(b + i); return s; }"
    module = parse_source(src, "t.c", "f")
    assert Interpreter(module).run(module.functions["f"], [np.arange(8, dtype=float), 2]) == [10.0]


@pytest.mark.parametrize(
    "source, expected",
    [
        # Mixed members, pointer members and struct values are read (c_records, test_c_structs.py).
        ("struct P { double k; double *d; };\ndouble f(struct P *p) { return p[1].k + p++->k; }",
         "'p' points to an array of struct P, used here as a value (moving it, p++"),
        ("struct P { struct P *next; };\ndouble f(struct P *p) { return 0.0; }",
         "the member 'next' of struct P is a pointer to something other than numbers"),
        ("struct P { double k[2]; };\nstruct P f(double a) { struct P p = {{a, a}}; return p; }",
         "functions returning a struct (struct P) with array or pointer members are not supported"),
        ("struct P { double k; };\ndouble f(double *x) { struct P q[2][2]; return x[0]; }",
         "local arrays of struct P of more than one dimension are not supported"),
        (_BODY + "double f(struct B *b) { return b->mass; }", "struct B has no member 'mass'"),
        (_BODY + "double f(struct B *b) { return b->pos; }", "'b->pos' is an array, used as a number"),
        # (b[0] = b[1] copies a struct, number by number: test_c_struct_values's pointer_to_pointer)
        (_BODY + "double f(struct B *b, double *x) { return b->m * x->m; }", "'->' needs a pointer to a struct"),
        ("struct V { double x, y; };\nstruct B { double pos[3]; struct V v; };\n"
         "double g(double *p) { return p[0]; }\ndouble f(struct B *b) { return g(&b->v); }",
         "the address of a struct member that is a struct or a 2-D array is not supported"),
        ("double f(struct Q *q) { return 0.0; }", "'struct Q' is not defined in this file"),
    ],
)
def test_struct_problems_are_reported_not_crashed(source, expected):
    assert any(expected in m for m in _diagnostics(source)), _diagnostics(source)


def test_a_missing_local_header_is_reported_and_function_like_macros_expand(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # headers are looked for beside the file: here, no mine.h
    src = "#include \"mine.h\"\n#define SQ(a) ((a) * (a))\ndouble f(double *x) { return SQ(x[0]); }"
    assert _diagnostics(src) == ['1:10: cannot find "mine.h"']
    assert "mul" in _ops(src.split("\n", 1)[1], "f")


def test_direct_recursion_is_accepted_and_mutual_recursion_reported_at_the_call():
    src = "double f(double *x, int n) {\n    if (n == 0) return x[0];\n    return f(x, n - 1) * 2.0;\n}"
    f = parse_source(src, "t.c", "f").functions["f"]
    assert [op.attrs["callee"] for op in f.walk() if op.name == "call"] == ["f"]
    src = ("double g(double *x, int n);\ndouble f(double *x, int n) {\n    if (n == 0) return x[0];\n"
           "    return g(x, n - 1) * 2.0;\n}\ndouble g(double *x, int n) {\n    return f(x, n) + 1.0;\n}")
    messages = _diagnostics(src)
    assert any(m.startswith("4:12: mutually recursive call to 'g' is not supported (g -> f -> g)")
               or m.startswith("7:12: mutually recursive call to 'f' is not supported (f -> g -> f)")
               for m in messages), messages


def test_missing_return_and_void_return_value():
    assert any("can reach its end without returning" in m
               for m in _diagnostics("double f(double *x) { if (x[0] > 0) return 1.0; }"))
    assert any("a void function cannot return a value" in m
               for m in _diagnostics("void f(double *x) { return x[0]; }"))


def test_syntax_error_is_located():
    messages = _diagnostics("double f(double *x) {\n    return x[0]\n}\n")
    assert messages == ["3:1: syntax error before '}'"]


def test_unknown_function_lists_candidates():
    with pytest.raises(DiagnosticError) as info:
        parse_source("double g(double *x) { return x[0]; }", "t.c", "f")
    assert "functions in this file: g" in info.value.render()


# -- the command line on C files -------------------------------------------------------------------

def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "s2sad", *args], capture_output=True, text=True, cwd=cwd,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


def test_cli_c_in_c_out_and_python_out(tmp_path):
    (tmp_path / "dot.c").write_text("double dot(const double *x, const double *y, int n) {\n"
                                    "    double s = 0.0;\n    for (int i = 0; i < n; i++) s += x[i] * y[i];\n"
                                    "    return s;\n}\n")
    r = _cli("grad", "dot.c", "--wrt", "x", "-o", "grad_dot.c", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "grad_dot.c").read_text()
    assert "void grad_dot(const double *x, double *d_x, const double *y, int n, double d_return)" in text
    r = _cli("grad", "dot.c", "--wrt", "x", cwd=tmp_path)  # stdout, C by default for C input
    assert r.returncode == 0 and "void grad_dot(" in r.stdout
    r = _cli("grad", "dot.c", "--wrt", "x", "-o", "grad_dot.py", cwd=tmp_path)
    assert r.returncode == 0 and "def grad_dot(x, d_x, y, n, d_return=1.0):" in (tmp_path / "grad_dot.py").read_text()


def test_cli_c_error_exit_status_and_no_file(tmp_path):
    (tmp_path / "bad.c").write_text("double f(double *x) {\n    return x[0] ^ 1;\n}\n")
    r = _cli("grad", "bad.c", "--wrt", "x", "-o", "out.c", cwd=tmp_path)
    assert r.returncode == 1
    assert "bad.c:2:12: error: '^' needs integer operands" in r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "out.c").exists()
    r = _cli("grad", "k.f90", "--wrt", "x", cwd=tmp_path)  # CUDA (.cu) is read now: tests/test_cuda.py
    assert r.returncode == 2 and "unknown input language (give a .py, .c, .h, .cu or .cuh file)" in r.stderr


# -- Python in, C out, with shape annotations ------------------------------------------------------

@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
def test_python_shape_annotations_give_c_sizes():
    src = 'def f(x: "f64[n]", A: "f64[n, m]", n: int, m: int) -> float:\n    s = 0.0\n' \
          "    for k in range(len(x)):\n        s += x[k] * A[k, m - 1]\n    return s\n"
    text = pipeline.gradient_source(src, "f.py", "f", ["x", "A"], target="c")
    assert "// Array sizes: x, d_x: [n]; A, d_A: [n][m] (row-major)." in text
    compile_c(text)


def test_define_names_are_kept_in_c_output_and_never_taken_by_temporaries():
    src = ("#define t0 2.0\n#define N 3\n"
           "double f(const double *x) { double s = 0; for (int i = 0; i < N; i++) s += t0 * x[i] * x[i] * x[i];"
           " return s; }\n")
    code = pipeline.gradient_source(src, "t.c", "f", ["x"], "c", pipeline.Options())
    assert "#define t0 2.0" in code and "* t0" in code
    compile_c(code)  # a temporary named t0 would not compile beside the macro


def test_aligned_alloc_is_malloc_to_the_gradient():
    """C11's aligned_alloc(align, n * sizeof(T)) allocates as malloc(n * sizeof(T)) does; the
    gradient's own arrays are malloc'd (alignment is no part of the derivative)."""
    body = ("double f(const double *x, int n) {{\n    double *w = {alloc};\n"
            "    for (int i = 0; i < n; i++) w[i] = x[i] * x[i];\n    double s = 0.0;\n"
            "    for (int i = 0; i < n; i++) s += w[i] * x[i];\n    free(w);\n    return s;\n}}\n")
    texts = [pipeline.gradient_source("#include <stdlib.h>\n" + body.format(alloc=a), "t.c", "f", ["x"], "c")
             for a in ("aligned_alloc(64, n * sizeof(double))", "malloc(n * sizeof(double))")]
    assert texts[0].split("void grad_f")[1] == texts[1].split("void grad_f")[1]


# -- one parse per translation ---------------------------------------------------------

_TWO_ENTRIES = """
static double sq(double v) { return v * v; }
double energy(const double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) s += sq(x[i]);
    return s;
}
static double unused(const double *x) { return x[0]; }
"""


def _count_parses(monkeypatch) -> list[str]:
    from s2sad.parse import c_frontend

    made: list[str] = []
    original = c_frontend.CFile.__init__

    def counting(self, source, filename, *args, **kwargs):
        made.append(filename)
        original(self, source, filename, *args, **kwargs)

    monkeypatch.setattr(c_frontend.CFile, "__init__", counting)
    return made


def test_a_translation_parses_the_file_once(monkeypatch):
    """Choosing the function (no --func: the file's one non-static function) asks two listings
    of the file, and the front end lowers it: one parse serves all three, and a second
    translation reads the file again."""
    made = _count_parses(monkeypatch)
    first = pipeline.gradient_source(_TWO_ENTRIES, "lib.c", None, ["x"], "c")
    assert "grad_energy" in first and made == ["lib.c"]
    again = pipeline.gradient_source(_TWO_ENTRIES, "lib.c", None, ["x"], "c")
    assert again == first and made == ["lib.c", "lib.c"]


def test_the_front_end_never_lowers_a_parse_it_changed_before(monkeypatch):
    """parse_c removes functions from the file it lowers: a second lowering in the same
    translation parses the file again instead of reading what the first one left."""
    from s2sad.parse.c_frontend import parse_c
    from s2sad.parse.translation import one_translation

    made = _count_parses(monkeypatch)
    with one_translation():
        assert list_c_functions(_TWO_ENTRIES, "lib.c") == ["sq", "energy", "unused"]
        parse_c(_TWO_ENTRIES, "lib.c", "energy")
        module = parse_c(_TWO_ENTRIES, "lib.c", "unused")
    assert list(module.functions) == ["unused"] and made == ["lib.c", "lib.c"]


def test_a_translation_keeps_no_parse_of_its_file_once_it_ends():
    """The parses a translation keeps for its own questions go with it: a process that translates
    many files (an API user's, a benchmark's) does not hold every syntax tree it ever made."""
    from s2sad.parse import python_frontend
    from s2sad.parse.c_frontend import _parses

    pipeline.gradient_source(_TWO_ENTRIES, "lib.c", "energy", ["x"], "c")
    pipeline.gradient_source("def f(x):\n    return x * x\n", "f.py", None, ["x"], "py")
    assert not _parses
    assert python_frontend._parse.cache_info().currsize == 0
    assert python_frontend._function_names.cache_info().currsize == 0


@pytest.mark.parametrize("declaration", ["double complex z = 0.0;", "_Complex double z = 0.0;",
                                         "cplx z = 0.0;", "double _Complex *p = 0;"])
def test_complex_numbers_are_a_located_error_naming_them(declaration):
    """C99's complex types: ``complex`` (which the parser does not read) is named as such at the
    word, not as a syntax error at the variable; ``_Complex`` (which it reads) was read as a
    plain double, a silently wrong gradient wherever the imaginary part mattered."""
    source = "#include <complex.h>\ntypedef double _Complex cplx;\ndouble f(double *x) {\n    " + declaration \
        + "\n    return x[0];\n}\n"
    with pytest.raises(DiagnosticError) as info:
        parse_source(source, "t.c", "f")
    (d,) = info.value.diagnostics
    assert d.message == "complex numbers (double complex, _Complex) are not supported", d
    assert d.loc.line == 4 and "two doubles" in d.hint, d
    if declaration.startswith("double complex"):
        assert d.loc.col == 5 + declaration.index("complex"), d
