"""Common subexpression elimination over structured regions (scoped value numbering).

What: an op that computes what an op before it already computed, on the same
operands, is erased and its results replaced by the earlier op's. The earlier op
must dominate the later one: it comes before it in the same block, or before the
op that (transitively) owns the later one's block. Three kinds of ops qualify:

* pure ops (``opdefs``' ``pure``: arithmetic, comparisons, ``select``, ``cast``,
  ``math.<fn>``, ``const``, ``dim``, ``view``): same name, same operands by identity
  (in any order for commutative ops), equal attributes, same result types. Two
  views of one array at one offset are the same memory, so merging them is exact;
* ``load``s of the same array at the same indices, when nothing that runs between
  the two can write that array (below);
* ``call``s with the same callee and arguments, when the callee writes no memory
  its caller can see (``analysis``: read-only; scratch arrays it allocates are
  fresh on every call) and returns no array. A call that reads array arguments is
  treated like a load of each of them; one that reads none is a pure op.

Memory, through the effect analysis the passes share (``s2sad.analysis.effects``):
a load is available from where it runs until an op that may write its array.
Arrays are compared by root (a parameter, or the fresh memory of an ``alloc``,
``copy`` or ``tape.new``; a view has its base's root; unknown when chosen by
control flow, and then it may be any). A ``store`` writes its array's root; a ``call`` the roots of the arguments
its callee writes, transitively; ``tape.push``/``tape.pop`` only their tape. Two
roots may be the same memory when they are the same value, when one is unknown,
or, with ``ctx.may_alias``, when both are parameters. A store spares the loads of its own array
value at an element evidently not its own (at some index, one is the other plus a nonzero
constant: ``p[i][j - 1]`` stays available across ``p[i][j] = ...``). Entering a ``for`` or
``while`` drops the available loads of every root the loop writes anywhere in its
regions, since an earlier iteration runs between the load outside and the load
inside; after any region op, the parent drops the loads of every root it writes.
An ``if`` region starts from the parent's loads (only the code before it in that
region runs in between).

Never merged: ops of sibling regions (neither dominates the other), ``undef``
(each stands for its own not-yet-set variable), ``alloc``/``copy``/``tape.new``
(each result is a new array), and ``math.min``/``math.max`` with their operands
swapped on floats: Python's ``min(nan, 1.0)`` is ``nan`` but ``min(1.0, nan)`` is
``1.0``, and ``min(0.0, -0.0)`` returns its first operand.

Names: when the erased result has a ``name_hint`` and the kept one has none, the
hint moves to the kept value, since hints are what the emitters print.

Follows MLIR's CSE pass (a scoped hash table walked over the dominance tree of
regions), i.e. Alpern-Wegman-Zadeck value numbering restricted to dominance, with
the available-loads extension of classic redundant-load elimination.

Pre: verified IR. Post: verified IR computing the same results and memory, with
the duplicates erased. That leaves no other op dead (the kept op uses the same
operands), and ops that were dead before are DCE's job.
"""

from __future__ import annotations

from collections import ChainMap
from dataclasses import dataclass
from typing import Any, Hashable, Optional

from ..ssa.attrs import SCIPY, SOURCE_EXTENT
from ..ssa.opdefs import is_pure
from ..ssa.array_ops import array_reads, is_array_op
from ..ssa.ir import Block, Function, Module, Op, Value, erase_ops
from ..analysis.effects import EffectAnalysis, PassContext, RootSet, array_root
from .shadow_writes import distinct_elements

# Operand order does not matter for these (on every type, unless listed in _INT_ONLY_COMMUTATIVE).
_COMMUTATIVE = {"add", "mul", "eq", "ne", "and", "or", "math.min", "math.max"}
# Python's min/max return their first operand on ties and on NaN, so swapping is exact on ints only.
_INT_ONLY_COMMUTATIVE = {"math.min", "math.max"}
# Pure by the op table, but two of them are not the same value in any useful sense.
_NEVER = {"undef"}


