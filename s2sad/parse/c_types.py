"""C declarations -> IR types, and the C spellings kept for output.

The IR has few scalar types; C has many spellings. The mapping:

* ``double`` -> ``f64``; ``float`` -> ``f32``; ``long double`` is a located error (its
  precision is not the gradient's);
* integers: a parameter, an array element or a callee's result keeps its width
  (``int``, ``short``, ``char``, ``unsigned`` -> ``i32``; ``long``, ``size_t``,
  ``int64_t`` -> ``i64``), because that is the calling convention the gradient
  must keep; local integer variables compute in ``i64`` (the values index
  arrays and count loops; C's conversions at assignments and stores are kept
  as explicit casts);
* ``T *p``, ``T p[]``, ``T p[n]`` as parameters -> ``array<T,1>``; ``T A[n][m]``,
  ``T A[][M]``, ``T (*A)[M]`` -> ``array<T,2>`` (and so on for more extents), the extents
  kept (``c_declarators`` reads them); local ``T a[N]``, ``T a[N][M]`` -> arrays of
  rank 1, 2, ...; a local ``T (*a)[M]`` is a pointer to rows as the parameter is (set from
  ``malloc(n * sizeof *a)``, or pointed at an array of rows of that size)

``CType`` remembers the declared spelling (``const double *``, ``size_t``,
``double *restrict``, a typedef's name) so the C emitter can print the user's own
signature back. A pointer to structs has
a ``StructLayout`` (the struct seen as a run of its one scalar type), which
``c_structs.StructTable`` builds from the file's definitions.
"""

from __future__ import annotations

import itertools
import math

from dataclasses import dataclass
from typing import Optional, Protocol

from pycparser import c_ast
from pycparser.c_generator import CGenerator

from ..ssa.types import COMM, F32, F64, I32, I64, REQUEST, ArrayType, ScalarType
from .c_preprocess import PRELUDE_TYPEDEFS

# sizeof of each IR scalar, as C lays it out (x86-64 / LP64: long is 8 bytes).
BYTES = {"f64": 8, "f32": 4, "i64": 8, "i32": 4, "bool": 1}
C_WORDS = {"f64": "double", "f32": "float", "i64": "long", "i32": "int"}  # the IR's scalar types, as C says them

_INT_WORDS = frozenset({"int", "short", "char", "signed", "unsigned", "_Bool"})
_WIDE = {name for name, base in PRELUDE_TYPEDEFS.items() if "long" in base}


@dataclass(frozen=True)
class CType:
    """A declared C type: a scalar, a pointer to scalars, a fixed array, or void."""

    kind: str  # "scalar" | "pointer" | "array" | "void"
    scalar: Optional[ScalarType]  # the scalar, or the element type
    spelling: str  # as declared, for output: "double", "const double *", "size_t"
    # The extents of a local array, or those an array parameter declares (``double A[n][m]``;
    # None where left out: ``A[][M]``, ``(*A)[M]``). A plain pointer has none.
    dims: tuple[Optional[c_ast.Node], ...] = ()
    layout: Optional[StructLayout] = None  # a pointer to structs: how they lie in memory
    # kind "record": a struct value (``Wishart w``), or, ``indirect``, a pointer to one struct
    # (``const Matrix *M``) of a type that is no run of one scalar; see ``c_records``.
    record: Optional["Record"] = None
    indirect: bool = False
    # ``indirect`` and indexed (``const Matrix *Ms`` read as ``Ms[i].data[j]``, ``Matrix Ms[]``):
    # an array of such structs, each member an array across them (``c_records.param_leaves``).
    each: bool = False
    # A parameter ``double **A``: rows that lie anywhere, each a pointer of its own (its ``dims``
    # are two unknown extents). C output indexes it ``A[i][j]`` and never copies it whole.
    pointer_rows: bool = False

    @property
    def is_pointer(self) -> bool:
        return self.kind == "pointer"

    @property
    def ir_array(self) -> ArrayType:
        assert self.scalar is not None
        return ArrayType(self.scalar, max(1, len(self.dims)))


