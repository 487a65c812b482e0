"""Translation on a deep stack: deeply nested input is deep recursion in the parsers, walks and
printers (a 1,000-deep nest of C parentheses is a tree 1,000 deep; a chain of 640 inlined
helpers is an expression 6,000 deep), so the command line, the Python API and the benchmarks
run a translation on a thread whose stack matches a raised recursion limit. Python input still
meets Python's own limit where Python would (python_frontend refuses it, located).

The recursion limit is the interpreter's: it is raised while any translation runs (counted, so
that concurrent translations from several threads of a caller never lower it under one
another) and set back when the last one ends.
"""

from __future__ import annotations

import contextvars
import sys
import threading
from typing import Callable, TypeVar

from .collector import fewer_collections

T = TypeVar("T")

RECURSION_LIMIT = 100_000
STACK_BYTES = 1 << 30  # address space, not memory: only the pages a deep input touches are used

_lock = threading.Lock()
_running = 0
_old_limit = 0


def run_deep(step: Callable[[], T]) -> T:
    """``step()`` on a thread of its own with a deep stack, and fewer collections (``collector``:
    a translation's objects live until it ends); its result, or its exception."""
    with fewer_collections():
        return _on_deep_stack(step)


def _on_deep_stack(step: Callable[[], T]) -> T:
    global _running, _old_limit
    result: list[T] = []
    failure: list[BaseException] = []
    context = contextvars.copy_context()  # the caller's (a pass observer, a progress stage) go along

    def work() -> None:
        try:
            result.append(context.run(step))
        except BaseException as e:  # handed to the caller's thread as it is
            failure.append(e)

    worker = threading.Thread(target=work, name="s2sad", daemon=True)
    with _lock:
        if _running == 0:
            _old_limit = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_old_limit, RECURSION_LIMIT))
        _running += 1
        old_stack = threading.stack_size(STACK_BYTES)
        try:
            worker.start()  # the deep stack is this thread's alone (not a progress ticker's)
        finally:
            threading.stack_size(old_stack)
    try:
        worker.join()
    finally:
        with _lock:
            _running -= 1
            if _running == 0:
                sys.setrecursionlimit(_old_limit)
    if failure:
        raise failure[0]
    return result[0]
