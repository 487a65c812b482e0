"""Statements as C text: 4-space indentation, braces on the same line, lines under 100 characters.

``x = x + e`` prints as ``x += e`` (array elements and ``*d_a`` too), ``k += 1``
on an integer as ``k++``, an ``else`` holding only an ``if`` as ``else if``. A
line that would be too long is broken at its loosest operators, continuation
lines indented by 8 (C needs no temporaries to break an expression).
"""

from __future__ import annotations

import math

from ..emit.expr import BinOp, BoolOp, Compare, Expr, IfExp, Lit, Name, Unary, binop, literal_value, number
from ..emit.stmt import (
    comment_lines,
    LINE_LIMIT,
    Assign,
    AugAssign,
    Comment,
    ExprStmt,
    For,
    If,
    Keyword,
    Return,
    Stmt,
    While,
    augmented,
)
from ..parse.c_declarators import declarator
from .cexpr import P_AND, P_LOWEST, CPrinter, split_points
from .cstmt import ArrayDecl, Decl
from .parallel import Pragma

CONT = " " * 8  # continuation indent


def comment_text(text: str) -> str:
    """Comment text that cannot end the comment or continue it onto the next line."""
    while "??" in text:
        text = text.replace("??", "? ?")  # no trigraphs (`??/` would continue the comment)
    while text.endswith("\\"):
        text = text[:-1].rstrip()
    return text




