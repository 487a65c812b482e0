"""The intrinsics Python spells with a function of the output's own (``mathfns``: ``py``).

Each is written as the Python output prints it: the interpreter (and so the fold pass)
calls these very functions, and the Python emitter prints their source
(``source_of``), with ``@numba.njit`` for Numba, so the reference semantics and the
generated code cannot drift apart. They use ``math`` and ``np`` only, in the subset
Numba compiles, and hold the output to ruff's default rules.

``digamma`` is the derivative of ``lgamma`` (and, times the result, of ``tgamma``),
which neither ``math`` nor NumPy offers (SciPy is no dependency of s2sad's output).
The C output carries its twin (``emit_c.helpers.HELPERS``); both are checked against
mpmath in ``tests/test_special.py``.
"""

from __future__ import annotations

import inspect
import math
import textwrap

import numpy as np


def digamma(x):
    """psi(x) = d lgamma(x) / dx: the recurrence psi(x) = psi(x + 1) - 1 / x up to x >= 6, then
    the asymptotic series (to x**-14: below 2e-13 there); psi(1 - x) - pi / tan(pi x) below 0."""
    acc = 0.0
    if x <= 0.0:
        n = np.rint(x)
        if x == n:
            return math.nan  # a pole (lgamma is infinite there), -inf too
        # x - n is exact, in [-1/2, 1/2]: pi / tan(pi x) has period 1, and a small argument
        # keeps tan accurate near the poles.
        acc = -math.pi / math.tan(math.pi * (x - n))
        x = 1.0 - x
    while x < 6.0:
        acc -= 1.0 / x
        x += 1.0
    f = 1.0 / (x * x)
    series = f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (
        1.0 / 132 - f * (691.0 / 32760 - f * (1.0 / 12)))))))
    return acc + math.log(x) - 0.5 / x - series


def trigamma(x):
    """psi'(x) = d digamma(x) / dx: the recurrence psi'(x) = psi'(x + 1) + 1 / x**2 up to x >= 10,
    then the asymptotic series (to x**-15: below 1e-15 there); below 0 the reflection
    psi'(x) = pi**2 / sin(pi x)**2 - psi'(1 - x)."""
    acc = 0.0
    sign = 1.0
    if x <= 0.0:
        n = np.rint(x)
        if x == n:
            return math.nan  # a pole of digamma
        s = math.sin(math.pi * (x - n))
        acc = math.pi * math.pi / (s * s)
        sign = -1.0
        x = 1.0 - x
    t = 0.0
    while x < 10.0:
        t += 1.0 / (x * x)
        x += 1.0
    f = 1.0 / (x * x)
    series = (1.0 + 0.5 / x + f * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f * (1.0 / 30 - f * (
        5.0 / 66 - f * (691.0 / 2730 - f * (7.0 / 6)))))))) / x
    return acc + sign * (t + series)


def expit(x):
    """The logistic sigmoid 1 / (1 + exp(-x)), SciPy's expit, without overflow for large |x|."""
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def round_half_away(x):
    """C's round(x): halfway cases away from zero (Python's round and np.rint go to the even one)."""
    t = np.trunc(x)
    if abs(x) < 4503599627370496.0 and abs(x - t) >= 0.5:  # below 2**52, x - t is exact
        return t + np.copysign(1.0, x)
    return t


def fdim(a, b):
    """C's fdim(a, b): a - b where a > b, else +0 (NaN where either is NaN)."""
    if a > b:
        return a - b
    if math.isnan(a) or math.isnan(b):
        return math.nan
    return 0.0


def logb(x):
    """C's logb(x): the exponent of x, floor(log2 |x|), exactly (-inf at 0, inf at +-inf)."""
    if x == 0.0:
        return -math.inf
    if math.isinf(x) or math.isnan(x):
        return abs(x)
    return float(math.frexp(x)[1] - 1)


def prod_of_others(x):
    """For each entry of x, the product of all the others (the gradient of np.prod(x)): running
    products from both ends, so that an entry of 0 gets the product of the rest (prod(x) / x would
    divide 0 by 0)."""
    flat = np.ravel(x)
    n = flat.size
    before = np.ones(n)
    after = np.ones(n)
    if n > 1:
        before[1:] = np.cumprod(flat[:-1])
        after[:-1] = np.cumprod(flat[::-1][:-1])[::-1]
    return (before * after).reshape(np.shape(x))


