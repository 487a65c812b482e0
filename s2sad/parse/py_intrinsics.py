"""The library functions the Python front end understands, by canonical name.

A call in the source is resolved to a canonical dotted name through the
module's imports (``np.sin``, ``from numpy import sin``, ``import numpy``:
all ``numpy.sin``; builtins are ``builtins.abs``), then looked up here. Keeping
the table apart from the lowering makes "which spellings are supported" one
readable list, and lets type inference and lowering agree on every entry.

Each entry names what it becomes in the IR: a ``math.<fn>`` op of
``ssa.ops.MATH_FNS`` or one of a few special forms (casts, ``len``, array
allocation, ``square``, power, two-argument ``log``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Optional

from ..ssa.ops import MATH_FNS

if TYPE_CHECKING:
    import libcst as cst


@dataclass(frozen=True)
class Intrinsic:
    """How a library call lowers.

    ``op``: a ``MATH_FNS`` name, or one of the special forms ``square``, ``power``
    (Python's ``**``), ``log`` (one or two arguments), ``float``, ``int``, ``bool``,
    ``len``, ``zeros``, ``empty``, ``zeros_like``, ``empty_like``.
    """

    op: str
    min_args: int
    max_args: int  # -1: any number (folded into nested two-operand ops)
    int_result: bool = False  # math.floor & co. return a Python int
    keeps_int: bool = False  # abs/min/max on ints stay ints (no cast to float)
    scipy: bool = False  # scipy.special's: a ufunc on arrays where NumPy has none (gammaln)
    numpy: bool = False  # NumPy's: on numbers, the output computes it as NumPy does (np.log(0.0) is -inf)


def _m(op: str, **kw: bool) -> Intrinsic:
    n = MATH_FNS[op]
    return Intrinsic(op, n, n, **kw)


_MATH_UNARY = (
    "sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh exp expm1 exp2 "
    "log1p log2 log10 sqrt cbrt erf erfc"
).split()

# math.X: results are floats, except floor/ceil/trunc, which Python makes ints.
MATH: dict[str, Intrinsic] = {f"math.{f}": _m(f) for f in _MATH_UNARY}
MATH.update({f"math.{f}": _m(f, int_result=True) for f in ("floor", "ceil", "trunc")})
MATH.update({f"math.{f}": _m(f) for f in ("pow", "atan2", "copysign", "fmod", "remainder", "lgamma", "ldexp")})
MATH["math.gamma"] = _m("tgamma")
MATH["math.fabs"] = _m("abs")
MATH["math.log"] = Intrinsic("log", 1, 2)  # math.log(x, base)
MATH["math.hypot"] = Intrinsic("hypot", 2, -1)

_NUMPY_RENAMED = {
    "arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh",
    "arccosh": "acosh", "arctanh": "atanh", "arctan2": "atan2", "fabs": "abs",
}
NUMPY: dict[str, Intrinsic] = {f"numpy.{f}": _m(f) for f in _MATH_UNARY + ["log"]}
NUMPY.update({f"numpy.{f}": _m(f) for f in ("floor", "ceil", "trunc", "rint", "copysign", "fmod", "hypot")})
NUMPY.update({f"numpy.{np_name}": _m(op) for np_name, op in _NUMPY_RENAMED.items()})
NUMPY.update({
    "numpy.abs": _m("abs", keeps_int=True),
    "numpy.absolute": _m("abs", keeps_int=True),
    "numpy.maximum": _m("max", keeps_int=True),
    "numpy.logaddexp": Intrinsic("logaddexp", 2, 2),  # written with the functions it is made of
    "numpy.minimum": _m("min", keeps_int=True),
    "numpy.fmax": _m("max", keeps_int=True),
    "numpy.fmin": _m("min", keeps_int=True),
    "numpy.power": Intrinsic("power", 2, 2),
    "numpy.square": Intrinsic("square", 1, 1, keeps_int=True),
    "numpy.float64": Intrinsic("float", 1, 1),
    "numpy.double": Intrinsic("float", 1, 1),
    "numpy.int64": Intrinsic("int", 1, 1),
    "numpy.zeros": Intrinsic("zeros", 1, 1),
    "numpy.empty": Intrinsic("empty", 1, 1),
    "numpy.zeros_like": Intrinsic("zeros_like", 1, 1),
    "numpy.empty_like": Intrinsic("empty_like", 1, 1),
    "numpy.array": Intrinsic("array", 1, 1),  # of an array or a list (py_lists)
    "numpy.asarray": Intrinsic("asarray", 1, 1),
    "numpy.copy": Intrinsic("array", 1, 1),
    # The ufunc spellings of the operators, read as the operator they are (``np.add(x, y)`` is
    # ``x + y``, broadcasting included).
    "numpy.add": Intrinsic("add", 2, 2, keeps_int=True),
    "numpy.subtract": Intrinsic("sub", 2, 2, keeps_int=True),
    "numpy.multiply": Intrinsic("mul", 2, 2, keeps_int=True),
    "numpy.divide": Intrinsic("div", 2, 2),
    "numpy.true_divide": Intrinsic("div", 2, 2),
    "numpy.floor_divide": Intrinsic("floordiv", 2, 2, keeps_int=True),
    "numpy.mod": Intrinsic("mod", 2, 2, keeps_int=True),
    "numpy.remainder": Intrinsic("mod", 2, 2, keeps_int=True),
    "numpy.negative": Intrinsic("neg", 1, 1, keeps_int=True),
    "numpy.positive": Intrinsic("pos", 1, 1, keeps_int=True),
    "numpy.reciprocal": Intrinsic("reciprocal", 1, 1),
    "numpy.float_power": Intrinsic("float_power", 2, 2),  # x ** y in floats, whatever the operands
    "numpy.sign": _m("sign"),
    # np.clip(x, lo, hi) is np.minimum(np.maximum(x, lo), hi), NumPy's own definition.
    "numpy.clip": Intrinsic("clip", 3, 3, keeps_int=True),
    # New arrays of values the arguments give (py_arrays.made_array).
    "numpy.arange": Intrinsic("arange", 1, 3),
    "numpy.linspace": Intrinsic("linspace", 2, 3),
    "numpy.eye": Intrinsic("eye", 1, 3),  # (N, M, k): np.identity takes one
    "numpy.identity": Intrinsic("eye", 1, 1),
    # The row and column indices of a triangle, as a 2-row integer array (``i, j = ...``).
    "numpy.triu_indices": Intrinsic("triu_indices", 1, 3),
    "numpy.tril_indices": Intrinsic("tril_indices", 1, 3),
})
MADE_ARRAYS = ("arange", "linspace", "eye", "triu_indices", "tril_indices")
TRIANGLE_INDICES = ("numpy.triu_indices", "numpy.tril_indices")  # a 2-row array, NumPy's pair of index arrays
NUMPY = {name: replace(intr, numpy=True) for name, intr in NUMPY.items()}
# The operator an ufunc spelling stands for (``ExprLowerer.arith`` names).
OPERATOR_UFUNCS = {"add": "add", "sub": "sub", "mul": "mul", "div": "div", "floordiv": "floordiv", "mod": "mod",
                   "float_power": "pow"}
# Whole-array functions (lowered by ``py_arrays`` to ``arr.`` ops).
ARRAY_FUNCTIONS: dict[str, Intrinsic] = {
    "numpy.sum": Intrinsic("sum", 1, 1),
    "numpy.mean": Intrinsic("mean", 1, 1),
    "numpy.max": Intrinsic("max_reduce", 1, 1),
    "numpy.amax": Intrinsic("max_reduce", 1, 1),
    "numpy.min": Intrinsic("min_reduce", 1, 1),
    "numpy.amin": Intrinsic("min_reduce", 1, 1),
    "numpy.dot": Intrinsic("matmul", 2, 2),
    "numpy.matmul": Intrinsic("matmul", 2, 2),
    "numpy.outer": Intrinsic("outer", 2, 2),
    "numpy.transpose": Intrinsic("transpose", 1, 1),
    "numpy.where": Intrinsic("where", 3, 3),
    "numpy.ones": Intrinsic("ones", 1, 1),
    "numpy.ones_like": Intrinsic("ones_like", 1, 1),
    "numpy.full": Intrinsic("full", 2, 2),
    "numpy.full_like": Intrinsic("full_like", 2, 2),
    "numpy.reshape": Intrinsic("reshape", 2, 2),
    "numpy.ravel": Intrinsic("ravel", 1, 1),
    "numpy.flip": Intrinsic("flip", 1, 1),  # (of every axis: np.flip(x, axis=k) is py_spellings' slice)
    "numpy.squeeze": Intrinsic("squeeze", 1, 2),
    "numpy.count_nonzero": Intrinsic("count_nonzero", 1, 1),
    "numpy.flatnonzero": Intrinsic("flatnonzero", 1, 1),
    "numpy.cross": Intrinsic("cross", 2, 2),
    "numpy.argmax": Intrinsic("argmax", 1, 1, int_result=True),
    "numpy.argmin": Intrinsic("argmin", 1, 1, int_result=True),
    "numpy.var": Intrinsic("var", 1, 1),
    "numpy.std": Intrinsic("std", 1, 1),
    "numpy.prod": Intrinsic("prod", 1, 1),
    "numpy.cumsum": Intrinsic("cumsum", 1, 1),
    "numpy.cumprod": Intrinsic("cumprod", 1, 1),
    "numpy.polyval": Intrinsic("polyval", 2, 2),
    "numpy.sort": Intrinsic("sort", 1, 1),
    "numpy.median": Intrinsic("median", 1, 1),
    "numpy.percentile": Intrinsic("percentile", 2, 2),
    "numpy.quantile": Intrinsic("quantile", 2, 2),
    "numpy.argsort": Intrinsic("argsort", 1, 1),
    "numpy.searchsorted": Intrinsic("searchsorted", 2, 3),  # (lowered by ``py_search``)
    # The ufuncs' running forms: np.add.accumulate is np.cumsum, np.multiply.accumulate np.cumprod.
    "numpy.maximum.accumulate": Intrinsic("running_max", 1, 1),
    "numpy.minimum.accumulate": Intrinsic("running_min", 1, 1),
    "numpy.add.accumulate": Intrinsic("cumsum", 1, 1),
    "numpy.multiply.accumulate": Intrinsic("cumprod", 1, 1),
    "numpy.roll": Intrinsic("roll", 1, 3),  # (lowered by ``py_roll_pad``)
    "numpy.pad": Intrinsic("pad", 1, 3),
}
# Linear algebra, einsum, stacking and convolution (lowered by ``py_linalg``).
LINALG_FUNCTIONS: dict[str, Intrinsic] = {
    "numpy.linalg.norm": Intrinsic("norm", 1, 2),
    "numpy.trace": Intrinsic("trace", 1, 1),
    "numpy.diag": Intrinsic("diag", 1, 2),
    "numpy.diagonal": Intrinsic("diagonal", 1, 1),  # of a matrix: np.diag's matrix-to-vector form
    "numpy.linalg.det": Intrinsic("det", 1, 1),
    "numpy.linalg.inv": Intrinsic("inv", 1, 1),
    "numpy.linalg.solve": Intrinsic("solve", 2, 2),
    "numpy.linalg.slogdet": Intrinsic("slogdet", 1, 1),  # (sign, logabsdet): unpacked or indexed
    "numpy.linalg.cholesky": Intrinsic("cholesky", 1, 1),
    "numpy.linalg.eigh": Intrinsic("eigh", 1, 1),  # (eigenvalues, eigenvectors): unpacked or indexed
    "numpy.linalg.eigvalsh": Intrinsic("eigvalsh", 1, 1),
    "numpy.kron": Intrinsic("kron", 2, 2),
    "numpy.tril": Intrinsic("tril", 1, 2),
    "numpy.triu": Intrinsic("triu", 1, 2),  # x - np.tril(x, k - 1)
    "numpy.einsum": Intrinsic("einsum", 2, -1),
    "numpy.tensordot": Intrinsic("tensordot", 2, 3),  # an einsum of the axes it contracts
    "numpy.stack": Intrinsic("stack", 1, 1),
    "numpy.concatenate": Intrinsic("concatenate", 1, 1),
    "numpy.hstack": Intrinsic("hstack", 1, 1),
    "numpy.vstack": Intrinsic("vstack", 1, 1),
    "numpy.column_stack": Intrinsic("column_stack", 1, 1),
    "numpy.convolve": Intrinsic("convolve", 2, 3),
    "numpy.interp": Intrinsic("interp", 3, 3),
}
LINALG_OPS = frozenset(i.op for i in LINALG_FUNCTIONS.values())

# The linear algebra that gives a pair, unpacked (``sign, logdet = np.linalg.slogdet(K)``, ``w, V =
# np.linalg.eigh(A)``) or indexed (``np.linalg.slogdet(K)[1]``, ``.eigenvalues``): the op of
# each part, and the parts' names (NumPy 2's SlogdetResult and EighResult).
PAIRS = {"slogdet": ("detsign", "logdet"), "eigh": ("eigvalsh", "eigvecsh")}
PART_NAMES = {"slogdet": ("sign", "logabsdet"), "eigh": ("eigenvalues", "eigenvectors")}


def pair_part(op: str, node: "cst.BaseExpression") -> Optional[str]:
    """The op of the part of ``op``'s pair that ``node`` takes (``[1]``, ``.logabsdet``), else None."""
    import libcst as cst

    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        index = node.slice[0].slice.value
        k = int(index.value) if isinstance(index, cst.Integer) else None
    elif isinstance(node, cst.Attribute):
        k = PART_NAMES[op].index(node.attr.value) if node.attr.value in PART_NAMES[op] else None
    else:
        return None
    return PAIRS[op][k] if k in (0, 1) else None
ARRAY_FUNCTIONS.update(LINALG_FUNCTIONS)
# Array methods (``x.sum(axis=0)``, ``x.reshape(m, n)``): the function of the same name, with the
# array as its first argument.
METHODS: dict[str, Intrinsic] = {
    "sum": ARRAY_FUNCTIONS["numpy.sum"], "mean": ARRAY_FUNCTIONS["numpy.mean"],
    "max": ARRAY_FUNCTIONS["numpy.max"], "min": ARRAY_FUNCTIONS["numpy.min"],
    "dot": ARRAY_FUNCTIONS["numpy.dot"], "transpose": ARRAY_FUNCTIONS["numpy.transpose"],
    "reshape": Intrinsic("reshape", 2, -1),
    "ravel": Intrinsic("ravel", 1, 1),  # x.reshape(-1), a view as NumPy's (of a contiguous x)
    "flatten": Intrinsic("flatten", 1, 1),  # x.reshape(-1), copied
    "squeeze": Intrinsic("squeeze", 1, 2),  # x without its axes of extent 1, a view
    "argmax": Intrinsic("argmax", 1, 1, int_result=True), "argmin": Intrinsic("argmin", 1, 1, int_result=True),
    "copy": Intrinsic("array", 1, 1),  # x.copy(), as np.copy(x)
    "astype": Intrinsic("astype", 2, 2),  # x.astype(float): a copy, converted
    "var": ARRAY_FUNCTIONS["numpy.var"], "std": ARRAY_FUNCTIONS["numpy.std"],
    "prod": ARRAY_FUNCTIONS["numpy.prod"], "cumsum": ARRAY_FUNCTIONS["numpy.cumsum"],
    "argsort": ARRAY_FUNCTIONS["numpy.argsort"], "searchsorted": ARRAY_FUNCTIONS["numpy.searchsorted"],
    "clip": Intrinsic("clip", 3, 3, keeps_int=True),
    "trace": LINALG_FUNCTIONS["numpy.trace"], "diagonal": LINALG_FUNCTIONS["numpy.diagonal"],
}
NUMPY.update(ARRAY_FUNCTIONS)
# Keyword arguments each of them takes.
ARRAY_KEYWORDS: dict[str, tuple[str, ...]] = {
    "sum": ("axis", "keepdims"), "mean": ("axis", "keepdims"), "max_reduce": ("axis", "keepdims"),
    "min_reduce": ("axis", "keepdims"), "ones": ("dtype",), "prod": ("axis", "keepdims"),
    "var": ("axis", "keepdims", "ddof"), "std": ("axis", "keepdims", "ddof"), "cumsum": ("axis",),
    "norm": ("ord", "axis"), "stack": ("axis",), "concatenate": ("axis",), "convolve": ("mode",),
    "linspace": ("num", "endpoint"), "triu_indices": ("k", "m"), "tril_indices": ("k", "m"), "eye": ("dtype", "k", "M"),
    "diag": ("k",),
    "roll": ("shift", "axis"), "argsort": ("kind",), "searchsorted": ("side", "sorter"),
    "squeeze": ("axis",), "count_nonzero": ("axis", "keepdims"), "argmax": ("axis",), "argmin": ("axis",),
    "sort": ("axis", "kind"), "tensordot": ("axes",), "tril": ("k",), "triu": ("k",),
    "percentile": ("method", "interpolation", "axis", "keepdims"),
    "quantile": ("method", "interpolation", "axis", "keepdims"),
    "pad": ("pad_width", "mode", "constant_values", "reflect_type", "stat_length", "end_values"),  # (refused by name)
    "norm_pdf": ("loc", "scale"), "norm_logpdf": ("loc", "scale"), "norm_cdf": ("loc", "scale"),
}

# scipy.special's functions of one or two numbers, also ufuncs on arrays: the output calls the
# same functions (on arrays, SciPy's, imported from scipy.special; on numbers, math's where it
# has them and a helper of the output's, ``ssa.special``, where not). ``logit``, ``betaln`` and
# ``xlogy`` are written with the others (``py_arrays.special_function``).
SCIPY_SPECIAL: dict[str, Intrinsic] = {
    "scipy.special.gammaln": _m("lgamma", scipy=True),
    "scipy.special.digamma": _m("digamma", scipy=True),
    "scipy.special.psi": _m("digamma", scipy=True),
    "scipy.special.erf": _m("erf", scipy=True),
    "scipy.special.erfc": _m("erfc", scipy=True),
    "scipy.special.expit": _m("expit", scipy=True),
    "scipy.special.log1p": _m("log1p"),
    "scipy.special.expm1": _m("expm1"),
    "scipy.special.exp2": _m("exp2"),
    "scipy.special.cbrt": _m("cbrt"),
    "scipy.special.logit": Intrinsic("logit", 1, 1),
    "scipy.special.betaln": Intrinsic("betaln", 2, 2),
    "scipy.special.xlogy": Intrinsic("xlogy", 2, 2),
    # scipy.stats.norm's density, its logarithm and its distribution function, of x and (by
    # position or by name) loc and scale: written with exp, log and erfc (``py_arrays``)
    "scipy.stats.norm.pdf": Intrinsic("norm_pdf", 1, 3),
    "scipy.stats.norm.logpdf": Intrinsic("norm_logpdf", 1, 3),
    "scipy.stats.norm.cdf": Intrinsic("norm_cdf", 1, 3),
}
NORM_FUNCTIONS = ("norm_pdf", "norm_logpdf", "norm_cdf")
# The functions of several operands, elementwise, that ``py_arrays.special_function`` writes with
# the functions they are made of (``logit``, of one, besides).
ELEMENTWISE_SPECIAL = ("betaln", "xlogy", "logaddexp", *NORM_FUNCTIONS)


def norm_args(node: cst.Call) -> list[Optional[cst.BaseExpression]]:
    """``x, loc, scale`` of a call of scipy.stats.norm's functions, by position or by name (None
    where not given: 0 and 1)."""
    out: list[Optional[cst.BaseExpression]] = [a.value for a in node.args if a.keyword is None][:3]
    out += [None] * (3 - len(out))
    for a in node.args:
        if a.keyword is not None and a.keyword.value in ("loc", "scale"):
            out[1 if a.keyword.value == "loc" else 2] = a.value
    return out

BUILTINS: dict[str, Intrinsic] = {
    "builtins.abs": _m("abs", keeps_int=True),
    "builtins.min": Intrinsic("min", 2, -1, keeps_int=True),
    "builtins.max": Intrinsic("max", 2, -1, keeps_int=True),
    "builtins.pow": Intrinsic("power", 2, 2),
    "builtins.round": Intrinsic("rint", 1, 1, int_result=True),  # round(x): the nearest int, halfway to even
    "builtins.float": Intrinsic("float", 1, 1),
    "builtins.int": Intrinsic("int", 1, 1),
    "builtins.bool": Intrinsic("bool", 1, 1),
    "builtins.len": Intrinsic("len", 1, 1),
}

INTRINSICS: dict[str, Intrinsic] = {**MATH, **NUMPY, **SCIPY_SPECIAL, **BUILTINS}

# Named numeric constants of the libraries: each use becomes a ``const``.
CONSTANTS: dict[str, float] = {
    "math.pi": math.pi, "math.e": math.e, "math.tau": math.tau, "math.inf": math.inf,
    "numpy.pi": math.pi, "numpy.e": math.e, "numpy.inf": math.inf,
}

# Canonical names that mean a type in annotations and ``dtype=`` arguments.
FLOAT_NAMES = {"builtins.float", "numpy.float64", "numpy.double", "numpy.float_", "numpy.floating"}
INT_NAMES = {"builtins.int", "numpy.int64", "numpy.int_", "numpy.intp", "numpy.integer"}
BOOL_NAMES = {"builtins.bool", "numpy.bool_"}
ARRAY_NAMES = {"numpy.ndarray"}
NDARRAY_GENERIC = {"numpy.typing.NDArray"}

RANGE = "builtins.range"
# np.add.at(a, idx, v): a statement adding into a (parse/py_arrays.add_at), not a value.
ADD_AT = "numpy.add.at"
# np.bincount(idx, weights=w, minlength=m): a new array the weights are added into (py_arrays.bincount).
BINCOUNT = "numpy.bincount"
PRANGE = "numba.prange"  # range whose iterations Numba may run in parallel


def lookup(canonical: Optional[str]) -> Optional[Intrinsic]:
    return INTRINSICS.get(canonical) if canonical else None


def is_library_module(canonical: str) -> bool:
    """Whether a canonical name is a module (``numpy``, ``math``): not a value."""
    return canonical in ("math", "numpy", "numpy.typing", "numpy.linalg", "numpy.random", "typing")
