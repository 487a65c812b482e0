"""The loop-kernel suite (bench/c/kernels): numerical C as such suites write it, differentiated as written.

Each folder holds one kernel (``input.c``: 2-D and 3-D variable-length array parameters, stencils,
triangular loops, factorizations, solvers, recurrences) and its ``case.json`` in golden/c's format.
No expected output is kept: the suite checks what a user relies on. Every kernel compiles with
gcc -Werror, and its C gradient (-O2 and -O0) has the contract's signature, compiles with
``gcc -std=c99 -Wall -Wextra -Werror``, runs clean under ``-fsanitize=address,undefined`` and
matches central differences of the kernel compiled by gcc. ``bench/c_kernels.py`` times them.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest
from cbuild import build, build_sanitized, compile_c, have_gcc
from cprimal import CSignature
from fd import check_gradient
from test_golden_c import CCase, _contract_signature, load_c_cases

pytestmark = pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")

KERNELS = Path(__file__).resolve().parents[1] / "bench" / "c" / "kernels"
CASES = load_c_cases(KERNELS)
BY_NAME = {c.name: c for c in CASES}


@functools.cache
def primal(name: str):
    case = BY_NAME[name]
    return case.signature.primal(build(case.source, case.input_flags))


def _params(cases: list[CCase]) -> list:
    return [pytest.param(c, id=c.name) for c in cases]


def test_the_suite_has_its_kernels():
    assert len(CASES) >= 20
    ranks = {len(p.shape) for c in CASES for p in c.params if p.kind == "array"}
    assert {1, 2, 3} <= ranks  # vectors, matrices and 3-D grids, as variable-length array parameters


@pytest.mark.parametrize("case", _params(CASES))
def test_kernel_compiles_as_written(case):
    compile_c(case.source, case.input_flags)


@pytest.mark.parametrize("case", _params(CASES))
def test_kernel_writes_what_its_case_says(case):
    """``written`` (the arrays that get shadows) is what the compiled kernel really changes."""
    inputs = [p.sample(np.random.default_rng(0)) for p in case.params]
    after = [v.copy() if isinstance(v, np.ndarray) else v for v in inputs]
    primal(case.name)(*after)
    changed = {p.name for p, a, b in zip(case.params, inputs, after)
               if p.kind == "array" and not np.array_equal(a, b)}
    assert changed == set(case.written)
    assert all(np.all(np.isfinite(a)) for a in after if isinstance(a, np.ndarray))


@pytest.mark.parametrize("level", (2, 0), ids=lambda lv: f"O{lv}")
@pytest.mark.parametrize("case", _params(CASES))
def test_kernel_gradient_matches_finite_differences(case, level):
    text = case.generate("c", level)
    grad = CSignature.parse(text, f"grad_{case.func}")
    assert [(p.name, p.base, p.pointer) for p in grad.params] == _contract_signature(case)
    gradient = case.signature.gradient(build_sanitized(text), case.wrt, case.written)
    check_gradient(primal(case.name), gradient, case.params, case.wrt, set(case.written),
                   np.random.default_rng(0), rtol=case.rtol, atol=case.atol,
                   returns_float=case.signature.returns_float)
