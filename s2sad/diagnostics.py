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
        out = [f"{where}error: {self.message}"]
        if self.loc and source_lines:
            source_lines = lines_of(source_lines, self.loc.file)
        if self.loc and source_lines and 1 <= self.loc.line <= len(source_lines):
            line = source_lines[self.loc.line - 1].rstrip("\n").expandtabs(4)
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
            out.append(f"hint: {self.hint}")
        return "\n".join(out)


class DiagnosticError(Exception):
    """One or more diagnostics; the CLI prints them all and exits with status 1."""

    def __init__(self, diagnostics: list[Diagnostic], source_lines: Optional[list[str]] = None):
        self.diagnostics = diagnostics
        self.source_lines = source_lines or []
        super().__init__("\n".join(d.message for d in diagnostics))

    def render(self, shown: Optional[Callable[[str], str]] = None) -> str:
        return "\n".join(d.render(self.source_lines, shown) for d in self.diagnostics)


def error(message: str, loc: Optional[SourceLoc] = None, hint: str = "") -> DiagnosticError:
    """A single-diagnostic error, ready to ``raise``."""
    return DiagnosticError([Diagnostic(message, loc, hint)])
