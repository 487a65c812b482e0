"""A local dict of named values, read by its keys: one variable per key, rewritten before typing.

Code keeps a few parameters together under names (``params = {"a": a, "b": b}``, then
``params["a"] * np.exp(-params["b"] * t)``). Where the dict is that and nothing more, it is the
same as a variable per key: ``params_a, params_b = a, b`` (the values taken where the dict is
made, in order, as Python does) and ``params_a`` for each ``params["a"]``. So is a dict filled
key by key (``d = {}``, then ``d["s"] = x * x`` and ``d["s"] += y``): each store assigns the
key's variable. Only where that is certain: a local of one function, assigned once, by a dict
literal whose keys are distinct string literals (none at all: ``{}``), and otherwise only read by
one of the keys it is made with or stored at, and stored into by a plain or augmented assignment
at a string literal (never deleted from, looped over or asked for its keys). It may be passed to
a helper of the file (not the function differentiated) whose parameter is only read by keys or
passed on to such parameters, where every call passes such a dict: that parameter becomes one per
key it reads (``predict(params, x)``: ``def predict(params_a, params_b, x)``). Any other dict
stays as written, and is refused where it is read. The new
names are the dict's and the key's, made free of every name of the file's functions; the new
nodes stand where the nodes they replace stood (``py_spellings.PlacedRewriter``).
"""

from __future__ import annotations

import ast
from typing import Optional

import libcst as cst

from ..diagnostics import Diagnostic
from .py_flow import all_names, fresh_name, store_targets, target_names, walk
from .py_module import ModuleInfo
from .py_types import default_value
from .py_spellings import PlacedRewriter


def rewrite_dicts(info: ModuleInfo, positions, entry: Optional[str] = None) -> dict[cst.CSTNode, object]:
    """Rewrite the local dicts of named values in every function of ``info``, and the dict
    parameters of helpers that every call passes such a dict (not of ``entry``, whose callers are
    outside the file); the positions of the new nodes."""
    new_positions: dict[cst.CSTNode, object] = {}
    taken = {n.value for fn in info.functions.values() for n in walk(fn) if isinstance(n, cst.Name)}
    helpers = _dict_params(info, entry)
    plans_of: dict[str, dict[str, dict[str, str]]] = {}
    for name, fn in info.functions.items():
        if any(isinstance(n, cst.Dict) for n in walk(fn)):
            plans_of[name] = _plans(fn, taken, helpers)
    # The dict params every call passes a plan (or an expanded dict param of its own) to; one that
    # some call cannot pass so is dropped, and so are the params passed on to it.
    passes = dict(helpers)
    changed = True
    while changed:
        changed = False
        for (callee, k), keys in list(passes.items()):
            if callee == entry:
                continue  # called from outside the file, with a dict: its gradient takes the dict
            calls = [(name, n) for name, fn in info.functions.items() for n in walk(fn.body) if _calls(n, callee)]
            own = {name: {info.functions[name].params.params[j].name.value: dict.fromkeys(ks)
                          for (c, j), ks in passes.items() if c == name} for name, _ in calls}
            if not calls or not all(_passed_plan(n, k, {**plans_of.get(name, {}), **own[name]}, keys)
                                    for name, n in calls):
                del passes[(callee, k)]
                changed = True
        for (caller, j) in list(passes):
            fn = info.functions[caller]
            pname = fn.params.params[j].name.value
            if any(isinstance(a.value, cst.Name) and a.value.value == pname and (n.func.value, m) not in passes
                   for n in walk(fn.body) if isinstance(n, cst.Call) and isinstance(n.func, cst.Name)
                   for m, a in enumerate(n.args)):
                del passes[(caller, j)]
                changed = True
    for name, fn in list(info.functions.items()):
        plans = {d: plan for d, plan in plans_of.get(name, {}).items() if _only_passed_where_expanded(fn, d, passes)}
        own = {n.value for n in all_names(fn)} | set(info.functions)  # (a parameter's names: the function's own)
        params = {k: _fresh_keys(fn, k, keys, own) for (callee, k), keys in passes.items() if callee == name}
        if not plans and not params:
            continue
        rewriter = _Rewriter(plans, positions, new_positions, passes, params, fn, info)
        out = fn.visit(rewriter)
        if rewriter.changed:
            info.functions[name] = out  # type: ignore[assignment]
        if name == entry:
            for k, names in params.items():
                pname = fn.params.params[k].name.value
                gets = _get_defaults([g for n in walk(fn.body) if (g := _get_key(n, info)) is not None
                                      and g[0] == pname]) or {}
                subscripted = {r[1] for n in walk(fn.body) if (r := _read_key(n)) is not None and r[0] == pname}
                info.entry_dicts[pname] = [(key, new, None if key in subscripted else gets.get(key))
                                           for key, new in names.items()]
    return new_positions


