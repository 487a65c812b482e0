"""Sub-array views (``view``: C's ``x + k``, NumPy's ``x[k:]``) and C's remainder (``rem``).

The C front end lowers ``f(&x[i], n)`` / ``f(x + i, n)`` to ``view`` and ``a % b`` to
``rem``. Each op is followed through every layer on IR programs:

* the IR: verifier (ranks, offset type), text round trip, the interpreter (a view
  shares memory: writes through it reach the array it views; ``rem`` truncates);
* the passes: folding (``rem`` of constants, ``view(x, 0)``), CSE (equal views merge;
  a store through a view kills loads of its base), DCE (unused views go; stores
  through views stay exactly when their base is needed), LICM (a read-only call
  on an invariant view is hoisted with it; loads of an array written through a
  view stay), and the effect analyses (writes through a view write the base);
* gradients, after the adjoint pipeline, checked against central finite
  differences through the interpreter, emitted Python, Numba and compiled C:
  callees reading and writing sub-arrays, a loop over the rows of a flattened
  matrix, a view of a local array, and ``rem`` on floats;
* emitted text: ``x[k:]`` and ``x + k`` (``x`` for a zero offset), ``a - b * int(a / b)``
  and ``np.fmod`` in Python, C's ``%`` and ``fmod``, and C semantics for negative
  operands in every back end.
"""

from __future__ import annotations

import types
from pathlib import Path

import numpy as np
import pytest
from source_gradients import CALLS_KEPT

from cbuild import CFunction, build, have_gcc
from fd import ParamSpec, check_gradient, written_arrays
from test_emit_c import _c_gradient, _check_layout, _run_c_and_interpreter
from test_emit_py import _load, _ruff, _run_both, _short_lines
from s2sad.analysis import effects
from s2sad.adjoint.gradient import differentiate
from s2sad.emit_c.emitter import emit_c
from s2sad.emit_py.emitter import emit_python
from s2sad.analysis.effects import EffectAnalysis
from s2sad.opt.passes import ADJOINT_PIPELINES, PRIMAL_PIPELINES, PassContext, run_pipeline
from s2sad.ssa import build as irb
from s2sad.ssa.interp import Interpreter, c_rem
from s2sad.ssa.ir import Block, Builder, Module
from s2sad.ssa.parser import parse_module
from s2sad.ssa.printer import print_module
from s2sad.ssa.types import F64, I64
from s2sad.ssa.verifier import VerifyError, verify_module

needs_gcc = pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")

