"""Strong zeros: a rule at a singular point of its derivative, met by an adjoint that is 0.

The derivative of ``sqrt`` at 0 is infinite, and 0 * inf is NaN. Where the reverse sweep gives
``r = sqrt(s)`` the adjoint 0 because nothing used ``r`` there (the other branch of
``if (i != j)`` or ``if (r > 0)`` in a pair loop; the diagonal of a distance matrix that the
loops summing over pairs never read; the elements ``np.maximum`` or ``np.where`` throw away), the
true contribution to ``s`` is 0, and the textbook product ``0 / (2 r)`` is NaN: probe round 10
found such NaN gradients in ordinary n-body and Coulomb energies, in C and in NumPy.

A rule whose derivative may be singular (``ssa.opdefs.singular``: a root, a logarithm, a
division, a power, an inverse sine or cosine) and whose adjoint may be such a zero
(``VanishingAdjoints``) reads its primal values masked by that adjoint: where it is 0, the value
the rule would divide by or take the root of is replaced by a point where the derivative is
finite (``REGULAR``), so the contribution is 0 times a finite number, and NumPy warns of nothing.
An adjoint that comes straight from the seed through products (``d_return / r``) is not masked:
0 there is the user's own choice of seed, and masking every rule would bury the readable
adjoints under selects.
"""

from __future__ import annotations

from typing import Callable

from ..ssa import array_ops, build
from ..ssa.ir import Block, Builder, Op, Value
from ..ssa.opdefs import computed_per_element, singular

# What each singular rule reads where its derivative is singular, and a value it may read there
# instead (where the adjoint is 0) with a finite derivative: ("operand", k) or ("result", 0).
REGULAR: dict[str, tuple[tuple[str, int, float], ...]] = {
    "math.sqrt": (("result", 0, 1.0),),
    "math.cbrt": (("result", 0, 1.0),),
    "math.log": (("operand", 0, 1.0),),
    "math.log2": (("operand", 0, 1.0),),
    "math.log10": (("operand", 0, 1.0),),
    "math.log1p": (("operand", 0, 0.0),),
    "math.asin": (("operand", 0, 0.0),),
    "math.acos": (("operand", 0, 0.0),),
    "math.atanh": (("operand", 0, 0.0),),
    "math.acosh": (("operand", 0, 2.0),),
    # a / b: the divisor, and the quotient the divisor's contribution -(g / b) (a / b) reads
    "div": (("operand", 1, 1.0), ("result", 0, 0.0)),
    # a ** b: the base (b a ** (b - 1), log a), and the power the exponent's contribution reads
    "pow": (("operand", 0, 1.0), ("result", 0, 1.0)),
    "math.pow": (("operand", 0, 1.0), ("result", 0, 1.0)),
}

# Adjoint ops whose result is 0 wherever the given operands are (a product, a quotient's
# numerator, a negation, a conversion, a reshaping), and those that are 0 only where all their
# operands are (a sum).
_ZERO_WITH_ANY = {"mul": None, "neg": None, "cast": None, "div": (0,), "arr.mul": None, "arr.neg": None,
                  "arr.div": (0,), "arr.broadcast": (0,), "arr.reshape": (0,), "arr.transpose": (0,),
                  "arr.sum_to": (0,)}
_ZERO_WITH_ALL = {"add", "sub", "arr.add", "arr.sub"}
_DEPTH = 64  # (past it an adjoint is taken to vanish somewhere: a mask too many, never a NaN)


class VanishingAdjoints:
    """Which adjoint values may be exactly 0 at run time where the primal did not use a value.

    Such a 0 comes from: a select or ``where`` that sends the adjoint to one side only, an
    ``if`` whose other branch leaves the adjoint 0, an element of a local array's shadow that no
    reversed load added to, and whatever products and sums carry one on. An adjoint that is a
    parameter's shadow or seed, or made from them by products, is taken as the user gave it.
    """

    def __init__(self, entry: Block):
        self.entry = entry  # the gradient's own block: its arguments are the seeds and shadows
        self._known: dict[tuple[Value, bool], bool] = {}

    def may_vanish(self, g: Value, depth: int = 0) -> bool:
        return self._vanishes(g, depth, False)

    def at_nan(self, g: Value, depth: int = 0) -> bool:
        """Whether ``g`` may be 0 where a select threw a NaN away (``np.where(x != x, 0.0, x)``,
        what ``np.nansum`` is): there the primal values the rule reads may be NaN themselves."""
        return self._vanishes(g, depth, True)

    def _vanishes(self, g: Value, depth: int, nan: bool) -> bool:
        if (g, nan) not in self._known:
            self._known[(g, nan)] = True if depth > _DEPTH else self._made_zero(g, depth, nan)
        return self._known[(g, nan)]

    def _made_zero(self, g: Value, depth: int, nan: bool) -> bool:
        op = g.defining_op
        if op is None:
            return False  # a seed, a shadow, or a loop's carried adjoint (taken as it comes in)
        if op.name in ("select", "arr.where"):
            zero = not nan or _tests_nan(op.operands[0])
            return any(zero and build.const_value(v) == 0 or self._vanishes(v, depth + 1, nan)
                       for v in op.operands[1:])
        if op.name == "if":
            k = op.results.index(g)
            return not nan and any(self.may_vanish(r.terminator.operands[k], depth + 1) or
                                   build.const_value(r.terminator.operands[k]) == 0 for r in op.regions)
        if op.name in _ZERO_WITH_ALL:
            return all(self._vanishes(v, depth + 1, nan) for v in op.operands)
        if op.name in _ZERO_WITH_ANY:
            at = _ZERO_WITH_ANY[op.name]
            return any(self._vanishes(op.operands[k], depth + 1, nan) for k in (at or range(len(op.operands))))
        return False


