"""Compiler-style error messages.

Every problem s2sad finds in user input is raised as a ``Diagnostic`` with a
source span and an optional hint; the CLI prints it as::

    norm.py:7:15: error: cannot differentiate through call to 'foo': ...
        out[i] = in_[i] / foo(in_)
                          ^~~~~~~~
    hint: define foo in this file, or give it a custom derivative: a function grad_foo in a file passed
    with --derivatives (see README, Custom derivatives)

Several problems found in one run are collected in a ``DiagnosticError``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from .ssa.ir import SourceLoc, lines_of


SHOWN_WIDTH = 120  # characters of a source line shown under a message, around its caret


@dataclass
class Diagnostic:
    message: str
    loc: Optional[SourceLoc] = None
    hint: str = ""

    def render(self, source_lines: Optional[list[str]] = None, shown: Optional[Callable[[str], str]] = None) -> str:
        """As a compiler prints it; ``shown`` spells a location's file as the user named it."""
        where = "s2sad: "
        if self.loc:
            where = f"{shown(self.loc.file) if shown else self.loc.file}:{self.loc.line}:{self.loc.col}: "
        out = [f"{where}error: {_visible(self.message)}"]
        if self.loc and source_lines:
            source_lines = lines_of(source_lines, self.loc.file)
        if self.loc and source_lines and 1 <= self.loc.line <= len(source_lines):
            line = _blank_controls(source_lines[self.loc.line - 1].rstrip("\n").expandtabs(4))
            col = self.loc.col
            width = 1
            if self.loc.end_line == self.loc.line and self.loc.end_col > self.loc.col:
                width = self.loc.end_col - self.loc.col
            if len(line) > SHOWN_WIDTH:  # a window of a long line around the caret (a line may be megabytes)
                start = min(max(col - 1 - SHOWN_WIDTH // 3, 0), len(line) - SHOWN_WIDTH)
                before = "..." if start > 0 else ""
                after = "..." if start + SHOWN_WIDTH < len(line) else ""
                line = before + line[start:start + SHOWN_WIDTH] + after
                col += len(before) - start
                width = min(width, SHOWN_WIDTH - (col - 1 - len(before)))
            out.append("    " + line)
            width = max(1, min(width, len(line) - col + 2))
            out.append("    " + " " * (col - 1) + "^" + "~" * (width - 1))
        if self.hint:
            out.append(f"hint: {_visible(self.hint)}")
        return "\n".join(out)


# Characters that end or break a line on a terminal (or in a log that splits lines as Python
# does) other than the newline itself: a form feed in a header's name, a \x1c in a string.
_CONTROLS = {c for c in map(chr, range(32)) if c != "\n"} | {"\x7f", "\x85", "\u2028", "\u2029"}


def _visible(text: str) -> str:
    """``text`` with its control characters written as escapes (``<strin\\x0cg.h>``), so that a
    message stays on its line and says what the file holds."""
    if not _CONTROLS.intersection(text):
        return text
    return "".join(ascii(c)[1:-1] if c in _CONTROLS and c != "\t" else c for c in text)


def _blank_controls(line: str) -> str:
    """A source line as shown above its caret: control characters as spaces, which keeps every
    column where it was."""
    return "".join(" " if c in _CONTROLS else c for c in line) if _CONTROLS.intersection(line) else line


class DiagnosticError(Exception):
    """One or more diagnostics; the CLI prints them all and exits with status 1."""

    def __init__(self, diagnostics: list[Diagnostic], source_lines: Optional[list[str]] = None):
        self.diagnostics = diagnostics
        self.source_lines = source_lines or []
        super().__init__("\n".join(d.message for d in diagnostics))

    def __reduce__(self) -> tuple:  # (pickled whole: check sends it from the process that ran it)
        return DiagnosticError, (self.diagnostics, self.source_lines)

    def render(self, shown: Optional[Callable[[str], str]] = None) -> str:
        return "\n".join(d.render(self.source_lines, shown) for d in self.diagnostics)


def error(message: str, loc: Optional[SourceLoc] = None, hint: str = "") -> DiagnosticError:
    """A single-diagnostic error, ready to ``raise``."""
    return DiagnosticError([Diagnostic(message, loc, hint)])
