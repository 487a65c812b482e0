"""Library calls that spell arithmetic s2sad already differentiates, as the C they mean.

Numerical C and CUDA code calls a handful of functions that are not new operations
but shorthands: C99's ``fma(a, b, c)`` (gcc's ``__builtin_fma``) is ``a * b + c``, math.h's
``isnan(x)`` is ``x != x`` (``isfinite``, ``isinf``: comparisons with ``DBL_MAX``); CUDA's ``__ldg(p)`` is a
read of ``*p`` through the read-only cache, ``rsqrtf(x)`` is ``1.0f / sqrtf(x)``,
and the fast-math intrinsics ``__expf``, ``__sinf``... are ``expf``, ``sinf``...
with fewer correct bits. ``rewrite(call, cuda)`` returns the expression a call
stands for (pycparser nodes, at the call's position), which the front end then
lowers as if the user had written it; None for every other call.

The gradient of a fast-math intrinsic is written with the accurate function: the
derivative of an approximation is not an approximation of the derivative anyway.
"""

from __future__ import annotations

from typing import Optional

from pycparser import c_ast

from .c_expr import library_name

def _big(at) -> c_ast.Node:
    return c_ast.Constant("double", "1.7976931348623157e308", at)  # DBL_MAX


def _between(x: c_ast.Node, at) -> c_ast.Node:
    """``-DBL_MAX <= x && x <= DBL_MAX``: x is finite (a NaN compares false)."""
    return c_ast.BinaryOp("&&", c_ast.BinaryOp(">=", x, c_ast.UnaryOp("-", _big(at), at), at),
                          c_ast.BinaryOp("<=", x, _big(at), at), at)


# math.h's classification macros, as the comparisons they are (an integer of a number: no derivative).
_CLASSIFY = {
    "isnan": lambda x, at: c_ast.BinaryOp("!=", x, x, at),
    "isfinite": _between,
    "isinf": lambda x, at: c_ast.BinaryOp("&&", c_ast.BinaryOp("==", x, x, at),
                                          c_ast.UnaryOp("!", _between(x, at), at), at),
}


def _repeatable(x: c_ast.Node) -> bool:
    """Evaluating ``x`` twice means what evaluating it once does: no call, assignment, ++ or --."""
    if isinstance(x, (c_ast.FuncCall, c_ast.Assignment)) or (
            isinstance(x, c_ast.UnaryOp) and x.op in ("++", "--", "p++", "p--")):
        return False
    return all(_repeatable(c) for _, c in x.children())


_FAST_MATH = frozenset({"__expf", "__logf", "__log2f", "__log10f", "__sinf", "__cosf", "__tanf", "__powf"})


def rewrite(call: c_ast.FuncCall, cuda: bool) -> Optional[c_ast.Node]:
    """The expression ``call`` abbreviates, or None (a call of anything else)."""
    if not isinstance(call.name, c_ast.ID):
        return None
    name, at = call.name.name, call.coord
    args = list(call.args.exprs) if call.args is not None else []
    if library_name(name) in ("fma", "fmaf") and len(args) == 3:
        return c_ast.BinaryOp("+", c_ast.BinaryOp("*", args[0], args[1], at), args[2], at)
    if library_name(name) in _CLASSIFY and len(args) == 1 and _repeatable(args[0]):
        return _CLASSIFY[library_name(name)](args[0], at)
    if not cuda:
        return None
    if name == "__ldg" and len(args) == 1:
        return c_ast.UnaryOp("*", args[0], at)
    if name == "__fdividef" and len(args) == 2:
        return c_ast.BinaryOp("/", args[0], args[1], at)
    if name in ("rsqrt", "rsqrtf") and len(args) == 1:
        single = name.endswith("f")
        one = c_ast.Constant("float" if single else "double", "1.0f" if single else "1.0", at)
        root = c_ast.FuncCall(c_ast.ID("sqrtf" if single else "sqrt", at), c_ast.ExprList(args, at), at)
        return c_ast.BinaryOp("/", one, root, at)
    if name in _FAST_MATH:
        return c_ast.FuncCall(c_ast.ID(name[2:], at), call.args, at)
    return None
