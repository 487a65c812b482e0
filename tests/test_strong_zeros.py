"""A rule at a singular point of its derivative met by an adjoint that is 0 (adjoint/strong_zeros.py):
``r = sqrt(dx * dx)`` computed for every pair and used under ``if (i != j)`` has the adjoint 0 at
``i == j``, where r is 0, and ``0 / (2 r)`` was NaN in the gradient of every such n-body or Coulomb
energy (probe round 10), in C and in NumPy (the diagonal of a distance matrix that the pair loop
never reads). The rule now reads its values masked by the adjoint; each program is checked against
central differences by ``s2sad check``, for every output language, at two seeds."""

from __future__ import annotations

import pytest

from source_gradients import HEADER, check_command
from s2sad import pipeline

C_PROGRAMS = r"""
#include <math.h>

double pairs_apart(int n, const double *x, const double *q) {
    double e = 0.0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            double dx = x[i] - x[j];
            double r = sqrt(dx * dx);
            if (i != j) {
                e += q[i] * q[j] / r;
            }
        }
    }
    return e;
}

double guarded_by_distance(int n, const double *x, const double *y) {
    double e = 0.0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            double r = sqrt((x[i] - x[j]) * (x[i] - x[j]) + (y[i] - y[j]) * (y[i] - y[j]));
            double inv = 1.0 / r;
            double l = log(r);
            if (r > 0.0) {
                e += inv + l * l;
            }
        }
    }
    return e;
}
"""

PY_PROGRAMS = HEADER + '''
def coulomb(x: "f64[n, 3]", q: "f64[n]"):
    d = x[:, None, :] - x[None, :, :]
    r = np.sqrt(np.sum(d**2, axis=2))
    n = x.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            e += q[i] * q[j] / r[i, j]
    return e


def diameter(x: "f64[n, 2]"):
    d = x[:, None, :] - x[None, :, :]
    return np.max(np.sqrt(np.sum(d * d, axis=2)))


def pair_loop(x: "f64[n]", q: "f64[n]"):
    e = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[0]):
            r = math.sqrt((x[i] - x[j]) ** 2)
            if i != j:
                e += q[i] / r
    return e
'''

# (Python output of guarded_by_distance would raise where C's log(0) is -inf: C output only.)
C_CASES = [("pairs_apart", "x,q", "n=5,x=5,q=5", "c"), ("pairs_apart", "x,q", "n=5,x=5,q=5", "py"),
           ("guarded_by_distance", "x,y", "n=5,x=5,y=5", "c")]
PY_CASES = [("coulomb", "x,q", "x=5x3,q=5"), ("diameter", "x", "x=6x2"), ("pair_loop", "x,q", "x=5,q=5")]


@pytest.mark.parametrize("func, wrt, sizes, target", C_CASES, ids=[f"{c[0]}-{c[3]}" for c in C_CASES])
def test_c_pair_energies_have_no_nan(func, wrt, sizes, target, tmp_path, capsys):
    for seed in ("0", "1"):
        check_command(tmp_path, capsys, C_PROGRAMS, func, wrt, sizes, target, name="prog.c", extra=("--seed", seed))


@pytest.mark.parametrize("target", ["py", "numba", "c"])
@pytest.mark.parametrize("func, wrt, sizes", PY_CASES, ids=[c[0] for c in PY_CASES])
def test_numpy_pair_energies_have_no_nan(func, wrt, sizes, target, tmp_path, capsys):
    for seed in ("0", "1"):
        check_command(tmp_path, capsys, PY_PROGRAMS, func, wrt, sizes, target, extra=("--seed", seed))


def test_only_adjoints_that_may_vanish_are_masked():
    text = pipeline.gradient_source(C_PROGRAMS, "prog.c", "pairs_apart", ["x", "q"], "c")
    assert "d_r / (2.0 * (d_r != 0.0 ? r : 1.0))" in text, text
    text = pipeline.gradient_source(PY_PROGRAMS, "prog.py", "coulomb", ["x", "q"], "py")
    assert "r_used = np.where(d_r != 0.0, r, 1.0)" in text, text
    # The seed through products alone: 0 only where the user passes 0, no mask.
    plain = "#include <math.h>\ndouble f(int n, const double *x) {\n    double s = 0.0;\n" \
            "    for (int i = 0; i < n; i++) s += sqrt(x[i]) / x[i];\n    return s;\n}\n"
    text = pipeline.gradient_source(plain, "prog.c", "f", ["x"], "c")
    assert "!= 0.0" not in text, text
