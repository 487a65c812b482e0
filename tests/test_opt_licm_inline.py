"""LICM, inlining and the analyses they share (s2sad.analysis.effects, s2sad.opt.licm / inline).

Unit tests of the effect and alias analyses and of each pass's edge cases on
hand-written IR; then every golden program (golden/*/input.py) is parsed, run
through inline and licm, verified, and interpreted before and after on random
inputs (and with every integer argument 0 and 1, so that loops run zero times
and once: that is where a hoisted op that may fail would show); then the
gradients of the optimized programs are checked against finite differences,
and the optimized ``norm``'s gradient must call ``grad_mag`` outside the
reversed loop: the point of optimizing before differentiating.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fd import ParamSpec, check_gradient, written_arrays
from s2sad.adjoint.gradient import differentiate
from s2sad.opt import inline, licm
from s2sad.analysis.effects import EffectAnalysis, RootSet, aliases, array_root, is_pure, is_readonly
from s2sad.opt.inline import op_count
from s2sad.ssa.callgraph import module_callees_first as callees_first
from s2sad.opt.dce import dce_module, remove_unreachable_functions
from s2sad.opt.passes import PassContext
from s2sad.pipeline import resolve_wrt, parse_source
from s2sad.ssa.interp import Interpreter
from s2sad.ssa.ir import Op
from s2sad.ssa.opdefs import speculatable
from s2sad.ssa.parser import parse_module
from s2sad.ssa.printer import print_module
from s2sad.ssa.verifier import verify_module

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden"
PASS_CASES = sorted(p for p in (GOLDEN / "passes").glob("*/*") if (p / "input.ir").exists())
LICM_INLINE_CASES = [p for p in PASS_CASES if p.parent.name in ("licm", "inline")]
PROGRAMS = sorted(p for p in GOLDEN.iterdir() if (p / "case.json").exists())
CTX = PassContext()
ALIAS = PassContext(may_alias=True)


def _ir(text: str):
    m = parse_module('module "t.py"\n' + text)
    verify_module(m)
    return m


def _optimize(m, ctx=CTX):
    inline.run(m, ctx)
    verify_module(m)
    licm.run(m, ctx)
    verify_module(m)
    return m


def _ops(fn, name):
    return [op for op in fn.walk() if op.name == name]


def _enclosing(op: Op) -> list[str]:
    """Names of the ops whose regions hold ``op``, innermost first."""
    out = []
    block = op.parent
    while block is not None and block.parent_op is not None:
        out.append(block.parent_op.name)
        block = block.parent_op.parent
    return out


def _run(module, name, args):
    """(result, arrays after) or the exception's type."""
    work = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        result = Interpreter(module).call(name, *work)
    except Exception as e:  # noqa: BLE001 - the same failure is expected on both sides
        return type(e), None
    return result, [a for a in work if isinstance(a, np.ndarray)]


def _assert_same(before, after, name, args):
    r0, arrays0 = _run(before, name, args)
    r1, arrays1 = _run(after, name, args)
    if arrays0 is None:
        assert arrays1 is None, f"{name}: the original fails ({r0.__name__}), the optimized does not"
        return
    assert arrays1 is not None, f"{name}: the optimized program fails ({r1.__name__}) where the original does not"
    if r0 is None:
        assert r1 is None
    else:
        parts0 = list(r0) if isinstance(r0, (list, tuple)) else [r0]  # several results, one by one
        parts1 = list(r1) if isinstance(r1, (list, tuple)) else [r1]
        assert len(parts1) == len(parts0), f"{name}: number of results changed"
        for p0, p1 in zip(parts0, parts1):
            np.testing.assert_allclose(p1, p0, rtol=1e-12, err_msg=f"{name}: result changed")
    for a0, a1 in zip(arrays0, arrays1):
        np.testing.assert_allclose(a1, a0, rtol=1e-12, err_msg=f"{name}: memory changed")


