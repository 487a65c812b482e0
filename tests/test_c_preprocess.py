"""s2sad's C preprocessor: headers, macros and conditions, as a C compiler reads them.

The macro expander (``c_macros``) is checked against the C standard's own examples and
the cases that trip simple expanders (self-reference, argument pre-expansion, ``#``,
``##``, calls spread over lines); ``#if`` (``c_condition``) against C's integer
arithmetic. Headers are real files in a temporary directory: found beside the including
file, then on ``-I`` paths, with guards and ``#pragma once``; a header's types, constants
and helpers are known to the front end, its problems are reported at its own lines, and
the C output compiles without it. Every error case checks the whole message: where, what
and the hint.
"""

from __future__ import annotations

import pickle
import textwrap
from pathlib import Path

import pytest
from cbuild import compile_c, have_gcc

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError
from s2sad.parse.c_condition import ConditionProblem, evaluate
from s2sad.parse.c_macros import Expander, MacroProblem, define, spell, tokenize
from s2sad.parse.c_preprocess import CFlags, macro_flag_problem, preprocess
from s2sad.ssa.printer import print_module

needs_gcc = pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")


def _expand(definitions: list[str], text: str) -> str:
    table = {d.name: d for d in (define(tokenize(line, 0)) for line in definitions)}
    return spell(Expander(table).expand(tokenize(text, 1)))


def _code(source: str, **kw) -> list[str]:
    """The lines pycparser reads (after the prelude)."""
    return preprocess(source, "t.c", **kw).text.split('#line 1 "t.c"\n', 1)[1].split("\n")


def _problems(source: str, filename: str = "t.c", **kw) -> list[str]:
    with pytest.raises(DiagnosticError) as info:
        pipeline.parse_source(source, filename, "f", **kw)
    return [f"{d.loc}: {d.message} | {d.hint}" if d.loc else f"{d.message} | {d.hint}"
            for d in info.value.diagnostics]


def _write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


# -- function-like macros ----------------------------------------------------------------------

def test_function_like_macros_expand_with_their_arguments_pre_expanded():
    assert _expand(["SQR(x) ((x) * (x))"], "SQR(a + 1)") == "((a + 1) * (a + 1))"
    assert _expand(["SQR(x) ((x) * (x))"], "SQR(SQR(b))") == "((((b) * (b))) * (((b) * (b))))"
    assert _expand(["IDX(i, j) ((i) * m + (j))"], "A[IDX(i, IDX(j, k))]") == "A[((i) * m + (((j) * m + (k))))]"
    assert _expand(["SQR(x) x*x"], "SQR") == "SQR"  # the name without a call is a name
    assert _expand(["NEG(a) -a"], "NEG(-x)") == "- -x"  # never pasted into --
    assert _expand(["F(a, b) a + b"], "F((1, 2), (3))") == "(1, 2) + (3)"


def test_a_macro_never_expands_inside_itself():
    assert _expand(["x (x + 1)"], "x * 2") == "(x + 1) * 2"
    assert _expand(["f(a) a + f(a)"], "f(1)") == "1 + f(1)"
    assert _expand(["A B", "B A"], "A B") == "A B"


def test_the_c_standards_example_of_rescanning():  # C99 6.10.3.5, example 3 (x is 2 there)
    defs = ["x 2", "f(a) f(x * (a))", "g f", "z z[0]", "h g(~", "m(a) a(w)", "w 0,1", "t(a) a"]
    assert _expand(defs, "f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);") == \
        "f(2 * (y+1)) + f(2 * (f(2 * (z[0])))) % f(2 * (0)) + t(1);"
    assert _expand(defs, "g(x+(3,4)-w) | h 5) & m (f)^m(m);") == \
        "f(2 * (2+(3,4)-0,1)) | f(2 * (~ 5)) & f(2 * (0,1))^m(0,1);"


def test_stringizing_pasting_and_variable_arguments():
    defs = ["CAT(a, b) a ## b", "STR(x) #x", "XSTR(x) STR(x)", "N 4", "V(f, ...) f(__VA_ARGS__)"]
    assert _expand(defs, "CAT(foo, 1) CAT(, x) CAT(y, )") == "foo1 x y"
    assert _expand(defs, 'STR(N) XSTR(N) STR("a\\n")') == '"N" "4" "\\"a\\\\n\\""'
    assert _expand(defs, "V(g, 1, 2) V(h)") == "g(1, 2) h()"


