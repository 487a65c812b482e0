"""Array extents: each array parameter's size as an expression of the integer ones (C output's
sizes, and what a call may touch of an array it is passed: ``adjoint/forward.reach``).

C pointers carry no shape, yet C code needs extents: the row length of a
row-major 2-D array (``A[i * m + j]``), ``len(x)`` / ``x.shape[k]`` (the IR's
``dim``), and the element count of a copy. This analysis finds, for every
array parameter of every function and every axis, an affine expression in the
function's integer parameters (``n``, ``n + 1``, ``2 * n``; ``rows * cols`` where the code
multiplies two of them, ``data[i * cols + j]``: a product of indices is bounded by the product
of their bounds where neither is negative, a counter from 0 and a size that bounds a loop
around the access), from:

1. an annotation, ``fn.attrs["shapes"] = {"x": ["n"], "A": ["n", "m"]}`` (on the
   function or, for a gradient, on its primal), which always wins: Python's
   ``"f64[n, m]"``, or the extents a C parameter declares (``double A[n][m]``,
   ``c_declarators``; ``""`` for one left out, ``double A[][M]``: unknown);
2. the loops that index the array, directly or through views (``x[k:][j]`` is
   ``x[k + j]``): ``x[e]`` where the largest value ``e`` takes
   is an affine expression ``M`` gives the extent ``M + 1`` (``x[i]`` for ``i`` in
   ``range(n)`` gives ``n``; ``x[i + 1]`` for ``i`` in ``range(n - 1)`` gives ``n``;
   ``x[(i + 1) % n]`` gives ``n``), reversed loops included; through a row
   ``A[i]`` (a rank-reducing view), ``i`` indexes axis 0 and the row's indices the
   rest. A strided loop ``range(1, n, 2)`` may stop short of ``n - 1``: it counts
   only when nothing else tells. A constant index (``x[3]``) gives no extent of its own, but a cover found
   from loops must still reach it: the cover is then at least ``4`` (``cover_floor``; C
   output allocates ``max_l(n - 1, 4)`` for a copy);
3. the callees the array is passed to, their extents rewritten in the caller's
   arguments (passed as a view ``x[k:]``, shifted by the largest ``k``; passed as a
   row ``A[i]``, the callee's axes are ``A``'s after the first, which ``i`` bounds);
4. MPI calls (``ssa/mpi``): a buffer ``x + k`` of ``count`` elements reaches ``k + count``
   (one whose size the number of ranks multiplies, a scatter's on the root: unknown).

A recursive function gets only its annotated extents: each of its calls touches
part of the array, chosen by its caller.

A shadow ``d_x`` has the extents of ``x``. An extent found from accesses (2. and
3.) is a *cover*: an upper bound on the elements the code touches, which is all
a copy of the array needs, never its shape. Candidates that share their linear
part give the largest constant (``n`` and ``n + 1``: ``n + 1``); candidates that
do not (``n`` and ``m``), or an access whose bound is unknown (``x[idx[i]]``),
leave the cover unknown. Only an annotation gives an *exact* extent
(``exact_axes``): the row length of a 2-D array (``A[i * w + j]``) and ``len(x)``
/ ``x.shape[k]`` need one, since an array may be wider or longer than the loops
that index it. For Python input, ``add_extent_params`` makes every exact extent
the entry needs and no annotation gives a ``long`` parameter (``A_shape1``).
An extent that is needed but unknown is reported by the emitter, never guessed.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from ..diagnostics import Diagnostic, DiagnosticError
from ..ssa.attrs import is_gradient, shadows_of
from ..ssa.build import const_int, const_value
from ..ssa.ir import Block, Function, Module, Op, Value
from ..ssa.mpi import buffer_counts, is_mpi
from ..ssa.slots import Slot, slot_of, slots
from ..ssa.ops import MIRRORED, NEGATED
from ..ssa.ops import storage_of  # noqa: F401  (its home; the C emitter reads it from here too)
from .accumulation import key  # (one integer computed the same way: a front end writes i + 1 twice)


Monomial = tuple[int, ...]  # a product of integer parameters, by index, sorted: (0,) is n, (0, 1) is n * m


def _conjuncts(v: Value) -> list[Op]:
    """The ops of the tests whose conjunction ``v`` is (``and`` of them; ``v``'s own op else)."""
    op = v.defining_op
    if op is None:
        return []
    if op.name == "and":
        return _conjuncts(op.operands[0]) + _conjuncts(op.operands[1])
    return [op]


def _stepped(yielded: Value, v: Value) -> Optional[tuple[list[Value], bool]]:
    """How a while's body takes its counter ``v`` to ``yielded``: the steps it adds (``v +
    step``) along each path through its ``if``s, and whether a path leaves it as it was (``if
    (!returned) i++``, C's early exit); None where a path does anything else."""
    if yielded is v:
        return [], True
    added = _addend(yielded, v)
    if added is not None:
        return [added], False
    op = yielded.defining_op
    if op is None or op.name != "if":
        return None
    k = op.results.index(yielded)
    added: list[Value] = []
    stays = False
    for region in op.regions:
        path = _stepped(region.terminator.operands[k], v)
        if path is None:
            return None
        added += path[0]
        stays = stays or path[1]
    return added, stays


BodyPath = tuple[tuple[Value, ...], tuple[tuple[Value, bool], ...]]  # what is yielded, and the tests taken


def _paths(values: tuple[Value, ...], depth: int = 0) -> Optional[list[BodyPath]]:
    """What a loop body yields along each path through the ``if``s that make its values: per
    path, one tuple of values and the ``if`` tests it takes (each test, and whether it held);
    None past a depth that says nothing useful any more."""
    made = next((v.defining_op for v in values if v.defining_op is not None and v.defining_op.name == "if"), None)
    if made is None:
        return [(values, ())]
    if depth > 8:
        return None
    out: list[BodyPath] = []
    for k, region in enumerate(made.regions):
        ends = region.terminator.operands
        inner = _paths(tuple(ends[v.index] if v.defining_op is made else v for v in values), depth + 1)
        if inner is None:
            return None
        out += [(yielded, ((made.operands[0], k == 0), *taken)) for yielded, taken in inner]
    return out


def _addend(yielded: Value, v: Value) -> Optional[Value]:
    """``s`` where ``yielded`` is ``v + s``, else None."""
    op = yielded.defining_op
    if op is None or op.name != "add" or v not in op.operands:
        return None
    return op.operands[1] if op.operands[0] is v else op.operands[0]


def _step_of(yielded: Value, v: Value) -> Optional[int]:
    """``c`` where ``yielded`` is ``v + c`` of a constant ``c`` (0 where it is ``v``), else None."""
    if yielded is v:
        return 0
    added = _addend(yielded, v)
    return None if added is None else const_int(added)


def _going_on(loop: Op, paths: list[BodyPath]) -> tuple[list[BodyPath], list[BodyPath]]:
    """The paths of a ``while``'s body after which it goes on, and those after which it ends:
    those that set the flag its test is the negation of to true (``while (!done)``: C's loop
    whose test has effects, ``n-- > 0``, or that a ``break`` leaves)."""
    test = loop.regions[0].terminator.operands[0].defining_op if loop.regions[0].terminator.operands else None
    flag = test.operands[0] if test is not None and test.name == "not" else None
    if flag is None or not flag.is_block_arg or flag.owner is not loop.regions[0]:
        return paths, []
    ends = [const_value(p[0][flag.index]) is True for p in paths]
    return [p for p, e in zip(paths, ends) if not e], [p for p, e in zip(paths, ends) if e]


@dataclass(frozen=True)
class Affine:
    """``sum(coeff * monomial) + const`` over a function's integer parameters (by index): an
    affine form (``2 * n + 1``), or a polynomial where the code multiplies two of them
    (``rows * cols``, the extent of a matrix a loop walks as ``data[i * cols + j]``)."""

    terms: tuple[tuple[Monomial, int], ...] = ()
    const: int = 0

    @staticmethod
    def of_const(c: int) -> "Affine":
        return Affine((), c)

    @staticmethod
    def of_param(index: int) -> "Affine":
        return Affine((((index,), 1),), 0)

    def __add__(self, other: "Affine") -> "Affine":
        coeffs = dict(self.terms)
        for k, c in other.terms:
            coeffs[k] = coeffs.get(k, 0) + c
        return Affine(tuple(sorted((k, c) for k, c in coeffs.items() if c)), self.const + other.const)

    def scale(self, c: int) -> "Affine":
        if c == 0:
            return Affine()
        return Affine(tuple((k, v * c) for k, v in self.terms), self.const * c)

    def times(self, other: "Affine") -> "Affine":
        """The product of two forms (a polynomial)."""
        out = Affine(other.scale(self.const).terms, self.const * other.const) + Affine(self.scale(other.const).terms)
        for k, c in self.terms:
            for j, d in other.terms:
                out = out + Affine(((tuple(sorted(k + j)), c * d),), 0)
        return out

    def __sub__(self, other: "Affine") -> "Affine":
        return self + other.scale(-1)

    def plus(self, c: int) -> "Affine":
        return Affine(self.terms, self.const + c)

    def divided(self, d: "Affine") -> Optional["Affine"]:
        """``self / d`` where ``d`` (a constant or one term, ``2 * b``) divides every term of
        ``self`` exactly (``2 * l * b`` by ``2 * b``: ``l``); None otherwise."""
        if d.is_const:
            if d.const == 0 or self.const % d.const or any(c % d.const for _, c in self.terms):
                return None
            return Affine(tuple((k, c // d.const) for k, c in self.terms), self.const // d.const)
        if d.const or len(d.terms) != 1 or self.const:
            return None
        (mono, by), = d.terms
        out = Affine()
        for k, c in self.terms:
            rest = list(k)
            for i in mono:
                if i not in rest:
                    return None
                rest.remove(i)
            if c % by:
                return None
            out = out + (Affine.of_const(c // by) if not rest else Affine(((tuple(rest), c // by),), 0))
        return out

    @property
    def is_const(self) -> bool:
        return not self.terms

    def value(self, args: dict[int, int]) -> int:
        """The form at the integer parameters' values ``args`` (by index; each one it reads)."""
        total = self.const
        for monomial, c in self.terms:
            term = c
            for i in monomial:
                term *= args[i]
            total += term
        return total

    @property
    def params(self) -> set[int]:
        """The parameters (by index) the form reads."""
        return {i for k, _ in self.terms for i in k}


class _FunctionView:
    """Affine forms and index bounds of one function's integer values."""

    def __init__(self, fn: Function):
        self.fn = fn
        self.param_index = {p: i for i, p in enumerate(fn.params)}
        self._affine: dict[Value, Optional[Affine]] = {}
        self.bounding: set[Value] = set()  # loop bounds positive where the access runs (``around``)
        # Where the access runs under ``if (i >= lo && i <= hi)``: (value, upper) -> (bound, offset).
        self.guards: dict[tuple[Value, bool], tuple[Value, int]] = {}
        # Where it runs under ``if (sel == k)`` (or its else): value -> (k, whether it equals k).
        # A pointer a loop rebinds between arrays is a selector and an offset (``c_pointers``):
        # the offsets it may hold into one array are those carried beside that array's selector.
        self.selectors: dict[Value, tuple[int, bool]] = {}
        self.under: set[Value] = set()  # the tests of the ifs the access runs in the then branch of
        self._beside: dict[tuple[Value, bool, bool, int], Optional[Affine]] = {}  # (_walked_beside's, per block)
        self._joining: set[Value] = set()  # carried values being bounded (a cycle says nothing)
        self._loops: dict[tuple[Value, int], frozenset[Value]] = {}  # (``_loops_of``, asked again per access)
        self._around: Optional[Block] = None  # the block ``around`` last bounded for

    def affine(self, v: Value) -> Optional[Affine]:
        """``v`` as an affine expression of the integer parameters, when it is one."""
        if v in self._affine:
            return self._affine[v]
        self._affine[v] = None  # guards cycles through loop-carried values
        result = self._affine_uncached(v)
        self._affine[v] = result
        return result

    def _affine_uncached(self, v: Value) -> Optional[Affine]:
        if not v.type.is_int:
            return None
        if v in self.param_index:
            return Affine.of_param(self.param_index[v])
        c = const_int(v)
        if c is not None:
            return Affine.of_const(c)
        op = v.defining_op
        if op is None:
            return None
        if op.name in ("add", "sub"):
            a, b = (self.affine(o) for o in op.operands)
            if a is None or b is None:
                return None
            return a + b if op.name == "add" else a - b
        if op.name == "neg":
            a = self.affine(op.operands[0])
            return None if a is None else a.scale(-1)
        if op.name == "mul":
            a, b = (self.affine(o) for o in op.operands)
            if a is not None and b is not None:
                if b.is_const:
                    return a.scale(b.const)
                if a.is_const:
                    return b.scale(a.const)
                return a.times(b)  # rows * cols: exact, whatever the signs
        return None

    def bound(self, v: Value, upper: bool, depth: int = 0, strict: bool = True) -> Optional[Affine]:
        """The largest (``upper``) or smallest value ``v`` takes, over the loops around it.

        ``strict``: only bounds that are attained (``range(lb, ub, 2)`` may stop short
        of ``ub - 1``, so its largest value is then unknown rather than ``ub - 1``).
        """
        exact = self.affine(v)
        if exact is not None:
            return exact
        if depth > 16:
            return None
        guard = self.guards.get((v, upper))
        if guard is not None:
            b = self.bound(guard[0], upper, depth + 1, strict)
            if b is not None:
                return b.plus(guard[1])
        op = v.defining_op
        counted = self._counter(v)
        if counted is not None:
            return self._counter_bound(counted, upper, depth, strict)
        slot = slot_of(v)
        if slot is not None:
            joined = self._join(v, slot, upper, depth, strict)
            if joined is None:
                joined = self._walked(v, slot, upper, depth, strict)
            # (a while's walk where a join says nothing, or only bounds: a loop's own test may)
            beside = self._walked_beside(v, slot, upper, depth, strict) \
                if slot.op.name == "while" and (joined is None or not strict) else None
            if joined is None or beside is None:
                return joined if beside is None else beside
            # (both hold: the tighter, where one is; a walk is exact where a join only bounds)
            tighter = dominates(joined, beside) if upper else dominates(beside, joined)
            return beside if tighter else joined
        if v.is_block_arg and v.index == 0 and v.owner.parent_op is not None and v.owner.parent_op.name == "for":
            loop = v.owner.parent_op
            lb, ub, step = loop.operands[:3]
            s = const_int(step)
            if s is None or s == 0:
                return None
            if (s > 0) == upper:
                last = -s if _congruent(lb, ub, abs(s)) else (-1 if s > 0 else 1)
                if strict and abs(s) != 1 and abs(last) == 1:
                    return None
                b = self.bound(ub, upper, depth + 1, strict)
                return None if b is None else b.plus(last)
            return self.bound(lb, upper, depth + 1, strict)
        if op is None:
            return None
        if op.name == "add":
            a, b = (self.bound(o, upper, depth + 1, strict) for o in op.operands)
            return None if a is None or b is None else a + b
        if op.name == "sub":
            a = self.bound(op.operands[0], upper, depth + 1, strict)
            b = self.bound(op.operands[1], not upper, depth + 1, strict)
            return None if a is None or b is None else a - b
        if op.name == "neg":
            a = self.bound(op.operands[0], not upper, depth + 1, strict)
            return None if a is None else a.scale(-1)
        if op.name == "mul":
            for x, y in (op.operands, op.operands[::-1]):
                c = const_int(y)
                if c is not None:
                    a = self.bound(x, upper if c >= 0 else not upper, depth + 1, strict)
                    return None if a is None else a.scale(c)
            # i * m, both never negative where the access runs: the product of the factors' bounds
            if all(self._nonneg(o, depth) for o in op.operands):
                a, b = (self.bound(o, upper, depth + 1, strict) for o in op.operands)
                return None if a is None or b is None else a.times(b)
            return None
        if op.name == "field":  # sum(coef * operand) + offset, every coefficient positive
            total = Affine.of_const(op.attrs["offset"])
            for c, o in zip(op.attrs["coefs"], op.operands):
                b = self.bound(o, upper, depth + 1, strict)
                if b is None:
                    return None
                total = total + b.scale(c)
            return total
        if op.name == "select":  # min and max (x < y ? x : y): at most, and at least, either
            test, x, y = op.operands
            cmp = test.defining_op
            shape = cmp.name if cmp is not None and list(cmp.operands) == [x, y] else None
            bx, by = (self.bound(o, upper, depth + 1, strict) for o in (x, y))
            if (shape in ("lt", "le") and upper) or (shape in ("gt", "ge") and not upper):
                return by if by is not None else bx
            # Where a branch's value is the one its test compares (a clamp: i + 1 < n ? i + 1 :
            # n - 1), the test bounds it there: i + 1 is at most n - 1 where it is chosen.
            bx = self._tested(cmp, x, True, upper) or bx
            by = self._tested(cmp, y, False, upper) or by
            if bx is None or by is None:
                return None
            if upper:
                return bx if dominates(bx, by) else by if dominates(by, bx) else None
            return bx if dominates(by, bx) else by if dominates(bx, by) else None
        if op.name in ("div", "floordiv") and op.result.type.is_int and self._nonneg(op.operands[0], depth):
            # i / c of an i never negative (C's truncation, Python's floor: the same there): the
            # quotients of its bounds, where c divides their terms' coefficients
            c = const_int(op.operands[1])
            a = self.bound(op.operands[0], upper, depth + 1, strict) if c is not None and c >= 1 else None
            if a is None or any(k % c for _, k in a.terms):
                return None  # ((n - 1) / 2 is no affine form; a larger one would size a copy past the array)
            return Affine(tuple((t, k // c) for t, k in a.terms), a.const // c)  # (2 * n - 1) / 2 is n - 1
        if op.name == "mod" or (op.name == "rem" and upper):
            # Python's a % m lies in [0, m - 1]; C's (rem) in [-(m - 1), m - 1].
            m = self.affine(op.operands[1])
            if m is None:
                return None
            return m.plus(-1) if upper else Affine()
        if op.name == "rem" and not upper:  # C's a % m of an a never negative: never negative
            low = self.bound(op.operands[0], False, depth + 1, strict)
            return Affine() if low is not None and dominates(low, Affine()) else None
        return None

    def _tested(self, cmp: Optional[Op], v: Value, holds: bool, upper: bool) -> Optional[Affine]:
        """The bound (``upper`` or lower) of ``v`` that the comparison ``cmp`` gives where it
        ``holds`` (or fails), when ``v`` is one side of it and the other side is affine."""
        if cmp is None or cmp.name not in NEGATED:
            return None
        rel = cmp.name if holds else NEGATED[cmp.name]
        a, b = cmp.operands
        if key(a) != key(v):
            if key(b) != key(v):
                return None
            rel, a, b = MIRRORED[rel], b, a  # t < v is v > t
        other = self.affine(b)
        if other is None:
            return None
        if upper and rel in ("lt", "le"):
            return other.plus(-1) if rel == "lt" else other
        if not upper and rel in ("gt", "ge"):
            return other.plus(1) if rel == "gt" else other
        return None

    def _counter(self, v: Value) -> Optional[tuple[Value, Affine, Affine]]:
        """(start, limit, step) when ``v`` is, in the body of a ``while``, a counter the loop
        tests alone and steps by a fixed amount: ``while (i < limit) { ...; i += step; }`` (C's
        ``for`` with a step that is not a constant). ``limit`` is exclusive. Where the body
        runs, the step is positive: were it not, the loop would never end."""
        slot = slot_of(v)
        if slot is None or slot.op.name != "while" or v.owner is not slot.op.regions[1]:
            return None
        cond, body = slot.op.regions
        # The test, or one term of a conjunction the body runs under: C's early exits make
        # ``while (!returned && i < n)`` of ``for (i = 0; i < n; i++) if (...) return ...;``.
        tests = _conjuncts(cond.terminator.operands[0]) if cond.terminator.operands else []
        found = None
        for test in tests:
            if test.name in ("lt", "le", "gt", "ge"):
                x, y = test.operands if test.name in ("lt", "le") else test.operands[::-1]
                limit = self.affine(y)
                if x is cond.args[slot.k] and limit is not None:
                    found = test, limit
        if found is None:
            return None
        test, limit = found
        stepped = _stepped(body.terminator.operands[slot.k], v)
        if stepped is None:
            return None
        added, stays = stepped
        steps = {self.affine(s) for s in added}
        if len(steps) != 1 or None in steps:
            return None
        step = steps.pop()
        if (len(tests) > 1 or stays) and not (step.is_const and step.const > 0):  # type: ignore[union-attr]
            return None  # (the loop may end by another test: only a positive step keeps the start the least)
        return slot.inits[0], limit.plus(1) if test.name in ("le", "ge") else limit, step

    def _counter_bound(self, counted: tuple[Value, Affine, Affine], upper: bool, depth: int,
                       strict: bool) -> Optional[Affine]:
        """A counter's bounds (``_counter``): its start, and its last value, ``limit - step`` where
        the span is a whole number of steps (``i <= 2 * l * b - 1`` by ``2 * b``), else unknown
        (``strict``) or below ``limit``."""
        start, limit, step = counted
        if not upper:
            return self.bound(start, False, depth + 1, strict)
        first = self.affine(start)
        if first is not None and (limit - first).divided(step) is not None:
            return limit - step
        return limit.plus(-1) if not strict or step == Affine.of_const(1) else None

    def _join(self, v: Value, slot: Slot, upper: bool, depth: int, strict: bool) -> Optional[Affine]:
        """The bound of a value a loop or an ``if`` carries: the largest (least) of those that
        reach it (``slots``), leaving out those carried beside a selector the access's
        ``if`` rules out. A yield of the loop's body is the previous iteration's value, which
        the access's guards say nothing of; inside the body, the last one never arrives, so
        its bound is not attained there (``strict``: unknown). Nor is the largest of several
        different ones, which only its own branch (or path through the loop) reaches."""
        if v in self._joining:
            return None
        position = slot.targets.index(v)
        chosen = [source for path, source in enumerate(slot.sources) if self._selected(slot.op, position, path)]
        in_body = slot.op.name != "if" and v.is_block_arg and v.owner is slot.op.regions[-1]
        if strict and in_body and any(source not in slot.inits for source in chosen):
            return None
        guards, selectors = self.guards, self.selectors
        self._joining.add(v)
        bounds = []
        try:
            for source in chosen:
                previous = slot.op.name != "if" and source not in slot.inits  # a yield: the last iteration's
                self.guards, self.selectors = ({}, {}) if previous else (guards, selectors)
                bounds.append(self.bound(source, upper, depth + 1, strict))
        finally:
            self._joining.discard(v)
            self.guards, self.selectors = guards, selectors
        if not bounds or any(b is None for b in bounds):
            return None
        if strict and len(set(bounds)) > 1:
            return None  # the largest is attained only where its branch runs (or its path is taken)
        return _choose(bounds) if upper else _least(bounds)  # type: ignore[arg-type]

    def _walked(self, v: Value, slot: Slot, upper: bool, depth: int, strict: bool) -> Optional[Affine]:
        """The bound of a value a counted loop steps by the same constant in every iteration (a
        pointer walked through an array, ``*p++``; a second index, ``k += 2``), inside the loop's
        body: at iteration ``t`` (from 0) it is ``init + t * c``, so it runs from its init to
        ``init + (trips - 1) * c``."""
        loop = slot.op
        if loop.name != "for" or not v.is_block_arg or v.owner is not loop.regions[-1]:
            return None
        stepped = slot.yields[0].operands[slot.k].defining_op
        if stepped is None or stepped.name != "add" or stepped.parent is not v.owner or v not in stepped.operands:
            return None  # (stepped in a branch, or by a value that changes: not a walk)
        c = const_int(stepped.operands[1] if stepped.operands[0] is v else stepped.operands[0])
        s = const_int(loop.operands[2])
        if not c or s not in (1, -1):
            return None
        if (c > 0) != upper:
            return self.bound(slot.inits[0], upper, depth + 1, strict)
        init = self.bound(slot.inits[0], upper, depth + 1, strict)
        lb, ub = loop.operands[:2]
        first = self.bound(lb, s < 0, depth + 1, strict)  # the iterations' span is at most last - first
        last = self.bound(ub, s > 0, depth + 1, strict)
        if init is None or first is None or last is None:
            return None
        return init + ((last - first) if s > 0 else (first - last)).plus(-1).scale(c)

    def _walked_beside(self, v: Value, slot: Slot, upper: bool, depth: int, strict: bool) -> Optional[Affine]:
        """The bound of a value a ``while`` steps by the same constant ``c`` in every iteration
        after which it goes on (``*x++`` of ``while (n-- > 0)``), inside its body, beside a counter
        it steps by one (``n``): after ``t`` iterations ``v`` is ``v0 + c t`` and the counter
        ``n0 -+ t``, so the test that ends the loop, which the access runs under (``n > 0``,
        ``n != 0`` counting down), bounds ``t``, and ``v``. Not attained where another way out
        (a ``break``) may leave the loop first (``strict``)."""
        loop = slot.op
        if loop.name != "while" or not v.is_block_arg or v.owner is not loop.regions[1]:
            return None
        # (asked again and again of nested loops: once per access's block and the guards it holds,
        # which a join leaves out for the values of the iteration before)
        key = (v, upper, strict, id(self.guards))
        if key not in self._beside:
            self._beside[key] = None  # (a cycle through the counters says nothing)
            self._beside[key] = self._walked_beside_uncached(v, slot, upper, depth, strict)
        return self._beside[key]

    def _walked_beside_uncached(self, v: Value, slot: Slot, upper: bool, depth: int,
                                strict: bool) -> Optional[Affine]:
        loop = slot.op
        body = loop.regions[1]
        going, leaving = _going_on(loop, _paths(tuple(body.terminator.operands)) or [])
        steps = {_step_of(p[0][v.index], v) for p in going}
        c = steps.pop() if len(steps) == 1 else None
        if not c:
            return None
        if (c > 0) != upper:
            return self.bound(slot.inits[0], upper, depth + 1, strict)
        init = self.bound(slot.inits[0], upper, depth + 1, strict)
        if init is None or (strict and len(leaving) > 1):
            return None
        for w in body.args:
            counts = {_step_of(p[0][w.index], w) for p in going}
            if w is v or not w.type.is_int or counts not in ({1}, {-1}):
                continue
            d = counts.pop()
            start = self.affine(loop.operands[w.index])  # (the while's operands are its inits)
            if leaving:  # the loop ends where a test of the counter fails: its farthest value passes it
                ends = [self._passing(w, test, d) for _, taken in leaving for test, held in taken
                        if not held and test in self.under]
                end = next((e for e in ends if e is not None), None)
            else:  # its test is the loop's own (while (i < n)): as it bounds the counter in the body
                end = self.bound(w, d > 0, depth + 1, strict)
            if start is None or end is None:
                continue
            trips = (end - start) if d > 0 else (start - end)  # t at the farthest: v's last step
            return init + trips.scale(c)
        return None

    def _passing(self, w: Value, test: Value, d: int) -> Optional[Affine]:
        """The farthest value of a counter ``w`` stepped by ``d`` (1 or -1) that passes ``test``
        (``w > 0``: 1 counting down; ``w != k``: one step short of k; ``w < n``: n - 1 counting
        up), or None where the test says nothing of that (another value's, the other way)."""
        op = test.defining_op
        if op is None or w not in op.operands:
            return None
        other = op.operands[1] if op.operands[0] is w else op.operands[0]
        if op.name == "ne":
            k = self.affine(other)
            return None if k is None else k.plus(-d)
        if op.name not in MIRRORED:
            return None
        rel = op.name if op.operands[0] is w else MIRRORED[op.name]  # w rel other
        if (rel in ("lt", "le")) != (d > 0):
            return None
        k = self.affine(other)
        return None if k is None else k.plus({"lt": -1, "le": 0, "gt": 1, "ge": 0}[rel])

    def _selected(self, op: Op, position: int, path: int) -> bool:
        """Whether values ``op`` carries along ``path`` (its init, or one yield) may reach where
        the access runs: no selector carried beside them says otherwise."""
        for other in slots(op):
            target = other.targets[position]
            rule = self.selectors.get(target)
            value = const_int(other.sources[path]) if rule is not None else None
            if value is not None and (value == rule[0]) != rule[1]:  # type: ignore[index]
                return False
        return True

    def _nonneg(self, v: Value, depth: int) -> bool:
        """Whether ``v`` is never negative where the access being bounded runs: a constant, a
        counter of a loop from a non-negative start, or a parameter that bounds such a loop
        around the access (``j < cols`` runs only when ``cols > 0``); sums and products of those."""
        c = const_int(v)
        if c is not None:
            return c >= 0
        if depth > 16:
            return False
        if v.is_block_arg and v.index == 0 and v.owner.parent_op is not None and v.owner.parent_op.name == "for":
            loop = v.owner.parent_op
            step = const_int(loop.operands[2])
            return step is not None and step > 0 and self._nonneg(loop.operands[0], depth + 1)
        if v in self.bounding:
            return True
        op = v.defining_op
        if op is not None and op.name in ("add", "mul"):
            return all(self._nonneg(o, depth + 1) for o in op.operands)
        return False

    def around(self, op: Op) -> None:
        """Bound the indices of ``op`` next: the upper bounds of the loops from a non-negative
        start around it are positive there (``_nonneg``). They are the same for every op of a
        block: worked out again only for an op of another block than the last one's."""
        block = op.parent
        if block is self._around:
            return
        self._around = block
        self.bounding = set()
        self.guards = {}
        self.under = set()
        self._beside = {}
        self.selectors = {}
        loop = block.parent_op
        while loop is not None:
            first, step = (const_int(loop.operands[k]) for k in (0, 2)) if loop.name == "for" else (None, None)
            if step is not None and step > 0 and first is not None and first >= 0:
                self.bounding.add(loop.operands[1])
            if loop.name == "if" and block is loop.regions[0]:
                self._guard(loop.operands[0])
                self.under.add(loop.operands[0])
            if loop.name == "if":
                self._select(loop.operands[0], block is loop.regions[0])
            block = loop.parent
            loop = block.parent_op if block is not None else None

    def _guard(self, cond: Value) -> None:
        """The bounds ``cond`` (the test of an ``if`` the access runs under) puts on values:
        ``i <= hi``, ``i < n``, ``i >= lo``, and those joined by ``&&``."""
        op = cond.defining_op
        if op is None:
            return
        if op.name == "and":
            for o in op.operands:
                self._guard(o)
            return
        if op.name not in MIRRORED:
            return
        for (x, y), test in ((op.operands, op.name), (op.operands[::-1], MIRRORED[op.name])):
            upper = test in ("le", "lt")
            self.guards.setdefault((x, upper), (y, {"le": 0, "lt": -1, "ge": 0, "gt": 1}[test]))

    def _select(self, cond: Value, holds: bool) -> None:
        """The selectors ``cond`` (an ``if``'s test, ``holds`` in its then branch) pins:
        ``sel == k`` and ``sel != k`` with a constant ``k``, and those joined by ``&&``."""
        op = cond.defining_op
        if op is None:
            return
        if op.name == "and" and holds:
            for o in op.operands:
                self._select(o, True)
            return
        if op.name in ("eq", "ne"):
            for x, y in (op.operands, op.operands[::-1]):
                k = const_int(y)
                if k is not None and const_int(x) is None:
                    self.selectors.setdefault(x, (k, holds == (op.name == "eq")))

    def bound_sum(self, values: list[Value], upper: bool, strict: bool = True) -> Optional[Affine]:
        """The bound of ``sum(values)`` (an index through views: the offsets and the index).

        A sum of bounds is the sum's bound when the terms reach theirs together:
        when no two of them vary with the same loop, or with loops whose bounds
        depend on one another (``x[k:]`` indexed by ``n - 1 - k`` stays at ``n - 1``).
        """
        total = Affine()
        seen: set[Value] = set()
        for v in values:
            b = self.bound(v, upper, strict=strict)
            loops = self._loops_of(v)
            if b is None or loops & seen:
                return None
            seen |= loops
            total = total + b
        return total

    def _loops_of(self, v: Value, depth: int = 0) -> frozenset[Value]:
        """The induction variables ``v`` varies with, and those their loops' bounds vary with."""
        found = self._loops.get((v, depth))
        if found is None:
            found = self._loops[(v, depth)] = frozenset(self._loops_of_uncached(v, depth))
        return found

    def _loops_of_uncached(self, v: Value, depth: int) -> set[Value]:
        if v.is_block_arg:
            loop = v.owner.parent_op
            if loop is not None and loop.name == "while":
                return {v}  # a counter of a while (``_counter``), or what it carries
            if loop is None or loop.name != "for" or v.index != 0:
                return set()
            return {v}.union(*(self._loops_of(b, depth + 1) for b in loop.operands[:2]))
        op = v.defining_op
        if op is None or depth > 16:
            return set()
        return set().union(*(self._loops_of(o, depth + 1) for o in op.operands))


def _through_views(arr: Value) -> tuple[Value, list[list[Value]], list[Value]]:
    """The array a (possibly nested) view names, as ``base[r0][r1]...[sum(offsets):]``: the
    base, the terms of each row index that fixes one of its leading axes (``A[i]`` of a
    matrix: [[i]]), and the offsets along the next axis: ``x[k:][j:]`` -> x, [], [j, k]."""
    rows: list[list[Value]] = []
    offsets: list[Value] = []
    op = arr.defining_op
    while op is not None and op.name == "view":
        inner, offset = op.operands
        if op.result.type != inner.type:  # a row: inner[offset]
            rows.insert(0, [offset])
        elif rows:  # inner[offset:][r0]... is inner[offset + r0]...
            rows[0].append(offset)
        else:
            offsets.append(offset)
        arr, op = inner, inner.defining_op
    return arr, rows, offsets


def _axis_terms(rows: list[list[Value]], offsets: list[Value], index: list[Value]) -> list[list[Value]]:
    """For an access ``index`` through such a view: the terms whose sum indexes each axis of the base."""
    return [*rows, [index[0], *offsets], *([v] for v in index[1:])]


def _mod_form(v: Value, m: int, depth: int = 0) -> tuple[Optional[Value], int]:
    """``v`` as ``base + r`` modulo ``m`` (base None: a constant), looking through ``+ k * m``."""
    c = const_int(v)
    if c is not None:
        return None, c % m
    op = v.defining_op
    if op is not None and depth < 8 and op.name in ("add", "sub"):
        a, b = op.operands
        cb = const_int(b)
        if cb is not None:
            base, r = _mod_form(a, m, depth + 1)
            return base, (r + cb if op.name == "add" else r - cb) % m
        for x, y in ((a, b), (b, a)) if op.name == "add" else ((a, b),):
            d = y.defining_op
            if d is not None and d.name == "mul" and any((const_int(o) or 1) % m == 0 for o in d.operands):
                return _mod_form(x, m, depth + 1)
    return v, 0


def _congruent(a: Value, b: Value, m: int) -> bool:
    """Whether ``a`` and ``b`` are equal modulo ``m`` by their form (a reversed loop's bounds)."""
    return m > 1 and _mod_form(a, m) == _mod_form(b, m)


def _parse_extent(text, names: dict[str, int]) -> Optional[Affine]:
    """An annotation's extent (``"n"``, ``"2 * n + 1"``, ``3``) as an affine form, or None."""
    if isinstance(text, int) and not isinstance(text, bool):
        return Affine.of_const(text)
    if not isinstance(text, str):
        return None
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None

    def conv(n: ast.AST) -> Optional[Affine]:
        if isinstance(n, ast.Constant) and isinstance(n.value, int) and not isinstance(n.value, bool):
            return Affine.of_const(n.value)
        if isinstance(n, ast.Name) and n.id in names:
            return Affine.of_param(names[n.id])
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            a = conv(n.operand)
            return None if a is None else a.scale(-1)
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub, ast.Mult)):
            a, b = conv(n.left), conv(n.right)
            if a is None or b is None:
                return None
            if isinstance(n.op, ast.Add):
                return a + b
            if isinstance(n.op, ast.Sub):
                return a - b
            return a.times(b)
        return None

    return conv(node)


def _choose(cands: list[Affine]) -> Optional[Affine]:
    """The cover of several candidates: the one no other exceeds for sizes of 0 and more
    (``n`` and ``n + 1``: ``n + 1``; ``h``, ``2 * h`` and ``4 * h``: ``4 * h``); None when none
    is (``n`` and ``m``, ``n + 3`` and ``2 * n``)."""
    if not cands:
        return None
    for c in sorted(cands, key=lambda c: c.const, reverse=True):
        if all(dominates(c, d) for d in cands):
            return c
    return None


def _least(cands: list[Affine]) -> Optional[Affine]:
    """The one candidate no other is below for sizes of 0 and more; None when none is."""
    for c in cands:
        if all(dominates(d, c) for d in cands):
            return c
    return None


def _check_declared(fn: Function, name: str, axis: int, given: str, declared: Affine, covers: list[Affine]) -> None:
    """A located error where the code provably reaches past the size a parameter's declaration
    or annotation gives it (``double work[n]`` of which ``work + n`` is passed on, read up to
    ``2 n``): s2sad sizes copies and adjoints by the declaration, so the gradient would read and
    write past them. A cover equal to it, below it, or not comparable with it says nothing."""
    over = [c for c in covers if dominates(c, declared) and not dominates(declared, c)]
    if not over:
        return
    params = [p.name_hint for p in fn.params]
    reached = _spelled(max(over, key=lambda c: c.value({k: 1 for k in c.params})), params)
    where = f"axis {axis} of '{name}'" if axis else f"'{name}'"
    raise DiagnosticError([Diagnostic(
        f"{where} is declared with {given} elements, but '{fn.name}' reaches {reached} of them",
        fn.loc, hint=f"declare the size it uses ({reached}), or pass an array of that size")])


def _spelled(a: Affine, params: list[str]) -> str:
    """An affine extent as the source would write it: ``5 * n``, ``n + 1``."""
    parts = []
    for monomial, c in a.terms:
        term = " * ".join(params[k] for k in monomial)
        parts.append(term if c == 1 else f"{c} * {term}")
    if a.const or not parts:
        parts.append(str(a.const))
    return " + ".join(parts).replace("+ -", "- ")


def dominates(a: Affine, b: Affine) -> bool:
    """``a >= b`` for all sizes of 0 and more: no term of ``a - b`` is negative."""
    diff = a - b
    return all(c >= 0 for _, c in diff.terms) and diff.const >= 0


Extents = list[Optional[list[Optional[Affine]]]]  # per parameter: per axis (None: not an array)


class Sizes:
    """Extents of the array parameters of every function of a module (computed on demand)."""

    def __init__(self, module: Module):
        self.module = module
        self._memo: dict[str, Extents] = {}
        self._exact: dict[str, set[tuple[int, int]]] = {}
        self._floors: dict[str, dict[tuple[int, int], int]] = {}  # covers raised to a constant index
        self._busy: set[str] = set()
        self._primal_sizes: Optional[Sizes] = None  # over module.primals, where the entry's primal is

    def forget(self) -> None:
        """Drop what was computed (a function gained parameters)."""
        self._memo.clear()
        self._exact.clear()
        self._floors.clear()

    def exact_axes(self, fn: Function) -> set[tuple[int, int]]:
        """(parameter index, axis) of the extents an annotation gives: the array's own, not a cover."""
        self.extents(fn)
        return self._exact.get(fn.name, set())

    def cover_floor(self, fn: Function, param: int, axis: int) -> int:
        """The least cover of an axis whose extent (from loops, not an annotation) a constant
        index reaches past: ``x[3]`` beside a loop over ``x[i]``, ``i < n - 1``. 0 when none."""
        self.extents(fn)
        return self._floors.get(fn.name, {}).get((param, axis), 0)

    @staticmethod
    def affine(fn: Function, v: Value) -> Optional[Affine]:
        """The integer value ``v`` of ``fn`` as an affine expression of its integer parameters."""
        return _FunctionView(fn).affine(v)

    @staticmethod
    def index_range(fn: Function, access: Op) -> Optional[tuple[Affine, Affine]]:
        """The least and largest values the index of the one-index ``access`` (a load or store in
        ``fn``) takes over the loops around it, each an affine form; None where either is unknown."""
        view = _FunctionView(fn)
        view.around(access)
        low, high = view.bound(access.operands[1], False), view.bound(access.operands[1], True)
        return None if low is None or high is None else (low, high)

    def extents(self, fn: Function) -> Extents:
        if fn.name in self._memo:
            return self._memo[fn.name]
        if fn.name in self._busy:
            return [None] * len(fn.params)
        self._busy.add(fn.name)
        try:
            result = self._compute(fn)
        finally:
            self._busy.discard(fn.name)
        self._memo[fn.name] = result
        return result

    def _compute(self, fn: Function) -> Extents:
        view = _FunctionView(fn)
        shadows = shadows_of(fn)
        primary = {i: shadows.get(i, i) for i in range(len(fn.params))}
        cands: dict[tuple[int, int], list[Affine]] = {}
        loose: dict[tuple[int, int], list[Affine]] = {}  # from strided loops: upper bounds only
        unknown: set[tuple[int, int]] = set()  # touched where no bound is known: no cover
        floors: dict[tuple[int, int], int] = {}  # one past the largest constant index

        def reach(param: int, axis: int, count: int) -> None:
            key = (primary[param], axis)
            floors[key] = max(floors.get(key, 0), count)

        def add(param: int, axis: int, extent: Optional[Affine], into=cands) -> None:
            if extent is not None:
                into.setdefault((primary[param], axis), []).append(extent)

        def unbounded(param: int, axis: int) -> None:
            unknown.add((primary[param], axis))

        for op in fn.walk() if not self._recursive(fn) else ():
            if op.name == "load" and op.attrs.get("cover"):
                continue  # a read of the elements the cover holds (an array tape's): within it by making
            if op.name in ("load", "store", "accum"):
                arr, rows, offsets = _through_views(op.operands[0])
                if arr not in view.param_index:
                    continue
                view.around(op)
                index = op.operands[1 : 1 + op.operands[0].type.rank]
                for axis, terms in enumerate(_axis_terms(rows, offsets, index)):
                    v = terms[0]
                    exact = [view.affine(t) for t in terms]
                    if all(e is not None and e.is_const for e in exact):
                        # x[3] says only "at least four elements": no extent, but a cover must reach it
                        reach(view.param_index[arr], axis, sum(e.const for e in exact) + 1)  # type: ignore
                        continue
                    top = view.bound_sum(terms, upper=True)
                    add(view.param_index[arr], axis, None if top is None else top.plus(1))
                    if top is None:
                        top = view.bound_sum(terms, upper=True, strict=False)
                        add(view.param_index[arr], axis, None if top is None else top.plus(1), loose)
                    if top is None and not self._within_own_extent(fn, v, arr, axis, primary, view):
                        unbounded(view.param_index[arr], axis)
            elif op.name == "dim" and not is_gradient(fn):
                # The code reads the array's own length (``range(1, len(d))``, ``s / len(d)``):
                # what it does depends on all of it, so a copy of fewer elements (a call's
                # snapshot, re-run by the callee's gradient) would not do the same.
                arr = _through_views(op.operands[0])[0]
                if arr in view.param_index:
                    for axis in range(arr.type.rank):
                        unbounded(view.param_index[arr], axis)
            elif op.name == "call" and op.attrs["callee"] in self.module.functions:
                self._from_call(fn, view, op, add, unbounded, reach, lambda p, a, e: add(p, a, e, loose))
            elif is_mpi(op.name) and op.name != "mpi.wait":
                self._from_mpi(view, op, add, unbounded, reach)

        names = {p.name_hint: i for i, p in enumerate(fn.params) if p.type.is_int}
        annotated = self.annotations(fn)
        primal_cover = self._primal_cover(fn)
        out: Extents = []
        exact: set[tuple[int, int]] = set()
        raised: dict[tuple[int, int], int] = {}
        for i, p in enumerate(fn.params):
            if not p.type.is_array:
                out.append(None)
                continue
            owner = fn.params[primary[i]].name_hint
            given = annotated.get(owner) or []
            axes: list[Optional[Affine]] = []
            for axis in range(p.type.rank):
                ext = _parse_extent(given[axis], names) if axis < len(given) else None
                key = (primary[i], axis)
                if ext is not None:
                    exact.add((i, axis))
                    if key not in unknown and not is_gradient(fn):
                        _check_declared(fn, p.name_hint, axis, given[axis], ext, cands.get(key, []))
                elif key not in unknown:
                    # A strided loop's bound (``range(1, n, 3)``: below n) counts too: the cover
                    # must hold every element touched (fuzz seed 10930753: z[i] for i < n - 1
                    # beside z[i3] for i3 in range(1, n, 3); the copy of z a call took held n - 1).
                    ext = _choose([*cands.get(key, []), *loose.get(key, [])])
                    floor = floors.get(key, 0)
                    if ext is None and floor and key not in cands and key not in loose:
                        ext = Affine.of_const(floor)  # only constant indices (*v, v[2]): they are its cover
                    elif ext is not None and ext.is_const:
                        ext = Affine.of_const(max(ext.const, floor))
                    elif ext is not None and floor:
                        raised[(i, axis)] = floor
                if ext is None:
                    ext = primal_cover(owner, axis)
                axes.append(ext)
            out.append(axes)
        self._exact[fn.name] = exact
        self._floors[fn.name] = raised
        return out

    @staticmethod
    def _within_own_extent(fn: Function, v: Value, arr: Value, axis: int, primary, view) -> bool:
        """Whether index ``v`` runs over ``range(len(arr))`` (a loop the gradient makes to copy
        the array, bounded by its extent, whatever that is): it says nothing of the extent."""
        if not (v.is_block_arg and v.index == 0 and v.owner.parent_op is not None
                and v.owner.parent_op.name == "for"):
            return False
        lb, ub, step = v.owner.parent_op.operands[:3]
        d = ub.defining_op
        first, by = const_int(lb), const_int(step)
        if first is None or first < 0 or by is None or by <= 0 or d is None or d.name != "dim":
            return False
        base = storage_of(d.operands[0])
        return (d.attrs["axis"] == axis and base in view.param_index
                and primary[view.param_index[base]] == primary[view.param_index[arr]])

    def _primal_cover(self, fn: Function):
        """For a gradient: the cover its primal has of an array, by the array's name and axis,
        in the gradient's parameters (None where the primal has none). The gradient touches what
        the primal does, at the same indices, some of them read back from tapes
        (``x[tape.pop()]``), which bound nothing here."""
        name = fn.attrs.get("primal", "")
        primal, sizes = self.module.functions.get(name), self
        if primal is None and self.module.primals is not None:  # the entry's: its own module's
            primal = self.module.primals.functions.get(name)
            if self._primal_sizes is None:
                self._primal_sizes = Sizes(self.module.primals)
            sizes = self._primal_sizes
        theirs = sizes.extents(primal) if primal is not None and primal is not fn else None
        mine = {p.name_hint: i for i, p in enumerate(fn.params) if p.name_hint}

        def cover(name: str, axis: int) -> Optional[Affine]:
            if theirs is None or name not in primal.param_names:  # type: ignore[union-attr]
                return None
            given = theirs[primal.param_names.index(name)]  # type: ignore[union-attr]
            ext = given[axis] if given is not None and axis < len(given) else None
            if ext is None:
                return None
            out = Affine.of_const(ext.const)
            for k, c in ext.terms:
                ours = [mine.get(primal.params[i].name_hint) for i in k]  # type: ignore[union-attr]
                if any(i is None for i in ours):
                    return None
                out = out + Affine(((tuple(sorted(ours)), c),), 0)  # type: ignore[arg-type]
            return out

        return cover

    def _recursive(self, fn: Function) -> bool:
        """Whether ``fn`` (or the primal it is the gradient of) calls itself. Its accesses then say
        nothing of the extents: each call reaches only part of the array (``x[lo]`` for one
        ``lo``), and which parts depends on the caller; only annotations are known."""
        names = {fn.name, fn.attrs.get("primal", "")}
        for f in (fn, self.module.functions.get(fn.attrs.get("primal", ""))):
            if f is not None and any(op.name == "call" and op.attrs["callee"] in names for op in f.walk()):
                return True
        return False

    def length_params(self, fn: Function) -> list[int]:
        """The integer parameters an annotation names as the length of an array (``"f64[n, m]"``)."""
        names = {p.name_hint: i for i, p in enumerate(fn.params) if p.type.is_int}
        out: list[int] = []
        for extents in self.annotations(fn).values():
            for text in extents:
                if isinstance(text, str) and text.strip() in names and names[text.strip()] not in out:
                    out.append(names[text.strip()])
        return sorted(out)

    def annotations(self, fn: Function) -> dict:
        """The shapes annotations give the parameters of ``fn`` (its primal's, for a gradient)."""
        shapes = dict(fn.attrs.get("shapes") or {})
        primal = self.module.functions.get(fn.attrs.get("primal", ""))
        if primal is not None:
            for k, v in (primal.attrs.get("shapes") or {}).items():
                shapes.setdefault(k, v)
        return shapes

    @staticmethod
    def _from_mpi(view: _FunctionView, op: Op, add, unbounded, reach) -> None:
        """An MPI call touches its buffers' first ``count`` elements (from where a view starts)."""
        for buf, count in buffer_counts(op):
            arr, rows, offsets = _through_views(buf)
            if arr not in view.param_index or rows:
                continue
            param = view.param_index[arr]
            if count is None:  # (times the number of ranks)
                unbounded(param, 0)
                continue
            view.around(op)
            terms = offsets + [count]
            exact = [view.affine(t) for t in terms]
            if all(e is not None and e.is_const for e in exact):
                reach(param, 0, sum(e.const for e in exact))  # type: ignore[union-attr]
                continue
            top = view.bound_sum(terms, upper=True)
            add(param, 0, top)
            if top is None:
                unbounded(param, 0)

    def _from_call(self, fn: Function, view: _FunctionView, op: Op, add, unbounded, reach, add_loose) -> None:
        callee = self.module.functions[op.attrs["callee"]]
        if len(callee.params) != len(op.operands):
            return
        if callee.name in self._busy:
            return  # a recursive call: the array's extents are the caller's own
        theirs = self.extents(callee)
        view.around(op)
        for j, arg in enumerate(op.operands):
            if not arg.type.is_array or theirs[j] is None:
                continue
            a, rows, offsets = _through_views(arg)
            if a not in view.param_index:
                continue
            param = view.param_index[a]
            for axis, terms in enumerate(rows):  # a row A[i] passed: the rows it may be
                exact = [view.affine(t) for t in terms]
                if all(e is not None and e.is_const for e in exact):
                    reach(param, axis, sum(e.const for e in exact) + 1)  # type: ignore[union-attr]
                    continue
                top = view.bound_sum(terms, upper=True)
                add(param, axis, None if top is None else top.plus(1))
                if top is None:
                    unbounded(param, axis)
            shift = len(rows)  # the callee's axis 0 is the base's axis ``shift``
            # The callee reads up to its extent from where the view starts (on the callee's axis 0).
            start = view.bound_sum(offsets, upper=True)
            add_axis = add
            if start is None:  # an offset whose largest value is not attained: an upper bound will do
                start = view.bound_sum(offsets, upper=True, strict=False)
                add_axis = add_loose
            for axis in range(len(theirs[j])):
                floor = self._floors.get(callee.name, {}).get((j, axis), 0)
                if not floor:
                    continue
                if axis > 0 or (start is not None and start.is_const):
                    reach(param, shift + axis, floor + (start.const if axis == 0 else 0))  # type: ignore
                else:  # from a view at a varying offset: a candidate like any other
                    add_axis(param, shift, None if start is None else start.plus(floor))
            for axis, ext in enumerate(theirs[j]):
                if ext is None:
                    unbounded(param, shift + axis)
                    continue
                mapped: Optional[Affine] = Affine.of_const(ext.const)
                if axis == 0:
                    mapped = None if start is None else start.plus(ext.const)
                for k, c in ext.terms:
                    size: Optional[Affine] = Affine.of_const(c)
                    for i in k:  # the monomial in the caller's values of the callee's parameters
                        factor = view.affine(op.operands[i])
                        size = None if factor is None or size is None else size.times(factor)
                    if size is None or mapped is None:
                        mapped = None
                        break
                    mapped = mapped + size
                if mapped is None:
                    unbounded(param, shift + axis)
                (add_axis if axis == 0 else add)(param, shift + axis, mapped)


def sizes_buffers_only(v: Value) -> bool:
    """Whether ``v`` (a ``dim``) only sizes new buffers, or copies of the elements the code
    touches (``cover``: the reverse sweep's snapshots): then a cover of the extent will do."""
    if v.defining_op is not None and v.defining_op.attrs.get("cover"):
        return True
    return bool(v.uses) and all(user.name in ("alloc", "tape.new") for user, _ in v.uses)


def exact_needs(fn: Function) -> list[tuple[Op, Value, int]]:
    """Where ``fn`` needs the exact extent of an array: (op, array, axis), in program order.

    The row length of a 2-D array (to index it, or to copy it) and a ``dim``
    (``len(x)``, ``x.shape[1]``) that is more than the size of a new buffer.
    """
    return [need for need in extent_needs(fn) if not need[3]]


def extent_needs(fn: Function) -> list[tuple[Op, Value, int, bool]]:
    """Where ``fn`` needs an extent of an array: (op, array, axis, whether a cover will do)."""
    out: list[tuple[Op, Value, int, bool]] = []
    for op in fn.walk():
        if op.name == "dim":
            out.append((op, storage_of(op.operands[0]), op.attrs["axis"], sizes_buffers_only(op.result)))
        elif op.name in ("load", "store", "accum", "copy") and op.operands[0].type.is_array:
            arr = storage_of(op.operands[0])
            if op.name == "copy" and len(op.operands) == 1:  # copy(x, n) counts its rows itself
                out.append((op, arr, 0, True))
            out += [(op, arr, axis, False) for axis in range(1, arr.type.rank)]  # type: ignore[attr-defined]
    return out


def add_extent_params(sizes: Sizes, module: Module, fn: Function) -> bool:
    """Python input: each exact extent the entry needs that no annotation gives, and each
    extent a copy needs that neither an annotation nor the loops bound, becomes a ``long``
    parameter ``<array>_shape<axis>`` (``A_shape1``: ``A.shape[1]``), after the arrays and
    their shadows, before ``d_return``, as annotation shape symbols do. True where an extent it
    needs is such a parameter to be, or an annotation's symbol that is not a parameter (both
    for ``add_size_params`` to add).

    A loop bound is never taken for one: ``A`` may be wider than ``range(k)``
    reaches. C input keeps its declared signature (its arrays are flat pointers).
    """
    if fn.attrs.get("c_params") is not None:
        return False
    shadows = shadows_of(fn)
    annotated = sizes.annotations(fn)
    names = {p.name_hint: i for i, p in enumerate(fn.params) if p.type.is_int}
    taken = {p.name_hint for p in fn.params} | {v.name_hint for op in fn.walk() for v in op.results}
    shapes = {k: list(v) for k, v in annotated.items()}
    added: list[str] = []
    symbols = False
    covers = sizes.extents(fn)
    for _, arr, axis, cover in extent_needs(fn):
        if arr.owner is not fn.body or arr.defining_op is not None:
            continue  # a local array: its allocation says its extents
        index = fn.params.index(arr)
        if cover and covers[index] is not None and covers[index][axis] is not None:  # type: ignore[index]
            continue  # the loops that index it bound the elements touched: enough for a copy
        owner = fn.params[shadows.get(index, index)].name_hint
        given = shapes.get(owner) or [None] * arr.type.rank  # type: ignore[attr-defined]
        if len(given) <= axis or _parse_extent(given[axis], names) is not None:
            continue
        if given[axis] is not None:  # an annotation symbol that is not a parameter: add_size_params
            symbols = True
            continue
        sym = f"{owner}_shape{axis}"
        while sym in taken:
            sym += "_"
        taken.add(sym)
        given[axis] = sym
        shapes[owner] = given
        added.append(sym)
    if added:
        fn.attrs["shapes"] = shapes
    if added or symbols:
        sizes.forget()
    return bool(added) or symbols
