"""Counted ``while`` loops become ``for`` loops.

A ``while`` whose condition compares one carried integer with a loop-invariant
bound, and whose body steps that integer by a constant, is a ``for`` over a
range in disguise. C writes many loops so: ``for (i = 0; i + 1 < n; i++)``,
pointer walks ``for (p = x; p < x + n; p++)`` (an offset compared with ``n``),
and Python's ``while i < n: ...; i += 1``. As a ``while`` the reverse sweep must
count the iterations and tape the counter; as a ``for`` its trip count is known
at entry, the counter is the induction variable, the reversed loop recomputes
it, and tapes are sized once.

Recognized, with ``c`` the carried integer, ``a`` and ``s`` integer constants
and ``B`` defined outside the loop (or computed in the condition from values
that are):

* condition ``c + a < B`` (or ``<=``, or the mirrored ``B > c + a``) and step
  ``c += s`` with ``s > 0``: ``for c in range(c0, B - a, s)`` (``B - a + 1`` for
  ``<=``);
* condition ``c + a > B`` (or ``>=``) and ``s < 0``: the same downwards;
* a CUDA grid-stride loop, ``for (i = gid; i < n; i += blockDim.x * gridDim.x)``: the
  step is not a constant but a product of launch dimensions, positive all the same.

The condition must compute nothing else (it is dropped), and the loop's final
value of ``c``, when used after it, must be the one ``range`` leaves, which is
known in closed form for ``s = +-1`` (``max(c0, B - a)`` upwards); otherwise the
loop stays a ``while``.
"""

from __future__ import annotations

from typing import Optional

from ..analysis.effects import PassContext
from ..ssa import build
from ..ssa.ir import Block, Builder, Function, Module, Op, Value
from ..ssa.gpu import launch_extent
from ..ssa.opdefs import is_pure
from ..ssa.ops import MIRRORED
from ..ssa.types import I64


def run(module: Module, ctx: PassContext) -> None:
    for fn in module.functions.values():
        run_function(fn)


def run_function(fn: Function) -> None:
    for op in [op for op in fn.walk() if op.name == "while"]:
        _convert(op)


def _offset_of(v: Value, args: list[Value]) -> Optional[tuple[int, int]]:
    """``v`` as ``args[k] + a``: (k, a), or None."""
    if v in args:
        return args.index(v), 0
    op = v.defining_op
    if op is None or op.name not in ("add", "sub"):
        return None
    x, y = op.operands
    a = build.const_value(y)
    if x in args and isinstance(a, int) and not isinstance(a, bool):
        return args.index(x), a if op.name == "add" else -a
    a = build.const_value(x)
    if op.name == "add" and y in args and isinstance(a, int) and not isinstance(a, bool):
        return args.index(y), a
    return None


def _launch_stride(v: Value, counter: Value, loop: Op) -> Optional[Value]:
    """For ``counter + s`` with ``s`` a product of launch dimensions (a grid-stride loop's
    ``blockDim.x * gridDim.x``: positive, the same in every iteration): ``s``; else None."""
    op = v.defining_op
    if op is None or op.name != "add" or counter not in op.operands:
        return None
    s = op.operands[1] if op.operands[0] is counter else op.operands[0]
    return s if launch_extent(s) and _invariant(s, counter.owner, loop) else None


def _invariant(v: Value, region: Block, loop: Op) -> bool:
    """Defined outside ``loop``, or computed in ``region`` (its condition or body) by pure ops
    from values that are."""
    op = v.defining_op
    if v.is_block_arg:
        return v.owner is not region and not loop.encloses(v)
    assert op is not None
    if op.parent is region:
        return is_pure(op) and all(_invariant(o, region, loop) for o in op.operands)
    return not loop.encloses(v)


def _hoist(v: Value, region: Block, b: Builder, done: dict[Value, Value]) -> Value:
    """A copy of ``v``'s computation in ``region`` (the loop's condition or body) placed before
    the loop."""
    op = v.defining_op
    if op is None or op.parent is not region:
        return v
    if v not in done:
        operands = [_hoist(o, region, b, done) for o in op.operands]
        done[v] = b.create(op.name, operands, [r.type for r in op.results], dict(op.attrs),
                           hints=[r.name_hint for r in op.results]).results[v.index]
    return done[v]


def _convert(w: Op) -> bool:
    cond, body = w.regions
    b_val = cond.terminator.operands[0]
    test = b_val.defining_op
    if test is None or test.parent is not cond or test.name not in MIRRORED:
        return False
    if any(not is_pure(op) for op in cond.ops[:-1]):
        return False
    args = cond.args
    name = test.name
    lhs, rhs = test.operands
    counted = _offset_of(lhs, args)
    if counted is None:
        counted, lhs, rhs, name = _offset_of(rhs, args), rhs, lhs, MIRRORED[name]
    if counted is None or not _invariant(rhs, cond, w):
        return False
    k, a = counted
    if args[k].type != I64:
        return False
    if any(o in args and o is not args[k] for op in cond.ops for o in op.operands):
        return False  # the condition reads another carried value
    step_of = _offset_of(body.terminator.operands[k], body.args)
    stride = None if step_of is not None else _launch_stride(body.terminator.operands[k], body.args[k], w)
    if stride is not None:
        step_of = (k, 1)  # a positive step whose value the launch decides
    if step_of is None or step_of[0] != k or step_of[1] == 0:
        return False
    s = step_of[1]
    if (s > 0) != (name in ("lt", "le")):
        return False
    final_used = bool(w.results[k].uses)
    if final_used and (abs(s) != 1 or stride is not None):
        return False

    b = Builder(w.parent, w.loc).before_op(w)
    bound = _hoist(rhs, cond, b, {})
    hoisted = _hoist(stride, body, b, {}) if stride is not None else None  # before the body moves
    shift = -a + (1 if name == "le" else -1 if name == "ge" else 0)
    ub = bound if shift == 0 else build.add(b, bound, build.const(b, shift, I64))
    lb = w.operands[k]
    inits = [v for i, v in enumerate(w.operands) if i != k]
    new_body = Block([I64] + [v.type for i, v in enumerate(body.args) if i != k],
                     [body.args[k].name_hint] + [v.name_hint for i, v in enumerate(body.args) if i != k])
    others = iter(new_body.args[1:])
    for i, old in enumerate(body.args):
        old.replace_all_uses_with(new_body.args[0] if i == k else next(others))
    for op in body.ops:
        new_body.append(op)
    body.ops = []
    y = new_body.terminator
    y.set_operands([v for i, v in enumerate(y.operands) if i != k])
    step = hoisted if hoisted is not None else build.const(b, s, I64)
    loop = b.create("for", [lb, ub, step, *inits],
                    [r.type for i, r in enumerate(w.results) if i != k], dict(w.attrs),  # its checkpoint
                    regions=[new_body], hints=[r.name_hint for i, r in enumerate(w.results) if i != k])
    kept = iter(loop.results)
    for i, r in enumerate(w.results):
        if i != k:
            r.replace_all_uses_with(next(kept))
    if final_used:  # range leaves the counter at the bound, or at its start when it ran no iteration
        after = Builder(w.parent, w.loc).before_op(w)
        more = build.cmp(after, "lt" if s > 0 else "gt", lb, ub)
        w.results[k].replace_all_uses_with(build.select(after, more, ub, lb))
    w.erase()
    return True
