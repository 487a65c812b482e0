"""Reverse mode on structured SSA: primal function -> gradient function.

The gradient function ``grad_f`` runs a *forward sweep* (a clone of the primal,
with the side effects the contract requires) and then a *reverse sweep* that
visits the primal's ops backwards and emits, for each active op, the adjoint
code its derivative rule builds (``rules.adjoint_contributions``). Structure is
mirrored, not flattened:

* a ``for`` becomes a ``for`` over the same iterations in reverse order; the
  adjoints of loop-carried values and of outer values updated in the body are
  carried by the reversed loop;
* an ``if`` becomes an ``if`` on the same condition;
* a ``while`` counts its iterations in the forward sweep and is reversed as a
  ``for`` over that count;
* a call to a user function becomes a call to its own ``grad_<callee>``;
* a CUDA barrier (``gpu.sync``) stays a barrier at the mirrored place, and the
  shadow of a ``__shared__`` array is ``__shared__`` (its ``alloc`` attributes).

Scalar adjoints are SSA values (so the cleanup passes see them); array adjoints
live in shadow memory (``d_x``), updated with load/store. The shadow of a view
``view(x, k)`` (C's ``x + k``) is the same view of the shadow, ``view(d_x, k)``:
a callee given a sub-array gets the matching sub-array of adjoints.

Primal values the reverse sweep needs (*availability*): values of the function's
top-level block are still there; a value inside a region is recomputed in the
mirrored region when it is a pure function of values still available (including
loads from arrays nobody writes); otherwise it is escaped out of an ``if`` as an
extra result, or pushed on a tape in the forward loop body and popped at the
start of the mirrored reverse iteration (store-all). Tapes are sized by the trip
counts when they are known before the outermost loop, and grow otherwise. Which
values of a loop body are taped is a minimum cut of what its reverse sweep asks
for (``mincut.py``, from a first run that records the requests, those of values
recomputed in nested branches included): one cached value from which several
needed ones are recomputed, not each of them.

A loop under a checkpointing schedule (``checkpoint.py``) is cloned into the
forward sweep with snapshots instead of tapes; its reversed loop re-runs each
iteration's body before that iteration's adjoint code, so values of the body are
taken from that re-run (``ck_bodies``) and tapes of its inner loops last one
iteration. What is cached goes into ``memory`` (``report.py``).

References: Griewank & Walther, "Evaluating Derivatives" (2008), ch. 3-4 for
reverse mode and tapes; Hascoet & Pascual, "The Tapenade AD tool" (2013) for
structured reversal of loops and branches.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from ..diagnostics import error
from ..ssa import build
from ..ssa.ir import Block, Builder, Function, Module, Op, Value
from ..ssa.array_ops import PREFIX as ARR, is_array_op, makes_fresh_array
from ..ssa.gpu import SYNC
from ..ssa.opdefs import is_pure
from ..ssa.structured import add_carried, add_if_result, drop_carried
from ..ssa.types import BOOL, I64, ArrayType, Type
from ..analysis.accumulation import shared_update
from .activity import Activity, analyze_activity
from ..ssa.attrs import Schedule, set_grad_info
from .checkpoint import CheckpointedLoop, plan
from .mincut import INF, CachePlan, plan_cache
from .report import CheckpointEntry, MemoryReport, TapeEntry, elem_bytes
from ..analysis.effects import (known_root, may_be_written, snapshot_args, source_written_params, written_arrays,
                                written_operands, written_params, written_roots)
from . import array_rules  # noqa: F401  (registers the rules of the arr. ops)
from .rules import MissingRule, adjoint_contributions
from .trip_bounds import trip_bound
from .naming import free_variant, function_names, signature_names


def _c_gradient_params(fn: Function, shadowed: Iterable[int], has_d_return: bool) -> list[str]:
    """The declared C types of the gradient's parameters: the primal's, a shadow's without
    ``const`` (it is written), and ``d_return`` of the primal's result type."""
    spelled = fn.attrs["c_params"]
    out: list[str] = []
    for i in range(len(fn.params)):
        out.append(spelled[i])
        if i in shadowed:
            out.append(" ".join(w for w in spelled[i].split() if w != "const"))
    if has_d_return:
        out.append(fn.attrs["c_result"])
    return out


def grad_name(name: str) -> str:
    return f"grad_{name}"


def adjoint_hint(v: Value) -> str:
    return f"d_{v.name_hint}" if v.name_hint else ""


@dataclass
class GradSignature:
    """How ``grad_<fn>`` is called: which params have shadows, which adjoints return."""

    fn: Function
    wrt: set[int]
    shadowed: list[int]  # array params followed by a shadow
    returned: list[int]  # float scalar params whose adjoints are returned
    has_d_return: bool
    # The generated names (naming.py): never a user name of the output.
    name: str = ""  # of the gradient function
    shadow_names: dict[int, str] = field(default_factory=dict)  # shadowed param -> its shadow
    pointer_names: dict[int, str] = field(default_factory=dict)  # returned param -> C's d_x pointer
    d_return_name: str = ""

    @staticmethod
    def of(module: Module, fn: Function, wrt: set[int], name: str = "") -> "GradSignature":
        written = source_written_params(module, fn)  # the source's: the same at every level
        shadowed = [i for i, p in enumerate(fn.params) if p.type.is_array and (i in wrt or i in written)]
        returned = [i for i in sorted(wrt) if fn.params[i].type.is_float]
        result = fn.result_types[0] if fn.result_types else None
        # A float, or an array of floats (its d_return is an array of its shape).
        has_d_return = result is not None and (result.is_float or (result.is_array and result.elem.is_float))
        shadows, pointers, d_return = signature_names(module, fn, shadowed, returned, has_d_return)
        return GradSignature(fn, wrt, shadowed, returned, has_d_return, name or grad_name(fn.name),
                             shadows, pointers, d_return)


@dataclass
class _Rev:
    """A reverse block under construction, mirroring one primal block."""

    primal: Block
    block: Block
    parent: Optional["_Rev"]
    prologue: Builder  # inserts before the block's adjoint code (pops, recomputation)
    body: Builder  # appends adjoint code
    avail: dict[Value, Value] = field(default_factory=dict)
    adj: dict[Value, Value] = field(default_factory=dict)
    shadow_views: dict[Value, Value] = field(default_factory=dict)  # primal view -> its shadow here
    last_comment_line: int = 0

    def mirror_of(self, primal: Block) -> "_Rev":
        r: Optional[_Rev] = self
        while r is not None and r.primal is not primal:
            r = r.parent
        assert r is not None, "value used outside its scope"
        return r


class _OperandView:
    """An op's operands/results as they are available in the reverse sweep, on demand.

    Derivative rules read ``op.operands[k]`` / ``op.result``; materializing only
    what a rule reads keeps pops and recomputations out of the output.
    """

    def __init__(self, values: list[Value], fetch):
        self._values = values
        self._fetch = fetch

    def __getitem__(self, i: int) -> Value:
        return self._fetch(self._values[i])

    def __len__(self) -> int:
        return len(self._values)

    def __iter__(self):
        return (self._fetch(v) for v in self._values)


