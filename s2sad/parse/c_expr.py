"""Lowering of C expressions to SSA IR (a mixin of the C function lowerer).

C's semantics are kept where they differ from Python's:

* the usual arithmetic conversions: ``double`` wins over ``float``, floats win
  over integers, ``float`` with ``float`` stays ``float`` (so float code stays
  float); integer ``/`` truncates (the IR's integer ``div``), ``%`` is the
  truncated remainder (``rem``); a comparison gives an ``int`` in arithmetic;
* assignments, ``++`` and ``--`` are expressions with a value, evaluated left to
  right, updating the environment as they go;
* ``&&``, ``||`` and ``?:`` evaluate their right side only when C would: eagerly
  (``and``/``or``/``select``) when it is side-effect free and cannot fault (no
  loads, calls or divisions), else through an ``if`` op;
* pointers: a pointer value is a base array plus an element offset (``Ptr``);
  ``p + i``, ``&x[i]``, ``p++``, ``*p``, ``p[i]``, ``p - q`` and ``p < q`` act on
  the offset, so pointer walking lowers to index arithmetic on the base array,
  and a sub-array passed to a callee becomes a ``view``;
* arrays of more dimensions (``double A[n][m]``): ``A[i][j]`` is one load or store
  with an index per dimension; ``A[i]``, ``*A`` and ``&A[i][j]`` are rows (a row
  ``view``), C's decay of ``A`` to a pointer to its rows; ``A + i`` counts rows.
  A row where a number is wanted, or more subscripts than dimensions, is a
  located error.
"""

from __future__ import annotations

import contextlib
import math
import re

from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Iterator, Optional, Union

from pycparser import c_ast
from pycparser.c_generator import CGenerator

from ..diagnostics import Diagnostic
from ..ssa import build
from ..ssa.gpu import AXES as GPU_AXES
from ..ssa.gpu import OP_OF_VECTOR
from ..ssa.ir import Block, Builder, SourceLoc, Value
from ..ssa.mathfns import c_spellings
from ..ssa.ops import int_member
from ..ssa.structured import element_loops
from ..ssa.types import BOOL, F32, F64, I64, ArrayType, ScalarType, Type, as_float32
from .c_const import const_because
from .c_source_map import SourceMap
from .c_structs import int_constant
from .c_types import StructLayout
from .c_types import BYTES, CType, value_type
from .py_common import Env, Fail, Poison


@dataclass(frozen=True)
class Ptr:
    """A pointer value: ``base + off`` elements (``off`` None means 0).

    A pointer to structs (``layout`` set) counts ``off`` in structs; its base is
    the run of scalars the structs are made of (see ``c_structs``).
    """

    base: Value
    off: Optional[Value] = None
    layout: Optional[StructLayout] = None

    @property
    def elem(self) -> ScalarType:
        return self.base.type.elem  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Place:
    """A struct in memory, or a member of one, before it is read: ``bodies[i].pos``.

    The element it names is ``sum(coefs[k] * operands[k]) + offset`` of ``base``;
    ``operands[0]`` is the struct's index, the others subscript array members.
    ``path`` spells the access after ``base[i]`` (``.pos[]``, one ``[]`` per
    subscript), ``dims`` are the extents still to subscript and ``sub`` the struct
    type reached (None for a number or an array of numbers).
    """

    base: Value
    layout: StructLayout
    operands: tuple[Value, ...]
    coefs: tuple[int, ...]
    offset: int
    path: str
    dims: tuple[int, ...]
    sub: Optional[StructLayout]
    int_type: Optional[ScalarType] = None  # an integer member (or array of them): its type
    # Reached through a pointer that moves between arrays of structs (``cur->h[j][i]`` of states
    # swapped by pointer, ``c_pointers.Aim``): that pointer; ``base`` is then its first array, and
    # the element is read and written in whichever array the pointer holds.
    aim: Optional[Ptr] = None

    @property
    def elem_size(self) -> int:
        return self.sub.size if self.sub is not None else 1

    def at(self, off: Value, layout: Optional[StructLayout] = None) -> Ptr:
        """A pointer ``off`` numbers into the structs' run (the pointer's own arrays where it moves)."""
        return replace(self.aim, off=off, layout=layout) if self.aim is not None else Ptr(self.base, off, layout)


Operand = Union[Value, Ptr]


_ARITH = {"+": "add", "-": "sub", "*": "mul", "/": "div", "%": "rem"}
_COMPARE = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq", "!=": "ne"}
_COMPOUND = {"+=": "+", "-=": "-", "*=": "*", "/=": "/", "%=": "%", "<<=": "<<", ">>=": ">>", "&=": "&",
             "|=": "|", "^=": "^"}
# C's bitwise operators on integers, as IR ops (never active: integers carry no derivative).
_BITS = {"&": "bitand", "|": "bitor", "^": "bitxor", "<<": "shl", ">>": "shr"}
INCREMENTS = frozenset({"++", "--", "p++", "p--"})  # pycparser spells postfix forms p++, p--

INT_ABS = frozenset({"abs", "labs", "llabs"})
# math.h names -> IR intrinsic (``mathfns``); the ``f`` variants (sinf) work on float.
_MATH_SPELLINGS = c_spellings()


def _c_words(t: Type) -> str:
    """An IR type in C words, for a message: ``a double``, ``a pointer to double``."""
    words = {"f64": "double", "f32": "float", "i64": "long", "i32": "int", "bool": "_Bool"}
    if isinstance(t, ArrayType):
        return f"a pointer to {words.get(t.elem.name, t.elem.name)}"
    return f"a {words.get(getattr(t, 'name', ''), str(t))}"
BUILTIN_PREFIX = "__builtin_"  # gcc's and clang's names of the library functions: __builtin_sqrt


def library_name(name: str) -> str:
    """The library function a call names: ``__builtin_sqrt`` is ``sqrt``, as it is to gcc."""
    return name[len(BUILTIN_PREFIX):] if name.startswith(BUILTIN_PREFIX) else name


def math_intrinsic(name: str) -> Optional[tuple[str, Optional[ScalarType]]]:
    """``sinf`` -> (``sin``, f32); ``fabs`` -> (``abs``, None); ``__builtin_expf`` -> (``exp``, f32);
    unknown -> None."""
    name = library_name(name)
    if name in _MATH_SPELLINGS:
        return _MATH_SPELLINGS[name], None
    if name.endswith("f") and name[:-1] in _MATH_SPELLINGS:
        return _MATH_SPELLINGS[name[:-1]], F32
    return None


def arith_type(x: Type, y: Type) -> ScalarType:
    """C's usual arithmetic conversions, on the IR's types."""
    if F64 in (x, y):
        return F64
    if F32 in (x, y):
        return F32
    return I64


def node_text(node: c_ast.Node) -> str:
    return CGenerator().visit(node)


def is_name(node: Optional[c_ast.Node], name: str) -> bool:
    """``node`` is the identifier ``name``."""
    return isinstance(node, c_ast.ID) and node.name == name


def span(node: c_ast.Node, sources: SourceMap) -> SourceLoc:
    """Where ``node`` is in the user's files: its coordinate, as wide as its text on that line.

    pycparser gives start coordinates only, on the preprocessor's running lines; the width
    of a name, a literal or the node's regenerated first line (``c_node_width``) is what the
    caret under a diagnostic spans, and ``sources`` says where the user wrote that (which
    file, which line, the call of the macro that made it).
    """
    coord = node.coord or _inner_coord(node)
    line, col = (coord.line, coord.column or 1) if coord is not None else (1, 1)
    if isinstance(node, c_ast.ID):
        width = len(node.name)
    elif isinstance(node, c_ast.Constant):
        width = len(node.value)
    elif isinstance(node, c_ast.Decl):
        width = len(node.name or "")
    else:
        width = sources.widths.width(node)
    return sources.loc(line, col, width)


def _inner_coord(node: c_ast.Node):
    """The coordinate of the first node under ``node`` that has one (pycparser leaves some type
    nodes it builds without: ``Sys *a[0]``'s pointer to an array); None if none has."""
    for _, child in node.children():
        coord = child.coord or _inner_coord(child)
        if coord is not None:
            return coord
    return None