def test_macro_misuse_is_reported_at_the_call():
    table = {"SQR": define(tokenize("SQR(x) x*x", 0))}
    with pytest.raises(MacroProblem) as info:
        Expander(table).expand(tokenize("y = SQR(1, 2);", 1))
    assert (info.value.token.col, info.value.message) == (5, "macro 'SQR' takes 1 argument, 2 given")
    with pytest.raises(MacroProblem, match="pasting '\\+' and '-' does not give a valid token"):
        _expand(["P(a, b) a ## b"], "P(+, -)")
    with pytest.raises(MacroProblem, match="'#' in macro 'S' is not followed by a parameter"):
        define(tokenize("S(x) #y", 0))


def test_calls_and_definitions_spread_over_lines_keep_the_line_numbers():
    src = "#define SUM3(a, b, c) \\\n    ((a) + (b) + \\\n     (c))\ndouble f(double *x) {\n    return SUM3(x[0],\n" \
          "                x[1], x[2]) * 2.0;\n}\n"
    code = _code(src)
    assert code[4] == "    return ((x[0]) + (x[1]) + (x[2])) * 2.0;" and code[5] == "" and code[6] == "}"
    assert "add" in print_module(pipeline.parse_source(src, "t.c", "f"))


def test_an_error_inside_an_expansion_points_at_the_call():
    src = "#define TWICE(e) (2.0 * (e))\ndouble f(double *x) {\n    return TWICE(x[0]) + TWICE(g(x[1]));\n}\n"
    (problem,) = _problems(src)
    assert problem.startswith("t.c:3:32: cannot differentiate through call to 'g': its source is not in t.c"
                              " | define g in this file")
    with pytest.raises(DiagnosticError) as info:
        pipeline.parse_source("#define BAD(e) (e + undefined_name)\ndouble f(double *x) { return BAD(x[0]); }",
                              "t.c", "f")
    d = info.value.diagnostics[0]
    assert (d.loc.line, d.loc.col, d.loc.end_col) == (2, 30, 39)  # the whole call BAD(x[0])
    assert "^~~~~~~~~" in info.value.render()


def test_unterminated_macro_call_is_a_located_error():
    src = "#define SQR(x) ((x) * (x))\ndouble f(double *x) {\n    return SQR(x[0];\n}\n"
    assert _problems(src) == ["t.c:3:12: unterminated call to macro 'SQR': its ')' is missing"
                              " | close the arguments of SQR(...) with ')'"]


def test_constants_stay_names_and_other_object_like_macros_expand_as_c_does():
    src = "#define N 4\n#define M N + 1\n#define SCALE (2.0 * N)\n#define real double\n" \
          "real f(const real *x) { return x[0] * (2 * M) * SCALE; }\n"
    pre = preprocess(src, "t.c")
    assert set(pre.macros) == {"N", "SCALE"}  # recorded: C output prints them by name
    assert _code(src)[4].startswith("double f(const double *x) { return x[0] * (2 * N + 1) * SCALE;")
    ir = print_module(pipeline.parse_source(src, "t.c", "f"))
    assert "{value = 9" in ir and "{value = 8.0}" in ir  # 2 * N + 1, not 2 * (N + 1)


def test_a_constant_redefined_along_the_file_is_expanded_where_each_definition_holds():
    src = "#define K 2\ndouble g(double *x) { return K * x[0]; }\n#undef K\n#define K 3\n" \
          "double f(double *x) { return g(x) + K * x[1]; }\n"
    assert "K" not in preprocess(src, "t.c").macros
    text = pipeline.gradient_source(src, "t.c", "f", ["x"], "c")
    assert "#define K" not in text and "d_x[1] += d_return * 3.0" in text and "d_x[0] += d_return * 2.0" in text


# -- conditions --------------------------------------------------------------------------------

def _holds(condition: str, defs: tuple[str, ...] = ()) -> bool:
    table = {d.name: d for d in (define(tokenize(line, 0)) for line in defs)}
    return evaluate(tokenize(condition, 1), Expander(table))


