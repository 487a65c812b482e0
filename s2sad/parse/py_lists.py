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

A list of arrays (``traj.append(np.array(u))``) is a buffer of one axis more, its item k the
row ``traj[k]``. Its items' shape is taken where it is created, from what each append makes:
an array of the shape of an array ``u`` that exists there and that the statements after it
do not bind anew (a swap keeps shapes): ``np.array(u)``, ``u * dt``, ``np.tanh(u) + 1.0``. The
item is copied in, which is what Python does where nothing else holds it: appending ``u``
itself, whose later changes Python's list would see, is refused. A list of arrays may also start
with arrays (``rows = [w * x, np.sin(w) * x]``): copied in as appends copy, of its first item's
shape, which the others (and any appended after, checked as each is) must have. Lists of
lists are refused (a 2-D array filled row by row is the rewrite).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Protocol

import libcst as cst

from ..ssa import build
from ..ssa.ir import Builder, Value
from ..ssa.types import I64, ArrayType
from ..ssa import array_ops
from . import py_arrays
from . import py_intrinsics as lib
from .py_common import Env, length_key
from .py_flow import (binds_here, children, else_statements, read_names, stmt_assigned, subscript_chain,
                      suite_statements, walk)
from .py_read_only import read_only
from .py_iter import IterError, Iteration, RangeIter, range_bounds, range_length, read_iter
from .py_types import appended_list, int_literal, positional_args



class ExprLowerer(Protocol):
    """What lists and comprehensions ask of the expression lowering (``py_expr.ExprLowerer``) they
    serve, stated here so that neither imports it (it imports them)."""

    ctx: Any
    info: Any
    locator: Any
    scopes: list
    lower_bounds: dict
    index_ranges: dict
    checked_lists: set

    def at(self, b: Builder, node: cst.CSTNode) -> Builder: ...

    def check_extent(self, arr: Value, axis: int, count: Any, node: cst.CSTNode, message: str,
                     b: Builder) -> None: ...

    def fail(self, node: cst.CSTNode, message: str, hint: str = "") -> Exception: ...

    def value(self, node: cst.BaseExpression, b: Builder, env: Env) -> Value: ...

    def name(self, node: cst.Name, b: Builder, env: Env, as_list: bool = False) -> Value: ...

    def integer(self, node: cst.BaseExpression, b: Builder, env: Env, what: str) -> Value: ...

    def index(self, *args: Any, **kwargs: Any) -> Value: ...

    def coerce(self, v: Value, t: Any, b: Builder, node: cst.CSTNode, what: str) -> Value: ...

    def condition(self, *args: Any, **kwargs: Any) -> Value: ...

    def to_number(self, b: Builder, node: cst.CSTNode, v: Value) -> Value: ...

    def scalar_value(self, *args: Any, **kwargs: Any) -> Any: ...

    def lower_bound(self, v: Value) -> Optional[int]: ...

    def fill_comprehension(self, node: cst.ListComp, t: ArrayType, extra: Optional[Value], b: Builder,
                           env: Env) -> Value: ...


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
    # The names those statements bind anew other than by an array swap, which keeps shapes.
    rebound: frozenset[str] = frozenset()


def append_plans(body: cst.BaseSuite, lists: frozenset[str], is_swap: Callable[[cst.CSTNode], bool]
                 ) -> dict[cst.CSTNode, AppendPlan]:
    """The plan of every statement that creates a list, by statement (``is_swap``: an
    assignment that swaps two arrays)."""
    out: dict[cst.CSTNode, AppendPlan] = {}
    _plan_block(suite_statements(body), lists, is_swap, out, top=True)
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


