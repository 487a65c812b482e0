"""Library calls that spell arithmetic s2sad already differentiates, as the C they mean.

Numerical C and CUDA code calls a handful of functions that are not new operations
but shorthands: C99's ``fma(a, b, c)`` (gcc's ``__builtin_fma``) is ``a * b + c``, math.h's
``isnan(x)`` is ``x != x`` (``isfinite``, ``isinf``: comparisons with ``DBL_MAX``); CUDA's ``__ldg(p)`` is a
read of ``*p`` through the read-only cache, ``rsqrtf(x)`` is ``1.0f / sqrtf(x)``,
the fast-math intrinsics ``__expf``, ``__sinf``... are ``expf``, ``sinf``...
with fewer correct bits, and CUDA's ``sinpi``, ``normcdf``, ``exp10``, ``rcbrt``, ``rhypot``,
``norm3d``, ``__saturatef`` and ``__dmul_rn``-style arithmetic are the C that defines them.
``rewrite(call, cuda)`` returns the expression a call stands for (pycparser nodes, at the
call's position), which the front end then lowers as if the user had written it; None for
every other call.

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
    return _cuda_math(name, args, at)


def _num(single: bool, text: str, at) -> c_ast.Node:
    return c_ast.Constant("float" if single else "double", text + ("f" if single else ""), at)


def _call(name: str, args: list, at) -> c_ast.Node:
    return c_ast.FuncCall(c_ast.ID(name, at), c_ast.ExprList(args, at), at)


# CUDA's rounding-mode arithmetic (round to nearest, which is C's own; they only keep nvcc
# from contracting a product and a sum into an fma): the operation they name.
_ROUNDED = {f"__{t}{op}_rn": sym for t in ("f", "d") for op, sym in
            (("add", "+"), ("sub", "-"), ("mul", "*"), ("div", "/"))}


_CUDA_MATH = frozenset({"sinpi", "cospi", "exp10", "rcbrt", "rhypot", "normcdf", "norm3d"})


def _cuda_math(name: str, args: list, at) -> Optional[c_ast.Node]:
    """CUDA's math library beyond C's, as the C it is defined by: sinpi(x) is sin(pi x),
    normcdf(x) is erfc(-x / sqrt 2) / 2, exp10(x) is 10^x, rcbrt and rhypot the reciprocals of
    cbrt and hypot, norm3d the length of a 3-vector, __saturatef a clamp to [0, 1]."""
    single = name not in _CUDA_MATH and name[:-1] in _CUDA_MATH  # sinpif, normcdff: the float ones
    base = name[:-1] if single else name
    pi = "3.141592653589793"
    if base in ("sinpi", "cospi") and len(args) == 1:
        angle = c_ast.BinaryOp("*", _num(single, pi, at), args[0], at)
        return _call(base[:3] + ("f" if single else ""), [angle], at)
    if base == "exp10" and len(args) == 1:
        return _call("powf" if single else "pow", [_num(single, "10.0", at), args[0]], at)
    if base in ("rcbrt", "rhypot") and len(args) == (1 if base == "rcbrt" else 2):
        return c_ast.BinaryOp("/", _num(single, "1.0", at), _call(base[1:] + ("f" if single else ""), args, at), at)
    if base == "normcdf" and len(args) == 1:
        scaled = c_ast.BinaryOp("*", c_ast.UnaryOp("-", args[0], at), _num(single, "0.7071067811865476", at), at)
        return c_ast.BinaryOp("*", _num(single, "0.5", at), _call("erfcf" if single else "erfc", [scaled], at), at)
    if base == "norm3d" and len(args) == 3 and all(_repeatable(a) for a in args):
        squares = [c_ast.BinaryOp("*", a, a, at) for a in args]
        total = c_ast.BinaryOp("+", c_ast.BinaryOp("+", squares[0], squares[1], at), squares[2], at)
        return _call("sqrtf" if single else "sqrt", [total], at)
    if name == "__saturatef" and len(args) == 1:
        return _call("fminf", [_call("fmaxf", [args[0], _num(True, "0.0", at)], at), _num(True, "1.0", at)], at)
    if name in _ROUNDED and len(args) == 2:
        return c_ast.BinaryOp(_ROUNDED[name], args[0], args[1], at)
    return None