def prod_of_others_in_rows(x):
    """prod_of_others of each row of the matrix x (the gradient of np.prod(x, axis=1))."""
    m, n = x.shape
    before = np.ones((m, n))
    after = np.ones((m, n))
    for i in range(m):
        if n > 1:
            before[i, 1:] = np.cumprod(x[i, :-1])
            after[i, :-1] = np.cumprod(x[i, ::-1][:-1])[::-1]
    return before * after


def cumsum_in_rows(x):
    """np.cumsum(x, axis=1) of the matrix x, as Numba compiles it (its np.cumsum takes no axis)."""
    out = np.empty(x.shape)
    for i in range(x.shape[0]):
        out[i] = np.cumsum(x[i])
    return out


def max_of_rows(x):
    """np.max(x, axis=1) of the matrix x, as Numba compiles it (its np.max takes no axis)."""
    out = np.empty(x.shape[0])
    for k in range(x.shape[0]):
        out[k] = np.max(x[k])
    return out


def min_of_rows(x):
    """np.min(x, axis=1) of the matrix x, as Numba compiles it (its np.min takes no axis)."""
    out = np.empty(x.shape[0])
    for k in range(x.shape[0]):
        out[k] = np.min(x[k])
    return out


def prod_of_rows(x):
    """np.prod(x, axis=1) of the matrix x, as Numba compiles it (its np.prod takes no axis)."""
    out = np.empty(x.shape[0])
    for k in range(x.shape[0]):
        out[k] = np.prod(x[k])
    return out


def roll_axis(x, shift, axis):
    """np.roll(x, shift, axis=axis) as Numba compiles it (its np.roll takes no axis, rolling
    the flattened entries): the axis swapped to the front, each slice stored shift places on."""
    moved = np.swapaxes(x, 0, axis)
    n = moved.shape[0]
    out = np.empty_like(moved)
    for i in range(n):
        out[(i + shift) % n] = moved[i]
    return np.swapaxes(out, 0, axis)


def pad_sources(n, lo, hi, mode):
    """For each position of an axis of extent n that np.pad(..., mode) makes lo + n + hi long, the
    position whose entry it copies (its own, in the middle), in the modes that copy entries
    ("edge", "wrap", "reflect", "symmetric")."""
    j = np.arange(-lo, n + hi)  # counted from the axis's first entry
    if mode == "edge":
        return np.minimum(np.maximum(j, 0), n - 1)
    if mode == "wrap":
        return j % n
    if mode == "reflect":  # back and forth without repeating an end: period 2n - 2
        period = max(2 * n - 2, 1)
        return np.where(j % period < n, j % period, period - j % period)
    return np.where(j % (2 * n) < n, j % (2 * n), 2 * n - 1 - j % (2 * n))  # symmetric: period 2n


def pad(x, widths, mode, value=0.0):
    """np.pad(x, widths, mode, constant_values=value) as Numba compiles it (it has no np.pad):
    axis by axis, the axis swapped to the front, each slice of the padded array the value or a
    copy of the slice of x it stands for (pad_sources)."""
    for axis in range(x.ndim):
        lo, hi = widths[axis]
        rows = np.swapaxes(x, 0, axis)
        n = rows.shape[0]
        if n == 0 and lo + hi > 0 and mode != "constant":  # nothing to copy: NumPy raises too
            raise ValueError("can't extend an empty axis using modes other than 'constant' or 'empty'")
        out = np.empty((lo + n + hi,) + rows.shape[1:], dtype=rows.dtype)
        if mode == "constant":
            out[:] = value
            out[lo : lo + n] = rows
        else:
            source = pad_sources(n, lo, hi, mode)
            for i in range(lo + n + hi):
                out[i] = rows[source[i]]
        x = np.ascontiguousarray(np.swapaxes(out, 0, axis))
    return x