def _plan_block(stmts: list[cst.CSTNode], lists: frozenset[str], is_swap: Callable[[cst.CSTNode], bool],
                out: dict[cst.CSTNode, AppendPlan], top: bool = False) -> None:
    """``top``: the function's own statements, where a swap rebinds the names (py_lower.swap)."""
    for k, st in enumerate(stmts):
        name = created_list(st, lists)
        if name is not None:
            region = []
            for later in stmts[k + 1:]:
                if name in stmt_assigned(later):
                    break
                region.append(later)
            appends: list[tuple[cst.Call, list[cst.CSTNode]]] = []
            changed: set[str] = set()
            rebound: set[str] = set()
            for later in region:
                changed |= set(stmt_assigned(later))
                rebound |= {n for node in walk(later) if not is_swap(node) or (top and node is later)
                            for n in binds_here(node)}
                _find_appends(later, name, [], appends, changed)
            out[st] = AppendPlan(appends, frozenset(changed), frozenset(rebound))
        if isinstance(st, cst.If):
            _plan_block(suite_statements(st.body), lists, is_swap, out)
            _plan_block(else_statements(st.orelse), lists, is_swap, out)
        elif isinstance(st, (cst.For, cst.While)):
            _plan_block(suite_statements(st.body), lists, is_swap, out)


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
    for child in children(node):
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
    if isinstance(node, cst.Name):
        return state(lw, node, b, env)
    t = lw.ctx.types.node_types.get(node)
    if not isinstance(t, ArrayType):
        raise lw.fail(node, "the type of this list's items is not known", hint=HINT)
    if isinstance(node, (cst.List, cst.Tuple)):  # (a tuple only where a loop runs over it: py_expr.sequence)
        return literal(lw, node, t, None, b, env)  # type: ignore[arg-type]
    return lw.fill_comprehension(node, t, None, b, env)  # type: ignore[arg-type]


def as_array(lw: "ExprLowerer", node: cst.BaseExpression, b: Builder, env: Env) -> Value:
    """The list's items as an array of its length, as NumPy converts a list: a whole-array value
    (``arr.slice``), which nothing may write, and which the gradient refuses where the list is
    written after it is read."""
    buf, n = items(lw, node, b, env)
    if not isinstance(node, cst.Name) and _exact(buf, n):
        return buf  # a new list, exactly full: its buffer is the array
    return _rows(lw, node, buf, [build.const(lw.at(b, node), 0, I64), n], b)


def _rows(lw: "ExprLowerer", node: cst.CSTNode, buf: Value, first: list[Value], b: Builder) -> Value:
    """``buf[lo:hi]`` (``first`` = [lo, hi]) or item ``buf[k]`` (``first`` = [k]), whole along
    its other axes: a whole-array value."""
    rank = buf.type.rank  # type: ignore[attr-defined]
    bounds = list(first)
    for axis in range(1, rank):
        bounds += [build.const(lw.at(b, node), 0, I64), b.op1("dim", [buf], I64, axis=axis)]
    axes = ["r" if len(first) == 2 else "i"] + ["r"] * (rank - 1)
    return py_arrays.arr_op(lw, b, node, "slice", [buf, *bounds], {"axes": axes})


def _exact(buf: Value, n: Value) -> bool:
    op = buf.defining_op
    return op is not None and op.name == "alloc" and op.operands[0] is n