class CRenderer:
    def __init__(self, printer: CPrinter, types: dict[str, str]):
        self.p = printer
        self.types = types

    def block(self, stmts: list[Stmt], indent: str) -> list[str]:
        out: list[str] = []
        for s in stmts:
            out += self.stmt(s, indent)
        return out

    # -- expressions over lines ------------------------------------------------------------
    def fit(self, indent: str, prefix: str, e: Expr, suffix: str, prec: int = P_LOWEST) -> list[str]:
        line = f"{indent}{prefix}{self.p(e, prec)}{suffix}"
        if len(line) <= LINE_LIMIT:
            return [line]
        return self._break(indent, prefix, e, suffix, prec, indent + CONT)

    def _break(self, indent: str, prefix: str, e: Expr, suffix: str, prec: int, cont: str) -> list[str]:
        """``indent + prefix + e + suffix`` over several lines (``cont``: continuation indent)."""
        p = self.p
        whole = f"{indent}{prefix}{p(e, prec)}{suffix}"
        sp = split_points(e)
        if len(whole) <= LINE_LIMIT or sp is None:
            return [whole]
        kind, eprec, parts = sp
        if eprec < prec:
            prefix, suffix = prefix + "(", ")" + suffix
        if kind == "call":
            func = p(e.func, 14)  # type: ignore[attr-defined]
            args = [p(a, 2) for _, a in parts]
            if len(parts) == 1:  # one argument, too long: on the next lines, broken as it needs
                first = f"{indent}{prefix}{func}("
                return [first] + self._break(cont, "", parts[0][1], ")" + suffix, 2, cont)
            lines: list[str] = []
            cur = f"{indent}{prefix}{func}("
            for k, a in enumerate(args):
                piece = a + (", " if k < len(args) - 1 else ")" + suffix)
                if len(cur) + len(piece.rstrip()) > LINE_LIMIT and cur.strip() and not cur.endswith("("):
                    lines.append(cur.rstrip())
                    cur = cont
                cur += piece
            lines.append(cur.rstrip())
            return lines
        lines = []
        for k, (op, x) in enumerate(parts):
            if kind == "chain":
                sub = eprec if k == 0 else eprec + 1
                if isinstance(e, BoolOp) and isinstance(x, BoolOp) and x.op != e.op:
                    sub = P_AND + 1  # gcc -Wparentheses: `a || b && c` gets them, broken or not
                head = prefix if k == 0 else f"{op} "
            else:  # cond
                sub = 3 if k == 0 else 2
                head = prefix if k == 0 else f"{op} "
            tail = suffix if k == len(parts) - 1 else ""
            ind = indent if k == 0 else cont
            # A part broken in turn indents its own continuation lines one step further.
            lines += self._break(ind, head, x, tail, sub, cont + "    ")
        return lines

    # -- statements --------------------------------------------------------------------------
    @staticmethod
    def table(indent: str, head: str, items: list[str]) -> list[str]:
        """``head`` and the initializer's items, then ``};``: on one line when it fits, else the
        items filled into lines indented one step further."""
        one = f"{indent}{head}{', '.join(items)}}};"
        if len(one) <= LINE_LIMIT:
            return [one]
        lines, cur = [f"{indent}{head}"], ""
        inner = indent + "    "
        for k, item in enumerate(items):
            word = item + ("," if k < len(items) - 1 else "")
            if cur and len(inner) + len(cur) + 1 + len(word) > LINE_LIMIT:
                lines.append(inner + cur)
                cur = word
            else:
                cur = f"{cur} {word}" if cur else word
        return lines + [inner + cur, f"{indent}}};"]

    def stmt(self, s: Stmt, indent: str) -> list[str]:
        p = self.p
        if isinstance(s, Comment):
            return comment_lines(indent, "//", "\n".join(comment_text(t) for t in s.text.splitlines()), LINE_LIMIT)
        if isinstance(s, Keyword):
            return [] if s.text == "pass" else [f"{indent}{s.text};"]
        if isinstance(s, Decl):
            head = declarator(s.ctype, s.name)
            if s.value is None:
                return [f"{indent}{head};"]
            return self.fit(indent, f"{head} = ", s.value, ";")
        if isinstance(s, ArrayDecl):
            extents = "".join(f"[{d}]" for d in s.dims or (s.size,))
            if s.values:
                return self.table(indent, f"{s.ctype} {s.name}{extents} = {{",
                                  _rows([p(v) for v in s.values], s.dims[1:]))
            init = " = {0}" if s.zero else ""
            return [f"{indent}{s.ctype} {s.name}{extents}{init};"]
        if isinstance(s, Assign):
            (target,) = s.targets
            aug = augmented(target, s.value)
            if aug is not None:
                return self.stmt(aug, indent)
            return self.fit(indent, f"{p(target)} = ", s.value, ";")
        if isinstance(s, AugAssign):
            if (
                isinstance(s.target, Name)
                and s.op in ("+", "-")
                and isinstance(s.value, Lit)
                and literal_value(s.value) == 1
                and not isinstance(literal_value(s.value), bool)
            ):
                return [f"{indent}{s.target.id}{s.op * 2};"]
            return self.fit(indent, f"{p(s.target)} {s.op}= ", s.value, ";")
        if isinstance(s, ExprStmt):
            return self.fit(indent, "", s.value, ";")
        if isinstance(s, Pragma):
            return [f"{indent}#pragma {s.text}"]
        if isinstance(s, Return):
            if not s.values:
                return [f"{indent}return;"]
            return self.fit(indent, "return ", s.values[0], ";")
        if isinstance(s, For):
            return self._for(s, indent)
        if isinstance(s, While):
            if s.cond is None:
                head = [f"{indent}for (;;) {{"]
            else:
                head = self.fit(indent, "while (", s.cond, ") {")
            return head + self.block(s.body, indent + "    ") + [f"{indent}}}"]
        if isinstance(s, If):
            return self._if(s, indent)
        raise TypeError(s)

    def _for(self, s: For, indent: str) -> list[str]:
        lb, ub, step = s.args
        i = Name(s.target)
        ctype = self.types.get(s.target, "long")
        k = literal_value(step)
        if not (isinstance(k, int) and not isinstance(k, bool) and k != 0) and s.sign:
            k = None  # a step of known sign, not a literal (a grid-stride loop's blockDim.x * gridDim.x)
            if s.sign > 0:
                cond: Expr = Compare("<", i, ub)
                incr = f"{s.target} += {self.p(step, 11)}"
            else:
                cond = Compare(">", i, ub)
                down = step.operand if isinstance(step, Unary) and step.op == "-" else Unary("-", step)
                incr = f"{s.target} -= {self.p(down, 11)}"
        elif isinstance(k, int) and not isinstance(k, bool) and k != 0:
            if k > 0:
                cond = Compare("<", i, ub)
                incr = f"{s.target}++" if k == 1 else f"{s.target} += {k}"
            else:
                c = literal_value(ub)
                if isinstance(c, int) and not isinstance(c, bool):
                    cond = Compare(">=", i, number(c + 1))  # `i >= 0` rather than `i > -1`
                elif isinstance(ub, BinOp) and ub.op in ("+", "-") and isinstance(literal_value(ub.right), int):
                    cond = Compare(">=", i, binop("+", ub, Lit("1")))  # `i >= n - 1`, not `i > n - 2`
                else:
                    cond = Compare(">", i, ub)
                incr = f"{s.target}--" if k == -1 else f"{s.target} -= {-k}"
        else:
            cond = IfExp(Compare(">", step, Lit("0")), Compare("<", i, ub), Compare(">", i, ub))
            incr = f"{s.target} += {self.p(step, 11)}"
        init = f"{declarator(ctype, s.target)} = {self.p(lb)}"
        head = f"{indent}for ({init}; {self.p(cond)}; {incr}) {{"
        if len(head) > LINE_LIMIT:
            lines = self.fit(indent, f"for ({init}; ", cond, f"; {incr}) {{")
            if any(len(line) > LINE_LIMIT for line in lines):  # a long start (zip's shortest length)
                lines = self.fit(indent, f"for ({declarator(ctype, s.target)} = ", lb, ";")
                lines += self.fit(indent + CONT, "", cond, f"; {incr}) {{")
        else:
            lines = [head]
        return lines + self.block(s.body, indent + "    ") + [f"{indent}}}"]

    def _if(self, s: If, indent: str) -> list[str]:
        out = self.fit(indent, "if (", s.cond, ") {")
        out += self.block(s.body, indent + "    ")
        orelse = s.orelse
        while orelse and isinstance(orelse[-1], If) and all(isinstance(x, Comment) for x in orelse[:-1]):
            # `else { if ... }` is `else if`; comments before the inner `if` open its branch.
            inner = orelse[-1]
            out += self.fit(indent, "} else if (", inner.cond, ") {")
            out += self.block(orelse[:-1] + inner.body, indent + "    ")
            orelse = inner.orelse
        if orelse:
            out.append(f"{indent}}} else {{")
            out += self.block(orelse, indent + "    ")
        out.append(f"{indent}}}")
        return out


