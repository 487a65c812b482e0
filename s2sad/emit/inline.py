"""Which IR values become expressions inside other statements, and which get variables.

Readable output folds values into their users' expressions the way a person
writes them: ``s += a[i] * b[i]`` rather than three temporaries. The plan gives
every single-result op one mode:

* ``LITERAL``: ``const`` and ``undef``, printed as literals wherever used;
* ``INLINE``: printed inside its user's expression (a pure value, a load, a call
  of a function that writes no memory, or an ``if`` whose branches are only
  such expressions, which prints as ``a if c else b``);
* ``DUP``: a cheap value used several times (``x[i]``, ``x.shape[0]``, ``i + 1``),
  printed at each use rather than held in a temporary; a ``field`` index always
  is, wherever its uses are;
* ``DEAD``: no effect and no use: not printed;
* otherwise (absent from the plan) it is *materialised*: an assignment to a variable.

A value is folded only when that is invisible to the program: it has no
``name_hint`` (a source name is an assignment the user wrote), every use is by
an op of the same block (nothing moves into a loop body or a branch), and no op
between its definition and the statement that evaluates it may write an array
it reads (arrays are roots: parameters, ``alloc`` results, tapes, and a view
has its base's; distinct parameters never alias, as the contract guarantees, unless
``module.may_alias``). Moving past a
reassignment of an operand's *variable* is prevented later: liveness counts
uses at the evaluating statement (see ``layout``), so out-of-SSA never lets
such a variable be overwritten in between.

Ops are visited last to first in each block, so a value's users are decided
before it and the statement that finally evaluates it (its *anchor*) is known.
An ``accum`` op (``d[i] += g``) prints as the load, add and store it stands for,
``d[i] = d[i] + g`` (tidied to ``+=``): its array and indices are printed twice, so each counts
as two uses (a costly index gets a variable, a cheap one is ``DUP``), as when it was a load and
a store. The out-of-SSA pass may ask for a named value to be folded into the copy at a
loop's end (``sunk``): ``a, b = b, a + b`` instead of a temporary.
"""

from __future__ import annotations

from typing import Optional

from ..ssa.ir import Block, Function, Module, Op, Value
from ..analysis.effects import array_root, written_params
from ..ssa.mpi import is_mpi
from ..diagnostics import DiagnosticError
from ..ssa.array_ops import is_array_op
from ..ssa.callgraph import reachable
from ..ssa.gpu import BUILTINS as GPU_BUILTINS
from ..ssa.opdefs import is_pure, op_def
from ..ssa.ops import COMPARE

LITERAL = "literal"
INLINE = "inline"
DUP = "dup"
DEAD = "dead"

_UNKNOWN = object()  # the root of an array that cannot be traced: conflicts with everything

_CHEAP_OPS = ("load", "dim", "neg", "cast", "not")
_CHEAP_INT_OPS = ("add", "sub", "mul")


class Effects:
    """Memory effects of ops: which array roots an op reads and writes."""

    def __init__(self, module: Module):
        self.module = module
        self._written: dict[str, tuple[int, ...]] = {}
        self._summaries: dict[str, set[int]] = {}  # (analysis.effects.written_params's memo)

    def root(self, arr: Value):
        root = array_root(arr)
        return _UNKNOWN if root is None else root

    def overlap(self, a, b) -> bool:
        """Whether distinct roots ``a`` and ``b`` may share memory: two parameters, under --may-alias."""
        return self.module.may_alias and all(
            r is not _UNKNOWN and r.is_block_arg and r.owner.parent_op is None for r in (a, b))

    def written_params(self, name: str) -> tuple[int, ...]:
        """Indices of the array parameters function ``name`` may write (unknown callee: all):
        the analysis's summary, grown to a fixed point through a function's calls of itself (one
        that passes its parameters in other positions, ``f(b, a, n - 1)``, writes both: taken as
        writing the first alone, a load of ``b`` before its call was printed after it)."""
        if name not in self._written:
            fn = self.module.functions.get(name)
            if fn is None:
                return tuple(range(64))
            try:
                written = sorted(written_params(self.module, fn, self._summaries))
            except DiagnosticError:  # an array whose identity the analysis cannot tell: any
                written = list(range(len(fn.params)))
            if self._waits(name):  # what other threads wrote becomes visible: any
                written = list(range(len(fn.params)))
            self._written[name] = tuple(written)
        return self._written[name]

    def _waits(self, name: str) -> bool:
        """Whether function ``name`` or one it calls waits at a barrier."""
        return any(op_def(op.name).effects == "barrier"
                   for callee in reachable(self.module, [name]) for op in self.module.functions[callee].walk())

    def writes(self, op: Op) -> list:
        """Roots ``op`` itself writes (not counting nested ops)."""
        if op.name == "call":
            written = self.written_params(op.attrs["callee"])
            return [self.root(a) for i, a in enumerate(op.operands) if i in written and a.type.is_array]
        d = op_def(op.name)
        if d.effects == "barrier":  # what other threads wrote becomes visible: any memory may change
            return [_UNKNOWN]
        return [self.root(a) for a in d.writes(op)]

    def writes_deep(self, op: Op) -> list:
        out: list = []
        for inner in op.walk():
            out += self.writes(inner)
        return out

    def reads(self, op: Op) -> list:
        if op.name == "call":
            return [self.root(a) for a in op.operands if a.type.is_array]
        return [self.root(a) for a in op_def(op.name).reads(op)]

    def is_pure_call(self, op: Op) -> bool:
        return (
            op.name == "call"
            and len(op.results) == 1
            and op.attrs["callee"] in self.module.functions
            and not self.written_params(op.attrs["callee"])
        )


