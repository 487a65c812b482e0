"""The verifier accepts well-formed IR and names the function, the op and the problem otherwise.

Typing and region-shape violations are written as IR text (the parser checks
syntax and names only, so it reads ill-typed IR); dominance, use-list and link
violations cannot be written as text and are made by mutating parsed IR.
"""

from __future__ import annotations

import pytest

from test_ssa_text import EVERY_OP, _built_module

from s2sad.ssa.ir import Block, Builder, Op
from s2sad.ssa.parser import parse_module
from s2sad.ssa.types import F64
from s2sad.ssa.verifier import VerifyError, verify_function, verify_module

HELPER = """func @h(%v: f64, %k: i64) -> f64 {
  return(%v)
}
"""


def module_of(body: str, params: str = "%x: f64, %n: i64, %c: bool, %a: array<f64,2>", results: str = "f64"):
    """A module with ``@h`` and ``@f(params) -> results { body }``."""
    return parse_module(HELPER + f"func @f({params}) -> {results} {{\n{body}}}\n")


def fails(module, *fragments: str, fn: str | None = None) -> str:
    with pytest.raises(VerifyError) as info:
        if fn is None:
            verify_module(module)
        else:
            verify_function(module.functions[fn])
    text = str(info.value)
    for fragment in fragments:
        assert fragment in text, text
    return text


def ops_named(module, name: str, fn: str = "f") -> list[Op]:
    return [op for op in module.functions[fn].walk() if op.name == name]


# -- well-formed IR passes ------------------------------------------------------------------


def test_every_op_module_verifies():
    module = parse_module(EVERY_OP)
    verify_module(module)
    for fn in module.functions.values():
        verify_function(fn, module)
        verify_function(fn)


def test_builder_module_verifies():
    verify_module(_built_module())


def test_call_is_not_checked_without_a_module():
    module = module_of("  %r = call(%x) {callee = \"nowhere\"} : f64\n  return(%r)\n")
    verify_function(module.functions["f"])
    fails(module, "calls '@nowhere', which is not a function of the module")


# -- typing and shapes, written as text ------------------------------------------------------

