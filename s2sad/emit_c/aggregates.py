"""Struct parameters in C output: the leaves of a struct, spelled as the user's members.

The C front end lowers a struct passed by value or by a pointer to one struct to one IR
parameter per member (``parse/c_records``), and records which in the function's
``c_aggregates`` attribute: IR parameter name -> [C parameter, its declared type, access
path, kind]. Here the signature gets the C parameter back, declared once where its first
leaf stands (``const Matrix *M``, and the gradient's ``Matrix *d_M``), and each leaf is
spelled as its member: ``M->data``, ``w.gamma``, ``d_w->gamma``. A ``cell`` (a number of a
struct the function may write) is memory of one element: the array is ``&p->x`` and its
element ``p->x``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..analysis.effects import function_effects
from ..emit.expr import Expr, Name, Subscript
from ..ssa.ir import Function, Module, Value
from .cexpr import Member
from .signature import declared_aggregates

CELL = "cell"
EACH = "each"  # a member across an array of structs: ``Ms[i].data``, its access ``[].data``


@dataclass(frozen=True)
class StructParam:
    """The C parameter a leaf belongs to, and how the leaf is spelled."""

    group: str  # the C parameter's name: "M", "d_w"
    spelled: str  # its declared type: "const Matrix *"
    access: str  # the member: "->data", ".gamma"
    kind: str  # "value", "cell" or "memory"
    writable: str = ""  # a shadow's pointer member declared const: the type it is written through

    @property
    def member(self) -> str:
        """The member as an expression: ``M->data``, ``w.gamma``, ``((double *)d_M->data)``."""
        return f"(({self.writable}){self.group}{self.access})" if self.writable else self.group + self.access

    @property
    def as_variable(self) -> str:
        """What the leaf's variable is spelled: the member, or the address of a cell. A member
        across an array of structs has no spelling of its own, only its elements (``of``)."""
        return f"&{self.member}" if self.kind == CELL else self.member

    def of(self, index: Expr) -> Expr:
        """The member of struct ``index`` of an array of them: ``Ms[i].data``, ``d_Ms[i].pos.x``."""
        out: Expr = Subscript(Name(self.group), (index,))
        for name in self.access[len("[].") :].split("."):
            out = Member(out, name)
        return out


def flatten_struct_params(module: Module, fn: Function) -> None:
    """Declare a helper's struct leaves as parameters of their own (``double w_gamma, int w_m``,
    ``const double *M_data``): its callers pass the leaves (``parse/c_records``), and a local
    struct of theirs exists in the output only as its leaves. The function differentiated keeps
    the user's struct parameters.

    A pointer member the helper only reads is declared ``const`` (``const Matrix *A``'s
    ``double *data`` may point at a ``const double *`` the caller cast for the struct)."""
    members = fn.attrs.pop("c_aggregates", None)
    shadows = fn.attrs.pop("struct_shadows", None)
    spelled = fn.attrs.get("c_params")
    if not members or spelled is None:
        return
    # An array of structs stays one (``const Layer *layers``): its members are not arrays of their
    # own anywhere in the caller's memory, so the helper takes the array as written (``call_arg``).
    kept = {name: entry for name, entry in members.items() if entry[3] == EACH}
    if kept:
        fn.attrs["c_aggregates"] = kept
        if shadows:
            fn.attrs["struct_shadows"] = shadows
    primal = module.functions.get(fn.attrs.get("primal", ""), fn)  # a gradient's c_params are its primal's
    writes = function_effects(module, primal).writes
    spelled = list(spelled)
    for j, p in enumerate(primal.params[: len(spelled)]):
        entry = members.get(p.name_hint)
        if entry is not None and entry[3] == "memory" and j not in writes and not spelled[j].startswith("const "):
            spelled[j] = "const " + spelled[j]
    fn.attrs["c_params"] = spelled


def struct_params(fn: Function) -> dict[str, StructParam]:
    """The function's struct leaves, by IR parameter name (also the gradient's out pointers)."""
    return {name: StructParam(*entry) for name, entry in declared_aggregates(fn).items()}


def cell_of(arr: Value, leaves: dict[Value, StructParam]) -> Optional[StructParam]:
    """The cell ``arr`` is, if it is one."""
    leaf = leaves.get(arr)
    return leaf if leaf is not None and leaf.kind == CELL else None


def each_of(arr: Value, leaves: dict[Value, StructParam]) -> Optional[StructParam]:
    """The member across an array of structs ``arr`` is, if it is one."""
    leaf = leaves.get(arr)
    return leaf if leaf is not None and leaf.kind == EACH else None
