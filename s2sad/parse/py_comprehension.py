"""Comprehensions and ``sum(...)``, lowered to loops inside an expression.

``sum(f(v) for v in x)``, ``sum([x[i] * w[i] for i in range(n)])`` and ``sum(hist)`` are
reductions: one ``for`` op per ``for`` clause, carrying the running sum, with each ``if``
clause an ``if`` op that adds only where it holds. Python starts the sum at ``start`` (the
integer 0 by default) and adds the items in order; the sum is an integer when they all are.

``[f(v) for v in x]`` as a value is a list (``py_lists``): a buffer as long as the product of
the clauses' lengths, filled by the same loops, with the count of items made carried along (an
``if`` clause makes fewer). Those lengths must be known before the first item is made, so a
clause may not run over what an earlier clause binds (``[... for i in range(n) for j in
range(i)]`` is refused; its sum is not, a reduction needs no length).

The names a comprehension binds are its own (Python gives a comprehension its own scope): they
are bound in a copy of the environment, and shadow a local of the same name only inside it.
"""

from __future__ import annotations

from typing import Callable, Optional

import libcst as cst

from ..ssa import build
from ..ssa.ir import Block, Builder, Value
from ..ssa.types import BOOL, I64, ArrayType, Type
from . import py_arrays, py_extents, py_lists
from .py_common import Env
from .py_flow import read_names
from .py_iter import ItemsIter, Iter, IterError, Iteration, Leaf, RangeIter, leaves, read_iter
from .py_types import Comprehension, comprehension_clauses, positional_args

from .py_lists import ExprLowerer

# What a fold does for each item: from the values it carries and the loops' indices (outermost
# first), the values it carries on.
Step = Callable[[Builder, Env, list[Value], list[Value]], list[Value]]


class _Level:
    """One ``for`` clause: what it runs over (``iteration``: evaluated, where that is done before
    the outermost loop), what it binds, its tests."""

    def __init__(self, it: Iter, iteration: Optional[Iteration], names: list[tuple[cst.Name, Leaf]],
                 ifs: list[cst.BaseExpression]):
        self.it = it
        self.iteration = iteration
        self.names = names
        self.ifs = ifs


def _levels(lw: "ExprLowerer", node: Comprehension, b: Builder, env: Env, known_lengths: bool) -> list[_Level]:
    """The clauses. With ``known_lengths`` (a list's room), their iterations are evaluated before
    the loops, and an inner clause that runs over a name an outer one binds is refused; else each
    is evaluated where Python does, in the loop of the clause before it."""
    out: list[_Level] = []
    bound: set[str] = set()
    for k, clause in enumerate(comprehension_clauses(node)):
        if clause.asynchronous is not None:
            raise lw.fail(clause, "async comprehensions are not supported")
        try:
            it = read_iter(clause.iter, lambda f: lw.info.canonical_name(f, lw.ctx.locals))
            names = leaves(clause.target, it)
        except IterError as e:
            raise lw.fail(e.node, e.message, e.hint) from None
        inner = read_names(clause.iter) & bound
        if inner and known_lengths:
            raise lw.fail(clause.iter, f"this list's length must be known before it is built, but this clause "
                          f"runs over what depends on '{sorted(inner)[0]}'",
                          hint="build the list with a for loop and append")
        iteration = Iteration(lw, it, b, env) if known_lengths or k == 0 else None
        out.append(_Level(it, iteration, names, [c.test for c in clause.ifs]))
        bound |= {n.value for n, _ in names}
    return out


def _fold(lw: "ExprLowerer", node: cst.CSTNode, levels: list[_Level], b: Builder, env: Env,
          init: list[Value], step: Step) -> list[Value]:
    """Run ``step`` for every item the clauses make, carrying ``init`` through their loops."""
    scope: set[str] = {n.value for level in levels for n, _ in level.names}
    lw.scopes.append(scope)
    try:
        return _loop(lw, node, levels, 0, b, env, init, step, [])
    finally:
        lw.scopes.pop()