class CExprLowering:
    """Expressions; the host class provides ``env`` handling, ``branch`` and the context."""

    # Provided by the host (CFunctionLowerer).
    ctx: "object"
    ctypes: dict[str, CType]
    declaring: Optional[tuple[str, CType]] = None  # the pointer whose initializer is lowered (sizeof *f)
    evaluated_once: Optional[dict[int, "Operand"]] = None  # calls in a target read and written (stepped_once)

    def loc(self, node: c_ast.Node) -> SourceLoc:  # pragma: no cover - provided by the host
        raise NotImplementedError

    def fail(self, node: c_ast.Node, message: str, hint: str = "") -> Fail:
        return Fail(Diagnostic(message, self.loc(node), hint))

    def at(self, b: Builder, node: c_ast.Node) -> Builder:
        b.loc = self.loc(node)
        return b

    # -- conversions ----------------------------------------------------------------------
    def convert(self, v: Value, t: Type, b: Builder) -> Value:
        """C's implicit conversion of a scalar to ``t`` (assignment, argument, return)."""
        if t != BOOL:
            v = self.number(v, b)
        return v if v.type == t else build.cast(b, v, t)

    def number(self, v: Value, b: Builder) -> Value:
        """A comparison's result used as a number is an int."""
        return build.cast(b, v, I64) if v.type == BOOL else v

    def truth(self, v: Operand, b: Builder, node: c_ast.Node) -> Value:
        if isinstance(v, Ptr):
            return build.const(b, self.never_null(v, node), BOOL)
        if v.type == BOOL:
            return v
        zero = build.const(b, 0, v.type)
        return build.cmp(b, "ne", v, zero)

    # -- entry points -------------------------------------------------------------------------
    def scalar(self, node: c_ast.Node, b: Builder, env: Env) -> Value:
        v = self.expr(node, b, env)
        if isinstance(v, Ptr):
            raise self.not_a_number(node, v, env)
        return v

    def not_a_number(self, node: c_ast.Node, v: Ptr, env: Env) -> Fail:
        """The error for a pointer where a number is expected; for ``A[i]``, that it is a row."""
        if isinstance(node, c_ast.ArrayRef) and not self.is_struct_access(node, env):
            base, subs = split_subscripts(node)
            rank = len(subs) + v.base.type.rank  # type: ignore[attr-defined]
            return self.fail(node, f"'{node_text(node)}' is a row of '{node_text(base)}', not a number",
                             each_dimension(base, rank))
        if self.is_struct_access(node, env):  # b->pos: an array member, as C decays it
            return self.fail(node, f"'{node_text(node)}' is an array, used as a number",
                             f"read one of its elements: {node_text(node)}[i]")
        return self.fail(node, "a pointer is used where a number is expected")

    def integer(self, node: c_ast.Node, b: Builder, env: Env, what: str) -> Value:
        return self.integer_of(self.number(self.scalar(node, b, env), self.at(b, node)), node, b, what)

    def integer_of(self, v: Value, node: c_ast.Node, b: Builder, what: str) -> Value:
        """``v``, the value of ``node``, as a long; a located error where it is no integer."""
        if not v.type.is_int:
            raise self.fail(node, f"{what} must be an integer, not {_c_words(v.type)}", "cast it: (int)x")
        return self.convert(v, I64, b)

    def condition(self, node: c_ast.Node, b: Builder, env: Env) -> Value:
        return self.truth(self.expr(node, b, env), self.at(b, node), node)

    def pointer(self, node: c_ast.Node, b: Builder, env: Env, aims: bool = False) -> Ptr:
        """The pointer ``node`` gives; into one array unless ``aims`` (the caller handles a
        pointer that moves between arrays, ``c_pointers.Aim``)."""
        v = self.expr(node, b, env)
        if not isinstance(v, Ptr):
            raise self.fail(node, "a pointer or array is expected here")
        return v if aims else self.plain(v, node, b)

    def expr(self, node: c_ast.Node, b: Builder, env: Env) -> Operand:
        b.loc = self.loc(node)
        if self.evaluated_once and id(node) in self.evaluated_once:  # (a call in a target: stepped_once)
            return self.evaluated_once[id(node)]
        if isinstance(node, c_ast.Constant):
            return self.constant(node, b)
        if isinstance(node, c_ast.ID):
            return self.name(node, b, env)
        if isinstance(node, c_ast.StructRef) and self.is_thread_builtin(node):
            return self.thread_builtin(node, b)
        if isinstance(node, c_ast.StructRef):
            member = self.call_member(node, b, env)  # vsub(a, b).x
            if member is not None:
                return member
            var = self.as_variable(node)  # a member of a struct variable: a variable (c_records)
            if var is not node:
                return self.expr(var, b, env)
        if isinstance(node, c_ast.ArrayRef) and self.table_of(node.name) is not None:
            return self.table_row(self.table_of(node.name), node.subscript, b, env)  # rows[k] of double *rows[]
        if isinstance(node, (c_ast.ArrayRef, c_ast.StructRef)):
            member = self.member_array(node, b, env)
            if member is not None:
                return member
            p, idx = self.access(node, b, env)
            if isinstance(p, Ptr):  # through a pointer that moves between arrays
                v = self.load_through(p, idx, self.at(b, node))  # type: ignore[arg-type]
            elif len(idx) < p.type.rank:  # type: ignore[attr-defined]
                return self.rows(p, idx, self.at(b, node))  # A[i] of double A[n][m]: a row
            else:
                v = self.at(b, node).op1("load", [p, *idx], p.type.elem)  # type: ignore[attr-defined]
            held = int_member(idx[0])
            return v if held is None else self.convert(v, value_type(CType("scalar", held, "")), self.at(b, node))
        if isinstance(node, c_ast.UnaryOp):
            return self.unary(node, b, env)
        if isinstance(node, c_ast.BinaryOp):
            return self.binary(node, b, env)
        if isinstance(node, c_ast.Assignment):
            return self.assignment(node, b, env)
        if isinstance(node, c_ast.TernaryOp):
            return self.ternary(node, b, env)
        if isinstance(node, c_ast.Cast):
            return self.cast(node, b, env)
        if isinstance(node, c_ast.FuncCall):
            v = self.call(node, b, env, want_value=True)
            assert v is not None
            return v
        if isinstance(node, c_ast.ExprList):
            out: Optional[Operand] = None
            for e in node.exprs:
                out = self.expr(e, b, env)
            assert out is not None
            return out
        raise self.fail(node, f"this expression is not supported ({type(node).__name__})")

    # -- leaves ---------------------------------------------------------------------------------
    def constant(self, node: c_ast.Constant, b: Builder) -> Value:
        text = node.value
        if "float" in node.type or "double" in node.type:  # 2.0f, 2.0
            if text[-1] in "lL":
                raise self.fail(node, "long double constants are not supported: s2sad computes in double, and "
                                "the gradient would be of another, less precise program",
                                f"write the constant as a double ({text[:-1]})")
            t = F32 if text[-1] in "fF" else F64
            digits = text.rstrip("fF")
            try:
                value = float.fromhex(digits) if digits[:2].lower() == "0x" else float(digits)
            except OverflowError:  # 0x1p99999: past the largest double, infinity, as 1e400 is
                value = math.inf
            # 0.1f is the float nearest 0.1 (0.100000001490116...), in a double expression too
            return build.const(b, as_float32(value) if t == F32 else value, t)
        if node.type == "char":
            body = text[1:-1]
            return build.const(b, ord(body.encode().decode("unicode_escape")), I64)
        if "int" in node.type or "long" in node.type:
            digits = text.rstrip("uUlL")
            prefix = digits[:2].lower()
            octal = digits.startswith("0") and len(digits) > 1
            base = 16 if prefix == "0x" else 2 if prefix == "0b" else 8 if octal else 10
            value = int(digits, base)
            if value >= 2**64:
                raise self.fail(node, "this integer constant is too large for any C integer type",
                                "write it as a floating-point constant (1e30) if a number that large is meant")
            if value >= 2**63:  # unsigned in C (or of no type, for a decimal one): s2sad's integers are signed
                raise self.fail(node, "this integer constant is past the largest long (2^63 - 1); s2sad computes "
                                "integers as 64-bit signed numbers",
                                "write it as a floating-point constant (1e19) if a number that large is meant")
            return build.const(b, value, I64)
        raise self.fail(node, f"{node.type} literals are not supported")

    def name(self, node: c_ast.ID, b: Builder, env: Env) -> Operand:
        key = self.lookup(node.name)
        if key is None:
            value = self.named_constant(node, b)
            if value is None:
                raise self.fail(node, f"'{node.name}' is not declared")
            return value
        if self.is_moving(key):  # a pointer that moves between arrays (c_pointers)
            return self.aim_of(key, env, node)
        v = env.get(key)
        if self.ctypes[key].kind == "record" and not isinstance(v, Poison):
            raise self.record_value_error(node, self.ctypes[key])
        if isinstance(v, Poison) or v is None:
            message = v.message if isinstance(v, Poison) and v.message else (
                f"'{node.name}' is used before it is given a value")
            if isinstance(v, Poison) and not v.message:
                raise Fail(None)
            raise self.fail(node, message, v.hint if isinstance(v, Poison) else "initialize it where it is declared")
        if self.is_cell(key):  # a variable whose address is taken (c_pointers)
            return self.read_cell(v, self.at(b, node))
        if isinstance(v.type, ArrayType):
            off = env.get(key + "@")
            return Ptr(v, off if isinstance(off, Value) else None, self.ctypes[key].layout)
        return v

    def element(self, node: c_ast.Node, b: Builder, env: Env) -> tuple[Value, list[Value]]:
        """The array and index list of one element: ``a[i]``, ``A[i][j]``, ``p[i]`` (offset
        pointer) or a struct member (``bodies[i].pos[c]``, ``p->k``: one ``field`` index)."""
        arr, idx = self.access(node, b, env)
        rank = arr.rank if isinstance(arr, Ptr) else arr.type.rank  # type: ignore[attr-defined]
        if len(idx) < rank:
            base, _ = split_subscripts(node)
            raise self.fail(node, f"'{node_text(node)}' is a row of '{node_text(base)}', not one element",
                            each_dimension(base, rank))
        return arr, idx

    def rows(self, arr: Value, idx: list[Value], b: Builder) -> Ptr:
        """``A[i]`` (``T[i][j]``...) of an array with more dimensions than subscripts: the
        sub-array they name, one row ``view`` per subscript."""
        for i in idx:
            t = arr.type
            arr = b.op1("view", [arr, i], ArrayType(t.elem, t.rank - 1))  # type: ignore[attr-defined]
        return Ptr(arr)

    def access(self, node: c_ast.Node, b: Builder, env: Env) -> tuple[Value, list[Value]]:
        """``element``, where ``A[i]`` may also name a row of a 2-D array (fewer subscripts
        than dimensions; never more)."""
        cell = self.cell_access(node, b, env)
        if cell is not None:
            return cell
        if self.is_struct_access(node, env):
            pl = self.place(node, b, env)
            if pl.dims or pl.sub is not None:
                what = "an array member" if pl.dims else "a whole struct"
                raise self.fail(node, f"{what} is used as a number",
                                "s2sad reads and writes struct members one number at a time")
            if pl.aim is not None:  # read or written by dispatch, in the array the pointer holds
                return replace(pl.aim, off=None), [self.field_index(pl, self.at(b, node))]  # type: ignore
            return pl.base, [self.field_index(pl, self.at(b, node))]
        assert isinstance(node, c_ast.ArrayRef)
        base, subs = split_subscripts(node)
        table = self.table_of(base)
        if table is not None:  # rows[k][j] of double *rows[]: element j of the k-th array
            p = self.table_row(table, subs[0], b, env)
            base, subs = c_ast.ArrayRef(base, subs[0], coord=node.coord), subs[1:]
        else:
            p = self.pointer(base, b, env, aims=True)
        if not self.is_aim(p):
            p = self.plain(p, base, b)
        rank = p.rank if self.is_aim(p) else p.base.type.rank  # type: ignore[attr-defined]
        if len(subs) > rank:
            raise self.fail(node, f"'{node_text(base)}' has {rank} dimension(s), indexed with {len(subs)}",
                            "index a flat pointer once: a[i * m + j]" if rank == 1 else each_dimension(base, rank))
        if self.is_aim(p) and len(subs) < rank:
            raise self.fail(node, f"a row of '{node_text(base)}', which points at a different array depending on the "
                            "branch taken or the iteration, is not supported", each_dimension(base, rank))
        idx = [self.integer(s, b, env, "an index") for s in subs]
        if p.off is not None:
            idx[0] = build.add(self.at(b, node), p.off, idx[0])
        if self.is_aim(p):
            return p, idx  # type: ignore[return-value]  # its element p[idx[0]], read or written by dispatch
        return p.base, idx

    # -- CUDA ----------------------------------------------------------------------------------
    def is_thread_builtin(self, node: c_ast.StructRef) -> bool:
        """``threadIdx.x`` and friends in a .cu file, unless the user declared a name like them."""
        builtin = (node.type == "." and isinstance(node.name, c_ast.ID)
                   and node.name.name in OP_OF_VECTOR and self.lookup(node.name.name) is None)
        if builtin and not self.cuda:
            raise self.fail(node, f"'{node.name.name}' is a CUDA built-in, and this is a C file",  # type: ignore
                            "give the file the suffix .cu to differentiate it as a CUDA kernel")
        return builtin

    def thread_builtin(self, node: c_ast.StructRef, b: Builder) -> Value:
        axis = node.field.name
        vector = node.name.name  # type: ignore[attr-defined]
        if axis not in GPU_AXES:
            raise self.fail(node, f"'{vector}' has members x, y and z, not '{axis}'")
        return self.at(b, node).op1(OP_OF_VECTOR[vector], [], I64, "", axis=axis)

    # -- structs ---------------------------------------------------------------------------------
    def is_struct_access(self, node: c_ast.Node, env: Env) -> bool:
        """Whether ``node`` names a struct or a member (``p->k``, ``bodies[i]``, ``bodies[i].pos[c]``)."""
        if isinstance(node, c_ast.StructRef):
            return self.record_member(node) is None
        if isinstance(node, c_ast.ArrayRef):
            inner: c_ast.Node = node
            while isinstance(inner, c_ast.ArrayRef):
                inner = inner.name
            if isinstance(inner, c_ast.StructRef):
                return self.record_member(inner) is None
            return self.struct_pointer(node.name, env)
        return False

    def struct_pointer(self, node: c_ast.Node, env: Env) -> bool:
        """Whether ``node`` is a pointer to structs, as far as its spelling shows (``p``, ``p + i``)."""
        if isinstance(node, c_ast.ID):
            key = self.lookup(node.name)
            return key is not None and self.ctypes[key].layout is not None
        if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-"):
            return self.struct_pointer(node.left, env) or self.struct_pointer(node.right, env)
        if isinstance(node, c_ast.Cast):
            return self.struct_pointer(node.expr, env)
        return False

    def place(self, node: c_ast.Node, b: Builder, env: Env) -> Place:
        """Where a struct access points (see ``Place``)."""
        if isinstance(node, c_ast.ID) and self.lookup(node.name) in self.struct_runs:
            key = self.lookup(node.name)  # sa of a struct held in memory: sa.x is (&sa)->x
            return self.whole(self.struct_address(key, env), b)  # type: ignore[arg-type]
        if isinstance(node, c_ast.StructRef):
            held = self.member_place(node.name) if node.type == "->" else None
            if held is not None:  # L->w of Layer *L = &net->layers[l]
                whole = held
            elif node.type == "->":
                p = self.struct_aim(node.name, b, env)
                if p.layout is None:
                    raise self.fail(node, "'->' needs a pointer to a struct")
                whole = self.whole(p, b)
            else:
                whole = self.place(node.name, b, env)
            return self.member(whole, node.field.name, node)
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            held = self.member_place(node.expr)
            if held is not None:  # (*L).w
                return held
            p = self.struct_aim(node.expr, b, env)
            if p.layout is None:
                raise self.fail(node, "'.' needs a struct")
            return self.whole(p, b)
        if isinstance(node, c_ast.ArrayRef):
            if self.is_struct_access(node.name, env):
                return self.subscript(self.place(node.name, b, env), node, b, env)
            p = self.struct_aim(node.name, b, env)
            if p.layout is None:
                raise self.fail(node, "'.' needs a struct")
            i = self.integer(node.subscript, b, env, "an index")
            return self.whole(replace(p, off=i if p.off is None else build.add(self.at(b, node), p.off, i)), b)
        if isinstance(node, c_ast.FuncCall):  # vsub(a, b).x
            raise self.fail(node, "the member of a struct a call returns is read from a variable",
                            f"assign the struct to a variable first: t = {node_text(node)};, then read t's member")
        raise self.fail(node, "'.' needs a struct")

    def pointer_into_member(self, d: c_ast.Decl, t: CType, b: Builder, env: Env) -> bool:
        """``const Layer *L = &net->layers[l];``: a pointer to a struct that is a member of another
        (or an element of an array member). Its members are that struct's: ``L->w[k]`` is
        ``net->layers[l].w[k]``, the place taken where L is declared (with l's value then, as C's
        pointer holds the address). Used otherwise (passed on, moved, compared), L is refused where
        it is used. False where ``d`` is no such pointer."""
        source = d.init.expr if isinstance(d.init, c_ast.Cast) else d.init
        pl = self.struct_in_member(source, b, env) if source is not None else None
        if pl is None or t.layout is None or pl.sub != t.layout:
            return False
        held = self.lookup(source.name) if isinstance(source, c_ast.ID) else None
        member = self.member_places[held][1] if held is not None else node_text(source.expr)  # (M = L: L's)
        key = self.declare(d.name, t, d)
        self.member_places[key] = (pl, member)
        env[key] = Poison(f"'{d.name}' points at the struct {member}, whose members are read and written through "
                          f"it ({d.name}->...); it is not supported as a pointer value",
                          f"use {member} itself here, or pass what it is a member of and its index")
        return True

    def struct_in_member(self, node: c_ast.Node, b: Builder, env: Env) -> Optional[Place]:
        """The struct a pointer ``node`` points at where it is a member of another, or an element
        of an array member: ``&net->layers[l]``, or a ``pointer_into_member`` (None for any other
        pointer: ``&bodies[i]``, a struct of the run itself, is an ordinary pointer to structs)."""
        held = self.member_place(node)
        if held is not None:
            return held
        inner = node.expr if isinstance(node, c_ast.UnaryOp) and node.op == "&" else None
        member = inner
        while isinstance(member, c_ast.ArrayRef):
            member = member.name
        if not isinstance(member, c_ast.StructRef) or not self.is_struct_access(inner, env) or any(
                isinstance(n, (c_ast.FuncCall, c_ast.Assignment)) or isinstance(n, c_ast.UnaryOp) and n.op in INCREMENTS
                for n in walk(inner)):
            return None  # (what it names is asked of an expression without effects: it is lowered twice)
        scratch = Block()  # what it names, on a block thrown away after: the caller lowers it otherwise
        probe = self.place(inner, Builder(scratch, b.loc), env)
        for op in reversed(scratch.ops):
            op.erase()
        if not probe.path or probe.sub is None or probe.dims:
            return None
        return self.place(inner, b, env)

    def member_place(self, node: c_ast.Node) -> Optional[Place]:
        """The struct ``node`` points at where it is a ``pointer_into_member``."""
        key = self.lookup(node.name) if isinstance(node, c_ast.ID) else None
        return self.member_places[key][0] if key in self.member_places else None

    def struct_aim(self, node: c_ast.Node, b: Builder, env: Env) -> Ptr:
        """The pointer to structs ``node`` gives: into one array, or one that moves between arrays of
        them (``Aim``), whose members ``place`` reaches in whichever array it holds."""
        p = self.pointer(node, b, env, aims=True)
        return p if self.is_aim(p) and p.layout is not None else self.plain(p, node, b)

    def struct_address(self, key: str, env: Env) -> Ptr:
        """``&sa`` of a struct held in memory (``c_lower.struct_run``): a pointer to its one struct."""
        arr = env.get(key)
        if not isinstance(arr, Value):
            raise Fail(None)  # its declaration, or a statement that changed it, failed and said so
        return Ptr(arr, None, self.ctypes[key].layout)

    def whole(self, p: Ptr, b: Builder) -> Place:
        """The struct ``*p``."""
        i = p.off if p.off is not None else build.const(b, 0, I64)
        assert p.layout is not None
        return Place(p.base, p.layout, (i,), (p.layout.size,), 0, "", (), p.layout,
                     aim=p if self.is_aim(p) else None)

    def member(self, pl: Place, name: str, node: c_ast.StructRef) -> Place:
        """``pl.name``."""
        if pl.sub is None or pl.dims:
            raise self.fail(node, f"'{node_text(node.name)}' is not a struct")
        f = pl.sub.field(name)
        if f is None:
            members = ", ".join(m.name for m in pl.sub.fields)
            raise self.fail(node.field, f"{pl.sub.name} has no member '{name}'", f"its members: {members}")
        return Place(pl.base, pl.layout, pl.operands, pl.coefs, pl.offset + f.offset, f"{pl.path}.{name}",
                     f.dims, f.sub, f.int_type, pl.aim)

    def subscript(self, pl: Place, node: c_ast.ArrayRef, b: Builder, env: Env) -> Place:
        """``pl[i]`` for an array member."""
        if not pl.dims:
            raise self.fail(node, f"'{node_text(node.name)}' is not an array")
        stride = pl.elem_size
        for n in pl.dims[1:]:
            stride *= n
        i = self.integer(node.subscript, b, env, "an index")
        return Place(pl.base, pl.layout, (*pl.operands, i), (*pl.coefs, stride), pl.offset, pl.path + "[]",
                     pl.dims[1:], pl.sub, pl.int_type, pl.aim)

    def member_array(self, node: c_ast.Node, b: Builder, env: Env) -> Optional[Ptr]:
        """An array member used as a value, ``cam->r`` (or a row of one, ``s->m[i]``): as in C,
        a pointer to its first number, into the run of numbers the structs are made of."""
        if not self.is_struct_access(node, env):
            return None
        pl = self.place(node, b, env)
        if pl.sub is None and len(pl.dims) > 1:
            text = node_text(node)
            name = node.field.name if isinstance(node, c_ast.StructRef) else "rows"
            raise self.fail(node, f"'{text}' has {len(pl.dims)} dimensions, and s2sad holds these {pl.layout.name} "
                            "structs as one run of numbers, which has no rows to point at",
                            f"index it, {text}{''.join(f'[{k}]' for k in 'ijkl'[:len(pl.dims)])}, or pass it to a "
                            f"function of this file that takes its rows, double {name}"
                            f"{''.join(f'[{n}]' for n in pl.dims)}")
        if pl.sub is not None or len(pl.dims) != 1:
            return None  # a number (read by access) or what access refuses
        return pl.at(self.field_index(self.first(pl, b), self.at(b, node)))

    def member_rows(self, node: c_ast.Node, t: CType, callee: str, b: Builder, env: Env,
                    after: list[Callable[[Builder], None]]) -> Optional[Value]:
        """A member of two or more dimensions of a struct in memory (``det(s->P)``, ``scale(bs[k].R,
        a)`` of a ``double P[3][3]``; a 2-D slice ``s->T[i]`` of a 3-D one) passed to a function
        of the file that takes rows (``const double P[3][3]``, ``double (*P)[3]``): the IR holds
        the structs as one run of numbers, which has no rows, so the callee is given an array of
        its own, filled from the member before the call and, where it may write it (no
        ``const``), stored back into the member after it: C's meaning as long as the callee
        reaches the member through this argument only (``user_call_values`` refuses another
        argument into the same structs). None for any other argument."""
        rank = t.ir_array.rank
        if rank < 2 or t.layout is not None or not self.is_struct_access(node, env):
            return None
        pl = self.place(node, b, env)
        if pl.sub is not None or len(pl.dims) != rank or pl.int_type is not None or pl.layout.elem != t.scalar:
            return None  # not rows of numbers of the parameter's type: said where pointer() reads it
        if pl.aim is not None:
            raise self.fail(node, f"'{node_text(node)}' is reached through a pointer that moves between arrays of "
                            f"structs, and '{callee}' takes it as rows", f"copy it into a local array, double "
                            f"tmp{''.join(f'[{n}]' for n in pl.dims)}, and pass that")
        at = self.at(b, node)
        strides = [math.prod(pl.dims[k + 1:]) * pl.elem_size for k in range(rank)]
        hint = f"{node.field.name if isinstance(node, c_ast.StructRef) else 'rows'}_{callee}"  # P_det, d_P_det
        rows = at.op1("alloc", [build.const(at, n, I64) for n in pl.dims], t.ir_array, hint, fill="empty",
                      elem=pl.layout.elem.name)

        def element(bb: Builder, index: list[Value]) -> Value:
            return bb.op1("field", [*pl.operands, *index], I64, "", struct=pl.layout.name,
                          path=pl.path + "[]" * rank, coefs=[*pl.coefs, *strides], offset=pl.offset)

        def copy_in(bb: Builder, index: list[Value]) -> None:
            bb.create("store", [rows, *index, bb.op1("load", [pl.base, element(bb, index)], pl.layout.elem)], [])

        def copy_out(bb: Builder, index: list[Value]) -> None:
            bb.create("store", [pl.base, element(bb, index), bb.op1("load", [rows, *index], pl.layout.elem)], [])

        dims = [build.const(at, n, I64) for n in pl.dims]
        element_loops(at, dims, copy_in)
        if "const" not in re.split(r"[(\[*]", t.spelling, maxsplit=1)[0].split():
            after.append(lambda bb: element_loops(self.at(bb, node), dims, copy_out))
        return rows

    @staticmethod
    def first(pl: Place, b: Builder) -> Place:
        """``pl[0]`` of a 1-D array member: its subscript written out, so output spells ``&cam->r[0]``."""
        zero = build.const(b, 0, I64)
        return Place(pl.base, pl.layout, (*pl.operands, zero), (*pl.coefs, pl.elem_size), pl.offset,
                     pl.path + "[]", (), pl.sub, pl.int_type, pl.aim)

    @staticmethod
    def field_index(pl: Place, b: Builder) -> Value:
        """The element ``pl`` names, as a ``field`` op (which keeps the path for output, and, for
        an integer member, its type: ``int_member``, see ``int_member``)."""
        attrs = {"int_member": pl.int_type.name} if pl.int_type is not None else {}
        return b.op1("field", list(pl.operands), I64, "", struct=pl.layout.name, path=pl.path,
                     coefs=list(pl.coefs), offset=pl.offset, **attrs)

    # -- operators -------------------------------------------------------------------------------
    def unary(self, node: c_ast.UnaryOp, b: Builder, env: Env) -> Operand:
        op = node.op
        if op in INCREMENTS:
            return self.increment(node, b, env)
        if op == "sizeof":
            try:
                return build.const(self.at(b, node), self.size_of(node.expr), I64)
            except Fail:
                runtime = self.array_bytes(node.expr, b, env)
                if runtime is None:
                    raise
                return runtime
        if op == "&":
            member = self.member_address(node.expr, b, env)
            if member is not None:
                return member
            if self.is_struct_access(node.expr, env):
                pl = self.place(node.expr, b, env)
                if not pl.path and len(pl.operands) == 1:  # &bodies[i]: a pointer to structs
                    return pl.at(pl.operands[0], pl.layout)
                if pl.sub is None and not pl.dims:  # &p->x, &b->pos[c]: into the run of numbers
                    return pl.at(self.field_index(pl, self.at(b, node)))
                if pl.sub is None and len(pl.dims) == 1:  # &p->pos: the array's first number
                    return pl.at(self.field_index(self.first(pl, b), self.at(b, node)))
                raise self.fail(node, "the address of a struct member that is a struct or a 2-D array "
                                "is not supported",
                                "pass the struct's address (&bodies[i]) and read the member in the callee, "
                                "or pass one row: &p->m[i][0]")
            if isinstance(node.expr, c_ast.ArrayRef):
                arr, idx = self.element(node.expr, b, env)
                if isinstance(arr, Ptr):  # &p[i] of a moving pointer
                    return replace(arr, off=idx[0])
                if len(idx) > 1:  # &A[i][j]: into the row A[i]
                    return Ptr(self.rows(arr, idx[:-1], self.at(b, node)).base, idx[-1])
                return Ptr(arr, idx[0])
            if isinstance(node.expr, c_ast.ID) and self.lookup(node.expr.name) in self.struct_runs:
                return self.struct_address(self.lookup(node.expr.name), env)  # type: ignore[arg-type]
            if isinstance(node.expr, c_ast.ID) and self.is_cell(key := self.lookup(node.expr.name)):
                cell = env.get(key)  # type: ignore[arg-type]
                if not isinstance(cell, Value):
                    raise Fail(None)
                return self.cell_address(cell)
            record = self.record_variable(node.expr)
            if record is not None and record[1].record is not None and not record[1].indirect:
                name, struct = record[0], record[1].record.name  # &p of a struct s2sad holds as its members
                raise self.fail(node, f"taking the address of the {struct} '{name}' is supported where it is "
                                f"passed to a function of this file or sets a pointer to {struct}",
                                f"pass &{name} to a function of this file that takes a {struct} *, or declare "
                                f"{struct} *q = &{name}; and use q->member")
            if isinstance(node.expr, c_ast.ID) and self.lookup(node.expr.name) is not None:
                name = node.expr.name  # &p of a pointer, &a of an array: a pointer to a pointer or to an array
                raise self.fail(node, f"taking the address of the {self.ctypes[self.lookup(name)].kind} '{name}' "
                                "is not supported", f"pass '{name}' itself, or the address of one element: "
                                f"&{name}[i]")
            if isinstance(node.expr, c_ast.ID) and node.expr.name in getattr(self.ctx, "globals", {}):
                name = node.expr.name
                decl_type = getattr(self.ctx.globals[name].type, "type", None)
                spelled = " ".join(getattr(decl_type, "names", None) or ["double"])
                raise self.fail(node, f"taking the address of the global variable '{name}' is not supported: s2sad "
                                "reads global variables, and whoever has the address may write it",
                                f"copy it to a local first ({spelled} {name}_local = {name};) and pass &{name}_local")
            raise self.fail(node, "taking the address of this expression is not supported",
                            "take the address of a variable or an array element: &m, &x[i]")
        if op == "*":
            p = self.pointer(node.expr, b, env, aims=True)
            if self.is_aim(p) and p.rank == 1:  # type: ignore[attr-defined]
                return self.load_through(p, [p.off or build.const(b, 0, I64)], self.at(b, node))  # type: ignore
            if self.is_aim(p):
                raise self.fail(node, f"a row of '{node_text(node.expr)}', which points at a different array "
                                "depending on the branch taken or the iteration, is not supported",
                                "index it: p[i][j]")
            if p.base.type.rank > 1:  # type: ignore[attr-defined]  # *A, *(A + i): a row
                return self.rows(p.base, [p.off if p.off is not None else build.const(b, 0, I64)], self.at(b, node))
            if p.layout is not None:
                raise self.fail(node, f"a whole {p.layout.name} is used as a value",
                                "s2sad reads and writes struct members one number at a time: p->member")
            off = p.off if p.off is not None else build.const(self.at(b, node), 0, I64)
            return self.at(b, node).op1("load", [p.base, off], p.elem)
        if op == "!":
            operand = self.expr(node.expr, b, env)
            return b.op1("not", [self.truth(operand, self.at(b, node), node.expr)], BOOL)  # type: ignore[arg-type]
        v = self.scalar(node.expr, b, env)
        b = self.at(b, node)
        if op == "-":
            return build.neg(b, self.number(v, b))
        if op == "+":
            return self.number(v, b)
        if op == "!":
            return b.op1("not", [self.truth(v, b, node)], BOOL)
        if op == "~":
            x = self.number(v, b)
            if not x.type.is_int:
                raise self.fail(node, "'~' needs an integer operand")
            return b.op1("bitnot", [self.convert(x, I64, b)], I64)
        raise self.fail(node, f"the operator '{op}' is not supported")

    def binary(self, node: c_ast.BinaryOp, b: Builder, env: Env) -> Operand:
        op = node.op
        if op in ("&&", "||"):
            return self.logical(node, b, env)
        x = self.expr(node.left, b, env)
        y = self.expr(node.right, b, env)
        for side, v, other in ((node.left, x, y), (node.right, y, x)):
            if isinstance(v, Ptr) and isinstance(side, c_ast.ArrayRef) and isinstance(other, Value) \
                    and not other.type.is_int and other.type != BOOL:
                raise self.not_a_number(side, v, env)  # a[0] + x[0] with a row a[0]
        if isinstance(x, Ptr) or isinstance(y, Ptr):
            return self.pointer_arith(node, x, y, b)
        return self.arith(op, x, y, self.at(b, node), node)

    def arith(self, op: str, x: Value, y: Value, b: Builder, node: c_ast.Node) -> Value:
        x, y = self.number(x, b), self.number(y, b)
        t = arith_type(x.type, y.type)
        x, y = self.convert(x, t, b), self.convert(y, t, b)
        if op in _COMPARE:
            return build.cmp(b, _COMPARE[op], x, y)
        if op in _BITS:
            return self.bitwise(op, x, y, b, node)
        if op not in _ARITH:
            raise self.fail(node, f"the operator '{op}' is not supported")
        if op == "%" and t.is_float:
            raise self.fail(node, "'%' needs integer operands", "use fmod for floating-point remainders")
        return build.binary(b, _ARITH[op], x, y)

    def bitwise(self, op: str, x: Value, y: Value, b: Builder, node: c_ast.Node) -> Value:
        """``x & y``, ``x | y``, ``x ^ y``, ``x << y``, ``x >> y`` on integers. A shift by a
        constant ``k`` and a mask of low bits ``x & (2^k - 1)`` stay the arithmetic they compute
        (``x // 2^k``, ``x * 2^k``, ``x mod 2^k``, floored as C's two's-complement shifts and
        masks are), which the index analyses read; the rest are bit ops of their own."""
        if not (x.type.is_int and y.type.is_int):
            raise self.fail(node, f"'{op}' needs integer operands")
        k = build.const_int(y)
        if op in ("<<", ">>") and k is not None and 0 <= k < 63:
            factor = build.const(b, 1 << k, I64)
            return build.mul(b, x, factor) if op == "<<" else build.binary(b, "floordiv", x, factor)
        if op == "&" and k is not None and k > 0 and k & (k + 1) == 0:
            return build.binary(b, "mod", x, build.const(b, k + 1, I64))
        return b.op1(_BITS[op], [x, y], I64)

    def never_null(self, p: Ptr, node: c_ast.Node) -> bool:
        """True for a pointer into memory the function allocated (``malloc``, a local array): s2sad
        reads allocations as succeeding, as the gradient's own do, so ``if (!w)`` and ``w == NULL``
        are false there. A pointer parameter may be NULL, which no gradient can know: a test of it is
        a located error."""
        roots = []
        for arr in self.arrays_of(p):
            while arr.defining_op is not None and arr.defining_op.name == "view":
                arr = arr.defining_op.operands[0]
            roots.append(arr)
        if all(r.defining_op is not None and r.defining_op.name == "alloc" for r in roots):
            return True
        raise self.fail(node, "testing a pointer parameter for NULL is not supported: the gradient is for the "
                        "arrays a caller passes", "call the function with arrays, and test an integer flag for an "
                        "optional one")

    def pointer_arith(self, node: c_ast.BinaryOp, x: Operand, y: Operand, b: Builder) -> Operand:
        b = self.at(b, node)
        op = node.op
        for p, other in ((x, y), (y, x)):  # p == NULL, p != 0
            if isinstance(p, Ptr) and isinstance(other, Value) and op in ("==", "!=") and other.type.is_int \
                    and build.const_value(other) == 0:
                return build.const(b, self.never_null(p, node) == (op == "!="), BOOL)

        def offset(p: Ptr) -> Value:
            return p.off if p.off is not None else build.const(b, 0, I64)

        if isinstance(x, Ptr) and isinstance(y, Ptr):
            if (self.is_aim(x) or self.is_aim(y)) and op in ("==", "!="):
                same = self.same_place(x, y, b)
                return same if op == "==" else b.op1("not", [same], BOOL)
            if self.is_aim(x) or self.is_aim(y):
                raise self.fail(node, f"'{op}' of a pointer that points at different arrays depending on the branch "
                                "or the iteration is not supported", "compare them with == or !=, or compare indices")
            if x.base is not y.base:
                raise self.fail(node, "pointers into different arrays cannot be compared or subtracted")
            if op == "-":
                return build.sub(b, offset(x), offset(y))
            if op in _COMPARE:
                return build.cmp(b, _COMPARE[op], offset(x), offset(y))
            raise self.fail(node, f"'{op}' on two pointers is not supported")
        if op not in ("+", "-"):
            raise self.fail(node, f"'{op}' with a pointer is not supported")
        p, n = (x, y) if isinstance(x, Ptr) else (y, x)
        if isinstance(y, Ptr) and op == "-":
            raise self.fail(node, "a number minus a pointer is not meaningful")
        assert isinstance(p, Ptr) and isinstance(n, Value)
        if not (n.type.is_int or n.type == BOOL):
            raise self.fail(node, "pointer arithmetic needs an integer")
        n = self.convert(n, I64, b)  # A + i of a 2-D array counts rows
        step = n if op == "+" else build.neg(b, n)
        return replace(p, off=build.add(b, offset(p), step) if p.off is not None else step)

    def logical(self, node: c_ast.BinaryOp, b: Builder, env: Env) -> Value:
        x = self.condition(node.left, b, env)
        b = self.at(b, node)
        if self.is_simple(node.right):
            y = self.condition(node.right, b, env)
            return b.op1("and" if node.op == "&&" else "or", [x, y], BOOL)
        right: Callable[[Builder, Env], Value] = lambda bb, e: self.condition(node.right, bb, e)  # noqa: E731
        const: Callable[[Builder, Env], Value] = lambda bb, e: build.const(bb, node.op == "||", BOOL)  # noqa: E731
        if node.op == "&&":
            return self.if_value(b, node, x, right, const, env, [node.right])
        return self.if_value(b, node, x, const, right, env, [node.right])

    def ternary(self, node: c_ast.TernaryOp, b: Builder, env: Env) -> Value:
        c = self.condition(node.cond, b, env)
        if self.is_simple(node.iftrue) and self.is_simple(node.iffalse):
            x, y = self.scalar(node.iftrue, b, env), self.scalar(node.iffalse, b, env)
            b = self.at(b, node)
            x, y = self.number(x, b), self.number(y, b)
            t = arith_type(x.type, y.type)
            return build.select(b, c, self.convert(x, t, b), self.convert(y, t, b))
        return self.if_value(self.at(b, node), node, c, lambda bb, e: self.scalar(node.iftrue, bb, e),
                             lambda bb, e: self.scalar(node.iffalse, bb, e), env, [node.iftrue, node.iffalse])

    def if_value(self, b: Builder, node: c_ast.Node, cond: Value, then: Callable[[Builder, Env], Value],
                 other: Callable[[Builder, Env], Value], env: Env, sides: list[c_ast.Node]) -> Value:
        """``cond ? then : other`` as an ``if`` op: only the taken side is evaluated. The variables
        the ``sides`` assign (``res > tol && ++it < 500``: ``it``) are results of the ``if`` too,
        the values each side leaves (C skips the other's assignments)."""
        keys = self.skipped_assignments(sides)
        tb, eb = Block(), Block()
        tbb, ebb = Builder(tb, self.loc(node)), Builder(eb, self.loc(node))
        tenv, eenv = dict(env), dict(env)
        x, y = self.number(then(tbb, tenv), tbb), self.number(other(ebb, eenv), ebb)
        t = arith_type(x.type, y.type) if (x.type, y.type) != (BOOL, BOOL) else BOOL
        x, y = self.convert(x, t, tbb), self.convert(y, t, ebb)
        self.at(tbb, node).create("yield", [x, *(tenv[k] for k in keys)], [])
        self.at(ebb, node).create("yield", [y, *(eenv[k] for k in keys)], [])
        op = self.at(b, node).create("if", [cond], [t, *(env[k].type for k in keys)], regions=[tb, eb],
                                     hints=["", *(self.hint(k) for k in keys)])
        env.update(zip(keys, op.results[1:]))
        return op.results[0]

    def skipped_assignments(self, sides: list[c_ast.Node]) -> list[str]:
        """The keys of the variables that ``sides`` (of ``&&``, ``||``, ``?:``) assign, each an SSA
        value of ``env``; an assignment to anything else but an array's element is refused."""
        keys: list[str] = []
        for n in (n for side in sides for n in walk(side)):
            if isinstance(n, c_ast.Assignment):
                target = n.lvalue
            elif isinstance(n, c_ast.UnaryOp) and n.op in INCREMENTS:
                target = n.expr
            else:
                continue
            if isinstance(target, (c_ast.ArrayRef, c_ast.UnaryOp)):
                continue  # (memory: stored inside the branch that runs)
            key = self.lookup(target.name) if isinstance(target, c_ast.ID) else None
            if key is None or self.is_cell(key) or self.ctypes[key].kind != "scalar":
                raise self.fail(n, "this assignment is not supported where C may skip it (after && or ||, or "
                                "in an arm of ?:)", "assign in a separate statement")
            if key not in keys:
                keys.append(key)
        return keys

    def cast(self, node: c_ast.Cast, b: Builder, env: Env) -> Operand:
        t = self.declared_type(node.to_type.type, node)
        v = self.expr(node.expr, b, env)
        if t.kind == "pointer":
            if not isinstance(v, Ptr) or v.elem != t.scalar or v.layout != t.layout:
                raise self.fail(node, "pointer casts that change the element type are not supported")
            return v
        if isinstance(v, Ptr):
            raise self.fail(node, "casting a pointer to a number is not supported")
        if t.kind == "void":
            return v
        assert t.scalar is not None
        b = self.at(b, node)
        return self.convert(self.number(v, b), I64 if t.scalar.is_int else t.scalar, b)

    # -- assignment and increments -------------------------------------------------------------
    def struct_in_run(self, node: c_ast.Node) -> Optional[str]:
        """The struct type of ``*p`` or ``p[i]`` where ``p`` points into a run of structs of numbers
        (``pv *b``, ``Body bodies[]``); None for anything else."""
        base = node.expr if isinstance(node, c_ast.UnaryOp) and node.op == "*" else \
            node.name if isinstance(node, c_ast.ArrayRef) else None
        key = self.lookup(base.name) if isinstance(base, c_ast.ID) else None
        t = self.ctypes.get(key) if key is not None else None
        return t.layout.name if t is not None and t.layout is not None and t.kind in ("pointer", "array") else None

    def assignment(self, node: c_ast.Assignment, b: Builder, env: Env) -> Operand:
        op = node.op
        if op != "=" and op not in _COMPOUND:
            raise self.fail(node, f"the assignment operator '{op}' is not supported")
        self.check_not_const(node.lvalue)
        target = self.as_variable(node.lvalue)
        if op == "=":
            whole = self.record_variable(target)
            pointed = self.record_variable(_pointee(target))
            if whole is None and pointed is not None and pointed[1].indirect:
                whole = pointed  # *out = v of a pointer to one struct: member by member, through it
            why = self.read_only_leaves.get(self.lookup(whole[0]) or "") if whole is not None else None
            if why is not None:  # a pointer to one struct, or to an array of them, that s2sad holds fixed
                raise self.fail(node, f"'{whole[0]}' cannot be assigned: it {why}",  # type: ignore[index]
                                "declare a pointer of its own for each struct it would point at")
            if whole is not None:  # C = D: member by member
                self.copy_record(whole[0], whole[1], node.rvalue, b, env)
                return build.const(b, 0, I64)  # the value of `C = D` (s2sad reads no struct values)
            value_type = self.record_value_type(node.rvalue)
            element = self.run_element(target, value_type) if value_type is not None else None
            if element is not None:  # *out = v, out[i] = scale(a, 2.0) into a run of structs
                self.copy_into_element(element, value_type, node.rvalue, b, env)  # type: ignore[arg-type]
                return build.const(b, 0, I64)
            if isinstance(target, c_ast.ID) and self.is_pointer_var(target):
                return self.assign_pointer(target, node.rvalue, b, env)
            if isinstance(target, c_ast.ID) and self.lookup(target.name) in self.struct_runs:
                # sb = sa, sb = *cur of a struct held in memory: its bytes, as C copies a struct
                at = node.coord
                source = node.rvalue.expr if isinstance(node.rvalue, c_ast.UnaryOp) and node.rvalue.op == "*" \
                    else c_ast.UnaryOp("&", node.rvalue, coord=at)
                self.memory_call(node, "memcpy", [c_ast.UnaryOp("&", target, coord=at), source,  # type: ignore
                                                  c_ast.UnaryOp("sizeof", target, coord=at)], b, env, False)
                return build.const(b, 0, I64)  # the value of `sb = sa` (s2sad reads no struct values)
            if self.struct_in_run(node.lvalue) is not None \
                    and self.struct_in_run(node.lvalue) == self.struct_in_run(node.rvalue):
                # *b = *a, b[i] = a[j] of pointers to structs of numbers: its numbers, as C copies a struct
                at = node.coord
                address = [x.expr if isinstance(x, c_ast.UnaryOp) else c_ast.UnaryOp("&", x, coord=at)
                           for x in (node.lvalue, node.rvalue)]  # (b for *b, &b[i] for b[i])
                self.memory_call(node, "memcpy", [*address, c_ast.UnaryOp("sizeof", node.lvalue, coord=at)],  # type: ignore
                                 b, env, False)
                return build.const(b, 0, I64)  # the value of `*b = *a` (s2sad reads no struct values)
            value = self.expr(node.rvalue, b, env)
            if isinstance(value, Ptr) and target is not node.lvalue and isinstance(node.lvalue, c_ast.StructRef):
                raise self.fail(node, f"'{node_text(node.lvalue)}' cannot be pointed elsewhere: s2sad reads a pointer "
                                "member of an array of structs as the caller set it",
                                "set the pointer members before the call, or use a local pointer")
            if isinstance(value, Ptr):
                raise self.fail(node.rvalue, "a pointer cannot be stored here")
            return self.store(target, value, b, env, node)
        if isinstance(target, c_ast.ID) and self.is_pointer_var(target):
            step = self.integer(node.rvalue, b, env, "a pointer step")
            return self.move_pointer(target, step if op == "+=" else build.neg(self.at(b, node), step), b, env)
        with self.stepped_once(target, b, env):  # y[i++] += v: i steps once, after y[i] is updated
            cur = self.scalar(target, b, env)  # target reads are idempotent: loads or environment lookups
            rhs = self.scalar(node.rvalue, b, env)
            new = self.arith(_COMPOUND[op], cur, rhs, self.at(b, node), node)
            return self.store(target, new, b, env, node)

    @contextlib.contextmanager
    def stepped_once(self, target: c_ast.Node, b: Builder, env: Env) -> Iterator[None]:
        """While the body reads and then writes ``target`` (a compound assignment, an increment),
        what its subexpressions do happens once, as C evaluates an lvalue once, not once for the
        read and again for the write (``y[i++] += v`` updated y[i + 1] from y[i] and stepped i by
        two: a silently wrong primal and gradient). An increment or an assignment of a variable
        inside it (``y[i++]``, ``*q++``, ``y[++i]``, ``y[k += 1]``) is taken out: a prefix one and
        an assignment run first and the target reads the variable after, a postfix one runs after
        the store and the target reads it before. Any other step or assignment (``y[cnt[0]++]``),
        a call (``y[next(&k)]``), and a comma or a choice whose parts do any of these
        (``y[(i++, i)]``, ``y[c ? i++ : j]``) is evaluated once, its value held for both
        (``evaluated_once``). (A program whose right-hand side reads what the target changes is
        undefined in C: either order is as good.)"""
        effects: list[tuple[c_ast.Node, str, c_ast.Node]] = []

        def effectful(node: c_ast.Node) -> bool:
            return any(isinstance(n, c_ast.FuncCall) or isinstance(n, c_ast.Assignment)
                       or isinstance(n, c_ast.UnaryOp) and n.op in INCREMENTS for n in walk(node))

        def find(parent: c_ast.Node) -> None:
            for attr, child in parent.children():
                stepped = isinstance(child, c_ast.UnaryOp) and child.op in INCREMENTS
                if stepped and isinstance(child.expr, c_ast.ID) \
                        or isinstance(child, c_ast.Assignment) and isinstance(child.lvalue, c_ast.ID):
                    effects.append((parent, attr, child))  # a variable's: taken out, the variable read
                elif stepped or isinstance(child, (c_ast.Assignment, c_ast.FuncCall)) \
                        or isinstance(child, (c_ast.ExprList, c_ast.TernaryOp)) and effectful(child) \
                        or isinstance(child, c_ast.BinaryOp) and child.op in ("&&", "||") and effectful(child):
                    effects.append((parent, attr, child))  # (y[cnt[0]++], y[(i++, i)], y[c ? i++ : j]: made once)
                elif not (isinstance(child, c_ast.UnaryOp) and child.op == "sizeof"):
                    find(child)

        def taken_out(child: c_ast.Node) -> bool:  # (else evaluated once, its value held)
            return isinstance(child, c_ast.UnaryOp) and isinstance(child.expr, c_ast.ID) \
                or isinstance(child, c_ast.Assignment) and isinstance(child.lvalue, c_ast.ID)

        find(target)
        if self.evaluated_once is None:
            self.evaluated_once = {}
        held = self.evaluated_once
        for parent, attr, child in effects:
            if not taken_out(child):
                held[id(child)] = self.expr(child, b, env)
                continue
            if not (isinstance(child, c_ast.UnaryOp) and child.op.startswith("p")):
                self.expr(child, b, env)
            replace_child(parent, attr, child.expr if isinstance(child, c_ast.UnaryOp) else child.lvalue)
        try:
            yield
        finally:
            for parent, attr, child in reversed(effects):
                if taken_out(child):
                    replace_child(parent, attr, child)
                else:
                    held.pop(id(child), None)
        for _, _, child in effects:
            if taken_out(child) and isinstance(child, c_ast.UnaryOp) and child.op.startswith("p"):
                self.expr(child, b, env)

    def increment(self, node: c_ast.UnaryOp, b: Builder, env: Env) -> Operand:
        self.check_not_const(node.expr)
        target = self.as_variable(node.expr)
        step = 1 if "+" in node.op else -1
        post = node.op.startswith("p")
        if isinstance(target, c_ast.ID) and self.is_pointer_var(target):
            before = self.pointer(target, b, env, aims=True)
            after = self.move_pointer(target, build.const(self.at(b, node), step, I64), b, env)
            return before if post else after
        with self.stepped_once(target, b, env):  # y[i++]++: i steps once
            cur = self.number(self.scalar(target, b, env), self.at(b, node))
            new = build.add(self.at(b, node), cur, build.const(b, step, cur.type if cur.type.is_float else I64))
            stored = self.store(target, new, b, env, node)
        return cur if post else stored

    def check_not_const(self, lvalue: c_ast.Node) -> None:
        """C forbids writing a const object (``x[i] = ...`` of a ``const double *x``): say so here,
        where the compiler would."""
        def declared(name: str) -> Optional[CType]:
            key = self.lookup(name)
            return self.ctypes[key] if key is not None else None

        why = const_because(lvalue, declared)
        if why is not None:
            self.check_target(self.as_variable(lvalue))  # a struct's own account first, where it has one
            raise self.fail(lvalue, f"'{node_text(lvalue)}' cannot be assigned: it is const ({why})",
                            "drop that const, or write to a copy of the values")

    def store(self, target: c_ast.Node, value: Value, b: Builder, env: Env, node: c_ast.Node) -> Value:
        """``target = value`` for a variable, ``a[i]`` or ``*p``; the stored value is the result."""
        b = self.at(b, node)
        self.check_target(target)
        if isinstance(target, c_ast.ID):
            key = self.lookup(target.name)
            if key is None and target.name in getattr(self.ctx, "globals", {}):
                raise self.fail(target, f"'{target.name}' is a global variable, and this writes it: s2sad reads "
                                "global variables, and the gradient could not restore one it changed",
                                f"keep {target.name} in a local variable or pass it as a parameter (a pointer, to hand "
                                "its new value back)")
            if key is None:
                raise self.fail(target, f"'{target.name}' is not declared (or is a constant)")
            t = self.ctypes[key]
            if t.kind != "scalar":
                raise self.fail(target, f"cannot assign to the array '{target.name}'", "assign its elements")
            if "const" in t.spelling.split():
                raise self.fail(target, f"'{target.name}' is const")
            if self.is_cell(key):
                cell = env.get(key)
                if not isinstance(cell, Value):
                    raise Fail(None)  # its declaration failed, and said so
                return self.write_cell(cell, self.number(value, b), b)
            v = self.convert(self.number(value, b) if self.key_type(key) != BOOL else value, self.key_type(key), b)
            if not v.name_hint and v.defining_op is not None:
                v.name_hint = target.name
            env[key] = v
            return v
        if isinstance(target, (c_ast.ArrayRef, c_ast.StructRef)):
            arr, idx = self.element(target, b, env)
        elif isinstance(target, c_ast.UnaryOp) and target.op == "*":
            p = self.pointer(target.expr, b, env, aims=True)
            arr, idx = p.base, [p.off if p.off is not None else build.const(b, 0, I64)]
            if self.is_aim(p) and p.rank > 1:  # type: ignore[attr-defined]
                raise self.fail(target, f"'{node_text(target)}' is a row", "assign its elements: p[i][j] = ...")
            if self.is_aim(p):
                arr = p  # type: ignore[assignment]
        else:
            raise self.fail(target, "this assignment target is not supported")
        v = self.number(value, b)
        held = int_member(idx[0])
        if isinstance(arr, Ptr):  # through a pointer that moves between arrays
            if held is not None:
                v = self.convert(v, held, self.at(b, node))
            stored = self.convert(v, arr.elem, self.at(b, node))
            self.store_through(arr, idx, stored, self.at(b, node))  # type: ignore[arg-type]
            return v if held is not None else stored
        if held is not None:  # pts[i].id = ...: as C stores into an int (truncated), then into its slot
            v = self.convert(v, held, self.at(b, node))
            self.at(b, node).create("store", [arr, *idx, self.convert(v, arr.type.elem, self.at(b, node))], [])
            return v
        v = self.convert(v, arr.type.elem, self.at(b, node))  # type: ignore[attr-defined]
        self.at(b, node).create("store", [arr, *idx, v], [])
        return v

    # -- static facts about expressions ---------------------------------------------------------
    def is_simple(self, node: c_ast.Node) -> bool:
        """Safe to evaluate even when C would not: no loads, calls, divisions or side effects."""
        if isinstance(node, (c_ast.Constant,)):
            return True
        if isinstance(node, c_ast.ID):
            key = self.lookup(node.name)
            return key is None or self.ctypes[key].kind == "scalar"
        if isinstance(node, c_ast.UnaryOp):
            return node.op in ("-", "+", "!", "sizeof") and (node.op == "sizeof" or self.is_simple(node.expr))
        if isinstance(node, c_ast.BinaryOp):
            return node.op not in ("/", "%") and self.is_simple(node.left) and self.is_simple(node.right)
        if isinstance(node, c_ast.Cast):
            return self.is_simple(node.expr)
        if isinstance(node, c_ast.TernaryOp):
            return all(self.is_simple(n) for n in (node.cond, node.iftrue, node.iffalse))
        return False

    def no_side_effects(self, node: c_ast.Node) -> None:
        """Reject assignments and increments where C may skip them (right of && or ||, arms of ?:)."""
        for n in walk(node):
            if isinstance(n, c_ast.Assignment) or (isinstance(n, c_ast.UnaryOp) and n.op in INCREMENTS):
                raise self.fail(n, "assignments are not supported where C may skip them (after && or ||, "
                                "or in an arm of ?:)", "assign in a separate statement")

    def size_of(self, node: c_ast.Node) -> int:
        """``sizeof`` of a type or an expression, in bytes: a struct's as C lays it out wherever
        the memory holds structs (``sizeof *p`` of a ``particle *p`` is a particle's 16, not a
        double's 8: a ``memcpy(p, a, n * sizeof *p)`` that copied half was a wrong gradient),
        a row's where a subscript of a 2-D array reaches one; refused where s2sad cannot know it
        as C does (a pointer's own size, a struct of mixed members, extents not constant)."""
        if isinstance(node, c_ast.Typename):
            layout = self.struct_named(node.type)
            if layout is not None:
                return layout.nbytes
            size = self._bytes(self.declared_type(node.type, node), 0)  # sizeof(double), sizeof(vec3)
        else:
            depth, base = 0, node
            while isinstance(base, c_ast.ArrayRef) or isinstance(base, c_ast.UnaryOp) and base.op == "*":
                base, depth = (base.name if isinstance(base, c_ast.ArrayRef) else base.expr), depth + 1
            size = None
            if isinstance(base, c_ast.ID):
                key = self.lookup(base.name)
                declaring = self.declaring
                if key is not None:
                    size = self._bytes(self.ctypes[key], depth)
                elif depth and declaring is not None and declaring[0] == base.name:
                    size = self._bytes(declaring[1], depth)  # double *f = malloc(n * sizeof *f): the pointer declared
            elif isinstance(base, c_ast.StructRef):  # sizeof s.P, sizeof s->P[0]: as the struct declares it
                size = self.member_bytes(base, depth)  # type: ignore[attr-defined]
        if size is None:
            raise self.fail(node, "sizeof is supported for scalar types, elements, numbers and arrays of constant "
                            "size only", "write sizeof(double) times the number of elements")
        return size

    def array_bytes(self, node: c_ast.Node, b: Builder, env: Env) -> Optional[Value]:
        """``sizeof t`` (``sizeof t[0]``) of a local array of numbers whose extents are not
        constant (``double t[n]``): its elements' bytes times the extents it was declared with
        (the array's own, which a later change of ``n`` leaves as C does); None for anything else."""
        depth, base = 0, node
        while isinstance(base, c_ast.ArrayRef):
            base, depth = base.name, depth + 1
        key = self.lookup(base.name) if isinstance(base, c_ast.ID) else None
        arr = env.get(key) if key is not None else None
        ct = self.ctypes.get(key) if key is not None else None
        if not isinstance(arr, Value) or ct is None or ct.kind != "array" or ct.record is not None \
                or ct.layout is not None or ct.scalar is None or not isinstance(arr.type, ArrayType) \
                or depth > arr.type.rank:
            return None
        at = self.at(b, node)
        size = build.const(at, BYTES[ct.scalar.name], I64)
        for axis in range(depth, arr.type.rank):
            size = build.mul(at, size, at.op1("dim", [arr], I64, axis=axis))
        return size

    def _bytes(self, ct: CType, depth: int) -> Optional[int]:
        """The bytes of what ``depth`` subscripts (or dereferences) of a variable of type ``ct``
        reach; None where s2sad does not know them as C does."""
        if ct.kind not in ("scalar", "pointer", "array") or ct.record is not None or ct.scalar is None \
                or ct.pointer_rows:
            return None
        elem = ct.layout.nbytes if ct.layout is not None else BYTES[ct.scalar.name]
        if ct.kind == "scalar":
            return elem if depth == 0 else None
        if ct.kind == "pointer" and depth == 0:
            return None  # the pointer's own size (an array parameter's too: C passes a pointer)
        dims = ct.dims or (None,)  # a plain pointer: one axis of unknown extent
        if depth > len(dims):
            return None
        counts = [self.constant_count(d) for d in dims[depth:]]
        return None if None in counts else elem * math.prod(counts)  # type: ignore[arg-type]

    # -- provided by the host --------------------------------------------------------------------
    def struct_named(self, node: c_ast.Node) -> Optional[StructLayout]:  # pragma: no cover
        raise NotImplementedError

    def lookup(self, name: str) -> Optional[str]:  # pragma: no cover
        raise NotImplementedError

    struct_runs: set[str]  # keys of structs held in memory, one each (c_lower.struct_run)

    def constant_count(self, node: Optional[c_ast.Node]) -> Optional[int]:  # pragma: no cover
        """An extent written as an integer constant expression (``3``, ``2 * NB``), else None."""
        raise NotImplementedError

    cuda: bool = False  # whether CUDA's thread built-ins are known (a .cu file)

    def named_constant(self, node: c_ast.ID, b: Builder) -> Optional[Value]:  # pragma: no cover
        raise NotImplementedError

    def declared_type(self, node: c_ast.Node, where: c_ast.Node) -> CType:  # pragma: no cover
        raise NotImplementedError

    def is_pointer_var(self, node: c_ast.ID) -> bool:  # pragma: no cover
        raise NotImplementedError

    def is_cell(self, key: Optional[str]) -> bool:  # pragma: no cover
        raise NotImplementedError

    def arrays_of(self, p: Ptr) -> list[Value]:  # pragma: no cover
        raise NotImplementedError

    def table_of(self, node: c_ast.Node) -> Optional[Any]:  # pragma: no cover
        raise NotImplementedError

    def table_row(self, table: Any, index: c_ast.Node, b: Builder, env: Env) -> Ptr:  # pragma: no cover
        raise NotImplementedError

    def read_cell(self, cell: Value, b: Builder) -> Value:  # pragma: no cover
        raise NotImplementedError

    def write_cell(self, cell: Value, v: Value, b: Builder) -> Value:  # pragma: no cover
        raise NotImplementedError

    def cell_address(self, cell: Value) -> Ptr:  # pragma: no cover
        raise NotImplementedError

    def is_moving(self, key: Optional[str]) -> bool:  # pragma: no cover
        raise NotImplementedError

    def is_aim(self, p: Ptr) -> bool:  # pragma: no cover
        raise NotImplementedError

    def aim_of(self, key: str, env: Env, node: Optional[c_ast.Node] = None) -> Ptr:  # pragma: no cover
        raise NotImplementedError

    def plain(self, p: Ptr, node: c_ast.Node, b: Builder) -> Ptr:  # pragma: no cover
        raise NotImplementedError

    def same_place(self, x: Ptr, y: Ptr, b: Builder) -> Value:  # pragma: no cover
        raise NotImplementedError

    def load_through(self, p: Ptr, j: Value, b: Builder) -> Value:  # pragma: no cover
        raise NotImplementedError

    def store_through(self, p: Ptr, j: Value, v: Value, b: Builder) -> None:  # pragma: no cover
        raise NotImplementedError

    def assign_pointer(self, target: c_ast.ID, value: c_ast.Node, b: Builder, env: Env) -> Ptr:  # pragma: no cover
        raise NotImplementedError

    def move_pointer(self, target: c_ast.ID, step: Value, b: Builder, env: Env) -> Ptr:  # pragma: no cover
        raise NotImplementedError

    def call(self, node: c_ast.FuncCall, b: Builder, env: Env, want_value: bool) -> Optional[Value]:  # pragma: no cover
        raise NotImplementedError


