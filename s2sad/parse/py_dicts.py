"""A local dict of named values, read by its keys: one variable per key, rewritten before typing.

Code keeps a few parameters together under names (``params = {"a": a, "b": b}``, then
``params["a"] * np.exp(-params["b"] * t)``). Where the dict is that and nothing more, it is the
same as a variable per key: ``params_a, params_b = a, b`` (the values taken where the dict is
made, in order, as Python does) and ``params_a`` for each ``params["a"]``. So is a dict filled
key by key (``d = {}``, then ``d["s"] = x * x`` and ``d["s"] += y``): each store assigns the
key's variable. Only where that is certain: a local of one function, assigned once, by a dict
literal whose keys are distinct string literals (none at all: ``{}``), and otherwise only read by
one of the keys it is made with or stored at, and stored into by a plain or augmented assignment
at a string literal (never deleted from, passed on, looped over or asked for its keys). Any other
dict stays as written, and is refused where it is read. The new
names are the dict's and the key's, made free of every name of the file's functions; the new
nodes stand where the nodes they replace stood (``py_spellings.PlacedRewriter``).
"""

from __future__ import annotations

import ast
from typing import Optional

import libcst as cst

from .py_flow import all_names, target_names, walk
from .py_module import ModuleInfo
from .py_spellings import PlacedRewriter


def rewrite_dicts(info: ModuleInfo, positions) -> dict[cst.CSTNode, object]:
    """Rewrite the local dicts of named values in every function of ``info``; the positions of
    the new nodes."""
    new_positions: dict[cst.CSTNode, object] = {}
    taken = {n.value for fn in info.functions.values() for n in walk(fn) if isinstance(n, cst.Name)}
    for name, fn in list(info.functions.items()):
        if not any(isinstance(n, cst.Dict) for n in walk(fn)):
            continue
        plans = _plans(fn, taken)
        if not plans:
            continue
        rewriter = _Rewriter(plans, positions, new_positions)
        out = fn.visit(rewriter)
        if rewriter.changed:
            info.functions[name] = out  # type: ignore[assignment]
    return new_positions


def _key(node: cst.BaseExpression) -> Optional[str]:
    """The string a literal key spells (``"a"``), or None."""
    if isinstance(node, cst.SimpleString):
        value = ast.literal_eval(node.value)
        return value if isinstance(value, str) else None
    return None


def _read_key(node: cst.CSTNode) -> Optional[tuple[str, str]]:
    """``d["a"]``: the dict's name and the key; None for any other node."""
    if not (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and len(node.slice) == 1):
        return None
    index = node.slice[0].slice
    key = _key(index.value) if isinstance(index, cst.Index) else None
    return (node.value.value, key) if key is not None else None


