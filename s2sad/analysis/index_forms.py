"""Integer index expressions as mixed-radix numbers: which owner an address belongs to.

The race analysis (``accumulation``) must know whether two threads of a kernel, or two
iterations of a parallel loop (the *owners*), can ever touch one element of an array.
The index expressions of numerical kernels are affine: ``i``, ``2 * i + 1``,
``row * w + col``, ``i * m + j`` with ``j`` the counter of a loop inside the thread.
This module writes such an index as a sum of *digits*, each an *atom* times a
coefficient, plus an offset:

* atoms are what varies between owners or within one: a thread coordinate
  (``threadIdx.x``, ``blockIdx.y``, or their usual combination, the global id
  ``blockIdx.x * blockDim.x + threadIdx.x``), the parallel loop's counter, the counter
  of a loop nested in the owner;
* coefficients and the offset are built from *uniform* values (the same for every
  owner: constants, scalar parameters, ``blockDim``, values defined before the
  parallel loop), kept symbolically as products of opaque factors, so that
  ``i * m + j`` is seen to have the digit ``i`` of weight ``m`` above the digit ``j``
  of range ``m``.

When the digits form a mixed-radix number -- the lowest weight a nonzero constant, and
every next weight the previous weight times the previous digit's range -- an address
fixes every digit. When the owner's own digits are among them, an address fixes the
owner: no two owners meet at an element, and a plain ``+=`` is race-free.

A digit's range is where the atom lies: ``threadIdx.x`` in ``[0, blockDim.x)``,
``blockIdx.x`` in ``[0, gridDim.x)``, a loop counter ``for (j = 0; j < m; j++)`` (or its
reverse-sweep mirror) in ``[0, m)``, and a global id in ``[0, n)`` where the access
sits under a guard ``if (i < n)`` (else in ``[0, gridDim.x * blockDim.x)``). The highest
digit needs no range, so it may be anything: a value with no affine form (``i / 2``,
a trip count), or several such values of one weight added up. That is what makes a
grid-stride loop's counter, ``gid + stride * k``, and its reversed mirror,
``gid + stride * (trips - 1) - stride * k'``, two forms of the thread's own elements.

Two accesses agree on owners when their ``owner_key``s are equal: the same owner digits
with the same weights and ranges, and what lies under the lowest of them within its weight
(``3 * i``, ``3 * i + 1`` and ``3 * i + j`` with ``j`` in ``[0, 3)`` are thread ``i``'s).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations
from typing import Callable, Hashable, Optional

from ..ssa.build import const_int
from ..ssa.gpu import AXES
from ..ssa.ir import Op, Value

Factors = tuple  # sorted structural keys of uniform values: a product, symbolically
Coef = tuple[int, Factors]  # integer times the product of the factors
Form = dict[tuple[Optional[Hashable], Factors], int]  # (atom or None for the offset, factors) -> integer
_MAX_DIGITS = 6  # more digits than any numerical index has: the search over orders stays small


def thread_atom(kind: str, axis: str) -> tuple[str, str]:
    """``("tid" | "bid" | "gid", axis)``: threadIdx, blockIdx, or the global id of ``axis``."""
    return (kind, axis)


def loop_atom(loop: Op) -> tuple[str, Op]:
    """The counter of ``loop``, a loop inside one owner."""
    return ("loop", loop)


OWNER = ("owner",)  # the counter of the parallel loop whose iterations are the owners
OPAQUE = "opaque"  # ("opaque", value): an integer with no affine form
MERGED = "merged"  # several digits of one weight, added up
# The atoms a guard ``a < u`` bounds to [0, u): those that cannot be negative.
_NONNEGATIVE = frozenset(thread_atom(kind, axis) for kind in ("tid", "bid", "gid") for axis in AXES)


def loop_counter(v: Value) -> Optional[Op]:
    """The ``for`` whose counter ``v`` is."""
    if not v.is_block_arg:
        return None
    loop = v.owner.parent_op
    if loop is not None and loop.name == "for" and v is loop.regions[0].args[0]:
        return loop
    return None


@dataclass
class IndexForms:
    """Affine forms of index expressions for one analysis.

    ``uniform(v)``: ``v`` is the same for every owner. ``atom(v)``: the atom ``v`` is (a thread
    built-in, a loop counter), or None. ``key(v)``: a structural key, equal for values equal
    in every owner. ``dim_key(name, axis)``: the key of the built-in ``name`` on ``axis``
    (``blockDim.x``), for recognizing global ids (None outside kernels)."""

    uniform: Callable[[Value], bool]
    atom: Callable[[Value], Optional[Hashable]]
    key: Callable[[Value], Hashable]
    dim_key: Callable[[str, str], Hashable] = lambda name, axis: None

    # -- forms ------------------------------------------------------------------------------
    def form(self, v: Value) -> Optional[Form]:
        """``v`` as digits and offset, with the global ids of thread coordinates merged."""
        f = self._form(v)
        return None if f is None else self._merge_global_ids(f)

    def _form(self, v: Value) -> Optional[Form]:
        if not v.type.is_int:
            return None
        if self.uniform(v):
            c, factors = self.coef(v)
            return {(None, factors): c} if c else {}
        loop = loop_counter(v)
        if loop is not None and not self.uniform(loop.operands[0]) and self.uniform(loop.operands[2]):
            # A loop that starts where the owner says (a grid-stride loop: i = gid, i += stride)
            # visits start + stride * k, k = 0, 1, ...: the start's digits, then k's.
            start = self._form(loop.operands[0])
            return None if start is None else _add(start, _scale({(("iteration", loop), ()): 1}, self.coef(
                loop.operands[2])))
        a = self.atom(v)
        if a is not None:
            return {(a, ()): 1}
        op = v.defining_op
        if op is not None and not op.regions:
            if op.name == "cast" and op.operands[0].type.is_int:
                return self._form(op.operands[0])
            if op.name in ("add", "sub"):
                a_form, b_form = self._form(op.operands[0]), self._form(op.operands[1])
                if a_form is None or b_form is None:
                    return None
                return _add(a_form, _scale(b_form, (1 if op.name == "add" else -1, ())))
            if op.name == "neg":
                f = self._form(op.operands[0])
                return None if f is None else _scale(f, (-1, ()))
            if op.name == "mul":
                for x, y in (op.operands, reversed(op.operands)):
                    if self.uniform(y):
                        f = self._form(x)
                        return None if f is None else _scale(f, self.coef(y))
        # Anything else (a load, a division, a product of two varying values) is a digit of its
        # own with no known range: harmless as the highest digit, where it may be any integer.
        return {((OPAQUE, v), ()): 1}

    def coef(self, u: Value) -> Coef:
        """A uniform integer as a coefficient: its constant, or a product of opaque factors."""
        c = const_int(u)
        if c is not None:
            return (c, ())
        op = u.defining_op
        if op is not None and op.name == "mul" and all(self.uniform(o) for o in op.operands):
            return _times(self.coef(op.operands[0]), self.coef(op.operands[1]))
        if op is not None and op.name == "cast" and op.operands[0].type.is_int:
            return self.coef(op.operands[0])
        if op is not None and op.name == "neg":
            c, factors = self.coef(op.operands[0])
            return (-c, factors)
        return (1, (self.key(u),))

    def _merge_global_ids(self, f: Form) -> Form:
        """``threadIdx.a * w + blockIdx.a * (blockDim.a * w)`` -> ``gid.a * w``."""
        out = dict(f)
        for axis in AXES:
            dim = self.dim_key("gpu.block_dim", axis)
            if dim is None:
                continue
            tids = [(k, c) for k, c in out.items() if k[0] == thread_atom("tid", axis)]
            bids = [(k, c) for k, c in out.items() if k[0] == thread_atom("bid", axis)]
            if len(tids) == 1 and len(bids) == 1:
                (tk, tc), (bk, bc) = tids[0], bids[0]
                if (bc, bk[1]) == _times((tc, tk[1]), (1, (dim,))):
                    del out[tk], out[bk]
                    out[(thread_atom("gid", axis), tk[1])] = tc
        return out

    # -- ranges -----------------------------------------------------------------------------
    def guards(self, op: Op) -> dict[Hashable, Coef]:
        """Upper bounds of atoms from the conditions of the ``if``s around ``op``: ``if (i < n)``
        around it, or ``if (i >= n) return;`` before it (``op`` in the else branch). The
        atoms are nonnegative already."""
        out: dict[Hashable, Coef] = {}
        region = op.parent
        while region is not None and region.parent_op is not None:
            owner = region.parent_op
            if owner.name == "if":
                self._facts(owner.operands[0], owner.regions[0] is region, out)
            region = owner.parent
        return out

    _BELOW = {("lt", True): 0, ("ge", False): 0, ("gt", True): 1, ("le", False): 1}  # -> position of the low side

    def _facts(self, cond: Value, holds: bool, out: dict[Hashable, Coef]) -> None:
        """The bounds ``atom < uniform`` that follow from ``cond`` being ``holds``."""
        op = cond.defining_op
        if op is None:
            return
        if (op.name, holds) in (("and", True), ("or", False)):
            for c in op.operands:
                self._facts(c, holds, out)
        elif op.name == "not":
            self._facts(op.operands[0], not holds, out)
        elif (op.name, holds) in self._BELOW and op.operands[0].type.is_int:
            k = self._BELOW[(op.name, holds)]
            low, high = op.operands[k], op.operands[1 - k]
            f = self.form(low)
            if f is not None and len(f) == 1 and self.uniform(high):
                ((atom, factors), c), = f.items()
                if atom in _NONNEGATIVE and factors == () and c == 1:
                    out.setdefault(atom, self.coef(high))

    def loop_range(self, loop: Op) -> Optional[Coef]:
        """``m`` for ``for (j = c; j < m; j++)`` (``c >= 0`` a constant: ``j`` lies in ``[0, m)``)
        and for its mirror ``for (j = m - 1; j >= c; j--)``; None for other bounds (the counter
        may still be the highest digit)."""
        lb, ub, step = loop.operands[:3]
        low = const_int(lb) if const_int(step) == 1 else const_int(ub) if const_int(step) == -1 else None
        if low is None or low < (0 if const_int(step) == 1 else -1):
            return None
        if const_int(step) == 1 and self.uniform(ub):
            return self.coef(ub)
        if const_int(step) == -1:
            top = const_int(lb)
            if top is not None:  # for (k = 3; k >= 0; k--): k in [0, 4)
                return (top + 1, ()) if top >= 0 else None
            sub = lb.defining_op
            if (sub is not None and sub.name == "sub" and const_int(sub.operands[1]) == 1
                    and self.uniform(sub.operands[0])):
                return self.coef(sub.operands[0])
        return None

    # -- ownership --------------------------------------------------------------------------
    def digits(self, f: Form, ranges: Callable[[Hashable], Optional[Coef]]) -> Optional[tuple]:
        """The digits of ``f`` from the lowest, as ``(atom, weight, range)`` (the highest with
        range None), when they form a mixed-radix number; else None. Digits of the owner's own
        work (loop counters, opaque values) that share a weight up to sign add up to one digit
        of that weight (``first + stride * k`` and ``- stride * k'`` of a reversed grid-stride
        loop), which can only be the highest."""
        terms = [(atom, (c, factors)) for (atom, factors), c in f.items() if atom is not None]
        merged: dict[tuple, list] = {}
        for atom, (c, factors) in terms:
            if is_inner(atom):
                merged.setdefault((abs(c), factors), []).append(atom)
        terms = [(atom, w) for atom, w in terms if not (is_inner(atom) and len(merged[(abs(w[0]), w[1])]) > 1)]
        terms += [((MERGED, tuple(map(repr, atoms))), w) for w, atoms in merged.items() if len(atoms) > 1]
        atoms = [a for a, _ in terms]
        if not terms or len(set(atoms)) != len(atoms) or len(terms) > _MAX_DIGITS:
            return None
        for order in permutations(terms):
            weight = order[0][1]
            if weight[1] != () or weight[0] == 0:
                continue
            out = []
            for (atom, w), nxt in zip(order, order[1:] + (None,)):
                r = ranges(atom) if nxt is not None else None
                if nxt is not None and (r is None or nxt[1] != _times(w, r)):
                    break
                out.append((atom, w, r))
            else:
                return tuple(out)
        return None


def is_inner(atom: Hashable) -> bool:
    """A digit of one owner's own work: a loop counter or an opaque value, not a thread index."""
    return isinstance(atom, tuple) and atom[0] in ("loop", "iteration", OPAQUE, MERGED)


