"""``memcpy``, ``memmove`` and ``memset``: the element loops they stand for.

Numerical C copies state with ``memcpy(hidden, h0, n * sizeof(double))`` and clears buffers
with ``memset(acc, 0, n * sizeof(double))``. To s2sad these are loops over the elements,
``dst[e] = src[e]`` for ``e`` below the byte count over the element's size, so reverse mode
differentiates them as it does any copy: the adjoint of ``dst`` flows back into ``src``'s.
``memmove`` may copy between overlapping parts of one array, so it copies through a new
buffer first, as the C standard describes it. ``memset`` writes numbers only when its byte is
0 (all-zero bytes are 0.0 and 0); any other byte is a located error.
"""

from __future__ import annotations

from typing import Optional

from pycparser import c_ast

from ..ssa import build
from ..ssa.ir import Builder, Value
from ..ssa.structured import element_loops
from ..ssa.types import I64, ArrayType
from .c_expr import Ptr
from .c_types import BYTES, C_WORDS
from .py_common import Env

MEMORY_CALLS = frozenset({"memcpy", "memmove", "memset"})


class CMemoryCalls:
    """The memory functions of ``<string.h>`` (a mixin of the C function lowerer, which provides
    the expressions)."""

    def memory_call(self, node: c_ast.FuncCall, name: str, args: list[c_ast.Node], b: Builder, env: Env,
                    want_value: bool) -> Optional[Ptr]:
        if len(args) != 3:
            raise self.fail(node, f"{name} takes 3 arguments")
        if self.struct_memory_call(node, name, args, b, env):  # memset(&p, 0, sizeof p) of a struct (c_records)
            if want_value:
                raise self.fail(node, f"the value of {name} of a struct is not supported", f"call {name} as a "
                                "statement of its own")
            return None
        dst = self.pointer(args[0], b, env, aims=True)
        if self.is_aim(dst):  # u of ping-pong buffers swapped in a loop: into the array it points at now
            if want_value:
                raise self.fail(node, f"the value of {name} into a pointer that moves between arrays is not "
                                "supported", f"call {name} as a statement of its own")
            self.through_each(dst, args[0], b, lambda bb, q: self.copy_elements(node, name, q, args, bb, env), [])
            return None
        self.copy_elements(node, name, dst, args, b, env)
        return dst if want_value else None

    def copy_elements(self, node: c_ast.FuncCall, name: str, dst: Ptr, args: list[c_ast.Node], b: Builder,
                      env: Env) -> list:
        """``name(dst, args[1], args[2])`` into the one array ``dst`` points at (a source that moves
        between arrays: one copy per array, chosen as it is)."""
        count = self.element_count(args[2], dst, name, b, env, args[0])
        at = self.at(b, node)
        if name == "memset":
            byte = build.const_value(self.number(self.scalar(args[1], b, env), at))
            if byte != 0:
                raise self.fail(args[1], "memset with a byte other than 0 writes no number s2sad can follow",
                                "set the elements in a loop: for (i = 0; i < n; i++) x[i] = v;")
            zero = build.const(at, 0, dst.elem)
            element_loops(at, [count], lambda bb, e: self.put(bb, dst, e[0], zero))
            return []
        src = self.pointer(args[1], b, env, aims=True)
        if self.is_aim(src):
            return self.through_each(src, args[1], b, lambda bb, q: self.copy_from(node, name, dst, q, count, bb), [])
        return self.copy_from(node, name, dst, src, count, at)

    def copy_from(self, node: c_ast.FuncCall, name: str, dst: Ptr, src: Ptr, count: Value, at: Builder) -> list:
        if src.elem != dst.elem:
            raise self.fail(node, f"{name} between arrays of {C_WORDS[src.elem.name]} and {C_WORDS[dst.elem.name]} "
                            "is not supported",
                            "copy the elements in a loop, converting each")
        if name == "memmove":  # the parts may overlap: through a buffer of its own, as C describes it
            buffer = at.op1("alloc", [count], ArrayType(src.elem, 1), "moved", fill="empty", elem=src.elem.name)
            element_loops(at, [count], lambda bb, e: self.put(bb, Ptr(buffer), e[0], self.get(bb, src, e[0])))
            src = Ptr(buffer)
        element_loops(at, [count], lambda bb, e: self.put(bb, dst, e[0], self.get(bb, src, e[0])))
        return []

    def element_count(self, size: c_ast.Node, dst: Ptr, name: str, b: Builder, env: Env,
                      written: Optional[c_ast.Node] = None) -> Value:
        """The elements ``size`` bytes hold (``n * sizeof(double)``: ``n``), in the numbers of an
        array of structs (``n * sizeof(Body)``: ``n`` times its slots; a struct with integer
        members is counted by its ``sizeof``, padding included, never by its numbers' width), in
        rows of the array ``written`` names (``n * sizeof *t`` of a ``double (*t)[m]``: ``n * m``)."""
        layout = dst.layout
        width = BYTES[dst.elem.name]  # structs of one type: counted in their numbers
        if isinstance(size, c_ast.BinaryOp) and size.op == "*":  # n * sizeof(double): n, as written
            for count, unit in ((size.left, size.right), (size.right, size.left)):
                row = _row_of(unit, written)
                if row and dst.base.type.rank >= 2 and (dst.off is None or build.const_int(dst.off) == 0):  # type: ignore
                    n = self.integer(count, b, env, f"the size {name} is given")
                    at = self.at(b, size)
                    for axis in range(1, dst.base.type.rank):  # type: ignore[attr-defined]
                        n = build.mul(at, n, at.op1("dim", [dst.base], I64, axis=axis))
                    return n
                unit_bytes = self.size_of(unit.expr) if isinstance(unit, c_ast.UnaryOp) and unit.op == "sizeof" else 0
                if unit_bytes:
                    if unit_bytes == width:
                        return self.integer(count, b, env, f"the size {name} is given")
                    if layout is not None and unit_bytes == layout.nbytes:
                        n = self.integer(count, b, env, f"the size {name} is given")
                        return build.mul(self.at(b, size), n, build.const(b, layout.size, I64))
        nbytes = self.integer(size, b, env, f"the size {name} is given")
        at = self.at(b, size)
        if layout is not None and layout.mixed:  # whole structs: their bytes, then their numbers
            structs = build.binary(at, "floordiv", nbytes, build.const(b, layout.nbytes, I64), rounding="any")
            return build.mul(at, structs, build.const(b, layout.size, I64))
        return build.binary(at, "floordiv", nbytes, build.const(b, width, I64), rounding="any")

    @staticmethod
    def get(b: Builder, p: Ptr, e: Value) -> Value:
        return b.op1("load", [p.base, *_indices(b, p, e)], p.elem)

    @staticmethod
    def put(b: Builder, p: Ptr, e: Value, v: Value) -> None:
        b.create("store", [p.base, *_indices(b, p, e), v], [])


