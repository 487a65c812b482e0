"""Integer ranges: which integer values are never negative, so that C's ``/`` and ``%`` may stand
for Python's floored ``//`` and ``%``.

C's integer division truncates toward zero; Python's floors. They agree when
both operands are non-negative, which index arithmetic almost always is
(``(i + n - 1) % n`` inside ``for i in range(n)``). Elsewhere the emitter calls
a small floored helper instead. This is an interval analysis on the structured
SSA form (Cousot & Cousot, POPL 1977), with widening at loop-carried values:

* constants; loop induction variables from their bounds (``range(lb, ub, s)``
  with ``s > 0`` keeps ``iv`` in ``[lb, ub - 1]``; with ``s < 0`` in ``[ub + 1, lb]``,
  and in ``[ub - s, lb]`` when ``lb`` and ``ub`` are congruent modulo ``s``, as in the
  reversed loops of the adjoint);
* the integer parameters used as sizes (``for`` bounds, allocation sizes,
  array extents) are taken to be non-negative: a negative size is not a
  meaningful input, and the primal's loops over it would not run;
* arithmetic, ``//`` and ``%`` by positive values, C's ``%`` (``rem``: the sign
  of the dividend, smaller than the divisor), ``max``/``min``, ``select``;
* values read back from a local array or a tape: the join of what was stored;
* inside a loop body, the loop ran, so its bounds are ordered: ``ub >= lb + 1``
  for an ascending loop (so ``n >= 1`` inside ``for i in range(n)``), and the
  same for a descending one, pushed through ``x - c`` and ``x + c`` (``n - 1 >= 0``
  gives ``n >= 1``). These facts are used where a query is made (``at``).
"""

from __future__ import annotations

import math
from typing import Optional

from ..ssa.gpu import BUILTINS as GPU_BUILTINS
from ..ssa.build import const_int
from ..ssa.ir import Block, Function, Op, Value
from ..ssa.ops import view_base
from .dataflow import Forward, solve_forward

INF = math.inf
Interval = tuple[float, float]
TOP: Interval = (-INF, INF)


def _mul(a: float, b: float) -> float:
    if a == 0 or b == 0:
        return 0
    return a * b


def _join(a: Optional[Interval], b: Optional[Interval]) -> Optional[Interval]:
    if a is None:
        return b
    if b is None:
        return a
    return (min(a[0], b[0]), max(a[1], b[1]))


def _widen(old: Interval, new: Interval) -> Interval:
    """A bound that moved goes to infinity at once: a loop's counter must not climb one
    iteration per sweep."""
    return (old[0] if new[0] >= old[0] else -INF, old[1] if new[1] <= old[1] else INF)


def _bits_interval(n: str, a: Interval, b: Interval) -> Interval:
    """C's bit operations on non-negative integers stay non-negative: ``a & b`` is at most
    either (one non-negative operand is enough), ``a | b`` and ``a ^ b`` fit the bits of the
    larger, ``a >> k`` is at most ``a``; ``~a`` is ``-a - 1``."""
    if n == "bitnot":
        return (-a[1] - 1, -a[0] - 1)
    if n == "bitand" and (a[0] >= 0 or b[0] >= 0):
        return (0, min(x[1] for x in (a, b) if x[0] >= 0))
    if n in ("bitor", "bitxor") and a[0] >= 0 and b[0] >= 0:
        hi = max(a[1], b[1])
        return (0, hi if hi == INF else (1 << int(hi).bit_length()) - 1)
    if n == "shr" and a[0] >= 0 and b[0] >= 0:
        return (0, a[1])
    return TOP


def _floordiv_bound(x: float, c: int) -> float:
    # (a bound is an int of any size, or a float infinity: math.isinf of an int past 2^1024 raises)
    return x if isinstance(x, float) and math.isinf(x) else x // c


