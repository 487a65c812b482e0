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

from ..ssa.ir import Function, Value
from .signature import declared_aggregates

CELL = "cell"


@dataclass(frozen=True)
class StructParam:
    """The C parameter a leaf belongs to, and how the leaf is spelled."""

    group: str  # the C parameter's name: "M", "d_w"
    spelled: str  # its declared type: "const Matrix *"
    access: str  # the member: "->data", ".gamma"
    kind: str  # "value", "cell" or "memory"

    @property
    def member(self) -> str:
        """The member as an expression: ``M->data``, ``w.gamma``."""
        return self.group + self.access

    @property
    def as_variable(self) -> str:
        """What the leaf's variable is spelled: the member, or the address of a cell."""
        return f"&{self.member}" if self.kind == CELL else self.member


def struct_params(fn: Function) -> dict[str, StructParam]:
    """The function's struct leaves, by IR parameter name (also the gradient's out pointers)."""
    return {name: StructParam(*entry) for name, entry in declared_aggregates(fn).items()}


def cell_of(arr: Value, leaves: dict[Value, StructParam]) -> Optional[StructParam]:
    """The cell ``arr`` is, if it is one."""
    leaf = leaves.get(arr)
    return leaf if leaf is not None and leaf.kind == CELL else None
