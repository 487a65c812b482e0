"""Static facts about Python statements that structured lowering needs up front.

The IR has no jumps, so ``break``, ``continue`` and ``return`` are lowered
into flags and guards (see ``py_lower``). To shape that lowering before any IR
is built, we need, per statement list:

* ``exits``: which kinds of exit a statement may take (``break``/``continue``
  of the innermost loop, ``return`` from any depth) and whether it always exits
  (so the statements after it are unreachable);
* ``assigned_names``: the variables a loop body or branch may assign (the
  candidates for loop-carried values, decided before the body is lowered,
  because the loop's block arguments must exist first);
* ``read_names``: every variable the function reads somewhere (a variable the
  function never reads needs no carrying);
* ``is_simple``: whether an expression may be evaluated eagerly even when
  Python would skip it (no loads, calls or operations that can raise), which
  decides between an eager ``select``/``and``/``or`` and an ``if`` op.

All functions look at syntax only; nested ``def``/``lambda``/``class`` bodies are
not looked into (they are rejected by lowering anyway).
"""

from __future__ import annotations

import functools
from typing import Callable, Iterable, Iterator, Optional, Sequence

import libcst as cst

from .structured import BREAK, CONTINUE, RETURN, Exits

__all__ = ["BREAK", "CONTINUE", "RETURN", "Exits"]


def suite_statements(suite: cst.BaseSuite) -> list[cst.CSTNode]:
    """The statements of a suite, with ``a = 1; b = 2`` lines split into small statements."""
    out: list[cst.CSTNode] = []
    if isinstance(suite, cst.SimpleStatementSuite):
        return list(suite.body)
    for stmt in suite.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            out.extend(stmt.body)
        else:
            out.append(stmt)
    return out


def else_statements(orelse: object) -> list[cst.CSTNode]:
    """The statements of an ``if``'s ``else``/``elif`` part (an ``elif`` is one nested ``if``)."""
    if orelse is None:
        return []
    if isinstance(orelse, cst.If):
        return [orelse]
    assert isinstance(orelse, cst.Else)
    return suite_statements(orelse.body)


