"""Every golden case's and loop kernel's gradient is well-formed IR at -O0, -O1 and -O2.

The goldens run their generated code, which hides some IR errors: Python and C scope a variable
to its function, so a value used outside the region that makes it (a loop bound made in a
forward loop, read by the reverse sweep's iteration index) still prints as code that works. The
verifier (``ssa.verifier``: structured dominance, arity, types) and the IR interpreter do not
forgive it; this runs the verifier on the gradient module of every case, C input also as C
output's module.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError
from s2sad.ssa.verifier import verify_module

ROOT = Path(__file__).resolve().parent.parent
CASES = sorted([*ROOT.glob("golden/*/case.json"), *ROOT.glob("golden/c/*/case.json"),
                *ROOT.glob("bench/c/kernels/*/case.json")])


def _input(folder: Path) -> Path:
    return next(p for p in sorted(folder.iterdir()) if p.name.startswith("input."))


@pytest.mark.parametrize("case", CASES, ids=lambda p: str(p.parent.relative_to(ROOT)))
def test_the_gradient_module_is_well_formed_at_every_level(case):
    spec = json.loads(case.read_text())
    source_path = _input(case.parent)
    source = source_path.read_text()
    outputs = (False, True) if source_path.suffix == ".c" else (False,)
    for level in (0, 1, 2):
        for c_output in outputs:
            try:
                module = pipeline.gradient_module(source, source_path.name, spec.get("func"), spec["wrt"],
                                                  pipeline.Options(level=level), c_output=c_output)
            except DiagnosticError:
                continue  # (a case that only some levels or outputs take: its refusal has tests of its own)
            verify_module(module)
