"""Sums a reversed loop carries, with the factors its iterations share taken out of the loop.

SYRK's reversed inner loop adds into two adjoints the same product times a different value that
no iteration changes:

    for (long j = t1 - 1; j >= 0; j--) {
        double t2 = d_C[i][j] * A[j][k];
        d_A[j][k] += d_C[i][j] * (alpha * A[i][k]);
        d_alpha_local += t2 * A[i][k];
        d_A_i_k += t2 * alpha;
    }

Each sum is that product summed, times its own factor: one sum of the product is carried, and
each adjoint gets it times its factor once, after the loop:

    double t4 = 0.0;
    for (long j = t1 - 1; j >= 0; j--) {
        double t2 = d_C[i][j] * A[j][k];
        d_A[j][k] += d_C[i][j] * (alpha * A[i][k]);
        t4 += t2;
    }
    d_alpha_local += t4 * A[i][k];
    d_A_i_k += t4 * alpha;

Two multiplications and one dependent addition fewer per iteration (SYR2K, GEMM, the reversed
dot products of many kernels). A term is a product of factors (the ``mul`` ops made in the loop,
looked through); the factors made before the loop are its invariant part, the others its variant
part, and the terms whose variant parts are the same values share one carried sum. A load the loop
makes at indices made before it, of an array it does not write (SYRK's ``A[i][k]``: LICM leaves
such loads where hoisting would need a guard), counts as made before it where the loop evidently
runs (``analysis.ranges``: ``j`` from ``i`` down to 0), and is made again after it.

Only in the loops of a reverse sweep (``ssa.attrs.REVERSED``), whose numbers are all adjoints:
sums of contributions whose order reverse mode does not fix, added here in another order (the
gradient changes in its last bits, as with ``local_sums``). A sum qualifies when the body adds
terms to the carried number and hands the total on, and nothing else reads it. Where the loop
runs no iteration, the sum adds ``0 * factor``: zero, unless the factor is infinite or NaN.
"""

from __future__ import annotations

from typing import Optional

from ..analysis.effects import PassContext, array_root, written_arrays
from ..analysis.iterations import gradient_loops
from ..analysis.ranges import IntRanges
from ..ssa import build
from ..ssa.attrs import REVERSED
from ..ssa.ir import Builder, Module, Op, Value
from ..ssa.structured import add_carried, drop_carried, made_inside


def run(module: Module, ctx: PassContext) -> None:
    ranges: dict[str, IntRanges] = {}  # (per function, made when first asked)
    for loop in reversed(gradient_loops(module, ctx)):  # (innermost first)
        if loop.attrs.get(REVERSED) and not loop.attrs.get("parallel"):
            _factor(module, loop, ranges)


class _Term:
    """One term added to a carried sum: its variant factors and its invariant ones."""

    def __init__(self, add: Op, term: Value, variant: list[Value], invariant: list[Value]):
        self.add, self.term, self.variant, self.invariant = add, term, variant, invariant

    def key(self) -> tuple[int, ...]:
        return tuple(sorted(id(v) for v in self.variant))


def _factor(module: Module, loop: Op, ranges: dict[str, IntRanges]) -> None:
    body = loop.regions[0]
    yields = body.terminator.operands  # type: ignore[union-attr]
    invariant = _invariant_loads(module, loop, ranges)
    terms: dict[int, list[_Term]] = {}  # carried slot -> the terms it takes out
    whole: dict[int, bool] = {}  # whether those are all its terms
    for k, arg in enumerate(body.args[1:]):
        chain = _sum_chain(arg, yields[k], loop, invariant) if arg.type.is_float else None
        if chain is not None:
            out = [t for t in chain if t.invariant and t.variant]
            if out:
                terms[k] = out
                whole[k] = len(out) == len(chain)
    if not terms:
        return
    shared: dict[tuple[int, ...], list[tuple[int, _Term]]] = {}
    for k, ts in terms.items():
        for t in ts:
            shared.setdefault(t.key(), []).append((k, t))
    before = Builder(loop.parent, loop.loc).before_op(loop)
    after: list[tuple[int, Value, list[Value]]] = []  # (slot, the sum's result, the factors)
    for group in shared.values():
        first = group[0][1]

        def summed(s: Value, first: _Term = first) -> Value:
            b = Builder(body, first.add.loc).before_op(body.terminator)
            return build.add(b, s, _product(b, first.variant))

        # The sum of one adjoint's terms is named as the adjoint it makes (d_c_0, times alpha after
        # the loop); a sum several share, as a temporary.
        k0 = group[0][0]
        hint = body.args[1 + k0].name_hint if len(group) == 1 and whole[k0] else ""
        zero = build.const(before, 0.0, body.args[1 + k0].type)  # (the sum's own type: f32 in float code)
        total = add_carried(loop, zero, summed, hint)
        after += [(k, total, t.invariant) for k, t in group]
    users = {k: list(loop.results[k].uses) for k in terms}
    for ts in terms.values():
        for t in ts:
            _drop_term(t)
    # A sum all of whose terms moved is no longer carried: it is its initial value plus theirs.
    emptied = sorted((k for k in terms if body.terminator.operands[k] is body.args[1 + k]), reverse=True)
    block = loop.parent
    b = Builder(block, loop.loc).at(block, block.ops.index(loop) + 1)
    final = {k: loop.operands[3 + k] if k in emptied else loop.results[k] for k in terms}
    for k, total, invariant in after:
        factors = [_again(b, f) if made_inside(f, loop) else f for f in invariant]  # (a load)
        # (named as the adjoint it is where several read it, d_t; else it prints inside its reader)
        hint = loop.results[k].name_hint if len(users[k]) > 1 else ""
        moved = build.mul(b, total, _product(b, factors))
        final[k] = moved if build.is_const(final[k], 0.0) else build.add(b, final[k], moved)
        final[k].name_hint = hint
    for k, value in final.items():
        for op, i in users[k]:
            op.set_operand(i, value)
    for k in emptied:
        drop_carried(loop, k)