# Helpers that take sub-arrays (``sumsq`` reads one, ``scale`` writes one) and their callers.
VIEWS = """
module "rows.c"

func @sumsq(%y: array<f64,1>, %n: i64) -> f64 @1:1 {
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %z = const() {value = 0.0} : f64
  %s = for(%c0, %n, %c1, %z) : f64 @2:5 {
  ^(%j: i64, %s.1: f64):
    %t = load(%y, %j) : f64 @3:14
    %t2 = mul(%t, %t) : f64 @3:14
    %s.2 = add(%s.1, %t2) : f64 @3:9
    yield(%s.2)
  }
  return(%s) @4:5
}

func @scale(%y: array<f64,1>, %n: i64) -> () @6:1 {
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %two = const() {value = 2.0} : f64
  for(%c0, %n, %c1) @7:5 {
  ^(%j: i64):
    %t = load(%y, %j) : f64 @8:16
    %u = math.sin(%t) : f64 @8:16
    %w = mul(%two, %u) : f64 @8:16
    %v = mul(%w, %t) : f64 @8:16
    store(%y, %j, %v) @8:9
    yield()
  }
  return() @9:1
}

func @tail(%x: array<f64,1>, %k: i64, %n: i64) -> f64 @11:1 {
  %v = view(%x, %k) : array<f64,1> @12:18
  %m = sub(%n, %k) : i64 @12:25
  %r = call(%v, %m) {callee = "sumsq"} : f64 @12:12
  return(%r) @12:5
}

func @scale_tail(%x: array<f64,1>, %k: i64, %n: i64) -> f64 @14:1 {
  %v = view(%x, %k) : array<f64,1> @15:11
  %m = sub(%n, %k) : i64 @15:18
  call(%v, %m) {callee = "scale"} @15:5
  %r = call(%x, %n) {callee = "sumsq"} : f64 @16:12
  return(%r) @16:5
}

func @rows(%x: array<f64,1>, %m: i64) -> f64 @18:1 {
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %c3 = const() {value = 3} : i64
  %z = const() {value = 0.0} : f64
  %s = for(%c0, %m, %c1, %z) : f64 @19:5 {
  ^(%i: i64, %s.1: f64):
    %off = mul(%i, %c3) : i64 @20:26
    %row = view(%x, %off) : array<f64,1> @20:20
    %r = call(%row, %c3) {callee = "sumsq"} : f64 @20:14
    %w = cast(%i) : f64 @20:36
    %t = mul(%w, %r) : f64 @20:14
    %s.2 = add(%s.1, %t) : f64 @20:9
    yield(%s.2)
  }
  return(%s) @21:5
}

func @rows_inplace(%x: array<f64,1>, %m: i64) -> f64 @23:1 {
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %c3 = const() {value = 3} : i64
  for(%c0, %m, %c1) @24:5 {
  ^(%i: i64):
    %off = mul(%i, %c3) : i64 @25:21
    %row = view(%x, %off) : array<f64,1> @25:15
    for(%c0, %c3, %c1) @26:9 {
    ^(%j: i64):
      %t = load(%row, %j) : f64 @27:22
      %u = math.sin(%t) : f64 @27:22
      %v = mul(%u, %t) : f64 @27:22
      store(%row, %j, %v) @27:13
      yield()
    }
    yield()
  }
  %n = mul(%m, %c3) : i64 @28:20
  %r = call(%x, %n) {callee = "sumsq"} : f64 @28:12
  return(%r) @28:5
}

func @rows_scaled(%x: array<f64,1>, %m: i64) -> () @30:1 {
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %c3 = const() {value = 3} : i64
  for(%c0, %m, %c1) @31:5 {
  ^(%i: i64):
    %off = mul(%i, %c3) : i64 @32:21
    %row = view(%x, %off) : array<f64,1> @32:15
    call(%row, %c3) {callee = "scale"} @32:9
    yield()
  }
  return() @33:1
}

func @local(%x: array<f64,1>, %n: i64) -> f64 @35:1 {
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %buf = alloc(%n) {elem = "f64", fill = "zeros"} : array<f64,1> @36:11
  for(%c0, %n, %c1) @37:5 {
  ^(%i: i64):
    %t = load(%x, %i) : f64 @38:18
    store(%buf, %i, %t) @38:9
    yield()
  }
  %v = view(%buf, %c1) : array<f64,1> @39:11
  %m = sub(%n, %c1) : i64 @39:19
  call(%v, %m) {callee = "scale"} @39:5
  %r = call(%buf, %n) {callee = "sumsq"} : f64 @40:12
  return(%r) @40:5
}

func @norm3(%v: array<f64,1>) -> f64 @47:1 {
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %c2 = const() {value = 2} : i64
  %0 = load(%v, %c0) : f64 @48:17
  %1 = load(%v, %c1) : f64 @48:29
  %2 = load(%v, %c2) : f64 @48:41
  %3 = mul(%0, %0) : f64 @48:17
  %4 = mul(%1, %1) : f64 @48:29
  %5 = mul(%2, %2) : f64 @48:41
  %6 = add(%3, %4) : f64 @48:17
  %7 = add(%6, %5) : f64 @48:17
  %8 = math.sqrt(%7) : f64 @48:12
  return(%8) @48:5
}

func @lengths(%x: array<f64,1>, %n: i64) -> f64 @50:1 {
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %c3 = const() {value = 3} : i64
  %z = const() {value = 0.0} : f64
  %s = for(%c0, %n, %c1, %z) : f64 @51:5 {
  ^(%i: i64, %s.1: f64):
    %0 = mul(%i, %c3) : i64 @52:22
    %1 = view(%x, %0) : array<f64,1> @52:20
    %2 = call(%1) {callee = "norm3"} : f64 @52:14
    %s.2 = add(%s.1, %2) : f64 @52:9
    yield(%s.2)
  }
  return(%s) @53:5
}

func @spread(%y: array<f64,1>, %x: array<f64,1>, %n: i64) -> () @42:1 {
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  for(%c0, %n, %c1) @43:5 {
  ^(%i: i64):
    %v = view(%y, %i) : array<f64,1> @44:9
    %t = load(%x, %i) : f64 @44:24
    %e = math.exp(%t) : f64 @44:24
    store(%v, %i, %e) @44:9
    yield()
  }
  return() @45:1
}
"""

