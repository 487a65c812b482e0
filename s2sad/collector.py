"""Fewer cyclic garbage collections while a translation runs.

A translation allocates millions of small objects that live until it ends (ops, values, their
use lists, which refer to one another in cycles), and CPython's collector, at its default
thresholds, walks the young ones every 700 allocations and the whole heap every few hundred
thousand: on a 10,000-line C file a third of the translation's time (bench/translate_c_file.py:
16 s at the defaults, 12.5 s with these, 11 s with no collection at all, at 1.2 to 1.8 times the
memory of the defaults where no collection costs 2). The first threshold is raised so that a
young collection comes every 10,000 allocations, and the whole heap is walked ten times less
often. As the recursion limit (``deep_stack``), the thresholds are the interpreter's: raised
while any translation runs (counted, for a caller's concurrent translations) and set back when
the last one ends.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from typing import Iterator

THRESHOLDS = (10_000, 10, 100)

_lock = threading.Lock()
_running = 0
_old: tuple[int, ...] = ()


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """The collector's thresholds raised to ``THRESHOLDS`` (never lowered) within the block."""
    global _running, _old
    with _lock:
        if _running == 0:
            _old = gc.get_threshold()
            gc.set_threshold(*(max(old, new) for old, new in zip(_old, THRESHOLDS)))
        _running += 1
    try:
        yield
    finally:
        with _lock:
            _running -= 1
            if _running == 0:
                gc.set_threshold(*_old)
