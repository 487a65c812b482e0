"""The functions a gradient needs, callees first, with mutual recursion found where it closes.

Both front ends differentiate a root function and every user function it
calls, transitively. Callees come first (a caller's lowering needs their
signatures). A function calling itself is fine: its gradient calls itself too
(``adjoint/reverse.py``). A call back into another function still being visited
closes a cycle of several functions (mutual recursion), which is reported at
that call: no order puts every callee first there.
"""

from __future__ import annotations

from typing import Callable, Hashable, Iterable, TypeVar

Call = TypeVar("Call", bound=Hashable)


def callees_first(root: str, calls_of: Callable[[str], Iterable[tuple[str, Call]]],
                  on_cycle: Callable[[Call, list[str]], None]) -> tuple[list[str], set[Call]]:
    """Functions reachable from ``root`` in callee-before-caller order, and the calls that close
    cycles (``on_cycle(call, cycle)`` is told of each, with the cycle's names in call order)."""
    order: list[str] = []
    back_edges: set[Call] = set()
    state: dict[str, str] = {}  # "active" while on the DFS stack, then "done"
    stack: list[str] = []

    def visit(name: str) -> None:
        state[name] = "active"
        stack.append(name)
        for callee, call in calls_of(name):
            if callee == name:
                continue  # direct recursion: the caller's own signature is all it needs
            if state.get(callee) == "active":
                back_edges.add(call)
                on_cycle(call, stack[stack.index(callee):] + [callee])
            elif callee not in state:
                visit(callee)
        stack.pop()
        state[name] = "done"
        order.append(name)

    visit(root)
    return order, back_edges