class _OpView:
    def __init__(self, op: Op, fetch):
        self.name = op.name
        self.attrs = op.attrs
        self.loc = op.loc
        self.primal = op
        self.operands = _OperandView(op.operands, fetch)
        self.results = _OperandView(op.results, fetch)

    @property
    def result(self) -> Value:
        return self.results[0]


def _defining_block(v: Value) -> Block:
    return v.owner if v.is_block_arg else v.owner.parent


def _outer_refs(op: Op) -> list[Value]:
    """Values used inside ``op``'s regions but defined outside them, in first-use order."""
    inside: set[Value] = set()
    for inner in list(op.walk())[1:]:
        inside.update(inner.results)
    for region in op.regions:
        for inner_block in [region] + [b for o in region.walk() for b in o.regions]:
            inside.update(inner_block.args)
    seen: dict[Value, None] = {}
    for inner in list(op.walk())[1:]:
        for v in inner.operands:
            if v not in inside:
                seen.setdefault(v, None)
    return list(seen)


class GradientTransform:
    """Builds ``grad_<fn>`` for one function and one set of ``--wrt`` parameters."""

    def __init__(
        self,
        module: Module,
        fn: Function,
        wrt: set[int],
        signatures: dict[str, GradSignature],
        may_alias: bool = False,
        checkpoint: Optional[Schedule] = None,
        needed: Optional[dict[Block, dict[Value, None]]] = None,
    ):
        self.module = module
        # What a first run of this transform asked ``avail`` for, per defining block: with it,
        # each loop body caches a minimum cut of those values (``mincut.py``), not each one.
        self.needed = needed
        self.requests: dict[Block, dict[Value, None]] = {}
        self._plans: dict[Block, CachePlan] = {}
        self._asking: list[Block] = []  # the blocks of the values being made available, innermost last
        self.fn = fn
        own = signatures.get(fn.name)
        self.sig = GradSignature.of(module, fn, wrt, own.name if own is not None else "")
        self.user_names = set(module.functions) | function_names(fn)  # what no adjoint is named
        self.signatures = signatures  # of the callees that get gradients
        # Every shadowed array is an input too: its shadow holds an adjoint on entry.
        self.act: Activity = analyze_activity(module, fn, set(wrt) | set(self.sig.shadowed))
        params = {p for p in fn.params if p.type.is_array}
        written = written_roots(module, fn)
        self.readonly_roots = params - written
        self.last_write = _last_top_level_writes(module, fn)
        if may_alias and params & written:
            # A store to one parameter array may change any other: no parameter
            # array is read-only, and none keeps its values "after its last write".
            self.readonly_roots = set()
            self.last_write = {r: k for r, k in self.last_write.items() if r not in params}
        self.may_alias = may_alias
        self.fwd: dict[Value, Value] = {}
        self.fwd_op: dict[Op, Op] = {}
        self.fwd_block: dict[Block, Block] = {}
        self.shadow: dict[Value, Value] = {}
        self.while_counts: dict[Op, Value] = {}
        self.primal_of: dict[Value, Value] = {}  # forward-sweep value -> the primal value it copies
        self.snapshots: dict[
            tuple[Op, int], Value
        ] = {}  # (call, argument) -> copy made before it  # clone while op -> its trip-count result
        self.anchors: list[Op] = []  # placeholders marking where each prologue ends
        # Loops under a checkpointing schedule (checkpoint.py): their bodies are re-run in the
        # reversed loop, so values of those bodies are at hand there, never taped.
        self.checkpointed = {
            op: CheckpointedLoop(self, op, s) for op, s in plan(module, fn, checkpoint).items()
        }
        self.ck_bodies = {ck.body for ck in self.checkpointed.values()}
        if may_alias and self.checkpointed:
            loop = next(iter(self.checkpointed))
            problem = error(
                "cannot checkpoint this loop with --may-alias: re-running an iteration from copies of "
                "the arrays it writes is right only when no other array argument shares their memory",
                loop.loc,
                hint="drop --may-alias (pass distinct arrays), or leave this loop store-all",
            )
            problem.source_lines = module.source_lines
            raise problem
        self.memory = MemoryReport(self.sig.name, fn.name)

    def _adjoint_hint(self, v: Value) -> str:
        """``d_<v>``, or its free variant where that is a user name (``d_x_`` beside a user ``d_x``):
        an adjoint never takes over a user's variable."""
        hint = adjoint_hint(v)
        return free_variant(hint, self.user_names) if hint else ""

    def _new_rev(self, primal: Block, block: Block, parent: Optional[_Rev], loc) -> _Rev:
        body = Builder(block, loc)
        anchor = body.create("comment", [], [], {"text": "prologue"})
        self.anchors.append(anchor)
        rev = _Rev(primal, block, parent, body.before_op(anchor), body)
        rev.last_comment_line = parent.last_comment_line if parent is not None else 0
        return rev

    # ------------------------------------------------------------------ driver
    def run(self) -> Function:
        fn, sig = self.fn, self.sig
        g_body = Block()
        for i, p in enumerate(fn.params):
            self.fwd[p] = g_body.add_arg(p.type, p.name_hint)
            if i in sig.shadowed:
                self.shadow[p] = g_body.add_arg(p.type, sig.shadow_names[i])
        d_return = None
        if sig.has_d_return:
            d_return = g_body.add_arg(fn.result_types[0], sig.d_return_name)
        self.fwd_block[fn.body] = g_body
        top = Builder(g_body, fn.loc)
        top.create("comment", [], [], {"text": "forward sweep", "section": True})
        self._clone_block(fn.body, g_body, top)
        top.create("comment", [], [], {"text": "reverse sweep", "section": True})

        rev = self._new_rev(fn.body, g_body, None, fn.loc)
        ret = fn.body.terminator
        if d_return is not None and d_return.type.is_array:
            self._seed_returned_array(rev, ret.operands[0], d_return)
        elif d_return is not None and self.act.is_active(ret.operands[0]):
            rev.adj[ret.operands[0]] = d_return
        self._reverse_ops(rev, fn.body.ops[:-1])

        results = []
        for i in sig.returned:
            p = fn.params[i]
            results.append(rev.adj.get(p) or build.const(rev.body, 0.0, p.type))
        rev.body.create("return", results, [])
        for anchor in self.anchors:
            anchor.erase()
        g = Function(sig.name, g_body, [p.type for p in (fn.params[i] for i in sig.returned)], fn.loc)
        if d_return is not None:
            if not d_return.type.is_array:  # an array's seed has no default (the contract)
                g.attrs["defaults"] = {sig.d_return_name: 1.0}
            elif ret.loc is not None:  # where the array is returned, for targets that refuse it
                g.attrs["array_result"] = [ret.loc.line, ret.loc.col, ret.loc.end_line, ret.loc.end_col]
        set_grad_info(g, fn.name, {sig.shadow_names[i]: fn.params[i].name_hint for i in sig.shadowed},
                      [fn.params[i].name_hint for i in sig.returned],
                      sig.d_return_name if d_return is not None else None)
        g.attrs["pointers"] = [sig.pointer_names[i] for i in sig.returned]
        for kept in ("shapes", "c_structs", "cuda", "launch"):
            if kept in fn.attrs:
                g.attrs[kept] = fn.attrs[kept]
        if "c_params" in fn.attrs:
            g.attrs["c_params"] = _c_gradient_params(fn, sig.shadowed, sig.has_d_return)
            g.attrs["c_result"] = "void"
        return g

    def _seed_returned_array(self, rev: _Rev, v: Value, d_return: Value) -> None:
        """``d_return`` is the adjoint of the returned array ``v`` (J holds ``<d_return, v>``).

        A whole-array result used by whole-array ops only takes it as its adjoint value; any
        other array (a parameter, a local filled element by element, a view) adds it into its
        shadow memory, which then holds the adjoint of its exit value, as a written array's does.
        """
        if not self.act.array_active(v):
            return
        if makes_fresh_array(v.defining_op) and self._array_by_value(v):
            rev.adj[v] = d_return
        else:
            rev.body.create(ARR + "accum", [self._shadow_of(rev, v), d_return], [])

    # ---------------------------------------------------------- forward sweep
    def _clone_block(self, src: Block, dst: Block, b: Builder) -> None:
        for op in src.ops:
            if op.name == "return":
                continue
            if op in self.checkpointed and self._needs_reverse(op):
                ck = self.checkpointed[op]
                ck.forward(b)
                self.memory.checkpoints.append(
                    CheckpointEntry(_line(op), str(ck.schedule), ck.slots_text, ck.snapshot_bytes_per_slot())
                )
            else:
                self._clone_op(op, b)

    def _clone_op(self, op: Op, b: Builder) -> Op:
        regions = []
        for r in op.regions:
            nb = Block([a.type for a in r.args], [a.name_hint for a in r.args])
            for a, na in zip(r.args, nb.args):
                self.fwd[a] = na
            self.fwd_block[r] = nb
            regions.append(nb)
        if op.name == "call" and op.attrs["callee"] in self.signatures:
            self._snapshot_args(op, b)
        new = b.create(
            op.name,
            [self.fwd[v] for v in op.operands],
            [r.type for r in op.results],
            dict(op.attrs),
            regions,
            [r.name_hint for r in op.results],
            op.loc,
        )
        self.fwd_op[op] = new
        for r, nr in zip(op.results, new.results):
            self.fwd[r] = nr
            self.primal_of[nr] = r
        for r, nb in zip(op.regions, regions):
            inner = Builder(nb, op.loc)
            for o in r.ops:
                self._clone_op(o, inner)
        if op.name == "while" and self._needs_reverse(op):
            self._count_while(new)
        return new

    def _snapshot_args(self, op: Op, b: Builder) -> None:
        """Copy the arrays a call uses that change later: its gradient re-runs from them."""
        for i in snapshot_args(self.module, self.fn, op, self.may_alias):
            a = op.operands[i]
            hint = free_variant(f"{known_root(a).name_hint}_before_{op.attrs['callee']}", self.user_names)
            self.snapshots[(op, i)] = b.op1("copy", [self.fwd[a]], a.type, hint)

    def _count_while(self, w: Op) -> None:
        """Carry an iteration counter through a cloned ``while`` (its reverse runs that often)."""
        cond, body = w.regions
        b = Builder(w.parent, w.loc).before_op(w)
        zero = build.const(b, 0, I64)
        n_iter = free_variant("n_iter", self.user_names)
        yb = Builder(body, w.loc).before_op(body.terminator)
        self.while_counts[w] = add_carried(w, zero, lambda k: build.add(yb, k, build.const(yb, 1, I64), hint=n_iter),
                                           n_iter)

    # ----------------------------------------------------------- availability
    def _is_readonly_load(self, op: Op) -> bool:
        """A load whose element still holds the loaded value when the reverse sweep runs.

        True for arrays nobody writes, and for loads in a top-level statement
        after the last one that writes the array (a work array filled by one
        loop and read by the next): arrays keep their exit values, so such a
        load can be repeated instead of taped.
        """
        if op.name != "load":
            return False
        root = known_root(op.operands[0])
        if root in self.readonly_roots:
            return True
        return root in self.last_write and _top_level_index(self.fn, op) > self.last_write[root]

    def _recomputable(self, v: Value, block: Block, m: Optional[_Rev] = None) -> bool:
        """Whether ``v`` can be recomputed in the mirror of ``block`` instead of taped.

        It can when it is a pure op (or a read of an array nobody writes) whose
        operands are recomputable in turn or already available in the mirror
        ``m`` (taped for another use): one tape then serves both values.
        """
        if _defining_block(v) is not block:
            return True  # available from an enclosing mirror
        if m is not None and v in m.avail:
            return True
        if v in self._plan(block).recomputed:
            return True  # from the cached values of the block's cut (``_plan``)
        if v.is_block_arg:
            # A loop's induction variable is mirrored; its carried values are the
            # loop's state, taped once each, and everything pure is recomputed
            # from them ("store the state, recompute the rest").
            return True
        op = v.defining_op
        if op.name == "view":
            # Arrays are never cached: a view is made again from its operands, and its
            # offset, a scalar, is recomputed or cached like any other value (``avail``).
            return True
        if is_pure(op) or self._is_readonly_load(op) or self._is_readonly_array_op(op):
            return all(self._recomputable(o, block, m) for o in op.operands)
        return False

    def _is_readonly_array_op(self, op: Op) -> bool:
        """A whole-array op whose operands keep their contents to the end: recomputed in a
        reverse loop body rather than stored (arrays are never taped)."""
        if not makes_fresh_array(op):
            return False
        for v in op.operands:
            if not v.type.is_array:
                continue
            root = known_root(v)
            if makes_fresh_array(root.defining_op) or root in self.readonly_roots:
                continue
            if not (root in self.last_write and _top_level_index(self.fn, op) > self.last_write[root]):
                return False
        return True

    def avail(self, rev: _Rev, v: Value) -> Value:
        """``v`` (a primal value) as it can be used at ``rev``'s reverse block."""
        block = _defining_block(v)
        if block is self.fn.body:
            return self.fwd[v]
        # A request is the cut's to meet (``_plan``) unless it comes from recomputing another
        # value of the same block, which the cut itself decides. Operands of a value recomputed
        # in a nested region (``buf[t + s]`` under ``if t < s:`` in a while body) are needed by
        # the body as surely as the values its own reverse code asks for.
        if not self._asking or self._asking[-1] is not block:
            self.requests.setdefault(block, {})[v] = None
        self._asking.append(block)
        try:
            return self._avail(rev, v, block)
        finally:
            self._asking.pop()

    def _avail(self, rev: _Rev, v: Value, block: Block) -> Value:
        m = rev.mirror_of(block)
        if v in m.avail:
            return m.avail[v]
        if v.is_block_arg and v.index == 0 and block.parent_op.name == "for":
            val = m.block.args[0]
        elif block in self.ck_bodies:
            val = self.fwd[v]  # re-run in this reversed iteration (checkpoint.py)
        elif v.is_block_arg or v in self._plan(block).cached:
            val = self._avail_clone(m, self.fwd[v], block)
        elif (kept := self._kept_in_memory(v)) is not None:
            arr, index = kept
            val = m.prologue.op1("load", [self.fwd[arr], *(self.avail(m, i) for i in index)], v.type, v.name_hint)
        elif self._recomputable(v, block, m):
            op = v.defining_op
            new = m.prologue.create(
                op.name,
                [self.avail(m, o) for o in op.operands],
                [v.type],
                dict(op.attrs),
                hints=[v.name_hint],
                loc=op.loc,
            )
            val = new.result
        else:
            val = self._avail_clone(m, self.fwd[v], block)
        m.avail[v] = val
        return val

    def _plan(self, block: Block) -> CachePlan:
        """The minimum cut of what the reverse sweep needs from the loop body ``block``."""
        if self.needed is None or block.parent_op is None or block.parent_op.name not in ("for", "while"):
            return _NO_PLAN
        if block not in self._plans:
            self._plans[block] = plan_cache(
                self.needed.get(block, {}),
                lambda v: self._cache_kind(v, block),
                lambda v: list(v.defining_op.operands),
                _cache_cost,
            )
        return self._plans[block]

    def _cache_kind(self, v: Value, block: Block) -> str:
        """How ``plan_cache`` sees ``v``: at hand for free, recomputable, or a source."""
        if _defining_block(v) is not block:
            return "free"  # from an enclosing mirror
        if v.is_block_arg:
            return "free" if v.index == 0 and block.parent_op.name == "for" else "source"
        if self._kept_in_memory(v) is not None or self._invariant_in(self.fwd[v], block.parent_op):
            return "free"  # read back from its array, or carried out of the loop once
        op = v.defining_op
        if is_pure(op) or self._is_readonly_load(op) or self._is_readonly_array_op(op):
            return "pure"
        return "source"

    def _kept_in_memory(self, v: Value) -> Optional[tuple[Value, list[Value]]]:
        """An array element that still holds ``v`` when the reverse sweep runs, if there is one.

        ``out[i] = v`` in a loop nest leaves ``v`` in ``out`` when that store is
        the only write to ``out`` in its top-level statement and none comes later,
        and its indices are the induction variables of all the enclosing ``for``
        loops (so each iteration writes its own element). Reading it back is a
        load instead of recomputing ``v`` (a division, a call) or taping it.
        """
        if v.defining_op is None or not is_pure(v.defining_op) or self.may_alias:
            return None
        for user, k in v.uses:
            if user.name != "store" or k != len(user.operands) - 1 or user.parent is not v.defining_op.parent:
                continue
            arr, index = user.operands[0], user.operands[1:-1]
            if _defining_block(arr) is not self.fn.body:
                continue  # a view made in the loop may name other elements in each iteration
            root = known_root(arr)
            top = _top_level_index(self.fn, user)
            if self.last_write.get(root) != top or _writes_in(self.module, self.fn.body.ops[top], root) != 1:
                continue
            loops, b = [], user.parent
            while b is not self.fn.body:
                if b.parent_op.name != "if":  # branches run an iteration at most once
                    loops.append(b.parent_op)
                b = b.parent_op.parent
            ivs = {lp.regions[0].args[0] for lp in loops if lp.name == "for"}
            if len(ivs) == len(loops) == len(index) and set(index) == ivs:
                return arr, list(index)
        return None

    def _avail_clone(self, m: _Rev, cv: Value, block: Block) -> Value:
        """A forward-sweep value living in the clone of ``block``, brought to ``block``'s mirror."""
        if block is self.fn.body or block in self.ck_bodies:
            return cv
        if cv in m.avail:
            return m.avail[cv]
        owner = block.parent_op
        if owner.name == "if":
            val = self._avail_clone(m.parent.mirror_of(owner.parent), self._escape_if(cv, block), owner.parent)
        elif owner.name == "for" and not owner.attrs.get("parallel") and self._invariant_in(cv, owner):
            # (A parallel loop, OpenMP's or prange, carries nothing out but its sums: a value its
            # body assigns is each thread's own. An invariant there is cached per iteration.)
            val = self._avail_clone(m.parent.mirror_of(owner.parent), self._escape_loop(cv, block), owner.parent)
        else:
            val = self._tape(m, cv, block)
        m.avail[cv] = val
        return val

    def _invariant_in(self, cv: Value, loop: Op) -> bool:
        """Whether the forward value ``cv`` is the same in every iteration of the primal ``loop``.

        Such a value needs one cache entry, not one per iteration (Enzyme's
        "cache LICM"): the loop carries it out, as LICM would have hoisted it
        had it been safe or worth it to run before the loop.
        """
        primal = self.primal_of.get(cv)
        if primal is None or primal.is_block_arg:
            return False
        op = primal.defining_op
        if any(loop.encloses(o) for o in op.operands):
            return False
        written = {known_root(w) for w in written_arrays(self.module, loop)}
        written = may_be_written(self.fn, written, self.may_alias)
        if op.name == "load":
            return known_root(op.operands[0]) not in written
        if op.name == "call":
            callee = self.module.functions[op.attrs["callee"]]
            if written_params(self.module, callee):
                return False
            return not any(a.type.is_array and known_root(a) in written for a in op.operands)
        return is_pure(op)

    def _escape_loop(self, cv: Value, body: Block) -> Value:
        """Carry ``cv`` (invariant, defined in the cloned loop body) out as a new loop result."""
        loop = self.fwd_op[body.parent_op]
        if not cv.name_hint:
            cv.name_hint = _describe(cv)  # it becomes a variable the reverse sweep reads
        init = Builder(loop.parent, loop.loc).before_op(loop).op1("undef", [], cv.type)
        return add_carried(loop, init, lambda _: cv, cv.name_hint)

    def _escape_if(self, cv: Value, region: Block) -> Value:
        """Make ``cv`` (defined in one region of an ``if``) a new result of the cloned ``if``."""
        if_op = self.fwd_op[region.parent_op]

        def yielded(r: Block) -> Value:  # cv where it is made, undefined in the other region
            if r is self.fwd_block[region]:
                return cv
            return Builder(r, if_op.loc).before_op(r.terminator).op1("undef", [], cv.type)

        return add_if_result(if_op, yielded, cv.type, cv.name_hint)

    def _tape(self, m: _Rev, cv: Value, block: Block) -> Value:
        """Store ``cv`` every iteration of the forward loop body; read it back in the reverse body.

        Inside ``for`` loops whose trip counts are known before the outermost
        one, the cache is an array indexed by the iteration (``tape_s[i] = s``,
        then ``s = tape_s[i]``). Elsewhere (``while`` loops, bounds that change
        from one iteration to the next) it is a stack that grows when full.
        """
        loops = []
        b: Block = block
        while b is not self.fn.body and b not in self.ck_bodies:
            loops.append(b.parent_op)
            b = b.parent_op.parent
        loops.reverse()  # outermost first
        if cv.type.is_array:
            primal = self.primal_of.get(cv)
            op = primal.defining_op if primal is not None else None
            # Where the array is made; else (a value the transform made: a mask, a copy) the
            # innermost loop that would have to store it, so the error always points somewhere.
            loc = (op.loc if op is not None else None) or next((lp.loc for lp in reversed(loops) if lp.loc), None)
            e = error(
                "an array computed in a loop from arrays the loop changes is needed by the reverse "
                "sweep; storing arrays per iteration is not supported yet",
                loc,
                hint="compute it from arrays that are not written in the loop, or write the loop "
                "element by element",
            )
            e.source_lines = self.module.source_lines
            raise e
        outer = self.fwd_op[loops[0]]
        at = Builder(outer.parent, outer.loc).before_op(outer)
        elem = cv.type
        what = _describe(self.primal_of.get(cv, cv))  # the source's names, not a work copy's
        hint = f"tape_{what}" if what else "tape"
        if what and not cv.name_hint:
            cv.name_hint = what  # the forward sweep names what it stores
        clone_block = self.fwd_block[block]
        pb = Builder(clone_block, outer.loc)
        pb.index = 0 if cv.is_block_arg else clone_block.ops.index(cv.defining_op) + 1
        trips = self._trip_counts(at, loops) if all(op.name == "for" for op in loops) else None
        top = loops[0]
        while top.parent is not self.fn.body:
            top = top.parent.parent_op
        entry = TapeEntry(
            hint, what, elem, [_line(op) for op in loops if op.name != "if"], _line(top), outer,
            _line(top) if top in self.checkpointed else None,
        )
        self.memory.tapes.append(entry)
        if trips is not None:
            capacity = trips[0]
            for t in trips[1:]:
                capacity = build.mul(at, capacity, t)
            cache = at.op1("alloc", [capacity], ArrayType(elem, 1), hint, fill="empty", elem=str(elem), cache=True)
            entry.op = cache.defining_op
            fwd_ivs = [self.fwd_block[op.regions[0]].args[0] for op in loops]
            rev_ivs = [m.mirror_of(op.regions[0]).block.args[0] for op in loops]
            for iv in fwd_ivs + rev_ivs:
                if iv.name_hint in ("", "_"):
                    iv.name_hint = "it"  # `for _ in ...` now indexes the cache
            pb.create("store", [cache, self._iteration_index(pb, loops, fwd_ivs, trips), cv], [])
            index = self._iteration_index(m.prologue, loops, rev_ivs, trips)
            return m.prologue.op1("load", [cache, index], elem, what)
        bounds = self._trip_bounds(at, loops)
        grow = bounds is None
        if bounds is None:
            bounds = self._trip_counts(at, [op for op in loops if op.name != "if"], partial=True)
        capacity = bounds[0] if bounds else build.const(at, 1 if not grow else 16, I64)
        for t in bounds[1:]:
            capacity = build.mul(at, capacity, t)
        tape = at.op1("tape.new", [capacity], ArrayType(elem, 1), hint, elem=str(elem), grow=grow)
        entry.op = tape.defining_op
        pb.create("tape.push", [tape, cv], [])
        return m.prologue.op1("tape.pop", [tape], elem, what)

    def _trip_bounds(self, at: Builder, loops: list[Op]) -> Optional[list[Value]]:
        """Upper bounds of the trip counts of ``loops`` (an ``if`` runs its body at most once),
        computed before the outermost one; None when a loop has none (``trip_bounds``)."""
        out: list[Value] = []
        for k, loop in enumerate(loops):
            if loop.name == "if":
                continue
            bound = trip_bound(at, loop, loops[:k], self.fn.body, lambda v: self.fwd[v])
            if bound is None:
                return None
            out.append(bound)
        return out

    def _iteration_index(self, b: Builder, loops: list[Op], ivs: list[Value], trips: list[Value]) -> Value:
        """The iteration number of the innermost loop, counted across all of ``loops``."""
        index: Optional[Value] = None
        for loop, iv, trip in zip(loops, ivs, trips):
            lb = self.fwd[loop.operands[0]]
            step = build.const_value(loop.operands[2])
            # The distance from the first iteration is never negative in an iteration that runs, so
            # a truncated quotient is the floored one (C prints ``/``, whose range gcc can follow).
            if step > 0:
                k = _floordiv(b, build.sub(b, iv, lb), build.const(b, step, I64), rounding="any")
            else:
                k = _floordiv(b, build.sub(b, lb, iv), build.const(b, -step, I64), rounding="any")
            index = k if index is None else build.add(b, build.mul(b, index, trip), k)
        assert index is not None
        return index

    def _trip_counts(self, at: Builder, loops: list[Op], partial: bool = False) -> Optional[list[Value]]:
        """Trip counts of ``for`` loops computed before the outermost one, or None when unknown.

        With ``partial``, the counts of the leading loops that are known (a capacity guess).
        """
        trips: list[Value] = []
        for loop in loops:
            step = build.const_value(loop.operands[2]) if loop.name == "for" else None
            known = step is not None and all(
                _defining_block(v) is self.fn.body or _defining_block(v) in self.ck_bodies for v in loop.operands[:2]
            )
            if not known:
                return trips if partial else None
            lb, ub = self.fwd[loop.operands[0]], self.fwd[loop.operands[1]]
            span = build.sub(at, ub, lb) if step > 0 else build.sub(at, lb, ub)
            size = abs(step)
            if size != 1:
                span = _floordiv(at, build.add(at, span, build.const(at, size - 1, I64)), build.const(at, size, I64))
            trips.append(build.math(at, "max", span, build.const(at, 0, I64)))
        return trips

    # ------------------------------------------------------------ reverse sweep
    def _needs_reverse(self, op: Op) -> bool:
        for inner in op.walk():
            if any(self.act.is_active(r) for r in inner.results):
                return True
            if makes_fresh_array(inner) and self.act.array_active(inner.result):
                return True
            if inner.name == "store" and self._has_shadow(inner.operands[0]):
                return True
            if inner.name == "call" and self._call_active(inner):
                return True
            if inner.name == SYNC:
                return True  # what threads exchange through memory, their adjoints exchange back
        return False

    def _call_active(self, op: Op) -> bool:
        return any(self.act.is_active(r) for r in op.results) or any(
            (a.type.is_array and self.act.array_active(a)) or self.act.is_active(a) for a in op.operands
        )

    def _has_shadow(self, arr: Value) -> bool:
        return known_root(arr) in self.shadow or self.act.array_active(arr)

    def _accumulate(self, rev: _Rev, v: Value, c: Optional[Value]) -> None:
        if c is None or not self.act.is_active(v):
            return
        prev = rev.adj.get(v)
        if prev is None:
            if not c.name_hint and c.defining_op is not None:
                c.name_hint = self._adjoint_hint(v)  # the first contribution becomes d_<v>
            rev.adj[v] = c
        else:
            rev.adj[v] = build.add(rev.body, prev, c, hint=self._adjoint_hint(v))

    def _shadow_of(self, rev: _Rev, arr: Value) -> Value:
        op = arr.defining_op
        if op is not None and op.name == "view":
            return self._shadow_view(rev, op)
        root = known_root(arr)
        if root not in self.shadow:
            # A local array: its shadow lives from the mirror of its alloc on.
            op = root.defining_op
            m = rev.mirror_of(op.parent)
            if makes_fresh_array(op):
                # The result of a whole-array op: a shadow of its shape.
                like = self.avail(m, root)
                t = root.type
                dims = [m.prologue.op1("dim", [like], I64, axis=k) for k in range(t.rank)]
                self.shadow[root] = m.prologue.op1(
                    "alloc", dims, t, self._adjoint_hint(root), fill="zeros", elem=str(t.elem)
                )
                return self.shadow[root]
            dims = [self.avail(m, d) for d in op.operands]
            attrs = dict(op.attrs, fill="zeros")
            self.shadow[root] = m.prologue.op1("alloc", dims, root.type, self._adjoint_hint(root), **attrs)
        return self.shadow[root]

    def _shadow_view(self, rev: _Rev, view: Op) -> Value:
        """The shadow of ``view(a, k)``: ``view(shadow(a), k)``, the adjoints of the elements it names.

        Made once in the mirror of the view's block, ahead of its adjoint code, where
        the shadow of ``a`` and the offset are available.
        """
        m = rev.mirror_of(view.parent)
        v = view.result
        if v not in m.shadow_views:
            base = self._shadow_of(m, view.operands[0])
            offset = self.avail(m, view.operands[1])
            m.shadow_views[v] = m.prologue.op1("view", [base, offset], v.type, self._adjoint_hint(v))
        return m.shadow_views[v]

    def _reverse_ops(self, rev: _Rev, ops: list[Op]) -> None:
        for op in reversed(ops):
            if not self._needs_reverse(op):
                continue
            marker = None
            previous = rev.last_comment_line
            line = op.loc.line if op.loc else 0
            if line and line != previous:
                marker = rev.body.create("comment", [], [], {"text": self._line_text(line)})
                rev.last_comment_line = line  # regions inside start from here (no repeat)
            self._reverse_op(rev, op)
            if marker is not None and rev.block.ops[-1] is marker:
                marker.erase()
                rev.last_comment_line = previous

    def _line_text(self, line: int) -> str:
        src = self.module.source_lines[line - 1].strip() if line <= len(self.module.source_lines) else ""
        return f"line {line}: {src}"

    def _reverse_op(self, rev: _Rev, op: Op) -> None:
        fetch = lambda v: self.avail(rev, v)  # noqa: E731
        name = op.name
        rev.body.loc = op.loc
        rev.prologue.loc = op.loc
        if name == "load":
            g = rev.adj.get(op.result)
            if g is not None and self.act.array_active(op.operands[0]):
                d = self._shadow_of(rev, op.operands[0])
                idx = [fetch(i) for i in op.operands[1:]]
                old = rev.body.op1("load", [d, *idx], op.result.type)
                rev.body.create("store", [d, *idx, build.add(rev.body, old, g)], [])
        elif name == "store":
            update = shared_update(op)
            if update is not None and self._has_shadow(op.operands[0]):
                # y[k] += e keeps y[k]'s adjoint and adds it to e's: a read of d_y[k], never a
                # write, which iterations (threads) updating one element at once can all do.
                sign, e = update
                d = self._shadow_of(rev, op.operands[0])
                if self.act.is_active(e):
                    idx = [fetch(i) for i in op.operands[1:-1]]
                    g = rev.body.op1("load", [d, *idx], e.type, _element_hint(d, idx))
                    self._accumulate(rev, e, g if sign > 0 else build.neg(rev.body, g))
            elif self._has_shadow(op.operands[0]):
                d = self._shadow_of(rev, op.operands[0])
                idx = [fetch(i) for i in op.operands[1:-1]]
                val = op.operands[-1]
                g = rev.body.op1("load", [d, *idx], val.type, self._adjoint_hint(val) or _element_hint(d, idx))
                rev.body.create("store", [d, *idx, build.const(rev.body, 0.0, val.type)], [])
                self._accumulate(rev, val, g)
        elif name == SYNC:
            rev.body.create(SYNC, [], [])  # the barrier, at the mirrored place
        elif name == "call":
            self._reverse_call(rev, op)
        elif name == "for":
            self._reverse_for(rev, op)
        elif name == "while":
            self._reverse_while(rev, op)
        elif name == "if":
            self._reverse_if(rev, op)
        elif is_array_op(name):
            self._reverse_array_op(rev, op)
        elif op.results and op.result.type.is_float:
            g = rev.adj.get(op.result)
            if g is None:
                return
            active = [self.act.is_active(v) for v in op.operands]
            try:
                contribs = adjoint_contributions(rev.body, _OpView(op, fetch), g, active)
            except MissingRule as e:
                raise error(f"cannot differentiate: {e}", op.loc, hint="rewrite it with supported operations") from None
            for v, c in zip(op.operands, contribs):
                self._accumulate(rev, v, c)

    # ------------------------------------------------------------ whole arrays
    def _array_by_value(self, v: Value) -> bool:
        """Whether the adjoint of ``v`` (an ``arr.`` result) is an SSA value rather than shadow memory.

        It is when every use of ``v`` is another whole-array op of the same block:
        the adjoint is then complete, as one value, when ``v``'s own op is reversed
        (``d_z = d_h * (1.0 - z * z)``). An array read element by element, passed
        to a call, or used in a nested region gets shadow memory (``d_z``, zeros)
        that those uses accumulate into.
        """
        # A slice's adjoint is added into part of the array's shadow: memory, too.
        partial = (ARR + "slice", ARR + "take")
        return all(
            u.name == "dim"  # reads the shape only
            or (u.name == "return" and u.parent is self.fn.body)  # seeded with d_return
            or (is_array_op(u.name) and u.name not in partial and u.parent is v.defining_op.parent)
            for u, _ in v.uses
        )

    def _array_active(self, v: Value) -> bool:
        return self.act.array_active(v) if v.type.is_array else self.act.is_active(v)

    def _accumulate_array(self, rev: _Rev, v: Value, c: Optional[Value]) -> None:
        """Add ``c`` (shaped like ``v``) to the adjoint of the array ``v``."""
        if c is None or not self.act.array_active(v):
            return
        if makes_fresh_array(v.defining_op) and self._array_by_value(v):
            prev = rev.adj.get(v)
            if prev is None:
                if not c.name_hint and c.defining_op is not None:
                    c.name_hint = self._adjoint_hint(v)
                rev.adj[v] = c
            else:
                rev.adj[v] = rev.body.op1(ARR + "add", [prev, c], v.type, self._adjoint_hint(v))
            return
        rev.body.create(ARR + "accum", [self._shadow_of(rev, v), c], [])

    def _check_array_reads(self, op: Op) -> None:
        """The reverse sweep reads ``op``'s array operands as they are at the end of the
        forward sweep: that is only right if nothing writes them after ``op``."""
        for v in op.operands:
            if not v.type.is_array:
                continue
            root = known_root(v)
            if makes_fresh_array(root.defining_op):
                continue  # never written
            if root in self.readonly_roots:
                continue
            if root in self.last_write and _top_level_index(self.fn, op) > self.last_write[root]:
                continue
            e = error(
                f"this whole-array expression reads '{root.name_hint or 'an array'}', which is written "
                "after it; differentiating that is not supported yet",
                op.loc,
                hint="finish writing the array before the whole-array expression reads it",
            )
            e.source_lines = self.module.source_lines
            raise e

    def _reverse_array_op(self, rev: _Rev, op: Op) -> None:
        fetch = lambda v: self.avail(rev, v)  # noqa: E731
        r = op.result
        if r.type.is_array:
            g = rev.adj.get(r) if self._array_by_value(r) else None
            if r in self.shadow:
                shadow = self.shadow[r]
                g = shadow if g is None else rev.body.op1(ARR + "add", [g, shadow], r.type, self._adjoint_hint(r))
        else:
            g = rev.adj.get(r)
        if g is None:
            return
        self._check_array_reads(op)
        if op.name == ARR + "slice":
            # d_a[lo:hi, j] += g: the slice's adjoint goes straight into part of a's shadow.
            a = op.operands[0]
            if self.act.array_active(a):
                bounds = [fetch(v) for v in op.operands[1:]]
                rev.body.create(ARR + "accum_slice", [self._shadow_of(rev, a), g, *bounds], [], dict(op.attrs))
            return
        if op.name == ARR + "take":
            # np.add.at(d_a, idx, g): a gather's adjoint is a scatter-add into a's shadow.
            a = op.operands[0]
            if self.act.array_active(a):
                rev.body.create(ARR + "accum_take", [self._shadow_of(rev, a), fetch(op.operands[1]), g], [])
            return
        active = [self._array_active(v) for v in op.operands]
        try:
            contribs = adjoint_contributions(rev.body, _OpView(op, fetch), g, active)
        except MissingRule as e:
            raise error(f"cannot differentiate: {e}", op.loc, hint="rewrite it with supported operations") from None
        for v, c in zip(op.operands, contribs):
            if v.type.is_array:
                self._accumulate_array(rev, v, c)
            else:
                self._accumulate(rev, v, c)

    def _zero(self, b: Builder, t: Type) -> Value:
        return build.const(b, 0.0, t)

    def _carried_adjoint_loop(
        self,
        rev: _Rev,
        op: Op,
        body: Block,
        rbody: Block,
        slots: list[int],
        yields: list[Value],
        ck: Optional[CheckpointedLoop] = None,
    ):
        """Shared by for/while: process a reversed body whose carried slots are ``slots``.

        Returns (outer values whose adjoints the loop carries, their init values,
        the carried-slot inits) after filling ``rbody``.
        """
        outer = [v for v in _outer_refs(op) if self.act.is_active(v)]
        slot_args = [rbody.add_arg(body.args[k].type, self._adjoint_hint(body.args[k])) for k in slots]
        outer_args = [rbody.add_arg(v.type, self._adjoint_hint(v)) for v in outer]
        inner = self._new_rev(body, rbody, rev, op.loc)
        extra = []
        if ck is not None:  # the snapshot stack depth rides along with the adjoints
            extra = [ck.reverse_prologue(inner, rbody.add_arg(I64, "ck_depth"))]
        inner.adj = dict(zip(outer, outer_args))
        for k, a in zip(slots, slot_args):
            self._accumulate(inner, yields[k], a)
        self._reverse_ops(inner, body.ops[:-1])
        new_slots = [inner.adj.get(body.args[k]) or self._zero(inner.body, body.args[k].type) for k in slots]
        inner.body.create("yield", new_slots + [inner.adj[v] for v in outer] + extra, [])
        return outer, slot_args, outer_args

    def _reverse_loop(
        self,
        rev: _Rev,
        op: Op,
        body: Block,
        yields: list[Value],
        inits: list[Value],
        first: int,
        bounds,
        ck: Optional[CheckpointedLoop] = None,
    ) -> None:
        # A slot needs an adjoint when its result does (the last iteration's yield
        # receives it) or its block argument does (earlier iterations' yields).
        slots = [
            k
            for k in range(len(op.results))
            if self.act.is_active(op.results[k]) or self.act.is_active(body.args[first + k])
        ]
        rbody = Block([I64], [body.args[0].name_hint if first else ("ck_k" if ck is not None else "_")])
        outer, slot_args, outer_args = self._carried_adjoint_loop(
            rev, op, body, rbody, [first + k for k in slots], yields_by_arg(body, first, yields), ck
        )
        init_vals = [rev.adj.get(op.results[k]) or self._zero(rev.body, op.results[k].type) for k in slots]
        init_vals += [rev.adj.get(v) or self._zero(rev.body, v.type) for v in outer]
        lb, ub, step = bounds
        hints = [a.name_hint for a in slot_args + outer_args]
        types = [a.type for a in slot_args + outer_args]
        if ck is not None:
            init_vals.append(ck.depth_out)
            types.append(I64)
            hints.append("ck_depth")
        # A parallel loop's iterations are independent, and so are their adjoints (the
        # emitter makes the accumulations they share race-free).
        kept = {k: op.attrs[k] for k in ("parallel", "schedule") if k in op.attrs}
        rfor = rev.body.create("for", [lb, ub, step, *init_vals], types, kept, regions=[rbody], hints=hints)
        finals = _prune_passthrough(rfor)
        # Outer adjoints first: the loop's results replace them. Then the carried
        # slots' adjoints flow into the inits, which may be those same outer values.
        for v, final in zip(outer, finals[len(slots) :]):
            if final is not None:
                rev.adj[v] = final
        for k, final in zip(slots, finals):
            # A slot the loop passes through unchanged hands on the adjoint it got.
            self._accumulate(rev, inits[k], final if final is not None else rev.adj.get(op.results[k]))

    def _reverse_for(self, rev: _Rev, op: Op) -> None:
        lb, ub, step = (self.avail(rev, v) for v in op.operands[:3])
        b = rev.body
        s_op = op.operands[2].defining_op
        s = s_op.attrs["value"] if s_op is not None and s_op.name == "const" else None
        if s == 1:
            bounds = (
                build.sub(b, ub, build.const(b, 1, I64)),
                build.sub(b, lb, build.const(b, 1, I64)),
                build.const(b, -1, I64),
            )
        elif s == -1:
            bounds = (
                build.add(b, ub, build.const(b, 1, I64)),
                build.add(b, lb, build.const(b, 1, I64)),
                build.const(b, 1, I64),
            )
        elif build.known_sign(op.operands[2]):
            # The last index is lb + (trip - 1) * s, trip = (ub - lb + s - 1) // s for s > 0
            # ((lb - ub + |s| - 1) // |s| for s < 0). When the loop does not run, that quotient
            # is <= 0 whichever way it rounds and the first index falls beyond lb: the reversed
            # loop runs zero times either way, so C may use its truncating `/` (no helper). It
            # stops past lb (`i >= lb`), which every index, lb plus multiples of s, respects.
            # A step whose value the launch decides (blockDim.x * gridDim.x) is positive all the same.
            toward = build.known_sign(op.operands[2])
            size = build.const(b, abs(s), I64) if s is not None else step if toward > 0 else build.neg(b, step)
            dist = build.sub(b, ub, lb) if toward > 0 else build.sub(b, lb, ub)
            if s is not None:
                span = build.add(b, dist, build.const(b, abs(s) - 1, I64))
            else:
                span = build.sub(b, build.add(b, dist, size), build.const(b, 1, I64))
            trip = b.op1("floordiv", [span, size], I64, rounding="any")
            back = build.mul(b, build.sub(b, trip, build.const(b, 1, I64)), size)
            first = build.add(b, lb, back) if toward > 0 else build.sub(b, lb, back)
            down = build.const(b, -s, I64) if s is not None else build.neg(b, step)
            bounds = (first, build.sub(b, lb, build.const(b, toward, I64)), down)
        else:
            sign = build.select(
                b, build.cmp(b, "gt", step, build.const(b, 0, I64)), build.const(b, 1, I64), build.const(b, -1, I64)
            )
            trip = _floordiv(b, build.sub(b, build.add(b, build.sub(b, ub, lb), step), sign), step)
            first = build.add(b, lb, build.mul(b, build.sub(b, trip, build.const(b, 1, I64)), step))
            bounds = (first, build.sub(b, lb, step), build.neg(b, step))
        body = op.regions[0]
        ck = self.checkpointed.get(op)
        if ck is not None:
            ck.enter_reverse(rev)
        self._reverse_loop(rev, op, body, list(body.terminator.operands), list(op.operands[3:]), 1, bounds, ck)
        if ck is not None:
            ck.leave_reverse()

    def _reverse_while(self, rev: _Rev, op: Op) -> None:
        count_clone = self.while_counts[self.fwd_op[op]]
        count = self._avail_clone(rev.mirror_of(op.parent), count_clone, op.parent)
        b = rev.body
        body = op.regions[1]
        ck = self.checkpointed.get(op)
        if ck is None:
            bounds = (build.const(b, 0, I64), count, build.const(b, 1, I64))
            self._reverse_loop(rev, op, body, list(body.terminator.operands), list(op.operands), 0, bounds)
            return
        # Checkpointed: the reversed loop counts the iterations down, as it re-runs each by number.
        minus_one = build.const(b, -1, I64)
        bounds = (build.sub(b, count, build.const(b, 1, I64)), minus_one, minus_one)
        ck.enter_reverse(rev)
        self._reverse_loop(rev, op, body, list(body.terminator.operands), list(op.operands), 0, bounds, ck)
        ck.leave_reverse()

    def _reverse_if(self, rev: _Rev, op: Op) -> None:
        cond = self.avail(rev, op.operands[0])
        outer = [v for v in _outer_refs(op) if self.act.is_active(v)]
        regions = []
        finals: list[list[Value]] = []
        for region in op.regions:
            rb = Block()
            inner = self._new_rev(region, rb, rev, op.loc)
            inner.adj = {v: rev.adj[v] for v in outer if v in rev.adj}
            for k, r in enumerate(op.results):
                g = rev.adj.get(r)
                if g is not None:
                    self._accumulate(inner, region.terminator.operands[k], g)
            self._reverse_ops(inner, region.ops[:-1])
            regions.append((rb, inner))
            finals.append([inner.adj.get(v) for v in outer])
        keep = [i for i, v in enumerate(outer) if any(f[i] is not rev.adj.get(v) for f in finals)]
        for (rb, inner), f in zip(regions, finals):
            vals = [f[i] if f[i] is not None else self._zero(inner.body, outer[i].type) for i in keep]
            inner.body.create("yield", vals, [])
        rif = rev.body.create(
            "if",
            [cond],
            [outer[i].type for i in keep],
            regions=[rb for rb, _ in regions],
            hints=[self._adjoint_hint(outer[i]) for i in keep],
        )
        for i, r in zip(keep, rif.results):
            rev.adj[outer[i]] = r

    def _reverse_call(self, rev: _Rev, op: Op) -> None:
        callee = self.module.functions[op.attrs["callee"]]
        sig = self.signatures.get(callee.name)
        if sig is None:
            return
        args: list[Value] = []
        for i, a in enumerate(op.operands):
            snapshot = self.snapshots.get((op, i))
            if snapshot is not None:
                args.append(self._avail_clone(rev.mirror_of(op.parent), snapshot, op.parent))
            else:
                args.append(self.avail(rev, a))
            if i in sig.shadowed:
                if self.act.array_active(a):
                    args.append(self._shadow_of(rev, a))
                else:
                    dims = [rev.body.op1("dim", [args[-1]], I64, axis=ax, cover=True)  # the callee's reach
                            for ax in range(a.type.rank)]
                    args.append(rev.body.op1("alloc", dims, a.type, fill="zeros", elem=str(a.type.elem)))
        if sig.has_d_return:
            r = op.results[0]
            args.append(rev.adj.get(r) or self._zero(rev.body, r.type))
        types = [callee.params[i].type for i in sig.returned]
        hints = [self._adjoint_hint(op.operands[i]) or self._adjoint_hint(callee.params[i]) for i in sig.returned]
        call = rev.body.create("call", args, types, {"callee": sig.name}, hints=hints)
        for i, r in zip(sig.returned, call.results):
            self._accumulate(rev, op.operands[i], r)


