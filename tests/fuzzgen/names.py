"""The local variables of a function, as both printers declare them."""

from __future__ import annotations

from .program import Assign, For, Function, IAssign, IRef, Ref, While, walk, walk_body

# Float locals start at fixed values, so that a statement the shrinker removes leaves a valid program.
FLOAT_INIT = {"s0": 0.5, "s1": -0.25, "s2": 1.0, "h0": 0.0, "h1": 0.75}


def float_init(name: str) -> float:
    return FLOAT_INIT.get(name, 0.25)


def int_init(name: str) -> int:
    """Steps (p*) start at 1, so a removed step assignment never makes a loop endless."""
    return 1 if name.startswith("p") else 0


def is_private(name: str) -> bool:
    """Temporaries of parallel loops (q*): declared inside the loop in C, never before it."""
    return name.startswith("q")


def locals_of(fn: Function) -> tuple[list[str], list[str]]:
    """(float locals, int locals) of ``fn`` in order of first appearance; loop counters excluded."""
    params = {p.name for p in fn.params}
    loop_vars = {n.var for n in walk_body(fn.body) if isinstance(n, For)}
    floats: list[str] = []
    ints: list[str] = []
    for node in walk_body(fn.body):
        if isinstance(node, (Assign, Ref)):
            name = node.name
            if name not in params and name not in floats and not is_private(name):
                floats.append(name)
        elif isinstance(node, (IAssign, IRef, While)):
            name = node.var if isinstance(node, While) else node.name
            if name not in params and name not in loop_vars and name not in ints:
                ints.append(name)
    return floats, ints


def privates_of(loop: For) -> list[str]:
    out: list[str] = []
    for stmt in loop.body:
        for node in walk(stmt):
            if isinstance(node, Assign) and is_private(node.name) and node.name not in out:
                out.append(node.name)
    return out
