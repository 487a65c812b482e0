"""``s2sad check`` of C functions whose parameters check does not make as they are: the C
shims it calls them through.

Check makes numbers and NumPy arrays, one per IR parameter, and passes an array as one block of
memory. Two kinds of C parameter are not that, and a shim compiled in the same translation unit
as the function (the file ``#include``-d, so its typedefs and static functions are in scope)
builds them from what check makes before it calls the function, then writes back what the call
may have changed:

* a struct. The C front end holds one as its leaves (``parse/c_records``: ``const grid_t *g``
  with ``int nx; double dx;`` is the IR parameters ``g_nx`` and ``g_dx``). The shim takes the
  leaves, builds the struct in a local (a shadow struct beside it for the gradient), and passes
  it or its address; after the call it writes back a member the primal writes through its
  pointer and the shadow members the gradient adds adjoints to. A member is set from its leaf
  without naming its type: ``__typeof__`` for numbers and cells, and for a memory leaf (a
  pointer member, or an array member held in the struct itself) ``__builtin_types_compatible_p``
  tells a pointer, whose value is copied, from an array, whose elements are. Structs reached
  through a pointer member (``M->inner->x``) and arrays of structs with other members are
  refused;
* a table of row pointers (``double **A``, a matrix in the IR). The shim takes the row-major
  block and its two extents and passes a table of pointers to its rows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from .ssa.ir import Function


class ShimRefused(Exception):
    """A struct parameter the shims do not build: check refuses the function with this message."""


@dataclass
class Leaf:
    index: int  # the IR parameter's position
    access: str  # its member on a local struct: ".nx", ".r.lo"
    kind: str  # "value", "cell" or "memory" (parse/c_records)


@dataclass
class Group:
    """One C parameter of the function: a struct (its leaves) or an IR parameter itself."""

    name: str
    spelled: str = ""  # a struct's declared type: "const grid_t *", "range_t"
    leaves: list[Leaf] = field(default_factory=list)
    index: int = -1  # a plain parameter's IR position

    @property
    def struct_type(self) -> str:
        return " ".join(w for w in self.spelled.replace("*", " ").split() if w not in ("const", "volatile",
                                                                                      "restrict"))

    @property
    def by_address(self) -> bool:
        return "*" in self.spelled


def shim_groups(fn: Function, rows: set[int]) -> Optional[list[Group]]:
    """The C parameters of ``fn`` in order, where one is a struct held as its leaves or a table of
    row pointers (``rows``: IR positions); None where none is. Raises ``ShimRefused`` for a
    struct the shims cannot build."""
    aggregates = fn.attrs.get("c_aggregates") or {}
    if not aggregates and not rows:
        return None
    groups: list[Group] = []
    for k, p in enumerate(fn.params):
        entry = aggregates.get(p.name_hint)
        if entry is None:
            groups.append(Group(p.name_hint, index=k))
            continue
        name, spelled, access, kind = entry[:4]
        if kind not in ("value", "cell", "memory"):
            raise ShimRefused(f"parameter '{name}' is an array of structs with members other than doubles; check "
                              "makes numbers, arrays and structs of them only")
        member = "." + access.removeprefix("->").removeprefix(".")
        if "->" in member:
            raise ShimRefused(f"parameter '{name}' reaches a struct through a pointer member ({name}{access}); "
                              "check builds structs of numbers, arrays and pointers to numbers only")
        if not groups or groups[-1].name != name or groups[-1].index >= 0:
            groups.append(Group(name, spelled))
        groups[-1].leaves.append(Leaf(k, member, kind))
    return groups


def _set(target: str, source: str, kind: str) -> str:
    """C that sets the member ``target`` from the leaf argument ``source``."""
    if kind == "value":
        return f"{target} = {source};"
    if kind == "cell":
        return f"{target} = *(__typeof__({target}) *){source};"
    return (f"if (__builtin_types_compatible_p(__typeof__({target}), __typeof__(&({target})[0]))) "
            f"__builtin_memcpy(&({target}), &{source}, sizeof(void *)); "
            f"else __builtin_memcpy(&({target}), {source}, sizeof({target}));")


def _get(target: str, source: str, kind: str) -> str:
    """C that writes the member ``target`` back to the leaf argument ``source`` (a cell, or an
    array member's elements; a pointer member's elements are the caller's already)."""
    if kind == "cell":
        return f"*(__typeof__({target}) *){source} = {target};"
    return (f"if (!__builtin_types_compatible_p(__typeof__({target}), __typeof__(&({target})[0]))) "
            f"__builtin_memcpy({source}, &({target}), sizeof({target}));")


@dataclass
class ShimParam:
    """What check passes for one IR parameter: its kind (Param.kind), its scalar C type, whether a
    shadow or an adjoint's cell follows it (Param.shadowed, a --wrt number), and whether it is a
    table of row pointers (passed as a block and its two extents, ``check._c_args``)."""

    kind: str
    ctype: str
    shadowed: bool = False
    cell: bool = False
    rows: bool = False


def _signature(params: list[ShimParam], seed: Optional[str], adjoints: bool = True
               ) -> tuple[list[str], list[str], dict[int, tuple[str, str]]]:
    """The shim's parameters, the tables of rows it makes first, and each IR parameter's argument
    names (value, and where ``adjoints`` are passed, its shadow or cell)."""
    decls: list[str] = []
    tables: list[str] = []
    names: dict[int, tuple[str, str]] = {}
    for k, p in enumerate(params):
        value = f"s2sad_a{k}"
        other = f"s2sad_d{k}" if adjoints and (p.shadowed or p.cell) else ""
        for arg in filter(None, (value, other)):
            if not p.rows:
                decls.append(f"void *{arg}" if p.kind == "array" or arg == other else f"{p.ctype} {arg}")
                continue
            decls += [f"void *{arg}_block", f"long {arg}_rows", f"long {arg}_cols"]
            tables += [f"{p.ctype} *{arg}[{arg}_rows > 0 ? {arg}_rows : 1];",
                       f"for (long s2sad_r = 0; s2sad_r < {arg}_rows; s2sad_r++) "
                       f"{arg}[s2sad_r] = ({p.ctype} *){arg}_block + s2sad_r * {arg}_cols;"]
        names[k] = (value, other)
    if seed is not None:
        decls.append(f"{seed} s2sad_seed")
    return decls, tables, names


def primal_shim(source: str, name: str, groups: list[Group], params: list[ShimParam],
                result: Optional[str]) -> str:
    """A C file: ``source`` included, then ``s2sad_check_<name>`` taking the leaves."""
    decls, body, names = _signature(params, None, adjoints=False)
    args: list[str] = []
    after: list[str] = []
    for g, group in enumerate(groups):
        if group.index >= 0:
            args.append(names[group.index][0])
            continue
        local = f"s2sad_s{g}"
        body += _built(group, local, names)
        after += [_get(local + leaf.access, names[leaf.index][0], leaf.kind) for leaf in group.leaves
                  if leaf.kind != "value"]
        args.append(("&" if group.by_address else "") + local)
    returns = result not in (None, "void")
    call = f"{name}({', '.join(args)})"
    body.append(f"__typeof__({call}) s2sad_r = {call};" if returns else f"{call};")
    body += after + (["return s2sad_r;"] if returns else [])
    return _file(source, f"{result if returns else 'void'} s2sad_check_{name}", decls, body)


def gradient_shim(gradient: str, text: str, grad: str, groups: list[Group], params: list[ShimParam],
                  seed: Optional[str]) -> str:
    """A C file: the generated gradient (``gradient``, whose text is ``text``) included, then
    ``s2sad_check_<grad>`` taking the leaves, their shadows and cells, and the seed. The
    gradient's own parameters are read from its declaration, in which each struct and each
    parameter is followed by its shadow where it has one (``emit_c.signature``)."""
    declared = _declared_names(text, grad)
    decls, body, names = _signature(params, seed)
    args: list[str] = []
    after: list[str] = []
    for g, group in enumerate(groups):
        if group.index >= 0:
            value, other = names[group.index]
            args += [value] + ([other] if other else [])
            continue
        local, shadow = f"s2sad_s{g}", f"s2sad_ds{g}"
        body += _built(group, local, names)
        # the shadow: the struct's own integers and pointers where nothing shadows them, zeros
        # where an adjoint is added, the shadows check passes for the rest
        body.append(f"{group.struct_type} {shadow} = {local};")
        shadowed = False
        for leaf in group.leaves:
            value, other = names[leaf.index]
            member = shadow + leaf.access
            if other:
                shadowed = True
                through = "cell" if leaf.kind == "value" else leaf.kind  # (a number's adjoint: through its cell)
                body.append(_set(member, other, through))
                after.append(_get(member, other, through))
            elif leaf.kind != "memory" and params[leaf.index].ctype in ("double", "float"):
                body.append(f"{member} = 0;")  # (a number's adjoint, which this check does not ask)
            if leaf.kind != "value":
                after.append(_get(local + leaf.access, value, leaf.kind))
        args.append(("&" if group.by_address else "") + local)
        if shadowed:
            args.append("&" + shadow)
    if seed is not None:
        args.append("s2sad_seed")
    if len(args) != len(declared):
        raise ShimRefused(f"the gradient's parameters ({', '.join(declared)}) are not those check passes")
    body += [f"{grad}({', '.join(args)});", *after]
    return _file(gradient, f"void s2sad_check_{grad}", decls, body)


def _built(group: Group, local: str, names: dict[int, tuple[str, str]]) -> list[str]:
    """C that declares the struct ``local`` of ``group`` and sets each member from its leaf."""
    return [f"{group.struct_type} {local};", f"__builtin_memset(&{local}, 0, sizeof {local});",
            *(_set(local + leaf.access, names[leaf.index][0], leaf.kind) for leaf in group.leaves)]


def _declared_names(text: str, grad: str) -> list[str]:
    """The names of the parameters ``grad`` declares in ``text``."""
    m = re.search(rf"^\w[\w\s]*\b{re.escape(grad)}\(([^)]*(?:\([^)]*\)[^)]*)*)\)\s*\{{", text, re.M)
    if m is None:
        raise ShimRefused(f"the gradient has no definition of {grad}")
    out = []
    for part in m.group(1).split(","):
        words = re.findall(r"[A-Za-z_]\w*", part.split("[")[0])
        if words:
            out.append(words[-1])
    return out


def _file(included: str, head: str, decls: list[str], body: list[str]) -> str:
    lines = [f'#include "{included}"', "", f"{head}({', '.join(decls) or 'void'}) {{"]
    lines += [f"    {line}" for line in body]
    return "\n".join([*lines, "}", ""])
