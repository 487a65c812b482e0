"""Stencil adjoints in gather form: each element's additions made by one iteration.

The adjoint of a stencil ``v[i] = u[i] + r * (u[i - 1] - 2 * u[i] + u[i + 1])`` is a loop that
*scatters*: iteration ``i`` adds into ``d_u[i - 1]``, ``d_u[i]`` and ``d_u[i + 1]``, so each
element is added to by three iterations, and no compiler vectorizes a loop whose iterations
add into each other's elements. Written the other way round, iteration ``j`` adds into
``d_u[j]`` alone what the three iterations ``j + 1``, ``j`` and ``j - 1`` added into it:

    d_u[j] += t(j + 1) + s(j) + t(j - 1)

each ``t(i)``, ``s(i)`` computed again at its iteration's index. Such a loop (*gather* form)
writes one element per iteration and reads only what the scatter loop read: compilers vectorize
it, as they do the primal's stencil.

A loop is rewritten when it counts by one either way, its body is straight-line, and it adds
into one array ``A`` at indices ``i + c`` of at least three offsets ``c`` and touches ``A`` no
other way; every other array the body writes, it reads and writes at ``i`` only (each
iteration's own element, so the iterations are independent but for ``A``), and what the
additions into ``A`` are computed from (their *slice*: arithmetic, and loads) reads such an
array before the body writes it. The additions then leave the loop, which keeps the rest, for
loops placed before it that make them in gather form over the elements they reach,
``[lo + min c, hi + max c]`` for iterations ``lo .. hi``: one where every offset's iteration
runs (no test), and one at each end where some do not (each term added where its iteration
runs, which reads only what that iteration read). Floating-point sums are made in another
order: the gradient changes in its last bits, as with any reassociation.

Not done: under ``--may-alias`` (``A`` might be another name of an array the body reads), for
the loops of OpenMP and ``numba.prange`` (already parallel), for a body with branches, calls or
carried values.
"""

from __future__ import annotations

from typing import Optional

from ..analysis.effects import PassContext, array_root
from ..analysis.iterations import ACCESSES, gradient_loops, own_elements, straight_body
from ..ssa import build
from ..ssa.build import const_int
from ..ssa.ir import Block, Builder, Module, Op, Value
from ..ssa.types import I64


def run(module: Module, ctx: PassContext) -> None:
    for loop in gradient_loops(module, ctx):
        plan = _plan(loop)
        if plan is not None:
            _rewrite(loop, *plan)


Term = tuple[Op, int]  # an addition into A, and the offset of its index from the counter
# The fewest offsets that make a loop gather: a loop adding at two (``x[i + 1] - x[i]``, the
# commonest) would become three loops, two of them with tests, in place of one of two lines, for
# little speed; three (the stencil) are what the gather form is for.
FEWEST_OFFSETS = 3


def _plan(loop: Op) -> Optional[tuple[Value, list[Term]]]:
    """The array ``A`` and the additions into it that ``loop`` can make in gather form, or None."""
    body = loop.regions[0]
    step = const_int(loop.operands[2])
    ops = straight_body(loop)
    if step not in (1, -1) or loop.attrs.get("parallel") or ops is None:
        return None
    iv = body.args[0]
    accessed = [op for op in ops if op.name in ACCESSES]
    # A: added into at several offsets from the counter, and touched no other way.
    by_array: dict[Value, list[Term]] = {}
    for op in accessed:
        if op.name == "accum" and len(op.operands) == 3:
            c = _offset(op.operands[1], iv)
            if c is not None:
                by_array.setdefault(op.operands[0], []).append((op, c))
    for target, terms in by_array.items():
        added = {op for op, _ in terms}
        if len({c for _, c in terms}) < FEWEST_OFFSETS or any(target in op.operands for op in ops if op not in added):
            continue
        root = array_root(target)
        if root is None or any(array_root(op.operands[0]) is root for op in accessed if op not in added):
            return None  # A read under another name: what the additions change, the slices would read
        # Every other array written: each iteration's own element (own_elements also refuses A
        # under another name), read by the additions before the body writes it.
        written = own_elements(loop, ops, added)
        if written is None or target in written:
            return None
        position = {op: k for k, op in enumerate(ops)}
        first_write = {arr: min(position[op] for op in accessed if op.operands[0] is arr and op.name != "load")
                       for arr in written}
        invariant = _invariant_carried(loop)
        for op, _ in terms:
            for s in _slice(op.operands[2], body):
                if s.name == "load" and s.operands[0] in written and position[s] > first_write[s.operands[0]]:
                    return None  # it reads what this iteration wrote: not the value before the loop
                if any(v.owner is body and v is not iv and v not in invariant for v in s.operands):
                    return None  # it reads a value the loop carries and changes
            if op.operands[2].owner is body and op.operands[2] is not iv and op.operands[2] not in invariant:
                return None
        return target, terms
    return None