def unpad(g, widths, mode):
    """The adjoint of np.pad(x, widths, mode) with respect to x, for the adjoint g of the padded
    array, in the modes that copy entries of x (pad_sources): along each axis, each entry of g
    added to the entry it is a copy of (np.add.at adding up those copied more than once)."""
    for axis in range(g.ndim):
        lo, hi = widths[axis]
        rows = np.moveaxis(g, axis, 0)
        n = rows.shape[0] - lo - hi
        out = np.zeros((n,) + rows.shape[1:])
        np.add.at(out, pad_sources(n, lo, hi, mode), rows)
        g = np.moveaxis(out, 0, axis)
    return g


def unpad_numba(g, widths, mode):
    """unpad as Numba compiles it (it has no np.add.at nor np.moveaxis): the axis swapped to the
    front, each slice of g added into the slice it is a copy of."""
    for axis in range(g.ndim):
        lo, hi = widths[axis]
        rows = np.swapaxes(g, 0, axis)
        n = rows.shape[0] - lo - hi
        source = pad_sources(n, lo, hi, mode)
        out = np.zeros((n,) + rows.shape[1:])
        for i in range(lo + n + hi):
            out[source[i]] += rows[i]
        g = np.ascontiguousarray(np.swapaxes(out, 0, axis))
    return g


def interp_increasing(xp):
    """Refuses breakpoints xp that decrease somewhere: np.interp does not check them, and its
    values there are nonsense (NumPy's documentation says so), so would be their derivatives."""
    for j in range(xp.shape[0] - 1):
        if xp[j + 1] < xp[j]:
            raise ValueError("np.interp's xp must be increasing: its values are nonsense where it is not")


def interp_weights(x, xp, g):
    """The adjoint of np.interp(x, xp, fp) with respect to fp, for the adjoint g of its values
    at the points x: each point's g split between the two values it lies between, by its
    weights, as np.interp weighs them (all of it to fp[0] or fp[-1] beyond an end)."""
    interp_increasing(xp)
    n = xp.shape[0]
    out = np.zeros(n)
    for i in range(x.shape[0]):
        if x[i] <= xp[0]:
            out[0] += g[i]
        elif x[i] < xp[n - 1]:
            j = np.searchsorted(xp, x[i], side="right") - 1
            w = (x[i] - xp[j]) / (xp[j + 1] - xp[j])
            out[j] += g[i] * (1.0 - w)
            out[j + 1] += g[i] * w
        else:  # at or past the last point (or NaN, whose value is NaN anyway)
            out[n - 1] += g[i]
    return out


def interp_breaks(x, xp, fp, g):
    """The adjoint of np.interp(x, xp, fp) with respect to the breakpoints xp, for the adjoint g
    of its values at the points x: moving xp[j] or xp[j + 1] tilts the piece a point lies on
    (by -slope * (1 - w) and -slope * w, w its weight); beyond the ends the value is fp's end."""
    interp_increasing(xp)
    n = xp.shape[0]
    out = np.zeros(n)
    for i in range(x.shape[0]):
        if xp[0] <= x[i] < xp[n - 1]:
            j = np.searchsorted(xp, x[i], side="right") - 1
            slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j])
            w = (x[i] - xp[j]) / (xp[j + 1] - xp[j])
            out[j] -= g[i] * slope * (1.0 - w)
            out[j + 1] -= g[i] * slope * w
    return out


def interp_slope(x, xp, fp):
    """d np.interp(x, xp, fp) / dx at each point of x: the slope of the piece it lies on (the
    one to its right at a breakpoint), 0 beyond the ends, where np.interp is constant."""
    interp_increasing(xp)
    n = xp.shape[0]
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        if xp[0] <= x[i] < xp[n - 1]:
            j = np.searchsorted(xp, x[i], side="right") - 1
            out[i] = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j])
    return out


