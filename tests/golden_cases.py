"""The golden cases: one feature per folder under golden/.

Each folder holds ``input.py`` and ``case.json`` (the function, the ``--wrt``
list, how to make test values for each parameter, and whether the function has
a closed form sympy can differentiate), and beside them the expected outputs:
``expected.py`` (``--target py``), ``expected_numba.py`` (``--target numba``)
and ``expected.ir`` (``s2sad ir``). Generated here so the golden test and the
property tests share one way of producing them.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import types
from dataclasses import dataclass
from pathlib import Path

from fd import ParamSpec

from s2sad import pipeline

GOLDEN = Path(__file__).resolve().parent.parent / "golden"

OUTPUTS = {"expected.py": "py", "expected_numba.py": "numba"}


@dataclass
class GoldenCase:
    name: str
    folder: Path
    func: str
    wrt: list[str]
    params: list[ParamSpec]
    sympy: bool
    # False: the Numba output is run as plain Python (``.py_func``), not compiled. For the large
    # whole-array cases, whose compilation alone takes tens of seconds; the Numba spellings they
    # use are compiled by the smaller cases.
    numba_jit: bool = True
    # False: C output refuses the case with a located error (np.linalg.det/inv/solve, np.convolve
    # have no loop form there yet); tests/test_emit_c.py checks that refusal instead.
    c: bool = True

    @property
    def source(self) -> str:
        return (self.folder / "input.py").read_text()

    def generate(self, filename: str) -> str:
        """The text that belongs in ``filename`` (an expected output) for this case."""
        if filename == "expected.ir":
            return pipeline.ir_text(self.source, "input.py", self.func)
        return pipeline.gradient_source(self.source, "input.py", self.func, self.wrt, OUTPUTS[filename])


def load_cases() -> list[GoldenCase]:
    cases = []
    for folder in sorted(p for p in GOLDEN.iterdir() if (p / "case.json").exists()):
        spec = json.loads((folder / "case.json").read_text())
        cases.append(
            GoldenCase(
                folder.name,
                folder,
                spec["func"],
                spec["wrt"],
                [ParamSpec.from_json(p) for p in spec["params"]],
                spec.get("sympy", False),
                spec.get("numba_jit", True),
                spec.get("c", True),
            )
        )
    return cases


def compare_with_golden(request, path: Path, text: str) -> None:
    """``text`` must equal the expected file ``path``; ``pytest --update-golden`` rewrites it instead."""
    if request.config.getoption("--update-golden"):
        path.write_text(text)
        return
    assert path.exists(), f"{path} is missing: run pytest --update-golden and review the diff"
    assert text == path.read_text(), f"{path} differs from the generated output (pytest --update-golden)"


def load_module(path: Path, module_name: str) -> types.ModuleType:
    """The Python file ``path`` imported as ``module_name`` (an input or a generated gradient)."""
    spec = importlib.util.spec_from_file_location(module_name, path)
    mod = importlib.util.module_from_spec(spec)
    # Registered like an imported module: Numba links a recursive function's call to itself
    # through its module, and aborts with "unresolved symbol" when the module is not there.
    sys.modules[module_name] = mod
    spec.loader.exec_module(mod)
    return mod
