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

from typing import Optional

from ..ssa.build import const_int
from ..ssa.ir import Function, Module, Op, Value
from .effects import written_params
from .extents import Affine, Sizes, dominates


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
    if c is not None:
        return cover.is_const and cover.const <= c
    stop = sizes.affine(fn, bound)  # n - 1: the loop fills as far as the cover reaches
    return stop is not None and dominates(stop, cover)


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


def written_before_read(module: Module, fn: Function, index: int, sizes: Sizes) -> bool:
    """Whether ``fn`` writes every element of its parameter ``index`` that it reads before it reads
    it, through the calls it makes too: a work array, whose values on entry never matter (a file-
    scope ``static`` one, ``parse.c_global_arrays``). In the order of the top-level code: a loop
    filling it from 0 (``_fills``), or a call that does so in turn, makes the first ``m`` elements
    written (``m`` the trip count, a callee's in the caller's arguments); a load, in a loop or not,
    must read below the largest ``m`` so far, by the bounds of its index; stores at constant
    indices count as written; any other use: no."""
    return _written_prefix(module, fn, index, sizes, set())[0]


def _written_prefix(module: Module, fn: Function, index: int, sizes: Sizes,
                    busy: set[str]) -> tuple[bool, Optional[Affine]]:
    """(``written_before_read``, how many elements from 0 it has written when it returns)."""
    param = fn.params[index]
    if not param.type.is_array or param.type.rank != 1 or fn.name in busy:  # type: ignore[attr-defined]
        return False, None
    state = _Written(module, fn, param, sizes, busy | {fn.name})
    ok = state.block(fn.body.ops)
    return ok, state.filled if ok else None


class _Written:
    """What of ``param`` is written so far, walking ``fn``'s code in order: the first ``filled``
    elements, and the constant indices ``stored``. In a loop or a branch the walk goes on inside
    (a call there fills as well as one outside: a helper filling a work array in a loop), and
    what it wrote there counts afterwards only for the loop's own body."""

    def __init__(self, module: Module, fn: Function, param: Value, sizes: Sizes, busy: set[str]):
        self.module, self.fn, self.param, self.sizes, self.busy = module, fn, param, sizes, busy
        self.filled: Optional[Affine] = None
        self.stored: set[int] = set()

    def block(self, ops: list[Op]) -> bool:
        for op in ops:
            if _touches(op, self.param) and not self.op(op):
                return False
        return True

    def op(self, op: Op) -> bool:
        param, fn = self.param, self.fn
        if _fills(op, param):
            self.filled = _larger(self.filled, self.sizes.affine(fn, op.operands[1]))
            return self.filled is not None
        if op.name == "call" and op.attrs["callee"] in self.module.functions:
            callee = self.module.functions[op.attrs["callee"]]
            passed = [j for j, a in enumerate(op.operands) if a is param]
            if len(passed) != 1:
                return False
            if passed[0] not in written_params(self.module, callee):
                # sum(work, NC): it reads no more than its cover, which must be written by now
                axes = self.sizes.extents(callee)[passed[0]]
                reach = _in_caller(axes[0] if axes else None, op, fn, self.sizes)
                return reach is not None and self.filled is not None and dominates(self.filled, reach)
            ok, count = _written_prefix(self.module, callee, passed[0], self.sizes, self.busy)
            count = _in_caller(count, op, fn, self.sizes)
            if not ok or count is None:
                return False
            self.filled = _larger(self.filled, count)
            return self.filled is not None
        if op.name == "store" and op.operands[0] is param and len(op.operands) == 3:
            k = const_int(op.operands[1])
            if k is not None:
                self.stored.add(k)
            return True  # a write: it can only make more of it written
        if op.name == "load" and op.operands[0] is param and len(op.operands) == 2:
            k = const_int(op.operands[1])
            if k is not None and k in self.stored:
                return True
            reach = self.sizes.index_range(fn, op)
            return reach is not None and self.filled is not None and dominates(reach[0], Affine()) \
                and dominates(self.filled.plus(-1), reach[1])
        if op.name in ("for", "while", "if") and param not in op.operands:
            filled, stored = self.filled, set(self.stored)
            ok = all(self.block(r.ops) for r in op.regions)
            self.filled, self.stored = filled, stored  # what a loop or branch wrote may not have run
            return ok
        return False


def _larger(a: Optional[Affine], b: Optional[Affine]) -> Optional[Affine]:
    """The larger of two counts of elements written from 0 (None: unknown, and for ``a``: none yet)."""
    if b is None:
        return a
    if a is None or dominates(b, a):
        return b
    return a if dominates(a, b) else None


def _in_caller(form: Optional[Affine], call: Op, caller: Function, sizes: Sizes) -> Optional[Affine]:
    """A form over the callee's integer parameters as one over the caller's, by the call's arguments."""
    if form is None:
        return None
    out = Affine.of_const(form.const)
    for monomial, c in form.terms:
        term = Affine.of_const(c)
        for k in monomial:
            arg = sizes.affine(caller, call.operands[k])
            if arg is None:
                return None
            term = term.times(arg)
        out = out + term
    return out
