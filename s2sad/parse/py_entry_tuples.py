"""A parameter of the function differentiated that it unpacks: a parameter per item.

Code written in JAX's style takes its parameters packed, ``def loss(params, X, y): W, b =
params``, and its callers pass a tuple or a list of arrays of different shapes, which no array of
s2sad's holds. Where the function reads the parameter only there, by one assignment at the top
level that unpacks it into names (``W, b = params``, ``[W1, b1, W2, b2] = params``), one of which
it uses as an array (``X @ W``, ``W.T``, ``W[0]``, ``W.shape``), the items are the parameters
(items it uses as numbers only are an array's entries, ``x, y = state``, as ``py_lower`` reads
them): the function takes ``W, b`` where it took ``params``, and the assignment goes. Its
gradient is called as the function is: it takes ``params`` (and, differentiated with respect to
it, ``d_params``, a tuple of the items' shadows) and unpacks them first thing (``emit_py``), so the
items' adjoints are added into the caller's arrays. ``ModuleInfo.entry_tuples`` keeps which
parameter held which items.
"""

from __future__ import annotations

import libcst as cst

from .py_flow import all_names, walk
from .py_module import ModuleInfo
from .py_spellings import PlacedRewriter


def unpack_entry_tuples(info: ModuleInfo, positions, entry: str) -> dict[cst.CSTNode, object]:
    """The parameters of ``entry`` it only unpacks, each replaced by the names it unpacks into
    (see the module); the positions of the nodes made."""
    new_positions: dict[cst.CSTNode, object] = {}
    fn = info.functions.get(entry)
    if fn is None:
        return new_positions
    at = PlacedRewriter(positions, new_positions)
    params = list(fn.params.params)
    body = list(fn.body.body)
    taken = {p.name.value for p in [*params, *fn.params.kwonly_params]}
    for k, p in reversed(list(enumerate(params))):
        if p.default is not None or p.annotation is not None or p.star:
            continue
        name = p.name.value
        mentions = [j for j, st in enumerate(body) if any(n.value == name for n in all_names(st))]
        items = _unpacked(body[mentions[0]], name) if len(mentions) == 1 else None
        if items is None or len(items) < 2 or set(items) & (taken - {name}) or len(set(items)) != len(items) \
                or sum(n.value == name for n in all_names(body[mentions[0]])) != 1 \
                or not any(_used_as_array(fn.body, item) for item in items) \
                or any(n.value in items for st in body[:mentions[0]] for n in all_names(st)):
            continue  # (items that are only numbers: an array's entries, x, y = state, py_lower; a name
            # the function uses before it unpacks: not yet the item there)
        made = [at.place(p.with_changes(name=at.place(cst.Name(item), p.name), comma=cst.MaybeSentinel.DEFAULT), p)
                for item in items]
        params[k:k + 1] = made
        taken |= set(items)
        del body[mentions[0]]
        info.entry_tuples[name] = items
    if info.entry_tuples:
        params = [q.with_changes(comma=cst.MaybeSentinel.DEFAULT) for q in params]
        out = fn.with_changes(params=fn.params.with_changes(params=params),
                              body=at.place(fn.body.with_changes(body=body), fn.body))
        info.functions[entry] = at.place(out, fn)  # type: ignore[assignment]
    info.entry_tuples = dict(reversed(list(info.entry_tuples.items())))  # (in the parameters' order)
    return new_positions


def _used_as_array(body: cst.CSTNode, name: str) -> bool:
    """``name`` is an operand of ``@``, indexed, transposed or asked its shape somewhere in ``body``:
    an array, not an entry of one."""
    def named(e: cst.CSTNode) -> bool:
        return isinstance(e, cst.Name) and e.value == name
    for n in walk(body):
        if isinstance(n, cst.BinaryOperation) and isinstance(n.operator, cst.MatrixMultiply) \
                and (named(n.left) or named(n.right)):
            return True
        if isinstance(n, (cst.Subscript, cst.Attribute)) and named(n.value) and (
                isinstance(n, cst.Subscript) or n.attr.value in ("T", "shape", "ndim", "size")):  # type: ignore
            return True
    return False


def _unpacked(st: cst.CSTNode, name: str) -> list[str] | None:
    """``a, b = name`` (or ``[a, b] = name``): the names, in order; None for any other statement."""
    if not (isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1 and isinstance(st.body[0], cst.Assign)):
        return None
    assign = st.body[0]
    if len(assign.targets) != 1 or not (isinstance(assign.value, cst.Name) and assign.value.value == name):
        return None
    target = assign.targets[0].target
    if not isinstance(target, (cst.Tuple, cst.List)) or not all(
            isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in target.elements):
        return None
    return [e.value.value for e in target.elements]  # type: ignore[attr-defined]
