"""CSE and constant folding: edge cases, and semantics kept on every golden program.

The golden IR cases of both passes live in golden/passes/{cse,fold}/ and run in
test_pass_golden.py. Here: edge cases that need a look at the IR objects (name
hints, identity of the kept value, the verifier after each pass), and every
golden/*/input.py program, primal and gradient, run through each pass and
through both with DCE, verified, and run by the interpreter before and after on
random inputs from its case.json: results and written arrays must not change.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from fd import ParamSpec
from golden_cases import load_cases

from s2sad.adjoint.gradient import differentiate
from s2sad.opt import cse, fold
from s2sad.opt.dce import dce_module
from s2sad.opt.passes import PassContext
from s2sad.pipeline import resolve_wrt, parse_source
from s2sad.ssa.interp import Interpreter
from s2sad.ssa.parser import parse_module
from s2sad.ssa.printer import print_module
from s2sad.ssa.verifier import verify_module


NO_ALIAS = PassContext()
ALIAS = PassContext(may_alias=True)


def _run(text: str, pass_, ctx: PassContext = NO_ALIAS):
    module = parse_module(text)
    verify_module(module)
    pass_(module, ctx)
    verify_module(module)
    return module


def _ops(module, name="f"):
    return [op.name for op in module.functions[name].walk()]


def _count(module, opname, name="f"):
    return _ops(module, name).count(opname)


def _returned(module, name="f"):
    return module.functions[name].body.terminator.operands[0]


# -- CSE edge cases ---------------------------------------------------------------------


def test_cse_keeps_first_and_moves_the_name_of_the_erased_value():
    m = _run(
        "func @f(%a: f64, %b: f64) -> f64 {\n  %0 = mul(%a, %b) : f64\n  %prod = mul(%b, %a) : f64\n"
        "  %s = add(%0, %prod) : f64\n  return(%s)\n}\n",
        cse.run,
    )
    body = m.functions["f"].body
    assert [op.name for op in body.ops] == ["mul", "add", "return"]
    assert body.ops[0].result.name_hint == "prod"
    assert body.ops[1].operands[0] is body.ops[1].operands[1]


def test_cse_keeps_the_kept_values_own_name():
    m = _run(
        "func @f(%a: f64) -> f64 {\n  %x = neg(%a) : f64\n  %y = neg(%a) : f64\n"
        "  %s = add(%x, %y) : f64\n  return(%s)\n}\n",
        cse.run,
    )
    assert [op.result.name_hint for op in m.functions["f"].body.ops[:-1]] == ["x", "s"]


def test_cse_does_not_merge_across_sibling_if_regions_or_out_of_them():
    text = (
        "func @f(%a: f64, %c: bool) -> f64 {\n"
        "  %r = if(%c) : f64 {\n    %x = mul(%a, %a) : f64\n    yield(%x)\n"
        "  } {\n    %y = mul(%a, %a) : f64\n    yield(%y)\n  }\n"
        "  %z = mul(%a, %a) : f64\n  %s = add(%r, %z) : f64\n  return(%s)\n}\n"
    )
    m = _run(text, cse.run)
    assert _count(m, "mul") == 3


def test_cse_merges_loop_invariant_load_only_when_the_loop_does_not_write_it():
    loop = (
        "func @f(%x: array<f64,1>, %y: array<f64,1>, %n: i64) -> f64 {{\n"
        "  %c0 = const() {{value = 0}} : i64\n  %c1 = const() {{value = 1}} : i64\n"
        "  %a = load(%x, %c0) : f64\n"
        "  %s = for(%c0, %n, %c1, %a) : f64 {{\n  ^(%i: i64, %acc: f64):\n"
        "    %b = load(%x, %c0) : f64\n    store({target}, %i, %b)\n"
        "    %acc2 = add(%acc, %b) : f64\n    yield(%acc2)\n  }}\n  return(%s)\n}}\n"
    )
    assert _count(_run(loop.format(target="%y"), cse.run), "load") == 1
    assert _count(_run(loop.format(target="%x"), cse.run), "load") == 2
    # --may-alias: y may be x.
    assert _count(_run(loop.format(target="%y"), cse.run, ALIAS), "load") == 2


def test_cse_store_after_the_second_load_in_a_loop_still_blocks():
    # The store comes after both loads in program order, but the next iteration's
    # load of x[0] follows this iteration's store: the load outside the loop is stale.
    text = (
        "func @f(%x: array<f64,1>, %n: i64) -> f64 {\n"
        "  %c0 = const() {value = 0} : i64\n  %c1 = const() {value = 1} : i64\n"
        "  %a = load(%x, %c0) : f64\n"
        "  %s = for(%c0, %n, %c1, %a) : f64 {\n  ^(%i: i64, %acc: f64):\n"
        "    %b = load(%x, %c0) : f64\n    %acc2 = add(%acc, %b) : f64\n"
        "    store(%x, %c0, %acc2)\n    yield(%acc2)\n  }\n  return(%s)\n}\n"
    )
    m = _run(text, cse.run)
    assert _count(m, "load") == 2
    x = np.array([1.0, 2.0, 3.0])
    assert Interpreter(m).call("f", x.copy(), 3) == Interpreter(parse_module(text)).call("f", x.copy(), 3)


STORE_BETWEEN = (
    "func @f(%x: array<f64,1>, %y: array<f64,1>, %i: i64, %v: f64) -> f64 {{\n"
    "  %c1 = const() {{value = 1}} : i64\n  %j = sub(%i, %c1) : i64\n"
    "  %a = load(%x, %j) : f64\n  store({target}, {index}, %v)\n  %b = load(%x, %j) : f64\n"
    "  %s = add(%a, %b) : f64\n  return(%s)\n}}\n"
)


@pytest.mark.parametrize("target, index, loads, ctx", [
    ("%x", "%i", 1, NO_ALIAS),  # x[i - 1] read again after x[i] = v: another element
    ("%x", "%i", 1, ALIAS),  # (the same array value: so whatever aliases it)
    ("%x", "%j", 2, NO_ALIAS),  # the same element: read anew
    ("%x", "%c1", 2, NO_ALIAS),  # i - 1 may be 1
    ("%y", "%i", 2, ALIAS),  # y may be x, at any offset
])
def test_cse_a_load_stays_available_across_a_store_to_another_element(target, index, loads, ctx):
    m = _run(STORE_BETWEEN.format(target=target, index=index), cse.run, ctx)
    assert _count(m, "load") == loads
    x = np.array([1.0, 2.0, 3.0])
    before = parse_module(STORE_BETWEEN.format(target=target, index=index))
    for i in (1, 2):
        want = Interpreter(before).call("f", x.copy(), x.copy(), i, 7.0)
        assert Interpreter(m).call("f", x.copy(), x.copy(), i, 7.0) == want


def test_cse_tape_ops_do_not_touch_user_arrays():
    text = (
        "func @f(%x: array<f64,1>, %v: f64) -> f64 {\n"
        "  %c0 = const() {value = 0} : i64\n  %c4 = const() {value = 4} : i64\n"
        '  %t = tape.new(%c4) {elem = "f64", grow = false} : array<f64,1>\n'
        "  %a = load(%x, %c0) : f64\n  tape.push(%t, %v)\n  %p = tape.pop(%t) : f64\n"
        "  %q = tape.pop(%t) : f64\n  %b = load(%x, %c0) : f64\n"
        "  %s = add(%a, %b) : f64\n  %s2 = add(%s, %p) : f64\n  return(%s2)\n}\n"
    )
    m = _run(text, cse.run, ALIAS)
    assert _count(m, "load") == 1
    assert _count(m, "tape.pop") == 2  # a pop changes the tape: never merged


def test_cse_call_to_writing_function_blocks_only_its_written_arguments():
    text = (
        "func @w(%a: array<f64,1>, %b: array<f64,1>) -> () {\n"
        "  %c0 = const() {value = 0} : i64\n  %v = load(%b, %c0) : f64\n"
        "  store(%a, %c0, %v)\n  return()\n}\n\n"
        "func @f(%x: array<f64,1>, %y: array<f64,1>) -> f64 {\n"
        "  %c0 = const() {value = 0} : i64\n"
        "  %x1 = load(%x, %c0) : f64\n  %y1 = load(%y, %c0) : f64\n"
        '  call(%x, %y) {callee = "w"}\n'
        "  %x2 = load(%x, %c0) : f64\n  %y2 = load(%y, %c0) : f64\n"
        "  %s = add(%x1, %x2) : f64\n  %s2 = add(%y1, %y2) : f64\n"
        "  %s3 = add(%s, %s2) : f64\n  return(%s3)\n}\n"
    )
    m = _run(text, cse.run)
    assert _count(m, "load") == 3  # x reloaded, y reused
    assert _count(_run(text, cse.run, ALIAS), "load") == 4


def test_cse_does_not_merge_calls_returning_or_writing_arrays():
    text = (
        "func @g(%a: array<f64,1>) -> f64 {\n  %c0 = const() {value = 0} : i64\n"
        "  %v = load(%a, %c0) : f64\n  %one = const() {value = 1.0} : f64\n"
        "  %w = add(%v, %one) : f64\n  store(%a, %c0, %w)\n  return(%w)\n}\n\n"
        "func @f(%x: array<f64,1>) -> f64 {\n"
        '  %p = call(%x) {callee = "g"} : f64\n  %q = call(%x) {callee = "g"} : f64\n'
        "  %s = add(%p, %q) : f64\n  return(%s)\n}\n"
    )
    assert _count(_run(text, cse.run), "call") == 2


def test_cse_merges_calls_that_only_write_their_own_scratch_arrays():
    text = (
        "func @g(%a: array<f64,1>) -> f64 {\n  %c0 = const() {value = 0} : i64\n  %c1 = const() {value = 1} : i64\n"
        '  %t = alloc(%c1) {elem = "f64", fill = "zeros"} : array<f64,1>\n'
        "  %v = load(%a, %c0) : f64\n  store(%t, %c0, %v)\n  %w = load(%t, %c0) : f64\n  return(%w)\n}\n\n"
        "func @mk(%n: i64) -> array<f64,1> {\n"
        '  %t = alloc(%n) {elem = "f64", fill = "zeros"} : array<f64,1>\n  return(%t)\n}\n\n'
        "func @f(%x: array<f64,1>, %n: i64) -> f64 {\n"
        '  %p = call(%x) {callee = "g"} : f64\n  %q = call(%x) {callee = "g"} : f64\n'
        '  %a = call(%n) {callee = "mk"} : array<f64,1>\n  %b = call(%n) {callee = "mk"} : array<f64,1>\n'
        "  %c0 = const() {value = 0} : i64\n  store(%a, %c0, %p)\n  %v = load(%b, %c0) : f64\n"
        "  %s = add(%p, %q) : f64\n  %s2 = add(%s, %v) : f64\n  return(%s2)\n}\n"
    )
    m = _run(text, cse.run)
    assert _count(m, "call") == 3  # the two calls to @g merge; each @mk makes a new array
    x = np.array([2.0, 3.0])
    assert Interpreter(m).call("f", x.copy(), 2) == Interpreter(parse_module(text)).call("f", x.copy(), 2) == 4.0


def test_cse_unknown_array_root_is_conservative():
    # An array carried by a loop has no known root: a store to it may write anything.
    text = (
        "func @f(%x: array<f64,1>, %y: array<f64,1>, %n: i64) -> f64 {\n"
        "  %c0 = const() {value = 0} : i64\n  %c1 = const() {value = 1} : i64\n"
        "  %a = load(%x, %c0) : f64\n"
        "  %arr = for(%c0, %n, %c1, %y) : array<f64,1> {\n  ^(%i: i64, %cur: array<f64,1>):\n"
        "    yield(%x)\n  }\n  store(%arr, %c0, %a)\n"
        "  %b = load(%x, %c0) : f64\n  %s = add(%a, %b) : f64\n  return(%s)\n}\n"
    )
    assert _count(_run(text, cse.run), "load") == 2


# -- fold edge cases --------------------------------------------------------------------


def _fold_expr(op_line: str, params: str = "%x: f64", result: str = "f64") -> str:
    return print_module(_run(f"func @f({params}) -> {result} {{\n{op_line}\n  return(%r)\n}}\n", fold.run))


def test_fold_int_arithmetic_follows_python():
    out = _fold_expr(
        "  %a = const() {value = -7} : i64\n  %b = const() {value = 2} : i64\n"
        "  %r = mod(%a, %b) : i64",
        "",
        "i64",
    )
    assert "value = 1}" in out and "mod(" not in out


@pytest.mark.parametrize(
    "lines",
    [
        "  %a = const() {value = 1.0} : f64\n  %z = const() {value = 0.0} : f64\n  %r = div(%a, %z) : f64",
        "  %a = const() {value = -1.0} : f64\n  %r = math.sqrt(%a) : f64",
        "  %a = const() {value = 1e308} : f64\n  %r = add(%a, %a) : f64",
        "  %a = const() {value = 2} : i64\n  %b = const() {value = -3} : i64\n  %p = pow(%a, %b) : i64\n"
        "  %r = cast(%p) : f64",
    ],
)
def test_fold_skips_what_would_raise_overflow_or_change_kind(lines):
    out = _fold_expr(lines, "")
    for line in lines.splitlines():
        assert line.split("//")[0].strip().replace("1e308", "1e+308") in out


def test_fold_signed_zero_constants_are_kept_apart_from_identities():
    # -0.0 * 1.0 folds to -0.0 (exact); x * -0.0 is not x * 0 for ints only.
    out = _fold_expr("  %a = const() {value = -0.0} : f64\n  %o = const() {value = 1.0} : f64\n"
                     "  %r = mul(%a, %o) : f64", "")
    assert "value = -0.0" in out and "mul(" not in out


def test_fold_moves_hint_and_keeps_location():
    m = _run(
        "func @f() -> i64 {\n  %a = const() {value = 3} : i64\n  %b = const() {value = 4} : i64\n"
        "  %n = mul(%a, %b) : i64 @7:5\n  return(%n)\n}\n",
        fold.run,
    )
    (c, ret) = m.functions["f"].body.ops
    assert c.name == "const" and c.attrs["value"] == 12 and c.result.name_hint == "n"
    assert (c.loc.line, c.loc.col) == (7, 5) and ret.operands[0] is c.result


def test_fold_does_not_erase_ops_that_were_dead_before():
    m = _run(
        "func @f(%x: f64) -> f64 {\n  %dead = mul(%x, %x) : f64\n  %o = const() {value = 1.0} : f64\n"
        "  %r = mul(%x, %o) : f64\n  return(%r)\n}\n",
        fold.run,
    )
    assert _ops(m) == ["mul", "return"]
    assert _returned(m) is m.functions["f"].params[0]


def test_fold_bool_cast_and_int_to_float_cast():
    out = _fold_expr("  %a = const() {value = true} : bool\n  %r = cast(%a) : f64", "")
    assert "value = 1.0" in out and "cast(" not in out


def test_fold_while_whose_condition_folds_to_false_goes():
    # The condition folds first (not(false) and false), then the loop: its body never runs.
    text = (
        "func @f(%x: f64) -> f64 {\n  %z = const() {value = 0.0} : f64\n"
        "  %f = const() {value = false} : bool\n"
        "  %r = while(%x) : f64 {\n  ^(%a: f64):\n    %t = not(%f) : bool\n    %c = and(%t, %f) : bool\n"
        "    condition(%c)\n  } {\n  ^(%b: f64):\n    %b2 = add(%b, %z) : f64\n    yield(%b2)\n  }\n"
        "  return(%r)\n}\n"
    )
    m = _run(text, fold.run)
    assert _count(m, "while") == 0 and _count(m, "add") == 0 and _count(m, "and") == 0
    assert _returned(m) is m.functions["f"].params[0]
    assert Interpreter(m).call("f", 2.0) == 2.0


def test_fold_while_condition_region_runs_once_when_the_loop_goes():
    # The condition region's ops (a store here) ran once on the initial values: they stay.
    text = (
        "func @f(%x: array<f64,1>, %s: f64) -> f64 {\n  %c0 = const() {value = 0} : i64\n"
        "  %f = const() {value = false} : bool\n"
        "  %r = while(%s) : f64 {\n  ^(%a: f64):\n    store(%x, %c0, %a)\n    condition(%f)\n  } {\n"
        "  ^(%b: f64):\n    %b2 = mul(%b, %b) : f64\n    yield(%b2)\n  }\n  return(%r)\n}\n"
    )
    m = _run(text, fold.run)
    assert _ops(m) == ["const", "store", "return"]
    x = np.zeros(1)
    assert Interpreter(m).call("f", x, 3.0) == 3.0 and x[0] == 3.0


def test_fold_while_with_a_varying_condition_stays_but_its_regions_fold():
    # b + (-0.0) is b for every b (b + 0.0 is not: -0.0 + 0.0 is +0.0, see is_zero_of_sign)
    text = (
        "func @f(%x: f64) -> f64 {\n  %z = const() {value = -0.0} : f64\n"
        "  %f = const() {value = false} : bool\n"
        "  %r = while(%x) : f64 {\n  ^(%a: f64):\n    %t = lt(%a, %z) : bool\n    %c = or(%t, %f) : bool\n"
        "    condition(%c)\n  } {\n  ^(%b: f64):\n    %b2 = add(%b, %z) : f64\n    %one = const() {value = 1.0} : f64\n"
        "    %b3 = add(%b2, %one) : f64\n    yield(%b3)\n  }\n"
        "  return(%r)\n}\n"
    )
    m = _run(text, fold.run)
    assert _count(m, "while") == 1 and _count(m, "or") == 0 and _count(m, "add") == 1
    assert Interpreter(m).call("f", -2.5) == 0.5


def test_fold_if_with_constant_condition_in_a_loop_body():
    text = (
        "func @f(%x: array<f64,1>, %n: i64) -> f64 {\n"
        "  %c0 = const() {value = 0} : i64\n  %c1 = const() {value = 1} : i64\n"
        "  %z = const() {value = 0.0} : f64\n  %t = const() {value = true} : bool\n"
        "  %s = for(%c0, %n, %c1, %z) : f64 {\n  ^(%i: i64, %acc: f64):\n"
        "    %u = if(%t) : f64 {\n      %v = load(%x, %i) : f64\n      %w = add(%acc, %v) : f64\n"
        "      yield(%w)\n    } {\n      yield(%acc)\n    }\n    yield(%u)\n  }\n  return(%s)\n}\n"
    )
    m = _run(text, fold.run)
    assert _count(m, "if") == 0
    body = m.functions["f"].body.ops[-2].regions[0]
    assert [op.name for op in body.ops] == ["load", "add", "yield"]
    assert body.ops[1].result.name_hint == "w"  # the yielded value already had a name
    x = np.arange(4.0)
    assert Interpreter(m).call("f", x, 4) == 6.0


def test_fold_if_result_that_both_branches_yield_alike_is_that_value():
    # Slot 0 yields %x in both branches, slot 1 equal constants made in each, slot 2 constants
    # 0.0 and -0.0 (not alike), slot 3 two different values. The first two become the value;
    # the if stays for the other two (fuzz seed 9000269: a condition only such a result read
    # kept a checkpoint snapshot that nothing loaded).
    text = (
        "func @f(%x: f64, %c: bool) -> f64, f64, f64, f64 {\n"
        "  %r0, %r1, %r2, %r3 = if(%c) : f64, f64, f64, f64 {\n"
        "    %a = const() {value = 2.0} : f64\n    %p = const() {value = 0.0} : f64\n"
        "    %m = mul(%x, %a) : f64\n    yield(%x, %a, %p, %m)\n"
        "  } {\n    %b = const() {value = 2.0} : f64\n    %q = const() {value = -0.0} : f64\n"
        "    yield(%x, %b, %q, %x)\n  }\n  return(%r0, %r1, %r2, %r3)\n}\n"
    )
    m = _run(text, fold.run)
    fn = m.functions["f"]
    r0, r1, r2, r3 = fn.body.terminator.operands
    assert r0 is fn.params[0]
    assert r1.defining_op.name == "const" and r1.defining_op.parent is fn.body
    assert r2.defining_op.name == "if" and r3.defining_op.name == "if"
    for c in (True, False):
        assert Interpreter(m).call("f", 1.5, c) == ((1.5, 2.0, 0.0, 3.0) if c else (1.5, 2.0, -0.0, 1.5))


def test_fold_if_that_computes_nothing_is_a_select_per_result():
    # Both branches yield values made before the if or constants (a C conditional once CSE has
    # merged its loads, the adjoint of one): a select each, the constants before them.
    text = (
        "func @f(%x: f64, %y: f64, %c: bool) -> f64, f64, f64 {\n"
        "  %r0, %r1, %r2 = if(%c) : f64, f64, f64 {\n"
        "    %z = const() {value = 0.0} : f64\n    yield(%x, %z, %y)\n"
        "  } {\n    %w = const() {value = 0.0} : f64\n    yield(%y, %x, %y)\n  }\n"
        "  return(%r0, %r1, %r2)\n}\n"
    )
    m = _run(text, fold.run)
    fn = m.functions["f"]
    assert _count(m, "if") == 0 and _count(m, "select") == 2
    assert fn.body.terminator.operands[2] is fn.params[1]  # the same value in both: no select
    for c in (True, False):
        assert Interpreter(m).call("f", 1.5, 2.5, c) == ((1.5, 0.0, 2.5) if c else (2.5, 1.5, 2.5))


def test_fold_if_that_computes_or_yields_an_array_stays():
    text = (
        "func @f(%x: f64, %a: array<f64,1>, %b: array<f64,1>, %c: bool) -> f64, array<f64,1> {\n"
        "  %r0, %r1 = if(%c) : f64, array<f64,1> {\n    yield(%x, %a)\n  } {\n    yield(%x, %b)\n  }\n"
        "  %s = if(%c) : f64 {\n    %m = mul(%x, %x) : f64\n    yield(%m)\n  } {\n    yield(%x)\n  }\n"
        "  return(%s, %r1)\n}\n"
    )
    m = _run(text, fold.run)
    assert _count(m, "if") == 2 and _count(m, "select") == 0


# -- every golden program, primal and gradient ------------------------------------------

CASES = load_cases()
PIPELINES = {
    "cse": [cse.run],
    "fold": [fold.run],
    "fold,cse,dce": [fold.run, cse.run, lambda m, ctx: dce_module(m)],
}


def _inputs(fn, specs: dict[str, ParamSpec], rng) -> list:
    """Arguments for ``fn`` from the case's specs; shadows ``d_<name>`` are shaped like ``<name>``."""
    args = []
    # A parameter the case leaves out takes its default, as the Python caller's does (a random
    # exponent of a negative base would make the program complex).
    defaults = {**(fn.attrs.get("param_defaults") or {}), **(fn.attrs.get("defaults") or {})}
    for p in fn.params:
        name = p.name_hint
        spec = specs.get(name) or specs.get(name.removeprefix("d_"))
        if spec is None and name in defaults and name != "d_return":
            args.append(defaults[name])
        elif name == "d_return" or spec is None:
            args.append(float(rng.normal()))
        elif name not in specs:
            args.append(rng.normal(size=spec.shape))
        else:
            args.append(spec.sample(rng))
    return args