# C's remainder: on integers (index arithmetic, possibly negative) and on floats.
REM = """
module "rem.c"

func @irem(%a: i64, %b: i64) -> i64 @1:1 {
  %r = rem(%a, %b) : i64 @2:12
  return(%r) @2:5
}

func @frem(%a: f64, %b: f64) -> f64 @4:1 {
  %r = rem(%a, %b) : f64 @5:12
  %t = mul(%r, %a) : f64 @5:12
  return(%t) @5:5
}

func @wrap(%x: array<f64,1>, %b: f64, %k: i64, %n: i64) -> f64 @7:1 {
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %c3 = const() {value = 3} : i64
  %z = const() {value = 0.0} : f64
  %s = for(%c0, %n, %c1, %z) : f64 @8:5 {
  ^(%i: i64, %s.1: f64):
    %d = sub(%i, %k) : i64 @9:18
    %q = rem(%d, %c3) : i64 @9:18
    %w = cast(%q) : f64 @9:18
    %t = load(%x, %i) : f64 @9:30
    %r = rem(%t, %b) : f64 @9:30
    %p = mul(%w, %r) : f64 @9:18
    %p2 = mul(%p, %t) : f64 @9:18
    %s.2 = add(%s.1, %p2) : f64 @9:9
    yield(%s.2)
  }
  return(%s) @10:5
}
"""


def _module(text: str) -> Module:
    m = parse_module(text)
    verify_module(m)
    return m


def _arr(name: str, n: int, **kw) -> ParamSpec:
    return ParamSpec(name, "array", (n,), **kw)


def _int(name: str, value: int) -> ParamSpec:
    return ParamSpec(name, "int", value=value)


def _divisor(name: str) -> ParamSpec:
    return ParamSpec(name, "float", low=0.5, high=1.5)


# (program, function, --wrt, parameters)
GRADIENT_CASES = {
    "tail": (VIEWS, "tail", ["x"], [_arr("x", 9), _int("k", 3), _int("n", 9)]),
    "scale_tail": (VIEWS, "scale_tail", ["x"], [_arr("x", 9), _int("k", 4), _int("n", 9)]),
    "rows": (VIEWS, "rows", ["x"], [_arr("x", 9), _int("m", 3)]),
    "rows_inplace": (VIEWS, "rows_inplace", ["x"], [_arr("x", 9), _int("m", 3)]),
    # A callee overwriting successive rows in a loop: each reversed iteration gets its row as
    # the call saw it, from the array tape.
    "rows_scaled": (VIEWS, "rows_scaled", ["x"], [_arr("x", 9), _int("m", 3)]),
    "local": (VIEWS, "local", ["x"], [_arr("x", 7), _int("n", 7)]),
    "lengths": (VIEWS, "lengths", ["x"], [_arr("x", 12, low=0.5, high=1.5), _int("n", 4)]),
    "spread": (VIEWS, "spread", ["x"], [_arr("y", 10), _arr("x", 5), _int("n", 5)]),
    "frem": (REM, "frem", ["a", "b"], [ParamSpec("a", "float", low=-3.0, high=3.0), _divisor("b")]),
    "wrap": (REM, "wrap", ["x", "b"], [_arr("x", 7, low=-3.0, high=3.0), _divisor("b"), _int("k", 4), _int("n", 7)]),
}


