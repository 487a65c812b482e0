"""Dead code elimination (aggressive, over structured control flow).

What: removes every op whose results are never needed by an effect, the
loop-carried and if-result slots nobody reads, whole loops and branches that
have no effect, and tapes whose popped values are never used (with their
pushes). Comments left with nothing to annotate are removed too.

Effects (the roots of liveness): ``return``, stores into arrays that outlive
the function (parameters), and calls to functions that write memory their
callers see or wait at a barrier (``analysis/effects``). A store
into a local ``alloc`` (directly or through a ``view`` of it) is live only when
the array is: an array nobody reads (an unused cache, a scratch array) goes with
all its stores (``accum`` and ``arr.accum`` count as stores). An unused whole-array op
(``arr.``) has no effect and goes like arithmetic: that is dead-array
elimination. A ``view`` is not an effect of its own: it lives while it is used.

Liveness then flows backwards: operands of live ops; the control operands of a
live loop or branch; a carried slot (``ssa/structured.Slot``) is live when its
result or its block argument is live, which makes its init and yielded values live. This is the
"mark and sweep" DCE of Cytron et al. (1991), applied to regions as in MLIR's
region-aware dead-value removal.

Pre: verified IR. Post: verified IR with the same effects.
"""

from __future__ import annotations

from typing import Optional

from ..analysis.effects import EffectAnalysis
from ..ssa.gpu import SYNC
from ..ssa.mpi import communicates
from ..ssa.callgraph import reachable
from ..ssa.ir import Block, Function, Module, Op, Value, erase_ops
from ..ssa.array_ops import ACCUMULATIONS, makes_fresh_array
from ..ssa.ops import view_base
from ..ssa.structured import Slot, drop_carried, slot_of, slots


# Ops whose effect is a write into their first operand: one into a local array is live with it.
_WRITES_FIRST = ("store", "accum", *ACCUMULATIONS)


class _Liveness:
    def __init__(self, effects: EffectAnalysis, scratch: frozenset[Value] = frozenset()):
        self.live_ops: set[Op] = set()
        self.live_vals: set[Value] = set()
        self.work: list[object] = []
        self.effects = effects  # one per module: callees are summarised once, not per caller
        self.scratch = scratch  # parameters every caller passes memory only this call uses (scratch_params)

    def _call_is_effect(self, op: Op) -> bool:
        """A call matters when its callee writes memory the caller sees or waits at a barrier
        (scratch arrays of its own do not count); a callee outside the module always does."""
        eff = self.effects.call_effects(op)
        return eff is None or bool(eff.writes) or eff.barrier

    def is_effect(self, op: Op) -> bool:
        if op.name in ("return", SYNC, "stop") or communicates(op.name):
            return True  # a barrier orders the other threads' memory too; other ranks wait for MPI
        if op.name in _WRITES_FIRST:
            # A store into a local array matters only if the array is read: it is
            # marked live with the array (below), not as an effect of its own. So does one
            # into a scratch parameter: no caller reads what it leaves there.
            return not _is_local_array(op.operands[0]) and view_base(op.operands[0]) not in self.scratch
        return op.name == "call" and self._call_is_effect(op)

    def mark_op(self, op: Op) -> None:
        if op not in self.live_ops:
            self.live_ops.add(op)
            self.work.append(op)

    def mark_val(self, v: Value) -> None:
        if v not in self.live_vals:
            self.live_vals.add(v)
            self.work.append(v)

    def run(self, fn: Function) -> None:
        for op in fn.walk():
            if self.is_effect(op):
                self.mark_op(op)
        while self.work:
            x = self.work.pop()
            if isinstance(x, Op):
                self._op_live(x)
            else:
                self._val_live(x)

    def _op_live(self, op: Op) -> None:
        if op.name == "for":
            for v in op.operands[:3]:
                self.mark_val(v)
        elif op.name == "if":
            self.mark_val(op.operands[0])
        elif op.name == "while":
            cond = op.regions[0].terminator
            self.mark_op(cond)
        elif op.name not in ("yield",):
            for v in op.operands:
                self.mark_val(v)
        if op.name == "tape.new":
            for user, _ in op.result.uses:
                if user.name == "tape.push":
                    self.mark_op(user)
        elif op.name in ("alloc", "copy") or makes_fresh_array(op):
            for store in _stores_into(op.result):
                self.mark_op(store)
        parent = op.parent.parent_op if op.parent is not None else None
        if parent is not None:
            self.mark_op(parent)

    def _slot_live(self, slot: Slot) -> None:
        """A slot of a loop or branch is live: its init and yields are needed."""
        for v in slot.sources:
            self.mark_val(v)
        for term in slot.yields:
            self.mark_op(term)
        self.mark_op(slot.op)

    def _val_live(self, v: Value) -> None:
        slot = slot_of(v)
        if slot is not None:
            self._slot_live(slot)
        elif v.is_block_arg:
            owner = v.owner.parent_op
            if owner is not None and owner.name == "for":
                self.mark_op(owner)  # its index: the loop computes it
            if v in self.scratch:  # read here: what the function stores there matters after all
                for store in _stores_into(v):
                    self.mark_op(store)
        else:
            self.mark_op(v.defining_op)


