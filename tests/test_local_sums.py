"""What a reversed loop adds into one adjoint element in every iteration is summed in a local the
loop carries and added once after it (s2sad/opt/local_sums.py), where nothing else in the loop
touches that adjoint's memory. Every gradient is checked against central differences."""

from __future__ import annotations

import re
from pathlib import Path

from source_gradients import HEADER, arr, check_source, count

from s2sad import pipeline

_SUMMED = '''def f(x: "f64[n]", y: "f64[n]"):
    s = 0.0
    for i in range(y.shape[0]):
        s += np.sin(x[0] * y[i])
    return s
'''

# The reversed loop adds into d_x[0], and reads and writes d_x[1], another element: a local.
_READ_BESIDE = '''def f(x: "f64[n]", y: "f64[n]"):
    for i in range(y.shape[0]):
        x[1] = x[1] * x[0] + y[i]
    return np.sum(x * x)
'''

# The reversed loop adds into d_x[0], and reads and writes d_x[m], which may be it: no local.
_READ_TOO = '''def f(x: "f64[n]", y: "f64[n]", m: int):
    for i in range(y.shape[0]):
        x[m] = x[m] * x[0] + y[i]
    return np.sum(x * x)
'''

# Floyd-Warshall: the loop over j adds into d_P[i, k] and reads and clears d_P[i, j], the same
# element when j == k: the sum so far goes to the element before that iteration.
_MEETS_ONCE = '''def f(P: "f64[n, n]"):
    n = P.shape[0]
    for k in range(n):
        for i in range(n):
            for j in range(n):
                P[i, j] = min(P[i, j], P[i, k] + P[k, j])
    return np.sum(P * P)
'''

# The reversed loop over j adds into d_x[i] and then doubles d_x[j] (x[j] doubled before the sum
# reads x[i]): in the iteration j == i the element is read after the addition, so no local.
_MEETS_AFTER = '''def f(x: "f64[n]", y: "f64[n]"):
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[0]):
            x[j] = x[j] * 1.5
            s += x[i] * y[j]
    return s
'''


# SYRK's pattern: the loop adds into d_A[i, k] in every iteration and into d_A[j, k] beside it,
# the same element when j == i. The sum in a local is still right: additions commute.
_ADDED_BESIDE = '''def f(A: "f64[n, m]", C: "f64[n, n]"):
    for i in range(A.shape[0]):
        for k in range(A.shape[1]):
            for j in range(i + 1):
                C[i, j] += A[i, k] * A[j, k]
    return np.sum(C * C)
'''


def test_an_element_added_to_in_every_iteration_is_summed_in_a_local():
    text = check_source(HEADER + _SUMMED, ["x", "y"], [arr("x", 3), arr("y", 6)])
    lines = text.splitlines()
    assert "    d_x_0 = 0.0" in lines and "    d_x[0] += d_x_0" in lines, text  # before and after the loop
    assert "        d_x_0 += t0 * y[i]" in lines, text


def test_an_element_of_memory_the_loop_also_reads_stays_in_memory():
    text = check_source(HEADER + _READ_TOO, ["x", "y"], [arr("x", 3), arr("y", 5), count("m", 1)])
    assert any(line.startswith("        d_x[0] += ") for line in text.splitlines()), text  # in the loop, as before
    text = check_source(HEADER + _READ_TOO, ["x", "y"], [arr("x", 3), arr("y", 5), count("m", 0)])


def test_another_constant_element_the_loop_reads_leaves_the_sum_in_a_local():
    text = check_source(HEADER + _READ_BESIDE, ["x", "y"], [arr("x", 3), arr("y", 5)])
    lines = text.splitlines()
    assert "    d_x_0 = 0.0" in lines and "    d_x[0] += d_x_0" in lines, text


def test_an_element_read_under_the_counter_once_gets_the_sum_before_that_iteration():
    for target in ("py", "numba"):  # (C's: bench/c/kernels/floyd_warshall, in test_c_kernels)
        text = check_source(HEADER + _MEETS_ONCE, ["P"], [arr("P", 4, 4)], target=target, seeds=3)
        assert "if j == k:" in text and "d_P_i_k = 0.0" in text, text


def test_an_element_read_under_the_counter_after_the_addition_stays_in_memory():
    text = check_source(HEADER + _MEETS_AFTER, ["x", "y"], [arr("x", 4), arr("y", 4)])
    assert "d_x_i = 0.0" not in text and "if j == i" not in text, text


def test_additions_beside_the_summed_element_even_into_it_leave_it_summed():
    text = check_source(HEADER + _ADDED_BESIDE, ["A", "C"], [arr("A", 4, 3), arr("C", 4, 4)])
    depth = {line.strip()[:9]: len(line) - len(line.lstrip()) for line in text.splitlines()}
    assert depth["d_A[i, k]"] < depth["d_A[j, k]"], text  # once, after the loop over j; d_A[j, k] in it


def test_gemm_sums_each_row_of_its_adjoint_in_a_local():
    path = Path(__file__).parent.parent / "bench" / "c" / "kernels" / "gemm" / "input.c"
    text = pipeline.gradient_source(path.read_text(), str(path), "gemm", ["A", "B", "C"], "c")
    # summed in a local in the loop over j, alpha taken out of the sum (opt/factor_sums)
    found = re.search(r"d_A\[i\]\[k\] \+= (\w+) \* alpha;", text)
    assert found and f"double {found[1]} = 0.0;" in text and f"{found[1]} += d_C_i_j * B[k][j];" in text, text