def each_dimension(base: c_ast.Node, rank: int) -> str:
    """The hint for an array indexed with the wrong number of subscripts."""
    name = node_text(base)
    return f"'{name}' has {rank} dimensions: index each one once, {name}{''.join(f'[{k}]' for k in 'ijklmn'[:rank])}"


def split_subscripts(node: c_ast.ArrayRef) -> tuple[c_ast.Node, list[c_ast.Node]]:
    """``A[i][j]`` -> (``A``, [``i``, ``j``])."""
    subs: list[c_ast.Node] = []
    base: c_ast.Node = node
    while isinstance(base, c_ast.ArrayRef):
        subs.append(base.subscript)
        base = base.name
    return base, subs[::-1]


def changed_target(node: c_ast.Node) -> Optional[c_ast.Node]:
    """What ``node`` may change: an assignment's target, the operand of ``++``/``--``, or the
    operand of ``&`` (whoever gets the address may write through it); else None."""
    if isinstance(node, c_ast.Assignment):
        return node.lvalue
    if isinstance(node, c_ast.UnaryOp) and (node.op == "&" or node.op in INCREMENTS):
        return node.expr
    return None


def constant_step(node: Optional[c_ast.Node], name: str) -> Optional[int]:
    """The constant a loop's step ``node`` adds to ``name`` (``i++``: 1, ``i -= 2``: -2), or None."""
    if isinstance(node, c_ast.UnaryOp) and isinstance(node.expr, c_ast.ID) and node.expr.name == name:
        return {"++": 1, "p++": 1, "--": -1, "p--": -1}.get(node.op)
    if isinstance(node, c_ast.Assignment) and isinstance(node.lvalue, c_ast.ID) and node.lvalue.name == name \
            and node.op in ("+=", "-=") and isinstance(node.rvalue, c_ast.Constant) \
            and node.rvalue.type == "int":
        value = int_constant(node.rvalue, {}, set())  # (010 is octal: int(text, 0) refuses it)
        return None if not value else value if node.op == "+=" else -value
    return None