# (body of @f, fragments the message must contain)
TEXT_CASES = [
    # op names and region counts
    ("  %y = frob(%x) : f64\n  return(%y)\n", ["unknown op 'frob'"]),
    ("  %y = math.sinn(%x) : f64\n  return(%y)\n", ["unknown op 'math.sinn'"]),
    ("  %y = neg(%x) : f64 {\n  ^():\n    yield()\n  }\n  return(%y)\n", ["'neg' has 1 region(s), needs 0"]),
    # scalar typing
    ("  %y = add(%x, %n) : f64\n  return(%y)\n",
     ["function @f: in '%y = add(%x, %n) : f64'", "operands and result must share one type, have (f64, i64) -> f64"]),
    ("  %y = mul(%x, %x) : i64\n  return(%x)\n", ["operands and result must share one type"]),
    ("  %y = add(%c, %c) : bool\n  return(%x)\n", ["'add' needs int or float operands, has bool"]),
    ("  %y = add(%x) : f64\n  return(%y)\n", ["'add' takes 2 operand(s), has 1"]),
    ("  %y = neg(%c) : bool\n  return(%x)\n", ["'neg' needs an int or float operand"]),
    ("  %y = neg(%n) : f64\n  return(%y)\n", ["operand i64 and result f64 differ"]),
    ("  %y = lt(%x, %n) : bool\n  return(%x)\n", ["comparison needs two scalars of one type, has (f64, i64)"]),
    ("  %y = lt(%x, %x) : f64\n  return(%y)\n", ["comparison result is f64, must be bool"]),
    ("  %y = not(%x) : bool\n  return(%x)\n", ["'not' is bool -> bool, has (f64) -> bool"]),
    ("  %y = and(%c, %n) : bool\n  return(%x)\n", ["'and' is (bool, bool) -> bool"]),
    ("  %y = select(%x, %x, %x) : f64\n  return(%y)\n", ["'select' condition %x is f64, must be bool"]),
    ("  %y = select(%c, %x, %n) : f64\n  return(%y)\n", ["'select' arms and result must share one type"]),
    ("  %y = cast(%a) : f64\n  return(%y)\n", ["'cast' converts scalars, has array<f64,2> -> f64"]),
    ("  %y = math.atan2(%x) : f64\n  return(%y)\n", ["'math.atan2' takes 2 operand(s), has 1"]),
    ("  %y = math.sin(%x, %x) : f64\n  return(%y)\n", ["'math.sin' takes 1 operand(s), has 2"]),
    ("  %y = math.hypot(%x, %n) : f64\n  return(%y)\n", ["operands and result must share one type"]),
    ("  %y = const() {value = 1} : f64\n  return(%y)\n", ["'const' value 1 (int) does not match its type f64"]),
    ("  %y = const() {value = 1.0} : i64\n  return(%x)\n", ["'const' value 1.0 (float) does not match its type i64"]),
    ("  %y = const() {value = true} : i64\n  return(%x)\n", ["'const' value True (bool) does not match its type i64"]),
    ("  %y = const() {value = 0} : bool\n  return(%x)\n", ["does not match its type bool"]),
    ("  %y = const() : f64\n  return(%y)\n", ["'const' needs attribute 'value'"]),
    ("  %y = const() {value = 1.0} : array<f64,1>\n  return(%x)\n", ["'const' result is array<f64,1>, not a scalar"]),
    ("  %y, %z = undef() : f64, f64\n  return(%y)\n", ["'undef' has 1 result(s), has 2"]),
    # memory
    ("  %y = load(%a, %n) : f64\n  return(%y)\n", ["'load' of a rank-2 array needs 2 index(es), has 1"]),
    ("  %y = load(%a, %n, %x) : f64\n  return(%y)\n", ["index #1 %x is f64, not an integer"]),
    ("  %y = load(%a, %n, %n) : i64\n  return(%x)\n", ["'load' from array<f64,2> gives f64, result is i64"]),
    ("  %y = load(%x, %n) : f64\n  return(%y)\n", ["operand #0 %x of 'load' is f64, not an array"]),
    ("  store(%a, %n, %n, %n)\n  return(%x)\n", ["'store' of i64 value %n into array<f64,2>"]),
    ("  store(%a, %n, %x)\n  return(%x)\n", ["'store' of a rank-2 array needs 2 index(es), has 1"]),
    ("  %y = store(%a, %n, %n, %x) : f64\n  return(%x)\n", ["'store' has 0 result(s), has 1"]),
    ("  %w = alloc(%n) {elem = \"f64\", fill = \"zeros\"} : array<f64,2>\n  return(%x)\n",
     ["'alloc' of a rank-2 array needs 2 index(es), has 1"]),
    ("  %w = alloc(%n) {fill = \"zeros\"} : array<f64,1>\n  return(%x)\n", ["'alloc' needs attribute 'elem'"]),
    ("  %w = alloc(%n) {elem = \"f64\"} : array<f64,1>\n  return(%x)\n", ["'alloc' needs attribute 'fill'"]),
    ("  %w = alloc(%n) {elem = \"i64\", fill = \"zeros\"} : array<f64,1>\n  return(%x)\n",
     ["'alloc' elem = 'i64' but the result is array<f64,1>"]),
    ("  %w = alloc(%n) {elem = \"f64\", fill = \"ones\"} : array<f64,1>\n  return(%x)\n",
     ["'alloc' fill must be \"zeros\" or \"empty\", is 'ones'"]),
    ("  %w = alloc(%n) {cache = 1, elem = \"f64\", fill = \"empty\"} : array<f64,1>\n  return(%x)\n",
     ["attribute 'cache' = 1 has the wrong kind"]),
    ("  %w = alloc(%n) {elem = \"f64\", fill = \"zeros\"} : f64\n  return(%x)\n",
     ["'alloc' result is f64, not an array"]),
    ("  %d = dim(%a) {axis = 2} : i64\n  return(%x)\n", ["'dim' axis 2 is out of range for array<f64,2>"]),
    ("  %d = dim(%a) {axis = 0} : f64\n  return(%d)\n", ["'dim' result is f64, must be i64"]),
    ("  %d = dim(%a) : i64\n  return(%x)\n", ["'dim' needs attribute 'axis'"]),
    ("  %d = dim(%a) {axis = 1.0} : i64\n  return(%x)\n", ["attribute 'axis' = 1.0 has the wrong kind"]),
    # calls
    ("  %r = call(%x, %n) {callee = \"nowhere\"} : f64\n  return(%r)\n",
     ["calls '@nowhere', which is not a function of the module"]),
    ("  %r = call(%n, %x) {callee = \"h\"} : f64\n  return(%r)\n",
     ["arguments (i64, f64) do not match @h's parameters (f64, i64)"]),
    ("  %r, %s = call(%x, %n) {callee = \"h\"} : f64, f64\n  return(%r)\n",
     ["results (f64, f64) do not match @h's result types (f64)"]),
    ("  %r = call(%x, %n) : f64\n  return(%r)\n", ["'call' needs attribute 'callee'"]),
    # tapes and comments
    ("  %t = tape.new(%n) {elem = \"i64\", grow = true} : array<f64,1>\n  return(%x)\n",
     ["'tape.new' elem = 'i64' but the result is array<f64,1>"]),
    ("  %t = tape.new(%x) {elem = \"f64\", grow = true} : array<f64,1>\n  return(%x)\n",
     ["'tape.new' capacity is f64, not an integer"]),
    ("  %t = tape.new(%n) {elem = \"f64\", grow = 1} : array<f64,1>\n  return(%x)\n",
     ["attribute 'grow' = 1 has the wrong kind"]),
    ("  %t = tape.new(%n) {elem = \"f64\", grow = true} : array<f64,2>\n  return(%x)\n",
     ["'tape.new' result is array<f64,2>, must be a rank-1 array"]),
    ("  %t = tape.new(%n) {elem = \"f64\", grow = true} : array<f64,1>\n  tape.push(%t, %n)\n  return(%x)\n",
     ["pushes a i64 onto a tape of f64"]),
    ("  %t = tape.new(%n) {elem = \"f64\", grow = true} : array<f64,1>\n  %p = tape.pop(%t) : i64\n  return(%x)\n",
     ["pops a i64 from a tape of f64"]),
    ("  %p = tape.pop(%a) : f64\n  return(%x)\n", ["a tape is a rank-1 array, %a is array<f64,2>"]),
    ("  comment(%x) {text = \"hi\"}\n  return(%x)\n", ["'comment' takes 0 operand(s), has 1"]),
    ("  comment() {text = 3}\n  return(%x)\n", ["attribute 'text' = 3 has the wrong kind"]),
    # for
    ("  %r = for(%x, %n, %n, %x) : f64 {\n  ^(%i: i64, %s: f64):\n    yield(%s)\n  }\n  return(%r)\n",
     ["'for' lower bound %x is f64, must be i64"]),
    ("  %r = for(%n, %n) : f64 {\n  ^(%i: i64, %s: f64):\n    yield(%s)\n  }\n  return(%r)\n",
     ["'for' needs operands (lb, ub, step, inits...)"]),
    ("  %r = for(%n, %n, %n, %x) : i64 {\n  ^(%i: i64, %s: f64):\n    yield(%s)\n  }\n  return(%x)\n",
     ["'for' results (i64) differ from its inits (f64)"]),
    ("  %r = for(%n, %n, %n, %x) : f64 {\n  ^(%s: f64):\n    yield(%s)\n  }\n  return(%r)\n",
     ["'for' body arguments (f64) must start with the i64 induction variable"]),
    ("  %r = for(%n, %n, %n, %x) : f64 {\n  ^(%i: i64, %s: i64):\n    yield(%x)\n  }\n  return(%r)\n",
     ["'for' carried arguments (i64) differ from its inits (f64)"]),
    ("  %r = for(%n, %n, %n, %x) : f64 {\n  ^(%i: i64, %s: f64):\n    yield(%i)\n  }\n  return(%r)\n",
     ["in 'yield(%i)'", "'for' body yields (i64), expected (f64)"]),
    ("  %r = for(%n, %n, %n, %x) : f64 {\n  ^(%i: i64, %s: f64):\n    %t = neg(%s) : f64\n  }\n  return(%r)\n",
     ["a region of 'for' must end with 'yield', not 'neg'"]),
    ("  %r = for(%n, %n, %n, %x) : f64 {\n  ^(%i: i64, %s: f64):\n  }\n  return(%r)\n",
     ["a region of 'for' is empty; it must end with 'yield'"]),
    # if
    ("  %r = if(%x) : f64 {\n  ^():\n    yield(%x)\n  } {\n  ^():\n    yield(%x)\n  }\n  return(%r)\n",
     ["'if' takes one bool condition, has (f64)"]),
    ("  %r = if(%c) : f64 {\n  ^():\n    yield(%x)\n  }\n  return(%r)\n", ["'if' has 1 region(s), needs 2"]),
    ("  %r = if(%c) : f64 {\n  ^(%z: f64):\n    yield(%z)\n  } {\n  ^():\n    yield(%x)\n  }\n  return(%r)\n",
     ["'if' then region must have no arguments, has (f64)"]),
    ("  %r = if(%c) : f64 {\n  ^():\n    yield(%x)\n  } {\n  ^():\n    yield(%n)\n  }\n  return(%r)\n",
     ["'if' else region yields (i64), expected (f64)"]),
    ("  if(%c) {\n  ^():\n    yield()\n  } {\n  ^():\n    condition(%c)\n  }\n  return(%x)\n",
     ["a region of 'if' must end with 'yield', not 'condition'",
      "'condition' outside the condition region of a 'while'"]),
    # while
    ("  %r = while(%x) : f64 {\n  ^(%v: f64):\n    %go = lt(%v, %x) : bool\n    condition(%go)\n  } {\n"
     "  ^(%v.1: f64):\n    yield(%v.1)\n  }\n  return(%r)\n", []),
    ("  %r = while(%x) : i64 {\n  ^(%v: f64):\n    %go = lt(%v, %x) : bool\n    condition(%go)\n  } {\n"
     "  ^(%v.1: f64):\n    yield(%v.1)\n  }\n  return(%x)\n", ["'while' results (i64) differ from its inits (f64)"]),
    ("  %r = while(%x) : f64 {\n  ^(%v: f64):\n    condition(%v)\n  } {\n"
     "  ^(%v.1: f64):\n    yield(%v.1)\n  }\n  return(%r)\n", ["'condition' takes one bool, has (f64)"]),
    ("  %r = while(%x) : f64 {\n  ^(%v: f64):\n    yield(%v)\n  } {\n"
     "  ^(%v.1: f64):\n    yield(%v.1)\n  }\n  return(%r)\n",
     ["a region of 'while' must end with 'condition', not 'yield'",
      "a 'while' condition region ends with 'condition', not 'yield'"]),
    ("  %r = while(%x) : f64 {\n  ^(%v: f64):\n    condition(%c)\n  } {\n"
     "  ^(%v.1: i64):\n    yield(%x)\n  }\n  return(%r)\n",
     ["'while' body arguments (i64) differ from its inits (f64)"]),
    ("  %r = while(%x) : f64 {\n  ^():\n    condition(%c)\n  } {\n"
     "  ^(%v.1: f64):\n    yield(%n)\n  }\n  return(%r)\n",
     ["'while' condition arguments () differ from its inits (f64)", "'while' body yields (i64), expected (f64)"]),
    # terminators and returns
    ("  return(%x)\n  %y = neg(%x) : f64\n  return(%y)\n",
     ["in 'return(%x)'", "terminator 'return' is not the last op"]),
    ("  %y = neg(%x) : f64\n", ["the function body must end with 'return', not 'neg'"]),
    ("", ["the function body is empty; it must end with 'return'"]),
    ("  yield(%x)\n", ["the function body must end with 'return', not 'yield'", "'yield' outside a region"]),
    ("  return(%n)\n", ["returns (i64) but the function's result types are (f64)"]),
    ("  return(%x, %x)\n", ["returns (f64, f64) but the function's result types are (f64)"]),
    ("  if(%c) {\n  ^():\n    return(%x)\n  } {\n  ^():\n    yield()\n  }\n  return(%x)\n",
     ["'return' outside the function body", "a region of 'if' must end with 'yield', not 'return'"]),
    ("  %r = for(%n, %n, %n) : f64 {\n  ^(%i: i64):\n    yield()\n  }\n  return(%x)\n",
     ["'for' results (f64) differ from its inits ()"]),
]