# ----------------------------------------------------------------------------- analyses
EFFECTS_SRC = '''
import math


def mag(x, n):
    s = 0.0
    for i in range(n):
        s += x[i] * x[i]
    return math.sqrt(s)


def scale(y, x, n):
    for i in range(n):
        y[i] = 2.0 * x[i]


def outer(a, b, n):
    scale(b, a, n)
    return mag(b, n)


def scratch(x, n):
    t = np.zeros(n)
    for i in range(n):
        t[i] = x[i] * x[i]
    return t[0]


def sq(z):
    return z * z


def shape_only(x, z):
    return sq(z) * len(x)


def top(out, in_, b, n):
    out[0] = outer(in_, b, n) + scratch(in_, n) + shape_only(in_, 2.0)
'''


@pytest.fixture(scope="module")
def effects_module():
    return parse_source("import numpy as np\n" + EFFECTS_SRC, "effects.py", "top")


def test_function_effects_follow_calls(effects_module):
    m = effects_module
    ea = EffectAnalysis(m)
    fx = {name: ea.of(m.functions[name]) for name in ("mag", "scale", "outer", "scratch", "sq", "shape_only", "top")}
    assert fx["mag"].reads == {0} and not fx["mag"].writes
    assert fx["scale"].reads == {1} and fx["scale"].writes == {0}
    # outer(a, b): scale(b, a) writes b and reads a; mag(b) reads b.
    assert fx["outer"].reads == {0, 1} and fx["outer"].writes == {1}
    # A local scratch array is the function's own business: not an effect.
    assert fx["scratch"].reads == {0} and not fx["scratch"].writes
    assert fx["shape_only"].reads == set() and not fx["shape_only"].writes
    assert fx["top"].writes == {0, 2} and fx["top"].reads == {1, 2}


def test_pure_and_readonly(effects_module):
    m = effects_module
    f = m.functions
    assert is_readonly(m, f["mag"]) and not is_pure(m, f["mag"])
    assert is_readonly(m, f["scratch"]) and not is_pure(m, f["scratch"])
    assert is_pure(m, f["sq"]) and is_pure(m, f["shape_only"])  # len(x) reads no element
    assert not is_readonly(m, f["scale"]) and not is_readonly(m, f["outer"])


def test_recursion_is_assumed_to_touch_everything():
    m = _ir("""
func @f(%x: array<f64,1>, %v: f64) -> f64 {
  %r = call(%x, %v) {callee = "f"} : f64
  return(%r)
}
""")
    fx = EffectAnalysis(m).of(m.functions["f"])
    assert fx.reads == {0} and fx.writes == {0}


def test_callees_first_orders_the_call_graph(effects_module):
    order = [fn.name for fn in callees_first(effects_module)]
    for caller, callee in [("outer", "scale"), ("outer", "mag"), ("top", "outer"), ("shape_only", "sq")]:
        assert order.index(callee) < order.index(caller)


CARRIED = """
func @f(%x: array<f64,1>, %y: array<f64,1>, %n: i64) -> f64 {
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %z = const() {value = 0.0} : f64
  %tmp = alloc(%n) {elem = "f64", fill = "zeros"} : array<f64,1>
  %a, %s = for(%c0, %n, %c1, %x, %z) : array<f64,1>, f64 {
  ^(%i: i64, %arr: array<f64,1>, %acc: f64):
    %w = load(%y, %c0) : f64
    %v = load(%tmp, %c0) : f64
    %u = add(%w, %v) : f64
    store(%arr, %i, %u)
    yield(%arr, %u)
  }
  return(%s)
}
"""


def test_array_roots_and_aliasing():
    m = _ir(CARRIED)
    fn = m.functions["f"]
    x, y, _ = fn.params
    tmp = _ops(fn, "alloc")[0].result
    loop = _ops(fn, "for")[0]
    arr = loop.regions[0].args[1]
    assert array_root(x) is x and array_root(tmp) is tmp
    assert array_root(arr) is None  # carried by the loop: unknown
    assert aliases(x, x, CTX) and not aliases(x, y, CTX) and aliases(x, y, ALIAS)
    assert not aliases(x, tmp, CTX) and not aliases(x, tmp, ALIAS)  # fresh memory aliases nothing
    assert aliases(None, tmp, CTX)
    written = EffectAnalysis(m).written_roots(loop)
    assert written.anything  # a store through an array of unknown root
    assert written.may_touch(tmp, CTX) and written.may_touch(y, CTX)


