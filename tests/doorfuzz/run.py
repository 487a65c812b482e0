"""Run one case: lay it out in a fresh temporary folder, run ``python -m s2sad`` there with a
timeout (and a bound on its address space), and record what it left: its exit status, its
output streams, and the folder before and after (every entry's kind, a regular file's digest,
a link's target), with the kinds of the watched paths outside it. After exit 0 the gradient
(stdout, the ``-o`` file, or what a drained FIFO received) is kept for classify to check.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import select
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from .case import Case, lay_out

ROOT = Path(__file__).resolve().parents[2]
MEMORY_LIMIT_KB = 8 * 1024 * 1024  # per case: a runaway translation fails instead of taking the machine


@dataclass
class Output:
    where: str  # "stdout", or the file's path relative to the temporary root
    target: str  # py, numba, c, cuda
    text: bytes


@dataclass
class Result:
    case: Case
    returncode: Optional[int]  # None when it ran past the timeout (and was killed)
    stdout: bytes
    stderr: bytes
    seconds: float = 0.0
    before: dict = field(default_factory=dict)  # path -> (kind, detail)
    after: dict = field(default_factory=dict)
    drained: dict = field(default_factory=dict)  # FIFO -> the bytes a reader got from it
    outputs: list = field(default_factory=list)  # [Output]: the gradients of an exit 0
    expected_output: Optional[str] = None  # the -o file's path relative to the root, if any
    input_path: Optional[str] = None  # the input's path relative to the root, if inside it
    gradient: bool = False  # a grad command that argparse accepts: exit 0 must write a gradient
    cpu_seconds: Optional[float] = None  # CPU time used by a run that timed out (busy or waiting?)

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


def describe(path: str) -> tuple[str, str]:
    """A path's kind and what identifies its contents, without following a symbolic link."""
    try:
        st = os.lstat(path)
    except OSError as e:
        return ("missing", e.strerror or "")
    mode = st.st_mode
    if stat.S_ISLNK(mode):
        return ("symlink", os.readlink(path))
    if stat.S_ISREG(mode):
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        return ("file", h.hexdigest())
    if stat.S_ISDIR(mode):
        return ("dir", "")
    if stat.S_ISFIFO(mode):
        return ("fifo", "")
    if stat.S_ISCHR(mode):
        return ("chardev", f"{os.major(st.st_rdev)},{os.minor(st.st_rdev)}")
    return ("other", oct(mode))


def snapshot(root: Path, watch: list[str]) -> dict[str, tuple[str, str]]:
    found = {}
    for dirpath, dirnames, filenames in os.walk(root):  # links to folders are listed, not entered
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            found[os.path.relpath(path, root)] = describe(path)
    for path in watch:
        found[path] = describe(path)
    return found


class Drain:
    """Reads a FIFO while s2sad runs, as the other end of ``-o pipe`` would."""

    def __init__(self, path: Path):
        self.fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        self.data = bytearray()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while True:
            stopping = self.stop.is_set()
            select.select([self.fd], [], [], 0.05)
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                chunk = b""
            self.data += chunk
            if not chunk:
                if stopping:
                    break
                time.sleep(0.02)  # no writer yet (or any more): a FIFO then reads as end of file

    def finish(self) -> bytes:
        self.stop.set()
        self.thread.join(timeout=10)
        os.close(self.fd)
        return bytes(self.data)


def command_facts(argv: list[str], case_dir: Path) -> tuple[bool, Optional[str], str]:
    """(is it a grad command argparse accepts, the -o path or None for stdout, the target),
    as s2sad itself reads the command line."""
    from s2sad import cli  # the harness reads options as s2sad does; imported late (a second)

    try:
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            args = cli._parser().parse_args(argv)
    except SystemExit:
        return False, None, "py"
    if args.command != "grad":
        return False, None, "py"
    try:
        target = cli._target(args)
    except Exception:  # noqa: BLE001 - the harness must not fail on an odd name
        target = "py"
    output = args.output if args.output not in (None, "-") else None
    return True, output, target


def _cpu_seconds(pid: int) -> Optional[float]:
    """The user and system time of a running process, from /proc (Linux), or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _environment(pythonpath: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "S2SAD_DEBUG"}
    env["PYTHONPATH"] = str(pythonpath)
    return env


def run_case(case: Case, timeout: float = 60.0, memory_kb: int = MEMORY_LIMIT_KB, pythonpath: Path = ROOT) -> Result:
    """Run ``case``; ``pythonpath`` is where ``s2sad`` is imported from (the tests put a fake there)."""
    with tempfile.TemporaryDirectory(prefix="doorfuzz_") as tmp:
        root = Path(tmp)
        folder = root / "case"
        folder.mkdir()
        lay_out(case, folder)
        before = snapshot(root, case.watch)
        drains = {name: Drain(folder / name) for name in case.drain}
        # sh sets the bound and becomes python (exec): a signal that kills s2sad is its status.
        command = ["sh", "-c", f'ulimit -v {memory_kb} 2>/dev/null; exec "$0" -m s2sad "$@"', sys.executable,
                   *case.argv]
        start = time.monotonic()
        proc = subprocess.Popen(command, cwd=folder, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=_environment(pythonpath), start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
            code: Optional[int] = proc.returncode
        except subprocess.TimeoutExpired:
            cpu = _cpu_seconds(proc.pid)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            code = None
        seconds = time.monotonic() - start
        drained = {name: d.finish() for name, d in drains.items()}
        result = Result(case, code, out, err, seconds, before, snapshot(root, case.watch), drained)
        if code is None:
            result.cpu_seconds = cpu
        gradient, output, target = command_facts(case.argv, folder)
        result.gradient = gradient
        if case.argv[1:2] and case.argv[0] == "grad":
            inp = os.path.realpath(folder / case.argv[1])
            if inp.startswith(str(root) + os.sep):
                result.input_path = os.path.relpath(inp, root)
        if gradient:
            _collect_output(result, root, folder, output, target)
        return result


def _collect_output(result: Result, root: Path, folder: Path, output: Optional[str], target: str) -> None:
    if output is None:
        result.outputs.append(Output("stdout", target, result.stdout))
        return
    path = os.path.realpath(folder / output) if output else str(folder)
    inside = path.startswith(str(root) + os.sep)
    if inside:
        result.expected_output = os.path.relpath(path, root)
    if result.returncode != 0:
        return
    rel = os.path.relpath(os.path.abspath(folder / output), folder) if output else ""
    if rel in result.drained:
        result.outputs.append(Output(f"FIFO {rel}", target, result.drained[rel]))
        return
    if not inside:
        return  # /dev/null and the like: nothing to look at
    kind = result.after.get(result.expected_output, ("missing", ""))[0]
    if kind == "file":
        result.outputs.append(Output(result.expected_output, target, Path(path).read_bytes()))
    elif kind == "missing":
        result.outputs.append(Output(result.expected_output, target, b""))  # exit 0 and no file: not complete
