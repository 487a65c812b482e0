"""A named list of values passed to a helper: the helper takes the items, rewritten before typing.

Small models keep their layers in a list and hand it to the function that runs them
(``params = [(W1, b1), (W2, b2)]``, ``forward(params, X)``, which loops ``for W, b in
params[:-1]`` and takes ``W, b = params[-1]``). The IR has no lists of arrays of different shapes;
but where the list is one ``py_unroll`` reads (a local assigned once a literal list of names the
function never assigns, or constants, or tuples of such), passing it is passing its items. So,
where every call of a helper of the file passes, at one position, such a list of the same shape
(as many items, tuples of as many), and the helper only reads that parameter as ``py_unroll``
unrolls (loops over it, or over a part with constant bounds, ``zip`` and ``enumerate`` of it,
``len``, items at constant indices): the parameter becomes one per item (``params_0_0,
params_0_1, ...``), the helper's body starts by making the list of them (``params = [(params_0_0,
params_0_1), ...]``), which ``py_unroll`` then unrolls, and each call passes the list's items in
its place. The caller's list, no longer read, goes with the unrolling. So is a list or tuple written
in the call (``forward((W1, b1, W2, b2), X)``), and so is a helper that unpacks the parameter
(``W1, b1, W2, b2 = params``). Any other list stays as
written, and is refused where it is read. Not the function differentiated, whose callers are
outside the file. New names are made free of every name of the file; the new nodes stand where
the nodes they replace stood.
"""

from __future__ import annotations

from collections import ChainMap
from typing import Optional

import libcst as cst

from .py_flow import all_names, assigned_names, fresh_name, walk
from .py_module import ModuleInfo
from .py_spellings import PlacedRewriter
from .py_unroll import _simple, literal_lists


def pass_list_items(info: ModuleInfo, positions, entry: str) -> dict[cst.CSTNode, object]:
    """Give the helpers their named lists' items (see the module); the new nodes' positions."""
    new_positions: dict[cst.CSTNode, object] = {}
    lists = {name: literal_lists(fn) for name, fn in info.functions.items()}
    if not any(lists.values()) and not any(isinstance(n, cst.Call) and any(_passed_literal(a.value) for a in n.args)
                                           for fn in info.functions.values() for n in walk(fn.body)):
        return new_positions
    taken = {n.value for fn in info.functions.values() for n in walk(fn) if isinstance(n, cst.Name)}
    positions = ChainMap(new_positions, positions)  # a function rewritten twice: where the first put it
    for helper in list(info.functions):
        if helper == entry:
            continue
        k = 0
        while k < len(info.functions[helper].params.params):
            fn = info.functions[helper]
            param = fn.params.params[k]
            shape = _passed_shape(info, lists, helper, k)
            if shape is None or param.default is not None or not _read_as_list(fn, param.name.value):
                k += 1
                continue
            items = _leaf_names(param.name.value, shape, taken)
            _rewrite_calls(info, lists, helper, k, positions, new_positions)
            info.functions[helper] = _takes_items(fn, k, shape, items, positions, new_positions)
            lists[helper] = literal_lists(info.functions[helper])
            k += sum(len(names) for names in items)
    return new_positions


def _shape(literal: cst.BaseExpression) -> tuple:
    """A literal list's shape: per item, its tuple's length, or None for a single value."""
    return tuple(len(e.value.elements) if isinstance(e.value, cst.Tuple) else None
                 for e in literal.elements)  # type: ignore[attr-defined]


def _calls_of(info: ModuleInfo, helper: str):
    for caller, fn in info.functions.items():
        for n in walk(fn.body):
            if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == helper:
                yield caller, n


def _passed_shape(info: ModuleInfo, lists: dict, helper: str, k: int) -> Optional[tuple]:
    """The shape of the named list every call of ``helper`` passes as its argument ``k``, where they
    all pass one of the same shape (positionally, nothing spread before it); else None."""
    shapes = set()
    for caller, call in _calls_of(info, helper):
        args = call.args
        if len(args) <= k or any(a.star or a.keyword for a in args[:k + 1]):
            return None
        arg = args[k].value
        if _passed_literal(arg):  # forward((W1, b1, W2, b2), X)
            shapes.add(_shape(arg))
            continue
        if not (isinstance(arg, cst.Name) and arg.value in lists[caller]):
            return None
        shapes.add(_shape(lists[caller][arg.value]))
    return shapes.pop() if len(shapes) == 1 else None