def literal(lw: "ExprLowerer", node: cst.List, t: ArrayType, capacity: Optional[Value], b: Builder,
            env: Env, dims: Optional[list[Value]] = None) -> tuple[Value, Value]:
    """``[a, b, c]`` in a buffer of ``capacity`` (its own length when None); its items are
    evaluated first, in order, as Python does. A new list of lists of numbers, all of one length
    (``[[a, b], [c, d]]``, any depth), is the array of those rows (``nested``)."""
    if capacity is None and dims is None and node.elements and all(
            isinstance(el, cst.Element) and isinstance(el.value, cst.List) for el in node.elements):
        return nested(lw, node, t, b, env)
    values = []
    for el in node.elements:
        if isinstance(el, cst.StarredElement):
            raise lw.fail(el, "starred items in a list are not supported", hint="append the items in a loop")
        if t.rank > 1 and isinstance(el.value, cst.Name) and not _unshared(lw, el.value, b, env):
            raise lw.fail(el.value, f"the array '{el.value.value}' in this list is that very array, which its later "
                          "changes would change", hint=f"put a copy in it: np.array({el.value.value})")
        copied = _copy_of(lw, el.value) if t.rank > 1 else None
        v = lw.value(copied or el.value, b, env)  # np.array(u): u is copied in, no copy of a copy
        if isinstance(v.type, ArrayType) != (t.rank > 1) or isinstance(el.value, (cst.List, cst.ListComp)):
            raise lw.fail(el.value, "a list holds numbers or arrays of one shape, not both, and no lists",
                          hint="use a 2-D array: np.zeros((n, m)), filled row by row")
        if t.rank > 1 and v.type.rank != t.rank - 1:  # type: ignore[attr-defined]
            raise lw.fail(el.value, f"the items of this list are {t.rank - 1}-D arrays, and this is not one")
        values.append((v, el.value))
    lw.at(b, node)
    n = build.const(b, len(values), I64)
    if t.rank > 1 and dims is None:  # a list of arrays: of its first item's shape, which the others must have
        first = values[0][0]
        dims = [b.op1("dim", [first], I64, axis=k) for k in range(t.rank - 1)]
        for v, item in values[1:]:
            for k in range(t.rank - 1):
                if not py_arrays.same_extent(first, v, k):
                    lw.check_extent(v, k, dims[k], item, "the arrays of a list must have one shape (the gradient "
                                    "holds them in one array)", b)
    buf = allocate(lw, node, capacity if capacity is not None else n, t, b, dims)
    for k, (v, item) in enumerate(values):
        lw.at(b, item)
        if t.rank == 1:
            b.create("store", [buf, build.const(b, k, I64), lw.coerce(v, t.elem, b, item, "an item of this list")], [])
            continue
        _copy_in(lw, buf, build.const(b, k, I64), v, item, "an item of this list", b)
    return buf, n


def _copy_in(lw: "ExprLowerer", buf: Value, row: Value, value: Value, item: cst.BaseExpression, what: str,
             b: Builder) -> None:
    """The array ``value`` copied into row ``row`` of a list of arrays' buffer, element by element."""
    elem = buf.type.elem  # type: ignore[attr-defined]

    def put(bb: Builder, index: list[Value]) -> None:
        x = lw.coerce(bb.op1("load", [value, *index], value.type.elem), elem, bb, item, what)  # type: ignore
        bb.create("store", [buf, row, *index, x], [])
    py_arrays.each_element(b, value, put)


def nested(lw: "ExprLowerer", node: cst.List, t: ArrayType, b: Builder, env: Env) -> tuple[Value, Value]:
    """``[[a, b], [c, d]]``, as ``np.array`` takes it: an array of as many axes as the lists nest,
    whose every list at one depth has the same length (NumPy makes a ragged one an error or an
    array of objects: refused here), its numbers evaluated in order, as Python does."""
    shape: list[int] = []
    first: cst.BaseExpression = node
    while isinstance(first, cst.List) and first.elements:  # the shape its first items give
        shape.append(len(first.elements))
        first = first.elements[0].value
    leaves: list[cst.BaseExpression] = []

    def visit(lst: cst.List, depth: int) -> None:
        if any(not isinstance(el, cst.Element) for el in lst.elements):
            raise lw.fail(lst, "starred items in a list are not supported", hint="append the items in a loop")
        rows = [isinstance(el.value, cst.List) for el in lst.elements]
        if len(lst.elements) != shape[depth] or any(r != (depth + 1 < len(shape)) for r in rows):
            raise lw.fail(lst, "the rows of a nested list must have one length (NumPy makes no array of numbers of "
                          "ragged rows)", hint="give every row as many items, or build the array with np.zeros "
                          "and fill it")
        for el in lst.elements:
            if isinstance(el.value, cst.List):
                visit(el.value, depth + 1)
            else:
                leaves.append(el.value)

    visit(node, 0)
    if t.rank != len(shape):
        raise lw.fail(node, "the type of this list's items is not known", hint=HINT)
    values = []
    for leaf in leaves:
        v = lw.value(leaf, b, env)
        if isinstance(v.type, ArrayType):
            raise lw.fail(leaf, "a nested list of arrays is not supported",
                          hint="np.stack the arrays, or build the array with np.zeros and fill it")
        values.append((v, leaf))
    lw.at(b, node)
    dims = [build.const(b, n, I64) for n in shape]
    buf = lw.at(b, node).op1("alloc", dims, t, fill="empty", elem=t.elem.name)
    for flat, (v, leaf) in enumerate(values):
        index, rest = [], flat
        for n in reversed(shape):
            index.append(rest % n)
            rest //= n
        v = lw.coerce(v, t.elem, b, leaf, "an item of this list")
        lw.at(b, leaf).create("store", [buf, *(build.const(b, k, I64) for k in reversed(index)), v], [])
    return buf, dims[0]


