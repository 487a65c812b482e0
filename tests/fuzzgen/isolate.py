"""Run one program's check in a forked child, so that a crashing or hanging gradient (a C
use-after-free, an endless loop) becomes a mismatch instead of taking the fuzzer down.

Each child writes its temporary files (the C builds of tests/cbuild.py) into a directory of its
own, which the parent removes when the job is over: a forked child leaves through os._exit, or
dies of a signal, so its own clean-up never runs."""

from __future__ import annotations

import multiprocessing
import shutil
import tempfile
import time
from dataclasses import dataclass
from typing import Optional

from .check import Mismatch, Report, check_program
from .gradients import Config
from .program import Program



def _gomp_mapped() -> bool:
    try:
        with open("/proc/self/maps") as maps:
            return "libgomp" in maps.read()
    except OSError:
        return True  # cannot tell: take the safe road


def _context():
    """Fork, so that children start warm and inherit the tests' monkeypatches; but libgomp does
    not survive fork (a child forked after this process started an OpenMP thread pool waits
    forever at its first parallel region), so once libgomp is loaded here (pytest, after the
    OpenMP tests) children come from a fork server, a fresh interpreter that never ran OpenMP."""
    if not _gomp_mapped():
        return multiprocessing.get_context("fork")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["numpy", "fuzzgen.check"])
    return context
BEFORE = "(before the first configuration)"


def _child(conn, program: Program, seed: int, configs: list, scratch: str) -> None:
    tempfile.tempdir = scratch
    report = check_program(program, seed, configs, on_config=lambda c: conn.send(("config", c)))
    conn.send(("report", report))
    conn.close()


@dataclass
class Job:
    """A check running in a child process."""

    program: Program
    seed: int
    configs: list
    timeout: float
    process: Optional[multiprocessing.Process] = None
    conn: object = None
    started: float = 0.0
    last_config: str = BEFORE
    report: Optional[Report] = None
    scratch: str = ""

    def start(self) -> "Job":
        context = _context()
        parent, child = context.Pipe(duplex=False)
        self.scratch = tempfile.mkdtemp(prefix="s2sad_fuzzjob_")
        self.process = context.Process(target=_child,
                                        args=(child, self.program, self.seed, self.configs, self.scratch))
        self.process.start()
        child.close()
        self.conn = parent
        self.started = time.monotonic()
        return self

    def poll(self) -> bool:
        """Read what the child said; True when the job is over (``report`` set)."""
        over = self._poll()
        if over:
            shutil.rmtree(self.scratch, ignore_errors=True)
        return over

    def _poll(self) -> bool:
        try:
            while self.conn.poll():
                kind, value = self.conn.recv()
                if kind == "config":
                    self.last_config = value
                else:
                    self.report = value
        except (EOFError, OSError):
            pass
        if self.report is not None:
            self.process.join()
            return True
        if not self.process.is_alive():
            self.process.join()
            code = self.process.exitcode
            if self.last_config == BEFORE:  # the program itself crashed: the generator's fault
                self.report = Report(status="invalid", note=f"the primal died (exit code {code})")
                return True
            self.report = Report(status="mismatch", mismatches=[
                Mismatch(self.last_config, "runtime", f"the check died (exit code {code}, a negative code is a signal)")
            ])
            return True
        if time.monotonic() - self.started > self.timeout:
            self.process.kill()
            self.process.join()
            self.report = Report(status="mismatch", mismatches=[
                Mismatch(self.last_config, "timeout", f"no answer in {self.timeout:g} s")
            ])
            return True
        return False


def warm_up_numba() -> None:
    """Import Numba and compile once in the parent, so that forked children start warm."""
    import numba

    numba.njit(lambda x: x + 1.0)(1.0)


def run_isolated(program: Program, seed: int, configs: list[Config], timeout: float = 300.0) -> Report:
    job = Job(program, seed, configs, timeout).start()
    while not job.poll():
        time.sleep(0.02)
    return job.report