_NO_PLAN = CachePlan()


def _cache_cost(v: Value) -> float:
    """Bytes per iteration to cache ``v``; half a byte more for a value the source does not name
    (its tape would be ``tape``, not ``tape_k``), which decides only between equal sizes."""
    if v.type.is_array:
        return INF  # arrays are never cached per iteration
    return elem_bytes(v.type) + (0.0 if v.name_hint else 0.5)


def _describe(v: Value) -> str:
    """A name for an unnamed value in tapes: its source name, or the function it comes from."""
    if v.name_hint:
        return v.name_hint
    op = v.defining_op
    if op is None:
        return ""
    if op.name == "call":
        return f"{op.attrs['callee']}_value"
    if v.type == BOOL:
        return "cond"
    if op.name == "load" and op.operands[0].name_hint:
        return f"{op.operands[0].name_hint}_elem"
    return ""


def _line(op: Op) -> int:
    return op.loc.line if op.loc else 0


def _element_hint(shadow: Value, index: list[Value]) -> str:
    """``d_out_i`` for the adjoint of ``out[i]``; ``d_out_elem`` when an index has no name."""
    if not shadow.name_hint:
        return ""
    if index and all(i.name_hint for i in index):
        return "_".join([shadow.name_hint, *(i.name_hint for i in index)])
    return f"{shadow.name_hint}_elem"


