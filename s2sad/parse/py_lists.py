"""Python lists of numbers, lowered to arrays.

A list is an array of its items (the *buffer*) and a length: the environment maps the list's
name to the buffer, like any array, and ``length_key(name)`` to its length, an integer carried
through loops and branches like any variable. What makes that sound:

* **The buffer is big enough before any append.** A list is created by an assignment of its
  own (``hist = []``, ``v = [a, b]``, ``p = [... for i in range(n)]``); its capacity is the
  items it starts with plus, for every ``hist.append(...)`` in the statements that follow
  (until ``hist`` is assigned again), the product of the trip counts of the loops around it.
  Those trip counts are evaluated where the list is created, so what they read must not change
  in between (no name the statements after it assign, no call of a function of the file), and
  an append inside a ``while`` loop, whose trip count is unknown, is refused. An append under
  an ``if`` or in a loop that breaks is counted as if it ran: the capacity is an upper bound,
  the length counts what ran.
* **Every read goes through the length.** ``hist[k]`` is the buffer's element k, a negative k
  counting from the length (``hist[-1]``, and ``hist[k]`` for a k not known to be non-negative,
  through a select); ``len(hist)`` is the length; ``sum(hist)`` and ``for v in hist`` run over
  it; where NumPy takes the list as an array (``np.array(hist)``, ``np.sum(hist)``), it gets the
  first ``len`` items as a fresh array.
* **Nothing else sees a list as a value**: ``hist + [1.0]`` concatenates and ``hist * 2``
  repeats in Python, so any other use (arithmetic, a comparison, passing it to a function,
  returning it, a second name for it) is a located error, with the rewrite that works.

Lists of arrays and nested lists are refused (a 2-D array filled row by row is the rewrite).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

import libcst as cst

from ..ssa import build
from ..ssa.ir import Builder, Value
from ..ssa.types import I64, ArrayType
from . import py_arrays
from .py_common import Env, length_key
from .py_flow import else_statements, read_names, stmt_assigned, subscript_chain, suite_statements, walk
from .py_iter import IterError, Iteration, RangeIter, range_bounds, range_length, read_iter
from .py_types import appended_list, int_literal

if TYPE_CHECKING:
    from .py_expr import ExprLowerer

HINT = ("a list can be created (v = [...], v = []), appended to, indexed, and passed to len(), sum(), "
        "a for loop or a NumPy function; convert it for anything else: np.array(v)")


# -- where each list is appended to (read from the syntax, before lowering) -------------------


@dataclass
class AppendPlan:
    """The appends to a list the statement creating it makes room for, each with the loops
    around it (outermost first), and the names the statements after it change (assign, or
    append to): a loop bound read where the list is created must not read them."""

    appends: list[tuple[cst.Call, list[cst.CSTNode]]] = field(default_factory=list)
    changed: frozenset[str] = frozenset()


def append_plans(body: cst.BaseSuite, lists: frozenset[str]) -> dict[cst.CSTNode, AppendPlan]:
    """The plan of every statement that creates a list, by statement."""
    out: dict[cst.CSTNode, AppendPlan] = {}
    _plan_block(suite_statements(body), lists, out)
    return out


def created_list(st: cst.CSTNode, lists: frozenset[str]) -> Optional[str]:
    """The list ``st`` creates (``v = [...]``, ``v = [... for ...]``), if it is such a statement."""
    if isinstance(st, cst.Assign) and len(st.targets) == 1:
        target, value = st.targets[0].target, st.value
    elif isinstance(st, cst.AnnAssign) and st.value is not None:
        target, value = st.target, st.value
    else:
        return None
    if isinstance(target, cst.Name) and target.value in lists and isinstance(value, (cst.List, cst.ListComp)):
        return target.value
    return None


def _plan_block(stmts: list[cst.CSTNode], lists: frozenset[str], out: dict[cst.CSTNode, AppendPlan]) -> None:
    for k, st in enumerate(stmts):
        name = created_list(st, lists)
        if name is not None:
            region = []
            for later in stmts[k + 1:]:
                if name in stmt_assigned(later):
                    break
                region.append(later)
            appends: list[tuple[cst.Call, list[cst.CSTNode]]] = []
            changed = set()
            for later in region:
                changed |= set(stmt_assigned(later))
                _find_appends(later, name, [], appends, changed)
            out[st] = AppendPlan(appends, frozenset(changed))
        if isinstance(st, cst.If):
            _plan_block(suite_statements(st.body), lists, out)
            _plan_block(else_statements(st.orelse), lists, out)
        elif isinstance(st, (cst.For, cst.While)):
            _plan_block(suite_statements(st.body), lists, out)


def _find_appends(node: cst.CSTNode, name: str, loops: list[cst.CSTNode],
                  out: list[tuple[cst.Call, list[cst.CSTNode]]], changed: set[str]) -> None:
    if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        return
    if isinstance(node, (cst.For, cst.While)):
        loops = loops + [node]
    if isinstance(node, cst.Call):
        appended = appended_list(node)
        if appended is not None:
            changed.add(appended)
            if appended == name:
                out.append((node, loops))
    for child in node.children:
        _find_appends(child, name, loops, out, changed)


# -- lowering --------------------------------------------------------------------------------


def is_list(lw: "ExprLowerer", node: cst.CSTNode) -> bool:
    """A list literal, a list comprehension, or a name of a list."""
    if isinstance(node, (cst.List, cst.ListComp)):
        return True
    return isinstance(node, cst.Name) and node.value in lw.ctx.types.lists and node.value in lw.ctx.locals


def state(lw: "ExprLowerer", node: cst.Name, b: Builder, env: Env) -> tuple[Value, Value]:
    """The buffer and the length of the list ``node`` names."""
    buf = lw.name(node, b, env, as_list=True)
    n = env.get(length_key(node.value))
    assert isinstance(n, Value), f"list {node.value} has no length"
    return buf, n


def items(lw: "ExprLowerer", node: cst.BaseExpression, b: Builder, env: Env) -> tuple[Value, Value]:
    """The buffer and the length of any list form (a literal or a comprehension: a new one)."""
    from . import py_comprehension

    if isinstance(node, cst.Name):
        return state(lw, node, b, env)
    t = lw.ctx.types.node_types.get(node)
    if not isinstance(t, ArrayType):
        raise lw.fail(node, "the type of this list's items is not known", hint=HINT)
    if isinstance(node, cst.List):
        return literal(lw, node, t, None, b, env)
    return py_comprehension.fill(lw, node, t, None, b, env)  # type: ignore[arg-type]


def as_array(lw: "ExprLowerer", node: cst.BaseExpression, b: Builder, env: Env) -> Value:
    """The list's items as an array of its length, as NumPy converts a list: a whole-array value
    (``arr.slice``), which nothing may write, and which the gradient refuses where the list is
    written after it is read."""
    buf, n = items(lw, node, b, env)
    if not isinstance(node, cst.Name) and _exact(buf, n):
        return buf  # a new list, exactly full: its buffer is the array
    return py_arrays.arr_op(lw, b, node, "slice", [buf, build.const(lw.at(b, node), 0, I64), n], {"axes": ["r"]})


def _exact(buf: Value, n: Value) -> bool:
    op = buf.defining_op
    return op is not None and op.name == "alloc" and op.operands[0] is n


def literal(lw: "ExprLowerer", node: cst.List, t: ArrayType, capacity: Optional[Value], b: Builder,
            env: Env) -> tuple[Value, Value]:
    """``[a, b, c]`` in a buffer of ``capacity`` (its own length when None); its items are
    evaluated first, in order, as Python does."""
    values = []
    for el in node.elements:
        if isinstance(el, cst.StarredElement):
            raise lw.fail(el, "starred items in a list are not supported", hint="append the items in a loop")
        v = lw.value(el.value, b, env)
        if isinstance(v.type, ArrayType) or isinstance(el.value, (cst.List, cst.ListComp)):
            raise lw.fail(el.value, "lists of arrays (or of lists) are not supported",
                          hint="use a 2-D array: np.zeros((n, m)), filled row by row")
        values.append((v, el.value))
    lw.at(b, node)
    n = build.const(b, len(values), I64)
    buf = allocate(lw, node, capacity if capacity is not None else n, t, b)
    for k, (v, item) in enumerate(values):
        v = lw.coerce(v, t.elem, b, item, "an item of this list")
        lw.at(b, item).create("store", [buf, build.const(b, k, I64), v], [])
    return buf, n


def allocate(lw: "ExprLowerer", node: cst.CSTNode, capacity: Value, t: ArrayType, b: Builder) -> Value:
    if t.rank != 1:
        raise lw.fail(node, "lists of arrays (or of lists) are not supported",
                      hint="use a 2-D array: np.zeros((n, m)), filled row by row")
    return lw.at(b, node).op1("alloc", [capacity], t, fill="empty", elem=t.elem.name)


def capacity(lw: "ExprLowerer", plan: AppendPlan, b: Builder, env: Env) -> Optional[Value]:
    """The room the appends of ``plan`` need, evaluated where the list is created (None: none)."""
    total: Optional[Value] = None
    for call, loops in plan.appends:
        term: Optional[Value] = None
        for loop in loops:
            n = _trip_count(lw, loop, call, plan, b, env)
            term = n if term is None else build.mul(b, term, n)
        term = term if term is not None else build.const(lw.at(b, call), 1, I64)
        total = term if total is None else build.add(b, total, term)
    return total


def _trip_count(lw: "ExprLowerer", loop: cst.CSTNode, call: cst.Call, plan: AppendPlan, b: Builder,
                env: Env) -> Value:
    name = dotted_base(call)
    if not isinstance(loop, cst.For):
        raise lw.fail(call, f"appending to '{name}' inside a while loop: the list's length is not known "
                      "where it is created", hint="append in a for loop, or fill an array of the largest "
                      "length (np.zeros(max_n)) and count")
    read = read_names(loop.iter)
    if appended_list(call) in read:  # Python would go on over what the loop appends
        raise lw.fail(loop.iter, f"appending to '{name}' while looping over it is not supported",
                      hint=f"loop over its first items: for k in range(len({name})): ...")
    stale = sorted(read & plan.changed)
    if stale:
        raise lw.fail(loop.iter, f"the length of '{name}' must be known where it is created, but this loop's "
                      f"length depends on '{stale[0]}', which changes after that",
                      hint="create the list where the loops' lengths are known, or fill an array (np.zeros(...))")
    if any(isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value in lw.info.functions
           and n.func.value not in lw.ctx.locals for n in walk(loop.iter)):
        raise lw.fail(loop.iter, f"the length of '{name}' must be known where it is created, and this loop's "
                      "length calls a function", hint="compute the length before creating the list")
    try:
        it = read_iter(loop.iter, lambda f: lw.info.canonical_name(f, lw.ctx.locals))
    except IterError as e:
        raise lw.fail(e.node, e.message, e.hint) from None
    if isinstance(it, RangeIter) and it.parallel:
        raise lw.fail(call, f"appending to '{name}' inside a prange loop: the iterations would race",
                      hint="use range(...), or write each iteration's value into an array element")
    if isinstance(it, RangeIter):
        lb, ub, step = range_bounds(lw, it, b, env)
        if build.const_value(step) is None:
            raise lw.fail(it.call, "a loop that appends to a list needs a range with a constant step",
                          hint="make the step a constant")
        return range_length(lw.at(b, it.node), lb, ub, step)
    return Iteration(lw, it, b, env).length


def dotted_base(call: cst.Call) -> str:
    return appended_list(call) or "the list"


def append(lw: "ExprLowerer", call: cst.Call, t: ArrayType, b: Builder, env: Env) -> None:
    """``v.append(x)``: the item goes in at the length, which grows by one."""
    func = call.func
    assert isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
    if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
        raise lw.fail(call, "append(...) takes one item")
    buf, n = state(lw, func.value, b, env)
    item = call.args[0].value
    v = lw.value(item, b, env)
    if isinstance(v.type, ArrayType):
        raise lw.fail(item, "lists of arrays are not supported",
                      hint="use a 2-D array: np.zeros((n, m)), filled row by row")
    v = lw.coerce(v, t.elem, b, item, f"an item of '{func.value.value}'")
    lw.at(b, call).create("store", [buf, n, v], [])
    env[length_key(func.value.value)] = build.add(b, n, build.const(b, 1, I64))


def element(lw: "ExprLowerer", node: cst.Subscript, b: Builder, env: Env) -> tuple[Value, list[Value]]:
    """The buffer and index of ``v[k]`` (a load or a store)."""
    base, indices = subscript_chain(node)
    assert isinstance(base, cst.Name)
    buf, n = state(lw, base, b, env)
    if len(indices) != 1 or not isinstance(indices[0], cst.BaseExpression):
        what = "slices of a list are" if any(isinstance(i, cst.Slice) for i in indices) else "this index is"
        raise lw.fail(node, f"{what} not supported on the list '{base.value}'",
                      hint=f"index one item (v[k]), or convert it: np.array({base.value})[...]")
    return buf, [index(lw, indices[0], n, b, env)]


def index(lw: "ExprLowerer", node: cst.BaseExpression, n: Value, b: Builder, env: Env) -> Value:
    """Item ``node`` of a list of length ``n``: a negative index counts from the end, as in Python
    (where the index may be negative, a select picks; the buffer is longer than the list)."""
    lit = int_literal(node)
    if lit is not None:
        return build.const(lw.at(b, node), lit, I64) if lit >= 0 else build.add(b, n, build.const(b, lit, I64))
    k = lw.integer(node, b, env, "a list index")
    low = lw.lower_bound(k)
    if low is not None and low >= 0:
        return k
    lw.at(b, node)
    negative = build.cmp(b, "lt", k, build.const(b, 0, I64))
    return build.select(b, negative, build.add(b, k, n), k)


def sequence(lw: "ExprLowerer", node: cst.BaseExpression, b: Builder, env: Env):
    """What a loop over a list reads: its length, and its item k."""
    buf, n = items(lw, node, b, env)
    return n, lambda bb, k: lw.at(bb, node).op1("load", [buf, k], buf.type.elem)  # type: ignore[attr-defined]