def _invariant_carried(loop: Op) -> dict[Value, Value]:
    """The values ``loop`` carries and hands on unchanged (an adjoint every iteration reads), each
    to the value it starts with."""
    body = loop.regions[0]
    return {a: init for a, init, y in zip(body.args[1:], loop.operands[3:], body.terminator.operands)  # type: ignore
            if y is a}


def _offset(index: Value, iv: Value) -> Optional[int]:
    """``c`` where ``index`` is ``iv + c`` (``iv``, ``iv + 1``, ``1 + iv``, ``iv - 1``), else None."""
    if index is iv:
        return 0
    op = index.defining_op
    if op is None or op.name not in ("add", "sub") or len(op.operands) != 2:
        return None
    x, y = op.operands
    if x is iv and const_int(y) is not None:
        return const_int(y) if op.name == "add" else -const_int(y)  # type: ignore[operator]
    if op.name == "add" and y is iv and const_int(x) is not None:
        return const_int(x)
    return None


def _slice(v: Value, body: Block) -> list[Op]:
    """The ops of ``body`` that ``v`` is computed from, in the body's order."""
    inside: set[Op] = set()
    pending = [v]
    while pending:
        op = pending.pop().defining_op
        if op is not None and op.parent is body and op not in inside:
            inside.add(op)
            pending += op.operands
    return [op for op in body.ops if op in inside]


def _rewrite(loop: Op, target: Value, terms: list[Term]) -> None:
    """The additions of ``terms`` made by gather loops placed before ``loop``, and taken out of it."""
    lb, ub, step = loop.operands[:3]
    b = Builder(loop.parent, loop.loc).before_op(loop)
    one = build.const(b, 1, I64)
    if const_int(step) == 1:
        lo, hi = lb, build.sub(b, ub, one)
    else:
        lo, hi = build.add(b, ub, one), lb
    offsets = [c for _, c in terms]
    low, high = min(offsets), max(offsets)
    first = _plus(b, lo, low)
    inner_start = _plus(b, lo, high)  # from here on, every term's iteration runs ...
    inner_end = _plus(b, hi, low + 1)  # ... up to here
    end = _plus(b, hi, high + 1)
    edge_end = _pick(b, "lt", inner_start, end)  # the first edge stops at the inner part, or the end
    last_start = _pick(b, "gt", edge_end, inner_end)  # the last edge starts after both
    iv = loop.regions[0].args[0]
    what = f"into {target.name_hint} " if target.name_hint else ""
    b.create("comment", [], [], {"text": f"the additions {what}of the loop below, gathered: one element each"})
    for start, stop, ends in ((first, edge_end, True), (inner_start, inner_end, False), (last_start, end, True)):
        body = Block([I64], [iv.name_hint or "i"])
        inner = Builder(body, loop.loc)
        j = body.args[0]
        total: Optional[Value] = None
        for op, c in terms:
            i = _plus(inner, j, -c)
            vmap = {iv: i, **_invariant_carried(loop)}
            if ends:  # an end, where some iterations did not run: each term where its iteration ran
                then = Block()
                tb = Builder(then, loop.loc)
                build.accum(tb, target, [j], _term(op, loop, tb, vmap))
                tb.create("yield", [], [])
                Builder(else_ := Block(), loop.loc).create("yield", [], [])
                runs = build.binary(inner, "and", build.cmp(inner, "ge", i, lo), build.cmp(inner, "le", i, hi))
                inner.create("if", [runs], [], regions=[then, else_])
            else:
                term = _term(op, loop, inner, vmap)
                total = term if total is None else build.add(inner, total, term)
        if total is not None:
            build.accum(inner, target, [j], total)
        inner.create("yield", [], [])
        b.create("for", [start, stop, one], [], dict(loop.attrs), regions=[body])
    for op, _ in terms:
        op.erase()


def _term(op: Op, loop: Op, b: Builder, vmap: dict[Value, Value]) -> Value:
    """What the addition ``op`` of ``loop``'s body adds, computed again with ``b`` (the counter and
    carried values as ``vmap`` says)."""
    for s in _slice(op.operands[2], loop.regions[0]):
        _clone(s, b, vmap)
    return vmap.get(op.operands[2], op.operands[2])


def _clone(op: Op, b: Builder, vmap: dict[Value, Value]) -> None:
    new = b.create(op.name, [vmap.get(v, v) for v in op.operands], [r.type for r in op.results], dict(op.attrs),
                   hints=[r.name_hint for r in op.results], loc=op.loc)
    vmap.update(zip(op.results, new.results))


def _plus(b: Builder, v: Value, c: int) -> Value:
    if c == 0:
        return v
    return build.add(b, v, build.const(b, c, I64)) if c > 0 else build.sub(b, v, build.const(b, -c, I64))


def _pick(b: Builder, test: str, x: Value, y: Value) -> Value:
    """``x`` where ``x test y`` holds, else ``y``: the smaller of the two for ``lt``, the larger for ``gt``."""
    return build.select(b, build.cmp(b, test, x, y), x, y)
