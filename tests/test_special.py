"""The output's own helpers for what the libraries lack (``s2sad.ssa.special`` for Python,
``emit_c.helpers.HELPERS`` for C and CUDA), against mpmath and C's libm.

``digamma`` (the derivative of ``lgamma``) must be accurate to about 1e-12 everywhere it is
finite: relative error where |psi| is not small, absolute near its root (1.4616...), where
any formula loses relative accuracy. The Python spellings of C's ``round``, ``fdim`` and
``logb`` must give C's own results, halfway cases, signed zeros, infinities and NaN included.
"""

from __future__ import annotations

import ctypes
import math

import mpmath
import numpy as np
import pytest
from cbuild import build, have_gcc

from s2sad.emit_c.helpers import HELPERS
from s2sad.ssa import special

# Around the reflection (negative x), the recurrence (0 < x < 6), the series (x >= 6), near the
# poles and the root, tiny and huge arguments.
POINTS = [0.37, 1.0, 1.4616321449683622, 1.46, 2.0, 5.99, 6.0, 6.01, 13.7, 250.5, 1e6, 1e15, 1e300, 1e-8, 1e-300,
          -0.5, -0.999999, -1.000001, -2.3, -7.8, -40.25, -1e-8, -123456.789, 0.5 + 1e-9]
DRAWN = [float(x) for x in np.random.default_rng(0).uniform(-30.0, 60.0, 300)]


def _psi(x: float) -> float:
    return float(mpmath.digamma(mpmath.mpf(x)))


def _close(got: float, want: float) -> bool:
    return abs(got - want) <= 1e-12 * max(1.0, abs(want))


@pytest.mark.parametrize("x", POINTS + [DRAWN])
def test_python_digamma_matches_mpmath(x):
    for x in x if isinstance(x, list) else [x]:
        assert _close(special.digamma(x), _psi(x)), (x, special.digamma(x), _psi(x))


def test_python_digamma_at_poles_and_infinities():
    for pole in (0.0, -0.0, -1.0, -2.0, -50.0, -1e20):
        assert math.isnan(special.digamma(pole)), pole
    assert special.digamma(math.inf) == math.inf
    assert math.isnan(special.digamma(-math.inf)) and math.isnan(special.digamma(math.nan))


@pytest.fixture(scope="module")
def libc():
    if not have_gcc():
        pytest.skip("gcc is not installed")
    source = HELPERS["digamma"] + """
double call_digamma(double x) { return digamma(x); }
double call_round(double x) { return round(x); }
double call_rint(double x) { return rint(x); }
double call_fdim(double a, double b) { return fdim(a, b); }
double call_logb(double x) { return logb(x); }
double call_remainder(double a, double b) { return remainder(a, b); }
"""
    lib = build("#include <math.h>\n" + source)
    for name, n in (("digamma", 1), ("round", 1), ("rint", 1), ("fdim", 2), ("logb", 1), ("remainder", 2)):
        f = getattr(lib, f"call_{name}")
        f.argtypes = [ctypes.c_double] * n
        f.restype = ctypes.c_double
    return lib


@pytest.mark.parametrize("x", POINTS + [DRAWN])
def test_c_digamma_matches_mpmath(libc, x):
    for x in x if isinstance(x, list) else [x]:
        got = libc.call_digamma(x)
        assert _close(got, _psi(x)), (x, got, _psi(x))


def test_c_digamma_is_nan_at_the_poles(libc):
    for pole in (0.0, -1.0, -2.0, -50.0, -math.inf):
        assert math.isnan(libc.call_digamma(pole)), pole
    assert libc.call_digamma(math.inf) == math.inf


EDGES = [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.49999999999999994, -0.49999999999999994, 2.0**52 + 1,
         -(2.0**52) - 1, 2.0**53, 1e300, 5e-324, 3.7, -3.7, math.inf, -math.inf, math.nan, 1024.0, 0.75, 1e-310]


