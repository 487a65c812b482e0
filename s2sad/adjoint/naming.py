"""The names of a gradient's signature: its function name, shadows and ``d_return``.

The contract fixes them: the gradient of ``f`` is ``grad_f``, the shadow of a parameter
``x`` is ``d_x``, the seed of the result is ``d_return``. When such a name is already a
user name in the output file, the generated name gives way, never the user's:

* it becomes the first of ``name_``, ``name__``, ... that is no user name and no name
  generated before it (parameters in order, each shadow right after its parameter, then
  ``d_return``; callees' gradients in the module's order);
* the gradient of the differentiated function itself keeps ``grad_<func>`` (the contract
  leaves no room): a user function of that name in the output is refused.

"User names" here are the names a gradient's body can see: for a shadow, the function
names and every name of its own function (parameters, locals: those its source binds, even
one a pass removes or no code needs, so that no -O level changes a signature); for a helper's gradient,
every name of every function in the output, so it never hides a variable or a function.
Locals, tapes and temporaries are named later by the emitters' ``Namer``, which starts from
these signature names.
"""

from __future__ import annotations

from typing import Iterable

from ..ssa.ir import Function, Module, Value


def grad_name(name: str) -> str:
    """The contract's name of the gradient of ``name``."""
    return f"grad_{name}"


def adjoint_hint(v: Value) -> str:
    """``d_<name>`` for a named value: a hint only (see ``free_variant`` for the name taken)."""
    return f"d_{v.name_hint}" if v.name_hint else ""


def free_variant(base: str, taken: Iterable[str]) -> str:
    """``base``, else the first of ``base_``, ``base__``, ... not in ``taken``."""
    if not isinstance(taken, (set, frozenset, dict)):
        taken = set(taken)  # (a set is asked as it is: copying a function's names per hint was a cost)
    name = base
    while name in taken:
        name += "_"
    return name


def struct_shadow_names(fn: Function, shadowed: set[int]) -> dict[str, str]:
    """The shadow of each struct parameter of C input (``c_aggregates``, see ``parse/c_records``)
    one of whose leaves is in ``shadowed`` (has a shadow, or an adjoint the gradient returns):
    one struct of the same type, ``d_<struct>`` (``Wishart w, Wishart *d_w``), whose members hold
    the adjoints of the members it shadows."""
    members = fn.attrs.get("c_aggregates") or {}
    taken = set(fn.source_names) | {p.name_hint for p in fn.params} | set(members)
    out: dict[str, str] = {}
    for i, p in enumerate(fn.params):
        entry = members.get(p.name_hint)
        if entry is not None and i in shadowed and entry[0] not in out:
            out[entry[0]] = free_variant(f"d_{entry[0]}", taken)
            taken.add(out[entry[0]])
    return out


def function_names(fn: Function) -> set[str]:
    """Every source name in ``fn``: the names its source binds (``Function.source_names``: a local
    that no code needs counts, at every -O level), its parameters and the values its body names."""
    names = set(fn.source_names) | {p.name_hint for p in fn.params if p.name_hint}
    for op in fn.walk():
        names.update(r.name_hint for r in op.results if r.name_hint)
        for region in op.regions:
            names.update(a.name_hint for a in region.args if a.name_hint)
    return names


def module_names(module: Module) -> set[str]:
    """The function names of ``module`` and every name inside its functions."""
    names = set(module.functions)
    for fn in module.functions.values():
        names |= function_names(fn)
    return names


def gradient_names(module: Module, root: str) -> dict[str, str]:
    """The name of the gradient of each function of ``module``: ``grad_<name>``, or a free
    variant for a callee; the root's is always ``grad_<root>`` (see ``check_root_name``)."""
    taken = module_names(module)
    out = {root: f"grad_{root}"}
    taken.add(out[root])
    for name in module.functions:
        if name != root:
            out[name] = free_variant(f"grad_{name}", taken)
            taken.add(out[name])
    return out


def signature_names(module: Module, fn: Function, shadowed: Iterable[int], returned: Iterable[int],
                    seeds: int) -> tuple[dict[int, str], dict[int, str], str, list[str]]:
    """The shadow of each shadowed parameter, the C pointer of each scalar whose adjoint is
    returned (Python returns it; C and CUDA add it to ``*d_x``), ``d_return``'s name, and the
    names of the ``seeds`` seed parameters: ``d_return`` itself for one; for a function that
    returns several values, the ``d_return_0``, ``d_return_1``, ... the tuple is unpacked into."""
    taken = set(module.functions) | function_names(fn)  # what grad_<fn>'s body can see
    shadowed, returned = set(shadowed), set(returned)
    shadows: dict[int, str] = {}
    pointers: dict[int, str] = {}
    for i, p in enumerate(fn.params):
        if i in shadowed or i in returned:
            name = free_variant(f"d_{p.name_hint}", taken)
            taken.add(name)
            (shadows if i in shadowed else pointers)[i] = name
    d_return = free_variant("d_return", taken) if seeds else ""
    if seeds <= 1:
        return shadows, pointers, d_return, [d_return] if seeds else []
    taken.add(d_return)
    names = []
    members = fn.attrs.get("result_names") or []  # a C struct returned by value: d_return_x, d_return_y
    for k in range(seeds):
        names.append(free_variant(f"{d_return}_{members[k] if len(members) == seeds else k}", taken))
        taken.add(names[-1])
    return shadows, pointers, d_return, names