def allocate(lw: "ExprLowerer", node: cst.CSTNode, capacity: Value, t: ArrayType, b: Builder,
             item_dims: Optional[list[Value]] = None) -> Value:
    """The buffer: ``capacity`` items (numbers, or arrays of ``item_dims``)."""
    item_dims = item_dims or []
    if t.rank != 1 + len(item_dims):
        raise lw.fail(node, "a list of arrays is supported built by appends from an empty list (v = [])",
                      hint="start it empty and append copies (v.append(np.array(u))), or use a 2-D array")
    return lw.at(b, node).op1("alloc", [capacity, *item_dims], t, fill="empty", elem=t.elem.name)


def item_dims(lw: "ExprLowerer", name: str, node: cst.CSTNode, plan: AppendPlan, t: ArrayType, b: Builder,
              env: Env) -> list[Value]:
    """The shape of the items of a list of arrays, where it is created: that of the array each
    append copies (``shape_source``), which must exist here and keep its shape until then."""
    source: Optional[Value] = None
    unknown: list[cst.BaseExpression] = []  # appends of no evident shape: each checks it as it runs
    for call, _ in plan.appends:
        item = call.args[0].value if len(call.args) == 1 else call
        found = shape_source(lw, item)
        if found is None:
            unknown.append(item)
            continue
        if found.value in plan.rebound and isinstance(env.get(found.value), Value):
            lw.checked_lists.add(name)  # rebound after (state = step(state)): each append checks its shape
        elif found.value in plan.rebound or not isinstance(env.get(found.value), Value):
            raise lw.fail(found, f"'{found.value}' gives the shape of the arrays appended to '{name}', so it must "
                          f"exist where '{name}' is created and keep its shape: the statements after that must not "
                          "assign it", hint=f"create '{name}' after '{found.value}', and update it in place")
        v = lw.name(found, b, env)
        if not isinstance(v.type, ArrayType) or v.type.rank != t.rank - 1:
            raise lw.fail(found, f"'{found.value}' is not an array of the rank of the items of '{name}'")
        if source is None:
            source = v
        elif name not in lw.checked_lists and not all(py_arrays.same_extent(source, v, k) for k in range(t.rank - 1)):
            raise lw.fail(found, f"the arrays appended to '{name}' must have one shape, evident where it is created",
                          hint="allocate them alike (np.zeros_like)")
    if source is None and unknown:
        raise lw.fail(unknown[0], f"the shape of the arrays appended to '{name}' must be evident where the list is "
                      "created", hint="append a copy of an array that exists there: "
                      f"{name}.append(np.array(u)) or an elementwise expression of it (u * dt)")
    if source is None:
        raise lw.fail(node, f"'{name}' is a list of arrays, and none is appended to it after this",
                      hint=f"append copies of an array to it in the statements after: {name}.append(np.array(u))")
    if unknown:  # (hs.append(np.tanh(W @ hs[-1])) beside hs.append(np.array(h0)): of the shape h0 gives)
        lw.checked_lists.add(name)
    lw.at(b, plan.appends[0][0])
    return [b.op1("dim", [source], I64, axis=k) for k in range(t.rank - 1)]