@pytest.mark.parametrize("condition, expected", [
    ("defined(A) && defined B", True),
    ("!defined(C) || C", True),
    ("A == 4 && B * 2 - 1 >= 5 && A / 3 == 1 && -A % 3 == -1", True),
    ("UNKNOWN == 0 && !UNKNOWN", True),
    ("(A << 2) == 16 && (A | 1) == 5 && (A ^ 5) == 1 && (~0 & 7) == 7", True),
    ("A > 3 ? B : 0", True),
    ("-1 < 0u", False),  # 0u makes the comparison unsigned, as in C
    ("0x10 == 16 && 010 == 8 && 'a' == 97", True),
    ("0 && 1 / 0", False),  # the side && does not need is not evaluated
    ("SQ(A) == 16", True),
    ("VERSION >= 2", False),
])
def test_if_conditions_compute_as_c_does(condition, expected):
    assert _holds(condition, ("A 4", "B 3", "SQ(x) ((x) * (x))", "VERSION 1")) is expected


@pytest.mark.parametrize("condition, message", [
    ("", "#if with no condition"),
    ("A +", "malformed #if condition: it ends where an operand is expected"),
    ("(1", "malformed #if condition: expected ')' at its end"),
    ("1 2", "malformed #if condition: unexpected '2'"),
    ("1.5 > 1", "'1.5' is not an integer: a #if condition computes with integers"),
    ("1 / 0", "division by zero in a #if condition ('/' by 0)"),
    ("defined(", "'defined' needs a macro name"),
])
def test_malformed_conditions_say_what_is_wrong(condition, message):
    with pytest.raises(ConditionProblem) as info:
        _holds(condition, ("A 4",))
    assert info.value.message == message


def test_if_elif_else_choose_one_group():
    src = "#define ORDER 2\n#if ORDER == 1\n#define W 1.0\n#elif ORDER == 2 && defined(ORDER)\n#define W 0.5\n" \
          "#else\n#define W 0.25\n#endif\n#if 0\n#if garbage (\n#endif\n#elif 1\n#define OK 1\n#endif\n" \
          "double f(double *x) { return W * x[0] * OK; }\n"
    pre = preprocess(src, "t.c")
    assert pre.macros["W"].body == "0.5" and "OK" in pre.macros


def test_condition_and_directive_errors_are_located_with_a_hint():
    assert _problems("#if N >\n#endif\ndouble f(double *x) { return x[0]; }") == [
        "t.c:1:7: malformed #if condition: it ends where an operand is expected | a #if condition is an "
        "integer expression over macros, defined(NAME) and literals"]
    assert _problems("#if 1\n#else\n#else\n#endif\n#ifndef X\n#error X is needed\n#endif\n"
                     "double f(double *x) { return x[0]; }") == [
        "t.c:3:1: '#else' after '#else' | #else is the last group of its #if",
        "t.c:6:1: #error X is needed | the #if conditions around it chose this #error (set macros with -D "
        "NAME=VALUE)"]
    assert _problems("#ifdef A\ndouble f(double *x) { return x[0]; }") == [
        "t.c:1:1: '#if' without '#endif' | close it with #endif in the same file"]


# -- headers -----------------------------------------------------------------------------------

HEADER_FILES = {
    "src/kernel.c": """\
        #include <math.h>
        #include "model.h"
        #include "model.h"
        #include "util/once.h"
        #include "util/once.h"

        real model_energy(const Particle *p, int n) {
            real e = 0;
            for (int i = 0; i < n; i++)
                e += HALF * p[i].m * (sq(p[i].v[0]) + sq(p[i].v[1]) + sq(p[i].v[2])) + cube(p[i].m);
            return e;
        }
        """,
    "src/model.h": """\
        #ifndef MODEL_H
        #define MODEL_H
        #include "util/types.h"
        #define HALF 0.5
        typedef struct { real v[DIM]; real m; } Particle;
        static inline real sq(real v) { return v * v; }
        extern real model_energy(const Particle *p, int n) __attribute__((pure));
        extern int model_calls;
        #endif
        """,
    "src/util/types.h": """\
        #pragma once
        __extension__ typedef double real;
        #define DIM 3
        """,
    "src/util/once.h": """\
        #pragma once
        static inline real cube(real x) { return x * x * x; }
        """,
}


def test_headers_are_read_beside_their_includer_with_guards_and_pragma_once(tmp_path):
    _write(tmp_path, HEADER_FILES)
    path = tmp_path / "src" / "kernel.c"
    pre = preprocess(path.read_text(), "kernel.c", str(path))
    assert pre.includes == ["math.h", "model.h", "util/types.h", "util/once.h"]
    assert set(pre.sources.files) == {"kernel.c", "model.h", "util/types.h", "util/once.h"}
    assert {"HALF", "DIM"} <= set(pre.macros) and pre.macros["DIM"].loc.file == "util/types.h"
    text = pipeline.gradient_source(path.read_text(), str(path), "model_energy", ["p"], "c")
    head = text.split("void grad_model_energy")[0]
    assert "typedef double real;\n\ntypedef struct {\n    real v[3];\n    real m;\n} Particle;" in head
    assert "#define HALF 0.5" in head and '#include "' not in text
    if have_gcc():
        compile_c(text)  # the output compiles on its own, without the headers