# -- keys -------------------------------------------------------------------------------


def _freeze(value: Any) -> Hashable:
    """A hashable form of an attribute value that tells 0.0 from -0.0, 1 from 1.0 and True."""
    if isinstance(value, dict):
        return ("dict", tuple(sorted((k, _freeze(v)) for k, v in value.items())))
    if isinstance(value, (list, tuple)):
        return ("list", tuple(_freeze(v) for v in value))
    if isinstance(value, float):
        return ("float", repr(value))
    return (type(value).__name__, value)


# Attributes that say how the source spelled an op, not what it computes: ops differing only
# there are one value (the merged op keeps the spelling: ``_replace``).
_SPELLING = (SCIPY,)
# Attributes a fact about every op merged must hold of to stay (``_replace``).
_SHARED_FACTS = (SOURCE_EXTENT,)


_UNKEYED = frozenset(_SPELLING + _SHARED_FACTS)
_NO_ATTRS = _freeze({})


def _key(op: Op) -> Hashable:
    operands = [id(v) for v in op.operands]
    if op.name in _COMMUTATIVE and not (
        op.name in _INT_ONLY_COMMUTATIVE and not all(v.type.is_int for v in op.operands)
    ):
        operands.sort()
    attrs = op.attrs
    return (
        op.name,
        tuple(operands),
        _freeze({k: v for k, v in attrs.items() if k not in _UNKEYED}) if attrs else _NO_ATTRS,
        tuple(str(r.type) for r in op.results),
    )


# -- the walk ---------------------------------------------------------------------------


@dataclass
class _Available:
    """An earlier op's results, available for reuse, and the roots of the memory it read."""

    results: list[Value]
    reads: tuple[Optional[Value], ...]
    op: Optional[Op] = None  # the load that made them (a store to another element spares it)


class _Loads:
    """A block's available loads (key -> ``_Available``), and their keys by the roots they read:
    a write asks only the roots it may touch (a scan of every available load at every store was
    quadratic in a long function). One key always reads the same roots (they follow from its
    operands), so a key left under another root once dropped is dropped again harmlessly."""

    __slots__ = ("found", "by_root")

    def __init__(self) -> None:
        self.found: dict[Hashable, _Available] = {}
        self.by_root: dict[Optional[Value], set[Hashable]] = {}

    def copy(self) -> "_Loads":
        out = _Loads()
        out.found = dict(self.found)
        out.by_root = {root: set(keys) for root, keys in self.by_root.items()}
        return out

    def get(self, key: Hashable) -> Optional[_Available]:
        return self.found.get(key)

    def add(self, key: Hashable, available: _Available) -> None:
        self.found[key] = available
        for root in available.reads:
            self.by_root.setdefault(root, set()).add(key)

    def kill(self, written: RootSet, ctx: PassContext, store: Optional[Op] = None) -> None:
        """Drop the loads that read memory ``written`` may touch; with ``store`` (the write), not
        the loads of its array value at an element evidently not its own (``p[i][j - 1]`` after
        ``p[i][j] = ...``: a recurrence's stencil reads the element it read before the store)."""
        if not written or not self.found:
            return
        stale = [root for root in self.by_root if written.may_touch(root, ctx)]
        for root in stale:
            keys = self.by_root.pop(root)
            spared = {key for key in keys if store is not None and key in self.found
                      and _elsewhere(self.found[key].op, store)}
            for key in keys - spared:
                self.found.pop(key, None)
            if spared:
                self.by_root[root] = spared


def _elsewhere(load: Optional[Op], store: Op) -> bool:
    """Whether ``load`` reads the array value ``store`` writes at another element, evidently."""
    return load is not None and load.name == "load" and distinct_elements(load, store)