@dataclass(frozen=True)
class Field:
    """One member: where it starts (in scalars), its array extents, its struct type if any."""

    name: str
    offset: int
    dims: tuple[int, ...]
    sub: Optional["StructLayout"]
    spelling: str  # the member's type as declared: "double", "struct Vec3"
    # An integer member (``int id``) of a struct of mixed members: its type. It holds a slot of
    # the struct's floating type in the IR (exact to 2^53); C output reads and writes the member.
    int_type: Optional[ScalarType] = None

    @property
    def elem_size(self) -> int:
        """Scalars per element of the member (1 for a number, the struct's size for a struct)."""
        return self.sub.size if self.sub is not None else 1


@dataclass(frozen=True)
class StructLayout:
    """A struct whose members are all of one scalar type, seen as a run of those scalars."""

    name: str  # as the program spells the type: "struct Body" or a typedef name "Vec3"
    elem: ScalarType
    size: int  # scalars per struct
    fields: tuple[Field, ...]
    definition: str  # C source that defines the type, for self-contained output
    nbytes: int = 0  # C's sizeof, padding included
    align: int = 0

    @property
    def slot_paths(self) -> list[str]:
        """Each slot's member as C spells it after ``a[i]``: ``.id``, ``.pos[0]``, ``.vel.x``."""
        out: list[str] = []
        for f in self.fields:
            subs = f.sub.slot_paths if f.sub is not None else [""]
            for index in itertools.product(*(range(n) for n in f.dims)):
                out += [f".{f.name}{''.join(f'[{i}]' for i in index)}{sub}" for sub in subs]
        return out

    @property
    def mixed(self) -> bool:
        """Whether some member, however deep, is an integer: then the slots are not the bytes, and
        the structs are reached only member by member (never as a run of numbers, nor by bytes)."""
        return any(f.int_type is not None or (f.sub is not None and f.sub.mixed) for f in self.fields)

    def field(self, name: str) -> Optional[Field]:
        for f in self.fields:
            if f.name == name:
                return f
        return None


@dataclass(frozen=True)
class Member:
    """A member of a struct read as a bundle of members (``Record``): a number, a fixed array
    of numbers, a pointer to numbers, or a struct (``sub``)."""

    name: str
    shape: str  # "scalar" | "array" | "pointer" | "struct"
    scalar: Optional[ScalarType]  # the number's, the elements' (None for a struct)
    spelling: str  # the element's type as declared ("double", "size_t"), or the pointer's ("const double *")
    extents: tuple[int, ...] = ()  # a fixed array's sizes, outermost first (``double P[3][3]``: (3, 3))
    sub: Optional["Record"] = None

    @property
    def size(self) -> int:
        """The numbers a fixed array member holds (1 for a number)."""
        return math.prod(self.extents)

    @property
    def dims(self) -> tuple[c_ast.Node, ...]:
        """A fixed array member's sizes as the declared extents of a local array."""
        return tuple(c_ast.Constant("int", str(n)) for n in self.extents)


@dataclass(frozen=True)
class Leaf:
    """One number, array or pointer inside a struct, however deep: ``.pos.x`` of a ``Body``."""

    path: str  # as C spells it after the struct: ".gamma", ".pos.x"
    member: Member


@dataclass(frozen=True)
class Record:
    """A struct read as the bundle of its members (scalar replacement of aggregates): any
    members, integers and pointers included, one IR value (or array) per leaf."""

    name: str  # as the program spells the type: "struct Body" or a typedef name "Wishart"
    members: tuple[Member, ...]
    definition: str  # C source that defines the type, for self-contained output
    # The member names some function of the file may write (``c_member_writes``); None: any.
    written: Optional[frozenset[str]] = None

    def never_written(self, path: str) -> bool:
        """Whether nothing in the file writes the leaf at ``path`` (``.pos.x``: neither pos nor x)."""
        return self.written is not None and not any(name in self.written for name in path.split(".") if name)

    @property
    def leaves(self) -> list[Leaf]:
        out: list[Leaf] = []
        for m in self.members:
            if m.sub is not None:
                out += [Leaf(f".{m.name}{leaf.path}", leaf.member) for leaf in m.sub.leaves]
            else:
                out.append(Leaf(f".{m.name}", m))
        return out

    def member(self, name: str) -> Optional[Member]:
        return next((m for m in self.members if m.name == name), None)


