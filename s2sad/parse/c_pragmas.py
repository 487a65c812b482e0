"""Which statement of a C function each ``#pragma`` applies to.

A pragma applies to the statement that follows it in the syntax, as C compilers read
OpenMP: the next statement of the same block, whatever line it is on. The preprocessor
records pragmas by running line and blanks them (pycparser never sees them), so the
front end finds that statement again here: the first statement node, in source order,
that starts after the pragma's line with nothing but blank lines, comments and other
pragmas in between (stacked pragmas, ``#pragma omp parallel`` over ``#pragma omp for``,
all apply to the one statement).

Matching by line instead was wrong when one line holds two statements: with ``for (i...)
for (j...)`` on the line below ``#pragma omp parallel for``, both loops started on the line
after the pragma, and the inner loop was made parallel too.

A pragma followed by a closing brace (the last line of a block) applies to no statement:
the map leaves it out, and whoever reads the pragmas reports it as unused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional

from pycparser import c_ast

from .c_preprocess import strip_comments


@dataclass(frozen=True)
class PlacedPragma:
    """``#pragma <text>`` on running line ``line``."""

    line: int
    text: str


# Where a statement (not an expression) sits in each kind of node.
_STATEMENT_FIELDS = {
    c_ast.Compound: ("block_items",),
    c_ast.For: ("stmt",),
    c_ast.While: ("stmt",),
    c_ast.DoWhile: ("stmt",),
    c_ast.If: ("iftrue", "iffalse"),
    c_ast.Switch: ("stmt",),
    c_ast.Case: ("stmts",),
    c_ast.Default: ("stmts",),
    c_ast.Label: ("stmt",),
}


def _statements(node: c_ast.Node) -> Iterator[c_ast.Node]:
    """The statements under ``node`` (itself first), in source order."""
    yield node
    for name in _STATEMENT_FIELDS.get(type(node), ()):
        child = getattr(node, name)
        for st in (child or []) if isinstance(child, list) else [child] if child is not None else []:
            yield from _statements(st)


def attach_pragmas(body: c_ast.Compound, pragmas: dict[int, str], lines: list[str],
                   span: range) -> dict[int, list[PlacedPragma]]:
    """``id(statement) -> its pragmas`` (in line order) for the pragmas on the lines ``span``
    (the function's body) of the running ``lines``."""
    placed = sorted(line for line in span if line in pragmas)
    if not placed:
        return {}
    text = strip_comments("\n".join(lines)).split("\n")
    order = [st for st in _statements(body) if st is not body and getattr(st, "coord", None) is not None]
    out: dict[int, list[PlacedPragma]] = {}
    for line in placed:
        target = _next_statement(order, line, text, pragmas)
        if target is not None:
            out.setdefault(id(target), []).append(PlacedPragma(line, pragmas[line]))
    return out


def _next_statement(order: list[c_ast.Node], line: int, text: list[str],
                    pragmas: dict[int, str]) -> Optional[c_ast.Node]:
    """The first statement after ``line``, when only blank lines, comments and pragmas (and
    no ``}``) lie between them."""
    target = next((st for st in order if st.coord.line > line), None)
    if target is None:
        return None
    for k in range(line + 1, target.coord.line):
        if k not in pragmas and text[k - 1].strip():
            return None
    before = text[target.coord.line - 1][:max(target.coord.column - 1, 0)]
    return None if "}" in before or ";" in before else target


# The last file's lines without comments, by the identity of its list of lines (kept alive here,
# so the identity is not reused): every function of a file asks, and stripping the whole file
# for each made a file of many functions quadratic.
_stripped: list[tuple[list[str], list[str]]] = []


def _without_comments(lines: list[str]) -> list[str]:
    for known, text in _stripped:
        if known is lines:
            return text
    text = strip_comments("\n".join(lines)).split("\n")
    _stripped[:] = [(lines, text)]
    return text


def body_lines(fn: c_ast.FuncDef, lines: list[str]) -> range:
    """The lines of ``fn``'s body, from its ``{`` to the matching ``}`` (comments, strings,
    character constants and preprocessor lines skipped)."""
    coord = fn.body.coord
    if coord is None:
        return range(0)
    text = _without_comments(lines)
    depth = 0
    for k in range(coord.line - 1, len(text)):
        row = text[k]
        if row.lstrip().startswith("#"):
            continue
        j = (coord.column - 1 if k == coord.line - 1 and coord.column else 0)
        while j < len(row):
            c = row[j]
            if c in "\"'":
                j += 1
                while j < len(row) and row[j] != c:
                    j += 2 if row[j] == "\\" else 1
            elif c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    return range(coord.line, k + 2)
            j += 1
    return range(coord.line, len(text) + 1)

