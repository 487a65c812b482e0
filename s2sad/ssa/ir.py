"""The SSA IR: values, operations, blocks, functions and modules.

Control flow is structured: an op may own regions (each region is one ``Block``),
so loops stay loops and branches stay branches all the way to the emitters.
Every value is defined exactly once, by an op result or a block argument, and
keeps its uses (an ordered dict) so passes can rewrite in place. Values are compared by
identity. ``name_hint`` carries the source name (``res``, ``acc``) so emitters can
print the user's names back; ``loc`` on each op points at the source.

The op vocabulary and its typing rules live in ``s2sad.ssa.ops``.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional, Union

from .types import Type


@dataclass(frozen=True)
class SourceLoc:
    """A span in a source file (1-based line and column, end exclusive)."""

    file: str
    line: int
    col: int
    end_line: int = 0
    end_col: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class SourceLines(list):
    """The lines of the file s2sad reads (a list: every stage indexes it by a location's
    line), and the lines of the files it includes, by the names locations give them: a
    location in a C header shows that header's line, not the line of the same number here."""

    def __init__(self, lines: list[str], name: str, others: Optional[dict[str, list[str]]] = None):
        super().__init__(lines)
        self.name = name
        self.others = dict(others or {})

    def of(self, file: str) -> list[str]:
        """The lines of ``file``: none for a file s2sad did not read (a macro's body)."""
        return self if file == self.name else self.others.get(file, [])


def lines_of(lines: list[str], file: str) -> list[str]:
    """The lines a location in ``file`` indexes: ``lines`` itself unless they know several files."""
    return lines.of(file) if isinstance(lines, SourceLines) else lines


class Value:
    """An SSA value: the result of an op or an argument of a block."""

    __slots__ = ("type", "name_hint", "owner", "index", "uses")

    def __init__(self, type: Type, name_hint: str = "", owner: Any = None, index: int = 0):
        self.type = type
        self.name_hint = name_hint
        self.owner = owner  # the defining Op, or the Block whose argument this is
        self.index = index
        # (op, operand index) of each use, in the order made: a dict, so that dropping one costs the
        # same for a value used ten thousand times (a long function's n) as for one used once
        self.uses: dict[tuple[Op, int], None] = {}

    @property
    def defining_op(self) -> Optional["Op"]:
        return self.owner if isinstance(self.owner, Op) else None

    @property
    def is_block_arg(self) -> bool:
        return isinstance(self.owner, Block)

    def replace_all_uses_with(self, other: "Value") -> None:
        for op, i in list(self.uses):
            op.set_operand(i, other)

    def __repr__(self) -> str:
        return f"<Value {self.name_hint or '?'}:{self.type}>"


class Op:
    """An operation: ``results = name(operands) {attrs} regions``."""

    __slots__ = ("name", "operands", "results", "attrs", "regions", "loc", "parent")

    def __init__(
        self,
        name: str,
        operands: list[Value],
        result_types: list[Type],
        attrs: Optional[dict[str, Any]] = None,
        regions: Optional[list["Block"]] = None,
        loc: Optional[SourceLoc] = None,
        hints: Optional[list[str]] = None,
    ):
        self.name = name
        self.operands: list[Value] = []
        for v in operands:
            self._add_operand(v)
        hints = hints or [""] * len(result_types)
        self.results = [Value(t, h, self, i) for i, (t, h) in enumerate(zip(result_types, hints))]
        self.attrs: dict[str, Any] = dict(attrs or {})
        self.regions: list[Block] = []
        for r in regions or []:
            self.add_region(r)
        self.loc = loc
        self.parent: Optional[Block] = None

    # -- operands -------------------------------------------------------------
    def _add_operand(self, v: Value) -> None:
        assert isinstance(v, Value), f"operand of {self.name} is not a Value: {v!r}"
        v.uses[(self, len(self.operands))] = None
        self.operands.append(v)

    def set_operand(self, i: int, v: Value) -> None:
        old = self.operands[i]
        del old.uses[(self, i)]
        self.operands[i] = v
        v.uses[(self, i)] = None

    def drop_operands(self) -> None:
        for i, v in enumerate(self.operands):
            del v.uses[(self, i)]
        self.operands = []

    def set_operands(self, values: list[Value]) -> None:
        self.drop_operands()
        for v in values:
            self._add_operand(v)

    # -- regions --------------------------------------------------------------
    def add_region(self, block: "Block") -> "Block":
        block.parent_op = self
        self.regions.append(block)
        return block

    @property
    def result(self) -> Value:
        assert len(self.results) == 1, f"{self.name} has {len(self.results)} results"
        return self.results[0]

    def walk(self) -> Iterator["Op"]:
        """This op, then every op nested in its regions, in program order."""
        yield self
        yield from _walk_nested(iter(self.regions))

    def encloses(self, v: Value) -> bool:
        """Whether ``v`` is made inside one of this op's regions (by an op or as a block argument)."""
        block = v.owner if v.is_block_arg else v.defining_op.parent
        while block is not None and block.parent_op is not None:
            if block.parent_op is self:
                return True
            block = block.parent_op.parent
        return False

    def erase(self) -> None:
        """Remove from the parent block; the results must be unused. (Many at once: ``erase_ops``.)"""
        self._detach()
        if self.parent is not None:
            ops = self.parent.ops
            if ops and ops[-1] is self:  # the op just made, taken back: no search
                ops.pop()
            else:
                ops.remove(self)
            self.parent = None

    def _detach(self) -> None:
        for r in self.results:
            assert not r.uses, f"erasing {self.name} whose result is still used"
        for inner in list(self.walk())[1:]:
            inner.drop_operands()
        self.drop_operands()

    def __repr__(self) -> str:
        return f"<Op {self.name}>"


