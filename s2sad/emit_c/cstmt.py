"""Statements only C output has, and where each C variable is declared.

The statement tree is the Python emitter's (``Assign``, ``If``, ``For``, ...:
built by the shared code in ``s2sad.emit_py.emitter``); C adds declarations.
``declare`` places each local variable's declaration the way a person writes
C99: at its first assignment (``double s = 0.0;``) in the innermost block that
holds all its uses, and inside a loop or branch when every use is there and
the variable carries nothing in or out (each reversed iteration's
``double d_y_i = d_y[i];``). A loop variable is declared by its ``for``.
Where the first statement that touches a variable is not an assignment to it
(a variable both branches of an ``if`` assign), a bare ``double y;`` goes just
before it. A variable is never redeclared in a nested scope while an outer
declaration of it is visible: later uses then assign the outer variable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..emit_py.emitter import AugAssign, Assign, ExprStmt, For, If, Return, Stmt, While
from ..emit_py.expr import Expr, Name, names_in


@dataclass
class Decl:
    """``ctype name = value;`` (no initialiser when ``value`` is None)."""

    ctype: str
    name: str
    value: Optional[Expr] = None


@dataclass
class ArrayDecl:
    """A small array of constant size on the stack: ``double acc[3] = {0};``."""

    ctype: str
    name: str
    size: int
    zero: bool


def _reads(st: Stmt) -> list[str]:
    """Names a simple statement reads (not nested blocks)."""
    if isinstance(st, Assign):
        out = names_in(st.value)
        for t in st.targets:
            if not isinstance(t, Name):
                out += names_in(t)
        return out
    if isinstance(st, AugAssign):
        return names_in(st.target) + names_in(st.value)
    if isinstance(st, ExprStmt):
        return names_in(st.value)
    if isinstance(st, Return):
        return [n for v in st.values for n in names_in(v)]
    if isinstance(st, Decl) and st.value is not None:
        return names_in(st.value)
    return []


def _header_reads(st: Stmt) -> list[str]:
    if isinstance(st, If):
        return names_in(st.cond)
    if isinstance(st, For):
        return [n for a in st.args for n in names_in(a)]
    if isinstance(st, While) and st.cond is not None:
        return names_in(st.cond)
    return []


def child_blocks(st: Stmt) -> list[list[Stmt]]:
    """The statement lists nested in ``st`` (an if's two arms, a loop's body)."""
    if isinstance(st, If):
        return [st.body, st.orelse]
    if isinstance(st, (For, While)):
        return [st.body]
    return []


def touched(st: Stmt, memo: dict[int, tuple[Stmt, set[str]]]) -> set[str]:
    """Every name a statement (and what it holds) reads or assigns.

    ``memo`` is keyed by identity and keeps each statement alive, so that a
    statement replaced meanwhile cannot hand its ``id`` to a new one.
    """
    key = id(st)
    if key not in memo:
        out = set(_reads(st)) | set(_header_reads(st))
        if isinstance(st, Assign):
            out.update(t.id for t in st.targets if isinstance(t, Name))
        if isinstance(st, For):
            out.add(st.target)
        for b in child_blocks(st):
            for inner in b:
                out |= touched(inner, memo)
        memo[key] = (st, out)
    return memo[key][1]


def _exposed(stmts: list[Stmt], x: str, memo) -> tuple[bool, bool]:
    """(whether ``x`` may be read before it is assigned, whether it is surely assigned at the end)."""
    for st in stmts:
        if x not in touched(st, memo):
            continue
        if x in _reads(st) or x in _header_reads(st):
            return True, False
        if isinstance(st, Assign):
            if any(isinstance(t, Name) and t.id == x for t in st.targets):
                return False, True
        elif isinstance(st, If):
            e1, d1 = _exposed(st.body, x, memo)
            e2, d2 = _exposed(st.orelse, x, memo)
            if e1 or e2:
                return True, False
            if d1 and d2:
                return False, True
        elif isinstance(st, For):
            if st.target != x and _exposed(st.body, x, memo)[0]:
                return True, False
        elif isinstance(st, While):
            if _exposed(st.body, x, memo)[0]:
                return True, False
    return False, False


def declare(body: list[Stmt], types: dict[str, str]) -> None:
    """Insert the declarations of the variables in ``types`` into ``body`` (in place)."""
    memo: dict[int, tuple[Stmt, set[str]]] = {}
    order: list[str] = []

    def collect(stmts: list[Stmt]) -> None:
        for st in stmts:
            for n in sorted(touched(st, memo) - set(order)):
                if n in types:
                    order.append(n)  # sorted within a statement: deterministic
            for b in child_blocks(st):
                collect(b)

    collect(body)
    inserts: list[tuple[list[Stmt], int, Decl]] = []
    for x in order:
        _place(x, body, False, types[x], memo, inserts)
    # Insert from the back so that earlier indices stay valid; at one position, names keep their order.
    for _, (block, k, decl) in sorted(enumerate(inserts), key=lambda t: (-t[1][1], -t[0])):
        block.insert(k, decl)


def _place(x: str, block: list[Stmt], loop_body: bool, ctype: str, memo, inserts) -> None:
    idxs = [k for k, st in enumerate(block) if x in touched(st, memo)]
    main: Optional[int] = None
    for k in idxs:
        st = block[k]
        if main is None and child_blocks(st) and _self_contained(x, block, k, loop_body, memo):
            if isinstance(st, For) and st.target == x:
                continue  # the loop declares it
            for b in child_blocks(st):
                if any(x in touched(inner, memo) for inner in b):
                    _place(x, b, isinstance(st, (For, While)), ctype, memo, inserts)
        elif main is None:
            main = k
        elif isinstance(st, For) and st.target == x:
            pass  # the loop's own declaration shadows the dead outer variable
    if main is None:
        return
    st = block[main]
    if (
        isinstance(st, Assign)
        and len(st.targets) == 1
        and st.targets[0] == Name(x)
        and x not in names_in(st.value)
    ):
        block[main] = Decl(ctype, x, st.value)
    else:
        inserts.append((block, main, Decl(ctype, x)))


def _self_contained(x: str, block: list[Stmt], k: int, loop_body: bool, memo) -> bool:
    """Whether ``x`` carries no value into or out of ``block[k]``."""
    if _exposed([block[k]], x, memo)[0]:
        return False
    if _exposed(block[k + 1 :], x, memo)[0]:
        return False
    return not (loop_body and _exposed(block, x, memo)[0])


__all__ = ["ArrayDecl", "Decl", "declare", "touched"]
