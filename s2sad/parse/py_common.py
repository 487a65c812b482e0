"""Shared pieces of the Python front end: source locations, failures, environments.

The front end reads libcst trees; every IR op and every diagnostic needs a
``SourceLoc``, so ``Locator`` turns a node into one (1-based columns, end
exclusive, as ``Diagnostic.render`` expects). Lowering reports a problem by
raising ``Fail``: the statement being lowered is abandoned, the diagnostic is
collected, and lowering goes on with the next statement, so one run reports
every problem of the input. A ``Fail`` without a diagnostic means "already
reported" (for example a call into a recursive cycle) and keeps follow-on
errors from repeating one problem.

An environment (``Env``) maps source variable names, and a few internal
control-flow flags, to their current SSA value. A name whose value cannot be
used at this point (an array chosen by control flow, a variable whose
assignment failed) maps to a ``Poison`` that explains why when it is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Union

from ..diagnostics import Diagnostic
from ..ssa.ir import SourceLoc, Value

if TYPE_CHECKING:  # the C front end shares this module: it need not load libcst (a third of a second)
    import libcst as cst
    from libcst.metadata import CodeRange


class Fail(Exception):
    """Abandon the statement being lowered; ``diagnostic`` is None when already reported."""

    def __init__(self, diagnostic: Optional[Diagnostic]):
        super().__init__(diagnostic.message if diagnostic else "already reported")
        self.diagnostic = diagnostic


@dataclass(frozen=True, eq=False)
class Poison:
    """An environment entry that must not be read; reading it reports ``message``.

    ``message`` empty: the problem was already reported where it arose.
    """

    message: str = ""
    hint: str = ""


Env = dict[str, Union[Value, Poison]]

# Internal environment keys: they cannot clash with Python identifiers.
RESULT = "<result>"
RETURNED = "<returned>"


def length_key(name: str) -> str:
    """The key of the length of the list ``name`` (its items are an array, ``py_lists``)."""
    return f"<len {name}>"


class Locator:
    """Source locations of libcst nodes, from libcst's ``PositionProvider``."""

    def __init__(self, filename: str, positions: dict[cst.CSTNode, CodeRange]):
        self.filename = filename
        self.positions = positions

    def loc(self, node: cst.CSTNode, end: Optional[cst.CSTNode] = None) -> SourceLoc:
        """The span of ``node``, or from ``node``'s start to ``end``'s end."""
        start = self.positions[node].start
        stop = self.positions[end if end is not None else node].end
        return SourceLoc(self.filename, start.line, start.column + 1, stop.line, stop.column + 1)

    def keyword(self, node: cst.CSTNode, keyword: str) -> SourceLoc:
        """The span of the keyword a compound statement starts with (``try``, ``else``)."""
        start = self.positions[node].start
        return SourceLoc(self.filename, start.line, start.column + 1, start.line, start.column + 1 + len(keyword))

    def fail(self, node: cst.CSTNode, message: str, hint: str = "") -> Fail:
        return Fail(Diagnostic(message, self.loc(node), hint))

    def diagnostic(self, node: cst.CSTNode, message: str, hint: str = "") -> Diagnostic:
        return Diagnostic(message, self.loc(node), hint)


def integer_array_hint(index: object) -> str:
    """The hint of an index array of floats: annotate it (by its name where it has one) as
    integers."""
    name = getattr(index, "value", None)  # a cst.Name's (libcst is not loaded here: the C front end)
    name = name if isinstance(name, str) and name.isidentifier() else "idx"
    return f'annotate it as an integer array: {name}: "i64[n]" (or convert it: {name}.astype(int))'
