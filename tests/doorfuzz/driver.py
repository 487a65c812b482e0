"""The front-door fuzzer as a tool (``scripts/doorfuzz``) and as a library (tests/test_doorfuzz.py).

Cases are drawn by seed (case k of a run with ``--seed K`` has seed K + k; half are mutated
golden inputs, a quarter pathological files, a quarter bad command lines), run ``--jobs`` at a
time, each ``python -m s2sad`` in a fresh temporary folder with a timeout, and classified.
Every failing case is written to the output folder as a reproducer (``case.json``, the input
files, ``repro.sh``, stderr, the report); ``--replay FOLDER`` runs a saved case again.
"""

from __future__ import annotations

import argparse
import random
import re
import shlex
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from .case import Case, setup_script
from .classify import CLASSES, PLURALS, classify
from .cmdline import cmdline_case
from .mutate import mutate_case
from .patho import patho_case
from .run import ROOT, Result, run_case

FAMILIES: dict[str, Callable[[int, random.Random], Case]] = {
    "mutate": mutate_case, "patho": patho_case, "cmdline": cmdline_case}
SHARES = [("mutate", 0.5), ("patho", 0.25), ("cmdline", 0.25)]


def draw(seed: int, families: Optional[list[str]] = None) -> Case:
    """Case ``seed``: its family, then the case itself, drawn from one generator seeded by it."""
    rng = random.Random(seed)
    shares = [(f, w) for f, w in SHARES if families is None or f in families]
    x = rng.random() * sum(w for _, w in shares)
    for family, weight in shares:
        if x < weight:
            break
        x -= weight
    return FAMILIES[family](seed, rng)


@dataclass
class Finding:
    case: Case
    result: Result
    classes: list[tuple[str, str]]


@dataclass
class Outcome:
    cases: int = 0
    counts: dict = field(default_factory=lambda: dict.fromkeys(CLASSES, 0))  # class -> cases in it
    exits: dict = field(default_factory=dict)  # exit status (or "hang") -> cases
    families: dict = field(default_factory=dict)
    failures: list = field(default_factory=list)  # [Finding]
    seconds: float = 0.0

    def summary(self) -> str:
        return f"{self.cases} cases: " + ", ".join(f"{p} {self.counts[c]}" for c, p in zip(CLASSES, PLURALS))

    def spread(self) -> str:
        exits = ", ".join(f"exit {k}: {v}" for k, v in sorted(self.exits.items(), key=lambda kv: str(kv[0])))
        fams = ", ".join(f"{k} {v}" for k, v in sorted(self.families.items()))
        return f"{fams}; {exits}"

    @property
    def failed(self) -> int:
        return len(self.failures)


def check(seed: int, timeout: float, families: Optional[list[str]] = None) -> Finding:
    case = draw(seed, families)
    result = run_case(case, timeout)
    return Finding(case, result, classify(result))


def _record(outcome: Outcome, finding: Finding) -> None:
    outcome.cases += 1
    r = finding.result
    key = "hang" if r.timed_out else r.returncode
    outcome.exits[key] = outcome.exits.get(key, 0) + 1
    outcome.families[finding.case.family] = outcome.families.get(finding.case.family, 0) + 1
    for cls in {c for c, _ in finding.classes}:
        outcome.counts[cls] += 1
    if finding.classes:
        outcome.failures.append(finding)


def describe_failure(f: Finding) -> str:
    classes = "; ".join(f"{c}: {d}" for c, d in f.classes)
    return f"seed {f.case.seed} ({f.case.family}: {f.case.what[:120]}): {classes[:400]}\n    {f.case.command()[:300]}"


def run(count: Optional[int], seconds: Optional[float], seed: int, jobs: int = 1, timeout: float = 60.0,
        progress: float = 0.0, log=print, families: Optional[list[str]] = None,
        seeds: Optional[list[int]] = None) -> Outcome:
    """Run cases ``seed``, ``seed + 1``, ... (or exactly ``seeds``) until ``count`` or ``seconds``."""
    if seeds is not None:
        count = len(seeds)
    outcome = Outcome()
    start = last = time.monotonic()
    k = 0

    def more() -> bool:
        if count is not None and k >= count:
            return False
        return seconds is None or time.monotonic() - start < seconds

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        running = set()
        while running or more():
            while len(running) < jobs and more():
                running.add(pool.submit(check, seeds[k] if seeds is not None else seed + k, timeout, families))
                k += 1
            done, running = wait(running, timeout=1.0, return_when=FIRST_COMPLETED)
            for fut in done:
                finding = fut.result()
                _record(outcome, finding)
                if progress and finding.classes:
                    log(describe_failure(finding))  # at once, to be looked at while the run goes on
            if progress and time.monotonic() - last > progress:
                last = time.monotonic()
                log(f"[{last - start:7.0f} s] {outcome.summary()}")
    outcome.seconds = time.monotonic() - start
    return outcome


def signature(cls: str, detail: str, case: Optional[Case] = None) -> str:
    """A failure's kind with the particulars (names, numbers, quoted text) left out; a hang's
    kind is what its case was drawn as ("N nested {")."""
    if cls == "hang" and case is not None:
        detail = f"{detail.split(' (')[-1].rstrip(')')}: {case.family}: {case.what}"
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", detail)
    text = re.sub(r"\b(seed|offset|line) \d+", r"\1 N", text)
    text = re.sub(r"\d+", "N", text)
    return f"{cls}: {text[:110]}"


