"""Integers as C computes them: parameters the input declared unsigned, and what the ranges show.

The IR computes integers as signed; C computes with an unsigned parameter as unsigned. The two
agree where the unsigned value is only added or multiplied and the result is stored into a
``long`` (two's complement), so a 64-bit ``size_t n`` prints as itself there (``long i = n - 1;``).
They disagree where the sign matters, so there the value is read as a ``long`` first: compared or
divided (a ``size_t`` expression beside a negative ``long`` would become huge, and gcc warns,
-Wsign-compare), and anywhere an ``unsigned`` (32-bit) parameter meets an ``int`` (``m - 1`` with
m = 0 wraps to 4294967295, which a ``long`` holds as it is).

The integer ranges (``analysis.ranges``) say where ``//`` and ``%`` may be C's own, where a
``min``/``max`` bound changes nothing, and where an allocation's count needs no clamp at zero.
"""

from __future__ import annotations

from typing import Optional

from ..analysis.ranges import IntRanges
from ..emit.expr import Call, Compare, Expr, IfExp, Lit, Name, literal_value, number
from ..emit.inline import InlinePlan
from ..ssa.build import const_int
from ..ssa.ir import Function, Op, Value
from .cexpr import Cast


class CIntegers:
    """The integer operands and integer facts of ``CFunctionEmitter`` (see the module's docstring).

    Needs from the host: the attributes below, and ``expr`` (a value's C expression)."""

    fn: Function
    declared: Optional[list[str]]  # each parameter's declared C type (signature.declared_params)
    var: dict[Value, str]
    aliases: dict[Value, Expr]
    plan: InlinePlan
    extents: list
    ranges: IntRanges
    unsigned: dict[Value, int]  # set from _unsigned_params

    def _unsigned_params(self) -> dict[Value, int]:
        """The integer parameters the input declared unsigned (``size_t n``, ``unsigned m``),
        with their widths in bits."""
        unsigned = {t: bits for t, bits in self.fn.attrs.get("c_unsigned") or ()}
        if not unsigned or not self.declared:
            return {}
        return {p: unsigned[t] for p, t in zip(self.fn.params, self.declared) if t in unsigned and p.type.is_int}

    def _int_operand(self, v: Value) -> Expr:
        e = self.expr(v)
        source = self._unsigned_source(v)
        if source is not None and self.unsigned[source] < 64:
            return Cast("long", e)
        return e

    def _unsigned_source(self, v: Value) -> Optional[Value]:
        """The unsigned parameter ``v`` prints as (itself, or an integer conversion of it, which
        C leaves implicit), or None."""
        while v not in self.unsigned:
            op = v.defining_op
            if v in self.var or v in self.aliases or op is None or op.name != "cast" or not self.plan.is_expr(v) \
                    or not (op.operands[0].type.is_int and v.type.is_int):
                return None
            v = op.operands[0]
        return v

    def _signed_operand(self, v: Value) -> Expr:
        """An operand of a comparison or a division, read as the signed value the IR means."""
        e = self._int_operand(v)
        if not isinstance(e, Cast) and self._unsigned_expr(v):
            return Cast("long", e)
        return e

    def _unsigned_expr(self, v: Value) -> bool:
        """Whether C types ``v``'s printed expression unsigned: a 64-bit unsigned parameter,
        or an inline sum, difference or product of one."""
        source = self._unsigned_source(v)
        if source is not None:
            return self.unsigned[source] >= 64  # a narrower one is read as a long already
        op = v.defining_op
        if op is not None and op.name == "dim" and v not in self.var:
            # an extent the declaration gives (double x[n]): it prints as that size_t n
            e = self.expr(v)
            return isinstance(e, Name) and any(self.var.get(p) == e.id and bits >= 64
                                               for p, bits in self.unsigned.items())
        if v in self.var or v in self.aliases or op is None or op.name not in ("add", "sub", "mul", "neg"):
            return False
        return self.plan.is_expr(v) and any(self._unsigned_expr(o) for o in op.operands)

    def _size_params(self) -> set[Value]:
        """Integer parameters used as sizes: loop bounds, allocation sizes, array extents."""
        fn = self.fn
        ints = {p for p in fn.params if p.type.is_int}
        out: set[Value] = set()
        for op in fn.walk():
            if op.name == "for":
                out.update(v for v in op.operands[:2] if v in ints)
            elif op.name in ("alloc", "tape.new"):
                out.update(v for v in op.operands if v in ints)
        for ext in self.extents:
            for e in ext or []:
                if e is not None:
                    out.update(fn.params[k] for k in e.params)
        return out

    def _nonneg(self, v: Value, op: Op) -> bool:
        return self.ranges.nonneg(v, op)

    def _bound_needless(self, op: Op) -> Optional[Value]:
        """For an integer ``min``/``max`` with a constant: the other operand, where the ranges
        show the bound changes nothing (``max(n, 0)`` of a size ``n`` is ``n``), so C prints it alone."""
        fn = op.name[5:]
        a_v, b_v = op.operands
        for x_v, c_v in ((a_v, b_v), (b_v, a_v)):
            c = const_int(c_v)
            if c is not None and fn == "max" and self.ranges.at(x_v, op)[0] >= c:
                return x_v
            if c is not None and fn == "min" and self.ranges.at(x_v, op)[1] <= c:
                return x_v
        return None

    def _checked_count(self, count: Expr, value: Optional[Value] = None, least: int = 0) -> Expr:
        """An element count that gcc checks against the largest object as it is, not wrapped:
        that of one-byte elements (``bool``: the count is the byte count; wider elements' byte
        counts wrap, and calloc is asked for bytes too, ``_calloc``). Where gcc follows a path on
        which it takes the count for negative (a size, taken non-negative by ``ranges``, that gcc
        knows nothing of), the count as a size_t would exceed any object, and gcc says so
        (-Walloc-size-larger-than). So the count is clamped at zero unless gcc can see that it is
        not negative. An allocation asks for ``least=1``: gcc 12 also threads a path on which a
        count it knows not negative is 0 into one whose count it takes for 2^63 or more, even for a
        plain size parameter ``n`` checked at entry (fuzz seed 11400722); with one element at
        least, that path is gone. The byte more is never read."""
        lit = literal_value(count)
        if lit is not None and lit >= least:
            return count
        if least == 0 and value is not None and self._visibly_nonneg(value):
            return count
        return int_min_max("max", count, number(least))

    @staticmethod
    def _at_least_zero(count: Expr, known: bool) -> Expr:
        """``count``, clamped at zero (``max_l(count, 0)``) unless ``known`` not to be negative."""
        return count if known else int_min_max("max", count, number(0))

    def _visibly_nonneg(self, v: Value, sizes: bool = False) -> bool:
        """Whether the C printed for ``v`` shows that it is not negative: a constant, a ``max``
        with a non-negative one that C prints (``_bound_needless``), sums and products of such;
        with ``sizes``, the function's integer parameters too (the sizes a caller passes)."""
        c = const_int(v)
        if c is not None:
            return c >= 0
        if sizes and v.owner is self.fn.body and v in self.fn.params:
            return True
        op = v.defining_op
        if op is None:
            return False
        if op.name == "math.max":
            same = self._bound_needless(op)
            if same is not None:
                return self._visibly_nonneg(same, sizes)
            return any(self._visibly_nonneg(o, sizes) for o in op.operands)
        if op.name in ("add", "mul"):
            return all(self._visibly_nonneg(o, sizes) for o in op.operands)
        return False


def int_min_max(fn: str, a: Expr, b: Expr) -> Expr:
    """Integer ``min``/``max``: a conditional of two names or literals, else the helper; of one
    expression twice (``zip(a, b)`` of arrays of one extent ``m``), that expression (gcc warns of
    ``m < m``)."""
    if a == b:
        return a
    if all(isinstance(x, (Name, Lit)) for x in (a, b)):
        return IfExp(Compare(">" if fn == "max" else "<", a, b), a, b)
    return Call(Name(f"{fn}_l"), (a, b))
