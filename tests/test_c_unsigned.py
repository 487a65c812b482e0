"""Unsigned integers in C input (issue 14, class 11c): what C computes modulo 2^k, s2sad computes
in signed integers, so every operation through which an unsigned value could wrap below zero is
refused with a located error (s2sad/parse/c_unsigned.py); what agrees is accepted and checked."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from cbuild import build_sanitized, have_gcc
from cprimal import CSignature
from fd import ParamSpec, check_gradient

from s2sad.pipeline import parse_source
from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError

ROOT = Path(__file__).resolve().parent.parent

COUNT_DOWN = """double f(const double *x, unsigned n)
{
    double s = 0.0;
    for (unsigned i = n - 1; i < n; i--) {
        s = s * 0.5 + x[i] * x[i];
    }
    return s;
}
"""


def _diagnostics(source: str, func: str = "f") -> list[str]:
    with pytest.raises(DiagnosticError) as info:
        parse_source(source, "t.c", func)
    return [f"{d.loc.line}:{d.loc.col}: {d.message}" for d in info.value.diagnostics]


def test_a_counter_that_wraps_below_zero_is_refused_where_it_wraps():
    # It used to become a `long` counter: the reversed loop never ended and read out of bounds.
    got = _diagnostics(COUNT_DOWN)
    assert [g.split(": ")[0] for g in got] == ["4:23", "4:37"]
    assert "'i' is unsigned: storing a difference into it can wrap around below zero" in got[0]
    assert "'i' is unsigned: decrementing it can wrap around below zero" in got[1]


@pytest.mark.parametrize(
    "body,where",
    [
        ("size_t t = n - 1; return x[t];", "n - 1"),
        ("size_t t = n; t -= 1; return x[t];", "t -= 1"),
        ("size_t i = n; while (i-- > 0) s += x[i]; return s;", "i--"),  # (its own loop's: accepted, below)
        ("return s + (double)(n - 1);", "n - 1"),
        ("return s + (double)(-n);", "n)"),  # pycparser places a unary minus at its operand
        ("unsigned m = 2; return s + (double)(m - 3u);", "m - 3u"),
    ],
)
def test_every_operation_that_may_wrap_is_refused(body, where):
    _the_one_refusal(f"double s = 0.0; {body}", where)


def _the_one_refusal(body: str, where: str) -> str:
    """The one diagnostic of ``f`` whose body (one line, after the includes and the signature) is
    ``body``, placed at ``where`` in it."""
    line = f"    {body}"
    src = f"#include <stddef.h>\n#include <stdint.h>\ndouble f(const double *x, size_t n) {{\n{line}\n}}\n"
    got = _diagnostics(src)
    assert len(got) == 1 and got[0].startswith(f"4:{line.index(where) + 1}: "), got
    return got[0]


def test_what_agrees_with_c_is_accepted():
    # Subscripts of +, - and * (C wraps them modulo 2^k: the same index whenever it is valid),
    # counting up, float arithmetic with unsigned operands, signed arithmetic beside unsigned.
    src = (
        "#include <stddef.h>\n"
        "double f(const double *x, size_t n, unsigned m) {\n"
        "    double s = 0.0;\n"
        "    for (size_t i = 1; i < n; i++) s += x[i - 1] * x[n - i] - 0.5 * (double)m;\n"
        "    long k = (long)n - 3;\n"
        "    return s + x[n - 1] + (double)k - 1.0 * n;\n"
        "}\n"
    )
    parse_source(src, "t.c", "f")


def test_cli_refuses_with_exit_status_1_and_no_traceback(tmp_path):
    (tmp_path / "count_down.c").write_text(COUNT_DOWN)
    r = subprocess.run(
        [sys.executable, "-m", "s2sad", "grad", "count_down.c", "--wrt", "x", "--target", "c", "-o", "out.c"],
        cwd=tmp_path, capture_output=True, text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert r.returncode == 1, r.stderr
    assert "count_down.c:4:23: error:" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "out.c").exists()


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
def test_counting_down_with_a_signed_counter_is_right_under_the_sanitizers():
    src = COUNT_DOWN.replace("for (unsigned i = n - 1; i < n; i--)", "for (long i = (long)n - 1; i >= 0; i--)")
    for level in (0, 2):
        text = pipeline.gradient_source(src, "t.c", "f", ["x"], "c", pipeline.Options(level=level))
        sig = CSignature.parse(src, "f")
        grad = sig.gradient(build_sanitized(text), ["x"], [])
        from cbuild import INPUT_FLAGS, build

        primal = sig.primal(build(src, INPUT_FLAGS))
        params = [ParamSpec("x", "array", shape=(4,)), ParamSpec("n", "int", value=4)]
        check_gradient(primal, grad, params, ["x"], set(), np.random.default_rng(0), returns_float=True)


_COUNT_DOWN = "#include <stddef.h>\ndouble f(const double *x, size_t n) {{ double s = 0.0; {loop} return s; }}\n"


@pytest.mark.parametrize("loop", [
    "for (size_t i = n; i > 0; i--) s += x[i - 1];",
    "for (size_t i = n; 0 < i; --i) s += x[i - 1];",
    "for (size_t i = n; i != 0; i -= 1) s += x[i - 1];",
    "for (size_t i = n; i >= 1 && s < 100.0; i--) s += x[i - 1];",
])
def test_a_count_down_its_test_keeps_above_zero_is_accepted(loop):
    """The step runs after the test found ``i`` positive and a body that leaves ``i`` alone: it
    never wraps (probe p39's style; golden c/unsigned_count_down checks the numbers)."""
    parse_source(_COUNT_DOWN.format(loop=loop), "t.c", "f")


@pytest.mark.parametrize("loop", [
    "for (size_t i = n; i-- > 0; ) s = 0.5 * s + x[i] * x[i];",
    "for (size_t i = n; 0 < i--; ) s = 0.5 * s + x[i] * x[i];",
    "for (unsigned i = n; i--; ) s = 0.5 * s + x[i] * x[i];",
])
def test_the_post_decrement_count_down_is_a_counted_loop(loop, tmp_path, capsys):
    """``for (size_t i = n; i-- > 0; )``: the decrement wraps only on the test that ends the loop,
    and the index is the loop's own (probe round 9: refused as wrapping). Read as the counted loop
    it is, from n - 1 down to 0: the gradient runs one forward loop and keeps no tape."""
    from source_gradients import check_command

    source = _COUNT_DOWN.format(loop=loop)
    text = pipeline.gradient_source(source, "t.c", "f", ["x"], "c")
    assert "for (long i = 0; i < (long)n; i++) {" in text and "tape" not in text, text
    check_command(tmp_path, capsys, source, "f", "x", "n=5", "c", "t.c")


@pytest.mark.parametrize("loop", [
    "for (size_t k = n; k-- > 1; ) s = 0.5 * s + x[k] * x[k - 1];",
    "for (size_t k = n; k-- >= 2; ) s = 0.5 * s + x[k] * x[k - 1];",
    "for (size_t k = n; 1 < k--; ) s = 0.5 * s + x[k] * x[k - 1];",
])
def test_a_count_down_to_a_constant_is_a_counted_loop_too(loop, tmp_path, capsys):
    """``for (size_t k = n; k-- > 1; )``: the body sees n - 1 down to 1, and the decrement wraps
    only where the test ends the loop, as for ``k-- > 0`` (probe round 10: refused as wrapping)."""
    from source_gradients import check_command

    source = _COUNT_DOWN.format(loop=loop)
    assert "tape" not in pipeline.gradient_source(source, "t.c", "f", ["x"], "c")
    for n in (5, 1, 0):  # (n = 0: the test wraps k and ends the loop, which runs no time)
        check_command(tmp_path, capsys, source, "f", "x", f"n={n}", "c", "t.c")


@pytest.mark.parametrize("loop", [
    "for (size_t i = n; i-- > 0; ) { s += x[i]; i--; }",  # the body steps it too
    "for (size_t k = n; k-- != 1; ) s += x[k];",  # passes 1 where n is 0, and wraps
    "for (size_t k = n; k-- >= 0; ) s += x[k];",  # always true: wraps
    "size_t i = n; for (i = n; i-- > 0; ) s += x[i];",  # the index lives on past the loop
    "for (size_t i = n; i > 0; i--) { s += x[i - 1]; i--; }",  # the body steps it too
    "for (size_t i = n; i < n + 1; i--) s += x[i - 1];",  # the test does not keep it above zero
    "for (size_t i = n; i > 0; i -= 2) s += x[i - 1];",  # a step of two may pass zero
])
def test_a_count_down_that_may_wrap_is_still_refused(loop):
    with pytest.raises(Exception) as info:
        parse_source(_COUNT_DOWN.format(loop=loop), "t.c", "f")
    assert "wrap around below zero" in str(info.value)


# A size_t read as a signed number (int m = n; (int)n - 5; (long)n - 5): the IR computes it
# signed, and C output must convert the signed value to double, not the unsigned one it would
# print (probe round 7: (double)(n - 5) at n = 3 was 1.8e19), nor mix signedness in a ?:.
_SIGNED_READS = {
    "int_local": "int m = n; return x[0] * (m - 5) * c;",
    "cast_to_double": "return x[0] * (double)((int)n - 5) * c;",
    "double_local": "const double m = (int)n - 5; return x[0] * m * c;",
    "long_local": "const long m = (long)n - 5; return x[0] * m * c;",
    "ternary": "int k = c < 0 ? c : (int)n - 5; return x[0] * k;",
    "index_clamp": "const int idx = c > (int)n - 1 ? (int)n - 1 : c; return x[idx] * x[idx] * (idx - 4);",
}


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
@pytest.mark.parametrize("name", sorted(_SIGNED_READS))
def test_an_unsigned_size_read_as_a_signed_number_keeps_its_sign(name):
    from cbuild import INPUT_FLAGS, build

    src = "#include <stddef.h>\ndouble f(const double *x, size_t n, int c)\n{\n    " + _SIGNED_READS[name] + "\n}\n"
    text = pipeline.gradient_source(src, "t.c", "f", ["x"], "c")
    sig = CSignature.parse(src, "f")
    grad = sig.gradient(build(text), ["x"], [])  # build: -Wall -Wextra -Werror
    primal = sig.primal(build(src, INPUT_FLAGS))
    for c in (1, 2, 7):
        params = [ParamSpec("x", "array", shape=(4,)), ParamSpec("n", "int", value=3), ParamSpec("c", "int", value=c)]
        check_gradient(primal, grad, params, ["x"], set(), np.random.default_rng(0), returns_float=True)


# Past the top of its type (probe round 8): a random generator's or a hash's unsigned state,
# which C keeps modulo 2^k and the IR's signed integers do not (the gradient of x * u with u
# from an LCG was -0.23 where C gives 0.77; from 2654435761u * i, weights off by 0.5; an
# unsigned short 65535 + 1 read as 65536), is refused where it wraps.
@pytest.mark.parametrize(
    "body,where",
    [
        ("uint64_t s = 2u; s = s * 6364136223846793005ULL + 1u; return x[0] * (double)(s >> 11);", "s * 6"),
        ("unsigned h = (unsigned)(n + 1) * 2654435761u; return x[0] * (double)(h % 1000u);", "(unsigned)(n"),
        ("unsigned h = 5u; h *= 1664525u; return x[0] * (double)h;", "h *= "),
        ("uint32_t v = 5u; v ^= v << 13; return x[0] * (double)v;", "v << 13"),
        ("unsigned v = 5u; v <<= 3; return x[0] * (double)v;", "v <<= 3"),
        ("unsigned short a = 65535; a = a + 1; return x[0] * a;", "a + 1"),
        ("uint8_t c = 250; c += 10; return x[0] * c;", "c += 10"),
        ("unsigned char c = 255; c++; return x[0] * c;", "c++"),
        ("uint16_t a = (uint16_t)(n * 40000); return x[0] * a;", "n * 40000"),
    ],
)
def test_a_value_past_the_top_of_its_unsigned_type_is_refused(body, where):
    assert "can wrap around past the largest value of its type" in _the_one_refusal(body, where)


_AGREES = """#include <stddef.h>
#include <stdint.h>
double f(const double *x, const double *w, size_t n, size_t m)
{
    size_t total = 1;
    for (size_t k = 0; k < 2; k++) total *= n;  /* a size's product: small factors */
    unsigned char bias = 200;
    unsigned short cells = (unsigned short)m;
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < m; j++) {
            unsigned char level = (unsigned char)j;
            const unsigned char c = (unsigned char)x[0] > 0 ? bias : 0;
            /* unsigned char and short are ints in C's arithmetic: bias - 201 is -1, no wrap */
            s += w[i * m + j] * x[i * m + j] * ((int)level - 3) + (bias - 201) * x[j] + c * 0.0;
        }
    return s + (double)(total >> 1) + (double)(cells - 1) * x[0];
}
"""


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
def test_narrow_unsigned_values_as_c_promotes_them_and_size_products_are_accepted():
    from cbuild import INPUT_FLAGS, build

    text = pipeline.gradient_source(_AGREES, "t.c", "f", ["x", "w"], "c")
    sig = CSignature.parse(_AGREES, "f")
    grad = sig.gradient(build(text), ["x", "w"], [])  # build: -Wall -Wextra -Werror
    primal = sig.primal(build(_AGREES, INPUT_FLAGS))
    params = [ParamSpec("x", "array", shape=(12,)), ParamSpec("w", "array", shape=(12,)),
              ParamSpec("n", "int", value=3), ParamSpec("m", "int", value=4)]
    check_gradient(primal, grad, params, ["x", "w"], set(), np.random.default_rng(0), returns_float=True)


_SIGNED_MIXING = """static double uni(long *s)
{
    long x = *s;
    x ^= x << 13;
    *s = x;
    return (double)(x >> 8);
}
double f(int n, const double *x)
{
    long st = 5;
    double s = 0.0;
    for (int i = 0; i < n; i++) s += uni(&st) * 1e-9 * x[i];
    return s;
}
"""


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
def test_bit_mixing_in_a_signed_state_translates_and_is_right():
    # Its ranges grew past what a float holds (the xorshift's bounds doubled each round): the
    # integer range analysis crashed dividing them (probe round 8).
    from cbuild import INPUT_FLAGS, build

    text = pipeline.gradient_source(_SIGNED_MIXING, "t.c", "f", ["x"], "c")
    sig = CSignature.parse(_SIGNED_MIXING, "f")
    grad = sig.gradient(build(text), ["x"], [])
    primal = sig.primal(build(_SIGNED_MIXING, INPUT_FLAGS))
    params = [ParamSpec("n", "int", value=3), ParamSpec("x", "array", shape=(3,))]
    check_gradient(primal, grad, params, ["x"], set(), np.random.default_rng(0), returns_float=True)


SCOPED = """#include <stddef.h>
double f(const double *x, int n)
{
    double s = 0.0;
    for (size_t i = 0; i < 2; i++)
        s += x[i];
    for (int i = n - 1; i >= 0; i--)
        s = 0.5 * s + x[i] * x[i];
    {
        unsigned k = 1;
        s += x[k];
    }
    int k = n - 2;
    return s + x[k];
}
"""


def test_unsigned_is_a_declaration_of_its_block_scope(tmp_path, capsys):
    # Probe round 10 (a Thomas solver): the second loop's int i was refused as unsigned because
    # the first loop's i was a size_t, with a hint to use the signed type it had.
    from source_gradients import check_command
    check_command(tmp_path, capsys, SCOPED, "f", "x", "n=4,x=4", "c", name="prog.c")
    got = _diagnostics(SCOPED.replace("int i = n - 1", "unsigned i = n - 1"))
    assert len(got) == 2 and all(g.startswith("7:") for g in got), got


SIZED_HELPER_IN_A_LOOP = """#include <stddef.h>
static void sq(size_t n, const double *x, double *y) { for (size_t i = 0; i < n; i++) y[i] = x[i] * x[i]; }
double f(size_t n, double x[n], double y[n], int steps)
{
    for (int s = 0; s < steps; s++) {
        sq(n, x, y);
        for (size_t i = 0; i < n; i++) x[i] = 0.5 * y[i];
    }
    return x[0];
}
"""


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
def test_an_extent_declared_by_a_size_t_is_compared_as_a_long(tmp_path, capsys):
    # Probe round 10: the copy of x taped before each call was sized (long)n < n ? (long)n : n,
    # the extent of x[n] printed as the size_t n itself (gcc -Wsign-compare).
    from cbuild import compile_c
    from source_gradients import check_command
    text = pipeline.gradient_source(SIZED_HELPER_IN_A_LOOP, "t.c", "f", ["x"], "c")
    assert "(long)n < n" not in text, text
    compile_c(text)
    check_command(tmp_path, capsys, SIZED_HELPER_IN_A_LOOP, "f", "x", "n=4,x=4,y=4,steps=3", "c", name="prog.c")
