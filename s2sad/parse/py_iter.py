"""What a ``for`` loop or a comprehension iterates over, and what each iteration binds.

Python loops over anything iterable; the IR has one loop that counts (``for`` over
``range(lb, ub, step)``). So an iterable is accepted where its length is known when the loop
starts and its k-th item can be computed from k, which holds for what numeric code loops over:

* ``range(...)`` and ``numba.prange(...)``: the index is the item;
* ``reversed(range(a, b, s))``: the same range counted down (``range(b - 1, a - 1, -1)``);
* an array (its elements; a matrix's rows) or a list: ``len`` of it, and item k is ``x[k]``;
  ``reversed(x)``: ``x[len(x) - 1 - k]``;
* ``enumerate(it, start)``: ``(start + k, item k of it)``;
* ``zip(a, b, ...)``: the shortest of their lengths, and item k of each.

Python evaluates the iterable once, before the first iteration, and so does the lowering: a loop
over ``x`` reads the array ``x`` named when the loop began, even if the body binds ``x`` anew.

This module reads the syntax (``read_iter``, ``leaves``), which type inference and lowering
share, and lowers the parts that do not depend on the kind of loop (``Iteration``): what is
evaluated before the loop, the trip count, and each name's value in iteration k. The loops
themselves are built by ``py_lower`` (statements) and ``py_comprehension`` (expressions).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Union

import libcst as cst

from ..ssa import build
from ..ssa.ir import Builder, Value
from ..ssa.types import I64
from . import py_intrinsics as lib
from .py_common import Env, Fail
from .py_module import dotted_source


@dataclass(frozen=True, eq=False)
class RangeIter:
    """``range(...)`` or ``prange(...)``, counted down when ``reverse`` (``reversed(range(...))``)."""

    node: cst.BaseExpression  # the iterable as written
    call: cst.Call  # the range(...) call
    parallel: bool
    reverse: bool


@dataclass(frozen=True, eq=False)
class ItemsIter:
    """The items of an array (elements, or a matrix's rows) or a list; last first when ``reverse``."""

    node: cst.BaseExpression
    seq: cst.BaseExpression
    reverse: bool


@dataclass(frozen=True, eq=False)
class EnumerateIter:
    node: cst.Call
    inner: "Iter"
    start: Optional[cst.BaseExpression]


@dataclass(frozen=True, eq=False)
class ZipIter:
    node: cst.Call
    parts: tuple["Iter", ...]


Iter = Union[RangeIter, ItemsIter, EnumerateIter, ZipIter]


@dataclass(frozen=True, eq=False)
class Counter:
    """What ``enumerate`` binds first: ``start + k``."""

    of: EnumerateIter


Leaf = Union[RangeIter, ItemsIter, Counter]  # what one name of the loop's target is bound to


def positional(call: cst.Call) -> list[cst.BaseExpression]:
    return [a.value for a in call.args if a.keyword is None and not a.star]


class IterError(Exception):
    """An iterable or target s2sad does not lower, with where and why (lowering reports it)."""

    def __init__(self, node: cst.CSTNode, message: str, hint: str = ""):
        super().__init__(message)
        self.node, self.message, self.hint = node, message, hint


HINT = "loop over range(...), an array, a list, enumerate(...), zip(...) or reversed(...) of them"


def read_iter(node: cst.BaseExpression, canonical: Callable[[cst.BaseExpression], Optional[str]]) -> Iter:
    """What ``for ... in node`` iterates over (``canonical``: a callee's library name, if any)."""
    if isinstance(node, cst.Call):
        name = canonical(node.func)
        args = positional(node)
        plain = len(args) == len(node.args)
        if name in (lib.RANGE, lib.PRANGE):
            if not plain or not 1 <= len(args) <= 3:
                raise IterError(node, "range(...) takes 1 to 3 positional arguments")
            return RangeIter(node, node, name == lib.PRANGE, False)
        if name == "builtins.reversed":
            if not plain or len(args) != 1:
                raise IterError(node, "reversed(...) takes one argument")
            inner = read_iter(args[0], canonical)
            if isinstance(inner, RangeIter) and not inner.parallel:
                return RangeIter(node, inner.call, False, not inner.reverse)
            if isinstance(inner, ItemsIter):
                return ItemsIter(node, inner.seq, not inner.reverse)
            raise IterError(node, "reversed(...) is supported over range(...), an array or a list",
                            hint="reverse the inner sequence, or count down: for k in range(n - 1, -1, -1)")
        if name == "builtins.enumerate":
            start = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "start"), None)
            if len(args) == 2 and start is None:
                start = args[1]
            if not 1 <= len(args) <= 2 or len(node.args) - len(args) > (1 if len(args) == 1 else 0):
                raise IterError(node, "enumerate(...) takes an iterable and a start")
            return EnumerateIter(node, read_iter(args[0], canonical), start)
        if name == "builtins.zip":
            if not plain or not args:
                raise IterError(node, "zip(...) takes iterables as positional arguments",
                                hint="zip(x, y): the strict= keyword is not supported")
            return ZipIter(node, tuple(read_iter(a, canonical) for a in args))
        if name is not None and name.startswith("builtins.") and name not in _SEQUENCES:
            raise IterError(node, f"cannot loop over '{dotted_source(node.func)}(...)'", hint=HINT)
    if isinstance(node, (cst.Dict, cst.Set, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString,
                         cst.Integer, cst.Float, cst.GeneratorExp, cst.DictComp, cst.SetComp)):
        raise IterError(node, "cannot loop over this value", hint=HINT)
    return ItemsIter(node, node, False)