def _gradient(text: str, func: str, wrt: list[str], level: int = 2, passes: str = "") -> tuple[Module, Module]:
    """The primal module and its gradient, made as the pipeline makes it at ``level`` (the primal
    pipeline ``passes`` where given), both verified.

    The primal passes run on a copy: the returned primal is the source's, the reference.
    """
    primal = _module(text)
    optimized = _module(text)
    run_pipeline(optimized, passes or PRIMAL_PIPELINES[level], PassContext())
    verify_module(optimized)
    names = primal.functions[func].param_names
    grad = differentiate(optimized, func, {names.index(w) for w in wrt}, may_alias=False)
    run_pipeline(grad, ADJOINT_PIPELINES[level], PassContext())
    verify_module(grad)
    printed = print_module(grad)
    assert print_module(parse_module(printed)) == printed
    return primal, grad


def _interpreted(module: Module, name: str, has_d_return: bool):
    interp = Interpreter(module)

    def run(*args, d_return=None):
        return interp.call(name, *args, *([d_return] if has_d_return else []))

    return run


def _returns_float(module: Module, func: str) -> bool:
    results = module.functions[func].result_types
    return bool(results) and results[0].is_float


def _check(case: str, backend: str, level: int, tmp_path: Path) -> None:
    text, func, wrt, params = GRADIENT_CASES[case]
    primal, grad = _gradient(text, func, wrt, level)
    returns_float = _returns_float(primal, func)
    written = written_arrays(primal, func)
    if backend == "interpreter":
        gradient = _interpreted(grad, f"grad_{func}", returns_float)
    elif backend in ("py", "numba"):
        source = emit_python(grad, backend, "")
        _ruff(source, tmp_path)
        _short_lines(source)
        gradient = _load(source, func)[f"grad_{func}"]
    else:
        source = emit_c(grad, "", f"grad_{func}")
        _check_layout(source, f"grad_{func}")
        spec = types.SimpleNamespace(func=func, wrt=wrt, params=params)
        gradient = _c_gradient(build(source), spec, params, written, returns_float)
    for seed in range(2):
        rng = np.random.default_rng(seed)
        check_gradient(_interpreted(primal, func, False), gradient, params, wrt, written, rng,
                       returns_float=returns_float)


BACKENDS = ["interpreter", "py", "numba", pytest.param("c", marks=needs_gcc)]


@pytest.mark.parametrize("level", [2, 0], ids=lambda lv: f"O{lv}")
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", sorted(GRADIENT_CASES))
def test_gradient_matches_finite_differences(case, backend, level, tmp_path):
    _check(case, backend, level, tmp_path)


# -- the IR ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,line",
    [(VIEWS, "%v = view(%x, %k) : array<f64,1> @12:18"), (REM, "%r = rem(%a, %b) : i64 @2:12")],
    ids=["views", "rem"],
)
def test_programs_verify_and_print_back(text, line):
    m = _module(text)
    printed = print_module(m)
    assert print_module(parse_module(printed)) == printed
    assert line in printed


@pytest.mark.parametrize(
    "body,message",
    [
        ("%v = view(%x, %k) : array<f64,2>", "'view' of array<f64,1> gives array<f64,2>"),
        ("%v = view(%A, %k) : array<i64,1>", "'view' of array<f64,2> gives array<i64,1>"),
        ("%v = view(%x, %f) : array<f64,1>", "offset %f is f64, must be i64"),
        ("%v = view(%x, %k) : array<i64,1>", "'view' of array<f64,1> gives array<i64,1>"),
        ("%v = view(%x) : array<f64,1>", "'view' takes 2 operand(s)"),
        ("%v = view(%f, %k) : array<f64,1>", "is f64, not an array"),
    ],
)
def test_verifier_rejects_malformed_views(body, message):
    text = (
        "func @f(%x: array<f64,1>, %A: array<f64,2>, %k: i64, %f: f64) -> () {\n"
        f"  {body}\n  return()\n}}\n"
    )
    with pytest.raises(VerifyError) as info:
        verify_module(parse_module(text))
    assert message in str(info.value)


def test_writes_through_a_view_reach_the_array_it_views():
    m = _module(VIEWS)
    x = np.linspace(0.1, 0.9, 9)
    want = x.copy()
    want[4:] = 2.0 * np.sin(want[4:]) * want[4:]
    got = x.copy()
    result = Interpreter(m).call("scale_tail", got, 4, 9)
    np.testing.assert_allclose(got, want, rtol=1e-15)
    np.testing.assert_allclose(result, np.sum(want**2), rtol=1e-15)
    assert Interpreter(m).call("tail", x.copy(), 6, 9) == pytest.approx(np.sum(x[6:] ** 2), rel=1e-15)


