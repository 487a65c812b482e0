"""A reference interpreter for the IR.

Runs a function of a Module on Python scalars and NumPy arrays, with Python's
semantics for every op (floored ``//`` and ``%``, IEEE floats) but C's for
``rem`` (truncated remainder) and integer ``div`` (truncated quotient). A
``view`` is a NumPy slice (or row), so writes through it reach the array it views. It is the test
oracle that checks front ends, passes and the adjoint transform independently
of any emitter, and the basis of a future numeric ``s2sad check``.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Optional

import numpy as np

from . import special
from .array_ops import NAMES, PREFIX
from .ir import Block, Function, Module, Op, Value
from .gpu import BUILTINS as GPU_BUILTINS
from .gpu import Launch, Thread
from .ops import field_value

_DTYPES = {"f64": np.float64, "f32": np.float32, "i64": np.int64, "i32": np.int32, "bool": np.bool_}

_MATH = {
    "sin": math.sin, "cos": math.cos, "tan": math.tan, "asin": math.asin, "acos": math.acos,
    "atan": math.atan, "sinh": math.sinh, "cosh": math.cosh, "tanh": math.tanh,
    "asinh": math.asinh, "acosh": math.acosh, "atanh": math.atanh, "exp": math.exp,
    "expm1": math.expm1, "exp2": lambda x: 2.0**x, "log": math.log, "log1p": math.log1p,
    "log2": math.log2, "log10": math.log10, "sqrt": math.sqrt, "cbrt": lambda x: math.copysign(abs(x) ** (1 / 3), x),
    "erf": math.erf, "erfc": math.erfc, "abs": abs,
    # C's and NumPy's, floats with the sign of a zero result (ceil(-0.25) is -0.0), not Python's
    # ints: copysign(s, ceil(-0.25)) is -|s| (fuzz seed 12003356 folded it to +|s|).
    "floor": lambda x: float(np.floor(x)), "ceil": lambda x: float(np.ceil(x)),
    "trunc": lambda x: float(np.trunc(x)), "pow": lambda a, b: a**b, "atan2": math.atan2, "hypot": math.hypot,
    "min": min, "max": max, "copysign": math.copysign, "fmod": math.fmod,
    "rint": lambda x: float(np.rint(x)), "round": lambda x: float(special.round_half_away(x)),
    "lgamma": math.lgamma, "tgamma": math.gamma, "digamma": special.digamma, "remainder": math.remainder,
    "trigamma": special.trigamma, "expit": special.expit, "fdim": special.fdim, "ldexp": math.ldexp,
    "logb": special.logb, "sign": lambda x: float(np.sign(x)),
}


def c_rem(a: Any, b: Any) -> Any:
    """C's ``a % b``: the remainder of the quotient truncated toward zero (sign of ``a``).

    Exact on integers of any size; ``math.fmod`` (also exact) on floats. A zero
    divisor raises, as Python's ``%`` does.
    """
    if isinstance(a, (float, np.floating)) or isinstance(b, (float, np.floating)):
        return math.fmod(a, b)
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def too_wide(name: str, a: Any, b: Any, bits: int) -> bool:
    """Whether integer ``pow``, ``shl`` or ``mul`` of ``a`` and ``b`` is certain to need more
    than ``bits`` bits, told without computing it: Python's integers have no bound, and folding
    ``9 ** 9 ** 9`` or ``3 ** 100000000`` exactly at translation time would take hours."""
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in (a, b)):
        return False
    if name == "pow":
        return b > 0 and abs(a) > 1 and b * (abs(a).bit_length() - 1) > bits
    if name == "shl":
        return a != 0 and b > bits
    if name == "mul":
        return a.bit_length() + b.bit_length() > bits + 1
    return False


_BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b, "floordiv": lambda a, b: a // b, "mod": lambda a, b: a % b,
    "rem": c_rem, "pow": lambda a, b: a**b, "lt": lambda a, b: a < b, "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b, "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b, "and": lambda a, b: a and b, "or": lambda a, b: a or b,
    "bitand": lambda a, b: a & b, "bitor": lambda a, b: a | b, "bitxor": lambda a, b: a ^ b,
    "shl": lambda a, b: a << b, "shr": lambda a, b: a >> b,
}


_ARRAY_BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide, "pow": np.power,
    "floordiv": np.floor_divide, "mod": np.mod,
    "maximum": np.maximum, "minimum": np.minimum, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal, "eq": np.equal, "ne": np.not_equal,
    "math.atan2": np.arctan2, "math.hypot": np.hypot, "math.copysign": np.copysign, "math.fmod": np.fmod,
}
_ARRAY_REDUCE = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "prod": np.prod}


def _array_op(op: Op, a: list[Any]) -> list[Any]:
    """NumPy's meaning of an ``arr.`` op (see ``array_ops``); results are fresh arrays."""
    n = op.name[len(PREFIX):]
    if n in _ARRAY_BINARY:
        return [np.asarray(_ARRAY_BINARY[n](a[0], a[1]))]
    if n == "neg":
        return [-a[0]]
    if n.startswith("math."):
        fn = n[5:]
        if fn == "cbrt":
            return [np.cbrt(a[0])]
        if not hasattr(np, _NUMPY_UFUNC.get(fn, fn)):  # SciPy's (mathfns.MathFn.scipy): each element
            return [np.vectorize(_MATH[fn], otypes=[float])(a[0])]
        return [np.asarray(getattr(np, _NUMPY_UFUNC.get(fn, fn))(a[0]), dtype=float)]
    if n == "where":
        return [np.where(a[0], a[1], a[2])]
    if n in _ARRAY_REDUCE:
        axis = op.attrs.get("axis")
        r = _ARRAY_REDUCE[n](a[0], axis=axis, keepdims=bool(op.attrs.get("keepdims")))
        return [float(r) if not op.result.type.is_array else np.asarray(r)]
    if n == "matmul":
        r = a[0] @ a[1]
        return [float(r) if not op.result.type.is_array else r]
    if n == "outer":
        return [np.outer(a[0], a[1])]
    if n == "cumsum":
        axis = op.attrs["axis"]
        if op.attrs.get("reverse"):
            return [np.flip(np.cumsum(np.flip(a[0], axis), axis=axis), axis)]
        return [np.cumsum(a[0], axis=axis)]
    if n == "roll":
        return [np.roll(a[0], int(a[1]), axis=op.attrs["axis"])]
    if n == "pad":
        rank = op.result.type.rank
        widths = [(int(a[1 + 2 * k]), int(a[2 + 2 * k])) for k in range(rank)]
        if op.attrs["mode"] == "constant":
            return [np.pad(a[0], widths, mode="constant", constant_values=a[-1])]
        return [np.pad(a[0], widths, mode=op.attrs["mode"])]
    if n == "unpad":
        rank = op.result.type.rank
        return [special.unpad(a[0], [(int(a[1 + 2 * k]), int(a[2 + 2 * k])) for k in range(rank)], op.attrs["mode"])]
    if n == "prod_others":
        axis = op.attrs.get("axis")
        if axis is None:
            return [special.prod_of_others(a[0])]
        rows = special.prod_of_others_in_rows(a[0] if axis == 1 else a[0].T)
        return [rows if axis == 1 else rows.T.copy()]
    if n == "transpose":
        return [a[0].T.copy()]
    if n == "full":
        return [np.full(tuple(int(d) for d in a[:-1]), a[-1], dtype=_DTYPES[op.result.type.elem.name])]
    if n == "broadcast":
        g = a[0]
        if "axis" in op.attrs:
            g = np.expand_dims(g, op.attrs["axis"])
        return [np.broadcast_to(g, a[1].shape).copy()]
    if n == "sum_to_shape":
        return [special.sum_to_shape(a[0], np.shape(a[1]), *(np.shape(m) for m in a[2:]))]
    if n == "sum_to":
        g = a[0]
        lead = g.ndim - a[1].ndim
        if lead:
            g = g.sum(axis=tuple(range(lead)))
        keep = tuple(op.attrs.get("keep", ()))
        if keep:
            g = g.sum(axis=keep, keepdims=True)
        return [g]
    if n == "accum":
        a[0][...] += a[1]
        return []
    if n == "reshape":
        return [a[0].reshape(tuple(int(d) for d in a[1:])).copy()]
    if n == "argsort":
        return [np.argsort(a[0], kind=op.attrs.get("kind", "stable"))]
    if n == "mask":
        return [a[0][a[1]]]
    if n == "accum_mask":
        a[0][a[1]] += a[2]
        return []
    if n == "take":
        return [a[0][tuple(a[1:])]]
    if n == "accum_take":
        np.add.at(a[0], tuple(a[1:-1]), a[-1])
        return []
    if n == "slice":
        r = a[0][_slice_index(op.attrs["axes"], a[1:])]
        return [r.copy() if op.result.type.is_array else float(r)]
    if n == "accum_slice":
        a[0][_slice_index(op.attrs["axes"], a[2:])] += a[1]
        return []
    if n in _LINALG:
        r = _LINALG[n](op, a)
        return [float(r) if not op.result.type.is_array else np.asarray(r, dtype=float)]
    raise NotImplementedError(f"interpreter: op {op.name}")


