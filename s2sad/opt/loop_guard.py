"""Guards: ``if <the loop runs at least once>`` around a ``for``, where LICM puts what may fail.

An op hoisted out of a loop runs even when the loop runs zero times; one that can fail (a
division, a call) may be hoisted only where it is guaranteed to run. A *guard* makes such a
place: the loop is wrapped in ``if lb < ub`` (``lb > ub`` for a negative step) whose then-region
holds the hoisted ops and the loop and yields its results, and whose else-region yields the
loop's initial values (a loop that runs zero times yields them). A *sub-guard* ``if c`` holds
ops that need an inner loop's condition too; a guard left holding only its loop is dissolved.
``opt/licm.py`` decides what moves; this module recognises, makes and removes the ifs.
"""

from __future__ import annotations

from typing import Any, Optional

from ..ssa.build import const_value
from ..ssa.ir import Block, Op, Value
from ..ssa.opdefs import is_pure
from ..ssa.types import BOOL

Key = tuple[Any, ...]


def value_key(v: Value) -> Key:
    """Equal for the same value and for two constants of the same type and value."""
    c = const_value(v)
    if c is not None:
        return ("const", str(v.type), type(c).__name__, c)
    return ("value", id(v))


def test_key(name: str, a: Value, b: Value) -> Key:
    """A comparison up to swapping: ``gt(a, b)`` is ``lt(b, a)``."""
    if name == "gt":
        return ("lt", value_key(b), value_key(a))
    return (name, value_key(a), value_key(b))


def cond_key(c: Value) -> Key:
    op = c.defining_op
    if op is not None and op.name in ("lt", "gt") and len(op.operands) == 2:
        return test_key(op.name, *op.operands)
    return ("value", id(c))


def trip_test(loop: Op) -> Optional[tuple[str, Value, Value]]:
    """The comparison that holds iff a ``for`` with a constant step runs at least once."""
    step = const_value(loop.operands[2])
    if step is None or isinstance(step, bool) or step == 0:
        return None
    return ("lt" if step > 0 else "gt", loop.operands[0], loop.operands[1])


def static_trips(loop: Op) -> Optional[int]:
    bounds = [const_value(v) for v in loop.operands[:3]]
    if any(c is None or isinstance(c, bool) for c in bounds) or bounds[2] == 0:
        return None
    return len(range(*bounds))


def known_true(block: Block, key: Key) -> bool:
    """Whether ``block`` lies in the then-region of an ``if`` testing ``key``."""
    while block.parent_op is not None:
        owner = block.parent_op
        if owner.name == "if" and block is owner.regions[0] and cond_key(owner.operands[0]) == key:
            return True
        if owner.parent is None:
            return False
        block = owner.parent
    return False


def guard_of(loop: Op) -> Optional[Op]:
    """The guard ``if`` around ``loop`` (see the module docstring), if it has one."""
    block = loop.parent
    g = block.parent_op if block is not None else None
    if g is None or g.name != "if" or block is not g.regions[0] or loop.name != "for":
        return None
    if len(block.ops) < 2 or block.ops[-2] is not loop or block.ops[-1].operands != loop.results:
        return None
    other = g.regions[1].ops
    if len(other) != 1 or other[0].operands != loop.operands[3:]:
        return None
    test = trip_test(loop)
    if test is None or cond_key(g.operands[0]) != test_key(*test):
        return None
    return g


def guarded_loop(op: Op) -> Optional[Op]:
    """The loop ``op`` guards, when ``op`` is a guard."""
    if op.name != "if" or len(op.regions[0].ops) < 2:
        return None
    loop = op.regions[0].ops[-2]
    return loop if loop.name == "for" and guard_of(loop) is op else None


def make_guard(loop: Op) -> Op:
    """Wrap ``loop`` in ``if <it runs at least once>``; the if takes over the loop's results."""
    name, lb, ub = trip_test(loop)
    parent = loop.parent
    # `n > 0` reads better than `0 < n`; cond_key treats the two as the same test.
    cond = Op("gt", [ub, lb], [BOOL], loc=loop.loc) if name == "lt" else Op(name, [lb, ub], [BOOL], loc=loop.loc)
    parent.insert(parent.ops.index(loop), cond)
    then, other = Block(), Block()
    g = Op("if", [cond.result], [r.type for r in loop.results], regions=[then, other], loc=loop.loc,
           hints=[r.name_hint for r in loop.results])
    parent.insert(parent.ops.index(loop), g)
    for r, gr in zip(loop.results, g.results):
        r.replace_all_uses_with(gr)
    parent.ops.remove(loop)
    then.append(loop)
    then.append(Op("yield", list(loop.results), [], loc=loop.loc))
    other.append(Op("yield", list(loop.operands[3:]), [], loc=loop.loc))
    return g


def make_sub_guard(cond: Value, group: list[Op], before: Op) -> Op:
    """Move ``group`` into ``if cond``, before ``before``; it yields what the loop uses of them."""
    members = set(group)
    exported = [r for op in group for r in op.results if any(u not in members for u, _ in r.uses)]
    then, other = Block(), Block()
    g = Op("if", [cond], [r.type for r in exported], regions=[then, other], loc=group[0].loc,
           hints=[r.name_hint for r in exported])
    before.parent.insert(before.parent.ops.index(before), g)
    for r, gr in zip(exported, g.results):
        for user, i in list(r.uses):
            if user not in members:
                user.set_operand(i, gr)
    for op in group:
        op.parent.ops.remove(op)
        then.append(op)
    then.append(Op("yield", exported, [], loc=group[0].loc))
    # Every use of the values is under ``cond`` too, so the else-values are never read.
    undefs = [other.append(Op("undef", [], [r.type], loc=group[0].loc)).result for r in exported]
    other.append(Op("yield", undefs, [], loc=group[0].loc))
    return g


def dissolve_guard(g: Op) -> None:
    """Replace a guard holding only its loop by the loop (zero trips yield the inits anyway)."""
    loop = g.regions[0].ops[0]
    g.regions[0].ops.remove(loop)
    g.parent.insert(g.parent.ops.index(g), loop)
    for gr, r in zip(g.results, loop.results):
        gr.replace_all_uses_with(r)
    cond = g.operands[0].defining_op
    g.erase()
    if cond is not None and not cond.result.uses and is_pure(cond):
        cond.erase()
