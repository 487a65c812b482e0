"""The C declaration of a function's parameters, as C input spelled them.

The C front end records what the source declares (``c_params``: each IR parameter's declared
type; ``c_result``; ``c_aggregates``: the struct parameters, see ``aggregates``). A gradient
carries its primal's, and its own declaration is spelled here from them and ``grad_info``: a
parameter is declared as the primal's, a shadow as its parameter without ``const`` (it is
written), ``d_return`` as the primal's result; a struct parameter's shadow is one struct of the
same type through a pointer (``Wishart w, Wishart *d_w``; ``const Matrix *M, Matrix *d_M``),
named with the signature (``struct_shadows``), whose members hold the adjoints of the members
it shadows: ``d_w->gamma += ...``, ``d_M->data[i]``.
"""

from __future__ import annotations

import re

from typing import Optional

from ..ssa.attrs import grad_info, primal_positions
from ..parse.c_global_arrays import GLOBAL_ARRAYS, STATIC_ARRAYS
from ..ssa.ir import Function
from .cexpr import ctype


def results_through_pointers(fn: Function) -> bool:
    """Whether ``fn``, no gradient, writes its results through pointers its caller passes: it has
    several (Python's ``return r, theta``), or they are the members of a C struct it returns."""
    return len(fn.result_types) > 1 or bool(fn.attrs.get("result_names"))


def declared_params(fn: Function) -> Optional[list[str]]:
    """The declared C type of each of ``fn``'s parameters; None for Python input, and where the
    parameters are not those the declaration spells (a pass added some)."""
    spelled = fn.attrs.get("c_params")
    info = grad_info(fn)
    if spelled is None or info is None:
        return spelled if spelled is not None and len(spelled) == len(fn.params) else None
    out: list[str] = []
    for i, j in enumerate(primal_positions(fn, len(spelled))):
        if j is None and fn.attrs.get("result_names") and i >= len(fn.params) - len(fn.attrs["result_names"]):
            out.append(ctype(fn.params[i].type))  # a seed per member of a struct returned: d_return_x
        elif j is None and i == info.d_return and i == len(fn.params) - 1:
            out.append(fn.attrs["c_result"])
        elif j is None:
            return None
        elif i in info.shadows:
            out.append(_written(spelled[j]))
        else:
            out.append(spelled[j])
    return out


def declared_aggregates(fn: Function) -> dict[str, list[str]]:
    """The struct parameters (``c_aggregates``): IR parameter name -> [C parameter, its declared
    type, access path, kind]; a gradient's also hold each shadow and returned adjoint of a leaf
    as the member of the struct parameter's shadow."""
    members = fn.attrs.get("c_aggregates") or {}
    info = grad_info(fn)
    if info is None or not members:
        return members
    shadow_of = {j: s for s, j in info.shadows.items()}  # parameter -> its shadow
    pointers = dict(zip(info.returned or [], fn.attrs.get("pointers") or []))
    structs = fn.attrs.get("struct_shadows") or {}
    spelled_leaves = fn.attrs.get("c_params") or []
    positions = primal_positions(fn, len(spelled_leaves)) if spelled_leaves else []
    out: dict[str, list[str]] = {}
    for i, p in enumerate(fn.params):
        entry = members.get(p.name_hint)
        if entry is None:
            continue
        group, spelled, access, kind = entry
        out[p.name_hint] = entry
        shadow = fn.params[shadow_of[i]].name_hint if i in shadow_of else pointers.get(i)
        if shadow is None:
            continue
        pointee = " ".join(w for w in spelled.replace("*", " ").split() if w not in ("const", "restrict"))
        shadow_type = f"{pointee} *"  # never restrict: see _written
        member = access if access.startswith("[]") else "->" + access.lstrip(".->")  # d_Ms[i].data, d_M->data
        # A member declared const double *m: the shadow struct's is too, and the gradient writes
        # through it, as (double *)d_s->m (the caller's shadow memory is its own, writable).
        leaf = spelled_leaves[positions[i]] if i < len(positions) and positions[i] is not None else ""
        writable = _written(leaf) if kind == "memory" and re.search(r"\bconst\b", leaf) else ""
        out[shadow] = [structs[group], shadow_type, member, kind, writable]
    return out


def _written(declared: str) -> str:
    """A parameter's type as a shadow declares it: ``const`` goes (the shadow is written), and so
    does ``restrict``: two ``restrict`` parameters may name one array where both are only read
    (``dot(n, x, x)`` is valid C), but their shadows are both written, and writes through two
    ``restrict`` pointers to one array are undefined (gcc -O3 computed d_x = x, not 2x)."""
    unrestricted = re.sub(r"\s*\brestrict\b\s*", " ", declared).replace("[ ", "[").replace("* ", "*")
    return " ".join(w for w in unrestricted.split() if w != "const").replace("* ", "*")


def global_array_params(fn: Function) -> dict[int, tuple[str, str, bool]]:
    """The parameters of the gradient ``fn`` of a function that uses file-scope arrays
    (``parse.c_global_arrays``): each such array, and its shadow, by index -> (the array's name,
    its declaration, whether the parameter is the shadow). Not in the gradient's signature: the
    body reads the program's array (declared ``extern``) and a file-scope adjoint of it that
    each call zeroes."""
    arrays = dict(fn.attrs.get(GLOBAL_ARRAYS) or {})
    for name in fn.attrs.get(STATIC_ARRAYS) or ():
        arrays[name] = "static " + arrays[name]  # the gradient's own (parse.c_global_arrays)
    spelled = fn.attrs.get("c_params")
    if not arrays or grad_info(fn) is None or spelled is None:
        return {}
    first = len(spelled) - len(arrays)  # they are the primal's last parameters, in this order
    names = list(arrays)
    shadows = grad_info(fn).shadows  # type: ignore[union-attr]
    return {i: (names[j - first], arrays[names[j - first]], i in shadows)
            for i, j in enumerate(primal_positions(fn, len(spelled))) if j is not None and j >= first}