def test_include_paths_and_their_order(tmp_path):
    _write(tmp_path, {"a/main.c": '#include "cfg.h"\n#include <extra.h>\n'
                                  "double f(double *x) { return K * E * x[0]; }\n",
                      "a/cfg.h": "#define K 1.0\n", "inc1/cfg.h": "#define K 2.0\n", "inc1/extra.h": "#define E 3.0\n",
                      "inc2/extra.h": "#define E 4.0\n"})
    main = tmp_path / "a" / "main.c"
    flags = CFlags((str(tmp_path / "inc1"), str(tmp_path / "inc2")))
    pre = preprocess(main.read_text(), "main.c", str(main), flags)
    assert pre.macros["K"].body == "1.0" and pre.macros["E"].body == "3.0"  # beside the file first, then -I in order
    assert pre.macros["E"].loc.file == str(tmp_path / "inc1" / "extra.h")  # outside the file's folder: its path


def test_a_missing_header_names_the_directories_searched(tmp_path):
    _write(tmp_path, {"main.c": '#include "nowhere.h"\n#include <gsl/gsl_math.h>\ndouble f(double *x) '
                                '{ return x[0]; }\n'})
    main = tmp_path / "main.c"
    problems = _problems(main.read_text(), str(main), cflags=CFlags(("inc",)))
    assert problems == [
        f'main.c:1:10: cannot find "nowhere.h" | looked in {tmp_path} (beside main.c), inc (-I); add -I DIR '
        "for the directory that holds it",
        "main.c:2:10: unknown standard header <gsl/gsl_math.h> | s2sad knows assert.h, complex.h, ctype.h, "
        "cuda_runtime.h, errno.h, float.h, inttypes.h, limits.h, math.h, mpi.h, omp.h, stdbool.h, stddef.h, "
        "stdint.h, stdio.h, stdlib.h, string.h, sys/types.h, tgmath.h, time.h; "
        "a header of your own is read from a -I directory (looked in inc (-I))"]


def test_a_problem_in_a_header_names_the_header_and_shows_its_line(tmp_path):
    _write(tmp_path, {"main.c": '#include "helpers.h"\ndouble f(double *x) {\n    return twice(x[0]);\n}\n',
                      "helpers.h": "#define SQ(a) ((a) * (a))\nstatic double twice(double v) {\n"
                                   "    return SQ(v) + undefined_thing;\n}\n"})
    main = tmp_path / "main.c"
    with pytest.raises(DiagnosticError) as info:
        pipeline.parse_source(main.read_text(), str(main), "f")
    rendered = info.value.render()
    assert rendered.startswith("helpers.h:3:20: error: 'undefined_thing' is not declared")
    assert rendered.endswith("\n        return SQ(v) + undefined_thing;\n                       ^~~~~~~~~~~~~~~")
    _write(tmp_path, {"helpers.h": "static double twice(double v) {\n    return v $ 2;\n}\n"})
    with pytest.raises(DiagnosticError) as info:
        pipeline.parse_source(main.read_text(), str(main), "f")
    assert info.value.render().split("\n")[:2] == ["helpers.h:2:14: error: syntax error before '$'",
                                                   "        return v $ 2;"]


def test_a_header_without_a_guard_that_includes_itself_is_stopped(tmp_path):
    _write(tmp_path, {"main.c": '#include "loop.h"\ndouble f(double *x) { return x[0]; }\n',
                      "loop.h": '#include "loop.h"\n'})
    problems = _problems((tmp_path / "main.c").read_text(), str(tmp_path / "main.c"))
    assert problems == ['loop.h:1:10: #include nested too deeply at "loop.h" | a header that includes itself '
                        "needs an include guard or #pragma once"]


def test_functions_of_headers_do_not_make_the_choice_ambiguous(tmp_path):
    _write(tmp_path, {"k.c": '#include "h.h"\ndouble k(double *x) { return sq(x[0]); }\n',
                      "h.h": "static inline double sq(double v) { return v * v; }\n"})
    assert pipeline.choose_function((tmp_path / "k.c").read_text(), str(tmp_path / "k.c"), None) == "k"