# Built-in calls whose value is a sequence (lowering checks what it is).
_SEQUENCES = ("builtins.list", "builtins.sorted")


def leaves(target: cst.BaseExpression, it: Iter) -> list[tuple[cst.Name, Leaf]]:
    """The names ``target`` binds, each with what it is bound to (``for i, (a, b) in
    enumerate(zip(x, y))``: i to the counter, a and b to items of x and y)."""
    if isinstance(it, (EnumerateIter, ZipIter)):
        parts: list[tuple[object, Iter]] = ([(Counter(it), it)] if isinstance(it, EnumerateIter) else [])
        inner = [it.inner] if isinstance(it, EnumerateIter) else list(it.parts)
        parts += [(p, p) for p in inner]
        if not isinstance(target, (cst.Tuple, cst.List)) or len(target.elements) != len(parts):
            what = "enumerate(...) gives pairs" if isinstance(it, EnumerateIter) else \
                f"zip(...) gives {len(parts)} items at a time"
            example = "i, v" if isinstance(it, EnumerateIter) else ", ".join("abcdefgh"[:len(parts)])
            raise IterError(target, f"{what}: unpack them into as many names", hint=f"for {example} in ...")
        out: list[tuple[cst.Name, Leaf]] = []
        for el, (leaf, sub) in zip(target.elements, parts):
            if isinstance(leaf, Counter):
                out += [(_name(el.value), leaf)]
            else:
                out += leaves(el.value, sub)
        return out
    if isinstance(target, (cst.Tuple, cst.List)):
        raise IterError(target, "unpacking the items of this loop is not supported",
                        hint="loop over an index and take each part: for k in range(n): a, b = x[k, 0], x[k, 1]")
    return [(_name(target), it)]


def _name(target: cst.BaseExpression) -> cst.Name:
    if not isinstance(target, cst.Name):
        raise IterError(target, "the loop variable must be a name (or a tuple of names for enumerate and zip)")
    return target


# -- lowering --------------------------------------------------------------------------------


class Lowerer:
    """What ``Iteration`` needs of the expression lowerer (``py_expr.ExprLowerer``)."""

    def at(self, b: Builder, node: cst.CSTNode) -> Builder: ...

    def fail(self, node: cst.CSTNode, message: str, hint: str = "") -> Fail: ...

    def integer(self, node: cst.BaseExpression, b: Builder, env: Env, what: str) -> Value: ...

    def sequence(self, node: cst.BaseExpression, b: Builder, env: Env
                 ) -> tuple[Value, Callable[[Builder, Value], Value]]: ...


