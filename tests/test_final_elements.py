"""Elements a loop nest leaves holding the value a load read or a store wrote
(s2sad/analysis/final_elements.py): the reverse sweep reads them back from the array instead of
taping them, and only them; and loads of the value an element held when the statement began,
read in several iterations, which the reverse sweep reads from one copy of the array taken
before the statement. Each gradient is checked against central differences; the cases where a
later iteration writes the element again (an earlier one, for a copy) must keep their tapes."""

from __future__ import annotations

import pytest
import inplace_nests
from source_gradients import HEADER, arr, check_source, num

from s2sad.analysis.final_elements import _feasible

_LU = '''def f(A: "f64[n, n]"):
    n = A.shape[0]
    for i in range(n):
        A[i, i] += 2.0 * n
    for i in range(n):
        for j in range(i):
            for k in range(j):
                A[i, j] -= A[i, k] * A[k, j]
            A[i, j] /= A[j, j]
        for j in range(i, n):
            for k in range(i):
                A[i, j] -= A[i, k] * A[k, j]
    return np.sum(A * A)
'''

# The operands of a product that a later iteration writes again: each must stay taped.
KEPT = {
    # u[i - 1] was written in this sweep and is written again by the next one
    "sweeps": ('def f(u: "f64[n]", c: float):\n    for t in range(3):\n        for i in range(1, u.shape[0] - 1):\n'
               "            u[i] = u[i] * c + u[i - 1] * u[i + 1]\n    return np.sum(u * u)\n",
               [arr("u", 7), num("c")]),
    # a store to x[i * i % 5]: not an affine index, so any element may be written again
    "not_affine": ('def f(x: "f64[n]"):\n    for i in range(x.shape[0]):\n'
                   "        x[(i * i) % 5] = x[(i * i) % 5] * x[i]\n    return np.sum(x)\n", [arr("x", 7)]),
    # counted down: x[i + 1] is written by the iteration after
    "downward": ('def f(x: "f64[n]"):\n    for i in range(x.shape[0] - 2, -1, -1):\n'
                 "        x[i + 1] = x[i + 1] * x[i]\n        x[i] = x[i] * x[i + 1]\n    return np.sum(x)\n",
                 [arr("x", 7)]),
}


@pytest.mark.parametrize("target", ["py", "numba"])
def test_lu_in_place_reads_its_factors_back_from_the_array(target):
    text = check_source(HEADER + _LU, ["A"], [arr("A", 5, 5)], target=target)
    assert "tape" not in text, text  # all of them: A[i, k], A[k, j], A[j, j] and the quotient


@pytest.mark.parametrize("name", sorted(KEPT))
def test_an_element_written_again_later_stays_taped(name):
    source, params = KEPT[name]
    text = check_source(HEADER + source, [p.name for p in params], params)
    assert "tape" in text, text


def test_elimination_finds_the_contradictions_of_integer_systems():
    # i >= 0, j >= i, k <= i - 1, j == k: no solution
    equal = [{"j": 1, "k": -1}, {"j": -1, "k": 1}]
    assert not _feasible([{"i": 1}, {"j": 1, "i": -1}, {"i": 1, "k": -1, None: -1}, *equal])
    # 2 x == 1 has no integer solution (tightening: 2x - 1 >= 0 and -2x + 1 >= 0 give x >= 1, x <= 0)
    assert not _feasible([{"x": 2, None: -1}, {"x": -2, None: 1}])
    # 0 <= i <= n - 1 with n free: solutions
    assert _feasible([{"i": 1}, {"n": 1, "i": -1, None: -1}])


def test_lu_and_ludcmp_in_c_read_their_factors_back():
    """The loop-kernel suite's in-place factorizations (bench/c/kernels): no tape left in either."""
    from pathlib import Path

    from s2sad import pipeline

    for name in ("lu", "ludcmp"):
        path = Path(__file__).parent.parent / "bench" / "c" / "kernels" / name / "input.c"
        text = pipeline.gradient_source(path.read_text(), str(path), name, ["A"], "c")
        assert "tape" not in text, (name, text)


# TRMM in place: B[k, j] (k > i) is read before row k is rewritten, once per row i above it.
_TRMM = '''def f(A: "f64[m, m]", B: "f64[m, n]", alpha: float):
    for i in range(B.shape[0]):
        for j in range(B.shape[1]):
            for k in range(i + 1, B.shape[0]):
                B[i, j] += A[k, i] * B[k, j]
            B[i, j] = alpha * B[i, j]
    return np.sum(B * B)
'''