def shape_source(lw: "ExprLowerer", node: cst.BaseExpression) -> Optional[cst.Name]:
    """The array whose shape ``node`` has, where that is evident from the syntax: an array
    variable, ``np.array``/``np.copy``/``.copy()`` of one, and elementwise operations of one with
    numbers."""
    types = lw.ctx.types.vars
    if isinstance(node, cst.Name):
        return node if isinstance(types.get(node.value), ArrayType) and node.value in lw.ctx.locals else None
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        return shape_source(lw, node.expression)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "copy" \
            and not node.args and shape_source(lw, node.func.value) is not None:
        return shape_source(lw, node.func.value)  # u.copy()
    if isinstance(node, cst.Call):
        canonical = lw.info.canonical_name(node.func, lw.ctx.locals)
        intr = lib.lookup(canonical)
        args = positional_args(node)
        elementwise = intr is not None and (intr.op in ("array", "asarray") or intr.op in array_ops.UNARY_MATH)
        if elementwise and len(args) == 1 and len(node.args) == 1 and canonical and canonical.startswith("numpy."):
            return shape_source(lw, args[0])
        return None
    if isinstance(node, cst.BinaryOperation) and not isinstance(node.operator, cst.MatrixMultiply):
        left, right = shape_source(lw, node.left), shape_source(lw, node.right)
        if left is not None and right is not None:
            return left if left.value == right.value else None
        if left is not None and _number(lw, node.right):
            return left
        if right is not None and _number(lw, node.left):
            return right
    return None


def _number(lw: "ExprLowerer", node: cst.BaseExpression) -> bool:
    """An expression of numbers only: literals, number variables and constants, array elements."""
    types = lw.ctx.types.vars
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.Name):
        return not isinstance(types.get(node.value), ArrayType)
    if isinstance(node, cst.Attribute):
        return lw.info.canonical_name(node, lw.ctx.locals) in lib.CONSTANTS
    if isinstance(node, cst.Subscript):
        base, indices = subscript_chain(node)
        t = types.get(base.value) if isinstance(base, cst.Name) else None
        return isinstance(t, ArrayType) and len(indices) == t.rank and not any(isinstance(i, cst.Slice)
                                                                               for i in indices)
    if isinstance(node, cst.BinaryOperation) and not isinstance(node.operator, cst.MatrixMultiply):
        return _number(lw, node.left) and _number(lw, node.right)
    if isinstance(node, cst.UnaryOperation):
        return _number(lw, node.expression)
    return False


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
    name = func.value.value
    buf, n = state(lw, func.value, b, env)
    item = call.args[0].value
    if t.rank > 1 and isinstance(item, cst.Name) and not _unshared(lw, item, b, env):
        raise lw.fail(item, f"appending the array '{item.value}' puts that very array in the list, which its "
                      "later changes would change", hint=f"append a copy: {name}.append(np.array({item.value}))")
    copied = _copy_of(lw, item) if t.rank > 1 else None
    v = lw.value(copied or item, b, env)  # np.array(u): u is copied in, no copy of a copy
    if t.rank == 1:
        if isinstance(v.type, ArrayType):
            raise lw.fail(item, f"this is an array, but '{name}' holds numbers",
                          hint="a list holds numbers or arrays of one shape, not both")
        v = lw.coerce(v, t.elem, b, item, f"an item of '{name}'")
        lw.at(b, call).create("store", [buf, n, v], [])
    else:
        if not isinstance(v.type, ArrayType) or v.type.rank != t.rank - 1:
            raise lw.fail(item, f"the items of '{name}' are {t.rank - 1}-D arrays, and this is not one")
        lw.at(b, call)
        if name in lw.checked_lists:  # its items' shape taken from an array rebound since
            for k in range(t.rank - 1):
                lw.check_extent(v, k, b.op1("dim", [buf], I64, axis=k + 1), item,
                                f"the gradient holds the items of the list '{name}' in one array, of the shape "
                                "its first items have, and this one has another", b)
        _copy_in(lw, buf, n, v, item, f"an item of '{name}'", b)  # the array is copied in
    env[length_key(name)] = build.add(lw.at(b, call), n, build.const(b, 1, I64))


