"""Names the user already uses, and the input read as its language reads it (issue 14, classes
10, 13, 14).

A shadow, ``d_return``, a helper's gradient, an adjoint or a temporary never takes a user's
name: where the contract's spelling (``d_x``, ``d_return``, ``grad_g``) is taken, the generated
name is its first free variant (``d_x_``, ``d_return_``, ``grad_g_``). Every gradient here is
checked against central differences; C output is compiled with gcc.
"""

from __future__ import annotations

import ctypes
import re
import types

import numpy as np
import pytest
from cbuild import INPUT_FLAGS, build, have_gcc
from fd import ParamSpec, central_differences, check_gradient

from s2sad import cli, pipeline
from s2sad.diagnostics import DiagnosticError

needs_gcc = pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")


def _exec(source: str) -> types.SimpleNamespace:
    namespace: dict = {}
    exec(compile(source, "<generated>", "exec"), namespace)
    return types.SimpleNamespace(**namespace)


def _grad(source, wrt, target="py", level=2, func="f", filename="prog.py") -> str:
    return pipeline.gradient_source(source, filename, func, wrt, target, pipeline.Options(level=level))


def _signature_names(text: str, name: str = "grad_f") -> list[str]:
    """The parameter names of ``name`` in Python or C output."""
    m = re.search(rf"\b{name}\(([^)]*)\)", text, re.S)
    assert m, text
    return [re.split(r"[\s*]+", p.split("=")[0].strip())[-1] for p in m.group(1).split(",") if p.strip()]


# -- class 10: a parameter named like a shadow ----------------------------------------------------

SHADOW_LIKE = """\
def f(u, d_u, n):
    s = 0.0
    for i in range(n):
        s += u[i] * d_u[i] * d_u[i]
    return s
"""


@pytest.mark.parametrize("target", ["py", "numba", "c"])
def test_shadow_never_takes_a_user_parameter_name(target):
    text = _grad(SHADOW_LIKE, ["u", "d_u"], target)
    names = _signature_names(text)
    assert len(names) == len(set(names)), names
    assert names[:4] == ["u", "d_u_", "d_u", "d_d_u"]  # the user's d_u keeps its name


def test_cuda_shadow_never_takes_a_user_parameter_name():
    src = """\
__global__ void k(const double *u, const double *d_u, double *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = u[i] * d_u[i];
}
"""
    text = _grad(src, ["u", "d_u"], "cuda", func="k", filename="prog.cu")
    assert _signature_names(text, "grad_k") == ["u", "d_u_", "d_u", "d_d_u", "out", "d_out", "n"]


@pytest.mark.parametrize("level", [2, 0])
def test_shadow_like_parameter_gradient_matches_finite_differences(level):
    grad = _exec(_grad(SHADOW_LIKE, ["u", "d_u"], level=level)).grad_f
    primal = _exec(SHADOW_LIKE).f
    params = [ParamSpec("u", "array", (5,)), ParamSpec("d_u", "array", (5,)), ParamSpec("n", "int", value=5)]
    check_gradient(primal, grad, params, ["u", "d_u"], set(), np.random.default_rng(0))


@needs_gcc
def test_shadow_like_parameter_c_gradient_compiles_and_matches():
    lib = build(_grad(SHADOW_LIKE, ["u", "d_u"], "c"))
    fn = lib.grad_f
    dp = ctypes.POINTER(ctypes.c_double)
    fn.argtypes = [dp, dp, dp, dp, ctypes.c_long, ctypes.c_double]
    primal = _exec(SHADOW_LIKE).f

    def gradient(u, s_u, d_u, s_d_u, n, d_return):
        fn(*(a.ctypes.data_as(dp) for a in (u, s_u, d_u, s_d_u)), n, d_return)

    params = [ParamSpec("u", "array", (5,)), ParamSpec("d_u", "array", (5,)), ParamSpec("n", "int", value=5)]
    check_gradient(primal, gradient, params, ["u", "d_u"], set(), np.random.default_rng(1))


def test_scalar_shadow_like_parameter_python_and_c():
    src = "def f(u, d_u):\n    return u * d_u * d_u\n"
    text = _grad(src, ["u", "d_u"])
    assert "def grad_f(u, d_u, d_return=1.0):" in text
    assert not re.search(r"^\s*d_u\b.*=", text, re.M), text  # no adjoint takes over the user's d_u
    got = _exec(text).grad_f(0.7, -1.3, 2.0)
    want = central_differences(lambda u, d_u: 2.0 * u * d_u * d_u, [0.7, -1.3])
    assert np.allclose(got, want, rtol=1e-6)
    c = _grad(src, ["u", "d_u"], "c")
    assert _signature_names(c) == ["u", "d_u_", "d_u", "d_d_u", "d_return"]


