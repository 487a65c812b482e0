"""A local tuple read by its positions: one variable per item, rewritten before typing.

Code keeps a few values together in a tuple and takes them apart later: ``t = (x * y, x + y)``
then ``t[0] * t[1]``; ``r = helper(x)`` of a helper that returns two values, then ``r[0]``;
``state = a, b`` then ``a, b = state``. Where the tuple is that and nothing more, it is the same
as a variable per item: ``t_0, t_1 = x * y, x + y`` and ``t_0`` for each ``t[0]``. Only where
that is certain: a local of one function, every binding of which is a plain assignment of a tuple
display (no starred item) or of a call of a function of the file whose every ``return`` gives a
tuple display, all of one length n; every other use of the name, nested scopes included, is a
read ``t[k]`` at an integer literal in ``-n .. n - 1``, the whole value of an unpacking into n
names (``a, b = t``), ``len(t)``, or ``return t``. Any other tuple stays as written, and is
refused where it is read. The new names are the tuple's and the position's, made free of every
name of the file's functions; the new nodes stand where the nodes they replace stood
(``py_spellings.PlacedRewriter``).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from .py_flow import all_names, fresh_name, store_targets, walk
from .py_module import ModuleInfo
from .py_spellings import PlacedRewriter


def rewrite_tuples(info: ModuleInfo, positions) -> dict[cst.CSTNode, object]:
    """Rewrite the local tuples read by position in every function of ``info``; the positions of
    the new nodes."""
    new_positions: dict[cst.CSTNode, object] = {}
    arities = {name: n for name, fn in info.functions.items() if (n := returned_arity(fn)) is not None}
    taken = {n.value for fn in info.functions.values() for n in walk(fn) if isinstance(n, cst.Name)}
    for name, fn in list(info.functions.items()):
        plans = _plans(fn, arities, taken)
        if not plans:
            continue
        rewriter = _Rewriter(plans, positions, new_positions)
        out = fn.visit(rewriter)
        if rewriter.changed:
            info.functions[name] = out  # type: ignore[assignment]
    return new_positions


def returned_arity(fn: cst.FunctionDef) -> Optional[int]:
    """How many values ``fn`` returns where every ``return`` of its own gives a tuple display of
    one length (``return a, b``), else None."""
    returns = [n for n in walk(fn.body) if isinstance(n, cst.Return)]
    lengths = {_display_length(r.value) for r in returns}
    if len(lengths) != 1:
        return None
    (length,) = lengths
    return length


def _display_length(node: Optional[cst.BaseExpression]) -> Optional[int]:
    """The items of a tuple display without starred items (``a, b``, ``(a,)``), else None."""
    if not isinstance(node, cst.Tuple) or any(isinstance(e, cst.StarredElement) for e in node.elements):
        return None
    return len(node.elements)


def _position(node: cst.Subscript, length: int) -> Optional[int]:
    """``t[k]`` at an integer literal within a tuple of ``length`` items: k from the front."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    value = node.slice[0].slice.value
    sign = 1
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
        sign, value = -1, value.expression
    if not isinstance(value, cst.Integer):
        return None
    k = sign * value.evaluated_value
    return k + length if -length <= k < 0 else k if 0 <= k < length else None


def _is_len_of(node: cst.CSTNode, name: str) -> bool:
    return (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "len"
            and len(node.args) == 1 and not node.args[0].keyword and not node.args[0].star
            and isinstance(node.args[0].value, cst.Name) and node.args[0].value.value == name)


