"""What the front ends keep while one translation runs, and forget when it ends.

Choosing the function to differentiate, scanning the module and lowering each function all ask
for the file's parse; parsing a long file costs seconds, so each front end keeps its parses
while the translation runs (``one_translation``, around the pipeline's entry points) and drops
them when the outermost one ends. Kept longer, they would hold every syntax tree of every file
translated in the process alive (an API user's, a benchmark's): memory that grows, and that the
cyclic collector walks at each of its passes, so that one translation after a large one ran
slower for it.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Callable, Iterator

_forgetters: list[Callable[[], None]] = []


class _Depth(threading.local):
    """How many translations this thread is inside (the pipeline's entry points call each other)."""

    def __init__(self) -> None:
        self.depth = 0


_depth = _Depth()


def kept_per_translation(forget: Callable[[], None]) -> Callable[[], None]:
    """Registers ``forget``, which empties a front end's cache of parses: called when the
    outermost translation ends."""
    _forgetters.append(forget)
    return forget


def translating() -> bool:
    """Whether this thread runs a translation (a parse may be kept for its other questions)."""
    return _depth.depth > 0


@contextlib.contextmanager
def one_translation() -> Iterator[None]:
    """While it runs, each file is parsed once per front end; its parses are forgotten when the
    outermost block ends: the next translation reads the file (and its headers) again."""
    _depth.depth += 1
    try:
        yield
    finally:
        _depth.depth -= 1
        if _depth.depth == 0:
            for forget in _forgetters:
                forget()
