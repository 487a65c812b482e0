"""The parameter types a Numba decorator's explicit signature states.

``@numba.njit("f8(f8[:], i8)")``, ``@jit(float64(float64[:, :], int64), nopython=True)``, or a
list of such signatures: Numba compiles the function for exactly those types, so they say what
an annotation would (``x: "f64[n]"`` without the extents): a number's kind, an array's element
kind and rank. Type inference (``py_types``) takes them for parameters without an annotation.

Only what s2sad's types hold is read: 64-bit floats (``f8``, ``float64``, ``double``), signed
integers (``i8``, ``int64``, ``intp``, ``i4``, ``int32``, ...), booleans, and arrays of them with
one ``:`` (or ``::1``) per axis. A parameter any signature types otherwise (``f4``, ``complex128``,
a record), or that several signatures type differently, is left to inference, as is every
parameter of a signature that does not have one type per parameter.
"""

from __future__ import annotations

from typing import Optional, Union

import libcst as cst

from ..ssa.types import BOOL, F64, I64, ScalarType
from .py_module import ModuleInfo, dotted_source

_DECORATORS = frozenset({"numba.njit", "numba.jit"})
_FLOATS = frozenset({"f8", "float64", "double"})
_INTS = frozenset({"i8", "int64", "intp", "i4", "int32", "i2", "int16", "i1", "int8", "int_", "intc"})
_BOOLS = frozenset({"b1", "boolean", "bool_"})

# A parameter's type from a signature: a number's, or an array's element type and rank.
Stated = Union[ScalarType, tuple[ScalarType, int]]


def stated_types(fn: cst.FunctionDef, info: ModuleInfo) -> dict[str, Stated]:
    """The types ``fn``'s Numba decorators state for its parameters, by name."""
    names = [p.name.value for p in (*fn.params.params, *fn.params.kwonly_params)]
    out: dict[str, Stated] = {}
    for dec in fn.decorators:
        call = dec.decorator
        if not (isinstance(call, cst.Call) and info.canonical_name(call.func) in _DECORATORS):
            continue
        given = next((a.value for a in call.args if a.keyword is None or a.keyword.value == "signature_or_function"),
                     None)
        if given is None:
            continue
        per_signature = [_parameters(s, len(names)) for s in _signatures(given)]
        if not per_signature or any(p is None for p in per_signature):
            continue
        for k, name in enumerate(names):
            kinds = {p[k] for p in per_signature if p is not None}
            if len(kinds) == 1 and None not in kinds:
                out[name] = kinds.pop()  # type: ignore[assignment]
    return out


def _signatures(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The signature expressions a decorator argument holds (a string is parsed as Numba does)."""
    if isinstance(node, (cst.List, cst.Tuple)) and not _is_signature(node):
        return [s for el in node.elements for s in _signatures(el.value)]
    if isinstance(node, cst.SimpleString):
        try:
            text = node.evaluated_value
            return [cst.parse_expression(text.decode() if isinstance(text, bytes) else text)]
        except (cst.ParserSyntaxError, UnicodeDecodeError):
            return []
    return [node]


def _is_signature(node: cst.BaseExpression) -> bool:
    """A bare tuple of argument types (``"(f8[:], i8)"``, no return type) is one signature."""
    return isinstance(node, cst.Tuple) and not any(isinstance(el.value, cst.SimpleString) for el in node.elements)


def _parameters(sig: cst.BaseExpression, n: int) -> Optional[list[Optional[Stated]]]:
    """Each parameter's type in ``ret(args...)`` or ``(args...)``; None when the count differs."""
    if isinstance(sig, cst.Call):
        args = [a.value for a in sig.args]
    elif isinstance(sig, cst.Tuple):
        args = [el.value for el in sig.elements]
    else:
        return None
    if len(args) != n:
        return None
    return [_type(a) for a in args]


def _type(node: cst.BaseExpression) -> Optional[Stated]:
    if isinstance(node, cst.Subscript):
        elem = _scalar(node.value)
        axes = node.slice
        if elem is None or not all(isinstance(a.slice, cst.Slice) and a.slice.lower is None
                                   and a.slice.upper is None for a in axes):
            return None
        return (elem, len(axes))
    return _scalar(node)


def _scalar(node: cst.BaseExpression) -> Optional[ScalarType]:
    spelled = dotted_source(node)
    last = spelled.split(".")[-1] if spelled else ""
    if last in _FLOATS:
        return F64
    if last in _INTS:
        return I64
    if last in _BOOLS:
        return BOOL
    return None
