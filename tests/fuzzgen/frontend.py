"""s2sad's shared work done once per program instead of once per configuration.

The configurations of one program share most of what s2sad does: the parse
(``pipeline.parse_source`` and ``pipeline.choose_function`` depend on the source alone, and
parsing with libcst or pycparser is the largest part of a small program's translation), and
the gradient module (``pipeline.gradient_module`` depends on the level and the schedule, not
on the target: the py, numba and C outputs of one level are emitted from the same module).
While ``shared_work()`` is active, those functions remember their answers: a module comes back
as a new copy of the first one (passes and emitters change modules in place), and one that
raised raises the same exception again. The emitters run for every configuration, as
``s2sad grad`` runs them.
"""

from __future__ import annotations

import contextlib
import functools
import pickle
import sys
from typing import Callable, Iterator

from s2sad import pipeline


def _memoized(fn: Callable, keep: Callable = lambda value: value, fresh: Callable = lambda kept: kept) -> Callable:
    """``fn`` remembering each answer (``keep(value)``, or the exception it raised) by its
    arguments, and returning ``fresh(kept)``."""
    answers: dict = {}

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        key = repr((args, sorted(kwargs.items())))
        if key not in answers:
            try:
                answers[key] = (keep(fn(*args, **kwargs)), None)
            except Exception as e:  # noqa: BLE001 - raised again below, for every configuration
                answers[key] = (None, e)
        kept, raised = answers[key]
        if raised is not None:
            raise raised
        return fresh(kept)

    return wrapper


@contextlib.contextmanager
def _deep_recursion() -> Iterator[None]:
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20000))  # the IR is a deep graph of values and their uses
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


def _frozen(module) -> bytes:
    with _deep_recursion():
        return pickle.dumps(module, pickle.HIGHEST_PROTOCOL)


def _thawed(frozen: bytes):
    """A new copy of the module each time (pickling copies faster than copy.deepcopy)."""
    with _deep_recursion():
        return pickle.loads(frozen)


@contextlib.contextmanager
def shared_work() -> Iterator[None]:
    """Within: one program's configurations share s2sad's parse and gradient modules."""
    saved = pipeline.parse_source, pipeline.choose_function, pipeline.gradient_module
    pipeline.parse_source = _memoized(pipeline.parse_source, _frozen, _thawed)
    pipeline.choose_function = _memoized(pipeline.choose_function)
    pipeline.gradient_module = _memoized(pipeline.gradient_module, _frozen, _thawed)
    try:
        yield
    finally:
        pipeline.parse_source, pipeline.choose_function, pipeline.gradient_module = saved