def _outcome(module, func: str, args: list):
    work = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    result = Interpreter(module).call(func, *work)
    return result, [a for a in work if isinstance(a, np.ndarray)]


def _check_same(before, after, func: str, specs: dict[str, ParamSpec]) -> None:
    rng = np.random.default_rng(1)
    for _ in range(3):
        args = _inputs(before.functions[func], specs, rng)
        r0, arrays0 = _outcome(before, func, args)
        r1, arrays1 = _outcome(after, func, args)
        if r0 is None:
            assert r1 is None
        else:
            parts0 = list(r0) if isinstance(r0, (list, tuple)) else [r0]  # several results, one by one
            parts1 = list(r1) if isinstance(r1, (list, tuple)) else [r1]
            assert len(parts1) == len(parts0)
            for p0, p1 in zip(parts0, parts1):
                np.testing.assert_allclose(np.asarray(p1, float), np.asarray(p0, float), rtol=1e-12, atol=1e-14)
        for a0, a1 in zip(arrays0, arrays1):
            np.testing.assert_allclose(a1, a0, rtol=1e-12, atol=1e-14)


def _primal(case):
    module = parse_source(case.source, "input.py", case.func)
    verify_module(module)
    return module


@functools.lru_cache(maxsize=None)
def _texts(name: str) -> tuple[str, str]:
    """The primal's and the gradient's IR text (parsing Python is the slow part: once per case)."""
    case = next(c for c in CASES if c.name == name)
    primal = _primal(case)
    text = print_module(primal)
    out = differentiate(primal, case.func, resolve_wrt(primal.functions[case.func], case.wrt, primal.source_lines))
    dce_module(out)
    return text, print_module(out)