def _is_local_array(v: Value) -> bool:
    op = view_base(v).defining_op
    return op is not None and (op.name in ("alloc", "copy") or makes_fresh_array(op))


def _stores_into(arr: Value) -> list[Op]:
    """The stores into ``arr`` and into every view of it: they live and die with the array."""
    out: list[Op] = []
    for user, k in arr.uses:
        if k != 0:
            continue
        if user.name in _WRITES_FIRST:
            out.append(user)
        elif user.name == "view":
            out += _stores_into(user.result)
    return out


def _sweep_block(block: Block, lv: _Liveness) -> None:
    # Dead slots first, so the yields stop using values that are about to go.
    for op in block.ops:
        if op in lv.live_ops:
            if op.name in ("for", "if", "while"):
                _remove_dead_slots(op, lv)
            for region in op.regions:
                _sweep_block(region, lv)
    # Then dead ops, last first: users of a value come after its definition.
    for op in reversed(list(block.ops)):
        if op.name not in ("comment", "yield", "condition", "return") and op not in lv.live_ops:
            op.erase()
    _tidy_comments(block)


def _remove_dead_slots(op: Op, lv: _Liveness) -> None:
    for slot in reversed(slots(op)):
        if not any(v in lv.live_vals for v in slot.targets):
            drop_carried(op, slot.k)


def _tidy_comments(block: Block) -> None:
    """Drop comments that no longer precede any code.

    A line comment needs code right after it; a section comment (``section``
    attribute: "forward sweep", "reverse sweep") needs code before the next
    section starts, possibly under line comments of its own; and a section
    label is kept only beside another one.
    """
    code_follows = False  # any code between here and the next section comment
    nxt: Optional[Op] = None  # the op after this one, once the comments after it are tidied
    dropped: list[Op] = []
    for op in reversed(block.ops):
        if op.name == "comment":
            if op.attrs.get("section"):
                keep = code_follows
                code_follows = False
            else:
                keep = nxt is not None and nxt.name not in ("comment", "yield", "return", "condition")
            if not keep:
                dropped.append(op)
                continue
        elif op.name not in ("yield", "return", "condition"):
            code_follows = True
        nxt = op
    erase_ops(dropped)
    sections = [op for op in block.ops if op.name == "comment" and op.attrs.get("section")]
    if len(sections) == 1:
        sections[0].erase()  # one section alone (a gradient with no forward sweep) needs no label


def scratch_params(module: Module, outside: str) -> dict[str, frozenset[int]]:
    """The array parameters of each function that every call passes a local array nothing else
    uses (``grad_q_times(..., qxcentered_for_q_times, ...)``: the reverse sweep's buffer for what
    a callee writes and no one reads), but those of ``outside``, the function the user calls.
    What the function leaves there is never read, so a store into one is live only where the
    function itself reads it back (``_Liveness``)."""
    votes: dict[str, dict[int, bool]] = {}
    for fn in module.functions.values():
        for op in fn.walk():
            if op.name != "call" or op.attrs["callee"] not in module.functions:
                continue
            mine = votes.setdefault(op.attrs["callee"], {})
            for k, a in enumerate(op.operands):
                if a.type.is_array:
                    made = a.defining_op
                    alone = made is not None and made.name == "alloc" and \
                        all((user.name == "call" and user.attrs["callee"] == op.attrs["callee"] and j == k)
                            or user.name == "dim" for user, j in a.uses)
                    mine[k] = mine.get(k, True) and alone
    votes[outside] = {}  # (its own recursive calls vote too, but its caller is the user)
    return {name: frozenset(k for k, ok in v.items() if ok) for name, v in votes.items()}


def dce_function(fn: Function, module: Module, effects: Optional[EffectAnalysis] = None,
                 scratch: frozenset[int] = frozenset()) -> None:
    lv = _Liveness(effects or EffectAnalysis(module), frozenset(fn.params[k] for k in scratch))
    lv.run(fn)
    _sweep_block(fn.body, lv)


def dce_module(module: Module, called_from_outside: Optional[str] = None) -> None:
    """DCE of every function; with ``called_from_outside`` (the function the user calls), stores
    into the other functions' scratch parameters too (``scratch_params``)."""
    # DCE removes no writes a caller reads and no barrier, so the callees' effects stay valid
    # (what a callee no longer writes into a scratch parameter, no caller reads).
    effects = EffectAnalysis(module)
    scratch = scratch_params(module, called_from_outside) if called_from_outside in module.functions else {}
    for fn in module.functions.values():
        dce_function(fn, module, effects, scratch.get(fn.name, frozenset()))


def remove_unreachable_functions(module: Module, roots: list[str]) -> None:
    """Keep only the functions reachable by calls from ``roots``."""
    keep = reachable(module, roots)
    for name in list(module.functions):
        if name not in keep:
            del module.functions[name]