def is_true_constant(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def stmt_exits(stmt: cst.CSTNode) -> Exits:
    if isinstance(stmt, cst.Return):
        return Exits(frozenset({RETURN}), True)
    if isinstance(stmt, cst.Break):
        return Exits(frozenset({BREAK}), True)
    if isinstance(stmt, cst.Continue):
        return Exits(frozenset({CONTINUE}), True)
    if isinstance(stmt, cst.If):
        t = block_exits(suite_statements(stmt.body))
        e = block_exits(else_statements(stmt.orelse))
        return Exits(t.may | e.may, t.always and e.always)
    if isinstance(stmt, (cst.For, cst.While)):
        inner = block_exits(suite_statements(stmt.body))
        # The loop's own break/continue end there; a return leaves it too.
        may = inner.may & {RETURN}
        # `while True:` without a break only ends by returning.
        endless = isinstance(stmt, cst.While) and is_true_constant(stmt.test) and BREAK not in inner.may
        return Exits(frozenset(may), endless)
    return Exits()


def block_exits(stmts: Sequence[cst.CSTNode]) -> Exits:
    may: set[str] = set()
    for stmt in stmts:
        ex = stmt_exits(stmt)
        may |= ex.may
        if ex.always:
            return Exits(frozenset(may), True)
    return Exits(frozenset(may), False)


# -- names ---------------------------------------------------------------------


def target_names(target: cst.BaseExpression) -> list[str]:
    """Variables bound by an assignment target (subscript stores bind none)."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for el in target.elements for n in target_names(el.value)]
    if isinstance(target, cst.StarredElement):
        return target_names(target.value)
    return []


def stmt_assigned(stmt: cst.CSTNode) -> list[str]:
    """Variables a (small or compound) statement binds, in source order, nested bodies included."""
    out: list[str] = []
    for node in walk(stmt):
        kind = type(node)  # exact types: see _NESTED_SCOPES
        if kind is cst.Assign:
            for t in node.targets:
                out += target_names(t.target)
        elif kind is cst.AugAssign or (kind is cst.AnnAssign and node.value is not None):
            out += target_names(node.target)
        elif kind is cst.For:
            out += target_names(node.target)
    return out


def binds_here(node: cst.CSTNode) -> list[str]:
    """The names one assigning node binds itself (not the statements nested in a loop's body)."""
    if isinstance(node, cst.Assign):
        return [n for t in node.targets for n in target_names(t.target)]
    if isinstance(node, (cst.AugAssign, cst.AnnAssign)):
        return target_names(node.target)
    if isinstance(node, cst.For):
        return target_names(node.target)
    return []


def assigned_names(stmts: Iterable[cst.CSTNode]) -> list[str]:
    seen: dict[str, None] = {}
    for s in stmts:
        for n in stmt_assigned(s):
            seen.setdefault(n, None)
    return list(seen)


def read_names(node: cst.CSTNode) -> set[str]:
    """Names read anywhere under ``node`` (assignment targets that are only written excluded)."""
    written: set[int] = set()
    for n in walk(node):
        targets: list[cst.BaseExpression] = []
        if isinstance(n, cst.Assign):
            targets = [t.target for t in n.targets]
        elif isinstance(n, cst.AnnAssign):
            targets = [n.target]
        elif isinstance(n, cst.For):
            targets = [n.target]
        for t in targets:
            written |= {id(x) for x in _pure_target_names(t)}
    return {n.value for n in walk(node) if isinstance(n, cst.Name) and id(n) not in written}


def written_names(node: cst.CSTNode, also: Iterable[str] = ()) -> set[str]:
    """Names of the arrays written in place anywhere under ``node``: ``a[...] = v``, ``a[...] += v``
    (``a[i][j] = v`` too), whatever the index, and ``a += v`` (of an array ``a``: the names of
    numbers it gives are never asked about); and the arrays those names may be views of, which the
    writes reach (``row`` in ``row = Z[i]``, ``for row in Z``, ``for i, row in enumerate(Z)``,
    ``for row, w in zip(Z, ws)``: ``Z``), those of ``also`` (names written otherwise) included."""
    out = _written_directly(node) | set(also)
    views = _view_bindings(node)
    grown = True
    while grown:
        more = {base for name, base in views if name in out} - out
        out |= more
        grown = bool(more)
    return out


def _view_bindings(node: cst.CSTNode) -> list[tuple[str, str]]:
    """(name, array) for each binding of a name to a part or an item of an array's name, or to
    the name itself."""
    out: list[tuple[str, str]] = []
    for n in walk(node):
        if isinstance(n, cst.Assign) and isinstance(n.value, (cst.Subscript, cst.Name)):
            base = subscript_chain(n.value)[0] if isinstance(n.value, cst.Subscript) else n.value
            if isinstance(base, cst.Name):  # (t = row: another name of the same memory)
                out += [(t.target.value, base.value) for t in n.targets if isinstance(t.target, cst.Name)]
        elif isinstance(n, cst.For):
            out += _items_bound(n.target, n.iter)
    return out


def _items_bound(target: cst.BaseExpression, it: cst.BaseExpression) -> list[tuple[str, str]]:
    """(name, array) for each name a ``for`` target takes items of an array's name into."""
    if isinstance(target, cst.Name) and isinstance(it, cst.Name):
        return [(target.value, it.value)]
    if not (isinstance(target, (cst.Tuple, cst.List)) and isinstance(it, cst.Call) and isinstance(it.func, cst.Name)):
        return []
    names = [e.value for e in target.elements]
    args = [a.value for a in it.args if a.keyword is None]
    if it.func.value == "enumerate" and len(names) == 2 and args:
        return _items_bound(names[1], args[0])
    if it.func.value == "zip" and len(names) == len(args):
        return [pair for t, a in zip(names, args) for pair in _items_bound(t, a)]
    return []


def _written_directly(node: cst.CSTNode) -> set[str]:
    out: set[str] = set()
    for n in walk(node):
        targets: list[cst.BaseExpression] = []
        if isinstance(n, cst.Assign):
            targets = [t.target for t in n.targets]
        elif isinstance(n, (cst.AugAssign, cst.AnnAssign)):
            targets = [n.target]
        while targets:
            t = targets.pop()
            if isinstance(t, (cst.Tuple, cst.List)):
                targets += [e.value for e in t.elements]
            elif isinstance(t, cst.Name) and isinstance(n, cst.AugAssign):
                out.add(t.value)
            elif isinstance(t, cst.Subscript):
                base = t.value
                while isinstance(base, cst.Subscript):
                    base = base.value
                if isinstance(base, cst.Name):
                    out.add(base.value)
    return out


def _pure_target_names(target: cst.BaseExpression) -> list[cst.Name]:
    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for el in target.elements for n in _pure_target_names(el.value)]
    return []


# -- expressions -----------------------------------------------------------------

_RAISING_OPS = (cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power)


def is_simple(node: cst.BaseExpression) -> bool:
    """True when evaluating ``node`` can neither fail nor cost much: no loads, calls, ``/``."""
    for n in walk(node):
        if isinstance(n, cst.Call):
            return False
        if isinstance(n, cst.Subscript) and not _is_shape_subscript(n):
            return False
        if isinstance(n, cst.BinaryOperation) and isinstance(n.operator, _RAISING_OPS):
            return False
        if isinstance(n, (cst.Lambda, cst.ListComp, cst.GeneratorExp, cst.Yield, cst.NamedExpr)):
            return False
    return True


def _is_shape_subscript(n: cst.Subscript) -> bool:
    return isinstance(n.value, cst.Attribute) and n.value.attr.value == "shape"


@functools.lru_cache(maxsize=None)
def children(node: cst.CSTNode) -> tuple[cst.CSTNode, ...]:
    """``node.children``, computed once per node: libcst works it out by visiting the node on
    every access, and the front end's walks ask the same statements again and again (each
    loop asks what its body assigns, each enclosing loop again). Nodes are immutable and hash
    by identity; the cache holds the nodes it keys, so an identity is never reused within it.
    Unbounded while one file is read (a bound smaller than the file's nodes made every walk of
    a long function miss it), and emptied after (``forgetting_nodes``)."""
    return tuple(node.children)


def forgetting_nodes(fn):
    """``fn``, a front-end entry point, empties the cache of ``children`` when it returns: the
    nodes of one file are not kept alive by the next."""

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        finally:
            children.cache_clear()

    return wrapped


# Compared by exact type: libcst's node classes are never subclassed, and isinstance against them
# goes through ABCMeta, which the front end's walks over every node of a file paid for by the
# million.
_NESTED_SCOPES = frozenset({cst.FunctionDef, cst.ClassDef, cst.Lambda})


def walk(node: cst.CSTNode) -> Iterable[cst.CSTNode]:
    """Pre-order walk that does not enter nested function, lambda or class bodies."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if n is not node and type(n) in _NESTED_SCOPES:
            continue
        stack.extend(reversed(children(n)))


def every_node(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and every node under it, nested functions and lambdas included, in pre-order. A
    stack, not nested generators: those pass each node up through every level above it, which
    for a sum of a thousand terms on one line (a chain a thousand deep) was quadratic."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(children(n)))




def store_targets(n: cst.CSTNode) -> list[cst.BaseExpression]:
    """The targets a statement stores into or unbinds, subscripts included (``t[0] = v``, ``del d[k]``)."""
    if isinstance(n, cst.Assign):
        return [t.target for t in n.targets]
    if isinstance(n, (cst.AugAssign, cst.AnnAssign, cst.For, cst.Del)):
        return [n.target]
    return []


def fresh_name(wanted: str, taken: set[str]) -> str:
    """``wanted``, with ``_`` added until no name of ``taken`` is it; then taken too."""
    while wanted in taken:
        wanted += "_"
    taken.add(wanted)
    return wanted


def is_whole_slice(index: object) -> bool:
    """``:``, a whole axis."""
    return isinstance(index, cst.Slice) and index.lower is None and index.upper is None and index.step is None


def all_names(node: cst.CSTNode) -> list[cst.Name]:
    """Every name in ``node``, nested functions and lambdas included (what they read is a use)."""
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Name):
            out.append(n)
        stack.extend(children(n))
    return out


def is_new_axis(index: object) -> bool:
    """An index ``None`` (``np.newaxis``, which ``py_spellings`` rewrites so): an axis of extent 1."""
    return isinstance(index, cst.Name) and index.value == "None"


def subscript_chain(node: cst.Subscript, keeps_axis: Optional[Callable[[cst.CSTNode], bool]] = None
                    ) -> tuple[cst.BaseExpression, list[cst.CSTNode]]:
    """``a[i][j]`` and ``a[i, j]`` alike: the base ``a`` and the indices ``i, j``.

    Each index is its expression node, or a ``cst.Slice`` for a slice. A
    parenthesized tuple index ``a[(i, j)]`` is the same as ``a[i, j]``. A subscript
    that keeps axes (a slice, ``None``, ``...`` among its indices, or an index for which
    ``keeps_axis`` holds: an array of indices or a mask, ``X[idx][1]``, the row ``idx[1]``
    names, where ``X[idx, 1]`` is a column's entries) subscripted again is not the same as
    one subscript (``y[lo:hi][::-1]``, ``A[1:][0]``: the row of the part): it is the base,
    an array value (``py_arrays``).
    """
    indices: list[cst.CSTNode] = []
    base: cst.BaseExpression = node
    while isinstance(base, cst.Subscript) and not _is_shape_subscript(base):
        here: list[cst.CSTNode] = []
        for el in base.slice:
            if isinstance(el.slice, cst.Index):
                v = el.slice.value
                here += [e.value for e in v.elements] if isinstance(v, cst.Tuple) else [v]
            else:
                here.append(el.slice)
        if indices and any(isinstance(i, (cst.Slice, cst.Ellipsis)) or is_new_axis(i)
                           or (keeps_axis is not None and keeps_axis(i)) for i in here):
            break
        indices = here + indices
        base = base.value
    return base, indices


def is_shape_subscript(n: cst.CSTNode) -> bool:
    """``x.shape[k]``."""
    return isinstance(n, cst.Subscript) and _is_shape_subscript(n)