def _invariant_loads(module: Module, loop: Op, ranges: dict[str, IntRanges]) -> set[Value]:
    """The loads in ``loop``'s body that give the same value in every iteration (indices made
    before the loop, an array nothing in it writes), where the loop evidently runs."""
    body = loop.regions[0]
    loads = [op for op in body.ops if op.name == "load" and not any(made_inside(v, loop) for v in op.operands)]
    if not loads:
        return set()
    written = {array_root(a) for a in written_arrays(module, loop)}
    loads = [op for op in loads if array_root(op.operands[0]) is not None
             and array_root(op.operands[0]) not in written and None not in written]
    if not loads or not _runs(module, loop, ranges):
        return set()
    return {op.result for op in loads}


def _runs(module: Module, loop: Op, ranges: dict[str, IntRanges]) -> bool:
    """Whether ``loop`` (a constant step) evidently runs at least once."""
    top = loop
    while top.parent is not None and top.parent.parent_op is not None:
        top = top.parent.parent_op
    function = next(f for f in module.functions.values() if f.body is top.parent)
    if function.name not in ranges:
        ranges[function.name] = IntRanges(function, set())
    r = ranges[function.name]
    lb, ub, step = loop.operands[:3]
    s = build.const_int(step)
    if not s:
        return False
    first, stop = r.at(lb, loop), r.at(ub, loop)
    return first[0] >= stop[1] + 1 if s < 0 else stop[0] >= first[1] + 1


def _again(b: Builder, load: Value) -> Value:
    """The load ``load`` made again at ``b``."""
    op = load.defining_op
    assert op is not None and op.name == "load"
    return b.op1("load", list(op.operands), load.type, load.name_hint)


def _sum_chain(arg: Value, last: Value, loop: Op, invariant: set[Value]) -> Optional[list[_Term]]:
    """The terms the body adds to the carried number ``arg`` to make ``last``, what it yields: a
    chain of ``add`` ops in the body, each the only reader of the one before; None otherwise."""
    body = loop.regions[0]
    out: list[_Term] = []
    cur = arg
    while cur is not last:
        if len(cur.uses) != 1:
            return None
        (op, i), = cur.uses
        if op.name != "add" or op.parent is not body or len(op.operands) != 2:
            return None
        term = op.operands[1 - i]
        variant, fixed = _factors(term, loop, invariant)
        out.append(_Term(op, term, variant, fixed))
        cur = op.result
    if len(last.uses) != 1:  # (the yield)
        return None
    return out


def _factors(v: Value, loop: Op, loads: set[Value]) -> tuple[list[Value], list[Value]]:
    """``v`` as a product of factors (looking through the ``mul`` ops made in ``loop``): those made
    in the loop, and those made before it or the same in every iteration (``loads``)."""
    variant: list[Value] = []
    invariant: list[Value] = []
    pending = [v]
    while pending:
        x = pending.pop()
        if not made_inside(x, loop) or x in loads:
            invariant.append(x)
            continue
        op = x.defining_op
        if op is not None and op.name == "mul" and x.type.is_float:
            pending += reversed(op.operands)
            continue
        variant.append(x)
    return variant, invariant


def _product(b: Builder, factors: list[Value]) -> Value:
    out = factors[0]
    for f in factors[1:]:
        out = build.mul(b, out, f)
    return out


def _drop_term(t: _Term) -> None:
    """The sum ``t`` is added in no longer adds it: ``a + term`` becomes ``a``."""
    kept = t.add.operands[0] if t.add.operands[1] is t.term else t.add.operands[1]
    t.add.result.replace_all_uses_with(kept)