@pytest.mark.parametrize("body, fragments", TEXT_CASES, ids=[f[0] if f else "ok" for _, f in TEXT_CASES])
def test_text_violations(body, fragments):
    module = module_of(body)
    if not fragments:
        verify_module(module)
        return
    fails(module, "function @f: ", *fragments)


def test_location_and_printed_line_are_in_the_message():
    module = module_of("  %y = add(%x, %n) : f64 @7:9\n  return(%y)\n")
    text = fails(module)
    assert text == "function @f: in '%y = add(%x, %n) : f64 @7:9': operands and result must share one type, " \
                   "have (f64, i64) -> f64"


def test_all_problems_are_reported():
    module = module_of("  %y = add(%x, %n) : f64\n  %z = not(%x) : bool\n  return(%n)\n")
    with pytest.raises(VerifyError) as info:
        verify_module(module)
    assert len(info.value.errors) == 3


# -- dominance and scope, by mutation ----------------------------------------------------------

LOOP = """  %one = const() {value = 1.0} : f64
  %r = for(%n, %n, %n, %x) : f64 {
  ^(%i: i64, %s: f64):
    %t = add(%s, %one) : f64
    %b = if(%c) : f64 {
    ^():
      %u = mul(%t, %t) : f64
      yield(%u)
    } {
    ^():
      %w = neg(%t) : f64
      yield(%w)
    }
    yield(%b)
  }
  %q = while(%r) : f64 {
  ^(%v: f64):
    %go = lt(%v, %x) : bool
    condition(%go)
  } {
  ^(%v.1: f64):
    %v.2 = mul(%v.1, %v.1) : f64
    yield(%v.2)
  }
  return(%q)
"""