# -- class 14: names the user already uses ---------------------------------------------------------

HELPERS = """\
def g(x):
    return x * x


def grad_g(x):
    return 2.0 * x


def f(x, d_x, d_return):
    return g(x) * d_x * d_return + grad_g(x) * x
"""


def _helpers_primal(x, d_x, d_return):
    return x * x * d_x * d_return + 2.0 * x * x


@pytest.mark.parametrize("level", [2, 0])
def test_user_d_return_d_x_and_grad_helper_names_python(level):
    text = _grad(HELPERS, ["x", "d_x", "d_return"], level=level)
    names = _signature_names(text)
    assert names == ["x", "d_x", "d_return", "d_return_"]
    if level == 0:  # the helpers stay: g's gradient gives way to the user's grad_g (kept: the forward sweep calls it)
        assert text.count("def grad_g(") == 1 and "def grad_g_(x" in text and "def grad_grad_g(x" in text
    point = [0.4, -0.8, 1.7]
    got = _exec(text).grad_f(*point, 1.0)
    assert np.allclose(got, central_differences(_helpers_primal, point), rtol=1e-6)


@needs_gcc
@pytest.mark.parametrize("level", [2, 0])
def test_user_d_return_d_x_and_grad_helper_names_c(level):
    text = _grad(HELPERS, ["x", "d_x", "d_return"], "c", level)
    assert _signature_names(text) == ["x", "d_x_", "d_x", "d_d_x", "d_return", "d_d_return", "d_return_"]
    fn = build(text).grad_f
    d, dp = ctypes.c_double, ctypes.POINTER(ctypes.c_double)
    fn.argtypes = [d, dp, d, dp, d, dp, d]
    cells = [d(0.0), d(0.0), d(0.0)]
    point = [0.4, -0.8, 1.7]
    fn(point[0], ctypes.byref(cells[0]), point[1], ctypes.byref(cells[1]), point[2], ctypes.byref(cells[2]), 1.0)
    assert np.allclose([c.value for c in cells], central_differences(_helpers_primal, point), rtol=1e-6)


DEAD_LOCAL = {
    "py": """\
def f(x: "f64[n]", n: int) -> float:
    d_x = 0.25
    d_x += x[1]
    d_n = 1.0
    if 0.1 > 0.5:
        d_n = x[2]
    return d_n * x[0]
""",
    "c": """\
double f(double *x, int n) {
    double d_x = 0.25;
    d_x += x[1];
    double d_n = 1.0;
    if (0.1 > 0.5) {
        d_n = x[2];
    }
    return d_n * x[0];
}
""",
}


@pytest.mark.parametrize("lang", ["py", "c"])
def test_a_local_that_no_code_needs_still_pushes_the_shadow_at_every_level(lang):
    """Seed 4000066, shrunk: the user's d_x is never read, and d_n is the constant 1.0 once -O1
    folds the branch away; still they are names of f, so x's shadow is d_x_ at every -O level
    (the signature is a fact of the source), and the gradient matches central differences."""
    filename = f"prog.{lang}"
    for level in (0, 1, 2):
        for target in ("py", "c"):
            text = _grad(DEAD_LOCAL[lang], ["x"], target, level, filename=filename)
            assert _signature_names(text)[:2] == ["x", "d_x_"], (level, target, text)
        grad = _exec(_grad(DEAD_LOCAL[lang], ["x"], "py", level, filename=filename)).grad_f
        params = [ParamSpec("x", "array", (4,)), ParamSpec("n", "int", value=4)]
        check_gradient(lambda x, n: x[0], grad, params, ["x"], set(), np.random.default_rng(level))


def test_user_function_named_like_the_gradient_is_refused_with_its_location():
    src = "def grad_f(x):\n    return x\n\n\ndef f(x):\n    return grad_f(x) * x\n"
    with pytest.raises(DiagnosticError) as e:
        _grad(src, ["x"], level=0)
    (d,) = e.value.diagnostics
    assert (d.loc.line, d.loc.col) == (1, 1) and "grad_f" in d.message


def test_duplicate_python_parameters_are_a_located_syntax_error():
    with pytest.raises(DiagnosticError) as e:
        _grad("def f(x, x):\n    return x * x\n", ["x"])
    (d,) = e.value.diagnostics
    assert (d.loc.line, d.loc.col) == (1, 10) and "duplicate argument 'x'" in d.message


