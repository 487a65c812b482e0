"""C pointers beyond a fixed array and an offset (a mixin of the C function lowerer).

``c_expr.Ptr`` is a pointer into one array known where the pointer is made. This module
adds what C code does with pointers besides walking one array:

* **the address of a variable** (``stats(x, n, &m, &v)``, a helper's out-parameters): a
  scalar whose address the function takes anywhere is a *cell*, a one-element local array
  (``double m[1]``) from its declaration on. Reading ``m`` loads ``m[0]``, assigning it
  stores there, and ``&m`` is the array itself, which a callee declaring ``double *mean``
  writes as it writes any array. Promoting every such variable, wherever the address is
  taken, keeps one meaning for the name on every path; reverse mode then treats the cell
  as memory (a shadow ``d_m[1]``), which is exactly what a write through ``&m`` is.
"""

from __future__ import annotations

from typing import Optional

from pycparser import c_ast

from ..ssa import build
from ..ssa.ir import Builder, Value
from ..ssa.types import I64
from .c_expr import Ptr, walk
from .c_types import CType
from .py_common import Env


def addressed_names(body: Optional[c_ast.Node]) -> frozenset[str]:
    """The variables whose address ``body`` takes (``&m``, ``&(m)``); by name, so a name
    shadowed in an inner block is a cell in both scopes (only slower, never wrong)."""
    if body is None:
        return frozenset()
    return frozenset(n.expr.name for n in walk(body)
                     if isinstance(n, c_ast.UnaryOp) and n.op == "&" and isinstance(n.expr, c_ast.ID))


class CPointerLowering:
    """Cells (variables whose address is taken). The host provides the environment, the keys
    and ``convert`` (``c_expr``); this class comes first among its bases, so its methods are
    the ones ``c_expr``'s stubs stand for."""

    # Provided by the host (CFunctionLowerer).
    ctypes: dict[str, CType]
    key_types: dict
    addressed: frozenset[str]
    cells: set[str]  # keys of the variables kept in a one-element array

    def is_cell(self, key: Optional[str]) -> bool:
        return key is not None and key in self.cells

    def wants_cell(self, name: str, t: CType) -> bool:
        """Whether a scalar declared as ``name`` lives in memory: the function takes its address."""
        return t.kind == "scalar" and name in self.addressed

    def new_cell(self, key: str, name: str, t: CType, init: Optional[Value], b: Builder, env: Env) -> None:
        """``double m`` (``= init``) as ``double m[1]``: its element keeps the declared type,
        so ``&m`` matches a callee's ``double *`` (``int *`` for an ``int``). A cell declared
        without a value starts at zero: its value before a callee sets it is C's indeterminate
        one, which the gradient must not copy (a snapshot of the cell for the callee's reverse
        sweep would read it; gcc rightly warns)."""
        assert t.scalar is not None
        arr_t = CType("array", t.scalar, t.spelling, (c_ast.Constant("int", "1"),))
        one = build.const(b, 1, I64)
        cell = b.op1("alloc", [one], arr_t.ir_array, name, fill="empty" if init is not None else "zeros",
                    elem=t.scalar.name)
        self.cells.add(key)
        self.key_types[key] = arr_t.ir_array
        env[key] = cell
        if init is not None:
            self.write_cell(cell, init, b)

    @staticmethod
    def read_cell(cell: Value, b: Builder) -> Value:
        return b.op1("load", [cell, build.const(b, 0, I64)], cell.type.elem)  # type: ignore[attr-defined]

    def write_cell(self, cell: Value, v: Value, b: Builder) -> Value:
        elem = cell.type.elem  # type: ignore[attr-defined]
        v = self.convert(v, elem, b)  # type: ignore[attr-defined]
        b.create("store", [cell, build.const(b, 0, I64), v], [])
        return v

    @staticmethod
    def cell_address(cell: Value) -> Ptr:
        return Ptr(cell)
