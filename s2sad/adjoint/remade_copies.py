"""Copies remade instead of taped: the array a call saw, filled by an earlier call of the same
loop iteration, is filled again in the mirrored iteration of the reverse sweep.

The most common shape of numerical C is a helper that fills a work array which the next call
reads, in a loop (``subtract(d, x_i, mu_k, tmp); q_times(d, q, l, tmp, qtmp);``). The reverse
sweep re-runs ``grad_q_times`` from ``tmp`` as the call saw it, and ``tmp`` changes in the next
iteration, so the forward sweep would keep each iteration's copy on a tape: n * k * d numbers for
a Gaussian mixture, written, paged in and read back once. Calling ``subtract`` again on the same
inputs costs less than that, and needs no memory per iteration.

The copy of argument ``i`` of ``consumer`` is remade when all of these hold (each answers no when
unsure, and the copy is then taped as before):

* the last op before ``consumer`` in its block that may write the array is a call (the
  *producer*) of a function of the module that writes no other array, calls none, and whose first
  use of that parameter is a loop storing every element it will ever touch
  (``analysis.overwritten.filled_first``): its result depends only on its inputs;
* the producer's extent of the array is the consumer's, in the same argument values, so the
  elements the consumer reads are all the producer's;
* every array the producer reads holds in the reverse sweep what it held at the call: never
  written from the call's top-level statement on, a whole-array value made from such arrays
  (Python's ``x[i * d:]``), or itself a copy made for the producer's own gradient (remade in
  turn, or taped);
* arrays may not overlap (not ``--may-alias``), and its extent is known before the loops (one
  buffer, made before the reversed loops, filled anew in each iteration).
"""

from __future__ import annotations

from typing import Optional, Protocol

from ..analysis.effects import known_root, written_operands, written_params
from ..analysis.overwritten import filled_first
from ..ssa.build import const_int
from ..ssa.callgraph import callees
from ..ssa.ir import Block, Function, Module, Op, Value
from .forward import ForwardSweep
from .sweep import RevBlock, line_of, top_level_index


class Values(Protocol):
    """What this module asks of ``availability.Availability``, which calls it."""

    module: Module
    fn: Function
    forward: ForwardSweep
    may_alias: bool
    ck_bodies: set[Block]
    readonly_roots: set[Value]
    last_write: dict[Value, int]

    def avail(self, rev: RevBlock, v: Value) -> Value: ...

    def avail_clone(self, m: RevBlock, cv: Value, block: Block) -> Value: ...

    def is_readonly_array_op(self, op: Op) -> bool: ...


def remade_copy(values: Values, m: RevBlock, cv: Value, block: Block) -> Optional[Value]:
    """The copy ``cv`` (made in the forward clone of the loop body ``block``) filled again at
    ``m``'s prologue by re-running the call that filled it; None where that is not known safe."""
    forward = values.forward
    call = forward.snapshot_calls.get(cv)
    if call is None or values.may_alias:
        return None
    consumer, i = call
    array = consumer.operands[i]
    producer = _producer(values, consumer, array)
    if producer is None:
        return None
    op, j = producer
    if not _same_reach(values, consumer, i, op, j):
        return None
    sources = _readable_inputs(values, op, j, block)
    if sources is None:
        return None
    outer = block  # the body of the outermost loop the buffer serves (as ``tape.py`` counts them)
    while outer.parent_op.parent is not values.fn.body and outer.parent_op.parent not in values.ck_bodies:
        outer = outer.parent_op.parent
    home = m.mirror_of(outer.parent_op.parent)
    rows = forward.reach(consumer, i, home.prologue, forward.top_level)
    if rows is None:
        return None
    restored = home.prologue.op1("alloc", [rows], array.type, cv.name_hint, fill="empty",
                                 elem=str(array.type.elem))  # type: ignore[attr-defined]
    args: list[Value] = []
    for k, operand in enumerate(op.operands):
        if k == j:
            args.append(restored)
        elif k in sources:
            args.append(values.avail_clone(m, forward.snapshots[(op, k)], block))
        else:
            args.append(values.avail(m, operand))
    what = known_root(array).name_hint or "the array"
    m.prologue.create("comment", [], [], {"text": f"{what} as line {line_of(consumer)} read it: "
                                                  f"{op.attrs['callee']} of line {line_of(op)} again"})
    m.prologue.create("call", args, [r.type for r in op.results], dict(op.attrs),
                      hints=[r.name_hint for r in op.results], loc=op.loc)
    return restored


def _producer(values: Values, consumer: Op, array: Value) -> Optional[tuple[Op, int]]:
    """The call that last filled ``array`` before ``consumer``, in the same block, and the
    position it takes the array at, when it qualifies (above); else None."""
    module = values.module
    root = known_root(array)
    ops = consumer.parent.ops
    for op in reversed(ops[: ops.index(consumer)]):
        if not any(known_root(w) is root for o in op.walk() for w in written_operands(module, o)):
            continue
        if op.name != "call" or op.attrs.get("callee") not in module.functions:
            return None
        positions = [k for k, a in enumerate(op.operands) if a.type.is_array and known_root(a) is root]
        if len(positions) != 1 or op.operands[positions[0]] is not array:
            return None
        j = positions[0]
        callee = module.functions[op.attrs["callee"]]
        if written_params(module, callee) != {j} or callees(callee) & module.functions.keys():
            return None
        return (op, j) if filled_first(module, callee, j, values.forward.extents) else None
    return None


def _same_reach(values: Values, consumer: Op, i: int, producer: Op, j: int) -> bool:
    """Whether the producer's extent of the array, in its arguments, is the consumer's."""
    a, b = _reach_form(values, consumer, i), _reach_form(values, producer, j)
    return a is not None and a == b


def _reach_form(values: Values, call: Op, index: int):
    """A call's extent of its argument ``index`` as a comparable form over the caller's values
    (``d`` for ``subtract(d, ...)``), or None where the callee's extents do not tell."""
    sizes = values.forward.extents
    callee = values.module.functions[call.attrs["callee"]]
    axes = sizes.extents(callee)[index]
    cover = axes[0] if axes else None
    if cover is None or sizes.cover_floor(callee, index, 0):
        return None

    def arg(k: int):
        v = call.operands[k]
        c = const_int(v)
        return ("const", c) if c is not None else ("value", id(v))

    terms = sorted((tuple(sorted(arg(k) for k in monomial)), c) for monomial, c in cover.terms)
    return cover.const, tuple(terms)


def _readable_inputs(values: Values, op: Op, j: int, block: Block) -> Optional[set[int]]:
    """The producer's array arguments (other than ``j``) taken from copies made for its own
    gradient; None when one of its arrays may hold other values in the reverse sweep."""
    forward = values.forward
    top = top_level_index(values.fn, op)
    copied: set[int] = set()
    for k, a in enumerate(op.operands):
        if k == j or not a.type.is_array:
            continue
        if (op, k) in forward.snapshots:
            copied.add(k)
            continue
        root = known_root(a)
        if root in values.readonly_roots:
            continue
        if root is a and a.defining_op is not None and values.is_readonly_array_op(a.defining_op):
            continue  # a whole-array value of arrays that keep their contents (``x[i * d:]``)
        if root in values.last_write and values.last_write[root] < top:
            continue
        return None
    return copied