_LINALG: dict[str, Callable[[Op, list[Any]], Any]] = {
    "einsum": lambda op, a: np.einsum(op.attrs["subs"], *a),
    "diag": lambda op, a: np.diag(a[0]),
    "det": lambda op, a: np.linalg.det(a[0]),
    "inv": lambda op, a: np.linalg.inv(a[0]),
    "logdet": lambda op, a: np.linalg.slogdet(a[0])[1],
    "detsign": lambda op, a: np.linalg.slogdet(a[0])[0],
    "cholesky": lambda op, a: np.linalg.cholesky(a[0]),
    "eigvalsh": lambda op, a: np.linalg.eigh(a[0])[0],
    "eigvecsh": lambda op, a: np.linalg.eigh(a[0])[1],
    "tril": lambda op, a: np.tril(a[0], op.attrs.get("k", 0)),
    "solve": lambda op, a: np.linalg.solve(a[0], a[1]),
    "norm": lambda op, a: np.linalg.norm(a[0], axis=op.attrs.get("axis")),
    "concat": lambda op, a: np.concatenate(a, axis=op.attrs["axis"]),
    "stack": lambda op, a: np.stack(a, axis=op.attrs["axis"]),
    "convolve": lambda op, a: np.convolve(a[0], a[1], op.attrs["mode"]),
    "correlate": lambda op, a: np.correlate(a[0], a[1], op.attrs["mode"]),
    "interp": lambda op, a: np.interp(a[0], a[1], a[2]),
    "interp_weights": lambda op, a: special.interp_weights(np.atleast_1d(a[0]), a[1], np.atleast_1d(a[2])),
    "interp_breaks": lambda op, a: special.interp_breaks(np.atleast_1d(a[0]), a[1], a[2], np.atleast_1d(a[3])),
    "interp_slope": lambda op, a: _as_points(a[0], special.interp_slope(np.atleast_1d(a[0]), a[1], a[2])),
}


