"""Integer values as affine forms, and the extents of slices they show.

A name rebound in a loop keeps the shape it had before the loop only where that is evident
(``py_lower``, ``refill``); extents are compared by key (``py_arrays.extent_keys``). Keys made by
different computations of one quantity (``np.ones(n - p)`` before the loop, the lagged slice
``x[p - 1 - j:n - 1 - j]`` in it) differ as keys but agree as sums: this module reads an integer
value as ``sum(coeff * atom) + const`` (atoms: an array's extent, an integer value nothing here
reads further), and a slice's extent (the ``("span", ...)`` key) as ``hi - lo``.

A slice ``a[lo:hi]`` is ``hi - lo`` long only where Python neither counts a bound from the end
nor stops it at the end: ``0 <= lo <= hi <= len(a)``. ``lo >= 0`` and ``hi <= len(a)`` are proven
from what the loops being lowered tell of their indices (``range(lb, ub)``: ``lb <= j <= ub - 1``)
and extents being at least 0 (``nonnegative``); ``lo <= hi`` follows where the span is compared
with an extent NumPy made from the same sum (an array of extent ``hi - lo`` exists, so
``hi - lo >= 0``), which is why a span alone stands for no extent (``same``).
"""

from __future__ import annotations

from typing import Callable, Optional

from ..ssa import build
from ..ssa.ir import Value

# An affine form: the (atom, coefficient) pairs (coefficients not 0) and a constant. An atom is an
# integer Value or an (array, axis) pair standing for that array's extent.
Affine = tuple[frozenset, int]
# The bounds known of an atom: its least and greatest values, as affine forms where known.
Bounds = Callable[[object], tuple[Optional[Affine], Optional[Affine]]]


def const(c: int) -> Affine:
    return frozenset(), c


def atom(a: object) -> Affine:
    return frozenset([(a, 1)]), 0


def combine(x: Affine, y: Affine, scale: int = 1) -> Affine:
    """``x + scale * y``."""
    terms = dict(x[0])
    for a, c in y[0]:
        terms[a] = terms.get(a, 0) + scale * c
    return frozenset((a, c) for a, c in terms.items() if c), x[1] + scale * y[1]


def of_int(v: Value, extent: Callable[[Value, int], Optional[Affine]], depth: int = 16) -> Affine:
    """The integer ``v`` as an affine form: through constants, sums, differences, negation and
    products by a constant; an extent (``dim``) as ``extent`` reads it (else the array's extent
    itself); anything else an atom of its own."""
    c = build.const_int(v)
    if c is not None:
        return const(c)
    op = v.defining_op
    if op is None or not depth:
        return atom(v)
    if op.name == "dim":
        arr, axis = op.operands[0], op.attrs["axis"]
        return extent(arr, axis) or atom((arr, axis))
    if op.name in ("add", "sub", "mul"):
        x, y = (of_int(o, extent, depth - 1) for o in op.operands)
        if op.name != "mul":
            return combine(x, y, 1 if op.name == "add" else -1)
        for k, m in ((x, y), (y, x)):
            if not k[0]:
                return frozenset((a, c * k[1]) for a, c in m[0] if c * k[1]), m[1] * k[1]
    if op.name == "neg":
        x = of_int(op.operands[0], extent, depth - 1)
        return frozenset((a, -c) for a, c in x[0]), -x[1]
    return atom(v)


def nonnegative(form: Affine, bounds: Bounds) -> bool:
    """Whether ``form >= 0`` follows from the atoms' bounds: an atom that lowers the sum (by its
    coefficient's sign) is replaced by its bound that does so least (``p - 1 - j`` with
    ``j <= p - 1``: 0), until only atoms of a constant least value remain, raising it."""
    for _ in range(8):
        out: Affine = (frozenset(), form[1])
        moved = False
        for a, c in form[0]:
            low, high = bounds(a)
            bound = high if c < 0 else low
            if bound is not None and bound[0]:  # an affine bound: substitute it
                out, moved = combine(out, bound, c), True
            else:
                out = combine(out, atom(a), c)
        form = out
        if not moved:
            break
    total = form[1]
    for a, c in form[0]:
        low, high = bounds(a)
        bound = high if c < 0 else low
        if bound is None or bound[0]:
            return False
        total += c * bound[1]
    return total >= 0