class _CSE:
    def __init__(self, module: Module, ctx: PassContext):
        self.ctx = ctx
        self.effects = EffectAnalysis(module)

    def run(self, fn: Function) -> None:
        # What each nest writes, worked out once: this pass only erases ops it merged (loads,
        # pure ops, calls that write nothing), so the sets stay true.
        self.written = self.effects.written_roots_of_nests(fn)
        self.block(fn.body, ChainMap(), _Loads())

    def written_roots(self, op: Op) -> RootSet:
        found = self.written.get(op)
        return found if found is not None else self.effects.written_roots(op)

    def block(self, block: Block, pure: ChainMap, loads: _Loads) -> None:
        """Value-number ``block``; ``pure`` is scoped, ``loads`` is this block's own copy."""
        merged: list[Op] = []  # erased together at the end (ir.erase_ops), each unused by then
        for op in list(block.ops):
            reads = self.reads(op)
            if reads is not None and not reads:
                key = _key(op)
                found = pure.get(key)
                if found is not None:
                    _replace(op, found)
                    merged.append(op)
                else:
                    pure[key] = op.results
            elif reads is not None:
                key = _key(op)
                found = loads.get(key)
                if found is not None:
                    _replace(op, found.results)
                    merged.append(op)
                else:
                    loads.add(key, _Available(op.results, reads, op))
            if op.regions:
                self.regions(op, pure, loads)
            # Everything nested in op has run by now: drop what it may have changed.
            loads.kill(self.written_roots(op), self.ctx, op if op.name == "store" else None)
        erase_ops(merged)

    def regions(self, op: Op, pure: ChainMap, loads: _Loads) -> None:
        inner = loads
        if op.name in ("for", "while"):
            # Any iteration may run between a load before the loop and one inside it.
            inner = loads.copy()
            inner.kill(self.written_roots(op), self.ctx)
        for region in op.regions:
            # A child scope per region: what one region finds is never seen by its siblings.
            self.block(region, pure.new_child(), inner.copy())

    def reads(self, op: Op) -> Optional[tuple[Optional[Value], ...]]:
        """The roots ``op`` reads when it may be merged with an equal op (empty: pure); None: never."""
        if op.regions or op.name in _NEVER:
            return None
        if is_pure(op):
            return ()  # ``dim`` too: it reads the shape, which never changes
        if op.name == "load":
            return (array_root(op.operands[0]),)
        if is_array_op(op.name) and len(op.results) == 1:
            # A whole-array op: a function of the arrays it reads (results are never written,
            # so two equal ones may be one array), merged like a load.
            return tuple(array_root(v) for v in array_reads(op))
        if op.name == "call":
            effects = self.effects.call_effects(op)
            # A call that writes no memory the caller sees (local scratch arrays are
            # fresh on every call) and returns no array (a new one each time?).
            if effects is None or not effects.readonly or any(r.type.is_array for r in op.results):
                return None
            return tuple(array_root(op.operands[i]) for i in sorted(effects.reads))
        return None


def _replace(op: Op, kept: list[Value]) -> None:
    """Every use of ``op``'s results reads ``kept`` instead (the caller erases ``op``)."""
    made = kept[0].defining_op if kept else None
    for attr in _SPELLING:
        if attr in op.attrs and made is not None:
            made.attrs[attr] = op.attrs[attr]
    for attr in _SHARED_FACTS:
        if made is not None and not op.attrs.get(attr):
            made.attrs.pop(attr, None)  # (len(x) merged with the extent np.zeros_like(x) reads: no longer the source's)
    for old, new in zip(op.results, kept):
        if old.name_hint and not new.name_hint:
            new.name_hint = old.name_hint  # the user's name is what the emitters print
        old.replace_all_uses_with(new)


def run(module: Module, ctx: PassContext) -> None:
    """The pass: CSE every function of ``module`` (``ctx.may_alias``: parameters may overlap)."""
    cse = _CSE(module, ctx)
    for fn in module.functions.values():
        cse.run(fn)
