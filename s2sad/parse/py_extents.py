"""Extents the Python front end compares and makes again: one evident extent of several arrays.

``py_arrays.extent_keys`` tells what an array's extent along an axis is made from (a constant,
an integer, another array's extent, a slice's span). Here: whether several such keys stand for
one extent as sums (``same_sum``, ``py_affine``: ``np.ones(n - p)`` and ``x[p - 1 - j:n - 1 - j]``
with ``j`` in ``range(p)``), and that one extent made again where code that runs before the
arrays were made needs it (``made_before``: the array an ``if``'s branches fill, allocated before
the ``if``; the buffer of a comprehension of arrays, allocated before its loops).
"""

from __future__ import annotations

from typing import Optional, Protocol, Sequence

from ..ssa import build
from ..ssa.ir import Block, Builder, Value
from ..ssa.types import I64
from . import py_affine, py_arrays


class Bounds(Protocol):
    """What the expression lowering knows of its integers (``py_expr.ExprLowerer``)."""

    index_ranges: dict

    def lower_bound(self, v: Value) -> Optional[int]: ...


def same_sum(lw: Bounds, keys: frozenset) -> bool:
    """Whether the extents ``keys`` stand for are one as sums (``py_affine``). A slice's span counts
    only where its bounds are evidently within the array (``0 <= lo``, ``hi <= len``), and only
    beside an extent made of the same sum (which shows ``lo <= hi``)."""
    forms, plain = set(), False
    for key in keys:
        if isinstance(key, tuple) and key and key[0] == "span":
            _, lo, hi, arr, k = key
            low, high = int_form(lo), int_form(hi)
            room = py_affine.combine(py_affine.atom((arr, k)), high, -1)
            bounds = _atom_bounds(lw)
            if not (py_affine.nonnegative(low, bounds) and py_affine.nonnegative(room, bounds)):
                return False
            forms.add(py_affine.combine(high, low, -1))
            continue
        form = key_form(key)
        if form is None:
            return False
        forms.add(form)
        plain = True
    return plain and len(forms) == 1


def never_negative(lw: Bounds, v: Value) -> bool:
    """Whether the integer ``v`` is at least 0 wherever it is computed, as a sum of what the loops
    tell of their indices and extents (``n - 1 - i`` with ``i`` in ``range(n)``): an index Python
    need not count from the end."""
    return py_affine.nonnegative(int_form(v), _atom_bounds(lw))


def positive_where_used(lw: Bounds, d: Value, x: Value) -> bool:
    """Whether ``d`` is positive wherever ``x`` is computed: ``x`` reads the index of a loop over
    ``range(lb, d)`` with ``lb >= 0``, so it is computed in that loop's body, where ``d > lb``
    (``(i + 1) % n`` in ``for i in range(n)``: Python's ``%`` is then at least 0)."""
    for a, _ in int_form(x)[0]:
        if isinstance(a, Value) and a in lw.index_ranges:
            (low, _), (high, dhigh) = lw.index_ranges[a]
            least = lw.lower_bound(low)
            if high is d and dhigh == -1 and least is not None and least >= 0:
                return True
    return False


def key_form(key: object) -> Optional[py_affine.Affine]:
    """An extent key (``py_arrays.extent_keys``) as an affine form; None for a slice's span."""
    if isinstance(key, tuple) and len(key) == 2 and key[0] == "const" and isinstance(key[1], int):
        return py_affine.const(key[1])
    if isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], Value):
        return py_affine.atom(key)
    if isinstance(key, Value):
        return int_form(key)
    return None


def int_form(v: Value) -> py_affine.Affine:
    """The integer ``v`` as an affine form, an array's extent read through its key."""
    def extent(arr: Value, axis: int) -> Optional[py_affine.Affine]:
        keys = py_arrays.extent_keys(arr, axis)
        return key_form(next(iter(keys))) if keys is not None and len(keys) == 1 else None
    return py_affine.of_int(v, extent)


def _atom_bounds(lw: Bounds) -> py_affine.Bounds:
    """The least and greatest values of an atom of an affine form: an extent is at least 0; a
    loop's index lies in its range (``index_ranges``); else what ``lower_bound`` shows."""
    def bounds(a: object) -> tuple[Optional[py_affine.Affine], Optional[py_affine.Affine]]:
        if isinstance(a, tuple):
            return py_affine.const(0), None
        assert isinstance(a, Value)
        if a in lw.index_ranges:
            (low, dlow), (high, dhigh) = lw.index_ranges[a]
            return (py_affine.combine(int_form(low), py_affine.const(dlow)),
                    py_affine.combine(int_form(high), py_affine.const(dhigh)))
        least = lw.lower_bound(a)
        return (py_affine.const(least) if least is not None else None), None
    return bounds


def made_before(lw: Bounds, values: Sequence[Value], axis: int, inside: Sequence[Block]) -> Optional[object]:
    """The extent along ``axis`` that each of ``values`` evidently has, as a key (``make``
    makes it) that code before the blocks ``inside`` (which made the values) can read: a constant,
    an integer or an array's extent that is not made there; None where there is none."""
    keys: set = set()
    for v in values:
        found = py_arrays.extent_keys(v, axis)
        if found is None:
            return None
        keys |= found
    if not keys or len(keys) > 1 and not same_sum(lw, frozenset(keys)):
        return None
    for key in sorted(keys, key=lambda k: 0 if isinstance(k, tuple) and k[0] == "const" else 1):
        if isinstance(key, tuple) and len(key) == 2 and key[0] == "const" and isinstance(key[1], int):
            return key
        if isinstance(key, Value) and key.type == I64 and not made_in(key, inside):
            return key
        if isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], Value) and not made_in(key[0], inside):
            return key
    return None


def make(b: Builder, key: object) -> Value:
    """The extent a key of ``made_before`` stands for, made where ``b`` builds."""
    if isinstance(key, Value):
        return key
    assert isinstance(key, tuple)
    if key[0] == "const":
        return build.const(b, key[1], I64)
    return b.op1("dim", [key[0]], I64, axis=key[1])


def made_in(v: Value, blocks: Sequence[Block]) -> bool:
    """Whether ``v`` is made in one of ``blocks`` or in a block nested in one. (An op's operands
    are made before it: a value code there reads and that is not made there is made before.)"""
    block: Optional[Block] = v.owner if v.is_block_arg else v.defining_op.parent  # type: ignore[union-attr]
    while block is not None:
        if any(block is x for x in blocks):
            return True
        block = block.parent_op.parent if block.parent_op is not None else None
    return False
