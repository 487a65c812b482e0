"""The smallest set of values to cache for one loop body: a minimum vertex cut.

The reverse sweep of a loop body needs some of the body's values (``needed``).
Each can be cached (taped every iteration) or, when it is a pure function of
other values, recomputed in the reversed iteration from its operands, which are
in turn cached or recomputed. Values the reverse sweep has for free (the
induction variable, values from outside the body, reads of arrays nobody
changes) cost nothing; a value that cannot be recomputed (a read of an array
the loop overwrites, a call, a carried value) must be cached if anything needed
depends on it. The cheapest choice is a minimum cut between those sources and
the needed values in the body's data-flow graph, each value split into an "in"
and an "out" node joined by an edge that costs its size in bytes, and a value that
costs something to compute again (``recompute``: a transcendental function, many
times a load or a multiplication) joined to the sources by an edge of that cost, in
bytes of tape it is worth, which the cut crosses where the value is recomputed:

* ``p = x[i] + y[i]`` with both arrays overwritten, where the reverse sweep
  needs ``p * p``, ``p * q`` and ``p``: caching ``p`` (8 bytes) beats caching
  the three needed values (24) or the two loads (16);
* ``u = x[i]``, needed through ``u * u`` and ``u``: one cache;
* ``e = exp(x[i])`` with ``x`` never written, needed in the reverse sweep: the load is
  free, computing ``exp`` again costs more than its 8 bytes of tape: ``e`` is cached.

Of the minimum cuts, the one nearest the needed values is taken: where caching a
needed value costs no more than caching what it is computed from, it is cached
itself, so nothing is recomputed for nothing.

Max-flow by shortest augmenting paths (Edmonds & Karp, 1972) on the split graph;
the idea is Enzyme's min-cut cache (Moses et al., "Reverse-mode automatic
differentiation and optimization of GPU kernels via Enzyme", SC'21) and
Tapenade's to-be-recorded analysis (Hascoet et al., 2005).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Hashable, Iterable, Literal

from ..ssa.ir import Value

INF = float("inf")

# How the planner sees one value of the body: free (available without a cache), a source
# (must be cached if needed), or recomputable from its operands.
Kind = Literal["free", "source", "pure"]


@dataclass
class CachePlan:
    """Which values of a loop body to cache and which to recompute from them."""

    cached: set[Value] = field(default_factory=set)
    recomputed: set[Value] = field(default_factory=set)


def plan_cache(
    needed: Iterable[Value],
    kind: Callable[[Value], Kind],
    operands: Callable[[Value], list[Value]],
    cost: Callable[[Value], float],
    recompute: Callable[[Value], float] = lambda v: 0.0,
) -> CachePlan:
    """The cheapest ``cached`` set from which every needed value can be had, and the values
    recomputed on the way. An empty plan when no finite cut exists (an array that cannot be
    cached lies on every path): the caller keeps its value-by-value choices."""
    graph = _Graph()
    seen: dict[Value, Kind] = {}
    order: list[Value] = []

    def visit(v: Value) -> Kind:
        if v in seen:
            return seen[v]
        k = kind(v)
        again = recompute(v) if k == "pure" else 0.0
        if k == "pure":
            inner = [o for o in operands(v) if visit(o) != "free"]
            if not inner and not again:
                k = "free"  # every operand is at hand, and v costs nothing to compute: so is v
            else:
                for o in inner:
                    graph.add(("out", o), ("in", v), INF)
        seen[v] = k
        if k != "free":
            order.append(v)
            graph.add(("in", v), ("out", v), cost(v))
            if k == "source":
                graph.add("S", ("in", v), INF)
            elif again:
                graph.add("S", ("in", v), again)  # cut where v is computed again: that costs too
        return k

    targets = [v for v in dict.fromkeys(needed) if visit(v) != "free"]
    if not targets:
        return CachePlan()
    for v in targets:
        graph.add(("out", v), "T", INF)
    if graph.max_flow("S", "T") == INF:
        return CachePlan()
    near_t = graph.reaching("T")
    plan = CachePlan()
    for v in order:
        if ("in", v) in near_t:
            plan.recomputed.add(v)
        elif ("out", v) in near_t:
            plan.cached.add(v)
    return plan


class _Graph:
    """A flow network with residual capacities, in insertion order (deterministic paths)."""

    def __init__(self) -> None:
        self.cap: dict[Hashable, dict[Hashable, float]] = {}

    def add(self, u: Hashable, w: Hashable, c: float) -> None:
        self.cap.setdefault(u, {})
        self.cap.setdefault(w, {})
        self.cap[u][w] = self.cap[u].get(w, 0.0) + c
        self.cap[w].setdefault(u, 0.0)

    def max_flow(self, s: Hashable, t: Hashable) -> float:
        total = 0.0
        while True:
            parent: dict[Hashable, Hashable] = {s: s}
            queue = deque([s])
            while queue and t not in parent:
                u = queue.popleft()
                for w, c in self.cap[u].items():
                    if c > 0 and w not in parent:
                        parent[w] = u
                        queue.append(w)
            if t not in parent:
                return total
            path = []
            w = t
            while w != s:
                path.append((parent[w], w))
                w = parent[w]
            push = min(self.cap[u][w] for u, w in path)
            if push == INF:
                return INF
            for u, w in path:
                self.cap[u][w] -= push
                self.cap[w][u] += push
            total += push

    def reaching(self, t: Hashable) -> set[Hashable]:
        """The nodes with a residual path to ``t``."""
        found = {t}
        queue = deque([t])
        while queue:
            w = queue.popleft()
            for u in self.cap[w]:  # every edge into w has its reverse listed at w
                if u not in found and self.cap[u].get(w, 0.0) > 0:
                    found.add(u)
                    queue.append(u)
        return found
