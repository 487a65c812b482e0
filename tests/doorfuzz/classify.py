"""What went wrong in a run, by the front door's promise: never a Python traceback, never an
internal error, every error located (or a plain ``s2sad: error: ...``), no hang, no crash, no
partial file, and no FIFO, device or symbolic link replaced by a regular file.

``classify(result)`` gives ``[(class, detail)]``, empty for a fine run: exit 0 with a complete
gradient and nothing else touched, exit 1 with a compiler-style message, exit 2 with a usage
message. The classes, in the order of the summary line:

* ``traceback``: Python's traceback (or its "Exception ignored in" complaint, or a fatal error)
  on stderr;
* ``internal error``: "internal error" on stderr (s2sad's own word for a bug it caught);
* ``unlocated error`` (unless one of the two above was found): exit 1 whose stderr neither
  starts with ``s2sad: error: ...`` nor with ``file:line:col: error: ...`` followed by the
  source line and a caret line (every located error must have its caret), or exit 2 without
  ``s2sad: error:`` (argparse's ``s2sad grad: error:`` counts);
* ``hang``: still running at the timeout (killed);
* ``crash``: killed by a signal, or an exit status other than 0, 1 and 2;
* ``partial file``: after a non-zero exit, any new entry in the folder (temporary files
  included), any regular file changed, or anything on stdout or into a FIFO; after exit 0, a
  new entry or a changed file that is not the output, the input overwritten, or an output that
  is not a complete gradient (it must mention ``grad_`` and compile: Python's ``compile``,
  ``gcc -fsyntax-only`` for C, ``g++ -fsyntax-only`` against tests/cuda_emu.h for CUDA);
* ``non-regular file touched``: a FIFO, device, folder or symbolic link (or a watched path such
  as /dev/null) that is no longer what it was: replaced, removed, or a link pointed elsewhere.
"""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Optional

from .run import Output, Result

CLASSES = ["traceback", "internal error", "unlocated error", "hang", "crash", "partial file",
           "non-regular file touched"]
PLURALS = ["tracebacks", "internal errors", "unlocated errors", "hangs", "crashes", "partial files",
           "non-regular files touched"]
TESTS = Path(__file__).resolve().parents[1]

_TRACEBACK = re.compile(r"^(Traceback \(most recent call last\):|Exception ignored in|Fatal Python error)", re.M)
_LOCATED = re.compile(r"^(.+):(\d+):(\d+): error: \S")
_CARET = re.compile(r"^\s*\^~*\s*$")
_USAGE = re.compile(r"^s2sad(?: [\w-]+)?: error: \S", re.M)


def located_problem(stderr: str) -> Optional[str]:
    """Why the stderr of an exit 1 is not a clean error message, or None when it is."""
    lines = stderr.splitlines()
    if not lines:
        return "exit 1 with nothing on stderr"
    if not (lines[0].startswith("s2sad: error: ") or _LOCATED.match(lines[0])):
        return f"first line is neither 'file:line:col: error:' nor 's2sad: error:': {lines[0][:200]!r}"
    for k, line in enumerate(lines):
        if _LOCATED.match(line) and not (k + 2 < len(lines) and _CARET.match(lines[k + 2])):
            return f"no source line and caret under {line[:200]!r}"
    return None