def erase_ops(ops: "list[Op]") -> None:
    """Erase many ops, each block's list rebuilt once: erasing them one by one searches the list
    for each, which a long function's thousands of erasures made quadratic."""
    by_block: dict[int, tuple[Block, set[int]]] = {}
    for op in ops:
        op._detach()
        if op.parent is not None:
            by_block.setdefault(id(op.parent), (op.parent, set()))[1].add(id(op))
            op.parent = None
    for block, gone in by_block.values():
        block.ops[:] = [op for op in block.ops if id(op) not in gone]


class Block:
    """A straight-line list of ops with arguments; the single block of a region."""

    def __init__(self, arg_types: Optional[list[Type]] = None, arg_hints: Optional[list[str]] = None):
        arg_types = arg_types or []
        arg_hints = arg_hints or [""] * len(arg_types)
        self.args = [Value(t, h, self, i) for i, (t, h) in enumerate(zip(arg_types, arg_hints))]
        self.ops: list[Op] = []
        self.parent_op: Optional[Op] = None
        # Of a function's body: the axes of its array parameters that the source says are one long
        # (``a: "f64[n, 1]"``), by argument index (``array_ops.shape_unit_axes``).
        self.arg_unit_axes: dict[int, frozenset[int]] = {}

    def add_arg(self, type: Type, hint: str = "") -> Value:
        v = Value(type, hint, self, len(self.args))
        self.args.append(v)
        return v

    def append(self, op: Op) -> Op:
        op.parent = self
        self.ops.append(op)
        return op

    def insert(self, index: int, op: Op) -> Op:
        op.parent = self
        self.ops.insert(index, op)
        return op

    @property
    def terminator(self) -> Optional[Op]:
        return self.ops[-1] if self.ops else None

    def walk(self) -> Iterator[Op]:
        """Every op of this block and nested in its ops, in program order."""
        return _walk_nested(iter([self]))


def _walk_nested(items: Iterator[Union[Op, Block]]) -> Iterator[Op]:
    """The ops of ``items`` (ops and blocks) and of every region below them, in program order.

    An explicit stack, not nested generators: a generator per level makes every op pass up
    through one frame per enclosing region, so a walk of deeply nested code (an ``else if``
    chain hundreds long) cost its size times its depth, and that walk is asked for at every
    level. A block's ops are read when the walk reaches it, as they were then (ops may be
    erased or inserted behind it)."""
    stack = [items]
    while stack:
        for item in stack[-1]:  # (a for loop over a block's ops: the walk is most passes' cost)
            if isinstance(item, Block):
                stack.append(iter(list(item.ops)))
                break
            yield item
            if item.regions:
                stack.append(iter(item.regions))
                break
        else:
            stack.pop()