def _top_level_index(fn: Function, op: Op) -> int:
    """The position in ``fn``'s body of the top-level op that is or contains ``op``."""
    while op.parent is not fn.body:
        op = op.parent.parent_op
    return fn.body.ops.index(op)


def _writes_in(module: Module, top: Op, root: Value) -> int:
    """How many ops in ``top`` (a top-level op and its regions) may write ``root``."""
    return sum(1 for op in top.walk() for a in written_operands(module, op) if known_root(a) is root)


def _last_top_level_writes(module: Module, fn: Function) -> dict[Value, int]:
    """For each array root ``fn`` writes, the position of the last top-level op writing it."""
    return {known_root(a): k for k, top in enumerate(fn.body.ops) for a in written_arrays(module, top)}


def yields_by_arg(body: Block, first: int, yields: list[Value]) -> list[Value]:
    """Index yields by block-arg position (the for's induction variable has none)."""
    return [None] * first + yields  # type: ignore[list-item]


def _floordiv(b: Builder, x: Value, y: Value, **attrs: Any) -> Value:
    return build.binary(b, "floordiv", x, y, **attrs)


def _prune_passthrough(loop: Op) -> list[Optional[Value]]:
    """Drop carried adjoints a reversed loop passes through unchanged.

    Returns, per original slot, the loop result holding the final adjoint, or
    None where the loop leaves that adjoint as it was.
    """
    body = loop.regions[0]
    finals: list[Optional[Value]] = list(loop.results)
    k = 0
    for orig in range(len(finals)):
        arg = body.args[1 + k]
        if body.terminator.operands[k] is arg and len(arg.uses) == 1:
            drop_carried(loop, k)
            finals[orig] = None
        else:
            k += 1
    return finals
