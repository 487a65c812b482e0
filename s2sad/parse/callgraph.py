"""The functions a gradient needs, callees first, with recursion found where it closes.

Both front ends differentiate a root function and every user function it
calls, transitively. Callees come first (a caller's lowering needs their
signatures); a call back into a function still being visited closes a cycle,
which is reported at that call (s2sad does not differentiate recursion yet).
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
