"""The interpreter's settings a translation raises while it runs.

* The recursion limit: deeply nested input is deep recursion in the parsers, walks and printers,
  run on a thread whose stack matches the raised limit (``deep_stack``).
* The cyclic collector's thresholds: a translation allocates millions of small objects that
  live until it ends (ops, values, their use lists, which refer to one another in cycles), and
  CPython's collector, at its default thresholds, walks the young ones every 700 allocations and
  the middle generation every 7,000: on a 10,000-line C file a third of the translation's time
  (bench/translate_c_file.py: 16 s at the defaults, 11 s with no collection at all, at 1.2 to
  1.8 times the memory of the defaults where no collection costs 2). A young collection comes
  every 10,000 allocations, and frees the cycles that die young (a translation's garbage, as
  the callback counts show: over a million objects on the many-function file); the middle
  generation, which each object that survives one young collection enters and which holds
  little garbage, is walked only every thousand young collections (ten million allocations),
  not every ten: on the two 10,000-line files, the collector's time went from 0.80 s to 0.35 s (one function)
  and from 0.75 s to 0.42 s (many functions), at 2% and 13% more peak memory (399 to 408 MB,
  302 to 341 MB); a Python translation of 3,000 statements spends 2% of its time collecting
  either way. A larger translation still has its middle generation walked, each object once,
  so memory stays bounded as the input grows.

Each is the process's: raised while any translation runs (counted, so that concurrent
translations from several threads of a caller never lower it under one another, never lower
than the caller set it) and set back when the last one ends.
"""

from __future__ import annotations

import contextlib
import gc
import sys
import threading
from typing import Any, Callable, Iterator

RECURSION_LIMIT = 100_000
THRESHOLDS = (10_000, 1_000, 100)


class _Raised:
    """One setting, raised by ``raise_`` of its value for as long as any ``held`` block runs."""

    def __init__(self, get: Callable[[], Any], set_: Callable[[Any], None], raise_: Callable[[Any], Any]):
        self._get, self._set, self._raise = get, set_, raise_
        self._lock = threading.Lock()
        self._running = 0
        self._old: Any = None

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        with self._lock:
            if self._running == 0:
                self._old = self._get()
                self._set(self._raise(self._old))
            self._running += 1
        try:
            yield
        finally:
            with self._lock:
                self._running -= 1
                if self._running == 0:
                    self._set(self._old)


deep_recursion = _Raised(sys.getrecursionlimit, sys.setrecursionlimit,
                         lambda old: max(old, RECURSION_LIMIT)).held
fewer_collections = _Raised(gc.get_threshold, lambda t: gc.set_threshold(*t),
                            lambda old: tuple(max(o, n) for o, n in zip(old, THRESHOLDS))).held