def range_bounds(lw: Lowerer, it: RangeIter, b: Builder, env: Env) -> tuple[Value, Value, Value]:
    """``lb, ub, step`` of the range (counted down for ``reversed``), evaluated in order."""
    args = positional(it.call)
    bounds = [lw.integer(a, b, env, "a range() bound") for a in args]
    lw.at(b, it.call)
    lb = bounds[0] if len(bounds) > 1 else build.const(b, 0, I64)
    ub = bounds[1] if len(bounds) > 1 else bounds[0]
    step = bounds[2] if len(bounds) == 3 else build.const(b, 1, I64)
    s = build.const_value(step)
    if s == 0:
        raise lw.fail(args[2], "range() step must not be zero")
    if not it.reverse:
        return lb, ub, step
    lw.at(b, it.node)
    if s is None:
        raise lw.fail(it.node, "reversed(range(...)) needs a constant step",
                      hint="count down explicitly: range(start, stop, -step)")
    one = build.const(b, 1, I64)
    if s == 1:  # range(a, b) reversed: range(b - 1, a - 1, -1)
        return build.sub(b, ub, one), build.sub(b, lb, one), build.const(b, -1, I64)
    if s == -1:
        return build.add(b, ub, one), build.add(b, lb, one), one
    # The last item a + (n - 1) * s, down to (but not reaching) a - s, by -s; an empty range stays
    # empty (its "last item" is then at or beyond a - s).
    n = range_length(b, lb, ub, step)
    last = build.add(b, lb, build.mul(b, build.sub(b, n, one), step))
    return last, build.sub(b, lb, step), build.const(b, -s, I64)


def range_length(b: Builder, lb: Value, ub: Value, step: Value) -> Value:
    """``len(range(lb, ub, step))`` for a constant step: ``max(0, ceil((ub - lb) / step))``."""
    s = build.const_value(step)
    assert s is not None and s != 0
    span = build.sub(b, ub, lb) if s > 0 else build.sub(b, lb, ub)
    if abs(s) != 1:
        span = build.binary(b, "floordiv", build.add(b, span, build.const(b, abs(s) - 1, I64)),
                            build.const(b, abs(s), I64))
    zero = build.const(b, 0, I64)
    c = build.const_value(span)
    return build.const(b, max(0, c), I64) if c is not None else build.math(b, "max", zero, span)


class Iteration:
    """A loop over ``it``, lowered as ``for k in range(length)``: built before the loop (the
    sequences and bounds evaluated, the length counted), then ``bind`` gives each name its
    value in iteration k."""

    def __init__(self, lw: Lowerer, it: Iter, b: Builder, env: Env):
        self.lw = lw
        self.items: dict[int, Callable[[Builder, Value], Value]] = {}  # id(leaf) -> item k
        self.length = self._prepare(it, b, env)

    def _prepare(self, it: Iter, b: Builder, env: Env) -> Value:
        lw = self.lw
        if isinstance(it, RangeIter):
            if it.parallel:
                raise lw.fail(it.node, "prange(...) is supported only as the iterable of a for loop itself",
                              hint="loop over prange(n) directly")
            lb, ub, step = range_bounds(lw, it, b, env)
            if build.const_value(step) is None:
                raise lw.fail(it.call, "a range with a variable step is supported only as a for loop's own "
                              "iterable", hint="make the step a constant")
            self.items[id(it)] = lambda bb, k: build.add(bb, lb, build.mul(bb, k, step))
            return range_length(lw.at(b, it.node), lb, ub, step)
        if isinstance(it, ItemsIter):
            length, item = lw.sequence(it.seq, b, env)
            if it.reverse:
                def backwards(bb: Builder, k: Value) -> Value:
                    last = build.sub(lw.at(bb, it.node), length, build.const(bb, 1, I64))
                    return item(bb, build.sub(bb, last, k))
                self.items[id(it)] = backwards
            else:
                self.items[id(it)] = item
            return length
        if isinstance(it, EnumerateIter):
            length = self._prepare(it.inner, b, env)
            start = lw.integer(it.start, b, env, "enumerate's start") if it.start is not None else None
            self.items[id(it)] = (lambda bb, k: build.add(lw.at(bb, it.node), k, start)) if start is not None \
                else (lambda bb, k: k)
            return length
        lengths = [self._prepare(p, b, env) for p in it.parts]
        out = lengths[0]
        for n in lengths[1:]:  # zip stops with the shortest
            out = build.math(lw.at(b, it.node), "min", out, n)
        return out

    def value(self, leaf: Leaf, b: Builder, k: Value) -> Value:
        """What ``leaf`` is bound to in iteration ``k``."""
        key = id(leaf.of) if isinstance(leaf, Counter) else id(leaf)
        return self.items[key](b, k)