class IntRanges:
    """Intervals of a function's integer values; ``at(v, op)`` adds what the loops around ``op`` imply."""

    def __init__(self, fn: Function, size_params: set[Value]):
        self.fn = fn
        self.size_params = size_params
        self.range: dict[Value, Interval] = {}
        self._stored: dict[Value, list[Value]] = {}  # local array / tape root -> values written
        self._opaque: set[Value] = set()  # local arrays something else may write (calls)
        self._ops = list(fn.walk())
        self._collect_writes()
        self._solve()

    # -- the global fixpoint --------------------------------------------------------------
    def _collect_writes(self) -> None:
        # By the array a view names: a store through ``view(a, k)`` is a store into ``a``.
        for op in self._ops:
            if op.name == "store":
                self._stored.setdefault(view_base(op.operands[0]), []).append(op.operands[-1])
            elif op.name == "tape.push":
                self._stored.setdefault(op.operands[0], []).append(op.operands[1])
            elif op.name in ("call", "copy"):
                self._opaque.update(view_base(a) for a in op.operands if a.type.is_array)

    def get(self, v: Value) -> Optional[Interval]:
        return self._known(v) or self.range.get(v)

    def _known(self, v: Value) -> Optional[Interval]:
        """Parameters and constants: known before solving."""
        if v.owner is self.fn.body:
            if not v.type.is_int:
                return None
            return (0, INF) if v in self.size_params else TOP
        c = const_int(v)
        return (c, c) if c is not None else None

    def _solve(self) -> None:
        analysis = Forward(self._transfer, _join, _widen, lambda v: v.type.is_int, self._known)
        facts = solve_forward(self._ops, analysis)
        if facts is not None:
            self.range = facts
            return
        for op in self._ops:  # not converged (never expected): give up on everything
            defined = [*op.results, *(a for r in op.regions for a in r.args)]
            self.range.update((v, TOP) for v in defined if v.type.is_int)

    def _transfer(self, op: Op, get) -> list[tuple[Value, Optional[Interval]]]:
        if op.name == "for":
            return [(op.regions[0].args[0], self._iv(op, get))]
        if op.name not in ("while", "if") and len(op.results) == 1 and op.result.type.is_int:
            return [(op.result, self._eval(op, get))]
        return []

    def _iv(self, loop: Op, get) -> Optional[Interval]:
        lb, ub, step = loop.operands[:3]
        s = const_int(step)
        lo_b, hi_b = get(lb), get(ub)
        if s is None or lo_b is None or hi_b is None:
            return TOP if s is None else None
        if s > 0:
            return (lo_b[0], hi_b[1] - 1)
        low = hi_b[0] + 1
        if _residue(lb, -s) is not None and _residue(lb, -s) == _residue(ub, -s):
            low = hi_b[0] - s
        return (low, lo_b[1])

    def _eval(self, op: Op, get) -> Optional[Interval]:
        """The interval of ``op``'s result from its operands' intervals (``get``)."""
        n = op.name
        if n == "const":
            return (op.attrs["value"], op.attrs["value"])
        if n == "dim":
            return (0, INF)
        if n in GPU_BUILTINS:  # an index from 0, a launch extent from 1
            return (0, INF) if n in ("gpu.thread_idx", "gpu.block_idx") else (1, INF)
        if n == "cast":
            src = op.operands[0].type
            if getattr(src, "is_bool", False):
                return (0, 1)
            return get(op.operands[0]) if src.is_int else TOP
        if n in ("load", "tape.pop"):
            root = view_base(op.operands[0])
            if root.owner is self.fn.body or root in self._opaque:
                return TOP
            vals = [get(v) for v in self._stored.get(root, [])]
            j: Optional[Interval] = None
            for x in vals:
                if x is None:
                    continue
                j = _join(j, x)
            return j if j is not None or not vals else None
        ops = [get(o) for o in op.operands]
        if n == "select":
            return _join(ops[1], ops[2])
        if any(x is None for x in ops):
            return None
        if n == "add":
            return (ops[0][0] + ops[1][0], ops[0][1] + ops[1][1])
        if n == "sub":
            return (ops[0][0] - ops[1][1], ops[0][1] - ops[1][0])
        if n == "neg":
            return (-ops[0][1], -ops[0][0])
        if n == "mul":
            prods = [_mul(a, b) for a in ops[0] for b in ops[1]]
            return (min(prods), max(prods))
        if n == "floordiv":
            c = const_int(op.operands[1])
            if c is not None and c > 0:
                return (_floordiv_bound(ops[0][0], c), _floordiv_bound(ops[0][1], c))
            if ops[0][0] >= 0 and ops[1][0] >= 1:
                return (0, ops[0][1])
            return TOP
        if n == "mod":
            if ops[1][0] >= 1:
                return (0, ops[1][1] - 1)
            return TOP
        if n == "rem":
            return _rem_interval(ops[0], ops[1])
        if n == "math.max":
            return (max(ops[0][0], ops[1][0]), max(ops[0][1], ops[1][1]))
        if n == "math.min":
            return (min(ops[0][0], ops[1][0]), min(ops[0][1], ops[1][1]))
        if n in ("bitand", "bitor", "bitxor", "shr", "bitnot"):
            return _bits_interval(n, ops[0], ops[1] if len(ops) > 1 else ops[0])
        if n == "math.abs":
            lo, hi = ops[0]
            if lo >= 0:
                return (lo, hi)
            return (0, max(-lo, hi))
        return TOP

    # -- queries in context -------------------------------------------------------------------
    def at(self, v: Value, op: Op) -> Interval:
        """The interval of ``v`` as ``op`` reads it: what the enclosing loops having run implies."""
        facts: dict[Value, float] = {}
        block: Optional[Block] = op.parent
        while block is not None and block.parent_op is not None:
            loop = block.parent_op
            if loop.name == "for" and block is loop.regions[0]:
                lb, ub, step = loop.operands[:3]
                s = const_int(step)
                if s is not None and s != 0:
                    low, high = (lb, ub) if s > 0 else (ub, lb)
                    lo = self.get(low)
                    if lo is not None:
                        self._fact(facts, high, lo[0] + 1)
            block = loop.parent
        memo: dict[Value, Optional[Interval]] = {}

        def get(x: Value) -> Optional[Interval]:
            if x in memo:
                return memo[x]
            memo[x] = self.get(x)
            base = self.get(x)
            d = x.defining_op
            if d is not None and len(d.results) == 1 and d.name not in ("load", "tape.pop", "call"):
                own = self._eval(d, get)
                if own is not None:
                    base = own if base is None else (max(base[0], own[0]), min(base[1], own[1]))
            if x in facts:
                base = (facts[x], INF) if base is None else (max(base[0], facts[x]), base[1])
            memo[x] = base
            return base

        return get(v) or TOP

    def _fact(self, facts: dict[Value, float], v: Value, low: float, depth: int = 0) -> None:
        facts[v] = max(facts.get(v, -INF), low)
        op = v.defining_op
        if op is None or depth > 3 or op.name not in ("add", "sub"):
            return
        a, b = op.operands
        cb, ca = const_int(b), const_int(a)
        if cb is not None:
            self._fact(facts, a, low - cb if op.name == "add" else low + cb, depth + 1)
        elif ca is not None and op.name == "add":
            self._fact(facts, b, low - ca, depth + 1)

    def nonneg(self, v: Value, op: Op) -> bool:
        return self.at(v, op)[0] >= 0


def _rem_interval(a: Interval, b: Interval) -> Interval:
    """C's ``a % b``: the sign of ``a``, and smaller in magnitude than both ``a`` and ``b``."""
    limit = max(abs(b[0]), abs(b[1]), 1) - 1  # a zero divisor is undefined: never an empty interval
    return (max(min(a[0], 0), -limit), min(max(a[1], 0), limit))


def _residue(v: Value, m: int) -> Optional[int]:
    """``v`` modulo ``m`` when its form says (``c + k * m``), else None."""
    c = const_int(v)
    if c is not None:
        return c % m
    op = v.defining_op
    if op is None:
        return None
    if op.name in ("add", "sub"):
        a, b = (_residue(o, m) for o in op.operands)
        if a is None or b is None:
            return None
        return (a + b) % m if op.name == "add" else (a - b) % m
    if op.name == "mul":
        for x in op.operands:
            cx = const_int(x)
            if cx is not None and cx % m == 0:
                return 0
        a, b = (_residue(o, m) for o in op.operands)
        return None if a is None or b is None else (a * b) % m
    return None
