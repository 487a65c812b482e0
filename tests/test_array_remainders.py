"""Python's ``%`` and ``//`` on whole arrays (and their ufuncs np.mod, np.remainder,
np.floor_divide): ``a % d`` is ``a - floor(a / d) * d`` of the divisor's sign, so its adjoint
passes ``g`` to ``a`` and ``-g * floor(a / d)`` to ``d``; ``//`` is a step (no adjoint). Integer
arithmetic of an index array keeps it one (``x[(i + 1) % n]``, a periodic neighbour). Each
program is checked against central differences by ``s2sad check`` for every output language, at
inputs of both signs (refused before: '// and % on whole arrays are not supported')."""

from __future__ import annotations

import pytest

from source_gradients import HEADER, check_command

PROGRAMS = HEADER + '''
def wrapped(a: "f64[n]", d: "f64[n]"):
    return np.sum((a % d) ** 2) + np.sum(np.remainder(a, 0.7) * d)


def phase(t: "f64[n]", w: "f64[n]"):
    p = np.mod(t * w, 1.0) - 0.5
    return np.sum(np.sin(p) * t) + np.sum((t // 0.5) * w) + np.sum(np.floor_divide(w, 0.3) * t)


def periodic(u: "f64[n]"):
    n = len(u)
    i = np.arange(n)
    return np.sum((u[(i + 1) % n] - u[(i - 1) % n]) ** 2) + np.sum(u[i // 2] * u[(i + 1) % u.shape[0]])
'''

CASES = [("wrapped", "a,d", "a=7,d=7"), ("phase", "t,w", "t=6,w=6"), ("periodic", "u", "u=7")]


@pytest.mark.parametrize("target", ["py", "numba", "c"])
@pytest.mark.parametrize("func, wrt, sizes", CASES, ids=[c[0] for c in CASES])
def test_array_remainders_match_central_differences(func, wrt, sizes, target, tmp_path, capsys):
    check_command(tmp_path, capsys, PROGRAMS, func, wrt, sizes, target, extra=("--range", "-3,3"))