def syntax_problem(output: Output) -> Optional[str]:
    """Why ``output`` is not a complete gradient, or None."""
    try:
        text = output.text.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"{output.where}: not UTF-8: {e}"
    if "grad_" not in text:
        return f"{output.where}: {len(text)} characters, no gradient function in them: {text[:120]!r}"
    if output.target in ("py", "numba"):
        command = [sys.executable, "-c", "import sys; compile(sys.stdin.read(), 'gradient', 'exec')"]
    elif output.target == "c":
        # A distributed program's gradient includes mpi.h, which only MPI's compiler finds
        # (golden/mpi inputs broken by the fuzzer are still MPI programs).
        compiler = "mpicc" if "#include <mpi.h>" in text else "gcc"
        if not shutil.which(compiler):
            return None
        command = [compiler, "-fsyntax-only", "-std=c99", "-w", "-fopenmp", "-x", "c", "-"]
    else:
        if not shutil.which("g++"):
            return None
        command = ["g++", "-fsyntax-only", "-std=c++17", "-w", f"-I{TESTS}", "-include", "cuda_emu.h", "-x", "c++",
                   "-"]
    try:
        r = subprocess.run(command, input=output.text, capture_output=True, timeout=300)
    except subprocess.TimeoutExpired:
        return f"{output.where}: its {output.target} syntax check ran past 300 s"
    if r.returncode != 0:
        message = r.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"{output.where}: does not compile as {output.target}: {' | '.join(message[-3:])[:400]}"
    return None


def classify(r: Result) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    err = r.stderr.decode("utf-8", "replace")
    m = _TRACEBACK.search(err)
    if m:
        found.append(("traceback", err[m.start():].strip().splitlines()[-1][:300]))
    if "internal error" in err:
        line = next(x for x in err.splitlines() if "internal error" in x)
        found.append(("internal error", line[:300]))
    found += _touched(r)
    if r.timed_out:
        busy = "" if r.cpu_seconds is None else (
            f" ({r.cpu_seconds:.0f} s of CPU: " + ("busy)" if r.cpu_seconds > r.seconds / 4 else "waiting)"))
        found.append(("hang", f"still running after {r.seconds:.0f} s{busy}"))
        return found
    code = r.returncode
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        found.append(("crash", f"killed by {name}"))
        return found
    if code not in (0, 1, 2):
        found.append(("crash", f"exit status {code}"))
        return found
    bug = any(c in ("traceback", "internal error") for c, _ in found)  # counted once, as the worse
    if code == 1 and not bug:
        problem = located_problem(err)
        if problem:
            found.append(("unlocated error", problem))
    if code == 2 and not bug and not _USAGE.search(err):
        found.append(("unlocated error", f"exit 2 without 's2sad: error:': {err.strip()[:200]!r}"))
    found += [("partial file", p) for p in _partial(r)]
    return found


def _touched(r: Result) -> list[tuple[str, str]]:
    out = []
    for path, (kind, detail) in r.before.items():
        if kind in ("file", "missing"):
            continue
        now = r.after.get(path, ("missing", ""))
        if now != (kind, detail):
            out.append(("non-regular file touched", f"{path}: was {kind} {detail}".rstrip() +
                        f", now {now[0]} {now[1][:16]}".rstrip()))
    return out


def _partial(r: Result) -> list[str]:
    problems = []
    new = sorted(p for p in r.after if p not in r.before and r.after[p][0] != "missing")
    changed = sorted(p for p, (kind, detail) in r.before.items()
                     if kind == "file" and r.after.get(p) != (kind, detail))
    if r.returncode != 0:
        problems += [f"left behind after exit {r.returncode}: {p} ({r.after[p][0]})" for p in new]
        problems += [f"changed after exit {r.returncode}: {p}" for p in changed]
        if r.stdout:
            problems.append(f"{len(r.stdout)} bytes on stdout after exit {r.returncode}: {r.stdout[:80]!r}")
        problems += [f"{len(data)} bytes into FIFO {name} after exit {r.returncode}"
                     for name, data in r.drained.items() if data]
        return problems
    problems += [f"left behind: {p} ({r.after[p][0]})" for p in new if p != r.expected_output]
    problems += [f"changed, and not the output: {p}" for p in changed if p != r.expected_output]
    if r.input_path is not None and r.input_path == r.expected_output:
        problems.append(f"the input {r.input_path} was written over")
    for output in r.outputs:
        problem = syntax_problem(output)
        if problem:
            problems.append(problem)
    return problems
