"""The values a ``for``, ``while`` or ``if`` carries: where each comes from and goes (``slots``,
read there), and the edits that add or drop one; the values used inside an op but made outside it
(``outer_refs``); whether an op runs inside a loop (``in_loop``), and whether a value is made
inside an op's regions (``made_inside``); how many times a ``for`` with a
constant step runs (``trip_count``).

A ``for`` carries values from its operands after ``lb, ub, step`` through its body's block
arguments (after the induction variable) and yields to its results; a ``while`` from its
operands through the block arguments of both regions; an ``if`` only yields them, one per
region, to its results. Each edit below keeps those four places (operand, block arguments,
yields, result) in step, so that no pass has to know the layout.
"""

from __future__ import annotations

from typing import Callable

from . import build
from .attrs import WHOLE_REDUCED
from .ir import Block, Builder, Op, Value
from .slots import FIRST_ARG, FIRST_INIT, Slot, slot_of, slots
from .types import I64, Type


def in_loop(op: Op) -> bool:
    """Whether ``op`` runs inside a loop of its function."""
    outer = op.parent.parent_op if op.parent is not None else None
    while outer is not None:
        if outer.name in ("for", "while"):
            return True
        outer = outer.parent.parent_op if outer.parent is not None else None
    return False


def made_inside(v: Value, op: Op) -> bool:
    """Whether ``v`` is made inside ``op``'s regions (a loop's counter and carried values
    included): inside a loop, it may change from one iteration to the next."""
    block = v.owner if v.is_block_arg else v.defining_op.parent
    while block is not None:
        if block.parent_op is op:
            return True
        block = block.parent_op.parent if block.parent_op is not None else None
    return False


def outer_refs(op: Op) -> list[Value]:
    """Values used inside ``op``'s regions but defined outside them, in first-use order."""
    nested = list(op.walk())[1:]  # one walk: deep nests ask this at every level
    inside: set[Value] = set()
    for block in [r for o in [op, *nested] for r in o.regions]:
        inside.update(block.args)
    for inner in nested:
        inside.update(inner.results)
    seen: dict[Value, None] = {}
    for inner in nested:
        for v in inner.operands:
            if v not in inside:
                seen.setdefault(v, None)
    return list(seen)


def trip_count(b: Builder, low: Value, high: Value, size: int) -> Value:
    """How many values ``range`` steps through from ``low`` toward ``high`` (excluded) by
    ``size`` (a positive constant), at ``b``: ``max(ceil((high - low) / size), 0)``."""
    span = build.sub(b, high, low)
    if size != 1:
        # Either rounding of the quotient gives the count: it is exact where the loop runs, and
        # at most 0 where it does not (the max makes that 0), so C may print its own `/`.
        span = build.binary(b, "floordiv", build.add(b, span, build.const(b, size - 1, I64)), build.const(b, size, I64),
                            rounding="any")
    return build.math(b, "max", span, build.const(b, 0, I64))


def element_loops(b: Builder, dims: list[Value], body: Callable[[Builder, list[Value]], None],
                  backward: bool = False) -> None:
    """``body(builder, index)`` for every element of an array of shape ``dims``, in a nest of
    ``for`` loops at ``b`` (the last axis innermost); ``backward`` visits them in the exact
    reverse order (every axis counts down), as a stack pushed forward is popped."""
    ivs: list[Value] = []
    blocks: list[Block] = []
    inner = b
    one = build.const(b, 1, I64)
    for d in dims:
        block = Block([I64], ["e" if len(dims) == 1 else f"e{len(ivs)}"])
        if backward:
            bounds = [build.sub(inner, d, one), build.const(inner, -1, I64), build.const(inner, -1, I64)]
        else:
            bounds = [build.const(inner, 0, I64), d, one]
        inner.create("for", bounds, [], regions=[block])
        ivs.append(block.args[0])
        blocks.append(block)
        inner = Builder(block, b.loc)
    body(inner, ivs)
    for block in blocks:
        Builder(block).create("yield", [], [])


def drop_carried(op: Op, k: int) -> None:
    """Stop ``op`` (for, while or if) carrying its ``k``-th value; its result must be unused,
    and so must the block arguments that received it."""
    for region in op.regions:
        term = region.terminator
        if term.name == "yield":
            values = list(term.operands)
            del values[k]
            term.set_operands(values)
    if op.name in FIRST_INIT:
        inits = list(op.operands)
        del inits[FIRST_INIT[op.name] + k]
        op.set_operands(inits)
        for region in op.regions:
            region.args.pop(FIRST_ARG[op.name] + k)
            for i, a in enumerate(region.args):
                a.index = i
    op.results.pop(k)
    for i, r in enumerate(op.results):
        r.index = i
    _renumber(op, WHOLE_REDUCED, k)
    if op.name in FIRST_ARG:
        _renumber(op, WHOLE_REDUCED + "_args", FIRST_ARG[op.name] + k)


def _renumber(op: Op, attr: str, dropped: int) -> None:
    """The indices an attribute of ``op`` lists (results or block arguments), once ``dropped`` is gone."""
    if attr in op.attrs:
        op.attrs[attr] = [i - (i > dropped) for i in op.attrs[attr] if i != dropped]
        if not op.attrs[attr]:
            del op.attrs[attr]


def _new_result(op: Op, type: Type, hint: str) -> Value:
    result = Value(type, hint, op, len(op.results))
    op.results.append(result)
    return result


def add_carried(loop: Op, init: Value, next_value: Callable[[Value], Value], hint: str = "") -> Value:
    """Carry one more value through ``loop`` (a for or a while) and return the loop's result for
    it. It enters as ``init``; every region gets a block argument for it, and ``next_value``,
    given the body's, returns what the body yields for the next iteration (built before the
    body's yield)."""
    loop._add_operand(init)
    args = [region.add_arg(init.type, hint) for region in loop.regions]
    body = loop.regions[-1]
    body.terminator._add_operand(next_value(args[-1]))
    return _new_result(loop, init.type, hint)


def add_if_result(if_op: Op, yielded: Callable[[Block], Value], type: Type, hint: str = "") -> Value:
    """A new result of ``if_op``: ``yielded`` gives each region's value (built before its yield)."""
    for region in if_op.regions:
        region.terminator._add_operand(yielded(region))
    return _new_result(if_op, type, hint)


__all__ = ["Slot", "add_carried", "add_if_result", "drop_carried", "slot_of", "slots"]