def sum_to_shape(t, shape, *met):
    """t summed down to shape, the way NumPy broadcast a value of that shape up to t's: over the
    leading axes the shape lacks, then over its axes of extent 1 (kept); the adjoint of a
    shape-generic parameter (a number, or an array of any shape that broadcasts). A shape that
    does not broadcast to t's without growing it is refused, never summed into a wrong one; so
    is one that grows the arrays it meets (``met``: their shapes), whose results the gradient
    takes to keep their shape."""
    if met and np.broadcast_shapes(shape, *met) != np.broadcast_shapes(*met):
        arrays = " and ".join(str(tuple(m)) for m in met)
        raise ValueError(f"shape {tuple(shape)} grows the arrays it meets, {arrays}")
    t = np.asarray(t)
    lead = t.ndim - len(shape)
    if lead < 0 or any(s not in (1, e) for s, e in zip(shape, t.shape[lead:])):
        raise ValueError(f"shape {tuple(shape)} does not broadcast to {t.shape}")
    out = t.sum(axis=tuple(range(lead))) if lead else t
    ones = tuple(k for k, s in enumerate(shape) if s == 1 and out.shape[k] != 1)
    return out.sum(axis=ones, keepdims=True) if ones else out


def sum_to_shape_numba(t, shape, *met):
    """sum_to_shape as Numba compiles it (no tuple of axes to sum over): each element of t added
    into the element of the result it was broadcast from. The shapes are padded with a leading 1
    so that no tuple indexed is empty (a number's shape is ``()``); a number comes back a number."""
    if len(met) > 0 and np.broadcast_shapes(shape, *met) != np.broadcast_shapes(*met):
        raise ValueError("a shape-generic value grows the arrays it meets")
    t = np.asarray(t)
    lead = t.ndim - len(shape)
    full = (1,) + shape
    given = (1,) + t.shape
    if lead < 0:
        raise ValueError("a shape-generic value does not broadcast to its adjoint")
    for k in range(1, len(full)):
        if full[k] != 1 and full[k] != given[lead + k]:
            raise ValueError("a shape-generic value does not broadcast to its adjoint")
    out = np.zeros(full)
    flat = out.reshape(-1)
    for index in np.ndindex(t.shape):
        padded = (0,) + index
        at = 0
        for k in range(1, len(full)):
            at = at * full[k] + (padded[lead + k] if full[k] != 1 else 0)
        flat[at] += t[index]
    return out[0]


def add_into(x, v):
    """x += v in place, where v may be an array of another shape (computed from a shape-generic
    value): refused where v does not broadcast to x's shape, as NumPy refuses it (Numba's in-place
    addition does not check, and would add a longer v's first elements)."""
    if np.broadcast_shapes(np.shape(x), np.shape(v)) != np.shape(x):
        raise ValueError("a shape-generic value grows the arrays it meets")
    x += v


def spread(g, like):
    """g (a number, or an array that broadcasts) spread over like's shape, a new array (a number
    for a number's shape): np.full_like(like, g), which takes an array g and a number like."""
    return np.full_like(np.asarray(like, dtype=np.float64), g)[()]


def spread_numba(g, like):
    """spread as Numba compiles it (its np.full_like takes a number only, and np.broadcast_to no
    shape ``()``): a row of like's shape, one longer, filled with g by assignment."""
    out = np.empty((1,) + np.shape(like))
    out[0] = g
    return out[0]


def argsort_untied(a):
    """np.argsort(a) where the primal sorts with NumPy's quicksort or heapsort, as Numba output
    computes it: a stable sort, which gives NumPy's order wherever no two entries are equal;
    refused where two are (those orders differ, and with them the positions the primal reads)."""
    order = np.argsort(a, kind="mergesort")
    for k in range(order.shape[0] - 1):
        p, q = a[order[k]], a[order[k + 1]]
        if p == q or (np.isnan(p) and np.isnan(q)):
            raise ValueError(
                "np.argsort: equal entries, which NumPy's quicksort orders as Numba's "
                'does not (pass kind="stable" to np.argsort)'
            )
    return order


# Numba output sets it where the module loads: whether SciPy, through which Numba calls BLAS, is
# installed (``matmul_numba``). False here, where nothing reads it.
NUMBA_BLAS = False


def matmul(a, b):
    """``a @ b`` of two matrices of float64 (Numba output spells it its own way)."""
    return a @ b