@dataclass
class Function:
    """A function: its parameters are the arguments of ``body``; ``body`` ends in ``return``."""

    name: str
    body: Block
    result_types: list[Type]
    loc: Optional[SourceLoc] = None
    attrs: dict[str, Any] = field(default_factory=dict)
    # A fact about the source, not the IR as it is now: the indices of the array parameters the
    # source writes, directly or through a callee, even under a branch a pass later folds away.
    # Recorded once, before any pass runs (``analysis.effects.record_source_writes``); the
    # gradient's signature reads it, so no optimization level changes the signature.
    source_writes: Optional[frozenset[int]] = field(default=None, compare=False)
    # Another: the names the source function binds (its parameters and every local variable it
    # assigns or declares), set by the front end, whether or not any code still needs them
    # (a dead local is gone before the first pass). The gradient's generated names give way to
    # them (adjoint/naming.py), so a signature never depends on what a pass removed.
    source_names: frozenset[str] = field(default=frozenset(), compare=False)

    @property
    def params(self) -> list[Value]:
        return self.body.args

    @property
    def param_names(self) -> list[str]:
        return [p.name_hint for p in self.body.args]

    def walk(self) -> Iterator[Op]:
        """Every op of the function, in program order (while ``held_unchanged``, the same list
        each time, made once)."""
        if _held is None:
            return self.body.walk()
        found = _held.get(id(self))
        if found is None:  # (the function kept with its list: its id is not reused meanwhile)
            found = _held[id(self)] = (self, list(self.body.walk()))
        return iter(found[1])


# While code that changes no IR reads it (the emitters print every function): function's id ->
# (the function, its ops as ``walk`` gives them). An emitter's analyses walk each function a dozen
# times (out-of-SSA, extents, ranges, memory, calls...), each walk of a long function a generator
# step per op.
_held: Optional[dict[int, tuple[Function, list[Op]]]] = None


@contextmanager
def held_unchanged() -> Iterator[None]:
    """Within it, no IR changes: ``Function.walk`` walks each function once and then gives
    the ops it found again."""
    global _held
    outer = _held
    _held = {} if outer is None else outer
    try:
        yield
    finally:
        _held = outer


@dataclass
class Module:
    """The functions of one translation unit, in source order."""

    functions: dict[str, Function] = field(default_factory=dict)
    source_file: str = ""
    source_lines: list[str] = field(default_factory=list)
    # --may-alias: array parameters may share memory, so the emitters may not move a read of
    # one past a write to another (the passes learn it from their PassContext).
    may_alias: bool = False
    # Why ``may_alias`` holds where no --may-alias asked for it: the calls that pass one array
    # twice (``analysis.effects.overlapping_calls``), in words, for the output's header.
    overlapping: list[str] = field(default_factory=list)
    # Of a module of gradients: the module of primal functions they were made from (the entry's
    # primal is not among this module's functions; what it tells of the arrays still holds).
    primals: Optional["Module"] = None

    def add(self, fn: Function) -> Function:
        self.functions[fn.name] = fn
        return fn


class Builder:
    """Appends ops to a block; the one way front ends and passes create IR."""

    def __init__(self, block: Block, loc: Optional[SourceLoc] = None):
        self.block = block
        self.loc = loc
        self.index: Optional[int] = None  # None: append; else insert here and advance
        self.before: Optional[Op] = None  # when set: insert just before this op (it may move)
        self._before_at: Optional[int] = None  # its index after the last insertion

    def at(self, block: Block, index: Optional[int] = None) -> "Builder":
        b = Builder(block, self.loc)
        b.index = index
        return b

    def before_op(self, op: Op) -> "Builder":
        """A builder that inserts just before ``op``, wherever ``op`` moves to."""
        assert op.parent is not None
        b = Builder(op.parent, self.loc)
        b.before = op
        return b

    def create(
        self,
        name: str,
        operands: list[Value],
        result_types: list[Type],
        attrs: Optional[dict[str, Any]] = None,
        regions: Optional[list[Block]] = None,
        hints: Optional[list[str]] = None,
        loc: Optional[SourceLoc] = None,
    ) -> Op:
        op = Op(name, operands, result_types, attrs, regions, loc or self.loc, hints)
        if self.before is not None:
            ops = self.block.ops
            at = self._before_at  # where it was after the last insertion: a search only if it moved
            if at is None or at >= len(ops) or ops[at] is not self.before:
                at = ops.index(self.before)
            self.block.insert(at, op)
            self._before_at = at + 1
        elif self.index is None:
            self.block.append(op)
        else:
            self.block.insert(self.index, op)
            self.index += 1
        return op

    def op1(self, name: str, operands: list[Value], result_type: Type, hint: str = "", **attrs: Any) -> Value:
        """Create a single-result op and return its result."""
        return self.create(name, operands, [result_type], attrs, hints=[hint]).result