def _unshared(lw: "ExprLowerer", item: cst.Name, b: Builder, env: Env) -> bool:
    """``v.append(u)`` may copy ``u`` in: its array is new (made by the function, not a parameter's
    or a view) and the function only reads it (``py_read_only``), so no later write can reach the
    list's item through it."""
    v = lw.value(item, b, env)
    op = v.defining_op
    fresh = op is not None and (op.name in ("call", "alloc") or py_arrays.is_written_value(v))
    fn = lw.info.functions.get(lw.ctx.name)
    def pure(call: cst.Call) -> bool:  # a math or NumPy function s2sad knows, len: no effect but its value
        canonical = lw.info.canonical_name(call.func, lw.ctx.locals)
        return canonical is not None and (lib.lookup(canonical) is not None or canonical == "builtins.len")

    return fresh and fn is not None and read_only(lw.info, fn, item.value, pure)


def _copy_of(lw: "ExprLowerer", node: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """``x`` of ``np.array(x)`` or ``np.copy(x)``."""
    if isinstance(node, cst.Call) and len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star:
        intr = lib.lookup(lw.info.canonical_name(node.func, lw.ctx.locals))
        if intr is not None and intr.op == "array":
            return node.args[0].value
    return None


def element(lw: "ExprLowerer", node: cst.Subscript, b: Builder, env: Env) -> tuple[Value, list[Value]]:
    """The buffer and index of ``v[k]`` (a load or a store)."""
    base, indices = subscript_chain(node)
    assert isinstance(base, cst.Name)
    buf, n = state(lw, base, b, env)
    rank = buf.type.rank  # type: ignore[attr-defined]
    if any(isinstance(i, cst.Slice) for i in indices) or len(indices) != rank:
        what = "slices of a list are" if any(isinstance(i, cst.Slice) for i in indices) else "this index is"
        raise lw.fail(node, f"{what} not supported on the list '{base.value}'",
                      hint=f"index one item (v[k]{'[j]' * (rank - 1)}), or convert it: np.array({base.value})[...]")
    k = index(lw, indices[0], n, b, env)  # type: ignore[arg-type]
    return buf, [k] + [lw.index(i, b, env, buf, axis) for axis, i in enumerate(indices[1:], 1)]  # type: ignore


def item(lw: "ExprLowerer", node: cst.Subscript, b: Builder, env: Env) -> Value:
    """``v[k]`` of a list: an item (of a list of arrays, the array, whole)."""
    base, indices = subscript_chain(node)
    assert isinstance(base, cst.Name)
    buf, n = state(lw, base, b, env)
    if len(indices) == 1 and buf.type.rank > 1 and isinstance(indices[0], cst.BaseExpression):  # type: ignore
        return _rows(lw, node, buf, [index(lw, indices[0], n, b, env)], b)
    buf, ivs = element(lw, node, b, env)
    return lw.at(b, node).op1("load", [buf, *ivs], buf.type.elem)  # type: ignore[attr-defined]


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
    if buf.type.rank > 1:  # type: ignore[attr-defined]
        return n, lambda bb, k: _rows(lw, node, buf, [k], bb)
    return n, lambda bb, k: lw.at(bb, node).op1("load", [buf, k], buf.type.elem)  # type: ignore[attr-defined]