def _same(a: float, b: float) -> bool:
    """Equal as C results are: NaN to NaN, and the sign of a zero too."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


@pytest.mark.parametrize("x", EDGES)
def test_python_round_rint_logb_are_cs(libc, x):
    assert _same(float(special.round_half_away(x)), libc.call_round(x)), x
    assert _same(float(np.rint(x)), libc.call_rint(x)), x  # the Python spelling of rint
    assert _same(special.logb(x), libc.call_logb(x)), x


@pytest.mark.parametrize("a", EDGES[::3])
@pytest.mark.parametrize("b", EDGES[1::4])
def test_python_fdim_and_remainder_are_cs(libc, a, b):
    assert _same(special.fdim(a, b), libc.call_fdim(a, b)), (a, b)
    try:
        py = math.remainder(a, b)
    except ValueError:  # Python raises where C gives NaN (remainder(x, 0), remainder(inf, y))
        assert math.isnan(libc.call_remainder(a, b))
    else:
        assert _same(py, libc.call_remainder(a, b)), (a, b)


def test_helpers_compile_under_numba():
    numba = pytest.importorskip("numba")
    for name in sorted(set(special.FUNCTIONS) - {"add_into"}):  # (in place: its own test below)
        namespace = {"math": math, "np": np, "numba": numba, "NUMBA_BLAS": name != "matmul"}  # (matmul: loops)
        for required in special.REQUIRES.get(name, ()):  # printed beside it in the output
            exec("@numba.njit\n" + special.source_of(required, numba=True), namespace)
        exec("@numba.njit\n" + special.source_of(name, numba=True), namespace)
        if name in _ARRAY_HELPERS:
            arg = _ARRAY_HELPERS[name]
            args = arg if isinstance(arg, tuple) else (arg,)
            assert np.array_equal(namespace[name](*args), special.FUNCTIONS[name](*args)), name
            continue
        args = (2.5, 1.0) if name == "fdim" else (2.5,)
        assert _same(float(namespace[name](*args)), float(special.FUNCTIONS[name](*args))), name
    blas = {"np": np, "numba": numba, "NUMBA_BLAS": True}  # matmul's other branch: BLAS through SciPy
    exec("@numba.njit\n" + special.source_of("matmul", numba=True), blas)
    a, b = _ARRAY_HELPERS["matmul"]
    assert np.array_equal(blas["matmul"](a, b), a @ b)
    psi = {"math": math, "np": np, "numba": numba}
    exec("@numba.njit\n" + special.source_of("digamma"), psi)
    assert all(_close(psi["digamma"](x), _psi(x)) for x in POINTS + DRAWN[::10])


# The helpers of whole-array adjoints, with an argument of theirs (a zero among the entries).
_ARRAY_HELPERS = {
    "matmul": (np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(4, 3).T),  # (b not contiguous)
    "sum_to_shape": (np.arange(6.0).reshape(2, 3), (1, 3), (2, 3)),
    "spread": (np.arange(3.0), np.ones((2, 3))),
    "prod_of_others": np.array([2.0, 0.0, 3.0, 5.0]),
    "prod_of_others_in_rows": np.array([[2.0, 0.0, 3.0], [1.5, 2.0, -1.0]]),
    "cumsum_in_rows": np.array([[2.0, 0.0, 3.0], [1.5, 2.0, -1.0]]),
    # a matrix reduced along its rows (Numba's np.max, np.min, np.prod take no axis)
    "max_of_rows": np.array([[2.0, 0.0, 3.0], [1.5, 2.0, -1.0]]),
    "min_of_rows": np.array([[2.0, 0.0, 3.0], [1.5, 2.0, -1.0]]),
    "prod_of_rows": np.array([[2.0, 0.0, 3.0], [1.5, 2.0, -1.0]]),
    # np.interp's adjoints: points before, at, between and past the breakpoints
    "interp_weights": (np.array([-1.0, 0.0, 0.5, 2.0, 3.5, 9.0]), np.array([0.0, 1.0, 2.0, 4.0]),
                       np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])),
    "interp_slope": (np.array([-1.0, 0.0, 0.5, 2.0, 3.5, 9.0]), np.array([0.0, 1.0, 2.0, 4.0]),
                     np.array([1.0, -2.0, 0.5, 3.0])),
    "interp_breaks": (np.array([-1.0, 0.0, 0.5, 2.0, 3.5, 9.0]), np.array([0.0, 1.0, 2.0, 4.0]),
                      np.array([1.0, -2.0, 0.5, 3.0]), np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])),
    "interp_increasing": np.array([0.0, 1.0, 1.0, 4.0]),  # (ties allowed: it returns None)
    # np.argsort of an unstable kind, as Numba output sorts (entries apart: one order)
    "argsort_untied": np.array([3.0, -1.0, 0.5, 2.0, -4.0]),
    # np.roll along an axis and np.pad (Numba has neither) and its adjoint; widths past an extent
    "roll_axis": (np.arange(12.0).reshape(3, 4), -5, 1),
    "pad_sources": (3, 2, 5, "reflect"),
    "pad": (np.arange(12.0).reshape(3, 4), ((1, 4), (2, 0)), "symmetric"),
    "unpad": (np.arange(40.0).reshape(5, 8), ((1, 1), (2, 3)), "wrap"),
    # two arrays of 3 axes combined, as Numba output computes them (each stretched along an axis)
    "elementwise": (np.arange(6.0).reshape(2, 1, 3), "*", np.arange(1.0, 5.0).reshape(1, 4, 1)),
}


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "//", "%", "**"])
def test_elementwise_is_numpys_operation_of_the_arrays_broadcast(op):
    """special.elementwise, Numba output's spelling of an operation of two arrays of many axes, is
    NumPy's: the shapes broadcast (axes stretched on both sides, a missing leading one) and each
    entry the operator's."""
    a = np.linspace(0.5, 3.0, 12).reshape(3, 1, 4)
    b = np.linspace(1.25, 2.0, 10).reshape(2, 1, 5, 1)
    got = special.elementwise(a, op, b)
    want = eval(f"a {op} b")
    assert got.shape == want.shape == (2, 3, 5, 4)
    assert np.array_equal(got, want)


