"""Functions s2sad does not see the source of: the math libraries, and the user's own
functions defined in another file (issue 17, "External functions").

Library functions are intrinsics with rules (``ssa/mathfns``; the rules are checked
against sympy in test_rules.py, their edges in test_rule_edges.py, the numerics in
golden/c/libm_special, golden/c/builtin_spellings and golden/math_special). Here: which
spellings mean which intrinsic, and the located errors of the ones s2sad refuses.

A function the C file only declares (its prototype) is called as the primal calls it where
no derivative of it is needed; where one is, the error names the call and the argument.
The numerics are golden/c/external_inactive_call's (its weights.c linked in).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from cbuild import CFunction, build, have_gcc

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError
from s2sad.pipeline import parse_source
from s2sad.ssa.interp import Interpreter
from s2sad.ssa.parser import parse_module
from s2sad.ssa.printer import print_module
from s2sad.ssa.verifier import verify_module


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


def test_frexp_exponent_only_into_an_int_variable():
    src = "#include <math.h>\ndouble f(double *x, int *e) {\n    return frexp(x[0], e);\n}\n"
    messages = _messages(src)
    assert any(m.startswith("3:24: 'frexp' stores the exponent through this pointer, which s2sad follows only")
               and "frexp(x, &e)" in m for m in messages), messages


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


# -- functions defined in another file ----------------------------------------------------------

_DECLS = ("double weight(int k);\ndouble smooth(double t);\ndouble total(const double *v, int m);\n"
          "double fill(double *v, int m);\nvoid note(double v);\nint roll(void);\nint bucket(double t);\n"
          "double sum(int m, ...);\n")


def _grad(body: str, wrt: str = "x", target: str = "c", func: str = "f", extra: str = "") -> str:
    src = _DECLS + extra + "double f(double *x, double *c, int n) {\n" + body + "\n}\n"
    return pipeline.gradient_source(src, "t.c", func, [wrt], target)


def _grad_messages(body: str, wrt: str = "x", target: str = "c", extra: str = "") -> list[str]:
    with pytest.raises(DiagnosticError) as info:
        _grad(body, wrt, target, extra=extra)
    return [f"{d.loc.line}:{d.loc.col}: {d.message} | {d.hint}" for d in info.value.diagnostics]


def test_inactive_call_is_made_as_the_primal_makes_it():
    text = _grad("    double s = 0.0;\n    for (int i = 0; i < n; i++) {\n"
                 "        s += weight(i) * x[i] + smooth(c[i]);\n    }\n    return s * total(c, n);")
    assert "double weight(int k);\ndouble total(const double *v, int m);" in text
    assert "weight(i)" in text and "total(c, n)" in text
    # Only what the gradient calls is declared: smooth's value is not needed (the primal's s is not).
    assert "smooth(double" not in text and "fill" not in text and "note" not in text


@pytest.mark.parametrize("body, where, argument", [
    ("    return weight(n) * smooth(x[0]);", "10:24", "argument 1 (x[0])"),
    ("    return total(x, n);", "10:12", "argument 1 (x)"),  # a const pointer to active memory
    ("    double t = x[0] * 2.0;\n    return smooth(c[0]) + smooth(t);", "11:27", "argument 1 (t)"),
])
def test_active_argument_is_a_located_error_naming_it(body, where, argument):
    (m,) = _grad_messages(body)
    assert m.startswith(f"{where}: cannot differentiate through call to '") and argument in m, m
    assert "defined outside t.c" in m and "or give it a custom derivative: a function grad_" in m


def test_active_argument_in_a_callee_is_located_in_the_callee():
    extra = "static double g(double v) {\n    return smooth(v) * 2.0;\n}\n"
    (m,) = _grad_messages("    return g(x[0]);", extra=extra)
    assert m.startswith("10:12: cannot differentiate through call to 'smooth'") and "argument 1 (v)" in m, m


def test_active_argument_with_an_integer_result_needs_no_derivative():
    """bucket(x[0]) is piecewise constant in x, as (int)floor(x[0]) is."""
    text = _grad("    int b = bucket(x[0]);\n    return x[b] * 2.0;")
    assert "int bucket(double t);" in text and "bucket(x[0])" in text


def test_an_inactive_result_is_not_differentiated_even_if_an_argument_is_active():
    """A comparison of the result only steers the control flow."""
    text = _grad("    if (smooth(x[0]) > 0.0) {\n        return x[1];\n    }\n    return x[2];")
    assert "smooth(x[0])" in text


@pytest.mark.parametrize("body, expected", [
    ("    double s = 0.0;\n    fill(c, n);\n    return x[0] * s;",
     "11:5: 'fill' is defined outside t.c, and a call for its effects does what s2sad cannot see"),
    ("    return x[0] * fill(c, n);", "10:24: 'fill' is defined outside t.c and may write through argument 1 "
     "('double *')"),
    ("    note(x[0]);\n    return x[0];", "10:5: 'note' is defined outside t.c, and a call for its effects"),
    ("    weight(n);\n    return x[0];", "10:5: 'weight' is defined outside t.c, and a call for its effects does what "
     "s2sad cannot see (its result is not used)"),
    ("    return x[0] * roll();", "10:19: 'roll' is defined outside t.c and takes no arguments"),
    ("    return x[0] * sum(2, 1.0, 2.0);", "10:19: cannot call 'sum', defined outside t.c: 'sum' takes a variable"),
    ("    return x[0] * undeclared(n);", "10:19: cannot differentiate through call to 'undeclared': its source is "
     "not in t.c | define undeclared in this file; or, if it is defined in another file and its arguments do not "
     "depend on the --wrt inputs, declare its prototype here"),
])
def test_calls_s2sad_cannot_model_are_located_errors(body, expected):
    messages = _grad_messages(body)
    assert any(m.startswith(expected) for m in messages), messages


def test_a_const_pointer_hint_names_the_declaration_to_write():
    (m,) = _grad_messages("    return x[0] * fill(c, n);")
    assert "| if fill only reads it, declare the parameter const ('const double *')" in m, m


def test_declared_then_defined_is_a_function_of_the_file():
    extra = "double smooth(double t) {\n    return t * t;\n}\n"
    text = _grad("    return smooth(x[0]);", extra=extra)
    assert "double smooth(double t);" not in text and "Defined outside" not in text


@pytest.mark.parametrize("target, expected", [
    ("py", "--target py: 'weight' is a C function defined outside the input, which Python output cannot call"),
    ("numba", "--target numba: 'weight' is a C function defined outside the input"),
])
def test_python_output_cannot_call_a_c_function(target, expected):
    (m,) = _grad_messages("    return x[0] * weight(n);", target=target)
    assert m.startswith(f"10:19: {expected}"), m


def test_cuda_output_cannot_call_a_function_defined_elsewhere():
    src = _DECLS + "void f(double *x, double *y, int n) {\n    for (int i = 0; i < n; i++) {\n" \
        "        y[i] = x[i] * weight(i);\n    }\n}\n"
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(src, "t.c", "f", ["x"], "cuda")
    (d,) = info.value.diagnostics
    assert d.loc.line == 11 and "a kernel can call only the __device__ functions of its own file" in d.message


def test_extern_op_in_the_ir_verifies_round_trips_and_interprets():
    src = _DECLS + "double f(double *x, double *c, int n) {\n    return x[0] * smooth(c[1]) + total(c, n);\n}\n"
    module = parse_source(src, "t.c", "f")
    verify_module(module)
    (op,) = [o for o in module.functions["f"].walk() if o.name == "extern" and o.attrs["callee"] == "smooth"]
    assert op.attrs == {"callee": "smooth", "prototype": "double smooth(double t)", "args": ["c[1]"]}
    assert print_module(parse_module(print_module(module))) == print_module(module)
    run = Interpreter(module, externs={"smooth": lambda t: t * t, "total": lambda v, m: float(sum(v[:m]))})
    x, c = np.array([2.0]), np.array([1.0, 3.0, 0.5])
    assert run.call("f", x, c, 3) == 2.0 * 9.0 + 4.5
    with pytest.raises(NotImplementedError, match="'smooth' is defined outside the input"):
        Interpreter(module).call("f", x, c, 3)


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
def test_external_calls_between_writes_see_the_memory_of_their_place():
    """A work array refilled between two calls of a function that reads it: each call sees the
    contents of its own place, in the primal and in the gradient."""
    src = ("double total(const double *v, int m);\n"
           "double f(const double *x, const double *c, int n) {\n    double w[4];\n    for (int i = 0; i < 4; i++) {\n"
           "        w[i] = c[i];\n    }\n    double a = total(w, 4);\n    for (int i = 0; i < 4; i++) {\n"
           "        w[i] = c[i] * c[i];\n    }\n    double b = total(w, 4);\n    return a * x[0] + b * x[1] + n;\n}\n")
    defs = "double total(const double *v, int m) {\n    double s = 0.0;\n    for (int i = 0; i < m; i++) {\n" \
        "        s += v[i];\n    }\n    return s;\n}\n"
    text = pipeline.gradient_source(src, "t.c", "f", ["x"], "c")
    lib = build(text + "\n" + defs)
    x, d_x, c = np.array([1.5, -0.5]), np.zeros(2), np.array([1.0, 2.0, 3.0, 4.0])
    CFunction(lib, "grad_f", ["double *", "double *", "double *", "int", "double"])(x, d_x, c, 4, 1.0)
    np.testing.assert_allclose(d_x, [10.0, 30.0], rtol=1e-15)


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
def test_frexp_gives_the_mantissa_and_exponent_of_the_library():
    """frexp(x, &e) is read as ldexp(x, -e) with e from logb: the gradient of m * y + e is the
    mantissa for y and 2^-e * y for x, with C's own frexp's m and e (0 for 0), subnormals too."""
    src = ("#include <math.h>\ndouble f(double *x) {\n    int e;\n    double m = frexp(x[0], &e);\n"
           "    return m * x[1] + e;\n}\n")
    text = pipeline.gradient_source(src, "t.c", "f", ["x"], "c")
    assert "(long)logb(x[0]) + 1" in text
    grad = CFunction(build(text), "grad_f", ["double *", "double *", "double"])
    for v in (0.3, 1.0, 1024.5, -7.25, 3e-310, -5e-324, 0.0, 1.7e308):
        x, d_x = np.array([v, 2.0]), np.zeros(2)
        grad(x, d_x, 1.0)
        mantissa, exponent = math.frexp(v)
        with np.errstate(over="ignore"):  # 2^-e overflows for a subnormal: inf, as C gives
            want = np.ldexp(2.0, -exponent)
        np.testing.assert_array_equal(d_x, [want, mantissa])




def test_the_hint_to_declare_a_pointee_const_spells_valid_c():
    """'const double **' made read-only is 'const double *const *', never 'const const double **'."""
    src = "double g(const double **p);\ndouble f(const double **A) {\n    return g(A) + A[0][0];\n}\n"
    messages = _messages(src)
    assert any("('const double *const *')" in m for m in messages), messages
