"""Functions s2sad does not see the source of: the math libraries, and the user's own
functions defined in another file (issue 17, "External functions").

Library functions are intrinsics with rules (``ssa/mathfns``; the rules are checked
against sympy in test_rules.py, their edges in test_rule_edges.py, the numerics in
golden/c/libm_special, golden/c/builtin_spellings and golden/math_special). Here: which
spellings mean which intrinsic, and the located errors of the ones s2sad refuses.
"""

from __future__ import annotations

import pytest

from s2sad.diagnostics import DiagnosticError
from s2sad.pipeline import parse_source


def _math_ops(source: str, func: str = "f") -> list[tuple[str, str]]:
    module = parse_source(source, "t.c", func)
    return [(op.name, str(op.result.type)) for op in module.functions[func].walk() if op.name.startswith("math.")]


def _messages(source: str, filename: str = "t.c", func: str = "f") -> list[str]:
    with pytest.raises(DiagnosticError) as info:
        parse_source(source, filename, func)
    return [f"{d.loc.line}:{d.loc.col}: {d.message} | {d.hint}" for d in info.value.diagnostics]


# -- spellings of the math library --------------------------------------------------------------


@pytest.mark.parametrize("call, op, t", [
    ("__builtin_sqrt(x[0])", "math.sqrt", "f64"),
    ("__builtin_expf(y)", "math.exp", "f32"),
    ("__builtin_fabs(x[0])", "math.abs", "f64"),
    ("__builtin_fmaxf(y, 1.0f)", "math.max", "f32"),
    ("lgammaf(y)", "math.lgamma", "f32"),
    ("tgamma(x[0])", "math.tgamma", "f64"),
    ("nearbyint(x[0])", "math.rint", "f64"),
    ("roundf(y)", "math.round", "f32"),
    ("__builtin_remainder(x[0], 0.5)", "math.remainder", "f64"),
    ("fdim(x[0], 1.0)", "math.fdim", "f64"),
    ("ldexpf(y, 3)", "math.ldexp", "f32"),
])
def test_c_spellings_of_math_functions(call, op, t):
    src = f"#include <math.h>\ndouble f(double *x, float y) {{\n    return {call};\n}}\n"
    assert (op, t) in _math_ops(src)


def test_builtin_fma_is_a_multiply_add():
    src = "double f(double *x) {\n    return __builtin_fma(x[0], x[1], x[2]);\n}\n"
    module = parse_source(src, "t.c", "f")
    names = [op.name for op in module.functions["f"].walk()]
    assert "mul" in names and "add" in names and not [n for n in names if n.startswith("math.")]


def test_digamma_is_no_library_function_of_c():
    """digamma is a helper of the output, not a name C input may call."""
    messages = _messages("double f(double *x) {\n    return digamma(x[0]);\n}\n")
    assert any("call to 'digamma'" in m for m in messages), messages


def test_ldexp_needs_an_integer_exponent():
    messages = _messages("#include <math.h>\ndouble f(double *x) {\n    return ldexp(x[0], x[1]);\n}\n")
    assert any(m.startswith("3:24: argument 2 of ldexp must be an integer") for m in messages), messages


def test_frexp_is_refused_with_a_way_out():
    src = "#include <math.h>\ndouble f(double *x) {\n    int e;\n    return frexp(x[0], &e);\n}\n"
    messages = _messages(src)
    assert any(m.startswith("4:12: 'frexp' stores the exponent through a pointer") and "logb(x) + 1" in m
               for m in messages), messages


def test_python_math_ldexp_needs_an_int():
    src = "import math\n\n\ndef f(x, y):\n    return math.ldexp(x, y)\n"
    messages = _messages(src, "t.py")
    assert any(m.startswith("5:26: argument 2 of math.ldexp must be an integer") for m in messages), messages


@pytest.mark.parametrize("call, op", [
    ("math.lgamma(x)", "math.lgamma"), ("math.gamma(x)", "math.tgamma"), ("math.remainder(x, 2.0)", "math.remainder"),
    ("math.ldexp(x, 3)", "math.ldexp"), ("np.rint(x)", "math.rint"), ("round(x)", "math.rint"),
])
def test_python_spellings(call, op):
    src = f"import math\n\nimport numpy as np\n\n\ndef f(x):\n    return 1.0 * {call}\n"
    module = parse_source(src, "t.py", "f")
    assert op in [o.name for o in module.functions["f"].walk()]


def test_whole_array_lgamma_is_refused():
    src = 'import math\n\n\ndef f(x: "f64[n]"):\n    return math.lgamma(x)\n'
    messages = _messages(src, "t.py")
    assert any("is not supported on whole arrays" in m for m in messages), messages
