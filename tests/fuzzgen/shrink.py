"""Minimize a failing program (delta debugging on the program tree).

Candidates, smallest first: drop a helper nobody calls, drop a statement, replace a compound
statement by its body, replace an expression by a constant, a parameter or one of its own
operands. A candidate is kept when the same configuration still fails the same way (the same
mismatch kind); the search restarts from it until no candidate is kept or time runs out.
"""

from __future__ import annotations

import time
from dataclasses import fields, replace
from typing import Callable, Iterator

from .program import ABin, AUn, Bin, CallF, CallS, For, If, Intr, Load, Num, Program, Reduce, Ref, Select, While, walk

_FLOAT_NODES = (Bin, Intr, Select, CallF, Reduce)


def _statement_variants(body: tuple, top: bool) -> Iterator[tuple]:
    for k, stmt in enumerate(body):
        if not (top and k == len(body) - 1):  # the final return stays
            yield body[:k] + body[k + 1:]
        if isinstance(stmt, If):
            yield body[:k] + stmt.body + stmt.orelse + body[k + 1:]
            yield body[:k] + stmt.body + body[k + 1:]
        if isinstance(stmt, For) and (stmt.checkpoint or stmt.parallel or stmt.down):
            yield body[:k] + (replace(stmt, checkpoint="", parallel="", reduce="", down=False),) + body[k + 1:]
        for inner in _nested_variants(stmt):
            yield body[:k] + (inner,) + body[k + 1:]


def _nested_variants(stmt) -> Iterator:
    if isinstance(stmt, If):
        for b in _statement_variants(stmt.body, False):
            yield replace(stmt, body=b)
        for b in _statement_variants(stmt.orelse, False):
            yield replace(stmt, orelse=b)
    elif isinstance(stmt, (For, While)):
        for b in _statement_variants(stmt.body, False):
            yield replace(stmt, body=b)


def _expression_variants(node) -> Iterator:
    """``node`` with one expression somewhere below it made simpler."""
    for f in fields(node):
        value = getattr(node, f.name)
        items = value if isinstance(value, tuple) else (value,)
        for k, item in enumerate(items):
            for option in _simpler(item):
                changed = value[:k] + (option,) + value[k + 1:] if isinstance(value, tuple) else option
                yield replace(node, **{f.name: changed})


def _simpler(item) -> Iterator:
    if isinstance(item, _FLOAT_NODES):
        yield Num(0.5)
        yield Ref("a")
        for f in fields(item):
            value = getattr(item, f.name)
            for v in value if isinstance(value, tuple) else (value,):
                if isinstance(v, _FLOAT_NODES + (Num, Ref, Load)):
                    yield v
    elif isinstance(item, AUn):
        yield item.arg
    elif isinstance(item, ABin):
        yield item.left
    if hasattr(item, "__dataclass_fields__"):
        yield from _expression_variants(item)


def candidates(program: Program) -> Iterator[Program]:
    called = {n.fn for fn in program.functions for s in fn.body for n in walk(s) if isinstance(n, (CallF, CallS))}
    for k, fn in enumerate(program.functions[:-1]):
        if fn.name not in called:
            yield replace(program, functions=program.functions[:k] + program.functions[k + 1:])
    for k, fn in enumerate(program.functions):
        top = k == len(program.functions) - 1
        for body in _statement_variants(fn.body, top):
            yield _with_function(program, k, replace(fn, body=body))
    for k, fn in enumerate(program.functions):
        for i, stmt in enumerate(fn.body):
            for simpler in _expression_variants(stmt):
                yield _with_function(program, k, replace(fn, body=fn.body[:i] + (simpler,) + fn.body[i + 1:]))


def _with_function(program: Program, k: int, fn) -> Program:
    return replace(program, functions=program.functions[:k] + (fn,) + program.functions[k + 1:])


def size(program: Program) -> int:
    return sum(1 for fn in program.functions for s in fn.body for _ in walk(s))


def shrink(program: Program, still_fails: Callable[[Program], bool], seconds: float = 120.0) -> Program:
    """The smallest program found (by node count) for which ``still_fails`` holds."""
    deadline = time.monotonic() + seconds
    current = program
    progress = True
    while progress and time.monotonic() < deadline:
        progress = False
        seen = set()
        for candidate in candidates(current):
            if time.monotonic() > deadline:
                break
            if candidate in seen or size(candidate) >= size(current):
                continue
            seen.add(candidate)
            if still_fails(candidate):
                current = candidate
                progress = True
                break
    return current