def _load(case, which: int):
    module = parse_module(_texts(case.name)[which])
    verify_module(module)
    return module


@pytest.mark.parametrize("ctx", [NO_ALIAS, ALIAS], ids=["no_alias", "may_alias"])
@pytest.mark.parametrize("pipeline", list(PIPELINES))
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_passes_keep_semantics_of_golden_programs(case, pipeline, ctx):
    specs = {p.name: p for p in case.params}
    for which, func in ((0, case.func), (1, "grad_" + case.func)):
        before, after = _load(case, which), _load(case, which)
        for pass_ in PIPELINES[pipeline]:
            pass_(after, ctx)
            verify_module(after)
        _check_same(before, after, func, specs)
        if len(PIPELINES[pipeline]) == 1:
            # The pass reaches its fixpoint: a second run changes nothing.
            once = print_module(after)
            PIPELINES[pipeline][0](after, ctx)
            assert print_module(after) == once, f"a second {pipeline} changed {func}"


def test_cse_finds_something_in_golden_programs():
    """Guards against a CSE that silently never fires."""
    merged = 0
    for case in CASES:
        module = _load(case, 0)
        before = sum(1 for fn in module.functions.values() for _ in fn.walk())
        cse.run(module, NO_ALIAS)
        merged += before - sum(1 for fn in module.functions.values() for _ in fn.walk())
    assert merged > 20