def save(out: Path, f: Finding) -> Path:
    slug = "_".join(sorted({c.replace(" ", "-") for c, _ in f.classes}))
    folder = out / f"{slug}_{f.case.family}_{f.case.seed}"
    (folder / "files").mkdir(parents=True, exist_ok=True)
    stored = {}
    for k, e in enumerate(f.case.entries):
        if e.kind == "file":
            name = f"{k}_{Path(e.path).name.replace(chr(10), '_')[:60]}"
            (folder / "files" / name).write_bytes(e.data)
            stored[k] = name
    (folder / "case.json").write_text(f.case.to_json())
    (folder / "stderr.txt").write_bytes(f.result.stderr)
    (folder / "stdout.txt").write_bytes(f.result.stdout[:1 << 16])
    status = "timed out" if f.result.timed_out else f"exit {f.result.returncode}"
    (folder / "report.txt").write_text(
        f"seed {f.case.seed} ({f.case.family}): {f.case.what}\n{f.case.command()}\n{status} after "
        f"{f.result.seconds:.1f} s\n\n" + "\n".join(f"{c}: {d}" for c, d in f.classes) + "\n")
    (folder / "repro.sh").write_text(
        "#!/bin/sh\n"
        f"# {'; '.join(c for c, _ in f.classes)} (seed {f.case.seed}, {f.case.family}: {f.case.what[:200]})\n"
        "# Lays the case out in a fresh folder and runs s2sad there, as the fuzzer did;\n"
        f"# scripts/doorfuzz --replay {folder} also classifies the run.\n"
        'here="$(cd "$(dirname "$0")" && pwd)"\n'
        'work="$(mktemp -d)"\nmkdir "$work/case"\ncd "$work/case" || exit 1\n'
        + setup_script(f.case, stored) + "\n"
        + f"PYTHONPATH={shlex.quote(str(ROOT))} {shlex.quote(sys.executable)} -m s2sad {shlex.join(f.case.argv)}\n"
        'echo "exit $?; the folder: $work/case"\n')
    (folder / "repro.sh").chmod(0o755)
    return folder


def save_all(out: Path, outcome: Outcome, log=print, limit: int = 200) -> None:
    """A reproducer per failing case (the smallest first, at most ``limit``), and one line per distinct failure."""
    groups: dict[str, list[Finding]] = {}
    for f in outcome.failures:
        for cls, detail in f.classes:
            groups.setdefault(signature(cls, detail, f.case), []).append(f)
    saved: dict[int, Path] = {}
    for f in sorted(outcome.failures, key=lambda f: f.case.input_size())[:limit]:
        saved[f.case.seed] = save(out, f)
    for sig, found in sorted(groups.items()):
        small = min(found, key=lambda f: f.case.input_size())
        where = saved.get(small.case.seed) or save(out, small)
        first = small.result.stderr.decode("utf-8", "replace").strip().splitlines()[:2]
        log(f"{sig}\n    {len(found)} cases (seeds {', '.join(str(f.case.seed) for f in found[:8])}"
            f"{' ...' if len(found) > 8 else ''}); reproducer {where}/\n    {small.case.command()[:200]}\n"
            + "".join(f"    | {line[:200]}\n" for line in first))


def replay(folder: Path, timeout: float) -> int:
    case = Case.from_json((folder / "case.json").read_text())
    result = run_case(case, timeout)
    classes = classify(result)
    print(f"{case.family}: {case.what}\n{case.command()}")
    print("timed out" if result.timed_out else f"exit {result.returncode} after {result.seconds:.1f} s")
    sys.stdout.write(result.stderr.decode("utf-8", "replace"))
    for c, d in classes:
        print(f"{c}: {d}")
    print("fine" if not classes else f"{len(classes)} problems")
    return 1 if classes else 0


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="scripts/doorfuzz", description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, help="cases to run (default: 200 unless --seconds)")
    ap.add_argument("--seconds", type=float, help="stop drawing new cases after this long")
    ap.add_argument("--seed", type=int, default=0, help="seed of the first case")
    ap.add_argument("--jobs", type=int, default=1, help="cases run at once")
    ap.add_argument("--out", default="doorfuzz-out", help="folder for the reproducers")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per case before it counts as a hang")
    ap.add_argument("--family", default="", help="comma-separated: mutate, patho, cmdline (default: all)")
    ap.add_argument("--progress", type=float, default=30.0, help="seconds between progress lines")
    ap.add_argument("--replay", help="run a saved reproducer folder again")
    ap.add_argument("--show", type=int, metavar="SEED", help="print case SEED (its command and files) and exit")
    args = ap.parse_args(argv)
    if args.replay:
        return replay(Path(args.replay), args.timeout)
    families = [f for f in args.family.split(",") if f] or None
    if families and set(families) - set(FAMILIES):
        ap.error(f"unknown families: {', '.join(sorted(set(families) - set(FAMILIES)))} (mutate, patho, cmdline)")
    if args.show is not None:
        case = draw(args.show, families)
        print(f"{case.family}: {case.what}\n{case.command()}")
        for e in case.entries:
            print(f"--- {e.path} ({e.kind}{' -> ' + e.target if e.target else ''}, {len(e.data)} bytes)")
            if e.data and len(e.data) < 4000:
                print(e.data.decode("utf-8", "backslashreplace"))
        return 0
    count = args.count if args.count is not None or args.seconds else 200
    outcome = run(count, args.seconds, args.seed, args.jobs, args.timeout, args.progress,
                  log=lambda s: print(s, flush=True), families=families)
    print(f"{outcome.spread()}; {outcome.seconds:.0f} s", flush=True)
    if outcome.failures:
        save_all(Path(args.out), outcome, log=lambda s: print(s, flush=True))
    print(outcome.summary(), flush=True)
    return 1 if outcome.failures else 0


if __name__ == "__main__":
    sys.exit(main())