def test_interp_helpers_are_the_derivatives_of_np_interp():
    rng = np.random.default_rng(7)
    xp = np.sort(rng.uniform(0.0, 5.0, 7))
    fp = rng.normal(size=7)
    x = np.concatenate([rng.uniform(-1.0, 6.0, 12), [-2.0, 7.0]])  # points beyond both ends too
    g = rng.normal(size=x.size)
    h = 1e-6

    def J(x_, xp_, fp_):
        return float(np.sum(g * np.interp(x_, xp_, fp_)))

    def fd(f, v):
        return np.array([(f(v + h * e) - f(v - h * e)) / (2 * h) for e in np.eye(v.size)])

    np.testing.assert_allclose(g * special.interp_slope(x, xp, fp), fd(lambda v: J(v, xp, fp), x), atol=1e-7)
    np.testing.assert_allclose(special.interp_weights(x, xp, g), fd(lambda v: J(x, xp, v), fp), atol=1e-7)
    np.testing.assert_allclose(special.interp_breaks(x, xp, fp, g), fd(lambda v: J(x, v, fp), xp), atol=1e-6)


@pytest.mark.parametrize("helper", ["interp_slope", "interp_weights", "interp_breaks"])
def test_interp_helpers_refuse_breakpoints_that_decrease(helper):
    """np.interp's values are nonsense where xp decreases (it does not check): the gradient said
    nothing, and its adjoints matched no derivative of them (probe: check's random xp). Equal
    breakpoints, which NumPy allows, stay accepted."""
    x, fp, g = np.array([0.5, 1.5]), np.array([1.0, 2.0, 0.5]), np.array([1.0, -1.0])
    args = {"interp_slope": (x, None, fp), "interp_weights": (x, None, g), "interp_breaks": (x, None, fp, g)}[helper]
    fn = getattr(special, helper)
    with pytest.raises(ValueError, match="np.interp's xp must be increasing"):
        fn(*[np.array([0.0, 2.0, 1.0]) if a is None else a for a in args])
    fn(*[np.array([0.0, 1.0, 1.0]) if a is None else a for a in args])


def _products_of_others(x: np.ndarray) -> np.ndarray:
    flat = x.ravel()
    return np.array([np.prod(np.delete(flat, k)) for k in range(flat.size)]).reshape(x.shape)


@pytest.mark.parametrize("x", [[2.0, 0.0, 3.0, 5.0], [0.0, 0.0, 4.0], [0.0], [], [1.5, -2.0, 0.25],
                               [[2.0, 0.0], [3.0, 5.0]]])
def test_prod_of_others_is_the_product_of_the_other_entries_zeros_included(x):
    x = np.array(x, dtype=float)
    assert np.array_equal(special.prod_of_others(x), _products_of_others(x))


def test_prod_of_others_in_rows_and_cumsum_in_rows_go_row_by_row():
    x = np.array([[2.0, 0.0, 3.0], [1.5, 2.0, -1.0], [0.0, 0.0, 7.0]])
    assert np.array_equal(special.prod_of_others_in_rows(x), np.array([_products_of_others(r) for r in x]))
    assert np.array_equal(special.cumsum_in_rows(x), np.cumsum(x, axis=1))


def _trigamma(x: float) -> float:
    return float(mpmath.psi(1, mpmath.mpf(x)))


@pytest.mark.parametrize("x", POINTS[:14] + POINTS[15:] + [DRAWN])
def test_python_trigamma_matches_mpmath(x):
    for x in x if isinstance(x, list) else [x]:
        assert abs(special.trigamma(x) - _trigamma(x)) <= 1e-12 * max(1.0, abs(_trigamma(x))), x
    for pole in (0.0, -1.0, -3.0):
        assert math.isnan(special.trigamma(pole))


def test_python_expit_matches_mpmath_without_overflow():
    for x in (-1000.0, -40.0, -1.5, 0.0, 1e-9, 2.0, 35.0, 1000.0):
        want = float(1 / (1 + mpmath.exp(-mpmath.mpf(x))))
        assert abs(special.expit(x) - want) <= 1e-15 * want, x


