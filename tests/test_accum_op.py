"""The scalar ``accum`` op (``d[idx] += g``): reverse mode's addition into shadow memory.

It reads and writes its array (the op table, the effect analysis and the passes must all see
both), prints and parses like any op, runs in the interpreter as the load, add and store it
replaces, and the emitters print it exactly as they printed that pattern.
"""

from __future__ import annotations

import numpy as np
import pytest

from test_verifier import fails, module_of

from s2sad import pipeline
from s2sad.analysis.accumulation import accumulation
from s2sad.analysis.effects import EffectAnalysis, PassContext
from s2sad.opt import cse, dce, fold, licm
from s2sad.ssa.interp import Interpreter
from s2sad.ssa.opdefs import op_def
from s2sad.ssa.parser import parse_module
from s2sad.ssa.printer import print_module
from s2sad.ssa.verifier import verify_module

ACCUM = """\
module "accum.py"

func @f(%d: array<f64,1>, %g: f64, %n: i64) -> () @1:1 {
  %0 = const() {value = 0} : i64
  %1 = const() {value = 1} : i64
  for(%0, %n, %1) @2:5 {
  ^(%i: i64):
    accum(%d, %i, %g) @3:9
    yield() @2:5
  }
  return() @1:1
}
"""


def _ops(module, name):
    return [op for fn in module.functions.values() for op in fn.walk() if op.name == name]


def test_round_trip_and_verify():
    module = parse_module(ACCUM)
    verify_module(module)
    assert print_module(module) == ACCUM
    text = ACCUM.replace("accum(%d, %i, %g)", 'accum(%d, %i, %g) {mode = "atomic"}')
    assert print_module(parse_module(text)) == text


@pytest.mark.parametrize("body, fragments", [
    ("  accum(%a, %n, %x)\n  return(%x)\n", ["'accum'", "index"]),
    ("  accum(%a, %n, %n, %n)\n  return(%x)\n", ["'accum' of i64 value", "array<f64,2>"]),
    ("  accum(%a)\n  return(%x)\n", ["'accum' needs an array, its indices and a value"]),
])
def test_verifier_rejects(body, fragments):
    fails(module_of(body), *fragments)


def test_interpreter_adds_in_the_arrays_type():
    module = parse_module(ACCUM)
    d = np.array([1.0, 2.0, 3.0])
    Interpreter(module).call("f", d, 0.5, 3)
    assert d.tolist() == [1.5, 2.5, 3.5]
    f32 = parse_module(ACCUM.replace("f64", "f32"))
    e = np.array([1.0, 2.0], dtype=np.float32)
    Interpreter(f32).call("f", e, np.float32(0.1), 2)
    tenth = np.float32(0.1)
    assert e.dtype == np.float32 and e.tolist() == [np.float32(1.0) + tenth, np.float32(2.0) + tenth]


def test_reads_and_writes_its_array():
    module = parse_module(ACCUM)
    (op,) = _ops(module, "accum")
    d = module.functions["f"].params[0]
    assert op_def("accum").reads(op) == [d] and op_def("accum").writes(op) == [d]
    effects = EffectAnalysis(module)
    assert d in effects.read_roots(op).roots and d in effects.written_roots(op).roots
    assert accumulation(op) is op.operands[-1]


def test_passes_see_the_write():
    """CSE keeps a load after an accum of its array; LICM does not hoist a load of an array the
    loop accumulates into; DCE keeps an accum into a parameter and drops one into an unread local."""
    text = """\
func @f(%d: array<f64,1>, %g: f64, %n: i64) -> f64 {
  %0 = const() {value = 0} : i64
  %1 = const() {value = 1} : i64
  %z = const() {value = 0.0} : f64
  %tmp = alloc(%n) {elem = "f64", fill = "zeros"} : array<f64,1>
  %a = load(%d, %0) : f64
  accum(%d, %0, %g)
  accum(%tmp, %0, %g)
  %b = load(%d, %0) : f64
  %s = for(%0, %n, %1, %z) : f64 {
  ^(%i: i64, %acc: f64):
    %c = load(%d, %0) : f64
    accum(%d, %0, %g)
    %t = add(%acc, %c) : f64
    yield(%t)
  }
  %r = add(%a, %b) : f64
  %q = add(%r, %s) : f64
  return(%q)
}
"""
    module = parse_module(text)
    verify_module(module)
    ctx = PassContext()
    cse.run(module, ctx)
    licm.run(module, ctx)
    dce.dce_module(module)
    verify_module(module)
    fn = module.functions["f"]
    assert len([op for op in fn.walk() if op.name == "load"]) == 3  # none merged, none hoisted
    assert [op.operands[0] for op in fn.walk() if op.name == "accum"] == [fn.params[0]] * 2
    assert not _ops(module, "alloc")


def test_fold_turns_an_added_negative_zero_into_the_copy_the_pattern_left():
    module = parse_module("""\
func @f(%d: array<f64,1>, %i: i64) -> () {
  %z = const() {value = 0.0} : f64
  %m = neg(%z) : f64
  accum(%d, %i, %m)
  return()
}
""")
    fold.run(module, PassContext())
    verify_module(module)
    assert [op.name for op in module.functions["f"].body.ops] == ["load", "store", "return"]


SOURCE = """\
def f(x, n):
    s = 0.0
    for i in range(n):
        s += x[i] * x[(i + 1) % n]
    return s
"""


@pytest.mark.parametrize("level", [0, 1, 2])
def test_reverse_mode_emits_accum(level):
    """The adjoint of a load is one ``accum`` per read, never a load/add/store of the shadow."""
    module = pipeline.gradient_module(SOURCE, "f.py", "f", ["x"], pipeline.Options(level=level))
    verify_module(module)
    grad = module.functions["grad_f"]
    accums = [op for op in grad.walk() if op.name == "accum"]
    assert len(accums) == 2 and all(op.operands[0].name_hint == "d_x" for op in accums)
    assert not [op for op in grad.walk() if op.name == "store" and op.operands[0].name_hint == "d_x"]


@pytest.mark.parametrize("target, end", [("py", ""), ("c", ";")])
def test_printed_as_the_pattern_was(target, end):
    """``d_x[i] += g``; an index that is no cheap expression gets a variable, as it did when the
    load and the store of the pattern both read it."""
    out = pipeline.gradient_source(SOURCE, "f.py", "f", ["x"], target)
    assert f"d_x[t0] += d_s * x[i]{end}\n" in out
    assert f"d_x[i] += d_s * x[t0]{end}\n" in out
