"""Where each line and column pycparser reports was written: which file, which line, which column.

The preprocessor (``c_preprocess``) hands pycparser one text: the file s2sad reads with
the headers it includes put in place of their ``#include`` lines. Every line of that
text is a line of one of those files, in reading order, so it has its own number, the
*running* line, which pycparser reports as the coordinate's line and which the
front end uses as the key of what is recorded by line (pragmas, CUDA qualifiers): no
two files' line 5 can meet. A ``SourceLoc`` for the user names the file and its own
line again (``loc``).

Columns are true where the preprocessor changed nothing (the usual case: it only blanks
directives and comments). A line where a macro was expanded, or a GNU attribute taken
out, has ``Piece``s: for each token pycparser sees, where it is on that line and where
the user wrote it; a token made by a macro's body points at the macro's call.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ssa.ir import SourceLines, SourceLoc
from .c_node_width import NodeWidths


@dataclass(frozen=True)
class Piece:
    """A token on a changed line: ``col``..``col + width`` there; the user wrote it at
    (``line``, ``src_col``) when ``exact``, else it comes from the macro called there,
    whose call ends at (``end_line``, ``end_col``)."""

    col: int
    width: int
    line: int
    src_col: int
    exact: bool
    end_line: int
    end_col: int


@dataclass
class SourceMap:
    """The files read, and for each running line, its file, its own line and its text."""

    main: str  # the display name of the file s2sad reads
    files: dict[str, list[str]] = field(default_factory=dict)  # display name -> its lines, as written
    origin: list[tuple[str, int]] = field(default_factory=list)  # running line - 1 -> (file, line)
    raw: list[str] = field(default_factory=list)  # running line - 1 -> the line as written
    code: list[str] = field(default_factory=list)  # running line - 1 -> the line pycparser reads
    pieces: dict[int, list[Piece]] = field(default_factory=dict)  # running line -> its tokens, if changed
    # the widths of the nodes of the tree read from these lines (``c_expr.span``)
    widths: NodeWidths = field(default_factory=NodeWidths, repr=False, compare=False)

    def add(self, file: str, line: int, raw: str) -> int:
        """A new running line for ``file``'s ``line``: its number."""
        self.origin.append((file, line))
        self.raw.append(raw)
        return len(self.origin)

    def where(self, line: int) -> tuple[str, int]:
        """The file and line of a running line (the main file's own line past the end)."""
        if 1 <= line <= len(self.origin):
            return self.origin[line - 1]
        return self.main, line

    def line_loc(self, line: int, col: int, end_col: int) -> SourceLoc:
        """A span on the line as written (directives: pragmas are never changed)."""
        file, own = self.where(line)
        return SourceLoc(file, own, col, own, end_col)

    def loc(self, line: int, col: int, width: int) -> SourceLoc:
        """The user's span for ``width`` characters at ``col`` of running ``line`` as pycparser read it."""
        pieces = self.pieces.get(line)
        file, own = self.where(line)
        if not pieces:
            text = self.raw[line - 1] if 1 <= line <= len(self.raw) else ""
            end = min(col + max(1, width), len(text) + 1) if text else col + 1
            return SourceLoc(file, own, col, own, max(end, col + 1))
        first = _piece_at(pieces, col)
        last = _piece_at(pieces, max(col, col + width - 1))
        if not first.exact:  # made by a macro: the call
            file, own = self.where(first.line)
            end = first.end_col if first.end_line == first.line else first.src_col + 1
            return SourceLoc(file, own, first.src_col, own, max(end, first.src_col + 1))
        start = first.src_col + min(max(col - first.col, 0), first.width - 1)
        end = first.src_col + first.width
        if last.line == first.line:
            if last.exact:
                end = max(end, last.src_col + min(col + width - 1 - last.col, last.width - 1) + 1)
            elif last.end_line == first.line:
                end = max(end, last.end_col)
        file, own = self.where(first.line)
        return SourceLoc(file, own, start, own, max(end, start + 1))

    def source_lines(self) -> SourceLines:
        """The lines a diagnostic shows: the main file's, and each header's by its name."""
        main = self.files.get(self.main, [])
        return SourceLines(main, self.main, {name: lines for name, lines in self.files.items() if name != self.main})


def _piece_at(pieces: list[Piece], col: int) -> Piece:
    """The token at ``col``, or the one before it (``col`` in the white space after it)."""
    found = pieces[0]
    for p in pieces:
        if p.col > col:
            break
        found = p
    return found