def test_c_trigamma_and_expit_match_python():
    if not have_gcc():
        pytest.skip("gcc is not installed")
    lib = build("#include <math.h>\n" + HELPERS["trigamma"] + "\n" + HELPERS["expit"] + "\n" + HELPERS["sign"] + """
double call_trigamma(double x) { return trigamma(x); }
double call_expit(double x) { return expit(x); }
double call_sign(double x) { return sign(x); }
""")
    for name in ("trigamma", "expit", "sign"):
        f = getattr(lib, f"call_{name}")
        f.argtypes, f.restype = [ctypes.c_double], ctypes.c_double
    for x in POINTS[:14] + POINTS[15:] + DRAWN:
        assert abs(lib.call_trigamma(x) - special.trigamma(x)) <= 1e-13 * max(1.0, abs(special.trigamma(x))), x
        assert abs(lib.call_expit(x) - special.expit(x)) <= 1e-15, x
        assert lib.call_sign(x) == np.sign(x), x
    assert math.isnan(lib.call_trigamma(-2.0)) and math.isnan(lib.call_sign(math.nan))


def test_numba_sum_to_shape_sums_as_numpy_broadcast_and_refuses_the_same_shapes():
    """Numba output's sum_to_shape (an element at a time) against Python output's (sums over axes):
    the same values and shapes at every way a shape broadcasts to a (2, 3, 4) adjoint, a number
    for (), and a ValueError where Python's raises (a shape that does not broadcast, or grows the
    arrays it meets)."""
    numba = pytest.importorskip("numba")
    namespace = {"math": math, "np": np, "numba": numba}
    exec("@numba.njit\n" + special.source_of("sum_to_shape", numba=True), namespace)
    compiled = namespace["sum_to_shape"]
    t = np.arange(24.0).reshape(2, 3, 4) - 7.5
    shapes = [(), (4,), (1,), (3, 4), (3, 1), (1, 4), (2, 3, 4), (2, 1, 4), (1, 1, 1), (2, 1, 1)]
    for shape in shapes:
        for met in [(), ((2, 3, 4),), ((3, 4), (2, 1, 1))]:
            want = special.sum_to_shape(t, shape, *met)
            got = compiled(t, shape, *met)
            assert np.shape(got) == np.shape(want) and np.allclose(got, want), (shape, met)
            if shape == ():
                assert not isinstance(got, np.ndarray), "a number's adjoint comes back a number"
    for shape, met in [((5,), ()), ((2, 3), ()), ((3, 3, 3, 4), ()), ((2, 3, 4), ((3, 4),))]:
        with pytest.raises(ValueError):
            special.sum_to_shape(t, shape, *met)
        with pytest.raises(ValueError):
            compiled(t, shape, *met)
    assert compiled(2.5, ()) == 2.5  # a number summed to a number


def test_numba_spread_fills_any_shape_a_number_included():
    """Numba output's spread (np.full_like with a fill that may be an array, of a like that may be
    a number) against Python's, at every kind of fill and shape; a number for a number's shape."""
    numba = pytest.importorskip("numba")
    namespace = {"math": math, "np": np, "numba": numba}
    exec("@numba.njit\n" + special.source_of("spread", numba=True), namespace)
    compiled = namespace["spread"]
    for g, like in [(2.0, 3.0), (2.0, np.ones(3)), (np.arange(3.0), np.ones(3)), (np.arange(3.0), np.ones((2, 3))),
                    (np.ones((2, 1)), np.ones((2, 3)))]:
        got, want = compiled(g, like), special.spread(g, like)
        assert np.shape(got) == np.shape(want) == np.shape(like) and np.array_equal(got, want)
    assert not isinstance(compiled(2.0, 3.0), np.ndarray)


def test_numba_add_into_adds_what_fits_and_refuses_what_grows():
    """Numba's ``x += v`` of a longer v adds its first elements: add_into checks first."""
    numba = pytest.importorskip("numba")
    namespace = {"math": math, "np": np, "numba": numba}
    exec("@numba.njit\n" + special.source_of("add_into", numba=True), namespace)
    compiled = namespace["add_into"]
    for add in (special.add_into, compiled):
        x = np.ones((2, 3))
        add(x, 2.0)
        add(x, np.arange(3.0))
        add(x, np.ones((2, 1)))
        np.testing.assert_array_equal(x, np.broadcast_to(4.0 + np.arange(3.0), (2, 3)))
        for v in (np.ones(4), np.ones((3, 3)), np.ones((1, 2, 3))):
            with pytest.raises(ValueError):
                add(x, v)
