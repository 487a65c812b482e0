"""Statements as small trees, built from ops by every emitter and rendered by each in its language.

The trees say what runs (``Assign``, ``AugAssign``, ``If``, ``For``, ``While``, ...) and
nothing of how a language spells it: Python renders ``For`` as ``for i in range(...)``, C as
``for (long i = ...; ...; ...)``; an emitter may add statements of its own (C's declarations
and pragmas). What is here works on the trees alone, the same for every output:

* ``stmt_names``: the variables statements read and assign;
* ``hoist_common_copies``: a copy both branches of an ``if`` make alike, made once before it;
* ``tidy``: comments left with nothing to annotate go;
* ``augmented``: ``x = x + e`` as ``x += e``;
* ``map_blocks``: a statement with its nested blocks rewritten.

Every output keeps its lines under 100 characters (``LINE_LIMIT``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Callable, Collection, Optional, Union

from .expr import (Attribute, BinOp, BoolOp, Call, Compare, Expr, IfExp, Lit, Name, Subscript, Tuple, Unary,
                   names_in, walk)

LINE_LIMIT = 99  # "lines under 100 characters"

_AUGMENTABLE = ("+", "-", "*", "/", "&", "|", "^", "<<", ">>")
_COMMUTATIVE = ("+", "*", "&", "|", "^")


@dataclass
class Assign:
    targets: list[Expr]  # one, or several for a tuple assignment
    value: Expr
    copy: bool = False  # a copy out of SSA (candidate for `r = a if c else b`)


@dataclass
class AugAssign:
    target: Expr
    op: str
    value: Expr


@dataclass
class ExprStmt:
    value: Expr


@dataclass
class Comment:
    text: str
    section: bool = False  # heads a run of commented paragraphs ("reverse sweep")
    keep: bool = False  # stands on its own (the memory report atop a gradient): never tidied away


@dataclass
class Keyword:
    text: str  # pass, break


@dataclass
class Return:
    values: list[Expr]


@dataclass
class If:
    cond: Expr
    body: list["Stmt"]
    orelse: list["Stmt"] = field(default_factory=list)
    ternary: bool = False  # both branches are a single copy to one variable


@dataclass
class For:
    target: str
    args: list[Expr]
    body: list["Stmt"]
    parallel: bool = False  # Numba output: numba.prange
    sign: int = 0  # the step's sign when known but not a literal (C's loop test needs it)


@dataclass
class While:
    cond: Optional[Expr]  # None: `while True:` (the condition needs statements)
    body: list["Stmt"]


Stmt = Union[Assign, AugAssign, ExprStmt, Comment, Keyword, Return, If, For, While]


def map_blocks(st: Stmt, f: Callable[[list[Stmt]], list[Stmt]]) -> Stmt:
    """``st`` with ``f`` applied to each block it holds (an if's branches, a loop's body)."""
    if isinstance(st, If):
        return dataclasses.replace(st, body=f(st.body), orelse=f(st.orelse))
    if isinstance(st, (For, While)):
        return dataclasses.replace(st, body=f(st.body))
    return st


def child_blocks(st: Stmt) -> list[list[Stmt]]:
    """The statement lists nested in ``st`` (an if's two arms, a loop's body)."""
    if isinstance(st, If):
        return [st.body, st.orelse]
    if isinstance(st, (For, While)):
        return [st.body]
    return []


def stmt_names(stmts: list[Stmt], skip: Optional[Stmt] = None) -> tuple[set[str], set[str]]:
    """Variables the statements read and those they assign (``skip`` left out), for membership tests."""
    read: set[str] = set()
    written: set[str] = set()

    def target(t: Expr) -> None:
        if isinstance(t, Name):
            written.add(t.id)
        elif isinstance(t, Tuple):
            for x in t.elts:
                target(x)
        else:
            read.update(names_in(t))

    def visit(ss: list[Stmt]) -> None:
        for st in ss:
            if st is skip:
                continue
            if isinstance(st, Assign):
                for t in st.targets:
                    target(t)
                read.update(names_in(st.value))
            elif isinstance(st, AugAssign):
                target(st.target)
                read.update(names_in(st.target))
                read.update(names_in(st.value))
            elif isinstance(st, (ExprStmt,)):
                read.update(names_in(st.value))
            elif isinstance(st, Return):
                for v in st.values:
                    read.update(names_in(v))
            elif isinstance(st, If):
                read.update(names_in(st.cond))
                visit(st.body)
                visit(st.orelse)
            elif isinstance(st, For):
                written.add(st.target)
                for a in st.args:
                    read.update(names_in(a))
                visit(st.body)
            elif isinstance(st, While):
                if st.cond is not None:
                    read.update(names_in(st.cond))
                visit(st.body)

    visit(stmts)
    return read, written


def reads_memory(e: Expr, pure_calls: Collection[str]) -> bool:
    """Whether evaluating ``e`` reads an array: a subscript, or a call of a function other than
    ``pure_calls`` (the math and builtins of the output language, which read no memory)."""
    for node in walk(e):
        if isinstance(node, Subscript):
            return True
        if isinstance(node, Call) and isinstance(node.func, Name) and node.func.id not in pure_calls:
            return True
    return False


def hoist_common_copies(cond: Expr, then: list[Stmt], orelse: list[Stmt], pure_calls: Collection[str]):
    """Copies both branches make alike happen once, before the ``if``.

    ``if c: d = s; ... else: d = s; ...`` becomes ``d = s`` then the ``if``, when
    nothing in the branches (or the condition) reads or writes ``d`` and nothing in
    them changes what ``s`` reads, so the earlier copy gives the same values
    (``pure_calls``: as for ``reads_memory``).
    """
    pre: list[Stmt] = []
    for st in list(then):
        if not (isinstance(st, Assign) and st.copy and len(st.targets) == 1 and isinstance(st.targets[0], Name)):
            continue
        twin = next((o for o in orelse if o == st), None)
        if twin is None:
            continue
        if reads_memory(st.value, pure_calls):
            continue  # a branch may store to the array before its copy reads it
        dst = st.targets[0].id
        read_t, written_t = stmt_names(then, skip=st)
        read_e, written_e = stmt_names(orelse, skip=twin)
        touched = read_t | written_t | read_e | written_e | set(names_in(cond))
        if dst in touched or any(x in written_t or x in written_e for x in names_in(st.value)):
            continue
        pre.append(st)
        then = [x for x in then if x is not st]
        orelse = [x for x in orelse if x is not twin]
    return pre, then, orelse


def drop_unread(stmts: list[Stmt]) -> list[Stmt]:
    """``stmts`` without the assignments of plain values that nothing reads (``t0 = x.shape[1]``:
    an extent the IR's whole-axis slices kept, which print as ``:`` without it); linters call such
    a variable unused. Only values that cannot change anything: names, literals, arithmetic,
    comparisons, attributes and an array's ``shape[k]``."""
    while True:
        read, _ = stmt_names(stmts)
        dropped = False

        def keep(ss: list[Stmt]) -> list[Stmt]:
            nonlocal dropped
            out: list[Stmt] = []
            for st in ss:
                if isinstance(st, Assign) and len(st.targets) == 1 and isinstance(st.targets[0], Name) \
                        and st.targets[0].id not in read and _plain_value(st.value):
                    dropped = True
                    continue
                out.append(map_blocks(st, keep))
            return out

        stmts = keep(stmts)
        if not dropped:
            return stmts


def _plain_value(e: Expr) -> bool:
    for node in walk(e):
        if isinstance(node, Subscript):
            if not (isinstance(node.value, Attribute) and node.value.attr == "shape"):
                return False
        elif not isinstance(node, (Name, Lit, BinOp, Unary, Compare, BoolOp, IfExp, Tuple, Attribute)):
            return False
    return True


def tidy(stmts: list[Stmt]) -> list[Stmt]:
    """Drop comments left with nothing to annotate (followed by another comment, or by nothing).

    A section comment may be followed by the line comments of its section; it
    goes only when nothing but comments follows it.
    """
    out: list[Stmt] = []
    for k, s in enumerate(stmts):
        if isinstance(s, Comment) and not s.keep:
            rest = stmts[k + 1 :] if s.section else stmts[k + 1 : k + 2]
            code = False
            for t in rest:
                if isinstance(t, Comment) and t.section:
                    break
                if not isinstance(t, Comment):
                    code = True
                    break
            if not code:
                continue
        out.append(s)
    sections = [s for s in out if isinstance(s, Comment) and s.section]
    if len(sections) == 1:
        out.remove(sections[0])  # a lone section label (no forward sweep left) says nothing
    return out


def augmented(target: Expr, value: Expr) -> Optional[AugAssign]:
    """``x = x + e`` -> ``x += e`` (``x = e + x`` too for + and *, which are commutative)."""
    if not isinstance(value, BinOp) or value.op not in _AUGMENTABLE:
        return None
    if value.left == target:
        return AugAssign(target, value.op, value.right)
    if value.op in _COMMUTATIVE and value.right == target:
        return AugAssign(target, value.op, value.left)
    return None


def comment_lines(indent: str, marker: str, text: str, limit: int) -> list[str]:
    """The lines of a comment (``marker``: ``#`` or ``//``), each cut to ``limit`` characters with
    ``...`` where its text is longer. The text is cut, never the indentation or the marker: code
    nested past the limit keeps its comment a comment (a bare ``...`` line there was a syntax
    error in C and an ``Ellipsis`` statement, or an indentation error, in Python: fuzz seed 16000588)."""
    out = []
    for line in text.splitlines():
        prefix = f"{indent}{marker} "
        whole = (prefix + line).rstrip()
        if len(whole) > limit:
            whole = prefix + line[: max(limit - len(prefix) - 3, 16)].rstrip() + "..."
        out.append(whole)
    return out
