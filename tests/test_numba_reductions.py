"""Numba output reduces a matrix along an axis (np.max, np.min, np.prod with axis=, which Numba's
NumPy lacks) with helpers of its own that loop over the rows (``ssa.special.max_of_rows``...).

They were ``np.array([np.max(X[k]) for k in range(X.shape[0])])``, which Numba 0.68 miscompiles
in a function that also holds a conditional expression (the guard of ``np.linalg.norm``'s
adjoint, ``d_return / (1.0 if t1 == 0.0 else t1)``): the max's adjoint was lost, the gradient off
by 1 at each row's maximum while the same source run by Python was right (probe round 10).
"""

from __future__ import annotations

import pytest

from source_gradients import check_command

PROGRAMS = """
import numpy as np


def rows_and_norm(X):
    return np.sum(np.max(X, axis=1)) + np.linalg.norm(X) + np.sum(X)


def columns_and_norm(X):
    return np.sum(np.min(X, axis=0) * np.prod(X, axis=0)) + np.linalg.norm(X)
"""


@pytest.mark.parametrize("func", ["rows_and_norm", "columns_and_norm"])
def test_axis_reductions_beside_a_guard_are_right_under_numba(func, tmp_path, capsys):
    for seed in ("0", "1"):
        check_command(tmp_path, capsys, PROGRAMS, func, "X", "X=5x4", "numba", extra=("--seed", seed))