def test_effect_analyses_see_writes_through_views():
    m = _module(VIEWS)
    for name in ("scale_tail", "rows_inplace", "rows_scaled"):
        fn = m.functions[name]
        assert effects.written_params(m, fn) == {0}, name
        assert EffectAnalysis(m).of(fn).writes == frozenset({0}), name
    assert not effects.written_params(m, m.functions["tail"])
    assert EffectAnalysis(m).of(m.functions["tail"]).readonly


# -- C's remainder ---------------------------------------------------------------------------

# (a, b, C's a % b): the sign of the dividend; Python's % would give the divisor's.
C_REMAINDERS = [(7, 3, 1), (-7, 3, -1), (7, -3, 1), (-7, -3, -1), (6, 3, 0), (-6, 3, 0), (2, 5, 2), (-2, 5, -2)]


def test_rem_folds_with_c_semantics():
    for a, b, want in C_REMAINDERS:
        assert c_rem(a, b) == want
    assert c_rem(-7.5, 2.0) == -1.5 and c_rem(7.5, -2.0) == 1.5
    block = Block()
    bld = Builder(block)
    folded = irb.binary(bld, "rem", irb.const(bld, -7, I64), irb.const(bld, 3, I64))
    assert irb.const_value(folded) == -1
    folded = irb.binary(bld, "rem", irb.const(bld, -7.5, F64), irb.const(bld, 2.0, F64))
    assert irb.const_value(folded) == -1.5
    # A zero divisor, or an infinite dividend (math.fmod raises), stays an op.
    kept = irb.binary(bld, "rem", irb.const(bld, 1, I64), irb.const(bld, 0, I64))
    assert kept.defining_op.name == "rem"


def test_fold_pass_computes_rem_and_drops_zero_offset_views():
    m = _module(
        "func @f(%x: array<f64,1>) -> i64 {\n"
        "  %a = const() {value = -7} : i64\n  %b = const() {value = 3} : i64\n"
        "  %r = rem(%a, %b) : i64\n  %z = const() {value = 0} : i64\n"
        "  %v = view(%x, %z) : array<f64,1>\n  %one = const() {value = 1.0} : f64\n"
        "  store(%v, %z, %one)\n  return(%r)\n}\n"
    )
    run_pipeline(m, "fold,dce")
    verify_module(m)
    text = print_module(m)
    assert "rem(" not in text and "view(" not in text
    assert "const() {value = -1} : i64" in text and "store(%x, %z, %one)" in text


def test_fold_pass_merges_a_view_of_a_view_into_one_view_of_the_base():
    m = _module(
        "func @f(%x: array<f64,1>, %k: i64) -> () {\n"
        "  %c5 = const() {value = 5} : i64\n  %m2 = const() {value = -2} : i64\n"
        "  %c0 = const() {value = 0} : i64\n  %one = const() {value = 1.0} : f64\n"
        "  %a = view(%x, %c5) : array<f64,1>\n  %b = view(%a, %m2) : array<f64,1>\n"
        "  %c = view(%b, %k) : array<f64,1>\n  store(%c, %c0, %one)\n  return()\n}\n"
    )
    run_pipeline(m, "fold,dce")
    verify_module(m)
    (view,) = _ops(m, "f", "view")
    assert view.operands[0].name_hint == "x"
    offset = view.operands[1].defining_op
    assert offset.name == "add" and irb.const_value(offset.operands[0]) == 3 and offset.operands[1].name_hint == "k"
    x = np.zeros(8)
    Interpreter(m).call("f", x, 2)
    np.testing.assert_array_equal(np.nonzero(x)[0], [5])


