"""The math intrinsics the generator draws, their spellings, domain guards and kinks.

Each intrinsic's arguments are wrapped in a guard (built as ordinary program nodes) that keeps
them inside the domain where it is smooth: ``log(2.0 + tanh(e))``, ``asin(0.8 * tanh(e))``,
``pow(1.5 + tanh(e), y)``. Intrinsics with kinks or jumps (``fabs``, ``floor``, ``fmax``,
``fmod``, ``atan2``, ...) are left free but have a ``trace`` kind: the traced Python twin
records their decisions, and a draw whose decisions move under the difference step is
rejected.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from .program import Bin, Intr, Num


@dataclass(frozen=True)
class Intrinsic:
    arity: int
    py: str  # math spelling ("" when the renderer spells it: operators)
    np: str  # NumPy spelling, for programs written with np.* scalars
    c: str
    trace: Optional[str] = None  # "sign", "value", "cmp", "quotient", "signs"
    guard: Optional[Callable] = None  # args -> guarded args


def _tanh(e, scale=1.0, shift=0.0):
    t = Intr("tanh", (e,))
    if scale != 1.0:
        t = Bin("*", Num(scale), t)
    return Bin("+", Num(shift), t) if shift else t


def _scale(k):
    return lambda args: (Bin("*", Num(k), args[0]),) + tuple(args[1:])


def _shift_tanh(shift, scale=1.0):
    return lambda args: (_tanh(args[0], scale, shift),) + tuple(args[1:])


SCALAR: dict[str, Intrinsic] = {
    "sin": Intrinsic(1, "math.sin", "np.sin", "sin"),
    "cos": Intrinsic(1, "math.cos", "np.cos", "cos"),
    "tan": Intrinsic(1, "math.tan", "np.tan", "tan", guard=lambda a: (_tanh(a[0], 0.7),)),
    "asin": Intrinsic(1, "math.asin", "np.arcsin", "asin", guard=lambda a: (_tanh(a[0], 0.8),)),
    "acos": Intrinsic(1, "math.acos", "np.arccos", "acos", guard=lambda a: (_tanh(a[0], 0.8),)),
    "atan": Intrinsic(1, "math.atan", "np.arctan", "atan"),
    "sinh": Intrinsic(1, "math.sinh", "np.sinh", "sinh", guard=_scale(0.5)),
    "cosh": Intrinsic(1, "math.cosh", "np.cosh", "cosh", guard=_scale(0.5)),
    "tanh": Intrinsic(1, "math.tanh", "np.tanh", "tanh"),
    "asinh": Intrinsic(1, "math.asinh", "np.arcsinh", "asinh"),
    # 2.5, not 2.0: where tanh rounds to -1.0, 2.0 + tanh(e) is 1.0, the end of acosh's domain,
    # where its derivative is infinite and the chain rule's tanh' = 0 makes 0 * inf (seed 8000288).
    "acosh": Intrinsic(1, "math.acosh", "np.arccosh", "acosh", guard=_shift_tanh(2.5)),
    "atanh": Intrinsic(1, "math.atanh", "np.arctanh", "atanh", guard=lambda a: (_tanh(a[0], 0.8),)),
    "exp": Intrinsic(1, "math.exp", "np.exp", "exp", guard=_scale(0.3)),
    "expm1": Intrinsic(1, "math.expm1", "np.expm1", "expm1", guard=_scale(0.3)),
    "log": Intrinsic(1, "math.log", "np.log", "log", guard=_shift_tanh(2.0)),
    "log1p": Intrinsic(1, "math.log1p", "np.log1p", "log1p", guard=_shift_tanh(0.5)),
    "log2": Intrinsic(1, "math.log2", "np.log2", "log2", guard=_shift_tanh(2.0)),
    "log10": Intrinsic(1, "math.log10", "np.log10", "log10", guard=_shift_tanh(2.0)),
    "sqrt": Intrinsic(1, "math.sqrt", "np.sqrt", "sqrt", guard=_shift_tanh(1.5)),
    "cbrt": Intrinsic(1, "math.cbrt", "np.cbrt", "cbrt", guard=_shift_tanh(2.0)),
    "erf": Intrinsic(1, "math.erf", "math.erf", "erf"),
    "erfc": Intrinsic(1, "math.erfc", "math.erfc", "erfc"),
    "fabs": Intrinsic(1, "math.fabs", "np.abs", "fabs", trace="sign"),
    "abs": Intrinsic(1, "abs", "np.abs", "fabs", trace="sign"),
    "floor": Intrinsic(1, "math.floor", "np.floor", "floor", trace="value"),
    "ceil": Intrinsic(1, "math.ceil", "np.ceil", "ceil", trace="value"),
    "square": Intrinsic(1, "", "np.square", ""),  # e ** 2, C pow(e, 2)
    "cube": Intrinsic(1, "", "", ""),  # e ** 3, C pow(e, 3)
    "pow": Intrinsic(2, "math.pow", "np.power", "pow", guard=_shift_tanh(1.5)),
    "powop": Intrinsic(2, "", "", "pow", guard=_shift_tanh(1.5)),  # base ** e
    "atan2": Intrinsic(2, "math.atan2", "np.arctan2", "atan2", trace="signs"),
    "hypot": Intrinsic(2, "math.hypot", "np.hypot", "hypot", trace="signs"),
    "copysign": Intrinsic(2, "math.copysign", "np.copysign", "copysign", trace="signs"),
    "fmod": Intrinsic(2, "math.fmod", "np.fmod", "fmod", trace="quotient",
                      guard=lambda a: (a[0], _tanh(a[1], 1.0, 1.5))),
    "max": Intrinsic(2, "max", "np.maximum", "fmax", trace="cmp"),
    "min": Intrinsic(2, "min", "np.minimum", "fmin", trace="cmp"),
    "div": Intrinsic(2, "", "", "", guard=lambda a: (a[0], _tanh(a[1], 1.0, 1.5))),  # a / (1.5 + tanh(b))
}

# Intrinsics whose derivative at some points is a convention (issue classes 7 and 8): drawn only
# when the program's features allow ties (max(e, e)) and zero bases.
KINKED = {name for name, i in SCALAR.items() if i.trace}

# Elementwise NumPy functions for whole-array expressions: name -> template with its guard
# ("{np}" is the NumPy module, "{abs}" the function whose sign the traced twin records).
UFUNC: dict[str, str] = {
    "exp": "{np}.exp(0.3 * {0})",
    "log": "{np}.log(2.0 + {np}.tanh({0}))",
    "sin": "{np}.sin({0})",
    "cos": "{np}.cos({0})",
    "tanh": "{np}.tanh({0})",
    "sqrt": "{np}.sqrt(1.5 + {np}.sin({0}))",
    "abs": "{abs}({0})",
    "square": "{np}.square({0})",
    "arctan": "{np}.arctan({0})",
    "expm1": "{np}.expm1(0.3 * {0})",
    "log1p": "{np}.log1p(0.5 + {np}.tanh({0}))",
    "power": "{np}.power(1.5 + {np}.tanh({0}), 2)",
}


def py_spelling(name: str, np_spelling: bool) -> str:
    """The function a Python program calls for intrinsic ``name`` (feature np_spelling: NumPy's
    for every other name, so that both spellings meet every construct)."""
    spec = SCALAR[name]
    return spec.np if np_spelling and len(name) % 2 == 0 and spec.np else spec.py


def guarded(name: str, args: tuple) -> Intr:
    """The intrinsic applied to its arguments inside their guard."""
    g = SCALAR[name].guard
    return Intr(name, tuple(g(args)) if g else tuple(args))
