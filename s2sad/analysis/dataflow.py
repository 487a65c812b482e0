"""The dataflow solvers the analyses share, over structured SSA.

In structured SSA a value has one definition, so facts live on values, not on program points
(sparse analysis, Wegman & Zadeck 1991), and values meet only in the slots of ``for``, ``while``
and ``if`` (``ssa/structured.slots``): a slot's block arguments and result get the join of
its init and yielded values. Two solvers cover what s2sad asks:

* ``solve_forward``: facts in a lattice, computed from operands to results; an op's
  ``transfer`` gives its results' facts, the solver joins at slots and widens at loop-carried
  block arguments (where a loop's facts could grow forever). Integer ranges use it.
* ``reach``: facts that are a yes or a no (varied, useful, live), which is reachability in a
  graph of edges an analysis draws, forward or backward. Activity uses it.

Liveness (``opt/dce``) marks backwards over the same slots; the memory effects of calls are a
fixpoint over the call graph (``effects.written_params``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Generic, Hashable, Iterable, Mapping, Optional, TypeVar

from ..ssa.ir import Op, Value
from ..ssa.structured import slot_of, slots

F = TypeVar("F")
N = TypeVar("N", bound=Hashable)


@dataclass
class Forward(Generic[F]):
    """A forward analysis: facts of type ``F``; None is "no fact yet" (bottom)."""

    # The facts of ``op``'s results (and of block arguments it defines, such as a loop's
    # index), from the facts of its operands through ``get``. Not asked for slot targets.
    transfer: Callable[[Op, Callable[[Value], Optional[F]]], list[tuple[Value, Optional[F]]]]
    join: Callable[[Optional[F], Optional[F]], Optional[F]]
    widen: Callable[[F, F], F]  # (old, new) -> a fact at least as large as both, in few steps
    tracks: Callable[[Value], bool]  # which slot targets carry a fact at all
    known: Callable[[Value], Optional[F]] = lambda v: None  # facts given up front (parameters, constants)


def solve_forward(ops: list[Op], analysis: Forward[F], rounds: int = 100) -> Optional[dict[Value, F]]:
    """The facts of the values ``ops`` define, at the fixpoint; None if ``rounds`` sweeps in
    program order do not reach it (widening makes that unexpected)."""
    facts: dict[Value, F] = {}

    def get(v: Value) -> Optional[F]:
        given = analysis.known(v)
        return given if given is not None else facts.get(v)

    for _ in range(rounds):
        changed = False
        for op in ops:
            for v, new in _flows(op, analysis, get):
                if new is None:
                    continue
                old = facts.get(v)
                if old is not None and _loop_carried(v):
                    new = analysis.widen(old, new)
                new = analysis.join(old, new)
                if new != old:
                    facts[v] = new
                    changed = True
        if not changed:
            return facts
    return None


def _flows(op: Op, analysis: Forward[F], get) -> list[tuple[Value, Optional[F]]]:
    out = analysis.transfer(op, get)  # what the op defines besides its slots (a loop's index)
    for slot in slots(op):
        if not analysis.tracks(slot.op.results[slot.k]):
            continue
        fact: Optional[F] = None
        for src in slot.sources:
            fact = analysis.join(fact, get(src))
        out += [(t, fact) for t in slot.targets]
    return out


def _loop_carried(v: Value) -> bool:
    """A loop's carried block argument: where a fact may grow with every iteration."""
    return v.is_block_arg and slot_of(v) is not None


def reach(starts: Iterable[N], succ: Mapping[N, Iterable[N]]) -> set[N]:
    """Every node reachable from ``starts`` (themselves included) along ``succ``."""
    seen = set(starts)
    work = list(seen)
    while work:
        x = work.pop()
        for y in succ.get(x, ()):
            if y not in seen:
                seen.add(y)
                work.append(y)
    return seen


def slot_edges(op: Op) -> list[tuple[Value, Value]]:
    """(target, source) for every value ``op``'s slots pass on, in slot order."""
    return [(t, s) for slot in slots(op) for t in slot.targets for s in slot.sources]
