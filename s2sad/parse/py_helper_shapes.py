"""What a caller knows of the arrays a helper of the file returns and takes.

A helper's array result is made in the helper, so the caller's lowering cannot see its extents
(``py_arrays.extent_keys`` follows the ops that made an array): ``state = state + dt *
rhs(state)`` in a loop would not be evidently of ``state``'s shape. And a helper that unpacks
a parameter (``x, y = state``) needs its length, which only its callers show. So each helper,
lowered before its callers, leaves two facts here:

* ``results``: for each value it returns, for each axis, the extent as the callee spells it
  from what it is given: ``("const", 2)``, ``("int", k)`` (the value of its ``k``-th
  parameter), ``("dim", k, axis)`` (an extent of its ``k``-th parameter), ``("meet", spec,
  ...)`` (the one extent NumPy gives elementwise operands of those extents: ``np.where(a * b >
  0.0, a, b)`` of parameters ``a`` and ``b``), or None where it is none of these (or differs
  from one ``return`` to another). Each call carries them in its
  ``RESULT_EXTENTS`` attribute, which ``extent_keys`` reads in the caller's terms; the front end
  drops the attribute once every function is lowered.
* ``required``: the extents its code assumes of its parameters (``Required``), which each call
  must show (or, in the function differentiated, leave to the gradient's entry check, or in a
  helper, require of its own callers in turn).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

from ..ssa.ir import Function, Module, Value
from . import py_arrays
from .py_arrays import RESULT_EXTENTS

__all__ = ["RESULT_EXTENTS", "REQUIRED_EXTENTS", "HelperShapes", "Required", "forget", "shapes_of"]

# The attribute of a lowered helper listing what it assumes of its parameters' extents.
REQUIRED_EXTENTS = "required_extents"

Spec = Optional[tuple]


@dataclass(frozen=True)
class Required:
    """The helper's ``param``-th parameter must be ``count`` long along ``axis``: a number, or
    ``("dim", k, a)``, as long as its ``k``-th parameter along axis ``a`` (a rebinding in a loop that
    keeps a shape made from two parameters' extents: ``v = v - 0.1 * x``); ``why`` says where the
    helper's code takes it to be (for the messages of the callers that cannot show it)."""

    param: int
    axis: int
    count: Union[int, tuple]
    why: str


@dataclass
class HelperShapes:
    results: list[Optional[list[Spec]]] = field(default_factory=list)
    required: list[Required] = field(default_factory=list)


def shapes_of(fn: Function) -> HelperShapes:
    """The facts ``fn`` (just lowered) leaves for its callers."""
    results: Optional[list[Optional[list[Spec]]]] = None
    for op in fn.walk():
        if op.name != "return":
            continue
        specs = [_specs(fn, v) for v in op.operands]
        results = specs if results is None else [_same(a, b) for a, b in zip(results, specs)]
    required = [Required(*r) for r in fn.attrs.get(REQUIRED_EXTENTS) or []]
    return HelperShapes(results or [], required)


def _specs(fn: Function, v: Value) -> Optional[list[Spec]]:
    if not v.type.is_array:
        return None
    return [_extent_spec(fn, v, axis) for axis in range(v.type.rank)]  # type: ignore[attr-defined]


def _extent_spec(fn: Function, v: Value, axis: int) -> Spec:
    """The spec of ``v``'s extent along ``axis``; where elementwise operands of several meet, the
    constant other than 1 among them, if one: NumPy's result has that extent (or raises); else,
    where each is a parameter's, their meeting."""
    keys = py_arrays.extent_keys(v, axis)
    if keys is None:
        return None
    if len(keys) == 1:
        return _spec(fn, next(iter(keys)))
    counts = {k for k in keys if isinstance(k, tuple) and len(k) == 2 and k[0] == "const" and k[1] != 1}
    if counts:
        return _spec(fn, next(iter(counts))) if len(counts) == 1 else None
    specs = sorted({_spec(fn, k) for k in keys if k != ("const", 1)}, key=repr)
    return ("meet", *specs) if specs and None not in specs else None


def _spec(fn: Function, key: object) -> Spec:
    params = fn.params
    if isinstance(key, tuple) and len(key) == 2 and key[0] == "const" and isinstance(key[1], int):
        return ("const", key[1])
    if isinstance(key, Value) and key in params:
        return ("int", params.index(key))
    if isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], Value) and key[0] in params:
        return ("dim", params.index(key[0]), key[1])
    return None


def _same(a: Optional[list[Spec]], b: Optional[list[Spec]]) -> Optional[list[Spec]]:
    if a is None or b is None or len(a) != len(b):
        return None
    return [x if x == y else None for x, y in zip(a, b)]


def forget(module: Module) -> None:
    """Drop the front end's own attributes (module docstring) once every function is lowered."""
    for fn in module.functions.values():
        fn.attrs.pop(REQUIRED_EXTENTS, None)
        for op in fn.walk():
            if op.name == "call":
                op.attrs.pop(RESULT_EXTENTS, None)