def _as_points(x: Any, values: Any) -> Any:
    """``values`` (one per point) shaped as the points ``x``: a number for a number."""
    return float(values[0]) if np.ndim(x) == 0 else values


def _slice_index(axes: list[str], bounds: list[Any]) -> tuple:
    index, k = [], 0
    for kind in axes:
        if kind == "r":
            index.append(slice(int(bounds[k]), int(bounds[k + 1])))
            k += 2
        else:
            index.append(int(bounds[k]))
            k += 1
    return tuple(index)


_NUMPY_UFUNC = {
    "asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh", "acosh": "arccosh",
    "atanh": "arctanh",
}


class ProgramStopped(Exception):
    """A ``stop`` op ran: the program would end there (C's exit or abort)."""


class _Tape:
    def __init__(self) -> None:
        self.items: list[Any] = []


class Interpreter:
    """Runs functions of ``module``; a kernel's thread built-ins read ``thread`` (see ``launch``)."""

    def __init__(self, module: Module, thread: Optional[Thread] = None,
                 externs: Optional[dict[str, Callable[..., Any]]] = None):
        self.module = module
        self.thread = thread
        self.externs = externs or {}  # the functions ``extern`` ops call, by name (defined elsewhere)

    def launch(self, name: str, launch: Launch, *args: Any) -> None:
        """Run kernel ``name`` once per thread of ``launch``, one thread after another.

        Sequential threads are a valid schedule of a kernel without barriers; the
        arrays in ``args`` are shared by all of them, as global memory is.
        """
        for thread in launch.threads():
            self.thread = thread
            self.call(name, *args)
        self.thread = None

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """``name(*args, **kwargs)`` as Python calls it: a parameter no argument gives takes its
        default (the function's ``param_defaults``)."""
        fn = self.module.functions[name]
        defaults = fn.attrs.get("param_defaults") or {}
        given = list(args)
        for p in fn.params[len(args):]:
            if p.name_hint in kwargs:
                given.append(kwargs[p.name_hint])
            elif p.name_hint in defaults:
                given.append(defaults[p.name_hint])
            else:
                raise TypeError(f"{fn.name}() missing argument '{p.name_hint}'")
        results = self.run(fn, given)
        if not results:
            return None
        return results[0] if len(results) == 1 else tuple(results)

    def run(self, fn: Function, args: list[Any]) -> list[Any]:
        if len(args) != len(fn.params):
            raise TypeError(f"{fn.name} takes {len(fn.params)} arguments, got {len(args)}")
        env: dict[Value, Any] = dict(zip(fn.params, args))
        return self._block(fn.body, env)

    def _block(self, block: Block, env: dict[Value, Any]) -> list[Any]:
        for op in block.ops:
            if op.name in ("yield", "return", "condition"):
                return [env[v] for v in op.operands]
            vals = self._op(op, env)
            for r, v in zip(op.results, vals):
                env[r] = v
        return []

    def _scalar(self, v: Value, x: Any) -> Any:
        t = v.type
        if t.is_float:
            return float(x) if t.name == "f64" else np.float32(x)
        if t.is_int:
            return int(x)
        if getattr(t, "is_bool", False):
            return bool(x)
        return x

    def _op(self, op: Op, env: dict[Value, Any]) -> list[Any]:
        n = op.name
        a = [env[v] for v in op.operands]
        if n == "const":
            return [self._scalar(op.result, op.attrs["value"])]
        if n in _BINARY:
            return [self._scalar(op.result, _BINARY[n](a[0], a[1]))]
        if n == "neg":
            return [-a[0]]
        if n == "not":
            return [not a[0]]
        if n == "bitnot":
            return [~a[0]]
        if n == "select":
            return [a[1] if a[0] else a[2]]
        if n == "cast":
            return [self._scalar(op.result, a[0])]
        if n == "undef":
            return [self._scalar(op.result, 0)]
        if n.startswith("math."):
            return [self._scalar(op.result, _MATH[n[5:]](*a))]
        if n == "load":
            return [self._scalar(op.result, a[0][tuple(a[1:])])]
        if n == "store":
            a[0][tuple(a[1:-1])] = a[-1]
            return []
        if n == "accum":  # as load, add, store: the element read as a scalar of the value's type
            at = tuple(a[1:-1])
            value = op.operands[-1]
            a[0][at] = self._scalar(value, _BINARY["add"](self._scalar(value, a[0][at]), a[-1]))
            return []
        if n == "alloc":
            dtype = _DTYPES[op.attrs.get("elem", "f64")]
            shape = tuple(int(d) for d in a)
            return [np.zeros(shape, dtype) if op.attrs.get("fill") == "zeros" else np.empty(shape, dtype)]
        if n == "copy":  # copy(x) or copy(x, n): x[:n]
            return [a[0].copy() if len(a) == 1 else a[0][: int(a[1])].copy()]
        if n == "view":
            return [a[0][a[1]] if op.result.type.rank < a[0].ndim else a[0][a[1]:]]  # a row, or the rows from off
        if n == "dim":
            return [int(a[0].shape[op.attrs["axis"]])]
        if n in GPU_BUILTINS:
            if self.thread is None:
                raise RuntimeError(f"interpreter: {n} outside a kernel launch (use Interpreter.launch)")
            return [self.thread.value(n, op.attrs["axis"])]
        if n == "gpu.sync":
            raise NotImplementedError("interpreter: __syncthreads() needs the threads of a block to run "
                                      "together; run such kernels in the emulation (tests/cuda_emu.h)")
        if n == "field":
            return [field_value(op.attrs, [int(x) for x in a])]
        if n in NAMES:
            return _array_op(op, a)
        if n == "call":
            return self.run(self.module.functions[op.attrs["callee"]], a)
        if n in ("extern", "global"):
            callee = op.attrs["callee"]
            if callee not in self.externs:
                raise NotImplementedError(f"interpreter: '{callee}' is defined outside the input: pass externs=")
            return [self._scalar(op.result, self.externs[callee](*a))]
        if n == "comment":
            return []
        if n == "stop":
            raise ProgramStopped(f"the program stops here: {op.attrs.get('text', op.attrs.get('call'))}")
        if n == "tape.new":
            return [_Tape()]
        if n == "tape.push":
            a[0].items.append(a[1])
            return []
        if n == "tape.pop":
            return [a[0].items.pop()]
        if n == "for":
            lb, ub, step, *carried = a
            body = op.regions[0]
            for i in range(lb, ub, step):
                carried = self._block(body, {**env, **dict(zip(body.args, [i, *carried]))})
            return carried
        if n == "if":
            return self._block(op.regions[0] if a[0] else op.regions[1], dict(env))
        if n == "while":
            cond, body = op.regions
            carried = a
            while True:
                (c,) = self._block(cond, {**env, **dict(zip(cond.args, carried))})
                if not c:
                    return carried
                carried = self._block(body, {**env, **dict(zip(body.args, carried))})
        raise NotImplementedError(f"interpreter: op {n}")