def test_root_sets():
    m = _ir(CARRIED)
    x, y, _ = m.functions["f"].params
    rs = RootSet(frozenset({x}))
    assert rs and not RootSet()
    assert rs.may_touch(x, CTX) and not rs.may_touch(y, CTX) and rs.may_touch(y, ALIAS)


def test_store_of_unknown_root_blocks_hoisting():
    m = _ir(CARRIED)
    licm.run(m, CTX)
    verify_module(m)
    body = _ops(m.functions["f"], "for")[0].regions[0]
    assert [op.name for op in body.ops] == ["load", "load", "add", "store", "yield"]


# -------------------------------------------------------------------------------- licm
@pytest.mark.parametrize(
    "expr, expected",
    [
        ("add(%a, %b) : f64", True),
        ("div(%a, %b) : f64", False),
        ("div(%a, %two) : f64", True),
        ("div(%a, %fzero) : f64", False),
        ("floordiv(%i, %three) : i64", True),
        ("floordiv(%i, %mone) : i64", False),  # INT_MIN // -1 overflows in C
        ("mod(%i, %izero) : i64", False),
        ("cast(%a) : i64", False),  # int(nan) raises
        ("cast(%i) : f64", True),
        ("math.sqrt(%a) : f64", False),
        ("pow(%a, %b) : f64", False),
        ("lt(%a, %b) : bool", True),
        ("select(%c, %a, %b) : f64", True),
    ],
)
def test_speculatable(expr, expected):
    m = _ir(f"""
func @f(%a: f64, %b: f64, %i: i64, %c: bool) -> () {{
  %two = const() {{value = 2.0}} : f64
  %fzero = const() {{value = 0.0}} : f64
  %three = const() {{value = 3}} : i64
  %mone = const() {{value = -1}} : i64
  %izero = const() {{value = 0}} : i64
  %r = {expr}
  return()
}}
""")
    op = m.functions["f"].body.ops[-2]
    assert speculatable(op) is expected


def test_load_is_not_speculatable():
    m = _ir(CARRIED)
    assert not speculatable(_ops(m.functions["f"], "load")[0])


GUARDED = """
func @f(%x: array<f64,1>, %y: array<f64,1>, %a: f64, %b: f64, %k: i64, %n: i64) -> f64 {
  %zero = const() {value = 0.0} : f64
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %s = for(%c0, %n, %c1, %zero) : f64 {
  ^(%i: i64, %acc: f64):
    %q = math.log(%b) : f64
    %w = load(%y, %k) : f64
    %v = load(%x, %i) : f64
    %t = mul(%v, %q) : f64
    %u = mul(%t, %w) : f64
    %acc.1 = add(%acc, %u) : f64
    yield(%acc.1)
  }
  return(%s)
}
"""


def test_guard_keeps_zero_trip_loops_from_failing():
    before = _ir(GUARDED)
    after = _ir(GUARDED)
    licm.run(after, CTX)
    verify_module(after)
    fn = after.functions["f"]
    (guard,) = [op for op in fn.body.ops if op.name == "if"]
    assert [op.name for op in guard.regions[0].ops] == ["math.log", "load", "for", "yield"]
    # b = 0 and y empty: log(b) and y[k] would fail, but the loop never runs them.
    args = [np.ones(3), np.zeros(0), 1.0, 0.0, 7, 0]
    assert _run(after, "f", args)[0] == 0.0 == _run(before, "f", args)[0]
    # And when the loop runs, they fail as before.
    args = [np.ones(3), np.zeros(0), 1.0, 0.0, 7, 2]
    assert _run(after, "f", args)[0] is ValueError is _run(before, "f", args)[0]


def test_a_load_or_division_alone_makes_no_guard():
    m = _ir(GUARDED.replace("%q = math.log(%b) : f64", "%q = div(%a, %b) : f64"))
    text = print_module(m)
    licm.run(m, CTX)
    assert print_module(m) == text


def test_licm_is_idempotent_and_reuses_the_guard():
    m = _ir(GUARDED)
    licm.run(m, CTX)
    once = print_module(m)
    licm.run(m, CTX)
    assert print_module(m) == once
    assert len(_ops(m.functions["f"], "if")) == 1


