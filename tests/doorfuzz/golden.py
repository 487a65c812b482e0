"""The golden inputs (``golden/**/input.py``, ``input.c``, ``input.cu``) and the flags of each.

Every case folder holds ``case.json`` with the function and its ``--wrt`` list (as
tests/golden_cases.py and tests/test_golden_c.py read them); ``golden/cuda_from_c`` and
``golden/cuda_from_py`` are differentiated with ``--target cuda``. Headers beside an input
(``golden/c/local_header/spring.h``) go with it.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

GOLDEN = Path(__file__).resolve().parents[2] / "golden"


@dataclass(frozen=True)
class Golden:
    name: str  # the folder, relative to golden/
    input: Path
    func: str
    wrt: tuple[str, ...]
    flags: tuple[str, ...]  # more command-line flags the case needs
    headers: tuple[Path, ...]

    @property
    def suffix(self) -> str:
        return self.input.suffix

    def text(self) -> str:
        return self.input.read_text()


@functools.lru_cache(maxsize=None)
def golden_inputs() -> tuple[Golden, ...]:
    found = []
    for spec_path in sorted(GOLDEN.rglob("case.json")):
        folder = spec_path.parent
        inputs = [folder / f"input{s}" for s in (".py", ".c", ".cu") if (folder / f"input{s}").exists()]
        if not inputs:
            continue  # golden/passes: IR, not a front-door input
        spec = json.loads(spec_path.read_text())
        top = folder.relative_to(GOLDEN).parts[0]
        flags = ("--target", "cuda") if top in ("cuda_from_c", "cuda_from_py") else ()
        found.append(Golden(str(folder.relative_to(GOLDEN)), inputs[0], spec["func"], tuple(spec["wrt"]), flags,
                            tuple(sorted(folder.glob("*.h")))))
    return tuple(found)