def _loop(lw: "ExprLowerer", node: cst.CSTNode, levels: list[_Level], depth: int, b: Builder, env: Env,
          state: list[Value], step: Step, ks: list[Value]) -> list[Value]:
    if depth == len(levels):
        return step(b, env, state, ks)
    level = levels[depth]
    iteration = level.iteration or Iteration(lw, level.it, b, env)
    loc = lw.locator.loc(node)
    body = Block([I64] + [v.type for v in state], ["k"] + [v.name_hint for v in state])
    bb = Builder(body, loc)
    k = body.args[0]
    lw.lower_bounds[k] = 0
    inner = dict(env)
    for name, leaf in level.names:
        v = iteration.value(leaf, bb, k)
        if not v.name_hint and v.defining_op is not None:
            v.name_hint = name.value
        inner[name.value] = v
    out = _tests(lw, node, level.ifs, levels, depth, bb, inner, list(body.args[1:]), step, ks + [k])
    bb.loc = loc
    bb.create("yield", out, [])
    b.loc = loc
    zero, one = build.const(b, 0, I64), build.const(b, 1, I64)
    op = b.create("for", [zero, iteration.length, one, *state], [v.type for v in state], regions=[body],
                  hints=[v.name_hint for v in state])
    return op.results


def _tests(lw: "ExprLowerer", node: cst.CSTNode, ifs: list[cst.BaseExpression], levels: list[_Level],
           depth: int, b: Builder, env: Env, state: list[Value], step: Step, ks: list[Value]) -> list[Value]:
    """The ``if`` clauses, each an ``if`` op: the rest of the fold runs where they all hold."""
    if not ifs:
        return _loop(lw, node, levels, depth + 1, b, env, state, step, ks)
    cond = lw.condition(ifs[0], b, env)
    loc = lw.locator.loc(ifs[0])
    then, other = Block(), Block()
    tb, ob = Builder(then, loc), Builder(other, loc)
    out = _tests(lw, node, ifs[1:], levels, depth, tb, env, state, step, ks)
    tb.loc = loc
    tb.create("yield", out, [])
    ob.create("yield", state, [])
    b.loc = loc
    return b.create("if", [cond], [v.type for v in state], regions=[then, other],
                    hints=[v.name_hint for v in state]).results


def fill(lw: "ExprLowerer", node: cst.ListComp, t: ArrayType, extra: Optional[Value], b: Builder,
         env: Env) -> tuple[Value, Value]:
    """``[elt for ...]``: a buffer with room for every item (and ``extra`` more), and the count.
    Without an ``if`` clause every iteration makes an item: item (k0, k1, ...) goes to its place
    in the clauses' order, and the count is the room; else the count is carried and advanced."""
    levels = _levels(lw, node, b, env, known_lengths=True)
    lw.at(b, node)
    room: Optional[Value] = None
    lengths = [level.iteration.length for level in levels if level.iteration is not None]
    for n in lengths:
        room = n if room is None else build.mul(b, room, n)
    assert room is not None and len(lengths) == len(levels)
    full = room
    if extra is not None:
        room = build.add(b, room, extra)
    # Items that are arrays (x ** k): the buffer's other extents are theirs, which the items show
    # once they are made (``_item_extents``); held by placeholders until then.
    holders = [build.const(b, 0, I64) for _ in range(t.rank - 1)]
    buf = py_lists.allocate(lw, node, room, t, b, holders)
    filtered = any(level.ifs for level in levels)
    items: list[Value] = []

    def put(bb: Builder, inner: Env, state: list[Value], ks: list[Value]) -> list[Value]:
        v = lw.value(node.elt, bb, inner)
        if isinstance(v.type, ArrayType) != bool(holders) or isinstance(v.type, ArrayType) \
                and v.type.rank != len(holders):
            raise lw.fail(node.elt, "lists of arrays are supported as the items of a comprehension that "
                          "np.stack, np.vstack, np.hstack or np.column_stack stacks, all of one rank",
                          hint="use a 2-D array: np.zeros((n, m)), filled row by row")
        lw.at(bb, node.elt)
        if filtered:
            at = state[0]
        else:
            at = ks[0]
            for n, k in zip(lengths[1:], ks[1:]):
                at = build.add(bb, build.mul(bb, at, n), k)
        if holders:
            items.append(v)
            py_arrays.each_element(bb, v, lambda eb, index: eb.create(
                "store", [buf, at, *index, _element(eb, v, index, t)], []))
        else:
            v = lw.coerce(v, t.elem, bb, node.elt, "an item of this list")
            bb.create("store", [buf, at, v], [])
        return [build.add(bb, state[0], build.const(bb, 1, I64))] if filtered else []

    if not filtered:
        _fold(lw, node, levels, b, env, [], put)
        count = full
    else:
        count = _fold(lw, node, levels, b, env, [build.const(lw.at(b, node), 0, I64, "count")], put)[0]
    if holders:
        _item_extents(lw, node, buf, holders, items)
    return buf, count