def loop_module():
    module = module_of(LOOP)
    verify_module(module)
    ops = {op.results[0].name_hint: op for op in module.functions["f"].walk() if op.results}
    return module, ops


def test_use_before_definition():
    module, ops = loop_module()
    body = module.functions["f"].body
    one = body.ops.pop(0)
    body.ops.insert(2, one)  # after the for that uses it
    fails(module, "in '%t = add(%s, %one) : f64'", "operand #1 %one is used before its definition")


def test_value_from_a_sibling_region():
    module, ops = loop_module()
    ops["w"].set_operand(0, ops["u"].result)
    fails(module, "in '%w = neg(%u) : f64'",
          "operand #0 %u is not in scope: it is defined in a region that does not enclose this use")


def test_value_escaping_its_region():
    module, ops = loop_module()
    ops["q"].set_operand(0, ops["t"].result)
    fails(module, "operand #0 %t is not in scope")


def test_block_argument_of_a_sibling_region():
    module, ops = loop_module()
    while_op = ops["q"]
    cond_arg = while_op.regions[0].args[0]
    ops["v"].set_operand(0, cond_arg)  # the body's mul reads the condition region's argument
    fails(module, "operand #0 %v is not in scope: it is a block argument of a region that does not enclose this use")


def test_loop_induction_variable_after_the_loop():
    module, ops = loop_module()
    ops["q"].set_operand(0, ops["r"].regions[0].args[1])
    fails(module, "operand #0 %s is not in scope: it is a block argument")


