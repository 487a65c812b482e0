"""The ``counted`` pass (while -> for) keeps every loop's meaning, for every trip count.

The golden pass cases (golden/passes/counted) show the rewritten IR at one size;
here each is run by the interpreter before and after the pass for integer
arguments from negative (no iteration) to several iterations.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from s2sad.opt.passes import PassContext, run_pipeline
from s2sad.ssa.interp import Interpreter
from s2sad.ssa.parser import parse_module
from s2sad.ssa.verifier import verify_module

CASES = sorted((Path(__file__).resolve().parent.parent / "golden" / "passes" / "counted").glob("*/input.ir"))


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.parent.name)
@pytest.mark.parametrize("size", [-2, 0, 1, 2, 3, 6, 9])
def test_counted_loops_compute_the_same(path, size):
    source = path.read_text()
    before, after = parse_module(source), parse_module(source)
    run_pipeline(after, "counted,dce", PassContext())
    verify_module(after)
    x = np.linspace(0.5, 1.5, 12)
    results = []
    for module in (before, after):
        results.append(Interpreter(module).call("f", x.copy(), size))
    assert results[0] == results[1]


def test_counted_loops_are_for_loops_and_the_others_stay():
    kinds = {}
    for path in CASES:
        module = parse_module(path.read_text())
        run_pipeline(module, "counted", PassContext())
        kinds[path.parent.name] = {op.name for op in module.functions["f"].walk()} & {"for", "while"}
    assert kinds == {
        "offset_bound": {"for"},
        "le_step_two": {"for"},
        "down_final_used": {"for"},
        "condition_reads_memory": {"while"},
        "two_carried_in_condition": {"while"},
    }
