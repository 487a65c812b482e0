"""What a reversed loop adds into one adjoint element in every iteration is summed in a local the
loop carries and added once after it (s2sad/opt/local_sums.py), where nothing else in the loop
touches that adjoint's memory. Every gradient is checked against central differences."""

from __future__ import annotations

from pathlib import Path

from source_gradients import HEADER, arr, check_source

from s2sad import pipeline

_SUMMED = '''def f(x: "f64[n]", y: "f64[n]"):
    s = 0.0
    for i in range(y.shape[0]):
        s += np.sin(x[0] * y[i])
    return s
'''

# The reversed loop adds into d_x[0], and reads and writes d_x[1] of the same memory: no local.
_READ_TOO = '''def f(x: "f64[n]", y: "f64[n]"):
    for i in range(y.shape[0]):
        x[1] = x[1] * x[0] + y[i]
    return np.sum(x * x)
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
    text = check_source(HEADER + _READ_TOO, ["x", "y"], [arr("x", 3), arr("y", 5)])
    assert any(line.startswith("        d_x[0] += ") for line in text.splitlines()), text  # in the loop, as before


def test_additions_beside_the_summed_element_even_into_it_leave_it_summed():
    text = check_source(HEADER + _ADDED_BESIDE, ["A", "C"], [arr("A", 4, 3), arr("C", 4, 4)])
    depth = {line.strip()[:9]: len(line) - len(line.lstrip()) for line in text.splitlines()}
    assert depth["d_A[i, k]"] < depth["d_A[j, k]"], text  # once, after the loop over j; d_A[j, k] in it


def test_gemm_sums_each_row_of_its_adjoint_in_a_local():
    path = Path(__file__).parent.parent / "bench" / "c" / "kernels" / "gemm" / "input.c"
    text = pipeline.gradient_source(path.read_text(), str(path), "gemm", ["A", "B", "C"], "c")
    assert "double d_A_i_k = 0.0;" in text and "d_A[i][k] += d_A_i_k;" in text, text
    assert "d_A_i_k += " in text, text  # not d_A[i][k] += ... in the loop over j