def test_known_positive_trip_count_needs_no_guard():
    m = _ir(GUARDED.replace("for(%c0, %n,", "for(%c0, %c3,").replace(
        "%c1 = const() {value = 1} : i64", "%c1 = const() {value = 1} : i64\n  %c3 = const() {value = 3} : i64"))
    licm.run(m, CTX)
    verify_module(m)
    fn = m.functions["f"]
    assert not _ops(fn, "if")
    assert [op.name for op in fn.body.ops].count("load") == 1  # y[k] left the loop unguarded


def test_zero_trip_constant_loop_hoists_only_what_cannot_fail():
    m = _ir(GUARDED.replace("for(%c0, %n,", "for(%c0, %c0,"))
    licm.run(m, CTX)
    verify_module(m)
    body = _ops(m.functions["f"], "for")[0].regions[0]
    assert {"math.log", "load"} <= {op.name for op in body.ops}


def test_enclosing_if_with_the_same_test_is_the_guard():
    m = _ir("""
func @f(%x: array<f64,1>, %y: array<f64,1>, %n: i64) -> f64 {
  %zero = const() {value = 0.0} : f64
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %pos = lt(%c0, %n) : bool
  %r = if(%pos) : f64 {
    %s = for(%c0, %n, %c1, %zero) : f64 {
    ^(%i: i64, %acc: f64):
      %w = load(%y, %c1) : f64
      %v = load(%x, %i) : f64
      %t = mul(%v, %w) : f64
      %acc.1 = add(%acc, %t) : f64
      yield(%acc.1)
    }
    yield(%s)
  } {
    yield(%zero)
  }
  return(%r)
}
""")
    licm.run(m, CTX)
    verify_module(m)
    fn = m.functions["f"]
    assert len(_ops(fn, "if")) == 1
    (w,) = [op for op in _ops(fn, "load") if op.operands[0] is fn.params[1]]
    assert _enclosing(w) == ["if"]


def test_while_body_ops_that_may_fail_stay():
    m = _ir("""
func @f(%a: f64, %b: f64) -> f64 {
  %zero = const() {value = 0.0} : f64
  %s = while(%zero) : f64 {
  ^(%s.1: f64):
    %ten = const() {value = 10.0} : f64
    %go = lt(%s.1, %ten) : bool
    condition(%go)
  } {
  ^(%s.2: f64):
    %l = math.log(%a) : f64
    %e = math.exp(%b) : f64
    %d = add(%l, %e) : f64
    %s.3 = add(%s.2, %d) : f64
    yield(%s.3)
  }
  return(%s)
}
""")
    before = parse_module(print_module(m))
    licm.run(m, CTX)
    verify_module(m)
    fn = m.functions["f"]
    body = _ops(fn, "while")[0].regions[1]
    assert [op.name for op in body.ops] == ["math.log", "math.exp", "add", "add", "yield"]
    # A constant alone is not worth hoisting (``_bookkeeping``): the condition keeps its 10.0.
    assert [op.name for op in _ops(fn, "while")[0].regions[0].ops] == ["const", "lt", "condition"]
    for a in (-1.0, 0.5):  # log(-1) fails in both
        _assert_same(before, m, "f", [a, 0.5])


def test_call_without_results_or_to_writer_stays():
    m = _ir("""
func @touch(%y: array<f64,1>) -> () {
  %c0 = const() {value = 0} : i64
  %v = load(%y, %c0) : f64
  return()
}

func @bump(%y: array<f64,1>) -> f64 {
  %c0 = const() {value = 0} : i64
  %v = load(%y, %c0) : f64
  store(%y, %c0, %v)
  return(%v)
}

func @f(%x: array<f64,1>, %y: array<f64,1>, %n: i64) -> f64 {
  %zero = const() {value = 0.0} : f64
  %c0 = const() {value = 0} : i64
  %c1 = const() {value = 1} : i64
  %s = for(%c0, %n, %c1, %zero) : f64 {
  ^(%i: i64, %acc: f64):
    call(%x) {callee = "touch"}
    %b = call(%y) {callee = "bump"} : f64
    %acc.1 = add(%acc, %b) : f64
    yield(%acc.1)
  }
  return(%s)
}
""")
    text = print_module(m)
    licm.run(m, CTX)
    assert print_module(m) == text