@pytest.mark.parametrize("fn, x, want", [("ceil", -0.25, -0.0), ("floor", -0.0, -0.0), ("trunc", -0.5, -0.0),
                                         ("ceil", 0.25, 1.0), ("floor", -1.5, -2.0)])
def test_rounding_to_an_integer_keeps_the_sign_of_a_zero_when_folded(fn, x, want):
    """C's and NumPy's floor/ceil/trunc give floats, -0.0 for a zero result from a negative input:
    folded with Python's int-valued math.ceil, np.copysign(s, np.ceil(-0.25)) came out +|s|
    (fuzz seed 12003356: an array written with the wrong sign)."""
    text = f"""module "t.py"

func @f(%x: f64) -> f64 {{
  %c = const() {{value = {x}}} : f64
  %r = math.{fn}(%c) : f64
  %one = const() {{value = 1.0}} : f64
  %s = math.copysign(%one, %r) : f64
  %y = mul(%x, %s) : f64
  return(%y)
}}
"""
    module = parse_module(text)
    before = Interpreter(module).call("f", 2.0)
    fold.run(module, PassContext())
    assert "math." + fn not in print_module(module)  # folded
    after = Interpreter(module).call("f", 2.0)
    assert before == after == 2.0 * np.copysign(1.0, want)