def test_duplicate_c_parameters_are_a_located_error():
    with pytest.raises(DiagnosticError) as e:
        _grad("double f(double x, double x) {\n    return x * x;\n}\n", ["x"], "c", filename="prog.c")
    (d,) = e.value.diagnostics
    assert (d.loc.line, d.loc.col) == (1, 27) and "redefinition of parameter 'x'" in d.message


# -- class 13: the input read as its language reads it ---------------------------------------------

SPLICED_COMMENT = """\
double f(double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += x[i] * x[i]; // squares \\
        s = s * 2.0;
    }
    return s;
}
"""


@needs_gcc
def test_c_comment_ending_in_backslash_comments_out_the_next_line():
    from cprimal import CSignature

    text = _grad(SPLICED_COMMENT, ["x"], "c", filename="prog.c")
    body = text.split("*/", 1)[1]
    assert "* 2.0" not in body and "*= 2.0" not in body  # the spliced line is comment, as gcc reads it
    sig = CSignature.parse(SPLICED_COMMENT, "f")
    primal = sig.primal(build(SPLICED_COMMENT, INPUT_FLAGS + ("-Wno-comment",)))
    params = [ParamSpec("x", "array", (4,)), ParamSpec("n", "int", value=4)]
    gradient = sig.gradient(build(text), ["x"], [])
    check_gradient(primal, gradient, params, ["x"], set(), np.random.default_rng(2))


def test_c_splice_joins_tokens_without_a_blank():
    src = "double f(double x) {\n    dou\\\nble y = x * x;\n    return y;\n}\n"
    assert "d_return * x" in _grad(src, ["x"], "c", filename="prog.c")


@pytest.mark.parametrize("data", [
    b"# -*- coding: latin-1 -*-\ndef f(x):\n    # caf\xe9\n    return x * x\n",
    b"\xef\xbb\xbfdef f(x):\n    return x * x\n",
])
def test_python_input_decoded_as_python_decodes_it(tmp_path, capsys, data):
    path = tmp_path / "prog.py"
    path.write_bytes(data)
    assert cli.main(["grad", str(path), "--wrt", "x"]) == 0
    assert _exec(capsys.readouterr().out).grad_f(0.5) == pytest.approx(1.0)


def test_python_input_that_python_cannot_decode_is_refused(tmp_path, capsys):
    path = tmp_path / "prog.py"
    path.write_bytes(b"def f(x):\n    return x  # caf\xe9\n")
    assert cli.main(["grad", str(path), "--wrt", "x"]) == 1
    err = capsys.readouterr().err
    assert "prog.py:2:20: error: line 2 is not valid utf-8" in err  # at the bad byte, shown with its caret
    assert err.splitlines()[1:3] == ["        return x  # caf\ufffd", " " * 23 + "^"]


def test_module_level_names_take_their_final_binding():
    src = "import math\nK = 1.0\n\n\ndef sin(x):\n    return x\n\n\ndef f(x):\n    return K * sin(x)\n\n\n" \
          "K = 2.0\nfrom math import sin\n"
    got = _exec(_grad(src, ["x"])).grad_f(0.3)
    assert got == pytest.approx(2.0 * np.cos(0.3))


@pytest.mark.parametrize("rebinding, other", [
    ("if True:\n    K = 2.0\n", "the number 2.0 (line 3)"),
    ("def g():\n    global K\n    K = 3.0\n", "what a function's global statement assigns (line 3)"),
    ("for K in range(3):\n    pass\n", "a loop variable (line 2)"),
])
def test_module_level_name_bound_under_control_flow_is_refused(rebinding, other):
    """Refused where it is used, since its meaning depends on the path (tests/test_module_idioms.py
    has the idioms accepted because every path means the same)."""
    src = "K = 1.0\n" + rebinding + "\n\ndef f(x):\n    return K * x\n"
    with pytest.raises(DiagnosticError) as e:
        _grad(src, ["x"])
    (d,) = e.value.diagnostics
    assert d.message == f"'K' is bound differently on different paths through the module: the number 1.0 (line 1) " \
        f"or {other}"
    assert d.loc.line == src.splitlines().index("    return K * x") + 1 and d.loc.col == 12


def test_unknown_decorator_is_refused_at_the_decorator():
    src = "import numba\n\n\n@numba.vectorize\ndef f(x):\n    return x * x\n"
    with pytest.raises(DiagnosticError) as e:
        _grad(src, ["x"])
    (d,) = e.value.diagnostics
    assert (d.loc.line, d.loc.col) == (4, 2) and "numba.vectorize" in d.message