def test_result_of_enclosing_op():
    module, ops = loop_module()
    ops["t"].set_operand(1, ops["r"].result)
    fails(module, "operand #1 %r is a result of the enclosing 'for', which this op is nested in")


def test_own_result_and_own_region_argument():
    module, ops = loop_module()
    ops["t"].set_operand(1, ops["t"].result)
    fails(module, "operand #1 %t is a result of this op itself")
    module, ops = loop_module()
    ops["r"].set_operand(3, ops["r"].regions[0].args[1])
    fails(module, "operand #3 %s is a block argument of one of this op's own regions")


def test_value_of_another_function():
    module, ops = loop_module()
    ops["one"].result.replace_all_uses_with(module.functions["h"].params[0])
    fails(module, "is not defined in this function")


# -- links and use lists ---------------------------------------------------------------------


def test_missing_use_entry():
    module, ops = loop_module()
    del ops["t"].operands[1].uses[(ops["t"], 1)]
    fails(module, "in '%t = add(%s, %one) : f64'", "operand #1 %one: (add, 1) is not in its use list")


def test_stale_use_entries():
    """(A use list is keyed by (op, operand index): one use cannot be listed twice.)"""
    module, ops = loop_module()
    ops["one"].result.uses[(ops["u"], 0)] = None
    fails(module, "%one has a stale use: operand #0 of '%u = mul(%t, %t) : f64' is not it")
    module, ops = loop_module()
    ops["one"].result.uses[(ops["u"], 5)] = None
    fails(module, "%one has a stale use: operand #5")