# A helper's test inlined in the else of its caller's test of the same value (CSE made the two
# one): known false there, the inner if is its else branch. Before, the output read
# `if t0: ... elif t0: ...` forwards and `if t1: ... else: ... if not t1:` in reverse (probe
# round 7: ruff's SIM114 and SIM102 on the gradient).
STEP_IN_ELSE = '''import math


def step(t):
    if t < -1.0:
        return 0.0
    elif t > 1.0:
        return 1.0
    else:
        s = t + 1.0
        return s * s


def f(x, a):
    total = 0.0
    for i in range(len(x)):
        v = a * x[i]
        if v < -1.0:
            total += v
        else:
            total += step(v) * math.exp(-v)
    return total
'''


@pytest.mark.parametrize("target", ["py", "numba"])
def test_a_test_known_from_an_if_around_it_folds(target):
    from fd import check_source_function

    from s2sad import pipeline

    text = pipeline.gradient_source(STEP_IN_ELSE, "prog.py", "f", ["a"], target)
    code = [line.strip() for line in text.splitlines() if not line.strip().startswith("#")]
    assert code.count("if v < -1.0:") == 2 and not any(line.startswith(("elif t", "if not t")) for line in code), text
    check_source_function(STEP_IN_ELSE, "f", [np.array([-2.0, -0.5, 0.3, 1.4]), 0.9], ["a"], target)