def _calls(n: cst.CSTNode, callee: str) -> bool:
    return isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == callee


def _dict_params(info: ModuleInfo, entry: Optional[str]) -> dict[tuple[str, int], list[str]]:
    """The positional parameters that the function only reads by literal keys (``params["a"]``;
    in ``entry``, the function differentiated, also ``params.get("a", 1.0)`` with a constant
    default) or passes on, positionally, to another such parameter: (function, position) -> the
    keys, in the order first read (a callee's after its own)."""
    out: dict[tuple[str, int], list[str]] = {}
    changed = True
    while changed:
        changed = False
        for name, fn in info.functions.items():
            if fn.params.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or (name == entry and _calls_itself(fn)):
                continue
            assigned = set(_names_bound_in(fn.body))
            stored = {id(t) for n in walk(fn.body) for t in store_targets(n)}
            for k, p in enumerate(fn.params.params):
                pname = p.name.value
                if p.default is not None or pname in assigned:
                    continue
                keys = [key for n in walk(fn.body) if isinstance(n, cst.Subscript) and id(n) not in stored
                        and (r := _read_key(n)) is not None and r[0] == pname for key in [r[1]]]
                if name == entry:
                    gets = [g for n in walk(fn.body) if (g := _get_key(n, info)) is not None and g[0] == pname]
                    if _get_defaults(gets) is None:
                        continue
                    keys += [key for _, key, _ in gets]
                passed = [out.get((n.func.value, j)) for n in walk(fn.body) if isinstance(n, cst.Call)  # type: ignore
                          and isinstance(n.func, cst.Name) for j, a in enumerate(n.args)
                          if isinstance(a.value, cst.Name) and a.value.value == pname]
                uses = sum(1 for n in all_names(fn.body) if n.value == pname)
                if uses != len(keys) + len(passed) or None in passed or not (keys or passed):
                    continue
                found = list(dict.fromkeys(keys + [key for more in passed for key in more]))  # type: ignore
                if out.get((name, k)) != found:
                    out[(name, k)] = found
                    changed = True
    return out


def _calls_itself(fn: cst.FunctionDef) -> bool:
    return any(_calls(n, fn.name.value) for n in walk(fn.body))


def _get_key(node: cst.CSTNode, info: ModuleInfo) -> Optional[tuple[str, str, object]]:
    """``d.get("a", default)`` with a constant default (a number, a string): the dict's name, the
    key and the default's value; None for any other node."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "get"
            and isinstance(node.func.value, cst.Name) and len(node.args) == 2
            and all(a.keyword is None and not a.star for a in node.args)):
        return None
    key = _key(node.args[0].value)
    default = default_value(node.args[1].value, info)
    return None if key is None or default is None else (node.func.value.value, key, default)


def _get_defaults(gets: list[tuple[str, str, object]]) -> Optional[dict[str, object]]:
    """The default of each key read with ``.get``; None where one key has two."""
    out: dict[str, object] = {}
    for _, key, default in gets:
        if out.setdefault(key, default) != default or type(out[key]) is not type(default):
            return None
    return out


def _names_bound_in(body: cst.CSTNode) -> list[str]:
    """Names any statement of ``body`` binds (assignments, loops, augmented assignments)."""
    return [name for n in walk(body) for t in store_targets(n) for name in target_names(t)]


def _passed_plan(call: cst.Call, k: int, plans: dict[str, dict], keys: list[str]) -> bool:
    """``call`` passes, at position ``k``, a local dict with a plan that has every key in ``keys``."""
    args = call.args
    if any(a.star or a.keyword is not None for a in args[:k + 1]) or len(args) <= k:
        return False
    value = args[k].value
    return isinstance(value, cst.Name) and value.value in plans and all(key in plans[value.value] for key in keys)


def _only_passed_where_expanded(fn: cst.FunctionDef, d: str, passes: dict[tuple[str, int], list[str]]) -> bool:
    """A plan counts calls passing ``d`` as uses (``_plans``): each must be at an expanded parameter."""
    for n in walk(fn.body):
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Name):
            for k, a in enumerate(n.args):
                if isinstance(a.value, cst.Name) and a.value.value == d and (n.func.value, k) not in passes:
                    return False
    return True


def _fresh_keys(fn: cst.FunctionDef, k: int, keys: list[str], taken: set[str]) -> dict[str, str]:
    """New parameter names for parameter ``k``'s keys: ``params_a``, ``params_b``."""
    base = fn.params.params[k].name.value
    return {key: _key_name(base, key, taken) for key in keys}