class StructLookup(Protocol):
    """Where ``ctype_of`` finds struct types (``c_structs.StructTable``)."""

    def lookup(self, node: c_ast.Node) -> Optional[StructLayout]: ...

    def record(self, node: c_ast.Node, required: bool = False) -> Optional[Record]: ...


class TypeProblem(Exception):
    """A declaration s2sad cannot type; ``node`` is where to point."""

    def __init__(self, node: c_ast.Node, message: str, hint: str = ""):
        super().__init__(message)
        self.node = node
        self.message = message
        self.hint = hint


_WORD_BYTES = {"char": 1, "_Bool": 1, "short": 2, "int": 4, "float": 4, "double": 8}


def c_bytes(names: list[str], typedefs: dict[str, list[str]]) -> int:
    """The size C gives a scalar type of these words on the LP64 machines s2sad's C targets
    (``unsigned short``: 2, ``size_t``: 8); also its alignment."""
    words: list[str] = []
    for w in names:
        words += _spelled_out(w, typedefs, 0)
    if "long" in words:
        return 16 if "double" in words else 8
    for w in ("char", "_Bool", "short", "float", "double"):
        if w in words:
            return _WORD_BYTES[w]
    return 4


def _spelled_out(word: str, typedefs: dict[str, list[str]], depth: int) -> list[str]:
    """A type word with its typedefs replaced by the words they stand for."""
    if word not in typedefs or depth > 16:
        return [word]
    return [x for w in typedefs[word] for x in _spelled_out(w, typedefs, depth + 1)]


def scalar_of(names: list[str], typedefs: dict[str, list[str]], node: c_ast.Node) -> Optional[ScalarType]:
    """The IR scalar for a list of type words (``['unsigned', 'long']``); None for void."""
    problem = _not_a_c_type(names, typedefs)
    if problem:
        raise TypeProblem(node, f"'{' '.join(names)}' is not a C type: {problem}",
                          "a declaration names one type: double, float, long, unsigned int, a typedef...")
    words: list[str] = []
    for w in names:
        if w in HANDLE_TYPES and w in typedefs:  # (declared by mpi.h, which the file includes)
            return HANDLE_TYPES[w]
        if w in typedefs:
            base = scalar_of(typedefs[w], typedefs, node)
            if base is None:
                return None
            if w in _WIDE:
                return I64
            words.append(C_WORDS[base.name])
        else:
            words.append(w)
    if words == ["void"]:
        return None
    if "_Complex" in words or "_Imaginary" in words:  # (not a double: a pair of them)
        raise TypeProblem(node, "complex numbers (double complex, _Complex) are not supported",
                          "write the real and imaginary parts as two doubles: s2sad differentiates real arithmetic")
    if "double" in words and "long" in words:
        raise TypeProblem(node, "long double is not supported: s2sad computes in double, and the gradient would "
                          "be of another, less precise program",
                          "declare it double (the gradient is then that of the double program)")
    if "double" in words:
        return F64
    if "float" in words:
        return F32
    if "long" in words:
        return I64
    if words and all(w in _INT_WORDS for w in words):
        return I32
    raise TypeProblem(node, f"type '{' '.join(names)}' is not supported",
                      "use double, float, int, long, size_t or unsigned")


_BASES = ("void", "char", "int", "float", "double", "_Bool")
# Handles a known header declares that the IR follows as values of their own (``ssa/mpi``).
HANDLE_TYPES = {"MPI_Comm": COMM, "MPI_Request": REQUEST}