def wrap_signature(head: str, params: list[str], tail: str) -> list[str]:
    """``head(p1, p2, ...)tail`` packed greedily, continuation lines aligned after the parenthesis."""
    line = f"{head}({', '.join(params)}){tail}"
    if len(line) <= LINE_LIMIT:
        return [line]
    col = len(head) + 1
    pad = " " * col if col <= 40 else CONT
    lines: list[str] = []
    cur = f"{head}("
    for k, prm in enumerate(params):
        piece = prm + ("," if k < len(params) - 1 else f"){tail}")
        if len(cur) + len(piece) + 1 > LINE_LIMIT and not cur.endswith("("):
            lines.append(cur.rstrip())
            cur = pad
        elif not cur.endswith("(") and not cur.endswith(" "):
            cur += " "
        cur += piece
    lines.append(cur)
    return lines


def _rows(items: list[str], inner: tuple[int, ...]) -> list[str]:
    """A row-major initializer's items grouped by the extents after the first:
    ``{1.0, 2.0}, {3.0, 4.0}`` for ``[2][2]``."""
    if not inner:
        return items
    rows = _rows(items, inner[1:])
    width = len(rows) // (len(items) // math.prod(inner))  # rows of the next level per group
    return ["{" + ", ".join(rows[k : k + width]) + "}" for k in range(0, len(rows), width)]