def _plans(fn: cst.FunctionDef, arities: dict[str, int], taken: set[str]) -> dict[str, list[str]]:
    """The tuples of ``fn`` that are variables per item: the tuple's name -> the new names."""
    lengths: dict[str, set[Optional[int]]] = {}
    for n in walk(fn.body):
        if isinstance(n, cst.Assign) and len(n.targets) == 1 and isinstance(n.targets[0].target, cst.Name):
            length = _display_length(n.value)
            if (length is None and isinstance(n.value, cst.Call) and isinstance(n.value.func, cst.Name)
                    and not any(a.star for a in n.value.args)):
                length = arities.get(n.value.func.value)
            lengths.setdefault(n.targets[0].target.value, set()).add(length)
    params = {p.name.value for p in [*fn.params.params, *fn.params.kwonly_params, *fn.params.posonly_params]}
    # (one item: ``t = (a,)`` and ``return t`` are a 1-tuple, which one variable is not)
    candidates = {name: n for name, ls in lengths.items()
                  if len(ls) == 1 and (n := next(iter(ls))) is not None and n >= 2 and name not in params}
    if not candidates:
        return {}
    # Every occurrence of a candidate's name must be one of the uses the module lists.
    allowed: set[int] = set()
    stored = {id(t) for n in walk(fn.body) for t in store_targets(n)}  # t[0] = v: a TypeError, left to Python
    for n in walk(fn.body):
        if isinstance(n, cst.Assign) and len(n.targets) == 1:
            target = n.targets[0].target
            if isinstance(target, cst.Name) and target.value in candidates:
                allowed.add(id(target))
            if (isinstance(n.value, cst.Name) and n.value.value in candidates
                    and isinstance(target, (cst.Tuple, cst.List))
                    and not any(isinstance(e, cst.StarredElement) for e in target.elements)
                    and len(target.elements) == candidates[n.value.value]):
                allowed.add(id(n.value))
        elif isinstance(n, cst.Subscript) and isinstance(n.value, cst.Name) and n.value.value in candidates:
            if id(n) not in stored and _position(n, candidates[n.value.value]) is not None:
                allowed.add(id(n.value))
        elif isinstance(n, cst.Call) and any(_is_len_of(n, c) for c in candidates):
            allowed.add(id(n.args[0].value))
        elif isinstance(n, cst.Return) and isinstance(n.value, cst.Name) and n.value.value in candidates:
            allowed.add(id(n.value))
    for n in all_names(fn.body):
        if n.value in candidates and id(n) not in allowed:
            del candidates[n.value]
    return {name: [fresh_name(f"{name}_{k}", taken) for k in range(length)] for name, length in candidates.items()}


class _Rewriter(PlacedRewriter):
    def __init__(self, plans: dict[str, list[str]], positions, new_positions: dict):
        super().__init__(positions, new_positions)
        self.plans = plans

    def _items(self, name: str, at: cst.CSTNode) -> cst.BaseExpression:
        """The new names of tuple ``name`` as one expression (a tuple of them; one name alone)."""
        names = [self.place(cst.Name(n), at) for n in self.plans[name]]
        if len(names) == 1:
            return names[0]  # type: ignore[return-value]
        return self.place(cst.Tuple([cst.Element(n) for n in names], lpar=[], rpar=[]), at)  # type: ignore

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.Assign:
        target = original.targets[0].target if len(original.targets) == 1 else None
        if isinstance(target, cst.Name) and target.value in self.plans:
            self.changed = True
            value = updated.value
            return updated.with_changes(targets=[cst.AssignTarget(self._items(target.value, target))], value=value)
        if isinstance(original.value, cst.Name) and original.value.value in self.plans:
            self.changed = True  # a, b = t: a, b = t_0, t_1
            return updated.with_changes(value=self._items(original.value.value, original.value))
        return updated

    def leave_Return(self, original: cst.Return, updated: cst.Return) -> cst.Return:
        if isinstance(original.value, cst.Name) and original.value.value in self.plans:
            self.changed = True
            return updated.with_changes(value=self._items(original.value.value, original.value))
        return updated

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        if isinstance(original.value, cst.Name) and original.value.value in self.plans:
            names = self.plans[original.value.value]
            k = _position(original, len(names))
            if k is not None:
                self.changed = True
                return self.place(cst.Name(names[k]), original)  # type: ignore[return-value]
        return updated

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        for name, names in self.plans.items():
            if _is_len_of(original, name):
                self.changed = True
                return self.place(cst.Integer(str(len(names))), original)  # type: ignore[return-value]
        return updated