def _not_a_c_type(names: list[str], typedefs: dict[str, list[str]]) -> str:
    """Why the type words ``names`` are no C type (C99 6.7.2's list of combinations), or ""."""
    if any(n in typedefs for n in names):
        return "" if len(names) == 1 else "a typedef name stands alone"
    bases = [n for n in names if n in _BASES]
    if len(bases) > 1:
        return "two data types in one declaration"
    base = bases[0] if bases else "int"
    longs, shorts = names.count("long"), names.count("short")
    signs = [n for n in names if n in ("signed", "unsigned")]
    if longs > 2 or shorts > 1 or (longs and shorts) or len(signs) > 1:
        return "its size or sign words contradict each other"
    if signs and base in ("void", "float", "double", "_Bool"):
        return f"'{base}' has no signed or unsigned form"
    if (shorts and base != "int") or (longs and base not in ("int", "double")) or (longs > 1 and base == "double"):
        return f"'{base}' has no {'short' if shorts else 'long'} form"
    return ""


def spelling(node: c_ast.Node) -> str:
    """``const double *`` for a declaration's type (its name left out)."""
    if isinstance(node, c_ast.PtrDecl):
        inner = spelling(node.type)
        quals = " ".join(node.quals)  # const, restrict: the gradient keeps the user's promises
        return f"{inner}{'' if inner.endswith('*') else ' '}*{quals}".rstrip()
    if isinstance(node, c_ast.ArrayDecl):
        return spelling(node.type) + " *"
    if isinstance(node, c_ast.TypeDecl):
        quals = [q for q in node.quals if q in ("const",)]
        return " ".join(quals + spelling_words(node.type))
    return "?"


def spelling_words(node: c_ast.Node) -> list[str]:
    if isinstance(node, c_ast.IdentifierType):
        return list(node.names)
    if isinstance(node, c_ast.Struct):
        return ["struct", node.name or "?"]
    if isinstance(node, c_ast.Enum):
        return ["enum", node.name] if node.name else ["int"]
    return ["?"]


