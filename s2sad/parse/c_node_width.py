"""How wide a C node is on its first line: what the caret under a diagnostic about it spans.

pycparser gives a node's start only; its width is that of its text regenerated (its first
line, for a statement), and every op the lowering makes asks it of the node it comes from.
One ``NodeWidths`` serves one translation's tree (``SourceMap.widths``): it keeps each
expression's text, so a statement's text is made once and its parts' widths are read from
it (regenerating each part again made the work grow with the nesting depth times the size),
and each node's count of nodes, which bounds the text of a huge expression unread.
"""

from __future__ import annotations

import copy

from pycparser import c_ast
from pycparser.c_generator import CGenerator

WIDTH_BUDGET = 128  # past this, a span's width is this: a caret's line is shown 120 characters wide

# Expressions: their text is the same wherever they stand (the parentheses a parent adds are
# outside it), so it is kept; statements' text depends on their indentation, and is not.
_EXPRESSIONS = (c_ast.ID, c_ast.Constant, c_ast.BinaryOp, c_ast.UnaryOp, c_ast.ArrayRef, c_ast.FuncCall,
                c_ast.ExprList, c_ast.StructRef, c_ast.TernaryOp, c_ast.Assignment, c_ast.Cast)

# The members that hold a statement's body: its first line never shows them.
_BODIES = {c_ast.If: ("iftrue", "iffalse"), c_ast.For: ("stmt",), c_ast.While: ("stmt",), c_ast.DoWhile: ("stmt",),
           c_ast.Switch: ("stmt",), c_ast.Compound: ("block_items",), c_ast.FuncDef: ("body",), c_ast.Label: ("stmt",),
           c_ast.Case: ("stmts",), c_ast.Default: ("stmts",)}


class NodeWidths:
    """The first-line widths of one tree's nodes, and what they are worked out from."""

    def __init__(self) -> None:
        self._texts: dict[c_ast.Node, str] = {}
        self._sizes: dict[c_ast.Node, int] = {}

    def width(self, node: c_ast.Node) -> int:
        """The width of ``node``'s regenerated first line, at most ``WIDTH_BUDGET``: every node of
        an expression prints as a character at least, so one of more nodes than that is wider,
        and is not printed (a sum of 5,000 terms, each of its 5,000 sub-sums asked in turn)."""
        head = _header(node)
        text = self._texts.get(head)  # (an expression inside one asked before: most are)
        if text is None:
            if self._capped_size(head) > WIDTH_BUDGET:
                return WIDTH_BUDGET
            text = _KeptTexts(self._texts).visit(head)
        return len(text.split("\n")[0])

    def _capped_size(self, node: c_ast.Node) -> int:
        """``node``'s count of nodes, up to just past the budget."""
        sizes = self._sizes
        stack = [(node, False)]
        while stack:  # post-order, by a stack (the tree may be deep)
            n, ready = stack.pop()
            if ready:
                sizes[n] = min(WIDTH_BUDGET + 1, 1 + sum(sizes[c] for _, c in n.children()))
            elif n not in sizes:
                stack.append((n, True))
                stack.extend((c, False) for _, c in n.children())
        return sizes[node]


class _KeptTexts(CGenerator):
    """pycparser's C text, each expression's made once (``texts``) and read again after."""

    def __init__(self, texts: dict[c_ast.Node, str]):
        super().__init__()
        self.texts = texts

    def visit(self, node: c_ast.Node) -> str:
        if self.indent_level or not isinstance(node, _EXPRESSIONS):
            return super().visit(node)
        text = self.texts.get(node)
        if text is None:
            text = self.texts[node] = super().visit(node)
        return text


def _header(node: c_ast.Node) -> c_ast.Node:
    """``node`` with an empty body, for the width of its first line: printing a statement whole
    for its first line costs its size, and every statement nested in it asks again (a chain of
    ``else if`` hundreds long printed hundreds of times)."""
    bodies = _BODIES.get(type(node))
    if bodies is None:
        return node
    head = copy.copy(node)
    for member in bodies:
        empty: object = [] if member in ("stmts", "block_items") else c_ast.Compound(None)
        setattr(head, member, empty if member != "iffalse" else None)
    return head