def matmul_numba(a, b):
    """``a @ b`` of two matrices of float64 as Numba compiles it: BLAS's product where SciPy is
    installed (Numba calls BLAS through it), else the product's loops over contiguous copies, each
    row of b scaled by an entry of a and added into the row of the result, read in order."""
    if NUMBA_BLAS:
        return np.dot(np.ascontiguousarray(a), np.ascontiguousarray(b))
    a = np.ascontiguousarray(a)
    b = np.ascontiguousarray(b)
    out = np.zeros((a.shape[0], b.shape[1]))
    for i in range(a.shape[0]):
        for k in range(a.shape[1]):
            aik = a[i, k]
            for j in range(b.shape[1]):
                out[i, j] += aik * b[k, j]
    return out


def elementwise(a, op, b):
    """``a op b`` of two arrays as NumPy broadcasts them, computed on both spread to the
    result's shape and flattened: Numba output's spelling where the result has 3 axes or
    more, since Numba compiles such an operation of two arrays as a loop nest per axis,
    slowly (about 35 s for 4 axes, 7 s for 3, against a second or two this way, compiled
    once for all the operations on arrays of the same types)."""
    shape = np.broadcast_shapes(a.shape, b.shape)
    x = np.ascontiguousarray(np.broadcast_to(a, shape)).ravel()
    y = np.ascontiguousarray(np.broadcast_to(b, shape)).ravel()
    if op == "+":
        r = x + y
    elif op == "-":
        r = x - y
    elif op == "*":
        r = x * y
    elif op == "/":
        r = x / y
    elif op == "//":
        r = x // y
    elif op == "%":
        r = x % y
    else:
        r = x**y
    return r.reshape(shape)


FUNCTIONS = {"digamma": digamma, "trigamma": trigamma, "expit": expit, "round_half_away": round_half_away,
             "fdim": fdim, "logb": logb, "prod_of_others": prod_of_others,
             "prod_of_others_in_rows": prod_of_others_in_rows, "cumsum_in_rows": cumsum_in_rows,
             "max_of_rows": max_of_rows, "min_of_rows": min_of_rows, "prod_of_rows": prod_of_rows,
             "sum_to_shape": sum_to_shape, "interp_weights": interp_weights, "interp_slope": interp_slope,
             "interp_breaks": interp_breaks, "interp_increasing": interp_increasing, "spread": spread,
             "add_into": add_into, "roll_axis": roll_axis,
             "pad_sources": pad_sources, "pad": pad, "unpad": unpad, "argsort_untied": argsort_untied,
             "matmul": matmul, "elementwise": elementwise}

# The helpers each helper calls (printed with it, under their names in the output).
REQUIRES = {"pad": ("pad_sources",), "unpad": ("pad_sources",), "interp_weights": ("interp_increasing",),
            "interp_slope": ("interp_increasing",), "interp_breaks": ("interp_increasing",)}


# Helpers Numba output spells its own way, under the same name (sum_to_shape's tuple of axes
# would not compile there; spread is Numba output's only).
NUMBA_SPELLINGS = {"sum_to_shape": sum_to_shape_numba, "spread": spread_numba, "unpad": unpad_numba,
                   "matmul": matmul_numba}


def source_of(name: str, numba: bool = False) -> str:
    """The Python source of helper ``name``, as the output prints it (``numba``: as Numba output
    does, its own spelling under the same name)."""
    fn = NUMBA_SPELLINGS.get(name, FUNCTIONS[name]) if numba else FUNCTIONS[name]
    text = textwrap.dedent(inspect.getsource(fn)).rstrip("\n")
    return text.replace(f"def {fn.__name__}(", f"def {name}(", 1)


__all__ = ["FUNCTIONS", "NUMBA_SPELLINGS", "REQUIRES", "add_into", "argsort_untied", "cumsum_in_rows", "digamma",
           "elementwise", "expit", "fdim",
           "interp_breaks", "interp_increasing", "interp_slope", "interp_weights", "logb", "matmul", "matmul_numba",
           "max_of_rows", "min_of_rows", "prod_of_rows",
           "pad", "pad_sources",
           "prod_of_others",
           "prod_of_others_in_rows", "roll_axis", "round_half_away", "source_of", "spread", "spread_numba",
           "sum_to_shape", "sum_to_shape_numba", "trigamma", "unpad", "unpad_numba"]