def test_detached_op_still_holding_operands():
    module, ops = loop_module()
    body = module.functions["f"].body
    dead = Builder(body).before_op(body.terminator).op1("neg", [ops["one"].result], F64)
    body.ops.remove(dead.defining_op)  # removed without erase(): its use of %one dangles
    fails(module, "%one is used by a 'neg' that is not in this function")


def test_wrong_parent_links():
    module, ops = loop_module()
    ops["u"].parent = module.functions["f"].body
    fails(module, "in '%u = mul(%t, %t) : f64'", "op.parent is not the block that holds it")
    module, ops = loop_module()
    ops["b"].regions[1].parent_op = ops["r"]
    fails(module, "a region's parent_op is not the op that owns it")
    module, ops = loop_module()
    module.functions["f"].body.parent_op = ops["r"]
    fails(module, "the body's parent_op is")


def test_wrong_owner_and_index():
    module, ops = loop_module()
    ops["t"].result.index = 1
    fails(module, "result #0 %t has wrong owner/index")
    module, ops = loop_module()
    ops["r"].regions[0].args[1].owner = Block()
    fails(module, "block argument #1 %s has wrong owner/index")
    module, ops = loop_module()
    shared = ops["t"].result
    ops["u"].results.append(shared)  # one Value as the result of two ops
    fails(module, "result %t is defined twice")


def test_module_key_must_match_function_name():
    module, _ = loop_module()
    module.functions["g"] = module.functions.pop("f")
    fails(module, "function '@f' is registered under the name 'g'")


def test_value_not_a_value():
    module, ops = loop_module()
    ops["t"].operands[0] = "s"  # type: ignore[list-item]
    text = fails(module, "operand #0 is not a Value: 's'")
    assert "function @f" in text
    module, ops = loop_module()
    for op in module.functions["f"].walk():
        if op.name in ("yield", "return", "condition"):
            op.operands[0] = None  # type: ignore[list-item]
    fails(module, "operand #0 is not a Value: None", "yields (None), expected (f64)")


def test_error_lists_are_capped():
    module = module_of("".join(f"  %y{i} = not(%x) : bool\n" for i in range(30)) + "  return(%x)\n")
    with pytest.raises(VerifyError) as info:
        verify_module(module)
    assert len(info.value.errors) == 30
    assert str(info.value).endswith("... and 10 more problem(s)")
