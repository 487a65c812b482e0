"""Analyses shared by the optimization passes: memory effects, array roots, aliasing.

Arrays are references to memory. Every array value normally traces back to a
*root*: a function parameter, or the result of ``alloc``/``copy``/``tape.new``
(fresh memory). A ``view`` is not a root: it names part of its base's memory,
so it has its base's root, and a write through it writes that root (a view is
never fresh, and two views of one array may overlap). The passes reason per root:

* ``FunctionEffects``: which array parameters a function reads and writes,
  transitively through the calls it makes (``EffectAnalysis.of``). A call to a
  function that is not in the module is assumed to read and write every array
  it is given. Stores into a function's own ``alloc`` arrays are not effects:
  the caller cannot see them.
* ``is_readonly(fn)``: writes no memory its caller can see (no parameter array,
  directly or through callees); it may read arrays and write local scratch
  arrays. A call to it can be moved past anything that does not write the
  arrays it is given.
* ``is_pure(fn)``: read-only *and* reads no parameter array's contents (``dim``
  reads only the shape): its results depend on its argument values alone, so a
  call to it behaves like a pure op (moved anywhere its operands are defined,
  merged with an identical call).
* ``EffectAnalysis.written_roots(op)`` / ``read_roots(op)``: the roots an op
  (a store, a call, a whole loop or branch with everything nested in it) may
  write or read, as a ``RootSet``.
* ``aliases(a, b, ctx)``: whether two roots may name overlapping memory. The
  contract's default (arrays passed to a function never overlap, as with C's
  ``restrict``) makes distinct roots disjoint; with ``ctx.may_alias`` two
  *parameters* may overlap. Fresh memory (``alloc``, ``copy``, tapes) never
  aliases anything else either way.

An array whose root is unknown (chosen by a branch, carried by a loop, returned
by a call) has root ``None``: it may alias everything, and a write through it
may write every root.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Optional

from ..ssa.ir import Function, Module, Op, Value
from ..ssa.array_ops import array_reads, array_writes, is_array_op, makes_fresh_array
from ..ssa.ops import view_base

if TYPE_CHECKING:  # passes.py imports the passes to register them
    from .passes import PassContext

# Ops whose array result is fresh memory, a root of its own.
FRESH = ("alloc", "copy", "tape.new")


def array_root(v: Value) -> Optional[Value]:
    """The parameter or fresh-memory result ``v`` refers to; None when that depends on control flow."""
    v = view_base(v)
    if v.is_block_arg:
        return v if v.owner.parent_op is None else None
    op = v.defining_op
    if op is not None and (op.name in FRESH or makes_fresh_array(op)):
        return v
    return None


def is_param(root: Value) -> bool:
    return root.is_block_arg and root.owner.parent_op is None


def aliases(a: Optional[Value], b: Optional[Value], ctx: "PassContext") -> bool:
    """Whether roots ``a`` and ``b`` may overlap (None: unknown, may overlap anything)."""
    if a is None or b is None or a is b:
        return True
    return ctx.may_alias and is_param(a) and is_param(b)


@dataclass(frozen=True)
class RootSet:
    """The roots an op may touch; ``anything`` when some of them are unknown."""

    roots: frozenset = field(default_factory=frozenset)
    anything: bool = False

    def may_touch(self, root: Optional[Value], ctx: "PassContext") -> bool:
        """Whether memory of ``root`` may be among these (under ``ctx``'s aliasing assumption)."""
        return self.anything or any(aliases(r, root, ctx) for r in self.roots)

    def __bool__(self) -> bool:
        return self.anything or bool(self.roots)


@dataclass(frozen=True)
class FunctionEffects:
    """Indices of the array parameters a function reads and writes (transitively)."""

    reads: frozenset[int]
    writes: frozenset[int]

    @property
    def readonly(self) -> bool:
        return not self.writes

    @property
    def pure(self) -> bool:
        return not self.writes and not self.reads


class EffectAnalysis:
    """Memory effects of the functions of one module, memoized.

    Valid while the module's functions keep their effects: inlining and code
    motion preserve them, so one instance serves a whole pass.
    """

    def __init__(self, module: Module):
        self.module = module
        self._memo: dict[str, FunctionEffects] = {}

    # -- functions --------------------------------------------------------------------
    def of(self, fn: Function) -> FunctionEffects:
        if fn.name not in self._memo:
            # Recursion guard (a function may call itself): assume every effect
            # while the function's own body is being summarized.
            arrays = frozenset(i for i, p in enumerate(fn.params) if p.type.is_array)
            self._memo[fn.name] = FunctionEffects(arrays, arrays)
            reads = self._touched(fn, self._read_roots(fn.walk()))
            writes = self._touched(fn, self._written_roots(fn.walk()))
            self._memo[fn.name] = FunctionEffects(reads, writes)
        return self._memo[fn.name]

    def callee(self, op: Op) -> Optional[Function]:
        """The module function a ``call`` names; None when it is not in the module."""
        return self.module.functions.get(op.attrs.get("callee", ""))

    def call_effects(self, op: Op) -> Optional[FunctionEffects]:
        fn = self.callee(op)
        return None if fn is None else self.of(fn)

    def is_readonly(self, fn: Function) -> bool:
        return self.of(fn).readonly

    def is_pure(self, fn: Function) -> bool:
        return self.of(fn).pure

    @staticmethod
    def _touched(fn: Function, roots: RootSet) -> frozenset[int]:
        return frozenset(
            i for i, p in enumerate(fn.params) if p.type.is_array and (roots.anything or p in roots.roots)
        )

    # -- ops ----------------------------------------------------------------------------
    def written_roots(self, op: Op) -> RootSet:
        """Roots that ``op``, or any op nested in its regions, may write."""
        return self._written_roots(op.walk())

    def read_roots(self, op: Op) -> RootSet:
        """Roots whose contents ``op``, or any op nested in its regions, may read."""
        return self._read_roots(op.walk())

    def _written_roots(self, ops: Iterable[Op]) -> RootSet:
        return self._collect(ops, write=True)

    def _read_roots(self, ops: Iterable[Op]) -> RootSet:
        return self._collect(ops, write=False)

    def _collect(self, ops: Iterable[Op], write: bool) -> RootSet:
        roots: set[Value] = set()
        anything = False

        def add(v: Value) -> None:
            nonlocal anything
            r = array_root(v)
            if r is None:
                anything = True
            else:
                roots.add(r)

        for op in ops:
            if op.name == "store" or op.name == "tape.push":
                if write:
                    add(op.operands[0])
            elif op.name == "load" or op.name == "copy":
                if not write:
                    add(op.operands[0])
            elif is_array_op(op.name):
                for v in array_writes(op) if write else array_reads(op):
                    add(v)
            elif op.name == "tape.pop":
                add(op.operands[0])  # reads the top and shrinks the stack
            elif op.name == "gpu.sync":
                anything = True  # what other threads wrote becomes visible: any memory may change
            elif op.name == "call":
                eff = self.call_effects(op)
                if eff is None:
                    anything = True
                    continue
                for i in eff.writes if write else eff.reads:
                    add(op.operands[i])
        return RootSet(frozenset(roots), anything)


def function_effects(module: Module, fn: Function) -> FunctionEffects:
    return EffectAnalysis(module).of(fn)


def is_readonly(module: Module, fn: Function) -> bool:
    """``fn`` writes no memory its callers can see (see the module docstring)."""
    return EffectAnalysis(module).is_readonly(fn)


def is_pure(module: Module, fn: Function) -> bool:
    """``fn`` neither writes nor reads memory its callers can see: a function of its arguments."""
    return EffectAnalysis(module).is_pure(fn)


def op_count(fn_or_block) -> int:
    """Ops in a function or block, counted recursively; terminators and comments excluded."""
    return sum(1 for op in fn_or_block.walk() if op.name not in ("yield", "condition", "return", "comment"))


def contains_loop(fn: Function) -> bool:
    return any(op.name in ("for", "while") for op in fn.walk())


def callees_first(module: Module) -> list[Function]:
    """The module's functions, every callee before its callers (call-graph post-order)."""
    order: list[Function] = []
    seen: set[str] = set()

    def visit(fn: Function) -> None:
        seen.add(fn.name)
        for op in fn.walk():
            if op.name == "call":
                callee = module.functions.get(op.attrs.get("callee", ""))
                if callee is not None and callee.name not in seen:
                    visit(callee)
        order.append(fn)

    for fn in list(module.functions.values()):
        if fn.name not in seen:
            visit(fn)
    return order