def test_known_decorators_are_accepted():
    src = ("import functools\nfrom numba import njit\n\n\n@njit(cache=True)\ndef g(x):\n    return x * x\n\n\n"
           "@functools.lru_cache(maxsize=None)\ndef f(x):\n    return g(x)\n")
    assert _exec(_grad(src, ["x"])).grad_f(0.5) == pytest.approx(1.0)


def test_while_counter_gives_way_to_a_user_name():
    src = "def f(x, n_iter):\n    s = x\n    while s < 10.0:\n        s = s * 2.0 + n_iter\n    return s\n"
    text = _grad(src, ["x", "n_iter"])
    assert "n_iter_ = 0" in text and "n_iter_ += 1" in text
    primal = _exec(src).f
    got = _exec(text).grad_f(1.3, 0.25, 1.0)
    assert np.allclose(got, central_differences(primal, [1.3, 0.25]), rtol=1e-6)


def test_parameter_named_like_a_module_the_output_uses():
    src = "import numpy\n\n\ndef f(x, math, np, len):\n    return numpy.sin(x) * math * np + len\n"
    text = _grad(src, ["x", "math", "np", "len"])
    # x (through numpy.sin, whose adjoint's cos maps arrays too), math, np and len meet only
    # broadcasting arithmetic: any shape would do for them (shape-generic), so each has a shadow
    # of its shape, a 0-d array for a number.
    assert "def grad_f(x, d_x, math_, d_math, np_, d_np, len_, d_len, d_return=1.0):" in text
    primal = _exec(src).f
    point = [0.3, 1.2, -0.7, 0.1]
    shadows = [np.zeros(()) for _ in range(4)]
    _exec(text).grad_f(point[0], shadows[0], point[1], shadows[1], point[2], shadows[2], point[3], shadows[3], 1.0)
    got = [float(s) for s in shadows]
    assert np.allclose(got, central_differences(primal, point), rtol=1e-6)


# -- many variables of one source name -------------------------------------------------------

def _long_function(statements: int, short_lived: bool) -> str:
    """``a`` assigned ``statements`` times: each value read by the reverse sweep (all live at
    once, a variable each), or, with ``short_lived``, each read only by the next statement and
    by nothing in the reverse sweep (linear in ``a``: their variables can be shared)."""
    step = "    a = a * 0.999 + b" if short_lived else "    a = math.sin(a) * 0.5 + b"
    return "\n".join(["import math", "", "", "def f(a: float, b: float) -> float:",
                      *[step] * statements, "    return a", ""])


@pytest.mark.parametrize("short_lived", [False, True])
def test_a_name_with_hundreds_of_variables_keeps_them_apart_and_shares_what_it_may(short_lived):
    """Past 64 variables of one source name, a value takes a variable whose values all ended
    before it is made (outofssa._FreeNames), never one still live: the gradient is right, and
    the short-lived values share a few variables."""
    source = _long_function(300, short_lived)
    text = pipeline.gradient_source(source, "f.py", "f", ["a", "b"], "py")
    names = set(re.findall(r"\ba\d*\b", text))
    assert (len(names) < 10) if short_lived else (len(names) > 250), sorted(names)[:20]
    g = _exec(text)
    primal = _exec(source).f
    rng = np.random.default_rng(0)
    check_gradient(primal, g.grad_f, [ParamSpec("a", "float"), ParamSpec("b", "float")], ["a", "b"], set(), rng)


def test_free_names_offers_only_variables_whose_classes_all_ended_first_made_first():
    from s2sad.emit.outofssa import _FreeNames

    names = [f"a{k}" for k in range(_FreeNames.MANY)]
    ends = {n: 100 + k for k, n in enumerate(names)}  # a0 ends at 100, a63 at 163
    pool = _FreeNames(names, ends)
    asked: list[str] = []
    assert pool.first(100, lambda n: asked.append(n) or True) is None and not asked  # none ended yet
    assert pool.first(103, lambda n: True) == "a0"  # a0..a2 ended: the first made
    pool.used("a0", 500)  # taken again, now busy until 500
    assert pool.first(104, lambda n: n != "a1") == "a2"  # a1 refused by the caller (type, release)
    pool.used("a64", 105)  # a new variable
    assert pool.first(200, lambda n: n in ("a64", "a63")) is None  # a63 is past TRIES free ones
    assert pool.first(200, lambda n: n in ("a1", "a64")) == "a1"