def _key_name(base: str, key: str, taken: set[str]) -> str:
    """The variable of key ``key`` of dict ``base``: ``params_a`` (a number for a key that is no name)."""
    return fresh_name(f"{base}_{key}" if key.isidentifier() else f"{base}_{len(taken)}", taken)


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


def _plans(fn: cst.FunctionDef, taken: set[str],
           helpers: Optional[dict[tuple[str, int], list[str]]] = None) -> dict[str, dict[str, str]]:
    """The dicts of ``fn`` that are variables per key: the dict's name -> key -> the new name. A
    dict passed, positionally, to a parameter of ``helpers`` (read only by keys there) counts that
    as a use (``rewrite_dicts`` keeps the plan only where every such call is expanded)."""
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
    passed: dict[str, int] = {}
    for n in walk(fn.body):
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Name):
            for k, a in enumerate(n.args):
                if isinstance(a.value, cst.Name) and a.value.value in plans and (n.func.value, k) in (helpers or {}) \
                        and not a.star and a.keyword is None:
                    passed[a.value.value] = passed.get(a.value.value, 0) + 1
    for name in list(plans):
        read = [key for dict_name, key in reads if dict_name == name]
        if name in stored_into or uses.get(name, 0) != 1 + len(read) + passed.get(name, 0) or any(
                k not in plans[name] for k in read):
            del plans[name]
            continue
        for key in plans[name]:
            plans[name][key] = _key_name(name, key, taken)
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
    def __init__(self, plans: dict[str, dict[str, str]], positions, new_positions: dict,
                 passes: Optional[dict[tuple[str, int], list[str]]] = None,
                 params: Optional[dict[int, dict[str, str]]] = None, fn: Optional[cst.FunctionDef] = None,
                 info: Optional[ModuleInfo] = None):
        super().__init__(positions, new_positions)
        self.info = info
        self.plans = dict(plans)
        self.passes = passes or {}
        self.param_names: dict[str, int] = {}
        self.params = params or {}
        if fn is not None:  # a helper's dict parameter: its keys' new names, read as a plan's
            for k, names in self.params.items():
                pname = fn.params.params[k].name.value
                self.plans[pname] = names
                self.param_names[pname] = k

    def leave_Parameters(self, original: cst.Parameters, updated: cst.Parameters) -> cst.Parameters:
        if not self.params:
            return updated
        out: list[cst.Param] = []
        for k, p in enumerate(updated.params):
            if k not in self.params:
                out.append(p)
                continue
            self.changed = True
            for new in self.params[k].values():
                out.append(self.place(p.with_changes(name=cst.Name(new), annotation=None,  # type: ignore[arg-type]
                                                     comma=cst.MaybeSentinel.DEFAULT), p))
        return updated.with_changes(params=out)

    def _passed(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if not isinstance(original.func, cst.Name):
            return updated
        args: list[cst.Arg] = []
        for k, (o, a) in enumerate(zip(original.args, updated.args)):
            keys = self.passes.get((original.func.value, k))
            if keys is not None and isinstance(o.value, cst.Name) and o.value.value in self.plans:
                self.changed = True
                names = self.plans[o.value.value]
                args += [self.place(cst.Arg(cst.Name(names[key])), o) for key in keys]  # type: ignore[misc]
            else:
                args.append(a.with_changes(comma=cst.MaybeSentinel.DEFAULT))
        return updated.with_changes(args=args) if args != list(updated.args) else updated

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

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:  # type: ignore[override]
        got = _get_key(original, self.info) if self.info is not None else None
        if got is not None and got[0] in self.param_names:  # d.get("a", 1.0) of an expanded parameter
            self.changed = True
            return self.place(cst.Name(self.plans[got[0]][got[1]]), original)  # type: ignore[return-value]
        return self._passed(original, updated)

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        read = _read_key(original)
        if read is None or read[0] not in self.plans:
            return updated
        self.changed = True
        return self.place(cst.Name(self.plans[read[0]][read[1]]), original)  # type: ignore[return-value]


def unexpanded_dict_problems(info: ModuleInfo, order: list[str], entry: str, locator) -> list[Diagnostic]:
    """A located error for each parameter of the functions in ``order`` still read by a literal
    key after the rewrite (``cfg["lam"]``: a dict, a table's column), which the rewrite expands
    only where every use reads a key (see the module): where the function differentiated uses it
    otherwise, at that use; else at its first key read. The function differentiated's own come
    alone: a helper's dict is often one of them passed on."""
    problems = []
    for name in [entry] + [n for n in order if n != entry]:
        if name != entry and problems:
            break
        fn = info.functions[name]
        params = {p.name.value for p in fn.params.params}
        literals = {t.value for n in walk(fn.body) if isinstance(n, (cst.Assign, cst.AnnAssign))
                    and isinstance(n.value, cst.Dict) for t in store_targets(n) if isinstance(t, cst.Name)}
        # (a dict made here by a literal and used otherwise: refused at the literal, where lowering is)
        reads = [(n, r) for n in walk(fn.body) if (r := _read_key(n)) is not None and r[0] not in literals]
        gets = [(n, g) for n in walk(fn.body) if (g := _get_key(n, info)) is not None]
        passed = {id(a.value) for n in walk(fn.body) if isinstance(n, cst.Call) and isinstance(n.func, cst.Name)
                  and n.func.value in info.functions for a in n.args}  # to a helper: its reads count
        for pname in dict.fromkeys(r[0] for _, r in reads):
            first, (_, key) = next((n, r) for n, r in reads if r[0] == pname)
            read = f'{pname}["{key}"]'
            keyed = {id(n.value) for n, r in reads if r[0] == pname} | {
                id(n.func.value) for n, g in gets if g[0] == pname}
            others = [n for n in all_names(fn.body) if n.value == pname and id(n) not in keyed | passed]
            other = min(others, key=lambda n: (locator.loc(n).line, locator.loc(n).col), default=None)
            takes = (f"s2sad takes a dict parameter whose every use reads one key by name ({read}, "
                     f'{pname}.get("{key}", 0.0))')
            if pname not in params:
                problems.append(Diagnostic(
                    f"'{pname}' is read by its keys, but it is not a dict s2sad follows: one made in {name} by a "
                    f'literal of string keys ({{"{key}": ...}}) and only read by key', locator.loc(first),
                    "read the dict where it is made, or the parameter it comes from, by its keys"))
            elif name != entry:
                problems.append(Diagnostic(
                    f"'{pname}' is read by its keys in {name}, but not every call passes a dict made in the caller "
                    f"({{\"{key}\": ...}}) or the function's own such parameter", locator.loc(first),
                    f"pass the values as parameters, or build the dict where {name} is called"))
            elif other is not None:
                problems.append(Diagnostic(f"'{pname}' is read by its keys ({read}, line "
                                           f"{locator.loc(first).line}) and used otherwise here",
                                           locator.loc(other), takes))
            else:
                problems.append(Diagnostic(f"'{pname}' is read by its keys ({read}) and rebound or read with "
                                           "defaults that differ", locator.loc(first), takes))
    return problems
