"""Which stage a translation is in, for the progress line a long one shows on a terminal.

The pipeline says where it is (``stage("reading norm.c")``, ``stage("pass licm")``); nothing is
printed unless someone watches. The command line watches when standard error is a terminal:
a ``Ticker`` thread shows the stage once a translation has run for ``DELAY`` seconds, and
erases its line when the translation ends, so that the messages and files that follow are as
they would be without it. Pipes, files and CI logs never see it.
"""

from __future__ import annotations

import threading
import time
from typing import Optional, TextIO

DELAY = 2.0  # seconds before the first progress line: short translations stay silent
PERIOD = 0.5

_current = ""


def stage(text: str) -> None:
    """Say what the translation does now (a plain assignment: readers on other threads see it
    whole)."""
    global _current
    _current = text


def current() -> str:
    return _current


class Ticker:
    """Shows ``current()`` on ``stream`` (a terminal) while the translation runs."""

    def __init__(self, stream: TextIO, delay: float = DELAY, period: float = PERIOD):
        self.stream = stream
        self.delay = delay
        self.period = period
        self.done = threading.Event()
        self.shown = False
        self.thread: Optional[threading.Thread] = None

    def __enter__(self) -> "Ticker":
        stage("starting")
        self.start = time.monotonic()
        self.thread = threading.Thread(target=self._run, name="s2sad-progress", daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.done.set()
        if self.thread is not None:
            self.thread.join()
        if self.shown:
            self._write("\r\x1b[K")  # erase the line: what follows starts clean

    def _run(self) -> None:
        if self.done.wait(self.delay):
            return
        while not self.done.is_set():
            elapsed = time.monotonic() - self.start
            self._write(f"\r\x1b[Ks2sad: {current()} ({elapsed:.0f} s)")
            self.shown = True
            self.done.wait(self.period)

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # the terminal went away: progress is not worth a failure
            self.done.set()