def ctype_of(node: c_ast.Node, typedefs: dict[str, list[str]], param: bool,
             structs: Optional[StructLookup] = None, indexed: bool = True) -> CType:
    """The ``CType`` of a declaration's type node (``Decl.type``); ``indexed``: whether the
    function uses the parameter as an array (``c_pointers.indexed_names``)."""
    if structs is not None:
        struct_type = _struct_type(node, structs, param, indexed)
        if struct_type is not None:
            return struct_type
    if isinstance(node, c_ast.TypeDecl):
        if isinstance(node.type, c_ast.Enum):  # enum Mode m: an int (C's enumerators are ints)
            return CType("scalar", I32, spelling(node))
        if not isinstance(node.type, c_ast.IdentifierType):
            raise TypeProblem(node, "this type is not supported")
        s = scalar_of(list(node.type.names), typedefs, node)
        return CType("void" if s is None else "scalar", s, spelling(node))
    if param and isinstance(node, c_ast.ArrayDecl) and isinstance(node.type, c_ast.PtrDecl):
        rows = _rows_of_pointers(c_ast.PtrDecl([], node.type), typedefs)
        if rows is not None:  # double *A[] and double *A[4]: to C, the parameter double **A
            return CType("pointer", rows, spelling(node.type) + "*", (None, None), pointer_rows=True)
    rows_pointer = isinstance(node, c_ast.PtrDecl) and isinstance(node.type, c_ast.ArrayDecl)
    declared = array_declarator(node) if param or rows_pointer else None
    if declared is not None:  # double A[n][m], double (*A)[M], double x[n]: pointers to rows of known extents
        dims, elem, shape = declared
        if not (isinstance(elem, c_ast.TypeDecl) and isinstance(elem.type, c_ast.IdentifierType)):
            raise TypeProblem(node, "arrays of this element type are not supported",
                              "pass an array of numbers: double x[n], double A[n][m]")
        s = scalar_of(list(elem.type.names), typedefs, node)
        if s is None:
            raise TypeProblem(node, "arrays of void are not possible")
        if any(d is None for d in dims[1:]):
            raise TypeProblem(node, "only the first size of an array parameter may be left out"
                              if param else "a pointer to rows needs the rows' size",
                              "give the others, as C requires: double A[][m]" if param else
                              "give it, as C requires: double (*a)[m]")
        texts = [CGenerator().visit(d) for d in dims if d is not None]
        return CType("pointer", s, f"{spelling(elem)} {shape.format(*texts)}", dims)
    if isinstance(node, c_ast.PtrDecl):
        target = node.type
        if isinstance(target, c_ast.TypeDecl) and isinstance(target.type, c_ast.IdentifierType):
            s = scalar_of(list(target.type.names), typedefs, node)
            if s is None:
                raise TypeProblem(node, "'void *' pointers are not supported",
                                  "use a typed pointer (double *); a 'void *params' parameter is read as the "
                                  "struct it always holds where every use casts it to that one type "
                                  "((const Params *)params) or passes it on to such a parameter")
            return CType("pointer", s, spelling(node))
        if isinstance(target, c_ast.FuncDecl):
            raise TypeProblem(node, "a pointer to a function is read only where a call passes a function by name "
                              "(rk4(decay, t, y, h))",
                              "differentiate a function that calls this one with the function it passes, "
                              "or call the function by name")
        rows = _rows_of_pointers(node, typedefs)
        if rows is not None and param:  # double **A: an array of rows, indexed A[i][j] as one of rank 2
            return CType("pointer", rows, spelling(node), (None, None), pointer_rows=True)
        if rows is not None:
            raise TypeProblem(node, "a local pointer to pointers is supported only as a matrix whose rows are "
                              "allocated in one loop, each of the same length",
                              "double **A = malloc(n * sizeof(double *)); then for (i = 0; i < n; i++) as its "
                              "first statement A[i] = malloc(m * sizeof(double)), and no other assignment of A "
                              "or its rows; or one block cut into rows, A[0] = malloc(n * m * sizeof(double)); "
                              "for (i = 1; i < n; i++) A[i] = A[i - 1] + m (Numerical Recipes' dmatrix too, "
                              "indexed from non-negative constants; from a first column other than 0, read "
                              "only as A[i][j] or passed whole, no row pointer A[i]); or take the rows as a "
                              "parameter, double **A")
        raise TypeProblem(node, "pointers to pointers of this kind are not supported",
                          "pass rows of numbers, double **A, or flatten the data into one array and index it "
                          "as a[i * m + j]")
    if isinstance(node, c_ast.ArrayDecl):
        dims: list[c_ast.Node] = []
        t: c_ast.Node = node
        while isinstance(t, c_ast.ArrayDecl):
            dims.append(t.dim)
            t = t.type
        if not (isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType)):
            raise TypeProblem(node, "arrays of this element type are not supported")
        s = scalar_of(list(t.type.names), typedefs, node)
        if s is None:
            raise TypeProblem(node, "arrays of void are not possible")
        if param:  # double x[]: a plain pointer
            return CType("pointer", s, spelling(t) + " *")
        if any(d is None for d in dims[1:]):  # the first may come from an initializer (c_lower)
            raise TypeProblem(node, "only the first size of a local array may be left out",
                              "give the sizes: double a[][3] = {{...}, {...}}")
        return CType("array", s, spelling(t), tuple(dims))
    raise TypeProblem(node, "this declaration is not supported")


def _rows_of_pointers(node: c_ast.PtrDecl, typedefs: dict[str, list[str]]) -> Optional[ScalarType]:
    """The number type of ``double **A`` (``const double *const *A`` too): a pointer to
    pointers to numbers; None for any other pointer."""
    row = node.type
    if not isinstance(row, c_ast.PtrDecl):
        return None
    elem = row.type
    if not (isinstance(elem, c_ast.TypeDecl) and isinstance(elem.type, c_ast.IdentifierType)):
        return None
    return scalar_of(list(elem.type.names), typedefs, node)