class InlinePlan:
    """The mode of every single-result op's result (see the module docstring)."""

    def __init__(self, fn: Function, effects: Effects, layout, sunk: Optional[dict[Value, None]] = None):
        self.fn = fn
        self.effects = effects
        self.layout = layout
        self.sunk: dict[Value, None] = dict(sunk or {})
        self.mode: dict[Value, str] = {}
        self._local_cache: dict[Value, Optional[list[Op]]] = {}
        # op -> the roots it and its nested ops write, while planning (the IR is not changed):
        # ``_movable`` asks it of each op between a value and its use, so the same op of a long
        # block for each value made before it.
        self._writes_deep: dict[Op, list] = {}
        self._plan_block(fn.body)
        self._writes_deep.clear()
        self._anchor_cache: dict[Value, list[Op]] = {}

    # -- queries ----------------------------------------------------------------
    def is_expr(self, v: Value) -> bool:
        """Printed as an expression (no variable of its own)."""
        return self.mode.get(v) in (LITERAL, INLINE, DUP)

    def is_dead(self, v: Value) -> bool:
        return self.mode.get(v) == DEAD

    def folded_op(self, op: Op) -> bool:
        return len(op.results) == 1 and self.mode.get(op.result) in (LITERAL, INLINE, DUP, DEAD)

    def inline_if(self, op: Op) -> bool:
        return op.name == "if" and len(op.results) == 1 and self.mode.get(op.result) in (INLINE, DUP)

    def live_users(self, v: Value) -> list[Op]:
        return [u for u, _ in v.uses if not self.folded_dead(u)]

    def folded_dead(self, op: Op) -> bool:
        return len(op.results) == 1 and self.mode.get(op.result) == DEAD

    def anchors(self, v: Value) -> list[Op]:
        """The statements that evaluate ``v``'s uses (through folded users)."""
        if v not in self._anchor_cache:
            out: list[Op] = []
            for user, _ in v.uses:
                out += self._op_anchors(user)
            self._anchor_cache[v] = out
        return self._anchor_cache[v]

    def _op_anchors(self, op: Op) -> list[Op]:
        if len(op.results) == 1 and self.mode.get(op.result) == DEAD:
            return []
        if len(op.results) == 1 and self.mode.get(op.result) in (INLINE, DUP):
            return self.anchors(op.result)
        if op.name == "yield" and op.parent.parent_op is not None and self.inline_if(op.parent.parent_op):
            return self._op_anchors(op.parent.parent_op)
        return [op]

    # -- planning ---------------------------------------------------------------
    def _plan_block(self, block: Block) -> None:
        for op in reversed(block.ops):
            for r in op.regions:
                self._plan_block(r)
            if len(op.results) == 1:
                mode = self._decide(op)
                if mode is not None:
                    self.mode[op.result] = mode

    def _local_anchors(self, v: Value) -> Optional[list[Op]]:
        """Ops of v's block that evaluate v's uses; None if a use is in another block. Kept once
        asked: it is asked of ``v`` when ``v``'s op is decided, after every user in its block (the
        block is planned from its end), so the modes it reads are final; a chain of folded
        values (a sum of 8,000 terms) asked it down the chain at every link."""
        if v in self._local_cache:
            return self._local_cache[v]
        found = self._ask_local_anchors(v)
        self._local_cache[v] = found
        return found

    def _ask_local_anchors(self, v: Value) -> Optional[list[Op]]:
        out: list[Op] = []
        for user, k in v.uses:
            if user.parent is not v.defining_op.parent:
                return None
            if len(user.results) == 1 and self.mode.get(user.result) == DEAD:
                continue
            if len(user.results) == 1 and self.mode.get(user.result) in (INLINE, DUP):
                sub = self._local_anchors(user.result)
                if sub is None:
                    return None
                out += sub
            else:
                out.append(user)
                if user.name == "accum" and k < len(user.operands) - 1:
                    out.append(user)  # its array and indices print twice: d[i] = d[i] + g (see below)
        return out

    def _foldable_kind(self, op: Op) -> bool:
        if is_mpi(op.name):
            return False  # MPI_Comm_rank(comm, &rank): a statement of its own, in C
        if is_pure(op) or op.name == "load" or self.effects.is_pure_call(op):
            return True
        if is_array_op(op.name) and len(op.results) == 1:
            return True  # a NumPy expression: folds like arithmetic (its reads are checked)
        if op.name == "if" and len(op.results) == 1:
            return all(inner.name == "yield" or self.folded_op(inner) for r in op.regions for inner in r.ops)
        return False

    def _decide(self, op: Op) -> Optional[str]:
        v = op.result
        if op.name in ("const", "undef"):
            return LITERAL
        if op.name in ("field", "global") or op.name in GPU_BUILTINS:
            # A struct member's index is printed inside each access (``d_b[i].pos[c]``), even in
            # another block: the emitters read its path there. Its operands stay live to each use.
            # A thread's coordinate (``threadIdx.x``), a global number nothing changes meanwhile
            # (``scale``: parse/c_globals) read best as themselves, wherever they are used.
            return DUP if self.live_users(v) else DEAD
        if not self._foldable_kind(op):
            if op.name in ("alloc", "copy") and not self.live_users(v):
                return DEAD
            return None
        anchors = self._local_anchors(v)
        if anchors is not None and not anchors:
            return DEAD  # no use, or only uses by dead values
        if v.name_hint and v not in self.sunk:
            return None
        if anchors is None or not anchors:
            return None
        reads = self._reads_deep(op)
        if not all(self._movable(op, reads, a) for a in anchors):
            return None
        if len(anchors) == 1:
            return INLINE
        if is_array_op(op.name):
            return None  # never recomputed at each use: it costs a pass over an array
        if op.name != "if" and self._cheap(v, 2):
            return DUP
        return None

    def _reads_deep(self, op: Op) -> list:
        out: list = []
        for inner in op.walk():
            out += self.effects.reads(inner)
        return out

    def _movable(self, op: Op, reads: list, anchor: Op) -> bool:
        """No op strictly between ``op`` and ``anchor`` writes an array ``op`` reads (``reads``:
        the roots ``op`` and its nested ops read)."""
        if not reads:
            return True
        block = op.parent
        lo, hi = self.layout.index[op], self.layout.index[anchor]
        for between in block.ops[lo + 1 : hi]:
            written = self._writes_deep.get(between)
            if written is None:
                written = self._writes_deep[between] = self.effects.writes_deep(between)
            for w in written:
                if w is _UNKNOWN or any(r is _UNKNOWN or r is w or self.effects.overlap(r, w) for r in reads):
                    return False
        return True

    def _cheap(self, v: Value, depth: int) -> bool:
        """Cheap and short enough to print at every use (``x[i]``, ``i + 1``, ``x.shape[0]``)."""
        op = v.defining_op
        if op is None or op.name in ("const", "global") or v.name_hint:
            return True
        if self.effects.is_pure_call(op) or op.name == "if":
            return False
        if not is_pure(op) and op.name != "load":
            return True  # a pop, an alloc, a loop result: it gets a variable
        if depth == 0:
            return False
        int_compare = op.name in COMPARE and op.operands[0].type.is_int
        if op.name in _CHEAP_OPS or (op.name in _CHEAP_INT_OPS and v.type.is_int) or int_compare:
            return all(self._cheap(o, depth - 1) for o in op.operands)
        return False
