"""The IR's text form: ``print(parse(print(m))) == print(m)``, and parse errors that point at the problem.

Hand-written IR covers every op kind, nested regions, several results, attributes
of every kind, function attributes, locations, unnamed values and repeated hints;
IR built through the ``Builder`` covers what hand-written text cannot (odd hints,
control characters, NumPy scalars). The golden inputs are parsed by the Python
front end and must round-trip and verify too.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from s2sad.pipeline import parse_source
from s2sad.ssa import build
from s2sad.ssa.interp import Interpreter
from s2sad.ssa.ir import Block, Builder, Function, Module, SourceLoc
from s2sad.ssa.parser import IRParseError, parse_function, parse_module
from s2sad.ssa.printer import format_attr, print_function, print_module
from s2sad.ssa.types import BOOL, F32, F64, I32, I64, ArrayType
from s2sad.ssa.verifier import verify_module

GOLDEN = Path(__file__).resolve().parent.parent / "golden"

# Every op kind, in canonical printed form (so the text itself must come back unchanged).
EVERY_OP = """\
module "every_op.py"

func @helper(%v: f64, %k: i64) -> f64, i64 @1:1 {
  %0 = mul(%v, %v) : f64 @2:5
  return(%0, %k) @2:5
}

func @main(%x: array<f64,1>, %A: array<f64,2>, %n: i64, %a: f64, %b: f32, %j: i32) -> f64, bool attributes A @10:1 {
  comment() {text = "forward \\"sweep\\"\\n\\ttab \\\\ back"}
  %c0 = const() {value = 0} : i64 @11:5
  %c1 = const() {value = 1} : i64
  %cm1 = const() {value = -1} : i64
  %half = const() {value = 0.5} : f64
  %big = const() {value = 1.5e+300} : f64
  %eps = const() {value = 1e-08} : f64
  %inf = const() {value = inf} : f64
  %ninf = const() {value = -inf} : f64
  %nan = const() {value = nan} : f64
  %mz = const() {value = -0.0} : f64
  %t = const() {value = true} : bool
  %f = const() {value = false} : bool
  %0 = add(%a, %half) : f64 @12:9
  %1 = sub(%0, %eps) : f64
  %2 = mul(%1, %a) : f64
  %3 = div(%2, %half) : f64
  %4 = floordiv(%n, %c1) : i64
  %5 = mod(%4, %n) : i64
  %6 = pow(%a, %half) : f64
  %7 = neg(%6) : f64
  %lt = lt(%a, %half) : bool
  %le = le(%n, %c0) : bool
  %gt = gt(%a, %2) : bool
  %ge = ge(%a, %2) : bool
  %eq = eq(%t, %f) : bool
  %ne = ne(%n, %5) : bool
  %nt = not(%lt) : bool
  %an = and(%nt, %le) : bool
  %or = or(%an, %gt) : bool
  %sel = select(%or, %a, %7) : f64
  %fi = cast(%n) : f64
  %fb = cast(%b) : f64
  %ij = cast(%j) : i64
  %bi = cast(%t) : i64
  %s = math.sin(%sel) : f64
  %at = math.atan2(%s, %a) : f64
  %mx = math.max(%n, %ij) : i64
  %u = undef() : f64
  %d0 = dim(%A) {axis = 0} : i64
  %d1 = dim(%A) {axis = 1} : i64
  %w = alloc(%d0, %d1) {elem = "f64", fill = "zeros"} : array<f64,2>
  %e = alloc(%n) {elem = "i64", fill = "empty"} : array<i64,1>
  %l = load(%A, %c0, %c1) : f64 @20:13
  store(%w, %c0, %c1, %l) @21:5
  store(%e, %c0, %n)
  %h, %k = call(%l, %n) {callee = "helper"} : f64, i64 @22:12
  %tape = tape.new(%n) {elem = "f64", grow = false} : array<f64,1>
  %acc, %cnt = for(%c0, %n, %c1, %a, %c0) : f64, i64 @23:5 {
  ^(%i: i64, %acc.1: f64, %cnt.1: i64):
    %xi = load(%x, %i) : f64 @24:14
    tape.push(%tape, %xi)
    %pos = gt(%xi, %half) : bool
    %acc.2, %cnt.2 = if(%pos) : f64, i64 @25:9 {
    ^():
      %8 = mul(%acc.1, %xi) : f64
      %9 = add(%cnt.1, %c1) : i64
      yield(%8, %9)
    } {
    ^():
      %r = for(%n, %c0, %cm1, %acc.1) : f64 {
      ^(%i.1: i64, %acc.3: f64):
        %10 = add(%acc.3, %xi) : f64
        yield(%10)
      }
      yield(%r, %cnt.1)
    }
    yield(%acc.2, %cnt.2)
  }
  %p = tape.pop(%tape) : f64
  %wv, %wk = while(%acc, %c0) : f64, i64 @30:5 {
  ^(%v: f64, %m: i64):
    %go = lt(%m, %n) : bool
    condition(%go)
  } {
  ^(%v.1: f64, %m.1: i64):
    %v.2 = mul(%v.1, %half) : f64
    %m.2 = add(%m.1, %c1) : i64
    yield(%v.2, %m.2)
  }
  if(%t) {
  ^():
    store(%x, %c0, %wv)
    yield()
  } {
  ^():
    yield()
  }
  %res = add(%wv, %p) : f64
  %11 = add(%res, %h) : f64
  return(%11, %ne) @40:5
}
""".replace(
    "attributes A",
    'attributes {defaults = {d_return = 1.0, nested = {deep = [1, 2.5, "s"]}}, '
    'flags = [true, false], neg = -3, primal = "helper", tiny = 1e-08}',
)


def roundtrip(m: Module) -> str:
    text = print_module(m)
    again = print_module(parse_module(text))
    assert again == text
    return text


def test_every_op_text_comes_back_unchanged():
    module = parse_module(EVERY_OP)
    assert print_module(module) == EVERY_OP
    verify_module(module)
    assert print_module(parse_module(print_module(module))) == EVERY_OP


def test_every_op_module_runs():
    module = parse_module(EVERY_OP)
    x = np.array([0.25, 1.0, 2.0])
    A = np.arange(6.0).reshape(2, 3)
    out, flag = Interpreter(module).call("main", x, A, 3, 0.75, np.float32(1.5), 2)
    assert math.isfinite(out) and flag is True
    assert x[0] != 0.25  # the result-less ``if`` stored into x


def test_parsed_structure():
    module = parse_module(EVERY_OP)
    assert list(module.functions) == ["helper", "main"]
    assert module.source_file == "every_op.py"
    main = module.functions["main"]
    assert main.param_names == ["x", "A", "n", "a", "b", "j"]
    assert main.params[0].type == ArrayType(F64, 1)
    assert [p.type for p in main.params[4:]] == [F32, I32]
    assert main.result_types == [F64, BOOL]
    assert main.loc == SourceLoc("every_op.py", 10, 1)
    assert main.attrs == {
        "defaults": {"d_return": 1.0, "nested": {"deep": [1, 2.5, "s"]}},
        "flags": [True, False],
        "neg": -3,
        "primal": "helper",
        "tiny": 1e-08,
    }
    ops = {op.results[0].name_hint if op.results else op.name: op for op in main.body.ops}
    assert ops["comment"].attrs["text"] == 'forward "sweep"\n\ttab \\ back'
    assert ops["c0"].attrs["value"] == 0 and type(ops["c0"].attrs["value"]) is int
    assert type(ops["half"].attrs["value"]) is float
    assert ops["t"].attrs["value"] is True
    assert math.isinf(ops["ninf"].attrs["value"]) and ops["ninf"].attrs["value"] < 0
    assert math.isnan(ops["nan"].attrs["value"])
    assert math.copysign(1.0, ops["mz"].attrs["value"]) == -1.0
    assert ops["c0"].loc == SourceLoc("every_op.py", 11, 5)
    assert ops["c1"].loc is None

    # Unnamed values have no hint; the ``.N`` of repeats is stripped back to the hint.
    assert [op.result.name_hint for op in main.body.ops if op.name == "add"][0] == ""
    loop = ops["acc"]
    assert [r.name_hint for r in loop.results] == ["acc", "cnt"]
    assert [a.name_hint for a in loop.regions[0].args] == ["i", "acc", "cnt"]
    assert loop.regions[0].parent_op is loop
    assert loop.operands[3] is main.params[3]

    # Uses are recorded both ways, including uses from nested regions.
    half = ops["half"].result
    users = {op.name for op, _ in half.uses}
    assert {"add", "div", "pow", "lt", "gt", "mul"} <= users
    for op, i in half.uses:
        assert op.operands[i] is half


def test_function_without_results_and_module_header_optional():
    text = "func @f(%x: array<f64,1>) -> () {\n  return()\n}\n"
    module = parse_module(text)
    assert module.source_file == ""
    assert module.functions["f"].result_types == []
    assert print_module(module) == 'module ""\n' + "\n" + text


def test_parse_function_uses_given_source_file():
    fn = parse_function("func @f(%a: f64) -> f64 @2:1 {\n  %b = neg(%a) : f64 @3:7\n  return(%b)\n}\n", "f.py")
    assert fn.loc == SourceLoc("f.py", 2, 1)
    assert fn.body.ops[0].loc == SourceLoc("f.py", 3, 7)
    assert print_function(fn).startswith("func @f(%a: f64) -> f64 @2:1 {")


def test_hand_written_text_is_forgiving():
    # Comments, free layout, a region without its empty ``^():`` header and a
    # parenthesized result list: not what the printer writes, but the same grammar.
    text = """
    // a hand-written test function
    func @f(%x: f64, %c: bool) -> (f64, i64) {
      %y, %k = if(%c) : f64, i64 {   // then
        %one = const() {value = 1} : i64
        yield(%x, %one)
      } {
        %two = const() {value = 2} : i64
        %nx = neg(%x) : f64
        yield(%nx, %two)
      }
      return(%y,
             %k)
    }
    """
    module = parse_module(text)
    verify_module(module)
    printed = roundtrip(module)
    assert "^():" in printed and "-> f64, i64 {" in printed
    assert Interpreter(module).call("f", 2.0, False) == (-2.0, 2)


def test_sibling_regions_may_reuse_a_name():
    text = """func @f(%c: bool, %x: f64) -> f64 {
  %r = if(%c) : f64 {
  ^():
    %t = neg(%x) : f64
    yield(%t)
  } {
  ^():
    %t = add(%x, %x) : f64
    yield(%t)
  }
  return(%r)
}
"""
    module = parse_module(text)
    verify_module(module)
    assert "%t.1 = add(%x, %x)" in roundtrip(module)


def _built_module() -> Module:
    """IR made through the Builder, with what hand-written text would not think of."""
    m = Module(source_file='dir with space/q"uote.py')
    body = Block([F64, ArrayType(F64, 1), I64], ["x", "arr", ""])
    fn = m.add(Function("weird fn", body, [F64], SourceLoc(m.source_file, 1, 1)))
    fn.attrs = {"primal": "x", "odd key": 1, "np": np.float64(0.1), "ni": np.int64(7)}
    b = Builder(body, SourceLoc(m.source_file, 2, 3))
    x, arr, n = body.args
    y = build.mul(b, x, x, "y")
    y2 = build.mul(b, y, x, "y")  # repeated hint: printed y.1
    y3 = b.op1("add", [y2, y], F64, "y")  # y.2
    odd = b.op1("neg", [y3], F64, "a b")  # a hint that needs quoting
    uni = b.op1("neg", [odd], F64, "α")
    b.create("comment", [], [], {"text": "ctrl:\x01\x7f tab\t cr\r nl\n é"})
    zero = build.const(b, 0, I64)
    step = build.const(b, 1, I64)
    loop = b.create("for", [zero, n, step, uni], [F64], regions=[Block([I64, F64], ["i", "y"])], hints=["y"])
    lb = Builder(loop.regions[0])
    i, carried = loop.regions[0].args
    v = lb.op1("load", [arr, i], F64)
    lb.create("yield", [build.add(lb, carried, v)], [])
    b.create("return", [loop.result], [])
    return m


def test_builder_module_roundtrips_and_keeps_hints():
    m = _built_module()
    verify_module(m)
    text = roundtrip(m)
    assert '%"a b" = neg' in text and "%y.3 = for" in text and "%y.4: f64" in text
    assert 'func @"weird fn"' in text and '"odd key" = 1' in text and "np = 0.1" in text
    back = parse_module(text)
    fn = back.functions["weird fn"]
    assert back.source_file == 'dir with space/q"uote.py'
    assert fn.attrs["odd key"] == 1 and fn.attrs["ni"] == 7
    hints = [op.results[0].name_hint for op in fn.body.ops if op.results]
    assert hints[:5] == ["y", "y", "y", "a b", "α"]
    comment = next(op for op in fn.body.ops if op.name == "comment")
    assert comment.attrs["text"] == "ctrl:\x01\x7f tab\t cr\r nl\n é"
    assert len(text.splitlines()) == len(print_module(m).splitlines())  # no raw newline leaked
    arr = np.array([1.0, 2.0, 3.0])
    assert Interpreter(back).call("weird fn", 1.5, arr, 3) == Interpreter(m).call("weird fn", 1.5, arr, 3)


def test_many_repeated_hints_print_fast_and_distinct():
    # The printer once searched suffixes from 0 for every repeat: quadratic in the repeats.
    body = Block([F64], ["v"])
    b = Builder(body)
    v = body.args[0]
    for _ in range(5000):
        v = b.op1("neg", [v], F64, "v")
    b.create("return", [v], [])
    text = roundtrip(Module({"f": Function("f", body, [F64])}))
    assert "%v.5000 = neg(%v.4999) : f64" in text
    assert "return(%v.5000)" in text


attr_values = st.recursive(
    st.one_of(
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=8),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.text(min_size=1, max_size=5), inner, max_size=3),
    ),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=6), attr_values, max_size=4))
def test_any_attribute_value_roundtrips(attrs):
    body = Block([F64], ["x"])
    fn = Function("f", body, [F64], attrs=dict(attrs))
    b = Builder(body)
    b.create("comment", [], [], attrs) if attrs else None
    b.create("return", [body.args[0]], [])
    m = Module({"f": fn}, "a.py")
    roundtrip(m)


def test_format_attr_rejects_unknown_kinds():
    with pytest.raises(TypeError):
        format_attr(object())


# (text, message fragment, line, col)
PARSE_ERRORS = [
    ("func @f(%x: f64) -> f64 {\n  return(%y)\n}\n", "use of undefined value '%y'", 2, 10),
    ("func @f(%x: f64) -> f64 {\n  %y = neg(%x) : f64\n  %y = neg(%x) : f64\n  return(%y)\n}\n",
     "redefinition of '%y' (first defined at 2:3)", 3, 3),
    ("func @f(%x: f64) -> f64 {\n  %y = neg(%x) : f65\n  return(%y)\n}\n", "unknown type 'f65'", 2, 18),
    ("func @f(%x: array<f64>) -> f64 {\n  return(%x)\n}\n", "unknown type 'array<f64>'", 1, 13),
    ("func @f(%x: f64) -> f64 {\n  %y, %z = neg(%x) : f64\n  return(%y)\n}\n",
     "'neg' names 2 result(s) but lists 1 result type(s)", 2, 20),
    ("func @f(%x: f64) -> f64 {\n  %y = neg(%x)\n  return(%y)\n}\n",
     "'neg' names 1 result(s) but lists 0 result type(s)", 2, 8),
    ("func @f(%x: f64) -> f64 {\n  neg(%x) : f64\n  return(%x)\n}\n",
     "'neg' names 0 result(s) but lists 1 result type(s)", 2, 11),
    ("func @f(%x: f64) -> f64 {\n  %y = neg(%x : f64\n  return(%y)\n}\n", "expected ',' or ')', found ':'", 2, 15),
    ("func @f(%x: f64) -> f64 {\n  %y = neg %x : f64\n}\n", "expected '(' after op name 'neg', found '%x'", 2, 12),
    ("func @f(%x: f64) -> f64 {\n  %y = (%x) : f64\n}\n", "expected an op name, found '('", 2, 8),
    ("func @f(%x: f64) -> f64 {\n  return(%x)\n", "'{' at 1:25 is never closed", 3, 1),
    ("func @f(%x: f64) -> f64 {\n  %c = const() {value = 1, value = 2} : i64\n  return(%x)\n}\n",
     "duplicate attribute 'value'", 2, 28),
    ("func @f(%x: f64) -> f64 {\n  %c = const() {value = what} : i64\n  return(%x)\n}\n",
     "expected an attribute value, found 'what'", 2, 25),
    ('func @f(%x: f64) -> f64 {\n  comment() {text = "abc}\n  return(%x)\n}\n', "unterminated string", 2, 21),
    ('func @f(%x: f64) -> f64 {\n  comment() {text = "a\\qb"}\n  return(%x)\n}\n',
     "bad escape sequence in string: '\\\\q'", 2, 23),
    ("func @f(%x: f64) -> f64 {\n  %y = neg(%x) : f64 # no\n}\n", "unexpected character '#'", 2, 22),
    ("func @f(%x: f64) -> f64 {\n  return(%x)\n}\nfunc @f(%x: f64) -> f64 {\n  return(%x)\n}\n",
     "function '@f' is defined twice", 4, 1),
    ("func f(%x: f64) -> f64 {\n}\n", "expected a function name '@name', found 'f'", 1, 6),
    ("func @f(%x: f64) f64 {\n}\n", "expected '->' and the result types, found 'f64'", 1, 18),
    ("func @f(%x) -> f64 {\n}\n", "expected ':', found ')'", 1, 11),
    ("module 3\n", "expected the source file name, found '3'", 1, 8),
    ("func @f(% : f64) -> f64 {\n}\n", "expected a name after '%'", 1, 9),
    ("func @(%x: f64) -> f64 {\n}\n", "expected a name after '@'", 1, 6),
    ("func @f(%x: f64) -> f64 {\n  %y = neg(%x) : f64 @3\n  return(%y)\n}\n",
     "malformed location: expected '@line:col'", 2, 22),
    ("func @f(%x: f64) -> f64 attributes [1] {\n}\n", "expected '{' after 'attributes', found '['", 1, 36),
    ("func @f(%c: bool) -> f64 {\n  %r = if(%c) : f64 {\n  ^():\n    %t = const() {value = 1.0} : f64\n"
     "    yield(%t)\n  } {\n  ^():\n    yield(%t)\n  }\n  return(%r)\n}\n",
     "value '%t' is not in scope here: it is defined at 4:5, in a region that does not enclose this use", 8, 11),
    ("func @f(%n: i64) -> i64 {\n  %r = for(%n, %n, %n, %n) : i64 {\n  ^(%i: i64, %a: i64):\n    yield(%a)\n  }\n"
     "  return(%i)\n}\n", "value '%i' is not in scope here", 6, 10),
    ("func @f(%x: f64) -> f64 {\n  %y = neg(%y) : f64\n  return(%y)\n}\n", "use of undefined value '%y'", 2, 12),
    ("func @f(%x: f64) -> f64 {\n  return(%x)\n}\n}\n", "expected 'func', found '}'", 4, 1),
]


@pytest.mark.parametrize("text, message, line, col", PARSE_ERRORS, ids=[m for _, m, _, _ in PARSE_ERRORS])
def test_parse_errors_name_the_problem_and_its_place(text, message, line, col):
    with pytest.raises(IRParseError) as info:
        parse_module(text)
    err = info.value
    assert message in err.message
    assert (err.line, err.col) == (line, col), str(err)
    assert str(err).startswith(f"{line}:{col}: ")
    assert isinstance(err, ValueError)


def test_parse_error_shows_the_line_with_a_caret():
    with pytest.raises(IRParseError) as info:
        parse_module("func @f(%x: f64) -> f64 {\n  return(%y)\n}\n")
    assert str(info.value).splitlines()[1:] == ["    return(%y)", "           ^"]


def test_parse_function_rejects_trailing_text():
    with pytest.raises(IRParseError, match="expected end of input after the function"):
        parse_function("func @f() -> () {\n  return()\n}\nfunc @g() -> () {\n  return()\n}\n")


# -- the golden inputs, through the Python front end --------------------------------------


def _golden_cases() -> list[Path]:
    return sorted(p for p in GOLDEN.glob("*") if (p / "case.json").exists()) if GOLDEN.exists() else []


@pytest.mark.parametrize("case", _golden_cases(), ids=lambda p: p.name)
def test_golden_input_ir_roundtrips_and_verifies(case):
    func = json.loads((case / "case.json").read_text())["func"]
    module = parse_source((case / "input.py").read_text(), "input.py", func)
    verify_module(module)
    text = roundtrip(module)
    verify_module(parse_module(text))
    expected = case / "expected.ir"
    if expected.exists():
        # The checked-in golden IR must itself be readable text (whether it is current is test_golden's job).
        golden = expected.read_text()
        assert print_module(parse_module(golden)) == golden


@pytest.mark.parametrize("case", _golden_cases(), ids=lambda p: p.name)
def test_golden_gradient_ir_roundtrips_and_verifies(case):
    # The adjoint's output exercises what the primal does not: tapes, function attributes.
    pipeline = pytest.importorskip("s2sad.pipeline")
    spec = json.loads((case / "case.json").read_text())
    module = pipeline.gradient_module((case / "input.py").read_text(), "input.py", spec["func"], spec["wrt"])
    verify_module(module)
    verify_module(parse_module(roundtrip(module)))
