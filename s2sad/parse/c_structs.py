"""The struct types a C file defines, laid out as runs of one scalar type (``c_types.StructLayout``).

s2sad keeps structs out of the IR: a pointer to ``struct Body { double pos[3];
double m; }`` is, in memory, a flat run of doubles, four per body, so the IR
sees an ``array<f64,1>`` and ``bodies[i].pos[c]`` is element ``4*i + 0 + c`` of
it. The ``field`` op (see ``ssa.ops``) computes such an index while remembering
the access path (``.pos[]``), so the C emitter prints ``bodies[i].pos[c]`` and
``d_bodies[i].pos[c]`` again, and every pass treats it as integer arithmetic.

That view is exact only when every field has the struct's one scalar type
(C puts no padding between members of one type), which is what this module
accepts: fields that are scalars, fixed arrays of them, and structs (or fixed
arrays of structs) of the same scalar type. Anything else is refused with the
field that breaks it.

Every struct type is also read as a ``Record``: the bundle of its members, whatever their
types (an ``int`` count beside ``double`` data, a ``double *data`` pointer, nested structs).
That is how struct values and pointers to one struct of mixed members are lowered
(``c_records``: one IR value per leaf). A struct that is neither is refused where a
function uses it, with the member that breaks it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from pycparser import c_ast

from ..ssa.types import ScalarType
from .c_types import Field, Member, Record, StructLayout, TypeProblem, c_bytes, scalar_of, spelling


class StructTable:
    """The struct types a file defines, by the names the program uses for them."""

    def __init__(self, typedefs: dict[str, list[str]], constants: dict[str, c_ast.Node]):
        self.typedefs = typedefs
        self.constants = constants
        self.layouts: dict[str, StructLayout] = {}
        self.records: dict[str, Record] = {}
        self.refused: dict[str, TypeProblem] = {}  # types defined in the file that s2sad cannot read
        # Structs read only as a run of one type (``Vec3 corners[8]``, an array of structs, as a
        # member): why no record holds them, said where one is passed or declared by value.
        self.unrecorded: dict[str, TypeProblem] = {}
        # Definition order (members' types come first): [name, definition, size in scalars (0 for
        # a struct of mixed members)] and the struct types its members name.
        self.order: list[tuple[list, list[str]]] = []

    def note_written(self, written: Optional[frozenset[str]]) -> None:
        """The member names the file's functions may write (``c_member_writes``), for each record:
        a number member behind a pointer to non-const that nothing writes is read as a value."""
        self.records = {name: replace(r, written=written) for name, r in self.records.items()}

    def define(self, node: c_ast.Struct, typedef: Optional[str] = None) -> None:
        """Record ``struct Name { ... }`` (and its typedef name, when it has one)."""
        if node.decls is None:  # a use or a forward declaration, not a definition
            tagged = f"struct {node.name}" if node.name else None
            if typedef is not None and tagged is not None:
                if tagged in self.layouts:
                    self.layouts[typedef] = self.layouts[tagged]
                if tagged in self.records:
                    self.records[typedef] = self.records[tagged]
            return
        name = typedef if typedef is not None and not node.name else f"struct {node.name}"
        for d in node.decls:
            if getattr(d, "bitsize", None) is not None:  # int flags : 3; (and double : x, which C refuses)
                member = f"the member '{d.name}'" if d.name else "an unnamed member"
                raise TypeProblem(d, f"{member} of {name} is a bit-field, which s2sad does not read",
                                  "declare it a whole integer (int flags;)")
        try:
            layout: Optional[StructLayout] = self._layout(node, name, typedef)
        except TypeProblem:
            layout = None  # members of mixed types: a record only
        try:
            record = self._record(node, name, typedef)
        except TypeProblem as problem:
            if layout is None:
                raise  # neither view reads it
            record = None  # a run of one type a record cannot hold (Vec3 corners[8]): the layout only
            for key in (name, typedef):
                if key is not None:
                    self.unrecorded[key] = problem
        for key in (name, typedef):
            if key is not None:
                if record is not None:
                    self.records[key] = record
                if layout is not None:
                    self.layouts[key] = layout
        if layout is not None:
            needs = [f.sub.name for f in layout.fields if f.sub is not None]
            self.order.append(([layout.name, layout.definition, layout.size], needs))
        else:
            assert record is not None
            needs = [m.sub.name for m in record.members if m.sub is not None]
            self.order.append(([record.name, record.definition, 0], needs))

    def refuse(self, node: c_ast.Struct, typedef: Optional[str], problem: TypeProblem) -> None:
        """Remember why a struct cannot be laid out; said where a function uses it."""
        for name in (f"struct {node.name}" if node.name else None, typedef):
            if name is not None:
                self.refused[name] = problem

    def lookup(self, node: c_ast.Node) -> Optional[StructLayout]:
        """The layout a type node names (``struct Body`` or a typedef of one), if any."""
        names = [f"struct {node.name}"] if isinstance(node, c_ast.Struct) else (
            node.names if isinstance(node, c_ast.IdentifierType) and len(node.names) == 1 else [])
        for name in names:
            if name in self.refused:
                why = self.refused[name]
                raise TypeProblem(node, why.message, why.hint)
        if isinstance(node, c_ast.Struct):
            layout = self.layouts.get(f"struct {node.name}")
            if layout is None and f"struct {node.name}" not in self.records:
                raise TypeProblem(node, f"'struct {node.name}' is not defined in this file",
                                  "define the struct before the functions that use it")
            return layout
        if isinstance(node, c_ast.IdentifierType) and len(node.names) == 1:
            return self.layouts.get(node.names[0])
        return None

    def record(self, node: c_ast.Node, required: bool = False) -> Optional[Record]:
        """The struct a type node names, read as a bundle of members; None for other types, and
        for a struct read only as a run of one type, which ``required`` refuses instead."""
        self.lookup(node)  # refused and undefined types are reported as for pointers
        name = f"struct {node.name}" if isinstance(node, c_ast.Struct) else (
            node.names[0] if isinstance(node, c_ast.IdentifierType) and len(node.names) == 1 else None)
        if name is None:
            return None
        if required and name in self.unrecorded:
            why = self.unrecorded[name]
            raise TypeProblem(node, f"{name} is used as a value here, and {why.message}",
                              f"pass a pointer to it ({name} *), or {why.hint}")
        return self.records.get(name)

    def definitions(self, used: list[str]) -> list[list]:
        """``[name, definition, size]`` of the struct types named ``used`` and those of their
        members, in the order the file defines them (a member's type before the struct that
        holds it)."""
        needs = {entry[0]: inner for entry, inner in self.order}
        needed: set[str] = set()
        todo = list(used)
        while todo:
            name = todo.pop()
            if name not in needed:
                needed.add(name)
                todo += needs.get(name, [])
        return [entry for entry, _ in self.order if entry[0] in needed]

    def _layout(self, node: c_ast.Struct, name: str, typedef: Optional[str]) -> StructLayout:
        """The struct as a run of slots of its floating type, one per number; an integer member
        (``int id``) takes a slot too (``Field.int_type``). TypeProblem where it has no floating
        member, two floating types, or a member that is no number, fixed array or such struct."""
        fields: list[Field] = []
        elem: Optional[ScalarType] = None
        offset = nbytes = 0
        align = 1
        for d in node.decls:
            t, dims = self._member_dims(d)
            if not isinstance(t, c_ast.TypeDecl):
                raise TypeProblem(d, f"the member '{d.name}' of {name} is a pointer",
                                  "s2sad supports structs whose members are numbers, fixed arrays and structs")
            sub = self.lookup(t.type)
            int_type = None
            if sub is not None:
                scalar, spelled, size, member_align = sub.elem, sub.name, sub.nbytes, sub.align
            elif isinstance(t.type, c_ast.IdentifierType):
                scalar = scalar_of(list(t.type.names), self.typedefs, d)
                spelled = " ".join(t.type.names)
                size = member_align = c_bytes(list(t.type.names), self.typedefs)
                if scalar is not None and scalar.is_int:
                    int_type, scalar = scalar, None
            else:
                raise TypeProblem(d, f"the member '{d.name}' of {name} is not supported")
            if scalar is not None and elem is not None and scalar != elem:
                raise TypeProblem(d, f"the floating-point members of {name} are not all of one type",
                                  "s2sad reads a struct as a run of doubles (or of floats)")
            if scalar is None and int_type is None:
                raise TypeProblem(d, f"the member '{d.name}' of {name} is void")
            elem = scalar or elem
            f = Field(d.name, offset, tuple(dims), sub, spelled, int_type)
            count = 1
            for n in dims:
                count *= n
            offset += count * f.elem_size
            nbytes = -(-nbytes // member_align) * member_align + count * size
            align = max(align, member_align)
            fields.append(f)
        if elem is None:
            raise TypeProblem(node, f"{name} has no floating-point members" if fields else f"{name} has no members")
        return StructLayout(name, elem, offset, tuple(fields), _definition(node, name, typedef, fields),
                            -(-nbytes // align) * align, align)

    def _record(self, node: c_ast.Struct, name: str, typedef: Optional[str]) -> Record:
        """The struct as a bundle of members; TypeProblem at a member s2sad cannot read."""
        members: list[Member] = []
        for d in node.decls:
            t, dims = self._member_dims(d)
            if isinstance(t, c_ast.PtrDecl):
                target = t.type
                if not (isinstance(target, c_ast.TypeDecl) and isinstance(target.type, c_ast.IdentifierType)) \
                        or dims or self.lookup(target.type) is not None or \
                        (len(target.type.names) == 1 and target.type.names[0] in self.records):
                    raise TypeProblem(d, f"the member '{d.name}' of {name} is a pointer to something other "
                                      "than numbers", "s2sad reads pointer members that point to numbers "
                                      "(double *data)")
                scalar = scalar_of(list(target.type.names), self.typedefs, d)
                if scalar is None:
                    raise TypeProblem(d, f"the member '{d.name}' of {name} is a 'void *'",
                                      "give it the type of its elements (double *)")
                members.append(Member(d.name, "pointer", scalar, spelling(t)))
                continue
            if not isinstance(t, c_ast.TypeDecl):
                raise TypeProblem(d, f"the member '{d.name}' of {name} is not supported")
            sub = self.record(t.type) if isinstance(t.type, (c_ast.Struct, c_ast.IdentifierType)) else None
            if sub is not None:
                if dims:
                    raise TypeProblem(d, f"the member '{d.name}' of {name} is an array of structs",
                                      "keep each of their members in an array of its own")
                members.append(Member(d.name, "struct", None, sub.name, sub=sub))
                continue
            if isinstance(t.type, c_ast.Enum):
                scalar, words = scalar_of(["int"], self.typedefs, d), ["int"]
            elif isinstance(t.type, c_ast.IdentifierType):
                scalar, words = scalar_of(list(t.type.names), self.typedefs, d), list(t.type.names)
            else:
                raise TypeProblem(d, f"the member '{d.name}' of {name} is not supported")
            if scalar is None:
                raise TypeProblem(d, f"the member '{d.name}' of {name} is void")
            members.append(Member(d.name, "array" if dims else "scalar", scalar, " ".join(words), tuple(dims)))
        if not members:
            raise TypeProblem(node, f"{name} has no members")
        return Record(name, tuple(members), _record_definition(node, name, typedef, members))

    def _member_dims(self, d: c_ast.Decl) -> tuple[c_ast.Node, list[int]]:
        """A member's type under its array extents, and the extents (``double v[3]``: [3])."""
        t = d.type
        dims: list[int] = []
        while isinstance(t, c_ast.ArrayDecl):
            if t.dim is None:
                raise TypeProblem(d, f"the array member '{d.name}' needs a size")
            dims.append(self._extent(t.dim, d))
            t = t.type
        count = 1
        for n in dims:
            count *= n
        if count > MAX_MEMBER_NUMBERS:  # each element is a slot of its own (StructLayout.slot_paths)
            raise TypeProblem(d, f"the array member '{d.name}' holds {count:,} elements; s2sad reads struct members "
                              f"of up to {MAX_MEMBER_NUMBERS:,}",
                              "hold a large array outside the struct (a pointer member set to it, or a parameter)")
        return t, dims

    def _extent(self, node: c_ast.Node, where: c_ast.Node) -> int:
        value = int_constant(node, self.constants, set())
        if value is None or value <= 0:
            raise TypeProblem(where, f"the array member '{getattr(where, 'name', '')}' needs a positive constant size",
                              "give its size as a number or a #define")
        return value