def array_declarator(node: c_ast.Node) -> Optional[tuple[tuple[Optional[c_ast.Node], ...], c_ast.Node, str]]:
    """For a parameter declared as an array with extents (``A[n][m]``, ``x[n]``, ``A[][M]``) or
    as a pointer to rows (``(*A)[M]``): its extents, outermost first (None where left out: the
    first of ``A[][M]`` and ``(*A)[M]``), the element's type node, and the declarator with the
    name left out and ``{}`` for each extent written (``[{}][{}]``, ``(*restrict)[{}]``,
    ``[static {}]``). None for any other declaration, ``x[]`` included: a plain pointer."""
    pointer_quals: Optional[list[str]] = None
    t = node
    if isinstance(t, c_ast.PtrDecl) and isinstance(t.type, c_ast.ArrayDecl):
        pointer_quals = list(t.quals)
        t = t.type
    dims: list[Optional[c_ast.Node]] = [None] if pointer_quals is not None else []
    brackets = ""
    while isinstance(t, c_ast.ArrayDecl):
        dims.append(t.dim)
        brackets += "[" + " ".join(list(t.dim_quals) + (["{}"] if t.dim is not None else [])) + "]"
        t = t.type
    if not dims or dims == [None]:
        return None
    shape = brackets if pointer_quals is None else f"(*{' '.join(pointer_quals)}){brackets}"
    return tuple(dims), t, shape


def _struct_type(node: c_ast.Node, structs: StructLookup, param: bool, indexed: bool = True) -> Optional[CType]:
    """``struct Body *b`` (or ``struct Body b[]`` as a parameter) of a struct that is a run of
    slots (``c_structs``): a pointer to structs; so is one whose integer members take slots
    too, where the function indexes the parameter (``indexed``; a local pointer always). A
    struct value (``Wishart w``) and any other pointer to a struct (``const Matrix *M``, read as
    one struct) are records."""
    target = node.type if isinstance(node, (c_ast.PtrDecl, c_ast.ArrayDecl)) else node
    if isinstance(node, c_ast.ArrayDecl) and isinstance(target, c_ast.ArrayDecl) and not param:
        inner = target
        while isinstance(inner, c_ast.ArrayDecl):
            inner = inner.type
        named = structs.lookup(inner.type) if isinstance(inner, c_ast.TypeDecl) else None
        if named is not None:  # Point grid[4][4]
            raise TypeProblem(node, f"local arrays of {named.name} of more than one dimension are not supported",
                              f"declare one dimension, {named.name} g[n * m], and index it g[i * m + j]")
    if not isinstance(target, c_ast.TypeDecl):
        return None
    layout = structs.lookup(target.type)
    if layout is not None and layout.mixed and param and not indexed and structs.record(target.type) is not None:
        layout = None  # Particle *p, read p->x: one struct, its integers numbers of their own
    record = structs.record(target.type, required=layout is None or isinstance(node, c_ast.TypeDecl))
    if record is None and layout is None:
        return None
    const = [q for q in target.quals if q == "const"]
    if isinstance(node, c_ast.TypeDecl):  # a struct value
        assert record is not None
        return CType("record", None, " ".join(const + [record.name]), record=record)
    if layout is not None and (isinstance(node, c_ast.PtrDecl) or param):
        spelled = " ".join(const + [layout.name, "*"])
        if isinstance(node, c_ast.PtrDecl) and node.quals:
            spelled += " ".join(node.quals)
        return CType("pointer", layout.elem, spelled, layout=layout)
    if layout is not None:  # a local array of structs: a run of its scalars, as through a pointer
        if not isinstance(node, c_ast.ArrayDecl) or node.dim is None:
            raise TypeProblem(node, f"local arrays of {layout.name} need one size",
                              f"declare {layout.name} a[n], one dimension")
        return CType("array", layout.elem, " ".join(const + [layout.name]), (node.dim,), layout=layout)
    assert record is not None
    if isinstance(node, c_ast.PtrDecl):  # one struct of mixed members through a pointer, or an array of them
        spelled = " ".join(const + [record.name, "*"]) + " ".join(node.quals)
        return CType("record", None, spelled, record=record, indirect=True, each=param and indexed)
    if param:  # Matrix Ms[]: an array of structs of mixed members, as a pointer indexed would be
        return CType("record", None, " ".join(const + [record.name, "*"]), record=record, indirect=True, each=True)
    raise TypeProblem(node, f"local arrays of {record.name} are not supported yet",
                      f"declare one {record.name} at a time, or keep each member in an array of its own")


def value_type(t: CType) -> ScalarType:
    """The IR type a local scalar of this C type computes in (integers in ``i64``)."""
    assert t.scalar is not None
    return I64 if t.scalar.is_int else t.scalar