def test_remainders_of_negative_operands_agree_in_every_back_end(tmp_path):
    m = _module(REM)
    interp = Interpreter(m)
    for a, b, want in C_REMAINDERS:
        assert interp.call("irem", a, b) == want
    for target in ("py", "numba"):
        source = emit_python(m, target, "")
        _ruff(source, tmp_path)
        assert "import numpy as np\n" in source
        ns = _load(source, "rem")
        for a, b, _ in C_REMAINDERS:
            _run_both(m, ns, "irem", [a, b])
            _run_both(m, ns, "frem", [a + 0.25, b * 0.5])
        rng = np.random.default_rng(0)
        for k in (0, 4, 9):
            _run_both(m, ns, "wrap", [rng.uniform(-3.0, 3.0, 7), 0.75, k, 7])
    if have_gcc():
        for a, b, _ in C_REMAINDERS:
            _run_c_and_interpreter(m, "irem", [a, b])
            _run_c_and_interpreter(m, "frem", [a + 0.25, b * 0.5])
        _run_c_and_interpreter(m, "wrap", [np.linspace(-3.0, 3.0, 7), 0.75, 5, 7])


def test_rem_spellings():
    m = _module(REM)
    py = emit_python(m, "py", "")
    assert "r = a - b * int(a / b)" in py and "q = d - 3 * int(d / 3)" in py
    assert "r = np.fmod(a, b)" in py and "r = np.fmod(t, b)" in py
    c = emit_c(m, "", "wrap")
    assert "long q = d % 3;" in c and "double r = fmod(t, b);" in c
    f32 = emit_c(parse_module(REM.replace("f64", "f32")), "", "frem")
    assert "fmodf(a, b)" in f32


@needs_gcc
def test_c_remainder_of_non_negative_values_is_known_non_negative():
    m = _module(
        "func @f(%x: array<f64,1>, %n: i64) -> f64 {\n"
        "  %c0 = const() {value = 0} : i64\n  %c1 = const() {value = 1} : i64\n"
        "  %c2 = const() {value = 2} : i64\n  %c3 = const() {value = 3} : i64\n"
        "  %z = const() {value = 0.0} : f64\n"
        "  %s = for(%c0, %n, %c1, %z) : f64 {\n  ^(%i: i64, %s.1: f64):\n"
        "    %q = rem(%i, %c3) : i64\n    %h = floordiv(%q, %c2) : i64\n"
        "    %t = load(%x, %h) : f64\n    %s.2 = add(%s.1, %t) : f64\n    yield(%s.2)\n  }\n"
        "  return(%s)\n}\n"
    )
    text = emit_c(m, "", "f")
    assert "long h = q / 2;" in text and "floordiv_l" not in text
    _run_c_and_interpreter(m, "f", [np.arange(2.0), 7])


# -- passes on views ---------------------------------------------------------------------------

PASS_PROGRAM = """
func @sumsq(%y: array<f64,1>, %n: i64) -> f64 {
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %z = const() {value = 0.0} : f64
  %s = for(%c0, %n, %c1, %z) : f64 {
  ^(%j: i64, %s.1: f64):
    %t = load(%y, %j) : f64
    %s.2 = add(%s.1, %t) : f64
    yield(%s.2)
  }
  return(%s)
}

func @twice(%x: array<f64,1>, %k: i64, %i: i64) -> f64 {
  %a = load(%x, %i) : f64
  %v = view(%x, %k) : array<f64,1>
  %w = view(%x, %k) : array<f64,1>
  %b = load(%v, %i) : f64
  %c = load(%w, %i) : f64
  %one = const() {value = 1.0} : f64
  store(%v, %i, %one)
  %d = load(%x, %i) : f64
  %s = add(%a, %b) : f64
  %s2 = add(%s, %c) : f64
  %s3 = add(%s2, %d) : f64
  return(%s3)
}

func @dead(%x: array<f64,1>, %n: i64) -> () {
  %c1 = const() {value = 1} : i64
  %one = const() {value = 1.0} : f64
  %unused = view(%x, %c1) : array<f64,1>
  %buf = alloc(%n) {elem = "f64", fill = "zeros"} : array<f64,1>
  %bv = view(%buf, %c1) : array<f64,1>
  store(%bv, %c1, %one)
  %xv = view(%x, %c1) : array<f64,1>
  store(%xv, %c1, %one)
  return()
}

func @loop(%x: array<f64,1>, %k: i64, %m: i64, %n: i64) -> f64 {
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %z = const() {value = 0.0} : f64
  %s = for(%c0, %n, %c1, %z) : f64 {
  ^(%i: i64, %s.1: f64):
    %v = view(%x, %k) : array<f64,1>
    %r = call(%v, %m) {callee = "sumsq"} : f64
    %s.2 = add(%s.1, %r) : f64
    yield(%s.2)
  }
  return(%s)
}

func @written(%x: array<f64,1>, %k: i64, %n: i64) -> f64 {
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %z = const() {value = 0.0} : f64
  %s = for(%c0, %n, %c1, %z) : f64 {
  ^(%i: i64, %s.1: f64):
    %t = load(%x, %c0) : f64
    %v = view(%x, %k) : array<f64,1>
    %u = add(%t, %s.1) : f64
    store(%v, %i, %u)
    yield(%u)
  }
  return(%s)
}
"""