def test_hoisted_ops_keep_hints_and_locations():
    path = GOLDEN / "passes" / "licm" / "norm_call_guarded" / "input.ir"
    m = parse_module(path.read_text())
    call = _ops(m.functions["norm"], "call")[0]
    hint, loc = call.result.name_hint, call.loc
    licm.run(m, CTX)
    assert _enclosing(call) == ["if"]
    assert call.result.name_hint == hint and call.loc == loc


@pytest.mark.parametrize("case", LICM_INLINE_CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_golden_pass_cases_are_idempotent(case):
    """The case's pipeline, run again on its expected output, finds nothing more to do."""
    ctx = PassContext(may_alias=(case / "may_alias").exists())
    pipeline = (case / "pipeline").read_text().strip() if (case / "pipeline").exists() else case.parent.name
    m = parse_module((case / "expected.ir").read_text())
    text = print_module(m)
    for name in pipeline.split(","):
        {"licm": licm, "inline": inline}[name.strip()].run(m, ctx)
        verify_module(m)
    assert print_module(m) == text


# ------------------------------------------------------------------------------ inline
def _chain(n_ops: int) -> str:
    body = ["  %p0 = mul(%x, %x) : f64"] + [f"  %p{k} = add(%p{k - 1}, %x) : f64" for k in range(1, n_ops)]
    return (
        "func @h(%x: f64) -> f64 {\n" + "\n".join(body) + f"\n  return(%p{n_ops - 1})\n}}\n\n"
        "func @f(%x: f64) -> f64 {\n  %r = call(%x) {callee = \"h\"} : f64\n  return(%r)\n}\n"
    )


@pytest.mark.parametrize("n_ops, inlined", [(inline.MAX_INLINE_OPS, True), (inline.MAX_INLINE_OPS + 1, False)])
def test_inline_size_threshold(n_ops, inlined):
    m = _ir(_chain(n_ops))
    assert op_count(m.functions["h"]) == n_ops
    inline.run(m, CTX)
    verify_module(m)
    assert (not _ops(m.functions["f"], "call")) is inlined
    assert "h" in m.functions  # the callee stays; the pipeline removes it when unreachable


def test_recursive_function_is_not_inlined():
    m = _ir("""
func @g(%v: f64) -> f64 {
  %r = call(%v) {callee = "g"} : f64
  return(%r)
}

func @f(%v: f64) -> f64 {
  %r = call(%v) {callee = "g"} : f64
  return(%r)
}
""")
    text = print_module(m)
    inline.run(m, CTX)
    assert print_module(m) == text


def test_returned_parameter_keeps_the_callers_value():
    m = _ir("""
func @ident(%v: f64, %w: f64) -> f64 {
  return(%v)
}

func @f(%a: f64, %b: f64) -> f64 {
  %r = call(%a, %b) {callee = "ident"} : f64
  %t = mul(%r, %b) : f64
  return(%t)
}
""")
    inline.run(m, CTX)
    verify_module(m)
    fn = m.functions["f"]
    (mul,) = _ops(fn, "mul")
    assert mul.operands[0] is fn.params[0] and fn.params[0].name_hint == "a"


def test_inlined_values_take_the_callers_name():
    m = parse_module((GOLDEN / "passes" / "inline" / "small_helper" / "input.ir").read_text())
    inline.run(m, CTX)
    names = [r.name_hint for op in m.functions["f"].walk() for r in op.results]
    assert "sp" in names and "r" not in names


def test_loop_helper_stays_but_leaves_the_loop():
    src = (ROOT / "examples" / "norm.py").read_text()
    m = _optimize(parse_source(src, "norm.py", "norm"))
    (call,) = _ops(m.functions["norm"], "call")
    assert call.attrs["callee"] == "mag" and _enclosing(call) == ["if"]


# ----------------------------------------------------------------- golden programs
def _load_case(folder: Path):
    spec = json.loads((folder / "case.json").read_text())
    return spec, [ParamSpec.from_json(p) for p in spec["params"]]


def _with_ints(params: list[ParamSpec], value: int) -> list[ParamSpec]:
    return [ParamSpec(p.name, p.kind, p.shape, value, p.low, p.high, p.dtype, p.ints) if p.kind == "int" else p
            for p in params]


@pytest.mark.parametrize("folder", PROGRAMS, ids=lambda p: p.name)
def test_inline_licm_preserve_golden_programs(folder):
    spec, params = _load_case(folder)
    func, source = spec["func"], (folder / "input.py").read_text()
    before = parse_source(source, "input.py", func)
    after = _optimize(parse_source(source, "input.py", func))
    text = print_module(after)
    licm.run(after, CTX)
    assert print_module(after) == text, "licm is not idempotent"
    rng = np.random.default_rng(0)
    trials = [params] * 3 + ([_with_ints(params, 0), _with_ints(params, 1)] if any(p.kind == "int" for p in params)
                             else [])
    for ps in trials:
        _assert_same(before, after, func, [p.sample(rng) for p in ps])


@pytest.mark.parametrize("folder", PROGRAMS, ids=lambda p: p.name)
def test_gradient_of_optimized_golden_programs(folder):
    spec, params = _load_case(folder)
    func, source = spec["func"], (folder / "input.py").read_text()
    primal = parse_source(source, "input.py", func)
    grad_module = _gradient(source, func, spec["wrt"])
    grad_i = Interpreter(grad_module)
    primal_i = Interpreter(primal)
    grad_fn = grad_module.functions[f"grad_{func}"]
    defaults = {**(grad_fn.attrs.get("param_defaults") or {}), **(grad_fn.attrs.get("defaults") or {})}

    def gradient(*args, d_return=None):
        # The IR takes one seed parameter per returned value; Python output packs them in a tuple.
        seeds = [] if d_return is None else list(d_return) if isinstance(d_return, tuple) else [d_return]
        # A parameter the case leaves out takes its default, as a Python caller's does.
        left_out = grad_fn.params[len(args):len(grad_fn.params) - len(seeds)]
        return grad_i.call(f"grad_{func}", *(list(args) + [defaults[p.name_hint] for p in left_out] + seeds))

    check_gradient(lambda *a: primal_i.call(func, *a), gradient, params, spec["wrt"],
                   written_arrays(primal, func), np.random.default_rng(1))


def _gradient(source: str, func: str, wrt: list[str], filename: str = "input.py"):
    """What ``pipeline.gradient_module`` does with the primal pipeline inline,licm,dce."""
    m = parse_source(source, filename, func)
    _optimize(m)
    dce_module(m)
    remove_unreachable_functions(m, [func])
    verify_module(m)
    out = differentiate(m, func, resolve_wrt(m.functions[func], wrt, m.source_lines))
    dce_module(out)
    remove_unreachable_functions(out, [f"grad_{func}"])
    verify_module(out)
    return out


def test_norm_gradient_calls_grad_mag_outside_the_reversed_loop():
    source = (ROOT / "examples" / "norm.py").read_text()
    grad = _gradient(source, "norm", ["in"], "norm.py")
    g = grad.functions["grad_norm"]
    (call,) = [op for op in _ops(g, "call") if op.attrs["callee"] == "grad_mag"]
    assert "for" not in _enclosing(call) and "while" not in _enclosing(call)
    (primal_call,) = [op for op in _ops(g, "call") if op.attrs["callee"] == "mag"]
    assert "for" not in _enclosing(primal_call)
    # Unoptimized, both sit in loops: the O(n^2) gradient this pass exists to avoid.
    plain = differentiate(parse_source(source, "norm.py", "norm"), "norm", {1})
    (slow,) = [op for op in _ops(plain.functions["grad_norm"], "call") if op.attrs["callee"] == "grad_mag"]
    assert "for" in _enclosing(slow)
    # And the gradient is right.
    spec, params = _load_case(GOLDEN / "call_vector_helper")
    primal_i, grad_i = Interpreter(parse_source(source, "norm.py", "norm")), Interpreter(grad)
    primal = parse_source(source, "norm.py", "norm")
    check_gradient(lambda *a: primal_i.call("norm", *a), lambda *a: grad_i.call("grad_norm", *a), params, ["in"],
                   written_arrays(primal, "norm"), np.random.default_rng(2))
