"""Golden IR tests of the optimization passes, one folder per pass and case.

``golden/passes/<pass>/<case>/input.ir`` is run through the pass named by the
folder (or by the pipeline in an optional ``pipeline`` file beside it); the
result must verify, print as ``expected.ir`` (``--update-golden`` rewrites it),
and compute the same as the input: every function is run by the reference
interpreter on random arguments before and after, comparing results and the
arrays it writes. Cases where a pass must *not* fire have an ``expected.ir``
equal to the input, which the diff shows at a glance.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from s2sad.opt.passes import PassContext, run_pipeline
from s2sad.ssa.interp import Interpreter
from s2sad.ssa.parser import parse_module
from s2sad.ssa.printer import print_module
from s2sad.ssa.types import ArrayType
from s2sad.ssa.verifier import verify_module

ROOT = Path(__file__).resolve().parent.parent / "golden" / "passes"
CASES = sorted(p for p in ROOT.glob("*/*") if (p / "input.ir").exists()) if ROOT.exists() else []

SIZE = 5  # every int argument, and every array extent


def _pipeline(case: Path) -> str:
    f = case / "pipeline"
    return f.read_text().strip() if f.exists() else case.parent.name


def _context(case: Path) -> PassContext:
    return PassContext(may_alias=(case / "may_alias").exists())


def _arguments(fn, rng):
    args = []
    for p in fn.params:
        t = p.type
        if isinstance(t, ArrayType):
            shape = (SIZE,) * t.rank
            args.append(rng.integers(0, SIZE, shape) if t.elem.is_int else rng.uniform(0.5, 1.5, shape))
        elif t.is_int:
            args.append(SIZE)
        else:
            args.append(float(rng.uniform(0.5, 1.5)))
    return args


def _run(module, name, args):
    work = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    result = Interpreter(module).call(name, *work)
    return result, [a for a in work if isinstance(a, np.ndarray)]


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_pass_golden(case, request):
    source = (case / "input.ir").read_text()
    before = parse_module(source)
    verify_module(before)
    after = parse_module(source)
    run_pipeline(after, _pipeline(case), _context(case))
    verify_module(after)
    text = print_module(after)
    expected = case / "expected.ir"
    if request.config.getoption("--update-golden"):
        expected.write_text(text)
    else:
        assert expected.exists(), f"{expected} is missing: run pytest --update-golden and review it"
        assert text == expected.read_text(), f"{case} differs from expected.ir (pytest --update-golden)"
    rng = np.random.default_rng(0)
    for name, fn in before.functions.items():
        if name not in after.functions:
            continue  # inlined everywhere and removed
        args = _arguments(fn, rng)
        r0, arrays0 = _run(before, name, args)
        r1, arrays1 = _run(after, name, args)
        if r0 is None:
            assert r1 is None, f"{name}: now returns {r1!r}"
        else:
            np.testing.assert_allclose(r1, r0, rtol=1e-12, err_msg=f"{name}: result changed")
        for a0, a1 in zip(arrays0, arrays1):
            np.testing.assert_allclose(a1, a0, rtol=1e-12, err_msg=f"{name}: memory changed")