# Loads an earlier iteration may have written (x[i - 1]), or that read each element once (y[i]):
# no copy, a tape.
NO_COPY = {
    "written_before": ('def f(x: "f64[n]", c: float):\n    for t in range(2):\n        for i in range(1, x.shape[0]):\n'
                       "            x[i] = x[i] + c * x[i - 1] * x[i - 1]\n    return np.sum(x * x)\n",
                       [arr("x", 6), num("c")]),
    "read_once": ('def f(y: "f64[n]"):\n    for i in range(y.shape[0]):\n        y[i] = y[i] * y[i]\n'
                  "    return np.sum(y)\n", [arr("y", 6)]),
}


@pytest.mark.parametrize("target", ["py", "numba"])
def test_trmm_reads_what_a_row_held_before_the_loop_from_one_copy(target):
    text = check_source(HEADER + _TRMM, ["A", "B", "alpha"], [arr("A", 4, 4), arr("B", 4, 3), num("alpha")],
                        target=target)
    assert "B_at_loop = B.copy()" in text and "B_at_loop[k, j]" in text, text
    assert "A_at_loop" not in text, text  # A is only read: the reverse sweep reads A itself


def test_the_report_lists_the_copy(tmp_path, capsys):
    from s2sad.cli import main

    path = tmp_path / "trmm.py"
    path.write_text(HEADER + _TRMM)
    assert main(["grad", str(path), "--wrt", "A,B,alpha", "--report", "-o", str(tmp_path / "g.py")]) == 0
    report = capsys.readouterr().err.splitlines()
    assert "    B_at_loop: B as the loop begins, 8 B x its length" in report, report


# C pointers: a copy needs the array's size, which s2sad knows from the loops in tri (m) and
# not in tri_counted (the bound is loaded): that one keeps its tape, and is not refused.
_C_POINTERS = """void tri(int m, double *B)
{
    for (int i = 0; i < m; i++)
        for (int k = i + 1; k < m; k++)
            B[i] += B[k] * B[k];
}

void tri_counted(const int *cnt, double *B)
{
    int m = cnt[0];
    for (int i = 0; i < m; i++)
        for (int k = i + 1; k < m; k++)
            B[i] += B[k] * B[k];
}
"""


@pytest.mark.parametrize("func, copied", [("tri", True), ("tri_counted", False)])
def test_a_c_pointer_is_copied_only_where_its_size_is_known(tmp_path, capsys, func, copied):
    from s2sad.cli import main

    path = tmp_path / "tri.c"
    path.write_text(_C_POINTERS)
    out = tmp_path / "grad.c"
    assert main(["grad", str(path), "--func", func, "--wrt", "B", "-o", str(out)]) == 0
    assert ("memcpy(B_at_loop, B, m * sizeof(double));" in out.read_text()) == copied, out.read_text()
    sizes = "B=5" if copied else "B=5,cnt=1"
    assert main(["check", str(path), "--func", func, "--wrt", "B", "--sizes", sizes]) == 0, capsys.readouterr()


@pytest.mark.parametrize("name", sorted(NO_COPY))
def test_a_load_an_earlier_iteration_may_write_or_reading_each_element_once_has_no_copy(name):
    source, params = NO_COPY[name]
    text = check_source(HEADER + source, [p.name for p in params], params)
    assert "_at_loop" not in text, text


def test_trmm_and_doitgen_in_c_read_entry_values_from_a_copy():
    from pathlib import Path

    from s2sad import pipeline

    for name, wrt, copied in (("trmm", ["alpha", "A", "B"], "B"), ("doitgen", ["A", "C4"], "A")):
        path = Path(__file__).parent.parent / "bench" / "c" / "kernels" / name / "input.c"
        text = pipeline.gradient_source(path.read_text(), str(path), name, wrt, "c")
        assert f"memcpy({copied}_at_loop, {copied}, " in text, (name, text)
    assert "tape" not in text, text  # doitgen: what it reads of A before rewriting it, all from the copy


@pytest.mark.parametrize("rank", [1, 2])
@pytest.mark.parametrize("seed", range(1, 16))
def test_random_in_place_nests_match_central_differences(seed, rank):
    """Random in-place loop nests at affine indices (tests/inplace_nests.py): many of them read
    elements back; all must still be right."""
    inplace_nests.check(seed, rank)