def _element(b: Builder, v: Value, index: list[Value], t: ArrayType) -> Value:
    x = b.op1("load", [v, *index], v.type.elem)  # type: ignore[attr-defined]
    return build.cast(b, x, t.elem) if x.type != t.elem else x


def _item_extents(lw: "ExprLowerer", node: cst.ListComp, buf: Value, holders: list[Value], items: list[Value]
                  ) -> None:
    """The extents of a buffer of array items (``holders`` until now): the extents every item
    evidently has, made before the buffer (each item is copied in over its own extents)."""
    alloc = buf.defining_op
    assert alloc is not None and alloc.parent is not None
    ops = alloc.parent.ops
    later = ops[ops.index(alloc) + 1:]
    inside = [r for op in later for r in op.regions]
    made_later = {r for op in later for r in op.results}
    at = Builder(alloc.parent, alloc.loc).before_op(alloc)
    for axis, holder in enumerate(holders):
        key = py_extents.made_before(lw, items, axis, inside)
        if key is None or key in made_later or isinstance(key, tuple) and key[0] in made_later:
            raise lw.fail(node.elt, "the items of this list comprehension are arrays whose shape is not evident "
                          "before the first is made", hint="make each item of the shape of one array made before "
                          "(x ** k, np.exp(x) * c), or fill a 2-D array np.zeros((n, m)) row by row")
        alloc.set_operand(1 + axis, py_extents.make(at, key))
        holder.defining_op.erase()  # type: ignore[union-attr]


def extremum(lw: "ExprLowerer", node: cst.Call, fn: str, b: Builder, env: Env) -> Value:
    """``max(items)`` / ``min(items)`` of one iterable (a comprehension, a generator, a list, a
    1-D array, a range): a loop that keeps the largest (smallest) item so far, the first item as
    it is. On ties the earlier item stays, as Python's ``max`` returns the first of equal items,
    so the adjoint goes to it (``math.max``'s rule gives its first operand a tie). An empty
    iterable, where Python raises ValueError, gives no number to differentiate."""
    args = positional_args(node)
    keyword = next((a for a in node.args if a.keyword is not None), None)
    if keyword is not None:
        raise lw.fail(keyword, f"{fn}(..., {keyword.keyword.value}=...) is not supported",  # type: ignore[union-attr]
                      hint=f"{fn} of a generator expression computes the key itself: {fn}(f(v) for v in x)")
    if is_shape(args[0]):
        return _shape_extremum(lw, args[0], fn, b, env)  # type: ignore[arg-type]
    t: Optional[Type] = lw.ctx.types.node_types.get(node)
    if isinstance(t, ArrayType):
        raise lw.fail(node, f"{fn}(...) of arrays (a list of arrays, a matrix's rows) is not supported",
                      hint=f"use np.{fn}(x, axis=0)")
    if t is None:
        raise lw.fail(node, f"the type of what {fn}(...) compares is not known",
                      hint="compare numbers: a comprehension, a list, a 1-D array or a range")
    items = args[0]
    hint = "largest" if fn == "max" else "smallest"
    lw.at(b, node)
    # Whether an item came before: without an `if` clause, any item but the very first (an index
    # above 0), which the reverse sweep recomputes; with one, a flag the loops carry.
    filtered = isinstance(items, (cst.GeneratorExp, cst.ListComp)) and any(
        clause.ifs for clause in comprehension_clauses(items))
    state = [b.op1("undef", [], t, hint)] + ([build.const(b, False, BOOL, "seen")] if filtered else [])

    def keep(what: cst.BaseExpression, value: Callable[[Builder, Env, list[Value]], Value]) -> Step:
        def step(bb: Builder, inner: Env, st: list[Value], ks: list[Value]) -> list[Value]:
            v = lw.coerce(lw.to_number(bb, what, lw.scalar_value(what, value(bb, inner, ks))), t, bb, what,
                          f"an item of {fn}(...)")
            at = lw.at(bb, what)
            if filtered:
                seen = st[1]
            else:
                zero = build.const(at, 0, I64)
                seen = at.op1("gt", [ks[0], zero], BOOL)
                for k in ks[1:]:
                    seen = at.op1("or", [seen, at.op1("gt", [k, zero], BOOL)], BOOL)
            best = lw.if_value(bb, what, seen, lambda tb: build.math(lw.at(tb, what), fn, st[0], v, hint=hint),
                               lambda eb: v)
            best.name_hint = hint
            return [best] + ([build.const(at, True, BOOL, "seen")] if filtered else [])
        return step

    return _reduce(lw, items, fn, b, env, state, keep)[0]