def _plans(fn: cst.FunctionDef, taken: set[str]) -> dict[str, dict[str, str]]:
    """The dicts of ``fn`` that are variables per key: the dict's name -> key -> the new name."""
    made: dict[str, cst.Dict] = {}
    assigned: dict[str, int] = {}
    for n in walk(fn.body):
        if isinstance(n, cst.Assign):
            for t in n.targets:  # (a store into d["s"] binds no name: target_names)
                for name in target_names(t.target):
                    assigned[name] = assigned.get(name, 0) + 1
            if len(n.targets) == 1 and isinstance(n.targets[0].target, cst.Name) and isinstance(n.value, cst.Dict):
                made[n.targets[0].target.value] = n.value
        else:
            for bound in _bound_elsewhere(n):  # (bound again, or maybe: not a dict of named values)
                names = (target_names(bound) if isinstance(n, (cst.AugAssign, cst.AnnAssign, cst.For))
                         else [w.value for w in walk(bound) if isinstance(w, cst.Name)])
                for name in names:
                    assigned[name] = assigned.get(name, 0) + 2
    params = {p.name.value for p in [*fn.params.params, *fn.params.kwonly_params]}
    plans: dict[str, dict[str, str]] = {}
    for name, d in made.items():
        keys = [_key(e.key) if isinstance(e, cst.DictElement) else None for e in d.elements]
        if assigned.get(name) != 1 or name in params or None in keys or len(set(keys)) != len(keys):
            continue
        plans[name] = {k: k for k in keys}  # type: ignore[misc]
    if not plans:
        return {}
    # Stores at a literal key (``d["s"] = v``, ``d["s"] += v``) add the key; any other store
    # into the dict (``del d["s"]``, ``a = d["s"] = v``, ``d[k] = v``) leaves it as written.
    key_stores = [n for n in walk(fn.body) if isinstance(n, (cst.Assign, cst.AugAssign))]
    stored_at = {id(t): _read_key(t) for n in key_stores
                 for t in ([n.targets[0].target] if isinstance(n, cst.Assign) and len(n.targets) == 1
                           else [n.target] if isinstance(n, cst.AugAssign) else [])}
    for read in stored_at.values():
        if read is not None and read[0] in plans:
            plans[read[0]].setdefault(read[1], read[1])
    # Every other use of the name reads or stores one of its keys.
    reads = [r for n in walk(fn.body) if (r := _read_key(n)) is not None and r[0] in plans]
    uses: dict[str, int] = {}
    for n in all_names(fn.body):
        if n.value in plans:
            uses[n.value] = uses.get(n.value, 0) + 1
    stored = {id(t.target) for n in walk(fn.body) if isinstance(n, cst.Assign) for t in n.targets}
    stored |= {id(n.target) for n in walk(fn.body) if isinstance(n, (cst.AugAssign, cst.AnnAssign, cst.Del, cst.For))}
    stored_into = {n.value.value for n in walk(fn.body)  # type: ignore[attr-defined]
                   if isinstance(n, cst.Subscript) and id(n) in stored and isinstance(n.value, cst.Name)
                   and stored_at.get(id(n)) is None}
    for name in list(plans):
        read = [key for dict_name, key in reads if dict_name == name]
        if name in stored_into or uses.get(name, 0) != 1 + len(read) or any(k not in plans[name] for k in read):
            del plans[name]
            continue
        for key in plans[name]:
            base = f"{name}_{key}" if key.isidentifier() else f"{name}_{len(taken)}"
            fresh = base
            while fresh in taken:
                fresh += "_"
            taken.add(fresh)
            plans[name][key] = fresh
    return plans


def _bound_elsewhere(n: cst.CSTNode) -> list[cst.CSTNode]:
    """The targets ``n`` binds other than a plain assignment's (``for k in``, ``x += 1``, ``del``)."""
    if isinstance(n, (cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr, cst.CompFor)):
        return [n.target]
    if isinstance(n, cst.Del):
        return [n.target]
    if isinstance(n, cst.WithItem) and n.asname is not None:
        return [n.asname.name]
    if isinstance(n, (cst.Global, cst.Nonlocal)):
        return [item.name for item in n.names]
    return []


class _Rewriter(PlacedRewriter):
    def __init__(self, plans: dict[str, dict[str, str]], positions, new_positions: dict):
        super().__init__(positions, new_positions)
        self.plans = plans

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.Assign:
        target = original.targets[0].target if len(original.targets) == 1 else None
        if not (isinstance(target, cst.Name) and target.value in self.plans and isinstance(original.value, cst.Dict)):
            return updated
        names = self.plans[target.value]
        elements = [e for e in updated.value.elements if isinstance(e, cst.DictElement)]  # type: ignore[union-attr]
        originals = [e for e in original.value.elements if isinstance(e, cst.DictElement)]
        new_names = [self.place(cst.Name(names[_key(e.key)]), o.key)  # type: ignore[index]
                     for e, o in zip(elements, originals)]
        self.changed = True
        if not elements:  # d = {}: its keys are assigned where they are stored
            return self.place(cst.Pass(), original)  # type: ignore[return-value]
        if len(elements) == 1:
            return updated.with_changes(targets=[cst.AssignTarget(new_names[0])], value=elements[0].value)
        targets = cst.Tuple([cst.Element(n) for n in new_names], lpar=[], rpar=[])  # type: ignore[arg-type]
        values = cst.Tuple([cst.Element(e.value) for e in elements], lpar=[], rpar=[])
        self.place(targets, original.targets[0].target)
        self.place(values, original.value)
        return updated.with_changes(targets=[cst.AssignTarget(targets)], value=values)

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        read = _read_key(original)
        if read is None or read[0] not in self.plans:
            return updated
        self.changed = True
        return self.place(cst.Name(self.plans[read[0]][read[1]]), original)  # type: ignore[return-value]