def offset(f: Form, digits: tuple = ()) -> tuple:
    """The uniform part of a form, as a comparable key; with ``digits`` whose highest is the
    owner's own work (any integer), without the multiples of that digit's weight it absorbs."""
    top = digits[-1] if digits and is_inner(digits[-1][0]) else None
    out = []
    for (atom, factors), c in f.items():
        if atom is not None:
            continue
        if top is not None and factors == top[1][1] and c % top[1][0] == 0:
            continue
        out.append((factors, c))
    return tuple(sorted(out, key=repr))


def owner_key(f: Form, digits: tuple) -> tuple:
    """What an address of the form ``f`` (with mixed-radix ``digits``) says of its owner; two
    accesses with equal keys never meet across owners.

    Each owner digit (a thread index, the parallel loop's counter) of weight ``W`` and range
    ``R`` is ``floor(address / W) mod R`` (no ``mod`` for the highest) as long as what lies
    under ``W`` stays in ``[0, W)``: digits of the owner's own work below it (a loop counter
    ``j`` in ``3 * i + j``, from a positive lowest weight) or a constant offset short of it
    (``3 * i + 1``). Such forms are keyed by their owner digits alone, so ``x[3 * i]``,
    ``x[3 * i + 1]`` and ``x[3 * i + j]`` (``j`` in ``[0, 3)``) share an owner. Any other form
    keeps its whole digit structure and offset in the key (only equal forms then match)."""
    owners = tuple((a, w, r) for a, w, r in digits if not is_inner(a))
    off = offset(f, digits)
    lowest = next(k for k, d in enumerate(digits) if not is_inner(d[0]))
    w0, weight = digits[0][1], digits[lowest][1]
    in_range = w0[1] == () and w0[0] > 0 and (
        not off or (lowest == 0 and weight[1] == () and len(off) == 1 and off[0][0] == ()
                    and 0 <= off[0][1] < weight[0]))
    if in_range:
        return ("owners", owners)
    return ("form", tuple(("inner" if is_inner(a) else a, w, r) for a, w, r in digits), off)


def _times(a: Coef, b: Coef) -> Coef:
    return (a[0] * b[0], tuple(sorted(a[1] + b[1], key=repr)))


def _scale(f: Form, by: Coef) -> Form:
    out: Form = {}
    for (atom, factors), c in f.items():
        c2, f2 = _times((c, factors), by)
        if c2:
            out[(atom, f2)] = out.get((atom, f2), 0) + c2
    return {k: c for k, c in out.items() if c}


def _add(a: Form, b: Form) -> Form:
    out = dict(a)
    for k, c in b.items():
        out[k] = out.get(k, 0) + c
    return {k: c for k, c in out.items() if c}