def is_shape(node: cst.BaseExpression) -> bool:
    """``x.shape``: a tuple of integers, one per axis."""
    return isinstance(node, cst.Attribute) and node.attr.value == "shape"


def _shape_extremum(lw: "ExprLowerer", node: cst.Attribute, fn: str, b: Builder, env: Env) -> Value:
    """``min(A.shape)`` / ``max(A.shape)``: the least (greatest) extent of ``A``, its axes compared
    in order (integers: which of equal ones is kept makes no difference)."""
    arr = lw.array(node.value, b, env)
    at = lw.at(b, node)
    best: Optional[Value] = None
    for axis in range(arr.type.rank):  # type: ignore[attr-defined]
        d = at.op1("dim", [arr], I64, axis=axis)
        best = d if best is None else build.select(at, at.op1("lt" if fn == "min" else "gt", [d, best], BOOL), d, best)
    assert best is not None
    return best


def _reduce(lw: "ExprLowerer", items: cst.BaseExpression, fn: str, b: Builder, env: Env, state: list[Value],
            step_of: Callable[[cst.BaseExpression, Callable[[Builder, Env, list[Value]], Value]], Step]
            ) -> list[Value]:
    """Fold ``state`` over the items of ``items`` (a comprehension or an iterable), each step
    made by ``step_of(node of the item, the item's value)``."""
    if isinstance(items, (cst.GeneratorExp, cst.ListComp)):
        levels = _levels(lw, items, b, env, known_lengths=False)
        elt = items.elt
        return _fold(lw, items, levels, b, env, state, step_of(elt, lambda bb, inner, ks: lw.value(elt, bb, inner)))
    try:
        it = read_iter(items, lambda f: lw.info.canonical_name(f, lw.ctx.locals))
    except IterError as e:
        raise lw.fail(e.node, e.message, e.hint) from None
    if not isinstance(it, (RangeIter, ItemsIter)):
        raise lw.fail(items, f"{fn}(...) of tuples is not supported",
                      hint=f"{fn} a comprehension: {fn}(a * b for a, b in ...)")
    iteration = Iteration(lw, it, b, env)
    leaf = it
    return _fold(lw, items, [_Level(it, iteration, [], [])], b, env, state,
                 step_of(items, lambda bb, inner, ks: iteration.value(leaf, bb, ks[0])))


def sum_(lw: "ExprLowerer", node: cst.Call, b: Builder, env: Env) -> Value:
    """``sum(items, start)``: a loop adding the items (of a comprehension, a list, an array or
    a range) to ``start``."""
    args = positional_args(node)
    start_node = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "start"), None)
    if start_node is not None:
        args = args + [start_node]
    if not 1 <= len(args) <= 2 or any(a.star or (a.keyword is not None and a.keyword.value != "start")
                                      for a in node.args):
        raise lw.fail(node, "sum(...) takes the items and a start")
    t: Optional[Type] = lw.ctx.types.node_types.get(node)
    if isinstance(t, ArrayType):
        raise lw.fail(node, "sum(...) of arrays (a list of arrays, a matrix's rows) is not supported",
                      hint="use np.sum(x, axis=0)")
    if t is None:
        raise lw.fail(node, "the type of what sum(...) adds is not known",
                      hint="sum numbers: a comprehension, a list, a 1-D array or a range")
    total = lw.coerce(lw.value(args[1], b, env), t, b, args[1], "the start of sum(...)") if len(args) == 2 \
        else build.const(lw.at(b, node), 0, t, "total")
    items = args[0]

    def add(what: cst.BaseExpression, value: Callable[[Builder, Env, list[Value]], Value]) -> Step:
        def step(bb: Builder, inner: Env, state: list[Value], ks: list[Value]) -> list[Value]:
            v = lw.coerce(lw.to_number(bb, what, lw.scalar_value(what, value(bb, inner, ks))), t, bb, what,
                          "an item of sum(...)")
            return [build.add(lw.at(bb, what), state[0], v)]
        return step

    return _reduce(lw, items, "sum", b, env, [total], add)[0]
