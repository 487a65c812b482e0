"""Arrays made and then filled, element by element, from another of their shape, printed as the
copy they are.

The front end makes ``y = x.copy()`` (``np.copy(x)``, ``np.array(x)``) an allocation and a loop
nest storing each element, so that the copy is an array like any other the code writes; that
prints as

    y = np.empty((x.shape[0], t0))
    for k in range(x.shape[0]):
        for k2 in range(t0):
            y[k, k2] = x[k, k2]

which is ``y = x.copy()``, and is printed so. The run qualifies when ``np.empty`` is given the
extents of ``x`` (``x.shape[i]``, or a name assigned once to it), the nest has one loop per axis,
each over that axis's extent from 0, and its one statement stores ``x``'s element at the loop
counters into ``y``'s: then ``y`` has ``x``'s shape and every element, as ``x.copy()`` makes it.
A loop over fewer elements, a conversion (``x.astype(float)``: a cast in the store) or any other
statement in the nest leaves the run as it is.
"""

from __future__ import annotations

from typing import Optional

from ..emit.expr import Attribute, Call, Expr, Lit, Name, Subscript, Tuple
from ..emit.stmt import Assign, AugAssign, For, Stmt, child_blocks, map_blocks


def array_copies(stmts: list[Stmt]) -> list[Stmt]:
    """``stmts`` (and the blocks they hold) with each array made and filled from another's
    elements written as that array's copy."""
    return _rewrite(stmts, _extent_names(stmts))


def _rewrite(stmts: list[Stmt], extents: dict[str, tuple[str, int]]) -> list[Stmt]:
    out: list[Stmt] = []
    k = 0
    while k < len(stmts):
        copy = _copy(stmts[k], stmts[k + 1], extents) if k + 1 < len(stmts) else None
        if copy is not None:
            out.append(copy)
            k += 2
            continue
        out.append(map_blocks(stmts[k], lambda block: _rewrite(block, extents)))
        k += 1
    return out


def _copy(made: Stmt, nest: Stmt, extents: dict[str, tuple[str, int]]) -> Optional[Assign]:
    """``y = x.copy()`` where ``made`` makes ``y`` by ``np.empty`` and ``nest`` fills it from
    ``x`` (the module docstring's conditions); None otherwise."""
    if not (isinstance(made, Assign) and len(made.targets) == 1 and isinstance(made.targets[0], Name)):
        return None
    value = made.value
    if not (isinstance(value, Call) and value.func == Attribute(Name("np"), "empty") and len(value.args) == 1
            and not value.kwargs):
        return None
    dims = value.args[0].elts if isinstance(value.args[0], Tuple) else (value.args[0],)
    counters: list[Expr] = []
    st: Stmt = nest
    for d in dims:
        if not (isinstance(st, For) and st.args == [d] and not st.parallel and len(st.body) == 1):
            return None
        counters.append(Name(st.target))
        st = st.body[0]
    y = made.targets[0].id
    index = tuple(counters)
    if not (isinstance(st, Assign) and len(st.targets) == 1 and st.targets[0] == Subscript(Name(y), index)):
        return None
    source = st.value
    if not (isinstance(source, Subscript) and isinstance(source.value, Name) and source.index == index
            and source.value.id != y):
        return None
    x = source.value.id
    if not all(_extent(d, x, axis, extents) for axis, d in enumerate(dims)):
        return None
    return Assign([Name(y)], Call(Attribute(Name(x), "copy")))


def _extent(e: Expr, array: str, axis: int, extents: dict[str, tuple[str, int]]) -> bool:
    """Whether ``e`` is ``array.shape[axis]``, written out or by a name assigned once to it."""
    return (extents.get(e.id) if isinstance(e, Name) else _shape_entry(e)) == (array, axis)


def _shape_entry(e: Expr) -> Optional[tuple[str, int]]:
    """(x, k) where ``e`` is ``x.shape[k]``; None otherwise."""
    if isinstance(e, Subscript) and isinstance(e.value, Attribute) and e.value.attr == "shape" \
            and isinstance(e.value.value, Name) and len(e.index) == 1 and isinstance(e.index[0], Lit) \
            and e.index[0].text.isdigit():
        return e.value.value.id, int(e.index[0].text)
    return None


def _extent_names(stmts: list[Stmt]) -> dict[str, tuple[str, int]]:
    """The names assigned once in ``stmts`` (at any depth), and nowhere else, to an array's
    extent (``t0 = x.shape[1]``): name -> (array, axis)."""
    assigned: dict[str, int] = {}
    found: dict[str, tuple[str, int]] = {}
    pending = list(stmts)
    while pending:
        st = pending.pop()
        if isinstance(st, Assign):
            for t in st.targets:
                for name in (e.id for e in (t.elts if isinstance(t, Tuple) else (t,)) if isinstance(e, Name)):
                    assigned[name] = assigned.get(name, 0) + 1
            entry = _shape_entry(st.value)
            if len(st.targets) == 1 and isinstance(st.targets[0], Name) and entry is not None:
                found[st.targets[0].id] = entry
        elif isinstance(st, AugAssign) and isinstance(st.target, Name):
            assigned[st.target.id] = assigned.get(st.target.id, 0) + 2
        elif isinstance(st, For):
            assigned[st.target] = assigned.get(st.target, 0) + 2
        pending += [s for block in child_blocks(st) for s in block]
    return {name: where for name, where in found.items() if assigned.get(name) == 1}

