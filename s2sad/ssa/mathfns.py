"""The math intrinsics (``math.<fn>`` ops), and how each language spells them.

One row per intrinsic: how many operands it takes (and which of them are integers),
its name in C's ``math.h`` (the ``f`` variant is the float one: ``sinf``), the other C
names that mean it, its Python spelling, and whether it has a NumPy ufunc (so that
whole-array code may apply it). The C front end reads its spellings from here, the C,
CUDA and Python emitters print from here, and ``ops.MATH_FNS`` (the arities the
verifier checks) is this table's first column: adding a function is adding a row,
and a rule in ``adjoint/rules.py`` (``tests/test_rules.py`` checks it against sympy).

A function that ``math.h`` lacks is a helper of the output (C: ``emit_c.helpers.HELPERS``;
Python: ``ssa.special``, printed from the very functions the interpreter runs). Only
derivatives use one (``digamma``, the derivative of ``lgamma``), or a Python target needs
one where Python has no spelling (C's ``round``, halfway cases away from zero).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class MathFn:
    """One intrinsic (see the module docstring).

    ``c``: the math.h name, or a helper's (``c_helper``). ``py``: ``math.X`` or ``np.X``
    (a library function), a builtin (``abs``), a helper of ``ssa.special``, or ``None``
    where the Python emitter writes an expression (``2.0 ** x``). ``numba``: False where
    Numba cannot compile the Python spelling. ``source``: False for the functions only
    derivatives use (no input spells them, so no rule is needed for them).
    """

    name: str
    arity: int
    c: str
    py: Optional[str]
    c_aliases: tuple[str, ...] = ()
    int_operands: tuple[int, ...] = ()
    ufunc: bool = True
    c_helper: bool = False
    numba: bool = True
    source: bool = True
    scipy: Optional[str] = None  # NumPy has no ufunc of it, SciPy does: scipy.special.<scipy> on arrays


def _rows() -> dict[str, MathFn]:
    rows: list[MathFn] = []
    for name in ("sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh exp expm1 log log1p log2 log10 "
                 "sqrt").split():
        rows.append(MathFn(name, 1, name, f"math.{name}"))
    rows += [
        MathFn("erf", 1, "erf", "math.erf", ufunc=False, scipy="erf"),  # NumPy has no erf
        MathFn("erfc", 1, "erfc", "math.erfc", ufunc=False, scipy="erfc"),
        MathFn("exp2", 1, "exp2", None),  # 2.0 ** x: math.exp2 is Python 3.11's
        MathFn("cbrt", 1, "cbrt", "np.cbrt"),  # math.cbrt is Python 3.11's, and not Numba's
        MathFn("abs", 1, "fabs", "abs"),
        # Python's math.floor & co. give ints: NumPy's give floats, as C's do.
        MathFn("floor", 1, "floor", "np.floor"),
        MathFn("ceil", 1, "ceil", "np.ceil"),
        MathFn("trunc", 1, "trunc", "np.trunc"),
        MathFn("rint", 1, "rint", "np.rint", c_aliases=("nearbyint",)),  # halfway cases to even
        MathFn("round", 1, "round", "round_half_away", ufunc=False),  # halfway cases away from zero
        MathFn("logb", 1, "logb", "logb", ufunc=False),  # the binary exponent, floor(log2 |x|)
        MathFn("sign", 1, "sign", "np.sign", c_helper=True),  # -1, 0 or 1 (NaN for NaN), as np.sign
        MathFn("lgamma", 1, "lgamma", "math.lgamma", ufunc=False, scipy="gammaln"),
        MathFn("tgamma", 1, "tgamma", "math.gamma", ufunc=False),
        MathFn("digamma", 1, "digamma", "digamma", ufunc=False, c_helper=True, scipy="digamma"),
        # psi'(x), the derivative of digamma (SciPy's polygamma(1, x) on arrays)
        MathFn("trigamma", 1, "trigamma", "trigamma", ufunc=False, c_helper=True, source=False,
               scipy="polygamma"),
        # the logistic sigmoid 1 / (1 + exp(-x)), without overflow (scipy.special.expit)
        MathFn("expit", 1, "expit", "expit", ufunc=False, c_helper=True, scipy="expit"),
        MathFn("pow", 2, "pow", "math.pow"),
        MathFn("atan2", 2, "atan2", "math.atan2"),
        MathFn("hypot", 2, "hypot", "math.hypot"),
        MathFn("min", 2, "fmin", "min"),
        MathFn("max", 2, "fmax", "max"),
        MathFn("copysign", 2, "copysign", "math.copysign"),
        MathFn("fmod", 2, "fmod", "np.fmod"),  # Numba has no math.fmod
        MathFn("remainder", 2, "remainder", "math.remainder", numba=False),
        MathFn("fdim", 2, "fdim", "fdim"),
        MathFn("ldexp", 2, "ldexp", "math.ldexp", int_operands=(1,)),
    ]
    return {r.name: r for r in rows}


MATH: dict[str, MathFn] = _rows()


def c_spellings() -> dict[str, str]:
    """Every double-precision C name of an intrinsic that input may call -> the intrinsic.

    ``fabs`` is ``abs``, ``fmax`` ``max``, ``nearbyint`` ``rint`` (the same in the default
    rounding mode, the only one s2sad knows). ``abs``, ``min`` and ``max`` are not C's
    names for them (C's ``abs`` is the integer one), and helpers are no input's.
    """
    out: dict[str, str] = {}
    for fn in MATH.values():
        if fn.source and not fn.c_helper:
            for name in (fn.c, *fn.c_aliases):
                out[name] = fn.name
    return out


def c_output_names() -> frozenset[str]:
    """The math.h names the C output may call (each with its ``f`` variant)."""
    return frozenset(fn.c for fn in MATH.values() if not fn.c_helper)