def _ops(m: Module, func: str, name: str) -> list:
    return [op for op in m.functions[func].walk() if op.name == name]


def _same_results(before: Module, after: Module, func: str, args: list) -> None:
    a = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
    b = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
    np.testing.assert_allclose(Interpreter(after).call(func, *b), Interpreter(before).call(func, *a), rtol=1e-15)
    for x, y in zip(a, b):
        if isinstance(x, np.ndarray):
            np.testing.assert_allclose(y, x, rtol=1e-15)


def test_cse_merges_equal_views_but_no_load_across_a_store_through_one():
    m = _module(PASS_PROGRAM)
    run_pipeline(m, "cse")
    verify_module(m)
    assert len(_ops(m, "twice", "view")) == 1
    # x[i] is loaded before and after the store through x[k:]: both loads stay (k may be 0).
    loads = _ops(m, "twice", "load")
    assert len(loads) == 3 and sum(1 for op in loads if op.operands[0].name_hint == "x") == 2
    _same_results(_module(PASS_PROGRAM), m, "twice", [np.arange(6.0), 0, 2])


def test_dce_drops_unused_views_and_local_arrays_written_only_through_views():
    m = _module(PASS_PROGRAM)
    run_pipeline(m, "dce")
    verify_module(m)
    body = print_module(m).split("func @dead")[1].split("func @loop")[0]
    assert "%unused" not in body and "alloc(" not in body and "%bv" not in body
    assert "store(%xv, %c1, %one)" in body  # a store through a view of a parameter is an effect
    m = _module(VIEWS)
    run_pipeline(m, "dce")
    assert len(_ops(m, "local", "store")) == 1  # the local array is read: its stores stay


def test_licm_hoists_a_read_only_call_with_its_view_but_not_loads_of_an_array_written_through_one():
    m = _module(PASS_PROGRAM)
    run_pipeline(m, "licm")
    verify_module(m)
    (call,) = _ops(m, "loop", "call")
    (view,) = _ops(m, "loop", "view")
    (loop,) = _ops(m, "loop", "for")
    guard = call.parent.parent_op
    assert guard.name == "if" and loop.parent is call.parent  # the call runs only if the loop does
    assert view.parent is m.functions["loop"].body  # a view cannot fail: it needs no guard
    (load,) = _ops(m, "written", "load")
    assert load.parent.parent_op.name == "for"  # x[0] may change through x[k:]
    _same_results(_module(PASS_PROGRAM), m, "loop", [np.arange(8.0), 2, 4, 3])
    _same_results(_module(PASS_PROGRAM), m, "written", [np.arange(8.0), 0, 4])


# -- the adjoint --------------------------------------------------------------------------------


def test_shadow_of_a_view_is_the_view_of_the_shadow():
    _, grad = _gradient(VIEWS, "rows", ["x"], passes=CALLS_KEPT.passes)  # (-O2 would inline sumsq)
    py = emit_python(grad, "py", "")
    assert "row = x[off:]" in py and "d_row = d_x[off:]" in py
    assert "grad_sumsq(row, d_row, 3, d_r)" in py
    c = emit_c(grad, "", "grad_rows")
    assert "double *d_row = d_x + off;" in c
    assert "// Array sizes: x, d_x: [3 * m]." in c  # the extent learned through the views