def _indices(b: Builder, p: Ptr, e: Value) -> list[Value]:
    """Element ``e`` from where ``p`` points, in the numbers of its array (a pointer to structs
    counts its offset in structs), as the indices of that array: ``memcpy(y, y0, sizeof y)`` of
    a ``double y[2][3]`` walks its rows in order, element 4 being ``y[1][1]``."""
    flat = e
    if p.off is not None:
        off = p.off if p.layout is None else build.mul(b, p.off, build.const(b, p.layout.size, I64))
        flat = build.add(b, off, e)
    rank = p.base.type.rank  # type: ignore[attr-defined]
    out: list[Value] = []
    for axis in range(rank - 1, 0, -1):
        extent = b.op1("dim", [p.base], I64, axis=axis)
        out.append(build.binary(b, "mod", flat, extent))
        flat = build.binary(b, "floordiv", flat, extent)
    return [flat, *reversed(out)]


def _row_of(unit: c_ast.Node, written: Optional[c_ast.Node]) -> bool:
    """Whether ``unit`` is ``sizeof *t`` or ``sizeof t[0]`` of the array ``written`` names (``t``):
    one of its rows, however long it is (a variable-length one: ``double (*t)[m]``)."""
    if written is None or not (isinstance(unit, c_ast.UnaryOp) and unit.op == "sizeof"):
        return False
    inner = unit.expr
    if isinstance(inner, c_ast.UnaryOp) and inner.op == "*":
        inner = inner.expr
    elif isinstance(inner, c_ast.ArrayRef) and isinstance(inner.subscript, c_ast.Constant) \
            and inner.subscript.value == "0":
        inner = inner.name
    else:
        return False
    return isinstance(inner, c_ast.ID) and isinstance(written, c_ast.ID) and inner.name == written.name
