"""Reverse mode on structured SSA: primal function -> gradient function.

The gradient function ``grad_f`` runs a *forward sweep* (a clone of the primal,
with the side effects the contract requires: ``forward.py``) and then a *reverse sweep* that
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

Primal values the reverse sweep needs (*availability*, ``availability.py``; tapes in
``tape.py``): values of the function's
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

This module is the driver and the reversal of each structured op; the signature is
``signature.py``, the names ``naming.py``, the reverse blocks under construction ``sweep.py``.

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

import re
from typing import Callable, Optional, Sequence

from ..diagnostics import error
from ..ssa import build
from ..ssa.ir import Block, Builder, Function, Module, Op, SourceLines, SourceLoc, Value, lines_of
from ..ssa.array_ops import ACCUMULATIONS, PREFIX as ARR, SCATTER_ADD, is_array_op, makes_fresh_array, viewed_array
from ..ssa.gpu import SHUFFLE, SYNC
from .gpu_rules import shuffle_adjoint
from ..analysis.shared_refill import refilled_tiles
from ..ssa.mpi import carries_floats, communicates
from ..ssa.ops import int_member
from ..ssa.clone import clone_ops
from ..ssa.structured import drop_carried, outer_refs, trip_count
from ..ssa.types import I64, Type
from ..analysis.accumulation import update as update_of
from .activity import Activity
from ..ssa.attrs import NUMPY, NUMPY_OPS, REVERSED, SOURCE_ATTRS, Schedule, numpy_spelled, set_grad_info, struct_attrs
from .availability import Availability, last_top_level_writes
from .checkpoint import CheckpointedLoop, plan
from .forward import ForwardSweep
from .sweep import RevBlock, defining_block, extent_at, floordiv, line_of, top_level_index
from .tape import Tapes
from .report import CheckpointEntry, MemoryReport
from ..analysis.effects import (known_root, stays_as_made, written_roots)
from . import array_rules  # noqa: F401  (registers the rules of the arr. ops)
from . import linalg_rules  # noqa: F401  (registers the rules of linear algebra, einsum, stacking, convolution)
from .mpi_rules import reverse_mpi
from .rules import MissingRule, adjoint_contributions
from .strong_zeros import VanishingAdjoints, guarded_fetch
from ..ssa.element_names import element_hint
from .naming import adjoint_hint, free_variant, function_names
from .signature import GradSignature


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

    def sibling(self, name: str) -> Optional[Value]:
        """The value of an op ``name`` of the same operands that the primal computes in the same
        block (``cos(p)`` beside ``sin(p)``), as the reverse sweep has it (kept or computed again,
        as availability chooses), for a rule that needs it; None when there is none."""
        op = self.primal
        if op.parent is None or not op.operands:
            return None
        # (among the users of its first operand, not over the block: a scan of a long function's
        # block for every sin was quadratic)
        found = [other for other, k in op.operands[0].uses
                 if k == 0 and other.name == name and other.parent is op.parent
                 and list(other.operands) == list(op.operands) and len(other.results) == 1]
        if len(found) > 1:  # the first in the block, as a scan finds it
            found.sort(key=op.parent.ops.index)
        return self.results._fetch(found[0].result) if found else None


# The spaces before it go with rstrip: a leading \s* was tried again from every space of a long
# run of them, quadratic (doorfuzz seed 16300345: 1.8 million spaces, past 60 s).
_LINT_DIRECTIVE = re.compile(r"#\s*(noqa|type:\s*ignore)\b.*$")
SOURCE_SHOWN = 400  # characters of a source line an adjoint's comment is made from


class GradientTransform:
    """Builds ``grad_<fn>`` for one function and one set of ``--wrt`` parameters: its signature
    is ``signatures[fn.name]``, ``act`` its activity (computed once, shared by both runs)."""

    def __init__(
        self,
        module: Module,
        fn: Function,
        act: Activity,
        signatures: dict[str, GradSignature],
        may_alias: bool = False,
        checkpoint: Optional[Schedule] = None,
        needed: Optional[dict[Block, dict[Value, None]]] = None,
        with_value: bool = False,
    ):
        self.module = module
        self.with_value = with_value  # --with-value: the gradient gives back the primal's value first
        self.fn = fn
        self.sig = signatures[fn.name]
        self.user_names = set(module.functions) | function_names(fn)  # what no adjoint is named
        self.signatures = signatures  # of the callees that get gradients
        self.act = act
        params = {p for p in fn.params if p.type.is_array}
        written = written_roots(module, fn)
        readonly_roots = params - written
        last_write = last_top_level_writes(module, fn)
        if may_alias and params & written:
            # A store to one parameter array may change any other: no parameter
            # array is read-only, and none keeps its values "after its last write".
            readonly_roots = set()
            last_write = {r: k for r, k in last_write.items() if r not in params}
        self.may_alias = may_alias
        self.shadow: dict[Value, Value] = {}
        # A non-blocking MPI call's request -> the adjoint request started where its wait was
        # reversed, and the buffer it receives into (mpi_rules)
        self.mpi_started: dict[Value, tuple[Value, Optional[Value]]] = {}
        self.anchors: list[Op] = []  # placeholders marking where each prologue ends
        self.memory = MemoryReport(self.sig.name, fn.name)
        self.forward = ForwardSweep(module, fn, may_alias, self.user_names, set(signatures), self._needs_reverse,
                                    self._stale_array_reads)
        # Loops under a checkpointing schedule (checkpoint.py): their bodies are re-run in the
        # reversed loop, so values of those bodies are at hand there, never taped.
        self.checkpointed: dict[Op, CheckpointedLoop] = {}
        self.ck_bodies: set[Block] = set()
        self.tapes = Tapes(fn, self.forward, self.checkpointed, self.ck_bodies, self.memory)
        for op, s in plan(module, fn, checkpoint).items():
            self.checkpointed[op] = CheckpointedLoop(self.forward, self.tapes, last_write, op, s)
        self.ck_bodies.update(ck.body for ck in self.checkpointed.values())
        if may_alias and self.checkpointed:
            loop = next(iter(self.checkpointed))
            raise error(
                "cannot checkpoint this loop with --may-alias: re-running an iteration from copies of "
                "the arrays it writes is right only when no other array argument shares their memory",
                loop.loc,
                hint="drop --may-alias (pass distinct arrays), or leave this loop store-all",
            )
        # __shared__ tiles each reversed iteration of their loop fills again (analysis/shared_refill):
        # what the iteration read of them is read again, not taped.
        self.refills = {loop: r for loop, r in refilled_tiles(module, fn, readonly_roots).items()
                        if loop not in self.checkpointed}
        self.values = Availability(module, fn, self.forward, self.tapes, self.ck_bodies, may_alias,
                                   readonly_roots, last_write, needed,
                                   {tile: loop for loop, r in self.refills.items() for tile in r.arrays})

    def _adjoint_hint(self, v: Value) -> str:
        """``d_<v>``, or its free variant where that is a user name (``d_x_`` beside a user ``d_x``):
        an adjoint never takes over a user's variable."""
        hint = adjoint_hint(v)
        return free_variant(hint, self.user_names) if hint else ""

    def _new_rev(self, primal: Block, block: Block, parent: Optional[RevBlock], loc) -> RevBlock:
        body = Builder(block, loc)
        anchor = body.create("comment", [], [], {"text": "prologue"})
        self.anchors.append(anchor)
        rev = RevBlock(primal, block, parent, body.before_op(anchor), body)
        rev.last_comment_line = parent.last_comment_line if parent is not None else 0
        return rev

    # ------------------------------------------------------------------ driver
    def run(self) -> Function:
        fn, sig = self.fn, self.sig
        g_body = Block()
        self.vanishing = VanishingAdjoints(g_body)
        for i, p in enumerate(fn.params):
            self.forward.fwd[p] = g_body.add_arg(p.type, p.name_hint)
            if i in fn.body.arg_unit_axes:  # ``a: "f64[n, 1]"``: so is the gradient's
                g_body.arg_unit_axes[len(g_body.args) - 1] = fn.body.arg_unit_axes[i]
            if i in sig.shadowed:
                self.shadow[p] = g_body.add_arg(p.type, sig.shadow_names[i])
        seeds = [g_body.add_arg(t, n) for t, n in zip(sig.seed_types(), sig.seed_names)]
        d_return = seeds[0] if len(seeds) == 1 else None
        self.forward.fwd_block[fn.body] = g_body
        top = Builder(g_body, fn.loc)
        top.create("comment", [], [], {"text": "forward sweep", "section": True})
        self._clone_block(fn.body, g_body, top)
        top.create("comment", [], [], {"text": "reverse sweep", "section": True})

        rev = self._new_rev(fn.body, g_body, None, fn.loc)
        ret = fn.body.terminator
        for v, seed in zip(ret.operands, seeds):
            if seed.type.is_array:
                self._seed_returned_array(rev, v, seed)
            elif v.type.is_float:
                self._accumulate(rev, v, seed)  # J holds seed * v (twice for `return s, s`)
        self._reverse_ops(rev, fn.body.ops[:-1])

        # --with-value: the primal's value first, as the forward sweep computed it
        results = [self.forward.fwd.get(v) or self.values.avail(rev, v)
                   for v in ret.operands] if self.with_value else []
        for i in sig.returned:
            p = fn.params[i]
            results.append(rev.adj.get(p) or build.const(rev.body, 0.0, p.type))
        rev.body.create("return", results, [])
        for anchor in self.anchors:
            anchor.erase()
        g = Function(sig.name, g_body, [v.type for v in results], fn.loc)
        if self.with_value:
            g.attrs["with_value"] = len(ret.operands)
        # The gradient is called as the primal is: its parameters keep their defaults.
        defaults = dict(fn.attrs.get("param_defaults") or {})
        if seeds:
            # An array's seed has no default (the contract), nor has a tuple's holding anything
            # but floats.
            if all(t.is_float for t in fn.result_types):
                defaults[sig.d_return_name] = 1.0 if d_return is not None else [1.0] * len(seeds)
            elif any(t.is_array for t in fn.result_types) and ret.loc is not None:
                # where the array is returned, for targets that refuse it
                g.attrs["array_result"] = [ret.loc.line, ret.loc.col, ret.loc.end_line, ret.loc.end_col]
        if defaults:
            g.attrs["defaults"] = defaults
        keyword_only = fn.attrs.get("keyword_only") or []
        if keyword_only:  # keyword-only parameters stay so, and what follows them (shadows, seeds)
            g.attrs["keyword_only_from"] = g_body.args.index(self.forward.fwd[next(
                p for p in fn.params if p.name_hint == keyword_only[0])])
        else:
            # A parameter without a default (a seed, the shadow of a parameter defaulting to None)
            # cannot follow parameters with one in Python's positional list: from the first, they
            # are keyword-only (`d_return` is passed by keyword anyway).
            given = {**defaults, **(fn.attrs.get("none_fills") or {})}
            has = [a.name_hint in given for a in g_body.args]
            first = next((k for k in range(len(has)) if not has[k] and any(has[:k])), None)
            if first is not None:
                g.attrs["keyword_only_from"] = first
        if sig.packed:  # Python passes the seeds as one tuple, d_return (emit_py unpacks it)
            g.attrs["packed"] = {sig.d_return_name: list(sig.seed_names)}
        set_grad_info(g, fn.name, {sig.shadow_names[i]: fn.params[i].name_hint for i in sig.shadowed},
                      [fn.params[i].name_hint for i in sig.returned],
                      sig.seed_names[0] if seeds else None)
        g.attrs["pointers"] = [sig.pointer_names[i] for i in sig.returned]
        for kept in SOURCE_ATTRS:  # the emitters spell the gradient's declaration from the primal's
            if kept in fn.attrs:
                g.attrs[kept] = fn.attrs[kept]
        if sig.struct_shadow_names:
            g.attrs["struct_shadows"] = sig.struct_shadow_names
        return g

    def _seed_returned_array(self, rev: RevBlock, v: Value, d_return: Value) -> None:
        """``d_return`` is the adjoint of the returned array ``v`` (J holds ``<d_return, v>``).

        A whole-array result used by whole-array ops only takes it as its adjoint value; any
        other array (a parameter, a local filled element by element, a view) adds it into its
        shadow memory, which then holds the adjoint of its exit value, as a written array's does.
        """
        if not self.act.array_active(v):
            return
        if makes_fresh_array(v.defining_op) and self._array_by_value(v):
            prev = rev.adj.get(v)  # `return y, y`: seeded twice
            rev.adj[v] = d_return if prev is None else rev.body.op1(ARR + "add", [prev, d_return], v.type)
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
                    CheckpointEntry(line_of(op), str(ck.schedule), ck.slots_text, ck.snapshot_bytes_per_slot())
                )
            else:
                self.forward.clone_op(op, b)

    # ------------------------------------------------------------ reverse sweep
    def _needs_reverse(self, op: Op) -> bool:
        for inner in op.walk():
            if any(self.act.is_active(r) for r in inner.results):
                return True
            if makes_fresh_array(inner) and self.act.array_active(inner.result):
                return True
            if inner.name in ("store", SCATTER_ADD) and self._has_shadow(inner.operands[0]):
                return True
            if inner.name == "call" and self._call_active(inner):
                return True
            if inner.name == SYNC:
                return True  # what threads exchange through memory, their adjoints exchange back
            if communicates(inner.name) and carries_floats(inner) and self.act.network_active:
                return True  # what ranks exchange, their adjoints exchange back (mpi_rules)
        return False

    def _call_active(self, op: Op) -> bool:
        return any(self._array_active(r) for r in op.results) or any(
            (a.type.is_array and self.act.array_active(a)) or self.act.is_active(a) for a in op.operands
        )

    def _has_shadow(self, arr: Value) -> bool:
        if known_root(arr) in self.shadow:
            return True
        # Integers carry no derivative: an array of them has no shadow unless the signature gave
        # it one (a helper writing a struct's int member through a cell, v->n = 2, asked for one).
        return self.act.array_active(arr) and not arr.type.elem.is_int  # type: ignore[attr-defined]

    def _accumulate(self, rev: RevBlock, v: Value, c: Optional[Value]) -> None:
        if c is None or not self.act.is_active(v):
            return
        prev = rev.adj.get(v)
        if prev is None:
            if not c.name_hint and c.defining_op is not None:
                c.name_hint = self._adjoint_hint(v)  # the first contribution becomes d_<v>
            rev.adj[v] = c
        else:
            rev.adj[v] = build.add(rev.body, prev, c, hint=self._adjoint_hint(v))

    def _buffer_dims(self, at: Builder, arr: Value, op: Op, i: int,
                     seen: Callable[[Value], Optional[Value]]) -> list[Value]:
        """The shape of new memory for argument ``i`` of the call ``op`` (a buffer the callee only
        writes, the shadow of an inactive array): ``arr``'s extents at ``at`` (a view's from its
        offset), its first what the callee may touch where its arguments, as ``seen`` gives them
        there, tell (new memory: past the array's end is harmless)."""
        dims = [extent_at(at, arr, ax, "") for ax in range(arr.type.rank)]  # type: ignore[attr-defined]
        reach = self.forward.reach(op, i, at, seen)
        if reach is not None:
            dims[0] = reach
        return dims

    def _shadow_of(self, rev: RevBlock, arr: Value) -> Value:
        op = arr.defining_op
        if op is not None and op.name == "view":
            return self._shadow_view(rev, op)
        root = known_root(arr)
        if root not in self.shadow:
            # A local array: its shadow lives from the mirror of its alloc on.
            op = root.defining_op
            m = rev.mirror_of(op.parent)
            if makes_fresh_array(op) or op.name == "call":
                # The result of a whole-array op or of a call: a shadow of its shape.
                like = self.values.avail(m, root)
                t = root.type
                dims = [m.prologue.op1("dim", [like], I64, axis=k) for k in range(t.rank)]
                self.shadow[root] = m.prologue.op1(
                    "alloc", dims, t, self._adjoint_hint(root), fill="zeros", elem=str(t.elem), shadow=True
                )
                return self.shadow[root]
            dims = [self.values.avail(m, d) for d in op.operands]
            attrs = dict(op.attrs, fill="zeros", shadow=True)  # adjoint memory (opt.shadow_writes)
            self.shadow[root] = m.prologue.op1("alloc", dims, root.type, self._adjoint_hint(root), **attrs)
        return self.shadow[root]

    def _shadow_view(self, rev: RevBlock, view: Op) -> Value:
        """The shadow of ``view(a, k)``: ``view(shadow(a), k)``, the adjoints of the elements it names.

        Made once in the mirror of the view's block, ahead of its adjoint code, where
        the shadow of ``a`` and the offset are available.
        """
        m = rev.mirror_of(view.parent)
        v = view.result
        if v not in m.shadow_views:
            base = self._shadow_of(m, view.operands[0])
            offset = self.values.avail(m, view.operands[1])
            m.shadow_views[v] = m.prologue.op1("view", [base, offset], v.type, self._adjoint_hint(v), **view.attrs)
        return m.shadow_views[v]

    def _reverse_ops(self, rev: RevBlock, ops: list[Op]) -> None:
        for op in reversed(ops):
            if not self._needs_reverse(op):
                continue
            marker = None
            previous = rev.last_comment_line
            line = op.loc.line if op.loc else 0
            if line and line != previous:
                marker = rev.body.create("comment", [], [], {"text": self._line_text(op.loc)})
                rev.last_comment_line = line  # regions inside start from here (no repeat)
            self._reverse_op(rev, op)
            if marker is not None and rev.block.ops[-1] is marker:
                marker.erase()
                rev.last_comment_line = previous

    def _line_text(self, loc: SourceLoc) -> str:
        """``line 7: s += x[i];``, the source line an adjoint comes from (in a C header, named by it)."""
        lines = lines_of(self.module.source_lines, loc.file)
        # Its start (a comment line shows under 100 characters of it: a line may be megabytes).
        src = lines[loc.line - 1].strip()[:SOURCE_SHOWN] if loc.line <= len(lines) else ""
        # A linter's directive on the source line (noqa, type: ignore) would be one in the
        # output too, about code that is not there: ruff reports it unused (RUF100).
        src = _LINT_DIRECTIVE.sub("", src).rstrip()
        own = not isinstance(self.module.source_lines, SourceLines) or loc.file == self.module.source_lines.name
        return f"{'' if own else loc.file + ' '}line {loc.line}: {src}"

    def _reverse_op(self, rev: RevBlock, op: Op) -> None:
        fetch = lambda v: self.values.avail(rev, v)  # noqa: E731
        name = op.name
        rev.body.loc = op.loc
        rev.prologue.loc = op.loc
        if name == "load":
            g = rev.adj.get(op.result)
            if g is not None and self.act.array_active(op.operands[0]):
                d = self._shadow_of(rev, op.operands[0])
                idx = [fetch(i) for i in op.operands[1:]]
                build.accum(rev.body, d, idx, g)  # d_x[i] += g
        elif name == "store":
            update = update_of(op)
            if update is not None and self._has_shadow(op.operands[0]):
                # y[k] += e keeps y[k]'s adjoint and adds it to e's: a read of d_y[k], never a
                # write (which iterations, threads, updating one element at once can all do),
                # rather than d_y[k] read, zeroed and added back.
                sign, e = update
                d = self._shadow_of(rev, op.operands[0])
                if self.act.is_active(e):
                    idx = [fetch(i) for i in op.operands[1:-1]]
                    g = rev.body.op1("load", [d, *idx], e.type, element_hint(d, idx))
                    self._accumulate(rev, e, g if sign > 0 else build.neg(rev.body, g))
            elif self._has_shadow(op.operands[0]) and int_member(op.operands[1]) is None:
                # (an integer member, ps[i].flags = ..., has no adjoint to read or clear)
                d = self._shadow_of(rev, op.operands[0])
                idx = [fetch(i) for i in op.operands[1:-1]]
                val = op.operands[-1]
                g = rev.body.op1("load", [d, *idx], val.type, self._adjoint_hint(val) or element_hint(d, idx))
                rev.body.create("store", [d, *idx, build.const(rev.body, 0.0, val.type)], [])
                self._accumulate(rev, val, g)
        elif name == SYNC:
            rev.body.create(SYNC, [], [])  # the barrier, at the mirrored place
        elif name == SHUFFLE:
            g = rev.adj.get(op.result)
            if g is not None and self.act.is_active(op.operands[1]):
                mask, lane = fetch(op.operands[0]), fetch(op.operands[2])
                self._accumulate(rev, op.operands[1], shuffle_adjoint(rev.body, self.fn, op.attrs["mode"], mask, g,
                                                                      lane))
        elif name == "call":
            self._reverse_call(rev, op)
        elif name == "extern":
            self._reverse_extern(rev, op)
        elif communicates(name):
            reverse_mpi(self, rev, op)
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
            before = set(map(id, rev.body.block.ops)) if numpy_spelled(op) else None
            fetch = guarded_fetch(rev.body, op, g, fetch, self.vanishing)
            try:
                contribs = adjoint_contributions(rev.body, _OpView(op, fetch), g, active)
            except MissingRule as e:
                raise error(f"cannot differentiate: {e}", op.loc, hint="rewrite it with supported operations") from None
            if before is not None:  # np.log(x)'s adjoint g / x is NumPy's division too
                for made in rev.body.block.ops:
                    if id(made) not in before and made.results and made.result.type.is_float and (
                            made.name.startswith("math.") or made.name in NUMPY_OPS):
                        made.attrs[NUMPY] = True
            for v, c in zip(op.operands, contribs):
                self._accumulate(rev, v, c)

    def _reverse_extern(self, rev: RevBlock, op: Op) -> None:
        """A function defined outside the input: no derivative is known, so none may be needed.
        Its result has an adjoint only where an argument depends on the --wrt inputs (an
        integer result never has one: it is piecewise constant, as ``floor`` is)."""
        if not op.results or rev.adj.get(op.result) is None:
            return
        if "adjoint" in op.attrs:
            self._reverse_custom(rev, op)
            return
        callee = op.attrs["callee"]
        texts = op.attrs.get("args") or [""] * len(op.operands)
        active = [k for k, v in enumerate(op.operands)
                  if (self.act.array_active(v) if v.type.is_array else self.act.is_active(v))]
        k = active[0] if active else 0
        where = f" ({texts[k]})" if texts[k] else ""
        outside = f"outside {op.loc.file}" if op.loc is not None and op.loc.file else "outside the input"
        raise error(f"cannot differentiate through call to '{callee}': it is defined {outside}, and its "
                    f"argument {k + 1}{where} depends on the inputs the gradient is taken with respect to",
                    op.loc, hint=f"define {callee} in this file, so that s2sad can differentiate it, or give it a "
                    f"custom derivative: a function grad_{callee} in a file passed with --derivatives (see README, "
                    "Custom derivatives)")

    def _reverse_custom(self, rev: RevBlock, op: Op) -> None:
        """The call of a function defined elsewhere, reversed by its custom adjoint
        (``parse/derivatives``): ``grad_f(x, d_x, a, n, d_return)``, each argument as the call saw
        it, each floating-point array followed by its shadow (the adjoint adds into it: a zeroed
        buffer for an array whose adjoint nothing reads), the result's adjoint last; it returns
        the adjoints of the floating-point scalar arguments, which add to theirs."""
        args: list[Value] = []
        returned: list[int] = []  # the operands whose adjoints the results are
        at: list[int] = []  # where each of those is among the adjoint's arguments
        shadows: list[int] = []  # where the shadows are
        for i, a in enumerate(op.operands):
            snapshot = self.forward.snapshots.get((op, i))
            if snapshot is not None:  # an array written after the call: as the call saw it
                args.append(self.values.avail_clone(rev.mirror_of(op.parent), snapshot, op.parent))
            else:
                args.append(self.values.avail(rev, a))
            if a.type.is_array and a.type.elem.is_float:  # type: ignore[attr-defined]
                shadows.append(len(args))
                if self.act.array_active(a):
                    args.append(self._shadow_of(rev, a))
                else:
                    dims = [extent_at(rev.body, args[-1], ax, "") for ax in range(a.type.rank)]  # type: ignore
                    args.append(rev.body.op1("alloc", dims, a.type, fill="zeros", elem=str(a.type.elem),
                                             **struct_attrs(self.fn, a)))  # type: ignore
            elif a.type.is_float:
                returned.append(i)
                at.append(len(args) - 1)
        args.append(rev.adj[op.result])
        attrs = {k: op.attrs[k] for k in ("adjoint_prototype", "adjoint_module", "adjoint_file") if k in op.attrs}
        attrs.update(callee=op.attrs["adjoint"], shadows=shadows, returned=at)
        texts = op.attrs.get("args") or [""] * len(op.operands)

        def hint(i: int) -> str:  # d_x_i for x[i]; d_gammaln_arg for gammaln(k[i] + 1.0)
            if re.fullmatch(r"\w+(\[\w+(, *\w+)*\])?", texts[i]):
                return "d_" + re.sub(r"\W+", "_", texts[i]).strip("_")
            return f"d_{op.attrs['callee']}_arg" + (str(i + 1) if len(op.operands) > 1 else "")

        hints = [self._adjoint_hint(op.operands[i]) or free_variant(hint(i), self.user_names) for i in returned]
        call = rev.body.create("extern.adjoint", args, [op.operands[i].type for i in returned], attrs, hints=hints)
        for i, r in zip(returned, call.results):
            self._accumulate(rev, op.operands[i], r)

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
        partial = (ARR + "slice", ARR + "take", ARR + "mask")
        return all(
            u.name == "dim"  # reads the shape only
            or (u.name == "return" and u.parent is self.fn.body)  # seeded with d_return
            or (is_array_op(u.name) and u.name not in partial and u.parent is v.defining_op.parent)
            for u, _ in v.uses
        )

    def _array_active(self, v: Value) -> bool:
        return self.act.array_active(v) if v.type.is_array else self.act.is_active(v)

    def _accumulate_array(self, rev: RevBlock, v: Value, c: Optional[Value]) -> None:
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

    def _stale_array_reads(self, op: Op) -> list[int]:
        """The array operands of the whole-array op ``op`` that something writes after it: the
        reverse sweep, which reads arrays as the forward sweep leaves them, needs them as they were
        (the forward sweep copies them before ``op``; in a loop, an array tape keeps each copy)."""
        out = []
        for i, v in enumerate(op.operands):
            if not v.type.is_array or (i == 0 and op.name in ACCUMULATIONS):
                continue  # (what an accumulation adds into: the reverse sweep never reads it)
            root = known_root(viewed_array(v))  # x[1:] in the output is a view: it changes with x
            if stays_as_made(root):
                continue  # never written
            if root in self.values.readonly_roots:
                continue
            if root in self.values.last_write and top_level_index(self.fn, op) > self.values.last_write[root]:
                continue
            out.append(i)
        return out

    def _reverse_array_op(self, rev: RevBlock, op: Op) -> None:
        copies = {op.operands[i]: self.forward.snapshots[(op, i)] for i in range(len(op.operands))
                  if (op, i) in self.forward.snapshots}

        def fetch(v: Value) -> Value:
            if v in copies:  # an array written after op: as it was, from the forward sweep's copy
                return self.values.avail_clone(rev.mirror_of(op.parent), copies[v], op.parent)
            return self.values.avail(rev, v)

        if op.name == SCATTER_ADD:
            self._reverse_scatter_add(rev, op, fetch)
            return
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
        if op.name == ARR + "slice":
            # d_a[lo:hi, j] += g: the slice's adjoint goes straight into part of a's shadow.
            a = op.operands[0]
            if self.act.array_active(a):
                bounds = [fetch(v) for v in op.operands[1:]]
                rev.body.create(ARR + "accum_slice", [self._shadow_of(rev, a), g, *bounds], [], dict(op.attrs))
            return
        if op.name == ARR + "mask":
            # d_a[m] += g: a mask's adjoint goes back to the entries it picked.
            a = op.operands[0]
            if self.act.array_active(a):
                rev.body.create(ARR + "accum_mask", [self._shadow_of(rev, a), fetch(op.operands[1]), g], [])
            return
        if op.name == ARR + "take":
            # np.add.at(d_a, idx, g): a gather's adjoint is a scatter-add into a's shadow.
            a = op.operands[0]
            if self.act.array_active(a):
                indices = [fetch(v) for v in op.operands[1:]]
                rev.body.create(ARR + "accum_take", [self._shadow_of(rev, a), *indices, g], [])
            return
        active = [self._array_active(v) for v in op.operands]
        # (a local's shadow: elements nothing read are 0)
        fetch = guarded_fetch(rev.body, op, g, fetch, self.vanishing, zero_elsewhere=r in self.shadow)
        try:
            contribs = adjoint_contributions(rev.body, _OpView(op, fetch), g, active)
        except MissingRule as e:
            raise error(f"cannot differentiate: {e}", op.loc, hint="rewrite it with supported operations") from None
        for v, c in zip(op.operands, contribs):
            if v.type.is_array:
                self._accumulate_array(rev, v, c)
            else:
                self._accumulate(rev, v, c)

    def _reverse_scatter_add(self, rev: RevBlock, op: Op, fetch: Callable[[Value], Value]) -> None:
        """``np.add.at(a, idx, v)``: ``a[idx[e]] += v[e]`` for every ``e``, repeated indices adding
        up. ``a``'s adjoint stays as it is (the additions keep it); ``v``'s is what it was added
        into: ``d_v += d_a[idx]``, a gather."""
        dst, *indices, v = op.operands
        if not self.act.array_active(v) or not self._has_shadow(dst):
            return
        g = rev.body.op1(ARR + "take", [self._shadow_of(rev, dst), *[fetch(i) for i in indices]], v.type,
                         self._adjoint_hint(v))
        self._accumulate_array(rev, v, g)

    def _zero(self, b: Builder, t: Type) -> Value:
        return build.const(b, 0.0, t)

    def _carried_adjoint_loop(
        self,
        rev: RevBlock,
        op: Op,
        body: Block,
        rbody: Block,
        slots: list[int],
        yields: list[Value],
        ck: Optional[CheckpointedLoop] = None,
        last: Sequence[tuple[Value, Value]] = (),
        first_index: Optional[Value] = None,
    ):
        """Shared by for/while: process a reversed body whose carried slots are ``slots``.

        ``last``: (yielded value, adjoint of the loop's result) of a parallel loop's values that
        only the last iteration hands out (OpenMP's lastprivate): that iteration, the reversed
        loop's first (its counter is ``first_index``), gets the adjoint; the others none.

        Returns (outer values whose adjoints the loop carries, their init values,
        the carried-slot inits) after filling ``rbody``.
        """
        outer = [v for v in outer_refs(op) if self.act.is_active(v)]
        slot_args = [rbody.add_arg(body.args[k].type, self._adjoint_hint(body.args[k])) for k in slots]
        outer_args = [rbody.add_arg(v.type, self._adjoint_hint(v)) for v in outer]
        inner = self._new_rev(body, rbody, rev, op.loc)
        extra = []
        if ck is not None:  # the snapshot stack depth rides along with the adjoints
            extra = [ck.reverse_prologue(inner, rbody.add_arg(I64, "ck_depth"))]
        if op in self.refills:
            self._refill(inner, op)
        inner.adj = dict(zip(outer, outer_args))
        for k, a in zip(slots, slot_args):
            self._accumulate(inner, yields[k], a)
        for y, g in last:
            assert first_index is not None
            is_last = build.cmp(inner.body, "eq", rbody.args[0], first_index)
            self._accumulate(inner, y, build.select(inner.body, is_last, g, self._zero(inner.body, g.type)))
        self._reverse_ops(inner, body.ops[:-1])
        new_slots = [inner.adj.get(body.args[k]) or self._zero(inner.body, body.args[k].type) for k in slots]
        counted = [y for _, y in inner.carries]
        inner.body.create("yield", new_slots + [inner.adj[v] for v in outer] + extra + counted, [])
        return outer, slot_args, outer_args, inner.carries

    def _refill(self, inner: RevBlock, loop: Op) -> None:
        """The __shared__ tiles of ``loop`` filled again as its forward iteration filled them, then
        a barrier, ahead of the reversed iteration's code (``analysis/shared_refill``)."""
        b = inner.prologue
        names = ", ".join(sorted(t.name_hint or "a tile" for t in self.refills[loop].arrays))
        b.create("comment", [], [], {"text": f"{names} as this iteration filled them, read again below"})
        for fill in self.refills[loop].stores:
            if fill.name == "store":
                operands = [self.values.avail(inner, o) for o in fill.operands]
                b.create("store", operands, [], dict(fill.attrs), loc=fill.loc)
                continue
            # A guarded fill, run again whole (its loads stay under its guard): what it reads from
            # outside is brought here first, ahead of the copy.
            outer = {v: self.values.avail(inner, v) for v in [fill.operands[0], *outer_refs(fill)]}
            guard = b.create("if", [outer[fill.operands[0]]], [], regions=[Block(), Block()], loc=fill.loc)
            for branch, copy in zip(fill.regions, guard.regions):
                into = Builder(copy, fill.loc)
                clone_ops(branch.ops[:-1], into, dict(outer))
                into.create("yield", [], [])
        b.create(SYNC, [], [], loc=loop.loc)

    def _reverse_loop(
        self,
        rev: RevBlock,
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
        # A parallel loop's value that no iteration reads (lastprivate) is the last iteration's.
        last = [k for k in slots if op.attrs.get("parallel") and first and not body.args[first + k].uses]
        slots = [k for k in slots if k not in last]
        seeds = [(yields[k], rev.adj[op.results[k]]) for k in last if op.results[k] in rev.adj]
        rbody = Block([I64], [body.args[0].name_hint if first else ("ck_k" if ck is not None else "_")])
        outer, slot_args, outer_args, carries = self._carried_adjoint_loop(
            rev, op, body, rbody, [first + k for k in slots], yields_by_arg(body, first, yields), ck,
            seeds, bounds[0]
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
        for init, y in carries:  # counters counted back from the values the loop left
            init_vals.append(init)
            types.append(y.type)
            hints.append(y.name_hint)
        # A parallel loop's iterations are independent, and so are their adjoints (the
        # emitter makes the accumulations they share race-free).
        kept = {k: op.attrs[k] for k in ("parallel", "schedule", "collapse", "collapsed") if k in op.attrs}
        rfor = rev.body.create("for", [lb, ub, step, *init_vals], types, {**kept, REVERSED: True},
                               regions=[rbody], hints=hints)
        finals = _prune_passthrough(rfor)
        # Outer adjoints first: the loop's results replace them. Then the carried
        # slots' adjoints flow into the inits, which may be those same outer values.
        for v, final in zip(outer, finals[len(slots) :]):
            if final is not None:
                rev.adj[v] = final
        for k, final in zip(slots, finals):
            # A slot the loop passes through unchanged hands on the adjoint it got.
            self._accumulate(rev, inits[k], final if final is not None else rev.adj.get(op.results[k]))
        if seeds:
            # A last value is the value it entered with when the loop does not run.
            first_index, stop, rstep = bounds
            runs = build.cmp(rev.body, "gt" if build.known_sign(rstep) < 0 else "lt", first_index, stop)
            for k in last:
                g = rev.adj.get(op.results[k])
                if g is not None:
                    self._accumulate(rev, inits[k], build.select(rev.body, runs, self._zero(rev.body, g.type), g))

    def _reverse_for(self, rev: RevBlock, op: Op) -> None:
        lb, ub, step = (self.values.avail(rev, v) for v in op.operands[:3])
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
                # The trip count as a tape of the loop is sized (structured.trip_count), so that
                # a C compiler that proves the tape empty proves the reversed loop empty too
                # (gcc -Warray-bounds otherwise: fuzz seed 10104952).
                trip = trip_count(b, *((lb, ub) if toward > 0 else (ub, lb)), abs(s))
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
            trip = floordiv(b, build.sub(b, build.add(b, build.sub(b, ub, lb), step), sign), step)
            first = build.add(b, lb, build.mul(b, build.sub(b, trip, build.const(b, 1, I64)), step))
            bounds = (first, build.sub(b, lb, step), build.neg(b, step))
        body = op.regions[0]
        ck = self.checkpointed.get(op)
        if ck is not None:
            ck.enter_reverse(rev)
        self._reverse_loop(rev, op, body, list(body.terminator.operands), list(op.operands[3:]), 1, bounds, ck)
        if ck is not None:
            ck.leave_reverse()

    def _reverse_while(self, rev: RevBlock, op: Op) -> None:
        count_clone = self.forward.while_counts[self.forward.fwd_op[op]]
        count = self.values.avail_clone(rev.mirror_of(op.parent), count_clone, op.parent)
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

    def _reverse_if(self, rev: RevBlock, op: Op) -> None:
        cond = self.values.avail(rev, op.operands[0])
        outer = [v for v in outer_refs(op) if self.act.is_active(v)]
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

    def _reverse_call(self, rev: RevBlock, op: Op) -> None:
        callee = self.module.functions[op.attrs["callee"]]
        sig = self.signatures.get(callee.name)
        if sig is None:
            return
        args: list[Value] = []
        for i, a in enumerate(op.operands):
            snapshot = self.forward.snapshots.get((op, i))
            shared = self.forward.shared_snapshots.get((op, i))
            if snapshot is not None:
                args.append(self.values.avail_clone(rev.mirror_of(op.parent), snapshot, op.parent))
            elif shared is not None:  # one copy, each argument the view of it the call passed
                view = self.values.avail_clone(rev.mirror_of(op.parent), shared[0], op.parent)
                for offset in shared[1]:
                    view = rev.body.op1("view", [view, self.values.avail(rev, offset)], view.type)
                args.append(view)
            elif (op, i) in self.forward.scratch:  # the callee only writes it: memory of its size
                # An array made before every loop has one size: its buffer is made once, before them.
                home = rev.mirror_of(self.fn.body) if defining_block(a) is self.fn.body else rev
                at = home.prologue if home is not rev else rev.body
                here = self.values.avail(home, a)
                seen = self.forward.top_level if home is not rev else (lambda v: self.values.avail(rev, v))
                dims = self._buffer_dims(at, here, op, i, seen)
                hint = free_variant(f"{known_root(a).name_hint}_for_{callee.name}", self.user_names)
                args.append(at.op1("alloc", dims, a.type, hint, fill="empty", elem=str(a.type.elem), scratch=True,
                                   **struct_attrs(self.fn, a)))
            else:
                args.append(self.values.avail(rev, a))
            if i in sig.shadowed:
                if self.act.array_active(a):
                    args.append(self._shadow_of(rev, a))
                else:
                    dims = self._buffer_dims(rev.body, args[-1], op, i, lambda v: self.values.avail(rev, v))
                    args.append(rev.body.op1("alloc", dims, a.type, fill="zeros", elem=str(a.type.elem)))
        for r, t in zip(op.results, sig.seed_types()):
            if t.is_array:  # the adjoint of the array the callee returned: what its uses added
                args.append(self._shadow_of(rev, r))
            else:
                args.append(rev.adj.get(r) or self._zero(rev.body, t))
        types = [callee.params[i].type for i in sig.returned]
        hints = [self._adjoint_hint(op.operands[i]) or self._adjoint_hint(callee.params[i]) for i in sig.returned]
        call = rev.body.create("call", args, types, {"callee": sig.name}, hints=hints)
        for i, r in zip(sig.returned, call.results):
            self._accumulate(rev, op.operands[i], r)


def yields_by_arg(body: Block, first: int, yields: list[Value]) -> list[Value]:
    """Index yields by block-arg position (the for's induction variable has none)."""
    return [None] * first + yields  # type: ignore[list-item]


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
