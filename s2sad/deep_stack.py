"""Translation on a deep stack: deeply nested input is deep recursion in the parsers, walks and
printers (a 1,000-deep nest of C parentheses is a tree 1,000 deep; a chain of 640 inlined
helpers is an expression 6,000 deep), so the command line, the Python API and the benchmarks
run a translation on a thread whose stack matches a raised recursion limit. Python input still
meets Python's own limit where Python would (python_frontend refuses it, located).

The recursion limit, and the collector's thresholds, are the interpreter's: raised while any
translation runs and set back when the last one ends (``interpreter_settings``).
"""

from __future__ import annotations

import contextvars
import threading
from typing import Callable, TypeVar

from .interpreter_settings import deep_recursion, fewer_collections

T = TypeVar("T")

STACK_BYTES = 1 << 30  # address space, not memory: only the pages a deep input touches are used

_lock = threading.Lock()  # threading.stack_size is the process's too: set only to start the worker


def run_deep(step: Callable[[], T]) -> T:
    """``step()`` on a thread of its own with a deep stack, under a raised recursion limit and
    fewer collections (a translation's objects live until it ends); its result, or its exception."""
    result: list[T] = []
    failure: list[BaseException] = []
    context = contextvars.copy_context()  # the caller's (a pass observer, a progress stage) go along

    def work() -> None:
        try:
            result.append(context.run(step))
        except BaseException as e:  # handed to the caller's thread as it is
            failure.append(e)

    worker = threading.Thread(target=work, name="s2sad", daemon=True)
    with fewer_collections(), deep_recursion():
        with _lock:
            old_stack = threading.stack_size(STACK_BYTES)
            try:
                worker.start()  # the deep stack is this thread's alone (not a progress ticker's)
            finally:
                threading.stack_size(old_stack)
        worker.join()
    if failure:
        raise failure[0]
    return result[0]
