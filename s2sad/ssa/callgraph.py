"""The call graph: callees before their callers, and the calls that close cycles.

Both front ends differentiate a root function and every user function it
calls, transitively. Callees come first (a caller's lowering needs their
signatures). A function calling itself is fine: its gradient calls itself too
(``adjoint/reverse.py``). A call back into another function still being visited
closes a cycle of several functions (mutual recursion), which the front ends
report at that call: no order puts every callee first there. The passes
(``opt/inline.py``) walk a module's functions in the same order.
"""

from __future__ import annotations

from typing import Callable, Hashable, Iterable, Iterator, Optional, TypeVar

from .ir import Function, Module, Op

Call = TypeVar("Call", bound=Hashable)


class _Walk:
    """Depth-first over ``calls_of``; ``order`` grows callee before caller across visits."""

    def __init__(self, calls_of: Callable[[str], Iterable[tuple[str, Call]]],
                 on_cycle: Optional[Callable[[Call, list[str]], None]]):
        self.calls_of = calls_of
        self.on_cycle = on_cycle
        self.order: list[str] = []
        self.back_edges: set = set()
        self.state: dict[str, str] = {}  # "active" while on the DFS stack, then "done"
        self.stack: list[str] = []

    def visit(self, name: str) -> None:
        self.state[name] = "active"
        self.stack.append(name)
        for callee, call in self.calls_of(name):
            if callee == name:
                continue  # direct recursion: the caller's own signature is all it needs
            if self.state.get(callee) == "active":
                self.back_edges.add(call)
                if self.on_cycle is not None:
                    self.on_cycle(call, self.stack[self.stack.index(callee):] + [callee])
            elif callee not in self.state:
                self.visit(callee)
        self.stack.pop()
        self.state[name] = "done"
        self.order.append(name)


def callees_first(root: str, calls_of: Callable[[str], Iterable[tuple[str, Call]]],
                  on_cycle: Callable[[Call, list[str]], None]) -> tuple[list[str], set[Call]]:
    """Functions reachable from ``root`` in callee-before-caller order, and the calls that close
    cycles (``on_cycle(call, cycle)`` is told of each, with the cycle's names in call order)."""
    walk = _Walk(calls_of, on_cycle)
    walk.visit(root)
    return walk.order, walk.back_edges


def _module_calls(module: Module) -> Callable[[str], Iterator[tuple[str, Op]]]:
    def calls_of(name: str) -> Iterator[tuple[str, Op]]:
        for op in module.functions[name].walk():
            if op.name == "call" and op.attrs.get("callee", "") in module.functions:
                yield op.attrs["callee"], op

    return calls_of


def module_callees_first(module: Module) -> list[Function]:
    """The module's functions, every callee before its callers (a cycle is cut where it closes)."""
    walk = _Walk(_module_calls(module), None)
    for name in list(module.functions):
        if name not in walk.state:
            walk.visit(name)
    return [module.functions[name] for name in walk.order]


def callers_first(module: Module, root: str) -> list[Function]:
    """``root`` and every function of the module it reaches, each caller before its callees."""
    walk = _Walk(_module_calls(module), None)
    walk.visit(root)
    return [module.functions[name] for name in reversed(walk.order)]


def callees(fn: Function) -> set[str]:
    """The names ``fn`` calls (in any of its regions)."""
    return {op.attrs["callee"] for op in fn.walk() if op.name == "call"}


def reachable(module: Module, roots: Iterable[str]) -> set[str]:
    """The functions of the module that calls reach from ``roots``, those of ``roots`` in it
    included."""
    seen: set[str] = set()
    pending = [name for name in roots if name in module.functions]
    while pending:
        name = pending.pop()
        if name not in seen:
            seen.add(name)
            pending += [c for c in callees(module.functions[name]) if c in module.functions]
    return seen
