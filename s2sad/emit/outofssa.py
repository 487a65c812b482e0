"""Out of SSA: give every materialised value a variable, with as few copies as possible.

Structured SSA has three kinds of "phi": a loop-carried slot of a ``for``
(its init, block argument, yielded value and result), a carried slot of a
``while`` (the same, with the argument of both regions), and a result of an
``if`` (the value each branch yields). Printed naively, each is a variable plus
a copy on every edge. This pass puts the values of a slot in one *congruence
class* sharing one variable whenever that is correct, so that the common case
prints as the source did (``s = 0.0`` / ``for i in range(n):`` / ``s += ...``),
and keeps a copy only where two values of the class are live at once.

Approach (Boissinot et al., "Revisiting Out-of-SSA Translation for Correctness,
Code Quality, and Efficiency", CGO 2009, on structured regions):

1. Forced merges: a loop's result and its block argument(s) are the same
   variable by the semantics of the loops (they never interfere).
2. Each copy edge (init -> argument, yield -> argument, branch yield -> result)
   is tried, innermost loops first, then in program order: the two classes
   merge unless some pair of their values interferes (``Liveness.intersect``,
   where uses count at the statement that evaluates them, after inlining), or
   they carry different source names (``t = s`` stays a copy: it is in the source).
   A parameter joins only values that carry its own name (``while a < 10:
   a = ...`` as written), never an unnamed adjoint: reassigning a parameter
   under another meaning reads as a bug.
3. What remains is a parallel copy at the loop entry, the loop end, or the end of
   a branch; the emitter sequentialises it, and where the copies depend on each
   other prints a tuple assignment ``a, b = b, a + b`` (Python) or saves one new
   value first (C's ``a_next``).
4. A named value yielded only to a class it could not join is folded into the
   copy itself when that saves a variable (``d_p *= x[i]`` at the loop end
   rather than ``d_p2 = d_p * x[i]`` ... ``d_p = d_p2``).
5. Naming: a class takes its source name (a parameter's name is fixed); classes
   with the same source name and type that never interfere share the variable
   (two loops' ``i``), others get ``s2``; classes without a name get ``t0``...
   A loop variable never reuses a parameter's name, and a loop's carried
   variable never shares one with a value its ``range`` bounds read (the init
   copies are printed before ``range(...)`` is evaluated). Where the target
   frees buffers by variable (C), classes share one only when they hold buffers
   freed at the same place (``freed_at``): a ``free`` at the end of an outer
   block would otherwise free, through the shared variable, the buffer an inner
   block made later and freed already.

Every list here is in program order, so the same IR always gives the same code.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import re
from dataclasses import dataclass
from typing import Mapping, Optional

from ..ssa.ir import Function, Op, Value
from .inline import INLINE, Effects, InlinePlan
from .layout import Layout, Liveness
from .names import Namer, sanitize


@dataclass
class Allocation:
    """The result: a variable per value, and the plan it was computed with; ``shared``: the
    variables that more than one class shares (step 5)."""

    var: dict[Value, str]
    plan: InlinePlan
    layout: Layout
    liveness: Liveness
    shared: frozenset = frozenset()


def carried_targets(term: Op) -> list[Value]:
    """For a ``yield``: the value each operand flows into (the slot's representative)."""
    owner = term.parent.parent_op
    if owner.name == "for":
        return owner.regions[0].args[1:]
    if owner.name == "while":
        return owner.regions[0].args
    return owner.results


class _Classes:
    """Union-find over the values that get variables, members kept in program order."""

    def __init__(self, values: list[Value]):
        self.order = {v: i for i, v in enumerate(values)}
        self.parent: dict[Value, Value] = {v: v for v in values}
        self.members: dict[Value, list[Value]] = {v: [v] for v in values}

    def __contains__(self, v: Value) -> bool:
        return v in self.parent

    def find(self, v: Value) -> Value:
        while self.parent[v] is not v:
            self.parent[v] = self.parent[self.parent[v]]
            v = self.parent[v]
        return v

    def union(self, a: Value, b: Value) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra is rb:
            return
        if self.order[rb] < self.order[ra]:
            ra, rb = rb, ra
        self.parent[rb] = ra
        self.members[ra] = sorted(self.members[ra] + self.members.pop(rb), key=self.order.__getitem__)

    def reps(self) -> list[Value]:
        return sorted(self.members, key=self.order.__getitem__)


# Up to this many members, a class asks of another's spans by bisection, one member at a time;
# two larger classes are swept together.
FEW_MEMBERS = 16


@dataclass
class _SpanIndex:
    """A class's members' spans sorted by start: ``by_start`` (start, end, the member's order,
    the member), ``starts`` alone for bisection, and ``reach``, the latest end among the first k."""

    members: list[Value]
    by_start: list[tuple[int, int, int, Value]]
    starts: list[int]
    reach: list[int]

    @classmethod
    def of(cls, members: list[Value], by_start: list[tuple[int, int, int, Value]]) -> "_SpanIndex":
        reach = list(itertools.accumulate((t[1] for t in by_start), max))
        return cls(members, by_start, [t[0] for t in by_start], reach)


class _Coalescer:
    def __init__(self, fn: Function, layout: Layout, plan: InlinePlan, early: frozenset = frozenset()):
        self.fn = fn
        self.layout = layout
        self.plan = plan
        self.liveness = Liveness(layout, plan.anchors, early)
        self.params = {p: None for p in fn.params}
        self.values = self._values()
        self.classes = _Classes(self.values)
        # a class's root -> how many of its members carry each source name (as written), and its
        # parameters: what ``_can_merge`` asks of two classes, joined as they are (not made again
        # from their members at every copy edge)
        self._hints: dict[Value, dict[str, int]] = {v: {v.name_hint: 1} for v in self.values}
        self._params: dict[Value, list[Value]] = {v: [v] if v in self.params else [] for v in self.values}
        self.edges: list[tuple[Value, Value]] = []
        self._spans: dict[Value, tuple[int, int]] = {}
        # a class's root -> its members as last asked, and their spans by start
        self._class_spans: dict[Value, _SpanIndex] = {}
        self._run()

    def _values(self) -> list[Value]:
        out: list[Value] = list(self.fn.params)
        plan = self.plan

        def visit(block):
            for op in block.ops:
                for r in op.regions:
                    out.extend(r.args)
                    visit(r)
                if op.name in ("for", "while"):
                    out.extend(op.results)
                elif op.name == "if":
                    if not plan.inline_if(op):
                        out.extend(op.results)
                else:
                    for r in op.results:
                        if not plan.is_expr(r) and not plan.is_dead(r) and plan.live_users(r):
                            out.append(r)

        visit(self.fn.body)
        return out

    def _run(self) -> None:
        forced: list[tuple[Value, Value]] = []
        loops_inner_first: list[tuple[int, Op]] = []

        def visit(block, depth):
            for op in block.ops:
                for r in op.regions:
                    visit(r, depth + 1)
                if op.name in ("for", "while", "if") and not self.plan.inline_if(op):
                    loops_inner_first.append((depth, op))

        visit(self.fn.body, 0)
        loops_inner_first.sort(key=lambda d_op: -d_op[0])  # stable: program order within a depth
        for _, op in loops_inner_first:
            if op.name == "for":
                body = op.regions[0]
                for k, r in enumerate(op.results):
                    forced.append((body.args[1 + k], r))
                    self.edges.append((body.args[1 + k], body.terminator.operands[k]))
                    self.edges.append((body.args[1 + k], op.operands[3 + k]))
            elif op.name == "while":
                cond, body = op.regions
                for k, r in enumerate(op.results):
                    forced += [(cond.args[k], r), (cond.args[k], body.args[k])]
                    self.edges.append((cond.args[k], body.terminator.operands[k]))
                    self.edges.append((cond.args[k], op.operands[k]))
            else:
                for k, r in enumerate(op.results):
                    for region in op.regions:
                        self.edges.append((r, region.terminator.operands[k]))
        for a, b in forced:
            self._union(a, b)
        for dst, src in self.edges:
            if src in self.classes and self._can_merge(dst, src):
                roots = [self.classes.find(v) for v in (dst, src)]
                # Where one class's spans were asked, the joined class's: the two lists merged (sorted runs).
                merged = sorted(span for r in roots for span in self._indexed_spans(self.classes.members[r]).by_start) \
                    if any(r in self._class_spans for r in roots) else None
                for r in roots:
                    self._class_spans.pop(r, None)
                self._union(dst, src)
                if merged is not None:
                    root = self.classes.find(dst)
                    self._class_spans[root] = _SpanIndex.of(self.classes.members[root], merged)

    def _union(self, a: Value, b: Value) -> None:
        """Join the classes of ``a`` and ``b``, and what ``_can_merge`` knows of them."""
        ra, rb = self.classes.find(a), self.classes.find(b)
        if ra is rb:
            return
        self.classes.union(a, b)
        root = self.classes.find(a)
        gone = rb if root is ra else ra
        hints, more = self._hints[root], self._hints.pop(gone)
        for hint, count in more.items():
            hints[hint] = hints.get(hint, 0) + count
        self._params[root] += self._params.pop(gone)

    def _can_merge(self, a: Value, b: Value) -> bool:
        ra, rb = self.classes.find(a), self.classes.find(b)
        if ra is rb:
            return False
        if ra.type != rb.type:
            return False
        ha, hb = self._hints[ra], self._hints[rb]
        names = {sanitize(h) for h in itertools.chain(ha, hb)} - {""}
        if len(names) > 1:
            return False
        params = self._params[ra] + self._params[rb]
        if len(params) > 1:
            return False
        # (another member carries the parameter's name: it is there twice, the parameter's own once)
        if params and ha.get(params[0].name_hint, 0) + hb.get(params[0].name_hint, 0) < 2:
            return False  # reassigning a parameter reads as a bug unless the source did it by name
        return not self._members_interfere(self.classes.members[ra], self.classes.members[rb])

    def interferes(self, ra: Value, rb: Value) -> bool:
        return self._members_interfere(self.classes.members[ra], self.classes.members[rb])

    def _members_interfere(self, ma: list[Value], mb: list[Value]) -> bool:
        """Whether a member of one class is live where one of the other is made. Pairs whose
        spans (``Liveness.span``) are apart are not asked: a long function's source names (``t``,
        ``s``) have hundreds of values each, nearly all of them far from one another."""
        if len(ma) * len(mb) <= 64:
            return any(self._meet(x, y) for x in ma for y in mb)
        few, many = (ma, mb) if len(ma) <= len(mb) else (mb, ma)
        if len(few) <= FEW_MEMBERS:
            # A value joining a long class (the next `t` of a long function, hundreds before it):
            # each of its members meets only the spans that reach it, found by bisection.
            return any(self._meets_any(x, many) for x in few)
        # Two long classes: a sweep over the spans by start, each meeting only the other
        # class's spans still open.
        sides = {id(v): side for side, members in enumerate((ma, mb)) for v in members}
        open_: tuple[list, list] = ([], [])
        for start, end, _, v in heapq.merge(self._indexed_spans(ma).by_start, self._indexed_spans(mb).by_start):
            side = sides[id(v)]
            other = open_[1 - side]
            other[:] = [(e, y) for e, y in other if e >= start]
            if any(self.liveness.intersect(v, y) for _, y in other):
                return True
            open_[side].append((end, v))
        return False

    def _meets_any(self, x: Value, members: list[Value]) -> bool:
        """Whether ``x`` meets one of ``members``: those whose spans start before ``x``'s ends,
        walked back from the latest while one before may still reach ``x``'s start."""
        start, end = self.span(x)
        index = self._indexed_spans(members)
        k = bisect.bisect_right(index.starts, end) - 1
        while k >= 0 and index.reach[k] >= start:
            _, span_end, _, y = index.by_start[k]
            if span_end >= start and self.liveness.intersect(x, y):
                return True
            k -= 1
        return False

    def _indexed_spans(self, members: list[Value]) -> _SpanIndex:
        """The spans of a class's members by start, worked out once per class and again when
        it grows (a new list of members)."""
        root = self.classes.find(members[0])
        found = self._class_spans.get(root)
        if found is None or found.members is not members:
            order = self.classes.order
            found = self._class_spans[root] = _SpanIndex.of(
                members, sorted((*self.span(v), order[v], v) for v in members))
        return found

    def _meet(self, x: Value, y: Value) -> bool:
        (sx, ex), (sy, ey) = self.span(x), self.span(y)
        return sx <= ey and sy <= ex and self.liveness.intersect(x, y)

    def span(self, v: Value) -> tuple[int, int]:
        """``Liveness.span(v)``, worked out once (coalescing and naming ask it of every pair)."""
        found = self._spans.get(v)
        if found is None:
            found = self._spans[v] = self.liveness.span(v)
        return found

    def bound_conflict(self, ra: Value, rb: Value) -> bool:
        """Whether one class is carried by a ``for`` whose bounds read the other.

        The printed init copies precede ``for ... in range(...)``; sharing a variable
        here would make the bound read the copied value (the emitter would then have
        to save the bound in a temporary first, so the names are kept apart instead).
        """
        for a, b in ((ra, rb), (rb, ra)):
            mb = self.classes.members[b]
            for v in self.classes.members[a]:
                loop = v.owner.parent_op if v.is_block_arg and v.index > 0 else None
                if loop is not None and loop.name == "for":
                    if any(leaf in mb for bound in loop.operands[:3] for leaf in self._leaves(bound)):
                        return True
        return False

    def _leaves(self, v: Value) -> list[Value]:
        """The values with variables that the printed expression of ``v`` reads."""
        if not self.plan.is_expr(v):
            return [v]
        return [leaf for o in v.defining_op.operands for leaf in self._leaves(o)]

    def copies(self) -> list[tuple[Value, Value]]:
        """Copy edges left: (slot representative, source value with a variable of its own)."""
        return [(d, s) for d, s in self.edges if s in self.classes and self.classes.find(d) is not self.classes.find(s)]

    def cost(self) -> int:
        return len(self.copies()) + len(self.classes.members)


def _sink_candidates(fn: Function, plan: InlinePlan) -> list[Value]:
    """Named values whose only use is a loop's or branch's ``yield`` in their own block."""
    out = []
    for op in fn.walk():
        if op.name != "yield" or op.parent.parent_op is None:
            continue
        for v in op.operands:
            d = v.defining_op
            if (
                d is not None
                and d.parent is op.parent
                and len(d.results) == 1
                and v.name_hint
                and len(v.uses) == 1
                and not plan.is_expr(v)
                and v not in out
            ):
                out.append(v)
    return out


SINK_TRIAL_OPS = 32_000  # trials of sinking a value into its yield, times the function's ops


def allocate(fn: Function, effects: Effects, namer: Namer, early: frozenset = frozenset(),
             freed_at: Optional[Mapping[Value, object]] = None) -> Allocation:
    """``early``: results written before their op reads its operands (see ``Liveness``).
    ``freed_at``: for a target that frees buffers by variable, each buffer-making value's place
    of release (any key; equal keys, one place); values not in it hold no buffer to free."""
    layout = Layout(fn)
    plan = InlinePlan(fn, effects, layout)
    co = _Coalescer(fn, layout, plan, early)
    sunk: dict[Value, None] = {}
    # Each trial plans and coalesces the whole function again: as many as a function of a few
    # hundred ops has candidates (16 at most in the goldens), fewer in a long one, none past
    # SINK_TRIAL_OPS ops (a 2,000-line function tried 33, each a second; what is left unsunk
    # costs a copy into the slot's variable, never a wrong one).
    trials = SINK_TRIAL_OPS // max(len(layout.pre), 1)
    for y in _sink_candidates(fn, plan):
        if y not in co.classes:
            continue
        ((term, _),) = y.uses
        target = carried_targets(term)[[v is y for v in term.operands].index(True)]
        if co.classes.find(target) is co.classes.find(y):
            continue  # already written straight into its slot's variable
        if trials <= 0:
            break
        trials -= 1
        trial_plan = InlinePlan(fn, effects, layout, {**sunk, y: None})
        if trial_plan.mode.get(y) != INLINE:
            continue
        trial = _Coalescer(fn, layout, trial_plan, early)
        if trial.cost() < co.cost():
            sunk[y] = None
            plan, co = trial_plan, trial
    var, shared = _name(fn, co, namer, freed_at or {})
    return Allocation(var, plan, layout, co.liveness, shared)


def _name(fn: Function, co: _Coalescer, namer: Namer,
          freed_at: Mapping[Value, object]) -> tuple[dict[Value, str], frozenset]:
    var: dict[Value, str] = {}
    classes = co.classes
    reps = classes.reps()
    param_names = {p.name_hint for p in fn.params}
    lengths = {word for extents in (fn.attrs.get("shapes") or {}).values() for e in extents if isinstance(e, str)
               for word in re.findall(r"[A-Za-z_]\w*", e)} & param_names  # (x: "f64[n]": n)
    fixed = {p: namer.claim_fixed(p.name_hint) for p in fn.params if p.name_hint}
    for rep in reps:
        for v in classes.members[rep]:
            namer.prefer(v.name_hint)
    names_of_hint: dict[str, list[str]] = {}  # source name -> variables made from it
    listed: set[tuple[str, str]] = set()  # (source name, variable) pairs there: a test of the list was a scan
    users: dict[str, list[Value]] = {}  # variable -> representatives of the classes using it

    released = {r: frozenset(freed_at[v] for v in classes.members[r] if v in freed_at) for r in reps}
    spans: dict[Value, tuple[int, int]] = {}
    for rep in reps:  # a class's span: its members' together (see Liveness.span)
        member_spans = [co.span(v) for v in classes.members[rep]]
        spans[rep] = (min(s for s, _ in member_spans), max(e for _, e in member_spans))

    def apart(r: Value, rep: Value) -> bool:
        """No member of one class is live where one of the other is made (the spans say so
        first, cheaply), and neither is carried by a loop whose bounds read the other."""
        (s1, e1), (s2, e2) = spans[r], spans[rep]
        if e1 < s2 or e2 < s1:
            return True
        return not co.interferes(r, rep) and not co.bound_conflict(r, rep)

    # A variable's classes share their type and release (each joined only if equal to all before
    # it), and its span's end is the latest of theirs: a class made after that end is apart from
    # all of them, which a long function's names ask most of the time.
    name_end: dict[str, int] = {}

    # Each variable's classes by the end of their spans, sorted: a class made after one of them
    # ends is apart from it by the spans alone, so only those ending later are asked (a variable
    # of a long function has thousands of classes, nearly all of them over).
    user_ends: dict[str, list[tuple[int, int]]] = {}  # variable -> (span end, position in reps)
    position = {rep: k for k, rep in enumerate(reps)}

    def joins(n: str, rep: Value) -> bool:
        first = users[n][0]
        if first.type != rep.type or released[first] != released[rep]:
            return False
        start = spans[rep][0]
        if start > name_end[n]:
            return True
        ends = user_ends[n]
        return all(apart(reps[k], rep) for _, k in ends[bisect.bisect_left(ends, (start, -1)):])

    pools: dict[str, _FreeNames] = {}  # source names with many variables (_FreeNames says why)

    for rep in reps:
        members = classes.members[rep]
        param = next((v for v in members if v in co.params), None)
        hint = next((sanitize(v.name_hint) for v in members if sanitize(v.name_hint)), "")
        hint = hint or next((h for h in map(_borrowed_hint, members) if h), "")
        if param is not None:
            name = fixed.get(param) or namer.fresh("arg")
        elif len(members) == 1 and _unused_iv(rep, co.plan):
            name = "_"
        else:
            is_iv = _is_iv(rep)

            def takes(n: str) -> bool:
                # a loop variable never reuses a parameter's name (pylint's redefined-argument), and
                # no value reuses a length an annotation names (C prints extents with it: its uses
                # are not the IR's, so its variable must keep its value)
                return not (is_iv and n in param_names) and n not in lengths and joins(n, rep)

            if hint in pools:
                name = pools[hint].first(spans[rep][0], takes)
            else:
                name = next((n for n in names_of_hint.get(hint, []) if takes(n)), None)
            if name is None:
                name = namer.fresh(hint) if hint else namer.temp()
        if hint and name != "_" and (hint, name) not in listed:
            listed.add((hint, name))
            names_of_hint.setdefault(hint, []).append(name)
            if len(names_of_hint[hint]) == _FreeNames.MANY:
                pools[hint] = _FreeNames(names_of_hint[hint], name_end)
        users.setdefault(name, []).append(rep)
        bisect.insort(user_ends.setdefault(name, []), (spans[rep][1], position[rep]))
        name_end[name] = max(name_end.get(name, -2), spans[rep][1])
        if hint in pools and name != "_":
            pools[hint].used(name, name_end[name])
        for v in members:
            var[v] = name
    return var, frozenset(n for n, reps in users.items() if len(reps) > 1 and n != "_")


class _FreeNames:
    """The variables made from one source name, once there are many, by when each is free.

    A class takes the first variable of its source name that it may share (``joins``), in the
    order they were made. A long function has hundreds of values of one source name live at
    once (each forward value of ``a`` read by the reverse sweep), and asking every variable of
    ``a`` for every new one was quadratic: 1,600 statements spent half their translation time
    there. Past ``MANY`` variables, a class asks only those whose classes' spans all end before
    its own begins (free for sure, the cheap test of ``joins``), first made first, and at most
    ``TRIES`` of them; if none takes it, a new variable. Below ``MANY``, nothing changes: every
    variable is asked, and the exact interference test may still share one whose span overlaps.
    """

    MANY = 64
    TRIES = 16

    def __init__(self, names: list[str], name_end: dict[str, int]):
        self.order = {n: k for k, n in enumerate(names)}
        self.ends: list[tuple[int, int, str]] = []  # (span end, order, name): a heap, stale entries skipped
        self.free: list[tuple[int, str]] = []  # (order, name), sorted: ended before the last start asked
        self.end = {n: name_end[n] for n in names if n in name_end}  # the newest one: see used()
        for n, end in self.end.items():
            heapq.heappush(self.ends, (end, self.order[n], n))

    def first(self, start: int, takes) -> Optional[str]:
        while self.ends and self.ends[0][0] < start:
            end, k, n = heapq.heappop(self.ends)
            if end == self.end[n]:  # not stale
                bisect.insort(self.free, (k, n))
        for _, n in self.free[:self.TRIES]:
            if takes(n):
                return n
        return None

    def used(self, name: str, end: int) -> None:
        """``name`` now has a class whose span ends at ``end`` (a new variable, or one taken)."""
        k = self.order.setdefault(name, len(self.order))
        at = bisect.bisect_left(self.free, (k, name))
        if at < len(self.free) and self.free[at] == (k, name):
            del self.free[at]
        self.end[name] = end
        heapq.heappush(self.ends, (end, k, name))


def _borrowed_hint(v: Value) -> str:
    """For an unnamed value pushed on a tape: the name its pops carry (``mag_value``, ``cond``)."""
    for user, k in v.uses:
        if user.name == "tape.push" and k == 1:
            for other, _ in user.operands[0].uses:
                if other.name == "tape.pop" and sanitize(other.result.name_hint):
                    return sanitize(other.result.name_hint)
    return ""


def _is_iv(v: Value) -> bool:
    if not v.is_block_arg or v.index != 0:
        return False
    owner = v.owner.parent_op
    return owner is not None and owner.name == "for"


def _unused_iv(v: Value, plan: InlinePlan) -> bool:
    return _is_iv(v) and not plan.anchors(v)
