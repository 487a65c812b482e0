"""Sums a reversed loop carries whose terms share factors no iteration changes take those factors
once, after the loop (s2sad/opt/factor_sums.py): SYRK's ``d_alpha`` and ``d_A[i, k]`` share one
sum of ``d_C[i, j] * A[j, k]``. Every gradient is checked against central differences."""

from __future__ import annotations

import re

from source_gradients import HEADER, arr, check_source, num

from s2sad.opt.passes import ADJOINT_PIPELINES

SYRK = '''def f(alpha: float, A: "f64[n, m]", C: "f64[n, n]"):
    for i in range(A.shape[0]):
        for k in range(A.shape[1]):
            for j in range(i + 1):
                C[i, j] += alpha * A[i, k] * A[j, k]
    return np.sum(C * C)
'''


def test_terms_sharing_a_product_share_one_sum():
    for target in ("py", "numba"):
        text = check_source(HEADER + SYRK, ["alpha", "A", "C"], [num("alpha"), arr("A", 4, 3), arr("C", 4, 4)],
                            target=target)
        found = re.search(r"d_alpha(?:_local)? \+= (t\d+) \* A\[i, k\]", text)
        assert found and re.search(rf"d_A\[i, k\] \+= {found[1]} \* alpha", text), text
        assert f"{found[1]} += " in text, text  # the one sum, in the loop over j


# The loop over j may run no iteration (m = 0): the load x[i] it makes at an index made before it
# stays a factor of each term (made again after a loop that never ran, it could read past x).
MAY_NOT_RUN = '''def f(x: "f64[n]", y: "f64[m]", c: float):
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(y.shape[0]):
            s += c * x[i] * y[j] * y[j]
    return s
'''


def test_a_load_of_a_loop_that_may_not_run_stays_in_it():
    for m in (0, 3):
        text = check_source(HEADER + MAY_NOT_RUN, ["x", "y", "c"], [arr("x", 3), arr("y", m), num("c")])
        assert re.search(r"^ {12}d_c \+= .*x\[i\]$", text, re.M), text  # in the loop over j
        assert re.search(r"^ {8}d_x\[i\] \+= \w+ \* c$", text, re.M), text  # c taken out all the same


def test_factor_sums_runs_in_the_O2_adjoint_pipeline_only():
    assert "local-sums,factor-sums" in ADJOINT_PIPELINES[2]
    assert all("factor-sums" not in ADJOINT_PIPELINES[level] for level in (0, 1))