def test_the_only_function_that_is_not_static_is_the_default():
    """`static` helpers are the file's own; the one function other files can call is the one meant."""
    src = ("static double sq(double v) { return v * v; }\n"
           "static double twice(double v) { return 2.0 * v; }\n"
           "double energy(double *x) { return sq(x[0]) + twice(x[1]); }\n")
    assert pipeline.choose_function(src, "model.c", None) == "energy"
    with pytest.raises(DiagnosticError) as info:  # two candidates: the choice stays the user's
        pipeline.choose_function(src.replace("static double twice", "double twice"), "model.c", None)
    assert "choose one with --func NAME (functions: sq, twice, energy)" in info.value.render()


# -- command-line macros and GNU extensions ----------------------------------------------------

def test_command_line_macros_apply_in_order_before_the_file():
    src = "#ifdef FAST\n#define W 2.0\n#else\n#define W 1.0\n#endif\ndouble f(double *x) { return W * SQ(x[0]) * N; }\n"
    flags = CFlags(macros=(("D", "FAST"), ("D", "N=3"), ("D", "SQ(v)=((v)*(v))"), ("D", "X"), ("U", "X")))
    pre = preprocess(src, "t.c", flags=flags)
    assert pre.macros["W"].body == "2.0" and pre.macros["N"].body == "3" and "X" not in pre.macros
    assert preprocess(src, "t.c", flags=CFlags(macros=(("D", "FAST"), ("U", "FAST"), ("D", "N"),
                                                        ("D", "SQ(v)=v")))).macros["W"].body == "1.0"
    assert macro_flag_problem("D", "1X=2") == "-D 1X=2: '1X' is not a macro name: macro names are identifiers"
    assert macro_flag_problem("U", "A=1") == "-U A=1: not a macro name"
    assert macro_flag_problem("D", "F(x=1") == "-D F(x=1: malformed parameter list of macro 'F'"


def test_gnu_attributes_and_extensions_are_dropped_keeping_columns():
    src = "static __inline__ double __attribute__((always_inline, unused)) g(double v) { return v; }\n" \
          "__extension__ double f(double *__restrict__ x) __attribute__((\n    pure)) ;\n" \
          "extern double ext_value;\nextern double ext_fn(double);\n" \
          "double f(double *__restrict__ x) { return g(x[0]) * 2.0; }\n"
    code = _code(src)
    assert code[0].index("g(double v)") == src.index("g(double v)") and "__attribute__" not in "".join(code)
    assert "mul" in print_module(pipeline.parse_source(src, "t.c", "f"))


def test_source_lines_of_several_files_survive_pickling(tmp_path):
    _write(tmp_path, {"m.c": '#include "h.h"\ndouble m(double *x) { return h(x); }\n',
                      "h.h": "static double h(double *x) { return x[0] * x[0]; }\n"})
    module = pipeline.parse_source((tmp_path / "m.c").read_text(), str(tmp_path / "m.c"), "m")
    copy = pickle.loads(pickle.dumps(module))
    assert copy.source_lines.of("h.h") == ["static double h(double *x) { return x[0] * x[0]; }"]
    assert list(copy.source_lines) == module.source_lines


STDINT_AND_LIMITS = r"""#include <stdint.h>
#include <limits.h>
#include <float.h>
#include <sys/types.h>
#include <time.h>
double f(const double *x, int n)
{
    double s = 0.0, lo = DBL_MAX;
    int_fast32_t cnt = 0;
    intmax_t big = LONG_MAX - INT_MAX + INT_MIN;
    for (intptr_t i = 0; i < n; i++) {
        s += x[i] * x[i];
        if (x[i] < lo) lo = x[i];
        cnt += (i < INT_MAX) + (big > 0);
    }
    for (uint_least32_t k = 0; k < 2u; k++) s += x[k] * FLT_EPSILON * (double)(UINT_MAX / 4294967295u);
    ssize_t m = n - 1;
    return s + lo * (double)cnt + x[m] * CHAR_BIT;
}
"""


def test_the_other_stdint_types_and_the_limits_are_known(tmp_path, capsys):
    # Probe round 10: intptr_t, intmax_t, int_fast32_t were a syntax error ("s2sad reads C99"),
    # INT_MAX undeclared, <sys/types.h> and <time.h> unknown headers.
    from source_gradients import check_command
    for target in ("c", "py"):
        check_command(tmp_path, capsys, STDINT_AND_LIMITS, "f", "x", "n=5,x=5", target, name="prog.c")