def _tests_nan(cond: Value) -> bool:
    """Whether ``cond`` is ``x != x``: True where x is NaN."""
    op = cond.defining_op
    return op is not None and op.name in ("ne", "arr.ne") and op.operands[0] is op.operands[1]


def guarded_fetch(b: Builder, op: Op, g: Value, fetch: Callable[[Value], Value], vanishing: VanishingAdjoints,
                  zero_elsewhere: bool = False) -> Callable[[Value], Value]:
    """``fetch`` for the rule of ``op`` with adjoint ``g``, the primal values it reads masked where
    ``g`` may be a strong zero: a singular rule's (``masked_reads``) where ``g`` may vanish
    (``zero_elsewhere``: it is a local's shadow, 0 at elements nothing read), and every value any
    rule of numbers reads where ``g`` may vanish at a NaN the primal threw away (0 times NaN is
    NaN: ``np.nansum(x ** 2)`` gave NaN at the NaN entries of x, whose derivative is 0). The
    second masks the singular rule's values too, each once."""
    if computed_per_element(op) is not None and vanishing.at_nan(g):
        return masked_reads(b, op, g, fetch, every_read=True)
    if singular(op) and (zero_elsewhere or vanishing.may_vanish(g)):
        return masked_reads(b, op, g, fetch)
    return fetch


def masked_reads(b: Builder, op: Op, g: Value, fetch: Callable[[Value], Value],
                 every_read: bool = False) -> Callable[[Value], Value]:
    """``fetch`` for the rule of ``op`` (singular) with adjoint ``g`` that may be 0 where the
    derivative is singular: the values ``REGULAR`` names come masked, their regular point where
    ``g`` is 0. A singular operand not of ``g``'s shape (a number or a broadcast array dividing
    an array) is one value for many elements of ``g``: it comes as it is, and so do the rest (a
    quotient masked where its divisor is not would change nothing). ``every_read``: each float
    operand and result of ``g``'s shape comes masked (a rule that may read a NaN where ``g`` is
    0), at ``REGULAR``'s point where it names one, else at 1.0 (regular for every other rule)."""
    name = computed_per_element(op)
    assert name is not None and (singular(op) or every_read), op.name
    regular = {op.operands[k] if kind == "operand" else op.results[k]: value
               for kind, k, value in REGULAR.get(name, ())} if singular(op) else {}
    reads = [*op.operands, *op.results] if every_read else list(regular)
    masked: dict[Value, float] = {}
    for v in reads:
        if not (v.type.elem if v.type.is_array else v.type).is_float or v in masked:  # type: ignore[attr-defined]
            continue
        if v.type.is_array != g.type.is_array or v.type.is_array and not (
                v.type == g.type and array_ops.shape_unit_axes(v) == array_ops.shape_unit_axes(op.result)):
            if every_read:
                continue  # (a number or a broadcast array against g: one value for many of g's)
            break  # (a number or a broadcast array against g: it has no value of its own where g is 0)
        masked[v] = regular.get(v, 1.0)
    if not masked:
        return fetch
    used: list[Value] = []  # g != 0, made once, where the rule first reads a masked value

    def nonzero() -> Value:
        if not used:
            zero = build.const(b, 0.0, g.type.elem if g.type.is_array else g.type)
            used.append(b.op1("arr.ne", [g, zero], array_ops.result_type("arr.ne", [g.type, zero.type], {}))
                        if g.type.is_array else build.cmp(b, "ne", g, zero))
        return used[0]

    def fetch_masked(v: Value) -> Value:
        val = fetch(v)
        if v not in masked:
            return val
        regular = build.const(b, masked[v], v.type.elem if v.type.is_array else v.type)
        if v.type.is_array:
            return b.op1("arr.where", [nonzero(), val, regular], val.type, f"{val.name_hint}_used" if val.name_hint
                         else "")
        return build.select(b, nonzero(), val, regular)

    return fetch_masked
