"""Translation time of the whole golden suite: every golden case's every expected output, made again.

s2sad's own speed matters to its users only as the time a gradient takes to write, but a
reshaping of the compiler (issue 15) must not make that slower. This prints, for each kind of
output, how many were made and how long they took (the best of ``--repeat`` runs, each in this
one process after a warm-up), and how many came out byte-identical to their golden file, which
shows the benchmark times what the goldens hold.

    .venv/bin/python bench/translate.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from s2sad import pipeline  # noqa: E402
from s2sad.diagnostics import DiagnosticError  # noqa: E402

# expected file -> the target that writes it
TARGETS = {"expected.py": "py", "expected_numba.py": "numba", "expected.c": "c", "expected.cu": "cuda"}


def jobs() -> list[tuple[str, str, str, str, list[str], str, Path]]:
    """(kind, source, filename, func, wrt, target, expected file) for every golden output."""
    out = []
    for case_json in sorted((ROOT / "golden").rglob("case.json")):
        folder = case_json.parent
        inputs = [p for p in (folder / "input.py", folder / "input.c", folder / "input.cu") if p.exists()]
        if not inputs:
            continue
        spec = json.loads(case_json.read_text())
        if "func" not in spec or "wrt" not in spec:
            continue
        for name, target in TARGETS.items():
            expected = folder / name
            if expected.exists():
                source = inputs[0]
                out.append((name, source.read_text(), source.name, spec["func"], spec["wrt"], target, expected))
    return out


def run_once(work) -> tuple[dict[str, float], dict[str, int]]:
    seconds: dict[str, float] = {}
    same: dict[str, int] = {}
    for kind, source, filename, func, wrt, target, expected in work:
        start = time.perf_counter()
        try:
            text = pipeline.gradient_source(source, filename, func, wrt, target)
        except DiagnosticError:
            text = None
        seconds[kind] = seconds.get(kind, 0.0) + time.perf_counter() - start
        same[kind] = same.get(kind, 0) + (text == expected.read_text())
    return seconds, same


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    work = jobs()
    run_once(work[:5])  # imports and first-call costs out of the way
    best: dict[str, float] = {}
    same: dict[str, int] = {}
    for _ in range(args.repeat):
        seconds, same = run_once(work)
        for kind, s in seconds.items():
            best[kind] = min(best.get(kind, s), s)
    counts: dict[str, int] = {}
    for job in work:
        counts[job[0]] = counts.get(job[0], 0) + 1
    print(f"{'output':<20}{'count':>6}{'identical':>11}{'seconds':>10}")
    for kind in TARGETS:
        if kind in counts:
            print(f"{kind:<20}{counts[kind]:>6}{same[kind]:>11}{best[kind]:>10.2f}")
    print(f"{'all':<20}{len(work):>6}{sum(same.values()):>11}{sum(best.values()):>10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