def changed_names(nodes: Iterable[c_ast.Node]) -> set[str]:
    """The variables ``nodes`` change themselves (``changed_target`` a plain name: ``w = v``,
    ``i++``, ``&p``), not through a member, an element or a pointer (``w.gamma = 1``, ``*g += x``)."""
    return {t.name for n in nodes if isinstance(t := changed_target(n), c_ast.ID)}


def _pointee(node: c_ast.Node) -> c_ast.Node:
    """``p`` of ``*p`` or ``p[0]``; ``node`` itself otherwise."""
    if isinstance(node, c_ast.UnaryOp) and node.op == "*":
        return node.expr
    if isinstance(node, c_ast.ArrayRef) and isinstance(node.subscript, c_ast.Constant) and node.subscript.value == "0":
        return node.name
    return node


def replace_child(parent: c_ast.Node, attr: str, new: c_ast.Node) -> None:
    """Put ``new`` where ``parent``'s child named ``attr`` by ``children()`` is (``expr``, or
    ``exprs[2]`` in a list)."""
    m = re.fullmatch(r"(\w+)\[(\d+)\]", attr)
    if m:
        getattr(parent, m.group(1))[int(m.group(2))] = new
    else:
        setattr(parent, attr, new)


def walk(node: c_ast.Node):
    """``node`` and every node under it, in pre-order; by a stack, as nested generators would
    pass every node up through one frame per level (deep code: its size times its depth)."""
    stack = [node]
    pop, extend = stack.pop, stack.extend
    while stack:
        n = pop()
        yield n
        children = list(n)  # a node iterates over its children, as children() lists them: faster
        children.reverse()
        extend(children)