def test_an_inlined_callee_names_the_sub_array_it_was_given():
    _, grad = _gradient(VIEWS, "lengths", ["x"], level=2)
    assert "call(" not in print_module(grad).split("func @grad_lengths")[1]
    py = emit_python(grad, "py", "")
    assert "v = x[i * 3 :]" in py and "d_v = d_x[i * 3 :]" in py  # colons spaced as ruff format spaces them
    c = emit_c(grad, "", "grad_lengths")
    assert "double *v = x + i * 3;" in c and "double *d_v = d_x + i * 3;" in c
    assert "// Array sizes: x, d_x: [3 * n]." in c  # v[0..2] through x + 3 * i


def test_a_callee_writing_a_sub_array_gets_a_snapshot_of_that_sub_array():
    _, grad = _gradient(VIEWS, "scale_tail", ["x"])
    py = emit_python(grad, "py", "")
    assert "x_before_scale = v.copy()" in py and "grad_scale(x_before_scale, d_v, m)" in py
    c = emit_c(grad, "", "grad_scale_tail")
    assert "memcpy(x_before_scale, v, (n - k) * sizeof(double));" in c


def test_zero_offset_views_print_as_the_array():
    m = _module(
        "func @sumsq(%y: array<f64,1>, %n: i64) -> f64 {\n"
        "  %t = load(%y, %n) : f64\n  return(%t)\n}\n"
        "func @f(%x: array<f64,1>, %n: i64) -> f64 {\n"
        "  %0 = const() {value = 0} : i64\n  %1 = view(%x, %0) : array<f64,1>\n"
        "  %2 = call(%1, %n) {callee = \"sumsq\"} : f64\n  return(%2)\n}\n"
    )
    assert "return sumsq(x, n)" in emit_python(m, "py", "")
    assert "return sumsq(x, n);" in emit_c(m, "", "f")


@needs_gcc
def test_views_in_c_match_the_interpreter():
    m = _module(VIEWS)
    rng = np.random.default_rng(3)
    _run_c_and_interpreter(m, "scale_tail", [rng.uniform(-1.0, 1.0, 9), 4, 9])
    _run_c_and_interpreter(m, "rows_inplace", [rng.uniform(-1.0, 1.0, 9), 3])
    _run_c_and_interpreter(m, "local", [rng.uniform(-1.0, 1.0, 7), 7])


@pytest.mark.parametrize("target", ["py", "numba"])
def test_views_in_python_match_the_interpreter(target, tmp_path):
    m = _module(VIEWS)
    source = emit_python(m, target, "")
    _ruff(source, tmp_path)
    ns = _load(source, "views")
    rng = np.random.default_rng(4)
    _run_both(m, ns, "scale_tail", [rng.uniform(-1.0, 1.0, 9), 4, 9])
    _run_both(m, ns, "rows_inplace", [rng.uniform(-1.0, 1.0, 9), 3])
    _run_both(m, ns, "spread", [np.zeros(10), rng.uniform(-1.0, 1.0, 5), 5])


@needs_gcc
def test_a_sub_array_is_passed_as_a_plain_pointer():
    text = emit_c(_module(VIEWS), "", "tail")
    assert "double tail(double *x, long k, long n) {" in text and "double *v = x + k;" in text
    fn = CFunction(build(text), "tail", ["double *", "long", "long"], "double")
    x = np.linspace(0.0, 1.0, 9)
    assert fn(x, 5, 9) == pytest.approx(np.sum(x[5:] ** 2), rel=1e-14)


@needs_gcc
def test_a_view_of_a_const_parameter_stays_const():
    m = _module(
        'func @g(%x: array<f64,1>, %k: i64) -> f64 attributes {c_params = ["const double *", "long"], '
        'c_result = "double"} {\n'
        "  %v = view(%x, %k) : array<f64,1>\n  %c0 = const() {value = 0} : i64\n"
        "  %c1 = const() {value = 1} : i64\n  %a = load(%v, %c0) : f64\n  %b = load(%v, %c1) : f64\n"
        "  %s = mul(%a, %b) : f64\n  return(%s)\n}\n"
    )
    text = emit_c(m, "", "g")
    assert "const double *v = x + k;" in text
    _run_c_and_interpreter(m, "g", [np.arange(1.0, 6.0), 2])