# A struct's array member is read element by element (a slot, a value of its own each): past this
# many elements, a translation would spend its time and memory on one declaration (doorfuzz seed
# 995894: a member of 2**64 elements was an internal error).
MAX_MEMBER_NUMBERS = 65_536


def _definition(node: c_ast.Struct, name: str, typedef: Optional[str], fields: list[Field]) -> str:
    """The struct's definition as output prints it (sizes as numbers: macros are not carried over)."""
    members = [f"    {f.spelling} {f.name}{''.join(f'[{n}]' for n in f.dims)};" for f in fields]
    if typedef is None:
        return "\n".join([f"{name} {{", *members, "};"])
    tag = f" {node.name}" if node.name else ""
    return "\n".join([f"typedef struct{tag} {{", *members, f"}} {typedef};"])


def _record_definition(node: c_ast.Struct, name: str, typedef: Optional[str], members: list[Member]) -> str:
    """A struct of mixed members as output prints it (sizes as numbers: macros are not carried over)."""
    lines = []
    for m in members:
        if m.shape == "pointer":
            lines.append(f"    {m.spelling}{m.name};")
        else:
            lines.append(f"    {m.spelling} {m.name}{''.join(f'[{n}]' for n in m.extents)};")
    if typedef is None:
        return "\n".join([f"{name} {{", *lines, "};"])
    tag = f" {node.name}" if node.name else ""
    return "\n".join([f"typedef struct{tag} {{", *lines, f"}} {typedef};"])


def int_constant(node: c_ast.Node, constants: dict[str, c_ast.Node], seen: set[str]) -> Optional[int]:
    """The value of an integer constant expression (literals, #defines, + - * /), or None."""
    if isinstance(node, c_ast.Constant) and "int" in node.type:
        digits = node.value.rstrip("uUlL")
        return int(digits, 16 if digits[:2].lower() == "0x" else 8 if digits.startswith("0") and len(digits) > 1
                   else 10)
    if isinstance(node, c_ast.ID) and node.name in constants and node.name not in seen:
        return int_constant(constants[node.name], constants, seen | {node.name})
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
        v = int_constant(node.expr, constants, seen)
        return None if v is None else (-v if node.op == "-" else v)
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*", "/"):
        a, b = int_constant(node.left, constants, seen), int_constant(node.right, constants, seen)
        if a is None or b is None or (node.op == "/" and b == 0):
            return None
        return {"+": a + b, "-": a - b, "*": a * b, "/": int(a / b) if b else 0}[node.op]
    return None
