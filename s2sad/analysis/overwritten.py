"""Array parameters a function writes before it reads them: their values on entry never matter.

A helper that fills a work array and then reads it back (``project(cam, X, proj)`` sets
``proj[0]`` and ``proj[1]``, then scales them in place) re-runs, in the reverse sweep, from
whatever the array held at the call: nothing it reads comes from there. Such an argument needs
no copy taken before the call (``adjoint/forward``), only memory of its size, as an argument
the callee only writes does; the copy would also read numbers the caller never set.

The check is deliberately simple, and answers no when unsure: it walks the function's
top-level code in order, collecting the elements stored at constant indices, and accepts a
read of the parameter only at an element already stored; a call passing the parameter counts
as reading the elements its extents say it may touch (``analysis.extents``), which must all be
stored already. A first loop ``for (i = 0; i < n; i++) out[i] = ...`` that fills the elements
the function ever touches (its cover is ``n``) answers yes at once. Any other use (a loop or
branch touching it, a view of it, an index that is not a constant) ends the walk with no.
"""

from __future__ import annotations

from ..ssa.build import const_int
from ..ssa.ir import Function, Module, Op, Value
from .extents import Affine, Sizes


def overwritten_first(module: Module, fn: Function, index: int, sizes: Sizes) -> bool:
    """Whether ``fn`` writes every element of its parameter ``index`` that it reads, before reading it."""
    param = fn.params[index]
    if not param.type.is_array or param.type.rank != 1:  # type: ignore[attr-defined]
        return False
    stored: set[int] = set()
    for op in fn.body.ops:
        if not _touches(op, param):
            continue
        if not stored and _fills(op, param) and _covers(fn, index, op.operands[1], sizes):
            return True  # for (i = 0; i < n; i++) out[i] = ...; first, and nothing past out[n - 1]
        if op.name == "store" and op.operands[0] is param:
            k = const_int(op.operands[1])
            if k is None:
                return False
            stored.add(k)
        elif op.name == "load" and op.operands[0] is param:
            if const_int(op.operands[1]) not in stored:
                return False
        elif op.name == "call" and op.attrs["callee"] in module.functions:
            if not _within(module, op, param, stored, sizes):
                return False
        else:
            return False
    return True


def filled_first(module: Module, fn: Function, index: int, sizes: Sizes) -> bool:
    """Whether ``fn``'s first use of its parameter ``index`` is a loop storing every element the
    function ever touches (``for (i = 0; i < n; i++) out[i] = ...;`` with a cover of ``n``): what
    the array holds after a call depends on the call's other inputs only."""
    param = fn.params[index]
    if not param.type.is_array or param.type.rank != 1:  # type: ignore[attr-defined]
        return False
    for op in fn.body.ops:
        if _touches(op, param):
            return _fills(op, param) and _covers(fn, index, op.operands[1], sizes)
    return False


def _fills(op: Op, param: Value) -> bool:
    """``for (i = 0; i < n; i++) { ... param[i] = ...; ... }``: a counted loop from 0 by 1 whose
    body stores element ``i`` unconditionally, touches none of ``param`` before that store, and
    after it only element ``i`` (``param[i + 1]`` would still hold its value on entry)."""
    if op.name != "for" or const_int(op.operands[0]) != 0 or const_int(op.operands[2]) != 1:
        return False
    body = op.regions[0]
    counter = body.args[0]
    stored = False
    for inner in body.ops:
        if not _touches(inner, param):
            continue
        at_counter = inner.name in ("load", "store") and inner.operands[0] is param and inner.operands[1] is counter
        if not at_counter or (not stored and inner.name != "store"):
            return False
        stored = True
    return stored


def _covers(fn: Function, index: int, bound: Value, sizes: Sizes) -> bool:
    """Whether ``fn`` touches no element of its parameter ``index`` at ``bound`` or past it: its
    cover (``analysis.extents``) is no more than ``bound``."""
    axes = sizes.extents(fn)[index]
    cover = axes[0] if axes else None
    if cover is None:
        return False
    if bound in fn.params:
        return cover == Affine.of_param(fn.params.index(bound))
    c = const_int(bound)
    return c is not None and cover.is_const and cover.const <= c


def _touches(op: Op, param: Value) -> bool:
    """Whether ``op``, or an op in its regions, uses ``param``."""
    return any(param in o.operands for o in op.walk())


def _within(module: Module, op: Op, param: Value, stored: set[int], sizes: Sizes) -> bool:
    """A call that may touch only elements already stored, by the constant extents of each
    parameter it passes ``param`` as."""
    callee = module.functions[op.attrs["callee"]]
    extents = sizes.extents(callee)
    for j, a in enumerate(op.operands):
        if a is not param:
            continue
        axes = extents[j]
        cover = axes[0] if axes else None
        if cover is None or not cover.is_const or not all(k in stored for k in range(cover.const)):
            return False
    return True