def _passed_literal(arg: cst.BaseExpression) -> bool:
    """A list or tuple written in the call whose items ``py_unroll`` would take from a named one
    (names or constants, or tuples of them)."""
    if not isinstance(arg, (cst.List, cst.Tuple)) or not arg.elements:
        return False
    flat = [v.value for e in arg.elements if isinstance(e, cst.Element)
            for v in (e.value.elements if isinstance(e.value, cst.Tuple) else [e])]
    return len(flat) >= len(arg.elements) and all(
        isinstance(e, cst.Element) for e in arg.elements) and all(_simple(v) for v in flat)


def _read_as_list(fn: cst.FunctionDef, name: str) -> bool:
    """``fn`` reads its parameter ``name`` only where ``py_unroll`` reads a named list (a loop's
    iterable, ``len``, a constant index, ``a, b = name``), and never assigns it."""
    if name in assigned_names([fn.body]):
        return False
    allowed: set[int] = set()
    for n in walk(fn.body):
        if isinstance(n, cst.Assign) and isinstance(n.value, cst.Name) and n.value.value == name \
                and len(n.targets) == 1 and isinstance(n.targets[0].target, (cst.Tuple, cst.List)):
            allowed.add(id(n.value))
        if isinstance(n, cst.For):
            allowed.update(id(w) for w in all_names(n.iter) if w.value == name)
        elif isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == "len" and len(n.args) == 1:
            allowed.update(id(w) for w in [n.args[0].value] if isinstance(w, cst.Name) and w.value == name)
        elif isinstance(n, cst.Subscript) and isinstance(n.value, cst.Name) and n.value.value == name:
            allowed.add(id(n.value))
    uses = [w for w in all_names(fn.body) if w.value == name]
    return bool(uses) and all(id(w) in allowed for w in uses)


def _leaf_names(param: str, shape: tuple, taken: set[str]) -> list[list[str]]:
    """The new parameters, per item: ``params_0`` for a single value, ``params_0_0``... for a tuple."""
    return [[fresh_name(f"{param}_{i}", taken)] if width is None else
            [fresh_name(f"{param}_{i}_{j}", taken) for j in range(width)] for i, width in enumerate(shape)]


def _leaves(literal: cst.BaseExpression) -> list[cst.BaseExpression]:
    return [v.value for e in literal.elements  # type: ignore[attr-defined]
            for v in (e.value.elements if isinstance(e.value, cst.Tuple) else [e])]


class _ItemsPassed(PlacedRewriter):
    """A caller's calls of the helper, its list's items passed where the list was."""

    def __init__(self, helper: str, k: int, literals: dict, positions, new_positions: dict):
        super().__init__(positions, new_positions)
        self.helper, self.k, self.literals = helper, k, literals

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if not (isinstance(original.func, cst.Name) and original.func.value == self.helper):
            return updated
        arg = updated.args[self.k]
        literal = arg.value if _passed_literal(arg.value) else self.literals[arg.value.value]  # type: ignore
        items = [self.place(cst.Arg(leaf.deep_clone()), arg, whole=True) for leaf in _leaves(literal)]
        self.changed = True
        args = [*updated.args[:self.k], *items, *updated.args[self.k + 1:]]
        return updated.with_changes(args=[a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in args])


def _rewrite_calls(info: ModuleInfo, lists: dict, helper: str, k: int, positions, new_positions: dict) -> None:
    for caller in {c for c, _ in _calls_of(info, helper)}:
        rewriter = _ItemsPassed(helper, k, lists[caller], positions, new_positions)
        info.functions[caller] = info.functions[caller].visit(rewriter)  # type: ignore[assignment]


def _takes_items(fn: cst.FunctionDef, k: int, shape: tuple, items: list[list[str]], positions,
                 new_positions: dict) -> cst.FunctionDef:
    """``fn`` taking the items where it took the list (``params``), which its body makes first."""
    param = fn.params.params[k]
    placer = PlacedRewriter(positions, new_positions)
    new_params = [placer.place(param.with_changes(name=placer.place(cst.Name(n), param.name),
                                                  comma=cst.MaybeSentinel.DEFAULT, annotation=None), param)
                  for names in items for n in names]
    params = [*fn.params.params[:k], *new_params, *fn.params.params[k + 1:]]
    params = [p.with_changes(comma=cst.MaybeSentinel.DEFAULT) for p in params]
    elements = [cst.Element(cst.Name(names[0]) if width is None else
                            cst.Tuple([cst.Element(cst.Name(n)) for n in names]))
                for names, width in zip(items, shape)]
    make = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(param.name.value))],
                                               cst.List(elements))])
    placer.place(make, param, whole=True)
    body = fn.body.with_changes(body=[make, *fn.body.body])
    out = fn.with_changes(params=fn.params.with_changes(params=params), body=body)
    placer.place(out, fn)
    placer.place(out.body, fn.body)
    return out
